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

#[test]
fn openai_text_answer() {
    let raw = r#"{"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion","created":1741569952,"model":"gpt-4.1-2025-04-14",
      "choices":[{"index":0,"message":{"role":"assistant","content":"Hello! How can I assist you today?","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],
      "usage":{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0}},
      "service_tier":"default"}"#;
    let r = parse_llm_response(raw);
    assert_eq!(r.finish_reason, FinishReason::Stop);
    assert_eq!(r.content.as_deref(), Some("Hello! How can I assist you today?"));
    assert!(!r.has_tools());
    assert_eq!(
        r.usage,
        Some(Usage {
            prompt_tokens: 19,
            completion_tokens: 10,
            total_tokens: 29
        })
    );
    assert!(r.error.is_none());
    assert!(r.repairs.is_empty());
    assert_eq!(LlmResponse::from_json(raw), r);
}

#[test]
fn openai_parallel_tool_calls() {
    let raw = openai_with_calls(
        json!([
            {"id": "call_abc123", "type": "function", "function": {"name": "get_current_weather", "arguments": "{\n\"location\": \"Boston, MA\"\n}"}},
            {"id": "call_def456", "type": "function", "function": {"name": "getTarifVertrag", "arguments": "{\"tarifgebiet\":\"Bayern\",\"fachbereich\":\"Metall\"}"}}
        ]),
        "tool_calls",
    );
    let r = parse_llm_response(&raw);
    assert_eq!(r.finish_reason, FinishReason::ToolCalls);
    assert!(r.has_tools());
    assert_eq!(r.tool_calls.len(), 2);
    assert!(r.tool_calls.iter().all(|c| c.complete && c.error.is_none()));
    assert_eq!(r.tool_calls[0].id, "call_abc123");
    assert_eq!(r.tool_calls[0].arguments, Some(json!({"location": "Boston, MA"})));
    assert_eq!(r.tool_calls[0].arguments_raw, "{\n\"location\": \"Boston, MA\"\n}");
    assert_eq!(r.tool_calls[1].name, "getTarifVertrag");
    let calls = r.complete_tool_calls();
    assert_eq!(
        calls[1].arguments,
        json!({"tarifgebiet":"Bayern","fachbereich":"Metall"})
    );
    let m = r.to_assistant_message();
    assert_eq!(m.role, Role::Assistant);
    assert_eq!(m.tool_calls.len(), 2);
    assert_eq!(r.usage.unwrap().total_tokens, 99);
}

#[test]
fn double_encoded_arguments() {
    let inner = r#"{"city":"Berlin"}"#;
    let twice = serde_json::to_string(inner).unwrap(); // "\"{\\\"city\\\":\\\"Berlin\\\"}\""
    let raw = openai_with_calls(
        json!([{"id":"c1","type":"function","function":{"name":"w","arguments": twice}}]),
        "tool_calls",
    );
    let r = parse_llm_response(&raw);
    let c = &r.tool_calls[0];
    assert!(c.complete, "{c:?}");
    assert_eq!(c.arguments, Some(json!({"city":"Berlin"})));
    assert!(c.repairs.iter().any(|f| f.kind == "double_encoded"));
}

#[test]
fn arguments_as_object_and_empty() {
    let raw = openai_with_calls(
        json!([
            {"id":"a","type":"function","function":{"name":"x","arguments":{"k":1}}},
            {"id":"b","type":"function","function":{"name":"y","arguments":""}},
            {"id":"c","type":"function","function":{"name":"z"}}
        ]),
        "tool_calls",
    );
    let r = parse_llm_response(&raw);
    assert_eq!(r.tool_calls[0].arguments, Some(json!({"k":1})));
    assert_eq!(r.tool_calls[1].arguments, Some(json!({})));
    assert_eq!(r.tool_calls[2].arguments, Some(json!({})));
    assert!(r.tool_calls.iter().all(|c| c.complete));
}

#[test]
fn arguments_that_are_not_an_object_are_errors() {
    let raw = openai_with_calls(
        json!([
            {"id":"a","type":"function","function":{"name":"x","arguments":"[1,2]"}},
            {"id":"b","type":"function","function":{"name":"y","arguments":"42"}},
            {"id":"c","type":"function","function":{"name":"z","arguments":"\"just text\""}},
            {"id":"d","type":"function","function":{"name":"ok","arguments":"{}"}}
        ]),
        "tool_calls",
    );
    let r = parse_llm_response(&raw);
    for c in &r.tool_calls[..3] {
        assert!(!c.complete, "{c:?}");
        assert!(c.arguments.is_none());
        assert!(c.error.is_some());
    }
    assert!(r.tool_calls[3].complete);
    assert_eq!(r.complete_tool_calls().len(), 1);
    assert_eq!(r.incomplete_tool_calls().count(), 3);
}

#[test]
fn missing_ids_and_names() {
    let raw = openai_with_calls(
        json!([
            {"type":"function","function":{"name":"x","arguments":"{}"}},
            {"id":"","type":"function","function":{"name":"y","arguments":"{}"}},
            {"id":"dup","type":"function","function":{"name":"","arguments":"{}"}},
            {"id":"dup","type":"function","function":{"name":"w","arguments":"{}"}}
        ]),
        "tool_calls",
    );
    let r = parse_llm_response(&raw);
    let ids: Vec<&str> = r.tool_calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["call_0", "call_1", "dup", "call_3"]);
    assert!(!r.tool_calls[2].complete);
    assert_eq!(
        r.tool_calls[2].error.as_deref(),
        Some("tool call without a function name")
    );
    // deterministic
    assert_eq!(parse_llm_response(&raw), r);
}

