//! Client-side encryption of state and plan files, compatible with
//! OpenTofu's: a file written here decrypts there and the other way
//! round, given the same passphrase.
//!
//! The stored form is a JSON envelope: `meta` (per key provider, the
//! JSON of what is needed to derive the key again, base64 encoded),
//! `encrypted_data` (base64 of a 12-byte random nonce followed by the
//! AES-GCM ciphertext and tag) and `encryption_version` (`v0`, which
//! also marks the document as encrypted). A state envelope carries the
//! state's `serial` and `lineage` in the clear first, because backends
//! and tools look at them without decrypting; decryption checks they
//! match the decrypted state so that they cannot be swapped.
//!
//! A target (`state`, `plan`, a remote state data source) has its
//! methods in order: the first encrypts, every one of them (the
//! fallbacks) may decrypt, so that keys can be rotated and states moved
//! in and out of encryption (`unencrypted` as a method). The key for
//! writing is derived once per target with a fresh salt: every file this
//! process writes can be written even after the key source is gone, as a
//! crashing apply must still write `errored.tfstate`.

use std::collections::BTreeMap;
use std::sync::Arc;

use aes_gcm::aead::{Aead, KeyInit, Payload};
use base64::Engine as _;

/// The version the envelope carries; any other is refused.
pub const ENVELOPE_VERSION: &str = "v0";
/// AES-GCM's standard nonce, prefixed to the ciphertext.
pub const NONCE_LENGTH: usize = 12;
/// What OpenTofu refuses below, for pbkdf2.
pub const PBKDF2_MINIMUM_ITERATIONS: u32 = 200_000;
pub const PBKDF2_MINIMUM_PASSPHRASE_LENGTH: usize = 16;
pub const PBKDF2_DEFAULT_ITERATIONS: u32 = 600_000;
pub const PBKDF2_DEFAULT_KEY_LENGTH: usize = 32;
pub const PBKDF2_DEFAULT_SALT_LENGTH: usize = 32;

/// A failure of encryption, with the summary and detail of its
/// diagnostic (OpenTofu's where it has the same one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncryptionError {
    pub summary: String,
    pub detail: String,
}

impl EncryptionError {
    fn new(summary: impl Into<String>, detail: impl Into<String>) -> EncryptionError {
        EncryptionError {
            summary: summary.into(),
            detail: detail.into(),
        }
    }
}

impl std::fmt::Display for EncryptionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.detail.is_empty() {
            f.write_str(&self.summary)
        } else {
            write!(f, "{}: {}", self.summary, self.detail)
        }
    }
}

impl std::error::Error for EncryptionError {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashFunction {
    Sha256,
    Sha512,
}

impl HashFunction {
    pub fn from_name(name: &str) -> Option<HashFunction> {
        match name {
            "sha256" => Some(HashFunction::Sha256),
            "sha512" => Some(HashFunction::Sha512),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            HashFunction::Sha256 => "sha256",
            HashFunction::Sha512 => "sha512",
        }
    }
}

/// A `key_provider "pbkdf2"` block, with its defaults applied.
#[derive(Clone)]
pub struct Pbkdf2KeyProvider {
    /// `key_provider.pbkdf2.NAME`, or `encrypted_metadata_alias`: where
    /// its metadata is stored in the envelope.
    pub meta_key: String,
    pub passphrase: Vec<u8>,
    pub key_length: usize,
    pub iterations: u32,
    pub hash_function: HashFunction,
    pub salt_length: usize,
}

impl std::fmt::Debug for Pbkdf2KeyProvider {
    /// Never the passphrase, so that it cannot end up in a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pbkdf2KeyProvider")
            .field("meta_key", &self.meta_key)
            .field("key_length", &self.key_length)
            .field("iterations", &self.iterations)
            .field("hash_function", &self.hash_function)
            .field("salt_length", &self.salt_length)
            .finish_non_exhaustive()
    }
}

impl Pbkdf2KeyProvider {
    /// A provider with OpenTofu's defaults (sha512, 600000 iterations,
    /// 32-byte key and salt).
    pub fn new(meta_key: impl Into<String>, passphrase: impl Into<Vec<u8>>) -> Pbkdf2KeyProvider {
        Pbkdf2KeyProvider {
            meta_key: meta_key.into(),
            passphrase: passphrase.into(),
            key_length: PBKDF2_DEFAULT_KEY_LENGTH,
            iterations: PBKDF2_DEFAULT_ITERATIONS,
            hash_function: HashFunction::Sha512,
            salt_length: PBKDF2_DEFAULT_SALT_LENGTH,
        }
    }

