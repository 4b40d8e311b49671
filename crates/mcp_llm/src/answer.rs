//! One LLM answer, typed ([`LlmResponse`]), and the pieces every dialect's reading of an answer
//! shares: reading the body as JSON (strict first, then [`mcp_repair::repair`], with every fix
//! reported), tool-call arguments, usage, where a truncated body was cut, an OpenAI-style
//! message object, the finish reason's consistency and U+0000. Which shape an answer has is the
//! dialect's business ([`crate::provider`]); this module knows no dialect.

use crate::error::{error_from_value, normalize_error, ErrorKind, ProviderError};
use crate::types::{Message, ToolCall, Usage};
use mcp_audit::clip_chars;
use mcp_repair::{repair, Fix};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::HashSet;

/// Why the model stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    Stop,
    ToolCalls,
    Length,
    ContentFilter,
    Error,
    Unknown,
}

impl FinishReason {
    /// Map any provider's finish/stop reason.
    pub fn from_provider(s: &str) -> FinishReason {
        match s.trim().to_ascii_lowercase().as_str() {
            "stop" | "end_turn" | "stop_sequence" | "eos" | "eos_token" | "end" | "completed" => FinishReason::Stop,
            "tool_calls" | "tool_use" | "function_call" | "tool_call" => FinishReason::ToolCalls,
            "length" | "max_tokens" | "model_length" | "model_context_window_exceeded" | "max_output_tokens" => {
                FinishReason::Length
            }
            "content_filter" | "refusal" | "safety" | "recitation" => FinishReason::ContentFilter,
            "error" => FinishReason::Error,
            _ => FinishReason::Unknown,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::ToolCalls => "tool_calls",
            FinishReason::Length => "length",
            FinishReason::ContentFilter => "content_filter",
            FinishReason::Error => "error",
            FinishReason::Unknown => "unknown",
        }
    }
}

/// One tool call as it arrived. Only `complete` calls may be executed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParsedToolCall {
    pub id: String,
    pub name: String,
    /// The decoded arguments object; `None` when the call is incomplete or invalid.
    pub arguments: Option<Value>,
    /// The arguments as received (the JSON string OpenAI sends, or the object's JSON text).
    pub arguments_raw: String,
    /// False when the call was cut off, has no name, or its arguments are not a JSON object.
    pub complete: bool,
    /// Why the call is not complete.
    pub error: Option<String>,
    /// Fixes the repair engine applied to the arguments.
    pub repairs: Vec<Fix>,
}

impl ParsedToolCall {
    /// The typed call, only when complete.
    pub fn to_tool_call(&self) -> Option<ToolCall> {
        match (&self.arguments, self.complete) {
            (Some(a), true) => Some(ToolCall::new(self.id.clone(), self.name.clone(), a.clone())),
            _ => None,
        }
    }

    fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "arguments": self.arguments,
            "arguments_raw": self.arguments_raw,
            "complete": self.complete,
            "error": self.error,
            "repairs": self.repairs,
        })
    }
}

/// One normalized LLM answer (the seed's `t_mcp_response`).
#[derive(Debug, Clone, PartialEq)]
pub struct LlmResponse {
    pub finish_reason: FinishReason,
    pub content: Option<String>,
    /// What the model thought before answering (`<think>…</think>`, `[THINK]…[/THINK]`,
    /// Harmony's analysis channel, a provider's `reasoning_content`): not the answer, never
    /// searched for tool calls, kept for the audit.
    pub reasoning: Option<String>,
    pub tool_calls: Vec<ParsedToolCall>,
    pub usage: Option<Usage>,
    pub error: Option<ProviderError>,
    /// Fixes the repair engine applied to the body.
    pub repairs: Vec<Fix>,
    /// The body (or stream) ended early. Complete tool calls before the cut are kept.
    pub truncated: bool,
}

