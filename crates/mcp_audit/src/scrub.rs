//! The one secret scrubber.
//!
//! A [`Scrubber`] knows the secrets of one provider request: the credential of every header that
//! carries one (`authorization`, `api-key`, `x-api-key`, … — see [`is_secret_header`]), secret
//! query parameters and the URL's user info. It replaces each of them, in every form an echo can
//! take, with [`REDACTED`]:
//!
//! * the value as is (which also covers `Bearer <key>`, `api-key: <key>`, `x-api-key: <key>`),
//! * JSON-escaped, once and twice (an echo inside a JSON string inside JSON), with and without
//!   `\/` for `/`,
//! * percent-encoded (upper- and lowercase hex, `+` for a space).
//!
//! [`Scrubber::scrub`] / [`Scrubber::scrub_bytes`] replace only these exact secrets: they are
//! safe on response bodies (a model's answer is not rewritten where it merely looks random).
//! [`Scrubber::scrub_message`] adds credential *patterns* (`sk-…`, `Bearer …`,
//! `api_key=…`, JWTs, long hex or random tokens), for error messages and log lines, where a
//! provider may echo a key we never knew (OpenAI masks part of it in 401 messages); a
//! `Scrubber::default()` (no secrets known) applies only those patterns.

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use memchr::memmem;
use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use regex::Regex;
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::sync::{Mutex, OnceLock};

/// What a secret is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Shorter values are not treated as secrets: replacing a short common string in every answer
/// would corrupt answers, and no real API key is that short.
pub const MIN_SECRET_LEN: usize = 8;

/// The secrets of one request (or one key), in every form they are searched for.
#[derive(Clone, Default)]
pub struct Scrubber {
    /// Every form of every secret, longest first (a form is removed before its parts).
    forms: Vec<Vec<u8>>,
    /// All forms in one automaton (leftmost-longest: of two forms at one position the longer
    /// is removed whole): one pass over a body, whatever the number of forms. Taken at the
    /// first scrub (a scrubber that is extended with [`Scrubber::with_secret`] or never used
    /// takes none) from the process's [`AUTOMATA`] when a scrubber of the same forms built one
    /// (a chat makes a scrubber per request, every one of them for the same key), else built,
    /// as a contiguous NFA: its build takes microseconds where a DFA's takes tens of them.
    matcher: OnceLock<Option<AhoCorasick>>,
}

impl std::fmt::Debug for Scrubber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Scrubber({} forms)", self.forms.len())
    }
}

