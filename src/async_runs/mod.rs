//! Asynchronous chat runs: `mcp.chat_submit` queues a user turn in `mcp.async_run` (committed
//! with the caller's transaction), a pool of background workers ([`worker`], slots in shared
//! memory: [`pool`]) runs it through the same `chat::chat` as a synchronous `mcp.chat`, as the
//! submitting role, and stores the result that `mcp.chat_result` returns; `mcp.chat_cancel`
//! stops a run. Channel `mcp_run` carries `{"run_id", "status"}` when a run starts and ends.
//! The schema is sql/async_runs.sql, the user's page docs/async-runs.md.

mod pool;
mod worker;

use crate::error::{McpError, McpResult};
use crate::jsonb::JsonbStored;
use crate::pg::{as_extension_owner, calling_role};
use pgrx::prelude::*;
use pgrx::{GucContext, GucFlags, GucRegistry, GucSetting, JsonB, Uuid};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

pub use worker::after_restart;

/// Size of the pool of chat workers (server start).
pub static WORKERS: GucSetting<i32> = GucSetting::<i32>::new(4);
/// Open (queued or running) runs at most, per database.
pub static QUEUE_MAX: GucSetting<i32> = GucSetting::<i32>::new(1000);
/// Open runs at most per role.
pub static QUEUE_MAX_PER_ROLE: GucSetting<i32> = GucSetting::<i32>::new(100);
/// Runs one worker keeps in flight at most (reloadable).
pub static RUNS_PER_WORKER: GucSetting<i32> = GucSetting::<i32>::new(64);
/// Upper bound of `mcp.chat_runs_per_worker`.
pub const MAX_RUNS_PER_WORKER: i32 = 4096;

/// The notification channel.
pub const CHANNEL: &str = "mcp_run";

pub fn init() {
    GucRegistry::define_int_guc(
        c"mcp.chat_queue_max",
        c"Open asynchronous runs (queued or running) at most in a database; mcp.chat_submit refuses more (53400).",
        c"",
        &QUEUE_MAX,
        0,
        1_000_000,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"mcp.chat_queue_max_per_role",
        c"Open asynchronous runs (queued or running) at most per submitting role; mcp.chat_submit refuses more (53400).",
        c"",
        &QUEUE_MAX_PER_ROLE,
        0,
        1_000_000,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"mcp.chat_runs_per_worker",
        c"Asynchronous runs one chat worker keeps in flight at once (their LLM requests multiplexed on one I/O thread; their tool calls one at a time).",
        c"A worker takes more queued runs while it has fewer than this in flight; more queued runs start another worker (up to mcp.chat_workers).",
        &RUNS_PER_WORKER,
        1,
        MAX_RUNS_PER_WORKER,
        GucContext::Sighup,
        GucFlags::default(),
    );
    if !unsafe { pg_sys::process_shared_preload_libraries_in_progress } {
        return; // a PGC_POSTMASTER setting can only be defined while preloading
    }
    GucRegistry::define_int_guc(
        c"mcp.chat_workers",
        c"Background workers that run asynchronous chats (mcp.chat_submit), for all databases together; 0 turns asynchronous runs off.",
        c"Needs shared_preload_libraries = 'pg_mcp' and a server restart; each worker uses one of max_worker_processes while it runs.",
        &WORKERS,
        0,
        pool::MAX_WORKERS as i32,
        GucContext::Postmaster,
        GucFlags::default(),
    );
    pool::init_shmem();
}

fn not_found(run_id: Uuid) -> McpError {
    McpError::UndefinedObject(format!("asynchronous run {run_id} does not exist")).with_hint(
        "Pass a run_id that mcp.chat_submit returned to this role (or to a role whose privileges it has).",
    )
}

fn role_oid(name: &str) -> pg_sys::Oid {
    let Ok(c) = std::ffi::CString::new(name) else {
        return pg_sys::Oid::INVALID;
    };
    unsafe { pg_sys::get_role_oid(c.as_ptr(), true) }
}

/// Whether the calling role may read (and cancel) a run of `owner`: it has the owner's
/// privileges (superusers have every role's).
fn may_see(owner: &str) -> bool {
    let o = role_oid(owner);
    let me = unsafe { pg_sys::GetUserId() };
    let superuser = unsafe { pg_sys::superuser() };
    superuser || (o != pg_sys::Oid::INVALID && unsafe { pg_sys::has_privs_of_role(me, o) })
}

fn is_admin() -> bool {
    let a = role_oid("mcp_admin");
    a != pg_sys::Oid::INVALID && unsafe { pg_sys::has_privs_of_role(pg_sys::GetUserId(), a) }
}

