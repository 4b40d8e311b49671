//! `mcp.list_tools`, `mcp.call_tool`, `mcp.validate_arguments`, `mcp.may_use_interface`: the
//! tools on the SQL surface. The work is the tool pipeline ([`crate::tools`]).

use crate::error::{required, McpError};
use crate::jsonb::{JsonbArg, JsonbStored};
use crate::pg::first_row;
use crate::tools::{self, CallRequest};
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::json;

/// `mcp.may_use_interface`: whether the calling role may use an interface (42704 if unknown).
#[pg_extern(name = "may_use_interface", stable)]
fn may_use_interface(interface: Option<&str>) -> Result<bool, ErrorReport> {
    let interface = required(interface, "may_use_interface", "interface")?;
    Ok(tools::interface_access(interface)?.usable)
}

/// `mcp.list_tools`: the tools array for the LLM request (or an MCP client).
#[pg_extern(name = "list_tools", stable, parallel_safe)]
fn list_tools(
    interface: default!(Option<&str>, "'chatbot'"),
    format: default!(Option<&str>, "'openai'"),
) -> Result<JsonB, ErrorReport> {
    let interface = required(interface, "list_tools", "interface")?;
    let format = required(format, "list_tools", "format")?;
    // Check the format first so a bad format is reported even for an empty interface.
    tools::tools_json(&[], format)?;
    let tools = tools::visible_tools(interface)?;
    Ok(JsonB(tools::tools_json(&tools, format)?))
}

/// `mcp.validate_arguments`: `[]` when the arguments fit the tool's schema, else the errors.
#[pg_extern(name = "validate_arguments", stable)]
fn validate_arguments(
    tool: Option<&str>,
    arguments: Option<JsonbArg>,
) -> Result<JsonB, ErrorReport> {
    let tool = required(tool, "validate_arguments", "tool")?;
    let args = match arguments {
        Some(a) => a.value("arguments")?,
        None => json!({}),
    };
    let schema = first_row(
        "SELECT parameters FROM mcp.tool WHERE name = $1",
        &[tool.into()],
        |t| t.get::<JsonbStored>(1),
    )
    .map_err(McpError::from)?
    .flatten()
    .ok_or_else(|| McpError::UndefinedObject(format!("tool \"{tool}\" does not exist")))?
    .value("the tool's parameters")?;
    let errors = tools::validate_against(tool, &schema, &args);
    Ok(JsonB(mcp_tools::errors_to_json(&errors)))
}

/// `mcp.call_tool`: run one tool as the calling role and return an MCP `CallToolResult`.
#[pg_extern(name = "call_tool", volatile)]
fn call_tool(
    tool: Option<&str>,
    arguments: default!(Option<JsonbArg>, "'{}'"),
    interface: default!(Option<&str>, "'chatbot'"),
) -> Result<JsonB, ErrorReport> {
    let tool = required(tool, "call_tool", "tool")?;
    let interface = required(interface, "call_tool", "interface")?;
    let args = match arguments {
        Some(a) => a.value("arguments")?,
        None => json!({}),
    };
    let (outcome, _) = tools::call(&CallRequest {
        tool,
        arguments: &args,
        interface,
        run_id: None,
        tool_call_id: None,
        arguments_raw: None,
        authorized: None,
        check_result: None,
    })?;
    Ok(JsonB(outcome.to_json()))
}
