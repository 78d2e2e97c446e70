//! terrace-providers: how the engine sees providers, independent of how
//! they run. It owns the `Provider` trait and its request and response
//! types (`provider`), the schema model with each schema's implied cty type
//! (`schema`), and diagnostics that point at attributes (`diagnostics`).
//!
//! Nothing here knows about processes, gRPC or wire encodings: plugin
//! processes are adapted to the trait by `terrace-plugin`, and providers
//! built into terrace implement it directly.

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod diagnostics;
pub mod objchange;
pub mod provider;
pub mod schema;

pub use diagnostics::{AttributePath, Diagnostic, Diagnostics, PathStep, Severity};
pub use provider::*;
pub use schema::{
    Attribute, AttributeType, Block, FunctionParameter, FunctionSpec, NestedAttributes,
    NestedBlock, NestingMode, ObjectNesting, ProviderSchema, Schema, ServerCapabilities,
    StringKind,
};