#[test]
fn azure_response_with_filter_annotations() {
    let raw = r#"{"choices":[{"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}},"finish_reason":"stop","index":0,"logprobs":null,
      "message":{"content":"Die Metallindustrie in Bayern …","role":"assistant"}}],"created":1724000000,"id":"chatcmpl-9x","model":"gpt-4o-2024-05-13",
      "object":"chat.completion","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}],"system_fingerprint":"fp_abc",
      "usage":{"completion_tokens":8,"prompt_tokens":20,"total_tokens":28}}"#;
    let r = parse_llm_response(raw);
    assert_eq!(r.finish_reason, FinishReason::Stop);
    assert_eq!(r.content.as_deref(), Some("Die Metallindustrie in Bayern …"));
}

#[test]
fn azure_completion_withheld_by_content_filter() {
    let raw = r#"{"choices":[{"content_filter_results":{"violence":{"filtered":true,"severity":"high"}},"finish_reason":"content_filter","index":0,
      "message":{"role":"assistant","content":null}}],"id":"chatcmpl-1","model":"gpt-4o","object":"chat.completion",
      "usage":{"completion_tokens":0,"prompt_tokens":20,"total_tokens":20}}"#;
    let r = parse_llm_response(raw);
    assert_eq!(r.finish_reason, FinishReason::ContentFilter);
    assert_eq!(r.error.as_ref().unwrap().kind, ErrorKind::ContentFilter);
}

#[test]
fn mistral_tool_call_response() {
    let raw = r#"{"id":"cf79f7daaee244b1a0ae5c7b1444424a","object":"chat.completion","model":"mistral-large-latest","usage":{"prompt_tokens":91,"completion_tokens":31,"total_tokens":122},
      "created":1728029420,"choices":[{"index":0,"message":{"content":"","tool_calls":[{"id":"D681PevKs","type":"function","function":{"name":"retrieve_payment_status","arguments":"{\"transaction_id\": \"T1001\"}"}}],"prefix":false,"role":"assistant"},"finish_reason":"tool_calls"}]}"#;
    let r = parse_llm_response(raw);
    assert_eq!(r.finish_reason, FinishReason::ToolCalls);
    assert_eq!(r.content, None);
    assert_eq!(r.tool_calls[0].id, "D681PevKs");
    assert_eq!(r.tool_calls[0].arguments, Some(json!({"transaction_id":"T1001"})));
}

