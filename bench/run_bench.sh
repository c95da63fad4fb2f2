#!/usr/bin/env bash
# Enforcement overhead, side by side: `cordon run` vs raw bwrap with the same
# mounts vs native, on `true` (pure start-up cost) and a compile loop.
#
#   bench/run_bench.sh [BUILD_DIR] [RUNS]
set -euo pipefail
bench=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
runs=${2:-20}
cordon=$(realpath "$build/cordon")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"

# The same bwrap command line cordon would run, with each descriptor-bound
# mount turned into its path form so a plain shell can replay it (the
# seccomp filter and empty-file data are cordon's own and are left out).
raw_bwrap() {
  "$cordon" run --dry-run -- "$@" | python3 -c '
import shlex, sys
lines = sys.stdin.read().split("\n\n")[0].splitlines()
args = [shlex.split(l)[0] for l in lines]
out, i = [], 0
while i < len(args):
    a = args[i]
    if a in ("--bind-fd", "--ro-bind-fd"):
        out += [a[:-3], args[i + 2], args[i + 2]]; i += 3
    elif a == "--ro-bind-data":
        out += ["--ro-bind", "/dev/null", args[i + 2]]; i += 3
    elif a == "--seccomp":
        i += 2
    elif a == "--perms":
        i += 2
    else:
        out.append(a); i += 1
print("\0".join(out), end="")' > "$scratch/raw.args"
}

# shellcheck source=bench/measure.sh
source "$bench/measure.sh"
compile_loop 5

workload() {
  local name=$1
  shift
  raw_bwrap "$@"
  local native raw cordon_us raw_argv
  mapfile -d '' -t raw_argv < "$scratch/raw.args"
  native=$(measure "$@")
  raw=$(measure "${raw_argv[@]}")
  cordon_us=$(measure "$cordon" run -- "$@")
  awk -v n="$name" -v a="$native" -v r="$raw" -v c="$cordon_us" 'BEGIN {
    printf "%-16s native %8.1f ms | raw bwrap %8.1f ms | cordon run %8.1f ms  %5.2fx raw bwrap, %6.2fx native\n",
      n, a / 1000, r / 1000, c / 1000, c / r, c / a }'
}

echo "median of $runs runs"
workload "true" true
workload "5x gcc -O2 -c" sh gcc_loop.sh
