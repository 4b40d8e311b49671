#!/usr/bin/env bash
# Retrieval quality on the outside-written set (tests/quality/SPEC.md) and the development set,
# per mode (text, vector, hybrid) and per collection configuration ("variant").
#
#   bash tests/quality/retrieval_eval.sh [--model NAME] [--model-sql FILE] [--sets blind,dev]
#        [--variants 'name:SET-CLAUSE;...'] [--search 'name:SET-CLAUSE;...'] [--out FILE]
#
# blind: tests/quality/corpus/tarif_corpus.jsonl (96 agreements sharing the clause vocabulary)
#        with tests/quality/questions/tarif_retrieval.tsv (84 questions, expected document key);
#        both written blind, never edited here.
# dev:   the documents of demo/retrieval.sql with the 30 questions of benches/retrieval/quality.sql.
# buerger: Domain D, held out (tests/quality/SPEC.md): tests/quality/corpus/buerger_corpus.jsonl (48
#        town bylaws sharing each subject's vocabulary) with questions/buerger_retrieval.tsv (96
#        questions written blind); its thesaurus (buergerservice/thesaurus.json) is loaded too when
#        the set is run; ENTITY_KEYS {"stadt": "stadt", "thema": "thema"}.
# hochschule: Domain E, held out (tests/quality/SPEC.md): tests/quality/corpus/hochschule_corpus.jsonl
#        (40 sections of examination regulations, 8 programmes x 5 subjects sharing each subject's
#        vocabulary) with questions/hochschule_retrieval.tsv (80 questions written blind); its
#        thesaurus (hochschule/thesaurus.json) is loaded too when the set is run; ENTITY_KEYS
#        {"studiengang": "studiengang", "thema": "thema"}.
# stadtwerke: Domain F, held out (tests/quality/SPEC.md): tests/quality/corpus/stadtwerke_corpus.jsonl
#        (40 sections of the tariffs' supplementary terms, 8 tariffs x 5 subjects sharing each
#        subject's vocabulary) with questions/stadtwerke_retrieval.tsv (written blind); its
#        thesaurus (stadtwerke/thesaurus.json) is loaded too when the set is run; ENTITY_KEYS
#        {"produkt": "produkt", "thema": "thema"}.
# genossenschaft: Domain G, held out (tests/quality/SPEC.md): tests/quality/corpus/genossenschaft_corpus.jsonl
#        (40 sections of house rules and terms of use, 8 estates x 5 subjects sharing each
#        subject's vocabulary) with questions/genossenschaft_retrieval.tsv (80 questions written
#        blind); its thesaurus (genossenschaft/thesaurus.json) is loaded too when the set is run;
#        ENTITY_KEYS {"wohnanlage": "wohnanlage", "thema": "thema"}.
# bibliothek: Domain H, held out (tests/quality/SPEC.md): tests/quality/corpus/bibliothek_corpus.jsonl
#        (40 sections of a library's rules of use, 8 sites x 5 subjects sharing each subject's
#        vocabulary) with questions/bibliothek_retrieval.tsv (80 questions written blind); its
#        thesaurus (bibliothek/thesaurus.json) is loaded too when the set is run; ENTITY_KEYS
#        {"zweigstelle": "zweigstelle", "thema": "thema"}.
# Each variant is a fresh collection created with the demo's settings (text_config german, top_k
# 7, chunks of 120 tokens with 16 overlap) and then changed by its SET clause (columns of
# mcp.collection), into which the set's documents are ingested; then each --search variant's SET
# clause (search-time settings: entity_keys, entity_mode, entity_boost, vector_weight,
# text_weight) is applied in turn and the questions are run. In both clauses ENTITY_KEYS stands
# for the set's mapping of entity kinds to metadata keys (blind: region and branche, see SPEC.md;
# dev: tarifgebiet and branche). A document's rank is the rank of
# its best chunk among the first 60 chunks. Metrics: recall@7, hit@1, MRR@10 over documents.
# The embedding model is a parameter: --model NAME[,NAME...] names rows of mcp.embedding_model;
# the shipped minilm (all-MiniLM-L6-v2, English) and e5 (multilingual-e5-small, 4-bit) are
# registered here, any other by --model-sql FILE first. With several models (--model minilm,e5)
# every set and variant runs with each, in the same run, and the table shows them side by side.
# The demo thesaurus (demo/thesaurus.json) is loaded: entity-aware variants use it.
# Runs against the slot's demo cluster (scripts/demo.sh or install first) in database
# pg_mcp_eval (--db), which it recreates.
set -euo pipefail
LOG_TAG=eval
. "$(dirname "$0")/../../scripts/lib.sh"
PORT="${PG_MCP_DEMO_PORT:-55432}"
DIR="${PG_MCP_DEMO_DIR:-/var/tmp/pg_mcp_demo/pgdata}"
DB=pg_mcp_eval
MODEL=minilm
MODEL_SQL=
SETS=blind,dev
VARIANTS='default:'
SEARCH='base:'
OUT=
while [ $# -gt 0 ]; do
  case "$1" in
    --model) MODEL="$2"; shift 2 ;;
    --model-sql) MODEL_SQL="$2"; shift 2 ;;
    --sets) SETS="$2"; shift 2 ;;
    --variants) VARIANTS="$2"; shift 2 ;;
    --search) SEARCH="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --db) DB="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
