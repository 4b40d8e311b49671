------------------------------------------------------------------------------------------------
-- Thesaurus, prompt analysis, execution plans, prompt templates
------------------------------------------------------------------------------------------------
-- Text normalization uses unaccent and pg_trgm (contrib; pg_mcp's control file requires them,
-- CREATE EXTENSION pg_mcp CASCADE installs them). Their schema is looked up once, here, and
-- written into the functions that need it, so that the functions work with any search_path.

-- mcp.fold: the comparison form of a word: umlauts spelled out (ä -> ae, ß -> ss, as Germans
-- type them without an umlaut key), other diacritics removed (unaccent), lower case.
DO $plans$
DECLARE
    ua text := (SELECT e.extnamespace::regnamespace::text FROM pg_catalog.pg_extension e WHERE e.extname = 'unaccent');
    tg text := (SELECT e.extnamespace::regnamespace::text FROM pg_catalog.pg_extension e WHERE e.extname = 'pg_trgm');
BEGIN
    IF ua IS NULL OR tg IS NULL THEN
        RAISE EXCEPTION 'pg_mcp requires the extensions unaccent and pg_trgm'
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'CREATE EXTENSION unaccent; CREATE EXTENSION pg_trgm; (or CREATE EXTENSION pg_mcp CASCADE)';
    END IF;
    EXECUTE pg_catalog.format($f$
CREATE FUNCTION mcp.fold(word text) RETURNS text
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $b$
    SELECT pg_catalog.lower(%1$s.unaccent(%2$L::pg_catalog.regdictionary,
             pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(
             pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(word,
               'ä', 'ae'), 'ö', 'oe'), 'ü', 'ue'), 'Ä', 'Ae'), 'Ö', 'Oe'), 'Ü', 'Ue'), 'ß', 'ss')))
$b$$f$, ua, ua || '.unaccent');
    EXECUTE pg_catalog.format($f$
CREATE FUNCTION mcp.trgm_similarity(a text, b text) RETURNS real
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $b$ SELECT %1$s.similarity(a, b) $b$$f$, tg);
END
$plans$;
COMMENT ON FUNCTION mcp.trgm_similarity(text, text) IS 'pg_trgm''s similarity, schema-qualified (works with any search_path).';
COMMENT ON FUNCTION mcp.fold(text) IS
  'Comparison form of a word for prompt analysis: ä/ö/ü/ß spelled ae/oe/ue/ss, other diacritics removed (unaccent), lower case. "Öffentlicher" and "oeffentlicher" fold alike.';

CREATE FUNCTION mcp.arg_not_null(value anyelement, parameter text, fn text) RETURNS anyelement
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    IF value IS NULL THEN
        RAISE EXCEPTION 'parameter "%" of % must not be NULL', parameter, fn USING ERRCODE = 'null_value_not_allowed';
    END IF;
    RETURN value;
END
$$;
COMMENT ON FUNCTION mcp.arg_not_null(anyelement, text, text) IS
  'The value, or 22004 naming the parameter and the function when it is NULL (the issue-12 functions'' NULL rule).';

CREATE FUNCTION mcp.tokenize(input text)
RETURNS TABLE (pos integer, word text, start_at integer, end_at integer, folded text, stem text)
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE AS $$
DECLARE
    -- a word: letters/digits (ASCII and Latin-1/Extended), joined by + or & ("M+E", "H&M")
    pat constant text := '[[:alnum:]\u00C0-\u024F]+(?:[+&][[:alnum:]\u00C0-\u024F]+)*';
    p integer := 1;
    s integer;
    n integer := 0;
BEGIN
    LOOP
        s := pg_catalog.regexp_instr(input, pat, p);
        EXIT WHEN s = 0;
        word := pg_catalog.regexp_substr(input, pat, s);
        n := n + 1;
        pos := n;
        start_at := s - 1;
        end_at := s - 1 + pg_catalog.length(word);
        folded := mcp.fold(word);
        -- German Snowball stemmer; a stop word ("und", "der", "für") gets NULL (checked before
        -- folding: the stop word list spells umlauts)
        stem := CASE WHEN pg_catalog.ts_lexize('pg_catalog.german_stem'::pg_catalog.regdictionary, pg_catalog.lower(word)) = '{}'
                     THEN NULL
                     ELSE (pg_catalog.ts_lexize('pg_catalog.german_stem'::pg_catalog.regdictionary, folded))[1] END;
        RETURN NEXT;
        p := s + pg_catalog.length(word);
    END LOOP;
END
$$;
COMMENT ON FUNCTION mcp.tokenize(text) IS
  'Words of a text for prompt analysis: position, surface form, character offsets (start 0-based, end exclusive), folded form (mcp.fold) and German Snowball stem (NULL for a stop word).';