    /// OpenTofu's checks when the provider is built.
    fn validate(&self) -> Result<(), String> {
        if self.passphrase.is_empty() {
            return Err("no passphrase provided and no chained provider defined".into());
        }
        if self.passphrase.len() < PBKDF2_MINIMUM_PASSPHRASE_LENGTH {
            return Err(format!(
                "passphrase is too short (minimum {PBKDF2_MINIMUM_PASSPHRASE_LENGTH} characters)"
            ));
        }
        if self.key_length == 0 {
            return Err("the key length must be larger than zero".into());
        }
        if self.iterations == 0 {
            return Err("the number of iterations must be larger than zero".into());
        }
        if self.iterations < PBKDF2_MINIMUM_ITERATIONS {
            return Err(format!("the number of iterations is dangerously low (<{PBKDF2_MINIMUM_ITERATIONS}), refusing to generate key"));
        }
        if self.salt_length == 0 {
            return Err("the salt length must be larger than zero".into());
        }
        Ok(())
    }
}

/// The key derivation parameters stored with a file, so that a reader
/// derives the same key from the passphrase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pbkdf2Metadata {
    pub salt: Vec<u8>,
    pub iterations: u32,
    pub hash_function: HashFunction,
    pub key_length: usize,
}

impl Pbkdf2Metadata {
    /// Its JSON, field order as OpenTofu writes it.
    pub fn to_json(&self) -> String {
        format!(
            "{{\"salt\":\"{}\",\"iterations\":{},\"hash_function\":\"{}\",\"key_length\":{}}}",
            base64::engine::general_purpose::STANDARD.encode(&self.salt),
            self.iterations,
            self.hash_function.name(),
            self.key_length
        )
    }

    /// `None` when the JSON holds no complete set of parameters (a file
    /// written with another key provider); an error when it is not
    /// metadata at all.
    pub fn from_json(bytes: &[u8]) -> Result<Option<Pbkdf2Metadata>, String> {
        let v: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        let salt = match v.get("salt") {
            None | Some(serde_json::Value::Null) => Vec::new(),
            Some(serde_json::Value::String(s)) => base64::engine::general_purpose::STANDARD
                .decode(s)
                .map_err(|e| format!("illegal base64 data in salt: {e}"))?,
            Some(_) => return Err("salt is not a string".into()),
        };
        let int = |name: &str| -> Result<i64, String> {
            match v.get(name) {
                None | Some(serde_json::Value::Null) => Ok(0),
                Some(n) => n.as_i64().ok_or_else(|| format!("{name} is not a number")),
            }
        };
        let iterations = int("iterations")?;
        let key_length = int("key_length")?;
        let hash = v
            .get("hash_function")
            .and_then(|h| h.as_str())
            .unwrap_or("");
        if salt.is_empty() || iterations == 0 || key_length == 0 || hash.is_empty() {
            return Ok(None);
        }
        if iterations < 0 {
            return Err(format!("invalid number of iterations ({iterations})"));
        }
        if key_length < 0 {
            return Err(format!("invalid key length ({key_length})"));
        }
        let hash_function = HashFunction::from_name(hash).ok_or_else(|| {
            format!("invalid hash function name: invalid hash function name: {hash}")
        })?;
        Ok(Some(Pbkdf2Metadata {
            salt,
            iterations: u32::try_from(iterations)
                .map_err(|_| format!("invalid number of iterations ({iterations})"))?,
            hash_function,
            key_length: usize::try_from(key_length)
                .map_err(|_| format!("invalid key length ({key_length})"))?,
        }))
    }
}

/// PBKDF2 with HMAC over the hash function `meta` names.
pub fn pbkdf2_derive(passphrase: &[u8], meta: &Pbkdf2Metadata) -> Vec<u8> {
    let mut key = vec![0u8; meta.key_length];
    match meta.hash_function {
        HashFunction::Sha256 => {
            pbkdf2::pbkdf2_hmac::<sha2::Sha256>(passphrase, &meta.salt, meta.iterations, &mut key)
        }
        HashFunction::Sha512 => {
            pbkdf2::pbkdf2_hmac::<sha2::Sha512>(passphrase, &meta.salt, meta.iterations, &mut key)
        }
    }
    key
}

