//! The second opinion: json_repair's (Python) look-ahead rules for quotes inside strings.
//!
//! The first pass (`parser.rs`) follows jsonrepair: a quote followed by `,` `}` `]` `:` or a line
//! end closes the string. That is right for almost everything, but it misreads strings that
//! contain quoted words followed by such a character (`"lorem "ipsum", sic."`), strings whose end
//! quote sits on its own line, and a few similar shapes that the Python library decides by
//! looking further ahead: "is the text after the next quote the start of the next object
//! member?". `extract.rs` runs this mode only when the first pass failed or reported a doubtful
//! quote repair (`extract::repair_text`), and keeps its result only then.
//!
//! This module sees the parser only through its methods (input, cursor, open containers,
//! fixes, nesting: the block "What the second-opinion mode may see" in `parser.rs`); its own
//! state is [`SecondOpinion`], which the parser holds without reading it.
//!
//! The rules are ported from mangiucugna/json_repair (`parse_string.py`,
//! `object_value_context.py`) for double, single and “smart” quotes in object keys, object
//! values and arrays; a string at the top level keeps the first-pass rules. Every look-ahead is
//! charged to its budget (a multiple of the input length); when it runs out the mode gives up
//! (exhausted) and the first-pass result stands, so the total work stays linear.

use crate::chars::*;
// Mutual recursion with `parser` (see the note at its `use crate::py`): this mode parses through
// the parser's methods, and the parser calls it at a doubtful quote.
use crate::parser::{Ctx, PResult, Parser};

/// The second opinion's own state (the parser holds it, opaque; only this module reads it).
pub(crate) struct SecondOpinion {
    /// Look-ahead budget; `exhausted` once it is spent.
    budget: usize,
    exhausted: bool,
    /// Scan position of the string parser.
    i: usize,
    /// Recent look-ahead results: (targets, from, found).
    cache: Vec<(u64, usize, usize)>,
    cache_next: usize,
    /// Starts of ```json-in-a-string attempts that failed (never retried).
    fence_failed: std::collections::HashSet<usize>,
}

impl SecondOpinion {
    /// A budget of a multiple of the input length keeps the mode linear.
    pub(crate) fn new(input_len: usize) -> Self {
        SecondOpinion {
            budget: 16 * input_len + 4096,
            exhausted: false,
            i: 0,
            cache: Vec::new(),
            cache_next: 0,
            fence_failed: std::collections::HashSet::new(),
        }
    }

    /// The budget ran out: the first-pass result stands.
    pub(crate) fn exhausted(&self) -> bool {
        self.exhausted
    }
}

struct State {
    lq: char,
    rq: char,
    acc: String,
    doubled: bool,
    unmatched: bool,
    pending_inline: bool,
    inline_stack: Vec<u8>,
    no_future_delim: bool,
    open_braces: usize,
    regex_class_start: Option<usize>,
    /// Whitespace was pushed since `regex_class_start`.
    regex_class_ws: bool,
}

impl State {
    fn push(&mut self, c: char) {
        self.acc.push(c);
        match c {
            '{' => self.open_braces += 1,
            '}' if self.open_braces > 0 => self.open_braces -= 1,
            '[' => {
                self.regex_class_start = Some(self.acc.len());
                self.regex_class_ws = false;
            }
            ']' => self.regex_class_start = None,
            c if c.is_whitespace() => self.regex_class_ws = true,
            _ => {}
        }
    }
    fn push_str(&mut self, s: &str) {
        for c in s.chars() {
            self.push(c);
        }
    }
    fn replace_backslash(&mut self, s: &str) {
        if self.acc.ends_with('\\') {
            self.acc.pop();
        }
        self.push_str(s);
    }
    fn last(&self) -> Option<char> {
        self.acc.chars().next_back()
    }
}

impl<'a> Parser<'a> {
    /// Charge `n` bytes of look-ahead; false once the budget is spent.
    fn charge(&mut self, n: usize) -> bool {
        crate::guard::tick_bytes(n);
        if self.second().budget < n {
            self.second_mut().budget = 0;
            self.second_mut().exhausted = true;
            return false;
        }
        self.second_mut().budget -= n;
        true
    }

    /// json_repair's `skip_to_character`: the first unescaped target at or after `from`, or the
    /// input length.
    pub(crate) fn py_skip_to(&mut self, from: usize, targets: &[char]) -> usize {
        let n = self.bytes().len();
        // a search for the same targets that started at or before `from` and ended at or after
        // it answers this one too (json_repair caches the same way); keeps comma-heavy strings
        // linear
        let key = targets.iter().fold(0u64, |h, c| {
            h.wrapping_mul(1_000_003).wrapping_add(*c as u64)
        });
        if let Some(&(_, _, m)) = self.second().cache.iter().find(|&&(k, s0, m)| {
            k == key
                && s0 <= from
                && from <= m
                && (m >= n || at(self.bytes(), m.wrapping_sub(1)) != b'\\')
        }) {
            return m;
        }
        let r = self.py_skip_to_scan(from, targets);
        if self.second().cache.len() < 32 {
            self.second_mut().cache.push((key, from, r));
        } else {
            let slot = self.second().cache_next % 32;
            self.second_mut().cache[slot] = (key, from, r);
            self.second_mut().cache_next = slot + 1;
        }
        r
    }

