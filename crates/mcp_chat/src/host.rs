//! What the engine needs from its environment ([`Host`]) and the records it hands back for
//! auditing ([`LlmExchange`], [`ToolCallRecord`]).

use mcp_llm::{FinishReason, Fix, Message, ProviderError, ToolCall, ToolDef, Usage};
use serde::Serialize;
use serde_json::{json, Value};
use std::time::Duration;

/// How a tool execution ended (as reported by the host).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// The tool ran; `content` is its result.
    Ok,
    /// The tool failed; `content` is a generic, model-readable error (details go in `detail`).
    Error,
    /// The tool asks the user for something (`getDialog`): the run stops with `needs_input`
    /// after the current batch of calls.
    NeedsInput,
    /// The tool was cancelled by an interrupt: the run stops with `cancelled` at once.
    Cancelled,
}

/// The host's answer to one tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolExecution {
    pub status: ToolStatus,
    /// Sent to the model as the `role=tool` message content.
    pub content: String,
    /// For `NeedsInput`: what to ask (`{"missing_parameters": [...], "context": "...",
    /// "question": "..."}`, every field optional).
    pub needs_input: Option<Value>,
    /// Operator-only detail (SQLSTATE, error text); never sent to the model. Passed through to
    /// [`ToolCallRecord::detail`].
    pub detail: Option<String>,
}

impl ToolExecution {
    pub fn ok(content: impl Into<String>) -> Self {
        ToolExecution {
            status: ToolStatus::Ok,
            content: content.into(),
            needs_input: None,
            detail: None,
        }
    }

    pub fn error(content: impl Into<String>) -> Self {
        ToolExecution {
            status: ToolStatus::Error,
            content: content.into(),
            needs_input: None,
            detail: None,
        }
    }

    /// A `getDialog`-style request for user input; `content` is what the model is told.
    pub fn needs_input(request: Value, content: impl Into<String>) -> Self {
        ToolExecution {
            status: ToolStatus::NeedsInput,
            content: content.into(),
            needs_input: Some(request),
            detail: None,
        }
    }

    pub fn cancelled() -> Self {
        ToolExecution {
            status: ToolStatus::Cancelled,
            content: "Tool call cancelled.".into(),
            needs_input: None,
            detail: None,
        }
    }

    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    pub fn is_error(&self) -> bool {
        matches!(self.status, ToolStatus::Error | ToolStatus::Cancelled)
    }
}

/// What happened to one tool call the model asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolCallStatus {
    /// Executed by the host; result is `ToolExecution::status`.
    Executed(ToolStatus),
    /// Arguments failed validation; a correction was sent, not executed.
    Invalid,
    /// Cut off or unparsable (no name, arguments not an object); not executed.
    Incomplete,
    /// Not among the tools offered for this run; not executed.
    UnknownTool,
    /// The model called a tool while `tool_choice` was `none`; not executed.
    Refused,
    /// Not executed because the run stopped (loop, iteration cap, budget, cancel, input needed).
    Skipped,
}

impl ToolCallStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolCallStatus::Executed(ToolStatus::Ok) => "ok",
            ToolCallStatus::Executed(ToolStatus::Error) => "error",
            ToolCallStatus::Executed(ToolStatus::NeedsInput) => "needs_input",
            ToolCallStatus::Executed(ToolStatus::Cancelled) => "cancelled",
            ToolCallStatus::Invalid => "invalid",
            ToolCallStatus::Incomplete => "incomplete",
            ToolCallStatus::UnknownTool => "unknown_tool",
            ToolCallStatus::Refused => "refused",
            ToolCallStatus::Skipped => "skipped",
        }
    }

    pub fn executed(self) -> bool {
        matches!(self, ToolCallStatus::Executed(_))
    }
}

/// One tool call as the engine handled it (for the `tool_call` audit table).
#[derive(Debug, Clone)]
pub struct ToolCallRecord {
    /// Iteration (1-based LLM request number) whose answer asked for the call.
    pub iteration: u32,
    pub call_id: String,
    pub name: String,
    /// Arguments as received from the model (text).
    pub arguments_raw: String,
    /// Decoded arguments (`None` when the call was incomplete).
    pub arguments: Option<Value>,
    pub status: ToolCallStatus,
    /// Validation errors (`mcp_tools::errors_to_json` shape), empty when none.
    pub validation_errors: Value,
    /// Why the call was not executed, or the incomplete call's parse error.
    pub reason: Option<String>,
    /// The `role=tool` content sent back to the model.
    pub content: String,
    /// Time spent in `Host::execute_tool` (zero when not executed).
    pub latency: Duration,
    /// Operator-only detail from the host.
    pub detail: Option<String>,
}

impl ToolCallRecord {
    pub fn to_json(&self) -> Value {
        json!({
            "iteration": self.iteration,
            "call_id": self.call_id,
            "name": self.name,
            "arguments_raw": self.arguments_raw,
            "arguments": self.arguments,
            "status": self.status.as_str(),
            "validation_errors": self.validation_errors,
            "reason": self.reason,
            "result_bytes": self.content.len(),
            "latency_ms": self.latency.as_secs_f64() * 1000.0,
            "detail": self.detail,
        })
    }
}

