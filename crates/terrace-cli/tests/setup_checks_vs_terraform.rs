//! Checks made before anything runs, beside terraform 1.11.4: `init`
//! refuses a test file that does not parse (a run's module would be
//! installed from it); `providers` with a dependency lock file requires
//! the selected packages to be installed, as any command that would start
//! them; an output of a sensitive value converted while still unknown
//! (`tostring(sensitive(x))`) is refused by `validate` and before an
//! apply changes anything.

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};
use terrace_testsupport::product::as_terrace;

/// Exit code, stdout and stderr, terraform's self-references renamed and
/// whitespace folded (a renamed paragraph wraps differently).
fn outcome(tool: &str, run: &Run) -> (Option<i32>, String, String) {
    let text = |s: &str| {
        let s = if tool == "terraform" {
            as_terrace(s)
        } else {
            s.to_string()
        };
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    (run.code, text(&run.stdout), text(&run.stderr))
}

fn work(case: &str, tool: &str, files: &[(&str, &str)]) -> Work {
    let work = Work::new(
        &format!("setup-checks-{case}-{tool}"),
        Overrides {
            bundled: false,
            aws: false,
        },
    );
    for (name, text) in files {
        work.write(name, text);
    }
    work
}

#[test]
fn init_refuses_a_test_file_that_does_not_parse() {
    if !have_terraform() {
        return;
    }
    let files = [
        ("main.tf", "output \"greeting\" {\n  value = \"hello\"\n}\n"),
        (
            "tests/bad.tftest.hcl",
            "run \"ok\" {\n  command = plan\n\n  assert {\n    condition = output.greeting == \"hello\"\n    error_message = \"x\"\n\n}\n",
        ),
    ];
    let [terrace, terraform] = ["terrace", "terraform"].map(|tool| {
        let work = work("init-test-file", tool, &files);
        let done = work.with_tool(tool, &["init"]);
        assert!(
            !work.path(".terraform").join("modules").exists(),
            "{tool} installed something"
        );
        outcome(tool, &done)
    });
    assert_eq!(terrace.0, Some(1), "{terrace:?}");
    assert!(
        terrace.2.contains("Error: Unclosed configuration block"),
        "{terrace:?}"
    );
    assert_eq!(terrace, terraform);
}

#[test]
fn providers_requires_the_locked_packages_installed() {
    if !have_terraform() {
        return;
    }
    let main = "terraform {\n  required_providers {\n    aws = {\n      source  = \"hashicorp/aws\"\n      version = \"~> 5.0\"\n    }\n  }\n}\n";
    let lock = "provider \"registry.terraform.io/hashicorp/aws\" {\n  version     = \"5.100.0\"\n  constraints = \"~> 5.0\"\n  hashes = [\n    \"h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\",\n  ]\n}\n";
    for (case, files) in [
        (
            "locked",
            vec![("main.tf", main), (".terraform.lock.hcl", lock)],
        ),
        ("unlocked", vec![("main.tf", main)]),
    ] {
        let [terrace, terraform] = ["terrace", "terraform"].map(|tool| {
            let work = work(case, tool, &files);
            outcome(tool, &work.with_tool(tool, &["providers"]))
        });
        let want_code = if case == "locked" { 1 } else { 0 };
        assert_eq!(terrace.0, Some(want_code), "{case}: {terrace:?}");
        assert_eq!(terrace, terraform, "{case}");
    }
}

#[test]
fn sensitive_values_converted_while_unknown_stay_sensitive() {
    if !have_terraform() {
        return;
    }
    let validated = [(
        "main.tf",
        "variable \"s\" {\n  default   = \"5\"\n  sensitive = true\n}\n\noutput \"n\" {\n  value = tonumber(var.s)\n}\n\noutput \"t\" {\n  value = tostring(var.s)\n}\n",
    )];
    let applied = [(
        "main.tf",
        "resource \"terraform_data\" \"x\" {}\n\noutput \"o\" {\n  value = tostring(sensitive(terraform_data.x.id))\n}\n\noutput \"p\" {\n  value = tonumber(sensitive(length(terraform_data.x.id)))\n}\n",
    )];
    for (case, files, args) in [
        ("validate", &validated, &["validate"][..]),
        ("apply", &applied, &["apply", "-auto-approve"][..]),
    ] {
        let [terrace, terraform] = ["terrace", "terraform"].map(|tool| {
            let work = work(case, tool, files);
            let done = work.with_tool(tool, args);
            assert!(
                !work.path("terraform.tfstate").exists(),
                "{tool} {case} changed something: {}",
                done.output()
            );
            outcome(tool, &done)
        });
        assert_eq!(terrace.0, Some(1), "{case}: {terrace:?}");
        assert!(
            terrace
                .2
                .contains("Error: Output refers to sensitive values"),
            "{case}: {terrace:?}"
        );
        assert_eq!(terrace, terraform, "{case}");
    }
}

#[test]
fn cli_configuration_problems_are_said_by_every_command() {
    if !have_terraform() {
        return;
    }
    let commands: [&[&str]; 7] = [
        &["version"],
        &["fmt"],
        &["validate"],
        &["output"],
        &["providers"],
        &["workspace", "list"],
        &["console"],
    ];
    for args in commands {
        let [terrace, terraform] = ["terrace", "terraform"].map(|tool| {
            let work = work(
                "cli-config",
                tool,
                &[("main.tf", "output \"o\" {\n  value = 1\n}\n")],
            );
            let missing = work.path("missing.tfrc");
            let missing = missing.to_string_lossy();
            let env = [("TF_CLI_CONFIG_FILE", missing.as_ref())];
            let done = match tool {
                "terrace" => work.terrace_env(args, &env),
                _ => work.terraform_env(args, &env),
            };
            // The warning box and what follows it up to the first blank
            // line after it; the directory's name differs.
            let stderr = done.stderr.replace(&*work.dir.to_string_lossy(), "DIR");
            let warning = stderr.split("\n\n").next().unwrap_or_default().to_string();
            warning
        });
        assert!(
            terrace.starts_with("There are some problems with the CLI configuration:"),
            "{args:?}: {terrace}"
        );
        assert_eq!(terrace, terraform, "{args:?}");
    }
}

#[test]
fn plan_checks_installed_packages_before_the_lock_file_fits() {
    if !have_terraform() {
        return;
    }
    let requiring = |constraint: &str| {
        format!("terraform {{\n  required_providers {{\n    aws = {{\n      source  = \"hashicorp/aws\"\n      version = \"{constraint}\"\n    }}\n  }}\n}}\n")
    };
    let lock = "provider \"registry.terraform.io/hashicorp/aws\" {\n  version     = \"5.100.0\"\n  constraints = \"~> 5.0\"\n  hashes = [\n    \"h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\",\n  ]\n}\n";
    let old = requiring("~> 4.0");
    let current = requiring("~> 5.0");
    for (case, files, first_error) in [
        // Locked but not installed, and the lock no longer fits: the
        // missing package is said.
        (
            "mismatch",
            vec![("main.tf", old.as_str()), (".terraform.lock.hcl", lock)],
            "Error: Required plugins are not installed",
        ),
        // Not locked at all: the lock file is said not to fit.
        (
            "unlocked",
            vec![("main.tf", current.as_str())],
            "Error: Inconsistent dependency lock file",
        ),
    ] {
        let [terrace, terraform] = ["terrace", "terraform"].map(|tool| {
            let work = work(case, tool, &files);
            outcome(tool, &work.with_tool(tool, &["plan"]))
        });
        assert_eq!(terrace.0, Some(1), "{case}: {terrace:?}");
        assert!(terrace.2.starts_with(first_error), "{case}: {terrace:?}");
        assert_eq!(terrace, terraform, "{case}");
    }
}
