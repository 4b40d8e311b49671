-- Search latency before and after entity-aware search and fusion weights, side by side in one
-- run, at :n chunks of 384-dimensional synthetic vectors (as in search.sql: 200 cluster centres
-- plus noise), 100 documents whose metadata name one of the 16 Länder of the demo thesaurus.
-- Four ways, 200 queries each, per mode:
--   before:   mcp.search_by_vector as it was before (copied below as pg_temp.search_before)
--   after:    mcp.search_by_vector, collection without entity_keys (the default)
--   boost:    entity_keys {"tarifgebiet": "region"}, entity_mode boost (each query names a Land)
--   filter:   the same with entity_mode filter
-- Run by run.sh:  psql ... -v n=100000 -v thesaurus="$(cat demo/thesaurus.json)" -f benches/retrieval/search_entities.sql
\set ON_ERROR_STOP on
\pset format aligned
SET client_min_messages = warning;
SET maintenance_work_mem = '1GB';
BEGIN;
SELECT mcp.load_thesaurus(:'thesaurus', true) IS NOT NULL AS thesaurus_loaded;
CREATE FUNCTION pg_temp.search_before(collection text, query text, query_vector vector,
                                     k integer DEFAULT NULL, mode text DEFAULT 'hybrid',
                                     filter jsonb DEFAULT '{}')
RETURNS TABLE (chunk_id bigint, document_id bigint, title text, uri text, score double precision,
               text text, metadata jsonb)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET hnsw.iterative_scan = 'strict_order'
