//! Tasks: a `tools/call` answered with a task handle that the client polls, in both eras.
//!
//! - **2026-07-28**: the tasks *extension* `io.modelcontextprotocol/tasks` (SEP-2663). The
//!   client declares it in each request's `clientCapabilities.extensions`, the server in
//!   `server/discover`'s `capabilities.extensions`; the server alone decides per request
//!   whether to answer with a `CreateTaskResult` (`resultType: "task"`, the task's fields
//!   inlined). Methods `tasks/get` (the task, with `result` / `error` / `inputRequests`
//!   inlined), `tasks/update` (input responses) and `tasks/cancel` (empty acknowledgement);
//!   no `tasks/list`, no `tasks/result`. A client that did not declare the extension gets
//!   -32021 for the `tasks/*` methods.
//! - **2025-11-25**: tasks in the core (experimental). The server declares `capabilities.tasks`
//!   in `initialize`, a tool `execution.taskSupport` in `tools/list`; the client asks for a task
//!   with `params.task` (`{ttl}`) on `tools/call` and gets `{task: Task}`. Methods `tasks/get`
//!   (the Task), `tasks/result` (waits, then the underlying `CallToolResult` with the related
//!   task in `_meta`), `tasks/list`, `tasks/cancel` (the Task; -32602 for a terminal one).
//!   Field names differ: `ttl` / `pollInterval` there, `ttlMs` / `pollIntervalMs` here.
//!
//! pg_mcp's tasks are its asynchronous chat runs (`mcp.async_run`): the task id is the run id.
//! This module maps a run's row onto a task; it reads nothing itself.

use crate::{codes, RpcError};
use serde_json::{json, Map, Value};

/// The extension's identifier (2026-07-28).
pub const EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// The `_meta` key that ties a 2025-11-25 result to its task.
pub const META_RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
/// The polling interval suggested to clients (ms).
pub const POLL_INTERVAL_MS: u64 = 1000;

/// The methods of the extension (2026-07-28).
pub const MODERN_METHODS: &[&str] = &["tasks/get", "tasks/update", "tasks/cancel"];
/// The task methods of the 2025-11-25 core.
pub const LEGACY_METHODS: &[&str] = &["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"];

/// Whether a modern request's `clientCapabilities` declare the extension.
pub fn client_declares(capabilities: &Map<String, Value>) -> bool {
    capabilities
        .get("extensions")
        .and_then(|e| e.get(EXTENSION))
        .is_some_and(Value::is_object)
}

/// -32021 naming the extension: a modern client that did not declare it called a `tasks/*`
/// method.
pub fn missing_extension() -> RpcError {
    RpcError::new(
        crate::modern::codes2026::MISSING_REQUIRED_CLIENT_CAPABILITY,
        "Missing required client capability",
    )
    .with_data(json!({"requiredCapabilities": {"extensions": {EXTENSION: {}}}}))
}

/// Whether a 2025-11-25 `tools/call` asks for a task (`params.task`, an object).
pub fn legacy_task_requested(params: &Map<String, Value>) -> Result<bool, RpcError> {
    match params.get("task") {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Object(_)) => Ok(true),
        Some(_) => Err(RpcError::invalid_params(
            "Invalid params: task must be an object ({\"ttl\": <ms>})",
        )),
    }
}

/// `taskId` of a `tasks/*` request: a string (the server's ids are UUIDs; anything else is a
/// task that does not exist).
pub fn task_id(params: &Map<String, Value>) -> Result<&str, RpcError> {
    crate::str_param(params, "taskId")
}

/// The -32602 of an unknown task (also a task of another principal: it is not revealed).
pub fn not_found() -> RpcError {
    RpcError::invalid_params("Failed to retrieve task: Task not found")
}

/// A task's status in MCP's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }
    pub fn is_terminal(self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled)
    }
}

/// One asynchronous run as the server read it (`mcp.async_run`).
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub run_id: String,
    /// `queued`, `running`, `done`, `error`, `cancelled`, `aborted`.
    pub status: String,
    /// What `mcp.chat_result` returns once the run ended.
    pub result: Option<Value>,
    /// RFC 3339 timestamps.
    pub created_at: String,
    pub last_updated_at: String,
}

