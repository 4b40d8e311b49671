//! Context budgeting: token counting, pruning of old tool results, and summarization of
//! whole leading turns when pruning is not enough.
//!
//! Token counts: OpenAI-family models (anything `tiktoken_rs::tokenizer::get_tokenizer` knows,
//! e.g. `gpt-4o*` → o200k_base, `gpt-4*`/`gpt-3.5*` → cl100k_base, also behind a `provider/`
//! prefix) use the real BPE, embedded in the binary and initialized once on first use. All
//! other models (Claude, Mistral, Llama, arbitrary Azure deployment names) use a chars-based
//! estimate: one token per [`ESTIMATE_CHARS_PER_TOKEN`] ASCII characters, one per 2-byte
//! character (umlauts, Cyrillic, Greek), 1.5 per CJK character, 3 per emoji/4-byte character,
//! rounded up. Deliberately pessimistic (English prose is ~4 chars/token, German and JSON ~3;
//! cl100k needs up to ~1.3 tokens per CJK character) so a budget computed with it errs on the
//! safe side.
//!
//! Cost (debug build, this machine): first use of o200k_base ~0.75 s (cl100k ~0.3 s) per
//! process, then ~0.5 ms per 1 KB of text and ~85 ms per 110 KB tool result. The estimate
//! costs nothing to set up; it can serve as a pre-check before exact counting.

use crate::types::{Message, Role, ToolDef};
use serde::Serialize;
use std::ops::Range;
use tiktoken_rs::tokenizer::{get_tokenizer, Tokenizer};
use tiktoken_rs::CoreBPE;

/// Characters per token assumed by the estimate.
pub const ESTIMATE_CHARS_PER_TOKEN: f64 = 3.0;
/// Per-message framing (role, separators), as in OpenAI's cookbook counting.
pub const MESSAGE_OVERHEAD_TOKENS: usize = 4;
/// Per tool call / tool definition framing.
pub const TOOL_OVERHEAD_TOKENS: usize = 8;
/// Tokens a summary is expected to take when choosing how much to summarize.
pub const SUMMARY_RESERVE_TOKENS: usize = 400;
/// Texts longer than this are counted in pieces (split at whitespace) so BPE merging stays
/// linear on huge tool results; the error is at most a token per piece.
const BPE_CHUNK_BYTES: usize = 16 * 1024;
/// A run without whitespace longer than this is counted in pieces of this size: BPE merging is
/// quadratic in the length of one pre-tokenized piece, and a piece is a run without whitespace
/// (16 KB of `x` took ~0.1 s, 1 MB of them in the chunker 32 s). Words of real text are far
/// shorter, so their counts do not change; a long run is over-counted by at most a token per
/// cut, which keeps every limit on the safe side.
const BPE_RUN_BYTES: usize = 256;
/// Start of the marker that replaces a pruned tool result.
pub const PRUNED_MARKER_PREFIX: &str = "[tool result pruned:";

/// Anything that counts tokens.
pub trait CountTokens {
    fn count_text(&self, text: &str) -> usize;

    /// Tokens of one message as sent: framing, content, tool calls (name + arguments JSON),
    /// tool_call_id.
    fn count_message(&self, m: &Message) -> usize {
        let mut n = MESSAGE_OVERHEAD_TOKENS + self.count_text(m.text());
        for c in &m.tool_calls {
            n += TOOL_OVERHEAD_TOKENS + self.count_text(&c.id) + self.count_text(&c.name);
            n += self.count_text(&c.arguments_string());
        }
        if let Some(id) = &m.tool_call_id {
            n += self.count_text(id);
        }
        n
    }
}

/// The counter for a model: real BPE or the chars estimate.
#[derive(Clone, Copy)]
pub enum TokenCounter {
    Bpe {
        bpe: &'static CoreBPE,
        encoding: &'static str,
    },
    Estimate {
        chars_per_token: f64,
    },
}

impl std::fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TokenCounter({})", self.encoding())
    }
}

impl TokenCounter {
    /// BPE for OpenAI-family model names, the estimate for everything else.
    pub fn for_model(model: &str) -> TokenCounter {
        let m = model.trim().to_ascii_lowercase();
        let base = m.rsplit('/').next().unwrap_or(&m);
        match get_tokenizer(base).or_else(|| get_tokenizer(&m)) {
            Some(t) => Self::bpe(t),
            None => Self::estimate(),
        }
    }

    fn bpe(t: Tokenizer) -> TokenCounter {
        use tiktoken_rs::*;
        let (bpe, encoding) = match t {
            Tokenizer::O200kHarmony => (o200k_harmony_singleton(), "o200k_harmony"),
            Tokenizer::O200kBase => (o200k_base_singleton(), "o200k_base"),
            Tokenizer::Cl100kBase => (cl100k_base_singleton(), "cl100k_base"),
            Tokenizer::P50kBase => (p50k_base_singleton(), "p50k_base"),
            Tokenizer::P50kEdit => (p50k_edit_singleton(), "p50k_edit"),
            Tokenizer::R50kBase | Tokenizer::Gpt2 => (r50k_base_singleton(), "r50k_base"),
        };
        TokenCounter::Bpe { bpe, encoding }
    }

