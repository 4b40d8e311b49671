//! Retrieval inside the database: `mcp.chunk_text`, `mcp.embed`, `mcp.ingest`, the
//! search tool kinds and the built-in tool `context_retrieve` (SQLcl's RAG gate).
//!
//! Schema, search SQL and comments are in `sql/retrieval.sql`; chunking, fusion and metrics in
//! `crates/mcp_retrieval`; the local model and the `/v1/embeddings` format in
//! `crates/mcp_embed`. Everything runs as the calling role: row-level security on documents
//! applies to ingestion and search alike.

use crate::error::{required, McpError};
use crate::jsonb::JsonbArg;
use crate::pg::{first_row, in_subtransaction, select_kept, write_kept, PgErrorInfo};
use crate::tools::{Call, ToolOutcome};
use mcp_chat::ToolCallStatus;
use mcp_embed::{EmbedError, InputType, LocalModel};
use mcp_http::{HttpClient, Options, Request};
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::{JsonB, PgSqlErrorCode};
use serde_json::{json, Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;

pgrx::extension_sql_file!(
    "../sql/retrieval.sql",
    name = "retrieval",
    requires = [
        "bootstrap",
        "mcp_server",
        chunk_text,
        embed_literals,
        local_model_fingerprint,
        ingest
    ]
);

/// Name of the built-in RAG tool.
pub use crate::tools::names::CONTEXT_RETRIEVE;
/// What context_retrieve answers when no passage reaches a collection's min_score.
pub const NO_CONTEXT: &str = "no retrieval context found";

type R<T> = Result<T, ErrorReport>;

fn fail(code: PgSqlErrorCode, message: impl Into<String>) -> ErrorReport {
    ErrorReport::new(code, message.into(), "pg_mcp")
}

thread_local! {
    /// HTTP client (connection pool) of the openai kind.
    static CLIENT: HttpClient = HttpClient::new();
    /// Loaded local models by directory (a backend loads a model once).
    static MODELS: RefCell<HashMap<String, Rc<LocalModel>>> = RefCell::new(HashMap::new());
}

// ------------------------------------------------------------------------------------------
// Chunking
// ------------------------------------------------------------------------------------------

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
    let format = mcp_retrieval::Format::parse(required(format, "chunk_text", "format")?)
        .map_err(|m| fail(PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, m))?;
    if max < 1 || overlap < 0 {
        return Err(fail(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            "max_tokens must be positive and overlap not negative",
        ));
    }
    let chunks = mcp_retrieval::chunk_text(body, max as usize, overlap as usize, format)
        .map_err(|m| fail(PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, m))?;
    Ok(TableIterator::new(
        chunks
            .into_iter()
            .map(|c| (c.position as i32, c.text, c.tokens as i32))
            .collect::<Vec<_>>(),
    ))
}

// ------------------------------------------------------------------------------------------
// Embedding models
// ------------------------------------------------------------------------------------------

/// A row of mcp.embedding_model.
struct ModelRow {
    name: String,
    kind: String,
    dimension: usize,
    fingerprint: String,
    path: Option<String>,
    provider: Option<String>,
    model: Option<String>,
    batch_size: usize,
}

fn model_row(name: &str) -> R<ModelRow> {
    first_row(
        "SELECT name, kind, dimension, fingerprint, path, provider, model, batch_size
           FROM mcp.embedding_model WHERE name = $1",
        &[name.into()],
        |t| {
            Ok(ModelRow {
                name: t.get::<String>(1)?.unwrap_or_default(),
                kind: t.get::<String>(2)?.unwrap_or_default(),
                dimension: t.get::<i32>(3)?.unwrap_or(0).max(0) as usize,
                fingerprint: t.get::<String>(4)?.unwrap_or_default(),
                path: t.get::<String>(5)?,
                provider: t.get::<String>(6)?,
                model: t.get::<String>(7)?,
                batch_size: t.get::<i32>(8)?.unwrap_or(32).max(1) as usize,
            })
        },
    )
    .map_err(|e| ErrorReport::from(McpError::from(e)))?
    .ok_or_else(|| {
        fail(
            PgSqlErrorCode::ERRCODE_UNDEFINED_OBJECT,
            format!("embedding model \"{name}\" does not exist"),
        )
    })
}

