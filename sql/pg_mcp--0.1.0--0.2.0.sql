-- pg_mcp 0.1.0 -> 0.2.0, run by ALTER EXTENSION pg_mcp UPDATE (one transaction, as the
-- extension owner's session, search_path = the extension's schemas).
\echo Use "ALTER EXTENSION pg_mcp UPDATE TO '0.2.0'" to load this file. \quit

-- HOW TO EXTEND THIS SCRIPT. A database updated from 0.1.0 must end up identical to a fresh
-- 0.2.0 install: tests/upgrade/run.sh compares the two, object by object (tables, column order,
-- types, defaults, constraints, indexes, triggers, views, functions with their full definition,
-- comments, grants, pg_dump registration, built-in rows) and fails on any difference.
--  * Every change to sql/bootstrap.sql, sql/views.sql, sql/finalize.sql or to a #[pg_extern]
--    gets its statement here, in a section of its own.
--  * A new column goes at the END of its CREATE TABLE in bootstrap.sql (ALTER TABLE ADD COLUMN
--    can only append), with the same default, constraints and comment as there.
--  * A new or changed Rust function: copy its CREATE FUNCTION from the generated install script
--    (cargo pgrx schema, or pg_mcp--0.2.0.sql in the installed extension directory) and prefix
--    the name with mcp. A Rust function whose SQL signature changes needs a NEW Rust name (the C
--    symbol is <rust name>_wrapper): the 0.1.0 definitions call the old symbol with the old
--    argument types until this script has run, so the old symbol must stay with its 0.1.0
--    arguments (tests/upgrade/run.sh checks this too).
--  * Existing rows must keep working: convert them here (UPDATE / ALTER ... USING).

------------------------------------------------------------------------------------------------
-- Function signatures as text (issue 15): pg_upgrade refuses regprocedure columns
------------------------------------------------------------------------------------------------
CREATE FUNCTION mcp.resolve_function(signature text) RETURNS oid
STRICT STABLE
LANGUAGE c
AS 'MODULE_PATHNAME', 'resolve_function_sql_wrapper';
COMMENT ON FUNCTION mcp.resolve_function(text) IS
  'The OID of the function a stored signature (mcp.tool.function, mcp.resource.function) names, resolved like to_regprocedure with the caller''s search_path; NULL instead of an error when a type in it no longer exists or the text is not a signature. Cached per backend, invalidated by catalog changes.';

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

-- Existing rows keep their function. A regprocedure does not keep its function alive: a row
-- whose function was dropped under 0.1.0 holds a dangling OID; it gets a text that names no
-- function (and never will: PostgreSQL 16+ would resolve a bare number as an OID), so it shows
-- up in mcp.unresolved_functions for the admin to fix.
ALTER TABLE mcp.tool ALTER COLUMN function TYPE text
    USING CASE WHEN function IS NOT NULL
               THEN coalesce(mcp.function_signature(function), pg_catalog.format('dropped function (OID %s)', function::oid)) END;
ALTER TABLE mcp.resource ALTER COLUMN function TYPE text
    USING CASE WHEN function IS NOT NULL
               THEN coalesce(mcp.function_signature(function), pg_catalog.format('dropped function (OID %s)', function::oid)) END;
COMMENT ON COLUMN mcp.tool.function IS 'Signature of the implementing SQL function, e.g. demo.get_tarifvertrag(text, text, text[]); each schema property maps to the function argument of the same name. Checked with to_regprocedure on write and stored schema-qualified (mcp.function_signature), resolved again at every call: a function renamed or dropped later makes the tool fail with an error naming the signature (see mcp.unresolved_functions). Text, not regprocedure, so that pg_upgrade can carry the cluster. NULL for report tools and the built-ins sql_query and schema_information.';
COMMENT ON COLUMN mcp.resource.function IS 'Signature of the function returning the content (text or jsonb), e.g. demo.tarif_text(integer); checked and stored schema-qualified like mcp.tool.function. Exactly one of function and query is set.';

-- The tool trigger is a C function now (src/registry.rs): it runs the checks without needing
-- EXECUTE on mcp.check_tool_definition, which PUBLIC no longer has (issue 9, item 6).
CREATE OR REPLACE FUNCTION mcp.tool_row_check() RETURNS trigger
LANGUAGE c
AS 'MODULE_PATHNAME', 'tool_row_check_wrapper';
COMMENT ON FUNCTION mcp.tool_row_check() IS
  'Trigger: refuses a tool whose function does not exist, whose parameters are not a valid JSON Schema or too complex to validate, do not fit the function''s arguments, or whose report body is not one read-only query (not checked with check_function_bodies = off, as pg_dump''s output restores); stores the function signature schema-qualified (mcp.function_signature); stamps updated_at on UPDATE.';
