//! Durable audit: audit records of `mcp.chat` runs, and the rows of tool calls made
//! outside a chat (`mcp.call_tool`, MCP `tools/call`), are committed by a pg_mcp
//! background worker in its own transactions, so they outlast the caller's ROLLBACK, ERROR,
//! cancel or termination.
//!
//! * Needs `shared_preload_libraries = 'pg_mcp'` (for the shared memory). Without it, or with
//!   `mcp.audit_durable = off`, the rows are written in the caller's transaction as before (a
//!   NOTICE says so once per session).
//! * Shared memory holds [`SLOTS`] queues (byte rings of `mcp.audit_queue_kb`), each used by one
//!   database at a time (an idle queue passes to another database; when more databases want one
//!   than there are, they take turns: see [`claim`]), under one LWLock. A backend appends a record (JSON) and sets the
//!   worker's latch; the worker of that database (a dynamic background worker, started by the
//!   first backend that needs it, ending after a second without work or open runs, so it never
//!   holds up DROP DATABASE for long) reads a batch, stores every record in its own
//!   subtransaction, commits, and only then moves the queue's tail: a worker that dies loses
//!   nothing, its successor takes the same records again.
//! * Any record is taken (issue 20): a row larger than a quarter of a queue is cut to fit
//!   (`mcp_audit::fit_row`, the cuts' sizes and SHA-256 in its `clipped`), a conversation goes as
//!   several records ([`run_end`]).
//! * Read-only callers too: the worker writes, so a tool call in a read-only transaction is
//!   recorded like any other; without the worker it is refused unless
//!   `mcp.audit_read_only_calls = log` (see `tools::audit::refuse_unrecordable`).
//! * `mcp.audit_synchronous` (on): the run row is committed before the first LLM request and the
//!   run's last record before `mcp.chat` returns. Off: nothing waits; a server crash loses what
//!   the queue held (at most `mcp.audit_queue_kb`), like `synchronous_commit = off`.
//! * Policy when the worker is down or the queue full: a backend waits up to
//!   `mcp.audit_wait_ms` (starting a worker if none runs). If the run's first record cannot be
//!   queued, or (synchronous) is not committed in that time, the chat fails with SQLSTATE 55000
//!   before any LLM request. A later record that cannot be queued is written in the caller's
//!   transaction instead, with a WARNING. Nothing is dropped silently.
//! * Ends the run did not reach itself: an ERROR or cancel that unwinds through the chat records
//!   `cancelled` (57014) or `failed`; a backend that exits during a run (terminate, FATAL)
//!   records `aborted`; a backend that died without running any code (SIGKILL, crash) is found
//!   by the worker, which marks its open runs `aborted` (pid and start time no longer in
//!   pg_stat_activity); after a server start or crash restart the static launcher runs that
//!   sweep in every database at once.

use crate::error::{McpError, McpResult};
use pgrx::bgworkers::{
    BackgroundWorker, BackgroundWorkerBuilder, BgWorkerStartTime, SignalWakeFlags,
};
use pgrx::pg_sys;
use pgrx::pg_sys::panic::CaughtError;
use pgrx::prelude::*;
use pgrx::{GucContext, GucFlags, GucRegistry, GucSetting, JsonB};
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Write audit records through the background worker (when preloaded).
pub static DURABLE: GucSetting<bool> = GucSetting::<bool>::new(true);
/// Wait for the worker's commit of the run row and of the run's end.
pub static SYNCHRONOUS: GucSetting<bool> = GucSetting::<bool>::new(true);
/// Longest wait for queue space or a commit.
pub static WAIT_MS: GucSetting<i32> = GucSetting::<i32>::new(5000);
/// Backends start the worker when none runs (off: hold audit writing, e.g. for maintenance).
pub static START_WORKER: GucSetting<bool> = GucSetting::<bool>::new(true);
/// Size of each database's queue.
pub static QUEUE_KB: GucSetting<i32> = GucSetting::<i32>::new(1024);

/// What a tool call in a read-only transaction does when the durable audit worker cannot write
/// its row (issue 20): the caller cannot write it there.
#[derive(pgrx::PostgresGucEnum, Clone, Copy, PartialEq, Eq, Debug)]
pub enum ReadOnlyCalls {
    /// Refused before it runs (25006).
    #[name = c"refuse"]
    Refuse,
    /// Runs; the server log is its only record.
    #[name = c"log"]
    Log,
}
pub static READ_ONLY_CALLS: GucSetting<ReadOnlyCalls> =
    GucSetting::<ReadOnlyCalls>::new(ReadOnlyCalls::Refuse);

/// Whether a tool call in a read-only transaction without the durable worker may run with the
/// server log as its record (`mcp.audit_read_only_calls = log`).
pub fn log_read_only_calls() -> bool {
    READ_ONLY_CALLS.get() == ReadOnlyCalls::Log
}

/// Databases with a queue of their own.
const SLOTS: usize = 8;
/// A record at most this many per worker transaction.
const BATCH_RECORDS: usize = 256;
/// The worker ends after this long without records and without open runs.
const WORKER_IDLE_EXIT: Duration = Duration::from_secs(1);
/// How often the worker looks for runs of backends that are gone.
const SWEEP_EVERY: Duration = Duration::from_millis(500);
/// A requested worker start counts as under way for this long.
const START_GRACE_MS: i64 = 10_000;
/// A database keeps a queue at least this long before it passes to a waiting database.
const QUANTUM_MS: i64 = 500;
/// A waiting database renews its want while it polls (every millisecond); an older want lapses.
const WANT_TTL_MS: i64 = 200;

