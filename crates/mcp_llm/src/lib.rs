//! mcp_llm — typed LLM chat messages (OpenAI-compatible, Azure, Anthropic), request bodies,
//! response normalization with repair, provider error normalization, context budgeting.
//! Pure Rust, no pgrx.

mod body;
mod budget;
mod error;
mod response;
mod types;

pub use body::{anthropic_body, openai_body, ANTHROPIC_DEFAULT_MAX_TOKENS};
pub use budget::*;
pub use error::{
    normalize_error, normalize_error_with_headers, parse_retry_after, parse_retry_after_at, retry_after_from_headers,
    scrub_secrets, ErrorKind, ProviderError, MAX_MESSAGE_CHARS,
};
pub use mcp_repair::{guard, Fix};
pub use response::{parse_llm_response, parse_llm_value, FinishReason, LlmResponse, ParsedToolCall};
pub use types::{ChatRequest, Message, Role, ToolCall, ToolChoice, ToolDef, Usage};
