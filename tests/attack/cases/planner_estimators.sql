-- Functions the planner calls without the executor hook. To estimate a clause's selectivity,
-- PostgreSQL calls the operator's function on the column's most common values and histogram
-- bounds (eqsel, scalarltsel, eqjoinsel, extended statistics), and it may use the operator's
-- commutator or negator instead. Any role can create such operators in pg_temp over a denied
-- built-in. Planned inside a tool (directly, under EXPLAIN, inside query_to_xml, through an
-- inlined SQL function, or in a subquery the outer level estimates), each must be refused:
-- no advisory lock left, no backend terminated (the harness checks the same backend survives).
SET ROLE attacker;
CREATE TABLE pg_temp.t AS
  SELECT (g % 10)::int AS a, (g % 10)::int AS b, pg_backend_pid()::int AS p, (g % 10)::int8 AS z
    FROM generate_series(1, 5000) g;
CREATE STATISTICS pg_temp.t_ab (mcv) ON a, b FROM pg_temp.t;
ANALYZE pg_temp.t;
CREATE OPERATOR pg_temp.=== (FUNCTION = pg_try_advisory_lock, LEFTARG = int, RIGHTARG = int,
                             RESTRICT = eqsel, JOIN = eqjoinsel);
CREATE OPERATOR pg_temp.<<< (FUNCTION = pg_try_advisory_lock, LEFTARG = int, RIGHTARG = int,
                             RESTRICT = scalarltsel);
-- a harmless operator whose commutator / negator is the dangerous one
CREATE FUNCTION pg_temp.harmless(int, int) RETURNS bool LANGUAGE plpgsql IMMUTABLE AS 'BEGIN RETURN $1 = $2; END';
CREATE OPERATOR pg_temp.~~~ (FUNCTION = pg_temp.harmless, LEFTARG = int, RIGHTARG = int,
                             RESTRICT = eqsel, COMMUTATOR = OPERATOR(pg_temp.===));
CREATE OPERATOR pg_temp.=!= (FUNCTION = pg_temp.harmless, LEFTARG = int, RIGHTARG = int,
                             RESTRICT = eqsel, NEGATOR = OPERATOR(pg_temp.===));
-- ends backends: pg_terminate_backend(pid int, timeout int8) over a column of our own pid
CREATE OPERATOR pg_temp.=#= (FUNCTION = pg_terminate_backend, LEFTARG = int, RIGHTARG = int8,
                             RESTRICT = scalarltsel);
CREATE FUNCTION pg_temp.inl(x int) RETURNS bool LANGUAGE sql AS 'SELECT x OPERATOR(pg_temp.===) 5';
CREATE TEMP TABLE planner_results AS
SELECT q AS query, mcp.call_tool('sql_query', jsonb_build_object('query', q))->'content'->0->>'text' AS result
  FROM unnest(ARRAY[
    'explain select * from pg_temp.t where a OPERATOR(pg_temp.===) 5',
    'select count(*) from pg_temp.t where a OPERATOR(pg_temp.<<<) 5',
    $q$select query_to_xml('select * from pg_temp.t where a OPERATOR(pg_temp.===) 5 limit 0', true, false, '')$q$,
    'explain select * from pg_temp.t where 5 OPERATOR(pg_temp.~~~) a',
    'explain select * from pg_temp.t where not (a OPERATOR(pg_temp.=!=) 5)',
    'explain select * from pg_temp.t t1 join pg_temp.t t2 on t1.a OPERATOR(pg_temp.===) t2.b',
    'explain select * from pg_temp.t where a OPERATOR(pg_temp.===) 1 and b = 1',
    'explain select * from pg_temp.t where pg_temp.inl(a)',
    'explain select * from (select a from pg_temp.t offset 0) s where s.a OPERATOR(pg_temp.===) 5',
    'explain select * from pg_temp.t where p OPERATOR(pg_temp.=#=) 0::int8'
  ]) AS q;
SELECT query, left(result, 80) AS result FROM planner_results;
SELECT count(*) AS advisory_locks_left FROM pg_locks WHERE locktype = 'advisory';
SELECT count(*) = 0 AS no_locks FROM pg_locks WHERE locktype = 'advisory' \gset
\if :no_locks
\else
\echo ATTACK-CASE-BREACH the planner ran an operator function over a denied built-in (advisory locks left)
\endif
SELECT count(*) AS refused FROM planner_results WHERE result LIKE '%is not allowed in this tool%' \gset
\if `test :refused -eq 10 && echo 1 || echo 0`
\else
\echo ATTACK-CASE-BREACH only :refused of 10 planner attacks were refused
\endif
-- outside a tool the same operators plan as PostgreSQL decides (the sandbox only guards tools)
SELECT pg_advisory_unlock_all();
