//! Streamable HTTP transport (MCP 2025-03-26 and later): `POST /mcp` carries one JSON-RPC
//! message (or, in 2025-03-26 only, a batch) and gets the answer as application/json (202 for
//! notifications); `GET /mcp` opens an SSE stream for server notifications (list_changed);
//! `DELETE /mcp` ends a session. PostgREST's authentication model: the bridge logs in as an
//! *authenticator* role, verifies the bearer token, and runs each request in a transaction
//! under `SET LOCAL ROLE <the token's role>` — PostgreSQL refuses a role the authenticator is
//! not a member of, and the bridge refuses the authenticator itself (and `none`).
//!
//! What a client can make the bridge hold is bounded (crate::limits, and
//! docs/bridge-resource-model.md): open TCP connections, time to send headers and body, body
//! size (checked only after the token, which comes from the headers), database connections in
//! total and per role (FIFO queues), a reserve of connections for opaque-token lookups,
//! sessions in total and per role (least recently used evicted, idle ones expire), SSE streams
//! per session, batch items and answer size. A request whose client goes away is cancelled in
//! the database, and its connection is reused only once the backend is free.
//!
//! A request of the stateless revision (`MCP-Protocol-Version: 2026-07-28`) has no session:
//! it is forwarded as it is, and mcp.handle serves it by its own `_meta`. The `Mcp-Method` /
//! `Mcp-Name` / `MCP-Protocol-Version` headers are checked against the body first (400 with
//! -32020 on a mismatch; the rules are `mcp_protocol::modern`'s, like the HTTP status of a
//! stateless answer's error).

// The Err side of the request checks is the HTTP response itself (cold path).
#![allow(clippy::result_large_err)]

use crate::limits::Limits;
use crate::{db, jwt, Opts};
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use futures_util::StreamExt;
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::{json, Map, Value};
use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::{Duration, Instant};
use tokio::sync::{
    broadcast, mpsc, oneshot, watch, Mutex, Notify, OwnedSemaphorePermit, Semaphore,
};
use tokio_postgres::{Client, Config, NoTls};

use mcp_protocol::modern;

struct Session {
    role: String,
    protocol_version: String,
    /// The level of `logging/setLevel`: a tool's notices at or above it reach the client.
    log_level: Option<String>,
    /// The capabilities the client declared in `initialize` (the input requests it takes).
    capabilities: Map<String, Value>,
    /// The URIs of its `resources/subscribe`: their updates reach its GET stream.
    subscriptions: Arc<StdMutex<HashSet<String>>>,
    app_name: String,
    last_used: Instant,
    /// SSE streams open on this session.
    streams: Arc<AtomicUsize>,
    /// Set to true when the session ends: its SSE streams close.
    closed: watch::Sender<bool>,
}

impl Session {
    fn end(&self) {
        let _ = self.closed.send(true);
    }
}

/// One of the authenticator's connections and where its notices go.
struct Conn {
    client: Client,
    notices: db::NoticeSink,
}

/// Where the notices of a running `tools/call` go: its SSE response, as notifications (see
/// crate::notices) at the session's log level and for its progress token.
struct Events {
    tx: mpsc::UnboundedSender<String>,
    level: Option<String>,
    progress_token: Option<Value>,
}

/// A pool of the authenticator's connections with the semaphore that bounds it.
struct Pool {
    idle: Mutex<Vec<Conn>>,
    permits: Arc<Semaphore>,
}

impl Pool {
    fn new(size: usize) -> Pool {
        Pool {
            idle: Mutex::new(Vec::new()),
            permits: Arc::new(Semaphore::new(size)),
        }
    }
}

struct Inner {
    cfg: Config,
    /// None only with an anonymous role or OAuth and no key configured: a JWT that is not an
    /// OAuth access token is refused.
    key: Option<jwt::JwtKey>,
    /// The bridge as an OAuth 2.1 resource server (`--oauth-issuer`).
    oauth: Option<Arc<crate::oauth::OAuth>>,
    /// The role of a request without an Authorization header (`--anonymous-role`).
    anonymous: Option<String>,
    expected: jwt::Expected,
    limits: Limits,
    /// Connections for requests: `limits.max_connections`.
    requests: Pool,
    /// Connections for opaque-token lookups only: `limits.auth_connections`.
    auth: Pool,
    /// Per role: the permits of its share of `requests` (FIFO queue per role).
    role_permits: StdMutex<HashMap<String, Arc<Semaphore>>>,
    sessions: StdMutex<HashMap<String, Session>>,
    /// Requests running, by (session, JSON text of the request id): notifications/cancelled
    /// wakes the task that runs it.
    in_flight: StdMutex<HashMap<(String, String), Arc<Notify>>>,
    /// Server-to-client requests (a tool's input requests, for a handshake client) waiting for
    /// the client's response, by (session, JSON text of the request id).
    replies: StdMutex<HashMap<(String, String), oneshot::Sender<Value>>>,
    origins: Vec<String>,
    hosts: Vec<String>,
    interface: Option<String>,
    /// The console's public URL, set per request as `mcp.console_url` (approval links).
    console_url: String,
    notes: broadcast::Sender<String>,
    shutdown: watch::Receiver<bool>,
}

type Shared = Arc<Inner>;

/// Hosts a request without Origin may name (DNS rebinding: a browser page's request to
/// another name still carries it in Host): the listening address's loopback names, the hosts
/// of the allowed origins, and the operator's --allowed-host values.
fn allowed_hosts(listen: &std::net::SocketAddr, opts: &Opts) -> Vec<String> {
    let port = listen.port();
    let mut hosts = vec![
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
    ];
    if !listen.ip().is_unspecified() {
        hosts.push(listen.to_string());
    }
    // The origins were checked at start (`crate::origin`); what a browser sends as `Host`
    // for them: the host, with the port unless it is the scheme's default.
    for u in opts
        .allowed_origins
        .iter()
        .filter_map(|o| url::Url::parse(o).ok())
    {
        if let Some(h) = u.host_str() {
            hosts.push(match u.port() {
                Some(p) => format!("{h}:{p}"),
                None => h.to_string(),
            });
        }
    }
    hosts.extend(opts.allowed_hosts.iter().cloned());
    hosts.iter().map(|h| h.to_ascii_lowercase()).collect()
}

