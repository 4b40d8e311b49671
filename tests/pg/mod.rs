// In-database tests (#[pg_test]); included into src/lib.rs's `tests` module.
// Each test runs in its own transaction that pgrx rolls back.
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::{json, Value};

fn q(sql: &str) -> Value {
    Spi::get_one::<JsonB>(sql)
        .expect("query ok")
        .expect("not null")
        .0
}

fn run(sql: &str) {
    Spi::run(sql).expect("statement ok")
}

/// A small domain: a table, a tool function, an interface.
fn demo_registry() {
    run("CREATE TABLE public.tarif (id int PRIMARY KEY, gebiet text, bereich text, titel text)");
    run("INSERT INTO public.tarif VALUES (1,'Bayern','Metall','MTV Metall Bayern'), (2,'NRW','Chemie','MTV Chemie NRW')");
    run("CREATE FUNCTION public.get_tarif(tarifgebiet text, fachbereich text, max_rows int DEFAULT 10)
         RETURNS jsonb LANGUAGE sql STABLE AS $$
           SELECT coalesce(jsonb_agg(jsonb_build_object('id', id, 'titel', titel) ORDER BY id), '[]')
             FROM public.tarif WHERE gebiet = tarifgebiet AND bereich = fachbereich LIMIT max_rows $$");
    run(
        "CREATE FUNCTION public.fail_tool(x int) RETURNS text LANGUAGE plpgsql AS $$
         BEGIN RAISE EXCEPTION 'secret internal detail %', x USING ERRCODE = 'P0001'; END $$",
    );
    run(
        "CREATE FUNCTION public.list_tarif() RETURNS SETOF public.tarif LANGUAGE sql STABLE AS
         $$ SELECT * FROM public.tarif ORDER BY id $$",
    );
    run("INSERT INTO mcp.interface (name) VALUES ('chatbot'), ('analysis')");
    run(
        r#"INSERT INTO mcp.tool (name, description, parameters, function) VALUES
        ('getTarifVertrag', 'Tarifverträge nach Gebiet und Bereich',
         '{"type":"object","properties":{"tarifgebiet":{"type":"string"},"fachbereich":{"type":"string"},
           "max_rows":{"type":"integer","minimum":1}},"required":["tarifgebiet","fachbereich"]}',
         'public.get_tarif(text,text,int)'),
        ('failTool', 'always fails', '{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}',
         'public.fail_tool(int)'),
        ('listTarif', 'all', '{"type":"object","properties":{}}', 'public.list_tarif()')"#,
    );
    run("INSERT INTO mcp.interface_tool VALUES ('chatbot','getTarifVertrag'), ('chatbot','failTool'),
         ('chatbot','listTarif'), ('chatbot','getDialog')");
}

fn err_of(sql: &str) -> String {
    // Run in a subtransaction so the error does not abort the test transaction; every error,
    // query cancel included, comes back as "SQLSTATE: message".
    match crate::pg_util::in_subtransaction_catch_all(|| Spi::run(sql)) {
        Ok(Ok(())) => String::new(),
        Ok(Err(e)) => e.to_string(),
        Err(info) => format!("{}: {}", info.sqlstate, info.message),
    }
}

#[pg_test]
fn list_tools_shapes_and_order() {
    demo_registry();
    let openai = q("SELECT mcp.list_tools()");
    let names: Vec<&str> = openai
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["failTool", "getDialog", "getTarifVertrag", "listTarif"]
    );
    for t in openai.as_array().unwrap() {
        // OpenAI tools shape
        assert_eq!(t["type"], "function");
        let f = t["function"].as_object().unwrap();
        assert_eq!(f.len(), 3);
        assert!(f["name"].is_string() && f["description"].is_string());
        assert_eq!(f["parameters"]["type"], "object");
    }
    let mcp = q("SELECT mcp.list_tools('chatbot', 'mcp')");
    for t in mcp.as_array().unwrap() {
        // MCP Tool shape: name, description, inputSchema (type object), optional annotations
        assert!(t["name"].is_string() && t["description"].is_string());
        assert_eq!(t["inputSchema"]["type"], "object");
        assert!(t["annotations"]["readOnlyHint"].is_boolean());
    }
    let anth = q("SELECT mcp.list_tools('chatbot', 'anthropic')");
    assert_eq!(anth[0]["input_schema"]["type"], "object");
    assert_eq!(q("SELECT mcp.list_tools('analysis')"), json!([]));
}