/// What a run is as a task: its status, a message, and the inlined result or error.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub status: Status,
    pub message: Option<String>,
    /// The `CallToolResult` of a completed task.
    pub result: Option<Value>,
    /// The JSON-RPC error of a failed task.
    pub error: Option<Value>,
}

/// The `CallToolResult` of a chat's answer (the jsonb `mcp.chat` returns): the answer as text,
/// the whole jsonb as `structuredContent`; `isError` unless the chat completed or asks the
/// user (`needs_input`: the text is its question, `session_id` continues the chat) or waits for
/// an approval (`awaiting_approval`).
pub fn chat_tool_result(chat: &Value) -> Value {
    let status = chat.get("status").and_then(Value::as_str).unwrap_or("");
    let text = chat
        .get("answer")
        .and_then(Value::as_str)
        .filter(|a| !a.is_empty())
        .map(str::to_string)
        .or_else(|| {
            chat.pointer("/error/message")
                .and_then(Value::as_str)
                .map(|m| format!("The chat ended with status {status}: {m}"))
        })
        .unwrap_or_else(|| format!("The chat ended with status {status}."));
    let ok = matches!(status, "completed" | "needs_input" | "awaiting_approval");
    json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": chat,
        "isError": !ok
    })
}

/// A run's row as a task. A run cancelled before it started, or a chat that ended cancelled,
/// is `cancelled`; an SQL error (`mcp.chat` would have raised) or a stopped server (`aborted`)
/// is `failed` with a JSON-RPC error (the SQLSTATE in `data`); any other ended chat is
/// `completed` with its `CallToolResult` (a chat that failed at the tool level, e.g. the
/// provider's error, is `isError: true`, not a failed task).
pub fn outcome(run: &Run) -> Outcome {
    let result = run.result.as_ref();
    let chat_status = result.and_then(|r| r.get("status")).and_then(Value::as_str);
    let message_of = |r: Option<&Value>| {
        r.and_then(|r| {
            r.get("message")
                .or_else(|| r.pointer("/error/message"))
                .and_then(Value::as_str)
        })
        .map(|m| mcp_audit::clip_chars(m, 500).0.to_string())
    };
    match run.status.as_str() {
        "queued" => Outcome {
            status: Status::Working,
            message: Some("queued for a chat worker".into()),
            result: None,
            error: None,
        },
        "running" => Outcome {
            status: Status::Working,
            message: Some("a chat worker is running the chat".into()),
            result: None,
            error: None,
        },
        "cancelled" => Outcome {
            status: Status::Cancelled,
            message: Some("cancelled before it started".into()),
            result: None,
            error: None,
        },
        "done" if chat_status == Some("cancelled") => Outcome {
            status: Status::Cancelled,
            message: Some("cancelled while it ran".into()),
            result: None,
            error: None,
        },
        "done" => Outcome {
            status: Status::Completed,
            message: chat_status.map(|s| format!("the chat ended: {s}")),
            result: Some(chat_tool_result(result.unwrap_or(&Value::Null))),
            error: None,
        },
        other => {
            // error, aborted (and anything a later version adds): a protocol-level fault
            let message = message_of(result).unwrap_or_else(|| format!("the run ended {other}"));
            let mut error = json!({"code": codes::INTERNAL_ERROR, "message": message});
            if let Some(s) = result.and_then(|r| r.get("sqlstate")) {
                error["data"] = json!({"sqlstate": s});
            }
            Outcome {
                status: Status::Failed,
                message: Some(message),
                result: None,
                error: Some(error),
            }
        }
    }
}

/// The task's common fields in the era's names (`modern`: 2026-07-28's `ttlMs` /
/// `pollIntervalMs`, else 2025-11-25's `ttl` / `pollInterval`). Runs are kept: no TTL (null).
fn base(run: &Run, o: &Outcome, modern: bool) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("taskId".into(), json!(run.run_id));
    m.insert("status".into(), json!(o.status.as_str()));
    if let Some(msg) = &o.message {
        m.insert("statusMessage".into(), json!(msg));
    }
    m.insert("createdAt".into(), json!(run.created_at));
    m.insert("lastUpdatedAt".into(), json!(run.last_updated_at));
    let (ttl, poll) = if modern {
        ("ttlMs", "pollIntervalMs")
    } else {
        ("ttl", "pollInterval")
    };
    m.insert(ttl.into(), Value::Null);
    if !o.status.is_terminal() {
        m.insert(poll.into(), json!(POLL_INTERVAL_MS));
    }
    m
}

