-- pg_mcp as an MCP server (mcp.handle) and change notifications for the bridge.
-- Objects added here (for the 0.1.0 -> 0.2.0 upgrade script): function mcp.handle(jsonb),
-- function mcp.notify_registry_changed(), triggers registry_changed on mcp.tool,
-- mcp.interface, mcp.interface_tool, mcp.resource, mcp.prompt.

COMMENT ON FUNCTION mcp.handle(jsonb) IS
  'MCP JSON-RPC 2.0 over the registry: initialize, ping, tools/list, tools/call (same pipeline as mcp.call_tool), resources/list, resources/templates/list, resources/read, prompts/list, prompts/get, logging/setLevel. Tools are those of the interface in mcp.interface, run as the calling role. Returns the response object; NULL for notifications. Faults are JSON-RPC error objects, never an SQL ERROR (except query cancel and statement_timeout).';

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
