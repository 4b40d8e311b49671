#!/usr/bin/env bash
# Asynchronous runs against synchronous mcp.chat, side by side in one run (opt-in; not a test).
#   benches/async_runs/run.sh [N]          (default N = 200 chats per mode)
#
# The mock LLM answers each request after 2 s; every chat makes two LLM requests (a tool call,
# then the answer): one chat takes ~4 s of model time. Both modes get the same N chats through
# the same 16 client connections (CONNECTIONS):
#   sync   16 psql sessions, each runs N/16 `SELECT mcp.chat(...)` one after another;
#   async  16 psql sessions, each submits N/16 `mcp.chat_submit(...)` and disconnects; the time
#          runs until the last run is done (a poll of mcp.async_run every 100 ms).
# Reported per mode: wall time, chats/s, peak backends (client backends + chat workers, sampled
# every 100 ms) and memory per in-flight run (private memory of a process running one chat:
# smaps_rollup Private_Clean + Private_Dirty of the chat workers / of the sync backends,
# sampled mid-run). Uses the installed build (scripts/lib.sh install_extension; a debug build
# unless PG_MCP_RELEASE=1 built it) and the slot's bench cluster (PG_MCP_BENCH_DIR / _PORT)
# with mcp.chat_workers = WORKERS (default 16).
set -euo pipefail
LOG_TAG=async-bench
. "$(dirname "$0")/../../scripts/lib.sh"
HERE="$ROOT/benches/async_runs"
N="${1:-200}"
CONNECTIONS="${CONNECTIONS:-16}"
WORKERS="${WORKERS:-16}"
DIR="${PG_MCP_BENCH_DIR:-/var/tmp/pg_mcp_bench/pgdata}"
PORT="${PG_MCP_BENCH_PORT:-55434}"
DB=pg_mcp_async_bench
PER=$(( N / CONNECTIONS ))
N=$(( PER * CONNECTIONS ))

work="$(mktemp -d)"; chmod 755 "$work"
bg_pid=
. "$ROOT/tests/cancel/sessions.sh"   # now_ms, start_mock
# MOCK_LLM=path: a mock_llm binary built before (e.g. while another cargo command holds the
# target directory); else it is built here.
MOCK_BIN="${MOCK_LLM:-${CARGO_TARGET_DIR:-$ROOT/target}/debug/mock_llm}"
[ -n "${MOCK_LLM:-}" ] || (cd "$ROOT" && cargo build -q -p mock_llm --bin mock_llm)
"$MOCK_BIN" --listen 127.0.0.1:0 --scenarios "$HERE/scenarios" \
   --port-file "$work/port" --max-recorded 0 --max-connections 2048 >"$work/mock.out" 2>&1 &
