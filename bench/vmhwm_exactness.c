/* Is the kernel's VmHWM exact? A child maps SIZE KiB, touches every page and unmaps it (on THREADS threads,
 * 0: the main thread), eight times; it reads its growth in VmHWM (reset through /proc/self/clear_refs), while
 * its parent reads the child's exact VmRSS before every munmap/madvise/mremap/brk the child makes (seccomp user
 * notification, as Sources/CWarmVips/WarmPeakWatch.c does). Prints both growths minus the mapped size.
 *
 *   gcc -O2 -pthread bench/vmhwm_exactness.c -o /tmp/vmhwm_exactness && /tmp/vmhwm_exactness 3001 0
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/seccomp.h>
#include <linux/filter.h>
#include <linux/audit.h>
#include <stddef.h>
#include <fcntl.h>
#include <unistd.h>
#include <pthread.h>
#include <poll.h>
static long field(int fd,const char *name){char buf[8192];int n=pread(fd,buf,sizeof buf-1,0);buf[n]=0;char*p=strstr(buf,name);return p?atol(p+strlen(name)):-1;}
static long selff(const char*name){int fd=open("/proc/self/status",O_RDONLY);long v=field(fd,name);close(fd);return v;}
static void reset(){int fd=open("/proc/self/clear_refs",O_WRONLY);write(fd,"5",1);close(fd);}
static size_t SZ;
static void *work(void*a){ char*p=mmap(0,SZ,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); for(size_t i=0;i<SZ;i+=4096)p[i]=1; munmap(p,SZ); return 0;}
static int install(void){
  struct sock_filter f[]={
    BPF_STMT(BPF_LD|BPF_W|BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP|BPF_JEQ|BPF_K, __NR_munmap, 0,1), BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_USER_NOTIF),
    BPF_JUMP(BPF_JMP|BPF_JEQ|BPF_K, __NR_madvise, 0,1), BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_USER_NOTIF),
    BPF_JUMP(BPF_JMP|BPF_JEQ|BPF_K, __NR_mremap, 0,1), BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_USER_NOTIF),
    BPF_JUMP(BPF_JMP|BPF_JEQ|BPF_K, __NR_brk, 0,1), BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_USER_NOTIF),
    BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_ALLOW)};
  struct sock_fprog prog={sizeof f/sizeof f[0], f};
  if(prctl(PR_SET_NO_NEW_PRIVS,1,0,0,0)) return -1;
  return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}
int main(int argc,char**argv){
  SZ=(size_t)atol(argv[1])*1024; int threads=atoi(argv[2]);
  for(int r=0;r<8;r++){
    int sv[2]; socketpair(AF_UNIX,SOCK_STREAM,0,sv);
    pid_t pid=fork();
    if(pid==0){
      close(sv[0]);
      reset(); long before=selff("VmRSS:");
      int lfd=install(); if(lfd<0){perror("seccomp");_exit(1);}
      char c=0; struct iovec io={&c,1}; char cbuf[CMSG_SPACE(sizeof(int))]; struct msghdr m={0}; m.msg_iov=&io;m.msg_iovlen=1;m.msg_control=cbuf;m.msg_controllen=sizeof cbuf;
      struct cmsghdr*cm=CMSG_FIRSTHDR(&m);cm->cmsg_level=SOL_SOCKET;cm->cmsg_type=SCM_RIGHTS;cm->cmsg_len=CMSG_LEN(sizeof(int));memcpy(CMSG_DATA(cm),&lfd,sizeof(int));
      sendmsg(sv[1],&m,0); close(lfd);
      if(threads==0) work(0); else { pthread_t t[8]; for(int i=0;i<threads;i++)pthread_create(&t[i],0,work,0); for(int i=0;i<threads;i++)pthread_join(t[i],0);} 
      long hwm=selff("VmHWM:"), now=selff("VmRSS:");
      long msg[3]={before,hwm,now}; write(sv[1],msg,sizeof msg); _exit(0);
    }
    close(sv[1]);
    char c; struct iovec io={&c,1}; char cbuf[CMSG_SPACE(sizeof(int))]; struct msghdr m={0}; m.msg_iov=&io;m.msg_iovlen=1;m.msg_control=cbuf;m.msg_controllen=sizeof cbuf;
    recvmsg(sv[0],&m,0); int lfd; memcpy(&lfd,CMSG_DATA(CMSG_FIRSTHDR(&m)),sizeof(int));
    char path[64]; sprintf(path,"/proc/%d/status",pid); int sfd=open(path,O_RDONLY);
    long maxrss=0; int notes=0;
    struct seccomp_notif_sizes sizes; syscall(__NR_seccomp,SECCOMP_GET_NOTIF_SIZES,0,&sizes);
    struct seccomp_notif *req=calloc(1,sizes.seccomp_notif); struct seccomp_notif_resp *resp=calloc(1,sizes.seccomp_notif_resp);
    for(;;){
      struct pollfd p={lfd,POLLIN,0}; if(poll(&p,1,-1)<0) break; if(p.revents&(POLLHUP|POLLERR)) break;
      memset(req,0,sizes.seccomp_notif);
      if(ioctl(lfd,SECCOMP_IOCTL_NOTIF_RECV,req)<0){ if(errno==EINTR) continue; break;}
      long rss=field(sfd,"VmRSS:"); if(rss>maxrss)maxrss=rss; notes++;
      memset(resp,0,sizes.seccomp_notif_resp); resp->id=req->id; resp->flags=SECCOMP_USER_NOTIF_FLAG_CONTINUE;
      ioctl(lfd,SECCOMP_IOCTL_NOTIF_SEND,resp);
    }
    long msg[3]; read(sv[0],msg,sizeof msg); waitpid(pid,0,0);
    long expect=(threads?threads:1)*SZ/1024;
    printf("hwm-before-expect %ld  exactmax-before-expect %ld  notes %d\n", msg[1]-msg[0]-expect, maxrss-msg[0]-expect, notes);
    close(lfd); close(sfd); close(sv[0]);
  }
}
