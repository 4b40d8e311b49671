//! Report tools: a reviewed query (`mcp.tool.body`) with placeholders `$1 … $n` bound to the
//! schema's properties in alphabetical order ([`mcp_tools::report::report_params`]), each as the
//! SQL type its property maps to; run in the read-only context, rows as a table.

use super::shape::default_limit;
use super::{run_query, Call, Kind, ToolOutcome};
use crate::bind::{sql_type_oid, Param};
use crate::error::McpResult;
use mcp_chat::ToolCallStatus;

pub struct Report;

impl Kind for Report {
    fn run(&self, call: &mut Call<'_>) -> McpResult<ToolOutcome> {
        let Some(body) = call.row.body.as_deref() else {
            return Ok(ToolOutcome::error(
                ToolCallStatus::Error,
                format!("Tool '{}' has no body.", call.row.name),
            ));
        };
        let params = params(&call.row.parameters, call.args);
        Ok(run_query(call, body, &params, default_limit(), false))
    }
}

/// The typed parameters `$1 … $n` of a report body for `args`.
pub fn params(
    schema: &serde_json::Value,
    args: &serde_json::Map<String, serde_json::Value>,
) -> Vec<Param> {
    mcp_tools::report::report_params(schema)
        .into_iter()
        .map(|p| Param::of_json(args.get(&p.name), sql_type_oid(p.sql_type)))
        .collect()
}

/// The parameter types of a report body (for the registration check).
pub fn param_types(schema: &serde_json::Value) -> Vec<pgrx::pg_sys::Oid> {
    mcp_tools::report::report_params(schema)
        .into_iter()
        .map(|p| sql_type_oid(p.sql_type))
        .collect()
}
