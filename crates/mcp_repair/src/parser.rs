//! The repairing parser: a single forward pass that builds a `serde_json::Value` directly.
//!
//! The structure follows josdejong/jsonrepair (recursive descent that repairs as it goes), with
//! additions for the json_repair (Python) suite and LLM output. Guarantees:
//! - every byte access goes through `at()`/`get()`, so hostile input cannot index out of bounds;
//! - recursion depth is capped at [`MAX_DEPTH`] (an error, not a stack overflow);
//! - linear time: the only re-scan is the string "second pass" (jsonrepair's retry when an end
//!   quote turns out to be wrong), and its total cost is charged to a budget proportional to the
//!   input; once the budget is spent strings are parsed in the conservative one-pass mode.

use crate::chars::*;
// `parser` and `py` import each other, and that is honest mutual recursion, not a layering
// slip: the parser's string rule asks the second opinion (`py`) at a doubtful quote, and the
// second opinion reads strings by calling back into the parser's methods (its input, cursor,
// open containers, nesting). Either half alone cannot parse a string; `py` holds only its own
// state (`SecondOpinion`), which the parser carries without reading.
use crate::py::SecondOpinion;
use crate::{Fix, RepairError};
use serde_json::{Map, Number, Value};

/// Maximum nesting of arrays/objects/tuples. Deeper input is an error (PostgreSQL backends have
/// a limited stack; jsonb itself refuses much deeper documents anyway).
pub const MAX_DEPTH: usize = 128;

pub type PResult<T> = Result<T, RepairError>;

/// Where the string being parsed sits (json_repair's `ContextValues`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ctx {
    Key,
    Value,
    Array,
    Root,
}

pub struct Parser<'a> {
    pub s: &'a str,
    pub b: &'a [u8],
    pub i: usize,
    /// Offset of `s` within the caller's original input (for fix/error positions).
    pub base: usize,
    pub fixes: Vec<Fix>,
    pub(crate) depth: usize,
    /// Open containers (`{`, `[`, `(`), innermost last.
    pub(crate) stack: Vec<u8>,
    /// Set when `skip_ws` consumed a newline (root level uses it to detect NDJSON).
    pub nl_seen: bool,
    /// Remaining bytes the string retry may re-scan before switching to conservative mode.
    retry_budget: usize,
    /// Second-opinion mode: json_repair's quote rules for strings (see `py.rs`).
    pub py: bool,
    /// An object key is being parsed (context for the second-opinion rules).
    pub(crate) in_key: bool,
    /// The second-opinion mode's own state (`py.rs`).
    second: SecondOpinion,
    /// First-pass quote decisions that may be wrong (an inner quote kept as content, a string
    /// re-read because its end quote was wrong, doubled quotes): root asks for a second opinion.
    pub doubt: u32,
    /// Of those, inner quotes kept as content.
    pub(crate) kept_quotes: u32,
    /// A `"a" + "b" + …` chain is being read: the strings inside it do not start a chain of
    /// their own (the loop in `parse_concatenated` reads the whole chain without recursion).
    in_concat: bool,
    /// Parsed values waiting for their container: the recursive functions push the value they
    /// parsed here instead of returning it, so no 80-byte `Value` sits in their stack frames.
    vals: Vec<Value>,
}

/// Interrupt-poll units one value costs (see `guard::tick`).
const VALUE_COST: u32 = 64;

/// Loops over the bytes of one string account their progress in steps of this many bytes.
pub(crate) const POLL_STRIDE: usize = 1 << 16;

/// What `parse_scalar` found.
enum Scalar {
    /// Nothing, or a value (pushed on `vals`) of this kind.
    Done(Option<Kind>),
    /// `name(` — parse the call's argument (`parse_call`, on the recursive path).
    Call { start: usize, open: usize },
}

/// State of an object's member loop.
struct ObjectState {
    map: Map<String, Value>,
    initial: bool,
    open: usize,
    last_key: Option<String>,
    /// Python-style set literal `{'a', 'b'}` → array
    set_items: Option<Vec<Value>>,
}

impl ObjectState {
    fn new(map: Map<String, Value>, initial: bool, open: usize) -> Box<ObjectState> {
        Box::new(ObjectState {
            map,
            initial,
            open,
            last_key: None,
            set_items: None,
        })
    }
}

/// What the member loop does after `member_head`.
enum Member {
    /// Go on with the next member.
    Next,
    /// The member loop ends.
    End,
    /// A stray `:`; its value is parsed and dropped.
    Garbage,
    /// `[` after an array member: parse it and append (key position for the fix).
    MoreArray(usize),
    /// A key (and colon): parse its value.
    Value(MemberHead),
}

struct MemberHead {
    key: String,
    colon: bool,
    truncated: bool,
    vpos: usize,
}

/// What the array loop does after `array_element`.
enum Element {
    /// Next element (after a separator).
    Next,
    /// Next element without a separator (a stray `}` was skipped).
    Again,
    /// The loop ends; the closing bracket follows.
    End,
    /// A `}` closed this array for the parent object.
    Closed,
    /// `"key":` — an object without braces starts here.
    Object(String),
}

/// What kind of value a parse pushed on `Parser::vals`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Value,
    /// An unquoted symbol (kept for the NDJSON/prose decisions at root level).
    Unquoted,
}

/// Outcome of a value parse that also tells the caller what kind of token it was.
pub enum Parsed {
    Value(Value),
    /// An unquoted symbol (kept for the NDJSON/prose decisions at root level).
    Unquoted(Value),
}

impl Parsed {
    pub fn into_value(self) -> Value {
        match self {
            Parsed::Value(v) | Parsed::Unquoted(v) => v,
        }
    }
}

impl<'a> Parser<'a> {
    pub fn new(s: &'a str, base: usize) -> Self {
        Parser {
            s,
            b: s.as_bytes(),
            i: 0,
            base,
            fixes: Vec::new(),
            depth: 0,
            stack: Vec::new(),
            nl_seen: false,
            retry_budget: 4 * s.len() + 4096,
            py: false,
            in_key: false,
            second: SecondOpinion::new(s.len()),
            doubt: 0,
            kept_quotes: 0,
            in_concat: false,
            vals: Vec::new(),
        }
    }

    #[inline]
    pub fn fix(&mut self, kind: &'static str, pos: usize) {
        self.fixes.push(Fix {
            kind,
            position: self.base + pos,
        });
    }

    pub fn err(&self, pos: usize, msg: impl Into<String>) -> RepairError {
        RepairError {
            position: self.base + pos.min(self.b.len()),
            message: msg.into(),
        }
    }

    #[inline]
    pub fn c(&self) -> u8 {
        at(self.b, self.i)
    }

    #[inline]
    pub fn eof(&self) -> bool {
        self.i >= self.b.len()
    }

    // ---------------------------------------------------------------- whitespace & comments

    /// Skip whitespace and comments (`//`, `/* */`, `#`). Returns true if anything was skipped.
    pub fn skip_ws(&mut self, skip_newline: bool) -> bool {
        let start = self.i;
        loop {
            let c = self.c();
            if is_ws(c) {
                if c == b'\n' {
                    if !skip_newline {
                        break;
                    }
                    self.nl_seen = true;
                }
                self.i += 1;
            } else if c >= 0x80 {
                let l = special_ws_len(self.b, self.i);
                if l == 0 {
                    break;
                }
                self.fix("special_whitespace", self.i);
                self.i += l;
            } else if c == b'/' && at(self.b, self.i + 1) == b'*' {
                self.fix("comment", self.i);
                let mut j = self.i + 2;
                while j < self.b.len() && !(self.b[j] == b'*' && at(self.b, j + 1) == b'/') {
                    j += 1;
                }
                self.i = (j + 2).min(self.b.len());
            } else if c == b'/' && at(self.b, self.i + 1) == b'/' {
                self.fix("comment", self.i);
                while self.i < self.b.len() && self.b[self.i] != b'\n' {
                    self.i += 1;
                }
            } else if c == b'#' {
                // Python/shell style comment; ends at the line end or a closing bracket that
                // belongs to the structure (json_repair behaviour).
                self.fix("comment", self.i);
                while self.i < self.b.len() && !matches!(self.b[self.i], b'\n' | b'}' | b']') {
                    self.i += 1;
                }
            } else {
                break;
            }
        }
        self.i > start
    }

