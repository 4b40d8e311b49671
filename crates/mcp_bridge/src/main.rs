//! pg_mcp_bridge: lets MCP clients (Claude Desktop, IDE agents, the MCP Inspector) talk to
//! `mcp.handle()` in PostgreSQL. It only forwards: every protocol decision is made by
//! `mcp.handle`, as the database role of the connection.
//!
//!   pg_mcp_bridge [stdio] [--dsn CONNINFO] [--interface NAME] [--allow-superuser]
//!   pg_mcp_bridge http --dsn CONNINFO_OF_AUTHENTICATOR [--listen 127.0.0.1:8765]
//!                 [--jwt-secret-file FILE] [--allowed-origin ORIGIN]... [--interface NAME]
//!                 [--allowed-host HOST]... [--jwt-audience AUD] [--jwt-issuer ISS] [limits]
//!   pg_mcp_bridge token --role ROLE [--exp-seconds N] [--jwt-private-key-file PEM [--kid K]]
//!                 (prints an HS256 token, or an RS256 one signed with the private key)
//!   pg_mcp_bridge jwk --jwt-private-key-file PEM [--kid K]   (prints the public JWK)

mod console;
mod db;
mod http;
mod jwt;
mod limits;
mod notices;
mod oauth;
mod pgconn;
mod stdio;
mod subscriptions;

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
    pub jwt_private_key_file: Option<String>,
    pub kid: Option<String>,
    pub allowed_hosts: Vec<String>,
    pub jwt_expected: jwt::Expected,
    pub limits: limits::Limits,
    /// HTTP only: the role of a request that carries no Authorization header at all (loopback
    /// listeners only; PostgREST's anonymous role).
    pub anonymous_role: Option<String>,
    /// HTTP only: the bridge as an OAuth 2.1 resource server (`--oauth-*`).
    pub oauth: oauth::OAuthOpts,
    /// HTTP only: the console's public URL (`--console-url`), where a call that needs approval
    /// sends the client's user; default `http://<listen address>/console`.
    pub console_url: Option<String>,
}

