//! The checks of a tool row that a CHECK constraint cannot express (run by the `mcp.tool`
//! trigger and `mcp.check_tool_definition`, `api/registry.rs`): the parameters are a valid,
//! not too complex JSON Schema that fits the function's arguments; a report body is one
//! read-only query over existing objects; a built-in without a function is one pg_mcp knows.

use crate::error::{McpError, McpResult};
use crate::registry::function_signature;
use pgrx::prelude::*;
use serde_json::Value;

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
    } else if kind == "builtin" && !super::names::WITHOUT_FUNCTION.contains(&name) {
        problems.push(format!(
            "there is no built-in tool named \"{name}\" (built-ins without a function: {})",
            super::names::WITHOUT_FUNCTION.join(", ")
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
    let types = super::report::param_types(parameters);
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
