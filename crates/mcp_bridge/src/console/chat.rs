//! The chat page. Without JavaScript the form posts to `/console/chat`, one turn through
//! `mcp.chat` as the role, and the page answers when the run ends. With the page's one script
//! (`chat.js`, served from the binary) the same form submits the run with `mcp.chat_submit`
//! (`POST /console/chat/submit`), the script polls `GET /console/chat/progress/{run}` (the run's
//! rows as the audit writes them: its LLM requests when the role may read them, its tool calls)
//! and opens `GET /console/chat/result/{run}` (`mcp.chat_result`) when the run has ended. When
//! the submit is refused (no chat workers, a full queue, an unknown interface) the script posts
//! the form the synchronous way, which shows PostgreSQL's refusal as before.

use super::app::{Console, Req, Who};
use super::db::{DbError, RoleTx};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use std::sync::Arc;

const PAGE_TIMEOUT_MS: u32 = 30_000;
const CHAT_TIMEOUT_MS: u32 = 300_000;

type Page = Result<Response, DbError>;

fn json_response(status: StatusCode, v: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        v.to_string(),
    )
        .into_response()
}

/// The interfaces the role may chat with.
pub async fn interfaces(tx: &RoleTx) -> Result<Value, DbError> {
    tx.try_json(
        "SELECT coalesce(jsonb_agg(jsonb_build_object('name', i.name, 'description', i.description) ORDER BY i.name), '[]')::text
           FROM mcp.interface i WHERE i.enabled AND mcp.may_use_interface(i.name)",
        &[],
    )
    .await
}

/// `GET /console/chat`.
pub async fn form(c: &Arc<Console>, req: &Req, who: &Who) -> Page {
    let tx = RoleTx::begin(&c.bridge, &who.role, PAGE_TIMEOUT_MS).await?;
    let ifaces = interfaces(&tx).await;
    tx.commit().await?;
    let (ifaces, error) = match ifaces {
        Ok(v) => (v, Value::Null),
        Err(e) => (json!([]), e.json()),
    };
    Ok(c.render(
        "chat.html",
        json!({"page": "chat", "interfaces": ifaces, "error": error,
               "interface": req.q("interface"), "session": req.q("session")}),
        Some(who),
    ))
}

/// The answer's page: what mcp.chat (or mcp.chat_result) returned, and what the audit holds of
/// the run (its tool calls with their results: the passages a search tool returned; its plan).
async fn answer_page(
    c: &Arc<Console>,
    who: &Who,
    tx: RoleTx,
    iface: &str,
    sess: &str,
    result: Result<Value, DbError>,
) -> Page {
    let ifaces = interfaces(&tx).await.unwrap_or(json!([]));
    let mut calls = Value::Null;
    let mut plan = Value::Null;
    if let Ok(r) = &result {
        if let Some(run_id) = r["run_id"].as_str() {
            let run_id = run_id.to_string();
            calls = tx
                .try_json(
                    "SELECT coalesce(jsonb_agg(jsonb_build_object('tool', t.tool, 'status', t.status,
                            'arguments', coalesce(t.arguments::text, t.arguments_raw),
                            'result', left(t.result_preview, 4000), 'ms', round(t.latency_ms::numeric, 1))
                          ORDER BY t.created_at, t.call_id), '[]')::text
                       FROM mcp.tool_call t WHERE t.run_id = ($1::text)::uuid",
                    &[&run_id],
                )
                .await
                .unwrap_or(Value::Null);
            plan = tx
                .try_json(
                    "SELECT jsonb_pretty(plan) FROM mcp.run WHERE run_id = ($1::text)::uuid",
                    &[&run_id],
                )
                .await
                .ok()
                .and_then(|v| v.as_str().map(|s| json!(s)))
                .unwrap_or(Value::Null);
        }
    }
    tx.commit().await?;
    let (result, error) = match result {
        // an asynchronous run that ended where mcp.chat would have raised
        Ok(v) if v["status"] == "error" => (
            Value::Null,
            json!({"message": v["message"], "sqlstate": v["sqlstate"]}),
        ),
        Ok(v) => (v, Value::Null),
        Err(e) => (Value::Null, e.json()),
    };
    Ok(c.render(
        "chat.html",
        json!({"page": "chat", "interfaces": ifaces, "interface": iface,
               "result": result, "calls": calls, "plan": plan, "error": error,
               "session": result["session_id"].as_str().or(Some(sess).filter(|s| !s.is_empty())),
               "result_json": if result.is_null() { Value::Null } else { json!(serde_json::to_string_pretty(&result).unwrap_or_default()) }}),
        Some(who),
    ))
}