impl Scrubber {
    /// A scrubber for these secret values (an API key, a token …). Values shorter than
    /// [`MIN_SECRET_LEN`] after trimming are ignored.
    pub fn for_secrets<'a>(secrets: impl IntoIterator<Item = &'a str>) -> Self {
        let mut s = Scrubber::default();
        for v in secrets {
            s.add(v);
        }
        s.finish()
    }

    /// A scrubber for a request: credentials in its headers, secret query parameters and the
    /// user info of its URL.
    pub fn for_request(url: &str, headers: &[(String, String)]) -> Self {
        let mut s = Scrubber::default();
        for (name, value) in headers {
            if !is_secret_header(name) {
                continue;
            }
            let value = value.trim();
            s.add(value);
            // `Bearer <token>`, `Basic <creds>`, `Token <t>`: the credential alone as well.
            if let Some((scheme, cred)) = value.split_once(' ') {
                if !scheme.is_empty() && scheme.bytes().all(|b| b.is_ascii_alphabetic()) {
                    s.add(cred);
                }
            }
        }
        if let Some(rest) = url.split_once("://").map(|(_, r)| r) {
            let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
            if let Some((userinfo, _)) = authority.rsplit_once('@') {
                s.add(userinfo);
                if let Some((_, password)) = userinfo.split_once(':') {
                    s.add(password);
                }
            }
        }
        if let Some((_, query)) = url.split_once('?') {
            let query = query.split('#').next().unwrap_or("");
            for pair in query.split('&') {
                if let Some((k, v)) = pair.split_once('=') {
                    if is_secret_name(k) {
                        s.add(v);
                        s.add(&percent_decode(v));
                    }
                }
            }
        }
        s.finish()
    }

    /// This scrubber plus one more secret value (e.g. the provider's key where no header
    /// carries it).
    pub fn with_secret(mut self, secret: &str) -> Self {
        self.add(secret);
        self.finish()
    }

    /// No secrets known: `scrub` returns its input, `scrub_message` applies the patterns only.
    pub fn is_empty(&self) -> bool {
        self.forms.is_empty()
    }

    fn add(&mut self, secret: &str) {
        let secret = secret.trim();
        if secret.len() < MIN_SECRET_LEN {
            return;
        }
        let json = json_escape(secret);
        let json_slash = json.replace('/', "\\/");
        let pct_upper = percent_encode(secret);
        let pct_lower = percent_encode_lower(secret);
        let pct_form = pct_upper.replace("%20", "+");
        let forms = [
            json_escape(&json),
            json_escape(&json_slash),
            json,
            json_slash,
            pct_upper,
            pct_lower,
            pct_form,
            secret.to_string(),
        ];
        for f in forms {
            if !self.forms.iter().any(|x| x == f.as_bytes()) {
                self.forms.push(f.into_bytes());
            }
        }
    }

    fn finish(mut self) -> Self {
        self.forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
        self.matcher = OnceLock::new();
        self
    }

    fn matcher(&self) -> Option<&AhoCorasick> {
        self.matcher
            .get_or_init(|| {
                if self.forms.is_empty() {
                    return None;
                }
                let id = forms_id(&self.forms);
                if let Some(m) = cached_automaton(&id) {
                    return Some(m);
                }
                // building fails only for patterns beyond the automaton's size limits, which a
                // handful of key forms never reach; then the scrubber falls back to form by form
                let m = AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .kind(Some(AhoCorasickKind::ContiguousNFA))
                    .build(&self.forms)
                    .ok()?;
                keep_automaton(id, &m);
                Some(m)
            })
            .as_ref()
    }

    fn any_form_in(&self, hay: &[u8]) -> bool {
        if self.forms.is_empty() {
            return false;
        }
        match self.matcher() {
            Some(m) => m.is_match(hay),
            None => self.forms.iter().any(|f| memmem::find(hay, f).is_some()),
        }
    }

    /// Replace every known secret (exact forms only). Borrowed when there was none.
    pub fn scrub<'a>(&self, s: &'a str) -> Cow<'a, str> {
        if !self.any_form_in(s.as_bytes()) {
            return Cow::Borrowed(s);
        }
        let out = self.replace_all(s.as_bytes().to_vec());
        // Forms are whole UTF-8 strings and REDACTED is ASCII, so the result is valid UTF-8;
        // the lossy conversion never replaces anything.
        Cow::Owned(match String::from_utf8(out) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }

    /// [`Scrubber::scrub`] for a raw body (need not be UTF-8). Returns the input untouched (no
    /// copy) when it holds no secret.
    pub fn scrub_bytes(&self, body: Vec<u8>) -> Vec<u8> {
        if !self.any_form_in(&body) {
            return body;
        }
        self.replace_all(body)
    }

    /// For error messages and log lines: the known secrets, then credential patterns.
    pub fn scrub_message(&self, s: &str) -> String {
        scrub_secrets(&self.scrub(s))
    }

    fn replace_all(&self, mut buf: Vec<u8>) -> Vec<u8> {
        if let Some(m) = self.matcher() {
            let mut out = Vec::with_capacity(buf.len());
            m.replace_all_with_bytes(&buf, &mut out, |_, _, dst| {
                dst.extend_from_slice(REDACTED.as_bytes());
                true
            });
            return out;
        }
        for form in &self.forms {
            let finder = memmem::Finder::new(form);
            if finder.find(&buf).is_none() {
                continue;
            }
            let mut out = Vec::with_capacity(buf.len());
            let mut at = 0;
            for hit in finder.find_iter(&buf) {
                out.extend_from_slice(&buf[at..hit]);
                out.extend_from_slice(REDACTED.as_bytes());
                at = hit + form.len();
            }
            out.extend_from_slice(&buf[at..]);
            buf = out;
        }
        buf
    }
}

/// The automata of the last [`AUTOMATA_KEPT`] sets of forms a scrubber of this process built,
/// newest last, by the SHA-256 of their forms ([`forms_id`]): a backend's chats scrub every
/// request and answer with the same provider's key, so the automaton is built once per key
/// instead of once per request (a tenth of the backend's own CPU per chat, profiled). The key
/// stays out of the cache's index; the automaton holds its forms, as every scrubber does while
/// it lives. Shared by the threads of a process (a backend and its HTTP thread).
static AUTOMATA: Mutex<Vec<([u8; 32], AhoCorasick)>> = Mutex::new(Vec::new());

/// How many automata [`AUTOMATA`] keeps (one per provider key a backend uses, in practice).
pub const AUTOMATA_KEPT: usize = 8;

