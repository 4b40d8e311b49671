//! Orchestration overhead per chat turn against a zero-latency mock LLM.
//!
//! A chat = 2 turns (LLM requests): the first answer asks for 3 parallel tool calls, the second is
//! the final answer. Host tools return at once; the host keeps no audit rows. Reported:
//!
//! * `loopback`: everything `run_chat` does over real HTTP to mock_llm on 127.0.0.1 (body
//!   building, HTTP worker thread + keep-alive socket I/O, the mock's own work, parsing,
//!   validation, tool dispatch, token counting) — total and per turn, nothing subtracted;
//! * `replay`: the same chat from recorded bodies — the engine alone, without HTTP;
//! * `16 sessions`: chats/second with 16 threads, each running chats against the mock.
//!
//! Run: `cargo run --release -p mcp_chat --example bench_turns [seconds_per_phase]`

use mcp_chat::*;
use mock_llm::{MockConfig, MockServer, Scenario};
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const SCENARIO: &str = r#"{"steps": [
    {"call": [
        {"name": "getTarifVertrag", "arguments": {"tarifgebiet": "Bayern", "fachbereich": "Metall", "search_terms": ["Urlaub", "Entgelt"]}},
        {"name": "getTarifVertrag", "arguments": {"tarifgebiet": "Hessen", "fachbereich": "Metall"}},
        {"name": "schema_information", "arguments": {"table": "tarifvertrag"}}
    ]},
    {"say": "In Bayern und Hessen gelten je zwei Tarifverträge der Metallindustrie."}
]}"#;

struct BenchHost {
    tools: Vec<ToolDef>,
    result: String,
    /// Compiled schemas the host validates with (as the pgrx layer's per-backend cache).
    cache: Option<std::collections::HashMap<String, mcp_tools::ToolSchema>>,
}

impl BenchHost {
    fn new() -> Self {
        BenchHost {
            tools: vec![
                ToolDef::new(
                    "getTarifVertrag",
                    "Liefert eine Liste relevanter Tarifverträge basierend auf Tarifgebiet, Fachbereich und Suchbegriffen.",
                    json!({
                        "type": "object",
                        "properties": {
                            "tarifgebiet": {"type": "string", "description": "Geographische Region des Tarifvertrags."},
                            "fachbereich": {"type": "string", "description": "Die Branche oder der fachliche Bereich."},
                            "search_terms": {"type": "array", "items": {"type": "string"}}
                        },
                        "required": ["tarifgebiet", "fachbereich"]
                    }),
                ),
                ToolDef::new(
                    "schema_information",
                    "Columns of a table.",
                    json!({"type": "object", "properties": {"table": {"type": "string"}}, "required": ["table"]}),
                ),
                ToolDef::new(
                    "getDialog",
                    "Fragt fehlende Parameter nach.",
                    json!({"type": "object", "properties": {"missing_parameters": {"type": "array", "items": {"type": "string"}}}, "required": ["missing_parameters"]}),
                ),
            ],
            // A small markdown result like the shaped SQL results the real tools return.
            result: "| id | titel | gebiet |\n|---|---|---|\n| 1 | MTV Metall | Bayern |\n| 2 | ERA | Bayern |\n_2 rows_"
                .to_string(),
            cache: None,
        }
    }

    fn with_cache() -> Self {
        let mut h = BenchHost::new();
        let mut cache = std::collections::HashMap::new();
        for t in &h.tools {
            if let Ok(s) = mcp_tools::ToolSchema::compile(&t.parameters) {
                cache.insert(t.name.clone(), s);
            }
        }
        h.cache = Some(cache);
        h
    }
}

impl Host for BenchHost {
    fn tools(&mut self) -> Vec<ToolDef> {
        self.tools.clone()
    }
    fn execute_tool(&mut self, call: &ToolCall, _arguments_raw: &str) -> ToolExecution {
        // The host validates (as the pgrx layer's pipeline does): from its cache of compiled
        // schemas, or compiling the tool's schema for each call.
        let schema = match self.cache.as_ref().and_then(|c| c.get(&call.name)) {
            Some(s) => Some(s.clone()),
            None => self
                .tools
                .iter()
                .find(|t| t.name == call.name)
                .and_then(|t| mcp_tools::ToolSchema::compile(&t.parameters).ok()),
        };
        if let Some(errors) = schema
            .map(|s| s.validate(&call.arguments))
            .filter(|e| !e.is_empty())
        {
            return ToolExecution::invalid(&call.name, &errors);
        }
        ToolExecution::ok(self.result.clone())
    }
}

fn config(base: String, model: &str) -> ChatConfig {
    let mut c = ChatConfig::new(
        ProviderConfig::new(ProviderKind::Openai, base, model).with_key("sk-bench"),
    );
    c.system_prompts = vec![
        "Du beantwortest Fragen zu Tarifverträgen. Nutze die Tools für Fakten, rate nie.".into(),
    ];
    c.http.retry = RetryPolicy::none();
    c
}

