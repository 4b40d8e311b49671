//! The console's pages: each one a few statements as the session's role (crate::console::db),
//! rendered by its template. A statement PostgreSQL refuses is shown with PostgreSQL's own
//! message, SQLSTATE, detail and hint, where the person did what was refused.

use super::app::{redirect, text, Console, Req, Who};
use super::chat::interfaces;
use super::db::{DbError, RoleTx};
use super::{chat, registry, session, view};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::Response;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Instant;

/// Statement timeout of a page (a chat has its own deadline and gets longer).
const PAGE_TIMEOUT_MS: u32 = 30_000;
/// Runs per page of the list.
pub const PAGE_SIZE: usize = 50;

const STATUSES: &[&str] = &[
    "running",
    "completed",
    "needs_input",
    "awaiting_approval",
    "max_iterations",
    "budget_exceeded",
    "loop_detected",
    "failed",
    "cancelled",
    "client_gone",
    "deadline_exceeded",
    "tool_choice_violated",
    "truncated",
    "aborted",
];

pub async fn dispatch(c: &Arc<Console>, req: &Req, who: &Who) -> Response {
    let p = req.path.as_str();
    let r = match (&req.method, p) {
        (_, "") => return redirect("/console/runs"),
        (&Method::POST, "/logout") => return logout(c, req, who),
        (&Method::GET, "/runs") => runs(c, req, who).await,
        (&Method::GET, _) if p.starts_with("/runs/") => run(c, &p[6..], who).await,
        (&Method::GET, "/chat") => chat::form(c, req, who).await,
        (&Method::POST, "/chat") => chat::chat(c, req, who).await,
        (&Method::POST, "/chat/submit") => return chat::submit(c, req, who).await,
        (&Method::GET, _) if p.starts_with("/chat/progress/") => {
            return chat::progress(c, &p[15..], who).await
        }
        (&Method::GET, _) if p.starts_with("/chat/result/") => chat::result(c, &p[13..], who).await,
        (&Method::POST, _) if p.starts_with("/chat/cancel/") => {
            chat::cancel(c, &p[13..], who).await
        }
        (&Method::GET, "/analyze") => analyze(c, req, who).await,
        (&Method::GET, "/approvals") => approvals(c, who, Value::Null).await,
        (&Method::POST, "/approvals") => decide(c, req, who).await,
        (&Method::GET, "/registry") => registry::list(c, req, who).await,
        (_, _) if p.starts_with("/registry/") => {
            match registry::dispatch(c, req, who, &p[10..]).await {
                Some(r) => r,
                None => return text(StatusCode::NOT_FOUND, "Not found"),
            }
        }
        (&Method::GET, "/retrieval") => retrieval(c, req, who).await,
        (&Method::GET, "/charts") => charts(c, who).await,
        _ => return text(StatusCode::NOT_FOUND, "Not found"),
    };
    match r {
        Ok(resp) => resp,
        Err(e) => {
            let mut r = c.render("error.html", json!({"error": e.json()}), Some(who));
            *r.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
            r
        }
    }
}

type Page = Result<Response, DbError>;