    /// Lookahead version of `skip_ws(false)` that records nothing.
    fn peek_skip_ws_no_nl(&self, mut j: usize) -> usize {
        loop {
            let c = at(self.b, j);
            if is_ws_no_nl(c) {
                j += 1;
            } else if c >= 0x80 && special_ws_len(self.b, j) > 0 {
                j += special_ws_len(self.b, j);
            } else if c == b'/' && at(self.b, j + 1) == b'*' {
                j += 2;
                while j < self.b.len() && !(self.b[j] == b'*' && at(self.b, j + 1) == b'/') {
                    j += 1;
                }
                j = (j + 2).min(self.b.len());
            } else if c == b'/' && at(self.b, j + 1) == b'/' {
                while j < self.b.len() && self.b[j] != b'\n' {
                    j += 1;
                }
            } else {
                return j;
            }
        }
    }

    fn peek_skip_ws(&self, mut j: usize) -> usize {
        while is_ws(at(self.b, j)) {
            j += 1;
        }
        j
    }

    fn prev_non_ws(&self, mut j: usize) -> usize {
        while j > 0 && is_ws(at(self.b, j)) {
            j -= 1;
        }
        j
    }

    // ---------------------------------------------------------------- values
    //
    // Stack discipline. Nesting recurses: value → container → value. The functions on that
    // cycle (`parse_value*`, `parse_object`, `parse_object_body`, `parse_array`, `parse_tuple`,
    // `parse_implicit_object`, `parse_call`, the second opinion's fenced string) keep their own
    // frames small and hand everything that does not recurse to `#[inline(never)]` helpers,
    // whose frames are gone again before the next level starts. One level then costs about
    // 2 KB of stack in an unoptimized build and well under 1 KB optimized, so `MAX_DEPTH` levels
    // fit a 512 KB stack with room to spare (`tests/stack.rs` runs every shape on such a
    // thread). Every level goes through `enter()`/`check_depth()`, which also asks the host
    // (PostgreSQL's `stack_is_too_deep()` inside the database) whether the stack is nearly used up.

    /// Push a value on `vals`.
    #[inline(never)]
    fn put(&mut self, p: Parsed) -> Kind {
        let kind = match p {
            Parsed::Value(_) => Kind::Value,
            Parsed::Unquoted(_) => Kind::Unquoted,
        };
        self.vals.push(p.into_value());
        kind
    }

    /// Pop the value the last successful parse pushed.
    #[inline(never)]
    pub(crate) fn take(&mut self) -> Value {
        self.vals.pop().unwrap_or(Value::Null)
    }

    /// Pop a value of `kind` (if any) and append it to `items`.
    #[inline(never)]
    fn push_taken(&mut self, items: &mut Vec<Value>, kind: Option<Kind>) {
        if kind.is_some() {
            let v = self.take();
            items.push(v);
        }
    }

    /// Root level: one value (whitespace before it skipped), returned rather than pushed.
    pub fn parse_root_value(&mut self) -> PResult<Option<Parsed>> {
        Ok(match self.parse_value_no_trailing_ws()? {
            None => None,
            Some(Kind::Value) => Some(Parsed::Value(self.take())),
            Some(Kind::Unquoted) => Some(Parsed::Unquoted(self.take())),
        })
    }

    /// Root level: the members of an object continue after it ended (`{"a":1}, "b": 2}`).
    pub fn continue_object(&mut self, map: Map<String, Value>, open: usize) -> PResult<Value> {
        self.parse_object_body(ObjectState::new(map, true, open))?;
        Ok(self.take())
    }

    /// Parse one value (skipping whitespace/comments around it) and push it on `vals`.
    /// `Ok(None)` = no value here.
    pub fn parse_value(&mut self) -> PResult<Option<Kind>> {
        let r = self.parse_value_no_trailing_ws()?;
        self.skip_ws(true);
        Ok(r)
    }

    /// Like `parse_value` but leaves the whitespace after the value unconsumed.
    pub fn parse_value_no_trailing_ws(&mut self) -> PResult<Option<Kind>> {
        self.skip_ws(true);
        let start = self.i;
        let r = self.parse_value_inner()?;
        if r.is_none() {
            self.i = start;
        }
        Ok(r)
    }

    fn parse_value_inner(&mut self) -> PResult<Option<Kind>> {
        crate::guard::tick(VALUE_COST);
        match self.c() {
            0 if self.eof() => Ok(None),
            b'{' => {
                self.parse_object()?;
                Ok(Some(Kind::Value))
            }
            b'[' => {
                self.parse_array()?;
                Ok(Some(Kind::Value))
            }
            b'(' => {
                self.parse_tuple()?;
                Ok(Some(Kind::Value))
            }
            _ => {
                if self.fenced_string_ahead() && self.parse_fenced_in_string_py()? {
                    return Ok(Some(Kind::Value));
                }
                match self.parse_scalar()? {
                    Scalar::Done(p) => Ok(p),
                    Scalar::Call { start, open } => self.parse_call(start, open),
                }
            }
        }
    }

    /// Second opinion: `"```json` — a fenced block inside a string may be the value.
    #[inline(never)]
    fn fenced_string_ahead(&self) -> bool {
        self.py && self.c() == b'"' && self.b.get(self.i + 1..self.i + 8) == Some(b"```json")
    }

    /// Everything that is not a container: strings, numbers, keywords, bare words, regexes. A
    /// function call (`cb({…})`) is only recognized here; `parse_call` parses its argument.
    #[inline(never)]
    fn parse_scalar(&mut self) -> PResult<Scalar> {
        let c = self.c();
        if c == b'"'
            || c == b'\''
            || c == b'`'
            || c == b'\\'
            || (c >= 0x80 && is_quote(self.b, self.i))
        {
            if let Some(s) = self.parse_string_auto()? {
                return Ok(Scalar::Done(Some(
                    self.put(Parsed::Value(Value::String(s))),
                )));
            }
            if c == b'\\' {
                return Ok(Scalar::Done(None));
            }
        }
        if let Some(v) = self.parse_number() {
            return Ok(Scalar::Done(Some(self.put(Parsed::Value(v)))));
        }
        if let Some(v) = self.parse_keyword() {
            return Ok(Scalar::Done(Some(self.put(Parsed::Value(v)))));
        }
        if self.py && c.is_ascii_alphabetic() && self.ctx() == Ctx::Value {
            if let Some(v) = self.parse_unquoted_value_py() {
                return Ok(Scalar::Done(Some(
                    self.put(Parsed::Unquoted(Value::String(v))),
                )));
            }
        }
        if let Some((start, open)) = self.call_start() {
            return Ok(Scalar::Call { start, open });
        }
        if let Some(v) = self.parse_unquoted(false) {
            return Ok(Scalar::Done(Some(self.put(v))));
        }
        if c == b'/' {
            let v = self.parse_regex();
            return Ok(Scalar::Done(Some(self.put(Parsed::Value(v)))));
        }
        Ok(Scalar::Done(None))
    }

    // -----------------------------------------------------------------------------------------
    // What the second-opinion mode (`py.rs`) may see and do: the input, the cursor, the open
    // containers, fixes and nesting; its own state. It reads no field of the parser.

