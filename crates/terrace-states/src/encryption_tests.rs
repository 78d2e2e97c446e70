use super::*;

const PASSPHRASE: &str = "correct-horse-battery-staple";
const PLAIN_STATE: &str = "{\n  \"version\": 4,\n  \"terraform_version\": \"1.11.4\",\n  \"serial\": 7,\n  \"lineage\": \"0b1c2d3e-aaaa-bbbb-cccc-0123456789ab\",\n  \"outputs\": {},\n  \"resources\": [],\n  \"check_results\": null\n}\n";

/// The lowest iteration count allowed keeps the tests quick.
fn pbkdf2(name: &str, passphrase: &str) -> KeyProvider {
    let mut p = Pbkdf2KeyProvider::new(format!("key_provider.pbkdf2.{name}"), passphrase);
    p.iterations = PBKDF2_MINIMUM_ITERATIONS;
    KeyProvider::Pbkdf2(p)
}

fn aes_gcm(name: &str, keys: KeyProvider) -> Method {
    Method::AesGcm {
        address: format!("method.aes_gcm.{name}"),
        keys,
        aad: Vec::new(),
    }
}

fn unencrypted() -> Method {
    Method::Unencrypted {
        address: "method.unencrypted.migrate".into(),
    }
}

fn state_codec(methods: Vec<Method>, enforced: bool) -> StateCodec {
    StateCodec(Some(Arc::new(
        Target::new("state", methods, enforced).expect("valid target"),
    )))
}

fn json(bytes: &[u8]) -> serde_json::Value {
    serde_json::from_slice(bytes).expect("JSON")
}

#[test]
fn a_state_round_trips_and_its_envelope_has_opentofus_fields() {
    let codec = state_codec(vec![aes_gcm("m", pbkdf2("k", PASSPHRASE))], false);
    let stored = codec
        .encrypt(PLAIN_STATE.as_bytes().to_vec())
        .expect("encrypts");
    let text = String::from_utf8(stored.clone()).expect("text");
    assert!(
        text.starts_with(
            "{\"serial\":7,\"lineage\":\"0b1c2d3e-aaaa-bbbb-cccc-0123456789ab\",\"meta\":{\"key_provider.pbkdf2.k\":\""
        ),
        "{text}"
    );
    assert!(
        text.ends_with("\",\"encryption_version\":\"v0\"}"),
        "{text}"
    );
    assert!(!text.contains("outputs"), "the state is not in the clear");
    let envelope = json(&stored);
    let meta_b64 = envelope["meta"]["key_provider.pbkdf2.k"]
        .as_str()
        .expect("meta");
    let meta = base64::engine::general_purpose::STANDARD
        .decode(meta_b64)
        .expect("base64");
    let meta = json(&meta);
    assert_eq!(meta["iterations"], 200000);
    assert_eq!(meta["hash_function"], "sha512");
    assert_eq!(meta["key_length"], 32);
    let salt = base64::engine::general_purpose::STANDARD
        .decode(meta["salt"].as_str().expect("salt"))
        .expect("salt base64");
    assert_eq!(salt.len(), 32);
    let data = base64::engine::general_purpose::STANDARD
        .decode(envelope["encrypted_data"].as_str().expect("data"))
        .expect("data base64");
    // Nonce, ciphertext as long as the plaintext, 16-byte tag.
    assert_eq!(data.len(), NONCE_LENGTH + PLAIN_STATE.len() + 16);

    let (plain, status) = codec.decrypt(&stored).expect("decrypts");
    assert_eq!(plain, PLAIN_STATE.as_bytes());
    assert_eq!(status, ReadStatus::Satisfied);
}

#[test]
fn two_writes_use_different_nonces() {
    let codec = state_codec(vec![aes_gcm("m", pbkdf2("k", PASSPHRASE))], false);
    let a = codec
        .encrypt(PLAIN_STATE.as_bytes().to_vec())
        .expect("encrypts");
    let b = codec
        .encrypt(PLAIN_STATE.as_bytes().to_vec())
        .expect("encrypts");
    assert_ne!(json(&a)["encrypted_data"], json(&b)["encrypted_data"]);
}

#[test]
fn a_wrong_passphrase_is_refused_with_opentofus_error() {
    let writer = state_codec(vec![aes_gcm("m", pbkdf2("k", PASSPHRASE))], false);
    let stored = writer
        .encrypt(PLAIN_STATE.as_bytes().to_vec())
        .expect("encrypts");
    let reader = state_codec(
        vec![aes_gcm("m", pbkdf2("k", "a-different-long-passphrase"))],
        false,
    );
    let err = reader.decrypt(&stored).expect_err("refused");
    assert_eq!(err.summary, "Failed to decrypt the state");
    assert_eq!(
        err.detail,
        "decryption failed for all provided methods\nattempted decryption failed for state: decryption failed: cipher: message authentication failed"
    );
}

