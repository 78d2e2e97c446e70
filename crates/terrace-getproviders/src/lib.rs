//! terrace-getproviders: everything `terrace init` needs to choose, fetch
//! and record provider packages, with Terraform's and OpenTofu's rules and
//! texts: versions and version constraints (`version`, `constraints`), the
//! dependency lock file (`lockfile`), package checksums (`hash`), the CLI
//! configuration's installation methods (`cliconfig`), where packages come
//! from (`source`) and how they are laid out in `.terraform/providers`
//! (`installer`).

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod auth;
pub mod cliconfig;
pub mod constraints;
pub mod credentials_helper;
mod fsutil;
pub use fsutil::fresh_temp_dir;
pub mod goerr;
pub mod hash;
mod hcl1;
mod hclbody;
pub mod installer;
pub mod lockfile;
pub mod openpgp;
pub mod registry;
mod scan;
pub mod source;
#[cfg(test)]
mod testutil;
pub mod version;
pub mod zip;

pub use constraints::{ConstraintsParseError, Selection, SelectionOp, VersionConstraints};
pub use version::{Version, VersionParseError};

/// The product name in messages that name the tool itself (OpenTofu's say
/// "OpenTofu", Terraform's "Terraform").
pub use terrace_syntax::PRODUCT;