    /// The input (the region being parsed).
    #[inline]
    pub(crate) fn text(&self) -> &'a str {
        self.s
    }

    /// The input's bytes.
    #[inline]
    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.b
    }

    /// The cursor (byte offset in [`Parser::text`]).
    #[inline]
    pub(crate) fn pos(&self) -> usize {
        self.i
    }

    #[inline]
    pub(crate) fn set_pos(&mut self, i: usize) {
        self.i = i;
    }

    /// Open containers (`{`, `[`, `(`), innermost last.
    #[inline]
    pub(crate) fn open_containers(&self) -> &[u8] {
        &self.stack
    }

    /// Fixes recorded so far (to roll back an abandoned attempt with [`Parser::truncate_fixes`]).
    pub(crate) fn fix_count(&self) -> usize {
        self.fixes.len()
    }

    pub(crate) fn truncate_fixes(&mut self, n: usize) {
        self.fixes.truncate(n);
    }

    /// Undo one [`Parser::check_depth`].
    pub(crate) fn unnest(&mut self) {
        self.depth -= 1;
    }

    #[inline]
    pub(crate) fn second(&self) -> &SecondOpinion {
        &self.second
    }

    #[inline]
    pub(crate) fn second_mut(&mut self) -> &mut SecondOpinion {
        &mut self.second
    }

    /// The second-opinion mode gave up (its look-ahead budget is spent).
    pub fn second_opinion_exhausted(&self) -> bool {
        self.second.exhausted()
    }

    /// Char at byte `i` (`None` at the end or inside a multi-byte char).
    #[inline]
    pub(crate) fn ch(&self, i: usize) -> Option<char> {
        let c = *self.b.get(i)?;
        if c < 0x80 {
            return Some(c as char);
        }
        char_at(self.b, i).map(|x| x.0)
    }

    #[inline]
    pub(crate) fn clen(&self, i: usize) -> usize {
        char_at(self.b, i).map(|x| x.1).unwrap_or(1)
    }

    /// The current context of a string/value about to be parsed.
    pub(crate) fn ctx(&self) -> Ctx {
        if self.in_key {
            return Ctx::Key;
        }
        match self.stack.last() {
            Some(b'{') => Ctx::Value,
            Some(b'[') | Some(b'(') => Ctx::Array,
            _ => Ctx::Root,
        }
    }

    pub(crate) fn in_ctx(&self, c: u8) -> bool {
        self.stack.contains(&c)
    }

    fn leave(&mut self) {
        self.depth -= 1;
        self.stack.pop();
    }

    fn enter(&mut self, kind: u8) -> PResult<()> {
        self.stack.push(kind);
        self.check_depth()
    }

    /// One nesting level more: refused beyond `MAX_DEPTH`, or when the host says the stack is
    /// nearly used up.
    pub(crate) fn check_depth(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH || crate::guard::stack_exhausted() {
            return Err(self.depth_error());
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn depth_error(&self) -> RepairError {
        if self.depth > MAX_DEPTH {
            self.err(self.i, format!("nesting deeper than {MAX_DEPTH} levels"))
        } else {
            self.err(self.i, "nesting too deep for the available stack")
        }
    }

    fn skip_extra_commas(&mut self) {
        while self.c() == b',' {
            self.fix("double_comma", self.i);
            self.i += 1;
            self.skip_ws(true);
        }
    }

    fn skip_ellipsis(&mut self) -> bool {
        self.skip_ws(true);
        if self.c() == b'.' && at(self.b, self.i + 1) == b'.' && at(self.b, self.i + 2) == b'.' {
            self.fix("ellipsis", self.i);
            self.i += 3;
            self.skip_ws(true);
            if self.c() == b',' {
                self.i += 1;
            }
            return true;
        }
        false
    }

    /// After `{` or `[`: skip it, whitespace and a leading comma.
    #[inline(never)]
    fn open_container(&mut self) {
        self.i += 1;
        self.skip_ws(true);
        if self.c() == b',' {
            self.fix("leading_comma", self.i);
            self.i += 1;
            self.skip_ws(true);
        }
    }

    fn parse_object(&mut self) -> PResult<()> {
        self.enter(b'{')?;
        let st = self.open_object();
        self.parse_object_body(st)?;
        self.leave();
        Ok(())
    }

    /// After `{`: its state (boxed: keeps the recursive frames small).
    #[inline(never)]
    fn open_object(&mut self) -> Box<ObjectState> {
        let open = self.i;
        self.open_container();
        ObjectState::new(Map::new(), true, open)
    }

    /// The member loop of an object; pushes the object.
    fn parse_object_body(&mut self, mut st: Box<ObjectState>) -> PResult<()> {
        while !self.eof() && self.c() != b'}' {
            match self.member_head(&mut st)? {
                Member::Next => {}
                Member::End => break,
                Member::Garbage => {
                    let kind = self.parse_value()?;
                    self.drop_value(kind);
                }
                Member::MoreArray(key_pos) => {
                    self.parse_array()?;
                    self.merge_more_array(&mut st, key_pos);
                }
                Member::Value(head) => {
                    let kind = self.parse_value()?;
                    self.member_value(&mut st, head, kind)?;
                }
            }
        }
        self.close_object(st);
        Ok(())
    }

    #[inline(never)]
    fn drop_value(&mut self, kind: Option<Kind>) {
        if kind.is_some() {
            self.vals.pop();
        }
    }

    /// Everything of an object member before its value: separators, stray garbage, the key,
    /// the colon. Tells the member loop what to do next.
    #[inline(never)]
    fn member_head(&mut self, st: &mut ObjectState) -> PResult<Member> {
        let initial = st.initial;
        if !initial && self.c() == b'"' && {
            let k = self.peek_skip_ws(self.i + 1);
            k >= self.b.len() || matches!(at(self.b, k), b',' | b'}')
        } {
            // `{"a": "hello\n"\n",}` — a stray quote after a member
            self.fix("garbage", self.i);
            self.doubt += 1;
            self.i += 1;
            self.skip_ws(true);
            return Ok(Member::Next);
        }
        if !initial && self.py && self.c() == b':' {
            // json_repair: `{"a": "b" : 1}` — a second colon and its value are dropped
            self.fix("garbage", self.i);
            self.i += 1;
            return Ok(Member::Garbage);
        }
        if !initial {
            if self.c() == b',' {
                self.i += 1;
            } else {
                self.fix("missing_comma", self.i);
            }
            self.skip_ws(true);
            self.skip_extra_commas();
        }
        self.skip_ellipsis();
        if self.py && self.c() == b'`' && is_ident_start(at(self.b, self.i + 1)) {
            // json_repair: a backtick is not a quote; `key: value after it is a bare key
            self.fix("garbage", self.i);
            self.i += 1;
        }
        let key_pos = self.i;
        self.in_key = true;
        let key = self.parse_string_auto();
        self.in_key = false;
        let mut key = key?;
        if key.is_none() {
            key = self.parse_unquoted_key();
            if key.is_some() {
                // `{"a": 1, COMMENT "b": 2}` → a stray word before a quoted key is dropped
                let j = self.peek_skip_ws(self.i);
                if is_quote(self.b, j)
                    && self
                        .s
                        .get(key_pos..self.i)
                        .is_some_and(|k| !k.contains(char::is_whitespace))
                {
                    let save = self.i;
                    self.i = j;
                    let fixes_len = self.fixes.len();
                    self.in_key = true;
                    let k2 = self.parse_string_auto();
                    self.in_key = false;
                    match k2? {
                        Some(k2) if matches!(at(self.b, self.peek_skip_ws(self.i)), b':') => {
                            self.fix("garbage", key_pos);
                            key = Some(k2);
                        }
                        _ => {
                            self.fixes.truncate(fixes_len);
                            self.i = save;
                        }
                    }
                }
            }
        }
        if key.as_deref() == Some("") && self.eof() {
            // `{"` — an empty key cut off by the end of input
            self.fix("truncated", key_pos);
            return Ok(Member::End);
        }
        let Some(key) = key else {
            let c = self.c();
            if c == b'[' && !initial {
                // `{"a": [1], [2]}` → extend the previous array value (json_repair)
                if let Some(Value::Array(_)) = st.last_key.as_ref().and_then(|k| st.map.get(k)) {
                    return Ok(Member::MoreArray(key_pos));
                }
            }
            if c == b':' && at(self.b, self.peek_skip_ws(self.i + 1)) == b'}' {
                // `{:}` — a colon with neither key nor value
                self.fix("garbage", self.i);
                self.i = self.peek_skip_ws(self.i + 1);
                return Ok(Member::End);
            }
            if self.b.get(self.i..self.i + 3) == Some(b"```") {
                // a closing Markdown fence cuts the object short
                return Ok(Member::End);
            }
            if matches!(c, b'}' | b'{' | b']' | b'[' | 0) {
                if !initial {
                    self.fix("trailing_comma", self.i);
                }
            } else {
                return Err(self.err(self.i, "object key expected"));
            }
            return Ok(Member::End);
        };
        self.skip_ws(true);
        // set literal detection: first key directly followed by `,` or `}`
        if (initial || st.set_items.is_some())
            && st.map.is_empty()
            && matches!(self.c(), b',' | b'}')
        {
            let items = st.set_items.get_or_insert_with(Vec::new);
            items.push(Value::String(key));
            st.initial = false;
            return Ok(Member::Next);
        }
        if st.set_items.is_some() {
            // mixed: give up on the set interpretation, keep going as an object
            st.set_items = None;
        }
        let mut colon = false;
        if self.c() == b':' {
            colon = true;
            self.i += 1;
        } else if self.c() == b'=' {
            self.fix("missing_colon", self.i);
            colon = true;
            self.i += 1;
        }
        let truncated = self.eof();
        let quoted_key = is_quote(self.b, key_pos);
        if !colon && self.py && !quoted_key && truncated && !initial {
            // a bare word after the last member, cut off by the end: not a key
            self.fix("garbage", key_pos);
            return Ok(Member::End);
        }
        if !colon && self.py && !quoted_key && !truncated && !is_quote(self.b, self.i) {
            // json_repair: bare words where a key should be, not followed by a colon, are
            // dropped (`{"a": x, quick brown fox. "b": 1}`)
            if !initial
                && !is_digit(at(self.b, key_pos))
                && at(self.b, self.i).is_ascii_alphabetic()
            {
                self.fix("garbage", key_pos);
                return Ok(Member::Next);
            }
        }
        if !colon {
            if is_start_of_value(self.b, self.i) || truncated || matches!(self.c(), b'.' | b'+') {
                self.fix("missing_colon", self.i);
                if quoted_key && !truncated {
                    // `{"key:"value"}` may be a misplaced quote rather than a missing colon
                    self.doubt += 1;
                } else if !quoted_key && !truncated && !is_quote(self.b, self.i) {
                    let j = self.i;
                    if !is_digit(at(self.b, j)) && !matches!(at(self.b, j), b'[' | b'{' | b'-') {
                        // `quick brown fox.` where a key should be: bare words or a key?
                        self.doubt += 1;
                    }
                }
            } else if self.c() == b'}' && !initial {
                // `{"a": 1 AAAA }`, `{"b": "x" true}` — a stray word after the last member
                self.fix("garbage", key_pos);
                return Ok(Member::Next);
            } else {
                return Err(self.err(self.i, "colon expected"));
            }
        }
        Ok(Member::Value(MemberHead {
            key,
            colon,
            truncated,
            vpos: self.i,
        }))
    }

    /// A member's value has been parsed (or was missing): store it.
    #[inline(never)]
    fn member_value(
        &mut self,
        st: &mut ObjectState,
        head: MemberHead,
        kind: Option<Kind>,
    ) -> PResult<()> {
        let value = match kind {
            Some(_) => self.take(),
            None => {
                if head.colon || head.truncated {
                    if self.eof() {
                        self.fix("truncated", head.vpos);
                    } else {
                        // jsonrepair: `{"a": , "b": 1}` → null (json_repair says "")
                        self.fix("missing_value", head.vpos);
                    }
                    Value::Null
                } else {
                    return Err(self.err(self.i, "colon expected"));
                }
            }
        };
        st.map.insert(head.key.clone(), value);
        st.last_key = Some(head.key);
        st.initial = false;
        Ok(())
    }

    /// `{"a": [1], [2]}`: the second array continues the first.
    #[inline(never)]
    fn merge_more_array(&mut self, st: &mut ObjectState, key_pos: usize) {
        let extra = self.take();
        self.fix("merged_array", key_pos);
        if let (Some(Value::Array(prev)), Value::Array(more)) =
            (st.last_key.as_ref().and_then(|k| st.map.get_mut(k)), extra)
        {
            merge_rows(prev, more);
        }
        self.skip_ws(true);
    }

    /// The end of an object: closing brace (or what stands for it); pushes the object.
    #[inline(never)]
    #[allow(clippy::boxed_local)] // unboxed here, not in the caller's (recursive) frame
    fn close_object(&mut self, st: Box<ObjectState>) {
        let st = *st;
        if self.c() == b'}' {
            self.i += 1;
        } else if self.eof() {
            self.fix("truncated", self.i);
        } else {
            self.fix("missing_bracket", self.i);
        }
        if let Some(items) = st.set_items {
            if st.map.is_empty() {
                self.fix("set_literal", st.open);
                self.vals.push(Value::Array(items));
                return;
            }
        }
        self.vals.push(Value::Object(st.map));
    }

    fn parse_array(&mut self) -> PResult<()> {
        self.enter(b'[')?;
        self.open_container();
        let mut items = Vec::new();
        let mut initial = true;
        while !self.eof() && self.c() != b']' {
            if !initial && !self.array_separator() {
                break;
            }
            self.skip_ellipsis();
            let vpos = self.i;
            let kind = self.parse_value()?;
            match self.array_element(&mut items, kind, vpos, initial) {
                Element::Next => {}
                Element::Again => continue,
                Element::End => break,
                Element::Closed => {
                    self.leave();
                    self.push_array(items);
                    return Ok(());
                }
                Element::Object(key) => {
                    self.parse_implicit_object(key)?;
                    self.push_taken(&mut items, Some(Kind::Value));
                }
            }
            initial = false;
        }
        self.close_array();
        self.leave();
        self.push_array(items);
        Ok(())
    }

    #[inline(never)]
    fn push_array(&mut self, items: Vec<Value>) {
        self.vals.push(Value::Array(items));
    }

    /// Between array elements: a comma (extra ones dropped) or a missing one. False when the
    /// array ends here (`[1, 2)`).
    #[inline(never)]
    fn array_separator(&mut self) -> bool {
        if self.c() == b',' {
            self.i += 1;
            self.skip_ws(true);
            self.skip_extra_commas();
        } else if self.c() == b')' && self.stack.last() == Some(&b'[') {
            // `[1, 2)` — closed with the wrong bracket (handled after the loop)
            return false;
        } else {
            self.fix("missing_comma", self.i);
        }
        true
    }

    /// An element (or no element) has been parsed at `vpos`: keep it, or decide how the array
    /// goes on.
    #[inline(never)]
    fn array_element(
        &mut self,
        items: &mut Vec<Value>,
        kind: Option<Kind>,
        vpos: usize,
        initial: bool,
    ) -> Element {
        match kind {
            Some(_) => {
                let v = self.take();
                // json_repair: an empty value that only the end of input closed (`["`,
                // `[-`, `[{]`) is not an element
                if self.eof() || self.c() == b']' {
                    let empty = match &v {
                        Value::String(s) => s.is_empty() && self.eof(),
                        Value::Object(o) => {
                            o.is_empty()
                                && items.is_empty()
                                && self.c() == b']'
                                && self
                                    .b
                                    .get(vpos..self.i)
                                    .is_some_and(|t| t.trim_ascii() == b"{")
                        }
                        Value::Number(_) => {
                            self.eof()
                                && self
                                    .b
                                    .get(vpos..self.i)
                                    .is_some_and(|t| t.trim_ascii() == b"-")
                        }
                        _ => false,
                    };
                    if empty {
                        self.fix("truncated", vpos);
                        return Element::Next;
                    }
                }
                // `["key": "value"]` → an object inside the array (json_repair)
                if self.c() == b':' {
                    if let Value::String(k) = v {
                        self.fix("missing_brace", vpos);
                        return Element::Object(k);
                    }
                    items.push(v);
                } else {
                    items.push(v);
                }
                Element::Next
            }
            None => {
                if self.c() == b')' {
                    self.fix("mismatched_bracket", self.i);
                    return Element::End;
                }
                if self.c() == b'}' {
                    // stray or mismatched `}`: `[{"a":1}},{...}]` or `["a"}, "k2": ...`
                    self.fix("mismatched_bracket", self.i);
                    let after = self.peek_skip_ws(self.i + 1);
                    if at(self.b, after) == b',' && self.closes_for_parent_object() {
                        self.i += 1;
                        return Element::Closed;
                    }
                    self.i += 1;
                    return Element::Again;
                }
                if !initial {
                    self.fix("trailing_comma", self.i);
                }
                Element::End
            }
        }
    }

    #[inline(never)]
    fn close_array(&mut self) {
        if self.c() == b']' {
            self.i += 1;
        } else if self.c() == b')' && !self.eof() {
            self.fix("mismatched_bracket", self.i);
            self.i += 1;
        } else if self.eof() {
            self.fix("truncated", self.i);
        } else {
            self.fix("missing_bracket", self.i);
        }
    }

    /// Heuristic used for `}` inside an array: is the container enclosing the current one an
    /// object (we are an object member's value)?
    fn closes_for_parent_object(&self) -> bool {
        self.stack.len() >= 2 && self.stack[self.stack.len() - 2] == b'{'
    }

    /// After `"key"` followed by `:` inside an array: parse the rest of an object.
    fn parse_implicit_object(&mut self, first_key: String) -> PResult<()> {
        self.enter(b'{')?;
        let mut map = Map::new();
        self.i += 1; // ':'
        let kind = self.parse_value()?;
        self.insert_taken(&mut map, first_key, kind);
        while let Some(k) = self.implicit_member_key()? {
            let kind = self.parse_value()?;
            self.insert_taken(&mut map, k, kind);
        }
        self.leave();
        self.push_object(map);
        Ok(())
    }

    /// Pop a value of `kind` (null when none was parsed) into `map`.
    #[inline(never)]
    fn insert_taken(&mut self, map: &mut Map<String, Value>, key: String, kind: Option<Kind>) {
        let v = match kind {
            Some(_) => self.take(),
            None => Value::Null,
        };
        map.insert(key, v);
    }

    #[inline(never)]
    fn push_object(&mut self, map: Map<String, Value>) {
        self.vals.push(Value::Object(map));
    }

    /// `, "k":` continues an implicit object (the key, colon consumed); `}` or anything else
    /// ends it (`None`).
    #[inline(never)]
    fn implicit_member_key(&mut self) -> PResult<Option<String>> {
        self.skip_ws(true);
        if self.c() == b'}' {
            self.i += 1;
            return Ok(None);
        }
        if self.c() != b',' {
            return Ok(None);
        }
        // `, "k": v` continues the object; `, value` ends it
        let save = self.i;
        self.i += 1;
        self.skip_ws(true);
        let Some(k) = self.parse_string_auto()? else {
            self.i = save;
            return Ok(None);
        };
        self.skip_ws(true);
        if self.c() != b':' {
            self.i = save;
            return Ok(None);
        }
        self.i += 1;
        Ok(Some(k))
    }

    /// Python tuple `(1, 2)` → array; `(x)` → x.
    fn parse_tuple(&mut self) -> PResult<()> {
        self.enter(b'(')?;
        let open = self.i;
        self.i += 1;
        self.skip_ws(true);
        let mut items = Vec::new();
        let mut saw_comma = false;
        while !self.eof() && self.c() != b')' {
            if !items.is_empty() {
                saw_comma |= self.tuple_separator();
            }
            let kind = self.parse_value()?;
            if kind.is_none() {
                break;
            }
            self.push_taken(&mut items, kind);
        }
        self.close_tuple(open, items, saw_comma);
        Ok(())
    }

    /// A comma between tuple items (true) or a missing one (false).
    #[inline(never)]
    fn tuple_separator(&mut self) -> bool {
        if self.c() == b',' {
            self.i += 1;
            true
        } else {
            self.fix("missing_comma", self.i);
            false
        }
    }

    /// The end of a tuple; pushes its value.
    #[inline(never)]
    fn close_tuple(&mut self, open: usize, mut items: Vec<Value>, saw_comma: bool) {
        if self.c() == b')' {
            self.i += 1;
        } else if self.eof() {
            self.fix("truncated", self.i);
        } else if self.c() == b']' {
            self.i += 1;
        }
        self.leave();
        self.fix("tuple", open);
        let v = if items.len() == 1 && !saw_comma {
            items.pop().unwrap_or(Value::Null)
        } else {
            Value::Array(items)
        };
        self.vals.push(v);
    }

    // ---------------------------------------------------------------- strings

    /// Parse a string at the cursor (any quote style, or `\"` escaped quotes). `None` if no
    /// string starts here (cursor unchanged).
    pub fn parse_string_auto(&mut self) -> PResult<Option<String>> {
        if self.py {
            if self.ctx() == Ctx::Array {
                // arrays: the first-pass rules unless they doubt this string
                let (i0, f0, d0, k0, b0) = (
                    self.i,
                    self.fixes.len(),
                    self.doubt,
                    self.kept_quotes,
                    self.retry_budget,
                );
                let first = self.parse_string(self.retry_budget == 0, None)?;
                if self.kept_quotes == k0 {
                    return Ok(first);
                }
                self.i = i0;
                self.fixes.truncate(f0);
                self.doubt = d0;
                self.kept_quotes = k0;
                self.retry_budget = b0;
            }
            if let Some(s) = self.parse_string_py()? {
                return Ok(Some(s));
            }
        }
        if self.retry_budget == 0 {
            return self.parse_string(true, None);
        }
        self.parse_string(false, None)
    }

    fn parse_string(
        &mut self,
        stop_at_delim: bool,
        stop_at: Option<usize>,
    ) -> PResult<Option<String>> {
        let i_before = self.i;
        let mut i = self.i;
        let skip_escapes = at(self.b, i) == b'\\';
        if skip_escapes {
            i += 1;
        }
        let Some((q, qlen)) = quote_at(self.b, i) else {
            return Ok(None);
        };
        if skip_escapes {
            self.fix("escaped_quotes", i_before);
        }
        if q != Quote::Double {
            self.fix("quotes", i);
        }
        i += qlen;
        let b = self.b;
        let n = b.len();
        let mut out = String::new();
        // counts of unclosed brackets inside the string content
        let (mut paren, mut square, mut curly) = (0i64, 0i64, 0i64);
        let mut dangling = false;
        let mut doubled_open = false;
        // interrupt polls for very long strings (one per POLL_STRIDE bytes read)
        let mut polled = i;
        loop {
            if i >= polled + POLL_STRIDE {
                crate::guard::tick_bytes(i - polled);
                polled = i;
            }
            if i >= n {
                let i_prev = self.prev_non_ws(i.saturating_sub(1));
                if !stop_at_delim && stop_at.is_none() && is_delimiter(at(b, i_prev)) {
                    return self.retry_string(i_before, i, true, None);
                }
                if swallowed_member(self.b.get(i_before..n).unwrap_or(b"")) {
                    // `{"a": "x, "b": 1` cut off — or `"x,` `b: 1` swallowed by a string whose
                    // end quote is missing?
                    self.doubt += 1;
                }
                if out.trim_end().ends_with("```") {
                    // `{"key": "value}```` — probably a closing fence, not content
                    self.doubt += 1;
                }
                if !dangling {
                    // cut inside the string: trailing whitespace (also an escaped `\n`) is
                    // not content yet
                    let t = out.trim_end().len();
                    out.truncate(t);
                }
                self.fix("truncated", n);
                self.i = n;
                return Ok(Some(out));
            }
            if stop_at.is_some_and(|st| i >= st) {
                trim_trailing_spaces(&mut out);
                self.fix("missing_quote", i);
                self.i = i;
                return Ok(Some(out));
            }
            let c = b[i];
            let qend = end_quote_len(b, i, q);
            if qend > 0 {
                let i_quote = i;
                let j = self.peek_skip_ws_no_nl(i + qend);
                let cj = at(b, j);
                let inside_unclosed = match cj {
                    b')' => paren > 0,
                    b']' => square > 0,
                    b'}' => curly > 0,
                    _ => false,
                };
                if stop_at_delim
                    || j >= n
                    || (is_delimiter(cj) && !inside_unclosed)
                    || (is_quote(b, j) && !self.next_quote_is_end_quote(j))
                    || is_digit(cj)
                    || cj == b'#'
                {
                    trim_raw_newline_tail(b, i_quote, &mut out);
                    self.i = j;
                    self.parse_concatenated(&mut out)?;
                    return Ok(Some(out));
                }
                let content_start = i_before + usize::from(skip_escapes) + qlen;
                if i_quote == content_start && !stop_at_delim {
                    // `""value"` — a doubled opening quote
                    self.fix("doubled_quote", i_quote);
                    self.doubt += 1;
                    doubled_open = true;
                    i = i_quote + qend;
                    continue;
                }
                if doubled_open && end_quote_len(b, i_quote + qend, q) > 0 {
                    // `"answer""` — a doubled closing quote
                    let k = self.peek_skip_ws_no_nl(i_quote + 2 * qend);
                    if k >= n || is_delimiter(at(b, k)) {
                        self.fix("doubled_quote", i_quote);
                        self.i = k;
                        return Ok(Some(out));
                    }
                }
                if cj == b'\\' && !skip_escapes {
                    // `"abc"\` — treat the quote as the end
                    self.i = i_quote + qend;
                    return Ok(Some(out));
                }
                let i_prev = self.prev_non_ws(i_quote.saturating_sub(1));
                let prev = at(b, i_prev);
                let first_pass = !stop_at_delim && stop_at.is_none();
                if first_pass && prev == b',' && i_prev > i_before {
                    return self.retry_string(i_before, i_quote, false, Some(i_prev));
                }
                if matches!(prev, b'{' | b'[') && i_prev >= content_start && self.retry_budget > 0 {
                    // `"x": "a, {"k": 1}, b"` — unescaped JSON inside the string: keep the
                    // balanced block as content
                    if let Some(end) = self.balanced_end(i_prev) {
                        self.fix("unescaped_quote", i_quote);
                        if out.starts_with("```") {
                            // "```json {…}```" — a fenced block that may be meant as the value
                            self.doubt += 1;
                        }
                        out.push_str(self.s.get(i_quote..end + 1).unwrap_or(""));
                        if prev == b'{' {
                            curly -= 1;
                        } else {
                            square -= 1;
                        }
                        i = end + 1;
                        continue;
                    }
                }
                if first_pass && is_delimiter(prev) && i_prev > i_before {
                    return self.retry_string(i_before, i_quote, true, None);
                }
                // unescaped quote inside the string: keep it as content
                self.fix("unescaped_quote", i_quote);
                self.doubt += 1;
                self.kept_quotes += 1;
                out.push_str(self.s.get(i_quote..i_quote + qend).unwrap_or("\""));
                i = i_quote + qend;
            } else if stop_at_delim && is_unquoted_delimiter(c) {
                if at(b, i.wrapping_sub(1)) == b':' && is_url_start(b, i_before + 1, i + 2) {
                    while i < n && is_url_char(b[i]) {
                        out.push(b[i] as char);
                        i += 1;
                    }
                }
                trim_trailing_spaces(&mut out);
                self.fix("missing_quote", i);
                self.i = i;
                self.parse_concatenated(&mut out)?;
                return Ok(Some(out));
            } else if c == b'\\'
                && skip_escapes
                && at(b, i + 1) == b'\\'
                && (at(b, i + 2) == b'"' || i + 2 >= n)
            {
                // escaped JSON text: `\\\"` is an escaped quote inside the string
                if i + 2 < n {
                    out.push('"');
                }
                i += 3;
            } else if c == b'\\' {
                let e = at(b, i + 1);
                match e {
                    b'"' => {
                        out.push('"');
                        i += 2;
                    }
                    b'u' => {
                        let mut j = 2;
                        while j < 6 && at(b, i + j).is_ascii_hexdigit() {
                            j += 1;
                        }
                        if j == 6 {
                            let cp = hex4(b, i + 2);
                            i += 6;
                            if (0xD800..0xDC00).contains(&cp)
                                && at(b, i) == b'\\'
                                && at(b, i + 1) == b'u'
                                && (2..6).all(|k| at(b, i + k).is_ascii_hexdigit())
                            {
                                let lo = hex4(b, i + 2);
                                if (0xDC00..0xE000).contains(&lo) {
                                    let ch = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                                    out.push(char::from_u32(ch).unwrap_or('\u{fffd}'));
                                    i += 6;
                                    continue;
                                }
                            }
                            out.push(char::from_u32(cp).unwrap_or('\u{fffd}'));
                        } else if i + j >= n {
                            // truncated \u escape at the end: drop it
                            self.fix("truncated", i);
                            i = n;
                        } else {
                            // invalid \u escape: keep the text without the backslash
                            self.fix("invalid_escape", i);
                            i += 1;
                        }
                    }
                    b'\n' => {
                        out.push('\n');
                        i += 2;
                    }
                    0 if i + 1 >= n => {
                        // dangling backslash at the end of input
                        self.fix("truncated", i);
                        dangling = true;
                        i = n;
                    }
                    _ => match simple_escape(e) {
                        Some(m) => {
                            out.push(m);
                            i += 2;
                        }
                        None => {
                            // invalid escape like \x or \': drop the backslash
                            self.fix("invalid_escape", i);
                            i += 1;
                            if let Some((ch, l)) = char_at(b, i) {
                                out.push(ch);
                                i += l;
                            }
                        }
                    },
                }
            } else {
                // fast path: copy a run of ordinary bytes
                let start = i;
                while i < n {
                    let c = b[i];
                    if c == b'"' || c == b'\\' || c == b'\'' || c == b'`' || c < 0x20 {
                        break;
                    }
                    if c >= 0x80 && q != Quote::Double && end_quote_len(b, i, q) > 0 {
                        break;
                    }
                    if stop_at_delim && is_unquoted_delimiter(c) {
                        break;
                    }
                    if stop_at == Some(i) {
                        break;
                    }
                    match c {
                        b'(' => paren += 1,
                        b')' => paren -= 1,
                        b'[' => square += 1,
                        b']' => square -= 1,
                        b'{' => curly += 1,
                        b'}' => curly -= 1,
                        _ => {}
                    }
                    i += 1;
                }
                if i > start {
                    out.push_str(self.s.get(start..i).unwrap_or(""));
                    if skip_escapes && at(b, i) == b'\\' && is_quote(b, i + 1) {
                        i += 1;
                    }
                    continue;
                }
                // a single special byte that is not an end quote
                if c < 0x20 {
                    self.fix("control_character", i);
                    out.push(c as char);
                    i += 1;
                } else if let Some((ch, l)) = char_at(b, i) {
                    out.push(ch);
                    i += l;
                } else {
                    i += 1;
                }
            }
            if skip_escapes && at(b, i) == b'\\' && is_quote(b, i + 1) {
                i += 1;
            }
        }
    }

    /// From an opening bracket at `start`, the index of the bracket that balances it (inner
    /// double-quoted strings skipped), if it comes before the end of the line.
    fn balanced_end(&mut self, start: usize) -> Option<usize> {
        let b = self.b;
        let mut depth = 0i64;
        let mut in_str = false;
        let mut j = start;
        while j < b.len() {
            let c = b[j];
            if in_str {
                if c == b'\\' {
                    j += 1;
                } else if c == b'"' {
                    in_str = false;
                } else if c == b'\n' {
                    break;
                }
            } else {
                match c {
                    b'"' => in_str = true,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            self.retry_budget = self.retry_budget.saturating_sub(j - start);
                            return Some(j);
                        }
                    }
                    b'\n' => break,
                    _ => {}
                }
            }
            j += 1;
        }
        self.retry_budget = self.retry_budget.saturating_sub(j - start);
        None
    }

    fn retry_string(
        &mut self,
        i_before: usize,
        scanned_to: usize,
        stop_at_delim: bool,
        stop_at: Option<usize>,
    ) -> PResult<Option<String>> {
        let cost = scanned_to.saturating_sub(i_before);
        self.retry_budget = self.retry_budget.saturating_sub(cost);
        self.doubt += 1;
        // drop fixes recorded during the abandoned pass
        let base = self.base;
        while self
            .fixes
            .last()
            .is_some_and(|f| f.position >= base + i_before)
        {
            self.fixes.pop();
        }
        self.i = i_before;
        self.parse_string(stop_at_delim, stop_at)
    }

    fn next_quote_is_end_quote(&self, j: usize) -> bool {
        let ql = quote_at(self.b, j).map(|x| x.1).unwrap_or(1);
        let k = self.peek_skip_ws(j + ql);
        k >= self.b.len() || is_delimiter(at(self.b, k))
    }

    /// `"a" + "b"` → `"ab"`. One loop reads the whole chain: the strings inside it do not look
    /// for a `+` themselves (that recursed once per operand: 20,000 operands overflowed the
    /// stack).
    fn parse_concatenated(&mut self, out: &mut String) -> PResult<()> {
        if self.in_concat {
            return Ok(());
        }
        let save = self.i;
        self.skip_ws(true);
        if self.c() != b'+' {
            self.i = save;
            return Ok(());
        }
        self.in_concat = true;
        let r = self.concatenation_chain(out);
        self.in_concat = false;
        r
    }

    fn concatenation_chain(&mut self, out: &mut String) -> PResult<()> {
        while self.c() == b'+' {
            crate::guard::tick(VALUE_COST);
            self.fix("string_concatenation", self.i);
            self.i += 1;
            self.skip_ws(true);
            if let Some(s) = self.parse_string_auto()? {
                out.push_str(&s);
            }
            let save2 = self.i;
            self.skip_ws(true);
            if self.c() != b'+' {
                self.i = save2;
            }
        }
        Ok(())
    }

    // ---------------------------------------------------------------- numbers & keywords

    fn at_end_of_number(&self, j: usize) -> bool {
        let c = at(self.b, j);
        j >= self.b.len() || is_delimiter(c) || is_ws(c) || c == b';'
    }

    /// `+Infinity`, `- Infinity`, `+NaN`: signed non-finite numbers → null.
    fn parse_signed_non_finite(&mut self) -> Option<Value> {
        let b = self.b;
        if !matches!(self.c(), b'+' | b'-') {
            return None;
        }
        let mut j = self.i + 1;
        loop {
            if is_ws(at(b, j)) {
                j += 1;
            } else if special_ws_len(b, j) > 0 {
                j += special_ws_len(b, j);
            } else {
                break;
            }
        }
        for w in ["Infinity", "NaN", "infinity", "nan"] {
            if b.get(j..j + w.len()) == Some(w.as_bytes()) && !is_ident(at(b, j + w.len())) {
                self.fix("non_finite_number", self.i);
                self.i = j + w.len();
                return Some(Value::Null);
            }
        }
        None
    }

    fn parse_number(&mut self) -> Option<Value> {
        if let Some(v) = self.parse_signed_non_finite() {
            return Some(v);
        }
        let b = self.b;
        let start = self.i;
        let mut i = self.i;
        let mut num = String::new();
        let mut invalid = false;
        let mut changed = false;
        if at(b, i) == b'+' && (is_digit(at(b, i + 1)) || at(b, i + 1) == b'.') {
            changed = true;
            i += 1;
        }
        if at(b, i) == b'-' {
            num.push('-');
            i += 1;
            if !is_digit(at(b, i)) && at(b, i) != b'.' && self.at_end_of_number(i) {
                num.push('0');
                changed = true;
            }
        }
        if at(b, i) == b'0' && is_digit(at(b, i + 1)) {
            invalid = true;
        }
        let digits = |i: &mut usize, num: &mut String, changed: &mut bool| {
            while is_digit(at(b, *i))
                || (at(b, *i) == b'_'
                    && is_digit(at(b, *i + 1))
                    && is_digit(at(b, i.wrapping_sub(1))))
            {
                if b[*i] == b'_' {
                    *changed = true;
                } else {
                    num.push(b[*i] as char);
                }
                *i += 1;
            }
        };
        digits(&mut i, &mut num, &mut changed);
        if at(b, i) == b'.' && !(at(b, i + 1) == b'.' && at(b, i + 2) == b'.') {
            if num.is_empty() || num == "-" {
                num.push('0');
                changed = true;
            }
            num.push('.');
            i += 1;
            if !is_digit(at(b, i)) {
                num.push('0');
                changed = true;
            }
            digits(&mut i, &mut num, &mut changed);
        }
        if i > start && !num.is_empty() {
            if matches!(at(b, i), b'e' | b'E') && num != "-" {
                num.push('e');
                i += 1;
                if matches!(at(b, i), b'-' | b'+') {
                    num.push(b[i] as char);
                    i += 1;
                }
                if !is_digit(at(b, i)) {
                    num.push('0');
                    changed = true;
                }
                while is_digit(at(b, i)) {
                    num.push(b[i] as char);
                    i += 1;
                }
            }
            if at(b, i) == b'/' && is_digit(at(b, i + 1)) {
                // `1/3` → "1/3"
                let mut k = i + 1;
                while is_digit(at(b, k)) {
                    k += 1;
                }
                if self.at_end_of_number(k) {
                    self.fix("invalid_number", start);
                    self.i = k;
                    return Some(Value::String(
                        self.s.get(start..k).unwrap_or("").to_string(),
                    ));
                }
            }
            if !self.at_end_of_number(i) {
                if at(b, i) == b'"' && self.at_end_of_number(i + 1) && !invalid {
                    // `12345",` — a number with a stray end quote (json_repair)
                    self.fix("missing_quote", i);
                    self.i = i + 1;
                    return Some(number_value(&num));
                }
                return None;
            }
            self.i = i;
            if invalid {
                self.fix("invalid_number", start);
                // jsonrepair keeps numbers with leading zeros as their original text
                return Some(Value::String(
                    self.s.get(start..i).unwrap_or("").to_string(),
                ));
            }
            if changed {
                self.fix("number", start);
            }
            return Some(number_value(&num));
        }
        None
    }

    fn parse_keyword(&mut self) -> Option<Value> {
        for (name, v, fixed) in [
            ("true", Value::Bool(true), false),
            ("false", Value::Bool(false), false),
            ("null", Value::Null, false),
            ("True", Value::Bool(true), true),
            ("False", Value::Bool(false), true),
            ("None", Value::Null, true),
        ] {
            let end = self.i + name.len();
            if self.b.get(self.i..end) == Some(name.as_bytes()) && !is_ident(at(self.b, end)) {
                if fixed {
                    self.fix("python_literal", self.i);
                }
                self.i = end;
                return Some(v);
            }
        }
        None
    }

    fn parse_unquoted_key(&mut self) -> Option<String> {
        match self.parse_unquoted(true)? {
            Parsed::Unquoted(Value::String(s)) => Some(s),
            Parsed::Unquoted(v) | Parsed::Value(v) => Some(match v {
                Value::String(s) => s,
                Value::Null => "null".into(),
                other => other.to_string(),
            }),
        }
    }

    /// End of an identifier at `i`, with MongoDB's `new ` before it (`new ObjectId`).
    fn ident_end(&self, mut i: usize) -> usize {
        let b = self.b;
        if b.get(i..i + 4)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"new "))
            && is_ident_start(at(b, self.peek_skip_ws(i + 4)))
        {
            i = self.peek_skip_ws(i + 4);
        }
        while is_ident(at(b, i)) {
            i += 1;
        }
        i
    }

    /// `name(` at the cursor: (start of the name, position of the parenthesis).
    fn call_start(&self) -> Option<(usize, usize)> {
        if !is_ident_start(self.c()) {
            return None;
        }
        let j = self.peek_skip_ws(self.ident_end(self.i));
        (at(self.b, j) == b'(').then_some((self.i, j))
    }

    /// JSONP `callback({...});` or MongoDB `NumberLong("2")`: the argument is the value.
    fn parse_call(&mut self, start: usize, open: usize) -> PResult<Option<Kind>> {
        let fixes_len = self.fixes.len();
        self.fix("function_call", start);
        self.i = open + 1;
        self.enter(b'(')?;
        let kind = self.parse_value()?;
        self.leave();
        Ok(self.finish_call(start, open, fixes_len, kind))
    }

    #[inline(never)]
    fn finish_call(
        &mut self,
        start: usize,
        open: usize,
        fixes_len: usize,
        kind: Option<Kind>,
    ) -> Option<Kind> {
        let b = self.b;
        let simple = kind != Some(Kind::Unquoted);
        if simple && (self.c() == b')' || self.eof()) {
            if self.c() == b')' {
                self.i += 1;
                if self.c() == b';' {
                    self.i += 1;
                }
            }
            if kind.is_none() {
                self.vals.push(Value::Null);
            }
            return Some(Kind::Value);
        }
        self.drop_value(kind);
        // `foo(1,2)`, `hello(world)`: the call text is a string
        self.fixes.truncate(fixes_len);
        let mut k = open + 1;
        let mut depth = 1;
        while k < b.len() && b[k] != b'\n' {
            match b[k] {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            k += 1;
        }
        if at(b, k) == b')' {
            self.fix("unquoted_string", start);
            self.i = k + 1;
            let text = self.s.get(start..k + 1).unwrap_or("").to_string();
            return Some(self.put(Parsed::Unquoted(Value::String(text))));
        }
        self.i = start;
        let p = self.parse_symbol(false, start, start)?;
        Some(self.put(p))
    }

    /// Unquoted text: a symbol, NaN/Infinity/undefined (function calls: `parse_call`).
    fn parse_unquoted(&mut self, is_key: bool) -> Option<Parsed> {
        let start = self.i;
        let mut i = self.i;
        if is_ident_start(at(self.b, i)) && !is_key {
            i = self.ident_end(i);
        }
        self.parse_symbol(is_key, start, i)
    }

    /// The bare text from `start`, scanned on from `i`.
    fn parse_symbol(&mut self, is_key: bool, start: usize, mut i: usize) -> Option<Parsed> {
        let b = self.b;
        while i < b.len() {
            let c = b[i];
            if is_unquoted_delimiter(c)
                || (is_key && c == b':')
                || (c == b')' && self.stack.last() == Some(&b'('))
            {
                break;
            }
            if c == b';' && (i + 1 >= b.len() || is_ws(at(b, i + 1))) {
                break;
            }
            if is_key && is_ws(c) {
                // unquoted keys are single words: `{a 1 b:2}`
                let j = self.peek_skip_ws(i);
                if at(b, j) != b':' && is_start_of_value(b, j) {
                    break;
                }
            }
            if (c == b'"' || c == b'\'' || c == b'`' || c >= 0x80) && is_quote(b, i) {
                break;
            }
            if c == b'#' && i > start && is_ws(at(b, i - 1)) {
                break;
            }
            i += 1;
        }
        if at(b, i.wrapping_sub(1)) == b':' && is_url_start(b, start, i + 2) {
            while i < b.len() && is_url_char(b[i]) {
                i += 1;
            }
        }
        if i <= start {
            return None;
        }
        let mut end = i;
        while end > start && is_ws(at(b, end - 1)) {
            end -= 1;
        }
        if !is_key && at(b, end) == b'{' && self.stack.last() == Some(&b'{') {
            // `{text:words{words in brackets}}` — is the brace part of the bare text?
            self.doubt += 1;
        }
        let sym = self.s.get(start..end).unwrap_or("");
        self.i = end;
        if sym.is_empty() {
            return None;
        }
        let lower = sym.to_ascii_lowercase();
        let at_eof = self.peek_skip_ws(end) >= b.len();
        let v = if is_key {
            self.fix("unquoted_key", start);
            Value::String(sym.to_string())
        } else {
            match lower.as_str() {
                "true" => {
                    self.fix("python_literal", start);
                    Value::Bool(true)
                }
                "false" => {
                    self.fix("python_literal", start);
                    Value::Bool(false)
                }
                "null" | "none" | "undefined" | "nil" => {
                    self.fix("python_literal", start);
                    Value::Null
                }
                "nan" | "infinity" | "-infinity" | "+infinity" | "-nan" => {
                    self.fix("non_finite_number", start);
                    Value::Null
                }
                _ if at_eof && sym.len() >= 2 && "true".starts_with(sym) => {
                    self.fix("truncated", start);
                    Value::Bool(true)
                }
                _ if at_eof && sym.len() >= 2 && "false".starts_with(sym) => {
                    self.fix("truncated", start);
                    Value::Bool(false)
                }
                _ if at_eof && sym.len() >= 2 && "null".starts_with(sym) => {
                    self.fix("truncated", start);
                    Value::Null
                }
                _ => {
                    self.fix("unquoted_string", start);
                    Value::String(sym.to_string())
                }
            }
        };
        if at(b, self.i) == b'"' && self.i == end && end == i {
            // missing start quote, found the end quote: `abc"` → "abc"
            self.i += 1;
            if !is_key
                && self.c() != b','
                && !is_ws(self.c())
                && !matches!(self.c(), b'}' | b']' | 0)
            {
                // `a"0"` — or is the quote the start of something else?
                self.doubt += 1;
            }
        }
        Some(Parsed::Unquoted(v))
    }

    fn parse_regex(&mut self) -> Value {
        let start = self.i;
        let b = self.b;
        let mut i = self.i + 1;
        while i < b.len() && !(b[i] == b'/' && b[i - 1] != b'\\') {
            i += 1;
        }
        i = (i + 1).min(b.len());
        self.fix("regex", start);
        self.i = i;
        Value::String(self.s.get(start..i).unwrap_or("").to_string())
    }
}

