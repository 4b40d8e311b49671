#!/usr/bin/env bash
# Hot standby: a primary and a streaming replica of it (pg_basebackup -R), both started here,
# with pg_mcp preloaded on both. On the standby (every transaction read-only, no audit worker):
#  1. mcp.list_tools (both formats) answers as on the primary, as a plain login role;
#  2. mcp.call_tool of a function tool, sql_query and context_retrieve answers, recorded in the
#     standby's server log (mcp.audit_read_only_calls = log in its postgresql.conf); with the
#     setting at refuse (the default) the same call is refused with 25006 before it runs;
#  3. mcp.search in every mode over the local embedding model, and context_retrieve, give the
#     primary's answers;
#  4. mcp.analyze ranks with the embedding signal of plan examples no session has embedded yet
#     (computed, not stored: mcp.plan_example_embedding stays empty on the standby);
#  5. mcp.handle: initialize, ping, tools/list, tools/call, resources/list, resources/read,
#     prompts/list, prompts/get answer without a JSON-RPC error;
#  6. mcp.chat is refused with 25006 and a message saying why, before any LLM request (the mock
#     LLM's request log does not grow; the same chat on the primary does reach it);
#  7. writes are refused with 25006, nothing else: mcp.ingest, mcp.load_thesaurus,
#     mcp.set_api_key, INSERT INTO mcp.tool;
#  8. no backend of the standby died, and it still replays the primary's changes.
# Own clusters next to the regress cluster (ports PG_MCP_REGRESS_PORT + 6 and + 8).
set -euo pipefail
LOG_TAG=standby
. "$(dirname "$0")/../../scripts/lib.sh"

BASE="$(dirname "${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress/pgdata}")/standby"
PRIMARY="$BASE/primary"
STANDBY="$BASE/replica"
P_PORT=$(( ${PG_MCP_REGRESS_PORT:-55433} + 6 ))
S_PORT=$(( ${PG_MCP_REGRESS_PORT:-55433} + 8 ))
DB=pg_mcp_standby
MODEL_DIR="${PG_MCP_MODEL_DIR:-/usr/local/share/pg_mcp/models/all-MiniLM-L6-v2}"

fail() { log "FAIL: $*"; exit 1; }
work="$(mktemp -d)"
chmod 755 "$work"
bg_pid=
PORT="$P_PORT"
. "$ROOT/tests/cancel/sessions.sh"   # start_mock, mock_requests
cleanup() { mock_cleanup; stop_cluster "$STANDBY"; stop_cluster "$PRIMARY"; }

install_extension
stop_cluster "$STANDBY"; stop_cluster "$PRIMARY"
as_root rm -rf "$BASE"
as_root mkdir -p "$BASE"
as_root chown postgres: "$BASE"
start_cluster "$PRIMARY" "$P_PORT"
start_mock "$ROOT/tests/audit/scenarios"   # scenario "ok": one plain answer
trap cleanup EXIT

p() { psql_at "$P_PORT" "$DB" -At "$@"; }
# s [ROLE] SQL: one statement on the standby, as ROLE (default postgres)
s() {
  local user=postgres
  [ $# -gt 1 ] && { user="$1"; shift; }
  "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$S_PORT" -U "$user" -d "$DB" -At -c "$1"
}
# s_err SQL: the statement must fail on the standby; prints its SQLSTATE and message
s_err() {
  local out
  if out="$("$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -h 127.0.0.1 -p "$S_PORT" \
               -U postgres -d "$DB" -At -c "$1" 2>&1)"; then
    fail "succeeded on the standby: $1 -> $out"
  fi
  echo "$out"
}

