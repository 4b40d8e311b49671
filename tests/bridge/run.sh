#!/usr/bin/env bash
# The bridge's resource limits and hostile clients (issue 20, items 9-17): real sockets, the real
# pg_mcp_bridge binary (debug build), a real PostgreSQL (the regress cluster). Each test starts
# the bridges it needs. Needs the extension installed (scripts/test.sh runs this after pg_regress).
#   bash tests/bridge/run.sh [test names…]      (names: see tests/bridge/test_bridge.py)
#   BRIDGE=/path/to/pg_mcp_bridge bash tests/bridge/run.sh   (another binary, e.g. an old one)
set -euo pipefail
LOG_TAG=bridge
. "$(dirname "$0")/../../scripts/lib.sh"

DIR="${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress/pgdata}"
PORT="${PG_MCP_REGRESS_PORT:-55433}"
DB=pg_mcp_bridge_t
HERE="$ROOT/tests/bridge"

start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
psql_at "$PORT" "$DB" -f "$HERE/setup.sql" >/dev/null
OPAQUE_TOKEN="$(psql_at "$PORT" "$DB" -Atc "SELECT mcp.create_bridge_token('mcp_b_b', 'tests/bridge')")"
export OPAQUE_TOKEN

if [ -z "${BRIDGE:-}" ]; then
  build_tools
  BRIDGE="$TOOLS_DIR/pg_mcp_bridge"
fi
export BRIDGE
export PGHOST=127.0.0.1 PGPORT="$PORT" PGDATABASE="$DB" PSQL="$PG_BIN/psql"
PG_MCP_JWT_SECRET="test-key-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export PG_MCP_JWT_SECRET
python3 "$HERE/test_bridge.py" "$@"
