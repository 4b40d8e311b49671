//! The chat worker: a background worker connected to one database (the database of the backend
//! that queued the run, as the durable audit's worker), started on demand into a slot of the
//! pool ([`super::pool`]). It takes the oldest queued run (`FOR UPDATE SKIP LOCKED`, so workers
//! never take the same run), runs it through `chat::chat` as the submitting role — the user id
//! switched with `SECURITY_LOCAL_USERID_CHANGE`, so the run cannot `SET ROLE` back to the
//! worker's superuser; privileges, row-level security, sandbox and audit are those of a
//! synchronous `mcp.chat` of that role, checked when each tool runs — and stores the result.
//! It ends after [`IDLE_EXIT`] without work, on SIGTERM (PostgreSQL's own `die`: the run's waits
//! see it and stop) and on postmaster death.
//!
//! A run the worker was executing when the server or the worker stopped is not resumed: the next
//! worker of the database, or the sweep after a server start ([`after_restart`]), marks it
//! `aborted`. Queued runs stay queued across a restart, and the sweep starts a worker for them.

use super::pool;
use crate::error::McpError;
use pgrx::bgworkers::{BackgroundWorker, SignalWakeFlags};
use pgrx::prelude::*;
use pgrx::{JsonB, Uuid};
use serde_json::{json, Value};
use std::cell::Cell;
use std::time::{Duration, Instant};

/// A worker without work ends after this long: its slot passes to where work is, and a DROP
/// DATABASE (which waits 5 s for other sessions to leave) does not fail on an idle worker.
const IDLE_EXIT: Duration = Duration::from_secs(2);
/// How often an idle worker looks for queued runs (a submit also sets its latch).
const POLL: Duration = Duration::from_millis(100);

thread_local! {
    /// This process's slot in the pool, when it is a chat worker.
    static SLOT: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Whether the run this worker executes was asked to stop (`mcp.chat_cancel`); false in
/// every other process.
pub fn cancel_requested() -> bool {
    SLOT.with(|s| s.get()).is_some_and(pool::cancel_requested)
}

struct Job {
    run_id: Uuid,
    role: String,
    question: String,
    interface: String,
    session: Option<Uuid>,
    options: Value,
}

#[pg_guard]
unsafe extern "C-unwind" fn on_worker_exit(_code: std::ffi::c_int, arg: pg_sys::Datum) {
    pool::release(arg.value());
}

unsafe extern "C-unwind" {
    /// tcop/postgres.c: the SIGTERM handler of backends (pgrx's `pg_sys::die` is a guarded Rust
    /// wrapper, not a handler PostgreSQL can call).
    #[link_name = "die"]
    fn backend_die(postgres_signal_arg: std::ffi::c_int);
}

fn die_pending() -> bool {
    unsafe { pg_sys::ProcDiePending != 0 }
}

/// Entry point of a chat worker (argument: its slot).
#[pg_guard]
#[no_mangle]
pub extern "C-unwind" fn pg_mcp_chat_worker_main(arg: pg_sys::Datum) {
    let i = unsafe { i32::from_datum(arg, false) }.unwrap_or(-1);
    if i < 0 {
        return;
    }
    let i = i as usize;
    BackgroundWorker::attach_signal_handlers(SignalWakeFlags::SIGHUP);
    // SIGTERM: PostgreSQL's own handler for backends (sets ProcDiePending and the latch): the
    // chat's waits poll it and stop, the loop below ends. (The default of background workers
    // raises FATAL inside the signal handler, through Rust frames.)
    unsafe {
        #[cfg(not(feature = "pg18"))]
        pg_sys::pqsignal(pg_sys::SIGTERM as i32, Some(backend_die));
        #[cfg(feature = "pg18")]
        pg_sys::pqsignal_be(pg_sys::SIGTERM as i32, Some(backend_die));
    }
    let Some(db) = pool::claim(i) else {
        return;
    };
    unsafe { pg_sys::before_shmem_exit(Some(on_worker_exit), pg_sys::Datum::from(i)) };
    SLOT.with(|s| s.set(Some(i)));
    BackgroundWorker::connect_worker_to_spi_by_oid(Some(db), None);
    if !installed() {
        return;
    }
    recover();
    let mut idle_since = Instant::now();
    loop {
        if die_pending() {
            return;
        }
        if let Some(job) = take_run(i) {
            if !execute(i, job) {
                return;
            }
            idle_since = Instant::now();
            continue;
        }
        if idle_since.elapsed() >= IDLE_EXIT {
            return;
        }
        unsafe {
            pg_sys::WaitLatch(
                pg_sys::MyLatch,
                (pg_sys::WL_LATCH_SET | pg_sys::WL_TIMEOUT | pg_sys::WL_EXIT_ON_PM_DEATH) as i32,
                POLL.as_millis() as std::ffi::c_long,
                pg_sys::PG_WAIT_EXTENSION,
            );
            pg_sys::ResetLatch(pg_sys::MyLatch);
        }
        if BackgroundWorker::sighup_received() {
            unsafe { pg_sys::ProcessConfigFile(pg_sys::GucContext::PGC_SIGHUP) };
        }
    }
}

fn installed() -> bool {
    BackgroundWorker::transaction(|| {
        Spi::get_one::<bool>("SELECT pg_catalog.to_regclass('mcp.async_run') IS NOT NULL")
            .ok()
            .flatten()
            .unwrap_or(false)
    })
}

/// Runs left `running` by a worker that is gone are marked `aborted` (and notified).
const RECOVER: &str = "
WITH gone AS (
  UPDATE mcp.async_run r SET status = 'aborted', finished_at = pg_catalog.clock_timestamp(),
         result = pg_catalog.jsonb_build_object('status', 'aborted', 'run_id', r.run_id::text,
                  'error', pg_catalog.jsonb_build_object('kind', 'aborted', 'message',
                  'the server or the chat worker stopped while the run was running; it was not resumed (submit it again)'))
   WHERE r.status = 'running'
     AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_stat_activity a
                      WHERE a.pid OPERATOR(pg_catalog.=) r.worker_pid
                        AND a.backend_start OPERATOR(pg_catalog.=) r.worker_start)
  RETURNING r.run_id)
