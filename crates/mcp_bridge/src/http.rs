//! Streamable HTTP transport (MCP 2025-03-26 and later): `POST /mcp` carries one JSON-RPC
//! message (or a batch) and gets the answer as application/json (202 for notifications);
//! `GET /mcp` opens an SSE stream for server notifications (list_changed); `DELETE /mcp` ends
//! a session. PostgREST's authentication model: the bridge logs in as an *authenticator*
//! role, verifies the bearer token, and runs each request in a transaction under
//! `SET LOCAL ROLE <the token's role>` — PostgreSQL refuses a role the authenticator is not
//! a member of.

// The Err side of the request checks is the HTTP response itself (cold path).
#![allow(clippy::result_large_err)]

use crate::{db, jwt, Opts};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use futures_util::StreamExt;
use serde_json::Value;
use std::collections::HashMap;
use std::convert::Infallible;
use std::io::Read;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, watch, Mutex, Semaphore};
use tokio_postgres::{Client, Config};

/// Protocol revisions accepted in the MCP-Protocol-Version header (those mcp.handle speaks).
const SUPPORTED_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];
/// Database connections of the authenticator at most (requests beyond wait).
const MAX_CONNECTIONS: usize = 8;
/// Sessions kept at most.
const MAX_SESSIONS: usize = 10_000;
/// Largest request body.
const MAX_BODY: usize = 4 * 1024 * 1024;

struct Session {
    role: String,
    protocol_version: String,
    app_name: String,
}

struct Inner {
    cfg: Config,
    key: jwt::JwtKey,
    pool: Mutex<Vec<Client>>,
    permits: Semaphore,
    sessions: Mutex<HashMap<String, Session>>,
    origins: Vec<String>,
    interface: Option<String>,
    notes: broadcast::Sender<String>,
    shutdown: watch::Receiver<bool>,
}

type Shared = Arc<Inner>;

pub async fn run(cfg: Config, opts: Opts) -> u8 {
    let key = match crate::jwt_key(&opts) {
        Ok(k) => k,
        Err(e) => {
            eprintln!("pg_mcp_bridge: {e}");
            return 2;
        }
    };
    // Check the authenticator once at start.
    let first = match db::connect(&cfg).await {
        Ok((c, _)) => c,
        Err(e) => {
            eprintln!("pg_mcp_bridge: cannot connect to the database: {e}");
            return 1;
        }
    };
    match db::is_superuser(&first).await {
        Ok(true) if !opts.allow_superuser => {
            eprintln!("pg_mcp_bridge: refusing to run with a superuser as authenticator (it could become any role); use a NOLOGIN-free, NOINHERIT role that is a member of the API roles only, or pass --allow-superuser");
            return 1;
        }
        Ok(_) => {}
        Err(e) => {
            eprintln!("pg_mcp_bridge: cannot check the login role: {e}");
            return 1;
        }
    }
    let listener = match tokio::net::TcpListener::bind(&opts.listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("pg_mcp_bridge: cannot listen on {}: {e}", opts.listen);
            return 1;
        }
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    let mut origins = vec![
        format!("http://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
    ];
    origins.extend(opts.allowed_origins.iter().cloned());
    let (notes, _) = broadcast::channel(64);
    let (stop_tx, stop_rx) = watch::channel(false);
    let inner = Arc::new(Inner {
        cfg: cfg.clone(),
        key,
        pool: Mutex::new(vec![first]),
        permits: Semaphore::new(MAX_CONNECTIONS),
        sessions: Mutex::new(HashMap::new()),
        origins,
        interface: opts.interface.clone(),
        notes: notes.clone(),
        shutdown: stop_rx.clone(),
    });
    tokio::spawn(listen_task(cfg, notes, stop_rx));
    let app = Router::new()
        .route("/mcp", post(post_mcp).get(get_mcp).delete(delete_mcp))
        .with_state(inner);
    eprintln!(
        "pg_mcp_bridge: Streamable HTTP on http://{}/mcp",
        listener
            .local_addr()
            .map(|a| a.to_string())
            .unwrap_or_default()
    );
    let shutdown = async move {
        let (Ok(mut term), Ok(mut int)) = (
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()),
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()),
        ) else {
            return std::future::pending().await;
        };
        tokio::select! { _ = term.recv() => {}, _ = int.recv() => {} }
        // ends the SSE streams so the graceful shutdown does not wait for them
        let _ = stop_tx.send(true);
    };
    match axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
    {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("pg_mcp_bridge: {e}");
            1
        }
    }
}

