-- Fixture of the OAuth suite (tests/oauth/run.sh): the authenticator, the roles the scopes map
-- to, the scope table's rows, and an interface with the built-in sql_query tool.
SET client_min_messages = warning;
DO $$ BEGIN
  DROP ROLE IF EXISTS mcp_oa_auth; DROP ROLE IF EXISTS mcp_oa_reader; DROP ROLE IF EXISTS mcp_oa_writer;
END $$;
-- the bridge logs in as mcp_oa_auth (NOINHERIT, no rights of its own), which may become
-- mcp_oa_reader only; mcp_oa_writer exists but the authenticator is not a member of it
CREATE ROLE mcp_oa_auth LOGIN NOINHERIT;
CREATE ROLE mcp_oa_reader NOLOGIN;
CREATE ROLE mcp_oa_writer NOLOGIN;
GRANT mcp_oa_reader TO mcp_oa_auth;
GRANT SELECT ON mcp.bridge_token, mcp.oauth_scope_role TO mcp_oa_auth;

INSERT INTO mcp.oauth_scope_role (scope, role_name, description) VALUES
  ('mcp:read', 'mcp_oa_reader', 'read the registry''s tools as the reader role'),
  ('mcp:write', 'mcp_oa_writer', 'a role the authenticator cannot become');

INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('oa', 'openai', 'http://127.0.0.1:9/v1', 'm');
INSERT INTO mcp.interface (name, provider, access_role) VALUES ('oauth_test', 'oa', 'public');
INSERT INTO mcp.interface_tool VALUES ('oauth_test', 'sql_query');