/// A `key_provider "aws_kms"` block: data keys generated by KMS under
/// `key_id`, stored encrypted by KMS (`ciphertext_blob`) next to the
/// file and decrypted by KMS to read it.
#[derive(Clone)]
pub struct AwsKmsKeyProvider {
    pub meta_key: String,
    pub key_id: String,
    /// `AES_256` or `AES_128`.
    pub key_spec: String,
    pub region: String,
    /// The KMS endpoint URL (`https://kms.REGION.amazonaws.com` unless
    /// `endpoints { kms = ... }` says otherwise).
    pub endpoint: String,
    pub access_key: String,
    pub secret_key: String,
    pub token: Option<String>,
    pub insecure: bool,
}

impl std::fmt::Debug for AwsKmsKeyProvider {
    /// Never the credentials.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AwsKmsKeyProvider")
            .field("meta_key", &self.meta_key)
            .field("key_id", &self.key_id)
            .field("key_spec", &self.key_spec)
            .field("region", &self.region)
            .field("endpoint", &self.endpoint)
            .finish_non_exhaustive()
    }
}

impl AwsKmsKeyProvider {
    fn api(&self) -> crate::backend::aws::JsonApi {
        crate::backend::aws::JsonApi {
            agent: crate::backend::aws::agent(self.insecure),
            endpoint: self.endpoint.clone(),
            region: self.region.clone(),
            credentials: crate::backend::aws::Credentials {
                access_key: self.access_key.clone(),
                secret_key: self.secret_key.clone(),
                token: self.token.clone(),
            },
            service: "kms",
            display: "KMS",
            content_type: "application/x-amz-json-1.1",
            target_prefix: "TrentService",
        }
    }

    fn validate(&self) -> Result<(), String> {
        if self.key_id.is_empty() {
            return Err("no kms_key_id provided".into());
        }
        if self.key_spec != "AES_256" && self.key_spec != "AES_128" {
            return Err(format!(
                "invalid key_spec {}, expected one of: AES_256, AES_128",
                self.key_spec
            ));
        }
        if self.region.is_empty() {
            return Err("no region provided".into());
        }
        Ok(())
    }

    fn generate(&self) -> Result<(Vec<u8>, String), String> {
        let reply = self
            .api()
            .call(
                "GenerateDataKey",
                &serde_json::json!({"KeyId": self.key_id, "KeySpec": self.key_spec}),
            )
            .map_err(|e| format!("failed to generate key: {e}"))?;
        let field = |name: &str| -> Result<String, String> {
            reply[name]
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("failed to generate key: the reply has no {name}"))
        };
        let plaintext = base64::engine::general_purpose::STANDARD
            .decode(field("Plaintext")?)
            .map_err(|e| format!("failed to generate key: {e}"))?;
        let meta = format!("{{\"ciphertext_blob\":\"{}\"}}", field("CiphertextBlob")?);
        Ok((plaintext, meta))
    }

    fn decrypt(&self, stored: &[u8]) -> Result<Option<Vec<u8>>, String> {
        let v: serde_json::Value = serde_json::from_slice(stored).map_err(|e| e.to_string())?;
        let blob = v["ciphertext_blob"].as_str().unwrap_or("");
        if blob.is_empty() {
            return Ok(None);
        }
        let reply = self
            .api()
            .call(
                "Decrypt",
                &serde_json::json!({"KeyId": self.key_id, "CiphertextBlob": blob}),
            )
            .map_err(|e| e.to_string())?;
        let plaintext = reply["Plaintext"]
            .as_str()
            .ok_or("the Decrypt reply has no Plaintext")?;
        base64::engine::general_purpose::STANDARD
            .decode(plaintext)
            .map(Some)
            .map_err(|e| e.to_string())
    }
}

/// A key provider: what derives keys, and what it stores to derive them
/// again.
#[derive(Clone, Debug)]
pub enum KeyProvider {
    Pbkdf2(Pbkdf2KeyProvider),
    AwsKms(Box<AwsKmsKeyProvider>),
}

