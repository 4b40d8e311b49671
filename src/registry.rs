//! The registry's rules that a CHECK constraint cannot express: function signatures resolved
//! and cached per backend, the checks of a tool row (used by the `mcp.tool` trigger in
//! `api/registry.rs`), and who may manage the registry.

use crate::error::{McpError, McpResult};
use crate::pg::first_row;
use pgrx::prelude::*;
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::c_int;

/// The input arguments of a function, from pg_proc.
#[derive(Clone)]
pub struct FunctionSignature {
    /// Schema-qualified, quoted name, ready to put in SQL.
    pub qualified_name: String,
    pub display: String,
    /// Name and type of each input argument.
    pub args: Vec<FunctionArg>,
    pub args_without_default: usize,
    pub kind: String,
}

#[derive(Clone)]
pub struct FunctionArg {
    pub name: Option<String>,
    pub type_oid: pg_sys::Oid,
}

thread_local! {
    /// Signatures per (function, search_path): formatted type names depend on the search_path.
    static SIGNATURES: RefCell<HashMap<(pg_sys::Oid, String), FunctionSignature>> =
        RefCell::new(HashMap::new());
    /// Stored function signatures (`mcp.tool.function`, `mcp.resource.function`) resolved per
    /// (text, search_path, role): the function's OID, or `None` when none exists. The role is
    /// part of the key because a search_path may name `"$user"`.
    static RESOLVED: RefCell<HashMap<(String, String, pg_sys::Oid), Option<pg_sys::Oid>>> =
        RefCell::new(HashMap::new());
    /// Bumped by the syscache callback when pg_proc, pg_type or pg_namespace change.
    static CATALOG_GENERATION: Cell<u64> = const { Cell::new(0) };
    static SEEN_GENERATION: Cell<u64> = const { Cell::new(0) };
    static CALLBACKS_REGISTERED: Cell<bool> = const { Cell::new(false) };
}

/// Entries a cache may hold before it is emptied: the keys include text a caller chooses
/// (`mcp.resolve_function`'s argument, the search_path), so without a bound one session could
/// grow its backend's memory without end.
const CACHE_MAX_ENTRIES: usize = 10_000;

fn insert_bounded<K: std::hash::Hash + Eq, V>(cache: &mut HashMap<K, V>, key: K, value: V) {
    if cache.len() >= CACHE_MAX_ENTRIES {
        cache.clear();
    }
    cache.insert(key, value);
}

/// Syscache invalidation callback: runs while PostgreSQL processes invalidation messages, so it
/// only bumps a counter (no allocation, no borrow). Guarded like every callback C calls.
#[pg_guard]
unsafe extern "C-unwind" fn catalog_changed(_arg: pg_sys::Datum, _cacheid: c_int, _hash: u32) {
    CATALOG_GENERATION.with(|g| g.set(g.get().wrapping_add(1)));
}

fn register_catalog_callbacks() {
    if CALLBACKS_REGISTERED.with(|r| r.replace(true)) {
        return;
    }
    for cache in [
        pg_sys::SysCacheIdentifier::PROCOID,
        pg_sys::SysCacheIdentifier::TYPEOID,
        pg_sys::SysCacheIdentifier::NAMESPACEOID,
    ] {
        unsafe {
            pg_sys::CacheRegisterSyscacheCallback(
                cache as c_int,
                Some(catalog_changed),
                pg_sys::Datum::from(0),
            )
        };
    }
}

/// The current catalog generation, after processing pending invalidations (so a change
/// committed by another session counts); both caches are emptied when it moved. Cache an entry
/// computed after this call only if the generation is still the same afterwards: computing it
/// may itself have processed invalidations.
fn catalog_generation() -> u64 {
    register_catalog_callbacks();
    unsafe { pg_sys::AcceptInvalidationMessages() };
    let generation = CATALOG_GENERATION.with(|g| g.get());
    if SEEN_GENERATION.with(|s| s.replace(generation)) != generation {
        SIGNATURES.with(|m| m.borrow_mut().clear());
        RESOLVED.with(|m| m.borrow_mut().clear());
    }
    generation
}

