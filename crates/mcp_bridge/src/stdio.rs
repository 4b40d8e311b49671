//! stdio transport: newline-delimited JSON-RPC on stdin/stdout, one database connection with
//! the user's own credentials. Diagnostics go to stderr (stdout carries only MCP messages).
//!
//! Bounded: a line longer than `--max-line-bytes` is discarded as it arrives (answered with
//! -32600), a line that is not UTF-8 gets a parse error, at most `--max-queued` lines are read
//! ahead while a request runs (then the bridge stops reading stdin: the client's writes
//! block), and a write to a client that does not read waits together with SIGTERM/SIGINT.

use crate::db;
use crate::Opts;
use serde_json::Value;
use std::collections::VecDeque;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::signal::unix::{signal, Signal, SignalKind};
use tokio::sync::mpsc;
use tokio_postgres::{Client, Config, NoTls, Notification, Statement};

struct Conn {
    client: Client,
    /// `db::HANDLE_SQL`, prepared once per connection (one round trip per request, not two).
    handle: Statement,
    notes: mpsc::UnboundedReceiver<Notification>,
    notes_open: bool,
    /// Where the connection's notices go while a `tools/call` runs (none: dropped).
    notices: db::NoticeSink,
}

/// Session state re-applied after a reconnect.
#[derive(Default)]
struct State {
    app_name: Option<String>,
    protocol_version: Option<String>,
    initialized: bool,
    /// The capabilities the client declared in `initialize` (the input requests it takes).
    capabilities: serde_json::Map<String, Value>,
    /// The level a handshake client set with `logging/setLevel`.
    log_level: Option<String>,
}

async fn open(cfg: &Config, opts: &Opts, st: &State) -> Result<Conn, String> {
    let (client, notes, notices) = db::connect_with_notices(cfg)
        .await
        .map_err(|e| format!("cannot connect to the database: {e}"))?;
    let su = db::is_superuser(&client)
        .await
        .map_err(|e| format!("cannot check the login role: {e}"))?;
    if su && !opts.allow_superuser {
        return Err("refusing to serve MCP as a superuser (superusers bypass grants and row-level security); connect as an ordinary role, or pass --allow-superuser".into());
    }
    let settings = [
        ("mcp.interface", opts.interface.clone()),
        (
            "application_name",
            Some(
                st.app_name
                    .clone()
                    .unwrap_or_else(|| db::application_name(None, None)),
            ),
        ),
        ("mcp.protocol_version", st.protocol_version.clone()),
    ];
    for (name, value) in settings {
        if let Some(v) = value {
            client
                .execute("SELECT pg_catalog.set_config($1, $2, false)", &[&name, &v])
                .await
                .map_err(|e| format!("cannot set {name}: {e}"))?;
        }
    }
    client
        .batch_execute(&format!("LISTEN {}", db::CHANNEL))
        .await
        .map_err(|e| format!("cannot LISTEN: {e}"))?;
    let handle = client
        .prepare(db::HANDLE_SQL)
        .await
        .map_err(|e| format!("cannot prepare the call of mcp.handle: {e}"))?;
    Ok(Conn {
        client,
        handle,
        notes,
        notes_open: true,
        notices,
    })
}

/// stdin as an event-driven pipe when it is one (what MCP clients give a server), else tokio's
/// stdin (a blocking thread). The pipe saves a thread hand-off per message.
fn stdin_reader() -> Box<dyn tokio::io::AsyncRead + Unpin + Send> {
    use std::os::fd::AsFd;
    if let Ok(fd) = std::io::stdin().as_fd().try_clone_to_owned() {
        if let Ok(pipe) = tokio::net::unix::pipe::Receiver::from_owned_fd(fd) {
            return Box::new(pipe);
        }
    }
    Box::new(tokio::io::stdin())
}

/// stdout as an event-driven pipe when it is one (a write to a client that does not read
/// then waits without blocking the runtime, so SIGTERM still ends the bridge), else tokio's
/// stdout.
fn stdout_writer() -> Box<dyn AsyncWrite + Unpin + Send> {
    use std::os::fd::AsFd;
    if let Ok(fd) = std::io::stdout().as_fd().try_clone_to_owned() {
        if let Ok(pipe) = tokio::net::unix::pipe::Sender::from_owned_fd(fd) {
            return Box::new(pipe);
        }
    }
    Box::new(tokio::io::stdout())
}

/// One stdin line as the reader task hands it on.
enum Line {
    Text(String),
    /// Longer than the limit: its bytes were dropped as they came.
    TooLong,
    NotUtf8,
}

