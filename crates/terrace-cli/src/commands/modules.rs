//! `terrace get` (install the modules the configuration calls, as `init`
//! does, and nothing else) and `terrace modules` (the module calls the
//! configuration declares, as a tree or `-json`).

use crate::commands::init::ModuleLines;
use crate::commands::providers::{data_dir, print_diagnostics, source_map};
use crate::workdir::registry_config;
use crate::PRODUCT;
use std::path::Path;
use terrace_getmodules::install::ModuleInstaller;
use terrace_getproviders::cliconfig::{self, CliEnv};
use terrace_syntax::render::SourceMap;
use terrace_syntax::Diagnostic;

fn get_usage() -> String {
    format!(
        "Usage: {PRODUCT} [global options] get [options]

  Downloads and installs the modules the configuration in the working
  directory calls, into .terraform/modules. Installed modules are kept
  unless -update is given.

Options:

  -update             Check installed modules for newer versions and
                      install them.
  -no-color           No colour codes in the output.
"
    )
}

pub fn get(argv: &[String]) -> i32 {
    let mut update = false;
    let mut color = std::env::var_os("NO_COLOR").is_none();
    for arg in argv {
        match arg.trim_start_matches('-') {
            "update" | "update=true" => update = true,
            "update=false" => update = false,
            "no-color" => color = false,
            "help" | "h" => {
                out!("{}", get_usage());
                return 0;
            }
            other if other.starts_with("test-directory") => {}
            other => {
                eprintln!("flag provided but not defined: -{other}");
                eprint!("{}", get_usage());
                return 1;
            }
        }
    }
    let env = CliEnv::from_process();
    let (cli, cli_diags) = cliconfig::load(&env);
    crate::commands::providers::print_cli_config_problems(&cli_diags);
    let registry = match registry_config(&cli, &env) {
        Ok(r) => r,
        Err(d) => {
            print_diagnostics(&d, &SourceMap::new(), color);
            return 1;
        }
    };
    let root = Path::new(".");
    let mut installer = ModuleInstaller::new(&data_dir(root).join("modules"), registry);
    let diags = installer.install_modules(root, update, &mut ModuleLines { json: false });
    let (config, _) =
        terrace_config::loader::load_config(root, &terrace_config::loader::LoadOptions::default());
    print_diagnostics(&diags, &source_map(&config), color);
    i32::from(diags.iter().any(Diagnostic::is_error))
}

pub fn modules(argv: &[String]) -> i32 {
    let json = argv.iter().any(|a| a == "-json" || a == "--json");
    let color = std::env::var_os("NO_COLOR").is_none() && !argv.iter().any(|a| a == "-no-color");
    // Any other flag is refused, as terraform refuses it.
    let unknown = argv.iter().find_map(|a| {
        let name = a.strip_prefix("--").or_else(|| a.strip_prefix('-'))?;
        let name = name.split('=').next().unwrap_or(name);
        (!matches!(name, "json" | "no-color")).then(|| name.to_string())
    });
    if let Some(name) = unknown {
        print_diagnostics(
            &[Diagnostic::error(
                "Failed to parse command-line flags",
                format!("flag provided but not defined: -{name}"),
            )],
            &terrace_syntax::render::SourceMap::new(),
            // terraform has not read -no-color yet when it finds the bad
            // flag.
            std::env::var_os("NO_COLOR").is_none(),
        );
        eprintln!(
            "\nFor more help on using this command, run:\n  {} modules -help",
            crate::PRODUCT
        );
        return 1;
    }
    let root = Path::new(".");
    let (config, diags) =
        terrace_config::loader::load_config(root, &terrace_config::loader::LoadOptions::default());
    if diags.iter().any(Diagnostic::is_error) {
        print_diagnostics(&diags, &source_map(&config), color);
        return 1;
    }
    let mut calls = Vec::new();
    config.deep_each(&mut |c| {
        if !c.path.is_empty() {
            calls.push((
                c.path.join("."),
                c.source_addr_raw.clone().unwrap_or_default(),
                c.version
                    .as_ref()
                    .map(|v| v.to_string())
                    .unwrap_or_default(),
                c.path.len(),
                c.path.last().cloned().unwrap_or_default(),
            ));
        }
    });
    if json {
        let modules: Vec<serde_json::Value> = calls
            .iter()
            // terraform names each by its call's name alone.
            .map(|(_, source, version, _, name)| {
                serde_json::json!({ "key": name, "source": source, "version": version })
            })
            .collect();
        outln!(
            "{}",
            serde_json::json!({ "format_version": "1.0", "modules": modules })
        );
        return 0;
    }
    if calls.is_empty() {
        outln!("\nNo modules found in configuration.");
        return 0;
    }
    outln!("\nModules declared by configuration:\n.");
    for (i, (_, source, version, depth, name)) in calls.iter().enumerate() {
        let last_at_depth = !calls[i + 1..]
            .iter()
            .take_while(|c| c.3 >= *depth)
            .any(|c| c.3 == *depth);
        let mut prefix = String::new();
        for d in 1..*depth {
            // The ancestor at depth `d` has a sibling still to come.
            let open = calls[i + 1..]
                .iter()
                .find(|c| c.3 <= d)
                .is_some_and(|c| c.3 == d);
            // The tree library terraform uses pads with no-break spaces.
            prefix.push_str(if open {
                "\u{2502}\u{a0}\u{a0} "
            } else {
                "    "
            });
        }
        let branch = if last_at_depth {
            "└── "
        } else {
            "├── "
        };
        let version = if version.is_empty() {
            String::new()
        } else {
            format!(" {version}")
        };
        outln!("{prefix}{branch}\"{name}\"[{source}]{version}");
    }
    outln!();
    0
}
