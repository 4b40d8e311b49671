//! `mcp.repair_json`, `mcp.repair_json_report`, `mcp.parse_llm_response`: the repair engine on
//! the SQL surface; and the hooks that let the pure engines honour cancel and the stack limit.

use crate::error::McpError;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::json;

/// Install the engines' host hooks for this backend (see `mcp_repair::guard`): every ~256K units
/// of work the repair engine, the response parser and the token counter run
/// `CHECK_FOR_INTERRUPTS()` (a cancel or terminate raises its ERROR there and unwinds the
/// computation), and at every nesting level they ask PostgreSQL's `stack_is_too_deep()` (the
/// `max_stack_depth` check) before recursing further.
pub fn install_engine_hooks() {
    mcp_repair::guard::install(mcp_repair::guard::Hooks {
        interrupt: check_for_interrupts,
        stack_exhausted: stack_is_too_deep,
    });
}

fn check_for_interrupts() {
    pg_sys::check_for_interrupts!();
}

fn stack_is_too_deep() -> bool {
    // SAFETY: reads the backend's stack base and the max_stack_depth setting; no ERROR
    unsafe { pg_sys::stack_is_too_deep() }
}

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
