#!/usr/bin/env bash
# Governance against a real server:
#  1. a pending approval survives a server restart: a chat stops with awaiting_approval, the
#     server restarts, an approver approves, the session continues and the approved call runs
#     as the requester with the approved arguments;
#  2. the request-rate limit under 16 concurrent sessions (durable audit on): a role limited to
#     5 requests per minute gets exactly 5 LLM requests through, the other 11 chats end with
#     budget_exceeded, the mock LLM saw exactly 5 requests and the counter says 5; 8 sessions of
#     a role without a budget, at the same time, all complete (one client limited, not the rest);
#  3. a budget exhausted in the middle of two concurrent runs: a role limited to 3 requests per
#     minute, two sessions whose runs need 2 requests each (a tool call, then the answer): one
#     completes, the other ends with budget_exceeded after its first request; 3 requests sent.
set -euo pipefail
LOG_TAG=governance
. "$(dirname "$0")/../../scripts/lib.sh"

DIR="${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress/pgdata}"
PORT="${PG_MCP_REGRESS_PORT:-55433}"
DB=pg_mcp_governance

start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
work="$(mktemp -d)"
chmod 755 "$work"
bg_pid=
. "$ROOT/tests/cancel/sessions.sh"   # start_mock, mock_requests
start_mock "$ROOT/tests/governance/scenarios"
fail() { log "FAIL: $*"; exit 1; }
q() { psql_at "$PORT" "$DB" -At -c "$1"; }

psql_at "$PORT" "$DB" >/dev/null <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'gov_req') THEN CREATE ROLE gov_req NOLOGIN; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'gov_appr') THEN CREATE ROLE gov_appr NOLOGIN; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'gov_rate') THEN CREATE ROLE gov_rate NOLOGIN; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'gov_free') THEN CREATE ROLE gov_free NOLOGIN; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'gov_mid') THEN CREATE ROLE gov_mid NOLOGIN; END IF;
END \$\$;
GRANT mcp_approver TO gov_appr;
CREATE TABLE public.ticket (id serial PRIMARY KEY, title text, priority int, created_by name DEFAULT current_user);
GRANT SELECT, INSERT ON public.ticket TO gov_req;
GRANT USAGE ON SEQUENCE public.ticket_id_seq TO gov_req;
CREATE FUNCTION public.create_ticket(title text, priority int) RETURNS text LANGUAGE sql AS
  \$\$ INSERT INTO public.ticket (title, priority) VALUES (title, priority) RETURNING 'ticket ' || id || ' by ' || created_by \$\$;
INSERT INTO mcp.provider (name, kind, base_url, model) VALUES
  ('ticket', 'openai', 'http://127.0.0.1:$mock_port/s/ticket/v1', 'mock-model'),
  ('rate', 'openai', 'http://127.0.0.1:$mock_port/s/rate/v1', 'mock-model'),
  ('free', 'openai', 'http://127.0.0.1:$mock_port/s/free/v1', 'mock-model'),
  ('midrun', 'openai', 'http://127.0.0.1:$mock_port/s/midrun/v1', 'mock-model');
CREATE FUNCTION public.slow_lookup() RETURNS text LANGUAGE plpgsql AS
  \$\$ BEGIN PERFORM pg_sleep(1); RETURN 'found'; END \$\$;
INSERT INTO mcp.tool (name, description, parameters, function, read_only) VALUES
  ('createTicket', 'Opens a ticket',
   '{"type":"object","properties":{"title":{"type":"string"},"priority":{"type":"integer"}},"required":["title","priority"]}',
   'public.create_ticket(text,int)', false),
  ('slowLookup', 'Looks something up (slowly)', '{"type":"object","properties":{}}', 'public.slow_lookup()', true);
INSERT INTO mcp.interface (name, provider, access_role, allow_acting_tools) VALUES
  ('helpdesk', 'ticket', 'public', true), ('rate', 'rate', 'public', false), ('free', 'free', 'public', false),
  ('midrun', 'midrun', 'public', false);
INSERT INTO mcp.interface_tool VALUES ('helpdesk', 'createTicket'), ('midrun', 'slowLookup');
INSERT INTO mcp.budget (scope, name, requests_per_minute) VALUES ('role', 'gov_rate', 5), ('role', 'gov_mid', 3);
SQL

# 1. A pending approval survives a restart
out="$(q "SET ROLE gov_req; SELECT mcp.chat('Mein Drucker ist kaputt', 'helpdesk')")"
status="$(jq -r .status <<<"$out")"; run_id="$(jq -r .run_id <<<"$out")"; session="$(jq -r .session_id <<<"$out")"
[ "$status" = awaiting_approval ] || fail "expected awaiting_approval: $out"
[ "$(q "SELECT count(*) FROM public.ticket")" = 0 ] || fail "the call ran before its approval"
as_pg "$PG_BIN/pg_ctl" -D "$DIR" -l "$DIR/server.log" -m fast -w -t 60 restart >/dev/null
[ "$(q "SELECT status FROM mcp.approval WHERE run_id = '$run_id'")" = pending ] || fail "the pending approval did not survive the restart"
q "SET ROLE gov_appr; SELECT mcp.approve('$run_id', 'call_t1')" >/dev/null
done_="$(q "SET ROLE gov_req; SELECT mcp.chat('', 'helpdesk', '$session')")"
[ "$(jq -r .status <<<"$done_")" = completed ] || fail "continuation after the restart: $done_"
[ "$(q "SELECT created_by || '/' || title || '/' || priority FROM public.ticket")" = "gov_req/Drucker defekt/2" ] \
  || fail "the approved call did not run as the requester with the approved arguments: $(q "TABLE public.ticket")"
