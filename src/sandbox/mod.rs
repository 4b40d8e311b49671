//! The tool sandbox: what PostgreSQL itself refuses while a pg_mcp tool runs.
//!
//! Every tool call ([`crate::tools::call`]) runs inside [`run_sandboxed`]:
//!
//! 1. **A security-restricted operation**, the way PostgreSQL runs index expressions and
//!    maintenance commands: `SetUserIdAndSecContext(current user, … |
//!    SECURITY_RESTRICTED_OPERATION)`. PostgreSQL then refuses `SET ROLE`,
//!    `SET SESSION AUTHORIZATION` (also through `set_config`, `SET LOCAL` in a PL function or
//!    a function's `SET` clause), creating temporary objects, `PREPARE`, `LISTEN`, `DISCARD`,
//!    `CLOSE` and cursors `WITH HOLD`: the tool keeps the caller's identity from start to end.
//! 2. **An executor hook** (`object_access_hook`, `OAT_FUNCTION_EXECUTE`). PostgreSQL invokes it
//!    when it prepares the execution of a function: every function, operator, aggregate (and
//!    its transition/final functions), window function, set-returning function in FROM and
//!    grouping equality function of a plan, and `CALL` — in the tool's own query and in every
//!    query it starts (dynamic SQL of `query_to_xml`, `ts_stat`, PL/pgSQL `EXECUTE`, SQL
//!    functions, views, policies, domain checks). While a tool runs, the functions of the
//!    classes in [`mcp_tools::sandbox`] are refused there with ERROR 42501, which becomes the
//!    tool's error result. When no tool runs, the hook costs one thread-local read.
//!
//! 3. **The planner** (`planner.rs`): tool queries are never planned in parallel, and the
//!    operator functions the selectivity estimators would call are checked before any estimate.
//! 4. **Parallel workers** (`worker.rs`): a parallel plan built before the tool started still
//!    runs guarded in its workers, which inherit the guard through a setting.
//!
//! What the hook cannot see (PostgreSQL does not invoke it there) is listed in the security
//! documentation: type input/output functions, comparison and hash support functions looked up
//! through the type cache (all three need a superuser to create), `DO` blocks (their statements
//! are seen), trigger functions (their statements are seen), and a PL/pgSQL simple expression
//! whose execution state was already built earlier in the same transaction outside any tool.

use crate::error::{McpError, McpResult};
pub use mcp_tools::sandbox::GuardLevel;
use mcp_tools::sandbox::{built_in_denied, extension_denied, refusal_sentence, DeniedClass};
use pgrx::pg_sys;
use pgrx::prelude::*;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::{c_int, c_void, CStr};
use std::panic::AssertUnwindSafe;
use std::sync::OnceLock;

mod planner;
mod worker;

thread_local! {
    /// The guard level of the tool running now (`None`: no tool runs).
    static GUARD: Cell<Option<GuardLevel>> = const { Cell::new(None) };
    /// The sentence of the last refusal inside the running tool (for its result).
    static REFUSAL: RefCell<Option<String>> = const { RefCell::new(None) };
    /// funcid → (display name, class) when the function is in a denied class.
    static VERDICTS: RefCell<HashMap<pg_sys::Oid, Option<(String, DeniedClass)>>> =
        RefCell::new(HashMap::new());
    /// Set while pg_mcp itself runs a search tool's query: its own calls of the provider
    /// functions (mcp.search → mcp.embed) are allowed then, the same calls from a tool's SQL not.
    static PROVIDER_PERMIT: Cell<bool> = const { Cell::new(false) };
    /// Bumped by the pg_proc invalidation callback; VERDICTS is dropped when it moved.
    static PROC_GENERATION: Cell<u64> = const { Cell::new(0) };
    static SEEN_GENERATION: Cell<u64> = const { Cell::new(0) };
}

/// The object_access_hook that was installed before ours (chained first).
static PREVIOUS_OBJECT_ACCESS: OnceLock<pg_sys::object_access_hook_type> = OnceLock::new();

