-- mcp.validate_arguments: a tool's arguments checked against its JSON Schema without running the
-- tool: [] when they fit, else the errors a model would get.
\set VERBOSITY terse
BEGIN;
CREATE FUNCTION public.va_find(name text, max_price numeric DEFAULT 100) RETURNS jsonb LANGUAGE sql STABLE AS
  $$ SELECT '[]'::jsonb $$;
INSERT INTO mcp.interface (name) VALUES ('chatbot');
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('find', 'Find an item', '{"type":"object","properties":{"name":{"type":"string"},"max_price":{"type":"number"}},"required":["name"]}', 'public.va_find(text, numeric)');
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'find');
SELECT mcp.validate_arguments('find', '{"name": 5, "colour": "red"}');
SELECT mcp.validate_arguments('find', '{"name": "apple"}');
ROLLBACK;
-- jsonb arguments nested deeper than 128 levels, or numbers beyond 64-bit floating point
SELECT mcp.validate_arguments('sql_query', (repeat('[', 129) || repeat(']', 129))::jsonb);
SELECT mcp.validate_arguments('sql_query', '{"max_rows": 1e400}');
