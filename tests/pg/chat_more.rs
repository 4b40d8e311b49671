// mcp.chat through the SQL surface: providers (Anthropic, Azure), every mock fault, the stop
// statuses, each tool_choice as sent, context pruning, and the operator views.
// Included from tests/pg/mod.rs (uses its helpers: q, run, demo_registry, chat_registry,
// no_secret_in_audit). Scenarios are in tests/pg/scenarios.json (prefix c4_); a scenario with
// "attempts" is used by exactly one chat, because its attempt counter lives in the mock for the
// whole test run.

const C4_KEY: &str = "sk-pgtest-SECRET-9f8e7d";

fn c4_mock_url() -> String {
    Spi::get_one::<String>("SELECT current_setting('pg_mcp_test.mock_url')")
        .unwrap()
        .unwrap()
}

/// A provider row pointing at a mock scenario, with the test key, as the chatbot's provider.
fn c4_provider(kind: &str, scenario: &str, model: &str) {
    let base = c4_mock_url();
    let (url, api_version) = match kind {
        // Azure: the resource URL; the engine appends /openai/deployments/{model}/…
        "azure" => (format!("{base}/s/{scenario}"), Some("2024-06-01")),
        _ => (format!("{base}/s/{scenario}/v1"), None),
    };
    Spi::run_with_args(
        "INSERT INTO mcp.provider (name, kind, base_url, model, api_version) VALUES ('c4', $1, $2, $3, $4)
         ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, base_url = excluded.base_url,
                 model = excluded.model, api_version = excluded.api_version",
        &[kind.into(), url.into(), model.into(), api_version.into()],
    )
    .unwrap();
    Spi::run_with_args("SELECT mcp.set_api_key('c4', $1)", &[C4_KEY.into()]).unwrap();
    run("UPDATE mcp.interface SET provider = 'c4' WHERE name = 'chatbot'");
}

fn c4_chat(question: &str, options: Value) -> Value {
    Spi::get_one_with_args::<JsonB>(
        "SELECT mcp.chat($1, 'chatbot', NULL, $2)",
        &[question.into(), JsonB(options).into()],
    )
    .unwrap()
    .unwrap()
    .0
}

/// One value of a query about a run ($1 = run id).
fn c4_of_run(sql: &str, r: &Value) -> Value {
    let id = r["run_id"].as_str().unwrap().to_string();
    Spi::get_one_with_args::<JsonB>(sql, &[id.into()])
        .unwrap()
        .map(|j| j.0)
        .unwrap_or(Value::Null)
}

/// The requests of one scenario as the mock recorded them (headers, path, body), read from its
/// admin route with a plain loopback GET.
fn c4_mock_requests(scenario: &str) -> Vec<Value> {
    use std::io::{Read, Write};
    let base = c4_mock_url();
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

// ------------------------------------------------------------------------------------------
// Providers
// ------------------------------------------------------------------------------------------

#[pg_test]
fn chat_anthropic_provider() {
    demo_registry();
    c4_provider("anthropic", "c4_anthropic", "claude-test");
    let r = c4_chat(
        "Welche Tarifverträge gelten für Metall in Bayern?",
        json!({}),
    );
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(r["tool_calls"], 1);
    assert!(
        r["answer"].as_str().unwrap().contains("MTV Metall Bayern"),
        "{r}"
    );
    // What went over the wire, as audited: Messages API shape.
    let reqs = c4_of_run(
        "SELECT jsonb_agg(jsonb_build_object('url', url, 'body', request_body) ORDER BY iteration)
           FROM mcp.llm_request WHERE run_id = $1::uuid",
        &r,
    );
    assert!(reqs[0]["url"]
        .as_str()
        .unwrap()
        .ends_with("/s/c4_anthropic/v1/messages"));
    let b0 = &reqs[0]["body"];
    assert!(
        b0["system"].as_str().unwrap().contains("Tool-use strategy"),
        "{b0}"
    );
    assert!(b0["tools"][0]["input_schema"]["type"] == "object", "{b0}");
    assert_eq!(b0["tool_choice"], json!({"type": "auto"}));
    let msgs = reqs[1]["body"]["messages"].as_array().unwrap();
    let last = &msgs[msgs.len() - 1];
    assert_eq!(last["role"], "user");
    assert_eq!(last["content"][0]["type"], "tool_result");
    assert_eq!(last["content"][0]["tool_use_id"], "toolu_1");
    // Headers as the mock saw them: the key only in x-api-key.
    let seen = c4_mock_requests("c4_anthropic");
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0]["headers"]["x-api-key"], C4_KEY);
    assert_eq!(seen[0]["headers"]["anthropic-version"], "2023-06-01");
    assert!(seen[0]["headers"].get("authorization").is_none());
    no_secret_in_audit();
}