impl KeyProvider {
    fn meta_key(&self) -> &str {
        match self {
            KeyProvider::Pbkdf2(p) => &p.meta_key,
            KeyProvider::AwsKms(k) => &k.meta_key,
        }
    }

    fn validate(&self) -> Result<(), EncryptionError> {
        match self {
            KeyProvider::Pbkdf2(p) => p.validate().map_err(|e| {
                EncryptionError::new(
                    "Unable to build encryption key data",
                    format!(
                        "{} failed with error: invalid key provider configuration: {e}",
                        p.meta_key
                    ),
                )
            }),
            KeyProvider::AwsKms(k) => k.validate().map_err(|e| {
                EncryptionError::new(
                    "Unable to build encryption key data",
                    format!(
                        "{} failed with error: invalid key provider configuration: {e}",
                        k.meta_key
                    ),
                )
            }),
        }
    }

    /// A new key to encrypt with and the metadata to store next to it.
    fn encryption_key(&self) -> Result<(Vec<u8>, String), EncryptionError> {
        match self {
            KeyProvider::Pbkdf2(p) => {
                let mut salt = vec![0u8; p.salt_length];
                getrandom::fill(&mut salt).map_err(|e| {
                    EncryptionError::new(
                        "Unable to fetch encryption key data",
                        format!(
                            "{} failed with error: failed to obtain {} bytes of random data: {e}",
                            p.meta_key, p.salt_length
                        ),
                    )
                })?;
                let meta = Pbkdf2Metadata {
                    salt,
                    iterations: p.iterations,
                    hash_function: p.hash_function,
                    key_length: p.key_length,
                };
                Ok((pbkdf2_derive(&p.passphrase, &meta), meta.to_json()))
            }
            KeyProvider::AwsKms(k) => k.generate().map_err(|e| {
                EncryptionError::new(
                    "Unable to fetch encryption key data",
                    format!("{} failed with error: {e}", k.meta_key),
                )
            }),
        }
    }

    /// The key to decrypt a file whose envelope has `meta`; `None` when
    /// the file holds no metadata of this provider (it was not written
    /// with it).
    fn decryption_key(
        &self,
        meta: &BTreeMap<String, Vec<u8>>,
    ) -> Result<Option<Vec<u8>>, EncryptionError> {
        let Some(stored) = meta.get(self.meta_key()) else {
            return Ok(None);
        };
        match self {
            KeyProvider::Pbkdf2(p) => {
                let parsed = Pbkdf2Metadata::from_json(stored).map_err(|e| {
                    EncryptionError::new(
                        "Unable to decode encrypted metadata (did you change your encryption config?)",
                        format!("metadata decoder for {} failed with error: {e}", p.meta_key),
                    )
                })?;
                Ok(parsed.map(|m| pbkdf2_derive(&p.passphrase, &m)))
            }
            KeyProvider::AwsKms(k) => k.decrypt(stored).map_err(|e| {
                EncryptionError::new(
                    "Unable to fetch encryption key data",
                    format!("{} failed with error: {e}", k.meta_key),
                )
            }),
        }
    }
}

/// An encryption method block.
#[derive(Clone, Debug)]
pub enum Method {
    /// `method "unencrypted"`: plain files, for moving in and out of
    /// encryption.
    Unencrypted { address: String },
    /// `method "aes_gcm"`: AES-GCM with the key of `keys`, `aad` as
    /// additional authenticated data.
    AesGcm {
        address: String,
        keys: KeyProvider,
        aad: Vec<u8>,
    },
}

impl Method {
    pub fn address(&self) -> &str {
        match self {
            Method::Unencrypted { address } | Method::AesGcm { address, .. } => address,
        }
    }

    pub fn is_unencrypted(&self) -> bool {
        matches!(self, Method::Unencrypted { .. })
    }
}

fn check_aes_key_length(key: &[u8], which: &str) -> Result<(), EncryptionError> {
    if matches!(key.len(), 16 | 24 | 32) {
        return Ok(());
    }
    Err(EncryptionError::new(
        "Invalid method configuration",
        format!(
            "invalid method configuration: AES-GCM requires the key length to be one of: 16, 24, 32, received {} bytes in the {which} key",
            key.len()
        ),
    ))
}

