//! Host hooks: interrupt polling and a stack check, for engines that run inside a database
//! backend.
//!
//! Inside PostgreSQL a computation must end promptly when the query is cancelled or the backend
//! is terminated, and must never overflow the stack (a SIGSEGV restarts the whole cluster). The
//! pure crates cannot call PostgreSQL, so the host installs two plain functions for the current
//! thread:
//!
//! * `interrupt` — called after about [`POLL_UNITS`] units of work (a unit is roughly a byte
//!   scanned or a nanosecond of work: thousands of polls per second). pg_mcp installs
//!   `CHECK_FOR_INTERRUPTS()`, which raises the cancel/terminate ERROR; it unwinds through the
//!   engine as a Rust panic to the pgrx boundary, which turns it back into that ERROR.
//! * `stack_exhausted` — asked at every nesting level the engines enter. pg_mcp installs
//!   PostgreSQL's `stack_is_too_deep()` (the `max_stack_depth` check); the engine then stops with
//!   a nesting error instead of recursing further.
//!
//! Without hooks (tests, fuzzing, other hosts) nothing is polled and the engines' own depth
//! limits (`MAX_DEPTH`) bound the stack. Hooks are per thread: worker threads never call into
//! the host.
//!
//! Engines call [`tick`] where they make progress (per value, per look-ahead byte, per loop
//! round over input) and [`stack_exhausted`] where they recurse.

use std::cell::Cell;

/// Work units between two interrupt polls.
pub const POLL_UNITS: u32 = 1 << 18;

/// The host's functions (see the module documentation).
#[derive(Clone, Copy, Debug)]
pub struct Hooks {
    /// Check for cancel/terminate; may unwind (panic) to abandon the computation.
    pub interrupt: fn(),
    /// True when the stack is nearly used up: the engine must not recurse further.
    pub stack_exhausted: fn() -> bool,
}

thread_local! {
    static HOOKS: Cell<Option<Hooks>> = const { Cell::new(None) };
    static LEFT: Cell<u32> = const { Cell::new(POLL_UNITS) };
}

/// Install `hooks` for the current thread (replacing any installed before).
pub fn install(hooks: Hooks) {
    HOOKS.with(|h| h.set(Some(hooks)));
}

/// Remove the current thread's hooks; returns them.
pub fn uninstall() -> Option<Hooks> {
    HOOKS.with(|h| h.take())
}

/// The current thread's hooks.
pub fn installed() -> Option<Hooks> {
    HOOKS.with(Cell::get)
}

/// Run `f` with `hooks` installed, restoring the previous hooks afterwards (also when `f`
/// unwinds).
pub fn with_hooks<R>(hooks: Hooks, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Hooks>);
    impl Drop for Restore {
        fn drop(&mut self) {
            HOOKS.with(|h| h.set(self.0));
        }
    }
    let _restore = Restore(HOOKS.with(|h| h.replace(Some(hooks))));
    f()
}

/// Call the interrupt hook now (if any).
pub fn poll() {
    if let Some(h) = installed() {
        (h.interrupt)();
    }
}

/// Account `units` of work; polls for interrupts every [`POLL_UNITS`].
#[inline]
pub fn tick(units: u32) {
    let due = LEFT.with(|l| {
        let left = l.get();
        if left > units {
            l.set(left - units);
            false
        } else {
            l.set(POLL_UNITS);
            true
        }
    });
    if due {
        poll();
    }
}

/// Account `n` bytes scanned.
#[inline]
pub fn tick_bytes(n: usize) {
    tick(u32::try_from(n).unwrap_or(u32::MAX));
}

/// Run `f` on a new thread with a stack of `bytes` and return its result (a panic in `f` is
/// resumed in the caller). The stack tests of the pure crates use it to show that every bounded
/// recursion fits a stack far smaller than PostgreSQL's `max_stack_depth`.
pub fn on_thread_with_stack<T: Send + 'static>(
    bytes: usize,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let thread = std::thread::Builder::new()
        .stack_size(bytes)
        .spawn(f)
        .unwrap_or_else(|e| panic!("cannot start a thread: {e}"));
    match thread.join() {
        Ok(v) => v,
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

/// Must the caller stop recursing? Asks the host; false without hooks.
#[inline]
pub fn stack_exhausted() -> bool {
    installed().is_some_and(|h| (h.stack_exhausted)())
}
