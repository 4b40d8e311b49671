//! The web console: server-rendered pages under `/console` of `pg_mcp_bridge http`, on the same
//! listener, for the people around the agent (runs and their timelines, chat, analyze,
//! approvals, the registry, retrieval, charts). docs/console.md is the user's page.
//!
//! Security is the MCP endpoint's: the bridge's own Origin/Host check and token check (a bridge
//! token, a JWT or an OAuth access token names the role), and every page's SQL on the bridge's
//! pool in a transaction under `SET LOCAL ROLE` to that role: PostgreSQL's grants and
//! row-level security decide what a person sees and may change; the console has no permission
//! model of its own. Around it, what a browser needs: a session cookie (HttpOnly,
//! SameSite=Strict, Secure over TLS) bound to the role, a CSRF token in every form and an
//! Origin on every POST, a Content-Security-Policy that allows no script at all, and every
//! field rendered through the templates' HTML autoescape (minijinja, no `|safe` anywhere).

mod app;
mod bridge;
mod chat;
mod db;
pub mod forms;
mod pages;
mod registry;
pub mod session;
pub mod view;

use app::{redirect, text, Console, Req, Who};
pub use bridge::{Bridge, Lease};

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde_json::json;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

const CSS: &str = include_str!("console.css");
/// The chat page's live progress (progressive enhancement; the only script of the console).
const CHAT_JS: &str = include_str!("chat.js");

/// The routes under `/console`, with their own state (merged into the bridge's router).
pub fn router(bridge: Arc<dyn Bridge>) -> Result<Router, String> {
    let console = Arc::new(Console {
        bridge,
        sessions: session::Sessions::new(
            Duration::from_secs(30 * 60),
            Duration::from_secs(8 * 3600),
            10_000,
        ),
        templates: app::environment()?,
        password_login: std::env::var("PG_MCP_CONSOLE_PASSWORD_LOGIN").is_ok_and(|v| v == "1"),
    });
    Ok(Router::new()
        .route("/console", axum::routing::any(handle))
        .route("/console/", axum::routing::any(handle))
        .route("/console/{*rest}", axum::routing::any(handle))
        .with_state(console))
}

/// Headers on every console response: no script runs but the console's own file (no inline
/// script, no eval), requests only to the console's origin, nothing is framed or cached, the
/// Origin of a same-origin POST is sent (Referrer-Policy same-origin keeps it).
const CSP: &str = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; \
                   img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

fn secure_headers(r: &mut Response) {
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    h.entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
}

fn parse_pairs(s: &[u8]) -> HashMap<String, String> {
    url::form_urlencoded::parse(s)
        .into_owned()
        .take(200)
        .collect()
}

async fn handle(State(c): State<Arc<Console>>, req: Request) -> Response {
    let mut r = route(&c, req).await;
    secure_headers(&mut r);
    r
}

async fn route(c: &Arc<Console>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let headers = parts.headers;
    if !c.bridge.origin_allowed(&headers) {
        return text(
            StatusCode::FORBIDDEN,
            "Forbidden: Origin or Host not allowed",
        );
    }
    let method = parts.method;
    let path = parts
        .uri
        .path()
        .strip_prefix("/console")
        .unwrap_or("")
        .trim_end_matches('/')
        .to_string();
    let query = parse_pairs(parts.uri.query().unwrap_or("").as_bytes());
    let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok());
    let secure = origin.is_some_and(|o| o.starts_with("https://"))
        || headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.eq_ignore_ascii_case("https"));
    let mut form = HashMap::new();
    if method == Method::POST {
        // a browser sends Origin on every POST (Referrer-Policy same-origin keeps it); one
        // without it is not a form of these pages
        if origin.is_none() {
            return text(
                StatusCode::FORBIDDEN,
                "Forbidden: a POST needs an Origin header",
            );
        }
        let is_form = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
        if !is_form {
            return text(StatusCode::UNSUPPORTED_MEDIA_TYPE, "a form is expected");
        }
        let max = c.bridge.max_body().min(1 << 20);
        match tokio::time::timeout(Duration::from_secs(30), axum::body::to_bytes(body, max)).await {
            Ok(Ok(b)) => form = parse_pairs(&b),
            Ok(Err(_)) => return text(StatusCode::PAYLOAD_TOO_LARGE, "Request too large"),
            Err(_) => {
                return text(
                    StatusCode::REQUEST_TIMEOUT,
                    "Request body not received in time",
                )
            }
        }
    } else if method != Method::GET && method != Method::HEAD {
        return text(StatusCode::METHOD_NOT_ALLOWED, "GET or POST");
    }
    let req = Req {
        method,
        path,
        query,
        form,
        secure,
    };
    match (req.method.clone(), req.path.as_str()) {
        (_, "/static/console.css") => {
            let mut r = ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], CSS).into_response();
            r.headers_mut().insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=300"),
            );
            return r;
        }
        (_, "/static/chat.js") => {
            let mut r = (
                [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
                CHAT_JS,
            )
                .into_response();
            r.headers_mut().insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=300"),
            );
            return r;
        }
        (Method::GET, "/login") => {
            return c.render(
                "login.html",
                json!({"error": null, "password_login": c.password_login}),
                None,
            )
        }
        (Method::POST, "/login") => return pages::login(c, &req).await,
        _ => {}
    }
    let who = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>();
    let who = session::cookie_value(who.into_iter())
        .and_then(|sid| c.sessions.get(&sid, Instant::now()).map(|s| (sid, s)));
    let Some((sid, s)) = who else {
        if req.method == Method::POST {
            return text(StatusCode::FORBIDDEN, "Forbidden: not signed in");
        }
        return redirect("/console/login");
    };
    let who = Who {
        sid,
        role: s.role,
        csrf: s.csrf,
    };
    if req.method == Method::POST && !session::csrf_matches(req.f("csrf"), &who.csrf) {
        return text(
            StatusCode::FORBIDDEN,
            "Forbidden: the form's CSRF token is missing or wrong (reload the page)",
        );
    }
    pages::dispatch(c, &req, &who).await
}