------------------------------------------------------------------------------------------------
-- Thesaurus
------------------------------------------------------------------------------------------------
CREATE TABLE mcp.thesaurus_term (
    id          text PRIMARY KEY
                CONSTRAINT thesaurus_term_id_format CHECK (id ~ '^[A-Za-z0-9_.:+-]{1,128}$'),
    kind        text NOT NULL
                CONSTRAINT thesaurus_term_kind_format CHECK (kind ~ '^[a-z][a-z0-9_]{0,63}$'),
    label       text NOT NULL
                CONSTRAINT thesaurus_term_label_not_empty CHECK (length(btrim(label)) BETWEEN 1 AND 200),
    alt_labels  text[] NOT NULL DEFAULT '{}',
    lang        text NOT NULL DEFAULT 'de'
                CONSTRAINT thesaurus_term_lang_format CHECK (lang ~ '^[a-z]{2,3}(-[A-Za-z0-9]{1,8})?$'),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE mcp.thesaurus_term IS
  'Thesaurus terms that prompt analysis (mcp.analyze) finds in questions. Load with mcp.load_thesaurus.';
COMMENT ON COLUMN mcp.thesaurus_term.id IS 'Stable identifier (e.g. by, metall, urlaub).';
COMMENT ON COLUMN mcp.thesaurus_term.kind IS 'Entity kind, e.g. tarifgebiet, fachbereich, thema; plans require kinds.';
COMMENT ON COLUMN mcp.thesaurus_term.label IS 'Preferred label (reported as label by mcp.analyze).';
COMMENT ON COLUMN mcp.thesaurus_term.alt_labels IS 'Alternative labels: synonyms, abbreviations (an upper-case one of at most 3 characters matches only upper case), derived forms (bayerisch), other spellings.';
COMMENT ON COLUMN mcp.thesaurus_term.lang IS 'Language of the labels (BCP 47 primary tag); analysis stems German.';
COMMENT ON COLUMN mcp.thesaurus_term.updated_at IS 'When the term last changed.';

CREATE TABLE mcp.thesaurus_relation (
    source      text NOT NULL REFERENCES mcp.thesaurus_term (id) ON UPDATE CASCADE ON DELETE CASCADE,
    relation    text NOT NULL
                CONSTRAINT thesaurus_relation_known CHECK (relation IN ('broader', 'related')),
    target      text NOT NULL REFERENCES mcp.thesaurus_term (id) ON UPDATE CASCADE ON DELETE CASCADE,
    PRIMARY KEY (source, relation, target),
    CONSTRAINT thesaurus_relation_not_self CHECK (source <> target)
);
CREATE INDEX thesaurus_relation_target ON mcp.thesaurus_relation (target, relation);
COMMENT ON TABLE mcp.thesaurus_relation IS
  'Relations between thesaurus terms: source broader target (target is the wider term; narrower is the inverse), source related target (symmetric in use). broader is kept acyclic by mcp.load_thesaurus.';
COMMENT ON COLUMN mcp.thesaurus_relation.source IS 'The term the relation starts at.';
COMMENT ON COLUMN mcp.thesaurus_relation.relation IS 'broader or related.';
COMMENT ON COLUMN mcp.thesaurus_relation.target IS 'The related term (for broader: the wider term).';

CREATE TABLE mcp.thesaurus_label (
    term_id     text NOT NULL REFERENCES mcp.thesaurus_term (id) ON UPDATE CASCADE ON DELETE CASCADE,
    label       text NOT NULL,
    preferred   boolean NOT NULL,
    stems       text[] NOT NULL,
    first_stem  text NOT NULL,
    folded      text NOT NULL,
    caps        boolean NOT NULL,
    words       text[] NOT NULL
);
CREATE INDEX thesaurus_label_term ON mcp.thesaurus_label (term_id);
CREATE INDEX thesaurus_label_first_stem ON mcp.thesaurus_label (first_stem);
CREATE INDEX thesaurus_label_folded ON mcp.thesaurus_label (folded);
-- (typos in the first word of a multi-word label: such labels are found by their second stem)
CREATE INDEX thesaurus_label_second_stem ON mcp.thesaurus_label ((stems[2])) WHERE cardinality(stems) >= 2;
COMMENT ON TABLE mcp.thesaurus_label IS
  'Search form of every label of every term, kept by a trigger on mcp.thesaurus_term (do not edit): what mcp.analyze looks up.';
COMMENT ON COLUMN mcp.thesaurus_label.term_id IS 'The term.';
COMMENT ON COLUMN mcp.thesaurus_label.label IS 'The label as written.';
COMMENT ON COLUMN mcp.thesaurus_label.preferred IS 'Whether it is the preferred label.';
COMMENT ON COLUMN mcp.thesaurus_label.stems IS 'German stems of its words without stop words (all folded words when it has only stop words).';
COMMENT ON COLUMN mcp.thesaurus_label.first_stem IS 'stems[1] (index key of the exact lookup).';
COMMENT ON COLUMN mcp.thesaurus_label.folded IS 'Its folded words joined by one space.';
COMMENT ON COLUMN mcp.thesaurus_label.words IS 'Folded forms of the words stems holds, in the same order (typos inside multi-word labels compare the words, not the stems).';
COMMENT ON COLUMN mcp.thesaurus_label.caps IS 'An upper-case abbreviation of at most 3 letters (BY, ÖD): matches only a word written in upper case.';

CREATE TABLE mcp.thesaurus_variant (
    variant     text NOT NULL,
    term_id     text NOT NULL REFERENCES mcp.thesaurus_term (id) ON UPDATE CASCADE ON DELETE CASCADE,
    folded      text NOT NULL
);
CREATE INDEX thesaurus_variant_variant ON mcp.thesaurus_variant (variant);
CREATE INDEX thesaurus_variant_term ON mcp.thesaurus_variant (term_id);
COMMENT ON TABLE mcp.thesaurus_variant IS
  'Typo index (symmetric deletion neighbourhood), kept by the trigger on mcp.thesaurus_term (do not edit): every one-word label of 5 .. 24 letters, folded, and each form of it with one letter deleted. A question word whose own deletion forms meet a label''s is at most one edit (insertion, deletion, substitution, transposition) or two deletions away; found with B-tree lookups, so the cost grows logarithmically with the thesaurus.';
COMMENT ON COLUMN mcp.thesaurus_variant.variant IS 'The folded label or the folded label with one letter deleted.';
COMMENT ON COLUMN mcp.thesaurus_variant.term_id IS 'The term.';
COMMENT ON COLUMN mcp.thesaurus_variant.folded IS 'The folded label the variant comes from.';

CREATE FUNCTION mcp.thesaurus_label_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM mcp.thesaurus_label WHERE term_id = NEW.id;
    INSERT INTO mcp.thesaurus_label (term_id, label, preferred, stems, first_stem, folded, caps, words)
    SELECT NEW.id, l.label, l.preferred, s.stems, s.stems[1], s.folded,
           l.label = pg_catalog.upper(l.label) AND pg_catalog.length(pg_catalog.regexp_replace(l.label, '[^[:alpha:]\u00C0-\u024F]', '', 'g')) <= 3,
           s.words
      FROM (SELECT NEW.label AS label, true AS preferred
            UNION
            SELECT a, false FROM pg_catalog.unnest(NEW.alt_labels) a WHERE a <> NEW.label) l
     CROSS JOIN LATERAL (
            SELECT COALESCE(pg_catalog.array_agg(t.stem ORDER BY t.pos) FILTER (WHERE t.stem IS NOT NULL),
                            pg_catalog.array_agg(t.folded ORDER BY t.pos)) AS stems,
                   pg_catalog.string_agg(t.folded, ' ' ORDER BY t.pos) AS folded,
                   COALESCE(pg_catalog.array_agg(t.folded ORDER BY t.pos) FILTER (WHERE t.stem IS NOT NULL),
                            pg_catalog.array_agg(t.folded ORDER BY t.pos)) AS words
              FROM mcp.tokenize(l.label) t) s
     WHERE s.stems IS NOT NULL;
    DELETE FROM mcp.thesaurus_variant WHERE term_id = NEW.id;
    INSERT INTO mcp.thesaurus_variant (variant, term_id, folded)
    SELECT DISTINCT d.x, NEW.id, l.folded
      FROM mcp.thesaurus_label l,
           LATERAL (SELECT l.folded
                    UNION
                    SELECT pg_catalog.left(l.folded, k - 1) || pg_catalog.substr(l.folded, k + 1)
                      FROM pg_catalog.generate_series(1, pg_catalog.length(l.folded)) k) d(x)
     WHERE l.term_id = NEW.id AND pg_catalog.cardinality(l.stems) = 1
       AND pg_catalog.length(l.folded) BETWEEN 5 AND 24 AND pg_catalog.strpos(l.folded, ' ') = 0;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION mcp.thesaurus_label_sync() IS
  'Trigger: rewrites the search forms (mcp.thesaurus_label, mcp.thesaurus_variant) of a term after it is inserted or updated.';
CREATE TRIGGER thesaurus_label_sync AFTER INSERT OR UPDATE ON mcp.thesaurus_term
    FOR EACH ROW EXECUTE FUNCTION mcp.thesaurus_label_sync();

CREATE TABLE mcp.entity_source (
    kind        text PRIMARY KEY
                CONSTRAINT entity_source_kind_format CHECK (kind ~ '^[a-z][a-z0-9_]{0,63}$'),
    query       text,
    table_name  text,
    column_name text,
    description text,
    enabled     boolean NOT NULL DEFAULT true,
    CONSTRAINT entity_source_one_reader CHECK ((query IS NULL) <> (table_name IS NULL AND column_name IS NULL)),
    CONSTRAINT entity_source_column_complete CHECK ((table_name IS NULL) = (column_name IS NULL))
);
COMMENT ON TABLE mcp.entity_source IS
  'Master data as entity source: every distinct value of a column (or of the first column of a reviewed query) is an entity of kind. Read live by mcp.analyze, as the calling role, read-only: no copy that goes stale. Costs one query per source and analysis: keep sources to a few thousand distinct values.';
COMMENT ON COLUMN mcp.entity_source.kind IS 'Entity kind the values are.';
COMMENT ON COLUMN mcp.entity_source.query IS 'Reviewed SELECT; its first column is the value (term_id and label of the entity).';
COMMENT ON COLUMN mcp.entity_source.table_name IS 'Table or view (optionally schema-qualified) whose column holds the values.';
COMMENT ON COLUMN mcp.entity_source.column_name IS 'The column holding the values.';
COMMENT ON COLUMN mcp.entity_source.description IS 'Free text for admins.';
COMMENT ON COLUMN mcp.entity_source.enabled IS 'A disabled source is not read.';

CREATE FUNCTION mcp.entity_source_sql(s mcp.entity_source) RETURNS text
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE WHEN s.query IS NOT NULL
                THEN 'SELECT DISTINCT v::text FROM (' || s.query || ') AS q(v) WHERE v IS NOT NULL'
                ELSE pg_catalog.format('SELECT DISTINCT %I::text FROM %s WHERE %I IS NOT NULL',
                                       s.column_name, s.table_name::regclass, s.column_name) END
$$;
COMMENT ON FUNCTION mcp.entity_source_sql(mcp.entity_source) IS
  'The query that reads the distinct values of an entity source.';

CREATE FUNCTION mcp.entity_source_check() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.table_name IS NOT NULL AND pg_catalog.to_regclass(NEW.table_name) IS NULL THEN
        RAISE EXCEPTION 'entity source %: table % does not exist', NEW.kind, NEW.table_name
            USING ERRCODE = 'check_violation';
    END IF;
    BEGIN
        EXECUTE 'SELECT 1 FROM (' || mcp.entity_source_sql(NEW) || ') AS s LIMIT 0';
    EXCEPTION WHEN OTHERS THEN
        RAISE EXCEPTION 'entity source %: its query does not run: %', NEW.kind, SQLERRM
            USING ERRCODE = 'check_violation';
    END;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION mcp.entity_source_check() IS
  'Trigger: refuses an entity source whose table, column or query does not run (23514).';
CREATE TRIGGER entity_source_check BEFORE INSERT OR UPDATE ON mcp.entity_source
    FOR EACH ROW EXECUTE FUNCTION mcp.entity_source_check();

------------------------------------------------------------------------------------------------
-- Loader
------------------------------------------------------------------------------------------------
CREATE FUNCTION mcp.load_thesaurus(doc jsonb, replace boolean DEFAULT false) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    bad text;
    n_terms integer;
    n_inserted integer := 0;
    n_updated integer := 0;
    n_deleted integer := 0;
    n_relations integer;
    n_rel_added integer;
    n_rel_removed integer;
BEGIN
    PERFORM mcp.arg_not_null(doc, 'doc', 'mcp.load_thesaurus'), mcp.arg_not_null(replace, 'replace', 'mcp.load_thesaurus');
    IF pg_catalog.jsonb_typeof(doc) <> 'object' OR pg_catalog.jsonb_typeof(doc -> 'terms') IS DISTINCT FROM 'array' THEN
        RAISE EXCEPTION 'load_thesaurus: doc must be an object {"terms": [...]}' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- shape of every term (the first bad one is named)
    SELECT pg_catalog.format('term %s: %s', t.i, CASE
             WHEN pg_catalog.jsonb_typeof(t.v) <> 'object' THEN 'not an object'
             WHEN pg_catalog.jsonb_typeof(t.v -> 'id') IS DISTINCT FROM 'string' THEN 'id must be a string'
             WHEN pg_catalog.jsonb_typeof(t.v -> 'kind') IS DISTINCT FROM 'string' THEN pg_catalog.format('%s: kind must be a string', t.v -> 'id')
             WHEN pg_catalog.jsonb_typeof(t.v -> 'label') IS DISTINCT FROM 'string' THEN pg_catalog.format('%s: label must be a string', t.v -> 'id')
             WHEN t.v ? 'lang' AND pg_catalog.jsonb_typeof(t.v -> 'lang') <> 'string' THEN pg_catalog.format('%s: lang must be a string', t.v -> 'id')
             ELSE (SELECT pg_catalog.format('%s: %s must be an array of strings', t.v -> 'id', k)
                     FROM pg_catalog.unnest(ARRAY['alt_labels', 'broader', 'narrower', 'related']) k
                    WHERE t.v ? k AND (pg_catalog.jsonb_typeof(t.v -> k) <> 'array'
                          OR EXISTS (SELECT 1 FROM pg_catalog.jsonb_array_elements(t.v -> k) e WHERE pg_catalog.jsonb_typeof(e) <> 'string'))
                    LIMIT 1) END)
      INTO bad
      FROM pg_catalog.jsonb_array_elements(doc -> 'terms') WITH ORDINALITY AS t(v, i)
     WHERE pg_catalog.jsonb_typeof(t.v) <> 'object'
        OR pg_catalog.jsonb_typeof(t.v -> 'id') IS DISTINCT FROM 'string'
        OR pg_catalog.jsonb_typeof(t.v -> 'kind') IS DISTINCT FROM 'string'
        OR pg_catalog.jsonb_typeof(t.v -> 'label') IS DISTINCT FROM 'string'
        OR (t.v ? 'lang' AND pg_catalog.jsonb_typeof(t.v -> 'lang') <> 'string')
        OR EXISTS (SELECT 1 FROM pg_catalog.unnest(ARRAY['alt_labels', 'broader', 'narrower', 'related']) k
                    WHERE t.v ? k AND (pg_catalog.jsonb_typeof(t.v -> k) <> 'array'
                          OR EXISTS (SELECT 1 FROM pg_catalog.jsonb_array_elements(t.v -> k) e WHERE pg_catalog.jsonb_typeof(e) <> 'string')))
     ORDER BY t.i LIMIT 1;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'load_thesaurus: %', bad USING ERRCODE = 'invalid_parameter_value';
    END IF;

    IF pg_catalog.to_regclass('pg_temp.pg_mcp_thesaurus_in') IS NULL THEN
        CREATE TEMP TABLE pg_mcp_thesaurus_in (id text, kind text, label text, alt_labels text[], lang text) ON COMMIT DROP;
        CREATE TEMP TABLE pg_mcp_thesaurus_rel (source text, relation text, target text) ON COMMIT DROP;
    END IF;
    TRUNCATE pg_mcp_thesaurus_in, pg_mcp_thesaurus_rel;
    INSERT INTO pg_mcp_thesaurus_in
    SELECT t.v ->> 'id', t.v ->> 'kind', t.v ->> 'label',
           ARRAY(SELECT DISTINCT a FROM pg_catalog.jsonb_array_elements_text(COALESCE(t.v -> 'alt_labels', '[]')) a ORDER BY a),
           COALESCE(t.v ->> 'lang', 'de')
      FROM pg_catalog.jsonb_array_elements(doc -> 'terms') t(v);

    SELECT pg_catalog.string_agg(pg_catalog.quote_literal(id), ', ' ORDER BY id) INTO bad
      FROM (SELECT id FROM pg_mcp_thesaurus_in GROUP BY id HAVING pg_catalog.count(*) > 1) d;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'load_thesaurus: duplicate term id(s): %', bad USING ERRCODE = 'check_violation';
    END IF;

    INSERT INTO pg_mcp_thesaurus_rel
    SELECT DISTINCT t.v ->> 'id', 'broader', b FROM pg_catalog.jsonb_array_elements(doc -> 'terms') t(v),
           pg_catalog.jsonb_array_elements_text(COALESCE(t.v -> 'broader', '[]')) b
    UNION
    SELECT n, 'broader', t.v ->> 'id' FROM pg_catalog.jsonb_array_elements(doc -> 'terms') t(v),
           pg_catalog.jsonb_array_elements_text(COALESCE(t.v -> 'narrower', '[]')) n
    UNION
    SELECT t.v ->> 'id', 'related', r FROM pg_catalog.jsonb_array_elements(doc -> 'terms') t(v),
           pg_catalog.jsonb_array_elements_text(COALESCE(t.v -> 'related', '[]')) r;

    SELECT pg_catalog.string_agg(pg_catalog.format('%s -> %s (%s)', r.source, r.target, r.relation), ', ' ORDER BY r.source, r.target)
      INTO bad
      FROM pg_mcp_thesaurus_rel r
     WHERE NOT EXISTS (SELECT 1 FROM pg_mcp_thesaurus_in i WHERE i.id = r.target)
       AND (replace OR NOT EXISTS (SELECT 1 FROM mcp.thesaurus_term t WHERE t.id = r.target))
        OR NOT EXISTS (SELECT 1 FROM pg_mcp_thesaurus_in i WHERE i.id = r.source)
       AND (replace OR NOT EXISTS (SELECT 1 FROM mcp.thesaurus_term t WHERE t.id = r.source));
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'load_thesaurus: unknown relation target(s): %', bad USING ERRCODE = 'check_violation';
    END IF;
    SELECT pg_catalog.string_agg(pg_catalog.quote_literal(source), ', ' ORDER BY source) INTO bad
      FROM pg_mcp_thesaurus_rel WHERE source = target;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'load_thesaurus: term(s) in a relation with themselves: %', bad USING ERRCODE = 'check_violation';
    END IF;

    -- cycles in broader over the graph after the load (the doc's terms take their relations
    -- from the doc; without replace, the other terms keep theirs)
    WITH RECURSIVE edge(source, target) AS (
        SELECT source, target FROM pg_mcp_thesaurus_rel WHERE relation = 'broader'
        UNION
        SELECT r.source, r.target FROM mcp.thesaurus_relation r
         WHERE NOT replace AND r.relation = 'broader'
           AND NOT EXISTS (SELECT 1 FROM pg_mcp_thesaurus_in i WHERE i.id = r.source)
    ), walk(start, node, path) AS (
        SELECT source, target, ARRAY[source, target] FROM edge
        UNION ALL
        SELECT w.start, e.target, w.path || e.target
          FROM walk w JOIN edge e ON e.source = w.node
         WHERE w.node <> w.start AND NOT e.target = ANY (w.path[2:])
    )
    SELECT pg_catalog.array_to_string(path, ' -> ') INTO bad
      FROM walk WHERE node = start ORDER BY pg_catalog.cardinality(path), path LIMIT 1;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'load_thesaurus: cycle in broader: %', bad USING ERRCODE = 'check_violation';
    END IF;

    IF replace THEN
        DELETE FROM mcp.thesaurus_term t WHERE NOT EXISTS (SELECT 1 FROM pg_mcp_thesaurus_in i WHERE i.id = t.id);
        GET DIAGNOSTICS n_deleted = ROW_COUNT;
    END IF;
    UPDATE mcp.thesaurus_term t
       SET kind = i.kind, label = i.label, alt_labels = i.alt_labels, lang = i.lang, updated_at = pg_catalog.now()
      FROM pg_mcp_thesaurus_in i
     WHERE i.id = t.id AND (t.kind, t.label, t.alt_labels, t.lang) IS DISTINCT FROM (i.kind, i.label, i.alt_labels, i.lang);
    GET DIAGNOSTICS n_updated = ROW_COUNT;
    INSERT INTO mcp.thesaurus_term (id, kind, label, alt_labels, lang)
    SELECT i.id, i.kind, i.label, i.alt_labels, i.lang FROM pg_mcp_thesaurus_in i
     WHERE NOT EXISTS (SELECT 1 FROM mcp.thesaurus_term t WHERE t.id = i.id);
    GET DIAGNOSTICS n_inserted = ROW_COUNT;

    -- relations of the doc's terms are exactly the doc's
    DELETE FROM mcp.thesaurus_relation r
     WHERE (EXISTS (SELECT 1 FROM pg_mcp_thesaurus_in i WHERE i.id = r.source)
            OR (r.relation = 'broader' AND EXISTS (SELECT 1 FROM pg_mcp_thesaurus_rel x
                                                    WHERE x.relation = 'broader' AND x.target = r.target AND x.source = r.source)))
       AND NOT EXISTS (SELECT 1 FROM pg_mcp_thesaurus_rel x
                        WHERE (x.source, x.relation, x.target) = (r.source, r.relation, r.target));
    GET DIAGNOSTICS n_rel_removed = ROW_COUNT;
    INSERT INTO mcp.thesaurus_relation (source, relation, target)
    SELECT x.source, x.relation, x.target FROM pg_mcp_thesaurus_rel x
    ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS n_rel_added = ROW_COUNT;

    SELECT pg_catalog.count(*) INTO n_terms FROM pg_mcp_thesaurus_in;
    SELECT pg_catalog.count(*) INTO n_relations FROM pg_mcp_thesaurus_rel;
    TRUNCATE pg_mcp_thesaurus_in, pg_mcp_thesaurus_rel;
    RETURN pg_catalog.jsonb_build_object(
        'terms', n_terms, 'inserted', n_inserted, 'updated', n_updated,
        'unchanged', n_terms - n_inserted - n_updated, 'deleted', n_deleted,
        'relations', n_relations, 'relations_added', n_rel_added, 'relations_removed', n_rel_removed);
END
$$;
COMMENT ON FUNCTION mcp.load_thesaurus(jsonb, boolean) IS
  'Loads a thesaurus {"terms": [{"id", "kind", "label", "alt_labels": [], "lang": "de", "broader": [], "narrower": [], "related": []}]} (other keys are ignored). Idempotent: terms are upserted, the relations of the loaded terms become exactly the document''s; replace = true also deletes terms not in the document. Returns counts {terms, inserted, updated, unchanged, deleted, relations, relations_added, relations_removed}. Refuses (nothing changed) a wrong shape with 22023, and duplicate ids, unknown relation targets and cycles in broader with 23514, naming them.';

------------------------------------------------------------------------------------------------
-- Graph over the thesaurus (built-in tools thesaurus_expand, thesaurus_neighbours, thesaurus_path)
------------------------------------------------------------------------------------------------
CREATE FUNCTION mcp.thesaurus_resolve(term text) RETURNS text
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
    SELECT id FROM (
        SELECT t.id, 0 AS rank FROM mcp.thesaurus_term t WHERE t.id = term
        UNION ALL
        SELECT l.term_id, CASE WHEN l.preferred THEN 1 ELSE 2 END FROM mcp.thesaurus_label l
         WHERE l.folded = (SELECT pg_catalog.string_agg(k.folded, ' ' ORDER BY k.pos) FROM mcp.tokenize(term) k)
    ) c ORDER BY rank, id LIMIT 1
$$;
COMMENT ON FUNCTION mcp.thesaurus_resolve(text) IS
  'The term an id or a label (preferred or alternative, case and diacritics ignored) names; NULL when none.';

CREATE VIEW mcp.thesaurus_edge AS
SELECT source, target, 'broader'::text AS relation FROM mcp.thesaurus_relation WHERE relation = 'broader'
UNION ALL
SELECT target, source, 'narrower' FROM mcp.thesaurus_relation WHERE relation = 'broader'
UNION ALL
SELECT source, target, 'related' FROM mcp.thesaurus_relation WHERE relation = 'related'
UNION ALL
SELECT target, source, 'related' FROM mcp.thesaurus_relation WHERE relation = 'related';
COMMENT ON VIEW mcp.thesaurus_edge IS 'Thesaurus relations in both directions: broader, its inverse narrower, related (symmetric).';
COMMENT ON COLUMN mcp.thesaurus_edge.source IS 'Term the edge starts at.';
COMMENT ON COLUMN mcp.thesaurus_edge.target IS 'Term the edge leads to.';
COMMENT ON COLUMN mcp.thesaurus_edge.relation IS 'broader, narrower or related, seen from source.';

CREATE FUNCTION mcp.thesaurus_term_unknown(term text) RETURNS jsonb
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT pg_catalog.jsonb_build_object('error', pg_catalog.format('no thesaurus term %s', pg_catalog.to_jsonb(term)))
$$;
COMMENT ON FUNCTION mcp.thesaurus_term_unknown(text) IS 'The graph tools'' answer for a term that names no thesaurus term.';

CREATE FUNCTION mcp.thesaurus_check_depth(depth integer) RETURNS integer
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    IF depth IS NULL OR depth < 1 OR depth > 10 THEN
        RAISE EXCEPTION 'depth must be between 1 and 10, got %', COALESCE(depth::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN depth;
END
$$;
COMMENT ON FUNCTION mcp.thesaurus_check_depth(integer) IS 'The graph tools'' depth limit: 1 .. 10, else 22023.';

CREATE FUNCTION mcp.thesaurus_expand(term text) RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    WITH RECURSIVE start AS (SELECT mcp.thesaurus_resolve(mcp.arg_not_null(term, 'term', 'mcp.thesaurus_expand')) AS id),
    down(id, depth) AS (
        SELECT id, 0 FROM start WHERE id IS NOT NULL
        UNION   -- UNION, not UNION ALL: a node reached again at the same depth is not walked twice
        SELECT r.source, d.depth + 1 FROM down d JOIN mcp.thesaurus_relation r
            ON r.target = d.id AND r.relation = 'broader'
         WHERE d.depth < 10
    ), best AS (SELECT id, pg_catalog.min(depth) AS depth FROM down GROUP BY id)
    SELECT CASE WHEN (SELECT id FROM start) IS NULL THEN mcp.thesaurus_term_unknown(term) ELSE
        (SELECT pg_catalog.jsonb_build_object(
            'id', t.id, 'kind', t.kind, 'label', t.label, 'synonyms', pg_catalog.to_jsonb(t.alt_labels),
            'narrower', COALESCE((SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                                     'id', n.id, 'label', n.label, 'synonyms', pg_catalog.to_jsonb(n.alt_labels), 'depth', b.depth)
                                     ORDER BY b.depth, n.id)
                                    FROM best b JOIN mcp.thesaurus_term n ON n.id = b.id WHERE b.depth > 0), '[]'),
            'labels', (SELECT pg_catalog.jsonb_agg(DISTINCT x) FROM best b JOIN mcp.thesaurus_term n ON n.id = b.id,
                              LATERAL pg_catalog.unnest(n.label || n.alt_labels) x))
           FROM mcp.thesaurus_term t WHERE t.id = (SELECT id FROM start)) END
