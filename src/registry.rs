//! The registry's functions and rights: function signatures resolved and cached per backend,
//! and who may manage the registry. (The checks of a tool row are `tools/definition.rs`.)

use crate::error::McpResult;
use crate::pg::first_row;
use pgrx::prelude::*;
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
    // A signature names its argument types in parentheses. From PostgreSQL 16 on,
    // to_regprocedure also takes the numeric form of regprocedure's input ('12345', '-') and
    // returns that OID unchecked: a row holding digits would name whatever function has that
    // OID. Text without '(' is therefore no signature on any version (15 raises for it).
    if !signature.contains('(') {
        return None;
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
    .flatten()
    .filter(|oid| *oid != pg_sys::InvalidOid);
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

/// Whether the calling role manages embedding models (UPDATE on mcp.embedding_model): it could
/// open any model's access_role, so it may use every model.
pub fn may_manage_embedding_models() -> bool {
    may_update_registry_table(c"embedding_model")
}

/// Whether the calling role may use an interface whose `access_role` column holds
/// `access_role`: the one privilege check of mcp.chat, mcp.list_tools, mcp.call_tool (and
/// mcp.handle). Superusers may; `'public'` opens the interface to every role; otherwise the
/// caller needs the privileges of the named role (`pg_has_role(…, 'USAGE')`: a member that
/// inherits it, directly or through other roles, as for a GRANT to that role). NULL is closed.
/// Roles that manage interfaces (UPDATE on mcp.interface) may use every interface: they could
/// set access_role themselves. A role that no longer exists admits nobody.
pub fn may_use_interface_role(access_role: Option<&str>) -> bool {
    has_access_role(access_role) || may_manage_interfaces()
}

/// Whether the calling role may use an embedding model whose `access_role` column holds
/// `access_role`: the gate of mcp.embed, mcp.ingest, the search tools and context_retrieve, with
/// the rules of [`may_use_interface_role`] (model managers instead of interface managers).
pub fn may_use_embedding_model_role(access_role: Option<&str>) -> bool {
    has_access_role(access_role) || may_manage_embedding_models()
}

/// Superuser, `'public'`, or the privileges of the named role (NULL: closed).
fn has_access_role(access_role: Option<&str>) -> bool {
    let me = unsafe { pgrx::pg_sys::GetUserId() };
    if unsafe { pgrx::pg_sys::superuser_arg(me) } {
        return true;
    }
    let member = match access_role {
        Some("public") => true,
        Some(role) => match std::ffi::CString::new(role) {
            Ok(name) => unsafe {
                let oid = pgrx::pg_sys::get_role_oid(name.as_ptr(), true);
                oid != pgrx::pg_sys::Oid::INVALID && pgrx::pg_sys::has_privs_of_role(me, oid)
            },
            Err(_) => false,
        },
        None => false,
    };
    member
}
