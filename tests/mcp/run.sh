#!/usr/bin/env bash
# The official MCP SDK clients (Python `mcp`, TypeScript `@modelcontextprotocol/sdk`, pinned in
# requirements.txt / package-lock.json and installed by scripts/setup.sh) against
# pg_mcp_bridge over stdio and Streamable HTTP, with a real PostgreSQL (the regress cluster).
# Needs the extension installed (scripts/test.sh runs this after pg_regress).
#   bash tests/mcp/run.sh [python|ts] [test names…]
set -euo pipefail
LOG_TAG=mcp
. "$(dirname "$0")/../../scripts/lib.sh"

DIR="${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress/pgdata}"
PORT="${PG_MCP_REGRESS_PORT:-55433}"
DB=pg_mcp_mcp
HERE="$ROOT/tests/mcp"
PY="$HERE/.venv/bin/python"
[ -x "$PY" ] && [ -d "$HERE/node_modules/@modelcontextprotocol/sdk" ] \
  || { log "MCP SDKs missing: run scripts/setup.sh"; exit 1; }
which="${1:-all}"; [ $# -gt 0 ] && shift

start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
psql_at "$PORT" "$DB" -f "$HERE/setup.sql" >/dev/null

build_tools
export BRIDGE="$TOOLS_DIR/pg_mcp_bridge"
export PGHOST=127.0.0.1 PGPORT="$PORT" PGDATABASE="$DB" PSQL="$PG_BIN/psql"
export EXT_VERSION="$(psql_at "$PORT" "$DB" -Atc "SELECT extversion FROM pg_extension WHERE extname = 'pg_mcp'")"
PG_MCP_JWT_SECRET="test-key-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export PG_MCP_JWT_SECRET

work="$(mktemp -d)"
PGUSER=mcp_t_auth "$BRIDGE" http --listen 127.0.0.1:0 2>"$work/http.log" &
http_pid=$!
cleanup() { kill "$http_pid" 2>/dev/null || true; wait "$http_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
for _ in $(seq 100); do grep -q "Streamable HTTP on" "$work/http.log" && break; sleep 0.1; done
export MCP_URL="$(grep -o 'http://[0-9.:]*/mcp' "$work/http.log" | head -n1)"
[ -n "$MCP_URL" ] || { cat "$work/http.log"; exit 1; }

rc=0
if [ "$which" = all ] || [ "$which" = python ]; then
  log "Python SDK ($("$PY" -c 'import importlib.metadata as m; print(m.version("mcp"))'))"
  "$PY" "$HERE/test_python_sdk.py" "$@" || rc=1
fi
if [ "$which" = all ] || [ "$which" = ts ]; then
  log "TypeScript SDK ($(node -p "require('$HERE/node_modules/@modelcontextprotocol/sdk/package.json').version"))"
  node --test --test-reporter=spec "$HERE/test_ts_sdk.mjs" || rc=1
  log "TypeScript SDK v2 ($(node -p "require('$HERE/node_modules/@modelcontextprotocol/client/package.json').version"), 2026-07-28)"
  node --test --test-reporter=spec "$HERE/test_ts_sdk_2026.mjs" || rc=1
fi
# SIGTERM ends the HTTP bridge cleanly
kill -TERM "$http_pid"
for _ in $(seq 50); do kill -0 "$http_pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$http_pid" 2>/dev/null; then log "FAIL: the HTTP bridge ignored SIGTERM"; rc=1; else wait "$http_pid" || { log "FAIL: HTTP bridge exit code $?"; rc=1; }; fi
[ "$rc" = 0 ] || { log "HTTP bridge log:"; sed 's/^/  | /' "$work/http.log"; }
exit "$rc"
