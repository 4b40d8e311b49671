-- mcp.recent_runs: one row per chat run with its counts, tokens, cost and where the time went.
\set VERBOSITY terse
BEGIN;
-- Durable audit is on: the audit rows of earlier files, committed by the worker, outlast their
-- ROLLBACK. This file sees only its own (the deletion goes with its ROLLBACK).
WITH r AS (DELETE FROM mcp.run), l AS (DELETE FROM mcp.llm_request),
     t AS (DELETE FROM mcp.tool_call), m AS (DELETE FROM mcp.message) SELECT;
SET LOCAL TimeZone = 'UTC';
-- Two providers, one with prices (pg_mcp's own options keys, never sent to the model).
INSERT INTO mcp.provider (name, kind, model, options) VALUES
  ('priced', 'replay', 'r1', '{"price_per_1k_prompt": 0.5, "price_per_1k_completion": 1.5}'),
  ('free', 'replay', 'r2', '{}');
-- a price must be a number >= 0
SAVEPOINT s;
UPDATE mcp.provider SET options = '{"price_per_1k_prompt": "cheap"}' WHERE name = 'free';
ROLLBACK TO s;
UPDATE mcp.provider SET options = '{"price_per_1k_completion": -0.1}' WHERE name = 'free';
ROLLBACK TO s;
-- Audit rows with known numbers: a completed run, a failed one, one still running.
INSERT INTO mcp.run (run_id, session_id, interface, provider, role_name, question, status, iterations,
                     prompt_tokens, completion_tokens, error, started_at, finished_at) VALUES
  ('00000000-0000-0000-0000-000000000001', '10000000-0000-0000-0000-000000000001', 'chatbot', 'priced', 'alice',
   'Welche Tarifverträge gelten in Bayern?', 'completed', 2, 1200, 300, NULL,
   '2024-01-01 10:00:00+00', '2024-01-01 10:00:02.5+00'),
  ('00000000-0000-0000-0000-000000000002', '10000000-0000-0000-0000-000000000002', 'chatbot', 'free', 'bob',
   'Hallo', 'failed', 1, 100, 0, '{"kind": "rate_limited", "message": "Rate limit reached", "http_status": 429}',
   '2024-01-01 11:00:00+00', '2024-01-01 11:00:07+00'),
  ('00000000-0000-0000-0000-000000000003', '10000000-0000-0000-0000-000000000003', 'analysis', 'priced', 'alice',
   repeat('lange Frage ', 30), 'running', 0, 0, 0, NULL, '2024-01-01 12:00:00+00', NULL);
INSERT INTO mcp.llm_request (run_id, iteration, purpose, latency_ms, attempts, prompt_tokens, completion_tokens) VALUES
  ('00000000-0000-0000-0000-000000000001', 1, 'chat', 800, 1, 500, 100),
  ('00000000-0000-0000-0000-000000000001', 2, 'chat', 1200, 2, 700, 200),
  ('00000000-0000-0000-0000-000000000002', 1, 'chat', 6500, 3, 100, 0);
INSERT INTO mcp.tool_call (run_id, tool, status, latency_ms, created_at) VALUES
  ('00000000-0000-0000-0000-000000000001', 'lookup', 'ok', 10, '2024-01-01 10:00:01+00'),
  ('00000000-0000-0000-0000-000000000001', 'lookup', 'ok', 20, '2024-01-01 10:00:01+00'),
  ('00000000-0000-0000-0000-000000000001', 'lookup', 'ok', 30, '2024-01-01 10:00:01+00'),
  ('00000000-0000-0000-0000-000000000001', 'lookup', 'ok', 40, '2024-01-01 10:00:01+00'),
  ('00000000-0000-0000-0000-000000000001', 'lookup', 'error', 100, '2024-01-01 10:00:02+00'),
  ('00000000-0000-0000-0000-000000000001', 'lookup', 'invalid', 0.1, '2024-01-01 10:00:02+00'),
  ('00000000-0000-0000-0000-000000000001', 'report', 'skipped', 0, '2024-01-01 10:00:02+00'),
  (NULL, 'report', 'denied', 0.2, '2024-01-02 09:00:00+00'),
  (NULL, 'report', 'ok', 5, '2024-01-02 09:30:00+00');
-- newest first; cost = (prompt * 0.5 + completion * 1.5) / 1000; orchestration = wall - llm - tools
SELECT run_id, interface, provider, role_name, status, left(question, 30) AS question, iterations,
       llm_requests AS llm, llm_retries AS retries, tool_calls, tool_errors, rejected_tool_calls AS rejected,
       prompt_tokens, completion_tokens, total_tokens, estimated_cost
  FROM mcp.recent_runs;
SELECT run_id, llm_latency_ms, tool_latency_ms, wall_ms, orchestration_ms, error_kind, error_message
  FROM mcp.recent_runs;
-- A real chat (replayed LLM answers, live tool) shows up with its own numbers.
CREATE FUNCTION public.vw_square(n int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT n * n $$;
INSERT INTO mcp.interface (name, provider) VALUES ('chatbot', 'priced');
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('square', 'Square a number', '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}', 'public.vw_square(integer)');
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'square');
UPDATE mcp.provider SET options = options || jsonb_build_object('responses', jsonb_build_array(
  '{"choices":[{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"square","arguments":"{\"n\": 7}"}}]}}],"usage":{"prompt_tokens":300,"completion_tokens":20}}',
  '{"choices":[{"finish_reason":"stop","message":{"role":"assistant","content":"49"}}],"usage":{"prompt_tokens":400,"completion_tokens":10}}'))
 WHERE name = 'priced';
SELECT c->>'status' AS status, c->>'answer' AS answer FROM mcp.chat('Was ist 7 zum Quadrat?') AS c;
SELECT interface, provider, status, iterations, llm_requests, tool_calls, total_tokens, estimated_cost,
       wall_ms >= llm_latency_ms + tool_latency_ms AS wall_covers_parts, orchestration_ms >= 0 AS orchestration_measured
  FROM mcp.recent_runs WHERE question = 'Was ist 7 zum Quadrat?';
-- Operator-only, like the audit tables; a monitoring role gets a grant on the view, not the tables.
CREATE ROLE vw_monitor;
SET LOCAL ROLE vw_monitor;
SAVEPOINT s2;
SELECT count(*) FROM mcp.recent_runs;
ROLLBACK TO s2;
RESET ROLE;
GRANT SELECT ON mcp.recent_runs TO vw_monitor;
SET LOCAL ROLE vw_monitor;
SELECT count(*) AS runs_visible FROM mcp.recent_runs;
SAVEPOINT s3;
SELECT count(*) FROM mcp.run;
ROLLBACK TO s3;
RESET ROLE;
-- Token counts are bigint: 3e9 each way stays exact, and so does the cost.
INSERT INTO mcp.run (run_id, interface, provider, role_name, question, status, prompt_tokens, completion_tokens,
                     started_at, finished_at) VALUES
  ('00000000-0000-0000-0000-000000000004', 'chatbot', 'priced', 'alice', 'Viele Tokens', 'completed',
   3000000000, 3000000000, '2023-12-31 10:00:00+00', '2023-12-31 10:00:01+00');
SELECT prompt_tokens, completion_tokens, total_tokens, estimated_cost, pg_typeof(total_tokens) AS type
  FROM mcp.recent_runs WHERE run_id = '00000000-0000-0000-0000-000000000004';
-- a negative count is refused
SAVEPOINT s4;
UPDATE mcp.run SET prompt_tokens = -1 WHERE run_id = '00000000-0000-0000-0000-000000000004';
ROLLBACK TO s4;
ROLLBACK;
