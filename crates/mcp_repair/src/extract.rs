//! Extract the JSON from the text around it: find where it is (BOM, SSE `data:` lines, tool-call
//! wrappers, Markdown fences, prose), then run the repairing parser over that region and decide
//! what to do with what follows the first value (NDJSON, several values, trailing prose); ask
//! for the second opinion (`py.rs`) when the first pass doubted a quote.

use crate::chars::*;
use crate::parser::{Parsed, Parser};
use crate::{Fix, RepairError, Repaired};
use serde_json::{Map, Value};

type RResult = Result<Repaired, RepairError>;

/// Entry point for input that failed the strict parse.
pub fn repair_text(input: &str) -> RResult {
    let first = repair_text_inner(input, true, false);
    let doubtful = match &first {
        Err(_) => true,
        Ok(r) => r.fixes.iter().any(|f| f.kind == DOUBT),
    };
    if !doubtful {
        return first;
    }
    let second = repair_text_inner(input, true, true);
    let chosen = match (first, second) {
        (Err(_), second) => second,
        (Ok(first), Err(_)) => Ok(first),
        (Ok(first), Ok(second)) => {
            // the second opinion may not close more strings by guesswork than the first did
            let guessed = |r: &Repaired| {
                r.fixes
                    .iter()
                    .filter(|f| matches!(f.kind, "missing_quote" | "truncated"))
                    .count()
            };
            if guessed(&second) <= guessed(&first) {
                Ok(second)
            } else {
                Ok(first)
            }
        }
    };
    chosen.map(|mut r| {
        r.fixes.retain(|f| f.kind != DOUBT);
        r
    })
}

/// Diagnostics: did the first pass fail or doubt a quote decision?
pub fn first_pass_doubtful(input: &str) -> bool {
    match repair_text_inner(input, true, false) {
        Err(_) => true,
        Ok(r) => r.fixes.iter().any(|f| f.kind == DOUBT),
    }
}

/// Internal marker fix: the first pass doubted a quote (never returned to callers).
const DOUBT: &str = "~doubt";

/// One pass only: the first (`py = false`) or the second-opinion rules (`py = true`).
pub fn repair_text_pass(input: &str, py: bool) -> RResult {
    repair_text_inner(input, true, py).map(|mut r| {
        r.fixes.retain(|f| f.kind != DOUBT);
        r
    })
}

