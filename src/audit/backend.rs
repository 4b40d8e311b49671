//! Which records go through the durable audit worker, and the run a backend has open there.
//!
//! * Needs `shared_preload_libraries = 'pg_mcp'` (for the shared memory). Without it, or with
//!   `mcp.audit_durable = off`, the rows are written in the caller's transaction (a NOTICE says
//!   so once per session).
//! * Any record is taken: a row larger than a quarter of a queue is cut to fit
//!   (`mcp_audit::fit_row`, the cuts' sizes and SHA-256 in its `clipped`), a conversation goes as
//!   several records ([`run_end`]).
//! * `mcp.audit_synchronous` (on): the run row is committed before the run's first LLM request
//!   or tool call ([`run_start_committed`]: queued first, waited for only there, so the worker's
//!   commit overlaps the run's setup) and the run's last record before `mcp.chat` returns. Off: nothing waits; a server crash loses what
//!   the queue held (at most `mcp.audit_queue_kb`), like `synchronous_commit = off`.
//! * When the worker is down or the queue full: a backend waits up to `mcp.audit_wait_ms`
//!   (starting a worker if none runs). If the run's first record cannot be queued, or
//!   (synchronous) is not committed in that time, the chat fails with SQLSTATE 55000 before any
//!   LLM request. A later record that cannot be queued is written in the caller's transaction
//!   instead, with a WARNING. Nothing is dropped silently.
//! * Ends the run did not reach itself: an ERROR or cancel that unwinds through the chat records
//!   `cancelled` (57014) or `failed`; a backend that exits during a run (terminate, FATAL)
//!   records `aborted`; a backend that died without running any code (SIGKILL, crash) is found
//!   by the worker (`worker.rs`, the sweep).

use super::gucs::{wait_budget, DURABLE, SYNCHRONOUS};
use super::queue::{self, Wake};
use super::{Record, Sink, Stored, ThroughWorker};
use crate::error::{McpError, McpResult};
use mcp_audit::rows::{self, MessagesRow, RunEndRow, RunRow};
use pgrx::pg_sys;
use pgrx::pg_sys::panic::CaughtError;
use pgrx::prelude::*;
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::ptr::null_mut;
use std::time::Duration;

thread_local! {
    /// The run this backend has started through the worker and not yet ended: (run id, session).
    static OPEN_RUN: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
    static NOTICED: Cell<bool> = const { Cell::new(false) };
    static EXIT_HOOKS: Cell<bool> = const { Cell::new(false) };
    /// Synchronous mode: the open run's first record, while its commit has not been waited for
    /// yet. [`run_start_committed`] waits for it before the run's first LLM request or tool call,
    /// so the worker's commit overlaps the run's setup (tools, budgets, plan) instead of
    /// preceding it.
    static START_TICKET: Cell<Option<super::Ticket>> = const { Cell::new(None) };
}

/// Whether this session's audit records go through the worker.
pub fn durable() -> bool {
    queue::preloaded()
        && queue::shared().is_some()
        && DURABLE.get()
        && unsafe { pg_sys::MyDatabaseId != pg_sys::Oid::INVALID && !pg_sys::RecoveryInProgress() }
}

/// A run opened through the audit worker, as a chat worker keeps it while the run waits: its
/// (run id, session) and, in synchronous mode, its first record's ticket while that commit has
/// not been waited for (so that one run never consumes another run's ticket).
pub struct OpenRunState {
    run: (String, String),
    start_ticket: Option<super::Ticket>,
}

/// A chat worker's saved open run (None: the run has none open).
pub type OpenRun = Option<OpenRunState>;

/// Put `run` in as this process's open run and take out the one that was (a chat worker with
/// many runs in flight swaps each run's in while it polls it, and out after).
pub fn swap_open_run(run: OpenRun) -> OpenRun {
    let (ids, ticket) = match run {
        Some(s) => (Some(s.run), s.start_ticket),
        None => (None, None),
    };
    let old_ids = OPEN_RUN.with(|o| std::mem::replace(&mut *o.borrow_mut(), ids));
    let old_ticket = START_TICKET.replace(ticket);
    old_ids.map(|run| OpenRunState {
        run,
        start_ticket: old_ticket,
    })
}

