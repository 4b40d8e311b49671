#!/usr/bin/env bash
# Durable audit: with pg_mcp preloaded and mcp.audit_durable on, a chat run's rows are
# committed by pg_mcp's audit worker and keep the run's true end, whatever the caller does:
#  1. ROLLBACK after the chat: the run stays, status completed, with its request and messages;
#  2. pg_cancel_backend while waiting on the LLM: status cancelled (the session gets 57014);
#  3. statement_timeout: status cancelled;
#  4. pg_terminate_backend while waiting on the LLM: status cancelled, the backend is gone;
#  5. pg_terminate_backend while a tool runs (FATAL inside the tool): status aborted;
#  6. a tool (the model's choice) that cancels its own backend: refused by the sandbox, the run
#     completes; a tool whose statement is cancelled (57014): status cancelled;
#  7. a NUL in the model's answer: status completed, the answer stored (U+FFFD);
#  8. the backend SIGKILLed mid-run (the server restarts): the launcher's sweep marks the run
#     aborted without waiting for the next chat;
#  9. the worker down (terminated, mcp.audit_start_worker off): the chat fails with 55000 before
#     any LLM request; its records land once a worker runs again;
# 10. the queue full (asynchronous mode, worker held down): the chat fails with 55000 before any
#     LLM request; what was queued lands afterwards;
# 11. a run row exists (committed) while the first LLM request is in flight;
# 12. a tool call outside any chat (mcp.call_tool) in a transaction that rolls back: its audit
#     row stays;
# 13. more databases than audit queues (8): ten databases chat one after another, every run is
#     recorded (an idle queue passes to the next database);
# 14. a record the worker cannot store (a CHECK refuses it) in a batch: only it is lost, the
#     records queued around it land (the batch is stored again record by record);
# 15. a tool that only reads, called by a chat and on its own (a function tool and sql_query),
#     leaves the caller's transaction without a transaction id: its commit writes no commit
#     record and waits for no WAL flush; the run's rows are all there.
# Uses the regress cluster (preloaded by scripts/lib.sh, durable audit off by default there).
set -euo pipefail
LOG_TAG=audit
. "$(dirname "$0")/../../scripts/lib.sh"

DIR="${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress/pgdata}"
PORT="${PG_MCP_REGRESS_PORT:-55433}"
DB=pg_mcp_audit

start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
work="$(mktemp -d)"
chmod 755 "$work"
bg_pid=
. "$ROOT/tests/cancel/sessions.sh"   # now_ms, start_session, wait_for_end, start_mock, mock_requests
start_mock "$ROOT/tests/audit/scenarios"
fail() { log "FAIL: $*"; [ -f "$work/session.out" ] && sed 's/^/  | /' "$work/session.out" | tail -20; exit 1; }

# Every session of this script: durable audit on (superuser setting, per session here).
export PGOPTIONS="-c mcp.audit_durable=on"
q() { psql_at "$PORT" "$DB" -At -c "$1"; }
psql_at "$PORT" "$DB" -c "
  CREATE FUNCTION public.selfcancel() RETURNS text LANGUAGE plpgsql AS \$\$
  BEGIN PERFORM pg_cancel_backend(pg_backend_pid()); PERFORM pg_sleep(5); RETURN 'not reached'; END \$\$;
  CREATE FUNCTION public.raisecancel() RETURNS text LANGUAGE plpgsql AS \$\$
  BEGIN RAISE EXCEPTION 'canceling statement due to user request' USING ERRCODE = 'query_canceled'; END \$\$;
  CREATE FUNCTION public.slowtool() RETURNS text LANGUAGE sql AS \$\$ SELECT pg_sleep(30)::text \$\$;
  INSERT INTO mcp.tool (name, description, parameters, function) VALUES
    ('selfcancel', 'cancels its own backend', '{\"type\":\"object\",\"properties\":{}}', 'public.selfcancel()'),
    ('slowtool', 'sleeps', '{\"type\":\"object\",\"properties\":{}}', 'public.slowtool()'),
    ('raisecancel', 'its statement is cancelled', '{\"type\":\"object\",\"properties\":{}}', 'public.raisecancel()');
  INSERT INTO mcp.interface (name, access_role) VALUES ('chatbot', 'public');
  INSERT INTO mcp.interface_tool VALUES ('chatbot', 'selfcancel'), ('chatbot', 'slowtool'), ('chatbot', 'raisecancel');" >/dev/null
