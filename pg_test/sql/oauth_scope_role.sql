-- mcp.oauth_scope_role: OAuth scopes of the HTTP bridge mapped to database roles. A scope must be
-- an RFC 6749 scope-token; the table is not readable by PUBLIC; the bridge's choice among a
-- token's scopes (highest priority, then text order) is the query it runs.
\set VERBOSITY terse
BEGIN;
SET client_min_messages = warning;
CREATE FUNCTION pg_temp.sqlstate_of(stmt text) RETURNS text LANGUAGE plpgsql AS
  $f$ BEGIN EXECUTE stmt; RETURN 'ok'; EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE || ': ' || SQLERRM; END $f$;
INSERT INTO mcp.oauth_scope_role (scope, role_name, priority) VALUES
  ('mcp:read', 'reader', 0), ('mcp:admin', 'admin', 10), ('https://db.example/mcp.read', 'reader', 0);
SELECT left(s, 12) AS scope, pg_temp.sqlstate_of(format('INSERT INTO mcp.oauth_scope_role (scope, role_name) VALUES (%L, %L)', s, 'r')) AS insert
  FROM unnest(ARRAY['has space', 'quote"', 'back\slash', '', repeat('x', 129), E'tab\there', 'ümlaut', 'mcp:read']) s;
-- the bridge's lookup: the listed scope with the highest priority decides
SELECT role_name FROM mcp.oauth_scope_role WHERE scope = ANY(ARRAY['mcp:read', 'mcp:admin', 'other'])
 ORDER BY priority DESC, scope LIMIT 1;
SELECT role_name FROM mcp.oauth_scope_role WHERE scope = ANY(ARRAY['other'])
 ORDER BY priority DESC, scope LIMIT 1;
-- PUBLIC cannot read it (the authenticator gets SELECT by grant)
SELECT has_table_privilege('public', 'mcp.oauth_scope_role', 'SELECT') AS public_may_read;
SELECT count(*) AS dumped FROM pg_extension e, unnest(e.extconfig) c WHERE e.extname = 'pg_mcp' AND c = 'mcp.oauth_scope_role'::regclass;
SELECT count(*) FILTER (WHERE description IS NULL) AS uncommented_columns
  FROM (SELECT col_description('mcp.oauth_scope_role'::regclass, attnum) AS description
          FROM pg_attribute WHERE attrelid = 'mcp.oauth_scope_role'::regclass AND attnum > 0 AND NOT attisdropped) c;
ROLLBACK;
