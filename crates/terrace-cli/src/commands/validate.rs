//! `terrace validate`: loads the configuration in the working directory
//! (or the directory given), runs every check that needs no provider
//! (decoding, module tree, static evaluation, the provider rules, test
//! files), then the provider checks Terraform makes before its validation
//! walk: locked providers must be in the cache, required providers must be
//! locked. With every provider available (built-in only, for now) the
//! provider configuration of each resource is resolved as the walk would.
//! Output is Terraform's: sorted, boxed diagnostics (warnings on stdout,
//! errors on stderr) and a success line, or `-json`'s validate document.

use crate::jsondiag::{diagnostic_json, to_go_json, Sources};
use serde_json::{Map, Value as Json};
use std::path::{Path, PathBuf};
use terrace_addrs::Provider;
use terrace_config::expr::PRODUCT;
use terrace_config::loader::LoadOptions;
use terrace_config::provider_resolution::resolve_resource_providers;
use terrace_config::testfile::DEFAULT_TEST_DIRECTORY;
use terrace_config::validation::load_and_validate;
use terrace_getproviders::installer::ProviderCacheDir;
use terrace_getproviders::lockfile::{Locks, LOCK_FILE_NAME};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::render::{
    render_diagnostic, wrap_words, RenderStyle, SourceMap, DEFAULT_WIDTH,
};
use terrace_syntax::{Diagnostic, Diagnostics, Severity};

pub struct ValidateOptions {
    pub dir: PathBuf,
    pub json: bool,
    pub color: bool,
    pub no_tests: bool,
    pub test_directory: String,
}

const HELP_HINT: &str = "For more help on using this command, run:\n  terrace validate -help";

const HELP: &str = "Usage: terrace [global options] validate [options]

  Validate the configuration files in a directory, referring only to the
  configuration and not accessing any remote services such as remote state,
  provider APIs, etc.

Options:

  -json                 Produce output in a machine-readable JSON format,
                        suitable for use in text editor integrations and other
                        automated systems. Always disables color.

  -no-color             If specified, output won't contain any color.

  -no-tests             If specified, terrace will not validate test files.

  -test-directory=path  Set the terrace test directory, defaults to \"tests\".
";

/// Parses `validate`'s arguments and runs it; the exit status.
pub fn command(argv: &[String]) -> i32 {
    let mut options = ValidateOptions {
        dir: PathBuf::from("."),
        json: false,
        color: std::env::var_os("NO_COLOR").is_none(),
        no_tests: false,
        test_directory: DEFAULT_TEST_DIRECTORY.to_string(),
    };
    let mut problems = Vec::new();
    let mut positionals = Vec::new();
    for arg in crate::args::parse(argv) {
        match arg {
            crate::args::Arg::Flag { name, value } => match (name.as_str(), value) {
                ("json", None) => options.json = true,
                ("no-color", None) => options.color = false,
                // Accepted as terraform accepts it on every command.
                ("compact-warnings", _) => {}
                ("no-tests", None) => options.no_tests = true,
                ("test-directory", Some(dir)) => options.test_directory = dir,
                ("help" | "h", _) => {
                    eprint!("{HELP}");
                    return 0;
                }
                (other, _) => problems.push(Diagnostic::error(
                    "Failed to parse command-line flags",
                    format!("flag provided but not defined: -{other}"),
                )),
            },
            crate::args::Arg::Positional(p) => positionals.push(p),
        }
    }
    if options.json {
        options.color = false;
    }
    match positionals.as_slice() {
        [] => {}
        [dir] => options.dir = PathBuf::from(dir),
        _ => problems.push(Diagnostic::error(
            "Too many command line arguments",
            "Expected at most one positional argument.",
        )),
    }
    if !problems.is_empty() {
        let style = if options.color {
            RenderStyle::Color
        } else {
            RenderStyle::Plain
        };
        for mut d in problems.into_iter().take(1) {
            d.detail = format!("{}\n\n{HELP_HINT}", d.detail);
            eprint!(
                "{}",
                render_diagnostic(&d, &SourceMap::new(), style, DEFAULT_WIDTH)
            );
        }
        return 1;
    }
    run(&options)
}

