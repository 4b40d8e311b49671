//! Result shaping and rendering.
//!
//! What a tool result looks like to the model:
//!
//! ```text
//! | region | revenue |
//! |---|---|
//! | East | 1200.50 |
//! | West\|North | ∅ |
//!
//! _2 rows shown, more rows exist (raise max_rows up to 500 or narrow the query); 1.2 ms_
//! ```
//!
//! * **Row cap**: [`RowCap`] / [`resolve_limit`]: default 25, requests clipped to 500; callers
//!   fetch `limit + 1` rows to learn whether more exist ([`ResultMeta::from_fetch`]).
//! * **Cells** are converted at the door ([`Cell`]): text clipped to
//!   [`ShapeOptions::max_cell_chars`] characters, JSON to [`ShapeOptions::max_json_chars`], a
//!   trailing `…` marks a clipped value (clipping counts characters and never splits one);
//!   `bytea` → `<binary N bytes>`, pgvector → `<vector dim=N>`, values deliberately not read
//!   (large objects, huge TOAST values) → `<TYPE not shown, N bytes>`.
//! * **NULL** renders as `∅` (U+2205). A *text* value that is exactly the null marker is written
//!   `\∅`, so the marker is unambiguous; the text `NULL` is just `NULL`. An empty cell is the
//!   empty string.
//! * **Escaping** (cells and column names), after clipping, so a value cannot forge table
//!   structure: `\` → `\\`, `|` → `\|`, newline → `\n`, CR → `\r`, tab → `\t`, other control
//!   characters, Unicode line/paragraph separators, bidi overrides and BOM → `\uXXXX`. Every
//!   backslash in the output therefore starts an escape: the rendering is unambiguous and every
//!   row is exactly one line.
//! * **Result budget** ([`ResultBudget`], [`row_bytes`]): the rendered size of all rows
//!   together is bounded; the row that would exceed it ends the result.
//! * **Metadata line**: one line after the table (separated by a blank line so markdown does not
//!   read it as a row) with rows shown, whether more exist, the size limit when it ended the
//!   result, clipping, elapsed time.
//! * **Errors**: [`generic_tool_error`] is the only failure text a model gets.

use serde_json::{Map, Number, Value};

use crate::validate::tool_label;

/// One SQL value, converted by the pgrx layer.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// SQL NULL.
    Null,
    /// Text-like values (text, varchar, dates, uuids … in their text form).
    Text(String),
    /// Numeric values in their SQL text form (`1200.50`, `NaN`, `-Infinity`).
    Number(String),
    Bool(bool),
    /// json/jsonb text.
    Json(String),
    /// bytea: only the length is shown.
    Bytes {
        len: usize,
    },
    /// pgvector `vector` (and friends): only the dimension is shown.
    Vector {
        dim: usize,
    },
    /// A value deliberately not read (large object, oversized TOAST value): placeholder only.
    Omitted {
        type_name: String,
        len: Option<u64>,
    },
    /// Any other type in its text form (clipped like text).
    Other {
        type_name: String,
        text: String,
    },
}

/// Limits and markers used when rendering cells.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeOptions {
    /// Longest text/number/other cell (and column name), in characters. Default 500.
    pub max_cell_chars: usize,
    /// Longest json/jsonb cell, in characters. Default 1000.
    pub max_json_chars: usize,
    /// How SQL NULL appears in markdown. Default `∅`; a text equal to it is written `\∅`.
    pub null_marker: String,
}

impl Default for ShapeOptions {
    fn default() -> Self {
        ShapeOptions {
            max_cell_chars: 500,
            max_json_chars: 1000,
            null_marker: "∅".into(),
        }
    }
}

/// The row cap: `default` when the caller does not ask, requests above `max` are clipped to
/// it; `hard_max` bounds what an operator may configure as `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowCap {
    pub default: usize,
    pub max: usize,
    pub hard_max: usize,
}

impl Default for RowCap {
    fn default() -> Self {
        RowCap {
            default: 25,
            max: 500,
            hard_max: 5000,
        }
    }
}

