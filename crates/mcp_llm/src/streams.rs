//! Formats the chat path never requests, read only by [`crate::parse_llm_response`] (the SQL
//! function `mcp.parse_llm_response`, for bodies captured elsewhere): server-sent-event streams
//! (OpenAI `chat.completion.chunk`s or Anthropic events), Ollama's NDJSON stream and its native
//! `/api/chat` answer. The chat engine sends no `stream` request and parses with
//! its provider's dialect ([`crate::provider::Dialect::parse`]), which does not look here.

use crate::answer::{
    call_from_value, content_text, finish, mark_incomplete, message, str_field, u, usage_from, FinishReason,
    LlmResponse,
};
use crate::error::{error_from_value, looks_like_error, ErrorKind, ProviderError};
use crate::types::Usage;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// Ollama's native `/api/chat` answer: `{"message": {…}, "done": …, "eval_count": …}`.
pub(crate) fn ollama(v: &Value, raw: &str, truncated: bool) -> LlmResponse {
    let m = v.get("message").cloned().unwrap_or(Value::Null);
    let mut r = message(&m, raw, truncated);
    r.usage = ollama_usage(v).or_else(|| usage_from(v.get("usage")));
    r.finish_reason = match v.get("done_reason").and_then(Value::as_str) {
        Some(s) => FinishReason::from_provider(s),
        None if v.get("done").and_then(Value::as_bool) == Some(true) => FinishReason::Stop,
        None => FinishReason::Unknown,
    };
    r
}

fn ollama_usage(v: &Value) -> Option<Usage> {
    let p = u(v, "prompt_eval_count");
    let c = u(v, "eval_count");
    if p.is_none() && c.is_none() {
        return None;
    }
    let (p, c) = (p.unwrap_or(0), c.unwrap_or(0));
    Some(Usage {
        prompt_tokens: p,
        completion_tokens: c,
        total_tokens: p.saturating_add(c),
    })
}

pub(crate) fn is_sse(t: &str) -> bool {
    t.starts_with("data:") || t.starts_with("event:") || t.starts_with(": ") || t.starts_with("id:")
}

/// Ollama's native stream: one JSON object per line.
pub(crate) fn parse_ndjson(t: &str) -> Option<LlmResponse> {
    let lines: Vec<&str> = t.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if lines.len() < 2 {
        return None;
    }
    let first: Value = serde_json::from_str(lines[0]).ok()?;
    first.get("message")?;
    let mut content = String::new();
    let mut calls = Vec::new();
    let mut last = first.clone();
    let mut cut = false;
    for (i, l) in lines.iter().enumerate() {
        mcp_repair::guard::tick_bytes(l.len());
        let v: Value = match serde_json::from_str(l) {
            Ok(v) => v,
            Err(_) if i + 1 == lines.len() => {
                cut = true;
                break;
            }
            Err(_) => return None,
        };
        if looks_like_error(&v) {
            let mut e = error_from_value(&v);
            e.http_status = None;
            return Some(LlmResponse::from_error(e));
        }
        if let Some(m) = v.get("message") {
            if let Some(c) = m.get("content").and_then(Value::as_str) {
                content.push_str(c);
            }
            if let Some(Value::Array(a)) = m.get("tool_calls") {
                calls.extend(a.iter().cloned());
            }
        }
        last = v;
    }
    let done = last.get("done").and_then(Value::as_bool) == Some(true);
    let mut merged = last.clone();
    if let Some(o) = merged.as_object_mut() {
        o.insert(
            "message".into(),
            json!({"role": "assistant", "content": content, "tool_calls": calls}),
        );
    }
    let mut r = ollama(&merged, "", false);
    r.truncated = cut || !done;
    finish(&mut r);
    Some(r)
}

#[derive(Default)]
struct StreamCall {
    id: String,
    name: String,
    args: String,
    /// Arguments that arrived as an object (Ollama-compatible servers) or Anthropic's initial input.
    args_value: Option<Value>,
    stopped: bool,
}

