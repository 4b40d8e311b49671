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
