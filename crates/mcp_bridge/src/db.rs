//! Database side of the bridge: connecting (with the notification channel), the superuser
//! refusal, and the one statement the bridge runs.

use futures_util::StreamExt;
use std::sync::{Arc, Mutex as StdMutex};
use tokio::sync::mpsc;
use tokio_postgres::error::DbError;
use tokio_postgres::{AsyncMessage, Client, Config, NoTls, Notification};

/// LISTEN channel of the registry trigger (sql/mcp_server.sql).
pub const CHANNEL: &str = "mcp_registry_changed";

/// The statement that forwards one message.
pub const HANDLE_SQL: &str = "SELECT mcp.handle($1::text::jsonb)::text";

/// Where a connection's notices (NOTICE, WARNING, … of the statement it runs) go: the request
/// running on it sets a sender for its duration; otherwise they are dropped.
pub type NoticeSink = Arc<StdMutex<Option<mpsc::UnboundedSender<DbError>>>>;

/// Connect; notifications (LISTEN) arrive on the returned receiver, which closes when the
/// connection ends.
pub async fn connect(
    cfg: &Config,
) -> Result<(Client, mpsc::UnboundedReceiver<Notification>), tokio_postgres::Error> {
    connect_with_notices(cfg).await.map(|(c, rx, _)| (c, rx))
}

/// [`connect`], with the connection's notice sink.
pub async fn connect_with_notices(
    cfg: &Config,
) -> Result<(Client, mpsc::UnboundedReceiver<Notification>, NoticeSink), tokio_postgres::Error> {
    let (client, mut connection) = cfg.connect(NoTls).await?;
    let (tx, rx) = mpsc::unbounded_channel();
    let sink: NoticeSink = Arc::new(StdMutex::new(None));
    let notices = sink.clone();
    tokio::spawn(async move {
        let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(m) = messages.next().await {
            match m {
                Ok(AsyncMessage::Notification(n)) => {
                    let _ = tx.send(n);
                }
                Ok(AsyncMessage::Notice(n)) => {
                    if let Some(to) = notices.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
                        let _ = to.send(n);
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    eprintln!("pg_mcp_bridge: database connection ended: {e}");
                    break;
                }
            }
        }
    });
    Ok((client, rx, sink))
}

/// Whether the login role is a superuser (superusers bypass grants and row-level security,
/// which is what keeps an MCP client within its rights).
pub async fn is_superuser(client: &Client) -> Result<bool, tokio_postgres::Error> {
    let row = client
        .query_one(
            "SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) current_user",
            &[],
        )
        .await?;
    row.try_get(0)
}

/// What the HTTP authenticator owns (relations, functions, schemas, types in this database):
/// nothing should be there. Requests never run as the authenticator (the bridge refuses such
/// role claims), but whatever it owns is one mistake away from every token.
pub async fn authenticator_owns(client: &Client) -> Result<i64, tokio_postgres::Error> {
    let row = client
        .query_one(
            "SELECT (SELECT count(*) FROM pg_catalog.pg_class WHERE relowner OPERATOR(pg_catalog.=) r.oid)
                  + (SELECT count(*) FROM pg_catalog.pg_proc WHERE proowner OPERATOR(pg_catalog.=) r.oid)
                  + (SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspowner OPERATOR(pg_catalog.=) r.oid)
               FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) session_user",
            &[],
        )
        .await?;
    row.try_get(0)
}

/// `application_name` for a client: "pg_mcp_bridge <name>/<version>", printable ASCII only and
/// at most 63 bytes (PostgreSQL's limit).
/// The `application_name` of a request whose `params._meta` carries a W3C `traceparent`
/// (`00-<32 hex trace-id>-<16 hex parent-id>-<2 hex flags>`, checked strictly): the bridge's
/// name and the trace and parent ids, so the client's trace meets `pg_stat_activity`, the
/// server log (`%a`) and what a tool sees; 63 bytes, PostgreSQL's limit. Without a valid one,
/// `base`.
pub fn traced_application_name(base: &str, msg: &serde_json::Value) -> String {
    let tp = msg
        .get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get("traceparent"))
        .and_then(serde_json::Value::as_str);
    match tp.filter(|t| mcp_protocol::trace::traceparent_valid(t)) {
        Some(t) => {
            let parts: Vec<&str> = t.split('-').collect();
            format!("pg_mcp_bridge {}-{}", parts[1], parts[2])
        }
        None => base.to_string(),
    }
}

pub fn application_name(client_name: Option<&str>, client_version: Option<&str>) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_ascii_graphic() || *c == ' ')
            .take(40)
            .collect()
    };
    let mut s = String::from("pg_mcp_bridge");
    if let Some(n) = client_name.map(clean).filter(|n| !n.is_empty()) {
        s.push(' ');
        s.push_str(&n);
        if let Some(v) = client_version.map(clean).filter(|v| !v.is_empty()) {
            s.push('/');
            s.push_str(&v);
        }
    }
    s.truncate(63);
    s
}

/// The clientInfo of an initialize request.
pub fn client_info(msg: &serde_json::Value) -> (Option<String>, Option<String>) {
    // initialize's clientInfo, or a stateless (2026-07-28) request's own in its _meta
    let ci = match &msg["params"]["clientInfo"] {
        serde_json::Value::Null => &msg["params"]["_meta"][mcp_protocol::modern::META_CLIENT_INFO],
        ci => ci,
    };
    (
        ci["name"].as_str().map(str::to_string),
        ci["version"].as_str().map(str::to_string),
    )
}

