//! The providers one run block sees: the command's real providers, except
//! for the configurations a `mock_provider` block replaces (a
//! [`MockProvider`] per instance, never a plugin process) and the resources
//! an override replaces (answered from the override's values whatever
//! their provider is).

use crate::mock::{applied_state, data_state, planned_state, MockProvider, MockValues};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use terrace_addrs::{
    AbsProviderConfig, AbsResourceInstance, InstanceKey, Provider as ProviderAddr, ResourceMode,
};
use terrace_engine::ProviderFactory;
use terrace_providers::diagnostics::Diagnostics as ProviderDiagnostics;
use terrace_providers::provider::*;
use terrace_providers::{Provider, ProviderSchema};
use terrace_syntax::Diagnostics;

/// The mock contents of one mocked root provider configuration.
#[derive(Clone, Debug, Default)]
pub struct MockSetup {
    pub resources: BTreeMap<String, MockValues>,
    pub data: BTreeMap<String, MockValues>,
}

/// Values that replace one resource's (or every resource's of a module)
/// provider: keyed by the address as written in the override's `target`.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub by_address: BTreeMap<String, MockValues>,
}

impl Overrides {
    fn find(&self, addr: &AbsResourceInstance) -> Option<&MockValues> {
        if self.by_address.is_empty() {
            return None;
        }
        self.by_address
            .get(&addr.to_string())
            .or_else(|| self.by_address.get(&addr.containing_resource().to_string()))
    }
}

/// The arguments of a test file's (not mocked) provider configurations,
/// evaluated in the test file's scope: by provider and alias, then by
/// instance key.
pub type ConfiguredProviders =
    HashMap<(ProviderAddr, Option<String>), BTreeMap<InstanceKey, terrace_value::Value>>;

pub struct TestProviderFactory {
    pub inner: Arc<dyn ProviderFactory>,
    /// Root module provider configurations replaced by mocks, by provider
    /// and alias.
    pub mocks: HashMap<(ProviderAddr, Option<String>), MockSetup>,
    /// Root module provider configurations replaced by a test file's
    /// `provider` blocks, whose arguments the engine does not evaluate.
    pub configured: ConfiguredProviders,
    pub overrides: Overrides,
    /// Schemas whose provider block asks for nothing, for the providers in
    /// `configured`: the engine decodes their empty bodies against it.
    pub relaxed_schemas: std::sync::Mutex<HashMap<ProviderAddr, Arc<ProviderSchema>>>,
}

/// `block` with every attribute optional and no nested block required.
fn relax(block: &mut terrace_providers::Block) {
    for attribute in block.attributes.values_mut() {
        if attribute.required {
            attribute.required = false;
            attribute.optional = true;
        }
    }
    for nested in block.block_types.values_mut() {
        nested.min_items = 0;
        relax(&mut nested.block);
    }
}

impl ProviderFactory for TestProviderFactory {
    fn schema(&self, provider: &ProviderAddr) -> Result<Arc<ProviderSchema>, Diagnostics> {
        if !self.configured.keys().any(|(p, _)| p == provider) {
            return self.inner.schema(provider);
        }
        let mut relaxed = self
            .relaxed_schemas
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(schema) = relaxed.get(provider) {
            return Ok(schema.clone());
        }
        let mut schema = (*self.inner.schema(provider)?).clone();
        relax(&mut schema.provider.block);
        let schema = Arc::new(schema);
        relaxed.insert(provider.clone(), schema.clone());
        Ok(schema)
    }

    fn start(&self, provider: &ProviderAddr) -> Result<Arc<dyn Provider>, Diagnostics> {
        self.inner.start(provider)
    }

    fn release(&self, provider: &ProviderAddr, instance: Arc<dyn Provider>) {
        self.inner.release(provider, instance)
    }

