#!/usr/bin/env bash
# Asynchronous chat runs (mcp.chat_submit, mcp.chat_result, mcp.chat_cancel, channel mcp_run)
# executed by pg_mcp's chat workers in a real cluster, against the loopback mock LLM:
#  1. submit returns at once; the run is queued/running, then done; a LISTEN session gets the
#     notifications (payload run_id + status); chat_result returns mcp.chat's jsonb;
#  2. two roles with row-level security: a row only role A can see reaches A's run, never B's;
#     each run's audit rows carry its submitter;
#  3. a grant revoked between submit and execution is honoured: the tool call is denied;
#  4. cancel of a running run (waiting on the LLM): status cancelled within 2 s; a cancel asked
#     while a tool waits (for a lock) ends the run when the tool returns, before another LLM
#     request (the worker's poll does not end between the tool and the next exchange);
#  5. back-pressure: the per-role cap refuses with 53400;
#  6. needs_input continued asynchronously through the session;
#  7. the audit rows of an asynchronous run have the same shape as a synchronous mcp.chat's, and
#     carry the submit's trace context (mcp.traceparent); 40 fast runs each have all their rows;
#  8. a server restart with running and queued runs: the running ones are marked aborted, the
#     queued ones start afterwards;
#  9. (run before 8) a run leaves no setting or temp table in the worker's session for the next
#     run, another role's;
# 10. many runs in flight in one worker: 20 runs of two roles against a model that takes 2 s per
#     request — every run's first LLM request reached the mock before any run's second one (the
#     mock's log), and one worker had runs in flight together (mcp.async_run's times); row-level
#     security held per run although the two roles' steps interleaved in one worker;
# 11. chat_cancel of one run in flight leaves the others of its worker running;
# 12. a worker terminated with runs in flight: they are marked aborted by the next worker.
# Uses the regress cluster (preloaded by scripts/lib.sh, mcp.chat_workers at its default 4) and
# restarts it once.
set -euo pipefail
LOG_TAG=async
. "$(dirname "$0")/../../scripts/lib.sh"

DIR="${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress/pgdata}"
PORT="${PG_MCP_REGRESS_PORT:-55433}"
DB=pg_mcp_async

start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
work="$(mktemp -d)"
chmod 755 "$work"
bg_pid=
. "$ROOT/tests/cancel/sessions.sh"   # now_ms, start_mock, mock_requests
start_mock "$ROOT/tests/async/scenarios"
fail() { log "FAIL: $*"; exit 1; }
q() { psql_at "$PORT" "$DB" -At -c "$1"; }

# (case 8 sets one run per worker; a run of this suite that failed there left it set)
q "ALTER SYSTEM RESET mcp.chat_runs_per_worker" >/dev/null; q "SELECT pg_reload_conf()" >/dev/null
psql_at "$PORT" "$DB" >/dev/null <<SQL
DROP ROLE IF EXISTS async_a, async_b;
CREATE ROLE async_a; CREATE ROLE async_b;
CREATE TABLE public.note (owner name NOT NULL, body text NOT NULL);
INSERT INTO public.note VALUES ('async_a', 'alpha-secret-7731'), ('async_b', 'beta-note-4410');
ALTER TABLE public.note ENABLE ROW LEVEL SECURITY;
CREATE POLICY note_own ON public.note USING (owner = current_user);
GRANT SELECT ON public.note TO async_a, async_b;
CREATE FUNCTION public.my_notes() RETURNS SETOF text LANGUAGE sql STABLE AS
  \$\$ SELECT body FROM public.note ORDER BY body \$\$;
REVOKE EXECUTE ON FUNCTION public.my_notes() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.my_notes() TO async_a, async_b;
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('myNotes', 'The notes of the calling user', '{"type":"object","properties":{}}', 'public.my_notes()');
SQL
psql_at "$PORT" "$DB" >/dev/null <<SQL
CREATE FUNCTION public.leave_trace() RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE planted text := 'no temp table';
BEGIN
  PERFORM set_config('mcp_async.trace', 'left by ' || current_user, false);
  BEGIN
    CREATE TEMP TABLE note (owner name, body text);
    INSERT INTO note VALUES (current_user, 'planted-by-a');
    GRANT SELECT ON note TO PUBLIC;
    planted := 'temp table planted';
  EXCEPTION WHEN others THEN planted := 'no temp table: ' || SQLERRM;
  END;
  RETURN planted;
