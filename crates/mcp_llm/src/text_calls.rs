//! Tool calls written as text: open models (behind Ollama, vLLM, SGLang, llama.cpp) whose server
//! did not turn their markup into `tool_calls` leave it in `content`. This module finds those
//! calls, detected by the markers present (never by the model's name, so renamed fine-tunes
//! work), splits reasoning (`<think>`, `[THINK]`, Harmony's analysis channel) off the answer,
//! and marks every call that must not run as incomplete.
//!
//! The formats are those of the models' official chat templates; `docs/text-tool-calls.md`
//! lists them with their variants and what is deliberately not supported.
//!
//! Safety rules, applied to every family alike:
//! - a call is complete (executable) only when its name is a plausible tool name, is one of
//!   the offered tools when the request's tools are known, and its arguments decode into an
//!   object; everything else is returned incomplete with the reason, never dropped, so the
//!   chat answers it with a correction;
//! - the end of a JSON body is found by a string-aware scan: a marker inside a JSON string is
//!   not a call boundary; reasoning is removed before any call is looked for;
//! - a call not closed when the answer was cut off (`finish_reason = length`, a truncated
//!   body) is incomplete, and so is one whose arguments had to be closed by the repair engine;
//! - formats without markers (a bare JSON object, a pythonic list) are accepted only as the
//!   whole content and only when every name is an offered tool.
//!
//! Answers without any of the marker characters (`<`, `[`, `{` at the start) are not looked
//! at beyond one `memchr` pass.

use crate::answer::{decode_args_text, parse_items_text, Args, ParsedToolCall};
use crate::types::ToolDef;
use mcp_audit::clip_chars;
use serde_json::{Map, Number, Value};

/// What was found in an answer's text.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TextCalls {
    /// The answer without reasoning and call markup (`None` when nothing is left).
    pub content: Option<String>,
    /// Reasoning the model wrote before (or between) its answer and calls.
    pub reasoning: Option<String>,
    /// The calls, in order; incomplete ones carry their reason in `error`.
    pub calls: Vec<ParsedToolCall>,
    /// The family whose markers were found (`hermes`, `deepseek`, `harmony`, …).
    pub format: Option<&'static str>,
}

/// Longest tool name accepted from text (OpenAI allows 64; the registry does not go beyond).
const MAX_NAME: usize = 128;
/// Nesting accepted in the value syntaxes parsed here (pythonic, Gemma); deeper is malformed.
const MAX_DEPTH: usize = 64;

/// Find the tool calls, the reasoning and the remaining answer in `text`.
///
/// `tools`: the tools offered in the request (names and JSON Schemas): names are checked
/// against them and XML-style parameter values are typed by their schemas. `None` when they
/// are unknown (`mcp.parse_llm_response` without `tools`): names are then only checked for
/// their form, and the marker-less formats are not recognized. `cut`: the answer was cut off
/// (`finish_reason = length` or a truncated body).
///
/// `None` when the text holds neither reasoning nor calls (the common case: an answer).
pub fn extract_text_calls(text: &str, tools: Option<&[ToolDef]>, cut: bool) -> Option<TextCalls> {
    if !maybe_marked(text) {
        return None;
    }
    let cx = Cx { tools, cut };
    let mut out = Out::default();
    let (reasoning, rest) = split_reasoning(text);
    if let Some(r) = reasoning {
        out.reasoning.push(r);
    }
    let found = if let Some((fam, at)) = earliest_family(rest) {
        out.format = Some(fam.name);
        out.content.push_str(&rest[..at]);
        (fam.parse)(&rest[at..], &cx, &mut out);
        true
    } else if let Some(calls) = bare_calls(rest, &cx) {
        out.format = Some(calls.0);
        out.calls = calls.1;
        true
    } else {
        out.content.push_str(rest);
        false
    };
    if !found && out.reasoning.is_empty() {
        return None;
    }
    for (i, c) in out.calls.iter_mut().enumerate() {
        if c.id.is_empty() {
            c.id = format!("call_{i}");
        }
        check_name(c, &cx);
    }
    let content = out.content.trim();
    let reasoning = out.reasoning.join("\n");
    let reasoning = reasoning.trim();
    Some(TextCalls {
        content: (!content.is_empty()).then(|| content.to_string()),
        reasoning: (!reasoning.is_empty()).then(|| reasoning.to_string()),
        calls: out.calls,
        format: out.format,
    })
}

/// Only the reasoning split off (the answer came with native `tool_calls`).
pub(crate) fn split_reasoning_only(text: &str) -> Option<TextCalls> {
    if !maybe_marked(text) {
        return None;
    }
    let (reasoning, rest) = split_reasoning(text);
    let reasoning = reasoning?;
    let rest = rest.trim();
    Some(TextCalls {
        content: (!rest.is_empty()).then(|| rest.to_string()),
        reasoning: (!reasoning.is_empty()).then_some(reasoning),
        calls: Vec::new(),
        format: None,
    })
}

/// The fast pre-check: every marker starts with `<`, `[` or `{` (`[THINK]`, `<tool_call>`,
/// `<｜…`, a bare JSON object, a pythonic list). One `memchr` pass over prose.
fn maybe_marked(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with('{') || memchr::memchr2(b'<', b'[', text.as_bytes()).is_some()
}

struct Cx<'a> {
    tools: Option<&'a [ToolDef]>,
    cut: bool,
}

impl Cx<'_> {
    fn schema_of(&self, tool: &str, param: &str) -> Option<&Value> {
        self.tools?
            .iter()
            .find(|t| t.name == tool)?
            .parameters
            .get("properties")?
            .get(param)
    }
}

#[derive(Default)]
struct Out {
    content: String,
    reasoning: Vec<String>,
    calls: Vec<ParsedToolCall>,
    format: Option<&'static str>,
}

impl Out {
    /// A call whose arguments are JSON text (`args`), closed by its end marker or not.
    fn json_call(&mut self, name: &str, args: &str, id: Option<String>, closed: bool, cx: &Cx) {
        let a = decode_args_text(args.trim());
        self.push(name, a, id, closed, cx);
    }

    fn push(&mut self, name: &str, a: Args, id: Option<String>, closed: bool, cx: &Cx) {
        let mut c = ParsedToolCall {
            id: id.unwrap_or_default(),
            name: name.trim().to_string(),
            arguments: a.value,
            arguments_raw: clip_chars(&a.raw, 1 << 20).0,
            complete: a.complete,
            error: a.error,
            repairs: a.fixes,
        };
        if !closed && cx.cut {
            incomplete(&mut c, "the answer was cut off inside this tool call; not executed");
        }
        self.calls.push(c);
    }

    /// A call whose body could not be read at all.
    fn malformed(&mut self, name: &str, body: &str, why: &str) {
        self.calls.push(ParsedToolCall {
            id: String::new(),
            name: name.trim().to_string(),
            arguments: None,
            arguments_raw: clip_chars(body.trim(), 2000).0,
            complete: false,
            error: Some(why.to_string()),
            repairs: Vec::new(),
        });
    }

