#!/usr/bin/env bash
# Plan accuracy of mcp.analyze per domain: the demo's own 45 questions (development set,
# demo/questions.tsv with demo/plans.sql and demo/thesaurus.json) and the two outside-written
# sets (tests/quality/SPEC.md): the tariff domain (tarif_plans.sql on the demo thesaurus,
# questions/tarif_plans.tsv) and IT support (itsupport/thesaurus.json + itsupport/plans.sql,
# questions/it_plans.tsv), each loaded as ADMIN.md says into a scratch database. The chosen plan
# is what mcp.chat takes: the best plan when it scores at least PLAN_MIN_SCORE (src/plans.rs),
# else none ('-'); a question is right when that is its expected plan.
#
#   bash tests/quality/plans_eval.sh [--misses] [--keep] [--baseline REV] [--with FILE.sql] [--only dev,tarif,it] [--reuse]
#                                    [--model none,minilm,e5]
#
# --model: the embedding signal of the plans (mcp.interface.embedding_model of the interfaces
# evaluated): none (the interfaces as loaded, no embedding signal), minilm (all-MiniLM-L6-v2,
# English), e5 (multilingual-e5-small); a list runs every domain with each, in the same run, and
# the last lines give one "plan accuracy" line per model.
#
# --keep leaves the scratch databases quality_dev and quality_blind; --reuse evaluates in them
# again without reloading (and keeps them)
#
# --baseline REV ranks with mcp.analyze as it was at git revision REV (its definition from that
# revision's sql/plans.sql replaces the installed one in the scratch databases), so that the
# figures before a change can be printed next to those after it from one installed build.
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
show=off; keep=0; reuse=0; baseline=""; with=""; only="dev,tarif,it"; models="none"
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
MIN_SCORE="${PLAN_MIN_SCORE:-}"; [ -n "$MIN_SCORE" ] || MIN_SCORE="$(sed -n 's/^pub const PLAN_MIN_SCORE: f64 = \([0-9.]*\);/\1/p' "$ROOT/src/plans.rs")"
[ -n "$MIN_SCORE" ] || { echo "PLAN_MIN_SCORE not found in src/plans.rs" >&2; exit 1; }
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
fi

if [ -n "$baseline" ]; then
  # the analyze function of that revision (the objects it reads are the same tables)
  def="$(git -C "$ROOT" show "$baseline:sql/plans.sql" |
         awk '/^CREATE FUNCTION mcp.analyze\(/ {on=1} on {print} on && /^\$\$;$/ {exit}' |
         sed '1s/^CREATE FUNCTION/CREATE OR REPLACE FUNCTION/')"
  [ -n "$def" ] || { echo "no mcp.analyze in $baseline:sql/plans.sql" >&2; exit 1; }
  for db in quality_dev quality_blind; do printf '%s\n' "$def" | psql_at "$PORT" "$db" >/dev/null; done
  log "ranking with mcp.analyze of $baseline"
fi
if [ -n "$with" ]; then
  # SQL run in both scratch databases before the questions (e.g. a ranking being tried)
  for db in quality_dev quality_blind; do psql_at "$PORT" "$db" -f "$with" >/dev/null; done
fi
out="$(mktemp)"; trap 'rm -f "$out"' EXIT
run() { # db label iface file column
  case ",$only," in *",$2,"*) ;; *) return 0 ;; esac
  psql_at "$PORT" "$1" -v label="$2" -v iface="$3" -v qfile="$4" -v col="$5" -v min_score="$MIN_SCORE" \
      -v show_misses="$show" -f "$Q/plans_eval.sql" <"$4" | tee -a "$out"
}
for db in quality_dev quality_blind; do
  psql_at "$PORT" "$db" -c "INSERT INTO mcp.embedding_model (name, kind, dimension, path) VALUES
    ('minilm', 'local', 384, '/usr/local/share/pg_mcp/models/all-MiniLM-L6-v2'),
    ('e5', 'local', 384, '${PG_MCP_E5_DIR:-/usr/local/share/pg_mcp/models/multilingual-e5-small-q4}')
    ON CONFLICT (name) DO NOTHING" >/dev/null
done
summary=()
IFS=',' read -ra model_list <<<"$models"
for model in "${model_list[@]}"; do
  if [ "$model" != none ]; then
    for db in quality_dev quality_blind; do
      psql_at "$PORT" "$db" -c "UPDATE mcp.interface SET embedding_model = '$model' WHERE name IN ('chatbot', 'it_support')" >/dev/null
    done
  else
    for db in quality_dev quality_blind; do
      psql_at "$PORT" "$db" -c "UPDATE mcp.interface SET embedding_model = NULL WHERE name IN ('chatbot', 'it_support')" >/dev/null
    done
  fi
  echo; echo "##### embedding signal: $model"
  : >"$out"
  run quality_dev dev chatbot "$ROOT/demo/questions.tsv" 3
  run quality_blind tarif chatbot "$Q/questions/tarif_plans.tsv" 2
  run quality_blind it it_support "$Q/questions/it_plans.tsv" 2
  # the ROLLUP row of each domain's table: "            | n | right | accuracy"
  summary+=("$(awk -F'|' -v m="$model" 'BEGIN {printf "plan accuracy (embedding %s):", m} /^===/ {d=$0; sub(/^=== /, "", d); sub(/ .*/, "", d)} /^ +\| +[0-9]+ \|/ {printf " %s %s (%d/%d)", d, $4+0, $3, $2}' "$out")")
done
if [ "$keep" = 0 ]; then
  psql_at "$PORT" postgres -c "DROP DATABASE quality_dev" -c "DROP DATABASE quality_blind" >/dev/null
fi
echo
printf '%s\n' "${summary[@]}"
