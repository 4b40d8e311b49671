#!/usr/bin/env bash
# tools/call in both MCP eras beside the reference server, in one run (docs/benchmarks.md,
# "tools/call in both MCP eras"): one pg_mcp_bridge over stdio (release build) answers the same
# sql_query call as a 2025-11-25 request and as a stateless 2026-07-28 request, and the reference
# @modelcontextprotocol/server-postgres 0.6.2 (npm) its "query" tool, interleaved call by call
# (benches/mcp_bridge/eras.py), the same query as the same non-superuser role on one cluster.
# The bridge's role writes its audit row in the call's transaction (mcp.audit_durable = off), as
# in run.sh's first row. Not a test: prints one JSON line per series.
#   bash benches/mcp_bridge/eras.sh            # 1000 calls each
#   CALLS=3000 bash benches/mcp_bridge/eras.sh
set -euo pipefail
LOG_TAG=bench
. "$(dirname "$0")/../../scripts/lib.sh"
. "$(dirname "$0")/common.sh"

DIR="${PG_MCP_BENCH_DIR:-/var/tmp/pg_mcp_bench/pgdata}"
PORT="${PG_MCP_BENCH_PORT:-55434}"
DB=pg_mcp_bench_eras
CALLS="${CALLS:-1000}"
BASE="${PG_MCP_BENCH_BASELINES:-/var/tmp/pg_mcp_bench_baselines}"
Q='SELECT id, titel FROM t ORDER BY id LIMIT 25'

PG_MCP_RELEASE=1 install_extension
start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
psql_at "$PORT" "$DB" <<'SQL' >/dev/null
CREATE TABLE public.t (id int PRIMARY KEY, titel text);
INSERT INTO public.t SELECT g, 'Titel ' || g FROM generate_series(1, 10000) g;
ANALYZE public.t;
DROP ROLE IF EXISTS bench_eras;
CREATE ROLE bench_eras LOGIN;
GRANT SELECT ON public.t TO bench_eras;
ALTER ROLE bench_eras SET mcp.audit_durable = off;
INSERT INTO mcp.interface (name, access_role) VALUES ('chatbot', 'bench_eras');
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'sql_query');
SQL
release_bridge
URI="postgresql://bench_eras@127.0.0.1:$PORT/$DB"
reference_server "$BASE"
[ -f "$REF" ] || { log "server-postgres did not install"; exit 1; }
log "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
PGHOST=127.0.0.1 PGPORT="$PORT" PGUSER=bench_eras PGDATABASE="$DB" \
  python3 "$ROOT/benches/mcp_bridge/eras.py" "$CALLS" sql_query "{\"query\": \"$Q\"}" \
    --reference query "{\"sql\": \"$Q\"}" -- "$BRIDGE" -- node "$REF" "$URI"
log "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
