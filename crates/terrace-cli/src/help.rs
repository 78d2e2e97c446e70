//! The `-help` texts of the operation commands, and what an unknown
//! command gets: the closest command name, when one is close.

use crate::operation_args::Command;
use crate::PRODUCT;

const PLANNING_OPTIONS: &str = "
Planning options (plan, apply, destroy):

  -destroy              Plan to destroy every object the state tracks.
  -refresh-only         Plan only to update the state and outputs from what
                        the remote objects are now; change nothing else.
  -refresh=false        Do not read remote objects before planning.
  -replace=ADDRESS      Plan to replace this resource instance even if
                        nothing about it changed. Can be repeated.
  -target=ADDRESS       Plan only this resource, module or instance and
                        what it depends on. Can be repeated.
  -exclude=ADDRESS      Plan everything except this resource, module or
                        instance and what depends on it. Can be repeated.
  -var 'NAME=VALUE'     A value for a root module variable. Can be repeated.
  -var-file=FILE        Variable values from a file, after terraform.tfvars
                        and *.auto.tfvars. Can be repeated.
";

const COMMON_OPTIONS: &str = "
  -compact-warnings     Show warnings in a short form, unless errors are
                        shown too.
  -input=false          Never ask for anything at the terminal.
  -lock=false           Do not take the state lock. Dangerous when others
                        may change the same state.
  -lock-timeout=DURATION
                        How long to retry taking the state lock (0s).
  -no-color             No colour codes in the output.
  -parallelism=N        At most N provider operations at once (10).
  -state=FILE, -state-out=FILE, -backup=FILE
                        The local backend's files, for this run only.
";

/// The help text of an operation command.
pub fn operation_help(command: Command) -> String {
    let p = PRODUCT;
    match command {
        Command::Plan => format!(
            "Usage: {p} [global options] plan [options]

  Shows what {p} would change to make the infrastructure match the
  configuration, without changing anything. Save the plan with -out to
  apply exactly those changes later with \"{p} apply FILE\".
{PLANNING_OPTIONS}
Other options:

  -detailed-exitcode    Exit with 0 when there are no changes, 2 when there
                        are, 1 on errors.
  -html=FILE            Also write the plan as a self-contained HTML report
                        to FILE (written for a failed plan too).
  -out=FILE             Save the plan to FILE.{COMMON_OPTIONS}"
        ),
        Command::Apply => format!(
            "Usage: {p} [global options] apply [options] [PLAN]

  Makes the changes a plan describes. Without PLAN, plans first, shows the
  plan and asks for approval. With PLAN (a file saved by \"{p} plan
  -out\"), applies exactly that plan, with the configuration, variables
  and state it was made from.
{PLANNING_OPTIONS}
Other options:

  -auto-approve         Do not ask for approval before applying.{COMMON_OPTIONS}"
        ),
        Command::Destroy => format!(
            "Usage: {p} [global options] destroy [options]

  Destroys every object the state tracks: the same as
  \"{p} apply -destroy\".
{PLANNING_OPTIONS}
Other options:

  -auto-approve         Do not ask for approval before destroying.{COMMON_OPTIONS}"
        ),
        Command::Refresh => format!(
            "Usage: {p} [global options] refresh [options]

  Updates the state from the remote objects it tracks, changing no
  infrastructure: the same as \"{p} apply -refresh-only -auto-approve\".

Options:

  -target=ADDRESS       Refresh only this resource, module or instance.
  -var 'NAME=VALUE'     A value for a root module variable.
  -var-file=FILE        Variable values from a file.{COMMON_OPTIONS}"
        ),
        Command::Import => format!(
            "Usage: {p} [global options] import [options] ADDRESS ID

  Brings an existing remote object under management: the object with ID,
  as its provider reads it, is recorded in the state at ADDRESS, which the
  configuration must declare.

Options:

  -var 'NAME=VALUE'     A value for a root module variable.
  -var-file=FILE        Variable values from a file.{COMMON_OPTIONS}"
        ),
    }
}

/// What is printed for a command name nothing answers to.
pub fn unknown_command(name: &str) -> String {
    let closest = crate::TOP_COMMANDS
        .iter()
        .map(|c| (terrace_syntax::levenshtein(name, c.name), c.name))
        .filter(|(distance, _)| *distance < 3)
        .min();
    let suggestion = match closest {
        Some((_, c)) => format!(" Did you mean \"{c}\"?"),
        None => String::new(),
    };
    format!(
        "{PRODUCT} has no command named \"{name}\".{suggestion}\n\nTo see all of {PRODUCT}'s top-level commands, run:\n  {PRODUCT} -help\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_are_suggested() {
        assert!(unknown_command("pla").contains("Did you mean \"plan\"?"));
        assert!(unknown_command("aply").contains("Did you mean \"apply\"?"));
        assert!(!unknown_command("zzzz").contains("Did you mean"));
    }
}
