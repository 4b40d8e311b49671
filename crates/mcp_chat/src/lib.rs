//! mcp_chat — the chat loop engine of pg_mcp (the tool-call cycle, context management, audit
//! records). Pure Rust, no pgrx: the pgrx layer implements [`Host`] and calls [`run_chat`].
//!
//! # The cycle
//!
//! system prompt(s) + stored history + the question + `tools` + `tool_choice` → the provider's
//! dialect builds the body ([`mcp_llm::ProviderConfig::body`], one module per dialect in
//! `mcp_llm::provider`) → [`transport`] (HTTP through `mcp_http`, or the replayed recording) →
//! [`mcp_llm::ProviderConfig::parse_response`] (or `normalize_error` for a non-2xx status) →
//! when the answer asks for tools, every call (several per
//! answer allowed) is answered with one `role=tool` message, in order:
//!
//! * incomplete (cut off, nameless, arguments not an object) → a correction, not executed
//!   (status `invalid`);
//! * `tool_choice = none` and the model called anyway → refused, not executed (`denied`);
//! * a tool not offered in this run → "unknown tool", not executed (`denied`);
//! * otherwise [`Host::execute_tool`]: the host's pipeline validates the arguments against the
//!   tool's JSON Schema (a failure is answered with [`ToolExecution::invalid`], whose
//!   [`mcp_tools::correction_message`] the model gets), authorizes, runs and audits the call.
//!
//! Every call ends with one [`ToolCallStatus`] (`ok`, `error`, `invalid`, `denied`, `skipped`):
//! the one status vocabulary of pg_mcp's tool calls.
//!
//! The assistant message is stored with *every* call id (incomplete calls with `{}` arguments),
//! so no tool answer is orphaned and no call lacks its answer — for continuation too. Then the
//! next request, until the model answers without tools.
//!
//! `tool_choice`: all four modes are sent as configured on the first request. `required` and a
//! forced function apply to the first request only; later requests use `auto`, otherwise the
//! model could never give its final answer. `none` stays `none` (tools are still listed).
//!
//! # Statuses
//!
//! | status | trigger |
//! |---|---|
//! | `completed` | an answer without tool calls (non-empty text) |
//! | `needs_input` | a tool answered [`ToolExecution::needs_input`] (`getDialog`); the rest of the batch still runs, then the question for the user is stored as an assistant message and returned as `answer`. Continue by calling `run_chat` with `outcome.messages` and the user's reply. |
//! | `max_iterations` | the answer of the last allowed request (default 10, hard cap 25) still asks for tools; those calls are answered "not executed" |
//! | `budget_exceeded` | `max_total_tokens` reached: before a request (used + counted prompt > budget) or after an answer that asks for tools |
//! | `loop_detected` | a call with the same tool and the same (key-sorted) arguments as one executed in an *earlier* iteration; the whole batch is answered "not executed" |
//! | `failed` | non-2xx after `mcp_http`'s retries (normalized error), transport failure, error body, empty answer, content filter, bad config, replay exhausted |
//! | `cancelled` | [`Host::interrupted`] returned true (polled while waiting for the LLM, between tool calls and iterations) or a tool answered [`ToolExecution::cancelled`] |
//!
//! # Context management
//!
//! Before every request the messages are counted (`mcp_llm::TokenCounter::for_model`: real BPE for
//! OpenAI models, a pessimistic estimate otherwise; per-message counts are cached) against
//! `context_window - max_completion_tokens - tools`. Over budget: [`mcp_llm::prune`] replaces the
//! oldest tool results with a marker; still over: one summarization request (no tools) for the
//! range prune names, then [`mcp_llm::apply_summary`]. System prompts, the first and the last
//! question and the latest turn are never touched, and an assistant tool-call message always
//! keeps its tool answers. Without a known window (config or model name) nothing is counted for
//! the window.
//!
//! # Audit and secrets
//!
//! Every LLM request produces an [`LlmExchange`] (body as sent, raw response, status, latency,
//! attempts, usage, repairs, normalized error); every tool call a [`ToolCallRecord`]; the
//! conversation is returned in the outcome. The API key only ever travels in a header. One
//! `mcp_audit::Scrubber` per run (the provider's credentials in every form: as is, JSON-escaped,
//! percent-encoded) is applied to every response body — success or error, HTTP or replay —
//! before it is parsed, so neither the answer, the conversation, a record nor an error can carry
//! a key the provider echoed; error messages also get the credential patterns. Provider-reported
//! token counts are summed saturating (an absurd count never wraps or panics).

pub mod budget;
mod config;
mod engine;
mod host;
mod outcome;
mod plan;
pub mod transport;

pub use config::{
    ChatConfig, ProviderConfig, ProviderKind, RunLimits, ANTHROPIC_VERSION,
    DEFAULT_AZURE_API_VERSION, DEFAULT_COMPLETION_RESERVE, DEFAULT_MAX_ITERATIONS,
    MAX_ITERATIONS_HARD_CAP,
};
pub use engine::{
    canonical, question_for_user, run_chat, run_chat_with, SUMMARY_INSTRUCTION,
    SUMMARY_SYSTEM_PROMPT,
};
pub use host::{ExchangePurpose, Host, LlmExchange, ToolCallRecord, ToolCallStatus, ToolExecution};
pub use outcome::{ChatError, ChatOutcome, ChatStatus};
pub use plan::{PlanAsk, PlanRun, PreResult};

// Re-exported so a host needs no direct dependency for the common types.
pub use mcp_http::multiplex::Multiplexer;
pub use mcp_http::{HttpClient, Options as HttpOptions, RetryPolicy};
pub use mcp_llm::{Message, Role, ToolCall, ToolChoice, ToolDef, Usage};
pub use transport::Http;
