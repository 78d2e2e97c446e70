//! `console` calls the functions of the providers the configuration
//! declares, as `plan` does, beside terraform 1.11.4: hashicorp/aws
//! 5.100.0's `arn_parse` and `arn_build`, a call the function itself
//! refuses, and a provider the configuration does not declare.

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};

const MAIN: &str = "terraform {\n  required_providers {\n    aws = {\n      source  = \"hashicorp/aws\"\n      version = \"~> 5.0\"\n    }\n  }\n}\n";

/// What a user sees of one expression: the exit status, the value printed
/// and the first error's summary and detail, whitespace folded (the
/// product's name wraps a paragraph differently).
fn seen(run: &Run) -> (Option<i32>, String, String) {
    let errors = match run.stderr.find("Error:") {
        Some(at) => run.stderr[at..]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        None => String::new(),
    };
    (run.code, run.stdout.trim().to_string(), errors)
}

#[test]
fn console_calls_provider_functions() {
    if !have_terraform() || !terrace_testsupport::require_aws_provider_package() {
        return;
    }
    let expressions = [
        "provider::aws::arn_parse(\"arn:aws:iam::123456789012:role/x\")",
        "provider::aws::arn_build(\"aws\", \"s3\", \"\", \"\", \"bucket\")",
        "provider::aws::arn_parse(\"not-an-arn\")",
        "provider::google::anything(\"x\")",
    ];
    let [terrace, terraform] = ["terrace", "terraform"].map(|tool| {
        let work = Work::new(
            &format!("console-provider-functions-{tool}"),
            Overrides {
                bundled: false,
                aws: true,
            },
        );
        work.write("main.tf", MAIN);
        expressions
            .iter()
            .map(|expr| seen(&work.with_tool_input(tool, &["console"], &format!("{expr}\n"))))
            .collect::<Vec<_>>()
    });
    assert_eq!(terrace[0].0, Some(0), "{:?}", terrace[0]);
    assert!(
        terrace[0].1.contains("\"account_id\" = \"123456789012\""),
        "{:?}",
        terrace[0]
    );
    for (n, expr) in expressions.iter().enumerate() {
        assert_eq!(terrace[n], terraform[n], "{expr}");
    }
}
