//! Names of the tools pg_mcp implements itself (rows of kind `builtin` in `mcp.tool`, inserted by
//! the extension script). One place, read by the tool kinds and by the registry's checks.

/// The read-only SQL tool (no function: pg_mcp runs the query).
pub const SQL_QUERY: &str = "sql_query";
/// The schema overview tool (no function: pg_mcp reads the catalog).
pub const SCHEMA_INFORMATION: &str = "schema_information";
/// The tool that asks the user for missing input (function `mcp.ask_user`).
pub const GET_DIALOG: &str = "getDialog";

/// The retrieval gate over the collections built for RAG (no function: pg_mcp searches).
pub const CONTEXT_RETRIEVE: &str = "context_retrieve";

/// A question to the interface's chat (`mcp.chat`) as an MCP tool: through `mcp.handle` only,
/// as an MCP task where the client takes one (no function: `src/mcp_tasks.rs` runs it).
pub const CHAT: &str = "chat";

/// Built-in tools that need no function.
pub const WITHOUT_FUNCTION: [&str; 4] = [SQL_QUERY, SCHEMA_INFORMATION, CONTEXT_RETRIEVE, CHAT];
