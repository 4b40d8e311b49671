//! Execution plans inside mcp.chat: an ask step ends the run without any LLM request
//! and the session continues like getDialog; a pre-step tool result, the step's tool subset and
//! tool_choice reach the first LLM request as sent; the choice is in mcp.run.plan and
//! mcp.recent_runs.

#[pgrx::pg_schema]
mod tests {
    use crate::tests::*;

    /// A thesaurus, a prompt and a plan over demo_registry's chatbot; the provider points at the
    /// mock scenario `scenario`.
    fn p12_setup(scenario: &str) {
        demo_registry();
        scenario_provider("openai", scenario, "mock-model");
        run(r#"UPDATE mcp.interface SET provider = 'scenario' WHERE name = 'chatbot'"#);
        run(r#"SELECT mcp.load_thesaurus('{"terms": [
        {"id": "by", "kind": "tarifgebiet", "label": "Bayern", "alt_labels": ["BY", "bayerisch"]},
        {"id": "me", "kind": "fachbereich", "label": "Metall", "alt_labels": ["Metallindustrie", "M+E"]},
        {"id": "urlaub", "kind": "thema", "label": "Urlaub"}]}')"#);
        run(r#"INSERT INTO mcp.prompt (name, template, variables) VALUES
           ('p12_ctx', 'Gebiet: {{tarifgebiet}}; Bereich: {{fachbereich}}.', '{tarifgebiet,fachbereich}')"#);
        run(
            r#"INSERT INTO mcp.plan (name, interface, description, examples, required_kinds, optional_kinds) VALUES
           ('p12_tarif', 'chatbot', 'Welche Tarifverträge gelten in einem Tarifgebiet und Fachbereich',
            '{"Welche Tarifverträge gelten für Metall in Bayern?"}', '{tarifgebiet,fachbereich}', '{thema}')"#,
        );
        run(
            r#"INSERT INTO mcp.plan_step (plan, position, kind, ask_kind, question) VALUES
           ('p12_tarif', 1, 'ask', 'tarifgebiet', 'Für welches Tarifgebiet?')"#,
        );
        run(
            r#"INSERT INTO mcp.plan_step (plan, position, kind, prompt) VALUES ('p12_tarif', 2, 'prompt', 'p12_ctx')"#,
        );
        run(
            r#"INSERT INTO mcp.plan_step (plan, position, kind, tool, arguments) VALUES
           ('p12_tarif', 3, 'retrieve', 'getTarifVertrag', '{"tarifgebiet": "{{tarifgebiet}}", "fachbereich": "{{fachbereich}}"}')"#,
        );
        run(
            r#"INSERT INTO mcp.plan_step (plan, position, kind, tools, tool_choice) VALUES
           ('p12_tarif', 4, 'llm', '{getTarifVertrag}', 'function:getTarifVertrag')"#,
        );
    }

    fn p12_chat(question: &str, session: Option<&str>, options: Value) -> Value {
        Spi::get_one_with_args::<JsonB>(
            "SELECT mcp.chat($1, 'chatbot', $2::uuid, $3)",
            &[question.into(), session.into(), JsonB(options).into()],
        )
        .unwrap()
        .unwrap()
        .0
    }

    #[pg_test]
    fn plan_ask_step_calls_no_llm_and_the_session_continues() {
        mock_scenario(
            "p12_ask",
            // (the mock answers by the number of assistant messages in the request: the ask and the
            // pre-step's tool call come before the first request of the continued run)
            &json!({"steps": [{"say": "nie"}, {"say": "nie"}, {"call": [{"id": "c1", "name": "getTarifVertrag",
                                      "arguments": {"tarifgebiet": "Bayern", "fachbereich": "Metall"}}]},
                          {"say": "Es gilt der MTV Metall Bayern."}]}),
        );
        p12_setup("p12_ask");
        // no region: the plan (it explains the question: Urlaub 0.8 as an optional kind, the branch
        // and both words 1, (0.8 + 3) / 4 = 0.95, x (1 - 0.1 x 1/2 required kinds missing)) asks for it
        let r = p12_chat(
            "Welche Tarifverträge gelten für Urlaub in der Metallindustrie?",
            None,
            json!({}),
        );
        assert_eq!(r["status"], "needs_input", "{r}");
        assert_eq!(r["answer"], "Für welches Tarifgebiet?");
        assert_eq!(r["iterations"], 0);
        assert_eq!(
            r["needs_input"]["missing_parameters"],
            json!(["tarifgebiet"])
        );
        // the mock LLM server saw no request at all
        assert!(mock_requests("p12_ask").is_empty());
        let plan = of_run("SELECT plan FROM mcp.run WHERE run_id = $1::uuid", &r);
        assert_eq!(plan["plan"], "p12_tarif", "{plan}");
        assert_eq!(
            plan["steps"],
            json!([{"position": 1, "kind": "ask", "asked": "tarifgebiet"}])
        );
        assert_eq!(
            of_run(
                "SELECT to_jsonb(plan) FROM mcp.recent_runs WHERE run_id = $1::uuid",
                &r
            ),
            json!("p12_tarif")
        );
        assert_eq!(
            Spi::get_one::<i64>(&format!(
                "SELECT count(*) FROM mcp.llm_request WHERE run_id IN {MY_RUNS}"
            ))
            .unwrap(),
            Some(0)
        );

        // the user's answer is analyzed with the question before it; the plan goes on
        let session = r["session_id"].as_str().unwrap().to_string();
        let r2 = p12_chat("Bayern", Some(&session), json!({}));
        assert_eq!(r2["status"], "completed", "{r2}");
        assert_eq!(r2["session_id"], r["session_id"]);
        let plan2 = of_run("SELECT plan FROM mcp.run WHERE run_id = $1::uuid", &r2);
        assert_eq!(plan2["plan"], "p12_tarif");
        assert_eq!(plan2["continued"], true);
        assert_eq!(plan2["steps"][0]["kind_found"], "tarifgebiet");
        let kinds: Vec<&str> = plan2["entities"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["term_id"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["urlaub", "me", "by"]);
        assert!(plan2["score"].as_f64().unwrap() >= 0.5, "{plan2}");
        let sent = mock_requests("p12_ask");
        assert_eq!(
            sent.len(),
            2,
            "one model phase: the forced call, then the answer"
        );
    }

    #[pg_test]
    fn plan_chosen_by_intent_without_any_entity_asks_for_the_missing_kind() {
        mock_scenario("p12_intent", &json!({"steps": [{"say": "nie"}]}));
        p12_setup("p12_intent");
        // no entity at all: the plan is chosen by its words ("Tarifverträge", "gelten": explained
        // 1, x (1 - 0.1 x 2/2 required kinds missing) = 0.9) and its first ask step asks for the
        // region, without an LLM request
        let r = p12_chat("Welche Tarifverträge gelten für mich?", None, json!({}));
        assert_eq!(r["status"], "needs_input", "{r}");
        assert_eq!(r["answer"], "Für welches Tarifgebiet?");
        assert!(mock_requests("p12_intent").is_empty());
        let plan = of_run("SELECT plan FROM mcp.run WHERE run_id = $1::uuid", &r);
        assert_eq!(plan["plan"], "p12_tarif", "{plan}");
        assert_eq!(
            plan["missing"],
            json!(["tarifgebiet", "fachbereich"]),
            "{plan}"
        );
        assert_eq!(plan["score"].as_f64(), Some(0.9), "{plan}");
    }

    /// Ranking: the plan whose kinds explain more of the question comes first (specificity), a
    /// plan without kinds is chosen by its words, compound parts meet their words, and ties go to
    /// the plan that found more of its required kinds rather than to the alphabet.
    #[pg_test]
    fn plan_ranking_rewards_specificity_intent_and_compound_parts() {
        run("INSERT INTO mcp.interface (name) VALUES ('rk')");
        run(r#"SELECT mcp.load_thesaurus('{"terms": [
        {"id": "rk_by", "kind": "rk_gebiet", "label": "Bayern"},
        {"id": "rk_me", "kind": "rk_branche", "label": "Metall"},
        {"id": "rk_urlaub", "kind": "rk_thema", "label": "Urlaub"}]}')"#);
        run(
            r#"INSERT INTO mcp.plan (name, interface, description, examples, required_kinds, optional_kinds) VALUES
           ('a_thema', 'rk', 'Auskunft zu einem Thema', '{}', '{rk_thema}', '{}'),
           ('b_tarif', 'rk', 'Auskunft zu einem Thema', '{}', '{rk_thema,rk_gebiet}', '{rk_branche}'),
           ('c_zahl', 'rk', 'Wie viele Verträge gibt es insgesamt', '{"Anzahl der Verträge"}', '{}', '{}'),
           ('d_bestellen', 'rk', 'Geräte bestellen', '{"Ich möchte einen Monitor bestellen"}', '{}', '{}')"#,
        );
        run(
            r#"INSERT INTO mcp.plan (name, interface, description, required_kinds, priority) VALUES
           ('e_thema', 'rk', 'Auskunft zu einem Thema', '{rk_thema}', 5)"#,
        );
        let names = |q: &str| -> Vec<String> {
            Spi::get_one_with_args::<JsonB>("SELECT mcp.analyze($1, 'rk')", &[q.into()])
                .unwrap()
                .unwrap()
                .0["plans"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["name"].as_str().unwrap().to_string())
                .collect()
        };
        let top = |q: &str| -> Value {
            Spi::get_one_with_args::<JsonB>(
                "SELECT mcp.analyze($1, 'rk') -> 'plans' -> 0",
                &[q.into()],
            )
            .unwrap()
            .map(|j| j.0)
            .unwrap_or(Value::Null)
        };
        // both plans have their required kinds; b_tarif also uses the region and the branch
        assert_eq!(names("Urlaub Metall Bayern")[0], "b_tarif");
        // only the topic: b_tarif misses the region, a_thema and e_thema explain it all and tie,
        // the tie goes to the admin's priority (e_thema), not to the alphabet (a_thema)
        assert_eq!(
            names("Auskunft Urlaub")[..3],
            ["e_thema", "a_thema", "b_tarif"]
        );
        // a plan without kinds reaches the threshold by its words
        let t = top("Wie viele Verträge gibt es?");
        assert_eq!(t["name"], "c_zahl", "{t}");
        assert!(t["score"].as_f64().unwrap() >= 0.5, "{t}");
        // a compound meets its parts: Monitorbestellung ~ Monitor, bestellen (a part counts 0.5)
        let t = top("Monitorbestellung");
        assert_eq!(t["name"], "d_bestellen", "{t}");
        assert_eq!(t["why"]["words"], json!(["monitorbestell~bestell"]), "{t}");
        assert_eq!(t["score"].as_f64(), Some(0.5), "{t}");
        // a question of another domain: no plan reaches the threshold
        let t = top("Wie wird das Wetter morgen?");
        assert!(
            t.is_null() || t["score"].as_f64().unwrap() < crate::plans::PLAN_MIN_SCORE,
            "{t}"
        );
    }

    /// mcp.rank_plans on given words, kinds and similarities: a second entity of a required kind
    /// fills no further slot (0.8, as an optional kind), so a plan that takes the kind as optional
    /// and knows the question's word wins a comparison; the embedding signal counts above the
    /// question's floor (the lowest similarity of any plan), weighted 0.7.
    #[pg_test]
    fn plan_ranking_second_entity_of_a_kind_and_the_embedding_floor() {
        run("INSERT INTO mcp.interface (name) VALUES ('rr')");
        run(
            r#"INSERT INTO mcp.plan (name, interface, description, examples, required_kinds, optional_kinds) VALUES
           ('rr_lookup', 'rr', 'Auskunft', '{}', '{rr_gebiet}', '{}'),
           ('rr_vergleich', 'rr', 'Vergleich', '{}', '{}', '{rr_gebiet}'),
           ('rr_other', 'rr', 'Sonstiges', '{}', '{}', '{}')"#,
        );
        let rank = |words: &str, kinds: &str, sim: Option<&str>| -> Value {
            Spi::get_one_with_args::<JsonB>(
                "SELECT mcp.rank_plans('rr', $1::text[], $2::text[], $3::jsonb)",
                &[words.into(), kinds.into(), sim.into()],
            )
            .unwrap()
            .unwrap()
            .0
        };
        let score = |r: &Value, name: &str| -> f64 {
            r.as_array()
                .unwrap()
                .iter()
                .find(|p| p["name"] == name)
                .map(|p| p["score"].as_f64().unwrap())
                .unwrap_or(0.0)
        };
        let stem = Spi::get_one::<String>("SELECT (ts_lexize('german_stem', 'vergleich'))[1]")
            .unwrap()
            .unwrap();
        // two regions and the word: lookup explains 1 + 0.8 of 3, vergleich 0.8 + 0.8 + 1
        let r = rank(&format!("{{{stem}}}"), "{rr_gebiet,rr_gebiet}", None);
        assert_eq!(r[0]["name"], "rr_vergleich", "{r}");
        assert_eq!(score(&r, "rr_lookup"), 0.6, "{r}");
        assert_eq!(score(&r, "rr_vergleich"), 0.867, "{r}");
        // one region: lookup's slot (1) beats the optional kind (0.8)
        let r = rank("{}", "{rr_gebiet}", None);
        assert_eq!(r[0]["name"], "rr_lookup", "{r}");
        // the embedding signal above the floor: similarities 0.9 / 0.85 / 0.8, floor 0.8, so
        // 0.5 / 0.25 / 0 above it; no word, no entity: the score is 0.7 x that, rr_other left out
        let sim = r#"{"rr_lookup": {"similarity": 0.9, "example": null},
                      "rr_vergleich": {"similarity": 0.85, "example": null},
                      "rr_other": {"similarity": 0.8, "example": null}}"#;
        let r = rank("{}", "{}", Some(sim));
        assert_eq!(r.as_array().unwrap().len(), 2, "{r}");
        assert_eq!(r[0]["name"], "rr_lookup", "{r}");
        assert_eq!(
            r[0]["why"]["embedding_above_floor"].as_f64(),
            Some(0.5),
            "{r}"
        );
        assert_eq!(score(&r, "rr_lookup"), 0.35, "{r}");
        assert_eq!(score(&r, "rr_vergleich"), 0.175, "{r}");
        // with the region: lookup 0.3 x 1 + 0.7 x 0.5, vergleich 0.3 x 0.8 + 0.7 x 0.25
        let r = rank("{}", "{rr_gebiet}", Some(sim));
        assert_eq!(score(&r, "rr_lookup"), 0.65, "{r}");
        assert_eq!(score(&r, "rr_vergleich"), 0.415, "{r}");
        assert!(r[0]["why"].get("off_domain").is_none(), "{r}");
        // off domain: the best similarity (0.9) below the interface's level (0.92, the plans'
        // examples' mean similarity to the other plans): a plan keeps the signal only when its
        // words and entities alone score >= 0.5. The region and two words no plan knows (0.5
        // each): lookup explains 1 of 2 and keeps it (0.3 x 0.5 + 0.7 x 0.5), vergleich 0.8 of 2
        // and gets 0.3 x 0.4 only, below the threshold with a model
        let off = r#"{"rr_lookup": {"similarity": 0.9, "example": null, "level": 0.92},
                      "rr_vergleich": {"similarity": 0.85, "example": null, "level": 0.92},
                      "rr_other": {"similarity": 0.8, "example": null, "level": 0.92}}"#;
        let r = rank("{wett,morg}", "{rr_gebiet}", Some(off));
        assert_eq!(score(&r, "rr_lookup"), 0.5, "{r}");
        assert_eq!(score(&r, "rr_vergleich"), 0.12, "{r}");
        assert_eq!(
            r[1]["why"]["embedding_above_floor"].as_f64(),
            Some(0.0),
            "{r}"
        );
        assert_eq!(r[0]["why"]["off_domain"], json!(true), "{r}");
        // the same at the level: both keep it
        let at = off.replace("0.92", "0.9");
        let r = rank("{wett,morg}", "{rr_gebiet}", Some(&at));
        assert_eq!(score(&r, "rr_vergleich"), 0.295, "{r}");
        assert!(r[0]["why"].get("off_domain").is_none(), "{r}");
        // without the region no plan keeps it: nothing scores
        let r = rank("{}", "{}", Some(off));
        assert_eq!(r, json!([]), "{r}");
    }

    #[pg_test]
    fn plan_pre_step_result_subset_and_tool_choice_reach_the_first_request() {
        mock_scenario(
            "p12_pre",
            &json!({"steps": [{"say": "nie"}, {"call": [{"id": "c1", "name": "getTarifVertrag",
                                      "arguments": {"tarifgebiet": "NRW", "fachbereich": "Chemie"}}]},
                          {"say": "MTV Metall Bayern."}]}),
        );
        p12_setup("p12_pre");
        let r = p12_chat(
            "Welche Tarifverträge gelten für Metall in Bayern?",
            None,
            json!({}),
        );
        assert_eq!(r["status"], "completed", "{r}");
        let sent = mock_requests("p12_pre");
        let first = &sent[0]["body"];
        // the step's tool_choice, as sent
        assert_eq!(
            first["tool_choice"],
            json!({"type": "function", "function": {"name": "getTarifVertrag"}}),
            "{first}"
        );
        // the step's tool subset (the interface also maps failTool, listTarif, getDialog)
        let tools: Vec<&str> = first["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(tools, ["getTarifVertrag"]);
        let msgs = first["messages"].as_array().unwrap();
        // the rendered prompt step, its values marked as data
        assert!(msgs.iter().any(|m| m["role"] == "system"
        && m["content"].as_str().unwrap_or("").contains(
            r#"Gebiet: <data name="tarifgebiet">Bayern</data>; Bereich: <data name="fachbereich">Metall</data>."#)), "{first}");
        // the pre-step: an assistant tool call and its result, after the question
        let n = msgs.len();
        assert_eq!(msgs[n - 3]["role"], "user");
        assert_eq!(msgs[n - 2]["tool_calls"][0]["id"], "plan_1");
        assert_eq!(
            msgs[n - 2]["tool_calls"][0]["function"]["name"],
            "getTarifVertrag"
        );
        assert_eq!(msgs[n - 1]["role"], "tool");
        assert_eq!(msgs[n - 1]["tool_call_id"], "plan_1");
        assert!(
            msgs[n - 1]["content"]
                .as_str()
                .unwrap()
                .contains("MTV Metall Bayern"),
            "{first}"
        );
        // the pre-step is audited as a tool call of the run
        assert_eq!(
        of_run(
            "SELECT jsonb_agg(tool_call_id ORDER BY call_id) FROM mcp.tool_call WHERE run_id = $1::uuid",
            &r
        ),
        json!(["plan_1", "c1"])
    );
        let plan = of_run("SELECT plan FROM mcp.run WHERE run_id = $1::uuid", &r);
        assert_eq!(plan["plan"], "p12_tarif");
        assert!(plan["score"].as_f64().unwrap() >= 0.5, "{plan}");
        assert_eq!(plan["steps"][2]["tool_call_id"], "plan_1");
        assert_eq!(plan["steps"][3]["tool_choice"], "function:getTarifVertrag");
    }

    #[pg_test]
    fn plan_fallback_and_named_plan() {
        mock_scenario(
            "p12_fallback",
            &json!({"steps": [{"say": "Keine Ahnung."}]}),
        );
        p12_setup("p12_fallback");
        // no plan scores enough: today's behaviour (every tool of the interface, its tool_choice)
        let r = p12_chat("Wie wird das Wetter morgen?", None, json!({}));
        assert_eq!(r["status"], "completed", "{r}");
        let sent = mock_requests("p12_fallback");
        assert_eq!(sent[0]["body"]["tools"].as_array().unwrap().len(), 4);
        let plan = of_run("SELECT plan FROM mcp.run WHERE run_id = $1::uuid", &r);
        assert_eq!(plan["plan"], Value::Null, "{plan}");
        assert_eq!(plan["steps"], json!([]));
        // options.plan names a plan; an unknown one is refused
        let e = err_of(r#"SELECT mcp.chat('x', 'chatbot', NULL, '{"plan": "nope"}')"#);
        assert!(
            e.starts_with("22023: mcp.chat options: plan \"nope\" is not an enabled plan"),
            "{e}"
        );
        let r = p12_chat(
            "Wie wird das Wetter morgen?",
            None,
            json!({"plan": "p12_tarif"}),
        );
        assert_eq!(r["status"], "needs_input", "{r}");
        let plan = of_run("SELECT plan FROM mcp.run WHERE run_id = $1::uuid", &r);
        assert_eq!(plan["forced"], true);
    }
    /// The entities mcp.analyze finds: (term_id, text, score).
    fn p12_found(question: &str) -> Vec<(String, String, f64)> {
        let a = Spi::get_one_with_args::<JsonB>("SELECT mcp.analyze($1)", &[question.into()])
            .unwrap()
            .unwrap()
            .0;
        a["entities"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["term_id"].as_str().unwrap().to_string(),
                    e["text"].as_str().unwrap().to_string(),
                    e["score"].as_f64().unwrap(),
                )
            })
            .collect()
    }

    #[pg_test]
    fn analyze_typos_in_multi_word_labels_and_first_letters() {
        run(r#"SELECT mcp.load_thesaurus('{"terms": [
        {"id": "sh", "kind": "tarifgebiet", "label": "Schleswig-Holstein"},
        {"id": "sn", "kind": "tarifgebiet", "label": "Sachsen"},
        {"id": "me", "kind": "fachbereich", "label": "Metall- und Elektroindustrie"},
        {"id": "eh", "kind": "fachbereich", "label": "Einzelhandel"},
        {"id": "ost", "kind": "tarifgebiet", "label": "Tarifgebiet Ost"}]}')"#);
        // exact multi-word labels score 1
        assert_eq!(
            p12_found("Urlaub in Schleswig-Holstein"),
            [("sh".into(), "Schleswig-Holstein".into(), 1.0)]
        );
        // one typo in the second word, in the first word (found by the second stem), in the
        // last word of a label with a stop word in between: found, below 1
        for (q, id, text) in [
            ("Urlaub in Schleswig-Holstien", "sh", "Schleswig-Holstien"),
            ("Urlaub in Schlewsig-Holstein", "sh", "Schlewsig-Holstein"),
            (
                "Entgelt der Metall- und Elektorindustrie",
                "me",
                "Metall- und Elektorindustrie",
            ),
        ] {
            let found = p12_found(q);
            assert_eq!(found.len(), 1, "{q}: {found:?}");
            assert_eq!(
                (found[0].0.as_str(), found[0].1.as_str()),
                (id, text),
                "{q}"
            );
            assert!(found[0].2 >= 0.6 && found[0].2 < 1.0, "{q}: {found:?}");
        }
        // two typos in one label, or a typo in a word of fewer than 5 letters: not found
        assert_eq!(p12_found("Urlaub in Schlewsig-Holstien"), []);
        assert_eq!(p12_found("Urlaub im Tarifgebiet Oft"), []);
        // a typo in the first letter of a word of >= 8 letters: found
        let found = p12_found("Urlaub im Rinzelhandel");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            (found[0].0.as_str(), found[0].1.as_str()),
            ("eh", "Rinzelhandel")
        );
        // shorter words keep the first-letter guard ("wachsen" is no typo of Sachsen)
        assert_eq!(p12_found("Wie wachsen die Löhne?"), []);
        assert_eq!(p12_found("Urlaub in Sachsen")[0].0, "sn");
    }
}
