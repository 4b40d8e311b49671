//! `mcp.chat`: the agent loop inside the backend. The cycle itself is `mcp_chat::run_chat`;
//! this file implements its `Host` with SQL (tools, audit rows, interrupts) and loads the
//! interface, provider, prompt and session from the registry.

use crate::error::{required, McpError, McpResult};
use crate::gucs;
use crate::jsonb::{JsonbArg, JsonbStored};
use crate::pg_util::{as_extension_owner, first_row, run_kept};
use crate::tools::{calling_role, execute_tool, visible_tools};
use mcp_chat::{
    ChatConfig, Host, HttpClient, LlmExchange, Message, ProviderConfig, ProviderKind, RetryPolicy,
    ToolCall, ToolCallRecord, ToolChoice, ToolDef, ToolExecution,
};
use pgrx::datum::DatumWithOid;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::{JsonB, Uuid};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;

thread_local! {
    /// One HTTP client (connection pool) per backend.
    static CLIENT: HttpClient = HttpClient::new();
}

struct InterfaceRow {
    provider: Option<String>,
    tool_choice: String,
    max_iterations: i32,
    max_total_tokens: Option<i32>,
    system_prompt: String,
    enabled: bool,
    access_role: Option<String>,
    deadline_ms: Option<i32>,
}

fn interface_row(name: &str) -> McpResult<InterfaceRow> {
    first_row(
        "SELECT provider, tool_choice, max_iterations, max_total_tokens, system_prompt, enabled, access_role,
                deadline_ms
           FROM mcp.interface WHERE name = $1",
        &[name.into()],
        |t| {
            Ok(InterfaceRow {
                provider: t.get(1)?,
                tool_choice: t.get(2)?.unwrap_or_else(|| "auto".into()),
                max_iterations: t.get(3)?.unwrap_or(10),
                max_total_tokens: t.get(4)?,
                system_prompt: t.get(5)?.unwrap_or_else(|| "system".into()),
                enabled: t.get(6)?.unwrap_or(false),
                access_role: t.get(7)?,
                deadline_ms: t.get(8)?,
            })
        },
    )?
    .ok_or_else(|| McpError::UndefinedObject(format!("interface \"{name}\" does not exist")))
}

struct ProviderRow {
    kind: String,
    base_url: Option<String>,
    model: Option<String>,
    api_version: Option<String>,
    options: Value,
    context_window: i32,
    max_completion_tokens: i32,
    timeout_ms: Option<i32>,
}

/// Keys of `provider.options` that price tokens for `mcp.recent_runs`; never sent.
const PRICE_KEYS: [&str; 2] = ["price_per_1k_prompt", "price_per_1k_completion"];

fn provider_config(name: &str) -> McpResult<ProviderConfig> {
    let ProviderRow {
        kind,
        base_url,
        model,
        api_version,
        mut options,
        context_window: window,
        max_completion_tokens: completion,
        timeout_ms: timeout,
    } = first_row(
        "SELECT kind, base_url, model, api_version, options, context_window, max_completion_tokens, timeout_ms
           FROM mcp.provider WHERE name = $1",
        &[name.into()],
        |t| {
            Ok(ProviderRow {
                kind: t.get(1)?.unwrap_or_default(),
                base_url: t.get(2)?,
                model: t.get(3)?,
                api_version: t.get(4)?,
                options: t
                    .get::<JsonbStored>(5)?
                    .map(|j| j.value("the provider's options").unwrap_or_else(|e| e.raise()))
                    .unwrap_or_else(|| json!({})),
                context_window: t.get(6)?.unwrap_or(32768),
                max_completion_tokens: t.get(7)?.unwrap_or(1024),
                timeout_ms: t.get(8)?,
            })
        },
    )?
    .ok_or_else(|| McpError::UndefinedObject(format!("provider \"{name}\" does not exist")))?;
    let kind = ProviderKind::parse(&kind).map_err(McpError::InvalidParameter)?;
    let mut cfg = ProviderConfig::new(
        kind,
        base_url.unwrap_or_default(),
        model.unwrap_or_default(),
    );
    cfg.name = name.to_string();
    cfg.api_version = api_version;
    cfg.context_window = Some(window.max(1) as usize);
    cfg.max_completion_tokens = Some(completion.max(1) as u32);
    cfg.timeout = Some(Duration::from_millis(
        timeout.unwrap_or(gucs::HTTP_TIMEOUT_MS.get()).max(1) as u64,
    ));
    if kind == ProviderKind::Replay {
        // Recorded responses: options.responses (a fixture) — raw bodies or JSON values.
        let responses = options.as_object_mut().and_then(|o| o.remove("responses"));
        cfg.replay = match responses {
            Some(Value::Array(items)) => items
                .into_iter()
                .map(|v| match v {
                    Value::String(s) => s,
                    other => other.to_string(),
                })
                .collect(),
            _ => Vec::new(),
        };
        if cfg.model.is_empty() {
            cfg.model = "replay".into();
        }
    }
    if let Value::Object(mut o) = options {
        // pg_mcp's own keys (read by mcp.recent_runs) are not request fields: a provider
        // refuses unknown fields (OpenAI answers 400 "Unrecognized request argument").
        for key in PRICE_KEYS {
            o.remove(key);
        }
        cfg.options = o;
    }
    cfg.api_key = crate::registry::api_key(name)?;
    Ok(cfg)
}