END \$\$;
CREATE FUNCTION public.read_trace() RETURNS text LANGUAGE sql STABLE AS
  \$\$ SELECT coalesce(nullif(current_setting('mcp_async.trace', true), ''), 'clean') || ' / ' ||
            (SELECT string_agg(body, ',' ORDER BY body) FROM note) \$\$;
-- (the tool sandbox refuses the temp table: a security-restricted operation; the worker would
-- drop one anyway, DISCARD TEMP)
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('leaveTrace', 'Leaves a setting and a temp table behind', '{"type":"object","properties":{}}', 'public.leave_trace()'),
  ('readTrace', 'Reads what an earlier run left', '{"type":"object","properties":{}}', 'public.read_trace()');
SQL
psql_at "$PORT" "$DB" >/dev/null <<SQL
CREATE FUNCTION public.wait_for_lock() RETURNS text LANGUAGE sql AS
  \$\$ SELECT pg_advisory_xact_lock_shared(4343); SELECT 'got it'::text \$\$;
INSERT INTO mcp.tool (name, description, parameters, function, read_only) VALUES
  ('waitForLock', 'Waits until the test releases its lock', '{"type":"object","properties":{}}', 'public.wait_for_lock()', true);
SQL
for sc in notes never ok dialog slow trace_a trace_b locked; do
  q "INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('$sc', 'openai', 'http://127.0.0.1:$mock_port/s/$sc/v1', 'mock-model');
     INSERT INTO mcp.interface (name, provider, access_role) VALUES ('$sc', '$sc', 'public');" >/dev/null
done
q "INSERT INTO mcp.interface_tool VALUES ('notes', 'myNotes'), ('slow', 'myNotes'), ('dialog', 'getDialog'), ('locked', 'waitForLock'),
     ('trace_a', 'leaveTrace'), ('trace_b', 'readTrace');" >/dev/null

submit() { # submit ROLE QUESTION INTERFACE [SESSION]: the run id
  q "SET ROLE $1; SELECT mcp.chat_submit('$2', '$3', ${4:-NULL}::uuid)"
}
status_of() { q "SELECT status FROM mcp.async_run WHERE run_id = '$1'"; }
wait_status() { # wait_status RUN STATUS [LIMIT_MS]
  local t; t="$(now_ms)"
  until [ "$(status_of "$1")" = "$2" ]; do
    [ $(( $(now_ms) - t )) -lt "${3:-20000}" ] || fail "run $1: status $(status_of "$1"), expected $2"
    sleep 0.05
  done
}
result_of() { q "SET ROLE $1; SELECT mcp.chat_result('$2', ${3:-20000})"; }
submit_all() { # submit_all N STATEMENTS: the N run ids of the submits in STATEMENTS, committed in
  # one transaction (all queued at once), in SUBMITTED
  mapfile -t SUBMITTED < <(psql_at "$PORT" "$DB" -At <<<"BEGIN; $2 COMMIT;" | grep -E '^[0-9a-f-]{36}$')
  [ "${#SUBMITTED[@]}" = "$1" ] || fail "$1 submits in one transaction gave ${#SUBMITTED[@]} run ids"
}

# 1. submit, LISTEN, result
"$PG_BIN/psql" -X -h 127.0.0.1 -p "$PORT" -U postgres -d "$DB" \
  -c "LISTEN mcp_run" -c "SELECT pg_sleep(12)" >"$work/listen.out" 2>&1 &
listener=$!
sleep 0.5
t0="$(now_ms)"
run="$(submit async_a 'what are my notes' slow)"
took=$(( $(now_ms) - t0 ))
[ "$took" -lt 1500 ] || fail "chat_submit took ${took} ms (the model answers after 2 s)"
st="$(status_of "$run")"
[[ "$st" = queued || "$st" = running ]] || fail "a fresh run is $st"
wait_status "$run" running 5000
res="$(result_of async_a "$run")"
[ "$(jq -r .status <<<"$res")" = completed ] || fail "async run: $res"
[ "$(jq -r .answer <<<"$res")" = "Here are your notes." ] || fail "async answer: $res"
[ "$(jq -r .run_id <<<"$res")" = "$run" ] || fail "the result's run_id is not the submitted one: $res"
[ "$(status_of "$run")" = done ] || fail "finished run not done"
[ "$(q "SELECT status FROM mcp.run WHERE run_id = '$run'")" = completed ] || fail "no mcp.run row under the submitted run id"
wait "$listener" || true
grep -q "payload \"{\"run_id\" : \"$run\", \"status\" : \"running\"}\"" "$work/listen.out" || { cat "$work/listen.out"; fail "no 'running' notification"; }
grep -q "payload \"{\"run_id\" : \"$run\", \"status\" : \"done\"}\"" "$work/listen.out" || { cat "$work/listen.out"; fail "no 'done' notification"; }
log "submit returned in ${took} ms; LISTEN mcp_run got running and done; chat_result = mcp.chat's jsonb (completed)"