pub async fn run(cfg: Config, opts: Opts) -> u8 {
    let key_optional = opts.anonymous_role.is_some() || opts.oauth.issuer.is_some();
    let key = match crate::jwt_key(&opts) {
        Ok(k) => Some(k),
        Err(_) if key_optional && opts.jwt_secret_file.is_none() => None,
        Err(e) => {
            eprintln!("pg_mcp_bridge: {e}");
            return 2;
        }
    };
    if let Some(anon) = &opts.anonymous_role {
        if let Err(e) = anonymous_allowed(&opts.listen, anon) {
            eprintln!("pg_mcp_bridge: --anonymous-role: {e}");
            return 2;
        }
    }
    // Check the authenticator once at start.
    let first = match db::connect_with_notices(&cfg).await {
        Ok((client, _, notices)) => Conn { client, notices },
        Err(e) => {
            eprintln!("pg_mcp_bridge: cannot connect to the database: {e}");
            return 1;
        }
    };
    match db::is_superuser(&first.client).await {
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
    match db::authenticator_owns(&first.client).await {
        Ok(0) => {}
        Ok(n) => eprintln!("pg_mcp_bridge: warning: the authenticator owns {n} objects in this database (tables, functions, schemas); it should own nothing: give them to another role (REASSIGN OWNED, ALTER … OWNER TO)"),
        Err(e) => eprintln!("pg_mcp_bridge: cannot check what the authenticator owns: {}", db::describe(&e)),
    }
    let listener = match tokio::net::TcpListener::bind(&opts.listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("pg_mcp_bridge: cannot listen on {}: {e}", opts.listen);
            return 1;
        }
    };
    let Ok(local) = listener.local_addr() else {
        eprintln!("pg_mcp_bridge: no local address");
        return 1;
    };
    let oauth = match &opts.oauth.issuer {
        None => None,
        Some(_) => match crate::oauth::OAuth::new(&opts.oauth, &local).await {
            Ok(o) => Some(Arc::new(o)),
            Err(e) => {
                eprintln!("pg_mcp_bridge: OAuth: {e}");
                return 2;
            }
        },
    };
    let port = local.port();
    let mut origins = vec![
        format!("http://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
    ];
    origins.extend(opts.allowed_origins.iter().cloned());
    let (notes, _) = broadcast::channel(64);
    let (stop_tx, stop_rx) = watch::channel(false);
    let limits = opts.limits.clone();
    let requests = Pool::new(limits.max_connections);
    requests.idle.lock().await.push(first);
    let inner = Arc::new(Inner {
        cfg: cfg.clone(),
        key,
        oauth: oauth.clone(),
        anonymous: opts.anonymous_role.clone(),
        expected: opts.jwt_expected.clone(),
        requests,
        auth: Pool::new(limits.auth_connections),
        role_permits: StdMutex::new(HashMap::new()),
        sessions: StdMutex::new(HashMap::new()),
        in_flight: StdMutex::new(HashMap::new()),
        replies: StdMutex::new(HashMap::new()),
        origins,
        hosts: allowed_hosts(&local, &opts),
        interface: opts.interface.clone(),
        console_url: opts
            .console_url
            .clone()
            .unwrap_or_else(|| format!("http://{local}/console")),
        notes: notes.clone(),
        shutdown: stop_rx.clone(),
        limits,
    });
    tokio::spawn(listen_task(cfg, notes, stop_rx.clone()));
    tokio::spawn(expire_sessions(inner.clone(), stop_rx.clone()));
    let mut app = Router::new().route("/mcp", post(post_mcp).get(get_mcp).delete(delete_mcp));
    if let Some(o) = &oauth {
        // RFC 9728 3.1: the path-aware location of the resource's metadata, and the root one
        // (what clients try when they have no challenge to go by)
        app = app.route(
            "/.well-known/oauth-protected-resource",
            axum::routing::get(resource_metadata),
        );
        if o.metadata_path != "/.well-known/oauth-protected-resource" {
            app = app.route(&o.metadata_path, axum::routing::get(resource_metadata));
        }
        eprintln!(
            "pg_mcp_bridge: OAuth resource {} (issuer {}), metadata at {}",
            o.resource, o.issuer, o.metadata_url
        );
    }
    let app = app.with_state(inner.clone());
    // the web console under /console, on this listener (crate::console)
    let app = match crate::console::router(inner.clone()) {
        Ok(console) => app.merge(console),
        Err(e) => {
            eprintln!("pg_mcp_bridge: {e}");
            return 1;
        }
    };
    eprintln!("pg_mcp_bridge: Streamable HTTP on http://{local}/mcp");
    let (Ok(mut term), Ok(mut int)) = (
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()),
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()),
    ) else {
        eprintln!("pg_mcp_bridge: cannot install signal handlers");
        return 1;
    };
    // hyper directly (axum::serve has no header timeout): the header read timeout also ends
    // kept-alive connections that sit idle that long (hyper starts it whenever it waits for a
    // request head).
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(inner.limits.header_timeout)
        .max_buf_size(64 * 1024);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let open = Arc::new(Semaphore::new(inner.limits.max_open_connections));
    loop {
        // a permit first: beyond the limit, connections wait in the kernel's backlog
        let permit = tokio::select! {
            p = open.clone().acquire_owned() => p,
            _ = term.recv() => break,
            _ = int.recv() => break,
        };
        let Ok(permit) = permit else { break };
        let (stream, _) = tokio::select! {
            a = listener.accept() => match a {
                Ok(a) => a,
                Err(e) => {
                    eprintln!("pg_mcp_bridge: accept: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = term.recv() => break,
            _ = int.recv() => break,
        };
        let _ = stream.set_nodelay(true);
        let svc = hyper_util::service::TowerToHyperService::new(app.clone());
        let conn = http.serve_connection(TokioIo::new(stream), svc);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
            drop(permit);
        });
    }
    // ends the SSE streams so the graceful shutdown does not wait for them
    let _ = stop_tx.send(true);
    drop(listener);
    tokio::select! {
        _ = graceful.shutdown() => {},
        _ = tokio::time::sleep(Duration::from_secs(5)) => {
            eprintln!("pg_mcp_bridge: requests still running after 5 s; stopping");
        }
    }
    0
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
                .batch_execute(&format!(
                    "LISTEN {}; LISTEN {}",
                    db::CHANNEL,
                    crate::subscriptions::RESOURCE_CHANNEL
                ))
                .await
                .is_ok()
            {
                loop {
                    tokio::select! {
                        n = rx.recv() => match n {
                            Some(n) if n.channel() == crate::subscriptions::RESOURCE_CHANNEL => {
                                let _ = notes.send(crate::subscriptions::resource_updated(n.payload()));
                            }
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

/// Removes sessions idle longer than the limit (those with an open SSE stream are in use).
async fn expire_sessions(s: Shared, mut stop: watch::Receiver<bool>) {
    let every =
        (s.limits.session_idle / 4).clamp(Duration::from_millis(200), Duration::from_secs(60));
    loop {
        tokio::select! {
            _ = tokio::time::sleep(every) => {},
            _ = stop.changed() => return,
        }
        let now = Instant::now();
        let mut sessions = s.sessions.lock().unwrap_or_else(|p| p.into_inner());
        sessions.retain(|_, sess| {
            let keep = sess.streams.load(Ordering::Relaxed) > 0
                || now.duration_since(sess.last_used) < s.limits.session_idle;
            if !keep {
                sess.end();
            }
            keep
        });
    }
}

fn json_response(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn rpc_status(status: StatusCode, code: i64, message: &str) -> Response {
    json_response(status, db::rpc_error(&Value::Null, code, message))
}

/// Origin validation (DNS-rebinding protection): a browser request from another origin is
/// refused. A request without Origin (non-browser clients) must name an allowed Host.
fn check_origin(s: &Inner, headers: &HeaderMap) -> Result<(), Response> {
    match headers
        .get(header::ORIGIN)
        .map(|o| o.to_str().unwrap_or(""))
    {
        None => {
            let host = headers
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
                .map(str::to_ascii_lowercase);
            match host {
                Some(h) if s.hosts.contains(&h) => Ok(()),
                _ => Err(rpc_status(
                    StatusCode::FORBIDDEN,
                    -32600,
                    "Forbidden: Host not allowed (see --allowed-host)",
                )),
            }
        }
        Some(o) if s.origins.iter().any(|a| a == o) => Ok(()),
        Some(_) => Err(rpc_status(
            StatusCode::FORBIDDEN,
            -32600,
            "Forbidden: Origin not allowed",
        )),
    }
}

/// The token of an `Authorization: Bearer …` header (the scheme is case-insensitive,
/// RFC 9110 11.1).
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = v.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// The role of a valid bearer token, or a 401: a JWT (three dot-separated parts) is verified
/// with the key; any other token is looked up by its SHA-256 in mcp.bridge_token, on the
/// connections reserved for that (requests cannot take them).
async fn authenticate(s: &Inner, headers: &HeaderMap) -> Result<String, Response> {
    let challenge = |missing: bool, why: &str| match &s.oauth {
        // the MCP authorization spec: the challenge names the resource metadata
        Some(o) => HeaderValue::from_str(&o.challenge((!missing).then_some(why)))
            .unwrap_or_else(|_| HeaderValue::from_static("Bearer error=\"invalid_token\"")),
        None => HeaderValue::from_static("Bearer error=\"invalid_token\""),
    };
    let refuse = |missing: bool, why: &str| {
        let mut r = rpc_status(
            StatusCode::UNAUTHORIZED,
            -32001,
            &format!("Unauthorized: {why}"),
        );
        r.headers_mut()
            .insert(header::WWW_AUTHENTICATE, challenge(missing, why));
        r
    };
    let unauthorized = |why: &str| refuse(false, why);
    if let (None, Some(anon)) = (headers.get(header::AUTHORIZATION), &s.anonymous) {
        return Ok(anon.clone());
    }
    let token = bearer(headers).ok_or_else(|| refuse(true, "a bearer token is required"))?;
    let oauth = s
        .oauth
        .as_ref()
        .filter(|_| jwt::looks_like_jwt(token) && (s.key.is_none() || oauth_shaped(s, token)));
    let role = if let Some(o) = oauth {
        oauth_role(s, o, token).await?
    } else if jwt::looks_like_jwt(token) {
        let Some(key) = &s.key else {
            return Err(unauthorized("no JWT key is configured"));
        };
        jwt::verify_with(token, key, crate::now_secs(), &s.expected)
            .map(|c| c.role)
            .map_err(|e| unauthorized(e.0))?
    } else {
        match opaque_token_role(s, token).await {
            Ok(Some(role)) => role,
            Ok(None) => return Err(unauthorized("unknown or expired token")),
            Err(e) => {
                eprintln!("pg_mcp_bridge: token lookup failed (does the authenticator have SELECT on mcp.bridge_token?): {}", db::describe(&e));
                return Err(unauthorized("token could not be checked"));
            }
        }
    };
    // A NUL or other control character cannot be in a role name; PostgreSQL would answer 22021.
    if role.chars().any(char::is_control) {
        return Err(rpc_status(
            StatusCode::BAD_REQUEST,
            -32600,
            "Bad Request: the token's role claim is not a role name",
        ));
    }
    Ok(role)
}

/// Which verifier checks a JWT when both are configured: the OAuth resource server takes every
/// token that names an issuer (`iss`), except the issuer of `--jwt-issuer`; the role-claim key
/// takes the others (PostgREST-style tokens carry no `iss`). The claim is read unverified, only
/// to choose: each verifier checks the whole token itself.
fn oauth_shaped(s: &Inner, token: &str) -> bool {
    jwt::unverified_issuer(token).is_some_and(|iss| s.expected.issuer.as_ref() != Some(&iss))
}

/// The role of an OAuth access token: verified by the resource server (401 when refused),
/// then its scopes mapped to a role by mcp.oauth_scope_role (403 `insufficient_scope` when
/// none maps to one).
async fn oauth_role(s: &Inner, o: &crate::oauth::OAuth, token: &str) -> Result<String, Response> {
    let scopes = o.verify(token, crate::now_secs()).await.map_err(|e| {
        let crate::oauth::Refusal::Invalid(why) = e;
        let mut r = rpc_status(
            StatusCode::UNAUTHORIZED,
            -32001,
            &format!("Unauthorized: {why}"),
        );
        if let Ok(v) = HeaderValue::from_str(&o.challenge(Some(why))) {
            r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
        }
        r
    })?;
    let lookup = async {
        let _permit = s.auth.permits.acquire().await.ok()?;
        let conn = checkout(&s.cfg, &s.auth)
            .await
            .map_err(|e| eprintln!("pg_mcp_bridge: scope lookup: {}", db::describe(&e)))
            .ok()?;
        let r = async {
            let role = conn
                .client
                .query_opt(
                    "SELECT role_name::text FROM mcp.oauth_scope_role WHERE scope = ANY($1::text[])
                      ORDER BY priority DESC, scope LIMIT 1",
                    &[&scopes],
                )
                .await?
                .map(|r| r.get::<_, String>(0));
            let mapped = match role {
                Some(_) => Vec::new(),
                None => {
                    conn.client
                        .query(
                            "SELECT scope FROM mcp.oauth_scope_role ORDER BY scope LIMIT 100",
                            &[],
                        )
                        .await?
                }
            };
            Ok::<_, tokio_postgres::Error>((role, mapped))
        }
        .await;
        checkin(&s.auth, conn).await;
        r.map_err(|e| eprintln!("pg_mcp_bridge: scope lookup failed (does the authenticator have SELECT on mcp.oauth_scope_role?): {}", db::describe(&e))).ok()
    };
    match lookup.await {
        Some((Some(role), _)) => Ok(role),
        Some((None, mapped)) => {
            let mapped: Vec<String> = mapped.iter().map(|r| r.get(0)).collect();
            let mut r = rpc_status(
                StatusCode::FORBIDDEN,
                -32001,
                "Forbidden: insufficient_scope (none of the token's scopes maps to a database role)",
            );
            if let Ok(v) = HeaderValue::from_str(&o.insufficient_scope(&mapped)) {
                r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
            }
            Err(r)
        }
        None => {
            let mut r = rpc_status(
                StatusCode::UNAUTHORIZED,
                -32001,
                "Unauthorized: token could not be checked",
            );
            if let Ok(v) = HeaderValue::from_str(&o.challenge(Some("token could not be checked"))) {
                r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
            }
            Err(r)
        }
    }
}

/// `GET /.well-known/oauth-protected-resource[/<path>]`: the RFC 9728 metadata, with the
/// scopes of mcp.oauth_scope_role (read as the authenticator, at most every few seconds).
/// Public, like the authorization server's own metadata: it names no secret.
async fn resource_metadata(State(s): State<Shared>) -> Response {
    let Some(o) = &s.oauth else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let cached = o
        .scopes_cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
        .filter(|(at, _)| at.elapsed() < crate::oauth::SCOPES_TTL)
        .map(|(_, v)| v.clone());
    if let Some(scopes) = cached {
        return json_response(StatusCode::OK, o.metadata(&scopes).to_string());
    }
    let scopes = async {
        let _permit = s.auth.permits.acquire().await.ok()?;
        let conn = checkout(&s.cfg, &s.auth).await.ok()?;
        let rows = conn
            .client
            .query(
                "SELECT scope FROM mcp.oauth_scope_role ORDER BY scope LIMIT 100",
                &[],
            )
            .await;
        checkin(&s.auth, conn).await;
        rows.map_err(|e| {
            eprintln!(
                "pg_mcp_bridge: scopes for the resource metadata: {}",
                db::describe(&e)
            )
        })
        .ok()
    };
    let scopes: Vec<String> = match scopes.await {
        Some(rows) => {
            let v: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
            *o.scopes_cache.lock().unwrap_or_else(|p| p.into_inner()) =
                Some((Instant::now(), v.clone()));
            v
        }
        None => Vec::new(),
    };
    json_response(StatusCode::OK, o.metadata(&scopes).to_string())
}

/// An anonymous role only on a loopback listener (anyone who can reach the port gets the
/// role, so it must not leave the machine) and only with a role name.
fn anonymous_allowed(listen: &str, role: &str) -> Result<(), String> {
    if role.is_empty() || role.chars().any(char::is_control) {
        return Err("not a role name".into());
    }
    let addr: std::net::SocketAddr = listen
        .parse()
        .map_err(|_| format!("--listen {listen} is not an IP address and port"))?;
    if !addr.ip().is_loopback() {
        return Err(format!(
            "only on a loopback address (127.0.0.1, ::1), not {listen}"
        ));
    }
    Ok(())
}

/// The role of an opaque token (by its SHA-256 in mcp.bridge_token, as the authenticator).
async fn opaque_token_role(
    s: &Inner,
    token: &str,
) -> Result<Option<String>, tokio_postgres::Error> {
    if token.len() > 512 {
        return Ok(None);
    }
    let hash = jwt::opaque_token_hash(token);
    let Ok(_permit) = s.auth.permits.acquire().await else {
        return Ok(None);
    };
    let conn = checkout(&s.cfg, &s.auth).await?;
    let row = conn
        .client
        .query_opt(
            "SELECT role_name::text FROM mcp.bridge_token
              WHERE token_hash = $1 AND (expires_at IS NULL OR expires_at > pg_catalog.now())",
            &[&hash],
        )
        .await;
    checkin(&s.auth, conn).await;
    Ok(row?.map(|r| r.get(0)))
}

/// A pooled connection (a new one when none is idle).
async fn checkout(cfg: &Config, pool: &Pool) -> Result<Conn, tokio_postgres::Error> {
    let pooled = {
        let mut idle = pool.idle.lock().await;
        let mut found = None;
        while let Some(c) = idle.pop() {
            if !c.client.is_closed() {
                found = Some(c);
                break;
            }
        }
        found
    };
    match pooled {
        Some(c) => Ok(c),
        None => {
            let (client, _, notices) = db::connect_with_notices(cfg).await?;
            Ok(Conn { client, notices })
        }
    }
}

async fn checkin(pool: &Pool, c: Conn) {
    *c.notices.lock().unwrap_or_else(|p| p.into_inner()) = None;
    if !c.client.is_closed() {
        pool.idle.lock().await.push(c);
    }
}

/// Origin/Host check, then the token: the role a request runs as.
async fn admit(s: &Inner, headers: &HeaderMap) -> Result<String, Response> {
    check_origin(s, headers)?;
    authenticate(s, headers).await
}

/// A revision mcp.handle speaks in neither era: 400 with UnsupportedProtocolVersionError
/// (-32022, listing the revisions it speaks), which a 2026-07-28 client recognizes.
fn check_version_header(headers: &HeaderMap) -> Result<(), Response> {
    match headers.get("mcp-protocol-version") {
        Some(v) if !modern::is_known(v.to_str().unwrap_or("")) => Err(json_response(
            StatusCode::BAD_REQUEST,
            mcp_protocol::error_response(
                &Value::Null,
                &modern::unsupported_version(v.to_str().unwrap_or("")),
            )
            .to_string(),
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

/// What a request needs of its session.
struct SessionRef {
    id: String,
    protocol_version: String,
    log_level: Option<String>,
    capabilities: Map<String, Value>,
    subscriptions: Arc<StdMutex<HashSet<String>>>,
    app_name: String,
    streams: Arc<AtomicUsize>,
    closed: watch::Receiver<bool>,
}

/// The session named by Mcp-Session-Id, if it belongs to `role` (a session is bound to the
/// role of the token that opened it: another role's token cannot use it) and has not expired.
fn session_of(s: &Inner, headers: &HeaderMap, role: &str) -> Result<SessionRef, Response> {
    let Some(id) = headers.get("mcp-session-id").and_then(|v| v.to_str().ok()) else {
        return Err(rpc_status(
            StatusCode::BAD_REQUEST,
            -32600,
            "Bad Request: Mcp-Session-Id header required",
        ));
    };
    let mut sessions = s.sessions.lock().unwrap_or_else(|p| p.into_inner());
    let now = Instant::now();
    match sessions.get_mut(id) {
        Some(sess) if sess.role == role => {
            if sess.streams.load(Ordering::Relaxed) == 0
                && now.duration_since(sess.last_used) >= s.limits.session_idle
            {
                if let Some(old) = sessions.remove(id) {
                    old.end();
                }
            } else {
                sess.last_used = now;
                return Ok(SessionRef {
                    id: id.to_string(),
                    protocol_version: sess.protocol_version.clone(),
                    log_level: sess.log_level.clone(),
                    capabilities: sess.capabilities.clone(),
                    subscriptions: sess.subscriptions.clone(),
                    app_name: sess.app_name.clone(),
                    streams: sess.streams.clone(),
                    closed: sess.closed.subscribe(),
                });
            }
        }
        _ => {}
    }
    Err(rpc_status(
        StatusCode::NOT_FOUND,
        -32600,
        "Session not found",
    ))
}

/// Keep a new session: beyond the role's share its own least recently used session goes,
/// beyond the total the least recently used of all (one role cannot push the others out
/// before it has spent its own share). A session with an open stream is evicted last.
fn add_session(s: &Inner, id: String, sess: Session) -> bool {
    let mut sessions = s.sessions.lock().unwrap_or_else(|p| p.into_inner());
    if s.limits.role_sessions == 0 {
        return false;
    }
    let lru = |sessions: &HashMap<String, Session>, role: Option<&str>| -> Option<String> {
        sessions
            .iter()
            .filter(|(_, v)| role.is_none_or(|r| v.role == r))
            .min_by_key(|(_, v)| (v.streams.load(Ordering::Relaxed) > 0, v.last_used))
            .map(|(k, _)| k.clone())
    };
    let own = sessions.values().filter(|v| v.role == sess.role).count();
    if own >= s.limits.role_sessions {
        if let Some(k) = lru(&sessions, Some(&sess.role)) {
            if let Some(old) = sessions.remove(&k) {
                old.end();
            }
        }
    }
    if sessions.len() >= s.limits.max_sessions {
        if let Some(k) = lru(&sessions, None) {
            if let Some(old) = sessions.remove(&k) {
                old.end();
            }
        }
    }
    sessions.insert(id, sess);
    true
}

enum Failure {
    RoleRefused,
    /// notifications/cancelled came before the request had started.
    Cancelled,
    Db(tokio_postgres::Error),
}

/// The semaphore of a role's share of the request connections.
fn role_semaphore(s: &Inner, role: &str) -> Arc<Semaphore> {
    let mut m = s.role_permits.lock().unwrap_or_else(|p| p.into_inner());
    if m.len() > 10_000 {
        // roles with nothing running or queued
        let full = s.limits.role_connections();
        m.retain(|_, sem| Arc::strong_count(sem) > 1 || sem.available_permits() < full);
    }
    m.entry(role.to_string())
        .or_insert_with(|| Arc::new(Semaphore::new(s.limits.role_connections())))
        .clone()
}

/// Removes an in-flight entry when the request ends, however it ends.
struct InFlight<'a> {
    s: &'a Inner,
    key: Option<(String, String)>,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if let Some(k) = self.key.take() {
            self.s
                .in_flight
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&k);
        }
    }
}

/// Run one message under the token's role in its own transaction. The role's share first
/// (FIFO), then a connection of the pool. The statement runs in a task of its own that holds
/// the connection and both permits: when the client goes away (this future is dropped) or
/// sends notifications/cancelled for it (`cancel`), the task cancels the statement and gives
/// the connection back only once the backend answered, so a slot is free only when its
/// backend is.
async fn forward(
    s: &Shared,
    role: &str,
    protocol_version: &str,
    app_name: &str,
    body: String,
    cancel: Option<Arc<Notify>>,
    events: Option<Events>,
) -> Result<Option<String>, Failure> {
    let role_permit = role_semaphore(s, role)
        .acquire_owned()
        .await
        .map_err(|_| Failure::RoleRefused)?;
    let permit = s
        .requests
        .permits
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| Failure::RoleRefused)?;
    let conn = checkout(&s.cfg, &s.requests).await.map_err(Failure::Db)?;
    let (tx, rx) = oneshot::channel();
    let task = Task {
        s: s.clone(),
        role: role.to_string(),
        protocol_version: protocol_version.to_string(),
        app_name: app_name.to_string(),
        body,
        cancel,
        events,
        permits: (role_permit, permit),
    };
    tokio::spawn(task.run(conn, tx));
    rx.await.unwrap_or(Err(Failure::RoleRefused))
}

/// How long the bridge waits for a cancelled statement to end before it cancels again.
const CANCEL_AGAIN_AFTER: Duration = Duration::from_millis(500);

struct Task {
    s: Shared,
    role: String,
    protocol_version: String,
    app_name: String,
    body: String,
    cancel: Option<Arc<Notify>>,
    events: Option<Events>,
    permits: (OwnedSemaphorePermit, OwnedSemaphorePermit),
}

impl Task {
    async fn run(self, conn: Conn, mut tx: oneshot::Sender<Result<Option<String>, Failure>>) {
        let Conn {
            mut client,
            notices,
        } = conn;
        let token = client.cancel_token();
        // the statement's notices, while it runs, to the call's response stream
        let (ntx, mut nrx) = mpsc::unbounded_channel();
        if self.events.is_some() {
            *notices.lock().unwrap_or_else(|p| p.into_inner()) = Some(ntx);
        }
        let events = &self.events;
        let relay = |n: tokio_postgres::error::DbError| {
            if let Some(ev) = events {
                if let Some(m) = crate::notices::notification(
                    n.severity(),
                    n.code().code(),
                    n.message(),
                    n.detail(),
                    ev.level.as_deref(),
                    ev.progress_token.as_ref(),
                ) {
                    let _ = ev.tx.send(m);
                }
            }
        };
        // cancelled while it waited for a connection: not run at all
        if let Some(n) = &self.cancel {
            use futures_util::FutureExt;
            if n.notified().now_or_never().is_some() {
                checkin(&self.s.requests, Conn { client, notices }).await;
                drop(self.permits);
                let _ = tx.send(Err(Failure::Cancelled));
                return;
            }
        }
        let mut discard = false;
        let result = {
            let work = in_transaction(
                &mut client,
                &self.role,
                &self.protocol_version,
                &self.app_name,
                self.s.interface.as_deref().unwrap_or(""),
                &self.s.console_url,
                &self.body,
            );
            tokio::pin!(work);
            let cancelled = async {
                match &self.cancel {
                    Some(n) => n.notified().await,
                    None => std::future::pending().await,
                }
            };
            tokio::pin!(cancelled);
            let stop = loop {
                tokio::select! {
                    r = &mut work => break Err(r),
                    _ = tx.closed() => break Ok(()),
                    _ = &mut cancelled => break Ok(()),
                    Some(n) = nrx.recv() => relay(n),
                }
            };
            match stop {
                Err(r) => r,
                Ok(()) => {
                    // The client went away or cancelled: cancel the statement, then wait for
                    // the backend's answer (the cancel's error, or the result if it was faster;
                    // a failed transaction is rolled back before that). A cancel that arrives
                    // between the request's statements (the backend idle in its transaction)
                    // cancels nothing, and the next statement would run whole: the cancel is
                    // sent again until the work ends, and then the connection is not reused
                    // (a late cancel could hit its rollback).
                    let mut sent = 0u32;
                    let r = loop {
                        if let Err(e) = token.cancel_query(NoTls).await {
                            eprintln!("pg_mcp_bridge: cancel request failed: {e}");
                        }
                        sent += 1;
                        if let Ok(r) = tokio::time::timeout(CANCEL_AGAIN_AFTER, &mut work).await {
                            break r;
                        }
                    };
                    discard = sent > 1;
                    r
                }
            }
        };
        // notices that arrived with the last of the statement's answer
        while let Ok(n) = nrx.try_recv() {
            relay(n);
        }
        if discard {
            drop(client);
        } else {
            checkin(&self.s.requests, Conn { client, notices }).await;
        }
        drop(self.permits);
        let _ = tx.send(result);
    }
}

/// The statements of one request, in one transaction (rolled back, and the rollback awaited,
/// on any failure).
async fn in_transaction(
    client: &mut Client,
    role: &str,
    protocol_version: &str,
    app_name: &str,
    iface: &str,
    console_url: &str,
    body: &str,
) -> Result<Option<String>, Failure> {
    let tx = client.transaction().await.map_err(Failure::Db)?;
    let steps = async {
        tx.execute("SELECT pg_catalog.set_config('role', $1, true)", &[&role])
            .await
            .map_err(|e| match e.code().map(|c| c.code()) {
                // not a member of that role, or no such role
                Some("42501") | Some("22023") | Some("42704") => Failure::RoleRefused,
                _ => Failure::Db(e),
            })?;
        // `none` (RESET ROLE) or the authenticator's own name would leave the request running
        // as the authenticator: only a role distinct from it may be used.
        let row = tx
            .query_one(
                "SELECT pg_catalog.set_config('mcp.protocol_version', $1, true),
                        pg_catalog.set_config('application_name', $2, true),
                        CASE WHEN $3 <> '' THEN pg_catalog.set_config('mcp.interface', $3, true) END,
                        pg_catalog.set_config('mcp.listen_delivered', 'on', true),
                        current_user OPERATOR(pg_catalog.=) session_user,
                        current_user::text,
                        pg_catalog.set_config('mcp.console_url', $4, true)",
                &[&protocol_version, &app_name, &iface, &console_url],
            )
            .await
            .map_err(Failure::Db)?;
        let same: bool = row.get(4);
        let current: String = row.get(5);
        if same || current != role {
            return Err(Failure::RoleRefused);
        }
        let row = tx
            .query_one(db::HANDLE_SQL, &[&body])
            .await
            .map_err(Failure::Db)?;
        Ok::<Option<String>, Failure>(row.get(0))
    };
    match steps.await {
        Ok(answer) => {
            tx.commit().await.map_err(Failure::Db)?;
            Ok(answer)
        }
        Err(f) => {
            let _ = tx.rollback().await;
            Err(f)
        }
    }
}

/// The body, read only after the token was accepted: at most `max_body` bytes within
/// `body_timeout`.
async fn read_body(s: &Inner, headers: &HeaderMap, body: Body) -> Result<Bytes, Response> {
    let too_large = || rpc_status(StatusCode::PAYLOAD_TOO_LARGE, -32600, "Request too large");
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > s.limits.max_body as u64) {
        return Err(too_large());
    }
    match tokio::time::timeout(
        s.limits.body_timeout,
        axum::body::to_bytes(body, s.limits.max_body),
    )
    .await
    {
        Ok(Ok(b)) => Ok(b),
        Ok(Err(_)) => Err(too_large()),
        Err(_) => Err(rpc_status(
            StatusCode::REQUEST_TIMEOUT,
            -32600,
            "Request body not received in time",
        )),
    }
}

async fn post_mcp(State(s): State<Shared>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let headers = parts.headers;
    let role = match admit(&s, &headers).await {
        Ok(r) => r,
        Err(r) => return r,
    };
    if let Err(r) = check_version_header(&headers) {
        return r;
    }
    let body = match read_body(&s, &headers, body).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let Ok(msg) = serde_json::from_slice::<Value>(&body) else {
        return rpc_status(StatusCode::BAD_REQUEST, -32700, "Parse error");
    };
    drop(body);
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    if db::has_nul(&msg) {
        return json_response(
            StatusCode::BAD_REQUEST,
            db::rpc_error(
                &id,
                -32600,
                "Invalid Request: U+0000 is not allowed in a message",
            ),
        );
    }
    // The standard headers must agree with the body (the rule is mcp_protocol's).
    if let Err(e) = modern::check_http_headers(&msg, |name| {
        headers
            .get(name)
            .map(|v| v.to_str().map(str::to_string).map_err(|_| ()))
    }) {
        return json_response(
            StatusCode::BAD_REQUEST,
            mcp_protocol::error_response(&id, &e).to_string(),
        );
    }
    let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
    let is_init = method == "initialize";
    // A request in a stateless revision (2026-07-28) has no session: it is forwarded with
    // its header's revision, and mcp.handle serves it by what its _meta says.
    // (The check above made a body's envelope version and the header agree.)
    let stateless = headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .filter(|v| (modern::is_modern(v) || modern::body_is_modern(&msg)) && !is_init)
        .map(str::to_string);
    let session = if is_init || stateless.is_some() {
        None
    } else {
        match session_of(&s, &headers, &role) {
            Ok(x) => Some(x),
            Err(r) => return r,
        }
    };
    if let Value::Array(items) = &msg {
        let version = session
            .as_ref()
            .map(|x| x.protocol_version.as_str())
            .unwrap_or("");
        if let Some(why) = db::batch_refusal(items.len(), version, s.limits.max_batch) {
            return rpc_status(StatusCode::BAD_REQUEST, -32600, &why);
        }
    }
    // A client's response to a server-to-client request of this session (a tool's input
    // request): to the call that waits for it.
    if let (Some(sess), true) = (&session, is_client_response(&msg)) {
        let key = (sess.id.clone(), id.to_string());
        let waiting = s
            .replies
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&key);
        if let Some(w) = waiting {
            let _ = w.send(msg);
            return StatusCode::ACCEPTED.into_response();
        }
    }
    // notifications/cancelled: cancel the session's running request with that id here (it
    // runs on another connection; mcp.handle has nothing to do for it).
    if method == "notifications/cancelled" {
        if let Some(sess) = &session {
            let key = (sess.id.clone(), msg["params"]["requestId"].to_string());
            let n = s
                .in_flight
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get(&key)
                .cloned();
            if let Some(n) = n {
                n.notify_one();
            }
        }
        return StatusCode::ACCEPTED.into_response();
    }
    let (session_id, version, app_name) = match &session {
        Some(x) => (x.id.clone(), x.protocol_version.clone(), x.app_name.clone()),
        None => {
            let (n, v) = db::client_info(&msg);
            let Some(id) = new_session_id() else {
                return rpc_status(StatusCode::INTERNAL_SERVER_ERROR, -32603, "Internal error");
            };
            (
                id,
                stateless.clone().unwrap_or_default(),
                db::application_name(n.as_deref(), v.as_deref()),
            )
        }
    };
    // a W3C traceparent in the request's _meta names this request's backend (not the session)
    let session_app_name = app_name.clone();
    let app_name = db::traced_application_name(&app_name, &msg);
    // a request with an id can be cancelled by notifications/cancelled of its session
    let mut registered = InFlight { s: &s, key: None };
    let cancel = if session.is_some() && msg.get("id").is_some() {
        let n = Arc::new(Notify::new());
        let key = (session_id.clone(), id.to_string());
        s.in_flight
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key.clone(), n.clone());
        registered.key = Some(key);
        Some(n)
    } else {
        None
    };
    // A tools/call whose client takes SSE, and asked for log messages (logging/setLevel) or
    // progress (_meta.progressToken), gets its answer as an SSE stream: the notices of the
    // statement as notifications first, then the response.
    let progress_token = msg["params"]["_meta"].get("progressToken").cloned();
    // the session's level (logging/setLevel), or a stateless request's own (_meta logLevel)
    let log_level = session
        .as_ref()
        .and_then(|x| x.log_level.clone())
        .or_else(|| {
            stateless.as_ref()?;
            msg["params"]["_meta"][modern::META_LOG_LEVEL]
                .as_str()
                .filter(|l| crate::notices::is_level(l))
                .map(str::to_string)
        });
    let accepts_sse = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/event-stream"));
    if method == "tools/call" && accepts_sse && (log_level.is_some() || progress_token.is_some()) {
        let (etx, erx) = mpsc::unbounded_channel();
        let events = Events {
            tx: etx.clone(),
            level: log_level.clone(),
            progress_token: progress_token.clone(),
        };
        let s2 = s.clone();
        let body = msg.to_string();
        let key = registered.key.take();
        let rounds = session.as_ref().map(|x| Rounds {
            role: role.clone(),
            version: version.clone(),
            app_name: app_name.clone(),
            session_id: session_id.clone(),
            capabilities: x.capabilities.clone(),
            closed: x.closed.clone(),
            msg: msg.clone(),
            cancel: cancel.clone(),
            level: log_level,
            progress_token,
            tx: etx,
        });
        let answer = async move {
            let _registered = InFlight { s: &s2, key };
            let mut r = forward(&s2, &role, &version, &app_name, body, cancel, Some(events)).await;
            if let Some(rounds) = rounds {
                r = rounds.drive(&s2, r).await;
            }
            sse_answer(&s2, r, &id)
        };
        return sse_response(erx, answer);
    }
    let result = forward(
        &s,
        &role,
        &version,
        &app_name,
        msg.to_string(),
        cancel.clone(),
        None,
    )
    .await;
    // A handshake client that did not declare URL-mode elicitation is told where its call waits
    // for a person's approval in a tool error, not with a -32042 it cannot follow.
    let result = match (&session, result) {
        (Some(sess), Ok(Some(a))) if method == "tools/call" && a.contains("-32042") => Ok(Some(
            serde_json::from_str::<Value>(&a)
                .ok()
                .and_then(|v| {
                    mcp_protocol::approval::legacy_answer_without_url(&v, &sess.capabilities)
                })
                .map_or(a, |v| v.to_string()),
        )),
        (_, r) => r,
    };
    // A handshake client's tools/call whose tool asked for input: the bridge sends the input
    // requests to the client on an SSE answer and calls again with the responses.
    if let (Some(sess), true) = (&session, method == "tools/call") {
        let asks = matches!(&result, Ok(Some(a)) if a.contains("\"input_required\"")
            && serde_json::from_str::<Value>(a).is_ok_and(|v| mcp_protocol::input::pending_input(&v).is_some()));
        if asks && !accepts_sse {
            return json_response(
                StatusCode::OK,
                db::rpc_error(
                    &id,
                    -32600,
                    "The tool asks the client for input, which needs an SSE answer: send Accept: application/json, text/event-stream",
                ),
            );
        }
        if asks {
            let (etx, erx) = mpsc::unbounded_channel();
            let rounds = Rounds {
                role: role.clone(),
                version: version.clone(),
                app_name: app_name.clone(),
                session_id: session_id.clone(),
                capabilities: sess.capabilities.clone(),
                closed: sess.closed.clone(),
                msg: msg.clone(),
                cancel: cancel.clone(),
                level: log_level,
                progress_token,
                tx: etx,
            };
            let s2 = s.clone();
            let key = registered.key.take();
            let answer = async move {
                let _registered = InFlight { s: &s2, key };
                let r = rounds.drive(&s2, result).await;
                sse_answer(&s2, r, &id)
            };
            return sse_response(erx, answer);
        }
    }
    drop(registered);
    match result {
        Ok(None) => StatusCode::ACCEPTED.into_response(),
        Ok(Some(answer)) if answer.len() > s.limits.max_response => {
            eprintln!(
                "pg_mcp_bridge: answer of {} bytes to {method} refused (--max-response-bytes {})",
                answer.len(),
                s.limits.max_response
            );
            json_response(
                StatusCode::OK,
                db::rpc_error(&id, -32603, "Response too large"),
            )
        }
        Ok(Some(answer))
            if stateless.is_some() && method == "subscriptions/listen" && accepts_sse =>
        {
            match listen_stream(&s, id.clone(), &answer) {
                Some(r) => r,
                None => {
                    let status = serde_json::from_str::<Value>(&answer)
                        .map(|a| modern::modern_http_status(&a))
                        .unwrap_or(200);
                    json_response(
                        StatusCode::from_u16(status).unwrap_or(StatusCode::OK),
                        answer,
                    )
                }
            }
        }
        Ok(Some(answer)) if stateless.is_some() => {
            // no session to keep; the status the revision gives the answer's error, if any
            let status = serde_json::from_str::<Value>(&answer)
                .map(|a| modern::modern_http_status(&a))
                .unwrap_or(200);
            json_response(
                StatusCode::from_u16(status).unwrap_or(StatusCode::OK),
                answer,
            )
        }
        Ok(Some(answer)) => {
            if method == "logging/setLevel" {
                remember_level(&s, &session_id, &msg, &answer);
            }
            if let Some(sess) = &session {
                remember_subscription(sess, method, &msg, &answer);
            }
            let negotiated = if is_init {
                serde_json::from_str::<Value>(&answer)
                    .ok()
                    .and_then(|v| v["result"]["protocolVersion"].as_str().map(str::to_string))
            } else {
                None
            };
            let mut r = json_response(StatusCode::OK, answer);
            if let Some(pv) = negotiated {
                let (closed, _) = watch::channel(false);
                let kept = add_session(
                    &s,
                    session_id.clone(),
                    Session {
                        role,
                        protocol_version: pv,
                        log_level: None,
                        capabilities: msg["params"]["capabilities"]
                            .as_object()
                            .cloned()
                            .unwrap_or_default(),
                        subscriptions: Arc::new(StdMutex::new(HashSet::new())),
                        app_name: session_app_name,
                        last_used: Instant::now(),
                        streams: Arc::new(AtomicUsize::new(0)),
                        closed,
                    },
                );
                if !kept {
                    return rpc_status(
                        StatusCode::SERVICE_UNAVAILABLE,
                        -32603,
                        "Too many sessions",
                    );
                }
                if let Ok(h) = HeaderValue::from_str(&session_id) {
                    r.headers_mut().insert("mcp-session-id", h);
                }
            }
            r
        }
        Err(Failure::Cancelled) => json_response(
            StatusCode::OK,
            db::rpc_error(&id, -32800, "Request cancelled"),
        ),
        Err(Failure::RoleRefused) => json_response(
            StatusCode::FORBIDDEN,
            db::rpc_error(&id, -32600, "Forbidden: the token's role may not be used"),
        ),
        Err(Failure::Db(e)) => {
            eprintln!(
                "pg_mcp_bridge: {method}: request failed: {}",
                db::describe(&e)
            );
            let status = if db::is_bad_input(&e) {
                StatusCode::BAD_REQUEST
            } else if db::is_cancel(&e) {
                StatusCode::OK
            } else {
                StatusCode::INTERNAL_SERVER_ERROR
            };
            json_response(status, db::db_failure(&id, &e))
        }
    }
}

/// A JSON-RPC response (an id, a result or an error, no method): what a client sends back for
/// a server-to-client request.
fn is_client_response(msg: &Value) -> bool {
    msg.get("method").is_none()
        && msg.get("id").is_some()
        && (msg.get("result").is_some() || msg.get("error").is_some())
}

/// How long the bridge waits for a client's response to an input request, and how many
/// rounds of input one call may ask for.
const INPUT_TIMEOUT: Duration = Duration::from_secs(600);
const MAX_INPUT_ROUNDS: usize = 10;
/// Ids of the bridge's server-to-client requests (`pg_mcp-<n>`).
static NEXT_SERVER_REQUEST: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// The input-request rounds of a handshake client's `tools/call` (multi round-trip requests
/// as the 2026-07-28 revision defines them, carried as the server-to-client requests of
/// 2025-11-25): each input request of the answer goes to the client as a JSON-RPC request on
/// the call's SSE stream; the responses come back as POSTs of the session; then the call is
/// sent again with `inputResponses`, in a new transaction. No database connection is held
/// while the client answers.
struct Rounds {
    role: String,
    version: String,
    app_name: String,
    session_id: String,
    capabilities: Map<String, Value>,
    closed: watch::Receiver<bool>,
    msg: Value,
    cancel: Option<Arc<Notify>>,
    level: Option<String>,
    progress_token: Option<Value>,
    tx: mpsc::UnboundedSender<String>,
}

/// Removes the waiting replies of a round, however it ends.
struct Waiting<'a> {
    s: &'a Inner,
    keys: Vec<(String, String)>,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let mut m = self.s.replies.lock().unwrap_or_else(|p| p.into_inner());
        for k in &self.keys {
            m.remove(k);
        }
    }
}

impl Rounds {
    async fn drive(
        mut self,
        s: &Shared,
        first: Result<Option<String>, Failure>,
    ) -> Result<Option<String>, Failure> {
        use mcp_protocol::input;
        let id = self.msg.get("id").cloned().unwrap_or(Value::Null);
        let mut answer = first;
        for _ in 0..MAX_INPUT_ROUNDS {
            let parsed = match &answer {
                Ok(Some(a)) => match serde_json::from_str::<Value>(a) {
                    Ok(v) => v,
                    Err(_) => return answer,
                },
                _ => return answer,
            };
            let Some((requests, state)) = input::pending_input(&parsed) else {
                return answer;
            };
            if let Some((key, method, cap)) =
                input::missing_capability(requests, &self.capabilities)
            {
                let text = format!(
                    "The tool needs {method} (input request '{key}'), and this client did not declare the capability '{cap}'."
                );
                return Ok(Some(
                    mcp_protocol::result_response(
                        &id,
                        json!({"content": [{"type": "text", "text": text}], "isError": true}),
                    )
                    .to_string(),
                ));
            }
            let mut waiting = Waiting {
                s,
                keys: Vec::new(),
            };
            let mut replies = Vec::new();
            for (key, req) in requests {
                let rid = format!(
                    "pg_mcp-{}",
                    NEXT_SERVER_REQUEST.fetch_add(1, Ordering::Relaxed)
                );
                let (otx, orx) = oneshot::channel();
                let k = (
                    self.session_id.clone(),
                    Value::String(rid.clone()).to_string(),
                );
                s.replies
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(k.clone(), otx);
                waiting.keys.push(k);
                let _ = self.tx.send(input::server_request(&rid, req).to_string());
                replies.push((key.clone(), orx));
            }
            let state = state.cloned();
            let deadline = tokio::time::Instant::now() + INPUT_TIMEOUT;
            let mut responses = Map::new();
            for (key, orx) in replies {
                let cancelled = async {
                    match &self.cancel {
                        Some(n) => n.notified().await,
                        None => std::future::pending().await,
                    }
                };
                let reply = tokio::select! {
                    r = orx => r.ok(),
                    _ = tokio::time::sleep_until(deadline) => None,
                    _ = cancelled => return Err(Failure::Cancelled),
                    _ = self.closed.changed() => None,
                };
                let Some(reply) = reply else {
                    return Ok(Some(db::rpc_error(
                        &id,
                        -32603,
                        &format!("No response from the client to the input request '{key}'"),
                    )));
                };
                if let Some(e) = reply.get("error") {
                    let msg = e.get("message").and_then(Value::as_str).unwrap_or("");
                    return Ok(Some(db::rpc_error(
                        &id,
                        -32603,
                        &format!(
                            "The client refused the input request '{key}': {}",
                            msg.chars().take(200).collect::<String>()
                        ),
                    )));
                }
                responses.insert(key, reply.get("result").cloned().unwrap_or(Value::Null));
            }
            drop(waiting);
            let again = input::retry_request(&self.msg, responses, state.as_ref());
            let events = Events {
                tx: self.tx.clone(),
                level: self.level.clone(),
                progress_token: self.progress_token.clone(),
            };
            answer = forward(
                s,
                &self.role,
                &self.version,
                &self.app_name,
                again.to_string(),
                self.cancel.clone(),
                Some(events),
            )
            .await;
        }
        Ok(Some(db::rpc_error(
            &id,
            -32603,
            &format!("The tool asked for input more than {MAX_INPUT_ROUNDS} times"),
        )))
    }
}

/// After a successful `resources/subscribe` / `resources/unsubscribe` (mcp.handle checked that
/// the caller can see the resource): the URIs whose updates reach the session's GET stream.
fn remember_subscription(sess: &SessionRef, method: &str, msg: &Value, answer: &str) {
    if method != "resources/subscribe" && method != "resources/unsubscribe" {
        return;
    }
    let ok = serde_json::from_str::<Value>(answer).is_ok_and(|v| v.get("result").is_some());
    let Some(uri) = msg["params"]["uri"].as_str().filter(|_| ok) else {
        return;
    };
    let mut set = sess.subscriptions.lock().unwrap_or_else(|p| p.into_inner());
    if method == "resources/unsubscribe" {
        set.remove(uri);
    } else if set.len() < crate::subscriptions::MAX_SESSION_SUBSCRIPTIONS {
        set.insert(uri.to_string());
    }
}

/// `subscriptions/listen` streams open at once (all clients together).
const MAX_LISTEN_STREAMS: usize = 256;
static LISTEN_STREAMS: AtomicUsize = AtomicUsize::new(0);

/// The stream of a 2026-07-28 `subscriptions/listen` that mcp.handle answered with the
/// honoured filter: the acknowledgement first, then what the filter asks for of the
/// database's notifications, until the client goes away or the bridge stops (then the
/// result that ends it).
fn listen_stream(s: &Shared, id: Value, answer: &str) -> Option<Response> {
    let v: Value = serde_json::from_str(answer).ok()?;
    let honoured = v["result"]["notifications"].as_object()?.clone();
    if LISTEN_STREAMS
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
            (n < MAX_LISTEN_STREAMS).then_some(n + 1)
        })
        .is_err()
    {
        return Some(rpc_status(
            StatusCode::SERVICE_UNAVAILABLE,
            -32603,
            "Too many subscriptions/listen streams open",
        ));
    }
    struct Slot;
    impl Drop for Slot {
        fn drop(&mut self) {
            LISTEN_STREAMS.fetch_sub(1, Ordering::Relaxed);
        }
    }
    let slot = Slot;
    let listen = Arc::new(crate::subscriptions::Listen::new(id, &honoured));
    let first = listen.acknowledgement(&honoured);
    let l2 = listen.clone();
    let mut stop = s.shutdown.clone();
    let notes = tokio_stream::wrappers::BroadcastStream::new(s.notes.subscribe())
        .filter_map(move |m| {
            let kept = m.ok().and_then(|m| l2.note(&m));
            async move { kept }
        })
        .take_until(async move {
            let _ = stop.wait_for(|v| *v).await;
        });
    let end = listen.end();
    let stream = futures_util::stream::once(async move { first })
        .chain(notes)
        .chain(futures_util::stream::once(async move { end }))
        .map(move |m| {
            let _held = &slot;
            Ok::<Event, Infallible>(Event::default().event("message").data(m))
        });
    Some(
        Sse::new(stream)
            .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
            .into_response(),
    )
}