    fn start_configuration(
        &self,
        config: &AbsProviderConfig,
        key: &InstanceKey,
    ) -> Result<Arc<dyn Provider>, Diagnostics> {
        if config.module.is_root() {
            let alias = config.alias.as_ref().map(|a| a.to_string());
            if let Some(setup) = self.mocks.get(&(config.provider.clone(), alias.clone())) {
                let schema = self.inner.schema(&config.provider)?;
                return Ok(Arc::new(MockProvider::new(
                    schema,
                    setup.resources.clone(),
                    setup.data.clone(),
                )));
            }
            if let Some(arguments) = self
                .configured
                .get(&(config.provider.clone(), alias))
                .and_then(|by_key| by_key.get(key))
            {
                return Ok(Arc::new(TestConfiguredProvider {
                    inner: self.inner.start_configuration(config, key)?,
                    arguments: arguments.clone(),
                }));
            }
        }
        self.inner.start_configuration(config, key)
    }

    fn for_resource(
        &self,
        addr: &AbsResourceInstance,
        provider: Arc<dyn Provider>,
    ) -> Arc<dyn Provider> {
        match self.overrides.find(addr) {
            Some(values) => Arc::new(OverriddenResource {
                inner: provider,
                values: values.clone(),
                mode: addr.resource.resource.mode,
            }),
            None => provider,
        }
    }
}

/// A real provider configured by a test file's `provider` block: it is
/// validated and configured with the block's arguments as the test file's
/// scope gave them, whatever the engine passes for its empty body.
struct TestConfiguredProvider {
    inner: Arc<dyn Provider>,
    arguments: terrace_value::Value,
}

impl Provider for TestConfiguredProvider {
    fn get_metadata(&self) -> GetMetadataResponse {
        self.inner.get_metadata()
    }
    fn get_provider_schema(&self) -> GetProviderSchemaResponse {
        self.inner.get_provider_schema()
    }
    fn validate_provider_config(
        &self,
        _request: ValidateProviderConfigRequest,
    ) -> ValidateProviderConfigResponse {
        self.inner
            .validate_provider_config(ValidateProviderConfigRequest {
                config: self.arguments.clone(),
            })
    }
    fn validate_resource_config(
        &self,
        request: ValidateResourceConfigRequest,
    ) -> ValidateResourceConfigResponse {
        self.inner.validate_resource_config(request)
    }
    fn validate_data_resource_config(
        &self,
        request: ValidateDataResourceConfigRequest,
    ) -> ValidateDataResourceConfigResponse {
        self.inner.validate_data_resource_config(request)
    }
    fn validate_ephemeral_resource_config(
        &self,
        request: ValidateEphemeralResourceConfigRequest,
    ) -> ValidateEphemeralResourceConfigResponse {
        self.inner.validate_ephemeral_resource_config(request)
    }
    fn upgrade_resource_state(
        &self,
        request: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        self.inner.upgrade_resource_state(request)
    }
    fn configure_provider(&self, request: ConfigureProviderRequest) -> ConfigureProviderResponse {
        self.inner.configure_provider(ConfigureProviderRequest {
            config: self.arguments.clone(),
            ..request
        })
    }
    fn read_resource(&self, request: ReadResourceRequest) -> ReadResourceResponse {
        self.inner.read_resource(request)
    }
    fn plan_resource_change(
        &self,
        request: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        self.inner.plan_resource_change(request)
    }
    fn apply_resource_change(
        &self,
        request: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        self.inner.apply_resource_change(request)
    }
    fn import_resource_state(
        &self,
        request: ImportResourceStateRequest,
    ) -> ImportResourceStateResponse {
        self.inner.import_resource_state(request)
    }
    fn move_resource_state(&self, request: MoveResourceStateRequest) -> MoveResourceStateResponse {
        self.inner.move_resource_state(request)
    }
    fn read_data_source(&self, request: ReadDataSourceRequest) -> ReadDataSourceResponse {
        self.inner.read_data_source(request)
    }
    fn open_ephemeral_resource(
        &self,
        request: OpenEphemeralResourceRequest,
    ) -> OpenEphemeralResourceResponse {
        self.inner.open_ephemeral_resource(request)
    }
    fn renew_ephemeral_resource(
        &self,
        request: RenewEphemeralResourceRequest,
    ) -> RenewEphemeralResourceResponse {
        self.inner.renew_ephemeral_resource(request)
    }
    fn close_ephemeral_resource(
        &self,
        request: CloseEphemeralResourceRequest,
    ) -> CloseEphemeralResourceResponse {
        self.inner.close_ephemeral_resource(request)
    }
    fn get_functions(&self) -> GetFunctionsResponse {
        self.inner.get_functions()
    }
    fn call_function(&self, request: CallFunctionRequest) -> CallFunctionResponse {
        self.inner.call_function(request)
    }
    fn stop(&self) -> ProviderDiagnostics {
        self.inner.stop()
    }
    fn close(&self) -> ProviderDiagnostics {
        self.inner.close()
    }
}

