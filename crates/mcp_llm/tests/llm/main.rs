//! Plain tests for mcp_llm: no database, no network.

mod bodies;
mod budget;
mod errors;
mod providers;
mod responses;
mod types;
