//! The chat cycle: LLM request, tool calls, answer; with context management (pruning and
//! summarization to fit the window) and audit records for every exchange and tool call.

use crate::config::{ChatConfig, DEFAULT_COMPLETION_RESERVE};
use crate::host::{
    ExchangePurpose, Host, LlmExchange, ToolCallRecord, ToolCallStatus, ToolExecution,
};
use crate::outcome::{ChatError, ChatOutcome, ChatStatus};
use crate::transport::{self, Failure, Http, Transport};
use mcp_audit::Scrubber;
use mcp_http::HttpClient;
use mcp_llm::{
    apply_summary, context_window, count_tools, prune, render_for_summary, ChatRequest,
    CountTokens, ErrorKind, FinishReason, LlmResponse, Message, ParsedToolCall, ProviderError,
    Role, TokenCounter, ToolCall, ToolChoice, ToolDef, Usage,
};
// `label`: `'name'` for a plausible tool name, otherwise `the tool` (never echo model text).
use mcp_tools::tool_label as label;
use serde_json::{json, Map, Value};
use std::collections::HashSet;
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
    // Over the blocking client every send is ready when first polled: no runtime, no thread.
    mcp_http::block_on(run_chat_with(
        config,
        history,
        question,
        host,
        Http::Blocking(client),
    ))
}

/// The same turn as a future whose only waits are the LLM requests (pending while one is
/// under way over [`Http::Multiplexed`]); the host's calls (tools, audit) happen inside
/// `poll`, on the polling thread, one at a time.
pub async fn run_chat_with(
    config: &ChatConfig,
    history: Vec<Message>,
    question: &str,
    host: &mut dyn Host,
    http: Http<'_>,
) -> ChatOutcome {
    let mut run = Run::new(config, host, http);
    let stop = run.drive(history, question).await;
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
    /// Tokens the messages and the tools may take: window - completion reserve.
    room: usize,
}

/// Prompt tokens the engine counted before a request: exact when a limit needed the count,
/// else the upper bound it checked the limits with (the request was far from them).
#[derive(Clone, Copy)]
struct Counted {
    tokens: usize,
    exact: bool,
}

struct Run<'a> {
    cfg: &'a ChatConfig,
    host: &'a mut dyn Host,
    /// HTTP to the provider, or the replayed recording.
    transport: Box<dyn Transport + 'a>,
    /// The whole conversation as sent: system prompts, history, question, this run's messages.
    msgs: Vec<Message>,
    /// Exact token count of each message in `msgs`, counted when a limit first needs it (when
    /// `counting`; `None`: not counted yet). Counting is the costly part (BPE), so a history
    /// that fits its limits even by the byte bound is never counted.
    msg_tokens: Vec<Option<usize>>,
    /// An upper bound of each message's tokens (its bytes, `TokenCounter::message_bound`).
    msg_bounds: Vec<usize>,
    counting: bool,
    counter: TokenCounter,
    tools: Vec<ToolDef>,
    /// Exact tokens of the tool definitions, once counted.
    tools_tokens: Option<usize>,
    tools_bound: usize,
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
    needs_input: Option<Value>,
    /// Calls of this run that wait for an approval (`awaiting_approval`).
    pending_approvals: Vec<Value>,
    /// Bytes of tool results returned so far in this run (`RunLimits::max_result_bytes`).
    result_bytes: usize,
    /// End of the run's time budget (`ChatConfig::deadline`), retries included.
    deadline: Option<Instant>,
    /// The provider's credentials in every form: applied to every body and message the run
    /// records or returns (the one scrubber, `mcp_audit::Scrubber`, built by the provider).
    scrub: Scrubber,
}

