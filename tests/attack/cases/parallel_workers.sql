-- The tool sandbox and parallel workers. A parallel worker is another process: the leader's
-- guard does not exist there. Three ways in, each must end as a clean refusal or error of the
-- tool, with the backend alive and no crash-restart (the harness counts "terminated by signal"
-- in the server log):
--  1. a PARALLEL SAFE PL/pgSQL wrapper around a denied function, with a parallel plan forced
--     through set_config inside query_to_xml (planned inside the tool: never parallel there);
--  2. the same wrapper calling mcp.call_tool (a worker that ran it failed, and the leader
--     crashed with signal 11 while rolling back the tool's subtransaction);
--  3. a parallel plan built outside the tool and cached (a PL/pgSQL function's generic plan),
--     executed inside the tool: its workers inherit the guard (mcp.sandbox_guard), and a
--     worker's plain error (division by zero) ends as the tool's error.
SELECT CASE WHEN current_setting('server_version_num')::int >= 160000
            THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END AS fpm \gset
SET ROLE attacker;
CREATE FUNCTION pg_temp.w_lock(i int) RETURNS bool LANGUAGE plpgsql PARALLEL SAFE AS $$
BEGIN PERFORM pg_try_advisory_lock(4700 + i); RETURN true; END $$;
CREATE FUNCTION pg_temp.w_nest(i int) RETURNS bool LANGUAGE plpgsql PARALLEL SAFE AS $$
BEGIN PERFORM mcp.call_tool('sql_query', '{"query": "select 1"}'); RETURN true; END $$;
CREATE FUNCTION pg_temp.w_cancel(i int) RETURNS bool LANGUAGE plpgsql PARALLEL SAFE AS $$
BEGIN PERFORM pg_cancel_backend(pid) FROM pg_stat_activity WHERE pid = pg_backend_pid(); RETURN true; END $$;
-- 1 and 2: forced parallel inside the tool
CREATE TEMP TABLE parallel_results AS
SELECT f AS wrapper, mcp.call_tool('sql_query', jsonb_build_object('query', format(
  'select query_to_xml(%L, true, false, %L), query_to_xml(%L, true, false, %L)',
  format('select set_config(%L, %L, true), set_config(%L, %L, true), set_config(%L, %L, true)',
         'parallel_setup_cost', '0', 'parallel_tuple_cost', '0', :'fpm', 'on'), '',
  format('select count(*) from generate_series(1, 3) g where pg_temp.%I(g)', f), '')
  ))->'content'->0->>'text' AS result
  FROM unnest(ARRAY['w_lock', 'w_nest', 'w_cancel']) AS f;
SELECT wrapper, left(result, 80) AS result FROM parallel_results;
SELECT count(*) AS advisory_locks_left FROM pg_locks WHERE locktype = 'advisory';

-- 3: a parallel plan cached before the tool ran
CREATE FUNCTION pg_temp.boom(i int) RETURNS int LANGUAGE plpgsql PARALLEL SAFE AS $$
BEGIN
  IF current_setting('attack.mode', true) = 'lock' THEN RETURN pg_try_advisory_lock(4800 + i)::int; END IF;
  IF current_setting('attack.mode', true) = 'div' THEN RETURN 1 / (i - i); END IF;
  RETURN i;
END $$;
CREATE FUNCTION pg_temp.cached() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN SELECT sum(pg_temp.boom(g)) INTO n FROM generate_series(1, 3) g; RETURN n; END $$;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET :"fpm" = on;
SELECT pg_temp.cached() AS outside_the_tool;
INSERT INTO parallel_results
SELECT m AS mode, mcp.call_tool('sql_query', jsonb_build_object('query', format(
  'select set_config(%L, %L, true), pg_temp.cached()', 'attack.mode', m)))->'content'->0->>'text' AS result
  FROM unnest(ARRAY['lock', 'div']) AS m;
RESET :"fpm";
SELECT wrapper AS mode, left(result, 80) AS result FROM parallel_results WHERE wrapper IN ('lock', 'div');
SELECT count(*) AS advisory_locks_left FROM pg_locks WHERE locktype = 'advisory';
SELECT count(*) AS refused FROM parallel_results WHERE result LIKE '%is not allowed in this tool%' \gset
\if `test :refused -eq 4 && echo 1 || echo 0`
\else
\echo ATTACK-CASE-BREACH only :refused of 4 denied calls through parallel plans were refused
\endif
SELECT count(*) = 1 AS div_failed FROM parallel_results WHERE wrapper = 'div' AND result LIKE '%division by zero%' \gset
\if :div_failed
\else
\echo ATTACK-CASE-BREACH a parallel worker's error did not end as the tool's error
\endif
