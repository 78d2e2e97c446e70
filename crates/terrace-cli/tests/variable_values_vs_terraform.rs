//! Values given for the root module's variables that do not suit them,
//! beside terraform 1.11.4: an automatically loaded variables file is
//! named as terraform names it (`terraform.tfvars`, not
//! `./terraform.tfvars`); a value from `-var` or `TF_VAR_` is blamed on
//! the variable's declaration and says where it was set; the path into
//! the value is left out of the message; and `plan` shows the plan that
//! failed ("Planning failed.") for these errors and for a failed
//! validation rule, `apply` only the errors.

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};

const NUMBER: &str = "variable \"n\" { type = number }\n";

const LIST: &str = r#"
variable "n" {
  type = list(number)
}

variable "secret" {
  type      = number
  sensitive = true
  default   = 1
}
"#;

const NOT_NULL: &str = r#"
variable "not_null" {
  type     = list(string)
  nullable = false
}
"#;

const VALIDATED: &str = r#"
variable "v" {
  default = "a"
  validation {
    condition     = var.v == "b"
    error_message = "Must be b."
  }
}
"#;

/// A configuration, the files beside it, and a command with its
/// environment.
struct Case {
    name: &'static str,
    config: &'static str,
    files: &'static [(&'static str, &'static str)],
    args: &'static [&'static str],
    env: &'static [(&'static str, &'static str)],
}

const CASES: &[Case] = &[
    Case {
        name: "tfvars",
        config: "variable \"num\" { type = number }\n",
        files: &[("terraform.tfvars", "\n\nnum = \"notnum\"\n")],
        args: &["plan"],
        env: &[],
    },
    Case {
        name: "auto-tfvars",
        config: "variable \"num\" { type = number }\n",
        files: &[("x.auto.tfvars", "num = \"notnum\"\n")],
        args: &["plan"],
        env: &[],
    },
    Case {
        name: "var-file",
        config: NUMBER,
        files: &[("bad.tfvars", "n = \"abc\"\n")],
        args: &["plan", "-var-file=./bad.tfvars"],
        env: &[],
    },
    Case {
        name: "var",
        config: NUMBER,
        files: &[],
        args: &["plan", "-input=false", "-var", "n=abc"],
        env: &[],
    },
    Case {
        name: "var-apply",
        config: NUMBER,
        files: &[],
        args: &["apply", "-input=false", "-var", "n=abc"],
        env: &[],
    },
    Case {
        name: "env",
        config: NUMBER,
        files: &[],
        args: &["plan", "-input=false"],
        env: &[("TF_VAR_n", "abc")],
    },
    Case {
        name: "nested",
        config: LIST,
        files: &[("bad.tfvars", "n = [1, \"x\"]\nsecret = \"s\"\n")],
        args: &["plan", "-var-file=bad.tfvars", "-var", "n=[1, \"y\"]"],
        env: &[],
    },
    Case {
        name: "nested-file",
        config: LIST,
        files: &[("bad.tfvars", "n = [1, \"x\"]\nsecret = \"s\"\n")],
        args: &["plan", "-var-file=bad.tfvars"],
        env: &[],
    },
    Case {
        name: "null-var",
        config: NOT_NULL,
        files: &[],
        args: &["plan", "-var", "not_null=null"],
        env: &[],
    },
    Case {
        name: "null-file",
        config: NOT_NULL,
        files: &[("null.tfvars", "not_null = null\n")],
        args: &["plan", "-var-file=null.tfvars"],
        env: &[],
    },
    Case {
        name: "unparsable",
        config: LIST,
        files: &[],
        args: &["plan", "-input=false", "-var", "n=[1,"],
        env: &[],
    },
    Case {
        name: "validation",
        config: VALIDATED,
        files: &[],
        args: &["plan"],
        env: &[],
    },
    Case {
        name: "validation-refresh-only",
        config: VALIDATED,
        files: &[],
        args: &["plan", "-refresh-only"],
        env: &[],
    },
    Case {
        name: "validation-apply",
        config: VALIDATED,
        files: &[],
        args: &["apply", "-auto-approve"],
        env: &[],
    },
];

fn run_case(case: &Case, tool: &str) -> Run {
    let work = Work::new(
        &format!("variable-values-{}-{tool}", case.name),
        Overrides {
            bundled: false,
            aws: false,
        },
    );
    work.write("main.tf", case.config);
    for (name, text) in case.files {
        work.write(name, text);
    }
    match tool {
        "terrace" => work.terrace_env(case.args, case.env),
        _ => work.terraform_env(case.args, case.env),
    }
}

/// Exit status, standard output with the product's name made alike, and
/// standard error.
fn outcome(run: &Run) -> (Option<i32>, String, String) {
    (
        run.code,
        run.stdout.replace("Terraform", "terrace"),
        run.stderr.clone(),
    )
}

fn case(name: &str) -> &'static Case {
    match CASES.iter().find(|c| c.name == name) {
        Some(c) => c,
        None => panic!("no case {name}"),
    }
}

#[test]
fn unsuitable_values_are_reported_as_terraform_reports_them() {
    let expectations: &[(&str, &str)] = &[
        ("tfvars", "  on terraform.tfvars line 3:\n"),
        ("auto-tfvars", "  on x.auto.tfvars line 1:\n"),
        ("var-file", "  on ./bad.tfvars line 1:\n"),
        (
            "var",
            "  on main.tf line 1:\n   1: variable \"n\" { type = number }\n\nUnsuitable value for var.n set using -var=\"n=...\": a number is required.\n",
        ),
        (
            "env",
            "Unsuitable value for var.n set using the TF_VAR_n environment variable: a\nnumber is required.\n",
        ),
        (
            "nested-file",
            "The given value is not suitable for var.n declared at main.tf:2,1-13: a\nnumber is required.\n",
        ),
        (
            "nested-file",
            "The given value is not suitable for var.secret, which is sensitive: a number\nis required. Invalid value defined at bad.tfvars:2,10-13.\n",
        ),
        (
            "null-var",
            "Unsuitable value for var.not_null set using -var=\"not_null=...\": required\nvariable may not be set to null.\n",
        ),
    ];
    for (name, expected) in expectations {
        let run = run_case(case(name), "terrace");
        assert_eq!(run.code, Some(1), "{name}: {}", run.output());
        assert!(
            run.stderr.contains(expected),
            "{name}: {expected:?} in:\n{}",
            run.stderr
        );
    }
    let planning_failed =
        "\nPlanning failed. terrace encountered an error while generating this plan.\n\n";
    for name in ["var", "tfvars", "validation", "validation-refresh-only"] {
        let run = run_case(case(name), "terrace");
        assert_eq!(run.stdout, planning_failed, "{name}: {}", run.output());
    }
    for name in ["var-apply", "validation-apply", "unparsable"] {
        let run = run_case(case(name), "terrace");
        assert!(
            !run.stdout.contains("Planning failed"),
            "{name}: {}",
            run.output()
        );
    }
    if have_terraform() {
        for case in CASES {
            let terrace = outcome(&run_case(case, "terrace"));
            let terraform = outcome(&run_case(case, "terraform"));
            assert_eq!(terrace, terraform, "{}", case.name);
        }
    }
}
