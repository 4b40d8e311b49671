//! Small, careful wrappers around PostgreSQL internals: subtransactions, acting as the
//! extension owner, error classification.

use pgrx::datum::DatumWithOid;
use pgrx::pg_sys;
use pgrx::pg_sys::panic::CaughtError;
use pgrx::prelude::*;
use pgrx::spi::{OwnedPreparedStatement, SpiClient, SpiResult, SpiTupleTable};
use pgrx::PgOid;
use std::cell::Cell;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::c_int;
use std::panic::AssertUnwindSafe;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};

/// What a caught PostgreSQL error looked like (for the operator log; never sent to a model).
#[derive(Debug, Clone)]
pub struct PgErrorInfo {
    pub sqlstate: String,
    pub message: String,
}

fn sqlstate_text(code: PgSqlErrorCode) -> String {
    // Decode PostgreSQL's 6-bit-per-char packed SQLSTATE.
    let mut v = code as i32;
    let mut s = String::with_capacity(5);
    for _ in 0..5 {
        s.push(char::from(((v & 0x3F) as u8) + b'0'));
        v >>= 6;
    }
    s
}

impl PgErrorInfo {
    fn from_caught(e: &CaughtError) -> Self {
        match e {
            CaughtError::PostgresError(r) | CaughtError::ErrorReport(r) => PgErrorInfo {
                sqlstate: sqlstate_text(r.sql_error_code()),
                message: r.message().to_string(),
            },
            CaughtError::RustPanic { ereport, .. } => PgErrorInfo {
                sqlstate: sqlstate_text(ereport.sql_error_code()),
                message: ereport.message().to_string(),
            },
        }
    }

    /// Errors that must not be swallowed: cancel / statement_timeout (57014), shutdown and
    /// other operator intervention (class 57), resource exhaustion (53), system errors (58).
    pub fn must_propagate(&self) -> bool {
        self.sqlstate.starts_with("57")
            || self.sqlstate.starts_with("53")
            || self.sqlstate.starts_with("58")
    }
}

/// Run `f` in an internal subtransaction. On success the subtransaction is released (its work
/// kept) unless `always_rollback`; on error it is rolled back and the error returned as data.
/// Errors that must propagate (query cancel, statement_timeout, shutdown) are re-thrown.
pub fn in_subtransaction<R>(
    always_rollback: bool,
    f: impl FnOnce() -> R,
) -> Result<R, PgErrorInfo> {
    subtransaction(always_rollback, true, f)
}

/// Like [`in_subtransaction`], but returns every error, cancel included (for tests, and for
/// the audit worker, which must outlive any one bad record).
pub fn in_subtransaction_catch_all<R>(f: impl FnOnce() -> R) -> Result<R, PgErrorInfo> {
    subtransaction(false, false, f)
}

fn subtransaction<R>(
    always_rollback: bool,
    propagate: bool,
    f: impl FnOnce() -> R,
) -> Result<R, PgErrorInfo> {
    let result: Result<R, CaughtError> = unsafe {
        let old_cxt = pg_sys::CurrentMemoryContext;
        let old_owner = pg_sys::CurrentResourceOwner;
        pg_sys::BeginInternalSubTransaction(std::ptr::null());
        pg_sys::MemoryContextSwitchTo(old_cxt);
        let f = AssertUnwindSafe(f);
        PgTryBuilder::new(AssertUnwindSafe(|| {
            let r = (f.0)();
            if always_rollback {
                pg_sys::RollbackAndReleaseCurrentSubTransaction();
            } else {
                pg_sys::ReleaseCurrentSubTransaction();
            }
            pg_sys::MemoryContextSwitchTo(old_cxt);
            pg_sys::CurrentResourceOwner = old_owner;
            Ok(r)
        }))
        .catch_others(|e| {
            pg_sys::MemoryContextSwitchTo(old_cxt);
            pg_sys::RollbackAndReleaseCurrentSubTransaction();
            pg_sys::MemoryContextSwitchTo(old_cxt);
            pg_sys::CurrentResourceOwner = old_owner;
            Err(e)
        })
        .execute()
    };
    match result {
        Ok(r) => Ok(r),
        Err(e) => {
            let mut info = PgErrorInfo::from_caught(&e);
            if info.sqlstate == "57014" && TIMEOUT_FIRED.swap(false, Ordering::SeqCst) {
                // Our own tool timer fired: a tool fault, not the caller's cancel.
                info.message = "canceling tool call: its time limit was reached".into();
                return Err(info);
            }
            if propagate && info.must_propagate() {
                e.rethrow();
            }
            Err(info)
        }
    }
}

