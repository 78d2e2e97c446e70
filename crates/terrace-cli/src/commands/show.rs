//! `terrace show [-json] [-no-color] [PATH]`: the current state (or the
//! state file or saved plan at PATH) as Terraform shows it: every object
//! as `state show` prints it, then the root outputs ("No state." without
//! a state), or the plan as `plan` rendered it; with `-json`, Terraform's
//! JSON state or plan document; with `-html PLANFILE`, terrace's
//! self-contained HTML report of the plan.

// A command reports at most a few diagnostics, so returning them by value
// costs nothing worth boxing for.
#![allow(clippy::result_large_err)]

use crate::state_meta::{self, Schemas, Ui};
use std::collections::BTreeSet;
use std::path::Path;
use terrace_plans::planfile;
use terrace_plans::render::{render_plan, render_state, RenderOptions};
use terrace_states::backend::StateError;
use terrace_states::model::State;
use terrace_states::statefile;
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::Diagnostic;

const HELP: &str = "Usage: terrace [global options] show [options] [path]

  Reads and outputs a state file in a human-readable form. If no path
  is specified, the current state will be shown.

Options:

  -no-color           If specified, output won't contain any color.
  -json               If specified, output the state in a machine-readable
                      form.
  -html               Output a saved plan as one self-contained HTML page:
                      the summary, the changes by provider instance and by
                      module instance, and their dependency graph.
";

const HELP_HINT: &str = "For more help on using this command, run:\n  terrace show -help";

pub fn run(argv: &[String]) -> i32 {
    let mut ui = Ui::new();
    let (flags, positionals) = state_meta::parse_args(argv, &[]);
    let mut json = false;
    let mut html = false;
    let mut problems = Vec::new();
    for (name, value) in flags {
        match name.as_str() {
            "help" | "h" => {
                out!("{HELP}");
                return 0;
            }
            "no-color" => ui.color = false,
            // Accepted as terraform accepts it on every command.
            "compact-warnings" => {}
            "html" => match state_meta::parse_bool("html", value.as_deref()) {
                Ok(b) => html = b,
                Err(e) => problems.push(Diagnostic::error("Failed to parse command-line flags", e)),
            },
            "json" => match state_meta::parse_bool("json", value.as_deref()) {
                Ok(b) => json = b,
                Err(e) => problems.push(Diagnostic::error("Failed to parse command-line flags", e)),
            },
            other => problems.push(Diagnostic::error(
                "Failed to parse command-line flags",
                format!("flag provided but not defined: -{other}"),
            )),
        }
    }
    if positionals.len() > 1 {
        problems.push(Diagnostic::error(
            "Too many command line arguments",
            "Expected at most one positional argument.",
        ));
    }
    if json && html {
        problems.push(Diagnostic::error(
            "Invalid combination of options",
            "The -json and -html options cannot be used together.",
        ));
    }
    if html && positionals.is_empty() {
        problems.push(Diagnostic::error(
            "A saved plan is required",
            "The -html option shows a saved plan: run terrace show -html PLANFILE.",
        ));
    }
    if json {
        ui.color = false;
    }
    if let Some(d) = problems.into_iter().next() {
        // The hint follows the diagnostic, outside its box.
        ui.diagnostics(&[d]);
        eprintln!("\n{HELP_HINT}");
        return 1;
    }

    let shown = match positionals.first() {
        Some(path) => match read_file(path) {
            Ok(shown) => shown,
            Err(d) => {
                ui.diagnostics(&[d]);
                return 1;
            }
        },
        None => {
            let loaded = state_meta::open_backend(Default::default())
                .map_err(|e| {
                    vec![Diagnostic::error(
                        format!("Error selecting workspace: {e}"),
                        "",
                    )]
                })
                .and_then(|mut backend| state_meta::read_state(backend.as_mut()));
            match loaded {
                Ok(loaded) => {
                    if !json {
                        ui.diagnostics(&loaded.warnings);
                    }
                    Shown::State(loaded.state)
                }
                Err(diags) => {
                    ui.diagnostics(&diags);
                    return 1;
                }
            }
        }
    };
    let mut providers = BTreeSet::new();
    let mut add_state = |s: &State| {
        providers.extend(s.resources.values().map(|rs| rs.provider.provider.clone()));
    };
    match &shown {
        Shown::State(state) => state.iter().for_each(&mut add_state),
        Shown::Plan(file) => {
            let plan = &file.plan;
            add_state(&plan.prior_state);
            add_state(&plan.prev_run_state);
            providers.extend(
                plan.changes
                    .iter()
                    .chain(&plan.drift)
                    .map(|c| c.provider.config.provider.clone()),
            );
        }
    }
    // The configuration a plan was made from, as the plan file keeps it.
    let config = match (&shown, json || html) {
        (Shown::Plan(file), true) => {
            let snapshot = crate::planfile_io::config_files(file);
            let options = terrace_config::loader::LoadOptions {
                input_values: std::sync::Arc::new(
                    terrace_config::input_variables::InputValues::from_final_values(
                        file.plan.variable_values.clone(),
                    ),
                ),
                workspace: file.context.backend.workspace.clone(),
                ..terrace_config::loader::LoadOptions::default()
            };
            let (config, diags) =
                terrace_config::loader::load_config_from(&snapshot, Path::new("."), &options);
            (!has_errors(&diags)).then_some(config)
        }
        _ => None,
    };
    if let Some(config) = &config {
        let (reqs, _) = crate::commands::providers::requirements_by_module(config);
        providers.extend(reqs.merged().into_keys());
    }
    let schemas = match Schemas::load(providers) {
        Ok(s) => s,
        Err(diags) => {
            ui.diagnostics(&diags);
            return 1;
        }
    };
    let lookup = |p: &_, m, t: &str| schemas.resource(p, m, t);
    let configuration = config
        .as_ref()
        .map(|c| crate::jsonconfig::configuration_json(c, &|p| schemas.provider(p)));
    if html {
        let Shown::Plan(file) = &shown else {
            ui.diagnostics(&[Diagnostic::error(
                "A saved plan is required",
                format!(
                    "The -html option shows a saved plan; {} is a state file.",
                    positionals.first().map(String::as_str).unwrap_or_default()
                ),
            )]);
            return 1;
        };
        let dependencies = config
            .as_ref()
            .map(|c| crate::report::dependencies(Path::new("."), c))
            .unwrap_or_default();
        let sources = config
            .as_ref()
            .map(crate::commands::providers::source_map)
            .unwrap_or_default();
        let title = positionals.first().map(String::as_str).unwrap_or("plan");
        let page = crate::report::plan_html(
            title,
            &file.plan,
            &lookup,
            &dependencies,
            &file.plan.isolated_errors,
            &sources,
        );
        crate::write_stdout(&page);
        return 0;
    }
    let document = match (&shown, json) {
        (Shown::State(state), true) => {
            terrace_plans::json::state_json(state.as_ref(), &lookup).map_err(|e| e.to_string())
        }
        (Shown::Plan(file), true) => terrace_plans::json::plan_json(
            &file.plan,
            &lookup,
            &terrace_plans::json::PlanJsonOptions {
                terraform_version: crate::commands::operation::TERRAFORM_VERSION,
                configuration: configuration.as_deref(),
            },
        )
        .map_err(|e| e.to_string()),
        (Shown::Plan(file), false) => Ok(render_plan(
            &file.plan,
            &lookup,
            &RenderOptions::new(ui.color),
        )),
        (Shown::State(None), false) => Ok("No state.".to_string()),
        (Shown::State(Some(state)), false) => {
            render_state(state, &lookup, &RenderOptions::new(ui.color))
        }
    };
    match document {
        Ok(text) => {
            crate::write_stdout(&format!("{}\n", text.strip_suffix('\n').unwrap_or(&text)));
            0
        }
        Err(e) => {
            ui.diagnostics(&[crate::commands::state::show::marshal_error(&e)]);
            1
        }
    }
}

