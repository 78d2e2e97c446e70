//! Checks a downloaded package must pass before it is installed, and what
//! they prove about its checksums (which of them the lock file may then
//! record).
//!
//! A registry package is accepted when, in order: the archive's SHA-256 is
//! the one the registry announced; that checksum is listed for the
//! package's file name in the release's `SHA256SUMS` document; and the
//! document carries a valid OpenPGP signature by one of the signing keys
//! the registry lists for the provider. Every checksum in a signed
//! document is then trusted, which is how lock files come to hold `zh:`
//! hashes for every platform.

use crate::hash::{hex, zh_from_sha256, Hash};
use crate::openpgp;
use std::path::Path;

/// One signing key a registry lists for a provider.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SigningKey {
    /// The ASCII-armored public key.
    pub ascii_armor: String,
    /// A trust signature (partner keys), kept but not evaluated.
    pub trust_signature: String,
}

/// The checks a source asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackageAuthentication {
    /// A registry's announced checksum, checksum document and signature.
    Signed(SignedChecksums),
    /// A network mirror's list of acceptable hashes: the package must
    /// match one of them.
    Hashes(Vec<Hash>),
}

/// What a registry announces about a package.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedChecksums {
    /// The archive file name the checksum document should list.
    pub filename: String,
    /// The archive SHA-256 the registry announced.
    pub sha256: [u8; 32],
    /// The `SHA256SUMS` document.
    pub document: Vec<u8>,
    /// Its detached signature (binary or armored).
    pub signature: Vec<u8>,
    pub keys: Vec<SigningKey>,
}

/// What is known about one checksum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HashDisposition {
    pub hash: Hash,
    /// Key IDs (upper-case hex) of the keys whose signature covers it.
    pub signed_by_key_ids: Vec<String>,
    pub reported_by_registry: bool,
    /// Computed from the package on this machine.
    pub verified_locally: bool,
}

/// The outcome of [`PackageAuthentication::authenticate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackageAuthenticationResult {
    pub hashes: Vec<HashDisposition>,
    /// The primary key ID of the key that signed, when one did.
    pub key_id: Option<String>,
}

/// HashiCorp's provider signing key, whose signatures Terraform reports as
/// "signed by HashiCorp".
pub const HASHICORP_KEY_ID: &str = "34365D9472D7468F";

impl PackageAuthenticationResult {
    pub fn signed(&self) -> bool {
        self.key_id.is_some()
    }

    /// How Terraform describes the result after "Installed X vN (...)".
    pub fn describe(&self) -> &'static str {
        match self.key_id.as_deref() {
            Some(HASHICORP_KEY_ID) => "signed by HashiCorp",
            Some(_) => "self-signed",
            None if self.hashes.iter().any(|h| h.verified_locally) => "verified checksum",
            None => "unauthenticated",
        }
    }

    /// Hashes computed locally.
    pub fn local_hashes(&self) -> Vec<Hash> {
        self.hashes
            .iter()
            .filter(|h| h.verified_locally)
            .map(|h| h.hash.clone())
            .collect()
    }

    /// Hashes covered by a valid signature.
    pub fn signed_hashes(&self) -> Vec<Hash> {
        self.hashes
            .iter()
            .filter(|h| !h.signed_by_key_ids.is_empty())
            .map(|h| h.hash.clone())
            .collect()
    }
}

impl PackageAuthentication {
    /// Checks the archive at `archive`, returning what the checks proved.
    pub fn authenticate(&self, archive: &Path) -> Result<PackageAuthenticationResult, String> {
        match self {
            PackageAuthentication::Signed(s) => s.authenticate(archive),
            PackageAuthentication::Hashes(allowed) => authenticate_hashes(allowed, archive),
        }
    }
}

/// OpenTofu's `packageHashAuthentication` for a downloaded archive.
fn authenticate_hashes(
    allowed: &[Hash],
    archive: &Path,
) -> Result<PackageAuthenticationResult, String> {
    use crate::hash::HashScheme;
    let usable: Vec<Hash> = allowed
        .iter()
        .filter(|h| h.scheme() != HashScheme::Other)
        .cloned()
        .collect();
    if usable.is_empty() {
        return Err(format!(
            "this version of {} does not support any of the checksum formats given for this provider",
            crate::PRODUCT
        ));
    }
    let location = crate::source::PackageLocation::LocalArchive(archive.to_path_buf());
    let mut hashes = Vec::new();
    for h in &usable {
        let matched = package_matches_any_hash(&location, std::slice::from_ref(h))
            .map_err(|e| format!("failed to verify provider package checksums: {e}"))?;
        if matched {
            hashes.push(HashDisposition {
                hash: h.clone(),
                signed_by_key_ids: Vec::new(),
                reported_by_registry: false,
                verified_locally: true,
            });
        }
    }
    if !hashes.is_empty() {
        return Ok(PackageAuthenticationResult {
            hashes,
            key_id: None,
        });
    }
    if usable.len() == 1 {
        return Err(format!(
            "provider package doesn't match the expected checksum {}",
            terrace_value::gostr::quote(usable[0].as_str())
        ));
    }
    Err("provider package doesn't match the any of the expected checksums".into())
}

