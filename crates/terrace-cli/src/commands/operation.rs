//! `plan`, `apply`, `destroy` and `refresh`: load the configuration and
//! the variables, lock and read the state, find the providers, run the
//! engine, render what it did and persist the state.
//!
//! The state is locked for the whole command (unless `-lock=false`), so a
//! second apply on the same state waits for `-lock-timeout` and then fails
//! with terraform's message. During apply every object the engine records
//! is appended to a journal next to the state (`journal`), so a process
//! killed mid-apply loses nothing: the next command holding the lock
//! replays the journal into the state before doing anything else. A state
//! that cannot be saved is never reported as saved: it goes to
//! `errored.tfstate`, or as a last resort onto the terminal.

use crate::commands::providers::{data_dir, print_diagnostics, requirements_by_module, source_map};
use crate::diag_output::{PRODUCT_COMMAND, PRODUCT_TITLE};
use crate::interrupt::Interrupt;
use crate::journal::{self, Journal, Recoverer, Recovery, SnapshotId};
use crate::operation_args::{self, Command, OperationArgs};
use crate::provider_factory::CliProviderFactory;
use crate::ui::ApplyUi;
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use terrace_addrs::{Provider, ResourceMode};
use terrace_config::files::{ConfigFiles, OsFiles};
use terrace_config::input_variables::{
    collect_input_values, collect_saved_plan_overrides, InputValues,
};
use terrace_config::loader::{load_config_from, Config, LoadOptions};
use terrace_engine::{Context, PlanOptions};
use terrace_getproviders::cliconfig::{self, CliEnv};
use terrace_getproviders::lockfile::{Locks, LOCK_FILE_NAME};
use terrace_plans::model::{Action, Plan, PlanMode};
use terrace_plans::render::{
    render_apply_summary, render_outputs, render_plan, render_plan_footer_with_generated,
    RenderOptions,
};
use terrace_providers::Schema;
use terrace_states::backend::local::{LocalBackend, LocalBackendOptions};
use terrace_states::backend::Backend;
use terrace_states::model::State;
use terrace_syntax::render::SourceMap;
use terrace_syntax::PRODUCT;
use terrace_syntax::{Diagnostic, Diagnostics};

pub use terrace_syntax::TERRAFORM_VERSION;

pub fn run(command: Command, argv: &[String]) -> i32 {
    if argv
        .iter()
        .any(|a| matches!(a.as_str(), "-help" | "--help" | "-h" | "--h"))
    {
        out!("{}", crate::help::operation_help(command));
        return 0;
    }
    let args = match operation_args::parse(command, argv) {
        Ok(args) => args,
        Err(problems) => {
            if problems.json {
                crate::json_ui::version();
                crate::json_ui::diagnostics(&problems.diags, &SourceMap::new());
                return 1;
            }
            print_diagnostics(&problems.diags, &SourceMap::new(), problems.color);
            if problems.help_prompt {
                eprint!(
                    "\nFor more help on using this command, run:\n  {PRODUCT_COMMAND} {} -help\n",
                    command.name()
                );
            }
            return 1;
        }
    };
    if args.json {
        crate::json_ui::version();
        let approval_possible = args.auto_approve || args.plan_file.is_some();
        if matches!(args.command, Command::Apply | Command::Destroy) && !approval_possible {
            let product = crate::PRODUCT;
            crate::json_ui::diagnostics(
                &[Diagnostic::error(
                    "Plan file or auto-approve required",
                    format!("{product} cannot ask for interactive approval when -json is set. You can either apply a saved plan file, or enable the -auto-approve option."),
                )],
                &SourceMap::new(),
            );
            return 1;
        }
    }
    let dir = PathBuf::from(".");
    let interrupt = Interrupt::install(args.json);
    let mut op = match Operation::prepare(&dir, args, interrupt) {
        Ok(op) => op,
        Err(code) => return code,
    };
    let code = op.execute();
    op.finish(code)
}

struct Operation {
    args: OperationArgs,
    dir: PathBuf,
    config: Arc<Config>,
    sources: SourceMap,
    /// Shared with the second-interrupt handler, which saves through it.
    backend: Arc<Mutex<Box<dyn Backend>>>,
    locked: bool,
    prior: State,
    /// The stored snapshot `prior` is (`None`: there is no state yet).
    prior_snapshot: Option<SnapshotId>,
    ctx: Context,
    warnings: Diagnostics,
    /// Values given for variables that do not suit them (the wrong type,
    /// null for a non-nullable variable): terraform finds these while
    /// planning, so they are reported after the validation walk, as a
    /// plan that failed.
    unsuitable_variable_values: Diagnostics,
    interrupt: Interrupt,
    journal_path: PathBuf,
    /// Where the state is read from (its permissions go to the journal).
    state_read_path: PathBuf,
    /// `apply PLANFILE`: the plan to apply.
    saved_plan: Option<Plan>,
    /// Ephemeral variables set for this run, which applying a plan saved
    /// now must be given again.
    apply_time_variables: Vec<String>,
    /// What a plan saved now records besides itself.
    backend_settings: crate::backend_config::WorkingBackend,
    locks_text: Option<String>,
    /// The configuration's state and plan encryption.
    encryption: terrace_states::encryption::Encryption,
    /// Warnings of a plan applied without asking: shown with the apply's
    /// own diagnostics, after the apply, as terraform shows them.
    deferred_warnings: Diagnostics,
    /// The file `plan -generate-config-out` wrote, once written.
    generated_to: Option<String>,
    /// Provider instances the plan had to leave out (they could not be
    /// configured): everything else is planned and applied, and the
    /// command ends saying which, with exit status 1.
    unavailable_providers: Vec<terrace_addrs::AbsProviderInstance>,
    /// Provider configurations whose `for_each` was not known at plan
    /// time, and the resource instances left for the next run.
    deferred: (
        Vec<terrace_addrs::AbsProviderConfig>,
        Vec<terrace_addrs::AbsResourceInstance>,
    ),
}

