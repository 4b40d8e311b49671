-- Governance results of mcp.chat over a replay provider: a tool that acts stops the run with
-- awaiting_approval (the call, its validated arguments and their digest), an approval and the
-- continuation, and a budget that ends a run with budget_exceeded naming the limit and its reset
-- (ids, times and the budget's per-run name masked: they differ from run to run).
\set VERBOSITY terse
BEGIN;
SET LOCAL TimeZone = 'UTC';
CREATE TABLE public.gv_ticket (id int GENERATED ALWAYS AS IDENTITY, title text, priority int, created_by name DEFAULT current_user);
CREATE FUNCTION public.gv_create_ticket(title text, priority int) RETURNS text LANGUAGE sql AS
  $$ INSERT INTO public.gv_ticket (title, priority) VALUES (title, priority) RETURNING 'ticket created: ' || title $$;
INSERT INTO mcp.tool (name, description, parameters, function, read_only) VALUES
  ('createTicket', 'Opens a helpdesk ticket',
   '{"type":"object","properties":{"title":{"type":"string"},"priority":{"type":"integer"}},"required":["title","priority"]}',
   'public.gv_create_ticket(text, int)', false);
INSERT INTO mcp.provider (name, kind, model, options) VALUES ('gv_recorded', 'replay', 'recorded', jsonb_build_object('responses', jsonb_build_array(
  '{"choices":[{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_t1","type":"function","function":{"name":"createTicket","arguments":"{\"title\": \"Drucker defekt\", \"priority\": 2}"}}]}}],"usage":{"prompt_tokens":50,"completion_tokens":10}}'::jsonb)));
INSERT INTO mcp.interface (name, provider, allow_acting_tools, allow_self_approval) VALUES ('helpdesk', 'gv_recorded', true, true);
INSERT INTO mcp.interface_tool VALUES ('helpdesk', 'createTicket');
CREATE FUNCTION pg_temp.shown(r jsonb) RETURNS jsonb LANGUAGE sql AS
  $$ SELECT (r - 'run_id' - 'session_id') || CASE WHEN r ? 'pending_approvals' THEN jsonb_build_object('pending_approvals',
            (SELECT jsonb_agg(p - 'expires_at' || jsonb_build_object('expires_at', CASE WHEN (p ->> 'expires_at')::timestamptz > now() THEN 'later' END))
               FROM jsonb_array_elements(r -> 'pending_approvals') p)) ELSE '{}' END
            || CASE WHEN r -> 'error' ? 'message' THEN jsonb_build_object('error', r -> 'error' || jsonb_build_object('message',
                 regexp_replace(regexp_replace(r -> 'error' ->> 'message', 'gv_budget_[0-9a-f]+', 'gv_budget_…'),
                                'resets at [0-9: -]+ UTC', 'resets at … UTC'))) ELSE '{}' END $$;
-- 1. The model calls the ticket tool: nothing runs, the run waits for a decision.
CREATE TEMP TABLE gv_first AS SELECT mcp.chat('Mein Drucker ist kaputt', 'helpdesk') AS r;
SELECT jsonb_pretty(pg_temp.shown(r)) FROM gv_first;
SELECT count(*) AS tickets FROM public.gv_ticket;
SELECT tool, arguments, status, digest = mcp.approval_digest(tool, arguments::jsonb) AS digest_matches
  FROM mcp.approval WHERE run_id = (SELECT (r ->> 'run_id')::uuid FROM gv_first);
-- 2. Approved (this interface allows self-approval; the superuser is an approver), then the
--    session continues: the approved call runs and the model answers.
SELECT r ->> 'status' AS status, r ->> 'tool' AS tool, r ->> 'decided_by' = current_user AS by_me
  FROM (SELECT mcp.approve((r ->> 'run_id')::uuid, 'call_t1') AS r FROM gv_first) d;
--    (a replay provider answers each run from the start of its recording: the next answer is recorded now)
UPDATE mcp.provider SET options = jsonb_build_object('responses', jsonb_build_array(
  '{"choices":[{"finish_reason":"stop","message":{"role":"assistant","content":"Das Ticket ist angelegt."}}],"usage":{"prompt_tokens":60,"completion_tokens":8}}'::jsonb))
 WHERE name = 'gv_recorded';
CREATE TEMP TABLE gv_second AS SELECT mcp.chat('', 'helpdesk', (r ->> 'session_id')::uuid) AS r FROM gv_first;
SELECT jsonb_pretty(pg_temp.shown(r)) FROM gv_second;
-- the conversation the continuing run stored: the model's call, then the approved call's result
SELECT m.seq, m.role, m.message -> 'tool_calls' -> 0 ->> 'id' AS call, m.message ->> 'content' AS content
  FROM mcp.message m WHERE m.run_id = (SELECT (r ->> 'run_id')::uuid FROM gv_second) ORDER BY m.seq;
SELECT a.status, a.decided_by = current_user AS by_me, a.continued_by = (s.r ->> 'run_id')::uuid AS carried_out_by_second
  FROM mcp.approval a, gv_second s WHERE a.run_id = (SELECT (r ->> 'run_id')::uuid FROM gv_first);
SELECT title, priority, created_by = current_user AS by_caller FROM public.gv_ticket;
-- 3. A budget: requests_per_minute 1 on an interface of its own (the counters outlive the
--    transaction, so the name is new each run). The second chat is refused before any request.
SELECT 'gv_budget_' || substr(md5(random()::text), 1, 8) AS name \gset
INSERT INTO mcp.provider (name, kind, model, options) VALUES ('gv_says', 'replay', 'recorded', jsonb_build_object('responses', jsonb_build_array(
  '{"choices":[{"finish_reason":"stop","message":{"role":"assistant","content":"Hallo."}}],"usage":{"prompt_tokens":5,"completion_tokens":1}}'::jsonb)));
INSERT INTO mcp.interface (name, provider) VALUES (:'name', 'gv_says');
INSERT INTO mcp.budget (scope, name, requests_per_minute) VALUES ('interface', :'name', 1);
DO $$ BEGIN IF extract(second FROM clock_timestamp()) > 55 THEN PERFORM pg_sleep(61 - extract(second FROM clock_timestamp())::int); END IF; END $$;  -- not across a minute
SELECT mcp.chat('Hallo', :'name') ->> 'status' AS first;
SELECT jsonb_pretty(pg_temp.shown(mcp.chat('Hallo', :'name')));
ROLLBACK;
