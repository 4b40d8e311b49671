//! The built-in read-only SQL tool, report tools, schema_information, function tool limits and
//! the tool sandbox.
//!
//! The attack corpus: every case asserts the refusal (or the harmless outcome) AND that no data
//! changed. Queries run as the non-superuser role mcp_analyst unless a test says otherwise.

#[pgrx::pg_schema]
mod tests {
    use crate::tests::*;

    /// Tables, a sequence, a volatile writer, an RLS table, the role and the interface.
    fn sql_registry() {
        run("CREATE TABLE public.account (id int PRIMARY KEY, owner text NOT NULL, balance numeric)");
        run("COMMENT ON TABLE public.account IS 'Customer accounts'");
        run("COMMENT ON COLUMN public.account.balance IS 'Balance in EUR'");
        run("INSERT INTO public.account SELECT g, 'owner' || (g % 3), g * 10 FROM generate_series(1, 40) g");
        run("CREATE TABLE public.ledger (id int PRIMARY KEY, account_id int REFERENCES public.account(id), note text)");
        run("CREATE TABLE public.hidden (id int, secret text)");
        run("INSERT INTO public.hidden VALUES (1, 'nobody may read this')");
        run("CREATE TABLE public.notes (id int, owner text, body text)");
        run("INSERT INTO public.notes VALUES (1, 'someone_else', 'private note'), (2, 'mcp_analyst', 'mine')");
        run("ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY");
        run("CREATE POLICY own_notes ON public.notes USING (owner = current_user)");
        run("CREATE TABLE public.partly (id int, visible text, invisible text)");
        run("CREATE SEQUENCE public.seq");
        run(
            "CREATE FUNCTION public.sneaky_insert() RETURNS int LANGUAGE plpgsql VOLATILE AS $$
         BEGIN INSERT INTO public.account VALUES (999, 'sneaky', 0); RETURN 1; END $$",
        );
        run("DROP ROLE IF EXISTS mcp_analyst");
        run("CREATE ROLE mcp_analyst NOLOGIN");
        run("GRANT SELECT ON public.account, public.ledger, public.notes TO mcp_analyst");
        run("GRANT SELECT (id, visible) ON public.partly TO mcp_analyst");
        run("GRANT USAGE, UPDATE ON SEQUENCE public.seq TO mcp_analyst");
        run("GRANT EXECUTE ON FUNCTION public.sneaky_insert() TO mcp_analyst");
        run("INSERT INTO mcp.interface (name, access_role) VALUES ('analyst', 'mcp_analyst')");
        run("INSERT INTO mcp.interface_tool VALUES ('analyst', 'sql_query'), ('analyst', 'schema_information')");
    }

