-- Governance: the roles pg_mcp ships, every role's own runs through row-level security, the
-- access gate of embedding models, tools that act, and approvals bound to the exact call.
-- Runs after every other install file but finalize.sql (see src/api/governance.rs); the update
-- script 0.1.0 -> 0.2.0 includes it whole (sql/updates/pg_mcp--0.1.0--0.2.0.sql.in).
-- docs/governance.md is the user's page.

------------------------------------------------------------------------------------------------
-- Shipped roles, in the style of PostgreSQL's pg_* predefined roles: NOLOGIN, made by CREATE
-- EXTENSION when missing. Roles belong to the cluster, not to a database: a second database's
-- CREATE EXTENSION, and a restore (pg_restore runs CREATE EXTENSION), find them and only grant
-- to them. DROP EXTENSION leaves them (another database may use them).
------------------------------------------------------------------------------------------------
DO $$
DECLARE
    r text;
BEGIN
    FOREACH r IN ARRAY ARRAY['mcp_admin', 'mcp_auditor', 'mcp_approver'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) r) THEN
            EXECUTE pg_catalog.format('CREATE ROLE %I NOLOGIN', r);
        END IF;
    END LOOP;
END
$$;
COMMENT ON ROLE mcp_admin IS 'pg_mcp: writes the registry (providers, interfaces, tools, resources, prompts, embedding models, collections, plans, thesaurus, budgets). Grant it to the people who run an admin UI.';
COMMENT ON ROLE mcp_auditor IS 'pg_mcp: reads every audit table and view (runs, LLM requests, tool calls, messages, approvals, budget counters) of every role.';
COMMENT ON ROLE mcp_approver IS 'pg_mcp: decides pending tool calls with mcp.approve and mcp.reject.';

-- mcp_admin: the registry. Interface managers (UPDATE on mcp.interface) may use every interface
-- and lift limits per chat; provider managers set API keys (mcp.set_api_key).
GRANT INSERT, UPDATE, DELETE ON mcp.provider, mcp.interface, mcp.tool, mcp.interface_tool,
      mcp.resource, mcp.prompt, mcp.embedding_model, mcp.collection,
      mcp.thesaurus_term, mcp.thesaurus_relation, mcp.entity_source, mcp.plan, mcp.plan_step
   TO mcp_admin;
GRANT SELECT, INSERT, UPDATE, DELETE ON mcp.document, mcp.chunk TO mcp_admin;
-- kept by the trigger on mcp.thesaurus_term, which writes them as the role that loads the thesaurus
GRANT INSERT, UPDATE, DELETE ON mcp.thesaurus_label, mcp.thesaurus_variant TO mcp_admin;
-- the bridge's OAuth scope mapping (not readable by PUBLIC: which scope becomes which role)
GRANT SELECT, INSERT, UPDATE, DELETE ON mcp.oauth_scope_role TO mcp_admin;

-- mcp_auditor: every audit table and view.
GRANT SELECT ON mcp.run, mcp.llm_request, mcp.tool_call, mcp.message, mcp.embedding_request,
      mcp.recent_runs, mcp.tool_error_rates
   TO mcp_auditor;
GRANT EXECUTE ON FUNCTION mcp.audit_status() TO mcp_auditor;

------------------------------------------------------------------------------------------------
-- Every role reads its own runs, tool calls and messages; nobody else's. pg_mcp writes these
-- tables as the extension owner (or the audit worker), which row-level security does not
-- restrict. The operator-only error detail of a tool call stays unreadable (column grants).
------------------------------------------------------------------------------------------------
ALTER TABLE mcp.run ENABLE ROW LEVEL SECURITY;
ALTER TABLE mcp.tool_call ENABLE ROW LEVEL SECURITY;
ALTER TABLE mcp.message ENABLE ROW LEVEL SECURITY;
CREATE POLICY run_own ON mcp.run FOR SELECT TO PUBLIC
    USING (role_name OPERATOR(pg_catalog.=) CURRENT_USER);