$$;
COMMENT ON FUNCTION mcp.thesaurus_expand(text) IS
  'Tool thesaurus_expand: a term (id or label) with its synonyms and all narrower terms (transitively, at most 10 levels; recursive SQL, a node reached again is not walked twice), plus every label of them (for search).';

CREATE FUNCTION mcp.thesaurus_neighbours(term text, depth integer DEFAULT 1) RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    WITH RECURSIVE start AS (SELECT mcp.thesaurus_resolve(mcp.arg_not_null(term, 'term', 'mcp.thesaurus_neighbours')) AS id,
                                    mcp.thesaurus_check_depth(mcp.arg_not_null(depth, 'depth', 'mcp.thesaurus_neighbours')) AS lim),
    walk(id, depth, relation) AS (
        SELECT id, 0, NULL::text FROM start WHERE id IS NOT NULL
        UNION   -- bounded: at most (terms x depth) rows, cycles end at the depth limit
        SELECT e.target, w.depth + 1, CASE WHEN w.depth = 0 THEN e.relation ELSE w.relation END
          FROM walk w JOIN mcp.thesaurus_edge e ON e.source = w.id
         WHERE w.depth < (SELECT lim FROM start)
    ), best AS (
        SELECT DISTINCT ON (id) id, depth, relation FROM walk
         WHERE id <> (SELECT id FROM start) ORDER BY id, depth, relation
    )
    SELECT CASE WHEN (SELECT id FROM start) IS NULL THEN mcp.thesaurus_term_unknown(term) ELSE
        pg_catalog.jsonb_build_object('id', (SELECT id FROM start), 'depth', (SELECT lim FROM start),
          'neighbours', COALESCE((SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                   'id', t.id, 'kind', t.kind, 'label', t.label, 'depth', b.depth, 'via', b.relation) ORDER BY b.depth, t.id)
              FROM best b JOIN mcp.thesaurus_term t ON t.id = b.id), '[]')) END
$$;
COMMENT ON FUNCTION mcp.thesaurus_neighbours(text, integer) IS
  'Tool thesaurus_neighbours: terms within depth (1 .. 10) relations of a term, over broader, narrower and related, each once with its smallest depth and the relation of the first step. Recursive SQL; cycles end at the depth limit.';

CREATE FUNCTION mcp.thesaurus_path(source text, target text, max_depth integer DEFAULT 6) RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    WITH RECURSIVE ends AS (
        SELECT mcp.thesaurus_resolve(mcp.arg_not_null(source, 'source', 'mcp.thesaurus_path')) AS a,
               mcp.thesaurus_resolve(mcp.arg_not_null(target, 'target', 'mcp.thesaurus_path')) AS b,
               mcp.thesaurus_check_depth(mcp.arg_not_null(max_depth, 'max_depth', 'mcp.thesaurus_path')) AS lim
    ), walk(id, depth) AS (
        -- breadth first from a; UNION drops a (term, depth) pair already reached, so the work is
        -- bounded by edges x depth even in a dense or cyclic graph
        SELECT a, 0 FROM ends WHERE a IS NOT NULL AND b IS NOT NULL
        UNION
        SELECT e.target, w.depth + 1
          FROM walk w JOIN mcp.thesaurus_edge e ON e.source = w.id
         WHERE w.depth < (SELECT lim FROM ends)
    ), best AS (
        SELECT id, pg_catalog.min(depth) AS depth FROM walk GROUP BY id
    ), back(id, depth) AS (
        -- from b back to a: each step to a term one level closer to a
        SELECT best.id, best.depth FROM best, ends WHERE best.id = ends.b
        UNION ALL
        SELECT p.source, bk.depth - 1
          FROM back bk
          CROSS JOIN LATERAL (SELECT e.source FROM mcp.thesaurus_edge e
                                JOIN best ON best.id = e.source AND best.depth = bk.depth - 1
                               WHERE e.target = bk.id ORDER BY e.source LIMIT 1) p
         WHERE bk.depth > 0
    )
    SELECT CASE
        WHEN (SELECT a FROM ends) IS NULL THEN mcp.thesaurus_term_unknown(source)
        WHEN (SELECT b FROM ends) IS NULL THEN mcp.thesaurus_term_unknown(target)
        ELSE pg_catalog.jsonb_build_object(
            'source', (SELECT a FROM ends), 'target', (SELECT b FROM ends),
            'found', EXISTS (SELECT 1 FROM back),
            'length', (SELECT pg_catalog.max(depth) FROM back),
            'path', COALESCE((SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                        'id', cur.id, 'label', t.label,
                        'via', (SELECT pg_catalog.min(e.relation) FROM back prev JOIN mcp.thesaurus_edge e
                                    ON e.source = prev.id AND e.target = cur.id WHERE prev.depth = cur.depth - 1))
                        ORDER BY cur.depth)
                  FROM back cur JOIN mcp.thesaurus_term t ON t.id = cur.id), '[]')) END
