//! The chat cycle (M3) with context management (M11) and audit records (M12).

use crate::config::{ChatConfig, ProviderKind, DEFAULT_COMPLETION_RESERVE};
use crate::host::{
    ExchangePurpose, Host, LlmExchange, ToolCallRecord, ToolCallStatus, ToolExecution, ToolStatus,
};
use crate::outcome::{ChatError, ChatOutcome, ChatStatus};
use mcp_audit::Scrubber;
use mcp_http::{HttpClient, HttpErrorKind, Request};
use mcp_llm::{
    anthropic_body, apply_summary, context_window, count_tools, normalize_error_with_headers,
    openai_body, parse_llm_response, prune, render_for_summary, ChatRequest, CountTokens,
    ErrorKind, FinishReason, LlmResponse, Message, ParsedToolCall, ProviderError, Role,
    TokenCounter, ToolCall, ToolChoice, ToolDef, Usage,
};
use mcp_tools::{correction_message, errors_to_json, ToolSchema};
use serde_json::{json, Map, Value};
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// System prompt of the summarization request.
pub const SUMMARY_SYSTEM_PROMPT: &str = "You compress the earlier steps of a tool-using conversation so it can \
continue within a limited context window. Keep every fact, number, name and identifier the tools returned, \
which tools were called with which arguments, and any open question. Drop repetition and formatting. \
Answer with the summary only.";

/// Instruction preceding the rendered steps in the summarization request.
pub const SUMMARY_INSTRUCTION: &str = "Summarize these earlier steps of the conversation:";

/// Per-message framing added to the token count of a whole history (as `mcp_llm::count_messages`).
const HISTORY_BASE_TOKENS: usize = 3;

/// Run one chat turn: `question` on top of `history` (a stored session's messages, or empty).
///
/// Never panics on external data and never returns early without an outcome: faults of the
/// provider, the answer or a tool become a status and an error (see [`ChatStatus`]).
pub fn run_chat(
    config: &ChatConfig,
    history: Vec<Message>,
    question: &str,
    host: &mut dyn Host,
    client: &HttpClient,
) -> ChatOutcome {
    let mut run = Run::new(config, host, client);
    let stop = run.drive(history, question);
    run.finish(stop)
}

/// How the cycle ended.
struct Stop {
    status: ChatStatus,
    answer: Option<String>,
    /// Boxed: `Stop` travels in `Result::Err` through the hot path.
    error: Option<Box<ChatError>>,
}

impl Stop {
    fn failed(error: ChatError) -> Self {
        Stop {
            status: ChatStatus::Failed,
            answer: None,
            error: Some(Box::new(error)),
        }
    }

    fn with_error(status: ChatStatus, kind: &str, message: impl Into<String>) -> Self {
        Stop {
            status,
            answer: None,
            error: Some(Box::new(ChatError::engine(kind, message))),
        }
    }
}

/// Context budget of one request.
struct Window {
    /// Tokens the messages may take: window - completion reserve - tools.
    budget: usize,
}

struct Run<'a> {
    cfg: &'a ChatConfig,
    host: &'a mut dyn Host,
    client: &'a HttpClient,
    /// The whole conversation as sent: system prompts, history, question, this run's messages.
    msgs: Vec<Message>,
    /// Token count of each message in `msgs` (valid when `counting`).
    msg_tokens: Vec<usize>,
    counting: bool,
    counter: TokenCounter,
    tools: Vec<ToolDef>,
    tools_tokens: usize,
    schemas: HashMap<String, Result<ToolSchema, String>>,
    window: Option<Window>,
    usage: Usage,
    usage_estimated: bool,
    iterations: u32,
    executed: u32,
    rejected: u32,
    summaries: u32,
    pruned: u32,
    /// (tool, canonical arguments) of every call executed in an earlier iteration.
    executed_keys: HashSet<(String, String)>,
    /// Tool call ids used so far (kept unique across the conversation).
    used_ids: HashSet<String>,
    replay_pos: usize,
    needs_input: Option<Value>,
    /// End of the run's time budget (`ChatConfig::deadline`), retries included.
    deadline: Option<Instant>,
    /// The provider's credentials in every form: applied to every body and message the run
    /// records or returns (the one scrubber, `mcp_audit::Scrubber`).
    scrub: Scrubber,
}

impl<'a> Run<'a> {
    fn new(cfg: &'a ChatConfig, host: &'a mut dyn Host, client: &'a HttpClient) -> Self {
        Run {
            cfg,
            host,
            client,
            msgs: Vec::new(),
            msg_tokens: Vec::new(),
            counting: false,
            counter: TokenCounter::estimate(),
            tools: Vec::new(),
            tools_tokens: 0,
            schemas: HashMap::new(),
            window: None,
            usage: Usage::default(),
            usage_estimated: false,
            iterations: 0,
            executed: 0,
            rejected: 0,
            summaries: 0,
            pruned: 0,
            executed_keys: HashSet::new(),
            used_ids: HashSet::new(),
            replay_pos: 0,
            needs_input: None,
            deadline: cfg.deadline.map(|d| Instant::now() + d),
            scrub: {
                let p = &cfg.provider;
                let s = Scrubber::for_request(&p.endpoint(), &p.headers());
                match &p.api_key {
                    Some(k) => s.with_secret(k),
                    None => s,
                }
            },
        }
    }