const USAGE: &str = "usage:
  pg_mcp_bridge [stdio] [--dsn CONNINFO] [--interface NAME] [--allow-superuser]
  pg_mcp_bridge http [--dsn CONNINFO] [--listen 127.0.0.1:8765] [--jwt-secret-file FILE]
                [--allowed-origin ORIGIN]... [--allowed-host HOST[:PORT]]...
                [--jwt-audience AUD] [--jwt-issuer ISS] [--interface NAME] [--allow-superuser]
                [--anonymous-role ROLE]   (requests without Authorization; loopback only)
                [--console-url URL]   (the console's public URL, for approval links)
                [--oauth-issuer ISSUER [--oauth-resource URL] [--oauth-jwks-file FILE |
                 --oauth-jwks-url URL] [--oauth-jwks-min-interval SECS]]
                (OAuth 2.1 resource server: docs/mcp-server.md#oauth)
  limits (both transports; docs/bridge-resource-model.md): --max-connections N
    --max-connections-per-role N --auth-connections N --max-sessions N
    --max-sessions-per-role N --session-idle-timeout SECS --max-streams-per-session N
    --max-body-bytes N --header-timeout SECS --body-timeout SECS --max-open-connections N
    --max-batch N --max-response-bytes N --max-line-bytes N --max-queued N
    (or PG_MCP_BRIDGE_MAX_CONNECTIONS=N and so on; PG_MCP_JWT_AUDIENCE, PG_MCP_JWT_ISSUER)
  pg_mcp_bridge token --role ROLE [--exp-seconds N] [--jwt-secret-file FILE]
                [--jwt-private-key-file PEM [--kid KID]]
  pg_mcp_bridge jwk --jwt-private-key-file PEM [--kid KID]
Connection settings also come from PG* variables and ~/.pgpass. The JWT key comes from
--jwt-secret-file or PG_MCP_JWT_SECRET: an HS256 secret (at least 32 bytes), or a JWK / JWKS
with RSA public keys for RS256 tokens (`jwk` prints the JWK of a PKCS#8 PEM private key).";

fn parse_args(args: &[String], env: &dyn Fn(&str) -> Option<String>) -> Result<Opts, String> {
    let mut o = Opts {
        mode: "stdio".into(),
        listen: "127.0.0.1:8765".into(),
        limits: limits::Limits::from_env(env)?,
        jwt_expected: jwt::Expected {
            audience: env("PG_MCP_JWT_AUDIENCE").filter(|v| !v.is_empty()),
            issuer: env("PG_MCP_JWT_ISSUER").filter(|v| !v.is_empty()),
        },
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
            "stdio" | "http" | "token" | "jwk" if i == 0 => o.mode = args[i].clone(),
            "--dsn" => o.dsn = Some(value(&mut i, "--dsn")?),
            "--interface" => o.interface = Some(value(&mut i, "--interface")?),
            "--allow-superuser" => o.allow_superuser = true,
            "--listen" => o.listen = value(&mut i, "--listen")?,
            "--jwt-secret-file" => o.jwt_secret_file = Some(value(&mut i, "--jwt-secret-file")?),
            "--allowed-origin" => o
                .allowed_origins
                .push(origin(&value(&mut i, "--allowed-origin")?)?),
            "--jwt-private-key-file" => {
                o.jwt_private_key_file = Some(value(&mut i, "--jwt-private-key-file")?)
            }
            "--kid" => o.kid = Some(value(&mut i, "--kid")?),
            "--allowed-host" => o.allowed_hosts.push(value(&mut i, "--allowed-host")?),
            "--jwt-audience" => o.jwt_expected.audience = Some(value(&mut i, "--jwt-audience")?),
            "--jwt-issuer" => o.jwt_expected.issuer = Some(value(&mut i, "--jwt-issuer")?),
            "--anonymous-role" => o.anonymous_role = Some(value(&mut i, "--anonymous-role")?),
            "--console-url" => o.console_url = Some(console_url(&value(&mut i, "--console-url")?)?),
            "--oauth-issuer" => o.oauth.issuer = Some(value(&mut i, "--oauth-issuer")?),
            "--oauth-resource" => o.oauth.resource = Some(value(&mut i, "--oauth-resource")?),
            "--oauth-jwks-file" => o.oauth.jwks_file = Some(value(&mut i, "--oauth-jwks-file")?),
            "--oauth-jwks-url" => o.oauth.jwks_url = Some(value(&mut i, "--oauth-jwks-url")?),
            "--oauth-jwks-min-interval" => {
                let v = value(&mut i, "--oauth-jwks-min-interval")?;
                let secs: f64 = v
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s >= 0.0)
                    .ok_or("--oauth-jwks-min-interval: seconds")?;
                o.oauth.min_interval = Some(std::time::Duration::from_secs_f64(secs));
            }
            f if f.starts_with("--") && limits::FLAGS.contains(&&f[2..]) => {
                let v = value(&mut i, f)?;
                o.limits.set(&f[2..], &v)?;
            }
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

/// An `--allowed-origin` value as browsers send it in `Origin` (RFC 6454 serialization, by the
/// `url` crate: scheme and host in lower case, the scheme's default port left out), so that
/// `https://Example.com:443/` allows what a browser sends as `https://example.com`. Anything
/// that is not an http(s) origin (a path, a query, user info, another scheme) is refused at
/// start rather than never matching.
pub fn origin(v: &str) -> Result<String, String> {
    let bad = |why: &str| format!("--allowed-origin {v:?}: {why} (expected scheme://host[:port])");
    let u = url::Url::parse(v).map_err(|e| bad(&e.to_string()))?;
    if !matches!(u.scheme(), "http" | "https") {
        return Err(bad("not http or https"));
    }
    if !u.username().is_empty()
        || u.password().is_some()
        || u.query().is_some()
        || u.fragment().is_some()
        || u.path() != "/"
    {
        return Err(bad("an origin has no user info, path, query or fragment"));
    }
    Ok(u.origin().ascii_serialization())
}

/// A `--console-url` value: an absolute http(s) URL without user info, query or fragment, kept
/// without a trailing slash (approval links are `<it>/approvals#<id>`).
pub fn console_url(v: &str) -> Result<String, String> {
    let bad =
        |why: &str| format!("--console-url {v:?}: {why} (expected http(s)://host[:port]/console)");
    let u = url::Url::parse(v).map_err(|e| bad(&e.to_string()))?;
    if !matches!(u.scheme(), "http" | "https") || u.host_str().is_none() {
        return Err(bad("not an http or https URL with a host"));
    }
    if !u.username().is_empty()
        || u.password().is_some()
        || u.query().is_some()
        || u.fragment().is_some()
    {
        return Err(bad("no user info, query or fragment"));
    }
    Ok(u.as_str().trim_end_matches('/').to_string())
}

/// The token key: the file's content or PG_MCP_JWT_SECRET, read by [`jwt::parse_key`] (an
/// HS256 secret, or a JWK / JWKS for RS256).
pub fn jwt_key(o: &Opts) -> Result<jwt::JwtKey, String> {
    let content = match &o.jwt_secret_file {
        Some(f) => std::fs::read(f).map_err(|e| format!("cannot read {f}: {e}"))?,
        None => std::env::var("PG_MCP_JWT_SECRET")
            .map_err(|_| "no JWT key: --jwt-secret-file or PG_MCP_JWT_SECRET".to_string())?
            .into_bytes(),
    };
    jwt::parse_key(&content)
}

fn private_key(o: &Opts) -> Result<ring::signature::RsaKeyPair, String> {
    let f = o
        .jwt_private_key_file
        .as_deref()
        .ok_or("needs --jwt-private-key-file")?;
    let pem = std::fs::read_to_string(f).map_err(|e| format!("cannot read {f}: {e}"))?;
    jwt::rsa_private_key(&pem)
}

/// The `token` and `jwk` helper commands: what they print, or why not.
fn helper_command(opts: &Opts) -> Result<String, String> {
    if opts.mode == "jwk" {
        return Ok(jwt::public_jwk(&private_key(opts)?, opts.kid.as_deref()).to_string());
    }
    let role = opts.role.as_deref().ok_or("needs --role")?;
    let mut claims = serde_json::json!({"role": role});
    if let Some(s) = opts.exp_seconds {
        claims["exp"] = serde_json::json!(now_secs() + s);
    }
    if opts.jwt_private_key_file.is_some() {
        return jwt::sign_rs256(&claims, &private_key(opts)?, opts.kid.as_deref());
    }
    match jwt_key(opts)? {
        jwt::JwtKey::Hs256(key) => Ok(jwt::sign(&claims, &key)),
        jwt::JwtKey::Rs256(_) => {
            Err("an RS256 key file holds public keys only: sign with --jwt-private-key-file".into())
        }
    }
}

pub fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opts = match parse_args(&args, &|k| std::env::var(k).ok()) {
        Ok(o) => o,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("pg_mcp_bridge: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    if opts.mode == "token" || opts.mode == "jwk" {
        return match helper_command(&opts) {
            Ok(out) => {
                println!("{out}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("pg_mcp_bridge {}: {e}\n{USAGE}", opts.mode);
                ExitCode::from(2)
            }
        };
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

    fn parse_args(args: &[String]) -> Result<Opts, String> {
        super::parse_args(args, &|_| None)
    }

    #[test]
    fn console_url_is_an_absolute_http_url() {
        let o = parse_args(&a("http --console-url https://db.example.com/console/")).unwrap();
        assert_eq!(
            o.console_url.as_deref(),
            Some("https://db.example.com/console")
        );
        assert_eq!(parse_args(&a("http")).unwrap().console_url, None);
        for bad in [
            "console",
            "ftp://x/console",
            "http://u:p@x/console",
            "http://x/console?a=1",
            "http://x/console#f",
            "javascript:alert(1)",
        ] {
            assert!(
                parse_args(&a(&format!("http --console-url {bad}"))).is_err(),
                "{bad}"
            );
        }
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
        assert_eq!(o.allowed_origins, ["http://a", "http://b"]);
        let o = parse_args(&a(
            "http --allowed-origin HTTPS://Example.COM:443/ --allowed-origin http://h:8080",
        ))
        .unwrap();
        assert_eq!(o.allowed_origins, ["https://example.com", "http://h:8080"]);
        for bad in [
            "example.com",
            "ftp://h",
            "https://h/app",
            "https://u:p@h",
            "https://h?x=1",
            "https://h#f",
        ] {
            assert!(
                parse_args(&a(&format!("http --allowed-origin {bad}"))).is_err(),
                "{bad}"
            );
        }
        assert!(parse_args(&a("--dsn")).is_err());
        assert!(parse_args(&a("--bogus")).is_err());
        assert!(parse_args(&a("--interface x http")).is_err());
        let o = parse_args(&a("jwk --jwt-private-key-file k.pem --kid k1")).unwrap();
        assert_eq!((o.mode.as_str(), o.kid.as_deref()), ("jwk", Some("k1")));
        let o = parse_args(&a(
            "http --max-batch 0 --session-idle-timeout 5 --jwt-audience x",
        ))
        .unwrap();
        assert_eq!(o.limits.max_batch, 0);
        assert_eq!(o.limits.session_idle.as_secs(), 5);
        assert_eq!(o.jwt_expected.audience.as_deref(), Some("x"));
        assert!(parse_args(&a("http --max-connections 0")).is_err());
        let o = parse_args(&a(
            "http --oauth-issuer http://127.0.0.1:9 --oauth-resource https://db/mcp --oauth-jwks-url http://127.0.0.1:9/jwks --oauth-jwks-min-interval 2.5",
        ))
        .unwrap();
        assert_eq!(o.oauth.issuer.as_deref(), Some("http://127.0.0.1:9"));
        assert_eq!(o.oauth.resource.as_deref(), Some("https://db/mcp"));
        assert_eq!(o.oauth.jwks_url.as_deref(), Some("http://127.0.0.1:9/jwks"));
        assert_eq!(
            o.oauth.min_interval,
            Some(std::time::Duration::from_millis(2500))
        );
        assert!(parse_args(&a("http --oauth-jwks-min-interval -1")).is_err());
        assert!(parse_args(&a("http --oauth-jwks-min-interval x")).is_err());
        let env = |k: &str| (k == "PG_MCP_BRIDGE_MAX_CONNECTIONS").then(|| "3".to_string());
        let o = super::parse_args(&a("http"), &env).unwrap();
        assert_eq!(o.limits.max_connections, 3);
        let o = super::parse_args(&a("http --max-connections 5"), &env).unwrap();
        assert_eq!(o.limits.max_connections, 5);
    }
}
