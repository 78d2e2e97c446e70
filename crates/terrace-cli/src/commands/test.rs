//! `terrace test`: loads the module and its test files (checking the
//! provider rules for test files on the way), finds the providers the
//! module and the tests need, runs the suite through terrace-testing and
//! prints terraform 1.11's human output (progress on stdout, each run's
//! warnings on stdout and errors on stderr right after its status line,
//! then the summary), or `-json`'s machine-readable lines, and optionally
//! writes the JUnit XML report.

use crate::commands::providers::{data_dir, requirements_by_module};
use crate::provider_factory::CliProviderFactory;
use serde_json::{json, Map, Value as Json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use terrace_config::input_variables::{collect_input_values, VariableArgument};
use terrace_config::loader::LoadOptions;
use terrace_config::static_eval::MissingRootVariable;
use terrace_config::testfile::DEFAULT_TEST_DIRECTORY;
use terrace_config::validation::load_and_validate;
use terrace_getproviders::cliconfig::{self, CliEnv};
use terrace_getproviders::lockfile::{Locks, LOCK_FILE_NAME};
use terrace_gocompat::wordwrap::wrap_string;
use terrace_plans::render::{render_plan, render_state, RenderOptions};
use terrace_syntax::ast::SourceFile;
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::render::{render_diagnostic, RenderStyle, SourceMap, DEFAULT_WIDTH};
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_testing::file::TestFileSpec;
use terrace_testing::runner::{CleanupFailure, FileReport};
use terrace_testing::{Reporter, RunReport, Status, SuiteOptions};

const HELP: &str = "Usage: terrace [global options] test [options]

  Executes automated integration tests against the current terrace
  configuration.

  terrace will search for .tftest.hcl files within the current configuration
  and testing directories. terrace will then execute the testing run blocks
  within any testing files in order, and verify conditional checks and
  assertions against the created infrastructure.

  This command creates real infrastructure and will attempt to clean up the
  testing infrastructure on completion. Monitor the output carefully to ensure
  this cleanup process is successful.

Options:

  -filter=testfile      If specified, terrace will only execute the test files
                        specified by this flag. You can use this option multiple
                        times to execute more than one test file.

  -json                 If specified, machine readable output will be printed in
                        JSON format

  -junit-xml=path       Saves a test report in JUnit XML format to the specified
                        file.

  -no-color             If specified, output won't contain any color.

  -test-directory=path  Set the terrace test directory, defaults to \"tests\".

  -var 'foo=bar'        Set a value for one of the input variables in the root
                        module of the configuration. Use this option more than
                        once to set more than one variable.

  -var-file=filename    Load variable values from the given file, in addition
                        to the default files terraform.tfvars and *.auto.tfvars.
                        Use this option more than once to include more than one
                        file of variables.

  -verbose              Print the plan or state for each test run block as it
                        executes.
";

struct TestArgs {
    filter: Vec<String>,
    json: bool,
    junit: Option<PathBuf>,
    color: bool,
    /// terraform 1.11's `test` has no `-parallelism`: always the walk's
    /// default.
    parallelism: usize,
    test_directory: String,
    variables: Vec<VariableArgument>,
    verbose: bool,
    /// Flags that parsed but whose values are wrong: reported through the
    /// chosen view (JSON too), unlike a flag that does not parse.
    problems: Diagnostics,
}

fn parse_args(argv: &[String]) -> Result<TestArgs, Box<Diagnostic>> {
    let mut args = TestArgs {
        filter: Vec::new(),
        json: false,
        junit: None,
        color: std::env::var_os("NO_COLOR").is_none(),
        parallelism: 10,
        test_directory: DEFAULT_TEST_DIRECTORY.to_string(),
        variables: Vec::new(),
        verbose: false,
        problems: Diagnostics::new(),
    };
    for arg in crate::args::parse(argv) {
        let bad = |text: String| {
            Box::new(Diagnostic::error(
                "Failed to parse command-line flags",
                text,
            ))
        };
        match arg {
            crate::args::Arg::Flag { name, value } => match (name.as_str(), value) {
                ("filter", Some(f)) => args.filter.push(f),
                ("json", None) => args.json = true,
                ("junit-xml", Some(p)) => args.junit = Some(PathBuf::from(p)),
                ("no-color", None) => args.color = false,
                // Accepted as terraform accepts it on every command.
                ("compact-warnings", _) => {}
                ("verbose", None) => args.verbose = true,
                ("test-directory", Some(d)) => args.test_directory = d,
                ("var", Some(assignment)) => match assignment.split_once('=') {
                    Some((name, text)) => args.variables.push(VariableArgument::Var {
                        name: name.to_string(),
                        text: text.to_string(),
                    }),
                    None => args.problems.push(Diagnostic::error(
                        "Invalid -var option",
                        format!("The given -var option {assignment:?} is not correctly specified. Must be a variable name and value separated by an equals sign, like -var=\"key=value\"."),
                    )),
                },
                ("var-file", Some(path)) => args.variables.push(VariableArgument::File(path)),
                (
                    name @ ("filter" | "junit-xml" | "test-directory" | "var" | "var-file"),
                    None,
                ) => return Err(bad(format!("flag needs an argument: -{name}"))),
                (other, _) => return Err(bad(format!("flag provided but not defined: -{other}"))),
            },
            // terraform test ignores positional arguments.
            crate::args::Arg::Positional(_) => {}
        }
    }
    if args.json {
        args.color = false;
    }
    Ok(args)
}

pub fn run(argv: &[String]) -> i32 {
    if argv
        .iter()
        .any(|a| matches!(a.as_str(), "-help" | "--help" | "-h" | "--h"))
    {
        out!("{HELP}");
        return 0;
    }
    let args = match parse_args(argv) {
        Ok(a) => a,
        Err(d) => {
            let color =
                std::env::var_os("NO_COLOR").is_none() && !argv.iter().any(|a| a == "-no-color");
            let style = if color {
                RenderStyle::Color
            } else {
                RenderStyle::Plain
            };
            // The hint follows the diagnostic, outside its box.
            eprint!(
                "{}\nFor more help on using this command, run:\n  terrace test -help\n",
                render_diagnostic(&d, &SourceMap::new(), style, DEFAULT_WIDTH)
            );
            return 1;
        }
    };
    if !args.problems.is_empty() {
        let view = View::new(&args, Vec::new());
        view.version();
        view.diagnostics(&args.problems);
        return 1;
    }
    let dir = PathBuf::from(".");
    let (inputs, input_diags) = collect_input_values(&dir, &args.variables, std::env::vars());
    let inputs = Arc::new(inputs);
    // Each run block sets variables of its own, and loads the module
    // again with them: what depends on them now is decided then.
    let load_options = LoadOptions {
        input_values: inputs.clone(),
        missing_root_variable: MissingRootVariable::DecidedLater,
        ..LoadOptions::default()
    };
    let validated = load_and_validate(&dir, &load_options, Some(&args.test_directory));
    let mut source_files = validated.config.files();
    source_files.extend(inputs.files().iter().cloned());
    let mut diags: Diagnostics = input_diags;
    // A test file's provider block may not have a version constraint at
    // all (terrace-testing says so); the module language's deprecation
    // warning about one is not for it.
    diags.extend(
        validated
            .diagnostics
            .iter()
            .filter(|d| {
                !(d.summary
                    == "Version constraints inside provider configuration blocks are deprecated"
                    && d.subject.as_ref().is_some_and(|s| {
                        s.filename.ends_with(".tftest.hcl") || s.filename.ends_with(".tftest.json")
                    }))
            })
            .cloned(),
    );
    let mut files = Vec::new();
    for base in &validated.tests {
        if let Some(source) = &base.source {
            source_files.push(source.clone());
        }
        for run in &base.runs {
            if let Some(c) = &run.config_under_test {
                source_files.extend(c.files());
            }
        }
        // A mock provider's `source` is relative to the module under test,
        // wherever the test file is.
        let (spec, d) = terrace_testing::file::decode(base.clone(), &dir);
        diags.extend(d);
        files.push(spec);
    }
    let view = View::new(&args, source_files);
    view.version();
    if has_errors(&diags) {
        view.diagnostics(&diags);
        view.summary(Status::Error, 0, 0, 0, 0, true);
        return 1;
    }
    view.diagnostics(&diags);

    let (factory, missing_providers) = match provider_factory(&dir, &validated) {
        Ok(f) => f,
        Err(d) => {
            view.diagnostics(&d);
            view.summary(Status::Error, 0, 0, 0, 0, true);
            return 1;
        }
    };
    view.abstract_(&files, &args.filter);
    let working_dir = std::env::current_dir().unwrap_or_else(|_| dir.clone());
    let options = SuiteOptions {
        dir: dir.clone(),
        filter: args.filter.clone(),
        inputs,
        verbose: args.verbose,
        parallelism: args.parallelism,
        terraform_version: crate::commands::operation::TERRAFORM_VERSION.to_string(),
        commands: Arc::new(crate::local_exec::ProcessCommandRunner),
        working_dir,
        missing_providers,
    };
    let report =
        terrace_testing::run_suite(&options, Arc::new(validated.config), &files, factory, &view);
    if let Some(path) = &args.junit {
        let sources = view.sources();
        let xml = terrace_testing::view::junit_xml(&report, &sources);
        if let Err(e) = std::fs::write(path, xml) {
            view.diagnostics(&[Diagnostic::error(
                "Failed to write JUnit XML file",
                format!(
                    "Could not write the JUnit XML report to {}: {e}.",
                    path.display()
                ),
            )]);
        }
    }
    let count = |s: &[Status]| {
        report
            .files
            .iter()
            .flat_map(|f| f.runs.iter())
            .filter(|r| s.contains(&r.status))
            .count()
    };
    let passed = count(&[Status::Pass]);
    let failed = count(&[Status::Fail]);
    let errored = count(&[Status::Error]);
    let skipped = count(&[Status::Skip]);
    let status = if report.files.is_empty() {
        Status::Pass
    } else {
        report.status
    };
    view.summary(status, passed, failed, errored, skipped, false);
    i32::from(matches!(status, Status::Fail | Status::Error))
}

/// The command's real providers: development overrides or the lock file's
/// packages, for every provider the module and its test files need.
/// Providers with neither a lock file entry nor a development override are
/// left out: as terraform's, each run that needs one fails with "Missing
/// required provider" instead of the whole command stopping.
fn provider_factory(
    dir: &Path,
    validated: &terrace_config::validation::Validated,
) -> Result<(Arc<CliProviderFactory>, BTreeSet<terrace_addrs::Provider>), Diagnostics> {
    let mut diags = Diagnostics::new();
    let (reqs, d) = requirements_by_module(&validated.config);
    diags.extend(d);
    let mut needed = reqs.merged();
    for p in validated.requirements.providers.keys() {
        needed.entry(p.clone()).or_default();
    }
    let (locks, d) = Locks::load(&dir.join(LOCK_FILE_NAME));
    diags.extend(d);
    let env = CliEnv::from_process();
    let (cli, cli_diags) = cliconfig::load(&env);
    crate::commands::providers::print_cli_config_problems(&cli_diags);
    let overrides = cli.dev_overrides();
    let missing: BTreeSet<terrace_addrs::Provider> = needed
        .keys()
        .filter(|p| {
            terrace_getproviders::lockfile::provider_is_lockable(p)
                && !overrides.contains_key(*p)
                && locks.provider(p).is_none()
        })
        .cloned()
        .collect();
    needed.retain(|p, _| !missing.contains(p));
    diags.extend(
        crate::commands::providers_schema::verify_dependency_selections(&needed, &locks, &cli),
    );
    if has_errors(&diags) {
        return Err(diags);
    }
    let executables = crate::commands::providers_schema::locate_executables(
        &needed,
        &locks,
        &cli,
        &env,
        &data_dir(dir),
    )?;
    let working_dir = std::env::current_dir().unwrap_or_else(|_| dir.to_path_buf());
    Ok((
        Arc::new(CliProviderFactory::new(executables, &working_dir)),
        missing,
    ))
}

/// The human or JSON view, as the runner reports progress.
struct View {
    json: bool,
    color: bool,
    /// Every file a diagnostic may point into.
    files: Mutex<Vec<Arc<SourceFile>>>,
}

impl View {
    fn new(args: &TestArgs, files: Vec<Arc<SourceFile>>) -> View {
        View {
            json: args.json,
            color: args.color,
            files: Mutex::new(files),
        }
    }

    fn add_source(&self, file: Arc<SourceFile>) {
        self.files
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(file);
    }

    fn source_files(&self) -> Vec<Arc<SourceFile>> {
        self.files
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn sources(&self) -> SourceMap {
        let mut map = SourceMap::new();
        for f in self.source_files() {
            map.add_source(f);
        }
        map
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// A status line's word, as terraform colours it.
    fn status_word(&self, status: Status) -> String {
        let code = match status {
            Status::Pass => "32",
            Status::Fail | Status::Error => "31",
            Status::Skip | Status::Pending => "37",
        };
        self.paint(code, status.word())
    }

    /// `in progress` and `tearing down`: grey, the colour reset after the
    /// line's end as terraform's colouring leaves it.
    fn progress_word(&self, text: &str) -> String {
        if self.color {
            format!("\x1b[37m{text}\x1b[0m\n\x1b[0m")
        } else {
            format!("{text}\n")
        }
    }

    fn diagnostics_for(&self, diags: &[Diagnostic], file: Option<&str>, run: Option<&str>) {
        self.diagnostics_spaced(diags, file, run, true);
    }

    /// `blank_after`: a blank line after the warnings, as after a run's;
    /// a file's own findings, printed after its status, have none.
    fn diagnostics_spaced(
        &self,
        diags: &[Diagnostic],
        file: Option<&str>,
        run: Option<&str>,
        blank_after: bool,
    ) {
        if diags.is_empty() {
            return;
        }
        if self.json {
            for d in diags {
                let mut line = self.json_line(
                    if d.is_error() { "error" } else { "warn" },
                    &format!(
                        "{}: {}",
                        if d.is_error() { "Error" } else { "Warning" },
                        d.summary
                    ),
                    file,
                    run,
                );
                let mut json_sources = crate::jsondiag::Sources::new(self.source_files());
                line.insert(
                    "diagnostic".into(),
                    crate::jsondiag::diagnostic_json(d, &mut json_sources),
                );
                line.insert("type".into(), "diagnostic".into());
                emit_json(line);
            }
            return;
        }
        let sources = self.sources();
        let style = if self.color {
            RenderStyle::Color
        } else {
            RenderStyle::Plain
        };
        // As terraform's test view prints a run's diagnostics: sorted by
        // place, warnings of the same summary shown once, warnings on
        // stdout and errors on stderr.
        let mut sorted = diags.to_vec();
        crate::diag_output::sort_diags(&mut sorted);
        let diags = crate::diag_output::consolidate_warnings(sorted);
        let mut warned = false;
        for d in &diags {
            let text = render_diagnostic(d, &sources, style, DEFAULT_WIDTH);
            let text = if text.ends_with('\n') {
                text
            } else {
                format!("{text}\n")
            };
            if d.is_error() {
                eprint!("{text}");
            } else {
                out!("{text}");
                warned = true;
            }
        }
        // The blank line closing a run's warnings comes after its errors.
        if warned && blank_after {
            outln!();
        }
    }

    /// `-verbose`: the plan of a `command = plan` run, or the state an
    /// apply run left, as `plan` and `show` print them.
    fn verbose(&self, run: &RunReport) {
        let Some(factory) = &run.schemas else {
            return;
        };
        let schemas = |provider: &terrace_addrs::Provider,
                       mode: terrace_addrs::ResourceMode,
                       type_name: &str| {
            let schema = factory.schema(provider).ok()?;
            let found = match mode {
                terrace_addrs::ResourceMode::Data => schema.data_sources.get(type_name),
                terrace_addrs::ResourceMode::Ephemeral => schema.ephemeral_resources.get(type_name),
                _ => schema.resource_types.get(type_name),
            }?;
            Some(Arc::new(found.clone()))
        };
        let options = RenderOptions::new(self.color);
        if let Some(plan) = &run.plan {
            out!("{}\n", render_plan(plan, &schemas, &options));
        }
        if let Some(state) = &run.state {
            if let Ok(text) = render_state(state, &schemas, &options) {
                out!("\n{text}\n");
            }
        }
    }

    /// `-json -verbose`: the plan or state as terraform's test view writes
    /// them (`test_plan`, `test_state`), with the schemas of the
    /// providers the run's configuration uses.
    fn verbose_json(&self, file: &str, run: &RunReport) {
        let (Some(factory), Some(config)) = (&run.schemas, &run.config) else {
            return;
        };
        let lookup = |provider: &terrace_addrs::Provider,
                      mode: terrace_addrs::ResourceMode,
                      type_name: &str| {
            let schema = factory.schema(provider).ok()?;
            let found = match mode {
                terrace_addrs::ResourceMode::Data => schema.data_sources.get(type_name),
                terrace_addrs::ResourceMode::Ephemeral => schema.ephemeral_resources.get(type_name),
                _ => schema.resource_types.get(type_name),
            }?;
            Some(Arc::new(found.clone()))
        };
        let (requirements, _) = requirements_by_module(config);
        let schemas: std::collections::BTreeMap<String, _> = requirements
            .merged()
            .into_keys()
            .filter_map(|p| factory.schema(&p).ok().map(|s| (p.to_string(), s)))
            .collect();
        let mut provider_schemas =
            serde_json::from_str::<Json>(&crate::jsonprovider::render(&schemas))
                .ok()
                .and_then(|mut doc| doc.get_mut("provider_schemas").map(Json::take))
                .unwrap_or_else(|| json!({}));
        // The built-in provider has no configuration block at all, which
        // terraform writes as no `block`.
        for (address, schema) in provider_schemas.as_object_mut().into_iter().flatten() {
            if address.starts_with("terraform.io/builtin/") {
                if let Some(provider) = schema.get_mut("provider").and_then(Json::as_object_mut) {
                    provider.remove("block");
                }
            }
        }
        let parse = |text: Result<String, terrace_plans::json::JsonError>| {
            text.ok()
                .and_then(|t| serde_json::from_str::<Json>(&t).ok())
                .unwrap_or(Json::Null)
        };
        let emit = |message: &str, kind: &str, body: Map<String, Json>| {
            let mut document = body;
            document.insert("provider_format_version".into(), "1.0".into());
            document.insert("provider_schemas".into(), provider_schemas.clone());
            let mut line = self.json_line("info", message, Some(file), Some(&run.name));
            line.insert(kind.into(), Json::Object(document));
            line.insert("type".into(), kind.into());
            emit_json(line);
        };
        if let Some(plan) = &run.plan {
            let doc = parse(terrace_plans::json::plan_json(
                plan,
                &lookup,
                &terrace_plans::json::PlanJsonOptions {
                    terraform_version: "",
                    configuration: None,
                },
            ));
            let mut body = Map::new();
            body.insert("plan_format_version".into(), "1.2".into());
            for key in ["output_changes", "resource_changes", "relevant_attributes"] {
                if let Some(v) = doc.get(key) {
                    body.insert(key.into(), v.clone());
                }
            }
            emit("-verbose flag enabled, printing plan", "test_plan", body);
        }
        if let Some(state) = &run.state {
            let doc = parse(terrace_plans::json::state_json(Some(state), &lookup));
            let mut body = Map::new();
            body.insert("state_format_version".into(), "1.0".into());
            for key in ["root_module", "outputs"] {
                if let Some(v) = doc.get("values").and_then(|values| values.get(key)) {
                    body.insert(key.into(), v.clone());
                }
            }
            emit("-verbose flag enabled, printing state", "test_state", body);
        }
    }

    /// The command's own diagnostics (loading, providers): no blank line
    /// after its warnings, as there is after a run's.
    fn diagnostics(&self, diags: &[Diagnostic]) {
        self.diagnostics_spaced(diags, None, None, false);
    }

    fn json_line(
        &self,
        level: &str,
        message: &str,
        file: Option<&str>,
        run: Option<&str>,
    ) -> Map<String, Json> {
        let mut m = Map::new();
        m.insert("@level".into(), level.into());
        m.insert("@message".into(), message.into());
        m.insert("@module".into(), "terraform.ui".into());
        if let Some(f) = file {
            m.insert("@testfile".into(), f.into());
        }
        if let Some(r) = run {
            m.insert("@testrun".into(), r.into());
        }
        m.insert(
            "@timestamp".into(),
            terrace_testing::view::rfc3339(std::time::SystemTime::now()).into(),
        );
        m
    }

    /// The JSON view's first line: which tool and which UI version.
    fn version(&self) {
        if !self.json {
            return;
        }
        let mut version = self.json_line(
            "info",
            &format!("terrace {}", env!("CARGO_PKG_VERSION")),
            None,
            None,
        );
        version.insert(
            "terraform".into(),
            crate::commands::operation::TERRAFORM_VERSION.into(),
        );
        version.insert("type".into(), "version".into());
        version.insert("ui".into(), "1.2".into());
        emit_json(version);
    }

    fn abstract_(&self, files: &[TestFileSpec], filter: &[String]) {
        if !self.json {
            return;
        }
        let chosen: Vec<&TestFileSpec> = files
            .iter()
            .filter(|f| filter.is_empty() || filter.contains(&f.base.name))
            .collect();
        let runs: usize = chosen.iter().map(|f| f.runs.len()).sum();
        let mut summary = Map::new();
        for f in &chosen {
            // A file without runs is null, as Go writes an empty slice
            // that was never allocated.
            let names = match f.runs.as_slice() {
                [] => Json::Null,
                runs => Json::Array(runs.iter().map(|r| Json::from(r.name.clone())).collect()),
            };
            summary.insert(f.base.name.clone(), names);
        }
        let mut line = self.json_line(
            "info",
            &format!(
                "Found {} file{} and {runs} run block{}",
                chosen.len(),
                if chosen.len() == 1 { "" } else { "s" },
                if runs == 1 { "" } else { "s" }
            ),
            None,
            None,
        );
        line.insert("test_abstract".into(), Json::Object(summary));
        line.insert("type".into(), "test_abstract".into());
        emit_json(line);
    }

    fn summary(
        &self,
        status: Status,
        passed: usize,
        failed: usize,
        errored: usize,
        skipped: usize,
        stopped_early: bool,
    ) {
        // The human summary counts errored runs as failed.
        let counts = if skipped > 0 {
            format!(
                "{passed} passed, {} failed, {skipped} skipped.",
                failed + errored
            )
        } else {
            format!("{passed} passed, {} failed.", failed + errored)
        };
        let word = match status {
            Status::Pass | Status::Pending | Status::Skip => "Success!",
            Status::Fail | Status::Error => "Failure!",
        };
        if stopped_early {
            return;
        }
        if self.json {
            let mut line = self.json_line("info", &format!("{word} {counts}"), None, None);
            line.insert(
                "test_summary".into(),
                json!({
                    "status": json_status(status),
                    "passed": passed,
                    "failed": failed,
                    "errored": errored,
                    "skipped": skipped,
                }),
            );
            line.insert("type".into(), "test_summary".into());
            emit_json(line);
            return;
        }
        let painted = self.paint(if word == "Success!" { "32" } else { "31" }, word);
        out!("\n{painted} {counts}\n");
    }
}

fn json_status(status: Status) -> &'static str {
    match status {
        Status::Pending => "pending",
        Status::Skip => "skip",
        Status::Pass => "pass",
        Status::Fail => "fail",
        Status::Error => "error",
    }
}

fn emit_json(line: Map<String, Json>) {
    let text = serde_json::to_string(&Json::Object(line)).unwrap_or_default();
    outln!("{text}");
}

impl Reporter for View {
    fn file_started(&self, file: &TestFileSpec) {
        let name = &file.base.name;
        if self.json {
            let mut line =
                self.json_line("info", &format!("{name}... in progress"), Some(name), None);
            line.insert(
                "test_file".into(),
                json!({"path": name, "progress": "starting"}),
            );
            line.insert("type".into(), "test_file".into());
            emit_json(line);
            return;
        }
        out!("{name}... {}", self.progress_word("in progress"));
    }

    fn run_started(&self, file: &TestFileSpec, run: &terrace_testing::file::RunSpec) {
        if !self.json {
            return;
        }
        let name = &file.base.name;
        let mut line = self.json_line(
            "info",
            &format!("  {:?}... in progress", run.name),
            Some(name),
            Some(&run.name),
        );
        line.insert(
            "test_run".into(),
            json!({"path": name, "run": run.name, "progress": "starting", "elapsed": 0}),
        );
        line.insert("type".into(), "test_run".into());
        emit_json(line);
    }

    fn run_tearing_down(&self, file: &TestFileSpec, run: &str) {
        if !self.json {
            return;
        }
        let name = &file.base.name;
        let mut line = self.json_line(
            "info",
            &format!("  {run:?}... tearing down"),
            Some(name),
            Some(run),
        );
        line.insert(
            "test_run".into(),
            json!({"path": name, "run": run, "progress": "teardown", "elapsed": 0}),
        );
        line.insert("type".into(), "test_run".into());
        emit_json(line);
    }

    fn run_finished(&self, file: &TestFileSpec, run: &RunReport) {
        if let Some(config) = &run.config {
            for f in config.files() {
                self.add_source(f);
            }
        }
        let name = &file.base.name;
        if self.json {
            let mut line = self.json_line(
                "info",
                &format!("  {:?}... {}", run.name, run.status.word()),
                Some(name),
                Some(&run.name),
            );
            line.insert(
                "test_run".into(),
                json!({"path": name, "run": run.name, "progress": "complete", "status": json_status(run.status)}),
            );
            line.insert("type".into(), "test_run".into());
            emit_json(line);
            self.verbose_json(name, run);
        } else {
            out!("  run {:?}... {}\n", run.name, self.status_word(run.status));
            self.verbose(run);
        }
        self.diagnostics_for(&run.diagnostics, Some(name), Some(&run.name));
    }

    fn file_tearing_down(&self, file: &TestFileSpec) {
        let name = &file.base.name;
        if self.json {
            let mut line =
                self.json_line("info", &format!("{name}... tearing down"), Some(name), None);
            line.insert(
                "test_file".into(),
                json!({"path": name, "progress": "teardown"}),
            );
            line.insert("type".into(), "test_file".into());
            emit_json(line);
            return;
        }
        out!("{name}... {}", self.progress_word("tearing down"));
    }

    fn run_cleanup_failed(&self, file: &TestFileSpec, failure: &CleanupFailure) {
        let name = &file.base.name;
        let run = &failure.run_name;
        if self.json {
            let left: Vec<Json> = failure
                .left
                .iter()
                .map(|(instance, deposed)| match deposed {
                    Some(key) => json!({"instance": instance, "deposed_key": key}),
                    None => json!({"instance": instance}),
                })
                .collect();
            let mut line = self.json_line(
                "error",
                &format!("{} left some resources in state after executing {name}/{run}, they need to be cleaned up manually.", crate::PRODUCT),
                Some(name),
                Some(run),
            );
            line.insert("test_cleanup".into(), json!({ "failed_resources": left }));
            line.insert("type".into(), "test_cleanup".into());
            emit_json(line);
            self.diagnostics_for(&failure.diagnostics, Some(name), Some(run));
            return;
        }
        eprintln!(
            "{}",
            wrap_string(
                &format!(
                    "{} encountered an error destroying resources created while executing {name}/{run}.",
                    crate::PRODUCT
                ),
                DEFAULT_WIDTH
            )
        );
        self.diagnostics_for(&failure.diagnostics, Some(name), Some(run));
        let mut text = wrap_string(
            &format!(
                "{} left the following resources in state after executing {name}/{run}, and they need to be cleaned up manually:",
                crate::PRODUCT
            ),
            DEFAULT_WIDTH,
        );
        for (instance, deposed) in &failure.left {
            match deposed {
                Some(key) => text.push_str(&format!("\n  - {instance} (deposed object {key})")),
                None => text.push_str(&format!("\n  - {instance}")),
            }
        }
        eprint!("\n{text}\n");
    }

    fn file_finished(&self, file: &TestFileSpec, report: &FileReport) {
        let name = &file.base.name;
        if self.json {
            let mut line = self.json_line(
                "info",
                &format!("{name}... {}", report.status.word()),
                Some(name),
                None,
            );
            line.insert(
                "test_file".into(),
                json!({"path": name, "progress": "complete", "status": json_status(report.status)}),
            );
            line.insert("type".into(), "test_file".into());
            emit_json(line);
            self.diagnostics_for(&report.file_diagnostics, Some(name), None);
            return;
        }
        out!("{name}... {}\n", self.status_word(report.status));
        self.diagnostics_spaced(&report.file_diagnostics, Some(name), None, false);
    }
}
