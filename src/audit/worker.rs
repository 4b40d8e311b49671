//! The durable audit's background workers: the writer of one database (drains its queue in
//! batches, a batch stored by one call of `mcp.audit_store_batch` (record by record, each in a
//! subtransaction, when that fails), and sweeps runs whose
//! backend is gone), the static launcher (after every server start and crash restart) and the
//! one-off sweep it starts per database.

use super::queue::{self, locked, shared, Shared, SLOTS};
use super::InTransaction;
use pgrx::bgworkers::{
    BackgroundWorker, BackgroundWorkerBuilder, BgWorkerStartTime, SignalWakeFlags,
};
use pgrx::pg_sys;
use pgrx::prelude::*;
use serde_json::Value;
use std::ptr::null_mut;
use std::time::{Duration, Instant};

/// A record at most this many per worker transaction.
const BATCH_RECORDS: usize = 256;
/// The worker ends after this long without records and without open runs.
const WORKER_IDLE_EXIT: Duration = Duration::from_secs(1);
/// How often the worker looks for runs of backends that are gone.
const SWEEP_EVERY: Duration = Duration::from_millis(500);

#[pg_guard]
unsafe extern "C-unwind" fn on_worker_exit(_code: std::ffi::c_int, arg: pg_sys::Datum) {
    let i = arg.value();
    if let Some(p) = shared() {
        locked(p, |sh| {
            let s = &mut sh.queues[i];
            if s.worker_pid == pg_sys::MyProcPid {
                s.worker_pid = 0;
                sh.latches[i] = null_mut();
                sh.idle[i] = false;
            }
        });
        pg_sys::ConditionVariableBroadcast(&raw mut (*p).cv);
    }
}

/// Entry point of the audit worker of one database (argument: its queue slot).
#[pg_guard]
#[no_mangle]
pub extern "C-unwind" fn pg_mcp_audit_worker_main(arg: pg_sys::Datum) {
    let i = unsafe { i32::from_datum(arg, false) }.unwrap_or(-1);
    let Some(p) = shared() else { return };
    if !(0..SLOTS as i32).contains(&i) {
        return;
    }
    let i = i as usize;
    BackgroundWorker::attach_signal_handlers(SignalWakeFlags::SIGHUP | SignalWakeFlags::SIGTERM);
    // The database and generation this worker serves (read with its registration, under one
    // lock: the slot may pass to another database at any time it is drained).
    let claimed = locked(p, |sh| {
        let s = &mut sh.queues[i];
        if s.db == mcp_audit::queue::NO_DB || s.worker_pid != 0 {
            return None; // free, or a second start raced with the first
        }
        s.worker_pid = unsafe { pg_sys::MyProcPid };
        sh.latches[i] = unsafe { pg_sys::MyLatch };
        s.start_requested_ms = 0;
        Some((pg_sys::Oid::from(s.db), s.generation))
    });
    let Some((db, generation)) = claimed else {
        return;
    };
    unsafe { pg_sys::before_shmem_exit(Some(on_worker_exit), pg_sys::Datum::from(i)) };
    BackgroundWorker::connect_worker_to_spi_by_oid(Some(db), None);
    pin_search_path();
    let mut idle_since = Instant::now();
    let mut last_sweep: Option<Instant> = None;
    loop {
        let Some(n) = drain(p, i, generation) else {
            return; // the queue passed to another database
        };
        if n > 0 {
            idle_since = Instant::now();
        }
        if last_sweep.is_none_or(|t| t.elapsed() >= SWEEP_EVERY) {
            last_sweep = Some(Instant::now());
            if sweep() > 0 {
                idle_since = Instant::now();
            }
        }
        if n == 0 && idle_since.elapsed() >= WORKER_IDLE_EXIT {
            // Nothing queued and no open run: end (a backend starts a new worker when needed).
            let exit = locked(p, |sh| {
                let s = &mut sh.queues[i];
                if s.generation != generation {
                    true
                } else if s.head == s.tail {
                    s.worker_pid = 0;
                    sh.latches[i] = null_mut();
                    sh.idle[i] = false;
                    true
                } else {
                    false
                }
            });
            if exit {
                return;
            }
        }
        if n == 0 {
            // Idle (only with an empty queue, under the lock that appends): a record that
            // nobody waits for now wakes it too (queue::Wake::IfIdle); the next drain, which
            // takes the lock anyway, clears it.
            locked(p, |sh| {
                let s = &sh.queues[i];
                sh.idle[i] = s.generation == generation && s.head == s.tail;
            });
            if !BackgroundWorker::wait_latch(Some(Duration::from_millis(100))) {
                drain(p, i, generation);
                return;
            }
        }
        if BackgroundWorker::sighup_received() {
            unsafe { pg_sys::ProcessConfigFile(pg_sys::GucContext::PGC_SIGHUP) };
        }
    }
}