impl Operation {
    /// Everything before the engine runs. On failure the diagnostics are
    /// printed and the exit status returned (nothing was changed).
    fn prepare(dir: &Path, args: OperationArgs, interrupt: Interrupt) -> Result<Operation, i32> {
        let color = args.color;
        let json = args.json;
        let print_diagnostics = |diags: &[Diagnostic], sources: &SourceMap, color: bool| {
            show_diagnostics(json, diags, sources, color)
        };
        let fail = |diags: &Diagnostics, sources: &SourceMap| {
            print_diagnostics(diags, sources, color);
            1
        };
        // A saved plan decides the configuration, the variables and the
        // backend: what it was made with, not what is here now.
        // A saved plan is decrypted with the working directory's
        // encryption configuration, which also encrypts the state the
        // apply writes.
        let saved_plan_encryption = match &args.plan_file {
            Some(_) => match crate::encryption_config::load_of_dir_with(dir, &args.variables) {
                Ok(loaded) => Some(loaded),
                Err(d) => return Err(fail(&d, &SourceMap::new())),
            },
            None => None,
        };
        let saved = match (&args.plan_file, &saved_plan_encryption) {
            (Some(path), Some((encryption, _))) => {
                match crate::planfile_io::read(path, &encryption.plan()) {
                    // terraform's destroy reads the plan file it is given,
                    // then refuses it.
                    Ok(_) if args.command == Command::Destroy => {
                        return Err(fail(
                            &vec![Diagnostic::error(
                                "Destroy can't be called with a plan file",
                                format!(
                                    "If this plan was created using plan -destroy, apply it using:\n  {PRODUCT} apply {}",
                                    terrace_value::gostr::quote(&path.to_string_lossy())
                                ),
                            )],
                            &SourceMap::new(),
                        ))
                    }
                    Ok(file) => Some(file),
                    Err(d) => return Err(fail(&d, &SourceMap::new())),
                }
            }
            _ => None,
        };
        let snapshot_files = saved.as_ref().map(crate::planfile_io::config_files);
        let files: &dyn ConfigFiles = match &snapshot_files {
            Some(snapshot) => snapshot,
            None => &OsFiles,
        };
        // The variables and the workspace first: provider `for_each` and
        // module sources are evaluated while loading, from them.
        let mut diags = Diagnostics::new();
        let mut overrides_given = None;
        let inputs = match &saved {
            Some(file) => {
                let (given, d) = collect_saved_plan_overrides(&args.variables, std::env::vars());
                diags.extend(d);
                overrides_given = Some(given);
                InputValues::from_final_values(file.plan.variable_values.clone())
            }
            None => {
                let (mut inputs, d) = collect_input_values(dir, &args.variables, std::env::vars());
                diags.extend(d);
                crate::prompt::ask_for_missing_variables(dir, &mut inputs, args.input);
                inputs
            }
        };
        let inputs = Arc::new(inputs);
        let data_dir = data_dir(dir);
        let selected_workspace = LocalBackend::new(dir, LocalBackendOptions::default())
            .with_data_dir(&data_dir)
            .current_workspace()
            .unwrap_or_else(|_| "default".to_string());
        let load_options = LoadOptions {
            input_values: inputs.clone(),
            workspace: selected_workspace,
            ..LoadOptions::default()
        };
        let (mut config, load_diags) = load_config_from(files, dir, &load_options);
        tracing::debug!(files = config.files().len(), "configuration loaded");
        diags.extend(load_diags);
        if let Some(out) = &args.generate_config_out {
            if args.destroy || args.refresh_only {
                diags.push(Diagnostic::error(
                    "Invalid generate-config-out flag",
                    "Config can only be generated during a normal plan operation, and not during a refresh-only or destroy plan.",
                ));
            }
            if dir.join(out).exists() {
                diags.push(Diagnostic::error(
                    "Target generated file already exists",
                    format!("{PRODUCT_TITLE} can only write generated config into a new file. Either choose a different target location or move all existing configuration out of the target file, delete it and try again."),
                ));
            }
            // Resources for the import blocks that name none, for the
            // engine to generate the configuration of.
            diags.extend(terrace_config::module::add_resources_for_import_targets(
                &mut config,
            ));
        }
        let mut sources = source_map(&config);
        for file in inputs.files() {
            sources.add_source(file.clone());
        }
        if let Some(given) = &overrides_given {
            for file in given.files() {
                sources.add_source(file.clone());
            }
        }
        if has_errors(&diags) {
            return Err(fail(&diags, &sources));
        }
        // Without configuration, planning would destroy everything the
        // state has: terraform refuses, unless destroying is what is asked.
        if saved.is_none()
            && !args.destroy
            && matches!(args.command, Command::Plan | Command::Apply)
            && !crate::commands::providers::has_config_files(dir)
        {
            let detail = match args.command {
                Command::Plan => format!("Plan requires configuration to be present. Planning without a configuration would mark everything for destruction, which is normally not what is desired. If you would like to destroy everything, run plan with the -destroy option. Otherwise, create a {PRODUCT_TITLE} configuration file (.tf file) and try again."),
                _ => format!("Apply requires configuration to be present. Applying without a configuration would mark everything for destruction, which is normally not what is desired. If you would like to destroy everything, run '{PRODUCT_COMMAND} destroy' instead."),
            };
            diags.push(Diagnostic::error("No configuration files", detail));
            return Err(fail(&diags, &sources));
        }
        diags.extend(terrace_config::provider_validation::validate_provider_configs(&config));
        if has_errors(&diags) {
            return Err(fail(&diags, &sources));
        }

        // Ephemeral variables are not in a saved plan: applying it takes
        // them from this command's -var, -var-file and TF_VAR_, and those
        // set for the plan must be set again.
        let inputs = match (&saved, &overrides_given) {
            (Some(file), Some(given)) => {
                let mut inputs = (*inputs).clone();
                for (name, variable) in &config.module.variables {
                    if !variable.ephemeral || inputs.take_given(given, name) {
                        continue;
                    }
                    if file.context.apply_time_variables.contains(name) {
                        diags.push(
                            Diagnostic::error(
                                "No value for required variable",
                                format!("The ephemeral input variable \"{name}\" was set during the plan phase, and so must also be set during the apply phase."),
                            )
                            .with_subject(variable.decl_range.clone()),
                        );
                    }
                }
                Arc::new(inputs)
            }
            _ => inputs,
        };
        let apply_time_variables: Vec<String> = config
            .module
            .variables
            .iter()
            .filter(|(_, v)| v.ephemeral && inputs.value_for(v).is_some())
            .map(|(name, _)| name.clone())
            .collect();
        let (variables, variable_diags, unsuitable_variable_values) =
            inputs.final_values_by_stage(&config.module.variables);
        diags.extend(variable_diags);
        match (&saved, &overrides_given) {
            (Some(file), Some(given)) => diags.extend(
                given.saved_plan_conflicts(&config.module.variables, &file.plan.variable_values),
            ),
            _ => {
                for (name, variable) in &config.module.variables {
                    // Text that does not parse gives no value, as in
                    // terraform: its error comes with this one.
                    let given = match inputs.value_for(variable) {
                        Some((_, parse_diags)) => !has_errors(&parse_diags),
                        None => false,
                    };
                    if variable.default.is_none() && !given {
                        let mut d = Diagnostic::error(
                            "No value for required variable",
                            format!(
                                "The root module input variable \"{name}\" is not set, and has no \
                                 default value. Use a -var or -var-file command line argument to \
                                 provide a value for this variable."
                            ),
                        );
                        d.subject = Some(variable.decl_range.clone());
                        diags.push(d);
                    }
                }
            }
        }
        if has_errors(&diags) {
            return Err(fail(&diags, &sources));
        }

        // State and plan encryption: what `encryption` and TF_ENCRYPTION
        // configure, evaluated with this run's variables.
        let encryption = match saved_plan_encryption {
            Some((encryption, warnings)) => {
                diags.extend(warnings);
                encryption
            }
            None => {
                match crate::encryption_config::load(&config.module, Some(&config.static_context)) {
                    Ok((encryption, warnings)) => {
                        diags.extend(warnings);
                        encryption
                    }
                    Err(d) => {
                        diags.extend(d);
                        return Err(fail(&diags, &sources));
                    }
                }
            }
        };

        // The backend: the plan's, or the working directory's as `init`
        // configured it; never a silent fallback to a local state.
        let backend_settings = match &saved {
            Some(file) => crate::planfile_io::backend_settings(file),
            None => crate::backend_config::working_backend(&data_dir, &config.module),
        };
        let backend_settings = match backend_settings {
            Ok(settings) => settings,
            Err(d) => {
                diags.extend(d);
                return Err(fail(&diags, &sources));
            }
        };
        let mut backend = match backend_settings.open(
            dir,
            &data_dir,
            LocalBackendOptions {
                state: args.state_path.clone(),
                state_out: args.state_out.clone(),
                backup: args
                    .backup_path
                    .as_ref()
                    .map(|p| p.to_string_lossy().into_owned()),
                ..LocalBackendOptions::default()
            },
            &encryption.state(),
        ) {
            Ok(b) => b,
            Err(d) => return Err(fail(&d, &sources)),
        };
        let workspace = backend.workspace().to_string();
        if !interrupt.operation_under_way() {
            return Err(1);
        }
        let mut locked = false;
        if args.lock {
            let operation = match args.command {
                Command::Plan => "OperationTypePlan",
                Command::Apply | Command::Destroy => "OperationTypeApply",
                Command::Refresh => "OperationTypeRefresh",
                Command::Import => "OperationTypeImport",
            };
            tracing::debug!(operation, "locking the state");
            if let Err(e) = backend.lock(operation, "", args.lock_timeout) {
                if json {
                    crate::json_ui::diagnostics(&[e.acquire_diagnostic()], &sources);
                } else {
                    eprintln!("{}", lock_failure_text(&e.acquire_diagnostic(), color));
                }
                return Err(1);
            }
            locked = true;
        }
        let unlock_and_fail = |backend: &mut Box<dyn Backend>, diags: &Diagnostics| {
            print_diagnostics(diags, &sources, color);
            if locked {
                let _ = backend.unlock();
            }
            1
        };
        let mut stored = match backend.read_state() {
            Ok((state, warnings)) => {
                diags.extend(warnings);
                state
            }
            Err(e) => return Err(unlock_and_fail(&mut backend, &e.to_diagnostics())),
        };
        // A local state's journal sits next to it (with its permissions);
        // a remote one's in the data directory.
        let state_read_path = match backend.local() {
            Some(local) => dir.join(local.state_paths(&workspace).read),
            None => PathBuf::new(),
        };
        let journal_path = backend.journal_path();
        if backend.local().is_none() {
            if let Some(parent) = journal_path.parent() {
                // Where remote states' journals go; a failure shows when
                // the journal is created.
                let _ = std::fs::create_dir_all(parent);
            }
        }
        if locked {
            // An apply killed earlier left its journal: fold it in first.
            match journal::recover(&journal_path, stored.as_ref(), Recoverer::LockHolder) {
                Ok(Recovery::None) => {}
                Ok(Recovery::AlreadyFolded) => journal::remove(&journal_path),
                Ok(Recovery::Replayed { state, applied }) => {
                    if let Err(e) = backend.write_state(&state) {
                        return Err(unlock_and_fail(&mut backend, &e.to_diagnostics()));
                    }
                    journal::remove(&journal_path);
                    let recovered = format!(
                        "Recovered {applied} object(s) recorded by an interrupted apply into the \
                         state."
                    );
                    if json {
                        crate::json_ui::log(&recovered);
                    } else {
                        outln!("{recovered}\n");
                    }
                    stored = match backend.read_state() {
                        Ok((state, _)) => state,
                        Err(e) => return Err(unlock_and_fail(&mut backend, &e.to_diagnostics())),
                    };
                }
                Err(d) => return Err(unlock_and_fail(&mut backend, &vec![*d])),
            }
        } else if journal_path.exists() {
            // Without the lock the journal may belong to an apply running
            // right now: it is neither folded nor removed here.
            if args.command == Command::Plan {
                diags.push(Diagnostic::warning(
                    "Apply journal not read",
                    format!(
                        "The apply journal {} records objects that may not be in the state yet: an apply is running, or one was interrupted. With -lock=false it is left alone, so this plan does not include them. A command run with the lock recovers an interrupted apply's objects.",
                        journal_path.display()
                    ),
                ));
            } else {
                let mut d = diags;
                d.push(Diagnostic::error(
                    "Apply journal in use",
                    format!(
                        "The apply journal {} exists: an apply is running or was interrupted, and its objects may not be in the state yet. This command would write the state without them, so it does not run with -lock=false. Run it again with the lock once no other apply is running; it recovers an interrupted apply's objects first.",
                        journal_path.display()
                    ),
                ));
                return Err(unlock_and_fail(&mut backend, &d));
            }
        }
        let prior_snapshot = stored.as_ref().map(SnapshotId::of);
        match &prior_snapshot {
            Some(s) => tracing::debug!(lineage = %s.lineage, serial = s.serial, "state read"),
            None => tracing::debug!("no state yet"),
        }
        let prior = stored.unwrap_or_else(State::new_empty);
        if let Some(file) = &saved {
            let current = prior_snapshot
                .as_ref()
                .map(|s| (s.lineage.as_str(), s.serial));
            if let Some(d) = file.check_state(current) {
                diags.push(d);
                return Err(unlock_and_fail(&mut backend, &diags));
            }
        }

        // Providers: what the configuration and the state need.
        let (reqs, req_diags) = requirements_by_module(&config);
        diags.extend(req_diags);
        let mut needed = reqs.merged();
        for resource in prior.resources.values() {
            needed
                .entry(resource.provider.provider.clone())
                .or_default();
        }
        let locks_path = dir.join(LOCK_FILE_NAME);
        let (locks, lock_diags) = Locks::load(&locks_path);
        diags.extend(lock_diags);
        let locks_text = std::fs::read_to_string(&locks_path).ok();
        let env = CliEnv::from_process();
        let (cli, cli_diags) = cliconfig::load(&env);
        crate::commands::providers::print_cli_config_problems(&cli_diags);
        let overrides = cli.dev_overrides();
        if !overrides.is_empty() {
            // terraform warns about overrides as soon as it sees them, before
            // any other output of the command.
            print_diagnostics(&[dev_overrides_warning(&overrides)], &sources, color);
        }
        // The lock file decides which provider packages may run. As
        // terraform, first the packages it selects must be installed (a
        // provider it does not name is left to the next check), then it
        // must fit the configuration (and a saved plan's selections).
        let selected: BTreeMap<_, _> = needed
            .iter()
            .filter(|(p, _)| {
                p.is_builtin() || locks.provider(p).is_some() || overrides.contains_key(*p)
            })
            .map(|(p, c)| (p.clone(), c.clone()))
            .collect();
        let located = if has_errors(&diags) {
            Vec::new()
        } else {
            match crate::commands::providers_schema::locate_executables(
                &selected, &locks, &cli, &env, &data_dir,
            ) {
                Ok(found) => found,
                Err(errors) => {
                    diags.extend(errors);
                    return Err(unlock_and_fail(&mut backend, &diags));
                }
            }
        };
        diags.extend(
            crate::commands::providers_schema::verify_dependency_selections(
                &reqs.merged(),
                &locks,
                &cli,
            ),
        );
        if let Some(file) = &saved {
            diags.extend(crate::planfile_io::check_locks(file, &locks));
        }
        if has_errors(&diags) {
            return Err(unlock_and_fail(&mut backend, &diags));
        }
        // Every provider needed is selected now, so all were located above
        // (a state's provider the configuration no longer names is needed
        // without being required: located here if it was not).
        let executables = if selected.len() == needed.len() {
            located
        } else {
            match crate::commands::providers_schema::locate_executables(
                &needed, &locks, &cli, &env, &data_dir,
            ) {
                Ok(found) => found,
                Err(errors) => {
                    diags.extend(errors);
                    return Err(unlock_and_fail(&mut backend, &diags));
                }
            }
        };
        let working_dir = std::env::current_dir().unwrap_or_else(|_| dir.to_path_buf());
        let factory = Arc::new(
            CliProviderFactory::new(executables, &working_dir)
                .with_remote_state_encryption(encryption.remote_state_default()),
        );
        let config = Arc::new(config);
        let ctx = Context {
            config: config.clone(),
            providers: factory,
            variables,
            workspace,
            working_dir,
            parallelism: args.parallelism,
            terraform_version: TERRAFORM_VERSION.to_string(),
            commands: Arc::new(crate::local_exec::ProcessCommandRunner),
        };
        let warnings: Diagnostics = diags;
        Ok(Operation {
            args,
            dir: dir.to_path_buf(),
            config,
            sources,
            backend: Arc::new(Mutex::new(backend)),
            locked,
            prior,
            prior_snapshot,
            ctx,
            warnings,
            unsuitable_variable_values,
            interrupt,
            journal_path,
            state_read_path,
            saved_plan: saved.map(|file| file.plan),
            apply_time_variables,
            backend_settings,
            locks_text,
            encryption,
            deferred_warnings: Diagnostics::new(),
            generated_to: None,
            unavailable_providers: Vec::new(),
            deferred: (Vec::new(), Vec::new()),
        })
    }