/// `POST /console/login`: a token (a JWT, an OAuth access token or a bridge token), checked by
/// the bridge; the role must then be usable through the bridge (the authenticator is a member
/// of it, and it is not the authenticator): tried once, in a transaction that does nothing.
pub async fn login(c: &Arc<Console>, req: &Req) -> Response {
    let token = req.f("token").map(str::trim).filter(|t| !t.is_empty());
    let refused = |why: &str| {
        let mut r = c.render(
            "login.html",
            json!({"error": {"message": why}, "password_login": c.password_login}),
            None,
        );
        *r.status_mut() = StatusCode::UNAUTHORIZED;
        r
    };
    let user = req.f("user").map(str::trim).filter(|u| !u.is_empty());
    let role = match user {
        Some(user) if c.password_login => {
            match password_role(c, user, req.f("password").unwrap_or("")).await {
                Ok(role) => role,
                Err(why) => return refused(&why),
            }
        }
        Some(_) => return refused("sign-in with a database password is not enabled"),
        None => match c.bridge.authenticate(token).await {
            Ok(role) => role,
            Err(why) => return refused(&why),
        },
    };
    match RoleTx::begin(&c.bridge, &role, 5_000).await {
        Ok(tx) => {
            if let Err(e) = tx.commit().await {
                return refused(&e.message);
            }
        }
        Err(e) => return refused(&format!("the token's role cannot be used: {}", e.message)),
    }
    let Some(sid) = c.sessions.create(&role, Instant::now()) else {
        return text(
            StatusCode::INTERNAL_SERVER_ERROR,
            "no session could be made",
        );
    };
    let mut r = redirect("/console/runs");
    if let Ok(v) = HeaderValue::from_str(&session::set_cookie(
        Some(&sid),
        req.secure,
        c.sessions.max_age,
    )) {
        r.headers_mut().insert(header::SET_COOKIE, v);
    }
    r
}

/// A database user name and password, checked by PostgreSQL itself: one connection as that user
/// with the authenticator's host, port and database (pg_hba.conf decides how the password is
/// checked). The session's role is the user the server says it logged in; the pages then run as
/// that role the bridge's way (through the authenticator, which must be a member of it). The
/// password is not kept.
async fn password_role(c: &Arc<Console>, user: &str, password: &str) -> Result<String, String> {
    if user.len() > 63 || user.chars().any(char::is_control) || password.len() > 1024 {
        return Err("not a user name and password".into());
    }
    let mut cfg = c.bridge.connection_settings();
    cfg.user(user)
        .password(password)
        .application_name("pg_mcp_console sign-in")
        .connect_timeout(std::time::Duration::from_secs(10));
    let (client, conn) =
        cfg.connect(tokio_postgres::NoTls)
            .await
            .map_err(|e| match e.as_db_error() {
                Some(d) => format!("PostgreSQL refused the sign-in: {}", d.message()),
                None => "PostgreSQL refused the sign-in (or cannot be reached)".into(),
            })?;
    let running = tokio::spawn(conn);
    let who = client
        .query_one("SELECT current_user::text", &[])
        .await
        .map(|r| r.get::<_, String>(0))
        .map_err(|e| DbError::from(e).message);
    drop(client);
    let _ = running.await;
    who
}

fn logout(c: &Arc<Console>, req: &Req, who: &Who) -> Response {
    c.sessions.remove(&who.sid);
    let mut r = redirect("/console/login");
    if let Ok(v) = HeaderValue::from_str(&session::set_cookie(None, req.secure, c.sessions.max_age))
    {
        r.headers_mut().insert(header::SET_COOKIE, v);
    }
    r
}

/// The filters of the runs list (empty values are no filter).
#[derive(Default)]
pub struct RunFilter<'a> {
    pub status: Option<&'a str>,
    pub interface: Option<&'a str>,
    pub role: Option<&'a str>,
    /// Only the signed-in role's own runs (an auditor sees every run otherwise).
    pub mine: bool,
    pub from: Option<&'a str>,
    pub to: Option<&'a str>,
    /// The keyset cursor: (started_at, run_id) of the last row shown.
    pub after: Option<(&'a str, &'a str)>,
}

