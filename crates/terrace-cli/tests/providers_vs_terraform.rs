//! `terrace providers` and `terrace providers schema -json` side by side
//! with terraform 1.11 on the same working directories. The schema test
//! installs hashicorp/aws 5.100.0 from the image's filesystem mirror with
//! `terraform init`, then compares both tools' documents (parsed, naming
//! the first differing path; then byte for byte), with terrace's schema
//! cache cold and then warm, and once more in a directory that was never
//! initialised, where terrace finds the provider in the mirror.
//!
//! Skipped, with the reason printed, where terraform or the AWS provider
//! is missing.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};
use terrace_testsupport::TempDir;

const MIRROR: &str = terrace_testsupport::PLUGIN_MIRROR;
const AWS: &str = terrace_testsupport::AWS_PROVIDER_EXECUTABLE;

/// Runs a command in `dir` with a controlled environment.
fn run(program: &str, args: &[&str], dir: &Path, env: &[(&str, &Path)]) -> Output {
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(dir)
        .env("CHECKPOINT_DISABLE", "1")
        .env("NO_COLOR", "1")
        .env_remove("TF_LOG")
        .env_remove("TF_DATA_DIR")
        .env_remove("TF_WORKSPACE")
        .env_remove("TF_PLUGIN_CACHE_DIR")
        // A CLI configuration with nothing in it, unless a test names one.
        .env("TF_CLI_CONFIG_FILE", "/dev/null");
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().unwrap()
}

fn terrace() -> &'static str {
    env!("CARGO_BIN_EXE_terrace")
}

/// The first path at which two JSON values differ, with both sides.
fn first_difference(path: &str, a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            // Each key once: x's, then those only y has.
            for key in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                let here = format!("{path}.{key}");
                match (x.get(key), y.get(key)) {
                    (Some(u), Some(v)) => {
                        if let Some(d) = first_difference(&here, u, v) {
                            return Some(d);
                        }
                    }
                    (u, v) => return Some(format!("{here}: {u:?} vs {v:?}")),
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                if let Some(d) = first_difference(&format!("{path}[{i}]"), u, v) {
                    return Some(d);
                }
            }
            (x.len() != y.len()).then(|| format!("{path}: {} elements vs {}", x.len(), y.len()))
        }
        _ => (a != b).then(|| format!("{path}: {a} vs {b}")),
    }
}

fn assert_same_document(terrace: &[u8], terraform: &[u8], what: &str) {
    let ours: Value = serde_json::from_slice(terrace)
        .unwrap_or_else(|e| panic!("{what}: terrace's output is not JSON: {e}"));
    let theirs: Value = serde_json::from_slice(terraform).unwrap();
    if let Some(difference) = first_difference("$", &ours, &theirs) {
        panic!("{what}: terrace (left) and terraform (right) differ at {difference}");
    }
    assert!(
        terrace == terraform,
        "{what}: the same document, but not the same bytes"
    );
}

