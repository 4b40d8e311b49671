-- Every SQL function of pg_mcp called with NULL arguments: a function that is STRICT by design
-- (repair_json, repair_json_report, parse_llm_response) returns NULL; every other one either
-- treats NULL as documented (arguments/options NULL = none, session NULL = new, key NULL =
-- remove) or raises 22004 naming the parameter. The functions come from pg_proc, so a function
-- added later shows up here with its outcome.
\set VERBOSITY terse
BEGIN;
-- One call of fn: the argument at null_at is NULL (0 = all), the others a typed sample value.
CREATE FUNCTION pg_temp.call_with_null(fn oid, null_at int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  p pg_catalog.pg_proc;
  args text[] := '{}';
  t oid;
  i int := 0;
  result text;
BEGIN
  SELECT * INTO p FROM pg_catalog.pg_proc WHERE oid = fn;
  FOREACH t IN ARRAY p.proargtypes::oid[] LOOP
    i := i + 1;
    args := args || CASE
      WHEN null_at = 0 OR i = null_at THEN 'NULL::' || format_type(t, NULL)
      ELSE quote_literal(CASE t WHEN 'jsonb'::regtype THEN '{}'
                                WHEN 'uuid'::regtype THEN '00000000-0000-0000-0000-000000000000'
                                WHEN 'oid'::regtype THEN '0'
                                WHEN 'text[]'::regtype THEN '{x}'
                                ELSE 'x' END) || '::' || format_type(t, NULL) END;
  END LOOP;
  EXECUTE format('SELECT (mcp.%I(%s))::text', p.proname, array_to_string(args, ', ')) INTO result;
  RETURN coalesce(result, 'NULL');
EXCEPTION WHEN OTHERS THEN
  RETURN 'ERROR ' || SQLSTATE || ': ' || SQLERRM;
END $$;
SELECT p.proname AS function, coalesce(p.proargnames[n], 'all') AS null_argument,
       pg_temp.call_with_null(p.oid, n) AS outcome
  FROM pg_catalog.pg_proc p
  CROSS JOIN LATERAL generate_series(CASE WHEN p.pronargs > 1 THEN 0 ELSE 1 END, p.pronargs) AS n
 WHERE p.pronamespace = 'mcp'::regnamespace AND p.prorettype <> 'trigger'::regtype
 ORDER BY p.oid::regprocedure::text, n;
ROLLBACK;
