#!/usr/bin/env bash
# Plan accuracy of mcp.analyze per domain: the demo's own 45 questions (development set,
# demo/questions.tsv with demo/plans.sql and demo/thesaurus.json) and the two outside-written
# sets (tests/quality/SPEC.md): the tariff domain (tarif_plans.sql on the demo thesaurus,
# questions/tarif_plans.tsv) and IT support (itsupport/thesaurus.json + itsupport/plans.sql,
# questions/it_plans.tsv), each loaded as ADMIN.md says into a scratch database, and the held-out
# insurer's customer service (versicherung/thesaurus.json + versicherung/plans.sql, interface
# kundenservice, questions/vers_plans.tsv; loaded as versicherung/ADMIN.md says into the same
# database as Domains A and B, after them; skipped while its files are missing) and the held-out
# town hall's citizen services (Domain D: buergerservice/thesaurus.json + buergerservice/plans.sql,
# interface buergerservice, questions/buerger_plans.tsv; loaded as buergerservice/ADMIN.md says,
# after Domain C; skipped while its files are missing) and the held-out university's student
# services (Domain E: hochschule/thesaurus.json + hochschule/plans.sql, interface
# studierendenservice, questions/hochschule_plans.tsv; loaded as hochschule/ADMIN.md says, after
# Domain D; skipped while its files are missing) and the held-out municipal utility's customer
# portal (Domain F: stadtwerke/thesaurus.json + stadtwerke/plans.sql, interface kundenportal,
# questions/stadtwerke_plans.tsv; loaded as stadtwerke/ADMIN.md says into a scratch database of
# its own, quality_stadtwerke, with the chatbot interface: its plan stoerung_melden has the name
# of an IT support plan, and plan names are global; only when it is evaluated; skipped while its
# files are missing) and the held-out housing cooperative's tenant services (Domain G:
# genossenschaft/thesaurus.json + genossenschaft/plans.sql, interface mieterservice,
# questions/genossenschaft_plans.tsv; loaded as genossenschaft/ADMIN.md says into a scratch
# database of its own, quality_genossenschaft, with the chatbot interface: its plans
# schaden_melden and bescheinigung_anfordern have the names of the insurer's and of Domain E's
# plans, and plan names are global; only when it is evaluated; skipped while its files are
# missing) and the held-out public library's user services (Domain H: bibliothek/thesaurus.json
# + bibliothek/plans.sql, interface bibliothek, questions/bibliothek_plans.tsv; loaded as
# bibliothek/ADMIN.md says into a scratch database of its own, quality_bibliothek, with the
# chatbot interface, as Domains F and G; only when it is evaluated; skipped while its files are
# missing).
# The chosen plan is what mcp.chat takes: the best plan when it scores at least PLAN_MIN_SCORE
# (src/plans.rs; PLAN_MIN_SCORE_EMBEDDING when its score includes the embedding signal), else
# none ('-'); a question is right when that is its expected plan.
#
#   bash tests/quality/plans_eval.sh [--misses] [--keep] [--baseline REV] [--with FILE.sql] [--only dev,tarif,it,vers,buerger,hochschule,stadtwerke,genossenschaft,bibliothek] [--reuse]
#                                    [--model none,minilm,e5]
#
# --model: the embedding signal of the plans (mcp.interface.embedding_model of the interfaces
# evaluated): none (the interfaces as loaded, no embedding signal), minilm (all-MiniLM-L6-v2,
# English), e5 (multilingual-e5-small); a list runs every domain with each, in the same run, and
# the last lines give one "plan accuracy" line per model.
#
# --keep leaves the scratch databases quality_dev and quality_blind (and quality_stadtwerke,
# quality_genossenschaft, quality_bibliothek);
# --reuse evaluates in them again without reloading (and keeps them)
#
# A --with FILE.sql that replaces mcp.rank_plans must keep its signature (with entity_words):
# mcp.analyze calls it by that argument's name, so a function without it is not called.
#
# --baseline REV ranks as the extension did at git revision REV: mcp.analyze and mcp.rank_plans
# (sql/plans.sql) and mcp.plan_example_similarity_as_owner (sql/plan_embedding.sql) of that
# revision replace the installed ones in the scratch databases (those it has), and the
# thresholds are that revision's src/plans.rs constants, so that the figures before a change can
# be printed next to those after it from one installed build.
#
# Needs the extension installed (scripts/lib.sh install_extension; with a slot, the slot's).
# Prints a table per domain and per model, and last one line per model
# "plan accuracy (embedding MODEL): dev … tarif … it …".
set -euo pipefail
LOG_TAG=plans-eval
. "$(dirname "$0")/../../scripts/lib.sh"
DIR="${PG_MCP_BENCH_DIR:-/var/tmp/pg_mcp_bench/pgdata}"
PORT="${PG_MCP_BENCH_PORT:-55434}"
Q="$ROOT/tests/quality"
show=off; keep=0; reuse=0; baseline=""; with=""; only="dev,tarif,it,vers,buerger,hochschule,stadtwerke,genossenschaft,bibliothek"; models="none"
while [ $# -gt 0 ]; do
  case "$1" in
    --misses) show=on ;;
    --keep) keep=1 ;;
    --reuse) reuse=1; keep=1 ;;
    --baseline) baseline="${2:?--baseline needs a git revision}"; shift ;;
    --with) with="${2:?--with needs a file}"; shift ;;
    --only) only="${2:?--only needs a list such as dev,tarif}"; shift ;;
    --model) models="${2:?--model needs a list such as none,e5}"; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