    fn finish(self, stop: Stop) -> ChatOutcome {
        let messages = self
            .msgs
            .into_iter()
            .filter(|m| m.role != Role::System)
            .collect();
        ChatOutcome {
            status: stop.status,
            answer: stop.answer,
            iterations: self.iterations,
            tool_calls: self.executed,
            rejected_tool_calls: self.rejected,
            usage: self.usage,
            usage_estimated: self.usage_estimated,
            error: stop.error.map(|e| *e),
            needs_input: if stop.status == ChatStatus::NeedsInput {
                self.needs_input
            } else {
                None
            },
            summaries: self.summaries,
            pruned_results: self.pruned,
            messages,
        }
    }

    // -----------------------------------------------------------------------------------------
    // Setup

    fn setup(&mut self, history: Vec<Message>, question: &str) -> Result<(), Stop> {
        let p = &self.cfg.provider;
        p.check()
            .map_err(|m| Stop::failed(ChatError::engine("config", m)))?;
        // Tools: first definition of a name wins; nameless ones are dropped.
        let mut seen = HashSet::new();
        self.tools = self
            .host
            .tools()
            .into_iter()
            .filter(|t| !t.name.trim().is_empty() && seen.insert(t.name.clone()))
            .collect();
        match &self.cfg.tool_choice {
            ToolChoice::Function(name) if !self.tools.iter().any(|t| &t.name == name) => {
                return Err(Stop::failed(ChatError::engine(
                    "config",
                    format!(
                        "tool_choice names the tool {} which is not offered in this run",
                        label(name)
                    ),
                )));
            }
            ToolChoice::Required if self.tools.is_empty() => {
                return Err(Stop::failed(ChatError::engine(
                    "config",
                    "tool_choice 'required' but no tools are offered in this run",
                )));
            }
            _ => {}
        }
        let window = p.context_window.or_else(|| context_window(&p.model));
        self.counting = window.is_some() || self.cfg.max_total_tokens.is_some();
        if self.counting {
            self.counter = TokenCounter::for_model(&p.model);
            self.tools_tokens = count_tools(&self.tools, &self.counter);
        }
        if let Some(w) = window {
            let reserve = p
                .max_completion_tokens
                .unwrap_or(DEFAULT_COMPLETION_RESERVE) as usize;
            self.window = Some(Window {
                budget: w.saturating_sub(reserve + self.tools_tokens),
            });
        }
        for s in &self.cfg.system_prompts {
            if !s.trim().is_empty() {
                self.push(Message::system(s.clone()), true);
            }
        }
        for m in repair_history(history) {
            for c in &m.tool_calls {
                self.used_ids.insert(c.id.clone());
            }
            self.push(m, false);
        }
        self.push(Message::user(question), true);
        Ok(())
    }

    /// Append a message (and tell the host when it is new in this run).
    fn push(&mut self, m: Message, announce: bool) {
        if announce {
            self.host.on_message(&m);
        }
        if self.counting {
            self.msg_tokens.push(self.counter.count_message(&m));
        }
        self.msgs.push(m);
    }

    fn recount(&mut self) {
        if self.counting {
            self.msg_tokens = self
                .msgs
                .iter()
                .map(|m| self.counter.count_message(m))
                .collect();
        }
    }

    fn prompt_tokens(&self) -> usize {
        HISTORY_BASE_TOKENS + self.msg_tokens.iter().sum::<usize>() + self.tools_tokens
    }

    fn used_tokens(&self) -> u64 {
        self.usage
            .prompt_tokens
            .saturating_add(self.usage.completion_tokens)
    }

    fn over_budget(&self) -> bool {
        self.cfg
            .max_total_tokens
            .is_some_and(|max| self.used_tokens() >= max)
    }

    // -----------------------------------------------------------------------------------------
    // The cycle

