//! A sensitive root output's empty string is shown as no value in a plan,
//! as terraform 1.11.4 shows it: created as "" it is not listed, becoming
//! "" it is removed, and a value that was "" is added. (The real-world
//! `iam-user` example's empty secrets showed where terraform's did not.)

mod engine_support;

use engine_support::{have_terraform, Overrides, Work};

const MAIN: &str = "variable \"a\" {\n  default = \"\"\n}\n\nvariable \"b\" {\n  default = \"x\"\n}\n\noutput \"a\" {\n  value     = var.a\n  sensitive = true\n}\n\noutput \"b\" {\n  value     = var.b\n  sensitive = true\n}\n\noutput \"plain\" {\n  value = \"\"\n}\n";

#[test]
fn sensitive_empty_outputs_are_shown_as_no_value() {
    if !have_terraform() {
        return;
    }
    let [terrace, terraform] = ["terrace", "terraform"].map(|tool| {
        let work = Work::new(
            &format!("sensitive-outputs-{tool}"),
            Overrides {
                bundled: false,
                aws: false,
            },
        );
        work.write("main.tf", MAIN);
        let created = work.with_tool_ok(tool, &["plan"]).stdout;
        work.with_tool_ok(tool, &["apply", "-auto-approve"]);
        let changed = work
            .with_tool_ok(tool, &["plan", "-var", "a=x", "-var", "b="])
            .stdout;
        let same = work
            .with_tool_ok(tool, &["plan", "-var", "a=", "-var", "b=x"])
            .stdout;
        [created, changed, same].map(|text| {
            let text = text.replace("Terraform", "terrace");
            let end = text.find("───").unwrap_or(text.len());
            text[..end].split_whitespace().collect::<Vec<_>>().join(" ")
        })
    });
    assert!(
        terrace[1].contains("+ a = (sensitive value) - b = (sensitive value) -> null"),
        "{terrace:?}"
    );
    assert_eq!(terrace, terraform);
}
