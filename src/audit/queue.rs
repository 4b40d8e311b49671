//! The durable audit's queues in shared memory: [`SLOTS`] queues (byte rings of
//! `mcp.audit_queue_kb`), each used by one database at a time, under one LWLock. Their logic
//! (appending, reading, committing, which database gets which queue) is `mcp_audit::queue`;
//! this file adds what needs the server: the segment, the lock, latches, the condition
//! variable, starting a database's worker, and the catalog check for dropped databases.

use super::gucs::{QUEUE_KB, START_WORKER};
use mcp_audit::queue::{self as q, AppendError, Claim, QueueState, START_GRACE_MS};
use mcp_audit::rows::Record;
use pgrx::bgworkers::{BackgroundWorkerBuilder, BgWorkerStartTime};
use pgrx::pg_sys;
use pgrx::prelude::*;
use serde_json::{json, Value};
use std::cell::Cell;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Databases with a queue of their own.
pub const SLOTS: usize = 8;

#[repr(C)]
pub struct Shared {
    lock: *mut pg_sys::LWLock,
    pub cv: pg_sys::ConditionVariable,
    pub ring_bytes: u64,
    pub queues: [QueueState; SLOTS],
    /// The latch of each queue's worker (null = none).
    pub latches: [*mut pg_sys::Latch; SLOTS],
    /// Whether each queue's worker is waiting for work: set by the worker under the lock only
    /// when its queue is empty, cleared when it wakes ([`Wake::IfIdle`]).
    pub idle: [bool; SLOTS],
}

/// When the worker learns of a record that was appended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Wake {
    /// Set its latch now: someone waits for the record's commit.
    Now,
    /// Set its latch only if it is idle (waiting for work): nobody waits for the record, so a
    /// busy worker takes it with its next batch (many sessions: one transaction for many
    /// records), and an idle one stores it while the run goes on instead of with the run's end,
    /// which the chat waits for.
    IfIdle,
    /// Not now: a record that the caller's next one (which wakes the worker) follows at once,
    /// so that both go in one transaction.
    Later,
}

static SHARED: AtomicPtr<Shared> = AtomicPtr::new(null_mut());
static PRELOADED: AtomicBool = AtomicBool::new(false);
#[cfg(any(feature = "pg15", feature = "pg16", feature = "pg17", feature = "pg18"))]
static mut PREV_SHMEM_REQUEST: pg_sys::shmem_request_hook_type = None;
static mut PREV_SHMEM_STARTUP: pg_sys::shmem_startup_hook_type = None;

const TRANCHE: &std::ffi::CStr = c"pg_mcp_audit";

thread_local! {
    /// Queue slot of this backend's database.
    static SLOT: Cell<Option<usize>> = const { Cell::new(None) };
    /// When this backend last warned that no audit worker could be started.
    static START_WARNED: Cell<Option<Instant>> = const { Cell::new(None) };
    /// Since when this backend's worker starts have been failing (None: the last one worked).
    static START_FAILING: Cell<Option<Instant>> = const { Cell::new(None) };
}

fn header_bytes() -> usize {
    std::mem::size_of::<Shared>().next_multiple_of(64)
}

fn ring_bytes_setting() -> u64 {
    QUEUE_KB.get().max(64) as u64 * 1024
}

fn shmem_size() -> usize {
    header_bytes() + SLOTS * ring_bytes_setting() as usize
}

/// While preloading: ask for the segment and lock, and set it up at startup.
///
/// # Safety
/// From `_PG_init` while `shared_preload_libraries` is processed (single-threaded).
pub unsafe fn install_shmem_hooks() {
    PRELOADED.store(true, Ordering::SeqCst);
    request_shmem();
    PREV_SHMEM_STARTUP = pg_sys::shmem_startup_hook;
    pg_sys::shmem_startup_hook = Some(shmem_startup);
}

/// Whether pg_mcp was loaded by `shared_preload_libraries`.
pub fn preloaded() -> bool {
    PRELOADED.load(Ordering::SeqCst)
}

/// Shared memory and the lock tranche are requested in `shmem_request_hook` (15 and later: the
/// only place they may be requested) ...
#[cfg(any(feature = "pg15", feature = "pg16", feature = "pg17", feature = "pg18"))]
unsafe fn request_shmem() {
    PREV_SHMEM_REQUEST = pg_sys::shmem_request_hook;
    pg_sys::shmem_request_hook = Some(shmem_request);
}