fn active_prompt(name: &str) -> McpResult<Option<String>> {
    Ok(first_row(
        "SELECT template FROM mcp.prompt WHERE name = $1 AND active ORDER BY version DESC LIMIT 1",
        &[name.into()],
        |t| t.get::<String>(1),
    )?
    .flatten())
}

/// Messages of a session's latest run. A session is visible only to the role that started it:
/// an id that another role's chat returned and an id that was never returned give the same
/// error, so a caller learns nothing about other roles' sessions.
fn load_session(session: Uuid, role: &str) -> McpResult<Vec<Message>> {
    let (owner, rows) = as_extension_owner(|| {
        Spi::connect(|c| -> McpResult<(Option<String>, Vec<Value>)> {
            let o = c.select(
                "SELECT role_name::text FROM mcp.run WHERE session_id = $1 ORDER BY started_at LIMIT 1",
                Some(1),
                &[session.into()],
            )?;
            let owner = if o.is_empty() {
                None
            } else {
                o.first().get::<String>(1)?
            };
            let t = c.select(
                "SELECT m.message FROM mcp.message m
                  WHERE m.run_id = (SELECT r.run_id FROM mcp.run r WHERE r.session_id = $1
                                     ORDER BY r.started_at DESC LIMIT 1)
                  ORDER BY m.seq",
                None,
                &[session.into()],
            )?;
            let mut out = Vec::new();
            for row in t {
                if let Some(j) = row.get::<JsonbStored>(1)? {
                    out.push(j.value("a stored message")?);
                }
            }
            Ok((owner, out))
        })
    })?;
    if owner.as_deref() != Some(role) {
        return Err(
            McpError::UndefinedObject(format!("chat session {session} does not exist")).with_hint(
                "Pass a session_id that mcp.chat returned to this role, or NULL to start a new session.",
            ),
        );
    }
    Ok(rows
        .into_iter()
        .filter_map(|v| serde_json::from_value::<Message>(v).ok())
        .collect())
}

fn new_uuid() -> Uuid {
    first_row("SELECT pg_catalog.gen_random_uuid()", &[], |t| {
        t.get::<Uuid>(1)
    })
    .ok()
    .flatten()
    .flatten()
    .unwrap_or_else(|| Uuid::from_bytes([0; 16]))
}

/// `Host` backed by the database.
struct SqlHost {
    interface: String,
    run_id: Uuid,
    /// Schemas of the tools offered in this run, for `compiled_schema`.
    schemas: HashMap<String, Value>,
    /// The arguments of the call about to run, as the model sent them (for its audit row).
    next_arguments_raw: Option<String>,
}

fn interrupt_pending() -> bool {
    unsafe {
        pg_sys::InterruptPending != 0
            && (pg_sys::QueryCancelPending != 0 || pg_sys::ProcDiePending != 0)
    }
}

