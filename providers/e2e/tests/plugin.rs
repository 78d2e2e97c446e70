//! The bundled providers as terrace itself starts them: go-plugin's
//! handshake with AutoMTLS through terrace-plugin's client, the schema
//! over tfplugin6, a graceful shutdown; and the message for a person who
//! runs a provider binary directly.

use std::process::Command;
use terrace_plugin::{LaunchConfig, NullLogSink, PluginProvider};
use terrace_providers::Provider;

#[test]
fn terrace_launches_the_providers_with_auto_mtls() {
    let bin = match provider_e2e::build_providers() {
        Ok(bin) => bin,
        Err(message) => panic!("{message}"),
    };
    for (package, source) in provider_e2e::PROVIDERS {
        let mut config =
            LaunchConfig::new(format!("registry.terraform.io/{source}"), bin.join(package));
        config.auto_mtls = true;
        config.log = std::sync::Arc::new(NullLogSink);
        let provider = PluginProvider::launch(config).unwrap_or_else(|e| panic!("{package}: {e}"));
        assert!(provider.uses_tls(), "{package}");
        assert_eq!(provider.protocol_version(), 6, "{package}");
        let schema = provider.get_provider_schema();
        assert!(
            !schema.diagnostics.has_errors(),
            "{package}: {}",
            schema.diagnostics
        );
        assert!(!schema.schema.resource_types.is_empty(), "{package}");
        let pid = provider.pid();
        assert!(provider.close().is_empty());
        drop(provider);
        if let Some(pid) = pid {
            // The provider exits on its own after the controller's
            // Shutdown; it gets a moment to do so.
            let running = || {
                std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .map(|stat| !stat.contains(") Z "))
                    .unwrap_or(false)
            };
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
            while running() && std::time::Instant::now() < deadline {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            assert!(!running(), "{package} is still running after shutdown");
        }
    }
}

#[test]
fn running_a_provider_by_hand_explains_itself() {
    let bin = match provider_e2e::build_providers() {
        Ok(bin) => bin,
        Err(message) => panic!("{message}"),
    };
    let output = Command::new(bin.join("terraform-provider-null"))
        .env_remove("TF_PLUGIN_MAGIC_COOKIE")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("This binary is a plugin. These are not meant to be executed directly."),
        "{stderr}"
    );
}
