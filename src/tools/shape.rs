//! Shaping fetched rows for the model: a function tool's lone value as is, everything else as a
//! markdown table (text for the model) plus the same rows as JSON (`structuredContent`), within
//! the row cap and the result budget.

use crate::gucs;
use crate::rows;
use mcp_tools::{ResultMeta, RowCap, ShapeOptions};
use serde_json::{json, Value};

/// Characters of a function tool's lone value a model gets at most.
pub const MAX_SINGLE_VALUE_CHARS: usize = 20_000;

/// Shape fetched rows for the model. `always_table`: the SQL, report and schema tools always
/// render the markdown table; function tools return a single value (or JSON document) as is.
pub fn shape_rows(
    f: rows::Fetched,
    limit: mcp_tools::RowLimit,
    elapsed_ms: f64,
    always_table: bool,
) -> (String, Option<Value>) {
    let r = f.rows;
    let lone = r.rows.len() == 1 && !f.more_rows;
    if !always_table {
        // A lone jsonb value was read as a value (no text round trip); a json one is text.
        let single = f.lone_json.or_else(|| r.single_json());
        if let Some(v) = single.filter(|_| lone) {
            let text = serde_json::to_string(&v).unwrap_or_default();
            let text = mcp_tools::clip_chars(&text, MAX_SINGLE_VALUE_CHARS).0;
            let structured = if v.is_object() {
                v
            } else {
                json!({"result": v})
            };
            return (text, Some(structured));
        }
        if lone && r.columns.len() == 1 {
            let cell = &r.rows[0][0];
            let text = match cell {
                mcp_tools::Cell::Null => "(no result)".to_string(),
                mcp_tools::Cell::Other { type_name, .. } if type_name == "void" => {
                    "(done)".to_string()
                }
                mcp_tools::Cell::Text(s)
                | mcp_tools::Cell::Number(s)
                | mcp_tools::Cell::Other { text: s, .. } => {
                    mcp_tools::clip_chars(s, MAX_SINGLE_VALUE_CHARS).0
                }
                other => mcp_tools::render_cell(other, &shape_options()),
            };
            return (text, None);
        }
    }
    let meta = ResultMeta {
        rows_shown: r.rows.len(),
        more_rows: f.more_rows,
        elapsed_ms,
        clipped_limit: limit.clipped,
        max_rows: Some(row_cap().effective_max()),
        budget_reached: f.budget_reached.then(max_result_bytes),
    };
    let opts = shape_options();
    let md = mcp_tools::render_markdown(&r.columns, &r.rows, &meta, &opts);
    let js = mcp_tools::render_json(&r.columns, &r.rows, &meta, &opts);
    (md, Some(js))
}

pub fn shape_options() -> ShapeOptions {
    ShapeOptions {
        max_cell_chars: gucs::MAX_CELL_CHARS.get().max(16) as usize,
        ..ShapeOptions::default()
    }
}

/// The result budget of one tool call in bytes (`mcp.max_result_bytes`).
pub fn max_result_bytes() -> usize {
    gucs::MAX_RESULT_BYTES.get().max(1024) as usize
}

/// How a tool's rows are collected: `limit` rows shown, text kept as far as a cell shows it
/// (a function tool's lone value up to [`MAX_SINGLE_VALUE_CHARS`]), within the result budget.
pub fn collect_options(limit: usize, single_value: bool, json_whole: bool) -> rows::CollectOptions {
    let shape = shape_options();
    rows::CollectOptions {
        limit,
        keep_chars: shape.max_cell_chars.max(shape.max_json_chars),
        single_value_chars: single_value.then_some(MAX_SINGLE_VALUE_CHARS),
        json_whole,
        max_bytes: max_result_bytes(),
        shape,
    }
}

/// The row limit of tools whose caller cannot choose one (function and report tools).
pub fn default_limit() -> mcp_tools::RowLimit {
    mcp_tools::RowLimit {
        limit: row_cap().effective_default(),
        clipped: None,
    }
}

pub fn row_cap() -> RowCap {
    RowCap {
        default: gucs::DEFAULT_ROWS.get().max(1) as usize,
        max: gucs::MAX_ROWS.get().max(1) as usize,
        hard_max: 5000,
    }
}
