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
-- content beyond one text item: the function returns jsonb, an MCP content array
-- (mcp.tool.returns_content), with the bytes of a bytea as base64
CREATE FUNCTION conformance.image_content() RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_array(jsonb_build_object('type', 'image', 'mimeType', 'image/png',
                                              'data', translate(encode(conformance.png(), 'base64'), E'\n', ''))) $$;
CREATE FUNCTION conformance.audio_content() RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_array(jsonb_build_object('type', 'audio', 'mimeType', 'audio/wav',
                                              'data', translate(encode(conformance.wav(), 'base64'), E'\n', ''))) $$;
CREATE FUNCTION conformance.embedded_resource() RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT '[{"type": "resource", "resource": {"uri": "test://embedded-resource", "mimeType": "text/plain",
            "text": "This is an embedded resource content."}}]'::jsonb $$;
CREATE FUNCTION conformance.multiple_content_types() RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_array(
    jsonb_build_object('type', 'text', 'text', 'Multiple content types test:'),
    conformance.image_content() -> 0,
    jsonb_build_object('type', 'resource', 'resource', jsonb_build_object(
      'uri', 'test://mixed-content-resource', 'mimeType', 'application/json',
      'text', jsonb_build_object('test', 'data', 'value', 123)::text))) $$;
-- progress reported through mcp.report_progress (notifications/progress)
CREATE FUNCTION conformance.with_progress() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM mcp.report_progress(0, 100);
  PERFORM pg_sleep(0.05);
  PERFORM mcp.report_progress(50, 100);
  PERFORM pg_sleep(0.05);
  PERFORM mcp.report_progress(100, 100);
  RETURN 'Progress tool executed successfully';
