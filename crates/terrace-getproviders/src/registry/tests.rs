//! Against a provider registry the test serves itself over HTTPS on
//! 127.0.0.1, with a certificate made for the occasion.

use super::*;
use crate::constraints::VersionConstraints;
use crate::installer::{
    InstallMode, Installer, NoEvents, ProviderCacheDir, ProviderError, Requirements,
};
use crate::lockfile::Locks;
use crate::source::{MultiSource, MultiSourceSelector};
use crate::testutil::TempDir;
use std::net::TcpListener;

const ZIP: &[u8] = include_bytes!("../../testdata/widget_2.0.0_linux_amd64.zip");
const ZIP_SHA: &str = "94ae73cb5d2f4eced53953896d995a1a7f79cd5d09353e9db1289a10412ff49e";
const SUMS: &[u8] = include_bytes!("../../testdata/registry/SHA256SUMS");
const SIG: &[u8] = include_bytes!("../../testdata/registry/SHA256SUMS.sig");
const STRANGER_SIG: &[u8] = include_bytes!("../../testdata/registry/SHA256SUMS.stranger.sig");
const SIGNER: &str = include_str!("../../testdata/registry/key_signer.asc");

use terrace_testsupport::https::{LoopbackHttps, Reply};

fn json(body: serde_json::Value) -> Reply {
    Reply::json(body)
}

fn bytes(body: &[u8]) -> Reply {
    Reply::bytes(body)
}

/// A provider registry on the loopback HTTPS server.
struct Registry {
    server: LoopbackHttps,
    addr: String,
}

impl std::ops::Deref for Registry {
    type Target = LoopbackHttps;
    fn deref(&self) -> &LoopbackHttps {
        &self.server
    }
}

impl Registry {
    fn start() -> Registry {
        let server = LoopbackHttps::start();
        let addr = server.addr.clone();
        Registry { server, addr }
    }

    fn config(&self) -> RegistryConfig {
        RegistryConfig {
            http: HttpConfig {
                root_certificates: Some(vec![self.cert_der.clone()]),
                timeout: Some(Duration::from_secs(30)),
            },
            ..RegistryConfig::default()
        }
    }

    fn provider(&self) -> Provider {
        match Provider::parse_source_str(&format!("{}/acme/widget", self.addr)) {
            Ok(p) => p,
            Err(d) => panic!("{d:?}"),
        }
    }

    /// A registry offering acme/widget 1.0.0, 2.0.0 and 3.0.0-beta, the
    /// 2.0.0 package for linux_amd64 signed by the test signer.
    fn with_widget() -> Registry {
        let reg = Registry::start();
        reg.route(
            "/.well-known/terraform.json",
            json(
                serde_json::json!({"providers.v1": "/v1/providers/", "modules.v1": "/v1/modules/"}),
            ),
        );
        let platforms = serde_json::json!([{"os": "linux", "arch": "amd64"}, {"os": "darwin", "arch": "arm64"}]);
        reg.route(
            "/v1/providers/acme/widget/versions",
            json(serde_json::json!({"versions": [
                {"version": "1.0.0", "protocols": ["5.0"], "platforms": platforms},
                {"version": "3.0.0-beta", "protocols": ["5.0"], "platforms": platforms},
                {"version": "2.0.0", "protocols": ["5.0"], "platforms": platforms},
            ]})),
        );
        reg.route(
            "/v1/providers/acme/widget/2.0.0/download/linux/amd64",
            json(serde_json::json!({
                "protocols": ["5.0"],
                "os": "linux",
                "arch": "amd64",
                "filename": "terraform-provider-widget_2.0.0_linux_amd64.zip",
                "download_url": "/files/terraform-provider-widget_2.0.0_linux_amd64.zip",
                "shasums_url": "/files/SHA256SUMS",
                "shasums_signature_url": "/files/SHA256SUMS.sig",
                "shasum": ZIP_SHA,
                "signing_keys": {"gpg_public_keys": [{"key_id": "A6576E6F70E1F905", "ascii_armor": SIGNER}]},
            })),
        );
        reg.route(
            "/files/terraform-provider-widget_2.0.0_linux_amd64.zip",
            bytes(ZIP),
        );
        reg.route("/files/SHA256SUMS", bytes(SUMS));
        reg.route("/files/SHA256SUMS.sig", bytes(SIG));
        reg
    }
}

