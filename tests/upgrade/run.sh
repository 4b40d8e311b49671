#!/usr/bin/env bash
# The extension's life cycle, on a private cluster of its own:
#  1. 0.1.0 -> current version: the released install script (sql/pg_mcp--0.1.0.sql) is installed
#     against the NEW library, the registry filled (tests/upgrade/populate.sql), and every 0.1.0
#     SQL function called against the new library -- the window between installing a new
#     package and running ALTER EXTENSION UPDATE: nothing may crash, errors must be clean. Every
#     C symbol the 0.1.0 definitions call must keep its 0.1.0 argument and result types. Then
#     ALTER EXTENSION pg_mcp UPDATE: the registry and the audit are intact (tests/upgrade/
#     snapshot.sql), functions are stored schema-qualified, tools call, a replayed chat completes.
#  2. The updated schema is IDENTICAL to a fresh install of the current version
#     (tests/upgrade/schema.sql), and the comparison does see a difference when there is one.
#  3. pg_upgrade --check refuses the cluster while it holds 0.1.0 (regprocedure columns) and
#     passes after the update (against a fresh cluster of the same major version).
#  4. pg_dump of the updated database restored into a new database: the same rows, tools call,
#     a replayed chat completes, new audit rows do not collide with the restored ones.
# Needs the extension built and installed (scripts/test.sh's pg_regress step does it, or
# `source scripts/lib.sh; install_extension`); copies the hand-written sql/pg_mcp--*.sql files
# (released install scripts, update scripts) into the extension directory itself.
set -euo pipefail
LOG_TAG=upgrade
. "$(dirname "$0")/../../scripts/lib.sh"

REGRESS_DIR="${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress/pgdata}"
REGRESS_PORT="${PG_MCP_REGRESS_PORT:-55433}"
BASE="${PG_MCP_UPGRADE_DIR:-$(dirname "$REGRESS_DIR")/upgrade}"
PORT="${PG_MCP_UPGRADE_PORT:-$((REGRESS_PORT + 3))}"   # the cluster; +1: pg_upgrade's new one
HERE="$ROOT/tests/upgrade"
OLD_VERSION=0.1.0
VERSION="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$ROOT/Cargo.toml" | head -1)"
# This cluster runs without shared_preload_libraries: the path where audit rows are written in
# the caller's transaction, and what pg_upgrade --check sees of a plain install.
export PG_MCP_NO_PRELOAD=1
EXT_DIR="$("$PG_CONFIG" --sharedir)/extension"

fail() { log "FAIL: $*"; exit 1; }
[ -f "$EXT_DIR/pg_mcp--$VERSION.sql" ] || fail "pg_mcp $VERSION is not installed in $EXT_DIR (run install_extension)"
# (the current version's install script is the generated one, never a copy from sql/)
for f in "$ROOT"/sql/pg_mcp--*.sql; do
  [ "$(basename "$f")" = "pg_mcp--$VERSION.sql" ] || as_root install -m 644 "$f" "$EXT_DIR/"
done

work="$(mktemp -d)"
chmod 755 "$work"
mkdir "$work/pgu"; as_root chown postgres: "$work/pgu"
cleanup() { stop_cluster "$BASE/old"; rm -rf "$work"; }
trap cleanup EXIT

# A fresh cluster every run; "new" is only ever initialized (pg_upgrade's target).
stop_cluster "$BASE/old"
as_root rm -rf "$BASE"
start_cluster "$BASE/old" "$PORT"
as_root mkdir -p "$BASE/new"; as_root chown postgres: "$BASE/new"; as_root chmod 700 "$BASE/new"
as_pg "$PG_BIN/initdb" -D "$BASE/new" -A trust -U postgres --no-instructions >/dev/null
LOG_FILE="$BASE/old/server.log"

