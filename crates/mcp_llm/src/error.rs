//! Provider error bodies (OpenAI, Azure OpenAI, Azure API Management, Mistral, Anthropic, Ollama,
//! vLLM, HTML error pages, empty bodies, transport failures) normalized into one shape.
//!
//! Messages are scrubbed of anything that looks like a secret and capped at
//! [`MAX_MESSAGE_CHARS`] characters: OpenAI echoes part of the API key in 401 messages.

use mcp_audit::clip_chars;
use mcp_audit::Scrubber;
use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::OnceLock;
use std::time::SystemTime;

/// Longest message kept in a [`ProviderError`] (characters).
pub const MAX_MESSAGE_CHARS: usize = 500;

/// What went wrong, independent of the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    RateLimited,
    Auth,
    BadRequest,
    ContextLength,
    ContentFilter,
    Server,
    Timeout,
    Network,
    InvalidResponse,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::RateLimited => "rate_limited",
            ErrorKind::Auth => "auth",
            ErrorKind::BadRequest => "bad_request",
            ErrorKind::ContextLength => "context_length",
            ErrorKind::ContentFilter => "content_filter",
            ErrorKind::Server => "server",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Network => "network",
            ErrorKind::InvalidResponse => "invalid_response",
        }
    }
}

/// One normalized provider error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderError {
    pub kind: ErrorKind,
    pub provider: String,
    pub http_status: Option<u16>,
    /// Scrubbed and capped human-readable message.
    pub message: String,
    /// Seconds to wait before retrying, from `retry-after-ms`, `retry-after` or the message.
    pub retry_after_s: Option<f64>,
    /// The provider's own error type/code when it gave one (`rate_limit_exceeded`,
    /// `overloaded_error`, `content_filter`, …), scrubbed.
    #[serde(default)]
    pub code: Option<String>,
}

impl ProviderError {
    pub fn new(kind: ErrorKind, provider: &str, http_status: Option<u16>, message: &str) -> Self {
        ProviderError {
            kind,
            provider: provider.to_string(),
            http_status,
            message: clean_message(message),
            retry_after_s: None,
            code: None,
        }
    }

    /// Worth retrying the same request later: rate limits (except an exhausted quota), server
    /// errors and overloads, timeouts and network failures.
    pub fn retryable(&self) -> bool {
        match self.kind {
            ErrorKind::RateLimited => {
                let code = self.code.as_deref().unwrap_or("");
                !(code == "insufficient_quota" || self.message.contains("exceeded your current quota"))
            }
            ErrorKind::Server | ErrorKind::Timeout | ErrorKind::Network => true,
            _ => false,
        }
    }

    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl std::fmt::Display for ProviderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} error from {}", self.kind.as_str(), self.provider)?;
        if let Some(s) = self.http_status {
            write!(f, " (HTTP {s})")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ProviderError {}

// ---------------------------------------------------------------------------------------------
// Messages

/// Scrub (credential patterns: the one scrubber, `mcp_audit::Scrubber`), collapse whitespace,
/// replace U+0000 (PostgreSQL text cannot hold it), cap.
fn clean_message(s: &str) -> String {
    let scrubbed = Scrubber::default().scrub_message(s.trim());
    let mut collapsed: String = scrubbed.split_whitespace().collect::<Vec<_>>().join(" ");
    mcp_repair::replace_nul_str(&mut collapsed);
    clip_chars(&collapsed, MAX_MESSAGE_CHARS).0
}

// ---------------------------------------------------------------------------------------------
// Retry hints in messages

/// "Try again in 10 seconds", "Please retry after 6 seconds", "try again in 1.898s",
/// "in 20ms" → seconds.
fn retry_after_from_message(msg: &str) -> Option<f64> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)(?:try again|retry)\s+(?:after|in)\s+(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?)?\b")
            .expect("static regex")
    });
    let c = re.captures(msg)?;
    let n: f64 = c[1].parse().ok()?;
    let unit = c.get(2).map(|m| m.as_str().to_ascii_lowercase()).unwrap_or_default();
    Some(if unit.starts_with("ms") || unit.starts_with("milli") {
        n / 1000.0
    } else if unit.starts_with('m') {
        n * 60.0
    } else {
        n
    })
}

// ---------------------------------------------------------------------------------------------
// Classification

fn as_text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Null => None,
        Value::String(s) if s.trim().is_empty() => None,
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        other => Some(other.to_string()),
    }
}

