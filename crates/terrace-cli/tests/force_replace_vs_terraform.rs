//! `-replace` naming a whole resource whose instances have keys (or
//! that has none), beside terraform 1.11.4: nothing is replaced, and a
//! warning says which `-replace` options would name its instances.

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};

const CONFIG: &str = r#"
resource "terraform_data" "several" {
  count = 2
}

resource "terraform_data" "single" {
  count = 1
}

resource "terraform_data" "keyed" {
  for_each = toset(["a"])
}

resource "terraform_data" "none" {
  count = 0
}
"#;

fn plan_replacing_whole_resources(tool: &str) -> Run {
    let work = Work::new(
        &format!("force-replace-{tool}"),
        Overrides {
            bundled: false,
            aws: false,
        },
    );
    work.write("main.tf", CONFIG);
    let run = |args: &[&str]| match tool {
        "terrace" => work.terrace(args),
        _ => work.terraform(args),
    };
    let applied = run(&["apply", "-auto-approve"]);
    assert_eq!(applied.code, Some(0), "{tool}: {}", applied.output());
    run(&[
        "plan",
        "-replace=terraform_data.several",
        "-replace=terraform_data.single",
        "-replace=terraform_data.keyed",
        "-replace=terraform_data.none",
    ])
}

/// The warnings of the plan's output, sorted: terraform's come in the
/// order its concurrent walk meets the resources.
fn warnings(run: &Run) -> Vec<String> {
    let mut warnings: Vec<String> = run
        .stdout
        .split("\nWarning: ")
        .skip(1)
        .map(str::to_string)
        .collect();
    warnings.sort();
    warnings
}

#[test]
fn a_whole_resource_with_keys_is_not_replaced_and_the_options_that_would_are_named() {
    let terrace = plan_replacing_whole_resources("terrace");
    assert_eq!(terrace.code, Some(0), "{}", terrace.output());
    assert!(
        terrace.stdout.contains("No changes."),
        "{}",
        terrace.output()
    );
    for expected in [
        "To force replacement of particular instances, use one or more of the\nfollowing options instead:\n  -replace=\"terraform_data.several[0]\"\n  -replace=\"terraform_data.several[1]\"\n",
        "To force replacement of the single declared instance, use the following\noption instead:\n  -replace=\"terraform_data.single[0]\"\n",
        "  -replace=\"terraform_data.keyed[\\\"a\\\"]\"\n",
        "Your force-replace request for terraform_data.none doesn't match any resource\ninstances because this resource doesn't have any instances.\n",
    ] {
        assert!(
            terrace.stdout.contains(expected),
            "{expected:?} in:\n{}",
            terrace.stdout
        );
    }
    if have_terraform() {
        let terraform = plan_replacing_whole_resources("terraform");
        assert_eq!(terraform.code, Some(0), "{}", terraform.output());
        assert!(
            terraform.stdout.contains("No changes."),
            "{}",
            terraform.output()
        );
        assert_eq!(warnings(&terrace), warnings(&terraform));
        assert_eq!(terrace.stderr, terraform.stderr);
    }
}