sql() { psql_at "$PORT" "$1" -At -c "SET client_min_messages = warning" -c "$2"; }   # sql DB QUERY
expect() { # expect WHAT ACTUAL EXPECTED
  [ "$2" = "$3" ] || fail "$1: got [$2], expected [$3]"
}
contains() { # contains WHAT TEXT NEEDLE
  grep -qF -- "$3" <<<"$2" || fail "$1: [$2] does not contain [$3]"
}
crashes() { grep -cE 'terminated by signal|PANIC|was terminated by exception' "$LOG_FILE" || true; }
C_SYMBOLS="SELECT p.prosrc || ' ' || coalesce(array_to_string(p.proargtypes::oid[]::regtype[], ','), '')
                  || ' -> ' || CASE WHEN p.proretset THEN 'SETOF ' ELSE '' END || p.prorettype::regtype::text
             FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
            WHERE l.lanname = 'c' AND p.pronamespace = 'mcp'::regnamespace ORDER BY 1"
ARGS_TARIF='{"tarifgebiet": "Bayern", "fachbereich": "Metall"}'
QUESTION='Welche Tarifverträge gelten für Metall in Bayern?'

psql_at "$PORT" postgres -c "CREATE DATABASE lc_fresh" -c "CREATE DATABASE lc_upgraded" -c "CREATE DATABASE lc_upgraded_empty"
sql lc_fresh "CREATE EXTENSION pg_mcp CASCADE" >/dev/null
expect "fresh install version" "$(sql lc_fresh "SELECT extversion FROM pg_extension WHERE extname = 'pg_mcp'")" "$VERSION"

# ------------------------------------------------------------------------------------------
# 1. The released 0.1.0 against the new library, then ALTER EXTENSION UPDATE
# ------------------------------------------------------------------------------------------
sql lc_upgraded "CREATE EXTENSION pg_mcp VERSION '$OLD_VERSION' CASCADE" >/dev/null
expect "0.1.0 install" "$(sql lc_upgraded "SELECT extversion || ' ' || atttypid::regtype::text FROM pg_extension, pg_attribute
                                            WHERE extname = 'pg_mcp' AND attrelid = 'mcp.tool'::regclass AND attname = 'function'")" \
       "$OLD_VERSION regprocedure"
psql_at "$PORT" lc_upgraded -q -f "$HERE/populate.sql"
log "0.1.0 installed from sql/pg_mcp--$OLD_VERSION.sql against the $VERSION library, registry filled"

# Every C function 0.1.0 defines calls a symbol of the new library: where the current version
# defines the same symbol, argument and result types must be the 0.1.0 ones (else the 0.1.0
# definition hands the new code datums of other types until the update has run).
sql lc_upgraded "$C_SYMBOLS" >"$work/symbols.old"
sql lc_fresh "$C_SYMBOLS" >"$work/symbols.new"
while read -r symbol old_sig; do
  new_sig="$(awk -v s="$symbol" '$1 == s { $1 = ""; sub(/^ /, ""); print }' "$work/symbols.new")"
  if [ -z "$new_sig" ]; then
    log "symbol $symbol: kept only for the $OLD_VERSION definitions ($old_sig)"
  elif [ "$new_sig" != "$old_sig" ]; then
    fail "C symbol $symbol: $OLD_VERSION calls it as ($old_sig), $VERSION defines ($new_sig). Give the changed function a new Rust name (symbol <name>_wrapper) and keep the old one with the $OLD_VERSION types."
  fi
done <"$work/symbols.old"
log "all $(wc -l <"$work/symbols.old") C symbols of $OLD_VERSION exist with their $OLD_VERSION types"

