//! Every test that needs a tool from outside the project goes through
//! terrace-testsupport, so none can return early unseen, or pass in CI
//! having tested nothing. A grep over the workspace's Rust sources (tests,
//! test modules, test-support libraries and benchmarks alike) for the ways
//! a test can look for such a tool on its own:
//!
//! - printing its own `skipped` line;
//! - probing a program (`terraform`, `git`, `python3`, `moto_server`,
//!   `chromium`, `firefox-esr`) for
//!   `version`/`--version`/`--help` with `Command` instead of
//!   `terrace_testsupport::probe`/`require_*`;
//! - naming the image's provider mirror (`/opt/tf-plugins`) or `../shared`
//!   itself instead of through the helper's constants and `shared()`,
//!   which report them missing.

use std::path::{Path, PathBuf};

/// The programs from outside the project that tests use.
const OUTSIDE_PROGRAMS: &[&str] = &[
    "terraform",
    "git",
    "python3",
    "python",
    "moto_server",
    "chromium",
    "firefox-esr",
];

/// Arguments that only ask a program whether it is there.
const PROBE_ARGUMENTS: &[&str] = &["\"version\"", "\"--version\"", "\"--help\"", "\"-V\""];

/// How many lines after `Command::new(...)` its arguments may follow.
const COMMAND_SPAN: usize = 4;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The Rust sources of every workspace member but the helper itself.
fn checked_files() -> Vec<PathBuf> {
    let root = workspace_root();
    let mut files = Vec::new();
    for group in ["crates", "providers"] {
        let Ok(members) = std::fs::read_dir(root.join(group)) else {
            panic!(
                "the workspace has no {group}/ directory at {}",
                root.display()
            );
        };
        for member in members.flatten() {
            if member.file_name() == "terrace-testsupport" {
                continue;
            }
            rust_files(&member.path(), &mut files);
        }
    }
    files.sort();
    files
}

/// The violations of the rule in one file's text, as `line: reason`.
fn violations(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let at = i + 1;
        if code.contains("\"skipped") && code.contains("!(") {
            found.push(format!(
                "{at}: prints its own skip; use terrace_testsupport::missing"
            ));
        }
        if code.contains("\"/opt/tf-plugins") {
            found.push(format!(
                "{at}: names the provider mirror; use terrace_testsupport's constants"
            ));
        }
        if code.contains("../shared") || code.contains("../../../shared") {
            found.push(format!(
                "{at}: names ../shared; use terrace_testsupport::shared"
            ));
        }
        for program in OUTSIDE_PROGRAMS {
            if !code.contains(&format!("Command::new(\"{program}\")")) {
                continue;
            }
            let window = lines[i..lines.len().min(i + COMMAND_SPAN + 1)].join("\n");
            if PROBE_ARGUMENTS.iter().any(|a| window.contains(a)) {
                found.push(format!(
                    "{at}: probes {program} itself; use terrace_testsupport::probe or require_*"
                ));
            }
        }
    }
    found
}

#[test]
fn tests_look_for_outside_tools_only_through_the_helper() {
    let files = checked_files();
    assert!(files.len() > 100, "only {} files found", files.len());
    let root = workspace_root();
    let mut problems = Vec::new();
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        for v in violations(&text) {
            let shown = path.strip_prefix(&root).unwrap_or(path);
            problems.push(format!("{}:{v}", shown.display()));
        }
    }
    assert!(
        problems.is_empty(),
        "tests must look for outside tools through terrace-testsupport:\n{}",
        problems.join("\n")
    );
}

/// The rule itself finds what it is meant to find.
#[test]
fn the_rule_recognizes_each_way_of_checking_alone() {
    let cases = [
        "    eprintln!(\"skipped: terraform is not on PATH\");",
        "    println!(\"skipped: no git\");",
        "const AWS: &str = \"/opt/tf-plugins/registry.terraform.io/x\";",
        "    let dir = root.join(\"../../../shared/conformance\");",
        "    Command::new(\"terraform\")\n        .arg(\"version\")\n        .output()",
        "    std::process::Command::new(\"git\").arg(\"--version\").output()",
        "    Command::new(\"python3\")\n        .arg(\"--version\")",
        "    match Command::new(\"moto_server\").arg(\"--help\").output() {",
    ];
    for case in cases {
        assert_eq!(violations(case).len(), 1, "{case}");
    }
    let fine = [
        "// the shared fixtures in ../shared are read through the helper",
        "    let run = Command::new(\"terraform\").args([\"plan\", \"-no-color\"]).output();",
        "    if !terrace_testsupport::require_terraform() {\n        return;\n    }",
        "    let dir = terrace_testsupport::shared(\"conformance/opentofu-configs\");",
    ];
    for case in fine {
        assert!(violations(case).is_empty(), "{case}");
    }
}
