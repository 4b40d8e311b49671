#!/usr/bin/env bash
# Cancel and terminate during pg_mcp's own CPU work, from OUTSIDE the backend:
# the repair engine on a large hostile text, the response parser, and the jsonb reader on a huge
# argument each run for many seconds if nobody stops them. The engines poll PostgreSQL's
# CHECK_FOR_INTERRUPTS() (hooks installed by _PG_init), so
#  1. pg_cancel_backend() ends repair_json_report within 1 s with ERROR 57014, session usable;
#  2. statement_timeout ends parse_llm_response within 1 s of the timeout;
#  3. pg_cancel_backend() ends the jsonb reader of validate_arguments within 1 s;
#  4. pg_terminate_backend() ends repair_json within 1 s, and the postmaster does not restart.
# (JSON Schema validation cannot be interrupted; its cost is bounded statically instead, see
# crates/mcp_tools/src/validate/complexity.rs.) Uses the regress cluster like run.sh.
set -euo pipefail
LOG_TAG=cancel-compute
. "$(dirname "$0")/../../scripts/lib.sh"

DIR="${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress/pgdata}"
PORT="${PG_MCP_REGRESS_PORT:-55433}"
DB=pg_mcp_cancel_compute
LIMIT_MS=1000
# Each computation runs at least this long when nobody stops it (checked below in a run with a
# generous statement_timeout): the limits above are then far below the uninterrupted time.
MIN_UNINTERRUPTED_MS=5000

start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
work="$(mktemp -d)"
chmod 755 "$work"
bg_pid=
cleanup() {
  [ -n "$bg_pid" ] && kill "$bg_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

. "$(dirname "$0")/sessions.sh"   # now_ms, start_session, wait_for_end
fail() { log "FAIL: $*"; [ -f "$work/session.out" ] && sed 's/^/  | /' "$work/session.out" | tail -20; exit 1; }
pm_start() { psql_at "$PORT" "$DB" -At -c "SELECT pg_postmaster_start_time()"; }

# The long computations (large hostile inputs; the quote-dense array makes the second opinion of
# the repair engine work hardest). @N@ is scaled until the computation outlasts
# MIN_UNINTERRUPTED_MS (a debug build needs a smaller N than a release build).
REPAIR="SELECT length(mcp.repair_json_report('[' || repeat('\"a\" b\", ', @N@))::text);"
PARSE="SELECT length(mcp.parse_llm_response('[' || repeat('{\"a\": \"x\", \"b\": [1, 2, ''y''], }, ', @N@))::text);"
READ="SELECT mcp.validate_arguments('sql_query', (SELECT j FROM big WHERE n = @N@));"
REPAIR_RAISING="SELECT length(mcp.repair_json('[' || repeat('\"a\" b\", ', @N@))::text);"

AFTER="SELECT 'backend still usable' AS after_cancel;"

# active_pid APP: the backend of the session once its computation runs
active_pid() {
  local pid=
  for _ in $(seq 400); do
    pid="$(psql_at "$PORT" "$DB" -At -c "SELECT pid FROM pg_stat_activity WHERE application_name = '$1' AND state = 'active' AND query LIKE '%mcp.%'")"
    [ -n "$pid" ] && { echo "$pid"; return 0; }
    sleep 0.025
  done
  return 1
}

# scaled TEMPLATE N0: the template with @N@ raised (x4) until the computation runs longer than
# MIN_UNINTERRUPTED_MS when nobody stops it (statement_timeout ends the probe)
scaled() {
  local template="$1" n="$2" sql
  for _ in 1 2 3 4; do
    sql="${template//@N@/$n}"
    [[ "$template" == *"FROM big"* ]] && psql_at "$PORT" "$DB" -c "INSERT INTO big SELECT $n, jsonb_build_object('query', 'select 1', 'x',
        (SELECT jsonb_agg(jsonb_build_object('k', i, 'v', array[i, i + 1])) FROM generate_series(1, $n) i))" >/dev/null
    if ! psql_at "$PORT" "$DB" -c "SET statement_timeout = '${MIN_UNINTERRUPTED_MS}ms'" -c "$sql" >/dev/null 2>"$work/probe.err" \
       && grep -q 'statement timeout' "$work/probe.err"; then
      echo "$sql"
      return 0
    fi
    n=$(( n * 4 ))
  done
  fail "no input size makes this computation last ${MIN_UNINTERRUPTED_MS} ms: $template"
}
psql_at "$PORT" "$DB" -c "CREATE TABLE big (n int, j jsonb)" >/dev/null