/// A function's signature, from a per-backend cache that is dropped whenever pg_proc, pg_type
/// or pg_namespace change (syscache invalidation), so CREATE OR REPLACE, renames and drops are
/// seen at once. `None` when the OID no longer exists.
pub fn function_signature(oid: pg_sys::Oid) -> McpResult<Option<FunctionSignature>> {
    let generation = catalog_generation();
    let key = (oid, crate::pg::guc_value(c"search_path"));
    if let Some(sig) = SIGNATURES.with(|m| m.borrow().get(&key).cloned()) {
        return Ok(Some(sig));
    }
    let sig = load_function_signature(oid)?;
    if let Some(sig) = &sig {
        if CATALOG_GENERATION.with(|g| g.get()) == generation {
            SIGNATURES.with(|m| insert_bounded(&mut m.borrow_mut(), key, sig.clone()));
        }
    }
    Ok(sig)
}

/// The function a stored signature such as `demo.get_tv(text,text,text[])` names now, resolved
/// like `to_regprocedure` with the caller's search_path, from a per-backend cache with the same
/// invalidation as [`function_signature`] (a rename, drop or new function is seen at once).
/// `None` when no such function exists, also when a type in it no longer exists or the text is
/// not a signature at all (where `to_regprocedure` raises): a registry row must never make
/// listing or calling the other tools fail.
pub fn resolve_function(signature: &str) -> Option<pg_sys::Oid> {
    let generation = catalog_generation();
    let key = (
        signature.to_string(),
        crate::pg::guc_value(c"search_path"),
        unsafe { pg_sys::GetUserId() },
    );
    if let Some(resolved) = RESOLVED.with(|m| m.borrow().get(&key).copied()) {
        return resolved;
    }
    // A subtransaction only on a cache miss: to_regprocedure raises for unknown types and
    // malformed text. Cancel and statement_timeout still propagate.
    let resolved = crate::pg::in_subtransaction(false, || unsafe {
        pgrx::direct_function_call::<pg_sys::Oid>(
            pg_sys::to_regprocedure,
            &[signature.into_datum()],
        )
    })
    .ok()
    .flatten();
    if CATALOG_GENERATION.with(|g| g.get()) == generation {
        RESOLVED.with(|m| insert_bounded(&mut m.borrow_mut(), key, resolved));
    }
    resolved
}

/// Entries in the resolved-signature cache (for the test of its bound).
#[cfg(any(test, feature = "pg_test"))]
pub fn resolved_cache_len() -> usize {
    RESOLVED.with(|m| m.borrow().len())
}

/// Whether the calling role has EXECUTE on a function (false when it no longer exists).
pub fn may_execute_function(oid: pg_sys::Oid) -> bool {
    unsafe {
        pgrx::direct_function_call::<bool>(
            pg_sys::has_function_privilege_id,
            &[oid.into_datum(), "EXECUTE".into_datum()],
        )
    }
    .unwrap_or(false)
}

