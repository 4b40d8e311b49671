//! mock_llm — a scriptable OpenAI- and Anthropic-compatible LLM server on loopback, for tests and
//! benchmarks. Plain `std::net`, HTTP/1.1 with keep-alive, one thread per connection, bounded.
//!
//! Routes:
//! * `POST /s/{scenario}/v1/chat/completions` — OpenAI dialect
//! * `POST /s/{scenario}/openai/deployments/{dep}/chat/completions?api-version=…` — Azure
//! * `POST /s/{scenario}/v1/messages` — Anthropic dialect
//! * `POST /s/{scenario}/v1/embeddings` — OpenAI embeddings: deterministic word-hash vectors
//!   ([`scenario::embeddings_body`]); a step's `status`/`error`/`body`/`fault`/`attempts`
//!   apply as for chat
//! * the same paths without `/s/{scenario}` use the scenario `default`
//! * `GET /_mock/health`, `POST /_mock/reset[?scenario=NAME]`,
//!   `PUT /_mock/scenarios/{name}` (body: scenario JSON), `DELETE /_mock/scenarios/{name}`,
//!   `GET /_mock/scenarios`, `GET /_mock/requests[?scenario=NAME]`, `DELETE /_mock/requests`
//!
//! A step with `"echo_headers": true` answers with the request's headers, credentials
//! included (plain lines, a JSON object and percent-encoded), to test that clients scrub them.
//!
//! Step selection is stateless: the step index is the number of assistant messages already in
//! the request (the last step repeats). A step holding `attempts` serves them in order per
//! (scenario, turn) counter, reset with `POST /_mock/reset`.
//!
//! Scenario file (`{name}.json` in the scenarios directory, or the body of
//! `PUT /_mock/scenarios/{name}`):
//!
//! ```json
//! {"steps": [
//!   {"call": [{"name": "sql_query", "arguments": {"sql": "select 1"}}]},
//!   {"attempts": [{"status": 429, "headers": {"retry-after": "1"}}, {"say": "done"}]}
//! ]}
//! ```

mod scenario;

pub use scenario::{
    echoed_forms, last_tool_result, turn_of, CallSpec, Dialect, Fault, Scenario, Step, UsageSpec,
};

use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Server configuration.
#[derive(Clone, Debug)]
pub struct MockConfig {
    /// Must be a loopback address; port 0 picks a free port.
    pub listen: SocketAddr,
    /// Directory of `{name}.json` scenario files loaded at start.
    pub scenarios_dir: Option<PathBuf>,
    /// Scenarios registered at start (in addition to the directory).
    pub scenarios: Vec<(String, Scenario)>,
    /// Concurrent connections; beyond this a connection gets 503 and is closed.
    pub max_connections: usize,
    /// Upper bound of every wait: `never_answer` holds and `delay_ms`.
    pub hold_cap: Duration,
    /// An idle keep-alive connection (or a stalled request) is closed after this.
    pub idle_timeout: Duration,
    /// Largest accepted request body.
    pub max_request_bytes: usize,
    /// Recorded requests kept (oldest dropped first); 0 disables recording.
    pub max_recorded: usize,
    /// Total body+header bytes of recorded requests kept (oldest dropped first).
    pub max_recorded_bytes: usize,
}

impl Default for MockConfig {
    fn default() -> Self {
        MockConfig {
            listen: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0),
            scenarios_dir: None,
            scenarios: Vec::new(),
            max_connections: 256,
            hold_cap: Duration::from_secs(300),
            idle_timeout: Duration::from_secs(60),
            max_request_bytes: 32 * 1024 * 1024,
            max_recorded: 10_000,
            max_recorded_bytes: 64 * 1024 * 1024,
        }
    }
}

