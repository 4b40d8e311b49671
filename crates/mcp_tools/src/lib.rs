//! mcp_tools — tool argument validation against JSON Schema (strict, model-readable errors)
//! and result shaping/markdown rendering for pg_mcp. Pure Rust, no pgrx.
//!
//! * [`validate`]: [`check_tool_schema`] for the registry, [`ToolSchema`] for calls,
//!   [`correction_message`] / [`errors_to_json`] for the model and `mcp.validate_arguments`.
//! * [`report`]: typed parameters of report tools, the schema overview, SQL error sentences.
//! * [`sandbox`]: which functions a tool may not execute, by class.
//! * [`shape`]: [`Cell`], row caps, clipping, escaping, [`render_markdown`],
//!   [`render_json`], [`generic_tool_error`].

pub mod report;
pub mod sandbox;
pub mod shape;
pub mod validate;

pub use shape::{
    clip_chars, effective_limit, escape_cell, generic_tool_error, header_bytes, render_cell,
    render_json, render_markdown, rendered_len, resolve_limit, row_bytes, Cell, ClippedLimit,
    ResultBudget, ResultMeta, RowCap, RowLimit, ShapeOptions,
};
pub use validate::{
    check_tool_schema, correction_message, errors_to_json, properties, required_properties,
    ArgError, ArgErrorKind, ToolSchema,
};