/// After a successful `logging/setLevel`: the session's level for a tool's notices.
fn remember_level(s: &Inner, session_id: &str, msg: &Value, answer: &str) {
    let ok = serde_json::from_str::<Value>(answer).is_ok_and(|v| v.get("result").is_some());
    let level = msg["params"]["level"]
        .as_str()
        .filter(|l| crate::notices::is_level(l));
    if let (true, Some(level)) = (ok, level) {
        if let Some(sess) = s
            .sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_mut(session_id)
        {
            sess.log_level = Some(level.to_string());
        }
    }
}

/// The JSON-RPC answer of a streamed tools/call (the last event of its stream).
fn sse_answer(s: &Inner, r: Result<Option<String>, Failure>, id: &Value) -> Option<String> {
    match r {
        Ok(None) => None,
        Ok(Some(a)) if a.len() > s.limits.max_response => {
            Some(db::rpc_error(id, -32603, "Response too large"))
        }
        Ok(Some(a)) => Some(a),
        Err(Failure::Cancelled) => Some(db::rpc_error(id, -32800, "Request cancelled")),
        Err(Failure::RoleRefused) => Some(db::rpc_error(
            id,
            -32600,
            "Forbidden: the token's role may not be used",
        )),
        Err(Failure::Db(e)) => {
            eprintln!(
                "pg_mcp_bridge: tools/call: request failed: {}",
                db::describe(&e)
            );
            Some(db::db_failure(id, &e))
        }
    }
}

