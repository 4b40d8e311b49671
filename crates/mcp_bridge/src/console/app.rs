//! The console's state (the bridge, the sessions, the templates), what a handler knows of a
//! request and of the signed-in person, and the page responses.

use super::bridge::Bridge;
use super::session::Sessions;
use axum::body::Body;
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// The console's state: the bridge, the sessions, the templates.
pub struct Console {
    pub bridge: Arc<dyn Bridge>,
    pub sessions: Sessions,
    pub templates: minijinja::Environment<'static>,
    /// Sign-in with a database user name and password too (PG_MCP_CONSOLE_PASSWORD_LOGIN=1).
    pub password_login: bool,
}

/// The templates, compiled into the binary. Their names end in .html: minijinja escapes every
/// `{{ … }}` for HTML.
const TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("templates/base.html")),
    ("login.html", include_str!("templates/login.html")),
    ("runs.html", include_str!("templates/runs.html")),
    ("run.html", include_str!("templates/run.html")),
    ("chat.html", include_str!("templates/chat.html")),
    ("analyze.html", include_str!("templates/analyze.html")),
    ("approvals.html", include_str!("templates/approvals.html")),
    ("registry.html", include_str!("templates/registry.html")),
    ("entity.html", include_str!("templates/entity.html")),
    ("retrieval.html", include_str!("templates/retrieval.html")),
    ("charts.html", include_str!("templates/charts.html")),
    ("chart.html", include_str!("templates/chart.html")),
    ("error.html", include_str!("templates/error.html")),
    ("refusal.html", include_str!("templates/refusal.html")),
];

pub fn environment() -> Result<minijinja::Environment<'static>, String> {
    let mut env = minijinja::Environment::new();
    for (name, src) in TEMPLATES {
        env.add_template(name, src)
            .map_err(|e| format!("console template {name}: {e}"))?;
    }
    Ok(env)
}

/// The signed-in person of a request.
pub struct Who {
    pub sid: String,
    pub role: String,
    pub csrf: String,
}

/// A parsed request: method, path below /console, query and form fields.
pub struct Req {
    pub method: Method,
    pub path: String,
    pub query: HashMap<String, String>,
    pub form: HashMap<String, String>,
    pub secure: bool,
}

impl Req {
    pub fn q(&self, k: &str) -> Option<&str> {
        self.query
            .get(k)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
    pub fn f(&self, k: &str) -> Option<&str> {
        self.form.get(k).map(String::as_str)
    }
}

pub fn text(status: StatusCode, msg: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        msg.to_string(),
    )
        .into_response()
}

pub fn redirect(to: &str) -> Response {
    let mut r = StatusCode::SEE_OTHER.into_response();
    if let Ok(v) = HeaderValue::from_str(to) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r
}

impl Console {
    /// A page: the template with the context, plus what the layout needs (the role, the CSRF
    /// token of the forms, the current page).
    pub fn render(&self, name: &str, mut ctx: Value, who: Option<&Who>) -> Response {
        if let (Some(w), Some(obj)) = (who, ctx.as_object_mut()) {
            obj.insert("me".into(), json!({"role": w.role, "csrf": w.csrf}));
        }
        let rendered = self
            .templates
            .get_template(name)
            .and_then(|t| t.render(minijinja::Value::from(minijinja::value::Serde(&ctx))));
        match rendered {
            Ok(html) => (
                [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
                Body::from(html),
            )
                .into_response(),
            Err(e) => {
                eprintln!("pg_mcp_bridge: console template {name}: {e}");
                text(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "the page could not be rendered",
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn templates_compile_and_escape() {
        let env = environment().unwrap();
        let ctx = json!({"error": {"message": "<script>alert(1)</script>", "sqlstate": "42501"}});
        let html = env
            .get_template("login.html")
            .unwrap()
            .render(minijinja::Value::from(minijinja::value::Serde(&ctx)))
            .unwrap();
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;&#x2f;script&gt;"),
            "{html}"
        );
        assert!(!html.contains("<script>"));
        for (name, src) in TEMPLATES {
            assert!(
                !src.contains("|safe") && !src.contains("| safe"),
                "{name} marks a value safe"
            );
            // one script in the console: the chat page's, served from the binary
            let allowed = r#"<script src="/console/static/chat.js" defer></script>"#;
            let rest = if *name == "chat.html" {
                src.replacen(allowed, "", 1)
            } else {
                src.to_string()
            };
            assert!(!rest.contains("<script"), "{name} holds a script");
            assert!(
                !src.contains("style=\""),
                "{name} holds an inline style (the CSP refuses it)"
            );
        }
    }
}
