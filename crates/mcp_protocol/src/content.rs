//! MCP content beyond one text item: the content arrays a tool may return (text, image, audio,
//! embedded resources, resource links), binary resource contents (`blob`), and the prompt
//! messages a registry row declares. Everything a database function or row hands in is checked
//! here before a client sees it, so a malformed item is a clear error, never a broken answer.

use serde_json::{json, Map, Value};

/// Items in one content array at most (a tool result or a prompt's messages).
pub const MAX_ITEMS: usize = 64;

/// Whether `s` is standard base64 with padding (what MCP's `data` and `blob` carry).
pub fn is_base64(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() % 4 != 0 {
        return false;
    }
    let pad = b.iter().rev().take_while(|c| **c == b'=').count();
    if pad > 2 {
        return false;
    }
    b[..b.len() - pad]
        .iter()
        .all(|c| c.is_ascii_alphanumeric() || *c == b'+' || *c == b'/')
}

/// Standard base64 with padding of `bytes`.
pub fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n =
            chunk.iter().fold(0u32, |acc, b| (acc << 8) | u32::from(*b)) << (8 * (3 - chunk.len()));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn string_field<'a>(
    item: &'a Map<String, Value>,
    key: &str,
    what: &str,
) -> Result<&'a str, String> {
    item.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{what} needs a string \"{key}\""))
}

/// One embedded resource's contents: `uri` and either `text` or base64 `blob`.
fn check_resource_contents(r: &Value, what: &str) -> Result<(), String> {
    let r = r
        .as_object()
        .ok_or_else(|| format!("{what}: \"resource\" must be an object"))?;
    string_field(r, "uri", what)?;
    match (r.get("text"), r.get("blob")) {
        (Some(Value::String(_)), None) => Ok(()),
        (None, Some(Value::String(b))) if is_base64(b) => Ok(()),
        (None, Some(_)) => Err(format!("{what}: \"blob\" must be base64")),
        _ => Err(format!(
            "{what}: the resource needs either a string \"text\" or a base64 \"blob\""
        )),
    }
}

/// Checks one MCP content item (`TextContent`, `ImageContent`, `AudioContent`,
/// `EmbeddedResource`, `ResourceLink`).
pub fn check_item(v: &Value, what: &str) -> Result<(), String> {
    let item = v
        .as_object()
        .ok_or_else(|| format!("{what} must be an object"))?;
    match item.get("type").and_then(Value::as_str) {
        Some("text") => string_field(item, "text", what).map(|_| ()),
        Some(kind @ ("image" | "audio")) => {
            let data = string_field(item, "data", what)?;
            if !is_base64(data) {
                return Err(format!("{what}: {kind} \"data\" must be base64"));
            }
            string_field(item, "mimeType", what).map(|_| ())
        }
        Some("resource") => {
            check_resource_contents(item.get("resource").unwrap_or(&Value::Null), what)
        }
        Some("resource_link") => {
            string_field(item, "uri", what)?;
            string_field(item, "name", what).map(|_| ())
        }
        Some(other) => Err(format!(
            "{what}: unknown content type \"{}\" (text, image, audio, resource, resource_link)",
            other.chars().take(32).collect::<String>()
        )),
        None => Err(format!("{what} needs a \"type\"")),
    }
}

/// A tool's value as an MCP content array: an array of content items, or one item alone.
pub fn tool_content(v: &Value) -> Result<Vec<Value>, String> {
    let items = match v {
        Value::Array(a) => a.clone(),
        Value::Object(_) => vec![v.clone()],
        _ => {
            return Err(
                "the result is not an MCP content array (a JSON array of content items)".into(),
            )
        }
    };
    if items.is_empty() {
        return Err("the content array is empty".into());
    }
    if items.len() > MAX_ITEMS {
        return Err(format!("the content array has more than {MAX_ITEMS} items"));
    }
    for (i, item) in items.iter().enumerate() {
        check_item(item, &format!("content item {i}"))?;
    }
    Ok(items)
}

/// One item of `resources/read`'s `contents`: text, or base64 `blob` for binary values.
pub fn resource_contents(uri: &str, mime_type: &str, value: ResourceValue) -> Value {
    match value {
        ResourceValue::Text(t) => json!({"uri": uri, "mimeType": mime_type, "text": t}),
        ResourceValue::Binary(b) => json!({"uri": uri, "mimeType": mime_type, "blob": base64(&b)}),
    }
}

