//! OpenTofu's configuration-loading fixtures (`internal/configs/testdata`,
//! shared read-only at `../shared/conformance/opentofu-configs`), run
//! through terrace-config's loader with the expectations OpenTofu's own
//! tests attach to each set (see that directory's README).
//!
//! Each set prints its pass rate. Every case that does not pass must be
//! listed in `KNOWN_FAILURES` with its reason; the test fails on an
//! unlisted failure and on a listed case that now passes, so the list stays
//! true. Checks that run over a whole loaded tree (the provider rules) go
//! in `tree_checks`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use terrace_config::loader::{
    apply_static_context, decode_config_file, decode_static_module_call, load_config,
    load_module_dir, load_module_files, Config, LoadOptions, LocalSourceBase,
};
use terrace_config::provider_validation::{
    provider_requirements, validate_provider_configs, validate_test_provider_configs,
};
use terrace_config::static_eval::{StaticContext, StaticSettings, VariableValues};
use terrace_config::testfile::{load_test_files, TestFile, DEFAULT_TEST_DIRECTORY};
use terrace_syntax::{Diagnostic, Diagnostics, Severity};

/// Cases that do not pass yet, with the reason. Empty: every fixture
/// passes; keep the list for regressions that must be explained.
const KNOWN_FAILURES: &[(&str, &str, &str)] = &[];

/// Checks over a loaded module tree beyond loading itself: the provider
/// configuration rules, for the tree and for its test files.
fn tree_checks(config: &Config, tests: &[TestFile]) -> Diagnostics {
    let mut diags = validate_provider_configs(config);
    diags.extend(validate_test_provider_configs(config, tests));
    diags
}

fn fixtures() -> Option<PathBuf> {
    terrace_testsupport::shared("conformance/opentofu-configs")
}

type Outcome = Result<(), String>;

struct Set {
    name: &'static str,
    results: Vec<(String, Outcome)>,
}

fn describe(diags: &[Diagnostic]) -> String {
    diags
        .iter()
        .map(|d| {
            let sev = if d.is_error() { "error" } else { "warning" };
            match &d.subject {
                Some(s) => format!("{sev} {s}: {}; {}", d.summary, d.detail),
                None => format!("{sev} <nil>: {}; {}", d.summary, d.detail),
            }
        })
        .collect::<Vec<_>>()
        .join("\n    ")
}

