//! Audit bounds and secrets at the SQL surface: token counts as bigint (clamped), values cut to
//! mcp.audit_max_value_bytes with size and sha256 kept, and a provider that echoes the key in a
//! 200 answer.

#[pgrx::pg_schema]
mod tests {
    use crate::tests::*;

    fn i64_of_run(sql: &str, r: &Value) -> i64 {
        let id = r["run_id"].as_str().unwrap().to_string();
        Spi::get_one_with_args::<i64>(sql, &[id.into()])
            .unwrap()
            .unwrap()
    }

    #[pg_test]
    fn audit_token_counts_are_bigint_and_never_wrap() {
        demo_registry();
        scenario_provider("openai", "huge_usage", "mock-model");
        run(
            r#"UPDATE mcp.provider SET options = '{"price_per_1k_prompt": 0.15, "price_per_1k_completion": 0.6}' WHERE name = 'scenario'"#,
        );
        // 3e9 tokens each way: an i32 wrapped this to a negative count and a negative cost.
        let r = chat_with("Wie teuer?", json!({}));
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(r["usage"]["prompt_tokens"], 3_000_000_000u64);
        let v = of_run(
        "SELECT jsonb_build_object('p', prompt_tokens, 'c', completion_tokens, 't', total_tokens,
                                   'cost', estimated_cost)
           FROM mcp.recent_runs WHERE run_id = $1::uuid",
        &r,
    );
        // (3e9 * 0.15 + 3e9 * 0.6) / 1000
        assert_eq!(
            v,
            json!({"p": 3_000_000_000u64, "c": 3_000_000_000u64, "t": 6_000_000_000u64, "cost": 2_250_000.0})
        );
        assert_eq!(
        i64_of_run(
            "SELECT prompt_tokens + completion_tokens FROM mcp.llm_request WHERE run_id = $1::uuid",
            &r
        ),
        6_000_000_000
    );
        let types = Spi::get_one::<String>(
        "SELECT string_agg(DISTINCT format_type(atttypid, atttypmod), ',')
           FROM pg_attribute
          WHERE attrelid IN ('mcp.run'::regclass, 'mcp.llm_request'::regclass, 'mcp.tool_call'::regclass,
                             'mcp.recent_runs'::regclass)
            AND attname IN ('prompt_tokens', 'completion_tokens', 'total_tokens', 'result_size')",
    )
    .unwrap();
        assert_eq!(types.as_deref(), Some("bigint"));

