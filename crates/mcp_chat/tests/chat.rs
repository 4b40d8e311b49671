//! End-to-end tests of the chat loop against mock_llm on loopback, with an in-memory host.

use mcp_chat::*;
use mock_llm::{MockServer, RecordedRequest, Scenario};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const KEY: &str = "sk-test-SECRET-9f8e7d6c5b4a3210";

// ---------------------------------------------------------------------------------------------
// Test host

struct TestHost {
    tools: Vec<ToolDef>,
    executed: Vec<ToolCall>,
    exchanges: Vec<LlmExchange>,
    records: Vec<ToolCallRecord>,
    interrupt: Arc<AtomicBool>,
    fetch_bytes: usize,
    cancel_in_tool: bool,
    interrupt_on_exchange: bool,
}

impl TestHost {
    fn new() -> Self {
        TestHost {
            tools: vec![
                ToolDef::new(
                    "getTarifVertrag",
                    "Liefert relevante Tarifverträge.",
                    json!({
                        "type": "object",
                        "properties": {
                            "tarifgebiet": {"type": "string"},
                            "fachbereich": {"type": "string"},
                            "search_terms": {"type": "array", "items": {"type": "string"}}
                        },
                        "required": ["tarifgebiet", "fachbereich"]
                    }),
                ),
                ToolDef::new(
                    "getDialog",
                    "Fragt fehlende Parameter beim Benutzer nach.",
                    json!({
                        "type": "object",
                        "properties": {
                            "missing_parameters": {"type": "array", "items": {"type": "string"}},
                            "context": {"type": "string"}
                        },
                        "required": ["missing_parameters"]
                    }),
                ),
                ToolDef::new(
                    "fetch",
                    "Returns a large document.",
                    json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
                ),
                ToolDef::new(
                    "fail_tool",
                    "Always fails.",
                    json!({"type": "object", "properties": {}}),
                ),
            ],
            executed: Vec::new(),
            exchanges: Vec::new(),
            records: Vec::new(),
            interrupt: Arc::new(AtomicBool::new(false)),
            fetch_bytes: 100,
            cancel_in_tool: false,
            interrupt_on_exchange: false,
        }
    }
}

impl Host for TestHost {
    fn tools(&mut self) -> Vec<ToolDef> {
        self.tools.clone()
    }

    fn execute_tool(&mut self, call: &ToolCall, _arguments_raw: &str) -> ToolExecution {
        // Validation is the host's (the pgrx layer's tool pipeline); this host does it the
        // same way: against the tool's schema, refused calls are not run.
        let schema = self
            .tools
            .iter()
            .find(|t| t.name == call.name)
            .map(|t| mcp_tools::ToolSchema::compile(&t.parameters).expect("valid schema"));
        if let Some(schema) = schema {
            let errors = schema.validate(&call.arguments);
            if !errors.is_empty() {
                return ToolExecution::invalid(&call.name, &errors);
            }
        }
        self.executed.push(call.clone());
        let a = &call.arguments;
        match call.name.as_str() {
            "getTarifVertrag" => ToolExecution::ok(format!(
                "2 Tarifverträge für {} / {}",
                a["tarifgebiet"].as_str().unwrap_or("?"),
                a["fachbereich"].as_str().unwrap_or("?")
            )),
            "getDialog" => ToolExecution::needs_input(a.clone(), "The user was asked."),
            "fetch" => {
                ToolExecution::ok(format!("doc {}: {}", a["n"], "x".repeat(self.fetch_bytes)))
            }
            _ if self.cancel_in_tool => {
                self.interrupt.store(true, Ordering::SeqCst);
                ToolExecution::cancelled()
            }
            // The host keeps the fault's detail (say "XX000: division by zero") to itself.
            _ => ToolExecution::error("Tool call failed: internal error."),
        }
    }

    fn interrupted(&mut self) -> bool {
        self.interrupt.load(Ordering::SeqCst)
    }

    fn on_llm_exchange(&mut self, exchange: &LlmExchange) {
        self.exchanges.push(exchange.clone());
        if self.interrupt_on_exchange {
            // a stop that arrives while the answer is on its way (after the response was read)
            self.interrupt.store(true, Ordering::SeqCst);
        }
    }

    fn on_tool_call(&mut self, record: &ToolCallRecord) {
        self.records.push(record.clone());
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers

fn mock(name: &str, scenario: &str) -> MockServer {
    let s = Scenario::from_json(scenario).expect("scenario");
    MockServer::with_scenarios(vec![(name, s)]).expect("mock server")
}

fn fast_http() -> HttpOptions {
    HttpOptions {
        connect_timeout: Duration::from_secs(2),
        read_timeout: Duration::from_secs(20),
        retry: RetryPolicy {
            max_retries: 2,
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_secs(3),
            retry_budget: Duration::from_secs(5),
            retry_timeouts: false,
        },
        ..HttpOptions::default()
    }
}

fn openai_config(m: &MockServer, scenario: &str) -> ChatConfig {
    let p = ProviderConfig::new(
        ProviderKind::Openai,
        format!("{}/v1", m.scenario_url(scenario)),
        "mock-model",
    )
    .with_key(KEY);
    let mut c = ChatConfig::new(p);
    c.system_prompts = vec!["Use tools for facts. Never guess.".into()];
    c.http = fast_http();
    c
}

fn run(cfg: &ChatConfig, host: &mut TestHost, question: &str) -> ChatOutcome {
    run_chat(cfg, Vec::new(), question, host, &HttpClient::new())
}

fn bodies(m: &MockServer, scenario: &str) -> Vec<Value> {
    m.requests(Some(scenario))
        .iter()
        .map(|r| r.json().expect("request body is JSON"))
        .collect()
}

/// Every assistant tool call has exactly one tool answer right after it, and no answer is orphaned.
fn assert_no_orphans(msgs: &[Message]) {
    let mut i = 0;
    while i < msgs.len() {
        if msgs[i].has_tool_calls() {
            let ids: Vec<&str> = msgs[i].tool_calls.iter().map(|c| c.id.as_str()).collect();
            let mut j = i + 1;
            let mut answered = Vec::new();
            while j < msgs.len() && msgs[j].role == Role::Tool {
                answered.push(msgs[j].tool_call_id.as_deref().unwrap_or(""));
                j += 1;
            }
            assert_eq!(ids, answered, "tool answers of message {i}");
            i = j;
        } else {
            assert_ne!(msgs[i].role, Role::Tool, "orphan tool message at {i}");
            i += 1;
        }
    }
}

fn roles(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|m| m["role"].as_str().unwrap_or("?").to_string())
                .collect()
        })
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// Statuses

