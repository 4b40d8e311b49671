//! The tool pipeline. Every tool call — `mcp.call_tool`, a tool call in `mcp.chat`, an MCP
//! client's `tools/call` through `mcp.handle` — takes one path through [`call`]:
//!
//! 1. **authorize**: the interface is enabled and usable by the calling role, the tool enabled,
//!    mapped to it, and EXECUTE on its function ([`access::authorize`]; a chat passes the row it
//!    authorized when it listed the tools for the model in the same statement);
//! 2. **validate** the arguments against the tool's JSON Schema ([`validate`]): a failure is
//!    answered with a correction for the model, the tool does not run;
//! 3. **bind**, 4. **execute**, 5. **shape**: the tool's [`Kind`] binds the arguments as typed
//!    parameters ([`crate::bind`]), runs as the calling role under the tool's time limit, in the
//!    sandbox, with `application_name` naming the call, and shapes the rows ([`shape`]);
//! 6. **audit**: one `mcp.tool_call` row ([`audit::record`]), status in the one vocabulary
//!    [`ToolCallStatus`].
//!
//! A tool kind is one file in this folder and one arm in [`kind_of`]; the names of the built-in
//! tools are in [`names`].

pub mod access;
pub mod audit;
mod context_retrieve;
pub mod definition;
mod function;
mod get_dialog;
pub mod names;
mod report;
mod schema_information;
mod search;
pub mod shape;
mod sql_query;
pub mod validate;

pub use access::{
    authorize, calling_role, interface_access, interface_denied, may_use_interface_role,
    runnable_tools, tools_json, visible_tools, Authorization, ToolRow,
};
pub use validate::validate_against;

use crate::error::McpResult;
use crate::gucs;
use crate::pg::{with_application_name, with_tool_timeout, PgErrorInfo};
use crate::sandbox::{self, GuardLevel};
use crate::sql_tool::{self, QueryFault};
use audit::CallRecord;
use mcp_chat::ToolCallStatus;
use mcp_tools::ArgError;
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::time::Instant;

/// One kind of tool: how a registry row is bound, executed and shaped.
pub trait Kind: Sync {
    /// Whether a call may write (the sandbox's level); query kinds only read, whatever the row
    /// says.
    fn writes(&self, _row: &ToolRow) -> bool {
        false
    }

    /// Bind the arguments, execute, shape the result. A fault of the tool is an outcome (its
    /// detail in [`Call::error`]); `Err` only for what must end the caller's statement.
    fn run(&self, call: &mut Call<'_>) -> McpResult<ToolOutcome>;
}

/// The kind that runs a row: one explicit decision by the row's `kind`, name and function
/// (the registry's CHECK constraints and row checks in `definition.rs` keep these apart), so a
/// new kind is a new arm here, not a position in a list.
fn kind_of(row: &ToolRow) -> Option<&'static dyn Kind> {
    use names::{CONTEXT_RETRIEVE, GET_DIALOG, SCHEMA_INFORMATION, SQL_QUERY};
    let with_function = row.function.is_some();
    match (row.kind.as_str(), row.name.as_str(), with_function) {
        ("builtin", GET_DIALOG, true) => Some(&get_dialog::GetDialog),
        (_, _, true) => Some(&function::Function),
        ("report", _, false) => Some(&report::Report),
        ("builtin", SQL_QUERY, false) => Some(&sql_query::SqlQuery),
        ("builtin", SCHEMA_INFORMATION, false) => Some(&schema_information::SchemaInformation),
        ("builtin", CONTEXT_RETRIEVE, false) => Some(&context_retrieve::ContextRetrieve),
        ("vector_search" | "text_search" | "hybrid_search", _, false) => Some(&search::Search),
        _ => None,
    }
}

/// One call as a kind sees it.
pub struct Call<'a> {
    pub row: &'a ToolRow,
    /// The validated arguments.
    pub args: &'a Map<String, Value>,
    /// The interface the call is made through.
    pub interface: &'a str,
    /// The fault's SQLSTATE and message, for the audit row and the server log only.
    pub error: Option<PgErrorInfo>,
    /// What the audit row records instead of the arguments (and the model's raw argument
    /// text), for a kind that must not keep them (`context_retrieve` keeps no query text).
    pub audit_arguments: Option<Value>,
}

/// What a caller asks the pipeline to run.
pub struct CallRequest<'a> {
    pub tool: &'a str,
    pub arguments: &'a Value,
    pub interface: &'a str,
    /// The chat run the call belongs to.
    pub run_id: Option<pgrx::Uuid>,
    /// The model's id of the call.
    pub tool_call_id: Option<&'a str>,
    /// The arguments exactly as the model sent them.
    pub arguments_raw: Option<&'a str>,
    /// The row, when the caller authorized it in this statement (the tools a chat offered).
    pub authorized: Option<&'a ToolRow>,
    /// A check of the result before it is audited (MCP `tools/call`: the tool's output schema),
    /// which may turn it into an error outcome; the audit row then records what the client got.
    pub check_result: Option<&'a dyn Fn(&mut ToolOutcome)>,
}

