use mcp_llm::*;
use serde_json::{json, Value};

fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::new(
            "getTarifVertrag",
            "Liefert relevante Tarifverträge",
            json!({"type":"object","properties":{"tarifgebiet":{"type":"string"}},"required":["tarifgebiet"]}),
        ),
        ToolDef::new(
            "getDialog",
            "Fragt fehlende Parameter ab",
            json!({"type":"object","properties":{}}),
        ),
    ]
}

/// system, user, assistant with two parallel tool calls, two tool results, user follow-up.
fn history() -> Vec<Message> {
    vec![
        Message::system("Du bist ein Tarif-Assistent."),
        Message::system("Nutze Tools."),
        Message::user("Welche Tarifverträge gelten in Bayern?"),
        Message::assistant_tool_calls(
            Some("Ich schaue nach.".into()),
            vec![
                ToolCall::new("call_a", "getTarifVertrag", json!({"tarifgebiet":"Bayern"})),
                ToolCall::new("call_b", "getDialog", json!({})),
            ],
        ),
        Message::tool_result("call_a", "getTarifVertrag", "[\"TV Metall Bayern\"]"),
        Message::tool_result("call_b", "getDialog", "keine Rückfrage"),
        Message::user("Und in Hessen?"),
    ]
}

fn req(tc: ToolChoice) -> ChatRequest {
    let mut r = ChatRequest::new("gpt-4o-mini", history());
    r.tools = tools();
    r.tool_choice = tc;
    r
}

#[test]
fn openai_tool_choice_modes() {
    let cases = [
        (ToolChoice::None, json!("none")),
        (ToolChoice::Auto, json!("auto")),
        (ToolChoice::Required, json!("required")),
        (
            ToolChoice::Function("getDialog".into()),
            json!({"type":"function","function":{"name":"getDialog"}}),
        ),
    ];
    for (tc, want) in cases {
        let b = openai_body(&req(tc));
        assert_eq!(b["tool_choice"], want);
        assert_eq!(b["tools"][0]["type"], "function");
        assert_eq!(b["tools"][0]["function"]["name"], "getTarifVertrag");
        assert_eq!(b["tools"][0]["function"]["parameters"]["required"][0], "tarifgebiet");
    }
}

#[test]
fn openai_omits_tools_when_none() {
    let mut r = ChatRequest::new("gpt-4o", vec![Message::user("hi")]);
    r.tool_choice = ToolChoice::Required;
    let b = openai_body(&r);
    assert!(b.get("tools").is_none());
    assert!(b.get("tool_choice").is_none());
    assert_eq!(b["messages"], json!([{"role":"user","content":"hi"}]));
}

