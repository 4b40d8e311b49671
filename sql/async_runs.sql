-- Asynchronous chat runs: the durable queue of mcp.chat_submit, read by mcp.chat_result and
-- mcp.chat_cancel, worked off by pg_mcp's chat workers (src/async_runs/). Runs after
-- governance.sql (it grants to mcp_auditor) and after the functions of src/api/async_runs.rs;
-- the update script 0.1.0 -> 0.2.0 includes it whole. docs/async-runs.md is the user's page.

CREATE TABLE mcp.async_run (
    run_id       uuid PRIMARY KEY,
    role_name    name NOT NULL,
    question     text NOT NULL,
    interface    text NOT NULL,
    session_id   uuid,
    options      jsonb NOT NULL DEFAULT '{}',
    status       text NOT NULL DEFAULT 'queued'
                 CONSTRAINT async_run_status_known
                 CHECK (status IN ('queued', 'running', 'done', 'error', 'cancelled', 'aborted')),
    result       jsonb,
    submitted_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    started_at   timestamptz,
    finished_at  timestamptz,
    worker_pid   integer,
    worker_start timestamptz,
    cancel_requested boolean NOT NULL DEFAULT false,
    traceparent  text,
    tracestate   text
);
-- The workers take the oldest queued run; the caps count the open runs, per role and in total.
CREATE INDEX async_run_queued_idx ON mcp.async_run (submitted_at) WHERE status = 'queued';
CREATE INDEX async_run_open_idx ON mcp.async_run (role_name) WHERE status IN ('queued', 'running');
COMMENT ON TABLE mcp.async_run IS 'One row per mcp.chat_submit(): the durable queue of asynchronous chat runs (committed with the submitting transaction) and, once a chat worker ran it, its result. The run''s audit (mcp.run, mcp.llm_request, mcp.tool_call, mcp.message) is the same as a synchronous mcp.chat''s, under the same run_id. Written only by pg_mcp (as the extension owner or a chat worker); every role reads its own rows.';
COMMENT ON COLUMN mcp.async_run.run_id IS 'The run: the id mcp.chat_submit returned, and the run_id of its mcp.run row once it started.';
COMMENT ON COLUMN mcp.async_run.role_name IS 'The submitting role (current_user of mcp.chat_submit): the role the chat worker runs the chat as, with its privileges and row-level security at the time the run executes.';
COMMENT ON COLUMN mcp.async_run.question IS 'The user question, as submitted.';
COMMENT ON COLUMN mcp.async_run.interface IS 'The interface, as submitted.';
COMMENT ON COLUMN mcp.async_run.session_id IS 'The session to continue (NULL: a new one), as submitted.';
COMMENT ON COLUMN mcp.async_run.options IS 'mcp.chat''s options, as submitted (checked for known keys and types at submit; against the interface''s limits when the run executes).';
COMMENT ON COLUMN mcp.async_run.status IS 'queued (committed, waiting for a chat worker), running (a chat worker runs it), done (result holds what mcp.chat would have returned), error (mcp.chat would have raised: result holds sqlstate and message), cancelled (mcp.chat_cancel before it started; a run cancelled while running ends done with result status cancelled), aborted (the server or the chat worker stopped while it ran; not resumed).';
COMMENT ON COLUMN mcp.async_run.result IS 'What mcp.chat_result returns once the run ended: the jsonb of mcp.chat (status done), or {"status": "error", "sqlstate", "message"}, {"status": "cancelled"} or {"status": "aborted", "error"}; each with run_id.';
COMMENT ON COLUMN mcp.async_run.submitted_at IS 'When mcp.chat_submit ran.';
COMMENT ON COLUMN mcp.async_run.started_at IS 'When a chat worker took the run.';
COMMENT ON COLUMN mcp.async_run.finished_at IS 'When the run ended (or was cancelled or marked aborted).';
COMMENT ON COLUMN mcp.async_run.worker_pid IS 'Process id of the chat worker running it.';
COMMENT ON COLUMN mcp.async_run.traceparent IS 'W3C traceparent of the submit (an MCP request''s _meta, else the setting mcp.traceparent; checked, NULL when none or invalid): the audit rows of the run (mcp.run, mcp.llm_request, mcp.tool_call) carry it, as a synchronous chat''s do.';
COMMENT ON COLUMN mcp.async_run.tracestate IS 'W3C tracestate of the submit, with traceparent (NULL without one).';
COMMENT ON COLUMN mcp.async_run.worker_start IS 'Start time of that worker process (with worker_pid: whether it still runs).';
COMMENT ON COLUMN mcp.async_run.cancel_requested IS 'mcp.chat_cancel asked the running run to stop.';

