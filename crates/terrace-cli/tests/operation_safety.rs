//! What every operation checks before it changes anything, beside
//! terraform 1.11.4 where terraform can run the same steps: a saved plan
//! is applied exactly as it was made (its configuration, its variables,
//! its state) or refused; a provider package that does not match the lock
//! file never runs; a backend terrace does not implement is refused by
//! name, never replaced by a local state; the local backend's `path` is
//! honoured and `init` moves state between local configurations.

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};

fn builtin_only(name: &str) -> Work {
    Work::new(
        name,
        Overrides {
            bundled: false,
            aws: false,
        },
    )
}

/// The tools to run a scenario with: terrace always, terraform when it is
/// here (reported missing otherwise, which fails in CI).
fn tools() -> Vec<&'static str> {
    let mut tools = vec!["terrace"];
    if have_terraform() {
        tools.push("terraform");
    }
    tools
}

fn run(work: &Work, tool: &str, args: &[&str]) -> Run {
    match tool {
        "terrace" => work.terrace(args),
        _ => work.terraform(args),
    }
}

fn run_env(work: &Work, tool: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
    match tool {
        "terrace" => work.terrace_env(args, env),
        _ => work.terraform_env(args, env),
    }
}

fn expect(run: &Run, code: i32, tool: &str, what: &str) {
    assert_eq!(run.code, Some(code), "{tool} {what}:\n{}", run.output());
}

const VARIABLE_CONFIG: &str = r#"
variable "x" {
  type    = string
  default = "d"
}

resource "terraform_data" "d" {
  input = var.x
}

output "x" {
  value = terraform_data.d.output
}
"#;

#[test]
fn a_plan_saved_in_an_empty_directory_applies_there() {
    for tool in tools() {
        let work = builtin_only(&format!("saved-empty-{tool}"));
        work.write("main.tf", VARIABLE_CONFIG);
        if tool == "terraform" {
            expect(&run(&work, tool, &["init"]), 0, tool, "init");
        }
        expect(&run(&work, tool, &["plan", "-out=p"]), 0, tool, "plan");
        let apply = run(&work, tool, &["apply", "p"]);
        expect(&apply, 0, tool, "apply p");
        assert!(
            apply
                .stdout
                .contains("Apply complete! Resources: 1 added, 0 changed, 0 destroyed."),
            "{tool}: {}",
            apply.output()
        );
        // The same plan again: the state moved on.
        let again = run(&work, tool, &["apply", "p"]);
        expect(&again, 1, tool, "apply p twice");
        assert!(
            again.all().contains("Error: Saved plan is stale"),
            "{tool}: {}",
            again.output()
        );
    }
}

#[test]
fn a_saved_plan_keeps_its_variables() {
    for tool in tools() {
        let work = builtin_only(&format!("saved-vars-{tool}"));
        work.write("main.tf", VARIABLE_CONFIG);
        if tool == "terraform" {
            expect(&run(&work, tool, &["init"]), 0, tool, "init");
        }
        expect(
            &run(&work, tool, &["plan", "-out=p", "-var", "x=q"]),
            0,
            tool,
            "plan",
        );
        let other = run(&work, tool, &["apply", "-var", "x=z", "p"]);
        expect(&other, 1, tool, "apply -var x=z p");
        assert!(
            other
                .all()
                .contains("Error: Can't change variable when applying a saved plan")
                && other.all().contains("\"q\"")
                && other.all().contains("\"z\""),
            "{tool}: {}",
            other.output()
        );
        assert!(
            !work.path("terraform.tfstate").exists()
                || !String::from_utf8_lossy(&work.state_bytes()).contains("terraform_data"),
            "{tool}: nothing was applied"
        );
        // An environment variable is ignored with a warning; the plan's
        // value is what lands.
        let env = run_env(&work, tool, &["apply", "p"], &[("TF_VAR_x", "zz")]);
        expect(&env, 0, tool, "TF_VAR_x=zz apply p");
        assert!(
            env.all()
                .contains("Warning: Ignoring variable when applying a saved plan"),
            "{tool}: {}",
            env.output()
        );
        let state = work.state();
        assert_eq!(state["outputs"]["x"]["value"], "q", "{tool}");
    }
}