Q="$ROOT/tests/quality"
work="$(mktemp -d)"; chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
psql_at "$PORT" "$DB" -v thesaurus="$(cat "$ROOT/demo/thesaurus.json")" \
    <<<"SELECT mcp.load_thesaurus(:'thesaurus') IS NOT NULL AS thesaurus_loaded \gset"
psql_at "$PORT" "$DB" -c "INSERT INTO mcp.embedding_model (name, kind, dimension, path) VALUES
  ('minilm', 'local', 384, '/usr/local/share/pg_mcp/models/all-MiniLM-L6-v2'),
  ('e5', 'local', 384, '${PG_MCP_E5_DIR:-/usr/local/share/pg_mcp/models/multilingual-e5-small-q4}') ON CONFLICT (name) DO NOTHING" >/dev/null
[ -n "$MODEL_SQL" ] && psql_at "$PORT" "$DB" -f "$MODEL_SQL" >/dev/null
# The held-out sets with a thesaurus of their own (set:thesaurus directory), loaded when run.
HELD_OUT="buerger:buergerservice hochschule:hochschule stadtwerke:stadtwerke genossenschaft:genossenschaft bibliothek:bibliothek"
for h in $HELD_OUT; do
  case ",$SETS," in *",${h%%:*},"*)
    psql_at "$PORT" "$DB" -v thesaurus="$(cat "$Q/${h#*:}/thesaurus.json")" \
        <<<"SELECT mcp.load_thesaurus(:'thesaurus') IS NOT NULL AS thesaurus_loaded \gset" ;;
  esac
done

# The sets as files postgres can read: documents as one JSON object a line, questions as TSV.
cp "$Q/corpus/tarif_corpus.jsonl" "$work/blind_docs.jsonl"
grep -v '^#' "$Q/questions/tarif_retrieval.tsv" >"$work/blind_q.tsv"
for h in $HELD_OUT; do
  cp "$Q/corpus/${h%%:*}_corpus.jsonl" "$work/${h%%:*}_docs.jsonl"
  grep -v '^#' "$Q/questions/${h%%:*}_retrieval.tsv" | grep -v '^[[:space:]]*$' >"$work/${h%%:*}_q.tsv"
done
# held_out_sql docs|q: the \copy and INSERT of every held-out set's documents or questions
held_out_sql() {
  local h set ext
  for h in $HELD_OUT; do
    set="${h%%:*}"
    ext=tsv; [ "$1" = docs ] && ext=jsonl
    echo "TRUNCATE line;"
    echo "\\copy line FROM '$work/${set}_$1.$ext' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')"
    if [ "$1" = docs ]; then
      echo "INSERT INTO eval_doc SELECT '$set', j->>'uri', j->>'title', j->'metadata', j->>'body' FROM (SELECT l::jsonb j FROM line) x;"
    else
      echo "INSERT INTO eval_q SELECT '$set', row_number() OVER (), split_part(l, e'\\t', 1), btrim(split_part(l, e'\\t', 2)) FROM line;"
    fi
  done
}
python3 - "$ROOT/benches/retrieval/quality.sql" "$work/dev_q.tsv" <<'PY'
import re, sys
src = open(sys.argv[1], encoding="utf-8").read()
rows = re.findall(r"^\s*\((\d+),\s*'((?:[^']|'')*)',\s*'([^']*)'\)", src, re.M)
with open(sys.argv[2], "w", encoding="utf-8") as f:
    for _, q, uri in rows:
        f.write(q.replace("''", "'") + "\t" + uri + "\n")
PY
# dev documents: demo/retrieval.sql's corpus, as ingested by the demo (loaded into a scratch
# database so that its collection, tool and interface stay out of the evaluation database)
fresh_db "$PORT" "${DB}_dev"
psql_at "$PORT" "${DB}_dev" -f "$ROOT/demo/retrieval.sql" >/dev/null
psql_at "$PORT" "${DB}_dev" -Atc "COPY (SELECT jsonb_build_object('uri', uri, 'title', title, 'metadata', metadata, 'body', body)
  FROM mcp.document WHERE collection = 'tarif' ORDER BY uri) TO STDOUT" >"$work/dev_docs.jsonl"
