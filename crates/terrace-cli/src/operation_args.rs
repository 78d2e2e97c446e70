//! The flags `plan`, `apply`, `destroy` and `refresh` share, parsed as
//! terraform parses them. Problems are collected as diagnostics so every
//! bad flag is reported at once, before anything is loaded or locked.

use crate::args::Arg;
use std::path::PathBuf;
use std::time::Duration;
use terrace_addrs::{AbsResourceInstance, ResourceMode, Target};
use terrace_config::input_variables::VariableArgument;
use terrace_syntax::PRODUCT;
use terrace_syntax::{Diagnostic, Diagnostics};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Plan,
    Apply,
    Destroy,
    Refresh,
    /// `import ADDR ID`.
    Import,
}

impl Command {
    pub fn name(self) -> &'static str {
        match self {
            Command::Plan => "plan",
            Command::Apply => "apply",
            Command::Destroy => "destroy",
            Command::Refresh => "refresh",
            Command::Import => "import",
        }
    }
}

#[derive(Clone, Debug)]
pub struct OperationArgs {
    pub command: Command,
    pub destroy: bool,
    pub refresh_only: bool,
    pub refresh: bool,
    pub targets: Vec<Target>,
    pub excludes: Vec<Target>,
    pub replace: Vec<AbsResourceInstance>,
    pub variables: Vec<VariableArgument>,
    pub out: Option<PathBuf>,
    /// `plan -html=FILE`: where the HTML report goes.
    pub html: Option<PathBuf>,
    /// `plan -generate-config-out=FILE`: where the configuration generated
    /// for import blocks without a resource goes.
    pub generate_config_out: Option<PathBuf>,
    /// `apply PLANFILE`.
    pub plan_file: Option<PathBuf>,
    /// `import ADDR ID`: the address text and the ID.
    pub import: Option<(String, String)>,
    pub detailed_exitcode: bool,
    pub auto_approve: bool,
    pub parallelism: usize,
    pub lock: bool,
    pub lock_timeout: Duration,
    pub color: bool,
    pub input: bool,
    pub state_path: Option<PathBuf>,
    pub state_out: Option<PathBuf>,
    pub backup_path: Option<PathBuf>,
    pub compact_warnings: bool,
    /// `-json`: the machine-readable stream instead of text; implies
    /// `-input=false` and no colour.
    pub json: bool,
}

impl OperationArgs {
    fn new(command: Command) -> OperationArgs {
        OperationArgs {
            command,
            destroy: command == Command::Destroy,
            refresh_only: command == Command::Refresh,
            refresh: true,
            targets: Vec::new(),
            excludes: Vec::new(),
            replace: Vec::new(),
            variables: Vec::new(),
            out: None,
            html: None,
            generate_config_out: None,
            plan_file: None,
            import: None,
            detailed_exitcode: false,
            auto_approve: command == Command::Refresh,
            parallelism: 10,
            lock: true,
            lock_timeout: Duration::ZERO,
            color: std::env::var_os("NO_COLOR").is_none(),
            input: true,
            state_path: None,
            state_out: None,
            backup_path: None,
            compact_warnings: false,
            json: false,
        }
    }
}

fn flag_error(detail: String) -> Box<Diagnostic> {
    Box::new(Diagnostic::error(
        "Failed to parse command-line flags",
        detail,
    ))
}

fn parse_bool(name: &str, value: Option<&str>) -> Result<bool, Box<Diagnostic>> {
    match value {
        None | Some("true") | Some("1") | Some("t") | Some("T") | Some("TRUE") | Some("True") => {
            Ok(true)
        }
        Some("false") | Some("0") | Some("f") | Some("F") | Some("FALSE") | Some("False") => {
            Ok(false)
        }
        Some(other) => Err(flag_error(format!(
            "invalid boolean value \"{other}\" for -{name}: parse error"
        ))),
    }
}

/// Go's `time.ParseDuration` for the forms people write: `0s`, `10s`,
/// `1m30s`, `500ms`, a bare `0`.
pub fn parse_duration(text: &str) -> Option<Duration> {
    if text == "0" {
        return Some(Duration::ZERO);
    }
    let mut total = 0f64;
    let mut rest = text;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if digits == 0 {
            return None;
        }
        let number: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "ns" => 1e-9,
            "us" | "µs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        rest = &rest[unit_len..];
        total += number * scale;
    }
    Some(Duration::from_secs_f64(total))
}

/// Arguments refused, with how to show them: the command exits with
/// status 1 after printing them.
#[derive(Debug)]
pub struct UsageProblems {
    /// In terraform's order: flags it could not parse, surplus
    /// positional arguments, `-target` and `-replace` addresses, then
    /// options that do not go together.
    pub diags: Diagnostics,
    /// Whether terraform follows them with its "For more help on using
    /// this command" prompt: it does for what its argument parser finds,
    /// not for a malformed `-var`, which it finds later, while collecting
    /// variable values (and only when the rest was fine).
    pub help_prompt: bool,
    /// `-no-color` was not given (and `NO_COLOR` is not set).
    pub color: bool,
    /// `-json` was given: they are shown in the machine-readable stream.
    pub json: bool,
}

