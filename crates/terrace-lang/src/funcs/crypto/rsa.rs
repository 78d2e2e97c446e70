//! Private keys and PKCS #1 v1.5 decryption for `rsadecrypt`.
//!
//! Terraform reads the key with `ssh.ParseRawPrivateKey` (PEM with PKCS #1,
//! PKCS #8 or OpenSSH contents) and decrypts with Go's
//! `rsa.DecryptPKCS1v15`. The key parsing here follows Go's `encoding/pem`
//! and reports the common failures of Go's `encoding/asn1` with its words,
//! which Terraform passes on to the user.

use super::super::encoding::base64_decode;
use num_bigint::{BigInt, BigUint, Sign};
use terrace_value::gostr;

/// An RSA private key: what decryption needs.
pub(super) struct RsaKey {
    n: BigUint,
    d: BigUint,
}

/// Why a key was refused, in the three shapes Terraform words
/// differently.
#[derive(Debug, PartialEq)]
pub(super) enum KeyError {
    /// An `encoding/asn1` syntax error (the text after `asn1: syntax error: `).
    Syntax(String),
    /// An `encoding/asn1` structure error, shown as Go prints it.
    Structure(String),
    /// Anything else; Terraform prefixes `invalid private key: `.
    Other(String),
    /// A key that parsed but is not RSA; the Go type name.
    NotRsa(&'static str),
}

struct PemBlock {
    kind: String,
    headers: Vec<(String, String)>,
    bytes: Vec<u8>,
}

fn get_line(data: &[u8]) -> (&[u8], &[u8]) {
    let (mut i, j) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (i, i + 1),
        None => (data.len(), data.len()),
    };
    if j != i && i > 0 && data[i - 1] == b'\r' {
        i -= 1;
    }
    let mut line = &data[..i];
    while let [rest @ .., b' ' | b'\t'] = line {
        line = rest;
    }
    (line, &data[j..])
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Go's `pem.Decode`: the first well-formed block.
fn pem_decode(data: &[u8]) -> Option<PemBlock> {
    const START: &[u8] = b"\n-----BEGIN ";
    const END: &[u8] = b"\n-----END ";
    const END_OF_LINE: &[u8] = b"-----";
    let mut rest = data;
    loop {
        if rest.starts_with(&START[1..]) {
            rest = &rest[START.len() - 1..];
        } else if let Some(i) = find(rest, START) {
            rest = &rest[i + START.len()..];
        } else {
            return None;
        }
        let (type_line, after) = get_line(rest);
        rest = after;
        let Some(kind) = type_line.strip_suffix(END_OF_LINE) else {
            continue;
        };
        let mut headers = Vec::new();
        loop {
            if rest.is_empty() {
                return None;
            }
            let (line, next) = get_line(rest);
            let Some(colon) = line.iter().position(|&b| b == b':') else {
                break;
            };
            let key = String::from_utf8_lossy(&line[..colon]).trim().to_string();
            let value = String::from_utf8_lossy(&line[colon + 1..])
                .trim()
                .to_string();
            headers.push((key, value));
            rest = next;
        }
        let (end_index, trailer_index) = if headers.is_empty() && rest.starts_with(&END[1..]) {
            (0, END.len() - 1)
        } else {
            match find(rest, END) {
                Some(i) => (i, i + END.len()),
                None => continue,
            }
        };
        let trailer = &rest[trailer_index..];
        let trailer_len = kind.len() + END_OF_LINE.len();
        if trailer.len() < trailer_len {
            continue;
        }
        let (trailer, rest_of_line) = trailer.split_at(trailer_len);
        if !trailer.starts_with(kind) || !trailer.ends_with(END_OF_LINE) {
            continue;
        }
        if !get_line(rest_of_line).0.is_empty() {
            continue;
        }
        let body: Vec<u8> = rest[..end_index]
            .iter()
            .copied()
            .filter(|&b| b != b' ' && b != b'\t')
            .collect();
        let Ok(bytes) = base64_decode(&body) else {
            continue;
        };
        return Some(PemBlock {
            kind: String::from_utf8_lossy(kind).into_owned(),
            headers,
            bytes,
        });
    }
}

// ----- DER, as Go's encoding/asn1 reads it -----

struct TagAndLength {
    class: u8,
    tag: u32,
    length: usize,
    compound: bool,
}

impl TagAndLength {
    fn describe(&self) -> String {
        format!(
            "{{class:{} tag:{} length:{} isCompound:{}}}",
            self.class, self.tag, self.length, self.compound
        )
    }
}

fn field_params(optional: bool) -> String {
    format!(
        "{{optional:{optional} explicit:false application:false private:false defaultValue:<nil> tag:<nil> \
         stringType:0 timeType:0 set:false omitEmpty:false}}"
    )
}

fn parse_tag_and_length(
    bytes: &[u8],
    mut offset: usize,
) -> Result<(TagAndLength, usize), KeyError> {
    let truncated = || KeyError::Syntax("truncated tag or length".to_string());
    let b = *bytes.get(offset).ok_or_else(truncated)?;
    offset += 1;
    let class = b >> 6;
    let compound = b & 0x20 != 0;
    let mut tag = u32::from(b & 0x1f);
    if tag == 0x1f {
        tag = 0;
        loop {
            let b = *bytes
                .get(offset)
                .ok_or_else(|| KeyError::Syntax("truncated base 128 integer".to_string()))?;
            offset += 1;
            tag = tag
                .checked_mul(128)
                .ok_or_else(|| KeyError::Structure("base 128 integer too large".to_string()))?
                | u32::from(b & 0x7f);
            if b & 0x80 == 0 {
                break;
            }
        }
        if tag < 0x1f {
            return Err(KeyError::Syntax("non-minimal tag".to_string()));
        }
    }
    let b = *bytes.get(offset).ok_or_else(truncated)?;
    offset += 1;
    let length = if b & 0x80 == 0 {
        usize::from(b & 0x7f)
    } else {
        let count = usize::from(b & 0x7f);
        if count == 0 {
            return Err(KeyError::Syntax(
                "indefinite length found (not DER)".to_string(),
            ));
        }
        let mut length = 0usize;
        for _ in 0..count {
            let b = *bytes.get(offset).ok_or_else(truncated)?;
            offset += 1;
            if length >= 1 << 23 {
                return Err(KeyError::Structure("length too large".to_string()));
            }
            length = length << 8 | usize::from(b);
            if length == 0 {
                return Err(KeyError::Structure(
                    "superfluous leading zeros in length".to_string(),
                ));
            }
        }
        if length < 0x80 {
            return Err(KeyError::Structure("non-minimal length".to_string()));
        }
        length
    };
    Ok((
        TagAndLength {
            class,
            tag,
            length,
            compound,
        },
        offset,
    ))
}

/// Reads one element with the expected universal tag; `type_name` and
/// `optional` only shape the error text.
fn read_element<'a>(
    bytes: &'a [u8],
    offset: usize,
    tag: u32,
    compound: bool,
    type_name: &str,
    optional: bool,
) -> Result<(&'a [u8], usize), KeyError> {
    if offset == bytes.len() {
        return Err(KeyError::Syntax("sequence truncated".to_string()));
    }
    let (t, inner) = parse_tag_and_length(bytes, offset)?;
    if t.class != 0 || t.tag != tag || t.compound != compound {
        return Err(KeyError::Structure(format!(
            "tags don't match ({tag} vs {}) {} {type_name} @{inner}",
            t.describe(),
            field_params(optional)
        )));
    }
    if t.length > bytes.len() - inner {
        return Err(KeyError::Syntax("data truncated".to_string()));
    }
    Ok((&bytes[inner..inner + t.length], inner + t.length))
}