    /// A call whose arguments were assembled here (XML-style parameters).
    fn object_call(&mut self, name: &str, args: Map<String, Value>, raw: &str, closed: bool, cx: &Cx) {
        let a = Args {
            value: Some(Value::Object(args)),
            raw: raw.trim().to_string(),
            complete: true,
            error: None,
            fixes: Vec::new(),
        };
        let mut a = a;
        if !closed {
            // XML forms end with a closing tag of their own: without it the call is not whole.
            a.value = None;
            a.complete = false;
            a.error = Some(if cx.cut {
                "the answer was cut off inside this tool call; not executed".into()
            } else {
                "the tool call is not closed; not executed".into()
            });
        }
        self.push(name, a, None, true, cx);
    }
}

fn incomplete(c: &mut ParsedToolCall, why: &str) {
    if c.complete {
        c.complete = false;
        c.arguments = None;
        c.error = Some(why.to_string());
    }
}

/// A name the text may give a tool: what OpenAI and the registry accept, plus `.` and `:`.
pub(crate) fn is_plausible_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
}

fn check_name(c: &mut ParsedToolCall, cx: &Cx) {
    if c.name.is_empty() {
        incomplete(c, "tool call without a function name");
        c.complete = false;
        c.arguments = None;
        return;
    }
    if !is_plausible_tool_name(&c.name) {
        let shown = clip_chars(&c.name, 80).0;
        c.name = String::new();
        c.complete = false;
        c.arguments = None;
        c.error = Some(format!("{shown:?} is not a tool name; not executed"));
        return;
    }
    if let Some(tools) = cx.tools {
        if !tools.iter().any(|t| t.name == c.name) {
            let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).take(50).collect();
            let why = format!(
                "unknown tool '{}' (not offered in this request; available: {})",
                c.name,
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            );
            c.complete = false;
            c.arguments = None;
            c.error = Some(why);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Reasoning

const THINK: [(&str, &str); 4] = [
    ("<think>", "</think>"),
    ("[THINK]", "[/THINK]"),
    ("<|START_THINKING|>", "<|END_THINKING|>"),
    // Gemma 4's thinking channel.
    ("<|channel>thought", "<channel|>"),
];

/// Reasoning at the start of the answer, and the rest. Also the form whose opening tag was in
/// the prompt (Qwen3, DeepSeek R1 templates end the prompt with `<think>`): a closing tag with
/// no call marker before it ends the reasoning.
fn split_reasoning(text: &str) -> (Option<String>, &str) {
    let t = text.trim_start();
    for (open, close) in THINK {
        if let Some(after) = t.strip_prefix(open) {
            return match after.find(close) {
                Some(e) => (Some(after[..e].trim().to_string()), &after[e + close.len()..]),
                // Never closed: all of it is reasoning (cut off while thinking).
                None => (Some(after.trim().to_string()), ""),
            };
        }
    }
    // One pass for the four closing tags (they all start with `<` or `[`).
    let closes: Vec<&str> = THINK.iter().map(|(_, c)| *c).collect();
    if let Some((e, close)) = first_of(t, &closes) {
        let before = &t[..e];
        if earliest_family(before).is_none() {
            return (Some(before.trim().to_string()), &t[e + close.len()..]);
        }
    }
    (None, text)
}

// ---------------------------------------------------------------------------------------------
// Families

struct Family {
    name: &'static str,
    /// Markers that open this family's markup (any of them).
    opens: &'static [&'static str],
    parse: fn(&str, &Cx, &mut Out),
}

const FAMILIES: &[Family] = &[
    Family {
        name: "harmony",
        opens: &["<|channel|>", "<|start|>assistant"],
        parse: harmony,
    },
    Family {
        name: "deepseek",
        opens: &["<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>"],
        parse: deepseek,
    },
    Family {
        name: "deepseek_dsml",
        opens: &["<｜DSML｜function_calls>", "<｜DSML｜tool_calls>", "<｜DSML｜invoke"],
        parse: dsml,
    },
    Family {
        name: "step3",
        opens: &["<｜tool_calls_begin｜>", "<｜tool_call_begin｜>"],
        parse: step3,
    },
    Family {
        name: "kimi_k2",
        opens: &[
            "<|tool_calls_section_begin|>",
            "<|tool_call_section_begin|>",
            "<|tool_call_begin|>",
        ],
        parse: kimi,
    },
    Family {
        name: "gemma4",
        opens: &["<|tool_call>"],
        parse: gemma,
    },
    Family {
        name: "minimax",
        opens: &["<minimax:tool_call>"],
        parse: minimax,
    },
    Family {
        name: "minimax_m1",
        opens: &["<tool_calls>"],
        parse: minimax_m1,
    },
    Family {
        name: "cohere",
        opens: &["<|START_ACTION|>", "<|START_RESPONSE|>"],
        parse: cohere,
    },
    Family {
        name: "cohere_action",
        opens: &["Action:\n```json", "Action: ```json"],
        parse: cohere_action,
    },
    Family {
        name: "tool_call",
        opens: &["<tool_call>"],
        parse: tool_call_tag,
    },
    Family {
        name: "qwen3_coder",
        opens: &["<function="],
        parse: qwen_bare,
    },
    Family {
        name: "mistral",
        opens: &["[TOOL_CALLS]"],
        parse: mistral,
    },
    Family {
        name: "llama_python_tag",
        opens: &["<|python_tag|>"],
        parse: python_tag,
    },
    Family {
        name: "llama4_pythonic",
        opens: &["<|python_start|>"],
        parse: python_start,
    },
];

/// The family whose opening marker comes first (a marker quoted inside a call's arguments
/// comes after that call's own opening marker), and where.
fn earliest_family(s: &str) -> Option<(&'static Family, usize)> {
    let bytes = s.as_bytes();
    let second = second_bytes();
    let marked = memchr::memchr2_iter(b'<', b'[', bytes).find_map(|p| {
        // Most `<` and `[` of an answer open no marker: one table lookup rules them out.
        if !bytes.get(p + 1).is_some_and(|&b| second[b as usize]) {
            return None;
        }
        FAMILIES
            .iter()
            .find(|f| f.opens.iter().any(|m| bytes[p..].starts_with(m.as_bytes())))
            .map(|f| (f, p))
    });
    // The one family whose marker is not a tag (Command R+'s `Action:` before a JSON fence).
    let limit = marked.map_or(s.len(), |(_, p)| p);
    let action = FAMILIES.iter().find(|f| f.name == "cohere_action").and_then(|f| {
        f.opens
            .iter()
            .filter_map(|m| memchr::memmem::find(&bytes[..limit], m.as_bytes()))
            .min()
            .map(|p| (f, p))
    });
    action.or(marked)
}

/// The bytes that follow the first byte of some family's opening marker.
fn second_bytes() -> &'static [bool; 256] {
    static TABLE: std::sync::OnceLock<[bool; 256]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [false; 256];
        for f in FAMILIES {
            for m in f.opens {
                if let Some(&b) = m.as_bytes().get(1) {
                    t[b as usize] = true;
                }
            }
        }
        t
    })
}