/// Reads newline-delimited lines of at most `max` bytes (without the newline) into `tx`; a
/// longer line is not kept, only reported. Waits when `tx` is full.
async fn read_lines(mut r: impl AsyncBufRead + Unpin, max: usize, tx: mpsc::Sender<Line>) {
    let mut buf = Vec::new();
    let mut too_long = false;
    while let Ok(chunk) = r.fill_buf().await {
        if chunk.is_empty() {
            if too_long {
                let _ = tx.send(Line::TooLong).await;
            } else if !buf.is_empty() {
                let _ = tx.send(line_of(std::mem::take(&mut buf))).await;
            }
            break;
        }
        let newline = chunk.iter().position(|b| *b == b'\n');
        let part = &chunk[..newline.unwrap_or(chunk.len())];
        if !too_long {
            if buf.len() + part.len() > max {
                too_long = true;
                buf = Vec::new();
            } else {
                buf.extend_from_slice(part);
            }
        }
        let used = newline.map_or(chunk.len(), |i| i + 1);
        r.consume(used);
        if newline.is_some() {
            let item = if too_long {
                Line::TooLong
            } else {
                line_of(std::mem::take(&mut buf))
            };
            too_long = false;
            if tx.send(item).await.is_err() {
                break;
            }
        }
    }
}

fn line_of(bytes: Vec<u8>) -> Line {
    match String::from_utf8(bytes) {
        Ok(s) => Line::Text(s),
        Err(_) => Line::NotUtf8,
    }
}

/// stdin lines (read by their own task, so a cancellation can arrive while a request runs),
/// lines that arrived during a request, stdout and the signals.
struct Io {
    input: mpsc::Receiver<Line>,
    pending: VecDeque<Line>,
    max_queued: usize,
    eof: bool,
    out: Box<dyn AsyncWrite + Unpin + Send>,
    term: Signal,
    int: Signal,
}

impl Io {
    /// One message and a newline to stdout; false when stdout is closed or a signal came
    /// while the write waited for the client to read.
    async fn write_line(&mut self, s: &str) -> bool {
        let mut buf = Vec::with_capacity(s.len() + 1);
        buf.extend_from_slice(s.as_bytes());
        buf.push(b'\n');
        let out = &mut self.out;
        tokio::select! {
            r = async { out.write_all(&buf).await?; out.flush().await } => r.is_ok(),
            _ = self.term.recv() => false,
            _ = self.int.recv() => false,
        }
    }

    /// Whether another line may be read ahead now.
    fn may_read(&self) -> bool {
        !self.eof && self.pending.len() < self.max_queued
    }
}