    fn color(&self) -> bool {
        self.args.color
    }

    /// Diagnostics as the operation commands print them: with
    /// `-compact-warnings`, warnings alone are listed by summary and
    /// place only (errors keep every warning in full, as context).
    fn print_diagnostics(&self, diags: &[Diagnostic]) {
        if self.args.json {
            crate::json_ui::diagnostics(diags, &self.sources);
            return;
        }
        if self.args.compact_warnings && !diags.is_empty() && diags.iter().all(|d| !d.is_error()) {
            out!("{}", compact_warnings(diags, self.color()));
            return;
        }
        // In terraform's order, whatever order concurrent work found them
        // in: warnings first, then by file and position; warnings alike
        // shown once, as terraform's views show them.
        let mut sorted = diags.to_vec();
        crate::diag_output::sort_diags(&mut sorted);
        let sorted = crate::diag_output::consolidate_warnings(sorted);
        print_diagnostics(&sorted, &self.sources, self.color());
    }

    /// `plan -html=FILE`: the report of `plan` and the run's diagnostics;
    /// the diagnostic saying why it could not be written, if so.
    fn write_html_report(&self, plan: &Plan, diagnostics: &[Diagnostic]) -> Option<Diagnostic> {
        let path = self.args.html.as_deref()?;
        if self.args.command != Command::Plan {
            return None;
        }
        let dependencies = terrace_engine::resource_graph(&self.ctx).unwrap_or_default();
        let title = self
            .dir
            .canonicalize()
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "plan".to_string());
        let page = crate::report::plan_html(
            &title,
            plan,
            &self.schemas(),
            &dependencies,
            diagnostics,
            &self.sources,
        );
        crate::report::write(path, &page)
    }

    fn render_options(&self) -> RenderOptions {
        RenderOptions::new(self.color())
    }

    fn execute(&mut self) -> i32 {
        if let Some((addr, id)) = self.args.import.clone() {
            return self.import(&addr, &id);
        }
        let mut ui = ApplyUi::new(self.color(), self.interrupt.clone(), None);
        if self.args.json {
            ui = ui.json();
        }
        // As terraform, a plan starts with the validation walk. Most of its
        // warnings come again from the plan walk; those that do not (about
        // the configuration alone) are shown with the plan's.
        let mut validate_warnings = Diagnostics::new();
        if self.args.plan_file.is_none() {
            let (errors, warnings): (Diagnostics, Diagnostics) =
                terrace_engine::validate(&self.ctx)
                    .into_iter()
                    .partition(Diagnostic::is_error);
            validate_warnings = warnings;
            if !errors.is_empty() {
                return self.fail_before_planning(errors, false);
            }
            let unsuitable = std::mem::take(&mut self.unsuitable_variable_values);
            if has_errors(&unsuitable) {
                return self.fail_before_planning(unsuitable, true);
            }
        }
        let plan = if let Some(plan) = self.saved_plan.take() {
            let warnings = std::mem::take(&mut self.warnings);
            self.print_diagnostics(&warnings);
            self.unavailable_providers = plan.unavailable_providers.clone();
            self.deferred = (
                plan.deferred_providers.clone(),
                plan.deferred_resources.clone(),
            );
            if self.args.json {
                // The stream lists what a saved plan will do, without its
                // summary.
                for change in &plan.changes {
                    crate::json_ui::planned_change(change);
                }
            }
            plan
        } else {
            let opts = PlanOptions {
                mode: self.plan_mode(),
                refresh: self.args.refresh,
                targets: self.args.targets.clone(),
                excludes: self.args.excludes.clone(),
                force_replace: self.args.replace.clone(),
                timestamp: String::new(),
            };
            let (plan, diags) = terrace_engine::plan(&self.ctx, &self.prior, &opts, &ui);
            ui.flush_output();
            let mut all = std::mem::take(&mut self.warnings);
            all.extend(diags);
            if self.args.command == Command::Refresh && self.prior.is_empty() {
                all.push(Diagnostic::warning(
                    "Empty or non-existent state",
                    "There are currently no remote objects tracked in the state, so there is nothing to refresh.",
                ));
            }
            for w in validate_warnings {
                // A warning made per evaluation (a deprecated attribute)
                // is each walk's own, as terraform counts it.
                let again = !w.per_evaluation
                    && all.iter().any(|d| {
                        d.summary == w.summary && d.detail == w.detail && d.subject == w.subject
                    });
                if !again {
                    all.push(w);
                }
            }
            let failed = has_errors(&all);
            // Errors of provider instances left out do not stop the rest.
            all.extend(plan.isolated_errors.iter().cloned());
            if let Some(d) = self.write_html_report(&plan, &all) {
                all.push(d);
                if !failed {
                    self.print_diagnostics(&all);
                    return 1;
                }
            }
            self.unavailable_providers = plan.unavailable_providers.clone();
            self.deferred = (
                plan.deferred_providers.clone(),
                plan.deferred_resources.clone(),
            );
            // `refresh` is `apply -refresh-only -auto-approve` without the
            // plan on screen.
            let changes_planned = plan.changes.iter().any(|c| c.action != Action::NoOp);
            if self.args.json {
                if self.args.command != Command::Refresh {
                    json_plan(&plan);
                }
            } else if self.args.command != Command::Refresh
                && (!failed
                    || changes_planned
                    // `plan` shows a failed plan as one ("Planning
                    // failed."), unless planning stopped before its walk.
                    || (self.args.command == Command::Plan && !plan.failed_without_plan))
            {
                out!(
                    "{}",
                    render_plan(&plan, &self.schemas(), &self.render_options())
                );
            }
            self.generated_to = None;
            let mut failed = failed;
            if let Some(file) = self.args.generate_config_out.clone() {
                match write_generated_config(&self.dir.join(&file), &plan) {
                    Ok(false) => {}
                    Ok(true) => {
                        all.push(Diagnostic::warning(
                            "Config generation is experimental",
                            "Generating configuration during import is currently experimental, and the generated configuration format may change in future versions.",
                        ));
                        self.generated_to = Some(file.display().to_string());
                    }
                    Err(d) => {
                        all.push(*d);
                        failed = true;
                    }
                }
            }
            if failed || !self.applies_without_asking(&plan) {
                self.print_diagnostics(&all);
            } else {
                // Check blocks are evaluated again by the apply, which
                // reports their results itself.
                self.deferred_warnings = all
                    .into_iter()
                    .filter(|d| !is_check_block_result(d))
                    .collect();
            }
            if failed {
                // As terraform: a plan that failed part way is still saved
                // (applying it is refused), so `show` can say what it held.
                if let (Command::Plan, Some(out), false) = (
                    self.args.command,
                    self.args.out.clone(),
                    plan.failed_without_plan,
                ) {
                    if let Err(d) = self.save_plan(&out, &plan) {
                        self.print_diagnostics(&d);
                    }
                }
                return 1;
            }
            plan
        };

        if self.args.command == Command::Plan {
            if let Some(out) = self.args.out.clone() {
                if let Err(d) = self.save_plan(&out, &plan) {
                    self.print_diagnostics(&d);
                    return 1;
                }
                if !crate::in_automation() && !self.args.json {
                    out!(
                        "{}",
                        render_plan_footer_with_generated(
                            Some(&out.display().to_string()),
                            self.generated_to.as_deref(),
                            &self.render_options()
                        )
                    );
                }
            } else if has_changes(&plan) && !crate::in_automation() && !self.args.json {
                out!(
                    "{}",
                    render_plan_footer_with_generated(
                        None,
                        self.generated_to.as_deref(),
                        &self.render_options()
                    )
                );
            }
            self.report_deferred("planned");
            if !self.unavailable_providers.is_empty() {
                self.report_left_out("planned");
                return 1;
            }
            return if self.args.detailed_exitcode && has_changes(&plan) {
                2
            } else {
                0
            };
        }

        if !has_changes(&plan) && plan.mode != PlanMode::RefreshOnly {
            // Nothing to do, but outputs and refreshed objects still land.
            return self.apply_plan(plan, &ui);
        }
        if plan.mode == PlanMode::RefreshOnly && !plan.can_apply() && !plan.changes_empty() {
            // Shown as changes (outputs not known yet), saving nothing:
            // terraform refuses such a plan rather than report success.
            self.print_diagnostics(&[Diagnostic::error(
                "Cannot apply non-applyable plan",
                format!("The given plan is not applyable. If this seems like a bug in {PRODUCT_TITLE}, then please report it!"),
            )]);
            return 1;
        }
        if self.args.plan_file.is_none() && !self.args.auto_approve && !self.approved(&plan) {
            let verb = if plan.mode == PlanMode::Destroy {
                "Destroy"
            } else {
                "Apply"
            };
            // Like terraform: not a diagnostic, just the line.
            outln!("{verb} cancelled.");
            return 1;
        }
        self.apply_plan(plan, &ui)
    }

    /// Ends the operation with `errors` found before the engine planned
    /// anything. `planning_failed`: terraform found them in its plan walk
    /// (unsuitable variable values), so `plan` shows the failed plan
    /// ("Planning failed.") before them.
    fn fail_before_planning(&mut self, errors: Diagnostics, planning_failed: bool) -> i32 {
        let mut all = std::mem::take(&mut self.warnings);
        all.extend(errors);
        let mode = self.plan_mode();
        let mut nothing_planned = Plan::empty(mode, self.prior.clone());
        nothing_planned.errored = true;
        if self.args.html.is_some() {
            // The report of a plan that stopped before planning anything:
            // its errors.
            if let Some(d) = self.write_html_report(&nothing_planned, &all) {
                all.push(d);
            }
        }
        if planning_failed && self.args.command == Command::Plan && !self.args.json {
            out!(
                "{}",
                render_plan(&nothing_planned, &self.schemas(), &self.render_options())
            );
        }
        self.print_diagnostics(&all);
        1
    }

    /// The planning mode the arguments ask for.
    fn plan_mode(&self) -> PlanMode {
        if self.args.destroy {
            PlanMode::Destroy
        } else if self.args.refresh_only {
            PlanMode::RefreshOnly
        } else {
            PlanMode::Normal
        }
    }

    /// Writes the plan file `-out` names, with what applying it needs.
    fn save_plan(&self, out: &Path, plan: &Plan) -> Result<(), Diagnostics> {
        let context = crate::planfile_io::context(
            &self.config,
            &self.dir,
            &OsFiles,
            crate::planfile_io::MadeFrom {
                locks_text: self.locks_text.clone(),
                backend: &self.backend_settings,
                workspace: &self.ctx.workspace,
                state: self.prior_snapshot.as_ref(),
                apply_time_variables: self.apply_time_variables.clone(),
                generated_config: self.generated_to.as_ref().map(std::path::PathBuf::from),
            },
        );
        crate::planfile_io::write(out, plan, &context, &self.encryption.plan())
    }

    fn apply_plan(&mut self, plan: Plan, ui: &ApplyUi) -> i32 {
        let journal = match Journal::create(
            self.journal_path.clone(),
            self.prior_snapshot.as_ref(),
            &self.state_read_path,
        ) {
            Ok(j) => Arc::new(j),
            Err(d) => {
                self.print_diagnostics(&[*d]);
                return 1;
            }
        };
        ui.attach_journal(journal.clone());
        {
            let backend = self.backend.clone();
            let journal = journal.clone();
            self.interrupt
                .on_fatal(move || save_in_emergency(&backend, &journal));
        }
        let (state, applied_diags) = terrace_engine::apply(&self.ctx, &plan, ui);
        ui.flush_output();
        // The plan's values (prior state, planned objects) are not needed to
        // save the new state; freeing them first keeps them out of the peak
        // that writing a large state reaches.
        drop(plan);
        let mut diags = std::mem::take(&mut self.deferred_warnings);
        let planned = diags.len();
        // A provider instance that could not be configured for the plan
        // usually fails the same way for the apply: said once. The apply's
        // own diagnostics all stay, even when two read alike (the same
        // check failing in two instances of a module).
        for d in applied_diags {
            if !diags[..planned].contains(&d) {
                diags.push(d);
            }
        }
        if !self.persist(&state, &journal) {
            // Nothing after this may read as success: the engine's own
            // errors still say what went wrong during the apply.
            self.print_diagnostics(&diags);
            return 1;
        }
        // With provider instances left out, what was applied is still
        // summed up, then what was not.
        let partial = !self.unavailable_providers.is_empty();
        if has_errors(&diags) && !partial {
            self.print_diagnostics(&diags);
            return 1;
        }
        self.print_diagnostics(&diags);
        let code = self.summarise_apply(&state, ui);
        self.report_deferred("applied");
        if partial {
            self.report_left_out("applied");
            return 1;
        }
        code
    }

    /// The summary line and the outputs of a finished apply.
    fn summarise_apply(&self, state: &State, ui: &ApplyUi) -> i32 {
        let counts = ui.counts();
        // The command decides the wording: applying a saved destroy plan
        // is an apply.
        let destroy = self.args.command == Command::Destroy;
        if self.args.json {
            json_applied(self.args.command, destroy, counts, state);
            return 0;
        }
        if self.args.command != Command::Refresh {
            out!(
                "{}",
                render_apply_summary(
                    destroy,
                    counts.added,
                    counts.changed,
                    counts.destroyed,
                    counts.imported,
                    &self.render_options()
                )
            );
        }
        if !destroy {
            out!(
                "{}",
                render_outputs(&root_outputs(state), &self.render_options())
            );
        }
        0
    }

    /// The closing note of a run whose plan deferred provider
    /// configurations: what waits for the next run, and why.
    fn report_deferred(&self, work: &str) {
        let (providers, resources) = &self.deferred;
        if providers.is_empty() {
            return;
        }
        let configs: Vec<String> = providers.iter().map(ToString::to_string).collect();
        let addrs: Vec<String> = resources.iter().map(ToString::to_string).collect();
        let (config_noun, verb, pronoun) = if configs.len() == 1 {
            ("configuration", "is", "it")
        } else {
            ("configurations", "are", "them")
        };
        let waiting = if addrs.is_empty() {
            format!("No resource uses {pronoun} yet.")
        } else {
            format!(
                "What is bound to {pronoun} was not {work}: {}.",
                addrs.join(", ")
            )
        };
        let text = format!(
            "Deferred: the for_each of provider {config_noun} {} {verb} not known until apply. {waiting} Run {} apply again once what the for_each refers to exists, to plan it.",
            configs.join(", "),
            crate::PRODUCT,
        );
        if self.args.json {
            crate::json_ui::log(&text);
        } else {
            outln!("\n{text}");
        }
    }

    /// The closing line of a run that left provider instances out.
    fn report_left_out(&self, work: &str) {
        let names: Vec<String> = self
            .unavailable_providers
            .iter()
            .map(ToString::to_string)
            .collect();
        let count = names.len();
        let noun = if count == 1 { "instance" } else { "instances" };
        let text = format!(
            "Not {work}: the resources of {count} provider {noun} that could not be configured: {}. Everything else was {work}.",
            names.join(", ")
        );
        if self.args.json {
            crate::json_ui::log(&text);
        } else {
            outln!("\n{text}");
        }
    }

    /// Writes the state after an apply; `false` (with the errors printed)
    /// when it could not be saved where it belongs. Then it goes to
    /// `errored.tfstate`, or, when even that fails, onto stderr as JSON;
    /// the journal stays until the state is safely stored.
    fn persist(&self, state: &State, journal: &Journal) -> bool {
        let mut backend = self.backend.lock().unwrap_or_else(PoisonError::into_inner);
        match backend.write_state(state) {
            Ok(serial) => {
                tracing::debug!(serial, "state written");
                let lineage = backend
                    .snapshot_id()
                    .map(|(lineage, _)| lineage)
                    .unwrap_or_default();
                journal.finish(&SnapshotId { lineage, serial });
                true
            }
            Err(e) => {
                let diags = save_elsewhere(backend.as_ref(), state, &e.to_string(), self.args.json);
                self.print_diagnostics(&diags);
                false
            }
        }
    }

    /// `terrace import ADDR ID`: one object brought under management
    /// through the engine (ImportResourceState, then a read), then the
    /// state written.
    fn import(&mut self, addr_text: &str, id: &str) -> i32 {
        let addr = match terrace_addrs::AbsResourceInstance::parse_str(addr_text) {
            Ok(addr) => addr,
            Err(diags) => {
                self.print_diagnostics(&diags);
                return 1;
            }
        };
        let ui = ApplyUi::new(self.color(), self.interrupt.clone(), None).for_import_command();
        let targets = [(addr, id.to_string())];
        let (state, diags) = terrace_engine::import(&self.ctx, &self.prior, &targets, &ui);
        ui.flush_output();
        let mut all = std::mem::take(&mut self.warnings);
        all.extend(diags);
        if has_errors(&all) {
            self.print_diagnostics(&all);
            return 1;
        }
        let written = self
            .backend
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .write_state(&state);
        if let Err(e) = written {
            let diags = save_elsewhere(
                self.backend
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .as_ref(),
                &state,
                &e.to_string(),
                false,
            );
            self.print_diagnostics(&diags);
            return 1;
        }
        let text = format!("\nImport successful!\n\nThe resources that were imported are shown above. These resources are now in\nyour {PRODUCT} state and will henceforth be managed by {PRODUCT}.\n");
        if self.color() {
            outln!("\x1b[0m\x1b[1m\x1b[32m{text}\x1b[0m");
        } else {
            outln!("{text}");
        }
        self.print_diagnostics(&all);
        0
    }

    /// Whether `plan`, made by this command, is applied without a question
    /// to the user (an apply command with `-auto-approve`, or a plan with
    /// nothing to approve).
    fn applies_without_asking(&self, plan: &Plan) -> bool {
        if self.args.command == Command::Plan {
            return false;
        }
        let nothing_to_approve = !has_changes(plan) && plan.mode != PlanMode::RefreshOnly;
        self.args.auto_approve || nothing_to_approve
    }

    /// Terraform's interactive approval: only `yes` goes on.
    fn approved(&self, plan: &Plan) -> bool {
        let (question, detail) = match plan.mode {
            PlanMode::Destroy => (
                "Do you really want to destroy all resources?",
                format!("  {PRODUCT} will destroy all your managed infrastructure, as shown above.\n  There is no undo. Only 'yes' will be accepted to confirm."),
            ),
            _ => (
                "Do you want to perform these actions?",
                format!("  {PRODUCT} will perform the actions described above.\n  Only 'yes' will be accepted to approve."),
            ),
        };
        if !self.args.input {
            return false;
        }
        out!("\n{question}\n{detail}\n\n  Enter a value: ");
        let _ = std::io::stdout().flush();
        let mut line = String::new();
        let ok = std::io::stdin().lock().read_line(&mut line).is_ok();
        outln!();
        ok && line.trim_end_matches(['\n', '\r']) == "yes"
    }

    /// Resource schemas for rendering, from the providers the engine used.
    fn schemas(&self) -> impl Fn(&Provider, ResourceMode, &str) -> Option<Arc<Schema>> + '_ {
        move |provider: &Provider, mode: ResourceMode, type_name: &str| {
            let schema = self.ctx.providers.schema(provider).ok()?;
            let found = match mode {
                ResourceMode::Data => schema.data_sources.get(type_name),
                ResourceMode::Ephemeral => schema.ephemeral_resources.get(type_name),
                _ => schema.resource_types.get(type_name),
            }?;
            Some(Arc::new(found.clone()))
        }
    }

    fn finish(&mut self, code: i32) -> i32 {
        if self.locked {
            let unlocked = self
                .backend
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .unlock();
            if let Err(e) = unlocked {
                eprintln!("{e}");
                return 1;
            }
        }
        code
    }
}

