-- pg_mcp operator views over the audit tables (runs after bootstrap.sql, before finalize.sql,
-- which revokes them from PUBLIC like the tables they read).

-- recent_runs is read newest first, usually with a LIMIT: this index serves that order.
CREATE INDEX run_started_idx ON mcp.run (started_at DESC);

------------------------------------------------------------------------------------------------
-- mcp.recent_runs: one row per chat run with its counts, tokens, cost and where the time went
------------------------------------------------------------------------------------------------
CREATE VIEW mcp.recent_runs AS
SELECT r.run_id,
       r.session_id,
       r.started_at,
       r.finished_at,
       r.interface,
       r.provider,
       r.role_name,
       r.status,
       left(r.question, 200) AS question,
       r.iterations,
       coalesce(l.llm_requests, 0) AS llm_requests,
       coalesce(l.llm_retries, 0) AS llm_retries,
       coalesce(t.tool_calls, 0) AS tool_calls,
       coalesce(t.tool_errors, 0) AS tool_errors,
       coalesce(t.rejected_tool_calls, 0) AS rejected_tool_calls,
       r.prompt_tokens,
       r.completion_tokens,
       r.prompt_tokens + r.completion_tokens AS total_tokens,
       CASE WHEN pr.prompt_price IS NOT NULL OR pr.completion_price IS NOT NULL THEN
            round((r.prompt_tokens * coalesce(pr.prompt_price, 0)
                   + r.completion_tokens * coalesce(pr.completion_price, 0)) / 1000.0, 6)
       END AS estimated_cost,
       round(coalesce(l.llm_ms, 0)::numeric, 3) AS llm_latency_ms,
       round(coalesce(t.tool_ms, 0)::numeric, 3) AS tool_latency_ms,
       round((extract(epoch FROM r.finished_at - r.started_at) * 1000)::numeric, 3) AS wall_ms,
       round((extract(epoch FROM r.finished_at - r.started_at) * 1000
              - coalesce(l.llm_ms, 0) - coalesce(t.tool_ms, 0))::numeric, 3) AS orchestration_ms,
       r.error ->> 'kind' AS error_kind,
       r.error ->> 'message' AS error_message,
       r.plan ->> 'plan' AS plan,
       (r.plan ->> 'score')::numeric AS plan_score,
       r.plan AS plan_detail
  FROM mcp.run r
  LEFT JOIN LATERAL (
        SELECT count(*) AS llm_requests,
               sum(greatest(coalesce(q.attempts, 1) - 1, 0)) AS llm_retries,
               sum(q.latency_ms) AS llm_ms
          FROM mcp.llm_request q
         WHERE q.run_id = r.run_id) l ON true
  LEFT JOIN LATERAL (
        SELECT count(*) FILTER (WHERE c.status IN ('ok', 'error')) AS tool_calls,
               count(*) FILTER (WHERE c.status = 'error') AS tool_errors,
               count(*) FILTER (WHERE c.status NOT IN ('ok', 'error')) AS rejected_tool_calls,
               sum(c.latency_ms) AS tool_ms
          FROM mcp.tool_call c
         WHERE c.run_id = r.run_id) t ON true
  LEFT JOIN LATERAL (
        SELECT (p.options ->> 'price_per_1k_prompt')::numeric AS prompt_price,
               (p.options ->> 'price_per_1k_completion')::numeric AS completion_price
          FROM mcp.provider p
         WHERE p.name = r.provider) pr ON true
 ORDER BY r.started_at DESC;

COMMENT ON VIEW mcp.recent_runs IS
  'Operator view: chat runs newest first (add LIMIT or WHERE started_at > …) with counts, tokens, estimated cost and where the wall time went. Not readable by PUBLIC, like the audit tables it reads.';