impl RowCap {
    /// The effective maximum: `max` bounded by `hard_max`, at least 1.
    pub fn effective_max(&self) -> usize {
        self.max.min(self.hard_max).max(1)
    }

    /// The effective default: `default` bounded by the effective maximum, at least 1.
    pub fn effective_default(&self) -> usize {
        self.default.clamp(1, self.effective_max())
    }
}

/// A requested row limit that was larger than allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClippedLimit {
    pub requested: i64,
    pub applied: usize,
}

/// The outcome of [`resolve_limit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowLimit {
    /// Rows to show; fetch `limit + 1` to detect "more rows exist".
    pub limit: usize,
    /// Set when the request was clipped (report it in [`ResultMeta::clipped_limit`]).
    pub clipped: Option<ClippedLimit>,
}

/// Decide the row limit. `None` → the default; `< 1` → an error message for the model;
/// above the maximum → the maximum, with [`RowLimit::clipped`] set.
pub fn resolve_limit(requested: Option<i64>, cap: RowCap) -> Result<RowLimit, String> {
    let max = cap.effective_max();
    match requested {
        None => Ok(RowLimit {
            limit: cap.effective_default(),
            clipped: None,
        }),
        Some(r) if r < 1 => Err(format!(
            "max_rows must be between 1 and {max}, got {r}; omit it for the default of {}",
            cap.effective_default()
        )),
        Some(r) if (r as u64) > max as u64 => Ok(RowLimit {
            limit: max,
            clipped: Some(ClippedLimit {
                requested: r,
                applied: max,
            }),
        }),
        Some(r) => Ok(RowLimit {
            limit: r as usize,
            clipped: None,
        }),
    }
}

/// Like [`resolve_limit`], only the number.
pub fn effective_limit(requested: Option<i64>, cap: RowCap) -> Result<usize, String> {
    resolve_limit(requested, cap).map(|l| l.limit)
}

/// Facts for the metadata line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResultMeta {
    /// Rows to show (rows beyond this in the `rows` slice are not rendered and imply
    /// `more_rows`).
    pub rows_shown: usize,
    /// More rows exist than are shown (the n+1 signal).
    pub more_rows: bool,
    /// Execution time; omitted from the line when negative or not finite.
    pub elapsed_ms: f64,
    /// The requested limit was above the maximum and was clipped.
    pub clipped_limit: Option<ClippedLimit>,
    /// The largest `max_rows` the caller may ask for (for the "raise max_rows" hint);
    /// `None` → the hint only suggests narrowing the query.
    pub max_rows: Option<usize>,
    /// Set (to the budget in bytes) when the result size limit ended the result early.
    pub budget_reached: Option<usize>,
}

impl ResultMeta {
    /// From a fetch of up to `limit + 1` rows: shows `min(fetched, limit)`, more rows exist when
    /// `fetched > limit`.
    pub fn from_fetch(fetched: usize, limit: usize, elapsed_ms: f64) -> ResultMeta {
        ResultMeta {
            rows_shown: fetched.min(limit),
            more_rows: fetched > limit,
            elapsed_ms,
            clipped_limit: None,
            max_rows: None,
            budget_reached: None,
        }
    }
}

/// The total size a result may reach, in rendered bytes: rows are added while they fit, the
/// first row that does not fit ends the result ([`ResultMeta::budget_reached`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultBudget {
    max: usize,
    used: usize,
}

impl ResultBudget {
    pub fn new(max: usize) -> Self {
        ResultBudget { max, used: 0 }
    }

    /// Count `bytes` if they fit; `false` (and nothing counted) when they do not.
    pub fn take(&mut self, bytes: usize) -> bool {
        match self.used.checked_add(bytes) {
            Some(total) if total <= self.max => {
                self.used = total;
                true
            }
            _ => false,
        }
    }

    pub fn used(&self) -> usize {
        self.used
    }

    pub fn max(&self) -> usize {
        self.max
    }
}

