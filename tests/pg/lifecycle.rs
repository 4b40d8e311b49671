//! Function signatures in the registry (text, not regprocedure: pg_upgrade), resolved at every
//! call through a cache that invalidation empties, and what a restore needs.

#[pgrx::pg_schema]
mod tests {
    use crate::tests::*;

    /// Columns of the tables `tables` (a query returning regclass) whose type is one of the reg*
    /// types pg_upgrade refuses, directly, as an array element, a domain or a composite (the same
    /// walk as pg_upgrade's check).
    fn reg_columns(tables: &str) -> Option<String> {
        Spi::get_one::<String>(&format!(
        "WITH RECURSIVE refused(oid) AS (
             SELECT t.oid FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
              WHERE n.nspname = 'pg_catalog'
                AND t.typname IN ('regproc', 'regprocedure', 'regoper', 'regoperator', 'regconfig',
                                  'regdictionary', 'regnamespace', 'regcollation')
             UNION
             SELECT t.oid FROM pg_catalog.pg_type t, refused r
              WHERE t.typelem = r.oid AND t.typcategory = 'A'
                 OR t.typbasetype = r.oid AND t.typtype = 'd'
                 OR t.typrelid IN (SELECT a.attrelid FROM pg_catalog.pg_attribute a WHERE a.atttypid = r.oid)
                    AND t.typtype = 'c')
         SELECT string_agg(a.attrelid::regclass || '.' || a.attname, ', ' ORDER BY a.attrelid, a.attnum)
           FROM pg_catalog.pg_attribute a
          WHERE a.attrelid IN ({tables}) AND a.attnum > 0 AND NOT a.attisdropped
            AND a.atttypid IN (SELECT oid FROM refused)"
    ))
    .unwrap()
    }

    #[pg_test]
    fn no_extension_table_has_a_column_pg_upgrade_refuses() {
        // Every table of the extension (members), whatever schema it is in.
        let members = "SELECT d.objid FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid
                    WHERE e.extname = 'pg_mcp' AND d.classid = 'pg_catalog.pg_class'::regclass AND d.deptype = 'e'";
        let n = Spi::get_one::<i64>(&format!("SELECT count(*) FROM ({members}) m"))
            .unwrap()
            .unwrap();
        assert!(n >= 11, "the extension's tables were not found ({n})");
        assert_eq!(reg_columns(members), None);
        // The query finds such columns where they are (else it would prove nothing).
        run("CREATE DOMAIN public.lc_cfg AS regconfig");
        run("CREATE TYPE public.lc_pair AS (f regoperator, n int)");
        run("CREATE TABLE public.lc_probe (a regprocedure[], b public.lc_cfg, c public.lc_pair, d text)");
        assert_eq!(
            reg_columns("'public.lc_probe'::regclass").as_deref(),
            Some("lc_probe.a, lc_probe.b, lc_probe.c")
        );
    }

    #[pg_test]
    fn function_signatures_are_stored_schema_qualified() {
        run(r#"CREATE SCHEMA "Lc Schema""#);
        run(r#"CREATE TYPE "Lc Schema".mood AS ENUM ('ok', 'bad')"#);
        run(
            r#"CREATE FUNCTION "Lc Schema"."Rate"(m "Lc Schema".mood, n int DEFAULT 1, tags text[] DEFAULT NULL)
           RETURNS text LANGUAGE sql AS $$ SELECT m::text || n $$"#,
        );
        run("CREATE FUNCTION public.lc_text(id integer) RETURNS text LANGUAGE sql AS $$ SELECT id::text $$");
        run(r#"SET LOCAL search_path = "Lc Schema", public"#);
        run(
            r#"INSERT INTO mcp.tool (name, description, parameters, function) VALUES ('rate', 'r',
           '{"type": "object", "properties": {"m": {"type": "string"}, "n": {"type": "integer"},
             "tags": {"type": "array"}}, "required": ["m"]}',
           '"Rate"(mood, int4, text[])')"#,
        );
        run(
            "INSERT INTO mcp.resource (uri, name, function) VALUES ('lc://x', 'x', 'lc_text(int)')",
        );
        run("SET LOCAL search_path = pg_catalog");
        let (tool, resource) = Spi::get_two::<String, String>(
            "SELECT (SELECT function FROM mcp.tool WHERE name = 'rate'),
                (SELECT function FROM mcp.resource WHERE uri = 'lc://x')",
        )
        .unwrap();
        // written without a schema, stored so that any search_path finds the same function
        assert_eq!(
            tool.as_deref(),
            Some(r#""Lc Schema"."Rate"("Lc Schema".mood,integer,text[])"#)
        );
        assert_eq!(resource.as_deref(), Some("public.lc_text(integer)"));
        let same = Spi::get_one::<bool>(
        r#"SELECT pg_catalog.to_regprocedure(function) = '"Lc Schema"."Rate"("Lc Schema".mood, integer, text[])'::regprocedure
             FROM mcp.tool WHERE name = 'rate'"#,
    )
    .unwrap();
        assert_eq!(same, Some(true));
        run("SET LOCAL search_path = public");
        run("INSERT INTO mcp.interface (name) VALUES ('chatbot')");
        run("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'rate')");
        let r = q(r#"SELECT mcp.call_tool('rate', '{"m": "ok", "n": 7}')"#);
        assert_eq!(r["isError"], false, "{r}");
        assert_eq!(r["content"][0]["text"], "ok7");
    }

    #[pg_test]
    fn a_missing_function_is_refused_naming_it() {
        run("CREATE FUNCTION public.lc_fn(x text) RETURNS text LANGUAGE sql AS $$ SELECT x $$");
        for (signature, shown) in [
            ("public.nope(text)", "public.nope(text)"),
            ("lc_fn(integer)", "lc_fn(integer)"),
            ("public.lc_fn(no_such_type)", "public.lc_fn(no_such_type)"),
            ("no_such_schema.lc_fn(text)", "no_such_schema.lc_fn(text)"),
            ("not a signature", "not a signature"),
        ] {
            let e = err_of(&format!(
                r#"INSERT INTO mcp.tool (name, description, parameters, function)
               VALUES ('nofn', 'x', '{{"type": "object"}}', '{signature}')"#
            ));
            assert_eq!(
                e,
                format!("23514: tool \"nofn\" refused: function {shown} does not exist"),
                "{signature}"
            );
            let e = err_of(&format!(
            "INSERT INTO mcp.resource (uri, name, function) VALUES ('lc://r', 'r', '{signature}')"
        ));
            assert_eq!(
                e,
                format!("23514: resource \"lc://r\" refused: function {shown} does not exist"),
                "{signature}"
            );
        }
        // an update is checked like an insert
        run(
            r#"INSERT INTO mcp.tool (name, description, parameters, function)
           VALUES ('lcTool', 'x', '{"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}', 'public.lc_fn(text)')"#,
        );
        let e = err_of("UPDATE mcp.tool SET function = 'public.lc_fn(int)' WHERE name = 'lcTool'");
        assert!(e.starts_with("23514: tool \"lcTool\" refused"), "{e}");
    }

    #[pg_test]
    fn resolve_function_never_raises() {
        // A row may hold text that names nothing (a restore, 0.1.0's dropped OIDs): resolving it
        // must not make listing or calling the other tools fail.
        for s in [
            "not a signature",
            "f((",
            "a.b.c.d(text)",
            "public.f(no_such_type)",
            "12345",
            "-",
            "0",
            "",
        ] {
            let r = Spi::get_one_with_args::<pg_sys::Oid>(
                "SELECT mcp.resolve_function($1)",
                &[s.into()],
            )
            .unwrap();
            assert_eq!(r, None, "{s}");
        }
        // the OID of a function that exists, as digits: still no signature (to_regprocedure of
        // 16 and later would take it as one)
        let r = Spi::get_one::<pg_sys::Oid>(
            "SELECT mcp.resolve_function('mcp.ask_user(text[],text)'::regprocedure::oid::text)",
        )
        .unwrap();
        assert_eq!(r, None, "an OID as digits");
        let r = Spi::get_one::<bool>(
        "SELECT mcp.resolve_function('mcp.ask_user(text[], text)') = 'mcp.ask_user(text[],text)'::regprocedure",
    )
    .unwrap();
        assert_eq!(r, Some(true));
    }

    #[pg_test]
    fn a_restore_takes_tool_rows_as_dumped() {
        // pg_dump's output restores with check_function_bodies = off: a row whose function is gone
        // (or whose report body does not analyze yet) is taken as it was, so that one row cannot
        // make the whole COPY of mcp.tool fail; it shows up in mcp.unresolved_functions.
        run("SET LOCAL check_function_bodies = off");
        run(
            r#"INSERT INTO mcp.tool (name, description, parameters, function, updated_at)
           VALUES ('gone', 'x', '{"type": "object"}', 'public.gone(text)', '2020-01-01')"#,
        );
        run(
            r#"INSERT INTO mcp.tool (name, description, parameters, kind, body)
           VALUES ('laterTable', 'x', '{"type": "object"}', 'report', 'SELECT * FROM not_restored_yet')"#,
        );
        run("INSERT INTO mcp.resource (uri, name, function) VALUES ('lc://gone', 'g', 'dropped function (OID 1)')");
        run("RESET check_function_bodies");
        let (updated, unresolved) = Spi::get_two::<String, String>(
        "SELECT (SELECT updated_at::date::text FROM mcp.tool WHERE name = 'gone'),
                (SELECT string_agg(registry || ' ' || name, ', ' ORDER BY name) FROM mcp.unresolved_functions)",
    )
    .unwrap();
        assert_eq!(
            updated.as_deref(),
            Some("2020-01-01"),
            "a restored row keeps its timestamps"
        );
        assert_eq!(unresolved.as_deref(), Some("tool gone, resource lc://gone"));
        // outside a restore the same rows are refused
        let e = err_of(
            r#"INSERT INTO mcp.tool (name, description, parameters, function)
           VALUES ('gone2', 'x', '{"type": "object"}', 'public.gone(text)')"#,
        );
        assert!(e.starts_with("23514"), "{e}");
        let e = err_of(
            r#"INSERT INTO mcp.tool (name, description, parameters, kind, body)
           VALUES ('laterTable2', 'x', '{"type": "object"}', 'report', 'SELECT * FROM not_restored_yet')"#,
        );
        assert!(e.starts_with("23514"), "{e}");
    }

    #[pg_test]
    fn the_signature_cache_stays_bounded() {
        // Any role can call mcp.resolve_function with text of its choosing: every distinct text
        // is a cache entry, so the cache must not grow without end.
        run("SELECT mcp.resolve_function('public.lc_probe_' || g || '(text)') FROM generate_series(1, 10500) g");
        let n = crate::registry::resolved_cache_len();
        assert!(n > 0 && n <= 10_000, "{n} entries");
    }

    #[pg_test]
    fn a_restore_keeps_a_dumped_active_system_prompt() {
        // pg_dump leaves out the built-in system prompt version 1 (CREATE EXTENSION makes it): a
        // dumped active version 2 must replace it as the active one, not fail the COPY.
        run("SET LOCAL check_function_bodies = off");
        run(
            "INSERT INTO mcp.prompt (name, version, template) VALUES ('system', 2, 'site version')",
        );
        run("RESET check_function_bodies");
        let active = Spi::get_one::<String>(
        "SELECT string_agg(version::text, ',') FROM mcp.prompt WHERE name = 'system' AND active",
    )
    .unwrap();
        assert_eq!(active.as_deref(), Some("2"));
        // outside a restore, a second active version is still refused
        let e =
            err_of("INSERT INTO mcp.prompt (name, version, template) VALUES ('system', 3, 'x')");
        assert!(e.starts_with("23505"), "{e}");
    }

    #[pg_test]
    fn call_tool_names_a_renamed_or_dropped_function() {
        // The stored signature is resolved at every call through the per-backend cache, which
        // syscache invalidation empties: a rename, a schema move, a drop and each fix are seen at
        // once, in the same transaction and backend.
        demo_registry();
        let call = || {
            q(
                r#"SELECT mcp.call_tool('getTarifVertrag', '{"tarifgebiet": "Bayern", "fachbereich": "Metall"}')"#,
            )
        };
        let listed = || {
            q("SELECT mcp.list_tools()")
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["function"]["name"] == "getTarifVertrag")
        };
        let r = call();
        assert_eq!(r["isError"], false, "{r}");
        run("ALTER FUNCTION public.get_tarif(text, text, int) RENAME TO get_tarif_renamed");
        let r = call();
        assert_eq!(r["isError"], true, "after rename: {r}");
        let text = r["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("its function public.get_tarif(text,text,integer) does not exist"),
            "{text}"
        );
        assert!(!listed(), "a tool whose function is gone is not offered");
        let (state, unresolved) = Spi::get_two::<String, String>(
        "SELECT (SELECT error_sqlstate FROM mcp.tool_call WHERE call_id = currval('mcp.tool_call_call_id_seq'::regclass)),
                (SELECT string_agg(registry || ' ' || name || ' ' || function, ', ') FROM mcp.unresolved_functions)",
    )
    .unwrap();
        assert_eq!(state.as_deref(), Some("42883"));
        assert_eq!(
            unresolved.as_deref(),
            Some("tool getTarifVertrag public.get_tarif(text,text,integer)")
        );
        run("ALTER FUNCTION public.get_tarif_renamed(text, text, int) RENAME TO get_tarif");
        assert_eq!(call()["isError"], false, "renamed back");
        assert!(listed());
        run("CREATE SCHEMA tarif_moved");
        run("ALTER FUNCTION public.get_tarif(text, text, int) SET SCHEMA tarif_moved");
        assert_eq!(call()["isError"], true, "after SET SCHEMA");
        run("UPDATE mcp.tool SET function = 'tarif_moved.get_tarif(text, text, int)' WHERE name = 'getTarifVertrag'");
        assert_eq!(
            call()["isError"],
            false,
            "after the registry follows the move"
        );
        run("DROP FUNCTION tarif_moved.get_tarif(text, text, int)");
        let r = call();
        assert!(
            r["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("tarif_moved.get_tarif(text,text,integer) does not exist"),
            "after drop: {r}"
        );
    }
}