#[pg_test]
fn chat_azure_provider() {
    demo_registry();
    c4_provider("azure", "c4_azure", "gpt4o-deploy");
    let r = c4_chat("Tarif Metall Bayern?", json!({}));
    assert_eq!(r["status"], "completed", "{r}");
    assert!(
        r["answer"].as_str().unwrap().contains("MTV Metall Bayern"),
        "{r}"
    );
    let url = c4_of_run(
        "SELECT to_jsonb(url) FROM mcp.llm_request WHERE run_id = $1::uuid AND iteration = 1",
        &r,
    );
    let url = url.as_str().unwrap();
    assert!(
        url.ends_with("/openai/deployments/gpt4o-deploy/chat/completions"),
        "{url}"
    );
    assert!(
        !url.contains("api-version"),
        "audit URL without query: {url}"
    );
    let seen = c4_mock_requests("c4_azure");
    assert_eq!(seen.len(), 2);
    assert!(seen[0]["path"]
        .as_str()
        .unwrap()
        .ends_with("/openai/deployments/gpt4o-deploy/chat/completions?api-version=2024-06-01"));
    assert_eq!(seen[0]["headers"]["api-key"], C4_KEY);
    assert!(seen[0]["headers"].get("authorization").is_none());
    no_secret_in_audit();
}

#[pg_test]
fn chat_azure_apim_error_body_is_a_failed_status() {
    demo_registry();
    c4_provider("azure", "c4_apim_401", "gpt4o-deploy");
    let r = c4_chat("Hallo", json!({}));
    assert_eq!(r["status"], "failed", "{r}");
    assert_eq!(r["error"]["kind"], "auth", "{r}");
    assert_eq!(r["error"]["http_status"], 401);
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Access denied due to invalid subscription key"));
    let row = c4_of_run(
        "SELECT jsonb_build_object('status', r.status, 'kind', r.error->>'kind',
                'http', q.http_status, 'attempts', q.attempts, 'req_kind', q.error->>'kind')
           FROM mcp.run r JOIN mcp.llm_request q USING (run_id) WHERE r.run_id = $1::uuid",
        &r,
    );
    // 401 is not retried; the run row and the request row both hold the normalized error
    assert_eq!(
        row,
        json!({"status": "failed", "kind": "auth", "http": 401, "attempts": 1, "req_kind": "auth"})
    );
    no_secret_in_audit();
}

#[pg_test]
fn azure_provider_without_deployment_is_refused() {
    let e = err_of(
        "INSERT INTO mcp.provider (name, kind, base_url, api_version) VALUES ('az', 'azure', 'https://x.openai.azure.com', '2024-10-21')",
    );
    assert!(
        e.starts_with("23514") && e.contains("provider_model_required"),
        "{e}"
    );
}

// ------------------------------------------------------------------------------------------
// Faults of the mock LLM
// ------------------------------------------------------------------------------------------

/// (status, attempts, http_status) of the run's only LLM request.
fn c4_request_of(r: &Value) -> Value {
    c4_of_run(
        "SELECT jsonb_build_object('attempts', attempts, 'http', http_status, 'error', error->>'kind',
                                   'code', error->>'code', 'repaired', repaired)
           FROM mcp.llm_request WHERE run_id = $1::uuid ORDER BY iteration LIMIT 1",
        r,
    )
}

