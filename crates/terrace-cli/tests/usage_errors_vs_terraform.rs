//! Command-line usage errors of `plan`, `apply` and `destroy` beside
//! terraform 1.11.4: plain text with `-no-color`, titles naming the
//! address as given (`Invalid target "x"`, `Invalid force-replace address
//! "module.m"`), and the "For more help on using this command" prompt
//! after what the argument parser finds (not after a malformed `-var`,
//! which terraform finds later).

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};

const COMMANDS: [&str; 3] = ["plan", "apply", "destroy"];

const ARGUMENTS: &[&[&str]] = &[
    &["-var", "x"],
    &["-target", "x"],
    &["-replace", "module.m"],
    &["-replace", "data.x.y"],
    &["-refresh-only", "-destroy"],
    &["-target", "a b", "-replace", "foo[", "-bogus"],
    &["-var", "x", "-target", "x"],
];

fn run(tool: &str, command: &str, arguments: &[&str]) -> Run {
    let work = Work::new(
        &format!("usage-errors-{command}-{tool}"),
        Overrides {
            bundled: false,
            aws: false,
        },
    );
    work.write("main.tf", "resource \"terraform_data\" \"a\" {}\n");
    let mut args = vec![command];
    args.extend_from_slice(arguments);
    match tool {
        "terrace" => work.terrace(&args),
        _ => work.terraform(&args),
    }
}

/// Exit status, standard output and standard error, the help prompt's
/// command made alike.
fn outcome(run: &Run, command: &str) -> (Option<i32>, String, String) {
    let help = format!("terraform {command} -help");
    let ours = format!("terrace {command} -help");
    (
        run.code,
        run.stdout.clone(),
        run.stderr.replace(&help, &ours),
    )
}

#[test]
fn usage_errors_are_plain_with_no_color_and_worded_as_terraform_words_them() {
    for command in COMMANDS {
        let target = run("terrace", command, &["-target", "x"]);
        assert_eq!(target.code, Some(1), "{}", target.output());
        assert_eq!(
            target.stderr,
            format!(
                "\nError: Invalid target \"x\"\n\nResource specification must include a resource type and name.\n\nFor more help on using this command, run:\n  terrace {command} -help\n"
            )
        );
        let replace = run("terrace", command, &["-replace", "module.m"]);
        assert!(
            replace
                .stderr
                .starts_with("\nError: Invalid force-replace address \"module.m\"\n"),
            "{}",
            replace.stderr
        );
        let var = run("terrace", command, &["-var", "x"]);
        assert!(
            var.stderr.starts_with("\nError: Invalid -var option\n")
                && !var.stderr.contains("For more help"),
            "{}",
            var.stderr
        );
    }
    if have_terraform() {
        for command in COMMANDS {
            for arguments in ARGUMENTS {
                let terrace = outcome(&run("terrace", command, arguments), command);
                let terraform = outcome(&run("terraform", command, arguments), command);
                assert_eq!(terrace, terraform, "{command} {arguments:?}");
            }
        }
    }
}

/// `-compact-warnings` is accepted by every command that loads the
/// configuration, as terraform's common flags include it; `console` also
/// takes `-input`.
#[test]
fn compact_warnings_is_accepted_everywhere() {
    let codes = |tool: &str| -> Vec<Option<i32>> {
        let work = Work::new(
            &format!("compact-everywhere-{tool}"),
            Overrides {
                bundled: false,
                aws: false,
            },
        );
        work.write("main.tf", "resource \"terraform_data\" \"a\" {}\n");
        [
            &["init", "-compact-warnings"][..],
            &["validate", "-compact-warnings"],
            &["output", "-compact-warnings"],
            &["show", "-compact-warnings"],
        ]
        .iter()
        .map(|args| work.with_tool(tool, args).code)
        .chain(std::iter::once(
            work.with_tool_input(
                tool,
                &["console", "-compact-warnings", "-input=false"],
                "1\n",
            )
            .code,
        ))
        .collect()
    };
    let terrace = codes("terrace");
    assert!(terrace.iter().all(|c| *c == Some(0)), "{terrace:?}");
    if have_terraform() {
        assert_eq!(terrace, codes("terraform"));
    }
}

/// `modules` refuses a flag it does not know, as terraform does.
#[test]
fn modules_refuses_an_unknown_flag() {
    let outcome = |tool: &str| {
        let work = Work::new(
            &format!("modules-flag-{tool}"),
            Overrides {
                bundled: false,
                aws: false,
            },
        );
        work.write("main.tf", "locals {\n  a = 1\n}\n");
        let done = work.with_tool(tool, &["modules", "-bogus"]);
        let text = done.all();
        (
            done.code,
            text.contains("Failed to parse command-line flags")
                && text.contains("flag provided but not defined: -bogus")
                && text.contains("For more help on using this command, run:"),
        )
    };
    let terrace = outcome("terrace");
    assert_eq!(terrace, (Some(1), true));
    if have_terraform() {
        assert_eq!(terrace, outcome("terraform"));
    }
}
