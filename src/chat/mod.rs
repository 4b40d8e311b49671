//! `mcp.chat` inside the backend: checks the caller's options against the interface, loads
//! the interface, provider, prompt and session from the registry, and runs the cycle
//! (`mcp_chat::run_chat`) with the database as its host ([`host::SqlHost`]); the run's audit
//! rows are written by [`audit`].

pub mod approval;
mod audit;
pub mod budget;
mod host;

use crate::error::{McpError, McpResult};
use crate::gucs;
use crate::jsonb::JsonbStored;
use crate::pg::http::interrupt_pending;
use crate::pg::{as_extension_owner, first_row};
use crate::tools::calling_role;
use host::SqlHost;
use mcp_chat::{ChatConfig, Message, ProviderConfig, ProviderKind, RetryPolicy, ToolChoice};
use pgrx::prelude::*;
use pgrx::Uuid;
use serde_json::{json, Value};
use std::time::Duration;

pub(crate) struct InterfaceRow {
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

/// The interface's row, when the calling role may chat with it: 42704 when it does not exist,
/// 42501 without access, 22023 when disabled. `mcp.chat` checks it first, `mcp.chat_submit` when
/// the run is submitted (and the worker again when it runs it).
pub(crate) fn usable_interface(interface: &str) -> McpResult<InterfaceRow> {
    let iface = interface_row(interface)?;
    if !crate::tools::may_use_interface_role(iface.access_role.as_deref()) {
        return Err(crate::tools::interface_denied(interface));
    }
    if !iface.enabled {
        return Err(McpError::InvalidParameter(format!(
            "interface \"{interface}\" is disabled"
        )));
    }
    Ok(iface)
}

struct ProviderRow {
    kind: String,
    base_url: Option<String>,
    model: Option<String>,
    api_version: Option<String>,
    options: Option<JsonbStored>,
    context_window: i32,
    max_completion_tokens: i32,
    timeout_ms: Option<i32>,
}

/// Keys of `provider.options` that price tokens for `mcp.recent_runs` and the cost budgets;
/// never sent.
const PRICE_KEYS: [&str; 2] = ["price_per_1k_prompt", "price_per_1k_completion"];

/// The provider's configuration and its prices per 1,000 prompt and completion tokens (0 when
/// not set; the table's CHECK allows only non-negative numbers), from one read of its row.
fn provider_config(name: &str) -> McpResult<(ProviderConfig, (f64, f64))> {
    let ProviderRow {
        kind,
        base_url,
        model,
        api_version,
        options,
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
                options: t.get::<JsonbStored>(5)?,
                context_window: t.get(6)?.unwrap_or(32768),
                max_completion_tokens: t.get(7)?.unwrap_or(1024),
                timeout_ms: t.get(8)?,
            })
        },
    )?
    .ok_or_else(|| McpError::UndefinedObject(format!("provider \"{name}\" does not exist")))?;
    let mut options = match options {
        Some(o) => o.value("the provider's options")?,
        None => json!({}),
    };
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
    let mut prices = [0.0; 2];
    if let Value::Object(mut o) = options {
        // pg_mcp's own keys (read by mcp.recent_runs) are not request fields: a provider
        // refuses unknown fields (OpenAI answers 400 "Unrecognized request argument").
        for (price, key) in prices.iter_mut().zip(PRICE_KEYS) {
            *price = o.remove(key).and_then(|v| v.as_f64()).unwrap_or(0.0);
        }
        cfg.options = o;
    }
    cfg.api_key = crate::keys::api_key(name)?;
    Ok((cfg, (prices[0], prices[1])))
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
                // (an asynchronous run's row is there from its submit on, `queued`: not a turn yet)
                "SELECT role_name::text FROM mcp.run WHERE session_id = $1 AND status <> 'queued'
                  ORDER BY started_at LIMIT 1",
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
                                       AND r.status <> 'queued'
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

