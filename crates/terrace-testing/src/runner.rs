//! Executing test files: each run block becomes a plan (and, for
//! `command = apply`, an apply) of its module under test against the state
//! that module has so far in this file; assertions and expected failures
//! decide its status; at the end of the file every state is destroyed, the
//! most recently changed first.
//!
//! Statuses merge as terraform's do (pending < skip < pass < fail <
//! error): a run that errors (any error diagnostic other than a failed
//! assertion) errors its file, and the file's remaining runs are skipped;
//! a failed assertion fails the run and the file, and later runs still
//! execute.

use crate::factory::{ConfiguredProviders, MockSetup, Overrides, TestProviderFactory};
use crate::file::{Command, OverrideKind, RunMode, RunSpec, TestFileSpec};
use crate::mock::MockValues;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use terrace_addrs::{AbsResourceInstance, InstanceKey, ModuleInstance, ResourceMode, Target};
use terrace_config::expr::Expression;
use terrace_config::input_variables::InputValues;
use terrace_config::loader::{load_config, Config, LoadOptions};
use terrace_config::model::Provider as ProviderBlock;
use terrace_config::module_source::ModuleSource;
use terrace_config::provider_validation::module_provider_types;
use terrace_engine::{Context, Hooks, PlanOptions, ProviderFactory, RootEvaluator};
use terrace_lang::scope::MapScope;
use terrace_plans::model::{Plan, PlanMode};
use terrace_states::model::State;
use terrace_syntax::ast::TraversalStep;
use terrace_syntax::diagnostic::{has_errors, Severity};
use terrace_syntax::{Diagnostic, Diagnostics, SourceRange};
use terrace_value::{Type, Value};

/// A run's, a file's or the suite's outcome, in increasing precedence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    Pending,
    Skip,
    Pass,
    Fail,
    Error,
}

impl Status {
    pub fn merge(self, other: Status) -> Status {
        self.max(other)
    }

    /// The word the human view prints.
    pub fn word(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Skip => "skip",
            Status::Pass => "pass",
            Status::Fail | Status::Error => "fail",
        }
    }
}

/// What the command gives the runner.
pub struct SuiteOptions {
    /// The module under test.
    pub dir: PathBuf,
    /// Only these files (paths as the human view names them), when given.
    pub filter: Vec<String>,
    /// Values given on the command line, in variables files and in the
    /// environment.
    pub inputs: Arc<InputValues>,
    /// Keep each run's plan and state for the reporter.
    pub verbose: bool,
    pub parallelism: usize,
    pub terraform_version: String,
    pub working_dir: PathBuf,
    /// What runs `local-exec` provisioners' commands.
    pub commands: Arc<dyn terrace_engine::CommandRunner>,
    /// Providers the command could not find (no lock file entry, no
    /// development override): a run needing one fails.
    pub missing_providers: std::collections::BTreeSet<terrace_addrs::Provider>,
}

/// One finished run block.
pub struct RunReport {
    pub name: String,
    pub status: Status,
    pub diagnostics: Diagnostics,
    pub elapsed: Duration,
    /// When it started (not for skipped runs).
    pub started: Option<std::time::SystemTime>,
    /// How many `assert` blocks it has.
    pub assertions: usize,
    /// The configuration the run used, for rendering its diagnostics.
    pub config: Option<Arc<Config>>,
    /// With `verbose`: the plan (`command = plan`) or the new state.
    pub plan: Option<Plan>,
    pub state: Option<State>,
    pub schemas: Option<Arc<dyn ProviderFactory>>,
}

/// One finished test file.
pub struct FileReport {
    pub name: String,
    pub status: Status,
    pub runs: Vec<RunReport>,
    /// States that could not be destroyed whole, in the order tried.
    pub cleanup_failures: Vec<CleanupFailure>,
    /// Findings about the file's own blocks (a file-level override whose
    /// target the module does not have), reported after its status.
    pub file_diagnostics: Diagnostics,
    pub elapsed: Duration,
}

/// A state the file's teardown could not destroy whole.
pub struct CleanupFailure {
    /// The run that last changed the state (whose configuration the
    /// destroy used).
    pub run_name: String,
    pub diagnostics: Diagnostics,
    /// What is still in the state: managed resource instances, each with
    /// the deposed object's key where it is a deposed one.
    pub left: Vec<(String, Option<String>)>,
}

pub struct SuiteReport {
    pub status: Status,
    pub files: Vec<FileReport>,
}

/// Progress as it happens.
pub trait Reporter {
    fn file_started(&self, file: &TestFileSpec);
    fn run_started(&self, file: &TestFileSpec, run: &RunSpec);
    fn run_finished(&self, file: &TestFileSpec, run: &RunReport);
    fn file_tearing_down(&self, file: &TestFileSpec);
    /// The state the run named last changed is about to be destroyed.
    fn run_tearing_down(&self, file: &TestFileSpec, run: &str);
    /// That state's destroy failed and left objects behind.
    fn run_cleanup_failed(&self, file: &TestFileSpec, failure: &CleanupFailure);
    fn file_finished(&self, file: &TestFileSpec, report: &FileReport);
}

/// Runs every file of `files` (sorted by name) with `providers` serving
/// the real providers.
pub fn run_suite(
    options: &SuiteOptions,
    main: Arc<Config>,
    files: &[TestFileSpec],
    providers: Arc<dyn ProviderFactory>,
    reporter: &dyn Reporter,
) -> SuiteReport {
    let mut report = SuiteReport {
        status: Status::Pending,
        files: Vec::new(),
    };
    let mut ordered: Vec<&TestFileSpec> = files
        .iter()
        .filter(|f| options.filter.is_empty() || options.filter.contains(&f.base.name))
        .collect();
    ordered.sort_by(|a, b| a.base.name.cmp(&b.base.name));
    for file in ordered {
        let runner = FileRunner {
            options,
            main: main.clone(),
            file,
            providers: providers.clone(),
        };
        let file_report = runner.run(reporter);
        report.status = report.status.merge(file_report.status);
        report.files.push(file_report);
    }
    report
}

/// The state of one module under test within a file, with what the last
/// run that changed it used, for destroying it at the end.
struct TrackedState {
    key: String,
    state: State,
    last: Option<PreparedRun>,
}

#[derive(Clone)]
struct PreparedRun {
    config: Arc<Config>,
    variables: HashMap<String, Value>,
    factory: Arc<TestProviderFactory>,
    /// Every value `var.` means in the run's assertions.
    test_variables: BTreeMap<String, Value>,
    /// Where the test file sets each variable, which a failed validation
    /// points at.
    variable_ranges: BTreeMap<String, SourceRange>,
    /// Warnings found preparing the run.
    warnings: Diagnostics,
    run_name: String,
    /// The run's position in its file.
    run_index: usize,
}

/// What a test file's provider blocks are evaluated with.
struct ProviderScope<'a> {
    /// The test's own variables, for `for_each`.
    for_each_variables: &'a BTreeMap<String, Value>,
    /// Those and the module's final values, for the arguments.
    variables: &'a BTreeMap<String, Value>,
    /// Earlier runs' outputs.
    outputs: &'a BTreeMap<String, Value>,
}

struct FileRunner<'a> {
    options: &'a SuiteOptions,
    main: Arc<Config>,
    file: &'a TestFileSpec,
    providers: Arc<dyn ProviderFactory>,
}

const ASSERTION_FAILED: &str = "Test assertion failed";

