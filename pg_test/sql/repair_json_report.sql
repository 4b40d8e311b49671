-- mcp.repair_json_report: the repaired value with the fixes applied, or the error, as data.
\set VERBOSITY terse
SELECT mcp.repair_json_report('{"a": 1}');
SELECT mcp.repair_json_report('[1, 2, // two' || E'\n' || '3,]');
SELECT mcp.repair_json_report('<html><body>502 Bad Gateway</body></html>') -> 'value' AS value;
-- Hostile input: every outcome is defined (issue 9).
-- A "+" chain of 20,000 operands (read in one loop; it used to overflow the stack)
SELECT r -> 'fixes' -> 0 AS first_fix, jsonb_array_length(r -> 'fixes') AS fixes
  FROM mcp.repair_json_report('{"a": ' || repeat('"x" + ', 20000) || '"y"}') AS r;
-- nesting beyond 128 levels (brackets, objects, tuples, calls, fences, SSE): an error, never a crash
SELECT mcp.repair_json_report(repeat('{"a": (', 100000)) -> 'error' AS deep_report;
SELECT mcp.repair_json_report(E'```json\n' || repeat('[{"k": ', 70)) -> 'error' AS fenced_deep;
-- U+0000 (text and jsonb cannot hold it) becomes U+FFFD, reported as fix nul_character
SELECT mcp.repair_json_report('"\u0000"');
