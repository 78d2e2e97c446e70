use super::*;
use crate::source::{FilesystemMirrorSource, MultiSource, MultiSourceSelector};
use crate::testutil::TempDir;

const WIDGET_ZIP: &[u8] = include_bytes!("../../testdata/widget_2.0.0_linux_amd64.zip");
const MIRROR_TWO: &str = include_str!("../../testdata/mirror_two_providers.terraform.lock.hcl");
const AWS_TWO_MODULES: &str = include_str!("../../testdata/aws_two_modules.terraform.lock.hcl");

fn p(s: &str) -> Provider {
    match Provider::parse_source_str(s) {
        Ok(p) => p,
        Err(d) => panic!("{d:?}"),
    }
}

fn c(s: &str) -> VersionConstraints {
    match VersionConstraints::parse(s) {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    }
}

fn linux() -> Platform {
    Platform::new("linux", "amd64")
}

/// The mirror Terraform 1.11.4 installed testdata/mirror_two_providers
/// from: hashicorp/null 1.0.0 and 1.1.0 unpacked, example.com/acme/widget
/// 2.0.0 packed.
fn mirror() -> TempDir {
    let m = TempDir::new("inst-mirror");
    let exe = b"#!/bin/sh\necho hi\n";
    m.write_mode(
        "registry.terraform.io/hashicorp/null/1.0.0/linux_amd64/terraform-provider-null_v1.0.0_x5",
        exe,
        0o755,
    );
    m.write_mode(
        "registry.terraform.io/hashicorp/null/1.1.0/linux_amd64/terraform-provider-null_v1.1.0_x5",
        exe,
        0o755,
    );
    m.write_mode(
        "example.com/acme/widget/terraform-provider-widget_2.0.0_linux_amd64.zip",
        WIDGET_ZIP,
        0o644,
    );
    m
}

fn installer(target: &Path, mirror: &Path) -> Installer {
    Installer::new(
        ProviderCacheDir::with_platform(target, linux()),
        Box::new(MultiSource(vec![MultiSourceSelector::new(Box::new(
            FilesystemMirrorSource::new(mirror),
        ))])),
    )
}

fn reqs(list: &[(&str, &str)]) -> Requirements {
    list.iter().map(|(a, b)| (p(a), c(b))).collect()
}