impl LlmResponse {
    pub(crate) fn empty() -> Self {
        LlmResponse {
            finish_reason: FinishReason::Unknown,
            content: None,
            reasoning: None,
            tool_calls: Vec::new(),
            usage: None,
            error: None,
            repairs: Vec::new(),
            truncated: false,
        }
    }

    pub(crate) fn from_error(e: ProviderError) -> Self {
        LlmResponse {
            finish_reason: FinishReason::Error,
            error: Some(e),
            ..Self::empty()
        }
    }

    /// The model asked for at least one tool call (complete or not: every call needs an answer).
    pub fn has_tools(&self) -> bool {
        !self.tool_calls.is_empty()
    }

    pub fn is_error(&self) -> bool {
        self.error.is_some()
    }

    /// The calls that may be executed.
    pub fn complete_tool_calls(&self) -> Vec<ToolCall> {
        self.tool_calls
            .iter()
            .filter_map(ParsedToolCall::to_tool_call)
            .collect()
    }

    /// The calls that must not be executed (cut off, nameless, arguments not an object).
    pub fn incomplete_tool_calls(&self) -> impl Iterator<Item = &ParsedToolCall> {
        self.tool_calls.iter().filter(|c| !c.complete)
    }

    /// The assistant message to append to the history: content plus the complete tool calls
    /// (incomplete ones cannot be sent back with valid arguments; the caller tells the model
    /// about them in a follow-up message instead).
    pub fn to_assistant_message(&self) -> Message {
        Message::assistant_tool_calls(self.content.clone(), self.complete_tool_calls())
    }

