//! Search tools (`kind` `vector_search`, `text_search`, `hybrid_search`): `mcp.search` on the
//! collection fixed in the tool's row (`mcp.tool.collection`), with the arguments `query`, `k`
//! and `filter`, as the calling role (row-level security on documents applies). Registered by
//! `mcp.register_search_tool`; the work is in `crate::retrieval`.

use super::{Call, Kind, ToolOutcome};
use crate::error::McpResult;

pub struct Search;

impl Kind for Search {
    fn run(&self, call: &mut Call<'_>) -> McpResult<ToolOutcome> {
        let (name, kind, args) = (call.row.name.clone(), call.row.kind.clone(), call.args);
        Ok(crate::retrieval::run_search_tool(&name, &kind, args, call))
    }
}
