//! Tool discovery (M2), argument validation (M6) and execution (`mcp.call_tool`).

use crate::error::{required, McpError, McpResult};
use crate::gucs;
use crate::jsonb::{JsonbArg, JsonbStored};
use crate::pg_util::{
    as_extension_owner, first_row, in_subtransaction, select_kept, with_application_name,
    with_tool_timeout, write_kept, PgErrorInfo,
};
use crate::registry::{
    function_signature, may_execute_function, resolve_function, FunctionSignature,
};
use crate::rows;
use crate::sandbox::{self, GuardLevel};
use crate::sql_tool;
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

/// "The calling role may run a tool whose `function` column is `signature`": no function
/// (report/built-in bodies), or the signature resolves (per-backend cache) and the role has
/// EXECUTE on the function. One definition for listing and calling, so a tool is callable
/// exactly when it is listed. The queries read the column as `t.function::text`, which is also
/// right for 0.1.0's regprocedure column while a new library runs before ALTER EXTENSION UPDATE.
fn may_run(signature: Option<&str>) -> bool {
    signature.is_none_or(|s| resolve_function(s).is_some_and(may_execute_function))
}

fn no_interface(interface: &str) -> McpError {
    McpError::UndefinedObject(format!("interface \"{interface}\" does not exist"))
}

/// Whether the calling role may use an interface whose `access_role` column holds
/// `access_role`: the one privilege check of mcp.chat, mcp.list_tools, mcp.call_tool (and
/// mcp.handle). Superusers may; `'public'` opens the interface to every role; otherwise the
/// caller needs the privileges of the named role (`pg_has_role(…, 'USAGE')`: a member that
/// inherits it, directly or through other roles, as for a GRANT to that role). NULL is closed.
/// Roles that manage interfaces (UPDATE on mcp.interface) may use every interface: they could
/// set access_role themselves. A role that no longer exists admits nobody.
pub fn may_use_interface_role(access_role: Option<&str>) -> bool {
    let me = unsafe { pg_sys::GetUserId() };
    if unsafe { pg_sys::superuser_arg(me) } {
        return true;
    }
    let member = match access_role {
        Some("public") => true,
        Some(role) => match std::ffi::CString::new(role) {
            Ok(name) => unsafe {
                let oid = pg_sys::get_role_oid(name.as_ptr(), true);
                oid != pg_sys::Oid::INVALID && pg_sys::has_privs_of_role(me, oid)
            },
            Err(_) => false,
        },
        None => false,
    };
    member || crate::registry::may_manage_interfaces()
}

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

/// `mcp.may_use_interface`: whether the calling role may use an interface (42704 if unknown).
#[pg_extern(name = "may_use_interface", stable)]
fn may_use_interface(interface: Option<&str>) -> Result<bool, ErrorReport> {
    let interface = required(interface, "may_use_interface", "interface")?;
    Ok(interface_access(interface)?.usable)
}

/// The tools of `interface` the calling role may run: the interface is enabled and usable by
/// the role, the tool enabled, mapped, and EXECUTE on the function. Ordered by name.
pub fn visible_tools(interface: &str) -> McpResult<Vec<ToolInfo>> {
    let access = interface_access(interface)?;
    if !(access.enabled && access.usable) {
        return Ok(Vec::new());
    }
    let tools = select_kept(
        "SELECT t.name, t.description, t.parameters, t.read_only, t.function::text
           FROM mcp.interface_tool it
           JOIN mcp.tool t ON t.name = it.tool
          WHERE it.interface = $1 AND t.enabled
          ORDER BY t.name",
        &[interface.into()],
        |t| {
            let mut out = Vec::new();
            for row in t {
                let info = ToolInfo {
                    name: row.get::<String>(1)?.unwrap_or_default(),
                    description: row.get::<String>(2)?.unwrap_or_default(),
                    parameters: row
                        .get::<JsonbStored>(3)?
                        .map(|j| j.value("a tool's parameters").unwrap_or_else(|e| e.raise()))
                        .unwrap_or_else(|| json!({"type": "object"})),
                    read_only: row.get::<bool>(4)?.unwrap_or(true),
                };
                out.push((info, row.get::<String>(5)?));
            }
            Ok(out)
        },
    )?;
    // Resolved after the scan: a cache miss may run a subtransaction.
    Ok(tools
        .into_iter()
        .filter(|(_, signature)| may_run(signature.as_deref()))
        .map(|(info, _)| info)
        .collect())
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
    interface: default!(Option<&str>, "'chatbot'"),
    format: default!(Option<&str>, "'openai'"),
) -> Result<JsonB, ErrorReport> {
    let interface = required(interface, "list_tools", "interface")?;
    let format = required(format, "list_tools", "format")?;
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
    let errors = validate_against(tool, &schema, &args);
    Ok(JsonB(mcp_tools::errors_to_json(&errors)))
}