/// What the HTTP wait loop polls: cancel / terminate, and a client that went away.
fn stop_requested() -> bool {
    interrupt_pending() || crate::client_check::client_gone()
}

impl Host for SqlHost {
    fn tools(&mut self) -> Vec<ToolDef> {
        let tools: Vec<ToolDef> = visible_tools(&self.interface)
            .unwrap_or_default()
            .into_iter()
            .map(|t| ToolDef {
                name: t.name,
                description: t.description,
                parameters: t.parameters,
            })
            .collect();
        self.schemas = tools
            .iter()
            .map(|t| (t.name.clone(), t.parameters.clone()))
            .collect();
        tools
    }

    fn compiled_schema(&mut self, tool: &str) -> Option<mcp_tools::ToolSchema> {
        // The engine validates with the same per-backend cache call_tool uses: no compile per run.
        let schema = self.schemas.get(tool)?;
        crate::tools::compiled_schema(tool, schema).ok()
    }

    fn on_tool_start(&mut self, _call_id: &str, arguments_raw: &str) {
        self.next_arguments_raw = Some(arguments_raw.to_string());
    }

    fn execute_tool(&mut self, call: &ToolCall) -> ToolExecution {
        // execute_tool tags application_name with mcp:<run id>:call:<call id> while the tool
        // runs and writes the audit row, raw arguments included.
        let raw = self.next_arguments_raw.take();
        let r = execute_tool(
            &call.name,
            &call.arguments,
            &self.interface,
            Some(self.run_id),
            Some(&call.id),
            raw.as_deref(),
        );
        match r {
            Ok((outcome, _)) => {
                let needs = outcome
                    .structured
                    .as_ref()
                    .filter(|s| s.get("needs_input") == Some(&Value::Bool(true)));
                if let (Some(req), false) = (needs, outcome.is_error) {
                    ToolExecution::needs_input(req.clone(), outcome.text)
                } else if outcome.is_error {
                    ToolExecution::error(outcome.text)
                } else {
                    ToolExecution::ok(outcome.text)
                }
            }
            Err(e) => ToolExecution::error(format!(
                "Tool '{}' could not run: {}",
                call.name,
                e.message()
            )),
        }
    }

    fn interrupted(&mut self) -> bool {
        stop_requested()
    }

