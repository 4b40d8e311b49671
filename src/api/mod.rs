//! The SQL surface: every `#[pg_extern]` and the `mcp.tool` trigger, one file per concern. Each
//! function checks its arguments and calls the module that does the work.

// pgrx's `ErrorReport` (the error every `#[pg_extern]` returns) is large by design.
#![allow(clippy::result_large_err)]

mod async_runs;
mod audit;
mod chat;
mod governance;
mod keys;
mod mcp;
mod registry;
mod repair;
mod retrieval;
mod tools;
