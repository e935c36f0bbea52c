// The exact peak of a measuring child's resident memory, read by its parent.
//
// Why: Linux keeps a process's RSS in per-CPU counters (since 6.2) and
// records the peak (VmHWM) from their approximate sum, whenever memory is
// about to be released; each CPU may hold up to 31 pages per counter that
// the sum does not see yet. So VmHWM reads up to about 124 KiB per CPU and
// counter below the real peak, by an amount that depends on which CPUs the
// process's threads ran on (measured in a single-threaded C loop that maps,
// touches and unmaps 3,001 KiB: VmHWM growth 155, 283 or 355 KiB above it
// from run to run; read here, 355 every time). /proc/PID/status's VmRSS is
// the exact sum.
//
// How: the child installs a seccomp filter that hands every call that can
// lower its RSS (munmap, mremap, madvise, mmap with MAP_FIXED) to its parent
// (SECCOMP_RET_USER_NOTIF) before it runs; the parent reads the child's exact
// VmRSS, keeps the highest, and lets the call proceed. The one other way down,
// glibc lowering the heap's break after a free, is turned off for the span
// (M_TRIM_THRESHOLD at its maximum; the probe trims before the span), so brk,
// which glibc calls page by page with a zero top pad (200-350 times in a
// seeds image's decode), is let through unseen: it can only grow the heap.
// Measured on three seeds images, no trimming moved naive, renderer and
// thumbnail peaks by at most 16 KiB. Between two watched calls RSS can only
// grow, so the highest value seen before each release and at the span's end
// is the exact peak. Two marker calls (madvise
// with WARM_PEAK_WATCH_ADVICE) start and end a span; the parent answers them
// itself with the exact RSS at the start, and the peak at the end.
#include "CWarmVips.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <limits.h>
#include <malloc.h>

/// madvise advice no kernel defines ('warm'): marks a span's start (address 1) or end (address 2).
#define WARM_PEAK_WATCH_ADVICE 0x7761726d

static int watch_channel = -1;
static int watch_installed = 0;

void warm_peak_watch_set_channel(int fd) {
    watch_channel = fd;
    watch_installed = 0;
}

static int install_filter(void) {
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_munmap, 4, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_madvise, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mremap, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 2, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
        // mmap: only MAP_FIXED replaces (and so releases) pages already mapped.
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[3])),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MAP_FIXED, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = { .len = sizeof filter / sizeof filter[0], .filter = filter };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    // Every thread of the process, also ones some library may have started already.
    long listener = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
                            SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_TSYNC_ESRCH,
                            &program);
    return (int)listener;
}

static int send_fd(int channel, int fd) {
    char byte = 'w';
    struct iovec io = { .iov_base = &byte, .iov_len = 1 };
    union { char buffer[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = control.buffer,
                              .msg_controllen = sizeof control.buffer };
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &fd, sizeof(int));
    return sendmsg(channel, &message, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

static int receive_fd(int channel) {
    char byte;
    struct iovec io = { .iov_base = &byte, .iov_len = 1 };
    union { char buffer[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } control;
    struct msghdr message = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = control.buffer,
                              .msg_controllen = sizeof control.buffer };
    ssize_t got = recvmsg(channel, &message, MSG_CMSG_CLOEXEC);
    if (got <= 0) return got == 0 ? -2 : -1;
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    if (header == NULL || header->cmsg_type != SCM_RIGHTS) return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(header), sizeof(int));
    return fd;
}

long warm_peak_watch_start(void) {
    if (watch_channel < 0) return -1;
    if (!watch_installed) {
        int listener = install_filter();
        if (listener < 0) return -1;
        int sent = send_fd(watch_channel, listener);
        close(listener);
        if (sent != 0) return -1;
        watch_installed = 1;
        // The break now only grows (see above): brk needs no watching.
        mallopt(M_TRIM_THRESHOLD, INT_MAX);
    }
    return syscall(__NR_madvise, (void *)1, 0, WARM_PEAK_WATCH_ADVICE);
}

long warm_peak_watch_end(void) {
    if (!watch_installed) return -1;
    return syscall(__NR_madvise, (void *)2, 0, WARM_PEAK_WATCH_ADVICE);
}

/// VmRSS in KiB from an open /proc/PID/status (re-read from its start), -1 when unreadable.
static long resident_kib(int status) {
    char text[4096];
    ssize_t length = pread(status, text, sizeof text - 1, 0);
    if (length <= 0) return -1;
    text[length] = 0;
    const char *line = strstr(text, "\nVmRSS:");
    return line ? strtol(line + 7, NULL, 10) : -1;
}

static int is_releasing_advice(unsigned long advice) {
    switch (advice) {
    case MADV_DONTNEED: case MADV_FREE: case MADV_REMOVE: case MADV_PAGEOUT: return 1;
    default: return 0;
    }
}

/// Answers one notification; counts it in `counts` (releases read, other calls).
static void answer(int listener, int status, struct seccomp_notif *request, struct seccomp_notif_resp *response,
                   long *peak, long counts[2]) {
    const struct seccomp_data *call = &request->data;
    memset(response, 0, sizeof *response);
    response->id = request->id;
    int marker = call->nr == __NR_madvise && call->args[2] == WARM_PEAK_WATCH_ADVICE;
    int read_now;
    if (marker) {
        read_now = 1;
    } else if (call->nr == __NR_madvise) {
        read_now = is_releasing_advice(call->args[2]);
    } else {
        read_now = 1;
    }
    long now = read_now ? resident_kib(status) : -1;
    counts[read_now ? 0 : 1]++;
    if (now > *peak) *peak = now;
    if (marker) {
        if (call->args[0] == 1) *peak = now;
        response->val = call->args[0] == 1 ? now : *peak;
        response->error = now < 0 ? -EIO : 0;
        if (now < 0) response->val = 0;
    } else {
        response->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    }
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, response) != 0 && errno != ENOENT) {
        // The child died meanwhile (ENOENT), or the answer was refused: nothing to do either way.
    }
}

