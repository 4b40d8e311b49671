-- Issue: '"x" + ' repeated made the repair engine recurse ~13,000 deep (SIGSEGV, cluster restart).
SET ROLE attacker;
SELECT length(mcp.repair_json('{"a": ' || repeat('"x" + ', 20000) || '"y"}')::text);
SELECT (mcp.repair_json_report('{"a": ' || repeat('"x" + ', 20000) || '"y"}')) ? 'value';
SELECT (mcp.parse_llm_response('{"a": ' || repeat('"x" + ', 20000) || '"y"}')) ? 'error';