/// One LISTEN connection of the authenticator; reconnects after a database restart.
async fn listen_task(
    cfg: Config,
    notes: broadcast::Sender<String>,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        if let Ok((client, mut rx)) = db::connect(&cfg).await {
            if client
                .batch_execute(&format!("LISTEN {}", db::CHANNEL))
                .await
                .is_ok()
            {
                loop {
                    tokio::select! {
                        n = rx.recv() => match n {
                            Some(n) => if let Some(m) = db::list_changed(n.payload()) { let _ = notes.send(m); },
                            None => break,
                        },
                        _ = stop.changed() => return,
                    }
                }
            }
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(1)) => {},
            _ = stop.changed() => return,
        }
    }
}

fn json_response(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn rpc_status(status: StatusCode, code: i64, message: &str) -> Response {
    json_response(status, db::rpc_error(&Value::Null, code, message))
}

/// Origin validation (DNS-rebinding protection): a browser request from another origin is
/// refused; requests without Origin (non-browser clients) pass.
fn check_origin(s: &Inner, headers: &HeaderMap) -> Result<(), Response> {
    match headers
        .get(header::ORIGIN)
        .map(|o| o.to_str().unwrap_or(""))
    {
        None => Ok(()),
        Some(o) if s.origins.iter().any(|a| a == o) => Ok(()),
        Some(_) => Err(rpc_status(
            StatusCode::FORBIDDEN,
            -32600,
            "Forbidden: Origin not allowed",
        )),
    }
}

/// The role of a valid bearer token, or a 401: a JWT (three dot-separated parts) is verified
/// with the key; any other token is looked up by its SHA-256 in mcp.bridge_token.
async fn authenticate(s: &Inner, headers: &HeaderMap) -> Result<String, Response> {
    let unauthorized = |why: &str| {
        let mut r = rpc_status(
            StatusCode::UNAUTHORIZED,
            -32001,
            &format!("Unauthorized: {why}"),
        );
        r.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer error=\"invalid_token\""),
        );
        r
    };
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .ok_or_else(|| unauthorized("a bearer token is required"))?;
    let token = token.trim();
    if jwt::looks_like_jwt(token) {
        return jwt::verify(token, &s.key, crate::now_secs())
            .map(|c| c.role)
            .map_err(|e| unauthorized(e.0));
    }
    match opaque_token_role(s, token).await {
        Ok(Some(role)) => Ok(role),
        Ok(None) => Err(unauthorized("unknown or expired token")),
        Err(e) => {
            eprintln!("pg_mcp_bridge: token lookup failed (does the authenticator have SELECT on mcp.bridge_token?): {e}");
            Err(unauthorized("token could not be checked"))
        }
    }
}

/// The role of an opaque token (by its SHA-256 in mcp.bridge_token, as the authenticator).
async fn opaque_token_role(
    s: &Inner,
    token: &str,
) -> Result<Option<String>, tokio_postgres::Error> {
    if token.is_empty() || token.len() > 512 {
        return Ok(None);
    }
    let hash = jwt::opaque_token_hash(token);
    let _permit = s.permits.acquire().await;
    let client = checkout(s).await?;
    let row = client
        .query_opt(
            "SELECT role_name::text FROM mcp.bridge_token
              WHERE token_hash = $1 AND (expires_at IS NULL OR expires_at > pg_catalog.now())",
            &[&hash],
        )
        .await;
    checkin(s, client).await;
    Ok(row?.map(|r| r.get(0)))
}