/// The `CreateTaskResult` of a new task. 2026-07-28: the task inlined with `resultType:
/// "task"`; 2025-11-25: `{task: Task}`.
pub fn create_task_result(run: &Run, modern: bool) -> Value {
    let o = outcome(run);
    let task = base(run, &o, modern);
    if modern {
        let mut m = task;
        m.insert("resultType".into(), json!("task"));
        Value::Object(m)
    } else {
        json!({ "task": task })
    }
}

/// The `tasks/get` result. 2026-07-28: a `DetailedTask` (the result, error or input requests
/// inlined); 2025-11-25: the `Task` alone (the result comes from `tasks/result`).
pub fn get_task_result(run: &Run, modern: bool) -> Value {
    let o = outcome(run);
    let mut m = base(run, &o, modern);
    if modern {
        if let Some(r) = &o.result {
            m.insert("result".into(), r.clone());
        }
        if let Some(e) = &o.error {
            m.insert("error".into(), e.clone());
        }
    }
    Value::Object(m)
}

/// The 2025-11-25 `tasks/result` of a terminal task: the `CallToolResult` (with the related
/// task in `_meta`), or the JSON-RPC error of a failed or cancelled one. `None` while the task
/// is not terminal.
pub fn legacy_task_result(run: &Run) -> Option<Result<Value, RpcError>> {
    let o = outcome(run);
    if !o.status.is_terminal() {
        return None;
    }
    let related = json!({ META_RELATED_TASK: {"taskId": run.run_id} });
    Some(match (o.result, o.error) {
        (Some(mut r), _) => {
            r["_meta"] = related;
            Ok(r)
        }
        (None, Some(e)) => Err(RpcError::new(
            e["code"].as_i64().unwrap_or(codes::INTERNAL_ERROR),
            e["message"]
                .as_str()
                .unwrap_or("Internal error")
                .to_string(),
        )
        .with_data(json!({"taskId": run.run_id, "sqlstate": e.pointer("/data/sqlstate")}))),
        (None, None) => Err(RpcError::internal("The task was cancelled")
            .with_data(json!({"taskId": run.run_id, "status": "cancelled"}))),
    })
}

/// The 2025-11-25 refusal to cancel a task that already ended.
pub fn cannot_cancel(status: Status) -> RpcError {
    RpcError::invalid_params(format!(
        "Cannot cancel task: it is already {}",
        status.as_str()
    ))
}

/// 2025-11-25 `initialize` capabilities: tasks for `tools/call`, listable and cancellable.
pub fn legacy_capability() -> Value {
    json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
}

