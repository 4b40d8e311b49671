//! Asynchronous runs inside one transaction: what mcp.chat_submit queues (and as which role),
//! mcp.chat_result before a worker took the run, mcp.chat_cancel of a queued run, who may see
//! and cancel a run, the back-pressure caps (53400) and option checks at submit. A test's
//! transaction never commits, so no worker ever takes these runs; the runs themselves (workers,
//! roles, RLS, restart, LISTEN) are in tests/async/run.sh.

#[pgrx::pg_schema]
mod tests {
    use crate::tests::*;

    /// The interface the runs are submitted to (mcp.chat_submit refuses one that does not
    /// exist or that the role may not use), open to every role, in the test's transaction.
    fn chatbot() {
        run("INSERT INTO mcp.interface (name, access_role) VALUES ('chatbot', 'public') ON CONFLICT (name) DO NOTHING");
    }

    fn submit(question: &str) -> String {
        Spi::get_one_with_args::<pgrx::Uuid>(
            "SELECT mcp.chat_submit($1, 'chatbot')",
            &[question.into()],
        )
        .unwrap()
        .unwrap()
        .to_string()
    }

    #[pg_test]
    fn async_submit_queues_as_the_calling_role() {
        chatbot();
        run("CREATE ROLE mcp_t_async_a");
        run("SET LOCAL ROLE mcp_t_async_a");
        let id = submit("queued question");
        run("RESET ROLE");
        let row = q(&format!(
            "SELECT to_jsonb(a) FROM mcp.async_run a WHERE run_id = '{id}'"
        ));
        assert_eq!(row["status"], "queued", "{row}");
        assert_eq!(row["role_name"], "mcp_t_async_a");
        assert_eq!(row["question"], "queued question");
        assert_eq!(row["interface"], "chatbot");
        assert_eq!(row["options"], json!({}));
        // before a worker took it: its open status
        let r = q(&format!("SELECT mcp.chat_result('{id}')"));
        assert_eq!(r, json!({"status": "queued", "run_id": id}));
        // and its audit row, queued, from the submit on (the worker's run start makes it running)
        let audit = q(&format!(
            "SELECT to_jsonb(r) - 'started_at' FROM mcp.run r WHERE run_id = '{id}'"
        ));
        assert_eq!(audit["status"], "queued", "{audit}");
        assert_eq!(audit["role_name"], "mcp_t_async_a");
        assert_eq!(audit["question"], "queued question");
        assert_eq!(audit["interface"], "chatbot");
        assert_eq!(audit["finished_at"], Value::Null);
        assert_eq!(audit["provider"], Value::Null);
        // the submitter reads its own rows through row-level security
        run("SET LOCAL ROLE mcp_t_async_a");
        let n = Spi::get_one::<i64>("SELECT count(*) FROM mcp.async_run").unwrap();
        let mine = Spi::get_one::<String>(&format!(
            "SELECT status FROM mcp.my_runs WHERE run_id = '{id}'"
        ))
        .unwrap();
        run("RESET ROLE");
        assert_eq!(n, Some(1));
        assert_eq!(mine.as_deref(), Some("queued"));
    }

    #[pg_test]
    fn async_result_waits_then_reports_the_open_status() {
        chatbot();
        let id = submit("wait for me");
        let t0 = std::time::Instant::now();
        let r = q(&format!("SELECT mcp.chat_result('{id}', 150)"));
        assert!(t0.elapsed() >= std::time::Duration::from_millis(150));
        assert_eq!(r["status"], "queued");
    }

    #[pg_test]
    fn async_other_roles_neither_see_nor_cancel() {
        chatbot();
        run("CREATE ROLE mcp_t_async_a");
        run("CREATE ROLE mcp_t_async_b");
        run("SET LOCAL ROLE mcp_t_async_a");
        let id = submit("mine");
        run("SET LOCAL ROLE mcp_t_async_b");
        let not_found = format!("42704: asynchronous run {id} does not exist");
        assert_eq!(
            err_of(&format!("SELECT mcp.chat_result('{id}')")),
            not_found
        );
        assert_eq!(
            err_of(&format!("SELECT mcp.chat_cancel('{id}')")),
            not_found
        );
        let n = Spi::get_one::<i64>("SELECT count(*) FROM mcp.async_run").unwrap();
        assert_eq!(n, Some(0), "row-level security hides another role's runs");
        run("RESET ROLE");
        // a member of the submitter has its privileges, and may
        run("GRANT mcp_t_async_a TO mcp_t_async_b");
        run("SET LOCAL ROLE mcp_t_async_b");
        assert_eq!(
            q(&format!("SELECT mcp.chat_result('{id}')"))["status"],
            "queued"
        );
        run("RESET ROLE");
    }

