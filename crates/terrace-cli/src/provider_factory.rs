//! How the engine gets providers from the command line's point of view:
//! the built-in `terraform` provider in process, every other provider as a
//! plugin process whose executable was found once per command (development
//! overrides, the lock file's version in `.terraform/providers`, filesystem
//! mirrors).
//!
//! Schemas come from the schema cache when a provider allows it. When a
//! schema has to be asked of a plugin, the process that answered is kept
//! and handed out by the next `start`, so a provider used once is started
//! once. So is the unconfigured process validation gives back: planning
//! configures it instead of starting another (for the AWS provider, a
//! second of start-up and more to build its schema inside the process).
//! At most one process per provider waits so, whatever number of
//! configurations validation went through.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use terrace_addrs::Provider as ProviderAddr;
use terrace_engine::ProviderFactory;
use terrace_plugin::LaunchConfig;
use terrace_providers::{Provider, ProviderSchema};
use terrace_schemacache::SchemaCache;
use terrace_syntax::{Diagnostic, Diagnostics};

pub struct CliProviderFactory {
    executables: HashMap<ProviderAddr, PathBuf>,
    working_dir: PathBuf,
    cache: SchemaCache,
    schemas: Mutex<HashMap<ProviderAddr, Arc<ProviderSchema>>>,
    /// Plugin processes started to answer a schema request and not yet
    /// handed out.
    idle: Mutex<HashMap<ProviderAddr, Arc<dyn Provider>>>,
    /// How the built-in `terraform_remote_state` decrypts what it reads.
    remote_state_codec: terrace_states::encryption::StateCodec,
}

impl CliProviderFactory {
    pub fn new(
        executables: Vec<(ProviderAddr, PathBuf)>,
        working_dir: &Path,
    ) -> CliProviderFactory {
        CliProviderFactory {
            executables: executables.into_iter().collect(),
            working_dir: working_dir.to_path_buf(),
            cache: SchemaCache::from_env(),
            schemas: Mutex::new(HashMap::new()),
            idle: Mutex::new(HashMap::new()),
            remote_state_codec: terrace_states::encryption::StateCodec::disabled(),
        }
    }

    /// `terraform_remote_state` decrypts the states it reads as `codec`
    /// says.
    pub fn with_remote_state_encryption(
        mut self,
        codec: terrace_states::encryption::StateCodec,
    ) -> CliProviderFactory {
        self.remote_state_codec = codec;
        self
    }

    fn executable(&self, provider: &ProviderAddr) -> Result<&PathBuf, Diagnostics> {
        self.executables.get(provider).ok_or_else(|| {
            vec![Diagnostic::error(
                "Missing required provider",
                format!(
                    "This configuration requires provider {provider}, but that provider isn't \
                     available. You may be able to install it automatically by running:\n  \
                     terrace init"
                ),
            )]
        })
    }

    fn launch_config(&self, provider: &ProviderAddr) -> Result<LaunchConfig, Diagnostics> {
        let executable = self.executable(provider)?;
        Ok(LaunchConfig::new(provider.to_string(), executable.clone()))
    }

    /// Keeps an unconfigured process for the next `start`, unless one is
    /// waiting already: that one is kept and this one closed.
    fn park(&self, provider: &ProviderAddr, instance: Arc<dyn Provider>) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.contains_key(provider) {
            drop(idle);
            let _ = instance.close();
        } else {
            idle.insert(provider.clone(), instance);
        }
    }

    fn builtin(&self) -> terrace_builtin::TerraformProvider {
        terrace_builtin::TerraformProvider::new(self.working_dir.clone())
            .with_remote_state_encryption(self.remote_state_codec.clone())
    }
}

impl ProviderFactory for CliProviderFactory {
    fn schema(&self, provider: &ProviderAddr) -> Result<Arc<ProviderSchema>, Diagnostics> {
        if let Some(schema) = self
            .schemas
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(provider)
        {
            return Ok(schema.clone());
        }
        let schema = if provider.is_builtin() {
            let response = self.builtin().get_provider_schema();
            if response.diagnostics.has_errors() {
                return Err(provider_diagnostics(response.diagnostics));
            }
            response.schema
        } else {
            let executable = self.executable(provider)?;
            let cached = self
                .cache
                .executable_digest(executable)
                .ok()
                .and_then(|digest| self.cache.get(&digest))
                .filter(|schema| schema.server_capabilities.get_provider_schema_optional);
            match cached {
                Some(schema) => Arc::new(schema),
                None => {
                    // The provider has to be asked; keep the process that
                    // answered for the first `start` rather than starting
                    // another.
                    tracing::debug!(provider = %provider, "starting provider plugin");
                    let (running, _) =
                        terrace_schemacache::launch(&self.cache, self.launch_config(provider)?)
                            .map_err(provider_diagnostics)?;
                    let response = running.get_provider_schema();
                    if response.diagnostics.has_errors() {
                        running.close();
                        return Err(provider_diagnostics(response.diagnostics));
                    }
                    self.park(provider, Arc::new(running));
                    response.schema
                }
            }
        };
        self.schemas
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(provider.clone(), schema.clone());
        Ok(schema)
    }

    fn start(&self, provider: &ProviderAddr) -> Result<Arc<dyn Provider>, Diagnostics> {
        if provider.is_builtin() {
            return Ok(Arc::new(self.builtin()));
        }
        let parked = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(provider);
        if let Some(running) = parked {
            return Ok(running);
        }
        let config = self.launch_config(provider)?;
        tracing::debug!(provider = %provider, "starting provider plugin");
        let (running, _) =
            terrace_schemacache::launch(&self.cache, config).map_err(provider_diagnostics)?;
        tracing::debug!(provider = %provider, "provider plugin started");
        Ok(Arc::new(running))
    }

    fn release(&self, provider: &ProviderAddr, instance: Arc<dyn Provider>) {
        if provider.is_builtin() {
            let _ = instance.close();
        } else {
            self.park(provider, instance);
        }
    }
}

impl Drop for CliProviderFactory {
    fn drop(&mut self) {
        for (_, parked) in self
            .idle
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .drain()
        {
            let _ = parked.close();
        }
    }
}

fn provider_diagnostics(diags: terrace_providers::Diagnostics) -> Diagnostics {
    diags
        .0
        .into_iter()
        .map(crate::commands::providers_schema::provider_diagnostic)
        .collect()
}
