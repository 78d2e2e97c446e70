//! Built-in functions: hashing and cryptography (`md5`, `sha1`, `sha256`,
//! `sha512`, `base64sha256`, `base64sha512`, their `file*` variants,
//! `bcrypt`, `uuid`, `uuidv5`, `rsadecrypt`).
//!
//! Hashes come from the RustCrypto crates and bcrypt from the `bcrypt`
//! crate (in Go's `$2a$` form); UUIDs, key parsing and RSA decryption are
//! small enough to do here, with the error texts of the Go packages
//! Terraform uses.

mod rsa;

use super::encoding::{base64_decode, base64_encode};
use super::filesystem::{read_file, ReadError};
use super::{arg_str, CallContext, Function, FunctionError, FunctionResult, Param, ReturnType};
use md5::Md5;
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha512};
use terrace_value::gostr;
use terrace_value::{Type, Value};

type HashFn = fn(&[u8]) -> Vec<u8>;

fn md5(data: &[u8]) -> Vec<u8> {
    Md5::digest(data).to_vec()
}
fn sha1(data: &[u8]) -> Vec<u8> {
    Sha1::digest(data).to_vec()
}
fn sha256(data: &[u8]) -> Vec<u8> {
    Sha256::digest(data).to_vec()
}
fn sha512(data: &[u8]) -> Vec<u8> {
    Sha512::digest(data).to_vec()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Each hash function: the string function's name, the file function's
/// name, the hash and how its digest is written.
const HASHES: &[(&str, &str, HashFn, bool)] = &[
    ("md5", "filemd5", md5, false),
    ("sha1", "filesha1", sha1, false),
    ("sha256", "filesha256", sha256, false),
    ("sha512", "filesha512", sha512, false),
    ("base64sha256", "filebase64sha256", sha256, true),
    ("base64sha512", "filebase64sha512", sha512, true),
];

fn digest_for(name: &str) -> Option<(HashFn, bool)> {
    HASHES
        .iter()
        .find(|(s, f, _, _)| *s == name || *f == name)
        .map(|(_, _, hash, base64)| (*hash, *base64))
}

fn encode_digest(digest: &[u8], base64: bool) -> String {
    if base64 {
        base64_encode(digest)
    } else {
        hex(digest)
    }
}

pub(crate) fn register(out: &mut Vec<Function>) {
    // Implementations are plain `fn`s, so each hash gets its own pair.
    macro_rules! hash_functions {
        ($($name:literal, $file_name:literal);* $(;)?) => {$(
            out.push(Function::new(
                $name,
                vec![Param::new("str", Type::String)],
                ReturnType::Static(Type::String),
                |_, args, _| hash_string($name, args),
            ));
            out.push(Function::new(
                $file_name,
                vec![Param::new("path", Type::String)],
                ReturnType::Static(Type::String),
                |ctx, args, _| hash_file($file_name, ctx, args),
            ));
        )*};
    }
    hash_functions! {
        "md5", "filemd5";
        "sha1", "filesha1";
        "sha256", "filesha256";
        "sha512", "filesha512";
        "base64sha256", "filebase64sha256";
        "base64sha512", "filebase64sha512";
    }
    out.push(
        Function::new(
            "bcrypt",
            vec![Param::new("str", Type::String)],
            ReturnType::Static(Type::String),
            bcrypt,
        )
        .variadic(Param::new("cost", Type::Number)),
    );
    out.push(Function::new(
        "uuid",
        Vec::new(),
        ReturnType::Static(Type::String),
        uuid,
    ));
    out.push(Function::new(
        "uuidv5",
        vec![
            Param::new("namespace", Type::String),
            Param::new("name", Type::String),
        ],
        ReturnType::Static(Type::String),
        uuidv5,
    ));
    out.push(Function::new(
        "rsadecrypt",
        vec![
            Param::new("ciphertext", Type::String),
            Param::new("privatekey", Type::String),
        ],
        ReturnType::Static(Type::String),
        rsadecrypt,
    ));
}

fn hash_string(name: &str, args: &[Value]) -> FunctionResult<Value> {
    let (hash, base64) =
        digest_for(name).ok_or_else(|| FunctionError::call(format!("unknown hash {name}")))?;
    Ok(Value::string(encode_digest(
        &hash(arg_str(args, 0)?.as_bytes()),
        base64,
    )))
}

fn hash_file(name: &str, ctx: &CallContext<'_>, args: &[Value]) -> FunctionResult<Value> {
    let (hash, base64) =
        digest_for(name).ok_or_else(|| FunctionError::call(format!("unknown hash {name}")))?;
    let path = arg_str(args, 0)?;
    let bytes = read_file(ctx, path).map_err(|e| {
        FunctionError::call(match e {
            ReadError::Expand(message) | ReadError::Open(message) | ReadError::Read(message) => {
                message
            }
            // Terraform shows Go's own error here, with the resolved path.
            ReadError::NotFound => match super::filesystem::resolve_path(ctx, path) {
                Ok(resolved) => format!("open {resolved}: no such file or directory"),
                Err(message) => message,
            },
        })
    })?;
    Ok(Value::string(encode_digest(&hash(&bytes), base64)))
}

// ----- bcrypt -----

fn bcrypt(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let mut cost: i64 = 10;
    if let Some(cost_arg) = args.get(1) {
        cost = super::ipnet::number_to_i64(cost_arg).map_err(FunctionError::call)?;
    }
    if args.len() > 2 {
        return Err(FunctionError::call(
            "bcrypt() takes no more than two arguments",
        ));
    }
    let password = arg_str(args, 0)?.as_bytes();
    let failed = |message: String| {
        FunctionError::call(format!("error occured generating password {message}"))
    };
    if password.len() > 72 {
        return Err(failed(
            "bcrypt: password length exceeds 72 bytes".to_string(),
        ));
    }
    // Go's bcrypt quietly uses its default cost below the minimum.
    if cost < 4 {
        cost = 10;
    }
    if cost > 31 {
        return Err(failed(format!(
            "crypto/bcrypt: cost {cost} is outside allowed range (4,31)"
        )));
    }
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).map_err(|e| failed(e.to_string()))?;
    let parts =
        bcrypt::hash_with_salt(password, cost as u32, salt).map_err(|e| failed(e.to_string()))?;
    Ok(Value::string(
        parts.format_for_version(bcrypt::Version::TwoA),
    ))
}

