//! Retrieval: chunking, ingestion, embeddings (local model and the openai kind against
//! the mock server), search modes, filters, row-level security, the context_retrieve gate.

#[pgrx::pg_schema]
mod tests {
    use crate::tests::*;

    const R_MODEL_DIR: &str = "/usr/local/share/pg_mcp/models/all-MiniLM-L6-v2";
    /// mcp.collection's defaults for the HNSW settings (sql/retrieval.sql).
    const R_HNSW_M: i32 = 16;
    const R_HNSW_EF_CONSTRUCTION: i32 = 200;
    const R_HNSW_EF_SEARCH: i32 = 100;

    fn r_i64(sql: &str) -> i64 {
        Spi::get_one::<i64>(sql)
            .expect("query ok")
            .expect("not null")
    }

    fn r_text(sql: &str) -> String {
        Spi::get_one::<String>(sql)
            .expect("query ok")
            .unwrap_or_default()
    }

    /// Creating a collection creates an index on mcp.chunk (a SHARE lock until the transaction
    /// ends) and then writes chunks: two such test transactions at once would deadlock, so the
    /// retrieval tests take turns.
    fn r_serial() {
        run("SELECT pg_advisory_xact_lock(13013)");
    }

    /// The shipped local model as 'minilm'.
    fn r_local_model() {
        r_serial();
        Spi::run_with_args(
            "INSERT INTO mcp.embedding_model (name, kind, dimension, path, access_role) VALUES ('minilm', 'local', 384, $1, 'public')",
            &[R_MODEL_DIR.into()],
        )
        .unwrap();
    }

    /// An openai-kind model on the mock server: scenario `scenario` answers vectors of
    /// `served` dimensions; the model is registered with `registered` dimensions.
    fn r_mock_model(name: &str, scenario: &str, served: usize, registered: usize) {
        r_serial();
        mock_scenario(
            scenario,
            &json!({"steps": [{"embedding_dimension": served}]}),
        );
        let base = mock_url();
        Spi::run_with_args(
            "INSERT INTO mcp.provider (name, kind, base_url, model) VALUES ($1, 'openai', $2, 'none')",
            &[format!("{name}_p").into(), format!("{base}/s/{scenario}/v1").into()],
        )
        .unwrap();
        Spi::run_with_args(
            "INSERT INTO mcp.embedding_model (name, kind, dimension, provider, model, batch_size, access_role)
             VALUES ($1, 'openai', $2, $3, 'mock-embed', 2, 'public')",
            &[
                name.into(),
                (registered as i32).into(),
                format!("{name}_p").into(),
            ],
        )
        .unwrap();
    }

    const R_CORPUS: [(&str, &str, &str, &str); 6] = [
        ("tv://metall-bayern/urlaub", "MTV Metall Bayern: Urlaub", "Bayern",
         "Beschäftigte der Metall- und Elektroindustrie in Bayern haben Anspruch auf 30 Arbeitstage Urlaub im Kalenderjahr. Das Urlaubsgeld beträgt 69 Prozent des Monatsentgelts."),
        ("tv://metall-bayern/arbeitszeit", "MTV Metall Bayern: Arbeitszeit", "Bayern",
         "Die regelmäßige wöchentliche Arbeitszeit beträgt 35 Stunden. Mehrarbeit wird mit einem Zuschlag von 25 Prozent vergütet."),
        ("tv://chemie-nrw/urlaub", "MTV Chemie NRW: Urlaub", "NRW",
         "In der chemischen Industrie in Nordrhein-Westfalen beträgt der Urlaub 30 Arbeitstage. Schichtarbeiter erhalten zusätzliche Freischichten."),
        ("tv://chemie-nrw/kuendigung", "MTV Chemie NRW: Kündigung", "NRW",
         "Die Kündigungsfrist beträgt sechs Wochen zum Quartalsende. Nach zehn Jahren Betriebszugehörigkeit verlängert sie sich auf drei Monate."),
        ("tv://handel-bw/entgelt", "ETV Handel Baden-Württemberg: Entgelt", "Baden-Württemberg",
         "Verkäuferinnen und Verkäufer der Entgeltgruppe 2 erhalten nach dem fünften Berufsjahr ein Monatsentgelt von 3.100 Euro."),
        ("tv://bau-bund/erschwernis", "BRTV Bau: Erschwerniszuschläge", "Bund",
         "Für Arbeiten in Schächten und bei Hitze werden Erschwerniszuschläge je Stunde gezahlt."),
    ];

    /// A collection over `model` holding R_CORPUS (metadata tarifgebiet).
    fn r_collection(name: &str, model: &str, purpose: &str) {
        Spi::run_with_args(
            "INSERT INTO mcp.collection (name, embedding_model, purpose, text_config, chunk_tokens, chunk_overlap)
             VALUES ($1, $2, $3, 'german', 64, 8)",
            &[name.into(), model.into(), purpose.into()],
        )
        .unwrap();
        for (uri, title, gebiet, body) in R_CORPUS {
            Spi::run_with_args(
                "SELECT mcp.ingest($1, $2, $3, $4, jsonb_build_object('tarifgebiet', $5::text))",
                &[
                    name.into(),
                    uri.into(),
                    title.into(),
                    body.into(),
                    gebiet.into(),
                ],
            )
            .unwrap();
        }
    }

    /// One raw HTTP exchange with the mock server (`head`: request line and headers, each ending in
    /// CRLF); the whole answer.
    fn r_mock_http(head: &str, body: &str) -> String {
        use std::io::{Read, Write};
        let base = mock_url();
        let addr = base.trim_start_matches("http://");
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        write!(s, "{head}Host: {addr}\r\nConnection: close\r\n\r\n{body}").unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    }

    fn r_uris(sql: &str) -> Vec<String> {
        Spi::connect(|c| {
            c.select(sql, None, &[])
                .unwrap()
                .map(|r| r.get::<String>(1).unwrap().unwrap_or_default())
                .collect()
        })
    }

    #[pg_test]
    fn retrieval_chunk_text_limits_overlap_and_formats() {
        let body = R_CORPUS
            .iter()
            .map(|c| c.3)
            .collect::<Vec<_>>()
            .join("\n\n");
        let (n, max) = Spi::get_two_with_args::<i64, i32>(
            "SELECT count(*), max(token_count) FROM mcp.chunk_text($1, 24, 4)",
            &[body.as_str().into()],
        )
        .unwrap();
        assert!(n.unwrap() > 4);
        assert!(max.unwrap() <= 24);
        // positions 0..n-1 in order
        let gaps = Spi::get_one_with_args::<i64>(
            "SELECT count(*) FROM (SELECT position, row_number() OVER () - 1 AS i FROM mcp.chunk_text($1, 24, 4)) s WHERE position <> i",
            &[body.as_str().into()],
        )
        .unwrap();
        assert_eq!(gaps, Some(0));
        let md = "# Urlaub\n\n30 Tage im Jahr.\n\n# Kündigung\n\nSechs Wochen zum Quartalsende.";
        let firsts = Spi::get_one_with_args::<Vec<String>>(
            "SELECT array_agg(left(text, 3) ORDER BY position) FROM mcp.chunk_text($1, 16, 0, 'markdown')",
            &[md.into()],
        )
        .unwrap()
        .unwrap();
        assert_eq!(firsts, vec!["# U", "# K"]);
        assert!(err_of("SELECT * FROM mcp.chunk_text('x', 10, 10)").starts_with("22023"));
        assert!(err_of("SELECT * FROM mcp.chunk_text('x', 10, 0, 'pdf')").starts_with("22023"));
        assert!(err_of("SELECT * FROM mcp.chunk_text('x', NULL)").starts_with("22004"));
        assert_eq!(r_i64("SELECT count(*) FROM mcp.chunk_text(NULL)"), 0);
    }