for sc in ok never nul selfcancel slowtool raisecancel readtool; do
  q "INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('$sc', 'openai', 'http://127.0.0.1:$mock_port/s/$sc/v1', 'mock-model')" >/dev/null
done
chat_sql() { # chat_sql QUESTION PROVIDER
  echo "SELECT mcp.chat('$1', 'chatbot', NULL, '{\"provider\": \"$2\"}') ->> 'status' AS status;"
}
run_of() { # run_of QUESTION: "status error_kind llm_requests messages"
  q "SELECT r.status || ' ' || coalesce(r.error->>'kind', '-') || ' ' ||
            (SELECT count(*) FROM mcp.llm_request l WHERE l.run_id = r.run_id) || ' ' ||
            (SELECT count(*) FROM mcp.message m WHERE m.run_id = r.run_id)
       FROM mcp.run r WHERE r.question = '$1'"
}
wait_run() { # wait_run QUESTION EXPECTED [LIMIT_MS]: until run_of QUESTION = EXPECTED
  local t="$(now_ms)" got
  while :; do
    got="$(run_of "$1")"
    [ "$got" = "$2" ] && return 0
    [ $(( $(now_ms) - t )) -lt "${3:-5000}" ] || fail "run '$1': [$got], expected [$2]"
    sleep 0.05
  done
}
backend_of() { # backend_of APPNAME
  local pid
  for _ in $(seq 400); do
    # (while a tool runs, pg_mcp tags the session's application_name with mcp:<run>:call:<id>)
    pid="$(q "SELECT pid FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid()
                AND (application_name = '$1' OR (application_name LIKE 'mcp:%' AND query LIKE '%mcp.chat(%'))")"
    [ -n "$pid" ] && { echo "$pid"; return 0; }
    sleep 0.05
  done
  fail "backend of $1 not found" >&2
}
wait_requests() { # wait_requests SCENARIO N
  for _ in $(seq 200); do [ "$(mock_requests "$1")" -ge "$2" ] && return 0; sleep 0.05; done
  fail "scenario $1: the mock never got request $2"
}

# 1. ROLLBACK after the chat.
psql_at "$PORT" "$DB" -c "BEGIN" -c "$(chat_sql 'rollback me' ok)" -c "ROLLBACK" >/dev/null
wait_run 'rollback me' "completed - 1 2" 0
log "ROLLBACK after the chat: the run stays (completed, its request and messages)"

# 11 (first, while the mock holds the request): the run row is committed before the LLM answers.
start_session audit_cancel "$(chat_sql 'cancel me' never)" "SELECT 'backend still usable';"
wait_requests never 1
[ "$(q "SELECT status FROM mcp.run WHERE question = 'cancel me'")" = running ] || \
  fail "no committed run row while the first LLM request is in flight"
log "the run row is committed while the first LLM request is in flight"

# 2. pg_cancel_backend while waiting on the LLM.
pid="$(backend_of audit_cancel)"
t0="$(now_ms)"; q "SELECT pg_cancel_backend($pid)" >/dev/null; wait_for_end
grep -q 57014 "$work/session.out" || grep -q 'canceling statement' "$work/session.out" || fail "cancel: no 57014"
wait_run 'cancel me' "cancelled cancelled 1 1" 0
log "pg_cancel_backend: run cancelled (its request and messages kept)"

# 3. statement_timeout.
psql_at "$PORT" "$DB" -c "SET statement_timeout = '300ms'" -c "$(chat_sql 'time me out' never)" >/dev/null 2>&1 || true
wait_run 'time me out' "cancelled cancelled 1 1" 0
log "statement_timeout: run cancelled"

# 4. pg_terminate_backend while waiting on the LLM.
before="$(mock_requests never)"
start_session audit_term "$(chat_sql 'terminate me' never)" "SELECT 'backend still usable';"
wait_requests never $(( before + 1 ))
pid="$(backend_of audit_term)"; sleep 0.3
t0="$(now_ms)"; q "SELECT pg_terminate_backend($pid)" >/dev/null; wait_for_end
wait_run 'terminate me' "cancelled cancelled 1 1"
log "pg_terminate_backend while waiting on the LLM: run cancelled"

