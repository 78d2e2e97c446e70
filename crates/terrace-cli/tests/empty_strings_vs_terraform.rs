//! Empty strings beside terraform 1.11.4. An attribute of any type
//! (`terraform_data`'s `input`) holding "" is shown as "" in plans,
//! `state show` and `show` (only a string attribute's "" is shown as null
//! and hidden, as the legacy SDK cannot tell the two apart); and `show`
//! of a state writes every "" in a root output as null, where plans show
//! "".

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};

const CONFIG: &str = r#"
resource "terraform_data" "d" { input = "" }
resource "terraform_data" "e" {
  input = { a = "", b = ["", "x"] }
}
output "a" { value = "" }
output "b" { value = { x = "", y = "z" } }
output "c" { value = ["", "q"] }
output "h" { value = { n = { m = "" } } }
"#;

fn run(work: &Work, tool: &str, args: &[&str]) -> String {
    let done: Run = work.with_tool_ok(tool, args);
    // Ids, the lines that name the tool (wrapped differently) and the
    // refreshes (in the order they end).
    done.stdout
        .lines()
        .filter(|l| {
            !l.contains("Terraform")
                && !l.contains("terrace")
                && !l.starts_with("plan.")
                && !l.starts_with("Resource actions")
                && !l.contains("Refreshing state...")
        })
        .map(|l| match l.find("[id=") {
            Some(at) => format!("{}[id=ID]", &l[..at]),
            None if l.contains("id     = \"") || l.contains("id = \"") => "ID LINE".to_string(),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn texts(tool: &str) -> Vec<String> {
    let work = Work::new(
        &format!("empty-strings-{tool}"),
        Overrides {
            bundled: false,
            aws: false,
        },
    );
    work.write("main.tf", CONFIG);
    run(&work, tool, &["init"]);
    let mut out = vec![run(&work, tool, &["plan"])];
    run(&work, tool, &["apply", "-auto-approve"]);
    out.push(run(&work, tool, &["state", "show", "terraform_data.d"]));
    out.push(run(&work, tool, &["show"]));
    out.push(run(&work, tool, &["plan", "-destroy"]));
    out
}

#[test]
fn empty_strings_are_shown_as_terraform_shows_them() {
    let terrace = texts("terrace");
    assert!(
        terrace[0].contains("      + input  = \"\"\n"),
        "{}",
        terrace[0]
    );
    assert!(terrace[1].contains("    input  = \"\"\n"), "{}", terrace[1]);
    assert!(terrace[2].contains("\na = null\n"), "{}", terrace[2]);
    assert!(terrace[2].contains("        m = null\n"), "{}", terrace[2]);
    assert!(
        terrace[3].contains("      - input  = \"\" -> null\n"),
        "{}",
        terrace[3]
    );
    if have_terraform() {
        let terraform = texts("terraform");
        for (i, (a, b)) in terrace.iter().zip(&terraform).enumerate() {
            assert_eq!(a, b, "text {i}");
        }
    }
}
