//! Ephemeral resources with the real AWS provider against `moto_server`,
//! side by side with terraform 1.11.4: two generated passwords (an
//! ephemeral `aws_secretsmanager_random_password` with `for_each`) reach
//! write-only arguments of SSM parameters through a local value, and a
//! child module through an ephemeral input variable. Each tool works in
//! its own directory and parameter prefix on the same moto.
//!
//! Shown for both tools alike: the `Opening`/`Closing` lines of plan and
//! apply (and their `-json` messages), each instance opened once per walk
//! and closed after its users; nothing ephemeral in the state (no resource
//! entry, no password anywhere in the file) while objects still record
//! their dependency on the ephemeral resource; the passwords landing in
//! moto; "No changes" on the next plan; and the refusal of an ephemeral
//! value in an argument that is stored.

use crate::engine_support::{
    aws_moto_provider_body, have_aws_and_moto, have_terraform, Moto, Overrides, Run, Work,
};
use serde_json::Value as Json;

fn main_tf() -> String {
    format!(
        r#"
terraform {{
  required_providers {{
    aws = {{ source = "hashicorp/aws" }}
  }}
}}

variable "prefix" {{
  type = string
}}

provider "aws" {{
  region = "us-east-1"
{body}}}

ephemeral "aws_secretsmanager_random_password" "db" {{
  for_each            = toset(["primary", "replica"])
  password_length     = each.key == "primary" ? 24 : 16
  exclude_punctuation = true
}}

locals {{
  passwords = {{
    for name, generated in ephemeral.aws_secretsmanager_random_password.db :
    name => generated.random_password
  }}
}}

module "app" {{
  source   = "./app"
  password = local.passwords["primary"]
}}

resource "aws_ssm_parameter" "db" {{
  for_each         = toset(["primary", "replica"])
  name             = "/${{var.prefix}}/db/${{each.key}}"
  type             = "SecureString"
  value_wo         = local.passwords[each.key]
  value_wo_version = 1
}}

output "password_seen_by_module" {{
  value = module.app.seen
}}
"#,
        body = aws_moto_provider_body()
    )
}

const APP_TF: &str = r#"
variable "password" {
  type      = string
  ephemeral = true
}

output "seen" {
  value = ephemeralasnull(var.password) == null ? "hidden" : "visible"
}

output "password" {
  value     = var.password
  ephemeral = true
}
"#;

/// An ephemeral value in an argument the state keeps.
const STORED_TF: &str = r#"
resource "aws_ssm_parameter" "stored" {
  name  = "/${var.prefix}/stored"
  type  = "String"
  value = local.passwords["primary"]
}
"#;

struct Side {
    work: Work,
    vars: Vec<String>,
}

impl Side {
    fn new(tool: &str, moto: &Moto) -> Side {
        let work = Work::new(
            &format!("ephemeral-{tool}"),
            Overrides {
                bundled: false,
                aws: true,
            },
        )
        .aws_at(moto);
        work.write("main.tf", &main_tf());
        work.write("app/main.tf", APP_TF);
        Side {
            work,
            vars: vec![format!("prefix={tool}")],
        }
    }

