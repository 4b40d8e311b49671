//! Approvals of direct MCP `tools/call`s (no chat run): a call of a tool that requires approval
//! is recorded in `mcp.approval` (`run_id` NULL) and answered with a URL-mode elicitation that
//! points to the console's approval page (shapes: `mcp_protocol::approval`). The client's
//! retry of the same call runs it only once a person allowed to decide approved it
//! (`mcp.approve(approval_id)`, from the console or SQL): what the client answers to the
//! elicitation is never taken as the approval.
//!
//! The open approval of a call is found again by who asked for exactly what: the requesting
//! role, the interface, the tool and the digest of (tool, canonical arguments). Changed
//! arguments are another call and ask anew. An approval is used once: its `continued_at` is set
//! when the call it approved completes (or its refusal is reported); a call that asks the
//! client for input keeps it open for its next round.

use crate::chat::approval::{self, uuid_bytes};
use crate::error::{McpError, McpResult};
use crate::gucs;
use crate::pg::{as_extension_owner, write_kept};
use crate::tools::audit::CallRecord;
use crate::tools::{self, ToolRow};
use mcp_chat::ToolCallStatus;
use pgrx::{JsonB, Uuid};
use serde_json::Value;

/// The canonical arguments of a call that waits are stored whole; above this they are refused
/// (nobody can review them, and the row must stay small).
pub const MAX_ARGUMENTS_BYTES: usize = 256 * 1024;

/// What the pipeline does with a call of a tool that requires approval.
pub enum Gate {
    /// Arguments that do not validate: the pipeline answers them as invalid (nothing waits,
    /// nothing runs).
    Validate,
    /// Approved: run with these stored arguments; the audit row's `tool_call_id` is the
    /// approval's id, and [`used`] closes the approval once the call completes.
    Run {
        approval_id: Uuid,
        arguments_raw: String,
        arguments: Value,
    },
    /// Pending (new or already asked): the client must send its user to the approval page.
    Pending {
        approval_id: String,
        expires_at: String,
    },
    /// Not run: rejected, expired, altered or too large; the text is the tool error the client
    /// gets (audited).
    Refused(String),
}

fn spi(e: pgrx::spi::SpiError) -> McpError {
    McpError::from(e)
}

// (one audit row's fields, named at the call sites)
#[allow(clippy::too_many_arguments)]
fn audit_refusal(
    row: &ToolRow,
    interface: &str,
    approval_id: Option<&str>,
    canonical: &str,
    arguments: &Value,
    status: ToolCallStatus,
    text: &str,
    reason: &str,
) -> McpResult<()> {
    tools::audit::record(&CallRecord {
        call_id: None,
        run_id: None,
        tool_call_id: approval_id.map(str::to_string),
        tool: row.name.clone(),
        interface: interface.to_string(),
        arguments_raw: Some(canonical.to_string()),
        arguments: Some(arguments.clone()),
        validation_errors: None,
        status,
        result_text: Some(text.to_string()),
        latency_ms: 0.0,
        error: None,
        reason: Some(reason.to_string()),
    })
    .map(|_| ())
}

/// Close a direct approval: its call completed (or its refusal was reported).
pub fn used(approval_id: Uuid) -> McpResult<()> {
    as_extension_owner(|| {
        write_kept::<bool>(
            "UPDATE mcp.approval SET continued_at = pg_catalog.clock_timestamp(),
                    status = CASE WHEN status OPERATOR(pg_catalog.=) 'pending' THEN 'expired' ELSE status END
              WHERE approval_id OPERATOR(pg_catalog.=) $1 AND run_id IS NULL
              RETURNING true",
            &[approval_id.into()],
        )
    })
    .map_err(spi)?;
    Ok(())
}

