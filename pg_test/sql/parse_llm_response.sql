-- mcp.parse_llm_response: any provider's answer (OpenAI, Anthropic, Azure, error bodies, SSE) as one
-- normalized shape: content, tool calls, usage, error.
\set VERBOSITY terse
-- Normalized LLM responses
SELECT jsonb_pretty(mcp.parse_llm_response('{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"getTarifVertrag","arguments":"{\"tarifgebiet\":\"Bayern\",\"fachbereich\":\"Metall\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":50,"completion_tokens":20,"total_tokens":70}}'));
-- cut off in the middle of the second tool call: the first is kept, the second is marked incomplete
SELECT c->>'id' AS id, c->>'name' AS name, c->'complete' AS complete, c->'arguments' AS arguments
  FROM jsonb_array_elements(mcp.parse_llm_response('{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{\"x\": 1}"}},{"id":"b","type":"function","function":{"name":"g","arguments":"{\"y\": \"hal') -> 'tool_calls') AS c;
-- provider error bodies become one error shape
SELECT mcp.parse_llm_response('{"statusCode": 429, "message": "Rate limit is exceeded. Try again in 10 seconds."}') -> 'error' AS azure_apim;
SELECT mcp.parse_llm_response('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}') -> 'error' AS anthropic;
SELECT mcp.parse_llm_response('<html><head><title>502 Bad Gateway</title></head></html>') -> 'error' ->> 'kind' AS html_page;
-- nesting beyond 128 levels (brackets, objects, tuples, calls, fences, SSE): an error, never a crash
SELECT mcp.parse_llm_response(repeat('[', 5000)) -> 'error' ->> 'kind' AS deep_response;
SELECT mcp.parse_llm_response('data: ' || repeat('[', 1000) || E'\n\ndata: [DONE]\n') ->> 'finish_reason' AS deep_sse;
-- deep arguments in a tool call: that call is incomplete, the answer still parses
SELECT c->>'id' AS id, c->'complete' AS complete, c->>'error' AS error
  FROM jsonb_array_elements(mcp.parse_llm_response(
    '{"choices":[{"message":{"role":"assistant","tool_calls":['
    || '{"id":"ok","type":"function","function":{"name":"f","arguments":"{\"q\": \"a\" + \"b\"}"}},'
    || '{"id":"deep","type":"function","function":{"name":"f","arguments":"' || repeat('[', 200) || '"}}]},'
    || '"finish_reason":"tool_calls"}]}') -> 'tool_calls') AS c;
-- U+0000 (text and jsonb cannot hold it) becomes U+FFFD, reported as fix nul_character
SELECT r -> 'content' AS content, r -> 'tool_calls' -> 0 -> 'arguments' AS arguments, r -> 'repairs' AS repairs
  FROM mcp.parse_llm_response('{"choices":[{"message":{"role":"assistant","content":"hi\u0000",'
    || '"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"q\": \"\\u0000\"}"}}]}}]}') AS r;
-- Tool calls written as text by open models (issue 23), with the offered tools: Kimi K2 markup
-- with reasoning; a tool not offered; the issue's "[TOOL_CALLS] not json at all"; Qwen3-Coder
-- XML typed by the schema; the tools given as a request body; a cut-off call.
SELECT r -> 'content' AS content, r -> 'reasoning' AS reasoning, r ->> 'finish_reason' AS finish,
       jsonb_path_query_array(r, '$.tool_calls[*] ? (@.complete == true) .name') AS executable,
       jsonb_path_query_array(r, '$.tool_calls[*] ? (@.complete == false) .error') AS refused
  FROM (VALUES
    ('<think>Bayern und Metall</think><|tool_calls_section_begin|><|tool_call_begin|>functions.getTarif:0<|tool_call_argument_begin|>{"gebiet": "Bayern"}<|tool_call_end|><|tool_calls_section_end|>'),
    ('<tool_call>{"name": "drop_database", "arguments": {}}</tool_call>'),
    ('[TOOL_CALLS] not json at all')
  ) AS t(content),
  LATERAL mcp.parse_llm_response(
    jsonb_build_object('choices', jsonb_build_array(jsonb_build_object('finish_reason', 'stop',
      'message', jsonb_build_object('role', 'assistant', 'content', t.content))))::text,
    '[{"type": "function", "function": {"name": "getTarif", "parameters": {"type": "object", "properties": {"gebiet": {"type": "string"}, "jahr": {"type": "integer"}}}}}]') AS r;
SELECT mcp.parse_llm_response(
    '{"choices":[{"finish_reason":"stop","message":{"role":"assistant","content":"<tool_call>\n<function=getTarif>\n<parameter=gebiet>\nBayern\n</parameter>\n<parameter=jahr>\n2024\n</parameter>\n</function>\n</tool_call>"}}]}',
    '{"model": "m", "tools": [{"name": "getTarif", "inputSchema": {"type": "object", "properties": {"gebiet": {"type": "string"}, "jahr": {"type": "integer"}}}}]}'
  ) -> 'tool_calls' -> 0 -> 'arguments' AS typed_arguments;
SELECT c -> 'complete' AS complete, c ->> 'error' AS error
  FROM jsonb_array_elements(mcp.parse_llm_response(
    '{"choices":[{"finish_reason":"length","message":{"role":"assistant","content":"[TOOL_CALLS]getTarif[ARGS]{\"gebiet\": \"Bay"}}]}',
    '[{"name": "getTarif"}]') -> 'tool_calls') AS c;
-- without tools: marked formats still parse, a bare JSON object stays the answer
SELECT mcp.parse_llm_response('{"choices":[{"message":{"role":"assistant","content":"{\"name\": \"getTarif\", \"parameters\": {}}"}}]}') -> 'content' AS bare_json,
       mcp.parse_llm_response('{"choices":[{"message":{"role":"assistant","content":"{\"name\": \"getTarif\", \"parameters\": {}}"}}]}', NULL) -> 'content' AS bare_json_null_tools,
       mcp.parse_llm_response('{"choices":[{"message":{"role":"assistant","content":"{\"name\": \"getTarif\", \"parameters\": {}}"}}]}', '[{"name": "getTarif"}]') -> 'tool_calls' -> 0 ->> 'name' AS bare_json_offered;
-- tools that are not a tools array: 22023
SELECT mcp.parse_llm_response('{}', '"getTarif"');
SELECT mcp.parse_llm_response(NULL, '[]') IS NULL AS null_raw;