fn installer_for(reg: &Registry, target: &Path) -> Installer {
    let mut inst = Installer::new(
        ProviderCacheDir::with_platform(target, Platform::new("linux", "amd64")),
        Box::new(MultiSource(vec![MultiSourceSelector::new(Box::new(
            RegistrySource::new(reg.config()),
        ))])),
    );
    inst.set_fetcher(Box::new(HttpFetcher(Http::new(&reg.config().http))));
    inst
}

fn reqs(p: &Provider, c: &str) -> Requirements {
    let cons = match VersionConstraints::parse(c) {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    [(p.clone(), cons)].into_iter().collect()
}

fn install(reg: &Registry, target: &Path, c: &str) -> (Locks, BTreeMap<Provider, ProviderError>) {
    installer_for(reg, target).ensure_provider_versions(
        &Locks::new(),
        &reqs(&reg.provider(), c),
        InstallMode::NewProvidersOnly,
        &mut NoEvents,
    )
}

fn diag(errors: &BTreeMap<Provider, ProviderError>, p: &Provider) -> String {
    match errors.get(p) {
        Some(e) => {
            let d = e.to_diagnostic(p);
            format!("{}: {}", d.summary, d.detail)
        }
        None => panic!("no error for {p}: {errors:?}"),
    }
}

#[test]
fn discovers_chooses_downloads_verifies_and_locks() {
    let reg = Registry::with_widget();
    let work = TempDir::new("reg-ok");
    let target = work.path().join(".terraform/providers");
    let (locks, errors) = install(&reg, &target, ">= 1.0");
    assert!(errors.is_empty(), "{errors:?}");
    // 2.0.0: the newest release allowed (3.0.0-beta is not requested).
    let want = format!(
        "# This file is maintained automatically by \"terraform init\".\n# Manual edits may be lost in future updates.\n\nprovider \"{}/acme/widget\" {{\n  version     = \"2.0.0\"\n  constraints = \">= 1.0.0\"\n  hashes = [\n    \"h1:V3Us0DV4KR70MFGENOE0wh3LCGjbIEJ9oUM9yAPMlxY=\",\n    \"zh:1111111111111111111111111111111111111111111111111111111111111111\",\n    \"zh:{ZIP_SHA}\",\n  ]\n}}\n",
        reg.addr
    );
    assert_eq!(String::from_utf8_lossy(&locks.to_bytes()), want);
    let dir = target.join(format!("{}/acme/widget/2.0.0/linux_amd64", reg.addr));
    assert_eq!(
        std::fs::read(dir.join("terraform-provider-widget_v2.0.0")).ok(),
        Some(b"#!/bin/sh\necho widget\n".to_vec())
    );
    // The exact pre-release is chosen when named.
    let src = RegistrySource::new(reg.config());
    let versions = match src.available_versions(&reg.provider()) {
        Ok((v, _)) => v.iter().map(|v| v.to_string()).collect::<Vec<_>>(),
        Err(e) => panic!("{e}"),
    };
    assert_eq!(versions, ["1.0.0", "2.0.0", "3.0.0-beta"]);
}

#[test]
fn a_checksum_mismatch_is_refused() {
    let reg = Registry::with_widget();
    reg.route(
        "/files/terraform-provider-widget_2.0.0_linux_amd64.zip",
        bytes(b"PK\x05\x06 tampered"),
    );
    let work = TempDir::new("reg-sum");
    let target = work.path().join("providers");
    let (locks, errors) = install(&reg, &target, "2.0.0");
    assert!(locks.is_empty());
    let got = diag(&errors, &reg.provider());
    assert!(
        got.starts_with(&format!(
            "Failed to install provider: Error while installing {}/acme/widget v2.0.0: archive has incorrect checksum zh:",
        reg.addr)),
        "{got}"
    );
    assert!(got.ends_with(&format!("(expected zh:{ZIP_SHA})")), "{got}");
    assert!(!target.exists(), "something was installed");
}

#[test]
fn a_bad_signature_is_refused() {
    let reg = Registry::with_widget();
    let work = TempDir::new("reg-sig");
    let target = work.path().join("providers");
    // Signed by a key the registry does not list.
    reg.route("/files/SHA256SUMS.sig", bytes(STRANGER_SIG));
    let (_, errors) = install(&reg, &target, "");
    assert_eq!(
        diag(&errors, &reg.provider()),
        format!("Failed to install provider: Error while installing {}/acme/widget v2.0.0: the provider is not signed with a valid signing key; please contact the provider author (authentication signature from unknown issuer)", reg.addr)
    );
    // A signature that does not match the document.
    let mut bad = SIG.to_vec();
    let last = bad.len() - 1;
    bad[last] ^= 0x01;
    reg.route("/files/SHA256SUMS.sig", bytes(&bad));
    let (_, errors) = install(&reg, &target, "");
    assert_eq!(
        diag(&errors, &reg.provider()),
        format!("Failed to install provider: Error while installing {}/acme/widget v2.0.0: the provider is not signed with a valid signing key; please contact the provider author (error checking signature: openpgp: invalid signature: RSA verification failure)", reg.addr)
    );
    assert!(!target.exists(), "something was installed");
}

#[test]
fn a_missing_platform_is_reported() {
    let reg = Registry::with_widget();
    reg.unroute("/v1/providers/acme/widget/2.0.0/download/linux/amd64");
    let work = TempDir::new("reg-platform");
    let (_, errors) = install(&reg, &work.path().join("providers"), "");
    assert_eq!(
        diag(&errors, &reg.provider()),
        format!("Incompatible provider version: Provider {}/acme/widget v2.0.0 does not have a package available for your current platform, linux_amd64.\n\nProvider releases are separate from terrace CLI releases, so not all providers are available for all platforms. Other versions of this provider may have different platforms supported.", reg.addr)
    );
}

#[test]
fn hosts_without_a_provider_registry() {
    let reg = Registry::start();
    let work = TempDir::new("reg-nohost");
    let p = reg.provider();
    // No discovery document at all.
    let (_, errors) = install(&reg, &work.path().join("providers"), "");
    assert_eq!(
        diag(&errors, &p),
        format!("Invalid provider registry host: The host \"{0}\" given in provider source address \"{0}/acme/widget\" does not offer a terrace provider registry.", reg.addr)
    );
    // Only another protocol version.
    reg.route(
        "/.well-known/terraform.json",
        json(serde_json::json!({"providers.v2": "/v2/"})),
    );
    let (_, errors) = install(&reg, &work.path().join("providers"), "");
    assert!(
        diag(&errors, &p).contains("compatible with this terrace version"),
        "{}",
        diag(&errors, &p)
    );
    // A registry that does not know the provider.
    reg.route(
        "/.well-known/terraform.json",
        json(serde_json::json!({"providers.v1": "/v1/providers/"})),
    );
    let (_, errors) = install(&reg, &work.path().join("providers"), "");
    assert!(
        diag(&errors, &p).starts_with(&format!(
            "Failed to query available provider packages: Could not retrieve the list of available versions for provider {0}/acme/widget: provider registry {0} does not have a provider named {0}/acme/widget\n\nAll modules should specify their required_providers",
            reg.addr
        )),
        "{}",
        diag(&errors, &p)
    );
    // A discovery document of the wrong type.
    reg.route(
        "/.well-known/terraform.json",
        Reply {
            status: 200,
            headers: vec![("Content-Type".into(), "text/html".into())],
            body: std::sync::Arc::new(b"<html>".to_vec()),
        },
    );
    let src = RegistrySource::new(reg.config());
    assert_eq!(
        src.available_versions(&p).err().map(|e| e.to_string()),
        Some(format!("could not connect to {}: discovery URL returned an unsupported Content-Type \"text/html\"", reg.addr))
    );
}

#[test]
fn an_unreachable_registry_is_reported() {
    // A port nothing listens on: bind one, then let it go.
    let addr = match TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()) {
        Ok(a) => a.to_string(),
        Err(e) => panic!("{e}"),
    };
    let p = match Provider::parse_source_str(&format!("{addr}/acme/widget")) {
        Ok(p) => p,
        Err(d) => panic!("{d:?}"),
    };
    let src = RegistrySource::new(RegistryConfig::default());
    let err = match src.available_versions(&p) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    };
    let text = err.to_string();
    assert!(
        text.starts_with(&format!(
            "could not connect to {addr}: failed to request discovery document: Get \"https://{addr}/.well-known/terraform.json\": "
        )),
        "{text}"
    );
    let d = crate::installer::ProviderError::Query(crate::installer::QueryError::Source(err))
        .to_diagnostic(&p);
    assert_eq!(d.summary, "Failed to query available provider packages");
}

