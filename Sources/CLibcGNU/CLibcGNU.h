// Three glibc calls that <unistd.h> and <spawn.h> declare only under _GNU_SOURCE, which Swift's Glibc module
// does not define; declared here so that WarmSupport's ChildProcess reaches them without a C target (and
// without linking libvips through CWarmVips). All three are in glibc 2.34 and later (Debian 12 has 2.36).
#include <spawn.h>

int pipe2(int fds[2], int flags);
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);
