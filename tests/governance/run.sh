#!/usr/bin/env bash
# Governance against a real server:
#  1. a pending approval survives a server restart: a chat stops with awaiting_approval, the
#     server restarts, an approver approves, the session continues and the approved call runs
#     as the requester with the approved arguments;
#  2. the request-rate limit under 16 concurrent sessions (durable audit on): a role limited to
#     5 requests per minute gets exactly 5 LLM requests through, the other 11 chats end with
#     budget_exceeded, the mock LLM saw exactly 5 requests and the counter says 5.
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
END \$\$;
GRANT mcp_approver TO gov_appr;
CREATE TABLE public.ticket (id serial PRIMARY KEY, title text, priority int, created_by name DEFAULT current_user);
GRANT SELECT, INSERT ON public.ticket TO gov_req;
GRANT USAGE ON SEQUENCE public.ticket_id_seq TO gov_req;
CREATE FUNCTION public.create_ticket(title text, priority int) RETURNS text LANGUAGE sql AS
  \$\$ INSERT INTO public.ticket (title, priority) VALUES (title, priority) RETURNING 'ticket ' || id || ' by ' || created_by \$\$;
INSERT INTO mcp.provider (name, kind, base_url, model) VALUES
  ('ticket', 'openai', 'http://127.0.0.1:$mock_port/s/ticket/v1', 'mock-model'),
  ('rate', 'openai', 'http://127.0.0.1:$mock_port/s/rate/v1', 'mock-model');
INSERT INTO mcp.tool (name, description, parameters, function, read_only) VALUES
  ('createTicket', 'Opens a ticket',
   '{"type":"object","properties":{"title":{"type":"string"},"priority":{"type":"integer"}},"required":["title","priority"]}',
   'public.create_ticket(text,int)', false);
INSERT INTO mcp.interface (name, provider, access_role, allow_acting_tools) VALUES
  ('helpdesk', 'ticket', 'public', true), ('rate', 'rate', 'public', false);
INSERT INTO mcp.interface_tool VALUES ('helpdesk', 'createTicket');
INSERT INTO mcp.budget (scope, name, requests_per_minute) VALUES ('role', 'gov_rate', 5);
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
for p in "${pids[@]}"; do wait "$p" || fail "a session failed: $(cat "$work"/rate.* | sort | uniq -c)"; done
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
log "16 concurrent sessions, requests_per_minute = 5: exactly 5 requests sent, 11 runs budget_exceeded naming the limit and its reset, counter 5"
log "ok"
