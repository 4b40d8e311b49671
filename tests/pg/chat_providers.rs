//! mcp.chat against each provider dialect and every fault the loopback mock LLM can produce:
//! Anthropic, Azure (and its API management error bodies), rate limits with Retry-After, server
//! errors, connection resets, cut-off tool calls, fenced JSON, a slow provider, oversized answers.
//! Scenarios are in tests/pg/scenarios.json; a scenario with "attempts" is used by exactly one
//! chat, because its attempt counter lives in the mock for the whole test run.

#[pgrx::pg_schema]
mod tests {
    use crate::tests::*;

    // ------------------------------------------------------------------------------------------
    // Providers
    // ------------------------------------------------------------------------------------------

    #[pg_test]
    fn chat_anthropic_provider() {
        demo_registry();
        scenario_provider("anthropic", "anthropic", "claude-test");
        let r = chat_with(
            "Welche Tarifverträge gelten für Metall in Bayern?",
            json!({}),
        );
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(r["tool_calls"], 1);
        assert!(
            r["answer"].as_str().unwrap().contains("MTV Metall Bayern"),
            "{r}"
        );
        // What went over the wire, as audited: Messages API shape.
        let reqs = of_run(
        "SELECT jsonb_agg(jsonb_build_object('url', url, 'body', request_body) ORDER BY iteration)
           FROM mcp.llm_request WHERE run_id = $1::uuid",
        &r,
    );
        assert!(reqs[0]["url"]
            .as_str()
            .unwrap()
            .ends_with("/s/anthropic/v1/messages"));
        let b0 = &reqs[0]["body"];
        assert!(
            b0["system"].as_str().unwrap().contains("Tool-use strategy"),
            "{b0}"
        );
        assert!(b0["tools"][0]["input_schema"]["type"] == "object", "{b0}");
        assert_eq!(b0["tool_choice"], json!({"type": "auto"}));
        let msgs = reqs[1]["body"]["messages"].as_array().unwrap();
        let last = &msgs[msgs.len() - 1];
        assert_eq!(last["role"], "user");
        assert_eq!(last["content"][0]["type"], "tool_result");
        assert_eq!(last["content"][0]["tool_use_id"], "toolu_1");
        // Headers as the mock saw them: the key only in x-api-key.
        let seen = mock_requests("anthropic");
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[0]["headers"]["x-api-key"], MOCK_KEY);
        assert_eq!(seen[0]["headers"]["anthropic-version"], "2023-06-01");
        assert!(seen[0]["headers"].get("authorization").is_none());
        no_secret_in_audit();
    }

    #[pg_test]
    fn chat_azure_provider() {
        demo_registry();
        scenario_provider("azure", "azure", "gpt4o-deploy");
        let r = chat_with("Tarif Metall Bayern?", json!({}));
        assert_eq!(r["status"], "completed", "{r}");
        assert!(
            r["answer"].as_str().unwrap().contains("MTV Metall Bayern"),
            "{r}"
        );
        let url = of_run(
            "SELECT to_jsonb(url) FROM mcp.llm_request WHERE run_id = $1::uuid AND iteration = 1",
            &r,
        );
        let url = url.as_str().unwrap();
        assert!(
            url.ends_with("/openai/deployments/gpt4o-deploy/chat/completions"),
            "{url}"
        );
        assert!(
            !url.contains("api-version"),
            "audit URL without query: {url}"
        );
        let seen = mock_requests("azure");
        assert_eq!(seen.len(), 2);
        assert!(seen[0]["path"]
            .as_str()
            .unwrap()
            .ends_with("/openai/deployments/gpt4o-deploy/chat/completions?api-version=2024-06-01"));
        assert_eq!(seen[0]["headers"]["api-key"], MOCK_KEY);
        assert!(seen[0]["headers"].get("authorization").is_none());
        no_secret_in_audit();
    }

    #[pg_test]
    fn chat_azure_apim_error_body_is_a_failed_status() {
        demo_registry();
        scenario_provider("azure", "apim_401", "gpt4o-deploy");
        let r = chat_with("Hallo", json!({}));
        assert_eq!(r["status"], "failed", "{r}");
        assert_eq!(r["error"]["kind"], "auth", "{r}");
        assert_eq!(r["error"]["http_status"], 401);
        assert!(r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Access denied due to invalid subscription key"));
        let row = of_run(
            "SELECT jsonb_build_object('status', r.status, 'kind', r.error->>'kind',
                'http', q.http_status, 'attempts', q.attempts, 'req_kind', q.error->>'kind')
           FROM mcp.run r JOIN mcp.llm_request q USING (run_id) WHERE r.run_id = $1::uuid",
            &r,
        );
        // 401 is not retried; the run row and the request row both hold the normalized error
        assert_eq!(
            row,
            json!({"status": "failed", "kind": "auth", "http": 401, "attempts": 1, "req_kind": "auth"})
        );
        no_secret_in_audit();
    }

    #[pg_test]
    fn azure_provider_without_deployment_is_refused() {
        let e = err_of(
        "INSERT INTO mcp.provider (name, kind, base_url, api_version) VALUES ('az', 'azure', 'https://x.openai.azure.com', '2024-10-21')",
    );
        assert!(
            e.starts_with("23514") && e.contains("provider_model_required"),
            "{e}"
        );
    }

    // ------------------------------------------------------------------------------------------
    // Faults of the mock LLM
    // ------------------------------------------------------------------------------------------

    /// (status, attempts, http_status) of the run's only LLM request.
    fn first_request_of(r: &Value) -> Value {
        of_run(
        "SELECT jsonb_build_object('attempts', attempts, 'http', http_status, 'error', error->>'kind',
                                   'code', error->>'code', 'repaired', repaired)
           FROM mcp.llm_request WHERE run_id = $1::uuid ORDER BY iteration LIMIT 1",
        r,
    )
    }

    #[pg_test]
    fn chat_rate_limited_with_retry_after_then_success() {
        demo_registry();
        scenario_provider("openai", "rate_limited", "gpt-4o-mini");
        let r = chat_with("Hallo", json!({}));
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(r["answer"], "after the wait");
        assert_eq!(
            first_request_of(&r),
            json!({"attempts": 2, "http": 200, "error": null, "code": null, "repaired": false})
        );
    }

    #[pg_test]
    fn chat_server_error_then_success() {
        demo_registry();
        scenario_provider("openai", "server_error_once", "gpt-4o-mini");
        let r = chat_with("Hallo", json!({}));
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(r["answer"], "after the 500");
        assert_eq!(first_request_of(&r)["attempts"], 2);
    }

    #[pg_test]
    fn chat_connection_reset() {
        demo_registry();
        // A reset is a network error: retried, and the retry succeeds.
        scenario_provider("openai", "connection_reset_once", "gpt-4o-mini");
        let r = chat_with("Hallo", json!({}));
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(r["answer"], "after the reset");
        assert_eq!(first_request_of(&r)["attempts"], 2);
        // Every attempt reset, no retries: failed with a network error, not an ERROR.
        scenario_provider("openai", "connection_reset", "gpt-4o-mini");
        run("SET LOCAL mcp.http_retries = 0");
        let r = chat_with("Hallo", json!({}));
        assert_eq!(r["status"], "failed", "{r}");
        assert_eq!(r["error"]["kind"], "network", "{r}");
        assert_eq!(first_request_of(&r)["attempts"], 1);
        no_secret_in_audit();
    }

    #[pg_test]
    fn chat_truncated_tool_calls_run_only_the_complete_one() {
        demo_registry();
        scenario_provider("openai", "truncated_calls", "gpt-4o-mini");
        let r = chat_with("Tarife?", json!({}));
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(r["tool_calls"], 1);
        assert_eq!(r["rejected_tool_calls"], 1);
        let calls = of_run(
        "SELECT jsonb_agg(jsonb_build_object('id', tool_call_id, 'status', status) ORDER BY call_id)
           FROM mcp.tool_call WHERE run_id = $1::uuid",
        &r,
    );
        // the executed call is written first (by the tool), the refused one after the batch
        let mut calls: Vec<Value> = calls.as_array().unwrap().clone();
        calls.sort_by_key(|c| c["id"].as_str().unwrap().to_string());
        assert_eq!(
            calls,
            vec![
                json!({"id": "call_a", "status": "ok"}),
                json!({"id": "call_b", "status": "invalid"})
            ]
        );
        assert_eq!(first_request_of(&r)["repaired"], true);
        // the model was told why call_b did not run
        let told = of_run(
            "SELECT to_jsonb(m.message->>'content') FROM mcp.message m
          WHERE m.run_id = $1::uuid AND m.message->>'tool_call_id' = 'call_b'",
            &r,
        );
        assert!(told.as_str().unwrap().contains("cut off"), "{told}");
    }

    #[pg_test]
    fn chat_fenced_json_answer_is_repaired() {
        demo_registry();
        scenario_provider("openai", "fenced_json", "gpt-4o-mini");
        let r = chat_with("Hallo", json!({}));
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(r["answer"], "Antwort aus dem Zaun");
        let fixes = of_run(
        "SELECT jsonb_build_object('repaired', repaired, 'raw_fenced', response_raw LIKE '```json%',
                                   'fixes', jsonb_array_length(fixes) > 0)
           FROM mcp.llm_request WHERE run_id = $1::uuid",
        &r,
    );
        assert_eq!(
            fixes,
            json!({"repaired": true, "raw_fenced": true, "fixes": true})
        );
    }

    #[pg_test]
    fn chat_slow_provider_times_out_as_a_status() {
        demo_registry();
        scenario_provider("openai", "slow_answer", "gpt-4o-mini");
        run("UPDATE mcp.provider SET timeout_ms = 200 WHERE name = 'scenario'");
        run("SET LOCAL mcp.http_retries = 0");
        let r = chat_with("Hallo", json!({}));
        assert_eq!(r["status"], "failed", "{r}");
        assert_eq!(r["error"]["kind"], "timeout", "{r}");
        assert_eq!(first_request_of(&r)["error"], "timeout");
    }

    #[pg_test]
    fn chat_connection_closed_before_headers_is_retried() {
        demo_registry();
        scenario_provider("openai", "closed_before_headers_once", "gpt-4o-mini");
        let r = chat_with("Hallo", json!({}));
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(r["answer"], "after the close");
        assert_eq!(first_request_of(&r)["attempts"], 2);
    }

    #[pg_test]
    fn chat_malformed_tool_arguments_are_repaired_and_run() {
        demo_registry();
        scenario_provider("openai", "malformed_arguments", "gpt-4o-mini");
        let r = chat_with("Tarif?", json!({}));
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(r["tool_calls"], 1);
        assert!(
            r["answer"].as_str().unwrap().contains("MTV Metall Bayern"),
            "{r}"
        );
        // the raw arguments stay in the audit, next to the repaired ones
        let call = of_run(
            "SELECT jsonb_build_object('raw', arguments_raw, 'args', arguments, 'status', status)
           FROM mcp.tool_call WHERE run_id = $1::uuid",
            &r,
        );
        assert_eq!(
            call,
            json!({"raw": "{'tarifgebiet': 'Bayern', 'fachbereich': 'Metall',}",
               "args": {"tarifgebiet": "Bayern", "fachbereich": "Metall"}, "status": "ok"}),
            "{call}"
        );
        assert_eq!(first_request_of(&r)["repaired"], true);
    }

    #[pg_test]
    fn chat_oversized_response_fails_at_the_cap() {
        demo_registry();
        scenario_provider("openai", "oversized_answer", "gpt-4o-mini");
        run("SET LOCAL mcp.max_response_bytes = 65536");
        let r = chat_with("Hallo", json!({}));
        assert_eq!(r["status"], "failed", "{r}");
        assert_eq!(r["error"]["kind"], "invalid_response", "{r}");
        assert_eq!(r["error"]["code"], "too_large", "{r}");
        assert!(
            r["error"]["message"].as_str().unwrap().contains("65536"),
            "{r}"
        );
        // not retried; the body was not stored
        let req = of_run(
        "SELECT jsonb_build_object('attempts', attempts, 'raw', response_raw) FROM mcp.llm_request WHERE run_id = $1::uuid",
        &r,
    );
        assert_eq!(req, json!({"attempts": 1, "raw": null}));
    }
}