/// A pooled connection of the authenticator (a new one when none is idle).
async fn checkout(s: &Inner) -> Result<Client, tokio_postgres::Error> {
    let pooled = {
        let mut pool = s.pool.lock().await;
        let mut found = None;
        while let Some(c) = pool.pop() {
            if !c.is_closed() {
                found = Some(c);
                break;
            }
        }
        found
    };
    match pooled {
        Some(c) => Ok(c),
        None => Ok(db::connect(&s.cfg).await?.0),
    }
}

async fn checkin(s: &Inner, c: Client) {
    if !c.is_closed() {
        s.pool.lock().await.push(c);
    }
}

/// Origin check, then the token: the role a request runs as.
async fn admit(s: &Inner, headers: &HeaderMap) -> Result<String, Response> {
    check_origin(s, headers)?;
    authenticate(s, headers).await
}

fn check_version_header(headers: &HeaderMap) -> Result<(), Response> {
    match headers.get("mcp-protocol-version") {
        Some(v) if !SUPPORTED_VERSIONS.contains(&v.to_str().unwrap_or("")) => Err(rpc_status(
            StatusCode::BAD_REQUEST,
            -32600,
            "Bad Request: unsupported MCP-Protocol-Version",
        )),
        _ => Ok(()),
    }
}

fn new_session_id() -> Option<String> {
    let mut b = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut b))
        .ok()?;
    Some(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// The session named by Mcp-Session-Id, if it belongs to `role` (a session is bound to the
/// role of the token that opened it: another role's token cannot use it).
async fn session_of(
    s: &Inner,
    headers: &HeaderMap,
    role: &str,
) -> Result<(String, String, String), Response> {
    let Some(id) = headers.get("mcp-session-id").and_then(|v| v.to_str().ok()) else {
        return Err(rpc_status(
            StatusCode::BAD_REQUEST,
            -32600,
            "Bad Request: Mcp-Session-Id header required",
        ));
    };
    let sessions = s.sessions.lock().await;
    match sessions.get(id) {
        Some(sess) if sess.role == role => Ok((
            id.to_string(),
            sess.protocol_version.clone(),
            sess.app_name.clone(),
        )),
        _ => Err(rpc_status(
            StatusCode::NOT_FOUND,
            -32600,
            "Session not found",
        )),
    }
}

enum Failure {
    RoleRefused,
    Db(tokio_postgres::Error),
}

/// Run one message under the token's role in its own transaction.
async fn forward(
    s: &Inner,
    role: &str,
    protocol_version: &str,
    app_name: &str,
    body: &str,
) -> Result<Option<String>, Failure> {
    let _permit = s
        .permits
        .acquire()
        .await
        .map_err(|_| Failure::RoleRefused)?;
    let mut client = checkout(s).await.map_err(Failure::Db)?;
    let result = async {
        let tx = client.transaction().await.map_err(Failure::Db)?;
        tx.execute("SELECT pg_catalog.set_config('role', $1, true)", &[&role])
            .await
            .map_err(|e| match e.code().map(|c| c.code()) {
                // not a member of that role, or no such role
                Some("42501") | Some("22023") | Some("42704") => Failure::RoleRefused,
                _ => Failure::Db(e),
            })?;
        let iface = s.interface.clone().unwrap_or_default();
        tx.execute(
            "SELECT pg_catalog.set_config('mcp.protocol_version', $1, true),
                    pg_catalog.set_config('application_name', $2, true),
                    CASE WHEN $3 <> '' THEN pg_catalog.set_config('mcp.interface', $3, true) END",
            &[&protocol_version, &app_name, &iface],
        )
        .await
        .map_err(Failure::Db)?;
        let row = tx
            .query_one(db::HANDLE_SQL, &[&body])
            .await
            .map_err(Failure::Db)?;
        let answer: Option<String> = row.get(0);
        tx.commit().await.map_err(Failure::Db)?;
        Ok(answer)
    }
    .await;
    checkin(s, client).await;
    result
}

async fn post_mcp(State(s): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let role = match admit(&s, &headers).await {
        Ok(r) => r,
        Err(r) => return r,
    };
    if let Err(r) = check_version_header(&headers) {
        return r;
    }
    if body.len() > MAX_BODY {
        return rpc_status(StatusCode::PAYLOAD_TOO_LARGE, -32600, "Request too large");
    }
    let Ok(msg) = serde_json::from_slice::<Value>(&body) else {
        return rpc_status(StatusCode::BAD_REQUEST, -32700, "Parse error");
    };
    let text = msg.to_string();
    let is_init = msg.get("method").and_then(Value::as_str) == Some("initialize");
    let (session_id, version, app_name) = if is_init {
        let (n, v) = db::client_info(&msg);
        let Some(id) = new_session_id() else {
            return rpc_status(StatusCode::INTERNAL_SERVER_ERROR, -32603, "Internal error");
        };
        (
            id,
            String::new(),
            db::application_name(n.as_deref(), v.as_deref()),
        )
    } else {
        match session_of(&s, &headers, &role).await {
            Ok(x) => x,
            Err(r) => return r,
        }
    };
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    match forward(&s, &role, &version, &app_name, &text).await {
        Ok(None) => StatusCode::ACCEPTED.into_response(),
        Ok(Some(answer)) => {
            let mut r = json_response(StatusCode::OK, answer.clone());
            if is_init {
                let negotiated = serde_json::from_str::<Value>(&answer)
                    .ok()
                    .and_then(|v| v["result"]["protocolVersion"].as_str().map(str::to_string));
                if let Some(pv) = negotiated {
                    let mut sessions = s.sessions.lock().await;
                    if sessions.len() >= MAX_SESSIONS {
                        return rpc_status(
                            StatusCode::SERVICE_UNAVAILABLE,
                            -32603,
                            "Too many sessions",
                        );
                    }
                    sessions.insert(
                        session_id.clone(),
                        Session {
                            role,
                            protocol_version: pv,
                            app_name,
                        },
                    );
                    if let Ok(h) = HeaderValue::from_str(&session_id) {
                        r.headers_mut().insert("mcp-session-id", h);
                    }
                }
            }
            r
        }
        Err(Failure::RoleRefused) => json_response(
            StatusCode::FORBIDDEN,
            db::rpc_error(&id, -32600, "Forbidden: the token's role may not be used"),
        ),
        Err(Failure::Db(e)) => {
            eprintln!("pg_mcp_bridge: request failed: {e}");
            json_response(StatusCode::INTERNAL_SERVER_ERROR, db::db_failure(&id, &e))
        }
    }
}

async fn get_mcp(State(s): State<Shared>, headers: HeaderMap) -> Response {
    let role = match admit(&s, &headers).await {
        Ok(r) => r,
        Err(r) => return r,
    };
    let accepts_sse = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/event-stream"));
    if !accepts_sse {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    if let Err(r) = session_of(&s, &headers, &role).await {
        return r;
    }
    let mut stop = s.shutdown.clone();
    let stream = tokio_stream::wrappers::BroadcastStream::new(s.notes.subscribe())
        .filter_map(|m| async move { m.ok() })
        .map(|m| Ok::<Event, Infallible>(Event::default().event("message").data(m)))
        .take_until(async move {
            let _ = stop.wait_for(|v| *v).await;
        });
    Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

async fn delete_mcp(State(s): State<Shared>, headers: HeaderMap) -> Response {
    let role = match admit(&s, &headers).await {
        Ok(r) => r,
        Err(r) => return r,
    };
    match session_of(&s, &headers, &role).await {
        Ok((id, _, _)) => {
            s.sessions.lock().await.remove(&id);
            StatusCode::OK.into_response()
        }
        Err(r) => r,
    }
}