    fn drive(&mut self, history: Vec<Message>, question: &str) -> Stop {
        if let Err(stop) = self.setup(history, question) {
            return stop;
        }
        let max_iterations = self.cfg.effective_max_iterations();
        let choice_none = self.cfg.tool_choice == ToolChoice::None;
        let mut choice = self.cfg.tool_choice.clone();
        // A forced tool answered with text gets one correction turn (issue 11).
        let mut corrected = false;
        loop {
            if self.host.interrupted() {
                return cancelled("interrupted before the next LLM request");
            }
            if self.past_deadline() {
                return self.deadline_stop("before the next LLM request");
            }
            self.iterations += 1;
            if let Err(stop) = self.fit_context() {
                return stop;
            }
            let counted = self.counting.then(|| self.prompt_tokens());
            if let (Some(max), Some(n)) = (self.cfg.max_total_tokens, counted) {
                if self.used_tokens().saturating_add(n as u64) > max {
                    self.iterations -= 1;
                    return Stop::with_error(
                        ChatStatus::BudgetExceeded,
                        "budget_exceeded",
                        format!(
                            "token budget {max} would be exceeded: {} used, next request needs about {n}",
                            self.used_tokens()
                        ),
                    );
                }
            }
            let req = self.request(self.msgs.clone(), self.tools.clone(), choice.clone());
            let resp = match self.exchange(ExchangePurpose::Chat, &req, counted) {
                Ok(r) => r,
                Err(stop) => return stop,
            };
            // A forced tool (or `required`) applies to the first request only.
            let forced = matches!(choice, ToolChoice::Required | ToolChoice::Function(_));
            if forced {
                choice = ToolChoice::Auto;
            }

            if !resp.has_tools() && forced {
                // The provider ignored tool_choice: correct once, then stop (never `completed`).
                let text = resp.content.clone().unwrap_or_default();
                if !corrected && self.iterations < max_iterations {
                    corrected = true;
                    if !text.trim().is_empty() {
                        self.push(Message::assistant(text), true);
                    }
                    let correction = match &self.cfg.tool_choice {
                        ToolChoice::Function(name) => format!(
                            "Answer with a call of the tool {} now, not with text.",
                            label(name)
                        ),
                        _ => "Answer with a call of one of the offered tools now, not with text."
                            .to_string(),
                    };
                    self.push(Message::user(correction), true);
                    choice = self.cfg.tool_choice.clone();
                    continue;
                }
                return Stop {
                    status: ChatStatus::ToolChoiceViolated,
                    answer: (!text.trim().is_empty()).then_some(text),
                    error: Some(Box::new(ChatError::engine(
                        "tool_choice_violated",
                        format!(
                            "tool_choice '{}' asked for a tool call; the model answered with text{}",
                            choice_label(&self.cfg.tool_choice),
                            if corrected { ", also after a correction" } else { "" }
                        ),
                    ))),
                };
            }

            if !resp.has_tools() {
                let text = resp.content.clone().unwrap_or_default();
                if text.trim().is_empty() {
                    let why = match resp.finish_reason {
                        FinishReason::ContentFilter => {
                            "the answer was withheld by the provider's content filter"
                        }
                        FinishReason::Length => {
                            "the answer was cut off before any text (output token limit)"
                        }
                        _ => "the model returned an empty answer",
                    };
                    let kind = if resp.finish_reason == FinishReason::ContentFilter {
                        "content_filter"
                    } else {
                        "empty_answer"
                    };
                    return Stop::failed(ChatError::engine(kind, why));
                }
                self.push(Message::assistant(text.clone()), true);
                if resp.finish_reason == FinishReason::Length {
                    // Cut off at the output token limit: never presented as a clean answer.
                    return Stop {
                        status: ChatStatus::Truncated,
                        answer: Some(text),
                        error: Some(Box::new(ChatError::engine(
                            "truncated",
                            "the answer was cut off at the output token limit (finish_reason length)",
                        ))),
                    };
                }
                return Stop {
                    status: ChatStatus::Completed,
                    answer: Some(text),
                    error: None,
                };
            }

            let calls = self.assign_ids(&resp.tool_calls);
            let assistant = Message::assistant_tool_calls(
                resp.content.clone().filter(|c| !c.trim().is_empty()),
                calls.iter().map(wire_call).collect(),
            );
            self.push(assistant, true);
            let iteration = self.iterations;

            // Stops decided before anything of this batch runs.
            let early = if iteration >= max_iterations {
                Some(Stop::with_error(
                    ChatStatus::MaxIterations,
                    "max_iterations",
                    format!("the model still requested tools after {iteration} requests (limit {max_iterations})"),
                ))
            } else if self.over_budget() {
                Some(Stop::with_error(
                    ChatStatus::BudgetExceeded,
                    "budget_exceeded",
                    format!(
                        "token budget {} exceeded: {} used",
                        self.cfg.max_total_tokens.unwrap_or(0),
                        self.used_tokens()
                    ),
                ))
            } else {
                calls
                    .iter()
                    .filter(|c| c.complete)
                    .find(|c| {
                        let key = (
                            c.name.clone(),
                            canonical(c.arguments.as_ref().unwrap_or(&Value::Null)),
                        );
                        self.executed_keys.contains(&key)
                    })
                    .map(|c| {
                        Stop::with_error(
                            ChatStatus::LoopDetected,
                            "loop_detected",
                            format!(
                                "the model requested {} again with the same arguments",
                                label(&c.name)
                            ),
                        )
                    })
            };
            if let Some(stop) = early {
                let why = match stop.status {
                    ChatStatus::MaxIterations => "the iteration limit of this run was reached",
                    ChatStatus::BudgetExceeded => "the token budget of this run is used up",
                    _ => "the same call with the same arguments already ran; its result is above",
                };
                for c in &calls {
                    self.skip(iteration, c, why);
                }
                return stop;
            }

            let mut new_keys = Vec::new();
            let mut ask: Option<(Value, String)> = None;
            for (i, c) in calls.iter().enumerate() {
                let exec = self.handle_call(iteration, c, choice_none, resp.truncated);
                if let Some(ToolExecution {
                    status,
                    needs_input,
                    ..
                }) = &exec
                {
                    if *status != ToolStatus::Cancelled {
                        new_keys.push((
                            c.name.clone(),
                            canonical(c.arguments.as_ref().unwrap_or(&Value::Null)),
                        ));
                    }
                    if *status == ToolStatus::NeedsInput && ask.is_none() {
                        let req = needs_input.clone().unwrap_or_else(|| json!({}));
                        let q = question_for_user(&req, resp.content.as_deref());
                        ask = Some((req, q));
                    }
                    if *status == ToolStatus::Cancelled || self.host.interrupted() {
                        for rest in &calls[i + 1..] {
                            self.skip(iteration, rest, "the run was cancelled");
                        }
                        return cancelled("interrupted during tool execution");
                    }
                }
            }
            self.executed_keys.extend(new_keys);
            if let Some((req, q)) = ask {
                self.needs_input = Some(req);
                self.push(Message::assistant(q.clone()), true);
                return Stop {
                    status: ChatStatus::NeedsInput,
                    answer: Some(q),
                    error: None,
                };
            }
        }
    }

