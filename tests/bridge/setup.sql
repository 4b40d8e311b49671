-- Fixture of the bridge's resource tests (tests/bridge/run.sh): an authenticator, two API roles,
-- a login role for stdio, the sql_query tool, an opaque token.
SET client_min_messages = warning;
DO $$ BEGIN
  -- roles are cluster-wide: recreate them (their old grants belong to a dropped database)
  DROP ROLE IF EXISTS mcp_b_a; DROP ROLE IF EXISTS mcp_b_b; DROP ROLE IF EXISTS mcp_b_auth;
  DROP ROLE IF EXISTS mcp_b_user;
END $$;
CREATE ROLE mcp_b_a NOLOGIN;
CREATE ROLE mcp_b_b NOLOGIN;
CREATE ROLE mcp_b_user LOGIN;
-- the authenticator: NOINHERIT, a member of the API roles only
CREATE ROLE mcp_b_auth LOGIN NOINHERIT;
GRANT mcp_b_a, mcp_b_b TO mcp_b_auth;
GRANT SELECT ON mcp.bridge_token TO mcp_b_auth;
INSERT INTO mcp.interface (name, access_role) VALUES ('chatbot', 'public');
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'sql_query');
-- slow calls of the tests run up to 60 s
ALTER DATABASE pg_mcp_bridge_t SET mcp.tool_timeout_ms = 60000;
-- a tool that asks the client for input (its call waits for the client's answer in the bridge)
CREATE FUNCTION public.ask_b() RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN mcp.input_response('q') IS NULL
    THEN '{"needs_input": true, "input_requests": {"q": {"method": "elicitation/create",
           "params": {"message": "Sure?", "requestedSchema": {"type": "object", "properties": {}}}}}}'::jsonb
    ELSE jsonb_build_object('answered', mcp.input_response('q') ->> 'action') END $$;
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('ask_b', 'asks the client', '{"type":"object","properties":{}}', 'public.ask_b()');
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'ask_b');