psql_at "$P_PORT" postgres -c "CREATE DATABASE $DB" >/dev/null
p -c "SET client_min_messages = warning" -c "CREATE EXTENSION pg_mcp CASCADE" >/dev/null
p >/dev/null <<SQL
CREATE ROLE standby_reader LOGIN;
CREATE TABLE public.tarif (region text PRIMARY KEY, hours int NOT NULL);
INSERT INTO public.tarif VALUES ('Bayern', 35), ('Hessen', 38);
GRANT SELECT ON public.tarif TO standby_reader;
-- searching a collection needs SELECT on its documents and chunks (none is granted to PUBLIC)
GRANT SELECT ON mcp.document, mcp.chunk TO standby_reader;
CREATE FUNCTION public.hours_of(region text) RETURNS int LANGUAGE sql STABLE
  AS 'SELECT hours FROM public.tarif WHERE region = \$1';
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('hoursOf', 'Weekly working hours of a region',
   '{"type": "object", "properties": {"region": {"type": "string"}}, "required": ["region"]}',
   'public.hours_of(text)');
INSERT INTO mcp.provider (name, kind, base_url, model)
  VALUES ('ok', 'openai', 'http://127.0.0.1:$mock_port/s/ok/v1', 'mock-model');
INSERT INTO mcp.embedding_model (name, kind, dimension, path, access_role) VALUES ('minilm', 'local', 384, '$MODEL_DIR', 'public');
INSERT INTO mcp.interface (name, access_role, provider, embedding_model) VALUES ('chatbot', 'public', 'ok', 'minilm');
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'hoursOf'), ('chatbot', 'sql_query'), ('chatbot', 'context_retrieve');
INSERT INTO mcp.collection (name, embedding_model, purpose, text_config, min_score) VALUES ('tarif', 'minilm', 'rag', 'english', 0.3);
SELECT mcp.ingest('tarif', 'tv://bayern', 'Agreement Bavaria', 'The weekly working time in Bavaria is 35 hours. Holidays: 30 days a year.');
SELECT mcp.ingest('tarif', 'tv://hessen', 'Agreement Hesse', 'In Hesse people work 38 hours per week.');
INSERT INTO mcp.resource (uri, name, query) VALUES ('tarif://regions', 'Regions', 'SELECT string_agg(region, '','' ORDER BY region) FROM public.tarif');
SQL
# a chat on the primary reaches the mock (so the count below would see a request)
[ "$(p -c "SELECT mcp.chat('Hello', 'chatbot') ->> 'status'")" = completed ] || fail "chat on the primary did not complete"
# plans whose example vectors no session has computed yet (mcp.analyze stores them lazily)
p >/dev/null <<'SQL'
INSERT INTO mcp.plan (name, interface, description, examples) VALUES
  ('hours', 'chatbot', 'Questions about weekly working hours', ARRAY['How many hours per week do people work?', 'Weekly working time in Bavaria']),
  ('holidays', 'chatbot', 'Questions about holidays', ARRAY['How many days of holiday are there?']);
SQL
[ "$(p -c "SELECT count(*) FROM mcp.plan_example_embedding")" = 0 ] || fail "plan examples embedded before the standby asked"
requests_before="$(mock_requests ok)"
[ "$requests_before" -ge 1 ] || fail "the mock saw no request of the primary's chat"

# primary answers, to compare with the standby's
search_sql="SELECT string_agg(uri || ':' || round(score::numeric, 4), ',' ORDER BY score DESC, uri)
              FROM mcp.search('tarif', 'weekly working hours Bavaria', 2, MODE, '{}')"