impl FileRunner<'_> {
    fn run(&self, reporter: &dyn Reporter) -> FileReport {
        let started = Instant::now();
        reporter.file_started(self.file);
        let mut status = Status::Pass;
        let mut states: Vec<TrackedState> = Vec::new();
        let mut outputs: BTreeMap<String, Value> = BTreeMap::new();
        let mut runs = Vec::new();
        for run in &self.file.runs {
            let report = if status == Status::Error {
                RunReport {
                    name: run.name.clone(),
                    status: Status::Skip,
                    diagnostics: Vec::new(),
                    elapsed: Duration::ZERO,
                    started: None,
                    assertions: run.asserts.len(),
                    config: None,
                    plan: None,
                    state: None,
                    schemas: None,
                }
            } else {
                reporter.run_started(self.file, run);
                let run_started = Instant::now();
                let wall = std::time::SystemTime::now();
                let mut report = self.execute(run, &mut states, &mut outputs);
                report.elapsed = run_started.elapsed();
                report.started = Some(wall);
                report
            };
            status = status.merge(report.status);
            reporter.run_finished(self.file, &report);
            runs.push(report);
        }
        reporter.file_tearing_down(self.file);
        let mut cleanup_failures = Vec::new();
        // The state changed most recently goes first: it may depend on the
        // others (a setup module's objects), never the other way round.
        let mut order: Vec<&TrackedState> = states.iter().collect();
        order.sort_by_key(|t| std::cmp::Reverse(t.last.as_ref().map(|l| l.run_index)));
        for tracked in order {
            let Some(last) = &tracked.last else {
                continue;
            };
            // A state holding no managed object (data sources, outputs)
            // has nothing to destroy, and terraform does not announce it.
            let managed = tracked
                .state
                .all_instances()
                .any(|(addr, _, _)| addr.resource.resource.mode == ResourceMode::Managed);
            if !managed {
                continue;
            }
            reporter.run_tearing_down(self.file, &last.run_name);
            if let Some(failure) = self.destroy(tracked, last) {
                status = status.merge(Status::Error);
                reporter.run_cleanup_failed(self.file, &failure);
                cleanup_failures.push(failure);
            }
        }
        if self.file.runs.is_empty() {
            status = Status::Pass;
        }
        let file_diagnostics = missing_override_targets(&self.main, &self.file.overrides);
        let report = FileReport {
            name: self.file.base.name.clone(),
            status,
            runs,
            cleanup_failures,
            file_diagnostics,
            elapsed: started.elapsed(),
        };
        reporter.file_finished(self.file, &report);
        report
    }

    fn skipped_or_error(&self, run: &RunSpec, diags: Diagnostics) -> RunReport {
        RunReport {
            name: run.name.clone(),
            status: Status::Error,
            diagnostics: diags,
            elapsed: Duration::ZERO,
            started: None,
            assertions: run.asserts.len(),
            config: None,
            plan: None,
            state: None,
            schemas: None,
        }
    }

    /// `var.` for the file's own expressions: the values given to the
    /// command for variables the module declares, then those of the
    /// variables files in the test file's own directory (when that is not
    /// the module's), then the file's `variables`.
    fn file_variables(&self, diags: &mut Diagnostics) -> BTreeMap<String, Value> {
        let mut vars: BTreeMap<String, Value> = BTreeMap::new();
        for (name, variable) in &self.main.module.variables {
            if let Some((value, _)) = self.options.inputs.value_for(variable) {
                vars.insert(name.clone(), value);
            }
        }
        for (name, (value, d)) in self.test_directory_values(diags) {
            diags.extend(d);
            vars.insert(name, value);
        }
        // The file's variables see the values given to the command, not
        // each other, and no run's results.
        let globals = vars.clone();
        let no_runs = BTreeMap::new();
        for (name, expr) in &self.file.variables {
            let problems = file_variable_references(expr, &globals);
            if !problems.is_empty() {
                diags.extend(problems);
                vars.insert(name.clone(), Value::dynamic());
                continue;
            }
            let (v, d) = evaluate_in_test_scope(expr, &globals, &no_runs, &self.options.dir);
            diags.extend(d);
            vars.insert(name.clone(), v);
        }
        vars
    }

    /// "Reference to unknown value" for each `run.NAME.OUTPUT` in a run's
    /// variables whose value is not known: a plan run's results that only
    /// an apply would know.
    fn unknown_run_outputs(
        &self,
        expr: &Expression,
        outputs: &BTreeMap<String, Value>,
    ) -> Diagnostics {
        let mut diags = Diagnostics::new();
        for t in expr.variables() {
            if t.root != "run" {
                continue;
            }
            let [TraversalStep::Attr {
                name: run_name,
                span,
            }, TraversalStep::Attr { name: output, .. }, ..] = t.steps.as_slice()
            else {
                continue;
            };
            let value = outputs
                .get(run_name)
                .and_then(Value::as_attributes)
                .and_then(|o| o.get(output));
            if value.is_none_or(Value::is_wholly_known) {
                continue;
            }
            let command = match self.file.runs.iter().find(|r| &r.name == run_name) {
                Some(r) if r.command == Command::Apply => "apply",
                _ => "plan",
            };
            diags.push(
                Diagnostic::error(
                    "Reference to unknown value",
                    format!("The value for run.{run_name}.{output} is unknown. Run block {run_name:?} is executing a {command:?} operation, and the specified output value is only known after apply."),
                )
                .with_subject(expr.file().range(t.root_span.to(*span))),
            );
        }
        diags
    }

    /// "Missing required provider" for each provider the run's modules use
    /// that the command could not find, in address order.
    fn missing_providers(&self, config: &Config) -> Diagnostics {
        if self.options.missing_providers.is_empty() {
            return Vec::new();
        }
        let mut used = std::collections::BTreeSet::new();
        config.deep_each(&mut |c| {
            used.extend(module_provider_types(&c.module).into_values());
            let module = &c.module;
            for r in module
                .managed_resources
                .values()
                .chain(module.data_resources.values())
            {
                used.extend(r.provider.clone());
            }
        });
        used.intersection(&self.options.missing_providers)
            .map(|p| {
                Diagnostic::error(
                    "Missing required provider",
                    format!("This configuration requires provider {p}, but that provider isn't available. You may be able to install it automatically by running:\n  terrace init"),
                )
            })
            .collect()
    }

    /// `terraform.tfvars` and `*.auto.tfvars` (and their JSON forms) of the
    /// directory holding the test file, when it is a test directory: they
    /// apply to its test files only, over the command line's values, and
    /// may name variables only the test file uses.
    fn test_directory_values(
        &self,
        diags: &mut Diagnostics,
    ) -> BTreeMap<String, (Value, Diagnostics)> {
        let Some(parent) = Path::new(&self.file.base.name)
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
        else {
            return BTreeMap::new();
        };
        // Relative to the working directory as given, so that messages
        // name `tests/terraform.tfvars` as terraform does.
        let dir = if self.options.dir == Path::new(".") {
            parent.to_path_buf()
        } else {
            self.options.dir.join(parent)
        };
        let (values, d) =
            terrace_config::input_variables::collect_input_values(&dir, &[], std::iter::empty());
        diags.extend(d);
        values.given_values()
    }

    fn run_module_dir(&self, run: &RunSpec) -> Option<PathBuf> {
        let base = self.file.base.runs.get(run.index)?;
        let module = base.module.as_ref()?;
        match module.source.as_ref()? {
            ModuleSource::Local(rel) => {
                Some(terrace_config::loader::join_clean(&self.options.dir, rel))
            }
            _ => base
                .config_under_test
                .as_ref()
                .map(|c| c.module.source_dir.clone()),
        }
    }

    fn state_key(&self, run: &RunSpec) -> String {
        if let Some(k) = &run.state_key {
            return k.clone();
        }
        self.file
            .base
            .runs
            .get(run.index)
            .and_then(|r| r.module.as_ref())
            .and_then(|m| m.source.as_ref())
            .map(|s| s.to_string())
            .unwrap_or_default()
    }

    /// Loads the run's module with its variables and puts the test's
    /// provider configurations in place.
    fn prepare(
        &self,
        run: &RunSpec,
        outputs: &BTreeMap<String, Value>,
    ) -> Result<PreparedRun, Diagnostics> {
        let mut diags = Diagnostics::new();
        let mut test_variables = self.file_variables(&mut diags);
        for (name, expr) in &run.variables {
            let (v, d) = evaluate_in_test_scope(expr, &test_variables, outputs, &self.options.dir);
            let failed = has_errors(&d);
            diags.extend(d);
            if !failed {
                diags.extend(self.unknown_run_outputs(expr, outputs));
            }
            test_variables.insert(name.clone(), v);
        }
        if has_errors(&diags) {
            return Err(diags);
        }
        let module_dir = self
            .run_module_dir(run)
            .unwrap_or_else(|| self.options.dir.clone());
        let declared = if module_dir == self.options.dir {
            self.main.module.variables.clone()
        } else {
            let (module, _) = terrace_config::loader::load_module_dir(&module_dir);
            module.map(|m| m.variables).unwrap_or_default()
        };
        let mut inputs = (*self.options.inputs).clone();
        let ranges: BTreeMap<String, SourceRange> = self
            .file
            .variables
            .iter()
            .chain(run.variables.iter())
            .map(|(n, e)| (n.clone(), e.range()))
            .collect();
        for (name, value) in &test_variables {
            if declared.contains_key(name) {
                inputs.add_value(name, value.clone(), ranges.get(name).cloned());
            }
        }
        for (name, expr) in &run.variables {
            if !declared.contains_key(name) {
                diags.push(
                    Diagnostic::warning(
                        "Value for undeclared variable",
                        format!("The module under test does not declare a variable named {name:?}, but it is declared in run block {:?}.", run.name),
                    )
                    .with_subject(expr.range()),
                );
            }
        }
        let load_options = LoadOptions {
            input_values: Arc::new(inputs.clone()),
            ..LoadOptions::default()
        };
        let (mut config, d) = load_config(&module_dir, &load_options);
        diags.extend(d);
        if has_errors(&diags) {
            return Err(diags);
        }
        diags.extend(self.missing_providers(&config));
        if has_errors(&diags) {
            return Err(diags);
        }
        let (variables, final_diags) = inputs.final_values(&config.module.variables);
        // What `var.` means in the test file's provider blocks and
        // assertions: the module's final values, and the test's own values
        // for names the module does not declare.
        let mut assertion_vars = test_variables.clone();
        for (name, value) in &variables {
            assertion_vars.insert(name.clone(), value.clone());
        }
        let (mocks, configured) = self.substitute_providers(
            run,
            &mut config,
            &ProviderScope {
                for_each_variables: &test_variables,
                variables: &assertion_vars,
                outputs,
            },
            &mut diags,
        );
        let overrides = self.overrides(run, &mut config, &mut diags);
        if has_errors(&diags) {
            return Err(diags);
        }
        let d = final_diags;
        // Values the module does not declare may be meant for the test
        // file's own expressions: no complaint about them here.
        diags.extend(
            d.into_iter()
                .filter(|d| d.summary != "Value for undeclared variable"),
        );
        for (name, variable) in &config.module.variables {
            if variable.default.is_none() && inputs.value_for(variable).is_none() {
                diags.push(
                    Diagnostic::error(
                        "No value for required variable",
                        format!(
                            "The module under test for run block {:?} has a required variable {name:?} with no set value. Use a -var or -var-file command line argument or add this variable into a \"variables\" block within the test file or run block.",
                            run.name
                        ),
                    )
                    .with_subject(variable.decl_range.clone()),
                );
            }
        }
        if has_errors(&diags) {
            return Err(diags);
        }
        let factory = Arc::new(TestProviderFactory {
            inner: self.providers.clone(),
            mocks,
            configured,
            overrides,
            relaxed_schemas: Mutex::default(),
        });
        Ok(PreparedRun {
            config: Arc::new(config),
            variables,
            factory,
            test_variables: assertion_vars,
            variable_ranges: ranges,
            warnings: diags,
            run_name: run.name.clone(),
            run_index: run.index,
        })
    }

    /// Replaces the root module's provider configurations with the test
    /// file's (`provider` and `mock_provider` blocks, or the run's
    /// `providers` map), evaluating their `for_each` from the run's
    /// variables; returns the mocked configurations, and the arguments of
    /// the others evaluated in the test file's scope, per instance.
    fn substitute_providers(
        &self,
        run: &RunSpec,
        config: &mut Config,
        scope: &ProviderScope<'_>,
        diags: &mut Diagnostics,
    ) -> (
        HashMap<(terrace_addrs::Provider, Option<String>), MockSetup>,
        ConfiguredProviders,
    ) {
        let test_variables = scope.for_each_variables;
        let base = &self.file.base;
        let mut placed: Vec<(String, ProviderBlock)> = Vec::new();
        let passed = base
            .runs
            .get(run.index)
            .map(|r| r.providers.clone())
            .unwrap_or_default();
        if passed.is_empty() {
            // A test-only configuration serves only runs that name it in
            // `providers`: it is neither placed nor evaluated for others.
            for (key, p) in &base.providers {
                if !terrace_config::provider_validation::is_test_only_provider(config, key, &p.name)
                {
                    placed.push((key.clone(), p.clone()));
                }
            }
        } else {
            for entry in &passed {
                let parent = entry.in_parent.config_key();
                let Some(p) = base.providers.get(&parent) else {
                    // A run's `providers` map passes the test file's
                    // configurations only.
                    diags.push(
                        Diagnostic::error(
                            format!("Missing provider definition for {parent}"),
                            "This provider block references a provider definition that does not exist.",
                        )
                        .with_subject(entry.in_parent.name_range.clone()),
                    );
                    continue;
                };
                let mut p = p.clone();
                p.name = entry.in_child.name.clone();
                p.alias = entry.in_child.alias.clone();
                placed.push((parent, p));
            }
        }
        let types = module_provider_types(&config.module);
        let mut mocks = HashMap::new();
        let mut configured = ConfiguredProviders::new();
        for (source_key, mut p) in placed {
            if let Some(for_each) = &p.for_each {
                match test_provider_instances(for_each, test_variables) {
                    Ok(instances) => p.instances = Some(instances),
                    Err(d) => diags.extend(d),
                }
            }
            let local_key = p.module_unique_key();
            if base.mocked.contains(&source_key) {
                let fqn = types
                    .get(&p.name)
                    .cloned()
                    .or_else(|| terrace_addrs::Provider::new_default(&p.name).ok());
                if let Some(fqn) = fqn {
                    let contents = self
                        .file
                        .mocks
                        .get(&source_key)
                        .cloned()
                        .unwrap_or_default();
                    let mut setup = MockSetup::default();
                    for m in &contents.resources {
                        let values = self.constant_values(m.defaults.as_ref(), diags);
                        setup.resources.insert(
                            m.type_name.clone(),
                            MockValues {
                                values,
                                during_plan: m.during_plan,
                            },
                        );
                    }
                    for m in &contents.data {
                        let values = self.constant_values(m.defaults.as_ref(), diags);
                        setup.data.insert(
                            m.type_name.clone(),
                            MockValues {
                                values,
                                during_plan: m.during_plan,
                            },
                        );
                    }
                    mocks.insert((fqn, p.alias.clone()), setup);
                }
            } else if let Some(fqn) = types
                .get(&p.name)
                .cloned()
                .or_else(|| terrace_addrs::Provider::new_default(&p.name).ok())
            {
                // The engine evaluates a provider block in the module's
                // scope; a test's belongs to the test file's (its
                // variables, earlier runs' outputs), so its arguments are
                // evaluated here and handed to the provider when it is
                // configured, and the engine sees an empty body.
                let values = self.test_provider_arguments(&p, &fqn, scope, diags);
                configured.insert((fqn, p.alias.clone()), values);
                p.config = terrace_config::body::Body::empty();
            }
            config.module.provider_configs.insert(local_key, p);
        }
        (mocks, configured)
    }

    /// A test-level provider block's arguments for each of its instances,
    /// decoded against the provider's schema in the test file's scope.
    fn test_provider_arguments(
        &self,
        p: &ProviderBlock,
        fqn: &terrace_addrs::Provider,
        scope: &ProviderScope<'_>,
        diags: &mut Diagnostics,
    ) -> BTreeMap<InstanceKey, Value> {
        let schema = match self.providers.schema(fqn) {
            Ok(s) => s,
            Err(d) => {
                diags.extend(d);
                return BTreeMap::new();
            }
        };
        let block = &schema.provider.block;
        let mut unavailable = Diagnostics::new();
        for (t, file) in terrace_config::hcldec::body_references(&p.config, block) {
            let Some(TraversalStep::Attr { name, span }) = t.steps.first() else {
                continue;
            };
            let range = file.range(t.root_span.to(*span));
            if t.root == "run" && !scope.outputs.contains_key(name) {
                unavailable.push(
                    Diagnostic::error(
                        "Reference to unavailable run block",
                        format!("The run block {name:?} has not executed yet. You can only reference run blocks that are in the same test file and will execute before the provider is required."),
                    )
                    .with_subject(range),
                );
            } else if t.root == "var" && !scope.variables.contains_key(name) {
                unavailable.push(
                    Diagnostic::error(
                        "Reference to undeclared input variable",
                        format!("An input variable with the name {name:?} has not been declared. This variable can be declared with a variable {name:?} {{}} block."),
                    )
                    .with_subject(range),
                );
            }
        }
        if !unavailable.is_empty() {
            diags.extend(unavailable);
            return BTreeMap::new();
        }
        let base = || {
            MapScope::new()
                .with("var", object_of(scope.variables))
                .with("run", object_of(scope.outputs))
                .with_base_dir(&self.options.dir)
        };
        let mut out = BTreeMap::new();
        match &p.instances {
            Some(instances) => {
                for (key, repetition) in instances {
                    let each = Value::object(BTreeMap::from([
                        ("key".to_string(), repetition.each_key.clone()),
                        ("value".to_string(), repetition.each_value.clone()),
                    ]));
                    let (value, d) = terrace_config::hcldec::decode_body(
                        &p.config,
                        block,
                        &base().with("each", each),
                    );
                    diags.extend(d);
                    out.insert(InstanceKey::String(Arc::from(key.as_str())), value);
                }
            }
            None => {
                let (value, d) = terrace_config::hcldec::decode_body(&p.config, block, &base());
                diags.extend(d);
                out.insert(InstanceKey::None, value);
            }
        }
        out
    }

    fn constant_values(&self, expr: Option<&Expression>, diags: &mut Diagnostics) -> Value {
        match expr {
            Some(e) => {
                let (v, d) = e.constant_value();
                diags.extend(d);
                v
            }
            None => Value::empty_object(),
        }
    }

    /// The overrides a run uses: its mock providers', the file's and its
    /// own, later ones winning for the same target. Resource and data
    /// overrides answer through the providers; module overrides reshape
    /// `config`. A run's own override whose target is not in `config` is
    /// a warning.
    fn overrides(&self, run: &RunSpec, config: &mut Config, diags: &mut Diagnostics) -> Overrides {
        let mut out = Overrides::default();
        let mut modules: BTreeMap<String, &crate::file::Override> = BTreeMap::new();
        let mocked_overrides = self.file.mocks.values().flat_map(|m| m.overrides.iter());
        for o in mocked_overrides
            .chain(self.file.overrides.iter())
            .chain(run.overrides.iter())
        {
            if o.kind == OverrideKind::Module {
                modules.insert(o.target.clone(), o);
                continue;
            }
            out.by_address.insert(
                o.target.clone(),
                MockValues {
                    values: constant_object(o.values.as_ref()),
                    during_plan: o.during_plan,
                },
            );
        }
        diags.extend(missing_override_targets(config, &run.overrides));
        for o in modules.values() {
            if override_target_exists(config, o) {
                diags.extend(override_module_outputs(config, o));
            }
        }
        out
    }

    fn context(&self, prepared: &PreparedRun) -> Context {
        Context {
            config: prepared.config.clone(),
            providers: prepared.factory.clone(),
            variables: prepared.variables.clone(),
            workspace: "default".to_string(),
            working_dir: self.options.working_dir.clone(),
            parallelism: self.options.parallelism,
            terraform_version: self.options.terraform_version.clone(),
            commands: self.options.commands.clone(),
        }
    }

    fn execute(
        &self,
        run: &RunSpec,
        states: &mut Vec<TrackedState>,
        outputs: &mut BTreeMap<String, Value>,
    ) -> RunReport {
        let prepared = match self.prepare(run, outputs) {
            Ok(p) => p,
            Err(d) => return self.skipped_or_error(run, d),
        };
        let key = self.state_key(run);
        let index = match states.iter().position(|s| s.key == key) {
            Some(i) => i,
            None => {
                states.push(TrackedState {
                    key: key.clone(),
                    state: State::new_empty(),
                    last: None,
                });
                states.len() - 1
            }
        };
        let prior = states[index].state.clone();
        let ctx = self.context(&prepared);
        let mut diags = Diagnostics::new();
        let mut plan_options = PlanOptions {
            mode: match run.plan_options.mode {
                RunMode::Normal => PlanMode::Normal,
                RunMode::RefreshOnly => PlanMode::RefreshOnly,
            },
            refresh: run.plan_options.refresh,
            ..PlanOptions::default()
        };
        for t in &run.plan_options.target {
            match Target::parse_str(&crate::file::traversal_text(t)) {
                Ok(target) => plan_options.targets.push(target),
                Err(d) => diags.extend(d),
            }
        }
        for t in &run.plan_options.replace {
            match AbsResourceInstance::parse_str(&crate::file::traversal_text(t)) {
                Ok(addr) => plan_options.force_replace.push(addr),
                Err(d) => diags.extend(d),
            }
        }
        if has_errors(&diags) {
            return self.skipped_or_error(run, diags);
        }
        let checkables = Checkables::of(&prepared.config);
        let expected: Vec<&crate::file::ExpectedFailure> = run.expect_failures.iter().collect();
        let run_roots = BTreeMap::from([
            ("var".to_string(), object_of(&prepared.test_variables)),
            ("run".to_string(), object_of(outputs)),
        ]);
        let hooks = AssertionHooks {
            evaluate: run.command == Command::Plan,
            plan_outputs: run.command == Command::Plan,
            run,
            file_runs: &self.file.runs,
            roots: run_roots.clone(),
            result: Mutex::new(None),
        };
        let (plan, plan_diags) = terrace_engine::plan(&ctx, &prior, &plan_options, &hooks);
        let (mut plan_diags, unknown_checks) = filter_plan_diags(plan_diags, run.command);
        point_at_test_values(&mut plan_diags, &checkables, &prepared.variable_ranges);
        let mut found = FoundFailures::default();
        found.absorb(&mut plan_diags, &checkables, &expected);
        let mut report = RunReport {
            name: run.name.clone(),
            status: Status::Pass,
            diagnostics: prepared.warnings.clone(),
            elapsed: Duration::ZERO,
            started: None,
            assertions: run.asserts.len(),
            config: Some(prepared.config.clone()),
            plan: None,
            state: None,
            schemas: self
                .options
                .verbose
                .then(|| prepared.factory.clone() as Arc<dyn ProviderFactory>),
        };
        if run.command == Command::Plan {
            plan_diags.extend(found.missing(&expected));
            let failed = has_errors(&plan_diags);
            report.diagnostics.extend(plan_diags);
            if failed {
                report.status = Status::Error;
                return report;
            }
            let (assert_diags, run_outputs) = hooks.take();
            report.status = assertion_status(&assert_diags);
            report.diagnostics.extend(assert_diags);
            outputs.insert(run.name.clone(), object_of(&run_outputs));
            if self.options.verbose {
                report.plan = Some(plan);
            }
            return report;
        }
        if has_errors(&plan_diags) || found.any_expected() {
            plan_diags.extend(unknown_checks);
            if found.any_expected() && !has_errors(&plan_diags) {
                // Everything that failed was expected, but the plan cannot
                // be applied: the run cannot do what it was asked.
                for name in found.expected_names() {
                    let mut d = Diagnostic::warning(
                        "Expected failure while planning",
                        format!("A custom condition within {name} failed during the planning stage and prevented the requested apply operation. While this was an expected failure, the apply operation could not be executed and so the overall test case will be marked as a failure and the original diagnostic included in the test report."),
                    );
                    // Points at the expectation, except for a variable's
                    // (whose failure is reported against the variable).
                    if !name.starts_with("var.") {
                        d.subject = expected
                            .iter()
                            .find(|e| e.address == name)
                            .map(|e| e.range.clone());
                    }
                    report.diagnostics.push(d);
                }
                report.diagnostics.extend(found.expected_diags.clone());
            }
            report.diagnostics.extend(plan_diags);
            report.status = Status::Error;
            return report;
        }
        report.diagnostics.extend(plan_diags);
        let apply_hooks = AssertionHooks {
            evaluate: true,
            plan_outputs: false,
            run,
            file_runs: &self.file.runs,
            roots: run_roots,
            result: Mutex::new(None),
        };
        let (new_state, mut apply_diags) = terrace_engine::apply(&ctx, &plan, &apply_hooks);
        apply_diags = filter_apply_diags(apply_diags);
        found.absorb(&mut apply_diags, &checkables, &expected);
        apply_diags.extend(found.missing(&expected));
        states[index].state = new_state.clone();
        states[index].last = Some(prepared.clone());
        let failed = has_errors(&apply_diags);
        report.diagnostics.extend(apply_diags);
        if failed {
            report.status = Status::Error;
            return report;
        }
        let (assert_diags, run_outputs) = apply_hooks.take();
        report.status = assertion_status(&assert_diags);
        report.diagnostics.extend(assert_diags);
        outputs.insert(run.name.clone(), object_of(&run_outputs));
        if self.options.verbose {
            report.state = Some(new_state);
        }
        report
    }

    /// Destroys one state with the configuration and variables of the run
    /// that last changed it.
    /// Destroys one state with the configuration and variables of the run
    /// that last changed it; what failed, and what is left, if anything.
    fn destroy(&self, tracked: &TrackedState, last: &PreparedRun) -> Option<CleanupFailure> {
        if tracked.state.resources.is_empty() {
            return None;
        }
        let ctx = self.context(last);
        let opts = PlanOptions {
            mode: PlanMode::Destroy,
            ..PlanOptions::default()
        };
        let (plan, mut diags) = terrace_engine::plan(&ctx, &tracked.state, &opts, &NoAsserts);
        let left = if has_errors(&diags) {
            tracked.state.clone()
        } else {
            let (state, d) = terrace_engine::apply(&ctx, &plan, &NoAsserts);
            diags.extend(d);
            state
        };
        diags.retain(|d| d.severity == Severity::Error);
        if diags.is_empty() {
            return None;
        }
        let left = left
            .all_instances()
            .filter(|(addr, _, _)| addr.resource.resource.mode == ResourceMode::Managed)
            .flat_map(|(addr, _, instance)| {
                let addr = addr.to_string();
                let current = instance.current.as_ref().map(|_| (addr.clone(), None));
                let deposed = instance
                    .deposed
                    .keys()
                    .map(move |key| (addr.clone(), Some(key.to_string())));
                current.into_iter().chain(deposed)
            })
            .collect();
        Some(CleanupFailure {
            run_name: last.run_name.clone(),
            diagnostics: diags,
            left,
        })
    }
}

