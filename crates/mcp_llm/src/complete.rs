//! The last steps of every parse, the same for each dialect and for `mcp.parse_llm_response`:
//! tool calls and reasoning written into the answer's text ([`crate::extract_text_calls`]), then
//! U+0000 replaced. And [`parse_json_answer`]: the frame of a dialect's parse around its own
//! reading of the JSON shape.

use crate::answer::{empty_body, read_json, replace_nul, shaped, trimmed, unique_ids, FinishReason, LlmResponse};
use crate::text_calls::{extract_text_calls, split_reasoning_only};
use crate::types::ToolDef;
use serde_json::Value;

/// A dialect's parse of a JSON answer: the body trimmed and read (strict, then repaired),
/// `shape` reads the dialect's answer from the value (`raw`: the trimmed text, `truncated`: the
/// body was cut off), then [`complete`].
pub(crate) fn parse_json_answer(
    raw: &str,
    tools: Option<&[ToolDef]>,
    shape: impl FnOnce(&Value, &str, bool) -> Shaped,
) -> LlmResponse {
    let t = trimmed(raw);
    let mut r = if t.is_empty() {
        empty_body()
    } else {
        match read_json(t) {
            Ok((value, repairs, truncated)) => {
                let mut r = match shape(&value, t, truncated) {
                    Shaped::Answer(r) => shaped(r, truncated),
                    Shaped::Final(r) => r,
                };
                r.repairs = repairs;
                r
            }
            Err(r) => r,
        }
    };
    complete(&mut r, raw, tools);
    r
}

/// What a dialect read from a value.
pub(crate) enum Shaped {
    /// An answer: the cut is noted and the finish made consistent ([`crate::answer::shaped`]).
    Answer(LlmResponse),
    /// An error body or an unknown shape, as it stands.
    Final(LlmResponse),
}

/// The steps after a shape was read: tool calls written as text, then U+0000.
pub(crate) fn complete(r: &mut LlmResponse, raw: &str, tools: Option<&[ToolDef]>) {
    text_calls(r, tools);
    replace_nul(r, raw);
}

/// Tool calls and reasoning written into the answer's text (the one path for SQL and chat).
/// Native `tool_calls` win: then only reasoning is split off the text.
fn text_calls(r: &mut LlmResponse, tools: Option<&[ToolDef]>) {
    if r.error.is_some() {
        return;
    }
    let Some(content) = r.content.as_deref() else {
        return;
    };
    let cut = r.truncated || r.finish_reason == FinishReason::Length;
    let native = !r.tool_calls.is_empty();
    let found = if native {
        split_reasoning_only(content)
    } else {
        extract_text_calls(content, tools, cut)
    };
    let Some(found) = found else {
        return;
    };
    if let Some(t) = found.reasoning {
        r.reasoning = Some(match r.reasoning.take() {
            Some(prev) => format!("{prev}\n{t}"),
            None => t,
        });
    }
    r.content = found.content;
    if !native {
        r.tool_calls = found.calls;
        if r.tool_calls.iter().any(|c| c.complete)
            && matches!(r.finish_reason, FinishReason::Stop | FinishReason::Unknown)
        {
            r.finish_reason = FinishReason::ToolCalls;
        }
        unique_ids(r);
    }
}