/// A request the server received on a scenario route.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    pub seq: u64,
    pub scenario: String,
    pub dialect: Dialect,
    pub turn: usize,
    pub method: String,
    /// Path including the query string.
    pub path: String,
    /// Header names lowercased, in the order received.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body parsed as JSON, if it is JSON.
    pub fn json(&self) -> Option<Value> {
        serde_json::from_str(&self.body).ok()
    }

    pub fn to_json(&self) -> Value {
        let mut headers = serde_json::Map::new();
        for (k, v) in &self.headers {
            match headers.get_mut(k) {
                Some(Value::String(prev)) => {
                    prev.push_str(", ");
                    prev.push_str(v);
                }
                _ => {
                    headers.insert(k.clone(), Value::String(v.clone()));
                }
            }
        }
        json!({
            "seq": self.seq,
            "scenario": self.scenario,
            "dialect": self.dialect.as_str(),
            "turn": self.turn,
            "method": self.method,
            "path": self.path,
            "headers": Value::Object(headers),
            "body": self.json().unwrap_or_else(|| Value::String(self.body.clone())),
            // The exact bytes received, for checks of what a client says it sent.
            "body_bytes": self.body.len(),
            "body_sha256": sha256_hex(self.body.as_bytes()),
        })
    }
}

struct Shared {
    cfg: MockConfig,
    addr: SocketAddr,
    scenarios: RwLock<HashMap<String, Arc<Scenario>>>,
    counters: Mutex<HashMap<(String, usize), usize>>,
    requests: Mutex<Recorded>,
    seq: AtomicU64,
    shutdown: AtomicBool,
    active: AtomicUsize,
    conns: Mutex<HashMap<u64, TcpStream>>,
    conn_id: AtomicU64,
}

#[derive(Default)]
struct Recorded {
    q: VecDeque<RecordedRequest>,
    bytes: usize,
}

impl Recorded {
    fn size(r: &RecordedRequest) -> usize {
        r.body.len()
            + r.path.len()
            + r.headers
                .iter()
                .map(|(k, v)| k.len() + v.len())
                .sum::<usize>()
    }

    fn push(&mut self, r: RecordedRequest, max_n: usize, max_bytes: usize) {
        self.bytes += Self::size(&r);
        self.q.push_back(r);
        while self.q.len() > max_n || (self.bytes > max_bytes && self.q.len() > 1) {
            match self.q.pop_front() {
                Some(old) => self.bytes = self.bytes.saturating_sub(Self::size(&old)),
                None => break,
            }
        }
    }

    fn clear(&mut self) {
        self.q.clear();
        self.bytes = 0;
    }
}

