#!/usr/bin/env bash
# Cancellation of a chat that waits on an LLM which never answers, from OUTSIDE the backend:
#  1. pg_cancel_backend() from a second session ends it within 1 s with ERROR 57014;
#  2. statement_timeout ends it within 1 s of the timeout.
# In both cases the session stays usable, and the run's audit rows are gone: they were written
# in the statement's own transaction, which the cancel rolls back (see README, "Audit").
#  3. 50 chats cancelled by statement_timeout in one session leave nothing behind: within 2 s the
#     backend's threads (/proc/PID/task) and sockets (/proc/PID/fd) are back at their baseline
#     (the abandoned HTTP exchanges do not wait for their read timeout).
#  4. A client killed while its chat waits on the LLM: the run stops within 2 s with
#     status client_gone, and the mock sees no further request (its scenario would answer after
#     4 s with a tool call, which a run that kept going would follow with a second request).
#     Once with client_connection_check_interval = 0 (pg_mcp polls the socket about once a
#     second) and once with it set (polled at that interval).
# Needs the extension installed (scripts/test.sh runs this after pg_regress) and the mock_llm
# binary, built here. Uses the regress cluster (PG_MCP_REGRESS_DIR / PG_MCP_REGRESS_PORT).
set -euo pipefail
LOG_TAG=cancel
. "$(dirname "$0")/../../scripts/lib.sh"

DIR="${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress/pgdata}"
PORT="${PG_MCP_REGRESS_PORT:-55433}"
DB=pg_mcp_cancel
LIMIT_MS=1000

start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"

work="$(mktemp -d)"
chmod 755 "$work"
bg_pid=
. "$(dirname "$0")/sessions.sh"   # now_ms, start_session, wait_for_end, start_mock, mock_requests
start_mock "$ROOT/tests/cancel/scenarios"

# Model 'mock-model' counts tokens with the estimate: an OpenAI model name would make the first
# chat of a backend build the BPE tables first (~0.7 s in a debug build), before any request.
psql_at "$PORT" "$DB" -c "
  INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('mock', 'openai', 'http://127.0.0.1:$mock_port/s/never/v1', 'mock-model');
  INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('mock_ok', 'openai', 'http://127.0.0.1:$mock_port/s/ok/v1', 'mock-model');
  INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('mock_slow_tool', 'openai', 'http://127.0.0.1:$mock_port/s/slow_tool/v1', 'mock-model');
  INSERT INTO mcp.interface (name, provider) VALUES ('chatbot', 'mock');"

fail() { log "FAIL: $*"; [ -f "$work/session.out" ] && sed 's/^/  | /' "$work/session.out"; exit 1; }

# Wait until the chat's request has reached the mock: the backend is now waiting on the LLM.
wait_for_request() { # wait_for_request N
  for _ in $(seq 200); do
    [ "$(mock_requests)" -ge "$1" ] && return 0
    sleep 0.05
  done
  fail "the chat's request never reached the mock"
}

check_session() { # check_session WHAT
  grep -q '57014' "$work/session.out" || fail "$1: no ERROR 57014"
  grep -q 'backend still usable' "$work/session.out" || fail "$1: session not usable afterwards"
  grep -q 'audit rows: 0' "$work/session.out" || fail "$1: audit rows of the cancelled run survived"
}

AFTER=("SELECT 'backend still usable' AS after_cancel;"
       "SELECT 'audit rows: ' || (SELECT count(*) FROM mcp.run) + (SELECT count(*) FROM mcp.llm_request) AS audit;")

# 1. pg_cancel_backend() from another session.
start_session mcp_cancel_test "SELECT mcp.chat('cancel me');" "${AFTER[@]}"
wait_for_request 1
pid="$(psql_at "$PORT" "$DB" -At -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'mcp_cancel_test' AND state = 'active'")"
[ -n "$pid" ] || fail "chat backend not found in pg_stat_activity"
t0="$(now_ms)"
[ "$(psql_at "$PORT" "$DB" -At -c "SELECT pg_cancel_backend($pid)")" = t ] || fail "pg_cancel_backend refused"
wait_for_end
check_session "pg_cancel_backend"
[ "$elapsed" -lt "$LIMIT_MS" ] || fail "pg_cancel_backend took ${elapsed} ms to end the chat (limit ${LIMIT_MS} ms)"
log "pg_cancel_backend ended the waiting chat in ${elapsed} ms (ERROR 57014; session usable; run rolled back)"

# 2. statement_timeout.
TIMEOUT_MS=300
t0="$(now_ms)"
start_session mcp_timeout_test "SET statement_timeout = '${TIMEOUT_MS}ms';" "SELECT mcp.chat('time me out');" \
              "RESET statement_timeout;" "${AFTER[@]}"
wait_for_end
check_session "statement_timeout"
grep -q 'statement timeout' "$work/session.out" || fail "statement_timeout: not a statement timeout"
[ "$(mock_requests)" -ge 2 ] || fail "statement_timeout: the chat had not reached the LLM"
[ "$elapsed" -ge "$TIMEOUT_MS" ] || fail "statement_timeout: ended after ${elapsed} ms, before the timeout?"
[ "$elapsed" -lt $(( TIMEOUT_MS + LIMIT_MS )) ] || fail "statement_timeout ${TIMEOUT_MS} ms ended the chat after ${elapsed} ms"
log "statement_timeout ${TIMEOUT_MS} ms ended the waiting chat after ${elapsed} ms (ERROR 57014)"