#[test]
fn openai_messages_parallel_calls_arguments_are_strings() {
    let b = openai_body(&req(ToolChoice::Auto));
    let msgs = b["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 7);
    assert_eq!(
        msgs[0],
        json!({"role":"system","content":"Du bist ein Tarif-Assistent."})
    );
    let a = &msgs[3];
    assert_eq!(a["role"], "assistant");
    assert_eq!(a["content"], "Ich schaue nach.");
    let calls = a["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["id"], "call_a");
    assert_eq!(calls[0]["type"], "function");
    let args = calls[0]["function"]["arguments"]
        .as_str()
        .expect("arguments must be a JSON string");
    assert_eq!(
        serde_json::from_str::<Value>(args).unwrap(),
        json!({"tarifgebiet":"Bayern"})
    );
    assert_eq!(calls[1]["function"]["arguments"], "{}");
    assert_eq!(
        msgs[4],
        json!({"role":"tool","tool_call_id":"call_a","content":"[\"TV Metall Bayern\"]"})
    );
    assert_eq!(msgs[5]["tool_call_id"], "call_b");
}

#[test]
fn openai_assistant_tool_calls_without_text_has_null_content() {
    let r = ChatRequest::new(
        "gpt-4o",
        vec![
            Message::user("q"),
            Message::assistant_tool_calls(None, vec![ToolCall::new("c1", "f", json!({"x": 1}))]),
        ],
    );
    let b = openai_body(&r);
    assert_eq!(b["messages"][1]["content"], Value::Null);
}

#[test]
fn openai_max_tokens_temperature_extra() {
    let mut r = req(ToolChoice::Auto);
    r.max_tokens = Some(300);
    r.temperature = Some(0.2);
    r.extra.insert("parallel_tool_calls".into(), json!(false));
    r.extra.insert("model".into(), json!("evil")); // never overrides builder fields
    let b = openai_body(&r);
    assert_eq!(b["max_tokens"], 300);
    assert_eq!(b["temperature"], 0.2);
    assert_eq!(b["parallel_tool_calls"], false);
    assert_eq!(b["model"], "gpt-4o-mini");
    // reasoning models want max_completion_tokens
    let mut r = ChatRequest::new("o3-mini", vec![Message::user("q")]);
    r.max_tokens = Some(10);
    let b = openai_body(&r);
    assert_eq!(b["max_completion_tokens"], 10);
    assert!(b.get("max_tokens").is_none());
}

#[test]
fn anthropic_tool_choice_modes() {
    let cases = [
        (ToolChoice::None, json!({"type":"none"})),
        (ToolChoice::Auto, json!({"type":"auto"})),
        (ToolChoice::Required, json!({"type":"any"})),
        (
            ToolChoice::Function("getDialog".into()),
            json!({"type":"tool","name":"getDialog"}),
        ),
    ];
    for (tc, want) in cases {
        let b = anthropic_body(&req(tc));
        assert_eq!(b["tool_choice"], want);
        assert_eq!(
            b["tools"][0],
            json!({"name":"getTarifVertrag","description":"Liefert relevante Tarifverträge",
                   "input_schema":{"type":"object","properties":{"tarifgebiet":{"type":"string"}},"required":["tarifgebiet"]}})
        );
    }
}

#[test]
fn anthropic_system_tool_use_and_merged_tool_results() {
    let b = anthropic_body(&req(ToolChoice::Auto));
    assert_eq!(b["system"], "Du bist ein Tarif-Assistent.\n\nNutze Tools.");
    assert_eq!(b["max_tokens"], 1024);
    let msgs = b["messages"].as_array().unwrap();
    // user, assistant(text + 2 tool_use), user(2 tool_result + follow-up text)
    assert_eq!(msgs.len(), 3, "{b:#}");
    assert_eq!(msgs[0]["role"], "user");
    assert_eq!(msgs[1]["role"], "assistant");
    let blocks = msgs[1]["content"].as_array().unwrap();
    assert_eq!(blocks[0], json!({"type":"text","text":"Ich schaue nach."}));
    assert_eq!(
        blocks[1],
        json!({"type":"tool_use","id":"call_a","name":"getTarifVertrag","input":{"tarifgebiet":"Bayern"}})
    );
    assert_eq!(blocks[2]["type"], "tool_use");
    assert_eq!(blocks[2]["input"], json!({}));
    assert_eq!(msgs[2]["role"], "user");
    let res = msgs[2]["content"].as_array().unwrap();
    assert_eq!(res.len(), 3);
    assert_eq!(
        res[0],
        json!({"type":"tool_result","tool_use_id":"call_a","content":"[\"TV Metall Bayern\"]"})
    );
    assert_eq!(res[1]["tool_use_id"], "call_b");
    assert_eq!(res[2], json!({"type":"text","text":"Und in Hessen?"}));
    // no system role inside messages
    assert!(msgs.iter().all(|m| m["role"] != "system"));
}

#[test]
fn anthropic_no_tools_no_tool_choice_and_max_tokens() {
    let mut r = ChatRequest::new("claude-sonnet-4-5", vec![Message::user("hi")]);
    r.max_tokens = Some(50);
    let b = anthropic_body(&r);
    assert!(b.get("tools").is_none());
    assert!(b.get("tool_choice").is_none());
    assert!(b.get("system").is_none());
    assert_eq!(b["max_tokens"], 50);
}

#[test]
fn anthropic_round_trip_tool_use_to_tool_result() {
    // Anthropic answers with tool_use; we parse it, append results, and build the next body.
    let raw = r#"{"id":"msg_01Aq9w938a90dw8q","type":"message","role":"assistant","model":"claude-sonnet-4-5",
      "content":[{"type":"text","text":"I'll check."},
                 {"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"getTarifVertrag","input":{"tarifgebiet":"Bayern"}},
                 {"type":"tool_use","id":"toolu_02B","name":"getDialog","input":{}}],
      "stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":472,"output_tokens":91}}"#;
    let resp = parse_llm_response(raw);
    assert_eq!(resp.finish_reason, FinishReason::ToolCalls);
    assert_eq!(resp.tool_calls.len(), 2);
    let mut msgs = vec![Message::system("s"), Message::user("Welche?")];
    msgs.push(resp.to_assistant_message());
    for c in resp.complete_tool_calls() {
        msgs.push(Message::tool_result(
            c.id.clone(),
            c.name.clone(),
            format!("result of {}", c.name),
        ));
    }
    let mut r = ChatRequest::new("claude-sonnet-4-5", msgs);
    r.tools = tools();
    let b = anthropic_body(&r);
    let m = b["messages"].as_array().unwrap();
    assert_eq!(m.len(), 3);
    assert_eq!(m[1]["content"][1]["id"], "toolu_01A09q90qw90lq917835lq9");
    assert_eq!(m[1]["content"][1]["input"], json!({"tarifgebiet":"Bayern"}));
    assert_eq!(m[2]["content"][0]["tool_use_id"], "toolu_01A09q90qw90lq917835lq9");
    assert_eq!(m[2]["content"][1]["tool_use_id"], "toolu_02B");
    // and the same history renders for OpenAI with string arguments
    let o = openai_body(&r);
    assert_eq!(
        o["messages"][2]["tool_calls"][0]["function"]["arguments"],
        r#"{"tarifgebiet":"Bayern"}"#
    );
}