# 2. two roles, row-level security
ra="$(submit async_a 'my notes' notes)"; rb="$(submit async_b 'my notes' notes)"
result_of async_a "$ra" >/dev/null; result_of async_b "$rb" >/dev/null
wait_status "$ra" done; wait_status "$rb" done
prev() { q "SELECT string_agg(status || ':' || coalesce(result_preview, ''), ' ') FROM mcp.tool_call WHERE run_id = '$1'"; }
pa="$(prev "$ra")"; pb="$(prev "$rb")"
[[ "$pa" == ok:*alpha-secret-7731* ]] || fail "A's run did not see A's row: $pa"
[[ "$pa" != *beta-note* ]] || fail "A's run saw B's row: $pa"
[[ "$pb" == ok:*beta-note-4410* ]] || fail "B's run did not see B's row: $pb"
[[ "$pb" != *alpha-secret* ]] || fail "B's run saw A's row: $pb"
[ "$(q "SELECT string_agg(DISTINCT role_name, ',') FROM mcp.run WHERE run_id = '$ra'")" = async_a ] || fail "A's run not recorded as async_a"
[ "$(q "SELECT string_agg(DISTINCT role_name, ',') FROM mcp.tool_call WHERE run_id = '$rb'")" = async_b ] || fail "B's tool call not run as async_b"
n="$(q "SET ROLE async_b; SELECT count(*) FROM mcp.async_run")"
[ "$n" = 1 ] || fail "async_b sees $n asynchronous runs (only its own: 1)"
log "row-level security: A's run saw only A's row, B's only B's; runs and tool calls recorded as their submitter"

# 3. a grant revoked between submit and execution
rr="$(psql_at "$PORT" "$DB" -At -c "BEGIN" -c "SET LOCAL ROLE async_b" -c "SELECT mcp.chat_submit('my notes again', 'notes')" \
        -c "RESET ROLE" -c "REVOKE EXECUTE ON FUNCTION public.my_notes() FROM async_b" -c "COMMIT" | grep -E '^[0-9a-f-]{36}$')"
wait_status "$rr" done
pr="$(prev "$rr")"
[[ "$pr" == denied:* ]] || fail "the revoked grant was not honoured: $pr"
[[ "$pr" != *beta-note* ]] || fail "the revoked tool still ran: $pr"
q "GRANT EXECUTE ON FUNCTION public.my_notes() TO async_b" >/dev/null
log "a grant revoked after submit: the tool call was denied when the run executed"

# 4. cancel a running run
rc="$(submit async_a 'wait forever' never)"
wait_status "$rc" running 5000
for _ in $(seq 100); do [ "$(mock_requests never)" -ge 1 ] && break; sleep 0.05; done
t0="$(now_ms)"
out="$(psql_at "$PORT" "$DB" -At -v VERBOSITY=verbose -c "SET ROLE async_b; SELECT mcp.chat_cancel('$rc')" 2>&1 || true)"
grep -q "42704: asynchronous run $rc does not exist" <<<"$out" || fail "another role could cancel: $out"
[ "$(q "SET ROLE async_a; SELECT mcp.chat_cancel('$rc')")" = t ] || fail "chat_cancel refused"
res="$(result_of async_a "$rc" 5000)"
took=$(( $(now_ms) - t0 ))
[ "$(jq -r .status <<<"$res")" = cancelled ] || fail "cancelled run: $res"
[ "$took" -lt 2000 ] || fail "cancel took ${took} ms"
[ "$(q "SELECT status FROM mcp.run WHERE run_id = '$rc'")" = cancelled ] || fail "mcp.run of the cancelled run"
log "chat_cancel stopped a run waiting on the LLM in ${took} ms (another role got 42704)"

