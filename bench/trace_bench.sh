#!/usr/bin/env bash
# Learn-mode overhead, side by side: native vs `cordon trace` vs
# `strace -f --seccomp-bpf` watching the same system calls.
#
#   bench/trace_bench.sh [BUILD_DIR] [RUNS]
#
# Workloads: (a) find /usr/share -type f, a storm of directory opens and
# listings; (b) a loop of `gcc -O2 -c` on a small file, a typical build step.
# Prints the median wall time of RUNS runs and the ratio to native.
set -euo pipefail
bench=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
runs=${2:-5}
cordon=$(realpath "$build/cordon")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The learn-mode watch list (tracer/syscall_table.cc), for strace.
syscalls=open,openat,openat2,creat,execve,execveat,connect,getdents64,getdents,mkdir,mkdirat,mknod,mknodat,symlink,symlinkat,link,linkat,unlink,unlinkat,rmdir,rename,renameat,renameat2,truncate,chmod,fchmodat,chown,lchown,fchownat,utimensat,futimesat,setxattr,lsetxattr,removexattr,lremovexattr,stat,lstat,newfstatat,statx,access,faccessat,faccessat2,readlink,readlinkat,getxattr,lgetxattr,listxattr,llistxattr,chdir,fchdir,io_uring_setup,exit_group

cat > "$scratch/small.c" <<'C'
#include <stdio.h>
#include <string.h>
static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(int argc, char **argv) { printf("%d %zu\n", fib(argc + 20), strlen(argv[0])); return 0; }
C
cat > "$scratch/gcc_loop.sh" <<SH
for i in 1 2 3 4 5 6 7 8 9 10; do gcc -O2 -c "$scratch/small.c" -o "$scratch/small.o"; done
SH

# shellcheck source=bench/measure.sh
source "$bench/measure.sh"

workload() {
  local name=$1
  shift
  local native cordon_us strace_us
  native=$(measure "$@")
  cordon_us=$(measure "$cordon" trace -o "$scratch/t.db" -- "$@")
  rm -f "$scratch"/t.db*
  strace_us=$(measure strace -f -qq --seccomp-bpf -o /dev/null -e trace=$syscalls "$@")
  awk -v n="$name" -v a="$native" -v c="$cordon_us" -v s="$strace_us" 'BEGIN {
    printf "%-26s native %7.0f ms | cordon %7.0f ms %5.2fx | strace %7.0f ms %5.2fx\n",
      n, a / 1000, c / 1000, c / a, s / 1000, s / a }'
}

"$cordon" trace -o "$scratch/count.db" -- find /usr/share -type f >/dev/null 2>&1
events=$("$cordon" show --json "$scratch/count.db" | sed -n 's/.*"events":\([0-9]*\),.*/\1/p')
rm -f "$scratch"/count.db*
echo "median of $runs runs; (a) records $events events per run"
workload "(a) find /usr/share -type f" find /usr/share -type f
workload "(b) 10x gcc -O2 -c" sh "$scratch/gcc_loop.sh"
