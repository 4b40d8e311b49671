//! Hostile provider answers: deep nesting and long `+` chains in every place a body can carry
//! them (raw, tool-call arguments as a string or pasted raw, content with embedded tool calls,
//! SSE streams, Anthropic tool input, NDJSON, error bodies) on a thread with a 512 KiB stack —
//! a quarter of PostgreSQL's default `max_stack_depth`, in a debug build. Own test binary: a
//! stack overflow aborts the process. Also: U+0000 anywhere in an answer.

use mcp_llm::{parse_llm_response, parse_llm_value, LlmResponse};
use serde_json::{json, Value};

const SMALL_STACK: usize = 512 * 1024;

fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    mcp_llm::guard::on_thread_with_stack(SMALL_STACK, f)
}

/// Text payloads that nest or chain.
fn payloads() -> Vec<String> {
    let r = |s: &str, n: usize| s.repeat(n);
    let mut out = Vec::new();
    for d in [mcp_repair::MAX_DEPTH, mcp_repair::MAX_DEPTH + 1, 5_000] {
        out.push(format!("{}1{}", r("[", d), r("]", d)));
        out.push(r("[", d));
        out.push(format!("{}1", r("{\"a\":", d)));
        out.push(format!("{}1", r("{a: (", d)));
        out.push(format!("{}1", r("f(", d)));
        out.push(format!("{}\"x\" y\", \"b\": 1", r("{\"a\": ", d)));
        out.push(format!("{{\"k\": \"x\" y\", \"a\": {}1", r("\"```json ", d)));
        out.push(format!("{}\"y\"", r("[\"x\" + ", d)));
    }
    for n in [20_000, 50_000] {
        out.push(format!("{{\"a\": {}\"y\"}}", r("\"x\" + ", n)));
        out.push(format!("{{\"a\": {}", r("'x' + ", n)));
    }
    out
}

/// The payload in every envelope a provider answer can have.
fn envelopes(p: &str) -> Vec<String> {
    let call = |args: Value| {
        json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": null,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": args}}]},
            "finish_reason": "tool_calls"}]})
        .to_string()
    };
    let mut sse = String::new();
    for chunk in p.as_bytes().chunks(4096) {
        let piece = String::from_utf8_lossy(chunk);
        let ev = json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c1",
            "function": {"name": "f", "arguments": piece}}]}, "finish_reason": null}]});
        sse.push_str(&format!("data: {ev}\n\n"));
    }
    sse.push_str(
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n",
    );
    vec![
        p.to_string(),
        call(Value::String(p.to_string())),
        call(Value::String(serde_json::to_string(p).unwrap_or_default())),
        format!(
            r#"{{"choices":[{{"index":0,"message":{{"role":"assistant","tool_calls":[{{"id":"c1","type":"function","function":{{"name":"f","arguments":{p}}}}}]}},"finish_reason":"tool_calls"}}]}}"#
        ),
        json!({"choices": [{"message": {"role": "assistant", "content": format!("<tool_call>{{\"name\": \"f\", \"arguments\": {p}}}</tool_call>")}}]}).to_string(),
        json!({"choices": [{"message": {"role": "assistant", "content": format!("[TOOL_CALLS]f[ARGS]{p}")}}]}).to_string(),
        json!({"choices": [{"message": {"role": "assistant", "content": format!("```json\n{p}\n```")}}]}).to_string(),
        sse,
        format!("data: {p}\n\ndata: [DONE]\n\n"),
        format!(
            r#"{{"id":"m","type":"message","role":"assistant","content":[{{"type":"tool_use","id":"t","name":"f","input":{p}}}],"stop_reason":"tool_use"}}"#
        ),
        format!("{{\"message\":{{\"role\":\"assistant\",\"content\":\"\"}},\"done\":false}}\n{p}\n"),
        format!("{{\"error\": {{\"message\": {p}}}}}"),
        format!("{}{{\"error\": {{\"message\": \"x\"}}}}", "[".repeat(p.len().min(50_000))),
    ]
}

fn exercise(body: &str) -> LlmResponse {
    let r = parse_llm_response(body);
    let _ = r.to_json().to_string();
    let _ = r.complete_tool_calls();
    let _ = r.to_assistant_message();
    r
}

#[test]
fn deep_and_chained_payloads_in_every_envelope_fit_a_small_stack() {
    on_small_stack(|| {
        for p in payloads() {
            for body in envelopes(&p) {
                exercise(&body);
            }
        }
    });
}

