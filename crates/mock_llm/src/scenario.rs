//! Scenario and step format, and rendering of shorthand steps into OpenAI / Anthropic JSON.

use serde::Deserialize;
use serde_json::{json, Map, Value};

/// A named sequence of steps. Step `i` answers turn `i` (= number of assistant messages already
/// in the request); the last step repeats past the end.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub steps: Vec<Step>,
    /// Model name reported in answers when the request carries none.
    #[serde(default)]
    pub model: Option<String>,
}

impl Scenario {
    /// Parse `{"steps":[…]}` or a bare `[…]` array of steps.
    pub fn from_json(text: &str) -> Result<Scenario, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
        Self::from_value(v)
    }

    pub fn from_value(v: Value) -> Result<Scenario, String> {
        let s = if v.is_array() {
            let steps: Vec<Step> =
                serde_json::from_value(v).map_err(|e| format!("invalid steps: {e}"))?;
            Scenario { steps, model: None }
        } else {
            serde_json::from_value::<Scenario>(v).map_err(|e| format!("invalid scenario: {e}"))?
        };
        if s.steps.is_empty() {
            return Err("scenario has no steps".into());
        }
        for (i, st) in s.steps.iter().enumerate() {
            if let Some(a) = &st.attempts {
                if a.is_empty() {
                    return Err(format!("step {i}: \"attempts\" is empty"));
                }
                if a.iter().any(|x| x.attempts.is_some()) {
                    return Err(format!("step {i}: nested \"attempts\" are not allowed"));
                }
            }
        }
        Ok(s)
    }

    /// Scenario that answers every turn with `text`.
    pub fn say(text: &str) -> Scenario {
        Scenario {
            steps: vec![Step::say(text)],
            model: None,
        }
    }
}

/// How the connection misbehaves instead of answering normally.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// Read the request, then hold the socket without answering (until the client closes, the
    /// server shuts down or the hold cap passes).
    NeverAnswer,
    /// Read the request, then close with SO_LINGER 0 (TCP RST).
    Reset,
    /// Send headers announcing the full Content-Length, half the body, then close.
    Truncate,
    /// Read the request, then close cleanly without sending anything.
    CloseBeforeHeaders,
}

/// One tool call of a `call` shorthand.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallSpec {
    pub name: String,
    /// An object (JSON-encoded as a string for OpenAI) or a raw string passed verbatim.
    #[serde(default, alias = "input")]
    pub arguments: Option<Value>,
    #[serde(default)]
    pub id: Option<String>,
}

/// Token usage to report; defaults are estimated from request/answer sizes (bytes / 4).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsageSpec {
    #[serde(default, alias = "input_tokens")]
    pub prompt_tokens: Option<u64>,
    #[serde(default, alias = "output_tokens")]
    pub completion_tokens: Option<u64>,
}

/// One scripted answer. See the crate docs for the semantics of each field.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// HTTP status (default 200, or 500 when only `error` is given).
    #[serde(default)]
    pub status: Option<u16>,
    /// Extra response headers (string or number values).
    #[serde(default)]
    pub headers: Map<String, Value>,
    /// Literal body: a JSON value is serialized; a JSON string is sent raw (for malformed JSON,
    /// HTML error pages…).
    #[serde(default)]
    pub body: Option<Value>,
    #[serde(default)]
    pub delay_ms: Option<u64>,
    #[serde(default)]
    pub fault: Option<Fault>,
    /// A valid-looking 200 chat answer of exactly this many bytes.
    #[serde(default)]
    pub oversize_bytes: Option<usize>,
    /// Shorthand: assistant text (finish `stop` / `end_turn`).
    #[serde(default)]
    pub say: Option<String>,
    /// Shorthand: one or several parallel tool calls (finish `tool_calls` / `tool_use`).
    #[serde(default)]
    pub call: Option<Vec<CallSpec>>,
    #[serde(default)]
    pub usage: Option<UsageSpec>,
    /// Shorthand: answer with the content of the last tool result in the request.
    #[serde(default)]
    pub echo_last_tool_result: bool,
    /// Shorthand: answer (status 200 unless set) with the request's headers, credentials
    /// included, as a careless proxy or debug endpoint would: one `name: value` line each, then
    /// the headers as a JSON object (`json: {…}`), then percent-encoded (`url: name=value&…`).
    #[serde(default)]
    pub echo_headers: bool,
    /// Override the finish reason (e.g. `length` / `max_tokens`).
    #[serde(default)]
    pub finish_reason: Option<String>,
    /// Error message for a dialect-shaped error body (used when status is not 2xx and no body).
    #[serde(default)]
    pub error: Option<String>,
    /// Served in order per (scenario, turn) counter; the last one repeats.
    #[serde(default)]
    pub attempts: Option<Vec<Step>>,
    /// `/v1/embeddings`: the dimension of the vectors (default: the request's `dimensions`,
    /// else 8). See [`embeddings_body`].
    #[serde(default)]
    pub embedding_dimension: Option<usize>,
}

