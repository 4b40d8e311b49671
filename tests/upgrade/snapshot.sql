-- The contents of every table of extension pg_mcp, one line per (table, primary key, column),
-- plus a count of the rows pg_dump keeps per table, sorted. A function column (regprocedure in 0.1.0, text since
-- 0.2.0) is shown as the function it names now ("unresolved" when none), so the lines do not
-- depend on the version. tests/upgrade/run.sh compares: after ALTER EXTENSION UPDATE every line
-- of before must still be there (new columns add lines); after a dump and restore the lines must
-- be identical.
\set ON_ERROR_STOP on
\pset tuples_only on
\pset format unaligned
SET search_path = pg_catalog, pg_temp;
SET client_min_messages = warning;

CREATE FUNCTION pg_temp.named_function(signature text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    fn oid;
BEGIN
    BEGIN
        fn := signature::regprocedure;
    EXCEPTION WHEN OTHERS THEN
        RETURN 'unresolved';
    END;
    RETURN coalesce((SELECT p.oid::regprocedure::text FROM pg_proc p WHERE p.oid = fn), 'unresolved');
END
$$;

-- Rows the install script makes (those a registered table's dump condition leaves out) get new
-- timestamps in every install: their timestamp columns are left out.
CREATE FUNCTION pg_temp.table_lines(tab regclass) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
    pk text[] := ARRAY(SELECT a.attname::text FROM pg_index i
                         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
                        WHERE i.indrelid = tab AND i.indisprimary ORDER BY a.attnum);
    stamps text[] := ARRAY(SELECT a.attname::text FROM pg_attribute a
                            WHERE a.attrelid = tab AND a.attnum > 0 AND NOT a.attisdropped
                              AND a.atttypid IN ('timestamptz'::regtype, 'timestamp'::regtype));
    dumped text := coalesce((SELECT nullif(regexp_replace(c.cond, '^\s*WHERE\s+', '', 'i'), '')
                               FROM pg_extension x, unnest(x.extconfig, x.extcondition) AS c(cfg, cond)
                              WHERE x.extname = 'pg_mcp' AND c.cfg = tab), 'true');
BEGIN
    -- rows counted: those pg_dump keeps (a new version may add built-in rows, like 0.2.0's
    -- graph tools and context_retrieve; the built-in rows themselves are still listed
    -- line by line below)
    RETURN QUERY EXECUTE format(
        'SELECT %L || '' rows = '' || count(*) FROM %s WHERE coalesce((%s), false)', tab::text, tab, dumped);
    RETURN QUERY EXECUTE format(
        $q$SELECT %L || ' ' || (SELECT jsonb_object_agg(k, s.j -> k) FROM unnest(%L::text[]) AS k)::text
                  || ' ' || e.key || ' = '
                  || CASE WHEN e.key = 'function' AND e.value <> 'null'
                          THEN pg_temp.named_function(e.value #>> '{}') ELSE e.value::text END
             FROM (SELECT to_jsonb(t) AS j, coalesce((%s), false) AS dumped FROM %s AS t) AS s,
                  jsonb_each(s.j) AS e
            WHERE s.dumped OR e.key <> ALL (%L::text[])$q$,
        tab::text, pk, dumped, tab, stamps);
END
$$;

SELECT line
  FROM pg_depend d
  JOIN pg_extension x ON x.oid = d.refobjid AND x.extname = 'pg_mcp'
  JOIN pg_class c ON c.oid = d.objid AND c.relkind = 'r'
  CROSS JOIN LATERAL pg_temp.table_lines(c.oid::regclass) AS line
 WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
 ORDER BY line COLLATE "C";
