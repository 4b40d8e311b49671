//! The audit of tool calls: `mcp.tool_call`, written in one place ([`record`]).
//!
//! `status` is [`ToolCallStatus`], pg_mcp's one status vocabulary for tool calls (defined in
//! `mcp_chat`, stored as is; the table's CHECK constraint lists the same five values).

use crate::audit::Record;
use crate::error::{McpError, McpResult};
use crate::pg::PgErrorInfo;
use mcp_audit::rows::ToolCallRow;
use mcp_audit::RowCuts;
use mcp_chat::ToolCallStatus;
use pgrx::prelude::*;
use serde_json::Value;

/// One audit row of `mcp.tool_call`.
pub struct CallRecord {
    /// Reserved id of this row (`None` → the next one from the sequence).
    pub call_id: Option<i64>,
    pub run_id: Option<pgrx::Uuid>,
    pub tool_call_id: Option<String>,
    pub tool: String,
    pub interface: String,
    pub arguments_raw: Option<String>,
    pub arguments: Option<Value>,
    pub validation_errors: Option<Value>,
    pub status: ToolCallStatus,
    pub result_text: Option<String>,
    pub latency_ms: f64,
    /// The fault (SQLSTATE and message) the caller never sees.
    pub error: Option<PgErrorInfo>,
    /// For a call the chat engine answered itself: why it was not run (stored as the error
    /// message, without SQLSTATE).
    pub reason: Option<String>,
}

/// Largest value (bytes) a row of a denied or invalid call keeps of each caller-supplied value.
pub const REFUSED_VALUE_BYTES: usize = 256;

/// Refuse, before it runs, a tool call whose audit row could not be written: in a
/// read-only transaction (`SET TRANSACTION READ ONLY`, `default_transaction_read_only`, a
/// standby) only the durable audit worker can write it. Without the worker the call is refused
/// with 25006, unless `mcp.audit_read_only_calls = log` lets it run with the server log as its
/// only record (e.g. tools on a standby).
pub fn refuse_unrecordable() -> McpResult<()> {
    if !unsafe { pg_sys::XactReadOnly }
        || crate::audit::recording()
        || crate::audit::durable()
        || crate::audit::log_read_only_calls()
    {
        return Ok(());
    }
    Err(McpError::ReadOnly(
        "pg_mcp: a tool call in a read-only transaction cannot be audited: its mcp.tool_call row can only be written by the durable audit worker, which is not in use".into(),
    )
    .with_hint("Call the tool outside a read-only transaction, or use the durable audit (shared_preload_libraries = 'pg_mcp', mcp.audit_durable = on); on a standby an administrator can set mcp.audit_read_only_calls = log to run tools recorded in the server log only."))
}

/// Reserve the call id of the next audit row (so it can tag the backend while the tool runs).
/// `None` in a read-only transaction (a standby, or `SET TRANSACTION READ ONLY`), where no
/// audit row can be written.
pub fn reserve_call_id() -> Option<i64> {
    if unsafe { pg_sys::XactReadOnly } {
        return None;
    }
    // The identity sequence by name through the syscache, and nextval without SPI (this is on
    // every tool call). The permission check is skipped: the sequence is pg_mcp's own.
    let seq = unsafe {
        let ns = pg_sys::get_namespace_oid(c"mcp".as_ptr(), true);
        if ns == pg_sys::Oid::INVALID {
            pg_sys::Oid::INVALID
        } else {
            pg_sys::get_relname_relid(c"tool_call_call_id_seq".as_ptr(), ns)
        }
    };
    // Not found only if the extension is broken; `record` then takes the column default.
    (seq != pg_sys::Oid::INVALID)
        .then(|| unsafe { pg_sys::ffi::pg_guard_ffi_boundary(|| nextval_internal(seq, false)) })
}

// commands/sequence.h; pgrx does not bind it.
unsafe extern "C-unwind" {
    fn nextval_internal(relid: pg_sys::Oid, check_permissions: bool) -> i64;
}