/// Fields pulled out of a JSON error body.
#[derive(Default, Debug)]
struct ErrFields {
    message: Option<String>,
    /// type / code / status / innererror code, lowercased, all of them.
    codes: Vec<String>,
    /// Preferred single code to report.
    code: Option<String>,
    status_in_body: Option<u16>,
}

/// Recognize an error object in a JSON value; `None` when it does not look like one.
fn error_fields(v: &Value) -> Option<ErrFields> {
    // Some gateways (Gemini-style) wrap the error in a one-element array (a loop: a body of
    // nested arrays must not recurse).
    let mut v = v;
    while let Value::Array(a) = v {
        v = a.first()?;
    }
    let o = v.as_object()?;
    let mut f = ErrFields::default();
    let push_code = |f: &mut ErrFields, c: Option<String>| {
        if let Some(c) = c {
            if f.code.is_none() {
                f.code = Some(c.clone());
            }
            f.codes.push(c.to_ascii_lowercase());
        }
    };
    if let Some(e) = o.get("error") {
        match e {
            // OpenAI / Azure / Anthropic / Gemini: {"error": {...}}
            Value::Object(eo) => {
                f.message = as_text(eo.get("message"));
                push_code(&mut f, as_text(eo.get("code")).filter(|c| c.parse::<u16>().is_err()));
                push_code(&mut f, as_text(eo.get("type")));
                push_code(&mut f, as_text(eo.get("status")).filter(|c| c.parse::<u16>().is_err()));
                if let Some(ie) = eo.get("innererror").or_else(|| eo.get("inner_error")) {
                    push_code(&mut f, as_text(ie.get("code")));
                }
                f.status_in_body = eo
                    .get("code")
                    .or_else(|| eo.get("status"))
                    .and_then(|c| c.as_u64().or_else(|| c.as_str().and_then(|s| s.parse().ok())))
                    .and_then(|n| u16::try_from(n).ok())
                    .filter(|n| (400..600).contains(n));
                if f.message.is_none() {
                    f.message = as_text(Some(e));
                }
            }
            // Ollama / llama.cpp: {"error": "model not found"}
            Value::String(s) if !s.trim().is_empty() => f.message = Some(s.clone()),
            Value::Null | Value::Bool(false) => {}
            other => f.message = as_text(Some(other)),
        }
        if o.get("type").and_then(Value::as_str) == Some("error") || f.message.is_some() || !f.codes.is_empty() {
            if f.message.is_none() {
                f.message = Some("provider returned an error".into());
            }
            return Some(f);
        }
    }
    // Mistral / vLLM: {"object":"error","message":…,"type":…,"code":…}
    if o.get("object").and_then(Value::as_str) == Some("error") {
        f.message = as_text(o.get("message")).or_else(|| Some("provider returned an error".into()));
        push_code(&mut f, as_text(o.get("type")));
        push_code(&mut f, as_text(o.get("code")).filter(|c| c.parse::<u16>().is_err()));
        f.status_in_body = o
            .get("code")
            .and_then(Value::as_u64)
            .and_then(|n| u16::try_from(n).ok());
        return Some(f);
    }
    // Azure API Management: {"statusCode": 429, "message": "Rate limit is exceeded. …"}
    if let Some(sc) = o
        .get("statusCode")
        .and_then(|c| c.as_u64().or_else(|| c.as_str().and_then(|s| s.parse().ok())))
    {
        f.status_in_body = u16::try_from(sc).ok();
        f.message = as_text(o.get("message")).or_else(|| Some(format!("HTTP {sc}")));
        return Some(f);
    }
    // FastAPI-style (Mistral, vLLM gateways): {"detail": "Unauthorized"} or {"detail": [{msg…}]}
    if let Some(d) = o.get("detail") {
        if o.get("choices").is_none() {
            f.message = match d {
                Value::Array(items) => {
                    let msgs: Vec<String> = items
                        .iter()
                        .map(|i| {
                            let msg = i.get("msg").and_then(Value::as_str).unwrap_or("invalid");
                            match i.get("loc").and_then(Value::as_array) {
                                Some(loc) => {
                                    let path: Vec<String> = loc
                                        .iter()
                                        .map(|p| p.as_str().map(String::from).unwrap_or(p.to_string()))
                                        .collect();
                                    format!("{}: {msg}", path.join("."))
                                }
                                None => msg.to_string(),
                            }
                        })
                        .collect();
                    Some(msgs.join("; "))
                }
                other => as_text(Some(other)),
            };
            if f.message.is_some() {
                return Some(f);
            }
        }
    }
    // Bare {"message": "..."} with no success shape (Mistral 429, some gateways).
    if o.len() <= 3 && o.get("choices").is_none() && o.get("content").is_none() {
        if let Some(m) = as_text(o.get("message")).filter(|_| o.get("message").map(Value::is_string) == Some(true)) {
            f.message = Some(m);
            push_code(&mut f, as_text(o.get("type")).or_else(|| as_text(o.get("code"))));
            return Some(f);
        }
    }
    None
}

