//! `mcp.audit_digest`: the digest the audit's `clipped` column records, so an operator can check
//! a value against it; `mcp.audit_status`: the durable audit's state.

use crate::jsonb::JsonbStored;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::json;

/// `mcp.audit_digest(value jsonb)`: hex SHA-256 of the value's canonical text (object keys
/// sorted, no whitespace) — what `clipped` records for a cut jsonb column.
#[pg_extern(name = "audit_digest", immutable, strict, parallel_safe)]
fn audit_digest_jsonb(value: JsonbStored) -> Result<String, ErrorReport> {
    Ok(mcp_audit::json_digest(&value.value("value")?).sha256)
}

/// `mcp.audit_digest(value text)`: hex SHA-256 of the text's UTF-8 bytes — what `clipped`
/// records for a cut text column (the same as `encode(sha256(convert_to(value, 'UTF8')), 'hex')`).
#[pg_extern(name = "audit_digest", immutable, strict, parallel_safe)]
fn audit_digest_text(value: &str) -> String {
    mcp_audit::sha256_hex(value.as_bytes())
}

/// `mcp.audit_status()`: whether audit is durable in this session, and the queues.
#[pg_extern(name = "audit_status", volatile)]
fn audit_status() -> JsonB {
    JsonB(json!({
        "preloaded": crate::audit::preloaded(),
        "durable": crate::audit::durable(),
        "synchronous": crate::audit::synchronous(),
        "queues": crate::audit::status_json(),
    }))
}
