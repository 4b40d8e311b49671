-- mcp.chat over a replay provider: recorded LLM answers (deterministic, no network, no key)
-- while the tools run for real. A completed chat, needs_input and its continuation in the same
-- session, a correction round trip, provider errors, and the runs as mcp.recent_runs shows them
-- (run ids, session ids and times masked: they differ from run to run).
\set VERBOSITY terse
BEGIN;
-- Durable audit is on: the audit rows of earlier files, committed by the worker, outlast their
-- ROLLBACK. This file sees only its own (the deletion goes with its ROLLBACK).
WITH r AS (DELETE FROM mcp.run), l AS (DELETE FROM mcp.llm_request),
     t AS (DELETE FROM mcp.tool_call), m AS (DELETE FROM mcp.message) SELECT;
SET LOCAL TimeZone = 'UTC';
CREATE TABLE public.ch_tarif (id int PRIMARY KEY, gebiet text, bereich text, titel text);
INSERT INTO public.ch_tarif VALUES
  (1, 'Bayern', 'Metall', 'MTV Metall Bayern'), (2, 'NRW', 'Chemie', 'MTV Chemie NRW');
CREATE FUNCTION public.ch_get_tarif(tarifgebiet text, fachbereich text) RETURNS jsonb
  LANGUAGE sql STABLE AS
  $$ SELECT coalesce(jsonb_agg(jsonb_build_object('id', id, 'titel', titel) ORDER BY id), '[]')
       FROM public.ch_tarif WHERE gebiet = tarifgebiet AND bereich = fachbereich $$;
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('getTarifVertrag', 'Tarifverträge nach Gebiet und Bereich',
   '{"type":"object","properties":{"tarifgebiet":{"type":"string"},"fachbereich":{"type":"string"}},
     "required":["tarifgebiet","fachbereich"]}',
   'public.ch_get_tarif(text, text)');
INSERT INTO mcp.provider (name, kind, model) VALUES ('recorded', 'replay', 'recorded');
INSERT INTO mcp.interface (name, provider) VALUES ('chatbot', 'recorded');
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'getTarifVertrag'), ('chatbot', 'getDialog');
-- A chat's recording: the provider's answers, served in order (a new run starts at the first).
CREATE FUNCTION pg_temp.record(VARIADIC answers jsonb[]) RETURNS text LANGUAGE sql AS
  $$ UPDATE mcp.provider SET options = jsonb_build_object('responses', to_jsonb(answers))
      WHERE name = 'recorded' RETURNING 'recorded ' || cardinality(answers) || ' answer(s)' $$;
-- An OpenAI chat completion: a text answer, or tool calls (name, arguments as sent).
CREATE FUNCTION pg_temp.says(content text, prompt_tokens int, completion_tokens int) RETURNS jsonb
  LANGUAGE sql AS
  $$ SELECT jsonb_build_object('choices', jsonb_build_array(jsonb_build_object('finish_reason', 'stop',
              'message', jsonb_build_object('role', 'assistant', 'content', content))),
            'usage', jsonb_build_object('prompt_tokens', prompt_tokens, 'completion_tokens', completion_tokens)) $$;
CREATE FUNCTION pg_temp.calls(id text, tool text, arguments jsonb, prompt_tokens int, completion_tokens int)
  RETURNS jsonb LANGUAGE sql AS
  $$ SELECT jsonb_build_object('choices', jsonb_build_array(jsonb_build_object('finish_reason', 'tool_calls',
              'message', jsonb_build_object('role', 'assistant', 'content', NULL, 'tool_calls', jsonb_build_array(
                jsonb_build_object('id', id, 'type', 'function',
                  'function', jsonb_build_object('name', tool, 'arguments', arguments::text)))))),
            'usage', jsonb_build_object('prompt_tokens', prompt_tokens, 'completion_tokens', completion_tokens)) $$;
