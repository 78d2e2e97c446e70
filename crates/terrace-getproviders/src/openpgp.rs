//! Just enough OpenPGP (RFC 4880) to check a provider release's detached
//! signature: ASCII armor, the packet framing, v3/v4 public keys and
//! subkeys, v3/v4 signatures over binary or text documents, and RSA
//! PKCS#1 v1.5 verification with SHA-1/SHA-2.
//!
//! RSA is the only algorithm: provider registries accept RSA (and the
//! long-deprecated DSA) signing keys only, and HashiCorp's own key is
//! RSA. Doing this here keeps a full OpenPGP stack (and its many cipher
//! crates) out of the build; the big-integer arithmetic is `num-bigint`,
//! already used by the value layer. Key flags, expiry and binding
//! signatures are not evaluated: the registry that lists the keys is the
//! trust anchor, as in OpenTofu. Errors read like Go's openpgp package.

use num_bigint::BigUint;
use sha1::Sha1;
use sha2::{Digest, Sha224, Sha256, Sha384, Sha512};
use std::fmt;

/// A public key (primary or subkey).
#[derive(Clone, Debug)]
pub struct PublicKey {
    pub key_id: [u8; 8],
    /// `None` for algorithms terrace cannot verify.
    rsa: Option<(BigUint, BigUint)>,
}

/// One primary key with its subkeys.
#[derive(Clone, Debug)]
pub struct Entity {
    pub primary: PublicKey,
    pub subkeys: Vec<PublicKey>,
}

impl Entity {
    /// The primary key's ID as Go's `KeyIdString` prints it.
    pub fn key_id_string(&self) -> String {
        self.primary
            .key_id
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SignatureError {
    /// No key in the ring made the signature.
    UnknownIssuer,
    Invalid(String),
    Structural(String),
    Unsupported(String),
}

impl fmt::Display for SignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SignatureError::UnknownIssuer => {
                f.write_str("openpgp: signature made by unknown entity")
            }
            SignatureError::Invalid(m) => write!(f, "openpgp: invalid signature: {m}"),
            SignatureError::Structural(m) => write!(f, "openpgp: invalid data: {m}"),
            SignatureError::Unsupported(m) => write!(f, "openpgp: unsupported feature: {m}"),
        }
    }
}

fn structural<T>(m: &str) -> Result<T, SignatureError> {
    Err(SignatureError::Structural(m.to_string()))
}

/// Decodes ASCII armor (any block type) to its binary content, checking
/// the CRC-24 when present.
pub fn dearmor(text: &str) -> Result<Vec<u8>, SignatureError> {
    let mut lines = text.lines().map(str::trim_end);
    if !lines.by_ref().any(|l| l.starts_with("-----BEGIN PGP ")) {
        return structural("armor header not found");
    }
    // Header lines ("Key: value") end at the first blank line.
    let mut body = String::new();
    let mut in_headers = true;
    let mut crc: Option<String> = None;
    let mut ended = false;
    for line in lines {
        if line.starts_with("-----END PGP ") {
            ended = true;
            break;
        }
        if in_headers {
            if line.is_empty() {
                in_headers = false;
                continue;
            }
            if line.contains(": ") {
                continue;
            }
            in_headers = false;
        }
        if let Some(c) = line.strip_prefix('=') {
            crc = Some(c.to_string());
            continue;
        }
        body.push_str(line.trim());
    }
    if !ended {
        return structural("armor end not found");
    }
    let data =
        base64_decode(&body).ok_or_else(|| SignatureError::Structural("armor invalid".into()))?;
    if let Some(c) = crc {
        let want =
            base64_decode(&c).ok_or_else(|| SignatureError::Structural("armor invalid".into()))?;
        let got = crc24(&data);
        if want.len() != 3 || want != [(got >> 16) as u8, (got >> 8) as u8, got as u8] {
            return structural("armor invalid");
        }
    }
    Ok(data)
}

