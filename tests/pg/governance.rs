// Governance: the shipped roles, own runs through row-level security, the embedding models'
// access gate, tools that act, and approvals bound to the exact call.

#[pgrx::pg_schema]
mod tests {
    use crate::tests::*;
    use serde_json::{json, Value};

    fn count(sql: &str) -> i64 {
        Spi::get_one::<i64>(sql).unwrap().unwrap_or(0)
    }

    fn text(sql: &str) -> String {
        Spi::get_one::<String>(sql).unwrap().unwrap_or_default()
    }

    fn role(name: &str) {
        run(&format!("DROP ROLE IF EXISTS {name}"));
        run(&format!("CREATE ROLE {name} NOLOGIN"));
    }

    /// SQLSTATE of the error `sql` raises ("" when it succeeds).
    fn state(sql: &str) -> String {
        err_of(sql)
            .split(':')
            .next()
            .unwrap_or_default()
            .to_string()
    }

    #[pg_test]
    fn gov_shipped_roles_exist_and_cannot_log_in() {
        for r in ["mcp_admin", "mcp_auditor", "mcp_approver"] {
            assert_eq!(
                count(&format!(
                    "SELECT count(*) FROM pg_roles WHERE rolname = '{r}' AND NOT rolcanlogin AND NOT rolsuper"
                )),
                1,
                "{r}"
            );
        }
    }

    /// Each shipped role can do its job, and nothing more.
    #[pg_test]
    fn gov_each_role_does_its_job_and_nothing_more() {
        demo_registry();
        role("g_adm");
        role("g_aud");
        role("g_appr");
        run("GRANT mcp_admin TO g_adm");
        run("GRANT mcp_auditor TO g_aud");
        run("GRANT mcp_approver TO g_appr");
        // a run of another role, for the auditor to see
        run("INSERT INTO mcp.run (run_id, role_name, status) VALUES (gen_random_uuid(), 'somebody', 'completed')");
        let tool = r#"INSERT INTO mcp.tool (name, description, parameters, function) VALUES
            ('gAdmTool', 'x', '{"type":"object","properties":{}}', 'public.list_tarif()')"#;

        run("SET LOCAL ROLE g_adm");
        assert_eq!(state(tool), "");
        assert_eq!(
            state("INSERT INTO mcp.interface (name) VALUES ('g_iface')"),
            ""
        );
        assert_eq!(
            state("INSERT INTO mcp.interface_tool VALUES ('g_iface', 'gAdmTool')"),
            ""
        );
        assert_eq!(state("UPDATE mcp.plan SET enabled = enabled"), "");
        // the thesaurus (its trigger keeps the label and typo indexes as the writing role)
        assert_eq!(
            state("INSERT INTO mcp.thesaurus_term (id, kind, label, alt_labels) VALUES ('g_metall', 'fachbereich', 'Metallindustrie', '{Metaller}')"),
            ""
        );
        assert_eq!(
            count("SELECT count(*) FROM mcp.thesaurus_label WHERE term_id = 'g_metall'"),
            2
        );
        assert_eq!(state("SELECT count(*) FROM mcp.llm_request"), "42501");
        assert_eq!(state("SELECT count(*) FROM mcp.embedding_request"), "42501");
        assert_eq!(state("SELECT mcp.approve(gen_random_uuid(), 'x')"), "42501");
        assert_eq!(
            count("SELECT count(*) FROM mcp.run"),
            0,
            "the admin sees no other role's run"
        );
        run("RESET ROLE");

        run("SET LOCAL ROLE g_aud");
        assert_eq!(
            count("SELECT count(*) FROM mcp.run WHERE role_name = 'somebody'"),
            1
        );
        assert_eq!(state("SELECT count(*) FROM mcp.llm_request"), "");
        assert_eq!(state("SELECT count(*) FROM mcp.recent_runs"), "");
        assert_eq!(state("SELECT error_message FROM mcp.tool_call"), "");
        assert_eq!(state("SELECT mcp.audit_status()"), "");
        assert_eq!(state("SELECT count(*) FROM mcp.approval"), "");
        assert_eq!(
            state("INSERT INTO mcp.interface (name) VALUES ('g_aud_iface')"),
            "42501"
        );
        assert_eq!(state("DELETE FROM mcp.run"), "42501");
        assert_eq!(state("SELECT mcp.approve(gen_random_uuid(), 'x')"), "42501");
        run("RESET ROLE");

        run("SET LOCAL ROLE g_appr");
        // may call the deciding functions (no such call: 42704, not a privilege error)
        assert_eq!(state("SELECT mcp.approve(gen_random_uuid(), 'x')"), "42704");
        assert_eq!(
            state("SELECT mcp.reject(gen_random_uuid(), 'x', 'no')"),
            "42704"
        );
        assert_eq!(state("SELECT count(*) FROM mcp.llm_request"), "42501");
        assert_eq!(
            state("INSERT INTO mcp.interface (name) VALUES ('g_appr_iface')"),
            "42501"
        );
        assert_eq!(
            state("UPDATE mcp.approval SET status = 'approved'"),
            "42501"
        );
        assert_eq!(count("SELECT count(*) FROM mcp.run"), 0);
        run("RESET ROLE");
    }

