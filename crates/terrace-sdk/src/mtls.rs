//! The plugin's side of go-plugin's automatic mutual TLS: the host passes
//! its certificate in `PLUGIN_CLIENT_CERT`; the plugin makes a fresh
//! self-signed certificate of its own, announces it in the handshake line,
//! and accepts connections presenting exactly the host's certificate
//! (`terrace_protocol::mtls` holds what both sides share).

use base64::Engine;
use rustls::client::danger::HandshakeSignatureValid;
use rustls::pki_types::{CertificateDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{DigitallySignedStruct, DistinguishedName, ServerConfig, SignatureScheme};
use std::sync::Arc;
use terrace_protocol::mtls::{OwnCertificate, Pinned};

/// The plugin's own certificate for this run.
pub(crate) struct ServerCertificate {
    own: OwnCertificate,
}

impl ServerCertificate {
    pub fn generate() -> Result<ServerCertificate, String> {
        Ok(ServerCertificate {
            own: OwnCertificate::generate("terrace-sdk")?,
        })
    }

    /// The certificate as the handshake line carries it: the DER bytes in
    /// unpadded standard base64 (a PEM would need newlines).
    pub fn handshake_text(&self) -> String {
        base64::engine::general_purpose::STANDARD_NO_PAD.encode(&self.own.der)
    }

    /// The TLS configuration accepting only the given client certificates
    /// (PEM text, as in `PLUGIN_CLIENT_CERT`).
    pub fn server_config(&self, client_pem: &str) -> Result<Arc<ServerConfig>, String> {
        let verifier = Arc::new(PinnedClientCertificate(Pinned::new(pem_certificates(
            client_pem,
        )?)));
        let mut config =
            ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .map_err(|e| format!("configuring TLS: {e}"))?
                .with_client_cert_verifier(verifier)
                .with_single_cert(vec![self.own.certificate()], self.own.private_key())
                .map_err(|e| format!("configuring the server certificate: {e}"))?;
        config.alpn_protocols = vec![b"h2".to_vec()];
        Ok(Arc::new(config))
    }
}

/// The DER bytes of every certificate in a PEM text.
pub(crate) fn pem_certificates(pem: &str) -> Result<Vec<Vec<u8>>, String> {
    const BEGIN: &str = "-----BEGIN CERTIFICATE-----";
    const END: &str = "-----END CERTIFICATE-----";
    let mut found = Vec::new();
    let mut rest = pem;
    while let Some(start) = rest.find(BEGIN) {
        let body_start = start + BEGIN.len();
        let Some(length) = rest[body_start..].find(END) else {
            return Err("a certificate in PLUGIN_CLIENT_CERT has no end line".into());
        };
        let body: String = rest[body_start..body_start + length]
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let der = base64::engine::general_purpose::STANDARD
            .decode(body.as_bytes())
            .map_err(|e| format!("a certificate in PLUGIN_CLIENT_CERT is not valid base64: {e}"))?;
        found.push(der);
        rest = &rest[body_start + length + END.len()..];
    }
    if found.is_empty() {
        return Err("PLUGIN_CLIENT_CERT holds no PEM certificate".into());
    }
    Ok(found)
}

/// Accepts exactly the host's certificate.
#[derive(Debug)]
struct PinnedClientCertificate(Pinned);

impl ClientCertVerifier for PinnedClientCertificate {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        self.0
            .check(end_entity)
            .map(|()| ClientCertVerified::assertion())
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
    fn certificates_are_fresh_and_announced_without_padding() {
        let one = ServerCertificate::generate().unwrap();
        let text = one.handshake_text();
        assert!(!text.contains('='));
        let decoded = base64::engine::general_purpose::STANDARD_NO_PAD
            .decode(text)
            .unwrap();
        assert_eq!(decoded, one.own.der);
    }

    #[test]
    fn pem_texts_are_read() {
        let der = ServerCertificate::generate().unwrap().own.der;
        let body = base64::engine::general_purpose::STANDARD.encode(&der);
        let lines: Vec<&str> = body
            .as_bytes()
            .chunks(64)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect();
        let pem = format!(
            "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n",
            lines.join("\n")
        );
        assert_eq!(pem_certificates(&pem).unwrap(), vec![der]);
        assert!(pem_certificates("nothing").is_err());
        assert!(
            pem_certificates("-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----")
                .is_err()
        );
        assert!(pem_certificates("-----BEGIN CERTIFICATE-----\nAAAA").is_err());
    }

    #[test]
    fn only_the_pinned_certificate_is_accepted() {
        let verifier = PinnedClientCertificate(Pinned::new(vec![vec![1, 2, 3]]));
        let now = UnixTime::now();
        assert!(verifier
            .verify_client_cert(&CertificateDer::from(vec![1, 2, 3]), &[], now)
            .is_ok());
        assert!(verifier
            .verify_client_cert(&CertificateDer::from(vec![1, 2, 4]), &[], now)
            .is_err());
        assert!(verifier
            .supported_verify_schemes()
            .contains(&SignatureScheme::ECDSA_NISTP521_SHA512));
    }

    #[test]
    fn server_configs_need_a_client_certificate() {
        let cert = ServerCertificate::generate().unwrap();
        assert!(cert.server_config("").is_err());
        let body = base64::engine::general_purpose::STANDARD.encode(&cert.own.der);
        let pem = format!("-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----\n");
        let config = cert.server_config(&pem).unwrap();
        assert_eq!(config.alpn_protocols, vec![b"h2".to_vec()]);
    }
}