#[test]
fn providers_schema_json_matches_terraform() {
    if !terrace_testsupport::require_terraform()
        || !terrace_testsupport::require_path(Path::new(AWS), "the AWS provider")
    {
        return;
    }
    let tmp = TempDir::new("schema");
    let main_tf = r#"terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "5.100.0"
    }
  }
}
"#;
    let cli_config = tmp.write(
        "cli.tfrc",
        format!(
            "provider_installation {{\n  filesystem_mirror {{\n    path    = \"{MIRROR}\"\n    include = [\"registry.terraform.io/*/*\"]\n  }}\n}}\n"
        ),
    );
    let work = tmp.join("work");
    tmp.write("work/main.tf", main_tf);
    let cache = tmp.join("schema-cache");
    let env = [
        ("TF_CLI_CONFIG_FILE", cli_config.as_path()),
        ("TERRACE_SCHEMA_CACHE_DIR", cache.as_path()),
    ];

    let init = run(
        "terraform",
        &["init", "-input=false", "-no-color"],
        &work,
        &env,
    );
    assert!(
        init.status.success(),
        "terraform init failed: {}",
        String::from_utf8_lossy(&init.stderr)
    );
    let reference = run("terraform", &["providers", "schema", "-json"], &work, &env);
    assert!(reference.status.success());

    let cold = run(terrace(), &["providers", "schema", "-json"], &work, &env);
    assert!(
        cold.status.success(),
        "{}",
        String::from_utf8_lossy(&cold.stderr)
    );
    assert_same_document(&cold.stdout, &reference.stdout, "cold cache");
    let entries = std::fs::read_dir(&cache)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".json"))
        })
        .count();
    assert_eq!(entries, 1, "one cache entry, for the one provider");

    let warm = run(terrace(), &["providers", "schema", "-json"], &work, &env);
    assert!(warm.status.success());
    assert_same_document(&warm.stdout, &reference.stdout, "warm cache");

    // Never initialised, no lock file: nothing is run, whatever mirror
    // holds the provider; both tools say why and what to do.
    tmp.write("fresh/main.tf", main_tf);
    let fresh_dir = tmp.join("fresh");
    let fresh = run(
        terrace(),
        &["providers", "schema", "-json", "-no-color"],
        &fresh_dir,
        &env,
    );
    let fresh_reference = run(
        "terraform",
        &["providers", "schema", "-json", "-no-color"],
        &fresh_dir,
        &env,
    );
    for (tool, out) in [("terrace", &fresh), ("terraform", &fresh_reference)] {
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            text.contains("Error: Inconsistent dependency lock file")
                && text.contains("registry.terraform.io/hashicorp/aws: required by this configuration but no version is selected"),
            "{tool}: {text}"
        );
    }
    assert_eq!(fresh.status.code(), Some(1));

    // A lock file naming a version that is not installed.
    tmp.write("nowhere/main.tf", main_tf);
    std::fs::copy(
        work.join(".terraform.lock.hcl"),
        tmp.join("nowhere/.terraform.lock.hcl"),
    )
    .unwrap();
    let missing = run(
        terrace(),
        &["providers", "schema", "-json"],
        &tmp.join("nowhere"),
        &env,
    );
    assert_eq!(missing.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(
        stderr.contains("Error: Required plugins are not installed")
            && stderr.contains(
                "there is no package for registry.terraform.io/hashicorp/aws 5.100.0 cached in .terraform/providers"
            ),
        "{stderr}"
    );
    assert!(missing.stdout.is_empty());
}

#[test]
fn providers_schema_without_providers_and_without_json() {
    let tmp = TempDir::new("schema-empty");
    tmp.write("main.tf", "locals {\n  a = 1\n}\n");
    let empty = run(
        terrace(),
        &["providers", "schema", "-json"],
        tmp.path(),
        &[],
    );
    assert!(empty.status.success());
    assert_eq!(empty.stdout, b"{\"format_version\":\"1.0\"}\n");
    let no_json = run(terrace(), &["providers", "schema"], tmp.path(), &[]);
    assert_eq!(no_json.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&no_json.stderr)
        .starts_with("The `terrace providers schema` command requires the `-json` flag."));
    if terrace_testsupport::require_terraform() {
        let reference = run(
            "terraform",
            &["providers", "schema", "-json"],
            tmp.path(),
            &[],
        );
        assert_eq!(empty.stdout, reference.stdout);
    }
}

/// The built-in provider is listed when the configuration uses it
/// (`terraform_data`), with its whole schema, as terraform lists it.
#[test]
fn providers_schema_lists_the_builtin_provider_when_used() {
    let tmp = TempDir::new("schema-builtin");
    tmp.write("main.tf", "resource \"terraform_data\" \"a\" {}\n");
    let schema = run(
        terrace(),
        &["providers", "schema", "-json"],
        tmp.path(),
        &[],
    );
    assert!(
        schema.status.success(),
        "{}",
        String::from_utf8_lossy(&schema.stderr)
    );
    let text = String::from_utf8_lossy(&schema.stdout);
    assert!(
        text.contains("\"terraform.io/builtin/terraform\"") && text.contains("\"terraform_data\""),
        "{text}"
    );
    if terrace_testsupport::require_terraform() {
        let reference = run(
            "terraform",
            &["providers", "schema", "-json"],
            tmp.path(),
            &[],
        );
        assert_same_document(&schema.stdout, &reference.stdout, "providers schema -json");
    }
}

