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

CREATE OR REPLACE FUNCTION mcp.tool_row_check() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.function IS NOT NULL THEN
        NEW.function := mcp.check_function_signature(NEW.function, pg_catalog.format('tool "%s"', NEW.name));
    END IF;
    -- A restore (check_function_bodies = off) takes rows as dumped: a tool refused now (a
    -- dropped function, a body over a table not restored yet, a stricter check in a newer
    -- version) would otherwise make the whole COPY fail and every tool be lost.
    IF pg_catalog.current_setting('check_function_bodies')::boolean THEN
        PERFORM mcp.check_tool_definition(NEW.name, NEW.kind, NEW.parameters,
                                          mcp.resolve_function(NEW.function), NEW.body);
    END IF;
    -- On INSERT an explicit value is kept, so a restored dump keeps its timestamps.
    IF TG_OP = 'UPDATE' THEN
        NEW.updated_at := pg_catalog.now();
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION mcp.tool_row_check() IS
  'Trigger: refuses a tool whose function does not exist, whose parameters are not a valid JSON Schema or do not fit the function''s arguments, or whose report body is not one read-only query (not checked with check_function_bodies = off, as pg_dump''s output restores); stores the function signature schema-qualified (mcp.function_signature).';

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
