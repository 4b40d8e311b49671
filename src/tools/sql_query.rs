//! `sql_query`: one read-only query the model writes, run in the read-only context
//! ([`crate::sql_tool`]) as the calling role; the rows come back as a table. Not for superusers
//! unless `mcp.allow_superuser_sql`.

use super::shape::row_cap;
use super::{run_query, Call, Kind, ToolOutcome};
use crate::error::McpResult;
use crate::sql_tool;
use mcp_chat::ToolCallStatus;
use serde_json::Value;

pub struct SqlQuery;

impl Kind for SqlQuery {
    fn run(&self, call: &mut Call<'_>) -> McpResult<ToolOutcome> {
        if sql_tool::superuser_refused() {
            return Ok(ToolOutcome::error(
                ToolCallStatus::Denied,
                "The sql_query tool does not run for superuser roles (they bypass grants and row-level security); connect as an ordinary role, or an operator can set mcp.allow_superuser_sql.".into(),
            ));
        }
        let Some(query) = call.args.get("query").and_then(Value::as_str) else {
            return Ok(ToolOutcome::error(
                ToolCallStatus::Invalid,
                "Tool 'sql_query' needs a 'query' string.".into(),
            ));
        };
        let limit = match mcp_tools::resolve_limit(
            call.args.get("max_rows").and_then(Value::as_i64),
            row_cap(),
        ) {
            Ok(l) => l,
            Err(m) => return Ok(ToolOutcome::error(ToolCallStatus::Invalid, m)),
        };
        Ok(run_query(call, query, &[], limit, true))
    }
}