fn aes_gcm_seal(key: &[u8], aad: &[u8], plain: &[u8]) -> Result<Vec<u8>, String> {
    let mut nonce = [0u8; NONCE_LENGTH];
    getrandom::fill(&mut nonce).map_err(|e| format!("could not generate nonce ({e})"))?;
    aes_gcm_seal_with_nonce(key, aad, &nonce, plain)
}

/// The stored form: nonce, then ciphertext and tag.
pub fn aes_gcm_seal_with_nonce(
    key: &[u8],
    aad: &[u8],
    nonce: &[u8; NONCE_LENGTH],
    plain: &[u8],
) -> Result<Vec<u8>, String> {
    let payload = Payload { msg: plain, aad };
    let nonce_ref = aes_gcm::Nonce::from_slice(nonce);
    let sealed = match key.len() {
        16 => aes_gcm::Aes128Gcm::new_from_slice(key)
            .map_err(|e| e.to_string())?
            .encrypt(nonce_ref, payload),
        32 => aes_gcm::Aes256Gcm::new_from_slice(key)
            .map_err(|e| e.to_string())?
            .encrypt(nonce_ref, payload),
        24 => {
            aes_gcm::AesGcm::<aes_gcm::aes::Aes192, aes_gcm::aead::consts::U12>::new_from_slice(key)
                .map_err(|e| e.to_string())?
                .encrypt(nonce_ref, payload)
        }
        n => return Err(format!("crypto/aes: invalid key size {n}")),
    }
    .map_err(|_| "encryption failed".to_string())?;
    let mut out = nonce.to_vec();
    out.extend(sealed);
    Ok(out)
}

pub fn aes_gcm_open(key: &[u8], aad: &[u8], data: &[u8]) -> Result<Vec<u8>, String> {
    if data.is_empty() {
        return Err("decryption failed: cannot decrypt empty data".into());
    }
    if data.len() < NONCE_LENGTH {
        return Err(
            "decryption failed: cannot decrypt data because it is too small (likely data corruption)"
                .into(),
        );
    }
    let (nonce, sealed) = data.split_at(NONCE_LENGTH);
    let nonce = aes_gcm::Nonce::from_slice(nonce);
    let payload = Payload { msg: sealed, aad };
    let opened = match key.len() {
        16 => aes_gcm::Aes128Gcm::new_from_slice(key)
            .map_err(|e| e.to_string())?
            .decrypt(nonce, payload),
        32 => aes_gcm::Aes256Gcm::new_from_slice(key)
            .map_err(|e| e.to_string())?
            .decrypt(nonce, payload),
        24 => {
            aes_gcm::AesGcm::<aes_gcm::aes::Aes192, aes_gcm::aead::consts::U12>::new_from_slice(key)
                .map_err(|e| e.to_string())?
                .decrypt(nonce, payload)
        }
        n => {
            return Err(format!(
                "decryption failed: crypto/aes: invalid key size {n}"
            ))
        }
    };
    // Go's wording for a wrong key or tampered data.
    opened.map_err(|_| "decryption failed: cipher: message authentication failed".to_string())
}

/// What reading a file found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadStatus {
    /// Read with the first (writing) method: nothing to migrate.
    Satisfied,
    /// Read with a fallback: the next write moves it to the first method.
    Migration,
}

/// The key the first method writes with, prepared once.
#[derive(Clone)]
struct Encryptor {
    key: Vec<u8>,
    aad: Vec<u8>,
    meta: BTreeMap<String, String>,
}

/// One target's methods, in fallback order, and its encryptor (`None`
/// when the first method is `unencrypted`), prepared on the first write:
/// a command that only reads does not pay for deriving a key it never
/// uses.
pub struct Target {
    name: String,
    methods: Vec<Method>,
    encryptor: std::sync::OnceLock<Result<Option<Encryptor>, EncryptionError>>,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target")
            .field("name", &self.name)
            .field("methods", &self.methods)
            .finish_non_exhaustive()
    }
}