SELECT pg_catalog.count(pg_catalog.pg_notify('mcp_run',
         pg_catalog.json_build_object('run_id', g.run_id::text, 'status', 'aborted')::text))
  FROM gone g";

fn recover() {
    let r = BackgroundWorker::transaction(|| {
        crate::pg::in_subtransaction_catch_all(|| Spi::get_one::<i64>(RECOVER))
    });
    match r {
        Ok(Ok(Some(n))) if n > 0 => {
            pgrx::log!(
                "pg_mcp chat worker: {n} run(s) left running by a stopped worker marked aborted"
            )
        }
        Ok(Ok(_)) => {}
        Ok(Err(e)) => pgrx::warning!("pg_mcp chat worker: could not mark stale runs aborted: {e}"),
        Err(e) => pgrx::warning!(
            "pg_mcp chat worker: could not mark stale runs aborted: {}: {}",
            e.sqlstate,
            e.message
        ),
    }
}

/// After a server start (from the audit launcher's sweep of each database): runs that were
/// running are marked `aborted`, and a worker is started when runs are queued.
pub fn after_restart() {
    if pool::size() == 0 {
        return;
    }
    let present = BackgroundWorker::transaction(|| {
        Spi::get_one::<bool>("SELECT pg_catalog.to_regclass('mcp.async_run') IS NOT NULL")
            .ok()
            .flatten()
            .unwrap_or(false)
    });
    if !present {
        return;
    }
    recover();
    let queued = BackgroundWorker::transaction(|| {
        Spi::get_one::<bool>("SELECT EXISTS (SELECT 1 FROM mcp.async_run WHERE status = 'queued')")
            .ok()
            .flatten()
            .unwrap_or(false)
    });
    if queued {
        pool::wake_or_start();
    }
}

