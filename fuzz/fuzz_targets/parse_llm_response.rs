#![no_main]
//! Fuzz `mcp_llm::parse_llm_response`: must never panic, overflow the stack or hang, on raw bytes
//! (lossy UTF-8) and on the same bytes placed inside plausible provider bodies so the parser
//! gets past the envelope: OpenAI tool-call arguments (double-encoded and raw), message content
//! (embedded `<tool_call>` / `[TOOL_CALLS]` payloads), a body cut at the fuzz text, an SSE
//! stream of deltas, an Anthropic message and a provider error body. The first byte picks the
//! envelope. The normalized response is also rendered (`to_json`, tool calls, assistant
//! message), since the SQL surface does that with every result.

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

fn openai(message: Value, finish: &str) -> String {
    json!({
        "id": "chatcmpl-fuzz",
        "object": "chat.completion",
        "model": "gpt-4o",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    })
    .to_string()
}

fn exercise(body: &str) {
    let r = mcp_llm::parse_llm_response(body);
    let _ = r.to_json();
    let _ = r.complete_tool_calls();
    let _ = r.incomplete_tool_calls().count();
    let _ = r.to_assistant_message();
}

fuzz_target!(|data: &[u8]| {
    let (sel, rest) = match data.split_first() {
        Some((s, r)) => (*s, r),
        None => (0, data),
    };
    let s = String::from_utf8_lossy(rest);
    let s: &str = &s;
    let tool_msg = |args: Value| {
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": args}}
        ]})
    };
    let body = match sel % 8 {
        // raw bytes as the whole body
        0 => s.to_string(),
        // arguments as a JSON string (the usual double encoding)
        1 => openai(tool_msg(Value::String(s.to_string())), "tool_calls"),
        // arguments pasted raw into the body (a broken body around broken arguments)
        2 => {
            let pre = r#"{"id":"chatcmpl-fuzz","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"#;
            format!("{pre}{s}}}}}]}},\"finish_reason\":\"tool_calls\"}}]}}")
        }
        // content text (embedded tool-call wrappers, fences, prose)
        3 => openai(json!({"role": "assistant", "content": s}), "stop"),
        // a body cut off right after the fuzz text inside the arguments string
        4 => {
            let full = openai(tool_msg(Value::String(s.to_string())), "length");
            let esc = serde_json::to_string(s).unwrap_or_default();
            match full.find(&esc) {
                Some(p) => full[..p + esc.len().saturating_sub(1)].to_string(),
                None => full,
            }
        }
        // SSE stream: the text split into content and argument deltas
        5 => {
            let mut out = String::new();
            for (k, chunk) in s.split('\n').enumerate() {
                let delta = if k % 2 == 0 {
                    json!({"content": chunk})
                } else {
                    json!({"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "f", "arguments": chunk}}]})
                };
                let ev = json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]});
                out.push_str(&format!("data: {ev}\n\n"));
            }
            out.push_str("data: [DONE]\n\n");
            out
        }
        // Anthropic message with a tool_use block whose input is the text (raw)
        6 => format!(
            r#"{{"id":"msg_1","type":"message","role":"assistant","content":[{{"type":"text","text":"ok"}},{{"type":"tool_use","id":"tu_1","name":"f","input":{s}}}],"stop_reason":"tool_use","usage":{{"input_tokens":3,"output_tokens":4}}}}"#
        ),
        // provider error bodies (Azure APIM, OpenAI) around the text
        _ => {
            if rest.first().is_some_and(|b| b % 2 == 0) {
                json!({"statusCode": 429, "message": s}).to_string()
            } else {
                format!(r#"{{"error":{{"message":{s},"type":"invalid_request_error","code":null}}}}"#)
            }
        }
    };
    exercise(&body);
});
