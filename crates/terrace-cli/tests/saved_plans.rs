//! Saved plans applied as the real-world suite applies them
//! (`plan -out=tfplan`, then `apply tfplan`), with terraform_data only, so
//! these need no provider or tool.

mod engine_support;

use engine_support::{Overrides, Work};

fn work(name: &str, main_tf: &str) -> Work {
    let work = Work::new(
        name,
        Overrides {
            bundled: false,
            aws: false,
        },
    );
    work.write("main.tf", main_tf);
    work
}

#[test]
fn a_plan_saved_without_a_state_file_applies() {
    let work = work(
        "first-plan",
        "resource \"terraform_data\" \"a\" {\n  input = \"x\"\n}\n",
    );
    work.terrace_ok(&["init"], 0);
    work.terrace_ok(&["plan", "-input=false", "-out=tfplan"], 0);
    assert!(!work.path("terraform.tfstate").exists());
    let apply = work.terrace_ok(&["apply", "-input=false", "tfplan"], 0);
    assert!(
        apply
            .stdout
            .contains("Apply complete! Resources: 1 added, 0 changed, 0 destroyed."),
        "{}",
        apply.output()
    );
    assert_eq!(work.state_addresses(), vec!["terraform_data.a".to_string()]);
    // A second saved plan, made from the state the first one wrote, is
    // refused once that state has moved on.
    work.write(
        "main.tf",
        "resource \"terraform_data\" \"a\" {\n  input = \"y\"\n}\n",
    );
    work.terrace_ok(&["plan", "-input=false", "-out=tfplan"], 0);
    work.terrace_ok(&["apply", "-input=false", "-auto-approve"], 0);
    let stale = work.terrace_ok(&["apply", "-input=false", "tfplan"], 1);
    assert!(
        stale.stderr.contains("Saved plan is stale"),
        "{}",
        stale.output()
    );
}
