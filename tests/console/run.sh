#!/usr/bin/env bash
# The web console (/console of pg_mcp_bridge http) in a real browser: Debian's headless Chromium
# driven by playwright-core (console.test.mjs, node's test runner), against a real PostgreSQL,
# the bridge over a real socket and the suite's mock LLM. Signs in as five roles by JWT; checks
# own runs under row-level security, a chat and its timeline, analyze's highlighted entities, an
# approval, the registry's refusals, CSRF and Origin, hostile text in every rendered field.
# Screenshots go to $PG_MCP_CONSOLE_SHOTS (docs/console to refresh the README's; default: a
# temporary directory).
#   bash tests/console/run.sh
set -euo pipefail
LOG_TAG=console
. "$(dirname "$0")/../../scripts/lib.sh"

DIR="${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress/pgdata}"
PORT="${PG_MCP_REGRESS_PORT:-55433}"
DB=pg_mcp_console
HERE="$ROOT/tests/console"
read -r NODE_VERSION _ <"$ROOT/tests/conformance/node.pin"
NODE="${PG_MCP_NODE_CACHE:-/var/cache/pg_mcp}/node-v$NODE_VERSION/package/bin/node"
MODEL_DIR="${PG_MCP_MODEL_DIR:-/usr/local/share/pg_mcp/models/all-MiniLM-L6-v2}"
[ -x "$NODE" ] && [ -d "$HERE/node_modules/playwright-core" ] && [ -x /usr/bin/chromium ] \
  || { log "Node, playwright-core or Chromium missing: run scripts/setup.sh"; exit 1; }

start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
work="$(mktemp -d)"
chmod 755 "$work"
bg_pid=
. "$ROOT/tests/cancel/sessions.sh"   # start_mock (stops it and removes $work on exit)
start_mock "$HERE/scenarios"
psql_at "$PORT" "$DB" -v mock="$mock_port" -v model_dir="$MODEL_DIR" -f "$HERE/setup.sql" >/dev/null
# a pending approval: alice's chat stops before the acting tool runs
st="$(psql_at "$PORT" "$DB" -At -c "SET ROLE con_alice" -c "SELECT mcp.chat('Mein Drucker ist kaputt', 'helpdesk') ->> 'status'")"
[ "$st" = awaiting_approval ] || { log "FAIL: the setup's chat ended $st, not awaiting_approval"; exit 1; }

# con_carol signs in with a password: PostgreSQL checks it (scram) for this database only; the
# line goes first in the cluster's pg_hba.conf, once (the other suites' databases stay trust)
hba="$(psql_at "$PORT" postgres -At -c "SHOW hba_file")"
if ! as_root grep -q "^host $DB con_carol " "$hba"; then
  as_root sed -i "1i host $DB con_carol 127.0.0.1/32 scram-sha-256" "$hba"
  psql_at "$PORT" postgres -At -c "SELECT pg_reload_conf()" >/dev/null
fi

build_tools
BRIDGE="$TOOLS_DIR/pg_mcp_bridge"
head -c 48 /dev/urandom | base64 -w0 >"$work/jwt.secret"
PGHOST=127.0.0.1 PGPORT="$PORT" PGDATABASE="$DB" PGUSER=console_auth PG_MCP_CONSOLE_PASSWORD_LOGIN=1 \
  "$BRIDGE" http --listen 127.0.0.1:0 --jwt-secret-file "$work/jwt.secret" 2>"$work/bridge.log" &
bridge_pid=$!
trap 'kill "$bridge_pid" 2>/dev/null || true; wait "$bridge_pid" 2>/dev/null || true; mock_cleanup' EXIT
for _ in $(seq 100); do grep -q "Streamable HTTP on" "$work/bridge.log" && break; sleep 0.1; done
URL="$(grep -o 'http://[0-9.:]*' "$work/bridge.log" | head -n1)"
[ -n "$URL" ] || { cat "$work/bridge.log"; exit 1; }
for r in alice bob admin auditor approver; do
  export "TOKEN_${r^^}=$("$BRIDGE" token --role "con_$r" --exp-seconds 3600 --jwt-secret-file "$work/jwt.secret")"
done
export CONSOLE_URL="$URL"
export PSQL="$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1:]))' \
  "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U postgres -d "$DB")"
export SHOTS="${PG_MCP_CONSOLE_SHOTS:-$work/shots}"
log "console at $URL/console (chromium $(/usr/bin/chromium --version 2>/dev/null | awk '{print $2}'), playwright-core $("$NODE" -p "require('$HERE/node_modules/playwright-core/package.json').version"))"
rc=0
(cd "$HERE" && "$NODE" --test --test-reporter=spec --test-concurrency=1 console.test.mjs) || rc=1
if [ "$rc" != 0 ]; then log "bridge log:"; tail -30 "$work/bridge.log" | sed 's/^/  | /'; fi
exit "$rc"