/// Diagnostics as text, or as stream lines with `-json`.
fn show_diagnostics(json: bool, diags: &[Diagnostic], sources: &SourceMap, color: bool) {
    if json {
        crate::json_ui::diagnostics(diags, sources);
    } else {
        print_diagnostics(diags, sources, color);
    }
}

/// A plan in the `-json` stream: drift, each change, the summary line and
/// the root outputs' planned actions.
fn json_plan(plan: &Plan) {
    for drift in &plan.drift {
        if drift.action != Action::NoOp || plan.mode == PlanMode::RefreshOnly {
            crate::json_ui::resource_drift(drift);
        }
    }
    for change in &plan.changes {
        crate::json_ui::planned_change(change);
    }
    crate::json_ui::change_summary(
        crate::json_ui::ChangeSummary::of_plan(&plan.changes),
        crate::json_ui::SummaryOf::Plan,
    );
    crate::json_ui::planned_outputs(&plan.output_changes);
}

/// What an apply did, in the `-json` stream: the summary line (not for
/// `refresh`), then the root outputs (not after a destroy).
fn json_applied(command: Command, destroy: bool, counts: crate::ui::Counts, state: &State) {
    if command != Command::Refresh {
        let summary = crate::json_ui::ChangeSummary {
            add: counts.added,
            change: counts.changed,
            import: counts.imported,
            remove: counts.destroyed,
        };
        let of = if destroy {
            crate::json_ui::SummaryOf::Destroy
        } else {
            crate::json_ui::SummaryOf::Apply
        };
        crate::json_ui::change_summary(summary, of);
    }
    if !destroy {
        crate::json_ui::applied_outputs(&root_outputs(state));
    }
}

