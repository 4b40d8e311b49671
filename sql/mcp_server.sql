-- pg_mcp as an MCP server (mcp.handle) and change notifications for the bridge.
-- Objects added here (for the 0.1.0 -> 0.2.0 upgrade script): function mcp.handle(jsonb),
-- function mcp.notify_registry_changed(), triggers registry_changed on mcp.tool,
-- mcp.interface, mcp.interface_tool, mcp.resource, mcp.prompt; table mcp.bridge_token and
-- function mcp.create_bridge_token(name, text, timestamptz); column mcp.tool.output_schema.

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
