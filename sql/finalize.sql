-- pg_mcp: triggers, grants, built-in rows and function comments (runs after the Rust functions
-- exist).

------------------------------------------------------------------------------------------------
-- Registry row checks that a CHECK constraint cannot express
------------------------------------------------------------------------------------------------
-- mcp.tool_row_check() is a C trigger function (src/registry.rs): PostgreSQL checks EXECUTE where
-- a function is called from SQL, not where a trigger fires, so the checks need no grant to PUBLIC
-- and run as the inserting role with its search_path (a report body is analyzed with the names a
-- caller's will resolve to). No SECURITY DEFINER, nothing runs with the owner's rights.
COMMENT ON FUNCTION mcp.tool_row_check() IS
  'Trigger: refuses a tool whose parameters are not a valid JSON Schema or too complex to validate, do not fit the function''s arguments, or whose report body is not one read-only query; stamps updated_at.';
CREATE TRIGGER tool_row_check BEFORE INSERT OR UPDATE ON mcp.tool
    FOR EACH ROW EXECUTE FUNCTION mcp.tool_row_check();

------------------------------------------------------------------------------------------------
-- Built-in tools
------------------------------------------------------------------------------------------------
CREATE FUNCTION mcp.ask_user(missing_parameters text[], context text DEFAULT NULL) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT pg_catalog.jsonb_build_object(
        'needs_input', true,
        'missing_parameters', pg_catalog.to_jsonb(COALESCE(missing_parameters, '{}')),
        'context', context)
$$;
COMMENT ON FUNCTION mcp.ask_user(text[], text) IS
  'Implements the built-in tool getDialog: records which parameters the user must supply; the chat loop ends with status needs_input.';

INSERT INTO mcp.tool (name, description, parameters, function, kind, read_only) VALUES
('getDialog',
 'Call this when the user''s request lacks information you need (for example a region or an industry) instead of guessing. Name the missing parameters; the user will be asked and the conversation continues with the answer.',
 '{"type": "object",
   "properties": {
     "missing_parameters": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                            "description": "Parameters the user must supply."},
     "context": {"type": "string", "description": "Short summary of the conversation so far."}},
   "required": ["missing_parameters"]}',
 'mcp.ask_user(text[], text)', 'builtin', true);

-- The read-only SQL tool and the schema overview: implemented inside pg_mcp (no function).
-- Enable them per interface with INSERT INTO mcp.interface_tool.
INSERT INTO mcp.tool (name, description, parameters, kind, read_only) VALUES
('sql_query',
 'Run one read-only SQL query (PostgreSQL dialect: SELECT, WITH … SELECT, VALUES, TABLE or EXPLAIN without ANALYZE) as the user and get the rows as a markdown table. Nothing you run can change data: statements that write are refused. At most max_rows rows are shown (default 25) and the result says when more exist, so aggregate or filter in SQL instead of fetching everything. Call schema_information first to learn the tables and columns.',
 '{"type": "object",
   "properties": {
     "query": {"type": "string", "minLength": 1, "maxLength": 32000,
               "description": "Exactly one read-only SQL query."},
     "max_rows": {"type": "integer", "minimum": 1,
                  "description": "Rows to show (default 25; larger values are capped by the operator maximum)."}},
   "required": ["query"],
   "additionalProperties": false}',
 'builtin', true),
('schema_information',
 'List the tables and views you may read, with their columns, types, keys and comments. Optionally filter by schema and/or table name. Use it before writing SQL for sql_query.',
 '{"type": "object",
   "properties": {
     "schema": {"type": "string", "description": "Only this schema (exact name)."},
     "table": {"type": "string", "description": "Only this table or view (exact name)."}},
   "additionalProperties": false}',
 'builtin', true);

------------------------------------------------------------------------------------------------
-- Default prompt (the seed insists on an explicit tool-use strategy in the system prompt)
------------------------------------------------------------------------------------------------
INSERT INTO mcp.prompt (name, version, role, template, description) VALUES
('system', 1, 'system',
 'You are a careful assistant answering from the database through the tools you are given.
Tool-use strategy:
1. If a tool can provide the facts, call it; never invent data the tools did not return.
2. If required information is missing from the question, call getDialog with the missing parameters instead of guessing.
3. Call several independent tools in one turn when you can.
4. When a tool reports an error, correct the arguments once; if it fails again, say so.
5. Answer concisely, in the language of the question, and name the records you used.',
 'Default system prompt with the tool-use strategy.');

