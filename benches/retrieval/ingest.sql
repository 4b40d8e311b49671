-- Ingestion throughput in chunks/s on the demo corpus (demo/retrieval.sql must be loaded), copies
-- of its 10 documents (5 copies, 50 chunks, where the local model embeds; 50 copies, 500 chunks,
-- where it does not, so that the fast paths run long enough to measure): (a) mcp.ingest with the
-- local model (chunk, embed, store),
-- (d) mcp.ingest with an openai-kind model against the suite's mock server on loopback (:mock,
-- scenario bench_embed: 384-dimensional vectors, no latency; batches of 32 chunks), (b) the same
-- chunks stored without embedding (chunk_text, tsvector, insert, HNSW index insert, with a
-- precomputed vector), (c) the embedding alone (mcp.embed over the chunks of (a)).
\set ON_ERROR_STOP on
\pset format aligned
SET client_min_messages = warning;
BEGIN;
INSERT INTO mcp.collection (name, embedding_model, text_config, chunk_tokens, chunk_overlap)
VALUES ('bench_ingest', 'minilm', 'german', 120, 16), ('bench_noembed', 'minilm', 'german', 120, 16);
INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('bench_mock', 'openai', :'mock' || '/s/bench_embed/v1', 'mock-embed');
INSERT INTO mcp.embedding_model (name, kind, dimension, provider, model, batch_size)
VALUES ('bench_mock384', 'openai', 384, 'bench_mock', 'mock-embed', 32);
INSERT INTO mcp.collection (name, embedding_model, text_config, chunk_tokens, chunk_overlap)
VALUES ('bench_openai', 'bench_mock384', 'german', 120, 16);
-- the first request opens the connection
SELECT vector_dims((mcp.embed(ARRAY['warm'], 'bench_mock384'))[1]) AS warm_openai;
-- warm the backend's model cache (loading the files is measured separately below)
SELECT vector_dims((mcp.embed(ARRAY['warm'], 'minilm'))[1]) AS warm;
CREATE TEMP TABLE t (what text, chunks bigint, seconds float8);
DO $$
DECLARE t0 timestamptz; n bigint; v vector;
BEGIN
  t0 := clock_timestamp();
  PERFORM mcp.ingest('bench_ingest', d.uri || '#' || c, d.title, d.body || ' (Kopie ' || c || ')', d.metadata)
     FROM mcp.document d, generate_series(1, 5) c WHERE d.collection = 'tarif';
  SELECT count(*) INTO n FROM mcp.chunk ch JOIN mcp.collection k ON k.collection_id = ch.collection_id WHERE k.name = 'bench_ingest';
  INSERT INTO t VALUES ('(a) mcp.ingest, local model included', n, extract(epoch FROM clock_timestamp() - t0));

  t0 := clock_timestamp();
  PERFORM mcp.ingest('bench_openai', d.uri || '#' || c, d.title, d.body || ' (Kopie ' || c || ')', d.metadata)
     FROM mcp.document d, generate_series(1, 50) c WHERE d.collection = 'tarif';
  SELECT count(*) INTO n FROM mcp.chunk ch JOIN mcp.collection k ON k.collection_id = ch.collection_id WHERE k.name = 'bench_openai';
  INSERT INTO t VALUES ('(d) mcp.ingest, openai kind (loopback mock, batches of 32)', n, extract(epoch FROM clock_timestamp() - t0));

  v := (SELECT embedding FROM mcp.chunk LIMIT 1);
  t0 := clock_timestamp();
  WITH docs AS (
    INSERT INTO mcp.document (collection, uri, title, body, metadata, content_hash)
    SELECT 'bench_noembed', d.uri || '#' || c, d.title, d.body || ' (Kopie ' || c || ')', d.metadata,
           sha256(convert_to(d.body || c, 'UTF8'))
      FROM mcp.document d, generate_series(1, 50) c WHERE d.collection = 'tarif'
    RETURNING document_id, body)
  INSERT INTO mcp.chunk (document_id, collection_id, position, text, token_count, embedding, tsv)
  SELECT docs.document_id, (SELECT collection_id FROM mcp.collection WHERE name = 'bench_noembed'),
         x.position, x.text, x.token_count, v, to_tsvector('german', x.text)
    FROM docs, mcp.chunk_text(docs.body, 120, 16) x;
  GET DIAGNOSTICS n = ROW_COUNT;
  INSERT INTO t VALUES ('(b) stored without embedding (chunk, tsvector, insert, HNSW)', n, extract(epoch FROM clock_timestamp() - t0));

  SELECT count(*) INTO n FROM mcp.chunk ch JOIN mcp.collection k ON k.collection_id = ch.collection_id WHERE k.name = 'bench_ingest';
  t0 := clock_timestamp();
  PERFORM mcp.embed(array_agg(ch.text), 'minilm')
     FROM mcp.chunk ch JOIN mcp.collection k ON k.collection_id = ch.collection_id WHERE k.name = 'bench_ingest';
  INSERT INTO t VALUES ('(c) embedding alone (mcp.embed, local model)', n, extract(epoch FROM clock_timestamp() - t0));
END $$;
SELECT what, chunks, round(seconds::numeric, 2) AS seconds, round((chunks / seconds)::numeric, 1) AS "chunks/s" FROM t;
ROLLBACK;
