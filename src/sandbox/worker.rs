//! The sandbox in parallel workers.
//!
//! A parallel worker is a process of its own: the guard of [`super::run_sandboxed`] lives in the
//! leader's memory and a worker would run unguarded. PostgreSQL copies two things into every
//! worker it starts: the leader's security context (so the worker is a security-restricted
//! operation too) and the leader's settings. The guard level is therefore also kept in the
//! setting `mcp.sandbox_guard` for the time a tool runs: set with a GUC nest level (the way a
//! function's `SET` clause is), so it is restored when the tool ends and by any (sub)transaction
//! abort. A worker reads it in [`level_in_worker`]; the leader uses its own thread-local guard
//! and never trusts the setting. Only superusers may change it (`PGC_SUSET`), so a tool's role
//! cannot blank it out before its query starts workers.

use super::GuardLevel;
use pgrx::pg_sys;
use pgrx::{GucContext, GucFlags, GucRegistry, GucSetting};
use std::ffi::{c_int, CStr, CString};

static SANDBOX_GUARD: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);

const NAME: &CStr = c"mcp.sandbox_guard";

pub(super) fn init_guc() {
    GucRegistry::define_string_guc(
        NAME,
        c"Set by pg_mcp while a tool runs: the tool sandbox's level, copied into parallel workers.",
        c"Internal. Empty when no tool runs; only superusers can change it.",
        &SANDBOX_GUARD,
        GucContext::Suset,
        GucFlags::NO_SHOW_ALL | GucFlags::NO_RESET_ALL | GucFlags::DISALLOW_IN_FILE,
    );
}

fn level_name(level: GuardLevel) -> &'static CStr {
    match level {
        GuardLevel::ReadOnly => c"read_only",
        GuardLevel::Writing => c"writing",
    }
}

/// Whether this process is a parallel worker.
pub(super) fn is_parallel_worker() -> bool {
    unsafe { pg_sys::ParallelWorkerNumber >= 0 }
}

/// The guard level a parallel worker inherited from its leader (`None` in the leader, or when
/// the leader ran no tool).
pub(super) fn level_in_worker() -> Option<GuardLevel> {
    if !is_parallel_worker() {
        return None;
    }
    match SANDBOX_GUARD.get()?.to_bytes() {
        b"read_only" => Some(GuardLevel::ReadOnly),
        b"writing" => Some(GuardLevel::Writing),
        // set to anything else: the strictest reading
        b"" => None,
        _ => Some(GuardLevel::ReadOnly),
    }
}

/// Publish `level` for the workers of queries the tool starts; returns the GUC nest level to
/// pass to [`unpublish`] when the tool ended normally. (When the tool raises, the abort of the
/// enclosing (sub)transaction restores the setting.)
pub(super) fn publish(level: GuardLevel) -> c_int {
    unsafe {
        let nest = pg_sys::NewGUCNestLevel();
        pg_sys::set_config_option(
            NAME.as_ptr(),
            level_name(level).as_ptr(),
            pg_sys::GucContext::PGC_SUSET,
            pg_sys::GucSource::PGC_S_SESSION,
            pg_sys::GucAction::GUC_ACTION_SAVE,
            true,
            0,
            false,
        );
        nest
    }
}

pub(super) fn unpublish(nest: c_int) {
    unsafe { pg_sys::AtEOXact_GUC(true, nest) };
}
