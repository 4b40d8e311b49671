//! `getDialog`: the built-in tool that asks the user for missing input. Its row names the
//! function `mcp.ask_user`, which returns `{"needs_input": true, "missing_parameters": […],
//! "context": …}`; the tool runs like a function tool. What makes a result a request for input
//! is [`input_request`]: any tool whose result object holds `"needs_input": true` ends the chat
//! run with status `needs_input` (the question goes to the user, the session continues with the
//! answer).

use super::{Call, Kind, ToolOutcome, ToolRow};
use crate::error::McpResult;
use serde_json::Value;

pub struct GetDialog;

impl Kind for GetDialog {
    fn writes(&self, row: &ToolRow) -> bool {
        !row.read_only
    }

    fn run(&self, call: &mut Call<'_>) -> McpResult<ToolOutcome> {
        super::function::run(call)
    }
}

/// The request for user input a successful result carries, if any.
pub fn input_request(outcome: &ToolOutcome) -> Option<Value> {
    outcome
        .structured
        .as_ref()
        .filter(|s| !outcome.is_error() && s.get("needs_input") == Some(&Value::Bool(true)))
        .cloned()
}