/// The runs list's query: the filters as SQL conditions on fixed text with numbered parameters
/// (values never enter the SQL text), newest first, after the keyset cursor.
pub fn runs_query(f: &RunFilter, limit: usize) -> (String, Vec<String>) {
    let RunFilter {
        status,
        interface,
        role,
        mine,
        from,
        to,
        after,
    } = *f;
    let mut conds: Vec<String> = Vec::new();
    let mut params: Vec<String> = Vec::new();
    fn add(conds: &mut Vec<String>, params: &mut Vec<String>, cond: &str, v: &str) {
        params.push(v.to_string());
        conds.push(cond.replace('$', &format!("${}", params.len())));
    }
    if let Some(v) = status {
        add(&mut conds, &mut params, "r.status = $::text", v);
    }
    if let Some(v) = interface {
        add(&mut conds, &mut params, "r.interface = $::text", v);
    }
    if let Some(v) = role {
        add(&mut conds, &mut params, "r.role_name = ($::text)::name", v);
    }
    if mine {
        conds.push("r.role_name = CURRENT_USER".into());
    }
    if let Some(v) = from {
        add(
            &mut conds,
            &mut params,
            "r.started_at >= ($::text)::timestamptz",
            v,
        );
    }
    if let Some(v) = to {
        add(
            &mut conds,
            &mut params,
            "r.started_at < ($::text)::timestamptz",
            v,
        );
    }
    if let Some((ts, id)) = after {
        params.push(ts.to_string());
        params.push(id.to_string());
        let (a, b) = (params.len() - 1, params.len());
        conds.push(format!(
            "(r.started_at, r.run_id) < ((${a}::text)::timestamptz, (${b}::text)::uuid)"
        ));
    }
    let filter = if conds.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", conds.join(" AND "))
    };
    let sql = format!(
        "SELECT coalesce(jsonb_agg(jsonb_build_object(
                'run_id', r.run_id, 'session_id', r.session_id, 'interface', r.interface,
                'role', r.role_name, 'status', r.status, 'question', left(r.question, 160),
                'tokens', r.prompt_tokens + r.completion_tokens, 'iterations', r.iterations,
                'started', to_char(r.started_at, 'YYYY-MM-DD HH24:MI:SS'),
                'cursor', to_jsonb(r.started_at) #>> '{{}}',
                'ms', round((extract(epoch FROM r.finished_at - r.started_at) * 1000)::numeric))
              ORDER BY r.started_at DESC, r.run_id DESC), '[]')::text
           FROM (SELECT * FROM mcp.run r {filter}
                  ORDER BY r.started_at DESC, r.run_id DESC LIMIT {limit}) r"
    );
    (sql, params)
}

fn params_of(v: &[String]) -> Vec<&(dyn tokio_postgres::types::ToSql + Sync)> {
    v.iter()
        .map(|s| s as &(dyn tokio_postgres::types::ToSql + Sync))
        .collect()
}

async fn runs(c: &Arc<Console>, req: &Req, who: &Who) -> Page {
    let after = req.q("after").and_then(|a| a.split_once('|'));
    let mine = req.q("mine") == Some("1");
    let filter = RunFilter {
        status: req.q("status"),
        interface: req.q("interface"),
        role: req.q("role"),
        mine,
        from: req.q("from"),
        to: req.q("to"),
        after,
    };
    let (sql, params) = runs_query(&filter, PAGE_SIZE + 1);
    let tx = RoleTx::begin(&c.bridge, &who.role, PAGE_TIMEOUT_MS).await?;
    let started = Instant::now();
    let rows = tx.try_json(&sql, &params_of(&params)).await;
    let meta = tx
        .json(
            "SELECT jsonb_build_object(
                'auditor', pg_catalog.pg_has_role('mcp_auditor', 'USAGE'),
                'interfaces', (SELECT coalesce(jsonb_agg(name ORDER BY name), '[]') FROM mcp.interface))::text",
            &[],
        )
        .await?;
    tx.commit().await?;
    let sql_ms = started.elapsed().as_secs_f64() * 1000.0;
    let (mut rows, error) = match rows {
        Ok(v) => (v.as_array().cloned().unwrap_or_default(), Value::Null),
        Err(e) => (Vec::new(), e.json()),
    };
    let next = if rows.len() > PAGE_SIZE {
        rows.truncate(PAGE_SIZE);
        rows.last().map(|r| {
            format!(
                "{}|{}",
                r["cursor"].as_str().unwrap_or(""),
                r["run_id"].as_str().unwrap_or("")
            )
        })
    } else {
        None
    };
    // the filters again, for the next page's link (the cursor replaces `after`)
    let mut keep: Vec<(String, String)> = req
        .query
        .iter()
        .filter(|(k, v)| k.as_str() != "after" && !v.is_empty())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    keep.sort();
    let next_url = next.map(|n| {
        let mut s = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in &keep {
            s.append_pair(k, v);
        }
        s.append_pair("after", &n);
        format!("/console/runs?{}", s.finish())
    });
    Ok(c.render(
        "runs.html",
        json!({
            "page": "runs", "rows": rows, "error": error, "next": next_url,
            "statuses": STATUSES, "interfaces": meta["interfaces"], "auditor": meta["auditor"],
            "f": {"status": req.q("status"), "interface": req.q("interface"), "role": req.q("role"),
                  "from": req.q("from"), "to": req.q("to"), "mine": mine},
            "paged": after.is_some(), "sql_ms": format!("{sql_ms:.1}"),
        }),
        Some(who),
    ))
}