/// OID of the role that owns the extension (and its tables).
pub fn extension_owner() -> pg_sys::Oid {
    thread_local! { static OWNER: Cell<Option<pg_sys::Oid>> = const { Cell::new(None) }; }
    if let Some(o) = OWNER.with(|c| c.get()) {
        return o;
    }
    let owner = Spi::get_one::<pg_sys::Oid>(
        "SELECT e.extowner FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'pg_mcp'",
    )
    .ok()
    .flatten()
    .unwrap_or(pg_sys::Oid::from(pg_sys::BOOTSTRAP_SUPERUSERID));
    OWNER.with(|c| c.set(Some(owner)));
    owner
}

/// Run `f` with the privileges of the extension owner (for audit inserts and reading API keys).
/// Like SECURITY DEFINER, but not callable from SQL: only pg_mcp's own code uses it, with
/// fixed, schema-qualified statements. Like a well-written SECURITY DEFINER function it also
/// pins `search_path` to `pg_catalog, pg_temp`, so an operator or function the caller put
/// earlier in its search_path (say its own `=` for text) can never run with the owner's
/// privileges. User, security context and search_path are restored on error too.
pub fn as_extension_owner<R>(f: impl FnOnce() -> R) -> R {
    let owner = extension_owner();
    let mut saved_user = pg_sys::Oid::INVALID;
    let mut saved_ctx: i32 = 0;
    let nest_level = unsafe {
        pg_sys::GetUserIdAndSecContext(&mut saved_user, &mut saved_ctx);
        let nest_level = pg_sys::NewGUCNestLevel();
        pg_sys::set_config_option(
            c"search_path".as_ptr(),
            c"pg_catalog, pg_temp".as_ptr(),
            pg_sys::GucContext::PGC_USERSET,
            pg_sys::GucSource::PGC_S_SESSION,
            pg_sys::GucAction::GUC_ACTION_SAVE,
            true,
            0,
            false,
        );
        pg_sys::SetUserIdAndSecContext(
            owner,
            saved_ctx
                | pg_sys::SECURITY_LOCAL_USERID_CHANGE as i32
                | pg_sys::SECURITY_RESTRICTED_OPERATION as i32,
        );
        nest_level
    };
    let f = AssertUnwindSafe(f);
    PgTryBuilder::new(AssertUnwindSafe(|| (f.0)()))
        .finally(|| unsafe {
            pg_sys::SetUserIdAndSecContext(saved_user, saved_ctx);
            pg_sys::AtEOXact_GUC(true, nest_level);
        })
        .execute()
}

