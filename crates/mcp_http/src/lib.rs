//! mcp_http — see Cargo.toml description.
