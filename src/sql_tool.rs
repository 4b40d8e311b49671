//! The read-only query context shared by the `sql_query` tool, report tools and the
//! `schema_information` tool, and the MCP server's resources.
//!
//! What enforces "read-only" is PostgreSQL, not a text scan:
//! 1. PostgreSQL's own parser: exactly one statement, and it must be a query (SELECT, VALUES,
//!    TABLE, WITH … SELECT, or EXPLAIN without ANALYZE); no SELECT INTO, no FOR UPDATE/SHARE,
//!    no data-modifying WITH.
//! 2. Parse analysis + rewrite (views expanded): every function the query calls directly
//!    (functions, operators, aggregates, window functions, casts) is checked against the
//!    sandbox's denied classes ([`mcp_tools::sandbox`]), for a refusal that names it. The
//!    executor hook of [`crate::sandbox`] refuses the same classes again where PostgreSQL
//!    executes them, which also covers dynamic SQL and PL functions.
//! 3. Execution in a subtransaction with `transaction_read_only = on` (the executor refuses every
//!    table write and `nextval`/`setval`; large-object writes are refused by the sandbox), under
//!    the tool's own time limit, as the calling role (grants and row-level security apply) in a
//!    security-restricted operation, and **always rolled back** after the rows were copied out,
//!    which also undoes `set_config(…, false)` and temp-table writes.

use crate::bind::Param;
use crate::gucs;
use crate::pg::{in_subtransaction, set_guc, PgErrorInfo};
use crate::rows;
use crate::sandbox::{self, GuardLevel};
use pgrx::datum::DatumWithOid;
use pgrx::pg_sys;
use pgrx::prelude::*;
use pgrx::PgList;
use std::ffi::{c_void, CStr, CString};

/// Why a read-only query produced no rows.
#[derive(Debug)]
pub enum QueryFault {
    /// Refused before execution; the text is for the model (it names no data).
    Refused(String),
    /// Failed while running (SQLSTATE + message for the operator only). A time-limit expiry is
    /// SQLSTATE 57014.
    Failed(PgErrorInfo),
}