# 5. pg_terminate_backend while a tool runs: FATAL inside the tool, the backend records aborted.
start_session audit_tool "$(chat_sql 'terminate my tool' slowtool)" "SELECT 'backend still usable';"
pid="$(backend_of audit_tool)"
for _ in $(seq 200); do
  [ "$(q "SELECT wait_event FROM pg_stat_activity WHERE pid = $pid")" = PgSleep ] && break; sleep 0.05
done
t0="$(now_ms)"; q "SELECT pg_terminate_backend($pid)" >/dev/null; wait_for_end
wait_run 'terminate my tool' "aborted aborted 1 0"
[ "$(q "SELECT error->>'message' FROM mcp.run WHERE question = 'terminate my tool'")" = \
  "the backend running the chat ended (terminated or FATAL) before the run finished" ] || fail "terminate during a tool: not recorded by the backend itself"
log "pg_terminate_backend during a tool: run aborted"

# 6. The model's tool cancels its own backend: pg_cancel_backend is refused inside tools (the
#    sandbox), so the run goes on and completes; a tool whose statement is cancelled (57014, as
#    a cancel arriving while it runs) unwinds the chat, and the run is recorded cancelled.
[ "$(psql_at "$PORT" "$DB" -At -c "$(chat_sql 'cancel yourself' selfcancel)")" = completed ] || fail "self-cancel: chat did not complete"
wait_run 'cancel yourself' "completed - 2 4" 0
[ "$(q "SELECT status || ' ' || error_sqlstate FROM mcp.tool_call WHERE tool = 'selfcancel'")" = "denied 42501" ] || fail "self-cancel: the tool was not refused"
psql_at "$PORT" "$DB" -c "$(chat_sql 'cancel raised' raisecancel)" >"$work/self.out" 2>&1 || true
grep -q 'canceling statement' "$work/self.out" || fail "57014 in a tool: the statement was not cancelled: $(cat "$work/self.out")"
wait_run 'cancel raised' "cancelled cancelled 1 0" 0
log "a tool that cancels its own backend is refused (run completed, recorded); a tool cancelled with 57014: run cancelled, recorded"

# 7. A NUL in the model's answer.
[ "$(psql_at "$PORT" "$DB" -At -c "$(chat_sql 'nul please' nul)")" = completed ] || fail "NUL answer: chat did not complete"
wait_run 'nul please' "completed - 1 2" 0
[ "$(q "SELECT answer = 'before' || chr(65533) || 'after' FROM mcp.run WHERE question = 'nul please'")" = t ] || fail "NUL answer not stored"
log "a NUL in the answer: run completed, answer stored with U+FFFD"

# 8. The backend killed (SIGKILL) mid-run: the server restarts; the worker marks the run aborted.
start_session audit_kill "$(chat_sql 'kill me' never)" "SELECT 'backend still usable';"
before="$(mock_requests never)"
pid="$(backend_of audit_kill)"
for _ in $(seq 200); do [ "$(q "SELECT count(*) FROM mcp.run WHERE question = 'kill me'")" = 1 ] && break; sleep 0.05; done
as_root kill -KILL "$pid"; wait_for_end
for _ in $(seq 300); do q "SELECT 1" >/dev/null 2>&1 && break; sleep 0.1; done
# Found by the audit launcher's sweep after the crash restart, without any new chat.
wait_run 'kill me' "aborted aborted 0 0" 10000
psql_at "$PORT" "$DB" -At -c "$(chat_sql 'after the crash' ok)" >/dev/null
wait_run 'after the crash' "completed - 1 2"
log "backend SIGKILLed mid-run: the run was marked aborted after the restart, before any new chat"

# 9. The worker down and not restarted: the chat fails before any LLM request; nothing lost.
worker_pid() { q "SELECT q->>'worker_pid' FROM jsonb_array_elements(mcp.audit_status()->'queues') q WHERE (q->>'database_oid')::oid = (SELECT oid FROM pg_database WHERE datname = current_database())"; }
hold_worker_down() {
  local p
  p="$(worker_pid)"; [ -n "$p" ] && q "SELECT pg_terminate_backend($p)" >/dev/null
  for _ in $(seq 100); do [ -z "$(worker_pid)" ] && return 0; sleep 0.05; done
  fail "the audit worker did not end"
}
hold_worker_down
before="$(mock_requests ok)"
out="$(PGOPTIONS="$PGOPTIONS -c mcp.audit_start_worker=off -c mcp.audit_wait_ms=300" \
       psql_at "$PORT" "$DB" -v VERBOSITY=verbose -c "$(chat_sql 'worker down' ok)" 2>&1 || true)"
