//! go-plugin's automatic mutual TLS, what both sides share: each makes a
//! fresh self-signed certificate ([`OwnCertificate`]) and pins the other's
//! exact bytes ([`Pinned`]), whatever their issuer, names or dates (a
//! stock verifier would refuse a self-signed CA certificate as an end
//! entity). The pinned bytes came through a channel only the two
//! processes share (the plugin's stdout, the plugin's environment), which
//! stands in for chain validation; what is left to check is the TLS
//! handshake's signatures. Terraform's (Go's) certificates use P-521 keys,
//! whose signatures the ring crypto provider cannot check, so ECDSA
//! P-521/SHA-512 from the RustCrypto `p521` crate is added to ring's
//! algorithms.

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};
use rustls::client::danger::HandshakeSignatureValid;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, WebPkiSupportedAlgorithms};
use rustls::pki_types::{
    alg_id, AlgorithmIdentifier, CertificateDer, InvalidSignature, PrivateKeyDer,
    PrivatePkcs8KeyDer, SignatureVerificationAlgorithm,
};
use rustls::{CertificateError, DigitallySignedStruct, SignatureScheme};
use std::sync::OnceLock;

/// A side's own certificate for one plugin process's life.
pub struct OwnCertificate {
    /// DER bytes.
    pub der: Vec<u8>,
    /// The same as PEM text.
    pub pem: String,
    key: Vec<u8>,
}

impl OwnCertificate {
    /// A new P-256 key and a self-signed certificate for `localhost`,
    /// shaped as go-plugin makes its own: a CA certificate (so that Go
    /// accepts it as its own root) usable for client and server
    /// authentication. `organization` names the side.
    pub fn generate(organization: &str) -> Result<OwnCertificate, String> {
        let key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)
            .map_err(|e| format!("generating the TLS key: {e}"))?;
        let mut params = CertificateParams::new(vec!["localhost".to_string()])
            .map_err(|e| format!("preparing the TLS certificate: {e}"))?;
        params
            .distinguished_name
            .push(DnType::CommonName, "localhost");
        params
            .distinguished_name
            .push(DnType::OrganizationName, organization);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
            KeyUsagePurpose::KeyAgreement,
            KeyUsagePurpose::KeyCertSign,
        ];
        params.extended_key_usages = vec![
            ExtendedKeyUsagePurpose::ClientAuth,
            ExtendedKeyUsagePurpose::ServerAuth,
        ];
        let cert = params
            .self_signed(&key)
            .map_err(|e| format!("signing the TLS certificate: {e}"))?;
        Ok(OwnCertificate {
            der: cert.der().to_vec(),
            pem: cert.pem(),
            key: key.serialize_der(),
        })
    }

    pub fn certificate(&self) -> CertificateDer<'static> {
        CertificateDer::from(self.der.clone())
    }

    pub fn private_key(&self) -> PrivateKeyDer<'static> {
        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.key.clone()))
    }
}

/// The other side's certificates, accepted by their exact bytes, and the
/// handshake signatures checked with [`supported_algorithms`]: what the
/// host's server verifier and the plugin's client verifier both do.
#[derive(Debug)]
pub struct Pinned {
    certificates: Vec<Vec<u8>>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl Pinned {
    pub fn new(certificates: Vec<Vec<u8>>) -> Pinned {
        Pinned {
            certificates,
            algorithms: supported_algorithms(),
        }
    }

    /// Whether `end_entity` is one of the pinned certificates.
    pub fn check(&self, end_entity: &CertificateDer<'_>) -> Result<(), rustls::Error> {
        if self
            .certificates
            .iter()
            .any(|p| p.as_slice() == end_entity.as_ref())
        {
            Ok(())
        } else {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::ApplicationVerificationFailure,
            ))
        }
    }

    pub fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    pub fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    pub fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

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
    fn certificates_are_fresh_pem_and_der_of_the_same() {
        let one = OwnCertificate::generate("test").unwrap();
        let two = OwnCertificate::generate("test").unwrap();
        assert_ne!(one.der, two.der);
        assert!(one.pem.starts_with("-----BEGIN CERTIFICATE-----"));
        assert!(one.pem.trim_end().ends_with("-----END CERTIFICATE-----"));
        assert_eq!(one.certificate().as_ref(), one.der.as_slice());
    }

    #[test]
    fn only_pinned_bytes_are_accepted_and_p521_is_offered() {
        let pinned = Pinned::new(vec![vec![1, 2, 3]]);
        assert!(pinned.check(&CertificateDer::from(vec![1, 2, 3])).is_ok());
        assert!(pinned.check(&CertificateDer::from(vec![1, 2, 4])).is_err());
        let schemes = pinned.supported_verify_schemes();
        assert!(schemes.contains(&SignatureScheme::ECDSA_NISTP521_SHA512));
        assert!(schemes.contains(&SignatureScheme::ECDSA_NISTP256_SHA256));
    }

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
