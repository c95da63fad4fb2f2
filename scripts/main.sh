#!/usr/bin/env bash
# The main job: install what is missing, build, then learn what a fixture
# program needs. Run as root or with sudo on Debian 12.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
"$src/scripts/deps.sh"
"$src/scripts/build.sh" "$src/build"

work=$(mktemp -d /tmp/cordon-demo.XXXXXX)
"$src/fixtures/prepare_dir.sh" "$work"
cd "$work"
echo "== cordon trace -- create_write_rename $work" >&2
"$src/build/cordon" trace -o "$work/trace.db" -- "$src/build/fixtures/create_write_rename" "$work"
"$src/build/cordon" show "$work/trace.db"
"$src/build/cordon" show --events --path "$work" "$work/trace.db"
