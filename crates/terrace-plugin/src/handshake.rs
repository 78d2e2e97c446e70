//! The go-plugin handshake line: the first line a plugin writes to stdout,
//! `CORE|APP|NETWORK|ADDRESS|PROTOCOL|CERT`, e.g.
//! `1|5|unix|/tmp/plugin123|grpc|MIIB...`. It says which protocol version
//! the plugin chose from those offered in `PLUGIN_PROTOCOL_VERSIONS`,
//! where it listens, and (with AutoMTLS) its certificate, base64 DER
//! without padding, which terrace then pins.

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;

/// go-plugin's own protocol version; anything else cannot be spoken.
pub const CORE_PROTOCOL_VERSION: u32 = 1;

/// The tfplugin major versions terrace speaks, in the order offered.
pub const SUPPORTED_PROTOCOL_VERSIONS: [u32; 2] = [5, 6];

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PluginAddress {
    Unix(PathBuf),
    Tcp(SocketAddr),
}

impl PluginAddress {
    /// Parses a go `net.Addr` by network name, as the handshake and
    /// `TF_REATTACH_PROVIDERS` give it.
    pub fn parse(network: &str, address: &str) -> Result<PluginAddress, String> {
        match network {
            "unix" => {
                if address.is_empty() {
                    Err("empty unix socket path".to_string())
                } else {
                    Ok(PluginAddress::Unix(PathBuf::from(address)))
                }
            }
            "tcp" => address
                .parse()
                .map(PluginAddress::Tcp)
                .map_err(|_| format!("invalid TCP address {address:?}")),
            other => Err(format!("unknown address type {other:?}")),
        }
    }
}

impl fmt::Display for PluginAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PluginAddress::Unix(path) => write!(f, "unix:{}", path.display()),
            PluginAddress::Tcp(addr) => write!(f, "tcp:{addr}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handshake {
    pub protocol_version: u32,
    pub address: PluginAddress,
    /// The plugin's TLS certificate (DER) when it enabled AutoMTLS.
    pub server_certificate: Option<Vec<u8>>,
}

impl Handshake {
    /// Reads a handshake line, checking it the way go-plugin's client does
    /// and with its wording where it has one.
    pub fn parse(line: &str) -> Result<Handshake, String> {
        let line = line.trim();
        let parts: Vec<&str> = line.split('|').collect();
        if parts.len() < 4 {
            return Err(format!(
                "Unrecognized remote plugin message: {}\n\nThis usually means that the plugin is \
                 either invalid or simply needs to be recompiled to support the latest protocol.",
                truncate(line, 200)
            ));
        }
        let core: u32 = parts[0]
            .parse()
            .map_err(|_| format!("error parsing core protocol version {:?}", parts[0]))?;
        if core != CORE_PROTOCOL_VERSION {
            return Err(format!(
                "incompatible core API version with plugin. Plugin version: {}, Core version: {}",
                parts[0], CORE_PROTOCOL_VERSION
            ));
        }
        let protocol_version: u32 = parts[1]
            .parse()
            .map_err(|_| format!("error parsing protocol version {:?}", parts[1]))?;
        if !SUPPORTED_PROTOCOL_VERSIONS.contains(&protocol_version) {
            return Err(format!(
                "incompatible API version with plugin. Plugin version: {protocol_version}, \
                 Client versions: {SUPPORTED_PROTOCOL_VERSIONS:?}"
            ));
        }
        let address = PluginAddress::parse(parts[2], parts[3])?;
        // A plugin that leaves the protocol out speaks net/rpc, which
        // providers have not used since Terraform 0.12.
        let protocol = parts.get(4).copied().unwrap_or("netrpc");
        if protocol != "grpc" {
            return Err(format!(
                "unsupported plugin protocol {protocol:?}. Supported: [grpc]"
            ));
        }
        // go-plugin ignores a certificate field too short to be one.
        let server_certificate = match parts.get(5) {
            Some(cert) if cert.len() > 50 => {
                Some(decode_base64(cert).map_err(|e| format!("error parsing server cert: {e}"))?)
            }
            _ => None,
        };
        Ok(Handshake {
            protocol_version,
            address,
            server_certificate,
        })
    }
}

fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}

/// Standard base64 as Go's `RawStdEncoding` writes it (no padding);
/// padding is tolerated.
fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut buffer: u32 = 0;
    let mut bits = 0;
    for (i, byte) in text.bytes().enumerate() {
        let value = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return Err(format!("illegal base64 data at input byte {i}")),
        };
        buffer = (buffer << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    // Six bits left over cannot come from whole bytes.
    if bits >= 6 {
        return Err(format!("illegal base64 data at input byte {}", text.len()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_lines() {
        let cert = "MIIB".repeat(20);
        let cases: Vec<(String, Handshake)> = vec![
            (
                "1|5|unix|/tmp/plugin1|grpc|\n".to_string(),
                Handshake {
                    protocol_version: 5,
                    address: PluginAddress::Unix("/tmp/plugin1".into()),
                    server_certificate: None,
                },
            ),
            (
                "1|6|tcp|127.0.0.1:10000|grpc".to_string(),
                Handshake {
                    protocol_version: 6,
                    address: PluginAddress::Tcp("127.0.0.1:10000".parse().unwrap()),
                    server_certificate: None,
                },
            ),
            (
                format!("1|5|unix|/s|grpc|{cert}"),
                Handshake {
                    protocol_version: 5,
                    address: PluginAddress::Unix("/s".into()),
                    server_certificate: Some(decode_base64(&cert).unwrap()),
                },
            ),
        ];
        for (line, want) in cases {
            assert_eq!(Handshake::parse(&line), Ok(want), "{line}");
        }
    }

    #[test]
    fn invalid_lines() {
        let cases = [
            (
                "hello world",
                "Unrecognized remote plugin message: hello world",
            ),
            ("", "Unrecognized remote plugin message: "),
            (
                "x|5|unix|/s|grpc",
                "error parsing core protocol version \"x\"",
            ),
            (
                "2|5|unix|/s|grpc",
                "incompatible core API version with plugin. Plugin version: 2, Core version: 1",
            ),
            (
                "1|4|unix|/s|grpc",
                "incompatible API version with plugin. Plugin version: 4, Client versions: [5, 6]",
            ),
            ("1|5|pipe|/s|grpc", "unknown address type \"pipe\""),
            ("1|5|tcp|nowhere|grpc", "invalid TCP address \"nowhere\""),
            (
                "1|5|unix|/s",
                "unsupported plugin protocol \"netrpc\". Supported: [grpc]",
            ),
            (
                "1|5|unix|/s|netrpc",
                "unsupported plugin protocol \"netrpc\". Supported: [grpc]",
            ),
        ];
        for (line, want) in cases {
            let err = Handshake::parse(line).unwrap_err();
            assert!(err.starts_with(want), "{line}: {err}");
        }
        let bad_cert = format!("1|5|unix|/s|grpc|{}", "!".repeat(60));
        assert!(Handshake::parse(&bad_cert)
            .unwrap_err()
            .starts_with("error parsing server cert: illegal base64 data at input byte 0"));
    }

    #[test]
    fn base64() {
        let cases: [(&str, &[u8]); 5] = [
            ("", b""),
            ("Zg", b"f"),
            ("Zm8", b"fo"),
            ("Zm9v", b"foo"),
            ("Zm9vYg==", b"foob"),
        ];
        for (text, want) in cases {
            assert_eq!(decode_base64(text).unwrap(), want, "{text}");
        }
        assert!(decode_base64("Z").is_err());
    }
}
