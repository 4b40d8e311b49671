//! The stateless 2026-07-28 revision ("modern" in the specification's words) beside the
//! handshake revisions ("legacy": 2025-11-25 and earlier), as one dual-era server.
//!
//! A request whose `params._meta` carries `io.modelcontextprotocol/protocolVersion` is modern:
//! it brings its revision, client info and capabilities itself and is served without any
//! connection state. Every other request is legacy and is served by the revision `initialize`
//! negotiated, exactly as before. `initialize` itself always selects the legacy era.
//!
//! Also here, because they are the same rules seen from the HTTP transport: the check of the
//! `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers against the body (-32020) and
//! the HTTP status of a modern error. The bridge calls them; it decides nothing itself.

use crate::{codes, RpcError, SUPPORTED_VERSIONS};
use serde_json::{json, Map, Value};

/// The modern revisions, newest first.
pub const MODERN_VERSIONS: &[&str] = &["2026-07-28"];

/// Every revision the server speaks, newest first: what `server/discover` advertises and what
/// an `UnsupportedProtocolVersionError` lists in `data.supported`.
pub const ALL_VERSIONS: &[&str] = &["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"];

pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// Error codes the 2026-07-28 revision defines (its reserved range -32020 … -32099).
pub mod codes2026 {
    pub const HEADER_MISMATCH: i64 = -32020;
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// How long a client may keep a `server/discover` answer: what it says changes only with a
/// new pg_mcp version.
pub const DISCOVER_TTL_MS: u64 = 3_600_000;

/// Whether `version` is a modern revision this server speaks.
pub fn is_modern(version: &str) -> bool {
    MODERN_VERSIONS.contains(&version)
}

/// Whether `version` is any revision this server speaks (either era).
pub fn is_known(version: &str) -> bool {
    is_modern(version) || SUPPORTED_VERSIONS.contains(&version)
}

/// What a modern request says about itself in its `_meta`.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    pub version: &'static str,
    /// `{name, version}` when the client sent it (optional in the revision).
    pub client_info: Option<Map<String, Value>>,
    pub capabilities: Map<String, Value>,
    pub log_level: Option<String>,
}

impl Envelope {
    /// The client's name and version, for `application_name`.
    pub fn client_name_version(&self) -> (Option<&str>, Option<&str>) {
        let get = |k: &str| {
            self.client_info
                .as_ref()
                .and_then(|c| c.get(k))
                .and_then(Value::as_str)
        };
        (get("name"), get("version"))
    }
}

/// The era a request is served in.
#[derive(Debug, Clone, PartialEq)]
pub enum Era {
    /// Served by the revision `initialize` negotiated on the connection.
    Legacy,
    /// Served statelessly, by what its `_meta` says.
    Modern(Envelope),
}

/// Methods of the 2026-07-28 core that exist only in the modern era. (`subscriptions/listen`
/// is not served yet: it needs a stream the bridge holds open.)
const MODERN_ONLY: &[&str] = &["server/discover"];

/// Methods a modern request may call. `ping`, `logging/setLevel`, `resources/subscribe` and
/// `resources/unsubscribe` were removed by 2026-07-28; `initialize` never reaches here.
const MODERN_METHODS: &[&str] = &[
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "subscriptions/listen",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
];

/// At most this many resource URIs in one `subscriptions/listen`.
pub const MAX_LISTEN_URIS: usize = 100;

/// The list-change types of a `SubscriptionFilter`.
pub const LIST_CHANGE_KEYS: &[&str] = &[
    "toolsListChanged",
    "promptsListChanged",
    "resourcesListChanged",
];

