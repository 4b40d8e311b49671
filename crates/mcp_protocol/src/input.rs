//! Input requests: a tool that needs something from the client (an answer of its user, a
//! completion of its LLM, its roots) asks for it without holding a statement open.
//!
//! The shape is the 2026-07-28 revision's multi round-trip requests (MRTR): the answer to the
//! `tools/call` is an `InputRequiredResult` (`resultType: "input_required"`, `inputRequests`
//! keyed by the server), the client fulfils them and sends the same `tools/call` again with
//! `inputResponses` under the same keys; the tool runs again from the start and finds the
//! answers (`mcp.input_response(key)`). Nothing is kept between the rounds.
//!
//! A 2026-07-28 client drives the rounds itself. For a handshake client (2025-11-25 and
//! before) pg_mcp_bridge drives them: it sends each input request as a server-to-client
//! JSON-RPC request on the call's SSE stream, waits for the client's responses, and sends the
//! call again with them ([`pending_input`], [`retry_request`]).
//!
//! A tool asks by returning a result object with `"needs_input": true` (the convention of
//! `getDialog`, which ends a chat run with `needs_input`), and either
//! - `"input_requests": {key: {"method": …, "params": {…}}}`: MCP input requests as they are, or
//! - `"missing_parameters": [names]` (and `context`): `getDialog`'s form, asked as one
//!   elicitation form with a string field per parameter under [`DIALOG_KEY`]; the client's
//!   answer is the result of the retried call.

use crate::RpcError;
use serde_json::{json, Map, Value};

/// The input request methods of the revision, and the client capability each needs.
pub const INPUT_METHODS: &[(&str, &str)] = &[
    ("elicitation/create", "elicitation"),
    ("sampling/createMessage", "sampling"),
    ("roots/list", "roots"),
];

/// The key of the elicitation a `missing_parameters` request becomes.
pub const DIALOG_KEY: &str = "dialog";

/// At most this many input requests in one round, and this long a key.
pub const MAX_REQUESTS: usize = 16;
pub const MAX_KEY_LEN: usize = 64;

/// The capability a client must declare for `method`, if it is an input request method.
pub fn capability_for(method: &str) -> Option<&'static str> {
    INPUT_METHODS
        .iter()
        .find(|(m, _)| *m == method)
        .map(|(_, c)| *c)
}

/// The input requests a tool's result asks for: `None` when it asks for nothing (no
/// `"needs_input": true`), an error text when its requests are malformed.
pub fn requests_of(result: &Value) -> Option<Result<Map<String, Value>, String>> {
    let obj = result.as_object()?;
    if obj.get("needs_input") != Some(&Value::Bool(true)) {
        return None;
    }
    Some(match obj.get("input_requests") {
        Some(Value::Object(reqs)) => check_requests(reqs).map(|()| reqs.clone()),
        Some(_) => Err("input_requests must be an object of input requests by key".into()),
        None => dialog_request(obj),
    })
}

fn check_requests(reqs: &Map<String, Value>) -> Result<(), String> {
    if reqs.is_empty() {
        return Err("input_requests is empty".into());
    }
    if reqs.len() > MAX_REQUESTS {
        return Err(format!(
            "{} input requests at once; at most {MAX_REQUESTS}",
            reqs.len()
        ));
    }
    for (key, req) in reqs {
        if key.is_empty() || key.chars().count() > MAX_KEY_LEN {
            return Err(format!(
                "an input request key must have 1 to {MAX_KEY_LEN} characters"
            ));
        }
        let Some(method) = req.get("method").and_then(Value::as_str) else {
            return Err(format!("input request '{key}' has no method"));
        };
        if capability_for(method).is_none() {
            return Err(format!(
                "input request '{key}': method {} is not an input request (elicitation/create, sampling/createMessage, roots/list)",
                method.chars().take(64).collect::<String>()
            ));
        }
        match req.get("params") {
            Some(Value::Object(_)) => {}
            None if method == "roots/list" => {}
            _ => return Err(format!("input request '{key}' needs a params object")),
        }
        if req
            .as_object()
            .is_some_and(|o| o.keys().any(|k| k != "method" && k != "params"))
        {
            return Err(format!(
                "input request '{key}' may only hold method and params"
            ));
        }
    }
    Ok(())
}

