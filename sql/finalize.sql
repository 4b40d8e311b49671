-- pg_mcp: triggers, grants, built-in rows and function comments (runs after the Rust functions
-- exist).

------------------------------------------------------------------------------------------------
-- Function signatures in the registry (mcp.tool.function, mcp.resource.function)
------------------------------------------------------------------------------------------------
-- Stored as text, not regprocedure: pg_upgrade refuses reg* columns (their OIDs do not survive
-- it). Written by the admin with the admin's search_path, stored in a form that names the same
-- function under any search_path, resolved again (per-backend cache) at every call.
CREATE FUNCTION mcp.function_signature(fn regprocedure) RETURNS text
LANGUAGE sql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT quote_ident(n.nspname) || '.' || quote_ident(p.proname) || '('
           || array_to_string(ARRAY(SELECT format_type(a.t, NULL)
                                      FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS a(t, i)
                                     ORDER BY a.i), ',')
           || ')'
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE p.oid = fn
$$;
COMMENT ON FUNCTION mcp.function_signature(regprocedure) IS
  'The form in which mcp.tool.function and mcp.resource.function store a function: schema-qualified name and argument types as regprocedure prints them with search_path = pg_catalog (types outside pg_catalog qualified), e.g. demo.get_tarifvertrag(text,text,text[]). It names the same function under any search_path. NULL when the function does not exist.';

-- The registry triggers run as the writing role, with its search_path: the one the admin wrote
-- the signature (and a report body) for.
CREATE FUNCTION mcp.check_function_signature(signature text, entry text) RETURNS text
LANGUAGE plpgsql STABLE STRICT AS $$
DECLARE
    fn oid := mcp.resolve_function(signature);
BEGIN
    IF fn IS NOT NULL THEN
        RETURN mcp.function_signature(fn::regprocedure);
    END IF;
    -- check_function_bodies = off is how pg_dump's output restores (function bodies are not
    -- checked either): a row is restored as it was dumped, even when its function is gone.
    IF NOT pg_catalog.current_setting('check_function_bodies')::boolean THEN
        RETURN signature;
    END IF;
    RAISE EXCEPTION '% refused: function % does not exist', entry, signature
        USING ERRCODE = 'check_violation',
              HINT = 'Give the signature of an existing function with its argument types, e.g. demo.get_tarifvertrag(text, text, text[]).';
END
$$;
COMMENT ON FUNCTION mcp.check_function_signature(text, text) IS
  'Used by the registry triggers: the stored form (mcp.function_signature) of the function a signature names with the caller''s search_path; raises check_violation naming the registry entry when there is none (with check_function_bodies = off, as in a restore, returns the signature unchanged instead).';

-- mcp.tool_row_check() is a C trigger function (src/registry.rs): PostgreSQL checks EXECUTE where
-- a function is called from SQL, not where a trigger fires, so the checks need no grant to PUBLIC
-- and run as the inserting role with its search_path (a signature and a report body are resolved
-- with the names the admin wrote them for). No SECURITY DEFINER, nothing runs with the owner's
-- rights.
COMMENT ON FUNCTION mcp.tool_row_check() IS
  'Trigger: refuses a tool whose function does not exist, whose parameters are not a valid JSON Schema or too complex to validate, do not fit the function''s arguments, or whose report body is not one read-only query (not checked with check_function_bodies = off, as pg_dump''s output restores); stores the function signature schema-qualified (mcp.function_signature); stamps updated_at on UPDATE.';
CREATE TRIGGER tool_row_check BEFORE INSERT OR UPDATE ON mcp.tool
    FOR EACH ROW EXECUTE FUNCTION mcp.tool_row_check();

-- access_role must name a role when it is written (like GRANT, which refuses an unknown role).
-- A role dropped later leaves the interface closed to everybody but superusers and interface
-- managers (checked at use with the role's current name). Only a changed value is checked, so
-- other updates of such a row still work.
CREATE FUNCTION mcp.interface_row_check() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.access_role IS NOT NULL AND NEW.access_role OPERATOR(pg_catalog.<>) 'public' THEN
        IF TG_OP OPERATOR(pg_catalog.=) 'UPDATE' THEN
            IF NEW.access_role IS NOT DISTINCT FROM OLD.access_role THEN
                RETURN NEW;
            END IF;
        END IF;
        IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) NEW.access_role) THEN
            RAISE EXCEPTION 'interface "%" refused: access_role "%" is not a role', NEW.name, NEW.access_role
                USING ERRCODE = '42704',
                      HINT = 'Name an existing role (roles with its privileges may use the interface), ''public'' for every role, or NULL to close the interface.';
        END IF;
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION mcp.interface_row_check() IS
  'Trigger: refuses an interface whose access_role is neither NULL, ''public'' nor an existing role.';
CREATE TRIGGER interface_row_check BEFORE INSERT OR UPDATE ON mcp.interface
    FOR EACH ROW EXECUTE FUNCTION mcp.interface_row_check();

