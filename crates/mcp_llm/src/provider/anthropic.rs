//! Anthropic's Messages API: `{base}/messages`, the key in `x-api-key`, `anthropic-version`;
//! system prompts top-level, tool calls and results as content blocks.

use super::dialect::{merge_extra, Dialect, ProviderConfig};
use crate::answer::{
    array_cut, call_from_value, error_answer, mark_incomplete, unrecognized, usage_from, Cut, FinishReason, LlmResponse,
};
use crate::complete::{parse_json_answer, Shaped};
use crate::error::{looks_like_error, ErrorKind, ProviderError};
use crate::types::{ChatRequest, Role, ToolDef};
use serde_json::{json, Map, Value};

/// `anthropic-version` header sent to the Messages API.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// Anthropic requires `max_tokens`; this is used when the request has none.
pub const ANTHROPIC_DEFAULT_MAX_TOKENS: u32 = 1024;

/// The Messages API.
pub struct Anthropic;

impl Dialect for Anthropic {
    fn endpoint(&self, p: &ProviderConfig) -> String {
        format!("{}/messages", p.base_url.trim().trim_end_matches('/'))
    }

    fn auth_headers(&self, _p: &ProviderConfig, key: Option<&str>) -> Vec<(String, String)> {
        let mut h: Vec<(String, String)> = key
            .map(|k| ("x-api-key".to_string(), k.to_string()))
            .into_iter()
            .collect();
        h.push(("anthropic-version".into(), ANTHROPIC_VERSION.into()));
        h
    }

    fn body(&self, req: &ChatRequest) -> Value {
        anthropic_body(req)
    }

    /// A Messages answer, or an error object in the body (`{"type": "error", …}`); anything
    /// else is `invalid_response`.
    fn parse(&self, raw: &str, tools: &[ToolDef]) -> LlmResponse {
        parse_json_answer(raw, Some(tools), |v, raw, truncated| {
            if is_message(v) {
                Shaped::Answer(from_message(v, raw, truncated))
            } else if looks_like_error(v) {
                Shaped::Final(error_answer(v))
            } else {
                Shaped::Answer(unrecognized(v))
            }
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Request body

/// Append content blocks to the last message if it has `role`, else start a new message.
fn push_blocks(out: &mut Vec<Value>, role: &str, blocks: Vec<Value>) {
    if blocks.is_empty() {
        return;
    }
    if let Some(last) = out.last_mut() {
        if last.get("role").and_then(Value::as_str) == Some(role) {
            if let Some(arr) = last.get_mut("content").and_then(Value::as_array_mut) {
                arr.extend(blocks);
                return;
            }
        }
    }
    out.push(json!({"role": role, "content": blocks}));
}

/// The Messages API body: system prompts joined into top-level `system`; assistant tool calls
/// as `tool_use` blocks; tool results as `tool_result` blocks in a `user` message (consecutive
/// results, and user text right after them, merged into one user message); tools as
/// `{name, description, input_schema}`; `max_tokens` defaults to
/// [`ANTHROPIC_DEFAULT_MAX_TOKENS`].
pub fn anthropic_body(req: &ChatRequest) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    let system: Vec<&str> = req
        .messages
        .iter()
        .filter(|m| m.role == Role::System)
        .map(|m| m.text())
        .filter(|t| !t.trim().is_empty())
        .collect();
    if !system.is_empty() {
        body.insert("system".into(), json!(system.join("\n\n")));
    }
    let mut out: Vec<Value> = Vec::new();
    for m in &req.messages {
        match m.role {
            Role::System => {}
            Role::User => {
                if m.text().is_empty() {
                    continue; // Anthropic rejects empty text blocks
                }
                push_blocks(&mut out, "user", vec![json!({"type": "text", "text": m.text()})]);
            }
            Role::Tool => {
                let block = json!({
                    "type": "tool_result",
                    "tool_use_id": m.tool_call_id.clone().unwrap_or_default(),
                    "content": m.text(),
                });
                push_blocks(&mut out, "user", vec![block]);
            }
            Role::Assistant => {
                let mut blocks = Vec::new();
                if !m.text().trim().is_empty() {
                    blocks.push(json!({"type": "text", "text": m.text()}));
                }
                for c in &m.tool_calls {
                    blocks.push(json!({
                        "type": "tool_use",
                        "id": c.id,
                        "name": c.name,
                        "input": c.arguments_object(),
                    }));
                }
                push_blocks(&mut out, "assistant", blocks);
            }
        }
    }
    body.insert("messages".into(), Value::Array(out));
    body.insert(
        "max_tokens".into(),
        json!(req.max_tokens.unwrap_or(ANTHROPIC_DEFAULT_MAX_TOKENS)),
    );
    if let Some(t) = req.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if !req.tools.is_empty() {
        let tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.schema()}))
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        body.insert("tool_choice".into(), req.tool_choice.to_anthropic());
    }
    merge_extra(&mut body, &req.extra);
    Value::Object(body)
}

// ---------------------------------------------------------------------------------------------
// Answer

/// The shape of a Messages answer: `"type": "message"`, or content blocks with a stop reason or
/// the assistant's role.
pub(crate) fn is_message(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("message")
        || (v.get("content").map(Value::is_array) == Some(true)
            && (v.get("stop_reason").is_some() || v.get("role").and_then(Value::as_str) == Some("assistant")))
}

/// A Messages answer (`{"type": "message", "content": [blocks], "stop_reason", "usage"}`).
pub(crate) fn from_message(v: &Value, raw: &str, truncated: bool) -> LlmResponse {
    let mut r = LlmResponse::empty();
    let blocks = v.get("content").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut texts = Vec::new();
    let cut = if truncated {
        array_cut(raw, "content")
    } else {
        Cut::Closed
    };
    for (bi, b) in blocks.iter().enumerate() {
        match b.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(t) = b.get("text").and_then(Value::as_str) {
                    texts.push(t.to_string());
                }
            }
            Some("tool_use") | Some("server_tool_use") => {
                let i = r.tool_calls.len();
                let mut c = call_from_value(b, i);
                if !cut.element_whole(bi) {
                    mark_incomplete(&mut c, "response was cut off inside this tool call; not executed");
                }
                r.tool_calls.push(c);
            }
            _ => {} // thinking, redacted_thinking, …
        }
    }
    let text = texts.concat();
    r.content = (!text.is_empty()).then_some(text);
    r.finish_reason = v
        .get("stop_reason")
        .and_then(Value::as_str)
        .map(FinishReason::from_provider)
        .unwrap_or(FinishReason::Unknown);
    r.usage = usage_from(v.get("usage"));
    if r.finish_reason == FinishReason::ContentFilter && r.content.is_none() && r.tool_calls.is_empty() {
        let mut e = ProviderError::new(
            ErrorKind::ContentFilter,
            "anthropic",
            None,
            "the model refused to answer",
        );
        e.code = Some("refusal".into());
        r.error = Some(e);
    }
    r
}
