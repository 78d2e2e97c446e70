//! The SHA-256 of a provider executable: the schema cache's key.
//!
//! Provider executables are large (hashicorp/aws 5.100.0 is 707 MB), so
//! a digest is remembered per file, next to the cache, under the file's
//! identity: canonical path, device, inode, size, and modification and
//! status-change times to the nanosecond. Any write to the file changes
//! the status-change time, which no user call can set back, so a
//! remembered digest is used only for the exact file it was computed
//! from. The identity is read before and after hashing, and a file that
//! changed meanwhile is not remembered.

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};
use std::fmt;
use std::io::{self, Read};
use std::path::Path;

/// A SHA-256 digest.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Digest(pub [u8; 32]);

impl Digest {
    /// Lower-case hex, as the cache names entries.
    pub fn hex(&self) -> String {
        let mut out = String::with_capacity(64);
        for byte in self.0 {
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        }
        out
    }

    pub fn parse_hex(text: &str) -> Option<Digest> {
        let bytes = text.as_bytes();
        if bytes.len() != 64 {
            return None;
        }
        let mut out = [0u8; 32];
        for (i, pair) in bytes.chunks(2).enumerate() {
            let nibble = |b: u8| match b {
                b'0'..=b'9' => Some(b - b'0'),
                b'a'..=b'f' => Some(b - b'a' + 10),
                _ => None,
            };
            out[i] = nibble(pair[0])? << 4 | nibble(pair[1])?;
        }
        Some(Digest(out))
    }

    pub fn of_bytes(bytes: &[u8]) -> Digest {
        Digest(Sha256::digest(bytes).into())
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({})", self.hex())
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.hex())
    }
}

/// Reads the whole file and hashes it.
pub fn sha256_file(path: &Path) -> io::Result<Digest> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let n = match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buffer[..n]);
    }
    Ok(Digest(hasher.finalize().into()))
}

/// What identifies one version of one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileIdentity {
    pub path: String,
    pub dev: u64,
    pub ino: u64,
    pub len: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
}

impl FileIdentity {
    /// `None` where the platform does not give status-change times, so
    /// that digests are never remembered there.
    pub fn of(path: &Path) -> Option<FileIdentity> {
        let canonical = std::fs::canonicalize(path).ok()?;
        let meta = std::fs::metadata(&canonical).ok()?;
        identity_from(&canonical, &meta)
    }
}

#[cfg(unix)]
fn identity_from(canonical: &Path, meta: &std::fs::Metadata) -> Option<FileIdentity> {
    use std::os::unix::fs::MetadataExt;
    let ns = |secs: i64, nanos: i64| i128::from(secs) * 1_000_000_000 + i128::from(nanos);
    Some(FileIdentity {
        path: canonical.to_str()?.to_string(),
        dev: meta.dev(),
        ino: meta.ino(),
        len: meta.len(),
        mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
        ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
    })
}

#[cfg(not(unix))]
fn identity_from(_canonical: &Path, _meta: &std::fs::Metadata) -> Option<FileIdentity> {
    None
}

/// How long after its last change a file's digest may be remembered. File
/// times come from a coarse clock (a few milliseconds), so a file changed
/// again within the same tick could keep its times; once this much time
/// has passed, any further change gets different times.
const SETTLE_NS: i128 = 2_000_000_000;

impl FileIdentity {
    /// Whether the file last changed long enough before `now_ns` (Unix
    /// nanoseconds) for its identity to tell every later change apart.
    pub fn is_settled(&self, now_ns: i128) -> bool {
        let last_change = self.ctime_ns.max(self.mtime_ns);
        last_change <= now_ns - SETTLE_NS
    }
}

/// Now, in Unix nanoseconds.
pub(crate) fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0)
}

/// A remembered digest, as stored.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Remembered {
    pub format: u32,
    pub file: FileIdentity,
    pub sha256: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip_and_known_digest() {
        let d = Digest::of_bytes(b"abc");
        assert_eq!(
            d.hex(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(Digest::parse_hex(&d.hex()), Some(d));
        for bad in ["", "zz", &d.hex().to_uppercase(), &d.hex()[1..]] {
            assert_eq!(Digest::parse_hex(bad), None, "{bad}");
        }
    }

    #[test]
    fn file_digest_matches_bytes() {
        let tmp = crate::store::tests::TempDir::new("digest");
        let path = tmp.path().join("f");
        // Longer than one read buffer, so chunking is exercised.
        let data: Vec<u8> = (0..(3 << 20) + 17).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        assert_eq!(sha256_file(&path).unwrap(), Digest::of_bytes(&data));
        assert!(sha256_file(&tmp.path().join("missing")).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn identity_changes_with_the_file() {
        let tmp = crate::store::tests::TempDir::new("identity");
        let path = tmp.path().join("f");
        std::fs::write(&path, b"one").unwrap();
        let first = FileIdentity::of(&path).unwrap();
        assert_eq!(FileIdentity::of(&path), Some(first.clone()));
        // Through a symlink it is the same file.
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert_eq!(FileIdentity::of(&link), Some(first.clone()));
        // Rewritten in place with another length.
        std::fs::write(&path, b"three").unwrap();
        let rewritten = FileIdentity::of(&path).unwrap();
        assert_ne!(rewritten.len, first.len);
        // Replaced by another file (what installers do).
        let other = tmp.path().join("g");
        std::fs::write(&other, b"three").unwrap();
        std::fs::rename(&other, &path).unwrap();
        let replaced = FileIdentity::of(&path).unwrap();
        assert_ne!(replaced.ino, rewritten.ino);
    }

    #[test]
    fn recent_changes_are_not_settled() {
        let identity = |ctime_s: i128, mtime_s: i128| FileIdentity {
            path: "/p".into(),
            dev: 1,
            ino: 2,
            len: 3,
            mtime_ns: mtime_s * 1_000_000_000,
            ctime_ns: ctime_s * 1_000_000_000,
        };
        let now = 1_000 * 1_000_000_000;
        assert!(identity(900, 800).is_settled(now));
        assert!(!identity(999, 800).is_settled(now));
        assert!(!identity(900, 999).is_settled(now));
        // A clock set back is no reason to trust anything.
        assert!(!identity(1_500, 800).is_settled(now));
    }
}