#[pg_test]
fn chat_rate_limited_with_retry_after_then_success() {
    demo_registry();
    c4_provider("openai", "c4_rate_limited", "gpt-4o-mini");
    let r = c4_chat("Hallo", json!({}));
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(r["answer"], "after the wait");
    assert_eq!(
        c4_request_of(&r),
        json!({"attempts": 2, "http": 200, "error": null, "code": null, "repaired": false})
    );
}

#[pg_test]
fn chat_server_error_then_success() {
    demo_registry();
    c4_provider("openai", "c4_server_error_once", "gpt-4o-mini");
    let r = c4_chat("Hallo", json!({}));
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(r["answer"], "after the 500");
    assert_eq!(c4_request_of(&r)["attempts"], 2);
}

#[pg_test]
fn chat_connection_reset() {
    demo_registry();
    // A reset is a network error: retried, and the retry succeeds.
    c4_provider("openai", "c4_reset_once", "gpt-4o-mini");
    let r = c4_chat("Hallo", json!({}));
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(r["answer"], "after the reset");
    assert_eq!(c4_request_of(&r)["attempts"], 2);
    // Every attempt reset, no retries: failed with a network error, not an ERROR.
    c4_provider("openai", "c4_reset", "gpt-4o-mini");
    run("SET LOCAL mcp.http_retries = 0");
    let r = c4_chat("Hallo", json!({}));
    assert_eq!(r["status"], "failed", "{r}");
    assert_eq!(r["error"]["kind"], "network", "{r}");
    assert_eq!(c4_request_of(&r)["attempts"], 1);
    no_secret_in_audit();
}

#[pg_test]
fn chat_truncated_tool_calls_run_only_the_complete_one() {
    demo_registry();
    c4_provider("openai", "c4_truncated_calls", "gpt-4o-mini");
    let r = c4_chat("Tarife?", json!({}));
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(r["tool_calls"], 1);
    assert_eq!(r["rejected_tool_calls"], 1);
    let calls = c4_of_run(
        "SELECT jsonb_agg(jsonb_build_object('id', tool_call_id, 'status', status) ORDER BY call_id)
           FROM mcp.tool_call WHERE run_id = $1::uuid",
        &r,
    );
    // the executed call is written first (by the tool), the refused one after the batch
    let mut calls: Vec<Value> = calls.as_array().unwrap().clone();
    calls.sort_by_key(|c| c["id"].as_str().unwrap().to_string());
    assert_eq!(
        calls,
        vec![
            json!({"id": "call_a", "status": "ok"}),
            json!({"id": "call_b", "status": "invalid"})
        ]
    );
    assert_eq!(c4_request_of(&r)["repaired"], true);
    // the model was told why call_b did not run
    let told = c4_of_run(
        "SELECT to_jsonb(m.message->>'content') FROM mcp.message m
          WHERE m.run_id = $1::uuid AND m.message->>'tool_call_id' = 'call_b'",
        &r,
    );
    assert!(told.as_str().unwrap().contains("cut off"), "{told}");
}

#[pg_test]
fn chat_fenced_json_answer_is_repaired() {
    demo_registry();
    c4_provider("openai", "c4_fenced", "gpt-4o-mini");
    let r = c4_chat("Hallo", json!({}));
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(r["answer"], "Antwort aus dem Zaun");
    let fixes = c4_of_run(
        "SELECT jsonb_build_object('repaired', repaired, 'raw_fenced', response_raw LIKE '```json%',
                                   'fixes', jsonb_array_length(fixes) > 0)
           FROM mcp.llm_request WHERE run_id = $1::uuid",
        &r,
    );
    assert_eq!(
        fixes,
        json!({"repaired": true, "raw_fenced": true, "fixes": true})
    );
}

