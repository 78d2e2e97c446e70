//! The results of custom conditions, side by side with terraform 1.11.4:
//! what a plan records (`checks` of `show -json PLAN`), what an apply
//! leaves in the state (`check_results`, and `checks` of `show -json`)
//! after a failed condition, a passing apply, an apply with nothing to
//! change, a refresh-only apply and a destroy. Resources with `count` and
//! `for_each`, data sources, outputs, `check` blocks and variables, in the
//! root and in module instances. terraform writes `check_results` in Go
//! map order, so both states' lists are sorted before comparing.

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};
use serde_json::Value;

const MAIN_TF: &str = r#"
variable "n" {
  type    = number
  default = 2
  validation {
    condition     = var.n < 5
    error_message = "too big"
  }
}

variable "plain" {
  default = "x"
}

resource "terraform_data" "a" {
  count = var.n
  input = "v${count.index}"
  lifecycle {
    precondition {
      condition     = count.index < 5
      error_message = "pre"
    }
    postcondition {
      condition     = self.output != "POISON"
      error_message = "post ${self.output}"
    }
  }
}

resource "terraform_data" "keyed" {
  for_each = toset(["k1", "k2"])
  input    = each.key
  lifecycle {
    postcondition {
      condition     = self.output == each.key
      error_message = "keyed ${each.key}"
    }
  }
}

resource "terraform_data" "nochecks" {
  input = 1
}

data "terraform_remote_state" "other" {
  backend = "local"
  config = {
    path = "other.tfstate"
  }
  lifecycle {
    postcondition {
      condition     = self.outputs.x == 1
      error_message = "other"
    }
  }
}

output "o" {
  value = terraform_data.a[0].output
  precondition {
    condition     = length(terraform_data.a) > 0
    error_message = "no instances"
  }
}

check "known_later" {
  assert {
    condition     = terraform_data.nochecks.output == 1
    error_message = "nochecks changed"
  }
}

check "known_now" {
  assert {
    condition     = var.plain == "x"
    error_message = "plain changed"
  }
}

module "m" {
  source = "./m"
}

module "n" {
  source = "./m"
  count  = 2
  limit  = count.index + 1
}
"#;

const MODULE_TF: &str = r#"
variable "limit" {
  type    = number
  default = 1
  validation {
    condition     = var.limit > 0
    error_message = "limit must be positive"
  }
}

resource "terraform_data" "x" {
  input = var.limit
  lifecycle {
    postcondition {
      condition     = self.output == var.limit
      error_message = "mx"
    }
  }
}

check "mc" {
  assert {
    condition     = terraform_data.x.output == 2
    error_message = "mc is ${terraform_data.x.output}"
  }
}

output "limit" {
  value = var.limit
  precondition {
    condition     = var.limit < 10
    error_message = "limit too high"
  }
}
"#;

const OTHER_STATE: &str = r#"{"version":4,"terraform_version":"1.11.4","serial":1,"lineage":"other","outputs":{"x":{"value":1,"type":"number"}},"resources":[],"check_results":null}
"#;

fn new_work(tool: &str) -> Work {
    let work = Work::new(
        &format!("check-results-{tool}"),
        Overrides {
            bundled: false,
            aws: false,
        },
    );
    work.write("main.tf", MAIN_TF);
    work.write("m/main.tf", MODULE_TF);
    work.write("other.tfstate", OTHER_STATE);
    work
}

/// `check_results` of the state, entries and objects sorted by address.
fn state_checks(work: &Work) -> Value {
    let mut results = work.state()["check_results"].clone();
    if let Some(list) = results.as_array_mut() {
        for entry in list.iter_mut() {
            if let Some(objects) = entry["objects"].as_array_mut() {
                objects.sort_by_key(|o| o["object_addr"].as_str().unwrap_or_default().to_string());
            }
        }
        list.sort_by_key(|c| c["config_addr"].as_str().unwrap_or_default().to_string());
    }
    results
}

fn json_checks(run: &Run) -> Value {
    let doc: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("show -json: {e}\n{}", run.output()));
    doc.get("checks").cloned().unwrap_or(Value::Null)
}

struct Pair {
    terraform: Work,
    terrace: Work,
}

impl Pair {
    fn both(&self, args: &[&str], code: i32) -> (Run, Run) {
        (
            self.terraform.terraform_ok(args, code),
            self.terrace.terrace_ok(args, code),
        )
    }

    fn write(&self, name: &str, text: &str) {
        self.terraform.write(name, text);
        self.terrace.write(name, text);
    }

    /// The plan saved as `file`: its `checks` the same in both.
    fn same_plan_checks(&self, step: &str, file: &str) -> Value {
        let (tf, tr) = self.both(&["show", "-json", file], 0);
        let (theirs, ours) = (json_checks(&tf), json_checks(&tr));
        assert_eq!(ours, theirs, "{step}: checks of the saved plan");
        theirs
    }

