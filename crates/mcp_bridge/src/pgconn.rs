//! Connection settings the way libpq finds them: a connection string (key=value or URI), then
//! the PG* environment variables (PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD, PGOPTIONS,
//! PGCONNECT_TIMEOUT), then `~/.pgpass` (or PGPASSFILE) for the password.
//! tokio-postgres reads none of the environment itself.

use std::path::{Path, PathBuf};
use tokio_postgres::config::Host;
use tokio_postgres::Config;

/// The host as `.pgpass` names it (a Unix socket counts as "localhost", as in libpq).
fn pgpass_host(h: &Host) -> String {
    match h {
        Host::Tcp(s) => s.clone(),
        #[cfg(unix)]
        Host::Unix(_) => "localhost".into(),
    }
}

/// Build the connection configuration. `env` reads an environment variable; `pgpass` is the
/// password file to consult (None = none).
pub fn build_config(
    dsn: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
    pgpass: Option<&Path>,
) -> Result<Config, String> {
    let mut cfg = match dsn.filter(|d| !d.trim().is_empty()) {
        Some(d) => d
            .parse::<Config>()
            .map_err(|e| format!("invalid connection string: {e}"))?,
        None => Config::new(),
    };
    if cfg.get_hosts().is_empty() {
        let hosts = env("PGHOST").unwrap_or_else(|| {
            if Path::new("/var/run/postgresql").exists() {
                "/var/run/postgresql".into()
            } else {
                "localhost".into()
            }
        });
        for h in hosts.split(',') {
            cfg.host(h);
        }
    }
    if cfg.get_ports().is_empty() {
        let port = match env("PGPORT") {
            Some(p) => p
                .parse::<u16>()
                .map_err(|_| format!("PGPORT is not a port number: {p}"))?,
            None => 5432,
        };
        cfg.port(port);
    }
    if cfg.get_user().is_none() {
        let user = env("PGUSER")
            .or_else(|| env("USER"))
            .ok_or("no database user: set PGUSER or user= in the connection string")?;
        cfg.user(&user);
    }
    if cfg.get_dbname().is_none() {
        let db = env("PGDATABASE")
            .or_else(|| cfg.get_user().map(str::to_string))
            .unwrap_or_default();
        cfg.dbname(&db);
    }
    if cfg.get_password().is_none() {
        if let Some(p) = env("PGPASSWORD") {
            cfg.password(p);
        } else if let Some(file) = pgpass {
            let host = cfg.get_hosts().first().map(pgpass_host).unwrap_or_default();
            let port = cfg.get_ports().first().copied().unwrap_or(5432).to_string();
            let db = cfg.get_dbname().unwrap_or_default().to_string();
            let user = cfg.get_user().unwrap_or_default().to_string();
            if let Some(p) = pgpass_lookup(file, &host, &port, &db, &user) {
                cfg.password(p);
            }
        }
    }
    if cfg.get_options().is_none() {
        if let Some(o) = env("PGOPTIONS") {
            cfg.options(&o);
        }
    }
    if cfg.get_connect_timeout().is_none() {
        if let Some(t) = env("PGCONNECT_TIMEOUT").and_then(|t| t.parse::<u64>().ok()) {
            cfg.connect_timeout(std::time::Duration::from_secs(t.max(2)));
        }
    }
    Ok(cfg)
}

/// The password file libpq would read: PGPASSFILE, else ~/.pgpass.
pub fn pgpass_path(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    env("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| Path::new(&h).join(".pgpass")))
}

/// Look up a password in a `.pgpass` file (hostname:port:database:username:password, `*`
/// matches anything, `\:` and `\\` escape). Like libpq, a file others can read is ignored.
pub fn pgpass_lookup(file: &Path, host: &str, port: &str, db: &str, user: &str) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(file).ok()?.permissions().mode();
        if mode & 0o077 != 0 {
            eprintln!(
                "pg_mcp_bridge: password file {} has group or world access; ignored (chmod 0600)",
                file.display()
            );
            return None;
        }
    }
    let text = std::fs::read_to_string(file).ok()?;
    pgpass_match(&text, host, port, db, user)
}