plans_rs() { if [ -n "$baseline" ]; then git -C "$ROOT" show "$baseline:src/plans.rs"; else cat "$ROOT/src/plans.rs"; fi; }
MIN_SCORE="${PLAN_MIN_SCORE:-}"; [ -n "$MIN_SCORE" ] || MIN_SCORE="$(plans_rs | sed -n 's/^pub const PLAN_MIN_SCORE: f64 = \([0-9.]*\);/\1/p')"
[ -n "$MIN_SCORE" ] || { echo "PLAN_MIN_SCORE not found in src/plans.rs" >&2; exit 1; }
# (a revision without a threshold of its own for the embedding signal used PLAN_MIN_SCORE)
MIN_SCORE_EMB="${PLAN_MIN_SCORE_EMBEDDING:-}"
[ -n "$MIN_SCORE_EMB" ] || MIN_SCORE_EMB="$(plans_rs | sed -n 's/^pub const PLAN_MIN_SCORE_EMBEDDING: f64 = \([0-9.]*\);/\1/p')"
[ -n "$MIN_SCORE_EMB" ] || MIN_SCORE_EMB="$MIN_SCORE"
V="$Q/versicherung"; has_vers=0
[ -f "$V/thesaurus.json" ] && [ -f "$V/plans.sql" ] && [ -f "$Q/questions/vers_plans.tsv" ] && has_vers=1
case ",$only," in *",vers,"*) [ "$has_vers" = 1 ] || log "Domain C (versicherung) files missing: skipped" ;; esac
B="$Q/buergerservice"; has_buerger=0
[ -f "$B/thesaurus.json" ] && [ -f "$B/plans.sql" ] && [ -f "$Q/questions/buerger_plans.tsv" ] && has_buerger=1
case ",$only," in *",buerger,"*) [ "$has_buerger" = 1 ] || log "Domain D (buergerservice) files missing: skipped" ;; esac
H="$Q/hochschule"; has_hochschule=0
[ -f "$H/thesaurus.json" ] && [ -f "$H/plans.sql" ] && [ -f "$Q/questions/hochschule_plans.tsv" ] && has_hochschule=1
case ",$only," in *",hochschule,"*) [ "$has_hochschule" = 1 ] || log "Domain E (hochschule) files missing: skipped" ;; esac
# own_domain NAME LETTER: has_NAME=1 when Domain LETTER's files (NAME/thesaurus.json, NAME/plans.sql,
# questions/NAME_plans.tsv) are there and NAME is evaluated; such a domain is loaded into a
# scratch database of its own, quality_NAME, only when it is evaluated
own_domain() {
  local ok=0
  [ -f "$Q/$1/thesaurus.json" ] && [ -f "$Q/$1/plans.sql" ] && [ -f "$Q/questions/$1_plans.tsv" ] && ok=1
  case ",$only," in
    *",$1,"*) [ "$ok" = 1 ] || log "Domain $2 ($1) files missing: skipped" ;;
    *) ok=0 ;;
  esac
  printf -v "has_$1" '%s' "$ok"
}
own_domain stadtwerke F; own_domain genossenschaft G; own_domain bibliothek H
S="$Q/stadtwerke"; G="$Q/genossenschaft"; L="$Q/bibliothek"
dbs=(quality_dev quality_blind)
[ "$has_stadtwerke" = 1 ] && dbs+=(quality_stadtwerke)
[ "$has_genossenschaft" = 1 ] && dbs+=(quality_genossenschaft)
[ "$has_bibliothek" = 1 ] && dbs+=(quality_bibliothek)
start_cluster "$DIR" "$PORT"

