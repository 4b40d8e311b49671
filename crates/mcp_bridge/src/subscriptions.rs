//! Which change notifications reach which stream. The database sends two kinds through
//! LISTEN/NOTIFY: registry changes (`mcp_registry_changed`: tools, resources, prompts → the
//! `list_changed` notifications) and resource updates (`mcp_resource_updated` with the URI,
//! from `mcp.resource_updated(uri)` → `notifications/resources/updated`). The bridge's one
//! LISTEN connection broadcasts them; each stream keeps what its client asked for:
//! - a 2025-11-25 session's `GET /mcp` stream: every list change, and the updates of the URIs
//!   the session subscribed to (`resources/subscribe`, answered by `mcp.handle`);
//! - a 2026-07-28 `subscriptions/listen` stream: what the acknowledged filter honours, each
//!   notification tagged with the subscription's id (`_meta`).

use serde_json::{json, Map, Value};
use std::collections::HashSet;

/// The channel of resource updates (`mcp.resource_updated`).
pub const RESOURCE_CHANNEL: &str = "mcp_resource_updated";

/// At most this many `resources/subscribe` URIs per session.
pub const MAX_SESSION_SUBSCRIPTIONS: usize = 100;

/// `_meta` key of the subscription id on a listen stream.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// The notification of an update of `uri`.
pub fn resource_updated(uri: &str) -> String {
    json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}})
        .to_string()
}

/// A note on a session's GET stream: list changes pass, an update only for a subscribed URI.
pub fn for_session(note: &str, subscribed: &HashSet<String>) -> Option<String> {
    match updated_uri(note) {
        Some(uri) => subscribed.contains(&uri).then(|| note.to_string()),
        None => Some(note.to_string()),
    }
}

fn updated_uri(note: &str) -> Option<String> {
    if !note.contains("notifications/resources/updated") {
        return None;
    }
    let v: Value = serde_json::from_str(note).ok()?;
    (v["method"] == "notifications/resources/updated")
        .then(|| v["params"]["uri"].as_str().map(str::to_string))
        .flatten()
}

/// The filter of one `subscriptions/listen` stream, from the honoured `notifications`.
pub struct Listen {
    pub id: Value,
    lists: HashSet<String>,
    uris: HashSet<String>,
}

impl Listen {
    pub fn new(id: Value, honoured: &Map<String, Value>) -> Listen {
        let lists = [
            ("toolsListChanged", "notifications/tools/list_changed"),
            ("promptsListChanged", "notifications/prompts/list_changed"),
            (
                "resourcesListChanged",
                "notifications/resources/list_changed",
            ),
        ]
        .iter()
        .filter(|(k, _)| honoured.get(*k) == Some(&Value::Bool(true)))
        .map(|(_, m)| m.to_string())
        .collect();
        let uris = honoured
            .get("resourceSubscriptions")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        Listen { id, lists, uris }
    }

    fn tag(&self, mut v: Value) -> String {
        if let Some(o) = v.as_object_mut() {
            let params = o
                .entry("params")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(p) = params.as_object_mut() {
                let meta = p
                    .entry("_meta")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Some(m) = meta.as_object_mut() {
                    m.insert(META_SUBSCRIPTION_ID.into(), self.id.clone());
                }
            }
        }
        v.to_string()
    }

    /// The first message of the stream: `notifications/subscriptions/acknowledged`.
    pub fn acknowledgement(&self, honoured: &Map<String, Value>) -> String {
        self.tag(
            json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                        "params": {"notifications": honoured}}),
        )
    }

    /// A broadcast note as this stream sends it, if the filter asks for it.
    pub fn note(&self, note: &str) -> Option<String> {
        let v: Value = serde_json::from_str(note).ok()?;
        let method = v["method"].as_str()?;
        let wanted = if method == "notifications/resources/updated" {
            v["params"]["uri"]
                .as_str()
                .is_some_and(|u| self.uris.contains(u))
        } else {
            self.lists.contains(method)
        };
        wanted.then(|| self.tag(v))
    }

    /// The result that ends the stream gracefully (the bridge shuts down).
    pub fn end(&self) -> String {
        json!({"jsonrpc": "2.0", "id": self.id, "result": {"_meta": {META_SUBSCRIPTION_ID: self.id}}})
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_gets_list_changes_and_its_own_updates() {
        let mut subscribed = HashSet::new();
        subscribed.insert("a://1".to_string());
        let lc = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
        assert_eq!(for_session(lc, &subscribed).as_deref(), Some(lc));
        let mine = resource_updated("a://1");
        assert_eq!(for_session(&mine, &subscribed), Some(mine.clone()));
        assert_eq!(for_session(&resource_updated("a://2"), &subscribed), None);
        // a URI with quotes is escaped, and still matched exactly
        let odd = resource_updated("a://\"x\"");
        assert!(serde_json::from_str::<Value>(&odd).is_ok());
        assert_eq!(for_session(&odd, &subscribed), None);
    }

    #[test]
    fn a_listen_stream_gets_what_it_was_granted_tagged() {
        let honoured = json!({"toolsListChanged": true, "resourceSubscriptions": ["a://1"]});
        let l = Listen::new(json!(7), honoured.as_object().unwrap());
        let ack: Value =
            serde_json::from_str(&l.acknowledgement(honoured.as_object().unwrap())).unwrap();
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
        assert_eq!(ack["params"]["notifications"], honoured);
        assert_eq!(ack["params"]["_meta"][META_SUBSCRIPTION_ID], 7);
        let t: Value = serde_json::from_str(
            &l.note(r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#)
                .unwrap(),
        )
        .unwrap();
        assert_eq!(t["params"]["_meta"][META_SUBSCRIPTION_ID], 7);
        assert!(l
            .note(r#"{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}"#)
            .is_none());
        let u: Value = serde_json::from_str(&l.note(&resource_updated("a://1")).unwrap()).unwrap();
        assert_eq!(u["params"]["uri"], "a://1");
        assert_eq!(u["params"]["_meta"][META_SUBSCRIPTION_ID], 7);
        assert!(l.note(&resource_updated("a://2")).is_none());
        let end: Value = serde_json::from_str(&l.end()).unwrap();
        assert_eq!(
            (
                end["id"].clone(),
                end["result"]["_meta"][META_SUBSCRIPTION_ID].clone()
            ),
            (json!(7), json!(7))
        );
    }
}