REVOKE EXECUTE ON FUNCTION mcp.check_tool_definition(text, text, jsonb, oid, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION mcp.tool_row_check() FROM PUBLIC;
COMMENT ON FUNCTION mcp.check_tool_definition(text, text, jsonb, oid, text) IS
  'Checks a tool definition as the mcp.tool trigger does: raises check_violation when its schema is invalid or too complex to validate, does not fit its function, or its report body is not one read-only query over existing objects. Not granted to PUBLIC.';

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
GRANT SELECT ON mcp.unresolved_functions TO PUBLIC;

------------------------------------------------------------------------------------------------
-- pg_dump: a restore keeps a dumped active version of the built-in system prompt, and the audit
-- tables and their identity sequences are dumped too (issue 15)
------------------------------------------------------------------------------------------------
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

SELECT pg_catalog.pg_extension_config_dump('mcp.run', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.llm_request', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.llm_request_request_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.tool_call', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.tool_call_call_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.message', '');

------------------------------------------------------------------------------------------------
-- Who may use an interface (issue 9, item 8): mcp.interface.access_role
------------------------------------------------------------------------------------------------
ALTER TABLE mcp.interface ADD COLUMN access_role text;
COMMENT ON COLUMN mcp.interface.access_role IS 'Who may use the interface (mcp.chat, mcp.list_tools, mcp.call_tool): roles with the privileges of this role (members that inherit it, as for a GRANT), ''public'' = every role, NULL (the default) = closed: only superusers and roles with UPDATE on mcp.interface.';
-- 0.1.0 let every role use every interface. An update keeps that for the interfaces that
-- exist (an update must not lock out running applications); new interfaces are closed until
-- granted. The README ("Upgrading") tells admins to set access_role.
DO $$
DECLARE
    n bigint;
BEGIN
    UPDATE mcp.interface SET access_role = 'public';
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN
        RAISE WARNING 'pg_mcp 0.2.0: % existing interface(s) stay open to every role (access_role = ''public''); set mcp.interface.access_role to close them', n;
    END IF;
END
$$;

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

CREATE FUNCTION mcp.may_use_interface(interface text) RETURNS boolean
STABLE
LANGUAGE c
AS 'MODULE_PATHNAME', 'may_use_interface_wrapper';
COMMENT ON FUNCTION mcp.may_use_interface(text) IS
  'Whether the calling role may use an interface (chat, list and call its tools): superuser, UPDATE on mcp.interface, access_role = ''public'', or the privileges of its access_role. The check mcp.chat, mcp.list_tools and mcp.call_tool make.';

------------------------------------------------------------------------------------------------
-- NULL arguments give a clear 22004 naming the parameter (issue 9, item 10)
------------------------------------------------------------------------------------------------
ALTER FUNCTION mcp.list_tools(text, text) CALLED ON NULL INPUT;
ALTER FUNCTION mcp.has_api_key(text) CALLED ON NULL INPUT;

------------------------------------------------------------------------------------------------
-- Keys at rest (issue 9, item 9): sealed with the server key (mcp.server_key_file)
------------------------------------------------------------------------------------------------
-- 0.1.0 kept keys in clear. They are sealed again here through mcp.set_api_key, which needs the
-- server key: with keys stored and no server key configured the update stops with 55000 and a
-- HINT (configure mcp.server_key_file, reload, update again) — a key is never dropped silently.
ALTER TABLE mcp.provider_secret RENAME TO provider_secret_0_1_0;
ALTER INDEX mcp.provider_secret_pkey RENAME TO provider_secret_0_1_0_pkey;
CREATE TABLE mcp.provider_secret (
    -- The key is sealed to the provider's name (associated data): renaming a provider that has a
    -- key is refused instead of leaving a key that no longer opens.
    provider    text PRIMARY KEY
                CONSTRAINT provider_secret_sealed_to_provider_name
                REFERENCES mcp.provider (name) ON UPDATE RESTRICT ON DELETE CASCADE,
    key_id      text NOT NULL CONSTRAINT provider_secret_key_id_format CHECK (key_id ~ '^[0-9a-f]{16}$'),
    nonce       bytea NOT NULL CONSTRAINT provider_secret_nonce_length CHECK (length(nonce) = 24),
    ciphertext  bytea NOT NULL CONSTRAINT provider_secret_ciphertext_length CHECK (length(ciphertext) > 16),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    updated_by  name NOT NULL DEFAULT session_user
);
COMMENT ON TABLE mcp.provider_secret IS
  'API keys per provider, encrypted with the server key (mcp.server_key_file). Not readable by PUBLIC; written only through mcp.set_api_key(). Keys never appear in logs, errors or audit rows.';
COMMENT ON COLUMN mcp.provider_secret.provider IS 'The provider the key belongs to; the key is sealed to this name, so the provider cannot be renamed while it has a key.';
COMMENT ON COLUMN mcp.provider_secret.key_id IS 'Id of the server key that sealed the key (16 hex digits of a SHA-256 over the server key); another key file gives a clear error naming both ids.';
COMMENT ON COLUMN mcp.provider_secret.nonce IS 'Random 24-byte XChaCha20-Poly1305 nonce of this ciphertext.';
COMMENT ON COLUMN mcp.provider_secret.ciphertext IS 'The API key encrypted with XChaCha20-Poly1305 (provider name as associated data) and its 16-byte tag. Sent, once opened, as Authorization: Bearer (openai), api-key (azure) or x-api-key (anthropic).';
COMMENT ON COLUMN mcp.provider_secret.updated_at IS 'When the key was last set.';
COMMENT ON COLUMN mcp.provider_secret.updated_by IS 'Session user who set it.';
SELECT pg_catalog.pg_extension_config_dump('mcp.provider_secret', '');
REVOKE ALL ON mcp.provider_secret FROM PUBLIC;
SELECT mcp.set_api_key(o.provider, o.api_key) FROM mcp.provider_secret_0_1_0 o ORDER BY o.provider;
-- out of the extension first: that also ends its pg_extension_config_dump registration
ALTER EXTENSION pg_mcp DROP TABLE mcp.provider_secret_0_1_0;
DROP TABLE mcp.provider_secret_0_1_0;
COMMENT ON FUNCTION mcp.set_api_key(text, text) IS
  'Stores the API key of a provider, encrypted with the server key (mcp.server_key_file), where PUBLIC cannot read it (NULL removes it). Requires UPDATE on mcp.provider; without a server key it refuses with 55000.';
COMMENT ON FUNCTION mcp.has_api_key(text) IS
  'Whether a provider has an API key (never the key). Requires UPDATE on mcp.provider, like setting one.';
COMMENT ON FUNCTION mcp.chat(text, text, uuid, jsonb) IS
  'Runs one user turn through the agent loop: system prompt + history + question + tools → LLM → tool calls executed as the calling role → … → answer. Returns {run_id, session_id, status, answer, iterations, tool_calls, usage, error}; faults are returned as status, not raised (except cancel/statement_timeout). Needs the interface''s access (mcp.may_use_interface). Options: provider, tool_choice, max_iterations, max_total_tokens; they may only tighten the interface''s limits unless the caller has UPDATE on mcp.interface.';

------------------------------------------------------------------------------------------------
-- Bounded audit (issue 9, item 10): bigint token counts, values cut with size and sha256 kept
------------------------------------------------------------------------------------------------
-- PostgreSQL cannot change the type of a column a view uses: the views go and come back.
DROP VIEW mcp.tool_error_rates;
DROP VIEW mcp.recent_runs;
-- a count that wrapped below zero under 0.1.0 is unrecoverable: 0, like an unreported one
UPDATE mcp.run SET prompt_tokens = 0 WHERE prompt_tokens < 0;
UPDATE mcp.run SET completion_tokens = 0 WHERE completion_tokens < 0;
ALTER TABLE mcp.run
    ALTER COLUMN prompt_tokens TYPE bigint,
    ALTER COLUMN completion_tokens TYPE bigint,
    ADD CONSTRAINT run_prompt_tokens_not_negative CHECK (prompt_tokens >= 0),
    ADD CONSTRAINT run_completion_tokens_not_negative CHECK (completion_tokens >= 0),
    ADD COLUMN clipped jsonb;
-- 0.1.0 stored negative sizes (an int wrapped) and no sizes at all: a negative one is unknown
UPDATE mcp.tool_call SET result_size = NULL WHERE result_size < 0;
ALTER TABLE mcp.tool_call
    ALTER COLUMN result_size TYPE bigint,
    ADD CONSTRAINT tool_call_result_size_not_negative CHECK (result_size >= 0),
    ADD COLUMN clipped jsonb;
UPDATE mcp.llm_request SET prompt_tokens = NULL WHERE prompt_tokens < 0;
UPDATE mcp.llm_request SET completion_tokens = NULL WHERE completion_tokens < 0;
ALTER TABLE mcp.llm_request
    ALTER COLUMN prompt_tokens TYPE bigint,
    ALTER COLUMN completion_tokens TYPE bigint,
    ADD CONSTRAINT llm_request_prompt_tokens_not_negative CHECK (prompt_tokens >= 0),
    ADD CONSTRAINT llm_request_completion_tokens_not_negative CHECK (completion_tokens >= 0),
    ADD COLUMN clipped jsonb;
ALTER TABLE mcp.message ADD COLUMN clipped jsonb;
COMMENT ON COLUMN mcp.run.run_id IS 'Identifier of the run; application_name shows mcp:<run_id> while its tools run.';
COMMENT ON COLUMN mcp.run.session_id IS 'Conversation the run belongs to.';
COMMENT ON COLUMN mcp.run.interface IS 'Interface used.';
COMMENT ON COLUMN mcp.run.provider IS 'Provider used.';
COMMENT ON COLUMN mcp.run.role_name IS 'Role that ran the chat.';
COMMENT ON COLUMN mcp.run.question IS 'The user question (cut to mcp.audit_max_value_bytes; see clipped).';
COMMENT ON COLUMN mcp.run.status IS 'running, completed, needs_input, max_iterations, budget_exceeded, loop_detected, failed, cancelled.';
COMMENT ON COLUMN mcp.run.answer IS 'Final answer text (cut to mcp.audit_max_value_bytes; see clipped).';
COMMENT ON COLUMN mcp.run.iterations IS 'LLM round trips.';
COMMENT ON COLUMN mcp.run.prompt_tokens IS 'Prompt tokens over all requests, as reported by the provider (or estimated); summed without overflow and clamped to 0 .. 2^53-1.';
COMMENT ON COLUMN mcp.run.completion_tokens IS 'Completion tokens over all requests; clamped to 0 .. 2^53-1 like prompt_tokens.';
COMMENT ON COLUMN mcp.run.error IS 'Normalized error when the run failed.';
COMMENT ON COLUMN mcp.run.started_at IS 'Start time.';
COMMENT ON COLUMN mcp.run.finished_at IS 'End time.';
COMMENT ON COLUMN mcp.run.clipped IS 'Values of this row cut to mcp.audit_max_value_bytes: {"<column>": {"bytes": original size, "sha256": hex digest of the original}}; NULL when nothing was cut. Text is hashed as its UTF-8 bytes, jsonb as its canonical text (mcp.audit_digest).';
COMMENT ON COLUMN mcp.tool_call.call_id IS 'Identifier of the call (shown to the caller on errors so an operator can find the detail).';
COMMENT ON COLUMN mcp.tool_call.run_id IS 'Chat run, NULL for a direct mcp.call_tool().';
COMMENT ON COLUMN mcp.tool_call.tool_call_id IS 'The model''s tool_call id (cut to mcp.audit_max_value_bytes).';
COMMENT ON COLUMN mcp.tool_call.tool IS 'Tool name as requested (cut to mcp.audit_max_value_bytes: a caller or model may send anything).';
COMMENT ON COLUMN mcp.tool_call.interface IS 'Interface the call went through.';
COMMENT ON COLUMN mcp.tool_call.role_name IS 'Role the tool ran as.';
COMMENT ON COLUMN mcp.tool_call.arguments_raw IS 'Arguments exactly as received from the model (before repair), cut to mcp.audit_max_value_bytes.';
COMMENT ON COLUMN mcp.tool_call.arguments IS 'Parsed arguments, cut to mcp.audit_max_value_bytes with their structure kept (long strings cut, long arrays keep their first and last items).';
COMMENT ON COLUMN mcp.tool_call.validation_errors IS 'Schema validation errors (status invalid), cut to mcp.audit_max_value_bytes.';
COMMENT ON COLUMN mcp.tool_call.status IS 'ok, error (the tool raised), invalid (arguments refused or incomplete), denied (not allowed for the role/interface, unknown, or tool_choice none), skipped (not executed because the chat run stopped: iteration cap, token budget, loop, cancel).';
COMMENT ON COLUMN mcp.tool_call.result_size IS 'Size of the whole result text in bytes.';
COMMENT ON COLUMN mcp.tool_call.result_preview IS 'First 500 characters of the result; a longer result''s sha256 is in clipped.';
COMMENT ON COLUMN mcp.tool_call.latency_ms IS 'Execution time.';
COMMENT ON COLUMN mcp.tool_call.error_sqlstate IS 'Operator-only: SQLSTATE of the error the tool raised.';
COMMENT ON COLUMN mcp.tool_call.error_message IS 'Operator-only: the error message the tool raised (cut to mcp.audit_max_value_bytes).';
COMMENT ON COLUMN mcp.tool_call.created_at IS 'When the call ran.';
COMMENT ON COLUMN mcp.tool_call.clipped IS 'Values of this row that were cut (to mcp.audit_max_value_bytes, or the 500-character result preview): {"<column>": {"bytes": original size, "sha256": hex digest of the original}}; NULL when nothing was cut. Text is hashed as its UTF-8 bytes, jsonb as its canonical text (mcp.audit_digest).';
COMMENT ON COLUMN mcp.llm_request.request_id IS 'Identifier of the request.';
COMMENT ON COLUMN mcp.llm_request.run_id IS 'The chat run.';
COMMENT ON COLUMN mcp.llm_request.iteration IS 'Round trip number within the run.';
COMMENT ON COLUMN mcp.llm_request.purpose IS 'chat or summary (context-window summarization).';
COMMENT ON COLUMN mcp.llm_request.provider IS 'Provider name.';
COMMENT ON COLUMN mcp.llm_request.model IS 'Model requested.';
COMMENT ON COLUMN mcp.llm_request.url IS 'Endpoint, without query string.';
COMMENT ON COLUMN mcp.llm_request.request_body IS 'Request body as sent (credentials scrubbed), cut to mcp.audit_max_value_bytes with its structure kept; when cut, clipped holds the size and sha256 of the exact text sent.';
COMMENT ON COLUMN mcp.llm_request.response_raw IS 'Raw response body as received (before repair, credentials scrubbed), cut to mcp.audit_max_value_bytes; replay providers answer from these.';
COMMENT ON COLUMN mcp.llm_request.http_status IS 'HTTP status of the final attempt.';
COMMENT ON COLUMN mcp.llm_request.latency_ms IS 'Wall time including retries.';
COMMENT ON COLUMN mcp.llm_request.attempts IS 'HTTP attempts (1 + retries).';
COMMENT ON COLUMN mcp.llm_request.prompt_tokens IS 'Prompt tokens reported (or estimated), clamped to 0 .. 2^53-1.';
COMMENT ON COLUMN mcp.llm_request.completion_tokens IS 'Completion tokens reported (or estimated), clamped to 0 .. 2^53-1.';
COMMENT ON COLUMN mcp.llm_request.finish_reason IS 'Normalized finish reason.';
COMMENT ON COLUMN mcp.llm_request.repaired IS 'The response needed the repair engine.';
COMMENT ON COLUMN mcp.llm_request.fixes IS 'Repairs applied.';
COMMENT ON COLUMN mcp.llm_request.error IS 'Normalized provider error {kind, http_status, message, retry_after_s}.';
COMMENT ON COLUMN mcp.llm_request.created_at IS 'When the request finished.';
COMMENT ON COLUMN mcp.llm_request.clipped IS 'Values of this row cut to mcp.audit_max_value_bytes: {"<column>": {"bytes": original size, "sha256": hex digest of the original}}; NULL when nothing was cut. Bodies are hashed as the exact text, jsonb values as their canonical text (mcp.audit_digest).';
COMMENT ON COLUMN mcp.message.session_id IS 'The conversation.';
COMMENT ON COLUMN mcp.message.run_id IS 'The run that stored this state of the conversation.';
COMMENT ON COLUMN mcp.message.seq IS 'Position in the conversation.';
COMMENT ON COLUMN mcp.message.role IS 'user, assistant or tool.';
COMMENT ON COLUMN mcp.message.message IS 'The typed message (role, content, tool_calls, tool_call_id), cut to mcp.audit_max_value_bytes with its structure kept (a continued session sees the cut content).';
COMMENT ON COLUMN mcp.message.created_at IS 'When it was stored.';
COMMENT ON COLUMN mcp.message.clipped IS '{"message": {"bytes": original size, "sha256": hex digest of its canonical text (mcp.audit_digest)}} when the message was cut; NULL otherwise.';

-- mcp.run.plan (issue 12) exists before the view that shows it
ALTER TABLE mcp.run ADD COLUMN plan jsonb;
COMMENT ON COLUMN mcp.run.plan IS 'Execution plan of the run (issue 12): {plan, score, forced, continued, min_score, best, entities, missing, steps}: the plan chosen (NULL: none scored min_score, the interface''s defaults were used), its score, the analysis'' entities and the steps taken (asks, prompts, pre-step tool calls with their tool_call_id, the model phase''s tools and tool_choice). NULL when the interface has no plans.';
CREATE VIEW mcp.recent_runs AS
SELECT r.run_id,
       r.session_id,
       r.started_at,
       r.finished_at,
       r.interface,
       r.provider,
       r.role_name,
       r.status,
       left(r.question, 200) AS question,
       r.iterations,
       coalesce(l.llm_requests, 0) AS llm_requests,
       coalesce(l.llm_retries, 0) AS llm_retries,
       coalesce(t.tool_calls, 0) AS tool_calls,
       coalesce(t.tool_errors, 0) AS tool_errors,
       coalesce(t.rejected_tool_calls, 0) AS rejected_tool_calls,
       r.prompt_tokens,
       r.completion_tokens,
       r.prompt_tokens + r.completion_tokens AS total_tokens,
       CASE WHEN pr.prompt_price IS NOT NULL OR pr.completion_price IS NOT NULL THEN
            round((r.prompt_tokens * coalesce(pr.prompt_price, 0)
                   + r.completion_tokens * coalesce(pr.completion_price, 0)) / 1000.0, 6)
       END AS estimated_cost,
       round(coalesce(l.llm_ms, 0)::numeric, 3) AS llm_latency_ms,
       round(coalesce(t.tool_ms, 0)::numeric, 3) AS tool_latency_ms,
       round((extract(epoch FROM r.finished_at - r.started_at) * 1000)::numeric, 3) AS wall_ms,
       round((extract(epoch FROM r.finished_at - r.started_at) * 1000
              - coalesce(l.llm_ms, 0) - coalesce(t.tool_ms, 0))::numeric, 3) AS orchestration_ms,
       r.error ->> 'kind' AS error_kind,
       r.error ->> 'message' AS error_message,
       r.plan ->> 'plan' AS plan,
       (r.plan ->> 'score')::numeric AS plan_score,
       r.plan AS plan_detail
  FROM mcp.run r
  LEFT JOIN LATERAL (
        SELECT count(*) AS llm_requests,
               sum(greatest(coalesce(q.attempts, 1) - 1, 0)) AS llm_retries,
               sum(q.latency_ms) AS llm_ms
          FROM mcp.llm_request q
         WHERE q.run_id = r.run_id) l ON true
  LEFT JOIN LATERAL (
        SELECT count(*) FILTER (WHERE c.status IN ('ok', 'error')) AS tool_calls,
               count(*) FILTER (WHERE c.status = 'error') AS tool_errors,
               count(*) FILTER (WHERE c.status NOT IN ('ok', 'error')) AS rejected_tool_calls,
               sum(c.latency_ms) AS tool_ms
          FROM mcp.tool_call c
         WHERE c.run_id = r.run_id) t ON true
  LEFT JOIN LATERAL (
        SELECT (p.options ->> 'price_per_1k_prompt')::numeric AS prompt_price,
               (p.options ->> 'price_per_1k_completion')::numeric AS completion_price
          FROM mcp.provider p
         WHERE p.name = r.provider) pr ON true
 ORDER BY r.started_at DESC;
COMMENT ON COLUMN mcp.recent_runs.plan IS 'Execution plan chosen for the run (NULL: no plan, or none scored high enough).';
COMMENT ON COLUMN mcp.recent_runs.plan_score IS 'Its score in the analysis (0 .. 1).';
COMMENT ON COLUMN mcp.recent_runs.plan_detail IS 'mcp.run.plan: entities found, the best plan, the steps taken.';
COMMENT ON VIEW mcp.recent_runs IS
  'Operator view: chat runs newest first (add LIMIT or WHERE started_at > …) with counts, tokens, estimated cost and where the wall time went. Not readable by PUBLIC, like the audit tables it reads.';
COMMENT ON COLUMN mcp.recent_runs.run_id IS 'The run (mcp.run.run_id).';
COMMENT ON COLUMN mcp.recent_runs.session_id IS 'Conversation the run belongs to.';
COMMENT ON COLUMN mcp.recent_runs.started_at IS 'Start time.';
COMMENT ON COLUMN mcp.recent_runs.finished_at IS 'End time; NULL while running.';
COMMENT ON COLUMN mcp.recent_runs.interface IS 'Interface used.';
COMMENT ON COLUMN mcp.recent_runs.provider IS 'Provider used.';
COMMENT ON COLUMN mcp.recent_runs.role_name IS 'Role that ran the chat.';
COMMENT ON COLUMN mcp.recent_runs.status IS 'running, completed, needs_input, max_iterations, budget_exceeded, loop_detected, failed, cancelled.';
COMMENT ON COLUMN mcp.recent_runs.question IS 'The user question, first 200 characters.';
COMMENT ON COLUMN mcp.recent_runs.iterations IS 'LLM round trips of the chat cycle (summaries not counted).';
COMMENT ON COLUMN mcp.recent_runs.llm_requests IS 'Rows in mcp.llm_request (chat and summary requests).';
COMMENT ON COLUMN mcp.recent_runs.llm_retries IS 'HTTP retries over all LLM requests (attempts beyond the first).';
COMMENT ON COLUMN mcp.recent_runs.tool_calls IS 'Tool calls executed (status ok or error).';
COMMENT ON COLUMN mcp.recent_runs.tool_errors IS 'Executed tool calls that raised (status error).';
COMMENT ON COLUMN mcp.recent_runs.rejected_tool_calls IS 'Tool calls answered without execution (invalid, denied, skipped).';
COMMENT ON COLUMN mcp.recent_runs.prompt_tokens IS 'Prompt tokens over all requests, as reported by the provider (or estimated).';
COMMENT ON COLUMN mcp.recent_runs.completion_tokens IS 'Completion tokens over all requests.';
COMMENT ON COLUMN mcp.recent_runs.total_tokens IS 'prompt_tokens + completion_tokens.';
COMMENT ON COLUMN mcp.recent_runs.estimated_cost IS 'Tokens priced with the provider''s CURRENT options price_per_1k_prompt / price_per_1k_completion (a missing one counts as 0); NULL when the provider has neither.';
COMMENT ON COLUMN mcp.recent_runs.llm_latency_ms IS 'Time spent in LLM requests (retries and backoff included).';
COMMENT ON COLUMN mcp.recent_runs.tool_latency_ms IS 'Time spent executing tool calls.';
COMMENT ON COLUMN mcp.recent_runs.wall_ms IS 'finished_at - started_at; NULL while running.';
COMMENT ON COLUMN mcp.recent_runs.orchestration_ms IS 'wall_ms - llm_latency_ms - tool_latency_ms: pg_mcp''s own work (prompt assembly, validation, token counting, audit rows).';
COMMENT ON COLUMN mcp.recent_runs.error_kind IS 'Kind of the normalized error (rate_limited, auth, server, network, timeout, budget_exceeded, …); NULL when none.';
COMMENT ON COLUMN mcp.recent_runs.error_message IS 'Message of the normalized error (never holds an API key).';

------------------------------------------------------------------------------------------------
-- mcp.tool_error_rates: per tool, how often it is called, fails, is refused, and how slow it is
------------------------------------------------------------------------------------------------
CREATE VIEW mcp.tool_error_rates AS
SELECT c.tool,
       count(*) AS calls,
       count(*) FILTER (WHERE c.status = 'ok') AS ok,
       count(*) FILTER (WHERE c.status = 'error') AS error,
       count(*) FILTER (WHERE c.status = 'invalid') AS invalid,
       count(*) FILTER (WHERE c.status = 'denied') AS denied,
       count(*) FILTER (WHERE c.status = 'skipped') AS skipped,
       round(count(*) FILTER (WHERE c.status = 'error')::numeric
             / nullif(count(*) FILTER (WHERE c.status IN ('ok', 'error')), 0), 4) AS error_rate,
       round(count(*) FILTER (WHERE c.status IN ('error', 'invalid', 'denied'))::numeric
             / nullif(count(*) FILTER (WHERE c.status <> 'skipped'), 0), 4) AS failure_rate,
       round((avg(c.latency_ms) FILTER (WHERE c.status IN ('ok', 'error')))::numeric, 3) AS avg_latency_ms,
       round((percentile_cont(0.95) WITHIN GROUP (ORDER BY c.latency_ms)
              FILTER (WHERE c.status IN ('ok', 'error')))::numeric, 3) AS p95_latency_ms,
       max(c.created_at) FILTER (WHERE c.status = 'error') AS last_error_at,
       max(c.created_at) AS last_call_at
  FROM mcp.tool_call c
 GROUP BY c.tool;

COMMENT ON VIEW mcp.tool_error_rates IS
  'Operator view: per tool over the whole mcp.tool_call history (chat and direct mcp.call_tool), calls by status, error rates and latency. Not readable by PUBLIC, like the audit tables it reads.';
COMMENT ON COLUMN mcp.tool_error_rates.tool IS 'Tool name as requested.';
COMMENT ON COLUMN mcp.tool_error_rates.calls IS 'All recorded calls.';
COMMENT ON COLUMN mcp.tool_error_rates.ok IS 'Calls that returned a result.';
COMMENT ON COLUMN mcp.tool_error_rates.error IS 'Calls whose function raised (detail in mcp.tool_call.error_message).';
COMMENT ON COLUMN mcp.tool_error_rates.invalid IS 'Calls refused for invalid or incomplete arguments (sent back to the model as a correction).';
COMMENT ON COLUMN mcp.tool_error_rates.denied IS 'Calls refused: tool not available to the role or interface, unknown, or made while tool_choice was none.';
COMMENT ON COLUMN mcp.tool_error_rates.skipped IS 'Calls not executed because the run stopped (iteration cap, token budget, loop, cancel).';
COMMENT ON COLUMN mcp.tool_error_rates.error_rate IS 'error / (ok + error): how often the tool itself fails when it runs; NULL when it never ran.';
COMMENT ON COLUMN mcp.tool_error_rates.failure_rate IS '(error + invalid + denied) / (calls - skipped): how often a request for the tool did not give a result.';
COMMENT ON COLUMN mcp.tool_error_rates.avg_latency_ms IS 'Mean latency of executed calls (ok, error).';
COMMENT ON COLUMN mcp.tool_error_rates.p95_latency_ms IS '95th percentile (interpolated) latency of executed calls (ok, error).';
COMMENT ON COLUMN mcp.tool_error_rates.last_error_at IS 'When the tool last raised; NULL when never.';
COMMENT ON COLUMN mcp.tool_error_rates.last_call_at IS 'When the tool was last called.';

REVOKE ALL ON mcp.recent_runs, mcp.tool_error_rates FROM PUBLIC;

CREATE FUNCTION mcp.audit_digest(value jsonb) RETURNS text
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c
AS 'MODULE_PATHNAME', 'audit_digest_jsonb_wrapper';
CREATE FUNCTION mcp.audit_digest(value text) RETURNS text
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c
AS 'MODULE_PATHNAME', 'audit_digest_text_wrapper';
COMMENT ON FUNCTION mcp.audit_digest(jsonb) IS
  'Hex SHA-256 of a jsonb value''s canonical text (object keys sorted bytewise, no whitespace): the digest an audit row''s clipped column records for a cut jsonb value, so an operator can check a payload against it.';
COMMENT ON FUNCTION mcp.audit_digest(text) IS
  'Hex SHA-256 of a text''s UTF-8 bytes (= encode(sha256(convert_to(value, ''UTF8'')), ''hex'')): the digest an audit row''s clipped column records for a cut text value.';

------------------------------------------------------------------------------------------------
-- The MCP server (issue 14): mcp.handle, output schemas, change notifications, bridge tokens
-- (the same statements as sql/mcp_server.sql)
------------------------------------------------------------------------------------------------
CREATE FUNCTION mcp.handle(request jsonb) RETURNS jsonb
VOLATILE
LANGUAGE c
AS 'MODULE_PATHNAME', 'handle_wrapper';
COMMENT ON FUNCTION mcp.handle(jsonb) IS
  'MCP JSON-RPC 2.0 over the registry: initialize, ping, tools/list, tools/call (same pipeline as mcp.call_tool), resources/list, resources/templates/list, resources/read, prompts/list, prompts/get, logging/setLevel. Tools are those of the interface in mcp.interface, run as the calling role. Returns the response object; NULL for notifications. Faults are JSON-RPC error objects, never an SQL ERROR (except query cancel and statement_timeout).';

-- Output schemas (MCP 2025-06-18+): advertised as outputSchema; mcp.handle checks a tool's
-- structuredContent against it before answering.
ALTER TABLE mcp.tool ADD COLUMN output_schema jsonb
    CONSTRAINT tool_output_schema_object
    CHECK (output_schema IS NULL OR (jsonb_typeof(output_schema) = 'object' AND output_schema ->> 'type' = 'object'));
COMMENT ON COLUMN mcp.tool.output_schema IS
  'Optional JSON Schema (type object) of the tool''s structured result. MCP clients see it as outputSchema; mcp.handle answers a result that lacks structuredContent or does not match it (checked strictly, like arguments) as a tool error.';

-- A statement-level trigger tells listeners (the bridge) which MCP list changed, so it can
-- send notifications/tools/list_changed (resources, prompts). NOTIFY is transactional: the
-- message goes out when the change commits, and never for a rolled-back change.
CREATE FUNCTION mcp.notify_registry_changed() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pg_catalog.pg_notify('mcp_registry_changed', TG_ARGV[0]);
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION mcp.notify_registry_changed() IS
  'Trigger: NOTIFY mcp_registry_changed with payload tools, resources or prompts when that part of the registry changes (the MCP bridge forwards it as notifications/<payload>/list_changed).';

CREATE TRIGGER registry_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON mcp.tool
    FOR EACH STATEMENT EXECUTE FUNCTION mcp.notify_registry_changed('tools');
CREATE TRIGGER registry_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON mcp.interface
    FOR EACH STATEMENT EXECUTE FUNCTION mcp.notify_registry_changed('tools');
CREATE TRIGGER registry_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON mcp.interface_tool
    FOR EACH STATEMENT EXECUTE FUNCTION mcp.notify_registry_changed('tools');
CREATE TRIGGER registry_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON mcp.resource
    FOR EACH STATEMENT EXECUTE FUNCTION mcp.notify_registry_changed('resources');
CREATE TRIGGER registry_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON mcp.prompt
    FOR EACH STATEMENT EXECUTE FUNCTION mcp.notify_registry_changed('prompts');

------------------------------------------------------------------------------------------------
-- Opaque bearer tokens of the HTTP bridge (the alternative to JWTs): only a SHA-256 hash is
-- stored; the bridge's authenticator looks the hash up (GRANT SELECT to it).
------------------------------------------------------------------------------------------------
CREATE TABLE mcp.bridge_token (
    token_hash  bytea PRIMARY KEY
                CONSTRAINT bridge_token_hash_sha256 CHECK (length(token_hash) = 32),
    role_name   name NOT NULL,
    description text,
    expires_at  timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now(),
    created_by  name NOT NULL DEFAULT session_user
);
COMMENT ON TABLE mcp.bridge_token IS
  'Opaque bearer tokens of pg_mcp_bridge''s HTTP transport: a request with such a token runs as role_name. Only the SHA-256 of the token is stored. Not readable by PUBLIC: grant SELECT to the bridge''s authenticator role. Create tokens with mcp.create_bridge_token().';
COMMENT ON COLUMN mcp.bridge_token.token_hash IS 'SHA-256 of the token text (the token itself is shown once, by mcp.create_bridge_token()).';
COMMENT ON COLUMN mcp.bridge_token.role_name IS 'Role the bridge switches to (SET LOCAL ROLE) for requests with this token; the authenticator must be a member of it.';
COMMENT ON COLUMN mcp.bridge_token.description IS 'Who or what the token is for.';
COMMENT ON COLUMN mcp.bridge_token.expires_at IS 'After this the token is refused; NULL = until the row is deleted (revocation = DELETE).';
COMMENT ON COLUMN mcp.bridge_token.created_at IS 'When the token was created.';
COMMENT ON COLUMN mcp.bridge_token.created_by IS 'Session user who created it.';
REVOKE ALL ON mcp.bridge_token FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('mcp.bridge_token', '');

CREATE FUNCTION mcp.create_bridge_token(role_name name, description text DEFAULT NULL,
                                        expires_at timestamptz DEFAULT NULL) RETURNS text
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    token text;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = create_bridge_token.role_name) THEN
        RAISE EXCEPTION 'role "%" does not exist', create_bridge_token.role_name USING ERRCODE = '42704';
    END IF;
    -- 244 random bits from two v4 UUIDs
    token := 'pgmcp_' || replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '');
    INSERT INTO mcp.bridge_token (token_hash, role_name, description, expires_at)
    VALUES (sha256(convert_to(token, 'UTF8')), create_bridge_token.role_name,
            create_bridge_token.description, create_bridge_token.expires_at);
    RETURN token;
END
$$;
REVOKE EXECUTE ON FUNCTION mcp.create_bridge_token(name, text, timestamptz) FROM PUBLIC;
COMMENT ON FUNCTION mcp.create_bridge_token(name, text, timestamptz) IS
  'Creates an opaque bearer token for pg_mcp_bridge''s HTTP transport and returns it (the only time it is visible: only its SHA-256 is stored). Needs INSERT on mcp.bridge_token (the owner; EXECUTE is not granted to PUBLIC).';

-- MCP completion/complete (issue 14): suggested values for prompt arguments
ALTER TABLE mcp.prompt ADD COLUMN completions jsonb CONSTRAINT prompt_completions_object
    CHECK (completions IS NULL OR jsonb_typeof(completions) = 'object');
COMMENT ON COLUMN mcp.prompt.completions IS 'Suggested values per variable for MCP completion/complete, e.g. {"region": ["Bayern", "Hessen"]}: a static list (no query runs); NULL = no suggestions.';
-- issue 10 (one tool pipeline): the engine's reason for a call it did not run is stored in
-- error_message.
COMMENT ON COLUMN mcp.tool_call.error_message IS 'Operator-only: the error message the tool raised; for a call the chat engine answered itself (status invalid, denied or skipped without SQLSTATE), why it was not run (cut to mcp.audit_max_value_bytes).';

------------------------------------------------------------------------------------------------
-- Issue 12 (execution plans, prompt analysis): the whole of sql/plans.sql
-- (kept identical to it; the update needs unaccent and pg_trgm installed first:
--  CREATE EXTENSION IF NOT EXISTS unaccent; CREATE EXTENSION IF NOT EXISTS pg_trgm;
--  an extension script cannot create other extensions, ALTER EXTENSION UPDATE refuses without them);
-- mcp.run.plan and the plan columns of mcp.recent_runs are created with the view above
------------------------------------------------------------------------------------------------
------------------------------------------------------------------------------------------------
-- Issue 12: thesaurus, prompt analysis, execution plans, prompt templates
------------------------------------------------------------------------------------------------
-- Text normalization uses unaccent and pg_trgm (contrib; pg_mcp's control file requires them,
-- CREATE EXTENSION pg_mcp CASCADE installs them). Their schema is looked up once, here, and
-- written into the functions that need it, so that the functions work with any search_path.

-- mcp.fold: the comparison form of a word: umlauts spelled out (ä -> ae, ß -> ss, as Germans
-- type them without an umlaut key), other diacritics removed (unaccent), lower case.
DO $plans$
DECLARE
    ua text := (SELECT e.extnamespace::regnamespace::text FROM pg_catalog.pg_extension e WHERE e.extname = 'unaccent');
    tg text := (SELECT e.extnamespace::regnamespace::text FROM pg_catalog.pg_extension e WHERE e.extname = 'pg_trgm');
BEGIN
    IF ua IS NULL OR tg IS NULL THEN
        RAISE EXCEPTION 'pg_mcp requires the extensions unaccent and pg_trgm'
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'CREATE EXTENSION unaccent; CREATE EXTENSION pg_trgm; (or CREATE EXTENSION pg_mcp CASCADE)';
    END IF;
    EXECUTE pg_catalog.format($f$
CREATE FUNCTION mcp.fold(word text) RETURNS text
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $b$
    SELECT pg_catalog.lower(%1$s.unaccent(%2$L::pg_catalog.regdictionary,
             pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(
             pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(word,
               'ä', 'ae'), 'ö', 'oe'), 'ü', 'ue'), 'Ä', 'Ae'), 'Ö', 'Oe'), 'Ü', 'Ue'), 'ß', 'ss')))
