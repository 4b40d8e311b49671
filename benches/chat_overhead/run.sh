#!/usr/bin/env bash
# Per-chat overhead of mcp.chat, side by side with a Python loop doing the same work
# (opt-in; not a test).
#
#   benches/chat_overhead/run.sh [LABEL=PACKAGE_DIR ...]
#
# The chat: 2 LLM requests and 1 tool call (the model calls get_item once, then answers)
# against the zero-latency mock_llm on loopback. Its overhead is the chat's latency minus two
# raw HTTP round trips to the same mock (the chat's own two request bodies, posted over one
# keep-alive connection by a std-only Rust client: crates/mock_llm/examples/raw_roundtrip.rs,
# compiled here with plain rustc -O).
#
# 1. builds the tree in release (`cargo pgrx package`), mock_llm and the raw client; with
#    LABEL=PACKAGE_DIR arguments it measures those packages instead (a `cargo pgrx package`
#    output directory, e.g. a copy of target/release/pg_mcp-pg15 of another commit), in turn,
#    ROUNDS times (default 2), all in one run;
# 2. a private cluster (PG_MCP_CHAT_BENCH_DIR / _PORT) with pg_mcp preloaded, database with
#    setup.sql;
# 3. per package and round: pgbench, 1 client, SECONDS (default 10) each: `SELECT 1`, the chat
#    with durable audit on (mcp.audit_durable = on, the default with the preload, synchronous)
#    and off (audit rows in the caller's transaction); then the raw round trips and the Python
#    loop (python_loop.py: OpenAI SDK + psycopg, one transaction for its audit rows, in the
#    venv scripts/setup.sh makes: PG_MCP_BENCH_VENV, default /var/cache/pg_mcp/bench-venv).
set -euo pipefail
LOG_TAG=bench-overhead
. "$(dirname "$0")/../../scripts/lib.sh"
HERE="$ROOT/benches/chat_overhead"
# (not $SECONDS: bash counts the seconds since the shell started in it, 0 here unless the
# caller exported a value)
SECONDS_EACH="${SECONDS_EACH:-10}"
ROUNDS="${ROUNDS:-2}"
DIR="${PG_MCP_CHAT_BENCH_DIR:-/var/tmp/pg_mcp_chat_bench/pgdata}"
PORT="${PG_MCP_CHAT_BENCH_PORT:-55435}"
VENV="${PG_MCP_BENCH_VENV:-/var/cache/pg_mcp/bench-venv}"
DB=pg_mcp_overhead
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
if as_root test -f "$DIR/PG_VERSION" && ! as_root grep -q "^port = $PORT\$" "$DIR/postgresql.conf"; then
  log "$DIR is a cluster for another port; set PG_MCP_CHAT_BENCH_DIR / PG_MCP_CHAT_BENCH_PORT"
  exit 1
fi
[ -x "$VENV/bin/python" ] || { log "no Python venv at $VENV: run scripts/setup.sh"; exit 1; }

