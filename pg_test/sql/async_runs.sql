-- The SQL surface of asynchronous runs inside one transaction (rolled back, so no chat worker
-- ever takes these runs): option, argument and interface errors at submit, an unknown run, a queued run's
-- row and open status, its cancel, and the back-pressure caps (53400). Run ids masked.
\set VERBOSITY terse
SELECT mcp.chat_submit('q', 'chatbot', NULL, '{"max_iteration": 2}');
SELECT mcp.chat_submit(NULL);
SELECT mcp.chat_submit('q', 'no_such_interface');
SELECT mcp.chat_result('00000000-0000-0000-0000-000000000000');
SELECT mcp.chat_cancel('00000000-0000-0000-0000-000000000000');
BEGIN;
INSERT INTO mcp.interface (name, access_role) VALUES ('chatbot', 'public');
SELECT mcp.chat_submit('hello') IS NOT NULL AS submitted;
SELECT status, role_name = current_user AS mine, question, interface, session_id, options, result
  FROM mcp.async_run;
SELECT mcp.chat_result(run_id) - 'run_id' AS open_status FROM mcp.async_run;
SELECT mcp.chat_cancel(run_id) AS cancelled FROM mcp.async_run;
SELECT mcp.chat_result(run_id) - 'run_id' AS result FROM mcp.async_run;
SELECT mcp.chat_cancel(run_id) AS cancelled_again FROM mcp.async_run;
SET LOCAL mcp.chat_queue_max = 1;
SELECT mcp.chat_submit('two') IS NOT NULL AS submitted;
SELECT mcp.chat_submit('three');
ROLLBACK;
BEGIN;
INSERT INTO mcp.interface (name, access_role) VALUES ('chatbot', 'public');
SET LOCAL mcp.chat_queue_max_per_role = 0;
SELECT mcp.chat_submit('none');
ROLLBACK;
