//! Ephemeral resources of the workspace's own `random` provider (built
//! with the SDK, served over the plugin protocol to both tools through
//! `dev_overrides`), side by side with terraform 1.11.4: the same
//! `Opening`/`Closing` lines in plan and apply, a password that reaches a
//! child module's ephemeral variable and no state, and the same
//! diagnostics where an ephemeral value would be stored or an ephemeral
//! resource type does not exist.

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};

const MAIN_TF: &str = r#"
terraform {
  required_providers {
    random = { source = "hashicorp/random" }
  }
}

ephemeral "random_password" "db" {
  length  = 18
  special = false
}

module "child" {
  source = "./child"
  secret = ephemeral.random_password.db.result
}

resource "terraform_data" "kept" {
  input = "not a secret"
}

output "child_saw" {
  value = module.child.saw
}
"#;

const CHILD_TF: &str = r#"
variable "secret" {
  type      = string
  ephemeral = true
}

output "saw" {
  value = ephemeralasnull(var.secret) == null ? "an ephemeral value" : "a stored value"
}
"#;

const STORED_TF: &str = r#"
resource "terraform_data" "stored" {
  input = ephemeral.random_password.db.result
}
"#;

const UNKNOWN_TYPE_TF: &str = r#"
ephemeral "random_nothing" "x" {
}
"#;

fn new_work(tool: &str) -> Work {
    let work = Work::new(
        &format!("ephemeral-random-{tool}"),
        Overrides {
            bundled: true,
            aws: false,
        },
    );
    work.write("main.tf", MAIN_TF);
    work.write("child/main.tf", CHILD_TF);
    work
}

fn ephemeral_lines(run: &Run) -> Vec<String> {
    let mut lines: Vec<String> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("ephemeral."))
        .map(|l| match l.rfind(" after ") {
            Some(i) => format!("{} after Ns", &l[..i]),
            None => l.to_string(),
        })
        .collect();
    lines.sort();
    lines
}

/// stderr from the first error on, trimmed.
fn errors(run: &Run) -> String {
    let text = run.stderr.trim_end();
    text.find("Error: ")
        .map(|i| text[i..].to_string())
        .unwrap_or_else(|| text.to_string())
}

#[test]
fn ephemeral_random_password_walks_as_in_terraform() {
    if !have_terraform() {
        return;
    }
    let terraform = new_work("terraform");
    let terrace = new_work("terrace");
    terraform.terraform_ok(&["get"], 0);

    let walk = [
        "ephemeral.random_password.db: Closing complete after Ns",
        "ephemeral.random_password.db: Closing...",
        "ephemeral.random_password.db: Opening complete after Ns",
        "ephemeral.random_password.db: Opening...",
    ];
    let plan = ["plan", "-no-color", "-input=false"];
    let tf_plan = terraform.terraform_ok(&plan, 0);
    let tr_plan = terrace.terrace_ok(&plan, 0);
    assert_eq!(ephemeral_lines(&tf_plan), walk, "{}", tf_plan.output());
    assert_eq!(ephemeral_lines(&tr_plan), walk, "{}", tr_plan.output());

    let apply = ["apply", "-auto-approve", "-no-color", "-input=false"];
    let tf_apply = terraform.terraform_ok(&apply, 0);
    let tr_apply = terrace.terrace_ok(&apply, 0);
    let mut twice: Vec<&str> = walk.iter().flat_map(|l| [*l, *l]).collect();
    twice.sort();
    assert_eq!(ephemeral_lines(&tf_apply), twice, "{}", tf_apply.output());
    assert_eq!(ephemeral_lines(&tr_apply), twice, "{}", tr_apply.output());
    for run in [&tf_apply, &tr_apply] {
        assert!(
            run.stdout.contains("child_saw = \"an ephemeral value\""),
            "{}",
            run.output()
        );
    }
    let state = terrace.state();
    let kept: Vec<String> = state["resources"]
        .as_array()
        .map(|rs| {
            rs.iter()
                .map(|r| {
                    format!(
                        "{}.{}",
                        r["type"].as_str().unwrap_or_default(),
                        r["name"].as_str().unwrap_or_default()
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(kept, vec!["terraform_data.kept".to_string()]);

    // Where the state would keep it: refused alike, nothing changed.
    let before = terrace.state_bytes();
    terraform.write("stored.tf", STORED_TF);
    terrace.write("stored.tf", STORED_TF);
    let tf_refused = terraform.terraform_ok(&plan, 1);
    let tr_refused = terrace.terrace_ok(&plan, 1);
    assert_eq!(errors(&tr_refused), errors(&tf_refused));
    assert!(
        errors(&tr_refused).contains("Ephemeral"),
        "{}",
        tr_refused.output()
    );
    assert_eq!(terrace.state_bytes(), before);
    terraform.write("stored.tf", "");
    terrace.write("stored.tf", "");

    // A type the provider does not have: validate says so alike.
    terraform.write("unknown.tf", UNKNOWN_TYPE_TF);
    terrace.write("unknown.tf", UNKNOWN_TYPE_TF);
    let validate = ["validate", "-no-color"];
    let tf_invalid = terraform.terraform_ok(&validate, 1);
    let tr_invalid = terrace.terrace_ok(&validate, 1);
    assert_eq!(errors(&tr_invalid), errors(&tf_invalid));
    assert!(
        errors(&tr_invalid).starts_with("Error: Invalid ephemeral resource"),
        "{}",
        tr_invalid.output()
    );
}
