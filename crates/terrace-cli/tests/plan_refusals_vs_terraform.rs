//! Plans terraform 1.11.4 shows and then refuses, beside terraform: a
//! destroy or replacement of an object with `prevent_destroy` is in the
//! plan shown before the error, and a refresh-only plan whose only change
//! is an output not known yet (which nothing would save) gives no
//! `-detailed-exitcode` 2 and is refused by `apply`, writing no state.

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};

fn work(name: &str, tool: &str) -> Work {
    Work::new(
        &format!("plan-refusals-{name}-{tool}"),
        Overrides {
            bundled: false,
            aws: false,
        },
    )
}

/// Exit code and both streams, the tool's name made alike; left out are
/// blank lines, the lines wrapped around the tool's name, the refreshes
/// (in the order they end) and object ids.
fn text(run: &Run) -> (Option<i32>, String) {
    let all = run
        .all()
        .replace("Terraform", "terrace")
        .replace("  terraform ", "  terrace ");
    let lines: Vec<&str> = all
        .lines()
        .filter(|l| !l.is_empty() && !l.contains("Resource actions are indicated"))
        .filter(|l| !l.starts_with("plan. ") && !l.contains("used the selected providers"))
        .filter(|l| {
            !l.contains("Refreshing state...")
                && !l.trim_start().starts_with("- id ")
                && !l.trim_start().starts_with("~ id ")
        })
        .collect();
    (run.code, lines.join("\n"))
}

const PROTECTED: &str = r#"
variable "t" { default = "1" }
resource "terraform_data" "a" {
  lifecycle { prevent_destroy = true }
}
resource "terraform_data" "r" {
  triggers_replace = var.t
  lifecycle { prevent_destroy = true }
}
"#;

fn protected(tool: &str) -> Vec<(Option<i32>, String)> {
    let work = work("protected", tool);
    work.write("main.tf", PROTECTED);
    assert_eq!(work.with_tool(tool, &["init"]).code, Some(0));
    assert_eq!(
        work.with_tool(tool, &["apply", "-auto-approve"]).code,
        Some(0)
    );
    vec![
        text(&work.with_tool(tool, &["plan", "-destroy"])),
        text(&work.with_tool(tool, &["plan", "-var", "t=2"])),
    ]
}

#[test]
fn a_protected_object_is_planned_then_refused() {
    let terrace = protected("terrace");
    for (code, out) in &terrace {
        assert_eq!(*code, Some(1), "{out}");
        assert!(
            out.contains("planned the following actions, but then encountered a problem:"),
            "{out}"
        );
        assert!(out.contains("Error: Instance cannot be destroyed"), "{out}");
    }
    assert!(
        terrace[0]
            .1
            .contains("# terraform_data.a will be destroyed"),
        "{}",
        terrace[0].1
    );
    assert!(
        terrace[1].1.contains("# terraform_data.r must be replaced"),
        "{}",
        terrace[1].1
    );
    if have_terraform() {
        assert_eq!(terrace, protected("terraform"));
    }
}

const UNKNOWN_OUTPUT: &str = r#"
resource "terraform_data" "n" {}
output "unk" { value = terraform_data.n.id }
"#;

fn unknown_output(tool: &str) -> (Option<i32>, Option<i32>, bool) {
    let work = work("unknown-output", tool);
    work.write("main.tf", UNKNOWN_OUTPUT);
    assert_eq!(work.with_tool(tool, &["init"]).code, Some(0));
    let plan = work.with_tool(tool, &["plan", "-refresh-only", "-detailed-exitcode"]);
    let apply = work.with_tool(tool, &["apply", "-refresh-only", "-auto-approve"]);
    if apply.code == Some(1) {
        assert!(
            apply
                .all()
                .contains("Error: Cannot apply non-applyable plan"),
            "{tool}: {}",
            apply.output()
        );
    }
    (
        plan.code,
        apply.code,
        work.path("terraform.tfstate").exists(),
    )
}

#[test]
fn a_refresh_only_plan_of_an_unknown_output_alone_is_not_applied() {
    let terrace = unknown_output("terrace");
    assert_eq!(terrace, (Some(0), Some(1), false));
    if have_terraform() {
        assert_eq!(terrace, unknown_output("terraform"));
    }
}

/// `refresh` with nothing in the state warns that there is nothing to
/// refresh; `apply` of a plan file that is not there names the file and
/// the error of looking at it.
fn nothing_there(tool: &str) -> Vec<(Option<i32>, String)> {
    let work = work("nothing-there", tool);
    work.write("main.tf", "resource \"terraform_data\" \"a\" {}\n");
    assert_eq!(work.with_tool(tool, &["init"]).code, Some(0));
    vec![
        text(&work.with_tool(tool, &["refresh"])),
        text(&work.with_tool(tool, &["apply", "missing.tfplan"])),
    ]
}

