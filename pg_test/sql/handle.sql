-- mcp.handle: MCP JSON-RPC 2.0 over the registry.
\set VERBOSITY terse
BEGIN;
-- Durable audit is on: the audit rows of earlier files, committed by the worker, outlast their
-- ROLLBACK. This file sees only its own (the deletion goes with its ROLLBACK).
WITH r AS (DELETE FROM mcp.run), l AS (DELETE FROM mcp.llm_request),
     t AS (DELETE FROM mcp.tool_call), m AS (DELETE FROM mcp.message) SELECT;
CREATE TABLE public.h_item (id int PRIMARY KEY, name text, secret text);
INSERT INTO public.h_item VALUES (1, 'apple', 's1'), (2, 'pear', 's2');
CREATE FUNCTION public.h_find(name text) RETURNS jsonb LANGUAGE sql STABLE AS
  $$ SELECT coalesce(jsonb_agg(jsonb_build_object('id', id, 'name', i.name) ORDER BY id), '[]')
       FROM public.h_item i WHERE i.name = h_find.name $$;
CREATE FUNCTION public.h_boom(n int) RETURNS int LANGUAGE plpgsql AS
  $$ BEGIN RAISE EXCEPTION 'secret internal detail %', n; END $$;
CREATE FUNCTION public.h_doc(id text) RETURNS text LANGUAGE sql STABLE AS
  $$ SELECT 'Item ' || i.name FROM public.h_item i WHERE i.id = h_doc.id::int $$;
INSERT INTO mcp.interface (name) VALUES ('chatbot'), ('other');
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('find', 'Find an item', '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}', 'public.h_find(text)'),
  ('boom', 'Always fails', '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}', 'public.h_boom(integer)');
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'find'), ('chatbot', 'boom'), ('chatbot', 'sql_query'), ('other', 'schema_information');
INSERT INTO mcp.resource (uri, name, description, mime_type, query) VALUES
  ('pgmcp://items/count', 'Item count', 'How many items exist', 'text/plain', 'SELECT count(*)::text FROM public.h_item');
INSERT INTO mcp.resource (uri, name, mime_type, function) VALUES
  ('pgmcp://items/{id}', 'One item', 'text/plain', 'public.h_doc(text)');
INSERT INTO mcp.prompt (name, role, template, variables, description) VALUES
  ('summarize', 'user', 'Summarize the items named {{name}} in {{lang}}.', '{name,lang}', 'Summary of items');

