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

/// Whether process `pid` still runs (a zombie does not: its parent has not
/// reaped it yet, which a container's init may never do).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| !stat.contains(") Z "))
        .unwrap_or(false)
}

#[test]
fn a_provider_whose_host_is_killed_ends_by_itself() {
    let bin = match provider_e2e::build_providers() {
        Ok(bin) => bin,
        Err(message) => panic!("{message}"),
    };
    let dir =
        std::env::temp_dir().join(format!("terrace-orphaned-provider-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let handshake = dir.join("handshake");
    // A host that starts the provider, waits for its handshake line and
    // ends without stopping it, as a host that is killed does.
    let host = Command::new("sh")
        .arg("-c")
        .arg(
            r#""$0" > "$1" 2>/dev/null &
echo $!
while ! grep -q unix "$1" 2>/dev/null; do sleep 0.05; done"#,
        )
        .arg(bin.join("terraform-provider-null"))
        .arg(&handshake)
        .env(
            terrace_plugin::MAGIC_COOKIE_KEY,
            terrace_plugin::MAGIC_COOKIE_VALUE,
        )
        .env("PLUGIN_PROTOCOL_VERSIONS", "6")
        .output()
        .unwrap();
    let pid: u32 = String::from_utf8_lossy(&host.stdout)
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("the provider's pid: {e}: {host:?}"));
    let line = std::fs::read_to_string(&handshake).unwrap_or_default();
    assert!(line.starts_with("1|6|unix|"), "{line:?}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while running(pid) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let still_running = running(pid);
    if still_running {
        let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        !still_running,
        "the provider was still running 10 s after its host ended"
    );
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
