//! The sandbox inside the planner.
//!
//! Two things the executor hook cannot see happen while PostgreSQL *plans* a tool's query:
//!
//! 1. **Parallel plans.** A parallel worker is another process: it never ran
//!    [`super::run_sandboxed`], so whatever it executes would run unguarded (a `PARALLEL SAFE`
//!    wrapper around a denied function, planned in parallel through `set_config` of the planner
//!    settings inside `query_to_xml`). While a tool runs, [`on_planner`] plans every query
//!    without `CURSOR_OPT_PARALLEL_OK`, so no setting can make it parallel. Plans built earlier
//!    outside the tool (a PL/pgSQL function's cached plan) may still be parallel: their workers
//!    get the guard through a GUC PostgreSQL copies into every worker (`super::worker`).
//! 2. **Operator functions called by the estimators.** To estimate a clause's selectivity the
//!    planner calls the operator's function on the column's most common values and histogram
//!    bounds (eqsel, scalarltsel, eqjoinsel, extended statistics …) through fmgr, without the
//!    function-execute hook, and it may use the operator's commutator or negator instead. Those
//!    calls need statistics of a relation, and every path to statistics passes one of three
//!    planner hooks (relation info, relation statistics, index statistics). There, before any
//!    estimate, [`check_root`] walks the query being planned — after inlining and constant
//!    folding, and the queries of every enclosing level — and refuses (42501) an operator whose
//!    function, commutator's or negator's function, or restriction/join estimator is denied.

use super::{raise_refusal, GUARD};
use pgrx::pg_sys;
use pgrx::prelude::*;
use pgrx::PgList;
use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void};
use std::sync::OnceLock;

static PREVIOUS_PLANNER: OnceLock<pg_sys::planner_hook_type> = OnceLock::new();
static PREVIOUS_REL_INFO: OnceLock<pg_sys::get_relation_info_hook_type> = OnceLock::new();
static PREVIOUS_REL_STATS: OnceLock<pg_sys::get_relation_stats_hook_type> = OnceLock::new();
static PREVIOUS_INDEX_STATS: OnceLock<pg_sys::get_index_stats_hook_type> = OnceLock::new();

