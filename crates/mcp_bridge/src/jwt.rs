//! Bearer tokens for the HTTP transport, PostgREST's model: a JWT signed with HS256 and a
//! shared key, whose `role` claim names the database role the request runs as.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

/// What a verified token grants.
#[derive(Debug, PartialEq)]
pub struct Claims {
    pub role: String,
}

/// Why a token was refused (said to the client as a 401; never contains the token).
#[derive(Debug, PartialEq)]
pub struct TokenError(pub &'static str);

/// Largest token accepted.
const MAX_TOKEN_LEN: usize = 8192;

/// Verify an HS256 JWT with `key` at time `now` (seconds since the epoch): the signature, the
/// algorithm (only HS256: `none` and others are refused), `exp` and `nbf` when present (with
/// 30 s of leeway), and a non-empty string claim `role`.
pub fn verify(token: &str, key: &[u8], now: u64) -> Result<Claims, TokenError> {
    if token.len() > MAX_TOKEN_LEN {
        return Err(TokenError("token too long"));
    }
    let mut parts = token.split('.');
    let (Some(h), Some(p), Some(s), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(TokenError("malformed token"));
    };
    let header: Value = decode_json(h)?;
    if header.get("alg").and_then(Value::as_str) != Some("HS256") {
        return Err(TokenError("unsupported token algorithm (HS256 expected)"));
    }
    let sig = URL_SAFE_NO_PAD
        .decode(s)
        .map_err(|_| TokenError("malformed token"))?;
    let mut mac =
        Hmac::<Sha256>::new_from_slice(key).map_err(|_| TokenError("server key unusable"))?;
    mac.update(h.as_bytes());
    mac.update(b".");
    mac.update(p.as_bytes());
    // constant-time comparison
    mac.verify_slice(&sig)
        .map_err(|_| TokenError("invalid token signature"))?;
    let claims: Value = decode_json(p)?;
    const LEEWAY: u64 = 30;
    if let Some(exp) = claims.get("exp") {
        let exp = exp.as_u64().ok_or(TokenError("invalid exp claim"))?;
        if now > exp + LEEWAY {
            return Err(TokenError("token expired"));
        }
    }
    if let Some(nbf) = claims.get("nbf") {
        let nbf = nbf.as_u64().ok_or(TokenError("invalid nbf claim"))?;
        if now + LEEWAY < nbf {
            return Err(TokenError("token not yet valid"));
        }
    }
    let role = claims
        .get("role")
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty() && r.len() <= 63)
        .ok_or(TokenError("token has no role claim"))?;
    Ok(Claims {
        role: role.to_string(),
    })
}

/// A JWT has three dot-separated parts; anything else is an opaque token.
pub fn looks_like_jwt(token: &str) -> bool {
    token.split('.').count() == 3
}

/// What mcp.bridge_token stores for an opaque token: `sha256(convert_to(token, 'UTF8'))`.
pub fn opaque_token_hash(token: &str) -> Vec<u8> {
    use sha2::Digest;
    Sha256::digest(token.as_bytes()).to_vec()
}

fn decode_json(part: &str) -> Result<Value, TokenError> {
    let bytes = URL_SAFE_NO_PAD
        .decode(part)
        .map_err(|_| TokenError("malformed token"))?;
    serde_json::from_slice(&bytes).map_err(|_| TokenError("malformed token"))
}

/// Sign claims with HS256 (for tests and the `token` helper command).
pub fn sign(claims: &Value, key: &[u8]) -> String {
    let h = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256","typ":"JWT"}"#);
    let p = URL_SAFE_NO_PAD.encode(claims.to_string());
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(h.as_bytes());
    mac.update(b".");
    mac.update(p.as_bytes());
    let s = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
    format!("{h}.{p}.{s}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const KEY: &[u8] = b"a-test-key-of-at-least-32-bytes!!";

    #[test]
    fn a_signed_token_names_its_role() {
        let t = sign(&json!({"role": "analyst", "exp": 2000}), KEY);
        assert_eq!(verify(&t, KEY, 1000).unwrap().role, "analyst");
    }

    #[test]
    fn tampering_wrong_keys_and_other_algorithms_are_refused() {
        let t = sign(&json!({"role": "analyst"}), KEY);
        // role A's token edited to say role B: the signature no longer matches
        let parts: Vec<&str> = t.split('.').collect();
        let forged = format!(
            "{}.{}.{}",
            parts[0],
            URL_SAFE_NO_PAD.encode(r#"{"role":"admin"}"#),
            parts[2]
        );
        assert_eq!(
            verify(&forged, KEY, 0).unwrap_err().0,
            "invalid token signature"
        );
        assert!(verify(&t, b"another-key-another-key-another!!", 0).is_err());
        let none = format!(
            "{}.{}.",
            URL_SAFE_NO_PAD.encode(r#"{"alg":"none"}"#),
            URL_SAFE_NO_PAD.encode(r#"{"role":"admin"}"#)
        );
        assert!(verify(&none, KEY, 0).is_err());
        assert!(verify("a.b", KEY, 0).is_err());
        assert!(verify("a.b.c.d", KEY, 0).is_err());
        assert!(verify(&"x".repeat(10_000), KEY, 0).is_err());
    }

    #[test]
    fn opaque_tokens_are_told_apart_and_hashed_like_sql_sha256() {
        assert!(looks_like_jwt(&sign(&json!({"role": "a"}), KEY)));
        assert!(!looks_like_jwt("pgmcp_0123abcd"));
        // SELECT encode(sha256('abc'), 'hex')
        let hex: String = opaque_token_hash("abc")
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            hex,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn time_claims_and_role_are_checked() {
        let t = sign(&json!({"role": "a", "exp": 1000}), KEY);
        assert_eq!(verify(&t, KEY, 2000).unwrap_err().0, "token expired");
        let t = sign(&json!({"role": "a", "nbf": 5000}), KEY);
        assert_eq!(verify(&t, KEY, 1000).unwrap_err().0, "token not yet valid");
        let t = sign(&json!({"sub": "a"}), KEY);
        assert_eq!(verify(&t, KEY, 0).unwrap_err().0, "token has no role claim");
        let t = sign(&json!({"role": ""}), KEY);
        assert!(verify(&t, KEY, 0).is_err());
        let t = sign(&json!({"role": "a", "exp": "soon"}), KEY);
        assert!(verify(&t, KEY, 0).is_err());
    }
}