/// Why an LLM request was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExchangePurpose {
    /// A step of the chat cycle.
    Chat,
    /// Summarizing older turns to fit the context window (M11).
    Summary,
}

/// One LLM request/response, as audited (`llm_request`). Holds no secret: the key only ever
/// travels in a header, and every text field is scrubbed of the configured key besides.
#[derive(Debug, Clone)]
pub struct LlmExchange {
    pub purpose: ExchangePurpose,
    /// Iteration this request belongs to (a summary belongs to the request it makes room for).
    pub iteration: u32,
    /// Provider label and kind.
    pub provider: String,
    pub kind: &'static str,
    pub model: String,
    /// Endpoint without query string or user info (`replay:` for replay).
    pub url: String,
    /// The body as sent.
    pub request_body: String,
    /// The raw response body (of the last attempt), `None` when no response arrived.
    pub response_body: Option<String>,
    pub http_status: Option<u16>,
    pub latency: Duration,
    /// Attempts made (1 = no retry; 0 for replay).
    pub attempts: u32,
    /// Token usage as reported, or estimated when the provider reported none.
    pub usage: Usage,
    pub usage_estimated: bool,
    /// Prompt tokens the engine counted before sending (its own count).
    pub counted_prompt_tokens: Option<usize>,
    pub finish_reason: Option<FinishReason>,
    /// The wait was ended by an interrupt (no response).
    pub cancelled: bool,
    /// The response needed repair (body or tool-call arguments).
    pub repaired: bool,
    pub fixes: Vec<Fix>,
    /// Normalized provider error (non-2xx, transport failure, error body, unusable answer).
    pub error: Option<ProviderError>,
}

impl LlmExchange {
    pub fn retries(&self) -> u32 {
        self.attempts.saturating_sub(1)
    }

    pub fn latency_ms(&self) -> f64 {
        self.latency.as_secs_f64() * 1000.0
    }

    /// Audit row shape.
    pub fn to_json(&self) -> Value {
        json!({
            "purpose": self.purpose,
            "iteration": self.iteration,
            "provider": self.provider,
            "kind": self.kind,
            "model": self.model,
            "url": self.url,
            "request_body": self.request_body,
            "response_body": self.response_body,
            "http_status": self.http_status,
            "latency_ms": self.latency_ms(),
            "attempts": self.attempts,
            "retries": self.retries(),
            "usage": self.usage,
            "usage_estimated": self.usage_estimated,
            "counted_prompt_tokens": self.counted_prompt_tokens,
            "finish_reason": self.finish_reason,
            "cancelled": self.cancelled,
            "repaired": self.repaired,
            "fixes": self.fixes,
            "error": self.error.as_ref().map(ProviderError::to_json),
        })
    }
}

/// The engine's environment. The pgrx layer implements it: tools from the registry, each call
/// run as SQL in its own subtransaction, audit rows, PostgreSQL's interrupt flags.
///
/// Call order within a run: `tools` once; then per message added `on_message`; per LLM request
/// `interrupted` (polled while waiting) and `on_llm_exchange`; per tool call the model asked for
/// `execute_tool` (only for valid calls) and `on_tool_call` (for every call, executed or not).
/// All calls happen on the thread that called `run_chat`.
pub trait Host {
    /// The tools offered to the model for this run (already filtered by authorization).
    fn tools(&mut self) -> Vec<ToolDef>;

    /// Run one valid tool call. The engine has already checked the name (one of `tools()`) and,
    /// unless `ChatConfig::host_validates`, the arguments against the tool's schema.
    fn execute_tool(&mut self, call: &ToolCall) -> ToolExecution;

    /// Called right before [`Host::execute_tool`] with the arguments exactly as the model sent
    /// them (before repair/decoding), e.g. to store them with the host's own audit row.
    fn on_tool_start(&mut self, _call_id: &str, _arguments_raw: &str) {}

    /// A compiled validator for a tool's `parameters`, e.g. from a per-backend cache. `None`
    /// (the default): the engine compiles the schema itself, once per run.
    fn compiled_schema(&mut self, _tool: &str) -> Option<mcp_tools::ToolSchema> {
        None
    }

    /// True when the run must stop now (query cancel, statement timeout, backend shutdown).
    /// Polled every few milliseconds while waiting for the LLM: must be cheap.
    fn interrupted(&mut self) -> bool {
        false
    }

    /// One LLM request/response happened (successful or not).
    fn on_llm_exchange(&mut self, _exchange: &LlmExchange) {}

    /// One message was added to the conversation (system prompts, the question, assistant
    /// answers, tool results, summaries, the `needs_input` question).
    fn on_message(&mut self, _message: &Message) {}

    /// One tool call was handled (executed, rejected or skipped).
    fn on_tool_call(&mut self, _record: &ToolCallRecord) {}
}
