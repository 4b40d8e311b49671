//! The chat workers' shared memory: one slot per worker of the pool (`mcp.chat_workers`, at
//! most [`MAX_WORKERS`]), each with the database it serves, its process id and latch, how many
//! runs it has in flight and may have (`mcp.chat_runs_per_worker`), and the runs
//! `mcp.chat_cancel` asked it to stop (a small ring). Under one lightweight lock. A backend
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
    /// Runs in flight, and how many it takes at most.
    inflight: u32,
    cap: u32,
    /// Cancels asked of this worker so far; the last [`CANCEL_RING`] run ids are in `cancels`.
    cancel_seq: u64,
    cancels: [[u8; 16]; CANCEL_RING],
}

/// Cancels a worker can be behind on before it rereads its runs' `cancel_requested` flags.
pub const CANCEL_RING: usize = 16;

const FREE: Slot = Slot {
    db: 0,
    pid: 0,
    latch: 0,
    reserved_ms: 0,
    inflight: 0,
    cap: 1,
    cancel_seq: 0,
    cancels: [[0; 16]; CANCEL_RING],
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
                ready |= s.inflight < s.cap;
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

/// The worker in slot `i` takes it (with room for `cap` runs): the database it was reserved
/// for, or `None` when the slot is not reserved for a starting worker.
pub fn claim(i: usize, cap: u32) -> Option<pg_sys::Oid> {
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
    s.cap = cap.max(1);
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

/// The worker in slot `i` has `n` runs in flight and takes `cap` at most.
pub fn set_inflight(i: usize, n: usize, cap: usize) {
    let mut p = POOL.exclusive();
    p.slots[i].inflight = n as u32;
    p.slots[i].cap = cap.max(1) as u32;
}

/// The cancels asked of the worker in slot `i` since `seen` (which moves on): the run ids, or
/// `None` when more came than the ring holds (the worker then rereads its runs' flags).
pub fn take_cancels(i: usize, seen: &mut u64) -> Option<Vec<[u8; 16]>> {
    let p = POOL.share();
    let s = &p.slots[i];
    let n = s.cancel_seq.saturating_sub(*seen);
    let out = if n > CANCEL_RING as u64 {
        None
    } else {
        Some(
            (*seen..s.cancel_seq)
                .map(|k| s.cancels[(k % CANCEL_RING as u64) as usize])
                .collect(),
        )
    };
    *seen = s.cancel_seq;
    out
}

/// Whether a cancel of `run` was asked of the worker in slot `i` after the first `seen` (the
/// ones its loop has taken). Only the ring's last [`CANCEL_RING`] are looked at: an older one is
/// found by the loop, which rereads its runs' flags when it fell that far behind.
pub fn cancel_asked_since(i: usize, run: [u8; 16], seen: u64) -> bool {
    if i >= size() {
        return false;
    }
    let p = POOL.share();
    let s = &p.slots[i];
    let from = seen.max(s.cancel_seq.saturating_sub(CANCEL_RING as u64));
    (from..s.cancel_seq).any(|k| s.cancels[(k % CANCEL_RING as u64) as usize] == run)
}

/// Ask the worker with process id `pid` to stop `run`; false when no worker of the pool has
/// that pid.
pub fn request_cancel(run: [u8; 16], pid: i32) -> bool {
    let n = size();
    if n == 0 || run == [0; 16] || pid == 0 {
        return false;
    }
    let latch = {
        let mut p = POOL.exclusive();
        let Some(s) = p.slots[..n].iter_mut().find(|s| s.pid == pid) else {
            return false;
        };
        let k = (s.cancel_seq % CANCEL_RING as u64) as usize;
        s.cancels[k] = run;
        s.cancel_seq += 1;
        s.latch
    };
    if latch != 0 {
        // SAFETY: as in wake_or_start.
        unsafe { pg_sys::SetLatch(latch as *mut pg_sys::Latch) };
    }
    true
}
