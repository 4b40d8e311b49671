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
       r.error ->> 'message' AS error_message
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

------------------------------------------------------------------------------------------------
-- Issue 11: run deadline, client_gone / deadline_exceeded / tool_choice_violated / truncated
------------------------------------------------------------------------------------------------
ALTER TABLE mcp.interface ADD COLUMN deadline_ms integer
    CONSTRAINT interface_deadline_ms_positive CHECK (deadline_ms IS NULL OR deadline_ms > 0);
COMMENT ON COLUMN mcp.interface.deadline_ms IS 'Time budget of a chat run in milliseconds, every LLM request and retry included (status deadline_exceeded); mcp.chat''s option deadline_ms may lower it. NULL = no budget beyond the provider timeout and retries.';
COMMENT ON COLUMN mcp.run.status IS 'running, completed, needs_input, max_iterations, budget_exceeded, loop_detected, failed, cancelled, client_gone (the client closed its connection while the run waited; the run was stopped), deadline_exceeded (deadline_ms ran out, retries included), tool_choice_violated (tool_choice required a tool call; the model answered with text, also after one correction), truncated (the answer was cut off at the output token limit; answer holds the partial text), aborted (the backend ended before the run did: terminated, killed or crashed; set by the backend on its way out or by the audit worker).';
COMMENT ON COLUMN mcp.recent_runs.status IS 'running, completed, needs_input, max_iterations, budget_exceeded, loop_detected, failed, cancelled, client_gone (the client closed its connection while the run waited; the run was stopped), deadline_exceeded (deadline_ms ran out, retries included), tool_choice_violated (tool_choice required a tool call; the model answered with text, also after one correction), truncated (the answer was cut off at the output token limit; answer holds the partial text), aborted (the backend ended before the run did: terminated, killed or crashed; set by the backend on its way out or by the audit worker).';
COMMENT ON FUNCTION mcp.chat(text, text, uuid, jsonb) IS
  'Runs one user turn through the agent loop: system prompt + history + question + tools → LLM → tool calls executed as the calling role → … → answer. Returns {run_id, session_id, status, answer, iterations, tool_calls, usage, error}; faults are returned as status, not raised (except cancel/statement_timeout). Needs the interface''s access (mcp.may_use_interface). Options: provider, tool_choice, max_iterations, max_total_tokens, deadline_ms; they may only tighten the interface''s limits unless the caller has UPDATE on mcp.interface.';
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