/// Deterministic embeddings for an OpenAI `/v1/embeddings` request: each input is a bag of
/// its lowercased alphanumeric words, each word hashed (FNV-1a) to a signed bucket of `dim`,
/// L2-normalized. Texts sharing words have a higher cosine similarity, so retrieval over a
/// fixed corpus ranks predictably.
pub fn embeddings_body(request: &Value, dim: usize, model: &str) -> Vec<u8> {
    let inputs: Vec<String> = match request.get("input") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_string())
            .collect(),
        _ => Vec::new(),
    };
    let dim = dim.max(1);
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, text)| json!({"object": "embedding", "index": i, "embedding": hashed_embedding(text, dim)}))
        .collect();
    let tokens: usize = inputs.iter().map(|t| t.split_whitespace().count()).sum();
    json!({"object": "list", "data": data, "model": model,
           "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})
    .to_string()
    .into_bytes()
}

/// See [`embeddings_body`].
pub fn hashed_embedding(text: &str, dim: usize) -> Vec<f32> {
    let n = dim.max(1);
    let mut v = vec![0f32; n];
    for word in text
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in word.bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        let sign = if (h >> 63) == 0 { 1.0 } else { -1.0 };
        v[(h % n as u64) as usize] += sign;
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in &mut v {
            *x /= norm;
        }
    }
    v
}

impl Step {
    pub fn say(text: &str) -> Step {
        Step {
            say: Some(text.to_string()),
            ..Step::default()
        }
    }

    pub fn status(&self) -> u16 {
        match (self.status, &self.error) {
            (Some(s), _) => s,
            (None, Some(_)) => 500,
            (None, None) => 200,
        }
    }
}

/// API dialect of the request path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    OpenAi,
    Azure,
    Anthropic,
}

impl Dialect {
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::OpenAi => "openai",
            Dialect::Azure => "azure",
            Dialect::Anthropic => "anthropic",
        }
    }
}