/// End the open run (if any) as `failed` because of `message` (a chat worker's run whose step
/// raised): never raises, never waits.
pub fn fail_open_run(message: &str) {
    end_open_run(
        "failed",
        json!({"kind": "statement_error", "message": message}),
    );
}

/// Whether this backend has a run open through the worker (its records go to the queue).
pub fn recording() -> bool {
    OPEN_RUN.with(|o| o.borrow().is_some())
}

/// Queue `rec` through the worker (`wake`: see [`ThroughWorker::wake`]); the ticket, or why not.
fn queue_record_waking(
    rec: &Record,
    wait: Duration,
    start_worker: bool,
    wake: Wake,
) -> Result<super::Ticket, String> {
    let sink = ThroughWorker {
        wait,
        start_worker,
        wake,
    };
    match sink.store(rec) {
        Ok(Stored::Queued(t)) => Ok(t),
        Ok(Stored::Written(_)) => Err("written elsewhere".into()),
        Err(super::NotStored::NotQueued(why)) => Err(why),
        Err(super::NotStored::Failed(e)) => Err(e.to_string()),
    }
}

/// Queue `rec` through the worker and wake it; the ticket, or why not.
fn queue_record(rec: &Record, wait: Duration, start_worker: bool) -> Result<super::Ticket, String> {
    queue_record_waking(rec, wait, start_worker, Wake::Now)
}

/// Once per session without the worker: say where the audit rows go.
fn notice_local() {
    if NOTICED.with(|n| n.replace(true)) {
        return;
    }
    if !queue::preloaded() {
        pgrx::notice!(
            "pg_mcp: audit rows of mcp.chat are written in the caller's transaction and vanish if it rolls back (add pg_mcp to shared_preload_libraries for durable audit)"
        );
    }
}

fn register_exit_hooks() {
    if EXIT_HOOKS.with(|h| h.replace(true)) {
        return;
    }
    unsafe {
        pg_sys::before_shmem_exit(Some(on_backend_exit), pg_sys::Datum::from(0));
        pg_sys::RegisterXactCallback(Some(on_xact_event), null_mut());
    }
}

/// The run's first record. Ok(false): not durable, the caller writes the row itself. Err: the
/// policy says the chat must not start.
pub fn run_start(mut row: RunRow) -> McpResult<bool> {
    if !durable() {
        notice_local();
        return Ok(false);
    }
    register_exit_hooks();
    row.backend_pid = Some(unsafe { pg_sys::MyProcPid });
    let start_us = unsafe { pg_sys::MyStartTimestamp } + 946_684_800_000_000; // 2000 → 1970
    row.backend_start = Some(rows::unix_micros(start_us));
    let (run_id, session) = (row.run_id.clone(), row.session_id.clone());
    let ticket = queue_record(&Record::Run(row), wait_budget(), true).map_err(unavailable)?;
    OPEN_RUN.with(|o| *o.borrow_mut() = Some((run_id, session)));
    START_TICKET.set(SYNCHRONOUS.get().then_some(ticket));
    Ok(true)
}

fn unavailable(why: String) -> McpError {
    McpError::NotReady(format!("pg_mcp's audit worker did not take the run's record: {why}"))
        .with_hint("The chat was not started (no LLM request was sent). Check that the audit worker can run (max_worker_processes, mcp.audit_start_worker) or raise mcp.audit_wait_ms.")
}

/// Synchronous mode: wait until the worker committed the open run's first record, unless that
/// was waited for already. Called before the run's first LLM request and its first tool call
/// (and before the run ends), so the run row is committed before anything is sent or run. Err
/// (55000) when it is not committed within `mcp.audit_wait_ms`: the run is ended right away
/// (`failed`, `audit_unavailable`), so the row that lands later is not left `running`, and the
/// caller must neither send nor run anything. Interruptible (a cancel raises here).
pub fn run_start_committed() -> McpResult<()> {
    let Some(ticket) = START_TICKET.take() else {
        return Ok(());
    };
    if ticket.committed_within(wait_budget()) {
        return Ok(());
    }
    end_open_run(
        "failed",
        json!({"kind": "audit_unavailable", "message": "the audit worker did not commit the run's first record within mcp.audit_wait_ms; the chat was not started"}),
    );
    Err(unavailable(format!(
        "not committed within {} ms (mcp.audit_wait_ms)",
        wait_budget().as_millis()
    )))
}