#[test]
fn a_saved_plan_applies_the_configuration_it_was_made_from() {
    for tool in tools() {
        let work = builtin_only(&format!("saved-config-{tool}"));
        work.write("main.tf", VARIABLE_CONFIG);
        if tool == "terraform" {
            expect(&run(&work, tool, &["init"]), 0, tool, "init");
        }
        expect(&run(&work, tool, &["plan", "-out=p"]), 0, tool, "plan");
        // Edited after planning: the plan still applies what it showed.
        work.write(
            "main.tf",
            &VARIABLE_CONFIG.replace("default = \"d\"", "default = \"e\""),
        );
        let shown = run(&work, tool, &["show", "-json", "p"]);
        expect(&shown, 0, tool, "show -json p");
        let document: serde_json::Value = serde_json::from_str(&shown.stdout)
            .unwrap_or_else(|e| panic!("{tool}: {e}\n{}", shown.output()));
        assert_eq!(
            document["configuration"]["root_module"]["variables"]["x"]["default"], "d",
            "{tool}: show -json describes the plan's own configuration"
        );
        expect(&run(&work, tool, &["apply", "p"]), 0, tool, "apply p");
        assert_eq!(work.state()["outputs"]["x"]["value"], "d", "{tool}");
    }
}

#[test]
fn a_plan_made_against_another_state_is_refused() {
    let work = builtin_only("saved-lineage");
    work.write("main.tf", VARIABLE_CONFIG);
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    work.terrace_ok(&["plan", "-out=p", "-var", "x=n"], 0);
    let state = work.state_bytes();
    // Another state with another lineage, as if the directory were reused.
    std::fs::remove_file(work.path("terraform.tfstate")).unwrap();
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    let run = work.terrace(&["apply", "p"]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(
        run.stderr
            .contains("Error: Saved plan does not match the given state"),
        "{}",
        run.output()
    );
    assert_ne!(work.state_bytes(), state);
}

const NULL_CONFIG: &str = r#"
terraform {
  required_providers {
    null = { source = "hashicorp/null" }
  }
}

resource "null_resource" "n" {}
"#;

/// Replaces the installed null provider with a program that records that
/// it ran.
fn tamper_with_null(work: &Work) -> std::path::PathBuf {
    let marker = work.path("tampered-provider-ran");
    let package = work
        .mirror()
        .join("registry.terraform.io/hashicorp/null")
        .join(env!("CARGO_PKG_VERSION"))
        .join("linux_amd64/terraform-provider-null");
    std::fs::remove_file(&package).unwrap();
    std::fs::write(
        &package,
        format!("#!/bin/sh\ntouch {}\nexit 1\n", marker.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&package, std::fs::Permissions::from_mode(0o755)).unwrap();
    marker
}

#[test]
fn a_provider_that_does_not_match_the_lock_file_never_runs() {
    for tool in tools() {
        let work = Work::with_mirror(&format!("tampered-{tool}"));
        work.write("main.tf", NULL_CONFIG);
        expect(&run(&work, tool, &["init"]), 0, tool, "init");
        expect(
            &run(&work, tool, &["apply", "-auto-approve"]),
            0,
            tool,
            "apply",
        );
        let marker = tamper_with_null(&work);
        for command in [
            &["plan"][..],
            &["apply", "-auto-approve"],
            &["destroy", "-auto-approve"],
        ] {
            let refused = run(&work, tool, command);
            expect(&refused, 1, tool, &command.join(" "));
            assert!(
                refused
                    .all()
                    .contains("Error: Required plugins are not installed")
                    && refused.all().contains(
                        "does not match any of the checksums recorded in the dependency lock file"
                    ),
                "{tool} {command:?}: {}",
                refused.output()
            );
        }
        assert!(!marker.exists(), "{tool} ran the tampered provider");
    }
}

#[test]
fn a_poisoned_plugin_cache_is_refused() {
    let work = Work::with_mirror("poisoned-cache");
    work.write("main.tf", NULL_CONFIG);
    let cache = work.path("plugin-cache");
    std::fs::create_dir_all(&cache).unwrap();
    let cache_env = cache.display().to_string();
    let env = [("TF_PLUGIN_CACHE_DIR", cache_env.as_str())];
    let init = work.terrace_env(&["init"], &env);
    assert_eq!(init.code, Some(0), "{}", init.output());
    let cached = cache
        .join("registry.terraform.io/hashicorp/null")
        .join(env!("CARGO_PKG_VERSION"))
        .join("linux_amd64/terraform-provider-null");
    assert!(cached.exists(), "init filled the plugin cache");
    let marker = work.path("poisoned-provider-ran");
    std::fs::remove_file(&cached).unwrap();
    std::fs::write(&cached, format!("#!/bin/sh\ntouch {}\n", marker.display())).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&cached, std::fs::Permissions::from_mode(0o755)).unwrap();
    let plan = work.terrace_env(&["plan"], &env);
    assert_eq!(plan.code, Some(1), "{}", plan.output());
    assert!(
        plan.stderr
            .contains("does not match any of the checksums recorded in the dependency lock file"),
        "{}",
        plan.output()
    );
    assert!(!marker.exists());
}

#[test]
fn a_backend_terrace_does_not_implement_is_refused_by_every_command() {
    let work = builtin_only("gcs-backend");
    work.write(
        "main.tf",
        "terraform {\n  backend \"gcs\" {\n    bucket = \"b\"\n    prefix = \"k\"\n  }\n}\n\nresource \"terraform_data\" \"d\" {}\n",
    );
    // What `terraform init` records for it.
    work.write(
        ".terraform/terraform.tfstate",
        "{\n  \"version\": 3,\n  \"terraform_version\": \"1.11.4\",\n  \"backend\": {\n    \"type\": \"gcs\",\n    \"config\": {\n      \"bucket\": \"b\",\n      \"prefix\": \"k\"\n    },\n    \"hash\": 1234\n  }\n}\n",
    );
    for command in [
        &["plan"][..],
        &["apply", "-auto-approve"],
        &["destroy", "-auto-approve"],
        &["refresh"],
        &["state", "list"],
        &["output"],
        &["show"],
        &["init"],
    ] {
        let run = work.terrace(command);
        assert_eq!(run.code, Some(1), "{command:?}:\n{}", run.output());
        assert!(
            run.all().contains("Unsupported backend type") && run.all().contains("\"gcs\""),
            "{command:?}:\n{}",
            run.output()
        );
    }
    assert!(
        !work.path("terraform.tfstate").exists(),
        "no local state was made"
    );
}

const LOCAL_PATH_BACKEND: &str =
    "terraform {\n  backend \"local\" {\n    path = \"state/x.tfstate\"\n  }\n}\n";

#[test]
fn the_local_backend_path_is_honoured_and_init_moves_state() {
    let work = builtin_only("local-path");
    work.write("main.tf", VARIABLE_CONFIG);
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    let before = work.state();

    // A backend block that `init` has not seen yet: nothing runs.
    work.write("backend.tf", LOCAL_PATH_BACKEND);
    let plan = work.terrace(&["plan"]);
    assert_eq!(plan.code, Some(1), "{}", plan.output());
    assert!(
        plan.stderr
            .contains("Backend initialization required, please run \"terrace init\""),
        "{}",
        plan.output()
    );

    // Without an answer, init does not move anything.
    let asked = work.terrace(&["init"]);
    assert_eq!(asked.code, Some(1), "{}", asked.output());
    assert!(asked
        .stdout
        .contains("Do you want to copy existing state to the new backend?"));
    assert!(!work.path("state/x.tfstate").exists());

    work.terrace_ok(&["init", "-force-copy"], 0);
    let moved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(work.path("state/x.tfstate")).unwrap()).unwrap();
    assert_eq!(moved["lineage"], before["lineage"]);
    assert_eq!(moved["serial"], before["serial"]);
    assert_eq!(std::fs::read(work.path("terraform.tfstate")).unwrap(), b"");
    assert!(work.path("terraform.tfstate.backup").exists());

    let plan = work.terrace(&["plan", "-detailed-exitcode"]);
    assert_eq!(plan.code, Some(0), "No changes: {}", plan.output());
    work.write(
        "main.tf",
        &VARIABLE_CONFIG.replace("default = \"d\"", "default = \"e\""),
    );
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    assert_eq!(std::fs::read(work.path("terraform.tfstate")).unwrap(), b"");
    let state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(work.path("state/x.tfstate")).unwrap()).unwrap();
    assert_eq!(state["outputs"]["x"]["value"], "e");
    let list = work.terrace_ok(&["state", "list"], 0);
    assert_eq!(list.stdout.trim(), "terraform_data.d");

    // Another path: `init` asks for -migrate-state or -reconfigure.
    work.write(
        "backend.tf",
        &LOCAL_PATH_BACKEND.replace("x.tfstate", "y.tfstate"),
    );
    let changed = work.terrace(&["init"]);
    assert_eq!(changed.code, Some(1), "{}", changed.output());
    assert!(changed
        .stderr
        .contains("Error: Backend configuration changed"));
    let migrated = work.terrace_ok(&["init", "-migrate-state", "-force-copy"], 0);
    assert!(
        migrated.stdout.contains("Backend configuration changed!"),
        "{}",
        migrated.output()
    );
    let y: serde_json::Value =
        serde_json::from_slice(&std::fs::read(work.path("state/y.tfstate")).unwrap()).unwrap();
    assert_eq!(y["lineage"], state["lineage"]);
    assert_eq!(y["serial"], state["serial"]);

    if have_terraform() {
        // terraform reads the same working directory the same way.
        let tf = work.terraform_ok(&["plan", "-detailed-exitcode"], 0);
        assert!(tf.stdout.contains("No changes."), "{}", tf.output());
    }
}

