-- A populated registry for the life-cycle tests (tests/upgrade/run.sh), written against the
-- 0.1.0 schema (it uses only 0.1.0 columns): an interface on a replay provider, versioned
-- prompts (one replacing the built-in system prompt), function tools (registered WITHOUT a schema, one with quoted identifiers), a report
-- tool, a resource read through a function and one through a query, and a tool whose function
-- is dropped after registration (under 0.1.0 a regprocedure keeps the dead OID).
\set ON_ERROR_STOP on
SET client_min_messages = warning;

CREATE SCHEMA lc;
CREATE TABLE lc.tarif (
    id         integer PRIMARY KEY,
    gebiet     text NOT NULL,
    bereich    text NOT NULL,
    titel      text NOT NULL,
    gueltig_ab date NOT NULL
);
INSERT INTO lc.tarif VALUES
 (1, 'Bayern', 'Metall', 'Manteltarifvertrag Metall Bayern', '2024-01-01'),
 (2, 'Bayern', 'Metall', 'ERA Metall Bayern', '2023-07-01'),
 (3, 'NRW', 'Chemie', 'Manteltarifvertrag Chemie NRW', '2022-04-01');

CREATE FUNCTION lc.get_tarif(tarifgebiet text, fachbereich text, search_terms text[] DEFAULT NULL)
RETURNS jsonb LANGUAGE sql STABLE AS $$
    SELECT coalesce(jsonb_agg(jsonb_build_object('id', t.id, 'titel', t.titel) ORDER BY t.id), '[]')
      FROM lc.tarif t
     WHERE t.gebiet = tarifgebiet AND t.bereich = fachbereich
       AND (search_terms IS NULL OR EXISTS (SELECT 1 FROM unnest(search_terms) s WHERE t.titel ILIKE '%' || s || '%'))
$$;
CREATE FUNCTION lc."Tarif Zählen"(gebiet text) RETURNS bigint
LANGUAGE sql STABLE AS $$ SELECT count(*) FROM lc.tarif t WHERE t.gebiet = "Tarif Zählen".gebiet $$;
CREATE FUNCTION lc.retired(x text) RETURNS text LANGUAGE sql AS $$ SELECT x $$;
CREATE FUNCTION lc.tarif_text(id integer) RETURNS text
LANGUAGE sql STABLE AS $$ SELECT titel FROM lc.tarif t WHERE t.id = tarif_text.id $$;

-- The admin writes signatures with lc on the search_path: no schema in them.
SET search_path = lc, public;

INSERT INTO mcp.provider (name, kind, model, description, options) VALUES
 ('lc-replay', 'replay', 'recorded', 'Recorded answers: two tool calls, then the answer.',
  jsonb_build_object('responses', jsonb_build_array(
    '{"id":"lc-1","object":"chat.completion","model":"recorded","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_lc_1","type":"function","function":{"name":"getTarif","arguments":"{\"tarifgebiet\": \"Bayern\", \"fachbereich\": \"Metall\"}"}},{"id":"call_lc_2","type":"function","function":{"name":"countTarif","arguments":"{\"gebiet\": \"Bayern\"}"}}]}}],"usage":{"prompt_tokens":300,"completion_tokens":40,"total_tokens":340}}',
    '{"id":"lc-2","object":"chat.completion","model":"recorded","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"In Bayern gelten 2 Tarifverträge der Metallindustrie: Manteltarifvertrag Metall Bayern und ERA Metall Bayern."}}],"usage":{"prompt_tokens":420,"completion_tokens":30,"total_tokens":450}}')));

-- a key as 0.1.0 stored it (in clear); the update seals it with the server key
INSERT INTO mcp.provider_secret (provider, api_key) VALUES ('lc-replay', 'sk-lc-upgrade-0123456789');

INSERT INTO mcp.prompt (name, version, template, description, active) VALUES
 ('tarif_system', 1, 'You answer questions about collective agreements.', 'first version', false),
 ('tarif_system', 2, 'You answer questions about collective agreements from the tools only. Name the agreements you used.', 'current version', true);

-- the admin's own version of the built-in system prompt (pg_dump leaves version 1 out)
UPDATE mcp.prompt SET active = false WHERE name = 'system' AND version = 1;
INSERT INTO mcp.prompt (name, version, template, description) VALUES
 ('system', 2, 'You are a careful assistant for this site. Answer from the tools only.', 'site version');

INSERT INTO mcp.interface (name, description, provider, system_prompt, max_iterations) VALUES
 ('tarif', 'Collective agreements (life-cycle test)', 'lc-replay', 'tarif_system', 5);

INSERT INTO mcp.tool (name, description, parameters, function) VALUES
 ('getTarif', 'Collective agreements of a region and industry.',
  '{"type": "object",
    "properties": {"tarifgebiet": {"type": "string"}, "fachbereich": {"type": "string"},
                   "search_terms": {"type": "array", "items": {"type": "string"}}},
    "required": ["tarifgebiet", "fachbereich"]}',
  'get_tarif(text, text, text[])'),
 ('countTarif', 'How many agreements a region has.',
  '{"type": "object", "properties": {"gebiet": {"type": "string"}}, "required": ["gebiet"]}',
  '"Tarif Zählen"(text)'),
 ('retiredTool', 'A tool whose function is dropped after registration.',
  '{"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}',
  'retired(text)');
INSERT INTO mcp.tool (name, description, parameters, kind, body, timeout_ms) VALUES
 ('tarifByRegion', 'Agreements of a region since a date.',
  '{"type": "object", "properties": {"region": {"type": "string"}, "since": {"type": "string", "format": "date"}},
    "required": ["region"]}',
  'report',
  'SELECT id, titel, gueltig_ab FROM lc.tarif WHERE gebiet = $1 AND ($2 IS NULL OR gueltig_ab >= $2) ORDER BY id',
  5000);
INSERT INTO mcp.interface_tool (interface, tool) VALUES
 ('tarif', 'getTarif'), ('tarif', 'countTarif'), ('tarif', 'retiredTool'), ('tarif', 'tarifByRegion'),
 ('tarif', 'getDialog'), ('tarif', 'sql_query');

INSERT INTO mcp.resource (uri, name, description, function) VALUES
 ('lc://tarif/1', 'Tarif 1', 'The title of agreement 1.', 'tarif_text(integer)');
INSERT INTO mcp.resource (uri, name, mime_type, query) VALUES
 ('lc://tarife', 'All agreements', 'application/json', 'SELECT jsonb_agg(titel ORDER BY id) FROM lc.tarif');

DROP FUNCTION lc.retired(text);
RESET search_path;
