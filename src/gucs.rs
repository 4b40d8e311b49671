//! Settings under the reserved prefix `mcp.`.

use pgrx::{GucContext, GucFlags, GucRegistry, GucSetting};
use std::ffi::CString;

/// Default row cap of tools that return rows (sql_query, report and set-returning tools).
pub static DEFAULT_ROWS: GucSetting<i32> = GucSetting::<i32>::new(25);
/// Operator maximum a caller may ask for with max_rows.
pub static MAX_ROWS: GucSetting<i32> = GucSetting::<i32>::new(500);
/// Characters after which a text cell is clipped.
pub static MAX_CELL_CHARS: GucSetting<i32> = GucSetting::<i32>::new(500);
/// Default per-call tool timeout.
pub static TOOL_TIMEOUT_MS: GucSetting<i32> = GucSetting::<i32>::new(60_000);
/// Default HTTP timeout for LLM requests.
pub static HTTP_TIMEOUT_MS: GucSetting<i32> = GucSetting::<i32>::new(120_000);
/// Cap on an LLM response body.
pub static MAX_RESPONSE_BYTES: GucSetting<i32> = GucSetting::<i32>::new(8 * 1024 * 1024);
/// Retries of an LLM request on 429/5xx/network errors.
pub static HTTP_RETRIES: GucSetting<i32> = GucSetting::<i32>::new(2);
/// Retry an LLM request whose answer did not arrive within the timeout (off: the provider may
/// already have processed and billed it).
pub static HTTP_RETRY_TIMEOUTS: GucSetting<bool> = GucSetting::<bool>::new(false);
/// Largest value an audit column stores (text or jsonb); larger ones are cut, with their size
/// and sha256 kept in the row's `clipped` column.
pub static AUDIT_MAX_VALUE_BYTES: GucSetting<i32> = GucSetting::<i32>::new(1024 * 1024);
/// Total size of one tool result (rendered bytes).
pub static MAX_RESULT_BYTES: GucSetting<i32> = GucSetting::<i32>::new(1024 * 1024);
/// Allow the SQL tool for superusers (who bypass RLS and grants).
pub static ALLOW_SUPERUSER_SQL: GucSetting<bool> = GucSetting::<bool>::new(false);

/// Tool calls of one model answer that a chat runs.
pub static MAX_TOOL_CALLS_PER_ANSWER: GucSetting<i32> = GucSetting::<i32>::new(16);
/// Bytes of tool results over one chat run.
pub static MAX_RUN_RESULT_BYTES: GucSetting<i32> = GucSetting::<i32>::new(8 * 1024 * 1024);
/// Bytes of one LLM request body.
pub static MAX_REQUEST_BYTES: GucSetting<i32> = GucSetting::<i32>::new(16 * 1024 * 1024);
/// Messages of one JSON-RPC batch that mcp.handle answers.
pub static MAX_BATCH_ITEMS: GucSetting<i32> = GucSetting::<i32>::new(32);
/// Bytes of tool results one mcp.handle statement (a batch) returns.
pub static MAX_STATEMENT_RESULT_BYTES: GucSetting<i32> = GucSetting::<i32>::new(16 * 1024 * 1024);

/// File holding the server key that seals API keys in mcp.provider_secret.
pub static SERVER_KEY_FILE: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);

/// The configured server key file, if any (an empty setting counts as none).
pub fn server_key_file() -> Option<String> {
    SERVER_KEY_FILE
        .get()
        .map(|c| c.to_string_lossy().into_owned())
        .filter(|s| !s.trim().is_empty())
}

