//! `terrace state <subcommand>`: dispatches to `list`, `show`, `mv`,
//! `rm`, `pull` and `push`, or prints the command's help as Terraform
//! does when no (or an unknown) subcommand is given.

pub(crate) mod list;
pub(crate) mod mv;
pub(crate) mod pull;
pub(crate) mod push;
pub(crate) mod replace_provider;
pub(crate) mod rm;
pub(crate) mod show;

const HELP: &str = "Usage: terrace [global options] state <subcommand> [options] [args]

  This command has subcommands for advanced state management.

  These subcommands can be used to slice and dice the state.
  This is sometimes necessary in advanced cases. For your safety, all
  state management commands that modify the state create a timestamped
  backup of the state prior to making modifications.

  The structure and output of the commands is specifically tailored to work
  well with the common Unix utilities such as grep, awk, etc. We recommend
  using those tools to perform more advanced state tasks.

Subcommands:
    list                List resources in the state
    mv                  Move an item in the state
    pull                Pull current state and output to stdout
    push                Update remote state from a local state file
    replace-provider    Replace provider in the state
    rm                  Remove instances from the state
    show                Show a resource in the state
";

pub fn run(argv: &[String]) -> i32 {
    let Some((sub, rest)) = argv.split_first() else {
        out!("{HELP}");
        return 1;
    };
    match sub.as_str() {
        "list" | "ls" => list::run(rest),
        "show" => show::run(rest),
        "mv" | "move" => mv::run(rest),
        "rm" | "remove" => rm::run(rest),
        "pull" => pull::run(rest),
        "push" => push::run(rest),
        "replace-provider" => replace_provider::run(rest),
        "-help" | "--help" | "-h" | "help" => {
            out!("{HELP}");
            0
        }
        _ => {
            out!("{HELP}");
            1
        }
    }
}