declare -A primary_search
for mode in vector text hybrid; do primary_search[$mode]="$(p -c "${search_sql/MODE/\'$mode\'}")"; done
retrieve_sql="SELECT mcp.call_tool('context_retrieve', '{\"query\": \"weekly working time in Bavaria\"}') -> 'content' -> 0 ->> 'text'"
primary_retrieve="$(p -c "$retrieve_sql")"
p -c "DELETE FROM mcp.tool_call" >/dev/null

# the standby: a base backup of the primary with the replication settings (-R)
as_pg "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$P_PORT" -U postgres -D "$STANDBY" -R -X stream -c fast
cat <<CONF | as_pg tee -a "$STANDBY/postgresql.conf" >/dev/null
port = $S_PORT
unix_socket_directories = '$STANDBY'
mcp.audit_read_only_calls = log
CONF
as_pg rm -f "$STANDBY/server.log"
as_pg "$PG_BIN/pg_ctl" -D "$STANDBY" -l "$STANDBY/server.log" -w -t 60 start >/dev/null
[ "$(s "SELECT pg_is_in_recovery()")" = t ] || fail "the replica is not in recovery"
[ "$(p -c "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")" = 1 ] || fail "no streaming replica"
log "primary :$P_PORT, hot standby :$S_PORT streaming"

# 1. list_tools
tools="$(s standby_reader "SELECT string_agg(t -> 'function' ->> 'name', ',' ORDER BY t -> 'function' ->> 'name') FROM jsonb_array_elements(mcp.list_tools()) t")"
[ "$tools" = "context_retrieve,hoursOf,sql_query" ] || fail "list_tools on the standby: $tools"
mcp_tools="$(s standby_reader "SELECT jsonb_array_length(mcp.list_tools('chatbot', 'mcp'))")"
[ "$mcp_tools" = 3 ] || fail "list_tools (mcp) on the standby: $mcp_tools"
log "1. list_tools: $tools"

# 2. call_tool, recorded in the server log; refused at refuse
got="$(s standby_reader "SELECT mcp.call_tool('hoursOf', '{\"region\": \"Bayern\"}') -> 'content' -> 0 ->> 'text'")"
[[ "$got" == *35* ]] || fail "call_tool hoursOf on the standby: $got"
got="$(s standby_reader "SELECT mcp.call_tool('sql_query', '{\"query\": \"SELECT hours FROM public.tarif WHERE region = ''Hessen''\"}') ->> 'isError'")"
[ "$got" = false ] || fail "call_tool sql_query on the standby: $got"
as_root grep -q "tool call of hoursOf by standby_reader not audited (read-only transaction), status ok" "$STANDBY/server.log" \
  || fail "the standby's call is not in its server log"
out="$(PGOPTIONS="-c mcp.audit_read_only_calls=refuse" s_err "SELECT mcp.call_tool('hoursOf', '{\"region\": \"Bayern\"}')")"
grep -q "25006" <<<"$out" && grep -q "cannot be audited" <<<"$out" || fail "refuse: $out"
log "2. call_tool: function tool and sql_query answer (server log has the record); refuse -> 25006"

# 3. search and context_retrieve: the primary's answers
for mode in vector text hybrid; do
  got="$(s standby_reader "${search_sql/MODE/\'$mode\'}")"
  [ -n "$got" ] && [ "$got" = "${primary_search[$mode]}" ] || fail "search $mode: standby '$got', primary '${primary_search[$mode]}'"
done
got="$(s standby_reader "$retrieve_sql")"
[ "$got" = "$primary_retrieve" ] && [[ "$got" == *"35 hours"* ]] || fail "context_retrieve: standby '$got', primary '$primary_retrieve'"
log "3. search (vector, text, hybrid) and context_retrieve: as on the primary"

# 4. analyze with the embedding signal of examples nobody embedded yet
got="$(s standby_reader "SELECT (a -> 'plans' -> 0 ->> 'name') || ' ' || ((a -> 'plans' -> 0 -> 'why' ->> 'embedding') IS NOT NULL)
                           FROM mcp.analyze('How long is the weekly working time?') a")"
[ "$got" = "hours true" ] || fail "analyze on the standby: $got"
[ "$(s "SELECT count(*) FROM mcp.plan_example_embedding")" = 0 ] || fail "the standby stored example vectors?"
log "4. analyze: plan 'hours' with the embedding signal, nothing stored"

# 5. mcp.handle's read methods
handle() { s standby_reader "SELECT mcp.handle('$1'::jsonb)"; }
for req in \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"standby","version":"1"}}}' \
  '{"jsonrpc":"2.0","id":2,"method":"ping"}' \
  '{"jsonrpc":"2.0","id":3,"method":"tools/list"}' \
  '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"hoursOf","arguments":{"region":"Hessen"}}}' \
  '{"jsonrpc":"2.0","id":5,"method":"resources/list"}' \
  '{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"tarif://regions"}}' \
  '{"jsonrpc":"2.0","id":7,"method":"prompts/list"}' \
  '{"jsonrpc":"2.0","id":8,"method":"resources/templates/list"}'; do
  got="$(handle "$req")"
  grep -q '"result"' <<<"$got" && ! grep -q '"error"' <<<"$got" || fail "handle on the standby: $req -> $got"
  case "$req" in
    *tools/call*) grep -q '38' <<<"$got" && grep -q '"isError": false' <<<"$got" || fail "tools/call: $got" ;;
    *resources/read*) grep -q 'Bayern,Hessen' <<<"$got" || fail "resources/read: $got" ;;
  esac