pub fn init() {
    GucRegistry::define_int_guc(
        c"mcp.default_rows",
        c"Rows a row-returning tool shows when the caller gives no max_rows.",
        c"The tool fetches one row more to say whether more rows exist.",
        &DEFAULT_ROWS,
        1,
        5000,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"mcp.max_rows",
        c"Largest max_rows a caller (or the model) may ask for.",
        c"Settable up to 5000 by a superuser; larger requests are clipped to this value.",
        &MAX_ROWS,
        1,
        5000,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"mcp.max_cell_chars",
        c"Characters after which a text cell in a tool result is clipped with an ellipsis.",
        c"",
        &MAX_CELL_CHARS,
        16,
        100_000,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"mcp.max_result_bytes",
        c"Largest total size of one tool result, in bytes; rows beyond it are not fetched.",
        c"Values larger than this are not read at all and appear as a placeholder.",
        &MAX_RESULT_BYTES,
        1024,
        1024 * 1024 * 1024,
        GucContext::Suset,
        GucFlags::UNIT_BYTE,
    );
    GucRegistry::define_int_guc(
        c"mcp.tool_timeout_ms",
        c"Default timeout of one tool call in milliseconds (mcp.tool.timeout_ms overrides it).",
        c"",
        &TOOL_TIMEOUT_MS,
        1,
        i32::MAX,
        GucContext::Suset,
        GucFlags::UNIT_MS,
    );
    GucRegistry::define_int_guc(
        c"mcp.http_timeout_ms",
        c"Default timeout of one LLM HTTP request in milliseconds (mcp.provider.timeout_ms overrides it).",
        c"",
        &HTTP_TIMEOUT_MS,
        100,
        i32::MAX,
        GucContext::Userset,
        GucFlags::UNIT_MS,
    );
    GucRegistry::define_int_guc(
        c"mcp.max_response_bytes",
        c"Largest LLM response body accepted, in bytes.",
        c"",
        &MAX_RESPONSE_BYTES,
        1024,
        i32::MAX,
        GucContext::Suset,
        GucFlags::UNIT_BYTE,
    );
    GucRegistry::define_int_guc(
        c"mcp.http_retries",
        c"Retries of an LLM request after 429, 5xx or a network error (with backoff and Retry-After).",
        c"",
        &HTTP_RETRIES,
        0,
        10,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_bool_guc(
        c"mcp.http_retry_timeouts",
        c"Retry an LLM request whose answer did not arrive within the provider's timeout.",
        c"Off by default: the provider may already have processed (and billed) the request. Other network errors, 429 and 5xx are retried per mcp.http_retries either way.",
        &HTTP_RETRY_TIMEOUTS,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"mcp.audit_max_value_bytes",
        c"Largest value, in bytes, that one audit column stores (questions, answers, arguments, messages, LLM bodies, error texts).",
        c"A longer value is cut (text keeps its beginning, jsonb its structure); the row's clipped column keeps the original size and sha256.",
        &AUDIT_MAX_VALUE_BYTES,
        1024,
        i32::MAX,
        GucContext::Suset,
        GucFlags::UNIT_BYTE,
    );
    GucRegistry::define_bool_guc(
        c"mcp.allow_superuser_sql",
        c"Let the sql_query tool run for superuser roles.",
        c"Superusers bypass grants and row-level security, so the SQL tool refuses them unless this is on.",
        &ALLOW_SUPERUSER_SQL,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"mcp.server_key_file",
        c"File with the server key (64 hex digits) that encrypts the API keys in mcp.provider_secret.",
        c"Readable only by the server's OS user (0600, or 0640 owned by root), like ssl_key_file; a relative path is relative to the data directory. Keep it outside the data directory so backups of the data do not carry the key. Without it, mcp.set_api_key refuses to store keys.",
        &SERVER_KEY_FILE,
        GucContext::Sighup,
        GucFlags::SUPERUSER_ONLY,
    );
    GucRegistry::define_int_guc(
        c"mcp.max_tool_calls_per_answer",
        c"Tool calls of one model answer that a chat runs.",
        c"Further calls of the same answer are answered 'not executed' and audited as skipped; a call repeated within one answer runs once.",
        &MAX_TOOL_CALLS_PER_ANSWER,
        1,
        256,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"mcp.max_run_result_bytes",
        c"Bytes of tool results one chat run may collect.",
        c"Calls after the budget is used up are answered 'not executed'; together with mcp.max_request_bytes it bounds what a run holds and sends.",
        &MAX_RUN_RESULT_BYTES,
        64 * 1024,
        i32::MAX,
        GucContext::Suset,
        GucFlags::UNIT_BYTE,
    );
    GucRegistry::define_int_guc(
        c"mcp.max_request_bytes",
        c"Largest LLM request body a chat sends.",
        c"A larger request is not sent: the run ends with status budget_exceeded (error request_too_large).",
        &MAX_REQUEST_BYTES,
        64 * 1024,
        i32::MAX,
        GucContext::Suset,
        GucFlags::UNIT_BYTE,
    );
    GucRegistry::define_int_guc(
        c"mcp.max_batch_items",
        c"Messages of one JSON-RPC batch that mcp.handle answers.",
        c"A larger batch is refused whole with -32600; revisions without batching (2025-06-18 and later) refuse every batch.",
        &MAX_BATCH_ITEMS,
        1,
        1000,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"mcp.max_statement_result_bytes",
        c"Bytes of tool and resource results one mcp.handle call returns over all messages of a batch.",
        c"Once reached, the remaining tools/call and resources/read messages of the batch get a JSON-RPC error instead of running.",
        &MAX_STATEMENT_RESULT_BYTES,
        64 * 1024,
        i32::MAX,
        GucContext::Suset,
        GucFlags::UNIT_BYTE,
    );
    reserve_prefix();
}

/// Reserve the `mcp.` prefix: from 15 on, settings under it that pg_mcp does not define are
/// removed and refused afterwards (`MarkGUCPrefixReserved`).
#[cfg(any(feature = "pg15", feature = "pg16", feature = "pg17", feature = "pg18"))]
fn reserve_prefix() {
    unsafe { pgrx::pg_sys::MarkGUCPrefixReserved(c"mcp".as_ptr()) };
}

/// 14 has only the warning about placeholders that exist now: a later `SET mcp.typo` is taken
/// as a placeholder there.
#[cfg(feature = "pg14")]
fn reserve_prefix() {
    unsafe { pgrx::pg_sys::EmitWarningsOnPlaceholders(c"mcp".as_ptr()) };
}
