//! The audit rows of a chat: `mcp.run` (start and end), `mcp.llm_request` (one per LLM
//! request) and `mcp.message` (the conversation). Tool calls are written by the tool pipeline's
//! one writer ([`crate::tools::audit::record`]).
//!
//! A write that fails is an error, never dropped: [`write`] returns it, `mcp.chat` raises it
//! (the statement and every tool's work in it roll back; see the README's "Audit and the
//! caller's transaction"). Values are cut to `mcp.audit_max_value_bytes` first.

use crate::error::{McpError, McpResult};
use crate::pg::{as_extension_owner, run_kept};
use pgrx::datum::DatumWithOid;
use pgrx::{JsonB, Uuid};
use serde_json::{json, Value};

/// Run one audit write as the extension owner; its failure as an error naming `what`.
fn write<T>(what: &str, f: impl FnOnce() -> Result<T, pgrx::spi::SpiError>) -> McpResult<T> {
    as_extension_owner(f)
        .map_err(|e| McpError::Internal(format!("could not write the audit row of {what}: {e}")))
}

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
    let clipped = cuts.into_json();
    // Durable audit: the background worker commits the row, else it is written here.
    let row = json!({"run_id": run_id.to_string(), "session_id": session.to_string(),
                     "interface": interface, "provider": provider, "role_name": role,
                     "question": question, "clipped": clipped});
    if crate::audit_worker::run_start(row)? {
        return Ok(());
    }
    let clipped = clipped.map(JsonB);
    write("a chat run", || {
        run_kept(
            "INSERT INTO mcp.run (run_id, session_id, interface, provider, role_name, question, clipped)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
            &[
                run_id.into(),
                session.into(),
                interface.into(),
                provider.into(),
                role.into(),
                question.into(),
                clipped.into(),
            ],
        )
    })
}

/// The execution plan a run follows (`mcp.run.plan`), written in the caller's transaction when
/// the run is not recorded through the durable audit worker (then it goes with the run's end).
pub fn run_plan(run_id: Uuid, plan: &Value) -> McpResult<()> {
    write("the plan of a chat run", || {
        run_kept(
            "UPDATE mcp.run SET plan = $2 WHERE run_id = $1",
            &[run_id.into(), JsonB(plan.clone()).into()],
        )
    })
}

/// The end of a run: its `mcp.run` columns and the conversation in `mcp.message`.
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
        .map(|e| JsonB(cuts.json("error", &e.to_json()).into_owned()));
    let clipped = cuts.into_json().map(JsonB);
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
    let mut write_run = true;
    let mut messages_from = 0;
    if crate::audit_worker::recording() {
        let mut run = json!({"status": out.status.as_str(), "answer": answer, "iterations": out.iterations,
            "prompt_tokens": mcp_audit::clamp_count(out.usage.prompt_tokens),
            "completion_tokens": mcp_audit::clamp_count(out.usage.completion_tokens),
            "error": error.as_ref().map(|e| &e.0), "clipped": clipped.as_ref().map(|c| &c.0)});
        if let Some(p) = plan {
            run["plan"] = p.clone();
        }
        match crate::audit_worker::run_end(run, messages.clone(), message_cuts.clone()) {
            None => return Ok(()),
            Some(left) => {
                write_run = left.run;
                messages_from = left.messages_from;
            }
        }
    }
    if let (Some(p), true) = (plan, write_run) {
        run_plan(run_id, p)?;
    }
    write(
        "the end of a chat run",
        || -> Result<(), pgrx::spi::SpiError> {
            if write_run {
                run_kept(
                "UPDATE mcp.run SET status = $2, answer = $3, iterations = $4, prompt_tokens = $5,
                    completion_tokens = $6, error = $7, finished_at = pg_catalog.clock_timestamp(),
                    clipped = CASE WHEN $8::pg_catalog.jsonb IS NULL THEN clipped
                                   ELSE coalesce(clipped, '{}'::pg_catalog.jsonb) || $8 END
              WHERE run_id = $1",
                &[
                    run_id.into(),
                    out.status.as_str().into(),
                    answer.into(),
                    (out.iterations as i32).into(),
                    // Provider-reported sums: bigint, clamped (never wraps, never negative).
                    mcp_audit::clamp_count(out.usage.prompt_tokens).into(),
                    mcp_audit::clamp_count(out.usage.completion_tokens).into(),
                    error.into(),
                    clipped.into(),
                ],
            )?;
            }
            if messages_from >= messages.len() {
                return Ok(());
            }
            // The whole conversation (or what the audit worker did not take: from
            // `messages_from` on) in one statement, not one INSERT per message.
            let from = messages_from as i32;
            let cuts = message_cuts.split_off(messages_from);
            let rest = messages.split_off(messages_from);
            run_kept(
                "INSERT INTO mcp.message (session_id, run_id, seq, role, message, clipped)
             SELECT $1, $2, (m.ord - 1)::int + $5, coalesce(m.msg->>'role', ''), m.msg,
                    NULLIF($4 -> (m.ord - 1)::int, 'null'::pg_catalog.jsonb)
               FROM pg_catalog.jsonb_array_elements($3) WITH ORDINALITY AS m(msg, ord)",
                &[
                    session.into(),
                    run_id.into(),
                    JsonB(Value::Array(rest)).into(),
                    JsonB(Value::Array(cuts)).into(),
                    from.into(),
                ],
            )
        },
    )
}