/// What a resource reader returned.
pub enum ResourceValue {
    Text(String),
    Binary(Vec<u8>),
}

/// Checks a prompt's declared messages (`mcp.prompt.messages`): an array of
/// `{"role": "user"|"assistant", "content": <content item>}`. A resource item may carry only
/// a `uri` (no text or blob): its contents are then read from the registry when the prompt is
/// got.
pub fn check_prompt_messages(v: &Value) -> Result<(), String> {
    let msgs = v
        .as_array()
        .ok_or("messages must be a JSON array of {role, content}")?;
    if msgs.is_empty() || msgs.len() > MAX_ITEMS {
        return Err(format!("messages must hold 1 to {MAX_ITEMS} messages"));
    }
    for (i, m) in msgs.iter().enumerate() {
        let what = format!("message {i}");
        let role = m.get("role").and_then(Value::as_str);
        if !matches!(role, Some("user" | "assistant")) {
            return Err(format!("{what}: role must be user or assistant"));
        }
        let content = m.get("content").unwrap_or(&Value::Null);
        if let Some(uri) = resource_reference(content) {
            if uri.is_empty() {
                return Err(format!("{what}: the resource needs a uri"));
            }
            continue;
        }
        check_item(content, &what)?;
    }
    Ok(())
}

/// The URI of an embedded resource item that names a registry resource instead of carrying
/// its contents (`{"type": "resource", "resource": {"uri": …}}` without text or blob).
pub fn resource_reference(content: &Value) -> Option<&str> {
    if content.get("type").and_then(Value::as_str) != Some("resource") {
        return None;
    }
    let r = content.get("resource")?.as_object()?;
    if r.contains_key("text") || r.contains_key("blob") {
        return None;
    }
    Some(r.get("uri").and_then(Value::as_str).unwrap_or(""))
}