CREATE POLICY run_auditor ON mcp.run FOR SELECT TO mcp_auditor USING (true);
CREATE POLICY tool_call_own ON mcp.tool_call FOR SELECT TO PUBLIC
    USING (role_name OPERATOR(pg_catalog.=) CURRENT_USER);
CREATE POLICY tool_call_auditor ON mcp.tool_call FOR SELECT TO mcp_auditor USING (true);
CREATE POLICY message_own ON mcp.message FOR SELECT TO PUBLIC
    USING (EXISTS (SELECT 1 FROM mcp.run r
                    WHERE r.run_id OPERATOR(pg_catalog.=) message.run_id
                      AND r.role_name OPERATOR(pg_catalog.=) CURRENT_USER));
CREATE POLICY message_auditor ON mcp.message FOR SELECT TO mcp_auditor USING (true);
COMMENT ON POLICY run_own ON mcp.run IS 'Every role reads its own runs (role_name = current_user).';
COMMENT ON POLICY run_auditor ON mcp.run IS 'mcp_auditor reads every run.';
COMMENT ON POLICY tool_call_own ON mcp.tool_call IS 'Every role reads the tool calls it ran.';
COMMENT ON POLICY tool_call_auditor ON mcp.tool_call IS 'mcp_auditor reads every tool call.';
COMMENT ON POLICY message_own ON mcp.message IS 'Every role reads the messages of its own runs.';
COMMENT ON POLICY message_auditor ON mcp.message IS 'mcp_auditor reads every message.';
GRANT SELECT ON mcp.run, mcp.message TO PUBLIC;
GRANT SELECT (call_id, run_id, tool_call_id, tool, interface, role_name, arguments_raw, arguments,
              validation_errors, status, result_size, result_preview, latency_ms, created_at, clipped)
   ON mcp.tool_call TO PUBLIC;

CREATE VIEW mcp.my_runs WITH (security_invoker = true) AS
SELECT r.run_id, r.session_id, r.interface, r.provider, r.question, r.status, r.answer,
       r.iterations, r.prompt_tokens, r.completion_tokens, r.error, r.started_at, r.finished_at
  FROM mcp.run r
 WHERE r.role_name OPERATOR(pg_catalog.=) CURRENT_USER;
COMMENT ON VIEW mcp.my_runs IS 'The calling role''s own chat runs, newest last by started_at (row-level security of mcp.run; also for superusers and auditors, who could read every run in mcp.run).';
COMMENT ON COLUMN mcp.my_runs.run_id IS 'The run (mcp.run.run_id).';
COMMENT ON COLUMN mcp.my_runs.session_id IS 'The conversation; continue it with mcp.chat(question, interface, session_id).';
COMMENT ON COLUMN mcp.my_runs.interface IS 'Interface used.';
COMMENT ON COLUMN mcp.my_runs.provider IS 'Provider used.';
COMMENT ON COLUMN mcp.my_runs.question IS 'The question.';
COMMENT ON COLUMN mcp.my_runs.status IS 'How the run ended (mcp.run.status).';
COMMENT ON COLUMN mcp.my_runs.answer IS 'The answer.';
COMMENT ON COLUMN mcp.my_runs.iterations IS 'LLM round trips.';
COMMENT ON COLUMN mcp.my_runs.prompt_tokens IS 'Prompt tokens over all requests.';
COMMENT ON COLUMN mcp.my_runs.completion_tokens IS 'Completion tokens over all requests.';
COMMENT ON COLUMN mcp.my_runs.error IS 'Normalized error when the run did not complete.';
COMMENT ON COLUMN mcp.my_runs.started_at IS 'Start time.';
COMMENT ON COLUMN mcp.my_runs.finished_at IS 'End time.';
GRANT SELECT ON mcp.my_runs TO PUBLIC;

