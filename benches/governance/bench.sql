-- The cost of the budget check per LLM request: mcp.chat over a replay provider (one LLM
-- request per chat, no network) on an interface without a budget and on one with a role and an
-- interface budget, interleaved, timed inside the server. Run once with an empty audit and once
-- after :audit_rows rows in mcp.run and mcp.llm_request each (the check must not read them).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
INSERT INTO mcp.provider (name, kind, options) VALUES ('bench_replay', 'replay',
  '{"responses": ["{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":2}}"],
    "price_per_1k_prompt": 0.001, "price_per_1k_completion": 0.002}');
INSERT INTO mcp.interface (name, provider, access_role) VALUES
  ('bench_plain', 'bench_replay', 'public'), ('bench_budget', 'bench_replay', 'public');
INSERT INTO mcp.budget (scope, name, tokens_per_day, cost_per_day, requests_per_minute) VALUES
  ('interface', 'bench_budget', 1000000000000, 1000000000, 1000000000),
  ('role', current_user, 1000000000000, 1000000000, 1000000000);
-- budgets apply to the role on every interface: the plain interface runs as another role
DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'bench_nobudget') THEN CREATE ROLE bench_nobudget; END IF; END $$;
GRANT bench_nobudget TO current_user;

CREATE TEMP TABLE timing (audit_rows bigint, mode text, ms double precision);
CREATE FUNCTION pg_temp.round_of(n int, rows bigint) RETURNS void LANGUAGE plpgsql AS $f$
DECLARE t0 timestamptz; i int;
BEGIN
  FOR i IN 1..n LOOP
    SET LOCAL ROLE bench_nobudget;
    t0 := clock_timestamp();
    PERFORM mcp.chat('hi', 'bench_plain');
    INSERT INTO timing VALUES (rows, 'no budget', extract(epoch FROM clock_timestamp() - t0) * 1000);
    RESET ROLE;
    t0 := clock_timestamp();
    PERFORM mcp.chat('hi', 'bench_budget');
    INSERT INTO timing VALUES (rows, 'role + interface budget', extract(epoch FROM clock_timestamp() - t0) * 1000);
  END LOOP;
END $f$;
GRANT INSERT ON timing TO bench_nobudget;

SELECT pg_temp.round_of(50, 0);  -- warm-up
TRUNCATE timing;
SELECT pg_temp.round_of(:n, (SELECT count(*) FROM mcp.llm_request));

INSERT INTO mcp.run (run_id, role_name, status, started_at)
SELECT gen_random_uuid(), 'bench_other', 'completed', now() - g * interval '1 second' FROM generate_series(1, :audit_rows) g;
INSERT INTO mcp.llm_request (run_id, iteration, purpose, prompt_tokens, completion_tokens)
SELECT run_id, 1, 'chat', 10, 2 FROM mcp.run WHERE role_name = 'bench_other';
ANALYZE mcp.run; ANALYZE mcp.llm_request;
SELECT pg_temp.round_of(:n, (SELECT count(*) FROM mcp.llm_request));

SELECT to_char(audit_rows, 'FM9G999G999') AS audit_rows, mode, count(*) AS chats,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 4) AS p50_ms,
       round(avg(ms)::numeric, 4) AS mean_ms
  FROM timing GROUP BY 1, 2, audit_rows ORDER BY audit_rows, mode;
SELECT to_char(audit_rows, 'FM9G999G999') AS audit_rows,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode <> 'no budget')
            - percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'no budget'))::numeric, 4) AS budget_cost_p50_ms,
       round((avg(ms) FILTER (WHERE mode <> 'no budget') - avg(ms) FILTER (WHERE mode = 'no budget'))::numeric, 4) AS budget_cost_mean_ms
  FROM timing GROUP BY audit_rows ORDER BY audit_rows;