    fn py_skip_to_scan(&mut self, from: usize, targets: &[char]) -> usize {
        let n = self.bytes().len();
        let mut i = from;
        let mut backslashes = 0usize;
        while i < n {
            if self.second().exhausted {
                return n;
            }
            let c = self.bytes()[i];
            if c == b'\\' {
                backslashes += 1;
                i += 1;
                continue;
            }
            let (ch, l) = if c < 0x80 {
                (c as char, 1)
            } else {
                char_at(self.bytes(), i).unwrap_or(('\u{fffd}', 1))
            };
            if targets.contains(&ch) && backslashes.is_multiple_of(2) {
                self.charge(i - from);
                return i;
            }
            backslashes = 0;
            i += l;
        }
        self.charge(n.saturating_sub(from));
        n
    }

    /// Skip whitespace from `from` (look-ahead, charged).
    pub(crate) fn py_scroll(&mut self, from: usize) -> usize {
        let mut i = from;
        while let Some(c) = self.ch(i) {
            if !c.is_whitespace() {
                break;
            }
            i += c.len_utf8();
        }
        self.charge(i - from);
        i
    }

    fn only_ws_between(&mut self, from: usize, to: usize) -> bool {
        let ok = self
            .b
            .get(from..to)
            .is_some_and(|s| s.iter().all(|c| is_ws(*c)))
            || (from >= to);
        self.charge(to.saturating_sub(from));
        ok
    }

