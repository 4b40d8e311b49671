-- mcp.tool_error_rates: per tool, how often it is called, fails, is refused, and how slow it is.
\set VERBOSITY terse
BEGIN;
-- Durable audit is on: the audit rows of earlier files, committed by the worker, outlast their
-- ROLLBACK. This file sees only its own (the deletion goes with its ROLLBACK).
WITH r AS (DELETE FROM mcp.run), l AS (DELETE FROM mcp.llm_request),
     t AS (DELETE FROM mcp.tool_call), m AS (DELETE FROM mcp.message) SELECT;
SET LOCAL TimeZone = 'UTC';
INSERT INTO mcp.provider (name, kind, model, options) VALUES
  ('priced', 'replay', 'r1', '{"price_per_1k_prompt": 0.5, "price_per_1k_completion": 1.5}');
-- Audit rows with known numbers: executed, failing, refused and skipped calls.
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
-- p95 of lookup's executed calls (10, 20, 30, 40, 100) interpolates to 88
SELECT * FROM mcp.tool_error_rates ORDER BY tool;
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
SELECT tool, calls, ok, error_rate, failure_rate, avg_latency_ms > 0 AS timed FROM mcp.tool_error_rates WHERE tool = 'square';
-- Operator-only, like the audit tables.
CREATE ROLE vw_monitor;
SET LOCAL ROLE vw_monitor;
SAVEPOINT s2;
SELECT count(*) FROM mcp.tool_error_rates;
ROLLBACK TO s2;
RESET ROLE;
ROLLBACK;
