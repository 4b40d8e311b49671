//! The registry on the SQL surface: `mcp.resolve_function` (the view
//! `mcp.unresolved_functions`), `mcp.check_tool_definition` and the `mcp.tool` row trigger.
//! The rules are in [`crate::registry`] and [`crate::tools::definition`].

use crate::error::{required, McpError, McpResult};
use crate::jsonb::JsonbArg;
use crate::registry::resolve_function;
use crate::tools::definition::{checking_bodies, refuse_tool_definition};
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;

/// `mcp.resolve_function`: [`resolve_function`] for SQL (the registry triggers and the view
/// `mcp.unresolved_functions`).
#[pg_extern(name = "resolve_function", stable, strict)]
fn resolve_function_sql(signature: &str) -> Option<pg_sys::Oid> {
    resolve_function(signature)
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
    match check_tool_row(trigger) {
        Ok(row) => Ok(row),
        // pgrx turns a trigger's `Err` into a panic (XX000): raise it with its own SQLSTATE.
        Err(e) => e.raise(),
    }
}

fn check_tool_row<'a>(
    trigger: &'a PgTrigger<'a>,
) -> McpResult<Option<PgHeapTuple<'a, AllocatedByRust>>> {
    let Some(new) = trigger.new() else {
        return Ok(None);
    };
    let mut new = new.into_owned();
    let internal =
        |col: &str, e: &dyn std::fmt::Display| McpError::Internal(format!("mcp.tool.{col}: {e}"));
    let text = |tuple: &PgHeapTuple<'a, AllocatedByRust>, col: &str| -> McpResult<Option<String>> {
        tuple
            .get_by_name::<String>(col)
            .map_err(|e| internal(col, &e))
    };
    let name = text(&new, "name")?.unwrap_or_default();
    let kind = text(&new, "kind")?.unwrap_or_default();
    let body = text(&new, "body")?;
    let mut function = None;
    if let Some(signature) = text(&new, "function")? {
        let stored = crate::pg::read_one::<String>(
            "SELECT mcp.check_function_signature($1, $2)",
            &[signature.clone().into(), format!("tool \"{name}\"").into()],
        )
        .map_err(|e| internal("function", &e))?
        .unwrap_or(signature);
        function = resolve_function(&stored);
        new.set_by_name("function", stored)
            .map_err(|e| internal("function", &e))?;
    }
    if checking_bodies() {
        let parameters = new
            .get_by_name::<JsonbArg>("parameters")
            .map_err(|e| internal("parameters", &e))?
            .ok_or_else(|| {
                McpError::CheckViolation(format!(
                    "tool \"{name}\" refused: parameters must not be NULL"
                ))
            })?
            .value("parameters")?;
        refuse_tool_definition(&name, &kind, &parameters, function, body.as_deref())?;
    }
    if matches!(trigger.op(), Ok(PgTriggerOperation::Update)) {
        new.set_by_name("updated_at", pgrx::datetime::now())
            .map_err(|e| internal("updated_at", &e))?;
    }
    Ok(Some(new))
}