/// `mcp.chat`'s `options`, checked: a misspelt key or a wrong type is the caller's mistake and
/// gets a clear 22023 instead of being ignored.
#[derive(Default)]
struct ChatOptions {
    provider: Option<String>,
    tool_choice: Option<String>,
    max_iterations: Option<u32>,
    max_total_tokens: Option<u64>,
    plan: Option<String>,
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
            "plan" => out.plan = Some(text()?),
            "deadline_ms" => out.deadline_ms = Some(int(1, i32::MAX as u64)?),
            other => {
                return Err(bad(format!(
                    "unknown option \"{}\" (known: provider, tool_choice, max_iterations, max_total_tokens, plan, deadline_ms)",
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

/// A new random (version 4) UUID, made as `gen_random_uuid()` makes it, from PostgreSQL's strong
/// random source, without a query; an error when there is no random source, never a fixed
/// value.
pub fn new_uuid() -> McpResult<Uuid> {
    let mut b = [0u8; 16];
    // SAFETY: writes exactly b.len() bytes into b.
    if !unsafe { pg_sys::pg_strong_random(b.as_mut_ptr().cast(), b.len()) } {
        return Err(McpError::Internal(
            "could not generate random bytes for a UUID".into(),
        ));
    }
    b[6] = (b[6] & 0x0f) | 0x40; // version 4
    b[8] = (b[8] & 0x3f) | 0x80; // RFC 4122 variant
    Ok(Uuid::from_bytes(b))
}

/// `mcp.chat`'s options checked for known keys and types (what `mcp.chat_submit` can check
/// before the run; the interface's limits are checked when it runs).
pub fn check_options(options: &Value) -> McpResult<()> {
    chat_options(options).map(|_| ())
}

/// One user turn of `mcp.chat` through the agent loop: the result object.
pub fn chat(
    question: &str,
    interface: &str,
    session: Option<Uuid>,
    options: &Value,
) -> McpResult<Value> {
    chat_run(question, interface, session, options, None)
}

/// A turn made ready to run: everything `mcp.chat` reads and checks before the first LLM
/// request (the run row written), and what its end needs.
struct Prepared {
    cfg: ChatConfig,
    history: Vec<Message>,
    question: String,
    host: SqlHost,
    /// Calls still waiting for a decision: no LLM request this turn.
    waiting: Vec<Value>,
    /// Decided calls carried out before the first request: (ran, refused).
    carried: (u32, u32),
    plan: Option<Value>,
    run_id: Uuid,
    session_id: Uuid,
}

fn chat_run(
    question: &str,
    interface: &str,
    session: Option<Uuid>,
    options: &Value,
    given_run_id: Option<Uuid>,
) -> McpResult<Value> {
    let mut p = prepare(question, interface, session, options, given_run_id)?;
    let outcome = if p.waiting.is_empty() {
        crate::audit::guard_run(|| {
            crate::pg::http::with_client(|client| {
                mcp_chat::run_chat(
                    &p.cfg,
                    std::mem::take(&mut p.history),
                    &p.question,
                    &mut p.host,
                    client,
                )
            })
        })
    } else {
        awaiting(&mut p)
    };
    finish(p, outcome)
}

/// The same turn as a future (a chat worker's run, [`crate::async_runs`]): its LLM requests go
/// through the worker's multiplexed client, so the future is pending while one is under way;
/// everything else (the checks, tools, audit) runs inside `poll`, in the transaction and as the
/// role the worker polls it in.
pub async fn chat_async(
    question: &str,
    interface: &str,
    session: Option<Uuid>,
    options: &Value,
    run_id: Uuid,
    mux: &mcp_chat::Multiplexer,
) -> McpResult<Value> {
    let mut p = prepare(question, interface, session, options, Some(run_id))?;
    let outcome = if p.waiting.is_empty() {
        let history = std::mem::take(&mut p.history);
        mcp_chat::run_chat_with(
            &p.cfg,
            history,
            &p.question,
            &mut p.host,
            mcp_chat::Http::Multiplexed(mux),
        )
        .await
    } else {
        awaiting(&mut p)
    };
    finish(p, outcome)
}

/// Still waiting for a decision: no LLM request; the conversation stays as it is.
fn awaiting(p: &mut Prepared) -> mcp_chat::ChatOutcome {
    mcp_chat::ChatOutcome {
        status: mcp_chat::ChatStatus::AwaitingApproval,
        answer: None,
        iterations: 0,
        tool_calls: 0,
        rejected_tool_calls: 0,
        usage: Default::default(),
        usage_estimated: false,
        error: None,
        needs_input: None,
        summaries: 0,
        pruned_results: 0,
        messages: std::mem::take(&mut p.history),
        pending_approvals: std::mem::take(&mut p.waiting),
    }
}

fn prepare(
    question: &str,
    interface: &str,
    session: Option<Uuid>,
    options: &Value,
    given_run_id: Option<Uuid>,
) -> McpResult<Prepared> {
    let options = chat_options(options)?;
    let iface = usable_interface(interface)?;
    if let Some(p) = &options.provider {
        // Choosing another provider spends another provider's key: only for roles that manage
        // providers (the privilege mcp.set_api_key needs).
        if Some(p) != iface.provider.as_ref() && !crate::registry::may_manage_providers()? {
            return Err(McpError::Privilege(format!(
                "permission denied to choose provider \"{}\" for interface \"{interface}\": UPDATE on mcp.provider is required (other roles use the interface's provider)",
                p.chars().take(64).collect::<String>()
            )));
        }
    }
    check_option_limits(&options, &iface, interface)?;
    let provider_name = options.provider.or(iface.provider.clone()).ok_or_else(|| {
        McpError::InvalidParameter(format!("interface \"{interface}\" has no provider"))
    })?;
    let (provider, prices) = provider_config(&provider_name)?;
    let role = calling_role();
    let session_id = match session {
        Some(s) => s,
        None => new_uuid()?,
    };
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
    cfg.limits = mcp_chat::RunLimits {
        max_tool_calls_per_answer: gucs::MAX_TOOL_CALLS_PER_ANSWER.get().max(1) as usize,
        max_result_bytes: gucs::MAX_RUN_RESULT_BYTES.get().max(1) as usize,
        max_request_bytes: gucs::MAX_REQUEST_BYTES.get().max(1) as usize,
    };
    cfg.http.read_timeout = cfg.provider.timeout.unwrap_or(Duration::from_secs(120));
    cfg.http.retry = RetryPolicy {
        max_retries: gucs::HTTP_RETRIES.get().max(0) as u32,
        retry_timeouts: gucs::HTTP_RETRY_TIMEOUTS.get(),
        ..RetryPolicy::default()
    };
    // The whole run, retries included: the option, else the interface's default.
    cfg.deadline = options
        .deadline_ms
        .or(iface.deadline_ms.map(|n| n.max(1) as u64))
        .map(Duration::from_millis);
    let chosen = crate::plans::choose(question, interface, options.plan.as_deref(), &history)?;
    let run_id = match given_run_id {
        Some(id) => id,
        None => new_uuid()?,
    };
    audit::run_start(
        run_id,
        session_id,
        interface,
        &provider_name,
        question,
        &role,
    )?;
    let mut host = SqlHost::new(interface, run_id);
    host.session_id = Some(session_id);
    host.budgets = Some(budget::RunBudgets::load(&role, interface, prices)?);
    // Decisions on calls of this session that waited for an approval: carried out first.
    let mut history = history;
    let mut waiting = Vec::new();
    let mut carried = (0, 0);
    if let Some(s) = session {
        // Carrying out a decided call runs a tool: the run row is committed first.
        crate::audit::run_start_committed()?;
        let c = approval::carry_out(s, &role, run_id)?;
        cfg.continuation = !c.messages.is_empty();
        history.extend(c.messages);
        waiting = c.waiting;
        carried = (c.ran, c.refused);
    }
    let plan = crate::plans::apply(chosen, &mut cfg, &mut host);
    crate::client_check::reset();
    Ok(Prepared {
        cfg,
        history,
        question: question.to_string(),
        host,
        waiting,
        carried,
        plan,
        run_id,
        session_id,
    })
}

/// The turn's end: its run row and conversation, the result object (or the error it raises).
fn finish(p: Prepared, mut outcome: mcp_chat::ChatOutcome) -> McpResult<Value> {
    let Prepared {
        host,
        carried,
        plan,
        run_id,
        session_id,
        ..
    } = p;
    // The decided calls this run carried out before its first request are its tool calls too.
    outcome.tool_calls += carried.0;
    outcome.rejected_tool_calls += carried.1;
    if let Some(e) = host.failure {
        // An audit row could not be written (or the tool pipeline failed): the statement fails
        // with that error, and rolls back with everything the run did.
        return Err(e);
    }
    // A run that sent nothing and ran no tool (a plan that asks, calls that wait for a
    // decision): its row's commit is waited for here, as before any request.
    crate::audit::run_start_committed()?;
    if outcome.status == mcp_chat::ChatStatus::Cancelled
        && crate::client_check::found_gone()
        && !interrupt_pending()
    {
        // Nobody listens any more: stopped, recorded as such.
        outcome.status = mcp_chat::ChatStatus::ClientGone;
        outcome.error = Some(mcp_chat::ChatError::engine(
            "client_gone",
            "the client closed its connection while the run waited; the run was stopped",
        ));
    }
    audit::run_end(run_id, session_id, &outcome, plan.as_ref())?;
    if outcome.status == mcp_chat::ChatStatus::Cancelled && interrupt_pending() {
        // Raise the proper 57014 (cancel / statement_timeout) error.
        unsafe { pg_sys::ProcessInterrupts() };
    }
    let mut v = outcome.to_json();
    if let Value::Object(m) = &mut v {
        m.insert("run_id".into(), json!(run_id.to_string()));
        m.insert("session_id".into(), json!(session_id.to_string()));
    }
    Ok(v)
}
