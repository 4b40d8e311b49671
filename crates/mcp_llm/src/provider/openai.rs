//! The chat-completions dialect: OpenAI and every OpenAI-compatible server (Mistral, Ollama's
//! `/v1`, vLLM, llama.cpp), and Azure OpenAI, which differs only in the URL (deployment and
//! `api-version`) and the key header (`api-key`).

use super::dialect::{merge_extra, Dialect, ProviderConfig};
use crate::answer::{
    bare_message, error_answer, is_bare_message, message, unrecognized, usage_from, FinishReason, LlmResponse,
};
use crate::complete::{parse_json_answer, Shaped};
use crate::error::{error_from_value, looks_like_error, normalize_error_with_retry, ErrorKind, ProviderError};
use crate::types::{ChatRequest, Message, Role, ToolDef};
use serde_json::{json, Map, Value};
use std::time::SystemTime;

/// Azure `api-version` used when the provider config names none.
pub const DEFAULT_AZURE_API_VERSION: &str = "2024-10-21";

/// OpenAI and OpenAI-compatible servers.
pub struct OpenAi;

/// Azure OpenAI.
pub struct Azure;

impl Dialect for OpenAi {
    fn endpoint(&self, p: &ProviderConfig) -> String {
        format!("{}/chat/completions", base(p))
    }

    fn embeddings_endpoint(&self, p: &ProviderConfig, _model: &str) -> Option<String> {
        Some(format!("{}/embeddings", base(p)))
    }

    fn auth_headers(&self, _p: &ProviderConfig, key: Option<&str>) -> Vec<(String, String)> {
        key.map(|k| ("authorization".to_string(), format!("Bearer {k}")))
            .into_iter()
            .collect()
    }

    fn body(&self, req: &ChatRequest) -> Value {
        openai_body(req)
    }

    fn parse(&self, raw: &str, tools: &[ToolDef]) -> LlmResponse {
        parse_answer(raw, tools)
    }

    fn normalize_error(&self, label: &str, status: u16, body: &str, headers: &[(&str, &str)]) -> ProviderError {
        normalize_error_with_headers(label, Some(status), body, headers)
    }
}

impl Dialect for Azure {
    fn endpoint(&self, p: &ProviderConfig) -> String {
        format!(
            "{}/openai/deployments/{}/chat/completions?api-version={}",
            base(p),
            url_segment(&p.model),
            url_segment(p.api_version.as_deref().unwrap_or(DEFAULT_AZURE_API_VERSION))
        )
    }

    /// Azure serves embeddings per deployment: the embedding model's `model` names it.
    fn embeddings_endpoint(&self, p: &ProviderConfig, model: &str) -> Option<String> {
        Some(format!(
            "{}/openai/deployments/{}/embeddings?api-version={}",
            base(p),
            url_segment(model),
            url_segment(p.api_version.as_deref().unwrap_or(DEFAULT_AZURE_API_VERSION))
        ))
    }

    fn auth_headers(&self, _p: &ProviderConfig, key: Option<&str>) -> Vec<(String, String)> {
        key.map(|k| ("api-key".to_string(), k.to_string()))
            .into_iter()
            .collect()
    }

    fn body(&self, req: &ChatRequest) -> Value {
        openai_body(req)
    }

    fn parse(&self, raw: &str, tools: &[ToolDef]) -> LlmResponse {
        parse_answer(raw, tools)
    }

    fn check(&self, p: &ProviderConfig) -> Result<(), String> {
        OpenAi.check(p)?;
        if p.model.trim().is_empty() {
            return Err(format!(
                "provider {}: azure needs the deployment name as model",
                p.label()
            ));
        }
        Ok(())
    }

    fn normalize_error(&self, label: &str, status: u16, body: &str, headers: &[(&str, &str)]) -> ProviderError {
        OpenAi.normalize_error(label, status, body, headers)
    }
}

fn base(p: &ProviderConfig) -> &str {
    p.base_url.trim().trim_end_matches('/')
}

/// A deployment name or api-version as one URL path segment / query value.
fn url_segment(s: &str) -> String {
    mcp_audit::percent_encode(s.trim())
}

// ---------------------------------------------------------------------------------------------
// Request body