fn sha256_hex(b: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A running server; shuts down (and closes every connection) on drop.
pub struct MockServer {
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl MockServer {
    /// Bind, load scenarios and start accepting.
    pub fn start(cfg: MockConfig) -> io::Result<MockServer> {
        if !cfg.listen.ip().is_loopback() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("mock_llm listens on loopback only, not {}", cfg.listen),
            ));
        }
        let mut scenarios: HashMap<String, Arc<Scenario>> = HashMap::new();
        if let Some(dir) = &cfg.scenarios_dir {
            for (name, s) in load_dir(dir)? {
                scenarios.insert(name, Arc::new(s));
            }
        }
        for (name, s) in &cfg.scenarios {
            if !valid_name(name) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("invalid scenario name {name:?}"),
                ));
            }
            scenarios.insert(name.clone(), Arc::new(s.clone()));
        }
        let listener = TcpListener::bind(cfg.listen)?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            cfg,
            addr,
            scenarios: RwLock::new(scenarios),
            counters: Mutex::new(HashMap::new()),
            requests: Mutex::new(Recorded::default()),
            seq: AtomicU64::new(1),
            shutdown: AtomicBool::new(false),
            active: AtomicUsize::new(0),
            conns: Mutex::new(HashMap::new()),
            conn_id: AtomicU64::new(1),
        });
        let sh = shared.clone();
        let accept = std::thread::Builder::new()
            .name("mock_llm-accept".into())
            .spawn(move || accept_loop(listener, sh))?;
        Ok(MockServer {
            shared,
            accept: Some(accept),
        })
    }

    /// Start on 127.0.0.1 with an ephemeral port and these scenarios.
    pub fn with_scenarios(scenarios: Vec<(&str, Scenario)>) -> io::Result<MockServer> {
        MockServer::start(MockConfig {
            scenarios: scenarios
                .into_iter()
                .map(|(n, s)| (n.to_string(), s))
                .collect(),
            ..MockConfig::default()
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.shared.addr
    }

    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        format!("http://{}", self.shared.addr)
    }

    /// `http://127.0.0.1:PORT/s/{name}` — prefix of the scenario's routes.
    pub fn scenario_url(&self, name: &str) -> String {
        format!("http://{}/s/{}", self.shared.addr, name)
    }

    /// Full OpenAI chat completions URL for a scenario.
    pub fn openai_url(&self, name: &str) -> String {
        format!("{}/v1/chat/completions", self.scenario_url(name))
    }

    /// Full Anthropic messages URL for a scenario.
    pub fn anthropic_url(&self, name: &str) -> String {
        format!("{}/v1/messages", self.scenario_url(name))
    }

    /// Full Azure OpenAI URL for a scenario and deployment.
    pub fn azure_url(&self, name: &str, deployment: &str) -> String {
        format!(
            "{}/openai/deployments/{}/chat/completions?api-version=2024-10-21",
            self.scenario_url(name),
            deployment
        )
    }

    /// Register or replace a scenario (resets its attempt counters).
    pub fn add_scenario(&self, name: &str, scenario: Scenario) -> Result<(), String> {
        self.shared.put_scenario(name, scenario)
    }

    /// Register or replace a scenario from JSON text.
    pub fn add_scenario_json(&self, name: &str, json: &str) -> Result<(), String> {
        self.shared.put_scenario(name, Scenario::from_json(json)?)
    }

    /// Recorded requests, optionally only those of one scenario.
    pub fn requests(&self, scenario: Option<&str>) -> Vec<RecordedRequest> {
        lock(&self.shared.requests)
            .q
            .iter()
            .filter(|r| scenario.is_none_or(|s| r.scenario == s))
            .cloned()
            .collect()
    }

    pub fn clear_requests(&self) {
        lock(&self.shared.requests).clear();
    }

    /// Reset `attempts` counters (all, or one scenario's).
    pub fn reset_counters(&self, scenario: Option<&str>) {
        self.shared.reset(scenario);
    }

    /// Number of currently open client connections.
    pub fn active_connections(&self) -> usize {
        self.shared.active.load(Ordering::SeqCst)
    }

    /// Stop accepting, close every connection, join the accept thread.
    pub fn shutdown(&mut self) {
        if self.shared.shutdown.swap(true, Ordering::SeqCst) {
            return;
        }
        // Wake the blocking accept().
        let _ = TcpStream::connect_timeout(&self.shared.addr, Duration::from_secs(1));
        for (_, s) in lock(&self.shared.conns).drain() {
            let _ = s.shutdown(Shutdown::Both);
        }
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }

    /// Block the calling thread until the server is shut down from elsewhere (never, for the
    /// binary: it ends on a signal or stdin EOF).
    pub fn wait(mut self) {
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Load every `*.json` file of a directory as a scenario named after the file stem.
pub fn load_dir(dir: &Path) -> io::Result<Vec<(String, Scenario)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        if !valid_name(&name) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: invalid scenario name {name:?}", path.display()),
            ));
        }
        let text = std::fs::read_to_string(&path)?;
        let s = Scenario::from_json(&text).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: {e}", path.display()),
            )
        })?;
        out.push((name, s));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
}

impl Shared {
    fn put_scenario(&self, name: &str, s: Scenario) -> Result<(), String> {
        if !valid_name(name) {
            return Err(format!("invalid scenario name {name:?}"));
        }
        if s.steps.is_empty() {
            return Err("scenario has no steps".into());
        }
        self.scenarios
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(name.to_string(), Arc::new(s));
        self.reset(Some(name));
        Ok(())
    }