/// An SSE response: the notifications of `events` as they come, then the answer. The answer
/// future is polled by the stream, so a client that goes away drops it and the statement is
/// cancelled as for a JSON answer.
fn sse_response(
    events: mpsc::UnboundedReceiver<String>,
    answer: impl std::future::Future<Output = Option<String>> + Send + 'static,
) -> Response {
    struct St<F> {
        events: mpsc::UnboundedReceiver<String>,
        answer: Option<std::pin::Pin<Box<F>>>,
        last: Option<String>,
    }
    let st = St {
        events,
        answer: Some(Box::pin(answer)),
        last: None,
    };
    let stream = futures_util::stream::unfold(st, |mut st| async move {
        loop {
            if st.answer.is_none() {
                // the answer is in: what the statement said before it, then the answer
                if let Ok(m) = st.events.try_recv() {
                    return Some((
                        Ok::<Event, Infallible>(Event::default().event("message").data(m)),
                        st,
                    ));
                }
                let last = st.last.take()?;
                return Some((Ok(Event::default().event("message").data(last)), st));
            }
            let fut = st.answer.as_mut()?;
            tokio::select! {
                biased;
                Some(m) = st.events.recv() => {
                    return Some((Ok(Event::default().event("message").data(m)), st));
                }
                a = fut => {
                    st.answer = None;
                    st.last = a;
                }
            }
        }
    });
    Sse::new(stream).into_response()
}