grep -q 55000 <<<"$out" || fail "worker down: no ERROR 55000: $out"
[ "$(mock_requests ok)" = "$before" ] || fail "worker down: an LLM request was sent"
psql_at "$PORT" "$DB" -At -c "$(chat_sql 'worker back' ok)" >/dev/null
wait_run 'worker down' "failed audit_unavailable 0 0" 0
wait_run 'worker back' "completed - 1 2" 0
log "audit worker down: the chat failed with 55000 before any LLM request; its record landed once a worker ran"

# 10. The queue full (asynchronous, worker held down): fails before any LLM request.
hold_worker_down
big="$(head -c 400000 /dev/zero | tr '\0' x)"
ASYNC="$PGOPTIONS -c mcp.audit_start_worker=off -c mcp.audit_wait_ms=300 -c mcp.audit_synchronous=off"
before="$(mock_requests ok)"
printf "SELECT mcp.chat('full %s ' || x, 'chatbot', NULL, '{\"provider\": \"ok\"}') ->> 'status' FROM (VALUES ('%s')) v(x);\n" 1 "$big" 2 "$big" 3 "$big" >"$work/full.sql"
out="$(PGOPTIONS="$ASYNC" psql_at "$PORT" "$DB" -At -v ON_ERROR_STOP=0 -v VERBOSITY=verbose -f "$work/full.sql" 2>&1 || true)"
grep -q 55000 <<<"$out" || fail "queue full: no ERROR 55000: $(head -c 600 <<<"$out")"
grep -q 'stayed full' <<<"$out" || fail "queue full: not the queue: $(head -c 600 <<<"$out")"
completed="$(grep -c '^completed$' <<<"$out" || true)"
[ "$(( $(mock_requests ok) - before ))" = "$completed" ] || fail "queue full: $completed chats completed but the mock saw $(( $(mock_requests ok) - before )) requests"
psql_at "$PORT" "$DB" -At -c "$(chat_sql 'queue drained' ok)" >/dev/null
wait_run 'queue drained' "completed - 1 2" 0
[ "$(q "SELECT count(*) FROM mcp.run WHERE question LIKE 'full %' AND status = 'completed'")" = "$completed" ] || \
  fail "queue full: the $completed completed chats are not all recorded"
log "audit queue full: the chat failed with 55000 before any LLM request; the $completed chat(s) queued before landed"

# 12. A call of its own, rolled back: the audit row stays (synchronous: committed before the
#     call returns, so visible to the same transaction's next statement).
q "INSERT INTO mcp.interface_tool VALUES ('chatbot', 'sql_query');
   DROP ROLE IF EXISTS audit_reader; CREATE ROLE audit_reader" >/dev/null
out="$(psql_at "$PORT" "$DB" -At -c "BEGIN" -c "SET LOCAL ROLE audit_reader" \
  -c "SELECT mcp.call_tool('sql_query', '{\"query\": \"SELECT 12 AS standalone\"}', 'chatbot') IS NOT NULL" -c "RESET ROLE" \
  -c "SELECT count(*) FROM mcp.tool_call WHERE tool = 'sql_query' AND arguments->>'query' = 'SELECT 12 AS standalone'" \
  -c "ROLLBACK")"
[ "$out" = "$(printf 't\n1')" ] || fail "standalone call: [$out], expected the row visible in the transaction"
[ "$(q "SELECT status || ' ' || (run_id IS NULL) FROM mcp.tool_call WHERE arguments->>'query' = 'SELECT 12 AS standalone'")" = "ok true" ] || \
  fail "standalone call rolled back: its audit row is gone"
# Without the durable audit: the row is the caller's and goes with its ROLLBACK (as before).
PGOPTIONS="-c mcp.audit_durable=off" psql_at "$PORT" "$DB" -At -c "BEGIN" -c "SET LOCAL ROLE audit_reader" \
  -c "SELECT mcp.call_tool('sql_query', '{\"query\": \"SELECT 13 AS standalone\"}', 'chatbot') IS NOT NULL" -c "ROLLBACK" >/dev/null
