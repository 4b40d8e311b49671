//! mcp_http against a real mock_llm socket on 127.0.0.1.

use mcp_http::{
    AttemptOutcome, HttpClient, HttpError, HttpErrorKind, Options, Request, Response, RetryPolicy,
};
use mock_llm::{MockServer, Scenario};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const SECRET: &str = "sk-secret-123";
const QUERY_SECRET: &str = "qsecret987";

fn server(scenarios: &[(&str, Value)]) -> MockServer {
    let list = scenarios
        .iter()
        .map(|(n, v)| (*n, Scenario::from_value(v.clone()).expect("valid scenario")))
        .collect();
    MockServer::with_scenarios(list).expect("mock starts")
}

fn request(url: String) -> Request {
    Request::new(
        url,
        json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).to_string(),
    )
    .header("Authorization", format!("Bearer {SECRET}"))
}

fn fast_retries(max_retries: u32) -> Options {
    Options {
        connect_timeout: Duration::from_secs(2),
        read_timeout: Duration::from_secs(5),
        retry: RetryPolicy {
            max_retries,
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_secs(3),
            retry_budget: Duration::from_secs(10),
            retry_timeouts: false,
        },
        ..Options::default()
    }
}

fn never() -> impl FnMut() -> bool {
    || false
}

fn call(req: &Request, opts: &Options) -> Result<Response, HttpError> {
    HttpClient::new().post_json(req, opts, &mut never())
}

fn assert_clean(e: &HttpError) {
    eprintln!("error message: {e}");
    for text in [e.message.clone(), format!("{e}"), format!("{e:?}")] {
        assert!(!text.contains(SECRET), "secret leaked: {text}");
        assert!(!text.contains("Bearer"), "auth header leaked: {text}");
        assert!(!text.contains(QUERY_SECRET), "query leaked: {text}");
        assert!(!text.contains('?'), "query string leaked: {text}");
    }
}