    fn bare_key_followed_by_colon(&mut self, k: usize) -> bool {
        let c = self.ch(k);
        if !c.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return false;
        }
        let mut j = k;
        while let Some(c) = self.ch(j) {
            if !(c.is_alphanumeric() || c == '_' || c == '-') {
                break;
            }
            j += c.len_utf8();
        }
        self.charge(j - k);
        let j = self.py_scroll(j);
        self.ch(j) == Some(':')
    }

    /// Skip `# …`, `// …`, `/* … */` and whitespace before a member.
    fn scroll_comment_member_start(&mut self, from: usize) -> usize {
        let mut i = self.py_scroll(from);
        loop {
            let c = at(self.bytes(), i);
            if c == b'#' || (c == b'/' && at(self.bytes(), i + 1) == b'/') {
                let s = i;
                while i < self.bytes().len() && !matches!(self.bytes()[i], b'\n' | b'\r') {
                    i += 1;
                }
                self.charge(i - s);
                i = self.py_scroll(i);
            } else if c == b'/' && at(self.bytes(), i + 1) == b'*' {
                let s = i;
                i += 2;
                while i < self.bytes().len()
                    && !(self.bytes()[i] == b'*' && at(self.bytes(), i + 1) == b'/')
                {
                    i += 1;
                }
                i = (i + 2).min(self.bytes().len());
                self.charge(i - s);
                i = self.py_scroll(i);
            } else {
                return i;
            }
        }
    }

    fn object_member_starts_at(&mut self, m: usize) -> bool {
        match self.ch(m) {
            None | Some('}') => false,
            Some(c) if is_py_quote(c) => {
                let end_q = if c == '\u{201c}' { '\u{201d}' } else { c };
                let e = self.py_skip_to(m + c.len_utf8(), &[end_q]);
                if e >= self.bytes().len() {
                    return false;
                }
                let k = self.py_scroll(e + end_q.len_utf8());
                self.ch(k) == Some(':')
            }
            Some(c) if c.is_alphanumeric() || c == '_' => self.bare_key_followed_by_colon(m),
            _ => false,
        }
    }

    /// After a quote at `q`: `, "next": …` follows.
    fn quoted_member_follows(&mut self, q: usize) -> bool {
        let ql = self.clen(q);
        let comma = self.py_scroll(q + ql);
        if at(self.bytes(), comma) != b',' {
            return false;
        }
        let m = self.scroll_comment_member_start(comma + 1);
        self.object_member_starts_at(m)
    }

    /// json_repair's `classify_object_value_comma` for the comma at `i`.
    fn classify_comma(&mut self) -> CommaClass {
        let i = self.second().i;
        let next = self.py_scroll(i + 1);
        let n = self.bytes().len();
        let Some(nc) = self.ch(next) else {
            return CommaClass::Member;
        };
        if nc == '}' {
            return CommaClass::Member;
        }
        if is_py_quote(nc) {
            let e = self.py_skip_to(next + nc.len_utf8(), &[nc]);
            if e >= n {
                return CommaClass::String;
            }
            let k = self.py_scroll(e + nc.len_utf8());
            return if self.ch(k) == Some(':') {
                CommaClass::Member
            } else {
                CommaClass::String
            };
        }
        if nc == '`' {
            return if self.bare_key_followed_by_colon(next + 1) {
                CommaClass::Member
            } else {
                CommaClass::String
            };
        }
        if (nc.is_alphanumeric() || nc == '_') && self.bare_key_followed_by_colon(next) {
            // the colon after the bare key
            let mut j = next;
            while let Some(c) = self.ch(j) {
                if !(c.is_alphanumeric() || c == '_' || c == '-') {
                    break;
                }
                j += c.len_utf8();
            }
            let colon = self.py_scroll(j);
            if self.bare_member_has_value(colon + 1) {
                return CommaClass::Member;
            }
        }
        if nc == '{' || nc == '[' {
            return CommaClass::Container;
        }
        let sp = self.py_skip_to(next, &['"', '\'', '\u{201c}', '\u{201d}', '{', '[']);
        let Some(spc) = self.ch(sp) else {
            return CommaClass::StringNoFutureDelimiter;
        };
        if spc == '{' || spc == '[' {
            return CommaClass::String;
        }
        let e = self.py_skip_to(sp + spc.len_utf8(), &[spc]);
        if e >= n {
            return CommaClass::String;
        }
        let k = self.py_scroll(e + spc.len_utf8());
        if self.ch(k) == Some(':') {
            CommaClass::Member
        } else {
            CommaClass::String
        }
    }

    fn bare_member_has_value(&mut self, v: usize) -> bool {
        let s = self.py_scroll(v);
        match self.ch(s) {
            Some(c) if is_py_quote(c) || c == '{' || c == '[' || c == '-' || c.is_ascii_digit() => {
                return true
            }
            _ => {}
        }
        for lit in ["true", "false", "null"] {
            if self.bytes().get(s..s + lit.len()) == Some(lit.as_bytes()) {
                let e = self.ch(s + lit.len());
                if e.is_none_or(|e| e.is_whitespace() || matches!(e, ',' | '}' | ']')) {
                    return true;
                }
            }
        }
        let e = self.py_skip_to(s, &['"', '\'', '\u{201c}', '\u{201d}', '}']);
        self.ch(e) == Some('}')
    }

    /// json_repair's `_skip_inline_container`: end (exclusive) of the balanced container at
    /// `idx`, if it closes.
    fn skip_inline_container(&mut self, idx: usize) -> Option<usize> {
        let open = at(self.bytes(), idx);
        let close = |c: u8| match c {
            b'[' => b']',
            b'{' => b'}',
            _ => b')',
        };
        let mut stack = vec![close(open)];
        let mut i = idx + 1;
        let start = idx;
        while let Some(&want) = stack.last() {
            if self.second().exhausted || stack.len() > crate::MAX_DEPTH {
                return None;
            }
            let c = self.ch(i)?;
            if is_py_quote(c) {
                let end_q = if c == '\u{201c}' { '\u{201d}' } else { c };
                i = self.py_skip_to(i + c.len_utf8(), &[end_q]);
                if self.ch(i) != Some(end_q) {
                    return None;
                }
            } else if matches!(c, '[' | '{' | '(') && self.starts_nested_inline(i) {
                stack.push(close(c as u8));
            } else if c.is_ascii() && c as u8 == want {
                stack.pop();
                if stack.is_empty() {
                    self.charge(i - start);
                    return Some(i + 1);
                }
            }
            i += c.len_utf8();
        }
        None
    }

    fn starts_nested_inline(&mut self, idx: usize) -> bool {
        let open = at(self.bytes(), idx);
        let mut p = idx;
        while p > 0 {
            p -= 1;
            let pc = at(self.bytes(), p);
            if is_ws(pc) {
                continue;
            }
            if matches!(pc, b'[' | b'{' | b'(') {
                return true;
            }
            if !matches!(pc, b',' | b':') {
                return false;
            }
            let nx = self.py_scroll(idx + 1);
            let nc = self.ch(nx);
            if open == b'[' || open == b'(' {
                return nc.is_some_and(|c| {
                    matches!(c, ']' | ')' | '-' | '[' | '{' | '(' | 't' | 'f' | 'n')
                        || is_py_quote(c)
                        || c.is_ascii_digit()
                });
            }
            if open != b'{' {
                return false;
            }
            if nc.is_some_and(|c| c == '}' || is_py_quote(c)) {
                return true;
            }
            return pc == b':' && self.bare_key_followed_by_colon(nx);
        }
        true
    }

    /// `}` before a closing fence: does it belong to the string (a later quote ends it)?
    fn brace_before_fence_belongs(&mut self, st: &mut State, fence: usize) -> bool {
        let mut search = fence + 3;
        let next = self.scroll_comment_member_start(search);
        let mut keep_container = false;
        if matches!(at(self.bytes(), next), b'[' | b'{' | b'(') {
            if let Some(end) = self.skip_inline_container(next) {
                if self.post_fence_container_starts_member(end) {
                    return false;
                }
                keep_container = true;
                search = end;
            }
        }
        let rq = st.rq;
        let mut q = self.py_skip_to(search, &[rq]);
        while self.ch(q) == Some(rq) {
            let a = self.py_scroll(q + rq.len_utf8());
            if matches!(self.ch(a), None | Some(',') | Some('}') | Some(']')) {
                if keep_container {
                    st.pending_inline = true;
                }
                return true;
            }
            q = self.py_skip_to(q + rq.len_utf8(), &[rq]);
        }
        false
    }

    fn post_fence_container_starts_member(&mut self, end: usize) -> bool {
        let a = self.py_scroll(end);
        match self.ch(a) {
            None | Some('}') => true,
            Some(',') => {
                let m = self.scroll_comment_member_start(a + 1);
                matches!(self.ch(m), None | Some('}')) || self.object_member_starts_at(m)
            }
            _ => false,
        }
    }

    /// Parse a quoted string with json_repair's rules. Cursor at the opening quote. `Ok(None)`
    /// when this mode does not apply here (the caller uses the first-pass rules).
    pub(crate) fn parse_string_py(&mut self) -> PResult<Option<String>> {
        let ctx = self.ctx();
        if ctx == Ctx::Root || self.second().exhausted {
            return Ok(None);
        }
        let start = self.pos();
        let (lq, rq) = match self.ch(start) {
            Some('"') => ('"', '"'),
            Some('\'') => ('\'', '\''),
            Some('\u{201c}') => ('\u{201c}', '\u{201d}'),
            _ => return Ok(None),
        };
        if lq != '"' {
            self.fix("quotes", start);
        }
        // fast path: `"plain"` followed by what the context expects
        if lq == '"' {
            let e = self.py_skip_to_plain_quote(start + 1);
            if let Some(e) = e {
                let value = self.text().get(start + 1..e).unwrap_or("");
                if !value.contains(['\\', '\n', '\r']) {
                    let k = self.py_scroll(e + 1);
                    let nc = self.ch(k);
                    let ok = match ctx {
                        Ctx::Key => nc == Some(':'),
                        Ctx::Value => matches!(nc, None | Some(',') | Some('}')),
                        Ctx::Array => matches!(nc, None | Some(',') | Some(']')),
                        Ctx::Root => nc.is_none(),
                    };
                    if ok {
                        self.set_pos(e + 1);
                        return Ok(Some(value.to_string()));
                    }
                }
            }
        }
        let mut st = State {
            lq,
            rq,
            acc: String::new(),
            doubled: false,
            unmatched: false,
            pending_inline: false,
            inline_stack: Vec::new(),
            no_future_delim: false,
            open_braces: 0,
            regex_class_start: None,
            regex_class_ws: false,
        };
        let mut i = start + lq.len_utf8();
        // ```json … ``` inside a string is parsed as the JSON it holds
        if self.bytes().get(i..i + 7) == Some(b"```json") {
            let k = self.py_skip_to(i + 7, &['`']);
            if self.bytes().get(k..k + 3) == Some(b"```") {
                return Ok(None);
            }
        }
        if self.ch(i) == Some(lq) {
            let n1 = self.ch(i + lq.len_utf8());
            if (ctx == Ctx::Key && n1 == Some(':'))
                || (ctx == Ctx::Value && matches!(n1, Some(',') | Some('}')))
                || (ctx == Ctx::Array && matches!(n1, Some(',') | Some(']')))
            {
                self.set_pos(i + lq.len_utf8());
                return Ok(Some(String::new()));
            }
            if n1 == Some(lq) {
                // `"""` — json_repair gives up on the string
                self.fix("doubled_quote", i);
                self.set_pos(i);
                return Ok(Some(String::new()));
            }
            let k = self.py_skip_to(i + lq.len_utf8(), &[rq]);
            if self.ch(k + rq.len_utf8()) == Some(rq) {
                self.fix("doubled_quote", i);
                st.doubled = true;
                i += lq.len_utf8();
            } else {
                let mut handled = false;
                if self.ch(k) == Some(rq) {
                    let outer = self.py_skip_to(k + rq.len_utf8(), &[rq]);
                    let after = self.py_scroll(outer + rq.len_utf8());
                    let between_ws = self.only_ws_between(i + lq.len_utf8(), k);
                    if ctx == Ctx::Value
                        && !between_ws
                        && self.ch(outer) == Some(rq)
                        && matches!(self.ch(after), None | Some(',') | Some('}'))
                    {
                        // `""quoted" span", …` — the second quote opens a quoted span
                        self.fix("unescaped_quote", i);
                        st.push(lq);
                        st.unmatched = true;
                        i += lq.len_utf8();
                        handled = true;
                    }
                }
                if !handled {
                    let j = self.py_scroll(i + lq.len_utf8());
                    let nc = self.ch(j);
                    if nc.is_some_and(|c| is_py_quote(c) || c == '{' || c == '[') {
                        self.fix("doubled_quote", i);
                        self.set_pos(i + lq.len_utf8());
                        return Ok(Some(String::new()));
                    }
                    if !matches!(nc, Some(',') | Some(']') | Some('}')) {
                        self.fix("doubled_quote", i);
                        i += lq.len_utf8();
                    }
                }
            }
        }
        self.second_mut().i = i;
        let end_char = self.py_scan_body(&mut st, ctx)?;
        if self.second().exhausted {
            return Err(self.err(self.pos(), "look-ahead budget spent"));
        }
        let mut i = self.second().i;
        let mut out = st.acc;
        if end_char != Some(rq) {
            if end_char.is_none() {
                self.fix("truncated", i);
            } else if ctx == Ctx::Key && end_char == Some(':') {
                // `"key:"value"` — the end quote of the key sits after the colon
                self.fix("unescaped_quote", i);
            } else {
                self.fix("missing_quote", i);
            }
            let t = out.trim_end().len();
            out.truncate(t);
        } else {
            i += rq.len_utf8();
        }
        if out.ends_with('\n') {
            let t = out.trim_end().len();
            out.truncate(t);
        }
        self.set_pos(i);
        Ok(Some(out))
    }

    /// The next `"` after `from` (no escape handling: the fast path rejects backslashes anyway).
    fn py_skip_to_plain_quote(&mut self, from: usize) -> Option<usize> {
        let rel = self.bytes().get(from..)?.iter().position(|&c| c == b'"')?;
        // the scan stops at the first quote; cost is what it read
        self.charge(rel);
        Some(from + rel)
    }

    /// The body loop (`_scan_string_body`). Returns the char that stopped it (`None` = end).
    fn py_scan_body(&mut self, st: &mut State, ctx: Ctx) -> PResult<Option<char>> {
        let rq = st.rq;
        let mut ch = self.ch(self.second().i);
        let mut polled = self.second().i;
        loop {
            if self.second().exhausted {
                return Ok(ch);
            }
            if self.second().i >= polled + crate::parser::POLL_STRIDE {
                crate::guard::tick_bytes(self.second().i - polled);
                polled = self.second().i;
            }
            let Some(c) = ch else { return Ok(None) };
            if c == rq {
                return Ok(ch);
            }
            let i = self.second().i;
            // a balanced `{key: …}` block inside an object value belongs to the string
            if matches!(c, '{' | '[' | '(')
                && (st.pending_inline
                    || (ctx == Ctx::Value
                        && c == '{'
                        && i > 0
                        && at(self.bytes(), i - 1) != b'\\'
                        && {
                            let k = self.py_scroll(i + 1);
                            self.bare_key_followed_by_colon(k)
                        }))
                && st.last() != Some('\\')
            {
                if let Some(end) = self.skip_inline_container(i) {
                    self.fix("unescaped_quote", i);
                    st.pending_inline = false;
                    st.inline_stack.clear();
                    let seg = self.text().get(i..end).unwrap_or("").to_string();
                    st.push_str(&seg);
                    self.second_mut().i = end;
                    ch = self.ch(end);
                    continue;
                }
            }
            if ctx == Ctx::Value && c == ',' && !st.pending_inline && st.inline_stack.is_empty() {
                let cls = if st.no_future_delim {
                    CommaClass::StringNoFutureDelimiter
                } else {
                    self.classify_comma()
                };
                if cls == CommaClass::Member {
                    return Ok(ch);
                }
                if cls == CommaClass::StringNoFutureDelimiter {
                    st.no_future_delim = true;
                }
                st.pending_inline = cls == CommaClass::Container;
                st.push(',');
                self.second_mut().i += 1;
                ch = self.ch(self.second().i);
                continue;
            }
            // inline container stack
            let mut keep = false;
            if c == '{' || c == '[' {
                if st.pending_inline {
                    st.inline_stack.push(c as u8);
                    st.pending_inline = false;
                } else if !st.inline_stack.is_empty() {
                    st.inline_stack.push(c as u8);
                }
            }
            if let Some(&top) = st.inline_stack.last() {
                if (c == '}' && top == b'{') || (c == ']' && top == b'[') {
                    st.inline_stack.pop();
                    keep = true;
                }
            }
            if keep {
                st.push(c);
                self.second_mut().i += 1;
                ch = self.ch(self.second().i);
                continue;
            }
            if ctx == Ctx::Value && c == '}' && st.last() != Some(rq) {
                if st.open_braces > 0 {
                    st.push(c);
                    self.second_mut().i += 1;
                    ch = self.ch(self.second().i);
                    continue;
                }
                let mut missing = true;
                if at(self.bytes(), i + 1) == b'\\' {
                    missing = false;
                }
                let k = self.py_skip_to(i + 1, &[rq]);
                if k < self.bytes().len() {
                    let k2 = self.py_scroll(k + rq.len_utf8());
                    match self.ch(k2) {
                        None | Some(',') | Some('}') => missing = false,
                        Some(_) => {
                            let k3 = self.py_skip_to(k2, &[st.lq]);
                            if k3 >= self.bytes().len() {
                                missing = false;
                            } else {
                                let k4 = self.py_scroll(k3 + st.lq.len_utf8());
                                if self.ch(k4).is_some_and(|c| c != ':') {
                                    missing = false;
                                }
                            }
                        }
                    }
                } else {
                    let k = self.py_skip_to(i + 1, &[':']);
                    if k < self.bytes().len() {
                        return Ok(ch);
                    }
                    let k = self.py_scroll(i + 1);
                    let j = self.py_skip_to(k, &['}']);
                    if j > k + 1 {
                        missing = false;
                    }
                }
                if missing {
                    return Ok(ch);
                }
            }
            if c == ']' && self.in_ctx(b'[') && st.last() != Some(rq) {
                let k = self.py_skip_to(i, &[rq]);
                if k >= self.bytes().len() {
                    return Ok(ch);
                }
            }
            if ctx == Ctx::Value && c == '}' {
                let k = self.py_scroll(i + 1);
                if self.bytes().get(k..k + 3) == Some(b"```") {
                    if !self.brace_before_fence_belongs(st, k) {
                        return Ok(ch);
                    }
                } else if k >= self.bytes().len() {
                    return Ok(ch);
                }
            }
            // ordinary content
            if c < ' ' {
                self.fix("control_character", i);
            }
            st.push(c);
            self.second_mut().i = i + c.len_utf8();
            ch = self.ch(self.second().i);
            let Some(c2) = ch else { return Ok(None) };
            if st.last() == Some('\\') && self.py_escape(st, c2) {
                ch = self.ch(self.second().i);
                continue;
            }
            let i = self.second().i;
            if c2 == ':' && ctx == Ctx::Key {
                let k = self.py_skip_to(i + 1, &[st.lq]);
                if k < self.bytes().len() {
                    let k = self.py_skip_to(k + st.lq.len_utf8(), &[rq]);
                    if k < self.bytes().len() {
                        let k = self.py_scroll(k + rq.len_utf8());
                        if matches!(self.ch(k), Some(',') | Some('}')) {
                            return Ok(ch);
                        }
                    }
                } else {
                    return Ok(ch);
                }
            }
            if c2 == rq && ctx == Ctx::Value && self.quote_in_regex_class(st) {
                st.push(c2);
                self.second_mut().i += rq.len_utf8();
                ch = self.ch(self.second().i);
                continue;
            }
            if c2 == rq && st.last() != Some('\\') {
                match self.right_delimiter_candidate(st, ctx)? {
                    Cand::Break => return Ok(ch),
                    Cand::Continue => {
                        ch = self.ch(self.second().i);
                        continue;
                    }
                    Cand::End => return Ok(ch),
                }
            }
        }
    }

    fn quote_in_regex_class(&mut self, st: &State) -> bool {
        if st.regex_class_start.is_none() || st.regex_class_ws {
            return false;
        }
        let k = self.py_skip_to(self.second().i + 1, &[']']);
        k < self.bytes().len()
    }

    /// After a backslash was appended and `c` follows. Returns true when handled.
    fn py_escape(&mut self, st: &mut State, c: char) -> bool {
        let i = self.second().i;
        let rq = st.rq;
        if c == '\\' {
            let run_start = i - 1;
            let mut run_end = i + 1;
            while at(self.bytes(), run_end) == b'\\' {
                run_end += 1;
            }
            let run = run_end - run_start;
            let next = self.ch(run_end);
            let aq = self.py_scroll(run_end + 1);
            let after = self.ch(aq);
            if run.is_multiple_of(2)
                && (next != Some(rq)
                    || matches!(after, None | Some(',') | Some(':') | Some('}') | Some(']')))
            {
                st.replace_backslash(&"\\".repeat(run / 2));
                self.second_mut().i = run_end;
                return true;
            }
        }
        let mapped = if c == rq {
            Some(c)
        } else if c.is_ascii() {
            crate::chars::simple_escape(c as u8)
        } else {
            None
        };
        if let Some(m) = mapped {
            st.replace_backslash(&m.to_string());
            self.second_mut().i = i + c.len_utf8();
            while let Some(nc) = self.ch(self.second().i) {
                if st.last() == Some('\\') && (nc == rq || nc == '\\') {
                    st.replace_backslash(&nc.to_string());
                    self.second_mut().i += nc.len_utf8();
                } else {
                    break;
                }
            }
            return true;
        }
        if c == 'u' || c == 'x' {
            let nd = if c == 'u' { 4 } else { 2 };
            let hex = self.bytes().get(i + 1..i + 1 + nd);
            if let Some(h) = hex.filter(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                let cp =
                    u32::from_str_radix(std::str::from_utf8(h).unwrap_or("0"), 16).unwrap_or(0);
                let mut end = i + 1 + nd;
                let mut chr = char::from_u32(cp);
                if c == 'u'
                    && (0xD800..0xDC00).contains(&cp)
                    && at(self.bytes(), end) == b'\\'
                    && at(self.bytes(), end + 1) == b'u'
                {
                    if let Some(h2) = self
                        .b
                        .get(end + 2..end + 6)
                        .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                    {
                        let lo = u32::from_str_radix(std::str::from_utf8(h2).unwrap_or("0"), 16)
                            .unwrap_or(0);
                        if (0xDC00..0xE000).contains(&lo) {
                            chr = char::from_u32(0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00));
                            end += 6;
                        }
                    }
                }
                st.replace_backslash(&chr.unwrap_or('\u{fffd}').to_string());
                self.second_mut().i = end;
                return true;
            }
            return false;
        }
        if c == '\u{201e}' || (is_py_quote(c) && c != rq) {
            st.replace_backslash(&c.to_string());
            self.second_mut().i = i + c.len_utf8();
            return true;
        }
        false
    }

    /// json_repair's `_handle_right_delimiter_candidate` for the quote at `py_i`.
    fn right_delimiter_candidate(&mut self, st: &mut State, ctx: Ctx) -> PResult<Cand> {
        let i = self.second().i;
        let rq = st.rq;
        let rl = rq.len_utf8();
        if st.doubled && self.ch(i + rl) == Some(rq) {
            // `""value""`: the doubled closing quote ends the string
            self.second_mut().i = i + rl;
            return Ok(Cand::End);
        }
        if st.unmatched {
            st.unmatched = false;
            self.fix("unescaped_quote", i);
            st.push(rq);
            self.second_mut().i = i + rl;
            return Ok(Cand::Continue);
        }
        let in_value = if ctx == Ctx::Key {
            let n = self.open_containers().len().saturating_sub(1);
            self.open_containers()[..n].contains(&b'{')
        } else {
            self.in_ctx(b'{')
        };
        let in_array = self.in_ctx(b'[');
        let mut k = i + rl;
        let mut check_comma = true;
        let start = k;
        while let Some(nc) = self.ch(k) {
            if nc == rq || nc == st.lq {
                break;
            }
            if check_comma && nc.is_alphabetic() {
                check_comma = false;
            }
            if (ctx == Ctx::Key && matches!(nc, ':' | '}'))
                || (in_value && nc == '}')
                || (in_array && matches!(nc, ']' | ','))
                || (check_comma && ctx == Ctx::Value && nc == ',')
            {
                break;
            }
            k += nc.len_utf8();
        }
        self.charge(k - start);
        if self.second().exhausted {
            return Ok(Cand::End);
        }
        let nc = self.ch(k);
        if nc == Some(',') && ctx == Ctx::Value {
            let q = self.py_skip_to(k + 1, &[rq]);
            let a = self.py_scroll(q + rl);
            if matches!(self.ch(a), Some('}') | Some(',')) {
                self.fix("unescaped_quote", i);
                st.push(rq);
                self.second_mut().i = i + rl;
                return Ok(Cand::Continue);
            }
        } else if nc == Some(rq) && at(self.bytes(), k.wrapping_sub(1)) != b'\\' {
            if self.only_ws_between(i + rl, k)
                && !(ctx == Ctx::Value && self.quoted_member_follows(k))
            {
                return Ok(Cand::Break);
            }
            match ctx {
                Ctx::Value => {
                    if self.quoted_member_follows(k) {
                        self.fix("unescaped_quote", i);
                        st.push(rq);
                        self.second_mut().i = i + rl;
                        return Ok(Cand::Continue);
                    }
                    let mut j = self.py_skip_to(k + rl, &[rq]) + rl;
                    let s = j;
                    while let Some(c) = self.ch(j) {
                        if c == ':' {
                            break;
                        }
                        if matches!(c, ',' | ']' | '}')
                            || (c == rq && at(self.bytes(), j - 1) != b'\\')
                        {
                            break;
                        }
                        j += c.len_utf8();
                    }
                    self.charge(j.saturating_sub(s));
                    if self.ch(j) != Some(':') {
                        self.fix("unescaped_quote", i);
                        st.unmatched = !st.unmatched;
                        st.push(rq);
                        self.second_mut().i = i + rl;
                        return Ok(Cand::Continue);
                    }
                }
                Ctx::Array => {
                    let mut even = true;
                    let mut kk = k;
                    while self.ch(kk) == Some(rq) {
                        kk = self.py_skip_to(kk + rl, &[rq, ']']);
                        if self.ch(kk) != Some(rq) {
                            even = false;
                            break;
                        }
                        kk = self.py_skip_to(kk + rl, &[rq, ']']);
                        if self.second().exhausted {
                            break;
                        }
                    }
                    if even {
                        self.fix("unescaped_quote", i);
                        st.unmatched = !st.unmatched;
                        st.push(rq);
                        self.second_mut().i = i + rl;
                        return Ok(Cand::Continue);
                    }
                    return Ok(Cand::Break);
                }
                Ctx::Key => {
                    self.fix("unescaped_quote", i);
                    st.push(rq);
                    self.second_mut().i = i + rl;
                    return Ok(Cand::Continue);
                }
                Ctx::Root => {}
            }
        }
        Ok(Cand::End)
    }
}