#[test]
fn completed_plain_answer() {
    let m = mock("plain", r#"{"steps": [{"say": "Hallo!"}]}"#);
    let cfg = openai_config(&m, "plain");
    let mut h = TestHost::new();
    let o = run(&cfg, &mut h, "Hi");
    assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
    assert_eq!(o.answer.as_deref(), Some("Hallo!"));
    assert_eq!((o.iterations, o.tool_calls), (1, 0));
    assert!(o.usage.prompt_tokens > 0 && o.usage.completion_tokens > 0);
    assert_eq!(
        o.messages.len(),
        2,
        "question + answer, no system prompt: {:?}",
        o.messages
    );
    let reqs = m.requests(Some("plain"));
    assert_eq!(reqs.len(), 1);
    assert_eq!(
        reqs[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let b = reqs[0].json().unwrap();
    assert_eq!(roles(&b), ["system", "user"]);
    assert_eq!(b["tool_choice"], "auto");
    assert_eq!(b["tools"].as_array().map(Vec::len), Some(4));
    // The run's messages: the question and the answer (the system prompt is sent, not kept).
    assert_eq!(
        o.messages.iter().map(|m| m.role).collect::<Vec<_>>(),
        [Role::User, Role::Assistant]
    );
    assert_eq!(h.exchanges.len(), 1);
    assert_eq!(h.exchanges[0].http_status, Some(200));
    assert!(!h.exchanges[0].repaired);
}

#[test]
fn openai_without_key_sends_no_authorization() {
    let m = mock("nokey", r#"{"steps": [{"say": "ok"}]}"#);
    let mut cfg = openai_config(&m, "nokey");
    cfg.provider.api_key = None;
    let o = run(&cfg, &mut TestHost::new(), "Hi");
    assert_eq!(o.status, ChatStatus::Completed);
    assert_eq!(m.requests(Some("nokey"))[0].header("authorization"), None);
}

#[test]
fn tool_call_then_answer() {
    let m = mock(
        "tool",
        r#"{"steps": [
            {"call": [{"name": "getTarifVertrag", "arguments": {"tarifgebiet": "Bayern", "fachbereich": "Metall"}}]},
            {"echo_last_tool_result": true}
        ]}"#,
    );
    let cfg = openai_config(&m, "tool");
    let mut h = TestHost::new();
    let o = run(
        &cfg,
        &mut h,
        "Welche Tarifverträge gelten für Metall in Bayern?",
    );
    assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
    assert_eq!(
        o.answer.as_deref(),
        Some("2 Tarifverträge für Bayern / Metall")
    );
    assert_eq!(
        (o.iterations, o.tool_calls, o.rejected_tool_calls),
        (2, 1, 0)
    );
    let b = bodies(&m, "tool");
    assert_eq!(roles(&b[1]), ["system", "user", "assistant", "tool"]);
    let call_id = b[1]["messages"][2]["tool_calls"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(b[1]["messages"][3]["tool_call_id"], call_id.as_str());
    assert_no_orphans(&o.messages);
    assert_eq!(h.records.len(), 1);
    assert_eq!(
        (h.records[0].status, h.records[0].executed),
        (ToolCallStatus::Ok, true)
    );
}

#[test]
fn parallel_tool_calls_all_answered_in_order() {
    let m = mock(
        "par",
        r#"{"steps": [
            {"call": [
                {"name": "getTarifVertrag", "arguments": {"tarifgebiet": "Bayern", "fachbereich": "Metall"}},
                {"name": "getTarifVertrag", "arguments": {"tarifgebiet": "Hessen", "fachbereich": "Metall"}},
                {"name": "fetch", "arguments": {"n": 7}}
            ]},
            {"say": "fertig"}
        ]}"#,
    );
    let cfg = openai_config(&m, "par");
    let mut h = TestHost::new();
    let o = run(&cfg, &mut h, "Vergleiche");
    assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
    assert_eq!(o.tool_calls, 3);
    let names: Vec<&str> = h.executed.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["getTarifVertrag", "getTarifVertrag", "fetch"]);
    let b = bodies(&m, "par");
    assert_eq!(
        roles(&b[1]),
        ["system", "user", "assistant", "tool", "tool", "tool"]
    );
    let ids: Vec<&str> = b[1]["messages"][2]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    let answered: Vec<&str> = (3..6)
        .map(|i| b[1]["messages"][i]["tool_call_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, answered);
    assert!(b[1]["messages"][4]["content"]
        .as_str()
        .unwrap()
        .contains("Hessen"));
    assert_no_orphans(&o.messages);
}

#[test]
fn validation_correction_round_trip() {
    let m = mock(
        "fix",
        r#"{"steps": [
            {"call": [{"name": "getTarifVertrag", "arguments": {"tarifgebiet": "Bayern", "max_rows": "25"}}]},
            {"call": [{"name": "getTarifVertrag", "arguments": {"tarifgebiet": "Bayern", "fachbereich": "Metall"}}]},
            {"say": "Es gelten 2 Verträge."}
        ]}"#,
    );
    let cfg = openai_config(&m, "fix");
    let mut h = TestHost::new();
    let o = run(&cfg, &mut h, "Tarif Bayern?");
    assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
    assert_eq!(
        (o.iterations, o.tool_calls, o.rejected_tool_calls),
        (3, 1, 1)
    );
    assert_eq!(h.executed.len(), 1, "the invalid call must not run");
    assert_eq!(h.executed[0].arguments["fachbereich"], "Metall");
    let b = bodies(&m, "fix");
    let correction = b[1]["messages"][3]["content"].as_str().unwrap();
    assert!(correction.starts_with("Tool call failed"), "{correction}");
    assert!(correction.contains("fachbereich"), "{correction}");
    assert!(correction.contains("max_rows"), "{correction}");
    assert_eq!(h.records[0].status, ToolCallStatus::Invalid);
    assert!(h.records[0]
        .validation_errors
        .as_array()
        .is_some_and(|a| a.len() == 2));
    assert_no_orphans(&o.messages);
}

#[test]
fn needs_input_then_continue_session() {
    let m = mock(
        "dialog",
        r#"{"steps": [
            {"call": [{"name": "getDialog", "arguments": {"missing_parameters": ["tarifgebiet"], "context": "Metallindustrie"}}]},
            {"say": "unused"},
            {"say": "Für Bayern gilt der Manteltarifvertrag."}
        ]}"#,
    );
    let cfg = openai_config(&m, "dialog");
    let mut h = TestHost::new();
    let o = run(
        &cfg,
        &mut h,
        "Welche Tarifverträge gelten für die Metallindustrie?",
    );
    assert_eq!(o.status, ChatStatus::NeedsInput, "{:?}", o.error);
    let q = o.answer.clone().unwrap();
    assert!(q.contains("tarifgebiet"), "{q}");
    assert_eq!(
        o.needs_input.as_ref().unwrap()["missing_parameters"][0],
        "tarifgebiet"
    );
    assert_eq!(o.messages.last().unwrap().role, Role::Assistant);
    assert_eq!(o.messages.last().unwrap().text(), q);
    assert_no_orphans(&o.messages);

    // The caller stores o.messages and continues with the user's reply.
    let mut h2 = TestHost::new();
    let o2 = run_chat(
        &cfg,
        o.messages.clone(),
        "Bayern",
        &mut h2,
        &HttpClient::new(),
    );
    assert_eq!(o2.status, ChatStatus::Completed, "{:?}", o2.error);
    assert_eq!(
        o2.answer.as_deref(),
        Some("Für Bayern gilt der Manteltarifvertrag.")
    );
    let b = bodies(&m, "dialog");
    assert_eq!(b.len(), 2);
    assert_eq!(
        roles(&b[1]),
        ["system", "user", "assistant", "tool", "assistant", "user"]
    );
    assert_eq!(b[1]["messages"][5]["content"], "Bayern");
    assert_eq!(o2.messages.len(), o.messages.len() + 2);
    assert_no_orphans(&o2.messages);
}

#[test]
fn max_iterations_stops_and_answers_pending_calls() {
    let m = mock(
        "iter",
        r#"{"steps": [
            {"call": [{"name": "fetch", "arguments": {"n": 1}}]},
            {"call": [{"name": "fetch", "arguments": {"n": 2}}]},
            {"call": [{"name": "fetch", "arguments": {"n": 3}}]},
            {"say": "never"}
        ]}"#,
    );
    let mut cfg = openai_config(&m, "iter");
    cfg.max_iterations = 3;
    let mut h = TestHost::new();
    let o = run(&cfg, &mut h, "loop");
    assert_eq!(o.status, ChatStatus::MaxIterations);
    assert_eq!(
        (o.iterations, o.tool_calls, o.rejected_tool_calls),
        (3, 2, 1)
    );
    assert_eq!(o.error.as_ref().unwrap().kind, "max_iterations");
    assert!(o.messages.last().unwrap().text().contains("not executed"));
    assert_no_orphans(&o.messages);
    assert_eq!(h.records.last().unwrap().status, ToolCallStatus::Skipped);

    let mut c = cfg.clone();
    c.max_iterations = 1000;
    assert_eq!(c.effective_max_iterations(), MAX_ITERATIONS_HARD_CAP);
    c.max_iterations = 0;
    assert_eq!(c.effective_max_iterations(), 1);
    assert_eq!(
        ChatConfig::new(ProviderConfig::default()).effective_max_iterations(),
        10
    );
}

