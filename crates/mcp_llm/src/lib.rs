//! mcp_llm — typed LLM chat messages, the provider dialects (OpenAI-compatible and Azure,
//! Anthropic, replay: [`provider`], each one file with its request body and its reading of
//! answers), response normalization with repair, provider error normalization, context
//! budgeting. Pure Rust, no pgrx.
//!
//! Modules, in the order they build on each other (imports run one way, no circles): `types`,
//! `error` → `answer` (the typed answer and what every reading shares) → `text_calls` →
//! `complete` (the last steps of every parse) → `provider` (the dialects) → `streams`,
//! `response` (reading a body of unknown dialect: `mcp.parse_llm_response`, replay).

mod answer;
mod budget;
mod complete;
mod error;
pub mod provider;
mod response;
mod streams;
mod text_calls;
mod types;

pub use answer::{FinishReason, LlmResponse, ParsedToolCall};
pub use budget::*;
pub use error::{normalize_error, ErrorKind, ProviderError, MAX_MESSAGE_CHARS};
pub use mcp_repair::{guard, Fix};
pub use provider::anthropic::{anthropic_body, ANTHROPIC_DEFAULT_MAX_TOKENS, ANTHROPIC_VERSION};
pub use provider::openai::{
    normalize_error_with_headers, openai_body, retry_after_from_headers, DEFAULT_AZURE_API_VERSION,
};
pub use provider::{Dialect, ProviderConfig, ProviderKind};
pub use response::{
    parse_chat_response, parse_chat_response_with_tools, parse_llm_response, parse_llm_response_with_tools,
    parse_llm_value,
};
pub use text_calls::{extract_text_calls, TextCalls};
pub use types::{ChatRequest, Message, Role, ToolCall, ToolChoice, ToolDef, Usage};
