//! Test files (`*.tftest.hcl`, `*.tftest.json` and their `.tofutest`
//! forms) as far as the provider configuration rules need them: their
//! `provider` and `mock_provider` blocks (name, alias and `for_each`), and
//! each `run` block's `providers` map and alternate `module`, whose module
//! tree is loaded as a root of its own (OpenTofu's `buildTestModules`).
//! Everything else in a test file (assertions, variables, mock contents,
//! overrides) belongs to the test runner and is skipped here without
//! complaint, so that test files written for either Terraform or OpenTofu
//! load.

use crate::body::{Body, BodySchema};
use crate::decode::{
    decode_passed_provider_configs, decode_provider_block, decode_provider_identity, decode_string,
    ProviderBlockKind,
};
use crate::expr::PRODUCT;
use crate::loader::{
    is_ignored_file, join_clean, load_config, parse_config_file, read_module_manifest, Config,
    LoadOptions,
};
use crate::model::{PassedProviderConfig, Provider};
use crate::module_source::{
    parse_module_source, parse_module_source_registry, ModuleSource, ModuleSourceError,
};
use crate::static_eval::path_string;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use terrace_syntax::ast::SourceFile;
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::{Diagnostic, Diagnostics, SourceRange};
use terrace_value::gostr::quote;

/// The test directory `terraform test` and `validate` read by default.
pub const DEFAULT_TEST_DIRECTORY: &str = "tests";

const TEST_EXTENSIONS: [&str; 4] = [
    ".tftest.hcl",
    ".tftest.json",
    ".tofutest.hcl",
    ".tofutest.json",
];

/// One test file.
#[derive(Clone, Debug)]
pub struct TestFile {
    /// The path relative to the module under test (`main.tftest.hcl`,
    /// `tests/a.tftest.hcl`), as messages name it.
    pub name: String,
    /// `provider` and `mock_provider` blocks, keyed by `name` or
    /// `name.alias`. A mock's `config` is empty: its contents are the test
    /// runner's.
    pub providers: BTreeMap<String, Provider>,
    /// The keys of `providers` that are `mock_provider` blocks.
    pub mocked: std::collections::BTreeSet<String>,
    pub runs: Vec<TestRun>,
    /// The file's text, for rendering diagnostics.
    pub source: Option<Arc<SourceFile>>,
}

#[derive(Clone, Debug)]
pub struct TestRun {
    pub name: String,
    pub name_range: SourceRange,
    pub decl_range: SourceRange,
    /// The run's `providers` map.
    pub providers: Vec<PassedProviderConfig>,
    pub module: Option<TestRunModule>,
    /// The alternate module's tree, loaded as a root.
    pub config_under_test: Option<Config>,
}

/// A run block's `module` block.
#[derive(Clone, Debug)]
pub struct TestRunModule {
    pub source: Option<ModuleSource>,
    pub source_range: Option<SourceRange>,
    pub decl_range: SourceRange,
}

/// The test files of the module in `dir`: those in `dir` itself and, when
/// `test_dir` is given, in `dir/test_dir`, with their run modules loaded.
/// A missing test directory is a warning unless it is the default one.
pub fn load_test_files(
    dir: &Path,
    test_dir: Option<&str>,
    options: &LoadOptions,
) -> (Vec<TestFile>, Diagnostics) {
    let mut diags = Vec::new();
    let mut paths: Vec<(PathBuf, String)> = Vec::new();
    if let Some(td) = test_dir {
        let test_path = join_clean(dir, td);
        match std::fs::read_dir(&test_path) {
            Ok(_) => paths.extend(test_file_names(&test_path).into_iter().map(|n| {
                let rel = format!("{}/{n}", td.trim_end_matches('/'));
                (test_path.join(&n), rel)
            })),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if td != DEFAULT_TEST_DIRECTORY {
                    diags.push(Diagnostic::warning(
                        "Test directory does not exist",
                        format!(
                            "Requested test directory {} does not exist.",
                            path_string(&test_path)
                        ),
                    ));
                }
            }
            Err(e) => {
                diags.push(Diagnostic::error(
                    "Failed to read test directory",
                    format!(
                        "Test directory {} could not be read: {e}.",
                        path_string(&test_path)
                    ),
                ));
                return (Vec::new(), diags);
            }
        }
    }
    paths.extend(
        test_file_names(dir)
            .into_iter()
            .map(|n| (dir.join(&n), n.clone())),
    );
    paths.sort_by(|a, b| a.1.cmp(&b.1));

    let mut files = Vec::new();
    for (path, rel) in paths {
        let display = display_path(dir, &rel);
        let (parsed, d) = parse_config_file(&path, &display);
        diags.extend(d);
        let Some(parsed) = parsed else { continue };
        let (mut file, d) = decode_test_file(&Body::from_file(&parsed), &rel);
        file.source = Some(parsed.source.clone());
        diags.extend(d);
        diags.extend(load_run_modules(dir, &mut file, options));
        files.push(file);
    }
    (files, diags)
}

