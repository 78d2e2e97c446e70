//! `moved` statements whose source the configuration still declares,
//! beside terraform 1.11.4: the error names where it is declared (the
//! `for_each` or `count` expression that makes an instance, the block of
//! a resource), and no plan is shown, since the prior state was moved
//! wrongly before planning.

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};

const BEFORE: &str = r#"
resource "terraform_data" "a" {
  for_each = toset(["x", "y"])
  input    = each.key
}

resource "terraform_data" "single" {
  input = "s"
}

module "m" {
  source = "./mod"
  count  = 2
}
"#;

const AFTER: &str = r#"
resource "terraform_data" "b" {
  for_each = toset(["x", "y", "z"])
  input    = each.key
}

moved {
  from = terraform_data.a
  to   = terraform_data.b
}

moved {
  from = terraform_data.b["y"]
  to   = terraform_data.b["z"]
}

resource "terraform_data" "single" {
  input = "s"
}

resource "terraform_data" "other" {
  input = "s"
}

moved {
  from = terraform_data.single
  to   = terraform_data.other
}

module "m" {
  source = "./mod"
  count  = 2
}

module "n" {
  source = "./mod"
}

moved {
  from = module.m[1]
  to   = module.n
}
"#;

const MODULE: &str = r#"
resource "terraform_data" "x" {
  input = "x"
}
"#;

/// What `plan` says about the configuration after the moves.
fn plan_after_moves(tool: &str) -> Run {
    let work = Work::new(
        &format!("moved-still-declared-{tool}"),
        Overrides {
            bundled: false,
            aws: false,
        },
    );
    work.write("main.tf", BEFORE);
    work.write("mod/main.tf", MODULE);
    for args in [&["init"][..], &["apply", "-auto-approve"]] {
        let done = work.with_tool(tool, args);
        assert_eq!(done.code, Some(0), "{tool} {args:?}: {}", done.output());
    }
    work.write("main.tf", AFTER);
    let init = work.with_tool(tool, &["init"]);
    assert_eq!(init.code, Some(0), "{tool} init: {}", init.output());
    work.with_tool(tool, &["plan"])
}

/// The error lines, in order, without the tool's name.
fn errors(run: &Run) -> Vec<String> {
    run.all()
        .lines()
        .filter(|l| {
            l.contains("still declared")
                || l.contains("Error:")
                || l.contains("instead.")
                || l.starts_with("Change your configuration")
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn a_source_still_declared_is_named_where_it_is_declared_and_nothing_is_planned() {
    let terrace = plan_after_moves("terrace");
    assert_eq!(terrace.code, Some(1), "{}", terrace.output());
    let text = terrace.all();
    for expected in [
        "instance is still declared at main.tf:3,14.",
        "is still declared at main.tf:17,1.",
        "still declared at main.tf:32,12.",
    ] {
        assert!(text.contains(expected), "{expected:?} in:\n{text}");
    }
    for planned in ["Plan:", "will be created", "has moved to"] {
        assert!(!text.contains(planned), "{planned:?} in:\n{text}");
    }
    if have_terraform() {
        let terraform = plan_after_moves("terraform");
        assert_eq!(terraform.code, Some(1), "{}", terraform.output());
        assert_eq!(errors(&terrace), errors(&terraform));
    }
}