END $$;
-- input from the client (multi round-trip requests): the first round returns the input
-- request, the client answers (a 2025-11-25 client through the bridge's server-to-client
-- request on the call's SSE stream), and the call runs again with mcp.input_response(key)
CREATE FUNCTION conformance.ask(key text, method text, params jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('needs_input', true, 'input_requests',
                            jsonb_build_object(key, jsonb_build_object('method', method, 'params', params))) $$;
CREATE FUNCTION conformance.sampling(prompt text) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN mcp.input_response('llm') IS NULL
    THEN conformance.ask('llm', 'sampling/createMessage', jsonb_build_object(
           'messages', jsonb_build_array(jsonb_build_object('role', 'user',
                         'content', jsonb_build_object('type', 'text', 'text', prompt))),
           'maxTokens', 100))
    ELSE jsonb_build_array(jsonb_build_object('type', 'text',
           'text', 'LLM response: ' || coalesce(mcp.input_response('llm') #>> '{content,text}', '')))
  END $$;
CREATE FUNCTION conformance.elicitation(message text) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN mcp.input_response('user') IS NULL
    THEN conformance.ask('user', 'elicitation/create', jsonb_build_object('message', message,
           'requestedSchema', '{"type": "object", "properties": {
              "username": {"type": "string", "description": "User''s response"},
              "email": {"type": "string", "description": "User''s email address"}},
              "required": ["username", "email"]}'::jsonb))
    ELSE jsonb_build_array(jsonb_build_object('type', 'text', 'text',
           'User response: action=' || (mcp.input_response('user') ->> 'action')
           || ', content=' || coalesce(mcp.input_response('user') -> 'content', '{}')::text))
  END $$;
CREATE FUNCTION conformance.elicit_schema(key text, schema jsonb) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN mcp.input_response(key) IS NULL
    THEN conformance.ask(key, 'elicitation/create', jsonb_build_object(
           'message', 'Test client default value handling - please accept with defaults',
           'requestedSchema', schema))
    ELSE jsonb_build_array(jsonb_build_object('type', 'text', 'text',
           'Elicitation completed: action=' || (mcp.input_response(key) ->> 'action')
           || ', content=' || coalesce(mcp.input_response(key) -> 'content', '{}')::text))
  END $$;
CREATE FUNCTION conformance.elicitation_defaults() RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT conformance.elicit_schema('defaults', '{"type": "object", "properties": {
    "name": {"type": "string", "description": "User name", "default": "John Doe"},
    "age": {"type": "integer", "description": "User age", "default": 30},
    "score": {"type": "number", "description": "User score", "default": 95.5},
    "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
    "verified": {"type": "boolean", "description": "Verification status", "default": true}},
    "required": []}') $$;
CREATE FUNCTION conformance.elicitation_enums() RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT conformance.elicit_schema('enums', '{"type": "object", "properties": {
    "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
    "titledSingle": {"type": "string", "oneOf": [{"const": "value1", "title": "First Option"},
                     {"const": "value2", "title": "Second Option"}, {"const": "value3", "title": "Third Option"}]},
    "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
    "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
    "titledMulti": {"type": "array", "items": {"anyOf": [{"const": "value1", "title": "First Choice"},
                     {"const": "value2", "title": "Second Choice"}, {"const": "value3", "title": "Third Choice"}]}}},
    "required": []}') $$;
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
   'conformance.json_schema_tool(text, jsonb)'),
  ('test_tool_with_progress', 'Reports progress while it runs', '{"type":"object","properties":{}}', 'conformance.with_progress()');
INSERT INTO mcp.tool (name, description, parameters, function, returns_content) VALUES
  ('test_image_content', 'Returns image content', '{"type":"object","properties":{}}', 'conformance.image_content()', true),
  ('test_audio_content', 'Returns audio content', '{"type":"object","properties":{}}', 'conformance.audio_content()', true),
  ('test_embedded_resource', 'Returns an embedded resource', '{"type":"object","properties":{}}', 'conformance.embedded_resource()', true),
  ('test_multiple_content_types', 'Returns text, an image and a resource', '{"type":"object","properties":{}}', 'conformance.multiple_content_types()', true),
  ('test_sampling', 'Asks the client''s LLM (sampling/createMessage)',
   '{"type":"object","properties":{"prompt":{"type":"string"}},"required":["prompt"]}', 'conformance.sampling(text)', true),
  ('test_elicitation', 'Asks the client''s user (elicitation/create)',
   '{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}', 'conformance.elicitation(text)', true),
  ('test_elicitation_sep1034_defaults', 'Elicitation with defaults of every primitive type', '{"type":"object","properties":{}}', 'conformance.elicitation_defaults()', true),
  ('test_elicitation_sep1330_enums', 'Elicitation with the five enum forms', '{"type":"object","properties":{}}', 'conformance.elicitation_enums()', true);
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
-- several messages with an embedded resource or an image (mcp.prompt.messages)
INSERT INTO mcp.prompt (name, role, template, variables, description, messages) VALUES
  ('test_prompt_with_embedded_resource', 'user', 'Please process the embedded resource {{resourceUri}}.', '{resourceUri}',
   'A prompt with an embedded resource',
   '[{"role": "user", "content": {"type": "resource", "resource": {"uri": "{{resourceUri}}", "mimeType": "text/plain", "text": "Embedded resource content for testing."}}},
     {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}}]'),
  ('test_prompt_with_image', 'user', 'Please analyze the image.', '{}', 'A prompt with an image',
   jsonb_build_array(
     jsonb_build_object('role', 'user', 'content', jsonb_build_object('type', 'image', 'mimeType', 'image/png',
                        'data', translate(encode(conformance.png(), 'base64'), E'\n', ''))),
     '{"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}}'::jsonb));
INSERT INTO mcp.prompt (name, role, template, variables, description, completions) VALUES
  ('test_simple_prompt', 'user', 'This is a simple prompt for testing.', '{}', 'A simple prompt without arguments', NULL),
  ('test_prompt_with_arguments', 'user', 'Prompt with arguments: arg1=''{{arg1}}'', arg2=''{{arg2}}''',
   '{arg1,arg2}', 'A prompt with two required arguments', '{"arg1": ["test", "testing"]}');

GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA conformance TO mcp_conf_client;
