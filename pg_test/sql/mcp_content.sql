-- mcp.handle: content beyond one text item (tools returning MCP content, bytea resources as
-- blob, prompts of several messages), resources/subscribe, mcp.report_progress.
\set VERBOSITY terse
BEGIN;
SET LOCAL mcp.interface = 'content';
CREATE FUNCTION public.c_png() RETURNS bytea LANGUAGE sql IMMUTABLE AS $$ SELECT '\x89504e47'::bytea $$;
CREATE FUNCTION public.c_image() RETURNS jsonb LANGUAGE sql STABLE AS
  $$ SELECT jsonb_build_array(jsonb_build_object('type', 'text', 'text', 'a picture:'),
                              jsonb_build_object('type', 'image', 'mimeType', 'image/png', 'data', encode(public.c_png(), 'base64'))) $$;
CREATE FUNCTION public.c_bad() RETURNS jsonb LANGUAGE sql STABLE AS
  $$ SELECT '[{"type": "image", "data": "not base64!", "mimeType": "image/png"}]'::jsonb $$;
CREATE FUNCTION public.c_text() RETURNS text LANGUAGE sql STABLE AS $$ SELECT 'plain' $$;
CREATE FUNCTION public.c_progress() RETURNS text LANGUAGE plpgsql AS
  $$ BEGIN PERFORM mcp.report_progress(1, 2, 'half'); RETURN 'done'; END $$;
INSERT INTO mcp.interface (name, access_role) VALUES ('content', 'public');
INSERT INTO mcp.tool (name, description, parameters, function, returns_content) VALUES
  ('image', 'An image', '{"type":"object","properties":{}}', 'public.c_image()', true),
  ('bad', 'Malformed content', '{"type":"object","properties":{}}', 'public.c_bad()', true),
  ('text_as_content', 'Text, not content', '{"type":"object","properties":{}}', 'public.c_text()', true),
  ('progress', 'Reports progress', '{"type":"object","properties":{}}', 'public.c_progress()', false);
INSERT INTO mcp.interface_tool SELECT 'content', name FROM mcp.tool WHERE name IN ('image', 'bad', 'text_as_content', 'progress');
INSERT INTO mcp.resource (uri, name, mime_type, query) VALUES
  ('test://png', 'A PNG', 'image/png', 'SELECT public.c_png();'),
  ('test://count', 'A count', 'text/plain', 'SELECT 42::text');
INSERT INTO mcp.prompt (name, role, template, variables, messages) VALUES
  ('with_resource', 'user', 'Look at {{uri}}.', '{uri,who}',
   '[{"role": "user", "content": {"type": "resource", "resource": {"uri": "{{uri}}"}}},
     {"role": "assistant", "content": {"type": "text", "text": "Hello {{who}}"}}]');

-- a content array passes as the result's content; no structuredContent
SELECT jsonb_pretty(mcp.handle('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"image","arguments":{}}}') -> 'result');
-- malformed content and a non-JSON result are tool errors naming the problem
SELECT r -> 'isError' AS is_error, regexp_replace(r -> 'content' -> 0 ->> 'text', 'call id \d+', 'call id N') AS text
  FROM (SELECT mcp.handle('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bad","arguments":{}}}') -> 'result' AS r) x;
SELECT r -> 'isError' AS is_error, regexp_replace(r -> 'content' -> 0 ->> 'text', 'call id \d+', 'call id N') AS text
  FROM (SELECT mcp.handle('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"text_as_content","arguments":{}}}') -> 'result' AS r) x;
-- the audit row has the status the client got
SELECT t.tool, t.status FROM mcp.tool_call t WHERE t.tool IN ('image', 'bad', 'text_as_content') ORDER BY t.call_id;
-- a bytea resource is a base64 blob (a trailing semicolon in the query is fine)
SELECT mcp.handle('{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"test://png"}}') -> 'result';
-- prompt messages: a resource named by URI is read, text is filled as marked data
SELECT jsonb_pretty(mcp.handle('{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"with_resource","arguments":{"uri":"test://count","who":"<Ann>"}}}') -> 'result');
SELECT mcp.handle('{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"with_resource","arguments":{"uri":"test://none","who":"x"}}}') -> 'error';
-- subscribe: a visible resource, or -32002
SELECT mcp.handle('{"jsonrpc":"2.0","id":7,"method":"resources/subscribe","params":{"uri":"test://count"}}');
SELECT mcp.handle('{"jsonrpc":"2.0","id":8,"method":"resources/subscribe","params":{"uri":"test://none"}}') -> 'error' -> 'code';
SELECT mcp.handle('{"jsonrpc":"2.0","id":9,"method":"resources/unsubscribe","params":{"uri":"test://none"}}');
-- mcp.report_progress is a NOTICE with SQLSTATE PM001 (what the bridge turns into notifications/progress)
\set VERBOSITY sqlstate
SELECT mcp.report_progress(1, 2, 'half');
\set VERBOSITY default
SELECT mcp.report_progress(1, 2, 'half');
\set VERBOSITY terse
SELECT mcp.report_progress('NaN', 2);
ROLLBACK;
