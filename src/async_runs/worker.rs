//! The chat worker: a background worker connected to one database (the database of the backend
//! that queued the run, as the durable audit's worker), started on demand into a slot of the
//! pool ([`super::pool`]). It keeps up to `mcp.chat_runs_per_worker` runs in flight at once:
//!
//! * It takes as many queued runs as it has room for in one statement and transaction
//!   (`FOR UPDATE SKIP LOCKED`, so workers never take the same run), and starts the next worker
//!   when more are queued than it has room for. Each run is a future (`chat::chat_async`): the
//!   same checks, tool pipeline, sandbox and audit as a synchronous `mcp.chat`, whose only waits
//!   are its LLM requests.
//! * Those requests go through ONE I/O thread (`mcp_http::multiplex`), which wakes a run when
//!   its answer is in by writing to a socket pair; the main thread sleeps in
//!   `WaitLatchOrSocket` on that socket and its latch, so a submit, a cancel, SIGTERM, SIGHUP
//!   and postmaster death are noticed while runs wait. The I/O thread never calls PostgreSQL.
//! * A woken run is polled on the main thread — one run at a time — in a transaction of its
//!   own ("a step": everything the run does until its next LLM request is under way: its tool
//!   calls, audit rows, the end of the run), as the submitting role: the user id switched with
//!   `SECURITY_LOCAL_USERID_CHANGE` (the run cannot `SET ROLE` back to the worker's superuser),
//!   settings it changes reset after the step, the session's other state dropped after each step
//!   (another role's step may come next). Privileges and row-level security are checked when
//!   each tool runs.
//! * An ERROR in a step ends that run with status `error` (what it committed in earlier steps
//!   stays); the other runs go on.
//! * Commits: a run's take and its end are committed synchronously, its steps in between
//!   without waiting for the WAL flush (`synchronous_commit = off` in the worker's session; the
//!   end's flush covers them). The ends of the runs of one round of steps are stored in one
//!   transaction.
//!
//! It ends after [`IDLE_EXIT`] without work, on SIGTERM (PostgreSQL's own `die`) and on
//! postmaster death. Runs it had in flight then are not resumed: the next worker of the
//! database, or the sweep after a server start ([`after_restart`]), marks them `aborted`.
//! Queued runs stay queued across a restart, and the sweep starts a worker for them.

use super::pool;
use crate::error::{McpError, McpResult};
use pgrx::bgworkers::{BackgroundWorker, SignalWakeFlags};
use pgrx::prelude::*;
use pgrx::{JsonB, Uuid};
use serde_json::{json, Value};
use std::cell::Cell;
use std::collections::HashMap;
use std::future::Future;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

/// A worker without work ends after this long: its slot passes to where work is, and a DROP
/// DATABASE (which waits 5 s for other sessions to leave) does not fail on an idle worker.
const IDLE_EXIT: Duration = Duration::from_secs(2);
/// How often an idle worker looks for queued runs (a submit also sets its latch).
const POLL: Duration = Duration::from_millis(100);
/// How often a worker marks the runs of a stopped worker `aborted` (also at its start).
const RECOVER_EVERY: Duration = Duration::from_secs(5);

thread_local! {
    /// The run being polled; `None` in every other process and between polls.
    static POLLED: Cell<Option<Polled>> = const { Cell::new(None) };
}

/// What a run's interrupt check needs while the run is polled.
#[derive(Clone, Copy)]
struct Polled {
    /// The loop took a cancel of it (`mcp.chat_cancel`) before this poll.
    cancelled: bool,
    /// This worker's slot, the run, and the cancels the loop has taken so far: a cancel asked
    /// during the poll comes after them in the slot's ring.
    slot: usize,
    run: [u8; 16],
    seen: u64,
}

/// Whether the run this worker is polling was asked to stop (`mcp.chat_cancel`); false in
/// every other process. Also a cancel asked while the poll runs: a poll can go from a tool call
/// that waited (for a lock, say) through the next LLM exchange to the run's end without
/// returning to the worker's loop, so the flag the loop set before the poll is not enough.
pub fn cancel_requested() -> bool {
    POLLED
        .with(|p| p.get())
        .is_some_and(|p| p.cancelled || pool::cancel_asked_since(p.slot, p.run, p.seen))
}

