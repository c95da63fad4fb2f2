# Sourced by the bench scripts: median wall time of `runs` runs of a command.
# Needs `runs` set by the caller.

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