#[test]
fn loop_detected_on_repeated_call_with_same_arguments() {
    let m = mock(
        "loop",
        r#"{"steps": [
            {"call": [{"name": "getTarifVertrag", "arguments": {"tarifgebiet": "Bayern", "fachbereich": "Metall"}}]},
            {"call": [{"name": "getTarifVertrag", "arguments": {"fachbereich": "Metall", "tarifgebiet": "Bayern"}}]}
        ]}"#,
    );
    let cfg = openai_config(&m, "loop");
    let mut h = TestHost::new();
    let o = run(&cfg, &mut h, "Tarif?");
    assert_eq!(o.status, ChatStatus::LoopDetected);
    assert_eq!((o.iterations, o.tool_calls), (2, 1));
    assert!(o
        .error
        .as_ref()
        .unwrap()
        .message
        .contains("getTarifVertrag"));
    assert_no_orphans(&o.messages);
}

#[test]
fn budget_exceeded_by_reported_usage() {
    let m = mock(
        "budget",
        r#"{"steps": [
            {"call": [{"name": "fetch", "arguments": {"n": 1}}], "usage": {"prompt_tokens": 1000, "completion_tokens": 100}},
            {"call": [{"name": "fetch", "arguments": {"n": 2}}], "usage": {"prompt_tokens": 1000, "completion_tokens": 100}},
            {"say": "never", "usage": {"prompt_tokens": 1000, "completion_tokens": 100}}
        ]}"#,
    );
    let mut cfg = openai_config(&m, "budget");
    cfg.max_total_tokens = Some(1500);
    let mut h = TestHost::new();
    let o = run(&cfg, &mut h, "much");
    assert_eq!(o.status, ChatStatus::BudgetExceeded, "{:?}", o.error);
    assert!(o.usage.prompt_tokens + o.usage.completion_tokens >= 1100);
    assert!(!o.usage_estimated);
    assert!(m.requests(Some("budget")).len() <= 2);
    assert_no_orphans(&o.messages);

    // A budget too small for even the first request: stopped before sending anything.
    let mut tiny = openai_config(&m, "budget");
    tiny.max_total_tokens = Some(10);
    m.clear_requests();
    let o = run(&tiny, &mut TestHost::new(), "much");
    assert_eq!(o.status, ChatStatus::BudgetExceeded);
    assert_eq!(o.iterations, 0);
    assert!(m.requests(Some("budget")).is_empty());
}

#[test]
fn server_error_fails_with_normalized_error_after_retries() {
    let m = mock(
        "boom",
        r#"{"steps": [{"status": 500, "error": "The server had an error"}]}"#,
    );
    let cfg = openai_config(&m, "boom");
    let mut h = TestHost::new();
    let o = run(&cfg, &mut h, "Hi");
    assert_eq!(o.status, ChatStatus::Failed);
    let e = o.error.unwrap();
    assert_eq!(e.kind, "server");
    assert_eq!(e.http_status, Some(500));
    assert!(e.message.contains("server had an error"), "{}", e.message);
    assert_eq!(h.exchanges.len(), 1);
    assert_eq!(h.exchanges[0].attempts, 3, "max_retries 2");
    assert_eq!(h.exchanges[0].retries(), 2);
    assert!(h.exchanges[0].error.is_some());
    assert_eq!(m.requests(Some("boom")).len(), 3);
}

#[test]
fn rate_limited_with_retry_after_then_success() {
    let m = mock(
        "rl",
        r#"{"steps": [{"attempts": [
            {"status": 429, "headers": {"retry-after": "1"}, "error": "Rate limit reached"},
            {"say": "after the wait"}
        ]}]}"#,
    );
    let cfg = openai_config(&m, "rl");
    let mut h = TestHost::new();
    let t0 = Instant::now();
    let o = run(&cfg, &mut h, "Hi");
    assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
    assert_eq!(o.answer.as_deref(), Some("after the wait"));
    assert!(
        t0.elapsed() >= Duration::from_millis(900),
        "Retry-After honoured"
    );
    assert_eq!(h.exchanges[0].attempts, 2);
    assert_eq!(h.exchanges[0].http_status, Some(200));
}

#[test]
fn cancelled_promptly_while_llm_never_answers() {
    let m = mock("hang", r#"{"steps": [{"fault": "never_answer"}]}"#);
    let cfg = openai_config(&m, "hang");
    let mut h = TestHost::new();
    let flag = h.interrupt.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        flag.store(true, Ordering::SeqCst);
    });
    let t0 = Instant::now();
    let o = run(&cfg, &mut h, "Hi");
    let took = t0.elapsed();
    t.join().unwrap();
    assert_eq!(o.status, ChatStatus::Cancelled);
    assert!(took < Duration::from_secs(3), "took {took:?}");
    assert_eq!(o.error.unwrap().kind, "cancelled");
    assert_eq!(h.exchanges.len(), 1);
    assert!(h.exchanges[0].cancelled);
    assert_eq!(h.exchanges[0].response_body, None);
}

#[test]
fn cancelled_during_a_tool_skips_the_rest_of_the_batch() {
    let m = mock(
        "tcancel",
        r#"{"steps": [
            {"call": [{"name": "fail_tool", "arguments": {}}, {"name": "fetch", "arguments": {"n": 1}}]},
            {"say": "never"}
        ]}"#,
    );
    let cfg = openai_config(&m, "tcancel");
    let mut h = TestHost::new();
    h.cancel_in_tool = true;
    let o = run(&cfg, &mut h, "Hi");
    assert_eq!(o.status, ChatStatus::Cancelled);
    assert_eq!(h.executed.len(), 1);
    assert_eq!(
        (h.records[0].status, h.records[0].reason.as_deref()),
        (ToolCallStatus::Error, Some("cancelled"))
    );
    assert_eq!(h.records[1].status, ToolCallStatus::Skipped);
    assert_eq!(m.requests(Some("tcancel")).len(), 1);
    assert_no_orphans(&o.messages);
}

