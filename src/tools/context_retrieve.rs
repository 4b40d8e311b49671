//! `context_retrieve`: the built-in retrieval gate. It searches only the collections built for
//! RAG (`purpose = 'rag'`) whose embedding model matches the interface's, keeps passages above
//! each collection's minimum score, and answers "no retrieval context found" otherwise. The
//! audit row records the matched collections and the passage count instead of the query
//! (unless the interface's `audit_retrieval_query` is on). The work is in `crate::retrieval`.

use super::{Call, Kind, ToolOutcome};
use crate::error::McpResult;

pub struct ContextRetrieve;

impl Kind for ContextRetrieve {
    fn run(&self, call: &mut Call<'_>) -> McpResult<ToolOutcome> {
        let args = call.args;
        Ok(crate::retrieval::run_context_retrieve(args, call))
    }
}