$b$$f$, ua, ua || '.unaccent');
    EXECUTE pg_catalog.format($f$
CREATE FUNCTION mcp.trgm_similarity(a text, b text) RETURNS real
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $b$ SELECT %1$s.similarity(a, b) $b$$f$, tg);
END
$plans$;
COMMENT ON FUNCTION mcp.trgm_similarity(text, text) IS 'pg_trgm''s similarity, schema-qualified (works with any search_path).';
COMMENT ON FUNCTION mcp.fold(text) IS
  'Comparison form of a word for prompt analysis: ä/ö/ü/ß spelled ae/oe/ue/ss, other diacritics removed (unaccent), lower case. "Öffentlicher" and "oeffentlicher" fold alike.';

CREATE FUNCTION mcp.arg_not_null(value anyelement, parameter text, fn text) RETURNS anyelement
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    IF value IS NULL THEN
        RAISE EXCEPTION 'parameter "%" of % must not be NULL', parameter, fn USING ERRCODE = 'null_value_not_allowed';
    END IF;
    RETURN value;
END
$$;
COMMENT ON FUNCTION mcp.arg_not_null(anyelement, text, text) IS
  'The value, or 22004 naming the parameter and the function when it is NULL (the issue-12 functions'' NULL rule).';

CREATE FUNCTION mcp.tokenize(input text)
RETURNS TABLE (pos integer, word text, start_at integer, end_at integer, folded text, stem text)
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE AS $$
DECLARE
    -- a word: letters/digits (ASCII and Latin-1/Extended), joined by + or & ("M+E", "H&M")
    pat constant text := '[[:alnum:]\u00C0-\u024F]+(?:[+&][[:alnum:]\u00C0-\u024F]+)*';
    p integer := 1;
    s integer;
    n integer := 0;
BEGIN
    LOOP
        s := pg_catalog.regexp_instr(input, pat, p);
        EXIT WHEN s = 0;
        word := pg_catalog.regexp_substr(input, pat, s);
        n := n + 1;
        pos := n;
        start_at := s - 1;
        end_at := s - 1 + pg_catalog.length(word);
        folded := mcp.fold(word);
        -- German Snowball stemmer; a stop word ("und", "der", "für") gets NULL (checked before
        -- folding: the stop word list spells umlauts)
        stem := CASE WHEN pg_catalog.ts_lexize('pg_catalog.german_stem'::pg_catalog.regdictionary, pg_catalog.lower(word)) = '{}'
                     THEN NULL
                     ELSE (pg_catalog.ts_lexize('pg_catalog.german_stem'::pg_catalog.regdictionary, folded))[1] END;
        RETURN NEXT;
        p := s + pg_catalog.length(word);
    END LOOP;
END
$$;
COMMENT ON FUNCTION mcp.tokenize(text) IS
  'Words of a text for prompt analysis: position, surface form, character offsets (start 0-based, end exclusive), folded form (mcp.fold) and German Snowball stem (NULL for a stop word).';

------------------------------------------------------------------------------------------------
-- Thesaurus
------------------------------------------------------------------------------------------------
CREATE TABLE mcp.thesaurus_term (
    id          text PRIMARY KEY
                CONSTRAINT thesaurus_term_id_format CHECK (id ~ '^[A-Za-z0-9_.:+-]{1,128}$'),
    kind        text NOT NULL
                CONSTRAINT thesaurus_term_kind_format CHECK (kind ~ '^[a-z][a-z0-9_]{0,63}$'),
    label       text NOT NULL
                CONSTRAINT thesaurus_term_label_not_empty CHECK (length(btrim(label)) BETWEEN 1 AND 200),
    alt_labels  text[] NOT NULL DEFAULT '{}',
    lang        text NOT NULL DEFAULT 'de'
                CONSTRAINT thesaurus_term_lang_format CHECK (lang ~ '^[a-z]{2,3}(-[A-Za-z0-9]{1,8})?$'),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE mcp.thesaurus_term IS
  'Thesaurus terms that prompt analysis (mcp.analyze) finds in questions. Load with mcp.load_thesaurus.';
COMMENT ON COLUMN mcp.thesaurus_term.id IS 'Stable identifier (e.g. by, metall, urlaub).';
COMMENT ON COLUMN mcp.thesaurus_term.kind IS 'Entity kind, e.g. tarifgebiet, fachbereich, thema; plans require kinds.';
COMMENT ON COLUMN mcp.thesaurus_term.label IS 'Preferred label (reported as label by mcp.analyze).';
COMMENT ON COLUMN mcp.thesaurus_term.alt_labels IS 'Alternative labels: synonyms, abbreviations (an upper-case one of at most 3 characters matches only upper case), derived forms (bayerisch), other spellings.';
COMMENT ON COLUMN mcp.thesaurus_term.lang IS 'Language of the labels (BCP 47 primary tag); analysis stems German.';
COMMENT ON COLUMN mcp.thesaurus_term.updated_at IS 'When the term last changed.';

CREATE TABLE mcp.thesaurus_relation (
    source      text NOT NULL REFERENCES mcp.thesaurus_term (id) ON UPDATE CASCADE ON DELETE CASCADE,
    relation    text NOT NULL
                CONSTRAINT thesaurus_relation_known CHECK (relation IN ('broader', 'related')),
    target      text NOT NULL REFERENCES mcp.thesaurus_term (id) ON UPDATE CASCADE ON DELETE CASCADE,
    PRIMARY KEY (source, relation, target),
    CONSTRAINT thesaurus_relation_not_self CHECK (source <> target)
);
CREATE INDEX thesaurus_relation_target ON mcp.thesaurus_relation (target, relation);
COMMENT ON TABLE mcp.thesaurus_relation IS
  'Relations between thesaurus terms: source broader target (target is the wider term; narrower is the inverse), source related target (symmetric in use). broader is kept acyclic by mcp.load_thesaurus.';
COMMENT ON COLUMN mcp.thesaurus_relation.source IS 'The term the relation starts at.';
COMMENT ON COLUMN mcp.thesaurus_relation.relation IS 'broader or related.';
COMMENT ON COLUMN mcp.thesaurus_relation.target IS 'The related term (for broader: the wider term).';

CREATE TABLE mcp.thesaurus_label (
    term_id     text NOT NULL REFERENCES mcp.thesaurus_term (id) ON UPDATE CASCADE ON DELETE CASCADE,
    label       text NOT NULL,
    preferred   boolean NOT NULL,
    stems       text[] NOT NULL,
    first_stem  text NOT NULL,
    folded      text NOT NULL,
    caps        boolean NOT NULL,
    words       text[] NOT NULL
);
CREATE INDEX thesaurus_label_term ON mcp.thesaurus_label (term_id);
CREATE INDEX thesaurus_label_first_stem ON mcp.thesaurus_label (first_stem);
CREATE INDEX thesaurus_label_folded ON mcp.thesaurus_label (folded);
-- (typos in the first word of a multi-word label: such labels are found by their second stem)
CREATE INDEX thesaurus_label_second_stem ON mcp.thesaurus_label ((stems[2])) WHERE cardinality(stems) >= 2;
COMMENT ON TABLE mcp.thesaurus_label IS
  'Search form of every label of every term, kept by a trigger on mcp.thesaurus_term (do not edit): what mcp.analyze looks up.';
COMMENT ON COLUMN mcp.thesaurus_label.term_id IS 'The term.';
COMMENT ON COLUMN mcp.thesaurus_label.label IS 'The label as written.';
COMMENT ON COLUMN mcp.thesaurus_label.preferred IS 'Whether it is the preferred label.';
COMMENT ON COLUMN mcp.thesaurus_label.stems IS 'German stems of its words without stop words (all folded words when it has only stop words).';
COMMENT ON COLUMN mcp.thesaurus_label.first_stem IS 'stems[1] (index key of the exact lookup).';
COMMENT ON COLUMN mcp.thesaurus_label.folded IS 'Its folded words joined by one space.';
COMMENT ON COLUMN mcp.thesaurus_label.words IS 'Folded forms of the words stems holds, in the same order (typos inside multi-word labels compare the words, not the stems).';
COMMENT ON COLUMN mcp.thesaurus_label.caps IS 'An upper-case abbreviation of at most 3 letters (BY, ÖD): matches only a word written in upper case.';

CREATE TABLE mcp.thesaurus_variant (
    variant     text NOT NULL,
    term_id     text NOT NULL REFERENCES mcp.thesaurus_term (id) ON UPDATE CASCADE ON DELETE CASCADE,
    folded      text NOT NULL
);
CREATE INDEX thesaurus_variant_variant ON mcp.thesaurus_variant (variant);
CREATE INDEX thesaurus_variant_term ON mcp.thesaurus_variant (term_id);
COMMENT ON TABLE mcp.thesaurus_variant IS
  'Typo index (symmetric deletion neighbourhood), kept by the trigger on mcp.thesaurus_term (do not edit): every one-word label of 5 .. 24 letters, folded, and each form of it with one letter deleted. A question word whose own deletion forms meet a label''s is at most one edit (insertion, deletion, substitution, transposition) or two deletions away; found with B-tree lookups, so the cost grows logarithmically with the thesaurus.';
COMMENT ON COLUMN mcp.thesaurus_variant.variant IS 'The folded label or the folded label with one letter deleted.';
COMMENT ON COLUMN mcp.thesaurus_variant.term_id IS 'The term.';
COMMENT ON COLUMN mcp.thesaurus_variant.folded IS 'The folded label the variant comes from.';

CREATE FUNCTION mcp.thesaurus_label_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM mcp.thesaurus_label WHERE term_id = NEW.id;
    INSERT INTO mcp.thesaurus_label (term_id, label, preferred, stems, first_stem, folded, caps, words)
    SELECT NEW.id, l.label, l.preferred, s.stems, s.stems[1], s.folded,
           l.label = pg_catalog.upper(l.label) AND pg_catalog.length(pg_catalog.regexp_replace(l.label, '[^[:alpha:]\u00C0-\u024F]', '', 'g')) <= 3,
           s.words
      FROM (SELECT NEW.label AS label, true AS preferred
            UNION
            SELECT a, false FROM pg_catalog.unnest(NEW.alt_labels) a WHERE a <> NEW.label) l
     CROSS JOIN LATERAL (
            SELECT COALESCE(pg_catalog.array_agg(t.stem ORDER BY t.pos) FILTER (WHERE t.stem IS NOT NULL),
                            pg_catalog.array_agg(t.folded ORDER BY t.pos)) AS stems,
                   pg_catalog.string_agg(t.folded, ' ' ORDER BY t.pos) AS folded,
                   COALESCE(pg_catalog.array_agg(t.folded ORDER BY t.pos) FILTER (WHERE t.stem IS NOT NULL),
                            pg_catalog.array_agg(t.folded ORDER BY t.pos)) AS words
              FROM mcp.tokenize(l.label) t) s
     WHERE s.stems IS NOT NULL;
    DELETE FROM mcp.thesaurus_variant WHERE term_id = NEW.id;
    INSERT INTO mcp.thesaurus_variant (variant, term_id, folded)
    SELECT DISTINCT d.x, NEW.id, l.folded
      FROM mcp.thesaurus_label l,
           LATERAL (SELECT l.folded
                    UNION
                    SELECT pg_catalog.left(l.folded, k - 1) || pg_catalog.substr(l.folded, k + 1)
                      FROM pg_catalog.generate_series(1, pg_catalog.length(l.folded)) k) d(x)
     WHERE l.term_id = NEW.id AND pg_catalog.cardinality(l.stems) = 1
       AND pg_catalog.length(l.folded) BETWEEN 5 AND 24 AND pg_catalog.strpos(l.folded, ' ') = 0;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION mcp.thesaurus_label_sync() IS
  'Trigger: rewrites the search forms (mcp.thesaurus_label, mcp.thesaurus_variant) of a term after it is inserted or updated.';
CREATE TRIGGER thesaurus_label_sync AFTER INSERT OR UPDATE ON mcp.thesaurus_term
    FOR EACH ROW EXECUTE FUNCTION mcp.thesaurus_label_sync();

CREATE TABLE mcp.entity_source (
    kind        text PRIMARY KEY
                CONSTRAINT entity_source_kind_format CHECK (kind ~ '^[a-z][a-z0-9_]{0,63}$'),
    query       text,
    table_name  text,
    column_name text,
    description text,
    enabled     boolean NOT NULL DEFAULT true,
    CONSTRAINT entity_source_one_reader CHECK ((query IS NULL) <> (table_name IS NULL AND column_name IS NULL)),
    CONSTRAINT entity_source_column_complete CHECK ((table_name IS NULL) = (column_name IS NULL))
);
COMMENT ON TABLE mcp.entity_source IS
  'Master data as entity source: every distinct value of a column (or of the first column of a reviewed query) is an entity of kind. Read live by mcp.analyze, as the calling role, read-only: no copy that goes stale. Costs one query per source and analysis: keep sources to a few thousand distinct values.';
COMMENT ON COLUMN mcp.entity_source.kind IS 'Entity kind the values are.';
COMMENT ON COLUMN mcp.entity_source.query IS 'Reviewed SELECT; its first column is the value (term_id and label of the entity).';
COMMENT ON COLUMN mcp.entity_source.table_name IS 'Table or view (optionally schema-qualified) whose column holds the values.';
COMMENT ON COLUMN mcp.entity_source.column_name IS 'The column holding the values.';
COMMENT ON COLUMN mcp.entity_source.description IS 'Free text for admins.';
COMMENT ON COLUMN mcp.entity_source.enabled IS 'A disabled source is not read.';

CREATE FUNCTION mcp.entity_source_sql(s mcp.entity_source) RETURNS text
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE WHEN s.query IS NOT NULL
                THEN 'SELECT DISTINCT v::text FROM (' || s.query || ') AS q(v) WHERE v IS NOT NULL'
                ELSE pg_catalog.format('SELECT DISTINCT %I::text FROM %s WHERE %I IS NOT NULL',
                                       s.column_name, s.table_name::regclass, s.column_name) END
$$;
COMMENT ON FUNCTION mcp.entity_source_sql(mcp.entity_source) IS
  'The query that reads the distinct values of an entity source.';

CREATE FUNCTION mcp.entity_source_check() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.table_name IS NOT NULL AND pg_catalog.to_regclass(NEW.table_name) IS NULL THEN
        RAISE EXCEPTION 'entity source %: table % does not exist', NEW.kind, NEW.table_name
            USING ERRCODE = 'check_violation';
    END IF;
    BEGIN
        EXECUTE 'SELECT 1 FROM (' || mcp.entity_source_sql(NEW) || ') AS s LIMIT 0';
    EXCEPTION WHEN OTHERS THEN
        RAISE EXCEPTION 'entity source %: its query does not run: %', NEW.kind, SQLERRM
            USING ERRCODE = 'check_violation';
    END;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION mcp.entity_source_check() IS
  'Trigger: refuses an entity source whose table, column or query does not run (23514).';
CREATE TRIGGER entity_source_check BEFORE INSERT OR UPDATE ON mcp.entity_source
    FOR EACH ROW EXECUTE FUNCTION mcp.entity_source_check();

------------------------------------------------------------------------------------------------
-- Loader
------------------------------------------------------------------------------------------------
CREATE FUNCTION mcp.load_thesaurus(doc jsonb, replace boolean DEFAULT false) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    bad text;
    n_terms integer;
    n_inserted integer := 0;
    n_updated integer := 0;
    n_deleted integer := 0;
    n_relations integer;
    n_rel_added integer;
    n_rel_removed integer;
BEGIN
    PERFORM mcp.arg_not_null(doc, 'doc', 'mcp.load_thesaurus'), mcp.arg_not_null(replace, 'replace', 'mcp.load_thesaurus');
    IF pg_catalog.jsonb_typeof(doc) <> 'object' OR pg_catalog.jsonb_typeof(doc -> 'terms') IS DISTINCT FROM 'array' THEN
        RAISE EXCEPTION 'load_thesaurus: doc must be an object {"terms": [...]}' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- shape of every term (the first bad one is named)
    SELECT pg_catalog.format('term %s: %s', t.i, CASE
             WHEN pg_catalog.jsonb_typeof(t.v) <> 'object' THEN 'not an object'
             WHEN pg_catalog.jsonb_typeof(t.v -> 'id') IS DISTINCT FROM 'string' THEN 'id must be a string'
             WHEN pg_catalog.jsonb_typeof(t.v -> 'kind') IS DISTINCT FROM 'string' THEN pg_catalog.format('%s: kind must be a string', t.v -> 'id')
             WHEN pg_catalog.jsonb_typeof(t.v -> 'label') IS DISTINCT FROM 'string' THEN pg_catalog.format('%s: label must be a string', t.v -> 'id')
             WHEN t.v ? 'lang' AND pg_catalog.jsonb_typeof(t.v -> 'lang') <> 'string' THEN pg_catalog.format('%s: lang must be a string', t.v -> 'id')
             ELSE (SELECT pg_catalog.format('%s: %s must be an array of strings', t.v -> 'id', k)
                     FROM pg_catalog.unnest(ARRAY['alt_labels', 'broader', 'narrower', 'related']) k
                    WHERE t.v ? k AND (pg_catalog.jsonb_typeof(t.v -> k) <> 'array'
                          OR EXISTS (SELECT 1 FROM pg_catalog.jsonb_array_elements(t.v -> k) e WHERE pg_catalog.jsonb_typeof(e) <> 'string'))
                    LIMIT 1) END)
      INTO bad
      FROM pg_catalog.jsonb_array_elements(doc -> 'terms') WITH ORDINALITY AS t(v, i)
     WHERE pg_catalog.jsonb_typeof(t.v) <> 'object'
        OR pg_catalog.jsonb_typeof(t.v -> 'id') IS DISTINCT FROM 'string'
        OR pg_catalog.jsonb_typeof(t.v -> 'kind') IS DISTINCT FROM 'string'
        OR pg_catalog.jsonb_typeof(t.v -> 'label') IS DISTINCT FROM 'string'
        OR (t.v ? 'lang' AND pg_catalog.jsonb_typeof(t.v -> 'lang') <> 'string')
        OR EXISTS (SELECT 1 FROM pg_catalog.unnest(ARRAY['alt_labels', 'broader', 'narrower', 'related']) k
                    WHERE t.v ? k AND (pg_catalog.jsonb_typeof(t.v -> k) <> 'array'
                          OR EXISTS (SELECT 1 FROM pg_catalog.jsonb_array_elements(t.v -> k) e WHERE pg_catalog.jsonb_typeof(e) <> 'string')))
     ORDER BY t.i LIMIT 1;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'load_thesaurus: %', bad USING ERRCODE = 'invalid_parameter_value';
    END IF;

    IF pg_catalog.to_regclass('pg_temp.pg_mcp_thesaurus_in') IS NULL THEN
        CREATE TEMP TABLE pg_mcp_thesaurus_in (id text, kind text, label text, alt_labels text[], lang text) ON COMMIT DROP;
        CREATE TEMP TABLE pg_mcp_thesaurus_rel (source text, relation text, target text) ON COMMIT DROP;
    END IF;
    TRUNCATE pg_mcp_thesaurus_in, pg_mcp_thesaurus_rel;
    INSERT INTO pg_mcp_thesaurus_in
    SELECT t.v ->> 'id', t.v ->> 'kind', t.v ->> 'label',
           ARRAY(SELECT DISTINCT a FROM pg_catalog.jsonb_array_elements_text(COALESCE(t.v -> 'alt_labels', '[]')) a ORDER BY a),
           COALESCE(t.v ->> 'lang', 'de')
      FROM pg_catalog.jsonb_array_elements(doc -> 'terms') t(v);

    SELECT pg_catalog.string_agg(pg_catalog.quote_literal(id), ', ' ORDER BY id) INTO bad
      FROM (SELECT id FROM pg_mcp_thesaurus_in GROUP BY id HAVING pg_catalog.count(*) > 1) d;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'load_thesaurus: duplicate term id(s): %', bad USING ERRCODE = 'check_violation';
    END IF;

    INSERT INTO pg_mcp_thesaurus_rel
    SELECT DISTINCT t.v ->> 'id', 'broader', b FROM pg_catalog.jsonb_array_elements(doc -> 'terms') t(v),
           pg_catalog.jsonb_array_elements_text(COALESCE(t.v -> 'broader', '[]')) b
    UNION
    SELECT n, 'broader', t.v ->> 'id' FROM pg_catalog.jsonb_array_elements(doc -> 'terms') t(v),
           pg_catalog.jsonb_array_elements_text(COALESCE(t.v -> 'narrower', '[]')) n
    UNION
    SELECT t.v ->> 'id', 'related', r FROM pg_catalog.jsonb_array_elements(doc -> 'terms') t(v),
           pg_catalog.jsonb_array_elements_text(COALESCE(t.v -> 'related', '[]')) r;

    SELECT pg_catalog.string_agg(pg_catalog.format('%s -> %s (%s)', r.source, r.target, r.relation), ', ' ORDER BY r.source, r.target)
      INTO bad
      FROM pg_mcp_thesaurus_rel r
     WHERE NOT EXISTS (SELECT 1 FROM pg_mcp_thesaurus_in i WHERE i.id = r.target)
       AND (replace OR NOT EXISTS (SELECT 1 FROM mcp.thesaurus_term t WHERE t.id = r.target))
        OR NOT EXISTS (SELECT 1 FROM pg_mcp_thesaurus_in i WHERE i.id = r.source)
       AND (replace OR NOT EXISTS (SELECT 1 FROM mcp.thesaurus_term t WHERE t.id = r.source));
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'load_thesaurus: unknown relation target(s): %', bad USING ERRCODE = 'check_violation';
    END IF;
    SELECT pg_catalog.string_agg(pg_catalog.quote_literal(source), ', ' ORDER BY source) INTO bad
      FROM pg_mcp_thesaurus_rel WHERE source = target;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'load_thesaurus: term(s) in a relation with themselves: %', bad USING ERRCODE = 'check_violation';
    END IF;

    -- cycles in broader over the graph after the load (the doc's terms take their relations
    -- from the doc; without replace, the other terms keep theirs)
    WITH RECURSIVE edge(source, target) AS (
        SELECT source, target FROM pg_mcp_thesaurus_rel WHERE relation = 'broader'
        UNION
        SELECT r.source, r.target FROM mcp.thesaurus_relation r
         WHERE NOT replace AND r.relation = 'broader'
           AND NOT EXISTS (SELECT 1 FROM pg_mcp_thesaurus_in i WHERE i.id = r.source)
    ), walk(start, node, path) AS (
        SELECT source, target, ARRAY[source, target] FROM edge
        UNION ALL
        SELECT w.start, e.target, w.path || e.target
          FROM walk w JOIN edge e ON e.source = w.node
         WHERE w.node <> w.start AND NOT e.target = ANY (w.path[2:])
    )
    SELECT pg_catalog.array_to_string(path, ' -> ') INTO bad
      FROM walk WHERE node = start ORDER BY pg_catalog.cardinality(path), path LIMIT 1;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'load_thesaurus: cycle in broader: %', bad USING ERRCODE = 'check_violation';
    END IF;

    IF replace THEN
        DELETE FROM mcp.thesaurus_term t WHERE NOT EXISTS (SELECT 1 FROM pg_mcp_thesaurus_in i WHERE i.id = t.id);
        GET DIAGNOSTICS n_deleted = ROW_COUNT;
    END IF;
    UPDATE mcp.thesaurus_term t
       SET kind = i.kind, label = i.label, alt_labels = i.alt_labels, lang = i.lang, updated_at = pg_catalog.now()
      FROM pg_mcp_thesaurus_in i
     WHERE i.id = t.id AND (t.kind, t.label, t.alt_labels, t.lang) IS DISTINCT FROM (i.kind, i.label, i.alt_labels, i.lang);
    GET DIAGNOSTICS n_updated = ROW_COUNT;
    INSERT INTO mcp.thesaurus_term (id, kind, label, alt_labels, lang)
    SELECT i.id, i.kind, i.label, i.alt_labels, i.lang FROM pg_mcp_thesaurus_in i
     WHERE NOT EXISTS (SELECT 1 FROM mcp.thesaurus_term t WHERE t.id = i.id);
    GET DIAGNOSTICS n_inserted = ROW_COUNT;

    -- relations of the doc's terms are exactly the doc's
    DELETE FROM mcp.thesaurus_relation r
     WHERE (EXISTS (SELECT 1 FROM pg_mcp_thesaurus_in i WHERE i.id = r.source)
            OR (r.relation = 'broader' AND EXISTS (SELECT 1 FROM pg_mcp_thesaurus_rel x
                                                    WHERE x.relation = 'broader' AND x.target = r.target AND x.source = r.source)))
       AND NOT EXISTS (SELECT 1 FROM pg_mcp_thesaurus_rel x
                        WHERE (x.source, x.relation, x.target) = (r.source, r.relation, r.target));
    GET DIAGNOSTICS n_rel_removed = ROW_COUNT;
    INSERT INTO mcp.thesaurus_relation (source, relation, target)
    SELECT x.source, x.relation, x.target FROM pg_mcp_thesaurus_rel x
    ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS n_rel_added = ROW_COUNT;

    SELECT pg_catalog.count(*) INTO n_terms FROM pg_mcp_thesaurus_in;
    SELECT pg_catalog.count(*) INTO n_relations FROM pg_mcp_thesaurus_rel;
    TRUNCATE pg_mcp_thesaurus_in, pg_mcp_thesaurus_rel;
    RETURN pg_catalog.jsonb_build_object(
        'terms', n_terms, 'inserted', n_inserted, 'updated', n_updated,
        'unchanged', n_terms - n_inserted - n_updated, 'deleted', n_deleted,
        'relations', n_relations, 'relations_added', n_rel_added, 'relations_removed', n_rel_removed);
END
$$;
COMMENT ON FUNCTION mcp.load_thesaurus(jsonb, boolean) IS
  'Loads a thesaurus {"terms": [{"id", "kind", "label", "alt_labels": [], "lang": "de", "broader": [], "narrower": [], "related": []}]} (other keys are ignored). Idempotent: terms are upserted, the relations of the loaded terms become exactly the document''s; replace = true also deletes terms not in the document. Returns counts {terms, inserted, updated, unchanged, deleted, relations, relations_added, relations_removed}. Refuses (nothing changed) a wrong shape with 22023, and duplicate ids, unknown relation targets and cycles in broader with 23514, naming them.';

------------------------------------------------------------------------------------------------
-- Graph over the thesaurus (built-in tools thesaurus_expand, thesaurus_neighbours, thesaurus_path)
------------------------------------------------------------------------------------------------
CREATE FUNCTION mcp.thesaurus_resolve(term text) RETURNS text
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
    SELECT id FROM (
        SELECT t.id, 0 AS rank FROM mcp.thesaurus_term t WHERE t.id = term
        UNION ALL
        SELECT l.term_id, CASE WHEN l.preferred THEN 1 ELSE 2 END FROM mcp.thesaurus_label l
         WHERE l.folded = (SELECT pg_catalog.string_agg(k.folded, ' ' ORDER BY k.pos) FROM mcp.tokenize(term) k)
    ) c ORDER BY rank, id LIMIT 1
$$;
COMMENT ON FUNCTION mcp.thesaurus_resolve(text) IS
  'The term an id or a label (preferred or alternative, case and diacritics ignored) names; NULL when none.';

CREATE VIEW mcp.thesaurus_edge AS
SELECT source, target, 'broader'::text AS relation FROM mcp.thesaurus_relation WHERE relation = 'broader'
UNION ALL
SELECT target, source, 'narrower' FROM mcp.thesaurus_relation WHERE relation = 'broader'
UNION ALL
SELECT source, target, 'related' FROM mcp.thesaurus_relation WHERE relation = 'related'
UNION ALL
SELECT target, source, 'related' FROM mcp.thesaurus_relation WHERE relation = 'related';
COMMENT ON VIEW mcp.thesaurus_edge IS 'Thesaurus relations in both directions: broader, its inverse narrower, related (symmetric).';
COMMENT ON COLUMN mcp.thesaurus_edge.source IS 'Term the edge starts at.';
COMMENT ON COLUMN mcp.thesaurus_edge.target IS 'Term the edge leads to.';
COMMENT ON COLUMN mcp.thesaurus_edge.relation IS 'broader, narrower or related, seen from source.';

CREATE FUNCTION mcp.thesaurus_term_unknown(term text) RETURNS jsonb
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT pg_catalog.jsonb_build_object('error', pg_catalog.format('no thesaurus term %s', pg_catalog.to_jsonb(term)))
$$;
COMMENT ON FUNCTION mcp.thesaurus_term_unknown(text) IS 'The graph tools'' answer for a term that names no thesaurus term.';

CREATE FUNCTION mcp.thesaurus_check_depth(depth integer) RETURNS integer
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    IF depth IS NULL OR depth < 1 OR depth > 10 THEN
        RAISE EXCEPTION 'depth must be between 1 and 10, got %', COALESCE(depth::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN depth;
END
$$;
COMMENT ON FUNCTION mcp.thesaurus_check_depth(integer) IS 'The graph tools'' depth limit: 1 .. 10, else 22023.';

CREATE FUNCTION mcp.thesaurus_expand(term text) RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    WITH RECURSIVE start AS (SELECT mcp.thesaurus_resolve(mcp.arg_not_null(term, 'term', 'mcp.thesaurus_expand')) AS id),
    down(id, depth) AS (
        SELECT id, 0 FROM start WHERE id IS NOT NULL
        UNION   -- UNION, not UNION ALL: a node reached again at the same depth is not walked twice
        SELECT r.source, d.depth + 1 FROM down d JOIN mcp.thesaurus_relation r
            ON r.target = d.id AND r.relation = 'broader'
         WHERE d.depth < 10
    ), best AS (SELECT id, pg_catalog.min(depth) AS depth FROM down GROUP BY id)
    SELECT CASE WHEN (SELECT id FROM start) IS NULL THEN mcp.thesaurus_term_unknown(term) ELSE
        (SELECT pg_catalog.jsonb_build_object(
            'id', t.id, 'kind', t.kind, 'label', t.label, 'synonyms', pg_catalog.to_jsonb(t.alt_labels),
            'narrower', COALESCE((SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                                     'id', n.id, 'label', n.label, 'synonyms', pg_catalog.to_jsonb(n.alt_labels), 'depth', b.depth)
                                     ORDER BY b.depth, n.id)
                                    FROM best b JOIN mcp.thesaurus_term n ON n.id = b.id WHERE b.depth > 0), '[]'),
            'labels', (SELECT pg_catalog.jsonb_agg(DISTINCT x) FROM best b JOIN mcp.thesaurus_term n ON n.id = b.id,
                              LATERAL pg_catalog.unnest(n.label || n.alt_labels) x))
           FROM mcp.thesaurus_term t WHERE t.id = (SELECT id FROM start)) END