/// Take `rec` (an LLM request, tool call or embedding request) through the worker if it goes
/// there: a record of a run while this backend has the run open through the worker; a record
/// of its own (no run: `mcp.call_tool`, MCP `tools/call`, an embedding request) whenever the
/// durable audit is on, so that it outlasts the caller's transaction like a run's records and a
/// read-only call leaves the caller's transaction without a write (in synchronous mode it waits
/// for the worker's commit). False: the caller writes the row itself (not durable, or the queue
/// did not take it: WARNING).
pub fn append(rec: &Record) -> bool {
    let own = rec.run_id().is_none();
    let whose = if own {
        if !durable() {
            return false;
        }
        String::new()
    } else {
        match OPEN_RUN.with(|o| o.borrow().as_ref().map(|r| r.0.clone())) {
            Some(run_id) => format!(" of run {run_id}"),
            None => return false,
        }
    };
    // A record of a run in synchronous mode wakes the worker only when it is idle: then it is
    // stored while the run goes on (its batch of only such records commits without waiting for
    // the WAL flush: worker.rs, drain; the end's flush makes it durable), not with the end that
    // mcp.chat waits for. A busy worker (many sessions) takes it with its next batch, with the
    // run's end or at its 100-ms poll: waking it for every record regardless gave it a
    // transaction per record instead of one per run (0.28 ms more CPU per chat), its
    // bottleneck with many sessions.
    let wake = if own || !SYNCHRONOUS.get() {
        Wake::Now
    } else {
        Wake::IfIdle
    };
    match queue_record_waking(rec, wait_budget(), true, wake) {
        Ok(ticket) => {
            if own && SYNCHRONOUS.get() && !ticket.committed_within(wait_budget()) {
                pgrx::warning!(
                    "pg_mcp: an audit record ({}) is queued for the audit worker but not yet committed (mcp.audit_wait_ms)",
                    rec.kind()
                );
            }
            true
        }
        Err(why) => {
            pgrx::warning!(
                "pg_mcp: audit record ({}){whose} written in the caller's transaction instead: {why}",
                rec.kind()
            );
            false
        }
    }
}

/// What the caller of [`run_end`] still writes itself, in its own transaction.
pub struct EndLeft {
    /// The run row's end.
    pub run: bool,
    /// The messages from this index on (their count: none).
    pub messages_from: usize,
}

/// The run's last records through the worker: the conversation (`messages`, `message_cuts`) in
/// records of at most a record's size (a message larger than half of it is cut, its size and
/// SHA-256 in its cut log), then the run's end, so that any conversation is taken. Returns what
/// the caller still has to write itself: `None` = nothing; otherwise (no run open through the
/// worker, or the queue did not take a record within `mcp.audit_wait_ms`: WARNING) the part
/// that was not queued.
pub fn run_end(end: &RunEndRow, messages: &[Value], message_cuts: &[Value]) -> Option<EndLeft> {
    let total = messages.len();
    // The end's commit is waited for below; the worker commits a queue's records in order.
    START_TICKET.take();
    let Some((run_id, session)) = OPEN_RUN.with(|o| o.borrow_mut().take()) else {
        return Some(EndLeft {
            run: true,
            messages_from: 0,
        });
    };
    let limit = queue::record_limit().saturating_sub(queue::ENVELOPE_BYTES);
    let mut messages_from = total;
    for b in mcp_audit::batch_messages(messages.to_vec(), message_cuts.to_vec(), limit) {
        let offset = b.offset;
        let rec = Record::Messages(MessagesRow {
            session_id: session.clone(),
            run_id: run_id.clone(),
            offset,
            messages: b.messages,
            message_cuts: b.cuts,
        });
        // Not waking the worker yet: the end below does, so both go in one transaction.
        if let Err(why) = queue_record_waking(&rec, wait_budget(), true, Wake::Later) {
            pgrx::warning!(
                "pg_mcp: the conversation of run {run_id} from message {offset} on is written in the caller's transaction instead: {why}"
            );
            messages_from = offset;
            break;
        }
    }
    match queue_record(&Record::RunEnd(end.clone()), wait_budget(), true) {
        Ok(ticket) => {
            if SYNCHRONOUS.get() && !ticket.committed_within(wait_budget()) {
                pgrx::warning!(
                    "pg_mcp: the end of run {run_id} is queued for the audit worker but not yet committed (mcp.audit_wait_ms)"
                );
            }
            (messages_from < total).then_some(EndLeft {
                run: false,
                messages_from,
            })
        }
        Err(why) => {
            pgrx::warning!(
                "pg_mcp: the end of run {run_id} is written in the caller's transaction instead (the run row may not be committed yet: then the worker marks it aborted when this backend is gone): {why}"
            );
            Some(EndLeft {
                run: true,
                messages_from,
            })
        }
    }
}

