-- Per-chat overhead benchmark: one tool on a small table, interface 'one' (the model asks for
-- one tool call, then answers). :mock is the mock_llm base URL. The Python loop of
-- python_loop.py writes its audit rows into schema bench_py (one transaction per chat).
CREATE SCHEMA bench;
CREATE TABLE bench.item (id int PRIMARY KEY, name text NOT NULL, price numeric NOT NULL);
INSERT INTO bench.item SELECT i, 'item ' || i, i * 1.1 FROM generate_series(1, 200) i;
CREATE FUNCTION bench.get_item(id int) RETURNS jsonb LANGUAGE sql STABLE AS
  $$ SELECT to_jsonb(i) FROM bench.item i WHERE i.id = get_item.id $$;
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('get_item', 'One item by id', '{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}',
   'bench.get_item(int)');
INSERT INTO mcp.provider (name, kind, base_url, model) VALUES
  ('mock1', 'openai', :'mock' || '/s/one_call/v1', 'gpt-4o-mini');
SELECT mcp.set_api_key('mock1', 'sk-bench-not-a-real-key');
INSERT INTO mcp.interface (name, provider) VALUES ('one', 'mock1');
INSERT INTO mcp.interface_tool VALUES ('one', 'get_item');

CREATE SCHEMA bench_py;
CREATE TABLE bench_py.run (run_id uuid PRIMARY KEY, question text, answer text, status text,
  prompt_tokens bigint, completion_tokens bigint, started_at timestamptz, finished_at timestamptz);
CREATE TABLE bench_py.llm_request (run_id uuid, iteration int, url text, request_body jsonb,
  response_raw text, http_status int, latency_ms float8, prompt_tokens bigint, completion_tokens bigint,
  finish_reason text);
CREATE TABLE bench_py.tool_call (run_id uuid, tool_call_id text, tool text, arguments jsonb,
  status text, result_text text, latency_ms float8);
CREATE TABLE bench_py.message (run_id uuid, seq int, role text, message jsonb);
