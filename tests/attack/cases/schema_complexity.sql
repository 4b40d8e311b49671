-- Schemas whose validation explodes (anyOf/$ref fan-out, inline chains, $ref cycles
-- that never descend) are refused quickly when registered, and refused again where a row that
-- bypassed the trigger is compiled; the check function is not callable by PUBLIC.
\set VERBOSITY default
-- branching 10 over 10 levels: 10^10 evaluations (hours, immune to pg_terminate_backend, before)
WITH d AS (SELECT i, ('[' || rtrim(repeat('{"$ref": "#/$defs/d' || (i + 1) || '"},', 10), ',') || ']')::jsonb AS refs
             FROM generate_series(0, 9) i)
SELECT jsonb_build_object('type', 'object', 'properties', jsonb_build_object('x', jsonb_build_object('$ref', '#/$defs/d0')),
  '$defs', (SELECT jsonb_object_agg('d' || i, jsonb_build_object('anyOf', refs)) FROM d) || '{"d10": {"type": "string"}}') AS fan \gset
SELECT jsonb_build_object('type', 'object', 'properties', jsonb_build_object('x', jsonb_build_object('$ref', '#/$defs/a')),
  '$defs', '{"a": {"anyOf": [{"$ref": "#/$defs/b"}, {"type": "string"}]}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}'::jsonb) AS cycle \gset
INSERT INTO mcp.tool (name, description, parameters, kind) VALUES ('fan', 'f', :'fan', 'builtin');
INSERT INTO mcp.tool (name, description, parameters, kind) VALUES ('cycle', 'c', :'cycle', 'builtin');
SET ROLE attacker;
SELECT mcp.check_tool_definition('fan', 'builtin', :'fan', NULL);
RESET ROLE;
-- rows that bypassed the trigger: refused where the schema is compiled, for any caller
CREATE FUNCTION public.attack_tool(x text) RETURNS text LANGUAGE sql AS $$ SELECT x $$;
ALTER TABLE mcp.tool DISABLE TRIGGER tool_row_check;
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('fan', 'f', :'fan', 'public.attack_tool(text)'),
  ('cycle', 'c', :'cycle', 'public.attack_tool(text)');
ALTER TABLE mcp.tool ENABLE TRIGGER tool_row_check;
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'fan'), ('chatbot', 'cycle');
SET ROLE attacker;
SELECT mcp.validate_arguments('fan', '{"x": 1}');
SELECT mcp.call_tool('fan', '{"x": 1}') -> 'isError';
SELECT mcp.validate_arguments('cycle', '{"x": 1}');
SELECT mcp.call_tool('cycle', '{"x": 1}') -> 'isError';
RESET ROLE;
DELETE FROM mcp.interface_tool WHERE tool IN ('fan', 'cycle');
DELETE FROM mcp.tool WHERE name IN ('fan', 'cycle');
DROP FUNCTION public.attack_tool(text);