/// Runs the validation and prints the results; the exit status.
pub fn run(options: &ValidateOptions) -> i32 {
    let (diags, sources) = validate(&options.dir, options);
    if options.json {
        print_json(&diags, sources);
    } else {
        print_human(&diags, sources, options.color);
    }
    i32::from(has_errors(&diags))
}

/// The diagnostics of validating `dir`, and the configuration's files for
/// rendering them.
fn validate(
    dir: &Path,
    options: &ValidateOptions,
) -> (
    Diagnostics,
    Vec<std::sync::Arc<terrace_syntax::ast::SourceFile>>,
) {
    // Static evaluation (provider `for_each`, module sources) reads the
    // root variables from the files and environment a plan reads, and
    // names one it needs and has no value for; the validation walk itself
    // treats every variable as unknown.
    let (inputs, mut input_diags) =
        terrace_config::input_variables::collect_input_values(dir, &[], std::env::vars());
    if has_errors(&input_diags) {
        return (input_diags, Vec::new());
    }
    let load_options = LoadOptions {
        input_values: std::sync::Arc::new(inputs),
        missing_root_variable: terrace_config::static_eval::MissingRootVariable::Error,
        ..LoadOptions::default()
    };
    let test_dir = (!options.no_tests).then_some(options.test_directory.as_str());
    let validated = load_and_validate(dir, &load_options, test_dir);
    let mut files = validated.config.files();
    for t in &validated.tests {
        files.extend(t.source.iter().cloned());
        for run in &t.runs {
            if let Some(c) = &run.config_under_test {
                files.extend(c.files());
            }
        }
    }
    let mut diags = validated.diagnostics;
    // Unused values in variable files are warned about by plan, not here.
    input_diags.retain(Diagnostic::is_error);
    diags.extend(input_diags);
    if has_errors(&diags) {
        return (diags, files);
    }
    let env = terrace_getproviders::cliconfig::CliEnv::from_process();
    let (cli, _) = terrace_getproviders::cliconfig::load(&env);
    let overrides = cli.dev_overrides();
    if !overrides.is_empty() {
        diags.push(crate::commands::operation::dev_overrides_warning(
            &overrides,
        ));
    }
    let provider_diags =
        provider_availability(&validated.requirements.provider_types(), &overrides);
    let unavailable = has_errors(&provider_diags);
    diags.extend(provider_diags);
    if unavailable {
        return (diags, files);
    }
    let (_, resolution_diags) = resolve_resource_providers(&validated.config);
    let resolved = !has_errors(&resolution_diags);
    diags.extend(resolution_diags);
    if resolved {
        // terraform's concurrent walk reports what it finds in an order
        // that mostly follows the source; terrace's walk follows its graph,
        // so its findings are put in source order, the same every run.
        let mut walked = validate_walk(dir, &validated.config);
        walked.sort_by(|a, b| {
            let place = |d: &Diagnostic| {
                d.subject
                    .as_ref()
                    .map(|s| (s.filename.clone(), s.start.byte))
            };
            place(a).cmp(&place(b))
        });
        diags.extend(walked);
    }
    (diags, files)
}

/// The engine's validation walk: every expression evaluated with unknown
/// input variables and instance keys, every body decoded against its
/// provider's schema and passed to one unconfigured instance of it.
fn validate_walk(dir: &Path, config: &terrace_config::loader::Config) -> Diagnostics {
    match static_context(dir, config) {
        Ok(ctx) => terrace_engine::validate(&ctx),
        Err(errors) => errors,
    }
}

/// An engine context for walks that need no state and no variable values
/// (`validate`, `graph`): the configuration's providers located, root
/// variables unknown.
pub fn static_context(
    dir: &Path,
    config: &terrace_config::loader::Config,
) -> Result<terrace_engine::Context, Diagnostics> {
    let (reqs, _) = crate::commands::providers::requirements_by_module(config);
    let executables =
        crate::commands::providers_schema::installed_executables(dir, &reqs.merged())?;
    let working_dir = std::env::current_dir().unwrap_or_else(|_| dir.to_path_buf());
    Ok(terrace_engine::Context {
        config: std::sync::Arc::new(config.clone()),
        providers: std::sync::Arc::new(crate::provider_factory::CliProviderFactory::new(
            executables,
            &working_dir,
        )),
        variables: Default::default(),
        workspace: "default".to_string(),
        working_dir,
        parallelism: 10,
        terraform_version: crate::commands::operation::TERRAFORM_VERSION.to_string(),
        // Validation walks run no provisioners.
        commands: std::sync::Arc::new(terrace_engine::NoCommandRunner),
    })
}

