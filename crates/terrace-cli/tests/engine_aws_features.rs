//! Provider features with the real AWS provider against `moto_server`,
//! in one test binary so that their tests run side by side (each spends
//! most of its time starting provider processes): ephemeral resources
//! beside terraform, deferred provider expansion, and collections of
//! provider instances passed to modules.

mod engine_support;

#[path = "aws_features/deferred_expansion.rs"]
mod deferred_expansion;
#[path = "aws_features/ephemeral_resources.rs"]
mod ephemeral_resources;
#[path = "aws_features/provider_collections.rs"]
mod provider_collections;
