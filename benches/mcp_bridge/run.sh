#!/usr/bin/env bash
# tools/call latency and spawn -> initialize -> tools/list time of MCP servers over stdio, side
# by side in one run on one cluster: pg_mcp_bridge (release build, sql_query tool) and, where
# they install, the reference @modelcontextprotocol/server-postgres (npm, tool "query") and
# crystaldba's postgres-mcp (PyPI, tool "execute_sql", restricted mode). All run
# `SELECT id, titel FROM t ORDER BY id LIMIT 25` as the same non-superuser role.
# Not a test: prints a table; numbers depend on the machine. The baselines are installed on
# first use into $PG_MCP_BENCH_BASELINES (default /var/tmp/pg_mcp_bench_baselines).
#   bash benches/mcp_bridge/run.sh            # 1000 calls, 20 spawns per server
#   CALLS=5000 SPAWNS=50 bash benches/mcp_bridge/run.sh
set -euo pipefail
LOG_TAG=bench
. "$(dirname "$0")/../../scripts/lib.sh"
. "$(dirname "$0")/common.sh"

DIR="${PG_MCP_BENCH_DIR:-/var/tmp/pg_mcp_bench/pgdata}"
PORT="${PG_MCP_BENCH_PORT:-55434}"
DB=pg_mcp_bench_mcp
CALLS="${CALLS:-1000}"
SPAWNS="${SPAWNS:-20}"
BASE="${PG_MCP_BENCH_BASELINES:-/var/tmp/pg_mcp_bench_baselines}"
Q='SELECT id, titel FROM t ORDER BY id LIMIT 25'

bash "$ROOT/scripts/setup.sh" >/dev/null
PG_MCP_RELEASE=1 install_extension
start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
psql_at "$PORT" "$DB" <<'SQL'
CREATE TABLE public.t (id int PRIMARY KEY, titel text);
INSERT INTO public.t SELECT g, 'Titel ' || g FROM generate_series(1, 10000) g;
ANALYZE public.t;
DROP ROLE IF EXISTS bench_mcp;
CREATE ROLE bench_mcp LOGIN;
GRANT SELECT ON public.t TO bench_mcp;
INSERT INTO mcp.interface (name, access_role) VALUES ('chatbot', 'bench_mcp');
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'sql_query');
SQL
release_bridge
URI="postgresql://bench_mcp@127.0.0.1:$PORT/$DB"

reference_server "$BASE"
# a Python >= 3.12 (postgres-mcp needs it): python3.13/3.12 on PATH, or one that pyenv keeps
PY312=
for c in python3.13 python3.12 $(command -v pyenv >/dev/null && ls -d "$(pyenv root)"/versions/3.1[2-9]*/bin/python3 2>/dev/null); do
  "$c" -c 'import sys; assert sys.version_info >= (3, 12)' 2>/dev/null && { PY312="$c"; break; }
done
if [ ! -x "$BASE/py312/bin/postgres-mcp" ] && [ -n "$PY312" ]; then
  log "installing postgres-mcp==0.3.0 (needs Python >= 3.12)"
  ("$PY312" -m venv "$BASE/py312" && "$BASE/py312/bin/pip" install -q postgres-mcp==0.3.0) >/dev/null 2>&1 || true
fi

out="$(mktemp)"
trap 'rm -f "$out"' EXIT
failed=0
run() { python3 "$ROOT/benches/mcp_bridge/bench.py" "$@" >>"$out" || { log "FAILED: $1"; failed=1; }; }
bridge() { # bridge LABEL [GUC=VALUE ...]: the bridge as bench_mcp, the settings on its role
  local label="$1"; shift
  psql_at "$PORT" "$DB" -c "ALTER ROLE bench_mcp RESET ALL" >/dev/null
  for kv in "$@"; do psql_at "$PORT" "$DB" -c "ALTER ROLE bench_mcp SET ${kv%%=*} = '${kv#*=}'" >/dev/null; done
  log "$label"
  PGHOST=127.0.0.1 PGPORT="$PORT" PGUSER=bench_mcp PGDATABASE="$DB" \
    run "$label" sql_query "{\"query\": \"$Q\"}" "$SPAWNS" "$CALLS" -- "$BRIDGE"
}
# Each call commits its audit row (mcp.tool_call). In the caller's transaction (durable audit
# off) that is a WAL flush per call; the reference servers write nothing. Then the same with the
# flush deferred, and through the durable audit worker (the cluster preloads pg_mcp), which
# commits the row in its own transaction: synchronous (the call waits for that commit) and
# asynchronous (bounded loss window, like synchronous_commit = off).
bridge "pg_mcp_bridge (audit in the call's transaction)" mcp.audit_durable=off
bridge "pg_mcp_bridge (audit in the call's transaction, synchronous_commit=off)" mcp.audit_durable=off synchronous_commit=off
bridge "pg_mcp_bridge (durable audit worker, synchronous)" mcp.audit_durable=on mcp.audit_synchronous=on
bridge "pg_mcp_bridge (durable audit worker, asynchronous)" mcp.audit_durable=on mcp.audit_synchronous=off
psql_at "$PORT" "$DB" -c "ALTER ROLE bench_mcp RESET ALL" >/dev/null
log "the driver's floor (an echo server, no database)"
run "driver floor (echo server, no database)" sql_query '{"query": "x"}' "$SPAWNS" "$CALLS" -- python3 "$ROOT/benches/mcp_bridge/echo_server.py"
if [ -f "$REF" ]; then
  log "@modelcontextprotocol/server-postgres"
  run server-postgres query "{\"sql\": \"$Q\"}" "$SPAWNS" "$CALLS" -- node "$REF" "$URI"
else log "server-postgres did not install: skipped"; fi
if [ -x "$BASE/py312/bin/postgres-mcp" ]; then
  log "postgres-mcp"
  run postgres-mcp execute_sql "{\"sql\": \"$Q\"}" "$SPAWNS" "$CALLS" -- "$BASE/py312/bin/postgres-mcp" --access-mode=restricted "$URI"
else log "postgres-mcp did not install: skipped"; fi

echo
python3 "$ROOT/benches/mcp_bridge/bench.py" --table "$out"
[ "$failed" = 0 ] || { log "a server failed (above): its row is missing"; exit 1; }
