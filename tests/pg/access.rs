//! Who may do what: per-interface access, options that may only lower the interface's limits,
//! sessions visible only to their role, API keys (unreadable by other roles, ciphertext at rest),
//! and statements run as the extension owner ignoring the caller's search_path.

#[pgrx::pg_schema]
mod tests {
    use crate::tests::*;

    /// A role that may run getTarifVertrag and read its table, and nothing more.
    fn acl_role(name: &str) {
        run(&format!("DROP ROLE IF EXISTS {name}"));
        run(&format!("CREATE ROLE {name} NOLOGIN"));
        run(&format!(
            "GRANT EXECUTE ON FUNCTION public.get_tarif(text, text, int) TO {name}"
        ));
        run(&format!("GRANT SELECT ON public.tarif TO {name}"));
    }

    /// `mcp.chat(sql)` as a JSON result, or the error as "SQLSTATE: message".
    fn acl_chat(sql: &str) -> Result<Value, String> {
        match crate::pg::in_subtransaction_catch_all(|| Spi::get_one::<JsonB>(sql)) {
            Ok(Ok(Some(j))) => Ok(j.0),
            Ok(Ok(None)) => Err("NULL".into()),
            Ok(Err(e)) => Err(e.to_string()),
            Err(info) => Err(format!("{}: {}", info.sqlstate, info.message)),
        }
    }

    /// What a role gets on the chatbot interface: its tool list, a call of getTarifVertrag, a chat.
    struct AclView {
        tools: Value,
        call: Value,
        chat: Result<Value, String>,
        may_use: bool,
    }

