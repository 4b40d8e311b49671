-- Search latency and HNSW recall at :n chunks of 384-dimensional synthetic vectors (uniform
-- random, unit length: the hardest case for an approximate index). Run by run.sh:
--   psql ... -v n=10000 -f benches/retrieval/search.sql
\set ON_ERROR_STOP on
\pset format aligned
SET client_min_messages = warning;
SET maintenance_work_mem = '1GB';
BEGIN;
INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('bench_none', 'openai', 'http://127.0.0.1:9/v1', 'none');
INSERT INTO mcp.embedding_model (name, kind, dimension, provider, model) VALUES ('bench384', 'openai', 384, 'bench_none', 'none');
INSERT INTO mcp.collection (name, embedding_model, text_config) VALUES ('bench', 'bench384', 'simple');
SELECT collection_id AS cid FROM mcp.collection WHERE name = 'bench' \gset
INSERT INTO mcp.document (collection, uri, title, body, metadata, content_hash)
SELECT 'bench', 'bench://' || g, 'Doc ' || g, '', jsonb_build_object('part', g % 10), sha256(g::text::bytea)
  FROM generate_series(1, 100) g;
-- bulk load without the index, then build it (as CREATE collection would, same name and definition)
DROP INDEX mcp.chunk_hnsw_:cid;
CREATE TEMP TABLE v AS
SELECT g, (SELECT array_agg(random() - 0.5) FROM generate_series(1, 384) WHERE g > 0)::real[] AS a
  FROM generate_series(1, :n) g;
\timing on
INSERT INTO mcp.chunk (document_id, collection_id, position, text, token_count, embedding, tsv)
SELECT d.document_id, :cid, v.g, 'wort' || (v.g % 5000) || ' thema' || (v.g % 97), 2,
       l2_normalize(v.a::vector), to_tsvector('simple', 'wort' || (v.g % 5000) || ' thema' || (v.g % 97))
  FROM v JOIN mcp.document d ON d.uri = 'bench://' || (1 + v.g % 100);
SELECT format('CREATE INDEX chunk_hnsw_%s ON mcp.chunk USING hnsw ((embedding::vector(384)) vector_cosine_ops) WHERE collection_id = %s', :cid, :cid) \gexec
\timing off
ANALYZE mcp.chunk;
-- the rows are still in the GIN index's pending list (one transaction, no autovacuum): flush it
SELECT gin_clean_pending_list('mcp.chunk_tsv') >= 0 AS flushed;
CREATE TEMP TABLE qv AS
SELECT g, l2_normalize((SELECT array_agg(random() - 0.5) FROM generate_series(1, 384) WHERE g > 0)::real[]::vector) AS v
  FROM generate_series(1, 200) g;

CREATE TEMP TABLE lat (mode text, ms float8);
DO $$
DECLARE r record; t0 timestamptz; m text;
BEGIN
  FOREACH m IN ARRAY ARRAY['vector', 'hybrid', 'text'] LOOP
    FOR r IN SELECT * FROM qv LOOP
      t0 := clock_timestamp();
      PERFORM * FROM mcp.search_by_vector('bench', 'wort' || (r.g * 7 % 5000) || ' thema' || (r.g % 97), r.v, 10, m);
      INSERT INTO lat VALUES (m, extract(epoch FROM clock_timestamp() - t0) * 1000);
    END LOOP;
  END LOOP;
END $$;
SELECT :n AS chunks, mode, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2) AS p50_ms,
       round(percentile_cont(0.95) WITHIN GROUP (ORDER BY ms)::numeric, 2) AS p95_ms
  FROM lat GROUP BY mode ORDER BY mode;

-- recall@10 of the HNSW search against exact search (the same query with index scans off)
CREATE TEMP TABLE approx AS
SELECT q.g, s.chunk_id FROM qv q, LATERAL mcp.search_by_vector('bench', '', q.v, 10, 'vector') s WHERE q.g <= 50;
SET LOCAL enable_indexscan = off;
CREATE TEMP TABLE exact AS
SELECT q.g, s.chunk_id FROM qv q, LATERAL mcp.search_by_vector('bench', '', q.v, 10, 'vector') s WHERE q.g <= 50;
SELECT :n AS chunks, current_setting('hnsw.ef_search') AS ef_search,
       round(count(a.chunk_id)::numeric / count(*), 3) AS "recall@10"
  FROM exact e LEFT JOIN approx a ON a.g = e.g AND a.chunk_id = e.chunk_id;
ROLLBACK;
