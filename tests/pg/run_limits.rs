//! The run's time budget through mcp.chat: options.deadline_ms and
//! mcp.interface.deadline_ms bound the whole run, retries included; a timed-out request is not
//! retried unless mcp.http_retry_timeouts is on.

#[pgrx::pg_schema]
mod tests {
    use crate::tests::*;

    #[pg_test]
    fn chat_deadline_spans_retries() {
        demo_registry();
        // Every attempt: 503 after 400 ms. Five retries take at least 6 x 400 ms = 2.4 s without the
        // deadline; with it the run ends at 1.2 s, after the second attempt started (400 ms + a
        // backoff of at most 500 ms).
        mock_scenario(
            "rl_slow503",
            &json!({"steps": [{"status": 503, "error": "overloaded", "delay_ms": 400}]}),
        );
        scenario_provider("openai", "rl_slow503", "mock-model");
        run("SET LOCAL mcp.http_retries = 5");
        let t0 = std::time::Instant::now();
        let r = chat_with("Schnell?", json!({"deadline_ms": 1200}));
        let took = t0.elapsed();
        assert_eq!(r["status"], "deadline_exceeded", "{r}");
        assert_eq!(r["error"]["kind"], "deadline_exceeded", "{r}");
        assert!(took < std::time::Duration::from_millis(2200), "{took:?}");
        assert!(
            mock_requests("rl_slow503").len() >= 2,
            "retried within the budget"
        );
        let status = of_run(
            "SELECT to_jsonb(status) FROM mcp.run WHERE run_id = $1::uuid",
            &r,
        );
        assert_eq!(status, "deadline_exceeded");
        // The interface's default applies without the option.
        run("UPDATE mcp.interface SET deadline_ms = 400 WHERE name = 'chatbot'");
        let t0 = std::time::Instant::now();
        let r = chat_with("Auch schnell?", json!({}));
        assert_eq!(r["status"], "deadline_exceeded", "{r}");
        assert!(
            t0.elapsed() < std::time::Duration::from_millis(1200),
            "{:?}",
            t0.elapsed()
        );
    }

    #[pg_test]
    fn chat_timed_out_request_is_not_retried_by_default() {
        demo_registry();
        mock_scenario(
            "rl_late",
            &json!({"steps": [{"attempts": [{"say": "late", "delay_ms": 3000}, {"say": "quick"}]}]}),
        );
        scenario_provider("openai", "rl_late", "mock-model");
        run("UPDATE mcp.provider SET timeout_ms = 300 WHERE name = 'scenario'");
        run("SET LOCAL mcp.http_retries = 2");
        let r = chat_with("Wartest du?", json!({}));
        assert_eq!(r["status"], "failed", "{r}");
        assert_eq!(r["error"]["kind"], "timeout", "{r}");
        assert_eq!(mock_requests("rl_late").len(), 1);
        // Switched on (superuser setting): the second attempt answers.
        run("SET LOCAL mcp.http_retry_timeouts = on");
        let r = chat_with("Und jetzt?", json!({}));
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(r["answer"], "quick", "{r}");
    }
}
