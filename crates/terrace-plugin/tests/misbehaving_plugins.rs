//! Plugins that go wrong in each way go-plugin's client guards against,
//! played by small shell scripts in `tests/fake-plugins/`. Each must give
//! a clear error naming the provider, within a bounded time, and leave no
//! process behind.

mod support;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use support::{assert_gone, recorded_pids, TempDir};
use terrace_plugin::{LaunchConfig, NullLogSink, PluginError, PluginErrorKind, PluginProvider};
use terrace_providers::Provider;

const PROVIDER: &str = "example.com/test/fake";

fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fake-plugins")
        .join(name)
}

/// Launches a fake plugin script with `sh`, returning the result and the
/// process ids the script recorded.
fn launch_fake(
    name: &str,
    start_timeout: Duration,
) -> (Result<PluginProvider, PluginError>, Vec<i32>, TempDir) {
    let dir = TempDir::new(name);
    let pids = dir.path().join("pids");
    let mut config = LaunchConfig::new(PROVIDER, "/bin/sh");
    config.args = vec![script(name).into()];
    config.env = vec![("FAKE_PLUGIN_PIDS".into(), pids.clone().into())];
    config.start_timeout = start_timeout;
    config.auto_mtls = true;
    config.log = Arc::new(NullLogSink);
    let result = PluginProvider::launch(config);
    let recorded = recorded_pids(&pids);
    (result, recorded, dir)
}

fn expect_error(name: &str, start_timeout: Duration) -> (PluginError, Vec<i32>) {
    let (result, pids, _dir) = launch_fake(name, start_timeout);
    let error = match result {
        Ok(_) => panic!("{name}: the launch should have failed"),
        Err(error) => error,
    };
    assert_eq!(error.provider, PROVIDER);
    assert!(
        error.to_string().contains(PROVIDER),
        "{name}: the error does not name the provider: {error}"
    );
    assert!(!pids.is_empty(), "{name}: the script did not run");
    for pid in &pids {
        assert_gone(*pid);
    }
    (error, pids)
}

#[test]
fn garbage_before_the_handshake() {
    let (error, pids) = expect_error("garbage-before-handshake.sh", Duration::from_secs(30));
    assert_eq!(error.kind, PluginErrorKind::Handshake);
    assert!(
        error.message.starts_with(
            "Unrecognized remote plugin message: Hello! I am not a go-plugin handshake."
        ),
        "{error}"
    );
    // The script's own background child went with it.
    assert_eq!(pids.len(), 2);
}

#[test]
fn exits_at_once() {
    let (error, _) = expect_error("exits-at-once.sh", Duration::from_secs(30));
    assert_eq!(error.kind, PluginErrorKind::Exited);
    assert_eq!(
        error.message,
        "plugin exited before completing the handshake (exit status: 3)"
    );
    assert_eq!(
        error.plugin_output,
        "fatal: could not read my configuration\n"
    );
}

#[test]
fn plugin_for_another_application() {
    let (error, _) = expect_error("other-magic-cookie.sh", Duration::from_secs(30));
    assert_eq!(error.kind, PluginErrorKind::Exited);
    assert!(
        error
            .plugin_output
            .starts_with("This binary is a plugin. These are not meant to be executed directly."),
        "{error}"
    );
    let text = error.to_string();
    assert!(
        text.starts_with(&format!(
            "failed to instantiate provider {PROVIDER:?}: plugin exited"
        )),
        "{text}"
    );
}

#[test]
fn environment_carries_cookie_versions_ports_and_certificate() {
    let (error, _) = expect_error("checks-environment.sh", Duration::from_secs(30));
    assert_eq!(error.kind, PluginErrorKind::Handshake, "{error}");
    assert_eq!(
        error.message,
        "incompatible API version with plugin. Plugin version: 4, Client versions: [5, 6]"
    );
}

#[test]
fn never_completes_the_handshake() {
    let (error, _) = expect_error("never-handshakes.sh", Duration::from_millis(1500));
    assert_eq!(error.kind, PluginErrorKind::Timeout);
    assert_eq!(
        error.message,
        "timeout while waiting for plugin to start: no handshake within 1500ms"
    );
    assert_eq!(error.plugin_output, "starting up...\n");
}

#[test]
fn crashes_mid_call() {
    // The crashing fake plugin is a python3 script.
    if !terrace_testsupport::require_python3() {
        return;
    }
    let (result, pids, _dir) = launch_fake("crashes-mid-call.sh", Duration::from_secs(30));
    let provider = match result {
        Ok(provider) => provider,
        Err(error) => panic!("the fake plugin should start: {error}"),
    };
    assert_eq!(provider.protocol_version(), 5);
    let response = provider.get_provider_schema();
    assert!(response.diagnostics.has_errors());
    let diagnostic = &response.diagnostics.0[0];
    assert_eq!(diagnostic.summary, "Plugin did not respond");
    assert!(
        diagnostic.detail.contains(PROVIDER),
        "{}",
        diagnostic.detail
    );
    assert!(
        diagnostic.detail.contains("exited (exit status: 2) while terrace was waiting for its response to the GetSchema call"),
        "{}",
        diagnostic.detail
    );
    assert!(
        diagnostic
            .detail
            .contains("panic: fake provider crashed in the middle of a call"),
        "{}",
        diagnostic.detail
    );
    assert!(provider.panic_output().is_some());
    // Later calls fail the same way, without hanging.
    assert!(provider.get_provider_schema().diagnostics.has_errors());
    assert!(provider.stop().has_errors());
    drop(provider);
    for pid in pids {
        assert_gone(pid);
    }
}

#[test]
fn missing_executable() {
    let mut config = LaunchConfig::new(PROVIDER, "/nonexistent/terraform-provider-fake");
    config.log = Arc::new(NullLogSink);
    let error = match PluginProvider::launch(config) {
        Ok(_) => panic!("launching a missing file should fail"),
        Err(error) => error,
    };
    assert_eq!(error.kind, PluginErrorKind::Spawn);
    assert!(
        error
            .to_string()
            .starts_with("failed to instantiate provider \"example.com/test/fake\": could not run /nonexistent/terraform-provider-fake:"),
        "{error}"
    );
}
