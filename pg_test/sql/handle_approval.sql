-- mcp.handle: a direct tools/call of a tool that requires approval. The call is recorded in
-- mcp.approval without a run and answered with a URL-mode elicitation to the console's approval
-- page; the client's retry runs it only once a person allowed to approve (mcp_approver, not the
-- requester) approved it. A client's "accept" is never the approval.
\set VERBOSITY terse
BEGIN;
WITH t AS (DELETE FROM mcp.tool_call), a AS (DELETE FROM mcp.approval) SELECT;
CREATE ROLE ha_req NOLOGIN;
CREATE ROLE ha_appr NOLOGIN;
CREATE ROLE ha_self NOLOGIN;
GRANT mcp_approver TO ha_appr, ha_self;
CREATE SCHEMA ha;
GRANT USAGE ON SCHEMA ha TO PUBLIC;
CREATE TABLE ha.ticket (id serial PRIMARY KEY, title text, prio int, created_by name DEFAULT current_user);
GRANT INSERT, SELECT ON ha.ticket TO ha_req, ha_self;
GRANT USAGE ON SEQUENCE ha.ticket_id_seq TO ha_req, ha_self;
CREATE FUNCTION ha.create_ticket(title text, prio int) RETURNS jsonb LANGUAGE sql AS
  $$ INSERT INTO ha.ticket (title, prio) VALUES (title, prio) RETURNING jsonb_build_object('id', id, 'title', title, 'by', created_by) $$;