/// A run's timeline: its LLM requests and tool calls by time, each with where it starts and
/// how long it took as a share of the run (the bars of the timeline).
async fn run(c: &Arc<Console>, id: &str, who: &Who) -> Page {
    let tx = RoleTx::begin(&c.bridge, &who.role, PAGE_TIMEOUT_MS).await?;
    let id = id.to_string();
    let run = tx
        .try_json(
            "SELECT (to_jsonb(r) - 'backend_pid' - 'backend_start'
                     || jsonb_build_object('ms', round((extract(epoch FROM coalesce(r.finished_at, clock_timestamp()) - r.started_at) * 1000)::numeric),
                                           'started', to_char(r.started_at, 'YYYY-MM-DD HH24:MI:SS.MS')))::text
               FROM mcp.run r WHERE r.run_id = ($1::text)::uuid",
            &[&id],
        )
        .await;
    let run = match run {
        Ok(Value::Null) => {
            tx.commit().await?;
            let mut r = c.render(
                "error.html",
                json!({"error": {"message": "No such run, or not one your role may read (row-level security of mcp.run)."}}),
                Some(who),
            );
            *r.status_mut() = StatusCode::NOT_FOUND;
            return Ok(r);
        }
        Ok(v) => v,
        Err(e) => return Err(e),
    };
    let llm = tx
        .try_json(
            "SELECT coalesce(jsonb_agg(jsonb_build_object(
                    'kind', 'llm', 'iteration', q.iteration, 'purpose', q.purpose, 'model', q.model,
                    'provider', q.provider, 'http_status', q.http_status, 'attempts', q.attempts,
                    'ms', round(q.latency_ms::numeric, 1),
                    'offset_ms', round((extract(epoch FROM q.created_at - r.started_at) * 1000)::numeric - coalesce(q.latency_ms, 0)::numeric, 1),
                    'prompt_tokens', q.prompt_tokens, 'completion_tokens', q.completion_tokens,
                    'finish_reason', q.finish_reason, 'repaired', q.repaired, 'error', q.error,
                    'request', left(jsonb_pretty(q.request_body), 20000), 'response', left(q.response_raw, 20000),
                    'clipped', q.clipped) ORDER BY q.created_at, q.request_id), '[]')::text
               FROM mcp.llm_request q JOIN mcp.run r USING (run_id) WHERE q.run_id = ($1::text)::uuid",
            &[&id],
        )
        .await;
    let tools = tx
        .try_json(
            "SELECT coalesce(jsonb_agg(jsonb_build_object(
                    'kind', 'tool', 'tool', t.tool, 'tool_call_id', t.tool_call_id, 'status', t.status,
                    'ms', round(t.latency_ms::numeric, 1),
                    'offset_ms', round((extract(epoch FROM t.created_at - r.started_at) * 1000)::numeric - coalesce(t.latency_ms, 0)::numeric, 1),
                    'arguments', coalesce(jsonb_pretty(t.arguments), t.arguments_raw),
                    'validation_errors', t.validation_errors, 'result_size', t.result_size,
                    'result', left(t.result_preview, 20000), 'clipped', t.clipped)
                  ORDER BY t.created_at, t.call_id), '[]')::text
               FROM mcp.tool_call t JOIN mcp.run r USING (run_id) WHERE t.run_id = ($1::text)::uuid",
            &[&id],
        )
        .await;
    tx.commit().await?;
    let mut events: Vec<Value> = Vec::new();
    let mut refusals: Vec<Value> = Vec::new();
    for (what, r) in [
        ("LLM requests (mcp.llm_request)", llm),
        ("tool calls (mcp.tool_call)", tools),
    ] {
        match r {
            Ok(Value::Array(a)) => events.extend(a),
            Ok(_) => {}
            Err(e) => refusals.push(json!({"what": what, "error": e.json()})),
        }
    }
    let num = |v: &Value| {
        v.as_f64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
    };
    events.sort_by(|a, b| {
        num(&a["offset_ms"])
            .unwrap_or(0.0)
            .total_cmp(&num(&b["offset_ms"]).unwrap_or(0.0))
    });
    let total = num(&run["ms"]).unwrap_or(0.0).max(
        events
            .iter()
            .map(|e| num(&e["offset_ms"]).unwrap_or(0.0) + num(&e["ms"]).unwrap_or(0.0))
            .fold(1.0, f64::max),
    );
    for e in events.iter_mut() {
        let off = num(&e["offset_ms"]).unwrap_or(0.0).max(0.0);
        let ms = num(&e["ms"]).unwrap_or(0.0).max(0.0);
        e["bar_x"] = json!(((off / total) * 1000.0).round() / 10.0);
        e["bar_w"] = json!((((ms / total) * 1000.0).round() / 10.0).max(0.5));
    }
    Ok(c.render(
        "run.html",
        json!({"page": "runs", "run": run, "events": events, "refusals": refusals,
               "plan": run.get("plan").map(|p| serde_json::to_string_pretty(p).unwrap_or_default())}),
        Some(who),
    ))
}

