//! Schemas through the cache.
//!
//! [`load_schema`] is for callers that only need the schema (`providers
//! schema`, validation): an entry whose schema says
//! `get_provider_schema_optional` is used without starting the provider
//! at all; otherwise the provider is started, asked, and stopped, and the
//! answer stored when the provider allows caching it.
//!
//! [`launch`] is for callers that need the provider running: when such an
//! entry exists, the plugin client is handed the cached schema and
//! `GetProviderSchema` never reaches the plugin; otherwise the schema is
//! fetched at once (every use needs it) and stored when allowed.
//!
//! The capability is taken from the entry, which was made from this very
//! executable, not from `GetMetadata`: hashicorp/aws 5.100.0 (built with
//! terraform-plugin-mux) answers `GetMetadata`, but a `CallFunction` after
//! it then fails with "Invalid Provider Server Combination: ... Duplicate
//! resource type" for every type, unless `GetProviderSchema` came first.
//! Terraform does not call `GetMetadata` either.

use crate::digest::Digest;
use crate::store::SchemaCache;
use std::sync::Arc;
use terrace_plugin::{LaunchConfig, PluginProvider};
use terrace_providers::{Diagnostic, Diagnostics, Provider, ProviderSchema};

/// Where a schema came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchemaSource {
    /// The cache: `GetProviderSchema` was not called.
    Cache,
    /// The provider, through `GetProviderSchema`.
    Provider,
}

#[derive(Clone, Debug)]
pub struct LoadedSchema {
    pub schema: Arc<ProviderSchema>,
    pub source: SchemaSource,
    /// The executable's digest; `None` when it could not be read (then
    /// nothing was looked up or stored).
    pub digest: Option<Digest>,
}

/// The schema of the provider `config` would launch, from the cache when
/// the cached schema allows it, else from the provider (then stored).
/// Errors are the provider's diagnostics or why it could not start.
pub fn load_schema(cache: &SchemaCache, config: LaunchConfig) -> Result<LoadedSchema, Diagnostics> {
    let digest = cache.executable_digest(&config.executable).ok();
    if let Some(digest) = &digest {
        if let Some(schema) = cache.get(digest) {
            if schema.server_capabilities.get_provider_schema_optional {
                return Ok(LoadedSchema {
                    schema: Arc::new(schema),
                    source: SchemaSource::Cache,
                    digest: Some(*digest),
                });
            }
        }
    }
    let name = config.provider.clone();
    let provider = PluginProvider::launch(config).map_err(|e| launch_failed(&name, &e))?;
    let response = provider.get_provider_schema();
    provider.close();
    if response.diagnostics.has_errors() {
        return Err(response.diagnostics);
    }
    store(cache, digest.as_ref(), &response.schema);
    Ok(LoadedSchema {
        schema: response.schema,
        source: SchemaSource::Provider,
        digest,
    })
}

/// Starts the provider `config` describes, with its schema already in
/// place: from the cache when the entry for its executable allows it,
/// else fetched now and stored when allowed. Fails when the provider does
/// not start or cannot describe itself.
pub fn launch(
    cache: &SchemaCache,
    config: LaunchConfig,
) -> Result<(PluginProvider, SchemaSource), Diagnostics> {
    let digest = cache.executable_digest(&config.executable).ok();
    let cached = digest
        .as_ref()
        .and_then(|d| cache.get(d))
        .filter(|schema| schema.server_capabilities.get_provider_schema_optional);
    let name = config.provider.clone();
    let provider = PluginProvider::launch(config).map_err(|e| launch_failed(&name, &e))?;
    if let Some(schema) = cached {
        if provider.use_cached_schema(Arc::new(schema)) {
            return Ok((provider, SchemaSource::Cache));
        }
    }
    let response = provider.get_provider_schema();
    if response.diagnostics.has_errors() {
        provider.close();
        return Err(response.diagnostics);
    }
    store(cache, digest.as_ref(), &response.schema);
    Ok((provider, SchemaSource::Provider))
}

/// Stores a freshly fetched schema when the provider allows its reuse.
fn store(cache: &SchemaCache, digest: Option<&Digest>, schema: &ProviderSchema) {
    if let Some(digest) = digest {
        if schema.server_capabilities.get_provider_schema_optional {
            // A cache that cannot be written only costs time.
            let _ = cache.put(digest, schema);
        }
    }
}

fn launch_failed(provider: &str, error: &terrace_plugin::PluginError) -> Diagnostics {
    Diagnostic::error(
        "Failed to load plugin schemas",
        format!(
            "Error while loading schemas for plugin components: Failed to obtain provider \
             schema: Could not load the schema for provider {provider}: {error}."
        ),
    )
    .into()
}
