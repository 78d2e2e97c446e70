//! The `terrace` command.

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

/// `print!` to a reader that may have gone away (`terrace plan | head`):
/// commands that run plugins keep SIGPIPE ignored, so a closed pipe is an
/// error here, and losing output nobody reads is no reason to panic.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::write_stdout(&format!($($arg)*))
    };
}

/// `println!` as [`out!`] is `print!`.
macro_rules! outln {
    () => {
        $crate::write_stdout("\n")
    };
    ($($arg:tt)*) => {
        $crate::write_stdout(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// mimalloc rather than the system allocator: terrace allocates many small,
/// short-lived strings and values, and measured on the benchmark suite the
/// system allocator's malloc/free took about a fifth of the CPU time (see
/// docs/ARCHITECTURE.md, "Dependencies and why").
#[global_allocator]
static GLOBAL_ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `purge_delay` option (its index in `mi_option_e`; the
/// bindings name no constant for it).
const MIMALLOC_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long freed memory stays with the allocator before it goes back to
/// the system. mimalloc keeps it for a second by default, so a command's
/// short-lived data (a state file's text, a plan's intermediate values)
/// all counted at once in its peak memory: a no-op plan of 200 modules
/// peaked at 153 MB with the default and 114 MB with 10 ms, at the same
/// speed (docs/BENCHMARKS.md).
const FREED_MEMORY_KEPT_MS: std::ffi::c_long = 10;

mod args;
mod backend_config;
mod commands;
mod completion;
mod diag_output;
mod encryption_config;
mod format;
mod help;
mod interrupt;
mod journal;
mod json_ui;
mod jsonconfig;
mod jsondiag;
mod jsonprovider;
mod local_exec;
mod logging;
mod operation_args;
mod planfile_io;
mod prompt;
mod provider_factory;
mod report;
mod state_meta;
mod ui;
mod workdir;

use args::Arg;

/// The product's name wherever it names itself to the user.
pub(crate) const PRODUCT: &str = terrace_getproviders::PRODUCT;

/// `TF_IN_AUTOMATION`: run by a pipeline, not a person at a terminal, so
/// the hints about which command to type next are left out.
pub(crate) fn in_automation() -> bool {
    std::env::var_os("TF_IN_AUTOMATION").is_some_and(|v| !v.is_empty())
}
use std::path::{Path, PathBuf};
use terrace_config::input_variables::VariableArgument;

/// A top-level command: its name, its line in the usage text (`{p}`
/// stands for the product's name) and what runs it, with the arguments
/// after its name, in the directory `-chdir` chose.
pub(crate) struct TopCommand {
    pub name: &'static str,
    summary: &'static str,
    run: fn(&[String]) -> i32,
}

/// How many of [`TOP_COMMANDS`] the usage text lists as the main ones.
const MAIN_COMMANDS: usize = 5;

/// Every top-level command: the main ones first, then the others by name.
/// Dispatch, the usage text, suggestions for a mistyped name and shell
/// completion all read this one list.
pub(crate) const TOP_COMMANDS: &[TopCommand] = &[
    TopCommand {
        name: "init",
        summary: "Prepare your working directory for other commands",
        run: commands::init::run,
    },
    TopCommand {
        name: "validate",
        summary: "Check whether the configuration is valid",
        run: commands::validate::command,
    },
    TopCommand {
        name: "plan",
        summary: "Show changes required by the current configuration",
        run: |args| commands::operation::run(operation_args::Command::Plan, args),
    },
    TopCommand {
        name: "apply",
        summary: "Create or update infrastructure",
        run: |args| commands::operation::run(operation_args::Command::Apply, args),
    },
    TopCommand {
        name: "destroy",
        summary: "Destroy previously-created infrastructure",
        run: |args| commands::operation::run(operation_args::Command::Destroy, args),
    },
    TopCommand {
        name: "completions",
        summary: "Print the shell code that completes {p} commands",
        run: completion::completions_command,
    },
    TopCommand {
        name: "console",
        summary: "Try {p} expressions at an interactive command prompt",
        run: |args| console_command(PathBuf::from("."), args),
    },
    TopCommand {
        name: "fmt",
        summary: "Reformat your configuration in the standard style",
        run: commands::fmt::run,
    },
    TopCommand {
        name: "force-unlock",
        summary: "Release a stuck lock on the current workspace",
        run: commands::force_unlock::run,
    },
    TopCommand {
        name: "get",
        summary: "Install or upgrade the modules the configuration calls",
        run: commands::modules::get,
    },
    TopCommand {
        name: "graph",
        summary: "Generate a Graphviz graph of the steps in an operation",
        run: |args| commands::graph::run(Path::new("."), args),
    },
    TopCommand {
        name: "import",
        summary: "Associate existing infrastructure with a {p} resource",
        run: |args| commands::operation::run(operation_args::Command::Import, args),
    },
    TopCommand {
        name: "login",
        summary: "Obtain and save credentials for a remote host",
        run: commands::login::login,
    },
    TopCommand {
        name: "logout",
        summary: "Remove locally-stored credentials for a remote host",
        run: commands::login::logout,
    },
    TopCommand {
        name: "metadata",
        summary: "Metadata related commands",
        run: commands::metadata::run,
    },
    TopCommand {
        name: "modules",
        summary: "Show the module calls the configuration declares",
        run: commands::modules::modules,
    },
    TopCommand {
        name: "output",
        summary: "Show output values from your root module",
        run: commands::output::run,
    },
    TopCommand {
        name: "providers",
        summary: "Show the providers required for this configuration",
        run: |args| match args.first().map(String::as_str) {
            Some("lock") => commands::providers_lock::run(&args[1..]),
            Some("mirror") => commands::providers_mirror::run(&args[1..]),
            _ => commands::providers::run(Path::new("."), args),
        },
    },
    TopCommand {
        name: "refresh",
        summary: "Update the state to match remote systems",
        run: |args| commands::operation::run(operation_args::Command::Refresh, args),
    },
    TopCommand {
        name: "show",
        summary: "Show the current state or a saved plan",
        run: commands::show::run,
    },
    TopCommand {
        name: "state",
        summary: "Advanced state management",
        run: commands::state::run,
    },
    TopCommand {
        name: "taint",
        summary: "Mark a resource instance as not fully functional",
        run: |args| commands::taint::run(true, args),
    },
    TopCommand {
        name: "test",
        summary: "Execute integration tests for {p} modules",
        run: commands::test::run,
    },
    TopCommand {
        name: "untaint",
        summary: "Remove the 'tainted' state from a resource instance",
        run: |args| commands::taint::run(false, args),
    },
    TopCommand {
        name: "version",
        summary: "Show the current {p} version",
        run: version,
    },
    TopCommand {
        name: "workspace",
        summary: "Workspace management",
        run: commands::workspace::run,
    },
];

/// What `-help` prints, and a command line without a command.
fn usage() -> String {
    let p = PRODUCT;
    let line = |c: &TopCommand| format!("  {:<13} {}\n", c.name, c.summary.replace("{p}", p));
    let main: String = TOP_COMMANDS[..MAIN_COMMANDS].iter().map(line).collect();
    let others: String = TOP_COMMANDS[MAIN_COMMANDS..].iter().map(line).collect();
    format!(
        "Usage: {p} [global options] <subcommand> [args]

Main commands:
{main}
All other commands:
{others}
Global options:
  -chdir=DIR    Switch to a different working directory before executing the
                given subcommand.
  -help         Show this help output.
  -version      An alias for the \"version\" subcommand.
  -install-autocomplete    Install shell completion for {p} (bash, zsh,
                           fish: for each whose configuration file exists).
  -uninstall-autocomplete  Remove it again.
"
    )
}

/// Commands that never start a provider plugin: like a Go program, they
/// end quietly when the reader of their output goes away (`terrace output
/// -json | head`). Commands that talk to plugins keep SIGPIPE ignored: a
/// plugin's socket closing under a write must be an error to handle, not a
/// signal that kills terrace and leaves its plugins running; they write
/// their large documents through `write_stdout`, which tolerates a closed
/// pipe.
/// (`console` is not one: it calls provider-defined functions.)
const PRINT_ONLY_COMMANDS: &[&str] = &["version", "output", "workspace"];

/// Writes `text` to standard output; a reader that went away is not an
/// error worth a panic.
pub fn write_stdout(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

fn main() {
    // SAFETY: sets an allocator option, which mimalloc allows at any time.
    unsafe {
        libmimalloc_sys::mi_option_set(MIMALLOC_PURGE_DELAY, FREED_MEMORY_KEPT_MS);
    }
    let argv: Vec<String> = std::env::args().skip(1).collect();
    logging::init_from_env();
    tracing::info!(
        "{PRODUCT} version: {} (follows terraform {})",
        env!("CARGO_PKG_VERSION"),
        commands::operation::TERRAFORM_VERSION
    );
    tracing::info!("CLI args: {:?}", logging::redacted_args(&argv));
    let command = argv.iter().find(|a| !a.starts_with('-'));
    if command.is_some_and(|c| PRINT_ONLY_COMMANDS.contains(&c.as_str())) {
        // SAFETY: restoring the default disposition of SIGPIPE at start-up,
        // before any thread exists.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    std::process::exit(run(argv));
}

fn run(argv: Vec<String>) -> i32 {
    // The shell asking for completions, whatever the arguments.
    if let Some(line) = completion::requested_line() {
        for word in completion::candidates(&line, Path::new(".")) {
            outln!("{word}");
        }
        return 0;
    }
    // Global options come before the subcommand.
    let mut dir = PathBuf::from(".");
    let mut rest = argv.as_slice();
    while let Some(first) = rest.first() {
        if let Some(path) = first
            .strip_prefix("-chdir=")
            .or_else(|| first.strip_prefix("--chdir="))
        {
            dir = PathBuf::from(path);
            rest = &rest[1..];
        } else {
            break;
        }
    }
    let Some(command) = rest.first() else {
        eprint!("{}", usage());
        return 127;
    };
    match command.as_str() {
        "-install-autocomplete" | "--install-autocomplete" => return completion::install(),
        "-uninstall-autocomplete" | "--uninstall-autocomplete" => return completion::uninstall(),
        _ => {}
    }
    let argv = match merge_env_args(rest) {
        Ok(argv) => argv,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    let _ = command;
    let Some((command, command_args)) = argv.split_first() else {
        eprint!("{}", usage());
        return 127;
    };
    // The CLI configuration's problems are said for every command, first.
    let (_, cli_config_problems) = terrace_getproviders::cliconfig::load(
        &terrace_getproviders::cliconfig::CliEnv::from_process(),
    );
    diag_output::print_cli_config_problems(&cli_config_problems);
    // Like terraform, -chdir switches the process's working directory, so
    // relative paths in the configuration resolve from there.
    if dir != Path::new(".") {
        if let Err(err) = std::env::set_current_dir(&dir) {
            eprintln!(
                "\nError: Invalid -chdir option\n\nThe -chdir option refers to a directory that cannot be used: {err}\n"
            );
            return 1;
        }
    }
    if let Some(top) = TOP_COMMANDS.iter().find(|c| c.name == command) {
        return (top.run)(command_args);
    }
    match command.as_str() {
        "-version" | "--version" | "-v" => version(command_args),
        "-help" | "--help" | "-h" | "help" => {
            out!("{}", usage());
            0
        }
        other => {
            eprint!("{}", help::unknown_command(other));
            1
        }
    }
}

/// `version`, and `version -json` in terraform's document shape: the
/// terrace version, the terraform release whose language and behaviour it
/// follows, the platform and the providers the lock file selects.
fn version(argv: &[String]) -> i32 {
    let json = argv.iter().any(|a| a == "-json" || a == "--json");
    let platform = terrace_getproviders::source::Platform::current().to_string();
    let (locks, _) = terrace_getproviders::lockfile::Locks::load(Path::new(
        terrace_getproviders::lockfile::LOCK_FILE_NAME,
    ));
    let selections: Vec<(String, String)> = locks
        .providers()
        .map(|l| (l.provider.to_string(), l.version.to_string()))
        .collect();
    if json {
        let mut doc = serde_json::Map::new();
        doc.insert("terrace_version".into(), env!("CARGO_PKG_VERSION").into());
        doc.insert(
            "terraform_version".into(),
            commands::operation::TERRAFORM_VERSION.into(),
        );
        doc.insert("platform".into(), platform.into());
        let selections: serde_json::Map<String, serde_json::Value> = selections
            .into_iter()
            .map(|(p, v)| (p, serde_json::Value::String(v)))
            .collect();
        doc.insert("provider_selections".into(), selections.into());
        doc.insert("terraform_outdated".into(), false.into());
        let text =
            serde_json::to_string_pretty(&serde_json::Value::Object(doc)).unwrap_or_default();
        outln!("{text}");
        return 0;
    }
    outln!(
        "{PRODUCT} v{} (compatible with terraform v{})\non {platform}",
        env!("CARGO_PKG_VERSION"),
        commands::operation::TERRAFORM_VERSION
    );
    if !selections.is_empty() {
        outln!();
        for (provider, version) in selections {
            outln!("+ provider {provider} v{version}");
        }
    }
    0
}

/// `TF_CLI_ARGS` and then `TF_CLI_ARGS_<command>` (for a subcommand,
/// `TF_CLI_ARGS_state_list`): extra arguments split as a shell would,
/// placed right after the command's name, as terraform places them.
fn merge_env_args(argv: &[String]) -> Result<Vec<String>, String> {
    const NESTED: &[&str] = &["state", "workspace", "providers", "metadata"];
    let mut command = argv.first().cloned().unwrap_or_default();
    if NESTED.contains(&command.as_str()) {
        if let Some(sub) = argv.get(1).filter(|s| !s.starts_with('-')) {
            command = format!("{command} {sub}");
        }
    }
    let suffix = command.replace(['-', ' '], "_");
    let mut args = argv.to_vec();
    for name in ["TF_CLI_ARGS".to_string(), format!("TF_CLI_ARGS_{suffix}")] {
        let Some(value) = std::env::var(&name).ok().filter(|v| !v.is_empty()) else {
            continue;
        };
        let extra = args::shell_words(&value)
            .map_err(|e| format!("Error parsing extra CLI args from {name}: {e}"))?;
        let search = command.rsplit(' ').next().unwrap_or(&command);
        let at = args.iter().position(|a| a == search).map_or(0, |i| i + 1);
        args.splice(at..at, extra);
    }
    Ok(args)
}

fn console_command(dir: PathBuf, argv: &[String]) -> i32 {
    let mut variables = Vec::new();
    let mut color = std::env::var_os("NO_COLOR").is_none();
    for arg in args::parse(argv) {
        match arg {
            Arg::Flag { name, value } => match (name.as_str(), value) {
                ("var", Some(assignment)) => match assignment.split_once('=') {
                    Some((name, text)) => variables.push(VariableArgument::Var {
                        name: name.trim().to_string(),
                        text: text.to_string(),
                    }),
                    None => {
                        eprintln!(
                            "\nError: Invalid -var option\n\nThe given -var option {assignment:?} is not correctly specified. Must be a variable name and value separated by an equals sign, like -var=\"key=value\".\n"
                        );
                        return 1;
                    }
                },
                ("var-file", Some(path)) => variables.push(VariableArgument::File(path)),
                ("no-color", None) => color = false,
                // Accepted as terraform's console accepts them; nothing
                // here asks for input or plans.
                ("state" | "plan" | "compact-warnings" | "input", _) => {}
                (other, _) => {
                    eprintln!("flag provided but not defined: -{other}");
                    return 1;
                }
            },
            Arg::Positional(p) => {
                eprintln!("Too many command line arguments: {p}");
                return 1;
            }
        }
    }
    commands::console::run(&dir, commands::console::ConsoleOptions { variables, color })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_top_level_command_is_listed_once_in_order() {
        let others: Vec<&str> = TOP_COMMANDS[MAIN_COMMANDS..]
            .iter()
            .map(|c| c.name)
            .collect();
        let mut sorted = others.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(
            others, sorted,
            "the other commands are listed by name, once"
        );
        let text = usage();
        for c in TOP_COMMANDS {
            assert_eq!(
                TOP_COMMANDS.iter().filter(|o| o.name == c.name).count(),
                1,
                "{}",
                c.name
            );
            assert!(
                text.contains(&format!("\n  {:<13} ", c.name)),
                "{} is not in the usage text",
                c.name
            );
            assert!(!text.contains("{p}"));
        }
        assert!(help::unknown_command("tes").contains("Did you mean \"test\"?"));
    }
}
