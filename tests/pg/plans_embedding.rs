//! The embedding signal of plan ranking (with retrieval's embedding models): with the interface's
//! embedding model, mcp.analyze ranks a plan by the question's similarity to its example
//! questions and its description (0.3 x the closest example's + 0.7 x the description's),
//! above the question's floor; the vectors are stored per model fingerprint, refreshed when the
//! examples change and never compared under another fingerprint; a failing model leaves the
//! signal out.
//! The shipped local model (all-MiniLM-L6-v2) is English-only, so the examples are English.

#[pgrx::pg_schema]
mod tests {
    use crate::tests::*;

    const PE_MODEL_DIR: &str = "/usr/local/share/pg_mcp/models/all-MiniLM-L6-v2";
    /// No entity, no word in common with any plan's description or examples; close in meaning
    /// to pe_holiday's example.
    const PE_QUESTION: &str = "Paid holidays: amount of time off from work?";

    fn pe_analyze(question: &str) -> Value {
        Spi::get_one_with_args::<JsonB>("SELECT mcp.analyze($1, 'pe')", &[question.into()])
            .unwrap()
            .unwrap()
            .0
    }

    fn pe_f64(sql: &str) -> f64 {
        Spi::get_one::<f64>(sql).unwrap().unwrap()
    }

    /// Interface 'pe' (no model yet), the local model 'pe_minilm', three plans whose German
    /// descriptions share no word with PE_QUESTION.
    fn pe_setup() {
        run("INSERT INTO mcp.interface (name) VALUES ('pe')");
        Spi::run_with_args(
            "INSERT INTO mcp.embedding_model (name, kind, dimension, path) VALUES ('pe_minilm', 'local', 384, $1)",
            &[PE_MODEL_DIR.into()],
        )
        .unwrap();
        run(
            r#"INSERT INTO mcp.plan (name, interface, description, examples) VALUES
            ('pe_holiday', 'pe', 'Urlaubsanspruch nach Tarifvertrag', '{"How many vacation days do I get per year?"}'),
            ('pe_pay', 'pe', 'Entgelttabellen und Lohnhöhe', '{"What is the monthly salary in pay group 5?"}'),
            ('pe_notice', 'pe', 'Kündigungsfristen', '{"How long is my notice period?"}')"#,
        );
    }