/// `GET /console/analyze?q=…&interface=…`: mcp.analyze as the role; the entities highlighted
/// in the question (their character offsets), the ranked plans with why, and the steps of the
/// best plan (what the chat would do first).
async fn analyze(c: &Arc<Console>, req: &Req, who: &Who) -> Page {
    let tx = RoleTx::begin(&c.bridge, &who.role, PAGE_TIMEOUT_MS).await?;
    let ifaces = interfaces(&tx).await.unwrap_or(json!([]));
    let (q, iface) = (req.q("q"), req.q("interface"));
    let mut ctx = json!({"page": "analyze", "interfaces": ifaces, "q": q, "interface": iface});
    if let (Some(q), Some(iface)) = (q, iface) {
        match tx
            .try_json(
                "SELECT mcp.analyze($1::text, $2::text)::text",
                &[&q, &iface],
            )
            .await
        {
            Ok(a) => {
                let ents = a["entities"].as_array().cloned().unwrap_or_default();
                let spans: Vec<(usize, usize)> = ents
                    .iter()
                    .map(|e| {
                        (
                            e["start"].as_u64().unwrap_or(0) as usize,
                            e["end"].as_u64().unwrap_or(0) as usize,
                        )
                    })
                    .collect();
                let segments: Vec<Value> = view::highlight(q, &spans)
                    .into_iter()
                    .map(|(t, e)| match e {
                        Some(i) => json!({"text": t, "kind": ents[i]["kind"], "label": ents[i]["label"],
                                          "class": view::class_of("k", ents[i]["kind"].as_str().unwrap_or(""))}),
                        None => json!({"text": t}),
                    })
                    .collect();
                let plans: Vec<Value> = a["plans"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                    .into_iter()
                    .map(|mut p| {
                        p["why_text"] =
                            json!(serde_json::to_string_pretty(&p["why"]).unwrap_or_default());
                        p
                    })
                    .collect();
                let steps = match plans.first().and_then(|p| p["name"].as_str()) {
                    Some(best) => tx
                        .try_json(
                            "SELECT coalesce(jsonb_agg(jsonb_build_object('position', s.position, 'kind', s.kind,
                                    'tool', s.tool, 'prompt', s.prompt, 'ask_kind', s.ask_kind, 'question', s.question)
                                  ORDER BY s.position), '[]')::text
                               FROM mcp.plan_step s WHERE s.plan = $1::text",
                            &[&best],
                        )
                        .await
                        .unwrap_or(Value::Null),
                    None => Value::Null,
                };
                ctx["segments"] = json!(segments);
                ctx["entities"] = json!(ents);
                ctx["plans"] = json!(plans);
                ctx["missing"] = a["missing"].clone();
                ctx["steps"] = steps;
            }
            Err(e) => ctx["error"] = e.json(),
        }
    }
    tx.commit().await?;
    Ok(c.render("analyze.html", ctx, Some(who)))
}