#[test]
fn ollama_native_chat_with_tool_calls() {
    let raw = r#"{"model":"llama3.1","created_at":"2024-07-22T20:33:28.123648Z","message":{"role":"assistant","content":"",
      "tool_calls":[{"function":{"name":"get_current_weather","arguments":{"format":"celsius","location":"Paris, FR"}}}]},
      "done_reason":"stop","done":true,"total_duration":885095291,"prompt_eval_count":122,"eval_count":20}"#;
    let r = parse_llm_response(raw);
    assert_eq!(
        r.finish_reason,
        FinishReason::ToolCalls,
        "tool calls with done_reason stop normalize to tool_calls"
    );
    assert_eq!(r.tool_calls[0].id, "call_0");
    assert_eq!(
        r.tool_calls[0].arguments,
        Some(json!({"format":"celsius","location":"Paris, FR"}))
    );
    assert_eq!(
        r.usage,
        Some(Usage {
            prompt_tokens: 122,
            completion_tokens: 20,
            total_tokens: 142
        })
    );
}

#[test]
fn vllm_openai_compatible_tool_calls_with_stop() {
    let raw = r#"{"id":"chat-1","object":"chat.completion","model":"Qwen/Qwen2.5-7B-Instruct","choices":[{"index":0,"message":{"role":"assistant","content":null,
      "tool_calls":[{"id":"chatcmpl-tool-1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]},"finish_reason":"stop","stop_reason":null}],
      "usage":{"prompt_tokens":10,"total_tokens":20,"completion_tokens":10}}"#;
    let r = parse_llm_response(raw);
    assert_eq!(r.finish_reason, FinishReason::ToolCalls);
    assert!(r.tool_calls[0].complete);
}

#[test]
fn anthropic_text_and_stop_reasons() {
    let raw = r#"{"id":"msg_013Zva2CMHLNnXjNJJKqJ2EF","type":"message","role":"assistant","model":"claude-sonnet-4-5",
      "content":[{"type":"text","text":"Hi! My name is Claude."}],"stop_reason":"end_turn","stop_sequence":null,
      "usage":{"input_tokens":2095,"output_tokens":503,"cache_creation_input_tokens":100,"cache_read_input_tokens":5}}"#;
    let r = parse_llm_response(raw);
    assert_eq!(r.finish_reason, FinishReason::Stop);
    assert_eq!(r.content.as_deref(), Some("Hi! My name is Claude."));
    assert_eq!(
        r.usage,
        Some(Usage {
            prompt_tokens: 2200,
            completion_tokens: 503,
            total_tokens: 2703
        })
    );
    for (sr, want) in [
        ("stop_sequence", FinishReason::Stop),
        ("max_tokens", FinishReason::Length),
        ("tool_use", FinishReason::ToolCalls),
        ("end_turn", FinishReason::Stop),
        ("pause_turn", FinishReason::Unknown),
    ] {
        let raw = json!({"type":"message","role":"assistant","content":[{"type":"text","text":"x"}],"stop_reason":sr})
            .to_string();
        assert_eq!(parse_llm_response(&raw).finish_reason, want, "{sr}");
    }
}

#[test]
fn content_embedded_hermes_tool_calls() {
    let content = "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"tz\": \"CET\"}}\n</tool_call>";
    let raw = json!({"choices":[{"index":0,"message":{"role":"assistant","content":content},"finish_reason":"stop"}]})
        .to_string();
    let r = parse_llm_response(&raw);
    assert_eq!(r.finish_reason, FinishReason::ToolCalls);
    assert_eq!(r.content.as_deref(), Some("Let me check."));
    assert_eq!(r.tool_calls.len(), 2);
    assert_eq!(r.tool_calls[0].id, "call_0");
    assert_eq!(r.tool_calls[0].name, "get_weather");
    assert_eq!(r.tool_calls[0].arguments, Some(json!({"city":"Paris"})));
    assert_eq!(r.tool_calls[1].id, "call_1");
    assert!(r.tool_calls.iter().all(|c| c.complete));
}

