//! The durable audit's settings (`mcp.audit_*`), and `init` from `_PG_init`.

use pgrx::pg_sys;
use pgrx::{GucContext, GucFlags, GucRegistry, GucSetting};

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
/// its row (the caller cannot write it there).
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
        super::queue::install_shmem_hooks();
        super::worker::register_launcher();
    }
}

/// `mcp.audit_wait_ms` as a duration.
pub fn wait_budget() -> std::time::Duration {
    std::time::Duration::from_millis(WAIT_MS.get().max(0) as u64)
}
