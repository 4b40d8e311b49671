//! Approvals bound to the exact call (`mcp.approval`, sql/governance.sql).
//!
//! A chat's call of a tool that requires approval is validated, then stored with its canonical
//! arguments and the digest of (tool, arguments) instead of being run ([`request`]); the run
//! stops with `awaiting_approval`. [`decide`] (`mcp.approve` / `mcp.reject`) records who decided,
//! when, and for which digest. The next `mcp.chat` of the session ([`carry_out`]) runs each
//! approved call as the calling role, which is the run's own role (a session belongs to the role
//! that started it), with the stored arguments, never with what the session's history says by
//! then; rejected and expired calls go back to the model as tool errors.

use crate::error::{McpError, McpResult};
use crate::gucs;
use crate::pg::{as_extension_owner, write_kept};
use crate::tools::audit::CallRecord;
use crate::tools::{self, CallRequest, ToolRow};
use mcp_chat::{Message, ToolCall, ToolCallStatus};
use pgrx::prelude::*;
use pgrx::{JsonB, Uuid};
use serde_json::{json, Value};

/// The approver role that ships with the extension.
const APPROVER_ROLE: &std::ffi::CStr = c"mcp_approver";

/// Hex SHA-256 of the tool name, a NUL byte and the canonical JSON text of the arguments.
pub fn digest(tool: &str, canonical_arguments: &str) -> String {
    let mut bytes = Vec::with_capacity(tool.len() + 1 + canonical_arguments.len());
    bytes.extend_from_slice(tool.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(canonical_arguments.as_bytes());
    mcp_audit::sha256_hex(&bytes)
}

fn spi(e: pgrx::spi::SpiError) -> McpError {
    McpError::from(e)
}

/// Record a call that waits for a decision. `None` when its arguments do not validate: then
/// the pipeline answers it as invalid (a correction for the model), nothing waits.
pub fn request(
    session: Uuid,
    run_id: Uuid,
    interface: &str,
    row: &ToolRow,
    call: &ToolCall,
    position: usize,
) -> McpResult<Option<Value>> {
    if !tools::validate_against(&row.name, &row.parameters, &call.arguments).is_empty() {
        return Ok(None);
    }
    let arguments = mcp_audit::canonical_json(&call.arguments);
    let digest = digest(&row.name, &arguments);
    let role = tools::calling_role();
    let ttl = gucs::APPROVAL_TIMEOUT_S.get().max(1);
    let pending = as_extension_owner(|| {
        write_kept::<JsonB>(
            "INSERT INTO mcp.approval (run_id, tool_call_id, session_id, interface, role_name, tool,
                                       arguments, digest, position, requested_at, expires_at)
             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9,
                    t.now, t.now OPERATOR(pg_catalog.+) pg_catalog.make_interval(secs => $10)
               FROM (SELECT pg_catalog.clock_timestamp() AS now) t
             RETURNING pg_catalog.jsonb_build_object('call_id', tool_call_id, 'tool', tool,
                       'arguments', arguments::jsonb, 'digest', digest, 'expires_at', expires_at)",
            &[
                run_id.into(),
                call.id.as_str().into(),
                session.into(),
                interface.into(),
                role.as_str().into(),
                row.name.as_str().into(),
                arguments.as_str().into(),
                digest.as_str().into(),
                (position as i32).into(),
                f64::from(ttl).into(),
            ],
        )
    })
    .map_err(spi)?;
    Ok(pending.map(|j| j.0))
}

/// Which pending call a decision is about.
#[derive(Clone, Copy)]
pub enum Key<'a> {
    /// A chat run's call: `mcp.approve(run_id, call_id)`.
    Call(Uuid, &'a str),
    /// Any approval by its id (a direct MCP call's, or a run's): `mcp.approve(approval_id)`.
    Id(Uuid),
}

impl Key<'_> {
    fn describe(&self) -> String {
        match self {
            Key::Call(run_id, call_id) => format!(
                "tool call \"{}\" of run {run_id}",
                call_id.chars().take(64).collect::<String>()
            ),
            Key::Id(id) => format!("approval {id}"),
        }
    }
}

