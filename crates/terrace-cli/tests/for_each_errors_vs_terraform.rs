//! A resource's `for_each` refused while planning, beside terraform
//! 1.11.4: the error shows the values of the expression's references (an
//! unknown value "known only after apply" and a sensitive one "has a
//! sensitive value" only when they are the cause), with terraform's
//! wording.

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};

struct Case {
    name: &'static str,
    config: &'static str,
    /// A line terrace's error must have (terraform's, checked beside it
    /// when terraform is here).
    expected: &'static str,
}

const CASES: &[Case] = &[
    Case {
        name: "null",
        config: r#"
variable "v" {
  type    = map(string)
  default = null
}
resource "terraform_data" "b" {
  for_each = var.v
}
"#,
        expected: "│ var.v is null",
    },
    Case {
        name: "sensitive",
        config: r#"
variable "v" {
  type      = map(string)
  default   = { a = "1" }
  sensitive = true
}
resource "terraform_data" "b" {
  for_each = var.v
}
"#,
        expected: "│ var.v has a sensitive value",
    },
    Case {
        name: "tuple",
        config: r#"
variable "v" {
  default = ["a"]
}
resource "terraform_data" "b" {
  for_each = var.v
}
"#,
        expected: "│ var.v is tuple with 1 element",
    },
    Case {
        name: "unknown",
        config: r#"
resource "terraform_data" "src" {
  input = "z"
}
resource "terraform_data" "b" {
  for_each = toset([terraform_data.src.output])
}
"#,
        expected: "│ terraform_data.src.output is a string, known only after apply",
    },
];

/// The plan's errors, from the first one on, with the tool's name made
/// the same.
fn errors(run: &Run) -> String {
    let text = run.all().replace("Terraform", "terrace");
    match text.find("Error:") {
        Some(at) => text[at..].to_string(),
        None => String::new(),
    }
}

fn plan(tool: &str, case: &Case) -> Run {
    let work = Work::new(
        &format!("for-each-errors-{}-{tool}", case.name),
        Overrides {
            bundled: false,
            aws: false,
        },
    );
    work.write("main.tf", case.config);
    match tool {
        "terrace" => work.terrace(&["plan"]),
        _ => work.terraform(&["plan"]),
    }
}

#[test]
fn refused_for_each_values_are_shown_as_terraform_shows_them() {
    for case in CASES {
        let terrace = plan("terrace", case);
        assert_eq!(terrace.code, Some(1), "{}: {}", case.name, terrace.output());
        let errors_terrace = errors(&terrace);
        assert!(
            errors_terrace.contains("Error: Invalid for_each argument")
                && errors_terrace.contains(case.expected),
            "{}: {:?} in:\n{errors_terrace}",
            case.name,
            case.expected
        );
        if have_terraform() {
            let terraform = plan("terraform", case);
            assert_eq!(terraform.code, Some(1), "{}", terraform.output());
            assert_eq!(errors_terrace, errors(&terraform), "{}", case.name);
        }
    }
}