/// Pin this worker's search_path to `pg_catalog, pg_temp` for its whole session, over any
/// `ALTER DATABASE` / `ALTER ROLE … SET search_path`: the worker runs as the bootstrap
/// superuser, and its own statements (the sweep) name PostgreSQL's operators unqualified, so a
/// database owner's schema early in the path must never supply them.
fn pin_search_path() {
    // SAFETY: a plain GUC assignment of the session (no catalog access in its hooks)
    unsafe {
        pg_sys::SetConfigOption(
            c"search_path".as_ptr(),
            c"pg_catalog, pg_temp".as_ptr(),
            pg_sys::GucContext::PGC_SUSET,
            pg_sys::GucSource::PGC_S_OVERRIDE,
        )
    };
}

/// The static worker that sweeps every database once per server start (and after every crash
/// restart): runs a backend left `running` when it was killed are marked `aborted` right away, not
/// only when that database's next chat starts its audit worker. It stays, idle, afterwards (a
/// static worker that ended would not be started again after a crash restart); it holds no
/// database connection, so it blocks neither CREATE nor DROP DATABASE. Uses one of
/// `max_worker_processes` while the server runs, and briefly one more per database swept.
pub unsafe fn register_launcher() {
    BackgroundWorkerBuilder::new("pg_mcp audit launcher")
        .set_type("pg_mcp audit launcher")
        .set_library("pg_mcp")
        .set_function("pg_mcp_audit_launcher_main")
        .enable_spi_access()
        .set_start_time(BgWorkerStartTime::RecoveryFinished)
        .set_restart_time(Some(Duration::from_secs(60)))
        .load();
}

#[pg_guard]
#[no_mangle]
pub extern "C-unwind" fn pg_mcp_audit_launcher_main(_arg: pg_sys::Datum) {
    BackgroundWorker::attach_signal_handlers(SignalWakeFlags::SIGHUP | SignalWakeFlags::SIGTERM);
    // No database: shared catalogs only (pg_database), like autovacuum's launcher.
    BackgroundWorker::connect_worker_to_spi(None, None);
    for db in unsafe { connectable_databases() } {
        if BackgroundWorker::sigterm_received() {
            return;
        }
        let started =
            BackgroundWorkerBuilder::new(&format!("pg_mcp audit sweep (database {})", db.to_u32()))
                .set_type("pg_mcp audit sweep")
                .set_library("pg_mcp")
                .set_function("pg_mcp_audit_sweep_main")
                .set_argument(db.into_datum())
                .enable_spi_access()
                .set_start_time(BgWorkerStartTime::RecoveryFinished)
                .set_restart_time(None)
                .set_notify_pid(unsafe { pg_sys::MyProcPid })
                .load_dynamic();
        match started {
            // One database at a time: the sweep workers never crowd out the others.
            Ok(w) => {
                let _ = w.wait_for_shutdown();
            }
            Err(_) => pgrx::log!(
                "pg_mcp audit launcher: could not start the sweep of database {} (max_worker_processes reached?); its audit worker sweeps when it next starts",
                db.to_u32()
            ),
        }
    }
    while BackgroundWorker::wait_latch(Some(Duration::from_secs(3600))) {
        if BackgroundWorker::sighup_received() {
            unsafe { pg_sys::ProcessConfigFile(pg_sys::GucContext::PGC_SIGHUP) };
        }
    }
}

/// Databases that accept connections and are not templates, read from pg_database (a shared
/// catalog) in a transaction of its own.
unsafe fn connectable_databases() -> Vec<pg_sys::Oid> {
    let mut out = Vec::new();
    pg_sys::StartTransactionCommand();
    pg_sys::GetTransactionSnapshot();
    let lock = pg_sys::AccessShareLock as pg_sys::LOCKMODE;
    let rel = pg_sys::table_open(pg_sys::DatabaseRelationId, lock);
    let scan = pg_sys::table_beginscan_catalog(rel, 0, null_mut());
    loop {
        let tup = pg_sys::heap_getnext(scan, pg_sys::ScanDirection::ForwardScanDirection);
        if tup.is_null() {
            break;
        }
        // GETSTRUCT
        let data = (*tup).t_data;
        let form =
            (data as *mut u8).add((*data).t_hoff as usize) as *const pg_sys::FormData_pg_database;
        if (*form).datallowconn && !(*form).datistemplate {
            out.push((*form).oid);
        }
    }
    pg_sys::heap_endscan(scan);
    pg_sys::table_close(rel, lock);
    pg_sys::CommitTransactionCommand();
    out
}

/// One database's sweep (started by the launcher): where pg_mcp is installed, runs whose backend
/// is gone are marked `aborted`; then it ends.
#[pg_guard]
#[no_mangle]
pub extern "C-unwind" fn pg_mcp_audit_sweep_main(arg: pg_sys::Datum) {
    BackgroundWorker::attach_signal_handlers(SignalWakeFlags::SIGTERM);
    let db = unsafe { pg_sys::Oid::from_datum(arg, false) }.unwrap_or(pg_sys::Oid::INVALID);
    if db == pg_sys::Oid::INVALID {
        return;
    }
    BackgroundWorker::connect_worker_to_spi_by_oid(Some(db), None);
    pin_search_path();
    let installed = BackgroundWorker::transaction(|| {
        Spi::get_one::<bool>("SELECT pg_catalog.to_regclass('mcp.run') IS NOT NULL")
            .ok()
            .flatten()
            .unwrap_or(false)
    });
    if installed {
        sweep();
        // Asynchronous chat runs: the ones a stopped server was running are marked aborted,
        // queued ones get a chat worker.
        crate::async_runs::after_restart();
    }
}