    fn request(
        &self,
        messages: Vec<Message>,
        tools: Vec<ToolDef>,
        tool_choice: ToolChoice,
    ) -> ChatRequest {
        let p = &self.cfg.provider;
        let mut extra: Map<String, Value> = p.options.clone();
        // `max_tokens` is set from max_completion_tokens, not from options.
        if p.max_completion_tokens.is_some() {
            extra.remove("max_tokens");
            extra.remove("max_completion_tokens");
        }
        ChatRequest {
            model: p.model.clone(),
            messages,
            tools,
            tool_choice,
            max_tokens: p.max_completion_tokens,
            temperature: None,
            extra,
        }
    }

    /// Unique, non-empty ids across the conversation (providers reject duplicates).
    fn assign_ids(&mut self, calls: &[ParsedToolCall]) -> Vec<ParsedToolCall> {
        let mut out = Vec::with_capacity(calls.len());
        for (i, c) in calls.iter().enumerate() {
            let mut c = c.clone();
            if c.id.trim().is_empty() || self.used_ids.contains(&c.id) {
                let mut n = 0;
                loop {
                    let id = if n == 0 {
                        format!("call_{}_{}", self.iterations, i)
                    } else {
                        format!("call_{}_{}_{}", self.iterations, i, n)
                    };
                    if !self.used_ids.contains(&id) {
                        c.id = id;
                        break;
                    }
                    n += 1;
                }
            }
            self.used_ids.insert(c.id.clone());
            out.push(c);
        }
        out
    }

    // -----------------------------------------------------------------------------------------
    // Tool calls