# cancel_during WHAT SQL: start it, wait 1 s, cancel, expect 57014 within the limit
cancel_during() {
  local what="$1" sql="$2"
  start_session "mcp_compute_$what" "$sql" "$AFTER"
  local pid; pid="$(active_pid "mcp_compute_$what")" || fail "$what: backend not found"
  sleep 1
  t0="$(now_ms)"
  [ "$(psql_at "$PORT" "$DB" -At -c "SELECT pg_cancel_backend($pid)")" = t ] || fail "$what: pg_cancel_backend refused"
  wait_for_end
  grep -q '57014' "$work/session.out" || fail "$what: no ERROR 57014"
  grep -q 'backend still usable' "$work/session.out" || fail "$what: session not usable afterwards"
  [ "$elapsed" -lt "$LIMIT_MS" ] || fail "$what: pg_cancel_backend took ${elapsed} ms (limit ${LIMIT_MS} ms)"
  log "pg_cancel_backend ended $what after ${elapsed} ms (ERROR 57014; session usable)"
}

# 1. pg_cancel_backend during the repair engine
cancel_during repair_json_report "$(scaled "$REPAIR" 150000)"

# 2. statement_timeout during the response parser
TIMEOUT_MS=1000
PARSE="$(scaled "$PARSE" 250000)"
t0="$(now_ms)"
start_session mcp_compute_timeout "SET statement_timeout = '${TIMEOUT_MS}ms';" "$PARSE" "RESET statement_timeout;" "$AFTER"
wait_for_end
grep -q 'statement timeout' "$work/session.out" || fail "statement_timeout: not a statement timeout"
grep -q 'backend still usable' "$work/session.out" || fail "statement_timeout: session not usable afterwards"
[ "$elapsed" -lt $(( TIMEOUT_MS + LIMIT_MS )) ] || fail "statement_timeout ${TIMEOUT_MS} ms ended parse_llm_response after ${elapsed} ms"
log "statement_timeout ${TIMEOUT_MS} ms ended parse_llm_response after ${elapsed} ms (ERROR 57014)"

# 3. pg_cancel_backend while a huge jsonb argument is read
cancel_during validate_arguments "$(scaled "$READ" 500000)"

# 4. pg_terminate_backend during the repair engine: the backend ends, the cluster does not restart
REPAIR_RAISING="$(scaled "$REPAIR_RAISING" 150000)"
pm0="$(pm_start)"
start_session mcp_compute_terminate "$REPAIR_RAISING" "$AFTER"
pid="$(active_pid mcp_compute_terminate)" || fail "terminate: backend not found"
sleep 1
t0="$(now_ms)"
[ "$(psql_at "$PORT" "$DB" -At -c "SELECT pg_terminate_backend($pid)")" = t ] || fail "pg_terminate_backend refused"
for _ in $(seq 2000); do
  [ -z "$(psql_at "$PORT" "$DB" -At -c "SELECT 1 FROM pg_stat_activity WHERE pid = $pid")" ] && break
  sleep 0.005
done
elapsed=$(( $(now_ms) - t0 ))
wait "$bg_pid" || true; bg_pid=
grep -q '57P01' "$work/session.out" || fail "terminate: no FATAL 57P01"
[ "$elapsed" -lt "$LIMIT_MS" ] || fail "pg_terminate_backend took ${elapsed} ms to end the backend (limit ${LIMIT_MS} ms)"
[ "$(pm_start)" = "$pm0" ] || fail "terminate: the postmaster restarted"
log "pg_terminate_backend ended repair_json after ${elapsed} ms (FATAL 57P01; postmaster not restarted)"

psql_at "$PORT" postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null
log "ok"