/// The answer to `subscriptions/listen`: the subset of the requested `notifications` filter
/// the server honours — the list changes asked for, and the resource URIs the caller can see
/// (`visible`); unknown keys are not honoured. The transport (pg_mcp_bridge over Streamable
/// HTTP) keeps the stream open and sends the notifications.
pub fn listen_filter(
    params: &Map<String, Value>,
    visible: impl Fn(&str) -> bool,
) -> Result<Value, RpcError> {
    let Some(Value::Object(n)) = params.get("notifications") else {
        return Err(RpcError::invalid_params(
            "Invalid params: notifications (a SubscriptionFilter object) is required",
        ));
    };
    let mut honoured = Map::new();
    for k in LIST_CHANGE_KEYS {
        match n.get(*k) {
            None | Some(Value::Bool(false)) => {}
            Some(Value::Bool(true)) => {
                honoured.insert((*k).to_string(), Value::Bool(true));
            }
            Some(_) => {
                return Err(RpcError::invalid_params(format!(
                    "Invalid params: notifications.{k} must be a boolean"
                )))
            }
        }
    }
    if let Some(uris) = n.get("resourceSubscriptions") {
        let Some(uris) = uris.as_array().filter(|a| a.iter().all(Value::is_string)) else {
            return Err(RpcError::invalid_params(
                "Invalid params: notifications.resourceSubscriptions must be an array of URIs",
            ));
        };
        if uris.len() > MAX_LISTEN_URIS {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: at most {MAX_LISTEN_URIS} resourceSubscriptions"
            )));
        }
        let kept: Vec<Value> = uris
            .iter()
            .filter(|u| u.as_str().is_some_and(&visible))
            .cloned()
            .collect();
        if !kept.is_empty() {
            honoured.insert("resourceSubscriptions".into(), Value::Array(kept));
        }
    }
    Ok(json!({ "notifications": honoured }))
}

/// Whether a modern request may call `method` (else -32601).
pub fn modern_method_known(method: &str) -> bool {
    MODERN_METHODS.contains(&method)
}

fn meta_of(params: &Map<String, Value>) -> Option<&Value> {
    params.get("_meta")
}

/// Whether a request body (one JSON-RPC message) is a modern request: its `params._meta`
/// names a protocol version.
pub fn body_is_modern(msg: &Value) -> bool {
    msg.get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(META_PROTOCOL_VERSION))
        .is_some()
}

/// The era of one request, or the error it is answered with.
///
/// `connection_version` is the revision of the connection (`mcp.protocol_version`: set by
/// `initialize`, or by the HTTP bridge from the `MCP-Protocol-Version` header of a sessionless
/// request). A modern connection version with no envelope in the request is a malformed modern
/// request; so is a modern-only method without one.
///
/// The ladder of the revision ("Per-request protocol fields", "Protocol Version
/// Negotiation"): `_meta` an object with `protocolVersion` and `clientCapabilities`, else
/// -32602; the version a string, else -32602; a version this server does not serve statelessly
/// (unknown, or a handshake revision) → -32022 with `data.supported` and `data.requested`.
pub fn era(
    method: &str,
    params: &Map<String, Value>,
    connection_version: &str,
) -> Result<Era, RpcError> {
    if method == "initialize" {
        return Ok(Era::Legacy);
    }
    let meta = meta_of(params);
    let has_version = meta.and_then(|m| m.get(META_PROTOCOL_VERSION)).is_some();
    if !has_version && !MODERN_ONLY.contains(&method) && !is_modern(connection_version) {
        return Ok(Era::Legacy);
    }
    let missing = |what: &str| {
        RpcError::invalid_params(format!(
            "Invalid params: params._meta must carry \"{META_PROTOCOL_VERSION}\" and \"{META_CLIENT_CAPABILITIES}\" ({what})"
        ))
    };
    let Some(Value::Object(meta)) = meta else {
        return Err(missing("no _meta object"));
    };
    let mut absent = Vec::new();
    for k in [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES] {
        if !meta.contains_key(k) {
            absent.push(k);
        }
    }
    if !absent.is_empty() {
        return Err(missing(&format!("missing {}", absent.join(", "))));
    }
    let Some(requested) = meta[META_PROTOCOL_VERSION].as_str() else {
        return Err(RpcError::invalid_params(format!(
            "Invalid params: \"{META_PROTOCOL_VERSION}\" must be a string"
        )));
    };
    let Some(version) = MODERN_VERSIONS.iter().find(|v| **v == requested).copied() else {
        return Err(unsupported_version(requested));
    };
    let capabilities = match &meta[META_CLIENT_CAPABILITIES] {
        Value::Object(c) => c.clone(),
        _ => {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: \"{META_CLIENT_CAPABILITIES}\" must be an object"
            )))
        }
    };
    let client_info = match meta.get(META_CLIENT_INFO) {
        None | Some(Value::Null) => None,
        Some(Value::Object(c)) => Some(c.clone()),
        Some(_) => {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: \"{META_CLIENT_INFO}\" must be an object"
            )))
        }
    };
    let log_level = match meta.get(META_LOG_LEVEL) {
        None | Some(Value::Null) => None,
        Some(Value::String(l)) if crate::LOG_LEVELS.contains(&l.as_str()) => Some(l.clone()),
        Some(_) => {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: \"{META_LOG_LEVEL}\" must be one of {}",
                crate::LOG_LEVELS.join(", ")
            )))
        }
    };
    Ok(Era::Modern(Envelope {
        version,
        client_info,
        capabilities,
        log_level,
    }))
}

