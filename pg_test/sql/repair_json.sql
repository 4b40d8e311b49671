-- JSON repair on the SQL surface.
\set VERBOSITY terse
SELECT mcp.repair_json('{"a": [1, 2, {"b": null}]}');
SELECT mcp.repair_json(NULL) IS NULL AS null_in_null_out;
SELECT mcp.repair_json(E'Here you go:\n```json\n{"city": ''Berlin'', "days": 3,}\n```\nAnything else?');
SELECT mcp.repair_json('{"tool": "getTarifVertrag", "arguments": {"tarifgebiet": "Bay');
SELECT mcp.repair_json('{"a": True, "b": None, "c": "x" + "y"}');
SELECT mcp.repair_json_report('{"a": 1}');
SELECT mcp.repair_json_report('[1, 2, // two' || E'\n' || '3,]');
SELECT mcp.repair_json('<html><body>502 Bad Gateway</body></html>');
SELECT mcp.repair_json_report('<html><body>502 Bad Gateway</body></html>') -> 'value' AS value;
