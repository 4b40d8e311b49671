//! Search helpers of the search tool kinds (`src/tools/search.rs`) and `context_retrieve`
//! (`src/tools/context_retrieve.rs`): hits and their text and JSON for the model (the tools'
//! failures are theirs: `tool_failure` in `src/tools/search.rs`). The ranking itself is SQL (`mcp.search_by_vector`, `sql/retrieval.sql`).

use super::R;
use crate::error::McpError;
use crate::pg::{in_subtransaction, select_kept, PgErrorInfo};
use pgrx::pg_sys::panic::ErrorReport;
use serde_json::{json, Value};

/// One search hit.
pub struct Hit {
    pub collection: String,
    pub chunk_id: i64,
    pub title: Option<String>,
    pub uri: String,
    pub score: f64,
    pub text: String,
}

pub fn hits_text(hits: &[Hit]) -> String {
    let mut out = String::new();
    for (i, h) in hits.iter().enumerate() {
        let title = h.title.as_deref().unwrap_or(&h.uri);
        out.push_str(&format!(
            "[{}] {title} ({}) score {:.3}\n{}\n\n",
            i + 1,
            h.uri,
            h.score,
            h.text.trim()
        ));
    }
    out.trim_end().to_string()
}

pub fn hits_json(hits: &[Hit]) -> Value {
    Value::Array(
        hits.iter()
            .map(|h| {
                json!({"collection": h.collection, "chunk_id": h.chunk_id, "title": h.title,
                       "uri": h.uri, "score": h.score, "text": h.text})
            })
            .collect(),
    )
}

/// Run `f` in a subtransaction; an ERROR (or an ErrorReport it returns) becomes `Err` with its
/// SQLSTATE, except cancel/timeout, which propagate.
pub fn caught<T>(f: impl FnOnce() -> R<T>) -> Result<T, PgErrorInfo> {
    in_subtransaction(false, || match f() {
        Ok(v) => v,
        Err(report) => {
            report.report(pgrx::PgLogLevel::ERROR);
            unreachable!("ERROR does not return")
        }
    })
}

pub fn search_rows(
    sql: &str,
    args: Vec<pgrx::datum::DatumWithOid<'_>>,
    collection: &str,
) -> R<Vec<Hit>> {
    select_kept(sql, &args, |t| {
        let mut hits = Vec::new();
        for row in t {
            hits.push(Hit {
                collection: collection.to_string(),
                chunk_id: row.get::<i64>(1)?.unwrap_or(0),
                title: row.get::<String>(2)?,
                uri: row.get::<String>(3)?.unwrap_or_default(),
                score: row.get::<f64>(4)?.unwrap_or(0.0),
                text: row.get::<String>(5)?.unwrap_or_default(),
            });
        }
        Ok(hits)
    })
    .map_err(|e| ErrorReport::from(McpError::from(e)))
}