fn content(resp: &Response) -> String {
    let v: Value = serde_json::from_slice(&resp.body).expect("json body");
    v["choices"][0]["message"]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn success_sends_headers_and_json() {
    let m = server(&[("ok", json!({"steps": [{"say": "hello"}]}))]);
    let resp = call(&request(m.openai_url("ok")), &Options::default()).expect("ok");
    assert_eq!(resp.status, 200);
    assert!(resp.is_success());
    assert_eq!(content(&resp), "hello");
    assert_eq!(resp.attempts, 1);
    assert!(!resp.retried);
    assert_eq!(resp.attempt_log, vec![AttemptOutcome::Status(200)]);
    assert_eq!(resp.header("Content-Type"), Some("application/json"));
    let recs = m.requests(Some("ok"));
    assert_eq!(recs.len(), 1);
    assert_eq!(
        recs[0].header("authorization"),
        Some(format!("Bearer {SECRET}").as_str())
    );
    assert_eq!(recs[0].header("content-type"), Some("application/json"));
    assert_eq!(recs[0].json().unwrap()["model"], "m");
}

#[test]
fn client_reuses_connections() {
    let m = server(&[("ok", json!([{"say": "x"}]))]);
    let client = HttpClient::new();
    for _ in 0..5 {
        let r = client
            .post_json(
                &request(m.openai_url("ok")),
                &Options::default(),
                &mut never(),
            )
            .expect("ok");
        assert_eq!(r.status, 200);
    }
    // Keep-alive: the pooled connection is reused, so only one stays open.
    assert!(m.active_connections() <= 1, "{}", m.active_connections());
}

#[test]
fn retry_after_429_then_200() {
    let m = server(&[(
        "rl",
        json!({"steps": [{"attempts": [
            {"status": 429, "headers": {"retry-after": "1"}},
            {"say": "after wait"}
        ]}]}),
    )]);
    let t = Instant::now();
    let resp = call(&request(m.openai_url("rl")), &fast_retries(2)).expect("ok");
    assert_eq!(resp.status, 200);
    assert_eq!(content(&resp), "after wait");
    assert_eq!(resp.attempts, 2);
    assert!(resp.retried);
    assert_eq!(
        resp.attempt_log,
        vec![AttemptOutcome::Status(429), AttemptOutcome::Status(200)]
    );
    assert!(
        resp.waited >= Duration::from_millis(950) && resp.waited <= Duration::from_millis(1100),
        "waited {:?}",
        resp.waited
    );
    assert!(t.elapsed() >= Duration::from_millis(950));
}

#[test]
fn retry_after_is_capped_by_max_delay() {
    let m = server(&[(
        "rl",
        json!([{"attempts": [
            {"status": 429, "headers": {"retry-after": "30"}},
            {"status": 529, "headers": {"retry-after-ms": "50"}},
            {"say": "ok"}
        ]}]),
    )]);
    let mut opts = fast_retries(3);
    opts.retry.max_delay = Duration::from_millis(300);
    let t = Instant::now();
    let resp = call(&request(m.openai_url("rl")), &opts).expect("ok");
    assert_eq!(resp.status, 200);
    assert_eq!(resp.attempts, 3);
    assert!(
        resp.waited >= Duration::from_millis(340) && resp.waited < Duration::from_millis(600),
        "waited {:?}",
        resp.waited
    );
    assert!(t.elapsed() < Duration::from_secs(3));
}

#[test]
fn retry_after_is_capped_by_budget() {
    let m = server(&[(
        "rl",
        json!([{"status": 503, "headers": {"retry-after": "2"}}]),
    )]);
    let mut opts = fast_retries(5);
    opts.retry.retry_budget = Duration::from_millis(400);
    let resp = call(&request(m.openai_url("rl")), &opts).expect("response");
    assert_eq!(resp.status, 503);
    assert!(
        resp.waited <= Duration::from_millis(450),
        "{:?}",
        resp.waited
    );
    assert!(resp.attempts >= 2, "{}", resp.attempts);
}

#[test]
fn retry_after_http_date() {
    // A date in the past means "retry now".
    let m = server(&[(
        "rl",
        json!([{"attempts": [
            {"status": 503, "headers": {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}},
            {"say": "ok"}
        ]}]),
    )]);
    let resp = call(&request(m.openai_url("rl")), &fast_retries(2)).expect("ok");
    assert_eq!(resp.status, 200);
    assert_eq!(resp.attempts, 2);
    assert!(resp.waited < Duration::from_millis(100));
}

#[test]
fn server_error_is_retried_then_returned() {
    let m = server(&[("e500", json!([{"status": 500, "error": "boom"}]))]);
    let resp = call(&request(m.openai_url("e500")), &fast_retries(2)).expect("response");
    assert_eq!(resp.status, 500);
    assert_eq!(resp.attempts, 3);
    assert!(resp.retried);
    assert_eq!(resp.attempt_log, vec![AttemptOutcome::Status(500); 3]);
    let v: Value = serde_json::from_slice(&resp.body).unwrap();
    assert_eq!(v["error"]["message"], "boom");
    assert_eq!(m.requests(Some("e500")).len(), 3);
}

#[test]
fn client_errors_are_not_retried() {
    for status in [400u16, 401, 403, 404] {
        let m = server(&[("e", json!([{"status": status}]))]);
        let resp = call(&request(m.openai_url("e")), &fast_retries(3)).expect("response");
        assert_eq!(resp.status, status);
        assert_eq!(resp.attempts, 1, "status {status}");
        assert!(!resp.retried);
        assert_eq!(m.requests(None).len(), 1);
    }
}

#[test]
fn redirects_are_not_followed() {
    let m = server(&[(
        "r",
        json!([{"status": 307, "headers": {"location": "http://127.0.0.1:1/elsewhere"}, "body": ""}]),
    )]);
    let resp = call(&request(m.openai_url("r")), &fast_retries(2)).expect("response");
    assert_eq!(resp.status, 307);
    assert_eq!(resp.attempts, 1);
}

#[test]
fn reset_is_retried_then_network_error() {
    let m = server(&[("rst", json!([{"fault": "reset"}]))]);
    let url = format!("{}?api-key={QUERY_SECRET}", m.openai_url("rst"));
    let err = call(&request(url), &fast_retries(2)).expect_err("reset");
    assert_eq!(err.kind, HttpErrorKind::Network, "{err}");
    assert_eq!(err.attempts, 3);
    assert_eq!(
        err.attempt_log,
        vec![AttemptOutcome::Error(HttpErrorKind::Network); 3]
    );
    assert!(m.requests(Some("rst")).len() >= 3);
    assert_clean(&err);
}

#[test]
fn reset_then_success_recovers() {
    let m = server(&[(
        "flaky",
        json!([{"attempts": [{"fault": "reset"}, {"fault": "close_before_headers"}, {"say": "fine"}]}]),
    )]);
    let resp = call(&request(m.openai_url("flaky")), &fast_retries(3)).expect("recovers");
    assert_eq!(content(&resp), "fine");
    assert_eq!(resp.attempts, 3);
    assert!(resp.retried);
}

#[test]
fn truncated_body_is_network_error() {
    let m = server(&[(
        "tr",
        json!([{"say": "a fairly long answer that gets cut", "fault": "truncate"}]),
    )]);
    let err = call(&request(m.openai_url("tr")), &fast_retries(0)).expect_err("truncated");
    assert_eq!(err.kind, HttpErrorKind::Network, "{err}");
    assert!(err.message.contains("truncated"), "{err}");
    assert_eq!(err.attempts, 1);
    assert_clean(&err);
}

#[test]
fn oversize_body_is_too_large() {
    let m = server(&[
        ("big", json!([{"oversize_bytes": 2_000_000}])),
        ("edge", json!([{"oversize_bytes": 100_000}])),
    ]);
    let mut opts = fast_retries(2);
    opts.max_response_bytes = 1_000_000;
    let err = call(&request(m.openai_url("big")), &opts).expect_err("too large");
    assert_eq!(err.kind, HttpErrorKind::TooLarge, "{err}");
    assert_eq!(err.attempts, 1, "TooLarge is not retried");
    assert_clean(&err);

    // Exactly at the limit is fine, one byte less is not.
    opts.max_response_bytes = 100_000;
    let resp = call(&request(m.openai_url("edge")), &opts).expect("at limit");
    assert_eq!(resp.body.len(), 100_000);
    assert!(serde_json::from_slice::<Value>(&resp.body).is_ok());
    opts.max_response_bytes = 99_999;
    let err = call(&request(m.openai_url("edge")), &opts).expect_err("over");
    assert_eq!(err.kind, HttpErrorKind::TooLarge);
}

#[test]
fn never_answer_is_interrupted_promptly() {
    let m = server(&[("hang", json!([{"fault": "never_answer"}]))]);
    let start = Instant::now();
    let mut polls = 0u32;
    let mut interrupt = || {
        polls += 1;
        start.elapsed() >= Duration::from_millis(300)
    };
    let err = HttpClient::new()
        .post_json(
            &request(m.openai_url("hang")),
            &Options::default(),
            &mut interrupt,
        )
        .expect_err("interrupted");
    let took = start.elapsed();
    assert_eq!(err.kind, HttpErrorKind::Interrupted, "{err}");
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert!(took >= Duration::from_millis(300));
    assert!(polls >= 5, "interrupt polled only {polls} times");
    assert_clean(&err);
}

#[test]
fn backoff_sleep_is_interruptible() {
    let m = server(&[(
        "rl",
        json!([{"status": 429, "headers": {"retry-after": "20"}}]),
    )]);
    let mut opts = fast_retries(3);
    opts.retry.max_delay = Duration::from_secs(30);
    opts.retry.retry_budget = Duration::from_secs(60);
    let start = Instant::now();
    let mut interrupt = || start.elapsed() >= Duration::from_millis(300);
    let err = HttpClient::new()
        .post_json(&request(m.openai_url("rl")), &opts, &mut interrupt)
        .expect_err("interrupted");
    assert_eq!(err.kind, HttpErrorKind::Interrupted);
    assert!(start.elapsed() < Duration::from_secs(2));
    assert_eq!(err.attempt_log, vec![AttemptOutcome::Status(429)]);
}

#[test]
fn read_timeout() {
    let m = server(&[("slow", json!([{"say": "late", "delay_ms": 5000}]))]);
    let mut opts = fast_retries(0);
    opts.read_timeout = Duration::from_millis(500);
    let start = Instant::now();
    let url = format!("{}?api-key={QUERY_SECRET}", m.openai_url("slow"));
    let err = call(&request(url), &opts).expect_err("timeout");
    assert_eq!(err.kind, HttpErrorKind::Timeout, "{err}");
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert_clean(&err);
}

#[test]
fn timeout_is_not_retried_by_default() {
    // The server may have processed (and billed) a request whose answer came too late.
    let m = server(&[(
        "slow0",
        json!([{"attempts": [{"say": "late", "delay_ms": 3000}, {"say": "quick"}]}]),
    )]);
    let mut opts = fast_retries(1);
    opts.read_timeout = Duration::from_millis(400);
    let err = call(&request(m.openai_url("slow0")), &opts).expect_err("no second attempt");
    assert_eq!(err.kind, HttpErrorKind::Timeout, "{err}");
    assert_eq!(
        err.attempt_log,
        vec![AttemptOutcome::Error(HttpErrorKind::Timeout)]
    );
    assert_eq!(m.requests(Some("slow0")).len(), 1);
}

#[test]
fn timeout_is_retried_when_switched_on() {
    let m = server(&[(
        "slow1",
        json!([{"attempts": [{"say": "late", "delay_ms": 3000}, {"say": "quick"}]}]),
    )]);
    let mut opts = fast_retries(1);
    opts.retry.retry_timeouts = true;
    opts.read_timeout = Duration::from_millis(400);
    let resp = call(&request(m.openai_url("slow1")), &opts).expect("second attempt");
    assert_eq!(content(&resp), "quick");
    assert_eq!(
        resp.attempt_log,
        vec![
            AttemptOutcome::Error(HttpErrorKind::Timeout),
            AttemptOutcome::Status(200)
        ]
    );
}

#[test]
fn connect_refused() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/v1/chat/completions?key={QUERY_SECRET}");
    let err = call(&request(url.clone()), &fast_retries(0)).expect_err("refused");
    assert_eq!(err.kind, HttpErrorKind::Connect, "{err}");
    assert!(err
        .message
        .contains(&format!("127.0.0.1:{port}/v1/chat/completions")));
    assert_clean(&err);

    // Retried (Connect is retryable), still Connect in the end.
    let err = call(&request(url), &fast_retries(2)).expect_err("refused");
    assert_eq!(err.kind, HttpErrorKind::Connect);
    assert_eq!(err.attempts, 3);
}