done
prompt="$(s standby_reader "SELECT mcp.handle('{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"prompts/list\"}'::jsonb) -> 'result' -> 'prompts' -> 0 ->> 'name'")"
if [ -n "$prompt" ]; then
  got="$(handle "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"prompts/get\",\"params\":{\"name\":\"$prompt\"}}")"
  grep -q '"messages"' <<<"$got" || fail "prompts/get $prompt: $got"
fi
log "5. handle: initialize, ping, tools/list, tools/call, resources/list, resources/read, resources/templates/list, prompts/list, prompts/get${prompt:+ ($prompt)}"

# 6. chat: 25006 with the reason, before any LLM request
out="$(s_err "SELECT mcp.chat('How many hours in Bavaria?', 'chatbot')")"
grep -q "25006" <<<"$out" && grep -q "cannot run on a standby" <<<"$out" || fail "chat on the standby: $out"
[ "$(mock_requests ok)" = "$requests_before" ] || fail "the standby's chat reached the LLM"
log "6. chat: $(grep -m1 ERROR <<<"$out" | sed 's/^ERROR: *//'); the mock saw no request"

# 7. writes: 25006, cleanly
for sql in \
  "SELECT mcp.ingest('tarif', 'tv://sachsen', 'MTV Sachsen', 'In Sachsen gelten 38 Stunden.')" \
  "SELECT mcp.load_thesaurus('{\"terms\": [{\"id\": \"by\", \"kind\": \"region\", \"label\": \"Bayern\"}]}')" \
  "SELECT mcp.set_api_key('ok', 'sk-standby')" \
  "INSERT INTO mcp.tool (name, description, parameters, function) VALUES ('x', 'x', '{\"type\": \"object\"}', 'public.hours_of(text)')"; do
  out="$(s_err "$sql")"
  grep -q "ERROR:  25006" <<<"$out" || fail "not a clean 25006: $sql -> $out"
  ! grep -qiE "XX000|panic|\.rs:" <<<"$out" || fail "not clean: $sql -> $out"
done
log "7. ingest, load_thesaurus, set_api_key, INSERT INTO mcp.tool: 25006"

# 8. no crash; still replaying
[ "$(crash_count "$STANDBY")" = 0 ] || fail "a standby backend died: $(as_root grep -E 'terminated by signal' "$STANDBY/server.log")"
p -c "INSERT INTO public.tarif VALUES ('Sachsen', 38)" >/dev/null
for _ in $(seq 100); do
  [ "$(s "SELECT count(*) FROM public.tarif")" = 3 ] && break; sleep 0.1
done
[[ "$(s "SELECT mcp.call_tool('hoursOf', '{\"region\": \"Sachsen\"}') -> 'content' -> 0 ->> 'text'")" == *38* ]] \
  || fail "the standby does not replay the primary"
log "8. no backend died; the standby replays the primary"
log "hot standby: all checks passed"