    /// Validate and (when valid) execute one call; append its tool message; report it.
    fn handle_call(
        &mut self,
        iteration: u32,
        c: &ParsedToolCall,
        choice_none: bool,
        truncated: bool,
    ) -> Option<ToolExecution> {
        let (status, content, errors, reason) = if !c.complete {
            let why = c
                .error
                .clone()
                .unwrap_or_else(|| "the call is incomplete".into());
            let hint = if truncated {
                "The answer was cut off (output token limit). Call the tool again with complete arguments."
            } else {
                "Call the tool again with a JSON object of named arguments."
            };
            (
                ToolCallStatus::Incomplete,
                format!("Tool call failed: {}. {hint}", clip(&why, 300)),
                Value::Array(Vec::new()),
                Some(why),
            )
        } else if choice_none {
            (
                ToolCallStatus::Refused,
                "Tool call refused: tools are disabled for this request. Answer without calling tools.".to_string(),
                Value::Array(Vec::new()),
                Some("tool_choice is none".to_string()),
            )
        } else if !self.tools.iter().any(|t| t.name == c.name) {
            let names: Vec<&str> = self
                .tools
                .iter()
                .map(|t| t.name.as_str())
                .take(50)
                .collect();
            (
                ToolCallStatus::UnknownTool,
                format!(
                    "Tool call failed: unknown tool {}. Available tools: {}.",
                    label(&c.name),
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
                Value::Array(Vec::new()),
                Some("tool not offered in this run".to_string()),
            )
        } else {
            match self.check_arguments(c) {
                Err((content, errors, reason)) => {
                    (ToolCallStatus::Invalid, content, errors, Some(reason))
                }
                Ok(()) => {
                    let call = ToolCall::new(
                        c.id.clone(),
                        c.name.clone(),
                        c.arguments.clone().unwrap_or_else(|| json!({})),
                    );
                    self.host.on_tool_start(&c.id, &c.arguments_raw);
                    let t0 = Instant::now();
                    let exec = self.host.execute_tool(&call);
                    let latency = t0.elapsed();
                    self.executed += 1;
                    let rec = ToolCallRecord {
                        iteration,
                        call_id: c.id.clone(),
                        name: c.name.clone(),
                        arguments_raw: c.arguments_raw.clone(),
                        arguments: c.arguments.clone(),
                        status: ToolCallStatus::Executed(exec.status),
                        validation_errors: Value::Array(Vec::new()),
                        reason: None,
                        content: exec.content.clone(),
                        latency,
                        detail: exec.detail.clone(),
                    };
                    self.push(
                        Message::tool_result(c.id.clone(), c.name.clone(), exec.content.clone()),
                        true,
                    );
                    self.host.on_tool_call(&rec);
                    return Some(exec);
                }
            }
        };
        self.rejected += 1;
        let rec = ToolCallRecord {
            iteration,
            call_id: c.id.clone(),
            name: c.name.clone(),
            arguments_raw: c.arguments_raw.clone(),
            arguments: c.arguments.clone(),
            status,
            validation_errors: errors,
            reason,
            content: content.clone(),
            latency: Duration::ZERO,
            detail: None,
        };
        self.push(
            Message::tool_result(c.id.clone(), wire_name(&c.name), content),
            true,
        );
        self.host.on_tool_call(&rec);
        None
    }

    /// Validate against the tool's schema (compiled once per run). `Err`: the correction for the
    /// model, the errors as JSON, a reason for the audit.
    fn check_arguments(&mut self, c: &ParsedToolCall) -> Result<(), (String, Value, String)> {
        if self.cfg.host_validates {
            return Ok(());
        }
        let args = c.arguments.clone().unwrap_or_else(|| json!({}));
        if !self.schemas.contains_key(&c.name) {
            let cached = self.host.compiled_schema(&c.name).map(Ok);
            let compiled = match (cached, self.tools.iter().find(|t| t.name == c.name)) {
                (Some(ok), _) => ok,
                (None, Some(t)) => ToolSchema::compile(&t.parameters).map_err(|e| e.join("; ")),
                (None, None) => Err("tool not offered".to_string()),
            };
            self.schemas.insert(c.name.clone(), compiled);
        }
        match self.schemas.get(&c.name) {
            Some(Ok(schema)) => {
                let errors = schema.validate(&args);
                if errors.is_empty() {
                    Ok(())
                } else {
                    Err((
                        correction_message(&c.name, &errors),
                        errors_to_json(&errors),
                        "arguments failed validation".to_string(),
                    ))
                }
            }
            Some(Err(e)) => Err((
                format!(
                    "Tool call failed: tool {} is unavailable (its parameter schema is invalid). Do not call it again.",
                    label(&c.name)
                ),
                Value::Array(Vec::new()),
                format!("parameter schema does not compile: {}", clip(e, 300)),
            )),
            None => Err((
                "Tool call failed: the tool is unavailable.".to_string(),
                Value::Array(Vec::new()),
                "no schema".to_string(),
            )),
        }
    }

    /// Answer a call that is not executed because the run stops.
    fn skip(&mut self, iteration: u32, c: &ParsedToolCall, why: &str) {
        self.rejected += 1;
        let content = format!("Tool call not executed: {why}.");
        let rec = ToolCallRecord {
            iteration,
            call_id: c.id.clone(),
            name: c.name.clone(),
            arguments_raw: c.arguments_raw.clone(),
            arguments: c.arguments.clone(),
            status: ToolCallStatus::Skipped,
            validation_errors: Value::Array(Vec::new()),
            reason: Some(why.to_string()),
            content: content.clone(),
            latency: Duration::ZERO,
            detail: None,
        };
        self.push(
            Message::tool_result(c.id.clone(), wire_name(&c.name), content),
            true,
        );
        self.host.on_tool_call(&rec);
    }

    // -----------------------------------------------------------------------------------------
    // Context management (M11)

    /// Prune, then summarize, until the messages fit the window's budget. A history that still
    /// does not fit is sent anyway: the estimate errs on the large side and the provider decides
    /// (its refusal becomes a `context_length` error).
    fn fit_context(&mut self) -> Result<(), Stop> {
        let budget = match &self.window {
            Some(w) => w.budget,
            None => return Ok(()),
        };
        // `prune` counts without the tools; our budget already excludes them.
        let total = HISTORY_BASE_TOKENS + self.msg_tokens.iter().sum::<usize>();
        if total <= budget {
            return Ok(());
        }
        let report = prune(&mut self.msgs, budget, &self.counter);
        self.pruned += report.pruned.len() as u32;
        self.recount();
        if report.fits {
            return Ok(());
        }
        let range = match report.summarize {
            Some(r) => r,
            None => return Ok(()),
        };
        // The rendered steps must fit a request of their own.
        let max_chars = budget.saturating_sub(SUMMARY_RESERVE_FOR_PROMPT).max(256) * 2;
        let steps = clip(&render_for_summary(&self.msgs, range.clone()), max_chars);
        let req = ChatRequest {
            max_tokens: Some(
                self.cfg
                    .provider
                    .max_completion_tokens
                    .unwrap_or(DEFAULT_COMPLETION_RESERVE)
                    .min(SUMMARY_MAX_TOKENS),
            ),
            ..self.request(
                vec![
                    Message::system(SUMMARY_SYSTEM_PROMPT),
                    Message::user(format!("{SUMMARY_INSTRUCTION}\n\n{steps}")),
                ],
                Vec::new(),
                ToolChoice::Auto,
            )
        };
        let counted = Some(
            self.counter.count_message(&req.messages[0])
                + self.counter.count_message(&req.messages[1])
                + HISTORY_BASE_TOKENS,
        );
        let resp = self.exchange(ExchangePurpose::Summary, &req, counted)?;
        let summary = resp.content.unwrap_or_default();
        if summary.trim().is_empty() {
            return Ok(());
        }
        if let Ok(replaced) = apply_summary(&mut self.msgs, range, &summary) {
            self.summaries += 1;
            self.recount();
            if let Some(m) = self.msgs.get(replaced.start) {
                let m = m.clone();
                self.host.on_message(&m);
            }
        }
        Ok(())
    }

    // -----------------------------------------------------------------------------------------
    // One LLM request

    /// Send `req`, record the exchange, parse the answer. `Err` ends the run.
    fn exchange(
        &mut self,
        purpose: ExchangePurpose,
        req: &ChatRequest,
        counted: Option<usize>,
    ) -> Result<LlmResponse, Stop> {
        let p = &self.cfg.provider;
        let body = if p.kind.is_anthropic() {
            anthropic_body(req)
        } else {
            openai_body(req)
        };
        let body_text = body.to_string();
        let mut ex = LlmExchange {
            purpose,
            iteration: self.iterations,
            provider: p.label().to_string(),
            kind: p.kind.as_str(),
            model: p.model.clone(),
            url: if p.kind == ProviderKind::Replay {
                "replay:".to_string()
            } else {
                mcp_http::redact_url(&p.endpoint())
            },
            request_body: self.scrub.scrub(&body_text).into_owned(),
            response_body: None,
            http_status: None,
            latency: Duration::ZERO,
            attempts: 0,
            usage: Usage::default(),
            usage_estimated: false,
            counted_prompt_tokens: counted,
            finish_reason: None,
            cancelled: false,
            repaired: false,
            fixes: Vec::new(),
            error: None,
        };

        // Transport: (status, body, headers) or a stop.
        let (status, raw, headers): (Option<u16>, String, Vec<(String, String)>) = if p.kind
            == ProviderKind::Replay
        {
            let t0 = Instant::now();
            match p.replay.get(self.replay_pos) {
                Some(b) => {
                    self.replay_pos += 1;
                    ex.latency = t0.elapsed();
                    (None, b.clone(), Vec::new())
                }
                None => {
                    let e = ProviderError::new(
                        ErrorKind::InvalidResponse,
                        p.label(),
                        None,
                        &format!(
                            "replay exhausted: the recording holds {} responses, request {} has none",
                            p.replay.len(),
                            self.replay_pos + 1
                        ),
                    );
                    ex.error = Some(e.clone());
                    self.host.on_llm_exchange(&ex);
                    let mut ce = ChatError::from(&e);
                    ce.kind = "replay_exhausted".into();
                    return Err(Stop::failed(ce));
                }
            }
        } else {
            let mut opts = self.cfg.http.clone();
            if let Some(t) = p.timeout {
                opts.read_timeout = t;
            }
            let deadline = self.deadline;
            if let Some(d) = deadline {
                // Attempts and backoff waits all end by the run's deadline.
                let left = d.saturating_duration_since(Instant::now());
                opts.read_timeout = opts.read_timeout.min(left.max(Duration::from_millis(1)));
                opts.connect_timeout = opts.connect_timeout.min(opts.read_timeout);
                opts.retry.retry_budget = opts.retry.retry_budget.min(left);
            }
            let request = Request {
                url: p.endpoint(),
                headers: p.headers(),
                body: body_text,
            };
            let host = &mut *self.host;
            let result = self.client.post_json(&request, &opts, &mut || {
                host.interrupted() || deadline.is_some_and(|d| Instant::now() >= d)
            });
            drop(request);
            match result {
                Ok(r) => {
                    ex.latency = r.latency;
                    ex.attempts = r.attempts;
                    let status = r.status;
                    let headers = r.headers.clone();
                    (Some(status), r.into_text(), headers)
                }
                Err(e) => {
                    ex.latency = e.latency;
                    ex.attempts = e.attempts;
                    if self.past_deadline() && !self.host.interrupted() {
                        let stop = self.deadline_stop("while waiting for the LLM");
                        let mut pe = ProviderError::new(
                            ErrorKind::Timeout,
                            p.label(),
                            None,
                            &stop
                                .error
                                .as_ref()
                                .map(|e| e.message.clone())
                                .unwrap_or_default(),
                        );
                        pe.code = Some("deadline_exceeded".into());
                        ex.error = Some(pe);
                        self.host.on_llm_exchange(&ex);
                        return Err(stop);
                    }
                    if e.kind == HttpErrorKind::Interrupted {
                        ex.cancelled = true;
                        self.host.on_llm_exchange(&ex);
                        return Err(cancelled("interrupted while waiting for the LLM"));
                    }
                    let kind = match e.kind {
                        HttpErrorKind::Timeout => ErrorKind::Timeout,
                        HttpErrorKind::TooLarge => ErrorKind::InvalidResponse,
                        HttpErrorKind::InvalidUrl | HttpErrorKind::InvalidRequest => {
                            ErrorKind::BadRequest
                        }
                        _ => ErrorKind::Network,
                    };
                    let mut pe = ProviderError::new(
                        kind,
                        p.label(),
                        None,
                        &self.scrub.scrub_message(&e.message),
                    );
                    pe.code = Some(e.kind.as_str().to_string());
                    ex.error = Some(pe.clone());
                    self.host.on_llm_exchange(&ex);
                    return Err(Stop::failed(ChatError::from(&pe)));
                }
            }
        };
        ex.http_status = status;
        // Before anything reads it: the answer, the conversation, audit rows and errors all come
        // from the scrubbed body (mcp_http scrubbed HTTP bodies already; replay bodies too here).
        let raw = match self.scrub.scrub(&raw) {
            std::borrow::Cow::Borrowed(_) => raw,
            std::borrow::Cow::Owned(clean) => clean,
        };
        ex.response_body = Some(raw.clone());

        if let Some(s) = status.filter(|s| !(200..300).contains(s)) {
            let hdrs: Vec<(&str, &str)> = headers
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            let mut pe = normalize_error_with_headers(p.label(), Some(s), &raw, &hdrs);
            pe.message = self.scrub.scrub_message(&pe.message);
            pe.code = pe.code.map(|c| self.scrub.scrub_message(&c));
            ex.error = Some(pe.clone());
            self.host.on_llm_exchange(&ex);
            return Err(Stop::failed(ChatError::from(&pe)));
        }

        let resp = parse_llm_response(&raw);
        ex.finish_reason = Some(resp.finish_reason);
        let mut fixes = resp.repairs.clone();
        for c in &resp.tool_calls {
            fixes.extend(c.repairs.iter().cloned());
        }
        ex.repaired = !fixes.is_empty();
        ex.fixes = fixes;
        let usage = match resp.usage {
            Some(u) if u.prompt_tokens > 0 || u.completion_tokens > 0 => u,
            _ => {
                ex.usage_estimated = true;
                self.usage_estimated = true;
                let prompt = counted.unwrap_or_else(|| {
                    let c = self.counter;
                    HISTORY_BASE_TOKENS
                        + req
                            .messages
                            .iter()
                            .map(|m| c.count_message(m))
                            .sum::<usize>()
                }) as u64;
                let mut completion = self
                    .counter
                    .count_text(resp.content.as_deref().unwrap_or(""))
                    as u64;
                for c in &resp.tool_calls {
                    completion += self.counter.count_text(&c.name) as u64
                        + self.counter.count_text(&c.arguments_raw) as u64;
                }
                Usage {
                    prompt_tokens: prompt,
                    completion_tokens: completion,
                    total_tokens: prompt + completion,
                }
            }
        };
        ex.usage = usage;
        // Provider-reported numbers: saturate, never wrap (an absurd count must not panic).
        self.usage.prompt_tokens = self.usage.prompt_tokens.saturating_add(usage.prompt_tokens);
        self.usage.completion_tokens = self
            .usage
            .completion_tokens
            .saturating_add(usage.completion_tokens);
        self.usage.total_tokens = self.used_tokens();

        if let Some(e) = &resp.error {
            let mut pe = e.clone();
            pe.provider = p.label().to_string();
            pe.http_status = status;
            pe.message = self.scrub.scrub_message(&pe.message);
            ex.error = Some(pe.clone());
            self.host.on_llm_exchange(&ex);
            return Err(Stop::failed(ChatError::from(&pe)));
        }
        self.host.on_llm_exchange(&ex);
        Ok(resp)
    }
}

fn cancelled(why: &str) -> Stop {
    Stop::with_error(ChatStatus::Cancelled, "cancelled", why)
}

impl Run<'_> {
    fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    fn deadline_stop(&self, when: &str) -> Stop {
        let ms = self.cfg.deadline.map_or(0, |d| d.as_millis());
        Stop::with_error(
            ChatStatus::DeadlineExceeded,
            "deadline_exceeded",
            format!("the run's time budget of {ms} ms ran out {when}"),
        )
    }
}