fn embed_error(model: &str, e: EmbedError) -> ErrorReport {
    match e {
        EmbedError::Model(m) => fail(
            PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            format!("embedding model \"{model}\": {m}"),
        ),
        EmbedError::Server(m) => fail(
            PgSqlErrorCode::ERRCODE_CONNECTION_FAILURE,
            format!("embedding model \"{model}\": {m}"),
        ),
        e @ EmbedError::Dimension { .. } => fail(
            PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
            format!("embedding model \"{model}\": {e}"),
        ),
    }
}

/// The loaded local model of `m`, checked against its registered fingerprint and dimension.
fn local_model(m: &ModelRow) -> R<Rc<LocalModel>> {
    let path = m.path.clone().unwrap_or_default();
    let cached = MODELS.with(|c| c.borrow().get(&path).cloned());
    let model = match cached {
        Some(model) => model,
        None => {
            let model = Rc::new(
                LocalModel::load(std::path::Path::new(&path))
                    .map_err(|e| embed_error(&m.name, e))?,
            );
            MODELS.with(|c| c.borrow_mut().insert(path.clone(), model.clone()));
            model
        }
    };
    if model.fingerprint != m.fingerprint {
        return Err(fail(
            PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            format!(
                "model mismatch: the files of embedding model \"{}\" have fingerprint {}, but {} is registered",
                m.name, model.fingerprint, m.fingerprint
            ),
        ));
    }
    if model.dimension() != m.dimension {
        return Err(embed_error(
            &m.name,
            EmbedError::Dimension {
                got: model.dimension(),
                expected: m.dimension,
            },
        ));
    }
    Ok(model)
}

fn interrupt_pending() -> bool {
    unsafe {
        pg_sys::InterruptPending != 0
            && (pg_sys::QueryCancelPending != 0 || pg_sys::ProcDiePending != 0)
    }
}

