//! terrace-states: the state a run starts from and leaves behind.
//!
//! - [`model`]: the in-memory [`State`] keyed by address, with the
//!   accessors the engine needs (get/set an instance object, depose,
//!   drop empty resources, compare content to decide on a new serial).
//! - [`statefile`]: the state file format version 4, read and written
//!   byte-for-byte as Terraform 1.11 and OpenTofu write it, including
//!   per-instance provider addresses (`provider["..."].name["key"]`).
//! - [`backend`]: where states live; the local backend (files in the
//!   working directory, workspaces, locking, backups, atomic writes).

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod backend;
pub mod checks;
pub mod encryption;
mod flatmap;
pub mod model;
pub mod statefile;

pub use checks::{CheckResults, CheckStatus, CheckableKind, ConfigCheckResult, ObjectCheckResult};
pub use model::{
    new_lineage, AttrsJson, DeposedKey, EachMode, InstanceState, ObjectState, ObjectStatus,
    OutputState, ResourceState, SensitivePath, State, TERRAFORM_VERSION,
};
