#!/usr/bin/env bash
# Benchmark of mcp.chat() through PostgreSQL (opt-in; not a test).
#   benches/chat_sql/run.sh [SECONDS]        (default 30 for the concurrent run)
#
# 1. builds the extension in release (`cargo pgrx package`) and the mock_llm binary, and installs
#    the extension into the system PostgreSQL (it replaces whatever pg_mcp build is installed);
# 2. starts mock_llm on loopback (zero latency, request recording off) and a private cluster
#    (PG_MCP_CHAT_BENCH_DIR, default /var/tmp/pg_mcp_chat_bench/pgdata, port
#    PG_MCP_CHAT_BENCH_PORT, default 55435) with database pg_mcp_bench and setup.sql;
# 3. runs pgbench with custom scripts, one client for latency, then 16 clients on 2 threads:
#      select1.sql  SELECT 1                                    the nothing-to-do baseline
#      plain.sql    mcp.chat, 1 turn: the model answers at once
#      chat3.sql    mcp.chat, 2 turns: 3 parallel tool calls, then the answer
# 4. prints the figures, the audit breakdown from mcp.recent_runs, stops cluster and mock.
set -euo pipefail
LOG_TAG=bench
. "$(dirname "$0")/../../scripts/lib.sh"
HERE="$ROOT/benches/chat_sql"
SECONDS_CONCURRENT="${1:-30}"
SECONDS_SINGLE="${SECONDS_SINGLE:-10}"
CLIENTS="${CLIENTS:-16}"
THREADS="${THREADS:-2}"
DIR="${PG_MCP_CHAT_BENCH_DIR:-/var/tmp/pg_mcp_chat_bench/pgdata}"
PORT="${PG_MCP_CHAT_BENCH_PORT:-55435}"
DB=pg_mcp_bench
# A data directory set up for another port belongs to somebody else: leave it alone.
if as_root test -f "$DIR/PG_VERSION" && ! as_root grep -q "^port = $PORT\$" "$DIR/postgresql.conf"; then
  log "$DIR is a cluster for another port; set PG_MCP_CHAT_BENCH_DIR / PG_MCP_CHAT_BENCH_PORT"
  exit 1
fi
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"

log "building pg_mcp (release, cargo pgrx package) and mock_llm (release)"
(cd "$ROOT" && cargo pgrx package --pg-config "$PG_CONFIG" >/dev/null)
(cd "$ROOT" && cargo build -q --release -p mock_llm --bin mock_llm)
PKG="$TARGET/release/pg_mcp-pg${PG_MAJOR}"
log "installing the release build into $(${PG_CONFIG} --pkglibdir)"
as_root cp "$PKG$(${PG_CONFIG} --pkglibdir)/pg_mcp.so" "$(${PG_CONFIG} --pkglibdir)/pg_mcp.so"
as_root cp "$PKG$(${PG_CONFIG} --sharedir)/extension/"pg_mcp* "$(${PG_CONFIG} --sharedir)/extension/"

work="$(mktemp -d)"
chmod 755 "$work"
"$TARGET/release/mock_llm" --listen 127.0.0.1:0 --scenarios "$HERE/scenarios" --port-file "$work/port" \
    --max-recorded 0 >"$work/mock.out" 2>&1 &
