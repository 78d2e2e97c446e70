//! The tfplugin5 and tfplugin6 `Provider` services: decode each request's
//! values against the provider's schema, call the `Provider` trait
//! (synchronous code: on a blocking thread, or on the server's own thread
//! for a provider whose calls never wait; see `CallThreads`), and encode
//! the answer.
//! The two protocol versions share their code (`common.rs`, compiled once
//! per version, as in terrace-plugin's clients); `v5.rs` and `v6.rs` hold
//! what differs: method names, protocol 5's prepared configuration, and
//! protocol 6's nested attribute types.

pub(crate) mod v5;
pub(crate) mod v6;

use crate::serve::CallThreads;
use std::collections::BTreeMap;
use terrace_providers::ProviderSchema;
use terrace_value::Type;

/// The implied type of every schema, computed once: each request needs
/// one, and building it walks the whole schema.
pub(crate) struct Types {
    pub provider: Type,
    pub resources: BTreeMap<String, Type>,
    pub data_sources: BTreeMap<String, Type>,
    pub ephemeral: BTreeMap<String, Type>,
}

impl Types {
    pub(crate) fn new(schema: &ProviderSchema) -> Types {
        Types {
            provider: schema.provider.implied_type(),
            resources: schema
                .resource_types
                .iter()
                .map(|(name, schema)| (name.clone(), schema.implied_type()))
                .collect(),
            data_sources: schema
                .data_sources
                .iter()
                .map(|(name, schema)| (name.clone(), schema.implied_type()))
                .collect(),
            ephemeral: schema
                .ephemeral_resources
                .iter()
                .map(|(name, schema)| (name.clone(), schema.implied_type()))
                .collect(),
        }
    }
}

/// Runs provider code where `calls` says. A panic in it becomes an
/// internal error for this call alone; the server goes on.
pub(crate) async fn provider_call<T: Send + 'static>(
    calls: CallThreads,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, tonic::Status> {
    let failed = |e: &dyn std::fmt::Display| {
        tonic::Status::internal(format!("the provider failed while handling the call: {e}"))
    };
    match calls {
        CallThreads::Blocking => tokio::task::spawn_blocking(f).await.map_err(|e| failed(&e)),
        CallThreads::Server => std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
            .map_err(|panic| failed(&panic_text(panic.as_ref()))),
    }
}

/// What a panic said.
fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    let message = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str));
    match message {
        Some(message) => format!("it panicked with message {message:?}"),
        None => "it panicked".to_string(),
    }
}