/// The instances of a test file's provider configuration: its `for_each`
/// evaluated statically from the run's variables (the file's and the
/// run's, declared by the module or not); no references to resources or
/// to other runs.
fn test_provider_instances(
    for_each: &Expression,
    vars: &BTreeMap<String, Value>,
) -> Result<BTreeMap<String, terrace_config::model::RepetitionData>, Diagnostics> {
    let scope = MapScope::new().with("var", object_of(vars));
    let (value, diags) = for_each.evaluate(&scope);
    if has_errors(&diags) {
        return Err(diags);
    }
    let invalid = |detail: &str| {
        Err(vec![
            Diagnostic::error("Invalid for_each argument", detail).with_subject(for_each.range())
        ])
    };
    if value.is_null() {
        return invalid("The given \"for_each\" argument value is unsuitable: the given \"for_each\" argument value is null.");
    }
    if !value.is_wholly_known() {
        return invalid("The \"for_each\" value of a test's provider configuration must be known from the test's variables alone.");
    }
    let marks = value.deep_marks();
    if marks.is_sensitive() {
        return invalid("Sensitive values, or values derived from sensitive values, cannot be used as for_each arguments. If used, the sensitive value could be exposed as a resource instance key.");
    }
    let (plain, _) = value.unmark_deep();
    let mut out = BTreeMap::new();
    match plain.ty() {
        Type::Map(_) | Type::Object(_) => {
            for (k, v) in plain
                .as_attributes()
                .map(terrace_value::Attrs::to_map)
                .unwrap_or_default()
            {
                out.insert(
                    k.clone(),
                    terrace_config::model::RepetitionData {
                        each_key: Value::string(&k),
                        each_value: v,
                    },
                );
            }
        }
        Type::Set(e) if matches!(**e, Type::String | Type::Dynamic) => {
            for v in plain.as_elements().unwrap_or_default() {
                if let Some(k) = v.as_str() {
                    out.insert(
                        k.to_string(),
                        terrace_config::model::RepetitionData {
                            each_key: v.clone(),
                            each_value: v.clone(),
                        },
                    );
                }
            }
        }
        other => {
            return invalid(&format!("The given \"for_each\" argument value is unsuitable: the \"for_each\" argument must be a map, or set of strings, and you have provided a value of type {}.", other.friendly_name()));
        }
    }
    Ok(out)
}

