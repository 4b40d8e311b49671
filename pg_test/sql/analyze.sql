-- mcp.analyze on the demo thesaurus (demo/thesaurus.json) and plans (demo/plans.sql): the 45
-- German questions of demo/questions.tsv with their expected entities and plan. Prints every
-- miss, then precision and recall of the extraction and the plan accuracy (README reports them).
\set VERBOSITY terse
BEGIN;
SET client_min_messages = warning;
CREATE FUNCTION pg_temp.sqlstate_of(stmt text) RETURNS text LANGUAGE plpgsql AS
  $f$ BEGIN EXECUTE stmt; RETURN 'ok'; EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE || ': ' || SQLERRM; END $f$;
CREATE SCHEMA demo;
CREATE FUNCTION demo.get_tarifvertrag(tarifgebiet text, fachbereich text, search_terms text[] DEFAULT NULL)
RETURNS jsonb LANGUAGE sql STABLE AS $$ SELECT '[]'::jsonb $$;
INSERT INTO mcp.interface (name, access_role) VALUES ('chatbot', 'public');
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
 ('getTarifVertrag', 'Tarifverträge',
  '{"type": "object", "properties": {"tarifgebiet": {"type": "string"}, "fachbereich": {"type": "string"},
    "search_terms": {"type": "array", "items": {"type": "string"}}}, "required": ["tarifgebiet", "fachbereich"]}',
  'demo.get_tarifvertrag(text, text, text[])');
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'getTarifVertrag'), ('chatbot', 'getDialog');
\set QUIET on
\i demo/plans.sql
\set ON_ERROR_STOP off
\set thesaurus `cat demo/thesaurus.json`
SELECT mcp.load_thesaurus(:'thesaurus') AS loaded;
\set QUIET off

-- three examples in full
SELECT jsonb_pretty(mcp.analyze('Welche Tarifverträge gelten im bayerischen Einzelhandel?'));
SELECT jsonb_pretty(mcp.analyze('Urlaub im oeffentlicher dienst in Bayern und Hessen') -> 'entities');
SELECT jsonb_pretty(mcp.analyze('Wie viel Urlaub gibt es in der Metallindustrie?') - 'entities');
-- longest match wins: "Metall- und Elektroindustrie" (one entity), not "Metall" + "Elektroindustrie"
SELECT e ->> 'term_id' AS term, e ->> 'text' AS text, e -> 'start' AS start, e -> 'end' AS "end"
  FROM jsonb_array_elements(mcp.analyze('Tarife der Metall- und Elektroindustrie') -> 'entities') e;
-- an upper-case abbreviation of <= 3 letters matches only in upper case ("be" is no Berlin)
SELECT mcp.analyze('BE und be') -> 'entities' -> 0 ->> 'term_id' AS upper, jsonb_array_length(mcp.analyze('BE und be') -> 'entities') AS found;
-- master data as entity source, read live (no copy)
CREATE TABLE demo.firma (name text);
INSERT INTO demo.firma VALUES ('Siemens'), ('Deutsche Bahn');
INSERT INTO mcp.entity_source (kind, table_name, column_name) VALUES ('firma', 'demo.firma', 'name');
SELECT e ->> 'kind' AS kind, e ->> 'term_id' AS term, e ->> 'text' AS text
  FROM jsonb_array_elements(mcp.analyze('Gilt bei der Deutschen Bahn der Tarif der Metallindustrie?') -> 'entities') e;
INSERT INTO demo.firma VALUES ('Bosch');
SELECT e ->> 'kind' AS kind, e ->> 'term_id' AS term FROM jsonb_array_elements(mcp.analyze('Urlaub bei Bosch') -> 'entities') e;
SELECT pg_temp.sqlstate_of($q$INSERT INTO mcp.entity_source (kind, query) VALUES ('kaputt', 'SELECT nichts FROM nirgends')$q$) AS refused;
DELETE FROM mcp.entity_source;
-- a question longer than 4000 characters is refused
SELECT pg_temp.sqlstate_of($q$SELECT mcp.analyze(repeat('Bayern ', 700))$q$) AS refused;