/// Store one batch of queued records in one transaction; the queue's tail moves after the
/// commit. Returns the number of records taken; `None` when the queue passed to another
/// database (another `generation`): its records are not this worker's. (A queue passes only
/// when drained, so never while a batch is being stored.)
fn drain(p: *mut Shared, i: usize, generation: u64) -> Option<usize> {
    let (batch, new_tail) = locked(p, |sh| {
        sh.idle[i] = false; // working (queue::Wake::IfIdle)
        let s = &sh.queues[i];
        (s.generation == generation).then(|| s.read(queue::ring(p, i), BATCH_RECORDS))
    })?;
    if batch.is_empty() {
        return Some(0);
    }
    // A batch of a run's inner records only (its requests, tool calls, conversation) is
    // committed without waiting for the WAL flush: nobody waits for them, and the run's end,
    // committed after them with the flush, makes them durable (mcp_audit::rows::
    // commit_may_defer_flush). Other batches commit as synchronous_commit says.
    let defer_flush = batch
        .iter()
        .all(|r| mcp_audit::rows::commit_may_defer_flush(r));
    let failed = BackgroundWorker::transaction(std::panic::AssertUnwindSafe(|| {
        if defer_flush {
            crate::pg::local_synchronous_commit(false);
        }
        if batch.len() > 1 && store_batch(&batch) {
            return 0;
        }
        batch.iter().filter(|r| !store(r)).count() as u64
    }));
    locked(p, |sh| {
        sh.queues[i].commit(new_tail, batch.len() as u64, failed)
    });
    queue::broadcast(p);
    Some(batch.len())
}

/// Store the whole batch with one call of `mcp.audit_store_batch`, in one subtransaction; false
/// when it failed (rolled back: nothing of it stays), and the caller stores the records one by
/// one, so a bad record loses only itself.
fn store_batch(batch: &[Vec<u8>]) -> bool {
    matches!(
        crate::pg::in_subtransaction_catch_all(|| InTransaction::store_batch(batch)),
        Ok(Ok(()))
    )
}

/// Store one record (as the backend serialized it) in a subtransaction, through the same
/// function as a backend writing in its own transaction; false (and a WARNING in the server
/// log) if it failed.
fn store(rec: &[u8]) -> bool {
    let text = String::from_utf8_lossy(rec);
    let r = crate::pg::in_subtransaction_catch_all(|| InTransaction::store_json(&text));
    let err = match r {
        Ok(Ok(_)) => return true,
        Ok(Err(e)) => e.to_string(),
        Err(info) => format!("{}: {}", info.sqlstate, info.message),
    };
    let v: Value = serde_json::from_slice(rec).unwrap_or(Value::Null);
    pgrx::warning!(
        "pg_mcp audit worker: could not store a {} record of run {}: {err}",
        v["k"].as_str().unwrap_or("?"),
        v["row"]["run_id"].as_str().unwrap_or("?")
    );
    false
}

/// Mark runs whose backend is gone `aborted`; returns how many runs are still open.
fn sweep() -> i64 {
    let r = BackgroundWorker::transaction(|| {
        crate::pg::in_subtransaction_catch_all(|| {
            Spi::get_one::<i64>(
                "WITH gone AS (
                   UPDATE mcp.run r SET status = 'aborted', finished_at = pg_catalog.clock_timestamp(),
                          error = pg_catalog.jsonb_build_object('kind', 'aborted', 'message',
                                  'the backend running the chat ended before the run finished (killed, crashed, or the server restarted)')
                    WHERE r.status = 'running' AND r.backend_pid IS NOT NULL
                      AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_stat_activity a
                                       WHERE a.pid OPERATOR(pg_catalog.=) r.backend_pid
                                         AND a.backend_start OPERATOR(pg_catalog.=) r.backend_start)
                   RETURNING 1)
                 SELECT (SELECT count(*) FROM mcp.run WHERE status = 'running' AND backend_pid IS NOT NULL)
                        OPERATOR(pg_catalog.-) (SELECT count(*) FROM gone)",
            )
        })
    });
    match r {
        Ok(Ok(n)) => n.unwrap_or(0),
        Ok(Err(e)) => {
            pgrx::warning!("pg_mcp audit worker: sweep failed: {e}");
            0
        }
        Err(info) => {
            // e.g. pg_mcp not (yet) installed in this database
            pgrx::log!(
                "pg_mcp audit worker: sweep failed: {}: {}",
                info.sqlstate,
                info.message
            );
            0
        }
    }
}
