//! The audit row model: every field of every row type (`mcp_audit::rows`) is a column of its
//! table, `mcp.audit_store` refuses what it does not know, and the two sinks (the caller's
//! transaction and the durable audit worker) write the same row.

#[pgrx::pg_schema]
mod tests {
    use crate::tests::*;
    use mcp_audit::rows::{
        columns_of, EmbeddingRequestRow, LlmRequestRow, RunEndRow, RunRow, ToolCallRow,
    };

    fn columns(table: &str) -> Vec<String> {
        Spi::get_one_with_args::<Vec<String>>(
            "SELECT array_agg(attname::text) FROM pg_catalog.pg_attribute
              WHERE attrelid = ('mcp.' || $1)::regclass AND attnum > 0 AND NOT attisdropped",
            &[table.into()],
        )
        .unwrap()
        .unwrap()
    }

    #[pg_test]
    fn every_row_field_is_a_column_of_its_table() {
        for (table, fields) in [
            ("run", columns_of::<RunRow>()),
            ("run", columns_of::<RunEndRow>()),
            ("llm_request", columns_of::<LlmRequestRow>()),
            ("tool_call", columns_of::<ToolCallRow>()),
            ("embedding_request", columns_of::<EmbeddingRequestRow>()),
        ] {
            let cols = columns(table);
            assert!(fields.len() >= 8, "{table}: {fields:?}");
            for f in &fields {
                assert!(
                    cols.contains(f),
                    "mcp.{table} has no column {f} (columns: {cols:?})"
                );
            }
        }
    }