/// The forms' identity: SHA-256 over each form's length and bytes, in order (the order is
/// deterministic: [`Scrubber::finish`] sorts them).
fn forms_id(forms: &[Vec<u8>]) -> [u8; 32] {
    let mut h = Sha256::new();
    for f in forms {
        h.update((f.len() as u64).to_le_bytes());
        h.update(f);
    }
    h.finalize().into()
}

fn cached_automaton(id: &[u8; 32]) -> Option<AhoCorasick> {
    let kept = AUTOMATA.lock().unwrap_or_else(|e| e.into_inner());
    kept.iter().find(|(k, _)| k == id).map(|(_, m)| m.clone())
}

fn keep_automaton(id: [u8; 32], m: &AhoCorasick) {
    let mut kept = AUTOMATA.lock().unwrap_or_else(|e| e.into_inner());
    if kept.iter().any(|(k, _)| *k == id) {
        return;
    }
    if kept.len() >= AUTOMATA_KEPT {
        kept.remove(0);
    }
    kept.push((id, m.clone()));
}

/// Headers whose value is a credential: `authorization`, `proxy-authorization`, `cookie`,
/// `api-key`, `x-api-key` and any name that mentions a key, token, secret, password, auth or
/// signature (`x-goog-api-key`, `x-auth-token`, `ocp-apim-subscription-key` …). Other headers
/// (`content-type`, `anthropic-version`, `user-agent`) are not secrets.
pub fn is_secret_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "cookie" || is_secret_name(&n)
}

fn is_secret_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "key",
        "token",
        "secret",
        "pass",
        "auth",
        "sig",
        "credential",
        "session",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// The JSON string body of `s` (escaped, without the quotes).
fn json_escape(s: &str) -> String {
    let quoted = serde_json::Value::String(s.to_string()).to_string();
    quoted[1..quoted.len() - 1].to_string()
}

/// Everything but the unreserved characters of RFC 3986 (`A-Z a-z 0-9 - _ . ~`).
const NOT_UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// Percent-encode everything but the unreserved characters (uppercase hex), with the
/// `percent-encoding` crate: one URL segment or query value. The scrubber looks for secrets in
/// this form; a provider dialect puts names into its URL with it.
pub fn percent_encode(s: &str) -> String {
    utf8_percent_encode(s, NOT_UNRESERVED).to_string()
}