/// Turn index: number of assistant messages already in the request.
pub fn turn_of(request: &Value) -> usize {
    request
        .get("messages")
        .and_then(Value::as_array)
        .map(|m| {
            m.iter()
                .filter(|msg| msg.get("role").and_then(Value::as_str) == Some("assistant"))
                .count()
        })
        .unwrap_or(0)
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| {
                p.get("text")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .or_else(|| p.as_str().map(str::to_string))
            })
            .collect::<Vec<_>>()
            .join(""),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Content of the last tool result in the request (OpenAI `role=tool` message or Anthropic
/// `tool_result` block).
pub fn last_tool_result(request: &Value) -> Option<String> {
    let msgs = request.get("messages")?.as_array()?;
    for msg in msgs.iter().rev() {
        match msg.get("role").and_then(Value::as_str) {
            Some("tool") => return Some(text_of(msg.get("content").unwrap_or(&Value::Null))),
            Some("user") => {
                if let Some(blocks) = msg.get("content").and_then(Value::as_array) {
                    if let Some(b) = blocks
                        .iter()
                        .rev()
                        .find(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                    {
                        return Some(text_of(b.get("content").unwrap_or(&Value::Null)));
                    }
                }
            }
            _ => {}
        }
    }
    None
}

fn estimate_tokens(bytes: usize) -> u64 {
    bytes.div_ceil(4).max(1) as u64
}

/// Context for rendering.
pub struct RenderCtx<'a> {
    pub dialect: Dialect,
    pub model: &'a str,
    pub turn: usize,
    pub request_bytes: usize,
    pub request: &'a Value,
    /// The request's headers (names lowercased), for `echo_headers`.
    pub headers: &'a [(String, String)],
    /// Unique per answer (for ids).
    pub seq: u64,
}

/// Body of a normal (non-oversize) step.
pub fn render_body(step: &Step, ctx: &RenderCtx) -> Vec<u8> {
    if let Some(body) = &step.body {
        return match body {
            Value::String(s) => s.clone().into_bytes(),
            v => serde_json::to_vec(v).unwrap_or_default(),
        };
    }
    let status = step.status();
    if !(200..300).contains(&status) {
        return serde_json::to_vec(&error_body(step, status, ctx.dialect)).unwrap_or_default();
    }
    let text = if step.echo_last_tool_result {
        Some(last_tool_result(ctx.request).unwrap_or_else(|| "no tool result".to_string()))
    } else if step.echo_headers {
        Some(echo_headers(ctx.headers))
    } else {
        step.say.clone()
    };
    let calls = step.call.as_deref().unwrap_or(&[]);
    let v = match ctx.dialect {
        Dialect::OpenAi | Dialect::Azure => openai_answer(step, ctx, text.as_deref(), calls),
        Dialect::Anthropic => anthropic_answer(step, ctx, text.as_deref(), calls),
    };
    serde_json::to_vec(&v).unwrap_or_default()
}

/// The text of an `echo_headers` answer.
pub fn echo_headers(headers: &[(String, String)]) -> String {
    let mut lines: Vec<String> = headers.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    let obj: Map<String, Value> = headers
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    lines.push(format!("json: {}", Value::Object(obj)));
    let url: Vec<String> = headers
        .iter()
        .map(|(k, v)| format!("{}={}", percent_encode(k), percent_encode(v)))
        .collect();
    lines.push(format!("url: {}", url.join("&")));
    lines.join("\n")
}

/// Every form in which an `echo_headers` answer (a JSON body) carries a header value: as is,
/// JSON-escaped once (the lines) and twice (the `json:` object inside the JSON string), and
/// percent-encoded. For tests that check a client scrubbed them all.
pub fn echoed_forms(value: &str) -> Vec<String> {
    let escape = |s: &str| {
        let q = Value::String(s.to_string()).to_string();
        q[1..q.len() - 1].to_string()
    };
    let once = escape(value);
    let twice = escape(&once);
    vec![value.to_string(), once, twice, percent_encode(value)]
}

/// Percent-encode everything but the unreserved characters (uppercase hex).
fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn usage_numbers(step: &Step, ctx: &RenderCtx, out_bytes: usize) -> (u64, u64) {
    let u = step.usage.clone().unwrap_or_default();
    (
        u.prompt_tokens
            .unwrap_or_else(|| estimate_tokens(ctx.request_bytes)),
        u.completion_tokens
            .unwrap_or_else(|| estimate_tokens(out_bytes)),
    )
}

fn openai_answer(step: &Step, ctx: &RenderCtx, text: Option<&str>, calls: &[CallSpec]) -> Value {
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    message.insert(
        "content".into(),
        match text {
            Some(t) => json!(t),
            None if calls.is_empty() => json!(""),
            None => Value::Null,
        },
    );
    let mut out_bytes = text.map(str::len).unwrap_or(0);
    if !calls.is_empty() {
        let tc: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let args = match &c.arguments {
                    None => "{}".to_string(),
                    Some(Value::String(s)) => s.clone(),
                    Some(v) => v.to_string(),
                };
                out_bytes += args.len() + c.name.len();
                json!({
                    "id": c.id.clone().unwrap_or_else(|| format!("call_{}_{}", ctx.turn, i)),
                    "type": "function",
                    "function": {"name": c.name, "arguments": args}
                })
            })
            .collect();
        message.insert("tool_calls".into(), Value::Array(tc));
    }
    let finish = step.finish_reason.clone().unwrap_or_else(|| {
        if calls.is_empty() {
            "stop".into()
        } else {
            "tool_calls".into()
        }
    });
    let (p, c) = usage_numbers(step, ctx, out_bytes);
    json!({
        "id": format!("chatcmpl-mock-{}", ctx.seq),
        "object": "chat.completion",
        "created": 1_700_000_000u64,
        "model": ctx.model,
        "choices": [{
            "index": 0,
            "message": Value::Object(message),
            "logprobs": null,
            "finish_reason": finish
        }],
        "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
    })
}

