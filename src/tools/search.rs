//! Search tools (`kind` `vector_search`, `text_search`, `hybrid_search`): `mcp.search` on the
//! collection fixed in the tool's row (`mcp.tool.collection`), with the arguments `query`, `k`
//! and `filter`, as the calling role (row-level security on documents applies). Registered by
//! `mcp.register_search_tool`.

use super::{Call, Kind, ToolOutcome};
use crate::error::{McpError, McpResult};
use crate::pg::{first_row, PgErrorInfo};
use crate::retrieval::search::{caught, hits_json, hits_text, search_rows};
use mcp_chat::ToolCallStatus;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::JsonB;
use serde_json::{json, Map, Value};

pub struct Search;

impl Kind for Search {
    fn run(&self, call: &mut Call<'_>) -> McpResult<ToolOutcome> {
        let (name, kind, args) = (call.row.name.clone(), call.row.kind.clone(), call.args);
        Ok(run_search_tool(&name, &kind, args, call))
    }
}

/// A tool of kind vector_search, text_search or hybrid_search: mcp.search on the tool's
/// collection with the arguments query, k, filter.
fn run_search_tool(
    tool: &str,
    kind: &str,
    args: &Map<String, Value>,
    rec: &mut Call<'_>,
) -> ToolOutcome {
    let mode = kind.trim_end_matches("_search");
    let query = args
        .get("query")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let k = args
        .get("k")
        .and_then(Value::as_i64)
        .map(|k| k.clamp(1, 1000) as i32);
    let filter = args.get("filter").cloned().unwrap_or_else(|| json!({}));
    // mcp.search embeds the query with the collection's model: pg_mcp's own provider call
    let result = crate::sandbox::with_provider_calls(|| {
        caught(|| {
            let collection = first_row(
                "SELECT collection FROM mcp.tool WHERE name = $1",
                &[tool.into()],
                |t| t.get::<String>(1),
            )
            .map_err(|e| ErrorReport::from(McpError::from(e)))?
            .flatten()
            .unwrap_or_default();
            search_rows(
                "SELECT chunk_id, title, uri, score, text FROM mcp.search($1, $2, $3, $4, $5)",
                vec![
                    collection.as_str().into(),
                    query.as_str().into(),
                    k.into(),
                    mode.into(),
                    JsonB(filter.clone()).into(),
                ],
                &collection,
            )
        })
    });
    match result {
        Ok(hits) if hits.is_empty() => {
            ToolOutcome::ok(("No matching passages.".into(), Some(json!({"results": []}))))
        }
        Ok(hits) => ToolOutcome::ok((hits_text(&hits), Some(json!({"results": hits_json(&hits)})))),
        Err(info) => tool_failure(tool, info, rec),
    }
}

/// A failure inside a tool: the detail goes to the audit row, the model gets one sentence.
pub(super) fn tool_failure(tool: &str, info: PgErrorInfo, rec: &mut Call<'_>) -> ToolOutcome {
    let text = if info.sqlstate.starts_with("08") {
        format!("Tool '{tool}' failed: the embedding service is unavailable.")
    } else {
        mcp_tools::generic_tool_error(tool)
    };
    rec.error = Some(info);
    ToolOutcome::error(ToolCallStatus::Error, text)
}