/// Assemble an SSE stream (OpenAI `chat.completion.chunk`s or Anthropic events).
pub(crate) fn parse_sse(t: &str) -> LlmResponse {
    let mut content = String::new();
    let mut calls: BTreeMap<u64, StreamCall> = BTreeMap::new();
    let mut finish_reason: Option<String> = None;
    let mut usage: Option<Usage> = None;
    let mut anthropic_input: Option<Usage> = None;
    let mut done = false;
    let mut cut = false;
    let mut saw_any = false;
    let mut anthropic_mode = false;
    let data: Vec<&str> = t
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .collect();
    let n = data.len();
    for (i, d) in data.iter().enumerate() {
        mcp_repair::guard::tick_bytes(d.len());
        if *d == "[DONE]" {
            done = true;
            continue;
        }
        let v: Value = match serde_json::from_str(d) {
            Ok(v) => v,
            Err(_) => {
                if i + 1 == n {
                    cut = true;
                }
                continue;
            }
        };
        saw_any = true;
        if looks_like_error(&v) && v.get("choices").is_none() {
            let mut e = error_from_value(&v);
            e.http_status = None;
            let mut r = LlmResponse::from_error(e);
            r.content = (!content.is_empty()).then_some(content);
            return r;
        }
        match v.get("type").and_then(Value::as_str) {
            Some("message_start") => {
                anthropic_mode = true;
                anthropic_input = usage_from(v.get("message").and_then(|m| m.get("usage")));
            }
            Some("content_block_start") => {
                anthropic_mode = true;
                let idx = u(&v, "index").unwrap_or(0);
                let b = v.get("content_block").cloned().unwrap_or(Value::Null);
                match b.get("type").and_then(Value::as_str) {
                    Some("tool_use") | Some("server_tool_use") => {
                        let c = calls.entry(idx).or_default();
                        c.id = str_field(&b, &["id"]).unwrap_or("").to_string();
                        c.name = str_field(&b, &["name"]).unwrap_or("").to_string();
                        c.args_value = b.get("input").cloned();
                    }
                    Some("text") => {
                        if let Some(s) = b.get("text").and_then(Value::as_str) {
                            content.push_str(s);
                        }
                    }
                    _ => {}
                }
            }
            Some("content_block_delta") => {
                let idx = u(&v, "index").unwrap_or(0);
                let dlt = v.get("delta").cloned().unwrap_or(Value::Null);
                match dlt.get("type").and_then(Value::as_str) {
                    Some("text_delta") => content.push_str(dlt.get("text").and_then(Value::as_str).unwrap_or("")),
                    Some("input_json_delta") => calls
                        .entry(idx)
                        .or_default()
                        .args
                        .push_str(dlt.get("partial_json").and_then(Value::as_str).unwrap_or("")),
                    _ => {}
                }
            }
            Some("content_block_stop") => {
                if let Some(c) = calls.get_mut(&u(&v, "index").unwrap_or(0)) {
                    c.stopped = true;
                }
            }
            Some("message_delta") => {
                if let Some(s) = v
                    .get("delta")
                    .and_then(|d| d.get("stop_reason"))
                    .and_then(Value::as_str)
                {
                    finish_reason = Some(s.to_string());
                }
                if let Some(out) = v.get("usage").and_then(|x| u(x, "output_tokens")) {
                    let mut us = anthropic_input.unwrap_or_default();
                    us.completion_tokens = out;
                    us.total_tokens = us.prompt_tokens.saturating_add(out);
                    usage = Some(us);
                }
            }
            Some("message_stop") => done = true,
            _ => {
                // OpenAI chunk.
                if let Some(us) = usage_from(v.get("usage")) {
                    usage = Some(us);
                }
                let Some(choice) = v.get("choices").and_then(Value::as_array).and_then(|c| c.first()) else {
                    continue;
                };
                let dlt = choice
                    .get("delta")
                    .or_else(|| choice.get("message"))
                    .cloned()
                    .unwrap_or(Value::Null);
                if let Some(s) = content_text(dlt.get("content")) {
                    content.push_str(&s);
                }
                if let Some(Value::Array(tcs)) = dlt.get("tool_calls") {
                    for (k, tc) in tcs.iter().enumerate() {
                        let idx = u(tc, "index").unwrap_or(k as u64);
                        let c = calls.entry(idx).or_default();
                        if let Some(id) = str_field(tc, &["id"]) {
                            c.id = id.to_string();
                        }
                        if let Some(f) = tc.get("function") {
                            if let Some(nm) = f.get("name").and_then(Value::as_str) {
                                c.name.push_str(nm);
                            }
                            match f.get("arguments") {
                                Some(Value::String(s)) => c.args.push_str(s),
                                Some(o @ Value::Object(_)) => c.args_value = Some(o.clone()),
                                _ => {}
                            }
                        }
                    }
                }
                if let Some(fr) = choice.get("finish_reason").and_then(Value::as_str) {
                    finish_reason = Some(fr.to_string());
                }
            }
        }
    }
    if !saw_any && !done {
        return LlmResponse::from_error(ProviderError::new(
            ErrorKind::InvalidResponse,
            "unknown",
            None,
            "event stream without data",
        ));
    }
    let complete_stream = done || finish_reason.is_some();
    let mut r = LlmResponse::empty();
    r.content = (!content.is_empty()).then_some(content);
    r.usage = usage;
    r.finish_reason = finish_reason
        .as_deref()
        .map(FinishReason::from_provider)
        .unwrap_or(FinishReason::Unknown);
    r.truncated = cut || !complete_stream;
    let last_idx = calls.keys().next_back().copied();
    for (idx, c) in calls {
        let raw_args = if c.args.is_empty() {
            c.args_value.clone()
        } else {
            Some(Value::String(c.args.clone()))
        };
        let mut obj = Map::new();
        obj.insert("id".into(), json!(c.id));
        obj.insert("name".into(), json!(c.name));
        if let Some(a) = raw_args {
            obj.insert("arguments".into(), a);
        }
        let mut pc = call_from_value(&Value::Object(obj), r.tool_calls.len());
        let unfinished = if anthropic_mode {
            !c.stopped && r.truncated
        } else {
            r.truncated && Some(idx) == last_idx
        };
        if unfinished {
            mark_incomplete(&mut pc, "stream ended inside this tool call; not executed");
        }
        r.tool_calls.push(pc);
    }
    finish(&mut r);
    r
}
