#!/usr/bin/env bash
# Benchmark of the durable audit (issue 11; opt-in, not a test).
#   benches/audit/run.sh [CHATS_PER_SESSION]     (default 1000; 16 sessions)
#
# 1. builds pg_mcp in release (`cargo pgrx package`) and mock_llm, installs pg_mcp into the
#    PostgreSQL of $PG_CONFIG (a slot's copy when scripts/slot.sh is in effect);
# 2. a private cluster with pg_mcp preloaded (PG_MCP_AUDIT_BENCH_DIR / _PORT), database with
#    benches/chat_sql/setup.sql; mock_llm on loopback, zero latency, recording every request;
# 3. per-chat cost, one client, the same run for every mode: `SELECT 1` (the protocol floor),
#    then mcp.chat (1 turn, plain answer) with audit in the caller's transaction
#    (mcp.audit_durable = off), through the worker synchronously, and asynchronously; and the
#    time the backend spent in the HTTP request to the mock (mcp.recent_runs.llm_latency_ms,
#    the mock's floor as the backend sees it);
# 4. 16 sessions x CHATS_PER_SESSION chats (pgbench -c 16 -t N) through the worker, synchronous
#    and asynchronous: every request the mock received must have its mcp.llm_request row and
#    its completed mcp.run row (counted after the queue drained).
set -euo pipefail
LOG_TAG=bench-audit
. "$(dirname "$0")/../../scripts/lib.sh"
CHATS="${1:-1000}"
CLIENTS="${CLIENTS:-16}"
THREADS="${THREADS:-2}"
SECONDS_SINGLE="${SECONDS_SINGLE:-10}"
DIR="${PG_MCP_AUDIT_BENCH_DIR:-/var/tmp/pg_mcp_audit_bench/pgdata}"
PORT="${PG_MCP_AUDIT_BENCH_PORT:-$(( ${PG_MCP_REGRESS_PORT:-55433} + 5 ))}"
DB=pg_mcp_audit_bench
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"

log "building pg_mcp (release, cargo pgrx package) and mock_llm (release)"
(cd "$ROOT" && cargo pgrx package --pg-config "$PG_CONFIG" >/dev/null)
(cd "$ROOT" && cargo build -q --release -p mock_llm --bin mock_llm)
PKG="$TARGET/release/pg_mcp-pg${PG_MAJOR}"
as_root cp "$PKG$(${PG_CONFIG} --pkglibdir)/pg_mcp.so" "$(${PG_CONFIG} --pkglibdir)/pg_mcp.so"
as_root cp "$PKG$(${PG_CONFIG} --sharedir)/extension/"pg_mcp* "$(${PG_CONFIG} --sharedir)/extension/"

work="$(mktemp -d)"
chmod 755 "$work"
"$TARGET/release/mock_llm" --listen 127.0.0.1:0 --scenarios "$ROOT/benches/chat_sql/scenarios" \
    --port-file "$work/port" --max-recorded $(( CLIENTS * CHATS * 2 + 100 )) >"$work/mock.out" 2>&1 &