CREATE FUNCTION mcp.resource_row_check() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.function IS NOT NULL THEN
        NEW.function := mcp.check_function_signature(NEW.function, pg_catalog.format('resource "%s"', NEW.uri));
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION mcp.resource_row_check() IS
  'Trigger: refuses a resource whose function does not exist; stores the function signature schema-qualified (mcp.function_signature).';
CREATE TRIGGER resource_row_check BEFORE INSERT OR UPDATE ON mcp.resource
    FOR EACH ROW EXECUTE FUNCTION mcp.resource_row_check();

-- pg_dump leaves out the built-in system prompt version 1 (CREATE EXTENSION makes it), but a
-- dumped active version of the same name would then meet it in the one-active-version index and
-- fail the whole COPY of mcp.prompt. In a restore (check_function_bodies = off, as pg_dump's
-- output sets it) the dumped active version wins.
CREATE FUNCTION mcp.prompt_row_check() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.active AND NOT pg_catalog.current_setting('check_function_bodies')::boolean THEN
        UPDATE mcp.prompt SET active = false
         WHERE name OPERATOR(pg_catalog.=) NEW.name AND active AND version OPERATOR(pg_catalog.<>) NEW.version;
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION mcp.prompt_row_check() IS
  'Trigger: in a restore (check_function_bodies = off) an inserted active prompt version deactivates the active version of the same name that CREATE EXTENSION made (the built-in system prompt), instead of failing on the one-active-version index.';
CREATE TRIGGER prompt_row_check BEFORE INSERT ON mcp.prompt
    FOR EACH ROW EXECUTE FUNCTION mcp.prompt_row_check();

CREATE VIEW mcp.unresolved_functions AS
SELECT 'tool'::text AS registry, t.name, t.function, t.enabled
  FROM mcp.tool t
 WHERE t.function IS NOT NULL AND mcp.resolve_function(t.function) IS NULL
UNION ALL
SELECT 'resource'::text, r.uri, r.function, r.enabled
  FROM mcp.resource r
 WHERE r.function IS NOT NULL AND mcp.resolve_function(r.function) IS NULL;
COMMENT ON VIEW mcp.unresolved_functions IS
  'Registry rows whose function signature no longer names a function (renamed, moved or dropped after registration), resolved with the reader''s search_path. A tool listed here is not offered to the model and a call of it fails naming the signature; fix it with UPDATE … SET function = ''schema.new_name(argument types)''.';
COMMENT ON COLUMN mcp.unresolved_functions.registry IS 'tool (mcp.tool) or resource (mcp.resource).';
COMMENT ON COLUMN mcp.unresolved_functions.name IS 'Tool name or resource URI.';
COMMENT ON COLUMN mcp.unresolved_functions.function IS 'The stored signature that no longer resolves.';
COMMENT ON COLUMN mcp.unresolved_functions.enabled IS 'Whether the row is enabled.';

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