# the chatbot interface and the demo's getTarifVertrag tool, as pg_test/sql/analyze.sql sets them up
setup_chatbot() {
  psql_at "$PORT" "$1" <<'SQL'
SET client_min_messages = warning;
CREATE SCHEMA demo;
CREATE FUNCTION demo.get_tarifvertrag(tarifgebiet text, fachbereich text, search_terms text[] DEFAULT NULL)
RETURNS jsonb LANGUAGE sql STABLE AS $$ SELECT '[]'::jsonb $$;
INSERT INTO mcp.interface (name, access_role) VALUES ('chatbot', 'public');
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
 ('getTarifVertrag', 'Tarifverträge',
  '{"type": "object", "properties": {"tarifgebiet": {"type": "string"}, "fachbereich": {"type": "string"},
    "search_terms": {"type": "array", "items": {"type": "string"}}}, "required": ["tarifgebiet", "fachbereich"]}',
  'demo.get_tarifvertrag(text, text, text[])');
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'getTarifVertrag'), ('chatbot', 'getDialog');
SQL
}
load_thesaurus() {
  echo "SELECT mcp.load_thesaurus(:'doc'::jsonb) IS NOT NULL AS loaded;" | psql_at "$PORT" "$1" -v doc="$(cat "$2")" >/dev/null
}

if [ "$reuse" = 0 ]; then
fresh_db "$PORT" quality_dev >/dev/null
setup_chatbot quality_dev
psql_at "$PORT" quality_dev -f "$ROOT/demo/plans.sql" >/dev/null
load_thesaurus quality_dev "$ROOT/demo/thesaurus.json"

fresh_db "$PORT" quality_blind >/dev/null
setup_chatbot quality_blind
psql_at "$PORT" quality_blind -f "$ROOT/demo/plans.sql" >/dev/null
load_thesaurus quality_blind "$ROOT/demo/thesaurus.json"
psql_at "$PORT" quality_blind -f "$Q/tarif_plans.sql" >/dev/null
load_thesaurus quality_blind "$Q/itsupport/thesaurus.json"
psql_at "$PORT" quality_blind -f "$Q/itsupport/plans.sql" >/dev/null

if [ "$has_vers" = 1 ]; then
  load_thesaurus quality_blind "$V/thesaurus.json"
  psql_at "$PORT" quality_blind -f "$V/plans.sql" >/dev/null
fi
if [ "$has_buerger" = 1 ]; then
  load_thesaurus quality_blind "$B/thesaurus.json"
  psql_at "$PORT" quality_blind -f "$B/plans.sql" >/dev/null