/// Decrements a session's stream count when its SSE stream ends.
struct StreamSlot(Arc<AtomicUsize>);

impl Drop for StreamSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
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
    let sess = match session_of(&s, &headers, &role) {
        Ok(x) => x,
        Err(r) => return r,
    };
    let cap = s.limits.streams_per_session;
    if sess
        .streams
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
            (n < cap).then_some(n + 1)
        })
        .is_err()
    {
        return rpc_status(
            StatusCode::TOO_MANY_REQUESTS,
            -32600,
            "Too many streams open on this session",
        );
    }
    let slot = StreamSlot(sess.streams.clone());
    let mut stop = s.shutdown.clone();
    let mut closed = sess.closed;
    let subscribed = sess.subscriptions.clone();
    let stream = tokio_stream::wrappers::BroadcastStream::new(s.notes.subscribe())
        .filter_map(move |m| {
            let kept = m.ok().and_then(|m| {
                let set = subscribed.lock().unwrap_or_else(|p| p.into_inner());
                crate::subscriptions::for_session(&m, &set)
            });
            async move { kept }
        })
        .map(move |m| {
            let _held = &slot;
            Ok::<Event, Infallible>(Event::default().event("message").data(m))
        })
        .take_until(async move {
            tokio::select! {
                _ = stop.wait_for(|v| *v) => {},
                _ = closed.wait_for(|v| *v) => {},
            }
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
    match session_of(&s, &headers, &role) {
        Ok(sess) => {
            let removed = s
                .sessions
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&sess.id);
            if let Some(old) = removed {
                old.end();
            }
            StatusCode::OK.into_response()
        }
        Err(r) => r,
    }
}

