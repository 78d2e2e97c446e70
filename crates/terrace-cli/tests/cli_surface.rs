//! The command line around the commands, beside terraform 1.11.4:
//! `TF_CLI_ARGS` and `TF_CLI_ARGS_<command>`, `-help` on the operation
//! commands, "Did you mean" for a mistyped command, `version -json`, and
//! `TF_IN_AUTOMATION` leaving out the next-step hints.

mod engine_support;

use engine_support::{have_terraform, Overrides, Work};

fn work(name: &str) -> Work {
    let work = Work::new(
        name,
        Overrides {
            bundled: false,
            aws: false,
        },
    );
    work.write("main.tf", "resource \"terraform_data\" \"d\" {}\n");
    work
}

#[test]
fn extra_arguments_come_from_the_environment() {
    let mut tools = vec!["terrace"];
    if have_terraform() {
        tools.push("terraform");
    }
    for tool in tools {
        let work = work(&format!("cli-args-{tool}"));
        let env = [("TF_CLI_ARGS_apply", "-auto-approve -parallelism=2")];
        let run = match tool {
            "terrace" => work.terrace_env(&["apply"], &env),
            _ => {
                work.terraform_ok(&["init"], 0);
                work.terraform_env(&["apply"], &env)
            }
        };
        assert_eq!(run.code, Some(0), "{tool}: {}", run.output());
        assert!(run.stdout.contains("Apply complete!"), "{tool}");
        // For every command, and split as a shell splits.
        let run = match tool {
            "terrace" => work.terrace_env(&["plan"], &[("TF_CLI_ARGS", "-var 'x=a b'")]),
            _ => work.terraform_env(&["plan"], &[("TF_CLI_ARGS", "-var 'x=a b'")]),
        };
        assert_eq!(run.code, Some(1), "{tool}: {}", run.output());
        assert!(
            run.stderr.contains("Value for undeclared variable"),
            "{tool}: {}",
            run.output()
        );
    }
}

#[test]
fn a_mistyped_command_gets_a_suggestion() {
    let work = work("did-you-mean");
    let ours = work.terrace(&["pla"]);
    assert_eq!(ours.code, Some(1));
    assert!(
        ours.stderr
            .starts_with("terrace has no command named \"pla\". Did you mean \"plan\"?"),
        "{}",
        ours.output()
    );
    if have_terraform() {
        let theirs = work.terraform(&["pla"]);
        assert_eq!(theirs.code, Some(1));
        assert!(theirs.stderr.contains("Did you mean \"plan\"?"));
    }
}

#[test]
fn operation_commands_have_help() {
    let work = work("help");
    for command in ["plan", "apply", "destroy", "refresh", "import"] {
        let run = work.terrace(&[command, "-help"]);
        assert_eq!(run.code, Some(0), "{command}: {}", run.output());
        assert!(
            run.stdout
                .starts_with(&format!("Usage: terrace [global options] {command}")),
            "{command}: {}",
            run.output()
        );
    }
}

#[test]
fn version_has_a_json_form() {
    let work = work("version");
    let run = work.terrace_ok(&["version", "-json"], 0);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(doc["terraform_version"], "1.11.4");
    assert!(doc["terrace_version"].is_string());
    assert!(doc["platform"].is_string());
    assert!(doc["provider_selections"].is_object());
}

#[test]
fn automation_leaves_out_the_next_step_hints() {
    let work = work("automation");
    // The harness runs every command with TF_IN_AUTOMATION set.
    let quiet = work.terrace_ok(&["plan"], 0);
    assert!(!quiet
        .stdout
        .contains("Note: You didn't use the -out option"));
    let chatty = work.terrace_env(&["plan"], &[("TF_IN_AUTOMATION", "")]);
    assert!(
        chatty
            .stdout
            .contains("Note: You didn't use the -out option"),
        "{}",
        chatty.output()
    );
}

