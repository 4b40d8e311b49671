//! Function tools: the tool's `function` (any SQL function the calling role may EXECUTE),
//! called by named arguments bound to the function's own argument types
//! ([`crate::bind::Param`]), as the calling role, in a subtransaction. A lone value (or JSON
//! document) is returned as is, anything else as a table.

use super::shape::{collect_options, default_limit, shape_rows};
use super::{query_fault, unresolved_function, Call, Kind, ToolOutcome, ToolRow};
use crate::bind::Param;
use crate::error::McpResult;
use crate::pg::{in_subtransaction, set_guc, PgErrorInfo};
use crate::registry::{function_signature, FunctionSignature};
use crate::rows;
use crate::sql_tool::QueryFault;
use pgrx::datum::DatumWithOid;
use serde_json::{Map, Value};
use std::time::Instant;

pub struct Function;

impl Kind for Function {
    /// A function tool is as its `read_only` flag declares (see crate::sandbox and the
    /// README's security section).
    fn writes(&self, row: &ToolRow) -> bool {
        !row.read_only
    }

    fn run(&self, call: &mut Call<'_>) -> McpResult<ToolOutcome> {
        run(call)
    }
}

/// Call the row's function with the call's arguments.
pub fn run(call: &mut Call<'_>) -> McpResult<ToolOutcome> {
    let row = call.row;
    let Some(sig) = row.function.map(function_signature).transpose()?.flatten() else {
        let signature = row.signature.as_deref().unwrap_or_default();
        return Ok(unresolved_function(call, signature));
    };
    let limit = default_limit();
    let started = Instant::now();
    // A function tool marked read_only (the default, advertised as readOnlyHint) runs like the
    // SQL tool: in a read-only subtransaction that is always rolled back, so a write is refused
    // by PostgreSQL and a NOTIFY or set_config(…, false) goes with the rollback. A function the
    // admin declared writing (read_only = false) keeps its work.
    let read_only = row.read_only;
    let result = in_subtransaction(read_only, || {
        if read_only {
            set_guc(c"transaction_read_only", "on");
        }
        // bound inside the subtransaction: a type's input function may refuse the value
        let mut datums = Vec::new();
        let sql = build_call(&sig, call.args, &mut datums);
        rows::fetch(
            sql.as_str(),
            &datums,
            &collect_options(limit.limit, true, false),
        )
    });
    let elapsed = started.elapsed().as_secs_f64() * 1000.0;
    let fault = match result {
        Ok(Ok(fetched)) => return Ok(ToolOutcome::ok(shape_rows(fetched, limit, elapsed, false))),
        Ok(Err(spi)) => PgErrorInfo {
            sqlstate: "XX000".into(),
            message: spi.to_string(),
        },
        Err(info) => info,
    };
    Ok(query_fault(call, QueryFault::Failed(fault), false))
}

/// `SELECT * FROM f(a => $1, …) AS result` for the arguments present, their datums appended to
/// `datums`.
fn build_call(
    sig: &FunctionSignature,
    args: &Map<String, Value>,
    datums: &mut Vec<DatumWithOid<'static>>,
) -> String {
    let mut parts = Vec::new();
    for arg in &sig.args {
        let Some(name) = &arg.name else { continue };
        let Some(v) = args.get(name) else { continue };
        let expr = Param::of_json(Some(v), arg.type_oid).bind(datums);
        parts.push(format!("{} => {expr}", pgrx::spi::quote_identifier(name)));
    }
    format!(
        "SELECT * FROM {}({}) AS result",
        sig.qualified_name,
        parts.join(", ")
    )
}