    /// A role reads its own runs, tool calls and messages, and not another role's.
    #[pg_test]
    fn gov_a_user_sees_own_runs_and_not_another() {
        chat_registry("tool_then_answer");
        run("UPDATE mcp.interface SET access_role = 'public' WHERE name = 'chatbot'");
        role("g_alice");
        role("g_bob");
        run("GRANT SELECT ON public.tarif TO g_alice, g_bob");
        let mut runs = Vec::new();
        for r in ["g_alice", "g_bob"] {
            run(&format!("SET LOCAL ROLE {r}"));
            let out = q("SELECT mcp.chat('Metall in Bayern?')");
            assert_eq!(out["status"], "completed", "{out}");
            runs.push(out["run_id"].as_str().unwrap().to_string());
            run("RESET ROLE");
        }
        for (i, r) in ["g_alice", "g_bob"].iter().enumerate() {
            let mine = &runs[i];
            run(&format!("SET LOCAL ROLE {r}"));
            assert_eq!(count("SELECT count(*) FROM mcp.run"), 1, "{r}");
            assert_eq!(text("SELECT run_id::text FROM mcp.run"), *mine, "{r}");
            assert_eq!(text("SELECT run_id::text FROM mcp.my_runs"), *mine, "{r}");
            assert_eq!(count("SELECT count(*) FROM mcp.tool_call"), 1, "{r}");
            assert_eq!(
                count(&format!(
                    "SELECT count(*) FROM mcp.tool_call WHERE run_id = '{mine}'"
                )),
                1
            );
            assert!(count("SELECT count(*) FROM mcp.message") >= 3, "{r}");
            assert_eq!(
                count(&format!(
                    "SELECT count(*) FROM mcp.message WHERE run_id <> '{mine}'"
                )),
                0,
                "{r}"
            );
            // the operator-only detail stays unreadable
            assert_eq!(state("SELECT error_message FROM mcp.tool_call"), "42501");
            assert_eq!(state("SELECT count(*) FROM mcp.llm_request"), "42501");
            // and nothing can be written
            assert_eq!(state("DELETE FROM mcp.run"), "42501");
            run("RESET ROLE");
        }
        // the superuser's own view is its own runs too (other tests' runs as the superuser,
        // committed by the durable audit worker, may be there: only these two are asked for)
        let both = format!("('{}', '{}')", runs[0], runs[1]);
        assert_eq!(
            count(&format!(
                "SELECT count(*) FROM mcp.my_runs WHERE run_id IN {both}"
            )),
            0
        );
        assert_eq!(
            count(&format!(
                "SELECT count(*) FROM mcp.run WHERE run_id IN {both}"
            )),
            2
        );
    }