/// The string fields of a prompt message's content that take `{{name}}` placeholders:
/// `text` of a text item (values inserted as marked data, see [`fill`]), and `uri` and `text`
/// of an embedded resource (the uri gets the value itself).
pub fn render_message(content: &mut Value, args: &Map<String, Value>) -> Result<(), String> {
    let Some(item) = content.as_object_mut() else {
        return Ok(());
    };
    let apply = |v: Option<&mut Value>, as_data: bool| -> Result<(), String> {
        if let Some(Value::String(s)) = v {
            if s.contains("{{") {
                *s = fill(s, args, as_data)?;
            }
        }
        Ok(())
    };
    match item.get("type").and_then(Value::as_str) {
        Some("text") => apply(item.get_mut("text"), true),
        Some("resource") => {
            if let Some(r) = item.get_mut("resource").and_then(Value::as_object_mut) {
                apply(r.get_mut("uri"), false)?;
                apply(r.get_mut("text"), true)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Fills `{{ name }}` placeholders in one pass (a value is never scanned again). `as_data`:
/// each value as `mcp.template_data` marks it (`<data name="…">…</data>`, & < > escaped), as
/// `mcp.render_prompt` does; otherwise the value itself. A placeholder without a value is an
/// error.
pub fn fill(s: &str, args: &Map<String, Value>, as_data: bool) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("{{") {
        let Some(len) = rest[start + 2..].find("}}") else {
            break;
        };
        let name = rest[start + 2..start + 2 + len].trim();
        let is_name = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if !is_name {
            out.push_str(&rest[..start + 2]);
            rest = &rest[start + 2..];
            continue;
        }
        let value = match args.get(name) {
            Some(Value::String(v)) => v.clone(),
            Some(Value::Null) | None => return Err(format!("missing argument \"{name}\"")),
            Some(other) => other.to_string(),
        };
        out.push_str(&rest[..start]);
        if as_data {
            let escaped = value
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;");
            out.push_str(&format!("<data name=\"{name}\">{escaped}</data>"));
        } else {
            out.push_str(&value);
        }
        rest = &rest[start + 2 + len + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

    #[test]
    fn base64_round_trips_the_padding_cases() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64(&[0xff, 0xfe, 0x00]), "//4A");
        for s in ["", "Zg==", "Zm8=", "Zm9v", PNG] {
            assert!(is_base64(s), "{s}");
        }
        for s in ["Zg=", "Zm9v!", "Z===", "Zm 9v", "Zg==Zg=="] {
            assert!(!is_base64(s), "{s}");
        }
    }

    #[test]
    fn tool_content_accepts_every_kind_and_one_item_alone() {
        let items = json!([
            {"type": "text", "text": "t"},
            {"type": "image", "data": PNG, "mimeType": "image/png"},
            {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "test://x", "mimeType": "text/plain", "text": "x"}},
            {"type": "resource", "resource": {"uri": "test://b", "blob": "Zm9v"}},
            {"type": "resource_link", "uri": "test://x", "name": "x"}
        ]);
        assert_eq!(tool_content(&items).unwrap().len(), 6);
        assert_eq!(
            tool_content(&json!({"type": "text", "text": "one"}))
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn tool_content_names_what_is_wrong() {
        let cases = [
            (json!("text"), "not an MCP content array"),
            (json!([]), "empty"),
            (
                json!([{"type": "image", "data": "not base64!", "mimeType": "image/png"}]),
                "base64",
            ),
            (json!([{"type": "image", "data": PNG}]), "mimeType"),
            (json!([{"type": "text"}]), "\"text\""),
            (
                json!([{"type": "video", "data": ""}]),
                "unknown content type \"video\"",
            ),
            (json!([{"text": "x"}]), "needs a \"type\""),
            (
                json!([{"type": "resource", "resource": {"uri": "a"}}]),
                "either a string",
            ),
            (
                json!([{"type": "resource", "resource": {"uri": "a", "text": "x", "blob": "Zm9v"}}]),
                "either",
            ),
            (json!([1]), "must be an object"),
        ];
        for (v, want) in cases {
            let e = tool_content(&v).unwrap_err();
            assert!(e.contains(want), "{v}: {e}");
        }
        let many = Value::Array(vec![json!({"type": "text", "text": "x"}); MAX_ITEMS + 1]);
        assert!(tool_content(&many).unwrap_err().contains("more than"));
    }

    #[test]
    fn resource_contents_are_text_or_blob() {
        let t = resource_contents("u", "text/plain", ResourceValue::Text("hi".into()));
        assert_eq!(
            t,
            json!({"uri": "u", "mimeType": "text/plain", "text": "hi"})
        );
        let b = resource_contents("u", "image/png", ResourceValue::Binary(b"foo".to_vec()));
        assert_eq!(
            b,
            json!({"uri": "u", "mimeType": "image/png", "blob": "Zm9v"})
        );
    }

    #[test]
    fn prompt_messages_are_checked_and_rendered() {
        let m = json!([
            {"role": "user", "content": {"type": "resource", "resource": {"uri": "{{resourceUri}}", "mimeType": "text/plain", "text": "Embedded"}}},
            {"role": "user", "content": {"type": "resource", "resource": {"uri": "pgmcp://t/count"}}},
            {"role": "assistant", "content": {"type": "text", "text": "Hello {{who}}"}},
            {"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}}
        ]);
        check_prompt_messages(&m).unwrap();
        assert_eq!(
            resource_reference(&m[1]["content"]),
            Some("pgmcp://t/count")
        );
        assert_eq!(resource_reference(&m[0]["content"]), None);
        let args = json!({"resourceUri": "test://r", "who": "<b>&"})
            .as_object()
            .cloned()
            .unwrap();
        let mut c = m[0]["content"].clone();
        render_message(&mut c, &args).unwrap();
        assert_eq!(c["resource"]["uri"], "test://r");
        let mut c = m[2]["content"].clone();
        render_message(&mut c, &args).unwrap();
        assert_eq!(c["text"], "Hello <data name=\"who\">&lt;b&gt;&amp;</data>");
        // one pass: a value holding a placeholder is not expanded
        let a2 = json!({"a": "{{b}}", "b": "x"})
            .as_object()
            .cloned()
            .unwrap();
        assert_eq!(fill("{{a}} {{ b }}", &a2, false).unwrap(), "{{b}} x");
        assert_eq!(fill("{{ 1x }} {{", &a2, false).unwrap(), "{{ 1x }} {{");
        assert!(fill("{{c}}", &a2, false).unwrap_err().contains("\"c\""));
        for (bad, want) in [
            (json!({}), "array"),
            (json!([]), "1 to"),
            (
                json!([{"role": "system", "content": {"type": "text", "text": "x"}}]),
                "role",
            ),
            (
                json!([{"role": "user", "content": {"type": "image", "data": "x"}}]),
                "base64",
            ),
            (
                json!([{"role": "user", "content": {"type": "resource", "resource": {"uri": ""}}}]),
                "uri",
            ),
        ] {
            let e = check_prompt_messages(&bad).unwrap_err();
            assert!(e.contains(want), "{bad}: {e}");
        }
    }
}
