//! Values given for the root module's variables that do not suit them,
//! beside terraform 1.11.4: an automatically loaded variables file is
//! named as terraform names it (`terraform.tfvars`, not
//! `./terraform.tfvars`), a `-var-file` as given.

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};

const NUMBER: &str = "variable \"n\" { type = number }\n";

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

/// Exit status and standard error.
fn outcome(run: &Run) -> (Option<i32>, String) {
    (run.code, run.stderr.clone())
}

fn case(name: &str) -> &'static Case {
    match CASES.iter().find(|c| c.name == name) {
        Some(c) => c,
        None => panic!("no case {name}"),
    }
}

#[test]
fn variables_files_are_named_as_terraform_names_them() {
    let expectations: &[(&str, &str)] = &[
        ("tfvars", "  on terraform.tfvars line 3:\n"),
        ("auto-tfvars", "  on x.auto.tfvars line 1:\n"),
        ("var-file", "  on ./bad.tfvars line 1:\n"),
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
    if have_terraform() {
        for case in CASES {
            let terrace = outcome(&run_case(case, "terrace"));
            let terraform = outcome(&run_case(case, "terraform"));
            assert_eq!(terrace, terraform, "{}", case.name);
        }
    }
}