    fn on_llm_exchange(&mut self, x: &LlmExchange) {
        // Bodies (already scrubbed by the engine) and other model-supplied values are cut to
        // mcp.audit_max_value_bytes; size and sha256 of what was cut go to `clipped`.
        let mut cuts = crate::audit::row_cuts();
        // The body as sent, handed to PostgreSQL as text and cast to jsonb there (one parse
        // instead of serde parse + serialize + jsonb parse); checked first so a cast cannot fail.
        let body: Option<String> = match cuts.json_text("request_body", &x.request_body) {
            mcp_audit::JsonText::Clipped(v) => Some(v.to_string()),
            mcp_audit::JsonText::Whole => {
                serde_json::from_str::<serde::de::IgnoredAny>(&x.request_body)
                    .is_ok()
                    .then(|| x.request_body.clone())
            }
        };
        let response = cuts.opt_text("response_raw", x.response_body.as_deref());
        let fixes = serde_json::to_value(&x.fixes).unwrap_or(Value::Null);
        let fixes = JsonB(cuts.json("fixes", &fixes).into_owned());
        let error = x
            .error
            .as_ref()
            .map(|e| JsonB(cuts.json("error", &e.to_json()).into_owned()));
        let purpose = if x.purpose == mcp_chat::ExchangePurpose::Chat {
            "chat"
        } else {
            "summary"
        };
        let finish_reason = x
            .finish_reason
            .and_then(|f| serde_json::to_value(f).ok())
            .and_then(|v| v.as_str().map(str::to_string));
        let clipped = cuts.into_json();
        if crate::audit_worker::recording() {
            let row = json!({"run_id": self.run_id.to_string(), "iteration": x.iteration, "purpose": purpose,
            "provider": x.provider, "model": x.model, "url": x.url,
            "request_body": body.as_deref().and_then(|b| serde_json::from_str::<Value>(b).ok()),
            "response_raw": response, "http_status": x.http_status, "latency_ms": x.latency_ms(),
            "attempts": x.attempts.min(i32::MAX as u32),
            "prompt_tokens": mcp_audit::clamp_count(x.usage.prompt_tokens),
            "completion_tokens": mcp_audit::clamp_count(x.usage.completion_tokens),
            "finish_reason": finish_reason, "repaired": x.repaired, "fixes": fixes.0,
            "error": error.as_ref().map(|e| &e.0), "clipped": clipped});
            if crate::audit_worker::append("llm_request", row) {
                return;
            }
        }
        let args: Vec<DatumWithOid> = vec![
            self.run_id.into(),
            (x.iteration as i32).into(),
            purpose.into(),
            x.provider.clone().into(),
            x.model.clone().into(),
            x.url.clone().into(),
            body.into(),
            response.into(),
            x.http_status.map(i32::from).into(),
            x.latency_ms().into(),
            (x.attempts.min(i32::MAX as u32) as i32).into(),
            // Provider-reported: bigint, clamped (never wraps, never negative).
            mcp_audit::clamp_count(x.usage.prompt_tokens).into(),
            mcp_audit::clamp_count(x.usage.completion_tokens).into(),
            finish_reason.into(),
            x.repaired.into(),
            fixes.into(),
            error.into(),
            clipped.map(JsonB).into(),
        ];
        let _ = as_extension_owner(|| {
            run_kept(
                "INSERT INTO mcp.llm_request (run_id, iteration, purpose, provider, model, url, request_body,
                     response_raw, http_status, latency_ms, attempts, prompt_tokens, completion_tokens,
                     finish_reason, repaired, fixes, error, clipped)
                 VALUES ($1,$2,$3,$4,$5,$6,$7::pg_catalog.jsonb,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18)",
                &args,
            )
        });
    }

    fn on_tool_call(&mut self, r: &ToolCallRecord) {
        // Executed calls were recorded by execute_tool; record the ones the engine refused.
        if r.status.executed() {
            return;
        }
        let status = match r.status {
            mcp_chat::ToolCallStatus::Invalid | mcp_chat::ToolCallStatus::Incomplete => "invalid",
            // Not executed because the run stopped: not the tool's or the role's fault.
            mcp_chat::ToolCallStatus::Skipped => "skipped",
            _ => "denied",
        };
        crate::tools::record_call(&crate::tools::CallRecord {
            call_id: None,
            run_id: Some(self.run_id),
            tool_call_id: Some(r.call_id.clone()),
            tool: r.name.clone(),
            interface: self.interface.clone(),
            arguments_raw: Some(r.arguments_raw.clone()),
            arguments: r.arguments.clone(),
            validation_errors: Some(r.validation_errors.clone()),
            status,
            result_text: Some(r.content.clone()),
            latency_ms: r.latency.as_secs_f64() * 1000.0,
            error: None,
        });
    }
}

fn store_run_start(
    run_id: Uuid,
    session: Uuid,
    interface: &str,
    provider: &str,
    question: &str,
    role: &str,
) -> McpResult<()> {
    let mut cuts = crate::audit::row_cuts();
    let question = cuts.text("question", question).into_owned();
    let clipped = cuts.into_json();
    // Durable audit (issue 11): the background worker commits the row, else it is written here.
    let row = json!({"run_id": run_id.to_string(), "session_id": session.to_string(),
                     "interface": interface, "provider": provider, "role_name": role,
                     "question": question, "clipped": clipped});
    if crate::audit_worker::run_start(row)? {
        return Ok(());
    }
    let clipped = clipped.map(JsonB);
    let _ = as_extension_owner(|| {
        run_kept(
            "INSERT INTO mcp.run (run_id, session_id, interface, provider, role_name, question, clipped)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
            &[
                run_id.into(),
                session.into(),
                interface.into(),
                provider.into(),
                role.into(),
                question.into(),
                clipped.into(),
            ],
        )
    });
    Ok(())
}

