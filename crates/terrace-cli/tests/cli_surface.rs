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
        // terraform lists sibling modules in Go's random map order, so
        // the trees are compared as sets of lines, with the glyph that
        // marks the last sibling taken as any other.
        let lines = |text: &str| {
            let mut lines: Vec<String> = text
                .lines()
                .map(|l| l.replace('\u{2514}', "\u{251c}"))
                .collect();
            lines.sort();
            lines
        };
        assert_eq!(lines(&w.terraform_ok(&["modules"], 0).stdout), lines(&tree));
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

/// Shell completion: the shell runs terrace with the command line in
/// `COMP_LINE` and gets the next words; `-install-autocomplete` hooks it
/// into the rc files that exist, once, and `-uninstall-autocomplete`
/// takes it out.
#[test]
fn shell_completion_installs_and_answers() {
    let w = work("completion");
    w.terrace_ok(&["workspace", "new", "staging"], 0);
    let complete = |line: &str| {
        w.terrace_env(&[], &[("COMP_LINE", line)])
            .stdout
            .lines()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    // `terrace_env` appends -no-color: the shell's own words are in
    // COMP_LINE, whatever the arguments are.
    assert_eq!(complete("terrace pla"), vec!["plan"]);
    assert_eq!(complete("terrace state r"), vec!["replace-provider", "rm"]);
    assert_eq!(
        complete("terrace workspace select "),
        vec!["default", "staging"]
    );
    assert!(complete("terrace apply -").contains(&"-auto-approve".to_string()));

    let home = w.path("home");
    std::fs::create_dir_all(&home).unwrap_or_else(|e| panic!("{e}"));
    let bashrc = home.join(".bashrc");
    std::fs::write(&bashrc, "export A=1\n").unwrap_or_else(|e| panic!("{e}"));
    let home_text = home.display().to_string();
    let env = [("HOME", home_text.as_str())];
    let run = w.terrace_env(&["-install-autocomplete"], &env);
    assert_eq!(run.code, Some(0), "{}", run.output());
    let text = std::fs::read_to_string(&bashrc).unwrap_or_default();
    let hook = format!("complete -C {} terrace", env!("CARGO_BIN_EXE_terrace"));
    assert_eq!(text, format!("export A=1\n\n{hook}\n"));
    assert!(
        !home.join(".zshrc").exists(),
        "a shell the user does not have is left alone"
    );
    let again = w.terrace_env(&["-install-autocomplete"], &env);
    assert_eq!(again.code, Some(1), "{}", again.output());
    assert!(
        again.stderr.contains("already installed in"),
        "{}",
        again.output()
    );
    let run = w.terrace_env(&["-uninstall-autocomplete"], &env);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert_eq!(
        std::fs::read_to_string(&bashrc).unwrap_or_default(),
        "export A=1\n"
    );
    let printed = w.terrace_ok(&["completions", "bash"], 0);
    assert_eq!(printed.stdout.trim_end(), hook);
}

/// `TF_LOG` and its companions switch terrace's own log on, in hclog's
/// layout, on stderr or in `TF_LOG_PATH`; no value of the configuration
/// (here a sensitive variable given on the command line and in the
/// environment) ever reaches it.
#[test]
fn core_log_follows_tf_log_and_never_holds_values() {
    let w = work("core-log");
    w.write(
        "main.tf",
        r#"
variable "password" {
  type      = string
  sensitive = true
}

resource "terraform_data" "x" {
  input = var.password
}
"#,
    );
    let secret = "hunter2-s3cret";
    let log_lines = |text: &str| {
        text.lines()
            .filter(|l| {
                l.contains(" [INFO]  ") || l.contains(" [DEBUG] ") || l.contains(" [TRACE] ")
            })
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let var = format!("password={secret}");
    let plan = w.terrace_env(
        &["plan", "-var", &var],
        &[("TF_LOG", "TRACE"), ("TF_VAR_password", secret)],
    );
    assert_eq!(plan.code, Some(0), "{}", plan.output());
    let lines = log_lines(&plan.stderr);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("[INFO]  terrace version: ")),
        "{}",
        plan.output()
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("[DEBUG] planned change: address=terraform_data.x action=Create")),
        "{}",
        plan.output()
    );
    assert!(!plan.all().contains(secret), "{}", plan.output());

    // Nothing without TF_LOG, nor with the core log switched off.
    let quiet = w.terrace_env(&["plan", "-var", &var], &[]);
    assert!(log_lines(&quiet.stderr).is_empty(), "{}", quiet.output());
    let core_off = w.terrace_env(
        &["plan", "-var", &var],
        &[("TF_LOG", "TRACE"), ("TF_LOG_CORE", "off")],
    );
    assert!(
        log_lines(&core_off.stderr).is_empty(),
        "{}",
        core_off.output()
    );

    // TF_LOG_PATH: the lines go to the file, appended, not to stderr.
    let path = w.path("terrace.log");
    let path_text = path.display().to_string();
    for _ in 0..2 {
        let run = w.terrace_env(
            &["plan", "-var", &var],
            &[("TF_LOG", "INFO"), ("TF_LOG_PATH", path_text.as_str())],
        );
        assert!(log_lines(&run.stderr).is_empty(), "{}", run.output());
    }
    let file = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        file.matches("[INFO]  terrace version: ").count(),
        2,
        "{file}"
    );
    assert!(!file.contains("[DEBUG]"), "INFO leaves DEBUG out\n{file}");
    assert!(!file.contains(secret), "{file}");

    // TF_LOG=JSON: one JSON object per line.
    let json = w.terrace_env(&["plan", "-var", &var], &[("TF_LOG", "JSON")]);
    let objects: Vec<serde_json::Value> = json
        .stderr
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert!(
        objects
            .iter()
            .any(|o| o["@message"] == "planned change" && o["address"] == "terraform_data.x"),
        "{}",
        json.output()
    );
}