/// Install the hook and callbacks; called once from `_PG_init`.
pub fn init() {
    disable_rust_backtraces();
    unsafe {
        let _ = PREVIOUS_OBJECT_ACCESS.set(pg_sys::object_access_hook);
        pg_sys::object_access_hook = Some(on_object_access);
        worker::init_guc();
        planner::init();
        pg_sys::RegisterXactCallback(Some(on_transaction_end), std::ptr::null_mut());
        pg_sys::CacheRegisterSyscacheCallback(
            pg_sys::SysCacheIdentifier::PROCOID as c_int,
            Some(on_proc_changed),
            pg_sys::Datum::from(0),
        );
    }
}

/// pgrx appends a captured Rust backtrace (with source paths) to the DETAIL of every ERROR
/// that passed through Rust code, when the server runs with RUST_BACKTRACE or
/// RUST_LIB_BACKTRACE set. A client must never see that: capturing is switched off for this
/// library's copy of the standard library before the first panic can happen. (Set while the
/// backend is single-threaded: `_PG_init` runs before pg_mcp starts any thread.)
fn disable_rust_backtraces() {
    std::env::set_var("RUST_LIB_BACKTRACE", "0");
}

/// Whether a pg_mcp tool is running in this backend now.
pub fn active() -> bool {
    GUARD.with(Cell::get).is_some() || worker::level_in_worker().is_some()
}

/// Refuse to start a tool or a chat while a tool runs (whichever way it was reached: directly,
/// through dynamic SQL, inside a function tool). 42501; the sentence becomes the outer tool's
/// result.
pub fn refuse_nested(what: &str) -> McpResult<()> {
    if !active() {
        return Ok(());
    }
    let sentence = refusal_sentence(what, DeniedClass::Nesting);
    REFUSAL.with(|r| *r.borrow_mut() = Some(sentence.clone()));
    Err(McpError::Privilege(sentence))
}

/// The refusal raised inside the tool that just ended, if any (taken: asked once per call).
pub fn take_refusal() -> Option<String> {
    REFUSAL.with(|r| r.borrow_mut().take())
}

/// Run a tool's work in the sandbox: as a security-restricted operation of the calling role,
/// with the executor hook refusing the denied classes of `level`. User id, security context
/// and the guard are restored afterwards, also when `f` raises.
pub fn run_sandboxed<R>(level: GuardLevel, f: impl FnOnce() -> R) -> R {
    let previous = GUARD.with(|g| g.replace(Some(level)));
    REFUSAL.with(|r| r.borrow_mut().take());
    let nest = worker::publish(level);
    let mut user = pg_sys::Oid::INVALID;
    let mut context: c_int = 0;
    unsafe {
        pg_sys::GetUserIdAndSecContext(&mut user, &mut context);
        pg_sys::SetUserIdAndSecContext(
            user,
            context | pg_sys::SECURITY_RESTRICTED_OPERATION as c_int,
        );
    }
    let f = AssertUnwindSafe(f);
    let r = PgTryBuilder::new(AssertUnwindSafe(|| (f.0)()))
        .finally(|| {
            unsafe { pg_sys::SetUserIdAndSecContext(user, context) };
            GUARD.with(|g| g.set(previous));
        })
        .execute();
    // Reached only when `f` returned: after an ERROR the abort restores the setting.
    worker::unpublish(nest);
    r
}

/// The display name and class of `funcid` when it is in a denied class (any level).
pub fn denied_function(funcid: pg_sys::Oid) -> Option<(String, DeniedClass)> {
    let generation = PROC_GENERATION.with(Cell::get);
    if SEEN_GENERATION.with(|s| s.replace(generation)) != generation {
        VERDICTS.with(|v| v.borrow_mut().clear());
    }
    if let Some(hit) = VERDICTS.with(|v| v.borrow().get(&funcid).cloned()) {
        return hit;
    }
    // No borrow is held here: the catalog lookups below may process invalidations.
    let verdict = unsafe { classify(funcid) };
    VERDICTS.with(|v| v.borrow_mut().insert(funcid, verdict.clone()));
    verdict
}

/// The refusal sentence when `funcid` may not run at `level`.
pub fn refusal_for(funcid: pg_sys::Oid, level: GuardLevel) -> Option<String> {
    denied_function(funcid)
        .filter(|(_, class)| class.applies(level))
        .filter(|(_, class)| {
            !(*class == DeniedClass::ProviderCall && PROVIDER_PERMIT.with(Cell::get))
        })
        .map(|(name, class)| refusal_sentence(&name, class))
}