psql_at "$PORT" postgres -c "DROP DATABASE ${DB}_dev" >/dev/null

psql_at "$PORT" "$DB" <<SQL >/dev/null
CREATE TABLE eval_doc (dset text, uri text, title text, metadata jsonb, body text);
CREATE TABLE eval_q (dset text, id int, question text, relevant text);
CREATE TABLE eval_result (model text, dset text, variant text, mode text, questions int, recall7 numeric, hit1 numeric, mrr10 numeric,
                          search_ms numeric, ingest_s numeric);
CREATE TEMP TABLE line (l text);
\copy line FROM '$work/blind_docs.jsonl' WITH (FORMAT csv, QUOTE e'\x01', DELIMITER e'\x02')
INSERT INTO eval_doc SELECT 'blind', j->>'uri', j->>'title', j->'metadata', j->>'body' FROM (SELECT l::jsonb j FROM line) x;
TRUNCATE line;
\copy line FROM '$work/dev_docs.jsonl' WITH (FORMAT csv, QUOTE e'\x01', DELIMITER e'\x02')
INSERT INTO eval_doc SELECT 'dev', j->>'uri', j->>'title', j->'metadata', j->>'body' FROM (SELECT l::jsonb j FROM line) x;
TRUNCATE line;
$(held_out_sql docs)
TRUNCATE line;
\copy line FROM '$work/blind_q.tsv' WITH (FORMAT csv, QUOTE e'\x01', DELIMITER e'\x02')
INSERT INTO eval_q SELECT 'blind', row_number() OVER (), split_part(l, e'\t', 1), split_part(l, e'\t', 2) FROM line;
TRUNCATE line;
\copy line FROM '$work/dev_q.tsv' WITH (FORMAT csv, QUOTE e'\x01', DELIMITER e'\x02')
INSERT INTO eval_q SELECT 'dev', row_number() OVER (), split_part(l, e'\t', 1), split_part(l, e'\t', 2) FROM line;
$(held_out_sql q)
SQL
log "model $MODEL; sets $SETS; $(psql_at "$PORT" "$DB" -Atc "SELECT string_agg(dset || ': ' || n || ' documents', ', ') FROM (SELECT dset, count(*) n FROM eval_doc GROUP BY dset) x"); $(psql_at "$PORT" "$DB" -Atc "SELECT string_agg(dset || ': ' || n || ' questions', ', ') FROM (SELECT dset, count(*) n FROM eval_q GROUP BY dset) x")"

IFS=',' read -ra model_list <<<"$MODEL"
IFS=',' read -ra set_list <<<"$SETS"
IFS=';' read -ra variant_list <<<"$VARIANTS"
IFS=';' read -ra search_list <<<"$SEARCH"
for model in "${model_list[@]}"; do
for set in "${set_list[@]}"; do
  case "$set" in
    blind) ek="'{\"tarifgebiet\": \"region\", \"fachbereich\": \"branche\"}'" ;;
    buerger) ek="'{\"stadt\": \"stadt\", \"thema\": \"thema\"}'" ;;
    hochschule) ek="'{\"studiengang\": \"studiengang\", \"thema\": \"thema\"}'" ;;
    stadtwerke) ek="'{\"produkt\": \"produkt\", \"thema\": \"thema\"}'" ;;
    genossenschaft) ek="'{\"wohnanlage\": \"wohnanlage\", \"thema\": \"thema\"}'" ;;
    bibliothek) ek="'{\"zweigstelle\": \"zweigstelle\", \"thema\": \"thema\"}'" ;;
    *) ek="'{\"tarifgebiet\": \"tarifgebiet\", \"fachbereich\": \"branche\"}'" ;;
  esac
  for v in "${variant_list[@]}"; do
    name="${v%%:*}"; clause="${v#*:}"; clause="${clause//ENTITY_KEYS/$ek}"
    coll="e_${model}_${set}_${name}"
    t0=$(date +%s.%N)
    psql_at "$PORT" "$DB" -v coll="$coll" -v model="$model" -v set="$set" <<SQL >/dev/null