# 4b. cancel while a tool waits for a lock: when the tool returns, the run ends cancelled and no
#     further LLM request is sent (before, the poll went on to the next exchange, and a fast
#     answer could complete the run: the console's stop button ended 'completed' in CI)
coproc HOLD { "$PG_BIN/psql" -X -h 127.0.0.1 -p "$PORT" -U postgres -d "$DB" -At; }
# (its pid kept now: bash unsets HOLD_PID as soon as the coprocess has exited, which after its
# input is closed below may happen before the wait, and set -u then ended the suite)
hold_pid=$HOLD_PID
echo "SELECT pg_advisory_lock(4343);" >&"${HOLD[1]}"
lock_count() { q "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4343 AND $1"; }
for _ in $(seq 200); do [ "$(lock_count granted)" = 1 ] && break; sleep 0.05; done
[ "$(lock_count granted)" = 1 ] || fail "the test could not take its advisory lock"
rl="$(submit async_a 'wait for the lock' locked)"
for _ in $(seq 400); do [ "$(lock_count "NOT granted")" = 1 ] && break; sleep 0.05; done
[ "$(lock_count "NOT granted")" = 1 ] || fail "the run's tool did not wait for the lock: $(status_of "$rl")"
[ "$(mock_requests locked)" = 1 ] || fail "LLM requests before the tool: $(mock_requests locked)"
[ "$(q "SET ROLE async_a; SELECT mcp.chat_cancel('$rl')")" = t ] || fail "chat_cancel of the run waiting in its tool refused"
echo "SELECT pg_advisory_unlock(4343);" >&"${HOLD[1]}"
eval "exec ${HOLD[1]}>&-"
wait "$hold_pid" 2>/dev/null || true
res="$(result_of async_a "$rl" 10000)"
[ "$(jq -r .status <<<"$res")" = cancelled ] || fail "the run cancelled while its tool waited: $res"
[ "$(jq -r '.answer // "none"' <<<"$res")" = none ] || fail "the cancelled run has an answer: $res"
[ "$(mock_requests locked)" = 1 ] || fail "an LLM request was sent after the cancel: $(mock_requests locked) requests"
[ "$(q "SELECT status FROM mcp.tool_call WHERE run_id = '$rl'")" = ok ] || fail "the tool call's audit row: $(q "SELECT status FROM mcp.tool_call WHERE run_id = '$rl'")"
log "a cancel asked while the run's tool waited for a lock: the run ended cancelled when the tool returned, no LLM request after it"

# 5. back-pressure
r1="$(q "SET mcp.chat_queue_max_per_role = 1; SET ROLE async_a; SELECT mcp.chat_submit('hold', 'never')")"
out="$(psql_at "$PORT" "$DB" -At -v VERBOSITY=verbose -c "SET mcp.chat_queue_max_per_role = 1; SET ROLE async_a; SELECT mcp.chat_submit('refused', 'never')" 2>&1 || true)"
grep -q 53400 <<<"$out" || fail "no 53400 at the cap: $out"
q "SELECT mcp.chat_cancel('$r1')" >/dev/null
log "back-pressure: the role's cap refused the next submit with 53400"

# 6. needs_input continued asynchronously
rd="$(submit async_a 'what is the weather' dialog)"
res="$(result_of async_a "$rd")"
[ "$(jq -r .status <<<"$res")" = needs_input ] || fail "dialog: $res"
session="$(jq -r .session_id <<<"$res")"
rd2="$(submit async_a 'Berlin' dialog "'$session'")"
res2="$(result_of async_a "$rd2")"
[ "$(jq -r .status <<<"$res2")" = completed ] || fail "continued: $res2"
[ "$(jq -r .answer <<<"$res2")" = "Sunny in Berlin." ] || fail "continued answer: $res2"
[ "$(jq -r .session_id <<<"$res2")" = "$session" ] || fail "another session: $res2"
log "needs_input continued asynchronously in the same session"