#[test]
fn a_damaged_stored_session_is_repaired_before_sending() {
    let m = mock("damaged", r#"{"steps": [{"say": "ok"}]}"#);
    let cfg = openai_config(&m, "damaged");
    let history = vec![
        Message::system("stale prompt"),
        Message::user("q1"),
        Message::assistant_tool_calls(
            None,
            vec![ToolCall::new("call_x", "fetch", json!({"n": 1}))],
        ),
        Message::user("q2"),
    ];
    let o = run_chat(
        &cfg,
        history,
        "q3",
        &mut TestHost::new(),
        &HttpClient::new(),
    );
    assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
    let b = bodies(&m, "damaged");
    assert_eq!(
        roles(&b[0]),
        ["system", "user", "assistant", "tool", "user", "user"]
    );
    assert_eq!(
        b[0]["messages"][0]["content"],
        "Use tools for facts. Never guess."
    );
    assert_eq!(b[0]["messages"][3]["tool_call_id"], "call_x");
    assert_no_orphans(&o.messages);
}

#[test]
fn a_stop_while_the_answer_arrives_ends_the_run_without_it() {
    let m = mock("late", r#"{"steps": [{"say": "the answer"}]}"#);
    let cfg = openai_config(&m, "late");
    let mut h = TestHost::new();
    h.interrupt_on_exchange = true;
    let o = run(&cfg, &mut h, "Hi");
    assert_eq!(o.status, ChatStatus::Cancelled);
    assert_eq!(o.answer, None);
    assert_eq!(o.error.unwrap().kind, "cancelled");
    // the exchange happened and is recorded with its answer
    assert_eq!(h.exchanges.len(), 1);
    assert!(h.exchanges[0]
        .response_body
        .as_deref()
        .is_some_and(|b| b.contains("the answer")));
    assert_no_orphans(&o.messages);
}

#[test]
fn cancelled_before_the_first_request() {
    let m = mock("pre", r#"{"steps": [{"say": "x"}]}"#);
    let cfg = openai_config(&m, "pre");
    let mut h = TestHost::new();
    h.interrupt.store(true, Ordering::SeqCst);
    let o = run(&cfg, &mut h, "Hi");
    assert_eq!(o.status, ChatStatus::Cancelled);
    assert!(m.requests(Some("pre")).is_empty());
}

// ---------------------------------------------------------------------------------------------
// tool_choice

#[test]
fn tool_choice_modes_as_sent() {
    let scenario = r#"{"steps": [
        {"call": [{"name": "getTarifVertrag", "arguments": {"tarifgebiet": "Bayern", "fachbereich": "Metall"}}]},
        {"say": "done"}
    ]}"#;
    let cases: Vec<(ToolChoice, Value)> = vec![
        (ToolChoice::Auto, json!("auto")),
        (ToolChoice::Required, json!("required")),
        (
            ToolChoice::Function("getTarifVertrag".into()),
            json!({"type": "function", "function": {"name": "getTarifVertrag"}}),
        ),
    ];
    for (i, (choice, wire)) in cases.into_iter().enumerate() {
        let name = format!("tc{i}");
        let m = mock(&name, scenario);
        let mut cfg = openai_config(&m, &name);
        cfg.tool_choice = choice.clone();
        let o = run(&cfg, &mut TestHost::new(), "Tarif?");
        assert_eq!(o.status, ChatStatus::Completed, "{choice:?}: {:?}", o.error);
        let b = bodies(&m, &name);
        assert_eq!(b[0]["tool_choice"], wire, "{choice:?}");
        // Forced modes apply to the first request only.
        assert_eq!(b[1]["tool_choice"], "auto", "{choice:?}");
    }

    // none: tools still listed, "none" sent; a call made anyway is refused, not executed.
    let m = mock("tcnone", scenario);
    let mut cfg = openai_config(&m, "tcnone");
    cfg.tool_choice = ToolChoice::None;
    let mut h = TestHost::new();
    let o = run(&cfg, &mut h, "Tarif?");
    assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
    assert!(h.executed.is_empty());
    assert_eq!(
        (h.records[0].status, h.records[0].reason.as_deref()),
        (ToolCallStatus::Denied, Some("tool_choice is none"))
    );
    let b = bodies(&m, "tcnone");
    assert_eq!(b[0]["tool_choice"], "none");
    assert_eq!(b[1]["tool_choice"], "none");
    assert!(b[0]["tools"].is_array());
}

#[test]
fn tool_choice_naming_an_unknown_tool_fails_before_sending() {
    let m = mock("tcbad", r#"{"steps": [{"say": "x"}]}"#);
    let mut cfg = openai_config(&m, "tcbad");
    cfg.tool_choice = ToolChoice::Function("nope".into());
    let o = run(&cfg, &mut TestHost::new(), "Hi");
    assert_eq!(o.status, ChatStatus::Failed);
    assert_eq!(o.error.unwrap().kind, "config");
    assert!(m.requests(None).is_empty());
}

// ---------------------------------------------------------------------------------------------
// Malformed answers

#[test]
fn truncated_tool_call_is_not_executed() {
    let cut = r#"{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"getTarifVertrag","arguments":"{\"tarifgebiet\":\"Bayern\",\"fachbereich\":\"Metall\"}"}},{"id":"call_b","type":"function","function":{"name":"getTarifVertrag","arguments":"{\"tarifgebiet\":\"Hes"#;
    let scenario = json!({"steps": [{"body": cut}, {"say": "done"}]}).to_string();
    let m = mock("cut", &scenario);
    let cfg = openai_config(&m, "cut");
    let mut h = TestHost::new();
    let o = run(&cfg, &mut h, "Tarif?");
    assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
    assert_eq!(h.executed.len(), 1);
    assert_eq!(h.executed[0].arguments["tarifgebiet"], "Bayern");
    assert_eq!((o.tool_calls, o.rejected_tool_calls), (1, 1));
    assert_eq!(
        (h.records[1].status, h.records[1].executed),
        (ToolCallStatus::Invalid, false)
    );
    assert!(h.exchanges[0].repaired);
    let b = bodies(&m, "cut");
    assert_eq!(
        roles(&b[1]),
        ["system", "user", "assistant", "tool", "tool"]
    );
    assert_eq!(
        b[1]["messages"][2]["tool_calls"][1]["function"]["arguments"],
        "{}"
    );
    assert!(b[1]["messages"][4]["content"]
        .as_str()
        .unwrap()
        .contains("cut off"));
    assert_no_orphans(&o.messages);
}

#[test]
fn fenced_and_prose_responses_are_repaired() {
    let inner = json!({
        "id": "x", "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Antwort"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}
    })
    .to_string();
    let fenced = format!("```json\n{inner}\n```");
    let prose = format!("Here is the response you asked for:\n{inner}\nHope this helps!");
    for (i, body) in [fenced, prose].into_iter().enumerate() {
        let name = format!("rep{i}");
        let m = mock(&name, &json!({"steps": [{"body": body}]}).to_string());
        let cfg = openai_config(&m, &name);
        let mut h = TestHost::new();
        let o = run(&cfg, &mut h, "Hi");
        assert_eq!(o.status, ChatStatus::Completed, "{i}: {:?}", o.error);
        assert_eq!(o.answer.as_deref(), Some("Antwort"));
        assert!(h.exchanges[0].repaired, "{i}");
        assert!(!h.exchanges[0].fixes.is_empty());
    }
}

#[test]
fn unknown_tool_and_tool_errors_go_back_to_the_model() {
    let m = mock(
        "errs",
        r#"{"steps": [
            {"call": [{"name": "dropTables", "arguments": {}}, {"name": "fail_tool", "arguments": {}}]},
            {"say": "Sorry."}
        ]}"#,
    );
    let cfg = openai_config(&m, "errs");
    let mut h = TestHost::new();
    let o = run(&cfg, &mut h, "Hi");
    assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
    assert_eq!(h.executed.len(), 1);
    assert_eq!(
        (h.records[0].status, h.records[0].reason.as_deref()),
        (ToolCallStatus::Denied, Some("tool not offered in this run"))
    );
    assert_eq!(
        (h.records[1].status, h.records[1].executed),
        (ToolCallStatus::Error, true)
    );
    let b = bodies(&m, "errs");
    let unknown = b[1]["messages"][3]["content"].as_str().unwrap();
    assert!(
        unknown.contains("unknown tool 'dropTables'") && unknown.contains("getTarifVertrag"),
        "{unknown}"
    );
    let failed = b[1]["messages"][4]["content"].as_str().unwrap();
    assert!(
        !failed.contains("division"),
        "operator detail never reaches the model"
    );
}

#[test]
fn empty_answer_fails() {
    let m = mock("empty", r#"{"steps": [{"say": ""}]}"#);
    let o = run(&openai_config(&m, "empty"), &mut TestHost::new(), "Hi");
    assert_eq!(o.status, ChatStatus::Failed);
    assert_eq!(o.error.unwrap().kind, "empty_answer");
}

// ---------------------------------------------------------------------------------------------
// Dialects

#[test]
fn azure_dialect_end_to_end() {
    let m = mock(
        "az",
        r#"{"steps": [
            {"call": [{"name": "getTarifVertrag", "arguments": {"tarifgebiet": "Bayern", "fachbereich": "Metall"}}]},
            {"echo_last_tool_result": true}
        ]}"#,
    );
    let mut p = ProviderConfig::new(ProviderKind::Azure, m.scenario_url("az"), "gpt4o-deploy")
        .with_key(KEY);
    p.api_version = Some("2024-06-01".into());
    let mut cfg = ChatConfig::new(p);
    cfg.http = fast_http();
    let mut h = TestHost::new();
    let o = run(&cfg, &mut h, "Tarif?");
    assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
    assert_eq!(
        o.answer.as_deref(),
        Some("2 Tarifverträge für Bayern / Metall")
    );
    let reqs: Vec<RecordedRequest> = m.requests(Some("az"));
    assert_eq!(reqs.len(), 2);
    assert!(reqs[0]
        .path
        .contains("/openai/deployments/gpt4o-deploy/chat/completions?api-version=2024-06-01"));
    assert_eq!(reqs[0].header("api-key"), Some(KEY));
    assert_eq!(reqs[0].header("authorization"), None);
    assert!(
        !h.exchanges[0].url.contains("api-version"),
        "audit URL carries no query"
    );
}

