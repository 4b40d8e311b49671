//! mock_llm over real loopback sockets, with a tiny raw HTTP/1.1 client.

use mock_llm::{MockConfig, MockServer, Scenario};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    fn header(&self, n: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(n))
            .map(|(_, v)| v.as_str())
    }
}

fn write_req(s: &mut TcpStream, method: &str, path: &str, headers: &[(&str, &str)], body: &str) {
    let mut r = format!(
        "{method} {path} HTTP/1.1\r\nhost: x\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        r.push_str(&format!("{k}: {v}\r\n"));
    }
    r.push_str("\r\n");
    r.push_str(body);
    s.write_all(r.as_bytes()).unwrap();
}

fn read_reply(r: &mut BufReader<TcpStream>) -> Reply {
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    let status: u16 = line.split(' ').nth(1).unwrap().parse().unwrap();
    let mut headers = Vec::new();
    loop {
        let mut l = String::new();
        r.read_line(&mut l).unwrap();
        let l = l.trim_end();
        if l.is_empty() {
            break;
        }
        let (k, v) = l.split_once(':').unwrap();
        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .map(|(_, v)| v.parse().unwrap())
        .unwrap();
    let mut body = vec![0; len];
    r.read_exact(&mut body).unwrap();
    Reply {
        status,
        headers,
        body,
    }
}

fn send(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write_req(&mut s, method, path, headers, body);
    read_reply(&mut BufReader::new(s))
}

fn post(addr: SocketAddr, path: &str, body: &Value) -> Reply {
    send(addr, "POST", path, &[], &body.to_string())
}

/// A chat request with `turns` assistant messages already in it.
fn chat(turns: usize) -> Value {
    let mut msgs = vec![
        json!({"role": "system", "content": "sys"}),
        json!({"role": "user", "content": "q"}),
    ];
    for i in 0..turns {
        msgs.push(json!({"role": "assistant", "content": format!("a{i}")}));
        msgs.push(json!({"role": "user", "content": "more"}));
    }
    json!({"model": "gpt-test", "messages": msgs})
}

fn server(scenarios: &[(&str, Value)]) -> MockServer {
    MockServer::with_scenarios(
        scenarios
            .iter()
            .map(|(n, v)| (*n, Scenario::from_value(v.clone()).unwrap()))
            .collect(),
    )
    .unwrap()
}

fn say_of(r: &Reply) -> String {
    r.json()["choices"][0]["message"]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn stateless_turn_selection() {
    let m = server(&[(
        "seq",
        json!({"steps": [{"say": "zero"}, {"say": "one"}, {"say": "two"}]}),
    )]);
    let a = m.addr();
    for _round in 0..2 {
        for (turns, want) in [(0, "zero"), (1, "one"), (2, "two"), (5, "two"), (0, "zero")] {
            let r = post(a, "/s/seq/v1/chat/completions", &chat(turns));
            assert_eq!(r.status, 200);
            assert_eq!(say_of(&r), want, "turns={turns}");
            assert_eq!(r.header("x-mock-turn"), Some(turns.to_string().as_str()));
        }
    }
}

#[test]
fn attempts_sequence_and_reset() {
    let m = server(&[(
        "att",
        json!({"steps": [
            {"attempts": [{"status": 429, "headers": {"retry-after": 2}}, {"status": 503}, {"say": "ok"}]},
            {"attempts": [{"status": 500}, {"say": "turn1"}]}
        ]}),
    )]);
    let a = m.addr();
    let p = "/s/att/v1/chat/completions";
    let r = post(a, p, &chat(0));
    assert_eq!(r.status, 429);
    assert_eq!(r.header("retry-after"), Some("2"));
    assert_eq!(r.json()["error"]["type"], "rate_limit_exceeded");
    assert_eq!(post(a, p, &chat(0)).status, 503);
    // Turn 1 has its own counter.
    assert_eq!(post(a, p, &chat(1)).status, 500);
    assert_eq!(say_of(&post(a, p, &chat(0))), "ok");
    assert_eq!(say_of(&post(a, p, &chat(0))), "ok", "last attempt repeats");
    assert_eq!(say_of(&post(a, p, &chat(1))), "turn1");

    let r = send(a, "POST", "/_mock/reset", &[], "");
    assert_eq!(r.status, 200);
    assert_eq!(post(a, p, &chat(0)).status, 429);
    m.reset_counters(Some("att"));
    assert_eq!(post(a, p, &chat(0)).status, 429);
}

#[test]
fn runtime_registration_and_recording() {
    let m = server(&[]);
    let a = m.addr();
    let r = post(a, "/s/late/v1/chat/completions", &chat(0));
    assert_eq!(r.status, 404);

    let r = send(
        a,
        "PUT",
        "/_mock/scenarios/late",
        &[],
        r#"{"steps":[{"say":"registered"}]}"#,
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let bad = send(
        a,
        "PUT",
        "/_mock/scenarios/bad",
        &[],
        r#"{"steps":[{"sya":"typo"}]}"#,
    );
    assert_eq!(bad.status, 400);
    assert!(bad.json()["error"].as_str().unwrap().contains("sya"));

    let body = json!({"model": "m", "messages": [{"role": "user", "content": "x"}],
                      "tools": [{"type": "function", "function": {"name": "t"}}], "tool_choice": "required"});
    let r = send(
        a,
        "POST",
        "/s/late/v1/chat/completions",
        &[
            ("Authorization", "Bearer sk-test"),
            ("content-type", "application/json"),
        ],
        &body.to_string(),
    );
    assert_eq!(say_of(&r), "registered");
    m.add_scenario_json("other", r#"[{"say": "o"}]"#).unwrap();
    post(a, "/s/other/v1/chat/completions", &chat(0));

    let recs = send(a, "GET", "/_mock/requests?scenario=late", &[], "").json();
    let recs = recs.as_array().unwrap();
    assert_eq!(recs.len(), 2, "404 requests are recorded too: {recs:?}");
    let last = &recs[1];
    assert_eq!(last["method"], "POST");
    assert_eq!(last["path"], "/s/late/v1/chat/completions");
    assert_eq!(last["headers"]["authorization"], "Bearer sk-test");
    assert_eq!(last["body"]["tool_choice"], "required");
    assert_eq!(last["body"]["tools"][0]["function"]["name"], "t");
    assert_eq!(last["dialect"], "openai");

    assert_eq!(m.requests(None).len(), 3);
    assert_eq!(m.requests(Some("other")).len(), 1);
    assert_eq!(send(a, "DELETE", "/_mock/requests", &[], "").status, 200);
    assert!(m.requests(None).is_empty());
    let names = send(a, "GET", "/_mock/scenarios", &[], "").json();
    assert_eq!(names, json!(["late", "other"]));
    assert_eq!(send(a, "GET", "/_mock/health", &[], "").status, 200);
}

#[test]
fn openai_shorthands() {
    let m = server(&[(
        "tools",
        json!({"steps": [
            {"call": [
                {"name": "sql_query", "arguments": {"sql": "select 1"}},
                {"name": "getDialog", "arguments": {"question": "Which region?"}, "id": "call_custom"}
            ], "usage": {"prompt_tokens": 11, "completion_tokens": 7}},
            {"echo_last_tool_result": true},
            {"call": [{"name": "broken", "arguments": "{\"a\": 1,"}]},
            {"say": "cut", "finish_reason": "length"}
        ]}),
    )]);
    let a = m.addr();
    let p = "/s/tools/v1/chat/completions";
    let v = post(a, p, &chat(0)).json();
    assert_eq!(v["object"], "chat.completion");
    assert_eq!(v["model"], "gpt-test");
    let choice = &v["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    assert_eq!(choice["message"]["role"], "assistant");
    assert!(choice["message"]["content"].is_null());
    let calls = choice["message"]["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["type"], "function");
    assert_eq!(calls[0]["id"], "call_0_0");
    assert_eq!(calls[0]["function"]["name"], "sql_query");
    let args: Value =
        serde_json::from_str(calls[0]["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, json!({"sql": "select 1"}));
    assert_eq!(calls[1]["id"], "call_custom");
    assert_eq!(
        v["usage"],
        json!({"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18})
    );

    // Turn 1: echo the last tool message.
    let mut req = chat(0);
    let msgs = req["messages"].as_array_mut().unwrap();
    msgs.push(json!({"role": "assistant", "content": null, "tool_calls": calls}));
    msgs.push(
        json!({"role": "tool", "tool_call_id": "call_0_0", "content": "| ?column? |\n| 1 |"}),
    );
    let v = post(a, p, &req).json();
    assert_eq!(v["choices"][0]["message"]["content"], "| ?column? |\n| 1 |");
    assert_eq!(v["choices"][0]["finish_reason"], "stop");
    assert!(v["usage"]["prompt_tokens"].as_u64().unwrap() > 0);

    // Raw string arguments pass through verbatim (malformed-argument tests).
    let v = post(a, p, &chat(2)).json();
    assert_eq!(
        v["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"],
        "{\"a\": 1,"
    );
    let v = post(a, p, &chat(3)).json();
    assert_eq!(v["choices"][0]["finish_reason"], "length");
}

#[test]
fn anthropic_dialect() {
    let m = server(&[(
        "an",
        json!([
            {"say": "Let me look.", "call": [{"name": "sql_query", "arguments": {"sql": "select 1"}}, {"name": "t2"}]},
            {"echo_last_tool_result": true},
            {"status": 529}
        ]),
    )]);
    let a = m.addr();
    let p = "/s/an/v1/messages";
    let v = send(
        a,
        "POST",
        p,
        &[("x-api-key", "k"), ("anthropic-version", "2023-06-01")],
        &chat(0).to_string(),
    )
    .json();
    assert_eq!(v["type"], "message");
    assert_eq!(v["role"], "assistant");
    assert_eq!(v["stop_reason"], "tool_use");
    let c = v["content"].as_array().unwrap();
    assert_eq!(c[0], json!({"type": "text", "text": "Let me look."}));
    assert_eq!(c[1]["type"], "tool_use");
    assert_eq!(c[1]["id"], "toolu_0_0");
    assert_eq!(c[1]["input"], json!({"sql": "select 1"}));
    assert_eq!(c[2]["input"], json!({}));
    assert!(v["usage"]["input_tokens"].as_u64().is_some());
    assert!(v["usage"]["output_tokens"].as_u64().is_some());

    let req = json!({"model": "claude", "messages": [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_0_0", "name": "sql_query", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_0_0",
                                      "content": [{"type": "text", "text": "42"}]}]}
    ]});
    let v = post(a, p, &req).json();
    assert_eq!(v["content"][0]["text"], "42");
    assert_eq!(v["stop_reason"], "end_turn");
    assert_eq!(v["model"], "claude");

    let r = post(a, p, &chat(2));
    assert_eq!(r.status, 529);
    assert_eq!(r.json()["type"], "error");
    assert_eq!(r.json()["error"]["type"], "overloaded_error");
    assert_eq!(m.requests(Some("an"))[0].header("x-api-key"), Some("k"));
}

#[test]
fn azure_path() {
    let m = server(&[("az", json!([{"say": "from azure"}]))]);
    let r = send(
        m.addr(),
        "POST",
        "/s/az/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21",
        &[("api-key", "azure-key")],
        &chat(0).to_string(),
    );
    assert_eq!(say_of(&r), "from azure");
    let rec = &m.requests(Some("az"))[0];
    assert_eq!(rec.dialect, mock_llm::Dialect::Azure);
    assert_eq!(rec.header("api-key"), Some("azure-key"));
    assert!(rec.path.ends_with("?api-version=2024-10-21"));
}

#[test]
fn raw_bodies_and_default_scenario() {
    let m = server(&[
        ("default", json!([{"say": "default scenario"}])),
        (
            "html",
            json!([{"status": 502, "headers": {"content-type": "text/html"}, "body": "<html><body>Bad Gateway</body></html>"}]),
        ),
        (
            "fence",
            json!([{"body": "```json\n{\"choices\": []}\n```"}]),
        ),
    ]);
    let a = m.addr();
    assert_eq!(
        say_of(&post(a, "/v1/chat/completions", &chat(0))),
        "default scenario"
    );
    let r = post(a, "/s/html/v1/chat/completions", &chat(0));
    assert_eq!(r.status, 502);
    assert_eq!(r.header("content-type"), Some("text/html"));
    assert_eq!(r.body, b"<html><body>Bad Gateway</body></html>");
    let r = post(a, "/s/fence/v1/chat/completions", &chat(0));
    assert_eq!(r.status, 200);
    assert!(r.body.starts_with(b"```json"));
    assert_eq!(post(a, "/s/html/v2/nothing", &chat(0)).status, 404);
    // Not JSON at all.
    assert_eq!(
        send(a, "POST", "/s/default/v1/chat/completions", &[], "{oops").status,
        400
    );
}

#[test]
fn keep_alive_serves_many_requests_on_one_connection() {
    let m = server(&[("k", json!([{"say": "a"}, {"say": "b"}]))]);
    let mut s = TcpStream::connect(m.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut r = BufReader::new(s.try_clone().unwrap());
    for i in 0..50 {
        write_req(
            &mut s,
            "POST",
            "/s/k/v1/chat/completions",
            &[],
            &chat(i % 2).to_string(),
        );
        let rep = read_reply(&mut r);
        assert_eq!(rep.header("connection"), Some("keep-alive"));
        assert_eq!(say_of(&rep), if i % 2 == 0 { "a" } else { "b" });
    }
    assert_eq!(m.active_connections(), 1);
}

#[test]
fn faults_at_socket_level() {
    let m = server(&[
        ("rst", json!([{"fault": "reset"}])),
        ("cbh", json!([{"fault": "close_before_headers"}])),
        (
            "tr",
            json!([{"say": "some answer long enough to cut in half", "fault": "truncate"}]),
        ),
        ("big", json!([{"oversize_bytes": 300_000}])),
        ("hang", json!([{"fault": "never_answer"}])),
        ("slow", json!([{"say": "late", "delay_ms": 300}])),
    ]);
    let a = m.addr();
    let raw = |scenario: &str| -> (Vec<u8>, Option<std::io::ErrorKind>) {
        let mut s = TcpStream::connect(a).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        write_req(
            &mut s,
            "POST",
            &format!("/s/{scenario}/v1/chat/completions"),
            &[],
            &chat(0).to_string(),
        );
        let mut got = Vec::new();
        let err = s.read_to_end(&mut got).err().map(|e| e.kind());
        (got, err)
    };
    let (got, err) = raw("rst");
    assert!(got.is_empty());
    assert_eq!(err, Some(std::io::ErrorKind::ConnectionReset));
    let (got, err) = raw("cbh");
    assert!(got.is_empty() && err.is_none());
    let (got, err) = raw("tr");
    assert!(err.is_none());
    let text = String::from_utf8_lossy(&got).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let cl: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(body.len() < cl, "body {} < announced {cl}", body.len());

    let r = post(a, "/s/big/v1/chat/completions", &chat(0));
    assert_eq!(r.body.len(), 300_000);
    assert_eq!(r.json()["choices"][0]["finish_reason"], "stop");
    let r = post(a, "/s/big/v1/messages", &chat(0));
    assert_eq!(r.body.len(), 300_000);
    assert_eq!(r.json()["type"], "message");

    let t = Instant::now();
    let r = post(a, "/s/slow/v1/chat/completions", &chat(0));
    assert!(t.elapsed() >= Duration::from_millis(300));
    assert_eq!(say_of(&r), "late");

    // never_answer: nothing arrives; the hold ends when the client closes.
    let mut s = TcpStream::connect(a).unwrap();
    write_req(
        &mut s,
        "POST",
        "/s/hang/v1/chat/completions",
        &[],
        &chat(0).to_string(),
    );
    s.set_read_timeout(Some(Duration::from_millis(400)))
        .unwrap();
    let mut buf = [0u8; 16];
    let e = s.read(&mut buf).unwrap_err();
    assert!(matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    ));
    drop(s);
    let t = Instant::now();
    while m.active_connections() > 0 && t.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        m.active_connections(),
        0,
        "hold ended when the client closed"
    );
}

#[test]
fn drop_closes_held_connections() {
    let m = server(&[("hang", json!([{"fault": "never_answer"}]))]);
    let mut s = TcpStream::connect(m.addr()).unwrap();
    write_req(
        &mut s,
        "POST",
        "/s/hang/v1/chat/completions",
        &[],
        &chat(0).to_string(),
    );
    std::thread::sleep(Duration::from_millis(100));
    let t = Instant::now();
    drop(m);
    assert!(t.elapsed() < Duration::from_secs(2));
    s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let mut buf = Vec::new();
    // EOF or reset, but not a timeout.
    match s.read_to_end(&mut buf) {
        Ok(_) => assert!(buf.is_empty()),
        Err(e) => assert!(!matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        )),
    }
}

#[test]
fn connection_limit_and_hold_cap() {
    let m = MockServer::start(MockConfig {
        scenarios: vec![(
            "hang".into(),
            Scenario::from_json(r#"[{"fault":"never_answer"}]"#).unwrap(),
        )],
        max_connections: 1,
        hold_cap: Duration::from_millis(500),
        ..MockConfig::default()
    })
    .unwrap();
    let t = Instant::now();
    let mut held = TcpStream::connect(m.addr()).unwrap();
    write_req(
        &mut held,
        "POST",
        "/s/hang/v1/chat/completions",
        &[],
        &chat(0).to_string(),
    );
    std::thread::sleep(Duration::from_millis(100));
    let r = send(m.addr(), "GET", "/_mock/health", &[], "");
    assert_eq!(r.status, 503, "over the connection limit");
    held.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
    let mut buf = Vec::new();
    let _ = held.read_to_end(&mut buf);
    assert!(buf.is_empty());
    let e = t.elapsed();
    assert!(
        e >= Duration::from_millis(450) && e < Duration::from_secs(2),
        "{e:?}"
    );
}

#[test]
fn non_loopback_is_refused() {
    let r = MockServer::start(MockConfig {
        listen: "0.0.0.0:0".parse().unwrap(),
        ..MockConfig::default()
    });
    assert!(r.is_err());
}

#[test]
fn binary_with_scenario_dir_and_port_file() {
    let dir = std::env::temp_dir().join(format!("mock_llm_test_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("hello.json"), r#"{"steps":[{"say":"from file"}]}"#).unwrap();
    let port_file = dir.join("port");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mock_llm"))
        .args(["--listen", "127.0.0.1:0", "--scenarios"])
        .arg(&dir)
        .arg("--port-file")
        .arg(&port_file)
        .arg("--exit-on-stdin-eof")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr: SocketAddr = line.trim().parse().unwrap();
    let port: u16 = std::fs::read_to_string(&port_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(addr.port(), port);
    let r = post(addr, "/s/hello/v1/chat/completions", &chat(0));
    assert_eq!(say_of(&r), "from file");
    drop(child.stdin.take()); // EOF on stdin ends the server
    let t = Instant::now();
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            assert!(st.success());
            break;
        }
        if t.elapsed() > Duration::from_secs(5) {
            let _ = child.kill();
            panic!("mock_llm did not exit on stdin EOF");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn recording_is_bounded() {
    let m = MockServer::start(MockConfig {
        scenarios: vec![("s".into(), Scenario::say("x"))],
        max_recorded: 3,
        ..MockConfig::default()
    })
    .unwrap();
    for _ in 0..5 {
        post(m.addr(), "/s/s/v1/chat/completions", &chat(0));
    }
    let recs = m.requests(None);
    assert_eq!(recs.len(), 3);
    assert_eq!(recs[0].seq, 3, "oldest dropped first");

    let off = MockServer::start(MockConfig {
        scenarios: vec![("s".into(), Scenario::say("x"))],
        max_recorded: 0,
        ..MockConfig::default()
    })
    .unwrap();
    post(off.addr(), "/s/s/v1/chat/completions", &chat(0));
    assert!(off.requests(None).is_empty());
}

#[test]
fn echo_headers_answers_with_the_credentials_in_every_form() {
    let m = server(&[("echo", json!({"steps": [{"echo_headers": true}]}))]);
    let body = chat(0).to_string();
    let r = send(
        m.addr(),
        "POST",
        "/s/echo/v1/chat/completions",
        &[("Authorization", "Bearer sk-a/b+c\"d")],
        &body,
    );
    assert_eq!(r.status, 200);
    let answer = say_of(&r);
    assert!(
        answer.contains("authorization: Bearer sk-a/b+c\"d"),
        "{answer}"
    );
    assert!(
        answer.contains(r#""authorization":"Bearer sk-a/b+c\"d""#),
        "{answer}"
    );
    assert!(
        answer.contains("authorization=Bearer%20sk-a%2Fb%2Bc%22d"),
        "{answer}"
    );
    // the recorded request carries the exact size and hash of the body received
    let j = m.requests(Some("echo"))[0].to_json();
    assert_eq!(j["body_bytes"], body.len());
    assert_eq!(j["body_sha256"].as_str().map(str::len), Some(64), "{j}");
}

#[test]
fn embeddings_are_deterministic_word_hash_vectors() {
    let m = server(&[
        ("emb", json!({"steps": [{"embedding_dimension": 16}]})),
        (
            "down",
            json!({"steps": [{"status": 503, "error": "overloaded"}]}),
        ),
    ]);
    let a = m.addr();
    let req = json!({"model": "e", "input": ["Urlaub Bayern", "urlaub, BAYERN!", "Kündigung"]});
    let r = post(a, "/s/emb/v1/embeddings", &req);
    assert_eq!(r.status, 200);
    let v = r.json();
    let data = v["data"].as_array().unwrap();
    assert_eq!(data.len(), 3);
    let vec_of = |i: usize| -> Vec<f64> {
        data[i]["embedding"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    assert_eq!(vec_of(0).len(), 16);
    assert_eq!(data[2]["index"], 2);
    // same words (case and punctuation aside) give the same vector
    assert_eq!(vec_of(0), vec_of(1));
    assert_ne!(vec_of(0), vec_of(2));
    // the request's dimensions apply when the step names none
    let r = post(a, "/v1/embeddings", &json!({"input": "x", "dimensions": 5}));
    assert_eq!(r.status, 404, "scenario default is not registered");
    let r = post(a, "/s/down/v1/embeddings", &req);
    assert_eq!(r.status, 503);
}