/// Read a function's signature from the catalog. `None` when the OID no longer exists.
fn load_function_signature(oid: pg_sys::Oid) -> McpResult<Option<FunctionSignature>> {
    let sig = first_row(
            "SELECT pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(p.proname),
                    pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(p.proname) || '(' ||
                    pg_catalog.array_to_string(ARRAY(SELECT pg_catalog.format_type(u.t, NULL)
                        FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS u(t, o) ORDER BY u.o), ',') || ')',
                    p.proargnames,
                    p.proargmodes::text[],
                    p.pronargs::int4, p.pronargdefaults::int4, p.prokind::text,
                    ARRAY(SELECT u.t FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS u(t, o) ORDER BY u.o)
               FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
              WHERE p.oid = $1",
            &[oid.into()],
            |t| {
        let qualified_name: String = t.get(1)?.unwrap_or_default();
        let display: String = t.get(2)?.unwrap_or_default();
        let names: Option<Vec<Option<String>>> = t.get(3)?;
        let modes: Option<Vec<Option<String>>> = t.get(4)?;
        let nargs: i32 = t.get(5)?.unwrap_or(0);
        let ndefaults: i32 = t.get(6)?.unwrap_or(0);
        let kind: String = t.get(7)?.unwrap_or_default();
        let types: Vec<Option<pg_sys::Oid>> = t.get(8)?.unwrap_or_default();
        // proargnames covers all arguments (incl. OUT) when proargmodes is set; keep inputs.
        let input_names: Vec<Option<String>> = match (names, modes) {
            (Some(n), Some(m)) => n
                .into_iter()
                .zip(m)
                .filter(|(_, mode)| matches!(mode.as_deref(), Some("i") | Some("b") | Some("v")))
                .map(|(n, _)| n)
                .collect(),
            (Some(n), None) => n,
            (None, _) => vec![None; nargs.max(0) as usize],
        };
        let args = (0..nargs.max(0) as usize)
            .map(|i| FunctionArg {
                name: input_names
                    .get(i)
                    .cloned()
                    .flatten()
                    .filter(|s| !s.is_empty()),
                type_oid: types
                    .get(i)
                    .copied()
                    .flatten()
                    .unwrap_or(pg_sys::Oid::INVALID),
            })
            .collect();
        Ok(FunctionSignature {
            qualified_name,
            display,
            args,
            args_without_default: (nargs - ndefaults).max(0) as usize,
            kind,
        })
    })?;
    Ok(sig)
}

/// Problems with a tool row; empty when the row is acceptable.
pub fn tool_definition_problems(
    name: &str,
    kind: &str,
    parameters: &Value,
    function: Option<pg_sys::Oid>,
    body: Option<&str>,
) -> McpResult<Vec<String>> {
    let mut problems = Vec::new();
    if let Err(errs) = mcp_tools::check_tool_schema(parameters) {
        problems.extend(errs.into_iter().map(|e| {
            match e.strip_prefix(mcp_tools::validate::TOO_COMPLEX) {
                Some(why) => format!("parameters is too complex to validate: {why}"),
                None => format!("parameters is not a valid JSON Schema: {e}"),
            }
        }));
    }
    if let Some(oid) = function {
        match function_signature(oid)? {
            None => problems.push(format!("function with OID {} does not exist", oid.to_u32())),
            Some(sig) => {
                if sig.kind != "f" {
                    problems.push(format!("{} is not a plain function (procedures, aggregates and window functions cannot be tools)", sig.display));
                }
                let props: Vec<String> = mcp_tools::properties(parameters)
                    .into_iter()
                    .map(|(n, _)| n)
                    .collect();
                let required = mcp_tools::required_properties(parameters);
                for (i, a) in sig.args.iter().enumerate() {
                    match &a.name {
                        None => problems.push(format!(
                            "argument {} of {} has no name: tool arguments are bound by name",
                            i + 1,
                            sig.display
                        )),
                        Some(n) => {
                            if i < sig.args_without_default && !required.contains(n) {
                                problems.push(format!(
                                    "argument '{n}' of {} has no default, so '{n}' must be a required property of parameters",
                                    sig.display
                                ));
                            }
                        }
                    }
                }
                let arg_names: Vec<&str> =
                    sig.args.iter().filter_map(|a| a.name.as_deref()).collect();
                for p in &props {
                    if !arg_names.contains(&p.as_str()) {
                        let kind_word = if required.contains(p) {
                            "required property"
                        } else {
                            "property"
                        };
                        problems.push(format!(
                            "{kind_word} '{p}' has no matching argument in {} (arguments: {})",
                            sig.display,
                            if arg_names.is_empty() {
                                "none".to_string()
                            } else {
                                arg_names.join(", ")
                            }
                        ));
                    }
                }
                for r in &required {
                    if !props.contains(r) && !arg_names.contains(&r.as_str()) {
                        problems.push(format!(
                            "required property '{r}' has no matching argument in {}",
                            sig.display
                        ));
                    }
                }
            }
        }
    } else if kind == "function" {
        problems.push("a tool of kind 'function' needs a function".into());
    } else if kind == "builtin" && !crate::tools::names::WITHOUT_FUNCTION.contains(&name) {
        problems.push(format!(
            "there is no built-in tool named \"{name}\" (built-ins without a function: {})",
            crate::tools::names::WITHOUT_FUNCTION.join(", ")
        ));
    }
    if kind == "report" {
        if function.is_some() {
            problems.push("a report tool has no function: its body is the query".into());
        }
        if let Some(body) = body {
            if let Some(p) = report_body_problem(body, parameters) {
                problems.push(p);
            }
        }
    }
    Ok(problems)
}