$$;
COMMENT ON FUNCTION mcp.thesaurus_expand(text) IS
  'Tool thesaurus_expand: a term (id or label) with its synonyms and all narrower terms (transitively, at most 10 levels; recursive SQL, a node reached again is not walked twice), plus every label of them (for search).';

CREATE FUNCTION mcp.thesaurus_neighbours(term text, depth integer DEFAULT 1) RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    WITH RECURSIVE start AS (SELECT mcp.thesaurus_resolve(mcp.arg_not_null(term, 'term', 'mcp.thesaurus_neighbours')) AS id,
                                    mcp.thesaurus_check_depth(mcp.arg_not_null(depth, 'depth', 'mcp.thesaurus_neighbours')) AS lim),
    walk(id, depth, relation) AS (
        SELECT id, 0, NULL::text FROM start WHERE id IS NOT NULL
        UNION   -- bounded: at most (terms x depth) rows, cycles end at the depth limit
        SELECT e.target, w.depth + 1, CASE WHEN w.depth = 0 THEN e.relation ELSE w.relation END
          FROM walk w JOIN mcp.thesaurus_edge e ON e.source = w.id
         WHERE w.depth < (SELECT lim FROM start)
    ), best AS (
        SELECT DISTINCT ON (id) id, depth, relation FROM walk
         WHERE id <> (SELECT id FROM start) ORDER BY id, depth, relation
    )
    SELECT CASE WHEN (SELECT id FROM start) IS NULL THEN mcp.thesaurus_term_unknown(term) ELSE
        pg_catalog.jsonb_build_object('id', (SELECT id FROM start), 'depth', (SELECT lim FROM start),
          'neighbours', COALESCE((SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                   'id', t.id, 'kind', t.kind, 'label', t.label, 'depth', b.depth, 'via', b.relation) ORDER BY b.depth, t.id)
              FROM best b JOIN mcp.thesaurus_term t ON t.id = b.id), '[]')) END
$$;
COMMENT ON FUNCTION mcp.thesaurus_neighbours(text, integer) IS
  'Tool thesaurus_neighbours: terms within depth (1 .. 10) relations of a term, over broader, narrower and related, each once with its smallest depth and the relation of the first step. Recursive SQL; cycles end at the depth limit.';

CREATE FUNCTION mcp.thesaurus_path(source text, target text, max_depth integer DEFAULT 6) RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    WITH RECURSIVE ends AS (
        SELECT mcp.thesaurus_resolve(mcp.arg_not_null(source, 'source', 'mcp.thesaurus_path')) AS a,
               mcp.thesaurus_resolve(mcp.arg_not_null(target, 'target', 'mcp.thesaurus_path')) AS b,
               mcp.thesaurus_check_depth(mcp.arg_not_null(max_depth, 'max_depth', 'mcp.thesaurus_path')) AS lim
    ), walk(id, depth) AS (
        -- breadth first from a; UNION drops a (term, depth) pair already reached, so the work is
        -- bounded by edges x depth even in a dense or cyclic graph
        SELECT a, 0 FROM ends WHERE a IS NOT NULL AND b IS NOT NULL
        UNION
        SELECT e.target, w.depth + 1
          FROM walk w JOIN mcp.thesaurus_edge e ON e.source = w.id
         WHERE w.depth < (SELECT lim FROM ends)
    ), best AS (
        SELECT id, pg_catalog.min(depth) AS depth FROM walk GROUP BY id
    ), back(id, depth) AS (
        -- from b back to a: each step to a term one level closer to a
        SELECT best.id, best.depth FROM best, ends WHERE best.id = ends.b
        UNION ALL
        SELECT p.source, bk.depth - 1
          FROM back bk
          CROSS JOIN LATERAL (SELECT e.source FROM mcp.thesaurus_edge e
                                JOIN best ON best.id = e.source AND best.depth = bk.depth - 1
                               WHERE e.target = bk.id ORDER BY e.source LIMIT 1) p
         WHERE bk.depth > 0
    )
    SELECT CASE
        WHEN (SELECT a FROM ends) IS NULL THEN mcp.thesaurus_term_unknown(source)
        WHEN (SELECT b FROM ends) IS NULL THEN mcp.thesaurus_term_unknown(target)
        ELSE pg_catalog.jsonb_build_object(
            'source', (SELECT a FROM ends), 'target', (SELECT b FROM ends),
            'found', EXISTS (SELECT 1 FROM back),
            'length', (SELECT pg_catalog.max(depth) FROM back),
            'path', COALESCE((SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                        'id', cur.id, 'label', t.label,
                        'via', (SELECT pg_catalog.min(e.relation) FROM back prev JOIN mcp.thesaurus_edge e
                                    ON e.source = prev.id AND e.target = cur.id WHERE prev.depth = cur.depth - 1))
                        ORDER BY cur.depth)
                  FROM back cur JOIN mcp.thesaurus_term t ON t.id = cur.id), '[]')) END
$$;
COMMENT ON FUNCTION mcp.thesaurus_path(text, text, integer) IS
  'Tool thesaurus_path: the shortest chain of relations (broader, narrower, related) between two terms, at most max_depth (1 .. 10) steps; found = false when there is none within the limit. Recursive SQL, breadth first: a term is expanded once per depth, so cycles and dense graphs cost at most edges x depth.';

INSERT INTO mcp.tool (name, description, parameters, function, kind, read_only) VALUES
('thesaurus_expand',
 'Expand a term of the thesaurus (an id or a label such as "Metall- und Elektroindustrie") to its synonyms and all narrower terms. Use the returned labels to search more completely.',
 '{"type": "object", "properties": {"term": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Term id or label."}}, "required": ["term"], "additionalProperties": false}',
 'mcp.thesaurus_expand(text)', 'builtin', true),
('thesaurus_neighbours',
 'Terms related to a thesaurus term (broader, narrower, related) up to depth steps away.',
 '{"type": "object", "properties": {"term": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Term id or label."}, "depth": {"type": "integer", "minimum": 1, "maximum": 10, "description": "How many relation steps (default 1)."}}, "required": ["term"], "additionalProperties": false}',
 'mcp.thesaurus_neighbours(text,integer)', 'builtin', true),
('thesaurus_path',
 'How two thesaurus terms are connected: the shortest chain of broader/narrower/related relations between them.',
 '{"type": "object", "properties": {"source": {"type": "string", "minLength": 1, "maxLength": 200, "description": "First term (id or label)."}, "target": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Second term (id or label)."}, "max_depth": {"type": "integer", "minimum": 1, "maximum": 10, "description": "Longest chain to look for (default 6)."}}, "required": ["source", "target"], "additionalProperties": false}',
 'mcp.thesaurus_path(text,text,integer)', 'builtin', true);

------------------------------------------------------------------------------------------------
-- Prompt templates: declared variables, rendering with values as marked data
------------------------------------------------------------------------------------------------
CREATE FUNCTION mcp.template_variables(template text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT COALESCE(pg_catalog.array_agg(DISTINCT m[1]), '{}')
      FROM pg_catalog.regexp_matches(template, '\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}', 'g') m
$$;
COMMENT ON FUNCTION mcp.template_variables(text) IS 'The {{variable}} names a template uses.';

CREATE FUNCTION mcp.prompt_variables_check() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    undeclared text;
BEGIN
    SELECT pg_catalog.string_agg(v, ', ' ORDER BY v) INTO undeclared
      FROM pg_catalog.unnest(mcp.template_variables(NEW.template)) v WHERE NOT v = ANY (NEW.variables);
    IF undeclared IS NOT NULL THEN
        RAISE EXCEPTION 'prompt % version %: template uses undeclared variable(s) %', NEW.name, NEW.version, undeclared
            USING ERRCODE = 'check_violation', HINT = 'List them in mcp.prompt.variables.';
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION mcp.prompt_variables_check() IS
  'Trigger: refuses a prompt whose template uses a {{variable}} it does not declare in variables (23514).';
CREATE TRIGGER prompt_variables_check BEFORE INSERT OR UPDATE OF template, variables ON mcp.prompt
    FOR EACH ROW EXECUTE FUNCTION mcp.prompt_variables_check();

CREATE FUNCTION mcp.render_prompt(name text, vars jsonb DEFAULT '{}', version integer DEFAULT NULL) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
    p mcp.prompt;
    bad text;
    out text := '';
    rest text;
    m text[];
    s integer;
    val text;
    pat constant text := '\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}';
BEGIN
    PERFORM mcp.arg_not_null(name, 'name', 'mcp.render_prompt');
    SELECT * INTO p FROM mcp.prompt pr
     WHERE pr.name = render_prompt.name AND (CASE WHEN render_prompt.version IS NULL THEN pr.active ELSE pr.version = render_prompt.version END);
    IF NOT FOUND THEN
        RAISE EXCEPTION 'prompt % does not exist', CASE WHEN version IS NULL THEN pg_catalog.format('%s (active version)', name)
                                                        ELSE pg_catalog.format('%s version %s', name, version) END
            USING ERRCODE = 'undefined_object';
    END IF;
    vars := COALESCE(vars, '{}');
    IF pg_catalog.jsonb_typeof(vars) <> 'object' THEN
        RAISE EXCEPTION 'render_prompt: vars must be a JSON object' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT pg_catalog.string_agg(k, ', ' ORDER BY k) INTO bad FROM pg_catalog.jsonb_object_keys(vars) k WHERE NOT k = ANY (p.variables);
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'prompt % version %: undeclared variable(s) %', p.name, p.version, bad
            USING ERRCODE = 'invalid_parameter_value', HINT = pg_catalog.format('Declared: %s', p.variables);
    END IF;
    SELECT pg_catalog.string_agg(DISTINCT v, ', ' ORDER BY v) INTO bad
      FROM pg_catalog.unnest(p.variables || mcp.template_variables(p.template)) v
     WHERE NOT vars ? v OR pg_catalog.jsonb_typeof(vars -> v) = 'null';
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'prompt % version %: missing variable(s) %', p.name, p.version, bad
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- one pass over the template: a value is never scanned for placeholders again
    rest := p.template;
    LOOP
        s := pg_catalog.regexp_instr(rest, pat);
        EXIT WHEN s = 0;
        m := pg_catalog.regexp_match(rest, pat);
        val := CASE WHEN pg_catalog.jsonb_typeof(vars -> m[1]) = 'string' THEN vars ->> m[1] ELSE (vars -> m[1])::text END;
        out := out || pg_catalog.substr(rest, 1, s - 1) || mcp.template_data(m[1], val);
        rest := pg_catalog.substr(rest, s + pg_catalog.length(pg_catalog.regexp_substr(rest, pat)));
    END LOOP;
    RETURN out || rest;
END
$$;
COMMENT ON FUNCTION mcp.render_prompt(text, jsonb, integer) IS
  'Renders a prompt template (the active version, or the given one) with vars: every declared variable must be given and no other. Each value is inserted as data: <data name="var">value</data> with & < > escaped as &amp; &lt; &gt;, so a value can neither close the block nor add markup or placeholders. Errors: 42704 no such prompt, 22023 missing or undeclared variable.';

CREATE FUNCTION mcp.template_data(name text, value text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT '<data name="' || name || '">'
        || pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(COALESCE(value, ''), '&', '&amp;'), '<', '&lt;'), '>', '&gt;')
        || '</data>'