fn anthropic_answer(step: &Step, ctx: &RenderCtx, text: Option<&str>, calls: &[CallSpec]) -> Value {
    let mut content: Vec<Value> = Vec::new();
    let mut out_bytes = 0;
    if let Some(t) = text {
        out_bytes += t.len();
        content.push(json!({"type": "text", "text": t}));
    } else if calls.is_empty() {
        content.push(json!({"type": "text", "text": ""}));
    }
    for (i, c) in calls.iter().enumerate() {
        let input = match &c.arguments {
            None => json!({}),
            Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| json!(s)),
            Some(v) => v.clone(),
        };
        out_bytes += c.name.len() + input.to_string().len();
        content.push(json!({
            "type": "tool_use",
            "id": c.id.clone().unwrap_or_else(|| format!("toolu_{}_{}", ctx.turn, i)),
            "name": c.name,
            "input": input
        }));
    }
    let stop = step.finish_reason.clone().unwrap_or_else(|| {
        if calls.is_empty() {
            "end_turn".into()
        } else {
            "tool_use".into()
        }
    });
    let (p, c) = usage_numbers(step, ctx, out_bytes);
    json!({
        "id": format!("msg_mock_{}", ctx.seq),
        "type": "message",
        "role": "assistant",
        "model": ctx.model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": null,
        "usage": {"input_tokens": p, "output_tokens": c}
    })
}

fn error_body(step: &Step, status: u16, dialect: Dialect) -> Value {
    let (oa_type, an_type) = match status {
        400 => ("invalid_request_error", "invalid_request_error"),
        401 => ("invalid_request_error", "authentication_error"),
        403 => ("invalid_request_error", "permission_error"),
        404 => ("invalid_request_error", "not_found_error"),
        413 => ("invalid_request_error", "request_too_large"),
        429 => ("rate_limit_exceeded", "rate_limit_error"),
        529 => ("server_error", "overloaded_error"),
        _ => ("server_error", "api_error"),
    };
    let msg = step
        .error
        .clone()
        .unwrap_or_else(|| format!("mock error (status {status})"));
    match dialect {
        Dialect::OpenAi | Dialect::Azure => json!({
            "error": {"message": msg, "type": oa_type, "param": null, "code": status.to_string()}
        }),
        Dialect::Anthropic => json!({
            "type": "error",
            "error": {"type": an_type, "message": msg}
        }),
    }
}

/// Prefix and suffix of an oversize answer; the caller pads between them.
pub fn oversize_parts(dialect: Dialect, model: &str, seq: u64) -> (String, String) {
    let model = serde_json::to_string(model).unwrap_or_else(|_| "\"mock\"".into());
    match dialect {
        Dialect::OpenAi | Dialect::Azure => (
            format!(
                "{{\"id\":\"chatcmpl-mock-{seq}\",\"object\":\"chat.completion\",\"created\":1700000000,\"model\":{model},\"choices\":[{{\"index\":0,\"message\":{{\"role\":\"assistant\",\"content\":\""
            ),
            "\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}".to_string(),
        ),
        Dialect::Anthropic => (
            format!(
                "{{\"id\":\"msg_mock_{seq}\",\"type\":\"message\",\"role\":\"assistant\",\"model\":{model},\"content\":[{{\"type\":\"text\",\"text\":\""
            ),
            "\"}],\"stop_reason\":\"end_turn\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}".to_string(),
        ),
    }
}