    fn reset(&self, scenario: Option<&str>) {
        let mut c = lock(&self.counters);
        match scenario {
            None => c.clear(),
            Some(s) => c.retain(|(name, _), _| name != s),
        }
    }

    fn scenario(&self, name: &str) -> Option<Arc<Scenario>> {
        self.scenarios
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(name)
            .cloned()
    }

    fn stopping(&self) -> bool {
        self.shutdown.load(Ordering::SeqCst)
    }
}

// ---------------------------------------------------------------------------------------------
// Connections
// ---------------------------------------------------------------------------------------------

fn accept_loop(listener: TcpListener, sh: Arc<Shared>) {
    loop {
        let conn = listener.accept();
        if sh.stopping() {
            return;
        }
        let stream = match conn {
            Ok((s, _)) => s,
            Err(_) => {
                // EMFILE and friends: back off briefly instead of spinning.
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
        };
        if sh.active.load(Ordering::SeqCst) >= sh.cfg.max_connections {
            let mut s = stream;
            let _ = s.set_write_timeout(Some(Duration::from_secs(1)));
            let _ = write_simple(
                &mut s,
                503,
                "application/json",
                br#"{"error":{"message":"mock_llm: too many connections","type":"server_error"}}"#,
                false,
            );
            continue;
        }
        let id = sh.conn_id.fetch_add(1, Ordering::SeqCst);
        if let Ok(clone) = stream.try_clone() {
            lock(&sh.conns).insert(id, clone);
        }
        sh.active.fetch_add(1, Ordering::SeqCst);
        let sh2 = sh.clone();
        let spawned = std::thread::Builder::new()
            .name("mock_llm-conn".into())
            .stack_size(512 * 1024)
            .spawn(move || {
                serve_connection(stream, &sh2);
                lock(&sh2.conns).remove(&id);
                sh2.active.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            if let Some(s) = lock(&sh.conns).remove(&id) {
                let _ = s.shutdown(Shutdown::Both);
            }
            sh.active.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

struct HttpRequest {
    method: String,
    path: String,
    version_11: bool,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl HttpRequest {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn keep_alive(&self) -> bool {
        let conn = self.header("connection").map(|v| v.to_ascii_lowercase());
        match conn.as_deref() {
            Some(v) if v.contains("close") => false,
            Some(v) if v.contains("keep-alive") => true,
            _ => self.version_11,
        }
    }
}

enum ReadError {
    /// Clean close (or timeout) before a request started.
    Closed,
    /// Malformed or too large: answer with this status, then close.
    Bad(u16, &'static str),
    Io,
}

const MAX_HEADER_BYTES: u64 = 64 * 1024;

fn read_line(r: &mut BufReader<TcpStream>, budget: &mut u64) -> Result<String, ReadError> {
    let mut buf = Vec::new();
    let n = r
        .by_ref()
        .take(*budget)
        .read_until(b'\n', &mut buf)
        .map_err(|_| ReadError::Io)?;
    if n == 0 {
        return Err(ReadError::Closed);
    }
    *budget = budget.saturating_sub(n as u64);
    if buf.last() != Some(&b'\n') {
        return Err(if *budget == 0 {
            ReadError::Bad(431, "request header too large")
        } else {
            ReadError::Io
        });
    }
    while matches!(buf.last(), Some(b'\n' | b'\r')) {
        buf.pop();
    }
    String::from_utf8(buf).map_err(|_| ReadError::Bad(400, "header is not UTF-8"))
}

fn read_request(r: &mut BufReader<TcpStream>, max_body: usize) -> Result<HttpRequest, ReadError> {
    let mut budget = MAX_HEADER_BYTES;
    let mut line = read_line(r, &mut budget)?;
    while line.is_empty() {
        // Tolerate stray CRLF between pipelined requests.
        line = read_line(r, &mut budget)?;
    }
    let mut parts = line.split(' ');
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let version = parts.next().unwrap_or_default();
    if method.is_empty() || !path.starts_with('/') || !version.starts_with("HTTP/1.") {
        return Err(ReadError::Bad(400, "malformed request line"));
    }
    let version_11 = version != "HTTP/1.0";
    let mut headers = Vec::new();
    loop {
        let l = match read_line(r, &mut budget) {
            Ok(l) => l,
            Err(ReadError::Closed) => return Err(ReadError::Io),
            Err(e) => return Err(e),
        };
        if l.is_empty() {
            break;
        }
        let Some((k, v)) = l.split_once(':') else {
            return Err(ReadError::Bad(400, "malformed header"));
        };
        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        if headers.len() > 200 {
            return Err(ReadError::Bad(431, "too many headers"));
        }
    }
    let mut req = HttpRequest {
        method,
        path,
        version_11,
        headers,
        body: Vec::new(),
    };
    if req
        .header("expect")
        .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"))
    {
        let _ = r.get_mut().write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
    }
    let chunked = req
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        req.body = read_chunked(r, max_body)?;
    } else if let Some(cl) = req.header("content-length") {
        let n: usize = cl
            .trim()
            .parse()
            .map_err(|_| ReadError::Bad(400, "bad content-length"))?;
        if n > max_body {
            return Err(ReadError::Bad(413, "request body too large"));
        }
        let mut body = vec![0u8; n];
        r.read_exact(&mut body).map_err(|_| ReadError::Io)?;
        req.body = body;
    }
    Ok(req)
}

fn read_chunked(r: &mut BufReader<TcpStream>, max_body: usize) -> Result<Vec<u8>, ReadError> {
    let mut body = Vec::new();
    loop {
        let mut budget = 1024;
        let line = read_line(r, &mut budget).map_err(|_| ReadError::Io)?;
        let size_hex = line.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_hex, 16)
            .map_err(|_| ReadError::Bad(400, "bad chunk size"))?;
        if size == 0 {
            // Trailers until the empty line.
            loop {
                let mut b = MAX_HEADER_BYTES;
                if read_line(r, &mut b).map_err(|_| ReadError::Io)?.is_empty() {
                    return Ok(body);
                }
            }
        }
        if body.len().saturating_add(size) > max_body {
            return Err(ReadError::Bad(413, "request body too large"));
        }
        let start = body.len();
        body.resize(start + size, 0);
        r.read_exact(&mut body[start..])
            .map_err(|_| ReadError::Io)?;
        let mut b = 16;
        read_line(r, &mut b).map_err(|_| ReadError::Io)?;
    }
}

fn serve_connection(stream: TcpStream, sh: &Shared) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(sh.cfg.idle_timeout));
    let _ = stream.set_write_timeout(Some(sh.cfg.idle_timeout));
    let mut reader = BufReader::with_capacity(16 * 1024, stream);
    loop {
        if sh.stopping() {
            return;
        }
        let req = match read_request(&mut reader, sh.cfg.max_request_bytes) {
            Ok(r) => r,
            Err(ReadError::Closed) | Err(ReadError::Io) => return,
            Err(ReadError::Bad(status, msg)) => {
                let body = json!({"error": {"message": msg, "type": "invalid_request_error"}});
                let _ = write_simple(
                    reader.get_mut(),
                    status,
                    "application/json",
                    body.to_string().as_bytes(),
                    false,
                );
                return;
            }
        };
        let keep = req.keep_alive();
        match handle(&req, sh, reader.get_mut(), keep) {
            Next::KeepGoing if keep => continue,
            // Linger 0 is set: dropping the socket sends RST (no FIN first).
            Next::Abort => return,
            _ => {
                let _ = reader.get_mut().shutdown(Shutdown::Write);
                return;
            }
        }
    }
}

enum Next {
    KeepGoing,
    Close,
    Abort,
}

fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        307 => "Temporary Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "Status",
    }
}

fn head(status: u16, headers: &[(String, String)], content_length: usize, keep: bool) -> Vec<u8> {
    let mut h = format!("HTTP/1.1 {} {}\r\n", status, reason(status));
    let mut has_ct = false;
    for (k, v) in headers {
        if k.eq_ignore_ascii_case("content-length") || k.eq_ignore_ascii_case("connection") {
            continue;
        }
        if k.eq_ignore_ascii_case("content-type") {
            has_ct = true;
        }
        let clean = |s: &str| s.replace(['\r', '\n'], " ");
        h.push_str(&format!("{}: {}\r\n", clean(k), clean(v)));
    }
    if !has_ct {
        h.push_str("content-type: application/json\r\n");
    }
    h.push_str(&format!("content-length: {content_length}\r\n"));
    h.push_str(if keep {
        "connection: keep-alive\r\n\r\n"
    } else {
        "connection: close\r\n\r\n"
    });
    h.into_bytes()
}

fn write_simple(
    s: &mut TcpStream,
    status: u16,
    content_type: &str,
    body: &[u8],
    keep: bool,
) -> io::Result<()> {
    let mut out = head(
        status,
        &[("content-type".into(), content_type.into())],
        body.len(),
        keep,
    );
    out.extend_from_slice(body);
    s.write_all(&out)?;
    s.flush()
}

fn write_json(s: &mut TcpStream, status: u16, v: &Value, keep: bool) -> Next {
    match write_simple(
        s,
        status,
        "application/json",
        v.to_string().as_bytes(),
        keep,
    ) {
        Ok(()) => Next::KeepGoing,
        Err(_) => Next::Close,
    }
}

fn query_param<'a>(path: &'a str, key: &str) -> Option<&'a str> {
    let q = path.split_once('?')?.1;
    q.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        (k == key).then_some(v)
    })
}