-- The chat as an MCP tool (an MCP task where the client takes one): src/mcp_tasks.rs runs it,
-- through mcp.handle only. Map it to an interface to offer it to MCP clients.
INSERT INTO mcp.tool (name, description, parameters, kind, read_only) VALUES
('chat',
 'Ask the database''s assistant a question in natural language. It answers from the database through the tools of this interface, as you (your role''s privileges and row-level security). The answer may take a while; when your client supports MCP tasks it gets a task to poll. To continue a conversation, or to answer a question the assistant asked, pass the session_id of the earlier answer.',
 '{"type": "object",
   "properties": {
     "question": {"type": "string", "minLength": 1, "maxLength": 32000,
                  "description": "The question or instruction, in any language."},
     "session_id": {"type": "string", "minLength": 36, "maxLength": 36,
                    "description": "The session_id of an earlier answer, to continue that conversation."}},
   "required": ["question"],
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
-- Audit: the record of what ran is data too (a restore without it would silently lose it), and
-- conversations continue from mcp.message. Leave it out with pg_dump --exclude-table-data.
-- The identity sequences go with their tables, or new rows would collide with restored ones.
SELECT pg_catalog.pg_extension_config_dump('mcp.run', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.llm_request', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.llm_request_request_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.tool_call', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.tool_call_call_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.message', '');

------------------------------------------------------------------------------------------------
-- Privileges: registry readable by everybody, writable by the owner (and whom it grants);
-- secrets and audit readable by the owner only. Tools run as the calling role.
------------------------------------------------------------------------------------------------
GRANT USAGE ON SCHEMA mcp TO PUBLIC;
GRANT SELECT ON mcp.provider, mcp.interface, mcp.tool, mcp.interface_tool, mcp.resource, mcp.prompt TO PUBLIC;
GRANT SELECT ON mcp.unresolved_functions TO PUBLIC;
REVOKE ALL ON mcp.provider_secret FROM PUBLIC;
-- mcp.run, mcp.tool_call and mcp.message: each role reads its own rows (row-level security,
-- sql/governance.sql, which runs before this file and grants SELECT).
REVOKE ALL ON mcp.llm_request FROM PUBLIC;
REVOKE ALL ON mcp.recent_runs, mcp.tool_error_rates FROM PUBLIC;
-- The registry trigger runs its checks without calling these: no grant is needed to register
-- tools, and no role can spend the backend's CPU on them directly.
REVOKE EXECUTE ON FUNCTION mcp.check_tool_definition(text, text, jsonb, oid, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION mcp.tool_row_check() FROM PUBLIC;
REVOKE ALL ON FUNCTION mcp.audit_status() FROM PUBLIC;
COMMENT ON FUNCTION mcp.audit_status() IS
  'Durable audit (issue 11): {preloaded, durable, synchronous, queues: [{database_oid, worker_pid, queued_bytes, queue_bytes, records_queued, records_stored, records_failed, wanted_by_oid, generation}]}: wanted_by_oid is a database waiting for that queue, generation counts its changes of database (issue 20). Not executable by PUBLIC.';

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
  'Stores the API key of a provider, encrypted with the server key (mcp.server_key_file), where PUBLIC cannot read it (NULL removes it). Requires UPDATE on mcp.provider; without a server key it refuses with 55000.';
COMMENT ON FUNCTION mcp.has_api_key(text) IS
  'Whether a provider has an API key (never the key). Requires UPDATE on mcp.provider, like setting one.';
COMMENT ON FUNCTION mcp.may_use_interface(text) IS
  'Whether the calling role may use an interface (chat, list and call its tools): superuser, UPDATE on mcp.interface, access_role = ''public'', or the privileges of its access_role. The check mcp.chat, mcp.list_tools and mcp.call_tool make.';
COMMENT ON FUNCTION mcp.resolve_function(text) IS
  'The OID of the function a stored signature (mcp.tool.function, mcp.resource.function) names, resolved like to_regprocedure with the caller''s search_path; NULL instead of an error when a type in it no longer exists or the text is not a signature. Cached per backend, invalidated by catalog changes.';
COMMENT ON FUNCTION mcp.repair_json(text) IS
  'Parses LLM output as JSON, repairing fences, prose, truncation, quotes, comments, concatenation …; unrepairable input raises 22P02 with the position.';
COMMENT ON FUNCTION mcp.repair_json_report(text) IS
  'Like repair_json but returns {value, repaired, fixes[]} and never raises: unrepairable input gives {value: null, error}.';
COMMENT ON FUNCTION mcp.parse_llm_response(text) IS
  'Normalizes an LLM response body (OpenAI-compatible, Azure, Anthropic, SSE, provider error bodies) to {finish_reason, content, reasoning, tool_calls[{id, name, arguments, complete, …}], usage, error, repairs}; truncated tool calls are marked incomplete; tool calls open models wrote as text are read from the content (see the two-argument form for checking them against the offered tools).';
COMMENT ON FUNCTION mcp.parse_llm_response(text, jsonb) IS
  'mcp.parse_llm_response knowing the tools the request offered (an OpenAI, Anthropic or MCP tools array, or an object with a "tools" array): tool calls written as text by open models (Hermes/Qwen, Qwen3-Coder, GLM, DeepSeek, Kimi K2, gpt-oss Harmony, Gemma 4, Llama, Mistral, Cohere, MiniMax, Step-3) are checked against them (a tool not offered gives an incomplete call) and their XML parameter values typed by the tool''s schema; reasoning (<think>, [THINK], Harmony analysis) is returned in "reasoning". The parse the chat loop runs. NULL tools = the one-argument form; NULL raw gives NULL.';
COMMENT ON FUNCTION mcp.audit_digest(jsonb) IS
  'Hex SHA-256 of a jsonb value''s canonical text (object keys sorted bytewise, no whitespace): the digest an audit row''s clipped column records for a cut jsonb value, so an operator can check a payload against it.';
COMMENT ON FUNCTION mcp.audit_digest(text) IS
  'Hex SHA-256 of a text''s UTF-8 bytes (= encode(sha256(convert_to(value, ''UTF8'')), ''hex'')): the digest an audit row''s clipped column records for a cut text value.';
COMMENT ON FUNCTION mcp.chat(text, text, uuid, jsonb) IS
  'Runs one user turn through the agent loop: system prompt + history + question + tools → LLM → tool calls executed as the calling role → … → answer. Returns {run_id, session_id, status, answer, iterations, tool_calls, usage, error}; faults are returned as status, not raised (except cancel/statement_timeout). Needs the interface''s access (mcp.may_use_interface). Options: provider, tool_choice, max_iterations, max_total_tokens, deadline_ms, plan; they may only tighten the interface''s limits unless the caller has UPDATE on mcp.interface.';
