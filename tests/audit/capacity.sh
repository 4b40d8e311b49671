#!/usr/bin/env bash
# Audit the caller can neither erase nor avoid, and audit capacity no role can take from the
# others (issue 20, items 5 and 6). With pg_mcp preloaded and mcp.audit_durable on:
#  1. records larger than the audit queue (two 3 MB tool results in one answer, so a 6 MB
#     request body and conversation): a chat followed by ROLLBACK keeps its run (completed), both
#     LLM requests, its tool calls and every message; the cut values keep their size and SHA-256
#     in clipped;
#  2. read-only transactions (SET TRANSACTION READ ONLY, default_transaction_read_only): a tool
#     call through mcp.call_tool, MCP tools/call (mcp.handle) and a chat's tool call each leave
#     their mcp.tool_call row; without the worker the call is refused (25006) before it runs,
#     unless mcp.audit_read_only_calls = log;
#  3. denied and invalid calls with a 1 MB argument leave a row of bounded size (the argument's
#     size and SHA-256 in clipped);
#  4. more databases than audit queues, eight of them held busy by one role: a chat in a ninth
#     database still gets a queue (fair turns) and its rows outlast its ROLLBACK;
#  5. mcp.plan_example_similarity: refused (42501) to a role without the interface's access.
#     (Its lock behaviour is tests/plans/concurrent.sh.)
# Uses the regress cluster (preloaded by scripts/lib.sh, durable audit off by default there).
set -euo pipefail
LOG_TAG=audit-capacity
. "$(dirname "$0")/../../scripts/lib.sh"

DIR="${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress/pgdata}"
PORT="${PG_MCP_REGRESS_PORT:-55433}"
DB=pg_mcp_audit_capacity
TPL=pg_mcp_audit_cap_tpl

start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB" >/dev/null
work="$(mktemp -d)"
chmod 755 "$work"
bg_pid=
. "$ROOT/tests/cancel/sessions.sh"   # now_ms, start_mock, mock_requests
start_mock "$ROOT/tests/audit/capacity"
hogs=()
stop_hogs() { # the hog's psql clients and their backends (a DO loop outlives its client)
  for h in "${hogs[@]}"; do kill "$h" 2>/dev/null || true; done
  hogs=()
  psql_at "$PORT" postgres -At -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                                    WHERE datname LIKE 'pg_mcp_audit_cap_' AND backend_type = 'client backend'" >/dev/null 2>&1 || true
}
cleanup() {
  stop_hogs
  mock_cleanup
}
trap cleanup EXIT
fail() { log "FAIL: $*"; exit 1; }
# STEPS="1 3": run only those steps (default: all).
want() { [ -z "${STEPS:-}" ] || [[ " $STEPS " == *" $1 "* ]]; }

export PGOPTIONS="-c mcp.audit_durable=on"
q() { psql_at "$PORT" "$DB" -At -c "$1"; }
psql_at "$PORT" "$DB" -c "
  CREATE FUNCTION public.bigtool() RETURNS TABLE (n int, v text) LANGUAGE sql AS \$\$ SELECT i, repeat('x', 1000) FROM generate_series(1, 3000) i \$\$;
  INSERT INTO mcp.tool (name, description, parameters, function) VALUES
    ('bigtool', 'returns 3 MB', '{\"type\":\"object\",\"properties\":{}}', 'public.bigtool()');
  INSERT INTO mcp.interface (name, access_role) VALUES ('chatbot', 'public'), ('closed', NULL);
  INSERT INTO mcp.interface_tool VALUES ('chatbot', 'bigtool'), ('chatbot', 'sql_query'), ('closed', 'sql_query');
  DROP ROLE IF EXISTS audit_cap_nobody; CREATE ROLE audit_cap_nobody;" >/dev/null
for sc in ok bigtool rosql; do
  q "INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('$sc', 'openai', 'http://127.0.0.1:$mock_port/s/$sc/v1', 'mock-model')" >/dev/null
done
q "INSERT INTO mcp.interface (name, access_role, provider) VALUES ('ro', 'public', 'rosql');
   INSERT INTO mcp.interface_tool VALUES ('ro', 'sql_query')" >/dev/null