/// ... or, on 14, which has no such hook, directly while the library is preloaded.
#[cfg(feature = "pg14")]
unsafe fn request_shmem() {
    request_shmem_now();
}

#[cfg(any(feature = "pg15", feature = "pg16", feature = "pg17", feature = "pg18"))]
#[pg_guard]
unsafe extern "C-unwind" fn shmem_request() {
    if let Some(prev) = PREV_SHMEM_REQUEST {
        prev();
    }
    request_shmem_now();
}

unsafe fn request_shmem_now() {
    pg_sys::RequestAddinShmemSpace(shmem_size());
    pg_sys::RequestNamedLWLockTranche(TRANCHE.as_ptr(), 1);
}

/// Index of `AddinShmemInitLock` in `MainLWLockArray` (storage/lwlocknames.h; pgrx does not bind
/// the macro). 21 in 14 to 18; a new version must be looked up before it compiles.
#[cfg(any(
    feature = "pg14",
    feature = "pg15",
    feature = "pg16",
    feature = "pg17",
    feature = "pg18"
))]
const ADDIN_SHMEM_INIT_LOCK: usize = 21;

#[pg_guard]
unsafe extern "C-unwind" fn shmem_startup() {
    if let Some(prev) = PREV_SHMEM_STARTUP {
        prev();
    }
    let init_lock = &raw mut (*pg_sys::MainLWLockArray.add(ADDIN_SHMEM_INIT_LOCK)).lock;
    pg_sys::LWLockAcquire(init_lock, pg_sys::LWLockMode::LW_EXCLUSIVE);
    let mut found = false;
    let p =
        pg_sys::ShmemInitStruct(c"pg_mcp_audit".as_ptr(), shmem_size(), &mut found) as *mut Shared;
    if !found {
        std::ptr::write_bytes(p as *mut u8, 0, shmem_size());
        (*p).lock = &raw mut (*pg_sys::GetNamedLWLockTranche(TRANCHE.as_ptr())).lock;
        pg_sys::ConditionVariableInit(&raw mut (*p).cv);
        (*p).ring_bytes = ring_bytes_setting();
    }
    pg_sys::LWLockRelease(init_lock);
    SHARED.store(p, Ordering::SeqCst);
}

/// The shared state, when the segment exists (preloaded).
pub fn shared() -> Option<*mut Shared> {
    let p = SHARED.load(Ordering::SeqCst);
    (!p.is_null()).then_some(p)
}

/// Run `f` on the shared state under its lock (exclusive). `f` must not raise.
pub fn locked<R>(p: *mut Shared, f: impl FnOnce(&mut Shared) -> R) -> R {
    // SAFETY: p points at the initialized shared struct; the LWLock serializes access; on an
    // ERROR while held, PostgreSQL's abort releases all LWLocks.
    unsafe {
        pg_sys::LWLockAcquire((*p).lock, pg_sys::LWLockMode::LW_EXCLUSIVE);
        let r = f(&mut *p);
        pg_sys::LWLockRelease((*p).lock);
        r
    }
}

/// Queue `i`'s ring. Only under the lock.
pub fn ring<'a>(p: *mut Shared, i: usize) -> &'a mut [u8] {
    // SAFETY: inside the segment sized by shmem_size(); callers hold the lock.
    unsafe {
        let cap = (*p).ring_bytes as usize;
        std::slice::from_raw_parts_mut((p as *mut u8).add(header_bytes() + i * cap), cap)
    }
}

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Wake everybody waiting for a commit or for room.
pub fn broadcast(p: *mut Shared) {
    unsafe { pg_sys::ConditionVariableBroadcast(&raw mut (*p).cv) };
}

/// Free the queues of databases that no longer exist (dropped while records were still queued:
/// no worker can ever store them, and the queue would stay taken). Their records are counted
/// failed. Needs a transaction (a syscache lookup of pg_database, a shared catalog).
fn free_queues_of_dropped_databases(p: *mut Shared) {
    if !unsafe { pg_sys::IsTransactionState() } {
        return;
    }
    let held: Vec<(usize, u32)> = locked(p, |sh| {
        sh.queues
            .iter()
            .enumerate()
            .filter(|(_, s)| s.db != q::NO_DB && s.worker_pid == 0)
            .map(|(i, s)| (i, s.db))
            .collect()
    });
    for (i, db) in held {
        let exists = unsafe {
            pg_sys::SearchSysCacheExists(
                pg_sys::SysCacheIdentifier::DATABASEOID as i32,
                pg_sys::Datum::from(pg_sys::Oid::from(db)),
                pg_sys::Datum::from(0),
                pg_sys::Datum::from(0),
                pg_sys::Datum::from(0),
            )
        };
        if exists {
            continue;
        }
        let lost = locked(p, |sh| {
            let s = &mut sh.queues[i];
            (s.db == db && s.worker_pid == 0).then(|| s.discard())
        });
        if let Some(lost) = lost {
            broadcast(p);
            pgrx::log!(
                "pg_mcp: freed the audit queue of dropped database {db} ({lost} records it held could not be stored)"
            );
        }
    }
}

