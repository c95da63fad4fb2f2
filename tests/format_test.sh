#!/usr/bin/env bash
# Fails when a C or C++ source differs from what .clang-format makes of it.
set -euo pipefail
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$src"
mapfile -t files < <(find cli drafter enforcer fixtures schema tests tracer util bench \
  -name '*.cc' -o -name '*.h' -o -name '*.c' 2>/dev/null | sort)
clang-format --dry-run -Werror "${files[@]}"
echo "format: ${#files[@]} files ok"