------------------------------------------------------------------------------------------------
-- Embedding models: an access gate like interfaces (a model of kind openai spends a provider's
-- key). Checked by mcp.embed, mcp.ingest, mcp.search, mcp.analyze (through mcp.embed) and the
-- search tools and context_retrieve.
------------------------------------------------------------------------------------------------
ALTER TABLE mcp.embedding_model ADD COLUMN access_role text;
COMMENT ON COLUMN mcp.embedding_model.access_role IS 'Who may embed with the model (mcp.embed, mcp.ingest, mcp.search, context_retrieve, the embedding signal of mcp.analyze): roles with the privileges of this role, ''public'' = every role, NULL (the default) = closed: only superusers and roles with UPDATE on mcp.embedding_model.';

CREATE FUNCTION mcp.embedding_model_access_check() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF NEW.access_role IS NOT NULL AND NEW.access_role OPERATOR(pg_catalog.<>) 'public'
       AND (TG_OP OPERATOR(pg_catalog.=) 'INSERT' OR NEW.access_role IS DISTINCT FROM OLD.access_role)
       AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) NEW.access_role) THEN
        RAISE EXCEPTION 'embedding model "%" refused: access_role "%" is not a role', NEW.name, NEW.access_role
            USING ERRCODE = '42704',
                  HINT = 'Name an existing role (roles with its privileges may use the model), ''public'' for every role, or NULL to close the model.';
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION mcp.embedding_model_access_check() IS
  'Trigger: refuses an embedding model whose access_role is neither NULL, ''public'' nor an existing role.';
CREATE TRIGGER embedding_model_access_check BEFORE INSERT OR UPDATE ON mcp.embedding_model
    FOR EACH ROW EXECUTE FUNCTION mcp.embedding_model_access_check();

------------------------------------------------------------------------------------------------
-- Tools that act: read_only = false. An interface offers them only when it allows them, and the
-- model's calls of such a tool wait for an approval unless the tool says otherwise.
------------------------------------------------------------------------------------------------
ALTER TABLE mcp.tool ADD COLUMN requires_approval boolean;
COMMENT ON COLUMN mcp.tool.requires_approval IS 'A call the model makes in mcp.chat waits for mcp.approve / mcp.reject (run status awaiting_approval). NULL (the default) = true for a tool that acts (read_only = false), false for a read-only tool. An MCP tools/call of it waits too: it is answered with a URL-mode elicitation pointing to the console''s approval page (mcp.approval row without a run) and runs on the client''s retry once a person approved it. mcp.call_tool from SQL is the caller''s own decision and runs at once.';
ALTER TABLE mcp.interface ADD COLUMN allow_acting_tools boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN mcp.interface.allow_acting_tools IS 'Whether the interface offers (and runs) tools that act (mcp.tool.read_only = false); false (the default) hides them from mcp.chat, mcp.list_tools, mcp.call_tool and MCP tools/list.';
ALTER TABLE mcp.interface ADD COLUMN allow_self_approval boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN mcp.interface.allow_self_approval IS 'Whether an approver may decide the pending calls of its own runs in this interface (false, the default: another person must).';