const LOCK_SQL: &str = "SELECT pg_catalog.jsonb_build_object('id', a.approval_id, 'owner', a.role_name, 'status', a.status,
                    'expired', a.expires_at OPERATOR(pg_catalog.<) pg_catalog.clock_timestamp(),
                    'self_ok', COALESCE(i.allow_self_approval, false))
               FROM mcp.approval a LEFT JOIN mcp.interface i ON i.name OPERATOR(pg_catalog.=) a.interface";

/// `mcp.approve` / `mcp.reject`: decide one pending call.
pub fn decide(key: Key<'_>, approve: bool, reason: Option<&str>) -> McpResult<Value> {
    let me = unsafe { pg_sys::GetUserId() };
    let session_user = unsafe { pg_sys::GetSessionUserId() };
    let approver = unsafe { pg_sys::get_role_oid(APPROVER_ROLE.as_ptr(), true) };
    // EXECUTE is granted to mcp_approver only; this holds even if it was granted wider.
    if approver == pg_sys::Oid::INVALID || !unsafe { pg_sys::has_privs_of_role(me, approver) } {
        return Err(McpError::Privilege(
            "permission denied to decide tool calls: only members of mcp_approver may".into(),
        ));
    }
    let verb = if approve { "approve" } else { "reject" };
    // FOR UPDATE: through the writing path (a read-only SPI statement may not lock rows).
    let row = as_extension_owner(|| match key {
        Key::Call(run_id, call_id) => write_kept::<JsonB>(
            &format!(
                "{LOCK_SQL} WHERE a.run_id OPERATOR(pg_catalog.=) $1 AND a.tool_call_id OPERATOR(pg_catalog.=) $2 FOR UPDATE OF a"
            ),
            &[run_id.into(), call_id.into()],
        ),
        Key::Id(id) => write_kept::<JsonB>(
            &format!("{LOCK_SQL} WHERE a.approval_id OPERATOR(pg_catalog.=) $1 FOR UPDATE OF a"),
            &[id.into()],
        ),
    })
    .map_err(spi)?
    .map(|j| {
        let v = j.0;
        (
            v["id"].as_str().unwrap_or_default().to_string(),
            v["owner"].as_str().unwrap_or_default().to_string(),
            v["status"].as_str().unwrap_or_default().to_string(),
            v["expired"].as_bool().unwrap_or(true),
            v["self_ok"].as_bool().unwrap_or(false),
        )
    });
    let what = key.describe();
    let Some((id, owner, status, expired, self_ok)) = row else {
        return Err(McpError::UndefinedObject(match key {
            Key::Call(run_id, call_id) => format!(
                "no tool call \"{}\" waits for a decision in run {run_id}",
                call_id.chars().take(64).collect::<String>()
            ),
            Key::Id(id) => format!("no approval {id} waits for a decision"),
        }));
    };
    if !self_ok {
        // Its own run: the role in use is the run's role or a member of it (SET ROLE from a
        // member), or the session logged in as the run's role or as a role that has its
        // privileges (an inheriting login: the person behind the run). A NOINHERIT login that
        // may SET ROLE to the run's role, such as the bridge's authenticator acting for many
        // people, is not that person: the role it uses decides (it is `me`). Superuser rights
        // do not count as membership here. A direct call's requesting role counts the same.
        let owner_oid = std::ffi::CString::new(owner.as_str())
            .map(|n| unsafe { pg_sys::get_role_oid(n.as_ptr(), true) })
            .unwrap_or(pg_sys::Oid::INVALID);
        let own = owner_oid != pg_sys::Oid::INVALID
            && unsafe {
                pg_sys::is_member_of_role_nosuper(me, owner_oid)
                    || session_user == owner_oid
                    || (!pg_sys::superuser_arg(session_user)
                        && pg_sys::has_privs_of_role(session_user, owner_oid))
            };
        if own {
            return Err(McpError::Privilege(format!(
                "permission denied to {verb} a tool call of your own run or request (interface does not allow self-approval)"
            ))
            .with_hint("Another member of mcp_approver must decide, or the interface must set allow_self_approval."));
        }
    }
    if status != "pending" {
        return Err(McpError::NotReady(format!("{what} is already {status}")));
    }
    if expired {
        return Err(McpError::NotReady(format!(
            "{what} expired before a decision (mcp.approval_timeout)"
        )));
    }
    let id = Uuid::from_slice(uuid_bytes(&id).as_slice())
        .map_err(|e| McpError::Internal(format!("approval id: {e}")))?;
    let me_name = tools::calling_role();
    let decided = as_extension_owner(|| {
        write_kept::<JsonB>(
            "UPDATE mcp.approval
                SET status = $2, decided_by = $3, decided_at = pg_catalog.clock_timestamp(), reason = $4
              WHERE approval_id OPERATOR(pg_catalog.=) $1
              RETURNING pg_catalog.jsonb_build_object('approval_id', approval_id, 'run_id', run_id,
                        'call_id', tool_call_id, 'tool', tool, 'arguments', arguments::jsonb, 'digest', digest,
                        'status', status, 'decided_by', decided_by, 'decided_at', decided_at, 'reason', reason)",
            &[
                id.into(),
                (if approve { "approved" } else { "rejected" }).into(),
                me_name.as_str().into(),
                reason.map(|r| r.chars().take(2000).collect::<String>()).into(),
            ],
        )
    })
    .map_err(spi)?;
    decided
        .map(|j| j.0)
        .ok_or_else(|| McpError::Internal("the decided approval row vanished".into()))
}

