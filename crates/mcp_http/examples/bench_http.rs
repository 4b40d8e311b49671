//! Per-request cost of the HTTP path against mock_llm on loopback (keep-alive, zero latency):
//!
//! * `plain ureq`: one `ureq::Agent` on the calling thread — the floor any client pays;
//! * `mcp_http`: `HttpClient::post_json` as pg_mcp calls it (worker hand-off, interrupt polling,
//!   size cap, scrubbing of the body).
//!
//! Rounds alternate between the two so both see the same machine load. The same source builds
//! against older versions of mcp_http (benches/http/run.sh compares with main).
//!
//! Run: `cargo run --release -p mcp_http --example bench_http [requests_per_round] [rounds]`

use mcp_http::{HttpClient, Options, Request, RetryPolicy};
use mock_llm::{MockConfig, MockServer, Scenario};
use std::io::Read;
use std::time::{Duration, Instant};

const BODY: &str = r#"{"model":"mock-model","messages":[{"role":"system","content":"Du beantwortest Fragen zu Tarifverträgen."},{"role":"user","content":"Welche Tarifverträge gelten für Metall in Bayern?"}]}"#;
const KEY: &str = "sk-bench-0123456789abcdef";

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(2000);
    let rounds: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(5);
    let scenario = Scenario::from_json(
        r#"{"steps": [{"say": "Für die Metallindustrie in Bayern gilt der MTV Metall Bayern.", "usage": {"prompt_tokens": 40, "completion_tokens": 12}}]}"#,
    )
    .expect("scenario");
    let mock = MockServer::start(MockConfig {
        scenarios: vec![("bench".to_string(), scenario)],
        max_recorded: 0,
        ..MockConfig::default()
    })
    .expect("mock");
    let url = mock.openai_url("bench");

    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let plain = |n: usize| -> Duration {
        let t0 = Instant::now();
        for _ in 0..n {
            let mut r = agent
                .post(&url)
                .header("authorization", format!("Bearer {KEY}"))
                .header("content-type", "application/json")
                .send(BODY.as_bytes())
                .expect("plain request");
            let mut buf = Vec::new();
            r.body_mut()
                .as_reader()
                .read_to_end(&mut buf)
                .expect("plain body");
            assert!(buf.len() > 100);
        }
        t0.elapsed()
    };

    let client = HttpClient::new();
    let opts = Options {
        retry: RetryPolicy::none(),
        ..Options::default()
    };
    let req = Request::new(url.clone(), BODY).header("authorization", format!("Bearer {KEY}"));
    let ours = |n: usize| -> Duration {
        let t0 = Instant::now();
        for _ in 0..n {
            let r = client
                .post_json(&req, &opts, &mut || false)
                .expect("mcp_http request");
            assert!(r.status == 200 && r.body.len() > 100);
        }
        t0.elapsed()
    };

    // warm up both (connections, worker, TLS roots are not involved on plain http)
    plain(200);
    ours(200);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        a.push(plain(n).as_secs_f64() * 1e6 / n as f64);
        b.push(ours(n).as_secs_f64() * 1e6 / n as f64);
    }
    let fmt = |v: &[f64]| {
        let mut s = v.to_vec();
        s.sort_by(|x, y| x.total_cmp(y));
        format!(
            "median {:>6.1} µs  (min {:.1}, max {:.1})",
            s[s.len() / 2],
            s[0],
            s[s.len() - 1]
        )
    };
    let overhead: Vec<f64> = a.iter().zip(&b).map(|(x, y)| y - x).collect();
    println!("{rounds} rounds x {n} requests, keep-alive, loopback mock_llm");
    println!("  plain ureq (floor)     {}", fmt(&a));
    println!("  mcp_http post_json     {}", fmt(&b));
    println!("  overhead over plain    {}", fmt(&overhead));
}