/// One `/v1/embeddings` request through the chat loop's HTTP client (retries, timeouts,
/// cancel), with the provider's base URL, time limit and key.
fn openai_embed(m: &ModelRow, texts: &[&str]) -> R<Vec<Vec<f32>>> {
    let provider = m.provider.as_deref().unwrap_or_default();
    let (kind, base_url, api_version, timeout_ms) = first_row(
        "SELECT kind, base_url, api_version, timeout_ms FROM mcp.provider WHERE name = $1",
        &[provider.into()],
        |t| {
            Ok((
                t.get::<String>(1)?.unwrap_or_default(),
                t.get::<String>(2)?.unwrap_or_default(),
                t.get::<String>(3)?,
                t.get::<i32>(4)?,
            ))
        },
    )
    .map_err(|e| ErrorReport::from(McpError::from(e)))?
    .ok_or_else(|| {
        fail(
            PgSqlErrorCode::ERRCODE_UNDEFINED_OBJECT,
            format!(
                "provider \"{provider}\" of embedding model \"{}\" does not exist",
                m.name
            ),
        )
    })?;
    // The provider's dialect decides the URL and the key header (Azure: the deployment URL
    // with api-version and an api-key header; OpenAI-compatible: {base}/embeddings, Bearer).
    let model = m.model.as_deref().unwrap_or_default();
    let kind = mcp_llm::ProviderKind::parse(&kind)
        .map_err(|e| fail(PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE, e))?;
    let mut cfg = mcp_llm::ProviderConfig::new(kind, base_url, model);
    cfg.api_version = api_version;
    if let Some(key) = crate::keys::api_key(provider)? {
        cfg = cfg.with_key(key);
    }
    let url = cfg.embeddings_endpoint(model).ok_or_else(|| {
        fail(
            PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            format!(
                "provider \"{provider}\" of embedding model \"{}\" is of kind {}, which has no embeddings API",
                m.name,
                kind.as_str()
            ),
        )
    })?;
    let body = mcp_embed::openai::request_body(model, texts);
    let mut req = Request::new(url, body);
    for (name, value) in cfg.headers().into_iter().skip(1) {
        req = req.header(&name, value);
    }
    let opts = Options {
        read_timeout: Duration::from_millis(
            timeout_ms
                .unwrap_or_else(|| crate::gucs::HTTP_TIMEOUT_MS.get())
                .max(1) as u64,
        ),
        ..Options::default()
    };
    let audit_url = mcp_http::redact_url(&req.url);
    let result = CLIENT.with(|c| c.post_json(&req, &opts, &mut interrupt_pending));
    let mut record = EmbeddingRequest {
        model: &m.name,
        provider,
        url: audit_url,
        texts,
        http_status: None,
        latency_ms: 0.0,
        error: None,
    };
    let response = match result {
        Ok(r) => r,
        Err(e) => {
            record.latency_ms = e.latency.as_secs_f64() * 1000.0;
            record.error = Some(e.to_string());
            record_embedding_request(&record)?;
            if e.kind() == mcp_http::HttpErrorKind::Interrupted {
                pg_sys::check_for_interrupts!();
            }
            return Err(embed_error(&m.name, EmbedError::Server(e.to_string())));
        }
    };
    record.http_status = Some(response.status as i32);
    record.latency_ms = response.latency.as_secs_f64() * 1000.0;
    let text = response.text();
    let parsed = if !response.is_success() {
        let why = mcp_embed::openai::parse_response(&text, texts.len(), m.dimension)
            .err()
            .map_or_else(String::new, |e| format!(": {e}"));
        Err(embed_error(
            &m.name,
            EmbedError::Server(format!(
                "the embedding server answered HTTP {}{why}",
                response.status
            )),
        ))
    } else {
        mcp_embed::openai::parse_response(&text, texts.len(), m.dimension)
            .map_err(|e| embed_error(&m.name, e))
    };
    if let Err(e) = &parsed {
        record.error = Some(e.message().to_string());
    }
    record_embedding_request(&record)?;
    parsed
}

/// One request to an embedding provider, for its audit row (`mcp.embedding_request`).
struct EmbeddingRequest<'a> {
    model: &'a str,
    provider: &'a str,
    url: String,
    texts: &'a [&'a str],
    http_status: Option<i32>,
    latency_ms: f64,
    error: Option<String>,
}

