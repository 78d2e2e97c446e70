//! Shell completion. The shells ask terrace itself: bash and zsh (through
//! `complete -C`) and fish run the program with the command line in
//! `COMP_LINE` (and the cursor in `COMP_POINT`), and terrace prints the
//! words that may come next, one per line, as terraform does.
//! `-install-autocomplete` adds that hook to the rc files of the shells the
//! user has (`~/.bashrc`, `~/.zshrc`, `~/.config/fish/config.fish`),
//! `-uninstall-autocomplete` takes it out again, and `terrace completions
//! SHELL` prints the hook for a setup that manages rc files itself.

use crate::operation_args::Command;
use std::path::{Path, PathBuf};

/// The second words of the commands that have subcommands.
const SUBCOMMANDS: &[(&str, &[&str])] = &[
    (
        "state",
        &[
            "list",
            "mv",
            "pull",
            "push",
            "replace-provider",
            "rm",
            "show",
        ],
    ),
    ("workspace", &["delete", "list", "new", "select", "show"]),
    ("metadata", &["functions"]),
    ("providers", &["lock", "mirror", "schema"]),
];

/// The candidates for the word under the cursor of `line` (the whole
/// command line as the shell has it, program name first), in `dir`.
pub fn candidates(line: &str, dir: &Path) -> Vec<String> {
    let mut words: Vec<&str> = line.split_whitespace().collect();
    // After a space the cursor starts a new, empty word.
    let current = if line.ends_with(char::is_whitespace) || words.len() < 2 {
        ""
    } else {
        words.pop().unwrap_or("")
    };
    let before: Vec<&str> = words
        .into_iter()
        .skip(1)
        .filter(|w| !w.starts_with("-chdir"))
        .collect();
    let options: Vec<String> = match before.as_slice() {
        [] if current.starts_with('-') => vec![
            "-chdir=".into(),
            "-help".into(),
            "-version".into(),
            "-install-autocomplete".into(),
            "-uninstall-autocomplete".into(),
        ],
        [] => {
            let mut names: Vec<String> = crate::TOP_COMMANDS
                .iter()
                .map(|c| c.name.to_string())
                .collect();
            names.sort();
            names
        }
        [command, ..] if current.starts_with('-') => flags_of(command),
        [command] => SUBCOMMANDS
            .iter()
            .find(|(name, _)| name == command)
            .map(|(_, subs)| subs.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default(),
        ["workspace", "select" | "delete"] => workspace_names(dir),
        _ => Vec::new(),
    };
    options
        .into_iter()
        .filter(|o| o.starts_with(current))
        .collect()
}

/// The flags an operation command's help lists.
fn flags_of(command: &str) -> Vec<String> {
    let command = match command {
        "plan" => Command::Plan,
        "apply" => Command::Apply,
        "destroy" => Command::Destroy,
        "refresh" => Command::Refresh,
        "import" => Command::Import,
        _ => return Vec::new(),
    };
    let mut flags: Vec<String> = crate::help::operation_help(command)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.starts_with('-') && w.len() > 1)
        .map(|w| match w.find('=') {
            Some(i) => w[..=i].to_string(),
            None => w.to_string(),
        })
        .collect();
    flags.sort();
    flags.dedup();
    flags
}

fn workspace_names(dir: &Path) -> Vec<String> {
    terrace_states::backend::LocalBackend::new(
        dir,
        terrace_states::backend::LocalBackendOptions::default(),
    )
    .with_data_dir(crate::commands::providers::data_dir(dir))
    .workspaces()
    .unwrap_or_default()
}

/// `COMP_LINE` cut at `COMP_POINT`, when the shell is asking.
pub fn requested_line() -> Option<String> {
    let line = std::env::var("COMP_LINE").ok()?;
    let point = std::env::var("COMP_POINT")
        .ok()
        .and_then(|p| p.parse::<usize>().ok())
        .filter(|p| *p <= line.len() && line.is_char_boundary(*p))
        .unwrap_or(line.len());
    Some(line[..point].to_string())
}

/// The shells completion can be installed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

impl Shell {
    const ALL: [Shell; 3] = [Shell::Bash, Shell::Zsh, Shell::Fish];

    fn parse(name: &str) -> Option<Shell> {
        match name {
            "bash" => Some(Shell::Bash),
            "zsh" => Some(Shell::Zsh),
            "fish" => Some(Shell::Fish),
            _ => None,
        }
    }

    fn rc_file(self, home: &Path) -> PathBuf {
        match self {
            Shell::Bash => home.join(".bashrc"),
            Shell::Zsh => home.join(".zshrc"),
            Shell::Fish => home.join(".config/fish/config.fish"),
        }
    }

