//! The host's side of go-plugin's automatic mutual TLS: terrace makes a
//! fresh self-signed client certificate per plugin and passes it in
//! `PLUGIN_CLIENT_CERT`; the plugin makes its own and prints it in the
//! handshake line, and terrace accepts exactly that certificate
//! (`terrace_protocol::mtls` holds what both sides share, and why a stock
//! verifier cannot do this).

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, SignatureScheme};
use std::sync::Arc;
use terrace_protocol::mtls::{OwnCertificate, Pinned};

/// The certificate terrace presents to one plugin.
pub(crate) struct ClientCertificate {
    /// PEM text, for `PLUGIN_CLIENT_CERT`.
    pub pem: String,
    own: OwnCertificate,
}

impl ClientCertificate {
    pub fn generate() -> Result<ClientCertificate, String> {
        let own = OwnCertificate::generate("terrace")?;
        Ok(ClientCertificate {
            pem: own.pem.clone(),
            own,
        })
    }

    /// The TLS configuration for talking to a plugin whose handshake
    /// carried `server_certificate` (DER).
    pub fn client_config(&self, server_certificate: &[u8]) -> Result<Arc<ClientConfig>, String> {
        let verifier = Arc::new(PinnedServerCertificate(Pinned::new(vec![
            server_certificate.to_vec(),
        ])));
        let mut config =
            ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .map_err(|e| format!("configuring TLS: {e}"))?
                .dangerous()
                .with_custom_certificate_verifier(verifier)
                .with_client_auth_cert(vec![self.own.certificate()], self.own.private_key())
                .map_err(|e| format!("configuring the TLS client certificate: {e}"))?;
        // gRPC servers refuse TLS connections that do not negotiate HTTP/2.
        config.alpn_protocols = vec![b"h2".to_vec()];
        Ok(Arc::new(config))
    }
}

/// Accepts exactly one certificate: the one the plugin announced on its
/// stdout, a channel only terrace and the plugin share.
#[derive(Debug)]
struct PinnedServerCertificate(Pinned);

impl ServerCertVerifier for PinnedServerCertificate {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.0
            .check(end_entity)
            .map(|()| ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_configuration_offers_http2_and_the_pem_is_announced() {
        let cert = ClientCertificate::generate().unwrap();
        assert!(cert.pem.starts_with("-----BEGIN CERTIFICATE-----"));
        let config = cert.client_config(&[1, 2, 3]).unwrap();
        assert_eq!(config.alpn_protocols, vec![b"h2".to_vec()]);
    }

    #[test]
    fn the_verifier_pins_the_announced_certificate() {
        let verifier = PinnedServerCertificate(Pinned::new(vec![vec![1, 2, 3]]));
        let name = ServerName::try_from("localhost").unwrap();
        let now = UnixTime::now();
        assert!(verifier
            .verify_server_cert(&CertificateDer::from(vec![1, 2, 3]), &[], &name, &[], now)
            .is_ok());
        assert!(verifier
            .verify_server_cert(&CertificateDer::from(vec![1, 2, 4]), &[], &name, &[], now)
            .is_err());
    }
}
