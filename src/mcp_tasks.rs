//! MCP tasks over the asynchronous chat runs: the built-in tool `chat` and the `tasks/*`
//! methods of `mcp.handle` (the protocol shapes are in `mcp_protocol::tasks`).
//!
//! A `tools/call` of `chat` whose client can take a task (2026-07-28: the tasks extension in the
//! request's `clientCapabilities`; 2025-11-25: `params.task`) is queued with
//! [`crate::async_runs::submit`] — the run of `mcp.chat_submit`, as the calling role — and
//! answered with the task at once; the task id is the run id. Any other call, or one made where
//! no chat worker runs (no `shared_preload_libraries`), runs the chat synchronously
//! ([`crate::chat::chat`], within the request's `statement_timeout`). `tasks/get` reads the
//! run's row (the caller's own runs only: row-level security of `mcp.async_run`, and the
//! submitter's privileges), `tasks/cancel` is [`crate::async_runs::cancel`].

use crate::error::McpError;
use crate::pg::first_row_mut;
use crate::tools::names;
use mcp_protocol::tasks::{self, Run};
use mcp_protocol::RpcError;
use pgrx::Uuid;
use serde_json::{json, Map, Value};

/// Whether a registry row is the built-in chat tool.
pub(crate) fn is_chat_tool(row: &crate::tools::ToolRow) -> bool {
    row.kind == "builtin" && row.name == names::CHAT
}

fn from_mcp(e: McpError) -> RpcError {
    RpcError::internal(e.message().to_string())
}

fn tool_error(text: String) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}

/// How the caller of a `tools/call` can take a task: `Some(modern)` when it can.
pub(crate) fn task_wanted(
    params: &Map<String, Value>,
    capabilities: Option<&Map<String, Value>>,
    version: &str,
) -> Result<Option<bool>, RpcError> {
    match capabilities {
        Some(caps) => Ok(tasks::client_declares(caps).then_some(true)),
        None => Ok((tasks::legacy_version_has_tasks(version)
            && tasks::legacy_task_requested(params)?)
        .then_some(false)),
    }
}

/// `tools/call` of the chat tool: a task when the client can take one and a chat worker runs,
/// else the chat's answer. The arguments were validated against the tool's schema.
pub(crate) fn call_chat(
    row: &crate::tools::ToolRow,
    arguments: &Map<String, Value>,
    interface: &str,
    task: Option<bool>,
) -> Result<Value, RpcError> {
    let errors = crate::tools::validate_against(
        &row.name,
        &row.parameters,
        &Value::Object(arguments.clone()),
    );
    if !errors.is_empty() {
        let why: Vec<String> = errors.iter().map(|e| e.message.clone()).collect();
        return Ok(tool_error(format!(
            "Tool call failed: {}. Correct the arguments and call again.",
            why.join("; ")
        )));
    }
    let question = arguments
        .get("question")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let session = match arguments.get("session_id").and_then(Value::as_str) {
        None => None,
        Some(s) => match parse_uuid(s) {
            Some(u) => Some(u),
            None => {
                return Ok(tool_error(
                    "Tool call failed: session_id must be a UUID (the session_id of an earlier answer)."
                        .into(),
                ))
            }
        },
    };
    let options = json!({});
    if let Some(modern) = task {
        match crate::async_runs::submit(question, interface, session, &options) {
            Ok(run_id) => {
                let run = read_run(run_id)?.ok_or_else(|| {
                    RpcError::internal("The task was created but cannot be read back")
                })?;
                return Ok(tasks::create_task_result(&run, modern));
            }
            // no chat worker in this server: the chat runs now, in this request
            Err(McpError::NotReady(_)) => {}
            Err(e) => {
                return Ok(tool_error(format!(
                    "The chat could not be queued: {}",
                    e.message()
                )))
            }
        }
    }
    match crate::chat::chat(question, interface, session, &options) {
        Ok(answer) => Ok(tasks::chat_tool_result(&answer)),
        Err(e) => Ok(tool_error(format!("The chat failed: {}", e.message()))),
    }
}

fn parse_uuid(s: &str) -> Option<Uuid> {
    let hex: String = s.chars().filter(|c| *c != '-').collect();
    if s.len() != 36 || hex.len() != 32 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let mut b = [0u8; 16];
    for (i, byte) in b.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(Uuid::from_bytes(b))
}

