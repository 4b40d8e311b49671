-- Demo domain from the design seed: collective agreements (Tarifverträge).
-- Loaded by scripts/demo.sh into a fresh database.
\set ON_ERROR_STOP on
-- (scripts/lib.sh fresh_db has created the database with pg_mcp installed.)

CREATE SCHEMA demo;
COMMENT ON SCHEMA demo IS 'pg_mcp demo data: collective agreements (Tarifverträge).';

CREATE TABLE demo.tarifvertrag (
    id           integer PRIMARY KEY,
    titel        text NOT NULL,
    tarifgebiet  text NOT NULL,
    fachbereich  text NOT NULL,
    gueltig_ab   date NOT NULL,
    gueltig_bis  date,
    inhalt       text NOT NULL
);
COMMENT ON TABLE demo.tarifvertrag IS 'Collective agreements by region (tarifgebiet) and industry (fachbereich).';

INSERT INTO demo.tarifvertrag VALUES
 (1, 'Manteltarifvertrag Metall- und Elektroindustrie Bayern', 'Bayern', 'Metall- und Elektroindustrie', '2024-01-01', NULL,
  'Regelt Arbeitszeit (35 Stunden/Woche), Urlaub (30 Tage), Zuschläge für Mehr-, Nacht- und Sonntagsarbeit.'),
 (2, 'Entgeltrahmenabkommen (ERA) Metall Bayern', 'Bayern', 'Metall- und Elektroindustrie', '2023-07-01', NULL,
  'Eingruppierung in Entgeltgruppen EG 1 bis EG 12 nach Arbeitsaufgabe; Leistungszulage bis 28 %.'),
 (3, 'Tarifvertrag Inflationsausgleichsprämie Metall Bayern', 'Bayern', 'Metall- und Elektroindustrie', '2023-01-01', '2024-12-31',
  'Zwei Zahlungen von je 1.500 Euro netto im Februar 2023 und Februar 2024.'),
 (4, 'Manteltarifvertrag Chemische Industrie Nordrhein', 'Nordrhein-Westfalen', 'Chemische Industrie', '2022-04-01', NULL,
  'Regelt Arbeitszeit (37,5 Stunden/Woche), Schichtzulagen und Urlaub (30 Tage).'),
 (5, 'Manteltarifvertrag Metall- und Elektroindustrie NRW', 'Nordrhein-Westfalen', 'Metall- und Elektroindustrie', '2024-01-01', NULL,
  'Regelt Arbeitszeit (35 Stunden/Woche), Urlaub (30 Tage) und Kurzarbeit.'),
 (6, 'Tarifvertrag Einzelhandel Bayern', 'Bayern', 'Einzelhandel', '2023-05-01', NULL,
  'Entgelttabellen für Verkauf und Kasse; Sonderzahlung 62,5 % eines Monatsentgelts.');

CREATE FUNCTION demo.get_tarifvertrag(tarifgebiet text, fachbereich text, search_terms text[] DEFAULT NULL)
RETURNS jsonb LANGUAGE sql STABLE AS $$
    SELECT coalesce(jsonb_agg(jsonb_build_object(
               'id', t.id, 'titel', t.titel, 'gueltig_ab', t.gueltig_ab, 'gueltig_bis', t.gueltig_bis,
               'inhalt', t.inhalt) ORDER BY t.id), '[]'::jsonb)
      FROM demo.tarifvertrag t
     WHERE t.tarifgebiet ILIKE '%' || get_tarifvertrag.tarifgebiet || '%'
       AND t.fachbereich ILIKE '%' || get_tarifvertrag.fachbereich || '%'
       AND (search_terms IS NULL OR cardinality(search_terms) = 0 OR EXISTS (
             SELECT 1 FROM unnest(search_terms) s
              WHERE t.titel ILIKE '%' || s || '%' OR t.inhalt ILIKE '%' || s || '%'))
$$;
COMMENT ON FUNCTION demo.get_tarifvertrag(text, text, text[]) IS
  'Tool getTarifVertrag: agreements of a region and industry, optionally filtered by search terms.';

-- A new interface is closed (only superusers and roles that manage interfaces may use it) until
-- access_role names a role whose members may use it, or 'public' opens it to every role.
INSERT INTO mcp.interface (name, description, access_role) VALUES
 ('chatbot', 'Demo chatbot over collective agreements', 'public');