/// True when a JSON value is a provider error body (used by [`crate::parse_llm_response`]).
pub(crate) fn looks_like_error(v: &Value) -> bool {
    error_fields(v).is_some()
}

fn contains_any(hay: &str, needles: &[&str]) -> bool {
    needles.iter().any(|n| hay.contains(n))
}

fn classify(status: Option<u16>, codes: &[String], message: &str) -> ErrorKind {
    let msg = message.to_ascii_lowercase();
    let code_has = |needles: &[&str]| codes.iter().any(|c| contains_any(c, needles));
    if code_has(&["context_length", "context_window", "string_above_max_length"])
        || contains_any(
            &msg,
            &[
                "maximum context length",
                "context length",
                "context window",
                "prompt is too long",
                "too many tokens",
                "input is too long",
                "reduce the length",
                "exceeds the model's",
            ],
        )
    {
        return ErrorKind::ContextLength;
    }
    if code_has(&[
        "content_filter",
        "content_policy",
        "responsibleaipolicyviolation",
        "safety",
    ]) || contains_any(&msg, &["content management policy", "content filter", "content_filter"])
    {
        return ErrorKind::ContentFilter;
    }
    if code_has(&[
        "rate_limit",
        "ratelimit",
        "too_many_requests",
        "insufficient_quota",
        "resource_exhausted",
        "quota",
    ]) || status == Some(429)
    {
        return ErrorKind::RateLimited;
    }
    if code_has(&[
        "authentication",
        "invalid_api_key",
        "permission",
        "unauthenticated",
        "unauthorized",
        "permission_denied",
        "invalid_authentication",
        "accessdenied",
    ]) || matches!(status, Some(401) | Some(403))
    {
        return ErrorKind::Auth;
    }
    if code_has(&[
        "overloaded",
        "server_error",
        "api_error",
        "internal",
        "service_unavailable",
        "unavailable",
    ]) || matches!(status, Some(500..=503) | Some(529))
    {
        return ErrorKind::Server;
    }
    if code_has(&["timeout", "deadline_exceeded"]) || matches!(status, Some(408) | Some(504) | Some(522) | Some(524)) {
        return ErrorKind::Timeout;
    }
    if code_has(&[
        "invalid_request",
        "not_found",
        "badrequest",
        "invalid_argument",
        "bad_request",
    ]) || matches!(status, Some(400..=499))
    {
        return ErrorKind::BadRequest;
    }
    match status {
        Some(s) if s >= 500 => ErrorKind::Server,
        None if contains_any(&msg, &["timed out", "timeout", "deadline"]) => ErrorKind::Timeout,
        None => ErrorKind::Network,
        _ => ErrorKind::Server,
    }
}

/// `<title>` of an HTML page, else the first `<h1>`, else the stripped text.
fn html_summary(body: &str) -> String {
    let lower = body.to_ascii_lowercase();
    let between = |open: &str, close: &str| -> Option<String> {
        let start = lower.find(open)?;
        let after = start + lower[start..].find('>')? + 1;
        let end = after + lower[after..].find(close)?;
        body.get(after..end).map(str::to_string)
    };
    let raw = between("<title", "</title>")
        .filter(|t| !t.trim().is_empty())
        .or_else(|| between("<h1", "</h1>"))
        .unwrap_or_else(|| body.to_string());
    let text = strip_tags(&raw);
    let text = decode_entities(&text);
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

fn decode_entities(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&apos;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
}

fn looks_like_html(body: &str) -> bool {
    let head: String = body
        .trim_start()
        .chars()
        .take(200)
        .collect::<String>()
        .to_ascii_lowercase();
    head.starts_with("<!doctype html")
        || head.starts_with("<html")
        || head.contains("<head")
        || head.contains("<title")
        || head.starts_with("<body")
        || head.starts_with("<h1")
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "",
    }
}

