//! mock_llm — see Cargo.toml description.