    #[pg_test]
    fn audit_store_refuses_an_unknown_record_kind() {
        let e = err_of(r#"SELECT mcp.audit_store('{"k": "tool_cal", "row": {}}')"#);
        assert!(e.contains("unknown audit record kind tool_cal"), "{e}");
        // STRICT: NULL in, nothing written, NULL out.
        assert_eq!(
            Spi::get_one::<i64>("SELECT mcp.audit_store(NULL)").unwrap(),
            None
        );
        // Not for PUBLIC.
        assert_eq!(
            Spi::get_one::<bool>(
                "SELECT has_function_privilege('public', 'mcp.audit_store(jsonb)', 'EXECUTE')"
            )
            .unwrap(),
            Some(false)
        );
    }

    #[pg_test]
    fn audit_store_batch_stores_in_order_or_nothing() {
        let rec = |url: &str| {
            format!(
                r#"{{"k": "embedding_request", "row": {{"model": "m", "provider": "p", "role_name": "r", "url": "{url}", "texts": 1, "input_bytes": 3, "input_sha256": "x", "latency_ms": 1.0, "created_at": "2026-12-02T00:00:00.000000Z"}}}}"#
            )
        };
        let ids = Spi::get_one_with_args::<Vec<i64>>(
            "SELECT mcp.audit_store_batch($1::jsonb)",
            &[format!("[{}, {}]", rec("batch-a"), rec("batch-b")).into()],
        )
        .unwrap()
        .unwrap();
        assert_eq!(ids.len(), 2);
        assert!(ids[0] < ids[1], "{ids:?}");
        let urls = Spi::get_one_with_args::<Vec<String>>(
            "SELECT array_agg(url ORDER BY request_id) FROM mcp.embedding_request WHERE request_id = ANY($1)",
            &[ids.into()],
        )
        .unwrap()
        .unwrap();
        assert_eq!(urls, ["batch-a", "batch-b"]);
        // One bad record: the call fails as a whole (the worker then stores record by record).
        let e = err_of(&format!(
            r#"SELECT mcp.audit_store_batch('[{}, {{"k": "tool_cal", "row": {{}}}}]')"#,
            rec("batch-c")
        ));
        assert!(e.contains("unknown audit record kind tool_cal"), "{e}");
        let e = err_of(&format!(
            "SELECT mcp.audit_store_batch('{}')",
            rec("batch-d")
        ));
        assert!(e.contains("a JSON array of records"), "{e}");
        assert_eq!(
            Spi::get_one::<i64>(
                "SELECT count(*) FROM mcp.embedding_request WHERE url IN ('batch-c', 'batch-d')"
            )
            .unwrap(),
            Some(0)
        );
        assert_eq!(
            Spi::get_one::<bool>(
                "SELECT has_function_privilege('public', 'mcp.audit_store_batch(jsonb)', 'EXECUTE')"
            )
            .unwrap(),
            Some(false)
        );
    }

    /// A run's end finds its row by the primary key whatever plan the storing session cached:
    /// the durable audit worker is a long-lived session, and its plans of
    /// `mcp.audit_store_batch` were made when `mcp.run` was small (on a new install: empty).
    /// Cached while the table had a few rows, the end's UPDATE was a sequential scan, kept as
    /// the table grew until autovacuum's next ANALYZE: every run's end read the whole table.
    #[pg_test]
    fn a_run_end_uses_the_primary_key_in_any_cached_plan() {
        let store = |k: &str, row: String| {
            Spi::run_with_args(
                "SELECT mcp.audit_store_batch(jsonb_build_array(jsonb_build_object('k', $1::text, 'row', $2::jsonb)))",
                &[k.into(), row.into()],
            )
            .unwrap()
        };
        let run = |n: u32| {
            format!(
                r#"{{"run_id": "00000000-0000-4000-8000-{n:012}", "role_name": "postgres", "question": "q"}}"#
            )
        };
        let end = |n: u32| {
            format!(
                r#"{{"run_id": "00000000-0000-4000-8000-{n:012}", "status": "completed", "answer": "a"}}"#
            )
        };
        // The table as a new install has it (statistics of a nearly empty table), and a session
        // whose plans are made now: more than five calls, so plpgsql keeps a generic plan.
        Spi::run("ANALYZE mcp.run").unwrap();
        for n in 1..=8 {
            store("run", run(n));
            store("run_end", end(n));
        }
        // The table grows (no ANALYZE: autovacuum has not come by yet).
        Spi::run(
            "INSERT INTO mcp.run (run_id, role_name, question, status)
             SELECT ('00000000-0000-4000-9000-' || lpad(i::text, 12, '0'))::uuid, 'postgres', 'q', 'completed'
               FROM generate_series(1, 20000) i",
        )
        .unwrap();
        let scans = || {
            Spi::get_one::<i64>("SELECT pg_stat_get_xact_numscans('mcp.run'::regclass)")
                .unwrap()
                .unwrap()
        };
        store("run", run(9));
        let before = scans();
        store("run_end", end(9));
        assert_eq!(
            scans() - before,
            0,
            "the run's end scanned mcp.run sequentially"
        );
        assert_eq!(
            Spi::get_one::<String>(
                "SELECT status FROM mcp.run WHERE run_id = '00000000-0000-4000-8000-000000000009'"
            )
            .unwrap()
            .as_deref(),
            Some("completed")
        );
    }

    /// The audit row of one `mcp.call_tool`, without its id and time.
    fn call_row(durable: bool) -> Value {
        run(&format!(
            "SET LOCAL mcp.audit_durable = {}",
            if durable { "on" } else { "off" }
        ));
        let before = Spi::get_one::<i64>("SELECT coalesce(max(call_id), 0) FROM mcp.tool_call")
            .unwrap()
            .unwrap();
        run(
            r#"SELECT mcp.call_tool('getTarifVertrag', '{"tarifgebiet": "Bayern", "fachbereich": "Metall"}')"#,
        );
        Spi::get_one_with_args::<JsonB>(
            "SELECT to_jsonb(t) - 'call_id' - 'created_at' - 'latency_ms'
               FROM mcp.tool_call t WHERE call_id > $1 AND tool = 'getTarifVertrag'",
            &[before.into()],
        )
        .unwrap()
        .expect("the call's row")
        .0
    }

    #[pg_test]
    fn both_sinks_write_the_same_row() {
        demo_registry();
        let through_worker = call_row(true);
        let in_transaction = call_row(false);
        assert_eq!(through_worker, in_transaction);
        assert_eq!(through_worker["status"], "ok", "{through_worker}");
    }

    /// A chat's rows, without ids and times: the run's end, its LLM requests and tool calls in
    /// order, and its conversation.
    fn chat_rows(durable: bool) -> Value {
        run(&format!(
            "SET LOCAL mcp.audit_durable = {}",
            if durable { "on" } else { "off" }
        ));
        let r = q("SELECT mcp.chat('Welche Tarifverträge gelten für Metall in Bayern?')");
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(
            crate::audit::deferred::pending(),
            0,
            "records left after the run's end"
        );
        of_run(
            "SELECT jsonb_build_object(
                'run', (SELECT to_jsonb(x) - 'run_id' - 'session_id' - 'started_at' - 'finished_at'
                               - 'backend_pid' - 'backend_start'
                          FROM mcp.run x WHERE run_id = $1::uuid),
                'requests', (SELECT jsonb_agg(to_jsonb(x) - 'request_id' - 'run_id' - 'created_at' - 'latency_ms'
                                              -- (the mock numbers its answers' ids)
                                              || jsonb_build_object('response_raw', regexp_replace(x.response_raw, 'chatcmpl-mock-[0-9]+', 'chatcmpl-mock-N'))
                                              ORDER BY x.request_id)
                               FROM mcp.llm_request x WHERE run_id = $1::uuid),
                'calls', (SELECT jsonb_agg(to_jsonb(x) - 'call_id' - 'run_id' - 'created_at' - 'latency_ms'
                                           ORDER BY x.call_id)
                            FROM mcp.tool_call x WHERE run_id = $1::uuid),
                'messages', (SELECT jsonb_agg(x.message ORDER BY x.seq)
                               FROM mcp.message x WHERE run_id = $1::uuid))",
            &r,
        )
    }

    /// In the caller's transaction a run's LLM requests and tool calls are kept for its end and
    /// written with it (audit/deferred.rs): the rows are the worker's, in the same order.
    #[pg_test]
    fn a_chat_writes_the_same_rows_through_either_sink() {
        chat_registry("tool_then_answer");
        let through_worker = chat_rows(true);
        let in_transaction = chat_rows(false);
        assert_eq!(through_worker, in_transaction);
        assert_eq!(
            in_transaction["requests"].as_array().map(Vec::len),
            Some(2),
            "{in_transaction}"
        );
        assert_eq!(
            in_transaction["calls"].as_array().map(Vec::len),
            Some(1),
            "{in_transaction}"
        );
        assert_eq!(
            in_transaction["requests"][0]["iteration"], 1,
            "{in_transaction}"
        );
        assert_eq!(
            in_transaction["calls"][0]["status"], "ok",
            "{in_transaction}"
        );
        assert_eq!(
            in_transaction["run"]["status"], "completed",
            "{in_transaction}"
        );
    }

    /// The kept records of a run that never reaches its end (its statement fails and a
    /// PL/pgSQL block catches the error) are dropped with the transaction, never written by a
    /// later run's end: only the later run's rows appear.
    #[pg_test]
    fn a_run_that_does_not_end_leaves_no_kept_records() {
        chat_registry("tool_then_answer");
        run("SET LOCAL mcp.audit_durable = off");
        crate::audit::deferred::open("00000000-0000-4000-8000-00000000d0d0");
        let rec = mcp_audit::rows::Record::LlmRequest(LlmRequestRow {
            run_id: "00000000-0000-4000-8000-00000000d0d0".into(),
            iteration: 1,
            purpose: "chat".into(),
            ..Default::default()
        });
        assert!(crate::audit::deferred::defer(&rec));
        assert_eq!(crate::audit::deferred::pending(), 1);
        // a record of no open run is not kept
        let other = mcp_audit::rows::Record::LlmRequest(LlmRequestRow {
            run_id: "00000000-0000-4000-8000-00000000d0d1".into(),
            ..Default::default()
        });
        assert!(!crate::audit::deferred::defer(&other));
        // a later run ends with its own records only
        let r = q("SELECT mcp.chat('Welche Tarifverträge gelten für Metall in Bayern?')");
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(
            crate::audit::deferred::pending(),
            1,
            "the other run's record is still kept"
        );
        assert_eq!(
            Spi::get_one::<i64>(
                "SELECT count(*) FROM mcp.llm_request WHERE run_id = '00000000-0000-4000-8000-00000000d0d0'"
            )
            .unwrap(),
            Some(0)
        );
        assert_eq!(
            of_run(
                "SELECT to_jsonb(count(*)) FROM mcp.llm_request WHERE run_id = $1::uuid",
                &r
            ),
            2
        );
    }
}