/// `UnsupportedProtocolVersionError` (-32022): the versions this server speaks and the one
/// asked for.
pub fn unsupported_version(requested: &str) -> RpcError {
    RpcError::new(
        codes2026::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
    )
    .with_data(json!({
        "supported": ALL_VERSIONS,
        "requested": mcp_audit::clip_chars(requested, 64).0,
    }))
}

/// The error a modern client gets for `e`: resource-not-found is -32602 since 2026-07-28 (it
/// was -32002).
pub fn modern_error(mut e: RpcError) -> RpcError {
    if e.code == codes::RESOURCE_NOT_FOUND {
        e.code = codes::INVALID_PARAMS;
    }
    e
}

/// The caching hint of a method's complete result (2026-07-28 "Caching"): `(ttlMs,
/// cacheScope)`. Lists and reads depend on the caller's role (grants, row-level security), so
/// they are private; `list_ttl_ms` is the operator's choice for lists, a read is not kept
/// (the data may change with any transaction). `server/discover` is the same for everyone.
pub fn cache_hint(method: &str, list_ttl_ms: u64) -> Option<(u64, &'static str)> {
    match method {
        "server/discover" => Some((DISCOVER_TTL_MS, "public")),
        "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list" => {
            Some((list_ttl_ms, "private"))
        }
        "resources/read" => Some((0, "private")),
        _ => None,
    }
}

/// A complete result as the modern era shapes it: `resultType`, the server's identity in
/// `_meta`, and the caching hint of cacheable methods.
pub fn modern_result(method: &str, result: Value, server_info: &Value, list_ttl_ms: u64) -> Value {
    let mut m = match result {
        Value::Object(m) => m,
        other => {
            let mut m = Map::new();
            m.insert("value".into(), other);
            m
        }
    };
    // an InputRequiredResult and a CreateTaskResult keep their own type; every other result
    // is complete
    if !matches!(
        m.get("resultType").and_then(Value::as_str),
        Some("input_required" | "task")
    ) {
        m.insert("resultType".into(), json!("complete"));
    }
    let meta = m
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        meta.insert(META_SERVER_INFO.into(), server_info.clone());
    }
    if let Some((ttl, scope)) = cache_hint(method, list_ttl_ms) {
        m.insert("ttlMs".into(), json!(ttl));
        m.insert("cacheScope".into(), json!(scope));
    }
    Value::Object(m)
}

/// The server's capabilities in the modern era. Only what is delivered is declared: no
/// `logging` (deprecated, and a per-request `logLevel` is not honoured yet) and no
/// `listChanged`/`subscribe` while `subscriptions/listen` delivers nothing.
pub fn modern_capabilities(list_changed: bool) -> Value {
    // the tasks extension (io.modelcontextprotocol/tasks): declared in `extensions`, the one
    // place the extension says a server declares it
    let extensions = json!({ crate::tasks::EXTENSION: {} });
    if list_changed {
        json!({
            "tools": {"listChanged": true},
            "resources": {"listChanged": true, "subscribe": true},
            "prompts": {"listChanged": true},
            "completions": {},
            "extensions": extensions
        })
    } else {
        json!({"tools": {}, "resources": {}, "prompts": {}, "completions": {}, "extensions": extensions})
    }
}