#[test]
fn invalid_url_and_headers() {
    let err = call(
        &request(format!("ftp://host/x?token={QUERY_SECRET}")),
        &Options::default(),
    )
    .expect_err("bad url");
    assert_eq!(err.kind, HttpErrorKind::InvalidUrl);
    assert_eq!(err.attempts, 0);
    assert_clean(&err);

    let req =
        request("http://127.0.0.1:1/x".into()).header("X-Bad", "line\r\nInjected: sk-secret-123");
    let err = call(&req, &Options::default()).expect_err("bad header");
    assert_eq!(err.kind, HttpErrorKind::InvalidRequest);
    assert!(err.message.contains("X-Bad"));
    assert_clean(&err);
}

#[test]
fn anthropic_and_azure_paths() {
    let m = server(&[("t", json!([{"say": "hi there"}]))]);
    let resp = call(
        &request(m.anthropic_url("t")).header("x-api-key", SECRET),
        &Options::default(),
    )
    .expect("ok");
    let v: Value = serde_json::from_slice(&resp.body).unwrap();
    assert_eq!(v["content"][0]["text"], "hi there");
    assert_eq!(v["stop_reason"], "end_turn");

    let resp = call(&request(m.azure_url("t", "gpt4o")), &Options::default()).expect("ok");
    assert_eq!(content(&resp), "hi there");
    let recs = m.requests(Some("t"));
    assert_eq!(recs.len(), 2);
    assert!(recs[1].path.contains("api-version="));
}

