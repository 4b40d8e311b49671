-- Answers checked against what was asked, and the run's time budget (issue 11): the statuses
-- tool_choice_violated and truncated, the deadline_ms option and interface column.
\set VERBOSITY terse
BEGIN;
-- Durable audit is on: the audit rows of earlier files, committed by the worker, outlast their
-- ROLLBACK. This file sees only its own (the deletion goes with its ROLLBACK).
WITH r AS (DELETE FROM mcp.run), l AS (DELETE FROM mcp.llm_request),
     t AS (DELETE FROM mcp.tool_call), m AS (DELETE FROM mcp.message) SELECT;
SET LOCAL TimeZone = 'UTC';
INSERT INTO mcp.provider (name, kind, model) VALUES ('rs_replay', 'replay', 'r');
CREATE FUNCTION public.rs_square(n int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT n * n $$;
INSERT INTO mcp.interface (name, provider, tool_choice, access_role) VALUES ('rs_forced', 'rs_replay', 'required', 'public');
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('rs_square', 'Square a number', '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}', 'public.rs_square(integer)');
INSERT INTO mcp.interface_tool VALUES ('rs_forced', 'rs_square');
-- tool_choice required, answered with text twice: one correction turn, then tool_choice_violated.
UPDATE mcp.provider SET options = jsonb_build_object('responses', jsonb_build_array(
  '{"choices":[{"finish_reason":"stop","message":{"role":"assistant","content":"I know it: 49"}}]}',
  '{"choices":[{"finish_reason":"stop","message":{"role":"assistant","content":"Still 49"}}]}'))
 WHERE name = 'rs_replay';
SELECT c->>'status' AS status, c->>'answer' AS answer, c->'iterations' AS iterations, c->'tool_calls' AS tool_calls,
       c->'error'->>'kind' AS error_kind, c->'error'->>'message' AS error_message
  FROM mcp.chat('Was ist 7 zum Quadrat?', 'rs_forced') AS c;
-- The correction turn is part of the stored conversation; the run and recent_runs say why it stopped.
SELECT m.seq, m.role, left(m.message->>'content', 60) AS content
  FROM mcp.message m JOIN mcp.run r USING (run_id) WHERE r.question = 'Was ist 7 zum Quadrat?' ORDER BY m.seq;
SELECT status, iterations, llm_requests, error_kind FROM mcp.recent_runs WHERE question = 'Was ist 7 zum Quadrat?';
-- The tool called after the correction: completed.
UPDATE mcp.provider SET options = jsonb_build_object('responses', jsonb_build_array(
  '{"choices":[{"finish_reason":"stop","message":{"role":"assistant","content":"49"}}]}',
  '{"choices":[{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"rs_square","arguments":"{\"n\": 7}"}}]}}]}',
  '{"choices":[{"finish_reason":"stop","message":{"role":"assistant","content":"49 (computed)"}}]}'))
 WHERE name = 'rs_replay';
SELECT c->>'status' AS status, c->>'answer' AS answer, c->'iterations' AS iterations, c->'tool_calls' AS tool_calls
  FROM mcp.chat('Und jetzt mit Werkzeug?', 'rs_forced') AS c;
-- finish_reason length: the cut-off text comes back, with status truncated, not completed.
UPDATE mcp.interface SET tool_choice = 'auto' WHERE name = 'rs_forced';
UPDATE mcp.provider SET options = jsonb_build_object('responses', jsonb_build_array(
  '{"choices":[{"finish_reason":"length","message":{"role":"assistant","content":"Die Tarifverträge für Bayern sind"}}]}'))
 WHERE name = 'rs_replay';
SELECT c->>'status' AS status, c->>'answer' AS answer, c->'error'->>'kind' AS error_kind
  FROM mcp.chat('Welche Tarifverträge?', 'rs_forced') AS c;
SELECT v.status, x.answer, v.error_kind FROM mcp.recent_runs v JOIN mcp.run x USING (run_id) WHERE v.question = 'Welche Tarifverträge?';
-- deadline_ms: an option (at most the interface's) and an interface column (positive).
CREATE ROLE rs_user;
SAVEPOINT s;
SELECT mcp.chat('x', 'rs_forced', NULL, '{"deadline_ms": 0}');
ROLLBACK TO s;
SELECT mcp.chat('x', 'rs_forced', NULL, '{"deadline_ms": "soon"}');
ROLLBACK TO s;
UPDATE mcp.interface SET deadline_ms = 0 WHERE name = 'rs_forced';
ROLLBACK TO s;
UPDATE mcp.interface SET deadline_ms = 1000 WHERE name = 'rs_forced';
SET LOCAL ROLE rs_user;
SELECT mcp.chat('x', 'rs_forced', NULL, '{"deadline_ms": 5000}');
ROLLBACK TO s;
UPDATE mcp.interface SET deadline_ms = 1000 WHERE name = 'rs_forced';
UPDATE mcp.provider SET options = jsonb_build_object('responses', jsonb_build_array(
  '{"choices":[{"finish_reason":"stop","message":{"role":"assistant","content":"quick"}}]}'))
 WHERE name = 'rs_replay';
SET LOCAL ROLE rs_user;
SELECT c->>'status' AS status, c->>'answer' AS answer FROM mcp.chat('within budget', 'rs_forced', NULL, '{"deadline_ms": 500}') AS c;
RESET ROLE;
ROLLBACK;
