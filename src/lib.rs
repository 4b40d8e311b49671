//! pg_mcp: PostgreSQL as MCP server and LLM orchestrator.
//!
//! This crate is the thin pgrx layer: one file per SQL-facing concern, each `#[pg_extern]`
//! converting types and calling the pure-Rust crates under `crates/`.

use pgrx::prelude::*;

::pgrx::pg_module_magic!(name, version);

mod chat;
mod error;
mod gucs;
mod json_api;
mod mcp_server;
mod pg_util;
mod registry;
mod rows;
mod sql_tool;
mod tools;

#[cfg(panic = "abort")]
compile_error!("pg_mcp must be built with panic = \"unwind\": a panic must become an ERROR, not abort the server");

pgrx::extension_sql_file!("../sql/bootstrap.sql", name = "bootstrap", bootstrap);
pgrx::extension_sql_file!("../sql/views.sql", name = "views", requires = ["bootstrap"]);
pgrx::extension_sql_file!("../sql/finalize.sql", name = "finalize", finalize);

#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    mcp_server::init_gucs();
    gucs::init();
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    include!("../tests/pg/mod.rs");
    include!("../tests/pg/mcp_server.rs");
}

/// Required by `cargo pgrx test`.
#[cfg(test)]
pub mod pg_test {
    use std::sync::OnceLock;

    /// The loopback mock LLM the in-database tests talk to. It runs in the test runner process
    /// for the whole run; its scenarios are in tests/pg/scenarios.json.
    static MOCK: OnceLock<mock_llm::MockServer> = OnceLock::new();
    static CONF: OnceLock<String> = OnceLock::new();

    fn mock() -> &'static mock_llm::MockServer {
        MOCK.get_or_init(|| {
            let server = mock_llm::MockServer::start(mock_llm::MockConfig::default())
                .expect("start mock LLM");
            let all: serde_json::Value =
                serde_json::from_str(include_str!("../tests/pg/scenarios.json"))
                    .expect("scenarios.json");
            for (name, sc) in all.as_object().expect("object of scenarios") {
                server
                    .add_scenario_json(name, &sc.to_string())
                    .expect("valid scenario");
            }
            server
        })
    }

    pub fn setup(_options: Vec<&str>) {
        mock();
    }

    #[must_use]
    pub fn postgresql_conf_options() -> Vec<&'static str> {
        let conf = CONF.get_or_init(|| format!("pg_mcp_test.mock_url = '{}'", mock().url()));
        vec![conf.as_str()]
    }
}