/// The data directory (`TF_DATA_DIR`, `.terraform` by default).
fn data_dir() -> PathBuf {
    std::env::var_os("TF_DATA_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(".terraform"))
}

/// Terraform's checks before its validation walk: every locked provider
/// must be installed in the working directory's cache, matching its
/// checksums, and every required provider must be locked (or built in).
/// Providers with a development override are exempt: they run from the
/// override's directory whatever the lock file says.
fn provider_availability(
    required: &[Provider],
    overrides: &std::collections::BTreeMap<Provider, PathBuf>,
) -> Diagnostics {
    let (locks, mut diags) = Locks::load(Path::new(LOCK_FILE_NAME));
    if has_errors(&diags) {
        return diags;
    }
    let cache_base = data_dir().join("providers");
    let cache = ProviderCacheDir::new(&cache_base);
    let cache_name = cache_base.to_string_lossy().into_owned();
    let mut locked: Vec<_> = locks.providers().collect();
    locked.sort_by_key(|l| l.provider.to_string());
    for lock in locked {
        let p = &lock.provider;
        if overrides.contains_key(p) {
            continue;
        }
        match cache.provider_version(p, &lock.version) {
            None => diags.push(Diagnostic::error(
                format!(
                    "{p}: there is no package for {p} {} cached in {cache_name}",
                    lock.version
                ),
                "",
            )),
            Some(cached) => {
                let hashes = lock.preferred_hashes();
                let matches =
                    hashes.is_empty() || cached.matches_any_hash(&hashes).unwrap_or(false);
                if !matches {
                    diags.push(Diagnostic::error(
                        format!("{p}: the cached package for {p} {} (in {cache_name}) does not match any of the checksums recorded in the dependency lock file", lock.version),
                        "",
                    ));
                }
            }
        }
    }
    if has_errors(&diags) {
        return diags;
    }
    for p in required {
        if p.is_builtin() {
            if p.type_name() != "terraform" {
                diags.push(Diagnostic::error(
                    "Missing required provider",
                    format!("This configuration requires built-in provider {p}, but that provider isn't available in this {PRODUCT} version."),
                ));
            }
            continue;
        }
        if locks.provider(p).is_none() && !overrides.contains_key(p) {
            diags.push(Diagnostic::error(
                "Missing required provider",
                format!("This configuration requires provider {p}, but that provider isn't available. You may be able to install it automatically by running:\n  {PRODUCT} init"),
            ));
        }
    }
    diags
}

/// Terraform's diagnostic order for people: warnings first, sourceless
/// before sourced, then by file (fewer path segments first), position.
fn sort_for_ui(diags: &mut [Diagnostic]) {
    diags.sort_by(|a, b| {
        let sev = |d: &Diagnostic| u8::from(d.severity == Severity::Error);
        sev(a)
            .cmp(&sev(b))
            .then_with(|| match (&a.subject, &b.subject) {
                (None, None) => std::cmp::Ordering::Equal,
                (None, Some(_)) => std::cmp::Ordering::Less,
                (Some(_), None) => std::cmp::Ordering::Greater,
                (Some(x), Some(y)) => {
                    if x.filename != y.filename {
                        let depth = |f: &str| f.matches('/').count();
                        depth(&x.filename)
                            .cmp(&depth(&y.filename))
                            .then_with(|| x.filename.cmp(&y.filename))
                    } else {
                        x.start
                            .byte
                            .cmp(&y.start.byte)
                            .then(x.end.byte.cmp(&y.end.byte))
                    }
                }
            })
    });
}

/// Terraform folds warnings with the same summary (and a source range)
/// into the first one, noting how many more there were.
fn consolidate_warnings(diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::new();
    let mut groups: Vec<(String, usize, usize)> = Vec::new();
    for d in diags {
        if d.severity != Severity::Warning || d.subject.is_none() {
            out.push(d);
            continue;
        }
        if let Some(g) = groups.iter_mut().find(|g| g.0 == d.summary) {
            g.2 += 1;
            continue;
        }
        groups.push((d.summary.clone(), out.len(), 0));
        out.push(d);
    }
    for (_, at, extra) in groups {
        if extra == 0 {
            continue;
        }
        let msg = if extra == 1 {
            "(and one more similar warning elsewhere)".to_string()
        } else {
            format!("(and {extra} more similar warnings elsewhere)")
        };
        let d = &mut out[at];
        d.detail = if d.detail.is_empty() {
            msg
        } else {
            format!("{}\n\n{msg}", d.detail)
        };
    }
    out
}

fn print_human(
    diags: &[Diagnostic],
    files: Vec<std::sync::Arc<terrace_syntax::ast::SourceFile>>,
    color: bool,
) {
    let mut sorted = diags.to_vec();
    sort_for_ui(&mut sorted);
    let sorted = consolidate_warnings(sorted);
    let mut sources = SourceMap::new();
    for f in files {
        sources.add_source(f);
    }
    let style = if color {
        RenderStyle::Color
    } else {
        RenderStyle::Plain
    };
    for d in &sorted {
        let text = render_diagnostic(d, &sources, style, DEFAULT_WIDTH);
        if d.is_error() {
            eprint!("{text}");
        } else {
            out!("{text}");
        }
    }
    if has_errors(diags) {
        return;
    }
    let message = if diags.is_empty() {
        "The configuration is valid."
    } else {
        "The configuration is valid, but there were some validation warnings as shown above."
    };
    let line = if color {
        format!("\x1b[32m\x1b[1mSuccess!\x1b[0m {message}\n\x1b[0m")
    } else {
        format!("Success! {message}\n")
    };
    outln!("{}", wrap_words(&line, DEFAULT_WIDTH));
}

fn print_json(diags: &[Diagnostic], files: Vec<std::sync::Arc<terrace_syntax::ast::SourceFile>>) {
    let mut sources = Sources::new(files);
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let mut doc = Map::new();
    doc.insert("format_version".into(), Json::from("1.0"));
    doc.insert("valid".into(), Json::from(errors == 0));
    doc.insert("error_count".into(), Json::from(errors));
    doc.insert("warning_count".into(), Json::from(diags.len() - errors));
    doc.insert(
        "diagnostics".into(),
        Json::Array(
            diags
                .iter()
                .map(|d| diagnostic_json(d, &mut sources))
                .collect(),
        ),
    );
    crate::write_stdout(&format!("{}\n", to_go_json(&Json::Object(doc))));
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_syntax::ast::SourceFile;

    fn at(file: &str, start: u32) -> terrace_syntax::SourceRange {
        SourceFile::new(file, "x".repeat(64)).range(terrace_syntax::Span {
            start,
            end: start + 1,
        })
    }

    #[test]
    fn ui_order_and_consolidation() {
        let mut diags = vec![
            Diagnostic::error("E", "").with_subject(at("main.tf", 5)),
            Diagnostic::warning("W", "d").with_subject(at("mod/main.tf", 1)),
            Diagnostic::warning("W", "d").with_subject(at("main.tf", 9)),
            Diagnostic::warning("W", "d").with_subject(at("main.tf", 2)),
            Diagnostic::error("Sourceless", ""),
        ];
        sort_for_ui(&mut diags);
        let order: Vec<String> = diags
            .iter()
            .map(|d| {
                let s = d
                    .subject
                    .as_ref()
                    .map(|s| s.to_string())
                    .unwrap_or_default();
                format!("{} {s}", d.summary)
            })
            .collect();
        assert_eq!(
            order,
            [
                "W main.tf:1,3-4",
                "W main.tf:1,10-11",
                "W mod/main.tf:1,2-3",
                "Sourceless ",
                "E main.tf:1,6-7"
            ]
        );
        let merged = consolidate_warnings(diags);
        assert_eq!(merged.len(), 3);
        assert_eq!(
            merged[0].detail,
            "d\n\n(and 2 more similar warnings elsewhere)"
        );
    }
}