        // 1e30 and negative counts: clamped to 0 .. 2^53-1, never negative, the view still adds up.
        scenario_provider("openai", "absurd_usage", "mock-model");
        let r = chat_with("Absurd?", json!({}));
        assert_eq!(r["status"], "completed", "{r}");
        let max = (1i64 << 53) - 1;
        assert_eq!(
            i64_of_run(
                "SELECT prompt_tokens FROM mcp.run WHERE run_id = $1::uuid",
                &r
            ),
            max
        );
        assert_eq!(
            i64_of_run(
                "SELECT completion_tokens FROM mcp.run WHERE run_id = $1::uuid",
                &r
            ),
            0
        );
        assert_eq!(
            i64_of_run(
                "SELECT prompt_tokens FROM mcp.llm_request WHERE run_id = $1::uuid",
                &r
            ),
            max
        );
        let v = of_run(
            "SELECT jsonb_build_object('t', total_tokens, 'cost_positive', estimated_cost > 0)
           FROM mcp.recent_runs WHERE run_id = $1::uuid",
            &r,
        );
        assert_eq!(v, json!({"t": max, "cost_positive": true}));
    }

    #[pg_test]
    fn audit_caps_a_48_mb_call_tool() {
        demo_registry();
        let mb48 = 48 * 1024 * 1024;
        let r = q(&format!(
            "SELECT mcp.call_tool('no_such_tool', jsonb_build_object('x', repeat('a', {mb48})))"
        ));
        assert_eq!(r["isError"], true);
        let row = q("SELECT jsonb_build_object(
                   'status', status,
                   'stored', pg_column_size(t.*),
                   'arguments', octet_length(arguments::text),
                   'bytes', clipped -> 'arguments' -> 'bytes',
                   'sha256', clipped -> 'arguments' ->> 'sha256',
                   'starts', left(arguments ->> 'x', 3))
                   FROM mcp.tool_call t WHERE call_id = currval('mcp.tool_call_call_id_seq'::regclass)");
        let limit = 1024 * 1024;
        assert_eq!(row["status"], "denied", "{row}");
        assert!(
            row["arguments"].as_i64().unwrap() <= limit + limit / 50,
            "{row}"
        );
        assert!(row["stored"].as_i64().unwrap() <= 2 * limit, "{row}");
        assert_eq!(row["starts"], "aaa");
        // size and sha256 of the original's canonical text {"x":"aaa…"}, computed by PostgreSQL
        assert_eq!(row["bytes"], mb48 + r#"{"x":""}"#.len());
        let expected = Spi::get_one::<String>(&format!(
        r#"SELECT encode(sha256(convert_to('{{"x":"' || repeat('a', {mb48}) || '"}}', 'UTF8')), 'hex')"#
    ))
    .unwrap()
    .unwrap();
        assert_eq!(row["sha256"], expected.as_str());
        // mcp.audit_digest gives the operator the same digest from the payload
        let digest = Spi::get_one::<String>(&format!(
            "SELECT mcp.audit_digest(jsonb_build_object('x', repeat('a', {mb48})))"
        ))
        .unwrap()
        .unwrap();
        assert_eq!(digest, expected);

        // the tool name is the caller's too; and a lower limit applies at once
        run("SET LOCAL mcp.audit_max_value_bytes = '64kB'");
        q("SELECT mcp.call_tool(repeat('n', 3000000), jsonb_build_object('x', repeat('b', 1000000)))");
        let row = q("SELECT jsonb_build_object('tool', octet_length(tool), 'args', octet_length(arguments::text),
                   'tool_bytes', clipped -> 'tool' -> 'bytes',
                   'tool_sha', clipped -> 'tool' ->> 'sha256' = mcp.audit_digest(repeat('n', 3000000)))
                   FROM mcp.tool_call WHERE call_id = currval('mcp.tool_call_call_id_seq'::regclass)");
        assert!(row["tool"].as_i64().unwrap() <= 65536, "{row}");
        assert!(row["args"].as_i64().unwrap() <= 65536 + 1400, "{row}");
        assert_eq!(row["tool_bytes"], 3_000_000);
        assert_eq!(row["tool_sha"], true);
        // only a superuser may change the limit
        run("CREATE ROLE mcp_t_nobody");
        run("SET LOCAL ROLE mcp_t_nobody");
        let e = err_of("SET mcp.audit_max_value_bytes = '1GB'");
        run("RESET ROLE");
        assert!(e.starts_with("42501"), "{e}");
    }

    #[pg_test]
    fn audit_caps_llm_bodies_and_messages() {
        demo_registry();
        // A 20,000-character answer as a literal body, so its sha256 is known here.
        let content = "y".repeat(20_000);
        let body = json!({"id": "c5", "object": "chat.completion", "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5}})
    .to_string();
        mock_scenario("big_answer", &json!({"steps": [{"body": body}]}));
        scenario_provider("openai", "big_answer", "mock-model");
        run("SET LOCAL mcp.audit_max_value_bytes = '4kB'");
        let question = format!("Frage {}", "z".repeat(30_000));
        let r = chat_with(&question, json!({}));
        assert_eq!(r["status"], "completed", "{r}");
        // the caller still gets the whole answer: only the audit is cut
        assert_eq!(r["answer"].as_str().unwrap().len(), 20_000);

        let req = of_run(
        "SELECT jsonb_build_object(
            'request', octet_length(request_body::text), 'response', octet_length(response_raw),
            'req_bytes', clipped -> 'request_body' -> 'bytes', 'req_sha', clipped -> 'request_body' ->> 'sha256',
            'resp_bytes', clipped -> 'response_raw' -> 'bytes', 'resp_sha', clipped -> 'response_raw' ->> 'sha256',
            'model', request_body ->> 'model', 'roles', jsonb_path_query_array(request_body, '$.messages[*].role'))
           FROM mcp.llm_request WHERE run_id = $1::uuid",
        &r,
    );
        assert!(req["request"].as_i64().unwrap() <= 4096 + 100, "{req}");
        assert!(req["response"].as_i64().unwrap() <= 4096, "{req}");
        // structure kept: the request is still a chat request
        assert_eq!(req["model"], "mock-model");
        assert_eq!(req["roles"], json!(["system", "user"]));
        // the response: exactly the body the mock sent
        assert_eq!(req["resp_bytes"], body.len());
        let sha = Spi::get_one_with_args::<String>(
            "SELECT encode(sha256(convert_to($1, 'UTF8')), 'hex')",
            &[body.clone().into()],
        )
        .unwrap()
        .unwrap();
        assert_eq!(req["resp_sha"], sha.as_str());
        // the request: exactly the body the mock received
        let sent = mock_requests("big_answer");
        let last = sent.last().unwrap();
        assert_eq!(req["req_bytes"], last["body_bytes"]);
        assert_eq!(req["req_sha"], last["body_sha256"]);

        // the question and answer of the run, and each message (role kept)
        let run_row = of_run(
        "SELECT jsonb_build_object('q', octet_length(question), 'a', octet_length(answer),
                'q_bytes', clipped -> 'question' -> 'bytes', 'a_bytes', clipped -> 'answer' -> 'bytes')
           FROM mcp.run WHERE run_id = $1::uuid",
        &r,
    );
        assert_eq!(
            run_row,
            json!({"q": run_row["q"], "a": run_row["a"], "q_bytes": question.len(), "a_bytes": 20_000})
        );
        assert!(run_row["q"].as_i64().unwrap() <= 4096 && run_row["a"].as_i64().unwrap() <= 4096);
        let msgs = of_run(
        "SELECT jsonb_agg(jsonb_build_object('role', message ->> 'role', 'size', octet_length(message::text),
                                             'cut', clipped -> 'message' -> 'bytes' IS NOT NULL) ORDER BY seq)
           FROM mcp.message WHERE run_id = $1::uuid",
        &r,
    );
        for m in msgs.as_array().unwrap() {
            assert!(m["size"].as_i64().unwrap() <= 4096 + 100, "{msgs}");
            assert_eq!(m["cut"], true, "{msgs}");
        }
        let roles: Vec<&str> = msgs
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["user", "assistant"]);
        // the session continues from the cut messages
        run("RESET mcp.audit_max_value_bytes");
        let r2 = Spi::get_one_with_args::<JsonB>(
            "SELECT mcp.chat('noch eine Frage', 'chatbot', $1::uuid)",
            &[r["session_id"].as_str().unwrap().into()],
        )
        .unwrap()
        .unwrap()
        .0;
        assert_eq!(r2["status"], "completed", "{r2}");
        let sent = mock_requests("big_answer");
        let roles: Vec<String> = sent.last().unwrap()["body"]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(roles, ["system", "user", "assistant", "user"]);
    }

    #[pg_test]
    fn chat_key_echoed_in_a_200_answer_reaches_no_column() {
        demo_registry();
        // Characters JSON and percent-encoding escape, so every form of the key differs.
        let key = r#"sk-pg"test/ECHO+key\9f8e7d"#;
        // ... as is, JSON-escaped once and twice, percent-encoded (how the mock echoes it)
        let forms = vec![
            key.to_string(),
            r#"sk-pg\"test/ECHO+key\\9f8e7d"#.to_string(),
            r#"sk-pg\\\"test/ECHO+key\\\\9f8e7d"#.to_string(),
            "sk-pg%22test%2FECHO%2Bkey%5C9f8e7d".to_string(),
        ];
        for kind in ["openai", "azure", "anthropic"] {
            scenario_provider(kind, "echo_headers", "mock-model");
            Spi::run_with_args("SELECT mcp.set_api_key('scenario', $1)", &[key.into()]).unwrap();
            let r = chat_with("Welche Header hast du geschickt?", json!({}));
            assert_eq!(r["status"], "completed", "{kind}: {r}");
            let answer = r["answer"].as_str().unwrap().to_string();
            assert!(answer.contains("[redacted]"), "{kind}: {answer}");
            for f in &forms {
                assert!(
                    !answer.contains(f.as_str()),
                    "{kind}: {f:?} in the answer: {answer}"
                );
                assert!(
                    !r.to_string().contains(f.as_str()),
                    "{kind}: {f:?} in the result"
                );
            }
            // the key did go out (in the header); only the echo is gone
            let sent = mock_requests("echo_headers");
            assert!(sent.last().unwrap()["headers"]
                .to_string()
                .contains("ECHO+key"));
        }
        // no column of any audit table holds any form of the key (text columns and jsonb, as text
        // and as JSON)
        let leaks = Spi::get_one_with_args::<i64>(
            "SELECT (SELECT count(*) FROM mcp.run t, unnest($1::text[]) f
                  WHERE strpos(t::text, f) > 0 OR strpos(to_jsonb(t)::text, f) > 0)
              + (SELECT count(*) FROM mcp.message t, unnest($1::text[]) f
                  WHERE strpos(t::text, f) > 0 OR strpos(to_jsonb(t)::text, f) > 0)
              + (SELECT count(*) FROM mcp.llm_request t, unnest($1::text[]) f
                  WHERE strpos(t::text, f) > 0 OR strpos(to_jsonb(t)::text, f) > 0)
              + (SELECT count(*) FROM mcp.tool_call t, unnest($1::text[]) f
                  WHERE strpos(t::text, f) > 0 OR strpos(to_jsonb(t)::text, f) > 0)",
            &[forms.clone().into()],
        )
        .unwrap();
        assert_eq!(leaks, Some(0));
        // and the echo did reach the audit (scrubbed), so the check above looked at it
        let echoed = Spi::get_one::<i64>(
        "SELECT count(*) FROM mcp.llm_request WHERE response_raw LIKE '%authorization%[redacted]%'
            OR response_raw LIKE '%api-key: [redacted]%'",
    )
    .unwrap();
        assert_eq!(echoed, Some(3));
    }
}