    /// Fingerprint of everything an attack might change.
    fn data_fingerprint() -> String {
        Spi::get_one::<String>(
            "SELECT concat_ws('|',
            (SELECT count(*) || ':' || coalesce(sum(balance), 0) FROM public.account),
            (SELECT count(*) FROM public.ledger),
            (SELECT count(*) FROM public.notes),
            (SELECT last_value || ':' || is_called FROM public.seq),
            (SELECT count(*) FROM pg_catalog.pg_class WHERE relname IN ('newtab', 'tmp_x')),
            (SELECT count(*) FROM pg_catalog.pg_locks WHERE locktype = 'advisory'),
            (SELECT count(*) FROM pg_catalog.pg_largeobject_metadata),
            current_setting('work_mem'), current_setting('transaction_read_only'))",
        )
        .unwrap()
        .unwrap()
    }

    /// Call sql_query as mcp_analyst; returns (isError, text).
    fn sql_as_analyst(query: &str, max_rows: Option<i64>) -> (bool, String) {
        run("SET LOCAL ROLE mcp_analyst");
        let args = match max_rows {
            Some(n) => json!({"query": query, "max_rows": n}),
            None => json!({"query": query}),
        };
        let r = Spi::get_one_with_args::<JsonB>(
            "SELECT mcp.call_tool('sql_query', $1, 'analyst')",
            &[JsonB(args).into()],
        )
        .expect("call_tool does not raise")
        .unwrap()
        .0;
        run("RESET ROLE");
        (
            r["isError"].as_bool().unwrap(),
            r["content"][0]["text"].as_str().unwrap().to_string(),
        )
    }

    /// The error of `sql` run as mcp_analyst ("" when it succeeds).
    fn err_as_analyst(sql: &str) -> String {
        run("SET LOCAL ROLE mcp_analyst");
        let e = err_of(sql);
        run("RESET ROLE");
        e
    }

    fn last_call_status() -> (String, Option<String>) {
        let (s, e) = Spi::get_two::<String, String>(&format!(
            "SELECT status, error_sqlstate FROM mcp.tool_call WHERE {MY_LAST_CALL}"
        ))
        .unwrap();
        (s.unwrap(), e)
    }

    /// Assert that `query` is refused before it runs (status denied) with a message containing
    /// `why`, and that nothing changed.
    fn assert_refused(query: &str, why: &str) {
        let before = data_fingerprint();
        let (err, text) = sql_as_analyst(query, None);
        assert!(err, "not refused: {query} → {text}");
        assert!(text.contains(why), "{query}: expected '{why}' in: {text}");
        assert_eq!(last_call_status().0, "denied", "{query}");
        assert_eq!(data_fingerprint(), before, "data changed by: {query}");
    }

    /// Assert that `query` fails in the engine with SQLSTATE `state` (the model gets a generic
    /// sentence, the audit row the detail), and that nothing changed.
    fn assert_engine_refuses(query: &str, state: &str) {
        let before = data_fingerprint();
        let (err, text) = sql_as_analyst(query, None);
        assert!(err, "not refused: {query} → {text}");
        assert!(text.starts_with("The query "), "{text}");
        assert!(text.contains("call id"), "{text}");
        let (status, sqlstate) = last_call_status();
        assert_eq!(status, "error", "{query}");
        assert_eq!(sqlstate.as_deref(), Some(state), "{query}");
        assert_eq!(data_fingerprint(), before, "data changed by: {query}");
    }

    #[pg_test]
    fn sql_tool_refuses_writes_ddl_and_multiple_statements() {
        sql_registry();
        for (query, why) in [
        ("INSERT INTO public.account VALUES (100, 'x', 1)", "this is INSERT"),
        ("UPDATE public.account SET balance = 0", "this is UPDATE"),
        ("DELETE FROM public.account", "this is DELETE"),
        (
            "MERGE INTO public.account a USING (SELECT 1 AS id) s ON a.id = s.id WHEN MATCHED THEN DELETE",
            "this is MERGE",
        ),
        (
            "WITH gone AS (DELETE FROM public.account RETURNING *) SELECT count(*) FROM gone",
            "WITH clause may only hold queries; this one holds DELETE",
        ),
        ("SELECT * INTO newtab FROM public.account", "SELECT … INTO creates a table"),
        ("SELECT * FROM public.account FOR UPDATE", "FOR UPDATE/SHARE"),
        ("SELECT * FROM (SELECT * FROM public.account FOR SHARE) s", "FOR UPDATE/SHARE"),
        ("DROP TABLE public.account", "this is DROP TABLE"),
        ("CREATE TABLE newtab (i int)", "this is CREATE TABLE"),
        ("CREATE TEMP TABLE tmp_x AS SELECT 1", "this is CREATE TABLE AS"),
        ("TRUNCATE public.account", "this is TRUNCATE TABLE"),
        ("ALTER TABLE public.account ADD COLUMN x int", "this is ALTER TABLE"),
        ("GRANT ALL ON public.hidden TO mcp_analyst", "this is GRANT"),
        ("COPY public.account TO STDOUT", "this is COPY"),
        ("COPY (SELECT 1) TO PROGRAM 'id'", "this is COPY"),
        ("SELECT 1; DROP TABLE public.account", "Exactly one statement is allowed; this text holds 2"),
        ("COMMIT; DELETE FROM public.account", "Exactly one statement is allowed"),
        ("SELECT 1 /* */; DELETE FROM public.account", "Exactly one statement is allowed"),
        ("SET TRANSACTION READ WRITE", "this is SET"),
        ("SET transaction_read_only = off", "this is SET"),
        ("RESET ALL", "this is RESET"),
        ("BEGIN", "this is BEGIN"),
        ("PREPARE p AS SELECT 1", "this is PREPARE"),
        ("DECLARE c CURSOR FOR SELECT 1", "this is DECLARE CURSOR"),
        ("LISTEN chan", "this is LISTEN"),
        ("CALL public.nothing()", "this is CALL"),
        ("DO $$ BEGIN DELETE FROM public.account; END $$", "this is DO"),
        ("EXPLAIN ANALYZE SELECT 1", "EXPLAIN ANALYZE executes the query"),
        ("EXPLAIN (ANALYZE) DELETE FROM public.account", "EXPLAIN ANALYZE executes the query"),
        ("EXPLAIN DELETE FROM public.account", "Only queries can be explained; this is DELETE"),
        ("/* SELECT */ DELETE FROM public.account", "this is DELETE"),
        (" ; ", "The query is empty"),
    ] {
        assert_refused(query, why);
    }
    }

    #[pg_test]
    fn sql_tool_refuses_session_side_effects() {
        sql_registry();
        for (query, why) in [
            (
                "SELECT pg_advisory_lock(42)",
                "pg_advisory_lock is not allowed",
            ),
            (
                "SELECT pg_try_advisory_lock(42)",
                "pg_try_advisory_lock is not allowed",
            ),
            (
                "SELECT pg_catalog.pg_advisory_lock_shared(1, 2)",
                "pg_advisory_lock_shared is not allowed",
            ),
            (
                "SELECT pg_advisory_unlock_all()",
                "pg_advisory_unlock_all is not allowed",
            ),
            (
                "SELECT * FROM public.account WHERE pg_try_advisory_lock(id)",
                "pg_try_advisory_lock",
            ),
            (
                "SELECT pg_notify('chan', 'payload')",
                "pg_notify is not allowed",
            ),
            (
                "SELECT pg_cancel_backend(pg_backend_pid())",
                "pg_cancel_backend is not allowed",
            ),
            (
                "SELECT pg_terminate_backend(1)",
                "pg_terminate_backend is not allowed",
            ),
            (
                "SELECT lo_import('/etc/passwd')",
                "lo_import is not allowed",
            ),
            ("SELECT lo_export(1, '/tmp/x')", "lo_export is not allowed"),
            // hidden in a subquery, a CTE and a view are found too (the analyzed tree is walked)
            (
                "SELECT (SELECT pg_advisory_lock(7))",
                "pg_advisory_lock is not allowed",
            ),
            (
                "WITH l AS (SELECT pg_advisory_lock(8)) SELECT * FROM l",
                "pg_advisory_lock is not allowed",
            ),
        ] {
            assert_refused(query, why);
        }
        // A view wrapping the lock is expanded before the check.
        run("CREATE VIEW public.lock_view AS SELECT 1 AS l WHERE pg_try_advisory_lock(9)");
        run("GRANT SELECT ON public.lock_view TO mcp_analyst");
        assert_refused(
            "SELECT * FROM public.lock_view",
            "pg_try_advisory_lock is not allowed",
        );

        // dblink opens a second session that is not read-only: refused as a whole extension.
        run("CREATE EXTENSION IF NOT EXISTS dblink");
        run("GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO mcp_analyst");
        assert_refused(
            "SELECT * FROM dblink_exec('dbname=postgres', 'DELETE FROM public.account')",
            "(extension dblink) is not allowed",
        );
        assert_refused(
            "SELECT dblink_connect('c', 'dbname=postgres')",
            "extension dblink",
        );
    }

    #[pg_test]
    fn sql_tool_engine_refuses_what_the_parser_cannot_see() {
        sql_registry();
        // a volatile function that writes: the read-only subtransaction stops it
        assert_engine_refuses("SELECT public.sneaky_insert()", "25006");
        // sequences advance outside transactions, so read-only refuses nextval/setval (the role
        // holds USAGE and UPDATE on the sequence: it is the read-only mode that stops it)
        assert_engine_refuses("SELECT nextval('public.seq')", "25006");
        assert_engine_refuses("SELECT setval('public.seq', 100)", "25006");
        // switching the subtransaction back to read-write is refused by PostgreSQL itself
        assert_engine_refuses(
            "SELECT set_config('transaction_read_only', 'off', false)",
            "25001",
        );
        assert_engine_refuses(
            "SELECT set_config('transaction_read_only', 'off', true)",
            "25001",
        );
        // server files and large-object writes are refused by the sandbox whatever the role's
        // privileges (sandbox_hook_sees_dynamic_sql_and_every_way_to_call grants them)
        assert_refused(
            "SELECT pg_read_file('/etc/passwd')",
            "reads or writes files on the database server",
        );
        assert_refused(
            "SELECT * FROM pg_ls_dir('.')",
            "reads or writes files on the database server",
        );
        run("SELECT lo_create(424242)");
        assert_refused(
            "SELECT lo_unlink(424242)",
            "creates, changes or deletes large objects",
        );
        assert_refused(
            "SELECT lo_put(424242, 0, 'x')",
            "creates, changes or deletes large objects",
        );
        // reading a large object is fine (its ACL decides)
        run("GRANT SELECT ON LARGE OBJECT 424242 TO mcp_analyst");
        let (err, text) = sql_as_analyst("SELECT length(lo_get(424242)) AS n", None);
        assert!(!err, "{text}");
        // a table without a grant
        assert_engine_refuses("SELECT * FROM public.hidden", "42501");
        assert_engine_refuses("SELECT invisible FROM public.partly", "42501");
        // the outer transaction is still writable and unchanged afterwards
        run("INSERT INTO public.ledger VALUES (1, 1, 'after the attacks')");
        assert_eq!(
            Spi::get_one::<String>("SELECT current_setting('transaction_read_only')")
                .unwrap()
                .as_deref(),
            Some("off")
        );
    }

    #[pg_test]
    fn sql_tool_undoes_session_settings_and_respects_rls() {
        sql_registry();
        // set_config(…, false) inside the tool is rolled back with its subtransaction
        let before = data_fingerprint();
        let (err, text) = sql_as_analyst("SELECT set_config('work_mem', '1MB', false) AS w", None);
        assert!(!err, "{text}");
        assert!(text.contains("1MB"), "{text}");
        assert_eq!(data_fingerprint(), before);
        // temporary tables may be written in a read-only transaction, but the tool's subtransaction
        // is always rolled back: the row the function wrote is gone afterwards
        run("CREATE TEMP TABLE scratch (n int)");
        run("GRANT INSERT, SELECT ON scratch TO mcp_analyst");
        run(
            "CREATE FUNCTION public.fill_scratch() RETURNS bigint LANGUAGE plpgsql AS $$
         BEGIN INSERT INTO scratch VALUES (1); RETURN (SELECT count(*) FROM scratch); END $$",
        );
        run("GRANT EXECUTE ON FUNCTION public.fill_scratch() TO mcp_analyst");
        let (err, text) = sql_as_analyst("SELECT public.fill_scratch() AS rows_inside", None);
        assert!(!err, "{text}");
        assert!(
            text.contains("| 1 |"),
            "the write happened inside the tool: {text}"
        );
        assert_eq!(
            Spi::get_one::<i64>("SELECT count(*) FROM scratch").unwrap(),
            Some(0)
        );
        // row-level security applies: only the analyst's own note is visible
        let (err, text) = sql_as_analyst("SELECT id, body FROM public.notes ORDER BY id", None);
        assert!(!err, "{text}");
        assert!(
            text.contains("mine") && !text.contains("private note"),
            "{text}"
        );
        assert!(text.contains("1 row"), "{text}");
        // comment and quote tricks that fool text scanners are one harmless statement
        for query in [
            "SELECT 1 /* ; DROP TABLE public.account; */",
            "SELECT '; DELETE FROM public.account; --' AS s",
            "SELECT $$ ; DELETE FROM public.account $$ AS s",
            "SELECT 1 -- ; DROP TABLE public.account",
            "SELECT E'\\'; DELETE FROM public.account; --' AS s",
            "SELECT 1;",
        ] {
            let (err, text) = sql_as_analyst(query, None);
            assert!(!err, "{query}: {text}");
            assert_eq!(data_fingerprint(), before, "{query}");
        }
    }

    #[pg_test]
    fn sql_tool_caps_rows_and_times_out() {
        sql_registry();
        // 10 million rows: 25 shown, the n+1 row says more exist
        let (err, text) = sql_as_analyst("SELECT g FROM generate_series(1, 10000000) g", None);
        assert!(!err, "{text}");
        assert!(
            text.contains("25 rows") && text.contains("more rows exist"),
            "{text}"
        );
        assert_eq!(text.matches("\n| ").count(), 25, "{text}"); // 25 row lines after the header
        let (_, text) = sql_as_analyst("SELECT generate_series(1, 10000000) AS g", Some(5));
        assert!(
            text.contains("5 rows") && text.contains("more rows exist"),
            "{text}"
        );
        // above the operator maximum: clipped and said so
        let (_, text) = sql_as_analyst("SELECT g FROM generate_series(1, 1000) g", Some(100_000));
        assert!(text.contains("500 rows"), "{text}");
        assert!(text.contains("100000"), "{text}");
        // exactly the limit: no "more rows"
        let (_, text) = sql_as_analyst("SELECT g FROM generate_series(1, 25) g", None);
        assert!(
            text.contains("25 rows") && !text.contains("more rows exist"),
            "{text}"
        );
        // invalid max_rows
        let (err, text) = sql_as_analyst("SELECT 1", Some(0));
        assert!(err && text.contains("max_rows"), "{text}");

        // pg_sleep(3600) ends at the tool's own time limit, as a tool error (the statement goes on)
        run("UPDATE mcp.tool SET timeout_ms = 200 WHERE name = 'sql_query'");
        let started = std::time::Instant::now();
        let (err, text) = sql_as_analyst("SELECT pg_sleep(3600)", None);
        assert!(err, "{text}");
        assert!(text.contains("time limit"), "{text}");
        assert!(
            started.elapsed().as_secs() < 60,
            "the time limit did not end the query"
        );
        let (status, state) = last_call_status();
        assert_eq!(
            (status.as_str(), state.as_deref()),
            ("error", Some("57014"))
        );
        // the transaction goes on normally after the timeout
        assert_eq!(Spi::get_one::<i32>("SELECT 1").unwrap(), Some(1));
        let (err, _) = sql_as_analyst("SELECT 1", None);
        assert!(!err);
    }

    #[pg_test]
    fn sql_tool_keeps_analytics_working() {
        sql_registry();
        for (query, expect) in [
        (
            "WITH t AS (SELECT owner, sum(balance) s FROM public.account GROUP BY owner) SELECT * FROM t ORDER BY owner",
            "owner0",
        ),
        (
            "SELECT id, rank() OVER (PARTITION BY owner ORDER BY balance DESC) r FROM public.account ORDER BY id LIMIT 3",
            "| r ",
        ),
        (
            "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY balance) AS median FROM public.account",
            "205",
        ),
        ("EXPLAIN SELECT * FROM public.account WHERE id = 1", "QUERY PLAN"),
        ("EXPLAIN (COSTS OFF) SELECT count(*) FROM public.account", "Aggregate"),
        ("VALUES (1, 'a'), (2, 'b')", "column1"),
        ("TABLE public.ledger", "0 rows"),
        (
            "SELECT a.owner, count(l.id) FROM public.account a LEFT JOIN public.ledger l ON l.account_id = a.id GROUP BY 1 ORDER BY 1",
            "owner2",
        ),
        ("SELECT current_setting('application_name') AS app", "mcp:call:"),
    ] {
        let (err, text) = sql_as_analyst(query, None);
        assert!(!err, "{query}: {text}");
        assert!(text.contains(expect), "{query}: expected {expect} in {text}");
    }
        // the tag is removed again after the call
        assert!(
            !Spi::get_one::<String>("SELECT current_setting('application_name')")
                .unwrap()
                .unwrap_or_default()
                .starts_with("mcp:")
        );
    }

    #[pg_test]
    fn sql_tool_shapes_cells() {
        sql_registry();
        run("CREATE EXTENSION IF NOT EXISTS vector");
        let (err, text) = sql_as_analyst(
        "SELECT repeat('x', 600) AS long, '\\x00010203'::bytea AS bin, '[1,2,3]'::vector AS emb,
                NULL::text AS nothing, 'a|b' || chr(10) || '| c | d |' AS forged,
                jsonb_build_object('k', repeat('y', 1200)) AS doc",
        None,
    );
        assert!(!err, "{text}");
        assert!(text.contains(&format!("{}…", "x".repeat(500))), "{text}");
        assert!(!text.contains(&"x".repeat(501)), "{text}");
        assert!(text.contains("<binary 4 bytes>"), "{text}");
        assert!(text.contains("<vector dim=3>"), "{text}");
        assert!(text.contains("∅"), "{text}");
        assert!(text.contains("a\\|b\\n\\| c \\| d \\|"), "{text}");
        assert!(!text.contains(&"y".repeat(1001)), "{text}");
        // header, separator, one row, metadata: the forged cell added no table row
        let table_lines = text.lines().filter(|l| l.starts_with('|')).count();
        assert_eq!(table_lines, 3, "{text}");
        assert!(text.contains("1 row"), "{text}");
    }

    #[pg_test]
    fn sql_tool_errors_are_generic_with_detail_for_the_operator() {
        sql_registry();
        let (err, text) = sql_as_analyst("SELEC 1", None);
        assert!(err);
        assert!(
            text.contains("syntax error") && text.contains("call id"),
            "{text}"
        );
        let (err, text) = sql_as_analyst("SELECT secret_column FROM public.account", None);
        assert!(err);
        assert!(text.contains("column that does not exist"), "{text}");
        assert!(
            !text.contains("secret_column"),
            "the model must not get the server message: {text}"
        );
        let (state, msg) = Spi::get_two::<String, String>(&format!(
            "SELECT error_sqlstate, error_message FROM mcp.tool_call WHERE {MY_LAST_CALL}"
        ))
        .unwrap();
        assert_eq!(state.as_deref(), Some("42703"));
        assert!(msg.unwrap().contains("secret_column"));
        let (err, text) = sql_as_analyst("SELECT 1/0", None);
        assert!(err && text.contains("data value"), "{text}");
        // strict argument types
        let r = q(r#"SELECT mcp.call_tool('sql_query', '{"query": 42}', 'analyst')"#);
        assert_eq!(r["isError"], true);
        assert_eq!(last_call_status().0, "invalid");
        let long = "SELECT 1 ".repeat(4000);
        let (err, text) = sql_as_analyst(&long, None);
        assert!(err && text.contains("query"), "{text}");
        assert_eq!(last_call_status().0, "invalid");
    }

    #[pg_test]
    fn sql_tool_refuses_superusers_unless_allowed() {
        sql_registry();
        let call = "SELECT mcp.call_tool('sql_query', '{\"query\": \"SELECT count(*) AS n FROM public.hidden\"}', 'analyst')";
        let r = q(call);
        assert_eq!(r["isError"], true);
        assert!(
            r["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("superuser"),
            "{r}"
        );
        assert_eq!(last_call_status().0, "denied");
        run("SET LOCAL mcp.allow_superuser_sql = on");
        let r = q(call);
        assert_eq!(r["isError"], false, "{r}");
        assert!(
            r["content"][0]["text"].as_str().unwrap().contains("| 1"),
            "{r}"
        );
        // only a superuser may change the setting
        run("RESET mcp.allow_superuser_sql");
        let e = err_as_analyst("SET mcp.allow_superuser_sql = on");
        assert!(e.contains("permission denied"), "{e}");
    }

    #[pg_test]
    fn report_tools_bind_typed_parameters() {
        sql_registry();
        run(
            r#"INSERT INTO mcp.tool (name, description, parameters, kind, body) VALUES
        ('rich_accounts', 'Accounts of an owner above a balance',
         '{"type": "object", "properties": {
             "owner": {"type": "string"}, "min_balance": {"type": "number"},
             "ids": {"type": "array", "items": {"type": "integer"}}},
           "required": ["owner", "min_balance"]}',
         'report',
         'SELECT id, balance FROM public.account
           WHERE balance >= $2 AND owner = $3 AND ($1::bigint[] IS NULL OR id = ANY ($1))
           ORDER BY id')"#,
        );
        run("INSERT INTO mcp.interface_tool VALUES ('analyst', 'rich_accounts')");
        run("SET LOCAL ROLE mcp_analyst");
        let r = q(
            r#"SELECT mcp.call_tool('rich_accounts', '{"owner": "owner1", "min_balance": 300}', 'analyst')"#,
        );
        let text = r["content"][0]["text"].as_str().unwrap().to_string();
        assert_eq!(r["isError"], false, "{r}");
        assert!(
            text.contains("| 31 ") && text.contains("| 40 ") && !text.contains("| 28 "),
            "{text}"
        );
        assert!(text.contains("4 rows"), "{text}");
        let r = q(
            r#"SELECT mcp.call_tool('rich_accounts', '{"owner": "owner1", "min_balance": 0, "ids": [1, 4, 7]}', 'analyst')"#,
        );
        let text = r["content"][0]["text"].as_str().unwrap().to_string();
        assert!(text.contains("3 rows"), "{text}");
        // values are bound, never spliced: an injection attempt is just a string that matches nothing
        let r = q(
            r#"SELECT mcp.call_tool('rich_accounts', '{"owner": "x'' OR ''1''=''1", "min_balance": 0}', 'analyst')"#,
        );
        assert!(
            r["content"][0]["text"].as_str().unwrap().contains("0 rows"),
            "{r}"
        );
        run("RESET ROLE");
        // report bodies run read-only as well
        run(
            r#"INSERT INTO mcp.tool (name, description, parameters, kind, body) VALUES
        ('sneaky_report', 'calls a writer', '{"type": "object", "properties": {}}', 'report',
         'SELECT public.sneaky_insert()')"#,
        );
        run("INSERT INTO mcp.interface_tool VALUES ('analyst', 'sneaky_report')");
        let before = data_fingerprint();
        run("SET LOCAL ROLE mcp_analyst");
        let r = q("SELECT mcp.call_tool('sneaky_report', '{}', 'analyst')");
        run("RESET ROLE");
        assert_eq!(r["isError"], true, "{r}");
        assert_eq!(
            last_call_status(),
            ("error".to_string(), Some("25006".to_string()))
        );
        assert_eq!(data_fingerprint(), before);
    }

    #[pg_test]
    fn report_bodies_are_checked_at_registration() {
        sql_registry();
        for (body, why) in [
            (
                "DELETE FROM public.account",
                "body refused: Only queries are allowed",
            ),
            ("SELECT 1; SELECT 2", "Exactly one statement"),
            (
                "SELECT * FROM public.no_such_table",
                "body does not analyze",
            ),
            ("SELECT $2::text", "body does not analyze"),
            (
                "SELECT pg_advisory_lock(1)",
                "pg_advisory_lock is not allowed",
            ),
        ] {
            let e = err_of(&format!(
                r#"INSERT INTO mcp.tool (name, description, parameters, kind, body) VALUES
               ('bad_report', 'x', '{{"type": "object", "properties": {{"a": {{"type": "string"}}}}}}', 'report', $b${body}$b$)"#
            ));
            assert!(
                e.contains("23514") || e.contains("check_violation") || e.contains("refused"),
                "{e}"
            );
            assert!(e.contains(why), "{body}: expected {why} in {e}");
        }
        // a built-in without a function must be one pg_mcp implements
        let e = err_of(
            r#"INSERT INTO mcp.tool (name, description, kind) VALUES ('my_builtin', 'x', 'builtin')"#,
        );
        assert!(e.contains("there is no built-in tool named"), "{e}");
    }

    #[pg_test]
    fn schema_information_shows_what_the_role_can_read() {
        sql_registry();
        run("SET LOCAL ROLE mcp_analyst");
        let r = q("SELECT mcp.call_tool('schema_information', '{}', 'analyst')");
        let text = r["content"][0]["text"].as_str().unwrap().to_string();
        run("RESET ROLE");
        assert_eq!(r["isError"], false, "{r}");
        assert!(
            text.contains("public.account (table) — Customer accounts"),
            "{text}"
        );
        assert!(text.contains("  id integer PK"), "{text}");
        assert!(
            text.contains("  balance numeric — Balance in EUR"),
            "{text}"
        );
        assert!(text.contains("  owner text NOT NULL"), "{text}");
        assert!(
            text.contains("FK (account_id) REFERENCES account(id)"),
            "{text}"
        );
        assert!(
            text.contains("public.partly") && text.contains("  visible text"),
            "{text}"
        );
        assert!(
            !text.contains("invisible"),
            "column without privilege shown: {text}"
        );
        assert!(
            !text.contains("public.hidden"),
            "table without privilege shown: {text}"
        );
        assert!(
            !text.contains("mcp.tool"),
            "pg_mcp's own tables are not listed: {text}"
        );
        assert!(!text.contains("pg_class"), "{text}");
        // filter
        run("SET LOCAL ROLE mcp_analyst");
        let r =
            q(r#"SELECT mcp.call_tool('schema_information', '{"table": "ledger"}', 'analyst')"#);
        run("RESET ROLE");
        let text = r["content"][0]["text"].as_str().unwrap().to_string();
        assert!(
            text.starts_with("public.ledger (table)") && !text.contains("public.account ("),
            "{text}"
        );
        let r = q(r#"SELECT mcp.call_tool('schema_information', '{"schema": "nope"}', 'analyst')"#);
        assert!(
            r["content"][0]["text"]
                .as_str()
                .unwrap()
                .starts_with("No tables"),
            "{r}"
        );
    }

    #[pg_test]
    fn function_tools_get_the_time_limit_and_the_call_id_tag() {
        demo_registry();
        run("CREATE FUNCTION public.slow(s float8) RETURNS text LANGUAGE sql AS $$ SELECT pg_sleep(s)::text $$");
        run("CREATE FUNCTION public.app() RETURNS text LANGUAGE sql AS $$ SELECT current_setting('application_name') $$");
        run(
            r#"INSERT INTO mcp.tool (name, description, parameters, function, timeout_ms) VALUES
        ('slow', 'sleeps', '{"type":"object","properties":{"s":{"type":"number"}},"required":["s"]}', 'public.slow(float8)', 200),
        ('app', 'tag', '{"type":"object","properties":{}}', 'public.app()', NULL)"#,
        );
        run("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'slow'), ('chatbot', 'app')");
        let r = q(r#"SELECT mcp.call_tool('slow', '{"s": 3600}')"#);
        assert_eq!(r["isError"], true, "{r}");
        assert!(
            r["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("time limit"),
            "{r}"
        );
        let r = q("SELECT mcp.call_tool('app')");
        let tag = r["content"][0]["text"].as_str().unwrap().to_string();
        let last = Spi::get_one::<i64>("SELECT currval('mcp.tool_call_call_id_seq'::regclass)")
            .unwrap()
            .unwrap();
        assert_eq!(tag, format!("mcp:call:{last}"));
    }

    // ------------------------------------------------------------------------------------------
    // The tool sandbox: deep trees, the executor hook, the security-restricted
    // operation, nesting, result memory. Each refusal also asserts that nothing changed.
    // ------------------------------------------------------------------------------------------

    /// Advisory locks held by this backend (session or transaction level).
    fn advisory_locks() -> i64 {
        Spi::get_one::<i64>(
        "SELECT count(*) FROM pg_catalog.pg_locks WHERE locktype = 'advisory' AND pid = pg_catalog.pg_backend_pid()",
    )
    .unwrap()
    .unwrap()
    }

    /// The last audit row: (status, sqlstate, operator message).
    fn last_call() -> (String, Option<String>, Option<String>) {
        Spi::get_three::<String, String, String>(&format!(
            "SELECT status, error_sqlstate, error_message FROM mcp.tool_call WHERE {MY_LAST_CALL}"
        ))
        .map(|(a, b, c)| (a.unwrap(), b, c))
        .unwrap()
    }

    /// `query` is refused while the tool runs (parse-time walk or executor hook): status denied,
    /// a sentence naming the function and its class, no lock, nothing changed.
    fn assert_sandbox_refuses(query: &str, function: &str, reason: &str) {
        let before = data_fingerprint();
        let locks = advisory_locks();
        let (err, text) = sql_as_analyst(query, None);
        assert!(err, "not refused: {query} → {text}");
        assert!(
            text.contains(&format!("The function {function}")) && text.contains(reason),
            "{query}: expected {function} / {reason} in: {text}"
        );
        let (status, state, _) = last_call();
        assert_eq!(status, "denied", "{query}");
        assert!(
            state.is_none() || state.as_deref() == Some("42501"),
            "{query}: {state:?}"
        );
        assert_eq!(advisory_locks(), locks, "a lock survived: {query}");
        assert_eq!(data_fingerprint(), before, "data changed by: {query}");
    }

    const LOCKS: &str = "session-level advisory locks";

    fn deep_select(depth: usize) -> String {
        format!("select {}1{}", "(select ".repeat(depth), ")".repeat(depth))
    }

    #[pg_test]
    fn sandbox_deep_trees_are_tool_errors_not_crashes() {
        sql_registry();
        let pid = Spi::get_one::<i32>("SELECT pg_backend_pid()").unwrap();
        // every shape as deep as the tool's 32,000-character limit on a query allows
        let nest = |open: &str, inner: &str, close: &str, n: usize| {
            format!("select {}{inner}{}", open.repeat(n), close.repeat(n))
        };
        let deep_case = nest("case when true then ", "1", " end", 1300);
        let deep_call = nest("abs(", "1", ")", 6000);
        let deep_from = format!(
            "select * from {}(select 1 as x){}",
            "(select * from ".repeat(1700),
            " s)".repeat(1700)
        );
        let deep_union = format!("select 1{}", " union all select 1".repeat(1600));
        let deep_bool = nest("(true and ", "true", ")", 2800);
        let deep_jsonb = format!(
            "select '{}1{}'::jsonb",
            "[".repeat(15000),
            "]".repeat(15000)
        );
        let deep_minus = nest("- ", "1", "", 15000);
        for query in [
            deep_select(2500),
            format!("select {}1{}", "ARRAY[".repeat(3000), "]".repeat(3000)),
            format!("select {}true", "NOT ".repeat(7000)),
            deep_case,
            deep_call,
            deep_from,
            deep_union,
            deep_bool,
            deep_jsonb,
            deep_minus,
        ] {
            assert!(query.len() <= 32_000, "{}", query.len());
            let before = data_fingerprint();
            let (err, text) = sql_as_analyst(&query, None);
            let (status, state, msg) = last_call();
            // PostgreSQL's own answer to a deep tree: 54001, as a tool error; a shape that fits
            // the stack may run (a UNION chain), but nothing crashes and nothing changes
            // (or the parser's own limit: "memory exhausted", a syntax error)
            if err {
                assert_eq!(status, "error", "{}: {text}", &query[..40]);
                let parser_limit = state.as_deref() == Some("42601")
                    && msg
                        .as_deref()
                        .is_some_and(|m| m.starts_with("memory exhausted"));
                assert!(
                    state.as_deref() == Some("54001") || parser_limit,
                    "{}: {state:?} {msg:?}",
                    &query[..40]
                );
            }
            assert_eq!(data_fingerprint(), before);
            assert_eq!(Spi::get_one::<i32>("SELECT pg_backend_pid()").unwrap(), pid);
        }
        // the 2,500-level query is refused with PostgreSQL's ordinary stack-depth error
        let (err, text) = sql_as_analyst(&deep_select(2500), None);
        assert!(err && text.contains("nested too deeply"), "{text}");
        assert_eq!(last_call().1.as_deref(), Some("54001"));
    }

    #[pg_test]
    fn sandbox_deep_tree_through_the_chat_loop() {
        chat_registry("sandbox_hostile_queries");
        run("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'sql_query')");
        run("SET LOCAL mcp.allow_superuser_sql = on");
        let pid = Spi::get_one::<i32>("SELECT pg_backend_pid()").unwrap();
        let locks = advisory_locks();
        let r = q("SELECT mcp.chat('show me everything')");
        assert_eq!(r["status"], "completed", "{r}");
        // the answer echoes the last tool result: the refusal of the dynamic-SQL lock
        assert!(
            r["answer"]
                .as_str()
                .unwrap()
                .contains("pg_advisory_lock is not allowed"),
            "{r}"
        );
        let run_id = r["run_id"].as_str().unwrap().to_string();
        let rows = Spi::get_one_with_args::<String>(
        "SELECT string_agg(tool_call_id || ':' || status || ':' || coalesce(error_sqlstate, '-'), ',' ORDER BY tool_call_id)
           FROM mcp.tool_call WHERE run_id = $1::uuid",
        &[run_id.into()],
    )
    .unwrap()
    .unwrap();
        assert_eq!(rows, "deep_1:error:54001,lock_1:denied:42501");
        assert_eq!(advisory_locks(), locks);
        assert_eq!(Spi::get_one::<i32>("SELECT pg_backend_pid()").unwrap(), pid);
    }

    #[pg_test]
    fn sandbox_hook_sees_dynamic_sql_and_every_way_to_call() {
        sql_registry();
        run("GRANT pg_read_server_files TO mcp_analyst");
        // ways to run SQL text
        run("CREATE FUNCTION public.dyn(q text) RETURNS int LANGUAGE plpgsql AS $$ BEGIN EXECUTE q; RETURN 1; END $$");
        run("CREATE FUNCTION public.sql_lock() RETURNS void LANGUAGE sql AS 'SELECT pg_advisory_lock(8)'");
        run("CREATE FUNCTION public.plpgsql_lock() RETURNS int LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_advisory_lock(10); RETURN 1; END $$");
        // ways to reach a function without naming it
        run("CREATE OPERATOR public.@@@ (FUNCTION = pg_catalog.pg_try_advisory_lock, RIGHTARG = bigint)");
        run("CREATE AGGREGATE public.lock_agg(bigint) (SFUNC = pg_catalog.int8pl, STYPE = bigint, FINALFUNC = pg_catalog.pg_try_advisory_lock)");
        run("CREATE TYPE public.tok AS (k bigint)");
        run("CREATE FUNCTION public.tok_to_bool(public.tok) RETURNS bool LANGUAGE sql AS 'SELECT pg_try_advisory_lock(($1).k)'");
        run("CREATE CAST (public.tok AS bool) WITH FUNCTION public.tok_to_bool(public.tok)");
        run("CREATE DOMAIN public.lockdom AS bigint CHECK (pg_try_advisory_lock(VALUE))");
        run("CREATE TABLE public.rls_lock (id bigint)");
        run("INSERT INTO public.rls_lock VALUES (1)");
        run("ALTER TABLE public.rls_lock ENABLE ROW LEVEL SECURITY");
        run("CREATE POLICY p ON public.rls_lock USING (pg_try_advisory_lock(id + 100))");
        run("CREATE VIEW public.lock_view2 AS SELECT pg_try_advisory_lock(9) AS l");
        run("CREATE FUNCTION public.lock_rows() RETURNS SETOF bool LANGUAGE sql AS 'SELECT pg_try_advisory_lock(g) FROM generate_series(20, 22) g'");
        run("GRANT SELECT ON public.rls_lock, public.lock_view2 TO mcp_analyst");
        run("GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO mcp_analyst");
        // privileges that would let the role run them: the sandbox refuses anyway
        run("GRANT EXECUTE ON FUNCTION pg_read_file(text), pg_read_binary_file(text), pg_stat_file(text), pg_ls_dir(text),
         pg_stat_reset(), pg_switch_wal() TO mcp_analyst");
        for (query, function, reason) in [
        // functions that execute SQL text
        ("SELECT query_to_xml('select pg_advisory_lock(4242)', true, false, '')", "pg_advisory_lock", LOCKS),
        ("SELECT query_to_xml_and_xmlschema('select pg_advisory_lock(1)', true, false, '')", "pg_advisory_lock", LOCKS),
        ("SELECT table_to_xml('public.lock_view2', true, false, '')", "pg_try_advisory_lock", LOCKS),
        ("SELECT schema_to_xml('public', true, false, '')", "pg_try_advisory_lock", LOCKS),
        ("SELECT database_to_xml(true, false, '')", "pg_try_advisory_lock", LOCKS),
        ("SELECT * FROM ts_stat('select to_tsvector(pg_advisory_lock(5)::text)')", "pg_advisory_lock", LOCKS),
        ("SELECT ts_rewrite('a'::tsquery, 'select ''a''::tsquery, (''b'' || pg_advisory_lock(6)::text)::tsquery')", "pg_advisory_lock", LOCKS),
        ("SELECT public.dyn('select pg_advisory_lock(7)')", "pg_advisory_lock", LOCKS),
        ("SELECT public.dyn('select pg_advisory_unlock_all()')", "pg_advisory_unlock_all", LOCKS),
        // functions that call a denied function
        ("SELECT public.sql_lock()", "pg_advisory_lock", LOCKS),
        ("SELECT public.plpgsql_lock()", "pg_advisory_lock", LOCKS),
        ("SELECT * FROM public.lock_rows()", "pg_try_advisory_lock", LOCKS),
        // operators, aggregates, window functions, casts, domains, policies, views
        ("SELECT @@@ 42::bigint", "pg_try_advisory_lock", LOCKS),
        ("SELECT query_to_xml('select @@@ 43::bigint', true, false, '')", "pg_try_advisory_lock", LOCKS),
        ("SELECT public.lock_agg(x) FROM (VALUES (1::bigint), (2)) v(x)", "pg_try_advisory_lock", LOCKS),
        ("SELECT public.lock_agg(x) OVER () FROM (VALUES (1::bigint), (2)) v(x)", "pg_try_advisory_lock", LOCKS),
        ("SELECT (row(11)::public.tok)::bool", "pg_try_advisory_lock", LOCKS),
        ("SELECT 12::public.lockdom", "pg_try_advisory_lock", LOCKS),
        ("SELECT * FROM public.rls_lock", "pg_try_advisory_lock", LOCKS),
        ("SELECT * FROM public.lock_view2", "pg_try_advisory_lock", LOCKS),
        // signals, notify, server files (the role holds pg_read_server_files and EXECUTE)
        ("SELECT query_to_xml('select pg_cancel_backend(pg_backend_pid())', true, false, '')", "pg_cancel_backend", "signals server processes"),
        ("SELECT public.dyn('select pg_terminate_backend(pg_backend_pid())')", "pg_terminate_backend", "signals server processes"),
        ("SELECT public.dyn('select pg_notify(''c'', ''x'')')", "pg_notify", "notifications"),
        ("SELECT pg_read_file('global/1260')", "pg_read_file", "files on the database server"),
        ("SELECT query_to_xml('select pg_read_binary_file(''global/1260'')', true, false, '')", "pg_read_binary_file", "files on the database server"),
        ("SELECT * FROM pg_ls_dir('.')", "pg_ls_dir", "files on the database server"),
        ("SELECT (pg_stat_file('postgresql.conf')).size", "pg_stat_file", "files on the database server"),
        ("SELECT * FROM pg_ls_waldir()", "pg_ls_waldir", "files on the database server"),
        // large-object writes (PostgreSQL allows them in a read-only transaction)
        ("SELECT lo_create(0)", "lo_create", "large objects"),
        ("SELECT lo_from_bytea(0, 'x')", "lo_from_bytea", "large objects"),
        ("SELECT public.dyn('select lo_creat(-1)')", "lo_creat", "large objects"),
        ("SELECT lo_unlink(1)", "lo_unlink", "large objects"),
        // statistics and WAL
        ("SELECT public.dyn('select pg_stat_reset()')", "pg_stat_reset", "server state"),
        ("SELECT pg_switch_wal()", "pg_switch_wal", "server state"),
    ] {
        assert_sandbox_refuses(query, function, reason);
    }
        // transaction-level advisory locks go with the rolled-back subtransaction: allowed
        let (err, text) = sql_as_analyst("SELECT pg_try_advisory_xact_lock(77) AS got", None);
        assert!(!err, "{text}");
        assert_eq!(advisory_locks(), 0);
        // other backends survive a hostile tool (a second session through dblink)
        run("CREATE EXTENSION IF NOT EXISTS dblink");
        run("SELECT dblink_connect('other', format('host=%s port=%s dbname=%s user=postgres', current_setting('unix_socket_directories'), current_setting('port'), current_database()))");
        let other = Spi::get_one::<i32>(
            "SELECT pid FROM dblink('other', 'SELECT pg_backend_pid()') AS t(pid int)",
        )
        .unwrap()
        .unwrap();
        run("GRANT pg_signal_backend TO mcp_analyst");
        assert_sandbox_refuses(
            &format!(
                "SELECT query_to_xml('select pg_terminate_backend({other})', true, false, '')"
            ),
            "pg_terminate_backend",
            "signals server processes",
        );
        assert_eq!(
            Spi::get_one::<i32>(
                "SELECT pid FROM dblink('other', 'SELECT pg_backend_pid()') AS t(pid int)"
            )
            .unwrap(),
            Some(other),
            "the other backend was terminated"
        );
        run("SELECT dblink_disconnect('other')");
    }

    #[pg_test]
    fn sandbox_keeps_the_callers_role() {
        sql_registry();
        run("DROP ROLE IF EXISTS mcp_enduser");
        run("CREATE ROLE mcp_enduser NOLOGIN");
        run("CREATE TABLE public.login_only (secret text)");
        run("INSERT INTO public.login_only VALUES ('only the login role reads this')");
        run("REVOKE ALL ON public.login_only FROM PUBLIC");
        run("CREATE FUNCTION public.become_none() RETURNS text LANGUAGE plpgsql AS $$ BEGIN SET LOCAL ROLE NONE; RETURN current_user; END $$");
        run("CREATE FUNCTION public.as_none() RETURNS text LANGUAGE sql SET role TO 'none' AS 'SELECT current_user::text'");
        run("CREATE FUNCTION public.reset_role() RETURNS text LANGUAGE plpgsql AS $$ BEGIN PERFORM set_config('role', 'none', false); RETURN (SELECT secret FROM public.login_only); END $$");
        run("CREATE FUNCTION public.make_temp() RETURNS int LANGUAGE plpgsql AS $$ BEGIN CREATE TEMP TABLE esc (i int); RETURN 1; END $$");
        run("GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO mcp_enduser");
        run("GRANT mcp_analyst TO mcp_enduser");
        run(
            r#"INSERT INTO mcp.tool (name, description, parameters, function) VALUES
        ('reset_role', 'hostile', '{"type":"object","properties":{}}', 'public.reset_role()')"#,
        );
        run(
            r#"INSERT INTO mcp.tool (name, description, parameters, function, read_only) VALUES
        ('make_temp', 'writes', '{"type":"object","properties":{}}', 'public.make_temp()', false)"#,
        );
        run("INSERT INTO mcp.interface_tool VALUES ('analyst', 'reset_role'), ('analyst', 'make_temp')");
        // the application runs its end user's requests under the end user's role
        run("SET LOCAL ROLE mcp_enduser");
        for query in [
        // the reported attack: leave the end user's role, then read what only the login role may
        "SELECT set_config('role', 'none', false), query_to_xml('select * from public.login_only', true, false, '')",
        "SELECT query_to_xml('select set_config(''role'', ''none'', false)', true, false, ''), query_to_xml('select * from public.login_only', true, false, '')",
        "SELECT set_config('session_authorization', 'postgres', false)",
        "SELECT public.become_none()",
        "SELECT public.as_none()",
    ] {
        let r = Spi::get_one_with_args::<JsonB>(
            "SELECT mcp.call_tool('sql_query', $1, 'analyst')",
            &[JsonB(json!({ "query": query })).into()],
        )
        .unwrap()
        .unwrap()
        .0;
        assert_eq!(r["isError"], true, "{query}: {r}");
        let text = r["content"][0]["text"].as_str().unwrap();
        assert!(!text.contains("only the login role"), "{text}");
        assert_eq!(
            Spi::get_two::<String, String>("SELECT current_user::text, current_setting('role')").unwrap(),
            (Some("mcp_enduser".into()), Some("mcp_enduser".into())),
            "{query}"
        );
        run("RESET ROLE");
        let (status, state, msg) = last_call();
        assert_eq!((status.as_str(), state.as_deref()), ("error", Some("42501")), "{query}: {msg:?}");
        assert!(msg.unwrap().contains("security-restricted operation"), "{query}");
        run("SET LOCAL ROLE mcp_enduser");
    }
        // a function tool gets the same restriction (read-only or not)
        for tool in ["reset_role", "make_temp"] {
            let r = q(&format!(
                "SELECT mcp.call_tool('{tool}', '{{}}', 'analyst')"
            ));
            assert_eq!(r["isError"], true, "{tool}: {r}");
            run("RESET ROLE");
            let (status, state, msg) = last_call();
            assert_eq!(
                (status.as_str(), state.as_deref()),
                ("error", Some("42501")),
                "{tool}: {msg:?}"
            );
            assert!(
                msg.unwrap().contains("security-restricted operation"),
                "{tool}"
            );
            run("SET LOCAL ROLE mcp_enduser");
        }
        assert_eq!(
            Spi::get_one::<String>("SELECT current_user::text")
                .unwrap()
                .as_deref(),
            Some("mcp_enduser")
        );
        run("RESET ROLE");
        assert_eq!(
            Spi::get_one::<i64>("SELECT count(*) FROM pg_catalog.pg_class WHERE relname = 'esc'")
                .unwrap(),
            Some(0)
        );
    }

    #[pg_test]
    fn sandbox_refuses_nested_tools_and_chats() {
        sql_registry();
        run(
            r#"CREATE FUNCTION public.nested_sql() RETURNS jsonb LANGUAGE sql AS $$ SELECT mcp.call_tool('sql_query', '{"query": "select 1"}', 'analyst') $$"#,
        );
        run(
            r#"CREATE FUNCTION public.nested_plpgsql() RETURNS jsonb LANGUAGE plpgsql AS $$ BEGIN RETURN mcp.call_tool('sql_query', '{"query": "select 1"}', 'analyst'); END $$"#,
        );
        run("CREATE FUNCTION public.nested_chat() RETURNS jsonb LANGUAGE sql AS $$ SELECT mcp.chat('hi', 'analyst') $$");
        run("GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO mcp_analyst");
        run(
            r#"INSERT INTO mcp.tool (name, description, parameters, function, read_only) VALUES
        ('nested_sql', 'x', '{"type":"object","properties":{}}', 'public.nested_sql()', true),
        ('nested_plpgsql', 'x', '{"type":"object","properties":{}}', 'public.nested_plpgsql()', false),
        ('nested_chat', 'x', '{"type":"object","properties":{}}', 'public.nested_chat()', false)"#,
        );
        run("INSERT INTO mcp.interface_tool VALUES ('analyst', 'nested_sql'), ('analyst', 'nested_plpgsql'), ('analyst', 'nested_chat')");
        // The audit rows this session writes: each takes the next id in this session (other
        // tests' rows, committed by the durable worker meanwhile, do not count).
        run("SELECT nextval('mcp.tool_call_call_id_seq'::regclass)");
        let calls = || {
            Spi::get_one::<i64>("SELECT currval('mcp.tool_call_call_id_seq'::regclass)")
                .unwrap()
                .unwrap()
        };
        const NESTING: &str = "a tool cannot start another tool or chat";
        // directly, through dynamic SQL, through a function: one audit row each (the outer call)
        for (query, function) in [
            (
                r#"SELECT mcp.call_tool('sql_query', '{"query": "select 1"}', 'analyst')"#,
                "mcp.call_tool",
            ),
            (
                r#"SELECT query_to_xml('select mcp.call_tool(''sql_query'', ''{"query": "select 1"}'', ''analyst'')', true, false, '')"#,
                "mcp.call_tool",
            ),
            ("SELECT mcp.chat('hi', 'analyst')", "mcp.chat"),
            (
                "SELECT query_to_xml('select mcp.chat(''hi'', ''analyst'')', true, false, '')",
                "mcp.chat",
            ),
            ("SELECT public.nested_sql()", "mcp.call_tool"),
        ] {
            let n = calls();
            assert_sandbox_refuses(query, function, NESTING);
            assert_eq!(calls(), n + 1, "{query}");
        }
        // inside function tools, read-only or not; the PL/pgSQL expression is executed once
        // outside a tool first (its plan is then cached for the transaction and the executor hook
        // does not see it again): pg_mcp's own entry check refuses it anyway
        let _ = q("SELECT public.nested_plpgsql()");
        for tool in ["nested_sql", "nested_plpgsql", "nested_chat"] {
            let n = calls();
            run("SET LOCAL ROLE mcp_analyst");
            let r = q(&format!(
                "SELECT mcp.call_tool('{tool}', '{{}}', 'analyst')"
            ));
            run("RESET ROLE");
            assert_eq!(r["isError"], true, "{tool}: {r}");
            assert!(
                r["content"][0]["text"].as_str().unwrap().contains(NESTING),
                "{tool}: {r}"
            );
            let (status, state, _) = last_call();
            assert_eq!(
                (status.as_str(), state.as_deref()),
                ("denied", Some("42501")),
                "{tool}"
            );
            assert_eq!(calls(), n + 1, "{tool}");
        }
    }

    #[pg_test]
    fn sandbox_owner_switch_still_works_inside() {
        use crate::pg::as_extension_owner;
        run("DROP ROLE IF EXISTS mcp_plain");
        run("CREATE ROLE mcp_plain NOLOGIN");
        run("SET LOCAL ROLE mcp_plain");
        let me = unsafe { pg_sys::GetUserId() };
        let inside = crate::sandbox::run_sandboxed(crate::sandbox::GuardLevel::ReadOnly, || {
            let restricted = unsafe { pg_sys::InSecurityRestrictedOperation() };
            // the audit table is not readable by mcp_plain; as the owner it is writable
            let written = as_extension_owner(|| {
                Spi::get_one::<i64>(
                "INSERT INTO mcp.tool_call (tool, interface, role_name, status) VALUES ('x', 'y', 'mcp_plain', 'ok') RETURNING call_id",
            )
            });
            let after_owner =
                unsafe { (pg_sys::GetUserId(), pg_sys::InSecurityRestrictedOperation()) };
            (restricted, written, after_owner)
        });
        assert!(inside.0, "the tool runs as a security-restricted operation");
        assert!(matches!(inside.1, Ok(Some(_))), "{:?}", inside.1);
        assert_eq!(inside.2, (me, true), "back to the caller, still restricted");
        assert!(!unsafe { pg_sys::InSecurityRestrictedOperation() });
        assert_eq!(unsafe { pg_sys::GetUserId() }, me);
        assert!(!crate::sandbox::active());
        run("RESET ROLE");
    }

    #[pg_test]
    fn sql_tool_memory_is_bounded_by_what_is_shown() {
        sql_registry();
        // a 5 MB text value: only the first characters are read and shown
        let (err, text) =
            sql_as_analyst("SELECT repeat('x', 5000000) AS big, 'after' AS tail", None);
        assert!(!err, "{text}");
        assert!(
            text.contains(&format!("{}…", "x".repeat(500))),
            "{}",
            &text[..600]
        );
        assert!(!text.contains(&"x".repeat(501)));
        assert!(
            text.contains("| after |") && text.contains("1 long value clipped"),
            "{text}"
        );
        // a domain over text is sliced like text
        run("CREATE DOMAIN public.longtext AS text");
        let (err, text) = sql_as_analyst("SELECT repeat('q', 3000000)::public.longtext AS d", None);
        assert!(
            !err && text.contains(&format!("{}…", "q".repeat(500))),
            "{text}"
        );
        // values that need their whole output are not read above the budget: placeholder
        let (err, text) = sql_as_analyst(
        "SELECT to_jsonb(repeat('y', 2000000)) AS doc, array_fill(7, ARRAY[400000]) AS arr, 1 AS n",
        None,
    );
        assert!(!err, "{text}");
        assert!(text.contains("<jsonb not shown, 2000008 bytes>"), "{text}");
        assert!(text.contains("<integer[] not shown, "), "{text}");
        assert!(text.contains("| 1 |"), "{text}");
        // small JSON is still shown, clipped at 1,000 characters
        let (_, text) = sql_as_analyst(
            "SELECT jsonb_build_object('k', repeat('z', 3000)) AS doc",
            None,
        );
        assert!(
            text.contains("{\"k\": \"zzz") && !text.contains(&"z".repeat(1001)),
            "{text}"
        );
        // the result budget: rows stop where the rendered result would pass it, and the
        // metadata line says so
        run("SET LOCAL mcp.max_result_bytes = 20000");
        let (err, text) = sql_as_analyst(
            "SELECT g, repeat('w', 400) AS pad FROM generate_series(1, 100) g",
            Some(100),
        );
        assert!(!err, "{text}");
        assert!(
            text.contains("result size limit of 20000 bytes reached"),
            "{text}"
        );
        assert!(text.contains("more rows exist (narrow the query"), "{text}");
        let shown = text
            .lines()
            .filter(|l| l.starts_with("| ") && l.contains("www"))
            .count();
        assert!(
            (40..50).contains(&shown),
            "{shown} rows in {} bytes",
            text.len()
        );
        assert!(text.len() < 25_000, "{}", text.len());
        // a value larger than the whole budget is a placeholder even when small types fit
        let (_, text) = sql_as_analyst("SELECT to_jsonb(repeat('v', 30000)) AS doc", None);
        assert!(text.contains("<jsonb not shown, 30008 bytes>"), "{text}");
        // only a superuser may raise the budget
        let e = err_as_analyst("SET mcp.max_result_bytes = 100000000");
        assert!(e.contains("permission denied"), "{e}");
    }

    #[pg_test]
    fn function_tool_results_are_bounded_too() {
        demo_registry();
        run("CREATE FUNCTION public.big_text() RETURNS text LANGUAGE sql AS $$ SELECT repeat('t', 3000000) $$");
        run("CREATE FUNCTION public.big_doc() RETURNS jsonb LANGUAGE sql AS $$ SELECT jsonb_build_object('k', repeat('d', 3000000)) $$");
        run("CREATE FUNCTION public.two_long() RETURNS SETOF text LANGUAGE sql AS $$ SELECT repeat(c, 900) FROM unnest(ARRAY['a', 'b']) c $$");
        run(
            r#"INSERT INTO mcp.tool (name, description, parameters, function) VALUES
        ('big_text', 'x', '{"type":"object","properties":{}}', 'public.big_text()'),
        ('big_doc', 'x', '{"type":"object","properties":{}}', 'public.big_doc()'),
        ('two_long', 'x', '{"type":"object","properties":{}}', 'public.two_long()')"#,
        );
        run("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'big_text'), ('chatbot', 'big_doc'), ('chatbot', 'two_long')");
        // a lone text value: up to 20,000 characters
        let r = q("SELECT mcp.call_tool('big_text')");
        let text = r["content"][0]["text"].as_str().unwrap();
        assert_eq!(r["isError"], false, "{r}");
        assert_eq!(
            text.chars().count(),
            20_001,
            "20,000 characters and the ellipsis"
        );
        // a lone JSON document larger than the budget is not read
        let r = q("SELECT mcp.call_tool('big_doc')");
        assert_eq!(
            r["content"][0]["text"], "<jsonb not shown, 3000013 bytes>",
            "{r}"
        );
        assert!(r.get("structuredContent").is_none(), "{r}");
        // two rows: a table, each value clipped like any cell
        let r = q("SELECT mcp.call_tool('two_long')");
        let text = r["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains(&format!("| {}… |", "a".repeat(500))),
            "{text}"
        );
        assert!(
            text.contains(&format!("| {}… |", "b".repeat(500))),
            "{text}"
        );
        assert!(!text.contains(&"a".repeat(501)), "{text}");
    }

    #[pg_test]
    fn sandbox_levels_follow_the_tool_kind() {
        demo_registry();
        // a column default and a trigger that take session locks, reached by a function tool's INSERT
        run("CREATE TABLE public.with_default (id int, locked bool DEFAULT pg_try_advisory_lock(55))");
        run("CREATE TABLE public.with_trigger (id int)");
        run("CREATE FUNCTION public.lock_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_advisory_lock(56); RETURN NEW; END $$");
        run("CREATE TRIGGER t BEFORE INSERT ON public.with_trigger FOR EACH ROW EXECUTE FUNCTION public.lock_on_insert()");
        run("CREATE FUNCTION public.add_default() RETURNS int LANGUAGE sql AS 'INSERT INTO public.with_default (id) VALUES (1) RETURNING id'");
        run("CREATE FUNCTION public.add_trigger() RETURNS int LANGUAGE sql AS 'INSERT INTO public.with_trigger VALUES (1) RETURNING id'");
        run(
            r#"INSERT INTO mcp.tool (name, description, parameters, function, read_only) VALUES
        ('add_default_ro', 'x', '{"type":"object","properties":{}}', 'public.add_default()', true),
        ('add_trigger_ro', 'x', '{"type":"object","properties":{}}', 'public.add_trigger()', true),
        ('add_default_rw', 'x', '{"type":"object","properties":{}}', 'public.add_default()', false)"#,
        );
        run("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'add_default_ro'), ('chatbot', 'add_trigger_ro'), ('chatbot', 'add_default_rw')");
        run("SELECT pg_advisory_unlock_all()");
        // a function tool that declares itself read-only gets every denied class and runs in a
        // read-only subtransaction: its INSERT is refused by PostgreSQL (25006) before the
        // default or trigger that would take the lock runs
        for (tool, function) in [
            ("add_default_ro", "pg_try_advisory_lock"),
            ("add_trigger_ro", "pg_advisory_lock"),
        ] {
            let r = q(&format!("SELECT mcp.call_tool('{tool}')"));
            assert_eq!(r["isError"], true, "{tool}: {r}");
            let text = r["content"][0]["text"].as_str().unwrap();
            let (status, _, _) = last_call();
            assert!(
                (status == "denied"
                    && text.contains(&format!("The function {function} is not allowed")))
                    || status == "error",
                "{tool}: {status} {r}"
            );
            assert_eq!(advisory_locks(), 0, "{tool}");
        }
        // the denied classes themselves, in a read-only function tool that does not write
        run("CREATE FUNCTION public.lock_reader() RETURNS int LANGUAGE sql AS 'SELECT pg_try_advisory_lock(4711)::int'");
        run(
            r#"INSERT INTO mcp.tool (name, description, parameters, function) VALUES
               ('lock_reader_ro', 'x', '{"type":"object","properties":{}}', 'public.lock_reader()')"#,
        );
        run("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'lock_reader_ro')");
        let r = q("SELECT mcp.call_tool('lock_reader_ro')");
        assert!(
            r["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("The function pg_try_advisory_lock is not allowed"),
            "{r}"
        );
        assert_eq!(last_call().0, "denied");
        assert_eq!(advisory_locks(), 0);
        assert_eq!(
        Spi::get_one::<i64>("SELECT (SELECT count(*) FROM public.with_default) + (SELECT count(*) FROM public.with_trigger)").unwrap(),
        Some(0),
        "the refused calls wrote nothing"
    );
        // a function tool declared read_only = false runs the admin's function as written
        let r = q("SELECT mcp.call_tool('add_default_rw')");
        assert_eq!(r["isError"], false, "{r}");
        assert_eq!(
            Spi::get_one::<i64>("SELECT count(*) FROM public.with_default").unwrap(),
            Some(1)
        );
        assert_eq!(advisory_locks(), 1);
        run("SELECT pg_advisory_unlock_all()");
    }

    #[pg_test]
    fn function_tool_arguments_bind_to_the_function_types() {
        demo_registry();
        run("CREATE TYPE public.bind_pt AS (x int, label text)");
        run("CREATE DOMAIN public.bind_small AS int CHECK (VALUE < 100)");
        run(
            r#"CREATE FUNCTION public.bind_echo(p public.bind_pt, ids int[], doc json, n public.bind_small, flag boolean)
               RETURNS text LANGUAGE sql
               AS $$ SELECT format('%s|%s|%s|%s|%s|%s', (p).x + 1, (p).label, ids[2], doc->>'a', n, flag) $$"#,
        );
        run(
            r#"INSERT INTO mcp.tool (name, description, parameters, function) VALUES
            ('bind_echo', 'x', '{"type": "object", "properties": {
                "p": {"type": "object"}, "ids": {"type": "array", "items": {"type": "integer"}},
                "doc": {"type": "object"}, "n": {"type": "integer"}, "flag": {"type": "boolean"}},
                "required": ["p", "ids", "doc", "n", "flag"]}',
             'public.bind_echo(public.bind_pt, int[], json, public.bind_small, boolean)')"#,
        );
        run("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'bind_echo')");
        // a composite from an object (by field name), an array, json, a domain, a boolean: each
        // bound as the function's own argument type
        let r = q(
            r#"SELECT mcp.call_tool('bind_echo', '{"p": {"label": "a\"b", "x": 41}, "ids": [7, 8],
                      "doc": {"a": "z"}, "n": 5, "flag": true}')"#,
        );
        assert_eq!(r["isError"], false, "{r}");
        assert_eq!(r["content"][0]["text"], r#"42|a"b|8|z|5|t"#, "{r}");
        // the domain's check runs on the bound value: a tool error, SQLSTATE in the audit
        let r = q(
            r#"SELECT mcp.call_tool('bind_echo', '{"p": {"x": 1}, "ids": [], "doc": {}, "n": 500, "flag": false}')"#,
        );
        assert_eq!(r["isError"], true, "{r}");
        let state = Spi::get_one::<String>(
            "SELECT error_sqlstate FROM mcp.tool_call WHERE tool = 'bind_echo' ORDER BY call_id DESC LIMIT 1",
        )
        .unwrap();
        assert_eq!(state.as_deref(), Some("23514"));
    }
}
