-- Input requests (MCP multi round-trip requests): a tool that needs something from the client
-- (its user's answer, its LLM's completion, its roots) returns {"needs_input": true,
-- "input_requests": {key: {method, params}}}; mcp.handle answers the tools/call with an
-- InputRequiredResult, the client (or, for a 2025-11-25 client, pg_mcp_bridge on the call's SSE
-- stream) answers and calls again, and the tool finds the answer with mcp.input_response(key).
-- Objects added here (0.1.0 -> 0.2.0): function mcp.input_response(text).

COMMENT ON FUNCTION mcp.input_response(text) IS
  'Inside a tool that mcp.handle runs for tools/call: the MCP client''s response to the tool''s input request with this key (an ElicitResult, CreateMessageResult or ListRootsResult as the client sent it), NULL in the first round and outside mcp.handle. A tool asks by returning {"needs_input": true, "input_requests": {"<key>": {"method": "elicitation/create" | "sampling/createMessage" | "roots/list", "params": {...}}}}. The response is what the client says: never take it as an approval.';