impl<'a> Parser<'a> {
    /// An object value without quotes (json_repair's "missing quotes" string): commas and
    /// braces belong to it unless the next member or the end of the object follows; a quote
    /// ends it (and is dropped) unless it opens the next key.
    pub(crate) fn parse_unquoted_value_py(&mut self) -> Option<String> {
        let start = self.pos();
        let mut i = start;
        let mut open_braces = 0usize;
        let mut end_at = None;
        while let Some(c) = self.ch(i) {
            if self.second().exhausted {
                return None;
            }
            match c {
                '"' => {
                    let q = self.py_skip_to(i + 1, &['"']);
                    let after = self.py_scroll(q + 1);
                    if q < self.bytes().len() && self.ch(after) == Some(':') {
                        end_at = Some((i, i));
                    } else {
                        end_at = Some((i, i + 1));
                    }
                    break;
                }
                ',' => {
                    self.second_mut().i = i;
                    if self.classify_comma() == CommaClass::Member {
                        end_at = Some((i, i));
                        break;
                    }
                }
                '{' => open_braces += 1,
                '}' if open_braces > 0 => open_braces -= 1,
                '}' | ']' => {
                    end_at = Some((i, i));
                    break;
                }
                '\n' => {
                    end_at = Some((i, i));
                    break;
                }
                _ => {}
            }
            i += c.len_utf8();
        }
        let (text_end, resume) = end_at.unwrap_or((self.bytes().len(), self.bytes().len()));
        let text = self.text().get(start..text_end)?.trim_end();
        if text.is_empty() {
            return None;
        }
        self.fix("unquoted_string", start);
        if resume > text_end {
            self.fix("missing_quote", text_end);
        }
        self.set_pos(resume.max(start + text.len()));
        Some(text.to_string())
    }

