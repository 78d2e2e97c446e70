//! Everything that can be checked about a configuration without any
//! provider: loading the module tree (and its test files), then, when that
//! found no errors, the provider configuration rules and provider
//! requirements, as OpenTofu's `BuildConfig` and `ProviderRequirements`
//! do. `terrace validate` and the scenario tests run exactly this.

use crate::loader::{load_config, Config, LoadOptions};
use crate::provider_validation::{
    provider_requirements, validate_provider_configs, validate_test_provider_configs,
    ProviderRequirements,
};
use crate::testfile::{load_test_files, TestFile};
use std::path::Path;
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::Diagnostics;

/// A loaded and checked configuration.
pub struct Validated {
    pub config: Config,
    pub tests: Vec<TestFile>,
    pub requirements: ProviderRequirements,
    pub diagnostics: Diagnostics,
}

/// Loads the configuration in `dir` with its test files (those in `dir`
/// and, when `test_dir` is given, in `dir/test_dir`) and checks the
/// provider rules.
pub fn load_and_validate(dir: &Path, options: &LoadOptions, test_dir: Option<&str>) -> Validated {
    let (config, mut diagnostics) = load_config(dir, options);
    let mut tests = Vec::new();
    // As OpenTofu's loader, test files are read only for a root module
    // that loaded cleanly.
    if !has_errors(&diagnostics) {
        if let Some(td) = test_dir {
            let (t, d) = load_test_files(dir, Some(td), options);
            tests = t;
            diagnostics.extend(d);
        }
    }
    let mut requirements = ProviderRequirements::default();
    if !has_errors(&diagnostics) {
        diagnostics.extend(validate_provider_configs(&config));
        diagnostics.extend(validate_test_provider_configs(&config, &tests));
        let (reqs, d) = provider_requirements(&config, &tests);
        requirements = reqs;
        diagnostics.extend(d);
    }
    Validated {
        config,
        tests,
        requirements,
        diagnostics,
    }
}
