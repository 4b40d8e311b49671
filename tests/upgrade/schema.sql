-- Describes everything of extension pg_mcp that a schema difference can change, one fact per
-- line, sorted, with no OIDs: run in a database updated from an older version and in a fresh
-- install, the two outputs must be identical (tests/upgrade/run.sh diffs them).
-- Covered: the extension's members of every kind; relations (tables, views, sequences,
-- indexes) with kind, persistence, options, RLS, owner, grants, comment; columns in order with
-- type, NOT NULL, default, identity, generated, collation, storage, compression, grants,
-- comment; constraints; indexes; triggers; rules; policies; view definitions; sequences;
-- functions with their full definition (arguments, defaults, result, language, volatility,
-- strictness, security, parallel, cost, SET, body or C symbol), grants, owner, comment; types;
-- operators; the schema; pg_dump registration (pg_extension_config_dump); the built-in rows
-- the install script inserts (rows of config tables that the dump condition leaves out).
\set ON_ERROR_STOP on
\pset tuples_only on
\pset format unaligned
-- pg_get_*def qualify names by the search_path: the same one in both databases.
SET search_path = pg_catalog, pg_temp;

CREATE TEMP VIEW ext_namespaces AS
  SELECT n.oid, n.nspname FROM pg_namespace n
   WHERE n.nspname = 'mcp'
      OR n.oid IN (SELECT d.objid FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
                    WHERE e.extname = 'pg_mcp' AND d.classid = 'pg_namespace'::regclass AND d.deptype = 'e');

CREATE TEMP VIEW ext_facts AS
-- the extension itself and its pg_dump registration (order-independent)
SELECT format('extension: version %s, relocatable %s, schema %s, owner %s',
              e.extversion, e.extrelocatable, e.extnamespace::regnamespace, e.extowner::regrole)
  FROM pg_extension e WHERE e.extname = 'pg_mcp'
UNION ALL
SELECT format('pg_extension_config_dump: %s condition [%s]', c.cfg::regclass, c.cond)
  FROM pg_extension e, unnest(e.extconfig, e.extcondition) AS c(cfg, cond)
 WHERE e.extname = 'pg_mcp'
UNION ALL
-- every member object, whatever its kind
SELECT format('member: %s', pg_describe_object(d.classid, d.objid, d.objsubid))
  FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
 WHERE e.extname = 'pg_mcp' AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
UNION ALL
-- schemas
SELECT format('schema %s: owner %s, acl %s, comment %s', n.nspname, s.nspowner::regrole,
              coalesce(s.nspacl::text, '-'), coalesce(obj_description(n.oid, 'pg_namespace'), '-'))
  FROM ext_namespaces n JOIN pg_namespace s ON s.oid = n.oid
UNION ALL
-- relations
SELECT format('relation %s.%s: kind %s, persistence %s, options %s, rls %s/%s, replica identity %s, owner %s, acl %s, comment %s',
              n.nspname, c.relname, c.relkind, c.relpersistence, coalesce(c.reloptions::text, '-'),
              c.relrowsecurity, c.relforcerowsecurity, c.relreplident, c.relowner::regrole,
              coalesce(c.relacl::text, '-'), coalesce(obj_description(c.oid, 'pg_class'), '-'))
  FROM pg_class c JOIN ext_namespaces n ON n.oid = c.relnamespace
UNION ALL
-- columns, in order (position among the live columns: a dropped column leaves a gap in attnum)
SELECT format('column %s.%s #%s %s: %s%s%s%s%s%s, storage %s, compression [%s], options %s, acl %s, comment %s',
              n.nspname, c.relname, row_number() OVER (PARTITION BY c.oid ORDER BY a.attnum), a.attname,
              format_type(a.atttypid, a.atttypmod),
              CASE WHEN a.attnotnull THEN ' NOT NULL' END,
              ' DEFAULT ' || pg_get_expr(ad.adbin, ad.adrelid),
              CASE WHEN a.attidentity <> '' THEN ' IDENTITY ' || a.attidentity::text END,
              CASE WHEN a.attgenerated <> '' THEN ' GENERATED ' || a.attgenerated::text END,
              CASE WHEN a.attcollation <> 0 THEN ' COLLATE ' || a.attcollation::regcollation::text END,
              a.attstorage, a.attcompression,
              -- pg_attver=… is a per-build stamp this PostgreSQL puts into every column's options
              coalesce(nullif(array(SELECT o FROM unnest(a.attoptions) AS o WHERE o NOT LIKE 'pg\_attver=%')::text, '{}'), '-'),
              coalesce(a.attacl::text, '-'), coalesce(col_description(c.oid, a.attnum), '-'))
  FROM pg_class c JOIN ext_namespaces n ON n.oid = c.relnamespace
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
  LEFT JOIN pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
 WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'c')
UNION ALL
-- constraints (NOT NULL is a column fact in PostgreSQL 15)
SELECT format('constraint %s.%s %s: %s, deferrable %s/%s, validated %s, comment %s',
              n.nspname, coalesce(c.relname, t.typname), con.conname, pg_get_constraintdef(con.oid),
              con.condeferrable, con.condeferred, con.convalidated,
              coalesce(obj_description(con.oid, 'pg_constraint'), '-'))
  FROM pg_constraint con JOIN ext_namespaces n ON n.oid = con.connamespace
  LEFT JOIN pg_class c ON c.oid = con.conrelid
  LEFT JOIN pg_type t ON t.oid = con.contypid
