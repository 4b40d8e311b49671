//! Provider API keys at rest: sealed with the server key (`mcp.server_key_file`, see
//! `crates/mcp_keys`) in `mcp.provider_secret`, opened only to build an HTTP request.

use crate::error::{McpError, McpResult};
use crate::pg::{as_extension_owner, first_row};
use crate::registry::may_manage_providers;
use pgrx::prelude::*;

pub fn providers_privilege_error(what: &str) -> McpError {
    McpError::Privilege(format!(
        "permission denied to {what}: UPDATE on mcp.provider is required"
    ))
}

/// The server key named by `mcp.server_key_file`; 55000 when none is configured, F0000 when the
/// file is unusable (unreadable, group/world-accessible, not a key).
fn server_key() -> McpResult<mcp_keys::ServerKey> {
    let Some(path) = crate::gucs::server_key_file() else {
        return Err(McpError::NotReady(
            "no server key is configured (mcp.server_key_file is not set): pg_mcp stores API keys only encrypted".into(),
        )
        .with_hint(format!(
            "As the PostgreSQL OS user, create a key file outside the data directory ({}), set mcp.server_key_file = 'FILE' in postgresql.conf (or ALTER SYSTEM) and reload with SELECT pg_reload_conf().",
            mcp_keys::MAKE_KEY_HINT
        )));
    };
    mcp_keys::ServerKey::load(std::path::Path::new(&path), mcp_keys::server_uid())
        .map_err(|e| McpError::ConfigFile(e.message()).with_hint(e.hint()))
}

/// A fresh nonce from PostgreSQL's cryptographic random source.
fn random_nonce() -> McpResult<[u8; mcp_keys::NONCE_LEN]> {
    let mut nonce = [0u8; mcp_keys::NONCE_LEN];
    if unsafe { pg_sys::pg_strong_random(nonce.as_mut_ptr().cast(), nonce.len()) } {
        Ok(nonce)
    } else {
        Err(McpError::Internal(
            "could not generate random bytes for the API key's nonce".into(),
        ))
    }
}

/// Store (or with `None`, remove) the API key of a provider, sealed with the server key.
pub fn store_api_key(provider: &str, key: Option<&str>) -> McpResult<()> {
    // A write: refused in a read-only transaction (a standby) with PostgreSQL's own 25006.
    crate::pg::prevent_if_read_only(c"mcp.set_api_key");
    if !may_manage_providers()? {
        return Err(providers_privilege_error("set an API key"));
    }
    let exists = first_row(
        "SELECT EXISTS (SELECT 1 FROM mcp.provider WHERE name = $1)",
        &[provider.into()],
        |t| t.get::<bool>(1),
    )?
    .flatten()
    .unwrap_or(false);
    if !exists {
        return Err(McpError::UndefinedObject(format!(
            "provider \"{provider}\" does not exist"
        )));
    }
    let stored = match key.map(str::trim).filter(|k| !k.is_empty()) {
        Some(k) => {
            let sealed = server_key()?
                .seal(provider, k, random_nonce()?)
                .map_err(|_| {
                    McpError::InvalidParameter(format!(
                        "an API key is at most {} bytes",
                        mcp_keys::MAX_SECRET_BYTES
                    ))
                })?;
            as_extension_owner(|| {
                Spi::run_with_args(
                    "INSERT INTO mcp.provider_secret (provider, key_id, nonce, ciphertext, updated_at, updated_by)
                     VALUES ($1, $2, $3, $4, pg_catalog.now(), session_user)
                     ON CONFLICT (provider) DO UPDATE
                       SET key_id = EXCLUDED.key_id, nonce = EXCLUDED.nonce, ciphertext = EXCLUDED.ciphertext,
                           updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by",
                    &[
                        provider.into(),
                        sealed.key_id.into(),
                        sealed.nonce.into(),
                        sealed.ciphertext.into(),
                    ],
                )
            })
        }
        None => as_extension_owner(|| {
            Spi::run_with_args(
                "DELETE FROM mcp.provider_secret WHERE provider = $1",
                &[provider.into()],
            )
        }),
    };
    stored.map_err(|_| {
        McpError::Internal(format!(
            "could not store the API key of provider \"{provider}\""
        ))
    })
}

/// The sealed key of a provider, read as the extension owner.
pub fn sealed_api_key(provider: &str) -> McpResult<Option<mcp_keys::Sealed>> {
    as_extension_owner(|| {
        first_row(
            "SELECT key_id, nonce, ciphertext FROM mcp.provider_secret WHERE provider = $1",
            &[provider.into()],
            |t| {
                Ok(mcp_keys::Sealed {
                    key_id: t.get::<String>(1)?.unwrap_or_default(),
                    nonce: t.get::<Vec<u8>>(2)?.unwrap_or_default(),
                    ciphertext: t.get::<Vec<u8>>(3)?.unwrap_or_default(),
                })
            },
        )
    })
    .map_err(|_| {
        McpError::Internal(format!(
            "could not read the API key of provider \"{provider}\""
        ))
    })
}

/// The API key of a provider, opened with the server key. Only for building the HTTP request.
pub fn api_key(provider: &str) -> McpResult<Option<String>> {
    let Some(sealed) = sealed_api_key(provider)? else {
        return Ok(None);
    };
    let again = "Store the key again with mcp.set_api_key().";
    server_key()?
        .open(provider, &sealed)
        .map(Some)
        .map_err(|e| match e {
            mcp_keys::OpenError::OtherKey { stored, configured } => McpError::NotReady(format!(
                "the API key of provider \"{provider}\" was encrypted with server key {stored}, but mcp.server_key_file holds server key {configured}"
            ))
            .with_hint(format!("Configure the key file it was stored with, or {}", again.to_lowercase())),
            mcp_keys::OpenError::NotAuthentic | mcp_keys::OpenError::Malformed => {
                McpError::NotReady(format!(
                    "the stored API key of provider \"{provider}\" does not decrypt: it was altered or belongs to another provider"
                ))
                .with_hint(again)
            }
        })
}
