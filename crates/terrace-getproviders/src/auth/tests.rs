use super::*;
use crate::testutil::TempDir;

const DOC: &[u8] = include_bytes!("../../testdata/registry/SHA256SUMS");
const SIG: &[u8] = include_bytes!("../../testdata/registry/SHA256SUMS.sig");
const STRANGER_SIG: &[u8] = include_bytes!("../../testdata/registry/SHA256SUMS.stranger.sig");
const SIGNER: &str = include_str!("../../testdata/registry/key_signer.asc");
const ZIP: &[u8] = include_bytes!("../../testdata/widget_2.0.0_linux_amd64.zip");
const ZIP_SHA: &str = "94ae73cb5d2f4eced53953896d995a1a7f79cd5d09353e9db1289a10412ff49e";

fn sha(hexstr: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    if decode_hex(hexstr, &mut out).is_err() {
        panic!("bad hex {hexstr}");
    }
    out
}

fn auth() -> SignedChecksums {
    SignedChecksums {
        filename: "terraform-provider-widget_2.0.0_linux_amd64.zip".into(),
        sha256: sha(ZIP_SHA),
        document: DOC.to_vec(),
        signature: SIG.to_vec(),
        keys: vec![SigningKey {
            ascii_armor: SIGNER.into(),
            trust_signature: String::new(),
        }],
    }
}

#[test]
fn a_signed_package_trusts_every_listed_checksum() {
    let dir = TempDir::new("auth-ok");
    let zip = dir.write_mode("p.zip", ZIP, 0o644);
    let result = match auth().authenticate(&zip) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(result.key_id.as_deref(), Some("A6576E6F70E1F905"));
    assert_eq!(result.describe(), "self-signed");
    assert_eq!(result.local_hashes(), vec![Hash::zh(ZIP_SHA)]);
    assert_eq!(
        result.signed_hashes(),
        vec![
            Hash::zh(ZIP_SHA),
            Hash::zh("1111111111111111111111111111111111111111111111111111111111111111"),
        ]
    );
}

#[test]
fn refusals() {
    let dir = TempDir::new("auth-bad");
    let zip = dir.write_mode("p.zip", ZIP, 0o644);
    let other = dir.write_mode("other.zip", b"not the package", 0o644);

    // The archive is not what the registry announced.
    let got = auth().authenticate(&other);
    assert_eq!(
        got,
        Err(format!(
            "archive has incorrect checksum zh:{} (expected zh:{ZIP_SHA})",
            hex(&Sha256Of::of(b"not the package"))
        ))
    );

    // The document does not list the file.
    let mut a = auth();
    a.filename = "terraform-provider-widget_2.0.0_windows_amd64.zip".into();
    assert_eq!(
        a.authenticate(&zip),
        Err("checksum list has no SHA-256 hash for \"terraform-provider-widget_2.0.0_windows_amd64.zip\"".into())
    );

    // The document lists a different checksum for it.
    let mut a = auth();
    a.filename = "terraform-provider-widget_2.0.0_darwin_arm64.zip".into();
    assert_eq!(
        a.authenticate(&zip),
        Err(format!("checksum list has unexpected SHA-256 hash 1111111111111111111111111111111111111111111111111111111111111111 (expected {ZIP_SHA})"))
    );

    // Signed by a key the registry does not list.
    let mut a = auth();
    a.signature = STRANGER_SIG.to_vec();
    assert_eq!(
        a.authenticate(&zip),
        Err("the provider is not signed with a valid signing key; please contact the provider author (authentication signature from unknown issuer)".into())
    );

    // A signature that does not verify.
    let mut a = auth();
    let last = a.signature.len() - 1;
    a.signature[last] ^= 0xff;
    assert_eq!(
        a.authenticate(&zip),
        Err("the provider is not signed with a valid signing key; please contact the provider author (error checking signature: openpgp: invalid signature: RSA verification failure)".into())
    );

    // No keys at all.
    let mut a = auth();
    a.keys.clear();
    assert_eq!(
        a.authenticate(&zip),
        Err("the provider is not signed with a valid signing key; please contact the provider author (authentication signature from unknown issuer)".into())
    );
}

#[test]
fn matching_hashes_by_location() {
    use crate::source::PackageLocation;
    let dir = TempDir::new("auth-match");
    let zip = dir.write_mode("p.zip", ZIP, 0o644);
    let unpacked = dir.write_mode(
        "u/terraform-provider-widget_v2.0.0",
        b"#!/bin/sh\necho widget\n",
        0o755,
    );
    dir.write_mode("u/docs/README.md", b"readme\n", 0o644);
    let h1 = Hash::h1("V3Us0DV4KR70MFGENOE0wh3LCGjbIEJ9oUM9yAPMlxY=");
    let zh = Hash::zh(ZIP_SHA);
    let other = Hash::h1("AAAA");
    let archive = PackageLocation::LocalArchive(zip);
    let Some(udir) = unpacked.parent() else {
        panic!()
    };
    let local = PackageLocation::LocalDir(udir.to_path_buf());
    assert_eq!(
        package_matches_any_hash(&archive, &[other.clone(), h1.clone()]),
        Ok(true)
    );
    assert_eq!(
        package_matches_any_hash(&archive, std::slice::from_ref(&zh)),
        Ok(true)
    );
    assert_eq!(
        package_matches_any_hash(&archive, std::slice::from_ref(&other)),
        Ok(false)
    );
    assert_eq!(package_matches_any_hash(&local, &[h1]), Ok(true));
    // zh: cannot be checked against unpacked files.
    assert_eq!(package_matches_any_hash(&local, &[zh]), Ok(false));
    assert_eq!(package_matches_any_hash(&local, &[]), Ok(false));
}

struct Sha256Of;
impl Sha256Of {
    fn of(data: &[u8]) -> [u8; 32] {
        use sha2::{Digest, Sha256};
        Sha256::digest(data).into()
    }
}

#[test]
fn a_mirror_hash_list() {
    let dir = TempDir::new("auth-hashes");
    let zip = dir.write_mode("p.zip", ZIP, 0o644);
    let h1 = Hash::h1("V3Us0DV4KR70MFGENOE0wh3LCGjbIEJ9oUM9yAPMlxY=");
    let ok = PackageAuthentication::Hashes(vec![Hash::h1("AAAA"), h1.clone()]);
    match ok.authenticate(&zip) {
        Ok(r) => {
            assert_eq!(r.local_hashes(), vec![h1]);
            assert!(r.signed_hashes().is_empty());
            assert_eq!(r.describe(), "verified checksum");
        }
        Err(e) => panic!("{e}"),
    }
    assert_eq!(
        PackageAuthentication::Hashes(vec![Hash::h1("AAAA")]).authenticate(&zip),
        Err("provider package doesn't match the expected checksum \"h1:AAAA\"".into())
    );
    assert_eq!(
        PackageAuthentication::Hashes(vec![Hash::h1("AAAA"), Hash::zh("bb")]).authenticate(&zip),
        Err("provider package doesn't match the any of the expected checksums".into())
    );
    assert_eq!(
        PackageAuthentication::Hashes(vec![Hash::parse("x9:a").unwrap_or_else(|e| panic!("{e}"))]).authenticate(&zip),
        Err("this version of terrace does not support any of the checksum formats given for this provider".into())
    );
}
