//! Command-line arguments in Terraform's style: single-dash long flags
//! (`-var`, `-no-color`), also accepted with two dashes, values either as
//! `-flag=value` or as the next argument.

use terrace_value::gostr::quote;

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
    "filter",
    "junit-xml",
    "test-directory",
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

/// Flags in order (name, value) and the arguments after them.
pub(crate) type ParsedFlags = (Vec<(String, String)>, Vec<String>);

/// Why a command line's flags were not taken.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum FlagError {
    /// `-help` or `-h`: the command's usage is wanted, not an error.
    Help,
    /// The `flag` package's text for a bad flag.
    Invalid(String),
}

impl std::fmt::Display for FlagError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FlagError::Help => f.write_str("flag: help requested"),
            FlagError::Invalid(text) => f.write_str(text),
        }
    }
}

/// Go's `flag` package: `-name`, `--name`, `-name=value`, `-name value`
/// for non-boolean flags; parsing stops at the first non-flag argument or
/// after `--`. Returns the flags in order and the remaining arguments.
pub(crate) fn parse_go_flags(
    argv: &[String],
    bools: &[&str],
    strings: &[&str],
) -> Result<ParsedFlags, FlagError> {
    let mut flags = Vec::new();
    let mut i = 0;
    while i < argv.len() {
        let arg = &argv[i];
        if arg == "--" {
            i += 1;
            break;
        }
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        let body = arg.strip_prefix("--").unwrap_or(&arg[1..]);
        if body.is_empty() || body.starts_with('-') || body.starts_with('=') {
            return Err(FlagError::Invalid(format!("bad flag syntax: {arg}")));
        }
        let (name, value) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        if bools.contains(&name) {
            let value = value.unwrap_or_else(|| "true".into());
            let parsed = match value.as_str() {
                "1" | "t" | "T" | "TRUE" | "true" | "True" => "true",
                "0" | "f" | "F" | "FALSE" | "false" | "False" => "false",
                _ => {
                    return Err(FlagError::Invalid(format!(
                        "invalid boolean value {} for -{name}: parse error",
                        quote(&value)
                    )))
                }
            };
            flags.push((name.to_string(), parsed.to_string()));
        } else if strings.contains(&name) {
            let value = match value {
                Some(v) => v,
                None => {
                    i += 1;
                    match argv.get(i) {
                        Some(v) => v.clone(),
                        None => {
                            return Err(FlagError::Invalid(format!(
                                "flag needs an argument: -{name}"
                            )))
                        }
                    }
                }
            };
            flags.push((name.to_string(), value));
        } else if name == "help" || name == "h" {
            return Err(FlagError::Help);
        } else {
            return Err(FlagError::Invalid(format!(
                "flag provided but not defined: -{name}"
            )));
        }
        i += 1;
    }
    Ok((flags, argv[i..].to_vec()))
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
mod go_flags_and_shell_words_tests {
    use super::{parse_go_flags, shell_words, FlagError};

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

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn go_flag_parsing() {
        let bools = ["upgrade", "no-color", "backend"];
        let strings = ["plugin-dir", "backend-config"];
        assert_eq!(
            parse_go_flags(
                &args(&[
                    "-upgrade",
                    "--backend=false",
                    "-plugin-dir",
                    "/a",
                    "-plugin-dir=/b",
                    "-backend-config=path=x",
                    "rest",
                    "-no-color"
                ]),
                &bools,
                &strings
            ),
            Ok((
                vec![
                    ("upgrade".into(), "true".into()),
                    ("backend".into(), "false".into()),
                    ("plugin-dir".into(), "/a".into()),
                    ("plugin-dir".into(), "/b".into()),
                    ("backend-config".into(), "path=x".into()),
                ],
                args(&["rest", "-no-color"])
            ))
        );
        assert_eq!(
            parse_go_flags(&args(&["-bogus"]), &bools, &strings),
            Err(FlagError::Invalid(
                "flag provided but not defined: -bogus".into()
            ))
        );
        assert_eq!(
            parse_go_flags(&args(&["-upgrade=maybe"]), &bools, &strings),
            Err(FlagError::Invalid(
                "invalid boolean value \"maybe\" for -upgrade: parse error".into()
            ))
        );
        assert_eq!(
            parse_go_flags(&args(&["-plugin-dir"]), &bools, &strings),
            Err(FlagError::Invalid(
                "flag needs an argument: -plugin-dir".into()
            ))
        );
        for help in ["-help", "-h", "--help"] {
            assert_eq!(
                parse_go_flags(&args(&["-upgrade", help, "-bogus"]), &bools, &strings),
                Err(FlagError::Help)
            );
        }
    }
}
