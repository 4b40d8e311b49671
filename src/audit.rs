//! Audit values: the byte limit every audit column is cut to (`mcp.audit_max_value_bytes`).
//! The cutting itself is `mcp_audit` (pure Rust); `mcp.audit_digest` is in `api/audit.rs`.

use crate::gucs;
use mcp_audit::RowCuts;

/// `mcp.audit_max_value_bytes` in bytes.
pub fn max_value_bytes() -> usize {
    gucs::AUDIT_MAX_VALUE_BYTES.get().max(1024) as usize
}

/// The cut log of one audit row, at the current limit.
pub fn row_cuts() -> RowCuts {
    RowCuts::new(max_value_bytes())
}
