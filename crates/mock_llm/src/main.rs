//! `mock_llm` binary: serve scenarios on loopback until SIGTERM (or stdin EOF with
//! `--exit-on-stdin-eof`).

use mock_llm::{MockConfig, MockServer};
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

const USAGE: &str = "usage: mock_llm [--listen 127.0.0.1:0] [--scenarios DIR] [--port-file FILE]
                [--exit-on-stdin-eof] [--max-connections N] [--hold-cap-secs N]
                [--max-recorded N]

Scriptable OpenAI/Anthropic-compatible LLM server (loopback only).
Prints the bound address (e.g. 127.0.0.1:41234) on stdout; --port-file gets the port number.
Routes: POST /s/{scenario}/v1/chat/completions | /s/{scenario}/v1/messages |
        /s/{scenario}/openai/deployments/{dep}/chat/completions?api-version=...
Admin:  GET /_mock/health, POST /_mock/reset, PUT /_mock/scenarios/{name},
        GET|DELETE /_mock/requests[?scenario=NAME]";

fn main() {
    if let Err(e) = run() {
        eprintln!("mock_llm: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let mut cfg = MockConfig::default();
    let mut port_file: Option<PathBuf> = None;
    let mut exit_on_eof = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = |flag: &str| args.next().ok_or_else(|| format!("{flag} needs a value"));
        match a.as_str() {
            "--listen" => {
                let v = val("--listen")?;
                cfg.listen = v
                    .parse::<SocketAddr>()
                    .map_err(|e| format!("--listen {v}: {e}"))?;
            }
            "--scenarios" => cfg.scenarios_dir = Some(PathBuf::from(val("--scenarios")?)),
            "--port-file" => port_file = Some(PathBuf::from(val("--port-file")?)),
            "--exit-on-stdin-eof" => exit_on_eof = true,
            "--max-connections" => {
                cfg.max_connections = val("--max-connections")?
                    .parse()
                    .map_err(|_| "--max-connections needs a number".to_string())?
            }
            "--hold-cap-secs" => {
                let n: u64 = val("--hold-cap-secs")?
                    .parse()
                    .map_err(|_| "--hold-cap-secs needs a number".to_string())?;
                cfg.hold_cap = Duration::from_secs(n);
            }
            "--max-recorded" => {
                cfg.max_recorded = val("--max-recorded")?
                    .parse()
                    .map_err(|_| "--max-recorded needs a number".to_string())?
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    let server = MockServer::start(cfg).map_err(|e| e.to_string())?;
    let addr = server.addr();
    if let Some(pf) = port_file {
        // Write then rename, so a watcher never reads a half-written file.
        let tmp = pf.with_extension("tmp");
        std::fs::write(&tmp, format!("{}\n", addr.port()))
            .and_then(|_| std::fs::rename(&tmp, &pf))
            .map_err(|e| format!("--port-file {}: {e}", pf.display()))?;
    }
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{addr}");
        let _ = out.flush();
    }
    if exit_on_eof {
        let mut stdin = std::io::stdin();
        let mut buf = [0u8; 4096];
        loop {
            match stdin.read(&mut buf) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
        drop(server);
        Ok(())
    } else {
        // Runs until killed (SIGTERM / SIGINT keep their default action: exit).
        server.wait();
        Ok(())
    }
}
