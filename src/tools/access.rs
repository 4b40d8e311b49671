//! Who may use what: the interface check of every entry point, the tools a role is offered,
//! and the registry row of one call with its authorization (the pipeline's first step).

use crate::error::{McpError, McpResult};
use crate::jsonb::JsonbStored;
use crate::pg::{first_row, select_kept};
use crate::registry::{may_execute_function, resolve_function};
use pgrx::prelude::*;
use serde_json::{json, Value};

/// "The calling role may run a tool whose `function` column is `signature`": no function
/// (report/built-in bodies), or the signature resolves (per-backend cache) and the role has
/// EXECUTE on the function. One definition for listing and calling, so a tool is callable
/// exactly when it is listed. The queries read the column as `t.function::text`, which is also
/// right for 0.1.0's regprocedure column while a new library runs before ALTER EXTENSION UPDATE.
fn may_run(signature: Option<&str>) -> bool {
    signature.is_none_or(|s| resolve_function(s).is_some_and(may_execute_function))
}

/// A tool row as the pipeline and the tool lists need it.
#[derive(Debug, Clone)]
pub struct ToolRow {
    pub name: String,
    pub description: String,
    /// `function`, `builtin` or `report` (`mcp.tool.kind`).
    pub kind: String,
    /// The stored signature and the function it names now (`None`: renamed or dropped).
    pub signature: Option<String>,
    pub function: Option<pg_sys::Oid>,
    pub parameters: Value,
    pub body: Option<String>,
    pub timeout_ms: Option<i32>,
    pub read_only: bool,
    /// A call the model makes in a chat waits for an approval (`mcp.tool.requires_approval`,
    /// NULL = the tool acts).
    pub requires_approval: bool,
}

/// The columns [`ToolRow::read`] reads, in its order (`t` is `mcp.tool`).
const ROW_COLUMNS: &str = "t.name, t.description, t.kind, t.function::text, t.parameters, t.body, t.timeout_ms, t.read_only, COALESCE(t.requires_approval, NOT t.read_only)";

impl ToolRow {
    /// A row of [`ROW_COLUMNS`] starting at column `at`; the function is resolved later (a
    /// cache miss may run a subtransaction, not allowed while SPI reads rows).
    fn read(
        t: &pgrx::spi::SpiHeapTupleData<'_>,
        at: usize,
    ) -> pgrx::spi::SpiResult<(ToolRow, Option<JsonbStored>)> {
        Ok((
            ToolRow {
                name: t.get::<String>(at)?.unwrap_or_default(),
                description: t.get::<String>(at + 1)?.unwrap_or_default(),
                kind: t.get::<String>(at + 2)?.unwrap_or_default(),
                signature: t.get::<String>(at + 3)?,
                function: None,
                parameters: Value::Null,
                body: t.get::<String>(at + 5)?,
                timeout_ms: t.get::<i32>(at + 6)?,
                read_only: t.get::<bool>(at + 7)?.unwrap_or(true),
                requires_approval: t.get::<bool>(at + 8)?.unwrap_or(false),
            },
            t.get::<JsonbStored>(at + 4)?,
        ))
    }

    /// Finish a row read by [`ToolRow::read`]: its parameters and its function.
    fn finish(mut self, parameters: Option<JsonbStored>, default: Value) -> McpResult<ToolRow> {
        self.parameters = match parameters {
            Some(p) => p.value("the tool's parameters")?,
            None => default,
        };
        self.function = self.signature.as_deref().and_then(resolve_function);
        Ok(self)
    }
}

fn no_interface(interface: &str) -> McpError {
    McpError::UndefinedObject(format!("interface \"{interface}\" does not exist"))
}

pub use crate::registry::may_use_interface_role;

/// An interface as the access check sees it.
pub struct InterfaceAccess {
    pub enabled: bool,
    /// The calling role may use it (see `may_use_interface_role`).
    pub usable: bool,
}

/// 42704 unless the interface exists; whether it is enabled and usable by the calling role.
pub fn interface_access(interface: &str) -> McpResult<InterfaceAccess> {
    let (enabled, role) = first_row(
        "SELECT enabled, access_role FROM mcp.interface WHERE name = $1",
        &[interface.into()],
        |t| Ok((t.get::<bool>(1)?.unwrap_or(false), t.get::<String>(2)?)),
    )?
    .ok_or_else(|| no_interface(interface))?;
    Ok(InterfaceAccess {
        enabled,
        usable: may_use_interface_role(role.as_deref()),
    })
}

/// The 42501 of a role that may not use an interface.
pub fn interface_denied(interface: &str) -> McpError {
    McpError::Privilege(format!("permission denied for interface \"{interface}\""))
        .with_hint("A role may use an interface when it has the privileges of the interface's access_role (GRANT that role to it), when access_role is 'public', or when it has UPDATE on mcp.interface.")
}

/// The tools of `interface` the calling role may run: the interface is enabled and usable by
/// the role, the tool enabled, mapped, and EXECUTE on the function. Ordered by name.
pub fn visible_tools(interface: &str) -> McpResult<Vec<ToolRow>> {
    let access = interface_access(interface)?;
    if !(access.enabled && access.usable) {
        return Ok(Vec::new());
    }
    runnable_tools(interface)
}