fn crc24(data: &[u8]) -> u32 {
    let mut crc: u32 = 0xB704CE;
    for &b in data {
        crc ^= u32::from(b) << 16;
        for _ in 0..8 {
            crc <<= 1;
            if crc & 0x1000000 != 0 {
                crc ^= 0x1864CFB;
            }
        }
    }
    crc & 0xFFFFFF
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        })
    };
    let clean: Vec<u8> = s.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    let trimmed: &[u8] = {
        let mut end = clean.len();
        while end > 0 && clean[end - 1] == b'=' {
            end -= 1;
        }
        &clean[..end]
    };
    let mut out = Vec::with_capacity(trimmed.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &c in trimmed {
        acc = (acc << 6) | val(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// Splits binary OpenPGP data into (tag, body) packets.
fn packets(mut data: &[u8]) -> Result<Vec<(u8, Vec<u8>)>, SignatureError> {
    let mut out = Vec::new();
    while !data.is_empty() {
        let h = data[0];
        if h & 0x80 == 0 {
            return structural("tag byte does not have MSB set");
        }
        data = &data[1..];
        let take = |data: &mut &[u8], n: usize| -> Result<Vec<u8>, SignatureError> {
            if data.len() < n {
                return structural("unexpected EOF");
            }
            let (a, b) = data.split_at(n);
            *data = b;
            Ok(a.to_vec())
        };
        if h & 0x40 == 0 {
            // Old format: tag in bits 5..2, length type in bits 1..0.
            let tag = (h >> 2) & 0x0f;
            let len = match h & 3 {
                0 => usize::from(take(&mut data, 1)?[0]),
                1 => {
                    let b = take(&mut data, 2)?;
                    usize::from(b[0]) << 8 | usize::from(b[1])
                }
                2 => {
                    let b = take(&mut data, 4)?;
                    u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize
                }
                _ => data.len(),
            };
            out.push((tag, take(&mut data, len)?));
        } else {
            let tag = h & 0x3f;
            let mut body = Vec::new();
            loop {
                let first = take(&mut data, 1)?[0];
                let (len, partial) = match first {
                    0..=191 => (usize::from(first), false),
                    192..=223 => {
                        let second = take(&mut data, 1)?[0];
                        (
                            ((usize::from(first) - 192) << 8) + usize::from(second) + 192,
                            false,
                        )
                    }
                    255 => {
                        let b = take(&mut data, 4)?;
                        (u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize, false)
                    }
                    _ => (1usize << (first & 0x1f), true),
                };
                body.extend(take(&mut data, len)?);
                if !partial {
                    break;
                }
            }
            out.push((tag, body));
        }
    }
    Ok(out)
}

/// Reads a multiprecision integer: a bit count, then the bytes.
fn read_mpi(data: &mut &[u8]) -> Result<Vec<u8>, SignatureError> {
    if data.len() < 2 {
        return structural("short MPI");
    }
    let bits = usize::from(data[0]) << 8 | usize::from(data[1]);
    let n = bits.div_ceil(8);
    if data.len() < 2 + n {
        return structural("short MPI");
    }
    let v = data[2..2 + n].to_vec();
    *data = &data[2 + n..];
    Ok(v)
}

fn parse_public_key(body: &[u8]) -> Result<PublicKey, SignatureError> {
    let Some(&version) = body.first() else {
        return structural("empty public key");
    };
    match version {
        4 => {
            if body.len() < 6 {
                return structural("short public key");
            }
            let algo = body[5];
            let mut hasher = Sha1::new();
            hasher.update([0x99, (body.len() >> 8) as u8, body.len() as u8]);
            hasher.update(body);
            let fp = hasher.finalize();
            let mut key_id = [0u8; 8];
            key_id.copy_from_slice(&fp[12..20]);
            let rsa = if matches!(algo, 1..=3) {
                let mut rest = &body[6..];
                let n = read_mpi(&mut rest)?;
                let e = read_mpi(&mut rest)?;
                Some((BigUint::from_bytes_be(&n), BigUint::from_bytes_be(&e)))
            } else {
                None
            };
            Ok(PublicKey { key_id, rsa })
        }
        2 | 3 => {
            if body.len() < 8 {
                return structural("short public key");
            }
            let algo = body[7];
            let mut rest = &body[8..];
            let n = read_mpi(&mut rest)?;
            let e = read_mpi(&mut rest)?;
            let mut key_id = [0u8; 8];
            if n.len() >= 8 {
                key_id.copy_from_slice(&n[n.len() - 8..]);
            }
            let rsa = matches!(algo, 1..=3)
                .then(|| (BigUint::from_bytes_be(&n), BigUint::from_bytes_be(&e)));
            Ok(PublicKey { key_id, rsa })
        }
        _ => Err(SignatureError::Unsupported(format!(
            "public key version {version}"
        ))),
    }
}

/// Reads every public key (with its subkeys) in an armored key block.
pub fn read_armored_key_ring(armor: &str) -> Result<Vec<Entity>, SignatureError> {
    let data = dearmor(armor)?;
    let mut entities: Vec<Entity> = Vec::new();
    for (tag, body) in packets(&data)? {
        match tag {
            6 => entities.push(Entity {
                primary: parse_public_key(&body)?,
                subkeys: Vec::new(),
            }),
            14 => match entities.last_mut() {
                Some(e) => e.subkeys.push(parse_public_key(&body)?),
                None => return structural("subkey packet not after a primary key"),
            },
            _ => {}
        }
    }
    if entities.is_empty() {
        return structural("no public keys found");
    }
    Ok(entities)
}

struct Signature {
    sig_type: u8,
    pubkey_algo: u8,
    hash_algo: u8,
    /// Bytes hashed after the document.
    trailer: Vec<u8>,
    hash_tag: [u8; 2],
    issuer: Option<[u8; 8]>,
    mpi: Vec<u8>,
}

fn parse_signature(body: &[u8]) -> Result<Signature, SignatureError> {
    let Some(&version) = body.first() else {
        return structural("empty signature");
    };
    match version {
        4 => {
            if body.len() < 6 {
                return structural("short signature");
            }
            let (sig_type, pubkey_algo, hash_algo) = (body[1], body[2], body[3]);
            let hashed_len = usize::from(body[4]) << 8 | usize::from(body[5]);
            if body.len() < 6 + hashed_len + 2 {
                return structural("short signature");
            }
            let hashed = &body[6..6 + hashed_len];
            let mut rest = &body[6 + hashed_len..];
            let unhashed_len = usize::from(rest[0]) << 8 | usize::from(rest[1]);
            if rest.len() < 2 + unhashed_len + 2 {
                return structural("short signature");
            }
            let unhashed = &rest[2..2 + unhashed_len];
            rest = &rest[2 + unhashed_len..];
            let hash_tag = [rest[0], rest[1]];
            rest = &rest[2..];
            let issuer = find_issuer(hashed)?.or(find_issuer(unhashed)?);
            let mpi = if matches!(pubkey_algo, 1..=3) {
                read_mpi(&mut rest)?
            } else {
                Vec::new()
            };
            let prefix_len = 6 + hashed_len;
            let mut trailer = body[..prefix_len].to_vec();
            trailer.extend_from_slice(&[4, 0xff]);
            trailer.extend_from_slice(&(prefix_len as u32).to_be_bytes());
            Ok(Signature {
                sig_type,
                pubkey_algo,
                hash_algo,
                trailer,
                hash_tag,
                issuer,
                mpi,
            })
        }
        3 => {
            if body.len() < 19 || body[1] != 5 {
                return structural("invalid v3 signature");
            }
            let mut issuer = [0u8; 8];
            issuer.copy_from_slice(&body[7..15]);
            let mut rest = &body[19..];
            let mpi = if matches!(body[15], 1..=3) {
                read_mpi(&mut rest)?
            } else {
                Vec::new()
            };
            Ok(Signature {
                sig_type: body[2],
                pubkey_algo: body[15],
                hash_algo: body[16],
                trailer: body[2..7].to_vec(),
                hash_tag: [body[17], body[18]],
                issuer: Some(issuer),
                mpi,
            })
        }
        _ => Err(SignatureError::Unsupported(format!(
            "signature packet version {version}"
        ))),
    }
}

/// The issuer key ID from subpackets: an Issuer (16) or, failing that,
/// the low bytes of an Issuer Fingerprint (33).
fn find_issuer(mut sub: &[u8]) -> Result<Option<[u8; 8]>, SignatureError> {
    let mut from_fpr = None;
    while !sub.is_empty() {
        let first = usize::from(sub[0]);
        let (len, hdr) = match first {
            0..=191 => (first, 1),
            192..=254 => {
                if sub.len() < 2 {
                    return structural("subpacket truncated");
                }
                (((first - 192) << 8) + usize::from(sub[1]) + 192, 2)
            }
            _ => {
                if sub.len() < 5 {
                    return structural("subpacket truncated");
                }
                (
                    u32::from_be_bytes([sub[1], sub[2], sub[3], sub[4]]) as usize,
                    5,
                )
            }
        };
        if len == 0 || sub.len() < hdr + len {
            return structural("subpacket truncated");
        }
        let data = &sub[hdr..hdr + len];
        match data[0] & 0x7f {
            16 if data.len() == 9 => {
                let mut id = [0u8; 8];
                id.copy_from_slice(&data[1..9]);
                return Ok(Some(id));
            }
            33 if data.len() == 22 => {
                let mut id = [0u8; 8];
                id.copy_from_slice(&data[14..22]);
                from_fpr = Some(id);
            }
            _ => {}
        }
        sub = &sub[hdr + len..];
    }
    Ok(from_fpr)
}

/// Checks a detached signature (binary or armored) of `document` against
/// the key ring, returning the primary key ID of the entity that made it.
pub fn check_detached_signature(
    keyring: &[Entity],
    document: &[u8],
    signature: &[u8],
) -> Result<String, SignatureError> {
    let binary = if signature.starts_with(b"-----BEGIN PGP") {
        dearmor(&String::from_utf8_lossy(signature))?
    } else {
        signature.to_vec()
    };
    let sig = packets(&binary)?
        .into_iter()
        .find(|(tag, _)| *tag == 2)
        .ok_or_else(|| SignatureError::Structural("no signature packet found".into()))
        .and_then(|(_, body)| parse_signature(&body))?;
    let Some(issuer) = sig.issuer else {
        return Err(SignatureError::UnknownIssuer);
    };
    let found = keyring.iter().find_map(|e| {
        std::iter::once(&e.primary)
            .chain(e.subkeys.iter())
            .find(|k| k.key_id == issuer)
            .map(|k| (e, k))
    });
    let Some((entity, key)) = found else {
        return Err(SignatureError::UnknownIssuer);
    };
    let doc: std::borrow::Cow<'_, [u8]> = match sig.sig_type {
        0x00 => document.into(),
        0x01 => canonical_text(document).into(),
        other => {
            return Err(SignatureError::Invalid(format!(
                "unsupported signature type {other}"
            )))
        }
    };
    let (digest, prefix) = digest(sig.hash_algo, &doc, &sig.trailer)?;
    if digest[..2] != sig.hash_tag {
        return Err(SignatureError::Invalid("hash tag doesn't match".into()));
    }
    let Some((n, e)) = &key.rsa else {
        return Err(SignatureError::Unsupported(format!(
            "public key algorithm {}",
            sig.pubkey_algo
        )));
    };
    if !matches!(sig.pubkey_algo, 1 | 3) {
        return Err(SignatureError::Unsupported(format!(
            "public key algorithm {}",
            sig.pubkey_algo
        )));
    }
    if !rsa_pkcs1v15_verify(n, e, prefix, &digest, &sig.mpi) {
        return Err(SignatureError::Invalid("RSA verification failure".into()));
    }
    Ok(entity.key_id_string())
}

/// A text document with every line ending made CRLF.
fn canonical_text(doc: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(doc.len() + doc.len() / 32);
    let mut prev = 0u8;
    for &b in doc {
        if b == b'\n' && prev != b'\r' {
            out.push(b'\r');
        }
        out.push(b);
        prev = b;
    }
    out
}

/// The hash of document + trailer and the DigestInfo prefix for it.
fn digest(
    algo: u8,
    doc: &[u8],
    trailer: &[u8],
) -> Result<(Vec<u8>, &'static [u8]), SignatureError> {
    fn run<D: Digest>(doc: &[u8], trailer: &[u8]) -> Vec<u8> {
        let mut h = D::new();
        h.update(doc);
        h.update(trailer);
        h.finalize().to_vec()
    }
    Ok(match algo {
        2 => (
            run::<Sha1>(doc, trailer),
            &[
                0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04,
                0x14,
            ],
        ),
        8 => (
            run::<Sha256>(doc, trailer),
            &[
                0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
                0x01, 0x05, 0x00, 0x04, 0x20,
            ],
        ),
        9 => (
            run::<Sha384>(doc, trailer),
            &[
                0x30, 0x41, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
                0x02, 0x05, 0x00, 0x04, 0x30,
            ],
        ),
        10 => (
            run::<Sha512>(doc, trailer),
            &[
                0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
                0x03, 0x05, 0x00, 0x04, 0x40,
            ],
        ),
        11 => (
            run::<Sha224>(doc, trailer),
            &[
                0x30, 0x2d, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
                0x04, 0x05, 0x00, 0x04, 0x1c,
            ],
        ),
        other => {
            return Err(SignatureError::Unsupported(format!(
                "hash function {other}"
            )))
        }
    })
}

/// RSASSA-PKCS1-v1_5 verification: `sig^e mod n` must be exactly
/// `00 01 FF.. 00 || DigestInfo || digest`, `k` bytes long.
fn rsa_pkcs1v15_verify(n: &BigUint, e: &BigUint, prefix: &[u8], digest: &[u8], sig: &[u8]) -> bool {
    let k = n.to_bytes_be().len();
    let s = BigUint::from_bytes_be(sig);
    if s >= *n || sig.len() > k {
        return false;
    }
    let m = s.modpow(e, n).to_bytes_be();
    let t_len = prefix.len() + digest.len();
    if k < t_len + 11 {
        return false;
    }
    let mut em = vec![0u8; k - m.len()];
    em.extend_from_slice(&m);
    let mut want = vec![0x00, 0x01];
    want.resize(k - t_len - 1, 0xff);
    want.push(0x00);
    want.extend_from_slice(prefix);
    want.extend_from_slice(digest);
    em == want
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &[u8] = include_bytes!("../testdata/registry/SHA256SUMS");
    const SIG: &[u8] = include_bytes!("../testdata/registry/SHA256SUMS.sig");
    const SUBKEY_SIG: &[u8] = include_bytes!("../testdata/registry/SHA256SUMS.subkey.sig");
    const STRANGER_SIG: &[u8] = include_bytes!("../testdata/registry/SHA256SUMS.stranger.sig");
    const SIGNER: &str = include_str!("../testdata/registry/key_signer.asc");
    const SUBKEY: &str = include_str!("../testdata/registry/key_subkey.asc");

    fn ring(armor: &str) -> Vec<Entity> {
        match read_armored_key_ring(armor) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        }
    }

    /// Keys and signatures made with GnuPG 2.2 (see testdata/README.md).
    #[test]
    fn verifies_gnupg_signatures() {
        assert_eq!(
            check_detached_signature(&ring(SIGNER), DOC, SIG),
            Ok("A6576E6F70E1F905".to_string())
        );
        // Made by a signing subkey, with SHA-512; the primary's ID is
        // reported.
        assert_eq!(
            check_detached_signature(&ring(SUBKEY), DOC, SUBKEY_SIG),
            Ok("4E6D7DDED4FC516B".to_string())
        );
        let both = [ring(SUBKEY), ring(SIGNER)].concat();
        assert_eq!(
            check_detached_signature(&both, DOC, SIG),
            Ok("A6576E6F70E1F905".to_string())
        );
    }

    #[test]
    fn refuses_what_does_not_verify() {
        assert_eq!(
            check_detached_signature(&ring(SIGNER), DOC, STRANGER_SIG),
            Err(SignatureError::UnknownIssuer)
        );
        let mut doc = DOC.to_vec();
        doc[0] ^= 1;
        assert!(matches!(
            check_detached_signature(&ring(SIGNER), &doc, SIG),
            Err(SignatureError::Invalid(_))
        ));
        let mut sig = SIG.to_vec();
        let last = sig.len() - 1;
        sig[last] ^= 1;
        assert_eq!(
            check_detached_signature(&ring(SIGNER), DOC, &sig),
            Err(SignatureError::Invalid("RSA verification failure".into()))
        );
        assert!(matches!(
            check_detached_signature(&ring(SIGNER), DOC, b"garbage"),
            Err(SignatureError::Structural(_))
        ));
        assert_eq!(
            SignatureError::Invalid("RSA verification failure".into()).to_string(),
            "openpgp: invalid signature: RSA verification failure"
        );
    }

    #[test]
    fn armor_checks() {
        assert!(read_armored_key_ring("not armor").is_err());
        let broken = SIGNER.replacen("mQEN", "mQEM", 1);
        assert!(read_armored_key_ring(&broken).is_err());
        assert_eq!(crc24(b""), 0xB704CE);
        assert_eq!(base64_decode("Zm9vYg=="), Some(b"foob".to_vec()));
    }

    #[test]
    fn text_signatures_hash_crlf_lines() {
        assert_eq!(canonical_text(b"a\nb\r\nc"), b"a\r\nb\r\nc".to_vec());
    }
}
