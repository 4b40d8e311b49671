#!/usr/bin/env bash
# Load test of the Streamable HTTP bridge (issue 20): 16 well-behaved clients (role bench_good,
# sql_query on a small table, 10 ms think time) alone, then side by side with one hostile client
# of another role (bench_evil: 8 threads of pg_sleep(2) calls, hang-ups during pg_sleep(30),
# initialize floods). Prints the well-behaved p95 both times; fails when it degrades by more
# than 2x. Release builds of the extension and the bridge, the bridge's default limits.
#   bash benches/mcp_bridge/load.sh            # 20 s per phase
#   SECONDS_PER_PHASE=60 bash benches/mcp_bridge/load.sh
#   BRIDGE=/path/to/other/pg_mcp_bridge bash benches/mcp_bridge/load.sh   (e.g. an older build)
#   PG_MCP_SKIP_INSTALL=1 …   (the extension is already installed as a release build)
set -euo pipefail
LOG_TAG=bench
. "$(dirname "$0")/../../scripts/lib.sh"
. "$(dirname "$0")/common.sh"

DIR="${PG_MCP_BENCH_DIR:-/var/tmp/pg_mcp_bench/pgdata}"
PORT="${PG_MCP_BENCH_PORT:-55434}"
DB=pg_mcp_bench_load
PHASE="${SECONDS_PER_PHASE:-20}"

bash "$ROOT/scripts/setup.sh" >/dev/null
[ "${PG_MCP_SKIP_INSTALL:-0}" = 1 ] || PG_MCP_RELEASE=1 install_extension
start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
psql_at "$PORT" "$DB" <<SQL
SET client_min_messages = warning;
CREATE TABLE public.t (id int PRIMARY KEY, titel text);
INSERT INTO public.t SELECT g, 'Titel ' || g FROM generate_series(1, 10000) g;
ANALYZE public.t;
DROP ROLE IF EXISTS bench_good; DROP ROLE IF EXISTS bench_evil; DROP ROLE IF EXISTS bench_auth;
CREATE ROLE bench_good NOLOGIN;
CREATE ROLE bench_evil NOLOGIN;
CREATE ROLE bench_auth LOGIN NOINHERIT;
GRANT bench_good, bench_evil TO bench_auth;
GRANT SELECT ON public.t TO bench_good, bench_evil;
INSERT INTO mcp.interface (name, access_role) VALUES ('chatbot', 'public');
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'sql_query');
ALTER DATABASE $DB SET mcp.tool_timeout_ms = 60000;
SQL
[ -n "${BRIDGE:-}" ] || release_bridge
PG_MCP_JWT_SECRET="bench-key-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export PG_MCP_JWT_SECRET
good="$("$BRIDGE" token --role bench_good)"
evil="$("$BRIDGE" token --role bench_evil)"
log="$(mktemp)"
PGHOST=127.0.0.1 PGPORT="$PORT" PGDATABASE="$DB" PGUSER=bench_auth \
  "$BRIDGE" http --listen 127.0.0.1:0 2>"$log" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 100); do grep -q "Streamable HTTP on" "$log" && break; sleep 0.1; done
url="$(grep -o 'http://[0-9.:]*/mcp' "$log" | head -n1)"
[ -n "$url" ] || { cat "$log"; exit 1; }
log "16 well-behaved clients, $PHASE s alone and $PHASE s beside a hostile client"
python3 "$ROOT/benches/mcp_bridge/load.py" "$url" "$good" "$evil" "$PHASE"
