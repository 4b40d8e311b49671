-- Report tools (kind report): reviewed SQL with typed parameters, called through mcp.call_tool;
-- a report body is checked when it is registered.
\set VERBOSITY terse
BEGIN;
CREATE TABLE public.st_region (code text PRIMARY KEY, name text NOT NULL);
CREATE TABLE public.st_sale (id int PRIMARY KEY, region text REFERENCES public.st_region(code), amount numeric);
INSERT INTO public.st_region VALUES ('BY', 'Bayern'), ('NW', 'Nordrhein-Westfalen');
INSERT INTO public.st_sale SELECT g, CASE WHEN g % 2 = 0 THEN 'BY' ELSE 'NW' END, g * 10 FROM generate_series(1, 30) g;
CREATE ROLE st_reader NOLOGIN;
GRANT SELECT ON public.st_region, public.st_sale TO st_reader;
INSERT INTO mcp.interface (name, access_role) VALUES ('analysis', 'st_reader');
-- report tools: reviewed SQL, typed parameters in alphabetical order of their names
INSERT INTO mcp.tool (name, description, parameters, kind, body) VALUES
  ('sales_by_region', 'Sales of one region above an amount',
   '{"type": "object", "properties": {"region": {"type": "string"}, "min_amount": {"type": "number"}}, "required": ["region"]}',
   'report', 'SELECT id, amount FROM st_sale WHERE region = $2 AND amount >= coalesce($1, 0) ORDER BY id');
INSERT INTO mcp.interface_tool VALUES ('analysis', 'sales_by_region');
SET LOCAL ROLE st_reader;
SELECT regexp_replace(mcp.call_tool('sales_by_region', '{"region": "BY", "min_amount": 250}', 'analysis') -> 'content' -> 0 ->> 'text', '[0-9.]+ ms', 'N ms') AS text;
SELECT regexp_replace(mcp.call_tool('sales_by_region', '{"region": "BY'' OR true --"}', 'analysis') -> 'content' -> 0 ->> 'text', '[0-9.]+ ms', 'N ms') AS text;
RESET ROLE;
-- a report body must be one read-only query over existing objects
SAVEPOINT s;
INSERT INTO mcp.tool (name, description, kind, body) VALUES ('bad', 'x', 'report', 'UPDATE st_sale SET amount = 0');
ROLLBACK TO s;
INSERT INTO mcp.tool (name, description, kind, body) VALUES ('bad', 'x', 'report', 'SELECT * FROM st_missing');
ROLLBACK TO s;
INSERT INTO mcp.tool (name, description, parameters, kind, body) VALUES ('bad', 'x', '{"type": "object", "properties": {"a": {"type": "string"}}}', 'report', 'SELECT $1 || $2');
ROLLBACK TO s;
ROLLBACK;