// ------------------------------------------------------------------------------------------
// Execution
// ------------------------------------------------------------------------------------------

/// Everything `call_tool` needs to know about a tool row.
struct ToolRow {
    kind: String,
    /// The stored signature and the function it names now (`None`: renamed or dropped).
    signature: Option<String>,
    function: Option<pg_sys::Oid>,
    parameters: Value,
    body: Option<String>,
    timeout_ms: Option<i32>,
    enabled: bool,
    mapped: bool,
    may_execute: bool,
    read_only: bool,
}

/// Whether the interface is enabled and usable by the calling role, and the tool row, in one
/// query (hot path of every call). 42704 when the interface does not exist; `None` for an
/// unknown tool.
fn tool_row(tool: &str, interface: &str) -> McpResult<(bool, Option<ToolRow>)> {
    let (enabled, access_role, mut row) = first_row(
        "SELECT i.enabled, t.kind, t.function::text, t.parameters, t.enabled,
                EXISTS (SELECT 1 FROM mcp.interface_tool it WHERE it.interface = i.name AND it.tool = t.name),
                t.body, t.timeout_ms, i.access_role, t.read_only
           FROM mcp.interface i LEFT JOIN mcp.tool t ON t.name = $1 WHERE i.name = $2",
        &[tool.into(), interface.into()],
        |t| {
            let enabled = t.get::<bool>(1)?.unwrap_or(false);
            let row = match t.get::<String>(2)? {
                None => None,
                Some(kind) => Some(ToolRow {
                    kind,
                    signature: t.get::<String>(3)?,
                    function: None,
                    parameters: t
                        .get::<JsonbStored>(4)?
                        .map(|j| j.value("the tool's parameters").unwrap_or_else(|e| e.raise()))
                        .unwrap_or_else(|| json!({})),
                    enabled: t.get::<bool>(5)?.unwrap_or(false),
                    mapped: t.get::<bool>(6)?.unwrap_or(false),
                    may_execute: false,
                    body: t.get::<String>(7)?,
                    timeout_ms: t.get::<i32>(8)?,
                    read_only: t.get::<bool>(10)?.unwrap_or(true),
                }),
            };
            Ok((enabled, t.get::<String>(9)?, row))
        },
    )?
    .ok_or_else(|| no_interface(interface))?;
    if let Some(r) = row.as_mut() {
        r.function = r.signature.as_deref().and_then(resolve_function);
        r.may_execute = r.signature.is_none() || r.function.is_some_and(may_execute_function);
    }
    Ok((
        enabled && may_use_interface_role(access_role.as_deref()),
        row,
    ))
}