chat_sql() { # chat_sql QUESTION PROVIDER
  echo "SELECT mcp.chat('$1', 'chatbot', NULL, '{\"provider\": \"$2\"}') ->> 'status' AS status;"
}
run_of() { # run_of QUESTION: "status llm_requests tool_calls messages"
  q "SELECT r.status || ' ' || (SELECT count(*) FROM mcp.llm_request l WHERE l.run_id = r.run_id) || ' ' ||
            (SELECT count(*) FROM mcp.tool_call t WHERE t.run_id = r.run_id) || ' ' ||
            (SELECT count(*) FROM mcp.message m WHERE m.run_id = r.run_id)
       FROM mcp.run r WHERE r.question = '$1'"
}
wait_run() { # wait_run QUESTION EXPECTED [LIMIT_MS]
  local t="$(now_ms)" got
  while :; do
    got="$(run_of "$1")"
    [ "$got" = "$2" ] && return 0
    [ $(( $(now_ms) - t )) -lt "${3:-5000}" ] || fail "run '$1': [$got], expected [$2]"
    sleep 0.05
  done
}

if want 1; then
# 1. Two 3 MB tool results (3000 rows of 1000 characters each; the model gets all of it: the
#    result limits raised), then ROLLBACK.
BIG="-c mcp.max_result_bytes=4MB -c mcp.default_rows=5000 -c mcp.max_rows=5000 -c mcp.max_cell_chars=2000"
out="$(PGOPTIONS="$PGOPTIONS $BIG" psql_at "$PORT" "$DB" -At \
        -c "BEGIN" -c "$(chat_sql 'big result' bigtool)" -c "ROLLBACK" 2>&1)"
[ "$out" = completed ] || fail "3 MB tool result: [$(head -c 600 <<<"$out")]"
wait_run 'big result' "completed 2 2 5" 0
# The second request carried the 3 MB result: its body is cut, with the size and SHA-256 of what
# was sent; the tool message the same.
got="$(q "SELECT (l.clipped->'request_body'->>'bytes')::bigint > 3000000, pg_column_size(l.request_body) < 1100000
            FROM mcp.llm_request l JOIN mcp.run r USING (run_id) WHERE r.question = 'big result' AND l.iteration = 2")"
[ "$got" = "t|t" ] || fail "3 MB request body: not recorded with its size: [$got]"
got="$(q "SELECT bool_and((m.clipped->'message'->>'bytes')::bigint > 3000000) AND count(*) = 2
            FROM mcp.message m JOIN mcp.run r USING (run_id) WHERE r.question = 'big result' AND m.role = 'tool'")"
[ "$got" = t ] || fail "3 MB tool messages: [$got]"
log "two 3 MB tool results in a chat, then ROLLBACK: run completed, 2 requests, 2 tool calls, 5 messages kept (cut values with size + SHA-256)"
fi

if want 2; then
# 2. Read-only transactions, worker on: every tool call leaves its row.
out="$(psql_at "$PORT" "$DB" -At -c "BEGIN TRANSACTION READ ONLY" -c "SET LOCAL ROLE audit_cap_nobody" \
  -c "SELECT mcp.call_tool('sql_query', '{\"query\": \"SELECT 21 AS ro_call\"}', 'chatbot') ->> 'isError'" -c "COMMIT" 2>&1)"
[ "$out" = false ] || fail "read-only mcp.call_tool: [$out]"
[ "$(q "SELECT count(*) FROM mcp.tool_call WHERE arguments->>'query' = 'SELECT 21 AS ro_call' AND status = 'ok' AND role_name = 'audit_cap_nobody'")" = 1 ] || \
  fail "read-only mcp.call_tool: no audit row"
out="$(PGOPTIONS="$PGOPTIONS -c default_transaction_read_only=on" psql_at "$PORT" "$DB" -At -c "SET ROLE audit_cap_nobody" \
  -c "SELECT mcp.handle('{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"sql_query\",\"arguments\":{\"query\":\"SELECT 22 AS ro_handle\"}}}') -> 'result' ->> 'isError'" 2>&1)"
[ "$out" = false ] || fail "read-only tools/call: [$out]"
[ "$(q "SELECT count(*) FROM mcp.tool_call WHERE arguments->>'query' = 'SELECT 22 AS ro_handle' AND status = 'ok'")" = 1 ] || \
  fail "read-only tools/call: no audit row"
