//! pg_mcp: PostgreSQL as MCP server and LLM orchestrator.
//!
//! This crate is the thin pgrx layer: one file per SQL-facing concern, each `#[pg_extern]`
//! converting types and calling the pure-Rust crates under `crates/`.

use pgrx::prelude::*;

::pgrx::pg_module_magic!(name, version);

mod error;
mod gucs;
mod json_api;
mod pg_util;
mod registry;
mod rows;
mod tools;

#[cfg(panic = "abort")]
compile_error!("pg_mcp must be built with panic = \"unwind\": a panic must become an ERROR, not abort the server");

pgrx::extension_sql_file!("../sql/bootstrap.sql", name = "bootstrap", bootstrap);
pgrx::extension_sql_file!("../sql/finalize.sql", name = "finalize", finalize);

#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    gucs::init();
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    include!("../tests/pg/mod.rs");
}

/// Required by `cargo pgrx test`.
#[cfg(test)]
pub mod pg_test {
    pub fn setup(_options: Vec<&str>) {}

    #[must_use]
    pub fn postgresql_conf_options() -> Vec<&'static str> {
        vec![]
    }
}
