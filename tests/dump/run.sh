#!/usr/bin/env bash
# pg_dump and restore of populated retrieval collections: a collection with its own
# HNSW settings and one with the defaults, documents ingested with the local model (one hidden
# by row-level security), a search tool, an interface with context_retrieve. The database is
# dumped (custom format) and restored into a new database by pg_restore, whose CREATE EXTENSION
# makes the schema and whose COPYs bring the rows of the tables registered with
# pg_extension_config_dump. Checked after the restore:
#  * every retrieval table and sequence is registered for pg_dump (else its rows are lost);
#  * the rows are there, and each collection's HNSW index exists with the collection's options
#    (the collection trigger builds it when the collection row is restored) and is used;
#  * mcp.search in all three modes, a filtered search, the search tool and context_retrieve
#    answer exactly as in the dumped database; RLS still hides the protected document;
#  * the identity sequences came along: a new ingest after the restore works and is found.
# Uses the regress cluster (PG_MCP_REGRESS_DIR / PG_MCP_REGRESS_PORT); needs the extension
# installed (scripts/test.sh runs this after pg_regress) and the local model (scripts/setup.sh).
set -euo pipefail
LOG_TAG=dump
. "$(dirname "$0")/../../scripts/lib.sh"

DIR="${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress/pgdata}"
PORT="${PG_MCP_REGRESS_PORT:-55433}"
DB=pg_mcp_dump
RESTORED=pg_mcp_dump_restored
MODEL_DIR=/usr/local/share/pg_mcp/models/all-MiniLM-L6-v2

fail() { log "FAIL: $*"; exit 1; }
sql() { psql_at "$PORT" "$1" -At -c "SET client_min_messages = warning" -c "$2"; }   # sql DB QUERY
expect() { # expect WHAT ACTUAL EXPECTED
  [ "$2" = "$3" ] || fail "$1: got [$2], expected [$3]"
}

