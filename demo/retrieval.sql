-- Retrieval demo (issue 13): a small German corpus of collective-agreement excerpts, written for
-- this demo (not the text of real agreements), ingested with the local multilingual embedding
-- model (multilingual-e5-small, run inside the backend; the English all-MiniLM-L6-v2 is
-- registered too), searched in three modes, and a replayed chat in which the model calls
-- context_retrieve and answers with a citation.
\set ON_ERROR_STOP on
SET client_min_messages = warning;

-- German collections and the plan signal use E5 (queries get "query: ", chunks "passage: ").
-- E5's cosine similarities are compressed (unrelated German text still scores about 0.79, a
-- matching clause 0.85 to 0.90), hence min_score 0.82 for context_retrieve.
INSERT INTO mcp.embedding_model (name, kind, dimension, path) VALUES
 ('minilm', 'local', 384, '/usr/local/share/pg_mcp/models/all-MiniLM-L6-v2'),
 ('e5', 'local', 384, '/usr/local/share/pg_mcp/models/multilingual-e5-small-q4')
ON CONFLICT (name) DO NOTHING;

INSERT INTO mcp.collection (name, description, purpose, embedding_model, text_config, top_k, min_score, chunk_tokens, chunk_overlap)
VALUES ('tarif', 'Auszüge aus Tarifverträgen (für die Demo geschrieben)', 'rag', 'e5', 'german', 7, 0.82, 120, 16)
ON CONFLICT (name) DO NOTHING;

-- Entity-aware search: the question's entities (thesaurus kinds tarifgebiet and fachbereich, see
-- demo/thesaurus.json) boost the documents whose metadata tarifgebiet / branche name them.
UPDATE mcp.collection SET entity_keys = '{"tarifgebiet": "tarifgebiet", "fachbereich": "branche"}'
 WHERE name = 'tarif' AND entity_keys = '{}';

