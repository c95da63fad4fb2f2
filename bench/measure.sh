# Sourced by the bench scripts: median wall time of `runs` runs of a command
# (needs `runs` set by the caller), and the compile-loop workload.

# time_us CMD...: wall time of one run in microseconds.
time_us() {
  local t0 t1
  t0=$(date +%s%N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000))
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# measure CMD...: one warm-up run (page cache), then the median in microseconds.
measure() {
  local i
  "$@" >/dev/null 2>&1 || true
  for ((i = 0; i < runs; i++)); do time_us "$@"; done | median
}

# compile_loop N: writes small.c and gcc_loop.sh (N runs of `gcc -O2 -c
# small.c`) into the current directory, the build-step workload of the run
# and audit benchmarks.
compile_loop() {
  cat > small.c <<'C'
#include <stdio.h>
static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(int argc, char **argv) { (void)argv; printf("%d\n", fib(argc + 20)); return 0; }
C
  printf 'for i in $(seq %d); do gcc -O2 -c small.c -o small.o; done\n' "$1" > gcc_loop.sh
}