# The window: each 0.1.0 definition against the new library, one session each. A result or a
# clean ERROR is fine (this is the state until ALTER EXTENSION UPDATE); a lost connection, a
# crash in the server log or an internal error (XX000) is not.
crashes0="$(crashes)"
window() { # window SQL...
  local out rc=0 state
  out="$("$PG_BIN/psql" -X -At -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -h 127.0.0.1 -p "$PORT" -U postgres \
         -d lc_upgraded -c "SET client_min_messages = warning" -c "$1" 2>&1)" || rc=$?
  if [ "$rc" = 0 ]; then
    log "  window ok: $1"
    return
  fi
  state="$(sed -n 's/^ERROR:  \([0-9A-Z]\{5\}\): .*/\1/p' <<<"$out" | head -1)"
  if [ "$rc" != 1 ] && [ "$rc" != 3 ] || [ -z "$state" ] || [[ "$state" == XX* ]]; then
    fail "window: $1 (psql exit $rc): $out"
  fi
  log "  window clean ERROR $state: $1: $(grep -m1 '^ERROR' <<<"$out")"
}
window "SELECT mcp.repair_json('{\"a\": 1,}')"
window "SELECT mcp.repair_json_report('[1, 2')"
window "SELECT mcp.parse_llm_response('{\"choices\":[{\"finish_reason\":\"stop\",\"message\":{\"role\":\"assistant\",\"content\":\"hi\"}}]}')"
window "SELECT mcp.list_tools('tarif')"
window "SELECT mcp.list_tools('tarif', 'mcp')"
window "SELECT mcp.validate_arguments('getTarif', '$ARGS_TARIF')"
window "SELECT mcp.call_tool('getTarif', '$ARGS_TARIF', 'tarif')"
window "SELECT mcp.call_tool('countTarif', '{\"gebiet\": \"Bayern\"}', 'tarif')"
window "SELECT mcp.call_tool('tarifByRegion', '{\"region\": \"Bayern\"}', 'tarif')"
window "SELECT mcp.call_tool('retiredTool', '{\"x\": \"y\"}', 'tarif')"
window "SELECT mcp.call_tool('getDialog', '{\"missing_parameters\": [\"region\"]}', 'tarif')"
window "SELECT mcp.chat('$QUESTION', 'tarif')"
window "SELECT mcp.check_tool_definition('probe', 'function', '{\"type\": \"object\", \"properties\": {\"missing_parameters\": {\"type\": \"array\"}}, \"required\": [\"missing_parameters\"]}', 'mcp.ask_user(text[],text)'::regprocedure::oid)"
window "INSERT INTO mcp.tool (name, description, parameters, function) VALUES ('probe', 'p', '{\"type\": \"object\", \"properties\": {\"missing_parameters\": {\"type\": \"array\"}}, \"required\": [\"missing_parameters\"]}', 'mcp.ask_user(text[], text)'); DELETE FROM mcp.tool WHERE name = 'probe'"
window "INSERT INTO mcp.provider (name, kind, model) VALUES ('probe', 'replay', 'r'); SELECT mcp.set_api_key('probe', 'sk-probe'); SELECT mcp.has_api_key('probe'); SELECT mcp.set_api_key('probe', NULL); DELETE FROM mcp.provider WHERE name = 'probe'"
[ "$(crashes)" = "$crashes0" ] || fail "the server log shows a crashed backend during the window: $(grep -E 'terminated by signal|PANIC' "$LOG_FILE" | tail -3)"
log "window: every $OLD_VERSION definition ran against the $VERSION library without a crash"

psql_at "$PORT" lc_upgraded -f "$HERE/snapshot.sql" >"$work/before"

# 3a. pg_upgrade refuses a cluster with 0.1.0's regprocedure columns (the check works).
pg_upgrade_check() { # → exit status of pg_upgrade --check, its output in $work/pg_upgrade.out
  local rc=0
  as_pg bash -c "cd '$work/pgu' && '$PG_BIN/pg_upgrade' --check -b '$PG_BIN' -B '$PG_BIN' \
      -d '$BASE/old' -D '$BASE/new' -p $PORT -P $((PORT + 1)) -U postgres" >"$work/pg_upgrade.out" 2>&1 || rc=$?
  return "$rc"
}
if pg_upgrade_check; then
  fail "pg_upgrade --check accepted a cluster with $OLD_VERSION's regprocedure columns: the check proves nothing"
