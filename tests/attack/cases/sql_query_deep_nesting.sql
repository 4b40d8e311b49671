-- Issue: deep parse trees aborted the backend with "thread caused non-unwinding panic".
SET ROLE attacker;
SELECT mcp.call_tool('sql_query', jsonb_build_object('query',
         repeat('select (', 600) || '1' || repeat(')', 600)))->'isError';
SELECT mcp.call_tool('sql_query', jsonb_build_object('query',
         'select ' || repeat('ARRAY[', 3000) || '1' || repeat(']', 3000)))->'isError';
SELECT mcp.call_tool('sql_query', jsonb_build_object('query',
         'select ' || repeat('NOT ', 7000) || 'true'))->'isError';
