//! Driving a provider in-process from its own tests, the way Terraform
//! would over the protocol: validate and configure it, then plan, apply,
//! read and import resources and read data sources, with the proposed new
//! state built as Terraform builds it (configuration, with prior values for
//! computed attributes the configuration leaves unset).

use crate::provider::SdkProvider;
use crate::resource::ProviderSpec;
use crate::values::attributes_of;
use std::collections::BTreeMap;
use terrace_providers::*;
use terrace_value::{Type, Value};

pub struct Tester<C> {
    provider: SdkProvider<C>,
}

impl<C: Send + Sync + 'static> Tester<C> {
    /// Validates and configures the provider with the given configuration
    /// attributes (the rest null).
    pub fn new(
        spec: ProviderSpec<C>,
        config: Vec<(&str, Value)>,
    ) -> Result<Tester<C>, Diagnostics> {
        let provider = SdkProvider::new(spec);
        let ty = provider
            .get_provider_schema()
            .schema
            .provider
            .implied_type();
        let config = object(&ty, config);
        let validated = provider.validate_provider_config(ValidateProviderConfigRequest {
            config: config.clone(),
        });
        if validated.diagnostics.has_errors() {
            return Err(validated.diagnostics);
        }
        let configured = provider.configure_provider(ConfigureProviderRequest {
            terraform_version: "1.11.4".into(),
            config,
            client_capabilities: ClientCapabilities::default(),
        });
        if configured.diagnostics.has_errors() {
            return Err(configured.diagnostics);
        }
        Ok(Tester { provider })
    }

    pub fn provider(&self) -> &SdkProvider<C> {
        &self.provider
    }

    /// The object type of a resource type.
    pub fn resource_type(&self, type_name: &str) -> Type {
        self.provider
            .get_provider_schema()
            .schema
            .resource_types
            .get(type_name)
            .map(|s| s.implied_type())
            .unwrap_or(Type::Dynamic)
    }

    pub fn data_source_type(&self, type_name: &str) -> Type {
        self.provider
            .get_provider_schema()
            .schema
            .data_sources
            .get(type_name)
            .map(|s| s.implied_type())
            .unwrap_or(Type::Dynamic)
    }

    /// A configuration of a resource type with the given attributes set.
    pub fn config(&self, type_name: &str, entries: Vec<(&str, Value)>) -> Value {
        object(&self.resource_type(type_name), entries)
    }

    pub fn validate(&self, type_name: &str, config: &Value) -> Diagnostics {
        self.provider
            .validate_resource_config(ValidateResourceConfigRequest {
                type_name: type_name.into(),
                config: config.clone(),
                client_capabilities: ClientCapabilities::default(),
            })
            .diagnostics
    }

    pub fn plan(
        &self,
        type_name: &str,
        prior: &Value,
        config: &Value,
    ) -> PlanResourceChangeResponse {
        let schema = self.provider.get_provider_schema().schema;
        let proposed = match schema.resource_types.get(type_name) {
            Some(schema) => proposed_new_state(&schema.block, prior, config),
            None => config.clone(),
        };
        self.provider
            .plan_resource_change(PlanResourceChangeRequest {
                type_name: type_name.into(),
                prior_state: prior.clone(),
                proposed_new_state: proposed,
                config: config.clone(),
                prior_private: Vec::new(),
                provider_meta: None,
                client_capabilities: ClientCapabilities::default(),
            })
    }

    /// Validates, plans and applies `config` over `prior` (null to create;
    /// a null `config` destroys), returning the new state or every
    /// diagnostic that stopped it.
    pub fn apply(
        &self,
        type_name: &str,
        prior: &Value,
        config: &Value,
    ) -> Result<Value, Diagnostics> {
        if !config.is_null() {
            let diagnostics = self.validate(type_name, config);
            if diagnostics.has_errors() {
                return Err(diagnostics);
            }
        }
        let plan = self.plan(type_name, prior, config);
        if plan.diagnostics.has_errors() {
            return Err(plan.diagnostics);
        }
        let applied = self
            .provider
            .apply_resource_change(ApplyResourceChangeRequest {
                type_name: type_name.into(),
                prior_state: prior.clone(),
                planned_state: plan.planned_state,
                config: config.clone(),
                planned_private: plan.planned_private,
                provider_meta: None,
            });
        if applied.diagnostics.has_errors() {
            return Err(applied.diagnostics);
        }
        Ok(applied.new_state)
    }

    pub fn read(&self, type_name: &str, state: &Value) -> ReadResourceResponse {
        self.provider.read_resource(ReadResourceRequest {
            type_name: type_name.into(),
            prior_state: state.clone(),
            private: Vec::new(),
            provider_meta: None,
            client_capabilities: ClientCapabilities::default(),
        })
    }

    /// Imports by identifier and reads the result, as `terraform import`.
    pub fn import(&self, type_name: &str, id: &str) -> Result<Value, Diagnostics> {
        let imported = self
            .provider
            .import_resource_state(ImportResourceStateRequest {
                type_name: type_name.into(),
                id: id.into(),
                client_capabilities: ClientCapabilities::default(),
            });
        if imported.diagnostics.has_errors() {
            return Err(imported.diagnostics);
        }
        let Some(resource) = imported.imported_resources.into_iter().next() else {
            return Err(Diagnostic::error("Nothing imported", "").into());
        };
        let read = self.read(type_name, &resource.state);
        if read.diagnostics.has_errors() {
            return Err(read.diagnostics);
        }
        Ok(read.new_state)
    }

    pub fn read_data_source(
        &self,
        type_name: &str,
        entries: Vec<(&str, Value)>,
    ) -> Result<Value, Diagnostics> {
        let config = object(&self.data_source_type(type_name), entries);
        let validated =
            self.provider
                .validate_data_resource_config(ValidateDataResourceConfigRequest {
                    type_name: type_name.into(),
                    config: config.clone(),
                });
        if validated.diagnostics.has_errors() {
            return Err(validated.diagnostics);
        }
        let read = self.provider.read_data_source(ReadDataSourceRequest {
            type_name: type_name.into(),
            config,
            provider_meta: None,
            client_capabilities: ClientCapabilities::default(),
        });
        if read.diagnostics.has_errors() {
            return Err(read.diagnostics);
        }
        Ok(read.state)
    }
}

/// An object of type `ty` with the given attributes, the rest null.
pub fn object(ty: &Type, entries: Vec<(&str, Value)>) -> Value {
    let mut attributes = attributes_of(&Value::null(ty.clone()), ty);
    for (name, value) in entries {
        attributes.insert(name.to_string(), value);
    }
    Value::object(attributes)
}

/// One attribute of an object value (null when absent).
pub fn attr(value: &Value, name: &str) -> Value {
    crate::values::get_attr(value, name)
}

/// A map of strings.
pub fn string_map(entries: &[(&str, &str)]) -> Value {
    Value::map(
        Type::String,
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), Value::string(v)))
            .collect::<BTreeMap<_, _>>(),
    )
}

/// Terraform's proposed new state, for top-level attributes: what the
/// configuration says, and the prior value where a computed attribute is
/// left unset. Nested blocks are taken from the configuration.
fn proposed_new_state(block: &Block, prior: &Value, config: &Value) -> Value {
    if config.is_null() || prior.is_null() {
        return config.clone();
    }
    let mut attributes = attributes_of(config, config.ty());
    for (name, attribute) in &block.attributes {
        if attribute.computed && attributes.get(name).is_some_and(Value::is_null) {
            attributes.insert(name.clone(), crate::values::get_attr(prior, name));
        }
    }
    Value::object(attributes)
}
