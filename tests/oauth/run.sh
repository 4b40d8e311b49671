#!/usr/bin/env bash
# pg_mcp_bridge as an OAuth 2.1 resource server (docs/mcp-server.md#oauth) against a real
# authorization server, oidc-provider, with the official MCP TypeScript SDK's OAuth client doing
# the whole flow (client credentials; authorization code with PKCE and client registration), and
# the edge cases (missing token, wrong audience, expired, wrong issuer, a
# scope that maps to no role, an unknown kid after a key rotation). Both npm packages are pinned
# in package-lock.json and installed by scripts/setup.sh; nothing is downloaded here.
# Needs the extension installed (scripts/test.sh runs this after pg_regress).
#   bash tests/oauth/run.sh [--test-name-pattern=…]
set -euo pipefail
LOG_TAG=oauth
. "$(dirname "$0")/../../scripts/lib.sh"

DIR="${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress/pgdata}"
PORT="${PG_MCP_REGRESS_PORT:-55433}"
DB=pg_mcp_oauth
HERE="$ROOT/tests/oauth"
read -r NODE_VERSION _ <"$ROOT/tests/conformance/node.pin"
NODE="${PG_MCP_NODE_CACHE:-/var/cache/pg_mcp}/node-v$NODE_VERSION/package/bin/node"
[ -x "$NODE" ] && [ -d "$HERE/node_modules/oidc-provider" ] && [ -d "$HERE/node_modules/@modelcontextprotocol/sdk" ] \
  || { log "Node or the OAuth suite's packages missing: run scripts/setup.sh"; exit 1; }
# the Python SDK of tests/mcp (its venv, installed by scripts/setup.sh)
export MCP_PY="$ROOT/tests/mcp/.venv/bin/python"
[ -x "$MCP_PY" ] || { log "the MCP Python SDK (tests/mcp/.venv) is missing: run scripts/setup.sh"; exit 1; }

start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
psql_at "$PORT" "$DB" -f "$HERE/setup.sql" >/dev/null

build_tools
export BRIDGE="$TOOLS_DIR/pg_mcp_bridge"
export PGHOST=127.0.0.1 PGPORT="$PORT" PGDATABASE="$DB" PSQL="$PG_BIN/psql"
# the role-claim JWTs of before, beside OAuth
PG_MCP_JWT_SECRET="test-key-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export PG_MCP_JWT_SECRET

log "oidc-provider $("$NODE" -p "require('$HERE/node_modules/oidc-provider/package.json').version"), MCP TypeScript SDK $("$NODE" -p "require('$HERE/node_modules/@modelcontextprotocol/sdk/package.json').version"), MCP Python SDK $("$MCP_PY" -c 'import importlib.metadata as m; print(m.version("mcp"))'), node $("$NODE" --version)"
"$NODE" --test --test-reporter=spec "$@" "$HERE/test_oauth.mjs"
