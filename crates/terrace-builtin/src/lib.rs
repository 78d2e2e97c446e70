//! terrace-builtin: the provider `terraform.io/builtin/terraform` that
//! Terraform has built in, implemented in process behind the same
//! `Provider` trait as plugin providers.
//!
//! It offers the `terraform_data` resource type (`data`), the
//! `terraform_remote_state` data source (`remote_state`, reading states
//! through the local backend) and the functions `encode_tfvars`,
//! `decode_tfvars` and `encode_expr` (`functions`). It has no provider
//! configuration and keeps no state between calls, so one instance may
//! serve every caller.

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod data;
mod functions;
mod outputs;
mod remote_state;
pub mod schema;

use std::path::PathBuf;
use std::sync::Arc;
use terrace_providers::*;
use terrace_value::Value;

/// The provider's source address.
pub const PROVIDER_SOURCE: &str = "terraform.io/builtin/terraform";

pub struct TerraformProvider {
    /// What relative paths in `terraform_remote_state` configurations are
    /// relative to: the directory terrace runs in (after `-chdir`).
    working_dir: PathBuf,
    schema: Arc<ProviderSchema>,
    /// How `terraform_remote_state` decrypts the states it reads (the
    /// configuration's `remote_state_data_sources`).
    remote_state_codec: terrace_states::encryption::StateCodec,
}

impl TerraformProvider {
    pub fn new(working_dir: impl Into<PathBuf>) -> TerraformProvider {
        TerraformProvider {
            working_dir: working_dir.into(),
            schema: Arc::new(schema::provider_schema()),
            remote_state_codec: terrace_states::encryption::StateCodec::disabled(),
        }
    }

    /// `terraform_remote_state` reads states encrypted as `codec` says.
    pub fn with_remote_state_encryption(
        mut self,
        codec: terrace_states::encryption::StateCodec,
    ) -> TerraformProvider {
        self.remote_state_codec = codec;
        self
    }

    /// The schema, without an instance (for `providers schema` and
    /// validation).
    pub fn schema() -> ProviderSchema {
        schema::provider_schema()
    }
}

pub(crate) fn unsupported_resource_type(type_name: &str) -> Diagnostic {
    Diagnostic::error(
        "Unsupported resource type",
        format!("The provider {PROVIDER_SOURCE} does not support resource type {type_name:?}."),
    )
}

fn unsupported_data_source(type_name: &str) -> Diagnostic {
    Diagnostic::error(
        "Unsupported data source",
        format!("The provider {PROVIDER_SOURCE} does not support data source {type_name:?}."),
    )
}

fn unsupported_ephemeral_resource(type_name: &str) -> Diagnostic {
    Diagnostic::error(
        "Unsupported ephemeral resource type",
        format!(
            "The provider {PROVIDER_SOURCE} does not support ephemeral resource type {type_name:?}."
        ),
    )
}

fn is_data(type_name: &str) -> bool {
    type_name == schema::TERRAFORM_DATA
}

impl Provider for TerraformProvider {
    fn get_metadata(&self) -> GetMetadataResponse {
        GetMetadataResponse {
            server_capabilities: self.schema.server_capabilities,
            resources: self.schema.resource_types.keys().cloned().collect(),
            data_sources: self.schema.data_sources.keys().cloned().collect(),
            ephemeral_resources: Vec::new(),
            functions: self.schema.functions.keys().cloned().collect(),
            diagnostics: Diagnostics::new(),
        }
    }

    fn get_provider_schema(&self) -> GetProviderSchemaResponse {
        GetProviderSchemaResponse {
            schema: Arc::clone(&self.schema),
            diagnostics: Diagnostics::new(),
        }
    }

    fn validate_provider_config(
        &self,
        request: ValidateProviderConfigRequest,
    ) -> ValidateProviderConfigResponse {
        ValidateProviderConfigResponse {
            prepared_config: request.config,
            diagnostics: Diagnostics::new(),
        }
    }

