//! Expectations checked against `terraform console` (1.11.4).

use super::super::testing::{call, err_arg, err_call, num, s, try_call};
use terrace_value::Value;

#[test]
fn string_hashes_match_terraform() {
    let cases: &[(&str, &str, &str)] = &[
        ("md5", "", "d41d8cd98f00b204e9800998ecf8427e"),
        ("md5", "hello world", "5eb63bbbe01eeed093cb22bb8f5acdc3"),
        ("md5", "ü🙂", "3bf8138dc388b86d6aea4a693142fb6a"),
        ("md5", "a\nb", "8cdeb44417f3c26826595d5820cf5700"),
        ("sha1", "", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("sha1", "hello world", "2aae6c35c94fcfb415dbe95f408b9ce91ee846ed"),
        ("sha1", "ü🙂", "c2ecbde3e784eb45e96f7f3e11c4d8267d8172f6"),
        ("sha1", "a\nb", "fcd127ffa1016069006ad91f3f361248f9bdf272"),
        ("sha256", "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("sha256", "hello world", "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"),
        ("sha256", "ü🙂", "17b904994656d357538f4a3ffb682f7ed87938f68a75b919d64d9a2d66ce6b94"),
        ("sha256", "a\nb", "7e18f737311b2dc3b2f269dd78396b0351f14fb66efa879f768cb23181883c78"),
        ("sha512", "", "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"),
        ("sha512", "hello world", "309ecc489c12d6eb4cc40f50c902f2b4d0ed77ee511a7c7a9bcd3ca86d4cd86f989dd35bc5ff499670da34255b45b0cfd830e81f605dcf7dc5542e93ae9cd76f"),
        ("sha512", "ü🙂", "000c50b87777ca83ab0dc615da9c1d6cbb7ae39d03ef68fa1e2f88d9d91773ecca8e602d7eb9aaae14e3efb24e7d3129dbe660c4f000b5ba1d9112509f578fc6"),
        ("sha512", "a\nb", "377f7c6560b237d3b88f734faf092fe88f4b2067e048277223748881569ce7b2237c3e3a3fbeef319eea1ccab853b42ff2a7b8791308342ae383579f4420cba0"),
        ("base64sha256", "", "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="),
        ("base64sha256", "hello world", "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek="),
        ("base64sha256", "ü🙂", "F7kEmUZW01dTj0o/+2gvfth5OPaKdbkZ1k2aLWbOa5Q="),
        ("base64sha256", "a\nb", "fhj3NzEbLcOy8mndeDlrA1HxT7Zu+oefdoyyMYGIPHg="),
        ("base64sha512", "", "z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=="),
        ("base64sha512", "hello world", "MJ7MSJwS1utMxA9QyQLytNDtd+5RGnx6m808qG1M2G+YndNbxf9JlnDaNCVbRbDP2DDoH2Bdz33FVC6TrpzXbw=="),
        ("base64sha512", "ü🙂", "AAxQuHd3yoOrDcYV2pwdbLt6450D72j6Hi+I2dkXc+zKjmAtfrmqrhTj77JOfTEp2+ZgxPAAtbodkRJQn1ePxg=="),
        ("base64sha512", "a\nb", "N398ZWCyN9O4j3NPrwkv6I9LIGfgSCdyI3SIgVac57IjfD46P77vMZ7qHMq4U7Qv8qe4eRMINCrjg1efRCDLoA=="),
    ];
    for (name, input, want) in cases {
        call(name, vec![s(input)], Ok(s(want)));
    }
}

#[test]
fn uuidv5_matches_terraform() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "dns",
            "www.terraform.io",
            "a5008fae-b28c-5ba5-96cd-82b4c53552d6",
        ),
        (
            "url",
            "https://www.terraform.io/",
            "9db6f67c-dd95-5ea0-aa5b-e70e5c5f7cf5",
        ),
        ("oid", "1.2.3", "42d5e23b-3a02-5135-85c6-52d1102f1f00"),
        ("x500", "CN=x", "955bb643-faf8-5f69-a3de-891b89fea215"),
        (
            "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
            "www.terraform.io",
            "a5008fae-b28c-5ba5-96cd-82b4c53552d6",
        ),
        (
            "{6ba7b810-9dad-11d1-80b4-00c04fd430c8}",
            "x",
            "05b16a01-46c6-56dd-bd6e-c6dfb4a1427a",
        ),
        (
            "urn:uuid:6ba7b810-9dad-11d1-80b4-00c04fd430c8",
            "x",
            "05b16a01-46c6-56dd-bd6e-c6dfb4a1427a",
        ),
        (
            "6ba7b8109dad11d180b400c04fd430c8",
            "x",
            "05b16a01-46c6-56dd-bd6e-c6dfb4a1427a",
        ),
        (
            "6BA7B810-9DAD-11D1-80B4-00C04FD430C8",
            "x",
            "05b16a01-46c6-56dd-bd6e-c6dfb4a1427a",
        ),
    ];
    for (namespace, name, want) in cases {
        call("uuidv5", vec![s(namespace), s(name)], Ok(s(want)));
    }
    let errors: &[(&str, &str)] = &[
        ("DNS", "uuidv5() doesn't support namespace DNS (invalid UUID length: 3)"),
        (
            "6ba7b810-9dad-11d1-80b4-00c04fd430cx",
            "uuidv5() doesn't support namespace 6ba7b810-9dad-11d1-80b4-00c04fd430cx (invalid UUID format)",
        ),
        ("abc", "uuidv5() doesn't support namespace abc (invalid UUID length: 3)"),
    ];
    for (namespace, message) in errors {
        call("uuidv5", vec![s(namespace), s("x")], err_call(message));
    }
}