/// The root module's outputs after an apply: value and sensitivity.
fn root_outputs(state: &State) -> BTreeMap<String, (terrace_value::Value, bool)> {
    state
        .outputs
        .iter()
        .map(|(name, o)| (name.clone(), (o.value.clone(), o.sensitive)))
        .collect()
}

/// The last resorts for a state the backend would not take, as terraform
/// has them: `errored.tfstate` in the working directory, else the state
/// as JSON on stderr. Returns the errors that say which happened.
fn save_elsewhere(backend: &dyn Backend, state: &State, error: &str, json: bool) -> Diagnostics {
    let product = crate::PRODUCT;
    let mut diags = vec![Diagnostic::error(
        "Failed to save state",
        format!("Error saving state: {error}"),
    )];
    match backend.write_errored_state(state) {
        Ok(_) => diags.push(Diagnostic::error(
            "Failed to persist state to backend",
            format!(
                "The error shown above has prevented {product} from writing the updated state to the configured backend. To allow for recovery, the state has been written to the file \"errored.tfstate\" in the current working directory.\n\nRunning \"{product} apply\" again at this point will create a forked state, making it harder to recover.\n\nTo retry writing this state, use the following command:\n    {product} state push errored.tfstate\n"
            ),
        )),
        Err(e) => {
            diags.push(Diagnostic::error(
                "Failed to create local state file",
                format!("Error creating local state file for recovery: {e}"),
            ));
            let (bytes, serialize_diags) = terrace_states::statefile::write_with_diagnostics(state);
            if let Some(d) = serialize_diags.iter().find(|d| d.is_error()) {
                diags.push(Diagnostic::error(
                    "Failed to serialize state",
                    format!(
                        "Failed to save state after apply.\n\nError serializing state: {}\n\nA catastrophic error has prevented {product} from persisting the state file or creating a backup. Unfortunately this means that the record of any resources created during this apply has been lost, and such resources may exist outside of {product}'s management.\n\nFor resources that support import, it is possible to recover by manually importing each resource using its id from the target system.\n\nThis is a serious bug in {product} and should be reported.\n",
                        d.summary
                    ),
                ));
            } else if json {
                crate::json_ui::state_dump(&String::from_utf8_lossy(&bytes));
            } else {
                let mut err = std::io::stderr().lock();
                let _ = err.write_all(&bytes);
                let _ = err.write_all(b"\n");
                let _ = err.flush();
            }
            diags.push(Diagnostic::error(
                "Failed to persist state to backend",
                format!(
                    "The errors shown above prevented {product} from writing the updated state to\nthe configured backend and from creating a local backup file. As a fallback,\nthe raw state data is printed above as a JSON object.\n\nTo retry writing this state, copy the state data (from the first {{ to the last }} inclusive) and save it into a local file called errored.tfstate, then run the following command:\n    {product} state push errored.tfstate\n"
                ),
            ));
        }
    }
    diags
}

