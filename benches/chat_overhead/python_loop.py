"""The plain alternative of benches/chat_overhead: the same chat as mcp.chat, written as a Python
loop with the OpenAI SDK and psycopg. Two chat-completion requests to the mock (the tool is
offered, the model calls it once, then answers), the tool run as SQL, and the run's audit rows
(run, two LLM requests with their bodies, the tool call, the messages) written in one
transaction per chat, committed.

    python_loop.py BASE_URL DSN SECONDS

Prints the mean wall time of one chat in milliseconds.
"""
import json
import sys
import time
import uuid

import openai
import psycopg
from psycopg.types.json import Jsonb

TOOLS = [{"type": "function", "function": {
    "name": "get_item", "description": "One item by id",
    "parameters": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}}}]
MODEL = "gpt-4o-mini"


def chat(client, conn, question):
    run_id = uuid.uuid4()
    started = time.time()
    messages = [{"role": "user", "content": question}]
    requests = []
    calls = []
    answer = None
    with conn.cursor() as cur:
        for iteration in (1, 2):
            body = {"model": MODEL, "messages": messages, "tools": TOOLS, "tool_choice": "auto"}
            t0 = time.perf_counter()
            raw = client.chat.completions.with_raw_response.create(**body)
            resp = raw.parse()
            latency = (time.perf_counter() - t0) * 1000
            requests.append((iteration, json.dumps(body), raw.text, raw.status_code, latency, resp))
            msg = resp.choices[0].message
            if not msg.tool_calls:
                answer = msg.content
                messages.append({"role": "assistant", "content": msg.content})
                break
            messages.append({"role": "assistant", "content": msg.content, "tool_calls": [
                {"id": c.id, "type": "function",
                 "function": {"name": c.function.name, "arguments": c.function.arguments}}
                for c in msg.tool_calls]})
            for c in msg.tool_calls:
                args = json.loads(c.function.arguments)
                t1 = time.perf_counter()
                cur.execute("SELECT bench.get_item(%s)::text", (int(args["id"]),))
                result = cur.fetchone()[0]
                calls.append((c.id, c.function.name, args, result, (time.perf_counter() - t1) * 1000))
                messages.append({"role": "tool", "tool_call_id": c.id, "content": result})
        usage = [r[5].usage for r in requests]
        cur.execute(
            "INSERT INTO bench_py.run VALUES (%s, %s, %s, %s, %s, %s, to_timestamp(%s), clock_timestamp())",
            (run_id, question, answer, "completed", sum(u.prompt_tokens for u in usage),
             sum(u.completion_tokens for u in usage), started))
        cur.executemany(
            "INSERT INTO bench_py.llm_request VALUES (%s, %s, 'http://mock', %s::jsonb, %s, %s, %s, %s, %s, %s)",
            [(run_id, it, body, text, status, lat, r.usage.prompt_tokens, r.usage.completion_tokens,
              r.choices[0].finish_reason) for it, body, text, status, lat, r in requests])
        cur.executemany(
            "INSERT INTO bench_py.tool_call VALUES (%s, %s, %s, %s, 'ok', %s, %s)",
            [(run_id, cid, name, Jsonb(args), result, lat) for cid, name, args, result, lat in calls])
        cur.executemany(
            "INSERT INTO bench_py.message VALUES (%s, %s, %s, %s)",
            [(run_id, i, m["role"], Jsonb(m)) for i, m in enumerate(messages)])
    conn.commit()
    return answer


def main():
    base_url, dsn, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    client = openai.OpenAI(base_url=base_url, api_key="sk-bench-not-a-real-key", max_retries=0)
    with psycopg.connect(dsn) as conn:
        for _ in range(50):  # warm-up
            chat(client, conn, "What do we know about item 7?")
        n = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            assert chat(client, conn, "What do we know about item 7?")
            n += 1
        print(f"{(time.perf_counter() - t0) * 1000 / n:.3f}")


if __name__ == "__main__":
    main()
