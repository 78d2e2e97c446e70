//! terrace-config: loading a configuration's module tree from disk,
//! decoding every block with OpenTofu's schemas and diagnostics, and the
//! static evaluation of input variables and local values that loading
//! needs (module sources, provider `for_each`).

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod body;
pub mod decode;
pub mod expr;
pub mod files;
pub mod hcldec;
pub mod input_variables;
pub mod loader;
pub mod model;
pub mod module;
pub mod module_source;
pub mod provider_resolution;
pub mod provider_validation;
pub mod static_eval;
pub mod testfile;
pub mod validation;
pub mod version;

/// The OpenTofu language version terrace implements, for `language {
/// compatible_with { opentofu = ... } }` and `required_version` in `.tofu`
/// files.
pub const OPENTOFU_LANGUAGE_VERSION: &str = "1.13.0";