/// Whether a revision has tasks in its core (2025-11-25 only).
pub fn legacy_version_has_tasks(version: &str) -> bool {
    version == "2025-11-25" || version.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(status: &str, result: Option<Value>) -> Run {
        Run {
            run_id: "8c3f0000-0000-4000-8000-000000000001".into(),
            status: status.into(),
            result,
            created_at: "2026-12-01T10:00:00Z".into(),
            last_updated_at: "2026-12-01T10:00:05Z".into(),
        }
    }

    #[test]
    fn the_client_declares_the_extension_in_extensions() {
        let caps = |v: Value| v.as_object().cloned().unwrap();
        assert!(client_declares(&caps(
            json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
        )));
        assert!(!client_declares(&caps(json!({"extensions": {}}))));
        assert!(!client_declares(&caps(json!({"tasks": {}}))));
        assert!(!client_declares(&caps(
            json!({"extensions": {"io.modelcontextprotocol/tasks": true}})
        )));
        let e = missing_extension();
        assert_eq!(e.code, -32021);
        assert_eq!(
            e.data.unwrap()["requiredCapabilities"]["extensions"][EXTENSION],
            json!({})
        );
    }

    #[test]
    fn create_task_result_in_both_eras() {
        let r = run("queued", None);
        let m = create_task_result(&r, true);
        assert_eq!(m["resultType"], "task");
        assert_eq!(m["taskId"], r.run_id);
        assert_eq!(m["status"], "working");
        assert_eq!(m["ttlMs"], Value::Null);
        assert_eq!(m["pollIntervalMs"], POLL_INTERVAL_MS);
        assert!(m.get("task").is_none());
        let l = create_task_result(&r, false);
        assert!(l.get("resultType").is_none());
        assert_eq!(l["task"]["taskId"], r.run_id);
        assert_eq!(l["task"]["status"], "working");
        assert_eq!(l["task"]["ttl"], Value::Null);
        assert_eq!(l["task"]["pollInterval"], POLL_INTERVAL_MS);
        assert_eq!(l["task"]["createdAt"], "2026-12-01T10:00:00Z");
        assert_eq!(l["task"]["lastUpdatedAt"], "2026-12-01T10:00:05Z");
    }

    #[test]
    fn a_finished_chat_is_a_completed_task_with_its_tool_result() {
        let chat = json!({"status": "completed", "answer": "42", "run_id": "x"});
        let r = run("done", Some(chat.clone()));
        let g = get_task_result(&r, true);
        assert_eq!(g["status"], "completed");
        assert_eq!(g["result"]["content"][0]["text"], "42");
        assert_eq!(g["result"]["structuredContent"], chat);
        assert_eq!(g["result"]["isError"], false);
        assert!(g.get("pollIntervalMs").is_none(), "terminal: no polling");
        // 2025-11-25: the Task alone, the result through tasks/result
        let l = get_task_result(&r, false);
        assert!(l.get("result").is_none());
        let res = legacy_task_result(&r).unwrap().unwrap();
        assert_eq!(res["content"][0]["text"], "42");
        assert_eq!(res["_meta"][META_RELATED_TASK]["taskId"], r.run_id);
        assert!(legacy_task_result(&run("running", None)).is_none());
    }

    #[test]
    fn a_chat_that_failed_is_completed_with_is_error_and_an_sql_error_is_failed() {
        let chat =
            json!({"status": "failed", "error": {"kind": "provider", "message": "HTTP 500"}});
        let o = outcome(&run("done", Some(chat)));
        assert_eq!(o.status, Status::Completed);
        let r = o.result.unwrap();
        assert_eq!(r["isError"], true);
        assert!(r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("HTTP 500"));
        let e = json!({"status": "error", "sqlstate": "42501", "message": "permission denied"});
        let g = get_task_result(&run("error", Some(e.clone())), true);
        assert_eq!(g["status"], "failed");
        assert_eq!(g["error"]["code"], -32603);
        assert_eq!(g["error"]["data"]["sqlstate"], "42501");
        assert_eq!(g["statusMessage"], "permission denied");
        let err = legacy_task_result(&run("error", Some(e)))
            .unwrap()
            .unwrap_err();
        assert_eq!(err.code, -32603);
        assert_eq!(outcome(&run("aborted", None)).status, Status::Failed);
    }

    #[test]
    fn cancelled_runs_are_cancelled_tasks() {
        assert_eq!(outcome(&run("cancelled", None)).status, Status::Cancelled);
        let c = json!({"status": "cancelled"});
        assert_eq!(outcome(&run("done", Some(c))).status, Status::Cancelled);
        assert!(legacy_task_result(&run("cancelled", None))
            .unwrap()
            .is_err());
        assert_eq!(cannot_cancel(Status::Completed).code, codes::INVALID_PARAMS);
    }

    #[test]
    fn needs_input_is_a_completed_call_the_client_continues_by_session() {
        let chat = json!({"status": "needs_input", "answer": "Which region?", "session_id": "s"});
        let r = outcome(&run("done", Some(chat))).result.unwrap();
        assert_eq!(r["isError"], false);
        assert_eq!(r["content"][0]["text"], "Which region?");
        assert_eq!(r["structuredContent"]["session_id"], "s");
    }

    #[test]
    fn the_legacy_task_parameter_must_be_an_object() {
        let p = |v: Value| v.as_object().cloned().unwrap();
        assert!(legacy_task_requested(&p(json!({"task": {"ttl": 1000}}))).unwrap());
        assert!(legacy_task_requested(&p(json!({"task": {}}))).unwrap());
        assert!(!legacy_task_requested(&p(json!({}))).unwrap());
        assert!(legacy_task_requested(&p(json!({"task": 5}))).is_err());
        assert!(legacy_version_has_tasks("2025-11-25"));
        assert!(!legacy_version_has_tasks("2025-06-18"));
    }
}
