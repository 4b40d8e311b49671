//! The bridge's resource limits: what one client, one role or all unauthenticated clients
//! can make the bridge hold. Each has a default, a flag and an environment variable
//! (`--max-connections 8` or `PG_MCP_BRIDGE_MAX_CONNECTIONS=8`; the flag wins).
//! docs/bridge-resource-model.md describes the model.

use std::time::Duration;

#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Database connections of the authenticator for requests (HTTP), at most.
    pub max_connections: usize,
    /// Of those, what one role may hold at a time; its further requests queue (FIFO).
    pub role_connections: usize,
    /// Connections reserved for opaque-token lookups (never taken by requests).
    pub auth_connections: usize,
    /// Sessions kept at most (the least recently used one is evicted beyond).
    pub max_sessions: usize,
    /// Sessions one role keeps at most (its own least recently used one is evicted beyond).
    pub role_sessions: usize,
    /// A session unused this long is removed.
    pub session_idle: Duration,
    /// SSE streams (GET /mcp) open at once per session.
    pub streams_per_session: usize,
    /// Largest request body (HTTP).
    pub max_body: usize,
    /// Time to send a request's headers, and the most a kept-alive connection may sit idle.
    pub header_timeout: Duration,
    /// Time to send a request's body, after its headers.
    pub body_timeout: Duration,
    /// TCP connections open at once (authenticated or not); beyond, new ones wait in the
    /// kernel's backlog.
    pub max_open_connections: usize,
    /// Items of a JSON-RPC batch (revision 2025-03-26 only; later revisions have none).
    pub max_batch: usize,
    /// Largest answer sent back; a larger one is replaced by an error.
    pub max_response: usize,
    /// Longest stdio line (one message).
    pub max_line: usize,
    /// stdio lines read ahead while a request runs; beyond, the bridge stops reading stdin.
    pub max_queued: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 8,
            role_connections: 4,
            auth_connections: 2,
            max_sessions: 10_000,
            role_sessions: 1_000,
            session_idle: Duration::from_secs(30 * 60),
            streams_per_session: 2,
            max_body: 4 * 1024 * 1024,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_open_connections: 512,
            max_batch: 16,
            max_response: 16 * 1024 * 1024,
            max_line: 4 * 1024 * 1024,
            max_queued: 64,
        }
    }
}

/// The flags (without `--`); the environment variable is `PG_MCP_BRIDGE_` and the flag in
/// upper case with `_` for `-`.
pub const FLAGS: &[&str] = &[
    "max-connections",
    "max-connections-per-role",
    "auth-connections",
    "max-sessions",
    "max-sessions-per-role",
    "session-idle-timeout",
    "max-streams-per-session",
    "max-body-bytes",
    "header-timeout",
    "body-timeout",
    "max-open-connections",
    "max-batch",
    "max-response-bytes",
    "max-line-bytes",
    "max-queued",
];

pub fn env_name(flag: &str) -> String {
    format!(
        "PG_MCP_BRIDGE_{}",
        flag.to_ascii_uppercase().replace('-', "_")
    )
}

impl Limits {
    /// Set one limit by its flag name; the value is a count, bytes or seconds.
    pub fn set(&mut self, flag: &str, value: &str) -> Result<(), String> {
        let n: u64 = value
            .parse()
            .map_err(|_| format!("--{flag}: a whole number expected, not {value:?}"))?;
        let min = match flag {
            "max-batch" | "max-sessions-per-role" | "max-streams-per-session" => 0,
            _ => 1,
        };
        if n < min {
            return Err(format!("--{flag}: at least {min}"));
        }
        let u = n as usize;
        let secs = Duration::from_secs(n);
        match flag {
            "max-connections" => self.max_connections = u,
            "max-connections-per-role" => self.role_connections = u,
            "auth-connections" => self.auth_connections = u,
            "max-sessions" => self.max_sessions = u,
            "max-sessions-per-role" => self.role_sessions = u,
            "session-idle-timeout" => self.session_idle = secs,
            "max-streams-per-session" => self.streams_per_session = u,
            "max-body-bytes" => self.max_body = u,
            "header-timeout" => self.header_timeout = secs,
            "body-timeout" => self.body_timeout = secs,
            "max-open-connections" => self.max_open_connections = u,
            "max-batch" => self.max_batch = u,
            "max-response-bytes" => self.max_response = u,
            "max-line-bytes" => self.max_line = u,
            "max-queued" => self.max_queued = u,
            _ => return Err(format!("unknown limit --{flag}")),
        }
        Ok(())
    }

    /// The defaults, overridden by the environment.
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Result<Limits, String> {
        let mut l = Limits::default();
        for f in FLAGS {
            if let Some(v) = env(&env_name(f)) {
                l.set(f, v.trim())
                    .map_err(|e| format!("{}: {e}", env_name(f)))?;
            }
        }
        Ok(l)
    }

    /// Per-role connections cannot exceed the total.
    pub fn role_connections(&self) -> usize {
        self.role_connections.min(self.max_connections)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flag_sets_its_limit_and_has_an_environment_variable() {
        for f in FLAGS {
            let mut l = Limits::default();
            l.set(f, "7").unwrap();
            assert_ne!(l, Limits::default(), "{f}");
        }
        assert_eq!(
            env_name("max-connections-per-role"),
            "PG_MCP_BRIDGE_MAX_CONNECTIONS_PER_ROLE"
        );
        let l =
            Limits::from_env(&|k| (k == "PG_MCP_BRIDGE_MAX_BATCH").then(|| "3".into())).unwrap();
        assert_eq!(l.max_batch, 3);
        assert!(Limits::default().set("max-connections", "0").is_err());
        assert!(Limits::default().set("max-connections", "x").is_err());
        assert!(Limits::default().set("bogus", "1").is_err());
        let l = Limits {
            role_connections: 50,
            ..Limits::default()
        };
        assert_eq!(l.role_connections(), 8);
    }
}
