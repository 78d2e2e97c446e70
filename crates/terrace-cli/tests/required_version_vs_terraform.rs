//! `terraform { required_version }` in `.tf` files, beside terraform
//! 1.11.4: a constraint that excludes the Terraform release terrace
//! follows stops `init`, `validate` and `plan` with terraform's error (a
//! child module's names the module and its source), an invalid
//! constraint is refused, and one that holds changes nothing.

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};

/// The errors, from the first one on, with the tool's name made the same.
fn errors(run: &Run) -> String {
    let text = run.all().replace("Terraform has", "terrace has");
    match text.find("Error:") {
        Some(at) => text[at..].trim_end().to_string(),
        None => String::new(),
    }
}

/// Exit codes and errors of each command in order, in a directory holding
/// `files`.
fn outcomes(
    tool: &str,
    case: &str,
    files: &[(&str, &str)],
    commands: &[&[&str]],
) -> Vec<(Option<i32>, String)> {
    let work = Work::new(
        &format!("required-version-{case}-{tool}"),
        Overrides {
            bundled: false,
            aws: false,
        },
    );
    for (name, text) in files {
        work.write(name, text);
    }
    commands
        .iter()
        .map(|args| {
            let done = work.with_tool(tool, args);
            (done.code, errors(&done))
        })
        .collect()
}

fn compare(case: &str, files: &[(&str, &str)], commands: &[&[&str]], expected: &[(i32, &str)]) {
    let terrace = outcomes("terrace", case, files, commands);
    for ((code, text), (want_code, want_text)) in terrace.iter().zip(expected) {
        assert_eq!(*code, Some(*want_code), "{case}: {text}");
        assert!(
            text.contains(want_text),
            "{case}: {want_text:?} in:\n{text}"
        );
    }
    if have_terraform() {
        assert_eq!(
            terrace,
            outcomes("terraform", case, files, commands),
            "{case}"
        );
    }
}

const TOO_NEW: &str = "terraform {\n  required_version = \">= 2.0\"\n}\n";

#[test]
fn a_configuration_for_another_terraform_version_is_refused() {
    compare(
        "root",
        &[("main.tf", TOO_NEW)],
        &[&["init"], &["validate"], &["plan"]],
        &[
            (
                1,
                "This configuration does not support Terraform version 1.11.4.",
            ),
            (1, "Error: Unsupported Terraform Core version"),
            (1, "Error: Unsupported Terraform Core version"),
        ],
    );
}

#[test]
fn a_module_for_another_terraform_version_is_named() {
    compare(
        "module",
        &[
            ("main.tf", "module \"m\" {\n  source = \"./m\"\n}\n"),
            (
                "m/main.tf",
                "terraform {\n  required_version = \"< 1.0\"\n}\n",
            ),
        ],
        &[&["init"]],
        &[(
            1,
            "Module module.m (from ./m) does not support Terraform version 1.11.4.",
        )],
    );
}

#[test]
fn invalid_constraints_are_refused_and_a_holding_one_changes_nothing() {
    compare(
        "bogus",
        &[(
            "main.tf",
            "terraform {\n  required_version = \"bogus\"\n}\n",
        )],
        &[&["validate"]],
        &[(1, "Error: Invalid version constraint")],
    );
    compare(
        "prerelease",
        &[(
            "main.tf",
            "terraform {\n  required_version = \">= 1.0, >= 1.11.4-beta1\"\n}\n",
        )],
        &[&["validate"]],
        &[(
            1,
            "Prerelease version constraints are not supported:  >= 1.11.4-beta1.",
        )],
    );
    compare(
        "holds",
        &[(
            "main.tf",
            "terraform {\n  required_version = \">= 1.0, < 2.0\"\n}\n\nresource \"terraform_data\" \"a\" {}\n",
        )],
        &[&["init"], &["validate"]],
        &[(0, ""), (0, "")],
    );
}