#[test]
fn anthropic_dialect_end_to_end() {
    let m = mock(
        "an",
        r#"{"steps": [
            {"call": [
                {"name": "getTarifVertrag", "arguments": {"tarifgebiet": "Bayern", "fachbereich": "Metall"}},
                {"name": "fetch", "arguments": {"n": 1}}
            ]},
            {"say": "Zwei Verträge."}
        ]}"#,
    );
    let mut p = ProviderConfig::new(
        ProviderKind::Anthropic,
        format!("{}/v1", m.scenario_url("an")),
        "claude-x",
    )
    .with_key(KEY);
    p.max_completion_tokens = Some(512);
    let mut cfg = ChatConfig::new(p);
    cfg.system_prompts = vec!["Sys A".into(), "Sys B".into()];
    cfg.tool_choice = ToolChoice::Required;
    cfg.http = fast_http();
    let mut h = TestHost::new();
    let o = run(&cfg, &mut h, "Tarif?");
    assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
    assert_eq!(o.answer.as_deref(), Some("Zwei Verträge."));
    assert_eq!(o.tool_calls, 2);
    let reqs = m.requests(Some("an"));
    assert_eq!(reqs[0].header("x-api-key"), Some(KEY));
    assert_eq!(reqs[0].header("anthropic-version"), Some(ANTHROPIC_VERSION));
    let b0 = reqs[0].json().unwrap();
    assert_eq!(b0["system"], "Sys A\n\nSys B");
    assert_eq!(b0["tool_choice"], json!({"type": "any"}));
    assert_eq!(b0["max_tokens"], 512);
    assert!(b0["tools"][0]["input_schema"].is_object());
    let b1 = reqs[1].json().unwrap();
    assert_eq!(b1["tool_choice"], json!({"type": "auto"}));
    let msgs = b1["messages"].as_array().unwrap();
    assert_eq!(
        msgs.len(),
        3,
        "user, assistant tool_use, user tool_results: {msgs:?}"
    );
    let uses: Vec<&str> = msgs[1]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_use")
        .map(|b| b["id"].as_str().unwrap())
        .collect();
    let results: Vec<&str> = msgs[2]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| b["tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(uses, results);
    assert_eq!(uses.len(), 2);
}

#[test]
fn replay_provider_reproduces_a_recorded_run() {
    let m = mock(
        "rec",
        r#"{"steps": [
            {"call": [{"name": "getTarifVertrag", "arguments": {"tarifgebiet": "Bayern", "fachbereich": "Metall"}}]},
            {"say": "Recorded answer."}
        ]}"#,
    );
    let cfg = openai_config(&m, "rec");
    let mut h = TestHost::new();
    let live = run(&cfg, &mut h, "Tarif?");
    assert_eq!(live.status, ChatStatus::Completed);
    let recorded: Vec<String> = h
        .exchanges
        .iter()
        .filter_map(|e| e.response_body.clone())
        .collect();
    assert_eq!(recorded.len(), 2);

    let mut rcfg = ChatConfig::new(ProviderConfig::replay("mock-model", recorded.clone()));
    rcfg.system_prompts = cfg.system_prompts.clone();
    let mut h2 = TestHost::new();
    let replayed = run(&rcfg, &mut h2, "Tarif?");
    assert_eq!(
        replayed.status,
        ChatStatus::Completed,
        "{:?}",
        replayed.error
    );
    assert_eq!(replayed.answer, live.answer);
    assert_eq!(h2.executed, h.executed, "tools run live on replay");
    assert_eq!(h2.exchanges[0].url, "replay:");
    assert_eq!(h2.exchanges[0].http_status, None);
    assert_eq!(
        m.requests(Some("rec")).len(),
        2,
        "replay makes no HTTP request"
    );

    // An exhausted recording fails cleanly.
    let short = ChatConfig::new(ProviderConfig::replay("mock-model", recorded[..1].to_vec()));
    let o = run(&short, &mut TestHost::new(), "Tarif?");
    assert_eq!(o.status, ChatStatus::Failed);
    assert_eq!(o.error.unwrap().kind, "replay_exhausted");
    assert_no_orphans(&o.messages);
}

// ---------------------------------------------------------------------------------------------
// Context management

#[test]
fn pruning_keeps_requests_under_the_window() {
    let m = mock(
        "prune",
        r#"{"steps": [
            {"call": [{"name": "fetch", "arguments": {"n": 1}}]},
            {"call": [{"name": "fetch", "arguments": {"n": 2}}]},
            {"call": [{"name": "fetch", "arguments": {"n": 3}}]},
            {"call": [{"name": "fetch", "arguments": {"n": 4}}]},
            {"say": "done"}
        ]}"#,
    );
    let mut cfg = openai_config(&m, "prune");
    cfg.provider.context_window = Some(4000);
    cfg.provider.max_completion_tokens = Some(500);
    let mut h = TestHost::new();
    h.fetch_bytes = 4500; // ~1500 tokens each by the estimate: four of them exceed the window
    let o = run(&cfg, &mut h, "Read all documents");
    assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
    assert!(o.pruned_results >= 2, "pruned {}", o.pruned_results);
    assert_eq!(o.summaries, 0);
    for e in &h.exchanges {
        let n = e.counted_prompt_tokens.unwrap();
        assert!(n <= 3500, "request of {n} tokens exceeds window - reserve");
    }
    // What actually went over the wire: each request body stays bounded although the results
    // total ~18 KB.
    for r in m.requests(Some("prune")) {
        assert!(
            r.body.len() < 12_000,
            "request body of {} bytes",
            r.body.len()
        );
    }
    assert!(o
        .messages
        .iter()
        .any(|m| m.text().starts_with("[tool result pruned:")));
    assert_no_orphans(&o.messages);
}

#[test]
fn summarization_when_pruning_is_not_enough() {
    // A long stored session with little to prune: the old turns get summarized by one LLM call.
    let m = mock(
        "sum",
        r#"{"steps": [
            {"say": "Earlier: the user asked about Bayern and Hessen; answers listed contracts A and B."},
            {"say": "Final answer."}
        ]}"#,
    );
    let mut cfg = openai_config(&m, "sum");
    cfg.provider.context_window = Some(3000);
    cfg.provider.max_completion_tokens = Some(500);
    let long = "Tarifvertrag ".repeat(400); // ~1700 tokens
    let history = vec![
        Message::user("Tarif Bayern?"),
        Message::assistant(long.clone()),
        Message::user("Und Hessen?"),
        Message::assistant(long),
    ];
    let mut h = TestHost::new();
    let o = run_chat(
        &cfg,
        history,
        "Und jetzt Sachsen?",
        &mut h,
        &HttpClient::new(),
    );
    assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
    assert_eq!(o.summaries, 1);
    assert_eq!(h.exchanges.len(), 2);
    assert_eq!(h.exchanges[0].purpose, ExchangePurpose::Summary);
    assert_eq!(h.exchanges[1].purpose, ExchangePurpose::Chat);
    let b = bodies(&m, "sum");
    assert!(
        b[0].get("tools").is_none(),
        "no tools in the summary request"
    );
    assert!(b[0]["messages"][1]["content"]
        .as_str()
        .unwrap()
        .starts_with(SUMMARY_INSTRUCTION));
    // The chat request: system, first question, summary of the oldest turn (just enough to fit),
    // the rest of the session, the new question.
    assert_eq!(
        roles(&b[1]),
        ["system", "user", "assistant", "user", "assistant", "user"]
    );
    assert_eq!(b[1]["messages"][1]["content"], "Tarif Bayern?");
    assert!(b[1]["messages"][2]["content"]
        .as_str()
        .unwrap()
        .starts_with("[summary of earlier steps]"));
    assert_eq!(b[1]["messages"][5]["content"], "Und jetzt Sachsen?");
    assert_eq!(
        o.messages.len(),
        6,
        "stored session carries the summary, not the old turn"
    );
    assert!(h.exchanges[1].counted_prompt_tokens.unwrap() <= 2500);
    assert!(o.usage.prompt_tokens > 0);
}