/// Check a report body the way it will run: one read-only query, analyzed with the typed
/// parameters of the schema (unknown tables, columns or `$n` beyond the properties are found
/// here, at registration). Runs in a subtransaction that is always rolled back.
fn report_body_problem(body: &str, parameters: &Value) -> Option<String> {
    let types = crate::tools::report_param_types(parameters);
    match crate::pg::in_subtransaction(true, || crate::sql_tool::check_statement(body, &types)) {
        Ok(Ok(())) => None,
        Ok(Err(refusal)) => Some(format!("body refused: {refusal}")),
        Err(e) => Some(format!(
            "body does not analyze: {} ({})",
            e.message, e.sqlstate
        )),
    }
}

/// Raise 23514 when a tool row is refused.
pub fn refuse_tool_definition(
    name: &str,
    kind: &str,
    parameters: &Value,
    function: Option<pg_sys::Oid>,
    body: Option<&str>,
) -> McpResult<()> {
    let problems = tool_definition_problems(name, kind, parameters, function, body)?;
    if problems.is_empty() {
        Ok(())
    } else {
        Err(McpError::CheckViolation(format!(
            "tool \"{name}\" refused: {}",
            problems.join("; ")
        )))
    }
}

/// Whether `check_function_bodies` is on; off is how pg_dump's output restores, and then the
/// trigger takes rows as dumped (a tool refused now — its function dropped, a body over a table
/// not restored yet, a stricter check in a newer version — would otherwise fail the whole COPY).
pub fn checking_bodies() -> bool {
    crate::pg::guc_value(c"check_function_bodies") != "off"
}

/// Whether the calling role holds UPDATE on the registry table `mcp.<table>` (table-level, as
/// `has_table_privilege` checks it). Superusers always do. No SPI: syscache lookups only.
fn may_update_registry_table(table: &std::ffi::CStr) -> bool {
    unsafe {
        let ns = pg_sys::get_namespace_oid(c"mcp".as_ptr(), true);
        if ns == pg_sys::Oid::INVALID {
            return false;
        }
        let rel = pg_sys::get_relname_relid(table.as_ptr(), ns);
        rel != pg_sys::Oid::INVALID
            && pg_sys::pg_class_aclcheck(rel, pg_sys::GetUserId(), pg_sys::ACL_UPDATE as _)
                == pg_sys::AclResult::ACLCHECK_OK
    }
}

/// Whether the calling role manages providers (UPDATE on mcp.provider): it may set their keys,
/// see which have one, and point a chat at any provider (and so at its key).
pub fn may_manage_providers() -> McpResult<bool> {
    Ok(may_update_registry_table(c"provider"))
}

/// Whether the calling role manages interfaces (UPDATE on mcp.interface): it could change any
/// interface's limits, provider and access_role, so it may lift them per chat with `options`,
/// and it may use every interface.
pub fn may_manage_interfaces() -> bool {
    may_update_registry_table(c"interface")
}
