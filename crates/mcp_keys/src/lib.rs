//! API keys at rest, the way pgsodium keeps them: the database holds only ciphertext, the key
//! that opens it lives in a file outside the database that only the server's OS user can read.
//!
//! * The **server key** is 256 bits, written as 64 hexadecimal digits in a file. The file is
//!   refused when group or world may access it, with PostgreSQL's own rule for `ssl_key_file`:
//!   owned by the server user with permissions 0600 or less, or owned by root with 0640 or less.
//! * Each provider key is sealed with **XChaCha20-Poly1305** (authenticated encryption; a random
//!   192-bit nonce per key, so random nonces never collide in practice). The provider's name is
//!   the associated data: a ciphertext copied to another provider's row does not open.
//! * A **key id** (16 hex digits of SHA-256 over a label and the key) is stored with each
//!   ciphertext, so a missing, wrong or rotated server key is named as such instead of
//!   surfacing as a generic authentication failure.
//!
//! No pgrx here: the pgrx layer supplies the file name (a GUC), the random nonce
//! (`pg_strong_random`) and maps the errors to SQLSTATEs.

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};
use sha2::{Digest, Sha256};
use std::fmt;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use zeroize::Zeroizing;

/// Bytes of a nonce (XChaCha20-Poly1305).
pub const NONCE_LEN: usize = 24;
/// Bytes of the authentication tag appended to each ciphertext.
pub const TAG_LEN: usize = 16;
/// Hex digits of a key id.
pub const KEY_ID_LEN: usize = 16;
/// Longest secret accepted (real API keys are well under 1 KiB).
pub const MAX_SECRET_BYTES: usize = 8192;
/// How a server key file is made (used in hints).
pub const MAKE_KEY_HINT: &str = "openssl rand -hex 32 > FILE && chmod 600 FILE";

/// Domain separation: the key id is not a hash of the bare key, and a ciphertext of this
/// format cannot be mistaken for anything else sealed with the same key.
const KEY_ID_LABEL: &[u8] = b"pg_mcp server key id v1\0";
const AAD_LABEL: &[u8] = b"pg_mcp provider api key v1\0";
/// A key file larger than this is not a key file.
const MAX_FILE_BYTES: u64 = 1024;

/// The server key, loaded from its file. The bytes are wiped when it is dropped.
pub struct ServerKey {
    key: Zeroizing<[u8; 32]>,
    id: String,
}

impl fmt::Debug for ServerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerKey").field("id", &self.id).finish()
    }
}

/// A sealed secret as stored in `mcp.provider_secret`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sealed {
    pub key_id: String,
    pub nonce: Vec<u8>,
    /// Ciphertext followed by the 16-byte tag.
    pub ciphertext: Vec<u8>,
}

/// Why a server key file is not usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyFileError {
    /// It cannot be opened or read (missing, no permission for the server user …).
    Unreadable { path: String, reason: String },
    /// It is a directory, a device, a pipe …
    NotRegularFile { path: String },
    /// Neither the server's OS user nor root owns it.
    WrongOwner { path: String },
    /// Group or world may access it.
    Permissions { path: String, mode: u32 },
    /// It does not hold 64 hexadecimal digits.
    BadContents { path: String },
}

impl KeyFileError {
    pub fn message(&self) -> String {
        match self {
            KeyFileError::Unreadable { path, reason } => {
                format!("server key file \"{path}\" cannot be read: {reason}")
            }
            KeyFileError::NotRegularFile { path } => {
                format!("server key file \"{path}\" is not a regular file")
            }
            KeyFileError::WrongOwner { path } => format!(
                "server key file \"{path}\" must be owned by the database server's user or root"
            ),
            KeyFileError::Permissions { path, mode } => format!(
                "server key file \"{path}\" has group or world access (permissions {:04o})",
                mode & 0o7777
            ),
            KeyFileError::BadContents { path } => {
                format!("server key file \"{path}\" does not hold a 256-bit key")
            }
        }
    }

