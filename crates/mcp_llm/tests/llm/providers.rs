//! Provider dialects: each kind's endpoint, headers and body come from its own module; the chat
//! path reads JSON answers only.

use mcp_llm::*;
use serde_json::Value;

fn header<'a>(h: &'a [(String, String)], name: &str) -> Option<&'a str> {
    h.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

#[test]
fn each_kind_has_its_endpoint_and_key_header() {
    let o =
        ProviderConfig::new(ProviderKind::Openai, "https://api.openai.com/v1/", "gpt-4o").with_key(" sk-test-123456 ");
    assert_eq!(o.endpoint(), "https://api.openai.com/v1/chat/completions");
    assert_eq!(header(&o.headers(), "authorization"), Some("Bearer sk-test-123456"));
    assert_eq!(header(&o.headers(), "content-type"), Some("application/json"));

    let mut a = ProviderConfig::new(ProviderKind::Azure, "https://r.openai.azure.com", "my deploy/1")
        .with_key("azure-key-123456");
    assert_eq!(
        a.endpoint(),
        format!(
            "https://r.openai.azure.com/openai/deployments/my%20deploy%2F1/chat/completions?api-version={DEFAULT_AZURE_API_VERSION}"
        )
    );
    a.api_version = Some("2024-06-01".into());
    assert!(a.endpoint().ends_with("?api-version=2024-06-01"));
    assert_eq!(header(&a.headers(), "api-key"), Some("azure-key-123456"));
    assert_eq!(header(&a.headers(), "authorization"), None);
    a.model = " ".into();
    assert!(a.check().unwrap_err().contains("deployment name"));

    let c = ProviderConfig::new(ProviderKind::Anthropic, "https://api.anthropic.com/v1", "claude")
        .with_key("ant-key-123456");
    assert_eq!(c.endpoint(), "https://api.anthropic.com/v1/messages");
    assert_eq!(header(&c.headers(), "x-api-key"), Some("ant-key-123456"));
    assert_eq!(header(&c.headers(), "anthropic-version"), Some(ANTHROPIC_VERSION));
    // no key, no key header; the version header stays
    let c = ProviderConfig::new(ProviderKind::Anthropic, "http://127.0.0.1:1", "claude");
    assert_eq!(header(&c.headers(), "x-api-key"), None);
    assert!(header(&c.headers(), "anthropic-version").is_some());

    let r = ProviderConfig::replay("m", vec![]);
    assert_eq!(r.endpoint(), "");
    assert_eq!(r.headers().len(), 1, "content-type only");
    assert!(r.check().is_ok(), "replay needs no base_url");
    let bad = ProviderConfig::new(ProviderKind::Openai, "ftp://x", "m");
    assert!(bad.check().unwrap_err().contains("http://"));
}

#[test]
fn each_kind_builds_its_body() {
    let req = ChatRequest::new("m", vec![Message::system("be brief"), Message::user("hi")]);
    let anthropic = ProviderConfig::new(ProviderKind::Anthropic, "http://h", "m").body(&req);
    assert_eq!(anthropic["system"], "be brief");
    assert_eq!(anthropic["max_tokens"], ANTHROPIC_DEFAULT_MAX_TOKENS);
    for kind in [ProviderKind::Openai, ProviderKind::Azure, ProviderKind::Replay] {
        let b = ProviderConfig::new(kind, "http://h", "m").body(&req);
        assert_eq!(b["messages"][0]["role"], "system", "{kind:?}");
        assert!(b.get("system").is_none(), "{kind:?}");
    }
}

#[test]
fn the_scrubber_knows_the_key_in_every_header_form() {
    let key = "sk-proj/abcdefghijklmnop";
    let encoded = "sk-proj%2Fabcdefghijklmnop";
    for kind in [ProviderKind::Openai, ProviderKind::Azure, ProviderKind::Anthropic] {
        let p = ProviderConfig::new(kind, "https://h.example/v1", "m").with_key(key);
        let s = p.scrubber();
        let text = format!("echo {key} and {encoded}");
        let out = s.scrub(&text);
        assert!(!out.contains(key) && !out.contains(encoded), "{kind:?}: {out}");
    }
}

