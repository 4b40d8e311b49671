-- Large, NUL-free but hostile text through every function any role can call.
SET ROLE attacker;
SELECT mcp.repair_json_report(repeat('[', 100000)) ? 'value';
SELECT mcp.repair_json_report(repeat('{"a":', 100000)) ? 'value';
SELECT mcp.parse_llm_response(repeat('```json', 50000)) ? 'error';
SELECT mcp.validate_arguments('sql_query', '{"query": 1}');
SELECT mcp.call_tool('no_such_tool', '{}')->'isError';