/// An MCP `CallToolResult` and its audit status.
pub struct ToolOutcome {
    pub text: String,
    pub structured: Option<Value>,
    pub status: ToolCallStatus,
    pub validation_errors: Vec<ArgError>,
    /// A request for user input (see [`get_dialog::input_request`]).
    pub needs_input: Option<Value>,
}

impl ToolOutcome {
    pub fn ok((text, structured): (String, Option<Value>)) -> Self {
        ToolOutcome {
            text,
            structured,
            status: ToolCallStatus::Ok,
            validation_errors: Vec::new(),
            needs_input: None,
        }
    }

    pub fn error(status: ToolCallStatus, text: String) -> Self {
        ToolOutcome {
            text,
            structured: None,
            status,
            validation_errors: Vec::new(),
            needs_input: None,
        }
    }

    pub fn is_error(&self) -> bool {
        self.status != ToolCallStatus::Ok
    }

    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert(
            "content".into(),
            json!([{"type": "text", "text": self.text}]),
        );
        if let Some(s) = &self.structured {
            m.insert("structuredContent".into(), s.clone());
        }
        m.insert("isError".into(), Value::Bool(self.is_error()));
        Value::Object(m)
    }
}

/// Run one tool call for the calling role through the pipeline; the outcome and the call id of
/// its audit row. Never raises for tool faults: they become error outcomes (with the detail in
/// the audit row and the server log); only a bad interface, query cancel or statement_timeout,
/// a failed audit write — and an attempt to start a tool from inside a running tool (42501,
/// which becomes that tool's error result) — raise.
pub fn call(req: &CallRequest<'_>) -> McpResult<(ToolOutcome, i64)> {
    sandbox::refuse_nested("mcp.call_tool")?;
    audit::refuse_unrecordable()?;
    let started = Instant::now();
    let authorization = match req.authorized {
        Some(row) => Authorization::Allowed(row.clone()),
        None => authorize(req.tool, req.interface)?,
    };
    let mut rec = CallRecord {
        call_id: None,
        run_id: req.run_id,
        tool_call_id: req.tool_call_id.map(str::to_string),
        tool: req.tool.to_string(),
        interface: req.interface.to_string(),
        arguments_raw: req.arguments_raw.map(str::to_string),
        arguments: Some(req.arguments.clone()),
        validation_errors: None,
        status: ToolCallStatus::Ok,
        result_text: None,
        latency_ms: 0.0,
        error: None,
        reason: None,
    };
    let mut outcome = match &authorization {
        Authorization::Denied => ToolOutcome::error(
            ToolCallStatus::Denied,
            format!(
                "Tool '{}' is not available in interface '{}'.",
                display_name(req.tool),
                req.interface
            ),
        ),
        Authorization::Unresolved(row) => {
            // Renamed or dropped after registration: say which signature no longer resolves
            // (the registry is readable by everybody); mcp.unresolved_functions lists them all.
            let mut call = Call {
                row,
                args: &Map::new(),
                interface: req.interface,
                error: None,
                audit_arguments: None,
            };
            let outcome =
                unresolved_function(&mut call, row.signature.as_deref().unwrap_or_default());
            rec.error = call.error;
            outcome
        }
        Authorization::Allowed(row) => {
            let errors = validate_against(req.tool, &row.parameters, req.arguments);
            if errors.is_empty() {
                execute(req, row, &mut rec)?
            } else {
                ToolOutcome {
                    text: mcp_tools::correction_message(req.tool, &errors),
                    structured: None,
                    status: ToolCallStatus::Invalid,
                    validation_errors: errors,
                    needs_input: None,
                }
            }
        }
    };
    if let (Some(check), Authorization::Allowed(_)) = (req.check_result, &authorization) {
        check(&mut outcome);
    }
    outcome.needs_input = get_dialog::input_request(&outcome);
    rec.status = outcome.status;
    rec.latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    if !outcome.validation_errors.is_empty() {
        rec.validation_errors = Some(mcp_tools::errors_to_json(&outcome.validation_errors));
    }
    rec.result_text = Some(outcome.text.clone());
    let call_id = audit::record(&rec)?;
    if let Some(e) = &rec.error {
        // The operator log gets what the model never sees.
        pgrx::log!(
            "pg_mcp: tool call {call_id} ({}) failed: SQLSTATE {}: {}",
            display_name(req.tool),
            e.sqlstate,
            e.message
        );
    }
    if outcome.status == ToolCallStatus::Error {
        outcome.text = format!("{} (call id {call_id})", outcome.text);
    }
    Ok((outcome, call_id))
}