/// The 16 bytes of a UUID in its text form (hex digits, hyphens ignored).
pub(crate) fn uuid_bytes(text: &str) -> Vec<u8> {
    let hex: Vec<u8> = text.bytes().filter(u8::is_ascii_hexdigit).collect();
    hex.chunks(2)
        .filter_map(|p| u8::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok())
        .collect()
}

/// What the decisions of a session bring into the next run.
pub struct Continuation {
    /// Tool answers of the decided calls, in the order of the model's answer.
    pub messages: Vec<Message>,
    /// Calls still waiting (no decision yet, not expired): the run stops again.
    pub waiting: Vec<Value>,
    /// Decided calls this run carried out that ran, and that were not run (rejected, expired,
    /// altered): the run's tool_calls and rejected_tool_calls count them.
    pub ran: u32,
    pub refused: u32,
}

struct Waiting {
    run_id: Uuid,
    call_id: String,
    interface: String,
    tool: String,
    arguments: String,
    digest: String,
    status: String,
    expired: bool,
    decided_by: Option<String>,
    reason: Option<String>,
    expires_at: Option<String>,
}

/// Carry out the decided calls of `session` in run `run_id` (the continuing run), as the
/// calling role `role`. Locks the rows, so two continuations never run one call twice.
pub fn carry_out(session: Uuid, role: &str, run_id: Uuid) -> McpResult<Continuation> {
    // Locked (FOR UPDATE, through the writing path), so two continuations never run one call
    // twice: the second waits, then finds continued_by set.
    let rows = as_extension_owner(|| {
        write_kept::<JsonB>(
            "SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('run_id', run_id, 'call_id', tool_call_id,
                    'interface', interface, 'tool', tool, 'arguments', arguments, 'digest', digest,
                    'status', status, 'expired', expires_at OPERATOR(pg_catalog.<) pg_catalog.clock_timestamp(),
                    'decided_by', decided_by, 'reason', reason, 'expires_at', expires_at) ORDER BY requested_at, position)
               FROM (SELECT * FROM mcp.approval
                      WHERE session_id OPERATOR(pg_catalog.=) $1 AND role_name OPERATOR(pg_catalog.=) $2
                        AND continued_by IS NULL
                        FOR UPDATE) a",
            &[session.into(), role.into()],
        )
    })
    .map_err(spi)?;
    let s = |v: &Value, k: &str| v[k].as_str().unwrap_or_default().to_string();
    let rows: Vec<Waiting> = match rows.map(|j| j.0) {
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| Waiting {
                run_id: Uuid::from_slice(
                    uuid_bytes(v["run_id"].as_str().unwrap_or_default()).as_slice(),
                )
                .unwrap_or(Uuid::from_bytes([0; 16])),
                call_id: s(v, "call_id"),
                interface: s(v, "interface"),
                tool: s(v, "tool"),
                arguments: s(v, "arguments"),
                digest: s(v, "digest"),
                status: s(v, "status"),
                expired: v["expired"].as_bool().unwrap_or(true),
                decided_by: v["decided_by"].as_str().map(str::to_string),
                reason: v["reason"].as_str().map(str::to_string),
                expires_at: v["expires_at"].as_str().map(str::to_string),
            })
            .collect(),
        _ => Vec::new(),
    };
    let mut out = Continuation {
        messages: Vec::new(),
        waiting: Vec::new(),
        ran: 0,
        refused: 0,
    };
    // A call still waiting holds the whole batch: nothing of it is carried out yet.
    for w in &rows {
        if w.status == "pending" && !w.expired {
            let arguments: Value = serde_json::from_str(&w.arguments).unwrap_or(Value::Null);
            out.waiting.push(json!({"run_id": w.run_id.to_string(), "call_id": w.call_id,
                "tool": w.tool, "arguments": arguments, "digest": w.digest, "expires_at": w.expires_at}));
        }
    }
    if !out.waiting.is_empty() {
        return Ok(out);
    }
    for w in rows {
        // The row must still hold what was decided on: arguments altered after the request
        // (whoever could write mcp.approval) no longer match the digest, and are not run.
        let intact = digest(&w.tool, &w.arguments) == w.digest;
        let (status, text) = match w.status.as_str() {
            "approved" if !intact => (
                Some((ToolCallStatus::Denied, "approved arguments changed after the request")),
                "Tool call not run: its stored arguments no longer match the digest that was approved."
                    .to_string(),
            ),
            "approved" => {
                let arguments: Value = serde_json::from_str(&w.arguments).map_err(|e| {
                    McpError::Internal(format!("stored approval arguments: {e}"))
                })?;
                // Authorized again now (the admin may have disabled the tool since), as the
                // calling role, with exactly the approved arguments.
                let (outcome, _) = tools::call(&CallRequest {
                    tool: &w.tool,
                    arguments: &arguments,
                    interface: &w.interface,
                    run_id: Some(run_id),
                    tool_call_id: Some(&w.call_id),
                    arguments_raw: Some(&w.arguments),
                    authorized: None,
                    check_result: None,
                })?;
                if outcome.status.ran() {
                    out.ran += 1;
                } else {
                    out.refused += 1;
                }
                (None, outcome.text)
            }
            "rejected" => (
                Some((ToolCallStatus::Denied, "rejected by an approver")),
                format!(
                    "Tool call rejected by {}: {}. It was not run; do not call it again with the same arguments.",
                    w.decided_by.as_deref().unwrap_or("an approver"),
                    w.reason.as_deref().unwrap_or("no reason given")
                ),
            ),
            _ => (
                Some((ToolCallStatus::Skipped, "no approval before it expired")),
                "Tool call not run: nobody approved it in time (the approval expired).".to_string(),
            ),
        };
        if let Some((status, reason)) = status {
            out.refused += 1;
            tools::audit::record(&CallRecord {
                call_id: None,
                run_id: Some(run_id),
                tool_call_id: Some(w.call_id.clone()),
                tool: w.tool.clone(),
                interface: w.interface.clone(),
                arguments_raw: Some(w.arguments.clone()),
                arguments: serde_json::from_str(&w.arguments).ok(),
                validation_errors: None,
                status,
                result_text: Some(text.clone()),
                latency_ms: 0.0,
                error: None,
                reason: Some(reason.to_string()),
            })?;
        }
        as_extension_owner(|| {
            write_kept::<bool>(
                "UPDATE mcp.approval
                    SET continued_by = $3, continued_at = pg_catalog.clock_timestamp(),
                        status = CASE WHEN status OPERATOR(pg_catalog.=) 'pending' THEN 'expired' ELSE status END
                  WHERE run_id OPERATOR(pg_catalog.=) $1 AND tool_call_id OPERATOR(pg_catalog.=) $2",
                &[w.run_id.into(), w.call_id.as_str().into(), run_id.into()],
            )
        })
        .map_err(spi)?;
        out.messages
            .push(Message::tool_result(w.call_id, w.tool, text));
    }
    Ok(out)
}