/// Normalize one failed (or suspicious) provider answer.
///
/// - `provider`: a label for the message (`openai`, `azure`, `anthropic`, …);
/// - `http_status`: `None` when no HTTP response arrived: then `body` is the transport error
///   text and the kind is `timeout` or `network`;
/// - `body`: the raw response body (JSON error object of any known provider, HTML page, empty,
///   or an HTTP 200 body that carries an error object);
/// - `retry_after_header`: the `retry-after` header value (seconds or HTTP-date). Without it,
///   a delay stated in the message ("Try again in 10 seconds") is used.
pub fn normalize_error(
    provider: &str,
    http_status: Option<u16>,
    body: &str,
    retry_after_header: Option<&str>,
) -> ProviderError {
    let hint = retry_after_header.and_then(|v| mcp_http::retry_after(&[("retry-after", v)], SystemTime::now()));
    normalize_error_with_retry(provider, http_status, body, hint.map(|d| d.as_secs_f64()))
}

/// [`normalize_error`] with the wait the response headers asked for (seconds), which wins over
/// a wait stated in the message.
pub(crate) fn normalize_error_with_retry(
    provider: &str,
    http_status: Option<u16>,
    body: &str,
    retry_after_s: Option<f64>,
) -> ProviderError {
    let mut e = normalize_body(provider, http_status, body);
    if retry_after_s.is_some() {
        e.retry_after_s = retry_after_s;
    }
    e
}

fn normalize_body(provider: &str, http_status: Option<u16>, body: &str) -> ProviderError {
    let trimmed = body.trim();
    let provider = if provider.trim().is_empty() {
        "unknown"
    } else {
        provider.trim()
    };
    let (message, codes, code, status_hint) = if http_status.is_none() {
        let m = if trimmed.is_empty() {
            "no response from provider".to_string()
        } else {
            trimmed.to_string()
        };
        (m, Vec::new(), None, None)
    } else if trimmed.is_empty() {
        let s = http_status.unwrap_or(0);
        let m = format!("HTTP {s} {} with empty body", reason_phrase(s)).replace("  ", " ");
        (m, Vec::new(), None, None)
    } else if let Some(f) = serde_json::from_str::<Value>(trimmed)
        .ok()
        .as_ref()
        .and_then(error_fields)
    {
        (f.message.unwrap_or_default(), f.codes, f.code, f.status_in_body)
    } else if looks_like_html(trimmed) {
        let s = http_status.unwrap_or(0);
        let t = html_summary(trimmed);
        let m = if t.is_empty() {
            format!("HTTP {s} {} (HTML error page)", reason_phrase(s))
        } else {
            t
        };
        (m, Vec::new(), None, None)
    } else {
        (trimmed.to_string(), Vec::new(), None, None)
    };
    // The status the classification uses: the real one, unless it claims success while the body
    // carries an error with its own status (HTTP 200 error bodies, APIM).
    let status_for_kind = match (http_status, status_hint) {
        (Some(s), Some(h)) if s < 400 => Some(h),
        (Some(s), _) => Some(s),
        (None, h) => h,
    };
    let mut kind = classify(status_for_kind, &codes, &message);
    if http_status.is_some_and(|s| s < 400) && codes.is_empty() && status_hint.is_none() && kind == ErrorKind::Server {
        // A success status whose body is not a recognized error: the answer is unusable.
        let is_error_body = serde_json::from_str::<Value>(trimmed)
            .ok()
            .as_ref()
            .is_some_and(looks_like_error);
        if !is_error_body {
            kind = ErrorKind::InvalidResponse;
        }
    }
    if http_status.is_none() && kind != ErrorKind::Timeout {
        kind = ErrorKind::Network;
    }
    let mut e = ProviderError::new(kind, provider, http_status, &message);
    e.code = code.map(|c| {
        let mut c = clip_chars(&Scrubber::default().scrub_message(&c), 100).0;
        mcp_repair::replace_nul_str(&mut c);
        c
    });
    e.retry_after_s = retry_after_from_message(&message);
    e
}

/// Normalize an error object found inside a parsed JSON body (no HTTP context).
pub(crate) fn error_from_value(v: &Value) -> ProviderError {
    let provider = if v.get("type").and_then(Value::as_str) == Some("error") {
        "anthropic"
    } else if v.get("object").and_then(Value::as_str) == Some("error") {
        "openai-compatible"
    } else if v.get("statusCode").is_some() {
        "azure-apim"
    } else {
        "unknown"
    };
    normalize_body(provider, Some(200), &v.to_string())
}