fn display_path(dir: &Path, rel: &str) -> String {
    let d = path_string(dir);
    if d == "." || d.is_empty() {
        rel.to_string()
    } else {
        format!("{}/{rel}", d.trim_end_matches('/'))
    }
}

/// Test file names in `dir`, sorted, a `.tftest` file dropped where the
/// `.tofutest` file of the same name exists.
fn test_file_names(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().map(|t| !t.is_dir()).unwrap_or(false))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| !is_ignored_file(n) && TEST_EXTENSIONS.iter().any(|x| n.ends_with(x)))
        .collect();
    names.sort();
    names
        .iter()
        .filter(|n| {
            let alternative = n
                .strip_suffix(".tftest.hcl")
                .map(|s| format!("{s}.tofutest.hcl"))
                .or_else(|| {
                    n.strip_suffix(".tftest.json")
                        .map(|s| format!("{s}.tofutest.json"))
                });
            alternative.is_none_or(|a| !names.contains(&a))
        })
        .cloned()
        .collect()
}

/// Decodes the parts of a test file the provider rules use.
pub fn decode_test_file(body: &Body, name: &str) -> (TestFile, Diagnostics) {
    let schema = BodySchema::new()
        .labeled_block("run", &["name"])
        .labeled_block("provider", &["name"])
        .labeled_block("mock_provider", &["name"]);
    let (content, _, mut diags) = body.partial_content(&schema);
    let mut file = TestFile {
        name: name.to_string(),
        providers: BTreeMap::new(),
        mocked: Default::default(),
        runs: Vec::new(),
        source: None,
    };
    for block in &content.blocks {
        match block.block_type.as_str() {
            "provider" => {
                let (p, d) = decode_provider_block(block);
                diags.extend(d);
                if let Some(p) = p {
                    file.providers.insert(p.module_unique_key(), p);
                }
            }
            "mock_provider" => {
                let (p, d) = decode_mock_provider_block(block);
                diags.extend(d);
                if let Some(p) = p {
                    let key = p.module_unique_key();
                    file.mocked.insert(key.clone());
                    file.providers.insert(key, p);
                }
            }
            "run" => {
                let (run, d) = decode_run_block(block);
                let failed = has_errors(&d);
                diags.extend(d);
                if !failed {
                    file.runs.push(run);
                }
            }
            _ => {}
        }
    }
    (file, diags)
}

/// The parts of a `mock_provider` block the provider rules read: its name,
/// `alias` and `for_each`, with OpenTofu's checks of them.
fn decode_mock_provider_block(block: &crate::body::Block) -> (Option<Provider>, Diagnostics) {
    let schema = BodySchema::new()
        .attr("alias")
        .attr("for_each")
        .attr("source");
    let (content, _, mut diags) = block.body.partial_content(&schema);
    let provider = decode_provider_identity(
        ProviderBlockKind::MockProvider,
        block,
        &content,
        Body::empty(),
        &mut diags,
    );
    (provider, diags)
}

fn decode_run_block(block: &crate::body::Block) -> (TestRun, Diagnostics) {
    let schema = BodySchema::new().attr("providers").block("module");
    let (content, _, mut diags) = block.body.partial_content(&schema);
    let mut run = TestRun {
        name: block.labels.first().cloned().unwrap_or_default(),
        name_range: block.label_ranges.first().cloned().unwrap_or_default(),
        decl_range: block.def_range.clone(),
        providers: Vec::new(),
        module: None,
        config_under_test: None,
    };
    for b in &content.blocks {
        if let Some(existing) = &run.module {
            diags.push(
                Diagnostic::error(
                    "Multiple \"module\" blocks",
                    format!(
                        "This run block already has a module block defined at {}.",
                        existing.decl_range
                    ),
                )
                .with_subject(b.def_range.clone()),
            );
        }
        let (m, d) = decode_run_module_block(b);
        let failed = has_errors(&d);
        diags.extend(d);
        if !failed {
            run.module = Some(m);
        }
    }
    if let Some(attr) = content.attribute("providers") {
        let (p, d) = decode_passed_provider_configs(attr);
        diags.extend(d);
        run.providers = p;
    }
    (run, diags)
}