async fn approvals(c: &Arc<Console>, who: &Who, flash: Value) -> Page {
    let tx = RoleTx::begin(&c.bridge, &who.role, PAGE_TIMEOUT_MS).await?;
    let pending = tx
        .try_json(
            "SELECT coalesce(jsonb_agg(jsonb_build_object('approval_id', a.approval_id, 'run_id', a.run_id, 'call_id', a.tool_call_id,
                    'request_id', a.request_id,
                    'interface', a.interface, 'role', a.role_name, 'tool', a.tool, 'arguments', a.arguments,
                    'digest', a.digest, 'requested', to_char(a.requested_at, 'YYYY-MM-DD HH24:MI:SS'),
                    'expires', to_char(a.expires_at, 'YYYY-MM-DD HH24:MI:SS'))
                  ORDER BY a.requested_at), '[]')::text
               FROM mcp.approval a WHERE a.status = 'pending' AND a.expires_at > now()",
            &[],
        )
        .await;
    let decided = tx
        .try_json(
            "SELECT coalesce(jsonb_agg(x ORDER BY x.decided_at DESC), '[]')::text FROM (
               SELECT a.approval_id, a.run_id, a.tool_call_id AS call_id, a.tool, a.status, a.decided_by, a.reason,
                      a.continued_at IS NOT NULL AS carried_out,
                      to_char(a.decided_at, 'YYYY-MM-DD HH24:MI:SS') AS decided, a.decided_at
                 FROM mcp.approval a WHERE a.decided_at IS NOT NULL ORDER BY a.decided_at DESC LIMIT 20) x",
            &[],
        )
        .await;
    tx.commit().await?;
    let (pending, error) = match pending {
        Ok(v) => (v, Value::Null),
        Err(e) => (json!([]), e.json()),
    };
    Ok(c.render(
        "approvals.html",
        json!({"page": "approvals", "pending": pending, "decided": decided.unwrap_or(json!([])),
               "error": error, "flash": flash}),
        Some(who),
    ))
}