CREATE TEMP TABLE demo_corpus (uri text, title text, region text, branche text, body text);
INSERT INTO demo_corpus VALUES
('tv://metall-bayern/mtv', 'Manteltarifvertrag Metall- und Elektroindustrie Bayern', 'Bayern', 'Metall',
 'Die regelmäßige wöchentliche Arbeitszeit beträgt 35 Stunden. Beschäftigte haben Anspruch auf 30 Arbeitstage Urlaub im Kalenderjahr.

Für Mehrarbeit wird ein Zuschlag von 25 Prozent gezahlt, für Nachtarbeit zwischen 22 und 6 Uhr ein Zuschlag von 25 Prozent und für Arbeit an Sonntagen ein Zuschlag von 70 Prozent.'),
('tv://metall-nrw/etv', 'Entgelttarifvertrag Metall- und Elektroindustrie Nordrhein-Westfalen', 'NRW', 'Metall',
 'Die Tabellenentgelte steigen ab dem 1. Juni 2024 um 5,1 Prozent und ab dem 1. Mai 2025 um weitere 3,3 Prozent. Die Beschäftigten erhalten eine steuerfreie Inflationsausgleichsprämie von 1.500 Euro in zwei Raten.

Auszubildende erhalten im ersten Ausbildungsjahr eine Ausbildungsvergütung von 1.150 Euro monatlich.'),
('tv://chemie-nrw/mtv', 'Manteltarifvertrag Chemische Industrie Nordrhein-Westfalen', 'NRW', 'Chemie',
 'Die tarifliche wöchentliche Arbeitszeit beträgt 37,5 Stunden. Beschäftigte in vollkontinuierlicher Wechselschicht erhalten zusätzliche Freischichten zum Ausgleich der Belastung.

Der Urlaub beträgt 30 Arbeitstage. Zusätzlich wird ein Urlaubsgeld von 20,45 Euro je Urlaubstag gezahlt.'),
('tv://chemie-bund/demografie', 'Tarifvertrag Lebensarbeitszeit und Demografie Chemie', 'Bund', 'Chemie',
 'Die Arbeitgeber zahlen jährlich einen Demografiebetrag von 750 Euro je Tarifbeschäftigten in einen betrieblichen Demografiefonds. Aus dem Fonds können Altersteilzeit, Langzeitkonten, eine Teilrente oder eine Berufsunfähigkeitsversicherung finanziert werden.'),
('tv://handel-bw/mtv', 'Manteltarifvertrag Einzelhandel Baden-Württemberg', 'Baden-Württemberg', 'Handel',
 'Für Arbeit nach 18:30 Uhr wird ein Spätöffnungszuschlag von 20 Prozent gezahlt, nach 20 Uhr von 50 Prozent. Arbeit an Sonn- und Feiertagen wird mit einem Zuschlag von 120 Prozent vergütet.

Die Kündigungsfrist beträgt in den ersten sechs Monaten zwei Wochen, danach einen Monat zum Monatsende.'),
('tv://handel-bayern/etv', 'Entgelttarifvertrag Einzelhandel Bayern', 'Bayern', 'Handel',
 'Verkäuferinnen und Verkäufer werden in die Entgeltgruppe III eingruppiert. Nach dem sechsten Berufsjahr beträgt das Monatsentgelt 3.160 Euro.

Die Ausbildungsvergütung beträgt im ersten Ausbildungsjahr 1.100 Euro, im zweiten 1.200 Euro und im dritten 1.350 Euro.'),
('tv://bau-bund/brtv', 'Bundesrahmentarifvertrag für das Baugewerbe', 'Bund', 'Bau',
 'Für Arbeiten unter besonderen Erschwernissen, etwa in Schächten, bei großer Hitze oder mit gesundheitsschädlichen Stoffen, werden Erschwerniszuschläge je Stunde gezahlt.

Arbeitnehmer auf Baustellen, die mehr als 50 Kilometer vom Betrieb entfernt liegen, erhalten eine Wegezeitentschädigung und eine Auslösung für die Übernachtung.'),
('tv://oed-bund/tvoed', 'Tarifvertrag für den öffentlichen Dienst (Bund und Kommunen)', 'Bund', 'Öffentlicher Dienst',
 'Beschäftigte erhalten eine Jahressonderzahlung, die mit dem Gehalt für November ausgezahlt wird. Der Aufstieg in die nächste Stufe der Entgelttabelle erfolgt nach Zeiten ununterbrochener Tätigkeit.

Die Kündigungsfrist beträgt bei einer Beschäftigungszeit von mehr als fünf Jahren drei Monate zum Schluss eines Kalendervierteljahres.'),
('tv://banken/mtv', 'Manteltarifvertrag für das private Bankgewerbe', 'Bund', 'Banken',
 'Die regelmäßige Arbeitszeit beträgt 39 Stunden in der Woche. Beschäftigte erhalten ein 13. Monatsgehalt, das mit dem Novembergehalt gezahlt wird.

Mobiles Arbeiten kann bis zu 60 Prozent der Arbeitszeit vereinbart werden; die Bank stellt die Arbeitsmittel zur Verfügung.'),
('tv://metall-bw/mobiles-arbeiten', 'Tarifvertrag Mobiles Arbeiten Metall- und Elektroindustrie Baden-Württemberg', 'Baden-Württemberg', 'Metall',
 'Beschäftigte können beantragen, ihre Arbeit ganz oder teilweise außerhalb des Betriebs zu erbringen. Der Arbeitgeber darf den Antrag nur aus betrieblichen Gründen ablehnen.

Außerhalb der vereinbarten Erreichbarkeitszeiten besteht keine Pflicht, dienstliche E-Mails oder Anrufe zu beantworten.');

SELECT d.uri, r->>'status' AS status, (r->>'chunks')::int AS chunks
  FROM demo_corpus d,
       LATERAL mcp.ingest('tarif', d.uri, d.title, d.body,
                          jsonb_build_object('tarifgebiet', d.region, 'branche', d.branche)) AS r
 ORDER BY d.uri;

-- A hybrid search tool on the collection (registered once).
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM mcp.tool WHERE name = 'tarif_suche') THEN
    PERFORM mcp.register_search_tool('tarif_suche', 'tarif', 'hybrid',
      'Durchsucht die Tarifvertragsauszüge (Volltext und semantisch). Optional filter: {"tarifgebiet": …, "branche": …}.');
  END IF;
END $$;

-- Interface tarif_rag: context_retrieve with the collection's embedding model, and a replayed
-- chat: the model asks context_retrieve, then answers from the passage with a citation.
INSERT INTO mcp.provider (name, kind, model, description, options) VALUES
 ('demo-rag-replay', 'replay', 'recorded-transcript',
  'Replays a recorded transcript: a context_retrieve call, then an answer citing the passage.',
  jsonb_build_object('responses', jsonb_build_array(
    '{"id":"chatcmpl-rag-1","object":"chat.completion","model":"recorded","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_rag_1","type":"function","function":{"name":"context_retrieve","arguments":"{\"query\": \"Urlaub Arbeitstage Metall Bayern\"}"}}]}}],"usage":{"prompt_tokens":380,"completion_tokens":24,"total_tokens":404}}',
    '{"id":"chatcmpl-rag-2","object":"chat.completion","model":"recorded","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"In der Metall- und Elektroindustrie Bayern haben Beschäftigte Anspruch auf 30 Arbeitstage Urlaub im Kalenderjahr; die Wochenarbeitszeit beträgt 35 Stunden. Quelle: Manteltarifvertrag Metall- und Elektroindustrie Bayern (tv://metall-bayern/mtv)."}}],"usage":{"prompt_tokens":612,"completion_tokens":58,"total_tokens":670}}')))
ON CONFLICT (name) DO NOTHING;
INSERT INTO mcp.interface (name, description, provider, access_role, embedding_model)
VALUES ('tarif_rag', 'RAG over the collective-agreement excerpts', 'demo-rag-replay', 'public', 'e5')
ON CONFLICT (name) DO NOTHING;
INSERT INTO mcp.interface_tool VALUES ('tarif_rag', 'context_retrieve'), ('tarif_rag', 'tarif_suche')
ON CONFLICT DO NOTHING;

-- The plan signal of the demo's chatbot (mcp.analyze: similarity of the question to the plans'
-- example questions) with the multilingual model: the questions are German.
UPDATE mcp.interface SET embedding_model = 'e5' WHERE name = 'chatbot' AND embedding_model IS NULL;
