//! Asynchronous chat runs on the SQL surface: `mcp.chat_submit`, `mcp.chat_result`,
//! `mcp.chat_cancel` (the work: [`crate::async_runs`]; the schema: sql/async_runs.sql).

use crate::error::required;
use crate::jsonb::JsonbArg;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::{JsonB, Uuid};
use serde_json::json;

// The queue table, its grants and the functions' comments: after governance.sql (mcp_auditor)
// and after the functions below.
pgrx::extension_sql_file!(
    "../../sql/async_runs.sql",
    name = "async_runs",
    requires = ["governance", chat_submit, chat_result, chat_cancel]
);

/// `mcp.chat_submit`: queue one user turn for a chat worker; its run id.
#[pg_extern(name = "chat_submit", volatile)]
fn chat_submit(
    question: Option<&str>,
    interface: default!(Option<&str>, "'chatbot'"),
    session: default!(Option<Uuid>, "NULL"),
    options: default!(Option<JsonbArg>, "'{}'"),
) -> Result<Uuid, ErrorReport> {
    // As mcp.chat: a tool cannot start a chat.
    crate::sandbox::refuse_nested("mcp.chat_submit")?;
    let question = required(question, "chat_submit", "question")?;
    let interface = required(interface, "chat_submit", "interface")?;
    let options = match options {
        Some(o) => o.value("options")?,
        None => json!({}),
    };
    Ok(crate::async_runs::submit(
        question, interface, session, &options,
    )?)
}

/// `mcp.chat_result`: the run's result, or its open status after waiting up to `wait_ms`.
#[pg_extern(name = "chat_result", volatile)]
fn chat_result(
    run_id: Option<Uuid>,
    wait_ms: default!(Option<i32>, "0"),
) -> Result<JsonB, ErrorReport> {
    let run_id = required(run_id, "chat_result", "run_id")?;
    Ok(JsonB(crate::async_runs::result(
        run_id,
        wait_ms.unwrap_or(0),
    )?))
}

/// `mcp.chat_cancel`: stop a run; true when it was still open.
#[pg_extern(name = "chat_cancel", volatile)]
fn chat_cancel(run_id: Option<Uuid>) -> Result<bool, ErrorReport> {
    let run_id = required(run_id, "chat_cancel", "run_id")?;
    Ok(crate::async_runs::cancel(run_id)?)
}