/// The `server/discover` result (before [`modern_result`] adds `resultType`, `_meta` and the
/// caching hint).
pub fn discover_result(list_changed: bool) -> Value {
    json!({
        "supportedVersions": ALL_VERSIONS,
        "capabilities": modern_capabilities(list_changed),
        "instructions": crate::INSTRUCTIONS
    })
}

// ------------------------------------------------------------------------------------------
// Streamable HTTP: headers against the body
// ------------------------------------------------------------------------------------------

/// Methods whose `Mcp-Name` header mirrors a body parameter, and which one.
fn name_param(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        // the tasks extension: Mcp-Name carries the task id (routing to the task's server)
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// A header value as the client meant it: `=?base64?…?=` decoded (UTF-8), anything else
/// as sent. `None` for a malformed encoding.
pub fn decode_header_value(v: &str) -> Option<String> {
    use base64::Engine;
    match v
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        Some(payload) => base64::engine::general_purpose::STANDARD
            .decode(payload)
            .ok()
            .and_then(|b| String::from_utf8(b).ok()),
        None => Some(v.to_string()),
    }
}

fn mismatch(message: String) -> RpcError {
    RpcError::new(
        codes2026::HEADER_MISMATCH,
        format!("Header mismatch: {message}"),
    )
}

/// Check the standard request headers of a Streamable HTTP POST against its body
/// (2026-07-28 "Server Validation"). `header(name)` gives a header's value by lowercase name:
/// `Some(Err(()))` for a value that is not visible ASCII.
///
/// A modern request must carry `MCP-Protocol-Version` equal to its envelope's version,
/// `Mcp-Method` equal to its method and, for `tools/call`, `prompts/get` and `resources/read`,
/// `Mcp-Name` equal to the name or URI. A header that a legacy client sends anyway must agree
/// with the body as well; a legacy client that sends none is checked as before. A request
/// whose `MCP-Protocol-Version` header is modern but whose body has no envelope is malformed
/// (-32602, the revision's "Per-request protocol fields").
pub fn check_http_headers(
    msg: &Value,
    header: impl Fn(&str) -> Option<Result<String, ()>>,
) -> Result<(), RpcError> {
    let Some(obj) = msg.as_object() else {
        return Ok(()); // a batch: legacy only, refused or handled as before
    };
    let Some(method) = obj.get("method").and_then(Value::as_str) else {
        return Ok(());
    };
    let get = |name: &str, shown: &str| -> Result<Option<String>, RpcError> {
        match header(name) {
            None => Ok(None),
            Some(Ok(v)) => Ok(Some(v)),
            Some(Err(())) => Err(mismatch(format!(
                "{shown} header contains characters a header value may not carry"
            ))),
        }
    };
    let version_header = get("mcp-protocol-version", "MCP-Protocol-Version")?;
    let method_header = get("mcp-method", "Mcp-Method")?;
    let name_header = get("mcp-name", "Mcp-Name")?;
    let body_version = obj
        .get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(META_PROTOCOL_VERSION));
    let modern = body_version.is_some();
    if !modern && obj.contains_key("id") && version_header.as_deref().is_some_and(is_modern) {
        return Err(RpcError::invalid_params(format!(
            "Invalid params: a {} request must carry \"{META_PROTOCOL_VERSION}\" and \"{META_CLIENT_CAPABILITIES}\" in params._meta",
            version_header.as_deref().unwrap_or_default()
        )));
    }
    if let Some(bv) = body_version {
        match (&version_header, bv.as_str()) {
            (Some(h), Some(b)) if h == b => {}
            (None, _) => {
                return Err(mismatch(
                    "the MCP-Protocol-Version header is required".into(),
                ))
            }
            (Some(h), _) => {
                return Err(mismatch(format!(
                    "MCP-Protocol-Version header '{}' does not match the body's protocol version",
                    clip(h)
                )))
            }
        }
    }
    match &method_header {
        Some(h) if h != method => {
            return Err(mismatch(format!(
                "Mcp-Method header '{}' does not match body value '{}'",
                clip(h),
                clip(method)
            )))
        }
        None if modern => return Err(mismatch("the Mcp-Method header is required".into())),
        _ => {}
    }
    if let Some(key) = name_param(method) {
        let body_value = obj.get("params").and_then(|p| p.get(key));
        match (&name_header, body_value) {
            (Some(h), Some(b)) => {
                let decoded = decode_header_value(h).ok_or_else(|| {
                    mismatch("the Mcp-Name header's base64 encoding is malformed".into())
                })?;
                if b.as_str() != Some(decoded.as_str()) {
                    return Err(mismatch(format!(
                        "Mcp-Name header '{}' does not match the body's {key}",
                        clip(h)
                    )));
                }
            }
            (Some(h), None) => {
                return Err(mismatch(format!(
                    "Mcp-Name header '{}' names nothing in the body",
                    clip(h)
                )))
            }
            (None, Some(_)) if modern => {
                return Err(mismatch(format!(
                    "the Mcp-Name header is required for {method}"
                )))
            }
            _ => {}
        }
    } else if let Some(h) = &name_header {
        if modern {
            return Err(mismatch(format!(
                "Mcp-Name header '{}' is not defined for {method}",
                clip(h)
            )));
        }
    }
    Ok(())
}