/// What a second interrupt saves: the stored state with everything the
/// journal holds folded in, written while the journal takes no more
/// entries. When the state cannot be written the journal stays, and the
/// next command holding the lock recovers from it.
fn save_in_emergency(backend: &Mutex<Box<dyn Backend>>, journal: &Journal) {
    let mut backend = backend.lock().unwrap_or_else(PoisonError::into_inner);
    journal.fold_in_emergency(|path| {
        let stored = match backend.read_state() {
            Ok((state, _)) => state,
            Err(e) => {
                eprintln!("\nError: Failed to read the state to save it: {e}");
                return None;
            }
        };
        let state = match journal::recover(path, stored.as_ref(), Recoverer::Unchecked) {
            Ok(Recovery::Replayed { state, .. }) => state,
            Ok(Recovery::None | Recovery::AlreadyFolded) => return None,
            Err(d) => {
                eprintln!("\nError: {}\n\n{}", d.summary, d.detail);
                return None;
            }
        };
        match backend.write_state(&state) {
            Ok(serial) => {
                let lineage = backend
                    .snapshot_id()
                    .map(|(lineage, _)| lineage)
                    .unwrap_or_default();
                Some(SnapshotId { lineage, serial })
            }
            Err(e) => {
                let diags = save_elsewhere(backend.as_ref(), &state, &e.to_string(), false);
                for d in diags {
                    eprintln!("\nError: {}\n\n{}", d.summary, d.detail);
                }
                None
            }
        }
    });
}

