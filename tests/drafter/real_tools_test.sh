#!/usr/bin/env bash
# real_tools_test.sh CORDON
#
# Traces real tools (sh, cp -r, tar, sed -i, git init + commit, make, and a
# few commands that reach into $HOME) with the real `cordon trace`, drafts
# each trace, and checks every draft:
#   - it parses (cordon diff of it against itself);
#   - no grant on /, on $HOME or on a credential store comes without a
#     REVIEW flag, and those on / or $HOME are left disabled;
#   - what each tool needs outside the working directory is granted.
set -euo pipefail
cordon=$1
root=$(mktemp -d /tmp/cordon-tools-XXXXXX)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/cwd" "$root/home/.ssh" "$root/config" "$root/work/src/sub"
printf 'alpha\n' >"$root/work/src/a.txt"
printf 'beta\n' >"$root/work/src/sub/b.txt"
printf 'key\n' >"$root/home/.ssh/id_test"
printf 'all: out.txt\nout.txt: in.txt\n\tcp in.txt out.txt.tmp && mv out.txt.tmp out.txt\n' >"$root/work/Makefile"
printf 'in\n' >"$root/work/in.txt"
export HOME=$root/home XDG_CONFIG_HOME=$root/config XDG_STATE_HOME=$root/state
cd "$root/cwd"
w=$root/work
failures=0

check() {  # check NAME EXPECTED_GRANT... -- CMD...
  local name=$1
  shift
  local expected=()
  while [[ $1 != -- ]]; do expected+=("$1"); shift; done
  shift
  "$cordon" trace -o "$root/$name.db" -- "$@" >/dev/null 2>"$root/$name.err" || true
  "$cordon" draft "$root/$name.db" >"$root/$name.sbx"
  "$cordon" draft --json "$root/$name.db" >"$root/$name.json"
  echo "=== $name: $*"
  sed -n '/^fs {/,$p' "$root/$name.sbx"
  if ! "$cordon" diff "$root/$name.sbx" "$root/$name.sbx" >/dev/null; then
    echo "FAIL $name: the draft does not parse" >&2
    failures=$((failures + 1))
  fi
  if ! python3 - "$root/$name.json" "$HOME" "${expected[@]}" <<'PY'
import json, sys
draft = json.load(open(sys.argv[1]))
home, expected = sys.argv[2], sys.argv[3:]
creds = [home + "/" + c for c in (".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".kube", ".docker")]
def within(p, d):
    return p == d or d == "/" or p.startswith(d + "/")
bad = []
for g in draft["grants"]:
    p = g["path"]
    broad = p in ("/", home) or any(within(p, c) or within(c, p) for c in creds)
    if broad and not g["review"]:
        bad.append(f"{g['kind']} {p} has no REVIEW flag")
    if p in ("/", home) and g["enabled"]:
        bad.append(f"{g['kind']} {p} is not left disabled")
for want in expected:
    kind, path = want.split("=", 1)
    if not any(g["kind"] == kind and g["path"] == path for g in draft["grants"]):
        bad.append(f"expected {kind} {path}")
for b in bad:
    print("FAIL " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
  then
    echo "FAIL $name (fragment above)" >&2
    failures=$((failures + 1))
  fi
}

check sh allow_write="$w" -- sh -c "cat $w/src/a.txt > $w/copy.txt; ls $w/src >/dev/null"
check cp allow_write="$w" -- cp -r "$w/src" "$w/copied"
check tar allow_write="$w" -- sh -c "tar -cf $w/src.tar -C $w src && mkdir -p $w/untar && tar -xf $w/src.tar -C $w/untar"
check sed allow_write="$w/src" -- sed -i s/alpha/gamma/ "$w/src/a.txt"
check git allow_write="$w" -- sh -c "git init -q $w/repo && cd $w/repo && echo hi > f && git add f &&
  git -c user.name=t -c user.email=t@example.invalid commit -qm init"
if command -v make >/dev/null; then
  check make allow_write="$w" -- make -s -C "$w"
fi
check home_write allow_write="$HOME" -- sh -c 'echo x > "$HOME/new-file"'
check home_list allow_read="$HOME" -- ls -a "$HOME"
check ssh_key -- cat "$HOME/.ssh/id_test"
if ! grep -q 'CONFLICTS WITH THE CURRENT POLICY' "$root/ssh_key.sbx"; then
  echo "FAIL ssh_key: reading a denied key is not listed as a conflict" >&2
  failures=$((failures + 1))
fi
echo "real tools: $failures failure(s)"
exit $((failures > 0))