fi
if [ "$has_hochschule" = 1 ]; then
  load_thesaurus quality_blind "$H/thesaurus.json"
  psql_at "$PORT" quality_blind -f "$H/plans.sql" >/dev/null
fi
# load_own_db DB DIR: a domain in a scratch database of its own, with the chatbot interface, its
# thesaurus and its plans (plan names are global: Domain F's stoerung_melden would replace IT
# support's, Domain G's schaden_melden and bescheinigung_anfordern the insurer's and Domain E's)
load_own_db() {
  fresh_db "$PORT" "$1" >/dev/null
  setup_chatbot "$1"
  load_thesaurus "$1" "$2/thesaurus.json"
  psql_at "$PORT" "$1" -f "$2/plans.sql" >/dev/null
}
[ "$has_stadtwerke" = 1 ] && load_own_db quality_stadtwerke "$S"
[ "$has_genossenschaft" = 1 ] && load_own_db quality_genossenschaft "$G"
[ "$has_bibliothek" = 1 ] && load_own_db quality_bibliothek "$L"
fi

# fn_of REV FILE NAME: the definition of function NAME in FILE at revision REV, as CREATE OR REPLACE
fn_of() {
  git -C "$ROOT" show "$1:$2" 2>/dev/null |
    awk -v re="^CREATE FUNCTION $3\\(" '$0 ~ re {on=1} on {print} on && /^\$\$;$/ {exit}' |
    sed '1s/^CREATE FUNCTION/CREATE OR REPLACE FUNCTION/'
}
if [ -n "$baseline" ]; then
  # the ranking of that revision (the objects it reads are the same tables): analyze, and the
  # plan ranking and embedding signal when that revision has them as functions of their own
  def="$(fn_of "$baseline" sql/plans.sql mcp.analyze)"
  [ -n "$def" ] || { echo "no mcp.analyze in $baseline:sql/plans.sql" >&2; exit 1; }
  def="$def
$(fn_of "$baseline" sql/plans.sql mcp.rank_plans)
$(fn_of "$baseline" sql/plan_embedding.sql mcp.plan_example_similarity_as_owner)"
  # (a revision whose mcp.rank_plans has no entity_words argument: the installed one with it is
  # dropped from the scratch database, else that revision's analyze, calling it with four
  # arguments, would find two candidates)
  if ! grep -q 'entity_words text\[\]' <<<"$def"; then
    def="DO \$\$ BEGIN
  IF pg_catalog.to_regprocedure('mcp.rank_plans(text, text[], text[], jsonb, jsonb, text[])') IS NOT NULL THEN
    ALTER EXTENSION pg_mcp DROP FUNCTION mcp.rank_plans(text, text[], text[], jsonb, jsonb, text[]);
    DROP FUNCTION mcp.rank_plans(text, text[], text[], jsonb, jsonb, text[]);
  END IF;
END \$\$;
$def"
  fi
  for db in "${dbs[@]}"; do printf '%s\n' "$def" | psql_at "$PORT" "$db" >/dev/null; done
  log "ranking with mcp.analyze of $baseline (thresholds $MIN_SCORE, with an embedding model $MIN_SCORE_EMB)"
fi
if [ -n "$with" ]; then
  # SQL run in the scratch databases before the questions (e.g. a ranking being tried)
  for db in "${dbs[@]}"; do psql_at "$PORT" "$db" -f "$with" >/dev/null; done
