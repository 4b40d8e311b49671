-- mcp.repair_json: the JSON value in what an LLM wrote (fences, quotes, Python literals, comments,
-- trailing commas, cut-off text), or an error.
\set VERBOSITY terse
SELECT mcp.repair_json('{"a": [1, 2, {"b": null}]}');
SELECT mcp.repair_json(NULL) IS NULL AS null_in_null_out;
SELECT mcp.repair_json(E'Here you go:\n```json\n{"city": ''Berlin'', "days": 3,}\n```\nAnything else?');
SELECT mcp.repair_json('{"tool": "getTarifVertrag", "arguments": {"tarifgebiet": "Bay');
SELECT mcp.repair_json('{"a": True, "b": None, "c": "x" + "y"}');
SELECT mcp.repair_json('<html><body>502 Bad Gateway</body></html>');
-- Hostile input: every outcome is defined (issue 9).
-- A "+" chain of 20,000 operands (read in one loop; it used to overflow the stack)
SELECT length(mcp.repair_json('{"a": ' || repeat('"x" + ', 20000) || '"y"}') ->> 'a') AS chain_length;
-- nesting beyond 128 levels (brackets, objects, tuples, calls, fences, SSE): an error, never a crash
SELECT mcp.repair_json(repeat('[', 129));
SELECT mcp.repair_json(repeat('f(', 5000));
-- at the limit it parses
SELECT mcp.repair_json(repeat('[', 128) || repeat(']', 128)) = (repeat('[', 128) || repeat(']', 128))::jsonb AS at_limit;
-- U+0000 (text and jsonb cannot hold it) becomes U+FFFD, reported as fix nul_character
SELECT mcp.repair_json('{"k\u0000": "a\u0000b"}');
