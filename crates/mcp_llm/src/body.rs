//! Request bodies for the two wire dialects: OpenAI chat completions (OpenAI, Azure OpenAI,
//! Mistral, Ollama, vLLM, llama.cpp) and Anthropic's Messages API.

use crate::types::{ChatRequest, Message, Role};
use serde_json::{json, Map, Value};

/// Anthropic requires `max_tokens`; this is used when the request has none.
pub const ANTHROPIC_DEFAULT_MAX_TOKENS: u32 = 1024;

/// Keys the builders own; `extra` never replaces them.
const RESERVED: &[&str] = &["model", "messages", "system", "tools", "tool_choice"];

fn merge_extra(body: &mut Map<String, Value>, extra: &Map<String, Value>) {
    for (k, v) in extra {
        if RESERVED.contains(&k.as_str()) {
            continue;
        }
        body.insert(k.clone(), v.clone());
    }
}

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
