//! terrace-sdk: write Terraform providers in Rust.
//!
//! A provider is declared as data — `ProviderSpec` with its configuration
//! schema and `configure` step, `ResourceSpec`s (schema, create, read,
//! update, delete, import, timeouts, schema versions with state
//! upgraders), `DataSourceSpec`s and `Function`s — and checked with
//! `ProviderSpec::internal_validate`. `SdkProvider` runs it behind
//! terrace's `Provider` trait, planning as Terraform expects (unknown
//! computed values, `requires_replace`, defaults, partial state after a
//! failed update, objects vanishing on read). `serve` speaks the real
//! plugin protocol: go-plugin's handshake with AutoMTLS on a unix socket,
//! its controller, health, stdio and broker services, and tfplugin6 and
//! tfplugin5, so the same binary works with Terraform, OpenTofu and
//! terrace.

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod data;
mod error;
mod grpc;
mod internal_validate;
mod mtls;
mod plan;
mod provider;
mod replace;
mod resource;
mod schema;
mod serve;
pub mod testing;
pub mod timeouts;
mod upgrade;
mod validate;
pub mod validators;
mod values;

/// The protocol's generated code, shared with the plugin client.
pub(crate) use terrace_protocol as proto;

pub use data::ResourceData;
pub use error::{Error, Result};
pub use internal_validate::InternalValidateError;
pub use provider::SdkProvider;
pub use replace::map_values_not_null_changed;
pub use resource::{
    ConfigCheck, Configure, Crud, DataSourceSpec, EphemeralClose, EphemeralResourceSpec, Function,
    FunctionImpl, Importer, PlanData, PlanHook, ProviderSpec, ResourceSpec, StateUpgrader,
    Timeouts, TIMEOUTS_BLOCK,
};
pub use schema::{Attr, BlockSpec, NestedBlockSpec};
pub use serve::{
    negotiate, serve, serve_provider, CallThreads, ServeOptions, Server, CORE_PROTOCOL_VERSION,
    MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, PROTOCOL_VERSIONS,
};
pub use timeouts::{Context, Retry};
pub use values::unknown_as_null;

/// Re-exported so that providers need no direct dependency on them.
pub use terrace_providers;
pub use terrace_value;
pub use terrace_value::{Type, Value};
