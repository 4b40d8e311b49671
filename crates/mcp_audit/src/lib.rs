//! mcp_audit — what pg_mcp may write down. Pure Rust, no pgrx.
//!
//! * [`Scrubber`]: the one secret scrubber. Every provider response body (success or error),
//!   request body, error message and log line passes through it before it reaches an answer, the
//!   conversation, an audit row or the server log; for messages it adds credential patterns
//!   ([`Scrubber::scrub_message`]).
//! * [`clip_text`], [`clip_json`], [`RowCuts`]: audit values cut to a byte limit, with the
//!   original size and SHA-256 of what was cut ([`Cut`]); [`clamp_count`] for token counts and
//!   sizes stored as `bigint`.
//! * [`rows`]: the audit rows, one type per table, and the [`rows::Record`] both writers store
//!   through `mcp.audit_store`.
//! * [`queue`]: the durable audit's queues (byte rings in shared memory) and how databases
//!   share them, without PostgreSQL.

mod clip;
pub mod queue;
pub mod rows;
mod scrub;

pub use clip::{
    batch_messages, canonical_json, clamp_count, clip_chars, clip_json, clip_json_owned, clip_text,
    fit_row, json_digest, json_len_capped, sha256_hex, Cut, JsonText, MessageBatch, RowCuts,
    MAX_COUNT,
};
pub use scrub::{is_secret_header, percent_encode, Scrubber, MIN_SECRET_LEN, REDACTED};