    /// The chars-based estimate ([`ESTIMATE_CHARS_PER_TOKEN`]).
    pub fn estimate() -> TokenCounter {
        TokenCounter::Estimate {
            chars_per_token: ESTIMATE_CHARS_PER_TOKEN,
        }
    }

    /// `o200k_base`, `cl100k_base`, … or `estimate`.
    pub fn encoding(&self) -> &'static str {
        match self {
            TokenCounter::Bpe { encoding, .. } => encoding,
            TokenCounter::Estimate { .. } => "estimate",
        }
    }

    pub fn is_exact(&self) -> bool {
        matches!(self, TokenCounter::Bpe { .. })
    }

    /// An upper bound of [`CountTokens::count_text`] that costs nothing: the text's bytes (a
    /// BPE token is at least one byte of the text; the estimate gives at most one token per
    /// byte whenever it assumes at least one character per token).
    pub fn text_bound(&self, text: &str) -> usize {
        match self {
            TokenCounter::Estimate { chars_per_token } if *chars_per_token < 1.0 => self.count_text(text),
            _ => text.len(),
        }
    }

    /// An upper bound of [`CountTokens::count_message`] from the text bounds: lets a caller
    /// skip the exact count of a history that fits its limit even by this bound.
    pub fn message_bound(&self, m: &Message) -> usize {
        let mut n = MESSAGE_OVERHEAD_TOKENS + self.text_bound(m.text());
        for c in &m.tool_calls {
            n += TOOL_OVERHEAD_TOKENS + self.text_bound(&c.id) + self.text_bound(&c.name);
            n += self.text_bound(&c.arguments_string());
        }
        if let Some(id) = &m.tool_call_id {
            n += self.text_bound(id);
        }
        n
    }

    /// An upper bound of [`count_tools`].
    pub fn tools_bound(&self, tools: &[ToolDef]) -> usize {
        tools
            .iter()
            .map(|t| {
                TOOL_OVERHEAD_TOKENS
                    + self.text_bound(&t.name)
                    + self.text_bound(&t.description)
                    + self.text_bound(&t.parameters.to_string())
            })
            .sum()
    }
}

impl CountTokens for TokenCounter {
    fn count_text(&self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        match self {
            TokenCounter::Bpe { bpe, .. } => chunks(text, BPE_CHUNK_BYTES)
                .map(|c| {
                    // a chunk takes up to a few milliseconds: let the host check for cancel
                    mcp_repair::guard::poll();
                    runs_cut(c, BPE_RUN_BYTES)
                        .map(|p| bpe.encode_ordinary(p).len())
                        .sum::<usize>()
                })
                .sum(),
            TokenCounter::Estimate { chars_per_token } => {
                let cpt = if *chars_per_token > 0.0 {
                    *chars_per_token
                } else {
                    ESTIMATE_CHARS_PER_TOKEN
                };
                let (mut ascii, mut narrow, mut wide, mut astral) = (0usize, 0usize, 0usize, 0usize);
                for ch in text.chars() {
                    match ch.len_utf8() {
                        1 => ascii += 1,
                        2 => narrow += 1,
                        3 => wide += 1,
                        _ => astral += 1,
                    }
                }
                // Non-ASCII characters tokenize worse than ASCII: one token each for Latin
                // extensions, Cyrillic, Greek, Arabic (2-byte UTF-8), one and a half for CJK
                // (3-byte), three for emoji and other 4-byte characters (byte-level tokens).
                (ascii as f64 / cpt + narrow as f64 + wide as f64 * 1.5 + astral as f64 * 3.0).ceil() as usize
            }
        }
    }
}

/// Split at whitespace (or any char boundary) into pieces of at most about `max` bytes.
/// `text` in consecutive pieces, cut inside every run without whitespace at each `max` bytes
/// of the run (at a char boundary); text without such runs is one piece.
fn runs_cut(text: &str, max: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut run = 0usize;
        for (i, ch) in rest.char_indices() {
            if ch.is_whitespace() {
                run = 0;
            } else {
                if run >= max && i > 0 {
                    let (a, b) = rest.split_at(i);
                    rest = b;
                    return Some(a);
                }
                run += ch.len_utf8();
            }
        }
        let r = rest;
        rest = "";
        Some(r)
    })
}