/// The first place in `s` where one of `markers` starts, and which: one pass (every marker
/// passed here starts with `<`, `[` or a backtick). Searching for each marker on its own
/// would rescan the rest of the text for an absent marker at every call: quadratic.
fn first_of<'m>(s: &str, markers: &[&'m str]) -> Option<(usize, &'m str)> {
    let b = s.as_bytes();
    let hit = |p: usize| {
        markers
            .iter()
            .find(|m| b[p..].starts_with(m.as_bytes()))
            .map(|m| (p, *m))
    };
    if markers.iter().all(|m| m.starts_with('<') || m.starts_with('[')) {
        memchr::memchr2_iter(b'<', b'[', b).find_map(hit)
    } else {
        (0..b.len()).find_map(hit)
    }
}

/// Byte length of the JSON value at the start of `s` (after whitespace), found by a
/// string-aware bracket scan; `None` when `s` does not start with `{`/`[` or the value is not
/// closed. Tolerant: the value need not be valid JSON, only balanced.
fn json_extent(s: &str) -> Option<usize> {
    let lead = s.len() - s.trim_start().len();
    let b = s.as_bytes();
    if !matches!(b.get(lead), Some(b'{') | Some(b'[')) {
        return None;
    }
    let mut depth = 0usize;
    let mut in_str = false;
    let mut esc = false;
    for (i, &c) in b.iter().enumerate().skip(lead) {
        if in_str {
            if esc {
                esc = false;
            } else if c == b'\\' {
                esc = true;
            } else if c == b'"' {
                in_str = false;
            }
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Split `s` at `close`. When `s` starts with JSON, a `close` inside one of its strings is
/// not the boundary (string-aware scan). `(body, rest, closed)`.
fn until_close<'a>(s: &'a str, close: &str) -> (&'a str, &'a str, bool) {
    until_any(s, &[close])
}

/// [`until_close`] for the first of several closing markers.
fn until_any<'a>(s: &'a str, closes: &[&str]) -> (&'a str, &'a str, bool) {
    let t = s.trim_start();
    let hit = if t.starts_with('{') || t.starts_with('[') {
        outside_strings(s, closes)
    } else {
        first_of(s, closes)
    };
    match hit {
        Some((p, m)) => (&s[..p], &s[p + m.len()..], true),
        None => (s, "", false),
    }
}

/// The first of `closes` outside a JSON string of `s`: one pass.
fn outside_strings<'m>(s: &str, closes: &[&'m str]) -> Option<(usize, &'m str)> {
    let b = s.as_bytes();
    let (mut in_str, mut esc) = (false, false);
    for (i, &c) in b.iter().enumerate() {
        if in_str {
            if esc {
                esc = false;
            } else if c == b'\\' {
                esc = true;
            } else if c == b'"' {
                in_str = false;
            }
            continue;
        }
        if c == b'"' {
            in_str = true;
            continue;
        }
        if let Some(m) = closes
            .iter()
            .find(|m| m.as_bytes().first() == Some(&c) && b[i..].starts_with(m.as_bytes()))
        {
            return Some((i, m));
        }
    }
    None
}

/// Repeated sections `open body close`: prose between them is content.
fn sections(mut s: &str, open: &str, close: &str, out: &mut Out, mut each: impl FnMut(&str, bool, &mut Out)) {
    while let Some(p) = s.find(open) {
        out.content.push_str(&s[..p]);
        let (body, rest, closed) = until_close(&s[p + open.len()..], close);
        each(body, closed, out);
        s = rest;
    }
    out.content.push_str(s);
}

/// JSON payload(s) of an embedded call: one `{name, arguments|parameters}` object or an array.
fn json_payload(body: &str, closed: bool, cx: &Cx, out: &mut Out) {
    let t = body.trim();
    if t.is_empty() {
        out.malformed("", body, "empty tool call");
        return;
    }
    let items = parse_items_text(t);
    if items.is_empty() {
        out.malformed("", body, "tool call in the text is not valid JSON");
        return;
    }
    let n = items.len();
    for (k, (v, truncated)) in items.into_iter().enumerate() {
        let v = normalize_call_object(v);
        let mut c = crate::answer::call_from_value(&v, 0);
        if v.get("id").and_then(Value::as_str).is_none_or(|i| i.trim().is_empty()) {
            c.id = String::new();
        }
        if truncated || (!closed && cx.cut && k + 1 == n) {
            incomplete(&mut c, "tool call in the text was cut off; not executed");
        }
        out.calls.push(c);
    }
}

/// Cohere (`tool_name`) and others name the fields differently.
fn normalize_call_object(v: Value) -> Value {
    match v {
        Value::Object(mut o) => {
            if !o.contains_key("name") {
                if let Some(n) = o.remove("tool_name") {
                    o.insert("name".into(), n);
                }
            }
            if let Some(Value::String(id)) = o.remove("tool_call_id") {
                o.insert("id".into(), Value::String(id));
            }
            Value::Object(o)
        }
        other => other,
    }
}

// ---- Hermes / Qwen2.5–3 JSON, Qwen3-Coder XML, GLM 4.5–4.7: all inside <tool_call> ----------

fn tool_call_tag(s: &str, cx: &Cx, out: &mut Out) {
    sections(s, "<tool_call>", "</tool_call>", out, |body, closed, out| {
        let t = body.trim_start();
        if t.starts_with('{') || t.starts_with('[') {
            json_payload(body, closed, cx, out);
        } else if t.starts_with("<function=") {
            qwen_functions(t, cx, out);
        } else {
            glm(body, closed, cx, out);
        }
    });
}

/// Qwen3-Coder without the `<tool_call>` wrapper.
fn qwen_bare(s: &str, cx: &Cx, out: &mut Out) {
    qwen_functions(s, cx, out);
}

/// `<function=NAME><parameter=P>value</parameter>…</function>` (Qwen3-Coder, Qwen3.5).
fn qwen_functions(mut s: &str, cx: &Cx, out: &mut Out) {
    while let Some(p) = s.find("<function=") {
        out.content.push_str(&s[..p].replace("</tool_call>", ""));
        let after = &s[p + "<function=".len()..];
        let Some(gt) = after.find('>') else {
            out.malformed("", after, "tool call without a function name");
            return;
        };
        let name = after[..gt].trim();
        let body = &after[gt + 1..];
        if body.trim_start().starts_with('{') {
            // Functionary v3.1 and Llama 3.1's own custom format: `<function=NAME>{…}</function>`.
            let (args, rest, closed) = until_close(body, "</function>");
            out.json_call(name, args, None, closed || json_extent(args).is_some(), cx);
            s = rest;
            continue;
        }
        let (inner, rest, closed) = match body.find("</function>") {
            Some(e) => (&body[..e], &body[e + "</function>".len()..], true),
            None => (body, "", false),
        };
        let mut args = Map::new();
        let mut q = inner;
        let mut ok = true;
        while let Some(pp) = q.find("<parameter=") {
            let a = &q[pp + "<parameter=".len()..];
            let Some(g) = a.find('>') else {
                ok = false;
                break;
            };
            let pname = a[..g].trim().to_string();
            let v = &a[g + 1..];
            // The value ends at its closing tag; a model that drops it ends the value at the
            // next parameter or at the end of the function.
            let (val, next) = match first_of(v, &["</parameter>", "<parameter="]) {
                Some((e, "</parameter>")) => (&v[..e], &v[e + "</parameter>".len()..]),
                Some((n, _)) if closed => (&v[..n], &v[n..]),
                None if closed => (v, ""),
                _ => {
                    ok = false;
                    break;
                }
            };
            args.insert(pname.clone(), typed_value(val, cx.schema_of(name, &pname)));
            q = next;
        }
        out.object_call(name, args, inner, closed && ok, cx);
        s = rest;
    }
    out.content.push_str(&s.replace("</tool_call>", ""));
}