fn errors(diags: &[Diagnostic]) -> usize {
    diags.iter().filter(|d| d.is_error()).count()
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|it| {
            it.filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn defaults_context(module: &terrace_config::model::Module) -> Arc<StaticContext> {
    let settings = StaticSettings {
        root_dir: ".".into(),
        workspace: "default".into(),
        cwd: std::env::current_dir().unwrap_or_default(),
    };
    Arc::new(StaticContext::new(
        Vec::new(),
        module.variables.clone(),
        module.locals.clone(),
        &module.source_dir,
        &settings,
        VariableValues::Defaults,
    ))
}

/// One file on its own, then as a one-file module with static evaluation.
fn file_as_module(path: &Path) -> (Diagnostics, Diagnostics) {
    let (_, file_diags) = decode_config_file(path, false);
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (mut module, mut module_diags) = load_module_files(dir, &[name], &[]);
    let ctx = defaults_context(&module);
    module_diags.extend(apply_static_context(&mut module, &ctx, &Default::default()));
    (file_diags, module_diags)
}

fn valid_files(root: &Path) -> Set {
    let dir = root.join("valid-files");
    let results = entries(&dir)
        .into_iter()
        .map(|name| {
            let (file_diags, module_diags) = file_as_module(&dir.join(&name));
            let outcome = if !file_diags.is_empty() {
                Err(format!("diagnostics:\n    {}", describe(&file_diags)))
            } else if errors(&module_diags) > 0 {
                Err(format!(
                    "errors as a module:\n    {}",
                    describe(&module_diags)
                ))
            } else {
                Ok(())
            };
            (name, outcome)
        })
        .collect();
    Set {
        name: "valid-files",
        results,
    }
}

fn invalid_files(root: &Path) -> Set {
    let dir = root.join("invalid-files");
    let results = entries(&dir)
        .into_iter()
        .map(|name| {
            let (_, file_diags) = decode_config_file(&dir.join(&name), false);
            let message = FAILURE_MESSAGES.iter().find(|(f, _, _)| *f == name);
            let outcome = if name == "provider-reserved.tf" {
                provider_reserved(&file_diags)
            } else if let Some((_, summary, detail)) = message {
                match file_diags.as_slice() {
                    [d] if d.is_error() && d.summary == *summary && d.detail == *detail => Ok(()),
                    _ => Err(format!(
                        "want exactly {summary}: {detail}\n    got:\n    {}",
                        describe(&file_diags)
                    )),
                }
            } else if errors(&file_diags) == 0 {
                Err(format!(
                    "no errors; diagnostics:\n    {}",
                    describe(&file_diags)
                ))
            } else {
                Ok(())
            };
            (name, outcome)
        })
        .collect();
    Set {
        name: "invalid-files",
        results,
    }
}

/// The files OpenTofu's `TestParserLoadConfigFileFailureMessages` checks:
/// exactly one diagnostic, with this summary and detail.
const FAILURE_MESSAGES: &[(&str, &str, &str)] = &[
    ("data-resource-lifecycle.tf", "Invalid data resource lifecycle argument", "The lifecycle argument \"ignore_changes\" is defined only for managed resources (\"resource\" blocks), and is not valid for data resources."),
    ("variable-type-unknown.tf", "Invalid type specification", "The keyword \"notatype\" is not a valid type specification."),
    ("unexpected-attr.tf", "Unsupported argument", "An argument named \"foo\" is not expected here."),
    ("unexpected-block.tf", "Unsupported block type", "Blocks of type \"varyable\" are not expected here. Did you mean \"variable\"?"),
    ("ephemeral-count-and-for_each-and-enabled.tf", "Invalid combination of \"count\", \"enabled\", and \"for_each\"", "The \"count\", \"enabled\", and \"for_each\" meta-arguments are mutually-exclusive. Only one may be used to be explicit about the number of ephemeral resources to be created."),
    ("resource-count-and-for_each.tf", "Invalid combination of \"count\" and \"for_each\"", "The \"count\" and \"for_each\" meta-arguments are mutually-exclusive. Only one may be used to be explicit about the number of resources to be created."),
    ("resource-count-and-for_each-and-enabled.tf", "Invalid combination of \"count\", \"enabled\", and \"for_each\"", "The \"count\", \"enabled\", and \"for_each\" meta-arguments are mutually-exclusive. Only one may be used to be explicit about the number of resources to be created."),
    ("data-count-and-for_each.tf", "Invalid combination of \"count\" and \"for_each\"", "The \"count\" and \"for_each\" meta-arguments are mutually-exclusive. Only one may be used to be explicit about the number of data sources to be created."),
    ("data-count-and-for_each-and-enabled.tf", "Invalid combination of \"count\", \"enabled\", and \"for_each\"", "The \"count\", \"enabled\", and \"for_each\" meta-arguments are mutually-exclusive. Only one may be used to be explicit about the number of data sources to be created."),
    ("resource-lifecycle-badbool.tf", "Unsuitable value type", "Unsuitable value: a bool is required"),
    ("variable-complex-bad-default-inner-obj.tf", "Invalid default value for variable", "This default value is not compatible with the variable's type constraint: [\"mykey\"].field: a bool is required."),
    ("empty-deprecated-output-attr.tf", "Invalid `deprecated` attribute", "The \"deprecated\" argument must not be empty, and should provide instructions on how to migrate away from usage of this deprecated output value."),
];

fn provider_reserved(diags: &[Diagnostic]) -> Outcome {
    let count = |sev: Severity, summary: &str| {
        diags
            .iter()
            .filter(|d| d.severity == sev && d.summary == summary)
            .count()
    };
    let version_warning = diags
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .count();
    let ok = diags.len() == 6
        && version_warning == 1
        && count(Severity::Error, "Reserved argument name in provider block") == 3
        && count(
            Severity::Error,
            "Reserved block type name in provider block",
        ) == 2;
    if ok {
        Ok(())
    } else {
        Err(format!("wrong diagnostics:\n    {}", describe(diags)))
    }
}

/// `# WARNING: <summary>` / `# ERROR: <summary>` markers by line.
fn markers(path: &Path, marker: &str) -> BTreeMap<u32, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            line.find(marker)
                .map(|at| (i as u32 + 1, line[at + marker.len()..].to_string()))
        })
        .collect()
}

