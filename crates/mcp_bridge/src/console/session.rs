//! Console sessions: a random id in an `HttpOnly`, `SameSite=Strict` cookie (`Secure` when the
//! page was served over TLS), bound to the one database role the login proved, with its own
//! CSRF token. Kept in the bridge's memory only: a restart signs everyone out. The role is the
//! whole of what a session grants; every page runs its SQL as that role (`SET LOCAL ROLE`), so
//! PostgreSQL's grants and row-level security decide what it sees.

use std::collections::HashMap;
use std::io::Read;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The cookie's name.
pub const COOKIE: &str = "pg_mcp_console";

#[derive(Clone, Debug)]
pub struct Session {
    pub role: String,
    pub csrf: String,
    created: Instant,
    last_used: Instant,
}

/// The sessions of one bridge process, bounded in number and in time.
pub struct Sessions {
    map: Mutex<HashMap<String, Session>>,
    /// Ends a session not used for this long.
    pub idle: Duration,
    /// Ends every session this long after its login, used or not.
    pub max_age: Duration,
    /// Most sessions kept (the least recently used goes first).
    pub capacity: usize,
}

/// 32 random bytes as hex (from the kernel's generator), or None when it cannot be read.
pub fn random_hex() -> Option<String> {
    let mut b = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut b))
        .ok()?;
    Some(b.iter().map(|x| format!("{x:02x}")).collect())
}

impl Sessions {
    pub fn new(idle: Duration, max_age: Duration, capacity: usize) -> Sessions {
        Sessions {
            map: Mutex::new(HashMap::new()),
            idle,
            max_age,
            capacity: capacity.max(1),
        }
    }

    /// A new session for `role`: its id (the cookie's value).
    pub fn create(&self, role: &str, now: Instant) -> Option<String> {
        let id = random_hex()?;
        let csrf = random_hex()?;
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        self.expire(&mut map, now);
        while map.len() >= self.capacity {
            let Some(oldest) = map
                .iter()
                .min_by_key(|(_, s)| s.last_used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            map.remove(&oldest);
        }
        map.insert(
            id.clone(),
            Session {
                role: role.to_string(),
                csrf,
                created: now,
                last_used: now,
            },
        );
        Some(id)
    }

    /// The live session of a cookie value (its idle time starts again).
    pub fn get(&self, id: &str, now: Instant) -> Option<Session> {
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        let live = map.get(id).is_some_and(|s| self.is_live(s, now));
        if !live {
            map.remove(id);
            return None;
        }
        let s = map.get_mut(id)?;
        s.last_used = now;
        Some(s.clone())
    }

    pub fn remove(&self, id: &str) {
        self.map
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
    }

    fn is_live(&self, s: &Session, now: Instant) -> bool {
        now.duration_since(s.last_used) < self.idle && now.duration_since(s.created) < self.max_age
    }

    fn expire(&self, map: &mut HashMap<String, Session>, now: Instant) {
        map.retain(|_, s| self.is_live(s, now));
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.map.lock().unwrap().len()
    }
}

/// The console's cookie value among a request's `Cookie` headers.
pub fn cookie_value<'a>(headers: impl Iterator<Item = &'a str>) -> Option<String> {
    for h in headers {
        for part in h.split(';') {
            if let Some((k, v)) = part.trim().split_once('=') {
                if k == COOKIE && !v.is_empty() && v.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Some(v.to_string());
                }
            }
        }
    }
    None
}

/// The `Set-Cookie` value of a session (`None`: the one that ends it).
pub fn set_cookie(id: Option<&str>, secure: bool, max_age: Duration) -> String {
    let secure = if secure { "; Secure" } else { "" };
    match id {
        Some(id) => format!(
            "{COOKIE}={id}; Path=/console; HttpOnly; SameSite=Strict; Max-Age={}{secure}",
            max_age.as_secs()
        ),
        None => format!("{COOKIE}=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0{secure}"),
    }
}

/// Whether the CSRF token a form sent is the session's (compared in constant time).
pub fn csrf_matches(sent: Option<&str>, expected: &str) -> bool {
    let Some(sent) = sent else { return false };
    if sent.len() != expected.len() || expected.is_empty() {
        return false;
    }
    sent.bytes()
        .zip(expected.bytes())
        .fold(0u8, |acc, (a, b)| acc | (a ^ b))
        == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_expire_when_idle_or_old_and_are_bounded() {
        let s = Sessions::new(Duration::from_secs(10), Duration::from_secs(100), 2);
        let t0 = Instant::now();
        let a = s.create("alice", t0).unwrap();
        assert_eq!(
            s.get(&a, t0 + Duration::from_secs(9)).unwrap().role,
            "alice"
        );
        // used at 9 s: alive at 18 s, gone at 30 s
        assert!(s.get(&a, t0 + Duration::from_secs(18)).is_some());
        assert!(s.get(&a, t0 + Duration::from_secs(30)).is_none());
        // at most max_age after the login, however often it is used
        let b = s.create("bob", t0).unwrap();
        let mut t = t0;
        for _ in 0..10 {
            t += Duration::from_secs(9);
            assert!(s.get(&b, t).is_some());
        }
        t += Duration::from_secs(9);
        assert!(s.get(&b, t + Duration::from_secs(9)).is_none());
        // capacity: the least recently used goes
        let c = s.create("c", t0).unwrap();
        let d = s.create("d", t0 + Duration::from_secs(1)).unwrap();
        let _e = s.create("e", t0 + Duration::from_secs(2)).unwrap();
        assert_eq!(s.len(), 2);
        assert!(s.get(&c, t0 + Duration::from_secs(2)).is_none());
        assert!(s.get(&d, t0 + Duration::from_secs(2)).is_some());
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
    }

    #[test]
    fn cookies_and_csrf() {
        let id = "ab".repeat(32);
        let h = format!("x=1; {COOKIE}={id}; y=2");
        assert_eq!(cookie_value([h.as_str()].into_iter()), Some(id.clone()));
        assert_eq!(cookie_value(["pg_mcp_console=<script>"].into_iter()), None);
        assert_eq!(cookie_value(["other=ab"].into_iter()), None);
        let c = set_cookie(Some(&id), true, Duration::from_secs(60));
        assert!(c.contains("HttpOnly") && c.contains("SameSite=Strict") && c.ends_with("Secure"));
        assert!(!set_cookie(Some(&id), false, Duration::from_secs(60)).contains("Secure"));
        assert!(set_cookie(None, false, Duration::ZERO).contains("Max-Age=0"));
        assert!(csrf_matches(Some("abc"), "abc"));
        assert!(!csrf_matches(Some("abd"), "abc"));
        assert!(!csrf_matches(Some("ab"), "abc"));
        assert!(!csrf_matches(None, "abc"));
        assert!(!csrf_matches(Some(""), ""));
    }
}
