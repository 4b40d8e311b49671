-- What the demo can do now (printed by scripts/demo.sh).
\pset format aligned
\pset border 1
\echo
\echo '== Tools the chatbot interface offers (mcp.list_tools, OpenAI format) =='
SELECT t->'function'->>'name' AS tool, left(t->'function'->>'description', 70) AS description
  FROM jsonb_array_elements(mcp.list_tools('chatbot')) AS t;
\echo
\echo '== A tool call, exactly as the chat loop makes it (mcp.call_tool) =='
SELECT r->'isError' AS "isError", jsonb_pretty(r->'structuredContent') AS "structuredContent"
  FROM mcp.call_tool('getTarifVertrag',
       '{"tarifgebiet": "Bayern", "fachbereich": "Metall", "search_terms": ["Urlaub"]}') AS r;
\echo
\echo '== A call the validation layer refuses (sent back to the model as a correction) =='
SELECT mcp.call_tool('getTarifVertrag', '{"fachbereich": "Metall"}')->'content'->0->>'text' AS correction;
\echo
\echo '== Repairing a broken LLM answer (mcp.repair_json_report) =='
SELECT jsonb_pretty(mcp.repair_json_report(E'```json\n{"tarifgebiet": ''Bayern'', "fachbereich": "Metall",}\n```')) AS repaired;
\echo
\echo '== The read-only SQL tool, a report tool and the schema tool (interface analysis, as role demo_analyst) =='
SET ROLE demo_analyst;
SELECT mcp.call_tool('sql_query', '{"query": "SELECT tarifgebiet, count(*) AS vertraege, min(gueltig_ab) AS seit FROM demo.tarifvertrag GROUP BY 1 ORDER BY 1"}', 'analysis')->'content'->0->>'text' AS sql_query;
SELECT mcp.call_tool('sql_query', '{"query": "SELECT 1; DELETE FROM demo.tarifvertrag"}', 'analysis')->'content'->0->>'text' AS refused;
SELECT mcp.call_tool('tarif_by_region', '{"region": "Bayern"}', 'analysis')->'content'->0->>'text' AS report_tool;
SELECT mcp.call_tool('schema_information', '{"schema": "demo"}', 'analysis')->'content'->0->>'text' AS schema_information;
RESET ROLE;
\echo
\echo '== Access control: which interfaces a role may use (mcp.interface.access_role) =='
SET ROLE demo_analyst;
SELECT current_user AS role, name AS interface, coalesce(access_role, '(closed)') AS access_role,
       mcp.may_use_interface(name) AS may_use
  FROM mcp.interface ORDER BY name;
SET ROLE demo_guest;
SELECT current_user AS role, name AS interface, coalesce(access_role, '(closed)') AS access_role,
       mcp.may_use_interface(name) AS may_use
  FROM mcp.interface ORDER BY name;
SELECT mcp.list_tools('analysis') AS "tools demo_guest sees in analysis",
       mcp.call_tool('sql_query', '{"query": "SELECT 1"}', 'analysis')->'content'->0->>'text' AS "its call";
RESET ROLE;
\echo
\echo '== Audit: tool calls (mcp.tool_call) =='
SELECT call_id, tool, status, role_name, round(latency_ms::numeric, 2) AS ms, left(result_preview, 50) AS preview
  FROM mcp.tool_call ORDER BY call_id;
\echo
\echo '== A full chat: mcp.chat() (LLM answers REPLAYED from a recorded transcript; tools run live on demo data) =='
\echo 'Question: Welche Tarifverträge gelten für die Metallindustrie in Bayern?'
SELECT c->>'status' AS status, c->>'iterations' AS iterations, c->>'tool_calls' AS tool_calls, c->>'answer' AS answer
  FROM mcp.chat('Welche Tarifverträge gelten für die Metallindustrie in Bayern?') AS c;
\echo
\echo '== Audit: the run (mcp.run), its LLM requests (mcp.llm_request) and tool calls (mcp.tool_call) =='
SELECT run_id, interface, provider, status, iterations, prompt_tokens, completion_tokens FROM mcp.run;
SELECT request_id, iteration, provider, finish_reason, http_status, attempts, prompt_tokens, completion_tokens, repaired
  FROM mcp.llm_request ORDER BY request_id;
SELECT call_id, tool, status, tool_call_id, left(arguments::text, 60) AS arguments, round(latency_ms::numeric, 2) AS ms
  FROM mcp.tool_call WHERE run_id IS NOT NULL ORDER BY call_id;
\echo
\echo '== Prompt analysis (mcp.analyze): entities from the thesaurus, plans ranked (issue 12) =='
SELECT q AS question,
       (SELECT string_agg(format('%s=%s «%s» %s', e->>'kind', e->>'term_id', e->>'text', e->>'score'), ', ')
          FROM jsonb_array_elements(a->'entities') e) AS entities,
       a->'plans'->0->>'name' AS best_plan, a->'plans'->0->>'score' AS score, a->'missing' AS missing
  FROM unnest(ARRAY['Welche Tarifverträge gelten im bayerischen Einzelhandel?',
                    'Urlaub im oeffentlicher dienst in NRW und Hessen',
                    'Wie viel Urlaub gibt es in der Metallindustrei?']) AS q,
       LATERAL mcp.analyze(q) AS a;
\echo
\echo '== The plan of the chat above (mcp.recent_runs.plan): pre-step tool call, prompt, model phase =='
SELECT plan, plan_score, jsonb_pretty(plan_detail->'steps') AS steps
  FROM mcp.recent_runs WHERE plan IS NOT NULL ORDER BY started_at LIMIT 1;
\echo
\echo '== An ask step: the region is missing, the plan asks for it without calling the model =='
SELECT c->>'status' AS status, c->>'iterations' AS iterations, c->>'answer' AS answer, c->'needs_input'->'missing_parameters' AS missing
  FROM mcp.chat('Wie viel Urlaub gibt es in der Metallindustrie?') AS c;