fn repair_text_inner(input: &str, allow_sse: bool, py: bool) -> RResult {
    let mut fixes = Vec::new();
    let mut off = 0;
    if input.starts_with('\u{feff}') {
        fixes.push(Fix {
            kind: "bom",
            position: 0,
        });
        off = 3;
    }
    let text = input.get(off..).unwrap_or("");
    let b = text.as_bytes();
    let ts = skip_plain_ws(b, 0);
    if ts >= b.len() {
        fixes.push(Fix {
            kind: "empty_input",
            position: off,
        });
        return Ok(Repaired {
            value: Value::Object(Map::new()),
            fixes,
        });
    }
    let mut ts = ts;
    // a Markdown list bullet before the value: `- {...}`
    if matches!(at(b, ts), b'-' | b'*')
        && at(b, ts + 1) == b' '
        && matches!(at(b, skip_plain_ws(b, ts + 1)), b'{' | b'[')
    {
        fixes.push(Fix {
            kind: "prose",
            position: off + ts,
        });
        ts = skip_plain_ws(b, ts + 1);
    }
    let rest = &text[ts..];

    // Server-sent events: `data: {...}` lines, `data: [DONE]` skipped.
    if allow_sse && rest.starts_with("data:") {
        return with_fixes(fixes, sse(text, off, py));
    }

    // Mistral's raw control token before the tool-call array.
    if let Some(r) = rest.strip_prefix("[TOOL_CALLS]") {
        fixes.push(Fix {
            kind: "tool_call_wrapper",
            position: off + ts,
        });
        let start = ts + (rest.len() - r.len());
        return with_fixes(
            fixes,
            parse_root_region(text, off, start, RootMode::Plain, py),
        );
    }

    if at(b, ts) == b'<' {
        // Hermes/Qwen style `<tool_call>{...}</tool_call>`, `<|python_tag|>{...}`.
        if let Some(after) = wrapper_tag_end(b, ts) {
            let j = skip_plain_ws(b, after);
            if matches!(at(b, j), b'{' | b'[') {
                fixes.push(Fix {
                    kind: "tool_call_wrapper",
                    position: off + ts,
                });
                return with_fixes(fixes, parse_root_region(text, off, j, RootMode::Prose, py));
            }
        }
        return Err(RepairError {
            position: off + ts,
            message: "input is HTML/XML markup, not JSON".into(),
        });
    }

    // jsonrepair's `[```json … ```]` variant
    if rest.starts_with("[```") || rest.starts_with("{```") {
        return with_fixes(fixes, fenced(text, off, ts + 1, py));
    }

    // Markdown code fences (possibly after prose).
    if let Some(fpos) = find_fence(b, ts) {
        let before_is_json = matches!(at(b, ts), b'{' | b'[' | b'"') && fpos > ts;
        if !before_is_json {
            if fpos > ts {
                fixes.push(Fix {
                    kind: "prose",
                    position: off + ts,
                });
            }
            match fenced(text, off, fpos, py) {
                Ok(r) => return with_fixes(fixes, Ok(r)),
                Err(e) => {
                    if fpos == ts {
                        return Err(e);
                    }
                    fixes.pop();
                }
            }
        }
    }

    if is_json_start(b, ts) {
        return with_fixes(fixes, parse_root_region(text, off, ts, RootMode::Plain, py));
    }

    // Text first. JSONP `cb({...})` / `NumberLong(2)` and short bare text go to the parser;
    // prose followed by a `{` or `[` is skipped; long prose without JSON is an error.
    let ident_end = {
        let mut j = ts;
        while is_ident(at(b, j)) {
            j += 1;
        }
        j
    };
    if ident_end > ts && at(b, skip_plain_ws(b, ident_end)) == b'(' {
        return with_fixes(fixes, parse_root_region(text, off, ts, RootMode::Plain, py));
    }
    let mut tried = 0;
    let mut k = ts;
    let mut last_err = None;
    while let Some(p) = find_open(b, k) {
        if tried >= 4 {
            break;
        }
        tried += 1;
        match parse_root_region(text, off, p, RootMode::Prose, py) {
            Ok(mut r) => {
                let mut f = fixes.clone();
                f.push(Fix {
                    kind: "prose",
                    position: off + ts,
                });
                f.append(&mut r.fixes);
                return Ok(Repaired {
                    value: r.value,
                    fixes: f,
                });
            }
            Err(e) => last_err = Some(e),
        }
        k = p + 1;
    }
    if looks_like_prose(rest) {
        return Err(last_err.unwrap_or(RepairError {
            position: off + ts,
            message: "no JSON value found (plain text)".into(),
        }));
    }
    with_fixes(fixes, parse_root_region(text, off, ts, RootMode::Plain, py))
}

fn with_fixes(mut fixes: Vec<Fix>, r: RResult) -> RResult {
    let mut r = r?;
    if fixes.is_empty() {
        return Ok(r);
    }
    fixes.append(&mut r.fixes);
    r.fixes = fixes;
    Ok(r)
}

fn skip_plain_ws(b: &[u8], mut i: usize) -> usize {
    loop {
        if is_ws(at(b, i)) {
            i += 1;
        } else {
            let l = special_ws_len(b, i);
            if l == 0 {
                return i;
            }
            i += l;
        }
    }
}

fn is_json_start(b: &[u8], i: usize) -> bool {
    let c = at(b, i);
    matches!(
        c,
        b'{' | b'[' | b'(' | b'"' | b'-' | b'.' | b'/' | b'#' | b'\\'
    ) || c.is_ascii_digit()
        || is_quote(b, i) && c != b'`'
}

fn find_open(b: &[u8], from: usize) -> Option<usize> {
    b.get(from..)?
        .iter()
        .position(|&c| c == b'{' || c == b'[')
        .map(|p| p + from)
}

fn find_fence(b: &[u8], from: usize) -> Option<usize> {
    let hay = b.get(from..)?;
    hay.windows(3).position(|w| w == b"```").map(|p| p + from)
}

