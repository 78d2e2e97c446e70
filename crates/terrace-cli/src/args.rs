//! Command-line arguments in Terraform's style: single-dash long flags
//! (`-var`, `-no-color`), also accepted with two dashes, values either as
//! `-flag=value` or as the next argument.

/// One parsed flag or positional argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    Flag { name: String, value: Option<String> },
    Positional(String),
}

/// Flags that take a value in the next argument when not given `=value`.
const FLAGS_WITH_VALUES: &[&str] = &[
    "var",
    "var-file",
    "chdir",
    "state",
    "state-out",
    "backup",
    "plan",
    "target",
    "exclude",
    "replace",
    "out",
    "parallelism",
    "lock-timeout",
];

pub fn parse(args: &[String]) -> Vec<Arg> {
    let mut out = Vec::new();
    let mut iter = args.iter();
    let mut only_positionals = false;
    while let Some(arg) = iter.next() {
        if only_positionals || !arg.starts_with('-') || arg == "-" {
            out.push(Arg::Positional(arg.clone()));
            continue;
        }
        if arg == "--" {
            only_positionals = true;
            continue;
        }
        let body = arg.trim_start_matches('-');
        let (name, value) = match body.split_once('=') {
            Some((name, value)) => (name.to_string(), Some(value.to_string())),
            None => {
                if FLAGS_WITH_VALUES.contains(&body) {
                    (body.to_string(), iter.next().cloned())
                } else {
                    (body.to_string(), None)
                }
            }
        };
        out.push(Arg::Flag { name, value });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_terraform_style_flags() {
        let parsed = parse(&strings(&[
            "-var",
            "a=1",
            "--var=b=2",
            "-no-color",
            "-var-file=x.tfvars",
            "pos",
        ]));
        assert_eq!(
            parsed,
            vec![
                Arg::Flag {
                    name: "var".into(),
                    value: Some("a=1".into())
                },
                Arg::Flag {
                    name: "var".into(),
                    value: Some("b=2".into())
                },
                Arg::Flag {
                    name: "no-color".into(),
                    value: None
                },
                Arg::Flag {
                    name: "var-file".into(),
                    value: Some("x.tfvars".into())
                },
                Arg::Positional("pos".into()),
            ]
        );
    }
}