/// Bytes a row adds to the rendered result: each cell as rendered in markdown plus its
/// separator, and at least the bytes the cell holds (a value kept longer than it is shown —
/// a lone function result, a JSON document the caller parses — counts what it holds).
pub fn row_bytes(row: &[Cell], opts: &ShapeOptions) -> usize {
    row.iter()
        .map(|cell| {
            let held = match cell {
                Cell::Text(s) | Cell::Number(s) | Cell::Json(s) | Cell::Other { text: s, .. } => {
                    s.len()
                }
                _ => 0,
            };
            rendered_len(cell, opts).max(held) + 3
        })
        .sum::<usize>()
        + 2
}

/// `render_cell(cell, opts).len()`, without building the string for text-like cells (this
/// runs for every cell of every row while rows are fetched).
pub fn rendered_len(cell: &Cell, opts: &ShapeOptions) -> usize {
    let (s, max) = match cell {
        Cell::Text(s) | Cell::Number(s) | Cell::Other { text: s, .. } => (s, opts.max_cell_chars),
        Cell::Json(s) => (s, opts.max_json_chars),
        other => return render_cell(other, opts).len(),
    };
    let mut len = 0;
    for (chars, c) in s.chars().enumerate() {
        if chars == max {
            // clipped: the ellipsis follows the kept characters
            return len + '…'.len_utf8();
        }
        len += escaped_char_len(c);
    }
    if !opts.null_marker.is_empty() && *s == opts.null_marker {
        len += 1;
    }
    len
}

fn escaped_char_len(c: char) -> usize {
    match c {
        '\\' | '|' | '\n' | '\r' | '\t' => 2,
        c if needs_unicode_escape(c) => format!("{:04x}", c as u32).len() + 2,
        c => c.len_utf8(),
    }
}

/// Bytes of the rendered header (column names and the separator line).
pub fn header_bytes(columns: &[String], opts: &ShapeOptions) -> usize {
    columns
        .iter()
        .map(|c| escape_cell(&clip_chars(c, opts.max_cell_chars).0).len() + 7)
        .sum::<usize>()
        + 4
}

/// Keep at most `max` characters of `s`; a clipped value ends with `…` (after the `max` kept
/// characters). Never splits a UTF-8 character. Returns whether it clipped.
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

/// Escape text for a markdown table cell (see the module docs).
pub fn escape_cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '|' => out.push_str("\\|"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_unicode_escape(c) => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

fn needs_unicode_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{feff}'
                | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// The display text of a cell before escaping (`None` for NULL), and whether it was clipped.
fn cell_text(cell: &Cell, opts: &ShapeOptions) -> (Option<String>, bool) {
    match cell {
        Cell::Null => (None, false),
        Cell::Text(s) | Cell::Number(s) | Cell::Other { text: s, .. } => {
            let (t, c) = clip_chars(s, opts.max_cell_chars);
            (Some(t), c)
        }
        Cell::Bool(b) => (Some(b.to_string()), false),
        Cell::Json(s) => {
            let (t, c) = clip_chars(s, opts.max_json_chars);
            (Some(t), c)
        }
        Cell::Bytes { len } => (Some(format!("<binary {len} bytes>")), false),
        Cell::Vector { dim } => (Some(format!("<vector dim={dim}>")), false),
        Cell::Omitted { type_name, len } => {
            let (name, _) = clip_chars(type_name, 64);
            let text = match len {
                Some(n) => format!("<{name} not shown, {n} bytes>"),
                None => format!("<{name} not shown>"),
            };
            (Some(text), false)
        }
    }
}

/// The markdown text of one cell, escaped; NULL → the null marker.
pub fn render_cell(cell: &Cell, opts: &ShapeOptions) -> String {
    render_cell_counted(cell, opts).0
}

fn render_cell_counted(cell: &Cell, opts: &ShapeOptions) -> (String, bool) {
    match cell_text(cell, opts) {
        (None, _) => (escape_cell(&opts.null_marker), false),
        (Some(t), clipped) => {
            let mut e = escape_cell(&t);
            if !opts.null_marker.is_empty() && e == escape_cell(&opts.null_marker) {
                e.insert(0, '\\');
            }
            (e, clipped)
        }
    }
}

/// Rows to render: at most `meta.rows_shown`, and more rows exist if `rows` holds more.
fn shown_rows<'a>(rows: &'a [Vec<Cell>], meta: &ResultMeta) -> (&'a [Vec<Cell>], bool) {
    let n = meta.rows_shown.min(rows.len());
    (&rows[..n], meta.more_rows || rows.len() > n)
}

