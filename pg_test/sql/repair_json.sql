-- JSON repair on the SQL surface.
\set VERBOSITY terse
SELECT mcp.repair_json('{"a": [1, 2, {"b": null}]}');
SELECT mcp.repair_json(NULL) IS NULL AS null_in_null_out;
SELECT mcp.repair_json(E'Here you go:\n```json\n{"city": ''Berlin'', "days": 3,}\n```\nAnything else?');
SELECT mcp.repair_json('{"tool": "getTarifVertrag", "arguments": {"tarifgebiet": "Bay');
SELECT mcp.repair_json('{"a": True, "b": None, "c": "x" + "y"}');
SELECT mcp.repair_json_report('{"a": 1}');
SELECT mcp.repair_json_report('[1, 2, // two' || E'\n' || '3,]');
SELECT mcp.repair_json('<html><body>502 Bad Gateway</body></html>');
SELECT mcp.repair_json_report('<html><body>502 Bad Gateway</body></html>') -> 'value' AS value;
-- Normalized LLM responses
SELECT jsonb_pretty(mcp.parse_llm_response('{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"getTarifVertrag","arguments":"{\"tarifgebiet\":\"Bayern\",\"fachbereich\":\"Metall\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":50,"completion_tokens":20,"total_tokens":70}}'));
-- cut off in the middle of the second tool call: the first is kept, the second is marked incomplete
SELECT c->>'id' AS id, c->>'name' AS name, c->'complete' AS complete, c->'arguments' AS arguments
  FROM jsonb_array_elements(mcp.parse_llm_response('{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{\"x\": 1}"}},{"id":"b","type":"function","function":{"name":"g","arguments":"{\"y\": \"hal') -> 'tool_calls') AS c;
-- provider error bodies become one error shape
SELECT mcp.parse_llm_response('{"statusCode": 429, "message": "Rate limit is exceeded. Try again in 10 seconds."}') -> 'error' AS azure_apim;
SELECT mcp.parse_llm_response('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}') -> 'error' AS anthropic;
SELECT mcp.parse_llm_response('<html><head><title>502 Bad Gateway</title></head></html>') -> 'error' ->> 'kind' AS html_page;
-- Hostile input: every outcome is defined (issue 9).
-- A "+" chain of 20,000 operands (read in one loop; it used to overflow the stack)
SELECT length(mcp.repair_json('{"a": ' || repeat('"x" + ', 20000) || '"y"}') ->> 'a') AS chain_length;
SELECT r -> 'fixes' -> 0 AS first_fix, jsonb_array_length(r -> 'fixes') AS fixes
  FROM mcp.repair_json_report('{"a": ' || repeat('"x" + ', 20000) || '"y"}') AS r;
-- nesting beyond 128 levels (brackets, objects, tuples, calls, fences, SSE): an error, never a crash
SELECT mcp.repair_json(repeat('[', 129));
SELECT mcp.repair_json(repeat('f(', 5000));
SELECT mcp.repair_json_report(repeat('{"a": (', 100000)) -> 'error' AS deep_report;
SELECT mcp.repair_json_report(E'```json\n' || repeat('[{"k": ', 70)) -> 'error' AS fenced_deep;
SELECT mcp.parse_llm_response(repeat('[', 5000)) -> 'error' ->> 'kind' AS deep_response;
SELECT mcp.parse_llm_response('data: ' || repeat('[', 1000) || E'\n\ndata: [DONE]\n') ->> 'finish_reason' AS deep_sse;
-- at the limit it parses
SELECT mcp.repair_json(repeat('[', 128) || repeat(']', 128)) = (repeat('[', 128) || repeat(']', 128))::jsonb AS at_limit;
-- deep arguments in a tool call: that call is incomplete, the answer still parses
SELECT c->>'id' AS id, c->'complete' AS complete, c->>'error' AS error
  FROM jsonb_array_elements(mcp.parse_llm_response(
    '{"choices":[{"message":{"role":"assistant","tool_calls":['
    || '{"id":"ok","type":"function","function":{"name":"f","arguments":"{\"q\": \"a\" + \"b\"}"}},'
    || '{"id":"deep","type":"function","function":{"name":"f","arguments":"' || repeat('[', 200) || '"}}]},'
    || '"finish_reason":"tool_calls"}]}') -> 'tool_calls') AS c;
-- U+0000 (text and jsonb cannot hold it) becomes U+FFFD, reported as fix nul_character
SELECT mcp.repair_json('{"k\u0000": "a\u0000b"}');
SELECT mcp.repair_json_report('"\u0000"');
SELECT r -> 'content' AS content, r -> 'tool_calls' -> 0 -> 'arguments' AS arguments, r -> 'repairs' AS repairs
  FROM mcp.parse_llm_response('{"choices":[{"message":{"role":"assistant","content":"hi\u0000",'
    || '"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"q\": \"\\u0000\"}"}}]}}]}') AS r;
-- jsonb arguments nested deeper than 128 levels, or numbers beyond 64-bit floating point
SELECT mcp.validate_arguments('sql_query', (repeat('[', 129) || repeat(']', 129))::jsonb);
SELECT mcp.call_tool('sql_query', jsonb_build_object('query', (repeat('{"a":', 200) || '1' || repeat('}', 200))::jsonb));
SELECT mcp.validate_arguments('sql_query', '{"max_rows": 1e400}');
