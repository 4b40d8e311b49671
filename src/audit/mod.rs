//! The audit trail: every record ([`Record`], one row type per table, in `mcp_audit::rows`)
//! goes through one [`Sink`] of two, and both store it with the same SQL function,
//! `mcp.audit_store(jsonb)` (`sql/audit.sql`):
//!
//! * [`InTransaction`]: in the caller's transaction, as the extension owner (no preload,
//!   `mcp.audit_durable = off`, or a record the queue did not take);
//! * [`ThroughWorker`]: appended to this database's queue in shared memory and stored by the
//!   durable audit worker in its own transactions, so it outlasts the caller's ROLLBACK,
//!   cancel or termination.
//!
//! The files: `gucs.rs` the settings, `queue.rs` the shared memory (the queues' logic itself is
//! pure: `mcp_audit::queue`), `backend.rs` which records go where and a run's open state,
//! `worker.rs` the writer, launcher and sweep workers. Values are bounded first
//! ([`row_cuts`], `mcp.audit_max_value_bytes`).

mod backend;
pub mod deferred;
mod gucs;
mod queue;
mod worker;

use crate::error::{McpError, McpResult};
use crate::pg::{as_extension_owner, write_kept};
pub use backend::{
    durable, fail_open_run, guard_run, recording, run_end, run_start, run_start_committed,
    swap_open_run, OpenRun,
};
pub use gucs::{init, log_read_only_calls};
pub use mcp_audit::rows::{self, Record};
use mcp_audit::RowCuts;
pub use queue::{preloaded, status_json};

/// `mcp.audit_synchronous`.
pub fn synchronous() -> bool {
    gucs::SYNCHRONOUS.get()
}
use std::time::Duration;

pgrx::extension_sql_file!(
    "../../sql/audit.sql",
    name = "audit",
    requires = ["bootstrap", "retrieval"]
);

/// `mcp.audit_max_value_bytes` in bytes.
pub fn max_value_bytes() -> usize {
    crate::gucs::AUDIT_MAX_VALUE_BYTES.get().max(1024) as usize
}

/// The cut log of one audit row, at the current limit.
pub fn row_cuts() -> RowCuts {
    RowCuts::new(max_value_bytes())
}

/// A record the queue took: its queue and sequence number, to wait for its commit.
#[derive(Clone, Copy, Debug)]
pub struct Ticket {
    slot: usize,
    seq: u64,
}

impl Ticket {
    /// Wait (interruptibly) until the worker committed the record; false after `wait`.
    pub fn committed_within(self, wait: Duration) -> bool {
        queue::wait_stored(self.slot, self.seq, wait)
    }
}

/// What a sink did with a record.
pub enum Stored {
    /// Written (in the caller's transaction); the id `mcp.audit_store` returned.
    Written(Option<i64>),
    /// In the queue; the worker stores it.
    Queued(Ticket),
}

/// Why a sink did not store a record.
pub enum NotStored {
    /// The queue did not take it (why, for the WARNING); the caller may write it itself.
    NotQueued(String),
    /// The write failed: an ERROR for the caller.
    Failed(McpError),
}

/// Where audit records are stored.
pub trait Sink {
    fn store(&self, rec: &Record) -> Result<Stored, NotStored>;
}

/// In the caller's transaction, as the extension owner: `mcp.audit_store_batch` of the one
/// record.
pub struct InTransaction;

impl InTransaction {
    /// Store a record's JSON (as [`Record::to_json`] made it; also what the worker read from
    /// its queue). Returns the id `mcp.audit_store_batch` returned for it.
    pub fn store_json(json: &str) -> Result<Option<i64>, pgrx::spi::SpiError> {
        as_extension_owner(|| {
            write_kept::<i64>(
                "SELECT (mcp.audit_store_batch(pg_catalog.jsonb_build_array($1::pg_catalog.jsonb)))[1]",
                &[json.into()],
            )
        })
    }