SET hnsw.ef_search = 40
AS $$
DECLARE
    c mcp.collection;
    n integer;
    pool integer;
    vec text;
    txt text;
    tsq tsquery;
    docfilter text := '';
    vs text := (SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e
                JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector');
BEGIN
    IF search_before.collection IS NULL THEN
        RAISE EXCEPTION 'parameter "collection" of mcp.search_by_vector must not be NULL' USING ERRCODE = '22004';
    END IF;
    SELECT * INTO c FROM mcp.collection x WHERE x.name = search_before.collection;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'collection "%" does not exist', search_before.collection USING ERRCODE = '42704';
    END IF;
    n := COALESCE(search_before.k, c.top_k);
    IF n < 1 OR n > 1000 THEN
        RAISE EXCEPTION 'k must be between 1 and 1000' USING ERRCODE = '22023';
    END IF;
    IF mode IS NULL OR mode NOT IN ('vector', 'text', 'hybrid') THEN
        RAISE EXCEPTION 'search mode "%" is not one of vector, text, hybrid', mode USING ERRCODE = '22023';
    END IF;
    IF filter IS NULL OR jsonb_typeof(filter) <> 'object' THEN
        RAISE EXCEPTION 'filter must be a jsonb object (matched with @> against the documents'' metadata)' USING ERRCODE = '22023';
    END IF;
    IF mode <> 'text' THEN
        IF query_vector IS NULL THEN
            RAISE EXCEPTION 'mode % needs a query vector', mode USING ERRCODE = '22004';
        END IF;
        IF pg_catalog.array_length(query_vector::real[], 1) <> c.dimension THEN
            RAISE EXCEPTION 'query vector of dimension % for collection "%" of dimension %',
                pg_catalog.array_length(query_vector::real[], 1), c.name, c.dimension USING ERRCODE = '22000';
        END IF;
    END IF;
    -- hybrid: reciprocal rank fusion (k = 60) of the best max(4k, 40) of each
    pool := GREATEST(4 * n, 40);
    -- The collection's ef_search, at least the candidates this search takes from the index (with
    -- fewer, pgvector's first pass finds fewer than asked and the iterative scan makes up the
    -- rest at lower recall); pgvector's maximum is 1000. set_config(..., true) lasts until this
    -- function returns: its SET hnsw.ef_search clause restores the caller's value on exit, also
    -- when the call runs inside the caller's transaction.
    PERFORM pg_catalog.set_config('hnsw.ef_search',
        LEAST(1000, GREATEST(c.hnsw_ef_search, CASE WHEN mode = 'hybrid' THEN pool ELSE n END))::text, true);
    IF mode <> 'vector' THEN
        -- any of the query's lexemes (OR), ranked by cover density: questions are not phrases
        tsq := pg_catalog.replace(pg_catalog.plainto_tsquery(c.text_config::regconfig, COALESCE(query, ''))::text,
                                  ' & ', ' | ')::tsquery;
    END IF;
    -- The metadata filter is part of the ranking query (before the top k); with no filter the
    -- ranking touches mcp.chunk alone, so the planner takes the collection's HNSW (or the GIN)
    -- index for ORDER BY ... LIMIT; the top k are joined to their documents afterwards.
    IF filter <> '{}'::jsonb THEN
        docfilter := 'AND EXISTS (SELECT 1 FROM mcp.document f WHERE f.document_id = c.document_id AND f.metadata @> $2)';
    END IF;
    -- vector: cosine similarity through the collection's HNSW index (hnsw.ef_search as set above;
    -- hnsw.iterative_scan keeps scanning until k rows pass the filter and row-level security)
    vec := pg_catalog.format($q$
        SELECT ch.chunk_id, ch.document_id, d.title, d.uri, ch.score, ch.text, d.metadata
          FROM (SELECT c.chunk_id, c.document_id, c.text,
                       (1 - (c.embedding::%3$s.vector(%1$s) OPERATOR(%3$s.<=>) $1::%3$s.vector(%1$s)))::float8 AS score
                  FROM mcp.chunk c
                 WHERE c.collection_id = %2$s %4$s
                 ORDER BY c.embedding::%3$s.vector(%1$s) OPERATOR(%3$s.<=>) $1::%3$s.vector(%1$s)
                 LIMIT $3) ch
          JOIN mcp.document d ON d.document_id = ch.document_id
         ORDER BY ch.score DESC, ch.chunk_id$q$, c.dimension, c.collection_id, vs, docfilter);
    -- text: ts_rank_cd normalized to rank/(rank+1)
    txt := pg_catalog.format($q$
        SELECT ch.chunk_id, ch.document_id, d.title, d.uri, ch.score, ch.text, d.metadata
          FROM (SELECT c.chunk_id, c.document_id, c.text, ts_rank_cd(c.tsv, $4, 32)::float8 AS score
                  FROM mcp.chunk c
                 WHERE c.collection_id = %1$s AND c.tsv @@ $4 %2$s
                 ORDER BY score DESC, c.chunk_id
                 LIMIT $3) ch
          JOIN mcp.document d ON d.document_id = ch.document_id
         ORDER BY ch.score DESC, ch.chunk_id$q$, c.collection_id, docfilter);
    IF mode = 'vector' THEN
        RETURN QUERY EXECUTE vec USING query_vector, filter, n;
    ELSIF mode = 'text' THEN
        RETURN QUERY EXECUTE txt USING query_vector, filter, n, tsq;
    ELSE
        RETURN QUERY EXECUTE pg_catalog.format($q$
            WITH v AS (SELECT s.*, row_number() OVER (ORDER BY s.score DESC, s.chunk_id) AS r FROM (%1$s) s),
                 t AS (SELECT s.*, row_number() OVER (ORDER BY s.score DESC, s.chunk_id) AS r FROM (%2$s) s),
                 f AS (SELECT COALESCE(v.chunk_id, t.chunk_id) AS chunk_id,
                              COALESCE(1.0 / (60 + v.r), 0) + COALESCE(1.0 / (60 + t.r), 0) AS score,
                              LEAST(v.r, t.r) AS best
                         FROM v FULL JOIN t ON t.chunk_id = v.chunk_id)
            SELECT ch.chunk_id, ch.document_id, d.title, d.uri, f.score::float8, ch.text, d.metadata
              FROM f JOIN mcp.chunk ch ON ch.chunk_id = f.chunk_id
                     JOIN mcp.document d ON d.document_id = ch.document_id
             ORDER BY f.score DESC, f.best, ch.chunk_id
             LIMIT $5$q$, pg_catalog.replace(vec, 'LIMIT $3', 'LIMIT $6'), pg_catalog.replace(txt, 'LIMIT $3', 'LIMIT $6'))
        USING query_vector, filter, n, tsq, n, pool;
    END IF;