/// Decide one approval by its id (a chat run's call or a direct MCP call alike): the page's
/// form, and what an MCP client's URL-mode elicitation (`/console/approvals#<id>`) leads to.
async fn decide(c: &Arc<Console>, req: &Req, who: &Who) -> Page {
    let approval_id = req.f("approval_id").unwrap_or("").to_string();
    let reason = req.f("reason").unwrap_or("").to_string();
    let tx = RoleTx::begin(&c.bridge, &who.role, PAGE_TIMEOUT_MS).await?;
    let r = if req.f("action") == Some("approve") {
        tx.try_json(
            "SELECT mcp.approve(($1::text)::uuid)::text",
            &[&approval_id],
        )
        .await
    } else {
        tx.try_json(
            "SELECT mcp.reject(($1::text)::uuid, nullif($2::text, ''))::text",
            &[&approval_id, &reason],
        )
        .await
    };
    tx.commit().await?;
    let flash = match r {
        Ok(v) => json!({"ok": serde_json::to_string_pretty(&v).unwrap_or_default()}),
        Err(e) => json!({"error": e.json()}),
    };
    approvals(c, who, flash).await
}

async fn retrieval(c: &Arc<Console>, req: &Req, who: &Who) -> Page {
    let tx = RoleTx::begin(&c.bridge, &who.role, PAGE_TIMEOUT_MS).await?;
    let collections = tx
        .try_json(
            "SELECT coalesce(jsonb_agg(jsonb_build_object('name', c.name, 'description', c.description,
                    'model', c.embedding_model, 'top_k', c.top_k,
                    'documents', (SELECT count(*) FROM mcp.document d WHERE d.collection = c.name),
                    'chunks', (SELECT count(*) FROM mcp.chunk k WHERE k.collection_id = c.collection_id))
                  ORDER BY c.name), '[]')::text FROM mcp.collection c",
            &[],
        )
        .await;
    let mode = req.q("mode").unwrap_or("hybrid");
    let mode = ["hybrid", "vector", "text"]
        .into_iter()
        .find(|m| *m == mode)
        .unwrap_or("hybrid");
    let mut ctx = json!({"page": "retrieval", "mode": mode, "q": req.q("q"), "collection": req.q("collection")});
    match collections {
        Ok(v) => ctx["collections"] = v,
        Err(e) => ctx["refused"] = e.json(),
    }
    if let (Some(coll), Some(q)) = (req.q("collection"), req.q("q")) {
        match tx
            .try_json(
                "SELECT coalesce(jsonb_agg(jsonb_build_object('chunk_id', s.chunk_id, 'title', s.title,
                        'uri', s.uri, 'score', round(s.score::numeric, 4), 'text', left(s.text, 2000))), '[]')::text
                   FROM mcp.search($1::text, $2::text, NULL, $3::text) s",
                &[&coll, &q, &mode],
            )
            .await
        {
            Ok(v) => ctx["hits"] = v,
            Err(e) => ctx["error"] = e.json(),
        }
    }
    tx.commit().await?;
    Ok(c.render("retrieval.html", ctx, Some(who)))
}

