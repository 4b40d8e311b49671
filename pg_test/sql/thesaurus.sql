-- mcp.load_thesaurus (fixed shape, idempotent, refusals naming the culprits) and the graph
-- tools thesaurus_expand / thesaurus_neighbours / thesaurus_path (cycle protection, depth limit).
\set VERBOSITY default
BEGIN;
SET client_min_messages = warning;
CREATE FUNCTION pg_temp.sqlstate_of(stmt text) RETURNS text LANGUAGE plpgsql AS
  $f$ BEGIN EXECUTE stmt; RETURN 'ok'; EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE || ': ' || SQLERRM; END $f$;
SELECT mcp.load_thesaurus('{"terms": [
  {"id": "de", "kind": "tarifgebiet", "label": "Deutschland", "alt_labels": ["BRD"], "lang": "de", "broader": [], "related": []},
  {"id": "by", "kind": "tarifgebiet", "label": "Bayern", "alt_labels": ["BY", "Freistaat Bayern"], "lang": "de", "broader": ["de"], "related": []},
  {"id": "he", "kind": "tarifgebiet", "label": "Hessen", "alt_labels": ["HE"], "broader": ["de"]},
  {"id": "muc", "kind": "tarifgebiet", "label": "München", "broader": ["by"]},
  {"id": "me", "kind": "fachbereich", "label": "Metall- und Elektroindustrie", "alt_labels": ["M+E", "Metallindustrie"], "related": ["kfz"]},
  {"id": "kfz", "kind": "fachbereich", "label": "Kfz-Handwerk", "narrower": []},
  {"id": "chemie", "kind": "fachbereich", "label": "Chemische Industrie", "note": "unknown keys are ignored"}]}') AS first_load;
-- loading the same document again changes nothing
SELECT mcp.load_thesaurus('{"terms": [
  {"id": "de", "kind": "tarifgebiet", "label": "Deutschland", "alt_labels": ["BRD"], "lang": "de", "broader": [], "related": []},
  {"id": "by", "kind": "tarifgebiet", "label": "Bayern", "alt_labels": ["Freistaat Bayern", "BY"], "lang": "de", "broader": ["de"], "related": []},
  {"id": "he", "kind": "tarifgebiet", "label": "Hessen", "alt_labels": ["HE"], "broader": ["de"]},
  {"id": "muc", "kind": "tarifgebiet", "label": "München", "broader": ["by"]},
  {"id": "me", "kind": "fachbereich", "label": "Metall- und Elektroindustrie", "alt_labels": ["M+E", "Metallindustrie"], "related": ["kfz"]},
  {"id": "kfz", "kind": "fachbereich", "label": "Kfz-Handwerk", "narrower": []},
  {"id": "chemie", "kind": "fachbereich", "label": "Chemische Industrie"}]}') AS second_load;
SELECT source, relation, target FROM mcp.thesaurus_relation ORDER BY 1, 2, 3;
SELECT term_id, label, preferred, stems, caps FROM mcp.thesaurus_label WHERE term_id IN ('by', 'me') ORDER BY 1, 2;
-- an update of one term (without replace the others stay); narrower is the inverse of broader
SELECT mcp.load_thesaurus('{"terms": [{"id": "kfz", "kind": "fachbereich", "label": "Kfz-Handwerk", "alt_labels": ["Autowerkstätten"], "broader": ["me"]}]}') AS partial;
SELECT count(*) AS terms FROM mcp.thesaurus_term;

-- refusals: nothing is changed, the message names the culprits
SELECT pg_temp.sqlstate_of($q$SELECT mcp.load_thesaurus('{"terms": [{"id": "a", "kind": "k", "label": "A"}, {"id": "b", "kind": "k", "label": "B"}, {"id": "a", "kind": "k", "label": "A2"}]}')$q$) AS refused;
SELECT pg_temp.sqlstate_of($q$SELECT mcp.load_thesaurus('{"terms": [{"id": "x", "kind": "k", "label": "X", "broader": ["nowhere"], "related": ["by", "nirgends"]}]}')$q$) AS refused;
SELECT pg_temp.sqlstate_of($q$SELECT mcp.load_thesaurus('{"terms": [{"id": "a", "kind": "k", "label": "A", "broader": ["b"]}, {"id": "b", "kind": "k", "label": "B", "broader": ["c"]}, {"id": "c", "kind": "k", "label": "C", "broader": ["a"]}]}')$q$) AS refused;
-- a cycle through a term already stored (de is below muc -> by -> de)
SELECT pg_temp.sqlstate_of($q$SELECT mcp.load_thesaurus('{"terms": [{"id": "de", "kind": "tarifgebiet", "label": "Deutschland", "broader": ["muc"]}]}')$q$) AS refused;
SELECT pg_temp.sqlstate_of($q$SELECT mcp.load_thesaurus('{"terms": [{"id": "a", "kind": "k", "label": "A", "broader": ["a"]}]}')$q$) AS refused;
SELECT pg_temp.sqlstate_of($q$SELECT mcp.load_thesaurus('{"terms": [{"id": "a", "kind": "k"}]}')$q$) AS refused;
SELECT pg_temp.sqlstate_of($q$SELECT mcp.load_thesaurus('{"terms": [{"id": "a", "kind": "k", "label": "A", "alt_labels": "A1"}]}')$q$) AS refused;
SELECT pg_temp.sqlstate_of($q$SELECT mcp.load_thesaurus('[1, 2]')$q$) AS refused;
SELECT pg_temp.sqlstate_of($q$SELECT mcp.load_thesaurus('{"terms": [{"id": "bad id!", "kind": "k", "label": "A"}]}')$q$) AS refused;
SELECT count(*) AS terms_after_refusals FROM mcp.thesaurus_term;