#[test]
fn cli_host_blocks_replace_discovery() {
    let reg = Registry::with_widget();
    reg.unroute("/.well-known/terraform.json");
    let mut cfg = reg.config();
    cfg.host_services.insert(
        reg.addr.clone(),
        [(
            "providers.v1".to_string(),
            format!("https://{}/v1/providers/", reg.addr),
        )]
        .into_iter()
        .collect(),
    );
    let src = RegistrySource::new(cfg);
    assert_eq!(
        src.available_versions(&reg.provider())
            .map(|(v, _)| v.len()),
        Ok(3)
    );
}

#[test]
fn urls_resolve_as_go_resolves_them() {
    for (base, r, want) in [
        (
            "https://h/.well-known/terraform.json",
            "/v1/providers/",
            "https://h/v1/providers/",
        ),
        (
            "https://h/v1/providers/",
            "acme/widget/versions",
            "https://h/v1/providers/acme/widget/versions",
        ),
        (
            "https://h/v1/providers/x/download/linux/amd64",
            "../../../files/a.zip",
            "https://h/v1/providers/files/a.zip",
        ),
        ("https://h/a/b", "https://other/x", "https://other/x"),
        ("https://h/a/b", "//cdn/x", "https://cdn/x"),
        ("https://h/a/b?q=1", "c?d=2", "https://h/a/c?d=2"),
        ("https://h:8443/a/", "./b/../c", "https://h:8443/a/c"),
    ] {
        assert_eq!(resolve_url(base, r), want, "{base} + {r}");
    }
}

