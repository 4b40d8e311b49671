//! The operator views mcp.recent_runs and mcp.tool_error_rates over a real chat: counts, cost,
//! latencies, their comments and that they are not readable by PUBLIC.

#[pgrx::pg_schema]
mod tests {
    use crate::tests::*;

    // ------------------------------------------------------------------------------------------
    // Operator views
    // ------------------------------------------------------------------------------------------

    #[pg_test]
    fn views_report_runs_with_cost_and_tool_rates() {
        demo_registry();
        scenario_provider("openai", "priced", "gpt-4o-mini");
        run(
            r#"UPDATE mcp.provider SET options = '{"temperature": 0, "price_per_1k_prompt": 0.15, "price_per_1k_completion": 0.6}'
           WHERE name = 'scenario'"#,
        );
        let r = chat_with("Was kostet das?", json!({}));
        assert_eq!(r["status"], "completed", "{r}");
        // the price keys are pg_mcp's own: never sent; the other options are
        let body = of_run(
            "SELECT request_body FROM mcp.llm_request WHERE run_id = $1::uuid AND iteration = 1",
            &r,
        );
        assert_eq!(body["temperature"], 0);
        assert!(
            body.get("price_per_1k_prompt").is_none()
                && body.get("price_per_1k_completion").is_none()
        );
        let v = of_run(
        "SELECT to_jsonb(v) - 'run_id' - 'session_id' - 'started_at' - 'finished_at' - 'llm_latency_ms'
                - 'tool_latency_ms' - 'wall_ms' - 'orchestration_ms'
           FROM mcp.recent_runs v WHERE run_id = $1::uuid",
        &r,
    );
        assert_eq!(
            v,
            json!({"interface": "chatbot", "provider": "scenario", "role_name": v["role_name"], "status": "completed",
               "question": "Was kostet das?", "iterations": 2, "llm_requests": 2, "llm_retries": 0,
               "tool_calls": 1, "tool_errors": 0, "rejected_tool_calls": 0,
               "prompt_tokens": 4000, "completion_tokens": 500, "total_tokens": 4500,
               // (4000 * 0.15 + 500 * 0.6) / 1000
               "estimated_cost": 0.9, "error_kind": null, "error_message": null,
               // the interface has no execution plans
               "plan": null, "plan_score": null, "plan_detail": null})
        );
        let t = of_run(
            "SELECT jsonb_build_object('wall', wall_ms >= llm_latency_ms + tool_latency_ms,
                                   'llm', llm_latency_ms > 0, 'tool', tool_latency_ms > 0,
                                   'orch', orchestration_ms >= 0)
           FROM mcp.recent_runs WHERE run_id = $1::uuid",
            &r,
        );
        assert_eq!(
            t,
            json!({"wall": true, "llm": true, "tool": true, "orch": true})
        );
        // without prices: no cost
        run("UPDATE mcp.provider SET options = '{}' WHERE name = 'scenario'");
        let cost = of_run(
            "SELECT to_jsonb(estimated_cost) FROM mcp.recent_runs WHERE run_id = $1::uuid",
            &r,
        );
        assert_eq!(cost, Value::Null);
        // a price that is not a number is refused
        let e = err_of(
            r#"UPDATE mcp.provider SET options = '{"price_per_1k_prompt": "cheap"}' WHERE name = 'scenario'"#,
        );
        assert!(
            e.starts_with("23514") && e.contains("provider_options_prices"),
            "{e}"
        );
        let e = err_of(
            r#"UPDATE mcp.provider SET options = '{"price_per_1k_completion": -1}' WHERE name = 'scenario'"#,
        );
        assert!(e.starts_with("23514"), "{e}");

        // tool_error_rates: direct calls that fail and are refused, of a tool only this test
        // calls (the view covers the whole table, and with durable audit other tests' rows are
        // committed in it while this one runs; the chat's call is counted in recent_runs above)
        run(
            r#"INSERT INTO mcp.tool (name, description, parameters, function) VALUES
            ('vwFailTool', 'always fails', '{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}',
             'public.fail_tool(int)')"#,
        );
        run("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'vwFailTool')");
        q(r#"SELECT mcp.call_tool('vwFailTool', '{"x": 1}')"#);
        q(r#"SELECT mcp.call_tool('vwFailTool', '{"x": "1"}')"#);
        q(r#"SELECT mcp.call_tool('vwFailTool', '{"x": 2}', 'analysis')"#);
        let rates = q(
        "SELECT jsonb_object_agg(tool, jsonb_build_object('calls', calls, 'ok', ok, 'error', error,
                 'invalid', invalid, 'denied', denied, 'error_rate', error_rate, 'failure_rate', failure_rate,
                 'has_p95', p95_latency_ms IS NOT NULL, 'has_last_error', last_error_at IS NOT NULL))
           FROM mcp.tool_error_rates WHERE tool = 'vwFailTool'",
    );
        assert_eq!(
            rates,
            json!({
                "vwFailTool": {"calls": 3, "ok": 0, "error": 1, "invalid": 1, "denied": 1, "error_rate": 1.0,
                             "failure_rate": 1.0, "has_p95": true, "has_last_error": true}
            })
        );
    }

    #[pg_test]
    fn views_are_commented_and_not_public() {
        let missing = Spi::get_one::<String>(
            "SELECT string_agg(c.relname || coalesce('.' || a.attname, ''), ', ')
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                                   AND col_description(c.oid, a.attnum) IS NULL
          WHERE n.nspname = 'mcp' AND c.relkind = 'v'
            AND (obj_description(c.oid, 'pg_class') IS NULL OR a.attname IS NOT NULL)",
        )
        .unwrap();
        assert_eq!(missing, None, "views or view columns without comment");
        let views = Spi::get_one::<i64>(
        "SELECT count(*) FROM pg_views WHERE schemaname = 'mcp' AND viewname IN ('recent_runs', 'tool_error_rates')",
    )
    .unwrap();
        assert_eq!(views, Some(2));
        run("CREATE ROLE mcp_t_viewer");
        run("SET LOCAL ROLE mcp_t_viewer");
        let e1 = err_of("SELECT * FROM mcp.recent_runs");
        let e2 = err_of("SELECT * FROM mcp.tool_error_rates");
        run("RESET ROLE");
        assert!(e1.starts_with("42501"), "{e1}");
        assert!(e2.starts_with("42501"), "{e2}");
    }
}
