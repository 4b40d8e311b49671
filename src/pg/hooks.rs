//! Hooks that let the pure engines (repair, response parser, token counter) honour
//! PostgreSQL's cancel and stack-depth limit.

use pgrx::prelude::*;

/// Install the engines' host hooks for this backend (see `mcp_repair::guard`): every ~256K units
/// of work the repair engine, the response parser and the token counter run
/// `CHECK_FOR_INTERRUPTS()` (a cancel or terminate raises its ERROR there and unwinds the
/// computation), and at every nesting level they ask PostgreSQL's `stack_is_too_deep()` (the
/// `max_stack_depth` check) before recursing further.
pub fn install_engine_hooks() {
    mcp_repair::guard::install(mcp_repair::guard::Hooks {
        interrupt: check_for_interrupts,
        stack_exhausted: stack_is_too_deep,
    });
}

fn check_for_interrupts() {
    pg_sys::check_for_interrupts!();
}

fn stack_is_too_deep() -> bool {
    // SAFETY: reads the backend's stack base and the max_stack_depth setting; no ERROR
    unsafe { pg_sys::stack_is_too_deep() }
}
