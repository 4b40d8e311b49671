-- jsonb values nested beyond pg_mcp's limit (128) or holding numbers beyond
-- 64-bit floating point, in every jsonb parameter a role can pass. Each must be a clean ERROR
-- (54000 / 22003), never a panic with a raw serde message or a crash.
SET ROLE attacker;
\set VERBOSITY default
SELECT mcp.validate_arguments('sql_query', (repeat('[', 129) || repeat(']', 129))::jsonb);
SELECT mcp.validate_arguments('sql_query', (repeat('[', 3000) || repeat(']', 3000))::jsonb);
SELECT mcp.call_tool('sql_query', jsonb_build_object('query', (repeat('{"a":', 3000) || '1' || repeat('}', 3000))::jsonb));
SELECT mcp.call_tool('no_such_tool', (repeat('[', 3000) || repeat(']', 3000))::jsonb);
SELECT mcp.chat('hi', 'chatbot', NULL, jsonb_build_object('max_iterations', (repeat('[', 3000) || repeat(']', 3000))::jsonb));
SELECT mcp.validate_arguments('sql_query', '{"max_rows": 1e400}');
SELECT mcp.validate_arguments('sql_query', '{"max_rows": -1e400}');
SELECT mcp.call_tool('sql_query', '{"query": "select 1", "max_rows": 1e-400}');
SELECT mcp.chat('hi', 'chatbot', NULL, '{"max_total_tokens": 1e400}');
-- as many values as jsonb holds, and wide objects: bounded work
SELECT mcp.validate_arguments('sql_query', jsonb_build_object('query', 'select 1', 'x', (SELECT jsonb_agg(i) FROM generate_series(1, 2000000) i)));
SELECT mcp.call_tool('sql_query', (SELECT jsonb_object_agg('k' || i, i) FROM generate_series(1, 300000) i)) -> 'isError';