/// `"Invalid force-replace address "ADDR"`: how terraform titles a bad
/// `-replace` address, whatever is wrong with it.
fn invalid_force_replace(text: &str, detail: String) -> Diagnostic {
    Diagnostic::error(
        format!(
            "Invalid force-replace address {}",
            terrace_gocompat::strconv::quote(text)
        ),
        detail,
    )
}

/// Parses the arguments of `command`; errors are diagnostics to print
/// before exiting with status 1.
pub fn parse(command: Command, argv: &[String]) -> Result<OperationArgs, UsageProblems> {
    let mut args = OperationArgs::new(command);
    // Flags that do not parse, then (as terraform checks them after its
    // flag parser) the addresses given to -target, -exclude and -replace.
    let mut problems: Diagnostics = Vec::new();
    let mut address_problems: Diagnostics = Vec::new();
    let mut var_problems: Diagnostics = Vec::new();
    let mut positionals = Vec::new();
    for arg in crate::args::parse(argv) {
        let (name, value) = match arg {
            Arg::Positional(p) => {
                positionals.push(p);
                continue;
            }
            Arg::Flag { name, value } => (name, value),
        };
        let result: Result<(), Box<Diagnostic>> = match (name.as_str(), value.as_deref()) {
            // `destroy` takes it too, being `apply -destroy` in terraform.
            ("destroy", v)
                if matches!(command, Command::Plan | Command::Apply | Command::Destroy) =>
            {
                parse_bool(&name, v).map(|b| args.destroy = b)
            }
            ("refresh-only", v) if command != Command::Refresh => {
                parse_bool(&name, v).map(|b| args.refresh_only = b)
            }
            ("refresh", v) => parse_bool(&name, v).map(|b| args.refresh = b),
            ("auto-approve", v) if command != Command::Plan => {
                parse_bool(&name, v).map(|b| args.auto_approve = b)
            }
            ("detailed-exitcode", v) if command == Command::Plan => {
                parse_bool(&name, v).map(|b| args.detailed_exitcode = b)
            }
            ("lock", v) => parse_bool(&name, v).map(|b| args.lock = b),
            ("input", v) => parse_bool(&name, v).map(|b| args.input = b),
            ("no-color", None) => {
                args.color = false;
                Ok(())
            }
            ("compact-warnings", v) => parse_bool(&name, v).map(|b| args.compact_warnings = b),
            ("json", v) if command != Command::Import => {
                parse_bool(&name, v).map(|b| args.json = b)
            }
            ("var", Some(assignment)) => match assignment.split_once('=') {
                Some((var, text)) => {
                    args.variables.push(VariableArgument::Var {
                        name: var.trim().to_string(),
                        text: text.to_string(),
                    });
                    Ok(())
                }
                None => {
                    var_problems.push(Diagnostic::error(
                        "Invalid -var option",
                        format!(
                            "The given -var option {assignment:?} is not correctly specified. \
                                 Must be a variable name and value separated by an equals sign, \
                                 like -var=\"key=value\"."
                        ),
                    ));
                    Ok(())
                }
            },
            ("var-file", Some(path)) => {
                args.variables
                    .push(VariableArgument::File(path.to_string()));
                Ok(())
            }
            ("target", Some(text)) | ("exclude", Some(text)) => match Target::parse_str(text) {
                Ok(target) => {
                    if name == "target" {
                        args.targets.push(target);
                    } else {
                        args.excludes.push(target);
                    }
                    Ok(())
                }
                Err(diags) => {
                    // The first problem only, titled with the address
                    // as given.
                    if let Some(d) = diags.into_iter().next() {
                        address_problems.push(Diagnostic::error(
                            format!("Invalid {name} {}", terrace_gocompat::strconv::quote(text)),
                            d.detail,
                        ));
                    }
                    Ok(())
                }
            },
            ("replace", Some(text)) => match AbsResourceInstance::parse_str(text) {
                Ok(addr) if addr.resource.resource.mode != ResourceMode::Managed => {
                    address_problems.push(invalid_force_replace(
                        text,
                        "Only managed resources can be used with the -replace=... option."
                            .to_string(),
                    ));
                    Ok(())
                }
                Ok(addr) => {
                    args.replace.push(addr);
                    Ok(())
                }
                Err(diags) => {
                    if let Some(d) = diags.into_iter().next() {
                        address_problems.push(invalid_force_replace(text, d.detail));
                    }
                    Ok(())
                }
            },
            ("out", Some(path)) if command == Command::Plan => {
                args.out = Some(PathBuf::from(path));
                Ok(())
            }
            ("generate-config-out", Some(path)) if command == Command::Plan => {
                args.generate_config_out = Some(PathBuf::from(path));
                Ok(())
            }
            ("html", Some(path)) if command == Command::Plan && !path.is_empty() => {
                args.html = Some(PathBuf::from(path));
                Ok(())
            }
            ("parallelism", Some(n)) => match n.parse::<usize>() {
                Ok(n) if n > 0 => {
                    args.parallelism = n;
                    Ok(())
                }
                _ => Err(flag_error(format!(
                    "invalid value \"{n}\" for flag -parallelism: parse error"
                ))),
            },
            ("lock-timeout", Some(d)) => match parse_duration(d) {
                Some(d) => {
                    args.lock_timeout = d;
                    Ok(())
                }
                None => Err(flag_error(format!(
                    "invalid value \"{d}\" for flag -lock-timeout: parse error"
                ))),
            },
            ("state", Some(p)) => {
                args.state_path = Some(PathBuf::from(p));
                Ok(())
            }
            ("state-out", Some(p)) => {
                args.state_out = Some(PathBuf::from(p));
                Ok(())
            }
            ("backup", Some(p)) => {
                args.backup_path = Some(PathBuf::from(p));
                Ok(())
            }
            (other, _) => Err(flag_error(format!(
                "flag provided but not defined: -{other}"
            ))),
        };
        if let Err(d) = result {
            problems.push(*d);
        }
    }
    match (command, positionals.as_slice()) {
        (command, []) if command != Command::Import => {}
        // destroy takes a plan file too, as terraform's does, only to
        // refuse it once read.
        (Command::Apply | Command::Destroy, [plan]) => args.plan_file = Some(PathBuf::from(plan)),
        (Command::Apply | Command::Destroy, _) => problems.push(Diagnostic::error(
            "Too many command line arguments",
            "Expected at most one positional argument.",
        )),
        (Command::Import, [addr, id]) => args.import = Some((addr.clone(), id.clone())),
        (Command::Import, _) => problems.push(Diagnostic::error(
            "Invalid number of arguments",
            "The import command expects two arguments.",
        )),
        (_, _) => problems.push(Diagnostic::error(
            "Too many command line arguments",
            format!(
                "To specify a working directory for the {}, use the global -chdir flag.",
                command.name()
            ),
        )),
    }
    problems.append(&mut address_problems);
    if args.destroy && args.refresh_only {
        problems.push(Diagnostic::error(
            "Incompatible plan mode options",
            "The -destroy and -refresh-only options are mutually-exclusive.",
        ));
    }
    if args.refresh_only && !args.replace.is_empty() {
        problems.push(Diagnostic::error(
            "Unsupported combination of options",
            "The -replace option is not supported in refresh-only mode.",
        ));
    }
    if !args.refresh && args.refresh_only {
        problems.push(Diagnostic::error(
            "Incompatible refresh options",
            format!(
                "It doesn't make sense to use -refresh-only at the same time as -refresh=false, \
             because {PRODUCT} would have nothing to do."
            ),
        ));
    }
    if args.json {
        args.color = false;
        args.input = false;
    }
    let (diags, help_prompt) = match (problems.is_empty(), var_problems.is_empty()) {
        (true, true) => return Ok(args),
        (true, false) => (var_problems, false),
        (false, _) => (problems, true),
    };
    Err(UsageProblems {
        diags,
        help_prompt,
        color: args.color,
        json: args.json,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_plan_flags() {
        let args = parse(
            Command::Plan,
            &strings(&[
                "-target=terraform_data.a",
                "-replace",
                "terraform_data.b[0]",
                "-refresh=false",
                "-parallelism=3",
                "-out=tfplan",
                "-var",
                "x=1",
                "-lock-timeout=1m30s",
            ]),
        )
        .expect("valid flags");
        assert_eq!(args.targets.len(), 1);
        assert_eq!(args.replace.len(), 1);
        assert!(!args.refresh);
        assert_eq!(args.parallelism, 3);
        assert_eq!(args.out, Some(PathBuf::from("tfplan")));
        assert_eq!(args.lock_timeout, Duration::from_secs(90));
        assert_eq!(args.variables.len(), 1);
    }

    #[test]
    fn apply_takes_a_plan_file_and_destroy_is_a_mode() {
        let args = parse(Command::Apply, &strings(&["tfplan"])).expect("valid");
        assert_eq!(args.plan_file, Some(PathBuf::from("tfplan")));
        let args = parse(Command::Destroy, &strings(&["-auto-approve"])).expect("valid");
        assert!(args.destroy && args.auto_approve);
    }

    #[test]
    fn reports_every_bad_flag() {
        let problems = parse(
            Command::Plan,
            &strings(&[
                "-parallelism=zero",
                "-bogus",
                "-target=not an address",
                "-auto-approve",
            ]),
        )
        .expect_err("invalid flags");
        assert_eq!(problems.diags.len(), 4, "{problems:?}");
        assert!(problems.help_prompt);
    }

    #[test]
    fn durations_follow_go() {
        assert_eq!(parse_duration("0"), Some(Duration::ZERO));
        assert_eq!(parse_duration("250ms"), Some(Duration::from_millis(250)));
        assert_eq!(parse_duration("1h"), Some(Duration::from_secs(3600)));
        assert_eq!(parse_duration("10"), None);
        assert_eq!(parse_duration(""), None);
    }
}
