//! Acting as the extension owner (audit writes, reading sealed API keys): a switch of user id
//! and search_path that is undone on error too.

use pgrx::pg_sys;
use pgrx::prelude::*;
use std::cell::Cell;
use std::panic::AssertUnwindSafe;

/// OID of the role that owns the extension (and its tables).
pub fn extension_owner() -> pg_sys::Oid {
    thread_local! { static OWNER: Cell<Option<pg_sys::Oid>> = const { Cell::new(None) }; }
    if let Some(o) = OWNER.with(|c| c.get()) {
        return o;
    }
    let owner = super::read_one::<pg_sys::Oid>(
        "SELECT e.extowner FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'pg_mcp'",
        &[],
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
