-- Wide results: 40 values of 50 MB (2.57 GB RSS before the cursor/slice fix; about what the
-- direct query needs now), and a value too large for the result budget.
SET ROLE attacker;
SELECT length(mcp.call_tool('sql_query', '{"query": "select repeat(''x'', 50000000) from generate_series(1, 40)"}')::text) < 100000 AS small;
SELECT mcp.call_tool('sql_query', '{"query": "select to_jsonb(repeat(''y'', 50000000)) from generate_series(1, 3)"}')->'content'->0->>'text' LIKE '%not shown%' AS placeholder;
SELECT length(mcp.call_tool('sql_query', jsonb_build_object('query',
         'select ' || string_agg(format('repeat(''z'', 500) as c%s', g), ', ') || ' from generate_series(1, 5000)', 'max_rows', 5000))::text) < 3000000 AS bounded
  FROM generate_series(1, 1500) g;