#[pg_test]
fn chat_slow_provider_times_out_as_a_status() {
    demo_registry();
    c4_provider("openai", "c4_slow", "gpt-4o-mini");
    run("UPDATE mcp.provider SET timeout_ms = 200 WHERE name = 'c4'");
    run("SET LOCAL mcp.http_retries = 0");
    let r = c4_chat("Hallo", json!({}));
    assert_eq!(r["status"], "failed", "{r}");
    assert_eq!(r["error"]["kind"], "timeout", "{r}");
    assert_eq!(c4_request_of(&r)["error"], "timeout");
}

#[pg_test]
fn chat_connection_closed_before_headers_is_retried() {
    demo_registry();
    c4_provider("openai", "c4_closed_once", "gpt-4o-mini");
    let r = c4_chat("Hallo", json!({}));
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(r["answer"], "after the close");
    assert_eq!(c4_request_of(&r)["attempts"], 2);
}

#[pg_test]
fn chat_malformed_tool_arguments_are_repaired_and_run() {
    demo_registry();
    c4_provider("openai", "c4_malformed_args", "gpt-4o-mini");
    let r = c4_chat("Tarif?", json!({}));
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(r["tool_calls"], 1);
    assert!(
        r["answer"].as_str().unwrap().contains("MTV Metall Bayern"),
        "{r}"
    );
    // the raw arguments stay in the audit, next to the repaired ones
    let call = c4_of_run(
        "SELECT jsonb_build_object('raw', arguments_raw, 'args', arguments, 'status', status)
           FROM mcp.tool_call WHERE run_id = $1::uuid",
        &r,
    );
    assert_eq!(
        call,
        json!({"raw": "{'tarifgebiet': 'Bayern', 'fachbereich': 'Metall',}",
               "args": {"tarifgebiet": "Bayern", "fachbereich": "Metall"}, "status": "ok"}),
        "{call}"
    );
    assert_eq!(c4_request_of(&r)["repaired"], true);
}

#[pg_test]
fn chat_oversized_response_fails_at_the_cap() {
    demo_registry();
    c4_provider("openai", "c4_oversize", "gpt-4o-mini");
    run("SET LOCAL mcp.max_response_bytes = 65536");
    let r = c4_chat("Hallo", json!({}));
    assert_eq!(r["status"], "failed", "{r}");
    assert_eq!(r["error"]["kind"], "invalid_response", "{r}");
    assert_eq!(r["error"]["code"], "too_large", "{r}");
    assert!(
        r["error"]["message"].as_str().unwrap().contains("65536"),
        "{r}"
    );
    // not retried; the body was not stored
    let req = c4_of_run(
        "SELECT jsonb_build_object('attempts', attempts, 'raw', response_raw) FROM mcp.llm_request WHERE run_id = $1::uuid",
        &r,
    );
    assert_eq!(req, json!({"attempts": 1, "raw": null}));
}

// ------------------------------------------------------------------------------------------
// Stops
// ------------------------------------------------------------------------------------------

#[pg_test]
fn chat_budget_exceeded_by_interface_max_total_tokens() {
    demo_registry();
    c4_provider("openai", "c4_budget", "gpt-4o-mini");
    run("UPDATE mcp.interface SET max_total_tokens = 1500 WHERE name = 'chatbot'");
    let r = c4_chat("Viel", json!({}));
    assert_eq!(r["status"], "budget_exceeded", "{r}");
    assert_eq!(r["error"]["kind"], "budget_exceeded");
    assert_eq!(r["iterations"], 1);
    assert_eq!(r["tool_calls"], 0);
    assert_eq!(r["usage"]["prompt_tokens"], 1400);
    // the requested call was answered "not executed" and audited as skipped
    let st = c4_of_run(
        "SELECT jsonb_agg(status) FROM mcp.tool_call WHERE run_id = $1::uuid",
        &r,
    );
    assert_eq!(st, json!(["skipped"]));
    let v = c4_of_run(
        "SELECT jsonb_build_object('status', status, 'tool_calls', tool_calls, 'rejected', rejected_tool_calls,
                                   'tokens', total_tokens, 'error_kind', error_kind)
           FROM mcp.recent_runs WHERE run_id = $1::uuid",
        &r,
    );
    assert_eq!(
        v,
        json!({"status": "budget_exceeded", "tool_calls": 0, "rejected": 1, "tokens": 1500,
               "error_kind": "budget_exceeded"})
    );
}

