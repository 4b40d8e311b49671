//! What one statement can make a backend do, whatever the model or the MCP client sends: tool
//! calls per answer and per run, JSON-RPC batches, and results per statement; and the smaller
//! sandbox classes (read-only function tools, session state, provider calls, entity sources,
//! resource readers).

#[pgrx::pg_schema]
mod tests {
    use crate::tests::*;

    fn count(sql: &str) -> i64 {
        Spi::get_one::<i64>(sql).expect("query ok").unwrap_or(0)
    }

    fn text_of(r: &Value) -> String {
        r["result"]["content"][0]["text"]
            .as_str()
            .or_else(|| r["content"][0]["text"].as_str())
            .unwrap_or_default()
            .to_string()
    }

    #[pg_test]
    fn chat_runs_at_most_the_cap_of_calls_of_one_answer() {
        demo_registry();
        let calls: Vec<Value> = (0..40)
            .map(|i| {
                json!({"id": format!("c{i}"), "name": "getTarifVertrag",
                       "arguments": {"tarifgebiet": format!("Gebiet {i}"), "fachbereich": "Metall"}})
            })
            .collect();
        mock_scenario(
            "sb_many",
            &json!({"steps": [{"call": calls}, {"say": "fertig"}]}),
        );
        scenario_provider("openai", "sb_many", "mock-model");
        run("SET LOCAL mcp.max_tool_calls_per_answer = 8");
        let r = chat_with("Alle Gebiete?", json!({}));
        assert_eq!(r["status"], "completed", "{r}");
        let ran = of_run(
            "SELECT to_jsonb(count(*)) FROM mcp.tool_call WHERE run_id = $1::uuid AND status <> 'skipped'",
            &r,
        );
        let skipped = of_run(
            "SELECT to_jsonb(count(*)) FROM mcp.tool_call WHERE run_id = $1::uuid AND status = 'skipped'",
            &r,
        );
        assert_eq!(ran, json!(8), "{r}");
        assert_eq!(skipped, json!(32), "{r}");
        // the second request answers every call (no orphaned call id)
        let reqs = mock_requests("sb_many");
        assert_eq!(reqs.len(), 2, "{reqs:?}");
        let second: Value = match &reqs[1]["body"] {
            Value::String(b) => serde_json::from_str(b).expect("a JSON body"),
            other => other.clone(),
        };
        let tools = second["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
            .count();
        assert_eq!(tools, 40);
    }

    #[pg_test]
    fn handle_refuses_batches_without_batching_and_large_batches() {
        demo_registry();
        run("UPDATE mcp.interface SET access_role = 'public' WHERE name = 'chatbot'");
        let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        // the latest revision (and an unset one) has no JSON-RPC batching
        run("SET LOCAL mcp.protocol_version = '2025-11-25'");
        let r = q(&format!("SELECT mcp.handle('[{ping},{ping}]')"));
        assert_eq!(r["error"]["code"], -32600, "{r}");
        assert!(r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no JSON-RPC batching"));
        // 2025-03-26 had batching, up to mcp.max_batch_items
        run("SET LOCAL mcp.protocol_version = '2025-03-26'");
        let r = q(&format!("SELECT mcp.handle('[{ping},{ping}]')"));
        assert_eq!(r.as_array().map(Vec::len), Some(2), "{r}");
        run("SET LOCAL mcp.max_batch_items = 3");
        let r = q(&format!(
            "SELECT mcp.handle('[{ping},{ping},{ping},{ping}]')"
        ));
        assert_eq!(r["error"]["code"], -32600, "{r}");
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("limit of 3"),
            "{r}"
        );
    }

    #[pg_test]
    fn handle_budgets_the_results_of_one_statement() {
        demo_registry();
        run("UPDATE mcp.interface SET access_role = 'public' WHERE name = 'chatbot'");
        run("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'sql_query')");
        // the tests run as a superuser, whom the SQL tool refuses by default
        run("SET LOCAL mcp.allow_superuser_sql = on");
        run("SET LOCAL mcp.protocol_version = '2025-03-26'");
        run("SET LOCAL mcp.max_statement_result_bytes = 65536");
        // a cell kept whole, so that one result is 100 kB
        run("SET LOCAL mcp.max_cell_chars = 100000");
        let call = |id: i32| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"sql_query","arguments":{{"query":"select repeat('x', 100000) as big"}}}}}}"#
            )
        };
        let batch = format!("[{},{},{}]", call(1), call(2), call(3));
        let r = q(&format!("SELECT mcp.handle($${batch}$$)"));
        let items = r.as_array().expect("batch answer");
        assert_eq!(items.len(), 3);
        assert!(items[0].get("result").is_some(), "{}", items[0]);
        for later in &items[1..] {
            assert!(
                later["error"]["message"]
                    .as_str()
                    .unwrap_or_default()
                    .contains("budget of 65536 bytes"),
                "{later}"
            );
        }
        // the next statement has its budget again
        let r = q(&format!("SELECT mcp.handle($${}$$)", call(4)));
        assert!(r.get("result").is_some(), "{r}");
    }

    #[pg_test]
    fn read_only_function_tools_cannot_write() {
        demo_registry();
        run("CREATE TABLE public.sb_written (v text)");
        run("CREATE FUNCTION public.sb_writer(v text) RETURNS text LANGUAGE plpgsql AS $$
             BEGIN INSERT INTO public.sb_written VALUES (v); NOTIFY sb_channel; RETURN 'written'; END $$");
        run(
            r#"INSERT INTO mcp.tool (name, description, parameters, function) VALUES
               ('sbWriter', 'writes', '{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]}',
                'public.sb_writer(text)')"#,
        );
        run("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'sbWriter')");
        // read_only (the default, advertised as readOnlyHint): PostgreSQL refuses the write
        let r = q(r#"SELECT mcp.call_tool('sbWriter', '{"v": "a"}')"#);
        assert_eq!(r["isError"], true, "{r}");
        assert_eq!(count("SELECT count(*) FROM public.sb_written"), 0);
        let listed = q("SELECT mcp.list_tools('chatbot', 'mcp')");
        let ann = listed
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "sbWriter")
            .map(|t| t["annotations"]["readOnlyHint"].clone());
        assert_eq!(ann, Some(json!(true)));
        // declared writing: it keeps its work
        run("UPDATE mcp.tool SET read_only = false WHERE name = 'sbWriter'");
        // a tool that acts: offered only where the interface allows it, and run without waiting
        // for an approval here
        run("UPDATE mcp.interface SET allow_acting_tools = true; UPDATE mcp.tool SET requires_approval = false WHERE NOT read_only");
        let r = q(r#"SELECT mcp.call_tool('sbWriter', '{"v": "b"}')"#);
        assert_eq!(r["isError"], false, "{r}");
        assert_eq!(count("SELECT count(*) FROM public.sb_written"), 1);
    }

    #[pg_test]
    fn session_state_and_provider_calls_are_refused_in_tools() {
        demo_registry();
        run("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'sql_query')");
        run("SET LOCAL mcp.allow_superuser_sql = on");
        for (query, function) in [
            ("select setseed(0.5)", "setseed"),
            ("select txid_current()", "txid_current"),
            ("select pg_current_xact_id()", "pg_current_xact_id"),
            ("select mcp.embed(array['x'], 'none')", "mcp.embed"),
            (
                "select * from mcp.search('c', 'x', 1, 'text', '{}')",
                "mcp.search",
            ),
            ("select mcp.analyze('Urlaub in Bayern')", "mcp.analyze"),
            (
                "select query_to_xml('select mcp.analyze(''Urlaub'')', true, false, '')",
                "mcp.analyze",
            ),
        ] {
            let r = q(&format!(
                "SELECT mcp.call_tool('sql_query', jsonb_build_object('query', {}))",
                pgrx::spi::quote_literal(query)
            ));
            let text = text_of(&r);
            assert!(
                text.contains(&format!(
                    "The function {function} is not allowed in this tool"
                )),
                "{query}: {text}"
            );
        }
    }

    #[pg_test]
    fn analyze_skips_an_entity_source_the_caller_cannot_read() {
        demo_registry();
        run("UPDATE mcp.interface SET access_role = 'public' WHERE name = 'chatbot'");
        run("CREATE TABLE public.sb_secret_terms (label text)");
        run("INSERT INTO public.sb_secret_terms VALUES ('Geheimprojekt')");
        run("CREATE TABLE public.sb_open_terms (label text)");
        run("INSERT INTO public.sb_open_terms VALUES ('Bayern')");
        run("GRANT SELECT ON public.sb_open_terms TO PUBLIC");
        run("INSERT INTO mcp.entity_source (kind, table_name, column_name) VALUES
             ('geheim', 'public.sb_secret_terms', 'label'), ('land', 'public.sb_open_terms', 'label')");
        run("CREATE ROLE sb_reader NOLOGIN");
        run("SET LOCAL ROLE sb_reader");
        let r = q("SELECT mcp.analyze('Geheimprojekt in Bayern')");
        run("RESET ROLE");
        assert_eq!(r["skipped_sources"][0]["kind"], "geheim", "{r}");
        assert!(
            r["entities"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["kind"] == "land"),
            "{r}"
        );
    }

    #[pg_test]
    fn resource_readers_run_in_the_sandbox() {
        demo_registry();
        run("UPDATE mcp.interface SET access_role = 'public' WHERE name = 'chatbot'");
        run("INSERT INTO mcp.resource (uri, name, query) VALUES
             ('x://locker', 'locker', $$SELECT query_to_xml('select pg_advisory_lock(4711)', true, false, '')::text$$)");
        let r = q(
            r#"SELECT mcp.handle('{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"x://locker"}}')"#,
        );
        assert!(r.get("error").is_some(), "{r}");
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains("not allowed"),
            "{r}"
        );
        assert_eq!(
            count("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"),
            0
        );
    }
}
