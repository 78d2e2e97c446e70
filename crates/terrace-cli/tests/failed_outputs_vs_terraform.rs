//! Root outputs that fail while planning, beside terraform 1.11.4: the
//! errored plan shows the resource changes it planned but no change for
//! an output whose value or precondition failed.

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};

const BAD_INDEX: &str = r#"
resource "terraform_data" "a" {
  for_each = { a = 1 }
}

output "o" {
  value = terraform_data.a[0].id
}
"#;

const FAILED_PRECONDITION: &str = r#"
resource "terraform_data" "a" {}

output "o" {
  value = terraform_data.a.id
  precondition {
    condition     = terraform_data.a.input != null
    error_message = "Never."
  }
}

output "fine" {
  value = "x"
}
"#;

fn plan(name: &str, config: &str, tool: &str) -> Run {
    let work = Work::new(
        &format!("failed-outputs-{name}-{tool}"),
        Overrides {
            bundled: false,
            aws: false,
        },
    );
    work.write("main.tf", config);
    match tool {
        "terrace" => work.terrace(&["plan"]),
        _ => work.terraform(&["plan"]),
    }
}

/// The plan's lines from its list of actions on, words made alike.
fn actions(run: &Run) -> Vec<String> {
    run.stdout
        .lines()
        .skip_while(|l| !l.contains("planned the following actions"))
        .map(|l| l.replace("Terraform", "terrace"))
        .collect()
}

#[test]
fn a_failed_output_has_no_planned_change() {
    for (name, config) in [
        ("bad-index", BAD_INDEX),
        ("failed-precondition", FAILED_PRECONDITION),
    ] {
        let terrace = plan(name, config, "terrace");
        assert_eq!(terrace.code, Some(1), "{name}: {}", terrace.output());
        assert!(
            terrace
                .stdout
                .ends_with("Plan: 1 to add, 0 to change, 0 to destroy.\n")
                || terrace.stdout.contains("  + fine = \"x\""),
            "{name}: {}",
            terrace.stdout
        );
        assert!(
            !terrace.stdout.contains("+ o ="),
            "{name}: {}",
            terrace.stdout
        );
        if have_terraform() {
            let terraform = plan(name, config, "terraform");
            assert_eq!(terraform.code, Some(1), "{name}: {}", terraform.output());
            assert_eq!(actions(&terrace), actions(&terraform), "{name}");
            assert_eq!(terrace.stderr, terraform.stderr, "{name}");
        }
    }
}