fn check_integer(bytes: &[u8]) -> Result<(), KeyError> {
    if bytes.is_empty() {
        return Err(KeyError::Structure("empty integer".to_string()));
    }
    if bytes.len() > 1
        && ((bytes[0] == 0 && bytes[1] & 0x80 == 0) || (bytes[0] == 0xff && bytes[1] & 0x80 != 0))
    {
        return Err(KeyError::Structure(
            "integer not minimally-encoded".to_string(),
        ));
    }
    Ok(())
}

fn read_integer(bytes: &[u8], offset: usize, type_name: &str) -> Result<(BigInt, usize), KeyError> {
    let (content, next) = read_element(bytes, offset, 2, false, type_name, false)?;
    check_integer(content)?;
    Ok((BigInt::from_signed_bytes_be(content), next))
}

/// `x509.ParsePKCS1PrivateKey`, without the fallbacks' hints.
fn parse_pkcs1_structure(der: &[u8]) -> Result<RsaKey, KeyError> {
    let (body, end) = read_element(der, 0, 16, true, "pkcs1PrivateKey", false)?;
    let mut offset = 0;
    let (version, next) = read_integer(body, offset, "int")?;
    offset = next;
    let mut fields = Vec::new();
    for name in ["", "int", "", "", ""] {
        let (value, next) = read_integer(body, offset, name)?;
        fields.push(value);
        offset = next;
    }
    if end < der.len() {
        return Err(KeyError::Syntax("trailing data".to_string()));
    }
    if version > BigInt::from(1) {
        return Err(KeyError::Other(
            "x509: unsupported private key version".to_string(),
        ));
    }
    let (n, d, p, q) = (&fields[0], &fields[2], &fields[3], &fields[4]);
    if [n, d, p, q].iter().any(|v| v.sign() != Sign::Plus) {
        return Err(KeyError::Other(
            "x509: private key contains zero or negative value".to_string(),
        ));
    }
    let to_uint = |v: &BigInt| v.to_biguint().unwrap_or_default();
    if to_uint(p) * to_uint(q) != to_uint(n) {
        return Err(KeyError::Other("crypto/rsa: invalid modulus".to_string()));
    }
    Ok(RsaKey {
        n: to_uint(n),
        d: to_uint(d),
    })
}