    pub fn hint(&self) -> String {
        match self {
            KeyFileError::Unreadable { .. } | KeyFileError::NotRegularFile { .. } => {
                "mcp.server_key_file must name a file the PostgreSQL server's OS user can read (a relative path is relative to the data directory).".into()
            }
            KeyFileError::WrongOwner { .. } | KeyFileError::Permissions { .. } => {
                "The file must have permissions u=rw (0600) or less if owned by the database user, or permissions u=rw,g=r (0640) or less if owned by root.".into()
            }
            KeyFileError::BadContents { .. } => format!(
                "The file must contain 64 hexadecimal digits, optionally followed by a newline, e.g. made with: {MAKE_KEY_HINT}"
            ),
        }
    }
}

/// Why a sealed secret does not open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenError {
    /// Sealed with another server key than the configured one (rotated or wrong key file).
    OtherKey { stored: String, configured: String },
    /// The key id matches but authentication failed: the row was altered or moved to another
    /// provider.
    NotAuthentic,
    /// The stored nonce has the wrong length, or the plaintext is not UTF-8.
    Malformed,
}

/// Why a secret cannot be sealed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SealError {
    TooLong,
}

/// PostgreSQL's rule for private key files (`check_ssl_key_file_permissions`): owned by the
/// server user with no group/world bits, or owned by root with at most group read.
pub fn check_permissions(
    path: &str,
    file_uid: u32,
    mode: u32,
    server_uid: u32,
) -> Result<(), KeyFileError> {
    let path = path.to_string();
    if file_uid != server_uid && file_uid != 0 {
        return Err(KeyFileError::WrongOwner { path });
    }
    let bad_bits = if file_uid == server_uid {
        0o077
    } else {
        // root-owned: group may read (e.g. a group the server user belongs to)
        0o037
    };
    if mode & bad_bits != 0 {
        return Err(KeyFileError::Permissions { path, mode });
    }
    Ok(())
}

/// 64 hex digits (surrounding ASCII whitespace allowed) → the 32 key bytes.
pub fn parse_key(contents: &[u8]) -> Option<Zeroizing<[u8; 32]>> {
    let text = contents.trim_ascii();
    if text.len() != 64 {
        return None;
    }
    let mut key = Zeroizing::new([0u8; 32]);
    for (i, pair) in text.chunks(2).enumerate() {
        let hi = hex_value(pair[0])?;
        let lo = hex_value(pair[1])?;
        key[i] = (hi << 4) | lo;
    }
    Some(key)
}

fn hex_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// The effective user id of this process (the PostgreSQL server user inside a backend).
pub fn server_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

impl ServerKey {
    /// A key from its 32 bytes.
    pub fn from_bytes(key: Zeroizing<[u8; 32]>) -> Self {
        let mut h = Sha256::new();
        h.update(KEY_ID_LABEL);
        h.update(&key[..]);
        let digest = h.finalize();
        let id = digest[..KEY_ID_LEN / 2]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        ServerKey { key, id }
    }