    fn args<'a>(&'a self, args: &[&'a str]) -> Vec<&'a str> {
        let mut all = args.to_vec();
        for v in &self.vars {
            all.push("-var");
            all.push(v);
        }
        all
    }
}

/// The lines about ephemeral resources, sorted (their order follows the
/// walk's concurrency), with durations made equal.
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

/// The `-json` stream's ephemeral messages: type, address and action.
fn ephemeral_messages(run: &Run) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = run
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Json>(l).ok())
        .filter(|m| {
            m["type"]
                .as_str()
                .is_some_and(|t| t.starts_with("ephemeral_op"))
        })
        .map(|m| {
            (
                m["type"].as_str().unwrap_or_default().to_string(),
                m["hook"]["resource"]["addr"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                m["hook"]["action"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

/// Each resource in the state with the dependencies of its instances.
fn state_resources(work: &Work) -> Vec<(String, Vec<Json>)> {
    let state = work.state();
    state["resources"]
        .as_array()
        .map(|resources| {
            resources
                .iter()
                .map(|r| {
                    let address = format!(
                        "{}.{}.{}",
                        r["mode"].as_str().unwrap_or_default(),
                        r["type"].as_str().unwrap_or_default(),
                        r["name"].as_str().unwrap_or_default()
                    );
                    let deps = r["instances"]
                        .as_array()
                        .map(|is| is.iter().map(|i| i["dependencies"].clone()).collect())
                        .unwrap_or_default();
                    (address, deps)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The SSM parameters under `/<prefix>/db/`, with their decrypted values.
fn parameters(moto: &Moto, prefix: &str) -> Json {
    moto.query(&format!(
        "ssm = client('ssm', 'us-east-1')\n\
         names = ['/{prefix}/db/primary', '/{prefix}/db/replica']\n\
         got = ssm.get_parameters(Names=names, WithDecryption=True)['Parameters']\n\
         print(json.dumps({{p['Name']: p['Value'] for p in got}}))"
    ))
}

#[test]
fn ephemeral_passwords_reach_write_only_arguments_as_with_terraform() {
    if !have_terraform() || !have_aws_and_moto() {
        return;
    }
    let moto = Moto::start();
    let terraform = Side::new("terraform", &moto);
    let terrace = Side::new("terrace", &moto);
    // terraform wants its module manifest (`get` writes it without asking
    // a registry for providers); terrace reads local modules directly.
    terraform.work.terraform_ok(&["get"], 0);

    // Plan: each instance opened and closed once, nothing planned for it.
    let plan_args = ["plan", "-input=false", "-no-color"];
    let tf_plan = terraform.work.terraform_ok(&terraform.args(&plan_args), 0);
    let tr_plan = terrace.work.terrace_ok(&terrace.args(&plan_args), 0);
    let expected_walk = vec![
        "ephemeral.aws_secretsmanager_random_password.db[\"primary\"]: Closing complete after Ns",
        "ephemeral.aws_secretsmanager_random_password.db[\"primary\"]: Closing...",
        "ephemeral.aws_secretsmanager_random_password.db[\"primary\"]: Opening complete after Ns",
        "ephemeral.aws_secretsmanager_random_password.db[\"primary\"]: Opening...",
        "ephemeral.aws_secretsmanager_random_password.db[\"replica\"]: Closing complete after Ns",
        "ephemeral.aws_secretsmanager_random_password.db[\"replica\"]: Closing...",
        "ephemeral.aws_secretsmanager_random_password.db[\"replica\"]: Opening complete after Ns",
        "ephemeral.aws_secretsmanager_random_password.db[\"replica\"]: Opening...",
    ];
    assert_eq!(
        ephemeral_lines(&tf_plan),
        expected_walk,
        "{}",
        tf_plan.output()
    );
    assert_eq!(
        ephemeral_lines(&tr_plan),
        expected_walk,
        "{}",
        tr_plan.output()
    );
    for run in [&tf_plan, &tr_plan] {
        assert!(
            run.stdout
                .contains("Plan: 2 to add, 0 to change, 0 to destroy."),
            "{}",
            run.output()
        );
        assert!(!run.stdout.contains("# ephemeral."), "{}", run.output());
    }

    // The same in the -json stream.
    let json_args = ["plan", "-input=false", "-json"];
    let tf_json = terraform.work.terraform_ok(&terraform.args(&json_args), 0);
    let tr_json = terrace.work.terrace_ok(&terrace.args(&json_args), 0);
    let tf_messages = ephemeral_messages(&tf_json);
    assert_eq!(tf_messages.len(), 8, "{}", tf_json.output());
    assert_eq!(
        ephemeral_messages(&tr_json),
        tf_messages,
        "{}",
        tr_json.output()
    );

    // Apply: opened again (a plan never holds the values), passwords in
    // moto, none in the state.
    let apply_args = ["apply", "-auto-approve", "-input=false", "-no-color"];
    let tf_apply = terraform.work.terraform_ok(&terraform.args(&apply_args), 0);
    let tr_apply = terrace.work.terrace_ok(&terrace.args(&apply_args), 0);
    // Once in the apply's own plan, once in its apply walk.
    let mut expected_twice: Vec<&str> = expected_walk
        .iter()
        .flat_map(|line| [*line, *line])
        .collect();
    expected_twice.sort();
    assert_eq!(
        ephemeral_lines(&tf_apply),
        expected_twice,
        "{}",
        tf_apply.output()
    );
    assert_eq!(
        ephemeral_lines(&tr_apply),
        expected_twice,
        "{}",
        tr_apply.output()
    );
    for run in [&tf_apply, &tr_apply] {
        assert!(
            run.stdout.contains("password_seen_by_module = \"hidden\""),
            "{}",
            run.output()
        );
    }
    assert_eq!(
        state_resources(&terrace.work),
        state_resources(&terraform.work)
    );
    assert_eq!(
        state_resources(&terrace.work),
        vec![(
            "managed.aws_ssm_parameter.db".to_string(),
            vec![
                serde_json::json!(["ephemeral.aws_secretsmanager_random_password.db"]),
                serde_json::json!(["ephemeral.aws_secretsmanager_random_password.db"]),
            ]
        )]
    );
    for (side, prefix) in [(&terraform, "terraform"), (&terrace, "terrace")] {
        let stored = parameters(&moto, prefix);
        let primary = stored[format!("/{prefix}/db/primary")]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let replica = stored[format!("/{prefix}/db/replica")]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert_eq!((primary.len(), replica.len()), (24, 16), "{stored}");
        let state = String::from_utf8_lossy(&side.work.state_bytes()).to_string();
        assert!(
            !state.contains(&primary) && !state.contains(&replica),
            "a password was written to {prefix}'s state:\n{state}"
        );
    }

    // Nothing to do next time, though the passwords come out different.
    let no_changes = ["plan", "-input=false", "-no-color", "-detailed-exitcode"];
    let tf_again = terraform.work.terraform_ok(&terraform.args(&no_changes), 0);
    let tr_again = terrace.work.terrace_ok(&terrace.args(&no_changes), 0);
    for run in [&tf_again, &tr_again] {
        assert!(run.stdout.contains("No changes."), "{}", run.output());
    }

    // An ephemeral value where the state would keep it: refused alike,
    // and the state is untouched.
    let before = terrace.work.state_bytes();
    terraform.work.write("stored.tf", STORED_TF);
    terrace.work.write("stored.tf", STORED_TF);
    let tf_refused = terraform.work.terraform_ok(&terraform.args(&plan_args), 1);
    let tr_refused = terrace.work.terrace_ok(&terrace.args(&plan_args), 1);
    let error_of = |run: &Run| -> String {
        let text = run.stderr.clone();
        text.find("Error: ")
            .map(|i| text[i..].trim_end().to_string())
            .unwrap_or(text)
    };
    assert_eq!(error_of(&tr_refused), error_of(&tf_refused));
    assert!(
        error_of(&tr_refused).starts_with("Error: Invalid use of ephemeral value"),
        "{}",
        tr_refused.output()
    );
    assert_eq!(terrace.work.state_bytes(), before);
}