// ----- UUIDs -----

fn format_uuid(bytes: &[u8; 16]) -> String {
    format!(
        "{}-{}-{}-{}-{}",
        hex(&bytes[0..4]),
        hex(&bytes[4..6]),
        hex(&bytes[6..8]),
        hex(&bytes[8..10]),
        hex(&bytes[10..16])
    )
}

/// Terraform's `uuid()` is 16 random bytes as they come: no version or
/// variant bits are set.
fn uuid(_: &CallContext<'_>, _: &[Value], _: &Type) -> FunctionResult<Value> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| FunctionError::call(e.to_string()))?;
    Ok(Value::string(format_uuid(&bytes)))
}

fn hex_pair(pair: &[u8]) -> Option<u8> {
    let digit = |c: u8| (c as char).to_digit(16);
    Some((digit(pair[0])? * 16 + digit(pair[1])?) as u8)
}

/// google/uuid's `Parse`.
fn parse_uuid(s: &str) -> Result<[u8; 16], String> {
    let b = s.as_bytes();
    let mut out = [0u8; 16];
    let body: &[u8] = match b.len() {
        36 => b,
        45 => {
            if !b[..9].eq_ignore_ascii_case(b"urn:uuid:") {
                return Err(format!(
                    "invalid urn prefix: {}",
                    gostr::quote(&String::from_utf8_lossy(&b[..9]))
                ));
            }
            &b[9..]
        }
        38 => &b[1..],
        32 => {
            for (i, byte) in out.iter_mut().enumerate() {
                *byte = hex_pair(&b[i * 2..i * 2 + 2]).ok_or("invalid UUID format")?;
            }
            return Ok(out);
        }
        n => return Err(format!("invalid UUID length: {n}")),
    };
    if body[8] != b'-' || body[13] != b'-' || body[18] != b'-' || body[23] != b'-' {
        return Err("invalid UUID format".to_string());
    }
    const POSITIONS: [usize; 16] = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
    for (byte, &x) in out.iter_mut().zip(POSITIONS.iter()) {
        *byte = hex_pair(&body[x..x + 2]).ok_or("invalid UUID format")?;
    }
    Ok(out)
}

fn uuidv5(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let namespace = arg_str(args, 0)?;
    let name = arg_str(args, 1)?;
    let space = match namespace {
        "dns" => "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
        "url" => "6ba7b811-9dad-11d1-80b4-00c04fd430c8",
        "oid" => "6ba7b812-9dad-11d1-80b4-00c04fd430c8",
        "x500" => "6ba7b814-9dad-11d1-80b4-00c04fd430c8",
        other => other,
    };
    let space = parse_uuid(space).map_err(|e| {
        FunctionError::call(format!(
            "uuidv5() doesn't support namespace {namespace} ({e})"
        ))
    })?;
    let mut hasher = Sha1::new();
    hasher.update(space);
    hasher.update(name.as_bytes());
    let digest = hasher.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    bytes[6] = (bytes[6] & 0x0f) | 0x50;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    Ok(Value::string(format_uuid(&bytes)))
}

// ----- RSA -----

fn rsadecrypt(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let ciphertext = arg_str(args, 0)?;
    let key_text = arg_str(args, 1)?;
    let bytes = base64_decode(ciphertext.as_bytes()).map_err(|_| {
        FunctionError::arg(
            0,
            format!(
                "failed to decode input {}: cipher text must be base64-encoded",
                gostr::quote(ciphertext)
            ),
        )
    })?;
    let key = rsa::parse_private_key(key_text).map_err(|e| {
        FunctionError::arg(
            1,
            match e {
                rsa::KeyError::Syntax(message) => {
                    format!("invalid ASN1 data in the given private key: {message}")
                }
                rsa::KeyError::Structure(message) => format!("asn1: structure error: {message}"),
                rsa::KeyError::Other(message) => format!("invalid private key: {message}"),
                rsa::KeyError::NotRsa(kind) => format!("invalid private key type {kind}"),
            },
        )
    })?;
    let plaintext = rsa::decrypt_pkcs1v15(&key, &bytes)
        .ok_or_else(|| FunctionError::call("failed to decrypt: crypto/rsa: decryption error"))?;
    Ok(Value::string(String::from_utf8_lossy(&plaintext)))
}

#[cfg(test)]
mod tests;
