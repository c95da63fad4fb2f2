#!/usr/bin/env bash
# cli_test.sh CORDON — the drafter's subcommands end to end: exit codes,
# error lines, and the shape of their output (policy base/show, why, diff,
# draft, learn).
set -euo pipefail
cordon=$1
root=$(mktemp -d /tmp/cordon-cli-XXXXXX)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/ws" "$root/home" "$root/config/cordon" "$root/out"
export HOME=$root/home XDG_CONFIG_HOME=$root/config XDG_STATE_HOME=$root/state
cd "$root/ws"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
expect_status() {  # expect_status CODE CMD...
  local want=$1 got=0
  shift
  "$@" >"$root/stdout" 2>"$root/stderr" || got=$?
  [[ $got -eq $want ]] || fail "$* exited $got, expected $want: $(cat "$root/stderr")"
}

# policy base / show
expect_status 0 "$cordon" policy base
grep -q '^  allow_write "."$' "$root/stdout" || fail "policy base does not print the base text"
printf 'fs {\n  allow_read "/srv/user"\n}\n' >"$root/config/cordon/policy.sbx"
printf 'fs { allow_write "build" }\n' >.cordon.sbx
printf 'fs { deny "/srv/user/secret" }\n' >"$root/extra.sbx"
expect_status 0 "$cordon" policy show --policy "$root/extra.sbx"
grep -q "allow_read \"/srv/user\"  # $root/config/cordon/policy.sbx:2" "$root/stdout" || fail "policy show: no user layer origin"
grep -q "allow_write \"$root/ws/build\"  # $root/ws/.cordon.sbx:1" "$root/stdout" || fail "policy show: no workspace layer"
grep -q "^# layer --policy $root/extra.sbx" "$root/stdout" || fail "policy show: no --policy layer"
cp "$root/stdout" "$root/shown.sbx"
expect_status 0 "$cordon" diff "$root/shown.sbx" "$root/shown.sbx"  # the text parses
expect_status 0 "$cordon" policy show --json
grep -q '"name": "workspace"' "$root/stdout" || fail "policy show --json: no workspace layer"
expect_status 2 "$cordon" policy
expect_status 2 "$cordon" policy frobnicate
expect_status 125 "$cordon" policy show --policy "$root/missing.sbx"
grep -q "^cordon: $root/missing.sbx: cannot read: No such file or directory$" "$root/stderr" || fail "missing --policy message"
printf 'fs {\n  allow_exec "/x"\n}\n' >"$root/bad.sbx"
expect_status 125 "$cordon" policy show --policy "$root/bad.sbx"
grep -q "$root/bad.sbx:2:3: unknown rule" "$root/stderr" || fail "syntax error is not FILE:LINE:COLUMN"

# why
expect_status 0 "$cordon" why --policy "$root/extra.sbx" /usr/bin/env build/x /srv/user/secret/k /var/log "$HOME/.ssh/id"
grep -q '^/usr/bin/env: readable, decided by allow_read "/usr" at <base>:' "$root/stdout" || fail "why: /usr"
grep -q "^$root/ws/build/x: writable, decided by allow_write \"$root/ws/build\" (written \"build\") at $root/ws/.cordon.sbx:1 (layer workspace)" "$root/stdout" || fail "why: workspace"
grep -q "^/srv/user/secret/k: denied, decided by deny \"/srv/user/secret\" at $root/extra.sbx:1" "$root/stdout" || fail "why: deny"
grep -q '^/var/log: absent (no rule grants it)$' "$root/stdout" || fail "why: absent"
grep -q "^$HOME/.ssh/id: denied" "$root/stdout" || fail "why: ssh"
expect_status 2 "$cordon" why

# diff
printf 'fs { allow_read "/a/f" }\n' >"$root/old.sbx"
printf 'fs { allow_read "/a" }\n' >"$root/new.sbx"
expect_status 1 "$cordon" diff "$root/old.sbx" "$root/new.sbx"
grep -q 'widened  allow_read "/a"' "$root/stdout" || fail "diff: widened"
grep -q $'\033' "$root/stdout" && fail "diff: colour when not on a terminal"
expect_status 1 "$cordon" diff --json "$root/old.sbx" "$root/new.sbx"
grep -q '"equivalent": false' "$root/stdout" || fail "diff --json"
expect_status 2 "$cordon" diff "$root/old.sbx"
expect_status 125 "$cordon" diff "$root/bad.sbx" "$root/new.sbx"

# draft and learn
expect_status 3 "$cordon" learn --trace "$root/t.db" --output "$root/out/frag.sbx" -- sh -c "echo x > $root/out/new; exit 3"
grep -q "^  allow_write \"$root/out\"$" "$root/out/frag.sbx" || fail "learn: no grant on the output directory"
expect_status 0 "$cordon" draft "$root/t.db"
cmp -s "$root/stdout" "$root/out/frag.sbx" || fail "draft of learn's trace differs from learn's fragment"
expect_status 0 "$cordon" draft --json --output "$root/out/frag.json" "$root/t.db"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['grants'][0]['path'] == sys.argv[2]" \
  "$root/out/frag.json" "$root/out" || fail "draft --json"
expect_status 2 "$cordon" draft
expect_status 125 "$cordon" draft "$root/no-such.db"
expect_status 125 "$cordon" draft --policy "$root/bad.sbx" "$root/t.db"
expect_status 125 "$cordon" learn --policy "$root/bad.sbx" -- true
expect_status 2 "$cordon" learn true

echo "cli: $failures failure(s)"
exit $((failures > 0))