fn store_run_end(run_id: Uuid, session: Uuid, out: &mcp_chat::ChatOutcome) {
    let mut cuts = crate::audit::row_cuts();
    let limit = cuts.limit();
    let answer = cuts.opt_text("answer", out.answer.as_deref());
    let error = out
        .error
        .as_ref()
        .map(|e| JsonB(cuts.json("error", &e.to_json()).into_owned()));
    let clipped = cuts.into_json().map(JsonB);
    // Each message is cut on its own (structure kept: a continued session still loads it); the
    // cuts travel as a parallel array, NULL where nothing was cut.
    let mut messages = Vec::with_capacity(out.messages.len());
    let mut message_cuts = Vec::with_capacity(out.messages.len());
    if let Value::Array(items) = out.messages_json() {
        for m in items {
            let (m, cut) = mcp_audit::clip_json_owned(m, limit);
            messages.push(m);
            message_cuts.push(cut.map_or(Value::Null, |c| json!({"message": c.to_json()})));
        }
    }
    let mut write_run = true;
    if crate::audit_worker::recording() {
        let run = json!({"status": out.status.as_str(), "answer": answer, "iterations": out.iterations,
            "prompt_tokens": mcp_audit::clamp_count(out.usage.prompt_tokens),
            "completion_tokens": mcp_audit::clamp_count(out.usage.completion_tokens),
            "error": error.as_ref().map(|e| &e.0), "clipped": clipped.as_ref().map(|c| &c.0)});
        match crate::audit_worker::run_end(run, json!(messages), json!(message_cuts)) {
            None => return,
            Some(w) => write_run = w,
        }
    }
    let _ = as_extension_owner(|| -> Result<(), pgrx::spi::SpiError> {
        if write_run {
            run_kept(
                "UPDATE mcp.run SET status = $2, answer = $3, iterations = $4, prompt_tokens = $5,
                    completion_tokens = $6, error = $7, finished_at = pg_catalog.clock_timestamp(),
                    clipped = CASE WHEN $8::pg_catalog.jsonb IS NULL THEN clipped
                                   ELSE coalesce(clipped, '{}'::pg_catalog.jsonb) || $8 END
              WHERE run_id = $1",
                &[
                    run_id.into(),
                    out.status.as_str().into(),
                    answer.into(),
                    (out.iterations as i32).into(),
                    // Provider-reported sums: bigint, clamped (never wraps, never negative).
                    mcp_audit::clamp_count(out.usage.prompt_tokens).into(),
                    mcp_audit::clamp_count(out.usage.completion_tokens).into(),
                    error.into(),
                    clipped.into(),
                ],
            )?;
        }
        // The whole conversation in one statement, not one INSERT per message.
        run_kept(
            "INSERT INTO mcp.message (session_id, run_id, seq, role, message, clipped)
             SELECT $1, $2, (m.ord - 1)::int, coalesce(m.msg->>'role', ''), m.msg,
                    NULLIF($4 -> (m.ord - 1)::int, 'null'::pg_catalog.jsonb)
               FROM pg_catalog.jsonb_array_elements($3) WITH ORDINALITY AS m(msg, ord)",
            &[
                session.into(),
                run_id.into(),
                JsonB(Value::Array(messages)).into(),
                JsonB(Value::Array(message_cuts)).into(),
            ],
        )
    });
}

/// `mcp.chat`'s `options`, checked: a misspelt key or a wrong type is the caller's mistake and
/// gets a clear 22023 instead of being ignored.
#[derive(Default)]
struct ChatOptions {
    provider: Option<String>,
    tool_choice: Option<String>,
    max_iterations: Option<u32>,
    max_total_tokens: Option<u64>,
    deadline_ms: Option<u64>,
}

