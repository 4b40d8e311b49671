//! Mutation robustness: random edits of real bodies must never panic or abort, and a call marked
//! complete always has a name and an object of arguments. Kept in its own test binary: a stack
//! overflow (abort) here must not hide the results of the main suite.

use mcp_llm::*;
use serde_json::{json, Value};

fn openai_with_calls(calls: Value, finish: &str) -> String {
    json!({
        "id": "chatcmpl-abc123", "object": "chat.completion", "created": 1699896916, "model": "gpt-4o-mini",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": calls},
                     "logprobs": null, "finish_reason": finish}],
        "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99}
    })
    .to_string()
}

/// Reproducer found by the mutation test: `mcp_repair::repair` recursed without bound on it.
#[test]
fn repair_reproducer_does_not_overflow() {
    let s = r#"{"type":message","role":"assistant","content":[{"type":"tool_use\,"id":"t","name":"n","input":{"a":"b"}0}],"stop_reason":"tool_use"}"#;
    let _ = parse_llm_response(s);
}

#[test]
fn never_panics_on_mutated_bodies() {
    let seeds = [
        openai_with_calls(json!([{"id":"a","type":"function","function":{"name":"x","arguments":"{\"k\":[1,\"v\"]}"}}]), "tool_calls"),
        r#"{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":{"a":"b"}}],"stop_reason":"tool_use"}"#.to_string(),
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}}]}\n\ndata: [DONE]".to_string(),
        r#"{"choices":[{"message":{"content":"<tool_call>{\"name\":\"a\",\"arguments\":{}}</tool_call>[TOOL_CALLS]x[ARGS]{}"}}]}"#.to_string(),
    ];
    let alphabet = b"{}[]\":,\\ nt0e-.<>/ac_";
    let mut state: u64 = 0x2545F4914F6CDD1D;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for seed in &seeds {
        for _ in 0..300 {
            let mut bytes = seed.as_bytes().to_vec();
            for _ in 0..(1 + next() % 4) {
                let pos = (next() as usize) % bytes.len();
                match next() % 3 {
                    0 => bytes[pos] = alphabet[(next() as usize) % alphabet.len()],
                    1 => {
                        bytes.remove(pos);
                    }
                    _ => bytes.insert(pos, alphabet[(next() as usize) % alphabet.len()]),
                }
            }
            let text = String::from_utf8_lossy(&bytes);
            let r = parse_llm_response(&text);
            let _ = r.to_json();
            for c in r.tool_calls.iter().filter(|c| c.complete) {
                assert!(c.arguments.as_ref().is_some_and(|a| a.is_object()), "{text}");
                assert!(!c.name.is_empty());
            }
        }
    }
}