fi
contains "pg_upgrade --check on $OLD_VERSION" "$(cat "$work/pg_upgrade.out")" "reg* data types in user tables"
log "pg_upgrade --check refuses the $OLD_VERSION cluster (reg* columns), as it should"

sql lc_upgraded "ALTER EXTENSION pg_mcp UPDATE" >/dev/null
expect "updated version" "$(sql lc_upgraded "SELECT extversion FROM pg_extension WHERE extname = 'pg_mcp'")" "$VERSION"
psql_at "$PORT" lc_upgraded -f "$HERE/snapshot.sql" >"$work/after"
# (the key row is sealed anew by the update: checked below instead)
lost="$(comm -23 <(grep -v '^mcp.provider_secret ' "$work/before") <(grep -v '^mcp.provider_secret ' "$work/after"))"
[ -z "$lost" ] || fail "ALTER EXTENSION UPDATE changed or lost registry/audit data (before-only lines):
$lost"
log "ALTER EXTENSION pg_mcp UPDATE: $(wc -l <"$work/before") registry and audit facts intact"
# the 0.1.0 key in clear was sealed with the server key: still there, no longer readable in the table
expect "key sealed by the update" "$(sql lc_upgraded "SELECT mcp.has_api_key('lc-replay') AND NOT EXISTS (
    SELECT 1 FROM mcp.provider_secret WHERE pg_catalog.strpos(pg_catalog.encode(ciphertext, 'escape'), 'sk-lc-upgrade') > 0)")" "t"