[ "$(q "SELECT count(*) FROM mcp.tool_call WHERE arguments->>'query' = 'SELECT 13 AS standalone'")" = 0 ] || \
  fail "audit_durable off: the standalone call's row outlived the ROLLBACK"
log "a tool call of its own in a rolled-back transaction: its audit row stays (durable), goes with the ROLLBACK when off"

# 14. A bad record loses only itself: the worker stores a batch with one call and, when that
#     fails, record by record. A CHECK constraint refuses one tool call's row; the records queued
#     around it (worker held down, so they are one batch) all land, and one record is counted
#     failed.
hold_worker_down
q "ALTER TABLE mcp.tool_call ADD CONSTRAINT audit_test_poison CHECK (tool <> 'poison')" >/dev/null
failed() { q "SELECT coalesce(sum((q->>'records_failed')::int), 0) FROM jsonb_array_elements(mcp.audit_status()->'queues') q"; }
failed_before="$(failed)"
PGOPTIONS="$ASYNC" psql_at "$PORT" "$DB" -At -v ON_ERROR_STOP=0 \
  -c "SELECT mcp.call_tool('sql_query', '{\"query\": \"SELECT 14 AS batch\"}', 'chatbot') IS NOT NULL" \
  -c "SELECT mcp.call_tool('poison', '{}', 'chatbot') IS NOT NULL" \
  -c "SELECT mcp.call_tool('sql_query', '{\"query\": \"SELECT 15 AS batch\"}', 'chatbot') IS NOT NULL" >/dev/null 2>&1 || true
[ -z "$(worker_pid)" ] || fail "bad record: the worker ran while the batch was queued"
[ "$(q "SELECT count(*) FROM mcp.tool_call WHERE arguments->>'query' LIKE 'SELECT 1_ AS batch'")" = 0 ] || \
  fail "bad record: rows stored before the worker ran"
# Starts the worker and waits for its commit (synchronous): the queue is stored in order.
q "SELECT mcp.call_tool('sql_query', '{\"query\": \"SELECT 16 AS batch\"}', 'chatbot') IS NOT NULL" >/dev/null
got="$(q "SELECT string_agg(arguments->>'query', ',' ORDER BY call_id) FROM mcp.tool_call WHERE arguments->>'query' LIKE 'SELECT 1_ AS batch'")"
[ "$got" = "SELECT 14 AS batch,SELECT 15 AS batch,SELECT 16 AS batch" ] || fail "bad record: the good records around it: [$got]"
[ "$(q "SELECT count(*) FROM mcp.tool_call WHERE tool = 'poison'")" = 0 ] || fail "bad record: the refused row is there"
[ "$(( $(failed) - failed_before ))" = 1 ] || fail "bad record: records_failed went from $failed_before to $(failed), expected one more"
q "ALTER TABLE mcp.tool_call DROP CONSTRAINT audit_test_poison" >/dev/null
log "a bad record in a batch: only it is lost (counted failed), the records around it land in order"

# 15. Read-only tools leave the caller's transaction without a transaction id (the audit rows
#     are the worker's; the tool's cursor runs as a writing statement would, with a fresh
#     snapshot, but asks for no transaction id).
q "CREATE FUNCTION public.readitem() RETURNS text LANGUAGE sql STABLE AS \$\$ SELECT 'item 15' \$\$;
   INSERT INTO mcp.tool (name, description, parameters, function) VALUES
     ('readitem', 'reads', '{\"type\":\"object\",\"properties\":{}}', 'public.readitem()');
   INSERT INTO mcp.interface_tool VALUES ('chatbot', 'readitem')" >/dev/null