/// A configuration whose tree terraform prints in a fixed order (one
/// provider per module, at most one child), with a state.
const TREE_FIXED: &[(&str, &str)] = &[
    (
        "main.tf",
        r#"terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.0, < 6.0"
    }
  }
}
resource "aws_s3_bucket" "b" {}
module "child" {
  source = "./modules/child"
}
"#,
    ),
    (
        "modules/child/main.tf",
        r#"resource "random_id" "r" {
  byte_length = 4
}
module "grand" {
  source = "../grand"
}
"#,
    ),
    (
        "modules/grand/main.tf",
        r#"terraform {
  required_providers {
    web = {
      source  = "hashicorp/http"
      version = "~> 3.4.0"
    }
  }
}
data "http" "h" {
  provider = web
  url      = "https://example.com"
}
"#,
    ),
    (
        "terraform.tfstate",
        r#"{"version":4,"terraform_version":"1.11.4","serial":1,"lineage":"00000000-0000-0000-0000-000000000000","outputs":{},"resources":[{"mode":"managed","type":"null_resource","name":"x","provider":"provider[\"registry.terraform.io/hashicorp/null\"]","instances":[]}],"check_results":null}"#,
    ),
];

/// Providers and modules in numbers, whose order terraform varies.
const TREE_MANY: &[(&str, &str)] = &[
    (
        "main.tf",
        r#"terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.1, != 5.50.0"
    }
    foo = {
      source = "example.com/acme/foo"
    }
  }
}
resource "null_resource" "x" {}
import {
  to = tls_private_key.k
  id = "x"
}
module "a" {
  source = "./m"
}
module "b" {
  source = "./m"
}
"#,
    ),
    (
        "m/main.tf",
        r#"terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "5.100.0"
    }
  }
}
resource "random_id" "x" {}
data "aws_region" "r" {}
ephemeral "random_password" "p" {
  length = 8
}
"#,
    ),
];

fn write_all(tmp: &TempDir, files: &[(&str, &str)]) {
    for (name, text) in files {
        tmp.write(name, text);
    }
}

#[test]
fn providers_tree_matches_terraform() {
    if !terrace_testsupport::require_terraform() {
        return;
    }
    let empty_config = TempDir::new("tree-cli");
    let cli_config = empty_config.write("cli.tfrc", "");
    let env = [("TF_CLI_CONFIG_FILE", cli_config.as_path())];
    for (name, files, exact) in [("fixed", TREE_FIXED, true), ("many", TREE_MANY, false)] {
        let tmp = TempDir::new(&format!("tree-{name}"));
        write_all(&tmp, files);
        // terraform reads module calls through its manifest.
        let get = run("terraform", &["get", "-no-color"], tmp.path(), &env);
        assert!(
            get.status.success(),
            "{}",
            String::from_utf8_lossy(&get.stderr)
        );
        let reference = run("terraform", &["providers", "-no-color"], tmp.path(), &env);
        let ours = run(terrace(), &["providers", "-no-color"], tmp.path(), &env);
        assert!(reference.status.success(), "{name}");
        assert!(
            ours.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&ours.stderr)
        );
        let (ours_text, reference_text) = (
            String::from_utf8_lossy(&ours.stdout).into_owned(),
            String::from_utf8_lossy(&reference.stdout).into_owned(),
        );
        if exact {
            assert_eq!(ours_text, reference_text, "{name}");
        } else {
            // Which line is last in its branch (drawn └──) depends on the
            // order too.
            let sorted = |text: &str| {
                let mut lines: Vec<String> = text
                    .lines()
                    .map(|line| {
                        line.replace("└── ", "├── ")
                            .replace("    ", "│\u{a0}\u{a0} ")
                    })
                    .collect();
                lines.sort();
                lines
            };
            assert_eq!(sorted(&ours_text), sorted(&reference_text), "{name}");
        }
        assert!(ours.stderr.is_empty(), "{name}");
    }
}

#[test]
fn providers_without_configuration() {
    let tmp = TempDir::new("tree-empty");
    let out = run(terrace(), &["providers", "-no-color"], tmp.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Error: No configuration files"), "{stderr}");
}
