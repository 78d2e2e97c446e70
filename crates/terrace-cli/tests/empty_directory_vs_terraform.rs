//! Commands run in a directory with no configuration and no state,
//! beside terraform 1.11.4: `plan` and `apply` refuse ("No configuration
//! files": planning would destroy everything a state has) unless
//! destroying; `destroy`, `show` and the state commands say what they
//! say there.

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};

const COMMANDS: &[&[&str]] = &[
    &["plan"],
    &["plan", "-refresh-only"],
    &["apply"],
    &["apply", "-refresh-only"],
    &["plan", "-destroy"],
    &["destroy"],
    &["show"],
    &["state", "list"],
    &["state", "show", "x.y"],
];

fn run(tool: &str, args: &[&str]) -> Run {
    let work = Work::new(
        &format!("empty-directory-{tool}"),
        Overrides {
            bundled: false,
            aws: false,
        },
    );
    match tool {
        "terrace" => work.terrace(args),
        _ => work.terraform(args),
    }
}

/// Exit status, standard output and standard error, the product's name
/// made alike.
fn outcome(run: &Run) -> (Option<i32>, String, String) {
    let alike = |text: &str| {
        text.replace("Terraform", "terrace")
            .replace("'terraform ", "'terrace ")
            .replace("\"terraform ", "\"terrace ")
    };
    (run.code, alike(&run.stdout), alike(&run.stderr))
}

#[test]
fn plan_and_apply_refuse_to_run_without_configuration() {
    for (args, detail) in [
        (&["plan"][..], "Plan requires configuration to be present."),
        (
            &["apply"][..],
            "Apply requires configuration to be present.",
        ),
    ] {
        let done = run("terrace", args);
        assert_eq!(done.code, Some(1), "{args:?}: {}", done.output());
        assert!(
            done.stderr
                .starts_with(&format!("\nError: No configuration files\n\n{detail}")),
            "{args:?}: {}",
            done.stderr
        );
    }
    let destroy = run("terrace", &["destroy", "-auto-approve"]);
    assert_eq!(destroy.code, Some(0), "{}", destroy.output());
    if have_terraform() {
        for args in COMMANDS {
            assert_eq!(
                outcome(&run("terrace", args)),
                outcome(&run("terraform", args)),
                "{args:?}"
            );
        }
    }
}
