// In-database tests (#[pg_test]), one module per subject; src/lib.rs declares this module
// tree as `tests`. pgrx runs every #[pg_test] as the SQL function tests.<name>, so the tests
// of each module sit in an inline `#[pg_schema] mod tests` (pgrx places a function in the schema
// of the module it is defined in). Each test runs in its own transaction that pgrx rolls back.
// The shared helpers below are visible to every module (`use crate::tests::*`).

mod access;
mod async_runs;
mod audit_bounds;
mod audit_rows;
mod chat;
mod chat_providers;
mod governance;
mod hook_coverage;
mod lifecycle;
mod mcp_server;
mod plans;
mod plans_embedding;
mod retrieval;
mod robustness;
mod run_limits;
mod sql_tool;
mod statement_bounds;
mod tools;
mod views;

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

/// With durable audit on, the worker commits every test's audit rows, and they outlast the
/// test's rollback while other tests run at the same time: a test reads its own. The runs of
/// this test's backend (the run row records the backend running the chat):
const MY_RUNS: &str = "(SELECT run_id FROM mcp.run WHERE (backend_pid, backend_start) =
    (SELECT pid, backend_start FROM pg_catalog.pg_stat_activity WHERE pid = pg_backend_pid()))";
/// The last tool call of this session (its id comes from the session's own nextval).
const MY_LAST_CALL: &str = "call_id = currval('mcp.tool_call_call_id_seq'::regclass)";

fn err_of(sql: &str) -> String {
    // Run in a subtransaction so the error does not abort the test transaction; every error,
    // query cancel included, comes back as "SQLSTATE: message".
    match crate::pg::in_subtransaction_catch_all(|| Spi::run(sql)) {
        Ok(Ok(())) => String::new(),
        Ok(Err(e)) => e.to_string(),
        Err(info) => format!("{}: {}", info.sqlstate, info.message),
    }
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

const MOCK_KEY: &str = "sk-pgtest-SECRET-9f8e7d";

fn mock_url() -> String {
    Spi::get_one::<String>("SELECT current_setting('pg_mcp_test.mock_url')")
        .unwrap()
        .unwrap()
}

/// A provider row pointing at a mock scenario, with the test key, as the chatbot's provider.
fn scenario_provider(kind: &str, scenario: &str, model: &str) {
    let base = mock_url();
    let (url, api_version) = match kind {
        // Azure: the resource URL; the engine appends /openai/deployments/{model}/…
        "azure" => (format!("{base}/s/{scenario}"), Some("2024-06-01")),
        _ => (format!("{base}/s/{scenario}/v1"), None),
    };
    Spi::run_with_args(
        "INSERT INTO mcp.provider (name, kind, base_url, model, api_version) VALUES ('scenario', $1, $2, $3, $4)
         ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, base_url = excluded.base_url,
                 model = excluded.model, api_version = excluded.api_version",
        &[kind.into(), url.into(), model.into(), api_version.into()],
    )
    .unwrap();
    Spi::run_with_args("SELECT mcp.set_api_key('scenario', $1)", &[MOCK_KEY.into()]).unwrap();
    run("UPDATE mcp.interface SET provider = 'scenario' WHERE name = 'chatbot'");
}

fn chat_with(question: &str, options: Value) -> Value {
    Spi::get_one_with_args::<JsonB>(
        "SELECT mcp.chat($1, 'chatbot', NULL, $2)",
        &[question.into(), JsonB(options).into()],
    )
    .unwrap()
    .unwrap()
    .0
}

/// One value of a query about a run ($1 = run id).
fn of_run(sql: &str, r: &Value) -> Value {
    let id = r["run_id"].as_str().unwrap().to_string();
    Spi::get_one_with_args::<JsonB>(sql, &[id.into()])
        .unwrap()
        .map(|j| j.0)
        .unwrap_or(Value::Null)
}

/// The requests of one scenario as the mock recorded them (headers, path, body), read from its
/// admin route with a plain loopback GET.
fn mock_requests(scenario: &str) -> Vec<Value> {
    use std::io::{Read, Write};
    let base = mock_url();
    let addr = base.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(addr).expect("connect to mock");
    write!(
        s,
        "GET /_mock/requests?scenario={scenario} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let body = out.split_once("\r\n\r\n").expect("http response").1;
    serde_json::from_str::<Value>(body)
        .expect("json")
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// A scenario registered in the mock at run time (PUT /_mock/scenarios/NAME).
fn mock_scenario(name: &str, scenario: &Value) {
    use std::io::{Read, Write};
    let base = mock_url();
    let addr = base.trim_start_matches("http://");
    let body = scenario.to_string();
    let mut s = std::net::TcpStream::connect(addr).expect("connect to mock");
    write!(
        s,
        "PUT /_mock/scenarios/{name} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
}
