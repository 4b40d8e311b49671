//! The blind evaluation set of tool calls written as text (`tests/quality/textcalls/blind.jsonl`,
//! written from the families' chat templates by someone who did not see this parser):
//! `cargo run --release -p mcp_llm --example text_calls_blind [-- FILE] [--verbose]`.
//! Prints the pass rate per family (calls, incomplete count, content and reasoning all as
//! expected) and, separately, the rate on the calls alone. Exits non-zero if any case yields an
//! executable call that the set does not expect and that would pass its tool's input schema
//! (a call made from garbage that would run), which is the one property that must hold on
//! every set.

use serde_json::{json, Value};
use std::collections::BTreeMap;

fn tools() -> Vec<mcp_llm::ToolDef> {
    vec![
        mcp_llm::ToolDef::new(
            "get_weather",
            "Weather for a city",
            json!({"type": "object", "properties": {
                "city": {"type": "string"}, "days": {"type": "integer"},
                "unit": {"type": "string", "enum": ["c", "f"]}}, "required": ["city"]}),
        ),
        mcp_llm::ToolDef::new(
            "search_docs",
            "Search the documents",
            json!({"type": "object", "properties": {
                "query": {"type": "string"}, "filters": {"type": "object"},
                "limit": {"type": "integer"}}, "required": ["query"]}),
        ),
        mcp_llm::ToolDef::new(
            "create_ticket",
            "Open a ticket",
            json!({"type": "object", "properties": {
                "title": {"type": "string"}, "priority": {"type": "integer"},
                "tags": {"type": "array", "items": {"type": "string"}}}, "required": ["title"]}),
        ),
    ]
}

fn schema_valid(tools: &[mcp_llm::ToolDef], call: &(String, Value)) -> bool {
    tools
        .iter()
        .filter(|t| t.name == call.0)
        .any(|t| jsonschema::validator_for(&t.parameters).map_or(true, |v| v.is_valid(&call.1)))
}

fn body(content: &str, finish: &str) -> String {
    json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "open-model",
           "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}]})
    .to_string()
}

fn norm(s: Option<&str>) -> Option<String> {
    s.map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|t| !t.is_empty())
}

#[derive(Default)]
struct Tally {
    cases: usize,
    full: usize,
    calls_ok: usize,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "--verbose");
    let path =
        args.iter().find(|a| !a.starts_with("--")).cloned().unwrap_or_else(|| {
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/quality/textcalls/blind.jsonl").into()
        });
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let tools = tools();
    let mut per: BTreeMap<String, Tally> = BTreeMap::new();
    let mut unsafe_cases = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let c: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        let id = c["id"].as_str().unwrap_or("?");
        let family = c["family"].as_str().unwrap_or("?").to_string();
        let finish = c["finish"].as_str().unwrap_or("stop");
        let r = mcp_llm::parse_chat_response_with_tools(&body(c["text"].as_str().unwrap_or(""), finish), Some(&tools));
        let got: Vec<(String, Value)> = r
            .complete_tool_calls()
            .into_iter()
            .map(|t| (t.name, t.arguments))
            .collect();
        let want: Vec<(String, Value)> = c["calls"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|x| (x["name"].as_str().unwrap_or("").to_string(), x["arguments"].clone()))
                    .collect()
            })
            .unwrap_or_default();
        let incomplete = r.incomplete_tool_calls().count();
        let want_incomplete = c["incomplete"].as_u64().unwrap_or(0) as usize;
        let mut bad = Vec::new();
        if got != want {
            bad.push(format!("calls {got:?}, want {want:?}"));
        }
        // A call to a tool the case does not call at all that would also pass the tool's input
        // schema (the tool pipeline's check before it runs anything): never acceptable. Wrong
        // arguments of an expected call count as a failure above.
        for g in &got {
            if !want.iter().any(|w| w.0 == g.0) && schema_valid(&tools, g) {
                unsafe_cases.push(format!("{id}: executable {g:?} not expected"));
            }
        }
        let calls_ok = bad.is_empty();
        if incomplete != want_incomplete {
            bad.push(format!("{incomplete} incomplete, want {want_incomplete}"));
        }
        if norm(r.content.as_deref()) != norm(c["content"].as_str()) {
            bad.push(format!("content {:?}, want {:?}", r.content, c["content"].as_str()));
        }
        if norm(r.reasoning.as_deref()) != norm(c["reasoning"].as_str()) {
            bad.push(format!(
                "reasoning {:?}, want {:?}",
                r.reasoning,
                c["reasoning"].as_str()
            ));
        }
        let t = per.entry(family).or_default();
        t.cases += 1;
        t.calls_ok += calls_ok as usize;
        t.full += bad.is_empty() as usize;
        if verbose && !bad.is_empty() {
            println!("FAIL {id}:\n    {}", bad.join("\n    "));
        }
    }
    println!("| family | cases | all fields as expected | calls as expected |");
    println!("|---|---|---|---|");
    let (mut a, mut b, mut c) = (0, 0, 0);
    for (f, t) in &per {
        println!("| {f} | {} | {} | {} |", t.cases, t.full, t.calls_ok);
        a += t.cases;
        b += t.full;
        c += t.calls_ok;
    }
    println!(
        "| **all** | {a} | {b} ({:.0} %) | {c} ({:.0} %) |",
        100.0 * b as f64 / a.max(1) as f64,
        100.0 * c as f64 / a.max(1) as f64
    );
    if !unsafe_cases.is_empty() {
        eprintln!(
            "executable calls the set does not expect:\n  {}",
            unsafe_cases.join("\n  ")
        );
        std::process::exit(1);
    }
}