unsafe fn cstr_owned(p: *const std::ffi::c_char) -> Option<String> {
    (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
}

/// Refusal for row locks, found in the raw tree (top level) or the analyzed one (subqueries).
const LOCKING_REFUSAL: &str =
    "SELECT … FOR UPDATE/SHARE locks rows; this tool only reads. Remove the locking clause.";

/// What the analyzed-tree walk found.
struct Walk {
    refusal: Option<String>,
}

/// Record a refusal in the walk's context (no reference is held across the C walkers).
unsafe fn refuse(ctx: *mut c_void, why: String) -> bool {
    (*(ctx as *mut Walk)).refusal = Some(why);
    true
}

/// The walk over the analyzed and rewritten query. C (query_tree_walker,
/// expression_tree_walker) calls it back, so it is guarded: an ERROR inside (PostgreSQL's
/// "stack depth limit exceeded" on a deep tree) travels as an ordinary ERROR through the C
/// frames instead of a Rust panic that cannot unwind there.
#[pg_guard]
unsafe extern "C-unwind" fn walker(node: *mut pg_sys::Node, ctx: *mut c_void) -> bool {
    if node.is_null() {
        return false;
    }
    pg_sys::check_stack_depth();
    if (*node).type_ == pg_sys::NodeTag::T_Query {
        let q = node as *mut pg_sys::Query;
        if (*q).commandType != pg_sys::CmdType::CMD_SELECT
            || !(*q).utilityStmt.is_null()
            || (*q).hasModifyingCTE
        {
            return refuse(
                ctx,
                "The query contains a statement that changes data.".into(),
            );
        }
        if !(*q).rowMarks.is_null() {
            return refuse(ctx, LOCKING_REFUSAL.into());
        }
        return pg_sys::query_tree_walker(q, Some(walker), ctx, 0);
    }
    // Every function the node calls: functions, operators, aggregates, window functions,
    // casts through I/O, row comparisons (PostgreSQL's own list, check_functions_in_node).
    if pg_sys::check_functions_in_node(node, Some(function_checker), ctx) {
        return true;
    }
    pg_sys::expression_tree_walker(node, Some(walker), ctx)
}

/// Called by check_functions_in_node for each function a node calls.
#[pg_guard]
unsafe extern "C-unwind" fn function_checker(funcid: pg_sys::Oid, ctx: *mut c_void) -> bool {
    match sandbox::refusal_for(funcid, GuardLevel::ReadOnly) {
        Some(why) => refuse(ctx, why),
        None => false,
    }
}

fn command_name(node: *mut pg_sys::Node) -> String {
    unsafe { cstr_owned(pg_sys::CreateCommandName(node)) }.unwrap_or_else(|| "a command".into())
}

/// Refusals visible in the raw parse tree of a SELECT.
unsafe fn check_raw_select(s: *mut pg_sys::SelectStmt) -> Result<(), String> {
    if !(*s).intoClause.is_null() {
        return Err(
            "SELECT … INTO creates a table; this tool only reads. Use a plain SELECT.".into(),
        );
    }
    if !(*s).lockingClause.is_null() {
        return Err(LOCKING_REFUSAL.into());
    }
    if !(*s).withClause.is_null() {
        let ctes = PgList::<pg_sys::CommonTableExpr>::from_pg((*(*s).withClause).ctes);
        for i in 0..ctes.len() {
            let Some(cte) = ctes.get_ptr(i) else { continue };
            let q = (*cte).ctequery;
            if !q.is_null() && (*q).type_ != pg_sys::NodeTag::T_SelectStmt {
                return Err(format!(
                    "A WITH clause may only hold queries; this one holds {}.",
                    command_name(q)
                ));
            }
        }
    }
    Ok(())
}

fn explain_has_analyze(e: *mut pg_sys::ExplainStmt) -> bool {
    unsafe {
        let opts = PgList::<pg_sys::DefElem>::from_pg((*e).options);
        (0..opts.len()).any(|i| {
            opts.get_ptr(i)
                .and_then(|d| cstr_owned((*d).defname))
                .is_some_and(|n| n.eq_ignore_ascii_case("analyze"))
        })
    }
}

// One `cfg` per supported version (14-18): a new version (19) does not compile until someone
// checked which of the two it has.
#[cfg(feature = "pg14")]
unsafe fn analyze(
    raw: *mut pg_sys::RawStmt,
    sql: &CStr,
    types: &[pg_sys::Oid],
) -> *mut pg_sys::List {
    pg_sys::pg_analyze_and_rewrite(
        raw,
        sql.as_ptr(),
        types.as_ptr().cast_mut(),
        types.len() as i32,
        std::ptr::null_mut(),
    )
}

#[cfg(any(feature = "pg15", feature = "pg16", feature = "pg17", feature = "pg18"))]
unsafe fn analyze(
    raw: *mut pg_sys::RawStmt,
    sql: &CStr,
    types: &[pg_sys::Oid],
) -> *mut pg_sys::List {
    pg_sys::pg_analyze_and_rewrite_fixedparams(
        raw,
        sql.as_ptr(),
        types.as_ptr(),
        types.len() as i32,
        std::ptr::null_mut(),
    )
}

/// Check that `sql` is exactly one read-only query. Raises on syntax errors and on analysis
/// errors (unknown table …), so call it inside a subtransaction. `Err` is a refusal for the
/// model.
pub fn check_statement(sql: &str, param_types: &[pg_sys::Oid]) -> Result<(), String> {
    let Ok(c_sql) = CString::new(sql) else {
        return Err("The query contains a NUL character.".into());
    };
    unsafe {
        let list = pg_sys::raw_parser(c_sql.as_ptr(), pg_sys::RawParseMode::RAW_PARSE_DEFAULT);
        let stmts = PgList::<pg_sys::RawStmt>::from_pg(list);
        match stmts.len() {
            0 => return Err("The query is empty.".into()),
            1 => {}
            n => {
                return Err(format!(
                    "Exactly one statement is allowed; this text holds {n}."
                ))
            }
        }
        let raw = stmts.get_ptr(0).expect("one statement");
        let node = (*raw).stmt;
        match (*node).type_ {
            pg_sys::NodeTag::T_SelectStmt => check_raw_select(node as *mut pg_sys::SelectStmt)?,
            pg_sys::NodeTag::T_ExplainStmt => {
                let e = node as *mut pg_sys::ExplainStmt;
                if explain_has_analyze(e) {
                    return Err("EXPLAIN ANALYZE executes the query; use EXPLAIN without ANALYZE.".into());
                }
                let inner = (*e).query;
                if inner.is_null() || (*inner).type_ != pg_sys::NodeTag::T_SelectStmt {
                    return Err(format!(
                        "Only queries can be explained; this is {}.",
                        command_name(inner)
                    ));
                }
                check_raw_select(inner as *mut pg_sys::SelectStmt)?;
                // EXPLAIN without ANALYZE plans but does not run the query.
                return Ok(());
            }
            _ => {
                return Err(format!(
                    "Only queries are allowed (SELECT, WITH … SELECT, VALUES, TABLE, EXPLAIN); this is {}.",
                    command_name(node)
                ))
            }
        }
        let queries = PgList::<pg_sys::Query>::from_pg(analyze(raw, &c_sql, param_types));
        let mut walk = Walk { refusal: None };
        let ctx: *mut c_void = (&mut walk as *mut Walk).cast();
        for i in 0..queries.len() {
            if let Some(q) = queries.get_ptr(i) {
                // walker is a C callback: called from Rust, it needs the FFI boundary that
                // turns its ERROR into a Rust panic the caller's subtransaction catches.
                pg_sys::ffi::pg_guard_ffi_boundary(|| walker(q.cast(), ctx));
                if let Some(r) = walk.refusal.take() {
                    return Err(r);
                }
            }
        }
        Ok(())
    }
}

enum Inner {
    Refused(String),
    Spi(String),
}

/// Run `f` in the read-only context: a subtransaction with `transaction_read_only = on` that
/// is always rolled back. `f`'s SQL errors become [`QueryFault::Failed`].
pub fn read_only<R>(f: impl FnOnce() -> Result<R, pgrx::spi::SpiError>) -> Result<R, QueryFault> {
    read_only_inner(|| f().map_err(|e| Inner::Spi(e.to_string())))
}

fn read_only_inner<R>(f: impl FnOnce() -> Result<R, Inner>) -> Result<R, QueryFault> {
    let outcome = in_subtransaction(true, || {
        // read-only for this subtransaction; reverted when it is rolled back
        set_guc(c"transaction_read_only", "on");
        f()
    });
    match outcome {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(Inner::Refused(m))) => Err(QueryFault::Refused(m)),
        Ok(Err(Inner::Spi(m))) => Err(QueryFault::Failed(PgErrorInfo {
            sqlstate: "XX000".into(),
            message: m,
        })),
        Err(info) => Err(QueryFault::Failed(info)),
    }
}

/// Run one query in the read-only context: check it, bind `params` ([`Param::datum`]),
/// execute it as the calling role through a cursor, copy out the rows `collect` allows (see
/// [`rows::fetch`]), and roll everything back. The caller arms the time limit
/// ([`crate::pg::with_tool_timeout`]) and the sandbox ([`crate::sandbox::run_sandboxed`]).
pub fn run_read_only(
    sql: &str,
    params: &[Param],
    collect: &rows::CollectOptions,
) -> Result<rows::Fetched, QueryFault> {
    let types: Vec<pg_sys::Oid> = params.iter().map(|p| p.oid).collect();
    read_only_inner(|| {
        check_statement(sql, &types).map_err(Inner::Refused)?;
        let datums: Vec<DatumWithOid> = params.iter().map(Param::datum).collect();
        rows::fetch(sql, &datums, collect).map_err(|e| Inner::Spi(e.to_string()))
    })
}

/// Whether the calling role is a superuser, and the operator has not allowed the SQL tool
/// for superusers (who bypass grants and row-level security).
pub fn superuser_refused() -> bool {
    let su = unsafe { pg_sys::superuser() };
    su && !gucs::ALLOW_SUPERUSER_SQL.get()
}