log "a pending approval survived a restart; approved after it, the call ran as gov_req with the approved arguments"

# 2. 16 concurrent sessions against requests_per_minute = 5 (not across a minute boundary)
sec="$(date +%-S)"; [ "$sec" -gt 40 ] && sleep $((61 - sec))
before="$(mock_requests rate)"
pids=()
for i in $(seq 16); do
  PGOPTIONS="-c mcp.audit_durable=on" psql_at "$PORT" "$DB" -At \
    -c "SET ROLE gov_rate" -c "SELECT mcp.chat('Hallo $i', 'rate') ->> 'status'" >"$work/rate.$i" 2>&1 &
  pids+=("$!")
done
# at the same time, a role without a budget: not held back by the limited one
for i in $(seq 8); do
  PGOPTIONS="-c mcp.audit_durable=on" psql_at "$PORT" "$DB" -At \
    -c "SET ROLE gov_free" -c "SELECT mcp.chat('Hallo $i', 'free') ->> 'status'" >"$work/free.$i" 2>&1 &
  pids+=("$!")
done
for p in "${pids[@]}"; do wait "$p" || fail "a session failed: $(cat "$work"/rate.* "$work"/free.* | sort | uniq -c)"; done
free_done="$(cat "$work"/free.* | grep -cx completed || true)"
[ "$free_done" = 8 ] || fail "the role without a budget: $free_done of 8 completed ($(cat "$work"/free.* | sort | uniq -c | tr '\n' ' '))"
completed="$(cat "$work"/rate.* | grep -cx completed || true)"
exceeded="$(cat "$work"/rate.* | grep -cx budget_exceeded || true)"
sent=$(( $(mock_requests rate) - before ))
counter="$(q "SELECT requests_this_minute FROM mcp.budget_usage() WHERE scope = 'role' AND name = 'gov_rate'")"
[ "$completed" = 5 ] && [ "$exceeded" = 11 ] || fail "16 sessions, limit 5: $completed completed, $exceeded budget_exceeded ($(cat "$work"/rate.* | sort | uniq -c | tr '\n' ' '))"
[ "$sent" = 5 ] || fail "the mock LLM received $sent requests, the limit is 5"
[ "$counter" = 5 ] || fail "the counter says $counter"
sleep 1
[ "$(q "SELECT count(*) FROM mcp.run WHERE role_name = 'gov_rate' AND status = 'budget_exceeded' AND error ->> 'message' LIKE '%requests_per_minute 5 reached%resets at%'")" = 11 ] \
  || fail "the refused runs do not name the limit: $(q "SELECT status, error FROM mcp.run WHERE role_name = 'gov_rate'")"
log "16 concurrent sessions, requests_per_minute = 5: exactly 5 requests sent, 11 runs budget_exceeded naming the limit and its reset, counter 5; 8 sessions of another role at the same time all completed"

# 3. A budget exhausted in the middle of two concurrent runs (2 requests each, 3 allowed)
sec="$(date +%-S)"; [ "$sec" -gt 50 ] && sleep $((61 - sec))
before="$(mock_requests midrun)"
for i in 1 2; do
  psql_at "$PORT" "$DB" -At -c "SET ROLE gov_mid" \
    -c "SELECT (r ->> 'status') || ' ' || (r ->> 'run_id') FROM mcp.chat('Such $i', 'midrun') r" >"$work/mid.$i" 2>&1 &
  pids[$i]=$!
done
wait "${pids[1]}" && wait "${pids[2]}" || fail "a session failed: $(cat "$work"/mid.*)"
mid="$(cat "$work"/mid.* | cut -d' ' -f1 | sort | tr '\n' ' ')"
[ "$mid" = "budget_exceeded completed " ] || fail "two runs of 2 requests, limit 3: $(cat "$work"/mid.*)"
refused="$(grep -h '^budget_exceeded' "$work"/mid.* | cut -d' ' -f2)"
sent=$(( $(mock_requests midrun) - before ))
[ "$sent" = 3 ] || fail "the mock LLM received $sent requests, the limit is 3"
[ "$(q "SELECT count(*) FROM mcp.llm_request WHERE run_id = '$refused'")" = 1 ] \
  || fail "the refused run should have had its first request: $(q "SELECT count(*) FROM mcp.llm_request WHERE run_id = '$refused'")"
[ "$(q "SELECT error ->> 'message' LIKE '%role \"gov_mid\"%requests_per_minute 3 reached%' FROM mcp.run WHERE run_id = '$refused'")" = t ] \
  || fail "the refused run does not name the limit: $(q "SELECT error FROM mcp.run WHERE run_id = '$refused'")"
[ "$(q "SELECT requests_this_minute FROM mcp.budget_usage() WHERE scope = 'role' AND name = 'gov_mid'")" = 3 ] || fail "counter of gov_mid"
log "two concurrent runs against requests_per_minute = 3: one completed, the other stopped mid-run with budget_exceeded; 3 requests sent"
log "ok"
