#!/usr/bin/env bash
# scripts/build.sh BUILD_DIR [CMAKE_ARGS...]: configure and build.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$1
shift
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