fn chat_options(v: &Value) -> McpResult<ChatOptions> {
    let bad = |m: String| McpError::InvalidParameter(format!("mcp.chat options: {m}"));
    let Value::Object(o) = v else {
        return Err(bad("must be a JSON object".into()));
    };
    let mut out = ChatOptions::default();
    for (k, val) in o {
        let text = || {
            val.as_str()
                .map(str::to_string)
                .ok_or_else(|| bad(format!("\"{k}\" must be a string")))
        };
        let int = |lo: u64, hi: u64| {
            val.as_u64()
                .filter(|n| (lo..=hi).contains(n))
                .ok_or_else(|| bad(format!("\"{k}\" must be an integer from {lo} to {hi}")))
        };
        match k.as_str() {
            "provider" => out.provider = Some(text()?),
            "tool_choice" => out.tool_choice = Some(text()?),
            "max_iterations" => {
                out.max_iterations = Some(int(1, mcp_chat::MAX_ITERATIONS_HARD_CAP as u64)? as u32)
            }
            "max_total_tokens" => out.max_total_tokens = Some(int(1, i32::MAX as u64)?),
            "deadline_ms" => out.deadline_ms = Some(int(1, i32::MAX as u64)?),
            other => {
                return Err(bad(format!(
                    "unknown option \"{}\" (known: provider, tool_choice, max_iterations, max_total_tokens, deadline_ms)",
                    other.chars().take(64).collect::<String>()
                )))
            }
        }
    }
    Ok(out)
}

/// Options may only tighten the interface: `max_iterations` and `max_total_tokens` at most the
/// interface's, `tool_choice` the interface's own or `none`. Raising them needs what changing the
/// interface row needs (UPDATE on mcp.interface), as choosing another provider needs UPDATE on
/// mcp.provider.
fn check_option_limits(o: &ChatOptions, iface: &InterfaceRow, interface: &str) -> McpResult<()> {
    let mut raised = Vec::new();
    if let Some(n) = o.max_iterations {
        if i64::from(n) > i64::from(iface.max_iterations) {
            raised.push(format!(
                "max_iterations {n} (the interface allows {})",
                iface.max_iterations
            ));
        }
    }
    if let (Some(n), Some(cap)) = (o.max_total_tokens, iface.max_total_tokens) {
        if n > cap.max(0) as u64 {
            raised.push(format!("max_total_tokens {n} (the interface allows {cap})"));
        }
    }
    if let (Some(n), Some(cap)) = (o.deadline_ms, iface.deadline_ms) {
        if n > cap.max(0) as u64 {
            raised.push(format!("deadline_ms {n} (the interface allows {cap})"));
        }
    }
    if let Some(tc) = &o.tool_choice {
        if tc != &iface.tool_choice && tc != "none" {
            raised.push(format!(
                "tool_choice \"{}\" (the interface's is \"{}\")",
                tc.chars().take(80).collect::<String>(),
                iface.tool_choice
            ));
        }
    }
    if raised.is_empty() || crate::registry::may_manage_interfaces() {
        return Ok(());
    }
    Err(McpError::Privilege(format!(
        "permission denied to raise the limits of interface \"{interface}\": {}",
        raised.join(", ")
    ))
    .with_hint("Options may only lower an interface's limits (max_iterations and max_total_tokens at most the interface's, tool_choice the interface's own or 'none'); raising them needs UPDATE on mcp.interface."))
}