SET client_min_messages = warning;
INSERT INTO mcp.collection (name, purpose, embedding_model, text_config, top_k, min_score, chunk_tokens, chunk_overlap)
VALUES (:'coll', 'search', :'model', 'german', 7, 0.4, 120, 16);
$( [ -n "$clause" ] && echo "UPDATE mcp.collection SET $clause WHERE name = :'coll';" )
SELECT count(mcp.ingest(:'coll', uri, title, body, metadata)) FROM eval_doc WHERE dset = :'set';
SQL
    t1=$(date +%s.%N)
    for sv in "${search_list[@]}"; do
    sname="${sv%%:*}"; sclause="${sv#*:}"; sclause="${sclause//ENTITY_KEYS/$ek}"
    [ -n "$sclause" ] && psql_at "$PORT" "$DB" -v coll="$coll" -c "UPDATE mcp.collection SET $sclause WHERE name = '$coll'" >/dev/null
    psql_at "$PORT" "$DB" -v coll="$coll" -v model="$model" -v set="$set" -v variant="$name/$sname" -v ingest_s="$(echo "$t1 - $t0" | bc)" <<'SQL' >/dev/null
SET client_min_messages = warning;
SET eval.set = :'set';
SET eval.coll = :'coll';
CREATE TEMP TABLE ranked (id int, mode text, uri text, rank bigint);
CREATE TEMP TABLE timing (mode text, ms numeric);
DO $$
DECLARE q record; m text; t0 timestamptz;
BEGIN
  FOREACH m IN ARRAY ARRAY['text', 'vector', 'hybrid'] LOOP
    t0 := clock_timestamp();
    FOR q IN SELECT * FROM eval_q WHERE dset = current_setting('eval.set') ORDER BY id LOOP
      INSERT INTO ranked
      SELECT q.id, m, d.uri, row_number() OVER (ORDER BY d.best)
        FROM (SELECT s.uri, min(s.ord) AS best
                FROM mcp.search(current_setting('eval.coll'), q.question, 60, m)
                     WITH ORDINALITY AS s(chunk_id, document_id, title, uri, score, text, metadata, ord)
               GROUP BY s.uri) d;
    END LOOP;
    INSERT INTO timing VALUES (m, extract(epoch FROM clock_timestamp() - t0) * 1000
                                  / (SELECT count(*) FROM eval_q WHERE dset = current_setting('eval.set')));
  END LOOP;
END $$;
INSERT INTO eval_result
SELECT :'model', :'set', :'variant', m.mode, count(*),
       round(avg(CASE WHEN r.rank <= 7 THEN 1 ELSE 0 END), 3),
       round(avg(CASE WHEN r.rank = 1 THEN 1 ELSE 0 END), 3),
       round(avg(CASE WHEN r.rank <= 10 THEN 1.0 / r.rank ELSE 0 END), 3),
       round((SELECT ms FROM timing t WHERE t.mode = m.mode), 2), round(:'ingest_s'::numeric, 1)
  FROM eval_q q CROSS JOIN (VALUES ('text'), ('vector'), ('hybrid')) AS m(mode)
  LEFT JOIN ranked r ON r.id = q.id AND r.mode = m.mode AND r.uri = q.relevant
 WHERE q.dset = :'set'
 GROUP BY m.mode;
SQL
    done
  done
done
done
psql_at "$PORT" "$DB" -c "SELECT dset, variant, mode, model, questions, recall7 AS \"recall@7\", hit1 AS \"hit@1\", mrr10 AS \"MRR@10\",
  search_ms AS \"ms/search\", ingest_s AS \"ingest s\" FROM eval_result
  ORDER BY dset, variant, array_position(ARRAY['text','vector','hybrid'], mode), model"
[ -n "$OUT" ] && psql_at "$PORT" "$DB" -Atc "COPY (SELECT * FROM eval_result) TO STDOUT" >>"$OUT"
exit 0
