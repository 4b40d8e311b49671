//! Governance on the SQL surface: `mcp.approve`, `mcp.reject`, `mcp.approval_digest` (the work:
//! [`crate::chat::approval`]; the schema: sql/governance.sql).

use crate::chat::approval;
use crate::error::required;
use crate::jsonb::JsonbStored;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::{JsonB, Uuid};

// The roles, row-level security, the embedding models' gate and the approval table: after every
// install file whose objects it grants on, and after the functions below.
pgrx::extension_sql_file!(
    "../../sql/governance.sql",
    name = "governance",
    requires = [
        "bootstrap",
        "views",
        "plans",
        "retrieval",
        "plan_embedding",
        "mcp_server",
        "mcp_content",
        "mcp_oauth",
        "audit",
        "text_search",
        api::audit::audit_status,
        approve,
        reject,
        approve_by_id,
        reject_by_id,
        approval_digest,
        budget_usage
    ]
);

/// Approve a pending tool call (members of mcp_approver only).
#[pg_extern(name = "approve", volatile)]
fn approve(run_id: Option<Uuid>, call_id: Option<&str>) -> Result<JsonB, ErrorReport> {
    let run_id = required(run_id, "approve", "run_id")?;
    let call_id = required(call_id, "approve", "call_id")?;
    Ok(JsonB(approval::decide(
        approval::Key::Call(run_id, call_id),
        true,
        None,
    )?))
}

/// Reject a pending tool call; the reason goes back to the model.
#[pg_extern(name = "reject", volatile)]
fn reject(
    run_id: Option<Uuid>,
    call_id: Option<&str>,
    reason: Option<&str>,
) -> Result<JsonB, ErrorReport> {
    let run_id = required(run_id, "reject", "run_id")?;
    let call_id = required(call_id, "reject", "call_id")?;
    Ok(JsonB(approval::decide(
        approval::Key::Call(run_id, call_id),
        false,
        reason,
    )?))
}

/// Approve a pending call by its approval id: a direct MCP `tools/call`, or a run's call.
#[pg_extern(name = "approve", volatile)]
fn approve_by_id(approval_id: Option<Uuid>) -> Result<JsonB, ErrorReport> {
    let id = required(approval_id, "approve", "approval_id")?;
    Ok(JsonB(approval::decide(approval::Key::Id(id), true, None)?))
}

/// Reject a pending call by its approval id; the reason is shown to the client or the model.
#[pg_extern(name = "reject", volatile)]
fn reject_by_id(approval_id: Option<Uuid>, reason: Option<&str>) -> Result<JsonB, ErrorReport> {
    let id = required(approval_id, "reject", "approval_id")?;
    Ok(JsonB(approval::decide(
        approval::Key::Id(id),
        false,
        reason,
    )?))
}

/// The digest `mcp.approval` records for a call of `tool` with `arguments`.
#[pg_extern(name = "approval_digest", immutable, strict, parallel_safe)]
fn approval_digest(tool: &str, arguments: JsonbStored) -> Result<String, ErrorReport> {
    let v = arguments.value("arguments")?;
    Ok(approval::digest(tool, &mcp_audit::canonical_json(&v)))
}

/// `mcp.budget_usage()`: the budget counters since the server started (mcp_auditor).
#[pg_extern(name = "budget_usage", volatile)]
fn budget_usage() -> TableIterator<
    'static,
    (
        name!(scope, String),
        name!(name, String),
        name!(tokens_today, i64),
        name!(cost_today, f64),
        name!(requests_this_minute, i64),
    ),
> {
    pgrx::iter::TableIterator::new(crate::chat::budget::usage())
}
