//! Diagnostics beside terraform 1.11.4, for the values shown under their
//! source excerpt. Errors from evaluating an expression show the values
//! of the references in the expression that failed (a reference that
//! itself fails shortened to the longest part that resolves; for an
//! operator's operand, that operand's references alone). A resource's
//! `for_each` refused while planning shows its references' values too, an
//! unknown value "known only after apply" and a sensitive one "has a
//! sensitive value" only when they are the cause; a null `for_each` says
//! what is allowed. An error about a function call (its arguments, its
//! failure) says "while calling NAME(PARAMS)" above the values, and its
//! JSON snippet has the `function_call` with the function's signature.

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};

struct Case {
    name: &'static str,
    /// The `locals` entries after `m`, `l`, `s` and `n`.
    expr: &'static str,
    /// A line terrace's error must have (terraform's, checked beside it
    /// when terraform is here, with the whole error text).
    expected: &'static str,
}

const CASES: &[Case] = &[
    Case {
        name: "attribute",
        expr: "local.m.b",
        expected: "│ local.m is object with 1 attribute \"a\"",
    },
    Case {
        name: "index",
        expr: "local.l[5]",
        expected: "│ local.l is tuple with 2 elements",
    },
    Case {
        name: "function",
        expr: "upper(local.m)",
        expected: "│ while calling upper(str)",
    },
    Case {
        name: "function-literal-argument",
        expr: "substr(local.s, \"q\", 1)",
        expected: "│ while calling substr(str, offset, length)",
    },
    Case {
        name: "function-failed",
        expr: "format(\"%d\", local.s)",
        expected: "│ while calling format(format, args...)",
    },
    Case {
        name: "function-variadic-argument",
        expr: "join(\",\", local.s)",
        expected: "│ local.s is \"text\"",
    },
    Case {
        name: "function-arguments-missing",
        expr: "upper()",
        expected: "│ while calling upper(str)",
    },
    Case {
        name: "operator",
        expr: "local.s + local.n",
        expected: "│ local.s is \"text\"",
    },
    Case {
        name: "in-for",
        expr: "[for k, v in local.m : v.x]",
        expected: "Error: Unsupported attribute",
    },
];

fn config(case: &Case) -> String {
    format!(
        "locals {{\n  m = {{ a = 1 }}\n  l = [\"x\", \"y\"]\n  s = \"text\"\n  n = 2\n  x = {}\n}}\n\noutput \"x\" {{\n  value = local.x\n}}\n",
        case.expr
    )
}

struct ForEachCase {
    name: &'static str,
    config: &'static str,
    /// A line terrace's error must have (terraform's, checked beside it
    /// when terraform is here).
    expected: &'static str,
}

const FOR_EACH_CASES: &[ForEachCase] = &[
    ForEachCase {
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
    ForEachCase {
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
    ForEachCase {
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
    ForEachCase {
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

/// `plan` of `config` by `tool` in a directory of its own.
fn plan(tool: &str, name: &str, config: &str) -> Run {
    let work = Work::new(
        &format!("diagnostic-values-{name}-{tool}"),
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

#[test]
fn failed_expressions_show_their_references_values_as_terraform_does() {
    for case in CASES {
        let terrace = plan("terrace", case.name, &config(case));
        assert_eq!(terrace.code, Some(1), "{}: {}", case.name, terrace.output());
        let errors_terrace = errors(&terrace);
        assert!(
            errors_terrace.contains(case.expected),
            "{}: {:?} in:\n{errors_terrace}",
            case.name,
            case.expected
        );
        if have_terraform() {
            let terraform = plan("terraform", case.name, &config(case));
            assert_eq!(terraform.code, Some(1), "{}", terraform.output());
            let errors_terraform = errors(&terraform);
            assert!(
                errors_terraform.contains(case.expected),
                "{}: {:?} in terraform's:\n{errors_terraform}",
                case.name,
                case.expected
            );
            assert_eq!(errors_terrace, errors_terraform, "{}", case.name);
        }
    }
}

#[test]
fn refused_for_each_values_are_shown_as_terraform_shows_them() {
    for case in FOR_EACH_CASES {
        let terrace = plan("terrace", &format!("for-each-{}", case.name), case.config);
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
            let terraform = plan("terraform", &format!("for-each-{}", case.name), case.config);
            assert_eq!(terraform.code, Some(1), "{}", terraform.output());
            assert_eq!(errors_terrace, errors(&terraform), "{}", case.name);
        }
    }
}

/// `validate -json`'s diagnostics for calls that fail in each way, as
/// sorted JSON texts (the order of the diagnostics is terraform's
/// evaluation order, not a promise).
fn function_call_diagnostics(tool: &str) -> Vec<String> {
    let work = Work::new(
        &format!("diagnostic-function-call-{tool}"),
        Overrides {
            bundled: false,
            aws: false,
        },
    );
    work.write(
        "main.tf",
        r#"
locals {
  l = ["a"]
  s = "x"
}
output "a" { value = upper(local.l) }
output "b" { value = substr(local.s, "q", 1) }
output "c" { value = jsondecode("{") }
output "d" { value = format("%d", local.s) }
output "e" { value = join(",", local.s) }
output "f" { value = upper("a", "b") }
output "g" { value = core::upper() }
output "h" { value = coalesce(local.s...) }
output "i" { value = upper(null) }
"#,
    );
    let run = match tool {
        "terrace" => work.terrace(&["validate", "-json"]),
        _ => work.terraform(&["validate", "-json"]),
    };
    assert_eq!(run.code, Some(1), "{tool}: {}", run.output());
    let doc: serde_json::Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{tool}: {e}: {}", run.stdout));
    let mut out: Vec<String> = doc["diagnostics"]
        .as_array()
        .map(|all| all.iter().map(|d| d.to_string()).collect())
        .unwrap_or_default();
    out.sort();
    out
}

#[test]
fn function_call_errors_describe_the_call_in_json_as_terraform_does() {
    let terrace = function_call_diagnostics("terrace");
    assert_eq!(terrace.len(), 9, "{terrace:#?}");
    let upper = terrace
        .iter()
        .find(|d| d.contains("upper(local.l)"))
        .unwrap_or_else(|| panic!("{terrace:#?}"));
    assert!(
        upper.contains(r#""function_call":{"called_as":"upper","signature":{"name":"upper","params":[{"name":"str","type":"string"}],"return_type":"string"}}"#),
        "{upper}"
    );
    if have_terraform() {
        assert_eq!(terrace, function_call_diagnostics("terraform"));
    }
}