/// GLM 4.5–4.7: `NAME\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>…` (4.7 writes it without
/// the newlines).
fn glm(body: &str, closed: bool, cx: &Cx, out: &mut Out) {
    let (name, mut q) = match body.find("<arg_key>") {
        Some(p) => (body[..p].trim(), &body[p..]),
        None => (body.trim(), ""),
    };
    if name.contains('\n') || name.contains('<') || name.contains('{') {
        out.malformed("", body, "tool call in the text is neither JSON nor a known markup");
        return;
    }
    let mut args = Map::new();
    let mut ok = true;
    while let Some(p) = q.find("<arg_key>") {
        let a = &q[p + "<arg_key>".len()..];
        let Some(ke) = a.find("</arg_key>") else {
            ok = false;
            break;
        };
        let key = a[..ke].trim().to_string();
        let b = &a[ke + "</arg_key>".len()..];
        let Some(vs) = b.find("<arg_value>") else {
            ok = false;
            break;
        };
        let v = &b[vs + "<arg_value>".len()..];
        let Some(ve) = v.find("</arg_value>") else {
            ok = false;
            break;
        };
        args.insert(key.clone(), typed_value(&v[..ve], cx.schema_of(name, &key)));
        q = &v[ve + "</arg_value>".len()..];
    }
    out.object_call(name, args, body, closed && ok, cx);
}

