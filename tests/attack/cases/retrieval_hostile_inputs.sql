-- Retrieval with hostile input, as an ordinary role and as the owner: chunking of
-- 1 MB bodies (one endless word, deep markdown), absurd token limits, huge and empty embedding
-- batches, 1 MB queries, extreme k, deep and wide metadata filters, wrong vector dimensions.
-- Each statement may fail with an ERROR; none may crash, hang or leak Rust internals.
SET client_min_messages = warning;
INSERT INTO mcp.embedding_model (name, kind, dimension, path, access_role)
VALUES ('attack_minilm', 'local', 384, '/usr/local/share/pg_mcp/models/all-MiniLM-L6-v2', 'public');
INSERT INTO mcp.collection (name, embedding_model, purpose, text_config) VALUES ('attack_c', 'attack_minilm', 'rag', 'german');
GRANT INSERT, SELECT, UPDATE, DELETE ON mcp.document, mcp.chunk TO attacker;
SELECT mcp.ingest('attack_c', 'a://1', 'Eins', 'Die Arbeitszeit beträgt 35 Stunden. Urlaub: 30 Tage.', '{"region": "Bayern"}') IS NOT NULL;
SET statement_timeout = '30s';
SET ROLE attacker;
SELECT count(*) FROM mcp.chunk_text(repeat('x', 1000000));
SELECT count(*) FROM mcp.chunk_text(repeat('Wort ', 200000), 512, 64);
SELECT count(*) FROM mcp.chunk_text(repeat('Wort ', 1000), 0, 0);
SELECT count(*) FROM mcp.chunk_text(repeat('Wort ', 1000), -1, -5);
SELECT count(*) FROM mcp.chunk_text(repeat('Wort ', 1000), 1, 1000000);
SELECT count(*) FROM mcp.chunk_text(repeat('Wort ', 1000), 2147483647, 2147483647);
SELECT count(*) FROM mcp.chunk_text(repeat('Wort ', 1000), 8, 7);
SELECT count(*) FROM mcp.chunk_text(repeat('> ', 100000) || 'x', 64, 8, 'markdown');
SELECT count(*) FROM mcp.chunk_text(repeat('#', 100000) || ' x', 64, 8, 'markdown');
SELECT count(*) FROM mcp.chunk_text(repeat('- ', 100000) || 'x', 64, 8, 'markdown');
SELECT count(*) FROM mcp.chunk_text(repeat('  - a' || chr(10), 50000), 64, 8, 'markdown');
SELECT count(*) FROM mcp.chunk_text(repeat('[', 200000) || repeat(']', 200000), 64, 8, 'markdown');
SELECT count(*) FROM mcp.chunk_text(repeat('*_', 300000), 64, 8, 'markdown');
SELECT count(*) FROM mcp.chunk_text(repeat('```' || chr(10), 100000), 64, 8, 'markdown');
SELECT count(*) FROM mcp.chunk_text(repeat('<div>', 100000), 64, 8, 'markdown');
SELECT count(*) FROM mcp.chunk_text(repeat('|a|' || chr(10), 100000), 64, 8, 'markdown');
SELECT count(*) FROM mcp.chunk_text(repeat(U&'\0301', 300000), 64, 8);
SELECT count(*) FROM mcp.chunk_text('x', 64, 8, repeat('f', 100000));
SELECT count(*) FROM mcp.chunk_text(NULL);
SELECT cardinality(mcp.embed(ARRAY[repeat('Wort ', 200000)], 'attack_minilm'));
SELECT cardinality(mcp.embed(ARRAY[repeat('x', 1000000)], 'attack_minilm'));
SELECT cardinality(mcp.embed(ARRAY[repeat(U&'\0301', 300000)], 'attack_minilm'));
SELECT cardinality(mcp.embed(ARRAY[]::text[], 'attack_minilm'));
SELECT cardinality(mcp.embed(ARRAY[NULL, '', ' ']::text[], 'attack_minilm'));
SELECT cardinality(mcp.embed(ARRAY['x'], NULL));
SELECT cardinality(mcp.embed(ARRAY['x'], repeat('m', 1000000)));
SET statement_timeout = '3s';
SELECT cardinality(mcp.embed(array_fill('Die Arbeitszeit beträgt 35 Stunden'::text, ARRAY[100000]), 'attack_minilm'));
SET statement_timeout = '30s';
SELECT count(*) FROM mcp.search('attack_c', repeat('Arbeitszeit ', 90000));
SELECT count(*) FROM mcp.search('attack_c', repeat('x', 1000000), 5, 'text');
SELECT count(*) FROM mcp.search('attack_c', 'Urlaub', 2147483647);
SELECT count(*) FROM mcp.search('attack_c', 'Urlaub', -2147483648);
SELECT count(*) FROM mcp.search('attack_c', 'Urlaub', 0);
SELECT count(*) FROM mcp.search('attack_c', 'Urlaub', 5, repeat('m', 100000));
SELECT count(*) FROM mcp.search('attack_c', 'Urlaub', 5, 'vector', ('{"region": ' || repeat('[', 5000) || repeat(']', 5000) || '}')::jsonb);
SELECT count(*) FROM mcp.search('attack_c', 'Urlaub', 5, 'hybrid', (SELECT jsonb_object_agg('k' || g, 'v' || g) FROM generate_series(1, 20000) g));
SELECT count(*) FROM mcp.search('attack_c', 'Urlaub', 5, 'hybrid', '{"region": null, "x": {"y": [1, 2]}, "": ""}');
SELECT count(*) FROM mcp.search('attack_c', 'Urlaub', 5, 'hybrid', '[1, 2, 3]');
SELECT count(*) FROM mcp.search('attack_c', 'Urlaub', 5, 'hybrid', '"scalar"');
SELECT count(*) FROM mcp.search('attack_c', E'\\ & | ! ( ) : * <-> \' " %', 5, 'text');
SELECT count(*) FROM mcp.search(repeat('c', 1000000), 'Urlaub');
SELECT count(*) FROM mcp.search_by_vector('attack_c', 'x', array_fill(0.5::real, ARRAY[3])::vector, 5);
SELECT count(*) FROM mcp.search_by_vector('attack_c', 'x', array_fill(0.5::real, ARRAY[16000])::vector, 5);
SELECT count(*) FROM mcp.search_by_vector('attack_c', 'x', array_fill(0::real, ARRAY[384])::vector, 5, 'vector');
SELECT mcp.ingest('attack_c', repeat('u', 1000000), 'T', 'Text', '{}') IS NOT NULL;
SELECT mcp.ingest('attack_c', 'a://deep', 'T', 'Text', ('{"m": ' || repeat('[', 5000) || repeat(']', 5000) || '}')::jsonb) IS NOT NULL;
SELECT mcp.ingest('attack_c', 'a://big', repeat('T', 1000000), repeat('Satz mit Worten. ', 30000), '{}') IS NOT NULL;
SELECT mcp.ingest(NULL, NULL, NULL, NULL, NULL) IS NOT NULL;
SELECT mcp.register_search_tool(repeat('n', 100000), 'attack_c');
SELECT mcp.register_search_tool('bad name; drop table x', 'attack_c', 'vector');
RESET ROLE;
-- As the owner: the same big ingest and a collection with absurd settings.
SELECT mcp.ingest('attack_c', 'a://big-owner', 'T', repeat('Satz mit Worten. ', 30000), '{}') IS NOT NULL;
INSERT INTO mcp.collection (name, embedding_model, purpose, text_config, top_k, min_score, chunk_tokens, chunk_overlap)
VALUES ('attack_bad', 'attack_minilm', 'rag', 'german', 2147483647, 2, 2147483647, 2147483647);
INSERT INTO mcp.collection (name, embedding_model, purpose, text_config) VALUES ('attack_cfg', 'attack_minilm', 'rag', repeat('g', 100000));
DELETE FROM mcp.collection WHERE name LIKE 'attack_%';
DELETE FROM mcp.embedding_model WHERE name = 'attack_minilm';
