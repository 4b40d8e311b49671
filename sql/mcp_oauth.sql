-- The HTTP bridge as an OAuth 2.1 resource server: which database role an access token's
-- scopes stand for. The bridge (its authenticator role, which needs SELECT on the table)
-- verifies the token, then runs the request under SET LOCAL ROLE <the role of its scopes>;
-- a token none of whose scopes is listed here is refused with 403 insufficient_scope.
-- Objects added here (0.1.0 -> 0.2.0): table mcp.oauth_scope_role.

CREATE TABLE mcp.oauth_scope_role (
    scope       text PRIMARY KEY
                -- RFC 6749 3.3 scope-token: printable ASCII without space, " and \
                CONSTRAINT oauth_scope_role_scope_token
                CHECK (scope ~ '^[\x21\x23-\x5b\x5d-\x7e]{1,128}$'),
    role_name   name NOT NULL,
    priority    integer NOT NULL DEFAULT 0,
    description text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    created_by  name NOT NULL DEFAULT session_user
);
COMMENT ON TABLE mcp.oauth_scope_role IS
  'OAuth scopes of pg_mcp_bridge''s HTTP transport mapped to database roles: a request with a valid OAuth access token (issuer and audience checked by the bridge) runs as the role of the token''s highest-priority listed scope. The scopes are advertised as scopes_supported in the bridge''s protected-resource metadata. Not readable by PUBLIC: grant SELECT to the bridge''s authenticator role.';
COMMENT ON COLUMN mcp.oauth_scope_role.scope IS 'An OAuth scope as the authorization server puts it in the access token''s scope (or scp) claim, e.g. mcp:read.';
COMMENT ON COLUMN mcp.oauth_scope_role.role_name IS 'Role the bridge switches to (SET LOCAL ROLE) for a token with this scope; the authenticator must be a member of it, and PostgreSQL refuses the switch otherwise (403).';
COMMENT ON COLUMN mcp.oauth_scope_role.priority IS 'When a token holds several listed scopes: the one with the highest priority decides the role (ties: the first scope in text order).';
COMMENT ON COLUMN mcp.oauth_scope_role.description IS 'What the scope grants, for the operator.';
COMMENT ON COLUMN mcp.oauth_scope_role.created_at IS 'When the mapping was added.';
COMMENT ON COLUMN mcp.oauth_scope_role.created_by IS 'Session user who added it.';
REVOKE ALL ON mcp.oauth_scope_role FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('mcp.oauth_scope_role', '');