mock_pid=$!
sampler=
cleanup() { [ -n "$sampler" ] && kill "$sampler" 2>/dev/null; kill "$mock_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
MOCK="http://127.0.0.1:$(cat "$work/port")"

start_cluster "$DIR" "$PORT"
conf_changed=
for kv in "mcp.chat_workers = $WORKERS" "max_worker_processes = $(( WORKERS + 16 ))" "max_connections = $(( CONNECTIONS + 40 ))"; do
  key="${kv%% =*}"
  # the last line of a setting wins: keep exactly one, this run's
  if [ "$(as_pg grep "^$key = " "$DIR/postgresql.conf" | tail -1)" != "$kv" ]; then
    as_pg sed -i "/^$key = /d" "$DIR/postgresql.conf"
    echo "$kv" | as_pg tee -a "$DIR/postgresql.conf" >/dev/null; conf_changed=1
  fi
done
[ -n "$conf_changed" ] && as_pg "$PG_BIN/pg_ctl" -D "$DIR" -l "$DIR/server.log" -m fast -w -t 60 restart >/dev/null
fresh_db "$PORT" "$DB"
psql_at "$PORT" "$DB" >/dev/null <<SQL
CREATE FUNCTION public.bench_lookup() RETURNS text LANGUAGE sql STABLE AS \$\$ SELECT 'item 7: in stock' \$\$;
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('benchLookup', 'Looks up the item', '{"type":"object","properties":{}}', 'public.bench_lookup()');
INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('bench', 'openai', '$MOCK/s/bench/v1', 'mock-model');
INSERT INTO mcp.interface (name, provider, access_role) VALUES ('bench', 'bench', 'public');
INSERT INTO mcp.interface_tool VALUES ('bench', 'benchLookup');
SQL
q() { psql_at "$PORT" "$DB" -At -c "$1"; }
one="$(q "SELECT mcp.chat('check', 'bench') ->> 'status'")"
[ "$one" = completed ] || { log "FAIL: the check chat ended $one"; exit 1; }
one_ms="$(q "SELECT round(extract(epoch FROM finished_at - started_at) * 1000) FROM mcp.run ORDER BY started_at DESC LIMIT 1")"

# sample PIDS_SQL: peak process count and the private memory (kB) of the busy ones, into $work/$1.*
sample() { # sample NAME BUSY_SQL
  : >"$work/$1.counts"; : >"$work/$1.mem"
  while :; do
    q "SELECT count(*) FROM pg_stat_activity WHERE backend_type IN ('client backend', 'pg_mcp chat worker')" >>"$work/$1.counts" 2>/dev/null || true
    for pid in $(q "$2" 2>/dev/null); do
      as_root awk '/^Private_(Clean|Dirty)/ {s += $2} END {print s}' "/proc/$pid/smaps_rollup" 2>/dev/null >>"$work/$1.mem" || true
    done
    sleep 0.1
  done
}
peak() { sort -n "$work/$1.counts" | tail -1; }
mem() { sort -n "$work/$1.mem" | awk '{a[NR] = $1} END {if (NR) print a[int((NR + 1) / 2)]; else print "-"}'; }  # median kB

# sync: 16 sessions, PER chats each
for c in $(seq "$CONNECTIONS"); do
  for i in $(seq "$PER"); do echo "SELECT mcp.chat('sync $c.$i', 'bench') ->> 'status';"; done >"$work/sync.$c.sql"
done
sample sync "SELECT pid FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'SELECT mcp.chat(%'" & sampler=$!
log "sync: $N chats through $CONNECTIONS connections (load before: $(cut -d' ' -f1-3 /proc/loadavg))"
t0="$(now_ms)"
for c in $(seq "$CONNECTIONS"); do "$PG_BIN/psql" -X -q -At -h 127.0.0.1 -p "$PORT" -U postgres -d "$DB" -f "$work/sync.$c.sql" >"$work/sync.$c.out" 2>&1 & done
wait $(jobs -p | grep -v "^$sampler\$" | grep -v "^$mock_pid\$") 2>/dev/null || true
sync_ms=$(( $(now_ms) - t0 ))
kill "$sampler"; wait "$sampler" 2>/dev/null || true; sampler=
sync_ok="$(cat "$work"/sync.*.out | grep -c '^completed$' || true)"

# async: 16 sessions submit PER each and disconnect; then wait for the last
for c in $(seq "$CONNECTIONS"); do
  for i in $(seq "$PER"); do echo "SELECT mcp.chat_submit('async $c.$i', 'bench');"; done >"$work/async.$c.sql"
done
sample async "SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_mcp chat worker'" & sampler=$!
log "async: $N chats submitted through $CONNECTIONS connections, $WORKERS chat workers"
t0="$(now_ms)"
# (the caps, 100 per role by default, would refuse most of them: one role submits them all)
for c in $(seq "$CONNECTIONS"); do PGOPTIONS="-c mcp.chat_queue_max_per_role=1000000 -c mcp.chat_queue_max=1000000" \
  "$PG_BIN/psql" -X -q -At -h 127.0.0.1 -p "$PORT" -U postgres -d "$DB" -v ON_ERROR_STOP=1 -f "$work/async.$c.sql" >"$work/async.$c.out" 2>&1 & done
for c in $(jobs -p); do [ "$c" = "$sampler" ] || [ "$c" = "$mock_pid" ] || wait "$c" || { log "FAIL: a submit session failed"; cat "$work"/async.*.out | grep -v '^[0-9a-f-]*$' | head; exit 1; }; done
submit_ms=$(( $(now_ms) - t0 ))
until [ "$(q "SELECT count(*) FROM mcp.async_run WHERE question LIKE 'async %' AND status IN ('queued', 'running')")" = 0 ]; do sleep 0.1; done
async_ms=$(( $(now_ms) - t0 ))
kill "$sampler"; wait "$sampler" 2>/dev/null || true; sampler=
async_ok="$(q "SELECT count(*) FROM mcp.async_run WHERE question LIKE 'async %' AND result ->> 'status' = 'completed'")"

calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }
echo
echo "## Asynchronous runs vs mcp.chat ($N chats, $CONNECTIONS connections, $WORKERS chat workers, mock latency 2 s x 2 requests, $(nproc) cores)"
echo
echo "One chat alone: ${one_ms} ms."
echo
echo "| mode | completed | wall time | chats/s | peak backends (clients + chat workers) | private memory per in-flight run (median) |"
echo "|---|---:|---:|---:|---:|---:|"
echo "| sync \`mcp.chat\` | $sync_ok / $N | $(calc "$sync_ms / 1000") s | $(calc "$N * 1000 / $sync_ms") | $(peak sync) | $(mem sync) kB |"
echo "| async \`mcp.chat_submit\` (all submitted after $(calc "$submit_ms / 1000") s) | $async_ok / $N | $(calc "$async_ms / 1000") s | $(calc "$N * 1000 / $async_ms") | $(peak async) | $(mem async) kB |"
log "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
