//! Bearer tokens for the HTTP transport, PostgREST's model: a JWT whose `role` claim names the
//! database role the request runs as, signed either with HS256 and a shared secret or with
//! RS256 and an RSA key pair (the bridge holds only the public key, as a JWK or JWKS).

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use hmac::{Hmac, Mac};
use ring::signature::{RsaKeyPair, RsaPublicKeyComponents, RSA_PKCS1_2048_8192_SHA256};
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
/// Most RSA keys a JWKS may hold (a token without `kid` is tried against each).
const MAX_JWKS_KEYS: usize = 16;

/// The key tokens are verified with. The algorithm is a property of the key, never of the
/// token: an RS256 key refuses HS256 tokens (no algorithm confusion: a public key is not an
/// HMAC secret) and an HS256 secret refuses RS256 tokens.
#[derive(Clone)]
pub enum JwtKey {
    /// HS256 with a shared secret of at least 32 bytes.
    Hs256(Vec<u8>),
    /// RS256 with RSA public keys (2048 to 8192 bits), each with its optional `kid`.
    Rs256(Vec<RsaKey>),
}

/// An RSA public key from a JWK: modulus and exponent, big-endian.
#[derive(Clone, Debug)]
pub struct RsaKey {
    pub kid: Option<String>,
    n: Vec<u8>,
    e: Vec<u8>,
}

impl std::fmt::Debug for JwtKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JwtKey::Hs256(_) => f.write_str("Hs256(<secret>)"),
            JwtKey::Rs256(k) => write!(f, "Rs256({} keys)", k.len()),
        }
    }
}

/// Read a key file's content: a JWK (`{"kty": "RSA", "n", "e"}` or `{"kty": "oct", "k"}`), a
/// JWKS (`{"keys": [...]}`, RSA keys only), or else the raw HS256 secret (trailing newline
/// removed). Errors name what is wrong, never the key material.
pub fn parse_key(content: &[u8]) -> Result<JwtKey, String> {
    let trimmed = content.trim_ascii();
    if trimmed.first() == Some(&b'{') {
        let v: Value =
            serde_json::from_slice(trimmed).map_err(|_| "the JWT key file is not valid JSON")?;
        if let Some(keys) = v.get("keys") {
            let keys = keys.as_array().ok_or("JWKS: \"keys\" must be an array")?;
            if keys.is_empty() || keys.len() > MAX_JWKS_KEYS {
                return Err(format!("JWKS: 1 to {MAX_JWKS_KEYS} keys expected"));
            }
            let rsa = keys
                .iter()
                .map(|k| match parse_jwk(k)? {
                    JwtKey::Rs256(mut one) => Ok(one.remove(0)),
                    JwtKey::Hs256(_) => Err("JWKS: only RSA keys (kty RSA) are accepted".into()),
                })
                .collect::<Result<Vec<_>, String>>()?;
            return Ok(JwtKey::Rs256(rsa));
        }
        return parse_jwk(&v);
    }
    let secret = content.strip_suffix(b"\n").unwrap_or(content);
    let secret = secret.strip_suffix(b"\r").unwrap_or(secret);
    hs256_secret(secret.to_vec())
}

fn hs256_secret(key: Vec<u8>) -> Result<JwtKey, String> {
    if key.len() < 32 {
        return Err("the JWT key must be at least 32 bytes".into());
    }
    Ok(JwtKey::Hs256(key))
}