$$;
COMMENT ON FUNCTION mcp.thesaurus_path(text, text, integer) IS
  'Tool thesaurus_path: the shortest chain of relations (broader, narrower, related) between two terms, at most max_depth (1 .. 10) steps; found = false when there is none within the limit. Recursive SQL, breadth first: a term is expanded once per depth, so cycles and dense graphs cost at most edges x depth.';

INSERT INTO mcp.tool (name, description, parameters, function, kind, read_only) VALUES
('thesaurus_expand',
 'Expand a term of the thesaurus (an id or a label such as "Metall- und Elektroindustrie") to its synonyms and all narrower terms. Use the returned labels to search more completely.',
 '{"type": "object", "properties": {"term": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Term id or label."}}, "required": ["term"], "additionalProperties": false}',
 'mcp.thesaurus_expand(text)', 'builtin', true),
('thesaurus_neighbours',
 'Terms related to a thesaurus term (broader, narrower, related) up to depth steps away.',
 '{"type": "object", "properties": {"term": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Term id or label."}, "depth": {"type": "integer", "minimum": 1, "maximum": 10, "description": "How many relation steps (default 1)."}}, "required": ["term"], "additionalProperties": false}',
 'mcp.thesaurus_neighbours(text,integer)', 'builtin', true),
('thesaurus_path',
 'How two thesaurus terms are connected: the shortest chain of broader/narrower/related relations between them.',
 '{"type": "object", "properties": {"source": {"type": "string", "minLength": 1, "maxLength": 200, "description": "First term (id or label)."}, "target": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Second term (id or label)."}, "max_depth": {"type": "integer", "minimum": 1, "maximum": 10, "description": "Longest chain to look for (default 6)."}}, "required": ["source", "target"], "additionalProperties": false}',
 'mcp.thesaurus_path(text,text,integer)', 'builtin', true);

------------------------------------------------------------------------------------------------
-- Prompt templates: declared variables, rendering with values as marked data
------------------------------------------------------------------------------------------------
CREATE FUNCTION mcp.template_variables(template text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT COALESCE(pg_catalog.array_agg(DISTINCT m[1]), '{}')
      FROM pg_catalog.regexp_matches(template, '\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}', 'g') m
$$;
COMMENT ON FUNCTION mcp.template_variables(text) IS 'The {{variable}} names a template uses.';

CREATE FUNCTION mcp.prompt_variables_check() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    undeclared text;
BEGIN
    SELECT pg_catalog.string_agg(v, ', ' ORDER BY v) INTO undeclared
      FROM pg_catalog.unnest(mcp.template_variables(NEW.template)) v WHERE NOT v = ANY (NEW.variables);
    IF undeclared IS NOT NULL THEN
        RAISE EXCEPTION 'prompt % version %: template uses undeclared variable(s) %', NEW.name, NEW.version, undeclared
            USING ERRCODE = 'check_violation', HINT = 'List them in mcp.prompt.variables.';
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION mcp.prompt_variables_check() IS
  'Trigger: refuses a prompt whose template uses a {{variable}} it does not declare in variables (23514).';
CREATE TRIGGER prompt_variables_check BEFORE INSERT OR UPDATE OF template, variables ON mcp.prompt
    FOR EACH ROW EXECUTE FUNCTION mcp.prompt_variables_check();

CREATE FUNCTION mcp.render_prompt(name text, vars jsonb DEFAULT '{}', version integer DEFAULT NULL) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
    p mcp.prompt;
    bad text;
    out text := '';
    rest text;
    m text[];
    s integer;
    val text;
    pat constant text := '\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}';
BEGIN
    PERFORM mcp.arg_not_null(name, 'name', 'mcp.render_prompt');
    SELECT * INTO p FROM mcp.prompt pr
     WHERE pr.name = render_prompt.name AND (CASE WHEN render_prompt.version IS NULL THEN pr.active ELSE pr.version = render_prompt.version END);
    IF NOT FOUND THEN
        RAISE EXCEPTION 'prompt % does not exist', CASE WHEN version IS NULL THEN pg_catalog.format('%s (active version)', name)
                                                        ELSE pg_catalog.format('%s version %s', name, version) END
            USING ERRCODE = 'undefined_object';
    END IF;
    vars := COALESCE(vars, '{}');
    IF pg_catalog.jsonb_typeof(vars) <> 'object' THEN
        RAISE EXCEPTION 'render_prompt: vars must be a JSON object' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT pg_catalog.string_agg(k, ', ' ORDER BY k) INTO bad FROM pg_catalog.jsonb_object_keys(vars) k WHERE NOT k = ANY (p.variables);
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'prompt % version %: undeclared variable(s) %', p.name, p.version, bad
            USING ERRCODE = 'invalid_parameter_value', HINT = pg_catalog.format('Declared: %s', p.variables);
    END IF;
    SELECT pg_catalog.string_agg(DISTINCT v, ', ' ORDER BY v) INTO bad
      FROM pg_catalog.unnest(p.variables || mcp.template_variables(p.template)) v
     WHERE NOT vars ? v OR pg_catalog.jsonb_typeof(vars -> v) = 'null';
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'prompt % version %: missing variable(s) %', p.name, p.version, bad
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- one pass over the template: a value is never scanned for placeholders again
    rest := p.template;
    LOOP
        s := pg_catalog.regexp_instr(rest, pat);
        EXIT WHEN s = 0;
        m := pg_catalog.regexp_match(rest, pat);
        val := CASE WHEN pg_catalog.jsonb_typeof(vars -> m[1]) = 'string' THEN vars ->> m[1] ELSE (vars -> m[1])::text END;
        out := out || pg_catalog.substr(rest, 1, s - 1) || mcp.template_data(m[1], val);
        rest := pg_catalog.substr(rest, s + pg_catalog.length(pg_catalog.regexp_substr(rest, pat)));
    END LOOP;
    RETURN out || rest;
END
$$;
COMMENT ON FUNCTION mcp.render_prompt(text, jsonb, integer) IS
  'Renders a prompt template (the active version, or the given one) with vars: every declared variable must be given and no other. Each value is inserted as data: <data name="var">value</data> with & < > escaped as &amp; &lt; &gt;, so a value can neither close the block nor add markup or placeholders. Errors: 42704 no such prompt, 22023 missing or undeclared variable.';

CREATE FUNCTION mcp.template_data(name text, value text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT '<data name="' || name || '">'
        || pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(COALESCE(value, ''), '&', '&amp;'), '<', '&lt;'), '>', '&gt;')
        || '</data>'
$$;
COMMENT ON FUNCTION mcp.template_data(text, text) IS
  'A value as marked data inside a rendered template: <data name="…">…</data>, & < > escaped.';

