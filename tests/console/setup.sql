-- The console suite's database: an authenticator for the bridge and the roles people sign in as,
-- runs of two roles, a tool and an interface the mock LLM drives, a pending approval, a
-- thesaurus and a plan for analyze, a collection with a document. Hostile text (a <script>) in a
-- tool description, a model answer and a document: the pages must show it as text.
-- psql variables: mock (the mock LLM's port), model_dir (the local MiniLM model).
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'console_auth') THEN CREATE ROLE console_auth LOGIN NOINHERIT; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'con_alice') THEN CREATE ROLE con_alice NOLOGIN; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'con_bob') THEN CREATE ROLE con_bob NOLOGIN; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'con_admin') THEN CREATE ROLE con_admin NOLOGIN; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'con_auditor') THEN CREATE ROLE con_auditor NOLOGIN; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'con_approver') THEN CREATE ROLE con_approver NOLOGIN; END IF;
  -- signs in with a password (run.sh makes pg_hba.conf check it for this database)
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'con_carol') THEN CREATE ROLE con_carol LOGIN; END IF;
END $$;
ALTER ROLE con_carol PASSWORD 'carol-secret';
GRANT con_alice, con_bob, con_admin, con_auditor, con_approver, con_carol TO console_auth;
GRANT mcp_admin TO con_admin;
-- the bridge looks opaque tokens up as the authenticator
GRANT SELECT ON mcp.bridge_token TO console_auth;
GRANT mcp_auditor TO con_auditor;
GRANT mcp_approver TO con_approver;

-- runs of two roles (as the audit writes them)
INSERT INTO mcp.run (run_id, session_id, interface, role_name, question, status, answer, started_at, finished_at, prompt_tokens, completion_tokens)
SELECT gen_random_uuid(), gen_random_uuid(), 'console', r.role, r.role || ' question ' || g, 'completed', 'answer ' || g,
       now() - make_interval(mins => g), now() - make_interval(mins => g) + interval '1.5 seconds', 100 + g, 20
  FROM (VALUES ('con_alice'), ('con_bob')) r(role), generate_series(1, 3) g;
-- a question and an answer holding markup, as a user could type them
INSERT INTO mcp.run (run_id, session_id, interface, role_name, question, status, answer, started_at, finished_at)
VALUES (gen_random_uuid(), gen_random_uuid(), 'console', 'con_alice',
        'Hostile <script>window.__pwned = ''question''</script> question', 'failed',
        '<img src=x onerror="window.__pwned = ''old-answer''">', now() - interval '2 hours', now() - interval '2 hours');

CREATE TABLE public.tarif (region text PRIMARY KEY, hours int);
INSERT INTO public.tarif VALUES ('Bayern', 35), ('Hessen', 38);
GRANT SELECT ON public.tarif TO PUBLIC;
CREATE FUNCTION public.hours_of(region text) RETURNS int LANGUAGE sql STABLE
  AS 'SELECT hours FROM public.tarif WHERE region = $1';
CREATE TABLE public.ticket (id serial PRIMARY KEY, title text, priority int, created_by name DEFAULT current_user);
GRANT SELECT, INSERT ON public.ticket TO con_alice;
GRANT USAGE ON SEQUENCE public.ticket_id_seq TO con_alice;
CREATE FUNCTION public.create_ticket(title text, priority int) RETURNS text LANGUAGE sql AS
  $$ INSERT INTO public.ticket (title, priority) VALUES (title, priority) RETURNING 'ticket ' || id || ' by ' || created_by $$;

INSERT INTO mcp.provider (name, kind, base_url, model) VALUES
  ('lookup', 'openai', 'http://127.0.0.1:' || :'mock' || '/s/lookup/v1', 'mock-model'),
  ('live', 'openai', 'http://127.0.0.1:' || :'mock' || '/s/live/v1', 'mock-model'),
  ('ticket', 'openai', 'http://127.0.0.1:' || :'mock' || '/s/ticket/v1', 'mock-model');
