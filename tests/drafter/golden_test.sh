#!/usr/bin/env bash
# golden_test.sh CORDON FIXTURES_BIN PREPARE_DIR GOLDEN_DIR NAME
#
# Traces fixture NAME with the real `cordon trace`, drafts the trace, and
# byte-compares the fragment with GOLDEN_DIR/NAME.sbx. Everything runs under
# a fresh /tmp/cordon-golden-XXXXXX (always the same length, so even the
# 4095-byte path of weird_names is the same), which the comparison writes as
# @ROOT@; loopback ports and the abstract socket's pid are normalised too,
# and the IPv6 loopback line is dropped (connect_loopback skips IPv6 where
# the host has none; the unit tests cover it).
# The fragment must parse and two drafts of one trace must be identical.
# CORDON_UPDATE_GOLDEN=1 rewrites the golden file instead of comparing.
set -euo pipefail
# Absolute paths: the trace runs in a directory of its own.
cordon=$(realpath "$1") bin=$(realpath "$2") prepare=$(realpath "$3") golden_dir=$(realpath "$4") name=$5

root=$(mktemp -d /tmp/cordon-golden-XXXXXX)
trap 'rm -rf "$root"' EXIT
mkdir "$root/cwd" "$root/bin" "$root/home" "$root/config"
cp "$bin/$name" "$root/bin/$name"
"$prepare" "$root/$name"

# Hermetic layers: no user policy, no workspace policy, a home of its own.
export HOME=$root/home XDG_CONFIG_HOME=$root/config XDG_STATE_HOME=$root/state
cd "$root/cwd"
"$cordon" trace -o "$root/trace.db" -- "$root/bin/$name" "$root/$name" >/dev/null 2>"$root/trace.err" || {
  status=$?
  # fork_tree and friends report their children's status; only cordon's own
  # failures (125) and a missing sandbox end the test.
  if [[ $status -eq 125 ]]; then cat "$root/trace.err" >&2; exit 1; fi
}
"$cordon" draft "$root/trace.db" >"$root/draft.sbx"
"$cordon" draft "$root/trace.db" >"$root/draft2.sbx"
cmp "$root/draft.sbx" "$root/draft2.sbx" || { echo "two drafts of one trace differ" >&2; exit 1; }
"$cordon" diff "$root/draft.sbx" "$root/draft.sbx" >/dev/null || { echo "the draft does not parse" >&2; exit 1; }

sed -e "s|$root|@ROOT@|g" \
    -e 's|127\.0\.0\.1:[0-9]*|127.0.0.1:@PORT@|g' \
    -e '/^#   \[::1\]:[0-9]* /d' \
    -e 's|cordon-fixture-[0-9]*|cordon-fixture-@PID@|g' \
    "$root/draft.sbx" >"$root/normalised.sbx"

golden=$golden_dir/$name.sbx
if [[ ${CORDON_UPDATE_GOLDEN:-} == 1 ]]; then
  cp "$root/normalised.sbx" "$golden"
  echo "updated $golden"
  exit 0
fi
if ! diff -u "$golden" "$root/normalised.sbx"; then
  echo "draft of $name differs from $golden (CORDON_UPDATE_GOLDEN=1 rewrites it)" >&2
  exit 1
fi