impl Target {
    /// `name` names the target in messages (`state`, `plan`,
    /// `remote.default`...). `methods` is the method, then its fallbacks.
    /// With `enforced`, an `unencrypted` method anywhere is refused.
    pub fn new(
        name: &str,
        methods: Vec<Method>,
        enforced: bool,
    ) -> Result<Target, EncryptionError> {
        if enforced && methods.iter().any(Method::is_unencrypted) {
            return Err(EncryptionError::new(
                "Unencrypted method is forbidden",
                "Unable to use unencrypted method since the enforced flag is set.",
            ));
        }
        let Some(first) = methods.first() else {
            return Err(EncryptionError::new(
                "Invalid encryption method identifier",
                "Expected method of form method.<type>.<name>",
            ));
        };
        for m in &methods {
            if let Method::AesGcm { keys, .. } = m {
                keys.validate()?;
            }
        }
        if let Method::AesGcm {
            keys: KeyProvider::Pbkdf2(p),
            ..
        } = first
        {
            // What the derived key's length will be, checked now rather
            // than at the first write.
            check_aes_key_length(&vec![0; p.key_length], "encryption")?;
        }
        Ok(Target {
            name: name.to_string(),
            methods,
            encryptor: std::sync::OnceLock::new(),
        })
    }

    fn encryptor(&self) -> Result<Option<&Encryptor>, EncryptionError> {
        let prepared = self.encryptor.get_or_init(|| match &self.methods[0] {
            Method::Unencrypted { .. } => Ok(None),
            Method::AesGcm { keys, aad, .. } => {
                let (key, meta) = keys.encryption_key()?;
                check_aes_key_length(&key, "encryption")?;
                Ok(Some(Encryptor {
                    key,
                    aad: aad.clone(),
                    meta: [(keys.meta_key().to_string(), meta)].into_iter().collect(),
                }))
            }
        });
        match prepared {
            Ok(e) => Ok(e.as_ref()),
            Err(e) => Err(e.clone()),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether files are written encrypted.
    pub fn encrypts(&self) -> bool {
        !self.methods[0].is_unencrypted()
    }

    /// `meta`, `encrypted_data`, `encryption_version` as JSON members
    /// (without braces); `None` when writing unencrypted.
    fn seal(&self, plain: &[u8]) -> Result<Option<String>, EncryptionError> {
        let Some(enc) = self.encryptor()? else {
            return Ok(None);
        };
        let sealed = aes_gcm_seal(&enc.key, &enc.aad, plain).map_err(|e| {
            EncryptionError::new(
                "Failed to encrypt",
                format!(
                    "encryption failed for {}: encryption failed: {e}",
                    self.name
                ),
            )
        })?;
        Ok(Some(envelope_members(&enc.meta, &sealed)))
    }

    /// The plain bytes of `data`, which `looks_plain` recognises when it
    /// is not an envelope.
    fn open(
        &self,
        data: &[u8],
        looks_plain: &dyn Fn(&[u8]) -> Result<(), String>,
    ) -> Result<(Vec<u8>, ReadStatus), EncryptionError> {
        let failed = |detail: String| EncryptionError::new(decrypt_summary(&self.name), detail);
        let parsed: Result<serde_json::Value, _> = serde_json::from_slice(data);
        let version = parsed
            .as_ref()
            .ok()
            .and_then(|v| v.get("encryption_version"))
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_string();
        if version.is_empty() {
            if let Err(e) = looks_plain(data) {
                return Err(failed(match &parsed {
                    Err(json) => format!("invalid data format for decryption: {json}, {e}"),
                    Ok(_) => format!("unable to determine data structure during decryption: {e}"),
                }));
            }
            if !self.methods.iter().any(Method::is_unencrypted) {
                return Err(failed(
                    "encountered unencrypted payload without unencrypted method configured".into(),
                ));
            }
            let status = if self.methods[0].is_unencrypted() {
                ReadStatus::Satisfied
            } else {
                ReadStatus::Migration
            };
            return Ok((data.to_vec(), status));
        }
        if version != ENVELOPE_VERSION {
            return Err(failed(format!(
                "invalid encrypted payload version: {version} != {ENVELOPE_VERSION}"
            )));
        }
        let envelope = parsed.unwrap_or_default();
        let meta = envelope_meta(&envelope).map_err(failed)?;
        let sealed = match envelope.get("encrypted_data") {
            Some(serde_json::Value::String(s)) => base64::engine::general_purpose::STANDARD
                .decode(s)
                .map_err(|e| failed(format!("illegal base64 data in encrypted_data: {e}")))?,
            _ => Vec::new(),
        };
        let mut errors = Vec::new();
        for (i, method) in self.methods.iter().enumerate() {
            let Method::AesGcm { keys, aad, .. } = method else {
                continue;
            };
            let attempt = match keys.decryption_key(&meta)? {
                None => Err("no decryption key available".to_string()),
                Some(key) => check_aes_key_length(&key, "decryption")
                    .map_err(|e| e.detail)
                    .and_then(|_| aes_gcm_open(&key, aad, &sealed)),
            };
            match attempt {
                Ok(plain) => {
                    let status = if i == 0 {
                        ReadStatus::Satisfied
                    } else {
                        ReadStatus::Migration
                    };
                    return Ok((plain, status));
                }
                Err(e) => errors.push(format!(
                    "attempted decryption failed for {}: {e}",
                    self.name
                )),
            }
        }
        let mut detail = "decryption failed for all provided methods".to_string();
        for e in errors {
            detail.push('\n');
            detail.push_str(&e);
        }
        Err(failed(detail))
    }
}

fn decrypt_summary(target: &str) -> String {
    match target {
        "plan" => "Failed to decrypt the plan file".to_string(),
        _ => "Failed to decrypt the state".to_string(),
    }
}

fn envelope_members(meta: &BTreeMap<String, String>, sealed: &[u8]) -> String {
    let b64 = &base64::engine::general_purpose::STANDARD;
    let meta_json: Vec<String> = meta
        .iter()
        .map(|(k, v)| {
            format!(
                "{}:\"{}\"",
                terrace_gocompat::json::quote(k),
                b64.encode(v.as_bytes())
            )
        })
        .collect();
    format!(
        "\"meta\":{{{}}},\"encrypted_data\":\"{}\",\"encryption_version\":\"{ENVELOPE_VERSION}\"",
        meta_json.join(","),
        b64.encode(sealed)
    )
}

fn envelope_meta(envelope: &serde_json::Value) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let mut out = BTreeMap::new();
    match envelope.get("meta") {
        None | Some(serde_json::Value::Null) => {}
        Some(serde_json::Value::Object(members)) => {
            for (k, v) in members {
                let bytes = match v {
                    serde_json::Value::String(text) => base64::engine::general_purpose::STANDARD
                        .decode(text)
                        .map_err(|e| format!("illegal base64 data in the metadata of {k}: {e}"))?,
                    // Metadata written as a JSON object rather than its
                    // base64 bytes (hand-made files) means the same.
                    serde_json::Value::Object(_) => v.to_string().into_bytes(),
                    _ => return Err(format!("the metadata of {k} is not a string")),
                };
                out.insert(k.clone(), bytes);
            }
        }
        Some(_) => return Err("the envelope's meta is not an object".into()),
    }
    Ok(out)
}

/// Whether `data` is an encryption envelope.
pub fn is_envelope(data: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(data)
        .ok()
        .and_then(|v| {
            v.get("encryption_version")
                .and_then(|v| v.as_str())
                .map(|s| !s.is_empty())
        })
        .unwrap_or(false)
}

/// The encryption of a working directory: one target each for states,
/// plans and remote state data sources (`None`: not encrypted).
#[derive(Clone, Debug, Default)]
pub struct Encryption {
    pub state: Option<Arc<Target>>,
    pub plan: Option<Arc<Target>>,
    pub remote_default: Option<Arc<Target>>,
    pub remote_named: BTreeMap<String, Arc<Target>>,
}

impl Encryption {
    pub fn disabled() -> Encryption {
        Encryption::default()
    }

