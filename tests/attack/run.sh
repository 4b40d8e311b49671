#!/usr/bin/env bash
# Crash and hang corpus: every file in tests/attack/cases/ is run in ONE psql session against a
# real cluster. Whatever the statements do (ERROR or result), afterwards
#   * the same backend must still answer (same pg_backend_pid()),
#   * no server process may have died of a signal: the server log gains no "terminated by
#     signal" line (a crash-restart keeps pg_postmaster_start_time(), so that cannot tell),
#     and the postmaster must not have restarted (same pg_postmaster_start_time()),
#   * the file must finish within PG_MCP_ATTACK_TIMEOUT seconds (default 120): no hang,
#   * what the client saw (errors with DETAIL) holds no Rust backtrace or source path, although
#     the server runs with RUST_BACKTRACE=1 (tests/attack/lib.sh).
# tests/attack/setup.sql runs once as postgres first (roles, interfaces, tools the cases use).
# A case switches role with "SET ROLE" or "\c - role" as it needs, and prints a line with
# ATTACK-CASE-BREACH when a statement had an effect it must not have (a lock left, a call run):
# that fails the case too. Usage: run.sh [case-name ...]
# Needs the extension installed (scripts/test.sh runs this after pg_regress).
set -euo pipefail
LOG_TAG=attack
. "$(dirname "$0")/../../scripts/lib.sh"
. "$(dirname "$0")/lib.sh"

DIR="${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress/pgdata}"
PORT="${PG_MCP_REGRESS_PORT:-55433}"
DB=pg_mcp_attack
LIMIT_S="${PG_MCP_ATTACK_TIMEOUT:-120}"
HERE="$ROOT/tests/attack"

start_cluster_with_backtraces "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
psql_at "$PORT" "$DB" -f "$HERE/setup.sql" >/dev/null

work="$(mktemp -d)"; chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
pm_start() { psql_at "$PORT" "$DB" -At -c "SELECT pg_postmaster_start_time()"; }

cases=("$@")
if [ "${#cases[@]}" = 0 ]; then
  mapfile -t cases < <(cd "$HERE/cases" && ls *.sql | sed 's/\.sql$//' | sort)
fi
failed=0
for c in "${cases[@]}"; do
  f="$HERE/cases/$c.sql"
  [ -f "$f" ] || { log "no case $c"; failed=$((failed + 1)); continue; }
  pm0="$(pm_start)"
  crashes0="$(crash_count "$DIR")"
  {
    echo "SELECT pg_catalog.pg_backend_pid() AS attack_pid0 \\gset"
    echo "\\set ON_ERROR_STOP 0"
    echo "\\i $f"
    echo "RESET ROLE;"
    echo "SELECT pg_catalog.pg_backend_pid() = :attack_pid0 AS attack_same \\gset"
    echo "\\if :attack_same"
    echo "\\echo ATTACK-CASE-SURVIVED"
    echo "\\endif"
  } >"$work/driver.sql"
  t0=$(date +%s%N)
  rc=0
  timeout --kill-after=5 "$LIMIT_S" "$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$PORT" -U postgres -d "$DB" \
      -v VERBOSITY=default -f "$work/driver.sql" >"$work/out" 2>&1 || rc=$?
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  pm1="$(pm_start 2>/dev/null || echo down)"
  crashes1="$(crash_count "$DIR")"
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    log "FAIL $c: did not finish within ${LIMIT_S} s"; failed=$((failed + 1))
  elif ! grep -q ATTACK-CASE-SURVIVED "$work/out"; then
    log "FAIL $c: the backend did not survive (psql exit $rc)"; sed 's/^/  | /' "$work/out" | tail -20
    failed=$((failed + 1))
  elif grep -q ATTACK-CASE-BREACH "$work/out"; then
    log "FAIL $c: a hostile statement had an effect the sandbox must prevent"
    grep ATTACK-CASE-BREACH "$work/out" | sed 's/^/  | /'
    failed=$((failed + 1))
  elif [ "$crashes0" != "$crashes1" ]; then
    log "FAIL $c: a server process died of a signal ($crashes0 -> $crashes1 in the server log)"
    as_root grep -E 'terminated by signal|was terminated by exception' "$DIR/server.log" | tail -3 | sed 's/^/  | /'
    failed=$((failed + 1))
  elif [ "$pm0" != "$pm1" ]; then
    log "FAIL $c: the postmaster restarted ($pm0 -> $pm1)"; failed=$((failed + 1))
  elif ! no_rust_internals "$work/out" >"$work/leak"; then
    log "FAIL $c: Rust internals reached the client"; sed 's/^/  | /' "$work/leak" | head -10
    failed=$((failed + 1))
  else
    log "ok $c (${ms} ms, $(grep -c 'ERROR' "$work/out" || true) errors)"
  fi
  # a crash takes a moment to recover from: wait until the cluster answers again
  for _ in $(seq 100); do pm_start >/dev/null 2>&1 && break; sleep 0.2; done
done
psql_at "$PORT" postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true
[ "$failed" = 0 ] && log "all ${#cases[@]} cases survived" || { log "$failed case(s) failed"; exit 1; }