/// The password of the first matching line of a `.pgpass` text.
pub fn pgpass_match(text: &str, host: &str, port: &str, db: &str, user: &str) -> Option<String> {
    for line in text.lines() {
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields = split_pgpass(line);
        if fields.len() < 5 {
            continue;
        }
        let m = |f: &str, v: &str| f == "*" || f == v;
        if m(&fields[0], host) && m(&fields[1], port) && m(&fields[2], db) && m(&fields[3], user) {
            return Some(fields[4..].join(":"));
        }
    }
    None
}

fn split_pgpass(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    out.last_mut().expect("non-empty").push(n);
                }
            }
            ':' if out.len() < 5 => out.push(String::new()),
            _ => out.last_mut().expect("non-empty").push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn environment_fills_what_the_string_leaves_open() {
        let env = env_of(&[
            ("PGHOST", "127.0.0.1"),
            ("PGPORT", "5999"),
            ("PGUSER", "alice"),
            ("PGPASSWORD", "pw"),
            ("PGOPTIONS", "-c synchronous_commit=off"),
        ]);
        let c = build_config(None, &env, None).unwrap();
        assert_eq!(c.get_hosts(), &[Host::Tcp("127.0.0.1".into())]);
        assert_eq!(c.get_ports(), &[5999]);
        assert_eq!(c.get_user(), Some("alice"));
        assert_eq!(c.get_dbname(), Some("alice"));
        assert_eq!(c.get_password(), Some(&b"pw"[..]));
        assert_eq!(c.get_options(), Some("-c synchronous_commit=off"));
        let c = build_config(
            Some("host=db.local port=6000 user=bob dbname=x"),
            &env,
            None,
        )
        .unwrap();
        assert_eq!(c.get_hosts(), &[Host::Tcp("db.local".into())]);
        assert_eq!(c.get_ports(), &[6000]);
        assert_eq!(c.get_user(), Some("bob"));
        assert_eq!(c.get_dbname(), Some("x"));
        let c = build_config(Some("postgresql://carol@h:7000/d"), &env_of(&[]), None).unwrap();
        assert_eq!(c.get_user(), Some("carol"));
        assert_eq!(c.get_ports(), &[7000]);
        assert!(build_config(None, &env_of(&[("PGPORT", "x"), ("PGUSER", "u")]), None).is_err());
        assert!(build_config(Some("port="), &env, None).is_err());
    }

    #[test]
    fn pgpass_lines_match_with_wildcards_and_escapes() {
        let text = "# comment\n\
                    otherhost:*:*:*:nope\n\
                    127.0.0.1:5432:db:alice:s3cr\\:et\n\
                    *:*:*:bob:b:o:b\n";
        assert_eq!(
            pgpass_match(text, "127.0.0.1", "5432", "db", "alice").as_deref(),
            Some("s3cr:et")
        );
        assert_eq!(pgpass_match(text, "127.0.0.1", "5433", "db", "alice"), None);
        assert_eq!(
            pgpass_match(text, "x", "1", "y", "bob").as_deref(),
            Some("b:o:b")
        );
    }

    #[test]
    fn pgpass_file_is_used_and_ignored_when_others_can_read_it() {
        let dir = std::env::temp_dir().join(format!("pgpass_test_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("pgpass");
        std::fs::write(&f, "127.0.0.1:5432:*:dave:from-file\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
            let env = env_of(&[("PGHOST", "127.0.0.1"), ("PGUSER", "dave")]);
            let c = build_config(None, &env, Some(&f)).unwrap();
            assert_eq!(c.get_password(), Some(&b"from-file"[..]));
            std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
            let c = build_config(None, &env, Some(&f)).unwrap();
            assert_eq!(c.get_password(), None);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