/// Every path under `dir`, relative, with a type marker, sorted.
fn tree(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            let rel = path
                .strip_prefix(base)
                .map(|r| r.display().to_string())
                .unwrap_or_default();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path)
                    .map(|t| t.display().to_string())
                    .unwrap_or_default();
                out.push(format!("{rel} -> {target}"));
            } else if meta.is_dir() {
                out.push(format!("{rel}/"));
                walk(base, &path, out);
            } else {
                out.push(format!("{rel} {:o}", meta.permissions().mode() & 0o777));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[derive(Default)]
struct Recorder(Vec<String>);

impl InstallerEvents for Recorder {
    fn query_packages_begin(&mut self, p: &Provider, c: &VersionConstraints, locked: bool) {
        self.0.push(format!("query {p} [{c}] locked={locked}"));
    }
    fn provider_already_installed(&mut self, p: &Provider, v: &Version) {
        self.0.push(format!("already {p} {v}"));
    }
    fn fetch_package_begin(
        &mut self,
        p: &Provider,
        v: &Version,
        _: &PackageLocation,
        in_cache: bool,
    ) {
        self.0.push(format!("fetch {p} {v} cache={in_cache}"));
    }
    fn link_from_cache_begin(&mut self, p: &Provider, v: &Version, _: &Path) {
        self.0.push(format!("link {p} {v}"));
    }
    fn failure(&mut self, p: &Provider, e: &ProviderError) {
        self.0.push(format!("failed {p}: {}", e.message(p)));
    }
}

#[test]
fn installs_from_a_mirror_as_terraform_does() {
    let m = mirror();
    let work = TempDir::new("inst-work");
    let target = work.path().join(".terraform/providers");
    let inst = installer(&target, m.path());
    let (locks, errors) = inst.ensure_provider_versions(
        &Locks::new(),
        &reqs(&[
            ("hashicorp/null", ">= 1.0, < 2"),
            ("example.com/acme/widget", ""),
        ]),
        InstallMode::NewProvidersOnly,
        &mut NoEvents,
    );
    assert!(errors.is_empty(), "{errors:?}");
    // Byte for byte what Terraform wrote for the same mirror.
    assert_eq!(String::from_utf8_lossy(&locks.to_bytes()), MIRROR_TWO);
    // Unpacked packages are linked, packed ones extracted.
    let mirror_null = m
        .path()
        .join("registry.terraform.io/hashicorp/null/1.1.0/linux_amd64");
    assert_eq!(
        tree(&target),
        [
            "example.com/".to_string(),
            "example.com/acme/".into(),
            "example.com/acme/widget/".into(),
            "example.com/acme/widget/2.0.0/".into(),
            "example.com/acme/widget/2.0.0/linux_amd64/".into(),
            "example.com/acme/widget/2.0.0/linux_amd64/docs/".into(),
            "example.com/acme/widget/2.0.0/linux_amd64/docs/README.md 644".into(),
            "example.com/acme/widget/2.0.0/linux_amd64/terraform-provider-widget_v2.0.0 755".into(),
            "registry.terraform.io/".into(),
            "registry.terraform.io/hashicorp/".into(),
            "registry.terraform.io/hashicorp/null/".into(),
            "registry.terraform.io/hashicorp/null/1.1.0/".into(),
            format!(
                "registry.terraform.io/hashicorp/null/1.1.0/linux_amd64 -> {}",
                mirror_null.display()
            ),
        ]
    );
    let Some(cached) = ProviderCacheDir::with_platform(&target, linux())
        .provider_version(&p("hashicorp/null"), &Version::new(1, 1, 0))
    else {
        panic!("not installed")
    };
    assert_eq!(
        cached.executable_file().ok(),
        Some(cached.package_dir.join("terraform-provider-null_v1.1.0_x5"))
    );
}

/// The image's aws provider with a root module requiring `~> 5.0` and a
/// child requiring `>= 5.10, != 5.50.0`: the lock file Terraform wrote,
/// and the same link Terraform made.
#[test]
fn installs_the_images_aws_provider_as_terraform_does() {
    if !terrace_testsupport::require_aws_provider_package() {
        return;
    }
    let work = TempDir::new("inst-aws");
    let target = work.path().join(".terraform/providers");
    let inst = installer(&target, Path::new(terrace_testsupport::PLUGIN_MIRROR));
    let mut all = reqs(&[("hashicorp/aws", "~> 5.0")]);
    merge_requirements(&mut all, &reqs(&[("hashicorp/aws", ">= 5.10, != 5.50.0")]));
    let (locks, errors) = inst.ensure_provider_versions(
        &Locks::new(),
        &all,
        InstallMode::NewProvidersOnly,
        &mut NoEvents,
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(String::from_utf8_lossy(&locks.to_bytes()), AWS_TWO_MODULES);
    let link = target.join("registry.terraform.io/hashicorp/aws/5.100.0/linux_amd64");
    assert_eq!(
        std::fs::read_link(&link).ok(),
        Some(PathBuf::from(terrace_testsupport::AWS_PROVIDER_PACKAGE))
    );
}

#[test]
fn the_lock_file_holds_the_version_unless_upgrading() {
    let m = mirror();
    let work = TempDir::new("inst-lock");
    let target = work.path().join("providers");
    let inst = installer(&target, m.path());
    let r = reqs(&[("hashicorp/null", "")]);
    let mut locks = Locks::new();
    locks.set_provider(ProviderLock::new(
        p("hashicorp/null"),
        Version::new(1, 0, 0),
        VersionConstraints::new(),
        vec![],
    ));
    let mut ev = Recorder::default();
    let (new, errors) =
        inst.ensure_provider_versions(&locks, &r, InstallMode::NewProvidersOnly, &mut ev);
    assert!(errors.is_empty());
    assert_eq!(
        new.provider(&p("hashicorp/null"))
            .map(|l| l.version.to_string()),
        Some("1.0.0".into())
    );
    assert_eq!(
        ev.0,
        [
            "query registry.terraform.io/hashicorp/null [] locked=true",
            "fetch registry.terraform.io/hashicorp/null 1.0.0 cache=false"
        ]
    );

    // Run again: installed and matching the recorded hash, so untouched.
    let mut ev = Recorder::default();
    let (again, errors) =
        inst.ensure_provider_versions(&new, &r, InstallMode::NewProvidersOnly, &mut ev);
    assert!(errors.is_empty());
    assert_eq!(again, new);
    assert_eq!(
        ev.0[1],
        "already registry.terraform.io/hashicorp/null 1.0.0"
    );

    let (upgraded, errors) =
        inst.ensure_provider_versions(&new, &r, InstallMode::Upgrade, &mut NoEvents);
    assert!(errors.is_empty());
    assert_eq!(
        upgraded
            .provider(&p("hashicorp/null"))
            .map(|l| l.version.to_string()),
        Some("1.1.0".into())
    );
}

/// Terraform leaves the lock entry of a provider that is already installed
/// at the locked version alone, even when the constraints have changed
/// since (OpenTofu would rewrite them).
#[test]
fn an_installed_provider_keeps_its_lock_entry() {
    let m = mirror();
    let work = TempDir::new("inst-keep");
    let inst = installer(&work.path().join("providers"), m.path());
    let (first, errors) = inst.ensure_provider_versions(
        &Locks::new(),
        &reqs(&[("hashicorp/null", "~> 1.0")]),
        InstallMode::NewProvidersOnly,
        &mut NoEvents,
    );
    assert!(errors.is_empty(), "{errors:?}");
    let (second, errors) = inst.ensure_provider_versions(
        &first,
        &reqs(&[("hashicorp/null", ">= 1.0.0")]),
        InstallMode::NewProvidersOnly,
        &mut NoEvents,
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(second, first);
    assert_eq!(
        second
            .provider(&p("hashicorp/null"))
            .map(|l| l.constraints.to_string()),
        Some("~> 1.0".to_string())
    );
}

fn diag_text(e: &ProviderError, provider: &str) -> String {
    let d = e.to_diagnostic(&p(provider));
    format!("{}\n\n{}", d.summary, d.detail)
}

#[test]
fn version_selection_errors_read_like_terraform() {
    let m = mirror();
    let work = TempDir::new("inst-errors");
    let inst = installer(&work.path().join("providers"), m.path());

    let (_, errors) = inst.ensure_provider_versions(
        &Locks::new(),
        &reqs(&[("hashicorp/null", "~> 1.0.0, > 4")]),
        InstallMode::NewProvidersOnly,
        &mut NoEvents,
    );
    assert_eq!(
        diag_text(&errors[&p("hashicorp/null")], "hashicorp/null"),
        "Failed to query available provider packages\n\nCould not retrieve the list of available versions for provider hashicorp/null: no available releases match the given constraints ~> 1.0.0, > 4.0.0\n\nTo see which modules are currently depending on hashicorp/null and what versions are specified, run the following command:\n    terrace providers"
    );

    let mut locks = Locks::new();
    locks.set_provider(ProviderLock::new(
        p("hashicorp/null"),
        Version::new(1, 0, 0),
        VersionConstraints::new(),
        vec![],
    ));
    let (_, errors) = inst.ensure_provider_versions(
        &locks,
        &reqs(&[("hashicorp/null", "~> 2.0")]),
        InstallMode::NewProvidersOnly,
        &mut NoEvents,
    );
    assert_eq!(
        errors[&p("hashicorp/null")].message(&p("hashicorp/null")),
        "locked provider registry.terraform.io/hashicorp/null 1.0.0 does not match configured version constraint ~> 2.0; must use terrace init -upgrade to allow selection of new versions"
    );

    let mut locks = Locks::new();
    locks.set_provider(ProviderLock::new(
        p("hashicorp/null"),
        Version::new(0, 9, 0),
        VersionConstraints::new(),
        vec![],
    ));
    let (_, errors) = inst.ensure_provider_versions(
        &locks,
        &reqs(&[("hashicorp/null", "")]),
        InstallMode::NewProvidersOnly,
        &mut NoEvents,
    );
    assert_eq!(
        errors[&p("hashicorp/null")].message(&p("hashicorp/null")),
        "the previously-selected version 0.9.0 is no longer available"
    );

    let (_, errors) = inst.ensure_provider_versions(
        &Locks::new(),
        &reqs(&[("hashicorp/foo", "")]),
        InstallMode::NewProvidersOnly,
        &mut NoEvents,
    );
    assert_eq!(
        diag_text(&errors[&p("hashicorp/foo")], "hashicorp/foo"),
        format!("Failed to query available provider packages\n\nCould not retrieve the list of available versions for provider hashicorp/foo: provider registry.terraform.io/hashicorp/foo was not found in any of the search locations\n\n  - {}", m.path().display())
    );
}

#[test]
fn a_missing_platform_is_reported() {
    let m = TempDir::new("inst-platform");
    m.write_mode(
        "registry.terraform.io/hashicorp/null/1.1.0/linux_arm64/terraform-provider-null",
        b"",
        0o755,
    );
    let work = TempDir::new("inst-platform-work");
    let target = work.path().join("providers");
    let inst = installer(&target, m.path());
    let (locks, errors) = inst.ensure_provider_versions(
        &Locks::new(),
        &reqs(&[("hashicorp/null", "")]),
        InstallMode::NewProvidersOnly,
        &mut NoEvents,
    );
    assert!(locks.is_empty());
    assert_eq!(
        diag_text(&errors[&p("hashicorp/null")], "hashicorp/null"),
        "Incompatible provider version\n\nProvider registry.terraform.io/hashicorp/null v1.1.0 does not have a package available for your current platform, linux_amd64.\n\nProvider releases are separate from terrace CLI releases, so not all providers are available for all platforms. Other versions of this provider may have different platforms supported."
    );
    assert!(!target.exists());
}

#[test]
fn checksum_mismatches_install_nothing() {
    let m = mirror();
    let work = TempDir::new("inst-mismatch");
    let target = work.path().join(".terraform/providers");
    let inst = installer(&target, m.path());
    let mut locks = Locks::new();
    locks.set_provider(ProviderLock::new(
        p("hashicorp/null"),
        Version::new(1, 1, 0),
        VersionConstraints::new(),
        vec![Hash::h1("qLat4+sjXCnceqLAQ9yonijar9Jfnl43+Wc/ctHCGGA=")],
    ));
    locks.set_provider(ProviderLock::new(
        p("example.com/acme/widget"),
        Version::new(2, 0, 0),
        VersionConstraints::new(),
        vec![Hash::h1("V3Us0DV4KR70MFGENOE0wh3LCGjbIEJ9oUM9yAPMlxA=")],
    ));
    let (_, errors) = inst.ensure_provider_versions(
        &locks,
        &reqs(&[("hashicorp/null", ""), ("example.com/acme/widget", "")]),
        InstallMode::NewProvidersOnly,
        &mut NoEvents,
    );
    assert_eq!(
        diag_text(&errors[&p("example.com/acme/widget")], "example.com/acme/widget"),
        "Failed to install provider\n\nError while installing example.com/acme/widget v2.0.0: the current package for example.com/acme/widget 2.0.0 doesn't match any of the checksums previously recorded in the dependency lock file; for more information: https://developer.hashicorp.com/terraform/language/files/dependency-lock#checksum-verification"
    );
    assert_eq!(
        diag_text(&errors[&p("hashicorp/null")], "hashicorp/null"),
        "Failed to install provider\n\nError while installing hashicorp/null v1.1.0: the local package for registry.terraform.io/hashicorp/null 1.1.0 doesn't match any of the checksums previously recorded in the dependency lock file (this might be because the available checksums are for packages targeting different platforms); for more information: https://developer.hashicorp.com/terraform/language/files/dependency-lock#checksum-verification"
    );
    // Nothing at all was left behind, not even empty directories.
    assert!(!target.exists(), "{:?}", tree(work.path()));
}

#[test]
fn corrupt_archives_install_nothing() {
    let m = TempDir::new("inst-corrupt");
    m.write_mode(
        "example.com/acme/widget/terraform-provider-widget_2.0.0_linux_amd64.zip",
        &WIDGET_ZIP[..100],
        0o644,
    );
    let work = TempDir::new("inst-corrupt-work");
    let target = work.path().join("providers");
    let inst = installer(&target, m.path());
    let (_, errors) = inst.ensure_provider_versions(
        &Locks::new(),
        &reqs(&[("example.com/acme/widget", "")]),
        InstallMode::NewProvidersOnly,
        &mut NoEvents,
    );
    assert_eq!(
        diag_text(&errors[&p("example.com/acme/widget")], "example.com/acme/widget"),
        "Failed to install provider\n\nError while installing example.com/acme/widget v2.0.0: zip: not a valid zip file"
    );
    assert!(!target.exists(), "{:?}", tree(work.path()));
}

#[test]
fn archives_cannot_escape_the_package_directory() {
    let m = TempDir::new("inst-dotdot");
    crate::zip::tests::write_stored_zip(
        &m.path().join("evil.zip"),
        &[
            ("terraform-provider-evil", b"x", 0o755),
            ("../../escaped", b"x", 0o644),
        ],
    );
    let work = TempDir::new("inst-dotdot-work");
    let dir = ProviderCacheDir::with_platform(work.path().join("providers"), linux());
    let meta = PackageMeta {
        provider: p("hashicorp/evil"),
        version: Version::new(1, 0, 0),
        protocol_versions: vec![],
        target_platform: linux(),
        filename: "terraform-provider-evil_1.0.0_linux_amd64.zip".into(),
        location: PackageLocation::LocalArchive(m.path().join("evil.zip")),
        authentication: None,
    };
    assert_eq!(
        dir.install_package(&meta, &[], None),
        Err("entry contains '..': ../../escaped".to_string())
    );
    assert!(!work.path().join("providers").exists());
    assert!(!work.path().join("escaped").exists());
}

#[test]
fn reinstalling_replaces_a_stale_copy() {
    let m = mirror();
    let work = TempDir::new("inst-replace");
    let target = work.path().join("providers");
    // Something else where the link will go.
    let stale = target.join("registry.terraform.io/hashicorp/null/1.1.0/linux_amd64");
    if let Err(e) = std::fs::create_dir_all(&stale) {
        panic!("{e}");
    }
    if let Err(e) = std::fs::write(stale.join("junk"), b"junk") {
        panic!("{e}");
    }
    let inst = installer(&target, m.path());
    let (_, errors) = inst.ensure_provider_versions(
        &Locks::new(),
        &reqs(&[("hashicorp/null", "")]),
        InstallMode::NewProvidersOnly,
        &mut NoEvents,
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert!(std::fs::symlink_metadata(&stale)
        .map(|m| m.file_type().is_symlink())
        .unwrap_or(false));
    assert_eq!(
        tree(&target.join("registry.terraform.io/hashicorp/null/1.1.0")).len(),
        1
    );
}

#[test]
fn the_plugin_cache_is_filled_and_linked() {
    let m = mirror();
    let work = TempDir::new("inst-cache");
    let target = work.path().join("providers");
    let cache = work.path().join("cache");
    let mut inst = installer(&target, m.path());
    inst.set_global_cache_dir(ProviderCacheDir::with_platform(&cache, linux()), false);
    let mut ev = Recorder::default();
    let (locks, errors) = inst.ensure_provider_versions(
        &Locks::new(),
        &reqs(&[("example.com/acme/widget", "")]),
        InstallMode::NewProvidersOnly,
        &mut ev,
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(
        ev.0,
        [
            "query example.com/acme/widget [] locked=false",
            "fetch example.com/acme/widget 2.0.0 cache=true",
        ]
    );
    let link = target.join("example.com/acme/widget/2.0.0/linux_amd64");
    assert_eq!(
        std::fs::read_link(&link).ok(),
        Some(cache.join("example.com/acme/widget/2.0.0/linux_amd64"))
    );
    assert_eq!(locks.providers().count(), 1);

    // Again without the target directory: the locked version is in the
    // cache, and the link from it is all there is to say.
    std::fs::remove_dir_all(&target).unwrap_or_else(|e| panic!("{e}"));
    let mut ev = Recorder::default();
    let (_, errors) = inst.ensure_provider_versions(
        &locks,
        &reqs(&[("example.com/acme/widget", "")]),
        InstallMode::NewProvidersOnly,
        &mut ev,
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(
        ev.0,
        [
            "query example.com/acme/widget [] locked=true",
            "link example.com/acme/widget 2.0.0"
        ]
    );
    assert!(std::fs::read_link(&link).is_ok());
}

#[test]
fn builtin_and_stale_providers() {
    let m = mirror();
    let work = TempDir::new("inst-builtin");
    let mut inst = installer(&work.path().join("providers"), m.path());
    inst.set_builtin_provider_types(vec!["terraform".into()]);
    let mut locks = Locks::new();
    locks.set_provider(ProviderLock::new(
        p("hashicorp/gone"),
        Version::new(1, 0, 0),
        VersionConstraints::new(),
        vec![],
    ));
    let (new, errors) = inst.ensure_provider_versions(
        &locks,
        &reqs(&[
            ("terraform.io/builtin/terraform", ""),
            ("terraform.io/builtin/nope", ""),
            ("hashicorp/null", ""),
        ]),
        InstallMode::NewProvidersOnly,
        &mut NoEvents,
    );
    assert_eq!(
        diag_text(&errors[&p("terraform.io/builtin/nope")], "terraform.io/builtin/nope"),
        "Invalid dependency on built-in provider\n\nCannot use terraform.io/builtin/nope: this terrace release has no built-in provider named \"nope\"."
    );
    assert_eq!(errors.len(), 1);
    let kept: Vec<String> = new.providers().map(|l| l.provider.to_string()).collect();
    assert_eq!(kept, ["registry.terraform.io/hashicorp/null"]);

    let (_, errors) = inst.ensure_provider_versions(
        &Locks::new(),
        &reqs(&[("terraform.io/builtin/terraform", ">= 1")]),
        InstallMode::NewProvidersOnly,
        &mut NoEvents,
    );
    assert_eq!(
        errors[&p("terraform.io/builtin/terraform")].message(&p("terraform.io/builtin/terraform")),
        "built-in providers do not support explicit version constraints"
    );
}