/// `POST /console/chat`: one turn through mcp.chat as the role (the form without JavaScript).
pub async fn chat(c: &Arc<Console>, req: &Req, who: &Who) -> Page {
    let question = req.f("question").unwrap_or("").to_string();
    let iface = req.f("interface").unwrap_or("").to_string();
    let sess = req.f("session").unwrap_or("").trim().to_string();
    let mut tx = RoleTx::begin(&c.bridge, &who.role, CHAT_TIMEOUT_MS).await?;
    let result = tx
        .try_json_cancellable(
            "SELECT mcp.chat($1::text, $2::text, (nullif($3::text, ''))::uuid)::text",
            &[&question, &iface, &sess],
        )
        .await;
    answer_page(c, who, tx, &iface, &sess, result).await
}

/// `POST /console/chat/submit` (the page's script): mcp.chat_submit as the role, committed;
/// `{"run_id"}`, or `{"error"}` with PostgreSQL's refusal.
pub async fn submit(c: &Arc<Console>, req: &Req, who: &Who) -> Response {
    let question = req.f("question").unwrap_or("").to_string();
    let iface = req.f("interface").unwrap_or("").to_string();
    let sess = req.f("session").unwrap_or("").trim().to_string();
    let r = async {
        let tx = RoleTx::begin(&c.bridge, &who.role, PAGE_TIMEOUT_MS).await?;
        let id = tx
            .json(
                "SELECT to_jsonb(mcp.chat_submit($1::text, $2::text, (nullif($3::text, ''))::uuid))::text",
                &[&question, &iface, &sess],
            )
            .await?;
        tx.commit().await?;
        Ok::<Value, DbError>(id)
    }
    .await;
    match r {
        Ok(id) => json_response(StatusCode::OK, &json!({"run_id": id})),
        Err(e) => json_response(
            StatusCode::UNPROCESSABLE_ENTITY,
            &json!({"error": e.json()}),
        ),
    }
}

/// `POST /console/chat/cancel/{run}`: mcp.chat_cancel as the role (a queued run stops at once,
/// a running one at its next wait), then the run's page; a refusal is shown in its place.
pub async fn cancel(c: &Arc<Console>, id: &str, who: &Who) -> Page {
    let id = id.to_string();
    let tx = RoleTx::begin(&c.bridge, &who.role, PAGE_TIMEOUT_MS).await?;
    let r = tx
        .try_json(
            "SELECT to_jsonb(mcp.chat_cancel(($1::text)::uuid))::text",
            &[&id],
        )
        .await;
    tx.commit().await?;
    match r {
        Ok(_) => Ok(super::app::redirect(&format!(
            "/console/chat/result/{}",
            url::form_urlencoded::byte_serialize(id.as_bytes()).collect::<String>()
        ))),
        Err(e) => {
            let mut r = c.render(
                "error.html",
                json!({"page": "chat", "error": e.json()}),
                Some(who),
            );
            *r.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
            Ok(r)
        }
    }
}