# (nextval, which reserves each call's id, asks for a transaction id when it WAL-logs the
# sequence: once every 32 values, and after a checkpoint. The sequence is logged right before,
# so the three calls below do not; a checkpoint in between is retried once.)
readonly_calls() {
  q "SELECT pg_catalog.setval('mcp.tool_call_call_id_seq', pg_catalog.nextval('mcp.tool_call_call_id_seq'));
     SELECT pg_catalog.nextval('mcp.tool_call_call_id_seq')" >/dev/null
  psql_at "$PORT" "$DB" -At -c "BEGIN" -c "$(chat_sql "$1" readtool)" \
    -c "SELECT txid_current_if_assigned() IS NULL" \
    -c "SELECT mcp.call_tool('readitem', '{}', 'chatbot') IS NOT NULL" \
    -c "SELECT mcp.call_tool('sql_query', '{\"query\": \"SELECT 15 AS readonly\"}', 'chatbot') IS NOT NULL" \
    -c "SELECT txid_current_if_assigned() IS NULL" -c "COMMIT"
}
out="$(readonly_calls 'read only')"
if [ "$out" != "$(printf 'completed\nt\nt\nt\nt')" ]; then
  log "read-only tools: [$(echo $out)] on the first try, once more"
  q "DELETE FROM mcp.tool_call WHERE run_id IS NULL AND tool IN ('readitem', 'sql_query') AND (tool = 'readitem' OR arguments->>'query' = 'SELECT 15 AS readonly')" >/dev/null
  q "UPDATE mcp.run SET question = 'read only (first try)' WHERE question = 'read only'" >/dev/null
  out="$(readonly_calls 'read only')"
fi
[ "$out" = "$(printf 'completed\nt\nt\nt\nt')" ] || \
  fail "read-only tools: [$out], expected the chat completed and no transaction id before and after the calls of their own"
wait_run 'read only' "completed - 2 4" 0
[ "$(q "SELECT string_agg(t.tool || ':' || t.status, ',' ORDER BY t.call_id) FROM mcp.tool_call t
        JOIN mcp.run r USING (run_id) WHERE r.question = 'read only'")" = "readitem:ok" ] || \
  fail "read-only tools: the chat's tool call row is missing"
[ "$(q "SELECT count(*) FROM mcp.tool_call WHERE run_id IS NULL AND ((tool = 'readitem' AND status = 'ok')
        OR arguments->>'query' = 'SELECT 15 AS readonly')")" = 2 ] || \
  fail "read-only tools: the rows of the calls of their own are missing"
log "read-only tools (a chat's and calls of their own) leave the caller's transaction without a transaction id; all rows recorded"

# 13. Ten databases (copies of a template with pg_mcp, the mock provider and an open interface),
#     each with one chat: all ten runs recorded, although there are only 8 queues.
TPL=pg_mcp_audit_tpl
fresh_db "$PORT" "$TPL"
psql_at "$PORT" "$TPL" -c "
  INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('ok', 'openai', 'http://127.0.0.1:$mock_port/s/ok/v1', 'mock-model');
  INSERT INTO mcp.interface (name, access_role) VALUES ('chatbot', 'public');" >/dev/null
for n in $(seq 0 9); do
  psql_at "$PORT" postgres -c "DROP DATABASE IF EXISTS pg_mcp_audit_db$n" -c "CREATE DATABASE pg_mcp_audit_db$n TEMPLATE $TPL" >/dev/null
done
for n in $(seq 0 9); do
  got="$(psql_at "$PORT" "pg_mcp_audit_db$n" -At -c "$(chat_sql "database $n" ok)" 2>"$work/db.err")" || fail "database $n: $(cat "$work/db.err")"
  [ "$got" = completed ] || fail "database $n: chat [$got]"
done
for n in $(seq 0 9); do
  t="$(now_ms)"
  until [ "$(psql_at "$PORT" "pg_mcp_audit_db$n" -At -c "SELECT status FROM mcp.run WHERE question = 'database $n'")" = completed ]; do
    [ $(( $(now_ms) - t )) -lt 10000 ] || fail "database $n: its run was not recorded"
    sleep 0.1
  done
done
log "ten databases, 8 audit queues: every database's run recorded"

psql_at "$PORT" "$DB" -At -c "SELECT mcp.audit_status()->'queues'" >/dev/null
# The worker ends when idle, so the database can be dropped.
for _ in $(seq 100); do [ -z "$(worker_pid)" ] && break; sleep 0.1; done
for _ in $(seq 100); do [ "$(q "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'pg_mcp audit writer'")" = 0 ] && break; sleep 0.1; done
for n in $(seq 0 9); do psql_at "$PORT" postgres -c "DROP DATABASE IF EXISTS pg_mcp_audit_db$n" >/dev/null; done
psql_at "$PORT" postgres -c "DROP DATABASE IF EXISTS $TPL" -c "DROP DATABASE IF EXISTS $DB" -c "DROP ROLE IF EXISTS audit_reader" >/dev/null
log "ok"
