//! Noticing a client that went away while a chat waits on the LLM.
//!
//! PostgreSQL's own mechanism is `client_connection_check_interval`: a timer sets
//! `CheckClientConnectionPending`, and `ProcessInterrupts` then calls `pq_check_connection()`
//! (on Linux an `epoll` poll for `EPOLLRDHUP` on the client socket, through the backend's
//! `FeBeWaitSet`) and ends the session when the peer closed it. That only runs inside
//! `CHECK_FOR_INTERRUPTS`, which the HTTP wait loop deliberately does not call (an ERROR must
//! not unwind through the waiting Rust frames). So the wait loop calls [`client_gone`] between
//! its 25 ms slices, and it calls the same `pq_check_connection()` itself: every
//! `client_connection_check_interval` when that is set, and about once a second when it is 0
//! (the default), so an abandoned chat stops whatever the setting.
//!
//! A vanished client is not an error raised here: the run ends with the status `client_gone`
//! and its audit rows are written; the backend then fails to send the result and exits as
//! PostgreSQL does for any lost client. (A pending `CheckClientConnectionPending` is cleared
//! once the verdict is taken, so PostgreSQL's own check does not end the session with FATAL
//! before the statement commits the run's rows.)

use pgrx::pg_sys;
use std::cell::Cell;
use std::time::{Duration, Instant};

unsafe extern "C-unwind" {
    /// libpq/pqcomm.c (PostgreSQL 14+): false when the client closed its connection. Never
    /// raises; only polls the socket without blocking.
    fn pq_check_connection() -> bool;
    /// utils/timeout.h (pgrx does not bind it).
    fn disable_timeout(id: std::ffi::c_int, keep_indicator: bool);
}

/// `CLIENT_CONNECTION_CHECK_TIMEOUT` of utils/timeout.h's `TimeoutId` (pgrx does not bind the
/// enum). Its position moved: 15 added `IDLE_STATS_UPDATE_TIMEOUT` before it, 17
/// `TRANSACTION_TIMEOUT`. A new major version must be checked against its timeout.h.
#[cfg(feature = "pg14")]
const CLIENT_CONNECTION_CHECK_TIMEOUT: std::ffi::c_int = 9;
#[cfg(any(feature = "pg15", feature = "pg16"))]
const CLIENT_CONNECTION_CHECK_TIMEOUT: std::ffi::c_int = 10;
#[cfg(any(feature = "pg17", feature = "pg18"))]
const CLIENT_CONNECTION_CHECK_TIMEOUT: std::ffi::c_int = 11;
#[cfg(not(any(
    feature = "pg14",
    feature = "pg15",
    feature = "pg16",
    feature = "pg17",
    feature = "pg18"
)))]
compile_error!(
    "pg_mcp supports PostgreSQL 14 to 18 (pq_check_connection is 14+); for a new version, check \
     CLIENT_CONNECTION_CHECK_TIMEOUT in its utils/timeout.h"
);

/// How often the socket is polled when `client_connection_check_interval` is 0.
const DEFAULT_CHECK_INTERVAL: Duration = Duration::from_secs(1);

thread_local! {
    static LAST_CHECK: Cell<Option<Instant>> = const { Cell::new(None) };
    static GONE: Cell<bool> = const { Cell::new(false) };
}

/// Start of a run: forget an earlier verdict (a backend whose client is gone does not run
/// another statement, but a test may call this twice in one backend).
pub fn reset() {
    GONE.with(|g| g.set(false));
    LAST_CHECK.with(|c| c.set(Some(Instant::now())));
}

/// Whether the run in progress found its client gone (sticky until [`reset`]).
pub fn found_gone() -> bool {
    GONE.with(|g| g.get())
}

fn check_interval() -> Duration {
    // SAFETY: a plain int GUC variable read on the backend thread.
    let ms = unsafe { pg_sys::client_connection_check_interval };
    if ms > 0 {
        Duration::from_millis(ms as u64)
    } else {
        DEFAULT_CHECK_INTERVAL
    }
}

/// True when the client of this backend has closed its connection. Cheap between checks; the
/// socket is polled at most once per check interval. False in processes without a client
/// socket (background workers, single-user mode).
pub fn client_gone() -> bool {
    if found_gone() {
        return true;
    }
    // SAFETY: MyProcPort is set once at connection start and never freed during the session.
    if unsafe {
        pg_sys::MyProcPort.is_null() || pg_sys::whereToSendOutput != pg_sys::CommandDest::DestRemote
    } {
        return false;
    }
    let now = Instant::now();
    let due = LAST_CHECK.with(|c| match c.get() {
        Some(t) => now.duration_since(t) >= check_interval(),
        None => true,
    });
    if !due {
        return false;
    }
    LAST_CHECK.with(|c| c.set(Some(now)));
    // SAFETY: called on the backend thread, outside any critical section; it neither raises
    // nor blocks (timeout 0).
    let alive = unsafe { pg_sys::ffi::pg_guard_ffi_boundary(|| pq_check_connection()) };
    if !alive {
        GONE.with(|g| g.set(true));
        // PostgreSQL's own check (client_connection_check_interval) would now end the session
        // with FATAL at the next CHECK_FOR_INTERRUPTS, before the statement's transaction
        // commits the run's audit rows. The verdict is taken: the run stops and is recorded,
        // and the session ends when sending its result fails.
        // Its timer is stopped too, or it could fire between here and the commit.
        unsafe {
            pg_sys::ffi::pg_guard_ffi_boundary(|| {
                disable_timeout(CLIENT_CONNECTION_CHECK_TIMEOUT, false)
            })
        };
        unsafe { pg_sys::CheckClientConnectionPending = 0 };
    }
    !alive
}
