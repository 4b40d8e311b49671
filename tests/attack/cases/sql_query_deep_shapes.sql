-- Every recursion shape of a query tree, each as deep as sql_query's 32,000-character limit
-- allows: the result is a tool error (stack depth, or the parser's "memory exhausted") or a
-- result, never a crash. Also through the report-body check at registration.
SET ROLE attacker;
CREATE TEMP TABLE deep_shapes (name text, query text);
INSERT INTO deep_shapes VALUES
  ('subquery',   'select ' || repeat('(select ', 3500) || '1' || repeat(')', 3500)),
  ('array',      'select ' || repeat('ARRAY[', 4500) || '1' || repeat(']', 4500)),
  ('not',        'select ' || repeat('NOT ', 7900) || 'true'),
  ('case',       'select ' || repeat('case when true then ', 1300) || '1' || repeat(' end', 1300)),
  ('call',       'select ' || repeat('abs(', 6300) || '1' || repeat(')', 6300)),
  ('coalesce',   'select ' || repeat('coalesce(', 3100) || '1' || repeat(')', 3100)),
  ('from',       'select * from ' || repeat('(select * from ', 1700) || '(select 1 as x)' || repeat(' s)', 1700)),
  ('union',      'select 1' || repeat(' union all select 1', 1650)),
  ('union_paren','select 1 union ' || repeat('(select 1 union ', 1800) || 'select 1' || repeat(')', 1800)),
  ('bool',       'select ' || repeat('(true and ', 2900) || 'true' || repeat(')', 2900)),
  ('plus_chain', 'select 1' || repeat('+1', 15900)),
  ('concat',     'select ''a''' || repeat('||''a''', 6300)),
  ('minus',      'select ' || repeat('- ', 15900) || '1'),
  ('row',        'select ' || repeat('row(', 6300) || '1' || repeat(')', 6300)),
  ('jsonb',      'select ''' || repeat('[', 15900) || '1' || repeat(']', 15900) || '''::jsonb'),
  ('jsonpath',   'select jsonb_path_query(''1'', ''' || repeat('(', 15000) || '$' || repeat(')', 15000) || ''')'),
  ('cte',        repeat('with a as (', 1100) || 'select 1' || repeat(') select * from a', 1100)),
  ('in_list',    'select 1 in (' || repeat('1,', 15000) || '1)'),
  ('regex',      'select ''a'' ~ ''' || repeat('(', 10000) || 'a' || repeat(')', 10000) || ''''),
  ('xml',        'select ''' || repeat('<a>', 4400) || repeat('</a>', 4400) || '''::xml');
SELECT name, length(query) <= 32000 AS fits,
       mcp.call_tool('sql_query', jsonb_build_object('query', query))->'isError' AS is_error
  FROM deep_shapes ORDER BY name;
-- the same texts through the report-body check (mcp.check_tool_definition, also run by the
-- mcp.tool trigger): each ends in a clean ERROR, caught here so that every shape runs
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT * FROM deep_shapes ORDER BY name LOOP
    BEGIN
      PERFORM mcp.check_tool_definition('deep_' || r.name, 'report', '{"type": "object", "properties": {}}', NULL, r.query);
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE '% → %', r.name, SQLSTATE;
    END;
  END LOOP;
END $$;
RESET ROLE;
INSERT INTO mcp.tool (name, description, parameters, kind, body)
  SELECT 'deep_report', 'x', '{"type": "object", "properties": {}}', 'report', query FROM deep_shapes WHERE name = 'subquery';