/// The run's progress: the queue's status, and its rows so far, each with a label to show.
async fn progress_of(tx: &RoleTx, id: &str) -> Result<Value, DbError> {
    let id = id.to_string();
    let mut p = tx
        .try_json(
            "SELECT jsonb_build_object('run_id', a.run_id, 'status', a.status, 'interface', a.interface,
                    'session_id', a.session_id, 'done', a.status NOT IN ('queued', 'running'),
                    'cancel_requested', a.cancel_requested,
                    'seconds', round(extract(epoch FROM clock_timestamp() - a.submitted_at)::numeric, 1),
                    'tools', (SELECT coalesce(jsonb_agg(jsonb_build_object('tool', t.tool, 'status', t.status,
                                     'ms', round(t.latency_ms::numeric, 1), 'at', extract(epoch FROM t.created_at))
                                   ORDER BY t.created_at, t.call_id), '[]')
                                FROM mcp.tool_call t WHERE t.run_id = a.run_id))::text
               FROM mcp.async_run a WHERE a.run_id = ($1::text)::uuid",
            &[&id],
        )
        .await?;
    if p.is_null() {
        return Ok(p);
    }
    let llm = tx
        .try_json(
            "SELECT coalesce(jsonb_agg(jsonb_build_object('iteration', q.iteration, 'purpose', q.purpose,
                    'http_status', q.http_status, 'prompt_tokens', q.prompt_tokens,
                    'completion_tokens', q.completion_tokens, 'ms', round(q.latency_ms::numeric, 1),
                    'at', extract(epoch FROM q.created_at)) ORDER BY q.created_at, q.request_id), '[]')::text
               FROM mcp.llm_request q WHERE q.run_id = ($1::text)::uuid",
            &[&id],
        )
        .await;
    let tools = p["tools"].as_array().cloned().unwrap_or_default();
    let (llm, note) = match llm {
        Ok(Value::Array(a)) => (a, Value::Null),
        Ok(_) => (Vec::new(), Value::Null),
        Err(e) => (
            Vec::new(),
            json!(format!("LLM requests not shown: {}", e.message)),
        ),
    };
    p["events"] = json!(progress_events(&llm, &tools));
    p["note"] = note;
    let mut text = status_text(p["status"].as_str().unwrap_or(""), num(&p["seconds"]));
    if p["cancel_requested"] == json!(true) && p["done"] != json!(true) {
        text.push_str(" · asked to stop: it stops at its next wait");
    }
    p["status_text"] = json!(text);
    Ok(p)
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
}

/// A run's rows as the progress list shows them, by time: `{kind, label}`.
pub fn progress_events(llm: &[Value], tools: &[Value]) -> Vec<Value> {
    let mut ev: Vec<(f64, Value)> = Vec::new();
    for q in llm {
        let mut label = format!("LLM request {}", q["iteration"]);
        if let Some(p) = q["purpose"].as_str() {
            label.push_str(&format!(" ({p})"));
        }
        if let Some(s) = q["http_status"].as_i64() {
            label.push_str(&format!(" · HTTP {s}"));
        }
        if let (Some(p), Some(c)) = (q["prompt_tokens"].as_i64(), q["completion_tokens"].as_i64()) {
            label.push_str(&format!(" · {p} + {c} tokens"));
        }
        if let Some(ms) = num(&q["ms"]) {
            label.push_str(&format!(" · {ms} ms"));
        }
        ev.push((
            num(&q["at"]).unwrap_or(0.0),
            json!({"kind": "llm", "label": label}),
        ));
    }
    for t in tools {
        let mut label = format!(
            "Tool call {} · {}",
            t["tool"].as_str().unwrap_or("?"),
            t["status"].as_str().unwrap_or("?")
        );
        if let Some(ms) = num(&t["ms"]) {
            label.push_str(&format!(" · {ms} ms"));
        }
        ev.push((
            num(&t["at"]).unwrap_or(0.0),
            json!({"kind": "tool", "label": label}),
        ));
    }
    ev.sort_by(|a, b| a.0.total_cmp(&b.0));
    ev.into_iter().map(|(_, v)| v).collect()
}