// ---------------------------------------------------------------------------------------------
// Secrets

fn assert_no_key(what: &str, s: &str) {
    assert!(!s.contains(KEY), "key found in {what}: {s}");
    assert!(
        !s.contains("SECRET-9f8e"),
        "key fragment found in {what}: {s}"
    );
}

#[test]
fn secret_never_in_exchanges_errors_or_messages() {
    let m = mock(
        "sec",
        &json!({"steps": [
            {"call": [{"name": "getTarifVertrag", "arguments": {"tarifgebiet": "Bayern", "fachbereich": "Metall"}}]},
            {"status": 401, "error": format!("Incorrect API key provided: {KEY}. You can find your API key at https://example.invalid.")}
        ]})
        .to_string(),
    );
    for kind in [
        ProviderKind::Openai,
        ProviderKind::Azure,
        ProviderKind::Anthropic,
    ] {
        m.clear_requests();
        let base = match kind {
            ProviderKind::Azure => m.scenario_url("sec"),
            _ => format!("{}/v1", m.scenario_url("sec")),
        };
        let mut cfg = ChatConfig::new(ProviderConfig::new(kind, base, "mock-model").with_key(KEY));
        cfg.http = fast_http();
        cfg.provider.options.insert("user".into(), json!("analyst"));
        let mut h = TestHost::new();
        let o = run(&cfg, &mut h, "Tarif?");
        assert_eq!(o.status, ChatStatus::Failed, "{kind:?}");
        let e = o.error.clone().unwrap();
        assert_eq!(e.kind, "auth", "{kind:?}");
        assert_eq!(e.http_status, Some(401));
        assert_no_key("error", &e.to_json().to_string());
        assert_no_key("outcome", &o.to_json().to_string());
        assert_no_key("messages", &o.messages_json().to_string());
        assert_eq!(h.exchanges.len(), 2);
        for ex in &h.exchanges {
            assert_no_key("exchange", &ex.to_json().to_string());
            assert_no_key("exchange debug", &format!("{ex:?}"));
        }
        for r in &h.records {
            assert_no_key("tool record", &r.to_json().to_string());
        }
        assert_no_key("config debug", &format!("{cfg:?}"));
        // The key did go out, in the header only.
        let reqs = m.requests(Some("sec"));
        assert!(reqs.iter().all(|r| !r.body.contains(KEY)));
        assert!(
            reqs[0].headers.iter().any(|(_, v)| v.contains(KEY)),
            "{kind:?}"
        );
    }
}

#[test]
fn key_echoed_in_a_200_answer_reaches_nothing() {
    // A key with characters JSON and percent-encoding escape, so each form differs.
    let key = r#"sk-te"st/ECHO+key\9f8e7d6c"#;
    let m = mock(
        "echo",
        r#"{"steps": [
            {"echo_headers": true, "finish_reason": "stop"}
        ]}"#,
    );
    for kind in [
        ProviderKind::Openai,
        ProviderKind::Azure,
        ProviderKind::Anthropic,
    ] {
        let base = match kind {
            ProviderKind::Azure => m.scenario_url("echo"),
            _ => format!("{}/v1", m.scenario_url("echo")),
        };
        let mut cfg = ChatConfig::new(ProviderConfig::new(kind, base, "mock-model").with_key(key));
        cfg.http = fast_http();
        let mut h = TestHost::new();
        let o = run(&cfg, &mut h, "Zeig mir die Header");
        assert_eq!(o.status, ChatStatus::Completed, "{kind:?}: {:?}", o.error);
        let answer = o.answer.clone().unwrap();
        assert!(answer.contains("[redacted]"), "{kind:?}: {answer}");
        let mut texts = vec![
            ("outcome", o.to_json().to_string()),
            ("messages", o.messages_json().to_string()),
            ("answer", answer),
        ];
        for ex in &h.exchanges {
            texts.push(("exchange", ex.to_json().to_string()));
            texts.push(("raw response", ex.response_body.clone().unwrap_or_default()));
        }
        for msg in &o.messages {
            texts.push(("message", msg.text().to_string()));
        }
        for (what, text) in &texts {
            for form in mock_llm::echoed_forms(key) {
                assert!(
                    !text.contains(&form),
                    "{kind:?}: {form:?} in {what}: {text}"
                );
            }
        }
    }
    // Replay bodies (no HTTP) are scrubbed by the engine itself.
    let body = json!({"choices": [{"message": {"role": "assistant",
        "content": format!("echo: x-api-key: {key}")}, "finish_reason": "stop"}]})
    .to_string();
    let rcfg = ChatConfig::new(ProviderConfig::replay("mock-model", vec![body]).with_key(key));
    let o = run(&rcfg, &mut TestHost::new(), "echo");
    assert_eq!(o.answer.as_deref(), Some("echo: x-api-key: [redacted]"));
}

// ---------------------------------------------------------------------------------------------
// Provider-reported numbers

#[test]
fn absurd_usage_counts_saturate_instead_of_wrapping() {
    let answer = |p: &str, c: &str| {
        format!(
            r#"{{"choices":[{{"message":{{"role":"assistant","content":"ok"}},"finish_reason":"stop"}}],
                "usage":{{"prompt_tokens":{p},"completion_tokens":{c}}}}}"#
        )
    };
    // 3e9 does not fit an i32; it stays exact.
    let cfg = ChatConfig::new(ProviderConfig::replay(
        "mock-model",
        vec![answer("3000000000", "3000000000")],
    ));
    let o = run(&cfg, &mut TestHost::new(), "q");
    assert_eq!(o.usage.prompt_tokens, 3_000_000_000);
    assert_eq!(o.usage.completion_tokens, 3_000_000_000);
    // 1e30 saturates (no overflow panic in the sums, no wrap), also with a budget to check.
    let mut cfg = ChatConfig::new(ProviderConfig::replay(
        "mock-model",
        vec![answer("1e30", "18446744073709551615")],
    ));
    cfg.max_total_tokens = Some(u64::MAX);
    let mut h = TestHost::new();
    let o = run(&cfg, &mut h, "q");
    assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
    assert_eq!(o.usage.prompt_tokens, u64::MAX);
    assert_eq!(o.usage.total_tokens, u64::MAX);
    assert_eq!(h.exchanges[0].usage.completion_tokens, u64::MAX);
}

#[test]
fn unreachable_provider_fails_with_network_error() {
    // A port nothing listens on (bound, then dropped).
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut cfg = ChatConfig::new(
        ProviderConfig::new(
            ProviderKind::Openai,
            format!("http://127.0.0.1:{port}/v1"),
            "m",
        )
        .with_key(KEY),
    );
    cfg.http = fast_http();
    cfg.http.retry = RetryPolicy::none();
    let mut h = TestHost::new();
    let o = run(&cfg, &mut h, "Hi");
    assert_eq!(o.status, ChatStatus::Failed);
    let e = o.error.unwrap();
    assert_eq!(e.kind, "network");
    assert_eq!(e.code.as_deref(), Some("connect"));
    assert_no_key("error", &e.message);
}