fn by_line(diags: &[Diagnostic], severity: Severity) -> BTreeMap<u32, String> {
    diags
        .iter()
        .filter(|d| d.severity == severity)
        .filter_map(|d| {
            d.subject
                .as_ref()
                .map(|s| (s.start.line, d.summary.clone()))
        })
        .collect()
}

fn warning_files(root: &Path) -> Set {
    let dir = root.join("warning-files");
    let results = entries(&dir)
        .into_iter()
        .map(|name| {
            let path = dir.join(&name);
            let (_, diags) = decode_config_file(&path, false);
            let want = markers(&path, "WARNING: ");
            let got = by_line(&diags, Severity::Warning);
            let outcome = if errors(&diags) > 0 {
                Err(format!("errors:\n    {}", describe(&diags)))
            } else if want != got {
                Err(format!("want {want:?}, got {got:?}"))
            } else {
                Ok(())
            };
            (name, outcome)
        })
        .collect();
    Set {
        name: "warning-files",
        results,
    }
}

fn error_files(root: &Path) -> Set {
    let dir = root.join("error-files");
    let results = entries(&dir)
        .into_iter()
        .map(|name| {
            let path = dir.join(&name);
            let (file, mut diags) = decode_config_file(&path, false);
            // As OpenTofu's test does, module call sources and versions are
            // decoded statically too.
            let empty = terrace_config::model::Module::default();
            let ctx = defaults_context(&empty);
            for mut mc in file.map(|f| f.module_calls).unwrap_or_default() {
                diags.extend(decode_static_module_call(&mut mc, &ctx));
            }
            let want = markers(&path, "ERROR: ");
            let got = by_line(&diags, Severity::Error);
            let outcome = if want != got {
                Err(format!(
                    "want {want:?}, got {got:?}\n    {}",
                    describe(&diags)
                ))
            } else {
                Ok(())
            };
            (name, outcome)
        })
        .collect();
    Set {
        name: "error-files",
        results,
    }
}

fn fixture_options() -> LoadOptions {
    LoadOptions {
        use_module_manifest: false,
        local_source_base: LocalSourceBase::Root,
        ..LoadOptions::default()
    }
}

/// The tree with its test files, the provider rules checked when loading
/// found no errors, as OpenTofu's `BuildConfig` does.
fn load_tree(dir: &Path) -> (Config, Diagnostics) {
    let (config, _, diags) = load_tree_with_tests(dir);
    (config, diags)
}

fn load_tree_with_tests(dir: &Path) -> (Config, Vec<TestFile>, Diagnostics) {
    let options = fixture_options();
    let (config, mut diags) = load_config(dir, &options);
    let (tests, test_diags) = load_test_files(dir, Some(DEFAULT_TEST_DIRECTORY), &options);
    diags.extend(test_diags);
    if errors(&diags) == 0 {
        diags.extend(tree_checks(&config, &tests));
    }
    (config, tests, diags)
}