/// What the web console (crate::console) uses of the bridge: the same Origin/Host check, the
/// same token check and the same request pool with its per-role shares.
impl crate::console::Bridge for Inner {
    fn origin_allowed(&self, headers: &HeaderMap) -> bool {
        check_origin(self, headers).is_ok()
    }

    fn authenticate<'a>(
        &'a self,
        token: Option<&'a str>,
    ) -> futures_util::future::BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let mut headers = HeaderMap::new();
            if let Some(t) = token {
                let v = HeaderValue::from_str(&format!("Bearer {t}"))
                    .map_err(|_| "that is not a token".to_string())?;
                headers.insert(header::AUTHORIZATION, v);
            }
            match authenticate(self, &headers).await {
                Ok(role) => Ok(role),
                Err(r) => {
                    // the refusal's own words (the JSON-RPC error message of the 401/403)
                    let body = axum::body::to_bytes(r.into_body(), 8192)
                        .await
                        .unwrap_or_default();
                    let msg = serde_json::from_slice::<Value>(&body)
                        .ok()
                        .and_then(|v| v["error"]["message"].as_str().map(str::to_string));
                    Err(msg.unwrap_or_else(|| "the token was refused".into()))
                }
            }
        })
    }

    fn lease(
        self: Arc<Self>,
        role: String,
    ) -> futures_util::future::BoxFuture<'static, Result<crate::console::Lease, String>> {
        Box::pin(async move {
            let closed = || "the bridge is shutting down".to_string();
            let role_permit = role_semaphore(&self, &role)
                .acquire_owned()
                .await
                .map_err(|_| closed())?;
            let permit = self
                .requests
                .permits
                .clone()
                .acquire_owned()
                .await
                .map_err(|_| closed())?;
            let Conn { client, notices } = checkout(&self.cfg, &self.requests)
                .await
                .map_err(|e| format!("cannot connect to the database: {}", db::describe(&e)))?;
            let s = self.clone();
            Ok(crate::console::Lease::new(
                client,
                Box::new(move |client| {
                    tokio::spawn(async move {
                        checkin(&s.requests, Conn { client, notices }).await;
                        drop((role_permit, permit));
                    });
                }),
            ))
        })
    }

    fn connection_settings(&self) -> Config {
        self.cfg.clone()
    }

    fn max_body(&self) -> usize {
        self.limits.max_body
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anonymous_role_only_on_loopback() {
        assert!(super::anonymous_allowed("127.0.0.1:0", "anon").is_ok());
        assert!(super::anonymous_allowed("[::1]:8765", "anon").is_ok());
        assert!(super::anonymous_allowed("0.0.0.0:8765", "anon").is_err());
        assert!(super::anonymous_allowed("192.0.2.1:8765", "anon").is_err());
        assert!(super::anonymous_allowed("localhost:8765", "anon").is_err());
        assert!(super::anonymous_allowed("127.0.0.1:0", "").is_err());
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive() {
        let h = |v: &str| {
            let mut m = HeaderMap::new();
            m.insert(header::AUTHORIZATION, HeaderValue::from_str(v).unwrap());
            m
        };
        assert_eq!(bearer(&h("Bearer abc")), Some("abc"));
        assert_eq!(bearer(&h("bearer abc")), Some("abc"));
        assert_eq!(bearer(&h("BEARER  abc ")), Some("abc"));
        assert_eq!(bearer(&h("Basic abc")), None);
        assert_eq!(bearer(&h("Bearer")), None);
        assert_eq!(bearer(&h("Bearer ")), None);
        assert_eq!(bearer(&HeaderMap::new()), None);
    }
}