#[test]
fn bad_base_url_is_a_config_error() {
    let cfg = ChatConfig::new(ProviderConfig::new(ProviderKind::Openai, "ftp://x", "m"));
    let o = run(&cfg, &mut TestHost::new(), "Hi");
    assert_eq!(o.status, ChatStatus::Failed);
    assert_eq!(o.error.unwrap().kind, "config");
}

// ---------------------------------------------------------------------------------------------
// Answers checked against the request, time budget

#[test]
fn tool_choice_ignored_gets_one_correction_then_violated() {
    for (i, choice) in [
        ToolChoice::Required,
        ToolChoice::Function("getTarifVertrag".into()),
    ]
    .into_iter()
    .enumerate()
    {
        let name = format!("tcv{i}");
        let m = mock(&name, r#"{"steps": [{"say": "I just know it."}]}"#);
        let mut cfg = openai_config(&m, &name);
        cfg.tool_choice = choice.clone();
        let mut h = TestHost::new();
        let o = run(&cfg, &mut h, "Tarif?");
        assert_eq!(o.status, ChatStatus::ToolChoiceViolated, "{choice:?}");
        assert_eq!(o.status.as_str(), "tool_choice_violated");
        assert_eq!(o.error.as_ref().unwrap().kind, "tool_choice_violated");
        assert_eq!((o.iterations, o.tool_calls), (2, 0));
        let b = bodies(&m, &name);
        assert_eq!(b.len(), 2, "one correction turn, then stop");
        // The correction repeats the forced choice and tells the model what was wrong.
        assert_eq!(b[1]["tool_choice"], b[0]["tool_choice"], "{choice:?}");
        assert_eq!(roles(&b[1]), ["system", "user", "assistant", "user"]);
    }
}

#[test]
fn tool_choice_honoured_after_the_correction_completes() {
    let m = mock(
        "tcfix",
        r#"{"steps": [
            {"say": "no tool"},
            {"call": [{"name": "getTarifVertrag", "arguments": {"tarifgebiet": "Bayern", "fachbereich": "Metall"}}]},
            {"say": "done"}
        ]}"#,
    );
    let mut cfg = openai_config(&m, "tcfix");
    cfg.tool_choice = ToolChoice::Required;
    let o = run(&cfg, &mut TestHost::new(), "Tarif?");
    assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
    assert_eq!((o.iterations, o.tool_calls), (3, 1));
    let b = bodies(&m, "tcfix");
    assert_eq!(b[1]["tool_choice"], "required");
    assert_eq!(b[2]["tool_choice"], "auto");
}

#[test]
fn answer_cut_off_at_the_token_limit_is_truncated() {
    let m = mock(
        "cut",
        r#"{"steps": [{"say": "Die Tarifverträge sind", "finish_reason": "length"}]}"#,
    );
    let cfg = openai_config(&m, "cut");
    let o = run(&cfg, &mut TestHost::new(), "Tarif?");
    assert_eq!(o.status, ChatStatus::Truncated);
    assert_eq!(o.answer.as_deref(), Some("Die Tarifverträge sind"));
    assert_eq!(o.error.as_ref().unwrap().kind, "truncated");
    assert_eq!(o.to_json()["status"], "truncated");
}

#[test]
fn deadline_spans_retries() {
    // Every attempt answers 503 after 400 ms; retries alone would take far longer than 1 s.
    let m = mock(
        "slow503",
        r#"{"steps": [{"status": 503, "error": "overloaded", "delay_ms": 400}]}"#,
    );
    let mut cfg = openai_config(&m, "slow503");
    cfg.http.retry.max_retries = 10;
    cfg.http.retry.base_delay = Duration::from_millis(200);
    cfg.http.retry.retry_budget = Duration::from_secs(30);
    cfg.deadline = Some(Duration::from_millis(1000));
    let t0 = Instant::now();
    let mut h = TestHost::new();
    let o = run(&cfg, &mut h, "Hi");
    let took = t0.elapsed();
    assert_eq!(o.status, ChatStatus::DeadlineExceeded, "{:?}", o.error);
    assert_eq!(o.error.as_ref().unwrap().kind, "deadline_exceeded");
    assert!(
        took >= Duration::from_millis(1000) && took < Duration::from_millis(1600),
        "{took:?}"
    );
    assert!(
        m.requests(Some("slow503")).len() >= 2,
        "retried within the budget"
    );
    assert_eq!(h.exchanges.len(), 1);
}

#[test]
fn deadline_cuts_a_slow_attempt_short() {
    let m = mock(
        "slowok",
        r#"{"steps": [{"say": "late", "delay_ms": 5000}]}"#,
    );
    let mut cfg = openai_config(&m, "slowok");
    cfg.deadline = Some(Duration::from_millis(500));
    let t0 = Instant::now();
    let o = run(&cfg, &mut TestHost::new(), "Hi");
    assert_eq!(o.status, ChatStatus::DeadlineExceeded, "{:?}", o.error);
    assert!(
        t0.elapsed() < Duration::from_millis(1200),
        "{:?}",
        t0.elapsed()
    );
    assert_eq!(
        m.requests(Some("slowok")).len(),
        1,
        "a timed-out request is not retried"
    );
}

// ---------------------------------------------------------------------------------------------
// Bounds on the work one model answer can cause (RunLimits)

/// A model answer with many calls: only the first `max_tool_calls_per_answer` run, the rest are
/// answered "not executed", and every call still has its tool message (no orphans).
#[test]
fn tool_calls_per_answer_are_capped() {
    let calls: Vec<Value> = (0..40)
        .map(|n| json!({"name": "fetch", "arguments": {"n": n}}))
        .collect();
    let sc = json!({"steps": [{"call": calls}, {"say": "fertig"}]}).to_string();
    let m = mock("many", &sc);
    let mut cfg = openai_config(&m, "many");
    cfg.limits.max_tool_calls_per_answer = 5;
    let mut h = TestHost::new();
    let o = run(&cfg, &mut h, "viel");
    assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
    assert_eq!(h.executed.len(), 5);
    assert_eq!(o.tool_calls, 5);
    let skipped: Vec<&ToolCallRecord> = h
        .records
        .iter()
        .filter(|r| r.status == ToolCallStatus::Skipped)
        .collect();
    assert_eq!(skipped.len(), 35);
    assert!(skipped[0]
        .reason
        .as_deref()
        .unwrap()
        .contains("at most 5 tool calls"));
    let b = bodies(&m, "many");
    assert_eq!(roles(&b[1]).iter().filter(|r| *r == "tool").count(), 40);
    assert_no_orphans(&o.messages);
}

/// The same call twice in one answer runs once; the repeat points at the first.
#[test]
fn duplicate_calls_within_one_answer_run_once() {
    let m = mock(
        "dup",
        r#"{"steps": [
            {"call": [
                {"name": "fetch", "arguments": {"n": 1}},
                {"name": "fetch", "arguments": {"n": 1}},
                {"name": "fetch", "arguments": {"n": 2}}
            ]},
            {"say": "fertig"}
        ]}"#,
    );
    let cfg = openai_config(&m, "dup");
    let mut h = TestHost::new();
    let o = run(&cfg, &mut h, "doppelt");
    assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
    let ns: Vec<i64> = h
        .executed
        .iter()
        .map(|c| c.arguments["n"].as_i64().unwrap())
        .collect();
    assert_eq!(ns, [1, 2]);
    let rep = h
        .records
        .iter()
        .find(|r| r.status == ToolCallStatus::Skipped)
        .expect("the repeat is answered");
    assert!(rep.reason.as_deref().unwrap().contains("repeats call"));
    assert_no_orphans(&o.messages);
}