mock_pid=$!
cleanup() {
  kill "$mock_pid" 2>/dev/null || true
  wait "$mock_pid" 2>/dev/null || true
  stop_cluster "$DIR"
  rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
mock_port="$(cat "$work/port")"

stop_cluster "$DIR"   # a fresh start with the new library
start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
psql_at "$PORT" "$DB" -v mock="http://127.0.0.1:$mock_port" -f "$ROOT/benches/chat_sql/setup.sql" >/dev/null
# The model name of setup.sql would make every new backend build BPE tables: irrelevant here.
psql_at "$PORT" "$DB" -c "UPDATE mcp.provider SET model = 'mock-model'" >/dev/null

mock_count() { # requests the mock received (all scenarios)
  local out
  exec 3<>"/dev/tcp/127.0.0.1/$mock_port"
  printf 'GET /_mock/requests HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&3
  out="$(cat <&3)"
  exec 3>&-
  { grep -o '"scenario":"plain"' <<<"$out" || true; } | wc -l
}
mock_clear() {
  exec 3<>"/dev/tcp/127.0.0.1/$mock_port"
  printf 'DELETE /_mock/requests HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&3
  cat <&3 >/dev/null
  exec 3>&-
}
q() { psql_at "$PORT" "$DB" -At -c "$1"; }
truncate_audit() { q "TRUNCATE mcp.run, mcp.llm_request, mcp.tool_call, mcp.message" >/dev/null; }
drained() { # until every queue is empty
  for _ in $(seq 600); do
    [ "$(q "SELECT coalesce(sum((x->>'queued_bytes')::bigint), 0) FROM jsonb_array_elements(mcp.audit_status()->'queues') x")" = 0 ] && return 0
    sleep 0.1
  done
  log "the audit queue did not drain"; return 1
}
# pgbench OPTIONS SCRIPT CLIENTS ARGS... -> "latency_ms tps"
bench() {
  local opts="$1" script="$2" clients="$3"; shift 3
  local out
  out="$(cd "$work" && PGOPTIONS="$opts" "$PG_BIN/pgbench" -n -h 127.0.0.1 -p "$PORT" -U postgres \
           -f "$ROOT/benches/chat_sql/$script" -c "$clients" -j "$(( clients < THREADS ? clients : THREADS ))" "$@" "$DB" 2>&1)" \
    || { echo "$out" >&2; return 1; }
  echo "$(awk '/^latency average/ {print $4}' <<<"$out") $(awk '/^tps/ {print $3; exit}' <<<"$out")"
}
LOCAL="-c mcp.audit_durable=off"
SYNC="-c mcp.audit_durable=on -c mcp.audit_synchronous=on"
ASYNC="-c mcp.audit_durable=on -c mcp.audit_synchronous=off"
http_ms() { q "SELECT round(avg(llm_latency_ms), 3) FROM mcp.recent_runs"; }

log "single client, ${SECONDS_SINGLE} s per mode (load before: $(cut -d' ' -f1-3 /proc/loadavg))"
read -r base_lat _ < <(bench "$LOCAL" select1.sql 1 -T "$SECONDS_SINGLE")
truncate_audit
read -r local_lat _ < <(bench "$LOCAL" plain.sql 1 -T "$SECONDS_SINGLE"); local_http="$(http_ms)"; truncate_audit
read -r sync_lat _ < <(bench "$SYNC" plain.sql 1 -T "$SECONDS_SINGLE"); drained; sync_http="$(http_ms)"; truncate_audit
read -r async_lat _ < <(bench "$ASYNC" plain.sql 1 -T "$SECONDS_SINGLE"); drained; async_http="$(http_ms)"; truncate_audit

count_check() { # count_check MODE OPTS -> "tps lost"
  mock_clear; truncate_audit
  local tps; read -r _ tps < <(bench "$2" plain.sql "$CLIENTS" -t "$CHATS")
  drained
  local sent rows runs
  sent="$(mock_count)"
  rows="$(q "SELECT count(*) FROM mcp.llm_request")"
  runs="$(q "SELECT count(*) FROM mcp.run WHERE status = 'completed'")"
  log "$1: $CLIENTS x $CHATS chats: mock received $sent requests; mcp.llm_request has $rows rows, mcp.run $runs completed runs" >&2
  echo "$tps $(( sent - rows )) $(( sent - runs )) $sent"
}
log "$CLIENTS sessions x $CHATS chats, synchronous and asynchronous"
read -r sync_tps sync_lost_req sync_lost_run sync_sent < <(count_check synchronous "$SYNC")
read -r async_tps async_lost_req async_lost_run async_sent < <(count_check asynchronous "$ASYNC")
read -r _ local_tps < <(bench "$LOCAL" plain.sql "$CLIENTS" -t "$CHATS")

calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }
echo
echo "## Durable audit: cost per chat and rows lost (release build, $(nproc) cores, 1-turn chat, zero-latency mock)"
echo
echo "| | audit in the caller's transaction | worker, synchronous | worker, asynchronous |"
echo "|---|---:|---:|---:|"
echo "| chat latency, 1 client (\`SELECT 1\`: ${base_lat} ms) | ${local_lat} ms | ${sync_lat} ms | ${async_lat} ms |"
echo "| of it: HTTP to the mock, inside the backend (the mock's floor) | ${local_http} ms | ${sync_http} ms | ${async_http} ms |"
echo "| **overhead over the floor** = latency − \`SELECT 1\` − HTTP | **$(calc "$local_lat - $base_lat - $local_http") ms** | **$(calc "$sync_lat - $base_lat - $sync_http") ms** | **$(calc "$async_lat - $base_lat - $async_http") ms** |"
echo "| ${CLIENTS} sessions × ${CHATS} chats, chats/s | ${local_tps} | ${sync_tps} | ${async_tps} |"
echo "| requests at the mock without their mcp.llm_request row / completed mcp.run row | (not durable) | ${sync_lost_req} / ${sync_lost_run} of ${sync_sent} | ${async_lost_req} / ${async_lost_run} of ${async_sent} |"
log "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