#[repr(C)]
struct Slot {
    /// Database of this queue; InvalidOid = free.
    db: pg_sys::Oid,
    worker_pid: i32,
    /// Wall-clock ms when a backend asked for a worker (0 = none pending).
    start_requested_ms: i64,
    worker_latch: *mut pg_sys::Latch,
    /// Byte positions (monotonic; modulo the ring size in the ring).
    head: u64,
    tail: u64,
    /// Records queued / stored (or given up, see `failed`) so far.
    enqueued: u64,
    done: u64,
    failed: u64,
    /// Wall-clock ms when the current database claimed the queue.
    claimed_ms: i64,
    /// A database without a queue that waits for this one (InvalidOid = none), and when it
    /// last said so (a want lapses after [`WANT_TTL_MS`] without renewal).
    wanted_by: pg_sys::Oid,
    wanted_ms: i64,
    /// Owner generation: +1 at every change of database; a worker serves one generation.
    generation: u64,
}

#[repr(C)]
struct Shared {
    lock: *mut pg_sys::LWLock,
    cv: pg_sys::ConditionVariable,
    ring_bytes: u64,
    slots: [Slot; SLOTS],
}

static SHARED: AtomicPtr<Shared> = AtomicPtr::new(null_mut());
static PRELOADED: AtomicBool = AtomicBool::new(false);
#[cfg(any(feature = "pg15", feature = "pg16", feature = "pg17", feature = "pg18"))]
static mut PREV_SHMEM_REQUEST: pg_sys::shmem_request_hook_type = None;
static mut PREV_SHMEM_STARTUP: pg_sys::shmem_startup_hook_type = None;

const TRANCHE: &std::ffi::CStr = c"pg_mcp_audit";

fn header_bytes() -> usize {
    std::mem::size_of::<Shared>().next_multiple_of(64)
}

fn ring_bytes_setting() -> u64 {
    QUEUE_KB.get().max(64) as u64 * 1024
}

fn shmem_size() -> usize {
    header_bytes() + SLOTS * ring_bytes_setting() as usize
}