/// A parameter value written as text, typed by the parameter's JSON Schema: a number stays a
/// number, an object is parsed. A value that does not fit its schema stays a string, so the
/// validation step answers it with a correction. Without a schema: JSON literals and
/// containers are parsed, anything else is a string.
fn typed_value(raw: &str, schema: Option<&Value>) -> Value {
    let text = raw.strip_prefix('\n').unwrap_or(raw);
    let text = text.strip_suffix('\n').unwrap_or(text);
    let t = text.trim();
    let types: Vec<&str> = match schema.and_then(|s| s.get("type")) {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if types.is_empty() {
        if schema.is_some_and(|s| s.get("enum").is_some() || s.get("const").is_some()) {
            return Value::String(text.to_string());
        }
        return match serde_json::from_str::<Value>(t) {
            Ok(v) if !v.is_string() => v,
            _ => Value::String(text.to_string()),
        };
    }
    for ty in &types {
        match *ty {
            "integer" | "number" => {
                if let Ok(v @ Value::Number(_)) = serde_json::from_str::<Value>(t) {
                    return v;
                }
            }
            "boolean" => match t.to_ascii_lowercase().as_str() {
                "true" => return Value::Bool(true),
                "false" => return Value::Bool(false),
                _ => {}
            },
            "null" => {
                if matches!(t, "null" | "None" | "") {
                    return Value::Null;
                }
            }
            "object" | "array" => {
                let parsed = serde_json::from_str::<Value>(t)
                    .ok()
                    .or_else(|| mcp_repair::repair(t).ok().filter(|r| !r.truncated()).map(|r| r.value));
                if let Some(v) =
                    parsed.filter(|v| (*ty == "object") == v.is_object() && (v.is_object() || v.is_array()))
                {
                    return v;
                }
            }
            _ => {}
        }
    }
    Value::String(text.to_string())
}

// ---- DeepSeek V3 / R1 / V3.1 -----------------------------------------------------------------

/// V3 and R1: `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜>`;
/// V3.1 and later: `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>`; all inside
/// `<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>`.
fn deepseek(s: &str, cx: &Cx, out: &mut Out) {
    let s = s.replacen("<｜tool▁calls▁begin｜>", "", 1);
    let mut s: &str = &s;
    while let Some(p) = s.find("<｜tool▁call▁begin｜>") {
        out.content.push_str(&s[..p].replace("<｜tool▁calls▁end｜>", ""));
        let a = &s[p + "<｜tool▁call▁begin｜>".len()..];
        let sep = match first_of(a, &["<｜tool▁sep｜>", "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>"])
        {
            Some((p, "<｜tool▁sep｜>")) => Some(p),
            _ => None,
        };
        let Some(sep) = sep else {
            let (body, rest, _) = until_close(a, "<｜tool▁call▁end｜>");
            out.malformed("", body, "tool call without a separator between name and arguments");
            s = rest;
            continue;
        };
        let head = a[..sep].trim();
        let b = &a[sep + "<｜tool▁sep｜>".len()..];
        if head == "function" && !b.trim_start().starts_with('{') {
            // V3 / R1: the name on the first line, then fenced JSON.
            let (name, body) = b.split_once('\n').unwrap_or((b, ""));
            let body_t = body.trim_start();
            let fenced = body_t.strip_prefix("```json").or_else(|| body_t.strip_prefix("```"));
            let (args, rest, closed) = match fenced {
                Some(f) => {
                    let (args, after, fence_closed) = until_close(f, "```");
                    let (_, rest, end) = match first_of(after, &["<｜tool▁call▁end｜>", "<｜tool▁call▁begin｜>"])
                    {
                        Some((e, "<｜tool▁call▁end｜>")) => ("", &after[e + "<｜tool▁call▁end｜>".len()..], true),
                        _ => ("", after, false),
                    };
                    (args, rest, fence_closed && (end || !cx.cut))
                }
                None => until_close(body, "<｜tool▁call▁end｜>"),
            };
            out.json_call(name, args, None, closed, cx);
            s = rest;
        } else {
            let (args, rest, closed) = until_close(b, "<｜tool▁call▁end｜>");
            out.json_call(head, args, None, closed, cx);
            s = rest;
        }
    }
    out.content.push_str(&s.replace("<｜tool▁calls▁end｜>", ""));
}

/// DeepSeek V3.2 (V4: `<｜DSML｜tool_calls>` around the same invokes): `<｜DSML｜function_calls><｜DSML｜invoke name="N"><｜DSML｜parameter name="P"
/// string="true|false">v</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>`.
fn dsml(s: &str, cx: &Cx, out: &mut Out) {
    invokes(s, "<｜DSML｜", "</｜DSML｜", cx, out);
    strip_all(
        &mut out.content,
        &[
            "<｜DSML｜function_calls>",
            "</｜DSML｜function_calls>",
            "<｜DSML｜tool_calls>",
            "</｜DSML｜tool_calls>",
        ],
    );
}

/// Step-3: `<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke
/// name="N"><steptml:parameter name="P">v</steptml:parameter></steptml:invoke><｜tool_call_end｜>…`.
fn step3(s: &str, cx: &Cx, out: &mut Out) {
    invokes(s, "<steptml:", "</steptml:", cx, out);
    strip_all(
        &mut out.content,
        &[
            "<｜tool_calls_begin｜>",
            "<｜tool_calls_end｜>",
            "<｜tool_call_begin｜>",
            "<｜tool_call_end｜>",
            "function<｜tool_sep｜>",
            "<｜tool_sep｜>",
        ],
    );
}

/// MiniMax-M2: `<minimax:tool_call><invoke name="N"><parameter name="P">v</parameter></invoke>
/// …</minimax:tool_call>`.
fn minimax(s: &str, cx: &Cx, out: &mut Out) {
    invokes(s, "<", "</", cx, out);
    strip_all(&mut out.content, &["<minimax:tool_call>", "</minimax:tool_call>"]);
}

/// MiniMax-M1: `<tool_calls>\n{"name": …, "arguments": …}\n…</tool_calls>`, one object a line.
fn minimax_m1(s: &str, cx: &Cx, out: &mut Out) {
    sections(s, "<tool_calls>", "</tool_calls>", out, |body, closed, out| {
        let mut rest = body.trim();
        while !rest.is_empty() {
            match json_extent(rest) {
                Some(e) => {
                    json_payload(&rest[..e], true, cx, out);
                    rest = rest[e..].trim_start();
                }
                None => {
                    json_payload(rest, closed, cx, out);
                    if !closed {
                        if let Some(c) = out.calls.last_mut() {
                            incomplete(c, "tool call in the text was cut off; not executed");
                        }
                    }
                    break;
                }
            }
        }
    });
}

fn strip_all(s: &mut String, markers: &[&str]) {
    for m in markers {
        if s.contains(m) {
            *s = s.replace(m, "");
        }
    }
}

/// `{o}invoke name="N">{o}parameter name="P" [string="…"]>v{c}parameter>…{c}invoke>` for the
/// XML-style families; `o`/`c` are the opening and closing tag prefixes.
fn invokes(mut s: &str, o: &str, c: &str, cx: &Cx, out: &mut Out) {
    let inv = format!("{o}invoke");
    let inv_end = format!("{c}invoke>");
    let par = format!("{o}parameter");
    let par_end = format!("{c}parameter>");
    while let Some(p) = s.find(&inv) {
        out.content.push_str(&s[..p]);
        let a = &s[p + inv.len()..];
        let Some(gt) = a.find('>') else {
            out.malformed("", a, "tool call without a function name");
            return;
        };
        let name = attr(&a[..gt], "name").unwrap_or_default();
        let body = &a[gt + 1..];
        // Parameters are read one after the other, so a closing invoke tag inside a value does
        // not end the call (a closing parameter tag inside a value cannot be told apart: the
        // format has no escaping).
        let mut args = Map::new();
        let mut q = body;
        let mut ok = true;
        let mut closed = false;
        loop {
            let t = q.trim_start();
            if let Some(r) = t.strip_prefix(inv_end.as_str()) {
                q = r;
                closed = true;
                break;
            }
            let Some(pa) = t.strip_prefix(par.as_str()) else {
                // Stray text inside the invoke: skip to the next tag of ours.
                match first_of(t, &[par.as_str(), inv_end.as_str()]) {
                    Some((n, _)) if n > 0 => {
                        q = &t[n..];
                        continue;
                    }
                    _ => {
                        q = "";
                        break;
                    }
                }
            };
            let Some(g) = pa.find('>') else {
                ok = false;
                q = "";
                break;
            };
            let head = &pa[..g];
            let pname = attr(head, "name").unwrap_or_default();
            let v = &pa[g + 1..];
            let Some(e) = v.find(&par_end) else {
                ok = false;
                q = "";
                break;
            };
            let val = &v[..e];
            let value = match attr(head, "string").as_deref() {
                Some("true") => Value::String(val.to_string()),
                Some("false") => serde_json::from_str(val.trim()).unwrap_or_else(|_| Value::String(val.to_string())),
                _ => typed_value(val, cx.schema_of(&name, &pname)),
            };
            args.insert(pname, value);
            q = &v[e + par_end.len()..];
        }
        let inner = &body[..body.len() - q.len()];
        let rest = q;
        out.object_call(&name, args, inner, closed && ok, cx);
        s = rest;
    }
    out.content.push_str(s);
}

/// The value of `key="…"` (or `key='…'`, or bare up to a space) in a tag's attribute text.
fn attr(head: &str, key: &str) -> Option<String> {
    let mut from = 0;
    while let Some(p) = head[from..].find(key) {
        let at = from + p;
        let before_ok = at == 0 || head.as_bytes()[at - 1].is_ascii_whitespace();
        let rest = head[at + key.len()..].trim_start();
        if before_ok {
            if let Some(v) = rest.strip_prefix('=') {
                let v = v.trim_start();
                for q in ['"', '\''] {
                    if let Some(inner) = v.strip_prefix(q) {
                        return inner.find(q).map(|e| inner[..e].to_string());
                    }
                }
                return Some(v.split_whitespace().next().unwrap_or("").to_string());
            }
        }
        from = at + key.len();
    }
    None
}

// ---- Kimi K2 -----------------------------------------------------------------------------------

/// `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>
/// {…}<|tool_call_end|>…<|tool_calls_section_end|>`. The id is the `functions.NAME:0` text.
fn kimi(s: &str, cx: &Cx, out: &mut Out) {
    let mut s = s;
    const BEGIN: &str = "<|tool_call_begin|>";
    const ARG: &str = "<|tool_call_argument_begin|>";
    const END: &str = "<|tool_call_end|>";
    let sect = [
        "<|tool_calls_section_begin|>",
        "<|tool_call_section_begin|>",
        "<|tool_calls_section_end|>",
        "<|tool_call_section_end|>",
    ];
    while let Some(p) = s.find(BEGIN) {
        out.content.push_str(&s[..p]);
        let a = &s[p + BEGIN.len()..];
        let ap = match first_of(a, &[ARG, BEGIN]) {
            Some((p, m)) if m == ARG => Some(p),
            _ => None,
        };
        let Some(ap) = ap else {
            let (body, rest, _) = until_close(a, END);
            out.malformed("", body, "tool call without arguments");
            s = rest;
            continue;
        };
        let id = a[..ap].trim();
        let name = id.strip_prefix("functions.").unwrap_or(id);
        let name = match name.rfind(':') {
            Some(k) if name[k + 1..].bytes().all(|b| b.is_ascii_digit()) => &name[..k],
            _ => name,
        };
        let (args, rest, closed) = until_any(&a[ap + ARG.len()..], &[END, "<|tool_calls_section_end|>"]);
        let id = (is_plausible_tool_name(id) && !id.is_empty()).then(|| id.to_string());
        out.json_call(name, args, id, closed, cx);
        s = rest;
    }
    out.content.push_str(s);
    strip_all(&mut out.content, &sect);
}

// ---- Gemma 4 -----------------------------------------------------------------------------------

const GQ: &str = "<|\"|>";

/// `<|tool_call>call:NAME{key:<|"|>value<|"|>,n:5,o:{…},l:[…]}<tool_call|>`: keys bare, strings
/// between `<|"|>` delimiters, other values as JSON literals.
fn gemma(s: &str, cx: &Cx, out: &mut Out) {
    let mut s = s;
    while let Some(p) = s.find("<|tool_call>") {
        out.content.push_str(&s[..p]);
        let a = &s[p + "<|tool_call>".len()..];
        let (body, rest, closed) = gemma_until_close(a);
        let b = body.trim();
        let b = b.strip_prefix("call:").unwrap_or(b);
        match b.find('{') {
            Some(br) => {
                let name = &b[..br];
                let mut pz = GemmaParser {
                    s: &b.as_bytes()[br..],
                    src: &b[br..],
                    i: 0,
                };
                match pz.value(0) {
                    Some(v @ Value::Object(_)) if pz.rest_blank() => {
                        let args = match v {
                            Value::Object(m) => m,
                            _ => Map::new(),
                        };
                        out.object_call(name, args, &b[br..], closed || !cx.cut, cx);
                    }
                    _ => out.malformed(
                        name,
                        body,
                        if closed {
                            "tool call arguments are malformed"
                        } else {
                            "the tool call is not closed; not executed"
                        },
                    ),
                }
            }
            None => out.malformed(b, body, "tool call without arguments"),
        }
        s = rest;
    }
    out.content.push_str(s);
}

/// The end marker `<tool_call|>`, not looked for inside a `<|"|>` string.
fn gemma_until_close(s: &str) -> (&str, &str, bool) {
    let mut i = 0;
    let mut in_str = false;
    while i < s.len() {
        let r = &s[i..];
        if r.starts_with(GQ) {
            in_str = !in_str;
            i += GQ.len();
            continue;
        }
        if !in_str && r.starts_with("<tool_call|>") {
            return (&s[..i], &s[i + "<tool_call|>".len()..], true);
        }
        i += r.chars().next().map_or(1, char::len_utf8);
    }
    (s, "", false)
}

struct GemmaParser<'a> {
    s: &'a [u8],
    src: &'a str,
    i: usize,
}

