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

/// Splits `text` into words as a POSIX shell would, without expansions:
/// blanks separate words, single quotes keep everything, double quotes
/// keep everything but `\"`, `\\`, `\$` and `` \` `` escapes, and a
/// backslash outside quotes escapes the next character (go-shellwords'
/// rules, which terraform uses for `TF_CLI_ARGS`).
pub fn shell_words(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' | '\r' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(next) => word.push(next),
                    None => return Err("invalid command line string".into()),
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(other) => word.push(other),
                        None => return Err("invalid command line string".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(e @ ('"' | '\\' | '$' | '`')) => word.push(e),
                            Some(other) => {
                                word.push('\\');
                                word.push(other);
                            }
                            None => return Err("invalid command line string".into()),
                        },
                        Some(other) => word.push(other),
                        None => return Err("invalid command line string".into()),
                    }
                }
            }
            other => {
                in_word = true;
                word.push(other);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod shell_words_tests {
    use super::shell_words;

    #[test]
    fn splits_as_a_shell_would() {
        let cases: &[(&str, &[&str])] = &[
            ("-auto-approve", &["-auto-approve"]),
            ("  -a   -b ", &["-a", "-b"]),
            (
                "-var 'x=a b' -var \"y=c\\\"d\"",
                &["-var", "x=a b", "-var", "y=c\"d"],
            ),
            ("a\\ b", &["a b"]),
            ("''", &[""]),
        ];
        for (text, want) in cases {
            assert_eq!(shell_words(text).unwrap(), *want, "{text}");
        }
        assert!(shell_words("'open").is_err());
    }
}
