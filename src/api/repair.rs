//! `mcp.repair_json`, `mcp.repair_json_report`, `mcp.parse_llm_response`: repairing and parsing
//! what LLMs send, on the SQL surface (the work is `mcp_repair` and `mcp_llm`).

use crate::error::McpError;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::json;

/// Parse `raw` as JSON, repairing typical LLM damage; unrepairable input raises 22P02.
/// U+0000 (which jsonb cannot hold) becomes U+FFFD.
#[pg_extern(name = "repair_json", immutable, parallel_safe, strict)]
fn repair_json(raw: &str) -> Result<JsonB, ErrorReport> {
    match mcp_repair::repair_jsonb(raw) {
        Ok(r) => Ok(JsonB(r.value)),
        Err(e) => Err(McpError::InvalidInput(format!(
            "cannot repair JSON: {} at position {}",
            e.message, e.position
        ))
        .into()),
    }
}

/// Like repair_json, but reports what was fixed and never raises for bad input.
#[pg_extern(name = "repair_json_report", immutable, parallel_safe, strict)]
fn repair_json_report(raw: &str) -> JsonB {
    JsonB(match mcp_repair::repair_jsonb(raw) {
        Ok(r) => json!({"value": r.value, "repaired": r.repaired(), "fixes": r.fixes}),
        Err(e) => json!({"value": null, "repaired": false, "fixes": [],
                         "error": {"message": e.message, "position": e.position}}),
    })
}

/// Parse an LLM HTTP response body (OpenAI-compatible, Azure, Mistral, Ollama, Anthropic, SSE
/// streams, provider error bodies) into one normalized shape, repairing it when needed.
#[pg_extern(name = "parse_llm_response", immutable, parallel_safe, strict)]
fn parse_llm_response(raw: &str) -> JsonB {
    JsonB(mcp_llm::parse_llm_response(raw).to_json())
}