    /// An embedding model is closed by default; its access_role opens it.
    #[pg_test]
    fn gov_embedding_model_closed_to_a_role_without_its_access_role() {
        run("SELECT pg_advisory_xact_lock(13013)");
        mock_scenario("g_embed", &json!({"steps": [{"embedding_dimension": 8}]}));
        Spi::run_with_args(
            "INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('g_embed_p', 'openai', $1, 'none')",
            &[format!("{}/s/g_embed/v1", mock_url()).into()],
        )
        .unwrap();
        run("INSERT INTO mcp.embedding_model (name, kind, dimension, provider, model) VALUES ('g_model', 'openai', 8, 'g_embed_p', 'e')");
        run("INSERT INTO mcp.collection (name, embedding_model) VALUES ('g_kb', 'g_model')");
        run("SELECT mcp.ingest('g_kb', 'a://1', 'Eins', 'Urlaub sind dreißig Tage.')");
        role("g_reader");
        role("g_kb_users");
        run("GRANT SELECT, INSERT, UPDATE, DELETE ON mcp.document, mcp.chunk TO g_reader");
        assert_eq!(
            state("UPDATE mcp.embedding_model SET access_role = 'g_no_such_role'"),
            "42704"
        );
        let uses = [
            "SELECT mcp.embed(ARRAY['Urlaub'], 'g_model')",
            "SELECT mcp.ingest('g_kb', 'a://2', 'Zwei', 'Mehr Urlaub.')",
            "SELECT count(*) FROM mcp.search('g_kb', 'Urlaub', 3, 'vector')",
        ];
        run("SET LOCAL ROLE g_reader");
        for u in uses {
            let e = err_of(u);
            assert!(
                e.starts_with("42501") && e.contains("embedding model \"g_model\""),
                "{u}: {e}"
            );
        }
        run("RESET ROLE");
        // context_retrieve (a tool) answers with an error and embeds nothing
        run("UPDATE mcp.collection SET purpose = 'rag'");
        run("INSERT INTO mcp.interface (name, embedding_model, access_role) VALUES ('g_rag', 'g_model', 'public')");
        run("INSERT INTO mcp.interface_tool VALUES ('g_rag', 'context_retrieve')");
        run("SET LOCAL ROLE g_reader");
        let r = q(r#"SELECT mcp.call_tool('context_retrieve', '{"query": "Urlaub"}', 'g_rag')"#);
        assert_eq!(r["isError"], true, "{r}");
        run("RESET ROLE");
        // a member of the access role may
        run("UPDATE mcp.embedding_model SET access_role = 'g_kb_users'");
        run("GRANT g_kb_users TO g_reader");
        run("SET LOCAL ROLE g_reader");
        for u in uses {
            assert_eq!(err_of(u), "", "{u}");
        }
        let r = q(r#"SELECT mcp.call_tool('context_retrieve', '{"query": "Urlaub"}', 'g_rag')"#);
        assert_eq!(r["isError"], false, "{r}");
        run("RESET ROLE");
        // 'public': every role
        run("REVOKE g_kb_users FROM g_reader");
        run("UPDATE mcp.embedding_model SET access_role = 'public'");
        run("SET LOCAL ROLE g_reader");
        assert_eq!(err_of(uses[0]), "");
        run("RESET ROLE");
    }

    /// A tool that acts: hidden from an interface that does not allow it, annotated, and by
    /// default waiting for an approval.
    #[pg_test]
    fn gov_acting_tool_hidden_unless_the_interface_allows_it() {
        ticket_registry();
        run("UPDATE mcp.interface SET allow_acting_tools = false WHERE name = 'chatbot'");
        let names = |format: &str| -> Vec<String> {
            q(&format!("SELECT mcp.list_tools('chatbot', '{format}')"))
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    t["name"]
                        .as_str()
                        .or(t["function"]["name"].as_str())
                        .unwrap()
                        .to_string()
                })
                .collect()
        };
        assert!(!names("openai").contains(&"createTicket".to_string()));
        assert!(!names("mcp").contains(&"createTicket".to_string()));
        let r = q(r#"SELECT mcp.call_tool('createTicket', '{"title": "x", "priority": 1}')"#);
        assert_eq!(r["isError"], true, "{r}");
        assert_eq!(count("SELECT count(*) FROM public.ticket"), 0);
        let via_mcp = q(
            r#"SELECT mcp.handle('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"createTicket","arguments":{"title":"x","priority":1}}}')"#,
        );
        assert!(
            via_mcp.get("error").is_some() || via_mcp["result"]["isError"] == true,
            "{via_mcp}"
        );
        assert_eq!(count("SELECT count(*) FROM public.ticket"), 0);

        run("UPDATE mcp.interface SET allow_acting_tools = true WHERE name = 'chatbot'");
        assert!(names("openai").contains(&"createTicket".to_string()));
        let listed = q("SELECT mcp.list_tools('chatbot', 'mcp')");
        let ann = |name: &str| -> Value {
            listed
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["name"] == name)
                .unwrap()["annotations"]
                .clone()
        };
        assert_eq!(
            ann("createTicket"),
            json!({"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false})
        );
        assert_eq!(
            ann("getTarifVertrag"),
            json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
        );
        // requires_approval NULL: true for the acting tool, false for a read-only one
        assert_eq!(
            count("SELECT count(*) FROM mcp.tool WHERE name IN ('createTicket', 'getTarifVertrag') AND requires_approval IS NULL"),
            2
        );
        // a direct call is the caller's own decision
        let r = q(r#"SELECT mcp.call_tool('createTicket', '{"title": "direct", "priority": 1}')"#);
        assert_eq!(r["isError"], false, "{r}");
        assert_eq!(count("SELECT count(*) FROM public.ticket"), 1);
    }

    /// The ticket domain: a tool that acts, its table, a requester and two approvers.
    fn ticket_registry() {
        chat_registry("g_ticket");
        mock_scenario(
            "g_ticket",
            &json!({"steps": [
                {"call": [{"id": "call_t1", "name": "createTicket",
                           "arguments": {"title": "Drucker defekt", "priority": 2}}]},
                {"echo_last_tool_result": true}
            ]}),
        );
        run("CREATE TABLE public.ticket (id serial PRIMARY KEY, title text, priority int, created_by name DEFAULT current_user)");
        run("CREATE FUNCTION public.create_ticket(title text, priority int) RETURNS text
             LANGUAGE sql AS $$ INSERT INTO public.ticket (title, priority) VALUES (title, priority)
                                RETURNING 'ticket ' || id || ' by ' || created_by || ': ' || title $$");
        run(
            r#"INSERT INTO mcp.tool (name, description, parameters, function, read_only) VALUES
            ('createTicket', 'Opens a ticket',
             '{"type":"object","properties":{"title":{"type":"string"},"priority":{"type":"integer"}},"required":["title","priority"]}',
             'public.create_ticket(text,int)', false)"#,
        );
        run("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'createTicket')");
        run("UPDATE mcp.interface SET access_role = 'public', allow_acting_tools = true WHERE name = 'chatbot'");
        role("g_req");
        role("g_appr");
        role("g_nobody");
        run("GRANT mcp_approver TO g_appr");
        run("GRANT SELECT, INSERT ON public.ticket TO g_req");
        run("GRANT USAGE ON SEQUENCE public.ticket_id_seq TO g_req");
    }

    fn chat_as(role: &str, question: &str, session: Option<&str>) -> Value {
        run(&format!("SET LOCAL ROLE {role}"));
        let out = Spi::get_one_with_args::<pgrx::JsonB>(
            "SELECT mcp.chat($1, 'chatbot', $2::uuid)",
            &[question.into(), session.into()],
        )
        .unwrap()
        .unwrap()
        .0;
        run("RESET ROLE");
        out
    }

    fn as_role(role: &str, sql: &str) -> String {
        run(&format!("SET LOCAL ROLE {role}"));
        let e = err_of(sql);
        run("RESET ROLE");
        e
    }

    #[pg_test]
    fn gov_approve_then_continue_runs_the_approved_call_as_the_caller() {
        ticket_registry();
        let out = chat_as("g_req", "Mein Drucker ist kaputt", None);
        assert_eq!(out["status"], "awaiting_approval", "{out}");
        let pending = &out["pending_approvals"][0];
        assert_eq!(pending["tool"], "createTicket");
        assert_eq!(pending["call_id"], "call_t1");
        assert_eq!(
            pending["arguments"],
            json!({"title": "Drucker defekt", "priority": 2})
        );
        assert_eq!(
            pending["digest"].as_str().unwrap(),
            text(
                r#"SELECT mcp.approval_digest('createTicket', '{"priority": 2, "title": "Drucker defekt"}')"#
            )
        );
        assert_eq!(
            count("SELECT count(*) FROM public.ticket"),
            0,
            "nothing ran yet"
        );
        let run_id = out["run_id"].as_str().unwrap().to_string();
        let session = out["session_id"].as_str().unwrap().to_string();
        assert_eq!(
            text(&format!(
                "SELECT status FROM mcp.run WHERE run_id = '{run_id}'"
            )),
            "awaiting_approval"
        );
        let approve = format!("SELECT mcp.approve('{run_id}', 'call_t1')");
        // a role that is no approver, and the requester itself
        assert!(as_role("g_nobody", &approve).starts_with("42501"));
        assert!(as_role("g_req", &approve).starts_with("42501"));
        // an approver deciding its own run, unless the interface allows it
        run("GRANT mcp_approver TO g_req");
        let own = as_role("g_req", &approve);
        assert!(
            own.starts_with("42501") && own.contains("your own run"),
            "{own}"
        );
        run("REVOKE mcp_approver FROM g_req");
        // continuing before a decision: still waiting, no LLM request
        let again = chat_as("g_req", "", Some(&session));
        assert_eq!(again["status"], "awaiting_approval", "{again}");
        assert_eq!(again["iterations"], 0);
        assert_eq!(count("SELECT count(*) FROM public.ticket"), 0);
        // the approver decides
        assert_eq!(as_role("g_appr", &approve), "");
        let decided = q(&format!(
            "SELECT to_jsonb(a) FROM mcp.approval a WHERE run_id = '{run_id}'"
        ));
        assert_eq!(decided["status"], "approved");
        assert_eq!(decided["decided_by"], "g_appr");
        assert!(decided["decided_at"].is_string());
        assert_eq!(decided["digest"], pending["digest"]);
        assert!(
            as_role("g_appr", &approve).starts_with("55000"),
            "decided once"
        );
        // the session's history is changed in between: the approved arguments still run
        run("UPDATE mcp.message SET message = replace(message::text, 'Drucker defekt', 'DROP EVERYTHING')::jsonb");
        let done = chat_as("g_req", "", Some(&session));
        assert_eq!(done["status"], "completed", "{done}");
        assert_eq!(
            done["tool_calls"], 1,
            "the carried-out call is the run's: {done}"
        );
        assert_eq!(
            text("SELECT created_by || '/' || title || '/' || priority FROM public.ticket"),
            "g_req/Drucker defekt/2"
        );
        assert!(
            done["answer"]
                .as_str()
                .unwrap()
                .contains("by g_req: Drucker defekt"),
            "{done}"
        );
        // audited: the call as a tool_call row of the continuing run, the approval carried out
        let cont = done["run_id"].as_str().unwrap();
        assert_eq!(
            text(&format!(
                "SELECT status || '/' || role_name FROM mcp.tool_call WHERE run_id = '{cont}'"
            )),
            "ok/g_req"
        );
        assert_eq!(
            text(&format!(
                "SELECT continued_by::text FROM mcp.approval WHERE run_id = '{run_id}'"
            )),
            cont
        );
        // once only
        let later = chat_as("g_req", "Danke", Some(&session));
        assert_ne!(later["status"], "awaiting_approval");
        assert_eq!(count("SELECT count(*) FROM public.ticket"), 1);
    }

    #[pg_test]
    fn gov_arguments_altered_after_the_approval_are_not_run() {
        ticket_registry();
        let out = chat_as("g_req", "Mein Drucker ist kaputt", None);
        let run_id = out["run_id"].as_str().unwrap().to_string();
        let session = out["session_id"].as_str().unwrap().to_string();
        assert_eq!(
            as_role(
                "g_appr",
                &format!("SELECT mcp.approve('{run_id}', 'call_t1')")
            ),
            ""
        );
        // whoever can write mcp.approval changes the approved arguments afterwards
        run(&format!(
            r#"UPDATE mcp.approval SET arguments = '{{"priority":1,"title":"Alles loeschen"}}' WHERE run_id = '{run_id}'"#
        ));
        let done = chat_as("g_req", "", Some(&session));
        assert_eq!(done["status"], "completed", "{done}");
        assert!(
            done["answer"]
                .as_str()
                .unwrap()
                .contains("no longer match the digest"),
            "{done}"
        );
        assert_eq!(
            count("SELECT count(*) FROM public.ticket"),
            0,
            "the altered call did not run"
        );
        let cont = done["run_id"].as_str().unwrap();
        assert_eq!(
            text(&format!(
                "SELECT status FROM mcp.tool_call WHERE run_id = '{cont}'"
            )),
            "denied"
        );
    }

    #[pg_test]
    fn gov_rejected_call_goes_back_to_the_model_as_a_tool_error() {
        ticket_registry();
        let out = chat_as("g_req", "Mein Drucker ist kaputt", None);
        let run_id = out["run_id"].as_str().unwrap().to_string();
        let session = out["session_id"].as_str().unwrap().to_string();
        assert_eq!(
            as_role(
                "g_appr",
                &format!("SELECT mcp.reject('{run_id}', 'call_t1', 'bitte erst neu starten')")
            ),
            ""
        );
        let done = chat_as("g_req", "", Some(&session));
        assert_eq!(done["status"], "completed", "{done}");
        let answer = done["answer"].as_str().unwrap();
        assert!(
            answer.contains("rejected by g_appr") && answer.contains("bitte erst neu starten"),
            "{answer}"
        );
        assert_eq!(done["rejected_tool_calls"], 1, "{done}");
        assert_eq!(count("SELECT count(*) FROM public.ticket"), 0);
        let cont = done["run_id"].as_str().unwrap();
        assert_eq!(
            text(&format!(
                "SELECT status FROM mcp.tool_call WHERE run_id = '{cont}'"
            )),
            "denied"
        );
    }

    #[pg_test]
    fn gov_self_approval_when_the_interface_allows_it() {
        ticket_registry();
        run("UPDATE mcp.interface SET allow_self_approval = true WHERE name = 'chatbot'");
        run("GRANT mcp_approver TO g_req");
        let out = chat_as("g_req", "Mein Drucker ist kaputt", None);
        let run_id = out["run_id"].as_str().unwrap().to_string();
        assert_eq!(
            as_role(
                "g_req",
                &format!("SELECT mcp.approve('{run_id}', 'call_t1')")
            ),
            ""
        );
    }

    /// Through an authenticator (a NOINHERIT login that may become the requester and the
    /// approver, as the bridge's is), the role in use decides; an inheriting login of the
    /// requester stays the requester whatever role it sets.
    #[pg_test]
    fn gov_approval_through_an_authenticator_is_not_self_approval() {
        ticket_registry();
        let out = chat_as("g_req", "Mein Drucker ist kaputt", None);
        assert_eq!(out["status"], "awaiting_approval", "{out}");
        let run_id = out["run_id"].as_str().unwrap().to_string();
        let approve = format!("SELECT mcp.approve('{run_id}', 'call_t1')");
        run("CREATE ROLE g_auth LOGIN NOINHERIT");
        run("GRANT g_req, g_appr TO g_auth");
        run("CREATE ROLE g_req_login LOGIN"); // inheriting: the requester's own login
        run("GRANT g_req, g_appr TO g_req_login");
        let through = |login: &str, role: &str| {
            run(&format!("SET LOCAL SESSION AUTHORIZATION {login}"));
            run(&format!("SET LOCAL ROLE {role}"));
            let e = err_of(&approve);
            run("RESET ROLE");
            run("RESET SESSION AUTHORIZATION");
            e
        };
        // the requester's own login, acting as the approver: still its own run
        let own = through("g_req_login", "g_appr");
        assert!(
            own.starts_with("42501") && own.contains("your own run"),
            "{own}"
        );
        // the authenticator acting as the requester: its own run
        let own = through("g_auth", "g_req");
        assert!(own.starts_with("42501"), "{own}");
        // the authenticator acting as the approver: the approver decides
        assert_eq!(through("g_auth", "g_appr"), "");
        let decided = q(&format!(
            "SELECT to_jsonb(a) FROM mcp.approval a WHERE run_id = '{run_id}'"
        ));
        assert_eq!(decided["status"], "approved");
        assert_eq!(decided["decided_by"], "g_appr");
    }

    #[pg_test]
    fn gov_expired_approval_is_not_run() {
        ticket_registry();
        run("SET LOCAL mcp.approval_timeout = '1h'");
        let out = chat_as("g_req", "Mein Drucker ist kaputt", None);
        let run_id = out["run_id"].as_str().unwrap().to_string();
        let session = out["session_id"].as_str().unwrap().to_string();
        assert_eq!(
            count(&format!(
                "SELECT count(*) FROM mcp.approval WHERE run_id = '{run_id}'
                   AND expires_at - requested_at = interval '1 hour'"
            )),
            1
        );
        // time passes
        run(&format!(
            "UPDATE mcp.approval SET expires_at = clock_timestamp() - interval '1 second' WHERE run_id = '{run_id}'"
        ));
        let late = as_role(
            "g_appr",
            &format!("SELECT mcp.approve('{run_id}', 'call_t1')"),
        );
        assert!(
            late.starts_with("55000") && late.contains("expired"),
            "{late}"
        );
        let done = chat_as("g_req", "", Some(&session));
        assert_eq!(done["status"], "completed", "{done}");
        assert!(
            done["answer"].as_str().unwrap().contains("expired"),
            "{done}"
        );
        assert_eq!(count("SELECT count(*) FROM public.ticket"), 0);
        assert_eq!(
            text(&format!(
                "SELECT status FROM mcp.approval WHERE run_id = '{run_id}'"
            )),
            "expired"
        );
    }

    /// An interface of its own (budget counters live in shared memory for the server's life,
    /// so every budget test counts under names no other test uses).
    fn budget_registry(iface: &str, scenario: &str) {
        chat_registry(scenario);
        mock_scenario(
            scenario,
            &json!({"steps": [{"say": "ok", "usage": {"prompt_tokens": 100, "completion_tokens": 20}}]}),
        );
        run(&format!(
            "INSERT INTO mcp.interface (name, provider, access_role) VALUES ('{iface}', 'mock', 'public')"
        ));
    }

    fn chat_in(iface: &str) -> Value {
        q(&format!("SELECT mcp.chat('Hallo', '{iface}')"))
    }

    /// Not across a minute boundary: the per-minute count would start again.
    fn same_minute() {
        run("SELECT pg_sleep(61 - extract(second FROM clock_timestamp())::int) WHERE extract(second FROM clock_timestamp()) > 50");
    }

    #[pg_test]
    fn gov_budget_requests_per_minute_of_a_role() {
        budget_registry("g_rpm_iface", "g_rpm");
        role("g_rpm_role");
        run("INSERT INTO mcp.budget (scope, name, requests_per_minute) VALUES ('role', 'g_rpm_role', 2)");
        same_minute();
        run("SET LOCAL ROLE g_rpm_role");
        let a = chat_in("g_rpm_iface");
        let b = chat_in("g_rpm_iface");
        let c = chat_in("g_rpm_iface");
        run("RESET ROLE");
        assert_eq!(a["status"], "completed", "{a}");
        assert_eq!(b["status"], "completed", "{b}");
        assert_eq!(c["status"], "budget_exceeded", "{c}");
        let msg = c["error"]["message"].as_str().unwrap();
        assert!(
            msg.contains("role \"g_rpm_role\"")
                && msg.contains("requests_per_minute 2")
                && msg.contains("resets at")
                && msg.contains(":00 UTC"),
            "{msg}"
        );
        assert_eq!(c["error"]["kind"], "budget_exceeded");
        // nothing was sent for the refused run
        let refused = c["run_id"].as_str().unwrap();
        assert_eq!(
            count(&format!(
                "SELECT count(*) FROM mcp.llm_request WHERE run_id = '{refused}'"
            )),
            0
        );
        assert_eq!(
            text(&format!(
                "SELECT status FROM mcp.run WHERE run_id = '{refused}'"
            )),
            "budget_exceeded"
        );
        // another role is not limited by it
        assert_eq!(chat_in("g_rpm_iface")["status"], "completed");
        let usage = q("SELECT jsonb_agg(u) FROM mcp.budget_usage() u WHERE name = 'g_rpm_role'");
        assert_eq!(usage[0]["requests_this_minute"], 2, "{usage}");
    }

    #[pg_test]
    fn gov_budget_tokens_per_day_of_an_interface() {
        budget_registry("g_tok_iface", "g_tok");
        run("INSERT INTO mcp.budget (scope, name, tokens_per_day) VALUES ('interface', 'g_tok_iface', 100)");
        let a = chat_in("g_tok_iface");
        assert_eq!(a["status"], "completed", "{a}");
        let b = chat_in("g_tok_iface");
        assert_eq!(b["status"], "budget_exceeded", "{b}");
        let msg = b["error"]["message"].as_str().unwrap();
        assert!(
            msg.contains("interface \"g_tok_iface\"")
                && msg.contains("tokens_per_day 100 reached (120 tokens today)")
                && msg.contains("00:00:00 UTC"),
            "{msg}"
        );
        // other interfaces go on
        run("INSERT INTO mcp.interface (name, provider, access_role) VALUES ('g_tok_other', 'mock', 'public')");
        assert_eq!(chat_in("g_tok_other")["status"], "completed");
    }

    #[pg_test]
    fn gov_budget_cost_per_day_from_the_price_columns() {
        budget_registry("g_cost_iface", "g_cost");
        run(
            r#"UPDATE mcp.provider SET options = '{"price_per_1k_prompt": 1.0, "price_per_1k_completion": 2.0}' WHERE name = 'mock'"#,
        );
        run("INSERT INTO mcp.budget (scope, name, cost_per_day) VALUES ('interface', 'g_cost_iface', 0.1)");
        // 100 prompt + 20 completion tokens = 0.1 + 0.04
        assert_eq!(chat_in("g_cost_iface")["status"], "completed");
        let b = chat_in("g_cost_iface");
        assert_eq!(b["status"], "budget_exceeded", "{b}");
        let msg = b["error"]["message"].as_str().unwrap();
        assert!(
            msg.contains("cost_per_day 0.1 reached (0.140000 today)"),
            "{msg}"
        );
        let usage = q("SELECT jsonb_agg(u) FROM mcp.budget_usage() u WHERE name = 'g_cost_iface'");
        assert_eq!(usage[0]["tokens_today"], 120, "{usage}");
    }

    #[pg_test]
    fn gov_budget_table_is_the_admins_and_usage_the_auditors() {
        role("g_b_adm");
        role("g_b_aud");
        role("g_b_user");
        run("GRANT mcp_admin TO g_b_adm");
        run("GRANT mcp_auditor TO g_b_aud");
        assert_eq!(
            as_role(
                "g_b_adm",
                "INSERT INTO mcp.budget (scope, name, requests_per_minute) VALUES ('role', 'x', 1)"
            ),
            ""
        );
        assert!(as_role("g_b_user", "DELETE FROM mcp.budget").starts_with("42501"));
        assert!(as_role("g_b_user", "SELECT * FROM mcp.budget_usage()").starts_with("42501"));
        assert_eq!(as_role("g_b_aud", "SELECT * FROM mcp.budget_usage()"), "");
        assert!(state("INSERT INTO mcp.budget (scope, name) VALUES ('team', 'x')") == "23514");
    }
}