COMMENT ON COLUMN mcp.recent_runs.run_id IS 'The run (mcp.run.run_id).';
COMMENT ON COLUMN mcp.recent_runs.session_id IS 'Conversation the run belongs to.';
COMMENT ON COLUMN mcp.recent_runs.started_at IS 'Start time.';
COMMENT ON COLUMN mcp.recent_runs.finished_at IS 'End time; NULL while running.';
COMMENT ON COLUMN mcp.recent_runs.interface IS 'Interface used.';
COMMENT ON COLUMN mcp.recent_runs.provider IS 'Provider used.';
COMMENT ON COLUMN mcp.recent_runs.role_name IS 'Role that ran the chat.';
COMMENT ON COLUMN mcp.recent_runs.status IS 'running, completed, needs_input, max_iterations, budget_exceeded, loop_detected, failed, cancelled, client_gone (the client closed its connection while the run waited; the run was stopped), deadline_exceeded (deadline_ms ran out, retries included), tool_choice_violated (tool_choice required a tool call; the model answered with text, also after one correction), truncated (the answer was cut off at the output token limit; answer holds the partial text), aborted (the backend ended before the run did: terminated, killed or crashed; set by the backend on its way out or by the audit worker).';
COMMENT ON COLUMN mcp.recent_runs.question IS 'The user question, first 200 characters.';
COMMENT ON COLUMN mcp.recent_runs.iterations IS 'LLM round trips of the chat cycle (summaries not counted).';
COMMENT ON COLUMN mcp.recent_runs.llm_requests IS 'Rows in mcp.llm_request (chat and summary requests).';
COMMENT ON COLUMN mcp.recent_runs.llm_retries IS 'HTTP retries over all LLM requests (attempts beyond the first).';
COMMENT ON COLUMN mcp.recent_runs.tool_calls IS 'Tool calls executed (status ok or error).';
COMMENT ON COLUMN mcp.recent_runs.tool_errors IS 'Executed tool calls that raised (status error).';
COMMENT ON COLUMN mcp.recent_runs.rejected_tool_calls IS 'Tool calls answered without execution (invalid, denied, skipped).';
COMMENT ON COLUMN mcp.recent_runs.prompt_tokens IS 'Prompt tokens over all requests, as reported by the provider (or estimated).';
COMMENT ON COLUMN mcp.recent_runs.completion_tokens IS 'Completion tokens over all requests.';
COMMENT ON COLUMN mcp.recent_runs.total_tokens IS 'prompt_tokens + completion_tokens.';
COMMENT ON COLUMN mcp.recent_runs.estimated_cost IS 'Tokens priced with the provider''s CURRENT options price_per_1k_prompt / price_per_1k_completion (a missing one counts as 0); NULL when the provider has neither.';
COMMENT ON COLUMN mcp.recent_runs.llm_latency_ms IS 'Time spent in LLM requests (retries and backoff included).';
COMMENT ON COLUMN mcp.recent_runs.tool_latency_ms IS 'Time spent executing tool calls.';
COMMENT ON COLUMN mcp.recent_runs.wall_ms IS 'finished_at - started_at; NULL while running.';
COMMENT ON COLUMN mcp.recent_runs.orchestration_ms IS 'wall_ms - llm_latency_ms - tool_latency_ms: pg_mcp''s own work (prompt assembly, validation, token counting, audit rows).';
COMMENT ON COLUMN mcp.recent_runs.error_kind IS 'Kind of the normalized error (rate_limited, auth, server, network, timeout, budget_exceeded, …); NULL when none.';
COMMENT ON COLUMN mcp.recent_runs.error_message IS 'Message of the normalized error (never holds an API key).';
COMMENT ON COLUMN mcp.recent_runs.plan IS 'Execution plan chosen for the run (NULL: no plan, or none scored high enough).';
COMMENT ON COLUMN mcp.recent_runs.plan_score IS 'Its score in the analysis (0 .. 1).';
COMMENT ON COLUMN mcp.recent_runs.plan_detail IS 'mcp.run.plan: entities found, the best plan, the steps taken.';

------------------------------------------------------------------------------------------------
-- mcp.tool_error_rates: per tool, how often it is called, fails, is refused, and how slow it is
------------------------------------------------------------------------------------------------
CREATE VIEW mcp.tool_error_rates AS
SELECT c.tool,
       count(*) AS calls,
       count(*) FILTER (WHERE c.status = 'ok') AS ok,
       count(*) FILTER (WHERE c.status = 'error') AS error,
       count(*) FILTER (WHERE c.status = 'invalid') AS invalid,
       count(*) FILTER (WHERE c.status = 'denied') AS denied,
       count(*) FILTER (WHERE c.status = 'skipped') AS skipped,
       round(count(*) FILTER (WHERE c.status = 'error')::numeric
             / nullif(count(*) FILTER (WHERE c.status IN ('ok', 'error')), 0), 4) AS error_rate,
       round(count(*) FILTER (WHERE c.status IN ('error', 'invalid', 'denied'))::numeric
             / nullif(count(*) FILTER (WHERE c.status <> 'skipped'), 0), 4) AS failure_rate,
       round((avg(c.latency_ms) FILTER (WHERE c.status IN ('ok', 'error')))::numeric, 3) AS avg_latency_ms,
       round((percentile_cont(0.95) WITHIN GROUP (ORDER BY c.latency_ms)
              FILTER (WHERE c.status IN ('ok', 'error')))::numeric, 3) AS p95_latency_ms,
       max(c.created_at) FILTER (WHERE c.status = 'error') AS last_error_at,
       max(c.created_at) AS last_call_at
  FROM mcp.tool_call c
 GROUP BY c.tool;

COMMENT ON VIEW mcp.tool_error_rates IS
  'Operator view: per tool over the whole mcp.tool_call history (chat and direct mcp.call_tool), calls by status, error rates and latency. Not readable by PUBLIC, like the audit tables it reads.';
COMMENT ON COLUMN mcp.tool_error_rates.tool IS 'Tool name as requested.';
COMMENT ON COLUMN mcp.tool_error_rates.calls IS 'All recorded calls.';
COMMENT ON COLUMN mcp.tool_error_rates.ok IS 'Calls that returned a result.';
COMMENT ON COLUMN mcp.tool_error_rates.error IS 'Calls whose function raised (detail in mcp.tool_call.error_message).';
COMMENT ON COLUMN mcp.tool_error_rates.invalid IS 'Calls refused for invalid or incomplete arguments (sent back to the model as a correction).';
COMMENT ON COLUMN mcp.tool_error_rates.denied IS 'Calls refused: tool not available to the role or interface, unknown, or made while tool_choice was none.';
COMMENT ON COLUMN mcp.tool_error_rates.skipped IS 'Calls not executed because the run stopped (iteration cap, token budget, loop, cancel).';
COMMENT ON COLUMN mcp.tool_error_rates.error_rate IS 'error / (ok + error): how often the tool itself fails when it runs; NULL when it never ran.';
COMMENT ON COLUMN mcp.tool_error_rates.failure_rate IS '(error + invalid + denied) / (calls - skipped): how often a request for the tool did not give a result.';
COMMENT ON COLUMN mcp.tool_error_rates.avg_latency_ms IS 'Mean latency of executed calls (ok, error).';
COMMENT ON COLUMN mcp.tool_error_rates.p95_latency_ms IS '95th percentile (interpolated) latency of executed calls (ok, error).';
COMMENT ON COLUMN mcp.tool_error_rates.last_error_at IS 'When the tool last raised; NULL when never.';
COMMENT ON COLUMN mcp.tool_error_rates.last_call_at IS 'When the tool was last called.';
