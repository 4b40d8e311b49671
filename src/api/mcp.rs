//! `mcp.handle`: one MCP JSON-RPC message (or a batch) in, the response out. The server itself
//! is [`crate::mcp_server`].

use crate::gucs;
use crate::jsonb::JsonbArg;
use crate::mcp_server::{handle_one, start_statement};
use mcp_protocol::{codes, RpcError};
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::Value;

pgrx::extension_sql_file!(
    "../../sql/mcp_server.sql",
    name = "mcp_server",
    requires = ["bootstrap", handle]
);
pgrx::extension_sql_file!(
    "../../sql/mcp_content.sql",
    name = "mcp_content",
    requires = ["mcp_server"]
);
pgrx::extension_sql_file!(
    "../../sql/mcp_oauth.sql",
    name = "mcp_oauth",
    requires = ["mcp_content"]
);
pgrx::extension_sql_file!(
    "../../sql/mcp_input.sql",
    name = "mcp_input",
    requires = ["mcp_content", input_response]
);

/// `mcp.input_response(key)`: inside a tool that `mcp.handle` runs for `tools/call`, the
/// client's response to the tool's input request `key` (NULL in the first round, and outside
/// `mcp.handle`).
#[pg_extern(name = "input_response", stable, parallel_restricted)]
fn input_response(key: Option<&str>) -> Option<JsonB> {
    crate::mcp_server::input_response(key?).map(JsonB)
}

/// `mcp.handle`: one MCP JSON-RPC message (or a batch) in, the response out; NULL for
/// notifications and client responses.
#[pg_extern(name = "handle", volatile)]
fn handle(request: Option<JsonbArg>) -> Option<JsonB> {
    // Nested deeper than pg_mcp reads, or a number outside f64: a JSON-RPC error, not an ERROR.
    let msg = match request?.value("request") {
        Ok(v) => v,
        Err(e) => {
            return Some(JsonB(mcp_protocol::error_response(
                &Value::Null,
                &RpcError::new(
                    codes::INVALID_REQUEST,
                    format!("Invalid Request: {}", e.message()),
                ),
            )))
        }
    };
    match msg {
        Value::Array(items) if items.is_empty() => Some(JsonB(mcp_protocol::error_response(
            &Value::Null,
            &RpcError::new(codes::INVALID_REQUEST, "Invalid Request: empty batch"),
        ))),
        Value::Array(items) => {
            let version = crate::mcp_server::negotiated_version();
            let max = gucs::MAX_BATCH_ITEMS.get().max(1) as usize;
            let refusal = if !mcp_protocol::has_batching(&version) {
                Some(format!(
                    "Invalid Request: revision {} has no JSON-RPC batching; send one message per request",
                    if version.is_empty() { mcp_protocol::LATEST_VERSION } else { &version }
                ))
            } else if items.len() > max {
                Some(format!(
                    "Invalid Request: a batch of {} messages is larger than the limit of {max} (mcp.max_batch_items)",
                    items.len()
                ))
            } else {
                None
            };
            if let Some(message) = refusal {
                return Some(JsonB(mcp_protocol::error_response(
                    &Value::Null,
                    &RpcError::new(codes::INVALID_REQUEST, message),
                )));
            }
            start_statement();
            let out: Vec<Value> = items.iter().filter_map(handle_one).collect();
            (!out.is_empty()).then(|| JsonB(Value::Array(out)))
        }
        other => {
            start_statement();
            handle_one(&other).map(JsonB)
        }
    }
}