    /// `"```json {…}```"` — a fenced JSON block inside a string is the value it holds.
    /// True when the value was parsed (and pushed on the value stack).
    pub(crate) fn parse_fenced_in_string_py(&mut self) -> PResult<bool> {
        let Some(fixes) = self.fenced_in_string_start() else {
            return Ok(false);
        };
        let start = self.pos();
        // a fenced block in a string in a fenced block …: counts as nesting
        self.check_depth()?;
        self.set_pos(start + 8);
        let kind = self.parse_value();
        self.unnest();
        let kind = kind?;
        Ok(self.fenced_in_string_end(start, fixes, kind))
    }

    /// Is there a closing fence for the `"```json` at the cursor (and was this start not
    /// abandoned before)? Returns the number of fixes so far.
    #[inline(never)]
    fn fenced_in_string_start(&mut self) -> Option<usize> {
        let start = self.pos();
        if self.second().fence_failed.contains(&start) {
            return None;
        }
        let close = self.py_skip_to(start + 8, &['`']);
        if self.bytes().get(close..close + 3) != Some(b"```") {
            return None;
        }
        Some(self.fix_count())
    }

    #[inline(never)]
    fn fenced_in_string_end(
        &mut self,
        start: usize,
        fixes: usize,
        kind: Option<crate::parser::Kind>,
    ) -> bool {
        match kind {
            Some(_) if self.bytes().get(self.pos()..self.pos() + 3) == Some(b"```") => {}
            _ => {
                if kind.is_some() {
                    self.take();
                }
                // the attempt is abandoned: its work counts against the look-ahead budget and
                // this start is not tried again (nested attempts would otherwise multiply)
                self.charge(self.pos().saturating_sub(start));
                self.second_mut().fence_failed.insert(start);
                self.set_pos(start);
                self.truncate_fixes(fixes);
                return false;
            }
        }
        self.set_pos(self.pos() + 3);
        let j = self.peek_ws(self.pos());
        if at(self.bytes(), j) == b'"' {
            self.set_pos(j + 1);
        }
        self.fix("code_fence", start);
        true
    }

    fn peek_ws(&self, mut j: usize) -> usize {
        while is_ws(at(self.bytes(), j)) {
            j += 1;
        }
        j
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum CommaClass {
    Container,
    Member,
    String,
    StringNoFutureDelimiter,
}

enum Cand {
    /// The string ends at this quote (stop scanning).
    Break,
    /// The quote was kept as content.
    Continue,
    /// Not handled: the quote ends the string.
    End,
}

fn is_py_quote(c: char) -> bool {
    matches!(c, '"' | '\'' | '\u{201c}' | '\u{201d}')
}
