//! A plan that fails part way records changes only for the root outputs
//! its walk evaluated: an output whose resource failed its precondition
//! has no change at all (terraform shows, and aligns, only the others).

mod support;

use support::Harness;
use terrace_engine::PlanOptions;
use terrace_syntax::diagnostic::has_errors;

const MAIN: &str = r#"
resource "terraform_data" "a" {
  input = "x"
}

resource "terraform_data" "b" {
  input = "y"
  lifecycle {
    precondition {
      condition     = terraform_data.a.input == "z"
      error_message = "Not z."
    }
  }
}

output "a" {
  value = terraform_data.a.id
}

output "a_much_longer_name" {
  value = terraform_data.b.id
}
"#;

#[test]
fn outputs_of_failed_resources_have_no_change_in_an_errored_plan() {
    let h = Harness::new(&[("main.tf", MAIN)]);
    let (plan, diags) = h.plan_with(&[], &PlanOptions::default());
    assert!(has_errors(&diags), "the precondition fails: {diags:#?}");
    let names: Vec<&str> = plan
        .output_changes
        .iter()
        .map(|o| o.name.as_str())
        .collect();
    assert_eq!(names, ["a"]);
}