/// Run pg_mcp's own query of a search tool (`SELECT … FROM mcp.search(…)`): the provider
/// functions it calls are allowed inside the sandbox for that query only. The flag is reset
/// also when the query raises.
pub fn with_provider_calls<R>(f: impl FnOnce() -> R) -> R {
    let previous = PROVIDER_PERMIT.with(|p| p.replace(true));
    let f = AssertUnwindSafe(f);
    PgTryBuilder::new(AssertUnwindSafe(|| (f.0)()))
        .finally(|| PROVIDER_PERMIT.with(|p| p.set(previous)))
        .execute()
}

unsafe fn owned_name(p: *const std::ffi::c_char) -> Option<String> {
    (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
}

/// Built-ins (OID below FirstNormalObjectId, in pg_catalog) by name; everything else by the
/// extension it belongs to. A user function named like a built-in is not a built-in.
unsafe fn classify(funcid: pg_sys::Oid) -> Option<(String, DeniedClass)> {
    let name = owned_name(pg_sys::get_func_name(funcid))?;
    if funcid.to_u32() < pg_sys::FirstNormalObjectId {
        if pg_sys::get_func_namespace(funcid) != pg_sys::Oid::from(pg_sys::PG_CATALOG_NAMESPACE) {
            return None;
        }
        return built_in_denied(&name).map(|class| (name, class));
    }
    let ext = pg_sys::getExtensionOfObject(pg_sys::ProcedureRelationId, funcid);
    if ext == pg_sys::Oid::INVALID {
        return None;
    }
    let extname = owned_name(pg_sys::get_extension_name(ext)).unwrap_or_default();
    extension_denied(&extname, &name).map(|class| {
        let shown = if extname == "pg_mcp" {
            format!("mcp.{name}")
        } else {
            format!("{name} (extension {extname})")
        };
        (shown, class)
    })
}

/// Raise ERROR 42501 when `funcid` may not run in the tool running now.
fn check_execute(funcid: pg_sys::Oid) {
    let Some(level) = GUARD.with(Cell::get).or_else(worker::level_in_worker) else {
        return;
    };
    raise_refusal(funcid, level);
}

/// Raise ERROR 42501 when `funcid` may not run at `level` (and remember the sentence for the
/// tool's result).
fn raise_refusal(funcid: pg_sys::Oid, level: GuardLevel) {
    if let Some(sentence) = refusal_for(funcid, level) {
        REFUSAL.with(|r| *r.borrow_mut() = Some(sentence.clone()));
        McpError::Privilege(sentence).raise();
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn on_object_access(
    access: pg_sys::ObjectAccessType::Type,
    class_id: pg_sys::Oid,
    object_id: pg_sys::Oid,
    sub_id: c_int,
    arg: *mut c_void,
) {
    if let Some(Some(previous)) = PREVIOUS_OBJECT_ACCESS.get() {
        pg_sys::ffi::pg_guard_ffi_boundary(|| previous(access, class_id, object_id, sub_id, arg));
    }
    if access == pg_sys::ObjectAccessType::OAT_FUNCTION_EXECUTE {
        check_execute(object_id);
    }
}

/// Safety net: a transaction never ends inside a tool, but if an error path ever skipped
/// [`run_sandboxed`]'s cleanup, the next transaction must not start guarded.
#[pg_guard]
unsafe extern "C-unwind" fn on_transaction_end(event: pg_sys::XactEvent::Type, _arg: *mut c_void) {
    if crate::pg::ends_transaction(event) {
        GUARD.with(|g| g.set(None));
    }
}

/// pg_proc changed (CREATE OR REPLACE, DROP, ALTER … RENAME): the verdicts are recomputed.
/// Only bumps a counter (it runs while PostgreSQL processes invalidation messages).
#[pg_guard]
unsafe extern "C-unwind" fn on_proc_changed(_arg: pg_sys::Datum, _cache: c_int, _hash: u32) {
    PROC_GENERATION.with(|g| g.set(g.get().wrapping_add(1)));
}