/// An override's values: constant by the time a run starts (the file was
/// refused at load otherwise); nothing given is an empty object.
fn constant_object(expr: Option<&Expression>) -> Value {
    match expr {
        Some(e) => {
            let (value, _) = e.constant_value();
            if value.is_null() {
                Value::empty_object()
            } else {
                value
            }
        }
        None => Value::empty_object(),
    }
}

/// The call names of a module override's target (`module.a.module.b`),
/// or why it is not one terrace can override.
fn override_module_path(target: &str) -> Result<Vec<String>, &'static str> {
    let instance = ModuleInstance::parse_str(target).map_err(|_| "not a module address")?;
    let mut path = Vec::new();
    for step in instance.steps() {
        if step.key != InstanceKey::None {
            return Err("instance key");
        }
        path.push(step.name.to_string());
    }
    Ok(path)
}

/// Whether the resource, data source or module call an override names is
/// declared in `config` (instance keys are not checked: the instances are
/// known only once the run plans).
fn override_target_exists(config: &Config, o: &crate::file::Override) -> bool {
    if o.kind == OverrideKind::Module {
        let Ok(instance) = ModuleInstance::parse_str(&o.target) else {
            return false;
        };
        let path: Vec<String> = instance
            .steps()
            .iter()
            .map(|s| s.name.to_string())
            .collect();
        return !path.is_empty() && config.descendant(&path).is_some();
    }
    let Ok(addr) = AbsResourceInstance::parse_str(&o.target) else {
        return false;
    };
    let path: Vec<String> = addr
        .module
        .steps()
        .iter()
        .map(|s| s.name.to_string())
        .collect();
    let Some(module) = config.descendant(&path) else {
        return false;
    };
    let key = addr.resource.resource.to_string();
    match o.kind {
        OverrideKind::Data => module.module.data_resources.contains_key(&key),
        _ => module.module.managed_resources.contains_key(&key),
    }
}

