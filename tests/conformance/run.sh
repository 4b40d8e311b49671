#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, server scenarios, pinned in
# package-lock.json and installed by scripts/setup.sh with a Node >= 22 of its own) against
# pg_mcp_bridge over Streamable HTTP, serving the conformance interface of setup.sql; then,
# in the same run, against the reference server @modelcontextprotocol/server-everything.
# pg_mcp must match baseline.yml exactly: a scenario that fails and is not listed there, or a
# listed one that now passes, fails this suite (the baseline only shrinks). The reference
# server's results are printed beside it for comparison only.
#   bash tests/conformance/run.sh [--no-reference] [scenario]
set -euo pipefail
LOG_TAG=conformance
. "$(dirname "$0")/../../scripts/lib.sh"

DIR="${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress/pgdata}"
PORT="${PG_MCP_REGRESS_PORT:-55433}"
DB=pg_mcp_conformance
HERE="$ROOT/tests/conformance"
read -r NODE_VERSION _ <"$HERE/node.pin"
NODE="${PG_MCP_NODE_CACHE:-/var/cache/pg_mcp}/node-v$NODE_VERSION/package/bin/node"
[ -x "$NODE" ] && [ -d "$HERE/node_modules/@modelcontextprotocol/conformance" ] \
  || { log "Node >= 22 or the conformance suite missing: run scripts/setup.sh"; exit 1; }
reference=1
if [ "${1:-}" = --no-reference ]; then reference=0; shift; fi
scenario=("${@:+--scenario}" "$@")

start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
psql_at "$PORT" "$DB" -f "$HERE/setup.sql" >/dev/null

build_tools
BRIDGE="$TOOLS_DIR/pg_mcp_bridge"
work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# The suite's client sends no token: a request without Authorization runs as the anonymous role
# (allowed on a loopback listener only); everything else is as in production.
PGHOST=127.0.0.1 PGPORT="$PORT" PGDATABASE="$DB" PGUSER=mcp_conf_auth \
  "$BRIDGE" http --listen 127.0.0.1:0 --interface conformance --anonymous-role mcp_conf_client \
  2>"$work/bridge.log" &
pids+=($!)
for _ in $(seq 100); do grep -q "Streamable HTTP on" "$work/bridge.log" && break; sleep 0.1; done
URL="$(grep -o 'http://[0-9.:]*/mcp' "$work/bridge.log" | head -n1)"
[ -n "$URL" ] || { cat "$work/bridge.log"; exit 1; }

suite() { "$NODE" "$HERE/node_modules/@modelcontextprotocol/conformance/dist/index.js" server "$@"; }

rc=0
log "pg_mcp_bridge at $URL (suite $("$NODE" -p "require('$HERE/node_modules/@modelcontextprotocol/conformance/package.json').version"), node $("$NODE" --version))"
suite --url "$URL" --suite all "${scenario[@]}" --expected-failures "$HERE/baseline.yml" -o "$work/pg_mcp" \
  >"$work/pg_mcp.out" 2>&1 || rc=1
sed -n '/=== SUMMARY ===/,$p' "$work/pg_mcp.out"
if [ "$rc" != 0 ]; then
  log "FAIL: pg_mcp differs from baseline.yml; the failed checks:"
  grep -E "✗|FAILURE|Error" "$work/pg_mcp.out" | head -60 || true
  log "bridge log:"; tail -30 "$work/bridge.log" | sed 's/^/  | /'
fi

columns=("$work/pg_mcp")
if [ "$reference" = 1 ]; then
  EPORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  PORT="$EPORT" "$NODE" "$HERE/node_modules/@modelcontextprotocol/server-everything/dist/index.js" streamableHttp \
    >"$work/everything.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do grep -q "listening on port" "$work/everything.log" && break; sleep 0.1; done
  log "reference server-everything $("$NODE" -p "require('$HERE/node_modules/@modelcontextprotocol/server-everything/package.json').version") at http://127.0.0.1:$EPORT/mcp"
  suite --url "http://127.0.0.1:$EPORT/mcp" --suite all "${scenario[@]}" -o "$work/everything" >"$work/everything.out" 2>&1 || true
  columns+=("$work/everything")
fi
# the per-scenario table (markdown), pg_mcp beside the reference server
python3 "$HERE/table.py" "${columns[@]}" | tee "${PG_MCP_CONFORMANCE_TABLE:-/dev/null}"
exit "$rc"