#[test]
fn content_embedded_mistral_and_llama_tool_calls() {
    let c1 = "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, {\"name\": \"get_time\", \"arguments\": {}}]";
    let c2 = "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}";
    let c3 = "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}<|eom_id|>";
    for (content, n) in [(c1, 2), (c2, 1), (c3, 1)] {
        let raw =
            json!({"choices":[{"index":0,"message":{"role":"assistant","content":content},"finish_reason":"stop"}]})
                .to_string();
        let r = parse_llm_response(&raw);
        assert_eq!(r.tool_calls.len(), n, "{content}");
        assert_eq!(r.tool_calls[0].name, "get_weather");
        assert_eq!(r.tool_calls[0].arguments, Some(json!({"city":"Paris"})), "{content}");
        assert!(r.tool_calls[0].complete);
        assert_eq!(r.content, None);
        assert_eq!(r.finish_reason, FinishReason::ToolCalls);
    }
}

#[test]
fn content_embedded_call_cut_off_is_incomplete() {
    // Holds with and without the repair engine: unclosed tag + cut JSON is never complete.
    let content = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Par";
    let raw =
        json!({"choices":[{"index":0,"message":{"role":"assistant","content":content},"finish_reason":"length"}]})
            .to_string();
    let r = parse_llm_response(&raw);
    assert_eq!(r.tool_calls.len(), 1);
    assert!(!r.tool_calls[0].complete);
    assert!(r.tool_calls[0].arguments.is_none());
    assert!(r.complete_tool_calls().is_empty());
    assert_eq!(r.finish_reason, FinishReason::Length);
}

#[test]
fn native_tool_calls_win_over_content_markup() {
    let raw = json!({"choices":[{"index":0,"message":{"role":"assistant","content":"<tool_call>{\"name\":\"x\",\"arguments\":{}}</tool_call>",
        "tool_calls":[{"id":"n1","type":"function","function":{"name":"native","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}).to_string();
    let r = parse_llm_response(&raw);
    assert_eq!(r.tool_calls.len(), 1);
    assert_eq!(r.tool_calls[0].name, "native");
}

#[test]
fn openai_sse_stream_with_parallel_tool_calls() {
    let raw = r#"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":null},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\": "}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{}"}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":50,"completion_tokens":20,"total_tokens":70}}

data: [DONE]
"#;
    let r = parse_llm_response(raw);
    assert_eq!(r.finish_reason, FinishReason::ToolCalls);
    assert!(!r.truncated);
    assert_eq!(r.tool_calls.len(), 2);
    assert_eq!(r.tool_calls[0].id, "call_a");
    assert_eq!(r.tool_calls[0].arguments, Some(json!({"city":"Paris"})));
    assert!(r.tool_calls.iter().all(|c| c.complete));
    assert_eq!(r.usage.unwrap().total_tokens, 70);
}

#[test]
fn openai_sse_text_stream() {
    let raw = "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hal\"},\"finish_reason\":null}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":null}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    let r = parse_llm_response(raw);
    assert_eq!(r.content.as_deref(), Some("Hallo"));
    assert_eq!(r.finish_reason, FinishReason::Stop);
}

#[test]
fn openai_sse_stream_cut_mid_second_call() {
    // Holds with and without the repair engine.
    let raw = r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"a","arguments":"{\"x\": 1}"}}]},"finish_reason":null}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"b","arguments":"{\"y\": "}}]},"finish_reason":null}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"2}"}}]},"finish_reason":nu"#;
    let r = parse_llm_response(raw);
    assert!(r.truncated);
    assert_eq!(r.tool_calls.len(), 2);
    assert!(r.tool_calls[0].complete);
    assert_eq!(r.tool_calls[0].arguments, Some(json!({"x":1})));
    assert!(
        !r.tool_calls[1].complete,
        "the last call of a cut stream is never executed"
    );
    assert!(r.tool_calls[1].error.is_some());
    assert_eq!(r.complete_tool_calls().len(), 1);
}

