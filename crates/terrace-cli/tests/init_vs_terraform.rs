//! `terrace init` and `terrace providers lock` side by side with terraform
//! 1.11 on the same configurations, and `init`'s handling of bad input.
//!
//! The comparisons install hashicorp/aws 5.100.0 from the image's
//! filesystem mirror (`/opt/tf-plugins`, named by the CLI configuration
//! in `TF_CLI_CONFIG_FILE`) for a root module and a child module that
//! constrain it differently, run terraform in a sibling directory, and
//! compare the lock file byte for byte, `.terraform/providers` entry by
//! entry (links and their targets included), `.terraform/modules/modules.json`
//! byte for byte, and the output with terrace's name where terraform
//! names itself (whitespace folded, since a shorter name wraps
//! diagnostics differently). They are skipped, with the reason printed,
//! where terraform or the mirror is missing.
//!
//! The bad-input tests need neither: they make their own mirror and check
//! terraform's texts (recorded from terraform 1.11.4), the exit status,
//! and that nothing was left half-installed.
//!
//! `providers mirror` always asks the origin registry, so its comparison
//! serves one (over plain HTTP on 127.0.0.1, named by a CLI configuration
//! `host` block) offering a small signed provider package.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use terrace_testsupport::http::{LoopbackServer as HttpServer, Reply};
use terrace_testsupport::TempDir;

const MIRROR: &str = terrace_testsupport::PLUGIN_MIRROR;
const AWS_PACKAGE: &str = terrace_testsupport::AWS_PROVIDER_PACKAGE;
const WIDGET_ZIP: &[u8] =
    include_bytes!("../../terrace-getproviders/testdata/widget_2.0.0_linux_amd64.zip");

/// Whether the comparisons can run (terraform and the mirror's AWS
/// package); reported by the project's rule for missing tools otherwise.
fn can_compare() -> bool {
    terrace_testsupport::require_terraform()
        && terrace_testsupport::require_path(
            Path::new(AWS_PACKAGE),
            &format!("the filesystem mirror {MIRROR}'s hashicorp/aws 5.100.0"),
        )
}

/// Runs a command in `dir` with a controlled environment: the CLI
/// configuration `cli_config`, a home directory with nothing in it.
fn run(program: &str, args: &[&str], dir: &Path, cli_config: &Path, home: &Path) -> Output {
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("TF_CLI_CONFIG_FILE", cli_config)
        .env("HOME", home)
        .env("CHECKPOINT_DISABLE", "1")
        .env_remove("NO_COLOR")
        .env_remove("TF_LOG")
        .env_remove("TF_DATA_DIR")
        .env_remove("TF_WORKSPACE")
        .env_remove("TF_PLUGIN_CACHE_DIR")
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_DATA_DIRS")
        .output()
        .unwrap()
}

fn terrace() -> &'static str {
    env!("CARGO_BIN_EXE_terrace")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// terraform's output with terrace's name, whitespace folded.
fn as_terrace(terraform_output: &[u8]) -> String {
    fold(&terrace_testsupport::product::as_terrace(&text(
        terraform_output,
    )))
}

