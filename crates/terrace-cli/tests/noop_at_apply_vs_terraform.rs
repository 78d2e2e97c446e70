//! An update planned with values not known until apply that turn out to
//! change nothing, beside terraform 1.11.4: the apply makes it a no-op,
//! with no progress line, no count and no call to the provider.

mod engine_support;

use engine_support::{have_terraform, Overrides, Work};

const CONFIG: &str = r#"
variable "t" { default = "1" }
resource "terraform_data" "a" {
  input            = "a"
  triggers_replace = [var.t]
}
resource "terraform_data" "b" { input = terraform_data.a.output }
"#;

/// The apply's lines about the resources and its summary, ids left out.
fn replacement_apply(tool: &str) -> Vec<String> {
    let work = Work::new(
        &format!("noop-at-apply-{tool}"),
        Overrides {
            bundled: false,
            aws: false,
        },
    );
    work.write("main.tf", CONFIG);
    work.with_tool_ok(tool, &["init"]);
    work.with_tool_ok(tool, &["apply", "-auto-approve"]);
    let apply = work.with_tool_ok(tool, &["apply", "-auto-approve", "-var", "t=2"]);
    apply
        .stdout
        .lines()
        .filter(|l| l.starts_with("terraform_data.") || l.starts_with("Apply complete"))
        .map(|l| match l.find(" [id=") {
            Some(at) => l[..at].to_string(),
            None => l.to_string(),
        })
        .collect()
}

#[test]
fn an_update_that_changes_nothing_at_apply_is_a_no_op() {
    let mut terrace = replacement_apply("terrace");
    assert!(
        !terrace
            .iter()
            .any(|l| l.starts_with("terraform_data.b: Modifying")),
        "{terrace:#?}"
    );
    assert!(
        terrace
            .contains(&"Apply complete! Resources: 1 added, 0 changed, 1 destroyed.".to_string()),
        "{terrace:#?}"
    );
    if have_terraform() {
        let mut terraform = replacement_apply("terraform");
        // The two refreshes end in either order.
        terrace.sort();
        terraform.sort();
        assert_eq!(terrace, terraform);
    }
}
