//! A child module output declared `sensitive = true` does not make the
//! value sensitive for its caller, as in terraform 1.11: a root output
//! may pass it on without declaring it sensitive, and a resource argument
//! set from it shows in plans. A value sensitive on its own (from a
//! sensitive variable) stays sensitive through the module output.

mod support;

use support::Harness;
use terrace_engine::PlanOptions;
use terrace_syntax::diagnostic::has_errors;

const CHILD: &str = r#"
variable "secret" {
  default   = "s"
  sensitive = true
}

output "declared" {
  value     = "x"
  sensitive = true
}

output "marked" {
  value     = var.secret
  sensitive = true
}
"#;

#[test]
fn declared_sensitivity_of_child_outputs_stays_in_the_child() {
    let h = Harness::new(&[
        (
            "main.tf",
            "module \"m\" {\n  source = \"./m\"\n}\n\noutput \"o\" {\n  value = module.m.declared\n}\n",
        ),
        ("m/main.tf", CHILD),
    ]);
    let plan = h.plan(&[]);
    let o = plan
        .output_changes
        .iter()
        .find(|o| o.name == "o")
        .unwrap_or_else(|| panic!("no change for output o: {:?}", plan.output_changes));
    assert!(!o.sensitive);
    assert!(!o.after.deep_marks().is_sensitive());

    let h = Harness::new(&[
        (
            "main.tf",
            "module \"m\" {\n  source = \"./m\"\n}\n\noutput \"o\" {\n  value = module.m.marked\n}\n",
        ),
        ("m/main.tf", CHILD),
    ]);
    let (_, diags) = h.plan_with(&[], &PlanOptions::default());
    assert!(
        diags
            .iter()
            .any(|d| d.is_error() && d.summary == "Output refers to sensitive values"),
        "{diags:#?}"
    );
    assert!(has_errors(&diags));
}