/// One overridden resource's provider: planning, applying and reading
/// never reach the real provider.
struct OverriddenResource {
    inner: Arc<dyn Provider>,
    values: MockValues,
    mode: ResourceMode,
}

impl OverriddenResource {
    fn schema(&self) -> Arc<ProviderSchema> {
        self.inner.get_provider_schema().schema
    }
}

impl Provider for OverriddenResource {
    fn get_metadata(&self) -> GetMetadataResponse {
        self.inner.get_metadata()
    }
    fn get_provider_schema(&self) -> GetProviderSchemaResponse {
        self.inner.get_provider_schema()
    }
    fn validate_provider_config(
        &self,
        request: ValidateProviderConfigRequest,
    ) -> ValidateProviderConfigResponse {
        self.inner.validate_provider_config(request)
    }
    fn validate_resource_config(
        &self,
        request: ValidateResourceConfigRequest,
    ) -> ValidateResourceConfigResponse {
        self.inner.validate_resource_config(request)
    }
    fn validate_data_resource_config(
        &self,
        request: ValidateDataResourceConfigRequest,
    ) -> ValidateDataResourceConfigResponse {
        self.inner.validate_data_resource_config(request)
    }
    fn validate_ephemeral_resource_config(
        &self,
        request: ValidateEphemeralResourceConfigRequest,
    ) -> ValidateEphemeralResourceConfigResponse {
        self.inner.validate_ephemeral_resource_config(request)
    }
    fn upgrade_resource_state(
        &self,
        request: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        self.inner.upgrade_resource_state(request)
    }
    fn configure_provider(&self, request: ConfigureProviderRequest) -> ConfigureProviderResponse {
        self.inner.configure_provider(request)
    }
    fn read_resource(&self, request: ReadResourceRequest) -> ReadResourceResponse {
        ReadResourceResponse {
            new_state: request.prior_state,
            private: request.private,
            deferred: None,
            diagnostics: ProviderDiagnostics::new(),
        }
    }
    fn plan_resource_change(
        &self,
        request: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        let schema = self.schema();
        let planned = match schema.resource_types.get(&request.type_name) {
            Some(s) => planned_state(&s.block, &request.proposed_new_state, Some(&self.values)),
            None => request.proposed_new_state,
        };
        PlanResourceChangeResponse {
            planned_state: planned,
            requires_replace: Vec::new(),
            planned_private: request.prior_private,
            legacy_type_system: false,
            deferred: None,
            diagnostics: ProviderDiagnostics::new(),
        }
    }
    fn apply_resource_change(
        &self,
        request: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        let schema = self.schema();
        let state = match schema.resource_types.get(&request.type_name) {
            Some(s) => applied_state(&s.block, &request.planned_state, Some(&self.values)),
            None => request.planned_state,
        };
        ApplyResourceChangeResponse {
            new_state: state,
            private: request.planned_private,
            legacy_type_system: false,
            diagnostics: ProviderDiagnostics::new(),
        }
    }
    fn import_resource_state(
        &self,
        request: ImportResourceStateRequest,
    ) -> ImportResourceStateResponse {
        self.inner.import_resource_state(request)
    }
    fn move_resource_state(&self, request: MoveResourceStateRequest) -> MoveResourceStateResponse {
        self.inner.move_resource_state(request)
    }
    fn read_data_source(&self, request: ReadDataSourceRequest) -> ReadDataSourceResponse {
        if self.mode != ResourceMode::Data {
            return self.inner.read_data_source(request);
        }
        let schema = self.schema();
        let state = match schema.data_sources.get(&request.type_name) {
            Some(s) => data_state(&s.block, &request.config, Some(&self.values)),
            None => request.config,
        };
        ReadDataSourceResponse {
            state,
            deferred: None,
            diagnostics: ProviderDiagnostics::new(),
        }
    }
    fn open_ephemeral_resource(
        &self,
        request: OpenEphemeralResourceRequest,
    ) -> OpenEphemeralResourceResponse {
        self.inner.open_ephemeral_resource(request)
    }
    fn renew_ephemeral_resource(
        &self,
        request: RenewEphemeralResourceRequest,
    ) -> RenewEphemeralResourceResponse {
        self.inner.renew_ephemeral_resource(request)
    }
    fn close_ephemeral_resource(
        &self,
        request: CloseEphemeralResourceRequest,
    ) -> CloseEphemeralResourceResponse {
        self.inner.close_ephemeral_resource(request)
    }
    fn get_functions(&self) -> GetFunctionsResponse {
        self.inner.get_functions()
    }
    fn call_function(&self, request: CallFunctionRequest) -> CallFunctionResponse {
        self.inner.call_function(request)
    }
    fn stop(&self) -> ProviderDiagnostics {
        self.inner.stop()
    }
    fn close(&self) -> ProviderDiagnostics {
        // The resource's configured provider instance is shared and is
        // closed by the engine through its own handle.
        ProviderDiagnostics::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use terrace_addrs::Module;

    /// A factory that knows a schema and counts the providers it starts.
    struct CountingFactory {
        started: AtomicUsize,
    }

    impl ProviderFactory for CountingFactory {
        fn schema(&self, _provider: &ProviderAddr) -> Result<Arc<ProviderSchema>, Diagnostics> {
            Ok(Arc::new(ProviderSchema::default()))
        }

        fn start(&self, provider: &ProviderAddr) -> Result<Arc<dyn Provider>, Diagnostics> {
            self.started.fetch_add(1, Ordering::SeqCst);
            Ok(Arc::new(MockProvider::new(
                self.schema(provider)?,
                BTreeMap::new(),
                BTreeMap::new(),
            )))
        }
    }

    fn aws() -> ProviderAddr {
        ProviderAddr::new_default("aws").unwrap_or_else(|_| unreachable!("a valid type name"))
    }

    #[test]
    fn mocked_configurations_never_start_the_provider() {
        let inner = Arc::new(CountingFactory {
            started: AtomicUsize::new(0),
        });
        let factory = TestProviderFactory {
            inner: inner.clone(),
            mocks: HashMap::from([((aws(), Some("by_region".to_string())), MockSetup::default())]),
            configured: ConfiguredProviders::new(),
            overrides: Overrides::default(),
            relaxed_schemas: std::sync::Mutex::default(),
        };
        let mocked = AbsProviderConfig::new(Module::root(), aws(), Some("by_region".into()));
        for key in ["a", "b"] {
            assert!(factory
                .start_configuration(&mocked, &InstanceKey::string(key))
                .is_ok());
        }
        assert_eq!(inner.started.load(Ordering::SeqCst), 0);
        let real = AbsProviderConfig::new(Module::root(), aws(), None);
        assert!(factory
            .start_configuration(&real, &InstanceKey::None)
            .is_ok());
        assert_eq!(inner.started.load(Ordering::SeqCst), 1);
    }
}