/// A compact markdown table plus one metadata line. Rows shorter than `columns` are padded
/// with empty cells; extra cells are ignored.
pub fn render_markdown(
    columns: &[String],
    rows: &[Vec<Cell>],
    meta: &ResultMeta,
    opts: &ShapeOptions,
) -> String {
    let (rows, more) = shown_rows(rows, meta);
    let mut out = String::new();
    let mut clipped_cells = 0usize;
    if !columns.is_empty() {
        out.push('|');
        for c in columns {
            let (name, _) = clip_chars(c, opts.max_cell_chars);
            out.push(' ');
            out.push_str(&escape_cell(&name));
            out.push_str(" |");
        }
        out.push('\n');
        out.push('|');
        for _ in columns {
            out.push_str("---|");
        }
        out.push('\n');
        for row in rows {
            out.push('|');
            for i in 0..columns.len() {
                let text = match row.get(i) {
                    Some(cell) => {
                        let (t, clipped) = render_cell_counted(cell, opts);
                        clipped_cells += usize::from(clipped);
                        t
                    }
                    None => String::new(),
                };
                if text.is_empty() {
                    out.push_str(" |");
                } else {
                    out.push(' ');
                    out.push_str(&text);
                    out.push_str(" |");
                }
            }
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str(&meta_line(
        columns.is_empty(),
        rows.len(),
        more,
        clipped_cells,
        meta,
        opts,
    ));
    out
}

fn meta_line(
    no_columns: bool,
    shown: usize,
    more: bool,
    clipped_cells: usize,
    meta: &ResultMeta,
    opts: &ShapeOptions,
) -> String {
    let mut line = match shown {
        0 => "0 rows".to_string(),
        1 => "1 row shown".to_string(),
        n => format!("{n} rows shown"),
    };
    if no_columns {
        line.push_str(" (the result has no columns)");
    }
    if more {
        line.push_str(", more rows exist");
        match meta.max_rows {
            Some(m) if shown < m && meta.budget_reached.is_none() => {
                line.push_str(&format!(" (raise max_rows up to {m} or narrow the query)"))
            }
            _ => line.push_str(" (narrow the query or aggregate in SQL)"),
        }
    } else if shown > 0 {
        line.push_str(", no more rows");
    }
    if let Some(b) = meta.budget_reached {
        line.push_str(&format!("; result size limit of {b} bytes reached"));
    }
    if let Some(c) = meta.clipped_limit {
        line.push_str(&format!(
            "; requested max_rows {} is above the maximum, {} used",
            c.requested, c.applied
        ));
    }
    if clipped_cells > 0 {
        line.push_str(&format!(
            "; {clipped_cells} long {} clipped (…) at {} chars ({} for JSON)",
            if clipped_cells == 1 {
                "value"
            } else {
                "values"
            },
            opts.max_cell_chars,
            opts.max_json_chars
        ));
    }
    if meta.elapsed_ms.is_finite() && meta.elapsed_ms >= 0.0 {
        line.push_str(&format!("; {:.1} ms", meta.elapsed_ms));
    }
    format!("_{line}_")
}

/// The result as JSON for MCP `structuredContent`:
/// `{"columns": […], "rows": [{col: value, …}], "row_count": n, "more_rows": bool,
/// "elapsed_ms": x, "clipped_values": k, "clipped_limit": {"requested": r, "applied": a}|null}`.
///
/// NULL → `null`; numbers stay JSON numbers when that is exact (else their text); JSON cells
/// are embedded as values unless clipped (then the clipped text); placeholders as their text.
/// Duplicate column names get a suffix (`a`, `a_2`) so no value is lost.
pub fn render_json(
    columns: &[String],
    rows: &[Vec<Cell>],
    meta: &ResultMeta,
    opts: &ShapeOptions,
) -> Value {
    let (rows, more) = shown_rows(rows, meta);
    let keys = unique_keys(columns);
    let mut clipped_values = 0usize;
    let json_rows: Vec<Value> = rows
        .iter()
        .map(|row| {
            let mut obj = Map::new();
            for (i, key) in keys.iter().enumerate() {
                let v = match row.get(i) {
                    Some(cell) => {
                        let (v, clipped) = cell_json(cell, opts);
                        clipped_values += usize::from(clipped);
                        v
                    }
                    None => Value::Null,
                };
                obj.insert(key.clone(), v);
            }
            Value::Object(obj)
        })
        .collect();
    let mut out = Map::new();
    out.insert(
        "columns".into(),
        Value::Array(columns.iter().map(|c| Value::String(c.clone())).collect()),
    );
    out.insert("row_count".into(), Value::from(json_rows.len()));
    out.insert("rows".into(), Value::Array(json_rows));
    out.insert("more_rows".into(), Value::Bool(more));
    out.insert(
        "elapsed_ms".into(),
        Number::from_f64(meta.elapsed_ms)
            .filter(|_| meta.elapsed_ms >= 0.0)
            .map_or(Value::Null, Value::Number),
    );
    out.insert("clipped_values".into(), Value::from(clipped_values));
    if let Some(b) = meta.budget_reached {
        out.insert("size_limit_bytes".into(), Value::from(b));
    }
    out.insert(
        "clipped_limit".into(),
        match meta.clipped_limit {
            Some(c) => serde_json::json!({"requested": c.requested, "applied": c.applied}),
            None => Value::Null,
        },
    );
    Value::Object(out)
}

fn unique_keys(columns: &[String]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    columns
        .iter()
        .map(|c| {
            if seen.insert(c.clone()) {
                return c.clone();
            }
            let mut n = 2usize;
            loop {
                let k = format!("{c}_{n}");
                if seen.insert(k.clone()) {
                    return k;
                }
                n += 1;
            }
        })
        .collect()
}

fn cell_json(cell: &Cell, opts: &ShapeOptions) -> (Value, bool) {
    match cell {
        Cell::Null => (Value::Null, false),
        Cell::Bool(b) => (Value::Bool(*b), false),
        Cell::Number(s) => match exact_number(s) {
            Some(n) => (Value::Number(n), false),
            None => {
                let (t, c) = clip_chars(s, opts.max_cell_chars);
                (Value::String(t), c)
            }
        },
        Cell::Json(s) => {
            let (t, c) = clip_chars(s, opts.max_json_chars);
            if c {
                (Value::String(t), true)
            } else {
                match serde_json::from_str::<Value>(s) {
                    Ok(v) => (v, false),
                    Err(_) => (Value::String(t), false),
                }
            }
        }
        other => {
            let (t, c) = cell_text(other, opts);
            (t.map_or(Value::Null, Value::String), c)
        }
    }
}

/// A JSON number that prints back exactly as `s` (so `1.50` or a 40-digit numeric stay text).
fn exact_number(s: &str) -> Option<Number> {
    if s.len() > 40 {
        return None;
    }
    if let Ok(i) = s.parse::<i64>() {
        return (i.to_string() == s).then(|| Number::from(i));
    }
    if let Ok(u) = s.parse::<u64>() {
        return (u.to_string() == s).then(|| Number::from(u));
    }
    let n: Number = serde_json::from_str(s).ok()?;
    (n.to_string() == s).then_some(n)
}

/// The one sentence a model gets when a tool fails; the details go to the operator log only.
pub fn generic_tool_error(tool: &str) -> String {
    let label = tool_label(tool);
    let who = if label.starts_with('\'') {
        format!("Tool {label}")
    } else {
        "The tool".to_string()
    };
    format!(
        "{who} failed during execution. No details are available; the error was logged for the operator. Do not retry the same call unchanged."
    )
}