/// A signature as compared across the tools: the document's text for it
/// without the `description` fields, which are each tool's own prose.
fn signature_without_descriptions(signature: &serde_json::Value) -> String {
    fn strip(value: &serde_json::Value) -> serde_json::Value {
        match value {
            serde_json::Value::Object(map) => serde_json::Value::Object(
                map.iter()
                    .filter(|(key, _)| key.as_str() != "description")
                    .map(|(key, value)| (key.clone(), strip(value)))
                    .collect(),
            ),
            serde_json::Value::Array(items) => {
                serde_json::Value::Array(items.iter().map(strip).collect())
            }
            other => other.clone(),
        }
    }
    serde_json::to_string(&strip(signature)).expect("JSON text")
}

#[test]
fn metadata_functions_describes_the_functions_the_language_has() {
    let work = work("metadata-functions");
    let ours = work.terrace_ok(&["metadata", "functions", "-json"], 0);
    assert_eq!(ours.stdout.lines().count(), 1, "one line of JSON");
    assert!(
        ours.stdout
            .starts_with(r#"{"format_version":"1.0","function_signatures":{"#),
        "{}",
        ours.output()
    );
    let doc: serde_json::Value = serde_json::from_str(&ours.stdout).expect("JSON");
    let ours_by_name = doc["function_signatures"].as_object().expect("signatures");
    let names: Vec<&String> = ours_by_name.keys().collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "names in byte order, as Go writes a map");
    for (name, signature) in ours_by_name {
        let description = signature["description"].as_str().unwrap_or_default();
        assert!(!description.is_empty(), "{name} has no description");
        let base = name.strip_prefix("core::").unwrap_or(name);
        assert_eq!(
            signature, &ours_by_name[base],
            "{name} is described as {base} is"
        );
    }

    // Every function the document names must be callable: a configuration
    // calling each of them with no arguments gets argument-count errors,
    // never "Call to unknown function" (which the name that is no function
    // shows the check can see).
    let mut calls = String::from("locals {\n  not_a_function = notafunction()\n");
    for (index, name) in ours_by_name.keys().enumerate() {
        calls.push_str(&format!("  call_{index} = {name}()\n"));
    }
    calls.push_str("}\n");
    work.write("main.tf", &calls);
    let validate = work.terrace(&["validate", "-json"]);
    let report: serde_json::Value = serde_json::from_str(&validate.stdout).expect("JSON");
    let unknown: Vec<String> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["summary"] == "Call to unknown function")
        .map(|d| {
            d["snippet"]["code"]
                .as_str()
                .unwrap_or_default()
                .trim()
                .to_string()
        })
        .collect();
    assert_eq!(
        unknown,
        vec!["not_a_function = notafunction()".to_string()],
        "{}",
        validate.output()
    );

    // Unknown flags and a missing -json as terraform answers them.
    let plain = work.terrace(&["metadata", "functions", "-no-color"]);
    assert_eq!(plain.code, Some(1));
    assert_eq!(
        plain.stderr,
        "The `terrace metadata functions` command requires the `-json` flag.\n\n\n\
         Usage: terrace [global options] metadata functions -json\n\n  \
         Prints out a json representation of the available function signatures.\n\n"
    );
    let help = work.terrace_ok(&["metadata", "functions", "-help"], 0);
    assert!(help
        .stdout
        .contains("Usage: terrace [global options] metadata functions -json"));

    if !have_terraform() {
        return;
    }
    let theirs = work.terraform_ok(&["metadata", "functions", "-json"], 0);
    let doc: serde_json::Value = serde_json::from_str(&theirs.stdout).expect("JSON");
    let theirs_by_name = doc["function_signatures"].as_object().expect("signatures");
    let only_terraform: Vec<&String> = theirs_by_name
        .keys()
        .filter(|name| !ours_by_name.contains_key(*name))
        .collect();
    let only_terrace: Vec<&String> = ours_by_name
        .keys()
        .filter(|name| !theirs_by_name.contains_key(*name))
        .collect();
    eprintln!("functions terraform has and terrace lacks: {only_terraform:?}");
    eprintln!("functions terrace has beyond terraform: {only_terrace:?}");
    assert!(
        only_terraform.is_empty(),
        "terrace lacks {only_terraform:?}"
    );
    let mut differing = Vec::new();
    for (name, theirs) in theirs_by_name {
        let Some(ours) = ours_by_name.get(name) else {
            continue;
        };
        let (ours, theirs) = (
            signature_without_descriptions(ours),
            signature_without_descriptions(theirs),
        );
        if ours != theirs {
            differing.push(format!(
                "{name}:\n  terrace:   {ours}\n  terraform: {theirs}"
            ));
        }
    }
    assert!(differing.is_empty(), "{}", differing.join("\n"));
    let plain_theirs = work.terraform(&["metadata", "functions", "-no-color"]);
    assert_eq!(plain_theirs.code, Some(1));
    assert_eq!(
        plain.stderr.replace("terrace", "terraform"),
        plain_theirs.stderr
    );
}