UNION ALL
-- indexes (the definition names the index, its table, method, columns, predicate)
SELECT format('index %s, clustered %s, replident %s', pg_get_indexdef(i.indexrelid), i.indisclustered, i.indisreplident)
  FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN ext_namespaces n ON n.oid = c.relnamespace
UNION ALL
-- triggers (internal ones belong to foreign keys, covered by the constraints)
SELECT format('trigger %s, enabled %s, comment %s', pg_get_triggerdef(tg.oid), tg.tgenabled,
              coalesce(obj_description(tg.oid, 'pg_trigger'), '-'))
  FROM pg_trigger tg JOIN pg_class c ON c.oid = tg.tgrelid JOIN ext_namespaces n ON n.oid = c.relnamespace
 WHERE NOT tg.tgisinternal
UNION ALL
-- rules other than a view's own, and row-level security policies
SELECT format('rule %s', pg_get_ruledef(r.oid))
  FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class JOIN ext_namespaces n ON n.oid = c.relnamespace
 WHERE r.rulename <> '_RETURN'
UNION ALL
SELECT format('policy %s.%s %s: cmd %s, permissive %s, roles %s, using %s, check %s',
              n.nspname, c.relname, p.polname, p.polcmd, p.polpermissive, p.polroles::regrole[],
              coalesce(pg_get_expr(p.polqual, p.polrelid), '-'), coalesce(pg_get_expr(p.polwithcheck, p.polrelid), '-'))
  FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid JOIN ext_namespaces n ON n.oid = c.relnamespace
UNION ALL
-- view definitions
SELECT format('view %s.%s: %s', n.nspname, c.relname, pg_get_viewdef(c.oid))
  FROM pg_class c JOIN ext_namespaces n ON n.oid = c.relnamespace
 WHERE c.relkind IN ('v', 'm')
UNION ALL
-- sequences
SELECT format('sequence %s.%s: %s start %s increment %s min %s max %s cache %s cycle %s',
              n.nspname, c.relname, s.seqtypid::regtype, s.seqstart, s.seqincrement, s.seqmin,
              s.seqmax, s.seqcache, s.seqcycle)
  FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid JOIN ext_namespaces n ON n.oid = c.relnamespace
UNION ALL
-- functions: the full definition (pg_get_functiondef is not defined for aggregates)
SELECT format('function %s: kind %s, owner %s, acl %s, comment %s, definition %s',
              p.oid::regprocedure, p.prokind, p.proowner::regrole, coalesce(p.proacl::text, '-'),
              coalesce(obj_description(p.oid, 'pg_proc'), '-'),
              CASE WHEN p.prokind IN ('f', 'p') THEN pg_get_functiondef(p.oid)
                   ELSE pg_get_function_arguments(p.oid) || ' -> ' || pg_get_function_result(p.oid) END)
  FROM pg_proc p JOIN ext_namespaces n ON n.oid = p.pronamespace
UNION ALL
-- types other than the row types of relations and the array types that go with every type
SELECT format('type %s: kind %s, base %s, not null %s, default %s, labels %s, owner %s, acl %s, comment %s',
              t.oid::regtype, t.typtype,
              CASE WHEN t.typbasetype <> 0 THEN format_type(t.typbasetype, t.typtypmod) ELSE '-' END,
              t.typnotnull, coalesce(t.typdefault, '-'),
              coalesce((SELECT string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder)
                          FROM pg_enum e WHERE e.enumtypid = t.oid), '-'),
              t.typowner::regrole, coalesce(t.typacl::text, '-'), coalesce(obj_description(t.oid, 'pg_type'), '-'))
  FROM pg_type t JOIN ext_namespaces n ON n.oid = t.typnamespace
 WHERE (t.typrelid = 0 OR (SELECT c.relkind FROM pg_class c WHERE c.oid = t.typrelid) = 'c')
   AND NOT (t.typcategory = 'A' AND t.typelem <> 0)
UNION ALL
SELECT format('operator %s: %s, comment %s', o.oid::regoperator, o.oprcode::regproc,
              coalesce(obj_description(o.oid, 'pg_operator'), '-'))
  FROM pg_operator o JOIN ext_namespaces n ON n.oid = o.oprnamespace;

-- The rows the install script inserts: those of each registered table that its dump condition
-- leaves out (pg_dump leaves them out because CREATE EXTENSION makes them). Timestamps differ
-- by nature and are left out.
CREATE FUNCTION pg_temp.builtin_rows() RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
    cfg record;
BEGIN
    FOR cfg IN
        SELECT c.cfg::regclass AS tab, regexp_replace(c.cond, '^\s*WHERE\s+', '', 'i') AS cond,
               (SELECT coalesce(array_agg(a.attname::text), '{}') FROM pg_attribute a
                 WHERE a.attrelid = c.cfg AND a.attnum > 0 AND NOT a.attisdropped
                   AND a.atttypid IN ('timestamptz'::regtype, 'timestamp'::regtype)) AS stamps
          FROM pg_extension e, unnest(e.extconfig, e.extcondition) AS c(cfg, cond)
         WHERE e.extname = 'pg_mcp' AND c.cond <> ''
    LOOP
        RETURN QUERY EXECUTE format(
            'SELECT %L || (to_jsonb(t) - %L::text[])::text FROM %s AS t WHERE NOT coalesce((%s), false)',
            'built-in row of ' || cfg.tab::text || ': ', cfg.stamps, cfg.tab, cfg.cond);
    END LOOP;
END
$$;

SELECT replace(f.fact, E'\n', ' ') AS fact
  FROM (SELECT * FROM ext_facts UNION ALL SELECT * FROM pg_temp.builtin_rows()) AS f(fact)
 ORDER BY fact COLLATE "C";