    #[pg_test]
    fn retrieval_local_model_embeds_in_the_backend() {
        r_local_model();
        // the fingerprint was filled in from the files
        assert_eq!(
            r_text("SELECT fingerprint FROM mcp.embedding_model WHERE name = 'minilm'"),
            mcp_embed::fingerprint(std::path::Path::new(R_MODEL_DIR)).unwrap()
        );
        let dims = Spi::get_one::<Vec<i32>>(
            "SELECT array_agg(vector_dims(v)) FROM unnest(mcp.embed(ARRAY['Urlaub', 'Kündigung'], 'minilm')) v",
        )
        .unwrap()
        .unwrap();
        assert_eq!(dims, vec![384, 384]);
        // NULL texts stay NULL, in place
        assert_eq!(
            r_text("SELECT array_to_string(array_agg(v IS NULL ORDER BY o), ',') FROM unnest(mcp.embed(ARRAY['a', NULL, 'b'], 'minilm')) WITH ORDINALITY AS t(v, o)"),
            "f,t,f"
        );
        // same as the library computes
        let v = r_text("SELECT (mcp.embed(ARRAY['Tarifvertrag'], 'minilm'))[1]::text");
        let ours: Vec<f32> = serde_json::from_str(&v).unwrap();
        let lib = mcp_embed::LocalModel::load(std::path::Path::new(R_MODEL_DIR))
            .unwrap()
            .embed(&["Tarifvertrag"]);
        assert!(mcp_embed::cosine(&ours, &lib[0]) > 0.9999);
        assert!(err_of("SELECT mcp.embed(ARRAY['x'], 'nope')").starts_with("42704"));
    }

    #[pg_test]
    fn retrieval_ingest_is_idempotent_and_replaces_changed_content() {
        r_local_model();
        run("INSERT INTO mcp.collection (name, embedding_model, chunk_tokens, chunk_overlap) VALUES ('kb', 'minilm', 32, 4)");
        let body = R_CORPUS[0].3.to_string() + " " + R_CORPUS[1].3;
        let first = q(&format!("SELECT mcp.ingest('kb', 'tv://a', 'A', '{body}')"));
        assert_eq!(first["status"], "inserted");
        let n = first["chunks"].as_i64().unwrap();
        assert!(n >= 2, "{first}");
        assert_eq!(r_i64("SELECT count(*) FROM mcp.chunk"), n);
        let ids_before =
            r_text("SELECT string_agg(chunk_id::text, ',' ORDER BY chunk_id) FROM mcp.chunk");
        // the same content again: nothing happens
        let again = q(&format!("SELECT mcp.ingest('kb', 'tv://a', 'A', '{body}')"));
        assert_eq!(again["status"], "unchanged");
        assert_eq!(again["document_id"], first["document_id"]);
        assert_eq!(
            r_text("SELECT string_agg(chunk_id::text, ',' ORDER BY chunk_id) FROM mcp.chunk"),
            ids_before
        );
        // changed content: the document's chunks are replaced
        let changed = q("SELECT mcp.ingest('kb', 'tv://a', 'A', 'Der Urlaub beträgt 31 Tage.')");
        assert_eq!(changed["status"], "replaced");
        assert_eq!(changed["document_id"], first["document_id"]);
        assert_eq!(changed["chunks"], 1);
        assert_eq!(r_i64("SELECT count(*) FROM mcp.chunk"), 1);
        assert_eq!(
            r_text("SELECT text FROM mcp.chunk"),
            "Der Urlaub beträgt 31 Tage."
        );
        assert_eq!(r_i64("SELECT count(*) FROM mcp.document"), 1);
        // changed metadata alone is a change too
        let meta = q("SELECT mcp.ingest('kb', 'tv://a', 'A', 'Der Urlaub beträgt 31 Tage.', '{\"tarifgebiet\": \"Bayern\"}')");
        assert_eq!(meta["status"], "replaced");
        // clean errors
        assert!(err_of("SELECT mcp.ingest('nope', 'u', 't', 'b')").starts_with("42704"));
        assert!(err_of("SELECT mcp.ingest('kb', 'u', 't', 'b', '[1]')").starts_with("22023"));
        assert!(err_of("SELECT mcp.ingest('kb', NULL, 't', 'b')").starts_with("22004"));
        assert!(
            err_of("SELECT mcp.ingest('kb', 'u', 't', 'b', '{}', 'application/pdf')")
                .starts_with("22023")
        );
    }

