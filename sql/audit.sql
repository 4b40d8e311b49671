-- pg_mcp: the one writer of the audit tables.
--
-- Every audit record (mcp_audit::rows::Record in Rust: {"k": <kind>, "row": {<column>: <value>}})
-- is stored by mcp.audit_store, whoever writes it: the calling backend in its own transaction
-- (durable audit off or not preloaded, or a record the queue did not take), or the durable audit
-- worker in its transactions, with the same bytes. The columns are read with
-- jsonb_populate_record, so their types are the tables' own; the Rust row types name the
-- columns, and tests/pg/audit_rows.rs checks every field against the table.

CREATE FUNCTION mcp.audit_store(record jsonb) RETURNS bigint
LANGUAGE plpgsql STRICT VOLATILE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    r jsonb := record -> 'row';
    id bigint;
BEGIN
    CASE record ->> 'k'
    WHEN 'tool_call' THEN
        INSERT INTO mcp.tool_call (call_id, run_id, tool_call_id, tool, interface, role_name,
                                   arguments_raw, arguments, validation_errors, status,
                                   result_size, result_preview, latency_ms, error_sqlstate,
                                   error_message, created_at, clipped, traceparent, tracestate)
        OVERRIDING SYSTEM VALUE
        SELECT coalesce(x.call_id, nextval('mcp.tool_call_call_id_seq'::regclass)), x.run_id,
               x.tool_call_id, x.tool, x.interface, x.role_name, x.arguments_raw, x.arguments,
               x.validation_errors, x.status, x.result_size, x.result_preview, x.latency_ms,
               x.error_sqlstate, x.error_message, coalesce(x.created_at, clock_timestamp()),
               x.clipped, x.traceparent, x.tracestate
          FROM jsonb_populate_record(NULL::mcp.tool_call, r) x
        RETURNING call_id INTO id;
    WHEN 'llm_request' THEN
        INSERT INTO mcp.llm_request (run_id, iteration, purpose, provider, model, url, request_body,
                                     response_raw, http_status, latency_ms, attempts, prompt_tokens,
                                     completion_tokens, finish_reason, repaired, fixes, error,
                                     created_at, clipped, traceparent, tracestate)
        SELECT x.run_id, x.iteration, x.purpose, x.provider, x.model, x.url, x.request_body,
               x.response_raw, x.http_status, x.latency_ms, x.attempts, x.prompt_tokens,
               x.completion_tokens, x.finish_reason, coalesce(x.repaired, false), x.fixes, x.error,
               coalesce(x.created_at, clock_timestamp()), x.clipped, x.traceparent, x.tracestate
          FROM jsonb_populate_record(NULL::mcp.llm_request, r) x;
    WHEN 'run' THEN
        INSERT INTO mcp.run AS o (run_id, session_id, interface, provider, role_name, question,
                                  clipped, started_at, backend_pid, backend_start, traceparent,
                                  tracestate)
        SELECT x.run_id, x.session_id, x.interface, x.provider, x.role_name, x.question, x.clipped,
               coalesce(x.started_at, clock_timestamp()), x.backend_pid, x.backend_start,
               x.traceparent, x.tracestate
          FROM jsonb_populate_record(NULL::mcp.run, r) x
        -- an asynchronous run's row is there since mcp.chat_submit, queued: its start
        ON CONFLICT (run_id) DO UPDATE
           SET session_id = excluded.session_id, interface = excluded.interface,
               provider = excluded.provider, role_name = excluded.role_name,
               question = excluded.question, clipped = excluded.clipped, status = 'running',
               started_at = excluded.started_at, backend_pid = excluded.backend_pid,
               backend_start = excluded.backend_start, traceparent = excluded.traceparent,
               tracestate = excluded.tracestate
         WHERE o.status = 'queued';
    WHEN 'run_end' THEN
        -- Only a run still open: an end reported by the backend wins over the worker's own
        -- 'aborted' verdict (the backend may have queued its end just before it went away).
        UPDATE mcp.run o
           SET status = x.status, answer = coalesce(x.answer, o.answer),
               iterations = coalesce(x.iterations, o.iterations),
               prompt_tokens = coalesce(x.prompt_tokens, o.prompt_tokens),
               completion_tokens = coalesce(x.completion_tokens, o.completion_tokens),
               error = x.error, finished_at = coalesce(x.finished_at, clock_timestamp()),
               plan = coalesce(x.plan, o.plan),
               clipped = CASE WHEN x.clipped IS NULL THEN o.clipped
                              ELSE coalesce(o.clipped, '{}'::jsonb) || x.clipped END
          FROM jsonb_populate_record(NULL::mcp.run, r) x
         WHERE o.run_id = x.run_id AND o.status IN ('running', 'aborted');
    WHEN 'messages' THEN
        INSERT INTO mcp.message (session_id, run_id, seq, role, message, clipped)
        SELECT (r ->> 'session_id')::uuid, (r ->> 'run_id')::uuid,
               (r ->> 'offset')::int + e.ord::int - 1, coalesce(e.msg ->> 'role', ''), e.msg,
               NULLIF(r -> 'message_cuts' -> (e.ord::int - 1), 'null'::jsonb)
          FROM jsonb_array_elements(r -> 'messages') WITH ORDINALITY AS e(msg, ord);
    WHEN 'embedding_request' THEN
        INSERT INTO mcp.embedding_request (model, provider, role_name, url, texts, input_bytes,
                                           input_sha256, http_status, latency_ms, error, created_at)
        SELECT x.model, x.provider, x.role_name, x.url, x.texts, x.input_bytes, x.input_sha256,
               x.http_status, x.latency_ms, x.error, coalesce(x.created_at, clock_timestamp())
          FROM jsonb_populate_record(NULL::mcp.embedding_request, r) x
        RETURNING request_id INTO id;
    ELSE
        RAISE EXCEPTION 'pg_mcp: unknown audit record kind %', coalesce(record ->> 'k', 'NULL')
            USING ERRCODE = '22023';
    END CASE;
    RETURN id;
END
$fn$;
REVOKE ALL ON FUNCTION mcp.audit_store(jsonb) FROM PUBLIC;
COMMENT ON FUNCTION mcp.audit_store(jsonb) IS
  'The one writer of the audit tables (mcp.run, mcp.message, mcp.llm_request, mcp.tool_call, mcp.embedding_request): stores one record {"k": kind, "row": columns} as pg_mcp makes it, in the caller''s transaction or in the durable audit worker''s. Returns the new call_id (tool_call) or request_id (embedding_request), else NULL. Not executable by PUBLIC (pg_mcp runs it as the extension owner).';