fn valid_modules(root: &Path) -> Set {
    let dir = root.join("valid-modules");
    let results = entries(&dir)
        .into_iter()
        .map(|name| {
            let (_, diags) = load_module_dir(&dir.join(&name));
            let outcome = if diags.is_empty() {
                Ok(())
            } else {
                Err(format!("diagnostics:\n    {}", describe(&diags)))
            };
            (name, outcome)
        })
        .collect();
    Set {
        name: "valid-modules",
        results,
    }
}

fn invalid_modules(root: &Path) -> Set {
    let dir = root.join("invalid-modules");
    let results = entries(&dir)
        .into_iter()
        .map(|name| {
            let (_, diags) = load_tree(&dir.join(&name));
            let outcome = if errors(&diags) > 0 {
                Ok(())
            } else {
                Err(format!("no errors; diagnostics:\n    {}", describe(&diags)))
            };
            (name, outcome)
        })
        .collect();
    Set {
        name: "invalid-modules",
        results,
    }
}

/// The expectations of a `config-diagnostics` case: `range: summary;
/// detail` lines, `\n` standing for a newline, OpenTofu's name for ours.
fn expected_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            l.trim()
                .replace("\\n", "\n")
                .replace("testdata/config-diagnostics/", "")
                .replace("OpenTofu", "terrace")
                .replace("registry.opentofu.org", "registry.terraform.io")
        })
        .filter(|l| !l.is_empty())
        .collect()
}

fn diag_line(d: &Diagnostic) -> String {
    let subject = d
        .subject
        .as_ref()
        .map(|s| s.to_string())
        .unwrap_or_else(|| "<nil>".into());
    format!("{subject}: {}; {}", d.summary, d.detail)
}

/// OpenTofu's rule: every expected line is a substring of a diagnostic of
/// that severity, and every diagnostic contains an expected line.
fn match_substrings(
    diags: &[Diagnostic],
    severity: Severity,
    want: &[String],
) -> Result<(), String> {
    let got: Vec<String> = diags
        .iter()
        .filter(|d| d.severity == severity)
        .map(diag_line)
        .collect();
    for w in want {
        if !got.iter().any(|g| g.contains(w.as_str())) {
            return Err(format!("missing {severity:?}: {w}"));
        }
    }
    for g in &got {
        if !want.iter().any(|w| g.contains(w.as_str())) {
            return Err(format!("unexpected {severity:?}: {g}"));
        }
    }
    Ok(())
}

fn config_diagnostics(root: &Path) -> Set {
    let base = root.join("config-diagnostics");
    let results = entries(&base)
        .into_iter()
        .map(|name| {
            let dir = base.join(&name);
            let (_, diags) = load_tree(&dir);
            let outcome = match_substrings(
                &diags,
                Severity::Error,
                &expected_lines(&dir.join("errors")),
            )
            .and_then(|()| {
                match_substrings(
                    &diags,
                    Severity::Warning,
                    &expected_lines(&dir.join("warnings")),
                )
            });
            (name, outcome)
        })
        .collect();
    Set {
        name: "config-diagnostics",
        results,
    }
}

fn exact_summaries(diags: &[Diagnostic], want: &[(Severity, &str)]) -> Outcome {
    let mut got: Vec<(Severity, String)> = diags
        .iter()
        .map(|d| (d.severity, d.summary.clone()))
        .collect();
    let mut want: Vec<(Severity, String)> = want.iter().map(|(s, m)| (*s, m.to_string())).collect();
    got.sort();
    want.sort();
    if got == want {
        Ok(())
    } else {
        Err(format!("want {want:?}\n    got:\n    {}", describe(diags)))
    }
}