    fn acl_view_as(role: &str) -> AclView {
        run(&format!("SET LOCAL ROLE {role}"));
        let view = AclView {
        tools: q("SELECT coalesce(jsonb_agg(t->'function'->>'name'), '[]') FROM jsonb_array_elements(mcp.list_tools()) t"),
        call: q(r#"SELECT mcp.call_tool('getTarifVertrag', '{"tarifgebiet":"Bayern","fachbereich":"Metall"}')"#),
        chat: acl_chat("SELECT mcp.chat('Welche Tarifverträge gelten für Metall in Bayern?')"),
        may_use: Spi::get_one::<bool>("SELECT mcp.may_use_interface('chatbot')")
            .unwrap()
            .unwrap(),
    };
        run("RESET ROLE");
        view
    }

    fn assert_denied(v: &AclView, who: &str) {
        assert_eq!(v.tools, json!([]), "{who} sees tools");
        assert_eq!(v.call["isError"], true, "{who}: {}", v.call);
        assert!(
            v.call["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("not available"),
            "{who}: {}",
            v.call
        );
        let e = v.chat.as_ref().expect_err(who);
        assert_eq!(
            e, "42501: permission denied for interface \"chatbot\"",
            "{who}"
        );
        assert!(!v.may_use, "{who}");
    }

    fn assert_allowed(v: &AclView, who: &str) {
        assert!(
            v.tools
                .as_array()
                .unwrap()
                .contains(&json!("getTarifVertrag")),
            "{who}: {}",
            v.tools
        );
        assert_eq!(v.call["isError"], false, "{who}: {}", v.call);
        let r = v.chat.as_ref().expect(who);
        assert_eq!(r["status"], "completed", "{who}: {r}");
        assert!(v.may_use, "{who}");
    }

    #[pg_test]
    fn interfaces_are_closed_until_granted_and_follow_role_membership() {
        chat_registry("tool_then_answer");
        acl_role("mcp_acl_outsider");
        acl_role("mcp_acl_member");
        acl_role("mcp_acl_nested");
        acl_role("mcp_acl_noinherit");
        run("DROP ROLE IF EXISTS mcp_acl_users");
        run("DROP ROLE IF EXISTS mcp_acl_team");
        run("CREATE ROLE mcp_acl_users NOLOGIN");
        run("CREATE ROLE mcp_acl_team NOLOGIN");
        run("GRANT mcp_acl_users TO mcp_acl_member");
        // a member of a member: mcp_acl_nested -> mcp_acl_team -> mcp_acl_users
        run("GRANT mcp_acl_users TO mcp_acl_team");
        run("GRANT mcp_acl_team TO mcp_acl_nested");
        // a member that does not inherit privileges must SET ROLE first, as for a table grant
        run("ALTER ROLE mcp_acl_noinherit NOINHERIT");
        run("GRANT mcp_acl_users TO mcp_acl_noinherit");

        // a new interface is closed: nobody but superusers (and interface managers)
        assert_eq!(
            Spi::get_one::<String>("SELECT access_role FROM mcp.interface WHERE name = 'chatbot'")
                .unwrap(),
            None
        );
        assert_denied(&acl_view_as("mcp_acl_outsider"), "outsider, closed");
        assert_denied(&acl_view_as("mcp_acl_member"), "member, closed");
        assert_allowed(&acl_view_as("postgres"), "superuser, closed");

        run("UPDATE mcp.interface SET access_role = 'mcp_acl_users' WHERE name = 'chatbot'");
        assert_denied(&acl_view_as("mcp_acl_outsider"), "outsider");
        assert_allowed(&acl_view_as("mcp_acl_member"), "member");
        assert_allowed(&acl_view_as("mcp_acl_nested"), "member of a member");
        assert_denied(&acl_view_as("mcp_acl_noinherit"), "NOINHERIT member");
        run("SET LOCAL ROLE mcp_acl_noinherit");
        run("SET LOCAL ROLE mcp_acl_users");
        let via_set_role = q("SELECT to_jsonb(mcp.may_use_interface('chatbot'))");
        run("RESET ROLE");
        assert_eq!(via_set_role, json!(true));
        assert_allowed(&acl_view_as("postgres"), "superuser");

        // the denied call is audited as denied, for the role that made it
        let audit = Spi::get_one::<String>(
        "SELECT string_agg(DISTINCT status, ',') FROM mcp.tool_call WHERE role_name = 'mcp_acl_outsider'",
    )
    .unwrap();
        assert_eq!(audit.as_deref(), Some("denied"));

        // 'public' opens the interface to every role, explicitly
        run("UPDATE mcp.interface SET access_role = 'public' WHERE name = 'chatbot'");
        assert_allowed(&acl_view_as("mcp_acl_outsider"), "outsider, public");

        // managing interfaces (UPDATE on mcp.interface) is enough: such a role could open it itself
        run("UPDATE mcp.interface SET access_role = NULL WHERE name = 'chatbot'");
        run("GRANT UPDATE ON mcp.interface TO mcp_acl_outsider");
        assert_allowed(&acl_view_as("mcp_acl_outsider"), "interface manager");
        run("REVOKE UPDATE ON mcp.interface FROM mcp_acl_outsider");

        // the role must exist when it is named; a role dropped later admits nobody
        let e = err_of(
            "UPDATE mcp.interface SET access_role = 'mcp_acl_nobody' WHERE name = 'chatbot'",
        );
        assert_eq!(
            e,
            "42704: interface \"chatbot\" refused: access_role \"mcp_acl_nobody\" is not a role"
        );
        let e = err_of("INSERT INTO mcp.interface (name, access_role) VALUES ('x', '')");
        assert!(e.starts_with("42704"), "{e}");
        run("CREATE ROLE mcp_acl_gone NOLOGIN");
        run("GRANT mcp_acl_gone TO mcp_acl_member");
        run("UPDATE mcp.interface SET access_role = 'mcp_acl_gone' WHERE name = 'chatbot'");
        run("REVOKE mcp_acl_gone FROM mcp_acl_member");
        run("DROP ROLE mcp_acl_gone");
        run("UPDATE mcp.interface SET description = 'still editable' WHERE name = 'chatbot'");
        assert_denied(&acl_view_as("mcp_acl_member"), "member, dropped role");

        assert_eq!(
            err_of("SELECT mcp.may_use_interface('nope')"),
            "42704: interface \"nope\" does not exist"
        );
    }

    #[pg_test]
    fn chat_options_may_only_lower_the_interface_limits() {
        demo_registry();
        scenario_provider("openai", "max_iterations", "gpt-4o-mini");
        run("UPDATE mcp.interface SET max_iterations = 2, max_total_tokens = 60, access_role = 'public' WHERE name = 'chatbot'");
        acl_role("mcp_acl_caller");
        run("SET LOCAL ROLE mcp_acl_caller");
        let raised = [
        (
            json!({"max_iterations": 25, "max_total_tokens": 2147483647}),
            "max_iterations 25 (the interface allows 2), max_total_tokens 2147483647 (the interface allows 60)",
        ),
        (json!({"max_iterations": 3}), "max_iterations 3"),
        (json!({"max_total_tokens": 61}), "max_total_tokens 61"),
        (json!({"tool_choice": "required"}), "tool_choice \"required\""),
    ];
        let mut errors = Vec::new();
        for (opts, _) in &raised {
            errors.push(acl_chat(&format!(
                "SELECT mcp.chat('x', 'chatbot', NULL, '{opts}')"
            )));
        }
        run("RESET ROLE");
        // lowering is fine, and the lowered values apply
        run("UPDATE mcp.interface SET max_total_tokens = 100000 WHERE name = 'chatbot'");
        run("SET LOCAL ROLE mcp_acl_caller");
        let lowered = acl_chat(
            r#"SELECT mcp.chat('Zwei Runden', 'chatbot', NULL, '{"max_iterations": 1, "max_total_tokens": 50000}')"#,
        );
        let same = acl_chat(
            r#"SELECT mcp.chat('Zwei Runden', 'chatbot', NULL, '{"max_iterations": 2, "tool_choice": "auto"}')"#,
        );
        let small_budget = acl_chat(
            r#"SELECT mcp.chat('Zwei Runden', 'chatbot', NULL, '{"max_total_tokens": 1}')"#,
        );
        let none = acl_chat(
            r#"SELECT mcp.chat('Zwei Runden', 'chatbot', NULL, '{"tool_choice": "none"}')"#,
        );
        run("RESET ROLE");
        for ((opts, what), e) in raised.iter().zip(errors) {
            let e = e.expect_err(&opts.to_string());
            assert!(
                e.starts_with(
                    "42501: permission denied to raise the limits of interface \"chatbot\": "
                ) && e.contains(what),
                "{opts}: {e}"
            );
        }
        let lowered = lowered.unwrap();
        assert_eq!(lowered["status"], "max_iterations", "{lowered}");
        assert_eq!(lowered["iterations"], 1, "{lowered}");
        let same = same.unwrap();
        assert_eq!(same["iterations"], 2, "{same}");
        assert_eq!(small_budget.unwrap()["status"], "budget_exceeded");
        assert!(none.is_ok(), "{none:?}");
        // an interface without a token budget has nothing to lift
        run("UPDATE mcp.interface SET max_total_tokens = NULL, tool_choice = 'none' WHERE name = 'chatbot'");
        run("SET LOCAL ROLE mcp_acl_caller");
        let any_budget = acl_chat(
            r#"SELECT mcp.chat('x', 'chatbot', NULL, '{"max_total_tokens": 2147483647, "tool_choice": "none"}')"#,
        );
        // tools off is a limit too
        let tools_on =
            acl_chat(r#"SELECT mcp.chat('x', 'chatbot', NULL, '{"tool_choice": "auto"}')"#);
        run("RESET ROLE");
        assert!(any_budget.is_ok(), "{any_budget:?}");
        let e = tools_on.unwrap_err();
        assert!(
            e.starts_with("42501") && e.contains("tool_choice \"auto\""),
            "{e}"
        );
        // a role that may change the interface row may lift its limits for one chat
        run("UPDATE mcp.interface SET tool_choice = 'auto' WHERE name = 'chatbot'");
        run("GRANT UPDATE ON mcp.interface TO mcp_acl_caller");
        run("SET LOCAL ROLE mcp_acl_caller");
        let lifted =
            acl_chat(r#"SELECT mcp.chat('Drei Runden', 'chatbot', NULL, '{"max_iterations": 3}')"#);
        run("RESET ROLE");
        let lifted = lifted.unwrap();
        assert_eq!(lifted["status"], "completed", "{lifted}");
        assert_eq!(lifted["iterations"], 3, "{lifted}");
    }

    #[pg_test]
    fn foreign_and_unknown_sessions_give_the_same_error() {
        chat_registry("dialog");
        run("UPDATE mcp.interface SET access_role = 'public' WHERE name = 'chatbot'");
        let r = q("SELECT mcp.chat('Welcher Tarifvertrag gilt für Metall?')");
        assert_eq!(r["status"], "needs_input", "{r}");
        let mine = r["session_id"].as_str().unwrap().to_string();
        let unknown = "6d9c1b6e-0000-4000-8000-00000000abcd";
        acl_role("mcp_acl_stranger");
        run("SET LOCAL ROLE mcp_acl_stranger");
        let foreign = acl_chat(&format!("SELECT mcp.chat('Bayern', 'chatbot', '{mine}')"));
        let never = acl_chat(&format!(
            "SELECT mcp.chat('Bayern', 'chatbot', '{unknown}')"
        ));
        run("RESET ROLE");
        let never_by_owner = acl_chat(&format!(
            "SELECT mcp.chat('Bayern', 'chatbot', '{unknown}')"
        ));
        let foreign = foreign.unwrap_err().replace(&mine, "<id>");
        let never = never.unwrap_err().replace(unknown, "<id>");
        assert_eq!(foreign, "42704: chat session <id> does not exist");
        assert_eq!(foreign, never);
        assert_eq!(never_by_owner.unwrap_err().replace(unknown, "<id>"), never);
        // nothing was stored for the refused turns; the owner continues
        assert_eq!(
            Spi::get_one::<i64>(
                "SELECT count(*) FROM mcp.run WHERE role_name = 'mcp_acl_stranger'"
            )
            .unwrap(),
            Some(0)
        );
        let r2 = acl_chat(&format!("SELECT mcp.chat('Bayern', 'chatbot', '{mine}')")).unwrap();
        assert_eq!(r2["status"], "completed", "{r2}");
    }

    #[pg_test]
    fn has_api_key_only_for_provider_managers() {
        run("INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('p1', 'openai', 'http://127.0.0.1:9/v1', 'm'), ('p2', 'openai', 'http://127.0.0.1:9/v1', 'm')");
        run("SELECT mcp.set_api_key('p1', 'sk-test-DO-NOT-LEAK-123')");
        acl_role_plain("mcp_acl_curious");
        acl_role_plain("mcp_acl_keeper");
        run("GRANT UPDATE ON mcp.provider TO mcp_acl_keeper");
        run("SET LOCAL ROLE mcp_acl_curious");
        let e = err_of("SELECT mcp.has_api_key('p1')");
        let e2 = err_of("SELECT mcp.has_api_key('p2')");
        run("RESET ROLE");
        run("SET LOCAL ROLE mcp_acl_keeper");
        let k1 = Spi::get_one::<bool>("SELECT mcp.has_api_key('p1')").unwrap();
        let k2 = Spi::get_one::<bool>("SELECT mcp.has_api_key('p2')").unwrap();
        run("RESET ROLE");
        assert_eq!(
        e,
        "42501: permission denied to see which providers have API keys: UPDATE on mcp.provider is required"
    );
        assert_eq!(e, e2);
        assert_eq!((k1, k2), (Some(true), Some(false)));
    }

    fn acl_role_plain(name: &str) {
        run(&format!("DROP ROLE IF EXISTS {name}"));
        run(&format!("CREATE ROLE {name} NOLOGIN"));
    }

    /// The SQLSTATE of an ON UPDATE RESTRICT foreign key refusing an update: 18 reports it as
    /// restrict_violation (23001), earlier versions as foreign_key_violation (23503).
    #[cfg(any(feature = "pg14", feature = "pg15", feature = "pg16", feature = "pg17"))]
    const RESTRICT_VIOLATION: &str = "23503";
    #[cfg(feature = "pg18")]
    const RESTRICT_VIOLATION: &str = "23001";

    #[pg_test]
    fn api_keys_are_ciphertext_at_rest() {
        run("INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('p1', 'openai', 'http://127.0.0.1:9/v1', 'm'), ('p2', 'openai', 'http://127.0.0.1:9/v1', 'm')");
        run("SELECT mcp.set_api_key('p1', 'sk-test-DO-NOT-LEAK-123')");
        run("SELECT mcp.set_api_key('p2', 'sk-test-OTHER-456')");
        // what pg_read_all_data members (and pg_dump run by them) read: ciphertext, no key text
        acl_role_plain("mcp_acl_reader");
        run("GRANT pg_read_all_data TO mcp_acl_reader");
        run("SET LOCAL ROLE mcp_acl_reader");
        let seen = Spi::get_one::<String>(
            "SELECT string_agg(s::text || encode(s.ciphertext, 'escape'), '|')
           FROM mcp.provider_secret s",
        )
        .unwrap()
        .unwrap();
        run("RESET ROLE");
        assert!(seen.contains("\\x"), "the reader saw the rows: {seen}");
        assert!(
            !seen.contains("DO-NOT-LEAK")
                && !seen.contains("OTHER-456")
                && !seen.contains("sk-test")
        );
        let shape = Spi::get_one::<String>(
        "SELECT string_agg(provider || ':' || (key_id ~ '^[0-9a-f]{16}$') || ':' || length(nonce) || ':' || length(ciphertext), ',' ORDER BY provider)
           FROM mcp.provider_secret",
    )
    .unwrap();
        assert_eq!(shape.as_deref(), Some("p1:true:24:39,p2:true:24:33"));
        // the same key set twice gives another ciphertext (fresh nonce)
        let before = Spi::get_one::<Vec<u8>>(
            "SELECT ciphertext FROM mcp.provider_secret WHERE provider = 'p1'",
        )
        .unwrap();
        run("SELECT mcp.set_api_key('p1', 'sk-test-DO-NOT-LEAK-123')");
        let after = Spi::get_one::<Vec<u8>>(
            "SELECT ciphertext FROM mcp.provider_secret WHERE provider = 'p1'",
        )
        .unwrap();
        assert_ne!(before, after);
        assert_eq!(
            crate::keys::api_key("p1").unwrap().as_deref(),
            Some("sk-test-DO-NOT-LEAK-123")
        );
        // a ciphertext moved to another provider does not open there
        run(
            "UPDATE mcp.provider_secret t SET nonce = s.nonce, ciphertext = s.ciphertext
           FROM mcp.provider_secret s WHERE s.provider = 'p1' AND t.provider = 'p2'",
        );
        let moved = crate::keys::api_key("p2").unwrap_err();
        assert_eq!(
            moved.sqlstate(),
            pgrx::PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE
        );
        assert_eq!(
        moved.message(),
        "the stored API key of provider \"p2\" does not decrypt: it was altered or belongs to another provider"
    );
        // a key sealed with another server key is named by both key ids
        run("UPDATE mcp.provider_secret SET key_id = '0123456789abcdef' WHERE provider = 'p1'");
        let other = crate::keys::api_key("p1").unwrap_err();
        assert!(
        other.message().starts_with("the API key of provider \"p1\" was encrypted with server key 0123456789abcdef, but mcp.server_key_file holds server key "),
        "{}",
        other.message()
    );
        assert!(!other.message().contains("sk-test"));
        // a chat surfaces it as that error, not as a provider failure
        run("INSERT INTO mcp.interface (name, provider) VALUES ('chatbot', 'p1')");
        let e = err_of("SELECT mcp.chat('x')");
        assert!(
            e.starts_with("55000: the API key of provider \"p1\" was encrypted with server key"),
            "{e}"
        );
        // the key is sealed to the provider's name: renaming is refused while it has one
        let e = err_of("UPDATE mcp.provider SET name = 'p1-renamed' WHERE name = 'p1'");
        assert!(
            e.starts_with(RESTRICT_VIOLATION)
                && e.contains("provider_secret_sealed_to_provider_name"),
            "{e}"
        );
        run("SELECT mcp.set_api_key('p1', NULL)");
        run("UPDATE mcp.provider SET name = 'p1-renamed' WHERE name = 'p1'");
    }

    #[pg_test]
    fn api_key_is_not_readable_by_other_roles() {
        run("INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('p1', 'openai', 'http://127.0.0.1:9/v1', 'm')");
        run("SELECT mcp.set_api_key('p1', 'sk-test-DO-NOT-LEAK-123')");
        assert_eq!(
            Spi::get_one::<bool>("SELECT mcp.has_api_key('p1')").unwrap(),
            Some(true)
        );
        run("CREATE ROLE mcp_t_nosy");
        run("SET LOCAL ROLE mcp_t_nosy");
        let e1 = err_of("SELECT * FROM mcp.provider_secret");
        let e2 = err_of("SELECT mcp.set_api_key('p1', 'sk-evil')");
        let visible =
            Spi::get_one::<JsonB>("SELECT to_jsonb(p) FROM mcp.provider p WHERE name = 'p1'")
                .unwrap()
                .unwrap()
                .0;
        run("RESET ROLE");
        assert!(e1.starts_with("42501"), "{e1}");
        assert!(e2.starts_with("42501"), "{e2}");
        assert!(!visible.to_string().contains("sk-test"));
        let e3 = err_of("SELECT mcp.set_api_key('nope', 'sk-test-DO-NOT-LEAK-123')");
        assert!(e3.starts_with("42704") && !e3.contains("sk-test"), "{e3}");
    }

    #[pg_test]
    fn owner_statements_ignore_the_callers_search_path() {
        // A role that puts its own "=" before pg_catalog must not get it run with the extension
        // owner's privileges (audit writes, the API-key read are made as the owner).
        chat_registry("tool_then_answer");
        run("CREATE TABLE public.hijack_log (who text)");
        run("GRANT INSERT ON public.hijack_log TO PUBLIC");
        run("CREATE SCHEMA evil");
        run("GRANT USAGE ON SCHEMA evil TO PUBLIC");
        for (ty, f) in [("text", "texteq"), ("uuid", "uuideq")] {
            run(&format!(
            "CREATE FUNCTION evil.{f}(a {ty}, b {ty}) RETURNS boolean LANGUAGE plpgsql AS $$
             BEGIN INSERT INTO public.hijack_log VALUES (current_user); RETURN a OPERATOR(pg_catalog.=) b; END $$"
        ));
            run(&format!(
                "CREATE OPERATOR evil.= (LEFTARG = {ty}, RIGHTARG = {ty}, FUNCTION = evil.{f})"
            ));
        }
        run("DROP ROLE IF EXISTS mcp_sp_user");
        run("CREATE ROLE mcp_sp_user NOLOGIN");
        run("GRANT EXECUTE ON FUNCTION public.get_tarif(text, text, int) TO mcp_sp_user");
        run("GRANT SELECT ON public.tarif TO mcp_sp_user");
        run("UPDATE mcp.interface SET access_role = 'mcp_sp_user' WHERE name = 'chatbot'");
        // a writing tool, so that the hijack's INSERT (run as the caller) can take effect: a
        // read-only tool's subtransaction would refuse it
        run("UPDATE mcp.tool SET read_only = false WHERE name = 'getTarifVertrag'");
        run("SET LOCAL ROLE mcp_sp_user");
        run("SET LOCAL search_path = evil, pg_catalog, public");
        let r = q("SELECT mcp.chat('Welche Tarifverträge gelten für Metall in Bayern?')");
        let call = q(
            r#"SELECT mcp.call_tool('getTarifVertrag', '{"tarifgebiet": "Bayern", "fachbereich": "Metall"}')"#,
        );
        run("SET LOCAL search_path = public");
        run("RESET ROLE");
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(call["isError"], false, "{call}");
        // the hijacked operator did run (as the caller, where pg_mcp resolves names the caller's
        // way), but never as the owner
        let by_owner = Spi::get_one::<i64>(
        "SELECT count(*) FROM public.hijack_log h JOIN pg_catalog.pg_roles r ON r.rolname = h.who
          WHERE r.oid = (SELECT extowner FROM pg_catalog.pg_extension WHERE extname = 'pg_mcp')",
    )
    .unwrap();
        assert_eq!(by_owner, Some(0));
        let by_caller =
            Spi::get_one::<i64>("SELECT count(*) FROM public.hijack_log WHERE who = 'mcp_sp_user'")
                .unwrap();
        assert!(
            by_caller.unwrap_or(0) > 0,
            "the hijack did not take effect at all: the test proves nothing"
        );
    }
}