    pub fn state(&self) -> StateCodec {
        StateCodec(self.state.clone())
    }

    pub fn plan(&self) -> PlanCodec {
        PlanCodec(self.plan.clone())
    }

    /// For every `terraform_remote_state` data source: the `default` of
    /// `remote_state_data_sources`.
    pub fn remote_state_default(&self) -> StateCodec {
        StateCodec(self.remote_default.clone())
    }

    /// For the `terraform_remote_state` data source named `name`.
    pub fn remote_state(&self, name: &str) -> StateCodec {
        StateCodec(
            self.remote_named
                .get(name)
                .cloned()
                .or_else(|| self.remote_default.clone()),
        )
    }
}

/// How a state file's bytes are stored: as they are, or in an envelope.
#[derive(Clone, Debug, Default)]
pub struct StateCodec(pub Option<Arc<Target>>);

impl StateCodec {
    pub fn disabled() -> StateCodec {
        StateCodec(None)
    }

    pub fn is_enabled(&self) -> bool {
        self.0.is_some()
    }

    /// The stored form of the state file `plain`. It takes the bytes by
    /// value so that writing unencrypted, the common case, hands them on
    /// without copying a large state.
    pub fn encrypt(&self, plain: Vec<u8>) -> Result<Vec<u8>, EncryptionError> {
        let Some(target) = &self.0 else {
            return Ok(plain);
        };
        let doc: serde_json::Value = serde_json::from_slice(&plain).map_err(|e| {
            EncryptionError::new(
                "Failed to encrypt",
                format!("encryption failed for {}: {e}", target.name),
            )
        })?;
        let Some(members) = target.seal(&plain)? else {
            return Ok(plain);
        };
        let serial = match doc.get("serial") {
            Some(n @ serde_json::Value::Number(_)) => n.to_string(),
            _ => "null".to_string(),
        };
        let lineage = doc.get("lineage").and_then(|l| l.as_str()).unwrap_or("");
        Ok(format!(
            "{{\"serial\":{serial},\"lineage\":{},{members}}}",
            terrace_gocompat::json::quote(lineage)
        )
        .into_bytes())
    }