expect "stored signatures" "$(sql lc_upgraded "SELECT string_agg(coalesce(name, uri) || '=' || function, ' ' ORDER BY coalesce(name, uri) COLLATE \"C\")
                                                FROM (SELECT name, NULL AS uri, function FROM mcp.tool UNION ALL
                                                      SELECT NULL, uri, function FROM mcp.resource) r WHERE function IS NOT NULL")" \
       "countTarif=lc.\"Tarif Zählen\"(text) getDialog=mcp.ask_user(text[],text) getTarif=lc.get_tarif(text,text,text[]) lc://tarif/1=lc.tarif_text(integer) retiredTool=dropped function (OID $(sql lc_upgraded "SELECT substring(function from '[0-9]+') FROM mcp.tool WHERE name = 'retiredTool'")) thesaurus_expand=mcp.thesaurus_expand(text) thesaurus_neighbours=mcp.thesaurus_neighbours(text,integer) thesaurus_path=mcp.thesaurus_path(text,text,integer)"
expect "unresolved functions" "$(sql lc_upgraded "SELECT string_agg(registry || ' ' || name, ', ') FROM mcp.unresolved_functions")" "tool retiredTool"
expect "no reg* column" "$(sql lc_upgraded "SELECT count(*) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                                            WHERE c.relnamespace = 'mcp'::regnamespace AND a.attnum > 0
                                              AND a.atttypid IN ('regprocedure'::regtype, 'regproc'::regtype)")" "0"

# Tools and a replayed chat on the updated database (also used after the restore).
check_working() { # check_working DB
  local db="$1" r
  r="$(sql "$db" "SELECT mcp.call_tool('getTarif', '$ARGS_TARIF', 'tarif')")"
  contains "$db: getTarif" "$r" '"isError": false'
  contains "$db: getTarif" "$r" "ERA Metall Bayern"
  r="$(sql "$db" "SELECT mcp.call_tool('countTarif', '{\"gebiet\": \"Bayern\"}', 'tarif')")"
  contains "$db: countTarif" "$r" '"isError": false'
  r="$(sql "$db" "SELECT mcp.call_tool('tarifByRegion', '{\"region\": \"NRW\"}', 'tarif')")"
  contains "$db: tarifByRegion" "$r" "Manteltarifvertrag Chemie NRW"
  r="$(sql "$db" "SELECT mcp.call_tool('retiredTool', '{\"x\": \"y\"}', 'tarif')")"
  contains "$db: retiredTool" "$r" '"isError": true'
  contains "$db: retiredTool" "$r" "its function dropped function (OID"
  expect "$db: tools listed" "$(sql "$db" "SELECT string_agg(t ->> 'name', ',' ORDER BY t ->> 'name' COLLATE \"C\") FROM jsonb_array_elements(mcp.list_tools('tarif', 'mcp')) t")" \
         "countTarif,getDialog,getTarif,sql_query,tarifByRegion"
  r="$(sql "$db" "SELECT mcp.chat('$QUESTION', 'tarif')")"
  contains "$db: chat" "$r" '"status": "completed"'
  contains "$db: chat" "$r" "ERA Metall Bayern"
  expect "$db: the chat's tool calls" "$(sql "$db" "SELECT string_agg(tool || ':' || status, ',' ORDER BY tool) FROM mcp.tool_call
                                                     WHERE run_id = (SELECT run_id FROM mcp.run ORDER BY started_at DESC LIMIT 1)")" \
         "countTarif:ok,getTarif:ok"
}
check_working lc_upgraded
# a signature written without a schema is stored qualified
expect "new tool stored qualified" "$(sql lc_upgraded "SET search_path = lc, public;
  INSERT INTO mcp.tool (name, description, parameters, function) VALUES ('lcText', 'x',
    '{\"type\": \"object\", \"properties\": {\"id\": {\"type\": \"integer\"}}, \"required\": [\"id\"]}', 'tarif_text(int)')
  RETURNING function")" "lc.tarif_text(integer)"
log "after the update: tools call, the dropped function is named, a replayed chat completes"

# ------------------------------------------------------------------------------------------
# 2. The updated schema is identical to a fresh install: a database updated without data (built-in
#    rows included) and the populated one (whose admin changed a built-in row: those left out)
# ------------------------------------------------------------------------------------------
sql lc_upgraded_empty "CREATE EXTENSION pg_mcp VERSION '$OLD_VERSION' CASCADE" >/dev/null
sql lc_upgraded_empty "ALTER EXTENSION pg_mcp UPDATE" >/dev/null
psql_at "$PORT" lc_fresh -f "$HERE/schema.sql" >"$work/schema.fresh"
psql_at "$PORT" lc_upgraded_empty -f "$HERE/schema.sql" >"$work/schema.upgraded"
psql_at "$PORT" lc_upgraded -f "$HERE/schema.sql" | grep -v '^built-in row ' >"$work/schema.populated"
compare_schema() { # compare_schema UPDATED FRESH
  if ! diff -u "$2" "$1" >"$work/schema.diff"; then
    cat "$work/schema.diff"
    fail "the schema after ALTER EXTENSION UPDATE differs from a fresh $VERSION install (- fresh, + updated): extend sql/pg_mcp--$OLD_VERSION--$VERSION.sql"
  fi
}
compare_schema "$work/schema.upgraded" "$work/schema.fresh"
grep -v '^built-in row ' "$work/schema.fresh" >"$work/schema.fresh_no_rows"
compare_schema "$work/schema.populated" "$work/schema.fresh_no_rows"
log "updated schema == fresh $VERSION install ($(wc -l <"$work/schema.fresh") facts; populated database too)"
# ... and the comparison sees a difference when there is one.
for mutation in \
    "COMMENT ON COLUMN mcp.tool.function IS 'changed'" \
    "ALTER TABLE mcp.tool ALTER COLUMN enabled SET DEFAULT false" \
    "ALTER TABLE mcp.interface ADD COLUMN probe integer" \
    "ALTER FUNCTION mcp.function_signature(regprocedure) VOLATILE" \
    "CREATE OR REPLACE FUNCTION mcp.resource_row_check() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END'" \
    "DROP TRIGGER resource_row_check ON mcp.resource" \
    "REVOKE SELECT ON mcp.unresolved_functions FROM PUBLIC" \
    "ALTER TABLE mcp.tool DROP CONSTRAINT tool_timeout_positive" \
    "UPDATE pg_extension SET extconfig = extconfig[2:], extcondition = extcondition[2:] WHERE extname = 'pg_mcp'" \
    "UPDATE mcp.tool SET description = 'changed' WHERE name = 'getDialog'"; do
  printf 'BEGIN;\n%s;\n\\i %s\nROLLBACK;\n' "$mutation" "$HERE/schema.sql" >"$work/mutation.sql"
  psql_at "$PORT" lc_upgraded_empty -f "$work/mutation.sql" 2>&1 | grep -v '^\(BEGIN\|ROLLBACK\|COMMENT\|ALTER\|CREATE\|DROP\|REVOKE\|UPDATE\)' >"$work/schema.mutated" || true
  ! cmp -s "$work/schema.fresh" "$work/schema.mutated" || fail "the schema comparison does not see: $mutation"
done
log "the schema comparison sees each of 10 deliberate differences"

# ------------------------------------------------------------------------------------------
# 3b. pg_upgrade --check passes after the update
# ------------------------------------------------------------------------------------------
pg_upgrade_check || { cat "$work/pg_upgrade.out"; fail "pg_upgrade --check refuses the cluster after the update"; }
contains "pg_upgrade --check" "$(cat "$work/pg_upgrade.out")" "Clusters are compatible"
log "pg_upgrade --check passes: the populated cluster can be upgraded"

# ------------------------------------------------------------------------------------------
# 4. pg_dump, restore into a new database
# ------------------------------------------------------------------------------------------
"$PG_BIN/pg_dump" -h 127.0.0.1 -p "$PORT" -U postgres -Fc -f "$work/lc.dump" lc_upgraded
psql_at "$PORT" postgres -c "CREATE DATABASE lc_restored"
"$PG_BIN/pg_restore" -h 127.0.0.1 -p "$PORT" -U postgres -d lc_restored --exit-on-error "$work/lc.dump" \
  || fail "pg_restore reported errors"
psql_at "$PORT" lc_upgraded -f "$HERE/snapshot.sql" >"$work/dumped"
psql_at "$PORT" lc_restored -f "$HERE/snapshot.sql" >"$work/restored"
diff -u "$work/dumped" "$work/restored" || fail "the restored rows differ from the dumped ones (- dumped, + restored)"
log "restore: $(wc -l <"$work/restored") registry and audit facts identical"
expect "restored unresolved functions" "$(sql lc_restored "SELECT string_agg(registry || ' ' || name, ', ') FROM mcp.unresolved_functions")" "tool retiredTool"
calls0="$(sql lc_restored "SELECT count(*) FROM mcp.tool_call")"
check_working lc_restored
# the identity sequences came along: the new calls' audit rows were written after the restored ones
expect "audit rows after the restore" "$(sql lc_restored "SELECT count(*) - $calls0 FROM mcp.tool_call")" "6"
# audit data can be left out of a dump (README)
"$PG_BIN/pg_dump" -h 127.0.0.1 -p "$PORT" -U postgres --exclude-table-data='mcp.llm_request' lc_upgraded >"$work/lc.sql"
grep -q '^COPY mcp.tool ' "$work/lc.sql" || fail "a plain dump holds no tool rows"
! grep -q '^COPY mcp.llm_request ' "$work/lc.sql" || fail "--exclude-table-data does not leave out mcp.llm_request"
log "pg_dump + restore: registry, audit and sequences restored; tools call and a replayed chat completes"

[ "$(crashes)" = "$crashes0" ] || fail "the server log shows a crashed backend"
log "ok"
