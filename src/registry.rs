//! Registry rules that a CHECK constraint cannot express, and the API-key store.

use crate::error::{required, McpError, McpResult};
use crate::jsonb::JsonbArg;
use crate::pg_util::{as_extension_owner, first_row};
use pgrx::pg_sys::panic::ErrorReport;
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
    /// (name, type oid, formatted type, type category) of each input argument.
    pub args: Vec<FunctionArg>,
    pub args_without_default: usize,
    pub kind: String,
}

#[derive(Clone)]
pub struct FunctionArg {
    pub name: Option<String>,
    pub type_oid: pg_sys::Oid,
    pub type_sql: String,
    pub category: String,
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
    let key = (oid, crate::pg_util::guc_value(c"search_path"));
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
        crate::pg_util::guc_value(c"search_path"),
        unsafe { pg_sys::GetUserId() },
    );
    if let Some(resolved) = RESOLVED.with(|m| m.borrow().get(&key).copied()) {
        return resolved;
    }
    // A subtransaction only on a cache miss: to_regprocedure raises for unknown types and
    // malformed text. Cancel and statement_timeout still propagate.
    let resolved = crate::pg_util::in_subtransaction(false, || unsafe {
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

/// `mcp.resolve_function`: [`resolve_function`] for SQL (the registry triggers and the view
/// `mcp.unresolved_functions`).
#[pg_extern(name = "resolve_function", stable, strict)]
fn resolve_function_sql(signature: &str) -> Option<pg_sys::Oid> {
    resolve_function(signature)
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
                    ARRAY(SELECT u.t FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS u(t, o) ORDER BY u.o),
                    ARRAY(SELECT pg_catalog.format_type(u.t, NULL) FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS u(t, o) ORDER BY u.o),
                    ARRAY(SELECT ty.typcategory::text FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS u(t, o)
                          JOIN pg_catalog.pg_type ty ON ty.oid = u.t ORDER BY u.o)
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
        let type_sql: Vec<Option<String>> = t.get(9)?.unwrap_or_default();
        let cats: Vec<Option<String>> = t.get(10)?.unwrap_or_default();
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
                type_sql: type_sql.get(i).cloned().flatten().unwrap_or_default(),
                category: cats.get(i).cloned().flatten().unwrap_or_default(),
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
    } else if kind == "builtin"
        && ![
            crate::tools::SQL_QUERY,
            crate::tools::SCHEMA_INFORMATION,
            crate::retrieval::CONTEXT_RETRIEVE,
        ]
        .contains(&name)
    {
        problems.push(format!(
            "there is no built-in tool named \"{name}\" (built-ins without a function: {}, {}, {})",
            crate::tools::SQL_QUERY,
            crate::tools::SCHEMA_INFORMATION,
            crate::retrieval::CONTEXT_RETRIEVE
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
    let types: Vec<pg_sys::Oid> = mcp_tools::report::report_params(parameters)
        .iter()
        .map(|p| crate::sql_tool::type_oid(p.sql_type))
        .collect();
    match crate::pg_util::in_subtransaction(true, || crate::sql_tool::check_statement(body, &types))
    {
        Ok(Ok(())) => None,
        Ok(Err(refusal)) => Some(format!("body refused: {refusal}")),
        Err(e) => Some(format!(
            "body does not analyze: {} ({})",
            e.message, e.sqlstate
        )),
    }
}

/// Raise 23514 when a tool row is refused.
fn refuse_tool_definition(
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

/// Checks a tool definition like the registry trigger does: raises check_violation when the
/// schema is invalid or too complex, does not fit its function, or the report body is not one
/// read-only query. Not granted to PUBLIC (the trigger does not need it).
#[pg_extern(name = "check_tool_definition")]
fn check_tool_definition(
    name: Option<&str>,
    kind: Option<&str>,
    parameters: Option<JsonbArg>,
    function: Option<pg_sys::Oid>,
    body: default!(Option<&str>, "NULL"),
) -> Result<(), ErrorReport> {
    let f = "check_tool_definition";
    let (name, kind) = (required(name, f, "name")?, required(kind, f, "kind")?);
    let parameters = required(parameters, f, "parameters")?.value("parameters")?;
    Ok(refuse_tool_definition(
        name,
        kind,
        &parameters,
        function,
        body,
    )?)
}

/// Whether `check_function_bodies` is on; off is how pg_dump's output restores, and then the
/// trigger takes rows as dumped (a tool refused now — its function dropped, a body over a table
/// not restored yet, a stricter check in a newer version — would otherwise fail the whole COPY).
fn checking_bodies() -> bool {
    crate::pg_util::guc_value(c"check_function_bodies") != "off"
}

/// The `mcp.tool` row trigger (BEFORE INSERT OR UPDATE): stores the function signature in its
/// schema-qualified form (`mcp.check_function_signature`: 23514 naming the tool when it names no
/// function), refuses a row whose parameters are not a valid JSON Schema or too complex to
/// validate, do not fit the function's arguments, or whose report body is not one read-only
/// query (SQLSTATE 23514), and stamps `updated_at` on UPDATE (an INSERT keeps an explicit value,
/// so a restored dump keeps its timestamps). With `check_function_bodies = off` (a restore) rows
/// are taken as dumped.
///
/// A C trigger function rather than PL/pgSQL calling `mcp.check_tool_definition`: PostgreSQL
/// checks EXECUTE only where a function is called from SQL, not where a trigger fires, so
/// `check_tool_definition` needs no PUBLIC grant and a role with INSERT/UPDATE on `mcp.tool`
/// (superuser or not) can register tools. The checks run as the inserting role with its
/// search_path (signatures and report bodies resolve names the way the admin wrote them):
/// nothing runs with the owner's rights, so no SECURITY DEFINER and no pinned search_path.
#[pg_trigger]
fn tool_row_check<'a>(
    trigger: &'a PgTrigger<'a>,
) -> Result<Option<PgHeapTuple<'a, AllocatedByRust>>, std::convert::Infallible> {
    let Some(new) = trigger.new() else {
        return Ok(None);
    };
    let mut new = new.into_owned();
    let text = |tuple: &PgHeapTuple<'a, AllocatedByRust>, col: &str| -> Option<String> {
        tuple
            .get_by_name::<String>(col)
            .unwrap_or_else(|e| McpError::Internal(format!("mcp.tool.{col}: {e}")).raise())
    };
    let name = text(&new, "name").unwrap_or_default();
    let kind = text(&new, "kind").unwrap_or_default();
    let body = text(&new, "body");
    let mut function = None;
    if let Some(signature) = text(&new, "function") {
        let stored = Spi::get_one_with_args::<String>(
            "SELECT mcp.check_function_signature($1, $2)",
            &[signature.clone().into(), format!("tool \"{name}\"").into()],
        )
        .unwrap_or_else(|e| McpError::Internal(format!("mcp.tool.function: {e}")).raise())
        .unwrap_or(signature);
        function = resolve_function(&stored);
        new.set_by_name("function", stored)
            .unwrap_or_else(|e| McpError::Internal(format!("mcp.tool.function: {e}")).raise());
    }
    if checking_bodies() {
        let parameters = new
            .get_by_name::<JsonbArg>("parameters")
            .unwrap_or_else(|e| McpError::Internal(format!("mcp.tool.parameters: {e}")).raise())
            .map(|p| p.value("parameters"))
            .transpose()
            .and_then(|p| {
                p.ok_or_else(|| {
                    McpError::CheckViolation(format!(
                        "tool \"{name}\" refused: parameters must not be NULL"
                    ))
                })
            })
            .unwrap_or_else(|e| e.raise());
        if let Err(e) = refuse_tool_definition(&name, &kind, &parameters, function, body.as_deref())
        {
            e.raise();
        }
    }
    if matches!(trigger.op(), Ok(PgTriggerOperation::Update)) {
        new.set_by_name("updated_at", pgrx::datetime::now())
            .unwrap_or_else(|e| McpError::Internal(format!("mcp.tool.updated_at: {e}")).raise());
    }
    Ok(Some(new))
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

fn providers_privilege_error(what: &str) -> McpError {
    McpError::Privilege(format!(
        "permission denied to {what}: UPDATE on mcp.provider is required"
    ))
}

/// The server key named by `mcp.server_key_file`; 55000 when none is configured, F0000 when the
/// file is unusable (unreadable, group/world-accessible, not a key).
fn server_key() -> McpResult<mcp_keys::ServerKey> {
    let Some(path) = crate::gucs::server_key_file() else {
        return Err(McpError::NotReady(
            "no server key is configured (mcp.server_key_file is not set): pg_mcp stores API keys only encrypted".into(),
        )
        .with_hint(format!(
            "As the PostgreSQL OS user, create a key file outside the data directory ({}), set mcp.server_key_file = 'FILE' in postgresql.conf (or ALTER SYSTEM) and reload with SELECT pg_reload_conf().",
            mcp_keys::MAKE_KEY_HINT
        )));
    };
    mcp_keys::ServerKey::load(std::path::Path::new(&path), mcp_keys::server_uid())
        .map_err(|e| McpError::ConfigFile(e.message()).with_hint(e.hint()))
}

/// A fresh nonce from PostgreSQL's cryptographic random source.
fn random_nonce() -> McpResult<[u8; mcp_keys::NONCE_LEN]> {
    let mut nonce = [0u8; mcp_keys::NONCE_LEN];
    if unsafe { pg_sys::pg_strong_random(nonce.as_mut_ptr().cast(), nonce.len()) } {
        Ok(nonce)
    } else {
        Err(McpError::Internal(
            "could not generate random bytes for the API key's nonce".into(),
        ))
    }
}

/// Store (or with `None`, remove) the API key of a provider, sealed with the server key.
pub fn store_api_key(provider: &str, key: Option<&str>) -> McpResult<()> {
    if !may_manage_providers()? {
        return Err(providers_privilege_error("set an API key"));
    }
    let exists = first_row(
        "SELECT EXISTS (SELECT 1 FROM mcp.provider WHERE name = $1)",
        &[provider.into()],
        |t| t.get::<bool>(1),
    )?
    .flatten()
    .unwrap_or(false);
    if !exists {
        return Err(McpError::UndefinedObject(format!(
            "provider \"{provider}\" does not exist"
        )));
    }
    let stored = match key.map(str::trim).filter(|k| !k.is_empty()) {
        Some(k) => {
            let sealed = server_key()?
                .seal(provider, k, random_nonce()?)
                .map_err(|_| {
                    McpError::InvalidParameter(format!(
                        "an API key is at most {} bytes",
                        mcp_keys::MAX_SECRET_BYTES
                    ))
                })?;
            as_extension_owner(|| {
                Spi::run_with_args(
                    "INSERT INTO mcp.provider_secret (provider, key_id, nonce, ciphertext, updated_at, updated_by)
                     VALUES ($1, $2, $3, $4, pg_catalog.now(), session_user)
                     ON CONFLICT (provider) DO UPDATE
                       SET key_id = EXCLUDED.key_id, nonce = EXCLUDED.nonce, ciphertext = EXCLUDED.ciphertext,
                           updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by",
                    &[
                        provider.into(),
                        sealed.key_id.into(),
                        sealed.nonce.into(),
                        sealed.ciphertext.into(),
                    ],
                )
            })
        }
        None => as_extension_owner(|| {
            Spi::run_with_args(
                "DELETE FROM mcp.provider_secret WHERE provider = $1",
                &[provider.into()],
            )
        }),
    };
    stored.map_err(|_| {
        McpError::Internal(format!(
            "could not store the API key of provider \"{provider}\""
        ))
    })
}

/// Store (or replace) the API key of a provider, encrypted with the server key.
#[pg_extern(name = "set_api_key")]
fn set_api_key(provider: Option<&str>, key: Option<&str>) -> Result<(), ErrorReport> {
    let provider = required(provider, "set_api_key", "provider")?;
    Ok(store_api_key(provider, key)?)
}

/// Whether a provider has a key (never the key itself); only for roles that manage providers.
#[pg_extern(name = "has_api_key")]
fn has_api_key(provider: Option<&str>) -> Result<bool, ErrorReport> {
    let provider = required(provider, "has_api_key", "provider")?;
    if !may_manage_providers()? {
        return Err(providers_privilege_error("see which providers have API keys").into());
    }
    Ok(sealed_api_key(provider)?.is_some())
}

/// The sealed key of a provider, read as the extension owner.
fn sealed_api_key(provider: &str) -> McpResult<Option<mcp_keys::Sealed>> {
    as_extension_owner(|| {
        first_row(
            "SELECT key_id, nonce, ciphertext FROM mcp.provider_secret WHERE provider = $1",
            &[provider.into()],
            |t| {
                Ok(mcp_keys::Sealed {
                    key_id: t.get::<String>(1)?.unwrap_or_default(),
                    nonce: t.get::<Vec<u8>>(2)?.unwrap_or_default(),
                    ciphertext: t.get::<Vec<u8>>(3)?.unwrap_or_default(),
                })
            },
        )
    })
    .map_err(|_| {
        McpError::Internal(format!(
            "could not read the API key of provider \"{provider}\""
        ))
    })
}

/// The API key of a provider, opened with the server key. Only for building the HTTP request.
pub fn api_key(provider: &str) -> McpResult<Option<String>> {
    let Some(sealed) = sealed_api_key(provider)? else {
        return Ok(None);
    };
    let again = "Store the key again with mcp.set_api_key().";
    server_key()?
        .open(provider, &sealed)
        .map(Some)
        .map_err(|e| match e {
            mcp_keys::OpenError::OtherKey { stored, configured } => McpError::NotReady(format!(
                "the API key of provider \"{provider}\" was encrypted with server key {stored}, but mcp.server_key_file holds server key {configured}"
            ))
            .with_hint(format!("Configure the key file it was stored with, or {}", again.to_lowercase())),
            mcp_keys::OpenError::NotAuthentic | mcp_keys::OpenError::Malformed => {
                McpError::NotReady(format!(
                    "the stored API key of provider \"{provider}\" does not decrypt: it was altered or belongs to another provider"
                ))
                .with_hint(again)
            }
        })
}