    fn validate_resource_config(
        &self,
        request: ValidateResourceConfigRequest,
    ) -> ValidateResourceConfigResponse {
        if !is_data(&request.type_name) {
            return ValidateResourceConfigResponse {
                diagnostics: unsupported_resource_type(&request.type_name).into(),
            };
        }
        data::validate(&request)
    }

    fn validate_data_resource_config(
        &self,
        request: ValidateDataResourceConfigRequest,
    ) -> ValidateDataResourceConfigResponse {
        let diagnostics = if request.type_name == schema::TERRAFORM_REMOTE_STATE {
            remote_state::validate(&request.config)
        } else {
            unsupported_data_source(&request.type_name).into()
        };
        ValidateDataResourceConfigResponse { diagnostics }
    }

    fn validate_ephemeral_resource_config(
        &self,
        request: ValidateEphemeralResourceConfigRequest,
    ) -> ValidateEphemeralResourceConfigResponse {
        ValidateEphemeralResourceConfigResponse {
            diagnostics: unsupported_ephemeral_resource(&request.type_name).into(),
        }
    }

    fn upgrade_resource_state(
        &self,
        request: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        if !is_data(&request.type_name) {
            return UpgradeResourceStateResponse {
                upgraded_state: Value::null(terrace_value::Type::Dynamic),
                diagnostics: unsupported_resource_type(&request.type_name).into(),
            };
        }
        data::upgrade(&request)
    }

    fn configure_provider(&self, _request: ConfigureProviderRequest) -> ConfigureProviderResponse {
        ConfigureProviderResponse::default()
    }

    fn read_resource(&self, request: ReadResourceRequest) -> ReadResourceResponse {
        if !is_data(&request.type_name) {
            return ReadResourceResponse {
                new_state: Value::null(terrace_value::Type::Dynamic),
                private: Vec::new(),
                deferred: None,
                diagnostics: unsupported_resource_type(&request.type_name).into(),
            };
        }
        data::read(request)
    }

    fn plan_resource_change(
        &self,
        request: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        if !is_data(&request.type_name) {
            return PlanResourceChangeResponse {
                planned_state: Value::null(terrace_value::Type::Dynamic),
                requires_replace: Vec::new(),
                planned_private: Vec::new(),
                legacy_type_system: false,
                deferred: None,
                diagnostics: unsupported_resource_type(&request.type_name).into(),
            };
        }
        data::plan(&request)
    }

    fn apply_resource_change(
        &self,
        request: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        if !is_data(&request.type_name) {
            return ApplyResourceChangeResponse {
                new_state: Value::null(terrace_value::Type::Dynamic),
                private: Vec::new(),
                legacy_type_system: false,
                diagnostics: unsupported_resource_type(&request.type_name).into(),
            };
        }
        data::apply(&request, data::random_id)
    }

    fn import_resource_state(
        &self,
        request: ImportResourceStateRequest,
    ) -> ImportResourceStateResponse {
        data::import(&request)
    }

    fn move_resource_state(&self, request: MoveResourceStateRequest) -> MoveResourceStateResponse {
        data::move_state(&request)
    }

    fn read_data_source(&self, request: ReadDataSourceRequest) -> ReadDataSourceResponse {
        let (state, diagnostics) = if request.type_name == schema::TERRAFORM_REMOTE_STATE {
            remote_state::read(&request.config, &self.working_dir, &self.remote_state_codec)
        } else {
            (
                Value::null(terrace_value::Type::Dynamic),
                unsupported_data_source(&request.type_name).into(),
            )
        };
        ReadDataSourceResponse {
            state,
            deferred: None,
            diagnostics,
        }
    }

    fn open_ephemeral_resource(
        &self,
        request: OpenEphemeralResourceRequest,
    ) -> OpenEphemeralResourceResponse {
        OpenEphemeralResourceResponse {
            result: Value::null(terrace_value::Type::Dynamic),
            private: None,
            renew_at: None,
            deferred: None,
            diagnostics: unsupported_ephemeral_resource(&request.type_name).into(),
        }
    }

