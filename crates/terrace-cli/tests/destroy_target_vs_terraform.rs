//! `-target` in a destroy plan, beside terraform 1.11.4: a target brings
//! along what depends on it (it cannot be destroyed while they remain),
//! never what it depends on; and `destroy -target` leaves everything else
//! in the state.

mod engine_support;

use engine_support::{have_terraform, Overrides, Work};

const CONFIG: &str = r#"
resource "terraform_data" "a" { input = "a" }
resource "terraform_data" "b" { input = terraform_data.a.output }
resource "terraform_data" "c" {
  count = 2
  input = "c"
}
resource "terraform_data" "dep" { input = terraform_data.c[0].output }
resource "terraform_data" "free" {}
"#;

/// What each targeted destroy plan destroys, then the state left by
/// `destroy -target terraform_data.b`.
fn destroyed(tool: &str) -> (Vec<Vec<String>>, Vec<String>) {
    let work = Work::new(
        &format!("destroy-target-{tool}"),
        Overrides {
            bundled: false,
            aws: false,
        },
    );
    work.write("main.tf", CONFIG);
    work.with_tool_ok(tool, &["init"]);
    work.with_tool_ok(tool, &["apply", "-auto-approve"]);
    let mut plans = Vec::new();
    for target in [
        "terraform_data.a",
        "terraform_data.b",
        "terraform_data.c[0]",
        "terraform_data.dep",
    ] {
        let plan = work.with_tool_ok(tool, &["plan", "-destroy", "-target", target]);
        plans.push(
            plan.stdout
                .lines()
                .filter(|l| l.contains("will be destroyed") || l.starts_with("Plan:"))
                .map(str::to_string)
                .collect(),
        );
    }
    work.with_tool_ok(
        tool,
        &["destroy", "-auto-approve", "-target", "terraform_data.b"],
    );
    let mut left = work.state_addresses();
    left.sort();
    (plans, left)
}

#[test]
fn a_destroy_target_takes_its_dependents_not_its_dependencies() {
    let (plans, left) = destroyed("terrace");
    assert_eq!(
        plans[0],
        [
            "  # terraform_data.a will be destroyed",
            "  # terraform_data.b will be destroyed",
            "Plan: 0 to add, 0 to change, 2 to destroy.",
        ]
    );
    assert_eq!(
        plans[1],
        [
            "  # terraform_data.b will be destroyed",
            "Plan: 0 to add, 0 to change, 1 to destroy.",
        ]
    );
    assert!(left.contains(&"terraform_data.a".to_string()), "{left:?}");
    assert!(!left.contains(&"terraform_data.b".to_string()), "{left:?}");
    if have_terraform() {
        assert_eq!((plans, left), destroyed("terraform"));
    }
}