fn hex4(b: &[u8], i: usize) -> u32 {
    let mut v = 0u32;
    for k in 0..4 {
        v = v * 16 + (at(b, i + k) as char).to_digit(16).unwrap_or(0);
    }
    v
}

/// A string whose end quote sits on its own line (`"abc\n"`): drop the raw line break (and
/// indentation) that precedes the quote.
fn trim_raw_newline_tail(b: &[u8], i_quote: usize, out: &mut String) {
    let mut k = i_quote;
    let mut saw_nl = false;
    while k > 0 && matches!(b[k - 1], b' ' | b'\t' | b'\r' | b'\n') {
        saw_nl |= b[k - 1] == b'\n';
        k -= 1;
    }
    if !saw_nl || (k > 0 && b[k - 1] == b'\\') {
        return;
    }
    let raw = i_quote - k;
    if out.len() >= raw
        && out.as_bytes()[out.len() - raw..]
            .iter()
            .all(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
    {
        out.truncate(out.len() - raw);
    }
}

fn trim_trailing_spaces(s: &mut String) {
    let t = s.trim_end_matches(' ').len();
    s.truncate(t);
}

fn is_url_start(b: &[u8], from: usize, to: usize) -> bool {
    let Some(seg) = b.get(from..to.min(b.len())) else {
        return false;
    };
    let Some(scheme) = seg.strip_suffix(b"://") else {
        return false;
    };
    matches!(
        scheme,
        b"http" | b"https" | b"ftp" | b"mailto" | b"file" | b"data" | b"irc"
    )
}

fn is_url_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"-._~:/?#@!$&'()*+;=".contains(&c)
}