#[pg_test]
fn list_tools_unknown_interface_and_format() {
    demo_registry();
    assert_eq!(
        err_of("SELECT mcp.list_tools('nope')"),
        "42704: interface \"nope\" does not exist"
    );
    assert!(err_of("SELECT mcp.list_tools('chatbot', 'xml')")
        .starts_with("22023: unknown tool list format"));
}

#[pg_test]
fn disabled_and_unmapped_tools_are_not_listed() {
    demo_registry();
    run("UPDATE mcp.tool SET enabled = false WHERE name = 'failTool'");
    run("DELETE FROM mcp.interface_tool WHERE tool = 'listTarif'");
    let names = q(
        "SELECT jsonb_agg(t->'function'->>'name') FROM jsonb_array_elements(mcp.list_tools()) t",
    );
    assert_eq!(names, json!(["getDialog", "getTarifVertrag"]));
    let r = q("SELECT mcp.call_tool('failTool', '{\"x\":1}')");
    assert_eq!(r["isError"], true);
    assert!(r["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("not available"));
}

#[pg_test]
fn roles_see_different_tools() {
    demo_registry();
    run("CREATE ROLE mcp_t_analyst");
    run("CREATE ROLE mcp_t_guest");
    // both may use the interface: what differs is EXECUTE on the function
    run("UPDATE mcp.interface SET access_role = 'public' WHERE name = 'chatbot'");
    run("REVOKE EXECUTE ON FUNCTION public.get_tarif(text,text,int) FROM PUBLIC");
    run("GRANT EXECUTE ON FUNCTION public.get_tarif(text,text,int) TO mcp_t_analyst");
    run("GRANT SELECT ON public.tarif TO mcp_t_analyst");
    run("SET LOCAL ROLE mcp_t_analyst");
    let a = q(
        "SELECT jsonb_agg(t->'function'->>'name') FROM jsonb_array_elements(mcp.list_tools()) t",
    );
    let ok = q("SELECT mcp.call_tool('getTarifVertrag', '{\"tarifgebiet\":\"Bayern\",\"fachbereich\":\"Metall\"}')");
    run("RESET ROLE");
    run("SET LOCAL ROLE mcp_t_guest");
    let g = q(
        "SELECT jsonb_agg(t->'function'->>'name') FROM jsonb_array_elements(mcp.list_tools()) t",
    );
    let denied = q("SELECT mcp.call_tool('getTarifVertrag', '{\"tarifgebiet\":\"Bayern\",\"fachbereich\":\"Metall\"}')");
    run("RESET ROLE");
    assert!(a.as_array().unwrap().contains(&json!("getTarifVertrag")));
    assert!(!g.as_array().unwrap().contains(&json!("getTarifVertrag")));
    assert_eq!(ok["isError"], false);
    assert_eq!(
        ok["structuredContent"]["result"][0]["titel"],
        "MTV Metall Bayern"
    );
    assert_eq!(denied["isError"], true);
    let status = Spi::get_one::<String>(
        "SELECT status || '/' || role_name FROM mcp.tool_call WHERE tool = 'getTarifVertrag' ORDER BY call_id DESC LIMIT 1",
    )
    .unwrap()
    .unwrap();
    assert_eq!(status, "denied/mcp_t_guest");
}

#[pg_test]
fn call_tool_success_binds_by_name() {
    demo_registry();
    let r = q(
        r#"SELECT mcp.call_tool('getTarifVertrag', '{"fachbereich":"Chemie","tarifgebiet":"NRW","max_rows":5}')"#,
    );
    assert_eq!(r["isError"], false);
    assert_eq!(r["content"][0]["type"], "text");
    assert_eq!(
        r["structuredContent"],
        json!({"result": [{"id": 2, "titel": "MTV Chemie NRW"}]})
    );
    // A string value is data, never SQL.
    let r = q(
        r#"SELECT mcp.call_tool('getTarifVertrag', '{"fachbereich":"x'');DROP TABLE public.tarif;--","tarifgebiet":"NRW"}')"#,
    );
    assert_eq!(r["isError"], false);
    assert_eq!(
        Spi::get_one::<i64>("SELECT count(*) FROM public.tarif").unwrap(),
        Some(2)
    );
}

#[pg_test]
fn call_tool_set_returning_renders_table() {
    demo_registry();
    let r = q("SELECT mcp.call_tool('listTarif', '{}')");
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("| id | gebiet | bereich | titel |"), "{text}");
    assert!(text.contains("MTV Chemie NRW"));
    assert_eq!(r["structuredContent"]["row_count"], 2);
    assert_eq!(r["structuredContent"]["more_rows"], false);
    run("SET LOCAL mcp.default_rows = 1");
    let r = q("SELECT mcp.call_tool('listTarif', '{}')");
    assert_eq!(r["structuredContent"]["row_count"], 1);
    assert_eq!(r["structuredContent"]["more_rows"], true);
}

#[pg_test]
fn validation_error_kinds() {
    demo_registry();
    let v = |args: &str| {
        q(&format!(
            "SELECT mcp.validate_arguments('getTarifVertrag', '{args}')"
        ))
    };
    assert_eq!(
        v(r#"{"tarifgebiet":"NRW","fachbereich":"Chemie"}"#),
        json!([])
    );
    let missing = v(r#"{"fachbereich":"Chemie"}"#);
    assert_eq!(missing[0]["kind"], "missing");
    assert_eq!(missing[0]["message"], "parameter 'tarifgebiet' missing");
    let typ = v(r#"{"tarifgebiet":"NRW","fachbereich":"Chemie","max_rows":"25"}"#);
    assert_eq!(typ[0]["kind"], "type");
    assert!(typ[0]["message"]
        .as_str()
        .unwrap()
        .contains("must be an integer"));
    let unknown = v(r#"{"tarifgebiet":"NRW","fachbereich":"Chemie","foo":1}"#);
    assert_eq!(unknown[0]["kind"], "unknown");
    let range = v(r#"{"tarifgebiet":"NRW","fachbereich":"Chemie","max_rows":0}"#);
    assert_eq!(range[0]["kind"], "range");
    run(
        r#"UPDATE mcp.tool SET parameters = '{"type":"object","properties":{"tarifgebiet":{"type":"string","enum":["NRW","Bayern"]},
          "fachbereich":{"type":"string"},"max_rows":{"type":"integer"}},"required":["tarifgebiet","fachbereich"]}'
          WHERE name = 'getTarifVertrag'"#,
    );
    let en = v(r#"{"tarifgebiet":"Hessen","fachbereich":"Chemie"}"#);
    assert_eq!(en[0]["kind"], "enum");
    // call_tool refuses invalid arguments without running the function
    let r = q(r#"SELECT mcp.call_tool('getTarifVertrag', '{"fachbereich":"Chemie"}')"#);
    assert_eq!(r["isError"], true);
    assert!(r["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("Tool call failed: parameter 'tarifgebiet' missing"));
    let st =
        Spi::get_one::<String>("SELECT status FROM mcp.tool_call ORDER BY call_id DESC LIMIT 1")
            .unwrap();
    assert_eq!(st.as_deref(), Some("invalid"));
    assert_eq!(
        err_of("SELECT mcp.validate_arguments('nope', '{}')"),
        "42704: tool \"nope\" does not exist"
    );
}

#[pg_test]
fn failing_tool_is_error_with_detail_in_log() {
    demo_registry();
    let r = q(r#"SELECT mcp.call_tool('failTool', '{"x": 42}')"#);
    assert_eq!(r["isError"], true);
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(
        !text.contains("secret internal detail"),
        "detail leaked: {text}"
    );
    assert!(text.contains("call id"));
    let (state, msg) = Spi::get_two::<String, String>(
        "SELECT error_sqlstate, error_message FROM mcp.tool_call WHERE tool = 'failTool' ORDER BY call_id DESC LIMIT 1",
    )
    .unwrap();
    assert_eq!(state.as_deref(), Some("P0001"));
    assert_eq!(msg.as_deref(), Some("secret internal detail 42"));
    // The transaction is still usable after the failed tool.
    assert_eq!(Spi::get_one::<i32>("SELECT 1").unwrap(), Some(1));
}

#[pg_test]
fn bad_tool_rows_are_refused() {
    demo_registry();
    let e = err_of(
        r#"INSERT INTO mcp.tool (name, description, parameters, function)
        VALUES ('bad', 'x', '{"type":"object","properties":{"a":{"type":"strin"}}}', 'public.fail_tool(int)')"#,
    );
    assert!(
        e.starts_with("23514: tool \"bad\" refused: parameters is not a valid JSON Schema"),
        "{e}"
    );
    let e = err_of(
        r#"INSERT INTO mcp.tool (name, description, parameters, function)
        VALUES ('nofn', 'x', '{"type":"object"}', 'public.does_not_exist(int)')"#,
    );
    assert!(
        e.contains("does_not_exist") && e.contains("does not exist"),
        "{e}"
    );
    let e = err_of(
        r#"INSERT INTO mcp.tool (name, description, parameters, function)
        VALUES ('bad name!', 'x', '{"type":"object"}', 'public.list_tarif()')"#,
    );
    assert!(
        e.starts_with("23514") && e.contains("tool_name_format"),
        "{e}"
    );
    let e = err_of(
        r#"INSERT INTO mcp.tool (name, description, parameters, function)
        VALUES ('mismatch', 'x', '{"type":"object","properties":{"y":{"type":"integer"}},"required":["y"]}', 'public.fail_tool(int)')"#,
    );
    assert!(
        e.contains("required property 'y' has no matching argument"),
        "{e}"
    );
    assert!(
        e.contains("argument 'x' of public.fail_tool(integer) has no default"),
        "{e}"
    );
    let e = err_of(
        r#"INSERT INTO mcp.tool (name, description, parameters) VALUES ('nofunc', 'x', '{"type":"object"}')"#,
    );
    assert!(
        e.contains("a tool of kind 'function' needs a function"),
        "{e}"
    );
}

#[pg_test]
fn api_key_is_not_readable_by_other_roles() {
    run("INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('p1', 'openai', 'http://127.0.0.1:9/v1', 'm')");
    run("SELECT mcp.set_api_key('p1', 'sk-test-DO-NOT-LEAK-123')");
    assert_eq!(
        Spi::get_one::<bool>("SELECT mcp.has_api_key('p1')").unwrap(),
        Some(true)
    );
    run("CREATE ROLE mcp_t_nosy");
    run("SET LOCAL ROLE mcp_t_nosy");
    let e1 = err_of("SELECT * FROM mcp.provider_secret");
    let e2 = err_of("SELECT mcp.set_api_key('p1', 'sk-evil')");
    let visible = Spi::get_one::<JsonB>("SELECT to_jsonb(p) FROM mcp.provider p WHERE name = 'p1'")
        .unwrap()
        .unwrap()
        .0;
    run("RESET ROLE");
    assert!(e1.starts_with("42501"), "{e1}");
    assert!(e2.starts_with("42501"), "{e2}");
    assert!(!visible.to_string().contains("sk-test"));
    let e3 = err_of("SELECT mcp.set_api_key('nope', 'sk-test-DO-NOT-LEAK-123')");
    assert!(e3.starts_with("42704") && !e3.contains("sk-test"), "{e3}");
}

#[pg_test]
fn registry_tables_and_functions_are_commented() {
    let missing = Spi::get_one::<i64>(
        "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = 'mcp' AND c.relkind = 'r' AND obj_description(c.oid, 'pg_class') IS NULL",
    )
    .unwrap();
    assert_eq!(missing, Some(0));
    let cols = Spi::get_one::<i64>(
        "SELECT count(*) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
           JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = 'mcp' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
            AND col_description(c.oid, a.attnum) IS NULL",
    )
    .unwrap();
    assert_eq!(cols, Some(0));
    let funcs = Spi::get_one::<String>(
        "SELECT string_agg(p.oid::regprocedure::text, ', ') FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
          WHERE n.nspname = 'mcp' AND obj_description(p.oid, 'pg_proc') IS NULL",
    )
    .unwrap();
    assert_eq!(funcs, None, "functions without comment");
}

#[pg_test]
fn repair_json_sql_surface() {
    assert_eq!(q(r#"SELECT mcp.repair_json('{"a": 1}')"#), json!({"a": 1}));
    assert_eq!(
        Spi::get_one::<JsonB>("SELECT mcp.repair_json(NULL)")
            .unwrap()
            .map(|j| j.0),
        None
    );
    let rep = q(r#"SELECT mcp.repair_json_report('{"a": 1}')"#);
    assert_eq!(
        rep,
        json!({"value": {"a": 1}, "repaired": false, "fixes": []})
    );
}

// ------------------------------------------------------------------------------------------
// mcp.chat against the loopback mock LLM started by pg_test::setup
// ------------------------------------------------------------------------------------------

/// A provider pointing at one mock scenario, with a distinctive key.
fn chat_registry(scenario: &str) {
    demo_registry();
    let base = Spi::get_one::<String>("SELECT current_setting('pg_mcp_test.mock_url')")
        .unwrap()
        .unwrap();
    Spi::run_with_args(
        "INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('mock', 'openai', $1, 'gpt-4o-mini')",
        &[format!("{base}/s/{scenario}/v1").into()],
    )
    .unwrap();
    run("SELECT mcp.set_api_key('mock', 'sk-pgtest-SECRET-9f8e7d')");
    run("UPDATE mcp.interface SET provider = 'mock' WHERE name = 'chatbot'");
}

fn no_secret_in_audit() {
    let leaks = Spi::get_one::<i64>(
        "SELECT (SELECT count(*) FROM mcp.llm_request r WHERE r::text LIKE '%SECRET-9f8e7d%')
              + (SELECT count(*) FROM mcp.tool_call t WHERE t::text LIKE '%SECRET-9f8e7d%')
              + (SELECT count(*) FROM mcp.run r WHERE r::text LIKE '%SECRET-9f8e7d%')
              + (SELECT count(*) FROM mcp.message m WHERE m::text LIKE '%SECRET-9f8e7d%')",
    )
    .unwrap();
    assert_eq!(leaks, Some(0));
}

#[pg_test]
fn chat_other_provider_needs_provider_privilege() {
    chat_registry("tool_then_answer");
    run("INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('premium', 'openai', 'http://127.0.0.1:9/v1', 'gpt-4o')");
    run("DROP ROLE IF EXISTS mcp_chatter");
    run("CREATE ROLE mcp_chatter NOLOGIN");
    run("GRANT EXECUTE ON FUNCTION public.get_tarif(text, text, int) TO mcp_chatter");
    run("UPDATE mcp.interface SET access_role = 'mcp_chatter' WHERE name = 'chatbot'");
    run("SET LOCAL ROLE mcp_chatter");
    let e = err_of(r#"SELECT mcp.chat('hi', 'chatbot', NULL, '{"provider": "premium"}')"#);
    // naming the interface's own provider is fine
    let r = q(r#"SELECT mcp.chat('Welche Tarifverträge gelten für Metall in Bayern?', 'chatbot', NULL, '{"provider": "mock"}')"#);
    run("RESET ROLE");
    assert!(e.starts_with("42501") && e.contains("UPDATE on mcp.provider"), "{e}");
    assert_eq!(r["status"], "completed", "{r}");
    // a role that manages providers may choose any (it reaches the unreachable provider)
    run("SET LOCAL mcp.http_retries = 0");
    let r = q(r#"SELECT mcp.chat('hi', 'chatbot', NULL, '{"provider": "premium"}')"#);
    assert_eq!(r["status"], "failed", "{r}");
}

#[pg_test]
fn chat_runs_tool_and_answers() {
    chat_registry("tool_then_answer");
    let r = q("SELECT mcp.chat('Welche Tarifverträge gelten für Metall in Bayern?')");
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(r["tool_calls"], 1);
    assert_eq!(r["iterations"], 2);
    assert_eq!(r["usage"]["prompt_tokens"], 250);
    // the answer echoes the tool result: the tool really ran against the table
    assert!(
        r["answer"].as_str().unwrap().contains("MTV Metall Bayern"),
        "{r}"
    );
    let run_id = r["run_id"].as_str().unwrap().to_string();
    let counts = Spi::get_one_with_args::<String>(
        "SELECT (SELECT status FROM mcp.run WHERE run_id = $1::uuid) || '/' ||
                (SELECT count(*) FROM mcp.llm_request WHERE run_id = $1::uuid) || '/' ||
                (SELECT count(*) FROM mcp.tool_call WHERE run_id = $1::uuid AND status = 'ok') || '/' ||
                (SELECT count(*) FROM mcp.message WHERE run_id = $1::uuid)",
        &[run_id.into()],
    )
    .unwrap()
    .unwrap();
    assert_eq!(counts, "completed/2/1/4");
    no_secret_in_audit();
}

#[pg_test]
fn chat_parallel_calls_and_correction_round_trip() {
    chat_registry("parallel");
    let r = q("SELECT mcp.chat('zwei Fragen')");
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(r["tool_calls"], 2);
    run("UPDATE mcp.provider SET base_url = replace(base_url, '/s/parallel/', '/s/bad_args/')");
    let r = q("SELECT mcp.chat('falsche Argumente')");
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(r["tool_calls"], 1);
    assert_eq!(r["rejected_tool_calls"], 1);
    let st = Spi::get_one::<String>(
        "SELECT string_agg(status, ',' ORDER BY call_id) FROM mcp.tool_call WHERE run_id = (SELECT run_id FROM mcp.run ORDER BY started_at DESC LIMIT 1)",
    )
    .unwrap();
    assert_eq!(st.as_deref(), Some("invalid,ok"));
}

#[pg_test]
fn chat_get_dialog_needs_input_then_continues() {
    chat_registry("dialog");
    let r = q("SELECT mcp.chat('Welcher Tarifvertrag gilt für Metall?')");
    assert_eq!(r["status"], "needs_input", "{r}");
    let session = r["session_id"].as_str().unwrap().to_string();
    let r2 = Spi::get_one_with_args::<JsonB>(
        "SELECT mcp.chat('Bayern', 'chatbot', $1::uuid)",
        &[session.clone().into()],
    )
    .unwrap()
    .unwrap()
    .0;
    assert_eq!(r2["status"], "completed", "{r2}");
    assert_eq!(r2["session_id"], session);
    assert_eq!(r2["answer"], "Für Bayern gilt der MTV Metall Bayern.");
    // another role cannot continue this session: to it, the session does not exist
    run("CREATE ROLE mcp_t_other");
    run("GRANT SELECT ON ALL TABLES IN SCHEMA public TO mcp_t_other");
    run("UPDATE mcp.interface SET access_role = 'mcp_t_other' WHERE name = 'chatbot'");
    run("SET LOCAL ROLE mcp_t_other");
    let e = err_of(&format!("SELECT mcp.chat('x', 'chatbot', '{session}')"));
    run("RESET ROLE");
    assert_eq!(e, format!("42704: chat session {session} does not exist"));
}

#[pg_test]
fn chat_loop_detection_and_provider_error() {
    chat_registry("looping");
    let r = q("SELECT mcp.chat('loop')");
    assert_eq!(r["status"], "loop_detected", "{r}");
    run("UPDATE mcp.provider SET base_url = replace(base_url, '/s/looping/', '/s/server_error/')");
    run("SET LOCAL mcp.http_retries = 0");
    let r = q("SELECT mcp.chat('fail')");
    assert_eq!(r["status"], "failed", "{r}");
    assert_eq!(r["error"]["kind"], "server", "{r}");
    let r = q("SELECT mcp.chat('no tools', options => '{\"max_iterations\": 1}')");
    assert_eq!(r["status"], "failed");
    no_secret_in_audit();
}

#[pg_test]
fn chat_statement_timeout_cancels_waiting_request() {
    chat_registry("never");
    let started = std::time::Instant::now();
    // What PostgreSQL does at the start of a statement with statement_timeout = 300ms:
    // (utils/timeout.h is not in pgrx's bindings; STATEMENT_TIMEOUT is the 4th TimeoutId.)
    extern "C-unwind" {
        fn enable_timeout_after(id: std::ffi::c_int, delay_ms: std::ffi::c_int);
    }
    unsafe { enable_timeout_after(3, 300) };
    let e = err_of("SELECT mcp.chat('hang')");
    let elapsed = started.elapsed();
    assert!(e.starts_with("57014"), "{e}");
    // liveness bound, not a benchmark: the request must not wait for the HTTP timeout (120 s)
    assert!(elapsed < std::time::Duration::from_secs(10), "{elapsed:?}");
}

// More mcp.chat tests: providers, mock faults, stops, tool_choice, pruning, operator views.
include!("chat_more.rs");

// The read-only SQL tool, report tools, schema_information: the attack corpus.
include!("sql_tool.rs");

// Who may do what: interface access, option limits, sessions, keys at rest.
include!("access.rs");

// Function signatures in the registry, what pg_upgrade and a restore need.
include!("lifecycle.rs");

// Audit bounds: bigint token counts, values cut with size and sha256 kept, echoed keys scrubbed.
include!("audit_bounds.rs");

// Hostile JSON: bounded recursion and CPU, U+0000, jsonb nesting limits (issue 9).
include!("robustness.rs");

// The run's time budget across retries (issue 11).
include!("run_limits.rs");

#[pg_test]
fn call_tool_names_a_renamed_or_dropped_function() {
    // The stored signature is resolved at every call through the per-backend cache, which
    // syscache invalidation empties: a rename, a schema move, a drop and each fix are seen at
    // once, in the same transaction and backend.
    demo_registry();
    let call = || {
        q(r#"SELECT mcp.call_tool('getTarifVertrag', '{"tarifgebiet": "Bayern", "fachbereich": "Metall"}')"#)
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
        "SELECT (SELECT error_sqlstate FROM mcp.tool_call ORDER BY call_id DESC LIMIT 1),
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
    assert_eq!(call()["isError"], false, "after the registry follows the move");
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

#[pg_test]
fn owner_statements_ignore_the_callers_search_path() {
    // A role that puts its own "=" before pg_catalog must not get it run with the extension
    // owner's privileges (audit writes, the API-key read are made as the owner).
    chat_registry("tool_then_answer");
    run("CREATE TABLE public.hijack_log (who text)");
    run("GRANT INSERT ON public.hijack_log TO PUBLIC");
    run("CREATE SCHEMA evil");
    run("GRANT USAGE ON SCHEMA evil TO PUBLIC");
    for (ty, f) in [("text", "texteq"), ("uuid", "uuideq")] {
        run(&format!(
            "CREATE FUNCTION evil.{f}(a {ty}, b {ty}) RETURNS boolean LANGUAGE plpgsql AS $$
             BEGIN INSERT INTO public.hijack_log VALUES (current_user); RETURN a OPERATOR(pg_catalog.=) b; END $$"
        ));
        run(&format!(
            "CREATE OPERATOR evil.= (LEFTARG = {ty}, RIGHTARG = {ty}, FUNCTION = evil.{f})"
        ));
    }
    run("DROP ROLE IF EXISTS mcp_sp_user");
    run("CREATE ROLE mcp_sp_user NOLOGIN");
    run("GRANT EXECUTE ON FUNCTION public.get_tarif(text, text, int) TO mcp_sp_user");
    run("GRANT SELECT ON public.tarif TO mcp_sp_user");
    run("UPDATE mcp.interface SET access_role = 'mcp_sp_user' WHERE name = 'chatbot'");
    run("SET LOCAL ROLE mcp_sp_user");
    run("SET LOCAL search_path = evil, pg_catalog, public");
    let r = q("SELECT mcp.chat('Welche Tarifverträge gelten für Metall in Bayern?')");
    let call = q(r#"SELECT mcp.call_tool('getTarifVertrag', '{"tarifgebiet": "Bayern", "fachbereich": "Metall"}')"#);
    run("SET LOCAL search_path = public");
    run("RESET ROLE");
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(call["isError"], false, "{call}");
    // the hijacked operator did run (as the caller, where pg_mcp resolves names the caller's
    // way), but never as the owner
    let by_owner = Spi::get_one::<i64>(
        "SELECT count(*) FROM public.hijack_log h JOIN pg_catalog.pg_roles r ON r.rolname = h.who
          WHERE r.oid = (SELECT extowner FROM pg_catalog.pg_extension WHERE extname = 'pg_mcp')",
    )
    .unwrap();
    assert_eq!(by_owner, Some(0));
    let by_caller =
        Spi::get_one::<i64>("SELECT count(*) FROM public.hijack_log WHERE who = 'mcp_sp_user'").unwrap();
    assert!(by_caller.unwrap_or(0) > 0, "the hijack did not take effect at all: the test proves nothing");
}