/// The sets OpenTofu tests one by one, with the expectations its tests
/// state.
fn single_cases(root: &Path) -> Vec<Set> {
    let one = |name: &'static str, outcome: Outcome| Set {
        name,
        results: vec![(name.to_string(), outcome)],
    };
    let mut sets = Vec::new();

    let (_, diags) = load_tree(&root.join("provider_for_each"));
    sets.push(one(
        "provider_for_each",
        exact_summaries(
            &diags,
            &[
                (
                    Severity::Warning,
                    "Provider configuration for_each matches module",
                ),
                (
                    Severity::Warning,
                    "Provider configuration for_each matches resource",
                ),
                (Severity::Error, "Invalid module provider configuration"),
                (Severity::Error, "Invalid resource provider configuration"),
            ],
        ),
    ));

    // OpenTofu's test loads the root directory apart from building the
    // tree, so the provider rules run in spite of the root's own error (the
    // resource block with one label): 3 diagnostics, of which the two
    // duplicate requirements are warnings "Duplicate required provider"
    // ("dupe" repeats hashicorp/test; "other" names hashicorp/default while
    // a provider block is named "default"). The resource that would have
    // given a third is dropped by that error.
    let dir = root.join("duplicate-local-name");
    let (config, mut diags) = load_config(&dir, &fixture_options());
    diags.extend(tree_checks(&config, &[]));
    let dupes = diags
        .iter()
        .filter(|d| d.severity == Severity::Warning && d.summary == "Duplicate required provider")
        .count();
    sets.push(one(
        "duplicate-local-name",
        if diags.len() == 3
            && dupes == 2
            && diags
                .iter()
                .any(|d| d.is_error() && d.summary == "Missing name for resource")
        {
            Ok(())
        } else {
            Err(format!(
                "want 2 \"Duplicate required provider\" warnings and the label error, got:\n    {}",
                describe(&diags)
            ))
        },
    ));

    // OpenTofu's TestConfigProviderRequirementsInclTests: the requirements
    // of the tree, its test file and the test's run module.
    let (config, tests, diags) = load_tree_with_tests(&root.join("provider-reqs-with-tests"));
    let (reqs, req_diags) = provider_requirements(&config, &tests);
    let got: Vec<String> = reqs
        .provider_types()
        .iter()
        .map(|p| {
            let constraints: Vec<String> =
                reqs.providers[p].iter().map(|c| c.to_string()).collect();
            format!("{p} [{}]", constraints.join(", "))
        })
        .collect();
    let want = [
        "registry.terraform.io/hashicorp/configured [~> 1.4]",
        "registry.terraform.io/hashicorp/implied []",
        "registry.terraform.io/hashicorp/null [~> 2.0.0]",
        "registry.terraform.io/hashicorp/random [~> 1.2.0]",
        "registry.terraform.io/hashicorp/tls [~> 3.0]",
        "terraform.io/builtin/terraform []",
    ];
    sets.push(one(
        "provider-reqs-with-tests",
        if diags.len() != 1
            || diags[0].summary
                != "Version constraints inside provider configuration blocks are deprecated"
            || !req_diags.is_empty()
        {
            Err(format!(
                "diagnostics:\n    {}",
                describe(&[diags, req_diags].concat())
            ))
        } else if got != want {
            Err(format!("requirements {got:?}"))
        } else {
            Ok(())
        },
    ));

    let (config, diags) = load_tree(&root.join("provider_from_json"));
    let providers: Vec<String> = config
        .module
        .all_resources()
        .filter_map(|r| r.provider.as_ref().map(|p| p.to_string()))
        .collect();
    sets.push(one(
        "provider_from_json",
        if !diags.is_empty() {
            Err(format!("diagnostics:\n    {}", describe(&diags)))
        } else if providers != ["registry.terraform.io/hashicorp/null"] {
            Err(format!("providers {providers:?}"))
        } else if config
            .module
            .provider_config("null", Some("blah"))
            .and_then(|p| p.instances.as_ref())
            .map(|i| i.keys().cloned().collect::<Vec<_>>())
            != Some(vec!["a".to_string()])
        {
            Err("provider null.blah does not have the one instance \"a\"".into())
        } else {
            Ok(())
        },
    ));

    let tree_paths = |config: &Config| {
        let mut paths = Vec::new();
        config.deep_each(&mut |c| paths.push(c.path.join(".")));
        paths
    };
    let (config, diags) = load_tree(&root.join("config-build"));
    sets.push(one(
        "config-build",
        if !diags.is_empty() {
            Err(format!("diagnostics:\n    {}", describe(&diags)))
        } else if tree_paths(&config)
            != [
                "",
                "child_a",
                "child_a.child_c",
                "child_b",
                "child_b.child_c",
            ]
        {
            Err(format!("tree {:?}", tree_paths(&config)))
        } else {
            Ok(())
        },
    ));

    let (config, diags) = load_tree(&root.join("nested-errors"));
    let want_diag = "child_c/child_c.tf:5,1-8: Unsupported block type; Blocks of type \"invalid\" are not expected here.";
    sets.push(one(
        "nested-errors",
        if diags.len() != 1 || !diag_line(&diags[0]).contains(want_diag) {
            Err(format!("diagnostics:\n    {}", describe(&diags)))
        } else if tree_paths(&config) != ["", "child_a", "child_a.child_c"] {
            Err(format!("tree {:?}", tree_paths(&config)))
        } else {
            Ok(())
        },
    ));

    let (_, diags) = load_tree(&root.join("nested-backend-warning"));
    sets.push(one(
        "nested-backend-warning",
        if diags.len() == 1
            && diags[0].summary == "Backend configuration ignored"
            && !diags[0].is_error()
        {
            Ok(())
        } else {
            Err(format!("diagnostics:\n    {}", describe(&diags)))
        },
    ));
    // OpenTofu warns about a backend in a child module, not a cloud block.
    let (_, diags) = load_tree(&root.join("nested-cloud-warning"));
    sets.push(one(
        "nested-cloud-warning",
        if diags.is_empty() {
            Ok(())
        } else {
            Err(format!("diagnostics:\n    {}", describe(&diags)))
        },
    ));

    for name in ["tofu-only-files", "tofu-and-tf-files"] {
        let (module, diags) = load_module_dir(&root.join(name));
        let module = module.unwrap_or_default();
        let overridden = module.variables.values().all(|v| {
            v.default.as_ref().and_then(|d| d.as_str()) == Some("overridden by tofu file")
        });
        sets.push(one(
            name,
            if !diags.is_empty() {
                Err(format!("diagnostics:\n    {}", describe(&diags)))
            } else if module.variables.len() != 2 || !overridden {
                Err("the .tofu overrides were not applied to both variables".into())
            } else {
                Ok(())
            },
        ));
    }

    let (_, diags) = decode_config_file(&root.join("variable-empty-deprecated/main.tf"), false);
    let lines: Vec<String> = diags.iter().map(diag_line).collect();
    sets.push(one(
        "variable-empty-deprecated",
        if lines.len() == 2
            && lines[0].contains("main.tf:1,10-33: Invalid `deprecated` value")
            && lines[1].contains("main.tf:7,10-39: Invalid `deprecated` value")
        {
            Ok(())
        } else {
            Err(format!("diagnostics:\n    {}", describe(&diags)))
        },
    ));

    let (file, diags) = decode_config_file(&root.join("ephemeral-blocks/main.tf"), false);
    let ephemeral = file.map(|f| f.ephemeral_resources.len()).unwrap_or(0);
    sets.push(one(
        "ephemeral-blocks",
        if diags.len() == 6 && ephemeral == 2 {
            Ok(())
        } else {
            Err(format!(
                "{ephemeral} ephemeral resources; diagnostics:\n    {}",
                describe(&diags)
            ))
        },
    ));

    let (_, diags) = decode_config_file(
        &root.join("invalid-import-files/import-and-module-clash.tf"),
        false,
    );
    sets.push(one(
        "invalid-import-files",
        if diags.len() == 1
            && diag_line(&diags[0]).contains(":9,3-19: Invalid import provider argument")
        {
            Ok(())
        } else {
            Err(format!("diagnostics:\n    {}", describe(&diags)))
        },
    ));

    for name in [
        "escaping-blocks/resource",
        "escaping-blocks/data",
        "escaping-blocks/module",
        "escaping-blocks/provider",
    ] {
        let (_, diags) = load_module_dir(&root.join(name));
        sets.push(Set {
            name: "escaping-blocks",
            results: vec![(
                name.to_string(),
                if diags.is_empty() {
                    Ok(())
                } else {
                    Err(format!("diagnostics:\n    {}", describe(&diags)))
                },
            )],
        });
    }

    // Its sources are relative to the calling module, as in a real walker.
    let options = LoadOptions {
        use_module_manifest: false,
        ..LoadOptions::default()
    };
    let (_, diags) = load_config(&root.join("provider-reqs"), &options);
    sets.push(one(
        "provider-reqs",
        if diags.len() == 1
            && diags[0].summary
                == "Version constraints inside provider configuration blocks are deprecated"
        {
            Ok(())
        } else {
            Err(format!("diagnostics:\n    {}", describe(&diags)))
        },
    ));

    for name in ["providers-explicit-fqn", "uninit-module-and-provider-refs"] {
        let (_, diags) = load_tree(&root.join(name));
        let outcome = if name == "uninit-module-and-provider-refs" {
            // Its "uninit" module is not there: only that may be reported.
            if diags.iter().all(|d| {
                d.summary == "Unreadable module directory" || d.summary == "Module not installed"
            }) && !diags.is_empty()
            {
                Ok(())
            } else {
                Err(format!("diagnostics:\n    {}", describe(&diags)))
            }
        } else if diags.is_empty() {
            Ok(())
        } else {
            Err(format!("diagnostics:\n    {}", describe(&diags)))
        };
        sets.push(one(name, outcome));
    }
    sets
}