/// `mcp.chat_submit`: queue a run, return its id.
pub fn submit(
    question: &str,
    interface: &str,
    session: Option<Uuid>,
    options: &Value,
) -> McpResult<Uuid> {
    crate::chat::check_options(options)?;
    if pool::size() == 0 {
        return Err(McpError::NotReady(
            "asynchronous runs are off: they need shared_preload_libraries = 'pg_mcp' and mcp.chat_workers > 0".into(),
        )
        .with_hint("Use the synchronous mcp.chat, or ask the administrator to preload pg_mcp and set mcp.chat_workers."));
    }
    crate::pg::prevent_if_read_only(c"mcp.chat_submit");
    // A clear error now for what the run would fail on at once; the worker checks again.
    crate::chat::usable_interface(interface)?;
    let role = calling_role();
    // The submit's trace context goes with the run: the worker's audit rows of it carry it.
    let trace = crate::trace_context::current();
    let (all_max, role_max) = (
        QUEUE_MAX.get().max(0) as i64,
        QUEUE_MAX_PER_ROLE.get().max(0) as i64,
    );
    let counts = as_extension_owner(|| {
        crate::pg::first_row(
            "SELECT pg_catalog.count(*) FILTER (WHERE a.role_name OPERATOR(pg_catalog.=) $1::name),
                    pg_catalog.count(*)
               FROM mcp.async_run a WHERE a.status IN ('queued', 'running')",
            &[role.as_str().into()],
            |t| Ok((t.get::<i64>(1)?.unwrap_or(0), t.get::<i64>(2)?.unwrap_or(0))),
        )
    })?;
    let (mine, all) = counts.unwrap_or((0, 0));
    if all >= all_max {
        return Err(McpError::QueueFull(format!(
            "the queue of asynchronous runs is full: {all} open run(s) in this database (mcp.chat_queue_max = {all_max})"
        ))
        .with_hint("Wait for runs to finish (mcp.chat_result, LISTEN mcp_run) and submit again, or use mcp.chat."));
    }
    if mine >= role_max {
        return Err(McpError::QueueFull(format!(
            "role \"{role}\" has {mine} open asynchronous run(s) (mcp.chat_queue_max_per_role = {role_max})"
        ))
        .with_hint("Wait for runs to finish (mcp.chat_result, LISTEN mcp_run) and submit again."));
    }
    let run_id = crate::chat::new_uuid()?;
    as_extension_owner(|| {
        crate::pg::write_kept::<Uuid>(
            "INSERT INTO mcp.async_run (run_id, role_name, question, interface, session_id, options,
                                        traceparent, tracestate)
             VALUES ($1, $2::name, $3, $4, $5, $6, $7, $8) RETURNING run_id",
            &[
                run_id.into(),
                role.as_str().into(),
                question.into(),
                interface.into(),
                session.into(),
                JsonB(options.clone()).into(),
                trace.0.as_deref().into(),
                trace.1.as_deref().into(),
            ],
        )
    })?;
    // Its audit row from the start, as `queued` (the same transaction: a ROLLBACK takes both
    // back): the worker's run start makes it `running` (`mcp.audit_store`, kind run), the run's
    // end ends it as a synchronous chat's; a cancel before the start ends it `cancelled`, an
    // ERROR before the start `failed`.
    let mut cuts = crate::audit::row_cuts();
    let clipped_question = cuts.text("question", question).into_owned();
    as_extension_owner(|| {
        crate::pg::write_kept::<i32>(
            "INSERT INTO mcp.run (run_id, session_id, interface, role_name, question, status, clipped,
                                  started_at, traceparent, tracestate)
             VALUES ($1, $2, $3, $4::name, $5, 'queued', $6, pg_catalog.clock_timestamp(), $7, $8)",
            &[
                run_id.into(),
                session.into(),
                interface.into(),
                role.as_str().into(),
                clipped_question.as_str().into(),
                cuts.into_json().map(JsonB).into(),
                trace.0.as_deref().into(),
                trace.1.as_deref().into(),
            ],
        )
    })?;
    // Now (a worker that is already up finds it once the transaction commits) and at the
    // commit (nobody idle then: one is started).
    pool::wake_or_start();
    let _ = pgrx::register_xact_callback(pgrx::PgXactCallbackEvent::Commit, pool::wake_or_start);
    Ok(run_id)
}

/// The run's row as the extension owner, in a fresh snapshot (a waiting `chat_result` must see
/// the worker's commit).
fn read_row(run_id: Uuid) -> McpResult<Option<(String, String, Option<Value>)>> {
    let row = as_extension_owner(|| {
        crate::pg::first_row_mut(
            "SELECT a.role_name::text, a.status, a.result FROM mcp.async_run a
              WHERE a.run_id OPERATOR(pg_catalog.=) $1",
            &[run_id.into()],
            |r| {
                Ok((
                    r.get::<String>(1)?.unwrap_or_default(),
                    r.get::<String>(2)?.unwrap_or_default(),
                    r.get::<JsonbStored>(3)?,
                ))
            },
        )
    })?;
    Ok(match row {
        Some((o, s, r)) => Some((o, s, r.map(|j| j.value("a run's result")).transpose()?)),
        None => None,
    })
}