# 7. audit row shape: synchronous vs asynchronous
#    (both with a trace context set: the asynchronous run's rows carry the submit's)
tp="SET mcp.traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'; SET mcp.tracestate = 'async=7'"
sync="$(q "$tp; SET ROLE async_a; SELECT mcp.chat('my notes', 'notes') ->> 'run_id'")"
asyn="$(q "$tp; SET ROLE async_a; SELECT mcp.chat_submit('my notes', 'notes', NULL::uuid)")"; wait_status "$asyn" done
shape() { # column -> JSON type of every audit row of the run (ids and times are values, not shape)
  q "SELECT jsonb_build_object(
       'run', (SELECT jsonb_object_agg(k, jsonb_typeof(v)) FROM mcp.run r, jsonb_each(to_jsonb(r)) e(k, v) WHERE r.run_id = '$1'),
       'run_values', (SELECT to_jsonb(r) - '{run_id,session_id,started_at,finished_at,backend_pid,backend_start}'::text[] FROM mcp.run r WHERE r.run_id = '$1'),
       'llm_requests', (SELECT jsonb_agg((SELECT jsonb_object_agg(k, jsonb_typeof(v)) FROM jsonb_each(to_jsonb(l)) e(k, v)) ORDER BY l.request_id) FROM mcp.llm_request l WHERE l.run_id = '$1'),
       'tool_calls', (SELECT jsonb_agg(jsonb_build_object('status', t.status, 'tool', t.tool, 'role', t.role_name, 'cols', (SELECT jsonb_object_agg(k, jsonb_typeof(v)) FROM jsonb_each(to_jsonb(t)) e(k, v))) ORDER BY t.call_id) FROM mcp.tool_call t WHERE t.run_id = '$1'),
       'messages', (SELECT jsonb_agg(m.message->>'role' ORDER BY m.seq) FROM mcp.message m WHERE m.run_id = '$1'))"
}
s1="$(shape "$sync")"; s2="$(shape "$asyn")"
[ "$s1" = "$s2" ] || { echo "sync:  $s1"; echo "async: $s2"; fail "audit rows differ in shape"; }
[ "$(jq '.tool_calls | length' <<<"$s1")" = 1 ] && [ "$(jq '.llm_requests | length' <<<"$s1")" = 2 ] || fail "unexpected audit: $s1"
traced="$(q "SELECT (SELECT count(*) FROM mcp.run WHERE run_id = '$asyn' AND traceparent LIKE '00-0af76519%' AND tracestate = 'async=7')
               || '/' || (SELECT count(*) FROM mcp.llm_request WHERE run_id = '$asyn' AND traceparent LIKE '00-0af76519%')
               || '/' || (SELECT count(*) FROM mcp.tool_call WHERE run_id = '$asyn' AND traceparent LIKE '00-0af76519%')")"
[ "$traced" = 1/2/1 ] || fail "the asynchronous run's rows do not carry the submit's trace context (run/llm/tool: $traced)"
log "audit rows of an asynchronous run: the same shape as a synchronous mcp.chat's (run, 2 LLM requests, 1 tool call, messages), the submit's trace context on each"

# 7b. every record of fast runs: 40 runs against a model that answers at once, each with its 2
#     LLM requests and its tool call (with records kept in memory for the run's end, a first
#     answer in before the first step ended took that step on to the tool call, and its commit
#     dropped both records: about 1 run in 40 here)
fast_sql="SET LOCAL ROLE async_a;"
for i in $(seq 40); do fast_sql+=" SELECT mcp.chat_submit('fast $i', 'notes', NULL::uuid);"; done
submit_all 40 "$fast_sql"
for r in "${SUBMITTED[@]}"; do wait_status "$r" done 30000; done
short="$(q "SELECT string_agg(run_id || ' (' || llm || ' LLM requests, ' || tools || ' tool calls)', ', ')
              FROM (SELECT a.run_id::text,
                           (SELECT count(*) FROM mcp.llm_request l WHERE l.run_id = a.run_id) AS llm,
                           (SELECT count(*) FROM mcp.tool_call t WHERE t.run_id = a.run_id) AS tools
                      FROM mcp.async_run a WHERE a.question LIKE 'fast %') c
             WHERE llm <> 2 OR tools <> 1")"
[ -z "$short" ] || fail "runs with records missing: $short"
log "40 fast runs: each has its 2 LLM requests and its tool call in the audit"

# 9. a run leaves nothing in the worker's session for the next run (another role's): a setting
#    set with set_config(…, false) and a temp table that would shadow public.note are gone
same=
for _ in $(seq 10); do
  ta="$(submit async_a 'leave a trace' trace_a)"; wait_status "$ta" done
  tb="$(submit async_b 'read the trace' trace_b)"; wait_status "$tb" done
  [ "$(q "SELECT (SELECT worker_pid FROM mcp.async_run WHERE run_id = '$ta') = (SELECT worker_pid FROM mcp.async_run WHERE run_id = '$tb')")" = t ] || continue
  same=1; break
