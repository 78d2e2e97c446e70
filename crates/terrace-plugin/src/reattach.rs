//! `TF_REATTACH_PROVIDERS`: providers a developer started by hand (in a
//! debugger, say) which print a JSON object for the user to export,
//! mapping provider source addresses to where they listen:
//!
//! ```json
//! {"registry.terraform.io/hashicorp/aws": {"Protocol": "grpc",
//!   "ProtocolVersion": 5, "Pid": 4242, "Test": true,
//!   "Addr": {"Network": "unix", "String": "/tmp/plugin123"}}}
//! ```
//!
//! terrace connects to such a provider instead of starting one, and never
//! kills it. Key matching is case-insensitive, as Go's JSON decoding is.

use crate::error::{PluginError, PluginErrorKind};
use crate::handshake::PluginAddress;
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReattachConfig {
    /// tfplugin major version; providers that leave it out speak 5.
    pub protocol_version: u32,
    pub address: PluginAddress,
    pub pid: Option<i32>,
    /// Set by providers started in debug mode: they expect to be left
    /// running, not even asked to shut down.
    pub test: bool,
}

/// Reads the variable's value: provider source address (as written) to
/// reattach configuration. An empty value means none.
pub fn parse_reattach_providers(
    text: &str,
) -> Result<BTreeMap<String, ReattachConfig>, PluginError> {
    let invalid = |message: String| {
        PluginError::new(
            PluginErrorKind::Reattach,
            "TF_REATTACH_PROVIDERS",
            format!("Invalid format for TF_REATTACH_PROVIDERS: {message}"),
        )
    };
    let mut providers = BTreeMap::new();
    if text.trim().is_empty() {
        return Ok(providers);
    }
    let json: serde_json::Value = serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
    let serde_json::Value::Object(entries) = json else {
        return Err(invalid("expected a JSON object".into()));
    };
    for (provider, entry) in entries {
        let error =
            |message: String| PluginError::new(PluginErrorKind::Reattach, &provider, message);
        let serde_json::Value::Object(entry) = entry else {
            return Err(invalid(format!(
                "the entry for {provider:?} is not an object"
            )));
        };
        let field = |name: &str| {
            entry
                .iter()
                .find(|(key, _)| key.eq_ignore_ascii_case(name))
                .map(|(_, value)| value)
        };
        let protocol = match field("Protocol") {
            Some(serde_json::Value::String(protocol)) => protocol.as_str(),
            None | Some(serde_json::Value::Null) => "",
            Some(_) => return Err(invalid(format!("Protocol of {provider:?} is not a string"))),
        };
        if protocol != "grpc" {
            return Err(error(format!(
                "unsupported plugin protocol {protocol:?}. Supported: [grpc]"
            )));
        }
        let protocol_version = match field("ProtocolVersion") {
            None | Some(serde_json::Value::Null) => 0,
            Some(value) => value
                .as_u64()
                .and_then(|v| u32::try_from(v).ok())
                .ok_or_else(|| {
                    invalid(format!(
                        "ProtocolVersion of {provider:?} is not a version number"
                    ))
                })?,
        };
        // Providers built with older SDKs do not report the version; they
        // speak protocol 5.
        let protocol_version = if protocol_version == 0 {
            5
        } else {
            protocol_version
        };
        if protocol_version != 5 && protocol_version != 6 {
            return Err(error(format!(
                "no supported plugins for protocol {protocol_version}"
            )));
        }
        let Some(serde_json::Value::Object(addr)) = field("Addr") else {
            return Err(invalid(format!(
                "Addr of {provider:?} is missing or not an object"
            )));
        };
        let addr_field = |name: &str| {
            addr.iter()
                .find(|(key, _)| key.eq_ignore_ascii_case(name))
                .and_then(|(_, value)| value.as_str())
                .unwrap_or("")
        };
        let network = addr_field("Network");
        let address_text = addr_field("String");
        let address = match network {
            "unix" | "tcp" => PluginAddress::parse(network, address_text).map_err(|_| {
                let what = if network == "unix" {
                    "unix socket path"
                } else {
                    "TCP address"
                };
                invalid(format!("Invalid {what} {address_text:?} for {provider:?}"))
            })?,
            other => {
                return Err(invalid(format!(
                    "Unknown address type {other:?} for {provider:?}"
                )))
            }
        };
        let pid = field("Pid")
            .and_then(serde_json::Value::as_i64)
            .and_then(|pid| i32::try_from(pid).ok())
            .filter(|pid| *pid > 0);
        let test = field("Test")
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false);
        providers.insert(
            provider.clone(),
            ReattachConfig {
                protocol_version,
                address,
                pid,
                test,
            },
        );
    }
    Ok(providers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid() {
        let text = r#"{
            "registry.terraform.io/hashicorp/aws": {"Protocol": "grpc", "ProtocolVersion": 6,
                "Pid": 42, "Test": true, "Addr": {"Network": "unix", "String": "/tmp/p1"}},
            "example.com/x/y": {"protocol": "grpc", "addr": {"network": "tcp", "string": "127.0.0.1:5000"}}
        }"#;
        let providers = parse_reattach_providers(text).unwrap();
        assert_eq!(
            providers["registry.terraform.io/hashicorp/aws"],
            ReattachConfig {
                protocol_version: 6,
                address: PluginAddress::Unix("/tmp/p1".into()),
                pid: Some(42),
                test: true,
            }
        );
        assert_eq!(
            providers["example.com/x/y"],
            ReattachConfig {
                protocol_version: 5,
                address: PluginAddress::Tcp("127.0.0.1:5000".parse().unwrap()),
                pid: None,
                test: false,
            }
        );
        assert!(parse_reattach_providers("").unwrap().is_empty());
    }

    #[test]
    fn invalid() {
        let cases = [
            ("[", "Invalid format for TF_REATTACH_PROVIDERS: "),
            (
                "[]",
                "Invalid format for TF_REATTACH_PROVIDERS: expected a JSON object",
            ),
            (
                r#"{"p": {"Protocol": "grpc", "Addr": {"Network": "pipe", "String": "x"}}}"#,
                "Invalid format for TF_REATTACH_PROVIDERS: Unknown address type \"pipe\" for \"p\"",
            ),
            (
                r#"{"p": {"Protocol": "grpc", "Addr": {"Network": "tcp", "String": "x"}}}"#,
                "Invalid format for TF_REATTACH_PROVIDERS: Invalid TCP address \"x\" for \"p\"",
            ),
            (
                r#"{"p": {"Protocol": "netrpc", "Addr": {"Network": "unix", "String": "/s"}}}"#,
                "unsupported plugin protocol \"netrpc\". Supported: [grpc]",
            ),
            (
                r#"{"p": {"Protocol": "grpc", "ProtocolVersion": 4, "Addr": {"Network": "unix", "String": "/s"}}}"#,
                "no supported plugins for protocol 4",
            ),
        ];
        for (text, want) in cases {
            let err = parse_reattach_providers(text).unwrap_err();
            assert!(err.message.starts_with(want), "{text}: {}", err.message);
        }
    }
}