------------------------------------------------------------------------------------------------
-- Execution plans
------------------------------------------------------------------------------------------------
CREATE TABLE mcp.plan (
    name            text PRIMARY KEY
                    CONSTRAINT plan_name_format CHECK (name ~ '^[a-zA-Z0-9_.-]{1,64}$'),
    interface       text NOT NULL REFERENCES mcp.interface (name) ON UPDATE CASCADE ON DELETE CASCADE,
    description     text NOT NULL
                    CONSTRAINT plan_description_not_empty CHECK (length(btrim(description)) > 0),
    examples        text[] NOT NULL DEFAULT '{}',
    required_kinds  text[] NOT NULL DEFAULT '{}',
    optional_kinds  text[] NOT NULL DEFAULT '{}',
    priority        integer NOT NULL DEFAULT 0,
    enabled         boolean NOT NULL DEFAULT true,
    created_at      timestamptz NOT NULL DEFAULT now(),
    keywords        text[] NOT NULL DEFAULT '{}',
    example_repeats jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX plan_interface ON mcp.plan (interface) WHERE enabled;
COMMENT ON TABLE mcp.plan IS
  'Execution plans: what kind of question a plan answers (description, examples, entity kinds) and, in mcp.plan_step, how: prompts, tools run before the model, model phases with their tools, questions back to the user. mcp.analyze ranks them.';
COMMENT ON COLUMN mcp.plan.name IS 'Plan name (options.plan of mcp.chat may name it).';
COMMENT ON COLUMN mcp.plan.interface IS 'The interface whose chats may use the plan.';
COMMENT ON COLUMN mcp.plan.description IS 'What questions the plan answers (keyword signal of the ranking).';
COMMENT ON COLUMN mcp.plan.examples IS 'Example questions (keyword signal of the ranking).';
COMMENT ON COLUMN mcp.plan.required_kinds IS 'Entity kinds the plan needs (coverage signal; missing ones are reported by mcp.analyze and can be asked for).';
COMMENT ON COLUMN mcp.plan.optional_kinds IS 'Entity kinds the plan uses when present (count half in coverage).';
COMMENT ON COLUMN mcp.plan.priority IS 'Tie-breaker between plans of equal score (higher first).';
COMMENT ON COLUMN mcp.plan.enabled IS 'A disabled plan is never chosen.';
COMMENT ON COLUMN mcp.plan.created_at IS 'When the row was created.';
COMMENT ON COLUMN mcp.plan.example_repeats IS 'The shape of the plan''s example questions, set on save and when the thesaurus changes: {"share": the share of its examples that name two entities of one kind (as comparisons do: "zwischen Bayern und Sachsen"), "kinds": {kind: the share of its examples naming two of that kind}}, {} without examples (mcp.rank_plans compares the question''s shape with it).';
COMMENT ON COLUMN mcp.plan.keywords IS 'German stems of description and examples, set by the trigger on save (mcp.rank_plans compares the question''s words with them).';

CREATE TABLE mcp.plan_step (
    plan        text NOT NULL REFERENCES mcp.plan (name) ON UPDATE CASCADE ON DELETE CASCADE,
    position    integer NOT NULL CONSTRAINT plan_step_position_positive CHECK (position > 0),
    kind        text NOT NULL
                CONSTRAINT plan_step_kind_known CHECK (kind IN ('prompt', 'retrieve', 'tool', 'llm', 'ask')),
    prompt      text,
    prompt_mode text NOT NULL DEFAULT 'extend'
                CONSTRAINT plan_step_prompt_mode_known CHECK (prompt_mode IN ('system', 'extend')),
    tool        text,
    arguments   jsonb NOT NULL DEFAULT '{}'
                CONSTRAINT plan_step_arguments_object CHECK (jsonb_typeof(arguments) = 'object'),
    tools       text[],
    tool_choice text
                CONSTRAINT plan_step_tool_choice_valid
                CHECK (tool_choice IS NULL OR tool_choice IN ('none', 'auto', 'required') OR tool_choice ~ '^function:[a-zA-Z0-9_-]{1,64}$'),
    ask_kind    text,
    question    text,
    PRIMARY KEY (plan, position),
    CONSTRAINT plan_step_prompt_fields CHECK ((kind = 'prompt') = (prompt IS NOT NULL)),
    CONSTRAINT plan_step_tool_fields CHECK ((kind IN ('retrieve', 'tool')) = (tool IS NOT NULL)),
    CONSTRAINT plan_step_llm_fields CHECK (kind = 'llm' OR (tools IS NULL AND tool_choice IS NULL)),
    CONSTRAINT plan_step_ask_fields CHECK ((kind = 'ask') = (ask_kind IS NOT NULL) AND (kind = 'ask' OR question IS NULL))
);
COMMENT ON TABLE mcp.plan_step IS
  'Ordered steps of a plan. prompt: add a rendered template to the system prompt; retrieve/tool: run a tool before the first model call (arguments templated from the entities) and give the model its result as a tool result; llm: the model phase (at most one per plan) with its own tool subset and tool_choice; ask: when the entity of ask_kind is missing, end with needs_input and the question, without calling the model. Checked on save (23514).';
COMMENT ON COLUMN mcp.plan_step.plan IS 'The plan.';
COMMENT ON COLUMN mcp.plan_step.position IS 'Order of the step (ascending).';
COMMENT ON COLUMN mcp.plan_step.kind IS 'prompt | retrieve | tool | llm | ask.';
COMMENT ON COLUMN mcp.plan_step.prompt IS 'prompt: name of the mcp.prompt template (its active version); its variables must be question or kinds of the plan.';
COMMENT ON COLUMN mcp.plan_step.prompt_mode IS 'prompt: system = replaces the interface''s system prompt, extend = appended to it (extended system prompt).';
COMMENT ON COLUMN mcp.plan_step.tool IS 'retrieve/tool: the tool to run; it must be a tool of the plan''s interface.';
COMMENT ON COLUMN mcp.plan_step.arguments IS 'retrieve/tool: the tool''s arguments; a string value "{{kind}}" becomes the label of the entity of that kind found in the question ("{{question}}" the question).';
COMMENT ON COLUMN mcp.plan_step.tools IS 'llm: the tools offered in this phase (NULL = all of the interface''s); each must be a tool of the interface.';
COMMENT ON COLUMN mcp.plan_step.tool_choice IS 'llm: none | auto | required | function:<tool> for this phase (NULL = the interface''s).';
COMMENT ON COLUMN mcp.plan_step.ask_kind IS 'ask: the entity kind that must be present; it must be one of the plan''s kinds.';
COMMENT ON COLUMN mcp.plan_step.question IS 'ask: the question for the user (default: Bitte nennen Sie: <kind>.).';

CREATE FUNCTION mcp.check_plan_step(s mcp.plan_step, p mcp.plan) RETURNS void
LANGUAGE plpgsql STABLE STRICT AS $$
DECLARE
    allowed text[];
    bad text;
    pr mcp.prompt;
    fn text;
    where_ text := pg_catalog.format('plan %s step %s (%s)', s.plan, s.position, s.kind);
BEGIN
    allowed := ARRAY['question'] || p.required_kinds || p.optional_kinds;
    IF s.kind = 'prompt' THEN
        SELECT * INTO pr FROM mcp.prompt WHERE name = s.prompt AND active;
        IF NOT FOUND THEN
            RAISE EXCEPTION '%: prompt % has no active version', where_, s.prompt USING ERRCODE = 'check_violation';
        END IF;
        SELECT pg_catalog.string_agg(v, ', ' ORDER BY v) INTO bad
          FROM pg_catalog.unnest(pr.variables) v WHERE NOT v = ANY (allowed);
        IF bad IS NOT NULL THEN
            RAISE EXCEPTION '%: template variable(s) % of prompt % are neither question nor kinds of the plan (%)',
                where_, bad, s.prompt, pg_catalog.array_to_string(allowed, ', ') USING ERRCODE = 'check_violation';
        END IF;
    ELSIF s.kind IN ('retrieve', 'tool') THEN
        IF NOT EXISTS (SELECT 1 FROM mcp.interface_tool it JOIN mcp.tool t ON t.name = it.tool
                        WHERE it.interface = p.interface AND it.tool = s.tool) THEN
            RAISE EXCEPTION '%: tool % is not a tool of interface %', where_, s.tool, p.interface USING ERRCODE = 'check_violation';
        END IF;
        SELECT pg_catalog.string_agg(DISTINCT v, ', ') INTO bad
          FROM pg_catalog.jsonb_each(s.arguments) a,
               LATERAL pg_catalog.unnest(CASE WHEN pg_catalog.jsonb_typeof(a.value) = 'string'
                                              THEN mcp.template_variables(a.value #>> '{}') ELSE '{}' END) v
         WHERE NOT v = ANY (allowed);
        IF bad IS NOT NULL THEN
            RAISE EXCEPTION '%: argument template variable(s) % are neither question nor kinds of the plan (%)',
                where_, bad, pg_catalog.array_to_string(allowed, ', ') USING ERRCODE = 'check_violation';
        END IF;
    ELSIF s.kind = 'llm' THEN
        SELECT pg_catalog.string_agg(t, ', ' ORDER BY t) INTO bad FROM pg_catalog.unnest(s.tools) t
         WHERE NOT EXISTS (SELECT 1 FROM mcp.interface_tool it WHERE it.interface = p.interface AND it.tool = t);
        IF bad IS NOT NULL THEN
            RAISE EXCEPTION '%: tool(s) % are not tools of interface %', where_, bad, p.interface USING ERRCODE = 'check_violation';
        END IF;
        IF s.tool_choice LIKE 'function:%' THEN
            fn := pg_catalog.substr(s.tool_choice, 10);
            IF NOT (fn = ANY (COALESCE(s.tools, ARRAY(SELECT it.tool FROM mcp.interface_tool it WHERE it.interface = p.interface)))) THEN
                RAISE EXCEPTION '%: tool_choice names % which is not offered in this step', where_, fn USING ERRCODE = 'check_violation';
            END IF;
        END IF;
        IF EXISTS (SELECT 1 FROM mcp.plan_step o WHERE o.plan = s.plan AND o.kind = 'llm' AND o.position <> s.position) THEN
            RAISE EXCEPTION '%: the plan already has an llm step (one model phase per plan)', where_ USING ERRCODE = 'check_violation';
        END IF;
    ELSIF s.kind = 'ask' THEN
        IF NOT s.ask_kind = ANY (p.required_kinds || p.optional_kinds) THEN
            RAISE EXCEPTION '%: ask_kind % is not a kind of the plan (required %, optional %)',
                where_, s.ask_kind, p.required_kinds, p.optional_kinds USING ERRCODE = 'check_violation';
        END IF;
    END IF;
END
$$;
COMMENT ON FUNCTION mcp.check_plan_step(mcp.plan_step, mcp.plan) IS
  'Checks one plan step against its plan row as the triggers do: prompt exists with variables the plan supplies; tools are tools of the plan''s interface; tool_choice names an offered tool; argument templates use question or the plan''s kinds; ask names a kind of the plan. Raises 23514 naming the problem.';

CREATE FUNCTION mcp.plan_step_check() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- (not in a restore, check_function_bodies = off: the rows it checks against may come later)
    IF pg_catalog.current_setting('check_function_bodies')::boolean THEN
        PERFORM mcp.check_plan_step(NEW, p) FROM mcp.plan p WHERE p.name = NEW.plan;
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION mcp.plan_step_check() IS 'Trigger: checks a plan step when it is saved (mcp.check_plan_step); not in a restore (check_function_bodies = off).';
CREATE TRIGGER plan_step_check BEFORE INSERT OR UPDATE ON mcp.plan_step
    FOR EACH ROW EXECUTE FUNCTION mcp.plan_step_check();

-- The kinds a text names twice or more (for the shape of a plan's examples, mcp.plan.example_repeats):
-- thesaurus labels whose stems stand on consecutive words, longest first, never overlapping, each
-- term once, as mcp.analyze finds them exactly (no typos, compounds or master data: the examples
-- are the admin's own text).
CREATE FUNCTION mcp.repeated_kinds(txt text) RETURNS text[]
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_stem text[];
    v_used boolean[];
    v_seen text[] := '{}';
    v_kinds text[] := '{}';
    c record;
BEGIN
    SELECT pg_catalog.array_agg(t.stem ORDER BY t.pos) INTO v_stem FROM mcp.tokenize(COALESCE(txt, '')) t WHERE t.stem IS NOT NULL;
    IF v_stem IS NULL THEN
        RETURN '{}';
    END IF;
    v_used := pg_catalog.array_fill(false, ARRAY[pg_catalog.cardinality(v_stem)]);
    FOR c IN SELECT l.term_id, t.kind, w.i AS first, w.i + pg_catalog.cardinality(l.stems) - 1 AS last
               FROM pg_catalog.unnest(v_stem) WITH ORDINALITY w(stem, i)
               JOIN mcp.thesaurus_label l ON l.first_stem = w.stem
               JOIN mcp.thesaurus_term t ON t.id = l.term_id
              WHERE l.stems = v_stem[w.i : w.i + pg_catalog.cardinality(l.stems) - 1]
              ORDER BY pg_catalog.cardinality(l.stems) DESC, w.i, l.term_id LOOP
        CONTINUE WHEN true = ANY (v_used[c.first : c.last]) OR c.term_id = ANY (v_seen);
        FOR k IN c.first .. c.last LOOP v_used[k] := true; END LOOP;
        v_seen := v_seen || c.term_id;
        v_kinds := v_kinds || c.kind;
    END LOOP;
    RETURN ARRAY(SELECT k FROM pg_catalog.unnest(v_kinds) k GROUP BY k HAVING pg_catalog.count(*) >= 2 ORDER BY k);
END
$$;
COMMENT ON FUNCTION mcp.repeated_kinds(text) IS
  'The entity kinds a text names twice or more (distinct thesaurus terms found by their labels'' stems on consecutive words, longest first, not overlapping); for mcp.plan.example_repeats.';

-- mcp.plan.example_repeats of a plan's examples
CREATE FUNCTION mcp.example_repeats(examples text[]) RETURNS jsonb
LANGUAGE sql STABLE AS $$
    WITH e AS (SELECT mcp.repeated_kinds(x) AS rep FROM pg_catalog.unnest(examples) x WHERE pg_catalog.btrim(x) <> '')
    SELECT CASE WHEN (SELECT pg_catalog.count(*) FROM e) = 0 THEN '{}'::jsonb
                ELSE pg_catalog.jsonb_build_object(
                       'share', (SELECT pg_catalog.round(pg_catalog.avg((pg_catalog.cardinality(e.rep) > 0)::int), 3) FROM e),
                       'kinds', COALESCE((SELECT pg_catalog.jsonb_object_agg(k.kind, pg_catalog.round(k.n::numeric / (SELECT pg_catalog.count(*) FROM e), 3))
                                            FROM (SELECT x.kind, pg_catalog.count(*) AS n FROM e, pg_catalog.unnest(e.rep) x(kind) GROUP BY 1) k), '{}'))
           END
$$;
COMMENT ON FUNCTION mcp.example_repeats(text[]) IS
  'The shape of example questions: {share: the share naming two entities of one kind (mcp.repeated_kinds), kinds: {kind: share naming two of that kind}}; {} without examples.';

CREATE FUNCTION mcp.plan_check() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    s mcp.plan_step;
    bad text;
BEGIN
    SELECT pg_catalog.string_agg(k, ', ' ORDER BY k) INTO bad
      FROM pg_catalog.unnest(NEW.required_kinds || NEW.optional_kinds) k WHERE k !~ '^[a-z][a-z0-9_]{0,63}$';
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'plan %: invalid entity kind(s) %', NEW.name, bad USING ERRCODE = 'check_violation';
    END IF;
    NEW.keywords := ARRAY(SELECT DISTINCT k.stem
                            FROM mcp.tokenize(NEW.description || ' ' || pg_catalog.array_to_string(NEW.examples, ' ')) k
                           WHERE k.stem IS NOT NULL ORDER BY 1);
    NEW.example_repeats := mcp.example_repeats(NEW.examples);
    IF TG_OP = 'UPDATE' AND pg_catalog.current_setting('check_function_bodies')::boolean THEN
        FOR s IN SELECT * FROM mcp.plan_step WHERE plan = OLD.name LOOP
            s.plan := NEW.name;
            PERFORM mcp.check_plan_step(s, NEW);
        END LOOP;
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION mcp.plan_check() IS 'Trigger: checks a plan''s kinds, sets its keywords and example_repeats and, on update, re-checks its steps against the changed plan (23514).';

CREATE TRIGGER plan_check BEFORE INSERT OR UPDATE ON mcp.plan
    FOR EACH ROW EXECUTE FUNCTION mcp.plan_check();

-- The examples' shape depends on the thesaurus: recomputed when its terms change (once per
-- statement; plans are few).
CREATE FUNCTION mcp.plan_example_repeats_refresh() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE mcp.plan p SET example_repeats = r.x
      FROM (SELECT q.name, mcp.example_repeats(q.examples) AS x FROM mcp.plan q) r
     WHERE r.name = p.name AND p.example_repeats IS DISTINCT FROM r.x;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION mcp.plan_example_repeats_refresh() IS 'Trigger: recomputes mcp.plan.example_repeats after the thesaurus terms changed.';
CREATE TRIGGER plan_example_repeats_refresh AFTER INSERT OR UPDATE OR DELETE ON mcp.thesaurus_term
    FOR EACH STATEMENT EXECUTE FUNCTION mcp.plan_example_repeats_refresh();

------------------------------------------------------------------------------------------------
-- Prompt analysis
------------------------------------------------------------------------------------------------
-- Typos inside multi-word labels, for mcp.analyze (a function of its own: its plan is cached
-- apart from analyze's big matching query, which would otherwise be planned with it every call).
CREATE FUNCTION mcp.multi_word_typos(q_stems text[], q_folds text[])
RETURNS TABLE (term_id text, first integer, last integer, score numeric, how integer)
-- (ROWS 2: the planner's default of 1000 rows made analyze hash-join all terms)
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE ROWS 2 AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH multi AS (
        -- multi-word labels that may hold a typo: found by their first stem, or by their
        -- second stem for a typo in the first word (B-tree each; = ANY keeps the cached plan an
        -- index scan whatever the number of words), at every place of the question they fit
        SELECT l.term_id, l.words, l.stems, p.i AS first
          FROM mcp.thesaurus_label l
         CROSS JOIN LATERAL (SELECT s.i FROM pg_catalog.generate_subscripts(q_stems, 1) s(i)
                              WHERE q_stems[s.i] = l.first_stem) p
         WHERE l.first_stem = ANY (q_stems) AND pg_catalog.cardinality(l.stems) >= 2 AND NOT l.caps
        UNION
        SELECT l.term_id, l.words, l.stems, p.i - 1
          FROM mcp.thesaurus_label l
         CROSS JOIN LATERAL (SELECT s.i FROM pg_catalog.generate_subscripts(q_stems, 1) s(i)
                              WHERE q_stems[s.i] = l.stems[2] AND s.i > 1) p
         WHERE l.stems[2] = ANY (q_stems) AND pg_catalog.cardinality(l.stems) >= 2 AND NOT l.caps
    ), fuzzy_multi AS (
        -- a typo in one word of a multi-word label ("Schleswig-Holstien", "Metall- und
        -- Elektorindustrie"), every other word exact: the one differing word has >= 5
        -- letters and is within one edit of the label's (deletion neighbourhoods meet);
        -- score 0.6 + 0.3 x trigram similarity of the two words
        SELECT m.term_id, m.first, m.first + pg_catalog.cardinality(m.stems) - 1 AS last,
               pg_catalog.round((0.6 + 0.3 * mcp.trgm_similarity(d.lw, d.qw))::numeric, 3) AS score, 4 AS how
          FROM multi m
         CROSS JOIN LATERAL (
                SELECT pg_catalog.array_agg(k) AS ks FROM pg_catalog.generate_series(1, pg_catalog.cardinality(m.stems)) k
                 WHERE m.stems[k] IS DISTINCT FROM q_stems[m.first + k - 1]) x
         CROSS JOIN LATERAL (SELECT m.words[x.ks[1]] AS lw, q_folds[m.first + x.ks[1] - 1] AS qw) d
         WHERE m.first >= 1 AND m.first + pg_catalog.cardinality(m.stems) - 1 <= pg_catalog.cardinality(q_stems)
           AND pg_catalog.cardinality(x.ks) = 1
           AND pg_catalog.length(d.lw) >= 5 AND pg_catalog.length(d.qw) >= 5
           AND EXISTS (SELECT 1
                         FROM (SELECT d.lw UNION SELECT pg_catalog.left(d.lw, k - 1) || pg_catalog.substr(d.lw, k + 1)
                                 FROM pg_catalog.generate_series(1, pg_catalog.length(d.lw)) k) a(dl)
                         JOIN (SELECT d.qw UNION SELECT pg_catalog.left(d.qw, k - 1) || pg_catalog.substr(d.qw, k + 1)
                                 FROM pg_catalog.generate_series(1, pg_catalog.length(d.qw)) k) b(dq) ON a.dl = b.dq)
    )
    SELECT * FROM fuzzy_multi;
END
$$;
COMMENT ON FUNCTION mcp.multi_word_typos(text[], text[]) IS
  'For mcp.analyze: multi-word thesaurus labels found in the question''s words (q_stems and q_folds: stems and folded forms without stop words, in order) with one typo: every word of the label matches but one, which has >= 5 letters and is within one edit of the label''s word; labels found by their first stem or, for a typo in the first word, by their second stem. Rows: term, first and last word (1-based), score 0.6 + 0.3 x trigram similarity of the two words, how = 4.';

-- Plan ranking for mcp.analyze (a function of its own: the eval calibrates its weights, and its
-- plan is cached apart from analyze's matching query).
CREATE FUNCTION mcp.rank_plans(interface text, words text[], kinds text[],
                               similarity jsonb DEFAULT NULL, weights jsonb DEFAULT NULL,
                               entity_words text[] DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
#variable_conflict use_column
DECLARE
    w constant jsonb := '{"optional": 0.8, "part": 0.5, "unknown": 0.5, "missing": 0.1, "embedding": 0.7, "min_part": 5,
                          "repeat": 0.8, "floor": 1, "shape": 0.4,
                          "off_domain": 0.5, "entity_word": 0.5}'::jsonb
                        || COALESCE(weights, '{}');
    w_opt constant numeric := (w ->> 'optional')::numeric;
    w_part constant numeric := (w ->> 'part')::numeric;
    w_unknown constant numeric := (w ->> 'unknown')::numeric;
    w_missing constant numeric := (w ->> 'missing')::numeric;
    w_emb constant numeric := (w ->> 'embedding')::numeric;
    w_repeat constant numeric := (w ->> 'repeat')::numeric;
    w_floor constant numeric := (w ->> 'floor')::numeric;
    min_part constant integer := (w ->> 'min_part')::integer;
    w_shape constant numeric := (w ->> 'shape')::numeric;
    w_off constant numeric := (w ->> 'off_domain')::numeric;
    w_ew constant numeric := (w ->> 'entity_word')::numeric;
    -- the stems of the entities' own words (entity_words: each entity's stems, space-separated,
    -- in the order of kinds)
    v_ewords constant text[] := ARRAY(SELECT DISTINCT x FROM pg_catalog.unnest(COALESCE(entity_words, '{}')) e,
                                           pg_catalog.unnest(pg_catalog.string_to_array(e, ' ')) x
                                       WHERE x IS NOT NULL AND x <> '');
    -- the kinds the question names twice or more ("Bayern oder Sachsen")
    v_rep constant text[] := ARRAY(SELECT k FROM pg_catalog.unnest(COALESCE(kinds, '{}')) k WHERE k IS NOT NULL
                                    GROUP BY k HAVING pg_catalog.count(*) >= 2);
    v_words text[] := ARRAY(SELECT DISTINCT x FROM pg_catalog.unnest(COALESCE(words, '{}')) x WHERE x IS NOT NULL);
    v_kinds text[] := COALESCE(kinds, '{}');
    v_floor numeric := 0;
    v_off boolean := false;
    v_out jsonb;
BEGIN
    PERFORM mcp.arg_not_null(interface, 'interface', 'mcp.rank_plans');
    -- the embedding signal's floor: w_floor x the lowest similarity of the question to any plan
    -- (with two plans or more), so that what counts is how much closer the question is to a plan
    -- than to the others. A model's cosines have a scale of their own (multilingual-e5's lie
    -- between ~0.8 for unrelated and ~0.95 for matching German questions, MiniLM's between ~0.2
    -- and ~0.7): the floor puts both on one scale without a setting per model.
    IF similarity IS NOT NULL AND w_floor > 0 THEN
        SELECT CASE WHEN pg_catalog.count(*) >= 2 THEN w_floor * pg_catalog.min((v.value ->> 'similarity')::numeric) ELSE 0 END
          INTO v_floor FROM pg_catalog.jsonb_each(similarity) v;
        v_floor := LEAST(GREATEST(COALESCE(v_floor, 0), 0), 0.99);
    END IF;
    -- off domain: the question's best similarity to any plan is below the interface's level (the
    -- plans' examples' mean similarity to the other plans, mcp.plan_similarity_level, passed as
    -- each plan's "level"): it is no closer to the plans than their examples are to plans they do
    -- not belong to, so the signal tells nothing about it, and a plan gets it only when its words
    -- and entities alone score at least off_domain (the threshold without a model); the others
    -- keep (1 - embedding) x their score, below the threshold with a model
    IF similarity IS NOT NULL THEN
        SELECT COALESCE(pg_catalog.max((v.value ->> 'similarity')::numeric) < pg_catalog.max((v.value ->> 'level')::numeric), false)
          INTO v_off FROM pg_catalog.jsonb_each(similarity) v;
    END IF;
    WITH p0 AS (
        SELECT pl.name, pl.priority, pl.required_kinds AS req, pl.optional_kinds AS opt, pl.keywords AS kw,
               pl.example_repeats AS ex
          FROM mcp.plan pl
         WHERE pl.interface = $1 AND pl.enabled
    ), best AS (
        -- per kind the question repeats: the largest share of examples repeating it in any plan
        SELECT k, pg_catalog.max(COALESCE((p0.ex -> 'kinds' ->> k)::numeric, 0)) AS b
          FROM pg_catalog.unnest(v_rep) k CROSS JOIN p0 GROUP BY k
    ), p AS (
        -- shape: how far the question's shape (a kind named twice, or not) is from the shape of
        -- the plan's examples. Only a plan whose examples mostly repeat a kind has a shape (a
        -- comparison plan; strength 2 x share - 1 from a share of one half on): a question that
        -- repeats no kind is far from it; a question that repeats a kind is far from the plans
        -- that do not repeat it when such a plan exists. 0 = same shape, 1 = opposite.
        SELECT p0.*,
               CASE WHEN pg_catalog.cardinality(v_rep) = 0
                    THEN GREATEST(0, 2 * COALESCE((p0.ex ->> 'share')::numeric, 0) - 1)
                    ELSE COALESCE((SELECT pg_catalog.max(GREATEST(0, 2 * best.b - 1)
                                                         * (1 - COALESCE((p0.ex -> 'kinds' ->> best.k)::numeric, 0) / best.b))
                                     FROM best WHERE best.b > 0), 0) END AS shape
          FROM p0
    ), n AS (
        SELECT pg_catalog.count(*)::numeric AS n FROM p
    ), m AS (
        -- each word of the question outside the entities (and each word of an entity, for ewt)
        -- against each plan's keywords: 1 for the same stem, w_part for a compound part (one stem
        -- of >= min_part letters begins or ends the other: Urlaubsanspruch ~ Urlaub,
        -- Monitorbestellung ~ bestellen)
        SELECT p.name, q.word, pg_catalog.max(CASE WHEN k = q.word THEN 1.0 ELSE w_part END) AS hit,
               (pg_catalog.array_agg(k ORDER BY k = q.word DESC, pg_catalog.length(k) DESC, k))[1] AS kw
          FROM p CROSS JOIN (SELECT DISTINCT x FROM pg_catalog.unnest(v_words || v_ewords) x) q(word)
          JOIN LATERAL pg_catalog.unnest(p.kw) k ON k = q.word
               OR (LEAST(pg_catalog.length(k), pg_catalog.length(q.word)) >= min_part
                   AND (pg_catalog.starts_with(k, q.word) OR pg_catalog.starts_with(q.word, k)
                        OR pg_catalog.right(k, pg_catalog.length(q.word)) = q.word
                        OR pg_catalog.right(q.word, pg_catalog.length(k)) = k))
         GROUP BY 1, 2
    ), wt AS (
        -- a word's weight: how well it tells the interface's plans apart (1 when one plan knows it,
        -- ln 2 / ln (n + 1) when all do); a word no plan knows weighs w_unknown, so that a
        -- question the plans do not explain scores low
        SELECT q.word, CASE WHEN d.df IS NULL THEN w_unknown
                            ELSE pg_catalog.ln(1 + n.n / d.df) / pg_catalog.ln(1 + n.n) END AS wt
          FROM pg_catalog.unnest(v_words) q(word) CROSS JOIN n
          LEFT JOIN (SELECT m.word, pg_catalog.count(*)::numeric AS df FROM m GROUP BY 1) d ON d.word = q.word
    ), kt AS (
        -- an entity weighs 1, or w_unknown when no plan uses its kind (weighing kinds by how many
        -- plans use them, as words are, did worse on the development sets); rep: how many
        -- entities of its kind came before it in the question
        SELECT e.i, e.kind, pg_catalog.count(*) OVER (PARTITION BY e.kind ORDER BY e.i) - 1 AS rep,
               CASE WHEN EXISTS (SELECT 1 FROM p WHERE e.kind = ANY (p.req || p.opt)) THEN 1.0
                    ELSE w_unknown END AS wt
               , e.ew
          FROM ROWS FROM (pg_catalog.unnest(v_kinds), pg_catalog.unnest(entity_words)) WITH ORDINALITY e(kind, ew, i)
         WHERE e.kind IS NOT NULL
    ), ewt AS (
        -- an entity's own words as words of the plans: the intent a plan's examples and
        -- description give the entity's word ("Urlaubssemester", a thema of the examination
        -- regulations, is also what the plan for leave semesters is about), by the word's weight
        -- (ln(1 + n/df) / ln(1 + n), df = the plans knowing it)
        SELECT m.name, m.word, m.hit,
               pg_catalog.ln(1 + n.n / pg_catalog.count(*) OVER (PARTITION BY m.word)) / pg_catalog.ln(1 + n.n) AS idf
          FROM m CROSS JOIN n WHERE m.word = ANY (v_ewords)
    ), tot AS (
        SELECT COALESCE((SELECT pg_catalog.sum(wt.wt) FROM wt), 0) AS words,
               COALESCE((SELECT pg_catalog.sum(kt.wt) FROM kt), 0) AS ents
    ), s AS (
        SELECT p.name, p.priority, p.shape,
               COALESCE((SELECT pg_catalog.sum(wt.wt * m.hit) FROM wt JOIN m ON m.word = wt.word AND m.name = p.name), 0) AS word_hit,
               -- a required kind's slot is filled by its first entity; a second entity of that
               -- kind ("Bayern oder Sachsen") fills no further slot and counts w_repeat; for a plan
               -- that does not use the entity's kind, the entity counts by its words instead:
               -- w_ew (entity_word) x their best keyword hit x weight (intent, not coverage)
               COALESCE((SELECT pg_catalog.sum(kt.wt * CASE WHEN kt.kind = ANY (p.req) THEN CASE WHEN kt.rep = 0 THEN 1 ELSE w_repeat END
                                                          WHEN kt.kind = ANY (p.opt) THEN w_opt
                                                          ELSE w_ew * COALESCE((SELECT pg_catalog.max(ewt.hit * ewt.idf) FROM ewt
                                                                                 WHERE ewt.name = p.name AND ewt.word = ANY (pg_catalog.string_to_array(kt.ew, ' '))), 0) END)
                           FROM kt), 0) AS ent_hit,
               (SELECT pg_catalog.count(*) FROM pg_catalog.unnest(p.req) k WHERE k = ANY (v_kinds)) AS req_found,
               pg_catalog.cardinality(p.req) AS req_n,
               ARRAY(SELECT k FROM pg_catalog.unnest(p.req) k WHERE NOT k = ANY (v_kinds)) AS miss,
               COALESCE((SELECT pg_catalog.jsonb_agg(CASE WHEN m.kw = m.word THEN m.word ELSE m.word || '~' || m.kw END ORDER BY m.word)
                           FROM m WHERE m.name = p.name AND m.word = ANY (v_words)), '[]') AS matched,
               -- the entities' words that counted for a plan not using their kind
               ARRAY(SELECT DISTINCT ewt.word FROM ewt JOIN kt ON ewt.word = ANY (pg_catalog.string_to_array(kt.ew, ' '))
                      WHERE ewt.name = p.name AND NOT kt.kind = ANY (p.req || p.opt) AND w_ew > 0
                      ORDER BY 1) AS ent_words,
               COALESCE((similarity -> p.name ->> 'similarity')::numeric, 0) AS embedding,
               similarity -> p.name -> 'example' AS example
          FROM p
    ), f AS (
        -- explained: the share of the question (its entities, each 1, and its other words, by
        -- weight) that the plan explains: an entity of a required kind 1, of an optional kind
        -- w_opt, a word of its description or examples 1 (a compound part w_part); then lowered
        -- by w_missing x the share of its required kinds not found (the plan asks for them) and by
        -- w_shape x the distance of the question's shape from its examples'

        SELECT s.*, r.explained, r.base, x.emb,
               CASE WHEN similarity IS NULL THEN r.base ELSE (1 - w_emb) * r.base + w_emb * x.emb END AS raw
          FROM s CROSS JOIN tot
         CROSS JOIN LATERAL (SELECT CASE WHEN tot.words + tot.ents = 0 THEN 0
                                         ELSE (s.word_hit + s.ent_hit) / (tot.words + tot.ents) END AS explained) e
         CROSS JOIN LATERAL (SELECT e.explained,
                                    e.explained * (1 - w_shape * s.shape) * (1 - w_missing * CASE WHEN s.req_n = 0 THEN 0
                                                                        ELSE (s.req_n - s.req_found)::numeric / s.req_n END) AS base) r
         CROSS JOIN LATERAL (SELECT CASE WHEN v_off AND r.base < w_off THEN 0
                                         ELSE GREATEST(s.embedding - v_floor, 0) / (1 - v_floor) END AS emb) x
    )
    SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
               'name', f.name, 'score', pg_catalog.round(f.raw, 3),
               'why', pg_catalog.jsonb_build_object(
                          'explained', pg_catalog.round(f.explained, 3),
                          'entities', CASE WHEN tot.ents = 0 THEN NULL ELSE pg_catalog.round(f.ent_hit / tot.ents, 3) END,
                          'keyword', CASE WHEN tot.words = 0 THEN 0 ELSE pg_catalog.round(f.word_hit / tot.words, 3) END,
                          'coverage', CASE WHEN f.req_n = 0 THEN 1 ELSE pg_catalog.round(f.req_found::numeric / f.req_n, 3) END,
                          'words', f.matched,
                          'embedding', CASE WHEN similarity IS NOT NULL THEN f.embedding END,
                          'missing', pg_catalog.to_jsonb(f.miss))
                      || CASE WHEN similarity IS NOT NULL
                              THEN pg_catalog.jsonb_build_object('example', f.example, 'embedding_above_floor', pg_catalog.round(f.emb, 3))
                              ELSE '{}' END
                      || CASE WHEN v_off THEN pg_catalog.jsonb_build_object('off_domain', true) ELSE '{}' END
                      || CASE WHEN f.shape > 0 THEN pg_catalog.jsonb_build_object('shape', pg_catalog.round(f.shape, 3)) ELSE '{}' END
                      || CASE WHEN pg_catalog.cardinality(f.ent_words) > 0
                              THEN pg_catalog.jsonb_build_object('entity_words', pg_catalog.to_jsonb(f.ent_words)) ELSE '{}' END)
               -- ties: the plan that found more of its required kinds, then the admin's priority
               ORDER BY pg_catalog.round(f.raw, 6) DESC, f.req_found DESC, f.priority DESC, f.explained DESC, f.name)
      INTO v_out
      FROM f CROSS JOIN tot WHERE f.raw > 0;
    RETURN COALESCE(v_out, '[]');
END
$$;
COMMENT ON FUNCTION mcp.rank_plans(text, text[], text[], jsonb, jsonb, text[]) IS
  'Plan ranking of mcp.analyze: the enabled plans of interface ranked for a question given as words (the stems of its words outside the entities found), kinds (the kind of each entity found) and entity_words (each entity''s own stems, space-separated, in the order of kinds; NULL = none), with similarity ({plan: {similarity, example}} of the embedding signal, or NULL). Score: the share of the question the plan explains (each entity 1 when its kind is a required kind of the plan (repeat for a second entity of that kind), optional when an optional one, else entity_word x the best keyword hit of its own words x their weight (why.entity_words): an entity of a kind the plan does not use still tells its intent by its words; each word by its weight: 1 when it is a stem of the plan''s description and examples, part when one of the two stems is a compound part of the other (>= min_part letters at its start or end: Urlaubsanspruch ~ Urlaub); a word''s weight is ln(1 + n/df)/ln(1 + n) over the n plans, df of them knowing it, or unknown when no plan knows it), times 1 - missing x the share of the plan''s required kinds not found; with the embedding signal (1 - embedding) x that + embedding x the similarity above the floor, (similarity - f) / (1 - f) with f = floor x the lowest similarity of any plan (with two plans or more, else 0); off domain (the best similarity below the level that similarity passes per plan, mcp.plan_similarity_level), a plan whose score without the signal is below off_domain gets none of it (why.off_domain). Ties: more required kinds found, then priority, then name. words or kinds NULL = none, similarity NULL = no embedding signal, weights overrides the defaults (NULL = none; for calibration, tests/quality/plans_eval.sh); interface NULL is 22004. Defaults: optional 0.8, repeat 0.8, part 0.5, unknown 0.5, missing 0.1, embedding 0.7, floor 1, min_part 5, shape 0.4, off_domain 0.5, entity_word 0.5. Returns [{name, score, why: {explained, entities, keyword, coverage, words, embedding, missing[, example, embedding_above_floor, off_domain, shape, entity_words]}}], plans scoring 0 left out.';

CREATE FUNCTION mcp.analyze(question text, interface text DEFAULT 'chatbot') RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
    v_iface constant text := $2;
    v_stem text[];     -- stems of the question's words without stop words
    v_start integer[]; -- their start offsets
    v_end integer[];   -- their end offsets
    v_fold text[];     -- their folded forms
    v_upper boolean[]; -- written in upper case
    v_n integer;
    v_used boolean[];
    v_cand record;
    v_src mcp.entity_source;
    v_master jsonb := '[]';
    v_m jsonb;
    v_ents jsonb := '[]';
    v_seen text[] := '{}';
    v_kinds text[] := '{}';
    v_ewords text[] := '{}'; -- each entity's stems, space-separated, in the order of v_kinds
    v_plans jsonb;
    v_missing jsonb := '[]';
    v_model text;      -- the interface's embedding model
    v_sim jsonb;       -- {plan: {similarity, example}} when the embedding signal is used
    v_sim_error text;  -- why it is not, when the model failed
    v_level double precision; -- the embedding signal's off-domain level (mcp.plan_similarity_level)
    v_skipped jsonb := '[]'; -- entity sources the calling role may not read
BEGIN
    PERFORM mcp.arg_not_null(question, 'question', 'mcp.analyze'), mcp.arg_not_null(v_iface, 'interface', 'mcp.analyze');
    IF pg_catalog.length(question) > 4000 THEN
        RAISE EXCEPTION 'mcp.analyze: question longer than 4000 characters (%)', pg_catalog.length(question)
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT pg_catalog.array_agg(t.stem ORDER BY t.pos), pg_catalog.array_agg(t.start_at ORDER BY t.pos),
           pg_catalog.array_agg(t.end_at ORDER BY t.pos), pg_catalog.array_agg(t.folded ORDER BY t.pos),
           pg_catalog.array_agg(t.word = pg_catalog.upper(t.word) AND t.word ~ '[[:alpha:]\u00C0-\u024F]' ORDER BY t.pos)
      INTO v_stem, v_start, v_end, v_fold, v_upper
      FROM mcp.tokenize(question) t WHERE t.stem IS NOT NULL;
    v_n := COALESCE(pg_catalog.cardinality(v_stem), 0);
    v_used := pg_catalog.array_fill(false, ARRAY[GREATEST(v_n, 1)]);

    IF v_n > 0 THEN
        -- master data, read live as the calling role (read-only: this function is STABLE)
        FOR v_src IN SELECT * FROM mcp.entity_source WHERE enabled ORDER BY kind LOOP
          -- a source the calling role may not read is skipped (and named in skipped_sources),
          -- so one unreadable source does not fail every analysis and plan-driven chat
          BEGIN
            EXECUTE pg_catalog.format($q$
                SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                         'term_id', v.v, 'kind', %L, 'label', v.v, 'first', w.i,
                         'last', w.i + pg_catalog.cardinality(s.stems) - 1))
                  FROM (%s) AS v(v)
                 CROSS JOIN LATERAL (SELECT pg_catalog.array_agg(k.stem ORDER BY k.pos) FILTER (WHERE k.stem IS NOT NULL) AS stems
                                       FROM mcp.tokenize(v.v) k) s
                  JOIN pg_catalog.unnest($1) WITH ORDINALITY w(stem, i) ON w.stem = s.stems[1]
                 WHERE s.stems = $1[w.i : w.i + pg_catalog.cardinality(s.stems) - 1]$q$,
                v_src.kind, mcp.entity_source_sql(v_src)) INTO v_m USING v_stem;
            v_master := v_master || COALESCE(v_m, '[]');
          EXCEPTION WHEN insufficient_privilege THEN
            v_skipped := v_skipped || pg_catalog.jsonb_build_object('kind', v_src.kind,
                'reason', 'the calling role may not read this entity source');
          END;
        END LOOP;

        FOR v_cand IN
            WITH w AS (
                SELECT * FROM unnest(v_stem, v_fold, v_upper) WITH ORDINALITY AS w(stem, f, caps, i)
            ), exact AS (
                -- every stem of a label, in order, on consecutive words (stop words skipped)
                SELECT l.term_id, w.i AS first, w.i + pg_catalog.cardinality(l.stems) - 1 AS last, 1.0 AS score, 1 AS how
                  FROM w JOIN mcp.thesaurus_label l ON l.first_stem = w.stem
                 WHERE l.stems = v_stem[w.i : w.i + pg_catalog.cardinality(l.stems) - 1]
                   AND (NOT l.caps OR w.caps)
            ), fuzzy_multi AS (
                -- typos inside multi-word labels (mcp.multi_word_typos)
                SELECT * FROM mcp.multi_word_typos(v_stem, v_fold)
            ), compound AS (
                -- a word that begins with a one-word label of >= 5 letters (Metallindustrie -> Metall)
                SELECT c.term_id, w.i AS first, w.i AS last, 0.8 AS score, 2 AS how
                  FROM w CROSS JOIN LATERAL (
                        SELECT l.term_id FROM mcp.thesaurus_label l
                         WHERE l.first_stem = ANY (ARRAY(SELECT pg_catalog.left(w.f, k)
                                                           FROM pg_catalog.generate_series(5, pg_catalog.length(w.f) - 3) k))
                           AND pg_catalog.cardinality(l.stems) = 1
                         ORDER BY pg_catalog.length(l.first_stem) DESC, l.preferred DESC, l.term_id LIMIT 1) c
                 WHERE pg_catalog.length(w.f) >= 8
            ), fuzzy AS (
                -- typos: a word of >= 5 letters that matched nothing exactly, within one edit of a
                -- one-word label with the same first letter, or of any first letter from 8 letters
                -- on (deletion neighbourhood, B-tree); score 0.6 + 0.3 x trigram similarity
                SELECT v.term_id, w.i AS first, w.i AS last,
                       pg_catalog.round((0.6 + 0.3 * v.sim)::numeric, 3) AS score, 3 AS how
                  FROM w CROSS JOIN LATERAL (
                        SELECT t.term_id, mcp.trgm_similarity(t.folded, w.f) AS sim FROM mcp.thesaurus_variant t
                         WHERE t.variant = ANY (ARRAY(SELECT w.f
                                                      UNION ALL
                                                      SELECT pg_catalog.left(w.f, k - 1) || pg_catalog.substr(w.f, k + 1)
                                                        FROM pg_catalog.generate_series(1, pg_catalog.length(w.f)) k))
                           AND (pg_catalog.left(t.folded, 1) = pg_catalog.left(w.f, 1) OR pg_catalog.length(w.f) >= 8)
                         ORDER BY 2 DESC, 1 LIMIT 1) v
                 WHERE pg_catalog.length(w.f) BETWEEN 5 AND 25
                   AND NOT EXISTS (SELECT 1 FROM exact x WHERE w.i BETWEEN x.first AND x.last)
            ), cand AS (
                SELECT c.term_id, t.kind, t.label, c.first, c.last, c.score, c.how
                  FROM (SELECT * FROM exact UNION ALL SELECT * FROM fuzzy_multi UNION ALL SELECT * FROM compound
                        UNION ALL SELECT * FROM fuzzy) c
                  JOIN mcp.thesaurus_term t ON t.id = c.term_id
                UNION ALL
                SELECT m.term_id, m.kind, m.label, m.first, m.last, 1.0, 0
                  FROM pg_catalog.jsonb_to_recordset(v_master) AS m(term_id text, kind text, label text, first integer, last integer)
            )
            -- longest match wins, then the best score; matches never overlap
            SELECT * FROM cand
             ORDER BY last - first DESC, score DESC, v_end[last] - v_start[first] DESC, first, how, term_id
        LOOP
            CONTINUE WHEN true = ANY (v_used[v_cand.first : v_cand.last]);
            CONTINUE WHEN v_cand.term_id = ANY (v_seen);
            FOR k IN v_cand.first .. v_cand.last LOOP v_used[k] := true; END LOOP;
            v_seen := v_seen || v_cand.term_id;
            v_kinds := v_kinds || v_cand.kind;
            v_ewords := v_ewords || pg_catalog.array_to_string(v_stem[v_cand.first : v_cand.last], ' ');
            v_ents := v_ents || pg_catalog.jsonb_build_object(
                'kind', v_cand.kind, 'term_id', v_cand.term_id, 'label', v_cand.label,
                'text', pg_catalog.substr(question, v_start[v_cand.first] + 1, v_end[v_cand.last] - v_start[v_cand.first]),
                'start', v_start[v_cand.first], 'end', v_end[v_cand.last], 'score', v_cand.score);
        END LOOP;
        SELECT pg_catalog.jsonb_agg(e ORDER BY (e ->> 'start')::integer) INTO v_ents FROM pg_catalog.jsonb_array_elements(v_ents) e;
        v_ents := COALESCE(v_ents, '[]');
    END IF;

    -- embedding signal: with the interface's model, the question's cosine similarity to each
    -- plan's closest example question (stored vectors, see mcp.plan_example_similarity). When
    -- the model fails (server down, files changed) the plans are ranked without it and why
    -- says so (embedding_error).
    SELECT i.embedding_model INTO v_model FROM mcp.interface i WHERE i.name = v_iface;
    IF v_model IS NOT NULL AND EXISTS (SELECT 1 FROM mcp.plan pl WHERE pl.interface = v_iface AND pl.enabled) THEN
        BEGIN
            SELECT COALESCE(pg_catalog.jsonb_object_agg(x.plan, pg_catalog.jsonb_build_object(
                       'similarity', pg_catalog.round(x.similarity::numeric, 3), 'example', x.example)), '{}')
              INTO v_sim
              FROM mcp.plan_example_similarity(v_iface, ((mcp.embed(ARRAY[question], v_model))[1])::text) x;
            -- the off-domain level (mcp.plan_similarity_level), the same for every plan
            v_level := mcp.plan_similarity_level(v_iface);
            IF v_level IS NOT NULL THEN
                SELECT COALESCE(pg_catalog.jsonb_object_agg(x.key, x.value || pg_catalog.jsonb_build_object(
                           'level', pg_catalog.round(v_level::numeric, 3))), '{}')
                  INTO v_sim FROM pg_catalog.jsonb_each(v_sim) x;
            END IF;
        EXCEPTION WHEN OTHERS THEN
            v_sim := NULL;
            v_sim_error := pg_catalog.left(SQLERRM, 300);
        END;
    END IF;

    -- plans: ranked by mcp.rank_plans on the kinds of the entities found (and their own words)
    -- and the question's other words (its intent); when the model failed, each plan's why says so
    v_plans := mcp.rank_plans(v_iface,
                   ARRAY(SELECT v_stem[i] FROM pg_catalog.generate_series(1, v_n) i WHERE NOT v_used[i]),
                   v_kinds, v_sim, entity_words => v_ewords);
    IF v_sim_error IS NOT NULL THEN
        SELECT COALESCE(pg_catalog.jsonb_agg(pg_catalog.jsonb_set(x.p, '{why,embedding_error}', pg_catalog.to_jsonb(v_sim_error)) ORDER BY x.i), '[]')
          INTO v_plans FROM pg_catalog.jsonb_array_elements(v_plans) WITH ORDINALITY x(p, i);
    END IF;
    IF pg_catalog.jsonb_array_length(v_plans) > 0 THEN
        v_missing := v_plans -> 0 -> 'why' -> 'missing';
    END IF;
    RETURN pg_catalog.jsonb_build_object('entities', v_ents, 'plans', v_plans, 'missing', v_missing)
        || CASE WHEN v_sim_error IS NULL THEN '{}' ELSE pg_catalog.jsonb_build_object('embedding_error', v_sim_error) END
        || CASE WHEN v_skipped = '[]' THEN '{}' ELSE pg_catalog.jsonb_build_object('skipped_sources', v_skipped) END;