-- the chat's live progress: a tool that waits until the test releases its advisory lock, so that
-- the page shows a run in the middle (the first tool call written, the answer not yet there);
-- durable audit, so that a run's rows are committed as they are written (by the audit worker),
-- not with the run's end
ALTER DATABASE :"DBNAME" SET mcp.audit_durable = on;
CREATE FUNCTION public.wait_for_release() RETURNS text LANGUAGE sql AS
  $$ SELECT pg_advisory_xact_lock_shared(4242); SELECT 'released'::text $$;
INSERT INTO mcp.tool (name, description, parameters, function, read_only, timeout_ms) VALUES
  ('waitForRelease', 'Waits until the test releases it', '{"type": "object", "properties": {}}',
   'public.wait_for_release()', true, 120000);
INSERT INTO mcp.tool (name, description, parameters, function, read_only) VALUES
  ('hoursOf', 'Weekly working hours of a region <script>window.__pwned = ''tool''</script>',
   '{"type": "object", "properties": {"region": {"type": "string"}}, "required": ["region"]}',
   'public.hours_of(text)', true),
  ('createTicket', 'Opens a ticket',
   '{"type":"object","properties":{"title":{"type":"string"},"priority":{"type":"integer"}},"required":["title","priority"]}',
   'public.create_ticket(text,int)', false);
INSERT INTO mcp.interface (name, description, provider, access_role, allow_acting_tools) VALUES
  ('console', 'Working hours', 'lookup', 'public', false),
  ('helpdesk', 'Tickets', 'ticket', 'public', true),
  ('planner', 'Plans only (analyze)', 'lookup', 'public', false),
  ('live', 'Working hours, slowly', 'live', 'public', false);
INSERT INTO mcp.interface_tool VALUES ('console', 'hoursOf'), ('helpdesk', 'createTicket'), ('planner', 'hoursOf'),
  ('live', 'hoursOf'), ('live', 'waitForRelease');

-- analyze: a thesaurus and a plan of the planner interface
SELECT mcp.load_thesaurus('{"terms": [
  {"id": "by", "kind": "region", "label": "Bayern", "alt_labels": ["bayerisch"], "lang": "de"},
  {"id": "he", "kind": "region", "label": "Hessen", "lang": "de"},
  {"id": "eh", "kind": "branche", "label": "Einzelhandel", "lang": "de"}]}') IS NOT NULL AS loaded;
INSERT INTO mcp.plan (name, interface, description, examples, required_kinds) VALUES
  ('hours_by_region', 'planner', 'Wochenarbeitszeit einer Region', '{"Wie lange arbeitet man in Bayern?"}', '{region}'),
  ('branch_overview', 'planner', 'Tarife einer Branche', '{"Welche Tarife gelten im Einzelhandel?"}', '{branche}');
INSERT INTO mcp.plan_step (plan, position, kind, tool, arguments) VALUES
  ('hours_by_region', 1, 'tool', 'hoursOf', '{"region": "{{region}}"}');

-- retrieval: a collection with the local model and a document holding a script
INSERT INTO mcp.embedding_model (name, kind, dimension, path, access_role) VALUES ('minilm', 'local', 384, :'model_dir', 'public');
INSERT INTO mcp.collection (name, description, embedding_model, text_config) VALUES ('handbook', 'Staff handbook', 'minilm', 'simple');
SELECT mcp.ingest('handbook', 'doc://hours', 'Working hours <script>window.__pwned = ''title''</script>',
  'The weekly working time in Bavaria is 35 hours. <script>window.__pwned = ''document''</script> Holidays: 30 days.') IS NOT NULL AS ingested;
SELECT mcp.ingest('handbook', 'doc://travel', 'Travel', 'Travel costs are refunded within 30 days.') IS NOT NULL AS ingested;