/// OpenAI reasoning models (o1/o3/o4, gpt-5) reject `max_tokens` and want
/// `max_completion_tokens`.
fn wants_max_completion_tokens(model: &str) -> bool {
    let m = model.to_ascii_lowercase();
    ["o1", "o3", "o4", "gpt-5"]
        .iter()
        .any(|p| m == *p || m.starts_with(&format!("{p}-")))
}

fn openai_message(m: &Message) -> Value {
    match m.role {
        Role::System | Role::User => json!({"role": m.role.as_str(), "content": m.text()}),
        Role::Tool => json!({
            "role": "tool",
            "tool_call_id": m.tool_call_id.clone().unwrap_or_default(),
            "content": m.text(),
        }),
        Role::Assistant => {
            let mut o = Map::new();
            o.insert("role".into(), json!("assistant"));
            if m.tool_calls.is_empty() {
                o.insert("content".into(), json!(m.text()));
            } else {
                let content = match m.content.as_deref() {
                    Some(c) if !c.is_empty() => json!(c),
                    _ => Value::Null,
                };
                o.insert("content".into(), content);
                let calls: Vec<Value> = m
                    .tool_calls
                    .iter()
                    .map(|c| {
                        json!({
                            "id": c.id,
                            "type": "function",
                            "function": {"name": c.name, "arguments": c.arguments_string()},
                        })
                    })
                    .collect();
                o.insert("tool_calls".into(), Value::Array(calls));
            }
            Value::Object(o)
        }
    }
}

/// The chat-completions body: messages, `tools` as `{"type":"function","function":{…}}`,
/// `tool_choice`, tool-call arguments as JSON *strings*. `tools`/`tool_choice` are omitted
/// when the request has no tools.
pub fn openai_body(req: &ChatRequest) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    body.insert(
        "messages".into(),
        Value::Array(req.messages.iter().map(openai_message).collect()),
    );
    if !req.tools.is_empty() {
        let tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| {
                json!({
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.schema()},
                })
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        body.insert("tool_choice".into(), req.tool_choice.to_openai());
    }
    if let Some(n) = req.max_tokens {
        let key = if wants_max_completion_tokens(&req.model) {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        body.insert(key.into(), json!(n));
    }
    if let Some(t) = req.temperature {
        body.insert("temperature".into(), json!(t));
    }
    merge_extra(&mut body, &req.extra);
    Value::Object(body)
}

// ---------------------------------------------------------------------------------------------
// Answer

/// A chat-completions answer (OpenAI and Azure alike): `choices`, an error object in the body,
/// or a bare assistant message (some compatible servers and gateways answer with the message
/// alone); anything else is `invalid_response`.
fn parse_answer(raw: &str, tools: &[ToolDef]) -> LlmResponse {
    parse_json_answer(raw, Some(tools), |v, raw, truncated| {
        if let Some(choices) = v.get("choices").and_then(Value::as_array) {
            Shaped::Answer(from_choices(v, choices, raw, truncated))
        } else if looks_like_error(v) {
            Shaped::Final(error_answer(v))
        } else if is_bare_message(v) && v.get("type").and_then(Value::as_str) != Some("message") {
            // A bare chat message (some gateways); an Anthropic Messages answer
            // (`"type": "message"`, typed content blocks) is another dialect's, not guessed.
            Shaped::Answer(bare_message(v, raw, truncated))
        } else {
            Shaped::Answer(unrecognized(v))
        }
    })
}

