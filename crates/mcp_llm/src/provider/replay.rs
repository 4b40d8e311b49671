//! Replay: no HTTP. The answers are recorded raw response bodies of any dialect, served in
//! order by the chat's replay transport (`mcp_chat`); the request is still built (as chat
//! completions) so the audit shows what would have been sent. Deterministic: tests, demos and
//! the SQL goldens use it.

use super::dialect::{Dialect, ProviderConfig};
use crate::answer::LlmResponse;
use crate::types::{ChatRequest, ToolDef};
use serde_json::Value;

/// The replay pseudo-dialect.
pub struct Replay;

/// What the audit shows as the URL of a replayed exchange.
pub const REPLAY_URL: &str = "replay:";

impl Dialect for Replay {
    fn endpoint(&self, _p: &ProviderConfig) -> String {
        String::new()
    }

    fn auth_headers(&self, _p: &ProviderConfig, _key: Option<&str>) -> Vec<(String, String)> {
        Vec::new()
    }

    fn body(&self, req: &ChatRequest) -> Value {
        super::openai::openai_body(req)
    }

    fn check(&self, _p: &ProviderConfig) -> Result<(), String> {
        Ok(())
    }

    /// A recording may hold the answers of any dialect (it replays what another provider
    /// answered): the one dialect that recognizes the shape ([`crate::parse_chat_response`];
    /// streams are not read, as no chat requests one).
    fn parse(&self, raw: &str, tools: &[ToolDef]) -> LlmResponse {
        crate::response::parse_chat_response_with_tools(raw, Some(tools))
    }
}