/// Sets of several entries with the same name are reported together.
fn merge_sets(sets: Vec<Set>) -> Vec<Set> {
    let mut out: Vec<Set> = Vec::new();
    for s in sets {
        match out.iter_mut().find(|o| o.name == s.name) {
            Some(o) => o.results.extend(s.results),
            None => out.push(s),
        }
    }
    out
}

#[test]
fn opentofu_configuration_fixtures() {
    let Some(root) = fixtures() else {
        return;
    };
    let mut sets = vec![
        valid_files(&root),
        valid_modules(&root),
        invalid_files(&root),
        invalid_modules(&root),
        warning_files(&root),
        error_files(&root),
        config_diagnostics(&root),
    ];
    sets.extend(single_cases(&root));
    let sets = merge_sets(sets);

    let mut problems = Vec::new();
    let (mut all_passed, mut all_total) = (0, 0);
    for set in &sets {
        let passed = set.results.iter().filter(|(_, o)| o.is_ok()).count();
        let total = set.results.len();
        all_passed += passed;
        all_total += total;
        println!(
            "{}: {passed}/{total} ({:.1}%)",
            set.name,
            100.0 * passed as f64 / total.max(1) as f64
        );
        for (case, outcome) in &set.results {
            let known = KNOWN_FAILURES
                .iter()
                .find(|(s, c, _)| *s == set.name && *c == case);
            match (outcome, known) {
                (Err(why), None) => problems.push(format!("{}/{case}: {why}", set.name)),
                (Err(_), Some((_, _, reason))) => println!("  known failure {case}: {reason}"),
                (Ok(()), Some(_)) => problems.push(format!(
                    "{}/{case} passes now: remove it from KNOWN_FAILURES",
                    set.name
                )),
                (Ok(()), None) => {}
            }
        }
    }
    println!(
        "all: {all_passed}/{all_total} ({:.1}%)",
        100.0 * all_passed as f64 / all_total.max(1) as f64
    );
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}