impl<'a> Run<'a> {
    fn new(cfg: &'a ChatConfig, host: &'a mut dyn Host, client: Http<'a>) -> Self {
        Run {
            cfg,
            host,
            transport: transport::for_provider(&cfg.provider, &cfg.http, client),
            msgs: Vec::new(),
            msg_tokens: Vec::new(),
            msg_bounds: Vec::new(),
            counting: false,
            counter: TokenCounter::estimate(),
            tools: Vec::new(),
            tools_tokens: None,
            tools_bound: 0,
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
            needs_input: None,
            pending_approvals: Vec::new(),
            result_bytes: 0,
            deadline: cfg.deadline.map(|d| Instant::now() + d),
            scrub: cfg.provider.scrubber(),
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
            pending_approvals: self.pending_approvals,
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
            .cfg
            .plan
            .filter_tools(self.host.tools())
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
            self.tools_bound = self.counter.tools_bound(&self.tools);
        }
        if let Some(w) = window {
            let reserve = p
                .max_completion_tokens
                .unwrap_or(DEFAULT_COMPLETION_RESERVE) as usize;
            self.window = Some(Window {
                room: w.saturating_sub(reserve),
            });
        }
        for s in &self.cfg.system_prompts {
            if !s.trim().is_empty() {
                self.push(Message::system(s.clone()));
            }
        }
        for m in repair_history(history) {
            for c in &m.tool_calls {
                self.used_ids.insert(c.id.clone());
            }
            self.push(m);
        }
        if !(self.cfg.continuation && question.trim().is_empty()) {
            self.push(Message::user(question));
        }
        for m in self.cfg.plan.preface() {
            for c in &m.tool_calls {
                self.used_ids.insert(c.id.clone());
            }
            self.push(m);
        }
        Ok(())
    }

    /// Append a message.
    fn push(&mut self, m: Message) {
        if self.counting {
            self.msg_bounds.push(self.counter.message_bound(&m));
            self.msg_tokens.push(None);
        }
        self.msgs.push(m);
    }

    /// After the history changed in place (pruned, summarized): nothing counted is valid.
    fn recount(&mut self) {
        if self.counting {
            let c = self.counter;
            self.msg_bounds = self.msgs.iter().map(|m| c.message_bound(m)).collect();
            self.msg_tokens = vec![None; self.msgs.len()];
        }
    }

    /// Exact tokens of the history (without the tools), counting each message once.
    fn history_tokens(&mut self) -> usize {
        let c = self.counter;
        let msgs = &self.msgs;
        HISTORY_BASE_TOKENS
            + self
                .msg_tokens
                .iter_mut()
                .zip(msgs)
                .map(|(n, m)| *n.get_or_insert_with(|| c.count_message(m)))
                .sum::<usize>()
    }

    /// Exact tokens of the tool definitions, counted once.
    fn tool_tokens(&mut self) -> usize {
        let (c, tools) = (self.counter, &self.tools);
        *self
            .tools_tokens
            .get_or_insert_with(|| count_tools(tools, &c))
    }

    /// Exact prompt tokens: history and tools.
    fn prompt_tokens(&mut self) -> usize {
        self.history_tokens() + self.tool_tokens()
    }

    /// An upper bound of [`Self::prompt_tokens`] that costs nothing.
    fn prompt_bound(&self) -> usize {
        HISTORY_BASE_TOKENS + self.msg_bounds.iter().sum::<usize>() + self.tools_bound
    }

