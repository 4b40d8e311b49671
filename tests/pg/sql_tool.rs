// Read-only SQL tool, report tools, schema_information (issue 5). Included from mod.rs.
//
// The attack corpus: every case asserts the refusal (or the harmless outcome) AND that no data
// changed. Queries run as the non-superuser role mcp_analyst unless a test says otherwise.

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
    run("CREATE FUNCTION public.sneaky_insert() RETURNS int LANGUAGE plpgsql VOLATILE AS $$
         BEGIN INSERT INTO public.account VALUES (999, 'sneaky', 0); RETURN 1; END $$");
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

fn last_call_status() -> (String, Option<String>) {
    let (s, e) = Spi::get_two::<String, String>(
        "SELECT status, error_sqlstate FROM mcp.tool_call ORDER BY call_id DESC LIMIT 1",
    )
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
        ("SELECT pg_advisory_lock(42)", "pg_advisory_lock is not allowed"),
        ("SELECT pg_try_advisory_lock(42)", "pg_try_advisory_lock is not allowed"),
        ("SELECT pg_catalog.pg_advisory_lock_shared(1, 2)", "pg_advisory_lock_shared is not allowed"),
        ("SELECT pg_advisory_unlock_all()", "pg_advisory_unlock_all is not allowed"),
        ("SELECT * FROM public.account WHERE pg_try_advisory_lock(id)", "pg_try_advisory_lock"),
        ("SELECT pg_notify('chan', 'payload')", "pg_notify is not allowed"),
        ("SELECT pg_cancel_backend(pg_backend_pid())", "pg_cancel_backend is not allowed"),
        ("SELECT pg_terminate_backend(1)", "pg_terminate_backend is not allowed"),
        ("SELECT lo_import('/etc/passwd')", "lo_import is not allowed"),
        ("SELECT lo_export(1, '/tmp/x')", "lo_export is not allowed"),
        // hidden in a subquery, a CTE and a view are found too (the analyzed tree is walked)
        ("SELECT (SELECT pg_advisory_lock(7))", "pg_advisory_lock is not allowed"),
        ("WITH l AS (SELECT pg_advisory_lock(8)) SELECT * FROM l", "pg_advisory_lock is not allowed"),
    ] {
        assert_refused(query, why);
    }
    // A view wrapping the lock is expanded before the check.
    run("CREATE VIEW public.lock_view AS SELECT 1 AS l WHERE pg_try_advisory_lock(9)");
    run("GRANT SELECT ON public.lock_view TO mcp_analyst");
    assert_refused("SELECT * FROM public.lock_view", "pg_try_advisory_lock is not allowed");

    // dblink opens a second session that is not read-only: refused as a whole extension.
    run("CREATE EXTENSION IF NOT EXISTS dblink");
    run("GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO mcp_analyst");
    assert_refused(
        "SELECT * FROM dblink_exec('dbname=postgres', 'DELETE FROM public.account')",
        "(extension dblink) is not allowed",
    );
    assert_refused("SELECT dblink_connect('c', 'dbname=postgres')", "extension dblink");
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
    assert_engine_refuses("SELECT set_config('transaction_read_only', 'off', false)", "25001");
    assert_engine_refuses("SELECT set_config('transaction_read_only', 'off', true)", "25001");
    // server files and directories need privileges mcp_analyst does not have
    assert_engine_refuses("SELECT pg_read_file('/etc/passwd')", "42501");
    assert_engine_refuses("SELECT * FROM pg_ls_dir('.')", "42501");
    // large objects: unlinking one the role does not own
    run("SELECT lo_create(424242)");
    assert_engine_refuses("SELECT lo_unlink(424242)", "42501");
    // a table without a grant
    assert_engine_refuses("SELECT * FROM public.hidden", "42501");
    assert_engine_refuses("SELECT invisible FROM public.partly", "42501");
    // the outer transaction is still writable and unchanged afterwards
    run("INSERT INTO public.ledger VALUES (1, 1, 'after the attacks')");
    assert_eq!(
        Spi::get_one::<String>("SELECT current_setting('transaction_read_only')").unwrap().as_deref(),
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
    run("CREATE FUNCTION public.fill_scratch() RETURNS bigint LANGUAGE plpgsql AS $$
         BEGIN INSERT INTO scratch VALUES (1); RETURN (SELECT count(*) FROM scratch); END $$");
    run("GRANT EXECUTE ON FUNCTION public.fill_scratch() TO mcp_analyst");
    let (err, text) = sql_as_analyst("SELECT public.fill_scratch() AS rows_inside", None);
    assert!(!err, "{text}");
    assert!(text.contains("| 1 |"), "the write happened inside the tool: {text}");
    assert_eq!(Spi::get_one::<i64>("SELECT count(*) FROM scratch").unwrap(), Some(0));
    // row-level security applies: only the analyst's own note is visible
    let (err, text) = sql_as_analyst("SELECT id, body FROM public.notes ORDER BY id", None);
    assert!(!err, "{text}");
    assert!(text.contains("mine") && !text.contains("private note"), "{text}");
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
    assert!(text.contains("25 rows") && text.contains("more rows exist"), "{text}");
    assert_eq!(text.matches("\n| ").count(), 25, "{text}"); // 25 row lines after the header
    let (_, text) = sql_as_analyst("SELECT generate_series(1, 10000000) AS g", Some(5));
    assert!(text.contains("5 rows") && text.contains("more rows exist"), "{text}");
    // above the operator maximum: clipped and said so
    let (_, text) = sql_as_analyst("SELECT g FROM generate_series(1, 1000) g", Some(100_000));
    assert!(text.contains("500 rows"), "{text}");
    assert!(text.contains("100000"), "{text}");
    // exactly the limit: no "more rows"
    let (_, text) = sql_as_analyst("SELECT g FROM generate_series(1, 25) g", None);
    assert!(text.contains("25 rows") && !text.contains("more rows exist"), "{text}");
    // invalid max_rows
    let (err, text) = sql_as_analyst("SELECT 1", Some(0));
    assert!(err && text.contains("max_rows"), "{text}");

    // pg_sleep(3600) ends at the tool's own time limit, as a tool error (the statement goes on)
    run("UPDATE mcp.tool SET timeout_ms = 200 WHERE name = 'sql_query'");
    let started = std::time::Instant::now();
    let (err, text) = sql_as_analyst("SELECT pg_sleep(3600)", None);
    assert!(err, "{text}");
    assert!(text.contains("time limit"), "{text}");
    assert!(started.elapsed().as_secs() < 60, "the time limit did not end the query");
    let (status, state) = last_call_status();
    assert_eq!((status.as_str(), state.as_deref()), ("error", Some("57014")));
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
    assert!(!Spi::get_one::<String>("SELECT current_setting('application_name')")
        .unwrap()
        .unwrap_or_default()
        .starts_with("mcp:"));
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
    assert!(text.contains("syntax error") && text.contains("call id"), "{text}");
    let (err, text) = sql_as_analyst("SELECT secret_column FROM public.account", None);
    assert!(err);
    assert!(text.contains("column that does not exist"), "{text}");
    assert!(!text.contains("secret_column"), "the model must not get the server message: {text}");
    let (state, msg) = Spi::get_two::<String, String>(
        "SELECT error_sqlstate, error_message FROM mcp.tool_call ORDER BY call_id DESC LIMIT 1",
    )
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
    assert!(r["content"][0]["text"].as_str().unwrap().contains("superuser"), "{r}");
    assert_eq!(last_call_status().0, "denied");
    run("SET LOCAL mcp.allow_superuser_sql = on");
    let r = q(call);
    assert_eq!(r["isError"], false, "{r}");
    assert!(r["content"][0]["text"].as_str().unwrap().contains("| 1"), "{r}");
    // only a superuser may change the setting
    run("RESET mcp.allow_superuser_sql");
    run("SET LOCAL ROLE mcp_analyst");
    let e = err_of("SET mcp.allow_superuser_sql = on");
    run("RESET ROLE");
    assert!(e.contains("permission denied"), "{e}");
}

#[pg_test]
fn report_tools_bind_typed_parameters() {
    sql_registry();
    run(r#"INSERT INTO mcp.tool (name, description, parameters, kind, body) VALUES
        ('rich_accounts', 'Accounts of an owner above a balance',
         '{"type": "object", "properties": {
             "owner": {"type": "string"}, "min_balance": {"type": "number"},
             "ids": {"type": "array", "items": {"type": "integer"}}},
           "required": ["owner", "min_balance"]}',
         'report',
         'SELECT id, balance FROM public.account
           WHERE balance >= $2 AND owner = $3 AND ($1::bigint[] IS NULL OR id = ANY ($1))
           ORDER BY id')"#);
    run("INSERT INTO mcp.interface_tool VALUES ('analyst', 'rich_accounts')");
    run("SET LOCAL ROLE mcp_analyst");
    let r = q(r#"SELECT mcp.call_tool('rich_accounts', '{"owner": "owner1", "min_balance": 300}', 'analyst')"#);
    let text = r["content"][0]["text"].as_str().unwrap().to_string();
    assert_eq!(r["isError"], false, "{r}");
    assert!(text.contains("| 31 ") && text.contains("| 40 ") && !text.contains("| 28 "), "{text}");
    assert!(text.contains("4 rows"), "{text}");
    let r = q(r#"SELECT mcp.call_tool('rich_accounts', '{"owner": "owner1", "min_balance": 0, "ids": [1, 4, 7]}', 'analyst')"#);
    let text = r["content"][0]["text"].as_str().unwrap().to_string();
    assert!(text.contains("3 rows"), "{text}");
    // values are bound, never spliced: an injection attempt is just a string that matches nothing
    let r = q(r#"SELECT mcp.call_tool('rich_accounts', '{"owner": "x'' OR ''1''=''1", "min_balance": 0}', 'analyst')"#);
    assert!(r["content"][0]["text"].as_str().unwrap().contains("0 rows"), "{r}");
    run("RESET ROLE");
    // report bodies run read-only as well
    run(r#"INSERT INTO mcp.tool (name, description, parameters, kind, body) VALUES
        ('sneaky_report', 'calls a writer', '{"type": "object", "properties": {}}', 'report',
         'SELECT public.sneaky_insert()')"#);
    run("INSERT INTO mcp.interface_tool VALUES ('analyst', 'sneaky_report')");
    let before = data_fingerprint();
    run("SET LOCAL ROLE mcp_analyst");
    let r = q("SELECT mcp.call_tool('sneaky_report', '{}', 'analyst')");
    run("RESET ROLE");
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(last_call_status(), ("error".to_string(), Some("25006".to_string())));
    assert_eq!(data_fingerprint(), before);
}

#[pg_test]
fn report_bodies_are_checked_at_registration() {
    sql_registry();
    for (body, why) in [
        ("DELETE FROM public.account", "body refused: Only queries are allowed"),
        ("SELECT 1; SELECT 2", "Exactly one statement"),
        ("SELECT * FROM public.no_such_table", "body does not analyze"),
        ("SELECT $2::text", "body does not analyze"),
        ("SELECT pg_advisory_lock(1)", "pg_advisory_lock is not allowed"),
    ] {
        let e = err_of(&format!(
            r#"INSERT INTO mcp.tool (name, description, parameters, kind, body) VALUES
               ('bad_report', 'x', '{{"type": "object", "properties": {{"a": {{"type": "string"}}}}}}', 'report', $b${body}$b$)"#
        ));
        assert!(e.contains("23514") || e.contains("check_violation") || e.contains("refused"), "{e}");
        assert!(e.contains(why), "{body}: expected {why} in {e}");
    }
    // a built-in without a function must be one pg_mcp implements
    let e = err_of(r#"INSERT INTO mcp.tool (name, description, kind) VALUES ('my_builtin', 'x', 'builtin')"#);
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
    assert!(text.contains("public.account (table) — Customer accounts"), "{text}");
    assert!(text.contains("  id integer PK"), "{text}");
    assert!(text.contains("  balance numeric — Balance in EUR"), "{text}");
    assert!(text.contains("  owner text NOT NULL"), "{text}");
    assert!(text.contains("FK (account_id) REFERENCES account(id)"), "{text}");
    assert!(text.contains("public.partly") && text.contains("  visible text"), "{text}");
    assert!(!text.contains("invisible"), "column without privilege shown: {text}");
    assert!(!text.contains("public.hidden"), "table without privilege shown: {text}");
    assert!(!text.contains("mcp.tool"), "pg_mcp's own tables are not listed: {text}");
    assert!(!text.contains("pg_class"), "{text}");
    // filter
    run("SET LOCAL ROLE mcp_analyst");
    let r = q(r#"SELECT mcp.call_tool('schema_information', '{"table": "ledger"}', 'analyst')"#);
    run("RESET ROLE");
    let text = r["content"][0]["text"].as_str().unwrap().to_string();
    assert!(text.starts_with("public.ledger (table)") && !text.contains("public.account ("), "{text}");
    let r = q(r#"SELECT mcp.call_tool('schema_information', '{"schema": "nope"}', 'analyst')"#);
    assert!(r["content"][0]["text"].as_str().unwrap().starts_with("No tables"), "{r}");
}

#[pg_test]
fn function_tools_get_the_time_limit_and_the_call_id_tag() {
    demo_registry();
    run("CREATE FUNCTION public.slow(s float8) RETURNS text LANGUAGE sql AS $$ SELECT pg_sleep(s)::text $$");
    run("CREATE FUNCTION public.app() RETURNS text LANGUAGE sql AS $$ SELECT current_setting('application_name') $$");
    run(r#"INSERT INTO mcp.tool (name, description, parameters, function, timeout_ms) VALUES
        ('slow', 'sleeps', '{"type":"object","properties":{"s":{"type":"number"}},"required":["s"]}', 'public.slow(float8)', 200),
        ('app', 'tag', '{"type":"object","properties":{}}', 'public.app()', NULL)"#);
    run("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'slow'), ('chatbot', 'app')");
    let r = q(r#"SELECT mcp.call_tool('slow', '{"s": 3600}')"#);
    assert_eq!(r["isError"], true, "{r}");
    assert!(r["content"][0]["text"].as_str().unwrap().contains("time limit"), "{r}");
    let r = q("SELECT mcp.call_tool('app')");
    let tag = r["content"][0]["text"].as_str().unwrap().to_string();
    let last = Spi::get_one::<i64>("SELECT max(call_id) FROM mcp.tool_call").unwrap().unwrap();
    assert_eq!(tag, format!("mcp:call:{last}"));
}