/// [`visible_tools`] for a caller that has checked the interface itself (enabled, usable by the
/// calling role: `mcp.chat` reads the whole interface row once and checks it): the interface's
/// enabled, mapped tools the role may EXECUTE, ordered by name.
pub fn runnable_tools(interface: &str) -> McpResult<Vec<ToolRow>> {
    let rows = select_kept(
        &format!(
            "SELECT {ROW_COLUMNS}
               FROM mcp.interface_tool it
               JOIN mcp.interface i ON i.name = it.interface
               JOIN mcp.tool t ON t.name = it.tool
              WHERE it.interface = $1 AND t.enabled AND (t.read_only OR i.allow_acting_tools)
              ORDER BY t.name"
        ),
        &[interface.into()],
        |t| {
            t.map(|row| ToolRow::read(&row, 1))
                .collect::<Result<Vec<_>, _>>()
        },
    )?;
    let mut out = Vec::with_capacity(rows.len());
    for (row, parameters) in rows {
        if may_run(row.signature.as_deref()) {
            out.push(row.finish(parameters, json!({"type": "object"}))?);
        }
    }
    Ok(out)
}

/// MCP tool annotations, from the tool's declaration: a tool that only reads is idempotent and
/// not destructive; a tool that acts (read_only = false) may be destructive and is not assumed
/// idempotent. Every tool works on this database, none reaches an open world.
fn annotations(t: &ToolRow) -> Value {
    json!({
        "readOnlyHint": t.read_only,
        "destructiveHint": !t.read_only,
        "idempotentHint": t.read_only,
        "openWorldHint": false
    })
}

/// Render tools in one of the wire formats.
pub fn tools_json(tools: &[ToolRow], format: &str) -> McpResult<Value> {
    let render = |t: &ToolRow| -> Option<Value> {
        match format {
            "openai" => Some(json!({
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.parameters}
            })),
            "mcp" => Some(json!({
                "name": t.name,
                "description": t.description,
                "inputSchema": t.parameters,
                "annotations": annotations(t)
            })),
            "anthropic" => Some(json!({
                "name": t.name, "description": t.description, "input_schema": t.parameters
            })),
            _ => None,
        }
    };
    tools
        .iter()
        .map(render)
        .collect::<Option<Vec<_>>>()
        .map(Value::Array)
        .ok_or_else(|| {
            McpError::InvalidParameter(format!(
                "unknown tool list format \"{format}\" (expected openai, mcp or anthropic)"
            ))
        })
}

/// What the first step of the pipeline decided about one call.
pub enum Authorization {
    /// The role may run the tool in this interface.
    Allowed(ToolRow),
    /// The tool is available, but its function signature names no function any more (renamed
    /// or dropped after registration): the call fails naming it.
    Unresolved(ToolRow),
    /// Unknown tool, not mapped, disabled, no EXECUTE, or the interface is disabled or not
    /// usable by the role.
    Denied,
}

/// Authorize one call: the interface and the tool row in one query (hot path of every call).
/// 42704 when the interface does not exist. The same rules as [`visible_tools`]: a tool is
/// callable exactly when it is listed.
pub fn authorize(tool: &str, interface: &str) -> McpResult<Authorization> {
    let (usable, row) = first_row(
        &format!(
            "SELECT i.enabled, i.access_role, t.enabled,
                    EXISTS (SELECT 1 FROM mcp.interface_tool it WHERE it.interface = i.name AND it.tool = t.name)
                      AND (t.read_only OR i.allow_acting_tools),
                    {ROW_COLUMNS}
               FROM mcp.interface i LEFT JOIN mcp.tool t ON t.name = $1 WHERE i.name = $2"
        ),
        &[tool.into(), interface.into()],
        |t| {
            let enabled = t.get::<bool>(1)?.unwrap_or(false);
            let access_role = t.get::<String>(2)?;
            let available = t.get::<bool>(3)?.unwrap_or(false) && t.get::<bool>(4)?.unwrap_or(false);
            let row = match t.get_heap_tuple()? {
                Some(tuple) if available => Some(ToolRow::read(&tuple, 5)?),
                _ => None,
            };
            Ok(((enabled, access_role), row))
        },
    )?
    .ok_or_else(|| no_interface(interface))?;
    let ((enabled, access_role), row) = (usable, row);
    let Some((row, parameters)) = row else {
        return Ok(Authorization::Denied);
    };
    if !(enabled && may_use_interface_role(access_role.as_deref())) {
        return Ok(Authorization::Denied);
    }
    let row = row.finish(parameters, json!({}))?;
    Ok(match (&row.signature, row.function) {
        (None, _) => Authorization::Allowed(row),
        (Some(_), None) => Authorization::Unresolved(row),
        (Some(_), Some(oid)) if may_execute_function(oid) => Authorization::Allowed(row),
        _ => Authorization::Denied,
    })
}

pub use crate::pg::calling_role;