/// Whether `der` has the shape of an SEC 1 EC private key.
fn looks_like_ec_key(der: &[u8]) -> bool {
    let Ok((body, end)) = read_element(der, 0, 16, true, "", false) else {
        return false;
    };
    end == der.len()
        && read_integer(body, 0, "")
            .and_then(|(_, next)| read_element(body, next, 4, false, "", false))
            .is_ok()
}

/// The PKCS #8 wrapping: the algorithm OID and the inner key.
fn parse_pkcs8_structure(der: &[u8]) -> Result<(Vec<u8>, Vec<u8>), KeyError> {
    let (body, _) = read_element(der, 0, 16, true, "pkcs8", false)?;
    let (_, next) = read_integer(body, 0, "int")?;
    let (algorithm, next) = read_element(body, next, 16, true, "AlgorithmIdentifier", false)?;
    let (oid, _) = read_element(algorithm, 0, 6, false, "ObjectIdentifier", false)?;
    let (key, _) = read_element(body, next, 4, false, "", false)?;
    Ok((oid.to_vec(), key.to_vec()))
}

const OID_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
const OID_EC: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
const OID_ED25519: &[u8] = &[0x2b, 0x65, 0x70];

fn parse_pkcs1(der: &[u8]) -> Result<RsaKey, KeyError> {
    parse_pkcs1_structure(der).map_err(|e| match e {
        KeyError::Syntax(_) | KeyError::Structure(_) if looks_like_ec_key(der) => KeyError::Other(
            "x509: failed to parse private key (use ParseECPrivateKey instead for this key format)".to_string(),
        ),
        KeyError::Syntax(_) | KeyError::Structure(_) if parse_pkcs8_structure(der).is_ok() => KeyError::Other(
            "x509: failed to parse private key (use ParsePKCS8PrivateKey instead for this key format)".to_string(),
        ),
        other => other,
    })
}