/// terraform's `-compact-warnings` listing.
fn compact_warnings(diags: &[Diagnostic], color: bool) -> String {
    let mut out = String::from("\n");
    out.push_str(if color {
        "\x1b[1m\x1b[33mWarnings:\x1b[0m\n\n"
    } else {
        "Warnings:\n\n"
    });
    for d in diags {
        out.push_str(&format!("- {}\n", d.summary));
        if let Some(subject) = &d.subject {
            out.push_str(&format!(
                "  on {} line {}\n",
                subject.filename, subject.start.line
            ));
        }
    }
    out.push_str(&format!(
        "\nTo see the full warning notes, run {} without -compact-warnings.\n",
        crate::PRODUCT
    ));
    out
}

/// A `check` block's result, which every walk reports anew.
fn is_check_block_result(diag: &Diagnostic) -> bool {
    matches!(
        diag.summary.as_str(),
        "Check block assertion failed" | "Check block assertion known after apply"
    )
}

fn has_errors(diags: &Diagnostics) -> bool {
    diags.iter().any(Diagnostic::is_error)
}

/// Whether applying the plan would do anything: an action, an import
/// (terraform counts an import as a change, for `-detailed-exitcode`, the
/// footer and the approval question alike) or an output change.
fn has_changes(plan: &Plan) -> bool {
    // A refresh-only plan has something to apply only when the refreshed
    // state differs: an output not known yet is shown, but not saved.
    if plan.mode == PlanMode::RefreshOnly {
        return plan.can_apply();
    }
    plan.changes
        .iter()
        .any(|c| c.action != Action::NoOp || c.importing.is_some())
        || plan.output_changes.iter().any(|c| c.action != Action::NoOp)
}