done
[ -n "$same" ] || fail "no two consecutive runs landed on the same worker in 10 tries"
pa="$(prev "$ta")"; pb="$(prev "$tb")"
run_rows() { # what the audit holds of run $1 (for a failure's message)
  q "SELECT jsonb_build_object('async', (SELECT to_jsonb(a) - 'result' FROM mcp.async_run a WHERE run_id = '$1'),
       'run', (SELECT status FROM mcp.run WHERE run_id = '$1'),
       'llm_requests', (SELECT count(*) FROM mcp.llm_request WHERE run_id = '$1'),
       'tool_calls', (SELECT jsonb_agg(to_jsonb(t)) FROM mcp.tool_call t WHERE run_id = '$1'),
       'messages', (SELECT jsonb_agg(m.message ORDER BY m.seq) FROM mcp.message m WHERE m.run_id = '$1'))"
}
[[ "$pa" == ok:* ]] || fail "A's tool failed: $pa; run $ta: $(run_rows "$ta")"
[[ "$pb" == ok:*"clean / beta-note-4410"* && "$pb" != *planted* && "$pb" != *"left by"* ]] || fail "the next run on the same worker saw what A's run left ($pa): $pb"
log "the next run (another role's) on the same worker saw neither A's setting nor its temp table (A's tool: ${pa#ok:})"

# 10. many runs in flight in one worker, two roles interleaved
mock_turns() { # the turns (0 = a run's first LLM request) of SCENARIO's requests, in arrival order
  local out
  exec 3<>"/dev/tcp/127.0.0.1/$mock_port"
  printf 'GET /_mock/requests?scenario=%s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' "$1" >&3
  out="$(cat <&3)"
  exec 3>&-
  sed '1,/^\r$/d' <<<"$out" | jq -r 'sort_by(.seq) | map(.turn | tostring) | join(" ")'
}
q "DELETE FROM mcp.async_run WHERE status NOT IN ('queued', 'running')" >/dev/null
exec 3<>"/dev/tcp/127.0.0.1/$mock_port"
printf 'DELETE /_mock/requests HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&3; cat <&3 >/dev/null; exec 3>&-
# (submitted in one transaction, so all 20 are queued at once: twenty psql sessions one after the
# other could take longer than the model's 2 s on a slow machine, and the first run's second
# request would then come before the last run's first)
many_sql=
for i in $(seq 10); do
  many_sql+=" SET LOCAL ROLE async_a; SELECT mcp.chat_submit('many $i', 'slow', NULL::uuid);"
  many_sql+=" SET LOCAL ROLE async_b; SELECT mcp.chat_submit('many $i', 'slow', NULL::uuid);"
done
submit_all 20 "$many_sql"
many=("${SUBMITTED[@]}")
for r in "${many[@]}"; do wait_status "$r" done 60000; done
turns="$(mock_turns slow)"
first20="$(cut -d' ' -f1-20 <<<"$turns")"
[ "$first20" = "$(printf '0 %.0s' $(seq 20) | sed 's/ $//')" ] || fail "the runs' LLM requests did not overlap: turns in arrival order: $turns"
# one worker had at least 2 runs in flight at once (max start < min end among its runs)
overlap="$(q "SELECT max(n) FROM (SELECT worker_pid, count(*) AS n FROM mcp.async_run
                WHERE question LIKE 'many %' GROUP BY worker_pid
               HAVING max(started_at) < min(finished_at)) w")"
[ "${overlap:-0}" -ge 2 ] || fail "no worker had two runs in flight at once: $(q "SELECT string_agg(worker_pid || ':' || started_at || '-' || finished_at, ' ') FROM mcp.async_run WHERE question LIKE 'many %'")"
mixed="$(q "SELECT count(*) FROM (SELECT worker_pid FROM mcp.async_run WHERE question LIKE 'many %'
              GROUP BY worker_pid HAVING count(DISTINCT role_name) = 2) w")"
[ "$mixed" -ge 1 ] || fail "no worker ran both roles' runs"
for r in "${many[@]}"; do
  who="$(q "SELECT role_name FROM mcp.async_run WHERE run_id = '$r'")"
  p="$(prev "$r")"
  if [ "$who" = async_a ]; then
    [[ "$p" == ok:*alpha-secret-7731* && "$p" != *beta-note* ]] || fail "A's run $r: $p"
  else
    [[ "$p" == ok:*beta-note-4410* && "$p" != *alpha-secret* ]] || fail "B's run $r: $p"
  fi
  [ "$(q "SELECT string_agg(DISTINCT role_name, ',') FROM mcp.tool_call WHERE run_id = '$r'")" = "$who" ] || fail "run $r's tool call not run as $who"
