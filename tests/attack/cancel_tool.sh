#!/usr/bin/env bash
# Cancel a RUNNING TOOL from outside the backend, with the server started with
# RUST_BACKTRACE=1 (pgrx then captures a Rust backtrace for every error crossing Rust code):
#   1. pg_cancel_backend() from a second session while sql_query runs pg_sleep,
#   2. the same while a function tool runs pg_sleep,
#   3. statement_timeout while sql_query runs pg_sleep.
# Each must end the statement with ERROR 57014 whose client-visible text (VERBOSITY verbose:
# message, DETAIL, HINT, CONTEXT, LOCATION) holds no Rust backtrace and no Rust source path,
# and the session must stay usable. Uses the regress cluster (PG_MCP_REGRESS_DIR/PORT).
set -euo pipefail
LOG_TAG=cancel-tool
. "$(dirname "$0")/../../scripts/lib.sh"
. "$(dirname "$0")/lib.sh"

DIR="${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress/pgdata}"
PORT="${PG_MCP_REGRESS_PORT:-55433}"
DB=pg_mcp_cancel_tool

start_cluster_with_backtraces "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
psql_at "$PORT" "$DB" -c "
  SET client_min_messages = warning;
  DROP ROLE IF EXISTS cancel_victim;
  CREATE ROLE cancel_victim LOGIN;
  CREATE FUNCTION public.nap(s float8) RETURNS text LANGUAGE sql AS \$\$ SELECT pg_sleep(s)::text \$\$;
  GRANT EXECUTE ON FUNCTION public.nap(float8) TO cancel_victim;
  INSERT INTO mcp.interface (name, access_role) VALUES ('chatbot', 'public');
  INSERT INTO mcp.tool (name, description, parameters, function) VALUES
    ('nap', 'sleeps', '{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"number\"}},\"required\":[\"s\"]}', 'public.nap(float8)');
  INSERT INTO mcp.interface_tool VALUES ('chatbot', 'sql_query'), ('chatbot', 'nap');"

work="$(mktemp -d)"; chmod 755 "$work"
bg_pid=
cleanup() { [ -n "$bg_pid" ] && kill "$bg_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
fail() { log "FAIL: $*"; [ -f "$work/session.out" ] && sed 's/^/  | /' "$work/session.out"; exit 1; }

# run_session APPNAME SQL...: a background session as cancel_victim, verbose errors.
run_session() {
  local app="$1"; shift
  printf '%s\n' "$@" "SELECT 'backend still usable' AS after;" > "$work/session.sql"
  PGAPPNAME="$app" "$PG_BIN/psql" -X -h 127.0.0.1 -p "$PORT" -U cancel_victim -d "$DB" \
      -v VERBOSITY=verbose -v SHOW_CONTEXT=always -f "$work/session.sql" >"$work/session.out" 2>&1 &
  bg_pid=$!
}

# Wait until the session's tool runs (its backend is tagged mcp:call:<id>), then cancel it.
cancel_running_tool() {
  local pid=
  for _ in $(seq 200); do
    pid="$(psql_at "$PORT" "$DB" -At -c "SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'mcp:call:%' AND wait_event = 'PgSleep'")"
    [ -n "$pid" ] && break
    sleep 0.05
  done
  [ -n "$pid" ] || fail "the tool never started sleeping"
  [ "$(psql_at "$PORT" "$DB" -At -c "SELECT pg_cancel_backend($pid)")" = t ] || fail "pg_cancel_backend refused"
}

check_session() { # check_session WHAT
  wait "$bg_pid" || true; bg_pid=
  grep -q '57014' "$work/session.out" || fail "$1: no ERROR 57014"
  grep -q 'backend still usable' "$work/session.out" || fail "$1: session not usable afterwards"
  no_rust_internals "$work/session.out" || fail "$1: Rust internals in what the client sees"
  log "ok $1 (57014, no Rust backtrace or source path, session usable)"
}

run_session cancel_sql "SELECT mcp.call_tool('sql_query', '{\"query\": \"select pg_sleep(60)\"}');"
cancel_running_tool
check_session "pg_cancel_backend during sql_query"

run_session cancel_fn "SELECT mcp.call_tool('nap', '{\"s\": 60}');"
cancel_running_tool
check_session "pg_cancel_backend during a function tool"

run_session timeout_sql "SET statement_timeout = '300ms';" \
    "SELECT mcp.call_tool('sql_query', '{\"query\": \"select pg_sleep(60)\"}');" "RESET statement_timeout;"
check_session "statement_timeout during sql_query"
grep -q 'statement timeout' "$work/session.out" || fail "statement_timeout: not a statement timeout"

psql_at "$PORT" postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null
log "ok"