-- the evaluation set
CREATE TEMP TABLE q (question text, expected text, plan text);
\copy q FROM 'demo/questions.tsv'
DELETE FROM q WHERE question LIKE '#%';
CREATE TEMP TABLE r AS
SELECT q.question,
       string_to_array(NULLIF(q.expected, ''), ',') AS expected,
       ARRAY(SELECT e ->> 'term_id' FROM jsonb_array_elements(a -> 'entities') e) AS got,
       q.plan AS expected_plan,
       COALESCE((SELECT p ->> 'name' FROM jsonb_array_elements(a -> 'plans') p
                  WHERE (p ->> 'score')::numeric >= 0.35 LIMIT 1), '-') AS got_plan
  FROM q, LATERAL mcp.analyze(q.question) a;
SELECT count(*) AS questions FROM r;
-- misses
SELECT question, expected, got, expected_plan, got_plan FROM r
 WHERE NOT (COALESCE(expected, '{}') @> got AND got @> COALESCE(expected, '{}')) OR expected_plan <> got_plan;
SELECT sum(tp) AS tp, sum(fp) AS fp, sum(fn) AS fn,
       round(sum(tp)::numeric / NULLIF(sum(tp) + sum(fp), 0), 3) AS precision,
       round(sum(tp)::numeric / NULLIF(sum(tp) + sum(fn), 0), 3) AS recall,
       round(avg((expected_plan = got_plan)::int), 3) AS plan_accuracy
  FROM (SELECT (SELECT count(*) FROM unnest(got) g WHERE g = ANY (COALESCE(expected, '{}'))) AS tp,
               (SELECT count(*) FROM unnest(got) g WHERE NOT g = ANY (COALESCE(expected, '{}'))) AS fp,
               (SELECT count(*) FROM unnest(COALESCE(expected, '{}')) x WHERE NOT x = ANY (got)) AS fn,
               expected_plan, got_plan FROM r) s;

-- the embedding signal (issue 12 with issue 13's models): with the interface's embedding model a
-- question that shares no word with any plan is ranked by its similarity to the plans' example
-- questions (the shipped local model is English-only, so the examples are English; similarities
-- are shown coarsened, the exact values are checked in tests/pg/plans_embedding.rs)
INSERT INTO mcp.interface (name) VALUES ('pe');
INSERT INTO mcp.plan (name, interface, description, examples) VALUES
 ('pe_holiday', 'pe', 'Urlaubsanspruch nach Tarifvertrag', '{"How many vacation days do I get per year?"}'),
 ('pe_pay', 'pe', 'Entgelttabellen und Lohnhöhe', '{"What is the monthly salary in pay group 5?"}'),
 ('pe_notice', 'pe', 'Kündigungsfristen', '{"How long is my notice period?"}');
SELECT mcp.analyze('Paid holidays: amount of time off from work?', 'pe') AS without_model;
INSERT INTO mcp.embedding_model (name, kind, dimension, path)
  VALUES ('minilm', 'local', 384, '/usr/local/share/pg_mcp/models/all-MiniLM-L6-v2');
UPDATE mcp.interface SET embedding_model = 'minilm' WHERE name = 'pe';
-- (no word explains the question: the score is 0.7 x the similarity above the floor, the lowest
-- similarity of any plan, both rounded to 3 places; the plan at the floor scores 0 and is left
-- out; the similarity weighs the German description 0.7, the English example 0.3)
SELECT p.i AS rank, p.p ->> 'name' AS plan, p.p -> 'why' -> 'coverage' AS coverage, p.p -> 'why' -> 'keyword' AS keyword,
       (p.p -> 'why' ->> 'embedding_above_floor')::numeric > 0 AS above_floor, p.p -> 'why' ->> 'example' AS closest_example,
       abs((p.p ->> 'score')::numeric - 0.7 * (p.p -> 'why' ->> 'embedding_above_floor')::numeric) <= 0.001 AS score_is_07_above_floor
  FROM jsonb_array_elements(mcp.analyze('Paid holidays: amount of time off from work?', 'pe') -> 'plans') WITH ORDINALITY p(p, i);
SELECT plan, example, fingerprint = (SELECT fingerprint FROM mcp.embedding_model WHERE name = 'minilm') AS current
  FROM mcp.plan_example_embedding ORDER BY plan;
ROLLBACK;