$$;
COMMENT ON FUNCTION mcp.template_data(text, text) IS
  'A value as marked data inside a rendered template: <data name="…">…</data>, & < > escaped.';

------------------------------------------------------------------------------------------------
-- Execution plans
------------------------------------------------------------------------------------------------
CREATE TABLE mcp.plan (
    name            text PRIMARY KEY
                    CONSTRAINT plan_name_format CHECK (name ~ '^[a-zA-Z0-9_.-]{1,64}$'),
    interface       text NOT NULL REFERENCES mcp.interface (name) ON UPDATE CASCADE ON DELETE CASCADE,
    description     text NOT NULL
                    CONSTRAINT plan_description_not_empty CHECK (length(btrim(description)) > 0),
    examples        text[] NOT NULL DEFAULT '{}',
    required_kinds  text[] NOT NULL DEFAULT '{}',
    optional_kinds  text[] NOT NULL DEFAULT '{}',
    priority        integer NOT NULL DEFAULT 0,
    enabled         boolean NOT NULL DEFAULT true,
    created_at      timestamptz NOT NULL DEFAULT now(),
    keywords        text[] NOT NULL DEFAULT '{}'
);
CREATE INDEX plan_interface ON mcp.plan (interface) WHERE enabled;
COMMENT ON TABLE mcp.plan IS
  'Execution plans: what kind of question a plan answers (description, examples, entity kinds) and, in mcp.plan_step, how: prompts, tools run before the model, model phases with their tools, questions back to the user. mcp.analyze ranks them.';
COMMENT ON COLUMN mcp.plan.name IS 'Plan name (options.plan of mcp.chat may name it).';
COMMENT ON COLUMN mcp.plan.interface IS 'The interface whose chats may use the plan.';
COMMENT ON COLUMN mcp.plan.description IS 'What questions the plan answers (keyword signal of the ranking).';
COMMENT ON COLUMN mcp.plan.examples IS 'Example questions (keyword signal of the ranking).';
COMMENT ON COLUMN mcp.plan.required_kinds IS 'Entity kinds the plan needs (coverage signal; missing ones are reported by mcp.analyze and can be asked for).';
COMMENT ON COLUMN mcp.plan.optional_kinds IS 'Entity kinds the plan uses when present (count half in coverage).';
COMMENT ON COLUMN mcp.plan.priority IS 'Tie-breaker between plans of equal score (higher first).';
COMMENT ON COLUMN mcp.plan.enabled IS 'A disabled plan is never chosen.';
COMMENT ON COLUMN mcp.plan.created_at IS 'When the row was created.';
COMMENT ON COLUMN mcp.plan.keywords IS 'German stems of description and examples, set by the trigger on save (the keyword signal compares the question with them).';

CREATE TABLE mcp.plan_step (
    plan        text NOT NULL REFERENCES mcp.plan (name) ON UPDATE CASCADE ON DELETE CASCADE,
    position    integer NOT NULL CONSTRAINT plan_step_position_positive CHECK (position > 0),
    kind        text NOT NULL
                CONSTRAINT plan_step_kind_known CHECK (kind IN ('prompt', 'retrieve', 'tool', 'llm', 'ask')),
    prompt      text,
    prompt_mode text NOT NULL DEFAULT 'extend'
                CONSTRAINT plan_step_prompt_mode_known CHECK (prompt_mode IN ('system', 'extend')),
    tool        text,
    arguments   jsonb NOT NULL DEFAULT '{}'
                CONSTRAINT plan_step_arguments_object CHECK (jsonb_typeof(arguments) = 'object'),
    tools       text[],
    tool_choice text
                CONSTRAINT plan_step_tool_choice_valid
                CHECK (tool_choice IS NULL OR tool_choice IN ('none', 'auto', 'required') OR tool_choice ~ '^function:[a-zA-Z0-9_-]{1,64}$'),
    ask_kind    text,
    question    text,
    PRIMARY KEY (plan, position),
    CONSTRAINT plan_step_prompt_fields CHECK ((kind = 'prompt') = (prompt IS NOT NULL)),
    CONSTRAINT plan_step_tool_fields CHECK ((kind IN ('retrieve', 'tool')) = (tool IS NOT NULL)),
    CONSTRAINT plan_step_llm_fields CHECK (kind = 'llm' OR (tools IS NULL AND tool_choice IS NULL)),
    CONSTRAINT plan_step_ask_fields CHECK ((kind = 'ask') = (ask_kind IS NOT NULL) AND (kind = 'ask' OR question IS NULL))
);
COMMENT ON TABLE mcp.plan_step IS
  'Ordered steps of a plan. prompt: add a rendered template to the system prompt; retrieve/tool: run a tool before the first model call (arguments templated from the entities) and give the model its result as a tool result; llm: the model phase (at most one per plan) with its own tool subset and tool_choice; ask: when the entity of ask_kind is missing, end with needs_input and the question, without calling the model. Checked on save (23514).';
COMMENT ON COLUMN mcp.plan_step.plan IS 'The plan.';
COMMENT ON COLUMN mcp.plan_step.position IS 'Order of the step (ascending).';
COMMENT ON COLUMN mcp.plan_step.kind IS 'prompt | retrieve | tool | llm | ask.';
COMMENT ON COLUMN mcp.plan_step.prompt IS 'prompt: name of the mcp.prompt template (its active version); its variables must be question or kinds of the plan.';
COMMENT ON COLUMN mcp.plan_step.prompt_mode IS 'prompt: system = replaces the interface''s system prompt, extend = appended to it (extended system prompt).';
COMMENT ON COLUMN mcp.plan_step.tool IS 'retrieve/tool: the tool to run; it must be a tool of the plan''s interface.';
COMMENT ON COLUMN mcp.plan_step.arguments IS 'retrieve/tool: the tool''s arguments; a string value "{{kind}}" becomes the label of the entity of that kind found in the question ("{{question}}" the question).';
COMMENT ON COLUMN mcp.plan_step.tools IS 'llm: the tools offered in this phase (NULL = all of the interface''s); each must be a tool of the interface.';
COMMENT ON COLUMN mcp.plan_step.tool_choice IS 'llm: none | auto | required | function:<tool> for this phase (NULL = the interface''s).';
COMMENT ON COLUMN mcp.plan_step.ask_kind IS 'ask: the entity kind that must be present; it must be one of the plan''s kinds.';
COMMENT ON COLUMN mcp.plan_step.question IS 'ask: the question for the user (default: Bitte nennen Sie: <kind>.).';

CREATE FUNCTION mcp.check_plan_step(s mcp.plan_step, p mcp.plan) RETURNS void
LANGUAGE plpgsql STABLE STRICT AS $$
DECLARE
    allowed text[];
    bad text;
    pr mcp.prompt;
    fn text;
    where_ text := pg_catalog.format('plan %s step %s (%s)', s.plan, s.position, s.kind);
