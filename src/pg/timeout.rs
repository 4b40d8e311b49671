//! The per-tool time limit: a PostgreSQL user timeout that cancels the running statement.

use pgrx::pg_sys;
use pgrx::prelude::*;
use std::cell::Cell;
use std::ffi::c_int;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};

// PostgreSQL's timeout API (utils/timeout.h); pgrx does not bind it.
// Called through pg_guard_ffi_boundary so an ERROR cannot unwind through Rust frames.
unsafe extern "C-unwind" {
    fn RegisterTimeout(id: c_int, handler: Option<unsafe extern "C-unwind" fn()>) -> c_int;
    fn enable_timeout_after(id: c_int, delay_ms: c_int);
    fn disable_timeout(id: c_int, keep_indicator: bool);
}

/// Any id at or above USER_TIMEOUT asks RegisterTimeout for a free user slot (USER_TIMEOUT is
/// 12 in PostgreSQL 15 and 13 in 17; MAX_TIMEOUTS is USER_TIMEOUT + 10).
const ANY_USER_TIMEOUT: c_int = 20;

/// Set by the timer (in signal context) so the resulting 57014 is recognized as the tool's own
/// time limit rather than the caller's cancel or statement_timeout.
static TIMEOUT_FIRED: AtomicBool = AtomicBool::new(false);

thread_local! {
    static TIMEOUT_ID: Cell<Option<c_int>> = const { Cell::new(None) };
    static TIMEOUT_ACTIVE: Cell<bool> = const { Cell::new(false) };
}

/// Timer handler: runs in the SIGALRM handler, so it only sets flags (as PostgreSQL's own
/// statement-timeout path does); the next CHECK_FOR_INTERRUPTS raises 57014.
unsafe extern "C-unwind" fn on_tool_timeout() {
    TIMEOUT_FIRED.store(true, Ordering::SeqCst);
    pg_sys::QueryCancelPending = 1;
    pg_sys::InterruptPending = 1;
}

fn timeout_id() -> c_int {
    TIMEOUT_ID.with(|c| {
        if let Some(id) = c.get() {
            return id;
        }
        let id = unsafe {
            pg_sys::ffi::pg_guard_ffi_boundary(|| {
                RegisterTimeout(ANY_USER_TIMEOUT, Some(on_tool_timeout))
            })
        };
        c.set(Some(id));
        id
    })
}

/// Whether the tool timer fired since the last call (and clear the flag): the 57014 a
/// subtransaction caught is then the tool's own time limit, not the caller's cancel.
pub(crate) fn take_fired() -> bool {
    TIMEOUT_FIRED.swap(false, Ordering::SeqCst)
}

/// Run `f` under a time limit of `ms` milliseconds. When it expires, the statement running in
/// `f` is canceled; an [`in_subtransaction`](super::subxact::in_subtransaction) inside `f` returns that as an error with SQLSTATE
/// 57014 instead of re-throwing it (a caller's own cancel or statement_timeout still
/// propagates). Nested calls keep the outer limit.
pub fn with_tool_timeout<R>(ms: i32, f: impl FnOnce() -> R) -> R {
    if TIMEOUT_ACTIVE.with(|a| a.get()) {
        return f();
    }
    let id = timeout_id();
    TIMEOUT_FIRED.store(false, Ordering::SeqCst);
    TIMEOUT_ACTIVE.with(|a| a.set(true));
    unsafe { pg_sys::ffi::pg_guard_ffi_boundary(|| enable_timeout_after(id, ms.max(1))) };
    let f = AssertUnwindSafe(f);
    let r = PgTryBuilder::new(AssertUnwindSafe(|| (f.0)()))
        .finally(|| {
            unsafe { pg_sys::ffi::pg_guard_ffi_boundary(|| disable_timeout(id, false)) };
            TIMEOUT_ACTIVE.with(|a| a.set(false));
        })
        .execute();
    if TIMEOUT_FIRED.swap(false, Ordering::SeqCst) {
        // The timer fired after `f` finished its work but before it was disarmed: drop the
        // pending cancel it requested, it is not the caller's.
        unsafe { pg_sys::QueryCancelPending = 0 };
    }
    r
}
