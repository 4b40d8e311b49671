//! Tool discovery (M2), argument validation (M6) and execution (`mcp.call_tool`).

use crate::error::{McpError, McpResult};
use crate::gucs;
use crate::pg_util::{
    as_extension_owner, first_row, in_subtransaction, with_application_name, PgErrorInfo,
};
use crate::registry::{function_signature, FunctionSignature};
use crate::rows;
use mcp_tools::{ResultMeta, RowCap, ShapeOptions, ToolSchema};
use pgrx::datum::DatumWithOid;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::{json, Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::time::Instant;

/// A tool as the caller may see it.
#[derive(Debug, Clone)]
pub struct ToolInfo {
    pub name: String,
    pub description: String,
    pub parameters: Value,
    pub read_only: bool,
}

/// SQL predicate "the calling role may run tool `t`": no function (report/built-in bodies), or
/// the function still exists and the role has EXECUTE on it. One definition for listing and
/// calling, so a tool is callable exactly when it is listed.
macro_rules! runnable_sql {
    () => {
        "CASE WHEN t.function IS NULL THEN true
              WHEN NOT EXISTS (SELECT 1 FROM pg_catalog.pg_proc p WHERE p.oid = t.function) THEN false
              ELSE pg_catalog.has_function_privilege(t.function, 'EXECUTE') END"
    };
}

fn no_interface(interface: &str) -> McpError {
    McpError::UndefinedObject(format!("interface \"{interface}\" does not exist"))
}

/// Fail with 42704 unless the interface exists; returns whether it is enabled.
pub fn interface_enabled(interface: &str) -> McpResult<bool> {
    first_row(
        "SELECT enabled FROM mcp.interface WHERE name = $1",
        &[interface.into()],
        |t| t.get::<bool>(1),
    )?
    .map(|e| e.unwrap_or(false))
    .ok_or_else(|| no_interface(interface))
}

/// The tools of `interface` the calling role may run: enabled, mapped, and EXECUTE on the
/// function. Ordered by name.
pub fn visible_tools(interface: &str) -> McpResult<Vec<ToolInfo>> {
    if !interface_enabled(interface)? {
        return Ok(Vec::new());
    }
    Spi::connect(|c| -> McpResult<Vec<ToolInfo>> {
        let t = c.select(
            concat!(
                "SELECT t.name, t.description, t.parameters, t.read_only
                   FROM mcp.interface_tool it
                   JOIN mcp.tool t ON t.name = it.tool
                  WHERE it.interface = $1 AND t.enabled AND ",
                runnable_sql!(),
                " ORDER BY t.name"
            ),
            None,
            &[interface.into()],
        )?;
        let mut out = Vec::new();
        for row in t {
            out.push(ToolInfo {
                name: row.get::<String>(1)?.unwrap_or_default(),
                description: row.get::<String>(2)?.unwrap_or_default(),
                parameters: row
                    .get::<JsonB>(3)?
                    .map(|j| j.0)
                    .unwrap_or_else(|| json!({"type": "object"})),
                read_only: row.get::<bool>(4)?.unwrap_or(true),
            });
        }
        Ok(out)
    })
}

/// Render tools in one of the wire formats.
pub fn tools_json(tools: &[ToolInfo], format: &str) -> McpResult<Value> {
    let render = |t: &ToolInfo| -> Option<Value> {
        match format {
            "openai" => Some(json!({
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.parameters}
            })),
            "mcp" => Some(json!({
                "name": t.name,
                "description": t.description,
                "inputSchema": t.parameters,
                "annotations": {"readOnlyHint": t.read_only}
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

/// `mcp.list_tools`: the tools array for the LLM request (or an MCP client).
#[pg_extern(name = "list_tools", stable, parallel_safe)]
fn list_tools(
    interface: default!(&str, "'chatbot'"),
    format: default!(&str, "'openai'"),
) -> Result<JsonB, ErrorReport> {
    // Check the format first so a bad format is reported even for an empty interface.
    tools_json(&[], format)?;
    let tools = visible_tools(interface)?;
    Ok(JsonB(tools_json(&tools, format)?))
}

// ------------------------------------------------------------------------------------------
// Validation
// ------------------------------------------------------------------------------------------

thread_local! {
    /// Compiled schemas per tool; recompiled when the registry row's schema changes.
    static SCHEMAS: RefCell<HashMap<String, (Value, ToolSchema)>> = RefCell::new(HashMap::new());
}

/// The compiled validator of a tool's schema, from the per-backend cache (compiled again only
/// when the registry row's schema changed). Shared by `call_tool` and the chat engine.
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

/// Validate arguments against a tool's schema.
pub fn validate_against(tool: &str, schema: &Value, args: &Value) -> Vec<mcp_tools::ArgError> {
    match compiled_schema(tool, schema) {
        Ok(c) => c.validate(args),
        Err(errs) => errs
            .into_iter()
            .map(|m| mcp_tools::ArgError {
                parameter: String::new(),
                kind: mcp_tools::ArgErrorKind::Other,
                message: format!("the tool's schema is invalid: {m}"),
            })
            .collect(),
    }
}

/// `mcp.validate_arguments`: `[]` when the arguments fit the tool's schema, else the errors.
#[pg_extern(name = "validate_arguments", stable)]
fn validate_arguments(tool: &str, arguments: Option<JsonB>) -> Result<JsonB, ErrorReport> {
    let schema = first_row(
        "SELECT parameters FROM mcp.tool WHERE name = $1",
        &[tool.into()],
        |t| t.get::<JsonB>(1),
    )
    .map_err(McpError::from)?
    .flatten()
    .map(|j| j.0)
    .ok_or_else(|| McpError::UndefinedObject(format!("tool \"{tool}\" does not exist")))?;
    let args = arguments.map(|j| j.0).unwrap_or_else(|| json!({}));
    let errors = validate_against(tool, &schema, &args);
    Ok(JsonB(mcp_tools::errors_to_json(&errors)))
}

// ------------------------------------------------------------------------------------------
// Execution
// ------------------------------------------------------------------------------------------

/// Everything `call_tool` needs to know about a tool row.
struct ToolRow {
    kind: String,
    function: Option<pg_sys::Oid>,
    parameters: Value,
    enabled: bool,
    mapped: bool,
    may_execute: bool,
}

/// The interface's `enabled` flag and the tool row, in one query (hot path of every call).
/// 42704 when the interface does not exist; `None` for an unknown tool.
fn tool_row(tool: &str, interface: &str) -> McpResult<(bool, Option<ToolRow>)> {
    first_row(
        concat!(
            "SELECT i.enabled, t.kind, t.function::oid, t.parameters, t.enabled,
                    EXISTS (SELECT 1 FROM mcp.interface_tool it WHERE it.interface = i.name AND it.tool = t.name),
                    ",
            runnable_sql!(),
            " FROM mcp.interface i LEFT JOIN mcp.tool t ON t.name = $1 WHERE i.name = $2"
        ),
        &[tool.into(), interface.into()],
        |t| {
            let enabled = t.get::<bool>(1)?.unwrap_or(false);
            let row = match t.get::<String>(2)? {
                None => None,
                Some(kind) => Some(ToolRow {
                    kind,
                    function: t.get::<pg_sys::Oid>(3)?,
                    parameters: t.get::<JsonB>(4)?.map(|j| j.0).unwrap_or_else(|| json!({})),
                    enabled: t.get::<bool>(5)?.unwrap_or(false),
                    mapped: t.get::<bool>(6)?.unwrap_or(false),
                    may_execute: t.get::<bool>(7)?.unwrap_or(false),
                }),
            };
            Ok((enabled, row))
        },
    )?
    .ok_or_else(|| no_interface(interface))
}

/// One audit row of `mcp.tool_call`.
#[derive(Default)]
pub struct CallRecord {
    pub run_id: Option<pgrx::Uuid>,
    pub tool_call_id: Option<String>,
    pub tool: String,
    pub interface: String,
    pub arguments_raw: Option<String>,
    pub arguments: Option<Value>,
    pub validation_errors: Option<Value>,
    pub status: &'static str,
    pub result_text: Option<String>,
    pub latency_ms: f64,
    pub error: Option<PgErrorInfo>,
}

/// Name of the current (calling) role, read before any switch to the extension owner.
pub fn calling_role() -> String {
    unsafe {
        let p = pg_sys::GetUserNameFromId(pg_sys::GetUserId(), true);
        if p.is_null() {
            return String::new();
        }
        std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

/// Write an audit row as the extension owner; returns its call_id.
pub fn record_call(r: &CallRecord) -> i64 {
    let preview = r
        .result_text
        .as_deref()
        .map(|t| mcp_tools::clip_chars(t, 500).0);
    let size = r.result_text.as_ref().map(|t| t.len() as i32);
    let role = calling_role();
    let args: Vec<DatumWithOid> = vec![
        role.into(),
        r.run_id.into(),
        r.tool_call_id.clone().into(),
        r.tool.clone().into(),
        r.interface.clone().into(),
        r.arguments_raw.clone().into(),
        r.arguments.clone().map(JsonB).into(),
        r.validation_errors.clone().map(JsonB).into(),
        r.status.into(),
        size.into(),
        preview.into(),
        r.latency_ms.into(),
        r.error.as_ref().map(|e| e.sqlstate.clone()).into(),
        r.error.as_ref().map(|e| e.message.clone()).into(),
    ];
    as_extension_owner(|| {
        Spi::get_one_with_args::<i64>(
            "INSERT INTO mcp.tool_call (run_id, tool_call_id, tool, interface, role_name, arguments_raw,
                                        arguments, validation_errors, status, result_size, result_preview,
                                        latency_ms, error_sqlstate, error_message)
             VALUES ($2, $3, $4, $5, $1, $6, $7, $8, $9, $10, $11, $12, $13, $14)
             RETURNING call_id",
            &args,
        )
    })
    .ok()
    .flatten()
    .unwrap_or(0)
}

/// An MCP `CallToolResult`.
pub struct ToolOutcome {
    pub text: String,
    pub structured: Option<Value>,
    pub is_error: bool,
    /// Status for the audit row / the chat loop.
    pub status: &'static str,
    pub validation_errors: Vec<mcp_tools::ArgError>,
}

impl ToolOutcome {
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert(
            "content".into(),
            json!([{"type": "text", "text": self.text}]),
        );
        if let Some(s) = &self.structured {
            m.insert("structuredContent".into(), s.clone());
        }
        m.insert("isError".into(), Value::Bool(self.is_error));
        Value::Object(m)
    }

    fn error(status: &'static str, text: String) -> Self {
        ToolOutcome {
            text,
            structured: None,
            is_error: true,
            status,
            validation_errors: Vec::new(),
        }
    }
}

/// How a JSON argument value is passed to a function argument: as a text parameter cast to the
/// argument's type, or as a jsonb parameter (json/jsonb, arrays, composites).
fn bind_argument(
    value: &Value,
    arg: &crate::registry::FunctionArg,
    n: usize,
) -> (String, DatumWithOid<'static>) {
    let ty = &arg.type_sql;
    let is_json = arg.type_oid == pg_sys::JSONBOID || arg.type_oid == pg_sys::JSONOID;
    if is_json {
        return (format!("${n}::{ty}"), JsonB(value.clone()).into());
    }
    if value.is_null() {
        return (format!("${n}::{ty}"), DatumWithOid::null::<String>());
    }
    match (arg.category.as_str(), value) {
        ("A", Value::Array(_)) => (
            format!("ARRAY(SELECT pg_catalog.jsonb_array_elements_text(${n}))::{ty}"),
            JsonB(value.clone()).into(),
        ),
        ("C", Value::Object(_)) => (
            format!("pg_catalog.jsonb_populate_record(NULL::{ty}, ${n})"),
            JsonB(value.clone()).into(),
        ),
        (_, Value::String(s)) => (format!("${n}::{ty}"), s.clone().into()),
        (_, other) => (format!("${n}::{ty}"), other.to_string().into()),
    }
}

/// Build `SELECT * FROM f(a => $1::t, …)` for the arguments present.
fn build_call(
    sig: &FunctionSignature,
    args: &Map<String, Value>,
) -> (String, Vec<DatumWithOid<'static>>) {
    let mut parts = Vec::new();
    let mut params = Vec::new();
    for arg in &sig.args {
        let Some(name) = &arg.name else { continue };
        let Some(v) = args.get(name) else { continue };
        let (expr, datum) = bind_argument(v, arg, params.len() + 1);
        parts.push(format!("{} => {expr}", pgrx::spi::quote_identifier(name)));
        params.push(datum);
    }
    (
        format!(
            "SELECT * FROM {}({}) AS result",
            sig.qualified_name,
            parts.join(", ")
        ),
        params,
    )
}

/// A tool name safe to echo back (caller input may be anything).
fn display_name(tool: &str) -> String {
    let ok = !tool.is_empty()
        && tool.len() <= 64
        && tool
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if ok {
        tool.to_string()
    } else {
        "(invalid name)".to_string()
    }
}

const MAX_SINGLE_VALUE_CHARS: usize = 20_000;

fn shape_rows(
    r: rows::Rows,
    limit: usize,
    fetched: usize,
    elapsed_ms: f64,
) -> (String, Option<Value>) {
    if let Some(v) = r.single_json().filter(|_| fetched == 1) {
        let text = serde_json::to_string(&v).unwrap_or_default();
        let text = mcp_tools::clip_chars(&text, MAX_SINGLE_VALUE_CHARS).0;
        let structured = if v.is_object() {
            v
        } else {
            json!({"result": v})
        };
        return (text, Some(structured));
    }
    if fetched == 1 && r.columns.len() == 1 {
        let cell = &r.rows[0][0];
        let text = match cell {
            mcp_tools::Cell::Null => "(no result)".to_string(),
            mcp_tools::Cell::Other { type_name, .. } if type_name == "void" => "(done)".to_string(),
            mcp_tools::Cell::Text(s)
            | mcp_tools::Cell::Number(s)
            | mcp_tools::Cell::Other { text: s, .. } => {
                mcp_tools::clip_chars(s, MAX_SINGLE_VALUE_CHARS).0
            }
            other => mcp_tools::render_cell(other, &shape_options()),
        };
        return (text, None);
    }
    let mut meta = ResultMeta::from_fetch(fetched, limit, elapsed_ms);
    meta.max_rows = Some(gucs::MAX_ROWS.get().max(1) as usize);
    let opts = shape_options();
    let md = mcp_tools::render_markdown(&r.columns, &r.rows, &meta, &opts);
    let js = mcp_tools::render_json(&r.columns, &r.rows, &meta, &opts);
    (md, Some(js))
}

pub fn shape_options() -> ShapeOptions {
    ShapeOptions {
        max_cell_chars: gucs::MAX_CELL_CHARS.get().max(16) as usize,
        ..ShapeOptions::default()
    }
}

pub fn row_cap() -> RowCap {
    RowCap {
        default: gucs::DEFAULT_ROWS.get().max(1) as usize,
        max: gucs::MAX_ROWS.get().max(1) as usize,
        hard_max: 5000,
    }
}

/// Execute a tool for the calling role. Never raises for tool faults: they become
/// `is_error` outcomes (with the detail in the audit row); only a bad interface, query cancel
/// or statement_timeout raise.
pub fn execute_tool(
    tool: &str,
    arguments: &Value,
    interface: &str,
    run_id: Option<pgrx::Uuid>,
    tool_call_id: Option<&str>,
) -> McpResult<(ToolOutcome, i64)> {
    let (interface_ok, row) = tool_row(tool, interface)?;
    let started = Instant::now();
    let mut rec = CallRecord {
        run_id,
        tool_call_id: tool_call_id.map(str::to_string),
        tool: tool.to_string(),
        interface: interface.to_string(),
        arguments: Some(arguments.clone()),
        ..Default::default()
    };
    let outcome = match row {
        Some(r) if interface_ok && r.enabled && r.mapped && r.may_execute => {
            // Tag the backend while the tool runs (pg_stat_activity.application_name).
            let tag = match run_id {
                Some(id) => format!("mcp:{id}"),
                None => format!("mcp:tool:{}", display_name(tool)),
            };
            with_application_name(&tag, || run_tool(tool, &r, arguments, &mut rec))?
        }
        _ => ToolOutcome::error(
            "denied",
            format!(
                "Tool '{}' is not available in interface '{interface}'.",
                display_name(tool)
            ),
        ),
    };
    rec.status = outcome.status;
    rec.latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    if !outcome.validation_errors.is_empty() {
        rec.validation_errors = Some(mcp_tools::errors_to_json(&outcome.validation_errors));
    }
    rec.result_text = Some(outcome.text.clone());
    let call_id = record_call(&rec);
    let mut outcome = outcome;
    if outcome.status == "error" {
        outcome.text = format!("{} (call id {call_id})", outcome.text);
    }
    Ok((outcome, call_id))
}

fn run_tool(
    tool: &str,
    r: &ToolRow,
    arguments: &Value,
    rec: &mut CallRecord,
) -> McpResult<ToolOutcome> {
    let errors = validate_against(tool, &r.parameters, arguments);
    if !errors.is_empty() {
        let text = mcp_tools::correction_message(tool, &errors);
        return Ok(ToolOutcome {
            text,
            structured: None,
            is_error: true,
            status: "invalid",
            validation_errors: errors,
        });
    }
    let empty = Map::new();
    let args = arguments.as_object().unwrap_or(&empty);
    match (r.kind.as_str(), r.function) {
        (_, Some(oid)) => {
            let Some(sig) = function_signature(oid)? else {
                return Ok(ToolOutcome::error(
                    "denied",
                    format!("Tool '{tool}' is not available."),
                ));
            };
            let (sql, params) = build_call(&sig, args);
            let limit = row_cap().effective_default();
            let started = Instant::now();
            let result = in_subtransaction(false, || {
                Spi::connect_mut(|c| -> Result<(rows::Rows, usize), pgrx::spi::SpiError> {
                    let t = c.update(sql.as_str(), Some((limit + 1) as _), &params)?;
                    let fetched = t.len();
                    Ok((rows::collect(t, limit)?, fetched))
                })
            });
            let elapsed = started.elapsed().as_secs_f64() * 1000.0;
            match result {
                Ok(Ok((rows, fetched))) => {
                    let (text, structured) = shape_rows(rows, limit, fetched, elapsed);
                    Ok(ToolOutcome {
                        text,
                        structured,
                        is_error: false,
                        status: "ok",
                        validation_errors: Vec::new(),
                    })
                }
                Ok(Err(spi)) => {
                    rec.error = Some(PgErrorInfo {
                        sqlstate: "XX000".into(),
                        message: spi.to_string(),
                    });
                    Ok(ToolOutcome::error(
                        "error",
                        mcp_tools::generic_tool_error(tool),
                    ))
                }
                Err(info) => {
                    rec.error = Some(info);
                    Ok(ToolOutcome::error(
                        "error",
                        mcp_tools::generic_tool_error(tool),
                    ))
                }
            }
        }
        (kind, None) => Ok(ToolOutcome::error(
            "error",
            format!("Tool '{tool}' of kind '{kind}' cannot be executed by this version of pg_mcp."),
        )),
    }
}

/// `mcp.call_tool`: run one tool as the calling role and return an MCP `CallToolResult`.
#[pg_extern(name = "call_tool", volatile)]
fn call_tool(
    tool: &str,
    arguments: default!(Option<JsonB>, "'{}'"),
    interface: default!(&str, "'chatbot'"),
) -> Result<JsonB, ErrorReport> {
    let args = arguments.map(|j| j.0).unwrap_or_else(|| json!({}));
    let (outcome, _) = execute_tool(tool, &args, interface, None, None)?;
    Ok(JsonB(outcome.to_json()))
}