/// Whether this process is a chat worker polling a run: the run's steps are transactions of
/// their own, so nothing of it may wait in memory for a later step (`audit::deferred`).
pub fn polling_a_run() -> bool {
    POLLED.with(|p| p.get()).is_some()
}

struct Job {
    run_id: Uuid,
    role: String,
    question: String,
    interface: String,
    session: Option<Uuid>,
    options: Value,
    /// The submit's trace context, for the run's audit rows.
    trace: crate::trace_context::Trace,
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
    let Some(db) = pool::claim(i, runs_per_worker() as u32) else {
        return;
    };
    unsafe { pg_sys::before_shmem_exit(Some(on_worker_exit), pg_sys::Datum::from(i)) };
    BackgroundWorker::connect_worker_to_spi_by_oid(Some(db), None);
    if !installed() {
        return;
    }
    // A run's steps commit without waiting for the WAL flush (a flush per step was most of a
    // worker's time): a run is taken and ended synchronously (`take_runs`, `store`), and the end's
    // flush covers every earlier step of it. What a crash can lose is the last steps of runs that
    // had not ended, and those are marked aborted after the restart anyway.
    BackgroundWorker::transaction(|| unsafe {
        pg_sys::set_config_option(
            c"synchronous_commit".as_ptr(),
            c"off".as_ptr(),
            pg_sys::GucContext::PGC_USERSET,
            pg_sys::GucSource::PGC_S_SESSION,
            pg_sys::GucAction::GUC_ACTION_SET,
            true,
            0,
            false,
        );
    });
    recover();
    let (mux, wake) = match (mcp_chat::Multiplexer::start(), Wakeups::new()) {
        (Ok(m), Ok(w)) => (m, Arc::new(w)),
        (Err(e), _) | (_, Err(e)) => {
            pgrx::warning!("pg_mcp chat worker: could not start its HTTP I/O thread: {e}");
            return;
        }
    };
    let mut runs: HashMap<u64, InFlight> = HashMap::new();
    let mut next_key: u64 = 0;
    let mut cancels_seen: u64 = 0;
    pool::take_cancels(i, &mut cancels_seen);
    let mut look_for_work = true;
    let mut idle_since = Instant::now();
    let mut recovered = Instant::now();
    loop {
        if die_pending() {
            // The runs in flight stay `running` until the next worker (or the sweep) marks
            // them aborted: no SQL runs once a terminate is pending.
            return;
        }
        if recovered.elapsed() >= RECOVER_EVERY {
            recover();
            recovered = Instant::now();
        }
        let cap = runs_per_worker();
        while look_for_work && runs.len() < cap {
            // as many as it has room for, in one transaction
            let room = cap - runs.len();
            let (jobs, more) = take_runs(room);
            if jobs.len() < room || !more {
                look_for_work = false;
            }
            for job in jobs {
                let key = next_key;
                next_key += 1;
                runs.insert(key, InFlight::new(job, key, &mux, &wake));
                wake.push(key);
            }
            // The slot shows the runs before another worker is asked for the rest.
            pool::set_inflight(i, runs.len(), cap);
            if more && runs.len() >= cap {
                pool::wake_or_start();
            }
        }
        pool::set_inflight(i, runs.len(), cap);
        match pool::take_cancels(i, &mut cancels_seen) {
            Some(ids) => {
                for id in ids {
                    if let Some((k, r)) = runs.iter_mut().find(|(_, r)| *r.run_id.as_bytes() == id)
                    {
                        r.cancel = true;
                        wake.push(*k);
                    }
                }
            }
            None => {
                for id in cancelled_runs() {
                    if let Some((k, r)) = runs.iter_mut().find(|(_, r)| r.run_id == id) {
                        r.cancel = true;
                        wake.push(*k);
                    }
                }
            }
        }
        let mut ended = Vec::new();
        let mut clean = true;
        for key in wake.take() {
            let Some(run) = runs.get_mut(&key) else {
                continue; // already ended
            };
            let (end, ok) = step(run, i, cancels_seen);
            if let Some(end) = end {
                let run_id = run.run_id;
                runs.remove(&key);
                ended.push((run_id, end));
                look_for_work = true;
            }
            if !ok {
                clean = false;
                break;
            }
        }
        store(ended);
        if !clean {
            return;
        }
        pool::set_inflight(i, runs.len(), cap);
        if !runs.is_empty() {
            idle_since = Instant::now();
        } else if idle_since.elapsed() >= IDLE_EXIT {
            // Leave the slot first, then look at the queue once more: a submit that committed
            // before the slot was left may have counted on this worker (it set the latch and
            // started none) after this loop's last look; a later submit sees no idle worker
            // here and starts one itself. Without the second look such a run waited for the
            // next submit.
            pool::release(i);
            if queued_runs() {
                pool::wake_or_start();
            }
            return;
        }
        if wake.pending() {
            continue;
        }
        let rc = unsafe {
            pg_sys::WaitLatchOrSocket(
                pg_sys::MyLatch,
                (pg_sys::WL_LATCH_SET
                    | pg_sys::WL_SOCKET_READABLE
                    | pg_sys::WL_TIMEOUT
                    | pg_sys::WL_EXIT_ON_PM_DEATH) as i32,
                wake.fd(),
                POLL.as_millis() as std::ffi::c_long,
                pg_sys::PG_WAIT_EXTENSION,
            )
        };
        if rc & (pg_sys::WL_LATCH_SET | pg_sys::WL_TIMEOUT) as i32 != 0 {
            // A submit (or the poll's time): look for queued runs again.
            look_for_work = true;
        }
        unsafe { pg_sys::ResetLatch(pg_sys::MyLatch) };
        wake.drain();
        if BackgroundWorker::sighup_received() {
            unsafe { pg_sys::ProcessConfigFile(pg_sys::GucContext::PGC_SIGHUP) };
        }
    }
}

