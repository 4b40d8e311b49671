-- mcp.audit_digest: the sha256 the audit keeps for a value it cut to mcp.audit_max_value_bytes,
-- and the clipped column that records the cut.
\set VERBOSITY terse
BEGIN;
-- Durable audit is on: the audit rows of earlier files, committed by the worker, outlast their
-- ROLLBACK. This file sees only its own (the deletion goes with its ROLLBACK).
WITH r AS (DELETE FROM mcp.run), l AS (DELETE FROM mcp.llm_request),
     t AS (DELETE FROM mcp.tool_call), m AS (DELETE FROM mcp.message) SELECT;
-- The digest clipped records for a cut value: text as its UTF-8 bytes (= PostgreSQL's sha256),
-- jsonb as its canonical text (keys sorted, no whitespace), whatever its key order.
SELECT mcp.audit_digest('abc') = encode(sha256(convert_to('abc', 'UTF8')), 'hex') AS text_digest,
       mcp.audit_digest('{"b": 1, "a": [1, "x"]}'::jsonb)
         = encode(sha256(convert_to('{"a":[1,"x"],"b":1}', 'UTF8')), 'hex') AS jsonb_digest,
       mcp.audit_digest('{"a": [1, "x"], "b": 1}'::jsonb) = mcp.audit_digest('{"b": 1, "a": [1, "x"]}'::jsonb) AS key_order;
CREATE FUNCTION public.vw_square(n int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT n * n $$;
INSERT INTO mcp.interface (name) VALUES ('chatbot');
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('square', 'Square a number', '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}', 'public.vw_square(integer)');
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'square');
-- What was cut, per row (NULL when nothing): column -> original size and sha256.
SET LOCAL mcp.audit_max_value_bytes = '1kB';
SELECT mcp.call_tool('square', jsonb_build_object('n', 3, 'pad', repeat('p', 5000))) -> 'isError' AS refused;
SELECT status, octet_length(arguments::text) <= 1024 AS arguments_cut, clipped -> 'arguments' -> 'bytes' AS original_bytes,
       clipped -> 'arguments' ->> 'sha256' = mcp.audit_digest(jsonb_build_object('n', 3, 'pad', repeat('p', 5000))) AS digest_matches
  FROM mcp.tool_call ORDER BY call_id DESC LIMIT 1;
ROLLBACK;
