#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test three ways:
#   1. the normal build, as the invoking user (root in CI);
#   2. an ASan+UBSan build of the same tests;
#   3. the normal build again as an unprivileged user, in a copy of the tree
#      that user owns: that is how people run cordon, and root hides bugs
#      (root keeps capabilities inside bwrap).
# Run as root or with sudo on Debian 12. .ci/run calls exactly this script.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
"$src/scripts/deps.sh"

run_ctest() {  # run_ctest BUILD_DIR LABEL
  echo "== ctest: $2" >&2
  (cd "$1" && ctest --output-on-failure -j1 --timeout 600)
}

"$src/scripts/build.sh" "$src/build"
run_ctest "$src/build" "normal build, as $(id -un)"

"$src/scripts/build.sh" "$src/build-asan" -DCORDON_SANITIZE=ON
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_ctest "$src/build-asan" "ASan+UBSan build, as $(id -un)"

if [[ $(id -u) -eq 0 ]]; then
  user=cordon-test
  id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
  copy=$(mktemp -d /tmp/cordon-unprivileged.XXXXXX)
  (cd "$src" && tar --exclude='./build*' --exclude='./.git' -cf - .) | tar -xf - -C "$copy"
  chown -R "$user:" "$copy"
  chmod 755 "$copy"
  runuser -u "$user" -- env -i HOME="/home/$user" PATH=/usr/local/bin:/usr/bin:/bin \
    bash -c "cd '$copy' && scripts/build.sh '$copy/build' && cd build && \
             echo '== ctest: normal build, as $user' >&2 && ctest --output-on-failure -j1 --timeout 600"
  rm -rf "$copy"
else
  echo "== skipped the unprivileged pass: already running unprivileged as $(id -un)" >&2
fi