#[test]
fn a_fallback_reads_what_the_old_key_wrote_and_the_new_key_writes() {
    let old = state_codec(vec![aes_gcm("old", pbkdf2("old", PASSPHRASE))], false);
    let stored = old
        .encrypt(PLAIN_STATE.as_bytes().to_vec())
        .expect("encrypts");
    let rotated = state_codec(
        vec![
            aes_gcm("new", pbkdf2("new", "the-new-passphrase-for-rotation")),
            aes_gcm("old", pbkdf2("old", PASSPHRASE)),
        ],
        false,
    );
    let (plain, status) = rotated.decrypt(&stored).expect("the fallback decrypts");
    assert_eq!(plain, PLAIN_STATE.as_bytes());
    assert_eq!(status, ReadStatus::Migration);
    let rewritten = rotated.encrypt(plain.to_vec()).expect("encrypts");
    let meta = json(&rewritten)["meta"].clone();
    assert!(meta.get("key_provider.pbkdf2.new").is_some(), "{meta}");
    assert!(meta.get("key_provider.pbkdf2.old").is_none(), "{meta}");
    // The old key alone no longer reads it.
    let err = old.decrypt(&rewritten).expect_err("old key refused");
    assert!(
        err.detail
            .ends_with("attempted decryption failed for state: no decryption key available"),
        "{}",
        err.detail
    );
}

#[test]
fn unencrypted_state_needs_the_unencrypted_method() {
    let strict = state_codec(vec![aes_gcm("m", pbkdf2("k", PASSPHRASE))], false);
    let err = strict.decrypt(PLAIN_STATE.as_bytes()).expect_err("refused");
    assert_eq!(
        err.detail,
        "encountered unencrypted payload without unencrypted method configured"
    );
    let migrating = state_codec(
        vec![aes_gcm("m", pbkdf2("k", PASSPHRASE)), unencrypted()],
        false,
    );
    let (plain, status) = migrating.decrypt(PLAIN_STATE.as_bytes()).expect("reads");
    assert_eq!(plain, PLAIN_STATE.as_bytes());
    assert_eq!(status, ReadStatus::Migration);

    // And back out: unencrypted first, the key as fallback.
    let stored = strict
        .encrypt(PLAIN_STATE.as_bytes().to_vec())
        .expect("encrypts");
    let leaving = state_codec(
        vec![unencrypted(), aes_gcm("m", pbkdf2("k", PASSPHRASE))],
        false,
    );
    let (plain, status) = leaving.decrypt(&stored).expect("reads");
    assert_eq!(status, ReadStatus::Migration);
    assert_eq!(
        leaving.encrypt(plain.to_vec()).expect("writes"),
        PLAIN_STATE.as_bytes()
    );
}

#[test]
fn enforced_refuses_the_unencrypted_method() {
    let err = Target::new(
        "state",
        vec![aes_gcm("m", pbkdf2("k", PASSPHRASE)), unencrypted()],
        true,
    )
    .expect_err("refused");
    assert_eq!(err.summary, "Unencrypted method is forbidden");
}

#[test]
fn weak_pbkdf2_settings_are_refused() {
    let mut p = Pbkdf2KeyProvider::new("key_provider.pbkdf2.k", "short");
    let err = Target::new(
        "state",
        vec![aes_gcm("m", KeyProvider::Pbkdf2(p.clone()))],
        false,
    )
    .expect_err("refused");
    assert_eq!(err.summary, "Unable to build encryption key data");
    assert!(
        err.detail
            .contains("passphrase is too short (minimum 16 characters)"),
        "{}",
        err.detail
    );
    p.passphrase = PASSPHRASE.into();
    p.iterations = 1000;
    let err = Target::new(
        "state",
        vec![aes_gcm("m", KeyProvider::Pbkdf2(p.clone()))],
        false,
    )
    .expect_err("refused");
    assert!(err.detail.contains("dangerously low"), "{}", err.detail);
    p.iterations = PBKDF2_MINIMUM_ITERATIONS;
    p.key_length = 20;
    let err = Target::new("state", vec![aes_gcm("m", KeyProvider::Pbkdf2(p))], false)
        .expect_err("refused");
    assert_eq!(err.summary, "Invalid method configuration");
    assert!(err.detail.contains("received 20 bytes"), "{}", err.detail);
}

#[test]
fn swapped_clear_metadata_is_refused() {
    let codec = state_codec(vec![aes_gcm("m", pbkdf2("k", PASSPHRASE))], false);
    let stored = codec
        .encrypt(PLAIN_STATE.as_bytes().to_vec())
        .expect("encrypts");
    let text = String::from_utf8(stored).expect("text");
    let tampered = text.replacen("\"serial\":7", "\"serial\":8", 1);
    let err = codec.decrypt(tampered.as_bytes()).expect_err("refused");
    assert_eq!(
        err.detail,
        "invalid state metadata, serial field mismatch 8 vs 7"
    );
}