# 3. 50 cancelled chats in one backend: no thread or socket stays behind.
N_CHATS=50
threads_of() { as_root ls "/proc/$1/task" | wc -l; }
sockets_of() { as_root ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'socket:' || true; }
current_query() { psql_at "$PORT" "$DB" -At -c "SELECT query FROM pg_stat_activity WHERE pid = $1"; }
wait_for_query() { # wait_for_query PID WORD: until the session runs the statement naming WORD
  for _ in $(seq 600); do
    [[ "$(current_query "$1")" == *"$2"* ]] && return 0
    kill -0 "$bg_pid" 2>/dev/null || fail "session ended early"
    sleep 0.05
  done
  fail "the session never reached: $2"
}
session=("SELECT mcp.chat('warm up', 'chatbot', NULL, '{\"provider\": \"mock_ok\"}') ->> 'status' AS warm_up;"
         "SELECT pg_sleep(2) AS measure_baseline;"
         "SET statement_timeout = '50ms';")
for i in $(seq "$N_CHATS"); do session+=("SELECT mcp.chat('abandon me $i');"); done
session+=("RESET statement_timeout;" "SELECT pg_sleep(5) AS measure_after;" "${AFTER[@]}")
before_requests="$(mock_requests)"
start_session mcp_leak_test "${session[@]}"
for _ in $(seq 100); do
  pid="$(psql_at "$PORT" "$DB" -At -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'mcp_leak_test'")"
  [ -n "$pid" ] && break; sleep 0.05
done
[ -n "$pid" ] || fail "leak test backend not found"
wait_for_query "$pid" measure_baseline
sleep 0.3
base_threads="$(threads_of "$pid")"; base_sockets="$(sockets_of "$pid")"
wait_for_query "$pid" measure_after
t0="$(now_ms)"
while :; do
  threads="$(threads_of "$pid")"; sockets="$(sockets_of "$pid")"
  [ "$threads" -le "$base_threads" ] && [ "$sockets" -le "$base_sockets" ] && break
  [ $(( $(now_ms) - t0 )) -lt 2000 ] || \
    fail "after $N_CHATS cancelled chats the backend keeps $threads threads (baseline $base_threads) and $sockets sockets (baseline $base_sockets) for more than 2 s"
  sleep 0.05
done
settled=$(( $(now_ms) - t0 ))
t0="$(now_ms)"; wait_for_end
grep -q 'warm_up' "$work/session.out" && grep -q 'completed' "$work/session.out" || fail "leak test: the warm-up chat did not complete"
[ "$(grep -c '57014' "$work/session.out")" -ge "$N_CHATS" ] || fail "leak test: not every chat was cancelled"
reached=$(( $(mock_requests) - before_requests ))
[ "$reached" -ge "$N_CHATS" ] || fail "leak test: only $reached of $N_CHATS chats reached the LLM before the cancel"
log "$N_CHATS chats cancelled while waiting on the LLM: the backend is back at $threads threads / $sockets sockets (baseline $base_threads / $base_sockets) ${settled} ms after the last cancel"

# 4. The client goes away while the chat waits on the LLM.
client_gone_case() { # client_gone_case CHECK_INTERVAL
  local before question="are you there $1" pid status
  before="$(mock_requests slow_tool)"
  rm -f "$work/session.out"
  PGAPPNAME=mcp_gone_test PGOPTIONS="-c client_connection_check_interval=$1" "$PG_BIN/psql" -X -h 127.0.0.1 \
      -p "$PORT" -U postgres -d "$DB" \
      -c "SELECT mcp.chat('$question', 'chatbot', NULL, '{\"provider\": \"mock_slow_tool\"}')" >"$work/session.out" 2>&1 &
  bg_pid=$!
  for _ in $(seq 200); do
    [ "$(mock_requests slow_tool)" -gt "$before" ] && break
    sleep 0.05
  done
  [ "$(mock_requests slow_tool)" -gt "$before" ] || fail "client gone ($1): the chat's request never reached the mock"
  pid="$(psql_at "$PORT" "$DB" -At -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'mcp_gone_test'")"
  [ -n "$pid" ] || fail "client gone ($1): chat backend not found"
  t0="$(now_ms)"
  kill -KILL "$bg_pid"; wait "$bg_pid" 2>/dev/null || true; bg_pid=
  # The backend stops the run, records it, fails to send the result and exits.
  until [ -z "$(psql_at "$PORT" "$DB" -At -c "SELECT 1 FROM pg_stat_activity WHERE pid = $pid")" ]; do
    [ $(( $(now_ms) - t0 )) -lt 5000 ] || fail "client gone ($1): the backend still runs 5 s after its client was killed"
    sleep 0.02
  done
  elapsed=$(( $(now_ms) - t0 ))
  [ "$elapsed" -lt 2000 ] || fail "client gone ($1): the run stopped ${elapsed} ms after the client was killed (limit 2000 ms)"
  status="$(psql_at "$PORT" "$DB" -At -c "SELECT status || ' ' || (error->>'kind') FROM mcp.run WHERE question = '$question'")"
  [ "$status" = "client_gone client_gone" ] || fail "client gone ($1): run status '$status', expected client_gone"
  # Past the moment the mock answers (4 s): a run that kept going would have sent its 2nd request.
  sleep 4.5
  [ "$(mock_requests slow_tool)" -eq $(( before + 1 )) ] || \
    fail "client gone ($1): the mock saw $(( $(mock_requests slow_tool) - before )) requests, expected 1"
  log "client killed mid-chat (client_connection_check_interval = $1): run stopped in ${elapsed} ms, status client_gone, no further LLM request"
}
client_gone_case 0
client_gone_case 300

psql_at "$PORT" postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null
log "ok"