#[test]
fn uuid_is_random_and_unversioned() {
    let a = try_call("uuid", vec![]).expect("uuid");
    let b = try_call("uuid", vec![]).expect("uuid");
    let (a, b) = (
        a.as_str().unwrap_or_default(),
        b.as_str().unwrap_or_default(),
    );
    assert_ne!(a, b);
    for id in [a, b] {
        let groups: Vec<usize> = id.split('-').map(str::len).collect();
        assert_eq!(groups, vec![8, 4, 4, 4, 12], "{id}");
        assert!(
            id.chars()
                .all(|c| c == '-' || c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
            "{id}"
        );
    }
}

fn bcrypt_hash(args: Vec<Value>) -> String {
    try_call("bcrypt", args)
        .expect("bcrypt")
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn bcrypt_hashes_verify() {
    let hash = bcrypt_hash(vec![s("hello")]);
    assert!(hash.starts_with("$2a$10$") && hash.len() == 60, "{hash}");
    assert_eq!(bcrypt::verify("hello", &hash).ok(), Some(true));
    assert_eq!(bcrypt::verify("hellO", &hash).ok(), Some(false));
    // A fresh salt every time.
    assert_ne!(hash, bcrypt_hash(vec![s("hello")]));
    let cheap = bcrypt_hash(vec![s("secret"), num("4")]);
    assert!(cheap.starts_with("$2a$04$"), "{cheap}");
    assert_eq!(bcrypt::verify("secret", &cheap).ok(), Some(true));
    // Costs below the minimum fall back to the default, as in Go.
    assert!(bcrypt_hash(vec![s("x"), num("3")]).starts_with("$2a$10$"));
    assert!(bcrypt_hash(vec![s("x"), num("-1")]).starts_with("$2a$10$"));
}

#[test]
fn bcrypt_errors_match_terraform() {
    call(
        "bcrypt",
        vec![s("hello"), num("32")],
        err_call("error occured generating password crypto/bcrypt: cost 32 is outside allowed range (4,31)"),
    );
    call(
        "bcrypt",
        vec![s("hello"), num("4"), num("5")],
        err_call("bcrypt() takes no more than two arguments"),
    );
    call(
        "bcrypt",
        vec![s("hello"), num("1.5")],
        err_call(
            "value must be a whole number, between -9223372036854775808 and 9223372036854775807",
        ),
    );
    call(
        "bcrypt",
        vec![s(&"0123456789".repeat(8)[..73])],
        err_call("error occured generating password bcrypt: password length exceeds 72 bytes"),
    );
}

const CIPHERTEXT: &str = include_str!("testdata/ciphertext.b64");
const PKCS1: &str = include_str!("testdata/rsa_pkcs1.pem");
const PKCS8: &str = include_str!("testdata/rsa_pkcs8.pem");
const OPENSSH: &str = include_str!("testdata/rsa_openssh.pem");
const EC: &str = include_str!("testdata/ec.pem");

#[test]
fn rsadecrypt_matches_terraform() {
    for key in [PKCS1, PKCS8, OPENSSH] {
        call(
            "rsadecrypt",
            vec![s(CIPHERTEXT), s(key)],
            Ok(s("hello world")),
        );
    }
    call(
        "rsadecrypt",
        vec![s("AAAA"), s(PKCS1)],
        err_call("failed to decrypt: crypto/rsa: decryption error"),
    );
    call(
        "rsadecrypt",
        vec![s(""), s(PKCS1)],
        err_call("failed to decrypt: crypto/rsa: decryption error"),
    );
}

#[test]
fn rsadecrypt_errors_match_terraform() {
    let cases: &[(&str, &str, usize, &str)] = &[
        ("notbase64!", PKCS1, 0, "failed to decode input \"notbase64!\": cipher text must be base64-encoded"),
        (CIPHERTEXT, "not a key", 1, "invalid private key: ssh: no key found"),
        (
            CIPHERTEXT,
            "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n",
            1,
            "invalid ASN1 data in the given private key: truncated tag or length",
        ),
        (
            CIPHERTEXT,
            "-----BEGIN FOO PRIVATE KEY-----\nMIIB\n-----END FOO PRIVATE KEY-----\n",
            1,
            "invalid private key: ssh: unsupported key type \"FOO PRIVATE KEY\"",
        ),
        (
            CIPHERTEXT,
            "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n",
            1,
            "asn1: structure error: tags don't match (16 vs {class:0 tag:0 length:0 isCompound:false}) \
             {optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> \
             stringType:0 timeType:0 set:false omitEmpty:false} pkcs1PrivateKey @2",
        ),
        (
            CIPHERTEXT,
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
            1,
            "asn1: structure error: tags don't match (16 vs {class:0 tag:0 length:0 isCompound:false}) \
             {optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> \
             stringType:0 timeType:0 set:false omitEmpty:false} pkcs8 @2",
        ),
    ];
    for (ciphertext, key, argument, message) in cases {
        call(
            "rsadecrypt",
            vec![s(ciphertext), s(key)],
            err_arg(*argument, message),
        );
    }
    // Terraform prints the EC key's fields here; the type is what matters.
    call(
        "rsadecrypt",
        vec![s(CIPHERTEXT), s(EC)],
        err_arg(1, "invalid private key type *ecdsa.PrivateKey"),
    );
}