fn fold(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every entry under `dir`, relative: directories with a slash, links
/// with their targets, files with their permission bits.
fn tree(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            let rel = path.strip_prefix(base).unwrap().display().to_string();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.file_type().is_symlink() {
                out.push(format!(
                    "{rel} -> {}",
                    std::fs::read_link(&path).unwrap().display()
                ));
            } else if meta.is_dir() {
                out.push(format!("{rel}/"));
                walk(base, &path, out);
            } else {
                use std::os::unix::fs::PermissionsExt;
                out.push(format!("{rel} {:o}", meta.permissions().mode() & 0o777));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The same configuration in `tf/` and `tr/` under one scratch directory,
/// with a CLI configuration whose only installation method is the image's
/// mirror.
struct Pair {
    scratch: TempDir,
}

impl Pair {
    fn new(name: &str, files: &[(&str, &str)]) -> Pair {
        let scratch = TempDir::new(name);
        for side in ["tf", "tr"] {
            for (file, body) in files {
                scratch.write(&format!("{side}/{file}"), body);
            }
        }
        scratch.write(
            "cli.tfrc",
            format!("provider_installation {{\n  filesystem_mirror {{\n    path = \"{MIRROR}\"\n  }}\n}}\n"),
        );
        std::fs::create_dir_all(scratch.path().join("home")).unwrap();
        Pair { scratch }
    }

    fn side(&self, side: &str) -> PathBuf {
        self.scratch.path().join(side)
    }

    /// Runs terraform in `tf/` and terrace in `tr/` with the same arguments
    /// (terrace's being `terrace_args` when given).
    fn both(&self, args: &[&str]) -> (Output, Output) {
        let cli = self.scratch.path().join("cli.tfrc");
        let home = self.scratch.path().join("home");
        let theirs = run("terraform", args, &self.side("tf"), &cli, &home);
        let ours = run(terrace(), args, &self.side("tr"), &cli, &home);
        (theirs, ours)
    }

    fn assert_same_output(&self, args: &[&str]) -> (Output, Output) {
        let (theirs, ours) = self.both(args);
        assert_eq!(
            ours.status.code(),
            theirs.status.code(),
            "exit status of {args:?}\nterrace stderr:\n{}\nterraform stderr:\n{}",
            text(&ours.stderr),
            text(&theirs.stderr)
        );
        assert_eq!(
            fold(&text(&ours.stdout)),
            as_terrace(&theirs.stdout),
            "stdout of {args:?}"
        );
        assert_eq!(
            fold(&text(&ours.stderr)),
            as_terrace(&theirs.stderr),
            "stderr of {args:?}"
        );
        (theirs, ours)
    }

    fn same_file(&self, rel: &str) {
        let theirs = std::fs::read(self.side("tf").join(rel)).unwrap();
        let ours = std::fs::read(self.side("tr").join(rel))
            .unwrap_or_else(|e| panic!("terrace wrote no {rel}: {e}"));
        assert!(
            ours == theirs,
            "{rel} differs:\nterrace:\n{}\nterraform:\n{}",
            text(&ours),
            text(&theirs)
        );
    }

    fn same_tree(&self, rel: &str) {
        assert_eq!(
            tree(&self.side("tr").join(rel)),
            tree(&self.side("tf").join(rel)),
            "{rel} is laid out differently"
        );
    }
}

const ROOT_WITH_CHILD: &[(&str, &str)] = &[
    (
        "main.tf",
        "terraform {\n  required_providers {\n    aws = {\n      source  = \"hashicorp/aws\"\n      version = \"~> 5.0\"\n    }\n  }\n}\n\nmodule \"child\" {\n  source = \"./modules/child\"\n}\n",
    ),
    (
        "modules/child/main.tf",
        "terraform {\n  required_providers {\n    aws = {\n      source  = \"hashicorp/aws\"\n      version = \">= 5.10, != 5.50.0\"\n    }\n  }\n}\n\nmodule \"grand\" {\n  source = \"./grand\"\n}\n",
    ),
    ("modules/child/grand/main.tf", "output \"o\" {\n  value = 1\n}\n"),
];

/// The issue's must-show: two modules constraining hashicorp/aws
/// differently give the same lock file, the same `.terraform/providers`
/// (a link into the mirror) and the same module manifest as terraform's.
#[test]
fn init_writes_what_terraform_writes() {
    if !can_compare() {
        return;
    }
    let pair = Pair::new("aws", ROOT_WITH_CHILD);
    pair.assert_same_output(&["init", "-no-color"]);
    pair.same_file(".terraform.lock.hcl");
    pair.same_file(".terraform/modules/modules.json");
    pair.same_tree(".terraform/providers");
    let lock = text(&std::fs::read(pair.side("tr").join(".terraform.lock.hcl")).unwrap());
    assert!(
        lock.contains("constraints = \"~> 5.0, >= 5.10.0, != 5.50.0\""),
        "{lock}"
    );
    assert_eq!(
        std::fs::read_link(
            pair.side("tr").join(
                ".terraform/providers/registry.terraform.io/hashicorp/aws/5.100.0/linux_amd64"
            )
        )
        .ok(),
        Some(PathBuf::from(AWS_PACKAGE))
    );

    // Again: nothing to do, said the same way, nothing changed.
    pair.assert_same_output(&["init", "-no-color"]);
    pair.same_file(".terraform.lock.hcl");
    // Upgrading: modules reported again, the provider kept.
    pair.assert_same_output(&["init", "-no-color", "-upgrade"]);
    pair.same_file(".terraform.lock.hcl");
    pair.same_file(".terraform/modules/modules.json");
    // With colour: the same escape sequences.
    let (theirs, ours) = {
        let _ = std::fs::remove_dir_all(pair.side("tf").join(".terraform"));
        let _ = std::fs::remove_dir_all(pair.side("tr").join(".terraform"));
        let _ = std::fs::remove_file(pair.side("tf").join(".terraform.lock.hcl"));
        let _ = std::fs::remove_file(pair.side("tr").join(".terraform.lock.hcl"));
        pair.both(&["init"])
    };
    // Lines inside diagnostic boxes wrap at other places (the name is
    // shorter), so only the lines around them are compared.
    let unboxed = |b: &[u8]| -> Vec<u8> {
        text(b)
            .lines()
            .filter(|l| !l.contains('\u{2502}'))
            .collect::<Vec<_>>()
            .join("\n")
            .into_bytes()
    };
    assert_eq!(
        fold(&text(&unboxed(&ours.stdout))),
        as_terrace(&unboxed(&theirs.stdout))
    );
    assert!(text(&ours.stdout).contains("\x1b[0m\x1b[1mInitializing provider plugins...\x1b[0m\n"));
}

/// A lock file whose hashes are out of order (hand-edited, or merged) and
/// without constraints: init puts the hashes in order, fills in the
/// constraints and says it changed the file, as terraform does.
#[test]
fn init_rewrites_a_lock_file_written_out_of_order() {
    if !can_compare() {
        return;
    }
    let pair = Pair::new(
        "aws-unsorted",
        &[(
            "main.tf",
            "terraform {\n  required_providers {\n    aws = {\n      source  = \"hashicorp/aws\"\n      version = \"~> 5.0\"\n    }\n  }\n}\n",
        )],
    );
    pair.assert_same_output(&["init", "-no-color"]);
    let lock = text(&std::fs::read(pair.side("tf").join(".terraform.lock.hcl")).unwrap());
    let hashes: Vec<&str> = lock
        .lines()
        .filter(|l| l.trim_start().starts_with('"'))
        .collect();
    assert!(!hashes.is_empty(), "{lock}");
    // A zh: hash (a registry's, of another platform's archive) listed
    // before the h1: ones: out of order.
    let mut shuffled: Vec<&str> =
        vec!["    \"zh:0000000000000000000000000000000000000000000000000000000000000000\","];
    shuffled.extend(hashes.iter().rev());
    let edited = lock
        .lines()
        .filter(|l| !l.trim_start().starts_with("constraints"))
        .filter(|l| !l.trim_start().starts_with('"'))
        .map(|l| {
            if l.trim_start().starts_with("hashes") {
                format!("{l}\n{}", shuffled.join("\n"))
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    for side in ["tf", "tr"] {
        std::fs::write(pair.side(side).join(".terraform.lock.hcl"), &edited).unwrap();
    }
    let (_, ours) = pair.assert_same_output(&["init", "-no-color"]);
    assert!(
        text(&ours.stdout).contains("has made some changes to the provider dependency"),
        "{}",
        text(&ours.stdout)
    );
    pair.same_file(".terraform.lock.hcl");
}

/// `-plugin-dir` replaces the installation methods (and is remembered in
/// `.terraform/plugin_path`); `-backend=false -get=false` skip those steps;
/// the local backend block is recorded with terraform's hash.
#[test]
fn init_flags_behave_as_terraforms() {
    if !can_compare() {
        return;
    }
    let pair = Pair::new("flags", ROOT_WITH_CHILD);
    pair.assert_same_output(&["init", "-no-color", "-plugin-dir", MIRROR, "-backend=false"]);
    pair.same_file(".terraform.lock.hcl");
    pair.same_file(".terraform/plugin_path");
    pair.same_tree(".terraform/providers");
    pair.assert_same_output(&["init", "-no-color", "-get=false", "-lockfile=readonly"]);
    pair.same_file(".terraform/plugin_path");

    let backend = Pair::new(
        "backend",
        &[("main.tf", "terraform {\n  backend \"local\" {}\n}\n")],
    );
    backend.assert_same_output(&["init", "-no-color"]);
    let state = |side: &str| {
        text(&std::fs::read(backend.side(side).join(".terraform/terraform.tfstate")).unwrap())
            .lines()
            .filter(|l| !l.contains("terraform_version"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(state("tr"), state("tf"));
    backend.assert_same_output(&["init", "-no-color", "-backend-config=path=other.tfstate"]);
    backend.assert_same_output(&[
        "init",
        "-no-color",
        "-reconfigure",
        "-backend-config=path=other.tfstate",
    ]);
    assert_eq!(state("tr"), state("tf"));
}

#[test]
fn providers_lock_writes_what_terraform_writes() {
    if !can_compare() {
        return;
    }
    let pair = Pair::new("lock", ROOT_WITH_CHILD);
    // Terraform wants the modules installed first (even local ones).
    pair.assert_same_output(&["init", "-no-color"]);
    for side in ["tf", "tr"] {
        std::fs::remove_file(pair.side(side).join(".terraform.lock.hcl")).unwrap();
    }
    let fs = format!("-fs-mirror={MIRROR}");
    pair.assert_same_output(&["providers", "lock", "-no-color", &fs]);
    pair.same_file(".terraform.lock.hcl");
    pair.assert_same_output(&[
        "providers",
        "lock",
        "-no-color",
        &fs,
        "-platform=linux_amd64",
    ]);
    pair.same_file(".terraform.lock.hcl");
    // A platform the mirror lacks: the lock file is left as it was.
    pair.assert_same_output(&[
        "providers",
        "lock",
        "-no-color",
        &fs,
        "-platform=linux_amd64",
        "-platform=darwin_arm64",
    ]);
    pair.same_file(".terraform.lock.hcl");
    pair.assert_same_output(&[
        "providers",
        "lock",
        "-no-color",
        &fs,
        "-net-mirror=https://127.0.0.1:1/",
    ]);
}

// ----- bad input -----

/// A scratch working directory with a mirror of its own: hashicorp/null
/// 1.0.0 unpacked, example.com/acme/widget 2.0.0 as a zip cut short.
struct Scene {
    dir: TempDir,
}

impl Scene {
    fn new(name: &str, main_tf: &str) -> Scene {
        let dir = TempDir::new(name);
        dir.write("work/main.tf", main_tf);
        let exe = dir.write(
            "mirror/registry.terraform.io/hashicorp/null/1.0.0/linux_amd64/terraform-provider-null_v1.0.0_x5",
            "#!/bin/sh\necho hi\n",
        );
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        dir.write(
            "mirror/example.com/acme/widget/terraform-provider-widget_2.0.0_linux_amd64.zip",
            &WIDGET_ZIP[..100],
        );
        dir.write(
            "cli.tfrc",
            format!(
                "provider_installation {{\n  filesystem_mirror {{\n    path = \"{}\"\n  }}\n}}\n",
                dir.path().join("mirror").display()
            ),
        );
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        Scene { dir }
    }

    fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    fn init(&self, args: &[&str]) -> Output {
        let mut all = vec!["init", "-no-color"];
        all.extend_from_slice(args);
        run(
            terrace(),
            &all,
            &self.work(),
            &self.dir.path().join("cli.tfrc"),
            &self.dir.path().join("home"),
        )
    }

    /// Nothing installed: no lock file, and no provider package or empty
    /// directory left in `.terraform/providers`.
    fn assert_nothing_installed(&self) {
        assert!(!self.work().join(".terraform.lock.hcl").exists());
        assert_eq!(
            tree(&self.work().join(".terraform/providers")),
            Vec::<String>::new()
        );
    }
}

#[test]
fn unsatisfiable_constraints_are_refused() {
    let s = Scene::new(
        "unsat",
        "terraform {\n  required_providers {\n    null = {\n      source  = \"hashicorp/null\"\n      version = \"~> 2.0\"\n    }\n  }\n}\n",
    );
    let out = s.init(&[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        "Initializing the backend...\nInitializing provider plugins...\n- Finding hashicorp/null versions matching \"~> 2.0\"...\n"
    );
    assert_eq!(
        text(&out.stderr),
        "\nError: Failed to query available provider packages\n\nCould not retrieve the list of available versions for provider\nhashicorp/null: no available releases match the given constraints ~> 2.0\n\nTo see which modules are currently depending on hashicorp/null and what\nversions are specified, run the following command:\n    terrace providers\n"
    );
    s.assert_nothing_installed();
}

#[test]
fn a_corrupt_archive_installs_nothing() {
    let s = Scene::new(
        "corrupt",
        "terraform {\n  required_providers {\n    widget = {\n      source = \"example.com/acme/widget\"\n    }\n  }\n}\n",
    );
    let mirror = s.dir.path().join("mirror");
    let out = s.init(&["-plugin-dir", &mirror.display().to_string()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        "Initializing the backend...\nInitializing provider plugins...\n- Finding latest version of example.com/acme/widget...\n- Installing example.com/acme/widget v2.0.0...\n"
    );
    assert_eq!(
        text(&out.stderr),
        "\nError: Failed to install provider\n\nError while installing example.com/acme/widget v2.0.0: zip: not a valid zip\nfile\n"
    );
    s.assert_nothing_installed();
}

#[test]
fn an_unreachable_registry_is_reported() {
    // A port nothing listens on: bind one, then let it go.
    let dead = format!(
        "127.0.0.1:{}",
        terrace_testsupport::http::free_loopback_port().unwrap()
    );
    let s = Scene::new(
        "unreachable",
        &format!("terraform {{\n  required_providers {{\n    widget = {{\n      source = \"{dead}/acme/widget\"\n    }}\n  }}\n}}\n"),
    );
    // No installation methods configured: the origin registry is asked.
    s.dir.write("cli.tfrc", "");
    let out = s.init(&[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        format!("Initializing the backend...\nInitializing provider plugins...\n- Finding latest version of {dead}/acme/widget...\n")
    );
    let expected = format!(
        "Error: Failed to query available provider packages Could not retrieve the list of available versions for provider {dead}/acme/widget: could not connect to {dead}: failed to request discovery document: Get \"https://{dead}/.well-known/terraform.json\": dial tcp {dead}: connect: connection refused To see which modules are currently depending on {dead}/acme/widget and what versions are specified, run the following command: terrace providers"
    );
    assert_eq!(fold(&text(&out.stderr)), expected);
    s.assert_nothing_installed();

    // The same for a module registry.
    let m = Scene::new(
        "unreachable-module",
        &format!("module \"m\" {{\n  source = \"{dead}/acme/widget/aws\"\n}}\n"),
    );
    let out = m.init(&[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        "Initializing the backend...\nInitializing modules...\n"
    );
    assert_eq!(
        fold(&text(&out.stderr)),
        format!("Error: Error accessing remote module registry on main.tf line 1: 1: module \"m\" {{ Failed to retrieve available versions for module \"m\" (main.tf:1) from {dead}: failed to request discovery document: Get \"https://{dead}/.well-known/terraform.json\": dial tcp {dead}: connect: connection refused.")
    );
    assert_eq!(
        std::fs::read_to_string(m.work().join(".terraform/modules/modules.json"))
            .ok()
            .as_deref(),
        Some(r#"{"Modules":[{"Key":"","Source":"","Dir":"."}]}"#)
    );
    assert_eq!(
        std::fs::read_dir(m.work().join(".terraform/modules"))
            .unwrap()
            .count(),
        1
    );
}

#[test]
fn a_malformed_lock_file_is_refused_and_kept() {
    let s = Scene::new(
        "badlock",
        "terraform {\n  required_providers {\n    null = {\n      source = \"hashicorp/null\"\n    }\n  }\n}\n",
    );
    let broken = "provider \"registry.terraform.io/hashicorp/null\" {\n  version = \"1.0.0\"\n  hashes = [\n";
    s.dir.write("work/.terraform.lock.hcl", broken);
    let out = s.init(&[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "Initializing the backend...\n");
    assert_eq!(
        text(&out.stderr),
        "\nError: failed to read dependency lock file: 2 problems:\n\n- Missing expression: Expected the start of an expression, but found the end of the file.\n- Unsuitable value type: Unsuitable value: value must be known\n\n"
    );
    assert_eq!(
        std::fs::read_to_string(s.work().join(".terraform.lock.hcl"))
            .ok()
            .as_deref(),
        Some(broken)
    );
    assert_eq!(
        tree(&s.work().join(".terraform/providers")),
        Vec::<String>::new()
    );
}

#[test]
fn init_in_an_empty_directory_and_bad_flags() {
    let s = Scene::new("empty", "");
    std::fs::remove_file(s.work().join("main.tf")).unwrap();
    let out = s.init(&[]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout),
        "terrace initialized in an empty directory!\n\nThe directory has no terrace configuration files. You may begin working\nwith terrace immediately by creating terrace configuration files.\n"
    );
    let out = s.init(&["-bogus"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "\nError: Failed to parse command-line flags\n\nflag provided but not defined: -bogus\n"
    );
}

// ----- providers mirror -----

const REGISTRY_SUMS: &[u8] =
    include_bytes!("../../terrace-getproviders/testdata/registry/SHA256SUMS");
const REGISTRY_SUMS_SIGNATURE: &[u8] =
    include_bytes!("../../terrace-getproviders/testdata/registry/SHA256SUMS.sig");
const REGISTRY_SIGNER: &str =
    include_str!("../../terrace-getproviders/testdata/registry/key_signer.asc");
const WIDGET_ZIP_SHA256: &str = "94ae73cb5d2f4eced53953896d995a1a7f79cd5d09353e9db1289a10412ff49e";

/// A provider registry offering acme/widget 1.0.0, 2.0.0 and 3.0.0-beta,
/// with 2.0.0 packaged for linux_amd64 (signed) and for darwin_arm64
/// (whose archive is not the one the signed checksums name).
fn widget_registry() -> HttpServer {
    HttpServer::start(|request| {
        let platforms = serde_json::json!([{"os": "linux", "arch": "amd64"}, {"os": "darwin", "arch": "arm64"}]);
        let download = |platform: &str, sha: &str| {
            let (os, arch) = platform.split_once('_').unwrap();
            let file = format!("terraform-provider-widget_2.0.0_{platform}.zip");
            Reply::json(serde_json::json!({
                "protocols": ["5.0"],
                "os": os,
                "arch": arch,
                "filename": file,
                "download_url": format!("/files/{file}"),
                "shasums_url": "/files/SHA256SUMS",
                "shasums_signature_url": "/files/SHA256SUMS.sig",
                "shasum": sha,
                "signing_keys": {"gpg_public_keys": [{"key_id": "A6576E6F70E1F905", "ascii_armor": REGISTRY_SIGNER}]},
            }))
        };
        match request.path() {
            "/v1/providers/acme/widget/versions" => Reply::json(serde_json::json!({"versions": [
                {"version": "1.0.0", "protocols": ["5.0"], "platforms": platforms},
                {"version": "3.0.0-beta", "protocols": ["5.0"], "platforms": platforms},
                {"version": "2.0.0", "protocols": ["5.0"], "platforms": platforms},
            ]})),
            "/v1/providers/acme/widget/2.0.0/download/linux/amd64" => {
                download("linux_amd64", WIDGET_ZIP_SHA256)
            }
            "/v1/providers/acme/widget/2.0.0/download/darwin/arm64" => download(
                "darwin_arm64",
                "1111111111111111111111111111111111111111111111111111111111111111",
            ),
            "/files/terraform-provider-widget_2.0.0_linux_amd64.zip"
            | "/files/terraform-provider-widget_2.0.0_darwin_arm64.zip" => Reply::bytes(WIDGET_ZIP),
            "/files/SHA256SUMS" => Reply::bytes(REGISTRY_SUMS),
            "/files/SHA256SUMS.sig" => Reply::bytes(REGISTRY_SUMS_SIGNATURE),
            _ => Reply::not_found(),
        }
    })
}

/// The output with each provider's lines as one block and the blocks
/// sorted: terraform visits the required providers in Go's map order.
fn provider_blocks(output: &str) -> Vec<String> {
    let mut blocks: Vec<String> = Vec::new();
    for line in output.lines() {
        match blocks.last_mut() {
            Some(block) if !line.starts_with("- ") => {
                block.push('\n');
                block.push_str(line);
            }
            _ => blocks.push(line.to_string()),
        }
    }
    blocks.sort();
    blocks
}

/// [`tree`] without the archives a failed check left behind under their
/// staging names (`.terraform-provider-...zip`): terraform leaves them,
/// terrace removes them, and a mirror client ignores them either way.
fn mirror_tree(dir: &Path) -> Vec<String> {
    tree(dir)
        .into_iter()
        .filter(|entry| {
            !entry
                .rsplit('/')
                .next()
                .is_some_and(|name| name.starts_with('.'))
        })
        .collect()
}

/// Every file under `dir` with its contents, by relative path.
fn file_contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    mirror_tree(dir)
        .into_iter()
        .filter(|entry| !entry.contains('/') || !entry.ends_with('/'))
        .filter_map(|entry| {
            let (rel, _mode) = entry.rsplit_once(' ')?;
            let bytes = std::fs::read(dir.join(rel)).ok()?;
            Some((rel.to_string(), bytes))
        })
        .collect()
}

#[test]
fn providers_mirror_writes_what_terraform_writes() {
    if !terrace_testsupport::require_terraform() {
        return;
    }
    let registry = widget_registry();
    let host = registry.host();
    let main_tf = format!(
        "terraform {{\n  required_providers {{\n    widget = {{\n      source  = \"{host}/acme/widget\"\n      version = \"~> 2.0\"\n    }}\n  }}\n}}\n\nresource \"terraform_data\" \"d\" {{}}\n"
    );
    let pair = Pair::new("mirror", &[("main.tf", &main_tf)]);
    pair.scratch.write(
        "cli.tfrc",
        format!("host \"{host}\" {{\n  services = {{\n    \"providers.v1\" = \"http://{host}/v1/providers/\"\n  }}\n}}\n"),
    );
    let compare = |args: &[&str], mirror: &str| {
        let (theirs, ours) = pair.both(args);
        assert_eq!(
            ours.status.code(),
            theirs.status.code(),
            "exit status of {args:?}\nterrace:\n{}{}\nterraform:\n{}{}",
            text(&ours.stdout),
            text(&ours.stderr),
            text(&theirs.stdout),
            text(&theirs.stderr)
        );
        assert_eq!(
            fold(&text(&ours.stderr)),
            as_terrace(&theirs.stderr),
            "stderr of {args:?}"
        );
        assert_eq!(
            provider_blocks(&text(&ours.stdout)),
            provider_blocks(&terrace_testsupport::product::as_terrace(&text(
                &theirs.stdout
            ))),
            "stdout of {args:?}"
        );
        let (ours_dir, theirs_dir) = (pair.side("tr").join(mirror), pair.side("tf").join(mirror));
        assert_eq!(
            tree(&ours_dir),
            mirror_tree(&ours_dir),
            "terrace left a staging file"
        );
        assert_eq!(
            tree(&ours_dir),
            mirror_tree(&theirs_dir),
            "{mirror} is laid out differently"
        );
        for ((rel, ours), (_, theirs)) in file_contents(&ours_dir)
            .into_iter()
            .zip(file_contents(&theirs_dir))
        {
            assert!(
                ours == theirs,
                "{mirror}/{rel} differs:\nterrace:\n{}\nterraform:\n{}",
                text(&ours),
                text(&theirs)
            );
        }
        (theirs, ours)
    };

    // No lock file: the newest release the constraints allow; the
    // built-in provider skipped.
    let (_, ours) = compare(&["providers", "mirror", "-no-color", "mirror"], "mirror");
    assert!(
        text(&ours.stdout).contains("  - Selected v2.0.0 to meet constraints ~> 2.0\n"),
        "{}",
        text(&ours.stdout)
    );
    let widget_dir = pair.side("tr").join(format!("mirror/{host}/acme/widget"));
    assert_eq!(
        std::fs::read(widget_dir.join("terraform-provider-widget_2.0.0_linux_amd64.zip")).unwrap(),
        WIDGET_ZIP
    );
    assert_eq!(
        text(&std::fs::read(widget_dir.join("index.json")).unwrap()),
        "{\n  \"versions\": {\n    \"2.0.0\": {}\n  }\n}"
    );

    // A platform whose package fails its checks, and one that is no
    // platform: the rest is still mirrored, and the failures reported.
    compare(
        &[
            "providers",
            "mirror",
            "-no-color",
            "-platform=linux_amd64",
            "-platform=darwin_arm64",
            "platforms",
        ],
        "platforms",
    );
    compare(
        &["providers", "mirror", "-no-color", "-platform=linux", "bad"],
        "bad",
    );
    compare(&["providers", "mirror", "-no-color"], "none");
    for command in [
        &["providers", "mirror", "-help"][..],
        &["providers", "lock", "-help"],
    ] {
        let (theirs, ours) = pair.both(command);
        assert_eq!(ours.status.code(), Some(0));
        assert_eq!(
            text(&ours.stdout),
            terrace_testsupport::product::as_terrace(&text(&theirs.stdout)),
            "{command:?}"
        );
    }

    // With a lock file (made by init, from the registry): its selection.
    // The init output, with a community-signed provider, is terraform's
    // too: the signing note right after the installed line, terraform's
    // address for it.
    pair.assert_same_output(&["init", "-no-color"]);
    pair.same_file(".terraform.lock.hcl");
    let (_, ours) = compare(&["providers", "mirror", "-no-color", "locked"], "locked");
    assert!(text(&ours.stdout).contains("  - Selected v2.0.0 to match dependency lock file\n"));
    compare(
        &[
            "providers",
            "mirror",
            "-no-color",
            "-lock-file=false",
            "unlocked",
        ],
        "unlocked",
    );

    // init from terrace's mirror works, for terrace and terraform alike.
    let ours_mirror = pair.side("tr").join("mirror");
    let from_mirror = Pair::new("from-mirror", &[("main.tf", &main_tf)]);
    from_mirror.scratch.write(
        "cli.tfrc",
        format!(
            "provider_installation {{\n  filesystem_mirror {{\n    path = \"{}\"\n  }}\n}}\n",
            ours_mirror.display()
        ),
    );
    let (theirs, ours) = from_mirror.assert_same_output(&["init", "-no-color"]);
    assert_eq!(ours.status.code(), Some(0), "{}", text(&ours.stderr));
    assert_eq!(theirs.status.code(), Some(0), "{}", text(&theirs.stderr));
    from_mirror.same_file(".terraform.lock.hcl");
    from_mirror.same_tree(".terraform/providers");

    // Beyond terraform, which takes only the version from the lock file: a
    // package none of the lock file's checksums match stays out.
    let lock_path = pair.side("tr").join(".terraform.lock.hcl");
    let lock = text(&std::fs::read(&lock_path).unwrap());
    let tampered = lock
        .lines()
        .filter(|line| !line.trim_start().starts_with("\"h1:") && !line.contains("zh:94ae"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(tampered, lock);
    std::fs::write(&lock_path, tampered + "\n").unwrap();
    let ours = run(
        terrace(),
        &["providers", "mirror", "-no-color", "tampered"],
        &pair.side("tr"),
        &pair.scratch.path().join("cli.tfrc"),
        &pair.scratch.path().join("home"),
    );
    assert_eq!(ours.status.code(), Some(1));
    assert_eq!(
        fold(&text(&ours.stderr)),
        fold(&format!("Error: Invalid provider package Failed to authenticate {host}/acme/widget v2.0.0 for linux_amd64: the current package for {host}/acme/widget 2.0.0 doesn't match any of the checksums previously recorded in the dependency lock file."))
    );
    assert_eq!(
        tree(&pair.side("tr").join("tampered")),
        vec![
            format!("{host}/"),
            format!("{host}/acme/"),
            format!("{host}/acme/widget/"),
        ]
    );
}

/// With `plugin_cache_dir`: a first init installs into the cache (a link
/// to the unpacked mirror directory) and links the working directory to
/// it, saying only "Installing"; without a lock file the cache entry is
/// installed again (replacing the link, not refusing it as the same
/// directory); with the lock file a cached version is "Using ... from the
/// shared cache directory"; with the cache emptied it is installed again.
/// Each step's output and links as terraform's.
#[test]
fn init_with_a_shared_plugin_cache_as_terraform() {
    if !can_compare() {
        return;
    }
    let pair = Pair::new("plugin-cache", ROOT_WITH_CHILD);
    let scratch = pair.scratch.path();
    let cli = |side: &str| scratch.join(format!("cli-{side}.tfrc"));
    for side in ["tf", "tr"] {
        std::fs::write(
            cli(side),
            format!(
                "plugin_cache_dir = \"{}\"\nprovider_installation {{\n  filesystem_mirror {{\n    path = \"{MIRROR}\"\n  }}\n}}\n",
                scratch.join(format!("cache-{side}")).display()
            ),
        )
        .unwrap();
        std::fs::create_dir_all(scratch.join(format!("cache-{side}"))).unwrap();
    }
    let home = scratch.join("home");
    let remove = |side: &str, what: &str| {
        let path = pair.side(side).join(what);
        let _ = std::fs::remove_dir_all(&path);
        let _ = std::fs::remove_file(&path);
    };
    // Links, with each side's own directory names made the same.
    let links = |side: &str| -> Vec<String> {
        let mut out = tree(&pair.side(side).join(".terraform/providers"));
        out.extend(tree(&scratch.join(format!("cache-{side}"))));
        out.iter()
            .map(|l| {
                l.replace(&format!("cache-{side}"), "cache-SIDE")
                    .replace(&format!("/{side}/"), "/SIDE/")
            })
            .collect()
    };
    let steps: [(&str, &[&str]); 5] = [
        ("fresh", &[]),
        (
            "without the lock file",
            &[".terraform", ".terraform.lock.hcl"],
        ),
        ("with the lock file, cached", &[".terraform"]),
        (
            "with the lock file, cache emptied",
            &[".terraform", "CACHE"],
        ),
        ("nothing to do", &[]),
    ];
    for (step, removed) in steps {
        for side in ["tf", "tr"] {
            for what in removed {
                if *what == "CACHE" {
                    let cache = scratch.join(format!("cache-{side}"));
                    let _ = std::fs::remove_dir_all(&cache);
                    std::fs::create_dir_all(&cache).unwrap();
                } else {
                    remove(side, what);
                }
            }
        }
        let theirs = run(
            "terraform",
            &["init", "-no-color"],
            &pair.side("tf"),
            &cli("tf"),
            &home,
        );
        let ours = run(
            terrace(),
            &["init", "-no-color"],
            &pair.side("tr"),
            &cli("tr"),
            &home,
        );
        assert_eq!(
            ours.status.code(),
            theirs.status.code(),
            "{step}: exit status\nterrace:\n{}{}\nterraform:\n{}{}",
            text(&ours.stdout),
            text(&ours.stderr),
            text(&theirs.stdout),
            text(&theirs.stderr)
        );
        assert_eq!(
            ours.status.code(),
            Some(0),
            "{step}: {}",
            text(&ours.stderr)
        );
        assert_eq!(
            fold(&text(&ours.stdout)),
            as_terrace(&theirs.stdout),
            "{step}: stdout"
        );
        assert_eq!(
            fold(&text(&ours.stderr)),
            as_terrace(&theirs.stderr),
            "{step}: stderr"
        );
        assert_eq!(links("tr"), links("tf"), "{step}: links");
        pair.same_file(".terraform.lock.hcl");
    }
    // The -json stream of a cached, locked version: the same messages.
    let messages = |out: &Output| -> Vec<(String, String)> {
        text(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|l| l["type"] != "version")
            .map(|l| {
                (
                    l["type"].as_str().unwrap_or_default().to_string(),
                    fold(&terrace_testsupport::product::as_terrace(
                        l["@message"].as_str().unwrap_or_default(),
                    )),
                )
            })
            .collect()
    };
    remove("tf", ".terraform");
    remove("tr", ".terraform");
    let theirs = run(
        "terraform",
        &["init", "-json"],
        &pair.side("tf"),
        &cli("tf"),
        &home,
    );
    let ours = run(
        terrace(),
        &["init", "-json"],
        &pair.side("tr"),
        &cli("tr"),
        &home,
    );
    let ours = messages(&ours);
    assert_eq!(ours, messages(&theirs), "init -json");
    assert!(
        ours.iter()
            .any(|(_, m)| m == "hashicorp/aws v5.100.0: Using from the shared cache directory"),
        "{ours:?}"
    );
}