pub async fn run(cfg: Config, opts: Opts) -> u8 {
    let mut st = State::default();
    let mut conn = match open(&cfg, &opts, &st).await {
        Ok(c) => Some(c),
        Err(e) => {
            eprintln!("pg_mcp_bridge: {e}");
            return 1;
        }
    };
    let (Ok(term), Ok(int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        eprintln!("pg_mcp_bridge: cannot install signal handlers");
        return 1;
    };
    let max_queued = opts.limits.max_queued.max(1);
    let (tx, input) = mpsc::channel(max_queued);
    let max_line = opts.limits.max_line;
    // dropping tx (the task's end) tells the main loop that stdin is closed
    tokio::spawn(read_lines(
        BufReader::with_capacity(64 * 1024, stdin_reader()),
        max_line,
        tx,
    ));
    let mut io = Io {
        input,
        pending: VecDeque::new(),
        max_queued,
        eof: false,
        out: stdout_writer(),
        term,
        int,
    };
    loop {
        if let Some(l) = io.pending.pop_front() {
            if !handle_line(&cfg, &opts, &mut st, &mut conn, &mut io, &l).await {
                return 0;
            }
            continue;
        }
        if io.eof {
            return 0; // the client closed stdin
        }
        let notes_open = conn.as_ref().is_some_and(|c| c.notes_open);
        tokio::select! {
            line = io.input.recv() => match line {
                Some(l) => io.pending.push_back(l),
                None => io.eof = true,
            },
            n = async { conn.as_mut().expect("notes_open").notes.recv().await }, if notes_open => {
                match n {
                    Some(n) if st.initialized => {
                        if let Some(msg) = db::list_changed(n.payload()) {
                            if !io.write_line(&msg).await {
                                return 0;
                            }
                        }
                    }
                    Some(_) => {}
                    None => {
                        // the connection ended; reconnect on the next request
                        if let Some(c) = conn.as_mut() { c.notes_open = false; }
                    }
                }
            },
            _ = io.term.recv() => return 0,
            _ = io.int.recv() => return 0,
        }
    }
}

/// A call that needs a person's approval, for a handshake client that did not declare URL-mode
/// elicitation: the tool error of `mcp_protocol::approval`, not a -32042 it cannot follow.
fn without_url_mode(
    answer: Option<String>,
    capabilities: &serde_json::Map<String, Value>,
) -> Option<String> {
    match &answer {
        Some(a) if a.contains("-32042") => serde_json::from_str::<Value>(a)
            .ok()
            .and_then(|v| mcp_protocol::approval::legacy_answer_without_url(&v, capabilities))
            .map(|v| v.to_string())
            .or(answer),
        _ => answer,
    }
}

const MAX_INPUT_ROUNDS: usize = 10;
const INPUT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

/// The input-request rounds of a handshake client's `tools/call` over stdio (see
/// `mcp_protocol::input`): `None` when the bridge should stop (stdout closed, SIGTERM).
async fn input_rounds(
    st: &State,
    conn: &mut Option<Conn>,
    io: &mut Io,
    msg: &Value,
    first: Option<String>,
) -> Option<Option<String>> {
    use mcp_protocol::input;
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    let mut answer = first;
    let mut next = 0u64;
    for _ in 0..MAX_INPUT_ROUNDS {
        let Some(parsed) = answer
            .as_deref()
            .and_then(|a| serde_json::from_str::<Value>(a).ok())
        else {
            return Some(answer);
        };
        let Some((requests, state)) = input::pending_input(&parsed) else {
            return Some(answer);
        };
        if let Some((key, method, cap)) = input::missing_capability(requests, &st.capabilities) {
            let text = format!(
                "The tool needs {method} (input request '{key}'), and this client did not declare the capability '{cap}'."
            );
            return Some(Some(
                mcp_protocol::result_response(
                    &id,
                    serde_json::json!({"content": [{"type": "text", "text": text}], "isError": true}),
                )
                .to_string(),
            ));
        }
        let mut waiting: Vec<(String, Value)> = Vec::new();
        for (key, req) in requests {
            next += 1;
            let rid = Value::String(format!("pg_mcp-{next}"));
            if !io
                .write_line(&input::server_request(rid.as_str().unwrap_or(""), req).to_string())
                .await
            {
                return None;
            }
            waiting.push((key.clone(), rid));
        }
        let state = state.cloned();
        let mut responses = serde_json::Map::new();
        let deadline = tokio::time::Instant::now() + INPUT_TIMEOUT;
        while responses.len() < waiting.len() {
            let line = tokio::select! {
                l = io.input.recv() => l,
                _ = tokio::time::sleep_until(deadline) => {
                    return Some(Some(db::rpc_error(&id, -32603, "No response from the client to the input request")));
                }
                _ = io.term.recv() => return None,
            };
            let Some(line) = line else {
                io.eof = true;
                return Some(None);
            };
            if cancels(&line, &id) {
                return Some(None);
            }
            let reply = match &line {
                Line::Text(t) => serde_json::from_str::<Value>(t).ok().filter(|m| {
                    m.get("method").is_none()
                        && waiting.iter().any(|(_, rid)| m.get("id") == Some(rid))
                }),
                _ => None,
            };
            let Some(reply) = reply else {
                // anything else waits until the call is answered (within the read-ahead bound)
                if io.pending.len() >= io.max_queued {
                    return Some(Some(db::rpc_error(
                        &id,
                        -32603,
                        "Too many messages while the client was asked for input (--max-queued)",
                    )));
                }
                io.pending.push_back(line);
                continue;
            };
            let key = waiting
                .iter()
                .find(|(_, rid)| reply.get("id") == Some(rid))
                .map(|(k, _)| k.clone())
                .unwrap_or_default();
            if let Some(e) = reply.get("error") {
                let m = e.get("message").and_then(Value::as_str).unwrap_or("");
                return Some(Some(db::rpc_error(
                    &id,
                    -32603,
                    &format!(
                        "The client refused the input request '{key}': {}",
                        m.chars().take(200).collect::<String>()
                    ),
                )));
            }
            responses.insert(key, reply.get("result").cloned().unwrap_or(Value::Null));
        }
        let again = input::retry_request(msg, responses, state.as_ref()).to_string();
        let Some(c) = conn.as_ref().filter(|c| !c.client.is_closed()) else {
            return Some(Some(db::rpc_error(
                &id,
                -32603,
                "Database unavailable; retry",
            )));
        };
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 1] = [&again];
        let cancel = c.client.cancel_token();
        let r = tokio::select! {
            r = c.client.query_one(&c.handle, &params) => r,
            _ = io.term.recv() => {
                let _ = cancel.cancel_query(NoTls).await;
                return None;
            }
        };
        answer = match r {
            Ok(row) => row.get::<_, Option<String>>(0),
            Err(e) => Some(db::db_failure(&id, &e)),
        };
    }
    Some(Some(db::rpc_error(
        &id,
        -32603,
        &format!("The tool asked for input more than {MAX_INPUT_ROUNDS} times"),
    )))
}

