//! What PostgreSQL says while a tool runs, as MCP notifications on the call's response stream:
//! a NOTICE/WARNING/INFO becomes `notifications/message` at the client's log level
//! (`logging/setLevel`), and `mcp.report_progress()` (a NOTICE with SQLSTATE PM001 whose
//! detail is `{"progress": …, "total": …}`) becomes `notifications/progress` for the request's
//! `_meta.progressToken`.

use serde_json::{json, Value};

/// SQLSTATE of the NOTICE raised by `mcp.report_progress()` (sql/mcp_content.sql).
pub const PROGRESS_SQLSTATE: &str = "PM001";

/// MCP log levels, lowest first (RFC 5424 severities).
pub const LEVELS: &[&str] = &[
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

fn rank(level: &str) -> Option<usize> {
    LEVELS.iter().position(|l| *l == level)
}

/// The MCP level of a PostgreSQL message severity (the non-localized field).
pub fn level_of(severity: &str) -> &'static str {
    match severity {
        "DEBUG" => "debug",
        "INFO" | "LOG" => "info",
        "NOTICE" => "notice",
        "WARNING" => "warning",
        _ => "error",
    }
}

/// A valid MCP log level, as `logging/setLevel` names it.
pub fn is_level(level: &str) -> bool {
    rank(level).is_some()
}

/// One notice as a notification, or None when the client did not ask for it: a progress
/// report without a progress token, or a message below the client's level (or with none set).
pub fn notification(
    severity: &str,
    code: &str,
    message: &str,
    detail: Option<&str>,
    client_level: Option<&str>,
    progress_token: Option<&Value>,
) -> Option<String> {
    if code == PROGRESS_SQLSTATE {
        let token = progress_token?;
        let d: Value = serde_json::from_str(detail.unwrap_or("{}")).ok()?;
        let mut params = json!({"progressToken": token, "progress": d.get("progress")?.as_f64()?});
        if let Some(t) = d.get("total").and_then(Value::as_f64) {
            params["total"] = json!(t);
        }
        if message != "progress" {
            params["message"] = json!(message);
        }
        return Some(
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
                .to_string(),
        );
    }
    let level = level_of(severity);
    if rank(level)? < rank(client_level?)? {
        return None;
    }
    Some(
        json!({"jsonrpc": "2.0", "method": "notifications/message",
               "params": {"level": level, "logger": "postgresql", "data": message}})
        .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_follow_the_clients_level() {
        let n = notification("NOTICE", "00000", "started", None, Some("debug"), None).unwrap();
        let v: Value = serde_json::from_str(&n).unwrap();
        assert_eq!(v["method"], "notifications/message");
        assert_eq!(v["params"]["level"], "notice");
        assert_eq!(v["params"]["data"], "started");
        assert!(notification("NOTICE", "00000", "x", None, Some("warning"), None).is_none());
        assert!(notification("WARNING", "01000", "x", None, Some("warning"), None).is_some());
        assert!(notification("INFO", "00000", "x", None, Some("notice"), None).is_none());
        // no level set: no log messages
        assert!(notification("WARNING", "01000", "x", None, None, None).is_none());
        assert!(notification("NOTICE", "00000", "x", None, Some("bogus"), None).is_none());
        assert!(is_level("emergency") && !is_level("trace"));
    }

    #[test]
    fn progress_needs_a_token() {
        let d = Some(r#"{"progress": 50, "total": 100}"#);
        let token = json!("t-1");
        let n = notification("NOTICE", "PM001", "progress", d, None, Some(&token)).unwrap();
        let v: Value = serde_json::from_str(&n).unwrap();
        assert_eq!(v["method"], "notifications/progress");
        assert_eq!(
            v["params"],
            json!({"progressToken": "t-1", "progress": 50.0, "total": 100.0})
        );
        let n = notification(
            "NOTICE",
            "PM001",
            "half",
            Some(r#"{"progress": 1, "total": null}"#),
            None,
            Some(&json!(7)),
        )
        .unwrap();
        let v: Value = serde_json::from_str(&n).unwrap();
        assert_eq!(
            v["params"],
            json!({"progressToken": 7, "progress": 1.0, "message": "half"})
        );
        assert!(notification("NOTICE", "PM001", "progress", d, Some("debug"), None).is_none());
        assert!(notification(
            "NOTICE",
            "PM001",
            "progress",
            Some("not json"),
            None,
            Some(&token)
        )
        .is_none());
    }
}
