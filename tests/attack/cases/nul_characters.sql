-- U+0000 (escape or raw control character) anywhere in JSON text: one defined
-- outcome, U+FFFD, reported as fix nul_character; never 'unsupported Unicode escape sequence'.
SET ROLE attacker;
SELECT mcp.repair_json('"\u0000"');
SELECT mcp.repair_json('{"k\u0000": ["\u0000", {"\u0000": "\u0000"}]}');
SELECT mcp.repair_json_report('{''a'': "x\u0000" + "\u0000",}') -> 'fixes';
SELECT mcp.repair_json_report('"' || chr(1) || '\u0000"') ? 'value';
SELECT mcp.parse_llm_response('{"choices":[{"message":{"role":"assistant","content":"\u0000","tool_calls":[{"id":"\u0000","type":"function","function":{"name":"\u0000","arguments":"{\"\\u0000\": \"\\u0000\"}"}}]}}]}') -> 'tool_calls';
SELECT mcp.parse_llm_response('data: {"choices":[{"delta":{"content":"\u0000"}}]}' || chr(10) || chr(10) || 'data: [DONE]') -> 'content';
SELECT mcp.parse_llm_response('{"error": {"message": "\u0000", "type": "\u0000", "code": "\u0000"}}') -> 'error';
SELECT mcp.parse_llm_response('{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{"\u0000":"\u0000"}}]}') -> 'tool_calls';
