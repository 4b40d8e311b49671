//! What the engine needs from its environment ([`Host`]) and the records it hands back for
//! auditing ([`LlmExchange`], [`ToolCallRecord`]).

use mcp_llm::{FinishReason, Fix, ProviderError, ToolCall, ToolDef, Usage};
use serde::Serialize;
use serde_json::{json, Value};
use std::time::Duration;

/// What happened to one tool call: pg_mcp's one status vocabulary for tool calls. The engine
/// sets it for the calls it answers itself, the host's pipeline for the calls it runs, and the
/// SQL layer stores [`ToolCallStatus::as_str`] in `mcp.tool_call.status` (whose CHECK
/// constraint lists the same five values). Finer distinctions (a cut-off call, a tool not
/// offered, `tool_choice = none`, a cancelled tool) travel in the record's `reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolCallStatus {
    /// The tool ran; the content is its result (a `getDialog` request for input included).
    Ok,
    /// The tool ran and failed (raised, hit its time limit, was cancelled); the content is a
    /// generic, model-readable error.
    Error,
    /// Not run: the arguments do not fit the tool's schema (a correction was sent), or the call
    /// was cut off or unparsable.
    Invalid,
    /// Not run: the tool is not available to the role in this interface (unknown, not offered,
    /// not mapped, no EXECUTE, refused by the sandbox), or `tool_choice` is `none`.
    Denied,
    /// Not run because the run stopped (iteration cap, token budget, loop, cancel, input needed).
    Skipped,
}

impl ToolCallStatus {
    /// The stored value (`mcp.tool_call.status`).
    pub fn as_str(self) -> &'static str {
        match self {
            ToolCallStatus::Ok => "ok",
            ToolCallStatus::Error => "error",
            ToolCallStatus::Invalid => "invalid",
            ToolCallStatus::Denied => "denied",
            ToolCallStatus::Skipped => "skipped",
        }
    }

    /// Whether the tool ran (`ok` or `error`).
    pub fn ran(self) -> bool {
        matches!(self, ToolCallStatus::Ok | ToolCallStatus::Error)
    }
}

/// The host's answer to one tool call it was handed (see [`Host::execute_tool`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolExecution {
    pub status: ToolCallStatus,
    /// Sent to the model as the `role=tool` message content.
    pub content: String,
    /// A `getDialog`-style request for user input (`{"missing_parameters": [...], "context":
    /// "...", "question": "..."}`, every field optional): the run stops with `needs_input` after
    /// the current batch of calls.
    pub needs_input: Option<Value>,
    /// The tool was cancelled by an interrupt: the run stops with `cancelled` at once.
    pub cancelled: bool,
    /// For `Invalid`: the validation errors (`mcp_tools::errors_to_json` shape).
    pub validation_errors: Value,
    /// The call waits for a person's decision (the host recorded it with its validated
    /// arguments): the run stops with `awaiting_approval` after the current batch, and the call
    /// stays without an answer until a later run of the session carries the decision out.
    pub awaiting_approval: Option<Value>,
}

impl ToolExecution {
    fn new(status: ToolCallStatus, content: impl Into<String>) -> Self {
        ToolExecution {
            status,
            content: content.into(),
            needs_input: None,
            cancelled: false,
            validation_errors: Value::Array(Vec::new()),
            awaiting_approval: None,
        }
    }

    /// The call waits for an approval; `pending` describes it (call id, tool, arguments,
    /// digest, expiry) for the run's result.
    pub fn awaiting_approval(pending: Value) -> Self {
        ToolExecution {
            awaiting_approval: Some(pending),
            ..Self::new(ToolCallStatus::Skipped, "The call waits for an approval.")
        }
    }

    pub fn ok(content: impl Into<String>) -> Self {
        Self::new(ToolCallStatus::Ok, content)
    }

    pub fn error(content: impl Into<String>) -> Self {
        Self::new(ToolCallStatus::Error, content)
    }

    pub fn denied(content: impl Into<String>) -> Self {
        Self::new(ToolCallStatus::Denied, content)
    }

    /// Arguments refused by the tool's schema: the correction the model gets
    /// ([`mcp_tools::correction_message`]) and the errors for the audit.
    pub fn invalid(tool: &str, errors: &[mcp_tools::ArgError]) -> Self {
        ToolExecution {
            validation_errors: mcp_tools::errors_to_json(errors),
            ..Self::new(
                ToolCallStatus::Invalid,
                mcp_tools::correction_message(tool, errors),
            )
        }
    }

