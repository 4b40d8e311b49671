//! A direct `tools/call` of a tool that requires a person's approval, as the revisions ask for
//! it: a URL-mode elicitation pointing to the console's approval page.
//!
//! The client only relays: whatever it answers (`accept` included) is not an approval. The
//! server records the pending call (`mcp.approval`, no run), answers with the URL, and runs the
//! call on the client's retry only once a person with the right to decide approved it there or
//! in SQL. The shapes:
//! - 2026-07-28: an `InputRequiredResult` whose one input request is an `elicitation/create` of
//!   mode `url` (`message`, `url`; this revision has no `elicitationId`); the client retries
//!   the same `tools/call` with `inputResponses`.
//! - 2025-11-25: the error `URLElicitationRequiredError` (-32042) with
//!   `data.elicitations: [{mode: "url", elicitationId, url, message}]`; the client retries the
//!   same request.

use crate::RpcError;
use serde_json::{json, Map, Value};

/// `URLElicitationRequiredError` of the 2025-11-25 revision (retired in 2026-07-28, where URL
/// mode travels as an input request).
pub const URL_ELICITATION_REQUIRED: i64 = -32042;

/// The key of the approval's input request in a 2026-07-28 `InputRequiredResult`.
pub const APPROVAL_KEY: &str = "approval";

/// The console page where a person decides approval `id`: `<console>/approvals#<id>`. `None`
/// when `console` is not an absolute `http(s)://` URL without query or fragment, or `id` is not
/// made of the characters of a UUID.
pub fn approval_url(console: &str, id: &str) -> Option<String> {
    let base = console.trim_end_matches('/');
    let rest = base
        .strip_prefix("https://")
        .or_else(|| base.strip_prefix("http://"))?;
    let host = rest.split('/').next().unwrap_or("");
    if host.is_empty()
        || base.len() > 2000
        || base.contains(['?', '#'])
        || base.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return None;
    }
    if id.is_empty() || id.len() > 64 || !id.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
        return None;
    }
    Some(format!("{base}/approvals#{id}"))
}

/// What the client shows its user.
pub fn message(tool: &str) -> String {
    format!(
        "Tool '{}' needs a person's approval before it runs. Open the approval page, where someone allowed to approve decides; then the call can be retried.",
        tool.chars().take(64).collect::<String>()
    )
}

/// Whether a 2026-07-28 client's `clientCapabilities` take URL-mode elicitation
/// (`elicitation.url`).
pub fn client_takes_url(capabilities: &Map<String, Value>) -> bool {
    capabilities
        .get("elicitation")
        .and_then(|e| e.get("url"))
        .is_some_and(Value::is_object)
}

/// 2026-07-28: the `InputRequiredResult` asking the client to send its user to `url`.
pub fn input_required(url: &str, message: &str) -> Value {
    let mut requests = Map::new();
    requests.insert(
        APPROVAL_KEY.into(),
        json!({"method": "elicitation/create",
               "params": {"mode": "url", "message": message, "url": url}}),
    );
    crate::input::input_required_result(requests)
}

/// 2025-11-25: the `URLElicitationRequiredError` naming the elicitation `id`.
pub fn url_elicitation_required(url: &str, id: &str, message: &str) -> RpcError {
    RpcError::new(
        URL_ELICITATION_REQUIRED,
        format!("This request requires approval: {url}"),
    )
    .with_data(json!({"elicitations": [
        {"mode": "url", "elicitationId": id, "url": url, "message": message}]}))
}

