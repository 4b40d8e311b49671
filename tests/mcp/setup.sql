-- Fixture of the MCP SDK tests (tests/mcp/run.sh): roles, a table, tools, a resource, a prompt.
SET client_min_messages = warning;
DO $$ BEGIN
  -- roles are cluster-wide: recreate them (their old grants belong to a dropped database)
  DROP ROLE IF EXISTS mcp_t_alice; DROP ROLE IF EXISTS mcp_t_analyst; DROP ROLE IF EXISTS mcp_t_guest;
  DROP ROLE IF EXISTS mcp_t_auth; DROP ROLE IF EXISTS mcp_t_stranger; DROP ROLE IF EXISTS mcp_t_approver;
END $$;
-- alice logs in herself (stdio); the HTTP bridge logs in as the authenticator mcp_t_auth, which
-- may become analyst or guest only (NOINHERIT: it has no rights of its own)
CREATE ROLE mcp_t_alice LOGIN;
CREATE ROLE mcp_t_analyst NOLOGIN;
CREATE ROLE mcp_t_guest NOLOGIN;
CREATE ROLE mcp_t_stranger NOLOGIN;
CREATE ROLE mcp_t_auth LOGIN NOINHERIT;
-- the person who approves tool calls that act (through the console or SQL)
CREATE ROLE mcp_t_approver NOLOGIN;
GRANT mcp_approver TO mcp_t_approver;
GRANT mcp_t_analyst, mcp_t_guest, mcp_t_approver TO mcp_t_auth;
GRANT mcp_t_analyst TO mcp_t_alice;
-- opaque tokens: the authenticator looks their hashes up
GRANT SELECT ON mcp.bridge_token TO mcp_t_auth;

CREATE TABLE public.t (id int PRIMARY KEY, titel text);
INSERT INTO public.t SELECT g, 'Titel ' || g FROM generate_series(1, 40) g;
GRANT SELECT ON public.t TO mcp_t_analyst;

CREATE FUNCTION public.find_titel(id int) RETURNS jsonb LANGUAGE sql STABLE AS
  $$ SELECT jsonb_build_object('id', t.id, 'titel', t.titel) FROM public.t WHERE t.id = find_titel.id $$;
REVOKE EXECUTE ON FUNCTION public.find_titel(int) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.find_titel(int) TO mcp_t_analyst;
CREATE FUNCTION public.boom(n int) RETURNS int LANGUAGE plpgsql AS
  $$ BEGIN RAISE EXCEPTION 'secret internal detail: password=hunter2 %', n; END $$;

INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('p', 'openai', 'http://127.0.0.1:9/v1', 'm');
SELECT mcp.set_api_key('p', 'sk-test-SECRET-api-key-0123456789');
INSERT INTO mcp.interface (name, provider, access_role) VALUES ('chatbot', 'p', 'public');
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('find_titel', 'Find one title by id', '{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}', 'public.find_titel(integer)'),
  ('boom', 'Always fails', '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}', 'public.boom(integer)');
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'find_titel'), ('chatbot', 'boom'), ('chatbot', 'sql_query'), ('chatbot', 'schema_information');
INSERT INTO mcp.resource (uri, name, description, query) VALUES
  ('pgmcp://t/count', 'Row count of t', 'How many rows t has', 'SELECT count(*)::text FROM public.t');
INSERT INTO mcp.prompt (name, role, template, variables, description, completions) VALUES
  ('titel_summary', 'user', 'Summarize title {{id}} in {{lang}}.', '{id,lang}', 'Summary of one title',
   '{"lang": ["German", "English", "French"]}');
-- the SDK clients validate structuredContent against an advertised outputSchema
UPDATE mcp.tool SET output_schema = '{"type":"object","properties":{"id":{"type":"integer"},"titel":{"type":"string"}},"required":["id","titel"]}'
 WHERE name = 'find_titel';
-- a tool that asks the client's user (multi round-trip requests / elicitation)
CREATE FUNCTION public.confirm_titel(id int) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN mcp.input_response('confirm') IS NULL
    THEN jsonb_build_object('needs_input', true, 'input_requests', jsonb_build_object('confirm',
           jsonb_build_object('method', 'elicitation/create', 'params', jsonb_build_object(
             'message', 'Show title ' || id || '?',
             'requestedSchema', '{"type":"object","properties":{"reason":{"type":"string"}},"required":["reason"]}'::jsonb))))
    WHEN mcp.input_response('confirm') ->> 'action' = 'accept'
    THEN jsonb_build_object('id', id, 'titel', (SELECT titel FROM public.t WHERE t.id = confirm_titel.id),
                            'reason', mcp.input_response('confirm') #>> '{content,reason}')
    ELSE jsonb_build_object('id', id, 'declined', true) END $$;
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('confirm_titel', 'Show one title after the user confirms', '{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}', 'public.confirm_titel(integer)');
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'confirm_titel');
-- a tool that reports as it runs (RAISE NOTICE: notifications/message at the client's level)
CREATE FUNCTION public.noisy_count() RETURNS int LANGUAGE plpgsql STABLE AS $$
BEGIN
  RAISE NOTICE 'counting titles';
  RAISE DEBUG 'below the level';
  RAISE WARNING 'almost done';
  RETURN (SELECT count(*) FROM public.t);
END $$;
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('noisy_count', 'Counts titles and says so', '{"type":"object","properties":{}}', 'public.noisy_count()');
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'noisy_count');
-- a tool that acts and requires a person's approval (mapped by the approval tests only, with
-- allow_acting_tools): an MCP tools/call is answered with a URL-mode elicitation to the console
CREATE TABLE public.ticket (id serial PRIMARY KEY, title text NOT NULL, prio int NOT NULL, created_by name NOT NULL DEFAULT current_user);
GRANT SELECT, INSERT ON public.ticket TO mcp_t_analyst;
GRANT USAGE ON SEQUENCE public.ticket_id_seq TO mcp_t_analyst;
CREATE FUNCTION public.open_ticket(title text, prio int) RETURNS jsonb LANGUAGE sql AS
  $$ INSERT INTO public.ticket (title, prio) VALUES (title, prio) RETURNING jsonb_build_object('id', id, 'title', title, 'by', created_by) $$;
INSERT INTO mcp.tool (name, description, parameters, function, read_only) VALUES
  ('open_ticket', 'Opens a ticket (a person approves it first)',
   '{"type":"object","properties":{"title":{"type":"string"},"prio":{"type":"integer"}},"required":["title","prio"]}',
   'public.open_ticket(text, integer)', false);