fn parse_jwk(k: &Value) -> Result<JwtKey, String> {
    let field = |name: &str| -> Result<Vec<u8>, String> {
        let s = k
            .get(name)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("JWK: \"{name}\" missing"))?;
        URL_SAFE_NO_PAD
            .decode(s.trim_end_matches('='))
            .map_err(|_| format!("JWK: \"{name}\" is not base64url"))
    };
    let alg = k.get("alg").and_then(Value::as_str);
    match k.get("kty").and_then(Value::as_str) {
        Some("RSA") => {
            if alg.is_some_and(|a| a != "RS256") {
                return Err("JWK: an RSA key must be for alg RS256".into());
            }
            if k.get("use")
                .and_then(Value::as_str)
                .is_some_and(|u| u != "sig")
            {
                return Err("JWK: the key's \"use\" must be \"sig\"".into());
            }
            let key = RsaKey {
                kid: k.get("kid").and_then(Value::as_str).map(str::to_string),
                n: field("n")?,
                e: field("e")?,
            };
            let bits = key.n.iter().skip_while(|b| **b == 0).count() * 8;
            if !(2048..=8192).contains(&bits) {
                return Err("JWK: the RSA modulus must have 2048 to 8192 bits".into());
            }
            Ok(JwtKey::Rs256(vec![key]))
        }
        Some("oct") => {
            if alg.is_some_and(|a| a != "HS256") {
                return Err("JWK: a symmetric key must be for alg HS256".into());
            }
            hs256_secret(field("k")?)
        }
        _ => Err("JWK: kty must be RSA or oct".into()),
    }
}

/// The audience and issuer a token must name, when the operator configured them
/// (`--jwt-audience`, `--jwt-issuer`): a token without the claim is refused then.
#[derive(Debug, Default, Clone)]
pub struct Expected {
    pub audience: Option<String>,
    pub issuer: Option<String>,
}

/// [`verify_with`] without audience or issuer checks.
#[cfg(test)]
pub fn verify(token: &str, key: &JwtKey, now: u64) -> Result<Claims, TokenError> {
    verify_with(token, key, now, &Expected::default())
}

/// Verify a JWT with `key` at time `now` (seconds since the epoch): the algorithm (the key's
/// own: HS256 or RS256; `none` and others are refused), no `crit` header (RFC 7515 4.1.11: a
/// token whose critical extensions the recipient does not understand is invalid, and this
/// bridge understands none), the signature (for a JWKS, the key whose `kid` the token names,
/// else each key), `exp` and `nbf` when present (with 30 s of leeway), `aud` and `iss` when
/// `expected` names them, and a non-empty string claim `role`.
pub fn verify_with(
    token: &str,
    key: &JwtKey,
    now: u64,
    expected: &Expected,
) -> Result<Claims, TokenError> {
    let claims = verify_claims(token, key, now, expected)?;
    let role = claims
        .get("role")
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty() && r.len() <= 63)
        .ok_or(TokenError("token has no role claim"))?;
    Ok(Claims {
        role: role.to_string(),
    })
}

/// What [`verify_with`] answers for a token whose `kid` no key has (the OAuth key store
/// refreshes its JWKS then: the issuer may have rotated its keys).
pub const UNKNOWN_KID: &str = "unknown key id";

/// [`verify_with`] up to the claims, without asking for `role`: the verified claims.
pub fn verify_claims(
    token: &str,
    key: &JwtKey,
    now: u64,
    expected: &Expected,
) -> Result<Value, TokenError> {
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
    let alg = header.get("alg").and_then(Value::as_str);
    if header.get("crit").is_some() {
        return Err(TokenError(
            "token names critical header extensions (crit) this server does not support",
        ));
    }
    let sig = URL_SAFE_NO_PAD
        .decode(s)
        .map_err(|_| TokenError("malformed token"))?;
    let signed = &token[..h.len() + 1 + p.len()];
    match key {
        JwtKey::Hs256(secret) => {
            if alg != Some("HS256") {
                return Err(TokenError("unsupported token algorithm (HS256 expected)"));
            }
            let mut mac = Hmac::<Sha256>::new_from_slice(secret)
                .map_err(|_| TokenError("server key unusable"))?;
            mac.update(signed.as_bytes());
            // constant-time comparison
            mac.verify_slice(&sig)
                .map_err(|_| TokenError("invalid token signature"))?;
        }
        JwtKey::Rs256(keys) => {
            if alg != Some("RS256") {
                return Err(TokenError("unsupported token algorithm (RS256 expected)"));
            }
            let kid = header.get("kid").and_then(Value::as_str);
            let mut candidates = keys
                .iter()
                .filter(|k| kid.is_none() || k.kid.as_deref() == kid)
                .peekable();
            if candidates.peek().is_none() {
                return Err(TokenError(UNKNOWN_KID));
            }
            let ok = candidates.any(|k| {
                RsaPublicKeyComponents { n: &k.n, e: &k.e }
                    .verify(&RSA_PKCS1_2048_8192_SHA256, signed.as_bytes(), &sig)
                    .is_ok()
            });
            if !ok {
                return Err(TokenError("invalid token signature"));
            }
        }
    }
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
    if let Some(aud) = &expected.audience {
        let ok = match claims.get("aud") {
            Some(Value::String(a)) => a == aud,
            Some(Value::Array(list)) => list.iter().any(|a| a.as_str() == Some(aud)),
            _ => false,
        };
        if !ok {
            return Err(TokenError("token is not for this audience (aud)"));
        }
    }
    if let Some(iss) = &expected.issuer {
        if claims.get("iss").and_then(Value::as_str) != Some(iss) {
            return Err(TokenError("token is not from the expected issuer (iss)"));
        }
    }
    Ok(claims)
}

