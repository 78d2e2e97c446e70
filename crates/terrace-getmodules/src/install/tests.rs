use super::*;
use crate::archive::tests::{gzip, tar};
use crate::testutil::{
    bare_repo, have_git, registry_config, terraform_get, HttpsServer, Reply, TempDir,
};

/// Hooks that note what `init` would print.
#[derive(Default)]
struct Lines(Vec<String>);

impl ModuleInstallHooks for Lines {
    fn download(&mut self, key: &str, package: &str, version: Option<&str>) {
        match version {
            Some(v) => self
                .0
                .push(format!("Downloading {package} {v} for {key}...")),
            None => self.0.push(format!("Downloading {package} for {key}...")),
        }
    }
    fn install(&mut self, key: &str, _: Option<&str>, dir: &str) {
        self.0.push(format!("- {key} in {dir}"));
    }
}

fn write(dir: &TempDir, files: &[(&str, &str)]) {
    for (name, text) in files {
        dir.write_mode(name, text.as_bytes(), 0o644);
    }
}

fn installer(root: &TempDir, registry: RegistryConfig) -> ModuleInstaller {
    ModuleInstaller::new(&root.path().join(".terraform/modules"), registry)
}

fn manifest_text(root: &TempDir) -> String {
    std::fs::read_to_string(root.path().join(".terraform/modules/modules.json"))
        .unwrap_or_default()
        .replace(&root.path().display().to_string(), "ROOT")
}

/// Error texts, with the root directory (where `main.tf` is) as `ROOT`.
fn errors(diags: &[Diagnostic], root: &TempDir) -> Vec<String> {
    let root = root.path().display().to_string();
    diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{}: {}", d.summary, d.detail).replace(&root, "ROOT"))
        .collect()
}