out="$(psql_at "$PORT" "$DB" -At -c "BEGIN TRANSACTION READ ONLY" -c "SET LOCAL ROLE audit_cap_nobody" \
  -c "SELECT mcp.chat('read-only chat', 'ro') ->> 'status'" -c "COMMIT" 2>&1)"
[ "$out" = completed ] || fail "read-only chat: [$out]"
wait_run 'read-only chat' "completed 2 1 4" 0
[ "$(q "SELECT t.status FROM mcp.tool_call t JOIN mcp.run r USING (run_id) WHERE r.question = 'read-only chat'")" = ok ] || \
  fail "read-only chat: its tool call is not recorded"
# Worker off: refused before the tool runs, or (mcp.audit_read_only_calls = log) run unrecorded.
out="$(PGOPTIONS="-c mcp.audit_durable=off" psql_at "$PORT" "$DB" -At -v VERBOSITY=verbose -c "BEGIN TRANSACTION READ ONLY" -c "SET LOCAL ROLE audit_cap_nobody" \
  -c "SELECT mcp.call_tool('sql_query', '{\"query\": \"SELECT 24 AS ro_off\"}', 'chatbot')" 2>&1 || true)"
grep -q 25006 <<<"$out" || fail "read-only without the worker: not refused: $out"
out="$(PGOPTIONS="-c mcp.audit_durable=off -c mcp.audit_read_only_calls=log" psql_at "$PORT" "$DB" -At -c "BEGIN TRANSACTION READ ONLY" -c "SET LOCAL ROLE audit_cap_nobody" \
  -c "SELECT mcp.call_tool('sql_query', '{\"query\": \"SELECT 25 AS ro_log\"}', 'chatbot') ->> 'isError'" -c "COMMIT" 2>&1)"
[ "$out" = false ] || fail "read-only, audit_read_only_calls = log: [$out]"
[ "$(q "SELECT count(*) FROM mcp.tool_call WHERE arguments->>'query' IN ('SELECT 24 AS ro_off', 'SELECT 25 AS ro_log')")" = 0 ] || \
  fail "read-only without the worker wrote a row"
log "read-only transactions: mcp.call_tool, tools/call and a chat's tool call recorded by the worker; without it refused (25006), or run with the server log only (mcp.audit_read_only_calls = log)"
fi

if want 3; then
# 3. Denied (closed interface) and invalid calls with a 1 MB argument: bounded rows.
psql_at "$PORT" "$DB" -At -c "SET ROLE audit_cap_nobody" \
  -c "SELECT mcp.call_tool('sql_query', jsonb_build_object('query', repeat('d', 1000000)), 'closed') ->> 'isError'" \
  -c "SELECT mcp.call_tool('sql_query', jsonb_build_object('query', 5, 'pad', repeat('i', 1000000)), 'chatbot') ->> 'isError'" >"$work/refused.out"
[ "$(cat "$work/refused.out")" = "$(printf 'true\ntrue')" ] || fail "refused calls: $(cat "$work/refused.out")"
got="$(q "SELECT string_agg(status || ':' || (pg_column_size(t.*) < 3000) || ':' || ((clipped->'arguments'->>'bytes')::int > 1000000), ' ' ORDER BY status)
            FROM mcp.tool_call t WHERE role_name = 'audit_cap_nobody' AND status IN ('denied', 'invalid')")"
[ "$got" = "denied:true:true invalid:true:true" ] || fail "refused calls: rows not bounded: [$got] ($(q "SELECT string_agg(status || ' ' || pg_column_size(t.*), ', ') FROM mcp.tool_call t WHERE role_name = 'audit_cap_nobody'"))"
sizes="$(q "SELECT string_agg(status || ' ' || pg_column_size(t.*) || ' bytes', ', ' ORDER BY status) FROM mcp.tool_call t WHERE role_name = 'audit_cap_nobody' AND status IN ('denied', 'invalid')")"
log "denied and invalid calls with a 1 MB argument: rows of $sizes"
fi

if want 5; then
# 5. plan_example_similarity checks the caller's access to the interface.
out="$(psql_at "$PORT" "$DB" -At -v VERBOSITY=verbose -c "SET ROLE audit_cap_nobody" \
  -c "SELECT count(*) FROM mcp.plan_example_similarity('closed', '[1,0,0]')" 2>&1 || true)"