impl SignedChecksums {
    /// Checks the archive at `archive`, returning what the checks proved.
    pub fn authenticate(&self, archive: &Path) -> Result<PackageAuthenticationResult, String> {
        // 1. The archive is what the registry said it would be.
        let mut f = std::fs::File::open(archive).map_err(|e| {
            format!(
                "failed to compute checksum for {}: {}",
                archive.display(),
                crate::goerr::path_error("open", archive, &e)
            )
        })?;
        let got = crate::hash::sha256_reader(&mut f).map_err(|e| {
            format!(
                "failed to compute checksum for {}: {}",
                archive.display(),
                crate::goerr::errno_text(&e)
            )
        })?;
        if got != self.sha256 {
            return Err(format!(
                "archive has incorrect checksum {} (expected {})",
                zh_from_sha256(&got),
                zh_from_sha256(&self.sha256)
            ));
        }
        // 2. The checksum document lists that checksum for this file.
        let listed = checksum_for(&self.document, &self.filename).ok_or_else(|| {
            format!(
                "checksum list has no SHA-256 hash for {}",
                terrace_value::gostr::quote(&self.filename)
            )
        })?;
        let mut want = [0u8; 32];
        if listed.len() != 64 || decode_hex(&listed, &mut want).is_err() {
            return Err(format!(
                "checksum list has invalid SHA256 hash {}: encoding/hex: invalid byte",
                terrace_value::gostr::quote(&listed)
            ));
        }
        if want != self.sha256 {
            return Err(format!(
                "checksum list has unexpected SHA-256 hash {} (expected {})",
                hex(&want),
                hex(&self.sha256)
            ));
        }
        // 3. The document is signed by one of the provider's keys.
        let key_id = self.find_signing_key().map_err(|e| {
            format!("the provider is not signed with a valid signing key; please contact the provider author ({e})")
        })?;
        let mut hashes: Vec<HashDisposition> = document_hashes(&self.document)
            .into_iter()
            .map(|hash| HashDisposition {
                hash,
                signed_by_key_ids: vec![key_id.clone()],
                reported_by_registry: true,
                verified_locally: false,
            })
            .collect();
        let local = zh_from_sha256(&got);
        match hashes.iter_mut().find(|h| h.hash == local) {
            Some(h) => h.verified_locally = true,
            None => hashes.push(HashDisposition {
                hash: local,
                signed_by_key_ids: Vec::new(),
                reported_by_registry: true,
                verified_locally: true,
            }),
        }
        Ok(PackageAuthenticationResult {
            hashes,
            key_id: Some(key_id),
        })
    }

    fn find_signing_key(&self) -> Result<String, String> {
        for key in &self.keys {
            let keyring = openpgp::read_armored_key_ring(&key.ascii_armor)
                .map_err(|e| format!("error decoding signing key: {e}"))?;
            match openpgp::check_detached_signature(&keyring, &self.document, &self.signature) {
                Ok(id) => return Ok(id),
                Err(openpgp::SignatureError::UnknownIssuer) => continue,
                Err(e) => return Err(format!("error checking signature: {e}")),
            }
        }
        Err("authentication signature from unknown issuer".into())
    }
}

/// The checksum a `SHA256SUMS` document lists for `filename`.
fn checksum_for(document: &[u8], filename: &str) -> Option<String> {
    String::from_utf8_lossy(document).lines().find_map(|line| {
        let mut parts = line.split_whitespace();
        let sum = parts.next()?;
        let name = parts.next()?;
        (name == filename).then(|| sum.to_string())
    })
}

/// Every checksum in a `SHA256SUMS` document as `zh:` hashes, or none if
/// it does not look like one.
fn document_hashes(document: &[u8]) -> Vec<Hash> {
    let mut out = Vec::new();
    for line in String::from_utf8_lossy(document).lines() {
        let parts: Vec<&str> = line.split_whitespace().collect();
        if parts.is_empty() {
            continue;
        }
        if parts.len() < 2 || parts[0].len() != 64 {
            return Vec::new();
        }
        let mut sum = [0u8; 32];
        if decode_hex(parts[0], &mut sum).is_err() {
            return Vec::new();
        }
        out.push(zh_from_sha256(&sum));
    }
    out
}

fn decode_hex(s: &str, out: &mut [u8]) -> Result<(), ()> {
    let b = s.as_bytes();
    if b.len() != out.len() * 2 {
        return Err(());
    }
    let val = |c: u8| match c {
        b'0'..=b'9' => Ok(c - b'0'),
        b'a'..=b'f' => Ok(c - b'a' + 10),
        b'A'..=b'F' => Ok(c - b'A' + 10),
        _ => Err(()),
    };
    for (i, o) in out.iter_mut().enumerate() {
        *o = (val(b[2 * i])? << 4) | val(b[2 * i + 1])?;
    }
    Ok(())
}

/// Whether a package matches one of `allowed` (`h1:` over the contents,
/// `zh:` over the archive; `zh:` cannot be checked for an unpacked
/// directory). Hashes of other schemes never match.
pub fn package_matches_any_hash(
    location: &crate::source::PackageLocation,
    allowed: &[Hash],
) -> Result<bool, String> {
    use crate::hash::HashScheme;
    use crate::source::PackageLocation;
    let mut h1: Option<Hash> = None;
    let mut zh: Option<Hash> = None;
    for want in allowed {
        let got = match (want.scheme(), location) {
            (HashScheme::H1, PackageLocation::LocalDir(p)) => {
                if h1.is_none() {
                    h1 = Some(crate::hash::h1_dir(p)?);
                }
                h1.as_ref()
            }
            (HashScheme::H1, PackageLocation::LocalArchive(p)) => {
                if h1.is_none() {
                    h1 = Some(crate::hash::h1_zip(p)?);
                }
                h1.as_ref()
            }
            (HashScheme::Zip, PackageLocation::LocalArchive(p)) => {
                if zh.is_none() {
                    zh = Some(crate::hash::zh_zip(p)?);
                }
                zh.as_ref()
            }
            _ => None,
        };
        if got == Some(want) {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests;