#[test]
fn compact_warnings_list_summaries_only() {
    let work = work("compact-warnings");
    work.write("terraform.tfvars", "nope = 1\nnope2 = 2\nnope3 = 3\n");
    let ours = work.terrace_ok(&["plan", "-compact-warnings"], 0);
    let tail = |text: &str| {
        text.lines()
            .skip_while(|l| *l != "Warnings:")
            .take_while(|l| !l.starts_with("To see"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert!(!tail(&ours.stdout).is_empty(), "{}", ours.output());
    if have_terraform() {
        work.terraform_ok(&["init"], 0);
        let theirs = work.terraform_ok(&["plan", "-compact-warnings"], 0);
        assert_eq!(tail(&ours.stdout), tail(&theirs.stdout));
    }
}

#[test]
fn a_reader_that_goes_away_is_no_crash() {
    let work = work("closed-pipe");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_terrace"))
        .args(["plan", "-no-color"])
        .current_dir(&work.dir)
        .env("TF_CLI_CONFIG_FILE", work.dir.with_extension("tfrc"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("terrace");
    // Nobody reads what it prints.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("waiting");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn force_unlock_of_a_local_state_says_why_it_cannot() {
    let work = work("force-unlock");
    let mut runs = vec![("terrace", work.terrace(&["force-unlock", "-force", "abc"]))];
    let mut asked = vec![("terrace", work.terrace(&["force-unlock", "abc"]))];
    let mut usage = vec![("terrace", work.terrace(&["force-unlock"]))];
    if have_terraform() {
        runs.push((
            "terraform",
            work.terraform(&["force-unlock", "-force", "abc"]),
        ));
        asked.push(("terraform", work.terraform(&["force-unlock", "abc"])));
        usage.push(("terraform", work.terraform(&["force-unlock"])));
    }
    for (tool, run) in runs {
        assert_eq!(run.code, Some(1), "{tool}");
        assert!(
            run.stderr
                .contains("Failed to unlock state: LocalState not locked"),
            "{tool}: {}",
            run.output()
        );
    }
    for (tool, run) in asked {
        assert_eq!(run.code, Some(1), "{tool}");
        assert!(
            run.stderr
                .contains("Local state cannot be unlocked by another process"),
            "{tool}: {}",
            run.output()
        );
    }
    for (tool, run) in usage {
        assert_eq!(run.code, Some(1), "{tool}");
        assert!(
            run.stderr.contains("Expected a single argument: LOCK_ID"),
            "{tool}: {}",
            run.output()
        );
    }
}

#[test]
fn console_sees_the_resources_in_the_state() {
    let work = work("console-state");
    work.write(
        "main.tf",
        r#"
variable "s" {
  default   = "hidden"
  sensitive = true
}
resource "terraform_data" "a" { input = "hello" }
resource "terraform_data" "c" {
  count = 2
  input = count.index
}
resource "terraform_data" "f" {
  for_each = toset(["x"])
  input    = var.s
}
"#,
    );
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    let console = |program: &str, line: &str| {
        let mut child = std::process::Command::new(program)
            .arg("console")
            .current_dir(&work.dir)
            .env("TF_CLI_CONFIG_FILE", work.dir.with_extension("tfrc"))
            .env("CHECKPOINT_DISABLE", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("console");
        use std::io::Write as _;
        let mut stdin = child.stdin.take().expect("stdin");
        let _ = writeln!(stdin, "{line}");
        drop(stdin);
        let out = child.wait_with_output().expect("console");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let lines = [
        ("terraform_data.a.output", "\"hello\"\n"),
        ("terraform_data.c[1].input", "1\n"),
        ("terraform_data.f[\"x\"].input", "(sensitive value)\n"),
        ("length(terraform_data.c)", "2\n"),
    ];
    for (line, want) in lines {
        assert_eq!(console(env!("CARGO_BIN_EXE_terrace"), line), want, "{line}");
    }
    if have_terraform() {
        for (line, _) in lines {
            assert_eq!(
                console(env!("CARGO_BIN_EXE_terrace"), line),
                console("terraform", line),
                "{line}"
            );
        }
    }
}

#[test]
fn prevent_destroy_and_forgetting_read_as_terraform_words_them() {
    let mut tools = vec!["terrace"];
    if have_terraform() {
        tools.push("terraform");
    }
    for tool in tools {
        let w = work(&format!("lifecycle-{tool}"));
        let run = |args: &[&str]| match tool {
            "terrace" => w.terrace(args),
            _ => w.terraform(args),
        };
        w.write(
            "main.tf",
            "resource \"terraform_data\" \"a\" {\n  lifecycle {\n    prevent_destroy = true\n  }\n}\n",
        );
        if tool == "terraform" {
            assert_eq!(run(&["init"]).code, Some(0));
        }
        assert_eq!(run(&["apply", "-auto-approve"]).code, Some(0));
        let refused = run(&["destroy", "-auto-approve"]);
        assert_eq!(refused.code, Some(1), "{tool}");
        assert!(
            refused
                .stderr
                .contains("Error: Instance cannot be destroyed")
                && refused
                    .stderr
                    .contains("Resource terraform_data.a has lifecycle.prevent_destroy set"),
            "{tool}: {}",
            refused.output()
        );
        w.write(
            "main.tf",
            "removed {\n  from = terraform_data.a\n  lifecycle {\n    destroy = false\n  }\n}\n",
        );
        assert_eq!(run(&["plan", "-out=p"]).code, Some(0), "{tool}");
        let shown = run(&["show", "-json", "p"]);
        let doc: serde_json::Value = serde_json::from_str(&shown.stdout).expect("JSON");
        let change = &doc["resource_changes"][0];
        assert_eq!(change["change"]["actions"][0], "forget", "{tool}");
        assert_eq!(
            change["action_reason"], "delete_because_no_resource_config",
            "{tool}"
        );
    }
}

#[test]
fn import_blocks_are_reported_as_terraform_reports_them() {
    let mut outputs = Vec::new();
    let mut tools = vec!["terrace"];
    if have_terraform() {
        tools.push("terraform");
    }
    for tool in tools {
        let w = work(&format!("import-lines-{tool}"));
        w.write(
            "main.tf",
            "import {\n  to = terraform_data.a\n  id = \"abc\"\n}\nresource \"terraform_data\" \"a\" {\n  input = \"x\"\n}\n",
        );
        let run = match tool {
            "terrace" => w.terrace(&["apply", "-auto-approve"]),
            _ => {
                w.terraform_ok(&["init"], 0);
                w.terraform(&["apply", "-auto-approve"])
            }
        };
        assert_eq!(run.code, Some(0), "{tool}: {}", run.output());
        let tail: String = run
            .stdout
            .lines()
            .skip_while(|l| !l.starts_with("Plan:"))
            .filter(|l| !l.contains("complete after"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(
            tail.contains("terraform_data.a: Importing... [id=abc]\nterraform_data.a: Import complete [id=abc]\n"),
            "{tool}: {tail}"
        );
        assert!(
            tail.contains("Resources: 1 imported, 0 added, 1 changed, 0 destroyed."),
            "{tool}: {tail}"
        );
        outputs.push(tail);
    }
    if outputs.len() == 2 {
        assert_eq!(outputs[0], outputs[1]);
    }
}

#[test]
fn get_and_modules_answer_as_terraform_does() {
    let w = work("modules");
    w.write(
        "main.tf",
        "module \"a\" { source = \"./a\" }\nmodule \"d\" { source = \"./b\" }\n",
    );
    w.write(
        "a/main.tf",
        "module \"b\" { source = \"../b\" }\nmodule \"c\" { source = \"../b\" }\n",
    );
    w.write("b/main.tf", "output \"o\" { value = 1 }\n");
    let get = w.terrace_ok(&["get"], 0);
    assert!(get.stdout.contains("- a in a"), "{}", get.output());
    let manifest = std::fs::read_to_string(w.path(".terraform/modules/modules.json")).unwrap();
    let tree = w.terrace_ok(&["modules"], 0).stdout;
    let json = w.terrace_ok(&["modules", "-json"], 0).stdout;
    assert!(
        tree.contains("\u{251c}\u{2500}\u{2500} \"a\"[./a]\n\u{2502}\u{a0}\u{a0} \u{251c}\u{2500}\u{2500} \"b\"[../b]"),
        "{tree}"
    );
    if have_terraform() {
        std::fs::remove_dir_all(w.path(".terraform")).unwrap();
        w.terraform_ok(&["get"], 0);
        assert_eq!(
            std::fs::read_to_string(w.path(".terraform/modules/modules.json")).unwrap(),
            manifest
        );
        assert_eq!(w.terraform_ok(&["modules"], 0).stdout, tree);
        // terraform lists them in Go's random map order.
        let sorted = |text: &str| {
            let doc: serde_json::Value = serde_json::from_str(text).expect("JSON");
            let mut modules: Vec<String> = doc["modules"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|m| m.to_string())
                .collect();
            modules.sort();
            modules
        };
        assert_eq!(
            sorted(&w.terraform_ok(&["modules", "-json"], 0).stdout),
            sorted(&json)
        );
    }
}

#[test]
fn state_replace_provider_rewrites_the_state_as_terraform_does() {
    let mut tools = vec!["terrace"];
    if have_terraform() {
        tools.push("terraform");
    }
    let mut outputs = Vec::new();
    for tool in tools {
        let w = work(&format!("replace-provider-{tool}"));
        w.write(
            "main.tf",
            "resource \"terraform_data\" \"a\" {}\nresource \"terraform_data\" \"b\" {}\n",
        );
        let run = |args: &[&str]| match tool {
            "terrace" => w.terrace(args),
            _ => w.terraform(args),
        };
        if tool == "terraform" {
            assert_eq!(run(&["init"]).code, Some(0));
        }
        assert_eq!(run(&["apply", "-auto-approve"]).code, Some(0));
        let replaced = run(&[
            "state",
            "replace-provider",
            "-auto-approve",
            "terraform.io/builtin/terraform",
            "registry.terraform.io/acme/terraform",
        ]);
        assert_eq!(replaced.code, Some(0), "{tool}: {}", replaced.output());
        let state = w.state();
        for r in state["resources"].as_array().into_iter().flatten() {
            assert_eq!(
                r["provider"], "provider[\"registry.terraform.io/acme/terraform\"]",
                "{tool}"
            );
        }
        assert!(w.path("terraform.tfstate").exists());
        let none = run(&[
            "state",
            "replace-provider",
            "-auto-approve",
            "hashicorp/nope",
            "hashicorp/other",
        ]);
        assert!(
            none.stdout.contains("No matching resources found."),
            "{tool}"
        );
        let mut text = replaced.stdout.replace("Terraform will", "terrace will");
        // terraform lists the resources in Go's random map order.
        let mut lines: Vec<&str> = text.lines().collect();
        lines.sort();
        text = lines.join("\n");
        outputs.push(text);
    }
    if outputs.len() == 2 {
        assert_eq!(outputs[0], outputs[1]);
    }
}