fn handle(req: &HttpRequest, sh: &Shared, s: &mut TcpStream, keep: bool) -> Next {
    let path_only = req.path.split('?').next().unwrap_or("");
    if let Some(rest) = path_only.strip_prefix("/_mock/") {
        return handle_admin(req, rest, sh, s, keep);
    }
    let (scenario, rest) = match path_only.strip_prefix("/s/") {
        Some(r) => match r.split_once('/') {
            Some((name, rest)) => (name.to_string(), format!("/{rest}")),
            None => (r.to_string(), String::new()),
        },
        None => ("default".to_string(), path_only.to_string()),
    };
    let embeddings = rest.ends_with("/embeddings");
    let dialect = if embeddings {
        Dialect::OpenAi
    } else if rest.ends_with("/chat/completions") {
        if rest.starts_with("/openai/deployments/") {
            Dialect::Azure
        } else {
            Dialect::OpenAi
        }
    } else if rest.ends_with("/messages") {
        Dialect::Anthropic
    } else {
        return write_json(
            s,
            404,
            &json!({"error": {"message": format!("mock_llm: no route for {path_only}"), "type": "invalid_request_error"}}),
            keep,
        );
    };
    if req.method != "POST" {
        return write_json(
            s,
            405,
            &json!({"error": {"message": "mock_llm: use POST", "type": "invalid_request_error"}}),
            keep,
        );
    }
    let body_text = String::from_utf8_lossy(&req.body).into_owned();
    let parsed: Option<Value> = serde_json::from_str(&body_text).ok();
    let turn = parsed.as_ref().map(turn_of).unwrap_or(0);
    let seq = sh.seq.fetch_add(1, Ordering::SeqCst);
    if sh.cfg.max_recorded > 0 {
        let rec = RecordedRequest {
            seq,
            scenario: scenario.clone(),
            dialect,
            turn,
            method: req.method.clone(),
            path: req.path.clone(),
            headers: req.headers.clone(),
            body: body_text,
        };
        lock(&sh.requests).push(rec, sh.cfg.max_recorded, sh.cfg.max_recorded_bytes);
    }
    let Some(scn) = sh.scenario(&scenario) else {
        return write_json(
            s,
            404,
            &json!({"error": {"message": format!("mock_llm: unknown scenario {scenario:?}"), "type": "invalid_request_error"}}),
            keep,
        );
    };
    let Some(request) = parsed else {
        return write_json(
            s,
            400,
            &json!({"error": {"message": "mock_llm: request body is not JSON", "type": "invalid_request_error"}}),
            keep,
        );
    };

    // Select the step: stateless by turn, then the per-(scenario, turn) attempt counter.
    let Some(step) = scn.steps.get(turn.min(scn.steps.len().saturating_sub(1))) else {
        return write_json(
            s,
            500,
            &json!({"error": {"message": "mock_llm: scenario has no steps"}}),
            keep,
        );
    };
    let mut attempt = 0usize;
    let step: &Step = match &step.attempts {
        Some(list) if !list.is_empty() => {
            let mut c = lock(&sh.counters);
            let n = c.entry((scenario.clone(), turn)).or_insert(0);
            attempt = *n;
            *n += 1;
            &list[attempt.min(list.len() - 1)]
        }
        _ => step,
    };

    let model = request
        .get("model")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| scn.model.clone())
        .unwrap_or_else(|| "mock-model".to_string());

    if let Some(ms) = step.delay_ms {
        let d = Duration::from_millis(ms).min(sh.cfg.hold_cap);
        if !wait_while_open(s, d, sh, false) {
            return Next::Close;
        }
    }

    let mut headers: Vec<(String, String)> = step
        .headers
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                match v {
                    Value::String(x) => x.clone(),
                    other => other.to_string(),
                },
            )
        })
        .collect();
    headers.push(("x-mock-turn".into(), turn.to_string()));
    headers.push(("x-mock-attempt".into(), attempt.to_string()));

    match step.fault {
        Some(Fault::NeverAnswer) => {
            wait_while_open(s, sh.cfg.hold_cap, sh, true);
            return Next::Close;
        }
        Some(Fault::Reset) => {
            set_linger_zero(s);
            return Next::Abort;
        }
        Some(Fault::CloseBeforeHeaders) => {
            let _ = s.shutdown(Shutdown::Both);
            return Next::Close;
        }
        _ => {}
    }

    if let Some(n) = step.oversize_bytes {
        let (pre, post) = scenario::oversize_parts(dialect, &model, seq);
        let pad = n.saturating_sub(pre.len() + post.len());
        let total = pre.len() + pad + post.len();
        let mut out = head(200, &headers, total, keep);
        out.extend_from_slice(pre.as_bytes());
        if s.write_all(&out).is_err() {
            return Next::Close;
        }
        let chunk = vec![b'x'; 64 * 1024];
        let mut left = pad;
        while left > 0 {
            let k = left.min(chunk.len());
            if s.write_all(&chunk[..k]).is_err() {
                return Next::Close;
            }
            left -= k;
        }
        if s.write_all(post.as_bytes()).is_err() {
            return Next::Close;
        }
        return Next::KeepGoing;
    }

    let ctx = scenario::RenderCtx {
        dialect,
        model: &model,
        turn,
        request_bytes: req.body.len(),
        request: &request,
        headers: &req.headers,
        seq,
    };
    let status = step.status();
    let body = if embeddings && step.body.is_none() && (200..300).contains(&status) {
        let dim = step
            .embedding_dimension
            .or_else(|| {
                request
                    .get("dimensions")
                    .and_then(Value::as_u64)
                    .map(|d| d as usize)
            })
            .unwrap_or(8)
            .min(4096);
        scenario::embeddings_body(&request, dim, &model)
    } else {
        scenario::render_body(step, &ctx)
    };

    if step.fault == Some(Fault::Truncate) {
        let announced = body.len().max(100);
        let mut out = head(status, &headers, announced, false);
        out.extend_from_slice(&body[..body.len() / 2]);
        let _ = s.write_all(&out);
        let _ = s.flush();
        let _ = s.shutdown(Shutdown::Write);
        return Next::Close;
    }

    let mut out = head(status, &headers, body.len(), keep);
    out.extend_from_slice(&body);
    match s.write_all(&out) {
        Ok(()) => Next::KeepGoing,
        Err(_) => Next::Close,
    }
}