fi
out="$(mktemp)"; trap 'rm -f "$out"' EXIT
run() { # db label iface file column
  case ",$only," in *",$2,"*) ;; *) return 0 ;; esac
  psql_at "$PORT" "$1" -v label="$2" -v iface="$3" -v qfile="$4" -v col="$5" -v min_score="$MIN_SCORE" \
      -v min_score_emb="$MIN_SCORE_EMB" -v show_misses="$show" -f "$Q/plans_eval.sql" <"$4" | tee -a "$out"
}
for db in "${dbs[@]}"; do
  psql_at "$PORT" "$db" -c "INSERT INTO mcp.embedding_model (name, kind, dimension, path) VALUES
    ('minilm', 'local', 384, '/usr/local/share/pg_mcp/models/all-MiniLM-L6-v2'),
    ('e5', 'local', 384, '${PG_MCP_E5_DIR:-/usr/local/share/pg_mcp/models/multilingual-e5-small-q4}')
    ON CONFLICT (name) DO NOTHING" >/dev/null
done
# the interfaces whose embedding model --model sets
IFACES="('chatbot', 'it_support', 'kundenservice', 'buergerservice', 'studierendenservice', 'kundenportal', 'mieterservice', 'bibliothek')"
summary=()
IFS=',' read -ra model_list <<<"$models"
for model in "${model_list[@]}"; do
  if [ "$model" != none ]; then
    for db in "${dbs[@]}"; do
      psql_at "$PORT" "$db" -c "UPDATE mcp.interface SET embedding_model = '$model' WHERE name IN $IFACES" >/dev/null
      # the steady state a deployment is in after its first question: one analyze per interface,
      # in a statement of its own, stores the plans' example vectors (the questions below run in
      # one statement, whose snapshot would not see vectors stored during it, so the off-domain
      # level, mcp.plan_similarity_level, read from the stored vectors, would be missing)
      psql_at "$PORT" "$db" -c "SELECT count(mcp.analyze('Guten Tag', i.name)) FROM mcp.interface i
                                 WHERE i.embedding_model IS NOT NULL AND EXISTS (SELECT 1 FROM mcp.plan p WHERE p.interface = i.name)" >/dev/null
    done
  else
    for db in "${dbs[@]}"; do
      psql_at "$PORT" "$db" -c "UPDATE mcp.interface SET embedding_model = NULL WHERE name IN $IFACES" >/dev/null
    done
  fi
  echo; echo "##### embedding signal: $model"
  : >"$out"
  run quality_dev dev chatbot "$ROOT/demo/questions.tsv" 3
  run quality_blind tarif chatbot "$Q/questions/tarif_plans.tsv" 2
  run quality_blind it it_support "$Q/questions/it_plans.tsv" 2
  [ "$has_vers" = 1 ] && run quality_blind vers kundenservice "$Q/questions/vers_plans.tsv" 2
  [ "$has_buerger" = 1 ] && run quality_blind buerger buergerservice "$Q/questions/buerger_plans.tsv" 2
  [ "$has_hochschule" = 1 ] && run quality_blind hochschule studierendenservice "$Q/questions/hochschule_plans.tsv" 2
  [ "$has_stadtwerke" = 1 ] && run quality_stadtwerke stadtwerke kundenportal "$Q/questions/stadtwerke_plans.tsv" 2
  [ "$has_genossenschaft" = 1 ] && run quality_genossenschaft genossenschaft mieterservice "$Q/questions/genossenschaft_plans.tsv" 2
  [ "$has_bibliothek" = 1 ] && run quality_bibliothek bibliothek bibliothek "$Q/questions/bibliothek_plans.tsv" 2
  # the ROLLUP row of each domain's table: "            | n | right | accuracy"
  summary+=("$(awk -F'|' -v m="$model" 'BEGIN {printf "plan accuracy (embedding %s):", m} /^===/ {d=$0; sub(/^=== /, "", d); sub(/ .*/, "", d)} /^ +\| +[0-9]+ \|/ {printf " %s %s (%d/%d)", d, $4+0, $3, $2}' "$out")")
done
if [ "$keep" = 0 ]; then
  for db in "${dbs[@]}"; do psql_at "$PORT" postgres -c "DROP DATABASE $db" >/dev/null; done
fi
echo
printf '%s\n' "${summary[@]}"
