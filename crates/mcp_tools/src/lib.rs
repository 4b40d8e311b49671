//! mcp_tools — tool argument validation against JSON Schema (strict, model-readable errors)
//! and result shaping/markdown rendering for pg_mcp. Pure Rust, no pgrx.
//!
//! * [`validate`] (M6): [`check_tool_schema`] for the registry, [`ToolSchema`] for calls,
//!   [`correction_message`] / [`errors_to_json`] for the model and `mcp.validate_arguments`.
//! * [`report`]: typed parameters of report tools, the schema overview, SQL error sentences.
//! * [`shape`] (M9): [`Cell`], row caps, clipping, escaping, [`render_markdown`],
//!   [`render_json`], [`generic_tool_error`].

pub mod report;
pub mod shape;
pub mod validate;

pub use shape::{
    clip_chars, effective_limit, escape_cell, generic_tool_error, render_cell, render_json,
    render_markdown, resolve_limit, Cell, ClippedLimit, ResultMeta, RowCap, RowLimit, ShapeOptions,
};
pub use validate::{
    check_tool_schema, correction_message, errors_to_json, properties, required_properties,
    ArgError, ArgErrorKind, ToolSchema,
};
