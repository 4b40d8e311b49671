//! Replay: no HTTP. The answers are recorded raw response bodies of any dialect, served in
//! order by the chat's replay transport (`mcp_chat`); the request is still built (as chat
//! completions) so the audit shows what would have been sent. Deterministic: tests, demos and
//! the SQL goldens use it.

use super::{Dialect, ProviderConfig};
use crate::types::ChatRequest;
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
}