INSERT INTO mcp.interface (name, access_role, allow_acting_tools) VALUES ('chatbot', 'public', true);
INSERT INTO mcp.tool (name, description, parameters, function, read_only) VALUES
  ('ha_ticket', 'Creates a ticket',
   '{"type":"object","properties":{"title":{"type":"string"},"prio":{"type":"integer"}},"required":["title","prio"]}',
   'ha.create_ticket(text, integer)', false);
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'ha_ticket');
-- what the bridge sets per request (its --console-url)
SET mcp.console_url = 'https://db.example.com/console';
-- uuids and times differ per run: shown as <id> and <time>
CREATE FUNCTION ha.masked(v jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT regexp_replace(regexp_replace(regexp_replace(v::text,
    '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', '<id>', 'g'),
    '[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9:.+-]+', '<time>', 'g'),
    'call id [0-9]+', 'call id N', 'g')::jsonb $$;
CREATE FUNCTION ha.modern(id int, params jsonb, caps jsonb DEFAULT '{"elicitation": {"form": {}, "url": {}}}') RETURNS jsonb LANGUAGE sql AS
  $$ SELECT mcp.handle(jsonb_build_object('jsonrpc', '2.0', 'id', id, 'method', 'tools/call',
       'params', params || jsonb_build_object('_meta', jsonb_build_object(
         'io.modelcontextprotocol/protocolVersion', '2026-07-28',
         'io.modelcontextprotocol/clientCapabilities', caps))))
       #- '{result,_meta}' $$;
CREATE FUNCTION ha.legacy(id int, params jsonb) RETURNS jsonb LANGUAGE sql AS
  $$ SELECT mcp.handle(jsonb_build_object('jsonrpc', '2.0', 'id', id, 'method', 'tools/call', 'params', params)) $$;
-- an expected error: its SQLSTATE and message, ids masked
CREATE FUNCTION ha.try(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || regexp_replace(SQLERRM, '[0-9a-f]{8}-[0-9a-f-]{27}', '<id>', 'g');
END $$;
-- the approval id an answer's URL names
CREATE FUNCTION ha.id_of(answer jsonb) RETURNS uuid LANGUAGE sql AS
  $$ SELECT substring(coalesce(answer #>> '{result,inputRequests,approval,params,url}',
                               answer #>> '{error,data,elicitations,0,url}') from '#(.*)$')::uuid $$;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ha TO PUBLIC;
CREATE TABLE ha.seen (step text PRIMARY KEY, approval uuid);
GRANT ALL ON ha.seen TO PUBLIC;

-- 1. 2026-07-28: the call does not run; the answer is an input request of URL mode
SET ROLE ha_req;
CREATE TEMP TABLE r1 AS SELECT ha.modern(1, '{"name": "ha_ticket", "arguments": {"prio": 2, "title": "Drucker defekt"}}') AS r;
SELECT jsonb_pretty(ha.masked(r)) FROM r1;
INSERT INTO ha.seen SELECT 'first', ha.id_of(r) FROM r1;
SELECT count(*) AS tickets FROM ha.ticket;
-- the requester sees its pending approval (row-level security: its own rows)
SELECT run_id IS NULL AS direct, session_id, position, role_name, interface, tool, arguments, status,
       request_id, digest = mcp.approval_digest(tool, arguments::jsonb) AS digest_matches,
       tool_call_id = approval_id::text AS call_id_is_the_id, expires_at > requested_at AS expires_later
  FROM mcp.approval;
-- 2. the client's "accept" alone: asked again, with the same approval (no second row)
SELECT ha.id_of(ha.modern(2, '{"name": "ha_ticket", "arguments": {"title": "Drucker defekt", "prio": 2},
  "inputResponses": {"approval": {"action": "accept"}}}')) = (SELECT approval FROM ha.seen WHERE step = 'first') AS same_approval;
SELECT count(*) AS approvals, count(*) FILTER (WHERE status = 'pending') AS pending FROM mcp.approval;
SELECT count(*) AS tickets FROM ha.ticket;
-- the requester may not approve (EXECUTE is mcp_approver's)
SELECT ha.try($q$SELECT mcp.approve((SELECT approval FROM ha.seen WHERE step = 'first'))$q$) AS refused;
RESET ROLE;
-- 3. an approver who asked itself may not approve its own call (allow_self_approval is false)
SET ROLE ha_self;
INSERT INTO ha.seen SELECT 'self', ha.id_of(ha.modern(3, '{"name": "ha_ticket", "arguments": {"title": "eigenes", "prio": 1}}'));
SELECT ha.try($q$SELECT mcp.approve((SELECT approval FROM ha.seen WHERE step = 'self'))$q$) AS refused;
RESET ROLE;
--    unless the interface allows self-approval
UPDATE mcp.interface SET allow_self_approval = true WHERE name = 'chatbot';
SET ROLE ha_self;
SELECT mcp.reject((SELECT approval FROM ha.seen WHERE step = 'self'), 'changed my mind') ->> 'status' AS own_decision;
RESET ROLE;
UPDATE mcp.interface SET allow_self_approval = false WHERE name = 'chatbot';
-- 4. another person approves; the requester's retry runs the call, as the requester
SET ROLE ha_appr;
SELECT r ->> 'status' AS status, r ->> 'decided_by' AS decided_by, r ->> 'tool' AS tool, r -> 'arguments' AS arguments,
       r ->> 'run_id' AS run_id, (r ->> 'approval_id')::uuid = (SELECT approval FROM ha.seen WHERE step = 'first') AS same
  FROM (SELECT mcp.approve((SELECT approval FROM ha.seen WHERE step = 'first')) AS r) d;
-- decided once; an unknown id
SELECT ha.try($q$SELECT mcp.approve((SELECT approval FROM ha.seen WHERE step = 'first'))$q$) AS refused;
SELECT ha.try($q$SELECT mcp.reject('00000000-0000-4000-8000-000000000000', 'x')$q$) AS refused;
RESET ROLE;
-- another role's identical call does not use ha_req's approval
SET ROLE ha_self;
SELECT ha.masked(ha.modern(4, '{"name": "ha_ticket", "arguments": {"title": "Drucker defekt", "prio": 2}}')) #>> '{result,resultType}' AS other_role;
RESET ROLE;
SET ROLE ha_req;
SELECT jsonb_pretty(ha.masked(ha.modern(5, '{"name": "ha_ticket", "arguments": {"title": "Drucker defekt", "prio": 2},
  "inputResponses": {"approval": {"action": "accept"}}}')));
SELECT title, prio, created_by FROM ha.ticket;
-- used once: the same call again asks for a new approval
SELECT ha.id_of(ha.modern(6, '{"name": "ha_ticket", "arguments": {"title": "Drucker defekt", "prio": 2}}'))
       <> (SELECT approval FROM ha.seen WHERE step = 'first') AS new_approval;
-- 5. changed arguments are another call: a new approval; invalid ones are answered, nothing waits
INSERT INTO ha.seen SELECT 'changed', ha.id_of(ha.modern(7, '{"name": "ha_ticket", "arguments": {"title": "Drucker defekt", "prio": 1}}'));
SELECT count(DISTINCT digest) AS digests FROM mcp.approval WHERE role_name = 'ha_req';
SELECT ha.masked(ha.modern(8, '{"name": "ha_ticket", "arguments": {"title": "x", "prio": "2"}}') -> 'result') AS invalid;
-- 6. 2025-11-25 (no _meta): URLElicitationRequiredError -32042 naming the approval
CREATE TEMP TABLE r9 AS SELECT ha.legacy(9, '{"name": "ha_ticket", "arguments": {"title": "Netz weg", "prio": 3}}') AS r;
SELECT jsonb_pretty(ha.masked(r)) FROM r9;
SELECT (r #>> '{error,data,elicitations,0,elicitationId}')::uuid = ha.id_of(r) AS id_matches_url FROM r9;
INSERT INTO ha.seen SELECT 'legacy', ha.id_of(r) FROM r9;
RESET ROLE;
-- rejected with a reason: the retry is a tool error naming who and why
SET ROLE ha_appr;
SELECT r ->> 'status' AS status, r ->> 'reason' AS reason
  FROM (SELECT mcp.reject((SELECT approval FROM ha.seen WHERE step = 'legacy'), 'erst neu starten') AS r) d;
RESET ROLE;
SET ROLE ha_req;
SELECT ha.masked(ha.legacy(10, '{"name": "ha_ticket", "arguments": {"title": "Netz weg", "prio": 3}}') -> 'result') AS rejected;
-- 7. expired: nobody decided in time
RESET ROLE;
UPDATE mcp.approval SET expires_at = clock_timestamp() - interval '1 second'
 WHERE approval_id = (SELECT approval FROM ha.seen WHERE step = 'changed');
SET ROLE ha_appr;
SELECT ha.try($q$SELECT mcp.approve((SELECT approval FROM ha.seen WHERE step = 'changed'))$q$) AS refused;
RESET ROLE;
SET ROLE ha_req;
SELECT ha.masked(ha.modern(11, '{"name": "ha_ticket", "arguments": {"title": "Drucker defekt", "prio": 1}}') -> 'result') AS expired;
RESET ROLE;
SELECT status, continued_at IS NOT NULL AS closed FROM mcp.approval WHERE approval_id = (SELECT approval FROM ha.seen WHERE step = 'changed');
-- 8. an approved row altered afterwards (by whoever could write mcp.approval) does not run
INSERT INTO ha.seen SELECT 'altered', (SELECT approval_id FROM mcp.approval
  WHERE role_name = 'ha_req' AND status = 'pending' AND arguments = '{"prio":2,"title":"Drucker defekt"}');
SET ROLE ha_appr;
SELECT mcp.approve((SELECT approval FROM ha.seen WHERE step = 'altered')) ->> 'status' AS status;
RESET ROLE;
UPDATE mcp.approval SET arguments = '{"prio":2,"title":"Alles loeschen"}' WHERE approval_id = (SELECT approval FROM ha.seen WHERE step = 'altered');
SET ROLE ha_req;
SELECT ha.masked(ha.modern(12, '{"name": "ha_ticket", "arguments": {"title": "Drucker defekt", "prio": 2}}') -> 'result') AS altered;
SELECT count(*) AS tickets FROM ha.ticket;
-- 9. a client without URL-mode elicitation, and a server without a console URL: a tool error
--    that says where and how to approve
SELECT ha.masked(ha.modern(13, '{"name": "ha_ticket", "arguments": {"title": "ohne url", "prio": 1}}', '{"elicitation": {"form": {}}}') -> 'result') AS no_url_mode;
SET mcp.console_url = '';
SELECT ha.masked(ha.legacy(14, '{"name": "ha_ticket", "arguments": {"title": "ohne konsole", "prio": 1}}') -> 'result') AS no_console;
SET mcp.console_url = 'javascript:alert(1)';
SELECT ha.masked(ha.legacy(15, '{"name": "ha_ticket", "arguments": {"title": "ohne konsole", "prio": 1}}') -> 'result') ->> 'isError' AS bad_console_url;
SET mcp.console_url = 'https://db.example.com/console';
-- 10. hostile arguments: too large to review is refused (audited); NUL cannot reach it (jsonb)
SELECT ha.masked(ha.modern(16, jsonb_build_object('name', 'ha_ticket', 'arguments',
  jsonb_build_object('title', repeat('x', 300000), 'prio', 1))) -> 'result') AS too_large;
SELECT ha.try($q$SELECT ha.modern(17, '{"name": "ha_ticket", "arguments": {"title": "a\u0000b", "prio": 1}}')$q$) AS refused;
RESET ROLE;
-- mcp.call_tool from SQL stays the caller's own decision
SELECT mcp.call_tool('ha_ticket', '{"title": "aus SQL", "prio": 4}') ->> 'isError' AS sql_call_error;
-- 11. the audit: every refusal and the run call, tool_call_id = the approval's id
SELECT t.tool, t.status, t.tool_call_id IS NOT NULL AS has_approval_id, a.status AS approval,
       t.error_message AS reason
  FROM mcp.tool_call t LEFT JOIN mcp.approval a ON a.approval_id::text = t.tool_call_id
 ORDER BY t.call_id;
SELECT status, decided_by, reason, continued_at IS NOT NULL AS closed, count(*)
  FROM mcp.approval GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4;
ROLLBACK;