/// An LLM answer whose tool-call arguments hold the `"x" + ` chain that once overflowed the
/// stack.
#[test]
fn concatenation_chain_in_tool_call_arguments() {
    on_small_stack(|| {
        let args = format!("{{\"q\": {}\"y\"}}", "\"x\" + ".repeat(20_000));
        let body = json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": args}}]},
            "finish_reason": "tool_calls"}]})
        .to_string();
        let r = exercise(&body);
        let call = &r.tool_calls[0];
        assert!(call.complete, "{:?}", call.error);
        let q = call.arguments.as_ref().and_then(|a| a["q"].as_str()).unwrap_or("");
        assert_eq!(q.len(), 20_001);
    });
}

/// An already-parsed value that nests deeper than any parse can produce (serde_json and the
/// repair engine stop at 128 levels; pg_mcp's jsonb conversion refuses deeper values too).
#[test]
fn deep_parsed_values_fit_a_small_stack() {
    on_small_stack(|| {
        let mut v = json!(1);
        for _ in 0..200 {
            v = json!([v]);
        }
        let body = json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": {"a": v}}}]}}]});
        let r = parse_llm_value(&body);
        let _ = r.to_json();
        let mut e = json!({"error": {"message": "x"}});
        for _ in 0..200 {
            e = json!([e]);
        }
        let r = parse_llm_value(&e);
        assert!(r.is_error());
    });
}

/// No U+0000 in any string or key of `v` (what jsonb would refuse).
fn no_nul(v: &Value) {
    let mut todo = vec![v];
    while let Some(v) = todo.pop() {
        match v {
            Value::String(s) => assert!(!s.contains('\0'), "{s:?}"),
            Value::Array(a) => todo.extend(a),
            Value::Object(m) => {
                for (k, x) in m {
                    assert!(!k.contains('\0'), "{k:?}");
                    todo.push(x);
                }
            }
            _ => {}
        }
    }
}

/// U+0000 cannot be stored in PostgreSQL: every place of an answer gets U+FFFD instead, and
/// the replacement is reported.
#[test]
fn nul_characters_become_replacement_characters() {
    let bodies = [
        // content, as JSON escape and as raw byte
        r#"{"choices":[{"message":{"role":"assistant","content":"a\u0000b"},"finish_reason":"stop"}]}"#.to_string(),
        "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"a\0b\"},\"finish_reason\":\"stop\"}]}".to_string(),
        // tool-call arguments: value and key, double-encoded
        json!({"choices": [{"message": {"role": "assistant", "tool_calls": [{"id": "c\u{0}1", "type": "function",
            "function": {"name": "f", "arguments": "{\"q\": \"x\\u0000y\", \"k\\u0000\": 1}"}}]}, "finish_reason": "tool_calls"}]}).to_string(),
        // arguments as an object (Ollama), embedded tool call, SSE, Anthropic
        json!({"message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": {"q": "\u{0}"}}}]}, "done": true}).to_string(),
        json!({"choices": [{"message": {"role": "assistant", "content": "<tool_call>{\"name\": \"f\", \"arguments\": {\"q\": \"\\u0000\"}}</tool_call>"}}]}).to_string(),
        "data: {\"choices\":[{\"delta\":{\"content\":\"a\\u0000\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"q\\\": \\\"\\\\u0000\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n".to_string(),
        r#"{"type":"message","role":"assistant","content":[{"type":"text","text":"\u0000"},{"type":"tool_use","id":"t","name":"f","input":{"q":"\u0000"}}],"stop_reason":"tool_use"}"#.to_string(),
        // repaired bodies and error bodies
        "{'content': 'a\\u0000', 'role': 'assistant'".to_string(),
        r#"{"error": {"message": "bad \u0000 request", "type": "x\u0000y", "code": "c\u0000"}}"#.to_string(),
    ];
    assert!(parse_llm_response(&bodies[8])
        .error
        .is_some_and(|e| e.message == "bad \u{fffd} request"));
    for body in &bodies {
        let r = parse_llm_response(body);
        no_nul(&r.to_json());
        for c in &r.tool_calls {
            assert!(!c.id.contains('\0') && !c.arguments_raw.contains('\0'));
        }
        // reported as a fix (error texts are cleaned where the error is built, not reported)
        let any_nul_fix = r.repairs.iter().any(|f| f.kind == "nul_character");
        assert!(any_nul_fix || r.is_error(), "{body}: {:?}", r.repairs);
    }
    // the arguments keep everything else; the call stays executable
    let r = parse_llm_response(&bodies[2]);
    let a = r.tool_calls[0].arguments.clone().unwrap_or_default();
    assert_eq!(a, json!({"q": "x\u{fffd}y", "k\u{fffd}": 1}));
    assert!(r.tool_calls[0].complete);
    assert!(r.tool_calls[0].repairs.iter().any(|f| f.kind == "nul_character"));
    // a body without U+0000 reports nothing of the kind
    let r = parse_llm_response(r#"{"choices":[{"message":{"role":"assistant","content":"ok"}}]}"#);
    assert!(r.repairs.is_empty());
}
