//! pg_mcp's own fixed statements (registry lookups, audit writes) through SPI with plans that
//! are prepared once per backend and kept.

use pgrx::datum::DatumWithOid;
use pgrx::prelude::*;
use pgrx::spi::{OwnedPreparedStatement, SpiClient, SpiResult, SpiTupleTable};
use pgrx::PgOid;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

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
        let plan = kept_plan(c, sql, args, false)?;
        let t = c.select(&*plan, Some(1), args)?;
        if t.is_empty() {
            Ok(None)
        } else {
            f(&t.first()).map(Some)
        }
    })
}

/// [`first_row`] through the writing path (`Spi::connect_mut`, `update`): for a query that locks
/// its row (`FOR UPDATE`) or must see other transactions' commits made since the statement
/// started (each writing SPI statement takes a fresh snapshot). Not on a hot standby.
pub fn first_row_mut<T>(
    sql: &str,
    args: &[DatumWithOid<'_>],
    f: impl FnOnce(&SpiTupleTable<'_>) -> SpiResult<T>,
) -> SpiResult<Option<T>> {
    Spi::connect_mut(|c| {
        let plan = kept_plan(c, sql, args, true)?;
        let t = c.update(&*plan, Some(1), args)?;
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
        let plan = kept_plan(c, sql, args, false)?;
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

/// The first column of the first row of a read (`None` for NULL; an error when there is no row,
/// as `Spi::get_one_with_args`), through read-only SPI: `Spi::connect` and `select`. pgrx's
/// `Spi::get_one*`, `Spi::run*` and `Spi::connect_mut`'s `update` first ask for a transaction id
/// (`GetCurrentTransactionId`), which a hot standby cannot assign (XX000 "cannot assign
/// TransactionIds during recovery"), so no read path of pg_mcp uses them. `select` runs the
/// statement read-only until the transaction has written, then as any other (pgrx decides by
/// whether a transaction id was assigned), so a read still sees the transaction's own writes.
pub fn read_one<T: FromDatum + IntoDatum>(
    sql: &str,
    args: &[DatumWithOid<'_>],
) -> SpiResult<Option<T>> {
    Spi::connect(|c| c.select(sql, Some(1), args)?.first().get_one())
}

/// Whether this backend can assign a transaction id: not on a hot standby (recovery). A
/// statement that may write on the primary (through a function that checks
/// `transaction_read_only` itself) runs through pgrx's mutable SPI only where this holds.
pub fn can_assign_xid() -> bool {
    !unsafe { pg_sys::RecoveryInProgress() }
}

/// Refuse a command that writes in a read-only transaction (a hot standby, `SET TRANSACTION
/// READ ONLY`) with PostgreSQL's own check and message: 25006 "cannot execute NAME in a
/// read-only transaction", before it does any work (an embedding request, a sealed key).
pub fn prevent_if_read_only(name: &std::ffi::CStr) {
    // SAFETY: raises an ERROR (pgrx turns it into its unwinding) or returns
    unsafe { pg_sys::PreventCommandIfReadOnly(name.as_ptr()) }
}