------------------------------------------------------------------------------------------------
-- Approvals: one row per tool call that waits for a decision. The arguments that were
-- validated are stored here, with the digest of (tool, canonical arguments): the call that runs
-- after an approval is exactly this one, whatever the session's history says by then.
------------------------------------------------------------------------------------------------
CREATE TABLE mcp.approval (
    approval_id     uuid NOT NULL DEFAULT pg_catalog.gen_random_uuid() PRIMARY KEY,
    run_id          uuid,
    tool_call_id    text NOT NULL,
    session_id      uuid,
    interface       text NOT NULL,
    role_name       name NOT NULL,
    tool            text NOT NULL,
    arguments       text NOT NULL,
    digest          text NOT NULL CONSTRAINT approval_digest_format CHECK (digest ~ '^[0-9a-f]{64}$'),
    position        integer,
    status          text NOT NULL DEFAULT 'pending'
                    CONSTRAINT approval_status_known CHECK (status IN ('pending', 'approved', 'rejected', 'expired')),
    requested_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    expires_at      timestamptz NOT NULL,
    decided_by      name,
    decided_at      timestamptz,
    reason          text,
    continued_by    uuid,
    continued_at    timestamptz,
    request_id      text CONSTRAINT approval_request_id_length CHECK (length(request_id) <= 200),
    traceparent     text,
    CONSTRAINT approval_call_of_a_run UNIQUE (run_id, tool_call_id),
    -- a chat run's call has its run, session and position; a direct MCP tools/call has none
    CONSTRAINT approval_run_or_direct CHECK ((run_id IS NULL) = (session_id IS NULL) AND (run_id IS NULL) = (position IS NULL)),
    CONSTRAINT approval_decision_complete CHECK ((status IN ('pending', 'expired')) = (decided_at IS NULL))
);
CREATE INDEX approval_session_idx ON mcp.approval (session_id) WHERE continued_by IS NULL;
CREATE INDEX approval_pending_idx ON mcp.approval (requested_at) WHERE status = 'pending';
-- the open approval of a direct call: found again by who asked for exactly what
CREATE INDEX approval_direct_idx ON mcp.approval (role_name, digest) WHERE run_id IS NULL AND continued_at IS NULL;
COMMENT ON TABLE mcp.approval IS 'Tool calls that wait for (or got) a person''s decision: calls the model made in an mcp.chat run (run_id set), and direct MCP tools/call requests of a tool that requires approval (run_id NULL). mcp.approve / mcp.reject record who decided, when, and for which digest; the next mcp.chat of the session runs the approved calls of a run with these arguments as the run''s own role and returns the rejected ones to the model as tool errors; the MCP client''s retry of a direct call runs it once approved. Written by pg_mcp only; readable by mcp_approver and mcp_auditor, and by each role for its own calls.';
COMMENT ON COLUMN mcp.approval.approval_id IS 'The approval''s id: mcp.approve(approval_id) / mcp.reject(approval_id, reason) decide it, the console shows it at /console/approvals#<approval_id>, and a direct call''s URL-mode elicitation names it (elicitationId).';
COMMENT ON COLUMN mcp.approval.run_id IS 'The run that stopped with status awaiting_approval; NULL for a direct MCP tools/call.';
COMMENT ON COLUMN mcp.approval.tool_call_id IS 'The model''s tool_call id (pass it to mcp.approve / mcp.reject as call_id); for a direct call the approval id as text (the id of its mcp.tool_call row).';
COMMENT ON COLUMN mcp.approval.session_id IS 'The conversation; the next mcp.chat of it continues the run. NULL for a direct call.';
COMMENT ON COLUMN mcp.approval.interface IS 'Interface of the run, or of the MCP request (mcp.interface).';
COMMENT ON COLUMN mcp.approval.role_name IS 'The requesting role (the run''s, or current_user of the MCP request): the approved call runs as this role, never as the approver, and only this role''s retry runs a direct call.';
COMMENT ON COLUMN mcp.approval.tool IS 'The tool to run.';
COMMENT ON COLUMN mcp.approval.arguments IS 'The validated arguments as canonical JSON text (object keys sorted, no whitespace): exactly what runs after an approval.';
COMMENT ON COLUMN mcp.approval.digest IS 'Hex SHA-256 of tool name, a NUL byte and arguments: what the approver decided on (mcp.approve / mcp.reject return it, mcp.approval_digest computes it).';
COMMENT ON COLUMN mcp.approval.position IS 'Order of the call in the model''s answer; NULL for a direct call.';
COMMENT ON COLUMN mcp.approval.status IS 'pending, approved, rejected, or expired (no decision within mcp.approval_timeout).';
COMMENT ON COLUMN mcp.approval.requested_at IS 'When the run stopped for the decision, or the direct call asked for it.';
COMMENT ON COLUMN mcp.approval.expires_at IS 'Until when a decision is accepted (requested_at + mcp.approval_timeout); later the call is answered to the model as expired. A direct call must also be retried before it: an approval is not kept for later.';
COMMENT ON COLUMN mcp.approval.decided_by IS 'The role that approved or rejected (current_user of mcp.approve / mcp.reject).';
COMMENT ON COLUMN mcp.approval.decided_at IS 'When it was decided.';
COMMENT ON COLUMN mcp.approval.reason IS 'The rejection''s reason, sent to the model with the tool error.';
COMMENT ON COLUMN mcp.approval.continued_by IS 'The run that carried the decision out (ran the call or returned the rejection to the model); NULL for a direct call.';
COMMENT ON COLUMN mcp.approval.continued_at IS 'When that run did, or when the client''s retry of a direct call ran it (or was told it was rejected or expired): a direct approval is used once.';
COMMENT ON COLUMN mcp.approval.request_id IS 'A direct call: the JSON-RPC id of the MCP tools/call that asked (as JSON text). NULL for a run''s call.';
COMMENT ON COLUMN mcp.approval.traceparent IS 'A direct call: the W3C traceparent of the MCP request that asked (params._meta.traceparent, when valid).';
ALTER TABLE mcp.approval ENABLE ROW LEVEL SECURITY;
CREATE POLICY approval_own ON mcp.approval FOR SELECT TO PUBLIC
    USING (role_name OPERATOR(pg_catalog.=) CURRENT_USER);
