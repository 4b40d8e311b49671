-- Tool execution: authorization, validation, binding by name, result shaping, errors.
\set VERBOSITY terse
BEGIN;
-- Durable audit is on: the audit rows of earlier files, committed by the worker, outlast their
-- ROLLBACK. This file sees only its own (the deletion goes with its ROLLBACK).
WITH r AS (DELETE FROM mcp.run), l AS (DELETE FROM mcp.llm_request),
     t AS (DELETE FROM mcp.tool_call), m AS (DELETE FROM mcp.message) SELECT;
CREATE TABLE public.ct_item (id int PRIMARY KEY, name text, price numeric, note text, data bytea);
INSERT INTO public.ct_item VALUES
  (1, 'apple', 1.20, 'fresh|crisp', '\x0102'), (2, 'pear', 2.50, E'two\nlines', NULL), (3, 'plum', 0.90, NULL, NULL);
CREATE FUNCTION public.ct_find(name text, max_price numeric DEFAULT 100) RETURNS jsonb LANGUAGE sql STABLE AS
  $$ SELECT coalesce(jsonb_agg(to_jsonb(i) - 'data' ORDER BY id), '[]') FROM public.ct_item i
     WHERE i.name = ct_find.name AND i.price <= max_price $$;
CREATE FUNCTION public.ct_all() RETURNS SETOF public.ct_item LANGUAGE sql STABLE AS $$ SELECT * FROM public.ct_item ORDER BY id $$;
CREATE FUNCTION public.ct_tags(tags text[]) RETURNS text LANGUAGE sql AS $$ SELECT array_to_string(tags, '+') $$;
CREATE FUNCTION public.ct_boom(n int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN n / 0; END $$;
INSERT INTO mcp.interface (name) VALUES ('chatbot');
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('find', 'Find an item', '{"type":"object","properties":{"name":{"type":"string"},"max_price":{"type":"number"}},"required":["name"]}', 'public.ct_find(text, numeric)'),
  ('all_items', 'All items', '{"type":"object","properties":{}}', 'public.ct_all()'),
  ('tags', 'Join tags', '{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}},"required":["tags"]}', 'public.ct_tags(text[])'),
  ('boom', 'Divides by zero', '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}', 'public.ct_boom(integer)');
INSERT INTO mcp.interface_tool SELECT 'chatbot', name FROM mcp.tool WHERE kind = 'function';
-- jsonb result: text + structuredContent
SELECT jsonb_pretty(mcp.call_tool('find', '{"name": "apple"}'));
-- set-returning function: a markdown table; pipes and newlines escaped, bytea as a placeholder
SELECT regexp_replace(mcp.call_tool('all_items', '{}') -> 'content' -> 0 ->> 'text', '[0-9.]+ ms', 'N ms') AS text;
-- arrays bind as SQL arrays
SELECT mcp.call_tool('tags', '{"tags": ["a", "b", "c"]}') -> 'content' -> 0 ->> 'text' AS text;
-- validation errors are returned, the function is not run
SELECT mcp.call_tool('find', '{}') -> 'content' -> 0 ->> 'text' AS text;
SELECT mcp.call_tool('find', '{"name": "apple", "max_price": "2"}') -> 'content' -> 0 ->> 'text' AS text;
-- a failing tool: generic text for the caller, detail for the operator
SELECT regexp_replace(mcp.call_tool('boom', '{"n": 1}') -> 'content' -> 0 ->> 'text', 'call id [0-9]+', 'call id N') AS text;
SELECT tool, status, error_sqlstate, error_message FROM mcp.tool_call WHERE tool = 'boom';
-- unknown tool and unmapped interface
SELECT mcp.call_tool('nope', '{}');
INSERT INTO mcp.interface (name) VALUES ('empty');
SELECT mcp.call_tool('find', '{"name": "apple"}', 'empty');
SELECT tool, interface, status, validation_errors IS NOT NULL AS has_validation_errors FROM mcp.tool_call ORDER BY call_id;
SELECT mcp.call_tool('find', '{"name": "apple"}', 'missing');
ROLLBACK;
-- jsonb arguments nested deeper than 128 levels
SELECT mcp.call_tool('sql_query', jsonb_build_object('query', (repeat('{"a":', 200) || '1' || repeat('}', 200))::jsonb));