#[pg_test]
fn chat_max_iterations_by_interface() {
    demo_registry();
    c4_provider("openai", "c4_iterations", "gpt-4o-mini");
    run("UPDATE mcp.interface SET max_iterations = 2 WHERE name = 'chatbot'");
    let r = c4_chat("Zwei Runden", json!({}));
    assert_eq!(r["status"], "max_iterations", "{r}");
    assert_eq!(r["iterations"], 2);
    assert_eq!(r["tool_calls"], 1);
    assert_eq!(r["rejected_tool_calls"], 1);
    let st = c4_of_run(
        "SELECT jsonb_agg(tool_call_id || ':' || status ORDER BY call_id) FROM mcp.tool_call WHERE run_id = $1::uuid",
        &r,
    );
    assert_eq!(st, json!(["i1:ok", "i2:skipped"]));
    // the option overrides the interface: one more round and the model answers
    let r = c4_chat("Drei Runden", json!({"max_iterations": 3}));
    assert_eq!(r["status"], "completed", "{r}");
}

// ------------------------------------------------------------------------------------------
// tool_choice: what was sent, request by request
// ------------------------------------------------------------------------------------------

fn c4_choices_sent(r: &Value) -> Value {
    c4_of_run(
        "SELECT jsonb_agg(request_body->'tool_choice' ORDER BY iteration) FROM mcp.llm_request WHERE run_id = $1::uuid",
        r,
    )
}

#[pg_test]
fn chat_tool_choice_each_mode_as_sent() {
    demo_registry();
    c4_provider("openai", "c4_choice", "gpt-4o-mini");
    // auto (the interface default)
    let r = c4_chat("Tarif?", json!({}));
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(c4_choices_sent(&r), json!(["auto", "auto"]));
    // required: first request only, then auto so the model can answer
    let r = c4_chat("Tarif?", json!({"tool_choice": "required"}));
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(c4_choices_sent(&r), json!(["required", "auto"]));
    assert_eq!(r["tool_calls"], 1);
    // a named function, from the interface row
    run("UPDATE mcp.interface SET tool_choice = 'function:getTarifVertrag' WHERE name = 'chatbot'");
    let r = c4_chat("Tarif?", json!({}));
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(
        c4_choices_sent(&r),
        json!([{"type": "function", "function": {"name": "getTarifVertrag"}}, "auto"])
    );
    // none (option over the interface): tools still listed, a call made anyway is refused
    let r = c4_chat("Tarif?", json!({"tool_choice": "none"}));
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(c4_choices_sent(&r), json!(["none", "none"]));
    assert_eq!(r["tool_calls"], 0);
    assert_eq!(r["rejected_tool_calls"], 1);
    let listed = c4_of_run(
        "SELECT to_jsonb(jsonb_array_length(request_body->'tools')) FROM mcp.llm_request
          WHERE run_id = $1::uuid AND iteration = 1",
        &r,
    );
    assert_eq!(listed, json!(4));
    let st = c4_of_run(
        "SELECT jsonb_agg(status) FROM mcp.tool_call WHERE run_id = $1::uuid",
        &r,
    );
    assert_eq!(st, json!(["denied"]));
    // why the engine did not run it is kept with the row (the status alone says "denied")
    let why = c4_of_run(
        "SELECT jsonb_agg(error_message) FROM mcp.tool_call WHERE run_id = $1::uuid",
        &r,
    );
    assert_eq!(why, json!(["tool_choice is none"]));
    // a function that is not offered: failed before anything is sent
    let r = c4_chat("Tarif?", json!({"tool_choice": "function:nope"}));
    assert_eq!(r["status"], "failed", "{r}");
    assert_eq!(r["error"]["kind"], "config");
    assert_eq!(c4_choices_sent(&r), Value::Null);
}

