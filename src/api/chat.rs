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