/// A chat-completions answer (`{"choices": [{"message"|"delta"|"text", "finish_reason"}],
/// "usage"}`).
pub(crate) fn from_choices(v: &Value, choices: &[Value], raw: &str, truncated: bool) -> LlmResponse {
    let usage = usage_from(v.get("usage"));
    let Some(choice) = choices.first() else {
        let mut r = LlmResponse::from_error(ProviderError::new(
            ErrorKind::InvalidResponse,
            "openai",
            None,
            "response has no choices",
        ));
        r.usage = usage;
        return r;
    };
    let mut r = if let Some(m) = choice
        .get("message")
        .or_else(|| choice.get("delta"))
        .filter(|m| m.is_object())
    {
        message(m, raw, truncated)
    } else {
        let mut r = LlmResponse::empty();
        r.content = choice.get("text").and_then(Value::as_str).map(String::from);
        r
    };
    r.finish_reason = choice
        .get("finish_reason")
        .and_then(Value::as_str)
        .map(FinishReason::from_provider)
        .unwrap_or(FinishReason::Unknown);
    // Gateways (OpenRouter and others) put errors into the choice.
    if let Some(e) = choice.get("error").filter(|e| e.is_object()) {
        let mut pe = error_from_value(&json!({"error": e}));
        pe.http_status = None;
        r.error = Some(pe);
    }
    if r.finish_reason == FinishReason::ContentFilter
        && r.error.is_none()
        && r.content.is_none()
        && r.tool_calls.is_empty()
    {
        r.error = Some(ProviderError::new(
            ErrorKind::ContentFilter,
            "openai",
            None,
            "the answer was withheld by the provider's content filter",
        ));
        if let Some(e) = r.error.as_mut() {
            e.code = Some("content_filter".into());
        }
        r.finish_reason = FinishReason::ContentFilter;
        r.usage = usage;
        return r;
    }
    r.usage = usage;
    r
}

// ---------------------------------------------------------------------------------------------
// Errors: how long to wait

/// [`crate::normalize_error`] with all response headers (`retry-after-ms` first, then
/// `retry-after`, then `x-ratelimit-reset-*`: [`retry_after_from_headers`]).
pub fn normalize_error_with_headers(
    provider: &str,
    http_status: Option<u16>,
    body: &str,
    headers: &[(&str, &str)],
) -> ProviderError {
    normalize_error_with_retry(provider, http_status, body, retry_after_from_headers(headers))
}

/// Retry delay from response headers (names case-insensitive): the shared reader
/// ([`mcp_http::retry_after`]: `retry-after-ms`, then `retry-after`), then OpenAI's and Azure's
/// `x-ratelimit-reset-requests`/`-tokens` (`"1s"`, `"6m0s"`, `"20ms"`) when those are missing.
pub fn retry_after_from_headers(headers: &[(&str, &str)]) -> Option<f64> {
    if let Some(d) = mcp_http::retry_after(headers, SystemTime::now()) {
        return Some(d.as_secs_f64());
    }
    let get = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| *v)
    };
    ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"]
        .iter()
        .filter_map(|h| get(h).and_then(parse_go_duration))
        .reduce(f64::max)
}

/// `"6m0s"`, `"1.5s"`, `"20ms"`, `"1h2m"` → seconds.
fn parse_go_duration(s: &str) -> Option<f64> {
    let s = s.trim();
    let mut total = 0.0;
    let mut num = String::new();
    let mut chars = s.chars().peekable();
    let mut any = false;
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() || c == '.' {
            num.push(c);
            continue;
        }
        let n: f64 = num.parse().ok()?;
        num.clear();
        let unit = match c {
            'h' => 3600.0,
            'm' if chars.peek() == Some(&'s') => {
                chars.next();
                0.001
            }
            'm' => 60.0,
            's' => 1.0,
            _ => return None,
        };
        total += n * unit;
        any = true;
    }
    if !num.is_empty() {
        total += num.parse::<f64>().ok()?;
        any = true;
    }
    any.then_some(total)
}

#[cfg(test)]
mod embedding_endpoint_tests {
    use crate::provider::dialect::{ProviderConfig, ProviderKind};

    #[test]
    fn embeddings_endpoints_per_dialect() {
        let o = ProviderConfig::new(ProviderKind::Openai, "http://h:1/v1/", "gpt").with_key("k");
        assert_eq!(o.embeddings_endpoint("e5").as_deref(), Some("http://h:1/v1/embeddings"));
        assert_eq!(o.headers()[1], ("authorization".into(), "Bearer k".into()));
        let mut a = ProviderConfig::new(ProviderKind::Azure, "https://x.openai.azure.com", "chat-dep").with_key("k");
        a.api_version = Some("2024-10-21".into());
        assert_eq!(
            a.embeddings_endpoint("emb dep").as_deref(),
            Some("https://x.openai.azure.com/openai/deployments/emb%20dep/embeddings?api-version=2024-10-21")
        );
        assert_eq!(a.headers()[1], ("api-key".into(), "k".into()));
        let c = ProviderConfig::new(ProviderKind::Anthropic, "https://api.anthropic.com/v1", "claude");
        assert_eq!(c.embeddings_endpoint("x"), None);
    }
}
