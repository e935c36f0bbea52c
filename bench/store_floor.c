// store_floor ROOT N BYTES [BATCH]: the system calls of the cache's durable store
// and nothing else (no SQLite, no Swift), to measure what they cost on a disk.
// Per file (no BATCH), as DiskCache.store does: write ROOT/tmp/<i>.tmp (BYTES),
// fsync it, mkdir ROOT/v1/<h0h1>/<h2h3> when missing (fsyncing the parent of a new
// directory), rename the file in, fsync its directory.
// With BATCH, a group commit warm does not do: BATCH temp files written, one
// syncfs, the directories made and the files renamed, one more syncfs.
// Used by bench/e2e_floor.sh (bench/findings.md section 11).
//   gcc -O2 -o /tmp/store_floor bench/store_floor.c
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <errno.h>

static int mkdir_synced(int parent, const char *name) {
    if (mkdirat(parent, name, 0755) == 0) { fsync(parent); }
    else if (errno != EEXIST) { perror("mkdir"); exit(1); }
    return openat(parent, name, O_RDONLY | O_DIRECTORY);
}
static int batch = 0;
static int mkdir_batched(int parent, const char *name) {
    if (mkdirat(parent, name, 0755) != 0 && errno != EEXIST) { perror("mkdir"); exit(1); }
    return openat(parent, name, O_RDONLY | O_DIRECTORY);
}
int main(int argc, char **argv) {
    const char *root = argv[1]; int n = atoi(argv[2]); size_t bytes = (size_t)atol(argv[3]);
    if (argc > 4) batch = atoi(argv[4]);
    char *buf = malloc(bytes); memset(buf, 7, bytes);
    mkdir(root, 0755);
    int r = open(root, O_RDONLY | O_DIRECTORY);
    int tmp = mkdir_synced(r, "tmp"), v1 = mkdir_synced(r, "v1");
    if (batch > 0) {
        for (int start = 0; start < n; start += batch) {
            int end = start + batch < n ? start + batch : n;
            for (int i = start; i < end; i++) {
                char name[64]; snprintf(name, sizeof name, "%d.tmp", i);
                int fd = openat(tmp, name, O_WRONLY | O_CREAT | O_EXCL, 0644);
                if (write(fd, buf, bytes) != (ssize_t)bytes) { perror("write"); return 1; }
                close(fd);
            }
            syncfs(tmp);
            for (int i = start; i < end; i++) {
                unsigned h = (unsigned)i * 2654435761u;
                char name[64], outer[8], inner[8], final[64];
                snprintf(name, sizeof name, "%d.tmp", i);
                snprintf(outer, sizeof outer, "%02x", h >> 24); snprintf(inner, sizeof inner, "%02x", (h >> 16) & 255);
                int o = mkdir_batched(v1, outer), in = mkdir_batched(o, inner);
                snprintf(final, sizeof final, "%08x.jpg", h);
                if (renameat(tmp, name, in, final) != 0) { perror("rename"); return 1; }
                close(in); close(o);
            }
            syncfs(tmp);
        }
        return 0;
    }
    for (int i = 0; i < n; i++) {
        unsigned h = (unsigned)i * 2654435761u;
        char name[64], outer[8], inner[8];
        snprintf(name, sizeof name, "%d.tmp", i);
        snprintf(outer, sizeof outer, "%02x", h >> 24); snprintf(inner, sizeof inner, "%02x", (h >> 16) & 255);
        int fd = openat(tmp, name, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (write(fd, buf, bytes) != (ssize_t)bytes) { perror("write"); return 1; }
        fsync(fd); close(fd);
        int o = mkdir_synced(v1, outer), in = mkdir_synced(o, inner);
        char final[64]; snprintf(final, sizeof final, "%08x.jpg", h);
        if (renameat(tmp, name, in, final) != 0) { perror("rename"); return 1; }
        fsync(in); close(in); close(o);
    }
    return 0;
}