/// Write the audit row of an embedding request: through the durable audit worker when it is on
/// (it outlasts the caller's ROLLBACK and needs no write of the caller, so it works in a
/// read-only transaction and inside a tool's read-only context), else in the caller's
/// transaction as the extension owner; in a read-only transaction without the worker only the
/// server log records it (the request has been sent; refusing now would not unspend it).
fn record_embedding_request(r: &EmbeddingRequest<'_>) -> R<()> {
    let mut bytes = Vec::new();
    for t in r.texts {
        bytes.extend_from_slice(t.as_bytes());
        bytes.push(0);
    }
    let input_bytes = r.texts.iter().map(|t| t.len() as i64).sum::<i64>();
    let digest = mcp_audit::sha256_hex(&bytes);
    let role = crate::tools::calling_role();
    let error = r.error.as_deref().map(|e| mcp_audit::clip_chars(e, 2000).0);
    let row = json!({
        "model": r.model, "provider": r.provider, "role_name": role, "url": r.url,
        "texts": r.texts.len(), "input_bytes": input_bytes, "input_sha256": digest,
        "http_status": r.http_status, "latency_ms": r.latency_ms, "error": error,
    });
    // `append` takes a record of its own (no run_id) only when the durable audit is on
    if crate::audit_worker::append("embedding_request", row) {
        return Ok(());
    }
    if unsafe { pg_sys::XactReadOnly } {
        pgrx::log!(
            "pg_mcp: embedding request of model {} by {} not audited (read-only transaction, no audit worker): {} texts, {} bytes, sha256 {}",
            r.model,
            role,
            r.texts.len(),
            input_bytes,
            digest
        );
        return Ok(());
    }
    crate::pg::as_extension_owner(|| {
        write_kept::<i64>(
            "INSERT INTO mcp.embedding_request (model, provider, role_name, url, texts, input_bytes,
                                                input_sha256, http_status, latency_ms, error)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING request_id",
            &[
                r.model.into(),
                r.provider.into(),
                role.as_str().into(),
                r.url.as_str().into(),
                (r.texts.len() as i32).into(),
                input_bytes.into(),
                digest.as_str().into(),
                r.http_status.into(),
                r.latency_ms.into(),
                error.into(),
            ],
        )
    })
    .map_err(|e| {
        ErrorReport::from(McpError::Internal(format!(
            "could not write the audit row of an embedding request: {e}"
        )))
    })?;
    Ok(())
}

/// Vectors of `texts` with model `m`, in batches of its batch_size. `input` says whether the
/// texts are queries or passages (documents): a local E5 model prefixes them with `query: ` or
/// `passage: `, as it was trained; BERT models and the openai kind get the texts unchanged.
fn embed_with(m: &ModelRow, texts: &[&str], input: InputType) -> R<Vec<Vec<f32>>> {
    let mut out = Vec::with_capacity(texts.len());
    match m.kind.as_str() {
        "local" => {
            let model = local_model(m)?;
            for batch in texts.chunks(m.batch_size) {
                out.extend(model.embed_as(batch, input));
            }
        }
        "openai" => {
            for batch in texts.chunks(m.batch_size) {
                out.extend(openai_embed(m, batch)?);
            }
        }
        other => {
            return Err(fail(
                PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                format!("embedding model kind \"{other}\" is not supported"),
            ))
        }
    }
    Ok(out)
}