-- graph tools (registered built-ins, called through mcp.call_tool like any tool)
INSERT INTO mcp.interface (name) VALUES ('graph');
INSERT INTO mcp.interface_tool VALUES ('graph', 'thesaurus_expand'), ('graph', 'thesaurus_neighbours'), ('graph', 'thesaurus_path');
SELECT name, kind, function FROM mcp.tool WHERE name LIKE 'thesaurus%' ORDER BY 1;
SELECT jsonb_pretty(mcp.call_tool('thesaurus_expand', '{"term": "M+E"}', 'graph') -> 'structuredContent');
SELECT mcp.thesaurus_expand('deutschland') -> 'narrower' AS narrower_of_de;
SELECT mcp.thesaurus_expand('Atlantis') AS unknown;
SELECT mcp.thesaurus_neighbours('by', 1) AS depth1;
SELECT mcp.thesaurus_neighbours('muc', 3) AS depth3;
SELECT mcp.thesaurus_path('München', 'Hessen') AS path;
SELECT mcp.thesaurus_path('muc', 'he', 2) AS too_short;
SELECT mcp.thesaurus_path('kfz', 'chemie') AS unconnected;
-- depth limit: 1 .. 10
SELECT pg_temp.sqlstate_of($q$SELECT mcp.thesaurus_neighbours('by', 11)$q$) AS refused;
SELECT mcp.call_tool('thesaurus_neighbours', '{"term": "by", "depth": 0}', 'graph') -> 'content' -> 0 ->> 'text' AS refused;
-- cycle protection: related is symmetric and may form cycles (a - b - c - a); walks end
INSERT INTO mcp.thesaurus_term (id, kind, label) VALUES ('ra', 'k', 'Ring A'), ('rb', 'k', 'Ring B'), ('rc', 'k', 'Ring C');
INSERT INTO mcp.thesaurus_relation VALUES ('ra', 'related', 'rb'), ('rb', 'related', 'rc'), ('rc', 'related', 'ra');
SELECT mcp.thesaurus_neighbours('ra', 10) AS ring;
SELECT mcp.thesaurus_path('ra', 'rc', 10) -> 'length' AS ring_path_length;
-- a dense graph: 60 terms all related to each other (3540 edges), depth 10: bounded work
INSERT INTO mcp.thesaurus_term (id, kind, label) SELECT 'n' || i, 'k', 'Knoten ' || i FROM generate_series(1, 60) i;
INSERT INTO mcp.thesaurus_relation SELECT 'n' || i, 'related', 'n' || j FROM generate_series(1, 60) i, generate_series(1, 60) j WHERE i < j;
SELECT jsonb_array_length(mcp.thesaurus_neighbours('n1', 10) -> 'neighbours') AS dense_neighbours,
       mcp.thesaurus_path('n1', 'n60', 10) -> 'length' AS dense_path;
-- depth limit on a chain of 13 terms: neighbours stop at depth, expand at 10 levels
SELECT mcp.load_thesaurus(jsonb_build_object('terms', (SELECT jsonb_agg(jsonb_build_object('id', 'c' || i, 'kind', 'k', 'label', 'Kette ' || i,
        'broader', CASE WHEN i > 0 THEN jsonb_build_array('c' || (i - 1)) ELSE '[]' END)) FROM generate_series(0, 12) i))) ->> 'inserted' AS chain;
SELECT jsonb_array_length(mcp.thesaurus_neighbours('c0', 3) -> 'neighbours') AS within_3,
       jsonb_array_length(mcp.thesaurus_neighbours('c0', 10) -> 'neighbours') AS within_10,
       jsonb_array_length(mcp.thesaurus_expand('c0') -> 'narrower') AS expand_levels,
       mcp.thesaurus_path('c0', 'c12', 10) -> 'found' AS path_12_steps;
-- replace: terms not in the document go (with their relations)
SELECT mcp.load_thesaurus('{"terms": [{"id": "de", "kind": "tarifgebiet", "label": "Deutschland"}]}', replace => true) AS replaced;
SELECT count(*) AS terms, (SELECT count(*) FROM mcp.thesaurus_relation) AS relations, (SELECT count(*) FROM mcp.thesaurus_label) AS labels FROM mcp.thesaurus_term;
ROLLBACK;
