//! W3C trace context (`traceparent`, `tracestate`, https://www.w3.org/TR/trace-context/) as
//! the audit stores it: checked strictly, so a stored value is always one a tracing system
//! reads; anything else is dropped (never an error, never stored unchecked).

/// Whether `s` is a `traceparent`: `<version>-<trace-id>-<parent-id>-<flags>`, lower-case hex
/// of 2, 32, 16 and 2 digits, the version not `ff`, the ids not all zeros. (A future version
/// may append fields; pg_mcp stores only the four it can read.)
pub fn traceparent_valid(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    let hex = |p: &str, n: usize| {
        p.len() == n
            && p.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    parts.len() == 4
        && hex(parts[0], 2)
        && parts[0] != "ff"
        && hex(parts[1], 32)
        && parts[1].bytes().any(|b| b != b'0')
        && hex(parts[2], 16)
        && parts[2].bytes().any(|b| b != b'0')
        && hex(parts[3], 2)
}

/// Longest `tracestate` kept (the recommendation's limit a vendor must accept).
pub const TRACESTATE_MAX: usize = 512;
/// Most list members of a `tracestate`.
pub const TRACESTATE_MAX_MEMBERS: usize = 32;

fn key_valid(k: &str) -> bool {
    let tail = |s: &str| {
        s.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'-' | b'*' | b'/')
        })
    };
    match k.split_once('@') {
        None => !k.is_empty() && k.len() <= 256 && k.as_bytes()[0].is_ascii_lowercase() && tail(k),
        Some((tenant, system)) => {
            !tenant.is_empty()
                && tenant.len() <= 241
                && (tenant.as_bytes()[0].is_ascii_lowercase()
                    || tenant.as_bytes()[0].is_ascii_digit())
                && tail(tenant)
                && !system.is_empty()
                && system.len() <= 14
                && system.as_bytes()[0].is_ascii_lowercase()
                && tail(system)
        }
    }
}

fn value_valid(v: &str) -> bool {
    !v.is_empty()
        && v.len() <= 256
        && v.bytes()
            .all(|b| (0x20..=0x7e).contains(&b) && b != b',' && b != b'=')
        && !v.ends_with(' ')
}

/// Whether `s` is a `tracestate`: at most 512 characters, at most 32 `key=value` members
/// separated by commas (optional spaces or tabs around them), keys and values as the
/// recommendation writes them.
pub fn tracestate_valid(s: &str) -> bool {
    if s.len() > TRACESTATE_MAX {
        return false;
    }
    let mut members = 0;
    for m in s.split(',') {
        let m = m.trim_matches(|c| c == ' ' || c == '\t');
        if m.is_empty() {
            continue;
        }
        members += 1;
        let Some((k, v)) = m.split_once('=') else {
            return false;
        };
        if !key_valid(k) || !value_valid(v) {
            return false;
        }
    }
    members > 0 && members <= TRACESTATE_MAX_MEMBERS
}

/// The trace context a request's audit rows store: the `traceparent` when valid, and the
/// `tracestate` when it is valid too (a `tracestate` without a valid `traceparent` is
/// discarded, as the recommendation says).
pub fn checked(
    traceparent: Option<&str>,
    tracestate: Option<&str>,
) -> (Option<String>, Option<String>) {
    match traceparent.filter(|t| traceparent_valid(t)) {
        None => (None, None),
        Some(tp) => (
            Some(tp.to_string()),
            tracestate
                .filter(|s| tracestate_valid(s))
                .map(str::to_string),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TP: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn traceparent_is_checked_strictly() {
        assert!(traceparent_valid(TP));
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\n",
        ] {
            assert!(!traceparent_valid(bad), "{bad:?}");
        }
    }

    #[test]
    fn tracestate_members_keys_and_values() {
        assert!(tracestate_valid("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"));
        assert!(tracestate_valid("rojo=1 , \tcongo=2"));
        assert!(tracestate_valid("t1@vendor=x,a*b/c_d-e=y"));
        assert!(tracestate_valid("k=a b"));
        for bad in [
            "",
            ",",
            "Rojo=1",
            "rojo",
            "rojo=",
            "rojo=a=b",
            "rojo=a\u{7f}",
            "@v=1",
            "t@=1",
            "t@Vendor=1",
        ] {
            assert!(!tracestate_valid(bad), "{bad:?}");
        }
        let many: Vec<String> = (0..33).map(|i| format!("k{i}=v")).collect();
        assert!(!tracestate_valid(&many.join(",")));
        assert!(tracestate_valid(&many[..32].join(",")));
        assert!(!tracestate_valid(&format!("k={}", "v".repeat(600))));
    }

    #[test]
    fn tracestate_needs_a_valid_traceparent() {
        assert_eq!(
            checked(Some(TP), Some("rojo=1")),
            (Some(TP.to_string()), Some("rojo=1".to_string()))
        );
        assert_eq!(checked(Some(TP), Some("Bad")), (Some(TP.to_string()), None));
        assert_eq!(checked(Some("00-x"), Some("rojo=1")), (None, None));
        assert_eq!(checked(None, Some("rojo=1")), (None, None));
    }
}
