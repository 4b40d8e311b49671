#!/usr/bin/env bash
# The main job: set up, build and install pg_mcp, start a local demo cluster with demo data,
# load the demo registry and show what it can do. Safe to run again.
set -euo pipefail
LOG_TAG=demo
. "$(dirname "$0")/lib.sh"

DEMO_DIR="${PG_MCP_DEMO_DIR:-/var/tmp/pg_mcp_demo/pgdata}"
DEMO_PORT="${PG_MCP_DEMO_PORT:-55432}"
DB=pg_mcp_demo

bash "$ROOT/scripts/setup.sh"
install_extension
start_cluster "$DEMO_DIR" "$DEMO_PORT"
log "demo cluster running on 127.0.0.1:$DEMO_PORT (data in $DEMO_DIR)"
fresh_db "$DEMO_PORT" "$DB"
psql_at "$DEMO_PORT" "$DB" -f "$ROOT/demo/demo.sql"
# The demo thesaurus (16 Länder, industries, topics) and the execution plans
psql_at "$DEMO_PORT" "$DB" -v thesaurus="$(cat "$ROOT/demo/thesaurus.json")" \
    <<<"SELECT mcp.load_thesaurus(:'thesaurus') AS thesaurus_loaded;"
psql_at "$DEMO_PORT" "$DB" -f "$ROOT/demo/plans.sql"
psql_at "$DEMO_PORT" "$DB" -f "$ROOT/demo/show.sql"
psql_at "$DEMO_PORT" "$DB" -f "$ROOT/demo/retrieval.sql"
psql_at "$DEMO_PORT" "$DB" -f "$ROOT/demo/retrieval_show.sql"
log "connect with: psql -h 127.0.0.1 -p $DEMO_PORT -U postgres $DB"
log "stop with:    sudo -u postgres $PG_BIN/pg_ctl -D $DEMO_DIR stop"