/// One LLM request (`mcp.llm_request`). Bodies (already scrubbed by the engine) and other
/// model-supplied values are cut to mcp.audit_max_value_bytes; size and sha256 of what was cut
/// go to `clipped`.
pub fn llm_request(run_id: Uuid, x: &mcp_chat::LlmExchange) -> McpResult<()> {
    let mut cuts = crate::audit::row_cuts();
    // The body as sent, handed to PostgreSQL as text and cast to jsonb there (one parse
    // instead of serde parse + serialize + jsonb parse); checked first so a cast cannot fail.
    let body: Option<String> = match cuts.json_text("request_body", &x.request_body) {
        mcp_audit::JsonText::Clipped(v) => Some(v.to_string()),
        mcp_audit::JsonText::Whole => {
            serde_json::from_str::<serde::de::IgnoredAny>(&x.request_body)
                .is_ok()
                .then(|| x.request_body.clone())
        }
    };
    let response = cuts.opt_text("response_raw", x.response_body.as_deref());
    let fixes = serde_json::to_value(&x.fixes).unwrap_or(Value::Null);
    let fixes = JsonB(cuts.json("fixes", &fixes).into_owned());
    let error = x
        .error
        .as_ref()
        .map(|e| JsonB(cuts.json("error", &e.to_json()).into_owned()));
    let purpose = if x.purpose == mcp_chat::ExchangePurpose::Chat {
        "chat"
    } else {
        "summary"
    };
    let finish_reason = x
        .finish_reason
        .and_then(|f| serde_json::to_value(f).ok())
        .and_then(|v| v.as_str().map(str::to_string));
    let clipped = cuts.into_json();
    if crate::audit_worker::recording() {
        let row = json!({"run_id": run_id.to_string(), "iteration": x.iteration, "purpose": purpose,
            "provider": x.provider, "model": x.model, "url": x.url,
            "request_body": body.as_deref().and_then(|b| serde_json::from_str::<Value>(b).ok()),
            "response_raw": response, "http_status": x.http_status, "latency_ms": x.latency_ms(),
            "attempts": x.attempts.min(i32::MAX as u32),
            "prompt_tokens": mcp_audit::clamp_count(x.usage.prompt_tokens),
            "completion_tokens": mcp_audit::clamp_count(x.usage.completion_tokens),
            "finish_reason": finish_reason, "repaired": x.repaired, "fixes": fixes.0,
            "error": error.as_ref().map(|e| &e.0), "clipped": clipped});
        if crate::audit_worker::append("llm_request", row) {
            return Ok(());
        }
    }
    let args: Vec<DatumWithOid> = vec![
        run_id.into(),
        (x.iteration as i32).into(),
        purpose.into(),
        x.provider.clone().into(),
        x.model.clone().into(),
        x.url.clone().into(),
        body.into(),
        response.into(),
        x.http_status.map(i32::from).into(),
        x.latency_ms().into(),
        (x.attempts.min(i32::MAX as u32) as i32).into(),
        // Provider-reported: bigint, clamped (never wraps, never negative).
        mcp_audit::clamp_count(x.usage.prompt_tokens).into(),
        mcp_audit::clamp_count(x.usage.completion_tokens).into(),
        finish_reason.into(),
        x.repaired.into(),
        fixes.into(),
        error.into(),
        clipped.map(JsonB).into(),
    ];
    write("an LLM request", || {
        run_kept(
            "INSERT INTO mcp.llm_request (run_id, iteration, purpose, provider, model, url, request_body,
                 response_raw, http_status, latency_ms, attempts, prompt_tokens, completion_tokens,
                 finish_reason, repaired, fixes, error, clipped)
             VALUES ($1,$2,$3,$4,$5,$6,$7::pg_catalog.jsonb,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18)",
            &args,
        )
    })
}
