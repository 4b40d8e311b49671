//! Audit values: the byte limit every audit column is cut to (`mcp.audit_max_value_bytes`) and
//! `mcp.audit_digest`, which computes the digest `clipped` records so an operator can check a
//! value against it. The cutting itself is `mcp_audit` (pure Rust).

use crate::gucs;
use mcp_audit::RowCuts;
use pgrx::prelude::*;
use pgrx::JsonB;

/// `mcp.audit_max_value_bytes` in bytes.
pub fn max_value_bytes() -> usize {
    gucs::AUDIT_MAX_VALUE_BYTES.get().max(1024) as usize
}

/// The cut log of one audit row, at the current limit.
pub fn row_cuts() -> RowCuts {
    RowCuts::new(max_value_bytes())
}

/// `mcp.audit_digest(value jsonb)`: hex SHA-256 of the value's canonical text (object keys
/// sorted, no whitespace) — what `clipped` records for a cut jsonb column.
#[pg_extern(name = "audit_digest", immutable, strict, parallel_safe)]
fn audit_digest_jsonb(value: JsonB) -> String {
    mcp_audit::json_digest(&value.0).sha256
}

/// `mcp.audit_digest(value text)`: hex SHA-256 of the text's UTF-8 bytes — what `clipped`
/// records for a cut text column (the same as `encode(sha256(convert_to(value, 'UTF8')), 'hex')`).
#[pg_extern(name = "audit_digest", immutable, strict, parallel_safe)]
fn audit_digest_text(value: &str) -> String {
    mcp_audit::sha256_hex(value.as_bytes())
}