#[test]
fn process_wide_helper() {
    let m = server(&[("ok", json!([{"say": "global"}]))]);
    let resp = mcp_http::post_json(
        &request(m.openai_url("ok")),
        &Options::default(),
        &mut || false,
    )
    .expect("ok");
    assert_eq!(content(&resp), "global");
}

#[test]
fn credentials_echoed_in_a_200_answer_are_scrubbed() {
    // Characters that JSON and percent-encoding escape, so every form differs from the key.
    let key = r#"sk-ec"ho/KEY+with\odd-0123"#;
    let m = server(&[("echo", json!({"steps": [{"echo_headers": true}]}))]);
    for (name, value) in [
        ("Authorization", format!("Bearer {key}")),
        ("api-key", key.to_string()),
        ("x-api-key", key.to_string()),
    ] {
        let req = Request::new(
            m.openai_url("echo"),
            json!({"model": "m", "messages": []}).to_string(),
        )
        .header(name, value.clone());
        let resp = call(&req, &Options::default()).expect("200");
        assert_eq!(resp.status, 200);
        let raw = resp.text().into_owned();
        let answer = content(&resp);
        let mut forms = mock_llm::echoed_forms(key);
        forms.push("KEY+with".to_string());
        for form in &forms {
            let form = form.as_str();
            assert!(!raw.contains(form), "{name}: {form:?} in the body: {raw}");
            assert!(
                !answer.contains(form),
                "{name}: {form:?} in the answer: {answer}"
            );
        }
        // the echo itself is still there, with the credential redacted
        assert!(
            answer.contains(&format!("{}: ", name.to_ascii_lowercase())),
            "{answer}"
        );
        assert!(answer.contains("[redacted]"), "{answer}");
        // the mock did receive the key (it was sent; only the echo is scrubbed)
        let rec = m.requests(Some("echo"));
        assert_eq!(rec.last().unwrap().header(name), Some(value.as_str()));
    }
}
