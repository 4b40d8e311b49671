-- The built-in read-only tools sql_query and schema_information through mcp.call_tool: what the
-- model sees, results, refusals, the sandbox, large values, the audit.
\set VERBOSITY terse
BEGIN;
-- Durable audit is on: the audit rows of earlier files, committed by the worker, outlast their
-- ROLLBACK. This file sees only its own (the deletion goes with its ROLLBACK).
WITH r AS (DELETE FROM mcp.run), l AS (DELETE FROM mcp.llm_request),
     t AS (DELETE FROM mcp.tool_call), m AS (DELETE FROM mcp.message) SELECT;
CREATE TABLE public.st_region (code text PRIMARY KEY, name text NOT NULL);
CREATE TABLE public.st_sale (id int PRIMARY KEY, region text REFERENCES public.st_region(code), amount numeric, note text, blob bytea);
COMMENT ON TABLE public.st_sale IS 'One row per sale';
COMMENT ON COLUMN public.st_sale.amount IS 'Amount in EUR';
INSERT INTO public.st_region VALUES ('BY', 'Bayern'), ('NW', 'Nordrhein-Westfalen');
INSERT INTO public.st_sale SELECT g, CASE WHEN g % 2 = 0 THEN 'BY' ELSE 'NW' END, g * 10, NULL, NULL FROM generate_series(1, 30) g;
UPDATE public.st_sale SET note = E'pipe | and\nnewline', blob = '\xdeadbeef' WHERE id = 1;
CREATE TABLE public.st_secret (id int, value text);
CREATE ROLE st_reader NOLOGIN;
GRANT SELECT ON public.st_region, public.st_sale TO st_reader;
INSERT INTO mcp.interface (name, access_role) VALUES ('analysis', 'st_reader');
INSERT INTO mcp.interface_tool VALUES ('analysis', 'sql_query'), ('analysis', 'schema_information');
-- the built-in tools as a model sees them
SELECT t ->> 'name' AS name, t -> 'inputSchema' -> 'required' AS required, t -> 'annotations' AS annotations
  FROM jsonb_array_elements(mcp.list_tools('analysis', 'mcp')) t;
-- a superuser is refused unless the operator allows it
SELECT mcp.call_tool('sql_query', '{"query": "SELECT 1"}', 'analysis') -> 'content' -> 0 ->> 'text' AS text;
SET LOCAL ROLE st_reader;
-- a query: markdown table, escaped cells, placeholders, n+1 row cap
SELECT regexp_replace(mcp.call_tool('sql_query', '{"query": "SELECT id, region, amount, note, blob FROM st_sale ORDER BY id", "max_rows": 3}', 'analysis') -> 'content' -> 0 ->> 'text', '[0-9.]+ ms', 'N ms') AS text;
-- analytics keep working
SELECT regexp_replace(mcp.call_tool('sql_query', '{"query": "WITH s AS (SELECT region, sum(amount) AS total, percentile_cont(0.5) WITHIN GROUP (ORDER BY amount) AS median FROM st_sale GROUP BY region) SELECT r.name, s.total, s.median, rank() OVER (ORDER BY s.total DESC) FROM s JOIN st_region r ON r.code = s.region ORDER BY 1"}', 'analysis') -> 'content' -> 0 ->> 'text', '[0-9.]+ ms', 'N ms') AS text;
-- refusals: writes, several statements, locking, session side effects
SELECT mcp.call_tool('sql_query', jsonb_build_object('query', q), 'analysis') -> 'content' -> 0 ->> 'text' AS refusal
  FROM unnest(ARRAY[
    'DELETE FROM st_sale',
    'SELECT 1; DROP TABLE st_sale',
    'COMMIT; DELETE FROM st_sale',
    'WITH d AS (DELETE FROM st_sale RETURNING id) SELECT count(*) FROM d',
    'SELECT * INTO st_copy FROM st_sale',
    'SELECT * FROM st_sale FOR UPDATE',
    'SELECT pg_advisory_lock(1)',
    'SELECT pg_notify(''c'', ''x'')',
    'EXPLAIN ANALYZE SELECT 1',
    'SET TRANSACTION READ WRITE']) AS q;
-- the engine stops what the parser cannot see; the model gets one sentence
SELECT regexp_replace(mcp.call_tool('sql_query', jsonb_build_object('query', q), 'analysis') -> 'content' -> 0 ->> 'text', 'call id [0-9]+', 'call id N') AS text
  FROM unnest(ARRAY[
    'SELECT set_config(''transaction_read_only'', ''off'', false)',
    'SELECT * FROM st_secret',
    'SELECT pg_read_file(''/etc/passwd'')',
    'SELECT no_such_column FROM st_sale']) AS q;
-- schema_information lists only what the role can read
SELECT mcp.call_tool('schema_information', '{}', 'analysis') -> 'content' -> 0 ->> 'text' AS text;
RESET ROLE;
-- the audit: statuses and SQLSTATEs for the operator
SELECT tool, status, error_sqlstate, role_name FROM mcp.tool_call ORDER BY call_id;
-- the tool sandbox: what the executor refuses while a tool runs (also inside dynamic SQL),
-- the caller's role cannot change, a tool cannot start tools or chats, deep trees are errors
SET LOCAL ROLE st_reader;
SELECT regexp_replace(mcp.call_tool('sql_query', jsonb_build_object('query', q), 'analysis') -> 'content' -> 0 ->> 'text', 'call id [0-9]+', 'call id N') AS refusal
  FROM unnest(ARRAY[
    'SELECT query_to_xml(''select pg_advisory_lock(4242)'', true, false, '''')',
    'SELECT * FROM ts_stat(''select to_tsvector(pg_try_advisory_lock(1)::text)'')',
    'SELECT query_to_xml(''select pg_terminate_backend(pg_backend_pid())'', true, false, '''')',
    'SELECT mcp.call_tool(''sql_query'', ''{"query": "select 1"}'', ''analysis'')',
    'SELECT query_to_xml(''select mcp.chat(''''hi'''')'', true, false, '''')',
    'SELECT set_config(''role'', ''none'', false)',
    'SELECT lo_from_bytea(0, ''x'')',
    'SELECT pg_read_file(''global/1260'')',
    'SELECT * FROM pg_ls_dir(''.'')',
    'SELECT ' || repeat('(select ', 2500) || '1' || repeat(')', 2500)]) AS q;
SELECT count(*) AS advisory_locks FROM pg_locks WHERE locktype = 'advisory';
-- large values: text is clipped, what cannot be clipped is not read; the result budget
RESET ROLE;
SET LOCAL mcp.max_result_bytes = 2048;
SET LOCAL ROLE st_reader;
SELECT regexp_replace(mcp.call_tool('sql_query', '{"query": "SELECT length(repeat(''x'', 100)) AS n, to_jsonb(repeat(''y'', 5000)) AS doc, array_fill(1, ARRAY[1000]) AS arr"}', 'analysis') -> 'content' -> 0 ->> 'text', '[0-9.]+ ms', 'N ms') AS placeholders;
SELECT regexp_replace((regexp_match(mcp.call_tool('sql_query', '{"query": "SELECT g, repeat(''w'', 100) AS pad FROM generate_series(1, 50) g", "max_rows": 50}', 'analysis') -> 'content' -> 0 ->> 'text', '_[^\n]*_$'))[1], '[0-9.]+ ms', 'N ms') AS metadata;
RESET ROLE;
SELECT status, error_sqlstate, left(error_message, 60) AS operator_sees
  FROM (SELECT * FROM mcp.tool_call ORDER BY call_id DESC LIMIT 12) c ORDER BY call_id;
ROLLBACK;
