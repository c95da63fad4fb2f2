#!/usr/bin/env bash
# Drafting speed and memory on a synthetic trace of EVENTS events (default
# 1,000,000), written straight into the trace schema with sqlite3.
#
#   bench/draft_bench.sh [BUILD_DIR] [EVENTS] [MIX]
#
# MIX "build" (default) looks like a large build: headers read and stat'd
#   over and over, sources, objects written to a temp name and renamed into
#   place, libraries under /usr (granted by the base layer), /proc lookups,
#   directory listings, a cache under the run's home, execs and connects:
#   about 8,600 distinct names.
# MIX "distinct" is the worst case for memory: about 300,000 distinct names
#   (one event in three names something new), 100,000 of them granted one
#   by one.
# Prints wall time and peak RSS of `cordon draft` (GNU time; Debian package
# `time`). Targets for the default mix: <= 2 s, <= 500 MiB.
set -euo pipefail
build=${1:-build}
events=${2:-1000000}
mix=${3:-build}
cordon=$(realpath "$build/cordon")
src=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
db=$scratch/bench.db

# One row per event: (k, path, path2, existed, flags, family, addr, port),
# k being the op.
case $mix in
build) events_sql="
SELECT i,
  CASE WHEN k < 8 THEN 'open' WHEN k < 10 THEN 'stat' WHEN k < 12 THEN 'open' WHEN k = 12 THEN 'open'
       WHEN k = 13 THEN 'rename' WHEN k = 14 THEN 'open' WHEN k = 15 THEN 'stat' WHEN k = 16 THEN 'list'
       WHEN k = 17 THEN 'open' WHEN k = 18 THEN 'exec' ELSE 'connect' END AS op,
  CASE WHEN k < 10 THEN printf('/srv/src/include/d%d/h%d.h', (i * 7919) % 10000 / 100, (i * 7919) % 100)
       WHEN k < 12 THEN printf('/srv/src/d%d/f%d.c', (i * 104729) % 5000 / 100, (i * 104729) % 100)
       WHEN k < 14 THEN printf('/srv/build/d%d/f%d.o.tmp', (i / 20) % 2000 / 100, (i / 20) % 100)
       WHEN k = 14 THEN printf('/usr/lib/gcc/x86_64-linux-gnu/12/lib%d.so', i % 50)
       WHEN k = 15 THEN printf('/proc/%d/stat', i % 100)
       WHEN k = 16 THEN printf('/srv/src/include/d%d', (i / 20) % 100)
       WHEN k = 17 THEN printf('/home/bench/.cache/tool/c%d', (i / 20) % 1000)
       WHEN k = 18 THEN '/usr/bin/cc' END AS path,
  CASE WHEN k = 13 THEN printf('/srv/build/d%d/f%d.o', (i / 20) % 2000 / 100, (i / 20) % 100) END AS path2,
  CASE WHEN k = 12 THEN 0 WHEN k = 19 THEN NULL ELSE 1 END AS existed,
  CASE WHEN k = 12 THEN 577 ELSE 0 END AS flags,
  CASE WHEN k = 19 THEN 'inet' END AS family,
  CASE WHEN k = 19 THEN printf('192.0.2.%d', i % 4) END AS addr,
  CASE WHEN k = 19 THEN 443 END AS port
FROM (SELECT i, i % 20 AS k FROM n)" ;;
distinct) events_sql="
SELECT i,
  CASE k WHEN 3 THEN 'stat' WHEN 5 THEN 'rename' WHEN 7 THEN 'stat' WHEN 8 THEN 'list'
         WHEN 9 THEN 'connect' ELSE 'open' END AS op,
  CASE k WHEN 4 THEN printf('/srv/bench/out%d/n%d.tmp', d, f)
         WHEN 5 THEN printf('/srv/bench/out%d/n%d.tmp', d, f)
         WHEN 6 THEN printf('/usr/lib/x86_64-linux-gnu/lib%d.so', d)
         WHEN 7 THEN printf('/proc/%d/status', d)
         WHEN 8 THEN printf('/srv/bench/d%d', d)
         WHEN 9 THEN NULL
         WHEN 2 THEN printf('/home/bench/.cache/tool/%d/%d', d, f)
         ELSE printf('/srv/bench/d%d/f%d', d, f) END AS path,
  CASE k WHEN 5 THEN printf('/srv/bench/out%d/n%d', d, f) END AS path2,
  CASE WHEN k = 4 THEN 0 WHEN k = 9 THEN NULL ELSE 1 END AS existed,
  CASE k WHEN 4 THEN 577 ELSE 0 END AS flags,
  CASE k WHEN 9 THEN 'inet' END AS family,
  CASE k WHEN 9 THEN printf('192.0.2.%d', d % 16) END AS addr,
  CASE k WHEN 9 THEN 443 END AS port
FROM (SELECT i, i % 10 AS k, (i / 10) % 1000 AS d, (i / 10000) % 100 AS f FROM n)" ;;
*) echo "draft_bench: MIX is build or distinct" >&2; exit 2 ;;
esac

# The newest schema, as cordon would create it.
schema=$(ls "$src"/schema/sql/v*.sql | sort -V | tail -n 1)
version=$(basename "$schema" .sql)
{
  cat "$schema"
  cat <<SQL
PRAGMA user_version = ${version#v};
INSERT INTO runs (id, argv, cwd, env_names, user_name, uid, home, kernel, arch, cordon_version,
                  started_at, ended_at, state, exit_code, sync_wakeup)
VALUES (1, CAST('bench' AS BLOB), CAST('/work/bench' AS BLOB), 'PATH', 'bench', 1000,
        CAST('/home/bench' AS BLOB), 'bench', 'x86_64', 'bench', 0, 1, 'complete', 0, 1);
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $events)
INSERT INTO events (run_id, seq, time_ns, pid, tid, syscall, op, path, abs_path, existed,
                    path2, abs_path2, existed2, flags, net_family, net_addr, net_port)
SELECT 1, i, i * 1000, 100, 100,
  CASE op WHEN 'open' THEN 'openat' WHEN 'stat' THEN 'newfstatat' WHEN 'list' THEN 'getdents64'
          WHEN 'exec' THEN 'execve' ELSE op END,
  op, CAST(path AS BLOB), CAST(path AS BLOB), existed,
  CAST(path2 AS BLOB), CAST(path2 AS BLOB), CASE WHEN path2 IS NOT NULL THEN 0 END,
  flags, family, CAST(addr AS BLOB), port
FROM ($events_sql);
COMMIT;
SQL
} | sqlite3 "$db"

mkdir -p "$scratch/config"
echo "trace ($mix): $events events, $(sqlite3 "$db" "SELECT count(DISTINCT abs_path) FROM events") distinct names"
XDG_CONFIG_HOME=$scratch/config /usr/bin/time -v "$cordon" draft "$db" >"$scratch/draft.sbx" 2>"$scratch/time.txt" || {
  cat "$scratch/time.txt" >&2
  exit 1
}
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$scratch/time.txt")
user=$(sed -n 's/.*User time (seconds): //p' "$scratch/time.txt")
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$scratch/time.txt")
echo "draft: wall $wall (user ${user}s), peak RSS $((rss / 1024)) MiB, $(grep -c '^  allow_' "$scratch/draft.sbx") rules"