/// The configuration terraform 1.11.4 was run on (local and nested
/// modules, one reached through `../`): the same records, in the same
/// order, as the modules.json it wrote (there with relative paths).
#[test]
fn local_modules_are_recorded_as_terraform_records_them() {
    let root = TempDir::new("local");
    write(
        &root,
        &[
            ("main.tf", "module \"child\" {\n  source = \"./modules/child\"\n}\nmodule \"other\" {\n  source = \"./other/\"\n}\n"),
            ("modules/child/main.tf", "module \"grand\" {\n  source = \"./grand\"\n}\n"),
            ("modules/child/grand/main.tf", ""),
            ("other/main.tf", "module \"back\" { source = \"../modules/child/grand\" }\n"),
        ],
    );
    let mut inst = installer(&root, RegistryConfig::default());
    let mut lines = Lines::default();
    let diags = inst.install_modules(root.path(), false, &mut lines);
    assert!(errors(&diags, &root).is_empty(), "{diags:?}");
    assert_eq!(
        lines.0,
        [
            "- child in ROOT/modules/child",
            "- child.grand in ROOT/modules/child/grand",
            "- other in ROOT/other",
            "- other.back in ROOT/modules/child/grand",
        ]
        .map(|l| l.replace("ROOT", &root.path().display().to_string()))
    );
    assert_eq!(
        manifest_text(&root),
        r#"{"Modules":[{"Key":"","Source":"","Dir":"ROOT"},{"Key":"child","Source":"./modules/child","Dir":"ROOT/modules/child"},{"Key":"child.grand","Source":"./grand","Dir":"ROOT/modules/child/grand"},{"Key":"other","Source":"./other","Dir":"ROOT/other"},{"Key":"other.back","Source":"../modules/child/grand","Dir":"ROOT/modules/child/grand"}]}"#
    );
    // Nothing was copied.
    assert_eq!(
        std::fs::read_dir(root.path().join(".terraform/modules"))
            .map(|d| d.count())
            .ok(),
        Some(1)
    );

    // A second run finds everything installed and says nothing; upgrading
    // goes over every call again.
    let mut again = Lines::default();
    let diags = inst.install_modules(root.path(), false, &mut again);
    assert!(errors(&diags, &root).is_empty());
    assert!(again.0.is_empty(), "{:?}", again.0);
    let mut upgraded = Lines::default();
    inst.install_modules(root.path(), true, &mut upgraded);
    assert_eq!(upgraded.0.len(), 4);

    // Records of calls that are gone stay, as in Terraform.
    write(
        &root,
        &[("main.tf", "module \"d\" {\n  source = \"./other\"\n}\n")],
    );
    inst.install_modules(root.path(), false, &mut NoHooks);
    let text = manifest_text(&root);
    assert!(
        text.contains(r#""Key":"child""#) && text.contains(r#""Key":"d""#),
        "{text}"
    );
}

#[test]
fn a_missing_local_directory_reads_like_terraform() {
    let root = TempDir::new("local-missing");
    write(
        &root,
        &[("main.tf", "module \"m\" {\n  source = \"./missing\"\n}\n")],
    );
    let mut inst = installer(&root, RegistryConfig::default());
    let mut lines = Lines::default();
    let diags = inst.install_modules(root.path(), false, &mut lines);
    assert_eq!(
        errors(&diags, &root),
        [
            "Unreadable module directory: Unable to evaluate directory symlink: lstat ROOT/missing: no such file or directory".to_string(),
            "Unreadable module directory: The directory  could not be read for module \"m\" at ROOT/main.tf:1.".to_string(),
        ]
    );
    assert_eq!(lines.0, ["- m in "]);
    assert!(manifest_text(&root).contains(r#"{"Key":"m","Source":"./missing","Dir":""}"#));
}

/// Git packages from a bare repository the test makes: a tag, a
/// subdirectory with a nested local module, the default branch; the
/// second call of the same package is a copy without `.git`.
#[test]
fn git_packages_are_cloned_with_the_system_git() {
    if !have_git() {
        return;
    }
    let base = TempDir::new("git");
    let repo = bare_repo(&base);
    let url = format!("file://{}", repo.display());
    let root = TempDir::new("git-root");
    write(
        &root,
        &[(
            "main.tf",
            &format!(
                "module \"a\" {{\n  source = \"git::{url}?ref=v1\"\n}}\nmodule \"b\" {{\n  source = \"git::{url}//sub?ref=v1\"\n}}\nmodule \"c\" {{\n  source = \"git::{url}\"\n}}\n"
            ),
        )],
    );
    let mut inst = installer(&root, RegistryConfig::default());
    let mut lines = Lines::default();
    let diags = inst.install_modules(root.path(), false, &mut lines);
    assert!(errors(&diags, &root).is_empty(), "{diags:?}");
    let mods = root.path().join(".terraform/modules");
    let m = mods.display().to_string();
    assert_eq!(
        lines.0,
        [
            format!("Downloading git::{url}?ref=v1 for a..."),
            format!("- a in {m}/a"),
            format!("Downloading git::{url}?ref=v1 for b..."),
            format!("- b in {m}/b/sub"),
            format!("- b.inner in {m}/b/sub/inner"),
            format!("Downloading git::{url} for c..."),
            format!("- c in {m}/c"),
        ]
    );
    assert_eq!(
        manifest_text(&root),
        format!(
            r#"{{"Modules":[{{"Key":"","Source":"","Dir":"ROOT"}},{{"Key":"a","Source":"git::{url}?ref=v1","Dir":"ROOT/.terraform/modules/a"}},{{"Key":"b","Source":"git::{url}//sub?ref=v1","Dir":"ROOT/.terraform/modules/b/sub"}},{{"Key":"b.inner","Source":"./inner","Dir":"ROOT/.terraform/modules/b/sub/inner"}},{{"Key":"c","Source":"git::{url}","Dir":"ROOT/.terraform/modules/c"}}]}}"#
        )
    );
    // The tag has no v2.tf; the default branch has.
    assert!(mods.join("a/main.tf").is_file() && !mods.join("a/v2.tf").exists());
    assert!(mods.join("a/.git").is_dir());
    assert!(mods.join("c/v2.tf").is_file());
    // b reused a's clone: a copy without the hidden .git.
    assert!(mods.join("b/main.tf").is_file() && !mods.join("b/.git").exists());
}

#[test]
fn git_failures_read_like_terraform_and_leave_nothing() {
    if !have_git() {
        return;
    }
    let base = TempDir::new("git-bad");
    let repo = bare_repo(&base);
    let url = format!("file://{}", repo.display());
    let nowhere = format!("file://{}/nonexistent.git", base.path().display());
    let root = TempDir::new("git-bad-root");
    write(
        &root,
        &[(
            "main.tf",
            &format!(
                "module \"a\" {{\n  source = \"git::{nowhere}\"\n}}\nmodule \"b\" {{\n  source = \"git::{url}?ref=nosuch\"\n}}\nmodule \"c\" {{\n  source = \"git::{url}//nosub?ref=v1\"\n}}\n"
            ),
        )],
    );
    let mut inst = installer(&root, RegistryConfig::default());
    let diags = inst.install_modules(root.path(), false, &mut NoHooks);
    let errs = errors(&diags, &root);
    assert_eq!(errs.len(), 3, "{errs:?}");
    let git = crate::fetch::tests_git_program();
    assert!(
        errs[0].starts_with(&format!(
            "Failed to download module: Could not download module \"a\" (ROOT/main.tf:1) source code from \"git::{nowhere}\": error downloading '{nowhere}': {git} exited with 128: Cloning into 'ROOT/.terraform/modules/a'...\nfatal: "
        )),
        "{}",
        errs[0]
    );
    assert!(
        errs[0].contains("does not appear to be a git repository"),
        "{}",
        errs[0]
    );
    assert_eq!(
        errs[1],
        format!("Failed to download module: Could not download module \"b\" (ROOT/main.tf:4) source code from \"git::{url}?ref=nosuch\": error downloading '{url}?ref=nosuch': {git} exited with 1: error: pathspec 'nosuch' did not match any file(s) known to git\n")
    );
    assert_eq!(
        errs[2],
        "Failed to expand subdir globs: subdir \"nosub\" not found"
    );
    let mods = root.path().join(".terraform/modules");
    let left: Vec<String> = std::fs::read_dir(&mods)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(left, ["modules.json"]);
    assert_eq!(
        manifest_text(&root),
        r#"{"Modules":[{"Key":"","Source":"","Dir":"ROOT"}]}"#
    );
}

/// A module registry served on loopback: `acme/widget/aws` in 1.0.0,
/// 1.2.0, 2.0.0-beta and a bogus version, downloaded as a tar.gz through a
/// relative `X-Terraform-Get`; `acme/zipmod/aws` as a zip named by
/// `?archive=zip`.
fn registry() -> HttpsServer {
    let reg = HttpsServer::start();
    reg.route(
        "/.well-known/terraform.json",
        Reply::json(
            serde_json::json!({"modules.v1": "/v1/modules/", "providers.v1": "/v1/providers/"}),
        ),
    );
    reg.route(
        "/v1/modules/acme/widget/aws/versions",
        Reply::json(serde_json::json!({"modules": [{"source": "acme/widget/aws", "versions": [
            {"version": "1.0.0"}, {"version": "1.2.0"}, {"version": "2.0.0-beta"}, {"version": "bogus"}
        ]}]})),
    );
    for v in ["1.0.0", "1.2.0", "2.0.0-beta"] {
        reg.route(
            &format!("/v1/modules/acme/widget/aws/{v}/download"),
            terraform_get(&format!("/files/widget-{v}.tar.gz")),
        );
        let archive = tar(&[
            ("./", b'5', 0o755, b""),
            (
                "./main.tf",
                b'0',
                0o644,
                format!("locals {{\n  v = \"{v}\"\n}}\n").as_bytes(),
            ),
            (
                "./modules/sub/main.tf",
                b'0',
                0o644,
                b"module \"n\" {\n  source = \"../../nested\"\n}\n",
            ),
            ("./nested/main.tf", b'0', 0o644, b""),
        ]);
        reg.route(
            &format!("/files/widget-{v}.tar.gz"),
            Reply::bytes(&gzip(&archive)),
        );
    }
    reg.route(
        "/v1/modules/acme/zipmod/aws/versions",
        Reply::json(serde_json::json!({"modules": [{"versions": [{"version": "3.0.0"}]}]})),
    );
    reg.route(
        "/v1/modules/acme/zipmod/aws/3.0.0/download",
        terraform_get("../../../../../../files/zipmod?archive=zip"),
    );
    reg.route(
        "/files/zipmod",
        Reply::bytes(include_bytes!(
            "../../../terrace-getproviders/testdata/widget_2.0.0_linux_amd64.zip"
        )),
    );
    reg.route(
        "/v1/modules/acme/empty/aws/versions",
        Reply::json(serde_json::json!({"modules": []})),
    );
    reg.route(
        "/v1/modules/acme/broken/aws/versions",
        Reply::json(serde_json::json!({"modules": [{"versions": [{"version": "1.0.0"}]}]})),
    );
    reg.route(
        "/v1/modules/acme/broken/aws/1.0.0/download",
        terraform_get("/files/missing.zip"),
    );
    reg
}

#[test]
fn registry_modules_are_chosen_by_version_and_fetched() {
    let reg = registry();
    let root = TempDir::new("registry");
    let a = &reg.addr;
    write(
        &root,
        &[(
            "main.tf",
            &format!(
                "module \"w\" {{\n  source  = \"{a}/acme/widget/aws\"\n  version = \"~> 1.0\"\n}}\nmodule \"ws\" {{\n  source  = \"{a}/acme/widget/aws//modules/sub\"\n  version = \"1.0.0\"\n}}\nmodule \"beta\" {{\n  source  = \"{a}/acme/widget/aws\"\n  version = \"2.0.0-beta\"\n}}\nmodule \"z\" {{\n  source = \"{a}/acme/zipmod/aws\"\n}}\n"
            ),
        )],
    );
    let mut inst = installer(&root, registry_config(&reg));
    let mut lines = Lines::default();
    let diags = inst.install_modules(root.path(), false, &mut lines);
    assert!(
        errors(&diags, &root).is_empty(),
        "{:?}",
        errors(&diags, &root)
    );
    // The bogus version is reported once per call that lists versions.
    let warnings: Vec<&Diagnostic> = diags.iter().filter(|d| !d.is_error()).collect();
    assert_eq!(warnings.len(), 3);
    assert_eq!(
        warnings[0]
            .detail
            .replace(&root.path().display().to_string(), "ROOT"),
        format!("The registry at {a} returned an invalid version string \"bogus\" for module \"beta\" (ROOT/main.tf:9), which terrace ignored.")
    );
    let m = root.path().join(".terraform/modules").display().to_string();
    assert_eq!(
        lines.0,
        [
            format!("Downloading {a}/acme/widget/aws 2.0.0-beta for beta..."),
            format!("- beta in {m}/beta"),
            format!("Downloading {a}/acme/widget/aws 1.2.0 for w..."),
            format!("- w in {m}/w"),
            format!("Downloading {a}/acme/widget/aws 1.0.0 for ws..."),
            format!("- ws in {m}/ws/modules/sub"),
            format!("- ws.n in {m}/ws/nested"),
            format!("Downloading {a}/acme/zipmod/aws 3.0.0 for z..."),
            format!("- z in {m}/z"),
        ]
    );
    assert_eq!(
        manifest_text(&root),
        format!(
            r#"{{"Modules":[{{"Key":"","Source":"","Dir":"ROOT"}},{{"Key":"beta","Source":"{a}/acme/widget/aws","Version":"2.0.0-beta","Dir":"ROOT/.terraform/modules/beta"}},{{"Key":"w","Source":"{a}/acme/widget/aws","Version":"1.2.0","Dir":"ROOT/.terraform/modules/w"}},{{"Key":"ws","Source":"{a}/acme/widget/aws//modules/sub","Version":"1.0.0","Dir":"ROOT/.terraform/modules/ws/modules/sub"}},{{"Key":"ws.n","Source":"../../nested","Dir":"ROOT/.terraform/modules/ws/nested"}},{{"Key":"z","Source":"{a}/acme/zipmod/aws","Version":"3.0.0","Dir":"ROOT/.terraform/modules/z"}}]}}"#
        )
    );
    let w = std::fs::read_to_string(root.path().join(".terraform/modules/w/main.tf"))
        .unwrap_or_default();
    assert!(w.contains("1.2.0"), "{w}");
    assert!(root
        .path()
        .join(".terraform/modules/z/docs/README.md")
        .is_file());
    // The versions were asked for once per module; the archive parameter
    // never reached the server.
    let reqs = reg.requests();
    assert_eq!(
        reqs.iter()
            .filter(|r| r.ends_with("/acme/widget/aws/versions"))
            .count(),
        1
    );
    assert!(reqs.contains(&"/files/zipmod".to_string()), "{reqs:?}");
}

#[test]
fn registry_failures_read_like_terraform() {
    let reg = registry();
    let a = &reg.addr;
    // A port nothing listens on: bind one, then let it go.
    let dead = match std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()) {
        Ok(d) => d.to_string(),
        Err(e) => panic!("{e}"),
    };
    let root = TempDir::new("registry-bad");
    write(
        &root,
        &[(
            "main.tf",
            &format!(
                "module \"a\" {{\n  source  = \"{a}/acme/widget/aws\"\n  version = \"~> 3.0\"\n}}\nmodule \"b\" {{\n  source = \"{a}/acme/nope/aws\"\n}}\nmodule \"c\" {{\n  source = \"{dead}/acme/widget/aws\"\n}}\nmodule \"d\" {{\n  source = \"{a}/acme/empty/aws\"\n}}\nmodule \"e\" {{\n  source = \"{a}/acme/broken/aws\"\n}}\n"
            ),
        )],
    );
    let mut inst = installer(&root, registry_config(&reg));
    let diags = inst.install_modules(root.path(), false, &mut NoHooks);
    assert_eq!(
        errors(&diags, &root),
        [
            format!("Unresolvable module version constraint: There is no available version of module \"{a}/acme/widget/aws\" (ROOT/main.tf:1) which matches the given version constraint. The newest available version is 1.2.0."),
            format!("Module not found: Module \"b\" (from ROOT/main.tf:5) cannot be found in the module registry at {a}."),
            format!("Error accessing remote module registry: Failed to retrieve available versions for module \"c\" (ROOT/main.tf:8) from {dead}: failed to request discovery document: Get \"https://{dead}/.well-known/terraform.json\": dial tcp {dead}: connect: connection refused."),
            format!("Invalid response from remote module registry: The registry at {a} returned an invalid response when terrace requested available versions for module \"d\" (ROOT/main.tf:11)."),
            format!("Failed to download module: Could not download module \"e\" (ROOT/main.tf:14) source code from \"https://{a}/files/missing.zip\": bad response code: 404."),
        ]
    );
    let left: Vec<String> = std::fs::read_dir(root.path().join(".terraform/modules"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(left, ["modules.json"]);
}

#[test]
fn prereleases_only_when_requested_exactly() {
    let v = |s: &str| match Version::parse(s) {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    };
    for (constraint, version, want) in [
        ("2.0.0-beta", "2.0.0-beta", true),
        ("= 2.0.0-beta", "2.0.0-beta", true),
        ("v2.0.0-beta", "2.0.0-beta", true),
        ("=2.0.0-beta >= 1.0.0", "2.0.0-beta", true),
        ("2.0.0-beta, >= 1.0.0", "2.0.0-beta", false),
        (">= 2.0.0-alpha", "2.0.0-beta", false),
        ("~> 2.0", "2.0.0-beta", false),
        ("", "2.0.0-beta", false),
        ("2.0.0-alpha", "2.0.0-beta", false),
        ("2.0.0-beta < 2.0.0-alpha", "2.0.0-beta", false),
    ] {
        assert_eq!(
            prerelease_requested_exactly(constraint, &v(version)),
            want,
            "{constraint:?} {version}"
        );
    }
}