grep -q 42501 <<<"$out" || fail "plan_example_similarity on a closed interface: $out"
[ "$(psql_at "$PORT" "$DB" -At -c "SET ROLE audit_cap_nobody" -c "SELECT count(*) FROM mcp.plan_example_similarity('chatbot', '[1,0,0]')")" = 0 ] || \
  fail "plan_example_similarity on an open interface"
log "mcp.plan_example_similarity: 42501 without the interface's access"
fi

if want 4; then
# 4. Nine databases, eight audit queues; one role keeps eight of them busy with denied calls;
#    a chat in the ninth still gets a queue, and its rows outlast its ROLLBACK.
fresh_db "$PORT" "$TPL" >/dev/null
psql_at "$PORT" "$TPL" -c "
  INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('ok', 'openai', 'http://127.0.0.1:$mock_port/s/ok/v1', 'mock-model');
  INSERT INTO mcp.interface (name, access_role) VALUES ('chatbot', 'public');" >/dev/null
for n in $(seq 0 8); do
  psql_at "$PORT" postgres -c "DROP DATABASE IF EXISTS pg_mcp_audit_cap$n" -c "CREATE DATABASE pg_mcp_audit_cap$n TEMPLATE $TPL" >/dev/null
done
for n in $(seq 0 7); do
  psql_at "$PORT" "pg_mcp_audit_cap$n" -At -c "SET ROLE audit_cap_nobody" -c "DO \$\$ BEGIN
      FOR i IN 1..100000 LOOP PERFORM mcp.call_tool('nope', '{}', 'chatbot'); PERFORM pg_sleep(0.01); END LOOP; END \$\$" \
      >"$work/hog$n.out" 2>&1 &
  hogs+=($!)
done
held() { # queues held by the hog's databases, and how many of them with a running writer
  q "SELECT count(*) || ' ' || count(x->>'worker_pid') FROM jsonb_array_elements(mcp.audit_status()->'queues') x
       JOIN pg_database d ON d.oid = (x->>'database_oid')::oid WHERE d.datname LIKE 'pg_mcp_audit_cap_'"; }
t="$(now_ms)"
until [ "$(held | cut -d' ' -f1)" = 8 ]; do
  [ $(( $(now_ms) - t )) -lt 15000 ] || fail "the hog never held the queues ($(held))"
  sleep 0.1
done
sleep 1
t0="$(now_ms)"
out="$(psql_at "$PORT" pg_mcp_audit_cap8 -At -c "BEGIN" -c "$(chat_sql 'the ninth database' ok)" -c "ROLLBACK" 2>"$work/ninth.err" || true)"
elapsed=$(( $(now_ms) - t0 ))
[ "$out" = completed ] || fail "ninth database, queues held by one role: [$out] $(cat "$work/ninth.err")"
# (a WARNING that the worker could not start yet is allowed: the hog's writers use up
# max_worker_processes; one written in the caller's transaction would show in the ROLLBACK below)
warnings="$(grep -c WARNING "$work/ninth.err" || true)"
t="$(now_ms)"
until [ "$(psql_at "$PORT" pg_mcp_audit_cap8 -At -c "SELECT status FROM mcp.run WHERE question = 'the ninth database'")" = completed ]; do
  [ $(( $(now_ms) - t )) -lt 10000 ] || fail "ninth database: its run was not recorded"
  sleep 0.1
done
still="$(held)"
stop_hogs
log "eight databases held busy by one role: a chat in a ninth took ${elapsed} ms ($warnings warnings) and its run outlasted its ROLLBACK (queues of the hog's databases / with a writer, afterwards: $still)"
fi

for _ in $(seq 150); do [ "$(q "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'pg_mcp audit writer' OR datname LIKE 'pg_mcp_audit_cap_'")" = 0 ] && break; sleep 0.1; done
for n in $(seq 0 8); do psql_at "$PORT" postgres -c "DROP DATABASE IF EXISTS pg_mcp_audit_cap$n" >/dev/null; done
psql_at "$PORT" postgres -c "DROP DATABASE IF EXISTS $TPL" -c "DROP DATABASE IF EXISTS $DB" -c "DROP ROLE IF EXISTS audit_cap_nobody" >/dev/null
log "ok"
