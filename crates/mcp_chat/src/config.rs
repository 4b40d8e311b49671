//! Run configuration. The provider (its kind, endpoint, key, options) is
//! [`mcp_llm::ProviderConfig`]: each wire dialect is one module of `mcp_llm::provider`.

use mcp_http::Options;
use mcp_llm::ToolChoice;
pub use mcp_llm::{ProviderConfig, ProviderKind, ANTHROPIC_VERSION, DEFAULT_AZURE_API_VERSION};

/// Default iteration cap (LLM requests per run, summarization calls not counted).
pub const DEFAULT_MAX_ITERATIONS: u32 = 10;
/// Hard cap: a larger configured value is clamped to this.
pub const MAX_ITERATIONS_HARD_CAP: u32 = 25;

/// What one run may make the backend hold and send, whatever the model answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunLimits {
    /// Tool calls of one answer that are run; the rest are answered "not executed".
    pub max_tool_calls_per_answer: usize,
    /// Bytes of tool results over the whole run; calls after the budget is used up are not run.
    pub max_result_bytes: usize,
    /// Bytes of one LLM request body; a larger request is not sent and the run stops.
    pub max_request_bytes: usize,
}

impl Default for RunLimits {
    fn default() -> Self {
        RunLimits {
            max_tool_calls_per_answer: 16,
            max_result_bytes: 8 << 20,
            max_request_bytes: 16 << 20,
        }
    }
}
/// Completion reserve when the provider config names none.
pub const DEFAULT_COMPLETION_RESERVE: u32 = 1024;

/// Everything one `run_chat` needs besides the history, the question and the host.
#[derive(Debug, Clone)]
pub struct ChatConfig {
    pub provider: ProviderConfig,
    /// System prompts, in order (the tool-use strategy belongs here). Sent fresh on every run;
    /// system messages in the passed history are dropped.
    pub system_prompts: Vec<String>,
    /// Tool choice for the first request. `Required` and `Function(_)` switch to `Auto` after
    /// the first request (otherwise the model could never give a final answer).
    pub tool_choice: ToolChoice,
    /// LLM requests per run (default 10, clamped to 1..=[`MAX_ITERATIONS_HARD_CAP`]).
    pub max_iterations: u32,
    /// Budget of prompt + completion tokens over the whole run (summaries included).
    pub max_total_tokens: Option<u64>,
    /// Timeouts, size cap, retry policy for every LLM request.
    pub http: Options,
    /// The execution plan's effect on the run (pre-step tool results, tool subset, ask).
    pub plan: crate::PlanRun,
    /// Time budget of the whole run, every LLM request and retry included.
    pub deadline: Option<std::time::Duration>,
    /// Bounds on tool calls per answer, tool-result bytes per run and request size.
    pub limits: RunLimits,
    /// The run continues a session after approvals: an empty question adds no user message
    /// (the decided calls' answers are the new input).
    pub continuation: bool,
}

impl ChatConfig {
    pub fn new(provider: ProviderConfig) -> Self {
        ChatConfig {
            provider,
            system_prompts: Vec::new(),
            tool_choice: ToolChoice::Auto,
            max_iterations: DEFAULT_MAX_ITERATIONS,
            max_total_tokens: None,
            http: Options::default(),
            plan: crate::PlanRun::default(),
            deadline: None,
            limits: RunLimits::default(),
            continuation: false,
        }
    }

    /// The iteration cap actually applied.
    pub fn effective_max_iterations(&self) -> u32 {
        self.max_iterations.clamp(1, MAX_ITERATIONS_HARD_CAP)
    }
}