/// pgvector's text form of a vector.
fn vector_literal(v: &[f32]) -> String {
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

/// The vectors of `mcp.embed` as pgvector text literals (mcp.embed casts them to vector[]).
#[pg_extern(name = "embed_literals", volatile, strict)]
fn embed_literals(
    texts: Vec<Option<String>>,
    model: &str,
    input_type: default!(&str, "'query'"),
) -> Result<Vec<Option<String>>, ErrorReport> {
    let input = match input_type {
        "query" => InputType::Query,
        "passage" => InputType::Passage,
        other => {
            return Err(fail(
                PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                format!("input_type \"{other}\" is not one of query, passage"),
            ))
        }
    };
    let m = model_row(model)?;
    let present: Vec<&str> = texts.iter().flatten().map(String::as_str).collect();
    let mut vectors = embed_with(&m, &present, input)?.into_iter();
    Ok(texts
        .iter()
        .map(|t| {
            t.as_ref()
                .and_then(|_| vectors.next())
                .map(|v| vector_literal(&v))
        })
        .collect())
}

/// `mcp.local_model_fingerprint(path)`: the fingerprint of the model files in a directory.
#[pg_extern(name = "local_model_fingerprint", volatile, strict)]
fn local_model_fingerprint(path: &str) -> Result<String, ErrorReport> {
    mcp_embed::fingerprint(std::path::Path::new(path)).map_err(|e| embed_error(path, e))
}

// ------------------------------------------------------------------------------------------
// Ingestion
// ------------------------------------------------------------------------------------------

/// The schema pgvector lives in, quoted (for casts in statements pg_mcp builds).
fn vector_schema() -> R<String> {
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

struct CollectionRow {
    collection_id: i32,
    dimension: usize,
    fingerprint: String,
    text_config: String,
    chunk_tokens: i32,
    chunk_overlap: i32,
    model: String,
}

fn collection_row(name: &str) -> R<CollectionRow> {
    first_row(
        "SELECT collection_id, dimension, fingerprint, text_config, chunk_tokens, chunk_overlap, embedding_model
           FROM mcp.collection WHERE name = $1",
        &[name.into()],
        |t| {
            Ok(CollectionRow {
                collection_id: t.get::<i32>(1)?.unwrap_or(0),
                dimension: t.get::<i32>(2)?.unwrap_or(0).max(0) as usize,
                fingerprint: t.get::<String>(3)?.unwrap_or_default(),
                text_config: t.get::<String>(4)?.unwrap_or_default(),
                chunk_tokens: t.get::<i32>(5)?.unwrap_or(200),
                chunk_overlap: t.get::<i32>(6)?.unwrap_or(0),
                model: t.get::<String>(7)?.unwrap_or_default(),
            })
        },
    )
    .map_err(|e| ErrorReport::from(McpError::from(e)))?
    .ok_or_else(|| {
        fail(
            PgSqlErrorCode::ERRCODE_UNDEFINED_OBJECT,
            format!("collection \"{name}\" does not exist"),
        )
    })
}

/// Refuse a model whose fingerprint or dimension differ from what the collection holds.
fn check_same_model(collection: &str, c: &CollectionRow, m: &ModelRow) -> R<()> {
    if m.fingerprint != c.fingerprint || m.dimension != c.dimension {
        return Err(fail(
            PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            format!(
                "model mismatch: collection \"{collection}\" holds vectors of fingerprint {} (dimension {}), model \"{}\" now has {} (dimension {})",
                c.fingerprint, c.dimension, m.name, m.fingerprint, m.dimension
            ),
        )
        .set_hint("Create a new collection and ingest the documents again."));
    }
    Ok(())
}

/// `mcp.ingest`: chunk → embed (batched) → store, as the caller. Idempotent by content hash.
/// Everything is computed before the first write, so a failure (server down, wrong
/// dimension) leaves nothing half-written; the writes are one statement each in the caller's
/// transaction.
#[pg_extern(name = "ingest", volatile)]
#[allow(clippy::too_many_arguments)]
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
    if !metadata.is_object() {
        return Err(fail(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            "metadata must be a jsonb object",
        ));
    }
    let mime_type = required(mime_type, f, "mime_type")?;
    let format = match mime_type {
        "text/markdown" => mcp_retrieval::Format::Markdown,
        "text/plain" => mcp_retrieval::Format::Text,
        other => {
            return Err(fail(
                PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                format!("mime_type \"{other}\" is not supported: use text/plain or text/markdown"),
            ))
        }
    };
    let c = collection_row(collection)?;
    let m = model_row(&c.model)?;
    check_same_model(collection, &c, &m)?;

    let hash_args = vec![
        title.into(),
        mime_type.into(),
        body.into(),
        JsonB(metadata.clone()).into(),
        c.chunk_tokens.into(),
        c.chunk_overlap.into(),
        c.fingerprint.as_str().into(),
    ];
    let hash: Vec<u8> = first_row(
        "SELECT pg_catalog.sha256(pg_catalog.convert_to(pg_catalog.jsonb_build_array($1::text, $2::text, $3::text, $4::jsonb, $5::int4, $6::int4, $7::text)::text, 'UTF8'))",
        &hash_args,
        |t| t.get::<Vec<u8>>(1),
    )
    .map_err(|e| ErrorReport::from(McpError::from(e)))?
    .flatten()
    .unwrap_or_default();
    let existing = first_row(
        "SELECT document_id, content_hash, (SELECT count(*)::int4 FROM mcp.chunk ch WHERE ch.document_id = d.document_id)
           FROM mcp.document d WHERE collection = $1 AND uri = $2 AND owner = CURRENT_USER",
        &[collection.into(), uri.into()],
        |t| {
            Ok((
                t.get::<i64>(1)?.unwrap_or(0),
                t.get::<Vec<u8>>(2)?.unwrap_or_default(),
                t.get::<i32>(3)?.unwrap_or(0),
            ))
        },
    )
    .map_err(|e| ErrorReport::from(McpError::from(e)))?;
    if let Some((id, old_hash, chunks)) = &existing {
        if *old_hash == hash {
            return Ok(JsonB(
                json!({"document_id": id, "status": "unchanged", "chunks": chunks}),
            ));
        }
    }

    // Compute everything before writing.
    let chunks = mcp_retrieval::chunk_text(
        body,
        c.chunk_tokens.max(1) as usize,
        c.chunk_overlap.max(0) as usize,
        format,
    )
    .map_err(|e| fail(PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, e))?;
    let texts: Vec<&str> = chunks.iter().map(|ch| ch.text.as_str()).collect();
    let vectors = embed_with(&m, &texts, InputType::Passage)?;
    if vectors.len() != texts.len() {
        return Err(fail(
            PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
            format!(
                "the embedding model returned {} vectors for {} chunks",
                vectors.len(),
                texts.len()
            ),
        ));
    }
    if let Some(v) = vectors.iter().find(|v| v.len() != c.dimension) {
        return Err(fail(
            PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
            format!(
                "dimension mismatch: the embedding model returned vectors of dimension {}, collection \"{collection}\" holds {}",
                v.len(),
                c.dimension
            ),
        ));
    }

    let sql_err = |e: pgrx::spi::SpiError| ErrorReport::from(McpError::from(e));
    let (document_id, status) = match existing {
        Some((id, _, _)) => {
            write_kept::<i64>(
                "UPDATE mcp.document SET title = $2, mime_type = $3, body = $4, metadata = $5,
                        content_hash = $6, updated_at = now() WHERE document_id = $1",
                &[
                    id.into(),
                    title.into(),
                    mime_type.into(),
                    body.into(),
                    JsonB(metadata.clone()).into(),
                    hash.clone().into(),
                ],
            )
            .map_err(sql_err)?;
            write_kept::<i64>("DELETE FROM mcp.chunk WHERE document_id = $1", &[id.into()])
                .map_err(sql_err)?;
            (id, "replaced")
        }
        None => {
            let id = write_kept::<i64>(
                "INSERT INTO mcp.document (collection, uri, title, mime_type, body, metadata, content_hash)
                 VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING document_id",
                &[
                    collection.into(),
                    uri.into(),
                    title.into(),
                    mime_type.into(),
                    body.into(),
                    JsonB(metadata.clone()).into(),
                    hash.clone().into(),
                ],
            )
            .map_err(sql_err)?
            .unwrap_or(0);
            (id, "inserted")
        }
    };
    if !chunks.is_empty() {
        let positions: Vec<i32> = chunks.iter().map(|ch| ch.position as i32).collect();
        let tokens: Vec<i32> = chunks.iter().map(|ch| ch.tokens as i32).collect();
        let chunk_texts: Vec<String> = chunks.iter().map(|ch| ch.text.clone()).collect();
        let literals: Vec<String> = vectors.iter().map(|v| vector_literal(v)).collect();
        let sql = format!(
            "INSERT INTO mcp.chunk (document_id, collection_id, position, text, token_count, embedding, tsv)
             SELECT $1, $2, u.p, u.t, u.n, u.e::{vs}.vector, pg_catalog.to_tsvector($7::regconfig, u.t)
               FROM ROWS FROM (pg_catalog.unnest($3::int4[]), pg_catalog.unnest($4::text[]),
                              pg_catalog.unnest($5::int4[]), pg_catalog.unnest($6::text[])) AS u(p, t, n, e)",
            vs = vector_schema()?
        );
        write_kept::<i64>(
            &sql,
            &[
                document_id.into(),
                c.collection_id.into(),
                positions.into(),
                chunk_texts.into(),
                tokens.into(),
                literals.into(),
                c.text_config.as_str().into(),
            ],
        )
        .map_err(sql_err)?;
    }
    Ok(JsonB(
        json!({"document_id": document_id, "status": status, "chunks": chunks.len()}),
    ))
}

// ------------------------------------------------------------------------------------------
// Tools: search kinds and context_retrieve
// ------------------------------------------------------------------------------------------

/// One search hit.
struct Hit {
    collection: String,
    chunk_id: i64,
    title: Option<String>,
    uri: String,
    score: f64,
    text: String,
}

fn hits_text(hits: &[Hit]) -> String {
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

fn hits_json(hits: &[Hit]) -> Value {
    Value::Array(
        hits.iter()
            .map(|h| {
                json!({"collection": h.collection, "chunk_id": h.chunk_id, "title": h.title,
                       "uri": h.uri, "score": h.score, "text": h.text})
            })
            .collect(),
    )
}

/// A failure inside a tool: the detail goes to the audit row, the model gets one sentence.
fn tool_failure(tool: &str, info: PgErrorInfo, rec: &mut Call<'_>) -> ToolOutcome {
    let text = if info.sqlstate.starts_with("08") {
        format!("Tool '{tool}' failed: the embedding service is unavailable.")
    } else {
        mcp_tools::generic_tool_error(tool)
    };
    rec.error = Some(info);
    ToolOutcome::error(ToolCallStatus::Error, text)
}

/// Run `f` in a subtransaction; an ERROR (or an ErrorReport it returns) becomes `Err` with its
/// SQLSTATE, except cancel/timeout, which propagate.
fn caught<T>(f: impl FnOnce() -> R<T>) -> Result<T, PgErrorInfo> {
    in_subtransaction(false, || match f() {
        Ok(v) => v,
        Err(report) => {
            report.report(pgrx::PgLogLevel::ERROR);
            unreachable!("ERROR does not return")
        }
    })
}

fn search_rows(
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

/// A tool of kind vector_search, text_search or hybrid_search: mcp.search on the tool's
/// collection with the arguments query, k, filter.
pub fn run_search_tool(
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

/// The built-in `context_retrieve`: embed the query with the interface's embedding model,
/// search every collection with purpose 'rag' and the same fingerprint and dimension (vector
/// mode, each with its top_k), keep passages with a cosine similarity of at least the
/// collection's min_score, best first. The audit row records the matched collections and the
/// number of passages; the query text only when the interface's audit_retrieval_query is on.
pub fn run_context_retrieve(args: &Map<String, Value>, rec: &mut Call<'_>) -> ToolOutcome {
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
    let result = caught(|| {
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
        let qv = vector_literal(&embed_with(&m, &[query.as_str()], InputType::Query)?.remove(0));
        let sql = format!(
            "SELECT chunk_id, title, uri, score, text
               FROM mcp.search_by_vector($1, $2, $3::{}.vector, $4, 'vector', '{{}}') WHERE score >= $5",
            vector_schema()?
        );
        let mut hits = Vec::new();
        let mut matched = Vec::new();
        let mut limit = 0;
        for (name, top_k, min_score) in &eligible {
            matched.push(name.clone());
            limit = limit.max(*top_k as usize);
            hits.extend(search_rows(
                &sql,
                vec![
                    name.as_str().into(),
                    query.as_str().into(),
                    qv.as_str().into(),
                    (*top_k).into(),
                    (*min_score as f64).into(),
                ],
                name,
            )?);
        }
        hits.sort_by(|a, b| {
            b.score
                .partial_cmp(&a.score)
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        hits.truncate(limit);
        Ok((matched, hits))
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
