#!/usr/bin/env bash
# Asynchronous runs against synchronous mcp.chat, side by side in one run (opt-in; not a test).
#   benches/async_runs/run.sh [N]          (default N = 1000 chats per mode)
#
# The mock LLM answers each request after 2 s; every chat makes two LLM requests (a tool call,
# then the answer): one chat takes ~4 s of model time. Every mode gets the same N chats through
# the same 16 client connections (CONNECTIONS), directly and through PgBouncer in transaction
# mode (16 server connections; skipped with PGBOUNCER=0):
#   sync   16 psql sessions, each runs N/16 `SELECT mcp.chat(...)` one after another;
#   async  16 psql sessions, each submits N/16 `mcp.chat_submit(...)` and disconnects; the time
#          runs until the last run is done (a poll of mcp.async_run every 100 ms).
# Reported per mode: wall time, chats/s, peak backends (client backends + chat workers, from
# pg_stat_activity every 100 ms), peak runs in flight, and memory per in-flight run: for async the
# slope of the chat workers' total PSS (smaps_rollup) against the runs in flight over the
# samples (what one more run in flight costs a worker), for sync the median private memory of a
# backend running one chat; for async also the CPU time (user + system) the chat workers used,
# per chat (less dependent on the machine's load than the wall time). SYNC=0 skips the
# synchronous modes (to compare two builds' asynchronous runs quickly). Uses the installed build (scripts/lib.sh install_extension; a debug
# build unless PG_MCP_RELEASE=1 built it) and the slot's bench cluster (PG_MCP_BENCH_DIR /
# _PORT) with mcp.chat_workers = WORKERS (default 4, the default) and mcp.chat_runs_per_worker =
# RUNS_PER_WORKER (default 256).
set -euo pipefail
LOG_TAG=async-bench
. "$(dirname "$0")/../../scripts/lib.sh"
HERE="$ROOT/benches/async_runs"
N="${1:-1000}"
CONNECTIONS="${CONNECTIONS:-16}"
WORKERS="${WORKERS:-4}"
RUNS_PER_WORKER="${RUNS_PER_WORKER:-256}"
PGBOUNCER="${PGBOUNCER:-1}"
SYNC="${SYNC:-1}"
PGB_PORT="${PGB_PORT:-$(( ${PG_MCP_BENCH_PORT:-55434} + 1000 ))}"
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
pgb_pid=
cleanup() {
  [ -n "$sampler" ] && kill "$sampler" 2>/dev/null
  [ -n "$pgb_pid" ] && as_root kill "$pgb_pid" 2>/dev/null
  kill "$mock_pid" 2>/dev/null || true; rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
MOCK="http://127.0.0.1:$(cat "$work/port")"

start_cluster "$DIR" "$PORT"
conf_changed=
for kv in "mcp.chat_workers = $WORKERS" "mcp.chat_runs_per_worker = $RUNS_PER_WORKER" "max_worker_processes = $(( WORKERS + 16 ))" "max_connections = $(( CONNECTIONS + 40 ))"; do
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

# sample NAME BUSY_SQL: every 100 ms the backends (clients + chat workers), the runs in flight,
# and the private memory (kB) of the busy processes and the chat workers' total PSS, into
# $work/NAME.*
sample() {
  : >"$work/$1.counts"; : >"$work/$1.mem"; : >"$work/$1.pss"; : >"$work/$1.cpu"
  local w0
  for w0 in $(q "SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_mcp chat worker'" 2>/dev/null); do
    echo "$w0 $(sed 's/^.*) //' "/proc/$w0/stat" 2>/dev/null | awk '{print $12 + $13}')"
  done >"$work/$1.cpu0"
  while :; do
    q "SELECT count(*) FROM pg_stat_activity WHERE backend_type IN ('client backend', 'pg_mcp chat worker')" >>"$work/$1.counts" 2>/dev/null || true
    for pid in $(q "$2" 2>/dev/null); do
      as_root awk '/^Private_(Clean|Dirty)/ {s += $2} END {print s}' "/proc/$pid/smaps_rollup" 2>/dev/null >>"$work/$1.mem" || true
    done
    local inflight pss=0 w
    inflight="$(q "SELECT count(*) FROM mcp.async_run WHERE status = 'running'" 2>/dev/null || echo 0)"
    for w in $(q "SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_mcp chat worker'" 2>/dev/null); do
      pss=$(( pss + $(as_root awk '/^Pss:/ {print $2}' "/proc/$w/smaps_rollup" 2>/dev/null || echo 0) ))
      # the worker's CPU time so far (clock ticks: utime + stime; the comm field has a space)
      echo "$w $(sed 's/^.*) //' "/proc/$w/stat" 2>/dev/null | awk '{print $12 + $13}')" >>"$work/$1.cpu"
    done
    echo "$inflight $pss" >>"$work/$1.pss"
    sleep 0.1
  done
}
peak() { sort -n "$work/$1.counts" | tail -1; }
mem() { sort -n "$work/$1.mem" | awk '{a[NR] = $1} END {if (NR) print a[int((NR + 1) / 2)] " kB"; else print "-"}'; }  # median kB
inflight_peak() { awk '{ if ($1 > m) m = $1 } END { print m + 0 }' "$work/$1.pss"; }
# the chat workers' total PSS at the peak of runs in flight, per run in flight (an upper bound:
# it includes each worker's own base)
pss_at_peak() { awk '{ if ($1 > m) { m = $1; p = $2 } } END { if (m > 0) printf "%.0f MB total, %.0f kB per run", p / 1024, p / m; else print "-" }' "$work/$1.pss"; }
# the chat workers' CPU time per chat in ms: per worker, its last sample, less what it had used
# when the mode started if it was up then (a worker idling out from the mode before); what a
# worker used after its last sample (at most 100 ms before it exits) is not seen
cpu_per_chat() {
  awk -v n="$2" -v hz="$(getconf CLK_TCK)" 'FILENAME == ARGV[1] { lo[$1] = $2; next }
       NF == 2 && $2 != "" { if ($2 > hi[$1]) hi[$1] = $2 }
       END { for (p in hi) t += hi[p] - lo[p]; printf "%.1f ms CPU per chat (%.1f s in all)", t * 1000 / hz / n, t / hz }' "$work/$1.cpu0" "$work/$1.cpu"
}
# least-squares slope of the workers' PSS (kB) against the runs in flight
per_run() {
  awk '$2 > 0 { n++; x += $1; y += $2; xx += $1 * $1; xy += $1 * $2 }
       END { d = n * xx - x * x; if (n > 2 && d > 0) printf "%.0f kB", (n * xy - x * y) / d; else print "-" }' "$work/$1.pss"
}

# PgBouncer in transaction mode in front of the same server (Debian's package, installed by
# scripts/setup.sh): 16 server connections for the clients
if [ "$PGBOUNCER" = 1 ]; then
  command -v pgbouncer >/dev/null || { log "FAIL: pgbouncer is not installed (scripts/setup.sh installs it)"; exit 1; }
  cat >"$work/pgbouncer.ini" <<INI
[databases]
$DB = host=127.0.0.1 port=$PORT dbname=$DB user=postgres
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PGB_PORT
unix_socket_dir =
auth_type = trust
auth_file = $work/userlist.txt
pool_mode = transaction
default_pool_size = $CONNECTIONS
max_client_conn = $(( CONNECTIONS * 4 ))
ignore_startup_parameters = extra_float_digits,options
logfile = $work/pgbouncer.log
pidfile = $work/pgbouncer.pid
INI
  echo '"postgres" ""' >"$work/userlist.txt"
  chmod 644 "$work/pgbouncer.ini" "$work/userlist.txt"; chmod 777 "$work"
  as_pg pgbouncer "$work/pgbouncer.ini" >/dev/null 2>&1 & 
  for _ in $(seq 100); do [ -s "$work/pgbouncer.pid" ] && break; sleep 0.1; done
  pgb_pid="$(cat "$work/pgbouncer.pid")"
fi

# run_sync NAME PORT: 16 sessions, PER chats each
run_sync() {
  local name="$1" port="$2" c i t0
  for c in $(seq "$CONNECTIONS"); do
    for i in $(seq "$PER"); do echo "SELECT mcp.chat('$name $c.$i', 'bench') ->> 'status';"; done >"$work/$name.$c.sql"
  done
  sample "$name" "SELECT pid FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'SELECT mcp.chat(%'" & sampler=$!
  log "$name: $N chats through $CONNECTIONS connections (port $port; load before: $(cut -d' ' -f1-3 /proc/loadavg))"
  t0="$(now_ms)"
  local pids=()
  for c in $(seq "$CONNECTIONS"); do
    "$PG_BIN/psql" -X -q -At -h 127.0.0.1 -p "$port" -U postgres -d "$DB" -f "$work/$name.$c.sql" >"$work/$name.$c.out" 2>&1 & pids+=($!)
  done
  wait "${pids[@]}" 2>/dev/null || true
  eval "${name}_ms=$(( $(now_ms) - t0 ))"
  kill "$sampler"; wait "$sampler" 2>/dev/null || true; sampler=
  eval "${name}_ok=$(cat "$work/$name".*.out | grep -c '^completed$' || true)"
}

# run_async NAME PORT: 16 sessions submit PER each and disconnect; then wait for the last
run_async() {
  local name="$1" port="$2" c i t0
  for c in $(seq "$CONNECTIONS"); do
    # (the caps, 100 per role by default, would refuse most of them: one role submits them all;
    # SET in the transaction of each submit: PgBouncer's transaction mode keeps no session)
    for i in $(seq "$PER"); do echo "BEGIN; SET LOCAL mcp.chat_queue_max_per_role = 1000000; SET LOCAL mcp.chat_queue_max = 1000000; SELECT mcp.chat_submit('$name $c.$i', 'bench'); COMMIT;"; done >"$work/$name.$c.sql"
  done
  sample "$name" "SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_mcp chat worker'" & sampler=$!
  log "$name: $N chats submitted through $CONNECTIONS connections (port $port), $WORKERS chat workers x $RUNS_PER_WORKER runs (load before: $(cut -d' ' -f1-3 /proc/loadavg))"
  t0="$(now_ms)"
  local pids=()
  for c in $(seq "$CONNECTIONS"); do
    "$PG_BIN/psql" -X -q -At -h 127.0.0.1 -p "$port" -U postgres -d "$DB" -v ON_ERROR_STOP=1 -f "$work/$name.$c.sql" >"$work/$name.$c.out" 2>&1 & pids+=($!)
  done
  for c in "${pids[@]}"; do wait "$c" || { log "FAIL: a submit session failed"; grep -v '^[0-9a-f-]*$' "$work/$name".*.out | head; exit 1; }; done
  eval "${name}_submit_ms=$(( $(now_ms) - t0 ))"
  until [ "$(q "SELECT count(*) FROM mcp.async_run WHERE question LIKE '$name %' AND status IN ('queued', 'running')")" = 0 ]; do sleep 0.1; done
  eval "${name}_ms=$(( $(now_ms) - t0 ))"
  kill "$sampler"; wait "$sampler" 2>/dev/null || true; sampler=
  eval "${name}_ok=$(q "SELECT count(*) FROM mcp.async_run WHERE question LIKE '$name %' AND result ->> 'status' = 'completed'")"
}

[ "$SYNC" = 1 ] && run_sync sync "$PORT"
run_async async "$PORT"
if [ "$PGBOUNCER" = 1 ]; then
  [ "$SYNC" = 1 ] && run_sync sync_pgb "$PGB_PORT"
  run_async async_pgb "$PGB_PORT"
fi

calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }
row() { # row NAME LABEL
  local ms ok; eval "ms=\$${1}_ms ok=\$${1}_ok"
  local m; if [[ "$1" == async* ]]; then m="$(per_run "$1") (PSS slope; peak $(inflight_peak "$1") in flight: workers' PSS $(pss_at_peak "$1")); workers: $(cpu_per_chat "$1" "$N")"; else m="$(mem "$1") (private, median)"; fi
  echo "| $2 | $ok / $N | $(calc "$ms / 1000") s | $(calc "$ms / $one_ms") | $(calc "$N * 1000 / $ms") | $(peak "$1") | $m |"
}
echo
echo "## Asynchronous runs vs mcp.chat ($N chats, $CONNECTIONS connections, $WORKERS chat workers x $RUNS_PER_WORKER runs, mock latency 2 s x 2 requests, $(nproc) cores)"
echo
echo "One chat alone: ${one_ms} ms."
echo
echo "| mode | completed | wall time | x one chat | chats/s | peak backends (clients + chat workers) | memory per in-flight run |"
echo "|---|---:|---:|---:|---:|---:|---:|"
[ "$SYNC" = 1 ] && row sync "sync \`mcp.chat\`, direct"
row async "async \`mcp.chat_submit\`, direct (all submitted after $(calc "$async_submit_ms / 1000") s)"
if [ "$PGBOUNCER" = 1 ]; then
  [ "$SYNC" = 1 ] && row sync_pgb "sync \`mcp.chat\`, PgBouncer (transaction mode, $CONNECTIONS server connections)"
  row async_pgb "async \`mcp.chat_submit\`, PgBouncer (all submitted after $(calc "$async_pgb_submit_ms / 1000") s)"
fi
log "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