#[test]
fn error_hints_by_dialect() {
    let h = vec![("x-ratelimit-reset-requests".to_string(), "6m0s".to_string())];
    let body = r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#;
    let o = ProviderConfig::new(ProviderKind::Openai, "http://h", "m");
    assert_eq!(o.normalize_error(429, body, &h).retry_after_s, Some(360.0));
    // Anthropic sends no x-ratelimit-reset-*: only Retry-After counts there
    let a = ProviderConfig::new(ProviderKind::Anthropic, "http://h", "m");
    assert_eq!(a.normalize_error(429, body, &h).retry_after_s, None);
    let h = vec![("retry-after".to_string(), "12".to_string())];
    assert_eq!(a.normalize_error(429, body, &h).retry_after_s, Some(12.0));
    let e = a.normalize_error(429, body, &h);
    assert_eq!(e.kind, ErrorKind::RateLimited);
    assert_eq!(e.provider, "anthropic");
}

#[test]
fn the_chat_path_reads_json_answers_only() {
    // Ollama's native answer and an SSE stream: parse_llm_response (mcp.parse_llm_response)
    // reads them; the chat path (parse_chat_response) does not look for them.
    let ollama = r#"{"model":"llama3","message":{"role":"assistant","content":"hi"},"done":true}"#;
    assert_eq!(parse_llm_response(ollama).content.as_deref(), Some("hi"));
    let chat = parse_chat_response(ollama);
    assert!(chat.error.is_some() && chat.content.is_none(), "{chat:?}");

    let sse = "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n";
    assert_eq!(parse_llm_response(sse).content.as_deref(), Some("Hello"));
    assert_ne!(parse_chat_response(sse).content.as_deref(), Some("Hello"));

    // the dialects' own answers read the same both ways
    let openai = r#"{"choices":[{"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}"#;
    let anthropic =
        r#"{"type":"message","role":"assistant","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn"}"#;
    for raw in [openai, anthropic] {
        let a = parse_chat_response(raw);
        assert_eq!(a.content.as_deref(), Some("ok"));
        assert_eq!(a.to_json(), parse_llm_response(raw).to_json());
        let _: Value = a.to_json();
    }
}

#[test]
fn each_dialect_reads_its_own_answers() {
    let openai = r#"{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_item","arguments":"{\"id\": 7}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}"#;
    let anthropic = r#"{"type":"message","role":"assistant","content":[{"type":"text","text":"ok"},{"type":"tool_use","id":"t1","name":"get_item","input":{"id":7}}],"stop_reason":"tool_use","usage":{"input_tokens":5,"output_tokens":2}}"#;
    let cfg = |k| ProviderConfig::new(k, "http://h/v1", "m");
    // A dialect reads its own shape exactly as the shape-guessing reader does.
    for (kind, raw) in [
        (ProviderKind::Openai, openai),
        (ProviderKind::Azure, openai),
        (ProviderKind::Anthropic, anthropic),
        (ProviderKind::Replay, openai),
        (ProviderKind::Replay, anthropic),
    ] {
        let r = cfg(kind).parse_response(raw, &[]);
        assert_eq!(r.to_json(), parse_llm_response(raw).to_json(), "{kind:?}");
        assert_eq!(r.complete_tool_calls().len(), 1, "{kind:?}");
        assert!(r.error.is_none());
    }
    // The other dialect's answer is not guessed: invalid_response.
    for (kind, raw) in [(ProviderKind::Openai, anthropic), (ProviderKind::Anthropic, openai)] {
        let r = cfg(kind).parse_response(raw, &[]);
        let e = r.error.as_ref().expect("an error");
        assert_eq!(e.kind, ErrorKind::InvalidResponse, "{kind:?}");
        assert!(e.message.contains("unrecognized response shape"), "{}", e.message);
        assert!(r.tool_calls.is_empty());
    }
    // Error bodies in a 2xx answer, repaired and truncated bodies go through every dialect.
    let err = r#"{"error":{"message":"overloaded","type":"overloaded_error"}}"#;
    for kind in [ProviderKind::Openai, ProviderKind::Anthropic, ProviderKind::Replay] {
        let r = cfg(kind).parse_response(err, &[]);
        assert_eq!(r.finish_reason, FinishReason::Error);
        assert_eq!(r.error.as_ref().map(|e| e.kind), Some(ErrorKind::Server), "{kind:?}");
        assert_eq!(
            cfg(kind).parse_response("", &[]).error.map(|e| e.kind),
            Some(ErrorKind::InvalidResponse)
        );
    }
    let cut = &openai[..openai.find("\"finish_reason\"").unwrap()];
    let r = cfg(ProviderKind::Openai).parse_response(cut, &[]);
    assert!(r.truncated && !r.repairs.is_empty());
    assert_eq!(r.to_json(), parse_llm_response(cut).to_json());
}