#[test]
fn validate_honours_development_overrides_as_terraform_does() {
    let work = Work::new(
        "validate-overrides",
        Overrides {
            bundled: true,
            aws: false,
        },
    );
    work.write("main.tf", NULL_CONFIG);
    let ours = work.terrace_ok(&["validate"], 0);
    assert!(
        ours.stdout
            .contains("Warning: Provider development overrides are in effect"),
        "{}",
        ours.output()
    );
    if have_terraform() {
        let theirs = work.terraform_ok(&["validate"], 0);
        // terraform lists the overrides in Go's random map order.
        let lines = |text: &str| {
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            lines.sort();
            lines
        };
        assert_eq!(lines(&ours.stdout), lines(&theirs.stdout));
    }
}

#[test]
fn ephemeral_variables_are_not_kept_in_a_saved_plan() {
    let config = r#"
variable "token" {
  type      = string
  ephemeral = true
}

resource "terraform_data" "d" {
  input = "x"
  provisioner "local-exec" {
    command = "test ${nonsensitive(length(var.token))} -gt 0"
  }
}
"#;
    for tool in tools() {
        let work = builtin_only(&format!("ephemeral-saved-{tool}"));
        work.write("main.tf", config);
        if tool == "terraform" {
            expect(&run(&work, tool, &["init"]), 0, tool, "init");
        }
        expect(
            &run(
                &work,
                tool,
                &["plan", "-out=p", "-var", "token=s3cr3t-value"],
            ),
            0,
            tool,
            "plan",
        );
        if tool == "terrace" {
            let saved = std::fs::read(work.path("p")).unwrap();
            assert!(
                !String::from_utf8_lossy(&saved).contains("s3cr3t-value"),
                "the plan file keeps no ephemeral value"
            );
        }
        let without = run(&work, tool, &["apply", "p"]);
        expect(&without, 1, tool, "apply p without the token");
        assert!(
            without.all().contains("No value for required variable")
                && without.all().contains(
                    "was set during the plan phase, and so\nmust also be set during the apply phase"
                ),
            "{tool}: {}",
            without.output()
        );
        let with = run(&work, tool, &["apply", "-var", "token=other", "p"]);
        expect(&with, 0, tool, "apply -var token=other p");
    }
}