INSERT INTO mcp.tool (name, description, parameters, function) VALUES
 ('getTarifVertrag',
  'Liefert eine Liste relevanter Tarifverträge basierend auf konkreten Fachparametern wie Tarifgebiet, Fachbereich und fachlichen Suchbegriffen.',
  '{"type": "object",
    "properties": {
      "tarifgebiet": {"type": "string", "description": "Geographische Region des Tarifvertrags."},
      "fachbereich": {"type": "string", "description": "Die Branche oder der fachliche Bereich."},
      "search_terms": {"type": "array", "items": {"type": "string"},
                       "description": "Liste von fachlichen Begriffen für die Suche."}},
    "required": ["tarifgebiet", "fachbereich"]}',
  'demo.get_tarifvertrag(text, text, text[])');

INSERT INTO mcp.interface_tool (interface, tool) VALUES
 ('chatbot', 'getTarifVertrag'),
 ('chatbot', 'getDialog');

-- The chat runs on a replay provider by default: recorded LLM responses (no network, no key),
-- while the tools run for real against demo.tarifvertrag. To use a live model instead:
--   INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('openai', 'openai', 'https://api.openai.com/v1', 'gpt-4o-mini');
--   SELECT mcp.set_api_key('openai', '<key>');
--   UPDATE mcp.interface SET provider = 'openai' WHERE name = 'chatbot';
INSERT INTO mcp.provider (name, kind, model, description, options) VALUES
 ('demo-replay', 'replay', 'recorded-transcript',
  'Replays a recorded transcript of two LLM responses (a tool call, then the answer).',
  jsonb_build_object('responses', jsonb_build_array(
    '{"id":"chatcmpl-demo-1","object":"chat.completion","model":"recorded","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_demo_1","type":"function","function":{"name":"getTarifVertrag","arguments":"{\"tarifgebiet\": \"Bayern\", \"fachbereich\": \"Metall\", \"search_terms\": [\"Urlaub\", \"Arbeitszeit\"]}"}}]}}],"usage":{"prompt_tokens":412,"completion_tokens":41,"total_tokens":453}}',
    '{"id":"chatcmpl-demo-2","object":"chat.completion","model":"recorded","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Für die Metall- und Elektroindustrie in Bayern gilt der Manteltarifvertrag Metall- und Elektroindustrie Bayern (gültig ab 01.01.2024): 35-Stunden-Woche, 30 Tage Urlaub sowie Zuschläge für Mehr-, Nacht- und Sonntagsarbeit."}}],"usage":{"prompt_tokens":655,"completion_tokens":70,"total_tokens":725}}')));
UPDATE mcp.interface SET provider = 'demo-replay' WHERE name = 'chatbot';

-- A second interface for ad-hoc analysis: the built-in read-only SQL tool, the schema overview
-- and a report tool (reviewed SQL, typed parameters = properties in alphabetical order).
-- sql_query refuses superusers, so the demo runs it as the ordinary role demo_analyst.
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'demo_analyst') THEN
    CREATE ROLE demo_analyst NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'demo_guest') THEN
    CREATE ROLE demo_guest NOLOGIN;
  END IF;
END $$;
-- only demo_analyst (and roles it is granted to) may use it
INSERT INTO mcp.interface (name, description, access_role) VALUES ('analysis', 'Ad-hoc read-only analysis', 'demo_analyst');
INSERT INTO mcp.tool (name, description, parameters, kind, body) VALUES
 ('tarif_by_region', 'Tarifverträge eines Tarifgebiets ab einem Datum',
  '{"type": "object", "properties": {"region": {"type": "string"}, "since": {"type": "string", "format": "date"}},
    "required": ["region"]}',
  'report',
  'SELECT id, titel, gueltig_ab FROM demo.tarifvertrag
    WHERE tarifgebiet = $1 AND ($2 IS NULL OR gueltig_ab >= $2) ORDER BY gueltig_ab');
INSERT INTO mcp.interface_tool (interface, tool) VALUES
 ('analysis', 'sql_query'), ('analysis', 'schema_information'), ('analysis', 'tarif_by_region');
GRANT USAGE ON SCHEMA demo TO demo_analyst;
GRANT SELECT ON demo.tarifvertrag TO demo_analyst;
