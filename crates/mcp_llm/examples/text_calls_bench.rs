//! Parse time per chat response, with and without tool-call markers in the content:
//! `cargo run --release -p mcp_llm --example text_calls_bench`. The same file runs against an
//! older checkout (the parse call replaced by `parse_chat_response(&body)`) for the side-by-side
//! numbers in docs/text-tool-calls.md.

use serde_json::json;
use std::hint::black_box;
use std::time::Instant;

fn body(content: &str) -> String {
    json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "open-model",
           "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150}})
    .to_string()
}

fn tools() -> Vec<mcp_llm::ToolDef> {
    vec![
        mcp_llm::ToolDef::new(
            "get_weather",
            "",
            json!({"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}),
        ),
        mcp_llm::ToolDef::new(
            "get_time",
            "",
            json!({"type": "object", "properties": {"tz": {"type": "string"}}}),
        ),
    ]
}

/// Median microseconds per parse over `rounds` rounds of `n` parses.
fn time(raw: &str, tools: &[mcp_llm::ToolDef], n: usize, rounds: usize) -> f64 {
    let mut per = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let t0 = Instant::now();
        for _ in 0..n {
            let r = mcp_llm::parse_chat_response_with_tools(black_box(raw), Some(tools));
            black_box(&r);
        }
        per.push(t0.elapsed().as_secs_f64() * 1e6 / n as f64);
    }
    per.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let _ = tools;
    per[rounds / 2]
}

fn main() {
    let prose = "Für die Metallindustrie in Bayern gelten der Manteltarifvertrag und das Entgeltabkommen. ";
    let cases: Vec<(&str, String)> = vec![
        ("plain answer, 90 B", prose.to_string()),
        ("plain answer, 9 KB", prose.repeat(100)),
        ("plain answer with [1] and <b>, 9 KB", format!("{} see [1] and <b>bold</b>.", prose.repeat(100))),
        ("plain answer, 90 KB", prose.repeat(1000)),
        (
            "<think> + answer, 9 KB",
            format!("<think>{}</think>{}", prose.repeat(50), prose.repeat(50)),
        ),
        (
            "Hermes <tool_call>, 2 calls",
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"tz\": \"CET\"}}\n</tool_call>".to_string(),
        ),
        ("Mistral [TOOL_CALLS]", "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}".to_string()),
        (
            "Kimi K2 section",
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|>".to_string(),
        ),
        (
            "Harmony analysis + call",
            "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\":\"Paris\"}<|call|>".to_string(),
        ),
        (
            "Qwen3-Coder XML",
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>".to_string(),
        ),
    ];
    let t = tools();
    println!("{:<40} {:>12} {:>10}", "content", "µs/response", "calls");
    for (name, content) in &cases {
        let raw = body(content);
        let n = if raw.len() > 50_000 { 200 } else { 5_000 };
        let us = time(&raw, &t, n, 9);
        let calls = mcp_llm::parse_chat_response_with_tools(&raw, Some(&t))
            .complete_tool_calls()
            .len();
        println!("{name:<40} {us:>12.2} {calls:>10}");
    }
}
