-- Search latency and HNSW recall at :n chunks of 384-dimensional synthetic vectors: 200 random
-- cluster centres, each chunk a centre plus uniform noise (embeddings of real text cluster by
-- topic; uniformly random vectors would have no neighbourhood structure at all), unit length.
-- Latency and recall@10 against exact search at hnsw.ef_search 40 (pgvector's default) and 200.
-- Run by run.sh:  psql ... -v n=10000 -f benches/retrieval/search.sql
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
CREATE TEMP TABLE centre AS
SELECT c, (SELECT array_agg(random() - 0.5) FROM generate_series(1, 384) WHERE c >= 0)::real[] AS a
  FROM generate_series(0, 199) c;
-- bulk load without the index, then build it (same name and definition as the collection's)
DROP INDEX mcp.chunk_hnsw_:cid;
\timing on
INSERT INTO mcp.chunk (document_id, collection_id, position, text, token_count, embedding, tsv)
SELECT d.document_id, :cid, x.g, 'wort' || (x.g % 5000) || ' thema' || (x.g % 97), 2,
       l2_normalize(x.a::vector), to_tsvector('simple', 'wort' || (x.g % 5000) || ' thema' || (x.g % 97))
  FROM (SELECT g, (SELECT array_agg(ce.a[i] + 0.3 * (random() - 0.5)) FROM generate_series(1, 384) i)::real[] AS a
          FROM generate_series(1, :n) g JOIN centre ce ON ce.c = g % 200) x
  JOIN mcp.document d ON d.uri = 'bench://' || (1 + x.g % 100);
SELECT format('CREATE INDEX chunk_hnsw_%s ON mcp.chunk USING hnsw ((embedding::vector(384)) vector_cosine_ops) WHERE collection_id = %s', :cid, :cid) \gexec
\timing off
ANALYZE mcp.chunk;
-- the rows are still in the GIN index's pending list (one transaction, no autovacuum): flush it
SELECT gin_clean_pending_list('mcp.chunk_tsv') >= 0 AS flushed;
CREATE TEMP TABLE qv AS
SELECT g, l2_normalize((SELECT array_agg(ce.a[i] + 0.3 * (random() - 0.5)) FROM generate_series(1, 384) i)::real[]::vector) AS v
  FROM generate_series(1, 200) g JOIN centre ce ON ce.c = (g * 37) % 200;

CREATE TEMP TABLE lat (ef int, mode text, ms float8);
CREATE TEMP TABLE hits (ef int, g int, chunk_id bigint);
DO $$
DECLARE r record; t0 timestamptz; m text; ef int;
BEGIN
  FOREACH ef IN ARRAY ARRAY[40, 200] LOOP
    PERFORM set_config('hnsw.ef_search', ef::text, true);
    FOREACH m IN ARRAY ARRAY['vector', 'hybrid', 'text'] LOOP
      FOR r IN SELECT * FROM qv LOOP
        t0 := clock_timestamp();
        PERFORM * FROM mcp.search_by_vector('bench', 'wort' || (r.g * 7 % 5000) || ' thema' || (r.g % 97), r.v, 10, m);
        INSERT INTO lat VALUES (ef, m, extract(epoch FROM clock_timestamp() - t0) * 1000);
      END LOOP;
    END LOOP;
    INSERT INTO hits SELECT ef, q.g, s.chunk_id FROM qv q, LATERAL mcp.search_by_vector('bench', '', q.v, 10, 'vector') s WHERE q.g <= 50;
  END LOOP;
END $$;
SELECT :n AS chunks, ef AS ef_search, mode, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2) AS p50_ms,
       round(percentile_cont(0.95) WITHIN GROUP (ORDER BY ms)::numeric, 2) AS p95_ms
  FROM lat GROUP BY ef, mode ORDER BY ef, mode;

-- exact search: the same query with index scans off
SET LOCAL enable_indexscan = off;
CREATE TEMP TABLE exact AS
SELECT q.g, s.chunk_id FROM qv q, LATERAL mcp.search_by_vector('bench', '', q.v, 10, 'vector') s WHERE q.g <= 50;
SELECT :n AS chunks, h.ef AS ef_search, round(count(*)::numeric / (SELECT count(*) FROM exact), 3) AS "recall@10"
  FROM hits h JOIN exact e ON e.g = h.g AND e.chunk_id = h.chunk_id GROUP BY h.ef ORDER BY h.ef;
ROLLBACK;
