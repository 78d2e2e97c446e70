//! terrace-getmodules: installing a configuration's modules as `terraform
//! init` does. Every `module` call of the root module and, recursively, of
//! the modules it installs is resolved: local paths are used where they
//! are (only recorded), registry modules are chosen by version through the
//! module registry protocol and fetched from the location the registry
//! gives, and remote packages (`git::`, `https://`, `github.com/...`,
//! `file://`) are fetched with the rules of go-getter, the library
//! Terraform uses. The result is recorded in `.terraform/modules/modules.json`
//! byte for byte as Terraform writes it.
//!
//! It is a crate of its own rather than part of `terrace-getproviders`
//! because it needs the configuration loader (`terrace-config`) to walk the
//! module tree, which the provider crate must not depend on; it uses the
//! provider crate's HTTP client and service discovery.

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod address;
pub mod archive;
pub mod fetch;
mod fsutil;
pub mod install;
pub mod manifest;
pub mod registry;
pub mod remote;
#[cfg(test)]
mod testutil;

pub use install::{ModuleInstallHooks, ModuleInstaller, NoHooks};
pub use manifest::{Manifest, Record};

/// The product name in messages that name the tool itself.
pub const PRODUCT: &str = terrace_getproviders::PRODUCT;
