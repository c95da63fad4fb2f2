#!/usr/bin/env bash
# The main job: install what is missing, build, then learn what a fixture
# program needs, print the drafted policy, and run the program again under
# it. Run as root or with sudo on Debian 12.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
"$src/scripts/deps.sh"
"$src/scripts/build.sh" "$src/build"

work=$(mktemp -d /tmp/cordon-demo.XXXXXX)
"$src/fixtures/prepare_dir.sh" "$work"
cd "$src"
echo "== cordon learn -- create_write_rename $work" >&2
"$src/build/cordon" learn --trace "$work/trace.db" --output "$work/draft.sbx" -- \
  build/fixtures/create_write_rename "$work"
cat "$work/draft.sbx"
rm -f "$work/out.txt"
echo "== cordon run --policy draft.sbx -- create_write_rename $work" >&2
"$src/build/cordon" run --policy "$work/draft.sbx" -- build/fixtures/create_write_rename "$work"
echo "== the drafted policy worked: $(cat "$work/out.txt")" >&2