/// Rows [[x, series, value], …] of a query as the groups of a chart.
fn chart_rows(v: &Value) -> Vec<(String, Vec<(String, f64)>)> {
    let rows: Vec<(String, String, f64)> = v
        .as_array()
        .map(|a| {
            a.iter()
                .map(|r| {
                    (
                        r[0].as_str().unwrap_or("").to_string(),
                        r[1].as_str().unwrap_or("(none)").to_string(),
                        r[2].as_f64().unwrap_or(0.0),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    view::group_rows(&rows)
}

/// Charts of the last 14 days, of the runs the role may read (its own, or all for an auditor).
async fn charts(c: &Arc<Console>, who: &Who) -> Page {
    let tx = RoleTx::begin(&c.bridge, &who.role, PAGE_TIMEOUT_MS).await?;
    let status = tx
        .try_json(
            "SELECT coalesce(jsonb_agg(jsonb_build_array(to_char(d, 'MM-DD'), status, n) ORDER BY d, status), '[]')::text
               FROM (SELECT date_trunc('day', started_at) d, status, count(*) n FROM mcp.run
                      WHERE started_at > now() - interval '14 days' GROUP BY 1, 2) x",
            &[],
        )
        .await;
    let tokens = tx
        .try_json(
            "SELECT coalesce(jsonb_agg(jsonb_build_array(to_char(d, 'MM-DD'), i, n) ORDER BY d, i), '[]')::text
               FROM (SELECT date_trunc('day', started_at) d, coalesce(interface, '(none)') i,
                            sum(prompt_tokens + completion_tokens) n FROM mcp.run
                      WHERE started_at > now() - interval '14 days' GROUP BY 1, 2) x",
            &[],
        )
        .await;
    let durations = tx
        .try_json(
            "SELECT coalesce(jsonb_agg(x.v ORDER BY x.d, x.k), '[]')::text FROM (
               SELECT d, k, jsonb_build_array(to_char(d, 'MM-DD'), k, round(v::numeric)) v FROM (
                 SELECT date_trunc('day', started_at) d,
                        percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at) * 1000) p50,
                        percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at) * 1000) p95
                   FROM mcp.run WHERE started_at > now() - interval '14 days' AND finished_at IS NOT NULL GROUP BY 1) y,
                 LATERAL (VALUES ('p50', p50), ('p95', p95)) z(k, v)) x",
            &[],
        )
        .await;
    let errors = tx
        .try_json(
            "SELECT coalesce(jsonb_agg(x.v ORDER BY x.calls DESC, x.tool, x.k), '[]')::text FROM (
               SELECT t.tool, t.calls, k, jsonb_build_array(t.tool, k, coalesce(v, 0)) v
                 FROM (SELECT * FROM mcp.tool_error_rates ORDER BY calls DESC LIMIT 12) t,
                      LATERAL (VALUES ('error_rate', t.error_rate), ('failure_rate', t.failure_rate)) z(k, v)) x",
            &[],
        )
        .await;
    tx.commit().await?;
    let chart = |title: &str, r: Result<Value, DbError>, stacked: bool, classes: &str| -> Value {
        match r {
            Ok(v) => {
                let groups = chart_rows(&v);
                let g = if classes == "status" {
                    view::bar_chart(&groups, stacked, &|s, _| view::class_of("s", s))
                } else {
                    view::bar_chart(&groups, stacked, &|_, i| format!("c{}", i % 6))
                };
                json!({"title": title, "chart": g})
            }
            Err(e) => json!({"title": title, "refused": e.json()}),
        }
    };
    let charts = vec![
        chart("Runs per status and day", status, true, "status"),
        chart("Tokens per interface and day", tokens, true, "series"),
        chart(
            "Run duration p50 / p95 (ms) per day",
            durations,
            false,
            "series",
        ),
        chart(
            "Tool error and failure rates (mcp.tool_error_rates)",
            errors,
            false,
            "series",
        ),
    ];
    Ok(c.render(
        "charts.html",
        json!({"page": "charts", "charts": charts}),
        Some(who),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_query_keeps_values_out_of_the_sql() {
        let (sql, p) = runs_query(
            &RunFilter {
                status: Some("completed'; DROP TABLE x; --"),
                role: Some("alice"),
                mine: true,
                to: Some("2026-12-02"),
                after: Some((
                    "2026-12-01T10:00:00+00:00",
                    "00000000-0000-0000-0000-000000000001",
                )),
                ..Default::default()
            },
            51,
        );
        assert!(!sql.contains("DROP"));
        assert!(sql.contains("r.status = $1::text"));
        assert!(sql.contains("r.role_name = ($2::text)::name"));
        assert!(sql.contains("r.role_name = CURRENT_USER"));
        assert!(sql.contains("r.started_at < ($3::text)::timestamptz"));
        assert!(
            sql.contains("(r.started_at, r.run_id) < (($4::text)::timestamptz, ($5::text)::uuid)")
        );
        assert!(sql.contains("LIMIT 51"));
        assert_eq!(p.len(), 5);
        let (sql, p) = runs_query(&RunFilter::default(), 51);
        assert!(!sql.contains("WHERE"));
        assert!(p.is_empty());
    }
}