fn choice_label(c: &ToolChoice) -> String {
    match c {
        ToolChoice::Function(name) => format!("function:{name}"),
        ToolChoice::Required => "required".into(),
        ToolChoice::Auto => "auto".into(),
        ToolChoice::None => "none".into(),
    }
}

/// Text of the tool answer inserted for a stored call that has none.
pub const MISSING_RESULT: &str = "Tool call not executed: no result was recorded for this call.";

/// Make a stored history acceptable to every provider: system messages dropped (the run sends
/// its own), every assistant tool call followed by exactly one tool answer (a missing one gets
/// [`MISSING_RESULT`], duplicates and answers to unknown ids are dropped), no orphan tool
/// messages.
pub fn repair_history(history: Vec<Message>) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(history.len());
    let mut it = history
        .into_iter()
        .filter(|m| m.role != Role::System)
        .peekable();
    while let Some(m) = it.next() {
        match m.role {
            Role::Tool => continue, // orphan: no tool-call message right before it
            Role::Assistant if m.has_tool_calls() => {
                let mut answers: Vec<Message> = Vec::new();
                while it.peek().is_some_and(|n| n.role == Role::Tool) {
                    if let Some(t) = it.next() {
                        answers.push(t);
                    }
                }
                let calls = m.tool_calls.clone();
                out.push(m);
                for c in &calls {
                    match answers
                        .iter()
                        .position(|a| a.tool_call_id.as_deref() == Some(c.id.as_str()))
                    {
                        Some(i) => out.push(answers.swap_remove(i)),
                        None => out.push(Message::tool_result(
                            c.id.clone(),
                            c.name.clone(),
                            MISSING_RESULT,
                        )),
                    }
                }
            }
            _ => out.push(m),
        }
    }
    out
}

