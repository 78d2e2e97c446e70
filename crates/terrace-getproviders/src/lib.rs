//! terrace-getproviders: everything `terrace init` needs to choose, fetch
//! and record provider packages, with Terraform's and OpenTofu's rules and
//! texts: versions and version constraints (`version`, `constraints`), the
//! dependency lock file (`lockfile`), package checksums (`hash`), the CLI
//! configuration's installation methods (`cliconfig`), where packages come
//! from (`source`) and how they are laid out in `.terraform/providers`
//! (`installer`).

pub mod constraints;
mod fsutil;
mod goerr;
mod hclbody;
pub mod hash;
pub mod lockfile;
mod scan;
#[cfg(test)]
mod testutil;
pub mod version;
pub mod zip;

pub use constraints::{ConstraintsParseError, Selection, SelectionOp, VersionConstraints};
pub use version::{Version, VersionParseError};

/// The product name in messages that name the tool itself (OpenTofu's say
/// "OpenTofu", Terraform's "Terraform").
pub const PRODUCT: &str = "terrace";