CREATE POLICY approval_approver ON mcp.approval FOR SELECT TO mcp_approver, mcp_auditor USING (true);
COMMENT ON POLICY approval_own ON mcp.approval IS 'Every role reads the approvals of its own runs and direct calls.';
COMMENT ON POLICY approval_approver ON mcp.approval IS 'mcp_approver and mcp_auditor read every approval.';
GRANT SELECT ON mcp.approval TO PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('mcp.approval', '');

COMMENT ON FUNCTION mcp.approval_digest(text, jsonb) IS
  'The digest of a call as mcp.approval records it: hex SHA-256 of the tool name, a NUL byte and the canonical JSON text of the arguments (object keys sorted bytewise, no whitespace, as mcp.audit_digest hashes jsonb).';

REVOKE ALL ON FUNCTION mcp.approve(uuid, text), mcp.reject(uuid, text, text), mcp.approve(uuid), mcp.reject(uuid, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mcp.approve(uuid, text), mcp.reject(uuid, text, text), mcp.approve(uuid), mcp.reject(uuid, text) TO mcp_approver;
COMMENT ON FUNCTION mcp.approve(uuid, text) IS
  'Approves a pending tool call of a run in status awaiting_approval: returns {run_id, call_id, tool, arguments, digest, status, decided_by, decided_at}. Only for mcp_approver members (42501), not for the run''s own role unless the interface allows self-approval (42501), only while pending and before expires_at (55000).';
COMMENT ON FUNCTION mcp.reject(uuid, text, text) IS
  'Rejects a pending tool call (the reason goes back to the model as the tool''s error when the session continues). Same rules and answer as mcp.approve.';
COMMENT ON FUNCTION mcp.approve(uuid) IS
  'Approves a pending call by its approval_id: a direct MCP tools/call (the client''s retry then runs it, once) or a run''s call. Same rules as mcp.approve(run_id, call_id): mcp_approver only, not the requesting role unless the interface allows self-approval, only while pending and before expires_at. Returns the decided row with approval_id.';
COMMENT ON FUNCTION mcp.reject(uuid, text) IS
  'Rejects a pending call by its approval_id; the reason is shown to the client (a direct call) or the model (a run''s call). Same rules and answer as mcp.approve(approval_id).';

------------------------------------------------------------------------------------------------
-- Budgets and rate limits per role and per interface, checked before each LLM request of a chat.
-- The counters are in shared memory (src/chat/budget.rs): exact under concurrency, not undone by
-- a rollback, and the check never reads the audit tables. mcp.budget_usage() shows them.
------------------------------------------------------------------------------------------------
CREATE TABLE mcp.budget (
    scope           text NOT NULL CONSTRAINT budget_scope_known CHECK (scope IN ('role', 'interface')),
    name            text NOT NULL CONSTRAINT budget_name_length CHECK (length(name) BETWEEN 1 AND 64),
    tokens_per_day  bigint CONSTRAINT budget_tokens_positive CHECK (tokens_per_day IS NULL OR tokens_per_day > 0),
    cost_per_day    numeric CONSTRAINT budget_cost_positive CHECK (cost_per_day IS NULL OR cost_per_day > 0),
    requests_per_minute integer CONSTRAINT budget_requests_positive CHECK (requests_per_minute IS NULL OR requests_per_minute > 0),
    description     text,
    PRIMARY KEY (scope, name)
);
COMMENT ON TABLE mcp.budget IS 'Limits of LLM use per role (the role that runs mcp.chat, by name) and per interface. Checked before each LLM request; a run that reaches one ends with status budget_exceeded and a message naming the limit, its value and when it resets. Needs shared_preload_libraries = ''pg_mcp'' (counters in shared memory, from zero at server start).';
COMMENT ON COLUMN mcp.budget.scope IS 'role or interface.';
COMMENT ON COLUMN mcp.budget.name IS 'The role''s name (the chat''s current_user) or the interface''s name.';
COMMENT ON COLUMN mcp.budget.tokens_per_day IS 'Prompt + completion tokens per UTC day; a request starts only while fewer were used. NULL = no limit.';
COMMENT ON COLUMN mcp.budget.cost_per_day IS 'Cost per UTC day from the providers'' price_per_1k_prompt / price_per_1k_completion options; a request starts only while less was spent. NULL = no limit.';
COMMENT ON COLUMN mcp.budget.requests_per_minute IS 'LLM requests per minute (chat and summary requests); exact under any number of concurrent sessions. NULL = no limit.';
COMMENT ON COLUMN mcp.budget.description IS 'Free text for admins.';
GRANT SELECT ON mcp.budget TO PUBLIC;
GRANT INSERT, UPDATE, DELETE ON mcp.budget TO mcp_admin;
SELECT pg_catalog.pg_extension_config_dump('mcp.budget', '');
REVOKE ALL ON FUNCTION mcp.budget_usage() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mcp.budget_usage() TO mcp_auditor;
COMMENT ON FUNCTION mcp.budget_usage() IS
  'The budget counters since the server started: per budget (scope, name) the tokens and cost of the current UTC day and the requests of the current minute. For mcp_auditor.';

-- The run status of a call that waits (the rest as in bootstrap.sql).
COMMENT ON COLUMN mcp.run.status IS 'running, completed, needs_input, max_iterations, budget_exceeded, loop_detected, failed, cancelled, client_gone (the client closed its connection while the run waited; the run was stopped), deadline_exceeded (deadline_ms ran out, retries included), tool_choice_violated (tool_choice required a tool call; the model answered with text, also after one correction), truncated (the answer was cut off at the output token limit; answer holds the partial text), aborted (the backend ended before the run did: terminated, killed or crashed; set by the backend on its way out or by the audit worker), awaiting_approval (a tool call waits for mcp.approve / mcp.reject: see mcp.approval; the next mcp.chat of the session continues).';
COMMENT ON COLUMN mcp.recent_runs.status IS 'running, completed, needs_input, max_iterations, budget_exceeded, loop_detected, failed, cancelled, client_gone (the client closed its connection while the run waited; the run was stopped), deadline_exceeded (deadline_ms ran out, retries included), tool_choice_violated (tool_choice required a tool call; the model answered with text, also after one correction), truncated (the answer was cut off at the output token limit; answer holds the partial text), aborted (the backend ended before the run did: terminated, killed or crashed; set by the backend on its way out or by the audit worker), awaiting_approval (a tool call waits for mcp.approve / mcp.reject: see mcp.approval; the next mcp.chat of the session continues).';