done
log "20 runs (2 roles) against a 2 s model: all 20 first LLM requests in flight before any second one; up to $overlap runs in flight in one worker, both roles' steps interleaved in one worker; each run saw only its role's rows"

# 11. cancel one run in flight; the others of its worker go on
held=()
for i in 1 2 3 4 5; do held+=("$(submit async_a "held $i" never)"); done
for r in "${held[@]}"; do wait_status "$r" running 10000; done
for _ in $(seq 200); do [ "$(mock_requests never)" -ge 5 ] && break; sleep 0.05; done
victim="${held[0]}"
wpid="$(q "SELECT worker_pid FROM mcp.async_run WHERE run_id = '$victim'")"
mapfile -t mates < <(q "SELECT run_id FROM mcp.async_run WHERE worker_pid = $wpid AND status = 'running' AND question LIKE 'held %' AND run_id <> '$victim'")
[ "${#mates[@]}" -ge 1 ] || fail "the held runs did not share a worker"
q "SET ROLE async_a; SELECT mcp.chat_cancel('$victim')" >/dev/null
res="$(result_of async_a "$victim" 5000)"
[ "$(jq -r .status <<<"$res")" = cancelled ] || fail "cancelled run in flight: $res"
for r in "${mates[@]}"; do [ "$(status_of "$r")" = running ] || fail "run $r of the same worker is $(status_of "$r") after another's cancel"; done
log "chat_cancel of one run in flight: it ended cancelled, the ${#mates[@]} other run(s) of its worker still running"

# 12. terminate the worker with runs in flight: the next worker marks them aborted
q "SELECT pg_terminate_backend($wpid)" >/dev/null
for _ in $(seq 200); do [ "$(q "SELECT count(*) FROM pg_stat_activity WHERE pid = $wpid")" = 0 ] && break; sleep 0.05; done
nudge="$(submit async_a 'after the terminate' ok)"
for r in "${mates[@]}"; do wait_status "$r" aborted 15000; done
wait_status "$nudge" done 20000
for r in "${held[@]}"; do q "SELECT mcp.chat_cancel('$r')" >/dev/null; done
for r in "${held[@]}"; do
  st="$(status_of "$r")"; for _ in $(seq 100); do [[ "$st" = running ]] || break; sleep 0.05; st="$(status_of "$r")"; done
  [[ "$st" != running ]] || fail "held run $r still running"
done
log "a worker terminated with ${#mates[@]} run(s) in flight: the next worker marked them aborted, and ran the next run"

# 8. restart with running and queued runs: one run per worker for this case (4 workers: 4 run,
# 2 wait)
q "ALTER SYSTEM SET mcp.chat_runs_per_worker = 1" >/dev/null; q "SELECT pg_reload_conf()" >/dev/null
# (the workers of the cases before, idle now, end after 2 s: the runs below go to workers started
# with the new setting, not to one that has not yet read its reload)
chat_workers() { q "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'pg_mcp chat worker' AND datname = '$DB'"; }
for _ in $(seq 300); do [ "$(chat_workers)" = 0 ] && break; sleep 0.05; done
[ "$(chat_workers)" = 0 ] || fail "$(chat_workers) chat worker(s) still there with no run in flight"
running=(); queued=()
for i in 1 2 3 4 5 6; do running+=("$(submit async_a "restart $i" never)"); done
for _ in $(seq 200); do
  [ "$(q "SELECT count(*) FROM mcp.async_run WHERE status = 'running' AND question LIKE 'restart %'")" = 4 ] && break
  sleep 0.05
