//! `mcp.repair_json`, `mcp.repair_json_report`, `mcp.parse_llm_response` (with and without the
//! offered `tools`): repairing and parsing
//! what LLMs send, on the SQL surface (the work is `mcp_repair` and `mcp_llm`).

use crate::error::McpError;
use crate::jsonb::JsonbArg;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::{json, Value};

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

/// `mcp.parse_llm_response(raw, tools)`: the same, knowing the tools the request offered (a
/// `tools` array of any dialect — OpenAI, Anthropic, MCP `inputSchema` — or an object holding
/// one, such as the request body or a `tools/list` result). Tool calls the model wrote as text
/// are then checked against them: a call of a tool not offered is incomplete, XML-style
/// parameter values are typed by the tool's schema, and the marker-less forms (Llama 3 bare
/// JSON, pythonic lists) are recognized. This is the parse the chat loop runs. `tools` NULL is
/// the one-argument form; `raw` NULL gives NULL.
#[pg_extern(name = "parse_llm_response", immutable, parallel_safe)]
fn parse_llm_response_with_tools(
    raw: Option<&str>,
    tools: Option<JsonbArg>,
) -> Result<Option<JsonB>, ErrorReport> {
    let Some(raw) = raw else {
        return Ok(None);
    };
    let tools = match tools {
        None => None,
        Some(t) => Some(offered_tools(t.value("tools")?)?),
    };
    Ok(Some(JsonB(
        mcp_llm::parse_llm_response_with_tools(raw, tools.as_deref()).to_json(),
    )))
}

/// The tools of a `tools` argument: an array, or an object with a `tools` array.
fn offered_tools(v: Value) -> Result<Vec<mcp_llm::ToolDef>, McpError> {
    let items = match &v {
        Value::Array(a) => a,
        Value::Object(o) => match o.get("tools") {
            Some(Value::Array(a)) => a,
            _ => {
                return Err(McpError::InvalidParameter(
                    "tools must be a JSON array of tools or an object with a \"tools\" array"
                        .into(),
                ))
            }
        },
        _ => {
            return Err(McpError::InvalidParameter(
                "tools must be a JSON array of tools or an object with a \"tools\" array".into(),
            ))
        }
    };
    Ok(items
        .iter()
        .filter_map(mcp_llm::ToolDef::from_value)
        .collect())
}
