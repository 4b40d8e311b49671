-- Plans and prompt analysis with hostile input, as an ordinary role: 1 MB questions,
-- one huge token, combining characters, deep and huge thesaurus documents, extreme depths of
-- the graph tools, templates that would expand to hundreds of MB. Each statement may fail with
-- an ERROR; none may crash, hang or leak Rust internals.
SET client_min_messages = warning;
SELECT mcp.load_thesaurus('{"terms": [
  {"id": "by", "kind": "tarifgebiet", "label": "Bayern", "alt_labels": ["BY", "Freistaat Bayern"], "lang": "de", "broader": ["de"], "related": []},
  {"id": "de", "kind": "tarifgebiet", "label": "Deutschland", "alt_labels": [], "lang": "de", "broader": [], "related": []},
  {"id": "me", "kind": "branche", "label": "Metall- und Elektroindustrie", "alt_labels": ["M+E", "Metallindustrie"], "lang": "de", "broader": [], "related": ["by"]}]}', true) IS NOT NULL;
SET statement_timeout = '20s';
SET ROLE attacker;
SELECT jsonb_typeof(mcp.analyze(repeat('Bayern Metallindustrie ', 45000)));
SELECT jsonb_typeof(mcp.analyze(repeat('x', 1000000)));
SELECT jsonb_typeof(mcp.analyze(repeat('Bay' || U&'\0301\0308', 100000)));
SELECT jsonb_typeof(mcp.analyze(repeat(U&'\0301', 300000)));
SELECT jsonb_typeof(mcp.analyze(repeat('ß', 300000)));
SELECT jsonb_typeof(mcp.analyze(repeat('M+E ', 200000)));
SELECT jsonb_typeof(mcp.analyze(repeat('🚀 Bayern ', 60000)));
SELECT jsonb_typeof(mcp.analyze(''));
SELECT mcp.analyze(NULL);
SELECT mcp.analyze('Bayern', NULL);
SELECT mcp.analyze('Bayern', repeat('i', 100000));
SELECT jsonb_typeof(mcp.analyze(E'Bayern\tHessen\r\n\x01\x02\x7f'));
SELECT count(*) FROM mcp.thesaurus_neighbours('by', 2147483647);
SELECT count(*) FROM mcp.thesaurus_neighbours('by', -2147483648);
SELECT count(*) FROM mcp.thesaurus_neighbours(repeat('b', 1000000), 3);
SELECT count(*) FROM mcp.thesaurus_path('by', 'me', 2147483647);
SELECT count(*) FROM mcp.thesaurus_path(repeat('x', 1000000), repeat('y', 1000000), 10);
SELECT count(*) FROM mcp.thesaurus_expand(repeat('by', 500000));
SELECT length(mcp.fold(repeat('Ä' || U&'\0301', 300000)));
SELECT count(*) FROM mcp.tokenize(repeat('a ', 500000));
SELECT mcp.trgm_similarity(repeat('ab', 500000), repeat('ba', 500000)) >= 0;
SELECT cardinality(mcp.template_variables(repeat('{{', 500000)));
SELECT cardinality(mcp.template_variables(repeat('{{a}}', 200000)));
SELECT length(mcp.render_prompt(repeat('{{a}}', 200000), jsonb_build_object('a', repeat('x', 1000))));
SELECT length(mcp.render_prompt(repeat('{{a}}', 1000), jsonb_build_object('a', repeat('x', 1000000))));
SELECT length(mcp.render_prompt('{{a}}', ('{"a": ' || repeat('[', 5000) || repeat(']', 5000) || '}')::jsonb));
SELECT length(mcp.render_prompt('{{a}}', '{"a": "x"}', -1));
SELECT length(mcp.render_prompt('{{a}}', '{"a": "x"}', 2147483647));
SELECT mcp.load_thesaurus(('{"terms": ' || repeat('[', 5000) || repeat(']', 5000) || '}')::jsonb);
SELECT mcp.load_thesaurus(('{"terms": [{"id": "a", "kind": "k", "label": "A", "broader": ' || repeat('[', 5000) || repeat(']', 5000) || '}]}')::jsonb);
SELECT mcp.load_thesaurus(jsonb_build_object('terms', (SELECT jsonb_agg(jsonb_build_object('id', 't' || g, 'kind', 'k', 'label', 'L' || g, 'broader', jsonb_build_array('t' || (g + 1)))) FROM generate_series(1, 20000) g)));
RESET ROLE;
-- The same loads as the owner (who may write the thesaurus): refusals, not crashes.
SELECT mcp.load_thesaurus(('{"terms": ' || repeat('[', 5000) || repeat(']', 5000) || '}')::jsonb);
SELECT mcp.load_thesaurus(('{"terms": [{"id": "a", "kind": "k", "label": "A", "broader": ' || repeat('[', 5000) || repeat(']', 5000) || '}]}')::jsonb);
BEGIN;
SELECT mcp.load_thesaurus(jsonb_build_object('terms', (SELECT jsonb_agg(jsonb_build_object('id', 't' || g, 'kind', 'k', 'label', 'L' || g, 'broader', CASE WHEN g < 20000 THEN jsonb_build_array('t' || (g + 1)) ELSE '["t1"]' END)) FROM generate_series(1, 20000) g)), true);
ROLLBACK;
BEGIN;
SELECT mcp.load_thesaurus(jsonb_build_object('terms', (SELECT jsonb_agg(jsonb_build_object('id', 't' || g, 'kind', 'k', 'label', repeat('L', 100000) || g, 'alt_labels', jsonb_build_array(repeat('a', 50000)))) FROM generate_series(1, 10) g)), true) IS NOT NULL;
SELECT jsonb_typeof(mcp.analyze(repeat('L', 100000) || '1 und ' || repeat('a', 50000)));
ROLLBACK;
