//! The HTTP bridge as an OAuth 2.1 resource server, as the MCP authorization specification
//! asks: it publishes its protected-resource metadata (RFC 9728) naming the authorization
//! server, answers a request without a valid token with a 401 whose `WWW-Authenticate`
//! challenge points there, accepts only access tokens (JWTs, RS256) issued by that issuer *for
//! this resource* (RFC 8707 audience binding: `aud` must name the resource), and maps the
//! token's scopes to a database role through the table `mcp.oauth_scope_role` (a token whose
//! scopes map to no role gets 403 `insufficient_scope`). The keys come from a JWKS file or from
//! the issuer's JWKS endpoint on loopback; a token with an unknown `kid` makes the bridge read
//! the keys again (key rotation), at most once per `--oauth-jwks-min-interval`.

use crate::jwt::{self, JwtKey, TokenError};
use axum::body::Body;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use std::sync::RwLock;
use std::time::{Duration, Instant};

/// The operator's OAuth settings (`--oauth-*`).
#[derive(Debug, Default, Clone)]
pub struct OAuthOpts {
    /// The authorization server's issuer identifier (`--oauth-issuer`); OAuth is on when set.
    pub issuer: Option<String>,
    /// This MCP server's canonical URI (`--oauth-resource`); default `http://<listen>/mcp`.
    pub resource: Option<String>,
    /// A JWKS file (`--oauth-jwks-file`), read again on an unknown `kid`.
    pub jwks_file: Option<String>,
    /// The issuer's JWKS endpoint (`--oauth-jwks-url`, http on loopback); without it and
    /// without a file, `jwks_uri` of the issuer's metadata.
    pub jwks_url: Option<String>,
    /// Least time between two key refreshes (`--oauth-jwks-min-interval`, seconds).
    pub min_interval: Option<Duration>,
}

/// Default least time between two key refreshes.
const DEFAULT_MIN_INTERVAL: Duration = Duration::from_secs(30);
/// Timeout of one fetch from the issuer, and the largest document taken.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);
const MAX_DOCUMENT: usize = 256 * 1024;
/// Most scopes read from a token.
const MAX_SCOPES: usize = 64;

/// Where the verification keys come from.
#[derive(Debug, Clone)]
enum KeySource {
    File(String),
    Url(String),
    /// `jwks_uri` of the issuer's metadata, found on the first refresh.
    Discover(String),
}

/// The keys of the issuer and when they were last read.
pub struct KeyStore {
    source: KeySource,
    keys: RwLock<JwtKey>,
    /// Serializes refreshes; holds the time of the last one.
    last: tokio::sync::Mutex<Option<Instant>>,
    min_interval: Duration,
    /// How often the keys were read (for the log and the tests).
    refreshes: std::sync::atomic::AtomicUsize,
}

