//! Tool discovery and calls: mcp.list_tools shapes and order, what each role sees, binding by
//! name, validation errors, failing tools, refused registry rows, comments on the registry.

#[pgrx::pg_schema]
mod tests {
    use crate::tests::*;

    #[pg_test]
    fn list_tools_shapes_and_order() {
        demo_registry();
        let openai = q("SELECT mcp.list_tools()");
        let names: Vec<&str> = openai
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            ["failTool", "getDialog", "getTarifVertrag", "listTarif"]
        );
        for t in openai.as_array().unwrap() {
            // OpenAI tools shape
            assert_eq!(t["type"], "function");
            let f = t["function"].as_object().unwrap();
            assert_eq!(f.len(), 3);
            assert!(f["name"].is_string() && f["description"].is_string());
            assert_eq!(f["parameters"]["type"], "object");
        }
        let mcp = q("SELECT mcp.list_tools('chatbot', 'mcp')");
        for t in mcp.as_array().unwrap() {
            // MCP Tool shape: name, description, inputSchema (type object), optional annotations
            assert!(t["name"].is_string() && t["description"].is_string());
            assert_eq!(t["inputSchema"]["type"], "object");
            assert!(t["annotations"]["readOnlyHint"].is_boolean());
        }
        let anth = q("SELECT mcp.list_tools('chatbot', 'anthropic')");
        assert_eq!(anth[0]["input_schema"]["type"], "object");
        assert_eq!(q("SELECT mcp.list_tools('analysis')"), json!([]));
    }

    #[pg_test]
    fn list_tools_unknown_interface_and_format() {
        demo_registry();
        assert_eq!(
            err_of("SELECT mcp.list_tools('nope')"),
            "42704: interface \"nope\" does not exist"
        );
        assert!(err_of("SELECT mcp.list_tools('chatbot', 'xml')")
            .starts_with("22023: unknown tool list format"));
    }

    #[pg_test]
    fn disabled_and_unmapped_tools_are_not_listed() {
        demo_registry();
        run("UPDATE mcp.tool SET enabled = false WHERE name = 'failTool'");
        run("DELETE FROM mcp.interface_tool WHERE tool = 'listTarif'");
        let names = q(
        "SELECT jsonb_agg(t->'function'->>'name') FROM jsonb_array_elements(mcp.list_tools()) t",
    );
        assert_eq!(names, json!(["getDialog", "getTarifVertrag"]));
        let r = q("SELECT mcp.call_tool('failTool', '{\"x\":1}')");
        assert_eq!(r["isError"], true);
        assert!(r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("not available"));
    }

    #[pg_test]
    fn roles_see_different_tools() {
        demo_registry();
        run("CREATE ROLE mcp_t_analyst");
        run("CREATE ROLE mcp_t_guest");
        // both may use the interface: what differs is EXECUTE on the function
        run("UPDATE mcp.interface SET access_role = 'public' WHERE name = 'chatbot'");
        run("REVOKE EXECUTE ON FUNCTION public.get_tarif(text,text,int) FROM PUBLIC");
        run("GRANT EXECUTE ON FUNCTION public.get_tarif(text,text,int) TO mcp_t_analyst");
        run("GRANT SELECT ON public.tarif TO mcp_t_analyst");
        run("SET LOCAL ROLE mcp_t_analyst");
        let a = q(
        "SELECT jsonb_agg(t->'function'->>'name') FROM jsonb_array_elements(mcp.list_tools()) t",
    );
        let ok = q("SELECT mcp.call_tool('getTarifVertrag', '{\"tarifgebiet\":\"Bayern\",\"fachbereich\":\"Metall\"}')");
        run("RESET ROLE");
        run("SET LOCAL ROLE mcp_t_guest");
        let g = q(
        "SELECT jsonb_agg(t->'function'->>'name') FROM jsonb_array_elements(mcp.list_tools()) t",
    );
        let denied = q("SELECT mcp.call_tool('getTarifVertrag', '{\"tarifgebiet\":\"Bayern\",\"fachbereich\":\"Metall\"}')");
        run("RESET ROLE");
        assert!(a.as_array().unwrap().contains(&json!("getTarifVertrag")));
        assert!(!g.as_array().unwrap().contains(&json!("getTarifVertrag")));
        assert_eq!(ok["isError"], false);
        assert_eq!(
            ok["structuredContent"]["result"][0]["titel"],
            "MTV Metall Bayern"
        );
        assert_eq!(denied["isError"], true);
        let status = Spi::get_one::<String>(
        "SELECT status || '/' || role_name FROM mcp.tool_call WHERE tool = 'getTarifVertrag' ORDER BY call_id DESC LIMIT 1",
    )
    .unwrap()
    .unwrap();
        assert_eq!(status, "denied/mcp_t_guest");
    }

    #[pg_test]
    fn call_tool_success_binds_by_name() {
        demo_registry();
        let r = q(
            r#"SELECT mcp.call_tool('getTarifVertrag', '{"fachbereich":"Chemie","tarifgebiet":"NRW","max_rows":5}')"#,
        );
        assert_eq!(r["isError"], false);
        assert_eq!(r["content"][0]["type"], "text");
        assert_eq!(
            r["structuredContent"],
            json!({"result": [{"id": 2, "titel": "MTV Chemie NRW"}]})
        );
        // A string value is data, never SQL.
        let r = q(
            r#"SELECT mcp.call_tool('getTarifVertrag', '{"fachbereich":"x'');DROP TABLE public.tarif;--","tarifgebiet":"NRW"}')"#,
        );
        assert_eq!(r["isError"], false);
        assert_eq!(
            Spi::get_one::<i64>("SELECT count(*) FROM public.tarif").unwrap(),
            Some(2)
        );
    }

    #[pg_test]
    fn call_tool_set_returning_renders_table() {
        demo_registry();
        let r = q("SELECT mcp.call_tool('listTarif', '{}')");
        let text = r["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("| id | gebiet | bereich | titel |"), "{text}");
        assert!(text.contains("MTV Chemie NRW"));
        assert_eq!(r["structuredContent"]["row_count"], 2);
        assert_eq!(r["structuredContent"]["more_rows"], false);
        run("SET LOCAL mcp.default_rows = 1");
        let r = q("SELECT mcp.call_tool('listTarif', '{}')");
        assert_eq!(r["structuredContent"]["row_count"], 1);
        assert_eq!(r["structuredContent"]["more_rows"], true);
    }

    #[pg_test]
    fn validation_error_kinds() {
        demo_registry();
        let v = |args: &str| {
            q(&format!(
                "SELECT mcp.validate_arguments('getTarifVertrag', '{args}')"
            ))
        };
        assert_eq!(
            v(r#"{"tarifgebiet":"NRW","fachbereich":"Chemie"}"#),
            json!([])
        );
        let missing = v(r#"{"fachbereich":"Chemie"}"#);
        assert_eq!(missing[0]["kind"], "missing");
        assert_eq!(missing[0]["message"], "parameter 'tarifgebiet' missing");
        let typ = v(r#"{"tarifgebiet":"NRW","fachbereich":"Chemie","max_rows":"25"}"#);
        assert_eq!(typ[0]["kind"], "type");
        assert!(typ[0]["message"]
            .as_str()
            .unwrap()
            .contains("must be an integer"));
        let unknown = v(r#"{"tarifgebiet":"NRW","fachbereich":"Chemie","foo":1}"#);
        assert_eq!(unknown[0]["kind"], "unknown");
        let range = v(r#"{"tarifgebiet":"NRW","fachbereich":"Chemie","max_rows":0}"#);
        assert_eq!(range[0]["kind"], "range");
        run(
            r#"UPDATE mcp.tool SET parameters = '{"type":"object","properties":{"tarifgebiet":{"type":"string","enum":["NRW","Bayern"]},
          "fachbereich":{"type":"string"},"max_rows":{"type":"integer"}},"required":["tarifgebiet","fachbereich"]}'
          WHERE name = 'getTarifVertrag'"#,
        );
        let en = v(r#"{"tarifgebiet":"Hessen","fachbereich":"Chemie"}"#);
        assert_eq!(en[0]["kind"], "enum");
        // call_tool refuses invalid arguments without running the function
        let r = q(r#"SELECT mcp.call_tool('getTarifVertrag', '{"fachbereich":"Chemie"}')"#);
        assert_eq!(r["isError"], true);
        assert!(r["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Tool call failed: parameter 'tarifgebiet' missing"));
        let st = Spi::get_one::<String>(&format!(
            "SELECT status FROM mcp.tool_call WHERE {MY_LAST_CALL}"
        ))
        .unwrap();
        assert_eq!(st.as_deref(), Some("invalid"));
        assert_eq!(
            err_of("SELECT mcp.validate_arguments('nope', '{}')"),
            "42704: tool \"nope\" does not exist"
        );
    }

    #[pg_test]
    fn failing_tool_is_error_with_detail_in_log() {
        demo_registry();
        let r = q(r#"SELECT mcp.call_tool('failTool', '{"x": 42}')"#);
        assert_eq!(r["isError"], true);
        let text = r["content"][0]["text"].as_str().unwrap();
        assert!(
            !text.contains("secret internal detail"),
            "detail leaked: {text}"
        );
        assert!(text.contains("call id"));
        let (state, msg) = Spi::get_two::<String, String>(
        "SELECT error_sqlstate, error_message FROM mcp.tool_call WHERE tool = 'failTool' ORDER BY call_id DESC LIMIT 1",
    )
    .unwrap();
        assert_eq!(state.as_deref(), Some("P0001"));
        assert_eq!(msg.as_deref(), Some("secret internal detail 42"));
        // The transaction is still usable after the failed tool.
        assert_eq!(Spi::get_one::<i32>("SELECT 1").unwrap(), Some(1));
    }

    #[pg_test]
    fn bad_tool_rows_are_refused() {
        demo_registry();
        let e = err_of(
            r#"INSERT INTO mcp.tool (name, description, parameters, function)
        VALUES ('bad', 'x', '{"type":"object","properties":{"a":{"type":"strin"}}}', 'public.fail_tool(int)')"#,
        );
        assert!(
            e.starts_with("23514: tool \"bad\" refused: parameters is not a valid JSON Schema"),
            "{e}"
        );
        let e = err_of(
            r#"INSERT INTO mcp.tool (name, description, parameters, function)
        VALUES ('nofn', 'x', '{"type":"object"}', 'public.does_not_exist(int)')"#,
        );
        assert!(
            e.contains("does_not_exist") && e.contains("does not exist"),
            "{e}"
        );
        let e = err_of(
            r#"INSERT INTO mcp.tool (name, description, parameters, function)
        VALUES ('bad name!', 'x', '{"type":"object"}', 'public.list_tarif()')"#,
        );
        assert!(
            e.starts_with("23514") && e.contains("tool_name_format"),
            "{e}"
        );
        let e = err_of(
            r#"INSERT INTO mcp.tool (name, description, parameters, function)
        VALUES ('mismatch', 'x', '{"type":"object","properties":{"y":{"type":"integer"}},"required":["y"]}', 'public.fail_tool(int)')"#,
        );
        assert!(
            e.contains("required property 'y' has no matching argument"),
            "{e}"
        );
        assert!(
            e.contains("argument 'x' of public.fail_tool(integer) has no default"),
            "{e}"
        );
        let e = err_of(
            r#"INSERT INTO mcp.tool (name, description, parameters) VALUES ('nofunc', 'x', '{"type":"object"}')"#,
        );
        assert!(
            e.contains("a tool of kind 'function' needs a function"),
            "{e}"
        );
    }

    #[pg_test]
    fn registry_tables_and_functions_are_commented() {
        let missing = Spi::get_one::<i64>(
        "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = 'mcp' AND c.relkind = 'r' AND obj_description(c.oid, 'pg_class') IS NULL",
    )
    .unwrap();
        assert_eq!(missing, Some(0));
        let cols = Spi::get_one::<i64>(
            "SELECT count(*) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
           JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = 'mcp' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
            AND col_description(c.oid, a.attnum) IS NULL",
        )
        .unwrap();
        assert_eq!(cols, Some(0));
        let funcs = Spi::get_one::<String>(
        "SELECT string_agg(p.oid::regprocedure::text, ', ') FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
          WHERE n.nspname = 'mcp' AND obj_description(p.oid, 'pg_proc') IS NULL",
    )
    .unwrap();
        assert_eq!(funcs, None, "functions without comment");
    }
}
