//! The chat workers' shared memory: one slot per worker of the pool (`mcp.chat_workers`, at
//! most [`MAX_WORKERS`]), each with the database it serves, its process id and latch, the run
//! it executes and whether that run was asked to stop. Under one lightweight lock. A backend
//! that queues a run wakes its database's workers and starts one when none is idle; a worker
//! that takes a run and sees more queued starts the next one, so the pool grows with the queue
//! up to its size and shrinks when workers idle out.

use pgrx::bgworkers::{BackgroundWorkerBuilder, BgWorkerStartTime};
use pgrx::lwlock::PgLwLock;
use pgrx::pg_shmem_init;
use pgrx::prelude::*;
use pgrx::shmem::PGRXSharedMemory;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Upper bound of `mcp.chat_workers` (the slots are reserved at server start).
pub const MAX_WORKERS: usize = 64;
/// A slot reserved for a worker that has not started after this long is free again.
const START_GRACE: Duration = Duration::from_secs(10);

#[derive(Clone, Copy)]
#[repr(C)]
pub struct Slot {
    /// Database served; 0 = free.
    db: u32,
    /// Process id once the worker runs; 0 while it starts.
    pid: i32,
    /// The worker's process latch (`MyLatch`), as an address.
    latch: usize,
    /// When the slot was reserved (ms since the epoch), for the start grace.
    reserved_ms: u64,
    /// The run it executes (all zero: none).
    run: [u8; 16],
    /// `mcp.chat_cancel` asked that run to stop.
    cancel: bool,
}

const FREE: Slot = Slot {
    db: 0,
    pid: 0,
    latch: 0,
    reserved_ms: 0,
    run: [0; 16],
    cancel: false,
};

#[derive(Clone, Copy)]
#[repr(C)]
pub struct Pool {
    slots: [Slot; MAX_WORKERS],
}

impl Default for Pool {
    fn default() -> Self {
        Pool {
            slots: [FREE; MAX_WORKERS],
        }
    }
}

// SAFETY: plain data (the latch is an address, used only with SetLatch), the same layout in
// every process.
unsafe impl PGRXSharedMemory for Pool {}

static POOL: PgLwLock<Pool> = unsafe { PgLwLock::new(c"pg_mcp_chat_workers") };
/// Set in the postmaster while it loads pg_mcp (inherited by every process it forks).
static SHARED: AtomicBool = AtomicBool::new(false);

/// Reserve the pool's shared memory (only while shared_preload_libraries loads pg_mcp).
pub fn init_shmem() {
    pg_shmem_init!(POOL);
    SHARED.store(true, Ordering::Relaxed);
}

/// The pool's size in this server.
pub fn size() -> usize {
    if !SHARED.load(Ordering::Relaxed) {
        return 0;
    }
    (super::WORKERS.get().max(0) as usize).min(MAX_WORKERS)
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn my_db() -> u32 {
    unsafe { pg_sys::MyDatabaseId }.to_u32()
}

/// Wake this database's workers (they look for queued runs) and start one more when none of
/// them is idle or starting and the pool has room. Never raises (also called at commit).
pub fn wake_or_start() {
    let n = size();
    if n == 0 {
        return;
    }
    let db = my_db();
    let now = now_ms();
    let grace = START_GRACE.as_millis() as u64;
    let (latches, start) = {
        let mut p = POOL.exclusive();
        let mut latches = Vec::new();
        let mut ready = false;
        let mut free = None;
        for (i, s) in p.slots[..n].iter().enumerate() {
            let starting = s.pid == 0 && s.db != 0 && now.saturating_sub(s.reserved_ms) < grace;
            if s.db == db && s.pid != 0 {
                if s.latch != 0 {
                    latches.push(s.latch);
                }
                ready |= s.run == [0; 16];
            } else if s.db == db && starting {
                ready = true;
            } else if free.is_none() && (s.db == 0 || (s.pid == 0 && !starting)) {
                free = Some(i);
            }
        }
        let start = if ready { None } else { free };
        if let Some(i) = start {
            p.slots[i] = Slot {
                db,
                reserved_ms: now,
                ..FREE
            };
        }
        (latches, start)
    };
    for l in latches {
        // SAFETY: the latch of a live worker process (its PGPROC's latch, in shared memory);
        // SetLatch may be called from any process.
        unsafe { pg_sys::SetLatch(l as *mut pg_sys::Latch) };
    }
    if let Some(i) = start {
        let started = BackgroundWorkerBuilder::new("pg_mcp chat worker")
            .set_type("pg_mcp chat worker")
            .set_library("pg_mcp")
            .set_function("pg_mcp_chat_worker_main")
            .set_argument((i as i32).into_datum())
            .enable_spi_access()
            .set_start_time(BgWorkerStartTime::RecoveryFinished)
            .set_restart_time(None)
            .load_dynamic();
        if started.is_err() {
            POOL.exclusive().slots[i] = FREE;
            pgrx::log!("pg_mcp: could not start a chat worker (max_worker_processes reached?); queued runs wait for a running worker");
        }
    }
}

/// The worker in slot `i` takes it: the database it was reserved for, or `None` when the slot
/// is not reserved for a starting worker.
pub fn claim(i: usize) -> Option<pg_sys::Oid> {
    if i >= size() {
        return None;
    }
    let mut p = POOL.exclusive();
    let s = &mut p.slots[i];
    if s.db == 0 || s.pid != 0 {
        return None;
    }
    s.pid = unsafe { pg_sys::MyProcPid };
    s.latch = unsafe { pg_sys::MyLatch } as usize;
    Some(pg_sys::Oid::from(s.db))
}

/// The worker in slot `i` leaves it (on its way out).
pub fn release(i: usize) {
    if i >= MAX_WORKERS || !SHARED.load(Ordering::Relaxed) {
        return;
    }
    let mut p = POOL.exclusive();
    if p.slots[i].pid == unsafe { pg_sys::MyProcPid } {
        p.slots[i] = FREE;
    }
}

/// The worker in slot `i` executes `run` (or none).
pub fn set_run(i: usize, run: Option<[u8; 16]>) {
    let mut p = POOL.exclusive();
    p.slots[i].run = run.unwrap_or([0; 16]);
    p.slots[i].cancel = false;
}

/// Whether the run the worker in slot `i` executes was asked to stop.
pub fn cancel_requested(i: usize) -> bool {
    POOL.share().slots[i].cancel
}

/// Ask the worker executing `run` to stop it; false when no worker executes it.
pub fn request_cancel(run: [u8; 16]) -> bool {
    let n = size();
    if n == 0 || run == [0; 16] {
        return false;
    }
    let latch = {
        let mut p = POOL.exclusive();
        let Some(s) = p.slots[..n].iter_mut().find(|s| s.pid != 0 && s.run == run) else {
            return false;
        };
        s.cancel = true;
        s.latch
    };
    if latch != 0 {
        // SAFETY: as in wake_or_start.
        unsafe { pg_sys::SetLatch(latch as *mut pg_sys::Latch) };
    }
    true
}