    /// The prompt tokens to check the token budget with and to report: the bound when it keeps
    /// the request within the window and the run within `max_total_tokens`, else the exact
    /// count.
    fn counted(&mut self) -> Option<Counted> {
        if !self.counting {
            return None;
        }
        let bound = self.prompt_bound();
        let within = self.window.as_ref().is_none_or(|w| bound <= w.room)
            && self
                .cfg
                .max_total_tokens
                .is_none_or(|max| self.used_tokens().saturating_add(bound as u64) <= max);
        Some(if within {
            Counted {
                tokens: bound,
                exact: false,
            }
        } else {
            Counted {
                tokens: self.prompt_tokens(),
                exact: true,
            }
        })
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

    async fn drive(&mut self, history: Vec<Message>, question: &str) -> Stop {
        if let Err(stop) = self.setup(history, question) {
            return stop;
        }
        if let Some(ask) = &self.cfg.plan.ask {
            // The plan asks the user (a missing entity) without any model call.
            self.push(Message::assistant(ask.question.clone()));
            self.needs_input = Some(ask.request.clone());
            return Stop {
                status: ChatStatus::NeedsInput,
                answer: Some(ask.question.clone()),
                error: None,
            };
        }
        let max_iterations = self.cfg.effective_max_iterations();
        let choice_none = self.cfg.tool_choice == ToolChoice::None;
        let mut choice = self.cfg.tool_choice.clone();
        // A forced tool answered with text gets one correction turn.
        let mut corrected = false;
        loop {
            if self.host.interrupted() {
                return cancelled("interrupted before the next LLM request");
            }
            if self.past_deadline() {
                return self.deadline_stop("before the next LLM request");
            }
            self.iterations += 1;
            if let Err(stop) = self.fit_context().await {
                return stop;
            }
            let counted = self.counted();
            if let (Some(max), Some(Counted { tokens: n, .. })) =
                (self.cfg.max_total_tokens, counted)
            {
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
            // The conversation and the tools travel in the request and come back after it (no
            // copy of the history per request).
            let (msgs, tools) = (
                std::mem::take(&mut self.msgs),
                std::mem::take(&mut self.tools),
            );
            let req = self.request(msgs, tools, choice.clone());
            let sent = self.exchange(ExchangePurpose::Chat, &req, counted).await;
            (self.msgs, self.tools) = (req.messages, req.tools);
            let resp = match sent {
                Ok(r) => r,
                Err(stop) => return stop,
            };
            // A stop asked for while the answer was on its way ends the run without it (the
            // exchange is recorded): an asynchronous run's cancel reaches its chat worker only
            // between two polls, and the answer may be ready by the next one.
            if self.host.interrupted() {
                return cancelled("interrupted while waiting for the LLM");
            }
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
                        self.push(Message::assistant(text));
                    }
                    let correction = match &self.cfg.tool_choice {
                        ToolChoice::Function(name) => format!(
                            "Answer with a call of the tool {} now, not with text.",
                            label(name)
                        ),
                        _ => "Answer with a call of one of the offered tools now, not with text."
                            .to_string(),
                    };
                    self.push(Message::user(correction));
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
                self.push(Message::assistant(text.clone()));
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
            self.push(assistant);
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
            let limits = self.cfg.limits;
            let mut in_answer: Vec<(String, String, String)> = Vec::new();
            for (i, c) in calls.iter().enumerate() {
                // Bounds of the work one answer can cause: calls past the per-answer cap,
                // repeats of a call of the same answer, and calls after the run's result budget
                // are answered, never run.
                if i >= limits.max_tool_calls_per_answer {
                    let why = format!(
                        "at most {} tool calls of one answer are run",
                        limits.max_tool_calls_per_answer
                    );
                    self.skip(iteration, c, &why);
                    continue;
                }
                if c.complete {
                    let key = (
                        c.name.clone(),
                        canonical(c.arguments.as_ref().unwrap_or(&Value::Null)),
                    );
                    if let Some((_, _, first)) = in_answer
                        .iter()
                        .find(|(n, a, _)| *n == key.0 && *a == key.1)
                    {
                        let why = format!(
                            "it repeats call {first} of the same answer, whose result is above"
                        );
                        self.skip(iteration, c, &clip(&why, 200));
                        continue;
                    }
                    in_answer.push((key.0, key.1, c.id.clone()));
                }
                if self.result_bytes >= limits.max_result_bytes {
                    let why = format!(
                        "the tool results of this run reached their budget of {} bytes",
                        limits.max_result_bytes
                    );
                    self.skip(iteration, c, &why);
                    continue;
                }
                let exec = self.handle_call(iteration, c, choice_none, resp.truncated);
                if let Some(ToolExecution {
                    status,
                    needs_input,
                    cancelled: tool_cancelled,
                    awaiting_approval,
                    ..
                }) = &exec
                {
                    if let Some(pending) = awaiting_approval {
                        self.pending_approvals.push(pending.clone());
                    }
                    if status.ran() && !*tool_cancelled {
                        new_keys.push((
                            c.name.clone(),
                            canonical(c.arguments.as_ref().unwrap_or(&Value::Null)),
                        ));
                    }
                    if let (Some(req), None) = (needs_input, &ask) {
                        let q = question_for_user(req, resp.content.as_deref());
                        ask = Some((req.clone(), q));
                    }
                    if *tool_cancelled || self.host.interrupted() {
                        for rest in &calls[i + 1..] {
                            self.skip(iteration, rest, "the run was cancelled");
                        }
                        return cancelled("interrupted during tool execution");
                    }
                }
            }
            self.executed_keys.extend(new_keys);
            if !self.pending_approvals.is_empty() {
                // The calls that wait keep no answer: the run that carries the decisions out
                // adds them to the conversation.
                return Stop {
                    status: ChatStatus::AwaitingApproval,
                    answer: None,
                    error: None,
                };
            }
            if let Some((req, q)) = ask {
                self.needs_input = Some(req);
                self.push(Message::assistant(q.clone()));
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

    /// Answer one call: the engine answers calls it cannot hand over (incomplete, tools
    /// disabled, tool not offered); every other call goes to the host's pipeline, which
    /// validates, authorizes, runs and audits it. Appends the tool message and reports the
    /// record. Returns the host's answer when the host saw the call.
    fn handle_call(
        &mut self,
        iteration: u32,
        c: &ParsedToolCall,
        choice_none: bool,
        truncated: bool,
    ) -> Option<ToolExecution> {
        let refusal = if !c.complete {
            let why = c
                .error
                .clone()
                .unwrap_or_else(|| "the call is incomplete".into());
            let hint = if truncated {
                "The answer was cut off (output token limit). Call the tool again with complete arguments."
            } else {
                "Call the tool again with a JSON object of named arguments."
            };
            Some((
                ToolCallStatus::Invalid,
                format!("Tool call failed: {}. {hint}", clip(&why, 300)),
                why,
            ))
        } else if choice_none {
            Some((
                ToolCallStatus::Denied,
                "Tool call refused: tools are disabled for this request. Answer without calling tools.".to_string(),
                "tool_choice is none".to_string(),
            ))
        } else if !self.tools.iter().any(|t| t.name == c.name) {
            let names: Vec<&str> = self
                .tools
                .iter()
                .map(|t| t.name.as_str())
                .take(50)
                .collect();
            Some((
                ToolCallStatus::Denied,
                format!(
                    "Tool call failed: unknown tool {}. Available tools: {}.",
                    label(&c.name),
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
                "tool not offered in this run".to_string(),
            ))
        } else {
            None
        };
        if let Some((status, content, reason)) = refusal {
            self.answer_unexecuted(iteration, c, status, content, reason);
            return None;
        }
        let call = ToolCall::new(
            c.id.clone(),
            c.name.clone(),
            c.arguments.clone().unwrap_or_else(|| json!({})),
        );
        let t0 = Instant::now();
        let exec = self.host.execute_tool(&call, &c.arguments_raw);
        let latency = t0.elapsed();
        if exec.awaiting_approval.is_some() {
            // Neither run nor refused yet, and no answer in the conversation.
            return Some(exec);
        }
        if exec.status.ran() {
            self.executed += 1;
        } else {
            self.rejected += 1;
        }
        let rec = ToolCallRecord {
            iteration,
            call_id: c.id.clone(),
            name: c.name.clone(),
            arguments_raw: c.arguments_raw.clone(),
            arguments: c.arguments.clone(),
            status: exec.status,
            executed: true,
            validation_errors: exec.validation_errors.clone(),
            reason: exec.cancelled.then(|| "cancelled".to_string()),
            content: exec.content.clone(),
            latency,
        };
        self.result_bytes = self.result_bytes.saturating_add(exec.content.len());
        self.push(Message::tool_result(
            c.id.clone(),
            c.name.clone(),
            exec.content.clone(),
        ));
        self.host.on_tool_call(&rec);
        Some(exec)
    }

    /// Answer a call the host never sees: refused by the engine, or not executed because the
    /// run stops.
    fn answer_unexecuted(
        &mut self,
        iteration: u32,
        c: &ParsedToolCall,
        status: ToolCallStatus,
        content: String,
        reason: String,
    ) {
        self.rejected += 1;
        let rec = ToolCallRecord {
            iteration,
            call_id: c.id.clone(),
            name: c.name.clone(),
            arguments_raw: c.arguments_raw.clone(),
            arguments: c.arguments.clone(),
            status,
            executed: false,
            validation_errors: Value::Array(Vec::new()),
            reason: Some(reason),
            content: content.clone(),
            latency: Duration::ZERO,
        };
        self.push(Message::tool_result(
            c.id.clone(),
            wire_name(&c.name),
            content,
        ));
        self.host.on_tool_call(&rec);
    }

    /// Answer a call that is not executed because the run stops.
    fn skip(&mut self, iteration: u32, c: &ParsedToolCall, why: &str) {
        self.answer_unexecuted(
            iteration,
            c,
            ToolCallStatus::Skipped,
            format!("Tool call not executed: {why}."),
            why.to_string(),
        );
    }

    // -----------------------------------------------------------------------------------------
    // Context management

    /// Prune, then summarize, until the messages fit the window's budget. A history that still
    /// does not fit is sent anyway: the estimate errs on the large side and the provider decides
    /// (its refusal becomes a `context_length` error).
    async fn fit_context(&mut self) -> Result<(), Stop> {
        let room = match &self.window {
            Some(w) => w.room,
            None => return Ok(()),
        };
        // Fits even by the byte bound: nothing to count.
        if self.prompt_bound() <= room {
            return Ok(());
        }
        // `prune` counts without the tools: its budget excludes them.
        let budget = room.saturating_sub(self.tool_tokens());
        if self.history_tokens() <= budget {
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
        let counted = Some(Counted {
            tokens: self.counter.count_message(&req.messages[0])
                + self.counter.count_message(&req.messages[1])
                + HISTORY_BASE_TOKENS,
            exact: true,
        });
        let resp = self
            .exchange(ExchangePurpose::Summary, &req, counted)
            .await?;
        let summary = resp.content.unwrap_or_default();
        if summary.trim().is_empty() {
            return Ok(());
        }
        if apply_summary(&mut self.msgs, range, &summary).is_ok() {
            self.summaries += 1;
            self.recount();
        }
        Ok(())
    }

    // -----------------------------------------------------------------------------------------
    // One LLM request

    /// Send `req`, record the exchange, parse the answer. `Err` ends the run.
    async fn exchange(
        &mut self,
        purpose: ExchangePurpose,
        req: &ChatRequest,
        counted: Option<Counted>,
    ) -> Result<LlmResponse, Stop> {
        // Budgets and rate limits of the host (per role, per interface), before anything is sent.
        if let Err(why) = self.host.before_llm_request(purpose) {
            return Err(Stop::with_error(
                ChatStatus::BudgetExceeded,
                "budget_exceeded",
                why,
            ));
        }
        let p = &self.cfg.provider;
        let body_text = p.body(req).to_string();
        let too_large = body_text.len() > self.cfg.limits.max_request_bytes;
        let mut ex = LlmExchange {
            purpose,
            iteration: self.iterations,
            provider: p.label().to_string(),
            kind: p.kind.as_str(),
            model: p.model.clone(),
            url: self.transport.audit_url(),
            request_body: self.scrub.scrub(&body_text).into_owned(),
            response_body: None,
            http_status: None,
            latency: Duration::ZERO,
            attempts: 0,
            usage: Usage::default(),
            usage_estimated: false,
            counted_prompt_tokens: counted.map(|c| c.tokens),
            finish_reason: None,
            cancelled: false,
            repaired: false,
            fixes: Vec::new(),
            error: None,
            reasoning: None,
        };
        if too_large {
            // Not sent: the audit row keeps the (bounded) body, the run stops with the limit.
            let why = format!(
                "the next LLM request would be {} bytes, more than the limit of {} bytes per request",
                body_text.len(),
                self.cfg.limits.max_request_bytes
            );
            let mut pe = ProviderError::new(ErrorKind::ContextLength, p.label(), None, &why);
            pe.code = Some("request_too_large".into());
            ex.error = Some(pe);
            self.host.on_llm_exchange(&ex);
            return Err(Stop::with_error(
                ChatStatus::BudgetExceeded,
                "request_too_large",
                why,
            ));
        }
        let host = &mut *self.host;
        let deadline = self.deadline;
        let mut interrupt = || host.interrupted() || deadline.is_some_and(|d| Instant::now() >= d);
        let sent = self
            .transport
            .send(body_text, &mut interrupt, deadline)
            .await;
        if let Err(f) = &sent {
            if self.past_deadline() && !self.host.interrupted() {
                // The run's time budget ran out (retries included): its own status.
                (ex.latency, ex.attempts) = match f {
                    Failure::Cancelled { latency, attempts }
                    | Failure::Failed {
                        latency, attempts, ..
                    } => (*latency, *attempts),
                };
                let stop = self.deadline_stop("while waiting for the LLM");
                let why = stop
                    .error
                    .as_ref()
                    .map(|e| e.message.clone())
                    .unwrap_or_default();
                let mut pe = ProviderError::new(ErrorKind::Timeout, p.label(), None, &why);
                pe.code = Some("deadline_exceeded".into());
                ex.error = Some(pe);
                self.host.on_llm_exchange(&ex);
                return Err(stop);
            }
        }
        let reply = match sent {
            Ok(r) => r,
            Err(Failure::Cancelled { latency, attempts }) => {
                (ex.latency, ex.attempts, ex.cancelled) = (latency, attempts, true);
                self.host.on_llm_exchange(&ex);
                return Err(cancelled("interrupted while waiting for the LLM"));
            }
            Err(Failure::Failed {
                kind,
                code,
                message,
                chat_kind,
                latency,
                attempts,
            }) => {
                (ex.latency, ex.attempts) = (latency, attempts);
                let mut pe =
                    ProviderError::new(kind, p.label(), None, &self.scrub.scrub_message(&message));
                pe.code = code;
                return Err(self.failed(ex, pe, chat_kind));
            }
        };
        (ex.latency, ex.attempts, ex.http_status) = (reply.latency, reply.attempts, reply.status);
        // Before anything reads it: the answer, the conversation, audit rows and errors all come
        // from the scrubbed body, scrubbed once: by mcp_http for an HTTP answer (the same
        // secrets: the request's headers and URL carry the provider's key), here for a replay.
        let raw = if reply.scrubbed {
            reply.body
        } else {
            match self.scrub.scrub(&reply.body) {
                std::borrow::Cow::Borrowed(_) => reply.body,
                std::borrow::Cow::Owned(clean) => clean,
            }
        };
        if let Some(s) = reply.status.filter(|s| !(200..300).contains(s)) {
            let mut pe = p.normalize_error(s, &raw, &reply.headers);
            pe.message = self.scrub.scrub_message(&pe.message);
            pe.code = pe.code.map(|c| self.scrub.scrub_message(&c));
            ex.response_body = Some(raw);
            return Err(self.failed(ex, pe, None));
        }

        // The provider's dialect reads its answer (one parse of the body), then the body moves
        // into the record.
        let resp = p.parse_response(&raw, &req.tools);
        ex.response_body = Some(raw);
        ex.finish_reason = Some(resp.finish_reason);
        ex.reasoning = resp.reasoning.clone();
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
                self.estimate_usage(req, counted.filter(|c| c.exact).map(|c| c.tokens), &resp)
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
            pe.http_status = reply.status;
            pe.message = self.scrub.scrub_message(&pe.message);
            return Err(self.failed(ex, pe, None));
        }
        self.host.on_llm_exchange(&ex);
        Ok(resp)
    }

    /// Record a failed exchange; the stop it causes (`chat_kind` overrides the error's kind).
    fn failed(
        &mut self,
        mut ex: LlmExchange,
        pe: ProviderError,
        chat_kind: Option<&'static str>,
    ) -> Stop {
        ex.error = Some(pe.clone());
        self.host.on_llm_exchange(&ex);
        let mut ce = ChatError::from(&pe);
        if let Some(k) = chat_kind {
            ce.kind = k.into();
        }
        Stop::failed(ce)
    }

    /// Token usage counted here when the provider reported none.
    fn estimate_usage(
        &self,
        req: &ChatRequest,
        counted: Option<usize>,
        resp: &LlmResponse,
    ) -> Usage {
        let c = self.counter;
        let prompt = counted.unwrap_or_else(|| {
            HISTORY_BASE_TOKENS
                + req
                    .messages
                    .iter()
                    .map(|m| c.count_message(m))
                    .sum::<usize>()
                + if self.counting {
                    self.tools_tokens
                        .unwrap_or_else(|| count_tools(&req.tools, &c))
                } else {
                    0
                }
        }) as u64;
        let mut completion = c.count_text(resp.content.as_deref().unwrap_or("")) as u64;
        for call in &resp.tool_calls {
            completion +=
                c.count_text(&call.name) as u64 + c.count_text(&call.arguments_raw) as u64;
        }
        Usage {
            prompt_tokens: prompt,
            completion_tokens: completion,
            total_tokens: prompt + completion,
        }
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
    if mcp_tools::is_tool_name(name, false) {
        name.to_string()
    } else {
        "invalid_tool_call".to_string()
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

/// Cut to at most `max` characters, marking the cut with `…` (the one clip helper,
/// [`mcp_audit::clip_chars`]).
fn clip(s: &str, max: usize) -> String {
    mcp_audit::clip_chars(s, max).0
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