END
$$;
COMMENT ON FUNCTION mcp.analyze(text, text) IS
  'Prompt analysis: {entities: [{kind, term_id, label, text, start, end, score}], plans: [{name, score, why}], missing: [kind]}. Entities come from the thesaurus (German stems of the folded words: inflection, case, umlauts spelled out, multi-word labels and abbreviations; compounds beginning with a label, score 0.8; typos within one edit of a one-word label with the same first letter (any first letter from 8 letters on), found in mcp.thesaurus_variant, score 0.6 + 0.3 x pg_trgm similarity; one typo in one word of >= 5 letters of a multi-word label whose other words match, the same score from the two words) and from mcp.entity_source (read live); longest match wins, matches do not overlap, each term once; offsets are characters, start 0-based, end exclusive. Plans of the interface are ranked by mcp.rank_plans: the share of the question a plan explains (its entities by the plan''s required kinds 1 (0.8 for a second entity of one kind), optional kinds 0.8, for a plan using neither 0.5 x the best match of the entity''s own words among the plan''s words; its other words by their stems in the plan''s description and examples, compound parts 0.5, each word weighted by how well it tells the plans apart, a word no plan knows 0.5), times 1 - 0.1 x the share of the plan''s required kinds not found (the plan''s ask step asks for them); with the interface''s embedding model 0.3 x that + 0.7 x the similarity above the question''s floor (the similarity: 0.3 x the question''s cosine to the plan''s closest example question + 0.7 x its cosine to the plan''s description, vectors stored in mcp.plan_example_embedding; the floor: the lowest similarity of any plan of the interface); a question whose best similarity is below the interface''s off-domain level (mcp.plan_similarity_level: the plans'' examples'' mean similarity to the other plans) is off domain: only plans whose words and entities alone score >= 0.5 keep the signal (why.off_domain); why shows the signals (explained, entities, keyword, coverage = share of required kinds found, words matched, embedding null without a model; with it also example, the closest example question, and embedding_above_floor; when the model fails, the ranking without it and embedding_error, also at the top level) and the missing required kinds; ties go to the plan that found more of its required kinds, then to priority; plans scoring 0 are left out; missing is the best plan''s. An entity source the calling role may not read is skipped and named in skipped_sources.';

------------------------------------------------------------------------------------------------
-- Privileges and pg_dump
------------------------------------------------------------------------------------------------
GRANT SELECT ON mcp.thesaurus_term, mcp.thesaurus_relation, mcp.thesaurus_label, mcp.thesaurus_variant, mcp.thesaurus_edge,
                mcp.plan, mcp.plan_step, mcp.entity_source TO PUBLIC;
REVOKE EXECUTE ON FUNCTION mcp.thesaurus_label_sync(), mcp.entity_source_check(), mcp.plan_step_check(), mcp.plan_check(),
                           mcp.prompt_variables_check() FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('mcp.thesaurus_term', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.thesaurus_relation', '');
-- (mcp.thesaurus_label and mcp.thesaurus_variant are not dumped: restoring mcp.thesaurus_term
-- rebuilds them through its trigger)
SELECT pg_catalog.pg_extension_config_dump('mcp.entity_source', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.plan', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.plan_step', '');
