#![no_main]
//! Fuzz tool schemas: `check_tool_schema` and `ToolSchema::compile` on any JSON value (the bytes
//! parsed strictly, else repaired, so mutations reach deep schema structures), then validation of
//! arguments derived from the same bytes. Everything must end without panic, stack overflow or
//! timeout: the static complexity bound must hold for every schema that is accepted.

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let schema = match serde_json::from_str::<Value>(&text) {
        Ok(v) => v,
        Err(_) => match mcp_repair::repair(&text) {
            Ok(r) => r.value,
            Err(_) => return,
        },
    };
    let _ = mcp_tools::check_tool_schema(&schema);
    let Ok(compiled) = mcp_tools::ToolSchema::compile(&schema) else {
        return;
    };
    // arguments: an empty object, the schema itself, and each property given the schema's
    // other values
    let _ = compiled.validate(&json!({}));
    let _ = compiled.validate(&schema);
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        let values: Vec<Value> = schema.as_object().map(|o| o.values().cloned().collect()).unwrap_or_default();
        for (i, name) in props.keys().enumerate().take(8) {
            let v = values.get(i % values.len().max(1)).cloned().unwrap_or(Value::Null);
            let _ = compiled.validate(&json!({ name: v }));
        }
    }
});