thread_local! {
    /// Queries already walked in the current planning (their address): a query with many
    /// relations is walked once, not once per statistics lookup. Cleared whenever a planning
    /// starts or ends, so a later query at the same address is walked again.
    static WALKED: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

pub(super) fn init() {
    unsafe {
        let _ = PREVIOUS_PLANNER.set(pg_sys::planner_hook);
        pg_sys::planner_hook = Some(on_planner);
        let _ = PREVIOUS_REL_INFO.set(pg_sys::get_relation_info_hook);
        pg_sys::get_relation_info_hook = Some(on_relation_info);
        let _ = PREVIOUS_REL_STATS.set(pg_sys::get_relation_stats_hook);
        pg_sys::get_relation_stats_hook = Some(on_relation_stats);
        let _ = PREVIOUS_INDEX_STATS.set(pg_sys::get_index_stats_hook);
        pg_sys::get_index_stats_hook = Some(on_index_stats);
    }
}

fn guarded() -> bool {
    GUARD.with(|g| g.get()).is_some()
}

fn forget_walks() {
    WALKED.with(|w| w.borrow_mut().clear());
}

#[pg_guard]
unsafe extern "C-unwind" fn on_planner(
    parse: *mut pg_sys::Query,
    query_string: *const c_char,
    cursor_options: c_int,
    bound_params: pg_sys::ParamListInfo,
) -> *mut pg_sys::PlannedStmt {
    let options = if guarded() {
        forget_walks();
        cursor_options & !(pg_sys::CURSOR_OPT_PARALLEL_OK as c_int)
    } else {
        cursor_options
    };
    let planned = match PREVIOUS_PLANNER.get().copied().flatten() {
        Some(previous) => previous(parse, query_string, options, bound_params),
        None => pg_sys::standard_planner(parse, query_string, options, bound_params),
    };
    if guarded() {
        forget_walks();
    }
    planned
}

#[pg_guard]
unsafe extern "C-unwind" fn on_relation_info(
    root: *mut pg_sys::PlannerInfo,
    relation: pg_sys::Oid,
    inhparent: bool,
    rel: *mut pg_sys::RelOptInfo,
) {
    check_root(root);
    if let Some(Some(previous)) = PREVIOUS_REL_INFO.get() {
        previous(root, relation, inhparent, rel);
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn on_relation_stats(
    root: *mut pg_sys::PlannerInfo,
    rte: *mut pg_sys::RangeTblEntry,
    attnum: pg_sys::AttrNumber,
    vardata: *mut pg_sys::VariableStatData,
) -> bool {
    check_root(root);
    match PREVIOUS_REL_STATS.get() {
        Some(Some(previous)) => previous(root, rte, attnum, vardata),
        _ => false,
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn on_index_stats(
    root: *mut pg_sys::PlannerInfo,
    index: pg_sys::Oid,
    attnum: pg_sys::AttrNumber,
    vardata: *mut pg_sys::VariableStatData,
) -> bool {
    check_root(root);
    match PREVIOUS_INDEX_STATS.get() {
        Some(Some(previous)) => previous(root, index, attnum, vardata),
        _ => false,
    }
}

/// While a tool runs: walk the query of `root` and of every enclosing planner level, refusing
/// (ERROR 42501) any operator the estimators could call with a denied function.
unsafe fn check_root(mut root: *mut pg_sys::PlannerInfo) {
    let Some(level) = GUARD.with(|g| g.get()) else {
        return;
    };
    // A query nests at most as deep as the planner's own recursion; the bound only guards
    // against a corrupt parent chain.
    let mut depth = 0;
    while !root.is_null() && depth < 10_000 {
        let parse = (*root).parse;
        if !parse.is_null() {
            let key = parse as usize;
            let fresh = WALKED.with(|w| {
                let mut w = w.borrow_mut();
                if w.contains(&key) {
                    false
                } else {
                    w.push(key);
                    true
                }
            });
            if fresh {
                let mut walk = Walk { level, found: None };
                let wctx: *mut c_void = (&mut walk as *mut Walk).cast();
                pg_sys::query_tree_walker(parse, Some(walker), wctx, 0);
                if let Some(funcid) = walk.found {
                    // walked again next time: the refusal must repeat
                    forget_walks();
                    raise_refusal(funcid, level);
                }
            }
        }
        root = (*root).parent_root;
        depth += 1;
    }
}

struct Walk {
    level: super::GuardLevel,
    /// The first denied function found.
    found: Option<pg_sys::Oid>,
}

/// Every function the planner's estimators may call for operator `opno`: its own function, the
/// functions of its commutator and negator (and of theirs), and its restriction and join
/// estimators.
unsafe fn operator_functions(opno: pg_sys::Oid, out: &mut Vec<pg_sys::Oid>) {
    if opno == pg_sys::Oid::INVALID {
        return;
    }
    let mut ops = vec![opno];
    let com = pg_sys::get_commutator(opno);
    let neg = pg_sys::get_negator(opno);
    for o in [com, neg] {
        if o != pg_sys::Oid::INVALID {
            ops.push(o);
        }
    }
    if com != pg_sys::Oid::INVALID {
        ops.push(pg_sys::get_negator(com));
    }
    if neg != pg_sys::Oid::INVALID {
        ops.push(pg_sys::get_commutator(neg));
    }
    for o in ops {
        if o == pg_sys::Oid::INVALID {
            continue;
        }
        for f in [
            pg_sys::get_opcode(o),
            pg_sys::get_oprrest(o),
            pg_sys::get_oprjoin(o),
        ] {
            if f != pg_sys::Oid::INVALID {
                out.push(f);
            }
        }
    }
}

unsafe fn denied_in(ctx: *mut c_void, funcs: &[pg_sys::Oid]) -> bool {
    let walk = &mut *(ctx as *mut Walk);
    for &f in funcs {
        if super::refusal_for(f, walk.level).is_some() {
            walk.found = Some(f);
            return true;
        }
    }
    false
}

/// C calls it back (query_tree_walker, expression_tree_walker): guarded, so an ERROR inside
/// (stack depth) travels as an ordinary ERROR.
#[pg_guard]
unsafe extern "C-unwind" fn walker(node: *mut pg_sys::Node, ctx: *mut c_void) -> bool {
    if node.is_null() {
        return false;
    }
    pg_sys::check_stack_depth();
    use pg_sys::NodeTag::*;
    let mut funcs = Vec::new();
    match (*node).type_ {
        T_Query => {
            return pg_sys::query_tree_walker(node as *mut pg_sys::Query, Some(walker), ctx, 0);
        }
        T_OpExpr | T_DistinctExpr | T_NullIfExpr => {
            operator_functions((*(node as *mut pg_sys::OpExpr)).opno, &mut funcs);
        }
        T_ScalarArrayOpExpr => {
            operator_functions((*(node as *mut pg_sys::ScalarArrayOpExpr)).opno, &mut funcs);
        }
        T_RowCompareExpr => {
            let opnos = PgList::<c_void>::from_pg((*(node as *mut pg_sys::RowCompareExpr)).opnos);
            for i in 0..opnos.len() {
                if let Some(o) = opnos.get_oid(i) {
                    operator_functions(o, &mut funcs);
                }
            }
        }
        _ => {}
    }
    if denied_in(ctx, &funcs) {
        return true;
    }
    pg_sys::expression_tree_walker(node, Some(walker), ctx)
}