/// What `show` displays.
enum Shown {
    /// `None`: there is no state.
    State(Option<State>),
    Plan(Box<planfile::PlanFile>),
}

/// `show PATH`: a saved plan, else a state file.
fn read_file(path: &str) -> Result<Shown, Diagnostic> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            let e = format!("open {path}: {}", terrace_gocompat::oserror::errno_text(&e));
            return Err(unreadable(
                &format!("Error loading statefile: {e}"),
                &format!(
                    "couldn't load the provided path as either a local plan file ({e}) or a \
                     saved cloud plan ({e})"
                ),
            ));
        }
    };
    // An encrypted plan or state file is decrypted with the working
    // directory's encryption configuration first.
    let bytes = if terrace_states::encryption::is_envelope(&bytes) {
        let encryption = match crate::encryption_config::load_of_dir(std::path::Path::new(".")) {
            Ok((encryption, _)) => encryption,
            Err(diags) => {
                let first = diags.into_iter().find(|d| d.is_error());
                return Err(first.unwrap_or_else(|| {
                    Diagnostic::error("Invalid encryption configuration", String::new())
                }));
            }
        };
        let not_configured =
            "the file is encrypted and requires a valid encryption configuration to decrypt"
                .to_string();
        let as_state = match encryption.state() {
            codec if codec.is_enabled() => codec
                .decrypt(&bytes)
                .map(|(plain, _)| plain.into_owned())
                .map_err(|e| e.to_string()),
            _ => Err(not_configured.clone()),
        };
        let as_plan = match encryption.plan() {
            codec if codec.is_enabled() => codec.decrypt(&bytes).map_err(|e| e.to_string()),
            _ => Err(not_configured),
        };
        match (as_state, as_plan) {
            (Ok(plain), _) | (_, Ok(plain)) => plain,
            (Err(state_error), Err(plan_error)) => {
                return Err(unreadable(&state_error, &plan_error));
            }
        }
    } else {
        bytes
    };
    let plan_error = match planfile::read(&bytes) {
        Ok(file) => return Ok(Shown::Plan(Box::new(file))),
        Err(e) => format!("couldn't load the provided path as a local plan file ({e})"),
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Shown::State(None));
    }
    match statefile::read(&bytes) {
        Ok((state, _)) => Ok(Shown::State(Some(state))),
        Err(diags) => Err(unreadable(
            &format!(
                "Error reading {path} as a statefile: {}",
                StateError::Invalid(diags)
            ),
            &plan_error,
        )),
    }
}

fn unreadable(state_error: &str, plan_error: &str) -> Diagnostic {
    Diagnostic::error(
        "Failed to read the given file as a state or plan file",
        format!("State read error: {state_error}\n\nPlan read error: {plan_error}"),
    )
}