/// End the open run (if any) from a path that cannot run SQL: an ERROR unwinding, the backend
/// exiting. Never raises, never waits for the worker.
fn end_open_run(status: &str, error: Value) {
    START_TICKET.take();
    let Some((run_id, _)) = OPEN_RUN.with(|o| o.borrow_mut().take()) else {
        return;
    };
    let end = Record::RunEnd(RunEndRow {
        run_id: run_id.clone(),
        status: status.into(),
        error: Some(error),
        finished_at: rows::now(),
        ..Default::default()
    });
    if let Err(why) = queue_record(&end, Duration::from_millis(200), false) {
        pgrx::log!("pg_mcp: the end ({status}) of run {run_id} could not be queued: {why}; the audit worker will mark it aborted");
    }
}

/// Run the chat cycle; an ERROR unwinding through it (cancel, statement_timeout, a tool's
/// uncaught error) first records the run's end, then continues.
pub fn guard_run<R>(f: impl FnOnce() -> R) -> R {
    if OPEN_RUN.with(|o| o.borrow().is_none()) {
        return f();
    }
    let f = std::panic::AssertUnwindSafe(f);
    PgTryBuilder::new(std::panic::AssertUnwindSafe(|| (f.0)()))
        .catch_others(|e| {
            let (code, message) = match &e {
                CaughtError::PostgresError(r) | CaughtError::ErrorReport(r) => {
                    (r.sql_error_code(), r.message().to_string())
                }
                CaughtError::RustPanic { ereport, .. } => {
                    (ereport.sql_error_code(), ereport.message().to_string())
                }
            };
            let status = match code {
                PgSqlErrorCode::ERRCODE_QUERY_CANCELED => "cancelled",
                PgSqlErrorCode::ERRCODE_ADMIN_SHUTDOWN | PgSqlErrorCode::ERRCODE_CRASH_SHUTDOWN => {
                    "aborted"
                }
                _ => "failed",
            };
            end_open_run(
                status,
                json!({"kind": if status == "failed" { "statement_error" } else { status },
                       "message": format!("the statement running the chat ended with an error: {message}")}),
            );
            e.rethrow()
        })
        .execute()
}

#[pg_guard]
unsafe extern "C-unwind" fn on_xact_event(
    event: pg_sys::XactEvent::Type,
    _arg: *mut std::ffi::c_void,
) {
    if event == pg_sys::XactEvent::XACT_EVENT_ABORT {
        end_open_run(
            "failed",
            json!({"kind": "statement_error", "message": "the transaction running the chat was aborted before the run ended"}),
        );
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn on_backend_exit(_code: std::ffi::c_int, _arg: pg_sys::Datum) {
    end_open_run(
        "aborted",
        json!({"kind": "aborted", "message": "the backend running the chat ended (terminated or FATAL) before the run finished"}),
    );
}