// ------------------------------------------------------------------------------------------
// Context management: pruning keeps every request under the window
// ------------------------------------------------------------------------------------------

#[pg_test]
fn chat_pruning_keeps_requests_under_the_window() {
    demo_registry();
    // ~4.6 KB of hex words per document: four of them do not fit a 4000-token window.
    run("CREATE FUNCTION public.big_doc(n int) RETURNS text LANGUAGE sql IMMUTABLE AS
         $$ SELECT string_agg(md5(n::text || ':' || i::text), ' ') FROM generate_series(1, 140) i $$");
    run(
        r#"INSERT INTO mcp.tool (name, description, parameters, function) VALUES
         ('fetchDoc', 'Fetch document n', '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}',
          'public.big_doc(int)')"#,
    );
    run("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'fetchDoc')");
    // a model without a known tokenizer: the pessimistic estimate (3 characters per token)
    c4_provider("openai", "c4_prune", "mock-model");
    run("UPDATE mcp.provider SET context_window = 4000, max_completion_tokens = 500 WHERE name = 'c4'");
    let r = c4_chat("Lies alle vier Dokumente", json!({}));
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(r["iterations"], 5);
    assert_eq!(r["tool_calls"], 4);
    assert_eq!(r["summaries"], 0);
    assert!(r["pruned_results"].as_u64().unwrap() >= 2, "{r}");
    let v = c4_of_run(
        "SELECT jsonb_build_object(
             'requests', (SELECT count(*) FROM mcp.llm_request WHERE run_id = $1::uuid AND purpose = 'chat'),
             -- the mock reports request bytes / 4 as prompt tokens
             'max_prompt', (SELECT max(prompt_tokens) FROM mcp.llm_request WHERE run_id = $1::uuid),
             'max_body', (SELECT max(length(request_body::text)) FROM mcp.llm_request WHERE run_id = $1::uuid),
             'results', (SELECT sum(result_size) FROM mcp.tool_call WHERE run_id = $1::uuid),
             'pruned', (SELECT count(*) FROM mcp.message WHERE run_id = $1::uuid
                          AND message->>'content' LIKE '[tool result pruned:%'))",
        &r,
    );
    assert_eq!(v["requests"], 5, "{v}");
    // the tool results alone exceed the window (even at 4 bytes per token) …
    assert!(v["results"].as_i64().unwrap() > 4 * 4000, "{v}");
    // … but every request stayed under window - completion reserve
    assert!(v["max_prompt"].as_i64().unwrap() <= 4000 - 500, "{v}");
    assert!(v["max_body"].as_i64().unwrap() < 4 * (4000 - 500), "{v}");
    assert!(v["pruned"].as_i64().unwrap() >= 2, "{v}");
}

// ------------------------------------------------------------------------------------------
// Operator views
// ------------------------------------------------------------------------------------------

