//! mcp_llm — typed LLM chat messages, the provider dialects (OpenAI-compatible and Azure,
//! Anthropic, replay: [`provider`]), response normalization with repair, provider error
//! normalization, context budgeting. Pure Rust, no pgrx.

mod budget;
mod error;
pub mod provider;
mod response;
mod streams;
mod text_calls;
mod types;

pub use budget::*;
pub use error::{normalize_error, normalize_error_with_headers, ErrorKind, ProviderError, MAX_MESSAGE_CHARS};
pub use mcp_repair::{guard, Fix};
pub use provider::anthropic::{anthropic_body, ANTHROPIC_DEFAULT_MAX_TOKENS, ANTHROPIC_VERSION};
pub use provider::openai::{openai_body, retry_after_from_headers, DEFAULT_AZURE_API_VERSION};
pub use provider::{Dialect, ProviderConfig, ProviderKind};
pub use response::{
    parse_chat_response, parse_chat_response_with_tools, parse_llm_response, parse_llm_response_with_tools,
    parse_llm_value, FinishReason, LlmResponse, ParsedToolCall,
};
pub use text_calls::{extract_text_calls, TextCalls};
pub use types::{ChatRequest, Message, Role, ToolCall, ToolChoice, ToolDef, Usage};