/// Decide what a direct call of `row` (which requires approval) with `arguments` does now.
/// `request_id` is the JSON-RPC id of the request, stored with a new approval.
pub fn gate(
    row: &ToolRow,
    arguments: &Value,
    interface: &str,
    request_id: &Value,
) -> McpResult<Gate> {
    if !tools::validate_against(&row.name, &row.parameters, arguments).is_empty() {
        return Ok(Gate::Validate);
    }
    let canonical = mcp_audit::canonical_json(arguments);
    if canonical.len() > MAX_ARGUMENTS_BYTES {
        let text = format!(
            "Tool '{}' needs a person's approval, and its arguments are too large to be reviewed ({} bytes of canonical JSON; at most {MAX_ARGUMENTS_BYTES}).",
            row.name,
            canonical.len()
        );
        // (the audit row of a denied call keeps 256 bytes of each value, with size and digest)
        audit_refusal(
            row,
            interface,
            None,
            &canonical,
            arguments,
            ToolCallStatus::Denied,
            &text,
            "arguments too large for an approval",
        )?;
        return Ok(Gate::Refused(text));
    }
    let digest = approval::digest(&row.name, &canonical);
    let role = tools::calling_role();
    // The newest open approval of exactly this call by this role, locked: two retries at once
    // never run one approval twice (the second finds it closed and asks anew).
    let open = as_extension_owner(|| {
        write_kept::<JsonB>(
            "SELECT pg_catalog.jsonb_build_object('id', approval_id, 'status', status,
                    'expired', expires_at OPERATOR(pg_catalog.<) pg_catalog.clock_timestamp(),
                    'expires_at', expires_at, 'decided_by', decided_by, 'reason', reason,
                    'tool', tool, 'arguments', arguments, 'digest', digest)
               FROM mcp.approval
              WHERE run_id IS NULL AND continued_at IS NULL
                AND role_name OPERATOR(pg_catalog.=) $1 AND interface OPERATOR(pg_catalog.=) $2
                AND tool OPERATOR(pg_catalog.=) $3 AND digest OPERATOR(pg_catalog.=) $4
              ORDER BY requested_at DESC LIMIT 1
                FOR UPDATE",
            &[
                role.as_str().into(),
                interface.into(),
                row.name.as_str().into(),
                digest.as_str().into(),
            ],
        )
    })
    .map_err(spi)?
    .map(|j| j.0);
    let Some(open) = open else {
        return request(row, interface, &role, &canonical, &digest, request_id);
    };
    let s = |k: &str| open[k].as_str().unwrap_or_default().to_string();
    let id_text = s("id");
    let id = Uuid::from_slice(uuid_bytes(&id_text).as_slice())
        .map_err(|e| McpError::Internal(format!("approval id: {e}")))?;
    let expired = open["expired"].as_bool().unwrap_or(true);
    let refuse = |status: ToolCallStatus, text: String, reason: &str| -> McpResult<Gate> {
        audit_refusal(
            row,
            interface,
            Some(&id_text),
            &canonical,
            arguments,
            status,
            &text,
            reason,
        )?;
        used(id)?;
        Ok(Gate::Refused(text))
    };
    match s("status").as_str() {
        "pending" if !expired => Ok(Gate::Pending {
            approval_id: id_text.clone(),
            expires_at: s("expires_at"),
        }),
        "approved" if expired => refuse(
            ToolCallStatus::Skipped,
            format!("Tool call not run: approval {id_text} was given, but the call was not retried before it expired ({}). Call again to ask for a new approval.", s("expires_at")),
            "approval expired before the retry",
        ),
        // the row must still hold what was decided on (whoever could write mcp.approval)
        "approved" if approval::digest(&s("tool"), &s("arguments")) != s("digest") => refuse(
            ToolCallStatus::Denied,
            format!("Tool call not run: the stored arguments of approval {id_text} no longer match the digest that was approved."),
            "approved arguments changed after the request",
        ),
        "approved" => {
            let raw = s("arguments");
            let stored: Value = serde_json::from_str(&raw)
                .map_err(|e| McpError::Internal(format!("stored approval arguments: {e}")))?;
            Ok(Gate::Run {
                approval_id: id,
                arguments_raw: raw,
                arguments: stored,
            })
        }
        "rejected" => refuse(
            ToolCallStatus::Denied,
            format!(
                "Tool call rejected by {}: {}. It was not run; do not call it again with the same arguments.",
                open["decided_by"].as_str().unwrap_or("an approver"),
                open["reason"].as_str().unwrap_or("no reason given")
            ),
            "rejected by an approver",
        ),
        _ => refuse(
            ToolCallStatus::Skipped,
            format!("Tool call not run: nobody approved it in time (approval {id_text} expired at {}). Call again to ask for a new approval.", s("expires_at")),
            "no approval before it expired",
        ),
    }
}