/// For the bridge, which holds a handshake client's `initialize` capabilities: the answer a
/// client that did not declare URL-mode elicitation (`elicitation.url`; an empty `elicitation`
/// is form mode only) gets instead of a `URLElicitationRequiredError` — a tool error saying
/// where the call waits for a person's approval. `None`: the answer is not that error, or the
/// client takes URL mode.
pub fn legacy_answer_without_url(
    answer: &Value,
    capabilities: &Map<String, Value>,
) -> Option<Value> {
    let error = answer.get("error")?;
    if error.get("code").and_then(Value::as_i64) != Some(URL_ELICITATION_REQUIRED)
        || client_takes_url(capabilities)
    {
        return None;
    }
    let el = error.pointer("/data/elicitations/0")?;
    let id = el
        .get("elicitationId")
        .and_then(Value::as_str)
        .unwrap_or("");
    let url = el.get("url").and_then(Value::as_str).unwrap_or("");
    let text = format!(
        "This tool call needs a person's approval before it runs, and this client did not declare URL-mode elicitation: approval {id} waits at {url}. Someone allowed to approve (mcp_approver) decides there or with SELECT mcp.approve('{id}'); then call again with the same arguments."
    );
    Some(crate::result_response(
        &answer.get("id").cloned().unwrap_or(Value::Null),
        json!({"content": [{"type": "text", "text": text}], "isError": true}),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "0b5e7a6c-93a1-4d0e-9d61-1f5a2c3b4d5e";

    #[test]
    fn the_url_names_the_approval_on_the_console() {
        assert_eq!(
            approval_url("http://127.0.0.1:8765/console", ID).unwrap(),
            format!("http://127.0.0.1:8765/console/approvals#{ID}")
        );
        assert_eq!(
            approval_url("https://db.example.com/console/", ID).unwrap(),
            format!("https://db.example.com/console/approvals#{ID}")
        );
        for bad in [
            "",
            "console",
            "ftp://x/console",
            "http:///console",
            "http://x/console?a=1",
            "http://x/con sole",
            "javascript:alert(1)",
        ] {
            assert_eq!(approval_url(bad, ID), None, "{bad}");
        }
        assert_eq!(approval_url("http://x/console", "<script>"), None);
        assert_eq!(approval_url("http://x/console", ""), None);
    }

    #[test]
    fn both_eras_shapes() {
        let url = format!("http://x/console/approvals#{ID}");
        let r = input_required(&url, "m");
        assert_eq!(r["resultType"], "input_required");
        let req = &r["inputRequests"][APPROVAL_KEY];
        assert_eq!(req["method"], "elicitation/create");
        assert_eq!(
            req["params"],
            json!({"mode": "url", "message": "m", "url": url})
        );
        let e = url_elicitation_required(&url, ID, "m");
        assert_eq!(e.code, -32042);
        assert_eq!(
            e.data.unwrap()["elicitations"],
            json!([{"mode": "url", "elicitationId": ID, "url": url, "message": "m"}])
        );
    }

    #[test]
    fn url_mode_must_be_declared() {
        let caps = |v: Value| v.as_object().unwrap().clone();
        assert!(client_takes_url(&caps(
            json!({"elicitation": {"form": {}, "url": {}}})
        )));
        assert!(!client_takes_url(&caps(json!({"elicitation": {}}))));
        assert!(!client_takes_url(&caps(
            json!({"elicitation": {"url": true}})
        )));
        assert!(!client_takes_url(&caps(json!({}))));
    }

    #[test]
    fn a_handshake_client_without_url_mode_gets_a_tool_error() {
        let url = format!("http://x/console/approvals#{ID}");
        let e = url_elicitation_required(&url, ID, "m");
        let answer = crate::error_response(&json!(7), &e);
        let caps = |v: Value| v.as_object().unwrap().clone();
        let r = legacy_answer_without_url(&answer, &caps(json!({"elicitation": {}}))).unwrap();
        assert_eq!(r["id"], 7);
        assert_eq!(r["result"]["isError"], true);
        let text = r["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains(ID) && text.contains(&url), "{text}");
        assert!(
            legacy_answer_without_url(&answer, &caps(json!({"elicitation": {"url": {}}})))
                .is_none()
        );
        let other = crate::error_response(&json!(7), &RpcError::invalid_params("x"));
        assert!(legacy_answer_without_url(&other, &caps(json!({}))).is_none());
    }

    #[test]
    fn the_message_names_the_tool_briefly() {
        let m = message(&"t".repeat(500));
        assert!(m.len() < 300);
        assert!(message("createTicket").contains("'createTicket'"));
    }
}