/// The `iss` claim of a JWT, read WITHOUT verifying it: only to pick which verifier checks the
/// token (each checks everything itself).
pub fn unverified_issuer(token: &str) -> Option<String> {
    let p = token.split('.').nth(1)?;
    let claims: Value = decode_json(p).ok()?;
    claims.get("iss")?.as_str().map(str::to_string)
}

/// A JWKS as an OAuth issuer publishes it: the RSA signing keys (RS256, `use` sig or absent)
/// are kept, keys of other types or uses are skipped (an issuer may publish EC or encryption
/// keys beside them); at least one must remain.
pub fn parse_issuer_jwks(content: &[u8]) -> Result<JwtKey, String> {
    let v: Value = serde_json::from_slice(content).map_err(|_| "the JWKS is not valid JSON")?;
    let keys = v
        .get("keys")
        .and_then(Value::as_array)
        .ok_or("JWKS: \"keys\" array missing")?;
    let rsa: Vec<RsaKey> = keys
        .iter()
        .filter(|k| k.get("kty").and_then(Value::as_str) == Some("RSA"))
        .filter(|k| {
            k.get("use")
                .and_then(Value::as_str)
                .is_none_or(|u| u == "sig")
        })
        .filter(|k| {
            k.get("alg")
                .and_then(Value::as_str)
                .is_none_or(|a| a == "RS256")
        })
        .filter_map(|k| match parse_jwk(k) {
            Ok(JwtKey::Rs256(mut one)) => Some(one.remove(0)),
            _ => None,
        })
        .take(MAX_JWKS_KEYS)
        .collect();
    if rsa.is_empty() {
        return Err("JWKS: no usable RS256 signing key".into());
    }
    Ok(JwtKey::Rs256(rsa))
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

/// An RSA private key from a PKCS#8 PEM file (`openssl genpkey -algorithm RSA`), for the
/// `token` and `jwk` helper commands; the bridge itself never needs it.
pub fn rsa_private_key(pem: &str) -> Result<RsaKeyPair, String> {
    let body: String = pem
        .lines()
        .skip_while(|l| !l.starts_with("-----BEGIN PRIVATE KEY-----"))
        .skip(1)
        .take_while(|l| !l.starts_with("-----END"))
        .collect();
    if body.is_empty() {
        return Err("not a PKCS#8 PEM private key (-----BEGIN PRIVATE KEY-----)".into());
    }
    let der = STANDARD
        .decode(body.trim())
        .map_err(|_| "the PEM body is not base64")?;
    RsaKeyPair::from_pkcs8(&der).map_err(|e| format!("not a usable RSA key: {e}"))
}

/// The public JWK of an RSA key pair (what `--jwt-secret-file` takes for RS256).
pub fn public_jwk(key: &RsaKeyPair, kid: Option<&str>) -> Value {
    let c: ring::rsa::PublicKeyComponents<Vec<u8>> = key.public().into();
    let mut jwk = serde_json::json!({
        "kty": "RSA", "alg": "RS256", "use": "sig",
        "n": URL_SAFE_NO_PAD.encode(&c.n), "e": URL_SAFE_NO_PAD.encode(&c.e),
    });
    if let Some(kid) = kid {
        jwk["kid"] = Value::from(kid);
    }
    jwk
}

/// Sign claims with RS256 (for tests and the `token` helper command).
pub fn sign_rs256(claims: &Value, key: &RsaKeyPair, kid: Option<&str>) -> Result<String, String> {
    let mut header = serde_json::json!({"alg": "RS256", "typ": "JWT"});
    if let Some(kid) = kid {
        header["kid"] = Value::from(kid);
    }
    let h = URL_SAFE_NO_PAD.encode(header.to_string());
    let p = URL_SAFE_NO_PAD.encode(claims.to_string());
    let signed = format!("{h}.{p}");
    let mut sig = vec![0u8; key.public().modulus_len()];
    key.sign(
        &ring::signature::RSA_PKCS1_SHA256,
        &ring::rand::SystemRandom::new(),
        signed.as_bytes(),
        &mut sig,
    )
    .map_err(|_| "RSA signing failed")?;
    Ok(format!("{signed}.{}", URL_SAFE_NO_PAD.encode(sig)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const KEY: &[u8] = b"a-test-key-of-at-least-32-bytes!!";
    const RSA_A: &str = include_str!("../tests/fixtures/rs256_test_key_a.pem");
    const RSA_B: &str = include_str!("../tests/fixtures/rs256_test_key_b.pem");

    fn hs(k: &[u8]) -> JwtKey {
        JwtKey::Hs256(k.to_vec())
    }

    /// The public key of a fixture as the bridge reads it (a JWK file's content).
    fn rs(pem: &str, kid: Option<&str>) -> JwtKey {
        let jwk = public_jwk(&rsa_private_key(pem).unwrap(), kid);
        parse_key(jwk.to_string().as_bytes()).unwrap()
    }

    #[test]
    fn a_signed_token_names_its_role() {
        let t = sign(&json!({"role": "analyst", "exp": 2000}), KEY);
        assert_eq!(verify(&t, &hs(KEY), 1000).unwrap().role, "analyst");
    }

    /// The token with its payload replaced by `{"role":"admin"}`, header and signature kept.
    fn as_admin(t: &str) -> String {
        let parts: Vec<&str> = t.split('.').collect();
        format!(
            "{}.{}.{}",
            parts[0],
            URL_SAFE_NO_PAD.encode(r#"{"role":"admin"}"#),
            parts[2]
        )
    }

    #[test]
    fn tampering_wrong_keys_and_other_algorithms_are_refused() {
        let t = sign(&json!({"role": "analyst"}), KEY);
        // role A's token edited to say role B: the signature no longer matches
        let forged = as_admin(&t);
        assert_eq!(
            verify(&forged, &hs(KEY), 0).unwrap_err().0,
            "invalid token signature"
        );
        assert!(verify(&t, &hs(b"another-key-another-key-another!!"), 0).is_err());
        let none = format!(
            "{}.{}.",
            URL_SAFE_NO_PAD.encode(r#"{"alg":"none"}"#),
            URL_SAFE_NO_PAD.encode(r#"{"role":"admin"}"#)
        );
        assert!(verify(&none, &hs(KEY), 0).is_err());
        assert!(verify("a.b", &hs(KEY), 0).is_err());
        assert!(verify("a.b.c.d", &hs(KEY), 0).is_err());
        assert!(verify(&"x".repeat(10_000), &hs(KEY), 0).is_err());
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
        assert_eq!(verify(&t, &hs(KEY), 2000).unwrap_err().0, "token expired");
        let t = sign(&json!({"role": "a", "nbf": 5000}), KEY);
        assert_eq!(
            verify(&t, &hs(KEY), 1000).unwrap_err().0,
            "token not yet valid"
        );
        let t = sign(&json!({"sub": "a"}), KEY);
        assert_eq!(
            verify(&t, &hs(KEY), 0).unwrap_err().0,
            "token has no role claim"
        );
        let t = sign(&json!({"role": ""}), KEY);
        assert!(verify(&t, &hs(KEY), 0).is_err());
        let t = sign(&json!({"role": "a", "exp": "soon"}), KEY);
        assert!(verify(&t, &hs(KEY), 0).is_err());
    }

    /// A token with `header` as its JOSE header, signed with KEY.
    fn with_header(header: &Value, claims: &Value) -> String {
        let h = URL_SAFE_NO_PAD.encode(header.to_string());
        let p = URL_SAFE_NO_PAD.encode(claims.to_string());
        let mut mac = Hmac::<Sha256>::new_from_slice(KEY).unwrap();
        mac.update(format!("{h}.{p}").as_bytes());
        let s = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
        format!("{h}.{p}.{s}")
    }

    #[test]
    fn critical_extensions_are_refused() {
        let claims = json!({"role": "a"});
        for crit in [json!(["exp"]), json!(["b64"]), json!([]), json!("x")] {
            let t = with_header(
                &json!({"alg": "HS256", "crit": crit, "b64": false}),
                &claims,
            );
            assert!(
                verify(&t, &hs(KEY), 0).unwrap_err().0.contains("crit"),
                "{crit}"
            );
        }
        let t = with_header(&json!({"alg": "HS256", "typ": "JWT"}), &claims);
        assert_eq!(verify(&t, &hs(KEY), 0).unwrap().role, "a");
    }

    #[test]
    fn audience_and_issuer_are_checked_when_configured() {
        let want = Expected {
            audience: Some("pg_mcp".into()),
            issuer: Some("https://idp".into()),
        };
        let ok = |c: Value| verify_with(&sign(&c, KEY), &hs(KEY), 0, &want);
        assert!(ok(json!({"role": "a", "aud": "pg_mcp", "iss": "https://idp"})).is_ok());
        assert!(ok(json!({"role": "a", "aud": ["x", "pg_mcp"], "iss": "https://idp"})).is_ok());
        for bad in [
            json!({"role": "a", "iss": "https://idp"}),
            json!({"role": "a", "aud": "other", "iss": "https://idp"}),
            json!({"role": "a", "aud": ["x"], "iss": "https://idp"}),
            json!({"role": "a", "aud": "pg_mcp"}),
            json!({"role": "a", "aud": "pg_mcp", "iss": "https://evil"}),
        ] {
            assert!(ok(bad.clone()).is_err(), "{bad}");
        }
        // not configured: neither claim is needed
        let t = sign(&json!({"role": "a", "aud": "anything"}), KEY);
        assert!(verify(&t, &hs(KEY), 0).is_ok());
    }

    #[test]
    fn rs256_tokens_verify_with_the_public_jwk_only() {
        let a = rsa_private_key(RSA_A).unwrap();
        let t = sign_rs256(&json!({"role": "analyst", "exp": 2000}), &a, None).unwrap();
        assert_eq!(verify(&t, &rs(RSA_A, None), 1000).unwrap().role, "analyst");
        // another key pair's public key does not verify it
        assert_eq!(
            verify(&t, &rs(RSA_B, None), 1000).unwrap_err().0,
            "invalid token signature"
        );
        // role A's token edited to say role B
        let forged = as_admin(&t);
        assert_eq!(
            verify(&forged, &rs(RSA_A, None), 0).unwrap_err().0,
            "invalid token signature"
        );
        // time claims as for HS256
        assert_eq!(
            verify(&t, &rs(RSA_A, None), 5000).unwrap_err().0,
            "token expired"
        );
    }

    #[test]
    fn algorithm_confusion_is_refused_both_ways() {
        let a = rsa_private_key(RSA_A).unwrap();
        let jwk = public_jwk(&a, None).to_string();
        // the classic attack: an HS256 token whose HMAC key is the server's public key text
        let confused = sign(&json!({"role": "admin"}), jwk.as_bytes());
        assert_eq!(
            verify(&confused, &rs(RSA_A, None), 0).unwrap_err().0,
            "unsupported token algorithm (RS256 expected)"
        );
        // an RS256 token against an HS256 bridge
        let t = sign_rs256(&json!({"role": "a"}), &a, None).unwrap();
        assert_eq!(
            verify(&t, &hs(KEY), 0).unwrap_err().0,
            "unsupported token algorithm (HS256 expected)"
        );
        let none = format!(
            "{}.{}.",
            URL_SAFE_NO_PAD.encode(r#"{"alg":"none"}"#),
            URL_SAFE_NO_PAD.encode(r#"{"role":"admin"}"#)
        );
        assert!(verify(&none, &rs(RSA_A, None), 0).is_err());
        let ps = format!(
            "{}.{}.AAAA",
            URL_SAFE_NO_PAD.encode(r#"{"alg":"PS256"}"#),
            URL_SAFE_NO_PAD.encode(r#"{"role":"admin"}"#)
        );
        assert!(verify(&ps, &rs(RSA_A, None), 0).is_err());
    }

    #[test]
    fn a_jwks_picks_the_key_by_kid() {
        let (a, b) = (
            rsa_private_key(RSA_A).unwrap(),
            rsa_private_key(RSA_B).unwrap(),
        );
        let jwks = json!({"keys": [public_jwk(&a, Some("ka")), public_jwk(&b, Some("kb"))]});
        let key = parse_key(jwks.to_string().as_bytes()).unwrap();
        let tb = sign_rs256(&json!({"role": "rb"}), &b, Some("kb")).unwrap();
        assert_eq!(verify(&tb, &key, 0).unwrap().role, "rb");
        // without kid: each key is tried
        let ta = sign_rs256(&json!({"role": "ra"}), &a, None).unwrap();
        assert_eq!(verify(&ta, &key, 0).unwrap().role, "ra");
        // B's signature under A's kid, and an unknown kid
        let wrong = sign_rs256(&json!({"role": "rb"}), &b, Some("ka")).unwrap();
        assert_eq!(
            verify(&wrong, &key, 0).unwrap_err().0,
            "invalid token signature"
        );
        let unknown = sign_rs256(&json!({"role": "rb"}), &b, Some("kz")).unwrap();
        assert_eq!(verify(&unknown, &key, 0).unwrap_err().0, "unknown key id");
    }

    #[test]
    fn key_files_are_checked() {
        assert!(matches!(
            parse_key(b"a-test-key-of-at-least-32-bytes!!\n").unwrap(),
            JwtKey::Hs256(k) if k == KEY
        ));
        assert!(parse_key(b"short").is_err());
        let oct = json!({"kty": "oct", "k": URL_SAFE_NO_PAD.encode(KEY)});
        assert!(matches!(
            parse_key(oct.to_string().as_bytes()).unwrap(),
            JwtKey::Hs256(_)
        ));
        for bad in [
            json!({"kty": "EC", "crv": "P-256"}),
            json!({"kty": "RSA", "n": "AQAB"}),
            json!({"kty": "RSA", "n": "AQAB", "e": "AQAB"}), // 24-bit modulus
            json!({"kty": "RSA", "alg": "RS512", "n": "AQAB", "e": "AQAB"}),
            json!({"kty": "oct", "k": "c2hvcnQ"}),
            json!({"keys": []}),
            json!({"keys": [{"kty": "oct", "k": URL_SAFE_NO_PAD.encode(KEY)}]}),
        ] {
            let e = parse_key(bad.to_string().as_bytes()).unwrap_err();
            assert!(
                e.starts_with("JW") || e.contains("at least 32 bytes"),
                "{bad}: {e}"
            );
        }
        assert!(parse_key(b"{not json").is_err());
        assert!(
            rsa_private_key("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----").is_err()
        );
    }
}
