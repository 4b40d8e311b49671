//! An interrupted (abandoned) exchange leaves no thread and no socket behind.
//!
//! The only test of this binary on purpose: it counts the threads (`/proc/self/task`) and the
//! open sockets (`/proc/self/fd`) of the whole process, which other tests would disturb. The
//! mock server runs in this process too: its connection thread and socket of an exchange end
//! when our side closes, so they return to the baseline as well.

#![cfg(target_os = "linux")]

use mcp_http::{HttpClient, HttpErrorKind, Options, Request, RetryPolicy};
use mock_llm::{MockServer, Scenario};
use std::time::{Duration, Instant};

fn threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|d| d.count())
        .unwrap_or(0)
}

fn sockets() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| std::fs::read_link(e.path()).ok())
                .filter(|l| l.to_string_lossy().starts_with("socket:"))
                .count()
        })
        .unwrap_or(0)
}

fn request(url: String) -> Request {
    Request::new(
        url,
        r#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#,
    )
    .header("Authorization", "Bearer sk-abandoned-0123456789")
}

#[test]
fn interrupted_exchanges_leave_no_thread_and_no_socket() {
    let m = MockServer::with_scenarios(vec![
        (
            "never",
            Scenario::from_json(r#"{"steps": [{"fault": "never_answer"}]}"#).unwrap(),
        ),
        ("ok", Scenario::say("fine")),
    ])
    .unwrap();
    // Long timeouts: only the cancel may end the exchanges.
    let opts = Options {
        read_timeout: Duration::from_secs(60),
        retry: RetryPolicy::none(),
        ..Options::default()
    };
    let client = HttpClient::new();
    let ok = client
        .post_json(&request(m.openai_url("ok")), &opts, &mut || false)
        .expect("warm-up request");
    assert_eq!(ok.status, 200);
    std::thread::sleep(Duration::from_millis(100));
    // Baseline: the test threads, the mock's threads, the client's idle worker and its pooled
    // connection (both ends).
    let (t0, s0) = (threads(), sockets());

    const N: usize = 20;
    for i in 0..N {
        let started = Instant::now();
        let err = client
            .post_json(&request(m.openai_url("never")), &opts, &mut || {
                started.elapsed() > Duration::from_millis(30)
            })
            .expect_err("the mock never answers");
        assert_eq!(err.kind, HttpErrorKind::Interrupted, "exchange {i}: {err}");
        assert!(
            started.elapsed() < Duration::from_millis(500),
            "exchange {i} took {:?} to give up",
            started.elapsed()
        );
    }
    assert_eq!(
        m.requests(Some("never")).len(),
        N,
        "each exchange reached the mock"
    );

    // Within about a second of the last cancel, nothing of the abandoned exchanges is left.
    let deadline = Instant::now() + Duration::from_millis(1500);
    loop {
        let (t, s) = (threads(), sockets());
        if t <= t0 && s <= s0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "after {N} cancelled exchanges: {t} threads (baseline {t0}), {s} sockets (baseline {s0})"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // The client still works afterwards.
    let again = client
        .post_json(&request(m.openai_url("ok")), &opts, &mut || false)
        .expect("a request after the cancels");
    assert_eq!(again.status, 200);
    assert_eq!(client.idle_workers(), 1);
}