    /// The state: `check_results` and `checks` of `show -json` the same.
    fn same_state_checks(&self, step: &str) -> Value {
        let theirs = state_checks(&self.terraform);
        assert_eq!(
            state_checks(&self.terrace),
            theirs,
            "{step}: check_results of the state"
        );
        let (tf, tr) = self.both(&["show", "-json"], 0);
        assert_eq!(
            json_checks(&tr),
            json_checks(&tf),
            "{step}: checks of show -json"
        );
        theirs
    }
}

/// stdout without the refresh lines, whose order follows the walk.
fn settled_text(run: &Run) -> String {
    run.stdout
        .lines()
        .filter(|l| !l.contains(": Refreshing state...") && !l.contains(": Read"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn status_of(checks: &Value, config_addr: &str) -> String {
    checks
        .as_array()
        .and_then(|list| list.iter().find(|c| c["config_addr"] == config_addr))
        .map(|c| c["status"].as_str().unwrap_or_default().to_string())
        .unwrap_or_default()
}

#[test]
fn condition_results_are_recorded_as_terraform_records_them() {
    if !have_terraform() {
        return;
    }
    let pair = Pair {
        terraform: new_work("terraform"),
        terrace: new_work("terrace"),
    };
    pair.terraform.terraform_ok(&["get"], 0);

    // A plan: some conditions known, some only after apply.
    pair.both(&["plan", "-out=tfplan", "-no-color", "-input=false"], 0);
    let planned = pair.same_plan_checks("plan", "tfplan");
    assert!(
        planned.to_string().contains("\"status\":\"unknown\""),
        "{planned}"
    );

    // An apply where one instance's postcondition fails.
    let poisoned = MAIN_TF.replace("!= \"POISON\"", "!= \"v1\"");
    pair.write("main.tf", &poisoned);
    pair.both(&["apply", "-auto-approve", "-no-color", "-input=false"], 1);
    let failed = pair.same_state_checks("failed apply");
    assert_eq!(status_of(&failed, "terraform_data.a"), "fail", "{failed}");

    // Fixed: every condition evaluated again, then with nothing to change.
    pair.write("main.tf", MAIN_TF);
    pair.both(&["apply", "-auto-approve", "-no-color", "-input=false"], 0);
    let passed = pair.same_state_checks("apply");
    assert_eq!(status_of(&passed, "terraform_data.a"), "pass", "{passed}");
    assert_eq!(status_of(&passed, "module.m.check.mc"), "fail", "{passed}");
    let (tf, tr) = pair.both(&["apply", "-auto-approve", "-no-color", "-input=false"], 0);
    pair.same_state_checks("apply with no changes");
    // The failed check's warning, then the summary after one blank line.
    assert_eq!(
        settled_text(&tr),
        terrace_testsupport::product::as_terrace(&settled_text(&tf))
    );
    assert!(
        tr.stdout.contains("mc is 1\n\nApply complete!"),
        "{}",
        tr.stdout
    );

    // Refresh-only: the conditions are checked against what was found.
    pair.both(
        &[
            "plan",
            "-refresh-only",
            "-out=refresh",
            "-no-color",
            "-input=false",
        ],
        0,
    );
    pair.same_plan_checks("refresh-only plan", "refresh");
    pair.both(
        &[
            "apply",
            "-refresh-only",
            "-auto-approve",
            "-no-color",
            "-input=false",
        ],
        0,
    );
    pair.same_state_checks("refresh-only apply");

    // Destroy: nothing is checked, every result unknown.
    pair.both(
        &[
            "plan",
            "-destroy",
            "-out=destroy",
            "-no-color",
            "-input=false",
        ],
        0,
    );
    pair.same_plan_checks("destroy plan", "destroy");
    pair.both(
        &["destroy", "-auto-approve", "-no-color", "-input=false"],
        0,
    );
    let destroyed = pair.same_state_checks("destroy");
    assert_eq!(status_of(&destroyed, "var.n"), "unknown", "{destroyed}");
}

const DESTROY_TF: &str = r#"
variable "want" {
  default = 1
}
resource "terraform_data" "a" {
  input = 1
  lifecycle {
    postcondition {
      condition     = self.output == var.want
      error_message = "output is not ${var.want}"
    }
  }
}
"#;

/// The refresh a destroy starts with is no reason to keep an object: a
/// resource condition failing there is a warning, and the destroy goes on.
#[test]
fn a_condition_failing_in_the_refresh_before_a_destroy_does_not_stop_it() {
    if !have_terraform() {
        return;
    }
    let pair = Pair {
        terraform: new_work("destroy-terraform"),
        terrace: new_work("destroy-terrace"),
    };
    pair.write("main.tf", DESTROY_TF);
    pair.both(&["apply", "-auto-approve", "-no-color", "-input=false"], 0);
    let (tf, tr) = pair.both(
        &[
            "destroy",
            "-auto-approve",
            "-no-color",
            "-input=false",
            "-var",
            "want=2",
        ],
        0,
    );
    for run in [&tf, &tr] {
        assert!(
            run.stdout
                .contains("Destroy complete! Resources: 1 destroyed."),
            "{}",
            run.output()
        );
    }
    assert_eq!(pair.terrace.state_addresses(), Vec::<String>::new());
}
