//! SQL surface of retrieval: `mcp.chunk_text`, `mcp.embed_literals` (behind `mcp.embed`),
//! `mcp.local_model_fingerprint` and `mcp.ingest`. The work is in `crate::retrieval`.

use crate::error::required;
use crate::jsonb::JsonbArg;
use crate::retrieval::{embed, ingest as ingestion};
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::json;

pgrx::extension_sql_file!(
    "../../sql/text_search.sql",
    name = "text_search",
    requires = ["bootstrap"]
);

pgrx::extension_sql_file!(
    "../../sql/retrieval.sql",
    name = "retrieval",
    requires = [
        "bootstrap",
        "mcp_server",
        "text_search",
        chunk_text,
        embed_literals,
        local_model_fingerprint,
        ingest
    ]
);

/// `mcp.chunk_text`: see `mcp_retrieval::chunk_text`.
#[pg_extern(name = "chunk_text", immutable, parallel_safe)]
fn chunk_text(
    body: Option<&str>,
    max_tokens: default!(Option<i32>, 512),
    overlap: default!(Option<i32>, 64),
    format: default!(Option<&str>, "'text'"),
) -> Result<
    TableIterator<
        'static,
        (
            name!(position, i32),
            name!(text, String),
            name!(token_count, i32),
        ),
    >,
    ErrorReport,
> {
    let Some(body) = body else {
        return Ok(TableIterator::new(Vec::new()));
    };
    let max = required(max_tokens, "chunk_text", "max_tokens")?;
    let overlap = required(overlap, "chunk_text", "overlap")?;
    let format = required(format, "chunk_text", "format")?;
    let chunks = ingestion::chunk(body, max, overlap, format)?;
    Ok(TableIterator::new(
        chunks
            .into_iter()
            .map(|c| (c.position as i32, c.text, c.tokens as i32))
            .collect::<Vec<_>>(),
    ))
}

/// The vectors of `mcp.embed` as pgvector text literals (mcp.embed casts them to vector[]).
#[pg_extern(name = "embed_literals", volatile, strict)]
fn embed_literals(
    texts: Vec<Option<String>>,
    model: &str,
    input_type: default!(&str, "'query'"),
) -> Result<Vec<Option<String>>, ErrorReport> {
    embed::embed_literals(&texts, model, input_type)
}

/// `mcp.local_model_fingerprint(path)`: the fingerprint of the model files in a directory.
#[pg_extern(name = "local_model_fingerprint", volatile, strict)]
fn local_model_fingerprint(path: &str) -> Result<String, ErrorReport> {
    embed::local_model_fingerprint(path)
}

/// `mcp.ingest`: see `crate::retrieval::ingest::ingest`.
#[pg_extern(name = "ingest", volatile)]
fn ingest(
    collection: Option<&str>,
    uri: Option<&str>,
    title: Option<&str>,
    body: Option<&str>,
    metadata: default!(Option<JsonbArg>, "'{}'"),
    mime_type: default!(Option<&str>, "'text/plain'"),
) -> Result<JsonB, ErrorReport> {
    let f = "ingest";
    let collection = required(collection, f, "collection")?;
    let uri = required(uri, f, "uri")?;
    let body = required(body, f, "body")?;
    let metadata = match metadata {
        Some(m) => m.value("metadata")?,
        None => json!({}),
    };
    let mime_type = required(mime_type, f, "mime_type")?;
    ingestion::ingest(collection, uri, title, body, metadata, mime_type).map(JsonB)
}