fn lock_failure_text(diag: &Diagnostic, color: bool) -> String {
    terrace_syntax::render::render_diagnostic(
        diag,
        &SourceMap::new(),
        if color {
            terrace_syntax::render::RenderStyle::Color
        } else {
            terrace_syntax::render::RenderStyle::Plain
        },
        terrace_syntax::render::DEFAULT_WIDTH,
    )
}

pub(crate) fn dev_overrides_warning(overrides: &BTreeMap<Provider, PathBuf>) -> Diagnostic {
    let mut detail = String::from(
        "The following provider development overrides are set in the CLI configuration:\n",
    );
    for (provider, path) in overrides {
        detail.push_str(&format!(
            " - {} in {}\n",
            provider.for_display(),
            path.display()
        ));
    }
    detail.push_str("\nThe behavior may therefore not match any released version of the provider and applying changes may cause the state to become incompatible with published releases.");
    Diagnostic::warning("Provider development overrides are in effect", detail)
}

/// Writes the configuration the plan generated for imported objects to
/// `path`, which must not exist: terraform's header, then each resource
/// block after a comment naming the import ID. Whether there was any.
fn write_generated_config(path: &Path, plan: &Plan) -> Result<bool, Box<Diagnostic>> {
    let generated: Vec<(&str, &str)> = plan
        .changes
        .iter()
        .filter_map(|c| {
            let text = c.generated_config.as_deref().filter(|g| !g.is_empty())?;
            Some((c.importing.as_deref().unwrap_or_default(), text))
        })
        .collect();
    if generated.is_empty() {
        return Ok(false);
    }
    let mut text = format!(
        "# __generated__ by {PRODUCT_TITLE}\n# Please review these resources and move them into your main configuration files.\n"
    );
    for (id, block) in generated {
        text.push_str(&format!(
            "\n# __generated__ by {PRODUCT_TITLE} from {}\n{block}\n",
            terrace_value::gostr::quote(id)
        ));
    }
    use std::io::Write;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| {
            Box::new(Diagnostic::error(
                "Failed to write generated config",
                format!("{PRODUCT_TITLE} encountered an error while writing generated config: {e}. The plan was not saved."),
            ))
        })?;
    Ok(true)
}
