//! mcp.chat through the SQL surface: tools run as the caller, parallel calls and the correction
//! round trip, getDialog (needs_input) and the continued session, the stop statuses (loop,
//! provider error, budget, iterations), cancel by statement_timeout, each tool_choice as sent,
//! context pruning, the checked options, and application_name while a tool runs.

#[pgrx::pg_schema]
mod tests {
    use crate::tests::*;

    #[pg_test]
    fn chat_other_provider_needs_provider_privilege() {
        chat_registry("tool_then_answer");
        run("INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('premium', 'openai', 'http://127.0.0.1:9/v1', 'gpt-4o')");
        run("DROP ROLE IF EXISTS mcp_chatter");
        run("CREATE ROLE mcp_chatter NOLOGIN");
        run("GRANT EXECUTE ON FUNCTION public.get_tarif(text, text, int) TO mcp_chatter");
        run("UPDATE mcp.interface SET access_role = 'mcp_chatter' WHERE name = 'chatbot'");
        run("SET LOCAL ROLE mcp_chatter");
        let e = err_of(r#"SELECT mcp.chat('hi', 'chatbot', NULL, '{"provider": "premium"}')"#);
        // naming the interface's own provider is fine
        let r = q(
            r#"SELECT mcp.chat('Welche Tarifverträge gelten für Metall in Bayern?', 'chatbot', NULL, '{"provider": "mock"}')"#,
        );
        run("RESET ROLE");
        assert!(
            e.starts_with("42501") && e.contains("UPDATE on mcp.provider"),
            "{e}"
        );
        assert_eq!(r["status"], "completed", "{r}");
        // a role that manages providers may choose any (it reaches the unreachable provider)
        run("SET LOCAL mcp.http_retries = 0");
        let r = q(r#"SELECT mcp.chat('hi', 'chatbot', NULL, '{"provider": "premium"}')"#);
        assert_eq!(r["status"], "failed", "{r}");
    }

    #[pg_test]
    fn chat_runs_tool_and_answers() {
        chat_registry("tool_then_answer");
        let r = q("SELECT mcp.chat('Welche Tarifverträge gelten für Metall in Bayern?')");
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(r["tool_calls"], 1);
        assert_eq!(r["iterations"], 2);
        assert_eq!(r["usage"]["prompt_tokens"], 250);
        // the answer echoes the tool result: the tool really ran against the table
        assert!(
            r["answer"].as_str().unwrap().contains("MTV Metall Bayern"),
            "{r}"
        );
        let run_id = r["run_id"].as_str().unwrap().to_string();
        let counts = Spi::get_one_with_args::<String>(
        "SELECT (SELECT status FROM mcp.run WHERE run_id = $1::uuid) || '/' ||
                (SELECT count(*) FROM mcp.llm_request WHERE run_id = $1::uuid) || '/' ||
                (SELECT count(*) FROM mcp.tool_call WHERE run_id = $1::uuid AND status = 'ok') || '/' ||
                (SELECT count(*) FROM mcp.message WHERE run_id = $1::uuid)",
        &[run_id.into()],
    )
    .unwrap()
    .unwrap();
        assert_eq!(counts, "completed/2/1/4");
        no_secret_in_audit();
    }

    #[pg_test]
    fn chat_parallel_calls_and_correction_round_trip() {
        chat_registry("parallel");
        let r = q("SELECT mcp.chat('zwei Fragen')");
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(r["tool_calls"], 2);
        run("UPDATE mcp.provider SET base_url = replace(base_url, '/s/parallel/', '/s/bad_args/')");
        let r = q("SELECT mcp.chat('falsche Argumente')");
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(r["tool_calls"], 1);
        assert_eq!(r["rejected_tool_calls"], 1);
        let st = Spi::get_one::<String>(
        "SELECT string_agg(status, ',' ORDER BY call_id) FROM mcp.tool_call WHERE run_id = (SELECT run_id FROM mcp.run ORDER BY started_at DESC LIMIT 1)",
    )
    .unwrap();
        assert_eq!(st.as_deref(), Some("invalid,ok"));
    }

    #[pg_test]
    fn chat_get_dialog_needs_input_then_continues() {
        chat_registry("dialog");
        let r = q("SELECT mcp.chat('Welcher Tarifvertrag gilt für Metall?')");
        assert_eq!(r["status"], "needs_input", "{r}");
        let session = r["session_id"].as_str().unwrap().to_string();
        let r2 = Spi::get_one_with_args::<JsonB>(
            "SELECT mcp.chat('Bayern', 'chatbot', $1::uuid)",
            &[session.clone().into()],
        )
        .unwrap()
        .unwrap()
        .0;
        assert_eq!(r2["status"], "completed", "{r2}");
        assert_eq!(r2["session_id"], session);
        assert_eq!(r2["answer"], "Für Bayern gilt der MTV Metall Bayern.");
        // another role cannot continue this session: to it, the session does not exist
        run("CREATE ROLE mcp_t_other");
        run("GRANT SELECT ON ALL TABLES IN SCHEMA public TO mcp_t_other");
        run("UPDATE mcp.interface SET access_role = 'mcp_t_other' WHERE name = 'chatbot'");
        run("SET LOCAL ROLE mcp_t_other");
        let e = err_of(&format!("SELECT mcp.chat('x', 'chatbot', '{session}')"));
        run("RESET ROLE");
        assert_eq!(e, format!("42704: chat session {session} does not exist"));
    }

    #[pg_test]
    fn chat_loop_detection_and_provider_error() {
        chat_registry("looping");
        let r = q("SELECT mcp.chat('loop')");
        assert_eq!(r["status"], "loop_detected", "{r}");
        run("UPDATE mcp.provider SET base_url = replace(base_url, '/s/looping/', '/s/server_error/')");
        run("SET LOCAL mcp.http_retries = 0");
        let r = q("SELECT mcp.chat('fail')");
        assert_eq!(r["status"], "failed", "{r}");
        assert_eq!(r["error"]["kind"], "server", "{r}");
        let r = q("SELECT mcp.chat('no tools', options => '{\"max_iterations\": 1}')");
        assert_eq!(r["status"], "failed");
        no_secret_in_audit();
    }

    #[pg_test]
    fn chat_statement_timeout_cancels_waiting_request() {
        chat_registry("never");
        let started = std::time::Instant::now();
        // What PostgreSQL does at the start of a statement with statement_timeout = 300ms:
        // (utils/timeout.h is not in pgrx's bindings; STATEMENT_TIMEOUT is the 4th TimeoutId.)
        extern "C-unwind" {
            fn enable_timeout_after(id: std::ffi::c_int, delay_ms: std::ffi::c_int);
        }
        unsafe { enable_timeout_after(3, 300) };
        let e = err_of("SELECT mcp.chat('hang')");
        let elapsed = started.elapsed();
        assert!(e.starts_with("57014"), "{e}");
        // liveness bound, not a benchmark: the request must not wait for the HTTP timeout (120 s)
        assert!(elapsed < std::time::Duration::from_secs(10), "{elapsed:?}");
    }

    // ------------------------------------------------------------------------------------------
    // Stops
    // ------------------------------------------------------------------------------------------

    #[pg_test]
    fn chat_budget_exceeded_by_interface_max_total_tokens() {
        demo_registry();
        scenario_provider("openai", "token_budget", "gpt-4o-mini");
        run("UPDATE mcp.interface SET max_total_tokens = 1500 WHERE name = 'chatbot'");
        let r = chat_with("Viel", json!({}));
        assert_eq!(r["status"], "budget_exceeded", "{r}");
        assert_eq!(r["error"]["kind"], "budget_exceeded");
        assert_eq!(r["iterations"], 1);
        assert_eq!(r["tool_calls"], 0);
        assert_eq!(r["usage"]["prompt_tokens"], 1400);
        // the requested call was answered "not executed" and audited as skipped
        let st = of_run(
            "SELECT jsonb_agg(status) FROM mcp.tool_call WHERE run_id = $1::uuid",
            &r,
        );
        assert_eq!(st, json!(["skipped"]));
        let v = of_run(
        "SELECT jsonb_build_object('status', status, 'tool_calls', tool_calls, 'rejected', rejected_tool_calls,
                                   'tokens', total_tokens, 'error_kind', error_kind)
           FROM mcp.recent_runs WHERE run_id = $1::uuid",
        &r,
    );
        assert_eq!(
            v,
            json!({"status": "budget_exceeded", "tool_calls": 0, "rejected": 1, "tokens": 1500,
               "error_kind": "budget_exceeded"})
        );
    }

    #[pg_test]
    fn chat_max_iterations_by_interface() {
        demo_registry();
        scenario_provider("openai", "max_iterations", "gpt-4o-mini");
        run("UPDATE mcp.interface SET max_iterations = 2 WHERE name = 'chatbot'");
        let r = chat_with("Zwei Runden", json!({}));
        assert_eq!(r["status"], "max_iterations", "{r}");
        assert_eq!(r["iterations"], 2);
        assert_eq!(r["tool_calls"], 1);
        assert_eq!(r["rejected_tool_calls"], 1);
        let st = of_run(
        "SELECT jsonb_agg(tool_call_id || ':' || status ORDER BY call_id) FROM mcp.tool_call WHERE run_id = $1::uuid",
        &r,
    );
        assert_eq!(st, json!(["i1:ok", "i2:skipped"]));
        // the option overrides the interface: one more round and the model answers
        let r = chat_with("Drei Runden", json!({"max_iterations": 3}));
        assert_eq!(r["status"], "completed", "{r}");
    }

    // ------------------------------------------------------------------------------------------
    // tool_choice: what was sent, request by request
    // ------------------------------------------------------------------------------------------

    fn tool_choices_sent(r: &Value) -> Value {
        of_run(
        "SELECT jsonb_agg(request_body->'tool_choice' ORDER BY iteration) FROM mcp.llm_request WHERE run_id = $1::uuid",
        r,
    )
    }

    #[pg_test]
    fn chat_tool_choice_each_mode_as_sent() {
        demo_registry();
        scenario_provider("openai", "tool_choice", "gpt-4o-mini");
        // auto (the interface default)
        let r = chat_with("Tarif?", json!({}));
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(tool_choices_sent(&r), json!(["auto", "auto"]));
        // required: first request only, then auto so the model can answer
        let r = chat_with("Tarif?", json!({"tool_choice": "required"}));
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(tool_choices_sent(&r), json!(["required", "auto"]));
        assert_eq!(r["tool_calls"], 1);
        // a named function, from the interface row
        run("UPDATE mcp.interface SET tool_choice = 'function:getTarifVertrag' WHERE name = 'chatbot'");
        let r = chat_with("Tarif?", json!({}));
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(
            tool_choices_sent(&r),
            json!([{"type": "function", "function": {"name": "getTarifVertrag"}}, "auto"])
        );
        // none (option over the interface): tools still listed, a call made anyway is refused
        let r = chat_with("Tarif?", json!({"tool_choice": "none"}));
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(tool_choices_sent(&r), json!(["none", "none"]));
        assert_eq!(r["tool_calls"], 0);
        assert_eq!(r["rejected_tool_calls"], 1);
        let listed = of_run(
            "SELECT to_jsonb(jsonb_array_length(request_body->'tools')) FROM mcp.llm_request
          WHERE run_id = $1::uuid AND iteration = 1",
            &r,
        );
        assert_eq!(listed, json!(4));
        let st = of_run(
            "SELECT jsonb_agg(status) FROM mcp.tool_call WHERE run_id = $1::uuid",
            &r,
        );
        assert_eq!(st, json!(["denied"]));
        // why the engine did not run it is kept with the row (the status alone says "denied")
        let why = of_run(
            "SELECT jsonb_agg(error_message) FROM mcp.tool_call WHERE run_id = $1::uuid",
            &r,
        );
        assert_eq!(why, json!(["tool_choice is none"]));
        // a function that is not offered: failed before anything is sent
        let r = chat_with("Tarif?", json!({"tool_choice": "function:nope"}));
        assert_eq!(r["status"], "failed", "{r}");
        assert_eq!(r["error"]["kind"], "config");
        assert_eq!(tool_choices_sent(&r), Value::Null);
    }

    // ------------------------------------------------------------------------------------------
    // Context management: pruning keeps every request under the window
    // ------------------------------------------------------------------------------------------

    #[pg_test]
    fn chat_pruning_keeps_requests_under_the_window() {
        demo_registry();
        // ~4.6 KB of hex words per document: four of them do not fit a 4000-token window.
        run("CREATE FUNCTION public.big_doc(n int) RETURNS text LANGUAGE sql IMMUTABLE AS
         $$ SELECT string_agg(md5(n::text || ':' || i::text), ' ') FROM generate_series(1, 140) i $$");
        run(
            r#"INSERT INTO mcp.tool (name, description, parameters, function) VALUES
         ('fetchDoc', 'Fetch document n', '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}',
          'public.big_doc(int)')"#,
        );
        run("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'fetchDoc')");
        // a model without a known tokenizer: the pessimistic estimate (3 characters per token)
        scenario_provider("openai", "pruning", "mock-model");
        run("UPDATE mcp.provider SET context_window = 4000, max_completion_tokens = 500 WHERE name = 'scenario'");
        let r = chat_with("Lies alle vier Dokumente", json!({}));
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(r["iterations"], 5);
        assert_eq!(r["tool_calls"], 4);
        assert_eq!(r["summaries"], 0);
        assert!(r["pruned_results"].as_u64().unwrap() >= 2, "{r}");
        let v = of_run(
        "SELECT jsonb_build_object(
             'requests', (SELECT count(*) FROM mcp.llm_request WHERE run_id = $1::uuid AND purpose = 'chat'),
             -- the mock reports request bytes / 4 as prompt tokens
             'max_prompt', (SELECT max(prompt_tokens) FROM mcp.llm_request WHERE run_id = $1::uuid),
             'max_body', (SELECT max(length(request_body::text)) FROM mcp.llm_request WHERE run_id = $1::uuid),
             'results', (SELECT sum(result_size) FROM mcp.tool_call WHERE run_id = $1::uuid),
             'pruned', (SELECT count(*) FROM mcp.message WHERE run_id = $1::uuid
                          AND message->>'content' LIKE '[tool result pruned:%'))",
        &r,
    );
        assert_eq!(v["requests"], 5, "{v}");
        // the tool results alone exceed the window (even at 4 bytes per token) …
        assert!(v["results"].as_i64().unwrap() > 4 * 4000, "{v}");
        // … but every request stayed under window - completion reserve
        assert!(v["max_prompt"].as_i64().unwrap() <= 4000 - 500, "{v}");
        assert!(v["max_body"].as_i64().unwrap() < 4 * (4000 - 500), "{v}");
        assert!(v["pruned"].as_i64().unwrap() >= 2, "{v}");
    }

    #[pg_test]
    fn chat_options_are_checked() {
        demo_registry();
        scenario_provider("openai", "tool_choice", "gpt-4o-mini");
        // a misspelt key, a wrong type or an out-of-range value is the caller's mistake: 22023
        for (opts, msg) in [
            (
                r#"{"max_iteration": 3}"#,
                r#"unknown option "max_iteration""#,
            ),
            (
                r#"{"max_iterations": "3"}"#,
                r#""max_iterations" must be an integer from 1 to 25"#,
            ),
            (
                r#"{"max_iterations": 26}"#,
                r#""max_iterations" must be an integer from 1 to 25"#,
            ),
            (
                r#"{"max_total_tokens": 0}"#,
                r#""max_total_tokens" must be an integer from 1"#,
            ),
            (r#"{"tool_choice": 1}"#, r#""tool_choice" must be a string"#),
            (r#"{"provider": null}"#, r#""provider" must be a string"#),
            (r#"[]"#, "must be a JSON object"),
        ] {
            let e = err_of(&format!("SELECT mcp.chat('x', options => '{opts}')"));
            assert!(
                e.starts_with("22023: mcp.chat options: ") && e.contains(msg),
                "{opts}: {e}"
            );
        }
        let e = err_of(r#"SELECT mcp.chat('x', options => '{"tool_choice": "some times!"}')"#);
        assert!(
            e.starts_with("22023") && e.contains("invalid tool_choice"),
            "{e}"
        );
        let e = err_of(r#"SELECT mcp.chat('x', options => '{"provider": "nope"}')"#);
        assert!(e.starts_with("42704"), "{e}");
        // nothing was audited for refused calls; valid options still work
        assert_eq!(
            Spi::get_one::<i64>(&format!("SELECT count(*) FROM {MY_RUNS} r")).unwrap(),
            Some(0)
        );
        let r = chat_with(
            "Tarif?",
            json!({"max_iterations": 25, "max_total_tokens": 100000, "provider": "scenario"}),
        );
        assert_eq!(r["status"], "completed", "{r}");
    }

    #[pg_test]
    fn chat_application_name_shows_the_run_while_a_tool_runs() {
        demo_registry();
        run(
            "CREATE FUNCTION public.current_app_name() RETURNS text LANGUAGE sql STABLE AS
         $$ SELECT current_setting('application_name') $$",
        );
        run(
            r#"INSERT INTO mcp.tool (name, description, parameters, function) VALUES
         ('whoAmI', 'application_name', '{"type":"object","properties":{}}', 'public.current_app_name()')"#,
        );
        run("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'whoAmI')");
        scenario_provider("openai", "application_name", "gpt-4o-mini");
        run("SET application_name = 'pg_test_client'");
        let r = chat_with("Wer bin ich?", json!({}));
        assert_eq!(r["status"], "completed", "{r}");
        // the tool saw mcp:<run id>:call:<call id>; the model echoed it back
        let call_id =
            Spi::get_one::<i64>("SELECT max(call_id) FROM mcp.tool_call WHERE tool = 'whoAmI'")
                .unwrap()
                .unwrap();
        assert_eq!(
            r["answer"],
            format!("mcp:{}:call:{call_id}", r["run_id"].as_str().unwrap())
        );
        let after = Spi::get_one::<String>("SELECT current_setting('application_name')").unwrap();
        assert_eq!(after.as_deref(), Some("pg_test_client"));
    }
}
