//! Subtransactions that turn a PostgreSQL ERROR into data (a tool's fault must not abort the
//! caller's statement), and the classification of the caught error.

use pgrx::pg_sys;
use pgrx::pg_sys::panic::CaughtError;
use pgrx::prelude::*;
use std::panic::AssertUnwindSafe;

/// What a caught PostgreSQL error looked like (for the operator log; never sent to a model).
#[derive(Debug, Clone)]
pub struct PgErrorInfo {
    pub sqlstate: String,
    pub message: String,
}

fn sqlstate_text(code: PgSqlErrorCode) -> String {
    // Decode PostgreSQL's 6-bit-per-char packed SQLSTATE.
    let mut v = code as i32;
    let mut s = String::with_capacity(5);
    for _ in 0..5 {
        s.push(char::from(((v & 0x3F) as u8) + b'0'));
        v >>= 6;
    }
    s
}

impl PgErrorInfo {
    fn from_caught(e: &CaughtError) -> Self {
        match e {
            CaughtError::PostgresError(r) | CaughtError::ErrorReport(r) => PgErrorInfo {
                sqlstate: sqlstate_text(r.sql_error_code()),
                message: r.message().to_string(),
            },
            CaughtError::RustPanic { ereport, .. } => PgErrorInfo {
                sqlstate: sqlstate_text(ereport.sql_error_code()),
                message: ereport.message().to_string(),
            },
        }
    }

    /// Errors that must not be swallowed: cancel / statement_timeout (57014), shutdown and
    /// other operator intervention (class 57), resource exhaustion (53), system errors (58).
    pub fn must_propagate(&self) -> bool {
        self.sqlstate.starts_with("57")
            || self.sqlstate.starts_with("53")
            || self.sqlstate.starts_with("58")
    }
}

/// Run `f` in an internal subtransaction. On success the subtransaction is released (its work
/// kept) unless `always_rollback`; on error it is rolled back and the error returned as data.
/// Errors that must propagate (query cancel, statement_timeout, shutdown) are re-thrown.
pub fn in_subtransaction<R>(
    always_rollback: bool,
    f: impl FnOnce() -> R,
) -> Result<R, PgErrorInfo> {
    subtransaction(always_rollback, true, f)
}

/// Like [`in_subtransaction`], but returns every error, cancel included (for tests, and for
/// the audit worker, which must outlive any one bad record).
pub fn in_subtransaction_catch_all<R>(f: impl FnOnce() -> R) -> Result<R, PgErrorInfo> {
    subtransaction(false, false, f)
}

// pgrx's `CaughtError` (the closure's error) is large by design.
#[allow(clippy::result_large_err)]
fn subtransaction<R>(
    always_rollback: bool,
    propagate: bool,
    f: impl FnOnce() -> R,
) -> Result<R, PgErrorInfo> {
    let result: Result<R, CaughtError> = unsafe {
        let old_cxt = pg_sys::CurrentMemoryContext;
        let old_owner = pg_sys::CurrentResourceOwner;
        pg_sys::BeginInternalSubTransaction(std::ptr::null());
        pg_sys::MemoryContextSwitchTo(old_cxt);
        let f = AssertUnwindSafe(f);
        PgTryBuilder::new(AssertUnwindSafe(|| {
            let r = (f.0)();
            if always_rollback {
                pg_sys::RollbackAndReleaseCurrentSubTransaction();
            } else {
                pg_sys::ReleaseCurrentSubTransaction();
            }
            pg_sys::MemoryContextSwitchTo(old_cxt);
            pg_sys::CurrentResourceOwner = old_owner;
            Ok(r)
        }))
        .catch_others(|e| {
            pg_sys::MemoryContextSwitchTo(old_cxt);
            pg_sys::RollbackAndReleaseCurrentSubTransaction();
            pg_sys::MemoryContextSwitchTo(old_cxt);
            pg_sys::CurrentResourceOwner = old_owner;
            Err(e)
        })
        .execute()
    };
    match result {
        Ok(r) => Ok(r),
        Err(e) => {
            let mut info = PgErrorInfo::from_caught(&e);
            if info.sqlstate == "57014" && super::timeout::take_fired() {
                // Our own tool timer fired: a tool fault, not the caller's cancel.
                info.message = "canceling tool call: its time limit was reached".into();
                return Err(info);
            }
            if propagate && info.must_propagate() {
                e.rethrow();
            }
            Err(info)
        }
    }
}

/// Whether a transaction callback's `event` ends the top-level transaction (commit, abort,
/// prepare, also in a parallel worker): where per-transaction state is dropped.
pub fn ends_transaction(event: pgrx::pg_sys::XactEvent::Type) -> bool {
    use pgrx::pg_sys::XactEvent::*;
    matches!(
        event,
        XACT_EVENT_COMMIT
            | XACT_EVENT_ABORT
            | XACT_EVENT_PREPARE
            | XACT_EVENT_PARALLEL_COMMIT
            | XACT_EVENT_PARALLEL_ABORT
    )
}
