//! stdio transport: newline-delimited JSON-RPC on stdin/stdout, one database connection with
//! the user's own credentials. Diagnostics go to stderr (stdout carries only MCP messages).

use crate::db;
use crate::Opts;
use serde_json::Value;
use std::collections::VecDeque;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::signal::unix::{signal, Signal, SignalKind};
use tokio::sync::mpsc;
use tokio_postgres::{Client, Config, NoTls, Notification, Statement};

struct Conn {
    client: Client,
    /// `db::HANDLE_SQL`, prepared once per connection (one round trip per request, not two).
    handle: Statement,
    notes: mpsc::UnboundedReceiver<Notification>,
    notes_open: bool,
}

/// Session state re-applied after a reconnect.
#[derive(Default)]
struct State {
    app_name: Option<String>,
    protocol_version: Option<String>,
    initialized: bool,
}

async fn open(cfg: &Config, opts: &Opts, st: &State) -> Result<Conn, String> {
    let (client, notes) = db::connect(cfg)
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

/// One message and a newline to stdout. Written directly (not through tokio's blocking-thread
/// stdout): a message is small and MCP clients read their server's stdout continuously.
async fn write_line(out: &mut std::io::Stdout, s: &str) -> bool {
    use std::io::Write;
    let mut buf = Vec::with_capacity(s.len() + 1);
    buf.extend_from_slice(s.as_bytes());
    buf.push(b'\n');
    let mut lock = out.lock();
    lock.write_all(&buf).is_ok() && lock.flush().is_ok()
}

/// stdin lines (read by their own task, so a cancellation can arrive while a request runs),
/// lines that arrived during a request, and the signals.
struct Io {
    input: mpsc::UnboundedReceiver<String>,
    pending: VecDeque<String>,
    eof: bool,
    out: std::io::Stdout,
    term: Signal,
    int: Signal,
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
    let (tx, input) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut lines = BufReader::new(stdin_reader()).lines();
        while let Ok(Some(l)) = lines.next_line().await {
            if tx.send(l).is_err() {
                break;
            }
        }
        // dropping tx tells the main loop that stdin is closed
    });
    let mut io = Io {
        input,
        pending: VecDeque::new(),
        eof: false,
        out: std::io::stdout(),
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
                            if !write_line(&mut io.out, &msg).await {
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

/// Whether `line` is a notifications/cancelled for request `id`.
fn cancels(line: &str, id: &Value) -> bool {
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
    line: &str,
) -> bool {
    let line = line.trim();
    if line.is_empty() {
        return true;
    }
    let msg: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(_) => {
            return write_line(
                &mut io.out,
                &db::rpc_error(&Value::Null, -32700, "Parse error"),
            )
            .await;
        }
    };
    let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
    let id = msg.get("id").cloned();
    if method == "initialize" {
        let (name, version) = db::client_info(&msg);
        st.app_name = Some(db::application_name(name.as_deref(), version.as_deref()));
    }
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
        let cancel = c.client.cancel_token();
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 1] = [&line];
        let query = c.client.query_one(&c.handle, &params);
        tokio::pin!(query);
        let result = loop {
            tokio::select! {
                r = &mut query => break r,
                l = io.input.recv(), if !io.eof => match l {
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
        match result {
            Ok(row) => break row.get::<_, Option<String>>(0),
            // A lost connection before the answer: retry once, except a tool call (it may
            // have run; the client decides).
            Err(e) if e.is_closed() && attempt == 1 && method != "tools/call" => continue,
            Err(e) => {
                if !e.is_closed() {
                    eprintln!("pg_mcp_bridge: {method}: {e}");
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
    match answer {
        Some(a) => write_line(&mut io.out, &a).await,
        None => true,
    }
}
