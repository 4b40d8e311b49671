//! The floor of `benches/chat_overhead`: raw HTTP round trips to the mock LLM over one keep-alive
//! connection, with nothing but the standard library (no JSON, no TLS, no retries, no
//! scrubbing). Posts the given request bodies in turn (a chat's first and second request, as
//! recorded in `mcp.llm_request`) and prints the mean time of one *pair* of round trips in
//! microseconds.
//!
//! `raw_roundtrip URL BODY_FILE... [--pairs N]`

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Instant;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut pairs = 2000usize;
    if let Some(i) = args.iter().position(|a| a == "--pairs") {
        pairs = args
            .get(i + 1)
            .and_then(|n| n.parse().ok())
            .expect("--pairs N");
        args.drain(i..i + 2);
    }
    let url = args
        .first()
        .expect("usage: raw_roundtrip URL BODY_FILE...")
        .clone();
    let bodies: Vec<String> = args[1..]
        .iter()
        .map(|f| std::fs::read_to_string(f).expect("body file"))
        .collect();
    assert!(!bodies.is_empty(), "at least one body file");
    let rest = url.strip_prefix("http://").expect("http:// URL");
    let (hostport, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let stream = TcpStream::connect(hostport).expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let mut w = stream.try_clone().expect("clone");
    let mut r = BufReader::new(stream);
    let mut send = |body: &str| {
        let head = format!(
            "POST {path} HTTP/1.1\r\nhost: {hostport}\r\ncontent-type: application/json\r\n\
             authorization: Bearer sk-bench-not-a-real-key\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        w.write_all(head.as_bytes()).expect("write");
        w.write_all(body.as_bytes()).expect("write");
        let mut line = String::new();
        let mut len = 0usize;
        let mut status = String::new();
        loop {
            line.clear();
            r.read_line(&mut line).expect("read");
            if status.is_empty() {
                status = line.trim().to_string();
            }
            let l = line.trim();
            if l.is_empty() {
                break;
            }
            if let Some((k, v)) = l.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    len = v.trim().parse().expect("content-length");
                }
            }
        }
        assert!(status.contains(" 200"), "mock answered {status}");
        let mut buf = vec![0u8; len];
        r.read_exact(&mut buf).expect("body");
    };
    // Warm-up.
    for _ in 0..200 {
        for b in &bodies {
            send(b);
        }
    }
    let t0 = Instant::now();
    for _ in 0..pairs {
        for b in &bodies {
            send(b);
        }
    }
    let per = t0.elapsed().as_secs_f64() * 1e6 / pairs as f64;
    println!("{per:.1}");
}