    /// Load the key file: opened once, then checked on the open handle (no race between the
    /// check and the read), then parsed.
    pub fn load(path: &Path, server_uid: u32) -> Result<Self, KeyFileError> {
        let shown = path.display().to_string();
        let unreadable = |e: std::io::Error| KeyFileError::Unreadable {
            path: shown.clone(),
            reason: e.to_string(),
        };
        let file = std::fs::File::open(path).map_err(unreadable)?;
        let meta = file.metadata().map_err(unreadable)?;
        if !meta.is_file() {
            return Err(KeyFileError::NotRegularFile { path: shown });
        }
        check_permissions(&shown, meta.uid(), meta.mode(), server_uid)?;
        let mut buf = Zeroizing::new(Vec::with_capacity(128));
        file.take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut buf)
            .map_err(unreadable)?;
        if buf.len() as u64 > MAX_FILE_BYTES {
            return Err(KeyFileError::BadContents { path: shown });
        }
        let key = parse_key(&buf).ok_or(KeyFileError::BadContents { path: shown })?;
        Ok(Self::from_bytes(key))
    }

    /// The key id stored with every ciphertext sealed by this key.
    pub fn id(&self) -> &str {
        &self.id
    }

    fn cipher(&self) -> XChaCha20Poly1305 {
        XChaCha20Poly1305::new(&Key::from(*self.key))
    }

    /// Seal `secret` for `provider` with a fresh random `nonce` (the caller draws it from a
    /// cryptographic source; it must never be reused with the same key).
    pub fn seal(
        &self,
        provider: &str,
        secret: &str,
        nonce: [u8; NONCE_LEN],
    ) -> Result<Sealed, SealError> {
        if secret.len() > MAX_SECRET_BYTES {
            return Err(SealError::TooLong);
        }
        let aad = associated_data(provider);
        let ciphertext = self
            .cipher()
            .encrypt(
                &XNonce::from(nonce),
                Payload {
                    msg: secret.as_bytes(),
                    aad: &aad,
                },
            )
            .map_err(|_| SealError::TooLong)?;
        Ok(Sealed {
            key_id: self.id.clone(),
            nonce: nonce.to_vec(),
            ciphertext,
        })
    }

    /// Open a secret sealed for `provider`.
    pub fn open(&self, provider: &str, sealed: &Sealed) -> Result<String, OpenError> {
        if sealed.key_id != self.id {
            return Err(OpenError::OtherKey {
                stored: sealed.key_id.clone(),
                configured: self.id.clone(),
            });
        }
        let nonce: [u8; NONCE_LEN] = sealed
            .nonce
            .as_slice()
            .try_into()
            .map_err(|_| OpenError::Malformed)?;
        let aad = associated_data(provider);
        let plain = self
            .cipher()
            .decrypt(
                &XNonce::from(nonce),
                Payload {
                    msg: &sealed.ciphertext,
                    aad: &aad,
                },
            )
            .map_err(|_| OpenError::NotAuthentic)?;
        String::from_utf8(plain).map_err(|_| OpenError::Malformed)
    }
}

