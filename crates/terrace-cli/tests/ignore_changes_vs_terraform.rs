//! `lifecycle { ignore_changes }` beside terraform 1.11.4, on paths that
//! reach inside a value: a map key that only the prior object has or only
//! the configuration has (the key is kept as the prior map has it, so
//! neither plans a change, let alone the replacement `triggers` forces),
//! and a list element, directly and inside an object. Each case applies
//! the first configuration, changes the ignored part, and expects
//! `plan -detailed-exitcode` to find nothing to do; a change outside the
//! ignored path still plans one.

mod engine_support;

use engine_support::{have_terraform, Overrides, Work};

struct Case {
    name: &'static str,
    /// The resource, with `var.v` where the changing value goes.
    resource: &'static str,
    first: &'static str,
    second: &'static str,
    /// Whether the second value changes something `ignore_changes` does
    /// not cover.
    changes: bool,
}

/// `triggers` (a map that forces replacement) with one key ignored.
const IGNORING_A_KEY: &str = r#"resource "null_resource" "n" {
  triggers = var.v
  lifecycle {
    ignore_changes = [triggers["x"]]
  }
}"#;

/// A list with its first element ignored.
const IGNORING_AN_ELEMENT: &str = r#"resource "terraform_data" "t" {
  input = var.v
  lifecycle {
    ignore_changes = [input[0]]
  }
}"#;

const CASES: &[Case] = &[
    Case {
        name: "key-only-in-prior",
        resource: IGNORING_A_KEY,
        first: r#"{ a = "1", x = "kept" }"#,
        second: r#"{ a = "1" }"#,
        changes: false,
    },
    Case {
        name: "key-only-in-config",
        resource: IGNORING_A_KEY,
        first: r#"{ a = "1" }"#,
        second: r#"{ a = "1", x = "new" }"#,
        changes: false,
    },
    Case {
        name: "key-and-another-change",
        resource: IGNORING_A_KEY,
        first: r#"{ a = "1" }"#,
        second: r#"{ a = "2", x = "new" }"#,
        changes: true,
    },
    Case {
        name: "list-element",
        resource: IGNORING_AN_ELEMENT,
        first: r#"["a", "b"]"#,
        second: r#"["x", "b"]"#,
        changes: false,
    },
    Case {
        name: "list-element-in-object",
        resource: r#"resource "terraform_data" "t" {
  input = { list = var.v, keep = "k" }
  lifecycle {
    ignore_changes = [input.list[0]]
  }
}"#,
        first: r#"["a", "b"]"#,
        second: r#"["x", "b"]"#,
        changes: false,
    },
    Case {
        name: "other-list-element",
        resource: IGNORING_AN_ELEMENT,
        first: r#"["a", "b"]"#,
        second: r#"["a", "c"]"#,
        changes: true,
    },
];

fn config(case: &Case) -> String {
    format!(
        "terraform {{\n  required_providers {{\n    null = {{ source = \"hashicorp/null\" }}\n  }}\n}}\n\n\
         variable \"v\" {{\n  default = {}\n}}\n\n{}\n",
        case.first, case.resource
    )
}

/// The exit code of `plan -detailed-exitcode` after the change, and the
/// plan's output.
fn replan(tool: &str, case: &Case) -> (Option<i32>, String) {
    let work = Work::new(
        &format!("ignore-changes-{}-{tool}", case.name),
        Overrides {
            bundled: true,
            aws: false,
        },
    );
    work.write("main.tf", &config(case));
    let run = |args: &[&str]| match tool {
        "terrace" => work.terrace(args),
        _ => work.terraform(args),
    };
    let apply = run(&["apply", "-auto-approve", "-input=false"]);
    assert_eq!(
        apply.code,
        Some(0),
        "{tool} {}: {}",
        case.name,
        apply.output()
    );
    work.write("terraform.tfvars", &format!("v = {}\n", case.second));
    let plan = run(&["plan", "-detailed-exitcode", "-input=false"]);
    (plan.code, plan.output())
}

#[test]
fn ignored_paths_inside_values_plan_as_under_terraform() {
    let mut tools = vec!["terrace"];
    if have_terraform() {
        tools.push("terraform");
    }
    for case in CASES {
        let expected = if case.changes { 2 } else { 0 };
        for tool in &tools {
            let (code, output) = replan(tool, case);
            assert_eq!(code, Some(expected), "{tool} {}:\n{output}", case.name);
            assert!(
                case.changes || !output.contains("must be replaced"),
                "{tool} {}:\n{output}",
                case.name
            );
        }
    }
}
