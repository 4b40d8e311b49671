#!/usr/bin/env bash
# Installing a new pg_mcp.so while a server that preloads it runs (the README's test command
# while the demo cluster is up). The server maps the library; installing must write a new file
# (rename), never overwrite the mapped one. Checks: a session opened before the install still
# answers afterwards (same backend), pg_mcp's functions work in it, the postmaster keeps its
# children (no "terminated by signal" in the server log), and a new session loads the library.
set -euo pipefail
LOG_TAG=install
. "$(dirname "$0")/../../scripts/lib.sh"

DIR="${PG_MCP_INSTALL_DIR:-$(dirname "${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress/pgdata}")/install/pgdata}"
PORT="${PG_MCP_INSTALL_PORT:-$(( ${PG_MCP_REGRESS_PORT:-55433} + 7 ))}"
start_cluster "$DIR" "$PORT"
fresh_db "$PORT" pg_mcp_install
crashes0="$(crash_count "$DIR")"

work="$(mktemp -d)"; chmod 755 "$work"
fifo="$work/in"; mkfifo "$fifo"
"$PG_BIN/psql" -X -q -At -h 127.0.0.1 -p "$PORT" -U postgres -d pg_mcp_install <"$fifo" >"$work/out" 2>&1 &
psql_pid=$!
exec 7>"$fifo"
trap 'exec 7>&- 2>/dev/null || true; kill $psql_pid 2>/dev/null || true; rm -rf "$work"' EXIT
echo "SELECT 'before', pg_backend_pid(), mcp.repair_json('{\"a\": 1,}')::text;" >&7
for _ in $(seq 50); do grep -q '^before' "$work/out" && break; sleep 0.1; done
pid_before="$(grep '^before' "$work/out" | cut -d'|' -f2)"
[ -n "$pid_before" ] || { log "FAIL: the session before the install did not answer"; cat "$work/out"; exit 1; }

log "installing pg_mcp.so while the cluster (preloaded, pid $pid_before connected) runs"
install_extension

# the old session: same backend, the library (its old mapping) still works
echo "SELECT 'after', pg_backend_pid(), mcp.repair_json('[1, 2,]')::text;" >&7
for _ in $(seq 100); do grep -q '^after' "$work/out" && break; sleep 0.1; done
exec 7>&-
wait "$psql_pid" || true
pid_after="$(grep '^after' "$work/out" | cut -d'|' -f2 || true)"
fail=0
if [ "$pid_after" != "$pid_before" ]; then
  log "FAIL: the session opened before the install did not survive it"; sed 's/^/  | /' "$work/out"; fail=1
fi
crashes1="$(crash_count "$DIR")"
if [ "$crashes0" != "$crashes1" ]; then
  log "FAIL: a server process died of a signal during the install ($crashes0 -> $crashes1)"
  as_root grep -E 'terminated by signal' "$DIR/server.log" | tail -3; fail=1
fi
# a new session works too (the postmaster kept its mapping of the preloaded library)
psql_at "$PORT" pg_mcp_install -At -c "SELECT mcp.repair_json('{\"b\": 2,}')::text" | grep -q '"b": 2' \
  || { log "FAIL: a new session could not use pg_mcp"; fail=1; }
ls "$(${PG_CONFIG} --pkglibdir)"/pg_mcp.so.replaced.* >/dev/null 2>&1 && { log "FAIL: the renamed old library was left behind"; fail=1; }
stop_cluster "$DIR"
[ "$fail" = 0 ] && log "ok: the install left the running server intact (backend $pid_before survived)"
exit "$fail"