impl GemmaParser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn rest_blank(&mut self) -> bool {
        self.ws();
        self.i >= self.s.len()
    }
    fn string(&mut self) -> Option<String> {
        let start = self.i + GQ.len();
        let end = self.src.get(start..)?.find(GQ)? + start;
        self.i = end + GQ.len();
        Some(self.src[start..end].to_string())
    }
    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.ws();
        let r = self.src.get(self.i..)?;
        if r.starts_with(GQ) {
            return self.string().map(Value::String);
        }
        match *self.s.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut m = Map::new();
                loop {
                    self.ws();
                    match self.s.get(self.i)? {
                        b'}' => {
                            self.i += 1;
                            return Some(Value::Object(m));
                        }
                        b',' => {
                            self.i += 1;
                            continue;
                        }
                        _ => {}
                    }
                    let key = if self.src[self.i..].starts_with(GQ) {
                        self.string()?
                    } else {
                        let k0 = self.i;
                        while self.i < self.s.len() && self.s[self.i] != b':' && self.s[self.i] != b'}' {
                            self.i += 1;
                        }
                        self.src.get(k0..self.i)?.trim().trim_matches('"').to_string()
                    };
                    self.ws();
                    if self.s.get(self.i) != Some(&b':') {
                        return None;
                    }
                    self.i += 1;
                    let v = self.value(depth + 1)?;
                    m.insert(key, v);
                }
            }
            b'[' => {
                self.i += 1;
                let mut a = Vec::new();
                loop {
                    self.ws();
                    match self.s.get(self.i)? {
                        b']' => {
                            self.i += 1;
                            return Some(Value::Array(a));
                        }
                        b',' => {
                            self.i += 1;
                            continue;
                        }
                        _ => a.push(self.value(depth + 1)?),
                    }
                }
            }
            _ => {
                let k0 = self.i;
                while self.i < self.s.len() && !matches!(self.s[self.i], b',' | b'}' | b']') {
                    self.i += 1;
                }
                let tok = self.src.get(k0..self.i)?.trim();
                if tok.is_empty() {
                    return None;
                }
                Some(match serde_json::from_str::<Value>(tok) {
                    Ok(v) => v,
                    Err(_) => Value::String(tok.to_string()),
                })
            }
        }
    }
}

// ---- Cohere Command R7B / A --------------------------------------------------------------------

/// `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "N", "parameters": {…}}]<|END_ACTION|>`;
/// the answer between `<|START_RESPONSE|>` and `<|END_RESPONSE|>`.
fn cohere(s: &str, cx: &Cx, out: &mut Out) {
    let mut tmp = Out::default();
    sections(s, "<|START_ACTION|>", "<|END_ACTION|>", &mut tmp, |body, closed, o| {
        json_payload(body, closed, cx, o)
    });
    out.calls.append(&mut tmp.calls);
    let mut c = tmp.content;
    strip_all(&mut c, &["<|START_RESPONSE|>", "<|END_RESPONSE|>"]);
    out.content.push_str(&c);
}

/// Command R / R+: `Action:\n```json\n[{"tool_name": "N", "parameters": {…}}]\n```` — the
/// pseudo tool `directly-answer` means "no tool" and is dropped.
fn cohere_action(s: &str, cx: &Cx, out: &mut Out) {
    let p = s.find("```json").map_or(0, |p| p + "```json".len());
    let (body, rest, closed) = until_close(&s[p..], "```");
    let mut tmp = Out::default();
    json_payload(body, closed, cx, &mut tmp);
    tmp.calls
        .retain(|c| !matches!(c.name.as_str(), "directly-answer" | "directly_answer"));
    out.calls.append(&mut tmp.calls);
    out.content.push_str(rest);
}

// ---- Mistral -----------------------------------------------------------------------------------