-- What a chat returned, without its run and session ids. An answer without usage (a provider
-- error) gets an estimate that depends on the prompt and the tool list: shown as "estimated".
CREATE FUNCTION pg_temp.shown(result jsonb) RETURNS text LANGUAGE sql AS
  $$ SELECT jsonb_pretty(CASE WHEN (result #>> '{usage,estimated}')::boolean
                              THEN jsonb_set(result, '{usage,prompt_tokens}', '"estimated"') ELSE result END
                         - 'run_id' - 'session_id') $$;
-- The conversation as the latest run stored it (a continued run holds its session's earlier
-- turns too): what the model saw, in order.
CREATE FUNCTION pg_temp.transcript() RETURNS TABLE (seq int, role text, message jsonb) LANGUAGE sql AS
  $$ SELECT seq, role, message FROM mcp.message
      WHERE run_id = (SELECT run_id FROM mcp.run ORDER BY started_at DESC LIMIT 1) ORDER BY seq $$;

-- 1. completed: the model calls a tool, the tool reads the table, the model answers
SELECT pg_temp.record(
  pg_temp.calls('call_1', 'getTarifVertrag', '{"tarifgebiet": "Bayern", "fachbereich": "Metall"}', 100, 20),
  pg_temp.says('In Bayern gilt der MTV Metall Bayern.', 150, 30));
SELECT pg_temp.shown(mcp.chat('Welche Tarifverträge gelten für Metall in Bayern?'));
SELECT * FROM pg_temp.transcript();
SELECT tool, status, arguments, result_preview FROM mcp.tool_call ORDER BY call_id DESC LIMIT 1;

-- 2. needs_input: the model asks the user through getDialog; the answer continues the same session
SELECT pg_temp.record(
  pg_temp.calls('call_d', 'getDialog', '{"missing_parameters": ["tarifgebiet"], "context": "Branche Metall"}', 80, 15));
CREATE TEMP TABLE first_turn AS SELECT mcp.chat('Welcher Tarifvertrag gilt für Metall?') AS result;
SELECT pg_temp.shown(result) FROM first_turn;
SELECT pg_temp.record(
  pg_temp.calls('call_t', 'getTarifVertrag', '{"tarifgebiet": "Bayern", "fachbereich": "Metall"}', 120, 20),
  pg_temp.says('Für Bayern gilt der MTV Metall Bayern.', 180, 12));
SELECT pg_temp.shown(second.result),
       second.result ->> 'session_id' = first_turn.result ->> 'session_id' AS same_session
  FROM first_turn, LATERAL (SELECT mcp.chat('Bayern', 'chatbot', (result ->> 'session_id')::uuid)) AS second (result);
SELECT * FROM pg_temp.transcript();

-- 3. correction round trip: invalid arguments are not run; the model gets the validation error
--    as the tool's answer and calls again with corrected arguments
SELECT pg_temp.record(
  pg_temp.calls('call_x1', 'getTarifVertrag', '{"fachbereich": "Metall", "region": "Bayern"}', 90, 18),
  pg_temp.calls('call_x2', 'getTarifVertrag', '{"tarifgebiet": "Bayern", "fachbereich": "Metall"}', 140, 18),
  pg_temp.says('Korrigiert: In Bayern gilt der MTV Metall Bayern.', 190, 14));
SELECT pg_temp.shown(mcp.chat('Tarif für Metall in Bayern, bitte'));
SELECT * FROM pg_temp.transcript() WHERE role = 'tool';
SELECT tool, status, arguments, validation_errors FROM mcp.tool_call ORDER BY call_id DESC LIMIT 2;

-- 4. provider errors end the run with status failed and a normalized error
SELECT pg_temp.record(
  '{"error": {"message": "Rate limit reached for gpt-4o-mini", "type": "requests", "code": "rate_limit_exceeded"}}');
SELECT pg_temp.shown(mcp.chat('Hallo'));
-- a recording with fewer answers than the chat needs
SELECT pg_temp.record(
  pg_temp.calls('call_e', 'getTarifVertrag', '{"tarifgebiet": "NRW", "fachbereich": "Chemie"}', 60, 10));
SELECT pg_temp.shown(mcp.chat('Chemie in NRW?'));
SELECT iteration, purpose, url, http_status, finish_reason, error ->> 'kind' AS error_kind
  FROM mcp.llm_request WHERE run_id = (SELECT run_id FROM mcp.run ORDER BY started_at DESC LIMIT 1)
 ORDER BY request_id;

-- 5. the runs as operators see them, newest first: run and session ids as ordinals, times as
--    checks, the estimated tokens of the provider error as "estimated" (every other column as is)
SELECT row_number() OVER (ORDER BY v.started_at DESC) AS run,
       dense_rank() OVER (ORDER BY s.first_start) AS session,
       v.question, v.interface, v.provider, v.role_name, v.status, v.iterations, v.llm_requests,
       v.llm_retries, v.tool_calls, v.tool_errors, v.rejected_tool_calls,
       CASE WHEN v.question = 'Hallo' THEN 'estimated' ELSE v.prompt_tokens::text END AS prompt_tokens,
       v.completion_tokens,
       CASE WHEN v.question = 'Hallo' THEN 'estimated' ELSE v.total_tokens::text END AS total_tokens,
       v.estimated_cost, v.error_kind, v.error_message,
       v.finished_at >= v.started_at AS finished,
       v.llm_latency_ms >= 0 AND v.tool_latency_ms >= 0 AS latencies,
       v.wall_ms >= v.llm_latency_ms + v.tool_latency_ms AND v.orchestration_ms >= 0 AS wall_covers_parts
  FROM mcp.recent_runs v
  JOIN (SELECT session_id, min(started_at) AS first_start FROM mcp.run GROUP BY session_id) s USING (session_id)
 ORDER BY v.started_at DESC;
ROLLBACK;
