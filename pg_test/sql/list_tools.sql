-- Dynamic discovery: only enabled, mapped tools whose function the caller may EXECUTE.
\set VERBOSITY terse
BEGIN;
CREATE FUNCTION public.lt_open(q text) RETURNS text LANGUAGE sql AS $$ SELECT q $$;
CREATE FUNCTION public.lt_secret(q text) RETURNS text LANGUAGE sql AS $$ SELECT q $$;
REVOKE EXECUTE ON FUNCTION public.lt_secret(text) FROM PUBLIC;
INSERT INTO mcp.interface (name) VALUES ('chatbot'), ('other');
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('open_tool', 'Open to all', '{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}', 'public.lt_open(text)'),
  ('secret_tool', 'Admins only', '{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}', 'public.lt_secret(text)'),
  ('off_tool', 'Disabled', '{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}', 'public.lt_open(text)');
UPDATE mcp.tool SET enabled = false WHERE name = 'off_tool';
INSERT INTO mcp.interface_tool VALUES ('chatbot','open_tool'), ('chatbot','secret_tool'), ('chatbot','off_tool'), ('chatbot', 'getDialog');
SELECT jsonb_pretty(mcp.list_tools());
SELECT jsonb_pretty(mcp.list_tools('chatbot', 'mcp') -> 0);
SELECT jsonb_pretty(mcp.list_tools('chatbot', 'anthropic') -> 0);
SELECT mcp.list_tools('other');
CREATE ROLE lt_user;
-- a new interface is closed: a role without its access_role sees no tools
SET LOCAL ROLE lt_user;
SELECT mcp.may_use_interface('chatbot') AS lt_user_may_use, mcp.list_tools() AS closed_to_lt_user;
RESET ROLE;
-- open to the role (or a role it inherits from): it sees the tools whose function it may EXECUTE
UPDATE mcp.interface SET access_role = 'lt_user' WHERE name = 'chatbot';
SET LOCAL ROLE lt_user;
SELECT jsonb_path_query_array(mcp.list_tools(), '$[*].function.name') AS visible_to_lt_user;
RESET ROLE;
SAVEPOINT s;
SELECT mcp.list_tools('missing');
ROLLBACK TO s;
SELECT mcp.list_tools('chatbot', 'yaml');
ROLLBACK TO s;
ROLLBACK;
