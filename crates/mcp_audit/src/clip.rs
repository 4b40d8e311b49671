//! Bounded audit values.
//!
//! Every audit value that holds caller- or model-supplied text is cut to a byte limit before it
//! is stored. What was cut is described by a [`Cut`]: the original size in bytes and the
//! SHA-256 of the original, so an operator can still prove what was sent:
//!
//! * text: the UTF-8 bytes of the text;
//! * JSON: its canonical text ([`canonical_json`]: object keys sorted bytewise, no whitespace,
//!   serde_json's escaping and number format), the same however the keys were ordered.
//!
//! [`clip_text`] keeps the beginning and appends `…[+N bytes]`. [`clip_json`] keeps the
//! structure: long strings are cut (with the same marker), long arrays keep their first and
//! last items around a `"…[N items clipped]"` marker, large objects keep their first keys; every
//! part gets a fair share of the budget (small parts whole, the rest split among the large ones),
//! so a conversation message keeps its `role` and `tool_call_id` when its content is cut.
//! Token counts and sizes are clamped with [`clamp_count`].

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::io::{self, Write};

/// Keep at most `max` characters of `s`; a clipped value ends with `…` (after the `max` kept
/// characters). Never splits a UTF-8 character. Returns whether it clipped. The one
/// character-count clip of pg_mcp: messages for the model, error texts, table cells.
pub fn clip_chars(s: &str, max: usize) -> (String, bool) {
    match s.char_indices().nth(max) {
        None => (s.to_string(), false),
        Some((idx, _)) => {
            let mut out = String::with_capacity(idx + 3);
            out.push_str(&s[..idx]);
            out.push('…');
            (out, true)
        }
    }
}

/// Largest count stored (2^53 − 1: exact in a JSON/float number, and a sum of two stays far
/// below `bigint`'s maximum).
pub const MAX_COUNT: i64 = (1 << 53) - 1;

/// A provider-reported count (tokens) or a size as a `bigint` that never wraps or goes negative.
pub fn clamp_count(n: u64) -> i64 {
    n.min(MAX_COUNT as u64) as i64
}

/// What was cut from one value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    /// Size of the original in bytes (UTF-8 text, or canonical JSON text).
    pub bytes: u64,
    /// Lowercase hex SHA-256 of those bytes.
    pub sha256: String,
}

impl Cut {
    pub fn of_bytes(b: &[u8]) -> Cut {
        Cut {
            bytes: b.len() as u64,
            sha256: hex(&Sha256::digest(b)),
        }
    }

    /// `{"bytes": N, "sha256": "…"}`
    pub fn to_json(&self) -> Value {
        serde_json::json!({"bytes": self.bytes, "sha256": self.sha256})
    }
}

fn hex(bytes: &[u8]) -> String {
    const H: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(H[(b >> 4) as usize] as char);
        s.push(H[(b & 15) as usize] as char);
    }
    s
}

/// Lowercase hex SHA-256 of `b`.
pub fn sha256_hex(b: &[u8]) -> String {
    hex(&Sha256::digest(b))
}

/// [`Cut`] of a JSON value: size and SHA-256 of its canonical text.
pub fn json_digest(v: &Value) -> Cut {
    let mut sink = HashSink {
        hasher: Sha256::new(),
        bytes: 0,
    };
    // Writing into a hasher cannot fail.
    let _ = write_json(v, true, &mut sink);
    Cut {
        bytes: sink.bytes,
        sha256: hex(&sink.hasher.finalize()),
    }
}

