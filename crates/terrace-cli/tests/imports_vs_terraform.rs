//! Imports beside terraform 1.11.4: an imported object the plan replaces
//! is imported, then destroyed (never left behind), with or without
//! `create_before_destroy`; a saved plan made with
//! `-generate-config-out` carries the generated configuration, so
//! applying it imports; generation is refused in refresh-only and destroy
//! plans; and `console` shows a declared resource the state does not hold
//! yet as known after apply, and reports the configuration's own errors
//! before going on with what failed unknown.

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};

fn work(name: &str, tool: &str) -> Work {
    Work::new(
        &format!("imports-{name}-{tool}"),
        Overrides {
            bundled: false,
            aws: false,
        },
    )
}

/// The lines about the resources and the summaries, ids of new objects
/// and deposed keys made alike.
fn progress(run: &Run) -> Vec<String> {
    run.stdout
        .lines()
        .filter(|l| l.starts_with("terraform_data.") || l.starts_with("Apply complete"))
        .map(|l| {
            let l = match l.find("[id=") {
                Some(at) if l[at..].len() > 30 => format!("{}[id=NEW]", &l[..at]),
                _ => l.to_string(),
            };
            match l.find("(deposed object ") {
                Some(at) => format!("{}(deposed object KEY){}", &l[..at], &l[at + 25..]),
                None => l,
            }
        })
        .collect()
}

const REPLACED: &str = r#"
import {
  to = terraform_data.t
  id = "t-1"
}
resource "terraform_data" "t" {
  triggers_replace = "x"
  LIFECYCLE
}
"#;

fn replaced(tool: &str, lifecycle: &str) -> (Vec<String>, Vec<String>) {
    let work = work(&format!("replaced{}", lifecycle.len()), tool);
    work.write("main.tf", &REPLACED.replace("LIFECYCLE", lifecycle));
    work.with_tool_ok(tool, &["init"]);
    work.with_tool_ok(tool, &["plan", "-out=p"]);
    let apply = work.with_tool_ok(tool, &["apply", "p"]);
    (progress(&apply), work.state_addresses())
}

#[test]
fn an_imported_object_that_is_replaced_is_destroyed() {
    for lifecycle in ["", "lifecycle { create_before_destroy = true }"] {
        let terrace = replaced("terrace", lifecycle);
        assert!(
            terrace
                .0
                .iter()
                .any(|l| l.contains("Destroying... [id=t-1]")),
            "{lifecycle}: {:#?}",
            terrace.0
        );
        assert!(
            terrace.0.contains(
                &"Apply complete! Resources: 1 imported, 1 added, 0 changed, 1 destroyed."
                    .to_string()
            ),
            "{lifecycle}: {:#?}",
            terrace.0
        );
        if have_terraform() {
            assert_eq!(terrace, replaced("terraform", lifecycle), "{lifecycle}");
        }
    }
}

fn generated(tool: &str) -> (Vec<String>, Vec<String>, Option<i32>) {
    let work = work("generated", tool);
    work.write(
        "main.tf",
        "import {\n  to = terraform_data.gen\n  id = \"g\"\n}\n",
    );
    work.with_tool_ok(tool, &["init"]);
    let refused = work.with_tool(
        tool,
        &["plan", "-refresh-only", "-generate-config-out=gen.tf"],
    );
    assert!(
        refused
            .all()
            .contains("Error: Invalid generate-config-out flag"),
        "{tool}: {}",
        refused.output()
    );
    work.with_tool_ok(tool, &["plan", "-generate-config-out=gen.tf", "-out=p"]);
    let apply = work.with_tool_ok(tool, &["apply", "p"]);
    (progress(&apply), work.state_addresses(), refused.code)
}

#[test]
fn a_saved_plan_with_generated_configuration_imports() {
    let terrace = generated("terrace");
    assert_eq!(terrace.1, ["terraform_data.gen"]);
    assert_eq!(terrace.2, Some(1));
    if have_terraform() {
        assert_eq!(terrace, generated("terraform"));
    }
}

fn console(tool: &str) -> Vec<String> {
    let work = work("console", tool);
    work.write(
        "main.tf",
        "resource \"terraform_data\" \"a\" { input = \"x\" }\nresource \"terraform_data\" \"c\" {\n  count = 2\n}\n",
    );
    work.with_tool_ok(tool, &["init"]);
    [
        "terraform_data.a.input",
        "terraform_data.c",
        "length(terraform_data.c)",
    ]
    .iter()
    .map(|expr| {
        let done = work.with_tool_input(tool, &["console"], &format!("{expr}\n"));
        format!("{:?} {}", done.code, done.stdout.trim_end())
    })
    .collect()
}

#[test]
fn console_shows_a_resource_not_applied_yet_as_known_after_apply() {
    let terrace = console("terrace");
    for line in &terrace {
        assert_eq!(line, "Some(0) (known after apply)");
    }
    if have_terraform() {
        assert_eq!(terrace, console("terraform"));
    }
}

fn console_with_errors(tool: &str) -> Vec<(Option<i32>, String, String)> {
    let work = work("console-errors", tool);
    work.write(
        "main.tf",
        "locals {\n  l  = upper(1, 2)\n  ok = \"fine\"\n}\noutput \"o\" { value = upper(1, 2) }\n",
    );
    work.with_tool_ok(tool, &["init"]);
    ["local.ok", "local.l"]
        .iter()
        .map(|expr| {
            let done = work.with_tool_input(tool, &["console"], &format!("{expr}\n"));
            let errors = done
                .stderr
                .matches("Error: Too many function arguments")
                .count();
            (
                done.code,
                done.stdout.trim().to_string(),
                format!("{errors} errors"),
            )
        })
        .collect()
}

#[test]
fn console_reports_configuration_errors_and_goes_on() {
    let terrace = console_with_errors("terrace");
    let warning =
        "Warning: Due to the problems above, some expressions may produce unexpected results.";
    assert_eq!(
        terrace,
        [
            (
                Some(0),
                format!("{warning}\n\n\n\"fine\""),
                "2 errors".to_string()
            ),
            (
                Some(0),
                format!("{warning}\n\n\n(known after apply)"),
                "2 errors".to_string()
            ),
        ]
    );
    if have_terraform() {
        assert_eq!(terrace, console_with_errors("terraform"));
    }
}
