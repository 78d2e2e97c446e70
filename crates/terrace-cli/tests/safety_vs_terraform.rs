//! Nothing goes wrong silently: inputs that once crashed terrace or made it
//! print what terraform hides, run through both tools side by side.

mod engine_support;

use engine_support::{have_terraform, Overrides, Work};

fn work(name: &str) -> Work {
    Work::new(
        name,
        Overrides {
            bundled: false,
            aws: false,
        },
    )
}

/// A left-associative chain of 20,000 operators is one expression for
/// terraform, which evaluates it; terrace must too, without a nesting limit
/// and without exhausting its stack.
#[test]
fn a_long_operator_chain_evaluates_as_in_terraform() {
    let terms = 20_000;
    let config = format!(
        "output \"sum\" {{\n  value = {}\n}}\n\noutput \"all\" {{\n  value = {}\n}}\n",
        vec!["1"; terms].join(" + "),
        vec!["true"; terms].join(" && "),
    );
    let expected = ["+ all = true", &format!("+ sum = {terms}")];
    let w = work("long-chain");
    w.write("main.tf", &config);
    let run = w.terrace_ok(&["plan"], 0);
    for line in expected {
        assert!(run.stdout.contains(line), "{}", run.output());
    }
    if !have_terraform() {
        return;
    }
    let run = w.terraform_ok(&["plan"], 0);
    for line in expected {
        assert!(run.stdout.contains(line), "{}", run.output());
    }
}
