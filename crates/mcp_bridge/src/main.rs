//! pg_mcp_bridge: lets MCP clients (Claude Desktop, IDE agents, the MCP Inspector) talk to
//! `mcp.handle()` in PostgreSQL. It only forwards: every protocol decision is made by
//! `mcp.handle`, as the database role of the connection.
//!
//!   pg_mcp_bridge [stdio] [--dsn CONNINFO] [--interface NAME] [--allow-superuser]
//!   pg_mcp_bridge http --dsn CONNINFO_OF_AUTHENTICATOR [--listen 127.0.0.1:8765]
//!                 [--jwt-secret-file FILE] [--allowed-origin ORIGIN]... [--interface NAME]
//!   pg_mcp_bridge token --role ROLE [--exp-seconds N]      (prints an HS256 token)

mod db;
mod http;
mod jwt;
mod pgconn;
mod stdio;

use std::process::ExitCode;

/// Command-line options.
#[derive(Debug, Default, Clone)]
pub struct Opts {
    pub mode: String,
    pub dsn: Option<String>,
    pub interface: Option<String>,
    pub allow_superuser: bool,
    pub listen: String,
    pub jwt_secret_file: Option<String>,
    pub allowed_origins: Vec<String>,
    pub role: Option<String>,
    pub exp_seconds: Option<u64>,
}

const USAGE: &str = "usage:
  pg_mcp_bridge [stdio] [--dsn CONNINFO] [--interface NAME] [--allow-superuser]
  pg_mcp_bridge http [--dsn CONNINFO] [--listen 127.0.0.1:8765] [--jwt-secret-file FILE]
                [--allowed-origin ORIGIN]... [--interface NAME] [--allow-superuser]
  pg_mcp_bridge token --role ROLE [--exp-seconds N] [--jwt-secret-file FILE]
Connection settings also come from PG* variables and ~/.pgpass; the JWT key from
--jwt-secret-file or PG_MCP_JWT_SECRET (at least 32 bytes).";

fn parse_args(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts {
        mode: "stdio".into(),
        listen: "127.0.0.1:8765".into(),
        ..Default::default()
    };
    let mut i = 0;
    let value = |i: &mut usize, name: &str| -> Result<String, String> {
        *i += 1;
        args.get(*i)
            .cloned()
            .ok_or_else(|| format!("{name} needs a value"))
    };
    while i < args.len() {
        match args[i].as_str() {
            "stdio" | "http" | "token" if i == 0 => o.mode = args[i].clone(),
            "--dsn" => o.dsn = Some(value(&mut i, "--dsn")?),
            "--interface" => o.interface = Some(value(&mut i, "--interface")?),
            "--allow-superuser" => o.allow_superuser = true,
            "--listen" => o.listen = value(&mut i, "--listen")?,
            "--jwt-secret-file" => o.jwt_secret_file = Some(value(&mut i, "--jwt-secret-file")?),
            "--allowed-origin" => o.allowed_origins.push(value(&mut i, "--allowed-origin")?),
            "--role" => o.role = Some(value(&mut i, "--role")?),
            "--exp-seconds" => {
                let v = value(&mut i, "--exp-seconds")?;
                o.exp_seconds = Some(v.parse().map_err(|_| "--exp-seconds: a number")?);
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument: {other}")),
        }
        i += 1;
    }
    Ok(o)
}

/// The HS256 key: the file's content (trailing newline removed) or PG_MCP_JWT_SECRET.
pub fn jwt_key(o: &Opts) -> Result<Vec<u8>, String> {
    let key = match &o.jwt_secret_file {
        Some(f) => std::fs::read_to_string(f)
            .map_err(|e| format!("cannot read {f}: {e}"))?
            .trim_end_matches(['\n', '\r'])
            .as_bytes()
            .to_vec(),
        None => std::env::var("PG_MCP_JWT_SECRET")
            .map_err(|_| "no JWT key: --jwt-secret-file or PG_MCP_JWT_SECRET".to_string())?
            .into_bytes(),
    };
    if key.len() < 32 {
        return Err("the JWT key must be at least 32 bytes".into());
    }
    Ok(key)
}

pub fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opts = match parse_args(&args) {
        Ok(o) => o,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("pg_mcp_bridge: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    if opts.mode == "token" {
        let (Some(role), Ok(key)) = (&opts.role, jwt_key(&opts)) else {
            eprintln!("pg_mcp_bridge token: needs --role and a JWT key\n{USAGE}");
            return ExitCode::from(2);
        };
        let mut claims = serde_json::json!({"role": role});
        if let Some(s) = opts.exp_seconds {
            claims["exp"] = serde_json::json!(now_secs() + s);
        }
        println!("{}", jwt::sign(&claims, &key));
        return ExitCode::SUCCESS;
    }
    let env = |k: &str| std::env::var(k).ok();
    let cfg = match pgconn::build_config(
        opts.dsn.as_deref(),
        &env,
        pgconn::pgpass_path(&env).as_deref(),
    ) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("pg_mcp_bridge: {e}");
            return ExitCode::from(2);
        }
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("pg_mcp_bridge: {e}");
            return ExitCode::FAILURE;
        }
    };
    let code = rt.block_on(async {
        match opts.mode.as_str() {
            "http" => http::run(cfg, opts).await,
            _ => stdio::run(cfg, opts).await,
        }
    });
    // Do not wait for the blocking stdin reader (it only ends when the client closes stdin).
    rt.shutdown_background();
    ExitCode::from(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn arguments() {
        let o = parse_args(&a("")).unwrap();
        assert_eq!(o.mode, "stdio");
        assert_eq!(o.listen, "127.0.0.1:8765");
        let o = parse_args(&a(
            "http --dsn host=x --listen 127.0.0.1:1 --allowed-origin http://a --allowed-origin http://b",
        ))
        .unwrap();
        assert_eq!(o.mode, "http");
        assert_eq!(o.allowed_origins.len(), 2);
        assert!(parse_args(&a("--dsn")).is_err());
        assert!(parse_args(&a("--bogus")).is_err());
        assert!(parse_args(&a("--interface x http")).is_err());
    }
}
