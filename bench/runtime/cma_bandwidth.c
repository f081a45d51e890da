/* cma_bandwidth.c: copy rate of memcpy, rep movsb and process_vm_readv (CMA) for 16 MiB, from a child
 * reading its parent (the cpu-shm single-copy path). gcc -O2 bench/runtime/cma_bandwidth.c -o /tmp/cma && /tmp/cma */
#define _GNU_SOURCE
#include <sys/uio.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static void movsb(void*d,const void*s,size_t n){asm volatile("rep movsb":"+D"(d),"+S"(s),"+c"(n)::"memory");}
int main(){ size_t M=16<<20; char*src=aligned_alloc(4096,M); memset(src,1,M); pid_t pp=getpid();
 if(fork()==0){ char*dst=aligned_alloc(4096,M); memset(dst,0,M);
  for(int rep=0;rep<3;rep++){
  double t=now(); memcpy(dst,src,M); double a=now()-t;
  t=now(); movsb(dst,src,M); double b=now()-t;
  t=now(); struct iovec l={dst,M},r={src,M}; process_vm_readv(pp,&l,1,&r,1,0); double c=now()-t;
  printf("copy GB/s: memcpy %.2f movsb %.2f cma %.2f\n",M/a/1e9,M/b/1e9,M/c/1e9);}
  return 0;}
 wait(0); return 0;}