/// Steps 3–5 for an authorized, valid call: the kind runs it under the time limit, in the
/// sandbox, with the backend tagged.
fn execute(req: &CallRequest<'_>, row: &ToolRow, rec: &mut CallRecord) -> McpResult<ToolOutcome> {
    if row.kind == "builtin" && row.name == names::CHAT {
        // the chat tool is a chat, not a tool body: a chat cannot call it (nor mcp.call_tool)
        return Ok(ToolOutcome::error(
            ToolCallStatus::Error,
            format!(
                "Tool '{}' runs only as an MCP tools/call (mcp.handle); from SQL use mcp.chat or mcp.chat_submit.",
                names::CHAT
            ),
        ));
    }
    let Some(kind) = kind_of(row) else {
        return Ok(ToolOutcome::error(
            ToolCallStatus::Error,
            format!(
                "Tool '{}' of kind '{}' cannot be executed by this version of pg_mcp.",
                req.tool, row.kind
            ),
        ));
    };
    // Tag the backend while the tool runs (pg_stat_activity.application_name) with the run and
    // the call id, so an operator can match a busy backend to its audit row.
    rec.call_id = audit::reserve_call_id();
    let tag: Cow<'_, str> = match (req.run_id, rec.call_id) {
        (Some(run), Some(call)) => format!("mcp:{run}:call:{call}").into(),
        (Some(run), None) => format!("mcp:{run}").into(),
        (None, Some(call)) => format!("mcp:call:{call}").into(),
        (None, None) => format!("mcp:tool:{}", display_name(req.tool)).into(),
    };
    let timeout_ms = row
        .timeout_ms
        .unwrap_or_else(|| gucs::TOOL_TIMEOUT_MS.get());
    let level = if kind.writes(row) {
        GuardLevel::Writing
    } else {
        GuardLevel::ReadOnly
    };
    let empty = Map::new();
    let mut call = Call {
        row,
        args: req.arguments.as_object().unwrap_or(&empty),
        interface: req.interface,
        error: None,
        audit_arguments: None,
    };
    let outcome = with_application_name(&tag, || {
        with_tool_timeout(timeout_ms, || {
            sandbox::run_sandboxed(level, || kind.run(&mut call))
        })
    });
    rec.error = call.error;
    if let Some(a) = call.audit_arguments {
        rec.arguments = Some(a);
        rec.arguments_raw = None;
    }
    outcome
}

/// The outcome of a failed query: refusals are explained, failures get one sentence. A
/// refusal of the sandbox's executor hook (42501 raised while the tool ran) is explained like
/// a refusal before execution, with its SQLSTATE in the audit row.
fn query_fault(call: &mut Call<'_>, fault: QueryFault, sql_sentence: bool) -> ToolOutcome {
    match fault {
        QueryFault::Refused(why) => ToolOutcome::error(ToolCallStatus::Denied, why),
        QueryFault::Failed(info) => {
            if info.sqlstate == "42501" {
                if let Some(why) = sandbox::take_refusal() {
                    call.error = Some(info);
                    return ToolOutcome::error(ToolCallStatus::Denied, why);
                }
            }
            let text = if sql_sentence || info.sqlstate == "57014" {
                mcp_tools::report::sql_error_sentence(&info.sqlstate)
            } else {
                mcp_tools::generic_tool_error(&call.row.name)
            };
            call.error = Some(info);
            ToolOutcome::error(ToolCallStatus::Error, text)
        }
    }
}

/// Run a query kind's SQL in the read-only context and shape its rows as a table.
fn run_query(
    call: &mut Call<'_>,
    sql: &str,
    params: &[crate::bind::Param],
    limit: mcp_tools::RowLimit,
    sql_sentence: bool,
) -> ToolOutcome {
    let started = Instant::now();
    match sql_tool::run_read_only(
        sql,
        params,
        &shape::collect_options(limit.limit, false, false),
    ) {
        Ok(q) => {
            let elapsed = started.elapsed().as_secs_f64() * 1000.0;
            ToolOutcome::ok(shape::shape_rows(q, limit, elapsed, true))
        }
        Err(f) => query_fault(call, f, sql_sentence),
    }
}

/// The outcome of a call whose registered function no longer exists.
fn unresolved_function(call: &mut Call<'_>, signature: &str) -> ToolOutcome {
    let tool = &call.row.name;
    call.error = Some(PgErrorInfo {
        sqlstate: "42883".into(),
        message: format!("function {signature} of tool {tool} does not exist"),
    });
    ToolOutcome::error(
        ToolCallStatus::Error,
        format!(
            "Tool '{tool}' cannot run: its function {signature} does not exist (renamed or dropped after registration; see mcp.unresolved_functions)."
        ),
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