/// `getDialog`'s form: one elicitation with a string field per missing parameter.
fn dialog_request(obj: &Map<String, Value>) -> Result<Map<String, Value>, String> {
    let names: Vec<&str> = obj
        .get("missing_parameters")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if names.is_empty() {
        return Err("needs_input without input_requests or missing_parameters".into());
    }
    let mut properties = Map::new();
    for n in &names {
        properties.insert((*n).to_string(), json!({"type": "string", "title": n}));
    }
    let context = obj.get("context").and_then(Value::as_str).unwrap_or("");
    let message = if context.is_empty() {
        format!("Please provide: {}.", names.join(", "))
    } else {
        format!("{context}\n\nPlease provide: {}.", names.join(", "))
    };
    let mut m = Map::new();
    m.insert(
        DIALOG_KEY.into(),
        json!({"method": "elicitation/create", "params": {
            "mode": "form",
            "message": message,
            "requestedSchema": {"type": "object", "properties": properties, "required": names}}}),
    );
    Ok(m)
}

/// The capability a client lacks for one of `requests` (`capabilities` as it declared them),
/// as `(key, method, capability)`.
pub fn missing_capability<'a>(
    requests: &'a Map<String, Value>,
    capabilities: &Map<String, Value>,
) -> Option<(&'a str, &'a str, &'static str)> {
    requests.iter().find_map(|(key, req)| {
        let method = req.get("method").and_then(Value::as_str)?;
        let cap = capability_for(method)?;
        (!capabilities.get(cap).is_some_and(Value::is_object)).then_some((
            key.as_str(),
            method,
            cap,
        ))
    })
}

/// The `InputRequiredResult` of a call that asks for `requests`.
pub fn input_required_result(requests: Map<String, Value>) -> Value {
    json!({"resultType": "input_required", "inputRequests": requests})
}

/// The `inputResponses` a retried request carries (`None`: a first round): an object of
/// objects by key.
pub fn input_responses(
    params: &Map<String, Value>,
) -> Result<Option<Map<String, Value>>, RpcError> {
    match params.get("inputResponses") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => {
            if m.len() > MAX_REQUESTS {
                return Err(RpcError::invalid_params(format!(
                    "Invalid params: more than {MAX_REQUESTS} inputResponses"
                )));
            }
            if let Some((k, _)) = m.iter().find(|(_, v)| !v.is_object()) {
                return Err(RpcError::invalid_params(format!(
                    "Invalid params: inputResponses.{} must be an object",
                    k.chars().take(MAX_KEY_LEN).collect::<String>()
                )));
            }
            Ok(Some(m.clone()))
        }
        Some(_) => Err(RpcError::invalid_params(
            "Invalid params: inputResponses must be an object",
        )),
    }
}

/// The answer of a `getDialog`-form request once the client responded: what the user did and
/// the values given (the result of the retried call).
pub fn dialog_answer(response: &Value) -> Option<Value> {
    let action = response.get("action").and_then(Value::as_str)?;
    Some(json!({
        "action": action,
        "answers": response.get("content").cloned().unwrap_or(Value::Object(Map::new())),
    }))
}

/// For the bridge: the input requests of an answer (a JSON-RPC response) whose result is an
/// `InputRequiredResult`, with its `requestState`.
pub fn pending_input(answer: &Value) -> Option<(&Map<String, Value>, Option<&Value>)> {
    let result = answer.get("result")?;
    if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
        return None;
    }
    Some((
        result.get("inputRequests")?.as_object()?,
        result.get("requestState"),
    ))
}

/// For the bridge: the request sent again with the client's responses (and the echoed state).
pub fn retry_request(
    request: &Value,
    responses: Map<String, Value>,
    state: Option<&Value>,
) -> Value {
    let mut r = request.clone();
    if let Some(params) = r.get_mut("params").and_then(Value::as_object_mut) {
        params.insert("inputResponses".into(), Value::Object(responses));
        match state {
            Some(s) => {
                params.insert("requestState".into(), s.clone());
            }
            None => {
                params.remove("requestState");
            }
        }
    }
    r
}

