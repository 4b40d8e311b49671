//! What a run returns.

use mcp_llm::{Message, ProviderError, Usage};
use serde::Serialize;
use serde_json::{json, Value};

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatStatus {
    /// The model gave a final answer.
    Completed,
    /// A tool (`getDialog`) asked the user for input; continue the session with the reply.
    NeedsInput,
    /// The model still wanted tools after the last allowed request.
    MaxIterations,
    /// The run's token budget is used up.
    BudgetExceeded,
    /// The model requested a call (same tool, same arguments) that already ran in this run.
    LoopDetected,
    /// Provider error (after retries), transport failure, unusable answer, bad configuration.
    Failed,
    /// The host reported an interrupt.
    Cancelled,
    /// The host found its client gone (the host sets this; the engine sees an interrupt).
    ClientGone,
    /// The run's time budget (`ChatConfig::deadline`, retries included) ran out.
    DeadlineExceeded,
    /// `tool_choice` required a tool call; the model answered with text, also after one
    /// correction turn.
    ToolChoiceViolated,
    /// The final answer was cut off at the output token limit (`finish_reason = length`); the
    /// partial text is the answer.
    Truncated,
    /// A tool call needs a person's approval (`ChatOutcome::pending_approvals`); the next run
    /// of the session carries the decisions out.
    AwaitingApproval,
}

impl ChatStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ChatStatus::Completed => "completed",
            ChatStatus::NeedsInput => "needs_input",
            ChatStatus::MaxIterations => "max_iterations",
            ChatStatus::BudgetExceeded => "budget_exceeded",
            ChatStatus::LoopDetected => "loop_detected",
            ChatStatus::Failed => "failed",
            ChatStatus::Cancelled => "cancelled",
            ChatStatus::ClientGone => "client_gone",
            ChatStatus::DeadlineExceeded => "deadline_exceeded",
            ChatStatus::ToolChoiceViolated => "tool_choice_violated",
            ChatStatus::Truncated => "truncated",
            ChatStatus::AwaitingApproval => "awaiting_approval",
        }
    }
}

impl std::fmt::Display for ChatStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a run did not complete. Provider errors keep their normalized fields; engine-side stops
/// use their own kinds (`config`, `replay_exhausted`, `empty_answer`, `loop_detected`,
/// `max_iterations`, `budget_exceeded`, `cancelled`). Never holds a secret.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatError {
    pub kind: String,
    pub message: String,
    pub provider: Option<String>,
    pub http_status: Option<u16>,
    pub retry_after_s: Option<f64>,
    pub code: Option<String>,
}

impl ChatError {
    pub fn engine(kind: &str, message: impl Into<String>) -> Self {
        ChatError {
            kind: kind.to_string(),
            message: message.into(),
            provider: None,
            http_status: None,
            retry_after_s: None,
            code: None,
        }
    }

    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl From<&ProviderError> for ChatError {
    fn from(e: &ProviderError) -> Self {
        ChatError {
            kind: e.kind.as_str().to_string(),
            message: e.message.clone(),
            provider: Some(e.provider.clone()),
            http_status: e.http_status,
            retry_after_s: e.retry_after_s,
            code: e.code.clone(),
        }
    }
}

impl std::fmt::Display for ChatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.kind)?;
        if let Some(s) = self.http_status {
            write!(f, " (HTTP {s})")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// The result of [`crate::run_chat`].
#[derive(Debug, Clone)]
pub struct ChatOutcome {
    pub status: ChatStatus,
    /// The final answer (`completed`) or the question for the user (`needs_input`).
    pub answer: Option<String>,
    /// LLM requests of the chat cycle (summarization requests not counted).
    pub iterations: u32,
    /// Tool calls executed by the host.
    pub tool_calls: u32,
    /// Tool calls answered without execution (invalid, incomplete, unknown, refused, skipped).
    pub rejected_tool_calls: u32,
    /// Summed over every request of the run, summaries included.
    pub usage: Usage,
    /// At least one request reported no usage and was estimated.
    pub usage_estimated: bool,
    pub error: Option<ChatError>,
    /// For `needs_input`: the tool's request (`missing_parameters`, `context`, …).
    pub needs_input: Option<Value>,
    /// Summaries made to fit the context window, and tool results pruned.
    pub summaries: u32,
    pub pruned_results: u32,
    /// The conversation to store for continuing the session: the history passed in plus this
    /// run's messages (after pruning/summarization), without system prompts (those are supplied
    /// fresh by every run). Every assistant tool call has its tool answer.
    pub messages: Vec<Message>,
    /// For `awaiting_approval`: the calls that wait, as the host described them.
    pub pending_approvals: Vec<Value>,
}

impl ChatOutcome {
    /// `{status, answer, iterations, tool_calls, usage:{prompt_tokens, completion_tokens}, error}`
    /// plus the engine's extra counters — the body of `mcp.chat`'s result.
    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "status": self.status.as_str(),
            "answer": self.answer,
            "iterations": self.iterations,
            "tool_calls": self.tool_calls,
            "rejected_tool_calls": self.rejected_tool_calls,
            "usage": {
                "prompt_tokens": self.usage.prompt_tokens,
                "completion_tokens": self.usage.completion_tokens,
                "estimated": self.usage_estimated,
            },
            "error": self.error.as_ref().map(ChatError::to_json),
            "needs_input": self.needs_input,
            "summaries": self.summaries,
            "pruned_results": self.pruned_results,
        });
        if !self.pending_approvals.is_empty() {
            v["pending_approvals"] = Value::Array(self.pending_approvals.clone());
        }
        v
    }

    /// Messages as a JSON array (the `Message` serde shape), for storing a session.
    pub fn messages_json(&self) -> Value {
        serde_json::to_value(&self.messages).unwrap_or(Value::Array(Vec::new()))
    }
}