/// The run as a task's source, when the calling role may see it: its own row (row-level
/// security of `mcp.async_run`) of a submitter whose privileges it has. A fresh snapshot, so
/// a poll sees the worker's last commit.
fn read_run(run_id: Uuid) -> Result<Option<Run>, RpcError> {
    const TS: &str = "YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"";
    let sql = format!(
        "SELECT a.run_id::text, a.status, a.result,
                pg_catalog.to_char(a.submitted_at AT TIME ZONE 'UTC', '{TS}'),
                pg_catalog.to_char(COALESCE(a.finished_at, a.started_at, a.submitted_at) AT TIME ZONE 'UTC', '{TS}')
           FROM mcp.async_run a
          WHERE a.run_id OPERATOR(pg_catalog.=) $1
            AND pg_catalog.pg_has_role(a.role_name, 'USAGE')"
    );
    let row = first_row_mut(&sql, &[run_id.into()], |t| {
        Ok((
            t.get::<String>(1)?.unwrap_or_default(),
            t.get::<String>(2)?.unwrap_or_default(),
            t.get::<crate::jsonb::JsonbStored>(3)?,
            t.get::<String>(4)?.unwrap_or_default(),
            t.get::<String>(5)?.unwrap_or_default(),
        ))
    })
    .map_err(|e| from_mcp(McpError::from(e)))?;
    let Some((id, status, result, created, updated)) = row else {
        return Ok(None);
    };
    let result = result
        .map(|j| j.value("a run's result"))
        .transpose()
        .map_err(from_mcp)?;
    Ok(Some(Run {
        run_id: id,
        status,
        result,
        created_at: created,
        last_updated_at: updated,
    }))
}

/// The task `params.taskId` names, or -32602 (also for another principal's task).
fn task_of(params: &Map<String, Value>) -> Result<(Uuid, Run), RpcError> {
    let id = tasks::task_id(params)?;
    let run_id = parse_uuid(id).ok_or_else(tasks::not_found)?;
    let run = read_run(run_id)?.ok_or_else(tasks::not_found)?;
    Ok((run_id, run))
}

/// A `tasks/*` request. `modern`: the 2026-07-28 extension (the client declared it: checked by
/// the caller), else the 2025-11-25 core.
pub(crate) fn dispatch(
    method: &str,
    params: &Map<String, Value>,
    modern: bool,
) -> Result<Value, RpcError> {
    match method {
        "tasks/get" => {
            let (_, run) = task_of(params)?;
            Ok(tasks::get_task_result(&run, modern))
        }
        "tasks/update" => {
            // pg_mcp's tasks never ask for input while they run: nothing is outstanding, and
            // responses to keys that are not outstanding are ignored (as the extension says)
            task_of(params)?;
            if !matches!(params.get("inputResponses"), None | Some(Value::Object(_))) {
                return Err(RpcError::invalid_params(
                    "Invalid params: inputResponses must be an object",
                ));
            }
            Ok(json!({}))
        }
        "tasks/cancel" => {
            let (run_id, run) = task_of(params)?;
            let status = tasks::outcome(&run).status;
            if !modern && status.is_terminal() {
                return Err(tasks::cannot_cancel(status));
            }
            if !status.is_terminal() {
                crate::async_runs::cancel(run_id).map_err(from_mcp)?;
            }
            if modern {
                return Ok(json!({}));
            }
            let run = read_run(run_id)?.ok_or_else(tasks::not_found)?;
            Ok(tasks::get_task_result(&run, false))
        }
        "tasks/result" if !modern => {
            let (run_id, mut run) = task_of(params)?;
            loop {
                if let Some(r) = tasks::legacy_task_result(&run) {
                    return r;
                }
                // wait on the run's end (interruptible: cancel and statement_timeout end it)
                crate::async_runs::result(run_id, 1000).map_err(from_mcp)?;
                run = read_run(run_id)?.ok_or_else(tasks::not_found)?;
            }
        }
        "tasks/list" if !modern => list(params),
        _ => Err(RpcError::new(
            mcp_protocol::codes::METHOD_NOT_FOUND,
            "Method not found",
        )),
    }
}

/// 2025-11-25 `tasks/list`: the caller's asynchronous runs, newest first by id order of the
/// keyset cursor (the run id), a page of `mcp.page_size`.
fn list(params: &Map<String, Value>) -> Result<Value, RpcError> {
    let cursor = mcp_protocol::opt_str_param(params, "cursor")?;
    let after = cursor.map(mcp_protocol::decode_cursor).transpose()?;
    let size = crate::mcp_server::PAGE_SIZE.get().max(1) as i64;
    let ids: Vec<Uuid> = crate::pg::select_kept(
        "SELECT a.run_id FROM mcp.async_run a
          WHERE pg_catalog.pg_has_role(a.role_name, 'USAGE')
            AND ($1::text IS NULL OR a.run_id::text COLLATE \"C\" > $1::text COLLATE \"C\")
          ORDER BY a.run_id::text COLLATE \"C\" LIMIT $2",
        &[after.as_deref().into(), (size + 1).into()],
        |t| {
            let mut out = Vec::new();
            for row in t {
                if let Some(u) = row.get::<Uuid>(1)? {
                    out.push(u);
                }
            }
            Ok(out)
        },
    )
    .map_err(|e| from_mcp(McpError::from(e)))?;
    let more = ids.len() as i64 > size;
    let mut items = Vec::new();
    let mut last = None;
    for id in ids.into_iter().take(size as usize) {
        if let Some(run) = read_run(id)? {
            last = Some(run.run_id.clone());
            items.push(tasks::get_task_result(&run, false));
        }
    }
    let mut m = Map::new();
    m.insert("tasks".into(), Value::Array(items));
    if let (true, Some(l)) = (more, last) {
        m.insert("nextCursor".into(), json!(mcp_protocol::encode_cursor(&l)));
    }
    Ok(Value::Object(m))
}