BEGIN
    allowed := ARRAY['question'] || p.required_kinds || p.optional_kinds;
    IF s.kind = 'prompt' THEN
        SELECT * INTO pr FROM mcp.prompt WHERE name = s.prompt AND active;
        IF NOT FOUND THEN
            RAISE EXCEPTION '%: prompt % has no active version', where_, s.prompt USING ERRCODE = 'check_violation';
        END IF;
        SELECT pg_catalog.string_agg(v, ', ' ORDER BY v) INTO bad
          FROM pg_catalog.unnest(pr.variables) v WHERE NOT v = ANY (allowed);
        IF bad IS NOT NULL THEN
            RAISE EXCEPTION '%: template variable(s) % of prompt % are neither question nor kinds of the plan (%)',
                where_, bad, s.prompt, pg_catalog.array_to_string(allowed, ', ') USING ERRCODE = 'check_violation';
        END IF;
    ELSIF s.kind IN ('retrieve', 'tool') THEN
        IF NOT EXISTS (SELECT 1 FROM mcp.interface_tool it JOIN mcp.tool t ON t.name = it.tool
                        WHERE it.interface = p.interface AND it.tool = s.tool) THEN
            RAISE EXCEPTION '%: tool % is not a tool of interface %', where_, s.tool, p.interface USING ERRCODE = 'check_violation';
        END IF;
        SELECT pg_catalog.string_agg(DISTINCT v, ', ') INTO bad
          FROM pg_catalog.jsonb_each(s.arguments) a,
               LATERAL pg_catalog.unnest(CASE WHEN pg_catalog.jsonb_typeof(a.value) = 'string'
                                              THEN mcp.template_variables(a.value #>> '{}') ELSE '{}' END) v
         WHERE NOT v = ANY (allowed);
        IF bad IS NOT NULL THEN
            RAISE EXCEPTION '%: argument template variable(s) % are neither question nor kinds of the plan (%)',
                where_, bad, pg_catalog.array_to_string(allowed, ', ') USING ERRCODE = 'check_violation';
        END IF;
    ELSIF s.kind = 'llm' THEN
        SELECT pg_catalog.string_agg(t, ', ' ORDER BY t) INTO bad FROM pg_catalog.unnest(s.tools) t
         WHERE NOT EXISTS (SELECT 1 FROM mcp.interface_tool it WHERE it.interface = p.interface AND it.tool = t);
        IF bad IS NOT NULL THEN
            RAISE EXCEPTION '%: tool(s) % are not tools of interface %', where_, bad, p.interface USING ERRCODE = 'check_violation';
        END IF;
        IF s.tool_choice LIKE 'function:%' THEN
            fn := pg_catalog.substr(s.tool_choice, 10);
            IF NOT (fn = ANY (COALESCE(s.tools, ARRAY(SELECT it.tool FROM mcp.interface_tool it WHERE it.interface = p.interface)))) THEN
                RAISE EXCEPTION '%: tool_choice names % which is not offered in this step', where_, fn USING ERRCODE = 'check_violation';
            END IF;
        END IF;
        IF EXISTS (SELECT 1 FROM mcp.plan_step o WHERE o.plan = s.plan AND o.kind = 'llm' AND o.position <> s.position) THEN
            RAISE EXCEPTION '%: the plan already has an llm step (one model phase per plan)', where_ USING ERRCODE = 'check_violation';
        END IF;
    ELSIF s.kind = 'ask' THEN
        IF NOT s.ask_kind = ANY (p.required_kinds || p.optional_kinds) THEN
            RAISE EXCEPTION '%: ask_kind % is not a kind of the plan (required %, optional %)',
                where_, s.ask_kind, p.required_kinds, p.optional_kinds USING ERRCODE = 'check_violation';
        END IF;
    END IF;
END
$$;
COMMENT ON FUNCTION mcp.check_plan_step(mcp.plan_step, mcp.plan) IS
  'Checks one plan step against its plan row as the triggers do: prompt exists with variables the plan supplies; tools are tools of the plan''s interface; tool_choice names an offered tool; argument templates use question or the plan''s kinds; ask names a kind of the plan. Raises 23514 naming the problem.';

CREATE FUNCTION mcp.plan_step_check() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- (not in a restore, check_function_bodies = off: the rows it checks against may come later)
    IF pg_catalog.current_setting('check_function_bodies')::boolean THEN
        PERFORM mcp.check_plan_step(NEW, p) FROM mcp.plan p WHERE p.name = NEW.plan;
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION mcp.plan_step_check() IS 'Trigger: checks a plan step when it is saved (mcp.check_plan_step); not in a restore (check_function_bodies = off).';
CREATE TRIGGER plan_step_check BEFORE INSERT OR UPDATE ON mcp.plan_step
    FOR EACH ROW EXECUTE FUNCTION mcp.plan_step_check();

CREATE FUNCTION mcp.plan_check() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    s mcp.plan_step;
    bad text;
BEGIN
    SELECT pg_catalog.string_agg(k, ', ' ORDER BY k) INTO bad
      FROM pg_catalog.unnest(NEW.required_kinds || NEW.optional_kinds) k WHERE k !~ '^[a-z][a-z0-9_]{0,63}$';
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'plan %: invalid entity kind(s) %', NEW.name, bad USING ERRCODE = 'check_violation';
    END IF;
    NEW.keywords := ARRAY(SELECT DISTINCT k.stem
                            FROM mcp.tokenize(NEW.description || ' ' || pg_catalog.array_to_string(NEW.examples, ' ')) k
                           WHERE k.stem IS NOT NULL ORDER BY 1);
    IF TG_OP = 'UPDATE' AND pg_catalog.current_setting('check_function_bodies')::boolean THEN
        FOR s IN SELECT * FROM mcp.plan_step WHERE plan = OLD.name LOOP
            s.plan := NEW.name;
            PERFORM mcp.check_plan_step(s, NEW);
        END LOOP;
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION mcp.plan_check() IS 'Trigger: checks a plan''s kinds, sets its keywords and, on update, re-checks its steps against the changed plan (23514).';

CREATE TRIGGER plan_check BEFORE INSERT OR UPDATE ON mcp.plan
    FOR EACH ROW EXECUTE FUNCTION mcp.plan_check();

------------------------------------------------------------------------------------------------
-- Prompt analysis
------------------------------------------------------------------------------------------------
-- Typos inside multi-word labels, for mcp.analyze (a function of its own: its plan is cached
-- apart from analyze's big matching query, which would otherwise be planned with it every call).
CREATE FUNCTION mcp.multi_word_typos(q_stems text[], q_folds text[])
RETURNS TABLE (term_id text, first integer, last integer, score numeric, how integer)
-- (ROWS 2: the planner's default of 1000 rows made analyze hash-join all terms)
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE ROWS 2 AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH multi AS (
        -- multi-word labels that may hold a typo: found by their first stem, or by their
        -- second stem for a typo in the first word (B-tree each; = ANY keeps the cached plan an
        -- index scan whatever the number of words), at every place of the question they fit
        SELECT l.term_id, l.words, l.stems, p.i AS first
          FROM mcp.thesaurus_label l
         CROSS JOIN LATERAL (SELECT s.i FROM pg_catalog.generate_subscripts(q_stems, 1) s(i)
                              WHERE q_stems[s.i] = l.first_stem) p
         WHERE l.first_stem = ANY (q_stems) AND pg_catalog.cardinality(l.stems) >= 2 AND NOT l.caps
        UNION
        SELECT l.term_id, l.words, l.stems, p.i - 1
          FROM mcp.thesaurus_label l
         CROSS JOIN LATERAL (SELECT s.i FROM pg_catalog.generate_subscripts(q_stems, 1) s(i)
                              WHERE q_stems[s.i] = l.stems[2] AND s.i > 1) p
         WHERE l.stems[2] = ANY (q_stems) AND pg_catalog.cardinality(l.stems) >= 2 AND NOT l.caps
    ), fuzzy_multi AS (
        -- a typo in one word of a multi-word label ("Schleswig-Holstien", "Metall- und
        -- Elektorindustrie"), every other word exact: the one differing word has >= 5
        -- letters and is within one edit of the label's (deletion neighbourhoods meet);
        -- score 0.6 + 0.3 x trigram similarity of the two words
        SELECT m.term_id, m.first, m.first + pg_catalog.cardinality(m.stems) - 1 AS last,
               pg_catalog.round((0.6 + 0.3 * mcp.trgm_similarity(d.lw, d.qw))::numeric, 3) AS score, 4 AS how
          FROM multi m
         CROSS JOIN LATERAL (
                SELECT pg_catalog.array_agg(k) AS ks FROM pg_catalog.generate_series(1, pg_catalog.cardinality(m.stems)) k
                 WHERE m.stems[k] IS DISTINCT FROM q_stems[m.first + k - 1]) x
         CROSS JOIN LATERAL (SELECT m.words[x.ks[1]] AS lw, q_folds[m.first + x.ks[1] - 1] AS qw) d
         WHERE m.first >= 1 AND m.first + pg_catalog.cardinality(m.stems) - 1 <= pg_catalog.cardinality(q_stems)
           AND pg_catalog.cardinality(x.ks) = 1
           AND pg_catalog.length(d.lw) >= 5 AND pg_catalog.length(d.qw) >= 5
           AND EXISTS (SELECT 1
                         FROM (SELECT d.lw UNION SELECT pg_catalog.left(d.lw, k - 1) || pg_catalog.substr(d.lw, k + 1)
                                 FROM pg_catalog.generate_series(1, pg_catalog.length(d.lw)) k) a(dl)
                         JOIN (SELECT d.qw UNION SELECT pg_catalog.left(d.qw, k - 1) || pg_catalog.substr(d.qw, k + 1)
                                 FROM pg_catalog.generate_series(1, pg_catalog.length(d.qw)) k) b(dq) ON a.dl = b.dq)
    )
    SELECT * FROM fuzzy_multi;
END
$$;
COMMENT ON FUNCTION mcp.multi_word_typos(text[], text[]) IS
  'For mcp.analyze: multi-word thesaurus labels found in the question''s words (q_stems and q_folds: stems and folded forms without stop words, in order) with one typo: every word of the label matches but one, which has >= 5 letters and is within one edit of the label''s word; labels found by their first stem or, for a typo in the first word, by their second stem. Rows: term, first and last word (1-based), score 0.6 + 0.3 x trigram similarity of the two words, how = 4.';

CREATE FUNCTION mcp.analyze(question text, interface text DEFAULT 'chatbot') RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
    v_iface constant text := $2;
    v_stem text[];     -- stems of the question's words without stop words
    v_start integer[]; -- their start offsets
    v_end integer[];   -- their end offsets
    v_fold text[];     -- their folded forms
    v_upper boolean[]; -- written in upper case
    v_n integer;
    v_used boolean[];
    v_cand record;
    v_src mcp.entity_source;
    v_master jsonb := '[]';
    v_m jsonb;
    v_ents jsonb := '[]';
    v_seen text[] := '{}';
    v_kinds text[] := '{}';
    v_qstems text[];
    v_plans jsonb;
    v_missing jsonb := '[]';
    v_model text;      -- the interface's embedding model
    v_sim jsonb;       -- {plan: {similarity, example}} when the embedding signal is used
    v_sim_error text;  -- why it is not, when the model failed
BEGIN
    PERFORM mcp.arg_not_null(question, 'question', 'mcp.analyze'), mcp.arg_not_null(v_iface, 'interface', 'mcp.analyze');
    IF pg_catalog.length(question) > 4000 THEN
        RAISE EXCEPTION 'mcp.analyze: question longer than 4000 characters (%)', pg_catalog.length(question)
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT pg_catalog.array_agg(t.stem ORDER BY t.pos), pg_catalog.array_agg(t.start_at ORDER BY t.pos),
           pg_catalog.array_agg(t.end_at ORDER BY t.pos), pg_catalog.array_agg(t.folded ORDER BY t.pos),
           pg_catalog.array_agg(t.word = pg_catalog.upper(t.word) AND t.word ~ '[[:alpha:]\u00C0-\u024F]' ORDER BY t.pos)
      INTO v_stem, v_start, v_end, v_fold, v_upper
      FROM mcp.tokenize(question) t WHERE t.stem IS NOT NULL;
    v_n := COALESCE(pg_catalog.cardinality(v_stem), 0);
    v_used := pg_catalog.array_fill(false, ARRAY[GREATEST(v_n, 1)]);

    IF v_n > 0 THEN
        -- master data, read live as the calling role (read-only: this function is STABLE)
        FOR v_src IN SELECT * FROM mcp.entity_source WHERE enabled ORDER BY kind LOOP
            EXECUTE pg_catalog.format($q$
                SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                         'term_id', v.v, 'kind', %L, 'label', v.v, 'first', w.i,
                         'last', w.i + pg_catalog.cardinality(s.stems) - 1))
                  FROM (%s) AS v(v)
                 CROSS JOIN LATERAL (SELECT pg_catalog.array_agg(k.stem ORDER BY k.pos) FILTER (WHERE k.stem IS NOT NULL) AS stems
                                       FROM mcp.tokenize(v.v) k) s
                  JOIN pg_catalog.unnest($1) WITH ORDINALITY w(stem, i) ON w.stem = s.stems[1]
                 WHERE s.stems = $1[w.i : w.i + pg_catalog.cardinality(s.stems) - 1]$q$,
                v_src.kind, mcp.entity_source_sql(v_src)) INTO v_m USING v_stem;
            v_master := v_master || COALESCE(v_m, '[]');
        END LOOP;

        FOR v_cand IN
            WITH w AS (
                SELECT * FROM unnest(v_stem, v_fold, v_upper) WITH ORDINALITY AS w(stem, f, caps, i)
            ), exact AS (
                -- every stem of a label, in order, on consecutive words (stop words skipped)
                SELECT l.term_id, w.i AS first, w.i + pg_catalog.cardinality(l.stems) - 1 AS last, 1.0 AS score, 1 AS how
                  FROM w JOIN mcp.thesaurus_label l ON l.first_stem = w.stem
                 WHERE l.stems = v_stem[w.i : w.i + pg_catalog.cardinality(l.stems) - 1]
                   AND (NOT l.caps OR w.caps)
            ), fuzzy_multi AS (
                -- typos inside multi-word labels (mcp.multi_word_typos)
                SELECT * FROM mcp.multi_word_typos(v_stem, v_fold)
            ), compound AS (
                -- a word that begins with a one-word label of >= 5 letters (Metallindustrie -> Metall)
                SELECT c.term_id, w.i AS first, w.i AS last, 0.8 AS score, 2 AS how
                  FROM w CROSS JOIN LATERAL (
                        SELECT l.term_id FROM mcp.thesaurus_label l
                         WHERE l.first_stem = ANY (ARRAY(SELECT pg_catalog.left(w.f, k)
                                                           FROM pg_catalog.generate_series(5, pg_catalog.length(w.f) - 3) k))
                           AND pg_catalog.cardinality(l.stems) = 1
                         ORDER BY pg_catalog.length(l.first_stem) DESC, l.preferred DESC, l.term_id LIMIT 1) c
                 WHERE pg_catalog.length(w.f) >= 8
            ), fuzzy AS (
                -- typos: a word of >= 5 letters that matched nothing exactly, within one edit of a
                -- one-word label with the same first letter, or of any first letter from 8 letters
                -- on (deletion neighbourhood, B-tree); score 0.6 + 0.3 x trigram similarity
                SELECT v.term_id, w.i AS first, w.i AS last,
                       pg_catalog.round((0.6 + 0.3 * v.sim)::numeric, 3) AS score, 3 AS how
                  FROM w CROSS JOIN LATERAL (
                        SELECT t.term_id, mcp.trgm_similarity(t.folded, w.f) AS sim FROM mcp.thesaurus_variant t
                         WHERE t.variant = ANY (ARRAY(SELECT w.f
                                                      UNION ALL
                                                      SELECT pg_catalog.left(w.f, k - 1) || pg_catalog.substr(w.f, k + 1)
                                                        FROM pg_catalog.generate_series(1, pg_catalog.length(w.f)) k))
                           AND (pg_catalog.left(t.folded, 1) = pg_catalog.left(w.f, 1) OR pg_catalog.length(w.f) >= 8)
                         ORDER BY 2 DESC, 1 LIMIT 1) v
                 WHERE pg_catalog.length(w.f) BETWEEN 5 AND 25
                   AND NOT EXISTS (SELECT 1 FROM exact x WHERE w.i BETWEEN x.first AND x.last)
            ), cand AS (
                SELECT c.term_id, t.kind, t.label, c.first, c.last, c.score, c.how
                  FROM (SELECT * FROM exact UNION ALL SELECT * FROM fuzzy_multi UNION ALL SELECT * FROM compound
                        UNION ALL SELECT * FROM fuzzy) c
                  JOIN mcp.thesaurus_term t ON t.id = c.term_id
                UNION ALL
                SELECT m.term_id, m.kind, m.label, m.first, m.last, 1.0, 0
                  FROM pg_catalog.jsonb_to_recordset(v_master) AS m(term_id text, kind text, label text, first integer, last integer)
            )
            -- longest match wins, then the best score; matches never overlap
            SELECT * FROM cand
             ORDER BY last - first DESC, score DESC, v_end[last] - v_start[first] DESC, first, how, term_id
        LOOP
            CONTINUE WHEN true = ANY (v_used[v_cand.first : v_cand.last]);
            CONTINUE WHEN v_cand.term_id = ANY (v_seen);
            FOR k IN v_cand.first .. v_cand.last LOOP v_used[k] := true; END LOOP;
            v_seen := v_seen || v_cand.term_id;
            v_kinds := v_kinds || v_cand.kind;
            v_ents := v_ents || pg_catalog.jsonb_build_object(
                'kind', v_cand.kind, 'term_id', v_cand.term_id, 'label', v_cand.label,
                'text', pg_catalog.substr(question, v_start[v_cand.first] + 1, v_end[v_cand.last] - v_start[v_cand.first]),
                'start', v_start[v_cand.first], 'end', v_end[v_cand.last], 'score', v_cand.score);
        END LOOP;
        SELECT pg_catalog.jsonb_agg(e ORDER BY (e ->> 'start')::integer) INTO v_ents FROM pg_catalog.jsonb_array_elements(v_ents) e;
        v_ents := COALESCE(v_ents, '[]');
    END IF;

    -- embedding signal: with the interface's model, the question's cosine similarity to each
    -- plan's closest example question (stored vectors, see mcp.plan_example_similarity). When
    -- the model fails (server down, files changed) the plans are ranked without it and why
    -- says so (embedding_error).
    SELECT i.embedding_model INTO v_model FROM mcp.interface i WHERE i.name = v_iface;
    IF v_model IS NOT NULL AND EXISTS (SELECT 1 FROM mcp.plan pl WHERE pl.interface = v_iface AND pl.enabled) THEN
        BEGIN
            SELECT COALESCE(pg_catalog.jsonb_object_agg(x.plan, pg_catalog.jsonb_build_object(
                       'similarity', pg_catalog.round(x.similarity::numeric, 3), 'example', x.example)), '{}')
              INTO v_sim
              FROM mcp.plan_example_similarity(v_iface, ((mcp.embed(ARRAY[question], v_model))[1])::text) x;
        EXCEPTION WHEN OTHERS THEN
            v_sim := NULL;
            v_sim_error := pg_catalog.left(SQLERRM, 300);
        END;
    END IF;

    -- plans: coverage of their kinds, keyword overlap with description and examples
    v_qstems := ARRAY(SELECT DISTINCT x FROM pg_catalog.unnest(v_stem) x);
    WITH p AS (
        SELECT pl.name, pl.priority, pl.required_kinds AS req, pl.optional_kinds AS opt, pl.keywords AS pstems
          FROM mcp.plan pl
         WHERE pl.interface = v_iface AND pl.enabled
    ), s AS (
        SELECT p.name, p.priority,
               -- required kinds count 1 each, the optional ones together 0.5 (any one found); a
               -- plan with only optional kinds covers at most 0.5 (its entities prove little)
               CASE WHEN pg_catalog.cardinality(p.req) + pg_catalog.cardinality(p.opt) = 0 THEN 0::numeric
                    WHEN pg_catalog.cardinality(p.req) = 0 THEN CASE WHEN p.opt && v_kinds THEN 0.5 ELSE 0 END
                    ELSE pg_catalog.round(((SELECT pg_catalog.count(*) FROM pg_catalog.unnest(p.req) k WHERE k = ANY (v_kinds))
                           + CASE WHEN p.opt && v_kinds THEN 0.5 ELSE 0 END)::numeric
                         / (pg_catalog.cardinality(p.req) + CASE WHEN pg_catalog.cardinality(p.opt) > 0 THEN 0.5 ELSE 0 END), 3) END AS coverage,
               CASE WHEN pg_catalog.cardinality(v_qstems) = 0 THEN 0::numeric
                    ELSE pg_catalog.round((SELECT pg_catalog.count(*) FROM pg_catalog.unnest(v_qstems) q WHERE q = ANY (p.pstems))::numeric
                         / pg_catalog.cardinality(v_qstems), 3) END AS keyword,
               ARRAY(SELECT k FROM pg_catalog.unnest(p.req) k WHERE NOT k = ANY (v_kinds)) AS miss,
               COALESCE((v_sim -> p.name ->> 'similarity')::numeric, 0) AS embedding,
               v_sim -> p.name -> 'example' AS example
          FROM p
    ), f AS (
        -- without the embedding signal 0.6 x coverage + 0.4 x keyword; with it
        -- 0.5 x coverage + 0.25 x keyword + 0.25 x embedding
        SELECT s.*, pg_catalog.round(r.raw, 3) AS score, r.raw
          FROM s CROSS JOIN LATERAL (
                SELECT CASE WHEN v_sim IS NULL THEN 0.6 * s.coverage + 0.4 * s.keyword
                            ELSE 0.5 * s.coverage + 0.25 * s.keyword + 0.25 * s.embedding END AS raw) r
    )
    SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
               'name', f.name, 'score', f.score,
               'why', pg_catalog.jsonb_build_object('coverage', f.coverage, 'keyword', f.keyword,
                                                    'embedding', CASE WHEN v_sim IS NOT NULL THEN f.embedding END,
                                                    'missing', pg_catalog.to_jsonb(f.miss))
                      || CASE WHEN v_sim IS NOT NULL THEN pg_catalog.jsonb_build_object('example', f.example)
                              WHEN v_sim_error IS NOT NULL THEN pg_catalog.jsonb_build_object('embedding_error', v_sim_error)
                              ELSE '{}' END)
               ORDER BY f.raw DESC, f.priority DESC, f.name)
      INTO v_plans FROM f WHERE f.coverage > 0 OR f.keyword > 0 OR f.score > 0;
    v_plans := COALESCE(v_plans, '[]');
    IF pg_catalog.jsonb_array_length(v_plans) > 0 THEN
        v_missing := v_plans -> 0 -> 'why' -> 'missing';
    END IF;
    RETURN pg_catalog.jsonb_build_object('entities', v_ents, 'plans', v_plans, 'missing', v_missing)
        || CASE WHEN v_sim_error IS NULL THEN '{}' ELSE pg_catalog.jsonb_build_object('embedding_error', v_sim_error) END;
END
$$;
COMMENT ON FUNCTION mcp.analyze(text, text) IS
  'Prompt analysis: {entities: [{kind, term_id, label, text, start, end, score}], plans: [{name, score, why}], missing: [kind]}. Entities come from the thesaurus (German stems of the folded words: inflection, case, umlauts spelled out, multi-word labels and abbreviations; compounds beginning with a label, score 0.8; typos within one edit of a one-word label with the same first letter (any first letter from 8 letters on), found in mcp.thesaurus_variant, score 0.6 + 0.3 x pg_trgm similarity; one typo in one word of >= 5 letters of a multi-word label whose other words match, the same score from the two words) and from mcp.entity_source (read live); longest match wins, matches do not overlap, each term once; offsets are characters, start 0-based, end exclusive. Plans of the interface are ranked by 0.6 x coverage of their kinds (each required kind 1, any optional kind 0.5; at most 0.5 for a plan without required kinds) + 0.4 x share of the question''s words found in their description and examples; when the interface has an embedding model, by 0.5 x coverage + 0.25 x keyword + 0.25 x embedding, the highest cosine similarity of the question to the plan''s example questions (vectors stored in mcp.plan_example_embedding); why shows the signals (embedding null without a model; with it also example, the closest example question; when the model fails, the ranking without it and embedding_error, also at the top level) and the missing required kinds; plans scoring 0 are left out; missing is the best plan''s.';

------------------------------------------------------------------------------------------------
-- Privileges and pg_dump
------------------------------------------------------------------------------------------------
GRANT SELECT ON mcp.thesaurus_term, mcp.thesaurus_relation, mcp.thesaurus_label, mcp.thesaurus_variant, mcp.thesaurus_edge,
                mcp.plan, mcp.plan_step, mcp.entity_source TO PUBLIC;
REVOKE EXECUTE ON FUNCTION mcp.thesaurus_label_sync(), mcp.entity_source_check(), mcp.plan_step_check(), mcp.plan_check(),
                           mcp.prompt_variables_check() FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('mcp.thesaurus_term', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.thesaurus_relation', '');
-- (mcp.thesaurus_label and mcp.thesaurus_variant are not dumped: restoring mcp.thesaurus_term
-- rebuilds them through its trigger)
SELECT pg_catalog.pg_extension_config_dump('mcp.entity_source', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.plan', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.plan_step', '');

-- Issue 11 (run deadline): a column of mcp.interface, added here so that the column order
-- equals the fresh install's (bootstrap.sql's CREATE TABLE, then retrieval.sql's ALTER TABLE).
ALTER TABLE mcp.interface ADD COLUMN deadline_ms integer
    CONSTRAINT interface_deadline_ms_positive CHECK (deadline_ms IS NULL OR deadline_ms > 0);
COMMENT ON COLUMN mcp.interface.deadline_ms IS 'Time budget of a chat run in milliseconds, every LLM request and retry included (status deadline_exceeded); mcp.chat''s option deadline_ms may lower it. NULL = no budget beyond the provider timeout and retries.';

------------------------------------------------------------------------------------------------
-- Issue 13: retrieval (embedding models, collections, documents, chunks, search, the
-- context_retrieve gate). The section below equals sql/retrieval.sql, preceded by the C
-- functions it needs.
------------------------------------------------------------------------------------------------
CREATE FUNCTION mcp.chunk_text(body text, max_tokens integer DEFAULT 512, overlap integer DEFAULT 64,
                               format text DEFAULT 'text')
RETURNS TABLE ("position" integer, text text, token_count integer)
IMMUTABLE PARALLEL SAFE
LANGUAGE c
AS 'MODULE_PATHNAME', 'chunk_text_wrapper';
CREATE FUNCTION mcp.embed_literals(texts text[], model text) RETURNS text[]
STRICT VOLATILE
LANGUAGE c
AS 'MODULE_PATHNAME', 'embed_literals_wrapper';
CREATE FUNCTION mcp.local_model_fingerprint(path text) RETURNS text
STRICT VOLATILE
LANGUAGE c
AS 'MODULE_PATHNAME', 'local_model_fingerprint_wrapper';
CREATE FUNCTION mcp.ingest(collection text, uri text, title text, body text,
                           metadata jsonb DEFAULT '{}', mime_type text DEFAULT 'text/plain') RETURNS jsonb
VOLATILE
LANGUAGE c
AS 'MODULE_PATHNAME', 'ingest_wrapper';
------------------------------------------------------------------------------------------------
-- Retrieval (issue 13): embedding models, collections, documents, chunks, search, the RAG gate.
-- Objects added here (for the 0.1.0 -> 0.2.0 upgrade script): tables mcp.embedding_model,
-- mcp.collection, mcp.document, mcp.chunk; columns mcp.interface.embedding_model,
-- mcp.interface.audit_retrieval_query, mcp.tool.collection; tool kinds vector_search,
-- text_search, hybrid_search; functions mcp.search_by_vector, mcp.search, mcp.embed,
-- mcp.register_search_tool and the triggers below; the built-in tool context_retrieve.
--
-- Vectors of different models or dimensions are never compared: every chunk carries its
-- collection's id, a collection has exactly one model (its fingerprint and dimension are fixed
-- when the collection is created), and every search is restricted to one collection and casts
-- to that collection's dimension. pgvector's HNSW index needs a fixed dimension, while
-- mcp.chunk.embedding is an untyped vector column (collections of any dimension share the
-- table): each collection gets its own partial expression index
--   CREATE INDEX chunk_hnsw_<id> ON mcp.chunk USING hnsw ((embedding::vector(<dim>)) vector_cosine_ops)
--     WITH (m = <hnsw_m>, ef_construction = <hnsw_ef_construction>) WHERE collection_id = <id>
-- created when the collection is created, built again when its build options change, and
-- dropped with it; searches use exactly that expression and predicate, so the planner picks
-- the collection's index, and run with the collection's hnsw_ef_search.
------------------------------------------------------------------------------------------------

CREATE TABLE mcp.embedding_model (
    name        text PRIMARY KEY
                CONSTRAINT embedding_model_name_format CHECK (name ~ '^[a-zA-Z0-9_.:-]{1,64}$'),
    kind        text NOT NULL
                CONSTRAINT embedding_model_kind_known CHECK (kind IN ('local', 'openai')),
    dimension   integer NOT NULL
                CONSTRAINT embedding_model_dimension_range CHECK (dimension BETWEEN 1 AND 2000),
    fingerprint text NOT NULL
                CONSTRAINT embedding_model_fingerprint_not_empty CHECK (length(btrim(fingerprint)) > 0),
    path        text,
    provider    text REFERENCES mcp.provider (name) ON UPDATE CASCADE,
    model       text,
    batch_size  integer NOT NULL DEFAULT 32
                CONSTRAINT embedding_model_batch_size_range CHECK (batch_size BETWEEN 1 AND 2048),
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT embedding_model_local_path CHECK (kind <> 'local' OR path IS NOT NULL),
    CONSTRAINT embedding_model_openai_endpoint CHECK (kind <> 'openai' OR (provider IS NOT NULL AND model IS NOT NULL))
);
COMMENT ON TABLE mcp.embedding_model IS
  'Embedding models that turn text into vectors (mcp.embed, mcp.ingest, mcp.search, context_retrieve). Vectors of two models are never compared: a collection records the fingerprint and dimension of its model.';
COMMENT ON COLUMN mcp.embedding_model.name IS 'Identifier used by mcp.embed(texts, model), mcp.collection.embedding_model and mcp.interface.embedding_model.';
COMMENT ON COLUMN mcp.embedding_model.kind IS 'local = a sentence-transformers BERT model run inside the backend from the files in path (pure Rust, nothing downloaded); openai = POST {provider.base_url}/embeddings on an OpenAI-compatible server (OpenAI, Azure, Ollama, vLLM, llama.cpp) with the provider''s key.';
COMMENT ON COLUMN mcp.embedding_model.dimension IS 'Length of the vectors; an answer of another length is refused (22000).';
COMMENT ON COLUMN mcp.embedding_model.fingerprint IS 'What the RAG gate and mcp.ingest compare. Filled in when NULL: local = SHA-256 of the model files (config.json, vocab.txt, model.safetensors), checked again when the backend loads them; openai = openai:<model>:<dimension>.';
COMMENT ON COLUMN mcp.embedding_model.path IS 'local: directory holding config.json, model.safetensors, vocab.txt, sentence_bert_config.json, modules.json, 1_Pooling/config.json (scripts/setup.sh installs all-MiniLM-L6-v2 in /usr/local/share/pg_mcp/models/all-MiniLM-L6-v2).';
COMMENT ON COLUMN mcp.embedding_model.provider IS 'openai: the mcp.provider whose base_url, timeout_ms and API key (mcp.set_api_key) are used.';
COMMENT ON COLUMN mcp.embedding_model.model IS 'openai: the model name sent to the server (e.g. text-embedding-3-small, nomic-embed-text).';
COMMENT ON COLUMN mcp.embedding_model.batch_size IS 'Texts per embedding request (mcp.ingest sends a document''s chunks in batches of this size).';
COMMENT ON COLUMN mcp.embedding_model.created_at IS 'When the row was created.';

CREATE FUNCTION mcp.embedding_model_fill() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF NEW.fingerprint IS NULL THEN
        NEW.fingerprint := CASE NEW.kind
            WHEN 'local' THEN mcp.local_model_fingerprint(NEW.path)
            ELSE 'openai:' || NEW.model || ':' || NEW.dimension END;
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION mcp.embedding_model_fill() IS
  'Trigger: fills in a missing fingerprint (local: SHA-256 of the model files; openai: openai:<model>:<dimension>).';
CREATE TRIGGER embedding_model_fill BEFORE INSERT OR UPDATE ON mcp.embedding_model
    FOR EACH ROW EXECUTE FUNCTION mcp.embedding_model_fill();

CREATE TABLE mcp.collection (
    name            text PRIMARY KEY
                    CONSTRAINT collection_name_format CHECK (name ~ '^[a-zA-Z0-9_.-]{1,64}$'),
    collection_id   integer GENERATED ALWAYS AS IDENTITY UNIQUE,
    description     text,
    purpose         text NOT NULL DEFAULT 'search'
                    CONSTRAINT collection_purpose_format CHECK (purpose ~ '^[a-z0-9_-]{1,32}$'),
    embedding_model text NOT NULL REFERENCES mcp.embedding_model (name) ON UPDATE CASCADE,
    dimension       integer NOT NULL,
    fingerprint     text NOT NULL,
    text_config     text NOT NULL DEFAULT 'simple',
    top_k           integer NOT NULL DEFAULT 7
                    CONSTRAINT collection_top_k_range CHECK (top_k BETWEEN 1 AND 100),
    min_score       real NOT NULL DEFAULT 0.7
                    CONSTRAINT collection_min_score_range CHECK (min_score BETWEEN -1 AND 1),
    chunk_tokens    integer NOT NULL DEFAULT 200
                    CONSTRAINT collection_chunk_tokens_range CHECK (chunk_tokens BETWEEN 16 AND 8192),
    chunk_overlap   integer NOT NULL DEFAULT 32
                    CONSTRAINT collection_chunk_overlap_range CHECK (chunk_overlap >= 0 AND chunk_overlap < chunk_tokens),
    created_at      timestamptz NOT NULL DEFAULT now(),
    hnsw_m          integer NOT NULL DEFAULT 16
                    CONSTRAINT collection_hnsw_m_range CHECK (hnsw_m BETWEEN 2 AND 100),
    hnsw_ef_construction integer NOT NULL DEFAULT 200
                    CONSTRAINT collection_hnsw_ef_construction_range CHECK (hnsw_ef_construction BETWEEN 4 AND 1000),
    hnsw_ef_search  integer NOT NULL DEFAULT 100
                    CONSTRAINT collection_hnsw_ef_search_range CHECK (hnsw_ef_search BETWEEN 1 AND 1000),
    CONSTRAINT collection_hnsw_ef_construction_at_least_2m CHECK (hnsw_ef_construction >= 2 * hnsw_m)
);
COMMENT ON TABLE mcp.collection IS
  'A set of documents searched together, embedded with one model. Each collection has its own HNSW index (partial, on embedding::vector(dimension), built with its hnsw_m and hnsw_ef_construction, searched with its hnsw_ef_search), created and dropped with the row.';
COMMENT ON COLUMN mcp.collection.name IS 'Identifier used by mcp.ingest, mcp.search and search tools.';
COMMENT ON COLUMN mcp.collection.collection_id IS 'Number used in the chunks and in the name and predicate of the collection''s HNSW index (chunk_hnsw_<id>).';
COMMENT ON COLUMN mcp.collection.description IS 'Free text for admins.';
COMMENT ON COLUMN mcp.collection.purpose IS '''rag'' opts the collection in to the built-in tool context_retrieve; any other value (default ''search'') keeps it out.';
COMMENT ON COLUMN mcp.collection.embedding_model IS 'The model its chunks are embedded with. Fixed after creation.';
COMMENT ON COLUMN mcp.collection.dimension IS 'Dimension of its vectors: the model''s, copied when the collection is created. Fixed.';
COMMENT ON COLUMN mcp.collection.fingerprint IS 'The model''s fingerprint when the collection was created. Ingestion and search refuse a model whose fingerprint differs (the model files changed: re-create the collection); context_retrieve searches it only when it equals the interface model''s.';
COMMENT ON COLUMN mcp.collection.text_config IS 'Text-search configuration (e.g. german, english, simple) for the chunks'' tsvector and text/hybrid search.';
COMMENT ON COLUMN mcp.collection.top_k IS 'Results when the caller gives no k, and passages context_retrieve takes from it (SQLcl: 7).';
COMMENT ON COLUMN mcp.collection.min_score IS 'context_retrieve ignores passages whose cosine similarity is below this (SQLcl: 0.7).';
COMMENT ON COLUMN mcp.collection.chunk_tokens IS 'mcp.ingest splits documents into chunks of at most this many tokens (cl100k_base). The local model reads at most 256 word pieces of a chunk.';
COMMENT ON COLUMN mcp.collection.chunk_overlap IS 'Tokens neighbouring chunks share.';
COMMENT ON COLUMN mcp.collection.created_at IS 'When the row was created.';
COMMENT ON COLUMN mcp.collection.hnsw_m IS 'pgvector HNSW build option m (links per node, 2..100; pgvector''s default 16) of the collection''s index. Changing it (or hnsw_ef_construction) builds the index again, holding a SHARE lock on mcp.chunk meanwhile.';
COMMENT ON COLUMN mcp.collection.hnsw_ef_construction IS 'pgvector HNSW build option ef_construction (candidate list while building, 4..1000 and at least 2 * hnsw_m; pgvector''s default 64). Higher: a better graph (recall), a slower build and insert.';
COMMENT ON COLUMN mcp.collection.hnsw_ef_search IS 'hnsw.ef_search (candidate list while searching, 1..1000; pgvector''s default 40) for searches in this collection: set for the search''s own statement only (mcp.search_by_vector''s SET clause restores the caller''s value), raised to the number of candidates a search takes (k, or the hybrid pool) when that is larger.';

CREATE FUNCTION mcp.collection_check() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    m mcp.embedding_model;
BEGIN
    BEGIN
        PERFORM NEW.text_config::regconfig;
    EXCEPTION WHEN undefined_object OR invalid_name OR syntax_error THEN
        RAISE EXCEPTION 'text search configuration "%" does not exist', NEW.text_config
            USING ERRCODE = '42704', HINT = 'See \dF or pg_ts_config for the configurations.';
    END;
    IF TG_OP = 'UPDATE' THEN
        IF NEW.embedding_model IS DISTINCT FROM OLD.embedding_model
           OR NEW.dimension IS DISTINCT FROM OLD.dimension
           OR NEW.fingerprint IS DISTINCT FROM OLD.fingerprint THEN
            RAISE EXCEPTION 'the embedding model, dimension and fingerprint of collection "%" cannot change', OLD.name
                USING ERRCODE = '55000', HINT = 'Create a new collection and ingest the documents again.';
        END IF;
        IF NEW.text_config IS DISTINCT FROM OLD.text_config
           AND EXISTS (SELECT 1 FROM mcp.chunk c WHERE c.collection_id = OLD.collection_id) THEN
            RAISE EXCEPTION 'the text search configuration of collection "%" cannot change while it holds chunks', OLD.name
                USING ERRCODE = '55000';
        END IF;
        RETURN NEW;
    END IF;
    SELECT * INTO m FROM mcp.embedding_model WHERE name = NEW.embedding_model;
    IF NOT FOUND THEN
        RETURN NEW; -- the foreign key reports it
    END IF;
    IF NEW.dimension IS NULL THEN
        NEW.dimension := m.dimension;
    ELSIF NEW.dimension <> m.dimension THEN
        RAISE EXCEPTION 'collection "%": dimension % differs from model "%" (dimension %)',
            NEW.name, NEW.dimension, m.name, m.dimension USING ERRCODE = '22023';
    END IF;
    NEW.fingerprint := COALESCE(NEW.fingerprint, m.fingerprint);
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION mcp.collection_check() IS
  'Trigger: a collection takes its model''s dimension and fingerprint when created; they never change afterwards; text_config must name a text search configuration.';
CREATE TRIGGER collection_check BEFORE INSERT OR UPDATE ON mcp.collection
    FOR EACH ROW EXECUTE FUNCTION mcp.collection_check();

CREATE TABLE mcp.document (
    document_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    collection   text NOT NULL REFERENCES mcp.collection (name) ON UPDATE CASCADE ON DELETE CASCADE,
    uri          text NOT NULL
                 CONSTRAINT document_uri_length CHECK (length(uri) BETWEEN 1 AND 2048),
    title        text,
    mime_type    text NOT NULL DEFAULT 'text/plain',
    body         text NOT NULL,
    metadata     jsonb NOT NULL DEFAULT '{}'
                 CONSTRAINT document_metadata_object CHECK (jsonb_typeof(metadata) = 'object'),
    content_hash bytea NOT NULL
                 CONSTRAINT document_content_hash_sha256 CHECK (length(content_hash) = 32),
    access_role  name,
    owner        name NOT NULL DEFAULT current_user,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT document_uri_unique UNIQUE (collection, uri)
);
COMMENT ON TABLE mcp.document IS
  'Source documents of a collection (mcp.ingest writes them). Row-level security applies to the caller: the built-in policy shows a document with an access_role only to roles with that role''s privileges; admins may add policies. Chunks follow their document.';
COMMENT ON COLUMN mcp.document.document_id IS 'Identifier.';
COMMENT ON COLUMN mcp.document.collection IS 'The collection.';
COMMENT ON COLUMN mcp.document.uri IS 'Source URI, unique in the collection: ingesting the same URI again replaces the document when its content changed.';
COMMENT ON COLUMN mcp.document.title IS 'Title shown with its passages (citations).';
COMMENT ON COLUMN mcp.document.mime_type IS 'text/plain or text/markdown (chunked along Markdown structure).';
COMMENT ON COLUMN mcp.document.body IS 'The full text.';
COMMENT ON COLUMN mcp.document.metadata IS 'Free jsonb object (e.g. {"tarifgebiet": "Bayern", "branche": "Metall"}); search filters match it with @> before the top-k.';
COMMENT ON COLUMN mcp.document.content_hash IS 'SHA-256 of title, mime type, body, metadata and the chunking settings: a re-ingest with the same hash does nothing.';
COMMENT ON COLUMN mcp.document.access_role IS 'NULL: every role that may read mcp.document sees it; else only roles with the privileges of this role (pg_has_role USAGE). A role that no longer exists hides the document.';
COMMENT ON COLUMN mcp.document.owner IS 'Role that ingested it.';
COMMENT ON COLUMN mcp.document.created_at IS 'First ingestion.';
COMMENT ON COLUMN mcp.document.updated_at IS 'Last ingestion that changed it.';

CREATE TABLE mcp.chunk (
    chunk_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    document_id   bigint NOT NULL REFERENCES mcp.document (document_id) ON DELETE CASCADE,
    collection_id integer NOT NULL REFERENCES mcp.collection (collection_id) ON DELETE CASCADE,
    position      integer NOT NULL
                  CONSTRAINT chunk_position_non_negative CHECK (position >= 0),
    text          text NOT NULL,
    token_count   integer NOT NULL,
    embedding     vector NOT NULL,
    tsv           tsvector NOT NULL,
    CONSTRAINT chunk_position_unique UNIQUE (document_id, position)
);
COMMENT ON TABLE mcp.chunk IS
  'Pieces of documents with their embedding and tsvector. Visible to a role only with their document (row-level security). Written by mcp.ingest.';
COMMENT ON COLUMN mcp.chunk.chunk_id IS 'Identifier.';
COMMENT ON COLUMN mcp.chunk.document_id IS 'The document.';
COMMENT ON COLUMN mcp.chunk.collection_id IS 'The document''s collection (the predicate of the collection''s HNSW index).';
COMMENT ON COLUMN mcp.chunk.position IS '0-based place in the document.';
COMMENT ON COLUMN mcp.chunk.text IS 'The chunk''s text.';
COMMENT ON COLUMN mcp.chunk.token_count IS 'Tokens (cl100k_base).';
COMMENT ON COLUMN mcp.chunk.embedding IS 'Embedding with the collection''s model; its dimension is checked against the collection''s on write.';
COMMENT ON COLUMN mcp.chunk.tsv IS 'to_tsvector(collection.text_config, text).';
CREATE INDEX chunk_collection ON mcp.chunk (collection_id);
CREATE INDEX chunk_tsv ON mcp.chunk USING gin (tsv);

CREATE FUNCTION mcp.chunk_check() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    want integer;
BEGIN
    SELECT c.dimension INTO want FROM mcp.collection c
     JOIN mcp.document d ON d.collection = c.name
    WHERE d.document_id = NEW.document_id AND c.collection_id = NEW.collection_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'chunk of document % is not in the document''s collection', NEW.document_id
            USING ERRCODE = '23514';
    END IF;
    IF vector_dims(NEW.embedding) <> want THEN
        RAISE EXCEPTION 'embedding of dimension % for a collection of dimension %', vector_dims(NEW.embedding), want
            USING ERRCODE = '22000';
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION mcp.chunk_check() IS
  'Trigger: a chunk belongs to its document''s collection and its embedding has the collection''s dimension (so the collection''s HNSW expression never fails).';
CREATE TRIGGER chunk_check BEFORE INSERT OR UPDATE ON mcp.chunk
    FOR EACH ROW EXECUTE FUNCTION mcp.chunk_check();

-- The per-collection HNSW index (see the head of this file). SECURITY DEFINER: creating an index
-- needs the table's owner; the statement holds only integers from the new row.
CREATE FUNCTION mcp.collection_index() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    vs text := (SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e
                JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector');
BEGIN
    IF TG_OP = 'DELETE' THEN
        EXECUTE pg_catalog.format('DROP INDEX IF EXISTS mcp.%I', 'chunk_hnsw_' || OLD.collection_id);
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' THEN
        IF NEW.hnsw_m = OLD.hnsw_m AND NEW.hnsw_ef_construction = OLD.hnsw_ef_construction THEN
            RETURN NULL;
        END IF;
        -- new build options: the graph is built again with them
        EXECUTE pg_catalog.format('DROP INDEX IF EXISTS mcp.%I', 'chunk_hnsw_' || OLD.collection_id);
    END IF;
    EXECUTE pg_catalog.format(
        'CREATE INDEX IF NOT EXISTS %1$I ON mcp.chunk USING hnsw ((embedding::%2$s.vector(%3$s)) %2$s.vector_cosine_ops) WITH (m = %5$s, ef_construction = %6$s) WHERE collection_id = %4$s',
        'chunk_hnsw_' || NEW.collection_id, vs, NEW.dimension, NEW.collection_id, NEW.hnsw_m, NEW.hnsw_ef_construction);
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION mcp.collection_index() IS
  'Trigger: creates the collection''s HNSW index chunk_hnsw_<id> (cosine, on embedding::vector(dimension), WHERE collection_id = <id>, WITH the collection''s hnsw_m and hnsw_ef_construction) with the collection, builds it again when those change, and drops it with the collection.';
CREATE TRIGGER collection_index AFTER INSERT OR UPDATE OF hnsw_m, hnsw_ef_construction OR DELETE ON mcp.collection
    FOR EACH ROW EXECUTE FUNCTION mcp.collection_index();

-- Row-level security: documents by access_role (plus any policy an admin adds), chunks follow.
ALTER TABLE mcp.document ENABLE ROW LEVEL SECURITY;
CREATE POLICY document_access_role ON mcp.document
    USING (access_role IS NULL OR EXISTS (
        SELECT 1 FROM pg_catalog.pg_roles r
         WHERE r.rolname = document.access_role
           AND pg_catalog.pg_has_role(CURRENT_USER, r.oid, 'USAGE')));
COMMENT ON POLICY document_access_role ON mcp.document IS
  'A document with an access_role is visible (and writable) only to roles with the privileges of that role.';
ALTER TABLE mcp.chunk ENABLE ROW LEVEL SECURITY;
CREATE POLICY chunk_follows_document ON mcp.chunk
    USING (EXISTS (SELECT 1 FROM mcp.document d WHERE d.document_id = chunk.document_id));
COMMENT ON POLICY chunk_follows_document ON mcp.chunk IS
  'A chunk is visible exactly when the caller may see its document (the document''s policies apply to the caller).';

-- Interfaces: the embedding model of context_retrieve, and the audit option.
ALTER TABLE mcp.interface
    ADD COLUMN embedding_model text REFERENCES mcp.embedding_model (name) ON UPDATE CASCADE ON DELETE SET NULL,
    ADD COLUMN audit_retrieval_query boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN mcp.interface.embedding_model IS
  'The model context_retrieve embeds queries with; it searches only collections with purpose ''rag'' whose fingerprint and dimension equal this model''s. NULL: context_retrieve refuses.';
COMMENT ON COLUMN mcp.interface.audit_retrieval_query IS
  'false (default, SQLcl''s privacy choice): the audit row of a context_retrieve call records the matched collections and the passage count, not the query text; true: the query text is recorded too.';

-- Search tools: a collection fixed at registration.
ALTER TABLE mcp.tool DROP CONSTRAINT tool_kind_known;
ALTER TABLE mcp.tool ADD CONSTRAINT tool_kind_known
    CHECK (kind IN ('function', 'builtin', 'report', 'vector_search', 'text_search', 'hybrid_search'));
ALTER TABLE mcp.tool
    ADD COLUMN collection text REFERENCES mcp.collection (name) ON UPDATE CASCADE ON DELETE CASCADE,
    ADD CONSTRAINT tool_search_collection
        CHECK ((kind IN ('vector_search', 'text_search', 'hybrid_search')) = (collection IS NOT NULL));
COMMENT ON COLUMN mcp.tool.collection IS
  'Search tools (kind vector_search, text_search, hybrid_search): the collection they search (arguments query, k, filter). NULL for other kinds.';

------------------------------------------------------------------------------------------------
-- Search
------------------------------------------------------------------------------------------------
CREATE FUNCTION mcp.search_by_vector(collection text, query text, query_vector vector,
                                     k integer DEFAULT NULL, mode text DEFAULT 'hybrid',
                                     filter jsonb DEFAULT '{}')
RETURNS TABLE (chunk_id bigint, document_id bigint, title text, uri text, score double precision,
               text text, metadata jsonb)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET hnsw.iterative_scan = 'strict_order'
SET hnsw.ef_search = 40
AS $$
DECLARE
    c mcp.collection;
    n integer;
    pool integer;
    vec text;
    txt text;
    tsq tsquery;
    docfilter text := '';
    vs text := (SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e
                JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector');
BEGIN
    IF search_by_vector.collection IS NULL THEN
        RAISE EXCEPTION 'parameter "collection" of mcp.search_by_vector must not be NULL' USING ERRCODE = '22004';
    END IF;
    SELECT * INTO c FROM mcp.collection x WHERE x.name = search_by_vector.collection;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'collection "%" does not exist', search_by_vector.collection USING ERRCODE = '42704';
    END IF;
    n := COALESCE(search_by_vector.k, c.top_k);
    IF n < 1 OR n > 1000 THEN
        RAISE EXCEPTION 'k must be between 1 and 1000' USING ERRCODE = '22023';
    END IF;
    IF mode IS NULL OR mode NOT IN ('vector', 'text', 'hybrid') THEN
        RAISE EXCEPTION 'search mode "%" is not one of vector, text, hybrid', mode USING ERRCODE = '22023';
    END IF;
    IF filter IS NULL OR jsonb_typeof(filter) <> 'object' THEN
        RAISE EXCEPTION 'filter must be a jsonb object (matched with @> against the documents'' metadata)' USING ERRCODE = '22023';
    END IF;
    IF mode <> 'text' THEN
        IF query_vector IS NULL THEN
            RAISE EXCEPTION 'mode % needs a query vector', mode USING ERRCODE = '22004';
        END IF;
        IF pg_catalog.array_length(query_vector::real[], 1) <> c.dimension THEN
            RAISE EXCEPTION 'query vector of dimension % for collection "%" of dimension %',
                pg_catalog.array_length(query_vector::real[], 1), c.name, c.dimension USING ERRCODE = '22000';
        END IF;
    END IF;
    -- hybrid: reciprocal rank fusion (k = 60) of the best max(4k, 40) of each
    pool := GREATEST(4 * n, 40);
    -- The collection's ef_search, at least the candidates this search takes from the index (with
    -- fewer, pgvector's first pass finds fewer than asked and the iterative scan makes up the
    -- rest at lower recall); pgvector's maximum is 1000. set_config(..., true) lasts until this
    -- function returns: its SET hnsw.ef_search clause restores the caller's value on exit, also
    -- when the call runs inside the caller's transaction.
    PERFORM pg_catalog.set_config('hnsw.ef_search',
        LEAST(1000, GREATEST(c.hnsw_ef_search, CASE WHEN mode = 'hybrid' THEN pool ELSE n END))::text, true);
    IF mode <> 'vector' THEN
        -- any of the query's lexemes (OR), ranked by cover density: questions are not phrases
        tsq := pg_catalog.replace(pg_catalog.plainto_tsquery(c.text_config::regconfig, COALESCE(query, ''))::text,
                                  ' & ', ' | ')::tsquery;
    END IF;
    -- The metadata filter is part of the ranking query (before the top k); with no filter the
    -- ranking touches mcp.chunk alone, so the planner takes the collection's HNSW (or the GIN)
    -- index for ORDER BY ... LIMIT; the top k are joined to their documents afterwards.
    IF filter <> '{}'::jsonb THEN
        docfilter := 'AND EXISTS (SELECT 1 FROM mcp.document f WHERE f.document_id = c.document_id AND f.metadata @> $2)';
    END IF;
    -- vector: cosine similarity through the collection's HNSW index (hnsw.ef_search as set above;
    -- hnsw.iterative_scan keeps scanning until k rows pass the filter and row-level security)
    vec := pg_catalog.format($q$
        SELECT ch.chunk_id, ch.document_id, d.title, d.uri, ch.score, ch.text, d.metadata
          FROM (SELECT c.chunk_id, c.document_id, c.text,
                       (1 - (c.embedding::%3$s.vector(%1$s) OPERATOR(%3$s.<=>) $1::%3$s.vector(%1$s)))::float8 AS score
                  FROM mcp.chunk c
                 WHERE c.collection_id = %2$s %4$s
                 ORDER BY c.embedding::%3$s.vector(%1$s) OPERATOR(%3$s.<=>) $1::%3$s.vector(%1$s)
                 LIMIT $3) ch
          JOIN mcp.document d ON d.document_id = ch.document_id
         ORDER BY ch.score DESC, ch.chunk_id$q$, c.dimension, c.collection_id, vs, docfilter);
    -- text: ts_rank_cd normalized to rank/(rank+1)
    txt := pg_catalog.format($q$
        SELECT ch.chunk_id, ch.document_id, d.title, d.uri, ch.score, ch.text, d.metadata
          FROM (SELECT c.chunk_id, c.document_id, c.text, ts_rank_cd(c.tsv, $4, 32)::float8 AS score
                  FROM mcp.chunk c
                 WHERE c.collection_id = %1$s AND c.tsv @@ $4 %2$s
                 ORDER BY score DESC, c.chunk_id
                 LIMIT $3) ch
          JOIN mcp.document d ON d.document_id = ch.document_id
         ORDER BY ch.score DESC, ch.chunk_id$q$, c.collection_id, docfilter);
    IF mode = 'vector' THEN
        RETURN QUERY EXECUTE vec USING query_vector, filter, n;
    ELSIF mode = 'text' THEN
        RETURN QUERY EXECUTE txt USING query_vector, filter, n, tsq;
    ELSE
        RETURN QUERY EXECUTE pg_catalog.format($q$
            WITH v AS (SELECT s.*, row_number() OVER (ORDER BY s.score DESC, s.chunk_id) AS r FROM (%1$s) s),
                 t AS (SELECT s.*, row_number() OVER (ORDER BY s.score DESC, s.chunk_id) AS r FROM (%2$s) s),
                 f AS (SELECT COALESCE(v.chunk_id, t.chunk_id) AS chunk_id,
                              COALESCE(1.0 / (60 + v.r), 0) + COALESCE(1.0 / (60 + t.r), 0) AS score,
                              LEAST(v.r, t.r) AS best
                         FROM v FULL JOIN t ON t.chunk_id = v.chunk_id)
            SELECT ch.chunk_id, ch.document_id, d.title, d.uri, f.score::float8, ch.text, d.metadata
              FROM f JOIN mcp.chunk ch ON ch.chunk_id = f.chunk_id
                     JOIN mcp.document d ON d.document_id = ch.document_id
             ORDER BY f.score DESC, f.best, ch.chunk_id
             LIMIT $5$q$, pg_catalog.replace(vec, 'LIMIT $3', 'LIMIT $6'), pg_catalog.replace(txt, 'LIMIT $3', 'LIMIT $6'))
        USING query_vector, filter, n, tsq, n, pool;
    END IF;
END
$$;
COMMENT ON FUNCTION mcp.search_by_vector(text, text, vector, integer, text, jsonb) IS
  'mcp.search with the query''s embedding given (benchmarks, callers that embed themselves): mode vector = cosine similarity through the collection''s HNSW index (score = 1 - cosine distance); text = the collection''s text search configuration, any query lexeme, ranked by ts_rank_cd normalized to 0..1; hybrid = reciprocal rank fusion (k = 60) of the best max(4k, 40) of both (score = sum of 1/(60 + rank)). The HNSW scan runs with hnsw.ef_search = the collection''s hnsw_ef_search, raised to the candidates taken (k, or the hybrid pool; at most 1000), for this call only, and hnsw.iterative_scan = strict_order. filter is matched with metadata @> filter inside the query, before the top k. Runs as the caller: row-level security on documents and chunks applies.';

CREATE FUNCTION mcp.embed(texts text[], model text) RETURNS vector[]
LANGUAGE sql VOLATILE STRICT
SET search_path FROM CURRENT
AS $$ SELECT mcp.embed_literals(texts, model)::vector[] $$;
COMMENT ON FUNCTION mcp.embed(text[], text) IS
  'Embeddings of texts with a registered model (mcp.embedding_model): local = in the backend from the model files; openai = POST /embeddings through the chat loop''s HTTP client (retries, cancel, the provider''s key). One vector per text, in order; NULL texts give NULL.';

CREATE FUNCTION mcp.search(collection text, query text, k integer DEFAULT NULL,
                           mode text DEFAULT 'hybrid', filter jsonb DEFAULT '{}')
RETURNS TABLE (chunk_id bigint, document_id bigint, title text, uri text, score double precision,
               text text, metadata jsonb)
LANGUAGE plpgsql VOLATILE
SET search_path FROM CURRENT
AS $$
DECLARE
    c mcp.collection;
    m mcp.embedding_model;
    qv vector;
BEGIN
    IF search.collection IS NULL THEN
        RAISE EXCEPTION 'parameter "collection" of mcp.search must not be NULL' USING ERRCODE = '22004';
    END IF;
    SELECT * INTO c FROM mcp.collection x WHERE x.name = search.collection;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'collection "%" does not exist', search.collection USING ERRCODE = '42704';
    END IF;
    IF mode IS DISTINCT FROM 'text' THEN
        SELECT * INTO m FROM mcp.embedding_model x WHERE x.name = c.embedding_model;
        IF m.fingerprint IS DISTINCT FROM c.fingerprint OR m.dimension IS DISTINCT FROM c.dimension THEN
            RAISE EXCEPTION 'model mismatch: collection "%" was embedded with fingerprint %, model "%" now has %',
                c.name, c.fingerprint, m.name, m.fingerprint
                USING ERRCODE = '55000', HINT = 'Create a new collection and ingest the documents again.';
        END IF;
        qv := (mcp.embed(ARRAY[COALESCE(query, '')], c.embedding_model))[1];
    END IF;
    RETURN QUERY SELECT * FROM mcp.search_by_vector(c.name, query, qv, k, mode, filter);
END
$$;
COMMENT ON FUNCTION mcp.search(text, text, integer, text, jsonb) IS
  'Search a collection: one row per chunk, best first. mode vector | text | hybrid (default; see mcp.search_by_vector for scores and the fusion), k defaults to the collection''s top_k, filter is a jsonb object the document metadata must contain (applied before the top k). Runs as the caller: row-level security on documents applies to their chunks.';

CREATE FUNCTION mcp.register_search_tool(name text, collection text, mode text DEFAULT 'hybrid',
                                         description text DEFAULT NULL) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF register_search_tool.name IS NULL OR register_search_tool.collection IS NULL OR register_search_tool.mode IS NULL THEN
        RAISE EXCEPTION 'parameter "%" of mcp.register_search_tool must not be NULL',
            CASE WHEN register_search_tool.name IS NULL THEN 'name'
                 WHEN register_search_tool.collection IS NULL THEN 'collection' ELSE 'mode' END
            USING ERRCODE = '22004';
    END IF;
    IF register_search_tool.mode NOT IN ('vector', 'text', 'hybrid') THEN
        RAISE EXCEPTION 'search mode "%" is not one of vector, text, hybrid', register_search_tool.mode
            USING ERRCODE = '22023';
    END IF;
    INSERT INTO mcp.tool (name, description, parameters, kind, collection, read_only)
    VALUES (register_search_tool.name,
            COALESCE(register_search_tool.description,
                     'Search the document collection ' || register_search_tool.collection
                     || ' and get the best matching passages with their source (title, URI). Send a short, keyword-focused query.'),
            '{"type": "object",
              "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": 2000, "description": "What to look for: a few keywords."},
                "k": {"type": "integer", "minimum": 1, "maximum": 50, "description": "Passages to return (default: the collection''s top_k)."},
                "filter": {"type": "object", "description": "Metadata the documents must have, e.g. {\"tarifgebiet\": \"Bayern\"}."}},
              "required": ["query"],
              "additionalProperties": false}',
            register_search_tool.mode || '_search', register_search_tool.collection, true);
END
$$;
COMMENT ON FUNCTION mcp.register_search_tool(text, text, text, text) IS
  'Registers a search tool (kind vector_search, text_search or hybrid_search for mode vector, text, hybrid) on a fixed collection, with the parameters query, k and filter. Map it to interfaces with mcp.interface_tool.';

------------------------------------------------------------------------------------------------
-- The built-in RAG tool (SQLcl's context_retrieve)
------------------------------------------------------------------------------------------------
INSERT INTO mcp.tool (name, description, parameters, kind, read_only) VALUES
('context_retrieve',
 'Retrieve background knowledge (documents, agreements, runbooks) relevant to the user''s question before you answer. Send a concise, keyword-focused semantic query distilled from the user''s input. Returns the best matching passages with their source (title and URI) for citation, or "no retrieval context found".',
 '{"type": "object",
   "properties": {
     "query": {"type": "string", "minLength": 1, "maxLength": 2000,
               "description": "A concise, keyword-focused semantic query."}},
   "required": ["query"],
   "additionalProperties": false}',
 'builtin', true);

COMMENT ON FUNCTION mcp.chunk_text(text, integer, integer, text) IS
  'Splits a text into chunks of at most max_tokens tokens (cl100k_base, the chat loop''s tokenizer), neighbours sharing up to overlap tokens, at the highest boundary that fits: paragraphs, sentences, words (text-splitter; format ''markdown'' follows Markdown structure). Only a single word longer than max_tokens is ever cut. One row per chunk: position, text, token_count.';
COMMENT ON FUNCTION mcp.embed_literals(text[], text) IS
  'mcp.embed''s worker: the vectors as pgvector text literals (mcp.embed casts them to vector[]).';
COMMENT ON FUNCTION mcp.local_model_fingerprint(text) IS
  'SHA-256 fingerprint (local:sha256:<hex>) of the model files in a directory (config.json, vocab.txt, model.safetensors). Not granted to PUBLIC: it reads files of the server.';
REVOKE EXECUTE ON FUNCTION mcp.local_model_fingerprint(text) FROM PUBLIC;
COMMENT ON FUNCTION mcp.ingest(text, text, text, text, jsonb, text) IS
  'Chunk, embed (in batches of the model''s batch_size) and store a document, as the caller: returns {document_id, status: inserted | replaced | unchanged, chunks}. The same content under the same URI does nothing; changed content replaces the document''s chunks. Everything is computed before the first write: an unknown collection (42704), a model mismatch (55000), an embedding server that is down (08006) or answers another dimension (22000) leave nothing written. mime_type text/markdown chunks along Markdown structure.';

GRANT SELECT ON mcp.embedding_model, mcp.collection TO PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('mcp.embedding_model', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.collection', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.collection_collection_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.document', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.document_document_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.chunk', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.chunk_chunk_id_seq', '');
------------------------------------------------------------------------------------------------
-- Issue 11: run deadline, client_gone / deadline_exceeded / tool_choice_violated / truncated
------------------------------------------------------------------------------------------------
-- (mcp.interface.deadline_ms is added before the retrieval section: the fresh install's column order)
COMMENT ON COLUMN mcp.run.status IS 'running, completed, needs_input, max_iterations, budget_exceeded, loop_detected, failed, cancelled, client_gone (the client closed its connection while the run waited; the run was stopped), deadline_exceeded (deadline_ms ran out, retries included), tool_choice_violated (tool_choice required a tool call; the model answered with text, also after one correction), truncated (the answer was cut off at the output token limit; answer holds the partial text), aborted (the backend ended before the run did: terminated, killed or crashed; set by the backend on its way out or by the audit worker).';
COMMENT ON COLUMN mcp.recent_runs.status IS 'running, completed, needs_input, max_iterations, budget_exceeded, loop_detected, failed, cancelled, client_gone (the client closed its connection while the run waited; the run was stopped), deadline_exceeded (deadline_ms ran out, retries included), tool_choice_violated (tool_choice required a tool call; the model answered with text, also after one correction), truncated (the answer was cut off at the output token limit; answer holds the partial text), aborted (the backend ended before the run did: terminated, killed or crashed; set by the backend on its way out or by the audit worker).';
COMMENT ON FUNCTION mcp.chat(text, text, uuid, jsonb) IS
  'Runs one user turn through the agent loop: system prompt + history + question + tools → LLM → tool calls executed as the calling role → … → answer. Returns {run_id, session_id, status, answer, iterations, tool_calls, usage, error}; faults are returned as status, not raised (except cancel/statement_timeout). Needs the interface''s access (mcp.may_use_interface). Options: provider, tool_choice, max_iterations, max_total_tokens, deadline_ms, plan; they may only tighten the interface''s limits unless the caller has UPDATE on mcp.interface.';
ALTER TABLE mcp.run ADD COLUMN backend_pid integer, ADD COLUMN backend_start timestamptz;
CREATE INDEX run_open_idx ON mcp.run (backend_pid) WHERE status = 'running';
COMMENT ON COLUMN mcp.run.backend_pid IS 'Process id of the backend that ran the chat, set when the run was recorded through the durable audit worker (NULL otherwise): with backend_start it lets the worker mark runs of vanished backends aborted.';
COMMENT ON COLUMN mcp.run.backend_start IS 'Start time of that backend (pg_stat_activity.backend_start), so a reused pid is not taken for the same backend.';
CREATE FUNCTION mcp.audit_status() RETURNS jsonb
VOLATILE STRICT
LANGUAGE c
AS 'MODULE_PATHNAME', 'audit_status_wrapper';
REVOKE ALL ON FUNCTION mcp.audit_status() FROM PUBLIC;
COMMENT ON FUNCTION mcp.audit_status() IS
  'Durable audit (issue 11): {preloaded, durable, synchronous, queues: [{database_oid, worker_pid, queued_bytes, queue_bytes, records_queued, records_stored, records_failed}]}. Not executable by PUBLIC.';
------------------------------------------------------------------------------------------------
-- Issue 12: the embedding signal of plan ranking (the plans' example questions embedded with the
-- interface's model). The section below equals sql/plan_embedding.sql.
------------------------------------------------------------------------------------------------
------------------------------------------------------------------------------------------------
-- Issue 12, third ranking signal: similarity of the question to the plans' example questions,
-- with the interface's embedding model (mcp.interface.embedding_model, added by retrieval).
------------------------------------------------------------------------------------------------
-- The example questions' vectors are stored, one row per (plan, model, example), with the
-- model's fingerprint at the time they were computed. mcp.plan_example_similarity brings the
-- rows of an interface up to date when it is used (lazily, so that saving a plan never needs the
-- embedding server): rows of an example the plan no longer has, or of another fingerprint (the
-- model's files or endpoint changed), are deleted; examples without a row are embedded in one
-- batch and stored. Only rows whose fingerprint equals the model's current one are compared with
-- the question, which mcp.analyze embedded with the same model: vectors of different models are
-- never compared.

CREATE TABLE mcp.plan_example_embedding (
    plan        text NOT NULL REFERENCES mcp.plan (name) ON UPDATE CASCADE ON DELETE CASCADE,
    model       text NOT NULL REFERENCES mcp.embedding_model (name) ON UPDATE CASCADE ON DELETE CASCADE,
    example     text NOT NULL,
    fingerprint text NOT NULL,
    embedding   vector NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (plan, model, example)
);
COMMENT ON TABLE mcp.plan_example_embedding IS
  'Stored vectors of the plans'' example questions (the embedding signal of mcp.analyze), one per plan, model and example; kept up to date by mcp.plan_example_similarity when an interface with that model is analyzed. Not dumped: rebuilt on first use.';
COMMENT ON COLUMN mcp.plan_example_embedding.plan IS 'The plan.';
COMMENT ON COLUMN mcp.plan_example_embedding.model IS 'The embedding model (mcp.embedding_model) the vector was computed with.';
COMMENT ON COLUMN mcp.plan_example_embedding.example IS 'The example question (an element of mcp.plan.examples); a row whose example the plan no longer has is deleted at the next use.';
COMMENT ON COLUMN mcp.plan_example_embedding.fingerprint IS 'The model''s fingerprint when the vector was computed; a row of another fingerprint than the model''s current one is never compared, and deleted and recomputed at the next use.';
COMMENT ON COLUMN mcp.plan_example_embedding.embedding IS 'The example''s vector (dimension of the model).';
COMMENT ON COLUMN mcp.plan_example_embedding.created_at IS 'When the vector was computed.';

CREATE FUNCTION mcp.plan_example_similarity(interface text, question_vector text)
RETURNS TABLE (plan text, similarity double precision, example text)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    v_iface constant text := $1;
    m mcp.embedding_model;
    vs text := (SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e
                  JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector');
    v_store constant boolean := NOT pg_catalog.current_setting('transaction_read_only')::boolean;
    v_plans text[];
    v_examples text[];
    v_vectors text[];
BEGIN
    IF v_iface IS NULL OR question_vector IS NULL THEN
        RETURN;
    END IF;
    SELECT em.* INTO m FROM mcp.interface i JOIN mcp.embedding_model em ON em.name = i.embedding_model
     WHERE i.name = v_iface;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF v_store THEN
        DELETE FROM mcp.plan_example_embedding e USING mcp.plan p
         WHERE e.plan = p.name AND p.interface = v_iface AND e.model = m.name
           AND (e.fingerprint <> m.fingerprint OR NOT e.example = ANY (p.examples));
    END IF;
    SELECT pg_catalog.array_agg(x.plan ORDER BY x.plan, x.example), pg_catalog.array_agg(x.example ORDER BY x.plan, x.example)
      INTO v_plans, v_examples
      FROM (SELECT DISTINCT p.name AS plan, ex AS example
              FROM mcp.plan p, pg_catalog.unnest(p.examples) ex
             WHERE p.interface = v_iface AND p.enabled AND pg_catalog.btrim(ex) <> ''
               AND NOT EXISTS (SELECT 1 FROM mcp.plan_example_embedding e
                                WHERE e.plan = p.name AND e.model = m.name AND e.example = ex
                                  AND e.fingerprint = m.fingerprint)) x;
    IF v_plans IS NOT NULL THEN
        v_vectors := mcp.embed_literals(v_examples, m.name);
        IF v_store THEN
            -- (a concurrent first use may have stored the same example meanwhile: the newer wins)
            EXECUTE pg_catalog.format(
                'INSERT INTO mcp.plan_example_embedding (plan, model, example, fingerprint, embedding)
                 SELECT u.p, $1, u.e, $2, u.v::%s.vector FROM ROWS FROM (pg_catalog.unnest($3), pg_catalog.unnest($4), pg_catalog.unnest($5)) u(p, e, v)
                 ON CONFLICT (plan, model, example) DO UPDATE
                    SET fingerprint = EXCLUDED.fingerprint, embedding = EXCLUDED.embedding, created_at = EXCLUDED.created_at', vs)
              USING m.name, m.fingerprint, v_plans, v_examples, v_vectors;
        END IF;
    END IF;
    -- (in a read-only transaction the new vectors are used without being stored)
    RETURN QUERY EXECUTE pg_catalog.format($q$
        WITH v AS (
            SELECT e.plan, e.example, e.embedding
              FROM mcp.plan_example_embedding e JOIN mcp.plan p ON p.name = e.plan
             WHERE p.interface = $1 AND p.enabled AND e.model = $2 AND e.fingerprint = $3
               AND e.example = ANY (p.examples)
            UNION ALL
            SELECT u.p, u.e, u.v::%1$s.vector FROM ROWS FROM (pg_catalog.unnest($4), pg_catalog.unnest($5), pg_catalog.unnest($6)) u(p, e, v) WHERE NOT $7
        )
        SELECT DISTINCT ON (v.plan) v.plan,
               GREATEST(0, 1 - (v.embedding OPERATOR(%1$s.<=>) $8::%1$s.vector))::double precision,
               v.example
          FROM v ORDER BY v.plan, 2 DESC, v.example$q$, vs)
      USING v_iface, m.name, m.fingerprint, v_plans, v_examples, v_vectors, v_store, question_vector;
END
$$;
COMMENT ON FUNCTION mcp.plan_example_similarity(text, text) IS
  'Embedding signal of mcp.analyze: for each enabled plan of the interface, the highest cosine similarity (negative as 0) of question_vector (a vector of the interface''s embedding model, in pgvector''s text form) to the plan''s example questions, and that example. Brings mcp.plan_example_embedding up to date first: drops vectors of another fingerprint or of examples the plan no longer has, embeds and stores the missing ones (in a read-only transaction: uses them without storing). No rows when the interface has no model. SECURITY DEFINER (it writes the stored vectors, which callers cannot); it embeds only the plans'' examples, never caller text.';

-- mcp.analyze uses the interface's model too (retrieval.sql's comment extended).
COMMENT ON COLUMN mcp.interface.embedding_model IS
  'The model context_retrieve embeds queries with; it searches only collections with purpose ''rag'' whose fingerprint and dimension equal this model''s. NULL: context_retrieve refuses. mcp.analyze ranks the interface''s plans also by the similarity of the question to their example questions with this model (NULL: no embedding signal).';

GRANT SELECT ON mcp.plan_example_embedding TO PUBLIC;

------------------------------------------------------------------------------------------------
-- Tool calls written as text (issue 23): mcp.parse_llm_response with the offered tools
------------------------------------------------------------------------------------------------
CREATE FUNCTION mcp.parse_llm_response(raw text, tools jsonb) RETURNS jsonb
IMMUTABLE PARALLEL SAFE
LANGUAGE c
AS 'MODULE_PATHNAME', 'parse_llm_response_with_tools_wrapper';
COMMENT ON FUNCTION mcp.parse_llm_response(text, jsonb) IS
  'mcp.parse_llm_response knowing the tools the request offered (an OpenAI, Anthropic or MCP tools array, or an object with a "tools" array): tool calls written as text by open models (Hermes/Qwen, Qwen3-Coder, GLM, DeepSeek, Kimi K2, gpt-oss Harmony, Gemma 4, Llama, Mistral, Cohere, MiniMax, Step-3) are checked against them (a tool not offered gives an incomplete call) and their XML parameter values typed by the tool''s schema; reasoning (<think>, [THINK], Harmony analysis) is returned in "reasoning". The parse the chat loop runs. NULL tools = the one-argument form; NULL raw gives NULL.';
COMMENT ON FUNCTION mcp.parse_llm_response(text) IS
  'Normalizes an LLM response body (OpenAI-compatible, Azure, Anthropic, SSE, provider error bodies) to {finish_reason, content, reasoning, tool_calls[{id, name, arguments, complete, …}], usage, error, repairs}; truncated tool calls are marked incomplete; tool calls open models wrote as text are read from the content (see the two-argument form for checking them against the offered tools).';