    fn renew_ephemeral_resource(
        &self,
        request: RenewEphemeralResourceRequest,
    ) -> RenewEphemeralResourceResponse {
        RenewEphemeralResourceResponse {
            diagnostics: unsupported_ephemeral_resource(&request.type_name).into(),
            ..RenewEphemeralResourceResponse::default()
        }
    }

    fn close_ephemeral_resource(
        &self,
        request: CloseEphemeralResourceRequest,
    ) -> CloseEphemeralResourceResponse {
        CloseEphemeralResourceResponse {
            diagnostics: unsupported_ephemeral_resource(&request.type_name).into(),
        }
    }

    fn get_functions(&self) -> GetFunctionsResponse {
        GetFunctionsResponse {
            functions: self.schema.functions.clone(),
            diagnostics: Diagnostics::new(),
        }
    }

    fn call_function(&self, request: CallFunctionRequest) -> CallFunctionResponse {
        functions::call(request)
    }

    /// Nothing runs long enough to need stopping.
    fn stop(&self) -> Diagnostics {
        Diagnostics::new()
    }

    fn close(&self) -> Diagnostics {
        Diagnostics::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_value::Type;

    fn provider() -> TerraformProvider {
        TerraformProvider::new(std::env::temp_dir())
    }

    fn obj(attributes: &[(&str, Value)]) -> Value {
        Value::object(
            attributes
                .iter()
                .map(|(name, value)| (name.to_string(), value.clone()))
                .collect(),
        )
    }

    #[test]
    fn metadata_and_schema() {
        let p = provider();
        let metadata = p.get_metadata();
        assert_eq!(metadata.resources, ["terraform_data"]);
        assert_eq!(metadata.data_sources, ["terraform_remote_state"]);
        assert_eq!(
            metadata.functions,
            ["decode_tfvars", "encode_expr", "encode_tfvars"]
        );
        assert!(metadata.server_capabilities.move_resource_state);
        let schema = p.get_provider_schema();
        assert!(schema.diagnostics.is_empty());
        assert_eq!(*schema.schema, TerraformProvider::schema());
        assert_eq!(p.get_functions().functions.len(), 3);
    }

    /// Create, then update the input, through the trait, as the engine
    /// drives it.
    #[test]
    fn lifecycle_through_the_trait() {
        let p = provider();
        let ty = schema::terraform_data_schema().implied_type();
        let config = obj(&[
            ("id", Value::null(Type::String)),
            ("input", Value::string("x")),
            ("output", Value::null(Type::Dynamic)),
            ("triggers_replace", Value::null(Type::Dynamic)),
        ]);
        let planned = p.plan_resource_change(PlanResourceChangeRequest {
            type_name: "terraform_data".into(),
            prior_state: Value::null(ty.clone()),
            proposed_new_state: config.clone(),
            config: config.clone(),
            prior_private: Vec::new(),
            provider_meta: None,
            client_capabilities: ClientCapabilities::default(),
        });
        assert!(planned.diagnostics.is_empty());
        let applied = p.apply_resource_change(ApplyResourceChangeRequest {
            type_name: "terraform_data".into(),
            prior_state: Value::null(ty.clone()),
            planned_state: planned.planned_state,
            config,
            planned_private: planned.planned_private,
            provider_meta: None,
        });
        assert!(applied.diagnostics.is_empty());
        let state = applied.new_state;
        let attributes = state
            .as_attributes()
            .map(terrace_value::Attrs::to_map)
            .unwrap_or_default();
        assert!(attributes["output"].raw_equals(&Value::string("x")));
        assert_eq!(attributes["id"].as_str().map(str::len), Some(36));

        let read = p.read_resource(ReadResourceRequest {
            type_name: "terraform_data".into(),
            prior_state: state.clone(),
            private: Vec::new(),
            provider_meta: None,
            client_capabilities: ClientCapabilities::default(),
        });
        assert!(read.new_state.raw_equals(&state));

        let mut changed = attributes.clone();
        changed.insert("input".into(), Value::string("y"));
        let proposed = Value::object(changed);
        let planned = p.plan_resource_change(PlanResourceChangeRequest {
            type_name: "terraform_data".into(),
            prior_state: state.clone(),
            proposed_new_state: proposed.clone(),
            config: proposed,
            prior_private: Vec::new(),
            provider_meta: None,
            client_capabilities: ClientCapabilities::default(),
        });
        assert!(planned.requires_replace.is_empty());
        let applied = p.apply_resource_change(ApplyResourceChangeRequest {
            type_name: "terraform_data".into(),
            prior_state: state.clone(),
            planned_state: planned.planned_state,
            config: Value::null(ty),
            planned_private: Vec::new(),
            provider_meta: None,
        });
        let after = applied
            .new_state
            .as_attributes()
            .map(terrace_value::Attrs::to_map)
            .unwrap_or_default();
        assert!(after["output"].raw_equals(&Value::string("y")));
        assert!(after["id"].raw_equals(&attributes["id"]));
    }

    #[test]
    fn unknown_type_names_are_errors() {
        let p = provider();
        let response = p.plan_resource_change(PlanResourceChangeRequest {
            type_name: "terraform_nope".into(),
            prior_state: Value::null(terrace_value::Type::Dynamic),
            proposed_new_state: Value::null(terrace_value::Type::Dynamic),
            config: Value::null(terrace_value::Type::Dynamic),
            prior_private: Vec::new(),
            provider_meta: None,
            client_capabilities: ClientCapabilities::default(),
        });
        assert_eq!(
            response.diagnostics.to_string(),
            "Error: Unsupported resource type\n\nThe provider terraform.io/builtin/terraform does not support resource type \"terraform_nope\"."
        );
        let response = p.read_data_source(ReadDataSourceRequest {
            type_name: "terraform_data".into(),
            config: Value::null(terrace_value::Type::Dynamic),
            provider_meta: None,
            client_capabilities: ClientCapabilities::default(),
        });
        assert!(response.diagnostics.has_errors());
        let response = p.validate_data_resource_config(ValidateDataResourceConfigRequest {
            type_name: "x".into(),
            config: Value::null(terrace_value::Type::Dynamic),
        });
        assert!(response.diagnostics.has_errors());
        let response = p.open_ephemeral_resource(OpenEphemeralResourceRequest {
            type_name: "x".into(),
            config: Value::null(terrace_value::Type::Dynamic),
            client_capabilities: ClientCapabilities::default(),
        });
        assert!(response.diagnostics.has_errors());
    }

    #[test]
    fn remote_state_through_the_trait() {
        let p = TerraformProvider::new(env!("CARGO_MANIFEST_DIR"));
        let config = obj(&[
            ("backend", Value::string("local")),
            (
                "config",
                obj(&[("path", Value::string("testdata/outputs.tfstate"))]),
            ),
            ("defaults", Value::null(Type::Dynamic)),
            ("outputs", Value::null(Type::Dynamic)),
            ("workspace", Value::null(Type::String)),
        ]);
        let validated = p.validate_data_resource_config(ValidateDataResourceConfigRequest {
            type_name: "terraform_remote_state".into(),
            config: config.clone(),
        });
        assert!(validated.diagnostics.is_empty());
        let response = p.read_data_source(ReadDataSourceRequest {
            type_name: "terraform_remote_state".into(),
            config,
            provider_meta: None,
            client_capabilities: ClientCapabilities::default(),
        });
        assert!(response.diagnostics.is_empty(), "{}", response.diagnostics);
        let outputs = response
            .state
            .as_attributes()
            .and_then(|a| a.get("outputs").cloned())
            .unwrap_or_else(|| Value::null(Type::Dynamic));
        assert!(outputs
            .as_attributes()
            .is_some_and(|o| o["s"].raw_equals(&Value::string("hello"))));
    }
}