/// Canonical JSON text: object keys sorted bytewise (recursively), no whitespace.
pub fn canonical_json(v: &Value) -> String {
    let mut out = Vec::new();
    let _ = write_json(v, true, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// Serialized size of `v` in bytes, counting stops at `limit + 1` (cheap for huge values).
pub fn json_len_capped(v: &Value, limit: usize) -> usize {
    let mut sink = CountSink {
        n: 0,
        limit: limit.saturating_add(1),
    };
    let _ = write_json(v, false, &mut sink);
    sink.n.min(limit.saturating_add(1))
}

/// `s` cut to at most `limit` bytes (on a character boundary, the marker included), and what
/// was cut; borrowed and `None` when it fits.
pub fn clip_text(s: &str, limit: usize) -> (Cow<'_, str>, Option<Cut>) {
    if s.len() <= limit {
        return (Cow::Borrowed(s), None);
    }
    (
        Cow::Owned(cut_str(s, limit)),
        Some(Cut::of_bytes(s.as_bytes())),
    )
}

/// `s` shortened to about `limit` bytes including the `…[+N bytes]` marker.
fn cut_str(s: &str, limit: usize) -> String {
    let marker_len = 24; // "…[+" + up to 19 digits + " bytes]" fits in most cases
    let mut keep = floor_char_boundary(s, limit.saturating_sub(marker_len));
    let mut out = String::with_capacity(keep + marker_len);
    loop {
        out.clear();
        out.push_str(&s[..keep]);
        out.push_str(&format!("…[+{} bytes]", s.len() - keep));
        if out.len() <= limit || keep == 0 {
            return out;
        }
        keep = floor_char_boundary(s, keep.saturating_sub(out.len() - limit));
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// `v` with its serialized size cut to about `limit` bytes (see the module docs), and what was
/// cut; borrowed and `None` when it fits.
pub fn clip_json(v: &Value, limit: usize) -> (Cow<'_, Value>, Option<Cut>) {
    if json_len_capped(v, limit) <= limit {
        return (Cow::Borrowed(v), None);
    }
    let cut = json_digest(v);
    let mut budget = limit;
    for _ in 0..4 {
        let c = shrink(v, budget, 0);
        let n = json_len_capped(&c, limit);
        if n <= limit {
            return (Cow::Owned(c), Some(cut));
        }
        // Separators and markers overshot the estimate: try again with less.
        budget = budget.saturating_sub(budget / 4 + 64);
    }
    (Cow::Owned(Value::String(preview(v, limit))), Some(cut))
}

/// [`clip_json`] for an owned value: no copy when it fits.
pub fn clip_json_owned(v: Value, limit: usize) -> (Value, Option<Cut>) {
    let (c, cut) = clip_json(&v, limit);
    let clipped = match c {
        Cow::Owned(c) => Some(c),
        Cow::Borrowed(_) => None,
    };
    (clipped.unwrap_or(v), cut)
}

/// Smallest budget a part of a clipped array or object gets.
const MIN_SHARE: usize = 48;
/// Deeper parts of a clipped value become a text preview (bounds the recursion).
const MAX_DEPTH: usize = 32;
/// Longest object key kept as is.
const MAX_KEY: usize = 256;

fn shrink(v: &Value, budget: usize, depth: usize) -> Value {
    if json_len_capped(v, budget) <= budget {
        return v.clone();
    }
    match v {
        Value::String(s) => Value::String(cut_str(s, budget.saturating_sub(2).max(16))),
        Value::Array(items) if depth < MAX_DEPTH => {
            let (head, tail) = kept_ends(items.len(), budget);
            let dropped = items.len() - head - tail;
            let parts: Vec<&Value> = items[..head]
                .iter()
                .chain(items[items.len() - tail..].iter())
                .collect();
            let overhead = 2 + parts.len() + if dropped > 0 { 40 } else { 0 };
            let shares = fair_shares(&parts, budget.saturating_sub(overhead));
            let mut out: Vec<Value> = Vec::with_capacity(parts.len() + 1);
            for (i, (p, share)) in parts.iter().zip(shares).enumerate() {
                if i == head && dropped > 0 {
                    out.push(Value::String(format!("…[{dropped} items clipped]")));
                }
                out.push(shrink(p, share, depth + 1));
            }
            if head == parts.len() && dropped > 0 {
                out.push(Value::String(format!("…[{dropped} items clipped]")));
            }
            Value::Array(out)
        }
        Value::Object(m) if depth < MAX_DEPTH => {
            let (head, _) = kept_ends(m.len(), budget);
            let keep: Vec<(&String, &Value)> = m.iter().take(head).collect();
            let dropped = m.len() - keep.len();
            let keys: Vec<Cow<str>> = keep
                .iter()
                .map(|(k, _)| {
                    if k.len() > MAX_KEY {
                        Cow::Owned(cut_str(k, MAX_KEY))
                    } else {
                        Cow::Borrowed(k.as_str())
                    }
                })
                .collect();
            let overhead = 2
                + keys.iter().map(|k| k.len() + 4).sum::<usize>()
                + if dropped > 0 { 40 } else { 0 };
            let values: Vec<&Value> = keep.iter().map(|(_, v)| *v).collect();
            let shares = fair_shares(&values, budget.saturating_sub(overhead));
            let mut out = Map::new();
            for ((k, v), share) in keys.into_iter().zip(values).zip(shares) {
                out.insert(k.into_owned(), shrink(v, share, depth + 1));
            }
            if dropped > 0 && !out.contains_key("…") {
                out.insert(
                    "…".into(),
                    Value::String(format!("[{dropped} keys clipped]")),
                );
            }
            Value::Object(out)
        }
        // Too deep: the beginning of its text.
        Value::Array(_) | Value::Object(_) => Value::String(preview(v, budget)),
        // Numbers, booleans and null are small.
        other => other.clone(),
    }
}

/// How many items of a sequence of `n` to keep from its start and from its end.
fn kept_ends(n: usize, budget: usize) -> (usize, usize) {
    let max_items = (budget / MIN_SHARE).max(1);
    if n <= max_items {
        (n, 0)
    } else {
        (max_items - max_items / 2, max_items / 2)
    }
}

/// Budgets for `parts` summing to at most `total`: parts smaller than their fair share get their
/// whole size, the remainder is split evenly among the larger ones ("water filling").
fn fair_shares(parts: &[&Value], total: usize) -> Vec<usize> {
    let sizes: Vec<usize> = parts.iter().map(|p| json_len_capped(p, total)).collect();
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_by_key(|&i| sizes[i]);
    let mut shares = vec![0; parts.len()];
    let mut left = total;
    for (k, &i) in order.iter().enumerate() {
        let fair = left / (parts.len() - k);
        let s = sizes[i].min(fair);
        shares[i] = s.max(MIN_SHARE.min(fair.max(1)));
        left = left.saturating_sub(s);
    }
    shares
}

/// The beginning of `v`'s text, cut at about `max` bytes, with a `…` marker.
fn preview(v: &Value, max: usize) -> String {
    let keep = max.saturating_sub(24).max(16);
    let mut sink = PrefixSink {
        buf: Vec::with_capacity(keep.min(1 << 20)),
        limit: keep,
    };
    let full = write_json(v, false, &mut sink).is_ok();
    let text = match std::str::from_utf8(&sink.buf) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&sink.buf[..e.valid_up_to()]).unwrap_or(""),
    };
    if full {
        text.to_string()
    } else {
        format!("{text}…[clipped]")
    }
}

// ---------------------------------------------------------------------------------------------
// One JSON writer (iterative: no recursion, whatever the depth) and its sinks

enum Frame<'a> {
    Arr(std::slice::Iter<'a, Value>, bool),
    Obj(serde_json::map::Iter<'a>, bool),
    Sorted(std::vec::IntoIter<(&'a String, &'a Value)>, bool),
}

/// The next item of an open array (no key) or object.
type Entry<'a> = (Option<&'a String>, &'a Value);

fn write_json<W: Write>(root: &Value, sorted: bool, w: &mut W) -> io::Result<()> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut next = Some(root);
    loop {
        if let Some(v) = next.take() {
            match v {
                Value::Array(a) => {
                    w.write_all(b"[")?;
                    stack.push(Frame::Arr(a.iter(), true));
                }
                Value::Object(m) if sorted => {
                    w.write_all(b"{")?;
                    let mut e: Vec<(&String, &Value)> = m.iter().collect();
                    e.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                    stack.push(Frame::Sorted(e.into_iter(), true));
                }
                Value::Object(m) => {
                    w.write_all(b"{")?;
                    stack.push(Frame::Obj(m.iter(), true));
                }
                scalar => serde_json::to_writer(&mut *w, scalar).map_err(io::Error::other)?,
            }
        }
        let Some(top) = stack.last_mut() else {
            return Ok(());
        };
        let (item, first, close): (Option<Entry>, &mut bool, &[u8]) = match top {
            Frame::Arr(it, first) => (it.next().map(|v| (None, v)), first, b"]"),
            Frame::Obj(it, first) => (it.next().map(|(k, v)| (Some(k), v)), first, b"}"),
            Frame::Sorted(it, first) => (it.next().map(|(k, v)| (Some(k), v)), first, b"}"),
        };
        match item {
            None => {
                w.write_all(close)?;
                stack.pop();
            }
            Some((key, v)) => {
                if !std::mem::replace(first, false) {
                    w.write_all(b",")?;
                }
                if let Some(k) = key {
                    serde_json::to_writer(&mut *w, k).map_err(io::Error::other)?;
                    w.write_all(b":")?;
                }
                next = Some(v);
            }
        }
    }
}

/// Counts bytes; fails once past `limit` (ends the walk early).
struct CountSink {
    n: usize,
    limit: usize,
}

impl Write for CountSink {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.n = self.n.saturating_add(b.len());
        if self.n > self.limit {
            return Err(io::Error::other("over the limit"));
        }
        Ok(b.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Keeps the first `limit` bytes; fails once full.
struct PrefixSink {
    buf: Vec<u8>,
    limit: usize,
}

impl Write for PrefixSink {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        let room = self.limit.saturating_sub(self.buf.len());
        if b.len() > room {
            self.buf.extend_from_slice(&b[..room]);
            return Err(io::Error::other("full"));
        }
        self.buf.extend_from_slice(b);
        Ok(b.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

struct HashSink {
    hasher: Sha256,
    bytes: u64,
}

impl Write for HashSink {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.hasher.update(b);
        self.bytes += b.len() as u64;
        Ok(b.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Collects the [`Cut`]s of one audit row: `{"<column>": {"bytes": N, "sha256": "…"}, …}`.
#[derive(Debug)]
pub struct RowCuts {
    limit: usize,
    cuts: Map<String, Value>,
}

impl RowCuts {
    pub fn new(limit: usize) -> Self {
        RowCuts {
            limit,
            cuts: Map::new(),
        }
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// A text column, cut to the limit.
    pub fn text<'a>(&mut self, column: &str, s: &'a str) -> Cow<'a, str> {
        let (v, cut) = clip_text(s, self.limit);
        self.note(column, cut);
        v
    }

    /// An optional text column.
    pub fn opt_text(&mut self, column: &str, s: Option<&str>) -> Option<String> {
        s.map(|s| self.text(column, s).into_owned())
    }

    /// A jsonb column, cut to the limit (structure kept).
    pub fn json<'a>(&mut self, column: &str, v: &'a Value) -> Cow<'a, Value> {
        let (v, cut) = clip_json(v, self.limit);
        self.note(column, cut);
        v
    }

    /// A jsonb column given as JSON text (stored as sent; hashed as text when cut).
    pub fn json_text(&mut self, column: &str, text: &str) -> JsonText {
        if text.len() <= self.limit {
            return JsonText::Whole;
        }
        self.note(column, Some(Cut::of_bytes(text.as_bytes())));
        let clipped = match serde_json::from_str::<Value>(text) {
            Ok(v) => clip_json(&v, self.limit).0.into_owned(),
            Err(_) => Value::String(cut_str(text, self.limit)),
        };
        JsonText::Clipped(clipped)
    }

    /// Record a cut made elsewhere (e.g. a result preview).
    pub fn note(&mut self, column: &str, cut: Option<Cut>) {
        if let Some(c) = cut {
            self.cuts.insert(column.to_string(), c.to_json());
        }
    }

    /// The `clipped` column: `None` when nothing was cut.
    pub fn into_json(self) -> Option<Value> {
        (!self.cuts.is_empty()).then_some(Value::Object(self.cuts))
    }
}

/// See [`RowCuts::json_text`].
pub enum JsonText {
    /// Store the text as it is.
    Whole,
    /// Store this instead.
    Clipped(Value),
}

// ---------------------------------------------------------------------------------------------
// Whole records fitted to a size (the durable audit queue, issue 20)

/// Bytes one entry of a row's `clipped` object takes at most: `"column":{"bytes":N,"sha256":"…"},`
/// for a column name of up to 48 bytes.
const CUT_ENTRY_BYTES: usize = 160;

/// Serialized size of an object of columns, counting stops past `limit`.
fn row_len(row: &Map<String, Value>, limit: usize) -> usize {
    let mut n = 2usize;
    for (k, v) in row {
        n = n.saturating_add(k.len() + 4 + json_len_capped(v, limit));
        if n > limit {
            return limit.saturating_add(1);
        }
    }
    n
}

/// Cut the columns of one audit row (`column → value`, the row's cut log in its `clipped`
/// column) until the whole row serializes to at most `limit` bytes. Every column gets a fair
/// share of the budget (small ones stay whole, the rest is split among the large ones); a larger
/// one is cut as [`clip_text`] (strings) or [`clip_json`] (other values) does, and its [`Cut`]
/// goes to `clipped` unless that already describes the column (a cut made before, of the
/// original value). Returns whether anything was cut.
pub fn fit_row(row: &mut Map<String, Value>, limit: usize) -> bool {
    if row_len(row, limit) <= limit {
        return false;
    }
    let mut budget = limit;
    for _ in 0..8 {
        let cols: Vec<String> = row.keys().filter(|k| *k != "clipped").cloned().collect();
        let clipped_len = row.get("clipped").map_or(0, |c| json_len_capped(c, limit));
        let overhead = 2
            + cols.iter().map(|k| k.len() + 4).sum::<usize>()
            + "clipped".len()
            + 4
            + clipped_len
            + CUT_ENTRY_BYTES * cols.len();
        let values: Vec<&Value> = cols.iter().map(|k| &row[k]).collect();
        let shares = fair_shares(
            &values,
            budget.saturating_sub(overhead).max(cols.len() * 16),
        );
        let mut changes = Vec::new();
        for (k, share) in cols.iter().zip(shares) {
            let v = &row[k];
            if json_len_capped(v, share) <= share {
                continue;
            }
            let (nv, cut) = match v {
                Value::String(s) => {
                    let (c, cut) = clip_text(s, share.saturating_sub(2).max(16));
                    (Value::String(c.into_owned()), cut)
                }
                other => {
                    let (c, cut) = clip_json(other, share.max(16));
                    (c.into_owned(), cut)
                }
            };
            changes.push((k.clone(), nv, cut));
        }
        for (k, nv, cut) in changes {
            row.insert(k.clone(), nv);
            if let Some(cut) = cut {
                let log = row
                    .entry("clipped")
                    .or_insert_with(|| Value::Object(Map::new()));
                if !log.is_object() {
                    *log = Value::Object(Map::new());
                }
                if let Value::Object(m) = log {
                    m.entry(k).or_insert_with(|| cut.to_json());
                }
            }
        }
        if row_len(row, limit) <= limit {
            return true;
        }
        budget = budget.saturating_sub(budget / 4 + 64);
    }
    true
}

/// Consecutive messages of a conversation that together fit a record: `offset` is the index of
/// the first, `cuts` the parallel cut log (`{"message": Cut}` or null per message).
#[derive(Debug, PartialEq)]
pub struct MessageBatch {
    pub offset: usize,
    pub messages: Vec<Value>,
    pub cuts: Vec<Value>,
}

/// A conversation split into batches of at most `limit` bytes (messages and their cut logs):
/// every message is first cut to half of `limit` (structure kept, as [`clip_json`] does; its
/// cut goes to its cut log unless that already holds one, of the original message), then
/// consecutive messages are grouped. `cuts` is padded with nulls to the length of `messages`.
pub fn batch_messages(messages: Vec<Value>, cuts: Vec<Value>, limit: usize) -> Vec<MessageBatch> {
    let per_message = (limit / 2).max(64);
    let mut cuts = cuts.into_iter();
    let mut out: Vec<MessageBatch> = Vec::new();
    let mut size = 0usize;
    for (i, m) in messages.into_iter().enumerate() {
        let mut cut_log = cuts.next().unwrap_or(Value::Null);
        let (m, cut) = clip_json_owned(m, per_message);
        if let (Some(c), true) = (cut, cut_log.is_null()) {
            cut_log = serde_json::json!({"message": c.to_json()});
        }
        let n = json_len_capped(&m, limit) + json_len_capped(&cut_log, limit) + 2;
        match out.last_mut() {
            Some(b) if size + n <= limit => {
                b.messages.push(m);
                b.cuts.push(cut_log);
                size += n;
            }
            _ => {
                out.push(MessageBatch {
                    offset: i,
                    messages: vec![m],
                    cuts: vec![cut_log],
                });
                size = n;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_row_is_fitted_with_the_digest_of_each_cut_column() {
        let big = "x".repeat(3_000_000);
        let args = json!({"q": "y".repeat(500_000), "n": 1});
        let mut row = match json!({"run_id": "r1", "status": "ok", "result_preview": big.clone(),
                              "arguments": args.clone(),
                              "clipped": {"arguments": {"bytes": 9, "sha256": "earlier"}}})
        {
            Value::Object(m) => m,
            _ => unreachable!(),
        };
        assert!(fit_row(&mut row, 64 * 1024));
        let n = serde_json::to_vec(&Value::Object(row.clone()))
            .unwrap()
            .len();
        assert!(n <= 64 * 1024, "{n}");
        assert_eq!(row["status"], "ok");
        assert_eq!(row["run_id"], "r1");
        assert_eq!(row["arguments"]["n"], 1);
        assert_eq!(
            row["clipped"]["result_preview"],
            Cut::of_bytes(big.as_bytes()).to_json()
        );
        // an earlier cut (of the original value) is kept
        assert_eq!(row["clipped"]["arguments"]["sha256"], "earlier");
        let mut small = match json!({"a": "b"}) {
            Value::Object(m) => m,
            _ => unreachable!(),
        };
        assert!(!fit_row(&mut small, 1024));
        assert_eq!(Value::Object(small), json!({"a": "b"}));
    }

    #[test]
    fn a_conversation_is_split_into_batches_that_fit() {
        let msgs: Vec<Value> = (0..40)
            .map(|i| json!({"role": "tool", "tool_call_id": format!("c{i}"), "content": "z".repeat(if i == 7 { 3_000_000 } else { 10_000 })}))
            .collect();
        let cuts = vec![Value::Null; 3];
        let limit = 64 * 1024;
        let batches = batch_messages(msgs, cuts, limit);
        let mut next = 0;
        for b in &batches {
            assert_eq!(b.offset, next);
            assert_eq!(b.messages.len(), b.cuts.len());
            next += b.messages.len();
            let n = serde_json::to_vec(&b.messages).unwrap().len()
                + serde_json::to_vec(&b.cuts).unwrap().len();
            assert!(n <= limit + 16, "{n}");
        }
        assert_eq!(next, 40);
        let all: Vec<&Value> = batches.iter().flat_map(|b| b.messages.iter()).collect();
        assert_eq!(all[7]["tool_call_id"], "c7");
        let cut7 = &batches.iter().flat_map(|b| b.cuts.iter()).nth(7).unwrap()["message"];
        assert!(cut7["bytes"].as_u64().unwrap() > 3_000_000);
        assert!(batches
            .iter()
            .flat_map(|b| b.cuts.iter())
            .nth(6)
            .unwrap()
            .is_null());
    }

    #[test]
    fn counts_are_clamped() {
        assert_eq!(clamp_count(3_000_000_000), 3_000_000_000);
        assert_eq!(clamp_count(u64::MAX), MAX_COUNT);
        assert!(clamp_count(u64::MAX)
            .checked_add(clamp_count(u64::MAX))
            .is_some());
    }

    #[test]
    fn text_is_cut_with_marker_hash_and_size() {
        let s = "é".repeat(10_000); // 20,000 bytes, 2-byte characters
        let (v, cut) = clip_text(&s, 1000);
        assert!(v.len() <= 1000, "{}", v.len());
        assert!(v.ends_with("bytes]"), "{v}");
        let cut = cut.unwrap();
        assert_eq!(cut.bytes, 20_000);
        assert_eq!(cut.sha256, sha256_hex(s.as_bytes()));
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let (v, cut) = clip_text("short", 1000);
        assert!(matches!(v, Cow::Borrowed("short")) && cut.is_none());
    }

    #[test]
    fn canonical_text_sorts_keys_and_is_deep_safe() {
        let a = json!({"b": 1, "a": {"d": [1, {"y": 2, "x": "é\"\n"}], "c": null}});
        assert_eq!(
            canonical_json(&a),
            r#"{"a":{"c":null,"d":[1,{"x":"é\"\n","y":2}]},"b":1}"#
        );
        let b: Value =
            serde_json::from_str(r#"{"a":{"d":[1,{"x":"é\"\n","y":2}],"c":null},"b":1}"#).unwrap();
        assert_eq!(json_digest(&a), json_digest(&b));
        assert_eq!(
            json_digest(&a).sha256,
            sha256_hex(canonical_json(&a).as_bytes())
        );
        // no recursion in the writer: a value 100,000 levels deep is measured and hashed
        let mut deep = json!(1);
        for _ in 0..100_000 {
            deep = Value::Array(vec![deep]);
        }
        assert_eq!(json_digest(&deep).bytes, 200_001);
        let (c, cut) = clip_json(&deep, 1000);
        assert!(cut.is_some() && json_len_capped(&c, 2000) <= 1000);
        std::mem::forget(deep); // serde_json's own Drop recurses
    }

    #[test]
    fn json_keeps_structure_within_the_limit() {
        let big = "x".repeat(5_000_000);
        let msg = json!({"role": "tool", "content": big, "tool_call_id": "call_1", "name": "t"});
        let (c, cut) = clip_json(&msg, 4096);
        let n = serde_json::to_string(&c).unwrap().len();
        assert!(n <= 4096, "{n}");
        assert!(
            n > 3000,
            "fair shares leave most of the budget to the content: {n}"
        );
        assert_eq!(c["role"], "tool");
        assert_eq!(c["tool_call_id"], "call_1");
        assert!(c["content"].as_str().unwrap().ends_with("bytes]"));
        let cut = cut.unwrap();
        assert_eq!(cut.bytes, canonical_json(&msg).len() as u64);

        // many small items: the first and the last ones stay, with a marker between
        let arr = Value::Array((0..100_000).map(|i| json!({"i": i})).collect());
        let (c, _) = clip_json(&arr, 2000);
        let a = c.as_array().unwrap();
        assert!(serde_json::to_string(&c).unwrap().len() <= 2000);
        assert_eq!(a[0], json!({"i": 0}));
        assert_eq!(a[a.len() - 1], json!({"i": 99_999}));
        assert!(a
            .iter()
            .any(|x| x.as_str().is_some_and(|s| s.contains("items clipped"))));

        // an object with a huge key and many keys
        let mut m = Map::new();
        m.insert("k".repeat(100_000), json!(1));
        for i in 0..10_000 {
            m.insert(format!("key{i}"), json!(i));
        }
        let obj = Value::Object(m);
        let (c, _) = clip_json(&obj, 3000);
        assert!(serde_json::to_string(&c).unwrap().len() <= 3000);

        // a fitting value is not copied
        let small = json!({"a": 1});
        assert!(matches!(clip_json(&small, 100), (Cow::Borrowed(_), None)));
    }

    #[test]
    fn row_cuts_collect_per_column() {
        let mut r = RowCuts::new(100);
        let q = r.text("question", &"q".repeat(500)).into_owned();
        assert!(q.len() <= 100);
        assert_eq!(r.text("answer", "fine"), "fine");
        let body = json!({"messages": [{"role": "user", "content": "y".repeat(1000)}]}).to_string();
        let JsonText::Clipped(v) = r.json_text("request_body", &body) else {
            panic!("not clipped")
        };
        assert_eq!(v["messages"][0]["role"], "user");
        let j = r.into_json().unwrap();
        assert_eq!(j["question"]["bytes"], 500);
        assert_eq!(j["request_body"]["sha256"], sha256_hex(body.as_bytes()));
        assert!(j.get("answer").is_none());
    }
}