#[test]
fn installs_from_a_network_mirror() {
    let reg = Registry::start();
    let prefix = "/mirror/example.com/acme/widget";
    reg.route(
        &format!("{prefix}/index.json"),
        json(serde_json::json!({"versions": {"2.0.0": {}, "1.0.0": {}}})),
    );
    reg.route(
        &format!("{prefix}/2.0.0.json"),
        json(serde_json::json!({"archives": {"linux_amd64": {
            "url": "terraform-provider-widget_2.0.0_linux_amd64.zip",
            "hashes": ["h1:V3Us0DV4KR70MFGENOE0wh3LCGjbIEJ9oUM9yAPMlxY="]
        }}})),
    );
    reg.route(
        &format!("{prefix}/terraform-provider-widget_2.0.0_linux_amd64.zip"),
        bytes(ZIP),
    );
    let base = format!("https://{}/mirror", reg.addr);
    let p = match Provider::parse_source_str("example.com/acme/widget") {
        Ok(p) => p,
        Err(d) => panic!("{d:?}"),
    };
    let work = TempDir::new("reg-mirror");
    let target = work.path().join("providers");
    let mut inst = Installer::new(
        ProviderCacheDir::with_platform(&target, Platform::new("linux", "amd64")),
        Box::new(HttpMirrorSource::new(&base, &reg.config())),
    );
    inst.set_fetcher(Box::new(HttpFetcher(Http::new(&reg.config().http))));
    let (locks, errors) = inst.ensure_provider_versions(
        &Locks::new(),
        &reqs(&p, ""),
        InstallMode::NewProvidersOnly,
        &mut NoEvents,
    );
    assert!(errors.is_empty(), "{errors:?}");
    let hashes: Vec<String> = locks
        .provider(&p)
        .map(|l| l.hashes().iter().map(|h| h.to_string()).collect())
        .unwrap_or_default();
    assert_eq!(hashes, ["h1:V3Us0DV4KR70MFGENOE0wh3LCGjbIEJ9oUM9yAPMlxY="]);
    assert!(target
        .join("example.com/acme/widget/2.0.0/linux_amd64/terraform-provider-widget_v2.0.0")
        .is_file());

    // A platform the mirror lacks.
    let mut inst = Installer::new(
        ProviderCacheDir::with_platform(work.path().join("p2"), Platform::new("darwin", "arm64")),
        Box::new(HttpMirrorSource::new(&base, &reg.config())),
    );
    inst.set_fetcher(Box::new(HttpFetcher(Http::new(&reg.config().http))));
    let (_, errors) = inst.ensure_provider_versions(
        &Locks::new(),
        &reqs(&p, ""),
        InstallMode::NewProvidersOnly,
        &mut NoEvents,
    );
    assert_eq!(
        diag(&errors, &p),
        format!("Incompatible provider version: Your chosen provider mirror at {base}/ does not have a example.com/acme/widget v2.0.0 package available for your current platform, darwin_arm64.\n\nProvider releases are separate from terrace CLI releases, so this provider might not support your current platform. Alternatively, the mirror itself might have only a subset of the plugin packages available in the origin registry, at example.com.")
    );
}

