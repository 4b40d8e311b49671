//! A run's inner records (its LLM requests and tool calls) when the run is audited in the
//! caller's transaction: kept in this backend's memory and written with the run's end, in the
//! same transaction, by the one `mcp.audit_store_batch` call that writes the end and the
//! conversation. The run row itself is written when the run starts.
//!
//! Why: in the caller's transaction every record is one call of the writer (plpgsql, about
//! 0.1 ms); a chat of two LLM requests and one tool call made five, now two. What a user sees
//! is the same: the rows are in the caller's transaction either way, so they commit or roll
//! back with it, together. What differs: during the run, the caller's own transaction does not
//! see the run's `mcp.llm_request` and `mcp.tool_call` rows yet (a tool that reads them sees
//! the earlier runs' rows only), as with the durable audit worker, whose rows the caller sees
//! once the worker committed them.
//!
//! A run that never reaches its end in this transaction (an ERROR caught by a savepoint or a
//! PL/pgSQL EXCEPTION block: its run row is rolled back with it) leaves its records here; they
//! are dropped when the transaction ends, whichever way, never written later. Runs nest (a tool
//! whose SQL runs a chat): each has its own list, keyed by run id. A run polled by a chat worker
//! is never opened here ([`open`]): its end comes in a later transaction than its first records.

use super::Record;
use pgrx::pg_sys;
use pgrx::prelude::*;
use std::cell::{Cell, RefCell};
use std::ptr::null_mut;

thread_local! {
    /// The runs of this transaction audited in it and not yet ended: (run id, their records'
    /// JSON in order).
    static RUNS: RefCell<Vec<(String, Vec<Vec<u8>>)>> = const { RefCell::new(Vec::new()) };
    static HOOKED: Cell<bool> = const { Cell::new(false) };
}

/// The run `run_id` is audited in the caller's transaction from now on: its inner records wait
/// for its end ([`take`]). Not in a chat worker's poll: a run's steps there commit one by one,
/// and a step that went from the first LLM answer on to the tool call would drop both records
/// kept for an end that comes in a later transaction; each step writes its records itself.
pub fn open(run_id: &str) {
    if crate::async_runs::polling_a_run() {
        return;
    }
    if !HOOKED.replace(true) {
        unsafe { pg_sys::RegisterXactCallback(Some(on_xact_event), null_mut()) };
    }
    RUNS.with(|r| {
        let mut r = r.borrow_mut();
        r.retain(|(id, _)| id != run_id);
        r.push((run_id.to_string(), Vec::new()));
    });
}

/// Keep `rec` for its run's end when that run is open here ([`open`]); false: not a record of
/// such a run (the caller writes it now).
pub fn defer(rec: &Record) -> bool {
    let Some(run_id) = rec.run_id() else {
        return false;
    };
    if matches!(
        rec,
        Record::Run(_) | Record::RunEnd(_) | Record::Messages(_)
    ) {
        return false;
    }
    RUNS.with(|r| {
        let mut r = r.borrow_mut();
        match r.iter_mut().rev().find(|(id, _)| id == run_id) {
            Some((_, recs)) => {
                recs.push(rec.to_json());
                true
            }
            None => false,
        }
    })
}

/// The run's kept records, in order, and the run closed here (none when it was not open).
pub fn take(run_id: &str) -> Vec<Vec<u8>> {
    RUNS.with(|r| {
        let mut r = r.borrow_mut();
        match r.iter().rposition(|(id, _)| id == run_id) {
            Some(i) => r.remove(i).1,
            None => Vec::new(),
        }
    })
}

/// How many records are kept for open runs (for tests).
#[cfg(any(test, feature = "pg_test"))]
pub fn pending() -> usize {
    RUNS.with(|r| r.borrow().iter().map(|(_, v)| v.len()).sum())
}

#[pg_guard]
unsafe extern "C-unwind" fn on_xact_event(
    event: pg_sys::XactEvent::Type,
    _arg: *mut std::ffi::c_void,
) {
    if crate::pg::ends_transaction(event) {
        RUNS.with(|r| r.borrow_mut().clear());
    }
}