/// One audit row of `mcp.tool_call`.
#[derive(Default)]
pub struct CallRecord {
    /// Reserved id of this row (`None` → the next one from the sequence).
    pub call_id: Option<i64>,
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

/// Reserve the call id of the next audit row (so it can tag the backend while the tool runs).
/// `None` in a read-only transaction (a standby, or `SET TRANSACTION READ ONLY`), where no
/// audit row can be written.
fn reserve_call_id() -> Option<i64> {
    if unsafe { pg_sys::XactReadOnly } {
        return None;
    }
    // The identity sequence by name through the syscache, and nextval without SPI (this is on
    // every tool call). The permission check is skipped: the sequence is pg_mcp's own.
    let seq = unsafe {
        let ns = pg_sys::get_namespace_oid(c"mcp".as_ptr(), true);
        if ns == pg_sys::Oid::INVALID {
            pg_sys::Oid::INVALID
        } else {
            pg_sys::get_relname_relid(c"tool_call_call_id_seq".as_ptr(), ns)
        }
    };
    // Not found only if the extension is broken; record_call then takes the column default.
    (seq != pg_sys::Oid::INVALID)
        .then(|| unsafe { pg_sys::ffi::pg_guard_ffi_boundary(|| nextval_internal(seq, false)) })
}

// commands/sequence.h; pgrx does not bind it.
unsafe extern "C-unwind" {
    fn nextval_internal(relid: pg_sys::Oid, check_permissions: bool) -> i64;
}

/// Write an audit row as the extension owner; returns its call_id. In a read-only transaction
/// nothing can be written: the call is logged to the server log instead and 0 returned.
pub fn record_call(r: &CallRecord) -> i64 {
    if unsafe { pg_sys::XactReadOnly } {
        pgrx::log!(
            "pg_mcp: tool call of {} by {} not audited (read-only transaction), status {}",
            display_name(&r.tool),
            calling_role(),
            r.status
        );
        return 0;
    }
    // Caller- and model-supplied values are cut to mcp.audit_max_value_bytes (size and sha256
    // of what was cut go to `clipped`): a call with a 48 MB argument must not write 48 MB.
    let mut cuts = crate::audit::row_cuts();
    let preview = r.result_text.as_deref().map(|t| {
        let (p, cut) = mcp_tools::clip_chars(t, 500);
        if cut {
            cuts.note(
                "result_preview",
                Some(mcp_audit::Cut::of_bytes(t.as_bytes())),
            );
        }
        p
    });
    let size = r
        .result_text
        .as_ref()
        .map(|t| mcp_audit::clamp_count(t.len() as u64));
    let role = calling_role();
    let tool_call_id = cuts.opt_text("tool_call_id", r.tool_call_id.as_deref());
    let tool = cuts.text("tool", &r.tool).into_owned();
    let interface = cuts.text("interface", &r.interface).into_owned();
    let arguments_raw = cuts.opt_text("arguments_raw", r.arguments_raw.as_deref());
    let arguments = r
        .arguments
        .as_ref()
        .map(|a| cuts.json("arguments", a).into_owned());
    let validation_errors = r
        .validation_errors
        .as_ref()
        .map(|v| cuts.json("validation_errors", v).into_owned());
    let error_sqlstate = r.error.as_ref().map(|e| e.sqlstate.clone());
    let error_message = cuts.opt_text(
        "error_message",
        r.error.as_ref().map(|e| e.message.as_str()),
    );
    let clipped = cuts.into_json();
    if r.run_id.is_some() && crate::audit_worker::recording() {
        // A chat run's call goes through the durable audit worker when it is on (issue 11).
        let mut row = serde_json::json!({
            "run_id": r.run_id.map(|u| u.to_string()), "tool_call_id": tool_call_id, "tool": tool,
            "interface": interface, "role_name": role, "arguments_raw": arguments_raw,
            "arguments": arguments, "validation_errors": validation_errors, "status": r.status,
            "result_size": size, "result_preview": preview, "latency_ms": r.latency_ms,
            "error_sqlstate": error_sqlstate, "error_message": error_message, "clipped": clipped});
        if let (Some(id), Value::Object(o)) = (r.call_id, &mut row) {
            o.insert("call_id".into(), id.into());
        }
        if crate::audit_worker::append("tool_call", row) {
            return r.call_id.unwrap_or(0);
        }
    }
    let args: Vec<DatumWithOid> = vec![
        role.into(),
        r.run_id.into(),
        tool_call_id.into(),
        tool.into(),
        interface.into(),
        arguments_raw.into(),
        arguments.map(JsonB).into(),
        validation_errors.map(JsonB).into(),
        r.status.into(),
        size.into(),
        preview.into(),
        r.latency_ms.into(),
        error_sqlstate.into(),
        error_message.into(),
        r.call_id.into(),
        clipped.map(JsonB).into(),
    ];
    as_extension_owner(|| {
        write_kept::<i64>(
            "INSERT INTO mcp.tool_call (call_id, run_id, tool_call_id, tool, interface, role_name,
                                        arguments_raw, arguments, validation_errors, status,
                                        result_size, result_preview, latency_ms, error_sqlstate,
                                        error_message, clipped)
             OVERRIDING SYSTEM VALUE
             VALUES (COALESCE($15, pg_catalog.nextval(pg_catalog.pg_get_serial_sequence('mcp.tool_call', 'call_id'))),
                     $2, $3, $4, $5, $1, $6, $7, $8, $9, $10, $11, $12, $13, $14, $16)
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

/// Shape fetched rows for the model. `always_table`: the SQL, report and schema tools always
/// render the markdown table; function tools return a single value (or JSON document) as is.
fn shape_rows(
    f: rows::Fetched,
    limit: mcp_tools::RowLimit,
    elapsed_ms: f64,
    always_table: bool,
) -> (String, Option<Value>) {
    let r = f.rows;
    let lone = r.rows.len() == 1 && !f.more_rows;
    if !always_table {
        if let Some(v) = r.single_json().filter(|_| lone) {
            let text = serde_json::to_string(&v).unwrap_or_default();
            let text = mcp_tools::clip_chars(&text, MAX_SINGLE_VALUE_CHARS).0;
            let structured = if v.is_object() {
                v
            } else {
                json!({"result": v})
            };
            return (text, Some(structured));
        }
        if lone && r.columns.len() == 1 {
            let cell = &r.rows[0][0];
            let text = match cell {
                mcp_tools::Cell::Null => "(no result)".to_string(),
                mcp_tools::Cell::Other { type_name, .. } if type_name == "void" => {
                    "(done)".to_string()
                }
                mcp_tools::Cell::Text(s)
                | mcp_tools::Cell::Number(s)
                | mcp_tools::Cell::Other { text: s, .. } => {
                    mcp_tools::clip_chars(s, MAX_SINGLE_VALUE_CHARS).0
                }
                other => mcp_tools::render_cell(other, &shape_options()),
            };
            return (text, None);
        }
    }
    let meta = ResultMeta {
        rows_shown: r.rows.len(),
        more_rows: f.more_rows,
        elapsed_ms,
        clipped_limit: limit.clipped,
        max_rows: Some(row_cap().effective_max()),
        budget_reached: f.budget_reached.then(max_result_bytes),
    };
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

/// The result budget of one tool call in bytes (`mcp.max_result_bytes`).
fn max_result_bytes() -> usize {
    gucs::MAX_RESULT_BYTES.get().max(1024) as usize
}

/// How a tool's rows are collected: `limit` rows shown, text kept as far as a cell shows it
/// (a function tool's lone value up to [`MAX_SINGLE_VALUE_CHARS`]), within the result budget.
pub fn collect_options(limit: usize, single_value: bool, json_whole: bool) -> rows::CollectOptions {
    let shape = shape_options();
    rows::CollectOptions {
        limit,
        keep_chars: shape.max_cell_chars.max(shape.max_json_chars),
        single_value_chars: single_value.then_some(MAX_SINGLE_VALUE_CHARS),
        json_whole,
        max_bytes: max_result_bytes(),
        shape,
    }
}

/// The row limit of tools whose caller cannot choose one (function and report tools).
fn default_limit() -> mcp_tools::RowLimit {
    mcp_tools::RowLimit {
        limit: row_cap().effective_default(),
        clipped: None,
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
/// `is_error` outcomes (with the detail in the audit row and the server log); only a bad
/// interface, query cancel or statement_timeout raise — and an attempt to start a tool from
/// inside a running tool (42501, which becomes that tool's error result).
pub fn execute_tool(
    tool: &str,
    arguments: &Value,
    interface: &str,
    run_id: Option<pgrx::Uuid>,
    tool_call_id: Option<&str>,
    arguments_raw: Option<&str>,
) -> McpResult<(ToolOutcome, i64)> {
    sandbox::refuse_nested("mcp.call_tool")?;
    let (interface_ok, row) = tool_row(tool, interface)?;
    let started = Instant::now();
    let mut rec = CallRecord {
        run_id,
        tool_call_id: tool_call_id.map(str::to_string),
        tool: tool.to_string(),
        interface: interface.to_string(),
        arguments_raw: arguments_raw.map(str::to_string),
        arguments: Some(arguments.clone()),
        ..Default::default()
    };
    let outcome = match row {
        Some(r)
            if interface_ok
                && r.enabled
                && r.mapped
                && r.function.is_none()
                && r.signature.is_some() =>
        {
            // Renamed or dropped after registration: say which signature no longer resolves
            // (the registry is readable by everybody); mcp.unresolved_functions lists them all.
            let sig = r.signature.as_deref().unwrap_or_default();
            unresolved_function(tool, sig, &mut rec)
        }
        Some(r) if interface_ok && r.enabled && r.mapped && r.may_execute => {
            // Tag the backend while the tool runs (pg_stat_activity.application_name) with the
            // run and the call id, so an operator can match a busy backend to its audit row.
            rec.call_id = reserve_call_id();
            let tag = match (run_id, rec.call_id) {
                (Some(run), Some(call)) => format!("mcp:{run}:call:{call}"),
                (Some(run), None) => format!("mcp:{run}"),
                (None, Some(call)) => format!("mcp:call:{call}"),
                (None, None) => format!("mcp:tool:{}", display_name(tool)),
            };
            let timeout_ms = r.timeout_ms.unwrap_or_else(|| gucs::TOOL_TIMEOUT_MS.get());
            // Query tools are read-only whatever the row says; a function tool is as its
            // read_only flag declares (see crate::sandbox and the README's security section).
            let level = if r.function.is_some() && !r.read_only {
                GuardLevel::Writing
            } else {
                GuardLevel::ReadOnly
            };
            with_application_name(&tag, || {
                with_tool_timeout(timeout_ms, || {
                    sandbox::run_sandboxed(level, || run_tool(tool, &r, arguments, &mut rec))
                })
            })?
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
    if let Some(e) = &rec.error {
        // The operator log gets what the model never sees.
        pgrx::log!(
            "pg_mcp: tool call {call_id} ({}) failed: SQLSTATE {}: {}",
            display_name(tool),
            e.sqlstate,
            e.message
        );
    }
    let mut outcome = outcome;
    if outcome.status == "error" {
        outcome.text = format!("{} (call id {call_id})", outcome.text);
    }
    Ok((outcome, call_id))
}

fn ok_outcome((text, structured): (String, Option<Value>)) -> ToolOutcome {
    ToolOutcome {
        text,
        structured,
        is_error: false,
        status: "ok",
        validation_errors: Vec::new(),
    }
}

/// The outcome of a failed query: refusals are explained, failures get one sentence. A
/// refusal of the sandbox's executor hook (42501 raised while the tool ran) is explained like
/// a refusal before execution, with its SQLSTATE in the audit row.
fn query_fault(
    tool: &str,
    fault: sql_tool::QueryFault,
    rec: &mut CallRecord,
    sql_sentence: bool,
) -> ToolOutcome {
    match fault {
        sql_tool::QueryFault::Refused(why) => ToolOutcome::error("denied", why),
        sql_tool::QueryFault::Failed(info) => {
            if info.sqlstate == "42501" {
                if let Some(why) = sandbox::take_refusal() {
                    rec.error = Some(info);
                    return ToolOutcome::error("denied", why);
                }
            }
            let text = if sql_sentence || info.sqlstate == "57014" {
                mcp_tools::report::sql_error_sentence(&info.sqlstate)
            } else {
                mcp_tools::generic_tool_error(tool)
            };
            rec.error = Some(info);
            ToolOutcome::error("error", text)
        }
    }
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
        (_, Some(oid)) => run_function_tool(tool, r, oid, args, rec),
        ("report", None) => Ok(run_report(tool, r, args, rec)),
        ("builtin", None) if tool == SQL_QUERY => Ok(run_sql_query(args, rec)),
        ("builtin", None) if tool == SCHEMA_INFORMATION => Ok(run_schema_information(args, rec)),
        (kind, None) => Ok(ToolOutcome::error(
            "error",
            format!("Tool '{tool}' of kind '{kind}' cannot be executed by this version of pg_mcp."),
        )),
    }
}

/// The outcome of a call whose registered function no longer exists.
fn unresolved_function(tool: &str, signature: &str, rec: &mut CallRecord) -> ToolOutcome {
    rec.error = Some(PgErrorInfo {
        sqlstate: "42883".into(),
        message: format!("function {signature} of tool {tool} does not exist"),
    });
    ToolOutcome::error(
        "error",
        format!(
            "Tool '{tool}' cannot run: its function {signature} does not exist (renamed or dropped after registration; see mcp.unresolved_functions)."
        ),
    )
}

fn run_function_tool(
    tool: &str,
    r: &ToolRow,
    oid: pg_sys::Oid,
    args: &Map<String, Value>,
    rec: &mut CallRecord,
) -> McpResult<ToolOutcome> {
    let Some(sig) = function_signature(oid)? else {
        let signature = r.signature.as_deref().unwrap_or_default();
        return Ok(unresolved_function(tool, signature, rec));
    };
    let (sql, params) = build_call(&sig, args);
    let limit = default_limit();
    let started = Instant::now();
    let result = in_subtransaction(false, || {
        rows::fetch(
            sql.as_str(),
            &params,
            &collect_options(limit.limit, true, false),
        )
    });
    let elapsed = started.elapsed().as_secs_f64() * 1000.0;
    let fault = match result {
        Ok(Ok(fetched)) => return Ok(ok_outcome(shape_rows(fetched, limit, elapsed, false))),
        Ok(Err(spi)) => PgErrorInfo {
            sqlstate: "XX000".into(),
            message: spi.to_string(),
        },
        Err(info) => info,
    };
    Ok(query_fault(
        tool,
        sql_tool::QueryFault::Failed(fault),
        rec,
        false,
    ))
}

/// Name of the built-in read-only SQL tool.
pub const SQL_QUERY: &str = "sql_query";
/// Name of the built-in schema overview tool.
pub const SCHEMA_INFORMATION: &str = "schema_information";

fn run_sql_query(args: &Map<String, Value>, rec: &mut CallRecord) -> ToolOutcome {
    if sql_tool::superuser_refused() {
        return ToolOutcome::error(
            "denied",
            "The sql_query tool does not run for superuser roles (they bypass grants and row-level security); connect as an ordinary role, or an operator can set mcp.allow_superuser_sql.".into(),
        );
    }
    let Some(query) = args.get("query").and_then(Value::as_str) else {
        return ToolOutcome::error("invalid", "Tool 'sql_query' needs a 'query' string.".into());
    };
    let limit =
        match mcp_tools::resolve_limit(args.get("max_rows").and_then(Value::as_i64), row_cap()) {
            Ok(l) => l,
            Err(m) => return ToolOutcome::error("invalid", m),
        };
    run_query_tool(SQL_QUERY, query, &[], limit, rec, true)
}

/// Run a query tool's SQL in the read-only context and shape its rows as a table.
fn run_query_tool(
    tool: &str,
    sql: &str,
    params: &[sql_tool::ParamText],
    limit: mcp_tools::RowLimit,
    rec: &mut CallRecord,
    sql_sentence: bool,
) -> ToolOutcome {
    let started = Instant::now();
    match sql_tool::run_read_only(sql, params, &collect_options(limit.limit, false, false)) {
        Ok(q) => {
            let elapsed = started.elapsed().as_secs_f64() * 1000.0;
            ok_outcome(shape_rows(q, limit, elapsed, true))
        }
        Err(f) => query_fault(tool, f, rec, sql_sentence),
    }
}

fn run_report(
    tool: &str,
    r: &ToolRow,
    args: &Map<String, Value>,
    rec: &mut CallRecord,
) -> ToolOutcome {
    let Some(body) = r.body.as_deref() else {
        return ToolOutcome::error("error", format!("Tool '{tool}' has no body."));
    };
    let params: Vec<sql_tool::ParamText> = mcp_tools::report::report_params(&r.parameters)
        .into_iter()
        .map(|p| {
            (
                mcp_tools::report::sql_text(args.get(&p.name), p.sql_type),
                sql_tool::type_oid(p.sql_type),
            )
        })
        .collect();
    run_query_tool(tool, body, &params, default_limit(), rec, false)
}

/// Characters of schema overview a model gets at most.
const SCHEMA_INFO_MAX_CHARS: usize = 16_000;

fn run_schema_information(args: &Map<String, Value>, rec: &mut CallRecord) -> ToolOutcome {
    let schema = args
        .get("schema")
        .and_then(Value::as_str)
        .map(str::to_string);
    let table = args
        .get("table")
        .and_then(Value::as_str)
        .map(str::to_string);
    let params = [(schema, pg_sys::TEXTOID), (table, pg_sys::TEXTOID)];
    let collect = collect_options(SCHEMA_INFO_MAX_RELATIONS, false, true);
    match sql_tool::run_read_only(SCHEMA_SQL, &params, &collect) {
        Ok(q) => {
            let relations: Vec<mcp_tools::report::RelationInfo> = q
                .rows
                .rows
                .iter()
                .filter_map(|row| relation_of(row))
                .collect();
            let mut text = mcp_tools::report::render_schema(&relations, SCHEMA_INFO_MAX_CHARS);
            if q.more_rows && !text.contains("not shown") {
                text.push_str("… more relations exist; ask again with a schema or table filter.\n");
            }
            ok_outcome((text, None))
        }
        Err(f) => query_fault(SCHEMA_INFORMATION, f, rec, false),
    }
}

const SCHEMA_INFO_MAX_RELATIONS: usize = 1000;

/// Relations and columns the calling role can read (privileges checked per column), without
/// system schemas and pg_mcp's own.
const SCHEMA_SQL: &str = "
SELECT n.nspname::text, c.relname::text,
       CASE c.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'partitioned table' WHEN 'v' THEN 'view'
                      WHEN 'm' THEN 'materialized view' WHEN 'f' THEN 'foreign table' END,
       pg_catalog.obj_description(c.oid, 'pg_class'),
       (SELECT pg_catalog.jsonb_agg(a.attname ORDER BY k.ord)
          FROM pg_catalog.pg_constraint con
          CROSS JOIN LATERAL pg_catalog.unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
          JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
         WHERE con.conrelid = c.oid AND con.contype = 'p'),
       (SELECT pg_catalog.jsonb_agg(pg_catalog.regexp_replace(pg_catalog.pg_get_constraintdef(con.oid), '^FOREIGN KEY ', '')
                                    ORDER BY con.conname)
          FROM pg_catalog.pg_constraint con WHERE con.conrelid = c.oid AND con.contype = 'f'),
       cols.cols
  FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  CROSS JOIN LATERAL (
       SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_array(
                  a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull,
                  pg_catalog.col_description(c.oid, a.attnum)) ORDER BY a.attnum) AS cols
         FROM pg_catalog.pg_attribute a
        WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
          AND pg_catalog.has_column_privilege(c.oid, a.attnum, 'SELECT')) cols
 WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
   AND NOT c.relispartition
   AND n.nspname NOT IN ('pg_catalog', 'information_schema')
   AND n.nspname !~ '^pg_(toast|temp_)'
   AND (n.nspname <> 'mcp' OR $1 = 'mcp')
   AND pg_catalog.has_schema_privilege(n.oid, 'USAGE')
   AND cols.cols IS NOT NULL
   AND ($1 IS NULL OR n.nspname = $1)
   AND ($2 IS NULL OR c.relname = $2)
 ORDER BY 1, 2";

fn relation_of(row: &[mcp_tools::Cell]) -> Option<mcp_tools::report::RelationInfo> {
    use mcp_tools::Cell;
    let text = |c: &Cell| match c {
        Cell::Text(s) | Cell::Number(s) => Some(s.clone()),
        Cell::Other { text, .. } => Some(text.clone()),
        _ => None,
    };
    let json = |c: &Cell| match c {
        Cell::Json(s) => serde_json::from_str::<Value>(s).ok(),
        _ => None,
    };
    let strings = |c: &Cell| -> Vec<String> {
        json(c)
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    let columns = json(&row[6])?
        .as_array()?
        .iter()
        .map(|c| mcp_tools::report::ColumnInfo {
            name: c[0].as_str().unwrap_or_default().to_string(),
            type_name: c[1].as_str().unwrap_or_default().to_string(),
            not_null: c[2].as_bool().unwrap_or(false),
            comment: c[3].as_str().map(str::to_string),
        })
        .collect();
    Some(mcp_tools::report::RelationInfo {
        schema: text(&row[0])?,
        name: text(&row[1])?,
        kind: text(&row[2]).unwrap_or_default(),
        comment: text(&row[3]),
        primary_key: strings(&row[4]),
        foreign_keys: strings(&row[5]),
        columns,
    })
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
    let (outcome, _) = execute_tool(tool, &args, interface, None, None, None)?;
    Ok(JsonB(outcome.to_json()))
}