pub fn init() {
    GucRegistry::define_bool_guc(
        c"mcp.audit_durable",
        c"Write audit records (mcp.chat runs, tool calls) through pg_mcp's background worker, independent of the caller's transaction.",
        c"Needs shared_preload_libraries = 'pg_mcp'. Off (or without the preload): the rows are written in the caller's transaction and vanish when it rolls back.",
        &DURABLE,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_bool_guc(
        c"mcp.audit_synchronous",
        c"Wait for the audit worker's commit of a run's first and last record and of a tool call's row.",
        c"On: the run row is committed before the first LLM request and the run's end before mcp.chat returns. Off: nothing waits; a server crash loses what the queue held.",
        &SYNCHRONOUS,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"mcp.audit_wait_ms",
        c"Longest wait for space in the audit queue or for the audit worker's commit.",
        c"A run whose first record is not queued (or, synchronous, not committed) in this time fails before any LLM request; a later record is written in the caller's transaction with a WARNING.",
        &WAIT_MS,
        0,
        600_000,
        GucContext::Suset,
        GucFlags::UNIT_MS,
    );
    GucRegistry::define_enum_guc(
        c"mcp.audit_read_only_calls",
        c"Tool calls in a read-only transaction without the durable audit worker: refuse (their audit row cannot be written) or log (run them, recorded in the server log only).",
        c"With the durable audit worker a read-only caller's tool calls are recorded as any other (the worker writes the row). Without it (not preloaded, mcp.audit_durable off, a standby) refuse raises 25006 before the tool runs.",
        &READ_ONLY_CALLS,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_bool_guc(
        c"mcp.audit_start_worker",
        c"Start the audit worker of this database when none runs.",
        c"Off holds audit writing (records stay queued, then the mcp.audit_wait_ms policy applies).",
        &START_WORKER,
        GucContext::Suset,
        GucFlags::default(),
    );
    // SAFETY: _PG_init runs single-threaded; the hooks are PostgreSQL's documented chain.
    unsafe {
        if !pg_sys::process_shared_preload_libraries_in_progress {
            // (A PGC_POSTMASTER setting can only be defined while preloading: FATAL otherwise.)
            return;
        }
        GucRegistry::define_int_guc(
            c"mcp.audit_queue_kb",
            c"Size of each of the 8 audit queues in shared memory (each used by one database at a time).",
            c"Needs a server restart.",
            &QUEUE_KB,
            64,
            1024 * 1024,
            GucContext::Postmaster,
            GucFlags::UNIT_KB,
        );
        PRELOADED.store(true, Ordering::SeqCst);
        register_launcher();
        request_shmem();
        PREV_SHMEM_STARTUP = pg_sys::shmem_startup_hook;
        pg_sys::shmem_startup_hook = Some(shmem_startup);
    }
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

fn shared() -> Option<*mut Shared> {
    let p = SHARED.load(Ordering::SeqCst);
    (!p.is_null()).then_some(p)
}

/// Run `f` on the shared state under its lock (exclusive). `f` must not raise.
fn locked<R>(p: *mut Shared, f: impl FnOnce(&mut Shared) -> R) -> R {
    // SAFETY: p points at the initialized shared struct; the LWLock serializes access; on an
    // ERROR while held, PostgreSQL's abort releases all LWLocks.
    unsafe {
        pg_sys::LWLockAcquire((*p).lock, pg_sys::LWLockMode::LW_EXCLUSIVE);
        let r = f(&mut *p);
        pg_sys::LWLockRelease((*p).lock);
        r
    }
}

fn ring_of(p: *mut Shared, slot: usize) -> *mut u8 {
    // SAFETY: inside the segment sized by shmem_size().
    unsafe { (p as *mut u8).add(header_bytes() + slot * (*p).ring_bytes as usize) }
}

fn ring_copy_in(ring: *mut u8, cap: u64, pos: u64, data: &[u8]) {
    let start = (pos % cap) as usize;
    let first = data.len().min(cap as usize - start);
    // SAFETY: both ranges lie inside the ring of `cap` bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(data.as_ptr(), ring.add(start), first);
        std::ptr::copy_nonoverlapping(data.as_ptr().add(first), ring, data.len() - first);
    }
}

fn ring_copy_out(ring: *mut u8, cap: u64, pos: u64, out: &mut [u8]) {
    let start = (pos % cap) as usize;
    let first = out.len().min(cap as usize - start);
    // SAFETY: as above.
    unsafe {
        std::ptr::copy_nonoverlapping(ring.add(start), out.as_mut_ptr(), first);
        std::ptr::copy_nonoverlapping(ring, out.as_mut_ptr().add(first), out.len() - first);
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// `YYYY-MM-DD HH:MM:SS.ffffff+00` for microseconds since the Unix epoch (what jsonb_populate_record
/// reads as timestamptz whatever the session's DateStyle).
fn timestamp_text(unix_us: i64) -> String {
    let secs = unix_us.div_euclid(1_000_000);
    let us = unix_us.rem_euclid(1_000_000);
    let days = secs.div_euclid(86_400);
    let tod = secs.rem_euclid(86_400);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{us:06}+00",
        tod / 3600,
        tod / 60 % 60,
        tod % 60
    )
}

/// The current time as timestamptz text.
pub fn now_text() -> String {
    let us = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64);
    timestamp_text(us)
}

/// U+0000 cannot be stored in text or jsonb: replaced by U+FFFD in every string and key.
fn without_nul(v: Value) -> Value {
    match v {
        Value::String(s) if s.contains('\0') => Value::String(s.replace('\0', "\u{FFFD}")),
        Value::Array(a) => Value::Array(a.into_iter().map(without_nul).collect()),
        Value::Object(o) => Value::Object(
            o.into_iter()
                .map(|(k, v)| (k.replace('\0', "\u{FFFD}"), without_nul(v)))
                .collect(),
        ),
        other => other,
    }
}

// ------------------------------------------------------------------------------------------
// Backend side
// ------------------------------------------------------------------------------------------

thread_local! {
    /// The run this backend has started through the worker and not yet ended: (run id, session).
    static OPEN_RUN: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
    static NOTICED: Cell<bool> = const { Cell::new(false) };
    static EXIT_HOOKS: Cell<bool> = const { Cell::new(false) };
    /// Queue slot of this backend's database.
    static SLOT: Cell<Option<usize>> = const { Cell::new(None) };
    /// When this backend last warned that no audit worker could be started.
    static START_WARNED: Cell<Option<Instant>> = const { Cell::new(None) };
    /// Since when this backend's worker starts have been failing (None: the last one worked).
    static START_FAILING: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Whether this session's audit records go through the worker.
pub fn durable() -> bool {
    PRELOADED.load(Ordering::SeqCst)
        && shared().is_some()
        && DURABLE.get()
        && unsafe { pg_sys::MyDatabaseId != pg_sys::Oid::INVALID && !pg_sys::RecoveryInProgress() }
}

/// What [`claim`] found for a database.
enum Claim {
    /// The database's queue: append.
    Queue(usize),
    /// The database's queue, passing to a waiting database: no new records until it passed
    /// (the worker drains what is queued; the database then waits for a queue like any other).
    Yielding(usize),
    /// No queue yet: every queue is in use, and a want is registered on the one held longest.
    Waiting,
}

/// The queue slot of database `db` (called under the lock): its own; else a free one; else one
/// that is idle (nothing queued, no worker running or starting); else one this database waits
/// for that has drained. A slot's positions and counters continue across owners: sequence
/// numbers stay monotonic, so a backend still waiting for a record of the previous owner sees it
/// done.
///
/// Fair sharing (issue 20): more databases than [`SLOTS`] take turns. A database that finds no
/// queue registers a want on the queue held longest (not wanted by another); once that queue's
/// owner has held it for [`QUANTUM_MS`] it takes no new records, its worker drains it and the
/// waiting database takes it over (the old worker sees the new generation and ends). So one role
/// connected to many databases cannot keep the queues (or their workers) from everybody else;
/// each active database gets a queue within about a quantum plus a worker start.
fn claim(sh: &mut Shared, db: pg_sys::Oid, hint: Option<usize>, now: i64) -> Claim {
    let wanted = |s: &Slot| {
        s.wanted_by != pg_sys::Oid::INVALID
            && s.wanted_by != s.db
            && now - s.wanted_ms < WANT_TTL_MS
    };
    let own = hint
        .filter(|&i| sh.slots[i].db == db)
        .or_else(|| sh.slots.iter().position(|s| s.db == db));
    if let Some(i) = own {
        let s = &sh.slots[i];
        return if wanted(s) && now - s.claimed_ms >= QUANTUM_MS {
            Claim::Yielding(i)
        } else {
            Claim::Queue(i)
        };
    }
    let free = sh
        .slots
        .iter()
        .position(|s| s.db == pg_sys::Oid::INVALID)
        .or_else(|| {
            sh.slots.iter().position(|s| {
                s.head == s.tail
                    && s.worker_pid == 0
                    && (s.start_requested_ms == 0 || now - s.start_requested_ms >= START_GRACE_MS)
            })
        })
        .or_else(|| {
            sh.slots.iter().position(|s| {
                s.wanted_by == db
                    && wanted(s)
                    && s.head == s.tail
                    && now - s.claimed_ms >= QUANTUM_MS
            })
        });
    let Some(i) = free else {
        // Renew this database's want, or register one on the queue held longest among those
        // no other database waits for, preferring one that drains (its worker runs, or nothing
        // is queued): a queue whose worker cannot start yet would keep the waiter waiting.
        // (Chosen again at every poll: the best queue to wait for changes as workers come and go.)
        for s in sh.slots.iter_mut().filter(|s| s.wanted_by == db) {
            s.wanted_by = pg_sys::Oid::INVALID;
        }
        if let Some(s) = sh
            .slots
            .iter_mut()
            .filter(|s| !(s.wanted_by != pg_sys::Oid::INVALID && now - s.wanted_ms < WANT_TTL_MS))
            .min_by_key(|s| (s.worker_pid == 0 && s.head != s.tail, s.claimed_ms))
        {
            s.wanted_by = db;
            s.wanted_ms = now;
        }
        return Claim::Waiting;
    };
    // This database has a queue now: its wants elsewhere end (they would make an owner pause).
    for s in sh.slots.iter_mut().filter(|s| s.wanted_by == db) {
        s.wanted_by = pg_sys::Oid::INVALID;
    }
    let s = &mut sh.slots[i];
    if !s.worker_latch.is_null() {
        // The previous database's worker: it sees the new generation and ends.
        // SAFETY: a latch in a PGPROC (shared memory); SetLatch on a gone owner is harmless.
        unsafe { pg_sys::SetLatch(s.worker_latch) };
    }
    s.db = db;
    s.generation += 1;
    s.worker_pid = 0;
    s.worker_latch = null_mut();
    s.start_requested_ms = 0;
    s.claimed_ms = now;
    s.wanted_by = pg_sys::Oid::INVALID;
    s.wanted_ms = 0;
    Claim::Queue(i)
}

/// Free the queues of databases that no longer exist (dropped while records were still queued:
/// no worker can ever store them, and the queue would stay taken). Their records are counted
/// failed. Needs a transaction (a syscache lookup of pg_database, a shared catalog).
fn free_queues_of_dropped_databases(p: *mut Shared) {
    if !unsafe { pg_sys::IsTransactionState() } {
        return;
    }
    let held: Vec<(usize, pg_sys::Oid)> = locked(p, |sh| {
        sh.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.db != pg_sys::Oid::INVALID && s.worker_pid == 0)
            .map(|(i, s)| (i, s.db))
            .collect()
    });
    for (i, db) in held {
        let exists = unsafe {
            pg_sys::SearchSysCacheExists(
                pg_sys::SysCacheIdentifier::DATABASEOID as i32,
                pg_sys::Datum::from(db),
                pg_sys::Datum::from(0),
                pg_sys::Datum::from(0),
                pg_sys::Datum::from(0),
            )
        };
        if exists {
            continue;
        }
        let lost = locked(p, |sh| {
            let s = &mut sh.slots[i];
            if s.db != db || s.worker_pid != 0 {
                return None;
            }
            let lost = s.enqueued - s.done;
            s.failed += lost;
            s.done = s.enqueued;
            s.tail = s.head;
            s.db = pg_sys::Oid::INVALID;
            s.generation += 1;
            s.start_requested_ms = 0;
            s.wanted_by = pg_sys::Oid::INVALID;
            Some(lost)
        });
        if let Some(lost) = lost {
            unsafe { pg_sys::ConditionVariableBroadcast(&raw mut (*p).cv) };
            pgrx::log!(
                "pg_mcp: freed the audit queue of dropped database {} ({lost} records it held could not be stored)",
                db.to_u32()
            );
        }
    }
}

fn wake_worker(p: *mut Shared, i: usize) {
    let latch = locked(p, |sh| sh.slots[i].worker_latch);
    if !latch.is_null() {
        // SAFETY: the latch lives in the worker's PGPROC (shared memory); SetLatch on a latch
        // whose owner exited is harmless.
        unsafe { pg_sys::SetLatch(latch) };
    }
}

/// Start the database's worker unless one runs or is starting (and starting is allowed).
fn ensure_worker(p: *mut Shared, i: usize) {
    if !START_WORKER.get() {
        return;
    }
    let now = now_ms();
    let start = locked(p, |sh| {
        let s = &mut sh.slots[i];
        if s.worker_pid != 0
            || (s.start_requested_ms != 0 && now - s.start_requested_ms < START_GRACE_MS)
        {
            false
        } else {
            s.start_requested_ms = now;
            true
        }
    });
    if !start {
        return;
    }
    let db = locked(p, |sh| sh.slots[i].db);
    let started =
        BackgroundWorkerBuilder::new(&format!("pg_mcp audit writer (database {})", db.to_u32()))
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
    } else {
        // Try again in 100 ms (all of max_worker_processes may be busy for a moment, e.g. the
        // writers of other databases before they end); say so once a minute at most.
        locked(p, |sh| {
            sh.slots[i].start_requested_ms = now - START_GRACE_MS + 100
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
}

/// Append one record; waits up to `wait` for space (without CHECK_FOR_INTERRUPTS). Returns the
/// record's sequence number.
fn enqueue(record: Value, wait: Duration, start_worker: bool) -> Result<(usize, u64), String> {
    let p = shared().ok_or("pg_mcp is not in shared_preload_libraries")?;
    let bytes = serde_json::to_vec(&without_nul(record)).map_err(|e| e.to_string())?;
    let need = 4 + bytes.len() as u64;
    let cap = unsafe { (*p).ring_bytes };
    if need > cap {
        return Err(format!(
            "the record ({} bytes) is larger than the audit queue (mcp.audit_queue_kb)",
            bytes.len()
        ));
    }
    let db = unsafe { pg_sys::MyDatabaseId };
    let deadline = Instant::now() + wait;
    loop {
        // The slot is (re)checked under the same lock as the append: an idle slot may have
        // passed to another database since this backend last used it.
        let hint = SLOT.with(|s| s.get());
        let now = now_ms();
        let got = locked(p, |sh| {
            let i = match claim(sh, db, hint, now) {
                Claim::Queue(i) => i,
                Claim::Yielding(i) => return Some((i, None, true)),
                Claim::Waiting => return None,
            };
            let s = &mut sh.slots[i];
            if cap - (s.head - s.tail) < need {
                return Some((i, None, false));
            }
            let ring = ring_of(p, i);
            ring_copy_in(ring, cap, s.head, &(bytes.len() as u32).to_le_bytes());
            ring_copy_in(ring, cap, s.head + 4, &bytes);
            s.head += need;
            s.enqueued += 1;
            Some((i, Some(s.enqueued), false))
        });
        let full = match got {
            Some((i, seq, yielding)) => {
                SLOT.with(|s| s.set(Some(i)));
                if start_worker {
                    ensure_worker(p, i);
                }
                wake_worker(p, i);
                if let Some(seq) = seq {
                    return Ok((i, seq));
                }
                if yielding {
                    "the audit queue stayed in turn with other databases"
                } else {
                    "the audit queue stayed full"
                }
            }
            None => {
                if start_worker {
                    free_queues_of_dropped_databases(p);
                }
                "all audit queues stayed in use by other databases"
            }
        };
        if Instant::now() >= deadline {
            return Err(format!(
                "{full} for {} ms (mcp.audit_wait_ms)",
                wait.as_millis()
            ));
        }
        unsafe { pg_sys::pg_usleep(1000) };
    }
}

/// Wait until the worker stored record `seq` of slot `i`; false after `wait`. Interruptible
/// (cancel raises here, after the record was queued).
fn wait_stored(i: usize, seq: u64, wait: Duration) -> bool {
    let Some(p) = shared() else { return false };
    let deadline = Instant::now() + wait;
    let cv = unsafe { &raw mut (*p).cv };
    unsafe { pg_sys::ConditionVariablePrepareToSleep(cv) };
    let ok = loop {
        if locked(p, |sh| sh.slots[i].done >= seq) {
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

fn wait_budget() -> Duration {
    Duration::from_millis(WAIT_MS.get().max(0) as u64)
}

/// Largest record the queue takes (issue 20): a quarter of a queue, so that a large record
/// never waits for a completely empty queue. Larger rows are cut to it ([`mcp_audit::fit_row`],
/// each cut column's size and SHA-256 in the row's `clipped`), a conversation is split into
/// records of at most this size.
fn record_limit() -> usize {
    let cap = shared().map_or_else(ring_bytes_setting, |p| unsafe { (*p).ring_bytes });
    (cap / 4) as usize
}

/// Room the envelope of a record (`{"k": …, "table": …, "row": …}`) takes besides its row.
const ENVELOPE_BYTES: usize = 512;

/// `row` cut to fit one record (see [`record_limit`]).
fn fitted(mut row: Value, limit: usize) -> Value {
    if let Value::Object(o) = &mut row {
        mcp_audit::fit_row(o, limit.saturating_sub(ENVELOPE_BYTES));
    }
    row
}

/// Once per session without the worker: say where the audit rows go.
fn notice_local() {
    if NOTICED.with(|n| n.replace(true)) {
        return;
    }
    if !PRELOADED.load(Ordering::SeqCst) {
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

/// The run's first record (`row`: its mcp.run columns). Ok(false): not durable, the caller
/// writes the row itself. Err: the policy says the chat must not start.
pub fn run_start(row: Value) -> McpResult<bool> {
    if !durable() {
        notice_local();
        return Ok(false);
    }
    register_exit_hooks();
    let run_id = row["run_id"].as_str().unwrap_or_default().to_string();
    let session = row["session_id"].as_str().unwrap_or_default().to_string();
    let mut row = row;
    if let Value::Object(o) = &mut row {
        o.insert("backend_pid".into(), json!(unsafe { pg_sys::MyProcPid }));
        let start_us = unsafe { pg_sys::MyStartTimestamp } + 946_684_800_000_000; // 2000 → 1970
        o.insert("backend_start".into(), json!(timestamp_text(start_us)));
        o.entry("started_at").or_insert_with(|| json!(now_text()));
    }
    let unavailable = |why: String| {
        McpError::NotReady(format!("pg_mcp's audit worker did not take the run's record: {why}"))
            .with_hint("The chat was not started (no LLM request was sent). Check that the audit worker can run (max_worker_processes, mcp.audit_start_worker) or raise mcp.audit_wait_ms.")
    };
    let row = fitted(row, record_limit());
    let (i, seq) =
        enqueue(json!({"k": "run_start", "row": row}), wait_budget(), true).map_err(unavailable)?;
    OPEN_RUN.with(|o| *o.borrow_mut() = Some((run_id.clone(), session)));
    if SYNCHRONOUS.get() && !wait_stored(i, seq, wait_budget()) {
        // Queued but not stored in time: end it right away, so the row that lands later is
        // not left 'running'.
        end_open_run(
            "failed",
            json!({"kind": "audit_unavailable", "message": "the audit worker did not commit the run's first record within mcp.audit_wait_ms; the chat was not started"}),
        );
        return Err(unavailable(format!(
            "not committed within {} ms (mcp.audit_wait_ms)",
            wait_budget().as_millis()
        )));
    }
    Ok(true)
}

/// Whether this backend has a run open through the worker (its records go to the queue).
pub fn recording() -> bool {
    OPEN_RUN.with(|o| o.borrow().is_some())
}

/// An audit record for `table` (`llm_request`, `tool_call` or `embedding_request`, its columns in `row`) through the
/// worker. A record of a run (its `run_id` set) goes to the queue while this backend has the run
/// open through the worker. A record of its own (no `run_id`: `mcp.call_tool`, MCP
/// `tools/call`) goes there whenever the durable audit is on, so that it outlasts the caller's
/// transaction like a run's records and a read-only call leaves the caller's transaction
/// without a write; in synchronous mode it waits for the worker's commit. False: the caller
/// writes the row itself (not durable, or the queue did not take it: WARNING).
pub fn append(table: &'static str, row: Value) -> bool {
    let own = row.get("run_id").is_none_or(Value::is_null);
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
    let mut row = row;
    if let Value::Object(o) = &mut row {
        o.entry("created_at").or_insert_with(|| json!(now_text()));
    }
    let row = fitted(row, record_limit());
    match enqueue(
        json!({"k": "insert", "table": table, "row": row}),
        wait_budget(),
        true,
    ) {
        Ok((i, seq)) => {
            if own && SYNCHRONOUS.get() && !wait_stored(i, seq, wait_budget()) {
                pgrx::warning!(
                    "pg_mcp: an audit record ({table}) is queued for the audit worker but not yet committed (mcp.audit_wait_ms)"
                );
            }
            true
        }
        Err(why) => {
            pgrx::warning!(
                "pg_mcp: audit record ({table}){whose} written in the caller's transaction instead: {why}"
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

/// The run's last records: `run` holds the mcp.run columns to set, `messages`/`message_cuts`
/// the conversation. The conversation goes in records of at most [`record_limit`] bytes (a
/// message larger than half of it is cut, its size and SHA-256 in its cut log), then the run's
/// end, so that any conversation is taken (issue 20). Returns what the caller still has to
/// write itself: `None` = nothing; otherwise (not durable, or the queue did not take a record
/// within `mcp.audit_wait_ms`: WARNING) the part that was not queued.
pub fn run_end(run: Value, messages: Vec<Value>, message_cuts: Vec<Value>) -> Option<EndLeft> {
    let total = messages.len();
    let Some((run_id, session)) = OPEN_RUN.with(|o| o.borrow_mut().take()) else {
        return Some(EndLeft {
            run: true,
            messages_from: 0,
        });
    };
    let limit = record_limit();
    let mut run = fitted(run, limit);
    if let Value::Object(o) = &mut run {
        o.insert("run_id".into(), json!(run_id));
        o.entry("finished_at").or_insert_with(|| json!(now_text()));
    }
    let mut messages_from = total;
    for b in mcp_audit::batch_messages(messages, message_cuts, limit.saturating_sub(ENVELOPE_BYTES))
    {
        let rec = json!({"k": "messages", "session_id": session, "run_id": run_id,
                         "offset": b.offset, "messages": b.messages, "message_cuts": b.cuts});
        if let Err(why) = enqueue(rec, wait_budget(), true) {
            pgrx::warning!(
                "pg_mcp: the conversation of run {run_id} from message {} on is written in the caller's transaction instead: {why}",
                b.offset
            );
            messages_from = b.offset;
            break;
        }
    }
    let end = json!({"k": "run_end", "run": run, "session_id": session, "run_id": run_id});
    match enqueue(end, wait_budget(), true) {
        Ok((i, seq)) => {
            if SYNCHRONOUS.get() && !wait_stored(i, seq, wait_budget()) {
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
    let Some((run_id, session)) = OPEN_RUN.with(|o| o.borrow_mut().take()) else {
        return;
    };
    let rec = json!({"k": "run_end", "run_id": run_id, "session_id": session,
                     "run": {"run_id": run_id, "status": status, "error": error, "finished_at": now_text()}});
    if let Err(why) = enqueue(rec, Duration::from_millis(200), false) {
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

// ------------------------------------------------------------------------------------------
// The worker
// ------------------------------------------------------------------------------------------

#[pg_guard]
unsafe extern "C-unwind" fn on_worker_exit(_code: std::ffi::c_int, arg: pg_sys::Datum) {
    let i = arg.value();
    if let Some(p) = shared() {
        locked(p, |sh| {
            let s = &mut sh.slots[i];
            if s.worker_pid == pg_sys::MyProcPid {
                s.worker_pid = 0;
                s.worker_latch = null_mut();
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
        let s = &mut sh.slots[i];
        if s.db == pg_sys::Oid::INVALID || s.worker_pid != 0 {
            return None; // free, or a second start raced with the first
        }
        s.worker_pid = unsafe { pg_sys::MyProcPid };
        s.worker_latch = unsafe { pg_sys::MyLatch };
        s.start_requested_ms = 0;
        Some((s.db, s.generation))
    });
    let Some((db, generation)) = claimed else {
        return;
    };
    unsafe { pg_sys::before_shmem_exit(Some(on_worker_exit), pg_sys::Datum::from(i)) };
    BackgroundWorker::connect_worker_to_spi_by_oid(Some(db), None);
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
                let s = &mut sh.slots[i];
                if s.generation != generation {
                    true
                } else if s.head == s.tail {
                    s.worker_pid = 0;
                    s.worker_latch = null_mut();
                    true
                } else {
                    false
                }
            });
            if exit {
                return;
            }
        }
        if n == 0 && !BackgroundWorker::wait_latch(Some(Duration::from_millis(100))) {
            drain(p, i, generation);
            return;
        }
        if BackgroundWorker::sighup_received() {
            unsafe { pg_sys::ProcessConfigFile(pg_sys::GucContext::PGC_SIGHUP) };
        }
    }
}

/// The static worker that sweeps every database once per server start (and after every crash
/// restart): runs a backend left `running` when it was killed are marked `aborted` right away, not
/// only when that database's next chat starts its audit worker. It stays, idle, afterwards (a
/// static worker that ended would not be started again after a crash restart); it holds no
/// database connection, so it blocks neither CREATE nor DROP DATABASE. Uses one of
/// `max_worker_processes` while the server runs, and briefly one more per database swept.
unsafe fn register_launcher() {
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
    let installed = BackgroundWorker::transaction(|| {
        Spi::get_one::<bool>("SELECT pg_catalog.to_regclass('mcp.run') IS NOT NULL")
            .ok()
            .flatten()
            .unwrap_or(false)
    });
    if installed {
        sweep();
    }
}

/// Store one batch of queued records in one transaction; the queue's tail moves after the
/// commit. Returns the number of records taken; `None` when the queue passed to another
/// database (another `generation`): its records are not this worker's. (A queue passes only
/// when drained, so never while a batch is being stored.)
fn drain(p: *mut Shared, i: usize, generation: u64) -> Option<usize> {
    let cap = unsafe { (*p).ring_bytes };
    let (batch, new_tail) = locked(p, |sh| {
        let s = &sh.slots[i];
        if s.generation != generation {
            return None;
        }
        let ring = ring_of(p, i);
        let mut pos = s.tail;
        let mut out = Vec::new();
        while pos < s.head && out.len() < BATCH_RECORDS {
            let mut len = [0u8; 4];
            ring_copy_out(ring, cap, pos, &mut len);
            let len = u32::from_le_bytes(len) as usize;
            let mut rec = vec![0u8; len];
            ring_copy_out(ring, cap, pos + 4, &mut rec);
            out.push(rec);
            pos += 4 + len as u64;
        }
        Some((out, pos))
    })?;
    if batch.is_empty() {
        return Some(0);
    }
    let failed = BackgroundWorker::transaction(std::panic::AssertUnwindSafe(|| {
        batch.iter().filter(|r| !store(r)).count() as u64
    }));
    locked(p, |sh| {
        let s = &mut sh.slots[i];
        s.tail = new_tail;
        s.done += batch.len() as u64;
        s.failed += failed;
    });
    unsafe { pg_sys::ConditionVariableBroadcast(&raw mut (*p).cv) };
    Some(batch.len())
}

/// Store one record in a subtransaction; false (and a WARNING in the server log) if it failed.
fn store(rec: &[u8]) -> bool {
    let v: Value = match serde_json::from_slice(rec) {
        Ok(v) => v,
        Err(e) => {
            pgrx::warning!("pg_mcp audit worker: unreadable record skipped: {e}");
            return false;
        }
    };
    let r = crate::pg::in_subtransaction_catch_all(|| store_value(&v));
    let err = match r {
        Ok(Ok(())) => return true,
        Ok(Err(e)) => e.to_string(),
        Err(info) => format!("{}: {}", info.sqlstate, info.message),
    };
    pgrx::warning!(
        "pg_mcp audit worker: could not store a {} record of run {}: {err}",
        v["k"].as_str().unwrap_or("?"),
        v["run_id"]
            .as_str()
            .or(v["row"]["run_id"].as_str())
            .unwrap_or("?")
    );
    false
}

/// Columns named by a record's keys (pg_mcp's own, checked anyway).
fn column_list(row: &Value) -> Option<String> {
    let o = row.as_object()?;
    let ok = |k: &str| !k.is_empty() && k.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
    let cols: Vec<&str> = o.keys().map(String::as_str).filter(|k| ok(k)).collect();
    (!cols.is_empty()).then(|| cols.join(", "))
}

fn insert_row(table: &str, row: &Value) -> Result<(), pgrx::spi::SpiError> {
    let Some(cols) = column_list(row) else {
        return Ok(());
    };
    let sql = format!(
        "INSERT INTO mcp.{table} ({cols}) OVERRIDING SYSTEM VALUE
         SELECT {cols} FROM pg_catalog.jsonb_populate_record(NULL::mcp.{table}, $1)"
    );
    Spi::run_with_args(&sql, &[JsonB(row.clone()).into()])
}

fn store_value(v: &Value) -> Result<(), pgrx::spi::SpiError> {
    match v["k"].as_str() {
        Some("run_start") => insert_row("run", &v["row"]),
        Some("messages") => Spi::run_with_args(
            "INSERT INTO mcp.message (session_id, run_id, seq, role, message, clipped)
             SELECT ($1 OPERATOR(pg_catalog.->>) 'session_id')::uuid, ($1 OPERATOR(pg_catalog.->>) 'run_id')::uuid,
                    (($1 OPERATOR(pg_catalog.->>) 'offset')::int OPERATOR(pg_catalog.+) e.ord::int OPERATOR(pg_catalog.-) 1),
                    coalesce(e.msg OPERATOR(pg_catalog.->>) 'role', ''), e.msg,
                    NULLIF($1 OPERATOR(pg_catalog.->) 'message_cuts' OPERATOR(pg_catalog.->) (e.ord - 1)::int, 'null'::pg_catalog.jsonb)
               FROM pg_catalog.jsonb_array_elements($1 OPERATOR(pg_catalog.->) 'messages') WITH ORDINALITY AS e(msg, ord)",
            &[JsonB(v.clone()).into()],
        ),
        Some("insert") => match v["table"].as_str() {
            Some(t @ ("llm_request" | "tool_call" | "embedding_request")) => insert_row(t, &v["row"]),
            _ => Ok(()),
        },
        Some("run_end") => {
            // An end reported by the backend wins over the worker's own 'aborted' verdict (the
            // backend may have queued its end just before it went away).
            Spi::run_with_args(
                "UPDATE mcp.run r
                    SET status = x.status, answer = coalesce(x.answer, r.answer),
                        iterations = coalesce(x.iterations, r.iterations),
                        prompt_tokens = coalesce(x.prompt_tokens, r.prompt_tokens),
                        completion_tokens = coalesce(x.completion_tokens, r.completion_tokens),
                        error = x.error, finished_at = x.finished_at,
                        clipped = CASE WHEN x.clipped IS NULL THEN r.clipped
                                       ELSE coalesce(r.clipped, '{}'::pg_catalog.jsonb) OPERATOR(pg_catalog.||) x.clipped END
                   FROM pg_catalog.jsonb_populate_record(NULL::mcp.run, $1) x
                  WHERE r.run_id OPERATOR(pg_catalog.=) x.run_id AND r.status IN ('running', 'aborted')",
                &[JsonB(v["run"].clone()).into()],
            )?;
            if v["messages"].is_array() {
                Spi::run_with_args(
                    "INSERT INTO mcp.message (session_id, run_id, seq, role, message, clipped)
                     SELECT ($1 OPERATOR(pg_catalog.->>) 'session_id')::uuid, ($1 OPERATOR(pg_catalog.->>) 'run_id')::uuid,
                            (e.ord - 1)::int, coalesce(e.msg OPERATOR(pg_catalog.->>) 'role', ''), e.msg,
                            NULLIF($1 OPERATOR(pg_catalog.->) 'message_cuts' OPERATOR(pg_catalog.->) (e.ord - 1)::int, 'null'::pg_catalog.jsonb)
                       FROM pg_catalog.jsonb_array_elements($1 OPERATOR(pg_catalog.->) 'messages') WITH ORDINALITY AS e(msg, ord)",
                    &[JsonB(v.clone()).into()],
                )?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
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

/// `mcp.audit_status()`: whether audit is durable in this session, and the queues.
#[pg_extern(name = "audit_status", volatile)]
fn audit_status() -> JsonB {
    let queues: Vec<Value> = match shared() {
        Some(p) => locked(p, |sh| {
            sh.slots
                .iter()
                .filter(|s| s.db != pg_sys::Oid::INVALID)
                .map(|s| {
                    json!({
                        "database_oid": s.db.to_u32(),
                        "worker_pid": (s.worker_pid != 0).then_some(s.worker_pid),
                        "queued_bytes": s.head - s.tail,
                        "queue_bytes": sh.ring_bytes,
                        "records_queued": s.enqueued,
                        "records_stored": s.done - s.failed,
                        "records_failed": s.failed,
                        "wanted_by_oid": (s.wanted_by != pg_sys::Oid::INVALID).then(|| s.wanted_by.to_u32()),
                        "generation": s.generation,
                    })
                })
                .collect()
        }),
        None => Vec::new(),
    };
    JsonB(json!({
        "preloaded": PRELOADED.load(Ordering::SeqCst),
        "durable": durable(),
        "synchronous": SYNCHRONOUS.get(),
        "queues": queues,
    }))
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps_are_utc_iso() {
        assert_eq!(super::timestamp_text(0), "1970-01-01 00:00:00.000000+00");
        assert_eq!(
            super::timestamp_text(1_796_056_407_773_123),
            "2026-11-30 16:33:27.773123+00"
        );
        assert_eq!(
            super::timestamp_text(951_782_400_000_001),
            "2000-02-29 00:00:00.000001+00"
        );
    }
}