/// Start the database's worker unless one runs or is starting (and starting is allowed).
fn ensure_worker(p: *mut Shared, i: usize) {
    if !START_WORKER.get() {
        return;
    }
    let now = now_ms();
    let start = locked(p, |sh| {
        let s = &mut sh.queues[i];
        if s.worker_pid != 0
            || (s.start_requested_ms != 0 && now - s.start_requested_ms < START_GRACE_MS)
        {
            None
        } else {
            s.start_requested_ms = now;
            Some(s.db)
        }
    });
    let Some(db) = start else { return };
    let started = BackgroundWorkerBuilder::new(&format!("pg_mcp audit writer (database {db})"))
        .set_type("pg_mcp audit writer")
        .set_library("pg_mcp")
        .set_function("pg_mcp_audit_worker_main")
        .set_argument((i as i32).into_datum())
        .enable_spi_access()
        .set_start_time(BgWorkerStartTime::RecoveryFinished)
        .set_restart_time(None)
        .load_dynamic()
        .is_ok();
    if started {
        START_FAILING.with(|f| f.set(None));
        return;
    }
    // Try again in 100 ms (all of max_worker_processes may be busy for a moment, e.g. the
    // writers of other databases before they end); say so once a minute at most.
    locked(p, |sh| {
        sh.queues[i].start_requested_ms = now - START_GRACE_MS + 100
    });
    // (A queue that just passed from another database frees its old worker's process a
    // moment later: only failures that last warn.)
    let failing = START_FAILING.with(|f| {
        let since = f.get().unwrap_or_else(Instant::now);
        f.set(Some(since));
        since
    });
    let warn = failing.elapsed() >= Duration::from_secs(1)
        && START_WARNED.with(|w| {
            let due = w
                .get()
                .is_none_or(|t: Instant| t.elapsed() >= Duration::from_secs(60));
            if due {
                w.set(Some(Instant::now()));
            }
            due
        });
    if warn {
        pgrx::warning!(
            "pg_mcp: could not start the audit worker (max_worker_processes reached?); retrying until mcp.audit_wait_ms"
        );
    }
}

/// Largest record the queue takes: a quarter of a queue, so that a large record never waits
/// for a completely empty queue. Larger rows are cut to it ([`mcp_audit::fit_row`], each cut
/// column's size and SHA-256 in the row's `clipped`), a conversation is split into records of
/// at most this size.
pub fn record_limit() -> usize {
    let cap = shared().map_or_else(ring_bytes_setting, |p| unsafe { (*p).ring_bytes });
    (cap / 4) as usize
}

/// Room the envelope of a record (`{"k": …, "row": …}`) takes besides its row.
pub const ENVELOPE_BYTES: usize = 512;

/// A record's JSON, its row cut to fit [`record_limit`] when it is larger.
fn fitted_json(rec: &Record) -> Vec<u8> {
    let limit = record_limit();
    let bytes = rec.to_json();
    if bytes.len() <= limit {
        return bytes;
    }
    let Ok(mut v) = serde_json::to_value(rec) else {
        return bytes;
    };
    if let Some(Value::Object(o)) = v.get_mut("row") {
        mcp_audit::fit_row(o, limit.saturating_sub(ENVELOPE_BYTES));
    }
    let mut out = serde_json::to_vec(&v).unwrap_or(bytes);
    mcp_audit::rows::without_nul_escapes(&mut out);
    out
}

