//! The signature algorithms of go-plugin's automatic mutual TLS. Both
//! sides make a fresh self-signed certificate and pin the other's exact
//! bytes; what is left to check is the TLS handshake's signatures.
//! Terraform's (Go's) certificates use P-521 keys, whose signatures the
//! ring crypto provider cannot check, so ECDSA P-521/SHA-512 from the
//! RustCrypto `p521` crate is added to ring's algorithms.

use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::{
    alg_id, AlgorithmIdentifier, InvalidSignature, SignatureVerificationAlgorithm,
};
use rustls::SignatureScheme;
use std::sync::OnceLock;

/// ECDSA over P-521 with SHA-512, what go-plugin's certificates sign with.
#[derive(Debug)]
struct EcdsaP521Sha512;

impl SignatureVerificationAlgorithm for EcdsaP521Sha512 {
    fn verify_signature(
        &self,
        public_key: &[u8],
        message: &[u8],
        signature: &[u8],
    ) -> Result<(), InvalidSignature> {
        use p521::ecdsa::signature::Verifier;
        let key =
            p521::ecdsa::VerifyingKey::from_sec1_bytes(public_key).map_err(|_| InvalidSignature)?;
        let signature =
            p521::ecdsa::Signature::from_der(signature).map_err(|_| InvalidSignature)?;
        key.verify(message, &signature)
            .map_err(|_| InvalidSignature)
    }

    fn public_key_alg_id(&self) -> AlgorithmIdentifier {
        alg_id::ECDSA_P521
    }

    fn signature_alg_id(&self) -> AlgorithmIdentifier {
        alg_id::ECDSA_SHA512
    }
}

static P521: EcdsaP521Sha512 = EcdsaP521Sha512;
static P521_ONLY: [&dyn SignatureVerificationAlgorithm; 1] = [&P521];

/// ring's algorithms with P-521 added. rustls wants `'static` tables, so
/// the combined ones are built once per process.
pub fn supported_algorithms() -> WebPkiSupportedAlgorithms {
    static ALGORITHMS: OnceLock<WebPkiSupportedAlgorithms> = OnceLock::new();
    *ALGORITHMS.get_or_init(|| {
        let ring = rustls::crypto::ring::default_provider().signature_verification_algorithms;
        let mut all: Vec<&'static dyn SignatureVerificationAlgorithm> = ring.all.to_vec();
        all.push(&P521);
        let mut mapping: Vec<(
            SignatureScheme,
            &'static [&'static dyn SignatureVerificationAlgorithm],
        )> = ring.mapping.to_vec();
        mapping.push((SignatureScheme::ECDSA_NISTP521_SHA512, &P521_ONLY));
        WebPkiSupportedAlgorithms {
            all: Vec::leak(all),
            mapping: Vec::leak(mapping),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p521_signatures_verify() {
        use p521::ecdsa::signature::Signer;
        let secret = p521::ecdsa::SigningKey::from_slice(&[1u8; 66]).unwrap();
        let public = p521::ecdsa::VerifyingKey::from(&secret);
        let point = public.to_encoded_point(false);
        let signature: p521::ecdsa::Signature = secret.sign(b"message");
        let der = signature.to_der();
        assert!(P521
            .verify_signature(point.as_bytes(), b"message", der.as_bytes())
            .is_ok());
        assert!(P521
            .verify_signature(point.as_bytes(), b"massage", der.as_bytes())
            .is_err());
        assert!(P521
            .verify_signature(b"not a key", b"message", der.as_bytes())
            .is_err());
    }

    #[test]
    fn p521_is_offered_beside_rings_algorithms() {
        let schemes = supported_algorithms().supported_schemes();
        assert!(schemes.contains(&SignatureScheme::ECDSA_NISTP521_SHA512));
        assert!(schemes.contains(&SignatureScheme::ECDSA_NISTP256_SHA256));
    }
}