fn decode_run_module_block(block: &crate::body::Block) -> (TestRunModule, Diagnostics) {
    let schema = BodySchema::new().attr("source").attr("version");
    let (content, _, mut diags) = block.body.partial_content(&schema);
    let mut m = TestRunModule {
        source: None,
        source_range: None,
        decl_range: block.def_range.clone(),
    };
    let has_version = content.attribute("version").is_some();
    let Some(attr) = content.attribute("source") else {
        diags.push(
            Diagnostic::error(
                "Missing \"source\" attribute for module block",
                "You must specify a source attribute when executing alternate modules during test executions.",
            )
            .with_subject(m.decl_range.clone()),
        );
        return (m, diags);
    };
    m.source_range = Some(attr.range.clone());
    let (raw, d) = decode_string(&attr.expr);
    let failed = has_errors(&d);
    diags.extend(d);
    let Some(raw) = raw.filter(|_| !failed) else {
        return (m, diags);
    };
    let parsed = if has_version {
        parse_module_source_registry(&raw)
    } else {
        parse_module_source(&raw)
    };
    match parsed {
        Ok(s) => m.source = Some(s),
        Err(ModuleSourceError::MaybeRelativePath(addr)) => diags.push(
            Diagnostic::error(
                "Invalid module source address",
                format!("{PRODUCT} failed to determine your intended installation method for remote module package {}.\n\nIf you intended this as a path relative to the current module, use \"./{addr}\" instead. The \"./\" prefix indicates that the address is a relative filesystem path.", quote(&addr)),
            )
            .with_subject(attr.range.clone()),
        ),
        Err(e) if has_version => diags.push(
            Diagnostic::error(
                "Invalid registry module source address",
                format!("Failed to parse module registry address: {e}.\n\n{PRODUCT} assumed that you intended a module registry source address because you also set the argument \"version\", which applies only to registry modules."),
            )
            .with_subject(attr.range.clone()),
        ),
        Err(e) => diags.push(
            Diagnostic::error(
                "Invalid module source address",
                format!("Failed to parse module source address: {e}."),
            )
            .with_subject(attr.range.clone()),
        ),
    }
    (m, diags)
}

/// Loads each run block's alternate module: local paths relative to the
/// module under test, others from the module manifest under the key
/// `test.<file path>.<run>`, as `init` installs them.
fn load_run_modules(dir: &Path, file: &mut TestFile, options: &LoadOptions) -> Diagnostics {
    let mut diags = Vec::new();
    let stem = file
        .name
        .strip_suffix(".tftest.hcl")
        .or_else(|| file.name.strip_suffix(".tofutest.hcl"))
        .or_else(|| file.name.strip_suffix(".tftest.json"))
        .or_else(|| file.name.strip_suffix(".tofutest.json"))
        .unwrap_or(&file.name)
        .replace('/', ".");
    let mut manifest = None;
    for run in &mut file.runs {
        let Some(module) = &run.module else { continue };
        let Some(source) = &module.source else {
            continue;
        };
        let module_dir = match source {
            ModuleSource::Local(rel) => join_clean(dir, rel),
            _ => {
                let records = manifest.get_or_insert_with(|| {
                    let (m, d) = read_module_manifest(dir);
                    diags.extend(d);
                    m
                });
                let key = format!("test.{stem}.{}", run.name);
                match records.get(&key) {
                    Some(r) => join_clean(dir, &r.dir),
                    None => {
                        diags.push(
                            Diagnostic::error(
                                "Module not installed",
                                format!("This module is not yet installed. Run \"{PRODUCT} init\" to install all modules required by this configuration."),
                            )
                            .with_subject(module.decl_range.clone()),
                        );
                        continue;
                    }
                }
            }
        };
        let (config, d) = load_config(&module_dir, options);
        diags.extend(d);
        run.config_under_test = Some(config);
    }
    diags
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(text: &str) -> (TestFile, Diagnostics) {
        let (file, diags) = terrace_syntax::parse_file("a.tftest.hcl", text);
        assert!(diags.is_empty(), "{diags:?}");
        decode_test_file(&Body::from_file(&file), "a.tftest.hcl")
    }

    #[test]
    fn runs_providers_and_modules() {
        let (file, diags) = decode(
            "provider \"aws\" {\n  alias = \"x\"\n}\nmock_provider \"aws\" {}\nvariables {\n  a = 1\n}\nrun \"one\" {\n  command = plan\n  providers = {\n    aws = aws.x\n  }\n  module {\n    source = \"./setup\"\n  }\n  assert {\n    condition = true\n    error_message = \"x\"\n  }\n}\n",
        );
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(file.providers.keys().collect::<Vec<_>>(), ["aws", "aws.x"]);
        assert_eq!(file.mocked.iter().collect::<Vec<_>>(), ["aws"]);
        let run = &file.runs[0];
        assert_eq!(run.name, "one");
        assert_eq!(run.providers[0].in_parent.to_string(), "aws.x");
        let source = run.module.as_ref().and_then(|m| m.source.as_ref());
        assert_eq!(source.map(|s| s.to_string()).as_deref(), Some("./setup"));
    }

    #[test]
    fn module_block_needs_a_source() {
        let (file, diags) = decode("run \"one\" {\n  module {\n  }\n}\n");
        assert!(file.runs.is_empty());
        assert_eq!(diags.len(), 1);
        assert_eq!(
            diags[0].summary,
            "Missing \"source\" attribute for module block"
        );
    }

    #[test]
    fn tofutest_files_replace_tftest_files() {
        let dir = std::env::temp_dir().join(format!("terrace-testfile-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::create_dir_all(&dir);
        for name in [
            "a.tftest.hcl",
            "a.tofutest.hcl",
            "b.tftest.json",
            "c.tf",
            ".d.tftest.hcl",
        ] {
            let _ = std::fs::write(dir.join(name), "");
        }
        let names = test_file_names(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(names, ["a.tofutest.hcl", "b.tftest.json"]);
    }
}