fn parse_pkcs8(der: &[u8]) -> Result<RsaKey, KeyError> {
    let (oid, key) = match parse_pkcs8_structure(der) {
        Ok(parts) => parts,
        Err(e) => {
            if looks_like_ec_key(der) {
                return Err(KeyError::Other(
                    "x509: failed to parse private key (use ParseECPrivateKey instead for this key format)".to_string(),
                ));
            }
            if parse_pkcs1_structure(der).is_ok() {
                return Err(KeyError::Other(
                    "x509: failed to parse private key (use ParsePKCS1PrivateKey instead for this key format)"
                        .to_string(),
                ));
            }
            return Err(e);
        }
    };
    match oid.as_slice() {
        OID_RSA => parse_pkcs1_structure(&key).map_err(|e| {
            let inner = match e {
                KeyError::Syntax(m) => format!("asn1: syntax error: {m}"),
                KeyError::Structure(m) => format!("asn1: structure error: {m}"),
                KeyError::Other(m) => m,
                KeyError::NotRsa(t) => t.to_string(),
            };
            KeyError::Other(format!(
                "x509: failed to parse RSA private key embedded in PKCS#8: {inner}"
            ))
        }),
        OID_EC => Err(KeyError::NotRsa("*ecdsa.PrivateKey")),
        OID_ED25519 => Err(KeyError::NotRsa("ed25519.PrivateKey")),
        _ => Err(KeyError::Other(
            "x509: PKCS#8 wrapping contained private key with unknown algorithm".to_string(),
        )),
    }
}

// ----- OpenSSH keys -----

struct SshReader<'a>(&'a [u8]);

impl<'a> SshReader<'a> {
    fn u32(&mut self) -> Option<u32> {
        let (head, rest) = self.0.split_first_chunk::<4>()?;
        self.0 = rest;
        Some(u32::from_be_bytes(*head))
    }

    fn string(&mut self) -> Option<&'a [u8]> {
        let len = self.u32()? as usize;
        if len > self.0.len() {
            return None;
        }
        let (value, rest) = self.0.split_at(len);
        self.0 = rest;
        Some(value)
    }

    fn mpint(&mut self) -> Option<BigUint> {
        Some(BigUint::from_bytes_be(self.string()?))
    }
}

fn parse_openssh(data: &[u8]) -> Result<RsaKey, KeyError> {
    const MAGIC: &[u8] = b"openssh-key-v1\0";
    let malformed = || KeyError::Other("ssh: malformed OpenSSH key".to_string());
    let body = data
        .strip_prefix(MAGIC)
        .ok_or_else(|| KeyError::Other("ssh: invalid openssh private key format".to_string()))?;
    let mut r = SshReader(body);
    let cipher = r.string().ok_or_else(malformed)?;
    let kdf = r.string().ok_or_else(malformed)?;
    let _kdf_options = r.string().ok_or_else(malformed)?;
    let count = r.u32().ok_or_else(malformed)?;
    if count != 1 {
        return Err(KeyError::Other(
            "ssh: multi-key files are not supported".to_string(),
        ));
    }
    let _public = r.string().ok_or_else(malformed)?;
    let private = r.string().ok_or_else(malformed)?;
    if cipher != b"none" || kdf != b"none" {
        return Err(KeyError::Other(
            "ssh: this private key is passphrase protected".to_string(),
        ));
    }
    let mut p = SshReader(private);
    let (check1, check2) = (
        p.u32().ok_or_else(malformed)?,
        p.u32().ok_or_else(malformed)?,
    );
    if check1 != check2 {
        return Err(malformed());
    }
    match p.string().ok_or_else(malformed)? {
        b"ssh-rsa" => {
            let n = p.mpint().ok_or_else(malformed)?;
            let _e = p.mpint().ok_or_else(malformed)?;
            let d = p.mpint().ok_or_else(malformed)?;
            Ok(RsaKey { n, d })
        }
        b"ssh-ed25519" => Err(KeyError::NotRsa("*ed25519.PrivateKey")),
        b"ecdsa-sha2-nistp256" | b"ecdsa-sha2-nistp384" | b"ecdsa-sha2-nistp521" => {
            Err(KeyError::NotRsa("*ecdsa.PrivateKey"))
        }
        other => Err(KeyError::Other(format!(
            "ssh: unhandled key type {:?}",
            String::from_utf8_lossy(other)
        ))),
    }
}