#[test]
fn an_unknown_envelope_version_is_refused() {
    let codec = state_codec(vec![aes_gcm("m", pbkdf2("k", PASSPHRASE))], false);
    let err = codec
        .decrypt(br#"{"serial":1,"lineage":"x","meta":{},"encrypted_data":"","encryption_version":"v9"}"#)
        .expect_err("refused");
    assert_eq!(err.detail, "invalid encrypted payload version: v9 != v0");
}

/// A state encrypted by following OpenTofu's algorithm step by step in
/// another implementation (`scripts/record-opentofu-encrypted-state`,
/// Python's hashlib and `cryptography`): terrace decrypts it, and what
/// terrace writes has the same envelope.
#[test]
fn a_state_in_opentofus_format_decrypts() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/");
    let stored = std::fs::read(format!("{data}opentofu_pbkdf2_aes_gcm.tfstate")).expect("fixture");
    let expected =
        std::fs::read(format!("{data}opentofu_pbkdf2_aes_gcm.plain.json")).expect("fixture");
    let codec = StateCodec(Some(Arc::new(
        Target::new(
            "state",
            vec![aes_gcm(
                "main",
                KeyProvider::Pbkdf2(Pbkdf2KeyProvider::new(
                    "key_provider.pbkdf2.main",
                    "opentofu-compatible-passphrase",
                )),
            )],
            false,
        )
        .expect("valid"),
    )));
    let (plain, status) = codec.decrypt(&stored).expect("decrypts");
    assert_eq!(plain, expected);
    assert_eq!(status, ReadStatus::Satisfied);
    let (state, _) = crate::statefile::read(&plain).expect("a state");
    assert_eq!(state.serial, 3);

    // terrace's envelope: the same members, in the same order, the same
    // metadata fields.
    let ours = codec.encrypt(plain.to_vec()).expect("encrypts");
    let keys = |bytes: &[u8]| -> Vec<String> {
        let text = String::from_utf8_lossy(bytes).to_string();
        [
            "\"serial\":",
            "\"lineage\":",
            "\"meta\":",
            "\"encrypted_data\":",
            "\"encryption_version\":",
        ]
        .iter()
        .map(|k| {
            format!(
                "{k}@{}",
                text.find(k).map(|_| "present").unwrap_or("absent")
            )
        })
        .collect()
    };
    assert_eq!(keys(&ours), keys(&stored));
    let order = |bytes: &[u8]| -> Vec<usize> {
        let text = String::from_utf8_lossy(bytes).to_string();
        [
            "\"serial\":",
            "\"lineage\":",
            "\"meta\":",
            "\"encrypted_data\":",
            "\"encryption_version\":",
        ]
        .iter()
        .filter_map(|k| text.find(k))
        .collect()
    };
    let ours_order = order(&ours);
    assert!(ours_order.windows(2).all(|w| w[0] < w[1]), "{ours_order:?}");
    let meta_of = |bytes: &[u8]| -> Vec<String> {
        let v = json(bytes);
        let m = base64::engine::general_purpose::STANDARD
            .decode(v["meta"]["key_provider.pbkdf2.main"].as_str().unwrap_or(""))
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&m).to_string();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        let mut fields: Vec<String> = value
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        fields.sort();
        fields
    };
    assert_eq!(meta_of(&ours), meta_of(&stored));
    assert_eq!(
        meta_of(&ours),
        vec!["hash_function", "iterations", "key_length", "salt"]
    );
}

#[test]
fn a_plan_round_trips_and_a_plain_plan_needs_the_unencrypted_method() {
    let plan = PlanCodec(Some(Arc::new(
        Target::new("plan", vec![aes_gcm("m", pbkdf2("k", PASSPHRASE))], false).expect("valid"),
    )));
    let zip = b"PK\x03\x04 pretend zip".to_vec();
    let stored = plan.encrypt(&zip).expect("encrypts");
    let text = String::from_utf8(stored.clone()).expect("text");
    assert!(
        text.starts_with("{\"meta\":{\"key_provider.pbkdf2.k\":\""),
        "{text}"
    );
    assert!(text.ends_with(",\"encryption_version\":\"v0\"}"), "{text}");
    assert_eq!(plan.decrypt(&stored).expect("decrypts"), zip);
    let err = plan.decrypt(&zip).expect_err("refused");
    assert_eq!(err.summary, "Failed to decrypt the plan file");
    assert_eq!(
        err.detail,
        "encountered unencrypted payload without unencrypted method configured"
    );
}

#[test]
fn aes_gcm_matches_the_standard_test_vector() {
    // NIST GCM test case 3 (AES-128): the layout is nonce || ciphertext || tag.
    let hex = |s: &str| -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap_or(0))
            .collect()
    };
    let key = hex("feffe9928665731c6d6a8f9467308308");
    let nonce: [u8; 12] = hex("cafebabefacedbaddecaf888")
        .try_into()
        .unwrap_or([0; 12]);
    let plain = hex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255");
    let sealed = aes_gcm_seal_with_nonce(&key, &[], &nonce, &plain).expect("seals");
    let expected_ct = hex("42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985");
    let expected_tag = hex("4d5c2af327cd64a62cf35abd2ba6fab4");
    assert_eq!(&sealed[..12], &nonce);
    assert_eq!(&sealed[12..12 + plain.len()], &expected_ct[..]);
    assert_eq!(&sealed[12 + plain.len()..], &expected_tag[..]);
    assert_eq!(aes_gcm_open(&key, &[], &sealed).expect("opens"), plain);
}