/// v3: `[TOOL_CALLS] [{"name": …, "arguments": {…}, "id": …}]`; v11: `[TOOL_CALLS]NAME[ARGS]{…}`
/// repeated; v13 and later: `[TOOL_CALLS]NAME[CALL_ID]id[ARGS]{…}`.
fn mistral(s: &str, cx: &Cx, out: &mut Out) {
    let mut s = &s["[TOOL_CALLS]".len()..];
    loop {
        let t = s.trim_start();
        if t.starts_with('[') || t.starts_with('{') {
            let (body, rest, more) = until_close(t, "[TOOL_CALLS]");
            match json_extent(body) {
                Some(e) => {
                    json_payload(&body[..e], true, cx, out);
                    out.content.push_str(body[e..].trim_end().trim_end_matches("</s>"));
                }
                None => json_payload(body, false, cx, out),
            }
            if !more {
                return;
            }
            s = rest;
            continue;
        }
        match first_of(t, &["[ARGS]", "[TOOL_CALLS]"]) {
            Some((a, "[ARGS]")) => {
                let head = &t[..a];
                let (name, id) = match head.split_once("[CALL_ID]") {
                    Some((n, id)) => (n, Some(id.trim().to_string()).filter(|i| !i.is_empty())),
                    None => (head, None),
                };
                let (args, rest, more) = until_close(&t[a + "[ARGS]".len()..], "[TOOL_CALLS]");
                // Text after the JSON value (the end of the turn) is not part of the call.
                let (args, tail, whole) = match json_extent(args) {
                    Some(e) => (&args[..e], &args[e..], true),
                    None => (args, "", false),
                };
                out.json_call(name, args, id, more || whole, cx);
                out.content.push_str(tail.trim_end().trim_end_matches("</s>"));
                if !more {
                    return;
                }
                s = rest;
            }
            _ => {
                let (body, rest, more) = until_close(t, "[TOOL_CALLS]");
                out.malformed(
                    "",
                    body,
                    "tool call after [TOOL_CALLS] is neither a JSON list nor NAME[ARGS]{…}; not executed",
                );
                if !more {
                    return;
                }
                s = rest;
            }
        }
    }
}

// ---- Llama 3.1 <|python_tag|>, Llama 4 / pythonic, Llama 3 bare JSON ---------------------------

/// `<|python_tag|>{"name": …, "parameters": {…}}` (also several separated by `;`), or a
/// built-in tool call `<|python_tag|>brave_search.call(query="…")`.
fn python_tag(s: &str, cx: &Cx, out: &mut Out) {
    let a = &s["<|python_tag|>".len()..];
    let (body, closed) = match a.find("<|eom_id|>").or_else(|| a.find("<|eot_id|>")) {
        Some(e) => (&a[..e], true),
        None => (a, false),
    };
    let t = body.trim();
    if t.starts_with('{') || t.starts_with('[') {
        let mut rest = t;
        while !rest.is_empty() {
            match json_extent(rest) {
                Some(e) => {
                    json_payload(&rest[..e], true, cx, out);
                    rest = rest[e..].trim_start().trim_start_matches(';').trim_start();
                }
                None => {
                    json_payload(rest, closed, cx, out);
                    break;
                }
            }
        }
    } else {
        match pythonic_calls(t) {
            Ok(calls) => {
                for (name, args) in calls {
                    let n = name.strip_suffix(".call").unwrap_or(&name).to_string();
                    out.object_call(&n, args, t, true, cx);
                }
            }
            Err(why) => out.malformed("", t, &format!("tool call after <|python_tag|> is malformed: {why}")),
        }
    }
}

/// Llama 4: `<|python_start|>[get_weather(city="Paris")]<|python_end|>`.
fn python_start(s: &str, cx: &Cx, out: &mut Out) {
    let a = &s["<|python_start|>".len()..];
    let (body, rest, closed) = match a.find("<|python_end|>") {
        Some(e) => (&a[..e], &a[e + "<|python_end|>".len()..], true),
        None => (a, "", false),
    };
    match pythonic_calls(body.trim()) {
        Ok(calls) => {
            for (name, args) in calls {
                out.object_call(&name, args, body, closed || !cx.cut, cx);
            }
        }
        Err(why) => out.malformed("", body, &format!("pythonic tool call is malformed: {why}")),
    }
    out.content.push_str(rest);
}

/// The marker-less forms, accepted only as the whole content with every name offered:
/// Llama 3 JSON `{"name": …, "parameters": {…}}` (or a list of them) and the pythonic list
/// `[get_weather(city="Paris"), …]` (Llama 3.2, Llama 4).
fn bare_calls(s: &str, cx: &Cx) -> Option<(&'static str, Vec<ParsedToolCall>)> {
    let tools = cx.tools.filter(|t| !t.is_empty())?;
    let t = s.trim();
    let offered = |n: &str| tools.iter().any(|t| t.name == n);
    if t.starts_with('{') || (t.starts_with("[{") || t.starts_with("[ {") || t.starts_with("[\n")) {
        let v: Value = serde_json::from_str(t).ok()?;
        let items = match v {
            Value::Array(a) if !a.is_empty() => a,
            v @ Value::Object(_) => vec![v],
            _ => return None,
        };
        // Exactly the call shape: a name and the arguments, nothing else of an answer.
        let all = items.iter().all(|it| {
            it.as_object().is_some_and(|o| {
                o.get("name").and_then(Value::as_str).is_some_and(offered)
                    && (o.contains_key("parameters") || o.contains_key("arguments"))
                    && o.keys()
                        .all(|k| matches!(k.as_str(), "name" | "parameters" | "arguments" | "type" | "id"))
            })
        });
        if !all {
            return None;
        }
        let calls = items
            .into_iter()
            .map(|v| {
                let mut c = crate::answer::call_from_value(&v, 0);
                if v.get("id").is_none() {
                    c.id = String::new();
                }
                c
            })
            .collect();
        return Some(("llama3_json", calls));
    }
    if t.starts_with('[') && t.ends_with(']') {
        let calls = pythonic_calls(t).ok()?;
        if calls.is_empty() || !calls.iter().all(|(n, _)| offered(n)) {
            return None;
        }
        let mut out = Out::default();
        for (name, args) in calls {
            out.object_call(&name, args, t, true, cx);
        }
        return Some(("pythonic", out.calls));
    }
    None
}

/// `[name(k=v, …), …]` or a single `name(k=v)`: the calls with their keyword arguments as
/// JSON. Python literals only (strings, numbers, True/False/None, lists, tuples, dicts).
/// A call read from pythonic text: the name and its keyword arguments.
type PyCall = (String, Map<String, Value>);

fn pythonic_calls(s: &str) -> Result<Vec<PyCall>, String> {
    let mut p = Py {
        s: s.as_bytes(),
        src: s,
        i: 0,
    };
    p.ws();
    let mut calls = Vec::new();
    let list = p.eat(b'[');
    loop {
        p.ws();
        if list && p.eat(b']') {
            break;
        }
        calls.push(p.call()?);
        p.ws();
        if p.eat(b',') || p.eat(b';') {
            continue;
        }
        if list {
            if p.eat(b']') {
                break;
            }
            return Err("expected ',' or ']' between calls".into());
        }
        break;
    }
    p.ws();
    if p.i != p.s.len() {
        return Err("text after the calls".into());
    }
    if calls.is_empty() {
        return Err("no call".into());
    }
    Ok(calls)
}

struct Py<'a> {
    s: &'a [u8],
    src: &'a str,
    i: usize,
}

