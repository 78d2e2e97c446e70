//! go-plugin's automatic mutual TLS. terrace makes a fresh self-signed
//! client certificate per plugin and passes it in `PLUGIN_CLIENT_CERT`;
//! the plugin makes its own and prints it in the handshake line. Each side
//! then accepts exactly the other's certificate.
//!
//! A stock verifier cannot be used on the plugin's side of this: its
//! certificate is a self-signed CA certificate (rejected as an end-entity
//! certificate by WebPKI rules), is issued for no name terrace could check,
//! and uses a P-521 key, which the ring crypto provider cannot verify. So
//! the verifier here pins the certificate bytes from the handshake, and
//! checks the handshake signatures with the ring algorithms plus ECDSA
//! P-521/SHA-512 from the RustCrypto `p521` crate.

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, WebPkiSupportedAlgorithms};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::{CertificateError, ClientConfig, DigitallySignedStruct, SignatureScheme};
use std::sync::Arc;
use terrace_protocol::mtls::supported_algorithms;

/// The certificate terrace presents to one plugin.
pub(crate) struct ClientCertificate {
    /// PEM text, for `PLUGIN_CLIENT_CERT`.
    pub pem: String,
    der: CertificateDer<'static>,
    key: Vec<u8>,
}

impl ClientCertificate {
    /// A new P-256 key and a self-signed certificate for `localhost` usable
    /// for client and server authentication, shaped like go-plugin's own
    /// (a CA certificate, so that Go accepts it as its own root).
    pub fn generate() -> Result<ClientCertificate, String> {
        let key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)
            .map_err(|e| format!("generating the client key: {e}"))?;
        let mut params = CertificateParams::new(vec!["localhost".to_string()])
            .map_err(|e| format!("preparing the client certificate: {e}"))?;
        params
            .distinguished_name
            .push(DnType::CommonName, "localhost");
        params
            .distinguished_name
            .push(DnType::OrganizationName, "terrace");
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
            .map_err(|e| format!("signing the client certificate: {e}"))?;
        Ok(ClientCertificate {
            pem: cert.pem(),
            der: cert.der().clone(),
            key: key.serialize_der(),
        })
    }

    /// The TLS configuration for talking to a plugin whose handshake
    /// carried `server_certificate` (DER).
    pub fn client_config(&self, server_certificate: &[u8]) -> Result<Arc<ClientConfig>, String> {
        let verifier = Arc::new(PinnedServerCertificate {
            pinned: CertificateDer::from(server_certificate.to_vec()),
            algorithms: supported_algorithms(),
        });
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.key.clone()));
        let mut config =
            ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .map_err(|e| format!("configuring TLS: {e}"))?
                .dangerous()
                .with_custom_certificate_verifier(verifier)
                .with_client_auth_cert(vec![self.der.clone()], key)
                .map_err(|e| format!("configuring the TLS client certificate: {e}"))?;
        // gRPC servers refuse TLS connections that do not negotiate HTTP/2.
        config.alpn_protocols = vec![b"h2".to_vec()];
        Ok(Arc::new(config))
    }
}

/// Accepts exactly one certificate, whatever its issuer, names or
/// validity dates: the one the plugin announced on its stdout, a channel
/// only terrace and the plugin share.
#[derive(Debug)]
struct PinnedServerCertificate {
    pinned: CertificateDer<'static>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for PinnedServerCertificate {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if end_entity.as_ref() == self.pinned.as_ref() {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::ApplicationVerificationFailure,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_certificate_is_a_pem_certificate() {
        let cert = ClientCertificate::generate().unwrap();
        assert!(cert.pem.starts_with("-----BEGIN CERTIFICATE-----"));
        assert!(cert.pem.trim_end().ends_with("-----END CERTIFICATE-----"));
        // Fresh key per plugin.
        let other = ClientCertificate::generate().unwrap();
        assert_ne!(cert.pem, other.pem);
    }

    #[test]
    fn verifier_pins_exact_bytes_and_offers_p521() {
        let verifier = PinnedServerCertificate {
            pinned: CertificateDer::from(vec![1, 2, 3]),
            algorithms: supported_algorithms(),
        };
        let name = ServerName::try_from("localhost").unwrap();
        let now = UnixTime::now();
        assert!(verifier
            .verify_server_cert(&CertificateDer::from(vec![1, 2, 3]), &[], &name, &[], now)
            .is_ok());
        assert!(verifier
            .verify_server_cert(&CertificateDer::from(vec![1, 2, 4]), &[], &name, &[], now)
            .is_err());
        let schemes = verifier.supported_verify_schemes();
        assert!(schemes.contains(&SignatureScheme::ECDSA_NISTP521_SHA512));
        assert!(schemes.contains(&SignatureScheme::ECDSA_NISTP256_SHA256));
    }
}