/// Whether `line` is a notifications/cancelled for request `id`.
fn cancels(line: &Line, id: &Value) -> bool {
    let Line::Text(line) = line else { return false };
    serde_json::from_str::<Value>(line)
        .is_ok_and(|m| m["method"] == "notifications/cancelled" && m["params"]["requestId"] == *id)
}

/// Forward one line; false when the bridge should stop (stdout closed or SIGTERM).
async fn handle_line(
    cfg: &Config,
    opts: &Opts,
    st: &mut State,
    conn: &mut Option<Conn>,
    io: &mut Io,
    line: &Line,
) -> bool {
    let line = match line {
        Line::Text(t) => t.trim(),
        Line::TooLong => {
            eprintln!(
                "pg_mcp_bridge: a line longer than {} bytes was dropped (--max-line-bytes)",
                opts.limits.max_line
            );
            return io
                .write_line(&db::rpc_error(
                    &Value::Null,
                    -32600,
                    "Invalid Request: message too large",
                ))
                .await;
        }
        Line::NotUtf8 => {
            return io
                .write_line(&db::rpc_error(
                    &Value::Null,
                    -32700,
                    "Parse error: not UTF-8",
                ))
                .await;
        }
    };
    if line.is_empty() {
        return true;
    }
    let msg: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(_) => {
            return io
                .write_line(&db::rpc_error(&Value::Null, -32700, "Parse error"))
                .await;
        }
    };
    let refusal = match &msg {
        Value::Array(items) => db::batch_refusal(
            items.len(),
            st.protocol_version.as_deref().unwrap_or(""),
            opts.limits.max_batch,
        ),
        _ if db::has_nul(&msg) => {
            Some("Invalid Request: U+0000 is not allowed in a message".to_string())
        }
        _ => None,
    };
    if let Some(why) = refusal {
        let id = msg.get("id").cloned().unwrap_or(Value::Null);
        return io.write_line(&db::rpc_error(&id, -32600, &why)).await;
    }
    let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
    let id = msg.get("id").cloned();
    if method == "initialize" {
        let (name, version) = db::client_info(&msg);
        st.app_name = Some(db::application_name(name.as_deref(), version.as_deref()));
        st.capabilities = msg["params"]["capabilities"]
            .as_object()
            .cloned()
            .unwrap_or_default();
    }
    // What a tools/call's tool says as it runs (RAISE NOTICE, mcp.report_progress) goes to the
    // client before the answer, at the request's own logLevel (2026-07-28 `_meta`) or the
    // level the session set (logging/setLevel), and for its progress token.
    let meta = msg.get("params").and_then(|p| p.get("_meta"));
    let log_level = if mcp_protocol::modern::body_is_modern(&msg) {
        meta.and_then(|m| m.get(mcp_protocol::modern::META_LOG_LEVEL))
            .and_then(Value::as_str)
            .map(str::to_string)
    } else {
        st.log_level.clone()
    };
    let progress_token = meta.and_then(|m| m.get("progressToken")).cloned();
    let relay = method == "tools/call" && (log_level.is_some() || progress_token.is_some());
    // a W3C traceparent in the request's _meta names the backend while this request runs
    let base_name = st
        .app_name
        .clone()
        .unwrap_or_else(|| db::application_name(None, None));
    let traced_name = db::traced_application_name(&base_name, &msg);
    let traced = traced_name != base_name;
    let mut attempt = 0;
    let answer = loop {
        attempt += 1;
        // (Re)connect when the connection is gone (e.g. after a database restart).
        if conn.as_ref().is_none_or(|c| c.client.is_closed()) {
            match open(cfg, opts, st).await {
                Ok(c) => *conn = Some(c),
                Err(e) => {
                    eprintln!("pg_mcp_bridge: {e}");
                    *conn = None;
                    break id
                        .as_ref()
                        .map(|i| db::rpc_error(i, -32603, "Database unavailable; retry"));
                }
            }
        }
        let c = conn.as_ref().expect("connected above");
        if method == "initialize" {
            if let Some(a) = &st.app_name {
                let _ = c
                    .client
                    .execute(
                        "SELECT pg_catalog.set_config('application_name', $1, false)",
                        &[a],
                    )
                    .await;
            }
        }
        if traced {
            let _ = c
                .client
                .execute(
                    "SELECT pg_catalog.set_config('application_name', $1, false)",
                    &[&traced_name],
                )
                .await;
        }
        let (ntx, mut nrx) = mpsc::unbounded_channel();
        if relay {
            *c.notices.lock().unwrap_or_else(|p| p.into_inner()) = Some(ntx);
        }
        let cancel = c.client.cancel_token();
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 1] = [&line];
        let query = c.client.query_one(&c.handle, &params);
        tokio::pin!(query);
        let relayed = |n: tokio_postgres::error::DbError| {
            crate::notices::notification(
                n.severity(),
                n.code().code(),
                n.message(),
                n.detail(),
                log_level.as_deref(),
                progress_token.as_ref(),
            )
        };
        let result = loop {
            tokio::select! {
                r = &mut query => break r,
                Some(n) = nrx.recv(), if relay => {
                    if let Some(m) = relayed(n) {
                        if !io.write_line(&m).await {
                            let _ = cancel.cancel_query(NoTls).await;
                            return false;
                        }
                    }
                }
                l = io.input.recv(), if io.may_read() => match l {
                    // the client cancels this request: cancel it in the database; MCP sends
                    // no response to a cancelled request
                    Some(l) if id.as_ref().is_some_and(|i| cancels(&l, i)) => {
                        let _ = cancel.cancel_query(NoTls).await;
                        let _ = (&mut query).await;
                        return true;
                    }
                    Some(l) => io.pending.push_back(l),
                    None => io.eof = true,
                },
                _ = io.term.recv() => {
                    // SIGTERM while a request runs: cancel it in the database, then stop.
                    let _ = cancel.cancel_query(NoTls).await;
                    return false;
                }
            }
        };
        if relay {
            *c.notices.lock().unwrap_or_else(|p| p.into_inner()) = None;
            // the notices arrive before the answer on the connection: the rest is queued
            while let Ok(n) = nrx.try_recv() {
                if let Some(m) = relayed(n) {
                    if !io.write_line(&m).await {
                        return false;
                    }
                }
            }
        }
        if traced && !c.client.is_closed() {
            let _ = c
                .client
                .execute(
                    "SELECT pg_catalog.set_config('application_name', $1, false)",
                    &[&base_name],
                )
                .await;
        }
        match result {
            Ok(row) => break row.get::<_, Option<String>>(0),
            // A lost connection before the answer: retry once, except a tool call (it may
            // have run; the client decides).
            Err(e) if e.is_closed() && attempt == 1 && method != "tools/call" => continue,
            Err(e) => {
                if !e.is_closed() {
                    eprintln!("pg_mcp_bridge: {method}: {}", db::describe(&e));
                }
                break id.as_ref().map(|i| db::db_failure(i, &e));
            }
        }
    };
    if method == "initialize" {
        if let Some(v) = answer
            .as_deref()
            .and_then(|a| serde_json::from_str::<Value>(a).ok())
            .and_then(|v| v["result"]["protocolVersion"].as_str().map(str::to_string))
        {
            st.protocol_version = Some(v);
        }
    }
    if method == "notifications/initialized" {
        st.initialized = true;
    }
    // a level the database accepted is the session's from now on (handshake clients)
    if method == "logging/setLevel"
        && answer
            .as_deref()
            .and_then(|a| serde_json::from_str::<Value>(a).ok())
            .is_some_and(|v| v.get("result").is_some())
    {
        st.log_level = msg["params"]["level"].as_str().map(str::to_string);
    }
    // A handshake client's tools/call whose tool asked for input: the input requests go to
    // the client as server-to-client requests, and the call is sent again with its responses.
    let answer = if method == "tools/call" && !mcp_protocol::modern::body_is_modern(&msg) {
        match input_rounds(st, conn, io, &msg, answer).await {
            Some(a) => without_url_mode(a, &st.capabilities),
            None => return false,
        }
    } else {
        answer
    };
    match answer {
        Some(a) if a.len() > opts.limits.max_response => {
            eprintln!(
                "pg_mcp_bridge: answer of {} bytes to {method} refused (--max-response-bytes)",
                a.len()
            );
            let id = id.unwrap_or(Value::Null);
            io.write_line(&db::rpc_error(&id, -32603, "Response too large"))
                .await
        }
        Some(a) => io.write_line(&a).await,
        None => true,
    }
}