/// `<tool_call>`, `<function_call>`, `<|python_tag|>`… → end of the tag.
fn wrapper_tag_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < b.len()
        && j - i < 40
        && (b[j].is_ascii_alphanumeric() || matches!(b[j], b'_' | b'|' | b'-'))
    {
        j += 1;
    }
    if at(b, j) == b'>' && j > i + 1 {
        let name = std::str::from_utf8(&b[i + 1..j]).ok()?.to_ascii_lowercase();
        if name.contains("tool")
            || name.contains("function")
            || name.contains("python_tag")
            || name == "json"
        {
            return Some(j + 1);
        }
    }
    None
}

fn looks_like_prose(s: &str) -> bool {
    let t = s.trim();
    let words = t.split_whitespace().count();
    words >= 5 || (words >= 2 && t.ends_with(['.', '!', '?']))
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum RootMode {
    /// The whole input is meant to be JSON (jsonrepair rules: NDJSON, redundant brackets).
    Plain,
    /// JSON embedded in prose: first value wins, anything after it is ignored.
    Prose,
    /// Inside a Markdown fence: stop at the closing fence.
    Fenced,
}

/// Parse the root value(s) of `text[start..]`.
fn parse_root_region(text: &str, off: usize, start: usize, mode: RootMode, py: bool) -> RResult {
    let mut p = Parser::new(text, off);
    p.py = py;
    p.i = start;
    let (v, _) = parse_root(&mut p, mode)?;
    if p.second_opinion_exhausted() {
        return Err(p.err(p.i, "look-ahead budget spent"));
    }
    if p.doubt > 0 {
        p.fix(DOUBT, start);
    }
    Ok(Repaired {
        value: v,
        fixes: std::mem::take(&mut p.fixes),
    })
}

fn starts_with_fence(p: &Parser) -> bool {
    p.b.get(p.i..p.i + 3) == Some(b"```")
}

/// Parse the root value and what follows. Returns the value and whether a closing fence ended it.
fn parse_root(p: &mut Parser, mode: RootMode) -> Result<(Value, bool), RepairError> {
    p.skip_ws(true);
    let first_pos = p.i;
    let first = match p.parse_root_value()? {
        Some(v) => v,
        None => {
            if p.eof() {
                return Err(p.err(p.i, "no JSON value found (unexpected end of input)"));
            }
            return Err(p.err(
                p.i,
                format!(
                    "no JSON value found (unexpected character {:?})",
                    p.s.get(p.i..).and_then(|s| s.chars().next()).unwrap_or(' ')
                ),
            ));
        }
    };
    let first_unquoted = matches!(first, Parsed::Unquoted(_));
    let mut values = vec![first.into_value()];
    // per value: was it separated from the one before by a comma?
    let mut comma_before = vec![false];
    let mut newline_sep = false;
    let mut closed_by_fence = false;
    loop {
        p.nl_seen = false;
        p.skip_ws(true);
        if p.nl_seen {
            newline_sep = true;
        }
        if starts_with_fence(p) {
            p.fix("code_fence", p.i);
            while p.c() == b'`' {
                p.i += 1;
            }
            closed_by_fence = true;
            break;
        }
        if p.eof() {
            break;
        }
        let mut comma = false;
        if p.c() == b',' {
            comma = true;
            p.i += 1;
            let ws2 = p.i;
            p.skip_ws(true);
            if p.b.get(ws2..p.i).is_some_and(|w| w.contains(&b'\n')) {
                newline_sep = true;
            }
            if p.eof() {
                p.fix("trailing_comma", ws2 - 1);
                break;
            }
        }
        if p.c() == b';' {
            p.fix("trailing_text", p.i);
            p.i += 1;
            continue;
        }
        // `{"a": 1}, "b": 2}` → members continue the root object (json_repair)
        if values.len() == 1 && mode != RootMode::Prose {
            if let Value::Object(_) = values[0] {
                if is_quote(p.b, p.i) && looks_like_member(p) {
                    p.fix("merged_object", p.i);
                    let Value::Object(map) = std::mem::take(&mut values[0]) else {
                        unreachable!()
                    };
                    values[0] = p.continue_object(map, first_pos)?;
                    continue;
                }
            }
        }
        if matches!(p.c(), b'}' | b']') {
            p.fix("redundant_bracket", p.i);
            p.i += 1;
            continue;
        }
        if mode == RootMode::Prose {
            p.fix("trailing_text", p.i);
            break;
        }
        let c = p.c();
        let container_next = matches!(c, b'{' | b'[');
        let allowed = if first_unquoted || !matches!(values[0], Value::Object(_) | Value::Array(_))
        {
            is_start_of_value(p.b, p.i) && (comma || newline_sep)
        } else {
            container_next
                || ((comma || newline_sep)
                    && (is_quote(p.b, p.i) || c.is_ascii_digit())
                    && c != b'`')
        };
        if !allowed {
            p.fix("trailing_text", p.i);
            break;
        }
        let vpos = p.i;
        let before = p.i;
        match p.parse_root_value()? {
            Some(v) => {
                p.fix("multiple_values", vpos);
                values.push(v.into_value());
                comma_before.push(comma);
            }
            None => {
                p.i = before;
                p.fix("trailing_text", p.i);
                break;
            }
        }
    }
    let _ = mode;
    let v = if values.len() == 1 {
        values.pop().unwrap_or(Value::Null)
    } else if newline_sep {
        Value::Array(values)
    } else {
        // json_repair: several concatenated values; empty containers are dropped, and a value
        // of the same shape as the one before replaces it (`[{"k":1}][{"k":2}]`: an update)
        let mut kept: Vec<Value> = Vec::new();
        for (v, comma) in values.into_iter().zip(comma_before) {
            if kept.is_empty() {
                kept.push(v);
                continue;
            }
            if is_empty_container(&v) {
                continue;
            }
            if let Some(last) = kept.last() {
                let container = matches!(last, Value::Object(_) | Value::Array(_));
                if is_empty_container(last) || (!comma && container && same_shape(last, &v)) {
                    kept.pop();
                }
            }
            kept.push(v);
        }
        if kept.len() == 1 {
            kept.pop().unwrap_or(Value::Null)
        } else {
            Value::Array(kept)
        }
    };
    Ok((v, closed_by_fence))
}

/// json_repair's `is_same_object`: same type, same keys, same array lengths, all the way down
/// (an explicit work list, not recursion).
fn same_shape(a: &Value, b: &Value) -> bool {
    let mut todo: Vec<(&Value, &Value)> = vec![(a, b)];
    while let Some((a, b)) = todo.pop() {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                for (k, v) in x {
                    match y.get(k) {
                        Some(w) => todo.push((v, w)),
                        None => return false,
                    }
                }
            }
            (Value::Array(x), Value::Array(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                todo.extend(x.iter().zip(y));
            }
            (Value::Null, Value::Null) | (Value::Bool(_), Value::Bool(_)) => {}
            (Value::Number(_), Value::Number(_)) | (Value::String(_), Value::String(_)) => {}
            _ => return false,
        }
    }
    true
}

