#!/usr/bin/env bash
# Fails when a component includes a header of one it may not depend on
# (docs/architecture.md): cli -> drafter, enforcer, tracer -> schema -> util.
set -euo pipefail
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
status=0
check() {  # check DIR FORBIDDEN...
  local dir=$1
  shift
  local f
  for f in "$@"; do
    if grep -rn --include='*.h' --include='*.cc' "#include \"$f/" "$src/$dir" 2>/dev/null; then
      echo "architecture: $dir/ must not include $f/" >&2
      status=1
    fi
  done
}
check util schema tracer drafter enforcer cli
check schema tracer drafter enforcer cli
check tracer drafter enforcer cli
check drafter tracer enforcer cli
check enforcer drafter cli
# Of the tracer, the enforcer may use the audited-run API and nothing else.
if grep -rn --include='*.h' --include='*.cc' '#include "tracer/' "$src/enforcer" |
  grep -v '#include "tracer/audit.h"'; then
  echo "architecture: enforcer/ may include only tracer/audit.h of the tracer" >&2
  status=1
fi
echo "architecture: $([[ $status -eq 0 ]] && echo ok || echo violated)"
exit $status