#[test]
fn nothing_to_refresh_and_no_plan_file_are_said_as_terraform_says_them() {
    let terrace = nothing_there("terrace");
    assert_eq!(terrace[0].0, Some(0));
    assert!(
        terrace[0]
            .1
            .contains("Warning: Empty or non-existent state"),
        "{}",
        terrace[0].1
    );
    assert_eq!(terrace[1].0, Some(1));
    assert!(
        terrace[1]
            .1
            .contains("Error: Failed to load \"missing.tfplan\" as a plan file")
            && terrace[1]
                .1
                .contains("Error: stat missing.tfplan: no such file or directory"),
        "{}",
        terrace[1].1
    );
    if have_terraform() {
        assert_eq!(terrace, nothing_there("terraform"));
    }
}

/// A plan that fails part way is still saved by `-out`: `show` prints what
/// it held under terraform's heading for a failed plan, and `apply`
/// refuses it.
fn errored_saved_plan(tool: &str) -> Vec<(Option<i32>, String)> {
    let work = work("errored-saved", tool);
    work.write(
        "main.tf",
        "variable \"s\" { default = \"x\" }\nresource \"terraform_data\" \"a\" {}\nresource \"terraform_data\" \"b\" { input = tonumber(var.s) }\n",
    );
    assert_eq!(work.with_tool(tool, &["init"]).code, Some(0));
    let plan = work.with_tool(tool, &["plan", "-out=p"]);
    assert_eq!(plan.code, Some(1), "{tool}: {}", plan.output());
    vec![
        text(&work.with_tool(tool, &["show", "p"])),
        text(&work.with_tool(tool, &["apply", "p"])),
    ]
}

#[test]
fn a_plan_that_failed_is_saved_and_refused() {
    let terrace = errored_saved_plan("terrace");
    assert_eq!(terrace[0].0, Some(0));
    assert!(
        terrace[0]
            .1
            .contains("planned the following actions, but then encountered a problem:"),
        "{}",
        terrace[0].1
    );
    assert_eq!(terrace[1].0, Some(1));
    assert!(
        terrace[1].1.contains("Error: Cannot apply incomplete plan"),
        "{}",
        terrace[1].1
    );
    if have_terraform() {
        assert_eq!(terrace, errored_saved_plan("terraform"));
    }
}

/// `destroy` reads a plan file it is given and refuses it; `apply` and
/// `destroy` take at most one argument.
fn destroy_with_plan_file(tool: &str) -> Vec<(Option<i32>, String)> {
    let work = work("destroy-plan-file", tool);
    work.write("main.tf", "resource \"terraform_data\" \"a\" {}\n");
    assert_eq!(work.with_tool(tool, &["init"]).code, Some(0));
    assert_eq!(work.with_tool(tool, &["plan", "-out=p"]).code, Some(0));
    vec![
        text(&work.with_tool(tool, &["destroy", "-auto-approve", "p"])),
        text(&work.with_tool(tool, &["apply", "p", "extra"])),
        text(&work.with_tool(tool, &["destroy", "p", "extra"])),
    ]
}

#[test]
fn destroy_refuses_a_plan_file_and_extra_arguments() {
    let terrace = destroy_with_plan_file("terrace");
    assert!(
        terrace[0]
            .1
            .contains("Error: Destroy can't be called with a plan file"),
        "{}",
        terrace[0].1
    );
    for (code, out) in &terrace[1..] {
        assert_eq!(*code, Some(1));
        assert!(
            out.contains("Expected at most one positional argument."),
            "{out}"
        );
    }
    if have_terraform() {
        assert_eq!(terrace, destroy_with_plan_file("terraform"));
    }
}

/// A refresh-only apply that saves changed outputs saves one not known
/// yet with its unknown parts null, of the type it will have.
fn refresh_only_outputs(tool: &str) -> (String, serde_json::Value) {
    let work = work("refresh-only-outputs", tool);
    work.write(
        "main.tf",
        "resource \"terraform_data\" \"a\" { input = \"a\" }\noutput \"chg\" { value = \"x\" }\n",
    );
    assert_eq!(work.with_tool(tool, &["init"]).code, Some(0));
    work.with_tool_ok(tool, &["apply", "-auto-approve"]);
    work.write(
        "main.tf",
        "resource \"terraform_data\" \"a\" { input = \"a\" }\nresource \"terraform_data\" \"new\" {}\noutput \"chg\" { value = \"y\" }\noutput \"unk\" { value = terraform_data.new.id }\noutput \"obj\" { value = { a = terraform_data.new.id, b = \"k\" } }\n",
    );
    work.with_tool_ok(tool, &["apply", "-refresh-only", "-auto-approve"]);
    let output = work.with_tool_ok(tool, &["output"]).stdout;
    (output, work.state()["outputs"].clone())
}

#[test]
fn a_refresh_only_apply_saves_outputs_not_known_yet_as_null() {
    let terrace = refresh_only_outputs("terrace");
    assert!(terrace.0.contains("unk = tostring(null)"), "{}", terrace.0);
    assert_eq!(terrace.1["unk"]["type"], "string");
    if have_terraform() {
        assert_eq!(terrace, refresh_only_outputs("terraform"));
    }
}
