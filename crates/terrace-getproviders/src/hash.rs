//! Provider package checksums as the lock file records them:
//!
//! - `h1:` — Go's `dirhash.Hash1` over the package's files: the SHA-256 of
//!   a summary listing, for every file sorted by slash-separated relative
//!   name, its content's hex SHA-256, two spaces, the name and a newline;
//!   base64 (standard alphabet). It hashes an unpacked directory and the
//!   same files read out of a `.zip` identically, so one lock entry checks
//!   both.
//! - `zh:` — the hex SHA-256 of the `.zip` archive itself, the form
//!   registries publish in their `SHA256SUMS` files.
//!
//! Other schemes are kept as opaque strings, so lock files written by newer
//! tools still round-trip.

use crate::goerr::path_error;
use crate::zip::ZipArchive;
use sha2::{Digest, Sha256};
use std::fmt;
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// One checksum string, `scheme:value`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hash(String);

/// The two schemes terrace computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashScheme {
    /// `h1:`, the hash of the unpacked contents.
    H1,
    /// `zh:`, the hash of the zip archive.
    Zip,
    /// Any other scheme: recorded and kept, never matched.
    Other,
}

impl Hash {
    /// OpenTofu's `ParseHash`: anything with a non-empty scheme before a
    /// colon.
    pub fn parse(s: &str) -> Result<Hash, String> {
        match s.find(':') {
            Some(i) if i >= 1 => Ok(Hash(s.to_string())),
            _ => Err("hash string must start with a scheme keyword followed by a colon".into()),
        }
    }

    pub fn h1(value: &str) -> Hash {
        Hash(format!("h1:{value}"))
    }

