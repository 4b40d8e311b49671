//! JSON repair for LLM output.
//!
//! Contract (used by `mcp_llm` and the pgrx layer; keep it stable):
//! - `repair(input) -> Result<Repaired, RepairError>`
//! - valid JSON parses strictly and comes back unchanged with `fixes` empty;
//! - otherwise the repaired value and every fix applied (`Fix::kind` is a stable snake_case name,
//!   e.g. `"truncated"` when brackets/strings were closed at end of input);
//! - unrepairable input gives `RepairError { position, message }`; never a panic, linear time;
//! - nesting beyond [`MAX_DEPTH`] is an error; no path recurses without that bound, and one
//!   level costs little stack (README: "Bounded stack"); [`guard`] lets a host poll for
//!   interrupts and check its stack;
//! - [`repair_jsonb`]: the same, with U+0000 replaced for PostgreSQL.

mod chars;
mod extract;
pub mod guard;
mod parser;
mod py;

pub use parser::MAX_DEPTH;

use serde::Serialize;
use serde_json::Value;

/// One fix the repairer applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    /// Stable snake_case name of the fix, e.g. `code_fence`, `trailing_comma`, `truncated`.
    pub kind: &'static str,
    /// Byte offset in the input where the fix applied.
    pub position: usize,
}

/// A successfully parsed (possibly repaired) value.
#[derive(Debug, Clone, PartialEq)]
pub struct Repaired {
    pub value: Value,
    pub fixes: Vec<Fix>,
}

impl Repaired {
    pub fn repaired(&self) -> bool {
        !self.fixes.is_empty()
    }
    /// True when the input ended early and open strings/arrays/objects were closed.
    pub fn truncated(&self) -> bool {
        self.fixes.iter().any(|f| f.kind == "truncated")
    }
}

/// Input that cannot be turned into JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RepairError {
    /// Byte offset in the input where repair gave up.
    pub position: usize,
    pub message: String,
}

impl std::fmt::Display for RepairError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at position {}", self.message, self.position)
    }
}

impl std::error::Error for RepairError {}

/// Diagnostics: run only the first pass (`second_opinion = false`) or only the second-opinion
/// rules. Not part of the stable contract.
#[doc(hidden)]
pub fn repair_pass(input: &str, second_opinion: bool) -> Result<Repaired, RepairError> {
    if let Ok(value) = serde_json::from_str::<Value>(input) {
        return Ok(Repaired {
            value,
            fixes: Vec::new(),
        });
    }
    extract::repair_text_pass(input, second_opinion)
}

#[doc(hidden)]
pub fn first_pass_doubtful(input: &str) -> bool {
    serde_json::from_str::<Value>(input).is_err() && extract::first_pass_doubtful(input)
}

/// Replaces U+0000 in strings and keys (see [`replace_nul`]).
pub const NUL_REPLACEMENT: char = '\u{fffd}';

/// Replace every U+0000 in the strings and object keys of `v` by U+FFFD (PostgreSQL's `text`
/// and `jsonb` cannot hold U+0000: jsonb refuses `\u0000` with "unsupported Unicode escape
/// sequence"). Returns how many characters were replaced. Walks with a work list, not
/// recursion. Two keys that differ only by U+0000 vs U+FFFD collapse into one (the later value
/// wins, at the earlier position).
pub fn replace_nul(v: &mut Value) -> usize {
    let mut n = 0;
    let mut todo: Vec<&mut Value> = vec![v];
    while let Some(v) = todo.pop() {
        match v {
            Value::String(s) => n += replace_nul_str(s),
            Value::Array(a) => todo.extend(a.iter_mut()),
            Value::Object(m) => {
                if m.keys().any(|k| k.contains('\0')) {
                    let old = std::mem::take(m);
                    for (mut k, val) in old {
                        n += replace_nul_str(&mut k);
                        m.insert(k, val);
                    }
                }
                todo.extend(m.values_mut());
            }
            _ => {}
        }
    }
    n
}

/// [`replace_nul`] for one string.
pub fn replace_nul_str(s: &mut String) -> usize {
    if !s.contains('\0') {
        return 0;
    }
    let n = s.matches('\0').count();
    *s = s.replace('\0', "\u{fffd}");
    n
}

/// Byte offset of the first U+0000 in JSON text: a raw NUL or the escape `\u0000` (0 when
/// neither occurs).
pub fn nul_position(text: &str) -> usize {
    let raw = text.find('\0');
    let esc = text.find("\\u0000");
    match (raw, esc) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => 0,
    }
}

/// [`repair`] for a value that will be stored as `jsonb`: U+0000 in strings and keys is replaced
/// by U+FFFD and reported as fix `nul_character` (also for otherwise valid JSON).
pub fn repair_jsonb(input: &str) -> Result<Repaired, RepairError> {
    let mut r = repair(input)?;
    if replace_nul(&mut r.value) > 0 {
        r.fixes.push(Fix {
            kind: "nul_character",
            position: nul_position(input),
        });
    }
    Ok(r)
}

/// Parse `input` as JSON, repairing it if strict parsing fails.
///
/// Valid JSON is returned exactly as `serde_json` parses it, with no fixes. Otherwise the
/// repairing parser runs; see the crate README for the list of fix kinds.
pub fn repair(input: &str) -> Result<Repaired, RepairError> {
    if let Ok(value) = serde_json::from_str::<Value>(input) {
        return Ok(Repaired {
            value,
            fixes: Vec::new(),
        });
    }
    extract::repair_text(input)
}