fn status_text(status: &str, seconds: Option<f64>) -> String {
    let what = match status {
        "queued" => "queued, waiting for a chat worker",
        "running" => "running: the model is thinking",
        "done" => "done",
        "error" => "ended with an error",
        "cancelled" => "cancelled",
        "aborted" => "aborted (the server or its worker stopped)",
        _ => "unknown",
    };
    match seconds {
        Some(s) => format!("{what} ({s:.1} s)"),
        None => what.to_string(),
    }
}

/// `GET /console/chat/progress/{run}` (the page's script): the run's progress as JSON.
pub async fn progress(c: &Arc<Console>, id: &str, who: &Who) -> Response {
    let r = async {
        let tx = RoleTx::begin(&c.bridge, &who.role, PAGE_TIMEOUT_MS).await?;
        let p = progress_of(&tx, id).await?;
        tx.commit().await?;
        Ok::<Value, DbError>(p)
    }
    .await;
    match r {
        Ok(Value::Null) => json_response(
            StatusCode::NOT_FOUND,
            &json!({"error": {"message": "no such run, or not one of your role's"}}),
        ),
        Ok(p) => json_response(StatusCode::OK, &p),
        Err(e) => json_response(
            StatusCode::UNPROCESSABLE_ENTITY,
            &json!({"error": e.json()}),
        ),
    }
}

/// `GET /console/chat/result/{run}`: the answer's page of an asynchronous run (mcp.chat_result);
/// while it still runs, its progress, reloading every 2 s (without the script too).
pub async fn result(c: &Arc<Console>, id: &str, who: &Who) -> Page {
    let tx = RoleTx::begin(&c.bridge, &who.role, PAGE_TIMEOUT_MS).await?;
    let p = progress_of(&tx, id).await?;
    if p.is_null() {
        tx.commit().await?;
        let mut r = c.render(
            "error.html",
            json!({"page": "chat", "error": {"message": "No such run, or not one of your role's (row-level security of mcp.async_run)."}}),
            Some(who),
        );
        *r.status_mut() = StatusCode::NOT_FOUND;
        return Ok(r);
    }
    let iface = p["interface"].as_str().unwrap_or("").to_string();
    let sess = p["session_id"].as_str().unwrap_or("").to_string();
    if p["done"] != json!(true) {
        let ifaces = interfaces(&tx).await.unwrap_or(json!([]));
        tx.commit().await?;
        return Ok(c.render(
            "chat.html",
            json!({"page": "chat", "interfaces": ifaces, "interface": iface, "pending": p,
                   "session": Some(sess.as_str()).filter(|s| !s.is_empty())}),
            Some(who),
        ));
    }
    let id = id.to_string();
    let r = tx
        .try_json("SELECT mcp.chat_result(($1::text)::uuid, 0)::text", &[&id])
        .await;
    answer_page(c, who, tx, &iface, &sess, r).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_labels_by_time() {
        let llm = vec![
            json!({"iteration": 1, "purpose": "chat", "http_status": 200, "prompt_tokens": 10,
                   "completion_tokens": 3, "ms": 12.5, "at": 100.0}),
            json!({"iteration": 2, "purpose": null, "http_status": null, "prompt_tokens": null,
                   "completion_tokens": null, "ms": null, "at": "102.5"}),
        ];
        let tools =
            vec![json!({"tool": "<b>hoursOf</b>", "status": "ok", "ms": "1.5", "at": 101.0})];
        let ev = progress_events(&llm, &tools);
        let labels: Vec<&str> = ev.iter().map(|e| e["label"].as_str().unwrap()).collect();
        assert_eq!(
            labels,
            vec![
                "LLM request 1 (chat) · HTTP 200 · 10 + 3 tokens · 12.5 ms",
                // text, not markup: the script shows it with textContent
                "Tool call <b>hoursOf</b> · ok · 1.5 ms",
                "LLM request 2",
            ]
        );
        assert_eq!(ev[1]["kind"], "tool");
        assert_eq!(
            status_text("running", Some(2.0)),
            "running: the model is thinking (2.0 s)"
        );
    }
}