fn chunks(text: &str, max: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        if rest.len() <= max {
            let r = rest;
            rest = "";
            return Some(r);
        }
        let mut cut = max;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        // Prefer a whitespace boundary within the last 1 KiB of the piece.
        let window_start = cut.saturating_sub(1024);
        if let Some(ws) = rest[..cut].rfind(char::is_whitespace) {
            if ws > window_start && ws > 0 {
                cut = ws;
            }
        }
        let (a, b) = rest.split_at(cut);
        rest = b;
        Some(a)
    })
}

/// Tokens of `text` for `model` (see [`TokenCounter::for_model`]).
pub fn count_tokens(model: &str, text: &str) -> usize {
    TokenCounter::for_model(model).count_text(text)
}

/// Tokens of a whole history.
pub fn count_messages<C: CountTokens + ?Sized>(messages: &[Message], counter: &C) -> usize {
    messages.iter().map(|m| counter.count_message(m)).sum::<usize>() + 3
}

/// Tokens the tool definitions take in the prompt.
pub fn count_tools<C: CountTokens + ?Sized>(tools: &[ToolDef], counter: &C) -> usize {
    tools
        .iter()
        .map(|t| {
            TOOL_OVERHEAD_TOKENS
                + counter.count_text(&t.name)
                + counter.count_text(&t.description)
                + counter.count_text(&t.parameters.to_string())
        })
        .sum()
}

/// Context window of well-known models (input + output tokens); `None` when unknown (the caller
/// then uses a configured value).
pub fn context_window(model: &str) -> Option<usize> {
    let m = model.trim().to_ascii_lowercase();
    let base = m.rsplit('/').next().unwrap_or(&m);
    if let Some(n) = tiktoken_rs::model::get_context_size(base) {
        return Some(n);
    }
    let known: &[(&str, usize)] = &[
        ("claude-", 200_000),
        ("mistral-large", 128_000),
        ("mistral-medium", 128_000),
        ("mistral-small", 32_000),
        ("ministral", 128_000),
        ("codestral", 256_000),
        ("open-mistral-nemo", 128_000),
        ("llama3.1", 128_000),
        ("llama-3.1", 128_000),
        ("llama3.2", 128_000),
        ("llama3", 8_192),
        ("qwen2.5", 32_768),
    ];
    known.iter().find(|(p, _)| base.starts_with(p)).map(|(_, n)| *n)
}

// ---------------------------------------------------------------------------------------------
// Pruning

/// One tool result whose content was replaced by a marker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PrunedResult {
    pub index: usize,
    pub tool_call_id: Option<String>,
    pub tool: String,
    pub tokens_dropped: usize,
}

/// What [`prune`] did and what is left to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PruneReport {
    pub budget: usize,
    pub tokens_before: usize,
    pub tokens_after: usize,
    pub pruned: Vec<PrunedResult>,
    /// Still over budget: the leading range of whole turns (message indices) the caller should
    /// have the LLM summarize and then pass to [`apply_summary`]. `None` when it fits or nothing
    /// can be summarized.
    pub summarize: Option<Range<usize>>,
    /// Tokens in `summarize`.
    pub summarize_tokens: usize,
    /// `tokens_after <= budget`.
    pub fits: bool,
}

/// Turns: an assistant message with tool calls together with the tool results right after it;
/// every other message is a turn of its own.
pub fn turns(messages: &[Message]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < messages.len() {
        let mut j = i + 1;
        if messages[i].role == Role::Assistant && messages[i].has_tool_calls() {
            while j < messages.len() && messages[j].role == Role::Tool {
                j += 1;
            }
        }
        out.push(i..j);
        i = j;
    }
    out
}

/// Indices never touched: system prompts, the first and the last user message, the last turn.
fn protected(messages: &[Message], turns: &[Range<usize>]) -> Vec<bool> {
    let mut p: Vec<bool> = messages.iter().map(|m| m.role == Role::System).collect();
    if let Some(i) = messages.iter().position(|m| m.role == Role::User) {
        p[i] = true;
    }
    if let Some(i) = messages.iter().rposition(|m| m.role == Role::User) {
        p[i] = true;
    }
    if let Some(last) = turns.last() {
        for i in last.clone() {
            p[i] = true;
        }
    }
    p
}

/// Name of the tool that produced tool message `i` (its `name`, else the matching call).
fn tool_name(messages: &[Message], i: usize) -> String {
    if let Some(n) = messages[i].name.as_deref().filter(|n| !n.is_empty()) {
        return n.to_string();
    }
    if let Some(id) = &messages[i].tool_call_id {
        for m in messages[..i].iter().rev() {
            if let Some(c) = m.tool_calls.iter().find(|c| &c.id == id) {
                return c.name.clone();
            }
        }
    }
    "tool".to_string()
}

/// The text that replaces a pruned tool result.
pub fn pruned_marker(tokens: usize, tool: &str) -> String {
    format!("{PRUNED_MARKER_PREFIX} {tokens} tokens from {tool} dropped to fit the context window]")
}