declare -a LABELS PKGS
if [ $# -eq 0 ]; then
  log "building pg_mcp (release, cargo pgrx package)"
  (cd "$ROOT" && cargo pgrx package --pg-config "$PG_CONFIG" >/dev/null)
  LABELS=(this); PKGS=("$TARGET/release/pg_mcp-pg${PG_MAJOR}")
else
  for a in "$@"; do LABELS+=("${a%%=*}"); PKGS+=("${a#*=}"); done
fi
log "building mock_llm and the raw client (release)"
(cd "$ROOT" && cargo build -q --release -p mock_llm --bin mock_llm)

work="$(mktemp -d)"
chmod 755 "$work"
rustc -O --edition 2021 -o "$work/raw_roundtrip" "$ROOT/crates/mock_llm/examples/raw_roundtrip.rs"
"$TARGET/release/mock_llm" --listen 127.0.0.1:0 --scenarios "$HERE/scenarios" --port-file "$work/port" \
    --max-recorded 0 >"$work/mock.out" 2>&1 &
mock_pid=$!
cleanup() {
  kill "$mock_pid" 2>/dev/null || true
  wait "$mock_pid" 2>/dev/null || true
  stop_cluster "$DIR"
  rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
MOCK="http://127.0.0.1:$(cat "$work/port")"

# install PACKAGE_DIR: the package's library and extension files into the cluster's PostgreSQL
# (renamed first: a preloaded library is mapped by the running server).
install_pkg() {
  local lib; lib="$(${PG_CONFIG} --pkglibdir)/pg_mcp.so"
  as_root mv -f "$lib" "$lib.old" 2>/dev/null || true
  as_root cp "$1$(${PG_CONFIG} --pkglibdir)/pg_mcp.so" "$lib"
  as_root rm -f "$lib.old"
  as_root cp "$1$(${PG_CONFIG} --sharedir)/extension/"pg_mcp* "$(${PG_CONFIG} --sharedir)/extension/"
}
q() { psql_at "$PORT" "$DB" -At -c "$1"; }
# pgbench PGOPTIONS SCRIPT -> mean latency in ms, from pgbench's per-transaction log without
# the first 5 transactions (the first chat of a backend builds its tokenizer's tables).
bench() {
  local out
  rm -f "$work"/pgbench_log.*
  out="$(cd "$work" && PGOPTIONS="$1" "$PG_BIN/pgbench" -n -h 127.0.0.1 -p "$PORT" -U postgres \
           -f "$HERE/$2" -c 1 -j 1 -T "$SECONDS_EACH" -l "$DB" 2>&1)" || { echo "$out" >&2; return 1; }
  awk 'NR > 5 { s += $3; n++ } END { if (n == 0) exit 1; printf "%.3f\n", s / n / 1000 }' "$work"/pgbench_log.*
}
ON="-c mcp.audit_durable=on -c mcp.audit_synchronous=on"
OFF="-c mcp.audit_durable=off"

stop_cluster "$DIR"
declare -A RES
for round in $(seq "$ROUNDS"); do
  for i in "${!LABELS[@]}"; do
    label="${LABELS[$i]}"
    log "round $round: $label (load $(cut -d' ' -f1-3 /proc/loadavg))"
    install_pkg "${PKGS[$i]}"
    stop_cluster "$DIR"
    start_cluster "$DIR" "$PORT"
    fresh_db "$PORT" "$DB" >/dev/null
    psql_at "$PORT" "$DB" -v mock="$MOCK" -f "$HERE/setup.sql" >/dev/null
    st="$(q "SELECT mcp.chat('What do we know about item 7?', 'one') ->> 'status'")"
    [ "$st" = completed ] || { log "check chat: status $st"; exit 1; }
    q "SELECT count(*) FROM mcp.llm_request" | grep -qx 2 || { log "check chat: not 2 LLM requests"; exit 1; }
    q "SELECT count(*) FROM mcp.tool_call WHERE status = 'ok'" | grep -qx 1 || { log "check chat: not 1 tool call"; exit 1; }
    if [ "$round" = 1 ] && [ "$i" = 0 ]; then
      q "SELECT request_body::text FROM mcp.llm_request ORDER BY iteration LIMIT 1" >"$work/body1.json"
      q "SELECT request_body::text FROM mcp.llm_request ORDER BY iteration OFFSET 1 LIMIT 1" >"$work/body2.json"
    fi
    RES[$label,$round,select1]="$(bench "$OFF" select1.sql)"
    RES[$label,$round,on]="$(bench "$ON" chat.sql)"
    RES[$label,$round,off]="$(bench "$OFF" chat.sql)"
    log "  SELECT 1 ${RES[$label,$round,select1]} ms, chat audit on ${RES[$label,$round,on]} ms, off ${RES[$label,$round,off]} ms"
  done
  RES[raw,$round]="$("$work/raw_roundtrip" "$MOCK/s/one_call/v1/chat/completions" \
                      "$work/body1.json" "$work/body2.json" --pairs 3000)"
  RES[py,$round]="$("$VENV/bin/python" "$HERE/python_loop.py" "$MOCK/s/one_call/v1" \
                     "host=127.0.0.1 port=$PORT user=postgres dbname=$DB" "$SECONDS_EACH")"
  log "  two raw round trips ${RES[raw,$round]} µs, Python loop ${RES[py,$round]} ms"
done

calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }
echo
echo "## Per-chat overhead (2 LLM requests, 1 tool call; release build, zero-latency mock_llm, $(nproc) cores)"
echo
echo "| round | build | \`SELECT 1\` ms | two raw round trips ms | chat, audit on ms | **overhead, audit on** ms | chat, audit off ms | **overhead, audit off** ms |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for round in $(seq "$ROUNDS"); do
  raw="$(calc "${RES[raw,$round]} / 1000")"
  for label in "${LABELS[@]}"; do
    on="${RES[$label,$round,on]}"; off="${RES[$label,$round,off]}"
    echo "| $round | $label | ${RES[$label,$round,select1]} | $raw | $on | **$(calc "$on - $raw")** | $off | **$(calc "$off - $raw")** |"
  done
  py="${RES[py,$round]}"
  echo "| $round | Python loop (OpenAI SDK + psycopg) | | $raw | $py | **$(calc "$py - $raw")** | | |"
done
log "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
