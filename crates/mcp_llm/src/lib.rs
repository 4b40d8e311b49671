//! mcp_llm — see Cargo.toml description.