/// A helper program answering `get` for every host with `answer` (a JSON
/// object) or failing; every call is appended to `calls` in `dir`.
fn helper_program(dir: &Path, name: &str, script_body: &str) -> std::path::PathBuf {
    let plugins = dir.join("plugins");
    std::fs::create_dir_all(&plugins).unwrap_or_else(|e| panic!("{e}"));
    let program = plugins.join(format!("terraform-credentials-{name}"));
    std::fs::write(
        &program,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >> {}\n{script_body}\n",
            dir.join("calls").display()
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("{e}"));
    plugins
}

#[test]
fn a_credentials_helper_gives_the_token_the_registry_asks_for() {
    use crate::credentials_helper::CredentialsHelper;
    let reg = Registry::with_widget();
    reg.require_token(Some("from-the-helper"));
    let dir = TempDir::new("credentials-helper");
    let plugins = helper_program(
        dir.path(),
        "keeper",
        "[ \"$2\" = get ] && echo '{\"token\":\"from-the-helper\"}'",
    );
    let helper = CredentialsHelper::find("keeper", &["--vault".to_string()], &[plugins])
        .expect("the helper program is found");

    // Without the helper the registry refuses.
    let src = RegistrySource::new(reg.config());
    assert!(
        matches!(
            src.available_versions(&reg.provider()),
            Err(SourceError::Unauthorized {
                have_credentials: false,
                ..
            })
        ),
        "{:?}",
        src.available_versions(&reg.provider()).map(|_| ())
    );

    let mut cfg = reg.config();
    cfg.credentials_helper = Some(helper.clone());
    let src = RegistrySource::new(cfg.clone());
    assert_eq!(
        src.available_versions(&reg.provider())
            .map(|(v, _)| v.len()),
        Ok(3)
    );
    // Asked once per host for the whole run, with the block's arguments.
    let calls = std::fs::read_to_string(dir.path().join("calls")).unwrap_or_default();
    assert_eq!(calls, format!("--vault get {}\n", reg.addr));

    // A token in the CLI configuration wins over the helper.
    cfg.credentials
        .insert(reg.addr.clone(), "from-the-configuration".into());
    let src = RegistrySource::new(cfg);
    assert!(matches!(
        src.available_versions(&reg.provider()),
        Err(SourceError::Unauthorized {
            have_credentials: true,
            ..
        })
    ));
}

#[test]
fn a_failing_credentials_helper_is_passed_over() {
    use crate::credentials_helper::CredentialsHelper;
    let reg = Registry::with_widget();
    let dir = TempDir::new("credentials-helper-fails");
    let plugins = helper_program(dir.path(), "broken", "echo 'vault sealed' >&2; exit 1");
    let helper =
        CredentialsHelper::find("broken", &[], &[plugins]).expect("the helper program is found");
    let host = Hostname::for_comparison("127.0.0.1").unwrap_or_else(|e| panic!("{e}"));
    let err = helper.get(&host).expect_err("the helper fails");
    assert!(err.ends_with(": vault sealed\n"), "{err}");
    let mut cfg = reg.config();
    cfg.credentials_helper = Some(helper);
    // No token, and the registry (which asks for none) answers.
    assert_eq!(cfg.token(&host), None);
    assert_eq!(
        RegistrySource::new(cfg)
            .available_versions(&reg.provider())
            .map(|(v, _)| v.len()),
        Ok(3)
    );
}