/// Notification method for a registry-change payload.
pub fn list_changed(payload: &str) -> Option<String> {
    match payload {
        "tools" | "resources" | "prompts" => Some(format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/{payload}/list_changed"}}"#
        )),
        _ => None,
    }
}

/// Whether a JSON value holds U+0000 in a string or key (jsonb cannot store it: 22P05).
pub fn has_nul(v: &serde_json::Value) -> bool {
    use serde_json::Value;
    match v {
        Value::String(s) => s.contains('\0'),
        Value::Array(a) => a.iter().any(has_nul),
        Value::Object(o) => o.iter().any(|(k, v)| k.contains('\0') || has_nul(v)),
        _ => false,
    }
}

/// The revisions with JSON-RPC batches (2025-06-18 removed them).
pub const BATCH_VERSIONS: &[&str] = &["2025-03-26"];

/// Why a batch is refused under the negotiated revision `version` (empty: none yet), or None.
pub fn batch_refusal(items: usize, version: &str, max_batch: usize) -> Option<String> {
    if !BATCH_VERSIONS.contains(&version) {
        let v = if version.is_empty() {
            "(none negotiated)"
        } else {
            version
        };
        return Some(format!(
            "Invalid Request: protocol revision {v} has no JSON-RPC batches"
        ));
    }
    (items > max_batch)
        .then(|| format!("Invalid Request: a batch holds at most {max_batch} messages"))
}

/// A JSON-RPC error response text.
pub fn rpc_error(id: &serde_json::Value, code: i64, message: &str) -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        .to_string()
}

/// An error for the operator's log: the SQLSTATE and PostgreSQL's message (tokio-postgres
/// prints only "db error" for a server error).
pub fn describe(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(d) => format!("SQLSTATE {}: {}", d.code().code(), d.message()),
        None => e.to_string(),
    }
}

/// A data exception (SQLSTATE class 22: an untranslatable character, an invalid byte
/// sequence, bad JSON input) is the client's bad input, not a server fault.
pub fn is_bad_input(e: &tokio_postgres::Error) -> bool {
    e.code().is_some_and(|c| c.code().starts_with("22"))
}

/// The statement was cancelled (statement timeout, or the client's cancel).
pub fn is_cancel(e: &tokio_postgres::Error) -> bool {
    e.code().is_some_and(|c| c.code() == "57014")
}

/// The error answered when the database call itself failed (mcp.handle turns everything
/// else into JSON-RPC errors): no database detail beyond the SQLSTATE.
pub fn db_failure(id: &serde_json::Value, e: &tokio_postgres::Error) -> String {
    let (code, message) = match e.code() {
        Some(c) if c.code() == "57014" => {
            (-32603, "Request canceled (statement timeout or cancel)")
        }
        Some(c) if c.code() == "42883" || c.code() == "3F000" => (
            -32603,
            "mcp.handle() is not available in this database (CREATE EXTENSION pg_mcp)",
        ),
        Some(c) if c.code() == "42501" => (-32603, "Permission denied"),
        Some(c) if c.code().starts_with("22") => (
            -32600,
            "Invalid Request: the message holds data PostgreSQL cannot take (e.g. U+0000)",
        ),
        _ if e.is_closed() => (-32603, "Database connection lost; retry"),
        _ => (-32603, "Internal error"),
    };
    serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {
        "code": code, "message": message,
        "data": {"sqlstate": e.code().map(|c| c.code().to_string())}}})
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traceparent_names_the_request() {
        use serde_json::json;
        let tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let msg = json!({"params": {"_meta": {"traceparent": tp}}});
        let name = traced_application_name("pg_mcp_bridge x/1", &msg);
        assert_eq!(
            name,
            "pg_mcp_bridge 4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7"
        );
        assert_eq!(name.len(), 63);
        for bad in [
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'; DROP",
        ] {
            let msg = json!({"params": {"_meta": {"traceparent": bad}}});
            assert_eq!(traced_application_name("base", &msg), "base", "{bad}");
        }
        assert_eq!(
            traced_application_name("base", &json!({"params": {}})),
            "base"
        );
    }

    #[test]
    fn application_names_are_clean_and_short() {
        assert_eq!(application_name(None, None), "pg_mcp_bridge");
        assert_eq!(
            application_name(Some("claude-ai"), Some("0.1.0")),
            "pg_mcp_bridge claude-ai/0.1.0"
        );
        assert_eq!(
            application_name(Some("a\u{7}b\nc"), Some("")),
            "pg_mcp_bridge abc"
        );
        assert!(application_name(Some(&"x".repeat(200)), Some(&"y".repeat(200))).len() <= 63);
    }

    #[test]
    fn nul_is_found_in_strings_and_keys() {
        assert!(has_nul(&serde_json::json!({"a": ["x\u{0}"]})));
        assert!(has_nul(&serde_json::json!({"a\u{0}": 1})));
        assert!(!has_nul(&serde_json::json!({"a": ["x\\u0000"]})));
    }

    #[test]
    fn batches_only_where_the_revision_has_them() {
        assert!(batch_refusal(2, "2025-03-26", 16).is_none());
        assert!(batch_refusal(17, "2025-03-26", 16).is_some());
        assert!(batch_refusal(1, "2025-06-18", 16).is_some());
        assert!(batch_refusal(1, "2025-11-25", 16).is_some());
        assert!(batch_refusal(1, "", 16).is_some());
    }

    #[test]
    fn notifications_for_known_payloads_only() {
        assert_eq!(
            list_changed("tools").unwrap(),
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#
        );
        assert!(list_changed("evil\"}").is_none());
    }
}