/// Wait up to `d` (sliced so shutdown is noticed). With `until_closed`, also return once the
/// client closes. Returns false when the server is shutting down or the client went away.
fn wait_while_open(s: &mut TcpStream, d: Duration, sh: &Shared, until_closed: bool) -> bool {
    let end = Instant::now() + d;
    let slice = Duration::from_millis(50);
    let mut buf = [0u8; 1024];
    loop {
        if sh.stopping() {
            return false;
        }
        let now = Instant::now();
        if now >= end {
            return true;
        }
        if until_closed {
            let _ = s.set_read_timeout(Some((end - now).min(slice)));
            match s.read(&mut buf) {
                Ok(0) => return false,
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) => {}
                Err(_) => return false,
            }
        } else {
            std::thread::sleep((end - now).min(slice));
        }
    }
}

#[cfg(unix)]
fn set_linger_zero(s: &TcpStream) {
    use std::os::unix::io::AsRawFd;
    let l = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // SAFETY: valid fd owned by `s`; `l` outlives the call; size matches the struct.
    unsafe {
        libc::setsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            &l as *const libc::linger as *const libc::c_void,
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        );
    }
}

#[cfg(not(unix))]
fn set_linger_zero(s: &TcpStream) {
    let _ = s.shutdown(Shutdown::Both);
}

