-- Benchmark registry: three tools (jsonb, scalar and set-returning results) on a small table,
-- interface 'bench' (the model asks for all three in one answer, then answers) and 'plain'
-- (the model answers at once). :mock is the mock_llm base URL.
CREATE SCHEMA bench;
CREATE TABLE bench.item (id int PRIMARY KEY, name text NOT NULL, price numeric NOT NULL);
INSERT INTO bench.item SELECT i, 'item ' || i, i * 1.1 FROM generate_series(1, 200) i;
CREATE FUNCTION bench.get_item(id int) RETURNS jsonb LANGUAGE sql STABLE AS
  $$ SELECT to_jsonb(i) FROM bench.item i WHERE i.id = get_item.id $$;
CREATE FUNCTION bench.count_items(max_price numeric) RETURNS bigint LANGUAGE sql STABLE AS
  $$ SELECT count(*) FROM bench.item WHERE price <= max_price $$;
CREATE FUNCTION bench.item_names(prefix text) RETURNS TABLE (id int, name text) LANGUAGE sql STABLE AS
  $$ SELECT id, name FROM bench.item WHERE name LIKE prefix || '%' ORDER BY id LIMIT 5 $$;
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('get_item', 'One item by id', '{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}',
   'bench.get_item(int)'),
  ('count_items', 'Number of items up to a price', '{"type":"object","properties":{"max_price":{"type":"number"}},"required":["max_price"]}',
   'bench.count_items(numeric)'),
  ('item_names', 'Items whose name starts with a prefix', '{"type":"object","properties":{"prefix":{"type":"string"}},"required":["prefix"]}',
   'bench.item_names(text)');
INSERT INTO mcp.provider (name, kind, base_url, model) VALUES
  ('mock3', 'openai', :'mock' || '/s/three_calls/v1', 'gpt-4o-mini'),
  ('mockplain', 'openai', :'mock' || '/s/plain/v1', 'gpt-4o-mini');
INSERT INTO mcp.interface (name, provider) VALUES ('bench', 'mock3'), ('plain', 'mockplain');
INSERT INTO mcp.interface_tool SELECT 'bench', name FROM mcp.tool WHERE name IN ('get_item', 'count_items', 'item_names');
INSERT INTO mcp.interface_tool SELECT 'plain', name FROM mcp.tool WHERE name IN ('get_item', 'count_items', 'item_names');