    /// `{finish_reason, content, reasoning, tool_calls:[{id,name,arguments,arguments_raw,
    /// complete,error,repairs}], usage, error, repairs}` — what SQL `mcp.parse_llm_response`
    /// returns.
    pub fn to_json(&self) -> Value {
        json!({
            "finish_reason": self.finish_reason,
            "content": self.content,
            "reasoning": self.reasoning,
            "tool_calls": self.tool_calls.iter().map(ParsedToolCall::to_json).collect::<Vec<_>>(),
            "usage": self.usage,
            "error": self.error.as_ref().map(ProviderError::to_json),
            "repairs": self.repairs,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Arguments

pub(crate) fn fix(kind: &'static str, position: usize) -> Fix {
    Fix { kind, position }
}

pub(crate) struct Args {
    pub(crate) value: Option<Value>,
    pub(crate) raw: String,
    pub(crate) complete: bool,
    pub(crate) error: Option<String>,
    pub(crate) fixes: Vec<Fix>,
}

fn args_object(v: Value, raw: String, fixes: Vec<Fix>) -> Args {
    match v {
        Value::Object(_) => Args {
            value: Some(v),
            raw,
            complete: true,
            error: None,
            fixes,
        },
        Value::Null => Args {
            value: Some(json!({})),
            raw,
            complete: true,
            error: None,
            fixes,
        },
        other => Args {
            value: None,
            raw,
            complete: false,
            error: Some(format!(
                "tool arguments must be a JSON object, got {}",
                type_name(&other)
            )),
            fixes,
        },
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Decode the text of an arguments string: strict, then double-encoded, then repaired.
pub(crate) fn decode_args_text(s: &str) -> Args {
    decode_args_text_depth(s, 0)
}

/// `depth` 1 is the text inside a double-encoded string: no further unwrapping.
fn decode_args_text_depth(s: &str, depth: u8) -> Args {
    let raw = s.to_string();
    if s.trim().is_empty() {
        return Args {
            value: Some(json!({})),
            raw,
            complete: true,
            error: None,
            fixes: Vec::new(),
        };
    }
    match serde_json::from_str::<Value>(s) {
        Ok(Value::String(inner)) if depth == 0 => {
            // Double-encoded: a JSON string whose text is the object.
            let mut a = decode_args_text_depth(&inner, 1);
            a.fixes.insert(0, fix("double_encoded", 0));
            a.raw = raw;
            a
        }
        Ok(v) => args_object(v, raw, Vec::new()),
        Err(_) => match repair(s) {
            Ok(r) => {
                let truncated = r.truncated();
                if truncated {
                    return Args {
                        value: None,
                        raw,
                        complete: false,
                        error: Some("tool arguments were cut off (truncated JSON); not executed".into()),
                        fixes: r.fixes,
                    };
                }
                if let (Value::String(inner), 0) = (&r.value, depth) {
                    let mut a = decode_args_text_depth(inner, 1);
                    let mut fixes = r.fixes;
                    fixes.push(fix("double_encoded", 0));
                    fixes.extend(a.fixes);
                    a.fixes = fixes;
                    a.raw = raw;
                    return a;
                }
                args_object(r.value, raw, r.fixes)
            }
            Err(e) => Args {
                value: None,
                raw,
                complete: false,
                error: Some(format!(
                    "tool arguments are not valid JSON: {}",
                    clip_chars(&e.to_string(), 200).0
                )),
                fixes: Vec::new(),
            },
        },
    }
}

fn decode_args(v: Option<&Value>) -> Args {
    match v {
        None | Some(Value::Null) => Args {
            value: Some(json!({})),
            raw: String::new(),
            complete: true,
            error: None,
            fixes: Vec::new(),
        },
        Some(Value::String(s)) => decode_args_text(s),
        Some(other) => args_object(other.clone(), other.to_string(), Vec::new()),
    }
}

pub(crate) fn str_field<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// Build one call from any of the shapes seen in the wild: OpenAI `{id, function:{name,
/// arguments}}`, Anthropic `{id, name, input}`, Ollama `{function:{name, arguments:{…}}}`,
/// content-embedded `{name, arguments|parameters}`.
pub(crate) fn call_from_value(v: &Value, index: usize) -> ParsedToolCall {
    let f = v.get("function").filter(|f| f.is_object()).unwrap_or(v);
    let id = str_field(v, &["id", "tool_call_id"])
        .map(String::from)
        .unwrap_or_else(|| format!("call_{index}"));
    let name = str_field(f, &["name"])
        .or_else(|| str_field(v, &["name"]))
        .unwrap_or("")
        .to_string();
    let args_v = ["arguments", "input", "parameters", "args"]
        .iter()
        .find_map(|k| f.get(*k).or_else(|| v.get(*k)));
    let a = decode_args(args_v);
    let mut call = ParsedToolCall {
        id,
        name,
        arguments: a.value,
        arguments_raw: a.raw,
        complete: a.complete,
        error: a.error,
        repairs: a.fixes,
    };
    if call.name.is_empty() {
        call.complete = false;
        call.arguments = None;
        call.error
            .get_or_insert_with(|| "tool call without a function name".into());
    }
    if !v.is_object() {
        call.complete = false;
        call.arguments = None;
        call.error = Some(format!("tool call must be a JSON object, got {}", type_name(v)));
    }
    call
}

pub(crate) fn mark_incomplete(c: &mut ParsedToolCall, why: &str) {
    if c.complete {
        c.complete = false;
        c.arguments = None;
        c.error = Some(why.to_string());
    }
}

// ---------------------------------------------------------------------------------------------
// Where a truncated body was cut

/// Where a truncated body was cut, relative to the first array under a given key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cut {
    /// Inside element `k` (0-based): it and everything after it are not trustworthy.
    Inside(usize),
    /// Between elements, after `n` complete ones.
    Between(usize),
    /// The array was closed before the cut: all elements are whole.
    Closed,
    /// The key was never seen (or the text could not be followed): trust nothing.
    NotSeen,
}

impl Cut {
    /// May element `i` of the array be trusted?
    pub(crate) fn element_whole(self, i: usize) -> bool {
        match self {
            Cut::Inside(k) => i < k,
            Cut::Between(n) => i < n,
            Cut::Closed => true,
            Cut::NotSeen => false,
        }
    }
}

/// Scan the (possibly broken, standard-JSON) raw text and locate the cut relative to the first
/// array that is the value of `key`. Independent of how the repair engine closed the text.
pub(crate) fn array_cut(raw: &str, key: &str) -> Cut {
    struct Frame {
        target: bool,
        elems: usize,
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut last_string: Option<String> = None;
    let mut pending_key: Option<String> = None;
    let mut in_str = false;
    let mut esc = false;
    let mut cur = String::new();
    let mut seen = false;
    for (k, c) in raw.chars().enumerate() {
        if k % POLL_CHARS == POLL_CHARS - 1 {
            mcp_repair::guard::tick_bytes(POLL_CHARS);
        }
        if in_str {
            if esc {
                esc = false;
            } else if c == '\\' {
                esc = true;
            } else if c == '"' {
                in_str = false;
                last_string = Some(std::mem::take(&mut cur));
            } else if cur.len() < 64 {
                cur.push(c);
            }
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                cur.clear();
            }
            ':' => pending_key = last_string.take(),
            '{' | '[' => {
                if let Some(parent) = stack.last_mut() {
                    if parent.target {
                        parent.elems += 1;
                    }
                }
                let target = !seen && c == '[' && pending_key.as_deref() == Some(key);
                seen |= target;
                stack.push(Frame { target, elems: 0 });
                pending_key = None;
                last_string = None;
            }
            '}' | ']' => {
                if let Some(f) = stack.pop() {
                    if f.target {
                        return Cut::Closed;
                    }
                }
                pending_key = None;
                last_string = None;
            }
            ',' => {
                pending_key = None;
                last_string = None;
            }
            _ => {}
        }
    }
    match stack.iter().position(|f| f.target) {
        Some(i) if i + 1 < stack.len() => Cut::Inside(stack[i].elems.saturating_sub(1)),
        Some(i) => Cut::Between(stack[i].elems),
        None => Cut::NotSeen,
    }
}

/// Mark the calls of a truncated array that cannot be trusted.
pub(crate) fn mark_cut(calls: &mut [ParsedToolCall], cut: Cut) {
    for (i, c) in calls.iter_mut().enumerate() {
        if !cut.element_whole(i) {
            mark_incomplete(c, "response was cut off inside this tool call; not executed");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Usage

pub(crate) fn u(v: &Value, k: &str) -> Option<u64> {
    v.get(k).and_then(|x| {
        x.as_u64()
            .or_else(|| x.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
    })
}

pub(crate) fn usage_from(v: Option<&Value>) -> Option<Usage> {
    let v = v.filter(|v| v.is_object())?;
    if v.get("prompt_tokens").is_some() || v.get("completion_tokens").is_some() {
        let p = u(v, "prompt_tokens").unwrap_or(0);
        let c = u(v, "completion_tokens").unwrap_or(0);
        return Some(Usage {
            prompt_tokens: p,
            completion_tokens: c,
            total_tokens: u(v, "total_tokens").unwrap_or(p.saturating_add(c)),
        });
    }
    if v.get("input_tokens").is_some() || v.get("output_tokens").is_some() {
        // Anthropic: input_tokens excludes cached tokens; the prompt is all of them.
        let p = u(v, "input_tokens")
            .unwrap_or(0)
            .saturating_add(u(v, "cache_creation_input_tokens").unwrap_or(0))
            .saturating_add(u(v, "cache_read_input_tokens").unwrap_or(0));
        let c = u(v, "output_tokens").unwrap_or(0);
        return Some(Usage {
            prompt_tokens: p,
            completion_tokens: c,
            total_tokens: p.saturating_add(c),
        });
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Content-embedded tool calls

/// Parse an embedded tool-call payload: one object or an array of them (with repair).
/// Each item comes with "was cut off".
pub(crate) fn parse_items_text(text: &str) -> Vec<(Value, bool)> {
    let t = text.trim();
    if t.is_empty() {
        return Vec::new();
    }
    let (v, truncated) = match serde_json::from_str::<Value>(t) {
        Ok(v) => (v, false),
        Err(_) => match repair(t) {
            Ok(r) => {
                let tr = r.truncated();
                (r.value, tr)
            }
            Err(_) => return Vec::new(),
        },
    };
    match v {
        Value::Array(items) => {
            let cut = if truncated {
                array_cut(&format!("{{\"a\":{t}"), "a")
            } else {
                Cut::Closed
            };
            items
                .into_iter()
                .enumerate()
                .map(|(i, it)| (it, !cut.element_whole(i)))
                .collect()
        }
        other => vec![(other, truncated)],
    }
}

// ---------------------------------------------------------------------------------------------
// Reading a body

/// The body without a byte-order mark and surrounding whitespace.
pub(crate) fn trimmed(raw: &str) -> &str {
    raw.trim_start_matches('\u{feff}').trim()
}

/// The answer to an empty body.
pub(crate) fn empty_body() -> LlmResponse {
    LlmResponse::from_error(ProviderError::new(
        ErrorKind::InvalidResponse,
        "unknown",
        None,
        "empty response body",
    ))
}

/// A JSON body (trimmed) read strictly, else repaired: the value, the fixes, "was cut off".
/// `Err`: the answer saying why the body cannot be read.
pub(crate) fn read_json(t: &str) -> Result<(Value, Vec<Fix>, bool), LlmResponse> {
    match serde_json::from_str::<Value>(t) {
        Ok(v) => Ok((v, Vec::new(), false)),
        Err(strict) => repair_json(t, &strict),
    }
}

/// [`read_json`] after the strict parse failed with `strict`.
pub(crate) fn repair_json(t: &str, strict: &serde_json::Error) -> Result<(Value, Vec<Fix>, bool), LlmResponse> {
    match repair(t) {
        Ok(r) => {
            let tr = r.truncated();
            Ok((r.value, r.fixes, tr))
        }
        Err(e) => {
            let mut err = if t.starts_with('<') {
                normalize_error("unknown", Some(200), t, None)
            } else {
                ProviderError::new(
                    ErrorKind::InvalidResponse,
                    "unknown",
                    None,
                    &format!("response is not valid JSON ({strict}); repair failed: {e}"),
                )
            };
            err.kind = ErrorKind::InvalidResponse;
            err.http_status = None;
            Err(LlmResponse::from_error(err))
        }
    }
}

/// An error object found in a 2xx body.
pub(crate) fn error_answer(v: &Value) -> LlmResponse {
    let mut e = error_from_value(v);
    e.http_status = None;
    LlmResponse::from_error(e)
}

/// A body of no shape the dialect knows.
pub(crate) fn unrecognized(v: &Value) -> LlmResponse {
    LlmResponse::from_error(ProviderError::new(
        ErrorKind::InvalidResponse,
        "unknown",
        None,
        &format!("unrecognized response shape: {}", clip_chars(&v.to_string(), 200).0),
    ))
}

/// A bare assistant message (`{"role": "assistant", "content": …, "tool_calls": […]}`): some
/// servers and gateways answer with the message alone.
pub(crate) fn is_bare_message(v: &Value) -> bool {
    v.get("role").is_some() || v.get("tool_calls").is_some()
}

/// [`message`] for a bare message body (no usage).
pub(crate) fn bare_message(v: &Value, raw: &str, truncated: bool) -> LlmResponse {
    let mut r = message(v, raw, truncated);
    r.usage = None;
    r
}

/// What every shape ends with: the cut noted, then [`finish`].
pub(crate) fn shaped(mut r: LlmResponse, truncated: bool) -> LlmResponse {
    r.truncated = truncated;
    finish(&mut r);
    r
}

/// Characters of a raw body scanned between two interrupt polls.
const POLL_CHARS: usize = 1 << 16;

/// U+0000 cannot be stored in PostgreSQL `text` or `jsonb` ("unsupported Unicode escape
/// sequence"): everywhere in the response — content, tool-call ids, names, arguments (values
/// and keys), their raw text, error texts — it becomes U+FFFD, reported as fix
/// `nul_character` (in `repairs`, and in the repairs of each call whose arguments changed).
pub(crate) fn replace_nul(r: &mut LlmResponse, raw: &str) {
    use mcp_repair::replace_nul_str as nul;
    let mut n = 0;
    if let Some(c) = &mut r.content {
        n += nul(c);
    }
    if let Some(c) = &mut r.reasoning {
        n += nul(c);
    }
    for c in &mut r.tool_calls {
        let pos = mcp_repair::nul_position(&c.arguments_raw);
        n += nul(&mut c.id) + nul(&mut c.name) + nul(&mut c.arguments_raw);
        if let Some(e) = &mut c.error {
            n += nul(e);
        }
        let in_args = c.arguments.as_mut().map_or(0, mcp_repair::replace_nul);
        if in_args > 0 {
            c.repairs.push(fix("nul_character", pos));
        }
        n += in_args;
    }
    if let Some(e) = &mut r.error {
        n += nul(&mut e.message) + nul(&mut e.provider);
        if let Some(code) = &mut e.code {
            n += nul(code);
        }
    }
    if n > 0 {
        r.repairs.push(fix("nul_character", mcp_repair::nul_position(raw)));
    }
}

/// Common post-processing: embedded tool calls, finish reason consistency.
pub(crate) fn finish(r: &mut LlmResponse) {
    if r.error.is_some() {
        if r.finish_reason != FinishReason::ContentFilter {
            r.finish_reason = FinishReason::Error;
        }
        return;
    }
    if r.truncated && r.finish_reason == FinishReason::Unknown {
        r.finish_reason = FinishReason::Length;
    }
    if r.tool_calls.iter().any(|c| c.complete) && matches!(r.finish_reason, FinishReason::Stop | FinishReason::Unknown)
    {
        r.finish_reason = FinishReason::ToolCalls;
    }
    unique_ids(r);
}

/// Deterministic, unique ids.
pub(crate) fn unique_ids(r: &mut LlmResponse) {
    let mut seen = HashSet::new();
    for (i, c) in r.tool_calls.iter_mut().enumerate() {
        if c.id.is_empty() || !seen.insert(c.id.clone()) {
            c.id = format!("call_{i}");
            seen.insert(c.id.clone());
        }
    }
}

pub(crate) fn content_text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        // Content as parts: [{"type":"text","text":…}]
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str).or_else(|| p.as_str()))
                .collect();
            (!texts.is_empty()).then(|| texts.concat())
        }
        _ => None,
    }
}

/// An OpenAI-style message object (`choices[0].message`, Ollama `message`, or bare).
pub(crate) fn message(m: &Value, raw: &str, truncated: bool) -> LlmResponse {
    let mut r = LlmResponse::empty();
    r.content = content_text(m.get("content")).filter(|c| !c.is_empty());
    // DeepSeek, vLLM and llama.cpp return the reasoning they split off themselves.
    r.reasoning = str_field(m, &["reasoning_content", "reasoning"]).map(String::from);
    let mut calls: Vec<ParsedToolCall> = match m.get("tool_calls") {
        Some(Value::Array(a)) => a.iter().enumerate().map(|(i, c)| call_from_value(c, i)).collect(),
        _ => Vec::new(),
    };
    if calls.is_empty() {
        // Legacy function_call.
        if let Some(fc) = m.get("function_call").filter(|f| f.is_object()) {
            calls.push(call_from_value(&json!({"function": fc}), 0));
        }
    }
    if truncated && !calls.is_empty() {
        mark_cut(&mut calls, array_cut(raw, "tool_calls"));
    }
    r.tool_calls = calls;
    r
}
