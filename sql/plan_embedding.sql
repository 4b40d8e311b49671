------------------------------------------------------------------------------------------------
-- The third signal of plan ranking: similarity of the question to the plans' example questions
-- and descriptions, with the interface's embedding model (mcp.interface.embedding_model, added by retrieval).
------------------------------------------------------------------------------------------------
-- The vectors of the example questions and of the description are stored, one row per (plan,
-- model, text), with the
-- model's fingerprint at the time they were computed. mcp.plan_example_similarity brings the
-- rows of an interface up to date when it is used (lazily, so that saving a plan never needs the
-- embedding server): rows of an example the plan no longer has, or of another fingerprint (the
-- model's files or endpoint changed), are deleted; examples without a row are embedded in one
-- batch and stored. Only rows whose fingerprint equals the model's current one are compared with
-- the question, which mcp.analyze embedded with the same model: vectors of different models are
-- never compared.

CREATE TABLE mcp.plan_example_embedding (
    plan        text NOT NULL REFERENCES mcp.plan (name) ON UPDATE CASCADE ON DELETE CASCADE,
    model       text NOT NULL REFERENCES mcp.embedding_model (name) ON UPDATE CASCADE ON DELETE CASCADE,
    example     text NOT NULL,
    fingerprint text NOT NULL,
    embedding   vector NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (plan, model, example)
);
COMMENT ON TABLE mcp.plan_example_embedding IS
  'Stored vectors of the plans'' example questions and descriptions (the embedding signal of mcp.analyze), one per plan, model and text; kept up to date by mcp.plan_example_similarity when an interface with that model is analyzed. Not dumped: rebuilt on first use.';
COMMENT ON COLUMN mcp.plan_example_embedding.plan IS 'The plan.';
COMMENT ON COLUMN mcp.plan_example_embedding.model IS 'The embedding model (mcp.embedding_model) the vector was computed with.';
COMMENT ON COLUMN mcp.plan_example_embedding.example IS 'The text: an example question (an element of mcp.plan.examples) or the plan''s description; a row whose text the plan no longer has is deleted at the next use.';
COMMENT ON COLUMN mcp.plan_example_embedding.fingerprint IS 'The model''s fingerprint when the vector was computed; a row of another fingerprint than the model''s current one is never compared, and deleted and recomputed at the next use.';
COMMENT ON COLUMN mcp.plan_example_embedding.embedding IS 'The example''s vector (dimension of the model).';
COMMENT ON COLUMN mcp.plan_example_embedding.created_at IS 'When the vector was computed.';

-- The work of mcp.plan_example_similarity (a C function that checks the caller's access to the
-- interface, then runs this as the extension owner, issue 20). Not executable by PUBLIC. The
-- stored vectors are written only by the transaction that holds the interface's advisory lock
-- (pg_try_advisory_xact_lock, never waited for), with SKIP LOCKED and ON CONFLICT DO NOTHING: a
-- caller that keeps its transaction open after a first use never makes another caller wait, that
-- one uses the missing vectors without storing them (as in a read-only transaction).
CREATE FUNCTION mcp.plan_example_similarity_as_owner(interface text, question_vector text)
RETURNS TABLE (plan text, similarity double precision, example text)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    v_iface constant text := $1;
    m mcp.embedding_model;
    vs text := (SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e
                  JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector');
    v_store boolean := NOT pg_catalog.current_setting('transaction_read_only')::boolean;
    v_plans text[];
    v_examples text[];
    v_vectors text[];
BEGIN
    IF v_iface IS NULL OR question_vector IS NULL THEN
        RETURN;
    END IF;
    SELECT em.* INTO m FROM mcp.interface i JOIN mcp.embedding_model em ON em.name = i.embedding_model
     WHERE i.name = v_iface;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF v_store THEN
        v_store := pg_catalog.pg_try_advisory_xact_lock(pg_catalog.hashtext('mcp.plan_example_embedding'),
                                                        pg_catalog.hashtext(v_iface OPERATOR(pg_catalog.||) '/' OPERATOR(pg_catalog.||) m.name));
    END IF;
    IF v_store THEN
        DELETE FROM mcp.plan_example_embedding d
         WHERE d.ctid = ANY (ARRAY(
               SELECT e.ctid FROM mcp.plan_example_embedding e JOIN mcp.plan p ON e.plan = p.name
                WHERE p.interface = v_iface AND e.model = m.name
                  AND (e.fingerprint <> m.fingerprint OR NOT e.example = ANY (p.examples || p.description))
                  FOR UPDATE OF e SKIP LOCKED));
    END IF;
    SELECT pg_catalog.array_agg(x.plan ORDER BY x.plan, x.example), pg_catalog.array_agg(x.example ORDER BY x.plan, x.example)
      INTO v_plans, v_examples
      FROM (SELECT DISTINCT p.name AS plan, ex AS example
              FROM mcp.plan p, pg_catalog.unnest(p.examples || p.description) ex
             WHERE p.interface = v_iface AND p.enabled AND pg_catalog.btrim(ex) <> ''
               AND NOT EXISTS (SELECT 1 FROM mcp.plan_example_embedding e
                                WHERE e.plan = p.name AND e.model = m.name AND e.example = ex
                                  AND e.fingerprint = m.fingerprint)) x;
    IF v_plans IS NOT NULL THEN
        v_vectors := mcp.embed_literals(v_examples, m.name);
        IF v_store THEN
            EXECUTE pg_catalog.format(
                'INSERT INTO mcp.plan_example_embedding (plan, model, example, fingerprint, embedding)
                 SELECT u.p, $1, u.e, $2, u.v::%s.vector FROM ROWS FROM (pg_catalog.unnest($3), pg_catalog.unnest($4), pg_catalog.unnest($5)) u(p, e, v)
                 ON CONFLICT (plan, model, example) DO NOTHING', vs)
              USING m.name, m.fingerprint, v_plans, v_examples, v_vectors;
        END IF;
    END IF;
    -- (not stored: in a read-only transaction, or while another transaction stores them; the
    -- new vectors are used all the same)
    RETURN QUERY EXECUTE pg_catalog.format($q$
        WITH v AS (
            SELECT e.plan, e.example, e.embedding
              FROM mcp.plan_example_embedding e JOIN mcp.plan p ON p.name = e.plan
             WHERE p.interface = $1 AND p.enabled AND e.model = $2 AND e.fingerprint = $3
               AND e.example = ANY (p.examples || p.description)
            UNION ALL
            SELECT u.p, u.e, u.v::%1$s.vector FROM ROWS FROM (pg_catalog.unnest($4), pg_catalog.unnest($5), pg_catalog.unnest($6)) u(p, e, v) WHERE NOT $7
        ), s AS (
            -- each text's similarity, and whether it is the plan's description or an example
            SELECT DISTINCT v.plan, v.example, v.example = ANY (p.examples) AS is_example, v.example = p.description AS is_description,
                   GREATEST(0, 1 - (v.embedding OPERATOR(%1$s.<=>) $8::%1$s.vector))::double precision AS sim
              FROM v JOIN mcp.plan p ON p.name = v.plan
        ), b AS (
            SELECT s.plan, pg_catalog.max(s.sim) FILTER (WHERE s.is_example) AS ex,
                   pg_catalog.max(s.sim) FILTER (WHERE s.is_description) AS de,
                   (pg_catalog.array_agg(s.example ORDER BY s.sim DESC, s.example) FILTER (WHERE s.is_example))[1] AS example
              FROM s GROUP BY s.plan
        )
        -- 0.3 x the closest example's similarity + 0.7 x the description's (one of them when the
        -- plan has only that; mcp.plan_similarity_level combines them the same way)
        SELECT b.plan, COALESCE(0.3 * b.ex + 0.7 * b.de, b.ex, b.de), b.example
          FROM b ORDER BY b.plan$q$, vs)
      USING v_iface, m.name, m.fingerprint, v_plans, v_examples, v_vectors, v_store, question_vector;
END
$$;
REVOKE EXECUTE ON FUNCTION mcp.plan_example_similarity_as_owner(text, text) FROM PUBLIC;
COMMENT ON FUNCTION mcp.plan_example_similarity_as_owner(text, text) IS
  'The work of mcp.plan_example_similarity, run by it as the extension owner once the caller''s access to the interface is checked; not executable by PUBLIC. Stores vectors only under the interface''s advisory lock (taken without waiting), with SKIP LOCKED and ON CONFLICT DO NOTHING, so it never waits for another caller''s transaction.';
COMMENT ON FUNCTION mcp.plan_example_similarity(text, text) IS
  'Embedding signal of mcp.analyze: for each enabled plan of the interface, 0.3 x the cosine similarity (negative as 0) of question_vector (a vector of the interface''s embedding model, in pgvector''s text form) to the plan''s closest example question + 0.7 x its similarity to the plan''s description (either alone when the plan has only that), and that example (NULL without examples). Needs the interface''s access (mcp.may_use_interface; else 42501). Brings mcp.plan_example_embedding up to date first, as the extension owner: drops vectors of another fingerprint or of examples the plan no longer has, embeds and stores the missing ones; never waits for another transaction: while one stores them (or in a read-only transaction) the missing vectors are used without storing. No rows when the interface has no model. It embeds only the plans'' examples, never caller text.';

-- The off-domain level of an interface's embedding signal: how similar a plan's example
-- questions are, on average, to the *other* plans of the interface (combined as the signal is:
-- 0.3 x the closest example + 0.7 x the description). A question whose best similarity to any
-- plan is below it is no closer to the plans than their own examples are to plans they do not
-- belong to: the model's cosines say nothing about it (mcp.rank_plans). Self-calibrating: it is
-- on the scale of the model and of the plans' own texts, no setting per model. Read from the
-- stored vectors (the rows of the model's current fingerprint), as the calling role.
CREATE FUNCTION mcp.plan_similarity_level(interface text) RETURNS double precision
LANGUAGE plpgsql STABLE AS $$
DECLARE
    vs text := (SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e
                  JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector');
    v_level double precision;
BEGIN
    IF interface IS NULL OR vs IS NULL THEN
        RETURN NULL;
    END IF;
    EXECUTE pg_catalog.format($q$
        WITH v AS (
            SELECT e.plan, e.example, e.embedding, e.example = ANY (p.examples) AS is_example,
                   e.example = p.description AS is_description
              FROM mcp.interface i
              JOIN mcp.embedding_model m ON m.name = i.embedding_model
              JOIN mcp.plan p ON p.interface = i.name AND p.enabled
              JOIN mcp.plan_example_embedding e ON e.plan = p.name AND e.model = m.name AND e.fingerprint = m.fingerprint
             WHERE i.name = $1
        ), s AS (
            -- each example against each other plan: its closest example and its description
            SELECT a.plan AS probe_plan, a.example AS probe, b.plan,
                   pg_catalog.max(GREATEST(0, 1 - (a.embedding OPERATOR(%1$s.<=>) b.embedding))) FILTER (WHERE b.is_example) AS ex,
                   pg_catalog.max(GREATEST(0, 1 - (a.embedding OPERATOR(%1$s.<=>) b.embedding))) FILTER (WHERE b.is_description) AS de
              FROM v a JOIN v b ON b.plan <> a.plan
             WHERE a.is_example
             GROUP BY 1, 2, 3
        )
        SELECT pg_catalog.avg(COALESCE(0.3 * s.ex + 0.7 * s.de, s.ex, s.de))::double precision FROM s$q$, vs)
      INTO v_level USING interface;
    RETURN v_level;
END
$$;
COMMENT ON FUNCTION mcp.plan_similarity_level(text) IS
  'The off-domain level of the interface''s embedding signal: the mean similarity (0.3 x closest example + 0.7 x description, as mcp.plan_example_similarity combines them) of each stored example question of an enabled plan to every other plan of the interface, from mcp.plan_example_embedding (rows of the interface model''s current fingerprint). NULL without a model, with fewer than two plans, or before the vectors are stored. mcp.analyze passes it to mcp.rank_plans, where a question whose best similarity is below it gets no embedding signal for the plans its words and entities do not choose.';

-- mcp.analyze uses the interface's model too (retrieval.sql's comment extended).
COMMENT ON COLUMN mcp.interface.embedding_model IS
  'The model context_retrieve embeds queries with; it searches only collections with purpose ''rag'' whose fingerprint and dimension equal this model''s. NULL: context_retrieve refuses. mcp.analyze ranks the interface''s plans also by the similarity of the question to their example questions with this model (NULL: no embedding signal).';

GRANT SELECT ON mcp.plan_example_embedding TO PUBLIC;