/// [`percent_encode`] with lowercase hex digits (`%2f`), a form some clients send.
fn percent_encode_lower(s: &str) -> String {
    let upper = percent_encode(s);
    let mut out = String::with_capacity(upper.len());
    let mut hex_left = 0;
    for c in upper.chars() {
        if c == '%' {
            hex_left = 2;
            out.push(c);
        } else if hex_left > 0 {
            hex_left -= 1;
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Decode a query value (`+` is a space, `%2B` a plus); invalid UTF-8 becomes U+FFFD.
fn percent_decode(s: &str) -> String {
    percent_decode_str(&s.replace('+', " "))
        .decode_utf8_lossy()
        .into_owned()
}

// ---------------------------------------------------------------------------------------------
// Credential patterns (for messages: a provider may echo a key we do not know)

struct Patterns {
    sk: Regex,
    bearer: Regex,
    keyed: Regex,
    google: Regex,
    jwt: Regex,
    hex: Regex,
    long_token: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns {
        // OpenAI (sk-…, sk-proj-…, masked sk-abc****xyz), Anthropic (sk-ant-…), Mistral-style.
        sk: Regex::new(r"\bsk-[A-Za-z0-9_\-\*\.]{3,}").expect("static regex"),
        bearer: Regex::new(r"(?i)\bbearer\s+[A-Za-z0-9\-\._~\+/=\*]+").expect("static regex"),
        // A value after something named key/token/secret/password/authorization.
        keyed: Regex::new(
            r#"(?i)((?:api[_-]?key|access[_-]?key|subscription[_-]?key|\bkey|token|secret|password|authorization)["']?\s*(?:[:=]|\bis\b|\bprovided:?)?\s*["']?)([A-Za-z0-9\-_\.\+/=\*~]{12,})"#,
        )
        .expect("static regex"),
        google: Regex::new(r"\bAIza[0-9A-Za-z\-_]{20,}").expect("static regex"),
        jwt: Regex::new(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*")
            .expect("static regex"),
        hex: Regex::new(r"\b[0-9a-fA-F]{32,}\b").expect("static regex"),
        long_token: Regex::new(r"[A-Za-z0-9+/_\-]{40,}={0,2}").expect("static regex"),
    })
}

/// Replace anything that looks like a credential with [`REDACTED`]. For messages only (through
/// [`Scrubber::scrub_message`]): on a response body it would also rewrite hashes and ids the
/// model legitimately returns.
fn scrub_secrets(s: &str) -> String {
    let r = patterns();
    let s = r.sk.replace_all(s, REDACTED);
    let s = r.bearer.replace_all(&s, "Bearer [redacted]");
    let s = r.google.replace_all(&s, REDACTED);
    let s = r.jwt.replace_all(&s, REDACTED);
    let s = r.keyed.replace_all(&s, |c: &regex::Captures| {
        let value = &c[2];
        // Keep ordinary words ("token rate limit", "key provided"): redact only values that
        // look random (contain a digit, or are masked with '*').
        if value.chars().any(|ch| ch.is_ascii_digit() || ch == '*') || value.len() >= 24 {
            format!("{}{REDACTED}", &c[1])
        } else {
            c[0].to_string()
        }
    });
    let s = r.hex.replace_all(&s, REDACTED);
    let s = r.long_token.replace_all(&s, |c: &regex::Captures| {
        let t = &c[0];
        let digits = t.chars().filter(|ch| ch.is_ascii_digit()).count();
        let letters = t.chars().filter(|ch| ch.is_ascii_alphabetic()).count();
        if digits >= 3 && letters >= 3 && !t.contains("redacted") {
            REDACTED.to_string()
        } else {
            t.to_string()
        }
    });
    s.into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = r#"sk-te"st/KEY+with\odd 9f8e"#;

    fn headers(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn scrubbers_of_one_key_share_one_automaton_and_others_keep_their_own() {
        let req = |key: &str| {
            Scrubber::for_request(
                "https://h.example/v1/chat/completions",
                &headers(&[("Authorization", &format!("Bearer {key}"))]),
            )
        };
        let first = req("sk-shared-automaton-0001");
        assert_eq!(
            first.scrub("x sk-shared-automaton-0001 y"),
            "x [redacted] y"
        );
        let id = forms_id(&first.forms);
        assert!(
            cached_automaton(&id).is_some(),
            "the built automaton is kept"
        );
        // The next request's scrubber of the same key takes it (same forms, same id) and
        // scrubs the same.
        let second = req("sk-shared-automaton-0001");
        assert_eq!(forms_id(&second.forms), id);
        assert_eq!(second.scrub("sk-shared-automaton-0001"), "[redacted]");
        // Other keys: their own automata, each removing only its own key; more keys than the
        // cache keeps evict the oldest, and an evicted one's scrubber still scrubs.
        let many: Vec<Scrubber> = (0..AUTOMATA_KEPT + 3)
            .map(|n| req(&format!("sk-other-key-{n:04}-abcdef")))
            .collect();
        for (n, s) in many.iter().enumerate() {
            let key = format!("sk-other-key-{n:04}-abcdef");
            assert_eq!(s.scrub(&format!("a {key} b")), "a [redacted] b");
            assert_eq!(
                s.scrub("sk-shared-automaton-0001"),
                "sk-shared-automaton-0001",
                "only its own key"
            );
            assert_ne!(forms_id(&s.forms), id);
        }
        assert!(AUTOMATA.lock().unwrap().len() <= AUTOMATA_KEPT);
        assert_eq!(many[0].scrub("sk-other-key-0000-abcdef"), "[redacted]");
        // with_secret: new forms, so another automaton.
        let more = req("sk-shared-automaton-0001").with_secret("second-secret-value");
        assert_ne!(forms_id(&more.forms), id);
        assert_eq!(
            more.scrub("sk-shared-automaton-0001 second-secret-value"),
            "[redacted] [redacted]"
        );
    }

    #[test]
    fn url_forms() {
        assert_eq!(percent_encode("a/b c+~é"), "a%2Fb%20c%2B~%C3%A9");
        assert_eq!(percent_encode_lower("a/b c+~é"), "a%2fb%20c%2b~%c3%a9");
        assert_eq!(percent_decode("a%2Fb+c%2B%c3%a9"), "a/b c+é");
    }

    #[test]
    fn every_form_of_the_key_is_removed() {
        let s = Scrubber::for_request(
            "https://h.example/v1/chat/completions",
            &headers(&[("Authorization", &format!("Bearer {KEY}"))]),
        );
        let json1 = json_escape(KEY);
        let forms = [
            KEY.to_string(),
            format!("Bearer {KEY}"),
            json1.clone(),
            json1.replace('/', "\\/"),
            json_escape(&json1),
            percent_encode(KEY),
            percent_encode_lower(KEY),
            percent_encode(KEY).replace("%20", "+"),
        ];
        for f in &forms {
            let text = format!("echo: <{f}> and again {f}.");
            let out = s.scrub(&text);
            assert!(!out.contains(f.as_str()), "{f:?} -> {out}");
            assert!(out.contains(REDACTED), "{out}");
            let bytes = s.scrub_bytes(text.clone().into_bytes());
            assert!(memmem::find(&bytes, f.as_bytes()).is_none(), "{f:?}");
        }
        // a JSON document that echoes the header, parsed back: no form of the key survives
        let echoed = serde_json::json!({"content": format!("authorization: Bearer {KEY}"),
                                        "inner": serde_json::json!({"h": KEY}).to_string()})
        .to_string();
        let clean = s.scrub(&echoed);
        assert!(
            !clean.contains("te\\\"st") && !clean.contains("KEY+with"),
            "{clean}"
        );
        let v: serde_json::Value = serde_json::from_str(&clean).expect("still JSON");
        assert!(!v.to_string().contains("KEY+with"), "{v}");
    }

    #[test]
    fn header_forms_and_url_secrets() {
        let s = Scrubber::for_request(
            "https://user:hunter2hunter2@h.example/p?api-version=2024-10-21&key=AIzaQUERYSECRET1",
            &headers(&[
                ("content-type", "application/json"),
                ("anthropic-version", "2023-06-01"),
                ("x-api-key", "ant-KEY-0123456789"),
                ("api-key", "azure0123456789abcdef"),
            ]),
        );
        let out = s.scrub(
            "x-api-key: ant-KEY-0123456789 api-key: azure0123456789abcdef pw hunter2hunter2 q AIzaQUERYSECRET1 \
             application/json 2023-06-01 2024-10-21",
        );
        for secret in [
            "ant-KEY-0123456789",
            "azure0123456789abcdef",
            "hunter2hunter2",
            "AIzaQUERYSECRET1",
        ] {
            assert!(!out.contains(secret), "{secret}: {out}");
        }
        // ordinary header values and non-secret query parameters are not secrets
        for kept in ["application/json", "2023-06-01", "2024-10-21"] {
            assert!(out.contains(kept), "{kept}: {out}");
        }
    }

    #[test]
    fn one_pass_removes_the_longer_of_overlapping_secrets_whole() {
        let s = Scrubber::for_secrets(["abcdefgh", "abcdefgh12", "zzzzzzzzzz"]);
        assert_eq!(
            s.scrub("x abcdefgh12 y abcdefgh z zzzzzzzzzzzz"),
            "x [redacted] y [redacted] z [redacted]zz"
        );
        // many secrets: still every occurrence of each
        let keys: Vec<String> = (0..40)
            .map(|i| format!("sk-test-{i:04}-secretvalue"))
            .collect();
        let s = Scrubber::for_secrets(keys.iter().map(String::as_str));
        let text: String = keys.iter().map(|k| format!("<{k}>")).collect();
        let out = s.scrub(&text);
        assert_eq!(out.matches("[redacted]").count(), 40);
        assert!(!out.contains("secretvalue"));
    }

    #[test]
    fn nothing_to_do_borrows_and_short_values_are_ignored() {
        let s = Scrubber::for_secrets(["short", "  "]);
        assert!(s.is_empty());
        let s = Scrubber::for_secrets(["sk-long-enough-1"]);
        assert!(matches!(s.scrub("no secret here"), Cow::Borrowed(_)));
        let body = b"\xff\xfe binary sk-long-enough-1 \xff".to_vec();
        let out = s.scrub_bytes(body);
        assert_eq!(out, b"\xff\xfe binary [redacted] \xff".to_vec());
    }

    #[test]
    fn messages_also_get_the_patterns() {
        let s = Scrubber::for_secrets(["my-own-key-123456"]);
        let m = s.scrub_message("bad key my-own-key-123456; other sk-abc123XYZ7890abcdefghij");
        assert!(!m.contains("my-own-key") && !m.contains("sk-abc123"), "{m}");
        // a body scrub leaves pattern look-alikes alone (a hash in an answer stays)
        let hash = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(s.scrub(hash), hash);
    }

    #[test]
    fn secret_patterns() {
        let cases = [
            "Incorrect API key provided: sk-abc123XYZ7890abcdefghijklmnopqrstuvwxyz0123.",
            "header was Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "request failed with api_key=0123456789abcdef0123456789abcdef",
        ];
        for c in cases {
            let out = Scrubber::default().scrub_message(c);
            assert!(out.contains(REDACTED), "{c:?} -> {out:?}");
        }
        let ok = "Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29500.";
        assert_eq!(Scrubber::default().scrub_message(ok), ok);
    }
}
