#![no_main]
//! Fuzz the extraction of tool calls written as text (`mcp_llm::extract_text_calls`, and the
//! same text as the content of a chat answer through `parse_chat_response_with_tools`): never
//! a panic, a stack overflow or a hang, and never an executable call that names a tool not
//! offered or whose arguments are not an object. The first byte picks the tools (offered or
//! unknown) and whether the answer was cut off (`finish_reason = length`).

use libfuzzer_sys::fuzz_target;
use mcp_llm::{extract_text_calls, parse_chat_response_with_tools, ToolDef};
use serde_json::json;

fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::new(
            "get_weather",
            "",
            json!({"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}),
        ),
        ToolDef::new(
            "search",
            "",
            json!({"type": "object", "properties": {"query": {"type": "string"}, "filters": {"type": "object"},
                   "exact": {"type": "boolean"}, "tags": {"type": "array"}}}),
        ),
        ToolDef::new("noop", "", json!({"type": "object", "properties": {}})),
    ]
}

fuzz_target!(|data: &[u8]| {
    let (sel, rest) = match data.split_first() {
        Some((s, r)) => (*s, r),
        None => (0, data),
    };
    let text = String::from_utf8_lossy(rest);
    let t = tools();
    let offered = sel & 1 == 0;
    let cut = sel & 2 != 0;
    let tools = offered.then_some(t.as_slice());
    if let Some(found) = extract_text_calls(&text, tools, cut) {
        for c in &found.calls {
            if c.complete {
                assert!(c.arguments.as_ref().is_some_and(|a| a.is_object()), "{c:?}");
                assert!(!c.name.is_empty());
                if offered {
                    assert!(t.iter().any(|x| x.name == c.name), "{c:?}");
                }
            } else {
                assert!(c.arguments.is_none(), "{c:?}");
            }
        }
    }
    if sel & 4 != 0 {
        let body = json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": &*text},
                                       "finish_reason": if cut { "length" } else { "stop" }}]})
        .to_string();
        let r = parse_chat_response_with_tools(&body, tools);
        for c in r.complete_tool_calls() {
            assert!(c.arguments.is_object());
            if offered {
                assert!(t.iter().any(|x| x.name == c.name), "{c:?}");
            }
        }
        let _ = r.to_json();
        let _ = r.to_assistant_message();
    }
});
