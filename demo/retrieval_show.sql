-- What the retrieval demo shows (printed by scripts/demo.sh after demo/retrieval.sql).
\pset format aligned
\pset border 1
\echo
\echo '== Chunking: mcp.chunk_text (token counts with the chat loop''s tokenizer, cl100k_base) =='
SELECT position, token_count, left(text, 70) AS text
  FROM mcp.chunk_text((SELECT body FROM mcp.document WHERE uri = 'tv://metall-bayern/mtv'), 40, 8);
\echo
\echo '== mcp.search, mode vector (HNSW, cosine similarity) =='
SELECT round(score::numeric, 3) AS score, title, uri FROM mcp.search('tarif', 'Wie viel Urlaub gibt es in der Metallindustrie?', 3, 'vector');
\echo
\echo '== mcp.search, mode text (german text search, ts_rank_cd) =='
SELECT round(score::numeric, 3) AS score, title, uri FROM mcp.search('tarif', 'Urlaub Arbeitstage', 3, 'text');
\echo
\echo '== mcp.search, mode hybrid (relative score fusion: each leg scaled to 0..1, text weight 0.2) =='
SELECT round(score::numeric, 4) AS score, title, uri FROM mcp.search('tarif', 'Urlaub Arbeitstage Metall', 3, 'hybrid');
\echo
\echo '== ... with a metadata filter (applied before the top k) =='
SELECT round(score::numeric, 4) AS score, title, metadata FROM mcp.search('tarif', 'Urlaub Arbeitstage', 3, 'hybrid', '{"tarifgebiet": "NRW"}');
\echo
\echo '== Entity-aware search: a German question naming a Land and a branch (mcp.search_entities) =='
SELECT key, values FROM jsonb_to_recordset(mcp.search_entities(
  (SELECT entity_keys FROM mcp.collection WHERE name = 'tarif'),
  'Wie hoch ist der Sonntagszuschlag in der bayerischen Metallindustrie?')) AS e(key text, values jsonb);
\echo '-- hybrid, without entities (entity_keys cleared for this one query):'
BEGIN;
UPDATE mcp.collection SET entity_keys = '{}' WHERE name = 'tarif';
SELECT round(score::numeric, 4) AS score, title, uri FROM mcp.search('tarif', 'Wie hoch ist der Sonntagszuschlag in der bayerischen Metallindustrie?', 3, 'hybrid');
ROLLBACK;
\echo '-- hybrid, entity-aware (the collection''s entity_keys: boost):'
SELECT round(score::numeric, 4) AS score, title, uri FROM mcp.search('tarif', 'Wie hoch ist der Sonntagszuschlag in der bayerischen Metallindustrie?', 3, 'hybrid');
\echo
\echo '== The built-in tool context_retrieve (gate: purpose rag, same model fingerprint and dimension, min_score) =='
SELECT mcp.call_tool('context_retrieve', '{"query": "Kündigungsfrist öffentlicher Dienst"}', 'tarif_rag')->'content'->0->>'text' AS context_retrieve;
SELECT mcp.call_tool('context_retrieve', '{"query": "Raumfahrt Mondlandung Rakete"}', 'tarif_rag')->'content'->0->>'text' AS weak_matches;
\echo
\echo '== A replayed chat: the model calls context_retrieve and answers with a citation =='
SELECT r->>'status' AS status, r->>'answer' AS answer
  FROM mcp.chat('Wie viele Urlaubstage haben Beschäftigte der Metallindustrie in Bayern?', 'tarif_rag') AS r;
SELECT tool, status, arguments AS audit_arguments, left(result_preview, 60) AS result
  FROM mcp.tool_call WHERE tool = 'context_retrieve' ORDER BY call_id DESC LIMIT 1;