/// "Invalid override target" for each of `overrides` whose target `config`
/// does not declare: module calls first, then resources, then data
/// sources, as terraform reports them.
fn missing_override_targets(config: &Config, overrides: &[crate::file::Override]) -> Diagnostics {
    [
        OverrideKind::Module,
        OverrideKind::Resource,
        OverrideKind::Data,
    ]
    .iter()
    .flat_map(|kind| overrides.iter().filter(move |o| o.kind == *kind))
    .filter(|o| !override_target_exists(config, o))
    .map(missing_override_target)
    .collect()
}

fn missing_override_target(o: &crate::file::Override) -> Diagnostic {
    Diagnostic::warning(
        "Invalid override target",
        format!(
            "The override target {} does not exist within the configuration under test. This could indicate a typo in the target address or an unnecessary override.",
            o.target
        ),
    )
    .with_subject(o.target_attribute_range.clone())
}

/// Replaces the module a module override names with one that has its
/// input variables (unvalidated) and outputs, nothing else: its
/// resources, data sources, checks and calls are never planned, and each
/// output is the override's value for it, or null. Objects an earlier run
/// created inside it are then destroyed as no longer configured.
fn override_module_outputs(config: &mut Config, o: &crate::file::Override) -> Diagnostics {
    let path = match override_module_path(&o.target) {
        Ok(p) => p,
        Err(_) => {
            return vec![Diagnostic::error(
                "Unsupported override_module target",
                format!(
                    "terrace overrides every instance of a module call: {} names a single instance. Use the call's address without instance keys.",
                    o.target
                ),
            )
            .with_subject(o.target_range.clone())];
        }
    };
    let Some(child) = descendant_mut(config, &path) else {
        return Vec::new();
    };
    let given: Vec<(String, Expression)> = o
        .values
        .as_ref()
        .and_then(Expression::as_map)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(k, v)| {
            let (key, _) = k.constant_value();
            key.as_str().map(|k| (k.to_string(), v))
        })
        .collect();
    let module = &mut child.module;
    module.locals.clear();
    module.managed_resources.clear();
    module.data_resources.clear();
    module.ephemeral_resources.clear();
    module.module_calls.clear();
    module.checks.clear();
    module.moved.clear();
    module.imports.clear();
    module.removed.clear();
    module.provider_configs.clear();
    child.children.clear();
    for variable in module.variables.values_mut() {
        variable.validations.clear();
    }
    let null_at = o.values.as_ref().map_or_else(
        || null_expression(&o.target_range, o),
        |v| null_expression(&v.range(), o),
    );
    for (name, output) in module.outputs.iter_mut() {
        output.preconditions.clear();
        output.depends_on.clear();
        output.expr = Some(
            given
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| null_at.clone()),
        );
    }
    Vec::new()
}