impl KeyStore {
    fn current(&self) -> JwtKey {
        self.keys.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Read the keys again unless that happened less than `min_interval` ago (an attacker's
    /// tokens with made-up `kid`s must not turn into a stream of requests to the issuer).
    /// True when the keys were read now.
    async fn refresh(&self) -> bool {
        let mut last = self.last.lock().await;
        if last.is_some_and(|t| t.elapsed() < self.min_interval) {
            return false;
        }
        *last = Some(Instant::now());
        match load(&self.source).await {
            Ok(k) => {
                let n = match &k {
                    JwtKey::Rs256(v) => v.len(),
                    JwtKey::Hs256(_) => 0,
                };
                *self.keys.write().unwrap_or_else(|p| p.into_inner()) = k;
                let count = self
                    .refreshes
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                    + 1;
                eprintln!("pg_mcp_bridge: OAuth keys read ({n} keys, read {count} times)");
                true
            }
            Err(e) => {
                eprintln!("pg_mcp_bridge: OAuth keys could not be read: {e}");
                false
            }
        }
    }
}

async fn load(source: &KeySource) -> Result<JwtKey, String> {
    match source {
        KeySource::File(f) => {
            let content = std::fs::read(f).map_err(|e| format!("cannot read {f}: {e}"))?;
            jwt::parse_issuer_jwks(&content)
        }
        KeySource::Url(u) => jwt::parse_issuer_jwks(&loopback_get(u).await?),
        KeySource::Discover(issuer) => {
            let uri = discover_jwks_uri(issuer).await?;
            jwt::parse_issuer_jwks(&loopback_get(&uri).await?)
        }
    }
}

/// `jwks_uri` from the issuer's authorization-server metadata (RFC 8414), or else from its
/// OpenID Connect discovery document; the document's `issuer` must be the issuer.
async fn discover_jwks_uri(issuer: &str) -> Result<String, String> {
    let base = issuer.trim_end_matches('/');
    let mut last = String::new();
    for well_known in [
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
    ] {
        let url = format!("{base}{well_known}");
        match loopback_get(&url).await {
            Ok(body) => {
                let v: Value = serde_json::from_slice(&body)
                    .map_err(|_| format!("{url}: not a JSON document"))?;
                if v.get("issuer").and_then(Value::as_str) != Some(issuer) {
                    return Err(format!("{url}: its issuer is not {issuer}"));
                }
                return v
                    .get("jwks_uri")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .ok_or_else(|| format!("{url}: no jwks_uri"));
            }
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// The address and path of an `http://` URL whose host is a loopback address (`127.0.0.1`,
/// `[::1]`, `localhost`): the bridge has no TLS client, so it fetches keys only from the same
/// machine (a remote issuer's keys go through a JWKS file, or a local TLS-terminating proxy).
pub fn loopback_url(url: &str) -> Result<(std::net::SocketAddr, String, String), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("{url}: only http:// on loopback"))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    if authority.contains('@') {
        return Err(format!("{url}: no user info in the URL"));
    }
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.is_empty() && !p.contains(']') => {
            (h, p.parse::<u16>().map_err(|_| format!("{url}: bad port"))?)
        }
        _ => (authority, 80),
    };
    let ip: std::net::IpAddr = match host {
        "localhost" => std::net::Ipv4Addr::LOCALHOST.into(),
        h => h
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse()
            .map_err(|_| format!("{url}: the host must be a loopback address"))?,
    };
    if !ip.is_loopback() {
        return Err(format!("{url}: the host must be a loopback address"));
    }
    Ok((
        std::net::SocketAddr::new(ip, port),
        authority.to_string(),
        path.to_string(),
    ))
}

/// GET a JSON document from a loopback URL: 200 only, at most `MAX_DOCUMENT` bytes, within
/// `FETCH_TIMEOUT`.
pub async fn loopback_get(url: &str) -> Result<Vec<u8>, String> {
    let (addr, authority, path) = loopback_url(url)?;
    let fetch = async {
        let stream = tokio::net::TcpStream::connect(addr)
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        tokio::spawn(conn);
        let req = hyper::Request::get(path)
            .header(hyper::header::HOST, authority)
            .header(hyper::header::ACCEPT, "application/json")
            .body(Body::empty())
            .map_err(|e| format!("{url}: {e}"))?;
        let res = sender
            .send_request(req)
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        if res.status() != hyper::StatusCode::OK {
            return Err(format!("{url}: HTTP {}", res.status().as_u16()));
        }
        axum::body::to_bytes(Body::new(res.into_body()), MAX_DOCUMENT)
            .await
            .map(|b| b.to_vec())
            .map_err(|_| format!("{url}: the document is larger than {MAX_DOCUMENT} bytes"))
    };
    tokio::time::timeout(FETCH_TIMEOUT, fetch)
        .await
        .map_err(|_| format!("{url}: no answer within {} s", FETCH_TIMEOUT.as_secs()))?
}

/// The resource server: its identity, the issuer it trusts and the issuer's keys.
pub struct OAuth {
    pub resource: String,
    pub issuer: String,
    /// Path of the protected-resource metadata of `resource` (RFC 9728 3.1).
    pub metadata_path: String,
    /// Its absolute URL (what the challenges name).
    pub metadata_url: String,
    pub keys: KeyStore,
    /// The scopes of mcp.oauth_scope_role as last read for the metadata, and when: anyone may
    /// ask for the metadata, so it is read from the database at most once per `SCOPES_TTL`.
    pub scopes_cache: std::sync::Mutex<Option<(Instant, Vec<String>)>>,
}

/// How long the metadata's scope list is served from memory.
pub const SCOPES_TTL: Duration = Duration::from_secs(5);

/// Why an access token was not accepted.
#[derive(Debug, PartialEq)]
pub enum Refusal {
    /// 401 `invalid_token`.
    Invalid(&'static str),
}

impl OAuth {
    /// From the options; `listen` is the bound address (the default resource). The keys are
    /// read once here; when that fails the bridge starts without keys and tries again on the
    /// first token (rate-limited).
    pub async fn new(o: &OAuthOpts, listen: &std::net::SocketAddr) -> Result<OAuth, String> {
        let issuer = o.issuer.clone().ok_or("--oauth-issuer is required")?;
        let resource = o
            .resource
            .clone()
            .unwrap_or_else(|| format!("http://{listen}/mcp"));
        let (origin, path) = split_url(&resource).ok_or_else(|| {
            format!(
                "--oauth-resource {resource}: an absolute http(s) URL without query or fragment"
            )
        })?;
        let metadata_path = format!(
            "/.well-known/oauth-protected-resource{}",
            path.trim_end_matches('/')
        );
        let source = match (&o.jwks_file, &o.jwks_url) {
            (Some(_), Some(_)) => {
                return Err("--oauth-jwks-file and --oauth-jwks-url: one of them".into())
            }
            (Some(f), None) => KeySource::File(f.clone()),
            (None, Some(u)) => {
                loopback_url(u)?;
                KeySource::Url(u.clone())
            }
            (None, None) => {
                loopback_url(&issuer)
                    .map_err(|e| format!("{e} (or give the keys with --oauth-jwks-file)"))?;
                KeySource::Discover(issuer.clone())
            }
        };
        let keys = KeyStore {
            source,
            keys: RwLock::new(JwtKey::Rs256(Vec::new())),
            last: tokio::sync::Mutex::new(None),
            min_interval: o.min_interval.unwrap_or(DEFAULT_MIN_INTERVAL),
            refreshes: Default::default(),
        };
        keys.refresh().await;
        Ok(OAuth {
            metadata_url: format!("{origin}{metadata_path}"),
            metadata_path,
            resource,
            issuer,
            keys,
            scopes_cache: std::sync::Mutex::new(None),
        })
    }

    /// Verify an access token: signature with the issuer's keys (read again once on an unknown
    /// `kid`), `exp`/`nbf`, `iss` = the issuer, `aud` naming this resource. The token's scopes.
    pub async fn verify(&self, token: &str, now: u64) -> Result<Vec<String>, Refusal> {
        let expected = jwt::Expected {
            audience: Some(self.resource.clone()),
            issuer: Some(self.issuer.clone()),
        };
        let mut r = jwt::verify_claims(token, &self.keys.current(), now, &expected);
        if matches!(&r, Err(TokenError(e)) if *e == jwt::UNKNOWN_KID) && self.keys.refresh().await {
            r = jwt::verify_claims(token, &self.keys.current(), now, &expected);
        }
        r.map(|c| scopes(&c)).map_err(|e| Refusal::Invalid(e.0))
    }

    /// The protected-resource metadata (RFC 9728 2) with the scopes of `mcp.oauth_scope_role`.
    pub fn metadata(&self, scopes: &[String]) -> Value {
        serde_json::json!({
            "resource": self.resource,
            "authorization_servers": [self.issuer],
            "scopes_supported": scopes,
            "bearer_methods_supported": ["header"],
            "resource_name": "pg_mcp",
        })
    }

    /// The `WWW-Authenticate` value of a 401: without a token only the metadata's URL (the
    /// client starts discovery there), with a refused token also `invalid_token`.
    pub fn challenge(&self, why: Option<&str>) -> String {
        match why {
            None => format!("Bearer resource_metadata=\"{}\"", self.metadata_url),
            Some(w) => format!(
                "Bearer error=\"invalid_token\", error_description=\"{}\", resource_metadata=\"{}\"",
                quotable(w),
                self.metadata_url
            ),
        }
    }

    /// The `WWW-Authenticate` value of a 403: the token is valid but none of its scopes maps
    /// to a role; `scope` names the scopes that do (RFC 6750 3.1).
    pub fn insufficient_scope(&self, scopes: &[String]) -> String {
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"{}\", resource_metadata=\"{}\", error_description=\"none of the token's scopes maps to a database role\"",
            quotable(&scopes.join(" ")),
            self.metadata_url
        )
    }
}

/// Only characters a quoted-string of a header may carry without escapes.
fn quotable(s: &str) -> String {
    s.chars()
        .filter(|c| (c.is_ascii_graphic() || *c == ' ') && *c != '"' && *c != '\\')
        .collect()
}

/// An absolute http(s) URL as (origin, path); None with a query or fragment (RFC 9728 and
/// RFC 8707 forbid a fragment; a query makes the metadata path ambiguous).
fn split_url(url: &str) -> Option<(String, String)> {
    let scheme_end = url.find("://")?;
    if !matches!(&url[..scheme_end], "http" | "https") || url.contains(['?', '#']) {
        return None;
    }
    let rest = &url[scheme_end + 3..];
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    (!authority.is_empty()).then(|| {
        (
            url[..scheme_end + 3 + authority.len()].to_string(),
            path.to_string(),
        )
    })
}

/// The scopes of an access token: `scope` (space-separated, RFC 9068) or `scp` (an array).
pub fn scopes(claims: &Value) -> Vec<String> {
    let list: Vec<String> = match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(s)), _) => s.split(' ').map(str::to_string).collect(),
        (_, Some(Value::Array(a))) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        (_, Some(Value::String(s))) => s.split(' ').map(str::to_string).collect(),
        _ => Vec::new(),
    };
    list.into_iter()
        .filter(|s| !s.is_empty() && s.len() <= 128 && !s.chars().any(char::is_control))
        .take(MAX_SCOPES)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    const RSA_A: &str = include_str!("../tests/fixtures/rs256_test_key_a.pem");
    const RSA_B: &str = include_str!("../tests/fixtures/rs256_test_key_b.pem");

    #[test]
    fn scopes_from_scope_or_scp() {
        assert_eq!(scopes(&json!({"scope": "a b"})), ["a", "b"]);
        assert_eq!(scopes(&json!({"scp": ["a", 1, "b"]})), ["a", "b"]);
        assert!(scopes(&json!({"scope": 5})).is_empty());
        assert!(scopes(&json!({})).is_empty());
        assert_eq!(scopes(&json!({"scope": "a  b"})), ["a", "b"]);
    }

    #[test]
    fn only_loopback_http_urls_are_fetched() {
        let (a, auth, path) = loopback_url("http://127.0.0.1:9/jwks").unwrap();
        assert_eq!(
            (a.port(), auth.as_str(), path.as_str()),
            (9, "127.0.0.1:9", "/jwks")
        );
        assert!(loopback_url("http://localhost:9").is_ok());
        assert!(loopback_url("http://[::1]:9/x").is_ok());
        assert!(loopback_url("https://127.0.0.1/jwks").is_err());
        assert!(loopback_url("http://192.0.2.1/jwks").is_err());
        assert!(loopback_url("http://example.com/jwks").is_err());
        assert!(loopback_url("http://u@127.0.0.1/jwks").is_err());
    }

    #[test]
    fn metadata_paths_follow_rfc_9728() {
        assert_eq!(
            split_url("http://127.0.0.1:8765/mcp").unwrap(),
            ("http://127.0.0.1:8765".to_string(), "/mcp".to_string())
        );
        assert_eq!(split_url("https://h").unwrap().1, "");
        assert!(split_url("http://h/mcp?x=1").is_none());
        assert!(split_url("ftp://h/mcp").is_none());
    }

    /// A loopback HTTP server that answers each GET with the current JWKS and counts them.
    async fn jwks_server(jwks: Arc<RwLock<String>>, hits: Arc<AtomicUsize>) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/jwks", l.local_addr().unwrap());
        tokio::spawn(async move {
            loop {
                let (mut s, _) = l.accept().await.unwrap();
                let body = jwks.read().unwrap().clone();
                hits.fetch_add(1, Ordering::SeqCst);
                let mut buf = [0u8; 4096];
                let _ = s.read(&mut buf).await;
                let r = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = s.write_all(r.as_bytes()).await;
            }
        });
        url
    }

    #[tokio::test]
    async fn an_unknown_kid_reads_the_keys_again_at_most_once_per_interval() {
        let (a, b) = (
            jwt::rsa_private_key(RSA_A).unwrap(),
            jwt::rsa_private_key(RSA_B).unwrap(),
        );
        let jwks = Arc::new(RwLock::new(
            json!({"keys": [jwt::public_jwk(&a, Some("ka"))]}).to_string(),
        ));
        let hits = Arc::new(AtomicUsize::new(0));
        let url = jwks_server(jwks.clone(), hits.clone()).await;
        // every token signed beforehand: the steps below must stay well inside the interval
        let claims = json!({"iss": "http://127.0.0.1:1", "aud": "http://127.0.0.1:2/mcp", "scope": "mcp:read"});
        let ta = jwt::sign_rs256(&claims, &a, Some("ka")).unwrap();
        let tb = jwt::sign_rs256(&claims, &b, Some("kb")).unwrap();
        let bogus: Vec<String> = (0..20)
            .map(|i| jwt::sign_rs256(&claims, &b, Some(&format!("bogus{i}"))).unwrap())
            .collect();
        let opts = OAuthOpts {
            issuer: Some("http://127.0.0.1:1".into()),
            resource: Some("http://127.0.0.1:2/mcp".into()),
            jwks_url: Some(url),
            min_interval: Some(Duration::from_secs(1)),
            ..Default::default()
        };
        let o = OAuth::new(&opts, &"127.0.0.1:2".parse().unwrap())
            .await
            .unwrap();
        assert_eq!(hits.load(Ordering::SeqCst), 1);
        assert_eq!(
            o.metadata_url,
            "http://127.0.0.1:2/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(o.verify(&ta, 0).await.unwrap(), ["mcp:read"]);
        // the issuer rotates to key B; a B token arrives before the interval ended: refused,
        // and the issuer is not asked again
        *jwks.write().unwrap() =
            json!({"keys": [jwt::public_jwk(&b, Some("kb")), jwt::public_jwk(&a, Some("ka"))]})
                .to_string();
        assert_eq!(
            o.verify(&tb, 0).await,
            Err(Refusal::Invalid(jwt::UNKNOWN_KID))
        );
        assert_eq!(hits.load(Ordering::SeqCst), 1);
        // after it: the keys are read again and B's token is accepted
        tokio::time::sleep(Duration::from_millis(1100)).await;
        assert_eq!(o.verify(&tb, 0).await.unwrap(), ["mcp:read"]);
        assert_eq!(hits.load(Ordering::SeqCst), 2);
        // made-up kids in a burst right after a refresh: refused, no request to the issuer
        for t in &bogus {
            assert!(o.verify(t, 0).await.is_err());
        }
        assert_eq!(hits.load(Ordering::SeqCst), 2);
        // known kids never fetch
        assert!(o.verify(&ta, 0).await.is_ok());
        assert_eq!(hits.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn settings_that_cannot_work_are_refused_at_start() {
        let listen: std::net::SocketAddr = "127.0.0.1:2".parse().unwrap();
        let with = |f: &dyn Fn(&mut OAuthOpts)| {
            let mut o = OAuthOpts {
                issuer: Some("https://as.example".into()),
                jwks_file: Some("/nonexistent".into()),
                ..Default::default()
            };
            f(&mut o);
            o
        };
        // a missing file is not fatal (read again on the first token)
        assert!(OAuth::new(&with(&|_| {}), &listen).await.is_ok());
        for (o, why) in [
            (with(&|o| o.issuer = None), "--oauth-issuer"),
            (
                with(&|o| o.jwks_url = Some("http://127.0.0.1:9/jwks".into())),
                "one of them",
            ),
            (with(&|o| o.jwks_file = None), "loopback"),
            (
                with(&|o| {
                    o.jwks_file = None;
                    o.jwks_url = Some("http://192.0.2.1/jwks".into())
                }),
                "loopback",
            ),
            (
                with(&|o| o.resource = Some("https://db/mcp#x".into())),
                "--oauth-resource",
            ),
        ] {
            let e = OAuth::new(&o, &listen).await.err().unwrap();
            assert!(e.contains(why), "{e}");
        }
    }

    #[tokio::test]
    async fn audience_issuer_and_expiry_are_checked() {
        let a = jwt::rsa_private_key(RSA_A).unwrap();
        let dir = std::env::temp_dir().join(format!("pg_mcp_oauth_test_{}", std::process::id()));
        std::fs::write(&dir, json!({"keys": [jwt::public_jwk(&a, Some("ka")), {"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"}]}).to_string()).unwrap();
        let opts = OAuthOpts {
            issuer: Some("http://as".into()),
            resource: Some("https://db.example/mcp".into()),
            jwks_file: Some(dir.to_string_lossy().into()),
            ..Default::default()
        };
        let o = OAuth::new(&opts, &"127.0.0.1:2".parse().unwrap())
            .await
            .unwrap();
        std::fs::remove_file(&dir).unwrap();
        let t = |c: Value| jwt::sign_rs256(&c, &a, Some("ka")).unwrap();
        let ok = json!({"iss": "http://as", "aud": ["x", "https://db.example/mcp"], "exp": 1000, "scope": "s"});
        assert_eq!(o.verify(&t(ok.clone()), 900).await.unwrap(), ["s"]);
        let mut other = ok.clone();
        other["aud"] = json!("https://other.example/mcp");
        assert_eq!(
            o.verify(&t(other), 900).await,
            Err(Refusal::Invalid("token is not for this audience (aud)"))
        );
        let mut iss = ok.clone();
        iss["iss"] = json!("http://evil");
        assert_eq!(
            o.verify(&t(iss), 900).await,
            Err(Refusal::Invalid(
                "token is not from the expected issuer (iss)"
            ))
        );
        assert_eq!(
            o.verify(&t(ok), 2000).await,
            Err(Refusal::Invalid("token expired"))
        );
        assert_eq!(o.metadata_path, "/.well-known/oauth-protected-resource/mcp");
        assert!(o.challenge(None).starts_with("Bearer resource_metadata=\"https://db.example/.well-known/oauth-protected-resource/mcp\""));
        assert!(o
            .challenge(Some("bad \"x\""))
            .contains("error_description=\"bad x\""));
    }
}