/// `ssh.ParseRawPrivateKey`, accepting only RSA keys.
pub(super) fn parse_private_key(pem: &str) -> Result<RsaKey, KeyError> {
    let block = pem_decode(pem.as_bytes())
        .ok_or_else(|| KeyError::Other("ssh: no key found".to_string()))?;
    let encrypted = block
        .headers
        .iter()
        .any(|(key, value)| key == "Proc-Type" && value.contains("4,ENCRYPTED"));
    if encrypted {
        return Err(KeyError::Other(
            "ssh: this private key is passphrase protected".to_string(),
        ));
    }
    match block.kind.as_str() {
        "RSA PRIVATE KEY" => parse_pkcs1(&block.bytes),
        "PRIVATE KEY" => parse_pkcs8(&block.bytes),
        "EC PRIVATE KEY" => Err(KeyError::NotRsa("*ecdsa.PrivateKey")),
        "DSA PRIVATE KEY" => Err(KeyError::NotRsa("*dsa.PrivateKey")),
        "OPENSSH PRIVATE KEY" => parse_openssh(&block.bytes),
        other => Err(KeyError::Other(format!(
            "ssh: unsupported key type {}",
            gostr::quote(other)
        ))),
    }
}

/// `rsa.DecryptPKCS1v15`; `None` is Go's `crypto/rsa: decryption error`.
pub(super) fn decrypt_pkcs1v15(key: &RsaKey, ciphertext: &[u8]) -> Option<Vec<u8>> {
    let k = key.n.to_bytes_be().len();
    if k < 11 || ciphertext.len() > k {
        return None;
    }
    let c = BigUint::from_bytes_be(ciphertext);
    if c >= key.n {
        return None;
    }
    let m = c.modpow(&key.d, &key.n).to_bytes_be();
    if m.len() > k {
        return None;
    }
    let mut em = vec![0u8; k - m.len()];
    em.extend_from_slice(&m);
    if em[0] != 0 || em[1] != 2 {
        return None;
    }
    let zero = em[2..].iter().position(|&b| b == 0)? + 2;
    if zero < 2 + 8 {
        return None;
    }
    Some(em[zero + 1..].to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asn1_errors_use_go_wording() {
        assert_eq!(
            parse_pkcs1(&[0x30, 0x82, 0x01]).err(),
            Some(KeyError::Syntax("truncated tag or length".to_string()))
        );
        assert_eq!(
            parse_pkcs1(&[0, 0, 0]).err(),
            Some(KeyError::Structure(
                "tags don't match (16 vs {class:0 tag:0 length:0 isCompound:false}) {optional:false explicit:false \
                 application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false \
                 omitEmpty:false} pkcs1PrivateKey @2"
                    .to_string()
            ))
        );
        assert_eq!(
            parse_pkcs1(&[0x30, 0x80]).err(),
            Some(KeyError::Syntax(
                "indefinite length found (not DER)".to_string()
            ))
        );
        assert_eq!(
            parse_pkcs1(&[0x30, 0x05, 0x02]).err(),
            Some(KeyError::Syntax("data truncated".to_string()))
        );
    }

    #[test]
    fn pem_blocks() {
        let block =
            pem_decode(b"junk\n-----BEGIN FOO-----\nAQID\n-----END FOO-----\n").expect("block");
        assert_eq!(block.kind, "FOO");
        assert_eq!(block.bytes, vec![1, 2, 3]);
        assert!(pem_decode(b"-----BEGIN FOO-----\nAQID\n-----END BAR-----\n").is_none());
        let encrypted =
            pem_decode(b"-----BEGIN X-----\nProc-Type: 4,ENCRYPTED\n\nAQID\n-----END X-----")
                .expect("block");
        assert_eq!(
            encrypted.headers,
            vec![("Proc-Type".to_string(), "4,ENCRYPTED".to_string())]
        );
    }
}