/// A `null` literal at `range` of the override's values, or nowhere in
/// particular when it gives none.
fn null_expression(range: &SourceRange, o: &crate::file::Override) -> Expression {
    let (file, span) = match &o.values {
        Some(v) => (
            v.file().clone(),
            terrace_syntax::Span::new(range.start.byte as usize, range.end.byte as usize),
        ),
        None => (
            terrace_syntax::ast::SourceFile::new(range.filename.clone(), String::new()),
            terrace_syntax::Span::new(0, 0),
        ),
    };
    Expression::native(
        &file,
        terrace_syntax::ast::Expr {
            kind: terrace_syntax::ast::ExprKind::Null,
            span,
        },
    )
}

fn descendant_mut<'c>(config: &'c mut Config, path: &[String]) -> Option<&'c mut Config> {
    let mut c = config;
    for name in path {
        c = c.children.get_mut(name)?;
    }
    Some(c)
}

/// A failed variable validation points at where the test file sets the
/// variable, when it does.
fn point_at_test_values(
    diags: &mut Diagnostics,
    checkables: &Checkables,
    ranges: &BTreeMap<String, SourceRange>,
) {
    for d in diags.iter_mut() {
        if d.summary != "Invalid value for variable" {
            continue;
        }
        let Some(owner) = checkables.owner(d) else {
            continue;
        };
        if let Some(range) = owner.strip_prefix("var.").and_then(|n| ranges.get(n)) {
            d.subject = Some(range.clone());
        }
    }
}

struct NoAsserts;
impl Hooks for NoAsserts {}

/// `v` with every unknown part replaced by a null of its type.
fn unknowns_as_null(v: &Value) -> Value {
    if !v.is_known() {
        return Value::null(v.ty().clone()).mark(v.marks());
    }
    if v.is_null() || v.is_wholly_known() {
        return v.clone();
    }
    let ty = v.ty().clone();
    let map_entries = || -> BTreeMap<String, Value> {
        v.as_attributes()
            .map(|a| {
                a.iter()
                    .map(|(k, e)| (k.clone(), unknowns_as_null(e)))
                    .collect()
            })
            .unwrap_or_default()
    };
    let elements = || -> Vec<Value> {
        v.as_elements()
            .map(|e| e.iter().map(unknowns_as_null).collect())
            .unwrap_or_default()
    };
    let out = match &ty {
        Type::Object(_) => Value::object(map_entries()),
        Type::Map(e) => Value::map((**e).clone(), map_entries()),
        Type::List(e) => Value::list((**e).clone(), elements()),
        Type::Set(e) => Value::set((**e).clone(), elements()),
        Type::Tuple(_) => Value::tuple(elements()),
        _ => v.clone(),
    };
    out.mark(v.marks())
}

fn object_of(values: &BTreeMap<String, Value>) -> Value {
    Value::object(values.clone())
}

/// Evaluates a test file's own expression (a variable's value, an
/// override's values): `var.` and `run.` only, functions allowed.
fn evaluate_in_test_scope(
    expr: &Expression,
    vars: &BTreeMap<String, Value>,
    outputs: &BTreeMap<String, Value>,
    dir: &Path,
) -> (Value, Diagnostics) {
    let mut diags = Diagnostics::new();
    for (name, subject) in named_under(expr, "run") {
        if !outputs.contains_key(&name) {
            diags.push(
                Diagnostic::error(
                    "Reference to unknown run block",
                    format!("The run block {name:?} does not exist within this test file. You can only reference run blocks that are in the same test file and will execute before the current run block."),
                )
                .with_subject(subject),
            );
        }
    }
    if !diags.is_empty() {
        return (Value::dynamic(), diags);
    }
    let scope = MapScope::new()
        .with("var", object_of(vars))
        .with("run", object_of(outputs))
        .with_base_dir(dir);
    expr.evaluate(&scope)
}

/// A run whose only errors are failed assertions failed; any other error
/// is an error.
fn assertion_status(diags: &Diagnostics) -> Status {
    let mut status = Status::Pass;
    for d in diags.iter().filter(|d| d.is_error()) {
        status = status.merge(if d.summary == ASSERTION_FAILED {
            Status::Fail
        } else {
            Status::Error
        });
    }
    status
}

const CHECK_UNKNOWN: &str = "Check block assertion known after apply";

/// A plan's diagnostics as a run reports them. In a `command = plan` run
/// a check whose result is not known yet fails the run, as an error. In
/// an apply run the apply reports the checks: their plan diagnostics are
/// set aside (returned second), shown only if the apply does not happen.
fn filter_plan_diags(diags: Diagnostics, command: Command) -> (Diagnostics, Diagnostics) {
    let mut kept = Diagnostics::new();
    let mut set_aside = Diagnostics::new();
    for mut d in diags {
        match command {
            Command::Plan if d.summary == CHECK_UNKNOWN => {
                d.severity = Severity::Error;
                kept.push(d);
            }
            Command::Apply if d.summary == CHECK_UNKNOWN => set_aside.push(d),
            Command::Apply if d.summary == CHECK_FAILED => {}
            _ => kept.push(d),
        }
    }
    (kept, set_aside)
}

fn filter_apply_diags(diags: Diagnostics) -> Diagnostics {
    diags
}

const CHECK_FAILED: &str = "Check block assertion failed";

/// Where each checkable object's conditions are, to tell which object a
/// failed condition belongs to.
struct Checkables {
    /// Condition range (file, start byte) → object address.
    by_condition: HashMap<(String, u32), String>,
    /// Variable validation rule location as diagnostics name it → variable.
    by_validation: Vec<(String, String)>,
}