done
[ "$(q "SELECT count(*) FROM mcp.async_run WHERE status = 'running' AND question LIKE 'restart %'")" = 4 ] || fail "4 workers did not take 4 runs"
mapfile -t queued < <(q "SELECT run_id FROM mcp.async_run WHERE status = 'queued' AND question LIKE 'restart %'")
[ "${#queued[@]}" = 2 ] || fail "expected 2 queued runs, got ${#queued[@]}"
mapfile -t was_running < <(q "SELECT run_id FROM mcp.async_run WHERE status = 'running' AND question LIKE 'restart %'")
# mcp.run shows each run from its submit on: queued while no worker has room, running once one
# took it (and its first step ran); the submitter sees its queued run in mcp.my_runs
run_status() { q "SELECT status FROM mcp.run WHERE run_id = '$1'"; }
wait_run_status() { # wait_run_status RUN STATUS [LIMIT_MS]: mcp.run's status
  local t; t="$(now_ms)"
  until [ "$(run_status "$1")" = "$2" ]; do
    [ $(( $(now_ms) - t )) -lt "${3:-10000}" ] || fail "run $1: mcp.run status '$(run_status "$1")', expected $2"
    sleep 0.05
  done
}
for r in "${queued[@]}"; do
  [ "$(run_status "$r")" = queued ] || fail "queued run $r: mcp.run status '$(run_status "$r")'"
  row="$(q "SET ROLE async_a; SELECT role_name || ' ' || (question LIKE 'restart %') || ' ' || interface || ' ' || (finished_at IS NULL) FROM mcp.run WHERE run_id = '$r'")"
  [ "$row" = "async_a true never true" ] || fail "the queued run's mcp.run row, read by its submitter: $row"
  [ "$(q "SET ROLE async_a; SELECT status FROM mcp.my_runs WHERE run_id = '$r'")" = queued ] || fail "the submitter does not see its queued run $r in mcp.my_runs"
done
for r in "${was_running[@]}"; do wait_run_status "$r" running; done
# a queued run cancelled: its mcp.run row ends cancelled
rq="$(submit async_a 'queued then cancelled' never)"
[ "$(status_of "$rq")" = queued ] && [ "$(run_status "$rq")" = queued ] || fail "an extra run with every worker busy: $(status_of "$rq") / $(run_status "$rq")"
[ "$(q "SET ROLE async_a; SELECT mcp.chat_cancel('$rq')")" = t ] || fail "chat_cancel of a queued run"
[ "$(q "SELECT status || ' ' || (finished_at IS NOT NULL) || ' ' || (error ->> 'kind') FROM mcp.run WHERE run_id = '$rq'")" = "cancelled true cancelled" ] || fail "mcp.run of a run cancelled while queued: $(q "SELECT to_jsonb(r) FROM mcp.run r WHERE run_id = '$rq'")"
# a queued run whose interface is gone when a worker takes it: error, and mcp.run ends failed
q "INSERT INTO mcp.interface (name, provider, access_role) VALUES ('gone', 'ok', 'public')" >/dev/null
rg="$(submit async_a 'to a vanishing interface' gone)"
[ "$(run_status "$rg")" = queued ] || fail "run $rg: mcp.run status '$(run_status "$rg")' while the workers are busy"
q "DELETE FROM mcp.interface WHERE name = 'gone'" >/dev/null
log "mcp.run shows runs queued (also in the submitter's mcp.my_runs) while every worker is busy, running once taken; one cancelled while queued ended cancelled there"
as_pg "$PG_BIN/pg_ctl" -D "$DIR" -l "$DIR/server.log" -m fast -w -t 60 restart >/dev/null
for r in "${was_running[@]}"; do wait_status "$r" aborted 10000; done
for r in "${queued[@]}"; do wait_status "$r" running 10000; done
for r in "${was_running[@]}"; do [ "$(run_status "$r")" = aborted ] || fail "mcp.run of aborted run $r: $(run_status "$r")"; done
for r in "${queued[@]}"; do wait_run_status "$r" running; done
wait_status "$rg" error 10000
[ "$(q "SELECT status || ' ' || (error ->> 'kind') || ' ' || (finished_at IS NOT NULL) FROM mcp.run WHERE run_id = '$rg'")" = "failed statement_error true" ] || fail "mcp.run of a run that failed before it started: $(q "SELECT to_jsonb(r) FROM mcp.run r WHERE run_id = '$rg'")"
[ "$(jq -r .status <<<"$(result_of async_a "${was_running[0]}" 0)")" = aborted ] || fail "chat_result of an aborted run"
for r in "${queued[@]}"; do q "SELECT mcp.chat_cancel('$r')" >/dev/null; done
for r in "${queued[@]}"; do wait_status "$r" done 5000; done
q "ALTER SYSTEM RESET mcp.chat_runs_per_worker" >/dev/null; q "SELECT pg_reload_conf()" >/dev/null
log "restart: the 4 running runs were marked aborted (in mcp.run too), the 2 queued ones started afterwards (mcp.run: queued, then running); a queued run whose interface went away ended error (mcp.run: failed)"
log "PASS"