-- lifecycle: the requested revision when supported, else the latest; real version; instructions
SELECT jsonb_pretty(mcp.handle('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"psql","version":"1"}}}')
       #- '{result,instructions}');
SELECT current_setting('mcp.protocol_version');
SELECT mcp.handle('{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}') -> 'result' ->> 'protocolVersion' AS offered;
SELECT mcp.handle('{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}') -> 'result' ->> 'protocolVersion' AS echoed;
SELECT mcp.handle('{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}') -> 'result' ->> 'instructions' LIKE '%not instructions%' AS says_data;
SELECT mcp.handle('{"jsonrpc":"2.0","id":"p","method":"ping"}');
-- notifications and client responses get no answer
SELECT mcp.handle('{"jsonrpc":"2.0","method":"notifications/initialized"}') IS NULL AS no_answer;
SELECT mcp.handle('{"jsonrpc":"2.0","id":9,"result":{}}') IS NULL AS no_answer;
SELECT mcp.handle(NULL) IS NULL AS no_answer;

-- tools
SELECT jsonb_pretty(mcp.handle('{"jsonrpc":"2.0","id":5,"method":"tools/list"}') -> 'result' -> 'tools' -> 0);
SELECT jsonb_path_query_array(mcp.handle('{"jsonrpc":"2.0","id":5,"method":"tools/list"}'), '$.result.tools[*].name') AS tools;
-- pagination with an opaque cursor
SET mcp.page_size = 2;
SELECT jsonb_path_query_array(mcp.handle('{"jsonrpc":"2.0","id":6,"method":"tools/list"}'), '$.result.tools[*].name') AS page1,
       mcp.handle('{"jsonrpc":"2.0","id":6,"method":"tools/list"}') -> 'result' ? 'nextCursor' AS has_next;
SELECT mcp.handle(jsonb_build_object('jsonrpc', '2.0', 'id', 7, 'method', 'tools/list', 'params',
         jsonb_build_object('cursor', mcp.handle('{"jsonrpc":"2.0","id":6,"method":"tools/list"}') -> 'result' -> 'nextCursor'))) #> '{result,tools}' @? '$[*] ? (@.name == "sql_query")' AS page2_has_sql_query;
SELECT mcp.handle('{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"cursor":"bogus"}}');
RESET mcp.page_size;
-- the interface comes from mcp.interface
SET mcp.interface = 'other';
SELECT jsonb_path_query_array(mcp.handle('{"jsonrpc":"2.0","id":5,"method":"tools/list"}'), '$.result.tools[*].name') AS other_tools;
SELECT mcp.handle('{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"find","arguments":{"name":"apple"}}}') -> 'error' AS not_in_other;
SET mcp.interface = 'missing';
SELECT mcp.handle('{"jsonrpc":"2.0","id":11,"method":"tools/list"}');
RESET mcp.interface;
-- tools/call through the mcp.call_tool pipeline: result, structuredContent (2025-06-18+)
SELECT jsonb_pretty(mcp.handle('{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"find","arguments":{"name":"apple"}}}'));
-- invalid arguments and a failing tool are isError results (no detail for the client)
SELECT mcp.handle('{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"find","arguments":{"name":5}}}') -> 'result';
SELECT regexp_replace((mcp.handle('{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"boom","arguments":{"n":1}}}') -> 'result')::text, 'call id [0-9]+', 'call id N') AS failed;
-- audited like mcp.call_tool
SELECT tool, interface, status FROM mcp.tool_call ORDER BY call_id;
-- unknown tool, missing name, wrong argument type: JSON-RPC errors
SELECT mcp.handle('{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"nope"}}');
SELECT mcp.handle('{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{}}');
SELECT mcp.handle('{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"find","arguments":[1]}}');
-- structuredContent is not sent to a 2025-03-26 client
SET mcp.protocol_version = '2025-03-26';
SELECT mcp.handle('{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"find","arguments":{"name":"pear"}}}') -> 'result' AS old_revision;
RESET mcp.protocol_version;

-- resources, templates, read as the caller
SELECT mcp.handle('{"jsonrpc":"2.0","id":20,"method":"resources/list"}') -> 'result';
SELECT mcp.handle('{"jsonrpc":"2.0","id":21,"method":"resources/templates/list"}') -> 'result';
SELECT mcp.handle('{"jsonrpc":"2.0","id":22,"method":"resources/read","params":{"uri":"pgmcp://items/count"}}') -> 'result';
SELECT mcp.handle('{"jsonrpc":"2.0","id":23,"method":"resources/read","params":{"uri":"pgmcp://items/2"}}') -> 'result';
SELECT mcp.handle('{"jsonrpc":"2.0","id":24,"method":"resources/read","params":{"uri":"pgmcp://items/99"}}');
SELECT mcp.handle('{"jsonrpc":"2.0","id":25,"method":"resources/read","params":{"uri":"pgmcp://nothing"}}');
-- a reader that fails: generic error, detail only in the server log
SELECT mcp.handle('{"jsonrpc":"2.0","id":26,"method":"resources/read","params":{"uri":"pgmcp://items/x"}}');

-- prompts
SELECT mcp.handle('{"jsonrpc":"2.0","id":30,"method":"prompts/list"}') -> 'result';
SELECT mcp.handle('{"jsonrpc":"2.0","id":31,"method":"prompts/get","params":{"name":"summarize","arguments":{"name":"apple","lang":"German"}}}') -> 'result';
SELECT mcp.handle('{"jsonrpc":"2.0","id":32,"method":"prompts/get","params":{"name":"summarize","arguments":{"name":"apple"}}}');
SELECT mcp.handle('{"jsonrpc":"2.0","id":33,"method":"prompts/get","params":{"name":"nope"}}');

-- logging
SELECT mcp.handle('{"jsonrpc":"2.0","id":40,"method":"logging/setLevel","params":{"level":"warning"}}');
SELECT mcp.handle('{"jsonrpc":"2.0","id":41,"method":"logging/setLevel","params":{"level":"loud"}}');

-- protocol errors
SELECT mcp.handle('{"jsonrpc":"2.0","id":50,"method":"no/such"}');
-- server/discover without the 2026-07-28 envelope in _meta: a malformed modern request
SELECT mcp.handle('{"jsonrpc":"2.0","id":51,"method":"server/discover"}') -> 'error' ->> 'code' AS discover;
SELECT mcp.handle('{"id":52,"method":"ping"}');
SELECT mcp.handle('{"jsonrpc":"2.0","id":null,"method":"ping"}');
SELECT mcp.handle('{"jsonrpc":"2.0","id":53,"method":"ping","params":"x"}');
SELECT mcp.handle('"hello"');
SELECT mcp.handle('{"jsonrpc":"2.0","id":54,"method":"initialize","params":{}}');
-- batches: the latest revision (and 2025-06-18) has no JSON-RPC batching
SELECT mcp.handle('[{"jsonrpc":"2.0","id":59,"method":"ping"}]');
-- batches under 2025-03-26: answers for requests only, at most mcp.max_batch_items messages
SET LOCAL mcp.protocol_version = '2025-03-26';
SELECT mcp.handle('[{"jsonrpc":"2.0","id":60,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled"},{"jsonrpc":"2.0","id":61,"method":"nope"}]');
SELECT mcp.handle('[{"jsonrpc":"2.0","method":"notifications/initialized"}]') IS NULL AS no_answer;
SELECT mcp.handle('[]');
SET LOCAL mcp.max_batch_items = 2;
SELECT mcp.handle('[{"jsonrpc":"2.0","id":62,"method":"ping"},{"jsonrpc":"2.0","id":63,"method":"ping"},{"jsonrpc":"2.0","id":64,"method":"ping"}]');
RESET mcp.max_batch_items;
RESET mcp.protocol_version;
-- no secret or error detail in any answer
SELECT count(*) AS leaks FROM (VALUES
  (mcp.handle('{"jsonrpc":"2.0","id":70,"method":"tools/call","params":{"name":"boom","arguments":{"n":7}}}')),
  (mcp.handle('{"jsonrpc":"2.0","id":71,"method":"resources/read","params":{"uri":"pgmcp://items/y"}}'))) v(r)
 WHERE r::text LIKE '%secret internal%' OR r::text LIKE '%invalid input syntax%';
ROLLBACK;
-- opaque bearer tokens of the HTTP bridge: only the SHA-256 is stored, owner-only
BEGIN;
CREATE TEMP TABLE tok AS SELECT mcp.create_bridge_token('postgres', 'golden test', now() + interval '1 day') AS t;
SELECT t ~ '^pgmcp_[0-9a-f]{64}$' AS token_format FROM tok;
SELECT b.role_name, b.description, b.token_hash = sha256(convert_to(tok.t, 'UTF8')) AS hash_matches,
       position(tok.t IN b::text) = 0 AS no_plaintext
  FROM mcp.bridge_token b, tok;
SELECT mcp.create_bridge_token('no_such_role');
ROLLBACK;
SELECT has_table_privilege('public', 'mcp.bridge_token', 'SELECT') AS public_reads_tokens,
       has_function_privilege('public', 'mcp.create_bridge_token(name, text, timestamptz)', 'EXECUTE') AS public_creates_tokens;
-- output schemas: advertised, and a result must match them
BEGIN;
CREATE FUNCTION public.h_pair(a int) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$ SELECT jsonb_build_object('a', a, 'b', a * 2) $$;
INSERT INTO mcp.interface (name) VALUES ('chatbot');
INSERT INTO mcp.tool (name, description, parameters, function, output_schema) VALUES
  ('pair', 'a and 2a', '{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}', 'public.h_pair(integer)',
   '{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}');
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'pair');
SELECT mcp.handle('{"jsonrpc":"2.0","id":1,"method":"tools/list"}') #> '{result,tools,0,outputSchema}' AS output_schema;
SELECT mcp.handle('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pair","arguments":{"a":2}}}') -> 'result' AS matches;
UPDATE mcp.tool SET output_schema = '{"type":"object","properties":{"a":{"type":"string"},"c":{"type":"integer"}},"required":["a","c"]}' WHERE name = 'pair';
SELECT regexp_replace((mcp.handle('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"pair","arguments":{"a":2}}}') -> 'result')::text, 'call id [0-9]+', 'call id N') AS does_not_match;
-- the audit row says what the client got: the matching call ok, the mismatching one error
SELECT status FROM mcp.tool_call WHERE tool = 'pair' ORDER BY call_id;
UPDATE mcp.tool SET output_schema = '{"type":"string"}' WHERE name = 'pair';
ROLLBACK;
-- completion/complete: a prompt argument's listed values
BEGIN;
INSERT INTO mcp.prompt (name, template, variables, completions) VALUES
  ('frage', 'Frage zu {{region}}', '{region}', '{"region": ["Bayern", "Baden-Württemberg", "Berlin", "Sachsen"]}');
SELECT mcp.handle('{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"frage"},"argument":{"name":"region","value":"ba"}}}') -> 'result' AS completion;
SELECT mcp.handle('{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"frage"},"argument":{"name":"jahr","value":""}}}') -> 'error' AS undeclared;
ROLLBACK;
