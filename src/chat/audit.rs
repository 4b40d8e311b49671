//! The audit rows of a chat: `mcp.run` (start and end), `mcp.llm_request` (one per LLM
//! request) and `mcp.message` (the conversation). Tool calls are written by the tool pipeline's
//! one writer ([`crate::tools::audit::record`]).
//!
//! A write that fails is an error, never dropped: the writer returns it, `mcp.chat` raises it
//! (the statement and every tool's work in it roll back; see the README's "Audit and the
//! caller's transaction"). Values are cut to `mcp.audit_max_value_bytes` first.

use crate::audit::{in_transaction, in_transaction_all, rows, Record};
use crate::error::McpResult;
use mcp_audit::rows::{LlmRequestRow, MessagesRow, RunEndRow, RunRow};
use pgrx::Uuid;
use serde_json::{json, Value};

/// The start of a run (`mcp.run`).
pub fn run_start(
    run_id: Uuid,
    session: Uuid,
    interface: &str,
    provider: &str,
    question: &str,
    role: &str,
) -> McpResult<()> {
    let mut cuts = crate::audit::row_cuts();
    let question = cuts.text("question", question).into_owned();
    let trace = crate::trace_context::current();
    let row = RunRow {
        run_id: run_id.to_string(),
        session_id: session.to_string(),
        interface: interface.into(),
        provider: provider.into(),
        role_name: role.into(),
        question,
        clipped: cuts.into_json(),
        started_at: rows::now(),
        backend_pid: None,
        backend_start: None,
        traceparent: trace.0,
        tracestate: trace.1,
    };
    // Durable audit: the background worker commits the row, else it is written here.
    if crate::audit::run_start(row.clone())? {
        return Ok(());
    }
    let run_id = row.run_id.clone();
    in_transaction(&Record::Run(row))?;
    // Its LLM requests and tool calls are written with its end (audit/deferred.rs; not in a
    // chat worker, whose run's steps commit one by one).
    crate::audit::deferred::open(&run_id);
    Ok(())
}

/// The end of a run: its `mcp.run` columns (the plan it followed included) and the
/// conversation in `mcp.message`.
pub fn run_end(
    run_id: Uuid,
    session: Uuid,
    out: &mcp_chat::ChatOutcome,
    plan: Option<&Value>,
) -> McpResult<()> {
    let mut cuts = crate::audit::row_cuts();
    let limit = cuts.limit();
    let answer = cuts.opt_text("answer", out.answer.as_deref());
    let error = out
        .error
        .as_ref()
        .map(|e| cuts.json("error", &e.to_json()).into_owned());
    let end = RunEndRow {
        run_id: run_id.to_string(),
        status: out.status.as_str().into(),
        answer,
        iterations: Some(out.iterations),
        // Provider-reported sums: bigint, clamped (never wraps, never negative).
        prompt_tokens: Some(mcp_audit::clamp_count(out.usage.prompt_tokens)),
        completion_tokens: Some(mcp_audit::clamp_count(out.usage.completion_tokens)),
        error,
        clipped: cuts.into_json(),
        plan: plan.cloned(),
        finished_at: rows::now(),
    };
    // Each message is cut on its own (structure kept: a continued session still loads it); the
    // cuts travel as a parallel array, NULL where nothing was cut.
    let mut messages = Vec::with_capacity(out.messages.len());
    let mut message_cuts = Vec::with_capacity(out.messages.len());
    if let Value::Array(items) = out.messages_json() {
        for m in items {
            let (m, cut) = mcp_audit::clip_json_owned(m, limit);
            messages.push(m);
            message_cuts.push(cut.map_or(Value::Null, |c| json!({"message": c.to_json()})));
        }
    }
    // The run's LLM requests and tool calls kept for its end when it is audited here.
    let inner = crate::audit::deferred::take(&end.run_id);
    let (write_run, messages_from) = match crate::audit::recording()
        .then(|| crate::audit::run_end(&end, &messages, &message_cuts))
    {
        Some(None) => (false, messages.len()),
        Some(Some(left)) => (left.run, left.messages_from),
        None => (true, 0),
    };
    let mut recs = Vec::with_capacity(2);
    if write_run {
        recs.push(Record::RunEnd(end));
    }
    if messages_from < messages.len() {
        // The whole conversation (or what the audit worker did not take: from `messages_from`
        // on) in one record, not one INSERT per message.
        recs.push(Record::Messages(MessagesRow {
            session_id: session.to_string(),
            run_id: run_id.to_string(),
            offset: messages_from,
            messages: messages.split_off(messages_from),
            message_cuts: message_cuts.split_off(messages_from),
        }));
    }
    // The run's inner records, its end and its conversation in one statement (none: nothing).
    in_transaction_all(inner, &recs)
}

/// One LLM request (`mcp.llm_request`). Bodies (already scrubbed by the engine) and other
/// model-supplied values are cut to mcp.audit_max_value_bytes; size and sha256 of what was cut
/// go to `clipped`.
pub fn llm_request(run_id: Uuid, x: &mcp_chat::LlmExchange) -> McpResult<()> {
    let mut cuts = crate::audit::row_cuts();
    // The body as sent, embedded in the record as its text (PostgreSQL parses it once);
    // checked first, so the record stays valid JSON.
    let body = match cuts.json_text("request_body", &x.request_body) {
        mcp_audit::JsonText::Clipped(v) => serde_json::value::to_raw_value(&v).ok(),
        mcp_audit::JsonText::Whole => {
            serde_json::value::RawValue::from_string(x.request_body.clone()).ok()
        }
    };
    let response = cuts.opt_text("response_raw", x.response_body.as_deref());
    let fixes = serde_json::to_value(&x.fixes).unwrap_or(Value::Null);
    let fixes = cuts.json("fixes", &fixes).into_owned();
    let error = x
        .error
        .as_ref()
        .map(|e| cuts.json("error", &e.to_json()).into_owned());
    let purpose = if x.purpose == mcp_chat::ExchangePurpose::Chat {
        "chat"
    } else {
        "summary"
    };
    let finish_reason = x
        .finish_reason
        .and_then(|f| serde_json::to_value(f).ok())
        .and_then(|v| v.as_str().map(str::to_string));
    let trace = crate::trace_context::current();
    let row = LlmRequestRow {
        run_id: run_id.to_string(),
        iteration: x.iteration,
        purpose: purpose.into(),
        provider: x.provider.clone(),
        model: x.model.clone(),
        url: x.url.clone(),
        request_body: body,
        response_raw: response,
        http_status: x.http_status,
        latency_ms: x.latency_ms(),
        attempts: x.attempts.min(i32::MAX as u32) as i32,
        // Provider-reported: bigint, clamped (never wraps, never negative).
        prompt_tokens: mcp_audit::clamp_count(x.usage.prompt_tokens),
        completion_tokens: mcp_audit::clamp_count(x.usage.completion_tokens),
        finish_reason,
        repaired: x.repaired,
        fixes,
        error,
        clipped: cuts.into_json(),
        created_at: rows::now(),
        traceparent: trace.0,
        tracestate: trace.1,
    };
    crate::audit::record(&Record::LlmRequest(row)).map(|_| ())
}