------------------------------------------------------------------------------------------------
-- pg_dump: registry rows are user data (built-ins are recreated by CREATE EXTENSION)
------------------------------------------------------------------------------------------------
SELECT pg_catalog.pg_extension_config_dump('mcp.provider', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.provider_secret', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.interface', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.tool', 'WHERE kind <> ''builtin''');
SELECT pg_catalog.pg_extension_config_dump('mcp.interface_tool', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.resource', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.prompt', 'WHERE name <> ''system'' OR version <> 1');

------------------------------------------------------------------------------------------------
-- Privileges: registry readable by everybody, writable by the owner (and whom it grants);
-- secrets and audit readable by the owner only. Tools run as the calling role.
------------------------------------------------------------------------------------------------
GRANT USAGE ON SCHEMA mcp TO PUBLIC;
GRANT SELECT ON mcp.provider, mcp.interface, mcp.tool, mcp.interface_tool, mcp.resource, mcp.prompt TO PUBLIC;
REVOKE ALL ON mcp.provider_secret FROM PUBLIC;
REVOKE ALL ON mcp.run, mcp.tool_call, mcp.llm_request, mcp.message FROM PUBLIC;
REVOKE ALL ON mcp.recent_runs, mcp.tool_error_rates FROM PUBLIC;
-- The registry trigger runs its checks without calling these: no grant is needed to register
-- tools, and no role can spend the backend's CPU on them directly.
REVOKE EXECUTE ON FUNCTION mcp.check_tool_definition(text, text, jsonb, oid, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION mcp.tool_row_check() FROM PUBLIC;

------------------------------------------------------------------------------------------------
-- Function comments
------------------------------------------------------------------------------------------------
COMMENT ON FUNCTION mcp.list_tools(text, text) IS
  'Tools of an interface the calling role may run (enabled, mapped, EXECUTE on the function), as an OpenAI tools array (format openai), MCP Tool list (mcp) or Anthropic tools (anthropic).';
COMMENT ON FUNCTION mcp.call_tool(text, jsonb, text) IS
  'Runs one tool as the calling role: authorization, strict argument validation, call with arguments bound by name, result shaping. Returns an MCP CallToolResult; tool failures give isError with the detail in mcp.tool_call.';
COMMENT ON FUNCTION mcp.validate_arguments(text, jsonb) IS
  'Checks arguments against the tool''s JSON Schema with strict types: [] when valid, else [{parameter, kind, message}].';
COMMENT ON FUNCTION mcp.check_tool_definition(text, text, jsonb, oid, text) IS
  'Checks a tool definition as the mcp.tool trigger does: raises check_violation when its schema is invalid or too complex to validate, does not fit its function, or its report body is not one read-only query over existing objects. Not granted to PUBLIC.';
COMMENT ON FUNCTION mcp.set_api_key(text, text) IS
  'Stores the API key of a provider where PUBLIC cannot read it (NULL removes it). Requires UPDATE on mcp.provider.';
COMMENT ON FUNCTION mcp.has_api_key(text) IS 'Whether a provider has an API key (never the key).';
COMMENT ON FUNCTION mcp.repair_json(text) IS
  'Parses LLM output as JSON, repairing fences, prose, truncation, quotes, comments, concatenation …; unrepairable input raises 22P02 with the position.';
COMMENT ON FUNCTION mcp.repair_json_report(text) IS
  'Like repair_json but returns {value, repaired, fixes[]} and never raises: unrepairable input gives {value: null, error}.';
COMMENT ON FUNCTION mcp.parse_llm_response(text) IS
  'Normalizes an LLM response body (OpenAI-compatible, Azure, Anthropic, SSE, provider error bodies) to {finish_reason, content, tool_calls[{id, name, arguments, complete, …}], usage, error, repairs}; truncated tool calls are marked incomplete.';
COMMENT ON FUNCTION mcp.chat(text, text, uuid, jsonb) IS
  'Runs one user turn through the agent loop: system prompt + history + question + tools → LLM → tool calls executed as the calling role → … → answer. Returns {run_id, session_id, status, answer, iterations, tool_calls, usage, error}; faults are returned as status, not raised (except cancel/statement_timeout). Options: provider, tool_choice, max_iterations, max_total_tokens.';
