//! Ingestion: chunk → embed (batched) → store, as the caller (`mcp.ingest`).

use super::embed::{embed_with, model_row, ModelRow};
use super::{fail, vector_literal, vector_schema, R};
use crate::error::McpError;
use crate::pg::{first_row, write_kept};
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::{JsonB, PgSqlErrorCode};
use serde_json::{json, Value};

pub struct CollectionRow {
    collection_id: i32,
    dimension: usize,
    fingerprint: String,
    text_config: String,
    chunk_tokens: i32,
    chunk_overlap: i32,
    model: String,
    /// chunk_header: embed and index each chunk with the document's title and header_keys
    chunk_header: bool,
    header_keys: Vec<String>,
}

pub fn collection_row(name: &str) -> R<CollectionRow> {
    first_row(
        "SELECT collection_id, dimension, fingerprint, text_config, chunk_tokens, chunk_overlap, embedding_model,
                chunk_header, header_keys
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
                chunk_header: t.get::<bool>(8)?.unwrap_or(false),
                header_keys: t.get::<Vec<String>>(9)?.unwrap_or_default(),
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
pub fn check_same_model(collection: &str, c: &CollectionRow, m: &ModelRow) -> R<()> {
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

/// Chunks of `body` for `mcp.chunk_text`: see `mcp_retrieval::chunk_text`.
pub fn chunk(body: &str, max: i32, overlap: i32, format: &str) -> R<Vec<mcp_retrieval::Chunk>> {
    let format = mcp_retrieval::Format::parse(format)
        .map_err(|m| fail(PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, m))?;
    if max < 1 || overlap < 0 {
        return Err(fail(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            "max_tokens must be positive and overlap not negative",
        ));
    }
    mcp_retrieval::chunk_text(body, max as usize, overlap as usize, format)
        .map_err(|m| fail(PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, m))
}

/// `mcp.ingest`: chunk → embed (batched) → store, as the caller. Idempotent by content hash.
/// Everything is computed before the first write, so a failure (server down, wrong
/// dimension) leaves nothing half-written; the writes are one statement each in the caller's
/// transaction.
pub fn ingest(
    collection: &str,
    uri: &str,
    title: Option<&str>,
    body: &str,
    metadata: Value,
    mime_type: &str,
) -> R<Value> {
    // Writes chunks and vectors: refused in a read-only transaction (a standby) before the
    // embedding work, with PostgreSQL's own 25006.
    crate::pg::prevent_if_read_only(c"mcp.ingest");
    if !metadata.is_object() {
        return Err(fail(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            "metadata must be a jsonb object",
        ));
    }
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

    // the contextual header of every chunk (part of the content hash: changing the collection's
    // header settings re-embeds a document when it is ingested again)
    let header = if c.chunk_header {
        let values: Vec<String> = c
            .header_keys
            .iter()
            .filter_map(|k| match metadata.get(k) {
                Some(Value::String(v)) => Some(v.clone()),
                Some(Value::Null) | None => None,
                Some(other) => Some(other.to_string()),
            })
            .collect();
        let values: Vec<&str> = values.iter().map(String::as_str).collect();
        mcp_retrieval::chunk_header(title, &values)
    } else {
        None
    };
    let hash_args = vec![
        title.into(),
        mime_type.into(),
        body.into(),
        JsonB(metadata.clone()).into(),
        c.chunk_tokens.into(),
        c.chunk_overlap.into(),
        c.fingerprint.as_str().into(),
        header.as_deref().into(),
    ];
    let hash: Vec<u8> = first_row(
        "SELECT pg_catalog.sha256(pg_catalog.convert_to(pg_catalog.jsonb_build_array($1::text, $2::text, $3::text, $4::jsonb, $5::int4, $6::int4, $7::text, $8::text)::text, 'UTF8'))",
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
            return Ok(json!({"document_id": id, "status": "unchanged", "chunks": chunks}));
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
    // what is embedded and indexed: header + chunk (the stored text stays the chunk's own)
    let indexed: Vec<String> = chunks
        .iter()
        .map(|ch| mcp_retrieval::with_header(header.as_deref(), &ch.text))
        .collect();
    let texts: Vec<&str> = indexed.iter().map(String::as_str).collect();
    let vectors = embed_with(&m, &texts, mcp_embed::InputType::Passage)?;
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
             SELECT $1, $2, u.p, u.t, u.n, u.e::{vs}.vector, pg_catalog.to_tsvector($7::regconfig, u.x)
               FROM ROWS FROM (pg_catalog.unnest($3::int4[]), pg_catalog.unnest($4::text[]),
                              pg_catalog.unnest($5::int4[]), pg_catalog.unnest($6::text[]),
                              pg_catalog.unnest($8::text[])) AS u(p, t, n, e, x)",
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
                indexed.clone().into(),
            ],
        )
        .map_err(sql_err)?;
    }
    Ok(json!({"document_id": document_id, "status": status, "chunks": chunks.len()}))
}
