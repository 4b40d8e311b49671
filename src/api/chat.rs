//! `mcp.chat`: one user turn through the agent loop ([`crate::chat`]).

use crate::error::required;
use crate::jsonb::JsonbArg;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::{JsonB, Uuid};
use serde_json::json;

/// `mcp.chat`: one user turn through the agent loop.
#[pg_extern(name = "chat", volatile)]
fn chat(
    question: Option<&str>,
    interface: default!(Option<&str>, "'chatbot'"),
    session: default!(Option<Uuid>, "NULL"),
    options: default!(Option<JsonbArg>, "'{}'"),
) -> Result<JsonB, ErrorReport> {
    // A tool cannot start a chat (it would spend the provider's key outside the interface
    // mapping and the audit): refused whichever way it is reached (crate::sandbox).
    crate::sandbox::refuse_nested("mcp.chat")?;
    refuse_on_standby()?;
    let question = required(question, "chat", "question")?;
    let interface = required(interface, "chat", "interface")?;
    let options = match options {
        Some(o) => o.value("options")?,
        None => json!({}),
    };
    Ok(JsonB(crate::chat::chat(
        question, interface, session, &options,
    )?))
}

/// On a hot standby nothing can write a chat's audit (`mcp.run`, `mcp.llm_request`,
/// `mcp.tool_call`, `mcp.message`): every transaction is read-only and the durable audit worker
/// runs on the primary only. So a chat is refused there (25006) before any LLM request, instead
/// of a run whose audit would be lost.
fn refuse_on_standby() -> Result<(), crate::error::McpError> {
    if !unsafe { pg_sys::RecoveryInProgress() } {
        return Ok(());
    }
    Err(crate::error::McpError::ReadOnly(
        "mcp.chat cannot run on a standby: its audit (mcp.run, mcp.llm_request, mcp.tool_call) can only be written on the primary".into(),
    )
    .with_hint("Run mcp.chat on the primary. On a standby, mcp.list_tools, mcp.call_tool of read-only tools (with mcp.audit_read_only_calls = log), mcp.search, mcp.analyze and mcp.handle's read methods work."))
}