/// The configuration file `plan -generate-config-out` wrote, each
/// generated block with its comment as one item, sorted: terraform writes
/// them in the order its imports finish.
fn generated_blocks(text: &str) -> (String, Vec<String>) {
    let mut parts = text.split("\n# __generated__ by ");
    let header = parts.next().unwrap_or_default().to_string();
    let mut blocks: Vec<String> = parts.map(str::to_string).collect();
    blocks.sort();
    (header, blocks)
}

#[test]
fn plan_generates_configuration_for_import_blocks_without_a_resource() {
    let mut results = Vec::new();
    let mut tools = vec!["terrace"];
    if have_terraform() {
        tools.push("terraform");
    }
    for tool in tools {
        let w = Work::new(
            &format!("generate-config-{tool}"),
            Overrides {
                bundled: true,
                aws: false,
            },
        );
        let store = w.dir.join("store/ns");
        std::fs::create_dir_all(&store).unwrap();
        std::fs::write(store.join("greeting"), "hello \"world\"\nline2 ${x}").unwrap();
        std::fs::write(
            store.join("greeting.tags"),
            r#"{"env":"dev","team name":"a b"}"#,
        )
        .unwrap();
        std::fs::write(store.join("plain"), r#"{"json":[1,2]}"#).unwrap();
        w.write(
            "main.tf",
            "terraform {\n  required_providers {\n    kv = { source = \"terrace/kv\" }\n  }\n}\n\nprovider \"kv\" {\n  directory = \"store\"\n  namespace = \"ns\"\n}\n\nimport {\n  to = kv_entry.greeting\n  id = \"ns/greeting\"\n}\n\nimport {\n  to = kv_entry.plain\n  id = \"ns/plain\"\n}\n",
        );
        let plan = |args: &[&str]| {
            let mut all = vec!["plan", "-no-color"];
            all.extend_from_slice(args);
            let env = [("TF_IN_AUTOMATION", "")];
            match tool {
                "terrace" => w.terrace_env(&all, &env),
                _ => w.terraform_env(&all, &env),
            }
        };
        // From the summary on; runs of blank lines count as one (terrace
        // prints one blank line too many between warnings shown after a
        // plan and the rule before the footer).
        let tail = |text: &str| -> String {
            let mut out = String::new();
            for line in text.lines().skip_while(|l| !l.starts_with("Plan:")) {
                if line.is_empty() && out.ends_with("\n\n") {
                    continue;
                }
                out.push_str(line);
                out.push('\n');
            }
            terrace_testsupport::product::as_terrace(&out)
        };
        let generated = plan(&["-detailed-exitcode", "-generate-config-out=generated.tf"]);
        assert_eq!(generated.code, Some(2), "{tool}: {}", generated.output());
        assert_eq!(
            generated
                .stdout
                .matches("  # (config will be generated)\n")
                .count(),
            2,
            "{tool}: {}",
            generated.output()
        );
        let file = std::fs::read_to_string(w.dir.join("generated.tf")).expect("generated.tf");
        // Written once: the file is not overwritten.
        let again = plan(&["-generate-config-out=generated.tf"]);
        assert_eq!(again.code, Some(1), "{tool}: {}", again.output());
        let refusal = again
            .stderr
            .replace("Terraform", "terrace")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            refusal.contains("Error: Target generated file already exists terrace can only write generated config into a new file."),
            "{tool}: {refusal}"
        );
        // The generated configuration plans the imports and nothing else,
        // and an import alone is a change for -detailed-exitcode.
        let planned = plan(&["-detailed-exitcode"]);
        assert_eq!(planned.code, Some(2), "{tool}: {}", planned.output());
        assert!(
            planned
                .stdout
                .contains("Plan: 2 to import, 0 to add, 0 to change, 0 to destroy."),
            "{tool}: {}",
            planned.output()
        );
        results.push((
            generated_blocks(&file.replace("Terraform", "terrace")),
            tail(&generated.stdout),
            tail(&planned.stdout),
        ));
    }
    let (blocks, _, _) = &results[0];
    assert_eq!(
        blocks.0,
        "# __generated__ by terrace\n# Please review these resources and move them into your main configuration files.\n"
    );
    assert!(
        blocks
            .1
            .iter()
            .any(|b| b.contains("  value = jsonencode({\n    json = [1, 2]\n  })\n")),
        "{blocks:?}"
    );
    if let [ours, theirs] = results.as_slice() {
        assert_eq!(ours.0, theirs.0, "the generated file");
        assert_eq!(ours.1, theirs.1, "the plan's end");
        assert_eq!(ours.2, theirs.2, "the plan of the generated configuration");
    }
}

