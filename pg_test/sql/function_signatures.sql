-- Function signatures in the registry: text (pg_upgrade refuses regprocedure columns), written
-- with the writer's search_path, stored schema-qualified, resolved again at every call.
\set VERBOSITY terse
BEGIN;
CREATE SCHEMA fs;
CREATE FUNCTION fs.find_tarif(region text, terms text[] DEFAULT NULL) RETURNS text
  LANGUAGE sql STABLE AS $$ SELECT 'tarif of ' || region $$;
CREATE FUNCTION fs.tarif_doc(id integer) RETURNS text LANGUAGE sql STABLE AS $$ SELECT 'doc ' || id $$;
INSERT INTO mcp.interface (name) VALUES ('chatbot');
SET LOCAL search_path = fs, public;
-- written without a schema, with type aliases and spaces: stored in one canonical form
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('findTarif', 'Tarif of a region',
   '{"type":"object","properties":{"region":{"type":"string"},"terms":{"type":"array"}},"required":["region"]}',
   'find_tarif(TEXT,  pg_catalog.text[])')
  RETURNING function;
INSERT INTO mcp.resource (uri, name, function) VALUES ('fs://doc/1', 'Doc 1', 'tarif_doc(int4)') RETURNING function;
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'findTarif');
RESET search_path;
SELECT mcp.call_tool('findTarif', '{"region": "Bayern"}') -> 'content' -> 0 ->> 'text' AS text;
-- a missing function is refused, naming it
SAVEPOINT s;
INSERT INTO mcp.tool (name, description, parameters, function) VALUES ('nope', 'x', '{"type":"object"}', 'fs.nope(text)');
ROLLBACK TO s;
INSERT INTO mcp.resource (uri, name, function) VALUES ('fs://nope', 'x', 'fs.tarif_doc(no_such_type)');
ROLLBACK TO s;
-- renamed after registration: no longer listed, a call names the signature, the view lists it
ALTER FUNCTION fs.find_tarif(text, text[]) RENAME TO find_tarif_v2;
ALTER FUNCTION fs.tarif_doc(integer) RENAME TO tarif_doc_v2;
SELECT mcp.list_tools() AS listed;
SELECT regexp_replace(mcp.call_tool('findTarif', '{"region": "Bayern"}') -> 'content' -> 0 ->> 'text', 'call id [0-9]+', 'call id N') AS text;
SELECT * FROM mcp.unresolved_functions ORDER BY registry, name;
-- the admin follows the rename
UPDATE mcp.tool SET function = 'fs.find_tarif_v2(text, text[])' WHERE name = 'findTarif' RETURNING function;
SELECT mcp.call_tool('findTarif', '{"region": "Bayern"}') -> 'content' -> 0 ->> 'text' AS text;
SELECT * FROM mcp.unresolved_functions ORDER BY registry, name;
-- resolve_function: to_regprocedure without the errors
SELECT mcp.resolve_function('fs.find_tarif_v2(text,text[])')::regprocedure AS resolved,
       mcp.resolve_function('fs.find_tarif_v2(no_such_type)') AS unknown_type,
       mcp.resolve_function('not a signature') AS not_a_signature;
ROLLBACK;
