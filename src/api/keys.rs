//! `mcp.set_api_key`, `mcp.has_api_key`: provider keys on the SQL surface (sealing and
//! opening: [`crate::keys`]).

use crate::error::required;
use crate::keys::{providers_privilege_error, sealed_api_key, store_api_key};
use crate::registry::may_manage_providers;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;

/// Store (or replace) the API key of a provider, encrypted with the server key.
#[pg_extern(name = "set_api_key")]
fn set_api_key(provider: Option<&str>, key: Option<&str>) -> Result<(), ErrorReport> {
    let provider = required(provider, "set_api_key", "provider")?;
    Ok(store_api_key(provider, key)?)
}

/// Whether a provider has a key (never the key itself); only for roles that manage providers.
#[pg_extern(name = "has_api_key")]
fn has_api_key(provider: Option<&str>) -> Result<bool, ErrorReport> {
    let provider = required(provider, "has_api_key", "provider")?;
    if !may_manage_providers()? {
        return Err(providers_privilege_error("see which providers have API keys").into());
    }
    Ok(sealed_api_key(provider)?.is_some())
}
