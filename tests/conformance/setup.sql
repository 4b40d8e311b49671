-- The conformance interface: the fixture tools, resources and prompts that the official MCP
-- conformance suite (@modelcontextprotocol/conformance, server scenarios) calls by name, written
-- as ordinary SQL functions and registry rows. tests/conformance/run.sh loads it into a fresh
-- database and points the suite at pg_mcp_bridge http --interface conformance.
SET client_min_messages = warning;
DO $$ BEGIN
  DROP ROLE IF EXISTS mcp_conf_client; DROP ROLE IF EXISTS mcp_conf_auth;
END $$;
-- the suite's client sends no token: the bridge runs on loopback with --anonymous-role
-- mcp_conf_client, and logs in as the authenticator mcp_conf_auth (NOINHERIT, no rights)
CREATE ROLE mcp_conf_client NOLOGIN;
CREATE ROLE mcp_conf_auth LOGIN NOINHERIT;
GRANT mcp_conf_client TO mcp_conf_auth;

CREATE SCHEMA conformance;
GRANT USAGE ON SCHEMA conformance TO mcp_conf_client;
-- A 1x1 PNG and an empty 8 kHz mono WAV: the smallest valid files of each type.
CREATE FUNCTION conformance.png() RETURNS bytea LANGUAGE sql IMMUTABLE AS
  $$ SELECT decode('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64') $$;
CREATE FUNCTION conformance.wav() RETURNS bytea LANGUAGE sql IMMUTABLE AS
  $$ SELECT decode('UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=', 'base64') $$;

-- Tools ---------------------------------------------------------------------------------------
CREATE FUNCTION conformance.simple_text() RETURNS text LANGUAGE sql STABLE AS
  $$ SELECT 'This is a simple text response for testing.' $$;
CREATE FUNCTION conformance.error_handling() RETURNS text LANGUAGE plpgsql AS
  $$ BEGIN RAISE EXCEPTION 'This tool intentionally returns an error for testing'; END $$;
-- what a tool reports with RAISE reaches the client as notifications/message
CREATE FUNCTION conformance.with_logging() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE 'Tool execution started';
  PERFORM pg_sleep(0.05);
  RAISE NOTICE 'Tool processing data';
  PERFORM pg_sleep(0.05);
  RAISE NOTICE 'Tool execution completed';
  RETURN 'Tool with logging executed successfully';
END $$;
CREATE FUNCTION conformance.json_schema_tool(name text DEFAULT NULL, address jsonb DEFAULT NULL)
  RETURNS jsonb LANGUAGE sql STABLE AS $$ SELECT jsonb_build_object('name', name, 'address', address) $$;

INSERT INTO mcp.interface (name, description, access_role) VALUES
  ('conformance', 'The fixture of the official MCP conformance suite', 'mcp_conf_client');
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('test_simple_text', 'Returns simple text content', '{"type":"object","properties":{}}', 'conformance.simple_text()'),
  ('test_error_handling', 'Always fails', '{"type":"object","properties":{}}', 'conformance.error_handling()'),
  ('test_tool_with_logging', 'Sends three log messages while it runs', '{"type":"object","properties":{}}', 'conformance.with_logging()'),
  ('json_schema_2020_12_tool', 'Tool with JSON Schema 2020-12 features',
   '{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"}},"additionalProperties":false}',
   'conformance.json_schema_tool(text, jsonb)');
INSERT INTO mcp.interface_tool (interface, tool)
  SELECT 'conformance', name FROM mcp.tool WHERE name LIKE 'test\_%' OR name = 'json_schema_2020_12_tool';

-- Resources -----------------------------------------------------------------------------------
INSERT INTO mcp.resource (uri, name, description, mime_type, query) VALUES
  ('test://static-text', 'Static text', 'A static text resource', 'text/plain',
   'SELECT ''This is the content of the static text resource.'''),
  ('test://static-binary', 'Static binary', 'A 1x1 PNG', 'image/png', 'SELECT conformance.png()'),
  ('test://template/{id}/data', 'Data by id', 'A resource template', 'application/json',
   'SELECT jsonb_build_object(''id'', $1, ''templateTest'', true, ''data'', ''Data for ID: '' || $1)::text'),
  ('test://watched-resource', 'Watched resource', 'A resource clients may subscribe to', 'text/plain',
   'SELECT ''Watched resource content''');

-- Prompts -------------------------------------------------------------------------------------
INSERT INTO mcp.prompt (name, role, template, variables, description, completions) VALUES
  ('test_simple_prompt', 'user', 'This is a simple prompt for testing.', '{}', 'A simple prompt without arguments', NULL),
  ('test_prompt_with_arguments', 'user', 'Prompt with arguments: arg1=''{{arg1}}'', arg2=''{{arg2}}''',
   '{arg1,arg2}', 'A prompt with two required arguments', '{"arg1": ["test", "testing"]}');

GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA conformance TO mcp_conf_client;