/// `mcp.chat_result`: the result, or the open status after waiting up to `wait_ms`.
pub fn result(run_id: Uuid, wait_ms: i32) -> McpResult<Value> {
    let deadline = Instant::now() + Duration::from_millis(wait_ms.max(0) as u64);
    loop {
        let Some((owner, status, result)) = read_row(run_id)? else {
            return Err(not_found(run_id));
        };
        if !may_see(&owner) {
            return Err(not_found(run_id));
        }
        if status != "queued" && status != "running" {
            return Ok(
                result.unwrap_or_else(|| json!({"status": status, "run_id": run_id.to_string()}))
            );
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(json!({"status": status, "run_id": run_id.to_string()}));
        }
        // A short sleep on the latch: cancel and statement_timeout end the wait at once.
        let ms = left.as_millis().min(20) as std::ffi::c_long;
        unsafe {
            pg_sys::WaitLatch(
                pg_sys::MyLatch,
                (pg_sys::WL_LATCH_SET | pg_sys::WL_TIMEOUT | pg_sys::WL_EXIT_ON_PM_DEATH) as i32,
                ms,
                pg_sys::PG_WAIT_EXTENSION,
            );
            pg_sys::ResetLatch(pg_sys::MyLatch);
        }
        pg_sys::check_for_interrupts!();
    }
}

/// Send the run's status on the channel (delivered when the transaction commits).
fn notify(run_id: Uuid, status: &str) -> McpResult<()> {
    crate::pg::write_kept::<i32>(
        "SELECT 1 FROM pg_catalog.pg_notify($1, pg_catalog.json_build_object('run_id', $2::text, 'status', $3::text)::text)",
        &[CHANNEL.into(), run_id.to_string().into(), status.into()],
    )?;
    Ok(())
}

/// `mcp.chat_cancel`: stop a run; true when it was still open.
pub fn cancel(run_id: Uuid) -> McpResult<bool> {
    crate::pg::prevent_if_read_only(c"mcp.chat_cancel");
    let row = as_extension_owner(|| {
        crate::pg::first_row_mut(
            "SELECT a.role_name::text, a.status, a.worker_pid FROM mcp.async_run a
              WHERE a.run_id OPERATOR(pg_catalog.=) $1 FOR UPDATE",
            &[run_id.into()],
            |r| {
                Ok((
                    r.get::<String>(1)?.unwrap_or_default(),
                    r.get::<String>(2)?.unwrap_or_default(),
                    r.get::<i32>(3)?.unwrap_or(0),
                ))
            },
        )
    })?;
    let Some((owner, status, worker_pid)) = row else {
        return Err(not_found(run_id));
    };
    if !may_see(&owner) && !is_admin() {
        return Err(not_found(run_id));
    }
    match status.as_str() {
        "queued" => {
            let result = json!({"status": "cancelled", "run_id": run_id.to_string(),
                                "error": {"kind": "cancelled", "message": "cancelled by mcp.chat_cancel before it started"}});
            as_extension_owner(|| {
                crate::pg::write_kept::<i32>(
                    "UPDATE mcp.async_run SET status = 'cancelled', cancel_requested = true,
                            finished_at = pg_catalog.clock_timestamp(), result = $2
                      WHERE run_id OPERATOR(pg_catalog.=) $1",
                    &[run_id.into(), JsonB(result).into()],
                )?;
                crate::pg::write_kept::<i32>(
                    "UPDATE mcp.run SET status = 'cancelled', finished_at = pg_catalog.clock_timestamp(),
                            error = pg_catalog.jsonb_build_object('kind', 'cancelled', 'message',
                                    'cancelled by mcp.chat_cancel before it started')
                      WHERE run_id OPERATOR(pg_catalog.=) $1 AND status OPERATOR(pg_catalog.=) 'queued'",
                    &[run_id.into()],
                )?;
                notify(run_id, "cancelled")
            })?;
            Ok(true)
        }
        "running" => {
            as_extension_owner(|| {
                crate::pg::write_kept::<i32>(
                    "UPDATE mcp.async_run SET cancel_requested = true WHERE run_id OPERATOR(pg_catalog.=) $1",
                    &[run_id.into()],
                )
            })?;
            pool::request_cancel(*run_id.as_bytes(), worker_pid);
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// This process is a chat worker polling a run (whose steps are transactions of their own).
pub fn polling_a_run() -> bool {
    worker::polling_a_run()
}

/// For the chat's interrupt polling: this process is a chat worker whose run was cancelled.
pub fn cancel_requested() -> bool {
    worker::cancel_requested()
}