    /// Arguments the host's pipeline refused: its correction and errors as JSON.
    pub fn invalid_with(content: impl Into<String>, validation_errors: Value) -> Self {
        ToolExecution {
            validation_errors,
            ..Self::new(ToolCallStatus::Invalid, content)
        }
    }

    /// A `getDialog`-style request for user input; `content` is what the model is told.
    pub fn needs_input(request: Value, content: impl Into<String>) -> Self {
        ToolExecution {
            needs_input: Some(request),
            ..Self::new(ToolCallStatus::Ok, content)
        }
    }

    pub fn cancelled() -> Self {
        ToolExecution {
            cancelled: true,
            ..Self::new(ToolCallStatus::Error, "Tool call cancelled.")
        }
    }

    pub fn is_error(&self) -> bool {
        self.status != ToolCallStatus::Ok
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
    /// Handed to [`Host::execute_tool`], which accounted for it (ran it, or refused it in its
    /// own pipeline); otherwise answered by the engine itself.
    pub executed: bool,
    /// Validation errors (`mcp_tools::errors_to_json` shape), empty when none.
    pub validation_errors: Value,
    /// Why the engine did not hand the call to the host (the incomplete call's parse error,
    /// "tool not offered in this run", "tool_choice is none", why the run stopped), or
    /// "cancelled" for a cancelled tool.
    pub reason: Option<String>,
    /// The `role=tool` content sent back to the model.
    pub content: String,
    /// Time spent in `Host::execute_tool` (zero when not executed).
    pub latency: Duration,
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
            "executed": self.executed,
            "validation_errors": self.validation_errors,
            "reason": self.reason,
            "result_bytes": self.content.len(),
            "latency_ms": self.latency.as_secs_f64() * 1000.0,
        })
    }
}

/// Why an LLM request was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExchangePurpose {
    /// A step of the chat cycle.
    Chat,
    /// Summarizing older turns to fit the context window.
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
    /// Prompt tokens the engine counted before sending (its own count): exact when a limit
    /// (context window, `max_total_tokens`) needed it, else an upper bound (the bytes) that
    /// already kept the request within every limit; `None` without any limit.
    pub counted_prompt_tokens: Option<usize>,
    pub finish_reason: Option<FinishReason>,
    /// The wait was ended by an interrupt (no response).
    pub cancelled: bool,
    /// The response needed repair (body or tool-call arguments).
    pub repaired: bool,
    pub fixes: Vec<Fix>,
    /// Normalized provider error (non-2xx, transport failure, error body, unusable answer).
    pub error: Option<ProviderError>,
    /// The reasoning split off the answer (`<think>…</think>`, `[THINK]`, Harmony's analysis
    /// channel, `reasoning_content`): never part of the conversation, kept for the audit.
    pub reasoning: Option<String>,
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
/// through the tool pipeline (authorize, validate, bind, execute, shape, audit), audit rows,
/// PostgreSQL's interrupt flags.
///
/// Call order within a run: `tools` once; per LLM request `interrupted` (polled while waiting)
/// and `on_llm_exchange`; per tool call the model asked for `execute_tool` (only for complete
/// calls of an offered tool while tools are allowed and the run goes on) and `on_tool_call`
/// (for every call, executed or not). All calls happen on the thread that called `run_chat`.
pub trait Host {
    /// The tools offered to the model for this run (already filtered by authorization).
    fn tools(&mut self) -> Vec<ToolDef>;

    /// Run one call of an offered tool: the host validates the arguments against the tool's
    /// schema (answering [`ToolExecution::invalid`]), checks authorization again, runs it and
    /// audits it. `arguments_raw` is the arguments exactly as the model sent them (before
    /// repair/decoding), for the host's audit row.
    fn execute_tool(&mut self, call: &ToolCall, arguments_raw: &str) -> ToolExecution;

    /// True when the run must stop now (query cancel, statement timeout, backend shutdown).
    /// Polled every few milliseconds while waiting for the LLM: must be cheap.
    fn interrupted(&mut self) -> bool {
        false
    }

    /// One LLM request/response happened (successful or not).
    /// Called before each LLM request (chat and summary): `Err(message)` ends the run with
    /// `budget_exceeded` and that message (the limit, its value and when it resets), and nothing
    /// is sent. A host that counts requests counts this one when it answers `Ok`.
    fn before_llm_request(&mut self, _purpose: ExchangePurpose) -> Result<(), String> {
        Ok(())
    }

    fn on_llm_exchange(&mut self, _exchange: &LlmExchange) {}

    /// One tool call was handled (executed, rejected or skipped); `record.executed` tells
    /// whether [`Host::execute_tool`] saw it.
    fn on_tool_call(&mut self, _record: &ToolCallRecord) {}
}