const TAKE: &str = "
UPDATE mcp.async_run a
   SET status = 'running', started_at = pg_catalog.clock_timestamp(),
       worker_pid = pg_catalog.pg_backend_pid(),
       worker_start = (SELECT s.backend_start FROM pg_catalog.pg_stat_activity s
                        WHERE s.pid OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid())
 WHERE a.run_id OPERATOR(pg_catalog.=) (
       SELECT q.run_id FROM mcp.async_run q WHERE q.status = 'queued'
        ORDER BY q.submitted_at, q.run_id LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING a.run_id, a.role_name::text, a.question, a.interface, a.session_id, a.options,
          EXISTS (SELECT 1 FROM mcp.async_run m WHERE m.status = 'queued'
                     AND m.run_id OPERATOR(pg_catalog.<>) a.run_id)";

/// Take the oldest queued run (committed as `running` before it starts); start another worker
/// when more are queued.
fn take_run(i: usize) -> Option<Job> {
    let r = BackgroundWorker::transaction(|| {
        crate::pg::in_subtransaction_catch_all(|| {
            let taken = Spi::connect_mut(|c| {
                let t = c.update(TAKE, Some(1), &[])?;
                if t.is_empty() {
                    return Ok::<_, pgrx::spi::SpiError>(None);
                }
                let r = t.first();
                let options = r.get::<JsonB>(6)?.map(|j| j.0).unwrap_or_else(|| json!({}));
                Ok(Some((
                    Job {
                        run_id: r
                            .get::<Uuid>(1)?
                            .unwrap_or_else(|| Uuid::from_bytes([0; 16])),
                        role: r.get::<String>(2)?.unwrap_or_default(),
                        question: r.get::<String>(3)?.unwrap_or_default(),
                        interface: r.get::<String>(4)?.unwrap_or_default(),
                        session: r.get::<Uuid>(5)?,
                        options,
                    },
                    r.get::<bool>(7)?.unwrap_or(false),
                )))
            })?;
            if let Some((job, _)) = &taken {
                super::notify(job.run_id, "running")?;
                // The cancel flag is looked up by run: set before the commit shows `running`.
                pool::set_run(i, Some(*job.run_id.as_bytes()));
            }
            Ok::<_, McpError>(taken)
        })
    });
    match r {
        Ok(Ok(Some((job, more)))) => {
            if more {
                pool::wake_or_start();
            }
            Some(job)
        }
        Ok(Ok(None)) => None,
        Ok(Err(e)) => {
            pgrx::warning!("pg_mcp chat worker: could not take a queued run: {e}");
            pool::set_run(i, None);
            None
        }
        Err(e) => {
            pgrx::warning!(
                "pg_mcp chat worker: could not take a queued run: {}: {}",
                e.sqlstate,
                e.message
            );
            pool::set_run(i, None);
            None
        }
    }
}

/// The chat, as the submitting role: `mcp.chat`'s jsonb, or the ERROR it would have raised.
fn run_as(job: &Job) -> Value {
    let oid = super::role_oid(&job.role);
    if oid == pg_sys::Oid::INVALID {
        McpError::UndefinedObject(format!("role \"{}\" does not exist", job.role)).raise();
    }
    let (mut saved_user, mut saved_ctx) = (pg_sys::Oid::INVALID, 0i32);
    // Settings the run changes (a tool's SET, set_config(…, false)) end with it: the worker's
    // next run may be another role's. (On an ERROR the subtransaction's abort undoes them.)
    let nest_level = unsafe { pg_sys::NewGUCNestLevel() };
    unsafe {
        pg_sys::GetUserIdAndSecContext(&mut saved_user, &mut saved_ctx);
        // A local user id change: SET ROLE / SET SESSION AUTHORIZATION are refused inside, so
        // nothing the run executes gets back to the worker's own (superuser) identity. An
        // ERROR undoes the switch with the subtransaction.
        pg_sys::SetUserIdAndSecContext(
            oid,
            saved_ctx | pg_sys::SECURITY_LOCAL_USERID_CHANGE as i32,
        );
    }
    let r = crate::chat::chat_with_run_id(
        &job.question,
        &job.interface,
        job.session,
        &job.options,
        job.run_id,
    );
    unsafe {
        pg_sys::SetUserIdAndSecContext(saved_user, saved_ctx);
        pg_sys::AtEOXact_GUC(false, nest_level);
    }
    match r {
        Ok(v) => v,
        Err(e) => e.raise(),
    }
}

/// What a run may leave in the worker's session besides settings, dropped before the next run
/// (which may be another role's): temporary tables (a later run's unqualified table names would
/// find them first), sequence state, prepared statements, advisory locks, LISTENs.
const RESET_SESSION: [&str; 5] = [
    "DISCARD TEMP",
    "DISCARD SEQUENCES",
    "DEALLOCATE ALL",
    "SELECT pg_catalog.pg_advisory_unlock_all()",
    "UNLISTEN *",
];

/// Drop the run's session state (as the worker, after the run); false when that failed (the
/// worker then ends instead of running another role's chat in that session).
fn reset_session() -> bool {
    let r = crate::pg::in_subtransaction_catch_all(|| {
        RESET_SESSION.iter().try_for_each(|sql| Spi::run(sql))
    });
    match r {
        Ok(Ok(())) => true,
        Ok(Err(e)) => {
            pgrx::warning!("pg_mcp chat worker: could not reset the session after a run: {e}");
            false
        }
        Err(e) => {
            pgrx::warning!(
                "pg_mcp chat worker: could not reset the session after a run: {}: {}",
                e.sqlstate,
                e.message
            );
            false
        }
    }
}

/// Run one job and store its result; false when the worker must end (its session could not be
/// reset).
fn execute(i: usize, job: Job) -> bool {
    let run_id = job.run_id;
    let r = BackgroundWorker::transaction(std::panic::AssertUnwindSafe(|| {
        let outcome = crate::pg::in_subtransaction_catch_all(|| run_as(&job));
        let clean = reset_session();
        let (status, result) = match outcome {
            Ok(v) => ("done", v),
            Err(e) => (
                "error",
                json!({"status": "error", "run_id": run_id.to_string(),
                       "sqlstate": e.sqlstate, "message": e.message}),
            ),
        };
        let stored = crate::pg::in_subtransaction_catch_all(|| {
            crate::pg::write_kept::<i32>(
                "UPDATE mcp.async_run SET status = $2, result = $3, finished_at = pg_catalog.clock_timestamp()
                  WHERE run_id OPERATOR(pg_catalog.=) $1",
                &[run_id.into(), status.into(), JsonB(result).into()],
            )?;
            super::notify(run_id, status)
        });
        (clean, stored)
    }));
    let (clean, r) = r;
    pool::set_run(i, None);
    let failed = match r {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(e.to_string()),
        Err(e) => Some(format!("{}: {}", e.sqlstate, e.message)),
    };
    if let Some(e) = failed {
        pgrx::warning!("pg_mcp chat worker: could not store the result of run {run_id}: {e}");
    }
    clean
}