/// Does the text of an unterminated string contain `, key:` / `, "key":` (the next member)?
/// Works on the raw text, so escaped quotes (`\", \"k\":`, double-encoded JSON) do not count.
fn swallowed_member(b: &[u8]) -> bool {
    let mut k = 0;
    while let Some(p) = b.get(k..).and_then(|t| t.iter().position(|&c| c == b',')) {
        let mut j = k + p + 1;
        while is_ws(at(b, j)) {
            j += 1;
        }
        if matches!(at(b, j), b'"' | b'\'' | b'`') {
            j += 1;
        }
        let id = j;
        while is_ident(at(b, j)) || at(b, j) == b'-' {
            j += 1;
        }
        if j > id {
            if matches!(at(b, j), b'"' | b'\'' | b'`') {
                j += 1;
            }
            while is_ws(at(b, j)) {
                j += 1;
            }
            if at(b, j) == b':' {
                return true;
            }
        }
        k += p + 1;
    }
    false
}

/// json_repair's continuation of an array member (`"rows": [[..], [..], "a", "b"], [..]`):
/// loose items after rows of equal length are grouped into rows, further rows are appended.
fn merge_rows(prev: &mut Vec<Value>, more: Vec<Value>) {
    let mut lens = prev.iter().filter_map(|v| v.as_array().map(Vec::len));
    let row_len = match lens.next() {
        Some(l) if l > 0 && lens.all(|m| m == l) => l,
        _ => {
            prev.extend(more);
            return;
        }
    };
    let tail_start = prev.iter().rposition(Value::is_array).map_or(0, |p| p + 1);
    let tail_len = prev.len() - tail_start;
    if tail_len > 0 && tail_len.is_multiple_of(row_len) {
        let tail: Vec<Value> = prev.drain(tail_start..).collect();
        for row in tail.chunks(row_len) {
            prev.push(Value::Array(row.to_vec()));
        }
    }
    if more.is_empty() {
        return;
    }
    if more.iter().all(Value::is_array) {
        prev.extend(more);
    } else {
        prev.push(Value::Array(more));
    }
}

pub fn number_value(num: &str) -> Value {
    if let Ok(n) = num.parse::<Number>() {
        return Value::Number(n);
    }
    match num.parse::<f64>() {
        Ok(f) => Number::from_f64(f)
            .map(Value::Number)
            .unwrap_or(Value::Null),
        Err(_) => Value::String(num.to_string()),
    }
}
