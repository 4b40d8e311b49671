-- mcp.handle in the stateless 2026-07-28 revision, beside the handshake revisions.
\set VERBOSITY terse
BEGIN;
WITH t AS (DELETE FROM mcp.tool_call) SELECT;
CREATE FUNCTION public.h26_find(name text) RETURNS jsonb LANGUAGE sql STABLE AS
  $$ SELECT jsonb_build_object('name', name) $$;
INSERT INTO mcp.interface (name) VALUES ('chatbot');
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('Zeta', 'capital Z', '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}', 'public.h26_find(text)'),
  ('alpha_b', 'underscore', '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}', 'public.h26_find(text)'),
  ('alphab', 'no underscore', '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}', 'public.h26_find(text)');
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'Zeta'), ('chatbot', 'alpha_b'), ('chatbot', 'alphab'), ('chatbot', 'sql_query');
INSERT INTO mcp.resource (uri, name, mime_type, query) VALUES
  ('pgmcp://h26/one', 'One', 'text/plain', 'SELECT ''1''');
INSERT INTO mcp.prompt (name, role, template, variables) VALUES ('p26', 'user', 'Hello {{who}}.', '{who}');
-- the envelope every modern request carries
CREATE TEMP TABLE env AS SELECT '{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
  "io.modelcontextprotocol/clientInfo":{"name":"psql","version":"1"},
  "io.modelcontextprotocol/clientCapabilities":{}}'::jsonb AS m;
CREATE FUNCTION pg_temp.modern(id int, method text, params jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS
  $$ SELECT mcp.handle(jsonb_build_object('jsonrpc', '2.0', 'id', id, 'method', method,
                                          'params', params || jsonb_build_object('_meta', (SELECT m FROM env)))) $$;
-- the server's version varies; the rest is fixed
CREATE FUNCTION pg_temp.masked(r jsonb) RETURNS jsonb LANGUAGE sql AS
  $$ SELECT r #- '{result,_meta,io.modelcontextprotocol/serverInfo,version}' $$;

-- server/discover: versions of both eras, what is delivered, identity, caching hint
SELECT jsonb_pretty(pg_temp.masked(pg_temp.modern(1, 'server/discover')) #- '{result,instructions}');
SELECT pg_temp.modern(2, 'server/discover') #>> '{result,_meta,io.modelcontextprotocol/serverInfo,version}'
       = (SELECT extversion FROM pg_extension WHERE extname = 'pg_mcp') AS real_version;
-- no session: the connection's revision is untouched
SELECT current_setting('mcp.protocol_version') AS connection_revision;

-- tools/list: byte order of the names whatever the collation, resultType, ttlMs, cacheScope
SELECT jsonb_path_query_array(r, '$.result.tools[*].name') AS names, r #> '{result,resultType}' AS result_type,
       r #> '{result,ttlMs}' AS ttl, r #> '{result,cacheScope}' AS scope
  FROM pg_temp.modern(3, 'tools/list') r;
SET LOCAL mcp.list_ttl_ms = 0;
SELECT pg_temp.modern(4, 'tools/list') #> '{result,ttlMs}' AS ttl_zero;
RESET mcp.list_ttl_ms;
-- the same list, in the same order, for a legacy request; without the new fields
SELECT jsonb_path_query_array(r, '$.result.tools[*].name') AS legacy_names, r -> 'result' ? 'resultType' AS has_result_type
  FROM mcp.handle('{"jsonrpc":"2.0","id":5,"method":"tools/list"}') r;

-- tools/call, resources, prompts, completion
SELECT pg_temp.masked(pg_temp.modern(6, 'tools/call', '{"name":"alphab","arguments":{"name":"x"}}')) -> 'result' AS call;
SELECT pg_temp.masked(pg_temp.modern(7, 'resources/list')) -> 'result' AS resources;
SELECT pg_temp.masked(pg_temp.modern(8, 'resources/read', '{"uri":"pgmcp://h26/one"}')) -> 'result' AS read;
SELECT pg_temp.modern(9, 'resources/read', '{"uri":"pgmcp://h26/none"}') -> 'error' AS read_unknown;
SELECT mcp.handle('{"jsonrpc":"2.0","id":10,"method":"resources/read","params":{"uri":"pgmcp://h26/none"}}') -> 'error' AS legacy_read_unknown;
SELECT r #> '{result,resultType}' AS result_type, r #> '{result,cacheScope}' AS scope
  FROM pg_temp.modern(11, 'resources/templates/list') r;
SELECT pg_temp.masked(pg_temp.modern(12, 'prompts/list')) -> 'result' AS prompts;
SELECT pg_temp.masked(pg_temp.modern(13, 'prompts/get', '{"name":"p26","arguments":{"who":"you"}}')) -> 'result' AS prompt;
SELECT pg_temp.modern(14, 'tools/call', '{"name":"nope","arguments":{}}') -> 'error' AS unknown_tool;

-- removed by 2026-07-28: unknown methods for a modern request
SELECT pg_temp.modern(20, 'ping') -> 'error' AS ping;
SELECT pg_temp.modern(21, 'logging/setLevel', '{"level":"info"}') -> 'error' ->> 'code' AS set_level;
SELECT pg_temp.modern(22, 'resources/subscribe', '{"uri":"pgmcp://h26/one"}') -> 'error' ->> 'code' AS subscribe;
-- subscriptions/listen: the honoured subset of the filter (the stream is the bridge's)
SELECT pg_temp.modern(23, 'subscriptions/listen', '{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["pgmcp://h26/one","pgmcp://h26/none"],"taskIds":["x"]}}') #> '{result,notifications}' AS listen;
SELECT pg_temp.modern(24, 'subscriptions/listen', '{}') #> '{error,code}' AS listen_without_filter;

-- UnsupportedProtocolVersionError: unknown versions, and handshake revisions in an envelope
SELECT mcp.handle('{"jsonrpc":"2.0","id":30,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}');
SELECT mcp.handle('{"jsonrpc":"2.0","id":31,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}}') -> 'error' -> 'data' AS handshake_revision;
-- malformed envelopes: -32602
SELECT mcp.handle('{"jsonrpc":"2.0","id":32,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}') -> 'error' AS no_capabilities;
SELECT mcp.handle('{"jsonrpc":"2.0","id":33,"method":"server/discover"}') -> 'error' ->> 'code' AS discover_without_envelope;
-- a sessionless HTTP request whose header said 2026-07-28 (the bridge sets the revision) but whose body has no envelope
SET LOCAL mcp.protocol_version = '2026-07-28';
SELECT mcp.handle('{"jsonrpc":"2.0","id":34,"method":"tools/list"}') -> 'error' ->> 'code' AS no_envelope;
RESET mcp.protocol_version;

-- a legacy session beside it: initialize, then the handshake revision, unchanged by modern requests
SELECT mcp.handle('{"jsonrpc":"2.0","id":40,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}') #>> '{result,protocolVersion}' AS negotiated;
SELECT pg_temp.modern(41, 'tools/call', '{"name":"alphab","arguments":{"name":"y"}}') #> '{result,structuredContent}' AS modern_structured;
SELECT mcp.handle('{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"alphab","arguments":{"name":"y"}}}') -> 'result' ? 'structuredContent' AS legacy_2025_03_26_structured;
SELECT current_setting('mcp.protocol_version') AS still_negotiated;
-- both calls audited alike
SELECT tool, status FROM mcp.tool_call ORDER BY call_id;
ROLLBACK;