/// Write the audit row of one call as the extension owner; returns its call_id. The one writer
/// of `mcp.tool_call`: the pipeline calls it for every call it saw, the chat host for the calls
/// the engine answered itself. In a read-only transaction nothing can be written: the call is
/// logged to the server log instead and 0 returned. A write that fails is an ERROR (see the
/// README's "Audit and the caller's transaction"): no tool result is returned without its row.
pub fn record(r: &CallRecord) -> McpResult<i64> {
    let through_worker = crate::audit::recording() || crate::audit::durable();
    if unsafe { pg_sys::XactReadOnly } && !through_worker {
        // Only reached when `refuse_unrecordable` let the call run (mcp.audit_read_only_calls
        // = log): the server log is its record.
        pgrx::log!(
            "pg_mcp: tool call of {} by {} not audited (read-only transaction), status {}",
            super::display_name(&r.tool),
            super::calling_role(),
            r.status.as_str()
        );
        return Ok(0);
    }
    // Caller- and model-supplied values are cut to mcp.audit_max_value_bytes (size and sha256
    // of what was cut go to `clipped`): a call with a 48 MB argument must not write 48 MB. A
    // call that was refused or never ran (denied, invalid) keeps far less: any role
    // can make such calls, even on an interface closed to it, so its row is bounded to a few
    // hundred bytes per value, the rest of each value recorded by its size and SHA-256.
    let mut cuts = match r.status {
        ToolCallStatus::Denied | ToolCallStatus::Invalid => RowCuts::new(REFUSED_VALUE_BYTES),
        _ => crate::audit::row_cuts(),
    };
    let preview = r.result_text.as_deref().map(|t| {
        let (p, cut) = mcp_tools::clip_chars(t, 500);
        if cut {
            cuts.note(
                "result_preview",
                Some(mcp_audit::Cut::of_bytes(t.as_bytes())),
            );
        }
        p
    });
    let size = r
        .result_text
        .as_ref()
        .map(|t| mcp_audit::clamp_count(t.len() as u64));
    let role = super::calling_role();
    let tool_call_id = cuts.opt_text("tool_call_id", r.tool_call_id.as_deref());
    let tool = cuts.text("tool", &r.tool).into_owned();
    let interface = cuts.text("interface", &r.interface).into_owned();
    let arguments_raw = cuts.opt_text("arguments_raw", r.arguments_raw.as_deref());
    let arguments = r
        .arguments
        .as_ref()
        .map(|a| cuts.json("arguments", a).into_owned());
    let validation_errors = r
        .validation_errors
        .as_ref()
        .map(|v| cuts.json("validation_errors", v).into_owned());
    let error_sqlstate = r.error.as_ref().map(|e| e.sqlstate.clone());
    let error_message = cuts.opt_text(
        "error_message",
        r.error
            .as_ref()
            .map(|e| e.message.as_str())
            .or(r.reason.as_deref()),
    );
    // The row's id is taken here (unless the tool reserved it while it ran), so it is known
    // whichever sink stores the row; in a read-only transaction the worker takes it.
    let call_id = r.call_id.or_else(reserve_call_id);
    let trace = crate::trace_context::current();
    let row = ToolCallRow {
        call_id,
        run_id: r.run_id.map(|u| u.to_string()),
        tool_call_id,
        tool,
        interface,
        role_name: role,
        arguments_raw,
        arguments,
        validation_errors,
        status: r.status.as_str().into(),
        result_size: size,
        result_preview: preview,
        latency_ms: r.latency_ms,
        error_sqlstate,
        error_message,
        clipped: cuts.into_json(),
        created_at: mcp_audit::rows::now(),
        traceparent: trace.0,
        tracestate: trace.1,
    };
    // Through the durable audit worker when it is on (a chat run's call, and a call of its
    // own: mcp.call_tool, MCP tools/call), else in the caller's transaction.
    let rec = Record::ToolCall(row);
    if crate::audit::through_worker(&rec) || crate::audit::deferred::defer(&rec) {
        // (deferred: a chat run's call audited in the caller's transaction, written with the
        // run's end; audit/deferred.rs)
        return Ok(call_id.unwrap_or(0));
    }
    crate::audit::in_transaction(&rec)?.ok_or_else(|| {
        McpError::Internal("the audit row of a tool call returned no call_id".into())
    })
}