start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
work="$(mktemp -d)"; chmod 755 "$work"
cleanup() {
  psql_at "$PORT" postgres -c "DROP DATABASE IF EXISTS $DB" -c "DROP DATABASE IF EXISTS $RESTORED" \
          -c "DROP ROLE IF EXISTS mcp_dump_hr" -c "DROP ROLE IF EXISTS mcp_dump_reader" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# every table and sequence of the retrieval schema is registered for pg_dump
expect "pg_extension_config_dump" "$(sql "$DB" "
  SELECT string_agg(r::text, ' ' ORDER BY r::text) FROM unnest(ARRAY['mcp.embedding_model', 'mcp.collection',
         'mcp.collection_collection_id_seq', 'mcp.document', 'mcp.document_document_id_seq', 'mcp.chunk',
         'mcp.chunk_chunk_id_seq']::regclass[]) r
   WHERE r <> ALL ((SELECT extconfig FROM pg_extension WHERE extname = 'pg_mcp')::regclass[])")" ""

psql_at "$PORT" "$DB" -v model_dir="$MODEL_DIR" >/dev/null <<'SQL'
SET client_min_messages = warning;
DROP ROLE IF EXISTS mcp_dump_hr;
DROP ROLE IF EXISTS mcp_dump_reader;
CREATE ROLE mcp_dump_hr NOLOGIN;
CREATE ROLE mcp_dump_reader NOLOGIN;
INSERT INTO mcp.embedding_model (name, kind, dimension, path, access_role) VALUES ('minilm', 'local', 384, :'model_dir', 'public');
INSERT INTO mcp.collection (name, embedding_model, purpose, text_config, chunk_tokens, chunk_overlap, min_score,
                            hnsw_m, hnsw_ef_construction, hnsw_ef_search)
VALUES ('tarif', 'minilm', 'rag', 'german', 64, 8, 0.3, 12, 48, 77);
INSERT INTO mcp.collection (name, embedding_model, text_config) VALUES ('other', 'minilm', 'simple');
SELECT mcp.ingest('tarif', d.uri, d.title, d.body, d.meta::jsonb) FROM (VALUES
  ('tv://metall-bayern/urlaub', 'MTV Metall Bayern: Urlaub', '{"tarifgebiet": "Bayern"}',
   'Beschäftigte der Metall- und Elektroindustrie in Bayern haben Anspruch auf 30 Arbeitstage Urlaub im Kalenderjahr. Das Urlaubsgeld beträgt 69 Prozent des Monatsentgelts.'),
  ('tv://metall-bayern/arbeitszeit', 'MTV Metall Bayern: Arbeitszeit', '{"tarifgebiet": "Bayern"}',
   'Die regelmäßige wöchentliche Arbeitszeit beträgt 35 Stunden. Mehrarbeit wird mit einem Zuschlag von 25 Prozent vergütet.'),
  ('tv://chemie-nrw/urlaub', 'MTV Chemie NRW: Urlaub', '{"tarifgebiet": "NRW"}',
   'In der chemischen Industrie in Nordrhein-Westfalen beträgt der Urlaub 30 Arbeitstage. Schichtarbeiter erhalten zusätzliche Freischichten.'),
  ('tv://chemie-nrw/kuendigung', 'MTV Chemie NRW: Kündigung', '{"tarifgebiet": "NRW"}',
   'Die Kündigungsfrist beträgt sechs Wochen zum Quartalsende. Nach zehn Jahren Betriebszugehörigkeit verlängert sie sich auf drei Monate.'),
  ('hr://gehalt', 'Gehälter', '{}',
   'Die Gehälter der Geschäftsführung und der Urlaub der Vorstände.')) d(uri, title, meta, body);
UPDATE mcp.document SET access_role = 'mcp_dump_hr' WHERE uri = 'hr://gehalt';
SELECT mcp.ingest('other', 'misc://1', 'Sonstiges', 'Die Kantine öffnet um sieben Uhr. Urlaub wird im Personalbüro beantragt.');
SELECT mcp.register_search_tool('tarif_search', 'tarif', 'hybrid');
INSERT INTO mcp.interface (name, embedding_model) VALUES ('rag', 'minilm');
INSERT INTO mcp.interface_tool VALUES ('rag', 'context_retrieve'), ('rag', 'tarif_search');
GRANT SELECT ON mcp.document, mcp.chunk TO mcp_dump_reader;
SQL
log "$DB: 2 collections, $(sql "$DB" "SELECT count(*) FROM mcp.chunk") chunks ingested with the local model"

# What the restored database must answer the same way: rows, indexes, searches, tools.
FACTS="$work/facts.sql"
cat >"$FACTS" <<'SQL'
\set ON_ERROR_STOP on
\pset tuples_only on
\pset format unaligned
SET client_min_messages = warning;
SELECT 'rows: ' || (SELECT count(*) FROM mcp.embedding_model) || ' models, ' || (SELECT count(*) FROM mcp.collection)
       || ' collections, ' || (SELECT count(*) FROM mcp.document) || ' documents, ' || (SELECT count(*) FROM mcp.chunk) || ' chunks';
SELECT 'collection ' || name || ': id ' || collection_id || ', ' || dimension || ' dims, m ' || hnsw_m
       || ', ef_construction ' || hnsw_ef_construction || ', ef_search ' || hnsw_ef_search || ', fingerprint ' || fingerprint
  FROM mcp.collection ORDER BY name;
SELECT 'index ' || c.relname || ': valid ' || i.indisvalid || ', options ' || coalesce(c.reloptions::text, '-') || ', ' || pg_get_indexdef(c.oid)
  FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
 WHERE c.relname LIKE 'chunk\_hnsw\_%' ORDER BY c.relname;
SELECT 'chunk ' || ch.document_id || '/' || ch.position || ' ' || d.uri || ' ' || md5(ch.text) || ' ' || md5(ch.embedding::text) || ' ' || md5(ch.tsv::text)
  FROM mcp.chunk ch JOIN mcp.document d USING (document_id) ORDER BY 1;
SELECT 'search ' || m || ': ' || coalesce((SELECT string_agg(uri || ' ' || round(score::numeric, 5), ', ')
                                           FROM mcp.search('tarif', 'Urlaub Arbeitstage Bayern', 4, m)), '-')
  FROM unnest(ARRAY['vector', 'text', 'hybrid']) m;
SELECT 'filtered: ' || string_agg(uri, ', ') FROM mcp.search('tarif', 'Urlaub', 3, 'vector', '{"tarifgebiet": "NRW"}');
SELECT 'other: ' || string_agg(uri, ', ') FROM mcp.search('other', 'Urlaub beantragen', 3, 'hybrid');
SELECT 'tool: ' || (mcp.call_tool('tarif_search', '{"query": "Kündigungsfrist Quartalsende", "k": 2}', 'rag') -> 'content' -> 0 ->> 'text');
SELECT 'context_retrieve: ' || (mcp.call_tool('context_retrieve', '{"query": "Wie viele Urlaubstage in Bayern?"}', 'rag') -> 'content' -> 0 ->> 'text');
SET ROLE mcp_dump_reader;
SELECT 'rls: ' || string_agg(uri, ', ' ORDER BY uri) FROM mcp.search('tarif', 'Gehälter Urlaub', 10, 'text');
RESET ROLE;
SQL
psql_at "$PORT" "$DB" -f "$FACTS" >"$work/dumped"
grep -q '^rls: ' "$work/dumped" && ! grep -q '^rls: .*hr://gehalt' "$work/dumped" \
  || fail "the RLS check sees the protected document (or nothing): $(grep '^rls' "$work/dumped")"
grep -q '^context_retrieve: .*tv://metall-bayern/urlaub' "$work/dumped" \
  || fail "context_retrieve found nothing before the dump: $(grep '^context_retrieve' "$work/dumped")"

"$PG_BIN/pg_dump" -h 127.0.0.1 -p "$PORT" -U postgres -Fc -f "$work/db.dump" "$DB"
psql_at "$PORT" postgres -c "DROP DATABASE IF EXISTS $RESTORED" -c "CREATE DATABASE $RESTORED" 2>&1 | grep -v NOTICE || true
"$PG_BIN/pg_restore" -h 127.0.0.1 -p "$PORT" -U postgres -d "$RESTORED" --exit-on-error "$work/db.dump" \
  || fail "pg_restore reported errors"
psql_at "$PORT" "$RESTORED" -f "$FACTS" >"$work/restored"
diff -u "$work/dumped" "$work/restored" || fail "the restored database answers differently (- dumped, + restored)"
log "restore: $(wc -l <"$work/restored") facts identical (rows, HNSW indexes with their options, searches, tools, RLS)"

# the collection's index exists with its own options and is what the search uses
id="$(sql "$RESTORED" "SELECT collection_id FROM mcp.collection WHERE name = 'tarif'")"
expect "restored index options" "$(sql "$RESTORED" "SELECT reloptions::text FROM pg_class WHERE relname = 'chunk_hnsw_$id'")" \
       "{m=12,ef_construction=48}"
plan="$(sql "$RESTORED" "SET enable_seqscan = off; SET enable_sort = off; EXPLAIN SELECT chunk_id FROM mcp.chunk WHERE collection_id = $id
          ORDER BY embedding::vector(384) <=> (SELECT embedding FROM mcp.chunk LIMIT 1)::vector(384) LIMIT 3")"
grep -q "chunk_hnsw_$id" <<<"$plan" || fail "the restored search does not use chunk_hnsw_$id: $plan"

# the sequences came along: a new document gets new ids and is found
out="$(sql "$RESTORED" "SELECT mcp.ingest('tarif', 'tv://bau/urlaub', 'BRTV Bau: Urlaub', 'Im Baugewerbe beträgt der Urlaub 30 Arbeitstage, das Urlaubsgeld zahlt die Urlaubskasse.', '{\"tarifgebiet\": \"Bund\"}') ->> 'status'")"
expect "ingest after the restore" "$out" "inserted"
expect "new ids after the restored ones" "$(sql "$RESTORED" "SELECT (SELECT max(document_id) FROM mcp.document WHERE uri = 'tv://bau/urlaub')
    > (SELECT max(document_id) FROM mcp.document WHERE uri <> 'tv://bau/urlaub')")" "t"
expect "found after the restore" "$(sql "$RESTORED" "SELECT uri FROM mcp.search('tarif', 'Baugewerbe Urlaubskasse', 1, 'vector')")" "tv://bau/urlaub"
# the shipped roles, their grants and the row-level security of the audit survive too
gov_facts="SELECT string_agg(x, ' ' ORDER BY x) FROM (
    SELECT tablename || '.' || policyname || ':' || array_to_string(roles, ',') AS x FROM pg_policies WHERE schemaname = 'mcp'
    UNION ALL SELECT r || ':' || p || ':' || has_table_privilege(r, p, 'SELECT')::text || has_table_privilege(r, p, 'INSERT')::text
      FROM unnest(ARRAY['mcp_admin', 'mcp_auditor', 'mcp_approver']) r,
           unnest(ARRAY['mcp.tool', 'mcp.llm_request', 'mcp.approval', 'mcp.budget']) p
    UNION ALL SELECT 'approve:' || has_function_privilege('mcp_approver', 'mcp.approve(uuid, text)', 'EXECUTE')::text
                     || has_function_privilege('public', 'mcp.approve(uuid, text)', 'EXECUTE')::text
    UNION ALL SELECT 'rls:' || relname || relrowsecurity::text FROM pg_class
     WHERE relnamespace = 'mcp'::regnamespace AND relname IN ('run', 'tool_call', 'message', 'approval')) f"
expect "shipped roles, grants and RLS after the restore" "$(sql "$RESTORED" "$gov_facts")" "$(sql "$DB" "$gov_facts")"
log "ok: the restored collections search as before, with their HNSW indexes; new ingests work; the shipped roles keep their grants and RLS"
