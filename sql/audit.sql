-- pg_mcp: the one writer of the audit tables.
--
-- Every audit record (mcp_audit::rows::Record in Rust: {"k": <kind>, "row": {<column>: <value>}})
-- is stored by mcp.audit_store_batch, whoever writes it: the calling backend in its own
-- transaction (durable audit off or not preloaded, or a record the queue did not take), or the
-- durable audit worker in its transactions, with the same bytes. The columns are read with
-- jsonb_populate_record, so their types are the tables' own; the Rust row types name the
-- columns, and tests/pg/audit_rows.rs checks every field against the table.
--
-- The worker stores a whole batch (the records of one of its transactions) with one call of
-- mcp.audit_store_batch, in order; when that fails it stores the batch again record by record,
-- each in a subtransaction, so a bad record loses only itself. Its SET search_path stays
-- although pg_mcp calls it only with search_path pinned to the same value (as_extension_owner):
-- the body's type names, functions and operators are not schema-qualified, and the SET is what
-- keeps them pg_catalog's for any caller (a role granted EXECUTE, a superuser with a hostile
-- search_path); with one call per batch it costs one GUC switch per worker transaction, not one
-- per record. mcp.audit_store (one record) is written fully schema-qualified and needs no SET,
-- so it stays an inlinable SQL function around the batch.
--
-- SET enable_seqscan = off: every row a record touches is found by a key (the run's end by
-- mcp.run's primary key, the foreign keys' checks by theirs), whatever the table's size when
-- the plan was made. The worker is a long-lived session: plpgsql keeps a generic plan made
-- after five calls, on a new install while mcp.run held a few rows, and that plan was a
-- sequential scan, kept as the table grew until autovacuum's next ANALYZE (every run's end read
-- the whole table: 184 pages per end at 10,000 runs; tests/pg/audit_rows.rs).

CREATE FUNCTION mcp.audit_store_batch(records jsonb) RETURNS bigint[]
LANGUAGE plpgsql STRICT VOLATILE
SET search_path = pg_catalog, pg_temp
SET enable_seqscan = off
AS $fn$
DECLARE
    record jsonb;
    r jsonb;
    id bigint;
    ids bigint[] := '{}';
BEGIN
    IF jsonb_typeof(records) IS DISTINCT FROM 'array' THEN
        RAISE EXCEPTION 'pg_mcp: an audit batch is a JSON array of records'
            USING ERRCODE = '22023';
    END IF;
    FOR record IN SELECT e.v FROM jsonb_array_elements(records) WITH ORDINALITY AS e(v, ord) ORDER BY e.ord LOOP
    r := record -> 'row';
    id := NULL;
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
    ids := ids || id;
    END LOOP;
    RETURN ids;
END
$fn$;
REVOKE ALL ON FUNCTION mcp.audit_store_batch(jsonb) FROM PUBLIC;
COMMENT ON FUNCTION mcp.audit_store_batch(jsonb) IS
  'The one writer of the audit tables (mcp.run, mcp.message, mcp.llm_request, mcp.tool_call, mcp.embedding_request): stores a JSON array of records {"k": kind, "row": columns} as pg_mcp makes them, in order, in the caller''s transaction or in the durable audit worker''s (one call per worker transaction). Returns, per record, the new call_id (tool_call) or request_id (embedding_request), else NULL. Not executable by PUBLIC (pg_mcp runs it as the extension owner).';

CREATE FUNCTION mcp.audit_store(record jsonb) RETURNS bigint
LANGUAGE sql STRICT VOLATILE
AS $fn$ SELECT (mcp.audit_store_batch(pg_catalog.jsonb_build_array(record)))[1] $fn$;
REVOKE ALL ON FUNCTION mcp.audit_store(jsonb) FROM PUBLIC;
COMMENT ON FUNCTION mcp.audit_store(jsonb) IS
  'Stores one audit record {"k": kind, "row": columns} (mcp.audit_store_batch of a one-record array), for SQL callers; pg_mcp itself calls mcp.audit_store_batch. Returns the new call_id (tool_call) or request_id (embedding_request), else NULL. Not executable by PUBLIC (pg_mcp runs it as the extension owner).';
