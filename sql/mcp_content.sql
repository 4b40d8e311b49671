-- MCP content beyond one text item, and what PostgreSQL already says delivered to MCP clients:
-- tools that return MCP content arrays, prompts of several messages (images, embedded
-- resources), progress reports of a running tool, and resource-update notifications
-- (resources/subscribe through LISTEN/NOTIFY). Binary resources need no column: a reader that
-- returns bytea is served as a base64 blob.
-- Objects added here (0.1.0 -> 0.2.0): columns mcp.tool.returns_content, mcp.prompt.messages;
-- functions mcp.report_progress(float8, float8, text), mcp.resource_updated(text).

ALTER TABLE mcp.tool ADD COLUMN returns_content boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN mcp.tool.returns_content IS
  'true: the tool''s function returns jsonb that is an MCP content array (items of type text, image, audio, resource, resource_link; or one item alone), which MCP clients get as the result''s content as it is (checked: an invalid item makes the call a tool error naming it). false (the default): the result is shaped into one text item.';

ALTER TABLE mcp.prompt ADD COLUMN messages jsonb
    CONSTRAINT prompt_messages_array CHECK (messages IS NULL OR jsonb_typeof(messages) = 'array');
COMMENT ON COLUMN mcp.prompt.messages IS
  'MCP prompts/get answer of several messages: an array of {"role": "user"|"assistant", "content": <MCP content item>}; {{name}} placeholders in text items and in an embedded resource''s uri and text are filled like the template''s; an embedded resource with only a uri is read from mcp.resource as the caller. NULL: prompts/get returns the template as one message. The template stays what plans and mcp.render_prompt use.';

CREATE FUNCTION mcp.report_progress(progress double precision, total double precision DEFAULT NULL,
                                    message text DEFAULT NULL) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM mcp.arg_not_null(progress, 'progress', 'mcp.report_progress');
    IF progress = 'NaN'::float8 OR total = 'NaN'::float8 THEN
        RAISE EXCEPTION 'mcp.report_progress: progress and total must be numbers, not NaN' USING ERRCODE = '22023';
    END IF;
    -- a NOTICE with pg_mcp's own SQLSTATE: the bridge turns it into notifications/progress
    RAISE NOTICE USING MESSAGE = coalesce(report_progress.message, 'progress'), ERRCODE = 'PM001',
        DETAIL = pg_catalog.jsonb_build_object('progress', report_progress.progress,
                                               'total', report_progress.total)::text;
END
$$;
COMMENT ON FUNCTION mcp.report_progress(double precision, double precision, text) IS
  'Called by a tool''s function while it runs: reports progress (and optionally the total and a message). pg_mcp_bridge sends it as notifications/progress on the call''s response stream when the MCP client asked for progress (_meta.progressToken); elsewhere it is a NOTICE with SQLSTATE PM001.';

CREATE FUNCTION mcp.resource_updated(uri text) RETURNS void
LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $$
    SELECT pg_catalog.pg_notify('mcp_resource_updated', resource_updated.uri)
$$;
COMMENT ON FUNCTION mcp.resource_updated(text) IS
  'Tells MCP clients subscribed to a resource (resources/subscribe) that it changed: NOTIFY mcp_resource_updated with the URI, sent when the transaction commits; pg_mcp_bridge forwards it as notifications/resources/updated. Call it from a trigger on the data a resource reads.';