mock_pid=$!
started_cluster=
cleanup() {
  kill "$mock_pid" 2>/dev/null || true
  wait "$mock_pid" 2>/dev/null || true
  # Stop the cluster only when this run started it.
  [ -z "$started_cluster" ] || stop_cluster "$DIR"
  rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
MOCK="http://127.0.0.1:$(cat "$work/port")"

as_pg "$PG_BIN/pg_ctl" -D "$DIR" status >/dev/null 2>&1 || started_cluster=1
start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
psql_at "$PORT" "$DB" -v mock="$MOCK" -f "$HERE/setup.sql" >/dev/null
# Check that both chats complete, and what the first chat of a new backend costs (it builds the
# BPE tables of the model's tokenizer once per backend).
psql_at "$PORT" "$DB" -At -c "SELECT 'check: bench ' || (mcp.chat('What do we know about item 7?', 'bench') ->> 'status')" \
                          -c "SELECT 'check: bench ' || (mcp.chat('What do we know about item 7?', 'bench') ->> 'status')" \
                          -c "SELECT 'check: plain ' || (mcp.chat('Hello', 'plain') ->> 'status')"
read -r first_ms second_ms < <(psql_at "$PORT" "$DB" -At -F ' ' -c "
  SELECT (array_agg(wall_ms ORDER BY started_at))[1], (array_agg(wall_ms ORDER BY started_at))[2]
    FROM mcp.recent_runs WHERE interface = 'bench'")
psql_at "$PORT" "$DB" -c "TRUNCATE mcp.run, mcp.llm_request, mcp.tool_call, mcp.message"

# pgbench FILE CLIENTS THREADS SECONDS -> "latency_ms tps"
bench() {
  local out
  out="$(cd "$work" && "$PG_BIN/pgbench" -n -h 127.0.0.1 -p "$PORT" -U postgres -f "$HERE/$1" \
           -c "$2" -j "$3" -T "$4" "$DB" 2>&1)" || { echo "$out" >&2; return 1; }
  echo "$out" >"$work/$1.$2.log"
  local lat tps
  lat="$(awk '/^latency average/ {print $4}' <<<"$out")"
  tps="$(awk '/^tps/ {print $3; exit}' <<<"$out")"
  echo "$lat $tps"
}

log "single client, ${SECONDS_SINGLE} s each (load before: $(cut -d' ' -f1-3 /proc/loadavg))"
read -r base_lat base_tps < <(bench select1.sql 1 1 "$SECONDS_SINGLE")
read -r plain_lat plain_tps < <(bench plain.sql 1 1 "$SECONDS_SINGLE")
read -r chat_lat chat_tps < <(bench chat3.sql 1 1 "$SECONDS_SINGLE")
BREAKDOWN="
  SELECT interface, status, count(*) AS chats, round(avg(wall_ms), 3) AS wall,
         round(avg(llm_latency_ms), 3) AS llm_http, round(avg(tool_latency_ms), 3) AS tools,
         round(avg(orchestration_ms), 3) AS orchestration, round(avg(tool_calls), 1) AS tool_calls
    FROM mcp.recent_runs GROUP BY 1, 2 ORDER BY 1, 2"
single_breakdown="$(psql_at "$PORT" "$DB" -c "$BREAKDOWN")"
log "${CLIENTS} clients, ${THREADS} threads, ${SECONDS_CONCURRENT} s (load before: $(cut -d' ' -f1-3 /proc/loadavg))"
psql_at "$PORT" "$DB" -c "TRUNCATE mcp.run, mcp.llm_request, mcp.tool_call, mcp.message"
read -r conc_lat conc_tps < <(bench chat3.sql "$CLIENTS" "$THREADS" "$SECONDS_CONCURRENT")

calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }
per_turn="$(calc "($chat_lat - $base_lat) / 2")"
tool_turn="$(calc "$chat_lat - $plain_lat")"
plain_over="$(calc "$plain_lat - $base_lat")"

echo
echo "## mcp.chat through PostgreSQL (release build, zero-latency mock_llm on loopback, $(nproc) cores)"
echo
echo "| measurement | result |"
echo "|---|---:|"
echo "| baseline: \`SELECT 1\`, 1 client, latency | ${base_lat} ms |"
echo "| chat, 1 turn without tools, 1 client, latency | ${plain_lat} ms |"
echo "| chat, 2 turns (3 tool calls, then the answer), 1 client, latency | ${chat_lat} ms |"
echo "| **orchestration overhead per turn** = (chat − baseline) / 2 | **${per_turn} ms** |"
echo "| the turn with 3 tool calls alone = chat − 1-turn chat | ${tool_turn} ms |"
echo "| a 1-turn chat over the baseline | ${plain_over} ms |"
echo "| **${CLIENTS} concurrent sessions** (-c ${CLIENTS} -j ${THREADS}, ${SECONDS_CONCURRENT} s), chats/s | **${conc_tps}** |"
echo "| ${CLIENTS} concurrent sessions, latency per chat | ${conc_lat} ms |"
echo "| first chat of a new backend (tokenizer tables built) vs the second, inside mcp.chat | ${first_ms} ms vs ${second_ms} ms |"
echo
echo "Where the time went inside mcp.chat (mcp.recent_runs, ms per chat; llm_http = the HTTP"
echo "requests to the mock, tools = tool execution (lookup, validation, call, shaping), orchestration = the rest):"
echo
echo "single client:"
echo "$single_breakdown"
echo "${CLIENTS} concurrent sessions:"
psql_at "$PORT" "$DB" -c "$BREAKDOWN"
log "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
