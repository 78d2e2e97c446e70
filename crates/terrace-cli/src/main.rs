//! The `terrace` command.

mod args;
mod console;
mod format;
mod init;
mod jsondiag;
mod journal;
mod jsonprovider;
mod operation;
mod operation_args;
mod planfile_io;
mod provider_factory;
mod providers;
mod providers_lock;
mod providers_schema;
mod ui;
mod validate;

use args::Arg;
use std::path::{Path, PathBuf};
use terrace_config::input_variables::VariableArgument;

const USAGE: &str = "Usage: terrace [global options] <subcommand> [args]

Main commands:
  init          Prepare your working directory for other commands
  validate      Check whether the configuration is valid
  plan          Show changes required by the current configuration
  apply         Create or update infrastructure
  destroy       Destroy previously-created infrastructure

All other commands:
  console       Try terrace expressions at an interactive command prompt
  providers     Show the providers required for this configuration
  refresh       Update the state to match remote systems
  version       Show the current terrace version

Global options:
  -chdir=DIR    Switch to a different working directory before executing the
                given subcommand.
  -help         Show this help output.
";

fn main() {
    std::process::exit(run(std::env::args().skip(1).collect()));
}

fn run(argv: Vec<String>) -> i32 {
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
    let Some((command, command_args)) = rest.split_first() else {
        eprint!("{USAGE}");
        return 127;
    };
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
    let dir = PathBuf::from(".");
    match command.as_str() {
        "console" => console_command(dir, command_args),
        "init" => init::run(command_args),
        "providers" if command_args.first().map(String::as_str) == Some("lock") => {
            providers_lock::run(&command_args[1..])
        }
        "providers" => providers::run(&dir, command_args),
        "validate" => validate::command(command_args),
        "plan" => operation::run(operation_args::Command::Plan, command_args),
        "apply" => operation::run(operation_args::Command::Apply, command_args),
        "destroy" => operation::run(operation_args::Command::Destroy, command_args),
        "refresh" => operation::run(operation_args::Command::Refresh, command_args),
        "version" | "-version" | "--version" | "-v" => {
            println!("terrace v{}", env!("CARGO_PKG_VERSION"));
            0
        }
        "-help" | "--help" | "-h" | "help" => {
            print!("{USAGE}");
            0
        }
        other => {
            eprintln!("terrace has no command named \"{other}\".\n\n{USAGE}");
            1
        }
    }
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
                ("state" | "plan", _) => {}
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
    console::run(&dir, console::ConsoleOptions { variables, color })
}