/// Tokens kept free for the summarization request's own instructions.
const SUMMARY_RESERVE_FOR_PROMPT: usize = 200;
/// Largest completion requested for a summary.
const SUMMARY_MAX_TOKENS: u32 = 800;

/// The call as it goes back to the provider inside the assistant message. Incomplete calls keep
/// their id (their tool answer refers to it) with `{}` as arguments and a usable name.
fn wire_call(c: &ParsedToolCall) -> ToolCall {
    let args = match (&c.arguments, c.complete) {
        (Some(a), true) => a.clone(),
        _ => json!({}),
    };
    ToolCall::new(c.id.clone(), wire_name(&c.name), args)
}

/// A function name every provider accepts (`^[a-zA-Z0-9_-]{1,64}$`).
fn wire_name(name: &str) -> String {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if ok {
        name.to_string()
    } else {
        "invalid_tool_call".to_string()
    }
}

/// `'name'` for a plausible tool name, otherwise `the tool` (never echo arbitrary model text).
fn label(name: &str) -> String {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        format!("'{name}'")
    } else {
        "the tool".to_string()
    }
}

/// Canonical JSON text (object keys sorted, recursively) for loop detection: the same text the
/// audit hashes (`mcp_audit::canonical_json`).
pub use mcp_audit::canonical_json as canonical;

