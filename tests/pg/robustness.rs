//! The JSON repair functions on the SQL surface and hostile JSON: bounded recursion,
//! bounded CPU, one defined outcome for U+0000, clean errors for jsonb nested beyond the limit,
//! schemas too complex to validate.

#[pgrx::pg_schema]
mod tests {
    use crate::tests::*;

    #[pg_test]
    fn repair_json_sql_surface() {
        assert_eq!(q(r#"SELECT mcp.repair_json('{"a": 1}')"#), json!({"a": 1}));
        assert_eq!(
            Spi::get_one::<JsonB>("SELECT mcp.repair_json(NULL)")
                .unwrap()
                .map(|j| j.0),
            None
        );
        let rep = q(r#"SELECT mcp.repair_json_report('{"a": 1}')"#);
        assert_eq!(
            rep,
            json!({"value": {"a": 1}, "repaired": false, "fixes": []})
        );
    }

    const CONCAT_CHAIN: &str = r#"'{"a": ' || repeat('"x" + ', 20000) || '"y"}'"#;

    #[pg_test]
    fn repair_functions_read_long_concatenation_chains_without_recursion() {
        // was a SIGSEGV (stack overflow, cluster restart)
        let v = q(&format!("SELECT mcp.repair_json({CONCAT_CHAIN})"));
        assert_eq!(v["a"].as_str().map(str::len), Some(20_001));
        let r = q(&format!("SELECT mcp.repair_json_report({CONCAT_CHAIN})"));
        assert_eq!(r["value"]["a"].as_str().map(str::len), Some(20_001));
        assert_eq!(r["repaired"], json!(true));
        let p = q(&format!("SELECT mcp.parse_llm_response({CONCAT_CHAIN})"));
        assert!(p.get("error").is_some(), "{p}");
        // inside an answer's tool-call arguments
        let body = format!(
        "SELECT mcp.parse_llm_response(jsonb_build_object('choices', jsonb_build_array(jsonb_build_object(
           'message', jsonb_build_object('role', 'assistant', 'tool_calls', jsonb_build_array(
             jsonb_build_object('id', 'c1', 'type', 'function', 'function',
               jsonb_build_object('name', 'f', 'arguments', {CONCAT_CHAIN})))))))::text)"
    );
        let p = q(&body);
        assert_eq!(p["tool_calls"][0]["complete"], json!(true), "{p}");
        assert_eq!(
            p["tool_calls"][0]["arguments"]["a"].as_str().map(str::len),
            Some(20_001)
        );
    }

    #[pg_test]
    fn repair_functions_refuse_deep_nesting_cleanly() {
        for shape in [
            "repeat('[', 5000)",
            "repeat('{\"a\": [', 5000)",
            "repeat('(', 5000)",
            "repeat('f(', 5000)",
            "repeat('[\"x\" + ', 5000)",
            "'data: ' || repeat('[', 5000)",
            "'```json' || chr(10) || repeat('{\"a\":', 5000)",
        ] {
            let e = err_of(&format!("SELECT mcp.repair_json({shape})"));
            assert!(
                e.starts_with("22P02") && e.contains("nesting deeper than 128"),
                "{shape}: {e}"
            );
            let r = q(&format!("SELECT mcp.repair_json_report({shape})"));
            assert_eq!(r["value"], Value::Null, "{shape}: {r}");
            assert!(
                r["error"]["message"]
                    .as_str()
                    .unwrap_or("")
                    .contains("nesting"),
                "{r}"
            );
            let p = q(&format!("SELECT mcp.parse_llm_response({shape})"));
            assert_eq!(p["finish_reason"], json!("error"), "{shape}: {p}");
        }
    }

    #[pg_test]
    fn postgres_stack_check_guards_the_repair_engine() {
        // With a small max_stack_depth the engine stops where PostgreSQL's own check says the stack
        // is nearly used up (stack_is_too_deep() at every nesting level), before MAX_DEPTH.
        let deep = "repeat('[{\"a\": ', 60)"; // 120 levels
        run("SET LOCAL max_stack_depth = '200kB'");
        let r = q(&format!("SELECT mcp.repair_json_report({deep})"));
        let e = err_of(&format!("SELECT mcp.repair_json({deep})"));
        run("RESET max_stack_depth");
        let msg = r["error"]["message"].as_str().unwrap_or("");
        assert_eq!(msg, "nesting too deep for the available stack", "{r}");
        assert!(e.starts_with("22P02") && e.contains("stack"), "{e}");
        // with the default the same input parses
        let r = q(&format!("SELECT mcp.repair_json_report({deep})"));
        assert_eq!(r["repaired"], json!(true), "{r}");
    }

    #[pg_test]
    fn nul_characters_become_replacement_characters() {
        // valid JSON, repaired JSON, keys, raw control character
        assert_eq!(
            q(r#"SELECT mcp.repair_json('"a\u0000b"')"#),
            json!("a\u{fffd}b")
        );
        assert_eq!(
            q(r#"SELECT mcp.repair_json('{"k\u0000": [1, "\u0000"]}')"#),
            json!({"k\u{fffd}": [1, "\u{fffd}"]})
        );
        let r = q(r#"SELECT mcp.repair_json_report('{''a'': "x\u0000",}')"#);
        assert_eq!(r["value"], json!({"a": "x\u{fffd}"}));
        let kinds: Vec<&str> = r["fixes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["kind"].as_str())
            .collect();
        assert!(
            kinds.contains(&"nul_character") && kinds.contains(&"quotes"),
            "{r}"
        );
        let r = q(r#"SELECT mcp.repair_json_report('"\u0000"')"#);
        assert_eq!(r["repaired"], json!(true), "{r}");
        // an answer: content and tool-call arguments (values and keys)
        let p = q(
            r#"SELECT mcp.parse_llm_response('{"choices":[{"message":{"role":"assistant","content":"hi\u0000",
        "tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"q\\u0000\": \"\\u0000\"}"}}]},
        "finish_reason":"tool_calls"}]}')"#,
        );
        assert_eq!(p["content"], json!("hi\u{fffd}"), "{p}");
        assert_eq!(
            p["tool_calls"][0]["arguments"],
            json!({"q\u{fffd}": "\u{fffd}"}),
            "{p}"
        );
        assert_eq!(p["tool_calls"][0]["complete"], json!(true), "{p}");
    }

    #[pg_test]
    fn chat_with_nul_in_answer_and_arguments_completes_with_audit() {
        chat_registry("nul_in_answer");
        mock_scenario(
            "nul_in_answer",
            &json!({"steps": [
                {"call": [{"id": "n1", "name": "getTarifVertrag",
                           "arguments": "{\"tarifgebiet\": \"Bay\\u0000ern\", \"fachbereich\": \"Metall\"}"}]},
                {"say": "Kein Vertrag\u{0} gefunden."}
            ]}),
        );
        let r = q("SELECT mcp.chat('Welche Tarifverträge gelten für Metall in Bayern?')");
        assert_eq!(r["status"], json!("completed"), "{r}");
        assert_eq!(r["answer"], json!("Kein Vertrag\u{fffd} gefunden."), "{r}");
        let id = r["run_id"].as_str().unwrap().to_string();
        let audit = Spi::get_one_with_args::<JsonB>(
            "SELECT jsonb_build_object(
           'runs', (SELECT count(*) FROM mcp.run WHERE run_id = $1::uuid),
           'requests', (SELECT count(*) FROM mcp.llm_request WHERE run_id = $1::uuid),
           'messages', (SELECT count(*) FROM mcp.message WHERE run_id = $1::uuid),
           'arguments', (SELECT arguments FROM mcp.tool_call WHERE run_id = $1::uuid),
           'call_status', (SELECT status FROM mcp.tool_call WHERE run_id = $1::uuid))",
            &[id.into()],
        )
        .unwrap()
        .unwrap()
        .0;
        assert_eq!(audit["runs"], json!(1), "{audit}");
        assert_eq!(audit["requests"], json!(2), "{audit}");
        assert!(audit["messages"].as_i64().unwrap_or(0) >= 4, "{audit}");
        assert_eq!(
            audit["arguments"]["tarifgebiet"],
            json!("Bay\u{fffd}ern"),
            "{audit}"
        );
        assert_eq!(audit["call_status"], json!("ok"), "{audit}");
    }

    #[pg_test]
    fn chat_with_a_concatenation_chain_in_tool_arguments() {
        chat_registry("concat_chain_arguments");
        let args = format!(
            "{{\"tarifgebiet\": {}\"Bayern\", \"fachbereich\": \"Metall\"}}",
            "\"x\" + ".repeat(20_000)
        );
        let deep = format!("{{\"tarifgebiet\": {}", "[".repeat(5_000));
        mock_scenario(
            "concat_chain_arguments",
            &json!({"steps": [
                {"call": [{"id": "k1", "name": "getTarifVertrag", "arguments": args},
                          {"id": "k2", "name": "getTarifVertrag", "arguments": deep}]},
                {"say": "fertig"}
            ]}),
        );
        let r = q("SELECT mcp.chat('Welche Tarifverträge gelten für Metall in Bayern?')");
        assert_eq!(r["status"], json!("completed"), "{r}");
        let id = r["run_id"].as_str().unwrap().to_string();
        let calls = Spi::get_one_with_args::<JsonB>(
        "SELECT jsonb_agg(jsonb_build_object('status', status, 'len', length(arguments->>'tarifgebiet'))
                          ORDER BY call_id)
           FROM mcp.tool_call WHERE run_id = $1::uuid",
        &[id.into()],
    )
    .unwrap()
    .unwrap()
    .0;
        // the chain is read (and fails validation only because the value is no Tarifgebiet: it runs)
        assert_eq!(calls[0], json!({"status": "ok", "len": 20_006}), "{calls}");
        // the 5,000-level arguments are refused as not valid JSON, and the model is told
        assert_eq!(calls[1]["status"], json!("invalid"), "{calls}");
    }

    #[pg_test]
    fn jsonb_arguments_nested_beyond_the_limit_get_a_clean_error() {
        demo_registry();
        let deep = "(repeat('[', 129) || repeat(']', 129))::jsonb";
        let ok = "(repeat('[', 128) || repeat(']', 128))::jsonb";
        let big = "'{\"a\": 1e400}'::jsonb";
        for call in [
        format!("SELECT mcp.call_tool('getTarifVertrag', jsonb_build_object('tarifgebiet', {deep}))"),
        format!("SELECT mcp.call_tool('getTarifVertrag', {deep})"),
        format!("SELECT mcp.validate_arguments('getTarifVertrag', {deep})"),
        format!("SELECT mcp.chat('hi', 'chatbot', NULL, jsonb_build_object('x', {deep}))"),
        format!("SELECT mcp.check_tool_definition('t', 'function', {deep}, NULL)"),
        format!(
            "INSERT INTO mcp.tool (name, description, parameters, kind) VALUES ('deep', 'd',
               jsonb_build_object('type', 'object', 'properties', jsonb_build_object('x', {deep})), 'builtin')"
        ),
    ] {
        let e = err_of(&call);
        assert!(
            e.starts_with("54000") && e.contains("more than 128 levels"),
            "{call}: {e}"
        );
    }
        // 128 levels are read (and then checked against the schema: not an object)
        let v = q(&format!(
            "SELECT mcp.validate_arguments('getTarifVertrag', {ok})"
        ));
        assert!(v.as_array().is_some_and(|a| !a.is_empty()), "{v}");
        // numbers beyond 64-bit floating point
        let e = err_of(&format!("SELECT mcp.call_tool('getTarifVertrag', {big})"));
        assert!(e.starts_with("22003") && e.contains("1000000000"), "{e}");
    }

    /// Not only the functions listed above: every C function of the extension with a jsonb
    /// parameter, called with a value nested 300 levels deep in that place (NULL elsewhere),
    /// answers with a result or an ERROR with a real SQLSTATE, never pgrx's panic about serde's
    /// recursion limit (XX000 "a text version of jsonb must be a valid json").
    #[pg_test]
    fn no_jsonb_parameter_panics_on_deep_values() {
        let deep = "(repeat('[', 300) || repeat(']', 300))::jsonb";
        let fns: Vec<(String, Vec<String>)> = Spi::connect(|c| {
            c.select(
                "SELECT p.proname::text,
                        ARRAY(SELECT pg_catalog.format_type(t, NULL) FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY u(t, o) ORDER BY o)
                   FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
                  WHERE p.pronamespace = 'mcp'::regnamespace AND l.lanname = 'c'
                    AND 'jsonb'::regtype = ANY (p.proargtypes::oid[])
                  ORDER BY 1",
                None,
                &[],
            )
            .unwrap()
            .map(|r| (r.get::<String>(1).unwrap().unwrap(), r.get::<Vec<String>>(2).unwrap().unwrap()))
            .collect()
        });
        let names: Vec<&str> = fns.iter().map(|(n, _)| n.as_str()).collect();
        for expected in [
            "audit_digest",
            "call_tool",
            "chat",
            "handle",
            "ingest",
            "validate_arguments",
        ] {
            assert!(
                names.contains(&expected),
                "{expected} not found among {names:?}"
            );
        }
        for (name, args) in &fns {
            let call = format!(
                "SELECT mcp.{name}({})",
                args.iter()
                    .map(|t| if t == "jsonb" {
                        deep.to_string()
                    } else {
                        format!("NULL::{t}")
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let outcome = crate::pg::in_subtransaction_catch_all(|| {
                Spi::run(&call).map_err(|e| e.to_string())
            });
            let error = match outcome {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(e),
                Err(info) => Some(format!("{}: {}", info.sqlstate, info.message)),
            };
            if let Some(e) = error {
                assert!(
                    !e.contains("text version of jsonb")
                        && !e.contains("recursion limit")
                        && !e.starts_with("XX000"),
                    "{call}: {e}"
                );
            }
        }
        // mcp.handle answers a JSON-RPC error object, not an ERROR.
        let r = q(&format!("SELECT mcp.handle(jsonb_build_object('jsonrpc', '2.0', 'id', 1, 'method', 'ping', 'params', {deep}))"));
        assert_eq!(r["error"]["code"], json!(-32600), "{r}");
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("more than 128 levels"),
            "{r}"
        );
    }

    /// Eight definitions, each an anyOf of seven references to the next (about a
    /// minute of validation before, immune to pg_terminate_backend).
    fn fan_out_schema() -> Value {
        q(
            r##"WITH d AS (SELECT i, ('[' || rtrim(repeat('{"$ref": "#/$defs/d' || (i + 1) || '"},', 7), ',') || ']')::jsonb AS refs
                      FROM generate_series(0, 7) i)
         SELECT jsonb_build_object('type', 'object', 'properties', '{"x": {"$ref": "#/$defs/d0"}}'::jsonb,
                  '$defs', (SELECT jsonb_object_agg('d' || i, jsonb_build_object('anyOf', refs)) FROM d)
                           || '{"d8": {"type": "string"}}')"##,
        )
    }

    #[pg_test]
    fn too_complex_schemas_are_refused_at_registration_and_when_validated() {
        demo_registry();
        let schema = fan_out_schema();
        let started = std::time::Instant::now();
        let insert = format!(
        "INSERT INTO mcp.tool (name, description, parameters, kind) VALUES ('fan', 'f', '{schema}', 'builtin')"
    );
        let e = err_of(&insert);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        assert!(e.starts_with("23514") && e.contains("too complex"), "{e}");
        assert!(e.contains("#/$defs/d"), "names the subschema: {e}");
        // a row that bypassed the trigger is refused where its schema is compiled
        run("ALTER TABLE mcp.tool DISABLE TRIGGER tool_row_check");
        run(&format!(
            "INSERT INTO mcp.tool (name, description, parameters, function) VALUES
           ('fan', 'f', '{schema}', 'public.get_tarif(text,text,int)')"
        ));
        run("ALTER TABLE mcp.tool ENABLE TRIGGER tool_row_check");
        run("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'fan')");
        let started = std::time::Instant::now();
        let v = q(r#"SELECT mcp.validate_arguments('fan', '{"x": 1}')"#);
        let c = q(r#"SELECT mcp.call_tool('fan', '{"x": 1}')"#);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        assert!(
            v[0]["message"]
                .as_str()
                .unwrap_or("")
                .contains("too complex"),
            "{v}"
        );
        assert_eq!(c["isError"], json!(true), "{c}");
    }

    #[pg_test]
    fn arguments_too_large_for_a_schema_are_refused_before_validation() {
        demo_registry();
        let v = q("SELECT mcp.validate_arguments('getTarifVertrag',
                 jsonb_build_object('tarifgebiet', 'B', 'fachbereich', 'M',
                   'max_rows', (SELECT jsonb_agg(i) FROM generate_series(1, 600000) i)))");
        assert!(
            v[0]["message"]
                .as_str()
                .unwrap_or("")
                .starts_with("arguments are too large"),
            "{v}"
        );
    }

    #[pg_test]
    fn registering_tools_needs_no_grant_on_the_check_function() {
        demo_registry();
        run("CREATE ROLE mcp_tool_admin NOLOGIN");
        run("GRANT SELECT, INSERT, UPDATE ON mcp.tool TO mcp_tool_admin");
        run("GRANT SELECT ON public.tarif TO mcp_tool_admin");
        // check_tool_definition is not executable by PUBLIC (only the trigger needs the checks)
        let public = Spi::get_one::<bool>(
        "SELECT has_function_privilege('mcp_tool_admin', 'mcp.check_tool_definition(text, text, jsonb, oid, text)', 'EXECUTE')",
    )
    .unwrap();
        assert_eq!(public, Some(false));
        run("SET LOCAL ROLE mcp_tool_admin");
        let denied = err_of(
            "SELECT mcp.check_tool_definition('t', 'builtin', '{\"type\": \"object\"}', NULL)",
        );
        // a non-superuser with INSERT on mcp.tool registers tools; bad ones are still refused
        let ok = err_of(
            r#"INSERT INTO mcp.tool (name, description, parameters, function) VALUES
           ('adminTool', 'ok', '{"type":"object","properties":{"tarifgebiet":{"type":"string"},"fachbereich":{"type":"string"}},
                            "required":["tarifgebiet","fachbereich"]}', 'public.get_tarif(text,text,int)')"#,
        );
        let report = err_of(
            r#"INSERT INTO mcp.tool (name, description, parameters, kind, body) VALUES
           ('adminReport', 'r', '{"type":"object","properties":{"g":{"type":"string"}}}', 'report',
            'SELECT titel FROM public.tarif WHERE gebiet = $1')"#,
        );
        let bad = err_of(
            r#"INSERT INTO mcp.tool (name, description, parameters, function) VALUES
           ('badSignature', 'bad', '{"type":"object","properties":{"nope":{"type":"string"}}}', 'public.get_tarif(text,text,int)')"#,
        );
        let updated =
            err_of("UPDATE mcp.tool SET description = 'changed' WHERE name = 'adminTool'");
        run("RESET ROLE");
        assert!(denied.starts_with("42501"), "{denied}");
        assert_eq!(ok, "");
        assert_eq!(report, "");
        assert!(bad.starts_with("23514"), "{bad}");
        assert_eq!(updated, "");
        let stamped = Spi::get_one::<bool>(
            "SELECT updated_at = now() FROM mcp.tool WHERE name = 'adminTool'",
        )
        .unwrap();
        assert_eq!(stamped, Some(true));
    }
}