#[test]
fn anthropic_sse_stream_tool_use() {
    let raw = r#"event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"usage":{"input_tokens":472,"output_tokens":2}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Okay, let me check."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"location\": \"San Fra"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"ncisco, CA\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}

event: message_stop
data: {"type":"message_stop"}
"#;
    let r = parse_llm_response(raw);
    assert_eq!(r.finish_reason, FinishReason::ToolCalls);
    assert_eq!(r.content.as_deref(), Some("Okay, let me check."));
    assert_eq!(r.tool_calls.len(), 1);
    assert_eq!(r.tool_calls[0].id, "toolu_01T1x1fJ34qAmk2tNTrN7Up6");
    assert_eq!(r.tool_calls[0].arguments, Some(json!({"location":"San Francisco, CA"})));
    assert!(r.tool_calls[0].complete);
    assert_eq!(
        r.usage,
        Some(Usage {
            prompt_tokens: 472,
            completion_tokens: 89,
            total_tokens: 561
        })
    );
    // cut before the tool_use block stopped: not executable, even though the JSON is whole
    let cut = raw
        .split("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}")
        .next()
        .unwrap();
    let r = parse_llm_response(cut);
    assert!(r.truncated);
    assert_eq!(r.tool_calls.len(), 1);
    assert!(!r.tool_calls[0].complete);
}

#[test]
fn anthropic_sse_error_event() {
    let raw = "event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}\n\n";
    let r = parse_llm_response(raw);
    assert_eq!(r.finish_reason, FinishReason::Error);
    assert_eq!(r.error.unwrap().kind, ErrorKind::Server);
}

#[test]
fn ollama_ndjson_stream() {
    let raw = "{\"model\":\"llama3.2\",\"created_at\":\"2023-08-04T08:52:19.385406455-07:00\",\"message\":{\"role\":\"assistant\",\"content\":\"The\"},\"done\":false}\n{\"model\":\"llama3.2\",\"created_at\":\"2023-08-04T08:52:19.385406455-07:00\",\"message\":{\"role\":\"assistant\",\"content\":\" sky\"},\"done\":false}\n{\"model\":\"llama3.2\",\"created_at\":\"2023-08-04T19:22:45.499127Z\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"prompt_eval_count\":26,\"eval_count\":290}\n";
    let r = parse_llm_response(raw);
    assert_eq!(r.content.as_deref(), Some("The sky"));
    assert_eq!(r.finish_reason, FinishReason::Stop);
    assert_eq!(r.usage.unwrap().total_tokens, 316);
}

#[test]
fn to_json_shape() {
    let raw = openai_with_calls(
        json!([{"id":"c1","type":"function","function":{"name":"w","arguments":"{\"a\":1}"}}]),
        "tool_calls",
    );
    let v = parse_llm_response(&raw).to_json();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "finish_reason",
            "content",
            "reasoning",
            "tool_calls",
            "usage",
            "error",
            "repairs"
        ]
    );
    assert_eq!(v["finish_reason"], "tool_calls");
    assert_eq!(v["content"], Value::Null);
    assert_eq!(v["tool_calls"][0]["id"], "c1");
    assert_eq!(v["tool_calls"][0]["name"], "w");
    assert_eq!(v["tool_calls"][0]["arguments"], json!({"a":1}));
    assert_eq!(v["tool_calls"][0]["complete"], true);
    assert_eq!(
        v["usage"],
        json!({"prompt_tokens":82,"completion_tokens":17,"total_tokens":99})
    );
    assert_eq!(v["error"], Value::Null);
    assert_eq!(v["repairs"], json!([]));
    let e = parse_llm_response(r#"{"error":{"message":"boom","type":"server_error"}}"#).to_json();
    assert_eq!(e["finish_reason"], "error");
    assert_eq!(e["error"]["kind"], "server");
    assert_eq!(e["error"]["message"], "boom");
}

#[test]
fn garbage_is_invalid_response() {
    for raw in ["hello there", "{\"foo\": 1}", "[1,2,3]", "data: \n\n", "\u{feff}  "] {
        let r = parse_llm_response(raw);
        assert_eq!(r.finish_reason, FinishReason::Error, "{raw:?}");
        assert_eq!(r.error.as_ref().unwrap().kind, ErrorKind::InvalidResponse, "{raw:?}");
        assert!(!r.has_tools());
    }
}