fn one_chat(cfg: &ChatConfig, client: &HttpClient, cached: bool) -> ChatOutcome {
    let mut host = if cached {
        BenchHost::with_cache()
    } else {
        BenchHost::new()
    };
    let o = run_chat(
        cfg,
        Vec::new(),
        "Welche Tarifverträge gelten für Metall in Bayern und Hessen?",
        &mut host,
        client,
    );
    if o.status != ChatStatus::Completed || o.tool_calls != 3 || o.iterations != 2 {
        eprintln!("unexpected outcome: {:?} {:?}", o.status, o.error);
        std::process::exit(1);
    }
    o
}

/// Sequential chats for `secs`; returns (chats, elapsed).
fn sequential(cfg: &ChatConfig, client: &HttpClient, secs: f64, cached: bool) -> (u64, Duration) {
    for _ in 0..50 {
        one_chat(cfg, client, cached);
    }
    let t0 = Instant::now();
    let mut n = 0u64;
    while t0.elapsed().as_secs_f64() < secs {
        one_chat(cfg, client, cached);
        n += 1;
    }
    (n, t0.elapsed())
}

fn report(label: &str, chats: u64, took: Duration) {
    let per_chat = took.as_secs_f64() * 1e6 / chats as f64;
    println!(
        "{label:<44} {chats:>7} chats  {per_chat:>9.1} µs/chat  {:>9.1} µs/turn  {:>8.0} chats/s",
        per_chat / 2.0,
        chats as f64 / took.as_secs_f64()
    );
}

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    let scenario = match Scenario::from_json(SCENARIO) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("scenario: {e}");
            std::process::exit(1);
        }
    };
    let mock = match MockServer::start(MockConfig {
        scenarios: vec![("bench".to_string(), scenario)],
        max_recorded: 0,
        ..MockConfig::default()
    }) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("mock: {e}");
            std::process::exit(1);
        }
    };
    let base = format!("{}/v1", mock.scenario_url("bench"));
    let client = HttpClient::new();
    println!(
        "chat = 2 turns (3 parallel tool calls, then the final answer); {} cores; {secs} s per phase",
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0)
    );

    // 1. Loopback, no token counting (unknown model, no window, no budget).
    let plain = config(base.clone(), "mock-model");
    let (n, t) = sequential(&plain, &client, secs, false);
    report("loopback, no counting", n, t);

    // 2. Loopback with BPE token counting against the window (gpt-4o-mini: o200k_base, 128k).
    let counted = config(base.clone(), "gpt-4o-mini");
    let (n, t) = sequential(&counted, &client, secs, false);
    report("loopback, BPE counting (gpt-4o-mini)", n, t);

    // 3. Replay of the same chat: the engine alone, no HTTP.
    let recorded: Vec<String> = {
        struct Rec(BenchHost, Vec<String>);
        impl Host for Rec {
            fn tools(&mut self) -> Vec<ToolDef> {
                self.0.tools()
            }
            fn execute_tool(&mut self, c: &ToolCall, raw: &str) -> ToolExecution {
                self.0.execute_tool(c, raw)
            }
            fn on_llm_exchange(&mut self, e: &LlmExchange) {
                if let Some(b) = &e.response_body {
                    self.1.push(b.clone());
                }
            }
        }
        let mut r = Rec(BenchHost::new(), Vec::new());
        run_chat(
            &plain,
            Vec::new(),
            "Welche Tarifverträge gelten?",
            &mut r,
            &client,
        );
        r.1
    };
    for (label, model, cached) in [
        ("replay (no HTTP), no counting", "mock-model", false),
        (
            "replay, no counting, schemas cached by host",
            "mock-model",
            true,
        ),
        ("replay (no HTTP), BPE counting", "gpt-4o-mini", false),
    ] {
        let mut rc = ChatConfig::new(ProviderConfig::replay(model, recorded.clone()));
        rc.system_prompts = plain.system_prompts.clone();
        let (n, t) = sequential(&rc, &client, secs, cached);
        report(label, n, t);
    }

    // 4. 16 concurrent sessions over loopback.
    for (label, cfg) in [
        ("16 sessions, loopback, no counting", plain),
        ("16 sessions, loopback, BPE counting", counted),
    ] {
        let stop = Arc::new(AtomicBool::new(false));
        let done = Arc::new(AtomicU64::new(0));
        let t0 = Instant::now();
        let handles: Vec<_> = (0..16)
            .map(|_| {
                let (stop, done, cfg, client) =
                    (stop.clone(), done.clone(), cfg.clone(), client.clone());
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        one_chat(&cfg, &client, false);
                        done.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        std::thread::sleep(Duration::from_secs_f64(secs));
        stop.store(true, Ordering::Relaxed);
        for h in handles {
            let _ = h.join();
        }
        report(label, done.load(Ordering::Relaxed), t0.elapsed());
    }
}
