//! JSON repair for LLM output.
//!
//! Contract (used by `mcp_llm` and the pgrx layer; keep it stable):
//! - `repair(input) -> Result<Repaired, RepairError>`
//! - valid JSON parses strictly and comes back unchanged with `fixes` empty;
//! - otherwise the repaired value and every fix applied (`Fix::kind` is a stable snake_case name,
//!   e.g. `"truncated"` when brackets/strings were closed at end of input);
//! - unrepairable input gives `RepairError { position, message }`; never a panic, linear time.

mod chars;
mod parser;
mod py;
mod root;

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
    root::repair_text_pass(input, second_opinion)
}

#[doc(hidden)]
pub fn first_pass_doubtful(input: &str) -> bool {
    serde_json::from_str::<Value>(input).is_err() && root::first_pass_doubtful(input)
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
    root::repair_text(input)
}
