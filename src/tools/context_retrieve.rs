//! `context_retrieve`: the built-in retrieval gate. It searches only the collections built for
//! RAG (`purpose = 'rag'`) whose embedding model matches the interface's, keeps passages above
//! each collection's minimum score, and answers "no retrieval context found" otherwise. The
//! audit row records the matched collections and the passage count instead of the query
//! (unless the interface's `audit_retrieval_query` is on).

use super::names::CONTEXT_RETRIEVE;
use super::search::tool_failure;
use super::{Call, Kind, ToolOutcome};
use crate::error::{McpError, McpResult};
use crate::pg::{first_row, select_kept};
use crate::retrieval::embed::{embed_with, model_row};
use crate::retrieval::search::{caught, hits_json, hits_text, search_rows, Hit};
use crate::retrieval::{vector_literal, vector_schema, NO_CONTEXT};
use mcp_chat::ToolCallStatus;
use pgrx::pg_sys::panic::ErrorReport;
use serde_json::{json, Map, Value};

pub struct ContextRetrieve;

impl Kind for ContextRetrieve {
    fn run(&self, call: &mut Call<'_>) -> McpResult<ToolOutcome> {
        let args = call.args;
        Ok(run_context_retrieve(args, call))
    }
}

/// The built-in `context_retrieve`: embed the query with the interface's embedding model,
/// search every collection with purpose 'rag' and the same fingerprint and dimension (vector
/// mode, each with its top_k), keep passages with a cosine similarity of at least the
/// collection's min_score, best first. The audit row records the matched collections and the
/// number of passages; the query text only when the interface's audit_retrieval_query is on.
fn run_context_retrieve(args: &Map<String, Value>, rec: &mut Call<'_>) -> ToolOutcome {
    let query = args
        .get("query")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let interface = rec.interface.to_string();
    let (model, audit_query) = match caught(|| {
        first_row(
            "SELECT embedding_model, audit_retrieval_query FROM mcp.interface WHERE name = $1",
            &[interface.as_str().into()],
            |t| Ok((t.get::<String>(1)?, t.get::<bool>(2)?.unwrap_or(false))),
        )
        .map_err(|e| ErrorReport::from(McpError::from(e)))
    }) {
        Ok(Some(row)) => row,
        Ok(None) => (None, false),
        Err(info) => return tool_failure(CONTEXT_RETRIEVE, info, rec),
    };
    let record = |rec: &mut Call<'_>, matched: &[String], passages: usize| {
        let mut a = json!({"matched_collections": matched, "passages": passages});
        if audit_query {
            a["query"] = Value::String(query.clone());
        } else {
            a["query_recorded"] = Value::Bool(false);
        }
        // replaces the arguments (and the model's raw argument text) in the audit row
        rec.audit_arguments = Some(a);
    };
    let Some(model) = model else {
        record(rec, &[], 0);
        return ToolOutcome::error(
            ToolCallStatus::Error,
            format!("Tool '{CONTEXT_RETRIEVE}' is not configured: interface '{interface}' has no embedding model."),
        );
    };
    // the search may analyze the query for its entities (mcp.analyze through
    // mcp.search_by_vector, with no interface: no plan ranking, no provider call); like the
    // embedding below it is pg_mcp's own work, not the tool's
    let result = crate::sandbox::with_provider_calls(|| {
        caught(|| {
            let m = model_row(&model)?;
            let eligible: Vec<(String, i32, f32)> = select_kept(
                "SELECT name, top_k, min_score FROM mcp.collection
              WHERE purpose = 'rag' AND fingerprint = $1 AND dimension = $2 ORDER BY name",
                &[m.fingerprint.as_str().into(), (m.dimension as i32).into()],
                |t| {
                    let mut v = Vec::new();
                    for row in t {
                        v.push((
                            row.get::<String>(1)?.unwrap_or_default(),
                            row.get::<i32>(2)?.unwrap_or(7),
                            row.get::<f32>(3)?.unwrap_or(0.7),
                        ));
                    }
                    Ok(v)
                },
            )
            .map_err(|e| ErrorReport::from(McpError::from(e)))?;
            if eligible.is_empty() {
                return Ok((Vec::new(), Vec::new()));
            }
            let qv = vector_literal(
                &embed_with(&m, &[query.as_str()], mcp_embed::InputType::Query)?.remove(0),
            );
            let sql = format!(
            "SELECT chunk_id, title, uri, score, text
               FROM mcp.search_by_vector($1, $2, $3::{}.vector, $4, 'vector', '{{}}') WHERE score >= $5",
            vector_schema()?
        );
            let mut lists: Vec<std::collections::VecDeque<Hit>> = Vec::new();
            let mut matched = Vec::new();
            let mut limit = 0;
            for (name, top_k, min_score) in &eligible {
                matched.push(name.clone());
                limit = limit.max(*top_k as usize);
                lists.push(
                    search_rows(
                        &sql,
                        vec![
                            name.as_str().into(),
                            query.as_str().into(),
                            qv.as_str().into(),
                            (*top_k).into(),
                            (*min_score as f64).into(),
                        ],
                        name,
                    )?
                    .into(),
                );
            }
            // Each collection's hits stay in the search's own order (an entity boost reorders
            // them while the scores returned stay the plain similarities); the collections are
            // merged by comparing their next hits' scores.
            let mut hits = Vec::new();
            while hits.len() < limit {
                let best = lists
                    .iter()
                    .enumerate()
                    .filter_map(|(i, l)| l.front().map(|h| (i, h.score)))
                    .max_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal));
                let Some((i, _)) = best else { break };
                hits.extend(lists[i].pop_front());
            }
            Ok((matched, hits))
        })
    });
    match result {
        Ok((matched, hits)) => {
            record(rec, &matched, hits.len());
            if hits.is_empty() {
                ToolOutcome::ok((NO_CONTEXT.into(), None))
            } else {
                ToolOutcome::ok((
                    hits_text(&hits),
                    Some(json!({"passages": hits_json(&hits)})),
                ))
            }
        }
        Err(info) => {
            record(rec, &[], 0);
            tool_failure(CONTEXT_RETRIEVE, info, rec)
        }
    }
}
