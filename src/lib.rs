//! pg_mcp: PostgreSQL as MCP server and LLM orchestrator.
//!
//! This crate is the pgrx layer over the pure-Rust crates under `crates/`: `api/` holds the SQL
//! surface (one file per concern, thin `#[pg_extern]`s), `tools/` the tool pipeline (one file
//! per tool kind), `chat/` the chat engine's database host, `pg/` careful wrappers around
//! PostgreSQL internals. ARCHITECTURE.md follows a chat and a tool call through them.

use pgrx::prelude::*;

::pgrx::pg_module_magic!(name, version);

mod api;
mod async_runs;
mod audit;
mod bind;
mod chat;
mod client_check;
mod error;
mod gucs;
mod jsonb;
mod keys;
mod mcp_approval;
mod mcp_server;
mod mcp_tasks;
mod pg;
mod plans;
mod registry;
mod retrieval;
mod rows;
mod sandbox;
mod sql_tool;
mod tools;
mod trace_context;

#[cfg(panic = "abort")]
compile_error!("pg_mcp must be built with panic = \"unwind\": a panic must become an ERROR, not abort the server");

pgrx::extension_sql_file!("../sql/bootstrap.sql", name = "bootstrap", bootstrap);
pgrx::extension_sql_file!("../sql/views.sql", name = "views", requires = ["bootstrap"]);
pgrx::extension_sql_file!("../sql/plans.sql", name = "plans", requires = ["views"]);
// The web console's index of the runs list (keyset pagination); after the audit tables.
pgrx::extension_sql_file!(
    "../sql/console.sql",
    name = "console",
    requires = ["bootstrap"]
);
pgrx::extension_sql_file!("../sql/finalize.sql", name = "finalize", finalize);

#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    // First: its settings may come from postgresql.conf (shared_preload_libraries), and
    // gucs::init reserves the prefix, which drops placeholders not defined by then.
    audit::init();
    async_runs::init();
    chat::budget::init();
    mcp_server::init_gucs();
    trace_context::init_gucs();
    gucs::init();
    sandbox::init();
    pg::hooks::install_engine_hooks();
}

/// The in-database tests (#[pg_test]), one module per subject under tests/pg/.
#[cfg(any(test, feature = "pg_test"))]
#[path = "../tests/pg/mod.rs"]
mod tests;

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

    static KEY_CONF: OnceLock<String> = OnceLock::new();

    /// The test cluster's server key (mcp.server_key_file): 64 random hex digits in a file next
    /// to the cluster's data directory (outside it, as the README advises), mode 0600, owned by
    /// the OS user the cluster runs as (`--runas`). Made once and kept across runs.
    fn server_key_file() -> std::path::PathBuf {
        use std::io::{Read, Write};
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        // the cluster's user (pgrx's --runas), as "uid:gid", when the runner is another user
        let owner = std::env::var("CARGO_PGRX_TEST_RUNAS").ok().map(|user| {
            let id = |flag: &str| -> u32 {
                let out = std::process::Command::new("id")
                    .args([flag, &user])
                    .output()
                    .expect("id");
                String::from_utf8_lossy(&out.stdout)
                    .trim()
                    .parse()
                    .expect("numeric id")
            };
            (id("-u"), id("-g"))
        });
        let give_to_owner = |p: &std::path::Path| {
            if let Some((uid, gid)) = owner {
                std::os::unix::fs::chown(p, Some(uid), Some(gid))
                    .expect("chown to the cluster's user");
            }
        };
        let dir = std::env::var_os("CARGO_PGRX_TEST_PGDATA")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(std::env::temp_dir);
        if !dir.exists() {
            // pgrx creates the cluster's data directory below it as the cluster's user
            std::fs::create_dir_all(&dir).expect("directory for the server key");
            give_to_owner(&dir);
        }
        let path = dir.join("pg_mcp_server.key");
        if !path.exists() {
            let mut key = [0u8; 32];
            std::fs::File::open("/dev/urandom")
                .and_then(|mut f| f.read_exact(&mut key))
                .expect("random bytes for the server key");
            let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
                .and_then(|mut f| writeln!(f, "{hex}"))
                .expect("write the server key file");
        }
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
            .expect("chmod 600 the server key file");
        give_to_owner(&path);
        path
    }

    pub fn setup(_options: Vec<&str>) {
        mock();
    }

    #[must_use]
    pub fn postgresql_conf_options() -> Vec<&'static str> {
        let conf = CONF.get_or_init(|| format!("pg_mcp_test.mock_url = '{}'", mock().url()));
        let key = KEY_CONF.get_or_init(|| {
            format!(
                "mcp.server_key_file = '{}'",
                server_key_file().display().to_string().replace('\'', "''")
            )
        });
        // Durable audit on, the production default with the preload: the worker commits the
        // audit rows in its own transactions (synchronous mode: before mcp.chat or
        // mcp.call_tool returns), so they outlast the test's rollback; tests read them by their
        // run or call id (see tests/pg/mod.rs, `audit_visible`). tests/audit/run.sh covers the
        // cases that need several real sessions.
        vec![
            conf.as_str(),
            key.as_str(),
            "shared_preload_libraries = 'pg_mcp'",
            "mcp.audit_durable = on",
        ]
    }
}
