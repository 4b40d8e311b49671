//! Validation of a call's arguments against the tool's JSON Schema, with the compiled schemas
//! cached per backend. The pipeline validates every call once ([`super::call`]);
//! `mcp.validate_arguments` and the MCP server's output check use the same cache.

use mcp_tools::{ArgError, ArgErrorKind, ToolSchema};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashMap;

thread_local! {
    /// Compiled schemas per tool; recompiled when the registry row's schema changes.
    static SCHEMAS: RefCell<HashMap<String, (Value, ToolSchema)>> = RefCell::new(HashMap::new());
}

/// The compiled validator of a tool's schema, from the per-backend cache (compiled again only
/// when the registry row's schema changed).
pub fn compiled_schema(tool: &str, schema: &Value) -> Result<ToolSchema, Vec<String>> {
    SCHEMAS.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some((s, c)) = cache.get(tool) {
            if s == schema {
                return Ok(c.clone());
            }
        }
        let c = ToolSchema::compile(schema)?;
        cache.insert(tool.to_string(), (schema.clone(), c.clone()));
        Ok(c)
    })
}

/// Validate arguments against a tool's schema; empty when they fit. A schema that does not
/// compile (only possible for rows restored with `check_function_bodies = off`) refuses every
/// call, saying why.
pub fn validate_against(tool: &str, schema: &Value, args: &Value) -> Vec<ArgError> {
    match compiled_schema(tool, schema) {
        Ok(c) => c.validate(args),
        Err(errs) => errs
            .into_iter()
            .map(|m| ArgError {
                parameter: String::new(),
                kind: ArgErrorKind::Other,
                message: format!("the tool's schema is invalid: {m}"),
            })
            .collect(),
    }
}