/// `plan -generate-config-out` generates only single-instance resources
/// of the root module; an import into a child module's resource, into an
/// instance key, or with `for_each` is refused with terraform's error,
/// and no file is written.
#[test]
fn generate_config_out_refuses_what_terraform_cannot_generate() {
    let cases = [
        (
            "child",
            "module \"m\" {\n  source = \"./m\"\n}\n\nimport {\n  to = module.m.kv_entry.greeting\n  id = \"ns/greeting\"\n}\n",
            "Resource module.m.kv_entry.greeting not found. Only resources within the root module are eligible for config generation.",
        ),
        (
            "keyed",
            "import {\n  to = kv_entry.c[0]\n  id = \"ns/greeting\"\n}\n",
            "The given import block is not compatible with config generation. The -generate-config-out option cannot be used with import blocks which use for_each, or resources which use for_each or count.",
        ),
        (
            "for-each",
            "import {\n  for_each = toset([\"greeting\", \"plain\"])\n  to       = kv_entry.e[each.key]\n  id       = \"ns/${each.key}\"\n}\n",
            "Error: Invalid import 'to' expression on main.tf line 14, in import: 14: to = kv_entry.e[each.key] The target resource does not use for_each.",
        ),
    ];
    let mut tools = vec!["terrace"];
    if have_terraform() {
        tools.push("terraform");
    }
    let mut said: Vec<Vec<String>> = Vec::new();
    for tool in &tools {
        let mut ours = Vec::new();
        for (name, blocks, expected) in cases {
            let w = Work::new(
                &format!("generate-refused-{tool}-{name}"),
                Overrides {
                    bundled: true,
                    aws: false,
                },
            );
            std::fs::create_dir_all(w.dir.join("store/ns")).unwrap();
            std::fs::write(w.dir.join("store/ns/greeting"), "hello").unwrap();
            std::fs::write(w.dir.join("store/ns/plain"), "x").unwrap();
            let kv = "terraform {\n  required_providers {\n    kv = { source = \"terrace/kv\" }\n  }\n}\n";
            w.write("m/main.tf", kv);
            w.write(
                "main.tf",
                &format!("{kv}\nprovider \"kv\" {{\n  directory = \"store\"\n  namespace = \"ns\"\n}}\n\n{blocks}"),
            );
            let run = |args: &[&str]| match *tool {
                "terrace" => w.terrace_env(args, &[]),
                _ => w.terraform_env(args, &[]),
            };
            // Modules only: with the bundled providers as development
            // overrides, init's provider step has nothing to install.
            let get = run(&["get", "-no-color"]);
            assert_eq!(get.code, Some(0), "{tool} {name}: {}", get.output());
            let plan = run(&["plan", "-no-color", "-generate-config-out=generated.tf"]);
            assert_eq!(plan.code, Some(1), "{tool} {name}: {}", plan.output());
            let stderr = plan.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(stderr.contains(expected), "{tool} {name}: {stderr}");
            assert_eq!(
                stderr.matches("Error: ").count(),
                1,
                "{tool} {name}: {stderr}"
            );
            assert!(!w.dir.join("generated.tf").exists(), "{tool} {name}");
            ours.push(stderr);
        }
        said.push(ours);
    }
    if let [ours, theirs] = said.as_slice() {
        assert_eq!(ours, theirs);
    }
}