    /// The lines that make the shell ask `program` for completions.
    pub fn hook(self, program: &str) -> String {
        let product = crate::PRODUCT;
        match self {
            Shell::Bash => format!("complete -C {program} {product}"),
            Shell::Zsh => format!(
                "autoload -U +X bashcompinit && bashcompinit\ncomplete -o nospace -C {program} {product}"
            ),
            Shell::Fish => format!(
                "function __complete_{product}\n    set -lx COMP_LINE (commandline -cp)\n    test -z (commandline -ct)\n    and set COMP_LINE \"$COMP_LINE \"\n    {program}\nend\ncomplete -f -c {product} -a \"(__complete_{product})\""
            ),
        }
    }
}

/// The absolute path of this executable, as the hooks name it.
fn program() -> String {
    std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| crate::PRODUCT.to_string())
}

fn home() -> Result<PathBuf, String> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| "HOME is not set, so no shell configuration can be found".to_string())
}

/// `-install-autocomplete`: the hook added to every rc file that exists
/// (a shell the user does not have is left alone). Fails, changing
/// nothing more, where it is already installed.
pub fn install() -> i32 {
    let result = home().and_then(|home| {
        let program = program();
        let mut problems = Vec::new();
        for shell in Shell::ALL {
            let rc = shell.rc_file(&home);
            let Ok(text) = std::fs::read_to_string(&rc) else {
                continue;
            };
            let hook = shell.hook(&program);
            if text.contains(&hook) {
                problems.push(format!("already installed in {}", rc.display()));
                continue;
            }
            let mut updated = text;
            if !updated.is_empty() && !updated.ends_with('\n') {
                updated.push('\n');
            }
            updated.push('\n');
            updated.push_str(&hook);
            updated.push('\n');
            if let Err(e) = std::fs::write(&rc, updated) {
                problems.push(format!("writing {}: {e}", rc.display()));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("\n"))
        }
    });
    report(result)
}

/// `-uninstall-autocomplete`: the hook taken out of every rc file that
/// has it.
pub fn uninstall() -> i32 {
    let result = home().and_then(|home| {
        let program = program();
        for shell in Shell::ALL {
            let rc = shell.rc_file(&home);
            let Ok(text) = std::fs::read_to_string(&rc) else {
                continue;
            };
            let hook = format!("\n{}\n", shell.hook(&program));
            if text.contains(&hook) {
                std::fs::write(&rc, text.replacen(&hook, "", 1))
                    .map_err(|e| format!("writing {}: {e}", rc.display()))?;
            }
        }
        Ok(())
    });
    report(result)
}

fn report(result: Result<(), String>) -> i32 {
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("Error executing CLI: {e}");
            1
        }
    }
}

/// `terrace completions bash|zsh|fish`: the hook for that shell.
pub fn completions_command(argv: &[String]) -> i32 {
    // Colour means nothing here; -no-color is accepted as everywhere.
    let argv: Vec<&String> = argv.iter().filter(|a| *a != "-no-color").collect();
    match argv.first().and_then(|s| Shell::parse(s)) {
        Some(shell) if argv.len() == 1 => {
            outln!("{}", shell.hook(&program()));
            0
        }
        _ => {
            eprintln!(
                "Usage: {} completions bash|zsh|fish\n\n  Prints the shell code that makes the shell complete {} commands;\n  add it to the shell's configuration, or use -install-autocomplete.",
                crate::PRODUCT,
                crate::PRODUCT
            );
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn complete(line: &str) -> Vec<String> {
        candidates(line, Path::new("/nonexistent-terrace-dir"))
    }

    #[test]
    fn commands_subcommands_and_flags_complete() {
        assert_eq!(complete("terrace pl"), vec!["plan"]);
        assert_eq!(complete("terrace va"), vec!["validate"]);
        assert!(complete("terrace ").contains(&"workspace".to_string()));
        assert_eq!(complete("terrace state m"), vec!["mv"]);
        assert_eq!(complete("terrace workspace s"), vec!["select", "show"]);
        assert!(complete("terrace plan -").contains(&"-out=".to_string()));
        assert!(complete("terrace apply -auto").contains(&"-auto-approve".to_string()));
        assert_eq!(complete("terrace -chdir=x pl"), vec!["plan"]);
        assert!(complete("terrace plan x y ").is_empty());
        assert!(complete("terrace -").contains(&"-install-autocomplete".to_string()));
    }

    #[test]
    fn hooks_name_the_program() {
        assert_eq!(
            Shell::Bash.hook("/usr/bin/terrace"),
            "complete -C /usr/bin/terrace terrace"
        );
        assert!(Shell::Zsh
            .hook("/x")
            .ends_with("complete -o nospace -C /x terrace"));
        assert!(Shell::Fish.hook("/x").contains("complete -f -c terrace"));
    }
}