fn associated_data(provider: &str) -> Vec<u8> {
    let mut aad = AAD_LABEL.to_vec();
    aad.extend_from_slice(provider.as_bytes());
    aad
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    const HEX: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

    fn key() -> ServerKey {
        ServerKey::from_bytes(parse_key(HEX.as_bytes()).unwrap())
    }

    fn other_key() -> ServerKey {
        ServerKey::from_bytes(parse_key(HEX.replace('0', "f").as_bytes()).unwrap())
    }

    #[test]
    fn round_trip_and_the_ciphertext_hides_the_key() {
        let k = key();
        let s = k
            .seal("openai", "sk-live-SECRET-123", [7; NONCE_LEN])
            .unwrap();
        assert_eq!(s.key_id, k.id());
        assert_eq!(s.nonce.len(), NONCE_LEN);
        assert_eq!(s.ciphertext.len(), "sk-live-SECRET-123".len() + TAG_LEN);
        assert!(!s
            .ciphertext
            .windows(6)
            .any(|w| w == b"SECRET" || w == b"sk-liv"));
        assert_eq!(k.open("openai", &s).unwrap(), "sk-live-SECRET-123");
    }

    #[test]
    fn a_ciphertext_moved_to_another_provider_does_not_open() {
        let k = key();
        let s = k.seal("openai", "sk-1", [1; NONCE_LEN]).unwrap();
        assert_eq!(k.open("mistral", &s), Err(OpenError::NotAuthentic));
    }

    #[test]
    fn tampering_is_detected() {
        let k = key();
        let mut s = k.seal("p", "sk-1", [1; NONCE_LEN]).unwrap();
        s.ciphertext[0] ^= 1;
        assert_eq!(k.open("p", &s), Err(OpenError::NotAuthentic));
        let mut s = k.seal("p", "sk-1", [1; NONCE_LEN]).unwrap();
        s.nonce[3] ^= 1;
        assert_eq!(k.open("p", &s), Err(OpenError::NotAuthentic));
        s.nonce.pop();
        assert_eq!(k.open("p", &s), Err(OpenError::Malformed));
    }

    #[test]
    fn another_server_key_is_named_by_its_id() {
        let s = key().seal("p", "sk-1", [1; NONCE_LEN]).unwrap();
        let other = other_key();
        assert_ne!(other.id(), key().id());
        assert_eq!(
            other.open("p", &s),
            Err(OpenError::OtherKey {
                stored: key().id().into(),
                configured: other.id().into()
            })
        );
        // a forged key id does not help: authentication still fails
        let mut forged = s.clone();
        forged.key_id = other.id().into();
        assert_eq!(other.open("p", &forged), Err(OpenError::NotAuthentic));
    }

    #[test]
    fn nonces_differ_so_ciphertexts_differ() {
        let k = key();
        let a = k.seal("p", "sk-1", [1; NONCE_LEN]).unwrap();
        let b = k.seal("p", "sk-1", [2; NONCE_LEN]).unwrap();
        assert_ne!(a.ciphertext, b.ciphertext);
    }

    #[test]
    fn key_id_is_stable_and_short() {
        assert_eq!(key().id(), key().id());
        assert_eq!(key().id().len(), KEY_ID_LEN);
        assert!(key().id().bytes().all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn oversized_secrets_are_refused() {
        let long = "x".repeat(MAX_SECRET_BYTES + 1);
        assert_eq!(
            key().seal("p", &long, [0; NONCE_LEN]),
            Err(SealError::TooLong)
        );
    }

    #[test]
    fn key_text_format() {
        assert!(parse_key(format!("{HEX}\n").as_bytes()).is_some());
        assert!(parse_key(format!("  {}\r\n", HEX.to_uppercase()).as_bytes()).is_some());
        assert!(parse_key(&HEX.as_bytes()[..62]).is_none());
        assert!(parse_key(format!("{HEX}00").as_bytes()).is_none());
        assert!(parse_key(HEX.replace('a', "g").as_bytes()).is_none());
        assert!(parse_key(b"").is_none());
    }

    #[test]
    fn permission_rule_is_postgresqls_ssl_key_rule() {
        let me = 105;
        assert!(check_permissions("k", me, 0o100600, me).is_ok());
        assert!(check_permissions("k", me, 0o100400, me).is_ok());
        for mode in [0o100640, 0o100604, 0o100660, 0o100644, 0o100700 | 0o010] {
            assert!(
                matches!(
                    check_permissions("k", me, mode, me),
                    Err(KeyFileError::Permissions { .. })
                ),
                "{mode:o}"
            );
        }
        // root-owned: group read is fine, group write and any world bit are not
        assert!(check_permissions("k", 0, 0o100640, me).is_ok());
        assert!(check_permissions("k", 0, 0o100660, me).is_err());
        assert!(check_permissions("k", 0, 0o100644, me).is_err());
        // somebody else's file
        assert_eq!(
            check_permissions("k", 999, 0o100600, me),
            Err(KeyFileError::WrongOwner { path: "k".into() })
        );
    }

    fn temp_file(name: &str, contents: &[u8], mode: u32) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("mcp_keys_test_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, contents).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        p
    }

    #[test]
    fn loading_a_key_file() {
        let uid = server_uid();
        let good = temp_file("good.key", format!("{HEX}\n").as_bytes(), 0o600);
        assert_eq!(ServerKey::load(&good, uid).unwrap().id(), key().id());
        let open = temp_file("open.key", HEX.as_bytes(), 0o644);
        let e = ServerKey::load(&open, uid).unwrap_err();
        assert!(matches!(e, KeyFileError::Permissions { .. }), "{e:?}");
        assert!(e
            .message()
            .contains("group or world access (permissions 0644)"));
        let junk = temp_file("junk.key", b"not a key", 0o600);
        assert!(matches!(
            ServerKey::load(&junk, uid),
            Err(KeyFileError::BadContents { .. })
        ));
        let big = temp_file("big.key", &[b'a'; 4096], 0o600);
        assert!(matches!(
            ServerKey::load(&big, uid),
            Err(KeyFileError::BadContents { .. })
        ));
        let missing = good.with_file_name("missing.key");
        assert!(matches!(
            ServerKey::load(&missing, uid),
            Err(KeyFileError::Unreadable { .. })
        ));
        let dir = good.parent().unwrap();
        assert!(matches!(
            ServerKey::load(dir, uid),
            Err(KeyFileError::NotRegularFile { .. })
        ));
        // nothing in a message or hint repeats the key
        for e in [
            ServerKey::load(&open, uid).unwrap_err(),
            ServerKey::load(&junk, uid).unwrap_err(),
        ] {
            assert!(!e.message().contains(HEX) && !e.hint().contains(HEX));
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}