/// `mcp.chat_runs_per_worker`.
fn runs_per_worker() -> usize {
    super::RUNS_PER_WORKER
        .get()
        .clamp(1, super::MAX_RUNS_PER_WORKER) as usize
}

/// Which runs are woken: the keys their wakers pushed (from the I/O thread, or from here), and
/// a socket pair whose read end the main thread waits on.
struct Wakeups {
    ready: Mutex<Vec<u64>>,
    tx: UnixStream,
    rx: UnixStream,
}

impl Wakeups {
    fn new() -> std::io::Result<Wakeups> {
        let (tx, rx) = UnixStream::pair()?;
        tx.set_nonblocking(true)?;
        rx.set_nonblocking(true)?;
        Ok(Wakeups {
            ready: Mutex::new(Vec::new()),
            tx,
            rx,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<u64>> {
        self.ready.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Mark `key` ready and wake the main thread (a full socket buffer already wakes it).
    fn push(&self, key: u64) {
        self.lock().push(key);
        let _ = (&self.tx).write(&[1]);
    }

    /// The keys woken since the last call, each once, in the order woken.
    fn take(&self) -> Vec<u64> {
        let mut keys = std::mem::take(&mut *self.lock());
        let mut seen = std::collections::HashSet::new();
        keys.retain(|k| seen.insert(*k));
        keys
    }

    fn pending(&self) -> bool {
        !self.lock().is_empty()
    }

    fn drain(&self) {
        let mut buf = [0u8; 256];
        while matches!((&self.rx).read(&mut buf), Ok(n) if n > 0) {}
    }

    fn fd(&self) -> pg_sys::pgsocket {
        self.rx.as_raw_fd()
    }
}

/// The waker of one run: notes its key (callable from any thread; touches no PostgreSQL state).
struct RunWaker {
    key: u64,
    wake: Arc<Wakeups>,
}

impl Wake for RunWaker {
    fn wake(self: Arc<Self>) {
        self.wake.push(self.key);
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.wake.push(self.key);
    }
}

/// A run in flight in this worker.
struct InFlight {
    run_id: Uuid,
    role: String,
    fut: Pin<Box<dyn Future<Output = McpResult<Value>>>>,
    /// The run's open run in the durable audit, swapped in while it is polled.
    audit: crate::audit::OpenRun,
    /// `mcp.chat_cancel` asked it to stop.
    cancel: bool,
    /// The submit's trace context, current while it is polled.
    trace: crate::trace_context::Trace,
    waker: Waker,
}

impl InFlight {
    fn new(job: Job, key: u64, mux: &mcp_chat::Multiplexer, wake: &Arc<Wakeups>) -> InFlight {
        let mux = mux.clone();
        let (run_id, role, trace) = (job.run_id, job.role.clone(), job.trace.clone());
        let fut = Box::pin(async move {
            crate::chat::chat_async(
                &job.question,
                &job.interface,
                job.session,
                &job.options,
                job.run_id,
                &mux,
            )
            .await
        });
        InFlight {
            run_id,
            role,
            fut,
            audit: None,
            cancel: false,
            trace,
            waker: Waker::from(Arc::new(RunWaker {
                key,
                wake: wake.clone(),
            })),
        }
    }
}

/// How a run ended: `done` with `mcp.chat`'s jsonb, or `error` with the ERROR it raised.
struct End {
    status: &'static str,
    result: Value,
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
  RETURNING r.run_id),
-- their audit run rows too, where the stopped worker had written them in its own steps (the
-- durable audit's worker marks the rows it holds itself)
audit AS (
  UPDATE mcp.run u SET status = 'aborted', finished_at = pg_catalog.clock_timestamp(),
         error = pg_catalog.jsonb_build_object('kind', 'aborted', 'message',
                 'the chat worker running this asynchronous run stopped; the run was not resumed')
   WHERE u.run_id IN (SELECT g.run_id FROM gone g) AND u.status IN ('queued', 'running')
  RETURNING 1)
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
    if queued_runs() {
        pool::wake_or_start();
    }
}

/// Whether runs of this database wait in the queue (false when that cannot be read).
fn queued_runs() -> bool {
    BackgroundWorker::transaction(|| {
        crate::pg::in_subtransaction_catch_all(|| {
            Spi::get_one::<bool>(
                "SELECT EXISTS (SELECT 1 FROM mcp.async_run WHERE status = 'queued')",
            )
        })
    })
    .ok()
    .and_then(|r| r.ok())
    .flatten()
    .unwrap_or(false)
}

/// Take up to $1 of the oldest queued runs in one statement (one transaction, one commit for
/// the batch), notify each as `running`, and say whether more are queued. (The snapshot of the
/// statement still shows the runs it takes as queued: `more` leaves them out.)
const TAKE: &str = "
WITH pick AS (
  SELECT q.run_id FROM mcp.async_run q WHERE q.status = 'queued'
   ORDER BY q.submitted_at, q.run_id LIMIT $1 FOR UPDATE SKIP LOCKED),
taken AS (
  UPDATE mcp.async_run a
     SET status = 'running', started_at = pg_catalog.clock_timestamp(),
         worker_pid = pg_catalog.pg_backend_pid(),
         worker_start = (SELECT s.backend_start FROM pg_catalog.pg_stat_activity s
                          WHERE s.pid OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid())
    FROM pick WHERE a.run_id OPERATOR(pg_catalog.=) pick.run_id
  RETURNING a.run_id, a.role_name, a.question, a.interface, a.session_id, a.options,
            a.traceparent, a.tracestate, a.submitted_at)
SELECT t.run_id, t.role_name::text, t.question, t.interface, t.session_id, t.options,
       EXISTS (SELECT 1 FROM mcp.async_run m WHERE m.status = 'queued'
                  AND m.run_id OPERATOR(pg_catalog.<>) ALL (SELECT p.run_id FROM pick p)),
       t.traceparent, t.tracestate,
       pg_catalog.pg_notify('mcp_run', pg_catalog.json_build_object('run_id', t.run_id::text,
                                                                    'status', 'running')::text)::text
  FROM taken t ORDER BY t.submitted_at, t.run_id";

/// Take up to `n` of the oldest queued runs (committed as `running`, synchronously, before they
/// start), and whether more are queued.
fn take_runs(n: usize) -> (Vec<Job>, bool) {
    let r = BackgroundWorker::transaction(|| {
        crate::pg::local_synchronous_commit(true);
        crate::pg::in_subtransaction_catch_all(|| {
            Spi::connect_mut(|c| {
                let t = c.update(TAKE, None, &[(n.min(i32::MAX as usize) as i32).into()])?;
                let mut jobs = Vec::new();
                let mut more = false;
                for r in t {
                    let options = r.get::<JsonB>(6)?.map(|j| j.0).unwrap_or_else(|| json!({}));
                    more |= r.get::<bool>(7)?.unwrap_or(false);
                    jobs.push(Job {
                        run_id: r
                            .get::<Uuid>(1)?
                            .unwrap_or_else(|| Uuid::from_bytes([0; 16])),
                        role: r.get::<String>(2)?.unwrap_or_default(),
                        question: r.get::<String>(3)?.unwrap_or_default(),
                        interface: r.get::<String>(4)?.unwrap_or_default(),
                        session: r.get::<Uuid>(5)?,
                        options,
                        // checked at submit; checked again, as anything read back
                        trace: mcp_protocol::trace::checked(
                            r.get::<String>(8)?.as_deref(),
                            r.get::<String>(9)?.as_deref(),
                        ),
                    });
                }
                Ok::<_, pgrx::spi::SpiError>((jobs, more))
            })
        })
    });
    match r {
        Ok(Ok(taken)) => taken,
        Ok(Err(e)) => {
            pgrx::warning!("pg_mcp chat worker: could not take queued runs: {e}");
            (Vec::new(), false)
        }
        Err(e) => {
            pgrx::warning!(
                "pg_mcp chat worker: could not take queued runs: {}: {}",
                e.sqlstate,
                e.message
            );
            (Vec::new(), false)
        }
    }
}

/// Poll the run once as its submitting role: its next step, up to its next LLM request under
/// way or its end. A result that is an error is raised (and caught by the caller's
/// subtransaction, like any ERROR of the step). `slot` and `seen`: this worker's slot and the
/// cancels its loop has taken, for the run's interrupt check.
fn poll_as(run: &mut InFlight, slot: usize, seen: u64) -> Poll<Value> {
    let oid = super::role_oid(&run.role);
    if oid == pg_sys::Oid::INVALID {
        McpError::UndefinedObject(format!("role \"{}\" does not exist", run.role)).raise();
    }
    let (mut saved_user, mut saved_ctx) = (pg_sys::Oid::INVALID, 0i32);
    // Settings the step changes (a tool's SET, set_config(…, false)) end with it: the worker's
    // next step may be another role's. (On an ERROR the subtransaction's abort undoes them.)
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
    let mine = crate::audit::swap_open_run(run.audit.take());
    POLLED.with(|p| {
        p.set(Some(Polled {
            cancelled: run.cancel,
            slot,
            run: *run.run_id.as_bytes(),
            seen,
        }))
    });
    let trace = crate::trace_context::RequestTrace::fixed(run.trace.clone());
    let mut cx = Context::from_waker(&run.waker);
    let polled = run.fut.as_mut().poll(&mut cx);
    drop(trace);
    POLLED.with(|p| p.set(None));
    run.audit = crate::audit::swap_open_run(mine);
    unsafe {
        pg_sys::SetUserIdAndSecContext(saved_user, saved_ctx);
        pg_sys::AtEOXact_GUC(false, nest_level);
    }
    match polled {
        Poll::Pending => Poll::Pending,
        Poll::Ready(Ok(v)) => Poll::Ready(v),
        Poll::Ready(Err(e)) => e.raise(),
    }
}

/// One step of `run`, in a transaction of its own: its end, when it ended, and whether the
/// session could be reset after it (if not, the worker ends rather than run another role's
/// step in it). `slot` and `seen` as for [`poll_as`].
fn step(run: &mut InFlight, slot: usize, seen: u64) -> (Option<End>, bool) {
    let run_id = run.run_id;
    BackgroundWorker::transaction(std::panic::AssertUnwindSafe(|| {
        let polled = crate::pg::in_subtransaction_catch_all(|| poll_as(run, slot, seen));
        let clean = reset_session();
        let end = match polled {
            Ok(Poll::Pending) => None,
            Ok(Poll::Ready(v)) => Some(End {
                status: "done",
                result: v,
            }),
            Err(e) => {
                // The ERROR unwound through the run's poll: its future is not polled again.
                // The run's open run in the durable audit is still swapped in: end it.
                POLLED.with(|p| p.set(None));
                crate::audit::fail_open_run(&format!(
                    "the chat worker's step of the run ended with an error: {}",
                    e.message
                ));
                Some(End {
                    status: "error",
                    result: json!({"status": "error", "run_id": run_id.to_string(),
                                   "sqlstate": e.sqlstate, "message": e.message}),
                })
            }
        };
        (end, clean)
    }))
}

/// Store the ends of the runs that ended in one round of steps (and notify them), in one
/// transaction committed synchronously (which also flushes the runs' earlier steps, committed
/// without waiting for the flush). A run that ended with an ERROR: its `mcp.run` row, if no end
/// reached it (an ERROR before the run started, or a step's rolled back), ends `failed`.
fn store(ends: Vec<(Uuid, End)>) {
    if ends.is_empty() {
        return;
    }
    let r = BackgroundWorker::transaction(std::panic::AssertUnwindSafe(|| {
        crate::pg::local_synchronous_commit(true);
        let mut failed = Vec::new();
        for (run_id, end) in ends {
            let error = (end.status == "error").then(|| {
                json!({"kind": "statement_error",
                       "sqlstate": end.result["sqlstate"],
                       "message": format!("the chat worker's step of the run ended with an error: {}",
                                          end.result["message"].as_str().unwrap_or(""))})
            });
            let r = crate::pg::in_subtransaction_catch_all(|| {
                crate::pg::write_kept::<i32>(
                    "UPDATE mcp.async_run SET status = $2, result = $3, finished_at = pg_catalog.clock_timestamp()
                      WHERE run_id OPERATOR(pg_catalog.=) $1",
                    &[run_id.into(), end.status.into(), JsonB(end.result).into()],
                )?;
                if let Some(error) = error {
                    crate::pg::write_kept::<i32>(
                        "UPDATE mcp.run SET status = 'failed', error = $2,
                                finished_at = pg_catalog.clock_timestamp()
                          WHERE run_id OPERATOR(pg_catalog.=) $1 AND status IN ('queued', 'running')",
                        &[run_id.into(), JsonB(error).into()],
                    )?;
                }
                super::notify(run_id, end.status)
            });
            match r {
                Ok(Ok(())) => {}
                Ok(Err(e)) => failed.push((run_id, e.to_string())),
                Err(e) => failed.push((run_id, format!("{}: {}", e.sqlstate, e.message))),
            }
        }
        failed
    }));
    for (run_id, e) in r {
        pgrx::warning!("pg_mcp chat worker: could not store the result of run {run_id}: {e}");
    }
}

/// This worker's running runs whose `cancel_requested` is committed (when more cancels came than
/// the shared ring holds).
fn cancelled_runs() -> Vec<Uuid> {
    let r = BackgroundWorker::transaction(|| {
        crate::pg::in_subtransaction_catch_all(|| {
            Spi::connect(|c| {
                let t = c.select(
                    "SELECT run_id FROM mcp.async_run WHERE status = 'running' AND cancel_requested
                        AND worker_pid OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid()",
                    None,
                    &[],
                )?;
                let mut out = Vec::new();
                for row in t {
                    if let Some(id) = row.get::<Uuid>(1)? {
                        out.push(id);
                    }
                }
                Ok::<_, pgrx::spi::SpiError>(out)
            })
        })
    });
    match r {
        Ok(Ok(v)) => v,
        _ => Vec::new(),
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
