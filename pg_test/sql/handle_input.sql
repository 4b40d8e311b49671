-- mcp.handle: tools that ask the client for input (multi round-trip requests). The first round
-- answers with an InputRequiredResult; the call sent again with inputResponses runs the tool
-- again, which finds the answers with mcp.input_response(key).
\set VERBOSITY terse
BEGIN;
WITH t AS (DELETE FROM mcp.tool_call) SELECT;
CREATE FUNCTION public.hi_confirm(id int) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN mcp.input_response('confirm') IS NULL
    THEN jsonb_build_object('needs_input', true, 'input_requests', jsonb_build_object('confirm',
           jsonb_build_object('method', 'elicitation/create', 'params', jsonb_build_object(
             'message', 'Delete order ' || id || '?',
             'requestedSchema', '{"type":"object","properties":{"reason":{"type":"string"}},"required":["reason"]}'::jsonb))))
    WHEN mcp.input_response('confirm') ->> 'action' = 'accept'
    THEN jsonb_build_object('id', id, 'reason', mcp.input_response('confirm') #>> '{content,reason}')
    ELSE jsonb_build_object('id', id, 'declined', true) END $$;
CREATE FUNCTION public.hi_sample(q text) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN mcp.input_response('llm') IS NULL
    THEN jsonb_build_object('needs_input', true, 'input_requests', jsonb_build_object('llm',
           jsonb_build_object('method', 'sampling/createMessage', 'params', jsonb_build_object(
             'messages', jsonb_build_array(jsonb_build_object('role', 'user', 'content', jsonb_build_object('type', 'text', 'text', q))),
             'maxTokens', 50))))
    ELSE jsonb_build_array(jsonb_build_object('type', 'text', 'text', 'model said: ' || (mcp.input_response('llm') #>> '{content,text}')))
  END $$;
CREATE FUNCTION public.hi_bad() RETURNS jsonb LANGUAGE sql STABLE AS
  $$ SELECT '{"needs_input": true, "input_requests": {"x": {"method": "tools/call", "params": {}}}}'::jsonb $$;
INSERT INTO mcp.interface (name) VALUES ('chatbot');
INSERT INTO mcp.tool (name, description, parameters, function) VALUES
  ('hi_confirm', 'asks the user', '{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}', 'public.hi_confirm(integer)'),
  ('hi_bad', 'asks wrongly', '{"type":"object","properties":{}}', 'public.hi_bad()');
INSERT INTO mcp.tool (name, description, parameters, function, returns_content) VALUES
  ('hi_sample', 'asks the client''s model', '{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}', 'public.hi_sample(text)', true);
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'hi_confirm'), ('chatbot', 'hi_sample'), ('chatbot', 'hi_bad'), ('chatbot', 'getDialog');
CREATE FUNCTION pg_temp.modern(id int, method text, params jsonb, caps jsonb DEFAULT '{"elicitation": {}, "sampling": {}}') RETURNS jsonb LANGUAGE sql AS
  $$ SELECT mcp.handle(jsonb_build_object('jsonrpc', '2.0', 'id', id, 'method', method,
       'params', params || jsonb_build_object('_meta', jsonb_build_object(
         'io.modelcontextprotocol/protocolVersion', '2026-07-28',
         'io.modelcontextprotocol/clientCapabilities', caps))))
       #- '{result,_meta}' $$;

-- 2026-07-28, first round: the input request, resultType input_required
SELECT jsonb_pretty(pg_temp.modern(1, 'tools/call', '{"name": "hi_confirm", "arguments": {"id": 7}}'));
-- the same call with the client's answer: the tool ran again and used it
SELECT jsonb_pretty(pg_temp.modern(2, 'tools/call', '{"name": "hi_confirm", "arguments": {"id": 7},
  "inputResponses": {"confirm": {"action": "accept", "content": {"reason": "duplicate"}}}}'));
SELECT pg_temp.modern(3, 'tools/call', '{"name": "hi_confirm", "arguments": {"id": 7},
  "inputResponses": {"confirm": {"action": "decline"}}}') #> '{result,structuredContent}' AS declined;
-- a client that did not declare elicitation gets a tool error, not a request it cannot answer
SELECT regexp_replace((pg_temp.modern(4, 'tools/call', '{"name": "hi_confirm", "arguments": {"id": 7}}', '{}') -> 'result')::text, 'call id [0-9]+', 'call id N') AS no_capability;
-- sampling: a content tool's first round, then its content from the model's answer
SELECT pg_temp.modern(5, 'tools/call', '{"name": "hi_sample", "arguments": {"q": "2+2?"}}') #> '{result,inputRequests,llm}' AS sampling_request;
SELECT pg_temp.modern(6, 'tools/call', '{"name": "hi_sample", "arguments": {"q": "2+2?"},
  "inputResponses": {"llm": {"role": "assistant", "content": {"type": "text", "text": "4"}, "model": "m"}}}') -> 'result' AS sampled;
SELECT regexp_replace(pg_temp.modern(7, 'tools/call', '{"name": "hi_sample", "arguments": {"q": "x"}}', '{"elicitation": {}}') #>> '{result,content,0,text}', 'call id [0-9]+', 'call id N') AS no_sampling;
-- getDialog's missing parameters become one elicitation form; the answer is the call's result
SELECT jsonb_pretty(pg_temp.modern(8, 'tools/call', '{"name": "getDialog", "arguments": {"missing_parameters": ["region", "industry"], "context": "Counting firms."}}'));
SELECT pg_temp.modern(9, 'tools/call', '{"name": "getDialog", "arguments": {"missing_parameters": ["region"]},
  "inputResponses": {"dialog": {"action": "accept", "content": {"region": "Bayern"}}}}') #> '{result,structuredContent}' AS dialog_answer;
-- a malformed request of the tool: a tool error naming it; malformed inputResponses: -32602
SELECT regexp_replace(pg_temp.modern(10, 'tools/call', '{"name": "hi_bad", "arguments": {}}') #>> '{result,content,0,text}', 'call id [0-9]+', 'call id N') AS malformed;
SELECT pg_temp.modern(11, 'tools/call', '{"name": "hi_confirm", "arguments": {"id": 7}, "inputResponses": {"confirm": "yes"}}') -> 'error' AS bad_responses;
SELECT pg_temp.modern(12, 'tools/call', '{"name": "hi_confirm", "arguments": {"id": 7}, "inputResponses": [1]}') #> '{error,code}' AS bad_responses_array;
-- a handshake client (2025-11-25) gets the same InputRequiredResult; pg_mcp_bridge turns it
-- into server-to-client requests on the call's SSE stream
SELECT mcp.handle('{"jsonrpc":"2.0","id":13,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}}}}') #>> '{result,protocolVersion}' AS negotiated;
SELECT mcp.handle('{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"hi_confirm","arguments":{"id":1}}}') #> '{result,resultType}' AS legacy_result_type;
SELECT mcp.handle('{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"hi_confirm","arguments":{"id":1},
  "inputResponses":{"confirm":{"action":"accept","content":{"reason":"r"}}}}}') #> '{result,structuredContent}' AS legacy_answered;
-- outside mcp.handle there is no response
SELECT mcp.input_response('confirm') IS NULL AS outside;
-- every round is an audited call
SELECT tool, status, count(*) FROM mcp.tool_call GROUP BY 1, 2 ORDER BY 1, 2;
ROLLBACK;