/// The current value of a setting as text ("" when unset), through the GUC API (no SPI).
pub fn guc_value(name: &std::ffi::CStr) -> String {
    unsafe {
        let p = pg_sys::GetConfigOption(name.as_ptr(), true, false);
        if p.is_null() {
            String::new()
        } else {
            std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    }
}

/// Set a user-settable setting for the session, through the GUC API (no SPI). Inside a
/// (sub)transaction that is rolled back, PostgreSQL reverts it.
pub fn set_guc(name: &std::ffi::CStr, value: &str) {
    let Ok(v) = std::ffi::CString::new(value.replace('\0', "")) else {
        return;
    };
    unsafe {
        pg_sys::SetConfigOption(
            name.as_ptr(),
            v.as_ptr(),
            pg_sys::GucContext::PGC_USERSET,
            pg_sys::GucSource::PGC_S_SESSION,
        )
    };
}

/// Run `f` with `application_name` set to `value` (visible in pg_stat_activity), then put the
/// previous value back. If `f` raises, the transaction's abort reverts the setting.
pub fn with_application_name<R>(value: &str, f: impl FnOnce() -> R) -> R {
    let old = guc_value(c"application_name");
    set_guc(c"application_name", value);
    let r = f();
    set_guc(c"application_name", &old);
    r
}

// ------------------------------------------------------------------------------------------
// Kept plans for pg_mcp's own fixed statements
// ------------------------------------------------------------------------------------------

type PlanKey = (String, Vec<u32>);

thread_local! {
    /// Plans of pg_mcp's fixed statements (registry lookups, audit inserts), prepared once per
    /// backend and kept (SPI_keepplan). PostgreSQL's plan cache re-plans them when the objects
    /// they use change (DDL, search_path, role for RLS). `Rc` so a plan is never freed while a
    /// (re-entrant) execution still uses it.
    static PLANS: RefCell<HashMap<PlanKey, Rc<OwnedPreparedStatement>>> = RefCell::new(HashMap::new());
}

/// The kept plan for `sql` with the argument types of `args`, prepared on first use.
fn kept_plan(
    c: &SpiClient<'_>,
    sql: &str,
    args: &[DatumWithOid<'_>],
    mutating: bool,
) -> SpiResult<Rc<OwnedPreparedStatement>> {
    let key: PlanKey = (
        sql.to_string(),
        args.iter().map(|a| a.oid().to_u32()).collect(),
    );
    if let Some(p) = PLANS.with(|m| m.borrow().get(&key).cloned()) {
        return Ok(p);
    }
    let types: Vec<PgOid> = args.iter().map(|a| PgOid::from(a.oid())).collect();
    let prepared = if mutating {
        c.prepare_mut(sql, &types)?
    } else {
        c.prepare(sql, &types)?
    };
    let plan = Rc::new(prepared.keep());
    PLANS.with(|m| m.borrow_mut().insert(key, plan.clone()));
    Ok(plan)
}

/// Run a fixed query expected to return at most one row and map that row; `None` when it
/// returns none (where `Spi::get_one` would report an error). The plan is kept per backend.
pub fn first_row<T>(
    sql: &str,
    args: &[DatumWithOid<'_>],
    f: impl FnOnce(&SpiTupleTable<'_>) -> SpiResult<T>,
) -> SpiResult<Option<T>> {
    Spi::connect(|c| {
        let plan = kept_plan(&c, sql, args, false)?;
        let t = c.select(&*plan, Some(1), args)?;
        if t.is_empty() {
            Ok(None)
        } else {
            f(&t.first()).map(Some)
        }
    })
}

/// Run a fixed read-only query through a kept plan and hand all its rows to `f`.
pub fn select_kept<R>(
    sql: &str,
    args: &[DatumWithOid<'_>],
    f: impl FnOnce(SpiTupleTable<'_>) -> SpiResult<R>,
) -> SpiResult<R> {
    Spi::connect(|c| {
        let plan = kept_plan(&c, sql, args, false)?;
        f(c.select(&*plan, None, args)?)
    })
}

/// Run a fixed statement that writes (INSERT/UPDATE, `nextval`) through a kept plan; returns
/// the first column of the first row it returns, if any.
pub fn write_kept<T: FromDatum + IntoDatum>(
    sql: &str,
    args: &[DatumWithOid<'_>],
) -> SpiResult<Option<T>> {
    Spi::connect_mut(|c| {
        let plan = kept_plan(c, sql, args, true)?;
        let t = c.update(&*plan, None, args)?;
        if t.is_empty() || t.columns().unwrap_or(0) == 0 {
            Ok(None)
        } else {
            t.first().get::<T>(1)
        }
    })
}

/// Run a fixed statement that writes and returns nothing, through a kept plan.
pub fn run_kept(sql: &str, args: &[DatumWithOid<'_>]) -> SpiResult<()> {
    write_kept::<bool>(sql, args).map(|_| ())
}

// ------------------------------------------------------------------------------------------
// Per-tool time limit
// ------------------------------------------------------------------------------------------

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

/// Run `f` under a time limit of `ms` milliseconds. When it expires, the statement running in
/// `f` is canceled; an [`in_subtransaction`] inside `f` returns that as an error with SQLSTATE
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