fn handle_admin(req: &HttpRequest, rest: &str, sh: &Shared, s: &mut TcpStream, keep: bool) -> Next {
    let m = req.method.as_str();
    match (m, rest) {
        ("GET", "health") => write_json(s, 200, &json!({"ok": true}), keep),
        ("POST", "reset") => {
            sh.reset(query_param(&req.path, "scenario"));
            write_json(s, 200, &json!({"ok": true}), keep)
        }
        ("GET", "scenarios") => {
            let mut names: Vec<String> = sh
                .scenarios
                .read()
                .unwrap_or_else(|p| p.into_inner())
                .keys()
                .cloned()
                .collect();
            names.sort();
            write_json(s, 200, &json!(names), keep)
        }
        ("GET", "requests") => {
            let filter = query_param(&req.path, "scenario");
            let list: Vec<Value> = lock(&sh.requests)
                .q
                .iter()
                .filter(|r| filter.is_none_or(|f| r.scenario == f))
                .map(RecordedRequest::to_json)
                .collect();
            write_json(s, 200, &Value::Array(list), keep)
        }
        ("DELETE", "requests") => {
            lock(&sh.requests).clear();
            write_json(s, 200, &json!({"ok": true}), keep)
        }
        _ => {
            if let Some(name) = rest.strip_prefix("scenarios/") {
                match m {
                    "PUT" | "POST" => {
                        let text = String::from_utf8_lossy(&req.body);
                        let res =
                            Scenario::from_json(&text).and_then(|sc| sh.put_scenario(name, sc));
                        return match res {
                            Ok(()) => write_json(s, 200, &json!({"ok": true, "name": name}), keep),
                            Err(e) => write_json(s, 400, &json!({"ok": false, "error": e}), keep),
                        };
                    }
                    "DELETE" => {
                        let removed = sh
                            .scenarios
                            .write()
                            .unwrap_or_else(|p| p.into_inner())
                            .remove(name)
                            .is_some();
                        sh.reset(Some(name));
                        return write_json(
                            s,
                            if removed { 200 } else { 404 },
                            &json!({"ok": removed}),
                            keep,
                        );
                    }
                    "GET" => {
                        let exists = sh.scenario(name).is_some();
                        return write_json(
                            s,
                            if exists { 200 } else { 404 },
                            &json!({"ok": exists}),
                            keep,
                        );
                    }
                    _ => {}
                }
            }
            write_json(
                s,
                404,
                &json!({"error": {"message": format!("mock_llm: no admin route {m} /_mock/{rest}")}}),
                keep,
            )
        }
    }
}