#[pg_test]
fn views_report_runs_with_cost_and_tool_rates() {
    demo_registry();
    c4_provider("openai", "c4_priced", "gpt-4o-mini");
    run(
        r#"UPDATE mcp.provider SET options = '{"temperature": 0, "price_per_1k_prompt": 0.15, "price_per_1k_completion": 0.6}'
           WHERE name = 'c4'"#,
    );
    let r = c4_chat("Was kostet das?", json!({}));
    assert_eq!(r["status"], "completed", "{r}");
    // the price keys are pg_mcp's own: never sent; the other options are
    let body = c4_of_run(
        "SELECT request_body FROM mcp.llm_request WHERE run_id = $1::uuid AND iteration = 1",
        &r,
    );
    assert_eq!(body["temperature"], 0);
    assert!(
        body.get("price_per_1k_prompt").is_none() && body.get("price_per_1k_completion").is_none()
    );
    let v = c4_of_run(
        "SELECT to_jsonb(v) - 'run_id' - 'session_id' - 'started_at' - 'finished_at' - 'llm_latency_ms'
                - 'tool_latency_ms' - 'wall_ms' - 'orchestration_ms'
           FROM mcp.recent_runs v WHERE run_id = $1::uuid",
        &r,
    );
    assert_eq!(
        v,
        json!({"interface": "chatbot", "provider": "c4", "role_name": v["role_name"], "status": "completed",
               "question": "Was kostet das?", "iterations": 2, "llm_requests": 2, "llm_retries": 0,
               "tool_calls": 1, "tool_errors": 0, "rejected_tool_calls": 0,
               "prompt_tokens": 4000, "completion_tokens": 500, "total_tokens": 4500,
               // (4000 * 0.15 + 500 * 0.6) / 1000
               "estimated_cost": 0.9, "error_kind": null, "error_message": null})
    );
    let t = c4_of_run(
        "SELECT jsonb_build_object('wall', wall_ms >= llm_latency_ms + tool_latency_ms,
                                   'llm', llm_latency_ms > 0, 'tool', tool_latency_ms > 0,
                                   'orch', orchestration_ms >= 0)
           FROM mcp.recent_runs WHERE run_id = $1::uuid",
        &r,
    );
    assert_eq!(
        t,
        json!({"wall": true, "llm": true, "tool": true, "orch": true})
    );
    // without prices: no cost
    run("UPDATE mcp.provider SET options = '{}' WHERE name = 'c4'");
    let cost = c4_of_run(
        "SELECT to_jsonb(estimated_cost) FROM mcp.recent_runs WHERE run_id = $1::uuid",
        &r,
    );
    assert_eq!(cost, Value::Null);
    // a price that is not a number is refused
    let e = err_of(
        r#"UPDATE mcp.provider SET options = '{"price_per_1k_prompt": "cheap"}' WHERE name = 'c4'"#,
    );
    assert!(
        e.starts_with("23514") && e.contains("provider_options_prices"),
        "{e}"
    );
    let e = err_of(
        r#"UPDATE mcp.provider SET options = '{"price_per_1k_completion": -1}' WHERE name = 'c4'"#,
    );
    assert!(e.starts_with("23514"), "{e}");

    // tool_error_rates: one ok from the chat, plus direct calls that fail and are refused
    q(r#"SELECT mcp.call_tool('failTool', '{"x": 1}')"#);
    q(r#"SELECT mcp.call_tool('failTool', '{"x": "1"}')"#);
    q(r#"SELECT mcp.call_tool('failTool', '{"x": 2}', 'analysis')"#);
    let rates = q(
        "SELECT jsonb_object_agg(tool, jsonb_build_object('calls', calls, 'ok', ok, 'error', error,
                 'invalid', invalid, 'denied', denied, 'error_rate', error_rate, 'failure_rate', failure_rate,
                 'has_p95', p95_latency_ms IS NOT NULL, 'has_last_error', last_error_at IS NOT NULL))
           FROM mcp.tool_error_rates",
    );
    assert_eq!(
        rates,
        json!({
            "getTarifVertrag": {"calls": 1, "ok": 1, "error": 0, "invalid": 0, "denied": 0, "error_rate": 0.0,
                                "failure_rate": 0.0, "has_p95": true, "has_last_error": false},
            "failTool": {"calls": 3, "ok": 0, "error": 1, "invalid": 1, "denied": 1, "error_rate": 1.0,
                         "failure_rate": 1.0, "has_p95": true, "has_last_error": true}
        })
    );
}