    #[pg_test]
    fn retrieval_collection_index_and_dimension_rules() {
        r_local_model();
        run("INSERT INTO mcp.collection (name, embedding_model) VALUES ('kb', 'minilm')");
        let id = r_i64("SELECT collection_id::int8 FROM mcp.collection WHERE name = 'kb'");
        let def = r_text(&format!(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'chunk_hnsw_{id}'"
        ));
        assert!(
            def.contains("USING hnsw")
                && def.contains("vector(384)")
                && def.contains(&format!("collection_id = {id}")),
            "{def}"
        );
        assert_eq!(
            r_i64("SELECT dimension::int8 FROM mcp.collection WHERE name = 'kb'"),
            384
        );
        // the search's expression and predicate match the index
        run("SELECT mcp.ingest('kb', 'u', 't', 'Urlaub im Kalenderjahr')");
        let probe = r_text("SELECT embedding::text FROM mcp.chunk LIMIT 1");
        run("SET LOCAL enable_seqscan = off");
        run("SET LOCAL enable_sort = off");
        let plan = Spi::connect(|c| {
            c.select(
                &format!(
                    "EXPLAIN SELECT chunk_id FROM mcp.chunk WHERE collection_id = {id}
                          ORDER BY embedding::vector(384) <=> '{probe}'::vector(384) LIMIT 3"
                ),
                None,
                &[],
            )
            .unwrap()
            .map(|r| r.get::<String>(1).unwrap().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")
        });
        assert!(plan.contains(&format!("chunk_hnsw_{id}")), "{plan}");
        // another dimension than the model's is refused; model, dimension, fingerprint are fixed
        assert!(err_of("INSERT INTO mcp.collection (name, embedding_model, dimension) VALUES ('x', 'minilm', 8)").starts_with("22023"));
        assert!(
            err_of("UPDATE mcp.collection SET fingerprint = 'x' WHERE name = 'kb'")
                .starts_with("55000")
        );
        assert!(err_of("INSERT INTO mcp.collection (name, embedding_model, text_config) VALUES ('y', 'minilm', 'klingonisch')").starts_with("42704"));
        // a chunk of another dimension is refused
        let doc = r_i64("SELECT document_id FROM mcp.document");
        assert!(err_of(&format!(
            "INSERT INTO mcp.chunk (document_id, collection_id, position, text, token_count, embedding, tsv)
             VALUES ({doc}, {id}, 9, 'x', 1, '[1,2,3]', ''::tsvector)"
        ))
        .starts_with("22000"));
        // dropping the collection drops its index and its documents
        run("DELETE FROM mcp.collection WHERE name = 'kb'");
        assert_eq!(
            r_i64(&format!(
                "SELECT count(*) FROM pg_indexes WHERE indexname = 'chunk_hnsw_{id}'"
            )),
            0
        );
        assert_eq!(r_i64("SELECT count(*) FROM mcp.chunk"), 0);
    }

    #[pg_test]
    fn retrieval_model_mismatch_is_refused() {
        r_local_model();
        run("INSERT INTO mcp.collection (name, embedding_model) VALUES ('kb', 'minilm')");
        run("SELECT mcp.ingest('kb', 'u', 't', 'Urlaub im Kalenderjahr')");
        // the registered model changes (other files): the collection's vectors no longer compare
        run("UPDATE mcp.embedding_model SET fingerprint = 'local:sha256:0000' WHERE name = 'minilm'");
        let e = err_of("SELECT mcp.ingest('kb', 'u2', 't', 'Kündigungsfrist')");
        assert!(
            e.starts_with("55000") && e.contains("model mismatch"),
            "{e}"
        );
        let e = err_of("SELECT * FROM mcp.search('kb', 'Urlaub')");
        assert!(
            e.starts_with("55000") && e.contains("model mismatch"),
            "{e}"
        );
        // and the backend refuses model files that differ from the registered fingerprint
        let e = err_of("SELECT mcp.embed(ARRAY['x'], 'minilm')");
        assert!(
            e.starts_with("55000") && e.contains("model mismatch"),
            "{e}"
        );
        // text search needs no embedding
        assert_eq!(
            r_i64("SELECT count(*) FROM mcp.search('kb', 'Urlaub', mode => 'text')"),
            1
        );
    }

    #[pg_test]
    fn retrieval_openai_kind_against_the_mock() {
        r_mock_model("hash8", "r_embed8", 8, 8);
        run("SELECT mcp.set_api_key('hash8_p', 'sk-pgtest-SECRET-emb1')");
        let v = r_text("SELECT (mcp.embed(ARRAY['Urlaub Bayern', 'x', 'y'], 'hash8'))[1]::text");
        let got: Vec<f32> = serde_json::from_str(&v).unwrap();
        // what the server itself answers for that text
        let want: Vec<f32> = {
            let body = r#"{"model": "mock-embed", "input": ["Urlaub Bayern"]}"#;
            let reply = r_mock_http(&format!(
                "POST /s/r_embed8/v1/embeddings HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
                body.len()
            ), body);
            let json: Value =
                serde_json::from_str(reply.split("\r\n\r\n").nth(1).unwrap()).unwrap();
            serde_json::from_value(json["data"][0]["embedding"].clone()).unwrap()
        };
        assert_eq!(got.len(), 8);
        for (a, b) in got.iter().zip(&want) {
            assert!((a - b).abs() < 1e-6, "{got:?} vs {want:?}");
        }
        assert_eq!(
            r_text("SELECT fingerprint FROM mcp.embedding_model WHERE name = 'hash8'"),
            "openai:mock-embed:8"
        );
        // batched (batch_size 2: three texts are two requests), with the provider's key
        let reqs = r_mock_http("GET /_mock/requests?scenario=r_embed8 HTTP/1.1\r\n", "");
        assert!(
            reqs.matches("/s/r_embed8/v1/embeddings").count() >= 2,
            "{reqs}"
        );
        assert!(
            reqs.contains("Bearer sk-pgtest-SECRET-emb1"),
            "the key is sent"
        );
        // ingest and search through the openai kind
        r_collection("kb8", "hash8", "search");
        let top = r_uris("SELECT uri FROM mcp.search('kb8', 'Kündigungsfrist Quartalsende Betriebszugehörigkeit', 1, 'vector')");
        assert_eq!(top, vec!["tv://chemie-nrw/kuendigung"]);
    }

    /// An Azure-kind provider serves embeddings per deployment, with the api-version and the
    /// key in api-key (the embedding request used to go to {base}/embeddings with Bearer, which
    /// Azure refuses).
    #[pg_test]
    fn retrieval_azure_kind_embeddings_use_the_deployment_url_and_api_key() {
        r_mock_model("az8", "r_embed_az", 8, 8);
        let base = mock_url();
        Spi::run_with_args(
            "UPDATE mcp.provider SET kind = 'azure', base_url = $1, api_version = '2024-10-21' WHERE name = 'az8_p'",
            &[format!("{base}/s/r_embed_az").into()],
        )
        .unwrap();
        run("UPDATE mcp.embedding_model SET model = 'emb-deploy' WHERE name = 'az8'");
        run("SELECT mcp.set_api_key('az8_p', 'sk-pgtest-SECRET-az1')");
        let n =
            r_i64("SELECT cardinality(mcp.embed(ARRAY['Urlaub im Kalenderjahr'], 'az8'))::int8");
        assert_eq!(n, 1);
        let reqs = r_mock_http("GET /_mock/requests?scenario=r_embed_az HTTP/1.1\r\n", "");
        assert!(
            reqs.contains(
                "/s/r_embed_az/openai/deployments/emb-deploy/embeddings?api-version=2024-10-21"
            ),
            "{reqs}"
        );
        assert!(reqs.contains("sk-pgtest-SECRET-az1"), "the key is sent");
        assert!(
            !reqs.contains("Bearer sk-pgtest-SECRET-az1"),
            "as api-key, not Bearer: {reqs}"
        );
        // the request is audited: who, which model and provider, how much, never the text
        let row = q("SELECT to_jsonb(e) FROM mcp.embedding_request e WHERE model = 'az8' ORDER BY request_id DESC LIMIT 1");
        assert_eq!(row["provider"], "az8_p", "{row}");
        assert_eq!(row["texts"], 1, "{row}");
        assert_eq!(row["http_status"], 200, "{row}");
        assert_eq!(row["input_bytes"], "Urlaub im Kalenderjahr".len(), "{row}");
        assert!(
            row["url"]
                .as_str()
                .unwrap()
                .contains("/openai/deployments/emb-deploy/embeddings"),
            "{row}"
        );
        assert!(
            !row.to_string().contains("Kalenderjahr"),
            "no text in the audit row: {row}"
        );
        assert!(
            !row.to_string().contains("sk-pgtest-SECRET-az1"),
            "no key: {row}"
        );
    }

    #[pg_test]
    fn retrieval_server_down_or_wrong_dimension_writes_nothing() {
        r_mock_model("hash8", "r_embed8b", 8, 8);
        run("INSERT INTO mcp.collection (name, embedding_model) VALUES ('kb', 'hash8')");
        // connection refused (nothing listens on port 9)
        run("UPDATE mcp.provider SET base_url = 'http://127.0.0.1:9/v1' WHERE name = 'hash8_p'");
        let e = err_of("SELECT mcp.ingest('kb', 'u', 't', 'Urlaub im Kalenderjahr')");
        assert!(e.starts_with("08006"), "{e}");
        assert_eq!(r_i64("SELECT count(*) FROM mcp.document"), 0);
        // the server answers 503
        mock_scenario(
            "r_embed_down",
            &json!({"steps": [{"status": 503, "error": "overloaded"}]}),
        );
        Spi::run_with_args(
            "UPDATE mcp.provider SET base_url = $1 WHERE name = 'hash8_p'",
            &[format!("{}/s/r_embed_down/v1", mock_url()).into()],
        )
        .unwrap();
        let e = err_of("SELECT mcp.ingest('kb', 'u', 't', 'Urlaub im Kalenderjahr')");
        assert!(e.starts_with("08006") && e.contains("503"), "{e}");
        assert_eq!(r_i64("SELECT count(*) FROM mcp.document"), 0);
        // the server answers vectors of another dimension
        mock_scenario("r_embed5", &json!({"steps": [{"embedding_dimension": 5}]}));
        Spi::run_with_args(
            "UPDATE mcp.provider SET base_url = $1 WHERE name = 'hash8_p'",
            &[format!("{}/s/r_embed5/v1", mock_url()).into()],
        )
        .unwrap();
        let e = err_of("SELECT mcp.ingest('kb', 'u', 't', 'Urlaub im Kalenderjahr')");
        assert!(e.starts_with("22000") && e.contains("dimension 5"), "{e}");
        assert_eq!(r_i64("SELECT count(*) FROM mcp.document"), 0);
        assert_eq!(r_i64("SELECT count(*) FROM mcp.chunk"), 0);
        // a replaced document keeps its old chunks when the new embedding fails
        Spi::run_with_args(
            "UPDATE mcp.provider SET base_url = $1 WHERE name = 'hash8_p'",
            &[format!("{}/s/r_embed8b/v1", mock_url()).into()],
        )
        .unwrap();
        run("SELECT mcp.ingest('kb', 'u', 't', 'Urlaub im Kalenderjahr')");
        run("UPDATE mcp.provider SET base_url = 'http://127.0.0.1:9/v1' WHERE name = 'hash8_p'");
        assert!(err_of("SELECT mcp.ingest('kb', 'u', 't', 'Neuer Text')").starts_with("08006"));
        assert_eq!(
            r_text("SELECT string_agg(text, '|') FROM mcp.chunk"),
            "Urlaub im Kalenderjahr"
        );
    }

    #[pg_test]
    fn retrieval_hybrid_fuses_vector_and_text_ranks() {
        r_mock_model("hash8", "r_embed8c", 64, 64);
        r_collection("kb", "hash8", "search");
        // fusion by rank, equal weights (the default is fusion by score, text_weight 0.2:
        // retrieval_score_fusion_scales_each_leg)
        run("UPDATE mcp.collection SET fusion = 'rank', text_weight = 1 WHERE name = 'kb'");
        let query = "Urlaub Arbeitstage Kalenderjahr";
        let ranked = |mode: &str| -> Vec<i64> {
            Spi::connect(|c| {
                c.select(
                    &format!("SELECT chunk_id FROM mcp.search('kb', '{query}', 40, '{mode}')"),
                    None,
                    &[],
                )
                .unwrap()
                .map(|r| r.get::<i64>(1).unwrap().unwrap())
                .collect()
            })
        };
        let (vector, text, hybrid) = (ranked("vector"), ranked("text"), ranked("hybrid"));
        assert_eq!(vector.len(), 6);
        assert_eq!(
            text.len(),
            2,
            "only two chunks share a lexeme with the query: {text:?}"
        );
        let fused: Vec<i64> =
            mcp_retrieval::rrf(&[vector.clone(), text.clone()], mcp_retrieval::RRF_K)
                .into_iter()
                .map(|(id, _)| id)
                .collect();
        assert_eq!(hybrid, fused);
        // the fixed corpus's expected order: the two holiday passages first, Bayern's (more words
        // in common) ahead of NRW's
        let uris = r_uris(&format!(
            "SELECT uri FROM mcp.search('kb', '{query}', 3, 'hybrid')"
        ));
        assert_eq!(
            &uris[..2],
            ["tv://metall-bayern/urlaub", "tv://chemie-nrw/urlaub"]
        );
        // scores: 1/61 + 1/61 for a chunk first in both lists
        let s = Spi::get_one::<f64>(&format!(
            "SELECT score FROM mcp.search('kb', '{query}', 1, 'hybrid')"
        ))
        .unwrap()
        .unwrap();
        assert!(s <= 2.0 / 61.0 + 1e-12 && s > 1.0 / 61.0);
        assert!(err_of("SELECT * FROM mcp.search('kb', 'x', 3, 'fuzzy')").starts_with("22023"));
        assert!(err_of("SELECT * FROM mcp.search('kb', 'x', 0)").starts_with("22023"));
        assert!(err_of("SELECT * FROM mcp.search('nope', 'x')").starts_with("42704"));
    }

    /// The default fusion (score): each leg's scores scaled to 0..1 over its candidates (min to
    /// max), weighed by vector_weight 1 and text_weight 0.2; a chunk missing from a leg counts 0
    /// there. The hybrid score is that weighted mean and the ranking follows it.
    #[pg_test]
    fn retrieval_score_fusion_scales_each_leg() {
        r_mock_model("hash8", "r_embed8s", 64, 64);
        r_collection("kb", "hash8", "search");
        assert_eq!(
            r_text("SELECT fusion || ' ' || vector_weight || ' ' || text_weight FROM mcp.collection WHERE name = 'kb'"),
            "score 1 0.2"
        );
        let query = "Urlaub Arbeitstage Kalenderjahr";
        let scored = |mode: &str| -> Vec<(i64, f64)> {
            Spi::connect(|c| {
                c.select(
                    &format!(
                        "SELECT chunk_id, score FROM mcp.search('kb', '{query}', 40, '{mode}')"
                    ),
                    None,
                    &[],
                )
                .unwrap()
                .map(|r| {
                    (
                        r.get::<i64>(1).unwrap().unwrap(),
                        r.get::<f64>(2).unwrap().unwrap(),
                    )
                })
                .collect()
            })
        };
        let scaled = |leg: &[(i64, f64)], id: i64| -> f64 {
            let max = leg.iter().map(|x| x.1).fold(f64::MIN, f64::max);
            let min = leg.iter().map(|x| x.1).fold(f64::MAX, f64::min);
            match leg.iter().find(|x| x.0 == id) {
                Some(x) if max > min => (x.1 - min) / (max - min),
                _ => 0.0,
            }
        };
        let (vector, text, hybrid) = (scored("vector"), scored("text"), scored("hybrid"));
        assert_eq!(hybrid.len(), 6);
        assert_eq!(text.len(), 2);
        let mut last = f64::MAX;
        for (id, score) in &hybrid {
            let expected = (scaled(&vector, *id) + 0.2 * scaled(&text, *id)) / 1.2;
            assert!(
                (score - expected).abs() < 1e-6,
                "chunk {id}: {score} vs {expected}"
            );
            assert!(
                *score <= last + 1e-12,
                "not ranked by the fused score: {hybrid:?}"
            );
            last = *score;
        }
        // a chunk first in both legs scores 1
        assert!((hybrid[0].1 - 1.0).abs() < 1e-6 || hybrid[0].0 != text[0].0);
        assert!(err_of("UPDATE mcp.collection SET fusion = 'max'").starts_with("23514"));
    }

    #[pg_test]
    fn retrieval_filters_apply_before_top_k() {
        r_mock_model("hash8", "r_embed8d", 64, 64);
        run("INSERT INTO mcp.collection (name, embedding_model, text_config) VALUES ('kb', 'hash8', 'german')");
        // 40 NRW documents that match the query exactly, 3 Bayern documents that match it less
        for i in 0..40 {
            run(&format!(
                "SELECT mcp.ingest('kb', 'nrw/{i}', 'NRW {i}', 'Urlaub Arbeitstage Kalenderjahr Nummer{i}', '{{\"tarifgebiet\": \"NRW\"}}')"
            ));
        }
        for i in 0..3 {
            run(&format!(
                "SELECT mcp.ingest('kb', 'by/{i}', 'BY {i}', 'Urlaub Bayern Sonderregelung{i}', '{{\"tarifgebiet\": \"Bayern\"}}')"
            ));
        }
        run("SET LOCAL enable_seqscan = off");
        for mode in ["vector", "text", "hybrid"] {
            // unfiltered, the top 3 are NRW documents
            let top = r_uris(&format!(
                "SELECT uri FROM mcp.search('kb', 'Urlaub Arbeitstage Kalenderjahr', 3, '{mode}')"
            ));
            assert!(top.iter().all(|u| u.starts_with("nrw/")), "{mode}: {top:?}");
            // filtered, all three Bayern documents (a filter after the top 3 would leave none)
            let mut got = r_uris(&format!(
                "SELECT uri FROM mcp.search('kb', 'Urlaub Arbeitstage Kalenderjahr', 3, '{mode}', '{{\"tarifgebiet\": \"Bayern\"}}')"
            ));
            got.sort();
            assert_eq!(got, ["by/0", "by/1", "by/2"], "{mode}");
        }
        assert!(
            err_of("SELECT * FROM mcp.search('kb', 'x', 3, 'vector', '[1]')").starts_with("22023")
        );
    }

    #[pg_test]
    fn retrieval_rls_hides_other_roles_documents() {
        r_local_model();
        run("INSERT INTO mcp.collection (name, embedding_model, text_config) VALUES ('kb', 'minilm', 'german')");
        run("SELECT mcp.ingest('kb', 'public/urlaub', 'Urlaub', 'Der Urlaub beträgt 30 Arbeitstage.')");
        run("SELECT mcp.ingest('kb', 'hr/gehalt', 'Gehälter', 'Die Gehälter der Geschäftsführung und der Urlaub der Vorstände.')");
        run("DROP ROLE IF EXISTS r_hr");
        run("DROP ROLE IF EXISTS r_staff");
        run("CREATE ROLE r_hr NOLOGIN");
        run("CREATE ROLE r_staff NOLOGIN");
        run("GRANT SELECT ON mcp.document, mcp.chunk TO r_hr, r_staff");
        run("UPDATE mcp.document SET access_role = 'r_hr' WHERE uri = 'hr/gehalt'");
        run("SET LOCAL ROLE r_staff");
        for mode in ["vector", "text", "hybrid"] {
            let uris = r_uris(&format!(
                "SELECT uri FROM mcp.search('kb', 'Urlaub Gehälter', 10, '{mode}')"
            ));
            assert_eq!(uris, ["public/urlaub"], "{mode}");
        }
        assert_eq!(r_i64("SELECT count(*) FROM mcp.chunk"), 1);
        assert_eq!(r_i64("SELECT count(*) FROM mcp.document"), 1);
        run("RESET ROLE");
        run("SET LOCAL ROLE r_hr");
        let mut uris = r_uris("SELECT uri FROM mcp.search('kb', 'Urlaub Gehälter', 10, 'text')");
        uris.sort();
        assert_eq!(uris, ["hr/gehalt", "public/urlaub"]);
        run("RESET ROLE");
    }

    /// mcp.ingest of a URI another role's hidden document holds answers exactly as for a free
    /// URI (a unique violation would tell them apart), and never touches that document.
    #[pg_test]
    fn retrieval_ingest_does_not_tell_a_hidden_uri_from_a_free_one() {
        r_mock_model("hash8", "r_embed_hidden", 8, 8);
        run("INSERT INTO mcp.collection (name, embedding_model) VALUES ('kb', 'hash8')");
        run("DROP ROLE IF EXISTS r_owner_a");
        run("DROP ROLE IF EXISTS r_other_b");
        run("CREATE ROLE r_owner_a NOLOGIN");
        run("CREATE ROLE r_other_b NOLOGIN");
        run("GRANT SELECT, INSERT, UPDATE, DELETE ON mcp.document, mcp.chunk TO r_owner_a, r_other_b");
        run("SET LOCAL ROLE r_owner_a");
        run("SELECT mcp.ingest('kb', 'hr/secret', 'Geheim', 'Gehälter der Geschäftsführung')");
        run("RESET ROLE");
        run("UPDATE mcp.document SET access_role = 'r_owner_a' WHERE uri = 'hr/secret'");
        run("SET LOCAL ROLE r_other_b");
        let taken = q("SELECT mcp.ingest('kb', 'hr/secret', 'Mein', 'Mein eigener Text')");
        let free = q("SELECT mcp.ingest('kb', 'hr/free', 'Mein', 'Mein eigener Text')");
        run("RESET ROLE");
        assert_eq!(taken["status"], "inserted", "{taken}");
        assert_eq!(free["status"], "inserted", "{free}");
        // A's document is untouched; B has its own
        assert_eq!(
            r_text("SELECT body FROM mcp.document WHERE uri = 'hr/secret' AND owner = 'r_owner_a'"),
            "Gehälter der Geschäftsführung"
        );
        assert_eq!(
            r_i64("SELECT count(*) FROM mcp.document WHERE uri = 'hr/secret'"),
            2
        );
        // and B's re-ingest replaces B's own document only
        run("SET LOCAL ROLE r_other_b");
        let again = q("SELECT mcp.ingest('kb', 'hr/secret', 'Mein', 'Mein neuer Text')");
        run("RESET ROLE");
        assert_eq!(again["status"], "replaced", "{again}");
        assert_eq!(
            r_i64("SELECT count(*) FROM mcp.document WHERE uri = 'hr/secret'"),
            2
        );
    }

    /// An interface 'rag' with context_retrieve, the local model, and three collections: kb (rag,
    /// same model), hr (not opted in), other (rag, another model of the same dimension).
    fn r_gate_registry(min_score: f32) {
        r_local_model();
        r_mock_model("hash384", "r_embed384", 384, 384);
        run("INSERT INTO mcp.interface (name, embedding_model) VALUES ('rag', 'minilm')");
        run("INSERT INTO mcp.interface_tool VALUES ('rag', 'context_retrieve')");
        run("INSERT INTO mcp.collection (name, embedding_model, purpose, text_config) VALUES ('kb', 'minilm', 'rag', 'german')");
        run("INSERT INTO mcp.collection (name, embedding_model, purpose) VALUES ('hr', 'minilm', 'search')");
        run("INSERT INTO mcp.collection (name, embedding_model, purpose) VALUES ('other', 'hash384', 'rag')");
        Spi::run_with_args(
            "UPDATE mcp.collection SET min_score = $1",
            &[min_score.into()],
        )
        .unwrap();
        run("SELECT mcp.ingest('kb', 'tv://kb/urlaub', 'MTV Metall Bayern: Urlaub', 'Beschäftigte haben Anspruch auf 30 Arbeitstage Urlaub im Kalenderjahr.')");
        run("SELECT mcp.ingest('kb', 'tv://kb/kuendigung', 'MTV Chemie: Kündigung', 'Die Kündigungsfrist beträgt sechs Wochen zum Quartalsende.')");
        run("SELECT mcp.ingest('hr', 'hr://urlaub', 'HR intern', 'Beschäftigte haben Anspruch auf 30 Arbeitstage Urlaub im Kalenderjahr.')");
        run("SELECT mcp.ingest('other', 'other://urlaub', 'Fremdes Modell', 'Beschäftigte haben Anspruch auf 30 Arbeitstage Urlaub im Kalenderjahr.')");
    }

    #[pg_test]
    fn retrieval_context_retrieve_gate() {
        r_gate_registry(0.3);
        let r = q(
            r#"SELECT mcp.call_tool('context_retrieve', '{"query": "Urlaub Arbeitstage Anspruch"}', 'rag')"#,
        );
        assert_eq!(r["isError"], false, "{r}");
        let text = r["content"][0]["text"].as_str().unwrap();
        assert!(
            text.starts_with("[1] MTV Metall Bayern: Urlaub (tv://kb/urlaub)"),
            "{text}"
        );
        assert!(
            !text.contains("hr://") && !text.contains("other://"),
            "gate let through: {text}"
        );
        let passages = r["structuredContent"]["passages"].as_array().unwrap();
        assert!(passages.iter().all(|p| p["collection"] == "kb"));
        // scores best first
        let scores: Vec<f64> = passages
            .iter()
            .map(|p| p["score"].as_f64().unwrap())
            .collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]));
        // the audit row: matched collections and the count, not the query
        let audit = q("SELECT to_jsonb(t) FROM mcp.tool_call t WHERE tool = 'context_retrieve' ORDER BY call_id DESC LIMIT 1");
        assert_eq!(audit["arguments"]["matched_collections"], json!(["kb"]));
        assert_eq!(
            audit["arguments"]["passages"].as_u64().unwrap() as usize,
            passages.len()
        );
        assert!(
            !audit.to_string().contains("Urlaub Arbeitstage Anspruch"),
            "query text in the audit row: {audit}"
        );
        // documented option: record the query too
        run("UPDATE mcp.interface SET audit_retrieval_query = true WHERE name = 'rag'");
        q(
            r#"SELECT mcp.call_tool('context_retrieve', '{"query": "Urlaub Arbeitstage Anspruch"}', 'rag')"#,
        );
        let audit = q("SELECT to_jsonb(t) FROM mcp.tool_call t WHERE tool = 'context_retrieve' ORDER BY call_id DESC LIMIT 1");
        assert_eq!(audit["arguments"]["query"], "Urlaub Arbeitstage Anspruch");
        // opting out removes a collection from the gate
        run("UPDATE mcp.collection SET purpose = 'search' WHERE name = 'kb'");
        let r = q(
            r#"SELECT mcp.call_tool('context_retrieve', '{"query": "Urlaub Arbeitstage Anspruch"}', 'rag')"#,
        );
        assert_eq!(r["content"][0]["text"], "no retrieval context found");
        // an interface without an embedding model refuses
        run("UPDATE mcp.interface SET embedding_model = NULL WHERE name = 'rag'");
        let r = q(r#"SELECT mcp.call_tool('context_retrieve', '{"query": "Urlaub"}', 'rag')"#);
        assert_eq!(r["isError"], true);
    }

    #[pg_test]
    fn retrieval_context_retrieve_other_fingerprint_is_not_searched() {
        r_gate_registry(-1.0);
        // the interface uses the mock model: only 'other' has its fingerprint
        run("UPDATE mcp.interface SET embedding_model = 'hash384' WHERE name = 'rag'");
        let r = q(
            r#"SELECT mcp.call_tool('context_retrieve', '{"query": "Urlaub Arbeitstage Anspruch"}', 'rag')"#,
        );
        let text = r["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("other://urlaub") && !text.contains("tv://kb"),
            "{text}"
        );
    }

    #[pg_test]
    fn retrieval_min_score_cutoff_message() {
        r_gate_registry(0.99);
        let r = q(
            r#"SELECT mcp.call_tool('context_retrieve', '{"query": "Urlaub Arbeitstage Anspruch"}', 'rag')"#,
        );
        assert_eq!(r["isError"], false);
        assert_eq!(r["content"][0]["text"], "no retrieval context found");
        let audit = q("SELECT to_jsonb(t) FROM mcp.tool_call t WHERE tool = 'context_retrieve' ORDER BY call_id DESC LIMIT 1");
        assert_eq!(audit["arguments"]["matched_collections"], json!(["kb"]));
        assert_eq!(audit["arguments"]["passages"], 0);
    }

    #[pg_test]
    fn retrieval_search_tool_kinds() {
        r_mock_model("hash8", "r_embed8e", 64, 64);
        r_collection("kb", "hash8", "search");
        run("INSERT INTO mcp.interface (name) VALUES ('rag')");
        for mode in ["vector", "text", "hybrid"] {
            run(&format!(
                "SELECT mcp.register_search_tool('kb_{mode}', 'kb', '{mode}')"
            ));
            run(&format!(
                "INSERT INTO mcp.interface_tool VALUES ('rag', 'kb_{mode}')"
            ));
            let r = q(&format!(
                r#"SELECT mcp.call_tool('kb_{mode}', '{{"query": "Kündigungsfrist Quartalsende", "k": 2}}', 'rag')"#
            ));
            assert_eq!(r["isError"], false, "{mode}: {r}");
            let results = r["structuredContent"]["results"].as_array().unwrap();
            assert!(!results.is_empty() && results.len() <= 2, "{mode}: {r}");
            assert_eq!(results[0]["uri"], "tv://chemie-nrw/kuendigung", "{mode}");
            // the filter argument reaches SQL
            let r = q(&format!(
                r#"SELECT mcp.call_tool('kb_{mode}', '{{"query": "Urlaub", "filter": {{"tarifgebiet": "Bayern"}}}}', 'rag')"#
            ));
            let results = r["structuredContent"]["results"].as_array().unwrap();
            assert!(
                results
                    .iter()
                    .all(|x| x["uri"].as_str().unwrap().contains("bayern")),
                "{mode}: {r}"
            );
        }
        // a search tool needs its collection, other kinds have none
        assert!(err_of(
            "INSERT INTO mcp.tool (name, description, kind) VALUES ('s', 'd', 'vector_search')"
        )
        .starts_with("23514"));
        assert!(
            err_of("SELECT mcp.register_search_tool('s2', 'kb', 'fuzzy')").starts_with("22023")
        );
    }

    fn r_index_options(collection: &str) -> String {
        r_text(&format!(
            "SELECT coalesce(c.reloptions::text, '-') || ' ' || c.oid::text FROM pg_class c
              WHERE c.relname = 'chunk_hnsw_' || (SELECT collection_id FROM mcp.collection WHERE name = '{collection}')"
        ))
    }

    #[pg_test]
    fn retrieval_hnsw_options_validated_and_built_into_the_index() {
        r_mock_model("hash8", "r_hnsw8", 8, 8);
        // the defaults
        run("INSERT INTO mcp.collection (name, embedding_model) VALUES ('kb', 'hash8')");
        assert_eq!(
            r_text("SELECT hnsw_m || ' ' || hnsw_ef_construction || ' ' || hnsw_ef_search FROM mcp.collection WHERE name = 'kb'"),
            format!("{R_HNSW_M} {R_HNSW_EF_CONSTRUCTION} {R_HNSW_EF_SEARCH}")
        );
        let default_opts = r_index_options("kb");
        assert!(
            default_opts.starts_with(&format!(
                "{{m={R_HNSW_M},ef_construction={R_HNSW_EF_CONSTRUCTION}}} "
            )),
            "{default_opts}"
        );
        // the collection's own options, in pg_indexes too
        run("INSERT INTO mcp.collection (name, embedding_model, hnsw_m, hnsw_ef_construction, hnsw_ef_search)
             VALUES ('kb2', 'hash8', 24, 100, 250)");
        let opts = r_index_options("kb2");
        assert!(opts.starts_with("{m=24,ef_construction=100} "), "{opts}");
        let def = r_text("SELECT indexdef FROM pg_indexes WHERE indexname = 'chunk_hnsw_' || (SELECT collection_id FROM mcp.collection WHERE name = 'kb2')");
        assert!(
            def.contains("WITH (m='24', ef_construction='100')"),
            "{def}"
        );
        run("SELECT mcp.ingest('kb2', 'u', 't', 'Urlaub im Kalenderjahr')");
        // ef_search is a search setting: the index stays
        run("UPDATE mcp.collection SET hnsw_ef_search = 60 WHERE name = 'kb2'");
        assert_eq!(r_index_options("kb2"), opts);
        // new build options build the index again, with its chunks
        run("UPDATE mcp.collection SET hnsw_m = 8, hnsw_ef_construction = 32 WHERE name = 'kb2'");
        let rebuilt = r_index_options("kb2");
        assert!(
            rebuilt.starts_with("{m=8,ef_construction=32} "),
            "{rebuilt}"
        );
        assert_ne!(rebuilt, opts);
        run("SET LOCAL enable_seqscan = off");
        let probe = r_text("SELECT embedding::text FROM mcp.chunk LIMIT 1");
        assert_eq!(
            r_uris(&format!(
                "SELECT uri FROM mcp.search_by_vector('kb2', '', '{probe}', 1, 'vector')"
            )),
            ["u"]
        );
        // out-of-range settings are refused by named CHECK constraints
        for (sql, constraint) in [
            ("INSERT INTO mcp.collection (name, embedding_model, hnsw_m) VALUES ('x', 'hash8', 1)", "collection_hnsw_m_range"),
            ("INSERT INTO mcp.collection (name, embedding_model, hnsw_m, hnsw_ef_construction) VALUES ('x', 'hash8', 101, 1000)", "collection_hnsw_m_range"),
            ("INSERT INTO mcp.collection (name, embedding_model, hnsw_ef_construction) VALUES ('x', 'hash8', 1001)", "collection_hnsw_ef_construction_range"),
            ("INSERT INTO mcp.collection (name, embedding_model, hnsw_m, hnsw_ef_construction) VALUES ('x', 'hash8', 32, 40)", "collection_hnsw_ef_construction_at_least_2m"),
            ("INSERT INTO mcp.collection (name, embedding_model, hnsw_ef_search) VALUES ('x', 'hash8', 0)", "collection_hnsw_ef_search_range"),
            ("UPDATE mcp.collection SET hnsw_ef_search = 1001 WHERE name = 'kb'", "collection_hnsw_ef_search_range"),
            ("UPDATE mcp.collection SET hnsw_ef_construction = 20 WHERE name = 'kb'", "collection_hnsw_ef_construction_at_least_2m"),
        ] {
            let e = err_of(sql);
            assert!(e.starts_with("23514") && e.contains(constraint), "{sql}: {e}");
        }
        assert_eq!(r_index_options("kb"), default_opts);
    }

    #[pg_test]
    fn retrieval_ef_search_applies_to_the_search_only() {
        r_mock_model("hash8", "r_efs8", 8, 8);
        run("INSERT INTO mcp.collection (name, embedding_model, hnsw_ef_search) VALUES ('kb', 'hash8', 123)");
        for i in 0..5 {
            run(&format!(
                "SELECT mcp.ingest('kb', 'u{i}', 't', 'Urlaub Arbeitstage Nummer{i}')"
            ));
        }
        let probe = r_text("SELECT embedding::text FROM mcp.chunk LIMIT 1");
        // a restrictive policy notes the hnsw.ef_search in force while the search reads the rows
        run("CREATE FUNCTION public.r_note_ef_search() RETURNS boolean LANGUAGE sql VOLATILE
             AS $$ SELECT set_config('r_probe.ef_search', current_setting('hnsw.ef_search'), false) IS NOT NULL $$");
        run("CREATE POLICY r_note_ef_search ON mcp.document AS RESTRICTIVE USING (public.r_note_ef_search())");
        run("DROP ROLE IF EXISTS r_ef");
        run("CREATE ROLE r_ef NOLOGIN");
        run("GRANT SELECT ON mcp.document, mcp.chunk TO r_ef");
        // the caller's own value, set in its transaction
        run("SET LOCAL hnsw.ef_search = 37");
        run("SET LOCAL ROLE r_ef");
        run("SET LOCAL enable_seqscan = off");
        // (mode, k, ef_search during the search): the collection's, or the candidates taken when more
        for (mode, k, want) in [
            ("vector", 3_usize, "123"),
            ("hybrid", 3, "123"),
            ("hybrid", 50, "200"),
            ("vector", 500, "500"),
            ("hybrid", 300, "1000"),
        ] {
            run("SELECT set_config('r_probe.ef_search', 'not read', false)");
            let hits = r_uris(&format!(
                "SELECT uri FROM mcp.search_by_vector('kb', 'Urlaub', '{probe}', {k}, '{mode}')"
            ));
            assert_eq!(hits.len(), k.min(5), "{mode} {k}");
            assert_eq!(
                r_text("SELECT current_setting('r_probe.ef_search')"),
                want,
                "{mode} {k}"
            );
            // and it does not leak into the caller's transaction
            assert_eq!(
                r_text("SELECT current_setting('hnsw.ef_search')"),
                "37",
                "{mode} {k}"
            );
        }
        run("RESET ROLE");
        assert_eq!(r_text("SELECT current_setting('hnsw.ef_search')"), "37");
    }

    /// Three agreements sharing one clause: Metall Bayern, Metall Sachsen, Chemie Bayern, and a
    /// thesaurus that knows the two regions and the two branches.
    fn r_entity_registry() {
        r_local_model();
        run(r#"SELECT mcp.load_thesaurus('{"terms": [
            {"id": "by", "kind": "tarifgebiet", "label": "Bayern", "alt_labels": ["bayerisch"]},
            {"id": "sn", "kind": "tarifgebiet", "label": "Sachsen", "alt_labels": ["sächsisch"], "broader": ["ost"]},
            {"id": "ost", "kind": "tarifgebiet", "label": "Tarifgebiet Ost", "alt_labels": ["Ostdeutschland"]},
            {"id": "me", "kind": "fachbereich", "label": "Metall- und Elektroindustrie", "alt_labels": ["Metallindustrie"]},
            {"id": "chemie", "kind": "fachbereich", "label": "Chemische Industrie", "alt_labels": ["Chemie"]}]}')"#);
        run("INSERT INTO mcp.collection (name, embedding_model, text_config, chunk_header) VALUES ('tv', 'minilm', 'german', false)");
        for (uri, region, branche, days) in [
            (
                "tv://metall/by",
                "Bayern",
                "Metall- und Elektroindustrie",
                30,
            ),
            (
                "tv://metall/sn",
                "Sachsen",
                "Metall- und Elektroindustrie",
                28,
            ),
            ("tv://chemie/by", "Bayern", "Chemische Industrie", 29),
        ] {
            run(&format!(
                "SELECT mcp.ingest('tv', '{uri}', 'Manteltarifvertrag', '§ 4 Urlaub. Der Urlaub beträgt {days} Arbeitstage im Kalenderjahr.',
                                   jsonb_build_object('region', '{region}', 'branche', '{branche}'))"
            ));
        }
    }

    /// The question's entities (from the thesaurus) boost or filter the documents whose metadata
    /// match them, in every mode; a search tool gets the same; without entity_keys, or without
    /// entities in the question, the ranking is the plain one.
    #[pg_test]
    fn retrieval_entity_aware_search_boosts_or_filters() {
        r_entity_registry();
        let question = "Wie viel Urlaub gibt es in der sächsischen Metallindustrie?";
        let plain: Vec<Vec<String>> = ["vector", "text", "hybrid"]
            .iter()
            .map(|m| {
                r_uris(&format!(
                    "SELECT uri FROM mcp.search('tv', '{question}', 3, '{m}')"
                ))
            })
            .collect();
        run(
            r#"UPDATE mcp.collection SET entity_keys = '{"tarifgebiet": "region", "fachbereich": "branche"}' WHERE name = 'tv'"#,
        );
        let ents = q(&format!("SELECT mcp.search_entities(entity_keys, '{question}') FROM mcp.collection WHERE name = 'tv'"));
        let values = |i: usize| -> Vec<String> {
            let mut v: Vec<String> = ents[i]["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap().to_string())
                .collect();
            v.sort();
            v
        };
        assert_eq!(
            (ents[0]["key"].as_str(), ents[1]["key"].as_str()),
            (Some("branche"), Some("region")),
            "{ents}"
        );
        assert_eq!(
            values(0),
            ["me", "metall- und elektroindustrie", "metallindustrie"]
        );
        assert_eq!(values(1), ["sachsen", "sn", "sächsisch"]);
        // a broader term matches the documents of its narrower terms
        let ost = q("SELECT mcp.search_entities('{\"tarifgebiet\": \"region\"}', 'Urlaub in Ostdeutschland')");
        assert!(
            ost[0]["values"]
                .as_array()
                .unwrap()
                .contains(&json!("sachsen")),
            "{ost}"
        );
        // a key the caller's filter names is left to the filter
        assert_eq!(
            q("SELECT mcp.search_entities('{\"tarifgebiet\": \"region\"}', 'Urlaub in Sachsen', '{\"region\": \"Bayern\"}')"),
            json!([])
        );
        for (i, mode) in ["vector", "text", "hybrid"].into_iter().enumerate() {
            // boost (default): the Saxon metal agreement first, the others still listed
            let got = r_uris(&format!(
                "SELECT uri FROM mcp.search('tv', '{question}', 3, '{mode}')"
            ));
            assert_eq!(got[0], "tv://metall/sn", "{mode}: {got:?}");
            assert_eq!(got.len(), 3, "{mode}: {got:?}");
            // the boost reorders and adds, it never drops a hit of the plain search
            assert!(
                plain[i].iter().all(|u| got.contains(u)),
                "{mode}: plain {:?}, boosted {got:?}",
                plain[i]
            );
            // a question without entities ranks as without entity_keys
            let none = r_uris(&format!(
                "SELECT uri FROM mcp.search('tv', 'Urlaub Arbeitstage', 3, '{mode}')"
            ));
            run("UPDATE mcp.collection SET entity_keys = '{}' WHERE name = 'tv'");
            let none_plain = r_uris(&format!(
                "SELECT uri FROM mcp.search('tv', 'Urlaub Arbeitstage', 3, '{mode}')"
            ));
            assert_eq!(none, none_plain, "{mode}");
            run(
                r#"UPDATE mcp.collection SET entity_keys = '{"tarifgebiet": "region", "fachbereich": "branche"}' WHERE name = 'tv'"#,
            );
        }
        // the scores returned stay the plain ones (cosine in vector mode)
        let boosted = Spi::get_one::<f64>(&format!(
            "SELECT score FROM mcp.search('tv', '{question}', 1, 'vector')"
        ))
        .unwrap()
        .unwrap();
        assert!(boosted > -1.0 && boosted <= 1.0, "{boosted}");
        // filter: only the documents that match every entity key
        run("UPDATE mcp.collection SET entity_mode = 'filter' WHERE name = 'tv'");
        for mode in ["vector", "text", "hybrid"] {
            let got = r_uris(&format!(
                "SELECT uri FROM mcp.search('tv', '{question}', 3, '{mode}')"
            ));
            assert_eq!(got, ["tv://metall/sn"], "{mode}");
            // no document of that region and branch: the search runs without the entities
            let got = r_uris(&format!(
                "SELECT uri FROM mcp.search('tv', 'Urlaub Chemie Sachsen', 3, '{mode}')"
            ));
            assert_eq!(got.len(), 3, "{mode}: {got:?}");
        }
        // a search tool gets the same
        run("UPDATE mcp.collection SET entity_mode = 'boost' WHERE name = 'tv'");
        run("INSERT INTO mcp.interface (name) VALUES ('rag')");
        run("SELECT mcp.register_search_tool('tv_hybrid', 'tv', 'hybrid')");
        run("INSERT INTO mcp.interface_tool VALUES ('rag', 'tv_hybrid')");
        let r = q(&format!(
            r#"SELECT mcp.call_tool('tv_hybrid', '{{"query": "{question}", "k": 3}}', 'rag')"#
        ));
        assert_eq!(
            r["structuredContent"]["results"][0]["uri"], "tv://metall/sn",
            "{r}"
        );
        // (rank fusion: with fusion by score over this corpus of three candidates, the agreement
        // matching both entities is the last of each leg, scaled to 0, and one matching half of
        // them with the top score ranks first: docs/retrieval.md, "Hybrid fusion", known gap)
        run("UPDATE mcp.collection SET fusion = 'rank' WHERE name = 'tv'");
        let r = q(
            r#"SELECT mcp.call_tool('tv_hybrid', '{"query": "Urlaub bayerische Chemie", "k": 3}', 'rag')"#,
        );
        assert_eq!(
            r["structuredContent"]["results"][0]["uri"], "tv://chemie/by",
            "{r}"
        );
        // settings are checked
        assert!(err_of("UPDATE mcp.collection SET entity_keys = '[1]'").starts_with("23514"));
        assert!(
            err_of("UPDATE mcp.collection SET entity_keys = '{\"a\": 1}'").starts_with("23514")
        );
        assert!(err_of("UPDATE mcp.collection SET entity_mode = 'rerank'").starts_with("23514"));
        assert!(err_of("UPDATE mcp.collection SET entity_boost = -1").starts_with("23514"));
    }

    /// context_retrieve (vector mode through mcp.search_by_vector) gets the entities too: it
    /// keeps the boosted order of each collection's hits (their scores stay the plain ones).
    #[pg_test]
    fn retrieval_context_retrieve_is_entity_aware() {
        r_entity_registry();
        run("UPDATE mcp.collection SET purpose = 'rag', min_score = -1 WHERE name = 'tv'");
        run("INSERT INTO mcp.interface (name, embedding_model) VALUES ('rag', 'minilm')");
        run("INSERT INTO mcp.interface_tool VALUES ('rag', 'context_retrieve')");
        let call = r#"SELECT mcp.call_tool('context_retrieve', '{"query": "Urlaub in der bayerischen Chemie"}', 'rag')"#;
        run(
            r#"UPDATE mcp.collection SET entity_keys = '{"tarifgebiet": "region", "fachbereich": "branche"}' WHERE name = 'tv'"#,
        );
        let r = q(call);
        assert_eq!(
            r["structuredContent"]["passages"][0]["uri"], "tv://chemie/by",
            "{r}"
        );
    }

    /// Each chunk is embedded and indexed with its document's title and the configured metadata;
    /// the stored text stays the chunk's own; changing the setting re-embeds on the next ingest.
    #[pg_test]
    fn retrieval_chunk_header_is_embedded_and_indexed() {
        r_local_model();
        run("INSERT INTO mcp.collection (name, embedding_model, text_config, header_keys) VALUES ('kb', 'minilm', 'german', '{region}')");
        assert_eq!(
            r_text("SELECT chunk_header::text FROM mcp.collection WHERE name = 'kb'"),
            "true"
        );
        let body = "§ 9 Urlaub. Der Urlaub beträgt 30 Arbeitstage.";
        let ingest = format!("SELECT mcp.ingest('kb', 'tv://x', 'Manteltarifvertrag Gebäudereinigung', '{body}', '{{\"region\": \"Hessen\"}}')");
        run(&ingest);
        assert_eq!(r_text("SELECT text FROM mcp.chunk"), body);
        // title and metadata value are in the index, and in the embedded text
        assert_eq!(r_text("SELECT (tsv @@ to_tsquery('german', 'Gebäudereinigung & Hessen & Urlaub'))::text FROM mcp.chunk"), "true");
        let header_vec = r_text("SELECT (mcp.embed(ARRAY['Manteltarifvertrag Gebäudereinigung | Hessen' || E'\\n\\n' || text], 'minilm'))[1]::text FROM mcp.chunk");
        let stored = r_text("SELECT embedding::text FROM mcp.chunk");
        let (a, b): (Vec<f32>, Vec<f32>) = (
            serde_json::from_str(&header_vec).unwrap(),
            serde_json::from_str(&stored).unwrap(),
        );
        assert!(mcp_embed::cosine(&a, &b) > 0.9999);
        // the same content again: unchanged; header off: replaced, the plain chunk indexed
        assert_eq!(q(&ingest)["status"], "unchanged");
        run("UPDATE mcp.collection SET chunk_header = false WHERE name = 'kb'");
        assert_eq!(q(&ingest)["status"], "replaced");
        assert_eq!(
            r_text("SELECT (tsv @@ to_tsquery('german', 'Hessen'))::text FROM mcp.chunk"),
            "false"
        );
    }

    /// Hybrid weighs its two rankings with the collection's weights: a zero weight leaves the
    /// other ranking's order.
    #[pg_test]
    fn retrieval_fusion_weights_per_collection() {
        r_mock_model("hash8", "r_embed8w", 64, 64);
        r_collection("kb", "hash8", "search");
        let query = "Urlaub Arbeitstage Kalenderjahr";
        let ranked = |mode: &str| {
            r_uris(&format!(
                "SELECT uri FROM mcp.search('kb', '{query}', 6, '{mode}')"
            ))
        };
        let vector = ranked("vector");
        run("UPDATE mcp.collection SET text_weight = 0 WHERE name = 'kb'");
        assert_eq!(ranked("hybrid"), vector);
        run("UPDATE mcp.collection SET text_weight = 1, vector_weight = 0 WHERE name = 'kb'");
        let hybrid = ranked("hybrid");
        let text = ranked("text");
        assert_eq!(&hybrid[..text.len()], &text[..], "{hybrid:?} {text:?}");
        assert!(err_of("UPDATE mcp.collection SET text_weight = 0").starts_with("23514"));
        assert!(err_of("UPDATE mcp.collection SET vector_weight = -1").starts_with("23514"));
    }

    /// mcp.german_compound splits compounds when the dictionary files were installed, and is
    /// plain german otherwise.
    #[pg_test]
    fn retrieval_german_compound_configuration() {
        let has_dict = Spi::get_one::<bool>(
            "SELECT EXISTS (SELECT 1 FROM pg_ts_dict WHERE dictname = 'german_compound_ispell')",
        )
        .unwrap()
        .unwrap();
        let v =
            r_text("SELECT to_tsvector('mcp.german_compound', 'Nachtzuschlag Urlaubstage')::text");
        if has_dict {
            assert!(
                v.contains("'zuschlag'") && v.contains("'nacht'") && v.contains("'tag'"),
                "{v}"
            );
            // a word the dictionary does not know goes to german_stem
            assert_eq!(
                r_text("SELECT to_tsvector('mcp.german_compound', 'Xylophonierungen')::text"),
                r_text("SELECT to_tsvector('german', 'Xylophonierungen')::text")
            );
        } else {
            assert_eq!(
                v,
                r_text("SELECT to_tsvector('german', 'Nachtzuschlag Urlaubstage')::text")
            );
        }
        run("SELECT pg_advisory_xact_lock(13013)");
        run("INSERT INTO mcp.embedding_model (name, kind, dimension, path) VALUES ('minilm', 'local', 384, '/usr/local/share/pg_mcp/models/all-MiniLM-L6-v2')");
        run("INSERT INTO mcp.collection (name, embedding_model, text_config) VALUES ('kb', 'minilm', 'mcp.german_compound')");
        run("SELECT mcp.ingest('kb', 'u', 'T', 'Der Nachtzuschlag beträgt 25 Prozent.')");
        let hits = r_uris("SELECT uri FROM mcp.search('kb', 'Zuschlag', 3, 'text')");
        assert_eq!(hits.len(), usize::from(has_dict), "{hits:?}");
    }
}
