#!/usr/bin/env bash
# Peak memory (RSS high-water mark, VmHWM of /proc/<backend pid>/status) of one backend that
# runs a wide query directly, against one that runs the same query through the sql_query tool,
# in the same run on a private cluster. Each case gets a fresh backend; "peak" is VmHWM after
# the statement, "base" is VmHWM of the idle backend before it (shared memory the backend had
# touched already counts in both). Not a test: prints a table; numbers depend on the machine.
#   bash benches/sql_tool_memory/run.sh                    # 40 rows of 50 MB
#   ROWS=10 VALUE_MB=20 bash benches/sql_tool_memory/run.sh
#   PG_MCP_SKIP_INSTALL=1 bash benches/sql_tool_memory/run.sh   # measure the installed build
set -euo pipefail
LOG_TAG=bench-memory
. "$(dirname "$0")/../../scripts/lib.sh"

DIR="${PG_MCP_BENCH_DIR:-/var/tmp/pg_mcp_bench/pgdata}"
PORT="${PG_MCP_BENCH_PORT:-55434}"
ROWS="${ROWS:-40}"
VALUE_BYTES=$(( ${VALUE_MB:-50} * 1000000 ))
DB=pg_mcp_bench_memory

[ "${PG_MCP_SKIP_INSTALL:-0}" = 1 ] || install_extension
start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
psql_at "$PORT" "$DB" <<'SQL'
SET client_min_messages = warning;
DROP ROLE IF EXISTS bench_reader;
CREATE ROLE bench_reader LOGIN;
INSERT INTO mcp.interface (name) VALUES ('bench');
INSERT INTO mcp.interface_tool VALUES ('bench', 'sql_query');
SQL

work="$(mktemp -d)"; chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
QUERY="select repeat('x', $VALUE_BYTES) from generate_series(1, $ROWS)"

vmhwm_kb() { awk '/^VmHWM/ {print $2}' "/proc/$1/status"; }

# measure LABEL SQL: run SQL in a fresh backend (as bench_reader), print one table row.
measure() {
  local label="$1" sql="$2" pid base peak t0 t1
  # query results go to /dev/null (-o); \echo markers to the log
  printf '%s\n' "SELECT pg_backend_pid() AS pid \\gset" "\\echo pid=:pid" "SELECT pg_sleep(0.3);" \
      "$sql" "\\echo done" "SELECT pg_sleep(2);" > "$work/q.sql"
  "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U bench_reader -d "$DB" \
      -o /dev/null -f "$work/q.sql" >"$work/q.log" 2>&1 &
  local client=$!
  for _ in $(seq 200); do grep -q '^pid=' "$work/q.log" 2>/dev/null && break; sleep 0.05; done
  pid="$(sed -n 's/^pid=//p' "$work/q.log" | head -1)"
  [ -n "$pid" ] || { log "no backend pid for $label"; cat "$work/q.log"; exit 1; }
  base="$(vmhwm_kb "$pid")"
  t0=$(date +%s%N)
  for _ in $(seq 6000); do grep -q '^done' "$work/q.log" 2>/dev/null && break; sleep 0.05; done
  t1=$(date +%s%N)
  peak="$(vmhwm_kb "$pid")"
  wait "$client" || { log "$label failed"; cat "$work/q.log"; exit 1; }
  awk -v l="$label" -v b="$base" -v p="$peak" -v ms="$(( (t1 - t0) / 1000000 ))" \
    'BEGIN { printf "| %s | %.0f | %.0f | %.0f | %d |\n", l, b / 1024, p / 1024, (p - b) / 1024, ms }'
}

tool_sql="SELECT length(mcp.call_tool('sql_query', jsonb_build_object('query', \$q\$$QUERY\$q\$), 'bench')::text);"
echo
echo "$ROWS rows of $(( VALUE_BYTES / 1000000 )) MB: \`$QUERY\`"
echo
echo "| case | base MB | peak MB (VmHWM) | growth MB | ms |"
echo "|---|---:|---:|---:|---:|"
measure "direct SELECT (psql discards the rows)" "$QUERY;"
measure "direct COPY … TO STDOUT (streamed to /dev/null)" "\\copy ($QUERY) to '/dev/null'"
measure "mcp.call_tool('sql_query', …) (25 rows shown)" "$tool_sql"
measure "mcp.call_tool('sql_query', …) with max_rows 500" \
  "SELECT length(mcp.call_tool('sql_query', jsonb_build_object('query', \$q\$$QUERY\$q\$, 'max_rows', 500), 'bench')::text);"
psql_at "$PORT" postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null