    #[pg_test]
    fn async_cancel_of_a_queued_run() {
        chatbot();
        let id = submit("cancel me");
        let ok = Spi::get_one::<bool>(&format!("SELECT mcp.chat_cancel('{id}')")).unwrap();
        assert_eq!(ok, Some(true));
        let r = q(&format!("SELECT mcp.chat_result('{id}', 1000)"));
        assert_eq!(r["status"], "cancelled", "{r}");
        assert_eq!(r["run_id"], id);
        // a second cancel: the run is no longer open
        let again = Spi::get_one::<bool>(&format!("SELECT mcp.chat_cancel('{id}')")).unwrap();
        assert_eq!(again, Some(false));
        let st = Spi::get_one::<String>(&format!(
            "SELECT status FROM mcp.async_run WHERE run_id = '{id}'"
        ))
        .unwrap();
        assert_eq!(st.as_deref(), Some("cancelled"));
        // its audit row ends cancelled too
        let run = q(&format!(
            "SELECT jsonb_build_object('status', status, 'error', error, 'ended', finished_at IS NOT NULL)
               FROM mcp.run WHERE run_id = '{id}'"
        ));
        assert_eq!(
            run,
            json!({"status": "cancelled", "ended": true,
                   "error": {"kind": "cancelled", "message": "cancelled by mcp.chat_cancel before it started"}})
        );
    }

    #[pg_test]
    fn async_back_pressure_per_role_and_total() {
        chatbot();
        run("CREATE ROLE mcp_t_async_a");
        run("CREATE ROLE mcp_t_async_b");
        run("SET LOCAL mcp.chat_queue_max_per_role = 2");
        run("SET LOCAL mcp.chat_queue_max = 3");
        run("SET LOCAL ROLE mcp_t_async_a");
        submit("a1");
        submit("a2");
        let e = err_of("SELECT mcp.chat_submit('a3', 'chatbot')");
        assert!(
            e.starts_with("53400: role \"mcp_t_async_a\" has 2 open asynchronous run(s)"),
            "{e}"
        );
        run("SET LOCAL ROLE mcp_t_async_b");
        submit("b1");
        let e = err_of("SELECT mcp.chat_submit('b2', 'chatbot')");
        assert!(
            e.starts_with("53400: the queue of asynchronous runs is full: 3 open run(s)"),
            "{e}"
        );
        run("RESET ROLE");
        // a cancelled run is no longer open: room again
        let id =
            Spi::get_one::<pgrx::Uuid>("SELECT run_id FROM mcp.async_run WHERE question = 'b1'")
                .unwrap()
                .unwrap();
        run(&format!("SELECT mcp.chat_cancel('{id}')"));
        run("SET LOCAL ROLE mcp_t_async_b");
        submit("b2");
        run("RESET ROLE");
    }

    #[pg_test]
    fn async_submit_checks_its_arguments() {
        chatbot();
        assert_eq!(
            err_of("SELECT mcp.chat_submit('q', 'chatbot', NULL, '{\"max_iteration\": 2}')"),
            "22023: mcp.chat options: unknown option \"max_iteration\" (known: provider, tool_choice, max_iterations, max_total_tokens, plan, deadline_ms)"
        );
        assert_eq!(
            err_of("SELECT mcp.chat_submit(NULL)"),
            "22004: parameter \"question\" of mcp.chat_submit must not be NULL"
        );
        assert_eq!(
            err_of("SELECT mcp.chat_result(NULL)"),
            "22004: parameter \"run_id\" of mcp.chat_result must not be NULL"
        );
        // the interface is checked at submit, as mcp.chat checks it
        assert_eq!(
            err_of("SELECT mcp.chat_submit('q', 'no_such_interface')"),
            "42704: interface \"no_such_interface\" does not exist"
        );
        run("INSERT INTO mcp.interface (name) VALUES ('async_closed')"); // access_role NULL: closed
        run("CREATE ROLE mcp_t_async_c");
        run("SET LOCAL ROLE mcp_t_async_c");
        let e = err_of("SELECT mcp.chat_submit('q', 'async_closed')");
        run("RESET ROLE");
        assert_eq!(e, "42501: permission denied for interface \"async_closed\"");
        let n = Spi::get_one::<i64>("SELECT count(*) FROM mcp.async_run").unwrap();
        assert_eq!(n, Some(0));
    }
}