fn is_empty_container(v: &Value) -> bool {
    match v {
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// At a quote: is this `"key" :` (or `"key" "value"`)? Lookahead only over the key string.
fn looks_like_member(p: &Parser) -> bool {
    let b = p.b;
    let Some((q, ql)) = quote_at(b, p.i) else {
        return false;
    };
    let mut j = p.i + ql;
    let limit = (p.i + 4096).min(b.len());
    while j < limit {
        if b[j] == b'\\' {
            j += 2;
            continue;
        }
        let l = end_quote_len(b, j, q);
        if l > 0 {
            let mut k = j + l;
            while is_ws(at(b, k)) {
                k += 1;
            }
            return at(b, k) == b':' || is_quote(b, k);
        }
        if b[j] == b'\n' {
            return false;
        }
        j += 1;
    }
    false
}

/// Markdown fences: collect the values of the json (or untagged) blocks.
fn fenced(text: &str, off: usize, first_fence: usize, py: bool) -> RResult {
    let b = text.as_bytes();
    let mut blocks: Vec<(String, usize)> = Vec::new(); // (tag, content start)
    let mut k = first_fence;
    // pass 1: find blocks and their tags (closing fence = next ``` after the opening line)
    let mut spans = Vec::new();
    while let Some(f) = find_fence(b, k) {
        let mut j = f;
        while at(b, j) == b'`' {
            j += 1;
        }
        let tag_start = j;
        while is_ident(at(b, j)) || at(b, j) == b'-' {
            j += 1;
        }
        let tag = text.get(tag_start..j).unwrap_or("").to_ascii_lowercase();
        let content = j;
        let close = find_fence(b, content).unwrap_or(b.len());
        spans.push((tag.clone(), content, close));
        blocks.push((tag, content));
        let mut after = close;
        while at(b, after) == b'`' {
            after += 1;
        }
        if after >= b.len() || spans.len() > 64 {
            break;
        }
        k = after;
    }
    let is_json_tag = |t: &str| t.starts_with("json");
    let tagged: Vec<&(String, usize, usize)> = spans.iter().filter(|s| is_json_tag(&s.0)).collect();
    let untagged: Vec<&(String, usize, usize)> = spans.iter().filter(|s| s.0.is_empty()).collect();
    let mut cands: Vec<&(String, usize, usize)> = spans
        .iter()
        .filter(|s| is_json_tag(&s.0) || s.0.is_empty())
        .collect();
    if tagged.is_empty() && untagged.is_empty() {
        cands = spans.iter().collect();
    }
    let mut values = Vec::new();
    let mut fixes = vec![Fix {
        kind: "code_fence",
        position: off + first_fence,
    }];
    let mut next_min = 0;
    let mut first_err = None;
    for (_, content, _) in cands {
        if *content < next_min {
            continue;
        }
        let mut p = Parser::new(text, off);
        p.py = py;
        p.i = *content;
        match parse_root(&mut p, RootMode::Fenced) {
            Ok(_) if p.second_opinion_exhausted() => {
                return Err(p.err(p.i, "look-ahead budget spent"));
            }
            Ok((v, _)) => {
                if p.doubt > 0 {
                    p.fix(DOUBT, *content);
                }
                values.push(v);
                fixes.append(&mut p.fixes);
                next_min = p.i;
            }
            Err(e) => {
                if first_err.is_none() {
                    first_err = Some(e);
                }
            }
        }
    }
    match values.len() {
        0 => Err(first_err.unwrap_or(RepairError {
            position: off + first_fence,
            message: "empty code block".into(),
        })),
        1 => Ok(Repaired {
            value: values.pop().unwrap_or(Value::Null),
            fixes,
        }),
        _ => {
            fixes.push(Fix {
                kind: "multiple_values",
                position: off + first_fence,
            });
            Ok(Repaired {
                value: Value::Array(values),
                fixes,
            })
        }
    }
}

/// Server-sent events / `data:` lines: each payload repaired on its own; one → value, several →
/// array; `[DONE]` skipped.
fn sse(text: &str, off: usize, py: bool) -> RResult {
    let mut values = Vec::new();
    let mut fixes = vec![Fix {
        kind: "sse",
        position: off,
    }];
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let lstart = pos;
        pos += line.len();
        let t = line.trim_start();
        let Some(payload) = t.strip_prefix("data:") else {
            continue;
        };
        let p0 = lstart + (line.len() - t.len()) + 5;
        let payload_t = payload.trim();
        if payload_t.is_empty() || payload_t == "[DONE]" {
            continue;
        }
        let lead = payload.len() - payload.trim_start().len();
        let start = p0 + lead;
        let end = start + payload_t.len();
        let slice = &text[start..end];
        match serde_json::from_str::<Value>(slice) {
            Ok(v) => values.push(v),
            Err(_) => {
                let r = repair_text_inner(slice, false, py).map_err(|e| RepairError {
                    position: e.position + off + start,
                    message: e.message,
                })?;
                values.push(r.value);
                fixes.extend(r.fixes.into_iter().map(|f| Fix {
                    kind: f.kind,
                    position: f.position + off + start,
                }));
            }
        }
    }
    match values.len() {
        0 => Err(RepairError {
            position: off,
            message: "no data in server-sent events".into(),
        }),
        1 => Ok(Repaired {
            value: values.pop().unwrap_or(Value::Null),
            fixes,
        }),
        _ => Ok(Repaired {
            value: Value::Array(values),
            fixes,
        }),
    }
}