#[test]
fn never_panics_on_fuzzish_input() {
    let base = openai_with_calls(
        json!([{"id":"a","type":"function","function":{"name":"x","arguments":"{\"k\":\"v\",\"n\":[1,2,{\"z\":null}]}"}}]),
        "tool_calls",
    );
    // every prefix of a real body, plus SSE and content-markup variants
    for end in 0..=base.len() {
        if base.is_char_boundary(end) {
            let r = parse_llm_response(&base[..end]);
            for c in &r.tool_calls {
                if end < base.len() - 60 {
                    // a call cut before its end must never be executable
                    assert!(!c.complete || c.arguments_raw.ends_with('}'), "{end}: {c:?}");
                }
            }
            let _ = parse_llm_response(&format!("data: {}", &base[..end]));
            let _ = parse_llm_response(&format!(
                "{{\"choices\":[{{\"message\":{{\"content\":{}}}}}]}}",
                serde_json::to_string(&format!("<tool_call>{}", &base[..end])).unwrap()
            ));
        }
    }
}

// ---- depend on the repair engine (mcp_repair::repair doing more than strict parsing) ----

#[test]
fn repair_fenced_body() {
    let body = openai_with_calls(
        json!([{"id":"c1","type":"function","function":{"name":"w","arguments":"{\"a\":1}"}}]),
        "tool_calls",
    );
    let raw = format!("```json\n{body}\n```");
    let r = parse_llm_response(&raw);
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.finish_reason, FinishReason::ToolCalls);
    assert!(r.tool_calls[0].complete);
    assert!(!r.repairs.is_empty());
}

#[test]
fn repair_truncated_tool_calls_keeps_complete_calls() {
    let raw = r#"{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"getTarifVertrag","arguments":"{\"tarifgebiet\":\"Bayern\",\"fachbereich\":\"Metall\"}"}},{"id":"call_2","type":"function","function":{"name":"getDialog","arguments":"{\"missing_parameters\":[\"tarif"#;
    let r = parse_llm_response(raw);
    assert!(r.error.is_none(), "{:?}", r.error);
    assert!(r.truncated);
    assert!(r.repairs.iter().any(|f| f.kind == "truncated"));
    assert_eq!(r.tool_calls.len(), 2);
    assert!(r.tool_calls[0].complete);
    assert_eq!(
        r.tool_calls[0].arguments,
        Some(json!({"tarifgebiet":"Bayern","fachbereich":"Metall"}))
    );
    assert!(!r.tool_calls[1].complete);
    assert!(r.tool_calls[1].error.is_some());
    assert_eq!(r.finish_reason, FinishReason::Length);
    assert_eq!(r.complete_tool_calls().len(), 1);
}

#[test]
fn repair_truncated_after_arguments_string_closed_is_still_incomplete() {
    // The arguments string is whole but the call object is not: the cut lies inside the call.
    let raw = r#"{"choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"a","arguments":"{}"}},{"id":"call_2","type":"function","function":{"name":"b","arguments":"{\"x\":1}""#;
    let r = parse_llm_response(raw);
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.tool_calls.len(), 2);
    assert!(r.tool_calls[0].complete);
    assert!(!r.tool_calls[1].complete);
}

#[test]
fn repair_truncated_anthropic_tool_use() {
    let raw = r#"{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"a","input":{"x":1}},{"type":"tool_use","id":"toolu_2","name":"b","input":{"y":"abc"#;
    let r = parse_llm_response(raw);
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.tool_calls.len(), 2);
    assert!(r.tool_calls[0].complete);
    assert!(!r.tool_calls[1].complete);
}

#[test]
fn repair_arguments_with_trailing_comma() {
    let raw = openai_with_calls(
        json!([{"id":"c1","type":"function","function":{"name":"w","arguments":"{\"a\":1,}"}}]),
        "tool_calls",
    );
    let r = parse_llm_response(&raw);
    let c = &r.tool_calls[0];
    assert!(c.complete, "{c:?}");
    assert_eq!(c.arguments, Some(json!({"a":1})));
    assert!(!c.repairs.is_empty());
}

#[test]
fn repair_truncated_arguments_string_is_incomplete() {
    // Repair could close `{"city":"Ber` but the call must not run.
    let raw = openai_with_calls(
        json!([{"id":"c1","type":"function","function":{"name":"w","arguments":"{\"city\":\"Ber"}}]),
        "tool_calls",
    );
    let r = parse_llm_response(&raw);
    let c = &r.tool_calls[0];
    assert!(!c.complete);
    assert!(c.arguments.is_none());
    assert!(c.error.is_some());
}
