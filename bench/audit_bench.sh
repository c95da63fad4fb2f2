#!/usr/bin/env bash
# Audit overhead, side by side: `cordon run --audit` vs plain `cordon run` vs
# native, on `true` and the compile loop (issue #6: audited ≤ 1.2× plain).
#
#   bench/audit_bench.sh [BUILD_DIR] [RUNS]
set -euo pipefail
bench=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
runs=${2:-15}
cordon=$(realpath "$build/cordon")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"

# shellcheck source=bench/measure.sh
source "$bench/measure.sh"
compile_loop 10

# A fresh trace per run, as a user would have: appending to one trace would
# measure a growing file.
audited() {
  rm -f "$scratch"/audit.db*
  "$cordon" run --audit "$scratch/audit.db" -- "$@"
}

workload() {
  local name=$1
  shift
  local native plain audit
  native=$(measure "$@")
  plain=$(measure "$cordon" run -- "$@")
  audit=$(measure audited "$@")
  awk -v n="$name" -v a="$native" -v p="$plain" -v c="$audit" 'BEGIN {
    printf "%-16s native %8.1f ms | cordon run %8.1f ms | run --audit %8.1f ms  %5.2fx plain run, %5.2fx native\n",
      n, a / 1000, p / 1000, c / 1000, c / p, c / a }'
}

echo "median of $runs runs"
workload "true" true
workload "10x gcc -O2 -c" sh gcc_loop.sh