impl Checkables {
    fn of(config: &Config) -> Checkables {
        let mut by_condition = HashMap::new();
        let mut by_validation = Vec::new();
        let module = &config.module;
        let mut add = |rules: &[terrace_config::model::CheckRule], addr: String| {
            for rule in rules {
                if let Some(c) = &rule.condition {
                    let r = c.range();
                    by_condition.insert((r.filename.clone(), r.start.byte), addr.clone());
                }
            }
        };
        for (name, o) in &module.outputs {
            add(&o.preconditions, format!("output.{name}"));
        }
        for r in module
            .managed_resources
            .values()
            .chain(module.data_resources.values())
        {
            add(&r.preconditions, r.address());
            add(&r.postconditions, r.address());
        }
        for (name, c) in &module.checks {
            add(&c.asserts, format!("check.{name}"));
        }
        for (name, v) in &module.variables {
            for rule in &v.validations {
                by_validation.push((short_range(&rule.decl_range), format!("var.{name}")));
            }
        }
        Checkables {
            by_condition,
            by_validation,
        }
    }

    /// The checkable object a diagnostic reports a failed condition of.
    fn owner(&self, d: &Diagnostic) -> Option<&str> {
        match d.summary.as_str() {
            "Invalid value for variable" => self
                .by_validation
                .iter()
                .find(|(at, _)| d.detail.contains(&format!("validation rule at {at}.")))
                .map(|(_, v)| v.as_str()),
            "Resource precondition failed"
            | "Resource postcondition failed"
            | "Module output value precondition failed"
            | CHECK_FAILED => {
                let r = d.subject.as_ref()?;
                self.by_condition
                    .get(&(r.filename.clone(), r.start.byte))
                    .map(String::as_str)
            }
            _ => None,
        }
    }
}

fn short_range(r: &SourceRange) -> String {
    if r.start.line == r.end.line {
        format!(
            "{}:{},{}-{}",
            r.filename, r.start.line, r.start.column, r.end.column
        )
    } else {
        format!(
            "{}:{},{}-{},{}",
            r.filename, r.start.line, r.start.column, r.end.line, r.end.column
        )
    }
}

/// The checkable objects that failed so far in a run.
#[derive(Default)]
struct FoundFailures {
    failed: Vec<String>,
    /// The diagnostics of failures that were expected, taken out of the
    /// run's diagnostics.
    expected_diags: Diagnostics,
}

impl FoundFailures {
    /// Takes expected failures out of `diags`; unexpected failed check
    /// blocks become errors, as a test treats them.
    fn absorb(
        &mut self,
        diags: &mut Diagnostics,
        checkables: &Checkables,
        expected: &[&crate::file::ExpectedFailure],
    ) {
        let mut kept = Diagnostics::new();
        for mut d in std::mem::take(diags) {
            match checkables.owner(&d).map(str::to_string) {
                Some(owner) => {
                    if !self.failed.contains(&owner) {
                        self.failed.push(owner.clone());
                    }
                    if expected.iter().any(|e| e.address == owner) {
                        self.expected_diags.push(d);
                        continue;
                    }
                    if d.summary == CHECK_FAILED {
                        d.severity = Severity::Error;
                    }
                    kept.push(d);
                }
                None => kept.push(d),
            }
        }
        *diags = kept;
    }

    fn any_expected(&self) -> bool {
        !self.expected_diags.is_empty()
    }

    fn expected_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        for name in &self.failed {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        names
    }

    /// "Missing expected failure" for each expected object that did not
    /// fail.
    fn missing(&self, expected: &[&crate::file::ExpectedFailure]) -> Diagnostics {
        expected
            .iter()
            .filter(|e| !self.failed.contains(&e.address))
            .map(|e| {
                Diagnostic::error(
                    "Missing expected failure",
                    format!(
                        "The checkable object, {}, was expected to report an error but did not.",
                        e.address
                    ),
                )
                .with_subject(e.range.clone())
            })
            .collect()
    }
}

/// Evaluates a run's assertions when its walk finishes.
struct AssertionHooks<'r> {
    evaluate: bool,
    /// The walk is a plan whose outputs the run reports.
    plan_outputs: bool,
    run: &'r RunSpec,
    /// Every run of the file, to tell a reference to a run not evaluated
    /// yet from one to a run that does not exist.
    file_runs: &'r [RunSpec],
    roots: BTreeMap<String, Value>,
    result: Mutex<Option<(Diagnostics, BTreeMap<String, Value>)>>,
}

impl AssertionHooks<'_> {
    fn take(&self) -> (Diagnostics, BTreeMap<String, Value>) {
        self.result
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .unwrap_or_default()
    }
}

impl Hooks for AssertionHooks<'_> {
    fn walk_finished(&self, evaluator: &dyn RootEvaluator) {
        let mut outputs = evaluator.outputs();
        let mut roots = self.roots.clone();
        if self.plan_outputs {
            // A plan's output values are what a state can hold: an output
            // not known at all stays unknown, unknown parts of one that is
            // partly known are null.
            outputs = outputs
                .into_iter()
                .map(|(k, v)| {
                    let v = if v.is_known() {
                        unknowns_as_null(&v)
                    } else {
                        Value::dynamic().mark(v.marks())
                    };
                    (k, v)
                })
                .collect();
            roots.insert("output".to_string(), object_of(&outputs));
        }
        let mut diags = Diagnostics::new();
        if self.evaluate {
            for assertion in &self.run.asserts {
                diags.extend(check_assertion(
                    evaluator,
                    assertion,
                    &roots,
                    self.file_runs,
                ));
            }
        }
        *self.result.lock().unwrap_or_else(PoisonError::into_inner) = Some((diags, outputs));
    }
}

const UNKNOWN_CONDITION: &str = "Condition expression could not be evaluated at this time. This means you have executed a `run` block with `command = plan` and one of the values your condition depended on is not known until after the plan has been applied. Either remove this value from your condition, or execute an `apply` command from this `run` block. Alternatively, if there is an override for this value, you can make it available during the plan phase by setting `override_during = plan` in the `override_` block.";

/// What a file-level variable may not refer to: another run's results, or
/// a variable the command was not given (other file-level variables).
fn file_variable_references(expr: &Expression, globals: &BTreeMap<String, Value>) -> Diagnostics {
    let mut diags = Diagnostics::new();
    for t in expr.variables() {
        let Some(TraversalStep::Attr { name, span }) = t.steps.first() else {
            continue;
        };
        let subject = expr.file().range(t.root_span.to(*span));
        match t.root.as_str() {
            "run" => diags.push(
                Diagnostic::error(
                    "Invalid reference",
                    "You can not reference run blocks from within the file variables block.",
                )
                .with_subject(subject),
            ),
            "var" if !globals.contains_key(name) => diags.push(
                Diagnostic::error(
                    "Reference to unavailable variable",
                    format!("The input variable {name:?} is not available to the current context. You can only reference global variables."),
                )
                .with_subject(subject),
            ),
            _ => {}
        }
    }
    diags
}

/// "Reference to undeclared input variable" for each `var.NAME` in `expr`
/// that neither the module nor the test gives a value: a test's `var.` is
/// every value it has, declared or not.
fn undeclared_variables(expr: &Expression, roots: &BTreeMap<String, Value>) -> Diagnostics {
    let known = roots.get("var").and_then(Value::as_attributes);
    let mut diags = Diagnostics::new();
    for (name, subject) in named_under(expr, "var") {
        if known.is_some_and(|k| k.contains_key(&name)) {
            continue;
        }
        diags.push(
            Diagnostic::error(
                "Reference to undeclared input variable",
                format!("An input variable with the name {name:?} has not been declared. This variable can be declared with a variable {name:?} {{}} block."),
            )
            .with_subject(subject),
        );
    }
    diags
}