/// The question for the user after a `needs_input` tool: the tool's `question`, else the model's
/// own text, else one built from `missing_parameters` and `context`.
pub fn question_for_user(request: &Value, model_text: Option<&str>) -> String {
    if let Some(q) = request
        .get("question")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|q| !q.is_empty())
    {
        return q.to_string();
    }
    if let Some(t) = model_text.map(str::trim).filter(|t| !t.is_empty()) {
        return t.to_string();
    }
    let missing: Vec<String> = match request.get("missing_parameters") {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|x| {
                x.as_str()
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(|s| clip(s, 80))
            })
            .take(20)
            .collect(),
        Some(Value::String(s)) if !s.trim().is_empty() => vec![clip(s.trim(), 80)],
        _ => Vec::new(),
    };
    let mut q = if missing.is_empty() {
        "I need more information to answer. Could you give more details?".to_string()
    } else {
        format!(
            "I need more information to answer. Please provide: {}.",
            missing.join(", ")
        )
    };
    if let Some(c) = request
        .get("context")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|c| !c.is_empty())
    {
        q.push_str(&format!(" (Context: {})", clip(c, 300)));
    }
    q
}

/// Cut to at most `max` characters, marking the cut with `…`.
fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((i, _)) => format!("{}…", &s[..i]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_sorts_keys_recursively() {
        let a = json!({"b": 1, "a": {"d": [1, {"y": 2, "x": 1}], "c": null}});
        let b = json!({"a": {"c": null, "d": [1, {"x": 1, "y": 2}]}, "b": 1});
        assert_eq!(canonical(&a), canonical(&b));
        assert_ne!(
            canonical(&json!({"a": [1, 2]})),
            canonical(&json!({"a": [2, 1]}))
        );
    }

    #[test]
    fn question_prefers_tool_then_model_then_missing() {
        assert_eq!(
            question_for_user(&json!({"question": "Which region?"}), Some("x")),
            "Which region?"
        );
        assert_eq!(
            question_for_user(&json!({}), Some("Welches Tarifgebiet?")),
            "Welches Tarifgebiet?"
        );
        let q = question_for_user(
            &json!({"missing_parameters": ["tarifgebiet", "fachbereich"], "context": "Metall"}),
            None,
        );
        assert!(q.contains("tarifgebiet, fachbereich"), "{q}");
        assert!(q.contains("Metall"), "{q}");
        assert!(!question_for_user(&json!(null), None).is_empty());
    }

    #[test]
    fn repair_history_answers_every_call_and_drops_orphans() {
        let call = |id: &str| ToolCall::new(id, "t", json!({}));
        let h = vec![
            Message::system("old system prompt"),
            Message::tool_result("x", "t", "orphan"),
            Message::user("q"),
            Message::assistant_tool_calls(None, vec![call("a"), call("b")]),
            Message::tool_result("b", "t", "B"),
            Message::tool_result("zz", "t", "unknown id"),
            Message::assistant_tool_calls(None, vec![call("c")]),
        ];
        let r = repair_history(h);
        let shape: Vec<(Role, Option<&str>, &str)> = r
            .iter()
            .map(|m| (m.role, m.tool_call_id.as_deref(), m.text()))
            .collect();
        assert_eq!(
            shape,
            vec![
                (Role::User, None, "q"),
                (Role::Assistant, None, ""),
                (Role::Tool, Some("a"), MISSING_RESULT),
                (Role::Tool, Some("b"), "B"),
                (Role::Assistant, None, ""),
                (Role::Tool, Some("c"), MISSING_RESULT),
            ]
        );
    }

    #[test]
    fn wire_names_and_labels_are_safe() {
        assert_eq!(wire_name("getDialog"), "getDialog");
        assert_eq!(wire_name(""), "invalid_tool_call");
        assert_eq!(wire_name("a b"), "invalid_tool_call");
        assert_eq!(label("x'); drop"), "the tool");
    }
}