ALTER TABLE mcp.async_run ENABLE ROW LEVEL SECURITY;
CREATE POLICY async_run_own ON mcp.async_run FOR SELECT TO PUBLIC
    USING (role_name OPERATOR(pg_catalog.=) CURRENT_USER);
CREATE POLICY async_run_auditor ON mcp.async_run FOR SELECT TO mcp_auditor USING (true);
COMMENT ON POLICY async_run_own ON mcp.async_run IS 'Every role reads its own asynchronous runs (role_name = current_user).';
COMMENT ON POLICY async_run_auditor ON mcp.async_run IS 'mcp_auditor reads every asynchronous run.';
REVOKE ALL ON mcp.async_run FROM PUBLIC;
GRANT SELECT ON mcp.async_run TO PUBLIC;
GRANT SELECT ON mcp.async_run TO mcp_auditor;

COMMENT ON FUNCTION mcp.chat_submit(text, text, uuid, jsonb) IS
  'Queue one user turn for a chat worker and return its run_id at once: the run is committed with the calling transaction and runs as the calling role (its privileges and row-level security when the run executes). Refused with 53400 when the role or the database has as many open runs as mcp.chat_queue_max_per_role / mcp.chat_queue_max allow; needs shared_preload_libraries = ''pg_mcp'' and mcp.chat_workers > 0 (55000). Notifies channel mcp_run when the run starts and ends.';
COMMENT ON FUNCTION mcp.chat_result(uuid, integer) IS
  'The result of an asynchronous run: the same jsonb as mcp.chat once it ended (or {"status": "error" | "cancelled" | "aborted", ...}); before that {"status": "queued" | "running", "run_id"}, after waiting up to wait_ms milliseconds for the end (interruptible). Only the submitting role (or a role with its privileges) sees a run.';
COMMENT ON FUNCTION mcp.chat_cancel(uuid) IS
  'Stop an asynchronous run: a queued run is cancelled at once, a running one at its next wait (LLM request, between tool calls) and ends with status cancelled. The submitting role, a role with its privileges, or mcp_admin may cancel. True when the run was still open; takes effect at once (not undone by a ROLLBACK).';

-- mcp.run has an asynchronous run's row from its submit on (status queued; the rest as in
-- governance.sql).
COMMENT ON COLUMN mcp.run.status IS 'running, completed, needs_input, max_iterations, budget_exceeded, loop_detected, failed, cancelled, client_gone (the client closed its connection while the run waited; the run was stopped), deadline_exceeded (deadline_ms ran out, retries included), tool_choice_violated (tool_choice required a tool call; the model answered with text, also after one correction), truncated (the answer was cut off at the output token limit; answer holds the partial text), aborted (the backend ended before the run did: terminated, killed or crashed; set by the backend on its way out or by the audit worker), awaiting_approval (a tool call waits for mcp.approve / mcp.reject: see mcp.approval; the next mcp.chat of the session continues)., queued (an asynchronous run, mcp.chat_submit, that no chat worker has taken yet: started_at is its submit time until it starts, provider is NULL until then; see mcp.async_run)';
COMMENT ON COLUMN mcp.recent_runs.status IS 'running, completed, needs_input, max_iterations, budget_exceeded, loop_detected, failed, cancelled, client_gone (the client closed its connection while the run waited; the run was stopped), deadline_exceeded (deadline_ms ran out, retries included), tool_choice_violated (tool_choice required a tool call; the model answered with text, also after one correction), truncated (the answer was cut off at the output token limit; answer holds the partial text), aborted (the backend ended before the run did: terminated, killed or crashed; set by the backend on its way out or by the audit worker), awaiting_approval (a tool call waits for mcp.approve / mcp.reject: see mcp.approval; the next mcp.chat of the session continues)., queued (an asynchronous run, mcp.chat_submit, that no chat worker has taken yet: started_at is its submit time until it starts, provider is NULL until then; see mcp.async_run)';
COMMENT ON COLUMN mcp.my_runs.status IS 'How the run ended (mcp.run.status); queued or running while an asynchronous run is open.';
