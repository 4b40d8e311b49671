//! Where PostgreSQL calls the execute hook (`object_access_hook`, `OAT_FUNCTION_EXECUTE`) that the
//! tool sandbox refuses denied functions in, on the version this runs on: each statement below
//! runs with a recording hook chained in front of the installed ones, and the test checks that
//! the function the docs list as "not seen by the hook" (docs/tools.md) was not reported, while
//! a plain function call in the same statement was (so the hook was live). It fails if a
//! PostgreSQL version started (or stopped) calling the hook in one of these places. The inputs
//! are never constants (a row of `generate_series`, a setting, `random()`): the planner folds a
//! call of constants before the executor, and the hook, would see it.

#[pgrx::pg_schema]
mod tests {
    use crate::tests::*;
    use pgrx::pg_sys;
    use std::cell::RefCell;
    use std::ffi::c_void;
    use std::os::raw::c_int;
    use std::panic::AssertUnwindSafe;

    thread_local! {
        /// Function OIDs the recording hook saw (OAT_FUNCTION_EXECUTE), in order.
        static SEEN: RefCell<Vec<pg_sys::Oid>> = const { RefCell::new(Vec::new()) };
        /// The hook that was installed before the recorder (pg_mcp's own), called first.
        static BEFORE: RefCell<pg_sys::object_access_hook_type> = const { RefCell::new(None) };
    }

    #[pg_guard]
    unsafe extern "C-unwind" fn record(
        access: pg_sys::ObjectAccessType::Type,
        class_id: pg_sys::Oid,
        object_id: pg_sys::Oid,
        sub_id: c_int,
        arg: *mut c_void,
    ) {
        if let Some(previous) = BEFORE.with(|b| *b.borrow()) {
            pg_sys::ffi::pg_guard_ffi_boundary(|| {
                previous(access, class_id, object_id, sub_id, arg)
            });
        }
        if access == pg_sys::ObjectAccessType::OAT_FUNCTION_EXECUTE {
            SEEN.with(|s| s.borrow_mut().push(object_id));
        }
    }

    fn oid_of(regprocedure: &str) -> pg_sys::Oid {
        Spi::get_one_with_args::<pg_sys::Oid>(
            "SELECT $1::regprocedure::oid",
            &[regprocedure.into()],
        )
        .expect("lookup")
        .expect("a function")
    }

    /// The functions the hook saw while `sql` ran (the hook restored also when it raises).
    fn seen_during(sql: &str) -> Vec<pg_sys::Oid> {
        SEEN.with(|s| s.borrow_mut().clear());
        unsafe {
            BEFORE.with(|b| *b.borrow_mut() = pg_sys::object_access_hook);
            pg_sys::object_access_hook = Some(record);
        }
        PgTryBuilder::new(AssertUnwindSafe(|| Spi::run(sql).expect("statement ok")))
            .finally(|| unsafe {
                pg_sys::object_access_hook = BEFORE.with(|b| *b.borrow());
            })
            .execute();
        SEEN.with(|s| s.borrow().clone())
    }

    /// `sql` calls `abs(int4)` as a plain function (seen) and reaches each of `unseen` only in
    /// a place the hook is not called.
    fn check(place: &str, sql: &str, unseen: &[&str]) {
        let seen = seen_during(sql);
        let abs = oid_of("pg_catalog.abs(int4)");
        assert!(
            seen.contains(&abs),
            "{place}: the plain call of abs(int4) was not seen, so the hook was not live: {sql}"
        );
        for f in unseen {
            assert!(
                !seen.contains(&oid_of(f)),
                "{place}: PostgreSQL {} called the execute hook for {f} (docs/tools.md says it does not): {sql}",
                pg_sys::PG_MAJORVERSION_NUM
            );
        }
    }

    #[pg_test]
    fn hook_coverage_matches_the_documented_gaps() {
        // type output through a cast via I/O
        check(
            "cast through I/O",
            "SELECT abs(x)::text FROM generate_series(-1, -1) x",
            &["pg_catalog.int4out(int4)"],
        );
        // sorting: the btree comparison and its sort support, through the type cache
        check(
            "sort",
            "SELECT abs(x) FROM generate_series(1, 3) x ORDER BY x DESC",
            &[
                "pg_catalog.btint4cmp(int4, int4)",
                "pg_catalog.btint4sortsupport(internal)",
            ],
        );
        check(
            "GREATEST",
            "SELECT GREATEST(abs(x), 3) FROM generate_series(-1, -1) x",
            &["pg_catalog.btint4cmp(int4, int4)"],
        );
        check(
            "row comparison",
            "SELECT ROW(abs(x), 1) < ROW(2, 2) FROM generate_series(-1, -1) x",
            &["pg_catalog.btint4cmp(int4, int4)"],
        );
        // a hash join's hash function (its join operator int4eq is seen)
        run("SET LOCAL enable_mergejoin = off");
        run("SET LOCAL enable_nestloop = off");
        check(
            "hash join",
            "SELECT count(*) FROM (SELECT abs(g) AS a FROM generate_series(1, 50) g) x
               JOIN generate_series(1, 50) b ON x.a = b",
            &["pg_catalog.hashint4(int4)"],
        );
        // a selectivity estimator, called by the planner
        check(
            "selectivity estimator",
            "SELECT count(*) FROM generate_series(1, 2) x WHERE abs(x) = 1",
            &["pg_catalog.eqsel(internal, oid, internal, int4)"],
        );
        // an index access method's support function (an index scan compares through it)
        run("CREATE TEMP TABLE hook_idx (id int PRIMARY KEY)");
        run("INSERT INTO hook_idx SELECT generate_series(1, 200)");
        run("ANALYZE hook_idx");
        run("SET LOCAL enable_seqscan = off");
        run("SET LOCAL enable_bitmapscan = off");
        run("SET LOCAL pg_mcp_test.hook_key = '-7'");
        check(
            "index scan",
            "SELECT id FROM hook_idx WHERE id = abs(current_setting('pg_mcp_test.hook_key')::int)",
            &["pg_catalog.btint4cmp(int4, int4)"],
        );
        // a trigger function itself (the statements it runs are seen)
        run(
            "CREATE FUNCTION pg_temp.hook_trg() RETURNS trigger LANGUAGE plpgsql AS
             $$ BEGIN NEW.id := abs(NEW.id + (random() * 0)::int); RETURN NEW; END $$",
        );
        run("CREATE TRIGGER hook_trg BEFORE INSERT ON hook_idx FOR EACH ROW EXECUTE FUNCTION pg_temp.hook_trg()");
        let trg = Spi::get_one::<pg_sys::Oid>("SELECT 'pg_temp.hook_trg()'::regprocedure::oid")
            .unwrap()
            .unwrap();
        let seen = seen_during("INSERT INTO hook_idx VALUES (-1000)");
        assert!(
            seen.contains(&oid_of("pg_catalog.abs(int4)")),
            "the trigger's abs() was not seen"
        );
        assert!(!seen.contains(&trg), "the trigger function itself was seen");
        // the inline handler of DO (its statements are seen)
        check(
            "DO",
            "DO $$ BEGIN PERFORM abs((random() * 0)::int - 1); END $$",
            &["pg_catalog.plpgsql_inline_handler(internal)"],
        );
    }
}