    /// Store records (each as [`Record::to_json`] made it, or as the worker read it from its
    /// queue) with one call of `mcp.audit_store_batch`, in order: the worker's way to store the
    /// records of one transaction, and a run's end with its conversation in the caller's.
    pub fn store_batch<R: AsRef<[u8]>>(records: &[R]) -> Result<(), pgrx::spi::SpiError> {
        let json = rows::batch_json(records);
        let json = String::from_utf8_lossy(&json);
        as_extension_owner(|| {
            write_kept::<i32>(
                "SELECT pg_catalog.cardinality(mcp.audit_store_batch($1::pg_catalog.jsonb))",
                &[json.as_ref().into()],
            )
            .map(|_| ())
        })
    }
}

impl Sink for InTransaction {
    fn store(&self, rec: &Record) -> Result<Stored, NotStored> {
        let json = rec.to_json();
        let json = String::from_utf8_lossy(&json);
        Self::store_json(&json).map(Stored::Written).map_err(|e| {
            NotStored::Failed(McpError::Internal(format!(
                "could not write the audit row of {}: {e}",
                what(rec)
            )))
        })
    }
}

/// Through the durable audit worker: appended to this database's queue (cut to fit a record,
/// see [`queue::record_limit`]), waiting up to `wait` for room.
pub struct ThroughWorker {
    pub wait: Duration,
    /// Start the database's worker when none runs (not from paths that cannot wait for it).
    pub start_worker: bool,
    /// When to wake the worker ([`queue::Wake`]). A record of a run in synchronous mode (an LLM
    /// request, a tool call) wakes it only when it is idle: nobody waits for the record, and a
    /// busy worker stores it with its next batch (with the run's end, or at its next poll).
    pub wake: queue::Wake,
}

impl Sink for ThroughWorker {
    fn store(&self, rec: &Record) -> Result<Stored, NotStored> {
        queue::enqueue(rec, self.wait, self.start_worker, self.wake)
            .map(|(slot, seq)| Stored::Queued(Ticket { slot, seq }))
            .map_err(NotStored::NotQueued)
    }
}

/// What a record is, in an error message.
fn what(rec: &Record) -> &'static str {
    match rec {
        Record::Run(_) => "a chat run",
        Record::RunEnd(_) => "the end of a chat run",
        Record::Messages(_) => "the conversation of a chat run",
        Record::LlmRequest(_) => "an LLM request",
        Record::ToolCall(_) => "a tool call",
        Record::EmbeddingRequest(_) => "an embedding request",
    }
}

/// Store a record in the caller's transaction; its failure is an error.
pub fn in_transaction(rec: &Record) -> McpResult<Option<i64>> {
    match InTransaction.store(rec) {
        Ok(Stored::Written(id)) => Ok(id),
        Ok(Stored::Queued(_)) => Ok(None),
        Err(NotStored::Failed(e)) => Err(e),
        Err(NotStored::NotQueued(why)) => Err(McpError::Internal(why)),
    }
}

/// Store `recs` in the caller's transaction with one call of `mcp.audit_store_batch`, in order,
/// after the records `before` (already serialized: a run's inner records kept for its end,
/// [`deferred::take`]): a run's end, its conversation and its LLM requests and tool calls in
/// one statement instead of one per record.
pub fn in_transaction_all(before: Vec<Vec<u8>>, recs: &[Record]) -> McpResult<()> {
    if before.is_empty() && recs.is_empty() {
        return Ok(());
    }
    let of = recs.first().map_or("a chat run", what);
    let mut json = before;
    json.extend(recs.iter().map(Record::to_json));
    InTransaction::store_batch(&json)
        .map_err(|e| McpError::Internal(format!("could not write the audit rows of {of}: {e}")))
}

/// Store a record of a run (`llm_request`, `tool_call`) or of its own (a tool call outside a
/// chat, an embedding request): through the worker when [`backend::append`] takes it, else in
/// the caller's transaction (or, a record of a run audited there, with the run's end:
/// [`deferred`]). Returns the id the row got when it was written here.
pub fn record(rec: &Record) -> McpResult<Option<i64>> {
    if backend::append(rec) || deferred::defer(rec) {
        return Ok(None);
    }
    in_transaction(rec)
}

/// Whether the durable worker took the record (see [`backend::append`]); false: the caller
/// writes it itself ([`in_transaction`]) or, in a read-only transaction, logs it.
pub fn through_worker(rec: &Record) -> bool {
    backend::append(rec)
}