    fn plan_names(a: &Value) -> Vec<String> {
        a["plans"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    }

    #[pg_test]
    fn plan_embedding_ranks_a_close_example_first_only_with_a_model() {
        pe_setup();
        // without a model: no entity, no word of any plan, so no plan at all
        let a = pe_analyze(PE_QUESTION);
        assert_eq!(a["entities"], json!([]), "{a}");
        assert_eq!(a["plans"], json!([]), "{a}");
        // a plan that scores without the model keeps its score and why unchanged
        let b = pe_analyze("Kündigungsfristen?");
        // the word as the German Snowball stemmer of this PostgreSQL stems it: 15 keeps the
        // folded "ue" (kuendigungsfrist), 18's newer Snowball reads "ue" as "ü" (kundigungsfrist)
        let stem =
            Spi::get_one::<String>("SELECT (ts_lexize('german_stem', 'kuendigungsfristen'))[1]")
                .unwrap()
                .unwrap();
        assert_eq!(
            b["plans"],
            json!([{"name": "pe_notice", "score": 1.0,
                    "why": {"explained": 1.0, "entities": null, "keyword": 1.0, "coverage": 1,
                            "words": [stem], "embedding": null, "missing": []}}]),
            "{b}"
        );

        run("UPDATE mcp.interface SET embedding_model = 'pe_minilm' WHERE name = 'pe'");
        let a = pe_analyze(PE_QUESTION);
        assert_eq!(plan_names(&a)[0], "pe_holiday", "{a}");
        let best = &a["plans"][0];
        assert_eq!(
            best["why"]["example"],
            "How many vacation days do I get per year?"
        );
        // (a plan without required kinds misses none: coverage 1)
        assert_eq!(best["why"]["coverage"], json!(1));
        assert_eq!(best["why"]["keyword"].as_f64(), Some(0.0));
        let sim = best["why"]["embedding"].as_f64().unwrap();
        // the similarity is 0.3 x the cosine (negative as 0) to the closest example + 0.7 x the
        // one to the description, with the vectors as mcp.embed gives them
        let direct = pe_f64(&format!(
            "SELECT 0.3 * GREATEST(0, 1 - (v[1] <=> v[2])) + 0.7 * GREATEST(0, 1 - (v[1] <=> v[3]))
               FROM (SELECT mcp.embed(ARRAY['{PE_QUESTION}', 'How many vacation days do I get per year?',
                                             'Urlaubsanspruch nach Tarifvertrag'], 'pe_minilm') v) x"
        ));
        assert!((direct - sim).abs() < 0.0006, "{direct} vs {sim}");
        // the score is 0.7 x the similarity above the floor (the question shares no word with
        // any plan); the plan at the floor (the lowest similarity) scores 0 and is left out
        let above = best["why"]["embedding_above_floor"].as_f64().unwrap();
        assert!(above > 0.0 && above < sim, "{a}");
        let score = best["score"].as_f64().unwrap();
        assert!(
            (score - (0.7 * above * 1000.0).round() / 1000.0).abs() < 0.0011,
            "{a}"
        );
        assert_eq!(a["plans"].as_array().unwrap().len(), 2, "{a}");
        // ahead of the others, whose similarity is also shown
        for p in &a["plans"].as_array().unwrap()[1..] {
            assert!(p["why"]["embedding"].as_f64().unwrap() < sim, "{a}");
        }
        // with the model, the keyword-only plan still comes first on its keyword
        let b = pe_analyze("Kündigungsfristen?");
        assert_eq!(plan_names(&b)[0], "pe_notice", "{b}");
    }

    #[pg_test]
    fn plan_embedding_vectors_are_stored_and_follow_example_changes() {
        pe_setup();
        run("UPDATE mcp.interface SET embedding_model = 'pe_minilm' WHERE name = 'pe'");
        pe_analyze(PE_QUESTION);
        let fingerprint = Spi::get_one::<String>(
            "SELECT fingerprint FROM mcp.embedding_model WHERE name = 'pe_minilm'",
        )
        .unwrap()
        .unwrap();
        let rows = q("SELECT jsonb_agg(jsonb_build_array(plan, model, example, fingerprint = (SELECT fingerprint FROM mcp.embedding_model WHERE name = 'pe_minilm'))
                        ORDER BY plan, example) FROM mcp.plan_example_embedding");
        assert_eq!(
            rows,
            json!([
                [
                    "pe_holiday",
                    "pe_minilm",
                    "How many vacation days do I get per year?",
                    true
                ],
                [
                    "pe_holiday",
                    "pe_minilm",
                    "Urlaubsanspruch nach Tarifvertrag",
                    true
                ],
                [
                    "pe_notice",
                    "pe_minilm",
                    "How long is my notice period?",
                    true
                ],
                ["pe_notice", "pe_minilm", "Kündigungsfristen", true],
                ["pe_pay", "pe_minilm", "Entgelttabellen und Lohnhöhe", true],
                [
                    "pe_pay",
                    "pe_minilm",
                    "What is the monthly salary in pay group 5?",
                    true
                ]
            ]),
            "{fingerprint}"
        );
        // the stored vectors are what analyze compares: a plan's (its example's and its
        // description's) replaced by the question's own vector give similarity 1
        run(&format!(
            "UPDATE mcp.plan_example_embedding SET embedding = (mcp.embed(ARRAY['{PE_QUESTION}'], 'pe_minilm'))[1]
              WHERE plan = 'pe_pay'"
        ));
        let a = pe_analyze(PE_QUESTION);
        assert_eq!(plan_names(&a)[0], "pe_pay", "{a}");
        assert_eq!(a["plans"][0]["why"]["embedding"].as_f64(), Some(1.0), "{a}");

        // a changed example: its old vector goes, the new one is computed and used
        run("UPDATE mcp.plan SET examples = '{\"Where do I see my salary?\", \"How much time off work do I get?\"}' WHERE name = 'pe_notice'");
        let a = pe_analyze(PE_QUESTION);
        let notice = a["plans"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "pe_notice")
            .unwrap()
            .clone();
        assert_eq!(
            notice["why"]["example"], "How much time off work do I get?",
            "{a}"
        );
        assert_eq!(
            q("SELECT jsonb_agg(example ORDER BY example) FROM mcp.plan_example_embedding WHERE plan = 'pe_notice'"),
            json!([
                "How much time off work do I get?",
                "Kündigungsfristen",
                "Where do I see my salary?"
            ])
        );
        // a removed plan takes its vectors with it
        run("DELETE FROM mcp.plan WHERE name = 'pe_pay'");
        assert_eq!(
            Spi::get_one::<i64>(
                "SELECT count(*) FROM mcp.plan_example_embedding WHERE plan = 'pe_pay'"
            )
            .unwrap(),
            Some(0)
        );

        // in a read-only transaction new example vectors are used without being stored
        run("UPDATE mcp.plan SET examples = '{\"Paid holidays: amount of time off from work?\"}' WHERE name = 'pe_holiday'");
        run("SET LOCAL transaction_read_only = on");
        let a = pe_analyze(PE_QUESTION);
        assert_eq!(plan_names(&a)[0], "pe_holiday", "{a}");
        assert_eq!(a["plans"][0]["why"]["example"], PE_QUESTION, "{a}");
        // (the example's similarity 1, the description's as stored)
        let description = pe_f64(&format!(
            "SELECT GREATEST(0, 1 - (e.embedding <=> (mcp.embed(ARRAY['{PE_QUESTION}'], 'pe_minilm'))[1]))
               FROM mcp.plan_example_embedding e WHERE e.plan = 'pe_holiday' AND e.example = 'Urlaubsanspruch nach Tarifvertrag'"
        ));
        let sim = a["plans"][0]["why"]["embedding"].as_f64().unwrap();
        assert!((sim - (0.3 + 0.7 * description)).abs() < 0.0006, "{a}");
        assert!(a["plans"][0]["why"].get("embedding_error").is_none(), "{a}");
        assert_eq!(
            q("SELECT jsonb_agg(example ORDER BY example) FROM mcp.plan_example_embedding WHERE plan = 'pe_holiday'"),
            json!([
                "How many vacation days do I get per year?",
                "Urlaubsanspruch nach Tarifvertrag"
            ])
        );
    }

    #[pg_test]
    fn plan_embedding_other_fingerprint_is_never_compared() {
        pe_setup();
        run("UPDATE mcp.interface SET embedding_model = 'pe_minilm' WHERE name = 'pe'");
        let before = pe_analyze(PE_QUESTION);
        let sim = before["plans"][0]["why"]["embedding"].as_f64().unwrap();
        // stored vectors of an older fingerprint (made to match the question exactly): not
        // compared, replaced by vectors of the current fingerprint
        run(&format!(
            "UPDATE mcp.plan_example_embedding SET fingerprint = 'local:sha256:older',
                    embedding = (mcp.embed(ARRAY['{PE_QUESTION}'], 'pe_minilm'))[1]"
        ));
        let a = pe_analyze(PE_QUESTION);
        assert_eq!(plan_names(&a), plan_names(&before), "{a}");
        assert_eq!(a["plans"][0]["why"]["embedding"].as_f64(), Some(sim), "{a}");
        assert_eq!(
            q("SELECT jsonb_agg(DISTINCT e.fingerprint = m.fingerprint) FROM mcp.plan_example_embedding e
                 JOIN mcp.embedding_model m ON m.name = e.model"),
            json!([true])
        );
        assert!(
            pe_f64("SELECT max(e.embedding <=> (mcp.embed(ARRAY[e.example], 'pe_minilm'))[1]) FROM mcp.plan_example_embedding e")
                < 1e-6
        );

        // the model's registered fingerprint changes (its files no longer match): no signal, the
        // ranking without it, and why says so
        run("UPDATE mcp.embedding_model SET fingerprint = 'local:sha256:0000' WHERE name = 'pe_minilm'");
        let a = pe_analyze("Kündigungsfristen?");
        assert_eq!(plan_names(&a), ["pe_notice"], "{a}");
        let why = &a["plans"][0]["why"];
        assert_eq!(a["plans"][0]["score"].as_f64(), Some(1.0), "{a}");
        assert_eq!(why["embedding"], Value::Null, "{a}");
        let err = why["embedding_error"].as_str().unwrap();
        assert!(
            err.contains("model mismatch") && err.contains("pe_minilm"),
            "{a}"
        );
        assert_eq!(pe_analyze(PE_QUESTION)["plans"], json!([]));
        // without a model there is no such key
        run("UPDATE mcp.interface SET embedding_model = NULL WHERE name = 'pe'");
        assert!(pe_analyze(PE_QUESTION).get("embedding_error").is_none());
    }

    #[pg_test]
    fn plan_embedding_server_down_ranks_without_the_signal() {
        pe_setup();
        run("INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ('pe_down', 'openai', 'http://127.0.0.1:9/v1', 'none')");
        run("INSERT INTO mcp.embedding_model (name, kind, dimension, provider, model) VALUES ('pe_remote', 'openai', 8, 'pe_down', 'e')");
        run("UPDATE mcp.interface SET embedding_model = 'pe_remote' WHERE name = 'pe'");
        let a = pe_analyze("Kündigungsfristen?");
        assert_eq!(plan_names(&a), ["pe_notice"], "{a}");
        assert_eq!(a["plans"][0]["score"].as_f64(), Some(1.0), "{a}");
        let err = a["plans"][0]["why"]["embedding_error"].as_str().unwrap();
        assert!(err.contains("pe_remote"), "{a}");
        // also at the top level, where it shows when no plan scores at all
        assert_eq!(a["embedding_error"].as_str(), Some(err), "{a}");
        let none = pe_analyze(PE_QUESTION);
        assert_eq!(none["plans"], json!([]), "{none}");
        assert!(
            none["embedding_error"]
                .as_str()
                .unwrap()
                .contains("pe_remote"),
            "{none}"
        );
        assert_eq!(
            Spi::get_one::<i64>("SELECT count(*) FROM mcp.plan_example_embedding").unwrap(),
            Some(0)
        );
    }
}