/// Tool results over the run's byte budget: later calls are not run, and the requests sent to
/// the provider stay bounded by the budget (not by the number of calls times their size).
#[test]
fn tool_result_bytes_per_run_are_capped() {
    let calls: Vec<Value> = (0..10)
        .map(|n| json!({"name": "fetch", "arguments": {"n": n}}))
        .collect();
    let sc = json!({"steps": [{"call": calls}, {"say": "fertig"}]}).to_string();
    let m = mock("bytes", &sc);
    let mut cfg = openai_config(&m, "bytes");
    cfg.limits.max_result_bytes = 250_000;
    let mut h = TestHost::new();
    h.fetch_bytes = 100_000;
    let o = run(&cfg, &mut h, "groß");
    assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
    assert_eq!(h.executed.len(), 3, "100 kB each: the third crosses 250 kB");
    let b = &m.requests(Some("bytes"))[1];
    assert!(b.body.len() < 400_000, "request of {} bytes", b.body.len());
    assert!(h.records.iter().any(|r| r
        .reason
        .as_deref()
        .unwrap_or("")
        .contains("budget of 250000 bytes")));
}

/// A request body over the per-request limit is not sent: the run stops and says why.
#[test]
fn oversize_request_is_not_sent() {
    let m = mock(
        "big",
        r#"{"steps": [{"call": [{"name": "fetch", "arguments": {"n": 1}}]}, {"say": "fertig"}]}"#,
    );
    let mut cfg = openai_config(&m, "big");
    cfg.limits.max_request_bytes = 50_000;
    let mut h = TestHost::new();
    h.fetch_bytes = 80_000;
    let o = run(&cfg, &mut h, "groß");
    assert_eq!(o.status, ChatStatus::BudgetExceeded);
    let e = o.error.expect("error");
    assert_eq!(e.kind, "request_too_large");
    assert!(e.message.contains("limit of 50000 bytes"), "{}", e.message);
    assert_eq!(
        m.requests(Some("big")).len(),
        1,
        "the second request was not sent"
    );
    let last = h.exchanges.last().unwrap();
    assert!(last.error.is_some());
}

// ---------------------------------------------------------------------------------------------
// Tool calls written as text (open models behind a server without a tool parser)

fn text_answer(content: &str, finish: &str) -> String {
    json!({"id": "c", "object": "chat.completion", "model": "open-model",
           "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}]})
    .to_string()
}

fn replay_run(bodies: Vec<String>) -> (ChatOutcome, TestHost) {
    let cfg = ChatConfig::new(ProviderConfig::replay("open-model", bodies));
    let mut h = TestHost::new();
    let o = run(&cfg, &mut h, "Tarif?");
    (o, h)
}

#[test]
fn text_tool_call_completes_a_chat_and_reasoning_stays_out_of_the_conversation() {
    let kimi = "<think>Bayern, Metall: the tool knows.</think><|tool_calls_section_begin|><|tool_call_begin|>functions.getTarifVertrag:0<|tool_call_argument_begin|>{\"tarifgebiet\": \"Bayern\", \"fachbereich\": \"Metall\"}<|tool_call_end|><|tool_calls_section_end|>";
    let (o, h) = replay_run(vec![
        text_answer(kimi, "stop"),
        text_answer("<think>done</think>Zwei Tarifverträge.", "stop"),
    ]);
    assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
    assert_eq!(o.answer.as_deref(), Some("Zwei Tarifverträge."));
    assert_eq!(h.executed.len(), 1);
    assert_eq!(h.executed[0].name, "getTarifVertrag");
    assert_eq!(
        h.executed[0].arguments,
        json!({"tarifgebiet": "Bayern", "fachbereich": "Metall"})
    );
    assert_eq!(
        h.exchanges[0].reasoning.as_deref(),
        Some("Bayern, Metall: the tool knows.")
    );
    assert_eq!(h.exchanges[1].reasoning.as_deref(), Some("done"));
    for m in &o.messages {
        assert!(
            !m.text().contains("the tool knows") && !m.text().contains("<think>"),
            "{m:?}"
        );
    }
    assert_no_orphans(&o.messages);
}

#[test]
fn text_tool_calls_that_must_not_run_go_back_as_corrections() {
    let bad = [
        // not offered
        "<tool_call>{\"name\": \"drop_everything\", \"arguments\": {}}</tool_call>",
        // the issue's example: no JSON at all
        "[TOOL_CALLS] not json at all",
        // arguments not an object
        "<|channel|>commentary to=functions.getTarifVertrag <|constrain|>json<|message|>\"Bayern\"<|call|>",
    ];
    for text in bad {
        let (o, h) = replay_run(vec![
            text_answer(text, "stop"),
            text_answer("Ich frage nach.", "stop"),
        ]);
        assert_eq!(o.status, ChatStatus::Completed, "{text}: {:?}", o.error);
        assert!(h.executed.is_empty(), "{text}: {:?}", h.executed);
        assert_eq!(h.records.len(), 1, "{text}");
        assert!(!h.records[0].executed, "{text}");
        let tool_msg = o
            .messages
            .iter()
            .find(|m| m.role == Role::Tool)
            .expect("a tool answer");
        assert!(
            tool_msg.text().starts_with("Tool call failed"),
            "{text}: {}",
            tool_msg.text()
        );
        assert_no_orphans(&o.messages);
    }
}

#[test]
fn text_tool_call_cut_off_is_not_executed() {
    let cut = "<tool_call>\n<function=getTarifVertrag>\n<parameter=tarifgebiet>\nBayern\n</parameter>\n<parameter=fachbereich>\nMet";
    let (o, h) = replay_run(vec![
        text_answer(cut, "length"),
        text_answer("Abgebrochen.", "stop"),
    ]);
    assert!(h.executed.is_empty());
    assert_eq!(h.records.len(), 1);
    assert!(!h.records[0].executed);
    assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
}

/// Eight runs driven as futures on this one thread over the multiplexed client (as a chat
/// worker does): every run's first LLM request reached the mock before any run's second one
/// (the mock's log), i.e. their requests were in flight together; each run still got its own
/// tool call and answer.
#[test]
fn runs_interleave_on_one_thread_over_the_multiplexer() {
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll, Wake, Waker};
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let m = mock(
        "slow",
        r#"{"steps": [
            {"delay_ms": 1500, "call": [{"name": "getTarifVertrag", "arguments": {"tarifgebiet": "Bayern", "fachbereich": "Metall"}}]},
            {"delay_ms": 1500, "echo_last_tool_result": true}
        ]}"#,
    );
    let cfg = openai_config(&m, "slow");
    let mux = Multiplexer::start().expect("I/O thread");
    const N: usize = 8;
    let mut hosts: Vec<TestHost> = (0..N).map(|_| TestHost::new()).collect();
    let questions: Vec<String> = (0..N).map(|i| format!("Frage {i}")).collect();
    let mut futs: Vec<Pin<Box<dyn Future<Output = ChatOutcome> + '_>>> = hosts
        .iter_mut()
        .zip(&questions)
        .map(|(h, q)| {
            Box::pin(run_chat_with(
                &cfg,
                Vec::new(),
                q,
                h,
                Http::Multiplexed(&mux),
            )) as Pin<Box<dyn Future<Output = ChatOutcome> + '_>>
        })
        .collect();
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut out: Vec<Option<ChatOutcome>> = (0..N).map(|_| None).collect();
    while out.iter().any(Option::is_none) {
        for (i, f) in futs.iter_mut().enumerate() {
            if out[i].is_none() {
                if let Poll::Ready(o) = f.as_mut().poll(&mut cx) {
                    out[i] = Some(o);
                }
            }
        }
        std::thread::park_timeout(Duration::from_millis(50));
    }
    drop(futs);
    for o in out.into_iter().flatten() {
        assert_eq!(o.status, ChatStatus::Completed, "{:?}", o.error);
        assert_eq!(o.tool_calls, 1);
    }
    let log = m.requests(Some("slow"));
    assert_eq!(log.len(), 2 * N);
    let first_turns = log[..N].iter().filter(|r| r.turn == 0).count();
    assert_eq!(
        first_turns,
        N,
        "turns in arrival order: {:?}",
        log.iter().map(|r| r.turn).collect::<Vec<_>>()
    );
    for h in &hosts {
        assert_eq!(h.executed.len(), 1);
    }
}