/// Append one record (cut to fit); waits up to `wait` for room (without CHECK_FOR_INTERRUPTS).
/// Returns the record's queue and sequence number. `wake`: when the worker's latch is set (else
/// it finds the record at the next wake-up or at its poll; a full queue always wakes it).
pub fn enqueue(
    rec: &Record,
    wait: Duration,
    start_worker: bool,
    wake: Wake,
) -> Result<(usize, u64), String> {
    let p = shared().ok_or("pg_mcp is not in shared_preload_libraries")?;
    let bytes = fitted_json(rec);
    let db = unsafe { pg_sys::MyDatabaseId }.to_u32();
    let deadline = Instant::now() + wait;
    loop {
        // The slot is (re)checked under the same lock as the append: an idle slot may have
        // passed to another database since this backend last used it.
        let hint = SLOT.with(|s| s.get());
        let now = now_ms();
        let got = locked(p, |sh| {
            let (c, claimed) = q::claim(&mut sh.queues, db, hint, now);
            if let Some(i) = claimed.took_over {
                let latch = std::mem::replace(&mut sh.latches[i], null_mut());
                if !latch.is_null() {
                    // The previous database's worker: it sees the new generation and ends.
                    // SAFETY: a latch in a PGPROC (shared memory); harmless on a gone owner.
                    unsafe { pg_sys::SetLatch(latch) };
                }
            }
            match c {
                Claim::Queue(i) => {
                    let r = sh.queues[i].append(ring(p, i), &bytes).map_err(Some);
                    let now =
                        r.is_err() || wake == Wake::Now || (wake == Wake::IfIdle && sh.idle[i]);
                    // the latch to set, read under the same lock as the append
                    Some((i, r, if now { sh.latches[i] } else { null_mut() }))
                }
                Claim::Yielding(i) => Some((i, Err(None), sh.latches[i])),
                Claim::Waiting => None,
            }
        });
        let why = match got {
            Some((i, r, latch)) => {
                SLOT.with(|s| s.set(Some(i)));
                if start_worker {
                    ensure_worker(p, i);
                }
                if !latch.is_null() {
                    // SAFETY: the latch lives in the worker's PGPROC (shared memory); SetLatch
                    // on a latch whose owner exited is harmless.
                    unsafe { pg_sys::SetLatch(latch) };
                }
                match r {
                    Ok(seq) => return Ok((i, seq)),
                    Err(None) => "the audit queue stayed in turn with other databases".to_string(),
                    Err(Some(AppendError::TooLarge { bytes, .. })) => {
                        return Err(format!(
                            "the record ({bytes} bytes) is larger than the audit queue (mcp.audit_queue_kb)"
                        ))
                    }
                    Err(Some(AppendError::Full)) => "the audit queue stayed full".to_string(),
                }
            }
            None => {
                if start_worker {
                    free_queues_of_dropped_databases(p);
                }
                "all audit queues stayed in use by other databases".to_string()
            }
        };
        if Instant::now() >= deadline {
            return Err(format!(
                "{why} for {} ms (mcp.audit_wait_ms)",
                wait.as_millis()
            ));
        }
        unsafe { pg_sys::pg_usleep(1000) };
    }
}

/// Wait until the worker stored record `seq` of slot `i`; false after `wait`. Interruptible
/// (cancel raises here, after the record was queued).
pub fn wait_stored(i: usize, seq: u64, wait: Duration) -> bool {
    let Some(p) = shared() else { return false };
    let deadline = Instant::now() + wait;
    let cv = unsafe { &raw mut (*p).cv };
    unsafe { pg_sys::ConditionVariablePrepareToSleep(cv) };
    let ok = loop {
        if locked(p, |sh| sh.queues[i].done >= seq) {
            break true;
        }
        if Instant::now() >= deadline {
            break false;
        }
        ensure_worker(p, i);
        unsafe { pg_sys::ConditionVariableTimedSleep(cv, 10, pg_sys::PG_WAIT_EXTENSION) };
    };
    unsafe { pg_sys::ConditionVariableCancelSleep() };
    ok
}

/// The queues as `mcp.audit_status()` shows them.
pub fn status_json() -> Vec<Value> {
    let Some(p) = shared() else {
        return Vec::new();
    };
    locked(p, |sh| {
        sh.queues
            .iter()
            .filter(|s| s.db != q::NO_DB)
            .map(|s| {
                json!({
                    "database_oid": s.db,
                    "worker_pid": (s.worker_pid != 0).then_some(s.worker_pid),
                    "queued_bytes": s.queued(),
                    "queue_bytes": sh.ring_bytes,
                    "records_queued": s.enqueued,
                    "records_stored": s.done - s.failed,
                    "records_failed": s.failed,
                    "wanted_by_oid": (s.wanted_by != q::NO_DB).then_some(s.wanted_by),
                    "generation": s.generation,
                })
            })
            .collect()
    })
}
