//! Registry rules that a CHECK constraint cannot express, and the API-key store.

use crate::error::{McpError, McpResult};
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
    /// Bumped by the syscache callback when pg_proc, pg_type or pg_namespace change.
    static CATALOG_GENERATION: Cell<u64> = const { Cell::new(0) };
    static SEEN_GENERATION: Cell<u64> = const { Cell::new(0) };
    static CALLBACKS_REGISTERED: Cell<bool> = const { Cell::new(false) };
}

/// Syscache invalidation callback: runs while PostgreSQL processes invalidation messages, so it
/// only bumps a counter (no allocation, no borrow).
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

/// A function's signature, from a per-backend cache that is dropped whenever pg_proc, pg_type
/// or pg_namespace change (syscache invalidation), so CREATE OR REPLACE, renames and drops are
/// seen at once. `None` when the OID no longer exists.
pub fn function_signature(oid: pg_sys::Oid) -> McpResult<Option<FunctionSignature>> {
    register_catalog_callbacks();
    // Process pending invalidations first, so a change committed by another session counts.
    unsafe { pg_sys::AcceptInvalidationMessages() };
    let generation = CATALOG_GENERATION.with(|g| g.get());
    if SEEN_GENERATION.with(|s| s.replace(generation)) != generation {
        SIGNATURES.with(|m| m.borrow_mut().clear());
    }
    let key = (oid, crate::pg_util::guc_value(c"search_path"));
    if let Some(sig) = SIGNATURES.with(|m| m.borrow().get(&key).cloned()) {
        return Ok(Some(sig));
    }
    let sig = load_function_signature(oid)?;
    if let Some(sig) = &sig {
        // Loading may itself have processed invalidations; cache only if none arrived.
        if CATALOG_GENERATION.with(|g| g.get()) == generation {
            SIGNATURES.with(|m| m.borrow_mut().insert(key, sig.clone()));
        }
    }
    Ok(sig)
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
        && ![crate::tools::SQL_QUERY, crate::tools::SCHEMA_INFORMATION].contains(&name)
    {
        problems.push(format!(
            "there is no built-in tool named \"{name}\" (built-ins without a function: {}, {})",
            crate::tools::SQL_QUERY,
            crate::tools::SCHEMA_INFORMATION
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
    name: &str,
    kind: &str,
    parameters: Option<JsonbArg>,
    function: Option<pg_sys::Oid>,
    body: default!(Option<&str>, "NULL"),
) -> Result<(), ErrorReport> {
    let parameters = match parameters {
        Some(p) => p.value("parameters")?,
        None => {
            return Err(McpError::CheckViolation(format!(
                "tool \"{name}\" refused: parameters must not be NULL"
            ))
            .into())
        }
    };
    Ok(refuse_tool_definition(
        name,
        kind,
        &parameters,
        function,
        body,
    )?)
}

/// A `regprocedure` column read as its OID (pgrx's `Oid` only reads `oid` columns).
struct RegProcedure(pg_sys::Oid);

impl FromDatum for RegProcedure {
    unsafe fn from_polymorphic_datum(
        datum: pg_sys::Datum,
        is_null: bool,
        typoid: pg_sys::Oid,
    ) -> Option<Self> {
        pg_sys::Oid::from_polymorphic_datum(datum, is_null, typoid).map(RegProcedure)
    }
}

impl IntoDatum for RegProcedure {
    fn into_datum(self) -> Option<pg_sys::Datum> {
        self.0.into_datum()
    }

    fn type_oid() -> pg_sys::Oid {
        pg_sys::REGPROCEDUREOID
    }
}

unsafe impl pgrx::datum::UnboxDatum for RegProcedure {
    type As<'src> = RegProcedure;

    unsafe fn unbox<'src>(d: pgrx::datum::Datum<'src>) -> Self::As<'src>
    where
        Self: 'src,
    {
        RegProcedure(pg_sys::Oid::from(d.sans_lifetime().value() as u32))
    }
}

/// The `mcp.tool` row trigger (BEFORE INSERT OR UPDATE): refuses a row whose parameters are not
/// a valid JSON Schema or too complex to validate, do not fit the function's arguments, or whose
/// report body is not one read-only query (SQLSTATE 23514), and stamps `updated_at`.
///
/// A C trigger function rather than PL/pgSQL calling `mcp.check_tool_definition`: PostgreSQL
/// checks EXECUTE only where a function is called from SQL, not where a trigger fires, so
/// `check_tool_definition` needs no PUBLIC grant and a role with INSERT/UPDATE on `mcp.tool`
/// (superuser or not) can register tools. The checks run as the inserting role with its
/// search_path (report bodies resolve names the way a caller's will): nothing runs with the
/// owner's rights, so no SECURITY DEFINER and no pinned search_path are needed.
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
    let function = new
        .get_by_name::<RegProcedure>("function")
        .unwrap_or_else(|e| McpError::Internal(format!("mcp.tool.function: {e}")).raise())
        .map(|f| f.0);
    if let Err(e) = refuse_tool_definition(&name, &kind, &parameters, function, body.as_deref()) {
        e.raise();
    }
    new.set_by_name("updated_at", pgrx::datetime::now())
        .unwrap_or_else(|e| McpError::Internal(format!("mcp.tool.updated_at: {e}")).raise());
    Ok(Some(new))
}

/// Whether the calling role manages providers (UPDATE on mcp.provider): it may set their keys
/// and point a chat at any provider (and so at its key).
pub fn may_manage_providers() -> McpResult<bool> {
    Ok(first_row(
        "SELECT pg_catalog.has_table_privilege('mcp.provider', 'UPDATE')",
        &[],
        |t| t.get::<bool>(1),
    )?
    .flatten()
    .unwrap_or(false))
}

/// Store (or replace) the API key of a provider where PUBLIC cannot read it.
#[pg_extern(name = "set_api_key")]
fn set_api_key(provider: &str, key: Option<&str>) -> Result<(), ErrorReport> {
    if !may_manage_providers()? {
        return Err(McpError::Privilege(
            "permission denied to set an API key: UPDATE on mcp.provider is required".into(),
        )
        .into());
    }
    let exists = Spi::get_one_with_args::<bool>(
        "SELECT EXISTS (SELECT 1 FROM mcp.provider WHERE name = $1)",
        &[provider.into()],
    )
    .map_err(McpError::from)?
    .unwrap_or(false);
    if !exists {
        return Err(
            McpError::UndefinedObject(format!("provider \"{provider}\" does not exist")).into(),
        );
    }
    let key = key.map(str::trim).filter(|k| !k.is_empty());
    as_extension_owner(|| match key {
        Some(k) => Spi::run_with_args(
            "INSERT INTO mcp.provider_secret (provider, api_key, updated_at, updated_by)
             VALUES ($1, $2, pg_catalog.now(), session_user)
             ON CONFLICT (provider) DO UPDATE
               SET api_key = EXCLUDED.api_key, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by",
            &[provider.into(), k.into()],
        ),
        None => Spi::run_with_args("DELETE FROM mcp.provider_secret WHERE provider = $1", &[provider.into()]),
    })
    .map_err(|_| McpError::Internal(format!("could not store the API key of provider \"{provider}\"")))?;
    Ok(())
}

/// Whether a provider has a key (never the key itself).
#[pg_extern(name = "has_api_key")]
fn has_api_key(provider: &str) -> Result<bool, ErrorReport> {
    Ok(api_key(provider)?.is_some())
}

/// The API key of a provider, read as the extension owner. Only for building the HTTP request.
pub fn api_key(provider: &str) -> McpResult<Option<String>> {
    as_extension_owner(|| {
        first_row(
            "SELECT api_key FROM mcp.provider_secret WHERE provider = $1",
            &[provider.into()],
            |t| t.get::<String>(1),
        )
    })
    .map(Option::flatten)
    .map_err(|_| {
        McpError::Internal(format!(
            "could not read the API key of provider \"{provider}\""
        ))
    })
}