    pub fn zh(value: &str) -> Hash {
        Hash(format!("zh:{value}"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn scheme(&self) -> HashScheme {
        if self.0.starts_with("h1:") {
            HashScheme::H1
        } else if self.0.starts_with("zh:") {
            HashScheme::Zip
        } else {
            HashScheme::Other
        }
    }

    /// The part after the scheme's colon.
    pub fn value(&self) -> &str {
        match self.0.find(':') {
            Some(i) => &self.0[i + 1..],
            None => "",
        }
    }
}

impl fmt::Display for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The `zh:` hash for an archive whose SHA-256 is already known (from a
/// registry's `SHA256SUMS`).
pub fn zh_from_sha256(sum: &[u8; 32]) -> Hash {
    Hash::zh(&hex(sum))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `h1:` of the files under `dir` (symbolic links to files are followed;
/// `dir` itself may be a link, as in `.terraform/providers`).
pub fn h1_dir(dir: &Path) -> Result<Hash, String> {
    h1_dir_with(dir, &|path: &Path| {
        let mut f = std::fs::File::open(path).map_err(|e| path_error("open", path, &e))?;
        sha256_reader(&mut f).map_err(|e| path_error("read", path, &e))
    })
}

/// [`h1_dir`] with each file's SHA-256 from `file_sha256`, so that a
/// caller that remembers digests of unchanged files need not reread
/// them (a provider executable can be hundreds of megabytes).
pub fn h1_dir_with(
    dir: &Path,
    file_sha256: &dyn Fn(&Path) -> Result<[u8; 32], String>,
) -> Result<Hash, String> {
    let real = dir
        .canonicalize()
        .map_err(|e| path_error("lstat", dir, &e))?;
    let mut files = Vec::new();
    walk_files(&real, Vec::new(), &mut files)?;
    files.sort();
    let mut summary = Sha256::new();
    for name in &files {
        if name.contains(&b'\n') {
            return Err("dirhash: filenames with newlines are not supported".into());
        }
        let path = real.join(std::ffi::OsStr::from_bytes(name));
        let sum = file_sha256(&path)?;
        summary.update(format!("{}  ", hex(&sum)).as_bytes());
        summary.update(name);
        summary.update(b"\n");
    }
    Ok(Hash::h1(&base64_std(&summary.finalize())))
}

fn walk_files(dir: &Path, prefix: Vec<u8>, out: &mut Vec<Vec<u8>>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| path_error("open", dir, &e))?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| path_error("readdirent", dir, &e))?;
        names.push(entry.file_name());
    }
    names.sort();
    for name in names {
        let path = dir.join(&name);
        let meta = std::fs::symlink_metadata(&path).map_err(|e| path_error("lstat", &path, &e))?;
        let mut rel = prefix.clone();
        if !rel.is_empty() {
            rel.push(b'/');
        }
        rel.extend_from_slice(name.as_bytes());
        if meta.is_dir() {
            walk_files(&path, rel, out)?;
        } else {
            out.push(rel);
        }
    }
    Ok(())
}

/// `h1:` of the files inside a zip archive, as Go's `dirhash.HashZip`
/// computes it (directory entries count as empty files; a name that
/// appears twice is listed twice with the last entry's content).
pub fn h1_zip(path: &Path) -> Result<Hash, String> {
    let real = path
        .canonicalize()
        .map_err(|e| path_error("lstat", path, &e))?;
    let mut archive = ZipArchive::open(&real).map_err(|e| e.0)?;
    let entries = archive.entries.clone();
    let mut names: Vec<&[u8]> = entries.iter().map(|e| e.name.as_slice()).collect();
    names.sort();
    let mut summary = Sha256::new();
    for name in names {
        if name.contains(&b'\n') {
            return Err("dirhash: filenames with newlines are not supported".into());
        }
        let entry = entries
            .iter()
            .rev()
            .find(|e| e.name == name)
            .ok_or_else(|| format!("file {:?} not found in zip", String::from_utf8_lossy(name)))?;
        let mut hasher = HashWriter(Sha256::new());
        archive.copy_entry(entry, &mut hasher).map_err(|e| e.0)?;
        summary.update(format!("{}  ", hex(&hasher.0.finalize())).as_bytes());
        summary.update(name);
        summary.update(b"\n");
    }
    Ok(Hash::h1(&base64_std(&summary.finalize())))
}

/// `zh:` of a zip archive: the SHA-256 of its bytes.
pub fn zh_zip(path: &Path) -> Result<Hash, String> {
    let real = path
        .canonicalize()
        .map_err(|e| path_error("lstat", path, &e))?;
    let mut f = std::fs::File::open(&real).map_err(|e| path_error("open", &real, &e))?;
    let sum = sha256_reader(&mut f).map_err(|e| path_error("read", &real, &e))?;
    Ok(zh_from_sha256(&sum))
}

pub fn sha256_reader(r: &mut dyn Read) -> io::Result<[u8; 32]> {
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => h.update(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(h.finalize().into())
}

struct HashWriter(Sha256);

impl Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Standard base64 with padding, as Go's `base64.StdEncoding` writes it.
pub fn base64_std(data: &[u8]) -> String {
    terrace_gocompat::base64::encode(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::TempDir;

    fn ok<T>(r: Result<T, String>) -> T {
        match r {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn parse() {
        assert_eq!(ok(Hash::parse("h1:abc")).scheme(), HashScheme::H1);
        assert_eq!(ok(Hash::parse("zh:abc")).scheme(), HashScheme::Zip);
        assert_eq!(ok(Hash::parse("x9:abc")).scheme(), HashScheme::Other);
        assert_eq!(ok(Hash::parse("h1:abc")).value(), "abc");
        for bad in ["", ":abc", "abc"] {
            assert_eq!(
                Hash::parse(bad),
                Err("hash string must start with a scheme keyword followed by a colon".into())
            );
        }
    }

    #[test]
    fn base64_matches_std_encoding() {
        for (data, want) in [
            (&b""[..], ""),
            (b"f", "Zg=="),
            (b"fo", "Zm8="),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg=="),
            (b"\xff\xfe\xfd", "//79"),
        ] {
            assert_eq!(base64_std(data), want);
        }
    }

    /// The hashes Terraform 1.11.4 wrote into `.terraform.lock.hcl` for
    /// the same files in a filesystem mirror (see testdata/README.md).
    #[test]
    fn h1_matches_terraform_for_dirs_and_zips() {
        let dir = TempDir::new("h1");
        dir.write_mode(
            "null/terraform-provider-null_v1.1.0_x5",
            b"#!/bin/sh\necho hi\n",
            0o755,
        );
        assert_eq!(
            ok(h1_dir(&dir.path().join("null"))).as_str(),
            "h1:qLat4+sjXCnceqLAQ9yonijar9Jfnl43+Wc/ctHCGGY="
        );

        let zip =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/widget_2.0.0_linux_amd64.zip");
        let want = "h1:V3Us0DV4KR70MFGENOE0wh3LCGjbIEJ9oUM9yAPMlxY=";
        assert_eq!(ok(h1_zip(&zip)).as_str(), want);
        assert_eq!(
            ok(zh_zip(&zip)).as_str(),
            "zh:94ae73cb5d2f4eced53953896d995a1a7f79cd5d09353e9db1289a10412ff49e"
        );
        // The same files unpacked hash the same.
        dir.write_mode(
            "widget/terraform-provider-widget_v2.0.0",
            b"#!/bin/sh\necho widget\n",
            0o755,
        );
        dir.write_mode("widget/docs/README.md", b"readme\n", 0o644);
        assert_eq!(ok(h1_dir(&dir.path().join("widget"))).as_str(), want);
        // Through a symbolic link, as in .terraform/providers.
        let link = dir.path().join("link");
        if let Err(e) = std::os::unix::fs::symlink(dir.path().join("widget"), &link) {
            panic!("{e}");
        }
        assert_eq!(ok(h1_dir(&link)).as_str(), want);
    }

    /// The image's aws provider (700 MB), whose `h1:` Terraform 1.11.4
    /// wrote into testdata/aws_two_modules.terraform.lock.hcl.
    #[test]
    fn h1_of_the_images_aws_provider() {
        let dir = Path::new(terrace_testsupport::AWS_PROVIDER_PACKAGE);
        if !terrace_testsupport::require_aws_provider_package() {
            return;
        }
        assert_eq!(
            ok(h1_dir(dir)).as_str(),
            "h1:edXOJWE4ORX8Fm+dpVpICzMZJat4AX0VRCAy/xkcOc0="
        );
    }

    #[test]
    fn empty_dir_and_errors() {
        let dir = TempDir::new("h1-empty");
        assert_eq!(
            ok(h1_dir(dir.path())).as_str(),
            "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
        );
        let missing = dir.path().join("missing");
        assert_eq!(
            h1_dir(&missing),
            Err(format!(
                "lstat {}: no such file or directory",
                missing.display()
            ))
        );
    }

    #[test]
    fn zip_directory_entries_count_as_empty_files() {
        let dir = TempDir::new("h1-zipdir");
        let zip = dir.path().join("p.zip");
        crate::zip::tests::write_stored_zip(&zip, &[("a/", b"", 0o755), ("a/b", b"x", 0o644)]);
        dir.write_mode("u/a/b", b"x", 0o644);
        // With the directory entry the archive's hash differs from the
        // unpacked directory's, exactly as Go's dirhash.HashZip does.
        let summary = format!(
            "{}  a/\n{}  a/b\n",
            hex(&Sha256::digest(b"")),
            hex(&Sha256::digest(b"x"))
        );
        let want = Hash::h1(&base64_std(&Sha256::digest(summary.as_bytes())));
        assert_eq!(ok(h1_zip(&zip)), want);
        assert_ne!(ok(h1_dir(&dir.path().join("u"))), want);
    }
}
