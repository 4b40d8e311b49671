-- Denied functions reached through dynamic SQL and other indirections: without the executor
-- hook these take session locks, signal (or terminate) the attacker's own backend, or nest
-- tool calls. Each must end as a tool refusal and leave the session alive and unlocked.
SET ROLE attacker;
SELECT mcp.call_tool('sql_query', jsonb_build_object('query', q))->'content'->0->>'text' AS refusal
  FROM unnest(ARRAY[
    'select query_to_xml(''select pg_terminate_backend(pg_backend_pid())'', true, false, '''')',
    'select query_to_xml(''select pg_cancel_backend(pg_backend_pid())'', true, false, '''')',
    'select query_to_xml(''select pg_advisory_lock(4242)'', true, false, '''')',
    'select query_to_xml_and_xmlschema(''select pg_advisory_lock(4243)'', true, false, '''')',
    'select * from ts_stat(''select to_tsvector(pg_advisory_lock(4244)::text)'')',
    'select ts_rewrite(''a''::tsquery, ''select ''''a''''::tsquery, (''''b'''' || pg_advisory_lock(4245)::text)::tsquery'')',
    'select query_to_xml(''select mcp.call_tool(''''sql_query'''', ''''{"query": "select 1"}'''')'', true, false, '''')',
    'select query_to_xml(''select mcp.chat(''''hi'''')'', true, false, '''')',
    'select query_to_xml(''select lo_from_bytea(0, ''''x'''')'', true, false, '''')',
    'select query_to_xml(''select set_config(''''role'''', ''''none'''', false)'', true, false, '''')'
  ]) AS q;
SELECT count(*) AS advisory_locks_left FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid();
