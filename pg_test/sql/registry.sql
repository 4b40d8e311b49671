-- Registry constraints: a bad row is refused with a message that names the problem.
\set VERBOSITY terse
BEGIN;
CREATE FUNCTION public.reg_fn(city text, days integer DEFAULT 3) RETURNS text
  LANGUAGE sql AS $$ SELECT city || ':' || days $$;
INSERT INTO mcp.interface (name) VALUES ('chatbot');
-- a good tool
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('weather', 'Weather for a city',
   '{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}',
   'public.reg_fn(text, integer)');
SAVEPOINT s;
-- invalid JSON Schema
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('bad_schema', 'x', '{"type":"object","properties":{"city":{"type":"strin"}},"required":["city"]}',
   'public.reg_fn(text, integer)');
ROLLBACK TO s;
-- schema is not an object schema
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('bad_top', 'x', '{"type":"array"}', 'public.reg_fn(text, integer)');
ROLLBACK TO s;
-- function does not exist
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('no_fn', 'x', '{"type":"object"}', 'public.nope(text)');
ROLLBACK TO s;
-- bad name
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('has space', 'x', '{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}',
   'public.reg_fn(text, integer)');
ROLLBACK TO s;
-- required property without a matching argument; argument without default not required
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('mismatch', 'x', '{"type":"object","properties":{"town":{"type":"string"}},"required":["town"]}',
   'public.reg_fn(text, integer)');
ROLLBACK TO s;
-- empty description
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('nodesc', ' ', '{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}',
   'public.reg_fn(text, integer)');
ROLLBACK TO s;
-- update is checked too
UPDATE mcp.tool SET parameters = '{"type":"object","properties":{},"required":["zip"]}' WHERE name = 'weather';
ROLLBACK TO s;
-- provider rules
INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('p', 'gpt', 'https://x', 'm');
ROLLBACK TO s;
INSERT INTO mcp.provider (name, kind, model) VALUES ('p', 'openai', 'm');
ROLLBACK TO s;
INSERT INTO mcp.provider (name, kind, base_url) VALUES ('az', 'azure', 'https://x.openai.azure.com');
ROLLBACK TO s;
INSERT INTO mcp.interface (name, tool_choice) VALUES ('i2', 'sometimes');
ROLLBACK TO s;
INSERT INTO mcp.interface (name, max_iterations) VALUES ('i3', 99);
ROLLBACK TO s;
-- access_role: an existing role, 'public', or NULL (closed, the default)
INSERT INTO mcp.interface (name, access_role) VALUES ('i4', 'no_such_role');
ROLLBACK TO s;
INSERT INTO mcp.interface (name, access_role) VALUES ('i5', 'public'), ('i6', 'pg_monitor'), ('i7', NULL);
SELECT name, access_role FROM mcp.interface WHERE name IN ('i5', 'i6', 'i7') ORDER BY name;
ROLLBACK TO s;
-- one active prompt version per name
INSERT INTO mcp.prompt (name, version, template) VALUES ('system', 2, 'other');
ROLLBACK TO s;
SELECT name, kind, function FROM mcp.tool ORDER BY name;
ROLLBACK;
