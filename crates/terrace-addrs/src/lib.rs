//! terrace-addrs: every address terrace names things by, parsed and
//! printed exactly as OpenTofu does: provider FQNs (`provider`), local and
//! absolute provider configurations and their instances
//! (`provider_config`), instance keys, module paths and calls, resources
//! and resource instances, named values, and `-target` addresses.
//!
//! Parsing goes through terrace-syntax's traversal parser, as OpenTofu goes
//! through hclsyntax; every parser takes a traversal and its file (so
//! diagnostics point into it) and has a `parse_str` twin for text such as
//! command-line arguments and state files. Errors are diagnostics with
//! OpenTofu's summary and detail.
//!
//! Every address is `Hash + Eq + Ord`, to key the engine's maps, with
//! OpenTofu's sort order where OpenTofu defines one. Names are `Arc<str>`
//! and paths `Arc<[…]>`, so cloning an address (which keying maps does
//! constantly) copies a few pointers and never a string; addresses are
//! built once, at parse or expansion time, and never mutated.
//!
//! OpenTofu name → terrace:
//! `ParseProviderSourceString` → [`Provider::parse_source_str`],
//! `ParseProviderPart` → [`parse_provider_part`],
//! `ParseAbsProviderConfig[Str]` → [`AbsProviderConfig::parse`]/`parse_str`,
//! `ParseAbsProviderConfigInstance[Str]` → [`AbsProviderInstance::parse`]/`parse_str`,
//! `ParseLegacyAbsProviderConfig[Str]` → [`AbsProviderConfig::parse_legacy`]/`parse_legacy_str`,
//! `ParseProviderConfigCompact[Str]` → [`LocalProviderConfig::parse_compact`]/`parse_compact_str`,
//! `ParseModule[Str]` → [`Module::parse`]/`parse_str`,
//! `ParseModuleInstance[Str]` → [`ModuleInstance::parse`]/`parse_str`,
//! `ParseConfigResource` → [`ConfigResource::parse`],
//! `ParseTarget[Str]` → [`Target::parse`]/`parse_str`,
//! `ParseAbsResource[Str]` → [`AbsResource::parse`]/`parse_str`,
//! `ParseAbsResourceInstance[Str]` → [`AbsResourceInstance::parse`]/`parse_str`,
//! `ParseAbsOutputValue[Str]` → [`AbsOutputValue::parse`]/`parse_str`,
//! `ParseInstanceKey` → [`InstanceKey::from_value`].

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod instance_key;
mod module;
mod named_values;
mod parse;
pub mod provider;
mod provider_config;
mod resource;
mod target;

pub use instance_key::{hcl_quote, InstanceKey, InvalidInstanceKey};
pub use module::{
    AbsModuleCall, Module, ModuleCall, ModuleCallInstance, ModuleCallInstanceOutput,
    ModuleInstance, ModuleInstanceStep,
};
pub use named_values::{
    AbsInputVariableInstance, AbsLocalValue, AbsOutputValue, InputVariable, LocalValue, OutputValue,
};
pub use provider::{parse_provider_part, Hostname, InvalidProviderPart, Provider};
pub use provider_config::{AbsProviderConfig, AbsProviderInstance, LocalProviderConfig};
pub use resource::{
    AbsResource, AbsResourceInstance, ConfigResource, Resource, ResourceInstance, ResourceMode,
};
pub use target::{Target, Targetable};

#[cfg(test)]
mod tests;