END
$$;

INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('bench_none', 'openai', 'http://127.0.0.1:9/v1', 'none');
INSERT INTO mcp.embedding_model (name, kind, dimension, provider, model) VALUES ('bench384', 'openai', 384, 'bench_none', 'none');
INSERT INTO mcp.collection (name, embedding_model, text_config, hnsw_m, hnsw_ef_construction)
VALUES ('bench', 'bench384', 'simple', 2, 4);
SELECT collection_id AS cid FROM mcp.collection WHERE name = 'bench' \gset
CREATE TEMP TABLE land AS
SELECT row_number() OVER (ORDER BY id) - 1 AS i, label FROM mcp.thesaurus_term
 WHERE kind = 'tarifgebiet' AND id ~ '^[a-z]{2}$' AND id <> 'de';
INSERT INTO mcp.document (collection, uri, title, body, metadata, content_hash)
SELECT 'bench', 'bench://' || g, 'Doc ' || g, '', jsonb_build_object('region', l.label), sha256(g::text::bytea)
  FROM generate_series(1, 100) g JOIN land l ON l.i = g % (SELECT count(*) FROM land);
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
SELECT gin_clean_pending_list('mcp.chunk_tsv') >= 0 AS flushed;
-- the collection defaults build the index
UPDATE mcp.collection SET hnsw_m = 16, hnsw_ef_construction = 200 WHERE name = 'bench';
CREATE TEMP TABLE qv AS
SELECT g, l2_normalize((SELECT array_agg(ce.a[i] + 0.3 * (random() - 0.5)) FROM generate_series(1, 384) i)::real[]::vector) AS v,
       'wort' || (g * 7 % 5000) || ' thema' || (g % 97) || ' ' || (SELECT label FROM land WHERE i = g % (SELECT count(*) FROM land)) AS query
  FROM generate_series(1, 200) g JOIN centre ce ON ce.c = (g * 37) % 200;
CREATE TEMP TABLE lat (way text, mode text, ms float8);
DO $$
DECLARE r record; t0 timestamptz; m text; w text;
BEGIN
  FOREACH w IN ARRAY ARRAY['before', 'after', 'boost', 'filter'] LOOP
    UPDATE mcp.collection SET entity_keys = CASE WHEN w IN ('boost', 'filter') THEN '{"tarifgebiet": "region"}'::jsonb ELSE '{}' END,
                              entity_mode = CASE WHEN w = 'filter' THEN 'filter' ELSE 'boost' END
     WHERE name = 'bench';
    FOREACH m IN ARRAY ARRAY['vector', 'hybrid', 'text'] LOOP
      FOR r IN SELECT * FROM qv LOOP
        t0 := clock_timestamp();
        IF w = 'before' THEN
          PERFORM * FROM pg_temp.search_before('bench', r.query, r.v, 10, m);
        ELSE
          PERFORM * FROM mcp.search_by_vector('bench', r.query, r.v, 10, m);
        END IF;
        INSERT INTO lat VALUES (w, m, extract(epoch FROM clock_timestamp() - t0) * 1000);
      END LOOP;
    END LOOP;
  END LOOP;
END $$;
SELECT :n AS chunks, way, mode,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2) AS p50_ms,
       round(percentile_cont(0.95) WITHIN GROUP (ORDER BY ms)::numeric, 2) AS p95_ms
  FROM lat GROUP BY way, mode
 ORDER BY array_position(ARRAY['vector', 'hybrid', 'text'], mode), array_position(ARRAY['before', 'after', 'boost', 'filter'], way);
ROLLBACK;
