//! Embedding with a registered model (`mcp.embedding_model`): `local` in the backend
//! (`crates/mcp_embed`, loaded once per backend and kept), `openai` through the provider's
//! dialect (URL and key header) and the backend's HTTP client (`crate::pg::http`); each request
//! to a provider leaves an audit row (`mcp.embedding_request`).

use super::{fail, vector_literal, R};
use crate::error::McpError;
use crate::pg::first_row;
use mcp_embed::{EmbedError, InputType, LocalModel};
use mcp_http::{Options, Request};
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;

thread_local! {
    /// Loaded local models by directory (a backend loads a model once).
    static MODELS: RefCell<HashMap<String, Rc<LocalModel>>> = RefCell::new(HashMap::new());
}

/// A row of mcp.embedding_model.
pub struct ModelRow {
    pub name: String,
    pub kind: String,
    pub dimension: usize,
    pub fingerprint: String,
    path: Option<String>,
    provider: Option<String>,
    model: Option<String>,
    batch_size: usize,
    /// Who may use the model (mcp.embedding_model.access_role; NULL = closed).
    access_role: Option<String>,
}

pub fn model_row(name: &str) -> R<ModelRow> {
    first_row(
        "SELECT name, kind, dimension, fingerprint, path, provider, model, batch_size, access_role
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
                access_role: t.get::<String>(9)?,
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
    .and_then(|m| {
        // The access gate: every use of a model reads its row here, as the calling role.
        if crate::registry::may_use_embedding_model_role(m.access_role.as_deref()) {
            Ok(m)
        } else {
            Err(fail(
                PgSqlErrorCode::ERRCODE_INSUFFICIENT_PRIVILEGE,
                format!("permission denied for embedding model \"{}\"", m.name),
            )
            .set_hint("A role may use an embedding model when it has the privileges of the model's access_role, when access_role is 'public', or when it has UPDATE on mcp.embedding_model."))
        }
    })
}

pub fn embed_error(model: &str, e: EmbedError) -> ErrorReport {
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
    let result = crate::pg::http::with_client(|c| {
        c.post_json(&req, &opts, &mut crate::pg::http::interrupt_pending)
    });
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
    let role = crate::pg::calling_role();
    let error = r.error.as_deref().map(|e| mcp_audit::clip_chars(e, 2000).0);
    let rec = crate::audit::Record::EmbeddingRequest(mcp_audit::rows::EmbeddingRequestRow {
        model: r.model.into(),
        provider: r.provider.into(),
        role_name: role.clone(),
        url: r.url.clone(),
        texts: r.texts.len() as i32,
        input_bytes,
        input_sha256: digest.clone(),
        http_status: r.http_status,
        latency_ms: r.latency_ms,
        error,
        created_at: mcp_audit::rows::now(),
    });
    // The worker takes a record of its own (no run_id) only when the durable audit is on
    if crate::audit::through_worker(&rec) {
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
    crate::audit::in_transaction(&rec).map_err(ErrorReport::from)?;
    Ok(())
}

/// Vectors of `texts` with model `m`, in batches of its batch_size. `input` says whether the
/// texts are queries or passages (documents): a local E5 model prefixes them with `query: ` or
/// `passage: `, as it was trained; BERT models and the openai kind get the texts unchanged.
pub fn embed_with(m: &ModelRow, texts: &[&str], input: InputType) -> R<Vec<Vec<f32>>> {
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

/// `mcp.embed`'s input_type: query or passage (22023 otherwise).
pub fn input_type(name: &str) -> R<InputType> {
    match name {
        "query" => Ok(InputType::Query),
        "passage" => Ok(InputType::Passage),
        other => Err(fail(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("input_type \"{other}\" is not one of query, passage"),
        )),
    }
}

/// The vectors of `texts` (NULL stays NULL, in place) as pgvector text literals.
pub fn embed_literals(
    texts: &[Option<String>],
    model: &str,
    input_type_name: &str,
) -> R<Vec<Option<String>>> {
    let input = input_type(input_type_name)?;
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

/// The fingerprint of the model files in a directory.
pub fn local_model_fingerprint(path: &str) -> R<String> {
    mcp_embed::fingerprint(std::path::Path::new(path)).map_err(|e| embed_error(path, e))
}