long warm_peak_watch_serve(int channel, int pid, int reply, unsigned char *buffer, size_t capacity, long *released) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    int status = open(path, O_RDONLY | O_CLOEXEC);
    struct seccomp_notif_sizes sizes;
    if (syscall(__NR_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) {
        sizes.seccomp_notif = sizeof(struct seccomp_notif);
        sizes.seccomp_notif_resp = sizeof(struct seccomp_notif_resp);
    }
    struct seccomp_notif *request = calloc(1, sizes.seccomp_notif > sizeof *request ? sizes.seccomp_notif : sizeof *request);
    struct seccomp_notif_resp *response = calloc(1, sizes.seccomp_notif_resp > sizeof *response ? sizes.seccomp_notif_resp : sizeof *response);
    int listener = -1, channel_open = channel >= 0, reply_open = 1, overflow = 0;
    size_t length = 0;
    long peak = -1, counts[2] = {0, 0};
    // The reply pipe reaches its end only once every thread of the child has
    // left its address space (exit_mm comes before exit_files): no release is
    // pending then, so serving stops there.
    while (reply_open) {
        struct pollfd fds[3];
        int n = 0, channel_at = -1, listener_at = -1, reply_at = -1;
        if (channel_open) { channel_at = n; fds[n++] = (struct pollfd){ .fd = channel, .events = POLLIN }; }
        if (listener >= 0) { listener_at = n; fds[n++] = (struct pollfd){ .fd = listener, .events = POLLIN }; }
        if (reply_open) { reply_at = n; fds[n++] = (struct pollfd){ .fd = reply, .events = POLLIN }; }
        if (poll(fds, n, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (channel_at >= 0 && fds[channel_at].revents) {
            int fd = receive_fd(channel);
            if (fd >= 0 && listener < 0) listener = fd;
            else if (fd >= 0) close(fd);
            else channel_open = 0;  // the child closed its end (exited), or the channel broke
        }
        if (listener_at >= 0 && fds[listener_at].revents) {
            if (fds[listener_at].revents & POLLIN) {
                memset(request, 0, sizes.seccomp_notif);
                if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, request) == 0) {
                    answer(listener, status, request, response, &peak, counts);
                } else if (errno != EINTR && errno != ENOENT) {
                    close(listener);
                    listener = -1;
                }
            } else {
                close(listener);  // every thread of the child has gone
                listener = -1;
            }
        }
        if (reply_at >= 0 && fds[reply_at].revents) {
            unsigned char chunk[4096];
            ssize_t got = read(reply, chunk, sizeof chunk);
            if (got > 0) {
                size_t room = length < capacity ? capacity - length : 0;
                size_t kept = (size_t)got < room ? (size_t)got : room;
                memcpy(buffer + length, chunk, kept);
                length += kept;
                if (kept < (size_t)got) overflow = 1;
            } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
                reply_open = 0;
            }
        }
    }
    if (listener >= 0) close(listener);
    if (status >= 0) close(status);
    free(request);
    free(response);
    if (released) *released = counts[0];
    return overflow ? -1 : (long)length;
}

#include <sys/personality.h>

int warm_exec_self_without_aslr(char *const argv[]) {
    int current = personality(0xffffffff);
    if (current < 0) return -1;
    if (current & ADDR_NO_RANDOMIZE) return 0;
    if (personality((unsigned long)current | ADDR_NO_RANDOMIZE) < 0) return -1;
    execv("/proc/self/exe", argv);
    personality((unsigned long)current);  // the exec failed: put the setting back
    return -1;
}