#[pg_test]
fn views_are_commented_and_not_public() {
    let missing = Spi::get_one::<String>(
        "SELECT string_agg(c.relname || coalesce('.' || a.attname, ''), ', ')
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                                   AND col_description(c.oid, a.attnum) IS NULL
          WHERE n.nspname = 'mcp' AND c.relkind = 'v'
            AND (obj_description(c.oid, 'pg_class') IS NULL OR a.attname IS NOT NULL)",
    )
    .unwrap();
    assert_eq!(missing, None, "views or view columns without comment");
    let views = Spi::get_one::<i64>(
        "SELECT count(*) FROM pg_views WHERE schemaname = 'mcp' AND viewname IN ('recent_runs', 'tool_error_rates')",
    )
    .unwrap();
    assert_eq!(views, Some(2));
    run("CREATE ROLE mcp_t_viewer");
    run("SET LOCAL ROLE mcp_t_viewer");
    let e1 = err_of("SELECT * FROM mcp.recent_runs");
    let e2 = err_of("SELECT * FROM mcp.tool_error_rates");
    run("RESET ROLE");
    assert!(e1.starts_with("42501"), "{e1}");
    assert!(e2.starts_with("42501"), "{e2}");
}

#[pg_test]
fn chat_options_are_checked() {
    demo_registry();
    c4_provider("openai", "c4_choice", "gpt-4o-mini");
    // a misspelt key, a wrong type or an out-of-range value is the caller's mistake: 22023
    for (opts, msg) in [
        (
            r#"{"max_iteration": 3}"#,
            r#"unknown option "max_iteration""#,
        ),
        (
            r#"{"max_iterations": "3"}"#,
            r#""max_iterations" must be an integer from 1 to 25"#,
        ),
        (
            r#"{"max_iterations": 26}"#,
            r#""max_iterations" must be an integer from 1 to 25"#,
        ),
        (
            r#"{"max_total_tokens": 0}"#,
            r#""max_total_tokens" must be an integer from 1"#,
        ),
        (r#"{"tool_choice": 1}"#, r#""tool_choice" must be a string"#),
        (r#"{"provider": null}"#, r#""provider" must be a string"#),
        (r#"[]"#, "must be a JSON object"),
    ] {
        let e = err_of(&format!("SELECT mcp.chat('x', options => '{opts}')"));
        assert!(
            e.starts_with("22023: mcp.chat options: ") && e.contains(msg),
            "{opts}: {e}"
        );
    }
    let e = err_of(r#"SELECT mcp.chat('x', options => '{"tool_choice": "some times!"}')"#);
    assert!(
        e.starts_with("22023") && e.contains("invalid tool_choice"),
        "{e}"
    );
    let e = err_of(r#"SELECT mcp.chat('x', options => '{"provider": "nope"}')"#);
    assert!(e.starts_with("42704"), "{e}");
    // nothing was audited for refused calls; valid options still work
    assert_eq!(
        Spi::get_one::<i64>("SELECT count(*) FROM mcp.run").unwrap(),
        Some(0)
    );
    let r = c4_chat(
        "Tarif?",
        json!({"max_iterations": 25, "max_total_tokens": 100000, "provider": "c4"}),
    );
    assert_eq!(r["status"], "completed", "{r}");
}

#[pg_test]
fn chat_application_name_shows_the_run_while_a_tool_runs() {
    demo_registry();
    run(
        "CREATE FUNCTION public.c4_appname() RETURNS text LANGUAGE sql STABLE AS
         $$ SELECT current_setting('application_name') $$",
    );
    run(
        r#"INSERT INTO mcp.tool (name, description, parameters, function) VALUES
         ('whoAmI', 'application_name', '{"type":"object","properties":{}}', 'public.c4_appname()')"#,
    );
    run("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'whoAmI')");
    c4_provider("openai", "c4_appname", "gpt-4o-mini");
    run("SET application_name = 'c4_client'");
    let r = c4_chat("Wer bin ich?", json!({}));
    assert_eq!(r["status"], "completed", "{r}");
    // the tool saw mcp:<run id>:call:<call id>; the model echoed it back
    let call_id = Spi::get_one::<i64>("SELECT max(call_id) FROM mcp.tool_call WHERE tool = 'whoAmI'")
        .unwrap()
        .unwrap();
    assert_eq!(
        r["answer"],
        format!("mcp:{}:call:{call_id}", r["run_id"].as_str().unwrap())
    );
    let after = Spi::get_one::<String>("SELECT current_setting('application_name')").unwrap();
    assert_eq!(after.as_deref(), Some("c4_client"));
}