/// Fit `messages` into `budget_tokens`: replace the content of the oldest tool results with a
/// marker (never the system prompt(s), the first or the last user message, or the latest turn;
/// messages are never removed, so no tool call loses its answer). If that is not enough, the
/// report names the leading range of whole turns to summarize (see [`apply_summary`]).
pub fn prune<C: CountTokens + ?Sized>(messages: &mut Vec<Message>, budget_tokens: usize, counter: &C) -> PruneReport {
    let mut counts: Vec<usize> = messages.iter().map(|m| counter.count_message(m)).collect();
    let base = 3;
    let tokens_before = base + counts.iter().sum::<usize>();
    let mut total = tokens_before;
    let ts = turns(messages);
    let prot = protected(messages, &ts);
    let mut pruned = Vec::new();
    if total > budget_tokens {
        for i in 0..messages.len() {
            if total <= budget_tokens {
                break;
            }
            let m = &messages[i];
            if prot[i] || m.role != Role::Tool || m.text().starts_with(PRUNED_MARKER_PREFIX) {
                continue;
            }
            let tool = tool_name(messages, i);
            let content_tokens = counter.count_text(messages[i].text());
            let mut replaced = messages[i].clone();
            replaced.content = Some(pruned_marker(content_tokens, &tool));
            let new_count = counter.count_message(&replaced);
            if new_count >= counts[i] {
                continue;
            }
            total -= counts[i] - new_count;
            pruned.push(PrunedResult {
                index: i,
                tool_call_id: messages[i].tool_call_id.clone(),
                tool,
                tokens_dropped: counts[i] - new_count,
            });
            counts[i] = new_count;
            messages[i] = replaced;
        }
    }
    let mut report = PruneReport {
        budget: budget_tokens,
        tokens_before,
        tokens_after: total,
        pruned,
        summarize: None,
        summarize_tokens: 0,
        fits: total <= budget_tokens,
    };
    if report.fits {
        return report;
    }
    // Leading turns after the first user question, up to the first protected one.
    let start = match messages.iter().position(|m| m.role == Role::User) {
        Some(i) => i + 1,
        None => messages
            .iter()
            .position(|m| m.role != Role::System)
            .unwrap_or(messages.len()),
    };
    let mut end = start;
    let mut tokens = 0;
    for t in ts.iter().filter(|t| t.start >= start) {
        if t.clone().any(|i| prot[i]) {
            break;
        }
        end = t.end;
        tokens += t.clone().map(|i| counts[i]).sum::<usize>();
        if total.saturating_sub(tokens) + SUMMARY_RESERVE_TOKENS <= budget_tokens {
            break;
        }
    }
    if end > start {
        report.summarize = Some(start..end);
        report.summarize_tokens = tokens;
    }
    report
}

/// Prefix of the message that replaces summarized turns.
pub const SUMMARY_PREFIX: &str = "[summary of earlier steps]";

/// Replace the turns in `range` with one assistant message carrying `summary`. The range is
/// widened to whole turns (an assistant tool-call message and its tool results go together);
/// it may not include a system prompt. Returns the range actually replaced.
pub fn apply_summary(messages: &mut Vec<Message>, range: Range<usize>, summary: &str) -> Result<Range<usize>, String> {
    let n = messages.len();
    if range.start >= range.end || range.end > n {
        return Err(format!(
            "invalid summary range {}..{} for {} messages",
            range.start, range.end, n
        ));
    }
    let mut start = range.start;
    while start > 0 && messages[start].role == Role::Tool {
        start -= 1;
    }
    let mut end = range.end;
    while end < n && messages[end].role == Role::Tool {
        end += 1;
    }
    if messages[start..end].iter().any(|m| m.role == Role::System) {
        return Err("a summary range may not include a system prompt".into());
    }
    let text = format!("{SUMMARY_PREFIX}\n{}", summary.trim());
    messages.splice(start..end, std::iter::once(Message::assistant(text)));
    Ok(start..end)
}

/// Plain-text rendering of `range` for the summarization request.
pub fn render_for_summary(messages: &[Message], range: Range<usize>) -> String {
    let end = range.end.min(messages.len());
    let start = range.start.min(end);
    let mut out = String::new();
    for m in &messages[start..end] {
        match m.role {
            Role::Tool => {
                let name = m.name.clone().unwrap_or_else(|| "tool".into());
                out.push_str(&format!("Tool result ({name}): {}\n", m.text()));
            }
            _ => {
                if !m.text().is_empty() {
                    out.push_str(&format!("{}: {}\n", m.role.as_str(), m.text()));
                }
                for c in &m.tool_calls {
                    out.push_str(&format!("assistant called {} with {}\n", c.name, c.arguments_string()));
                }
            }
        }
    }
    out
}
