//! [`SqlHost`]: the chat engine's environment in the database. Tools are the interface's tools
//! the calling role may run (authorized once, when they are listed for the model); each call
//! the engine hands over goes through the tool pipeline ([`crate::tools::call`]), which
//! validates, runs and audits it; the calls the engine answers itself are audited through the
//! same writer. LLM requests go to `mcp.llm_request`.
//!
//! A failed audit write (or a pipeline error) stops the run: [`Host::interrupted`] reports it at
//! the engine's next poll, and `mcp.chat` raises the error.

use crate::error::McpError;
use crate::tools::audit::CallRecord;
use crate::tools::{self, CallRequest, ToolOutcome, ToolRow};
use mcp_chat::{
    ExchangePurpose, Host, LlmExchange, ToolCall, ToolCallRecord, ToolCallStatus, ToolDef,
    ToolExecution,
};
use pgrx::Uuid;
use std::collections::HashMap;

/// `Host` backed by the database.
pub struct SqlHost {
    pub interface: String,
    pub run_id: Uuid,
    /// The tool rows offered in this run, authorized when they were listed.
    pub rows: HashMap<String, ToolRow>,
    /// The first error that must end the run (a failed audit write); raised by `mcp.chat`.
    pub failure: Option<McpError>,
    /// The conversation: a call that needs an approval waits in it (`chat::approval`).
    pub session_id: Option<Uuid>,
    /// Calls that wait for an approval so far (their order in `mcp.approval`).
    pending: usize,
    /// The run's budgets (its role's and its interface's), checked before each LLM request.
    pub budgets: Option<super::budget::RunBudgets>,
}

impl SqlHost {
    pub fn new(interface: &str, run_id: Uuid) -> Self {
        SqlHost {
            interface: interface.to_string(),
            run_id,
            rows: HashMap::new(),
            failure: None,
            session_id: None,
            pending: 0,
            budgets: None,
        }
    }

    fn fail(&mut self, e: McpError) {
        self.failure.get_or_insert(e);
    }

    /// The run row is committed (durable audit, synchronous: waited for before the run's first
    /// LLM request or tool call); false when it is not, and the run must stop (the failure is
    /// kept for `mcp.chat` to raise: 55000).
    fn run_row_committed(&mut self) -> bool {
        if self.failure.is_some() {
            return false;
        }
        match crate::audit::run_start_committed() {
            Ok(()) => true,
            Err(e) => {
                self.fail(e);
                false
            }
        }
    }
}

/// The pipeline's outcome as the engine's answer.
fn execution(outcome: ToolOutcome) -> ToolExecution {
    match (outcome.status, outcome.needs_input) {
        (ToolCallStatus::Ok, Some(request)) => ToolExecution::needs_input(request, outcome.text),
        (ToolCallStatus::Ok, None) => ToolExecution::ok(outcome.text),
        (ToolCallStatus::Invalid, _) => ToolExecution::invalid_with(
            outcome.text,
            mcp_tools::errors_to_json(&outcome.validation_errors),
        ),
        (ToolCallStatus::Denied, _) => ToolExecution::denied(outcome.text),
        _ => ToolExecution::error(outcome.text),
    }
}

impl Host for SqlHost {
    fn tools(&mut self) -> Vec<ToolDef> {
        // `mcp.chat` checked the interface (exists, enabled, usable by the role) before the run
        // started: its row is not read again here.
        let rows = match tools::runnable_tools(&self.interface) {
            // the chat tool (a question to this very chat, for MCP clients) is never offered
            Ok(rows) => rows
                .into_iter()
                .filter(|t| !(t.kind == "builtin" && t.name == tools::names::CHAT))
                .collect(),
            Err(e) => {
                self.fail(e);
                Vec::new()
            }
        };
        let defs = rows
            .iter()
            .map(|t| ToolDef {
                name: t.name.clone(),
                description: t.description.clone(),
                parameters: t.parameters.clone(),
            })
            .collect();
        self.rows = rows.into_iter().map(|r| (r.name.clone(), r)).collect();
        defs
    }

    fn execute_tool(&mut self, call: &ToolCall, arguments_raw: &str) -> ToolExecution {
        if !self.run_row_committed() {
            return ToolExecution::cancelled();
        }
        // A tool that requires approval: the validated call waits, bound to its arguments.
        if let (Some(row), Some(session)) = (self.rows.get(&call.name), self.session_id) {
            if row.requires_approval {
                match super::approval::request(
                    session,
                    self.run_id,
                    &self.interface,
                    row,
                    call,
                    self.pending,
                ) {
                    Ok(Some(pending)) => {
                        self.pending += 1;
                        return ToolExecution::awaiting_approval(pending);
                    }
                    // invalid arguments: the pipeline answers with the correction
                    Ok(None) => {}
                    Err(e) => {
                        self.fail(e);
                        return ToolExecution::cancelled();
                    }
                }
            }
        }
        // The pipeline tags application_name with mcp:<run id>:call:<call id> while the tool
        // runs and writes the audit row, raw arguments included.
        let r = tools::call(&CallRequest {
            tool: &call.name,
            arguments: &call.arguments,
            interface: &self.interface,
            run_id: Some(self.run_id),
            tool_call_id: Some(&call.id),
            arguments_raw: Some(arguments_raw),
            authorized: self.rows.get(&call.name),
            check_result: None,
        });
        match r {
            Ok((outcome, _)) => execution(outcome),
            Err(e) => {
                self.fail(e);
                ToolExecution::cancelled()
            }
        }
    }

    fn interrupted(&mut self) -> bool {
        // cancel / terminate, and a client that went away (or, in a chat worker, the
        // asynchronous run's mcp.chat_cancel)
        self.failure.is_some()
            || crate::pg::http::interrupt_pending()
            || crate::client_check::client_gone()
            || crate::async_runs::cancel_requested()
    }

    fn before_llm_request(&mut self, _purpose: ExchangePurpose) -> Result<(), String> {
        if !self.run_row_committed() {
            return Err(
                "the audit worker did not commit the run's record; nothing was sent".into(),
            );
        }
        match &self.budgets {
            Some(b) => b.before_request(),
            None => Ok(()),
        }
    }

    fn on_llm_exchange(&mut self, x: &LlmExchange) {
        if let Some(b) = &self.budgets {
            if x.attempts > 0 {
                b.after_request(x.usage.prompt_tokens, x.usage.completion_tokens);
            }
        }
        if let Err(e) = super::audit::llm_request(self.run_id, x) {
            self.fail(e);
        }
    }

    fn on_tool_call(&mut self, r: &ToolCallRecord) {
        // Calls the pipeline saw are audited by it; this writes the ones the engine answered.
        if r.executed {
            return;
        }
        let written = tools::audit::record(&CallRecord {
            call_id: None,
            run_id: Some(self.run_id),
            tool_call_id: Some(r.call_id.clone()),
            tool: r.name.clone(),
            interface: self.interface.clone(),
            arguments_raw: Some(r.arguments_raw.clone()),
            arguments: r.arguments.clone(),
            validation_errors: Some(r.validation_errors.clone()),
            status: r.status,
            result_text: Some(r.content.clone()),
            latency_ms: r.latency.as_secs_f64() * 1000.0,
            error: None,
            reason: r.reason.clone(),
        });
        if let Err(e) = written {
            self.fail(e);
        }
    }
}
