//! Reading a body whose dialect is not known: the SQL function `mcp.parse_llm_response` (bodies
//! captured elsewhere) and the replay dialect (a recording may hold answers of any dialect).
//! The shape is recognized: OpenAI chat completions (OpenAI, Azure OpenAI, Mistral, vLLM,
//! llama.cpp, Ollama's `/v1`) and Anthropic Messages through their dialects' readers
//! ([`crate::provider::openai`], [`crate::provider::anthropic`]); with [`Formats::Any`] also the
//! formats the chat path never requests ([`crate::streams`]). The chat path itself asks its
//! provider's dialect ([`crate::provider::Dialect::parse`]) and never guesses.

use crate::answer::{
    bare_message, empty_body, error_answer, is_bare_message, repair_json, shaped, trimmed, unrecognized, LlmResponse,
};
use crate::complete::complete;
use crate::error::looks_like_error;
use crate::provider::{anthropic, openai};
use crate::streams;
use crate::types::ToolDef;
use serde_json::Value;

/// Which body formats a parse accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Formats {
    /// A JSON answer of one of the provider dialects (chat completions or Anthropic Messages),
    /// or an error body: what a replay recording holds.
    Chat,
    /// Also the formats the chat path never requests ([`crate::streams`]): SSE streams of either
    /// dialect, Ollama's NDJSON stream and its native `/api/chat` answer.
    Any,
}

impl LlmResponse {
    /// Parse a raw body: alias of [`parse_llm_response`] (the seed's `from_json`).
    pub fn from_json(raw: &str) -> Self {
        parse_llm_response(raw)
    }
}

/// Parse a raw provider body (any supported dialect, JSON or a stream: see [`crate::streams`])
/// into an [`LlmResponse`] — the SQL function `mcp.parse_llm_response`. Never panics; garbage
/// gives `finish_reason = error` with an `invalid_response` error.
pub fn parse_llm_response(raw: &str) -> LlmResponse {
    parse_llm_response_with_tools(raw, None)
}

/// [`parse_llm_response`] knowing the tools offered in the request (`mcp.parse_llm_response(raw,
/// tools)`): tool calls written as text are checked against them and typed by their schemas
/// ([`crate::extract_text_calls`]).
pub fn parse_llm_response_with_tools(raw: &str, tools: Option<&[ToolDef]>) -> LlmResponse {
    let mut r = parse_body(raw, Formats::Any);
    complete(&mut r, raw, tools);
    r
}

/// Parse a JSON answer of either dialect, recognized by its shape (what the replay dialect
/// reads its recordings with). Strict parse first, then repair.
pub fn parse_chat_response(raw: &str) -> LlmResponse {
    parse_chat_response_with_tools(raw, None)
}

/// [`parse_chat_response`] knowing the tools offered in the request.
pub fn parse_chat_response_with_tools(raw: &str, tools: Option<&[ToolDef]>) -> LlmResponse {
    let mut r = parse_body(raw, Formats::Chat);
    complete(&mut r, raw, tools);
    r
}

fn parse_body(raw: &str, formats: Formats) -> LlmResponse {
    let t = trimmed(raw);
    if t.is_empty() {
        return empty_body();
    }
    if formats == Formats::Any && streams::is_sse(t) {
        return streams::parse_sse(t);
    }
    let (value, repairs, truncated) = match serde_json::from_str::<Value>(t) {
        Ok(v) => (v, Vec::new(), false),
        Err(strict) => {
            if formats == Formats::Any {
                if let Some(r) = streams::parse_ndjson(t) {
                    return r;
                }
            }
            match repair_json(t, &strict) {
                Ok(read) => read,
                Err(r) => return r,
            }
        }
    };
    let mut r = from_value(&value, t, truncated, formats);
    r.repairs = repairs;
    r
}

/// Normalize an already-parsed body (no repair involved).
pub fn parse_llm_value(v: &Value) -> LlmResponse {
    let mut r = from_value(v, "", false, Formats::Any);
    complete(&mut r, "", None);
    r
}

fn from_value(v: &Value, raw: &str, truncated: bool, formats: Formats) -> LlmResponse {
    if looks_like_error(v) && v.get("choices").is_none() && v.get("type").and_then(Value::as_str) != Some("message") {
        return error_answer(v);
    }
    let r = if anthropic::is_message(v) {
        anthropic::from_message(v, raw, truncated)
    } else if let Some(choices) = v.get("choices").and_then(Value::as_array) {
        openai::from_choices(v, choices, raw, truncated)
    } else if formats == Formats::Any && v.get("message").is_some_and(Value::is_object) {
        streams::ollama(v, raw, truncated)
    } else if is_bare_message(v) {
        bare_message(v, raw, truncated)
    } else {
        unrecognized(v)
    };
    shaped(r, truncated)
}