    /// The state file in `stored`, and whether it still has to move to
    /// the first method.
    /// Without encryption the stored bytes are the plain ones, borrowed:
    /// a large state is not copied.
    pub fn decrypt<'a>(
        &self,
        stored: &'a [u8],
    ) -> Result<(std::borrow::Cow<'a, [u8]>, ReadStatus), EncryptionError> {
        let Some(target) = &self.0 else {
            return Ok((std::borrow::Cow::Borrowed(stored), ReadStatus::Satisfied));
        };
        let (plain, status) = target.open(stored, &|data| {
            let v: serde_json::Value = serde_json::from_slice(data).map_err(|e| e.to_string())?;
            match v.get("terraform_version").and_then(|t| t.as_str()) {
                Some(t) if !t.is_empty() => Ok(()),
                _ => Err("Given payload is not a state file".into()),
            }
        })?;
        // The clear serial and lineage must be the encrypted state's.
        if is_envelope(stored) {
            let outer: serde_json::Value = serde_json::from_slice(stored).unwrap_or_default();
            let inner: serde_json::Value = serde_json::from_slice(&plain).unwrap_or_default();
            let mismatch = |what: &str, a: &serde_json::Value, b: &serde_json::Value| {
                EncryptionError::new(
                    decrypt_summary(&target.name),
                    format!("invalid state metadata, {what} field mismatch {a} vs {b}"),
                )
            };
            if let (Some(a), Some(b)) = (outer.get("serial"), inner.get("serial")) {
                if !a.is_null() && !b.is_null() && a != b {
                    return Err(mismatch("serial", a, b));
                }
            }
            if let Some(a) = outer.get("lineage").filter(|l| l.as_str() != Some("")) {
                let b = inner.get("lineage").cloned().unwrap_or_default();
                if a != &b {
                    return Err(mismatch("linage", a, &b));
                }
            }
        }
        Ok((std::borrow::Cow::Owned(plain), status))
    }
}

/// How a saved plan file's bytes are stored.
#[derive(Clone, Debug, Default)]
pub struct PlanCodec(pub Option<Arc<Target>>);

impl PlanCodec {
    pub fn is_enabled(&self) -> bool {
        self.0.is_some()
    }

    pub fn encrypt(&self, plain: &[u8]) -> Result<Vec<u8>, EncryptionError> {
        let Some(target) = &self.0 else {
            return Ok(plain.to_vec());
        };
        match target.seal(plain)? {
            None => Ok(plain.to_vec()),
            Some(members) => Ok(format!("{{{members}}}").into_bytes()),
        }
    }

    pub fn decrypt(&self, stored: &[u8]) -> Result<Vec<u8>, EncryptionError> {
        let Some(target) = &self.0 else {
            return Ok(stored.to_vec());
        };
        let (plain, _) = target.open(stored, &|data| {
            if data.len() < 2 || &data[..2] != b"PK" {
                return Err(format!(
                    "Invalid plan file {}",
                    String::from_utf8_lossy(&data[..data.len().min(2)])
                ));
            }
            Ok(())
        })?;
        Ok(plain)
    }
}

#[cfg(test)]
#[path = "encryption_tests.rs"]
mod tests;
