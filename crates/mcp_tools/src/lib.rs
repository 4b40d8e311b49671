//! mcp_tools — see Cargo.toml description.
