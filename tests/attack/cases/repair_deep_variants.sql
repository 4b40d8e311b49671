-- Variants of the recursion class: every shape that nests or chains, through all
-- three repair functions, up to ~1 MB of input. Each must give a value or a clean error.
SET ROLE attacker;
\set f 'mcp.repair_json_report'
-- brackets mixed with concatenation, and chains inside brackets
SELECT :f(repeat('["x" + "y" + ', 100000)) ? 'value';
SELECT :f(repeat('[{"a": "x" + ', 100000)) ? 'value';
SELECT :f('[' || repeat('"x" + ', 150000) || '"y"]') ? 'value';
SELECT :f(repeat('"x" + ', 150000) || '"y"') ? 'value';
SELECT :f('{"a": ' || repeat('''x'' +' || chr(10) || '// c' || chr(10), 100000)) ? 'value';
-- Python literals, tuples, sets, calls, MongoDB constructors
SELECT :f(repeat('{''a'': (None, [True, ', 50000)) ? 'value';
SELECT :f(repeat('(', 200000)) ? 'value';
SELECT :f(repeat('{''a'', ', 100000)) ? 'value';
SELECT :f(repeat('f(', 200000)) ? 'value';
SELECT :f('[' || repeat('new ObjectId(', 50000)) ? 'value';
SELECT :f(repeat('["k": ', 100000)) ? 'value';
-- comments between every level
SELECT :f(repeat('/* c */ [ // x' || chr(10) || '# y' || chr(10), 50000)) ? 'value';
-- fences: deep JSON in a fence, and fenced JSON inside strings inside fenced JSON (second opinion)
SELECT :f('```json' || chr(10) || repeat('{"a": [', 100000)) ? 'value';
SELECT :f('{"k": "x" y", "a": ' || repeat('"```json ', 100000)) ? 'value';
SELECT :f(repeat('```json' || chr(10) || '[', 50000)) ? 'value';
-- doubtful quotes at every level (the second opinion parses the whole depth again)
SELECT :f(repeat('{"a": "x" y", "b": ', 50000)) ? 'value';
SELECT :f(repeat('["a" b", ', 100000)) ? 'value';
-- wrappers around deep JSON
SELECT :f('<tool_call>' || repeat('{"a":', 100000)) ? 'value';
SELECT :f('[TOOL_CALLS]' || repeat('[', 100000)) ? 'value';
SELECT :f(repeat('data: ' || repeat('[', 200) || chr(10), 2000)) ? 'value';
SELECT :f('{"a": 1}, "b": ' || repeat('[', 100000)) ? 'value';
SELECT :f(repeat('{\"a\": [', 100000)) ? 'value';
-- the same through repair_json (an ERROR is fine) and parse_llm_response
SELECT length(mcp.repair_json(repeat('[{"a": "x" + ', 100000))::text);
SELECT length(mcp.repair_json('{"a": ' || repeat('"x" + ', 150000) || '"y"}')::text);
SELECT mcp.parse_llm_response(repeat('[{"a": (f(', 50000)) ? 'error';
SELECT mcp.parse_llm_response('data: ' || repeat('{"choices": [', 50000)) ? 'error';
-- chains and depth inside tool-call arguments, SSE deltas and Anthropic input
SELECT mcp.parse_llm_response(jsonb_build_object('choices', jsonb_build_array(jsonb_build_object('message',
  jsonb_build_object('role', 'assistant', 'tool_calls', jsonb_build_array(jsonb_build_object('id', 'c', 'type', 'function',
  'function', jsonb_build_object('name', 'f', 'arguments', '{"q": ' || repeat('"x" + ', 150000) || '"y"}'))))))))::text) ? 'tool_calls';
SELECT mcp.parse_llm_response(jsonb_build_object('choices', jsonb_build_array(jsonb_build_object('message',
  jsonb_build_object('role', 'assistant', 'tool_calls', jsonb_build_array(jsonb_build_object('id', 'c', 'type', 'function',
  'function', jsonb_build_object('name', 'f', 'arguments', repeat('{"a": [', 100000)))))))))::text) ? 'tool_calls';
SELECT mcp.parse_llm_response(string_agg('data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"'
  || repeat('\"x\" + ', 500) || '"}}]}}]}' || chr(10) || chr(10), '') || 'data: [DONE]') ? 'tool_calls'
  FROM generate_series(1, 300);
SELECT mcp.parse_llm_response('{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":'
  || repeat('[', 100000) || '}],"stop_reason":"tool_use"}') ? 'error';
SELECT mcp.parse_llm_response(repeat('[', 100000) || '{"error": {"message": "x"}}') ? 'error';