fn clip(s: &str) -> String {
    mcp_audit::clip_chars(s, 64).0.to_string()
}

/// The HTTP status of a modern request's answer (2026-07-28 "Streamable HTTP"): 400 for a
/// header mismatch, a missing client capability, an unsupported version and a malformed
/// envelope (a -32602 that names the envelope's key, from [`check_http_headers`] or [`era`]),
/// 404 for an unknown method, 200 otherwise.
pub fn modern_http_status(answer: &Value) -> u16 {
    let Some(err) = answer.get("error") else {
        return 200;
    };
    match err.get("code").and_then(Value::as_i64) {
        Some(codes2026::HEADER_MISMATCH)
        | Some(codes2026::MISSING_REQUIRED_CLIENT_CAPABILITY)
        | Some(codes2026::UNSUPPORTED_PROTOCOL_VERSION) => 400,
        Some(codes::METHOD_NOT_FOUND) => 404,
        Some(codes::INVALID_PARAMS)
            if err
                .get("message")
                .and_then(Value::as_str)
                .is_some_and(|m| m.contains(META_PROTOCOL_VERSION)) =>
        {
            400
        }
        _ => 200,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    fn envelope(version: &str) -> Value {
        json!({
            META_PROTOCOL_VERSION: version,
            META_CLIENT_INFO: {"name": "c", "version": "1"},
            META_CLIENT_CAPABILITIES: {}
        })
    }

    #[test]
    fn a_request_without_an_envelope_stays_legacy() {
        for v in ["", "2025-11-25", "2025-06-18", "2025-03-26"] {
            assert_eq!(
                era("tools/list", &Map::new(), v).unwrap(),
                Era::Legacy,
                "{v}"
            );
            // a legacy _meta (progressToken) changes nothing
            let p = params(json!({"_meta": {"progressToken": 1}, "name": "x"}));
            assert_eq!(era("tools/call", &p, v).unwrap(), Era::Legacy);
        }
        // initialize selects the legacy era even with an envelope
        let p = params(json!({"_meta": envelope("2026-07-28"), "protocolVersion": "2025-11-25"}));
        assert_eq!(era("initialize", &p, "").unwrap(), Era::Legacy);
    }

    #[test]
    fn a_modern_envelope_is_read_whole() {
        let mut meta = envelope("2026-07-28");
        meta[META_LOG_LEVEL] = json!("warning");
        let p = params(json!({"_meta": meta}));
        match era("tools/list", &p, "").unwrap() {
            Era::Modern(e) => {
                assert_eq!(e.version, "2026-07-28");
                assert_eq!(e.client_name_version(), (Some("c"), Some("1")));
                assert!(e.capabilities.is_empty());
                assert_eq!(e.log_level.as_deref(), Some("warning"));
            }
            other => panic!("{other:?}"),
        }
        // a connection on 2025-11-25 does not change a modern request's era
        assert!(matches!(
            era("tools/list", &p, "2025-11-25").unwrap(),
            Era::Modern(_)
        ));
    }

    #[test]
    fn malformed_envelopes_are_invalid_params() {
        let cases = [
            json!({}),
            json!({"_meta": 3}),
            json!({"_meta": {META_PROTOCOL_VERSION: "2026-07-28"}}),
            json!({"_meta": {META_CLIENT_CAPABILITIES: {}, META_PROTOCOL_VERSION: 20260728}}),
            json!({"_meta": {META_CLIENT_CAPABILITIES: [], META_PROTOCOL_VERSION: "2026-07-28"}}),
            json!({"_meta": {META_CLIENT_CAPABILITIES: {}, META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_INFO: "x"}}),
            json!({"_meta": {META_CLIENT_CAPABILITIES: {}, META_PROTOCOL_VERSION: "2026-07-28", META_LOG_LEVEL: "loud"}}),
        ];
        for c in cases {
            // server/discover is modern-only: no envelope is malformed, not legacy
            let e = era("server/discover", &params(c.clone()), "").unwrap_err();
            assert_eq!(e.code, codes::INVALID_PARAMS, "{c}");
        }
        // a sessionless HTTP request whose header said 2026-07-28 but whose body has no envelope
        let e = era("tools/list", &Map::new(), "2026-07-28").unwrap_err();
        assert_eq!(e.code, codes::INVALID_PARAMS);
        assert!(e.message.contains(META_PROTOCOL_VERSION));
    }

    #[test]
    fn an_unsupported_version_lists_the_supported_ones() {
        for v in ["1900-01-01", "2025-11-25", "2099-01-01"] {
            let p = params(json!({"_meta": envelope(v)}));
            let e = era("tools/list", &p, "").unwrap_err();
            assert_eq!(e.code, -32022, "{v}");
            let d = e.data.unwrap();
            assert_eq!(d["supported"], json!(ALL_VERSIONS));
            assert_eq!(d["requested"], v);
        }
        assert!(is_known("2026-07-28") && is_known("2025-03-26") && !is_known("2024-11-05"));
    }

    #[test]
    fn removed_methods_are_unknown_to_modern_requests() {
        for m in [
            "ping",
            "logging/setLevel",
            "resources/subscribe",
            "resources/unsubscribe",
            "initialize",
        ] {
            assert!(!modern_method_known(m), "{m}");
        }
        for m in [
            "server/discover",
            "subscriptions/listen",
            "tools/call",
            "resources/read",
            "completion/complete",
        ] {
            assert!(modern_method_known(m), "{m}");
        }
    }

    #[test]
    fn listen_honours_what_is_asked_and_visible() {
        let p = |v: Value| v.as_object().unwrap().clone();
        let r = listen_filter(
            &p(
                json!({"notifications": {"toolsListChanged": true, "promptsListChanged": false,
                "resourceSubscriptions": ["a://1", "a://secret"], "taskIds": ["x"]}}),
            ),
            |u| u == "a://1",
        )
        .unwrap();
        assert_eq!(
            r,
            json!({"notifications": {"toolsListChanged": true, "resourceSubscriptions": ["a://1"]}})
        );
        assert!(listen_filter(&p(json!({})), |_| true).is_err());
        assert!(listen_filter(
            &p(json!({"notifications": {"toolsListChanged": 1}})),
            |_| true
        )
        .is_err());
        assert!(listen_filter(
            &p(json!({"notifications": {"resourceSubscriptions": [1]}})),
            |_| true
        )
        .is_err());
        assert_eq!(
            listen_filter(&p(json!({"notifications": {}})), |_| true).unwrap(),
            json!({"notifications": {}})
        );
    }

    #[test]
    fn modern_results_carry_result_type_server_info_and_cache_hints() {
        let info = json!({"name": "pg_mcp", "version": "0.2.0"});
        let r = modern_result("tools/list", json!({"tools": []}), &info, 60000);
        assert_eq!(r["resultType"], "complete");
        assert_eq!(r["_meta"][META_SERVER_INFO], info);
        assert_eq!(r["ttlMs"], 60000);
        assert_eq!(r["cacheScope"], "private");
        let r = modern_result("resources/read", json!({"contents": []}), &info, 60000);
        assert_eq!(
            (r["ttlMs"].as_u64(), r["cacheScope"].as_str()),
            (Some(0), Some("private"))
        );
        let r = modern_result(
            "tools/call",
            json!({"content": [], "_meta": {"k": 1}}),
            &info,
            5,
        );
        assert_eq!(r["resultType"], "complete");
        assert_eq!(r["_meta"]["k"], 1);
        assert!(r.get("ttlMs").is_none() && r.get("cacheScope").is_none());
        let r = modern_result(
            "tools/call",
            json!({"resultType": "input_required", "inputRequests": {"k": {"method": "roots/list"}}}),
            &info,
            5,
        );
        assert_eq!(r["resultType"], "input_required");
        let r = modern_result(
            "tools/call",
            json!({"resultType": "other", "content": []}),
            &info,
            5,
        );
        assert_eq!(r["resultType"], "complete");
        let d = modern_result("server/discover", discover_result(false), &info, 5);
        assert_eq!(d["supportedVersions"][0], "2026-07-28");
        assert_eq!(d["cacheScope"], "public");
        assert_eq!(d["ttlMs"], DISCOVER_TTL_MS);
        assert!(d["capabilities"].get("logging").is_none());
        assert!(d["capabilities"]["tools"].get("listChanged").is_none());
        assert_eq!(
            discover_result(true)["capabilities"]["tools"]["listChanged"],
            true
        );
        // resource not found changed its code
        let e = modern_error(RpcError::new(
            codes::RESOURCE_NOT_FOUND,
            "Resource not found",
        ));
        assert_eq!(e.code, codes::INVALID_PARAMS);
        assert_eq!(
            modern_error(RpcError::internal("x")).code,
            codes::INTERNAL_ERROR
        );
    }

    fn headers<'a>(
        h: &'a [(&'a str, &'a str)],
    ) -> impl Fn(&str) -> Option<Result<String, ()>> + 'a {
        move |name| {
            h.iter().find(|(k, _)| *k == name).map(|(_, v)| {
                if v.bytes().all(|b| (0x20..0x7f).contains(&b)) {
                    Ok(v.to_string())
                } else {
                    Err(())
                }
            })
        }
    }

    fn call(name: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": name, "arguments": {}, "_meta": envelope("2026-07-28")}})
    }

    #[test]
    fn headers_must_agree_with_the_body() {
        let ok = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "sql_query"),
        ];
        assert!(check_http_headers(&call("sql_query"), headers(&ok)).is_ok());
        // base64 sentinel, decoded before the comparison
        let enc = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "=?base64?w6R0c2No?="),
        ];
        assert!(check_http_headers(&call("ätsch"), headers(&enc)).is_ok());
        let bad: [&[(&str, &str)]; 7] = [
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "boom"),
            ],
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/list"),
                ("mcp-name", "sql_query"),
            ],
            &[
                ("mcp-protocol-version", "2025-11-25"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "sql_query"),
            ],
            &[("mcp-method", "tools/call"), ("mcp-name", "sql_query")],
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-name", "sql_query"),
            ],
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
            ],
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "=?base64?!!?="),
            ],
        ];
        for h in bad {
            let e = check_http_headers(&call("sql_query"), headers(h)).unwrap_err();
            assert_eq!(e.code, -32020, "{h:?}");
            assert!(e.message.starts_with("Header mismatch"), "{}", e.message);
        }
        // a header value with bytes outside visible ASCII
        let e = check_http_headers(
            &call("sql_query"),
            headers(&[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "sql_qüery"),
            ]),
        )
        .unwrap_err();
        assert_eq!(e.code, -32020);
        assert_eq!(
            modern_http_status(&crate::error_response(&json!(1), &e)),
            400
        );
    }

    #[test]
    fn legacy_requests_keep_their_headers_optional() {
        let legacy = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                            "params": {"name": "sql_query", "arguments": {}}});
        assert!(check_http_headers(&legacy, headers(&[])).is_ok());
        assert!(
            check_http_headers(&legacy, headers(&[("mcp-protocol-version", "2025-11-25")])).is_ok()
        );
        // but a header it does send must agree
        let e = check_http_headers(&legacy, headers(&[("mcp-name", "boom")])).unwrap_err();
        assert_eq!(e.code, -32020);
        let e = check_http_headers(&legacy, headers(&[("mcp-method", "tools/list")])).unwrap_err();
        assert_eq!(e.code, -32020);
        // a modern header over a body with no envelope
        let e = check_http_headers(&legacy, headers(&[("mcp-protocol-version", "2026-07-28")]))
            .unwrap_err();
        assert_eq!(e.code, codes::INVALID_PARAMS);
        assert_eq!(
            modern_http_status(&crate::error_response(&json!(1), &e)),
            400
        );
        // batches and notifications are not checked here
        assert!(check_http_headers(&json!([legacy]), headers(&[("mcp-name", "x")])).is_ok());
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert!(
            check_http_headers(&note, headers(&[("mcp-protocol-version", "2026-07-28")])).is_ok()
        );
    }

    #[test]
    fn modern_errors_have_their_http_status() {
        let st = |code: i64, msg: &str| {
            modern_http_status(&crate::error_response(&json!(1), &RpcError::new(code, msg)))
        };
        assert_eq!(st(-32022, "Unsupported protocol version"), 400);
        assert_eq!(st(-32021, "x"), 400);
        assert_eq!(st(-32601, "Method not found"), 404);
        assert_eq!(st(-32602, "Unknown tool: x"), 200);
        assert_eq!(st(-32603, "Internal error"), 200);
        assert_eq!(
            modern_http_status(&json!({"jsonrpc": "2.0", "id": 1, "result": {}})),
            200
        );
    }

    #[test]
    fn tasks_methods_are_modern_and_mcp_name_carries_the_task_id() {
        for m in ["tasks/get", "tasks/update", "tasks/cancel"] {
            assert!(modern_method_known(m), "{m}");
        }
        assert!(
            !modern_method_known("tasks/list"),
            "removed by the extension"
        );
        assert!(
            !modern_method_known("tasks/result"),
            "removed by the extension"
        );
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {
            "taskId": "t-1", "_meta": {META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: {}}}});
        let headers = |name: Option<&'static str>| {
            move |h: &str| match h {
                "mcp-protocol-version" => Some(Ok("2026-07-28".to_string())),
                "mcp-method" => Some(Ok("tasks/get".to_string())),
                "mcp-name" => name.map(|n| Ok(n.to_string())),
                _ => None,
            }
        };
        assert!(check_http_headers(&body, headers(Some("t-1"))).is_ok());
        assert_eq!(
            check_http_headers(&body, headers(Some("t-2")))
                .unwrap_err()
                .code,
            codes2026::HEADER_MISMATCH
        );
        assert_eq!(
            check_http_headers(&body, headers(None)).unwrap_err().code,
            codes2026::HEADER_MISMATCH
        );
        // the server declares the extension; a task result keeps resultType "task"
        let caps = discover_result(false)["capabilities"].clone();
        assert_eq!(caps["extensions"][crate::tasks::EXTENSION], json!({}));
        let r = modern_result(
            "tools/call",
            json!({"resultType": "task", "taskId": "t"}),
            &json!({}),
            0,
        );
        assert_eq!(r["resultType"], "task");
    }
}