/// `mcp.chat`: one user turn through the agent loop.
#[pg_extern(name = "chat", volatile)]
fn chat(
    question: Option<&str>,
    interface: default!(Option<&str>, "'chatbot'"),
    session: default!(Option<Uuid>, "NULL"),
    options: default!(Option<JsonbArg>, "'{}'"),
) -> Result<JsonB, ErrorReport> {
    // A tool cannot start a chat (it would spend the provider's key outside the interface
    // mapping and the audit): refused whichever way it is reached (crate::sandbox).
    crate::sandbox::refuse_nested("mcp.chat")?;
    let question = required(question, "chat", "question")?;
    let interface = required(interface, "chat", "interface")?;
    let options = match options {
        Some(o) => o.value("options")?,
        None => json!({}),
    };
    let options = chat_options(&options)?;
    let iface = interface_row(interface)?;
    if !crate::tools::may_use_interface_role(iface.access_role.as_deref()) {
        return Err(crate::tools::interface_denied(interface).into());
    }
    if !iface.enabled {
        return Err(
            McpError::InvalidParameter(format!("interface \"{interface}\" is disabled")).into(),
        );
    }
    if let Some(p) = &options.provider {
        // Choosing another provider spends another provider's key: only for roles that manage
        // providers (the privilege mcp.set_api_key needs).
        if Some(p) != iface.provider.as_ref() && !crate::registry::may_manage_providers()? {
            return Err(McpError::Privilege(format!(
                "permission denied to choose provider \"{}\" for interface \"{interface}\": UPDATE on mcp.provider is required (other roles use the interface's provider)",
                p.chars().take(64).collect::<String>()
            ))
            .into());
        }
    }
    check_option_limits(&options, &iface, interface)?;
    let provider_name = options.provider.or(iface.provider.clone()).ok_or_else(|| {
        McpError::InvalidParameter(format!("interface \"{interface}\" has no provider"))
    })?;
    let provider = provider_config(&provider_name)?;
    let role = calling_role();
    let session_id = session.unwrap_or_else(new_uuid);
    let history = match session {
        Some(s) => load_session(s, &role)?,
        None => Vec::new(),
    };
    let mut cfg = ChatConfig::new(provider);
    if let Some(p) = active_prompt(&iface.system_prompt)? {
        cfg.system_prompts.push(p);
    }
    let choice = options.tool_choice.unwrap_or(iface.tool_choice);
    cfg.tool_choice = match choice.strip_prefix("function:") {
        Some(name) => ToolChoice::Function(name.to_string()),
        None => ToolChoice::parse(&choice).map_err(McpError::InvalidParameter)?,
    };
    cfg.max_iterations = options
        .max_iterations
        .unwrap_or(iface.max_iterations.max(1) as u32);
    cfg.max_total_tokens = options
        .max_total_tokens
        .or(iface.max_total_tokens.map(|n| n.max(1) as u64));
    cfg.http.max_response_bytes = gucs::MAX_RESPONSE_BYTES.get().max(1024) as usize;
    cfg.http.read_timeout = cfg.provider.timeout.unwrap_or(Duration::from_secs(120));
    cfg.http.retry = RetryPolicy {
        max_retries: gucs::HTTP_RETRIES.get().max(0) as u32,
        retry_timeouts: gucs::HTTP_RETRY_TIMEOUTS.get(),
        ..RetryPolicy::default()
    };
    // The whole run, retries included (issue 11): the option, else the interface's default.
    cfg.deadline = options
        .deadline_ms
        .or(iface.deadline_ms.map(|n| n.max(1) as u64))
        .map(Duration::from_millis);
    // The engine validates arguments (the model gets its correction without a tool round trip);
    // execute_tool validates again for direct callers. Both use the per-backend schema cache.
    let run_id = new_uuid();
    store_run_start(
        run_id,
        session_id,
        interface,
        &provider_name,
        question,
        &role,
    )?;
    let mut host = SqlHost {
        interface: interface.to_string(),
        run_id,
        schemas: HashMap::new(),
        next_arguments_raw: None,
    };
    crate::client_check::reset();
    let mut outcome = crate::audit_worker::guard_run(|| {
        CLIENT.with(|client| mcp_chat::run_chat(&cfg, history, question, &mut host, client))
    });
    if outcome.status == mcp_chat::ChatStatus::Cancelled
        && crate::client_check::found_gone()
        && !interrupt_pending()
    {
        // Nobody listens any more: stopped, recorded as such (issue 11).
        outcome.status = mcp_chat::ChatStatus::ClientGone;
        outcome.error = Some(mcp_chat::ChatError::engine(
            "client_gone",
            "the client closed its connection while the run waited; the run was stopped",
        ));
    }
    store_run_end(run_id, session_id, &outcome);
    if outcome.status == mcp_chat::ChatStatus::Cancelled && interrupt_pending() {
        // Raise the proper 57014 (cancel / statement_timeout) error.
        unsafe { pg_sys::ProcessInterrupts() };
    }
    let mut v = outcome.to_json();
    if let Value::Object(m) = &mut v {
        m.insert("run_id".into(), json!(run_id.to_string()));
        m.insert("session_id".into(), json!(session_id.to_string()));
    }
    Ok(JsonB(v))
}
