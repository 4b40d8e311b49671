//! Retrieval inside the database: embedding (`embed`), ingestion (`ingest`) and the search
//! helpers of the search tools and `context_retrieve` (`search`). The SQL surface is in
//! `src/api/retrieval.rs`, the tool kinds in `src/tools/search.rs` and
//! `src/tools/context_retrieve.rs`.
//!
//! Schema, search SQL and comments are in `sql/retrieval.sql`; chunking, fusion and metrics in
//! `crates/mcp_retrieval`; the local model and the `/v1/embeddings` format in
//! `crates/mcp_embed`. Everything runs as the calling role: row-level security on documents
//! applies to ingestion and search alike.

pub mod embed;
pub mod ingest;
pub mod search;

use crate::error::McpError;
use crate::pg::first_row;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::PgSqlErrorCode;

/// What context_retrieve answers when no passage reaches a collection's min_score.
pub const NO_CONTEXT: &str = "no retrieval context found";

pub type R<T> = Result<T, ErrorReport>;

pub fn fail(code: PgSqlErrorCode, message: impl Into<String>) -> ErrorReport {
    ErrorReport::new(code, message.into(), "pg_mcp")
}

/// pgvector's text form of a vector.
pub fn vector_literal(v: &[f32]) -> String {
    let mut s = String::with_capacity(v.len() * 12);
    s.push('[');
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&x.to_string());
    }
    s.push(']');
    s
}

/// The schema pgvector lives in, quoted (for casts in statements pg_mcp builds).
pub fn vector_schema() -> R<String> {
    first_row(
        "SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e
           JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'",
        &[],
        |t| t.get::<String>(1),
    )
    .map_err(|e| ErrorReport::from(McpError::from(e)))?
    .flatten()
    .ok_or_else(|| {
        fail(
            PgSqlErrorCode::ERRCODE_UNDEFINED_OBJECT,
            "extension \"vector\" is not installed",
        )
    })
}