/// For each `run.NAME` in `expr` whose run has no results: "Reference to
/// unevaluated run block" when the file declares it (it runs later, or did
/// not finish), else "Reference to undeclared run block".
fn unavailable_runs(
    expr: &Expression,
    roots: &BTreeMap<String, Value>,
    file_runs: &[RunSpec],
) -> Diagnostics {
    let evaluated = roots.get("run").and_then(Value::as_attributes);
    let mut diags = Diagnostics::new();
    for (name, subject) in named_under(expr, "run") {
        if evaluated.is_some_and(|runs| runs.contains_key(&name)) {
            continue;
        }
        let d = if file_runs.iter().any(|r| r.name == name) {
            Diagnostic::error(
                "Reference to unevaluated run block",
                format!("The run {name:?} block has not yet been evaluated, so its results are not available here."),
            )
        } else {
            Diagnostic::error(
                "Reference to undeclared run block",
                format!("There is no run {name:?} declared in this test suite."),
            )
        };
        diags.push(d.with_subject(subject));
    }
    diags
}

/// The names `expr` refers to under `root` (`run.NAME...`, `var.NAME`),
/// each with the range of `root.NAME`.
fn named_under(expr: &Expression, root: &str) -> Vec<(String, SourceRange)> {
    expr.variables()
        .into_iter()
        .filter(|t| t.root == root)
        .filter_map(|t| match t.steps.first() {
            Some(TraversalStep::Attr { name, span }) => {
                Some((name.clone(), expr.file().range(t.root_span.to(*span))))
            }
            _ => None,
        })
        .collect()
}

fn check_assertion(
    evaluator: &dyn RootEvaluator,
    assertion: &crate::file::Assertion,
    roots: &BTreeMap<String, Value>,
    file_runs: &[RunSpec],
) -> Diagnostics {
    let unavailable = unavailable_runs(&assertion.condition, roots, file_runs);
    if !unavailable.is_empty() {
        return unavailable;
    }
    let undeclared = undeclared_variables(&assertion.condition, roots);
    if !undeclared.is_empty() {
        return undeclared;
    }
    let (value, mut diags, described) = evaluator.evaluate(&assertion.condition, roots);
    if has_errors(&diags) {
        return diags;
    }
    let subject = assertion.condition.range();
    if !value.is_known() {
        let mut d =
            Diagnostic::error("Unknown condition value", UNKNOWN_CONDITION).with_subject(subject);
        d.expression_values = described;
        diags.push(d);
        return diags;
    }
    let (plain, _) = value.unmark_deep();
    if plain.is_null() {
        let mut d = Diagnostic::error(
            "Invalid condition run",
            "Condition expression must return either true or false, not null.",
        )
        .with_subject(subject);
        d.expression_values = described;
        diags.push(d);
        return diags;
    }
    let holds = match terrace_value::convert::convert(&plain, &Type::Bool) {
        Ok(v) => v.as_bool(),
        Err(e) => {
            let mut d = Diagnostic::error(
                "Invalid condition run",
                format!("Invalid condition run value: {e}."),
            )
            .with_subject(subject);
            d.expression_values = described;
            diags.push(d);
            return diags;
        }
    };
    // The message is evaluated whether or not the condition holds, so a
    // broken message is reported even by an assertion that passes.
    let message = match &assertion.error_message {
        Some(expr) => {
            let undeclared = undeclared_variables(expr, roots);
            if !undeclared.is_empty() {
                diags.extend(undeclared);
                return diags;
            }
            let (m, d, _) = evaluator.evaluate(expr, roots);
            if has_errors(&d) {
                diags.extend(d);
                return diags;
            }
            let (m, _) = m.unmark_deep();
            match terrace_value::convert::convert(&m, &Type::String) {
                Ok(s) => s.as_str().unwrap_or_default().to_string(),
                Err(_) => String::new(),
            }
        }
        None => String::new(),
    };
    if holds == Some(true) {
        return diags;
    }
    let mut d = Diagnostic::error(ASSERTION_FAILED, message).with_subject(subject);
    d.expression_values = described;
    diags.push(d);
    diags
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::file::Override;

    /// A module calling `./child` once as `single` and twice as `counted`,
    /// written to a fresh directory.
    fn module_with_calls(name: &str) -> Config {
        let dir =
            std::env::temp_dir().join(format!("terrace-testing-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let child = dir.join("child");
        let written = std::fs::create_dir_all(&child)
            .and_then(|()| {
                std::fs::write(
                    dir.join("main.tf"),
                    "module \"single\" {\n  source = \"./child\"\n}\n\nmodule \"counted\" {\n  source = \"./child\"\n  count  = 2\n}\n",
                )
            })
            .and_then(|()| {
                std::fs::write(
                    child.join("main.tf"),
                    "variable \"name\" {\n  type    = string\n  default = \"x\"\n\n  validation {\n    condition     = var.name != \"\"\n    error_message = \"empty\"\n  }\n}\n\nresource \"terraform_data\" \"inner\" {\n  input = var.name\n}\n\noutput \"greeting\" {\n  value = terraform_data.inner.output\n}\n\noutput \"id\" {\n  value = terraform_data.inner.id\n}\n",
                )
            });
        assert!(written.is_ok(), "{written:?}");
        let (config, diags) = load_config(&dir, &LoadOptions::default());
        assert!(!has_errors(&diags), "{diags:?}");
        let _ = std::fs::remove_dir_all(&dir);
        config
    }

    fn module_override(target: &str, outputs: Option<&str>) -> Override {
        let values = outputs.map(|text| {
            let source = terrace_syntax::ast::SourceFile::new("t.tftest.hcl", text.to_string());
            let (expr, diags) = terrace_syntax::parse_expression(&source);
            assert!(diags.is_empty(), "{diags:?}");
            Expression::native(&source, expr)
        });
        Override {
            kind: OverrideKind::Module,
            target: target.to_string(),
            target_range: SourceRange::default(),
            target_attribute_range: SourceRange::default(),
            values,
            during_plan: false,
            decl_range: SourceRange::default(),
        }
    }

    #[test]
    fn an_overridden_call_keeps_its_variables_and_outputs_and_nothing_else() {
        let mut config = module_with_calls("override-call");
        let o = module_override("module.single", Some("{ greeting = \"hi\" }"));
        assert!(override_target_exists(&config, &o));
        let diags = override_module_outputs(&mut config, &o);
        assert!(diags.is_empty(), "{diags:?}");
        let child = &config.children["single"].module;
        assert!(child.managed_resources.is_empty());
        assert!(child.variables["name"].validations.is_empty());
        let scope = MapScope::constant();
        let value = |name: &str| {
            child.outputs[name]
                .expr
                .as_ref()
                .map(|e| e.evaluate(&scope).0)
        };
        assert_eq!(value("greeting"), Some(Value::string("hi")));
        assert_eq!(value("id").map(|v| v.is_null()), Some(true));
        // The other call of the same module is untouched.
        assert_eq!(config.children["counted"].module.managed_resources.len(), 1);
    }

    #[test]
    fn a_single_instance_of_a_call_is_refused_with_a_diagnostic() {
        let mut config = module_with_calls("override-instance");
        let o = module_override("module.counted[0]", None);
        assert!(override_target_exists(&config, &o));
        let diags = override_module_outputs(&mut config, &o);
        assert_eq!(
            diags.iter().map(|d| d.summary.as_str()).collect::<Vec<_>>(),
            ["Unsupported override_module target"]
        );
        assert_eq!(config.children["counted"].module.managed_resources.len(), 1);
    }

    #[test]
    fn override_targets_the_module_does_not_declare_are_reported() {
        let config = module_with_calls("override-missing");
        let found = missing_override_targets(
            &config,
            &[
                module_override("module.nope", None),
                module_override("module.single", None),
                module_override("module.single.module.deeper", None),
            ],
        );
        let details: Vec<&str> = found.iter().map(|d| d.detail.as_str()).collect();
        assert_eq!(details.len(), 2, "{details:?}");
        assert!(details[0].starts_with("The override target module.nope does not exist"));
        assert!(details[1].starts_with("The override target module.single.module.deeper"));
    }
}
