-- Search latency and HNSW recall at :n chunks of 384-dimensional synthetic vectors: 200 random
-- cluster centres, each chunk a centre plus uniform noise (embeddings of real text cluster by
-- topic; uniformly random vectors would have no neighbourhood structure at all), unit length.
-- The same corpus and queries under three HNSW settings of the collection, side by side:
--   (1) pgvector's defaults (m 16, ef_construction 64, ef_search 40: pg_mcp before per-collection
--       settings), (2) mcp.collection's default build options with ef_search 40, (3) mcp.collection's
--       defaults (build options and ef_search).
-- The settings are the collection's columns: changing hnsw_m / hnsw_ef_construction makes the
-- collection's trigger build its index again (timed), and mcp.search_by_vector applies
-- hnsw_ef_search itself. Latency per mode (200 queries) and recall@10 against exact search (the
-- same query with index scans off, 50 queries).
-- Run by run.sh:  psql ... -v n=10000 -f benches/retrieval/search.sql
\set ON_ERROR_STOP on
\pset format aligned
SET client_min_messages = warning;
SET maintenance_work_mem = '1GB';
BEGIN;
INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('bench_none', 'openai', 'http://127.0.0.1:9/v1', 'none');
INSERT INTO mcp.embedding_model (name, kind, dimension, provider, model) VALUES ('bench384', 'openai', 384, 'bench_none', 'none');
-- created with a throwaway tiny graph, dropped for the bulk load; the first setting builds it
INSERT INTO mcp.collection (name, embedding_model, text_config, hnsw_m, hnsw_ef_construction)
VALUES ('bench', 'bench384', 'simple', 2, 4);
SELECT collection_id AS cid FROM mcp.collection WHERE name = 'bench' \gset
INSERT INTO mcp.document (collection, uri, title, body, metadata, content_hash)
SELECT 'bench', 'bench://' || g, 'Doc ' || g, '', jsonb_build_object('part', g % 10), sha256(g::text::bytea)
  FROM generate_series(1, 100) g;
CREATE TEMP TABLE centre AS
SELECT c, (SELECT array_agg(random() - 0.5) FROM generate_series(1, 384) WHERE c >= 0)::real[] AS a
  FROM generate_series(0, 199) c;
DROP INDEX mcp.chunk_hnsw_:cid;
INSERT INTO mcp.chunk (document_id, collection_id, position, text, token_count, embedding, tsv)
SELECT d.document_id, :cid, x.g, 'wort' || (x.g % 5000) || ' thema' || (x.g % 97), 2,
       l2_normalize(x.a::vector), to_tsvector('simple', 'wort' || (x.g % 5000) || ' thema' || (x.g % 97))
  FROM (SELECT g, (SELECT array_agg(ce.a[i] + 0.3 * (random() - 0.5)) FROM generate_series(1, 384) i)::real[] AS a
          FROM generate_series(1, :n) g JOIN centre ce ON ce.c = g % 200) x
  JOIN mcp.document d ON d.uri = 'bench://' || (1 + x.g % 100);
ANALYZE mcp.chunk;
-- the rows are still in the GIN index's pending list (one transaction, no autovacuum): flush it
SELECT gin_clean_pending_list('mcp.chunk_tsv') >= 0 AS flushed;
CREATE TEMP TABLE qv AS
SELECT g, l2_normalize((SELECT array_agg(ce.a[i] + 0.3 * (random() - 0.5)) FROM generate_series(1, 384) i)::real[]::vector) AS v
  FROM generate_series(1, 200) g JOIN centre ce ON ce.c = (g * 37) % 200;

-- exact search first: the same query with index scans off
SET LOCAL enable_indexscan = off;
CREATE TEMP TABLE exact AS
SELECT q.g, s.chunk_id FROM qv q, LATERAL mcp.search_by_vector('bench', '', q.v, 10, 'vector') s WHERE q.g <= 50;
RESET enable_indexscan;

-- the collection defaults: what a collection created without settings gets
INSERT INTO mcp.collection (name, embedding_model) VALUES ('bench_defaults', 'bench384');
CREATE TEMP TABLE setting AS
SELECT 1 AS nr, 'pgvector defaults' AS label, 16 AS m, 64 AS efc, 40 AS ef
UNION ALL
SELECT 2, 'collection defaults, ef_search 40', hnsw_m, hnsw_ef_construction, 40 FROM mcp.collection WHERE name = 'bench_defaults'
UNION ALL
SELECT 3, 'collection defaults', hnsw_m, hnsw_ef_construction, hnsw_ef_search FROM mcp.collection WHERE name = 'bench_defaults';

CREATE TEMP TABLE build (nr int, seconds float8);
CREATE TEMP TABLE lat (nr int, mode text, ms float8);
CREATE TEMP TABLE hits (nr int, g int, chunk_id bigint);
DO $$
DECLARE r record; s record; t0 timestamptz; m text;
BEGIN
  FOR s IN SELECT * FROM setting ORDER BY nr LOOP
    t0 := clock_timestamp();
    -- a change of hnsw_m / hnsw_ef_construction builds the index again (the collection trigger)
    UPDATE mcp.collection SET hnsw_m = s.m, hnsw_ef_construction = s.efc, hnsw_ef_search = s.ef WHERE name = 'bench';
    INSERT INTO build VALUES (s.nr, extract(epoch FROM clock_timestamp() - t0));
    FOREACH m IN ARRAY ARRAY['vector', 'hybrid', 'text'] LOOP
      FOR r IN SELECT * FROM qv LOOP
        t0 := clock_timestamp();
        PERFORM * FROM mcp.search_by_vector('bench', 'wort' || (r.g * 7 % 5000) || ' thema' || (r.g % 97), r.v, 10, m);
        INSERT INTO lat VALUES (s.nr, m, extract(epoch FROM clock_timestamp() - t0) * 1000);
      END LOOP;
    END LOOP;
    INSERT INTO hits SELECT s.nr, q.g, x.chunk_id FROM qv q, LATERAL mcp.search_by_vector('bench', '', q.v, 10, 'vector') x WHERE q.g <= 50;
  END LOOP;
END $$;
SELECT :n AS chunks, s.label AS setting, s.m, s.efc AS ef_construction, s.ef AS ef_search,
       round(b.seconds::numeric, 1) AS build_s,
       (SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2) || ' / ' || round(percentile_cont(0.95) WITHIN GROUP (ORDER BY ms)::numeric, 2)
          FROM lat WHERE lat.nr = s.nr AND mode = 'vector') AS "vector p50 / p95 ms",
       (SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2) || ' / ' || round(percentile_cont(0.95) WITHIN GROUP (ORDER BY ms)::numeric, 2)
          FROM lat WHERE lat.nr = s.nr AND mode = 'hybrid') AS "hybrid p50 / p95 ms",
       (SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2) || ' / ' || round(percentile_cont(0.95) WITHIN GROUP (ORDER BY ms)::numeric, 2)
          FROM lat WHERE lat.nr = s.nr AND mode = 'text') AS "text p50 / p95 ms",
       (SELECT round(count(*)::numeric / (SELECT count(*) FROM exact), 3)
          FROM hits h JOIN exact e ON e.g = h.g AND e.chunk_id = h.chunk_id WHERE h.nr = s.nr) AS "recall@10"
  FROM setting s JOIN build b ON b.nr = s.nr ORDER BY s.nr;
ROLLBACK;