impl Py<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn ident(&mut self) -> Option<&str> {
        let k0 = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric() || matches!(self.s[self.i], b'_' | b'.' | b'-'))
        {
            self.i += 1;
        }
        (self.i > k0).then(|| &self.src[k0..self.i])
    }
    fn call(&mut self) -> Result<PyCall, String> {
        let name = self.ident().ok_or("expected a function name")?.to_string();
        self.ws();
        if !self.eat(b'(') {
            return Err(format!("expected '(' after {name}"));
        }
        let mut args = Map::new();
        loop {
            self.ws();
            if self.eat(b')') {
                return Ok((name, args));
            }
            let k = self.ident().ok_or("expected a keyword argument")?.to_string();
            self.ws();
            if !self.eat(b'=') {
                return Err("positional arguments are not supported".into());
            }
            let v = self.value(0)?;
            args.insert(k, v);
            self.ws();
            if self.eat(b',') {
                continue;
            }
            if self.eat(b')') {
                return Ok((name, args));
            }
            return Err("expected ',' or ')'".into());
        }
    }
    fn value(&mut self, depth: usize) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err("nested too deeply".into());
        }
        self.ws();
        let c = *self.s.get(self.i).ok_or("unexpected end")?;
        match c {
            b'"' | b'\'' => self.string(c).map(Value::String),
            b'[' | b'(' => {
                let close = if c == b'[' { b']' } else { b')' };
                self.i += 1;
                let mut a = Vec::new();
                loop {
                    self.ws();
                    if self.eat(close) {
                        return Ok(Value::Array(a));
                    }
                    a.push(self.value(depth + 1)?);
                    self.ws();
                    if self.eat(b',') {
                        continue;
                    }
                    if self.eat(close) {
                        return Ok(Value::Array(a));
                    }
                    return Err("expected ',' in a list".into());
                }
            }
            b'{' => {
                self.i += 1;
                let mut m = Map::new();
                loop {
                    self.ws();
                    if self.eat(b'}') {
                        return Ok(Value::Object(m));
                    }
                    let k = match self.value(depth + 1)? {
                        Value::String(s) => s,
                        other => other.to_string(),
                    };
                    self.ws();
                    if !self.eat(b':') {
                        return Err("expected ':' in a dict".into());
                    }
                    let v = self.value(depth + 1)?;
                    m.insert(k, v);
                    self.ws();
                    if self.eat(b',') {
                        continue;
                    }
                    if self.eat(b'}') {
                        return Ok(Value::Object(m));
                    }
                    return Err("expected ',' in a dict".into());
                }
            }
            _ => {
                let k0 = self.i;
                while self.i < self.s.len()
                    && (self.s[self.i].is_ascii_alphanumeric() || matches!(self.s[self.i], b'.' | b'-' | b'+' | b'_'))
                {
                    self.i += 1;
                }
                let tok = &self.src[k0..self.i];
                match tok {
                    "True" | "true" => Ok(Value::Bool(true)),
                    "False" | "false" => Ok(Value::Bool(false)),
                    "None" | "null" => Ok(Value::Null),
                    _ => {
                        if let Ok(i) = tok.parse::<i64>() {
                            return Ok(Value::Number(i.into()));
                        }
                        tok.parse::<f64>()
                            .ok()
                            .and_then(Number::from_f64)
                            .map(Value::Number)
                            .ok_or_else(|| format!("not a Python literal: {}", clip_chars(tok, 40).0))
                    }
                }
            }
        }
    }
    fn string(&mut self, q: u8) -> Result<String, String> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let rest = self.src.get(self.i..).ok_or("unterminated string")?;
            let mut chars = rest.chars();
            let ch = chars.next().ok_or("unterminated string")?;
            self.i += ch.len_utf8();
            if ch as u32 == q as u32 {
                return Ok(out);
            }
            if ch == '\\' {
                let e = self.src[self.i..].chars().next().ok_or("unterminated string")?;
                self.i += e.len_utf8();
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    '0' => out.push('\0'),
                    'u' => {
                        let hex = self.src.get(self.i..self.i + 4).ok_or("bad \\u escape")?;
                        let cp = u32::from_str_radix(hex, 16).map_err(|_| "bad \\u escape")?;
                        out.push(char::from_u32(cp).unwrap_or('\u{fffd}'));
                        self.i += 4;
                    }
                    other => out.push(other),
                }
            } else {
                out.push(ch);
            }
        }
    }
}

// ---- gpt-oss Harmony ---------------------------------------------------------------------------

/// `<|start|>assistant<|channel|>analysis<|message|>…<|end|>` (reasoning),
/// `<|start|>assistant to=functions.NAME<|channel|>commentary <|constrain|>json<|message|>{…}<|call|>`
/// (a call; the recipient may also follow the channel), `<|channel|>final<|message|>…<|return|>`
/// (the answer). The prompt usually ends with `<|start|>assistant`, so the text may begin at
/// `<|channel|>`.
fn harmony(s: &str, cx: &Cx, out: &mut Out) {
    const ENDS: [&str; 3] = ["<|end|>", "<|call|>", "<|return|>"];
    let mut s = s;
    loop {
        let Some(m) = s.find("<|message|>") else {
            // A header without a body (cut off, or stray markup): nothing to execute.
            let rest = strip_harmony_tokens(s);
            if let Some(name) = harmony_recipient(s) {
                out.malformed(&name, "", "the tool call has no arguments (cut off?); not executed");
            } else {
                out.content.push_str(&rest);
            }
            return;
        };
        let header = &s[..m];
        let body_all = &s[m + "<|message|>".len()..];
        let recipient = harmony_recipient(header);
        let channel = header
            .split("<|channel|>")
            .nth(1)
            .and_then(|c| c.split(|ch: char| ch.is_whitespace() || ch == '<').next())
            .unwrap_or("");
        let (body, rest, closed) = if recipient.is_some() {
            until_any(body_all, &ENDS)
        } else {
            let hit = first_of(
                body_all,
                &["<|end|>", "<|call|>", "<|return|>", "<|start|>", "<|channel|>"],
            );
            match hit {
                Some((p, e)) if e.starts_with("<|start|>") || e == "<|channel|>" => {
                    (&body_all[..p], &body_all[p..], true)
                }
                Some((p, e)) => (&body_all[..p], &body_all[p + e.len()..], true),
                None => (body_all, "", false),
            }
        };
        match (recipient, channel) {
            (Some(name), _) => {
                // Trailing tokens after the JSON (a stripped <|call|> leaves nothing).
                let (args, tail) = match json_extent(body) {
                    Some(e) => (&body[..e], &body[e..]),
                    None => (body, ""),
                };
                out.json_call(&name, args, None, closed || json_extent(body).is_some(), cx);
                out.content.push_str(tail);
            }
            (None, "analysis") => out.reasoning.push(body.trim().to_string()),
            _ => out.content.push_str(body),
        }
        if rest.is_empty() {
            return;
        }
        s = rest;
    }
}

/// `to=functions.NAME` in a Harmony header (before or after the channel).
fn harmony_recipient(header: &str) -> Option<String> {
    let p = header.find("to=")?;
    let r = &header[p + 3..];
    let r = r.strip_prefix("functions.").unwrap_or(r);
    let end = r.find(|c: char| c.is_whitespace() || c == '<').unwrap_or(r.len());
    Some(r[..end].to_string())
}

fn strip_harmony_tokens(s: &str) -> String {
    let mut out = s.to_string();
    for t in [
        "<|start|>",
        "<|end|>",
        "<|call|>",
        "<|return|>",
        "<|channel|>",
        "<|constrain|>",
    ] {
        out = out.replace(t, "");
    }
    out
}