/// For the bridge: a server-to-client JSON-RPC request carrying one input request.
pub fn server_request(id: &str, req: &Value) -> Value {
    let mut m = Map::new();
    m.insert("jsonrpc".into(), json!("2.0"));
    m.insert("id".into(), json!(id));
    m.insert(
        "method".into(),
        req.get("method").cloned().unwrap_or(Value::Null),
    );
    if let Some(p) = req.get("params") {
        m.insert("params".into(), p.clone());
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_without_needs_input_asks_for_nothing() {
        assert!(requests_of(&json!({"rows": 3})).is_none());
        assert!(requests_of(&json!({"needs_input": false, "input_requests": {}})).is_none());
        assert!(requests_of(&json!("text")).is_none());
    }

    #[test]
    fn explicit_requests_are_checked() {
        let ok = json!({"needs_input": true, "input_requests": {
            "who": {"method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}},
            "roots": {"method": "roots/list"}}});
        let m = requests_of(&ok).unwrap().unwrap();
        assert_eq!(m.len(), 2);
        for bad in [
            json!({"needs_input": true, "input_requests": {}}),
            json!({"needs_input": true, "input_requests": []}),
            json!({"needs_input": true, "input_requests": {"a": {"method": "tools/call", "params": {}}}}),
            json!({"needs_input": true, "input_requests": {"a": {"params": {}}}}),
            json!({"needs_input": true, "input_requests": {"a": {"method": "elicitation/create"}}}),
            json!({"needs_input": true, "input_requests": {"a": {"method": "elicitation/create", "params": {}, "id": 1}}}),
            json!({"needs_input": true, "input_requests": {"": {"method": "roots/list"}}}),
            json!({"needs_input": true}),
        ] {
            assert!(requests_of(&bad).unwrap().is_err(), "{bad}");
        }
    }

    #[test]
    fn missing_parameters_become_one_form() {
        let r = requests_of(&json!({"needs_input": true, "missing_parameters": ["region", "industry"], "context": "Counting firms."}))
            .unwrap()
            .unwrap();
        let d = &r[DIALOG_KEY];
        assert_eq!(d["method"], "elicitation/create");
        assert_eq!(
            d["params"]["requestedSchema"]["required"],
            json!(["region", "industry"])
        );
        assert_eq!(
            d["params"]["requestedSchema"]["properties"]["region"]["type"],
            "string"
        );
        assert!(d["params"]["message"]
            .as_str()
            .unwrap()
            .starts_with("Counting firms."));
    }

    #[test]
    fn capabilities_are_checked_per_method() {
        let reqs = requests_of(&json!({"needs_input": true, "input_requests": {
            "s": {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 1}}}}))
        .unwrap()
        .unwrap();
        let caps = json!({"elicitation": {}}).as_object().unwrap().clone();
        assert_eq!(
            missing_capability(&reqs, &caps),
            Some(("s", "sampling/createMessage", "sampling"))
        );
        let caps = json!({"sampling": {}}).as_object().unwrap().clone();
        assert_eq!(missing_capability(&reqs, &caps), None);
    }

    #[test]
    fn responses_must_be_objects() {
        let p = |v: Value| v.as_object().unwrap().clone();
        assert!(input_responses(&p(json!({}))).unwrap().is_none());
        assert!(
            input_responses(&p(json!({"inputResponses": {"a": {"action": "accept"}}})))
                .unwrap()
                .is_some()
        );
        assert!(input_responses(&p(json!({"inputResponses": {"a": 1}}))).is_err());
        assert!(input_responses(&p(json!({"inputResponses": [1]}))).is_err());
    }

    #[test]
    fn the_bridge_retries_with_the_responses() {
        let answer = json!({"jsonrpc": "2.0", "id": 4, "result": {"resultType": "input_required",
            "inputRequests": {"k": {"method": "roots/list"}}, "requestState": "s1"}});
        let (reqs, state) = pending_input(&answer).unwrap();
        assert_eq!(reqs.len(), 1);
        assert_eq!(state, Some(&json!("s1")));
        assert!(pending_input(&json!({"result": {"content": []}})).is_none());
        let req = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "t", "arguments": {}}});
        let mut resp = Map::new();
        resp.insert("k".into(), json!({"roots": []}));
        let again = retry_request(&req, resp, state);
        assert_eq!(again["params"]["inputResponses"]["k"], json!({"roots": []}));
        assert_eq!(again["params"]["requestState"], "s1");
        assert_eq!(again["id"], 4);
        let sr = server_request("pg_mcp-1", &reqs["k"]);
        assert_eq!(
            sr,
            json!({"jsonrpc": "2.0", "id": "pg_mcp-1", "method": "roots/list"})
        );
    }

    #[test]
    fn a_dialog_answer_carries_action_and_values() {
        assert_eq!(
            dialog_answer(&json!({"action": "accept", "content": {"region": "Bayern"}})),
            Some(json!({"action": "accept", "answers": {"region": "Bayern"}}))
        );
        assert_eq!(
            dialog_answer(&json!({"action": "decline"})),
            Some(json!({"action": "decline", "answers": {}}))
        );
        assert_eq!(dialog_answer(&json!({})), None);
    }
}