/// Record a new pending approval of a direct call.
fn request(
    row: &ToolRow,
    interface: &str,
    role: &str,
    canonical: &str,
    digest: &str,
    request_id: &Value,
) -> McpResult<Gate> {
    let ttl = gucs::APPROVAL_TIMEOUT_S.get().max(1);
    let request_id: String = request_id.to_string().chars().take(200).collect();
    let (traceparent, _) = crate::trace_context::current();
    let id = as_extension_owner(|| {
        write_kept::<JsonB>(
            "INSERT INTO mcp.approval (approval_id, tool_call_id, interface, role_name, tool, arguments,
                                       digest, requested_at, expires_at, request_id, traceparent)
             SELECT t.id, t.id::text, $1, $2, $3, $4, $5,
                    t.now, t.now OPERATOR(pg_catalog.+) pg_catalog.make_interval(secs => $6), $7, $8
               FROM (SELECT pg_catalog.gen_random_uuid() AS id, pg_catalog.clock_timestamp() AS now) t
             RETURNING pg_catalog.jsonb_build_object('id', approval_id, 'expires_at', expires_at)",
            &[
                interface.into(),
                role.into(),
                row.name.as_str().into(),
                canonical.into(),
                digest.into(),
                f64::from(ttl).into(),
                request_id.as_str().into(),
                traceparent.into(),
            ],
        )
    })
    .map_err(spi)?
    .map(|j| j.0)
    .ok_or_else(|| McpError::Internal("the new approval row is missing".into()))?;
    Ok(Gate::Pending {
        approval_id: id["id"].as_str().unwrap_or_default().to_string(),
        expires_at: id["expires_at"].as_str().unwrap_or_default().to_string(),
    })
}

/// The tool error a client gets when no URL can be sent to it (no console URL is configured,
/// or a 2026-07-28 client did not declare URL-mode elicitation): where and how to approve.
pub fn pending_text(tool: &str, approval_id: &str, expires_at: &str, url: Option<&str>) -> String {
    let place = match url {
        Some(u) => format!("on the console ({u}) or "),
        None => String::new(),
    };
    format!(
        "Tool '{tool}' needs a person's approval before it runs: approval {approval_id} waits for a decision (until {expires_at}). Someone allowed to approve (mcp_approver) decides {place}with SELECT mcp.approve('{approval_id}'); then call again with the same arguments."
    )
}

/// The answer that sends the client's user to the approval page, by era, or `None` when the
/// client cannot be sent a URL (then [`pending_text`] as a tool error).
pub fn elicitation(
    tool: &str,
    approval_id: &str,
    modern_capabilities: Option<&serde_json::Map<String, Value>>,
    console_url: &str,
) -> Option<Result<Value, mcp_protocol::RpcError>> {
    use mcp_protocol::approval as a;
    let url = a::approval_url(console_url, approval_id)?;
    let message = a::message(tool);
    match modern_capabilities {
        Some(caps) if a::client_takes_url(caps) => Some(Ok(a::input_required(&url, &message))),
        Some(_) => None,
        None => Some(Err(a::url_elicitation_required(
            &url,
            approval_id,
            &message,
        ))),
    }
}

/// The URL of an approval's page, when a console URL is configured.
pub fn url_of(approval_id: &str, console_url: &str) -> Option<String> {
    mcp_protocol::approval::approval_url(console_url, approval_id)
}
