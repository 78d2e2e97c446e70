// The half of the protocol client that tfplugin5 and tfplugin6 share:
// included (with `include!`) by `v5.rs` and `v6.rs`, where `proto` names
// that version's generated types. The two versions' messages are separate
// Rust types with the same fields, so the code is written once and
// compiled twice. Each including module supplies the parts that differ:
// the `Grpc` client type, the `*_msg` message module aliases, the calls
// whose names differ (`renamed_calls!`), `attribute_from_proto` and
// `prepared_config`.

use crate::client::Core;
use crate::transport::MAX_MESSAGE_SIZE;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime};
use terrace_providers::*;
use terrace_value::json::CodecError;
use terrace_value::{msgpack, typejson, Type, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum SchemaKind {
    Provider,
    Resource,
    DataSource,
    Ephemeral,
}

pub(crate) struct Client {
    core: Arc<Core>,
    grpc: Grpc,
    schema: OnceLock<GetProviderSchemaResponse>,
    /// Implied types, computed on first use: building one walks the whole
    /// schema of a type, and every request needs it.
    types: Mutex<HashMap<(SchemaKind, String), Type>>,
}

impl Client {
    pub(crate) fn new(core: Arc<Core>) -> Client {
        let grpc = Grpc::new(core.channel.clone())
            .max_decoding_message_size(MAX_MESSAGE_SIZE)
            .max_encoding_message_size(MAX_MESSAGE_SIZE);
        Client {
            core,
            grpc,
            schema: OnceLock::new(),
            types: Mutex::new(HashMap::new()),
        }
    }

    fn provider_name(&self) -> &str {
        &self.core.provider
    }

    /// The schema, fetched once: concurrent first callers wait for the one
    /// fetch. A failed fetch is kept too, since a plugin that could not
    /// describe itself will not do better on a second try.
    fn schema(&self) -> &GetProviderSchemaResponse {
        self.schema.get_or_init(|| self.fetch_schema())
    }

    /// Takes `schema` as this provider's schema, so `GetProviderSchema` is
    /// never called: what a provider announcing
    /// `get_provider_schema_optional` allows. False when a schema was
    /// already fetched or given.
    pub(crate) fn use_cached_schema(&self, schema: Arc<ProviderSchema>) -> bool {
        self.schema
            .set(GetProviderSchemaResponse {
                schema,
                diagnostics: Diagnostics::new(),
            })
            .is_ok()
    }

    fn fetch_schema(&self) -> GetProviderSchemaResponse {
        let grpc = self.grpc.clone();
        let response = match self.core.call(
            GET_PROVIDER_SCHEMA,
            rpc_get_provider_schema(grpc, proto::get_provider_schema::Request {}),
        ) {
            Ok(response) => response,
            Err(diagnostics) => {
                return GetProviderSchemaResponse {
                    schema: Arc::default(),
                    diagnostics,
                }
            }
        };
        let mut diagnostics = diagnostics_from_proto(response.diagnostics);
        if diagnostics.has_errors() {
            return GetProviderSchemaResponse {
                schema: Arc::default(),
                diagnostics,
            };
        }
        let mut schema = ProviderSchema::default();
        let mut invalid: Vec<String> = Vec::new();
        match response.provider {
            Some(provider) => match schema_from_proto(provider) {
                Ok(provider) => schema.provider = provider,
                Err(e) => invalid.push(format!("its configuration: {e}")),
            },
            None => invalid.push("its configuration: the schema is missing".into()),
        }
        if let Some(meta) = response.provider_meta {
            match schema_from_proto(meta) {
                Ok(meta) => schema.provider_meta = Some(meta),
                Err(e) => invalid.push(format!("provider_meta: {e}")),
            }
        }
        let groups = [
            (
                "resource type",
                response.resource_schemas,
                &mut schema.resource_types,
            ),
            (
                "data source",
                response.data_source_schemas,
                &mut schema.data_sources,
            ),
            (
                "ephemeral resource type",
                response.ephemeral_resource_schemas,
                &mut schema.ephemeral_resources,
            ),
        ];
        for (what, schemas, target) in groups {
            for (name, proto_schema) in schemas {
                match schema_from_proto(proto_schema) {
                    Ok(converted) => {
                        target.insert(name, converted);
                    }
                    Err(e) => invalid.push(format!("{what} {name:?}: {e}")),
                }
            }
        }
        for (name, function) in response.functions {
            match function_from_proto(function) {
                Ok(function) => {
                    schema.functions.insert(name, function);
                }
                Err(e) => invalid.push(format!("function {name:?}: {e}")),
            }
        }
        schema.server_capabilities = server_capabilities_from_proto(response.server_capabilities);
        for message in invalid {
            diagnostics.push(Diagnostic::error(
                "Invalid provider schema",
                format!(
                    "The provider {} returned an invalid schema for {message}. This is a bug \
                     in the provider, which should be reported in the provider's own issue \
                     tracker.",
                    self.provider_name()
                ),
            ));
        }
        GetProviderSchemaResponse {
            schema: Arc::new(schema),
            diagnostics,
        }
    }

    /// The implied type of one schema, or the diagnostics explaining why
    /// there is none (schema errors, unknown type name).
    fn implied_type(&self, kind: SchemaKind, name: &str) -> Result<Type, Diagnostics> {
        let response = self.schema();
        if response.diagnostics.has_errors() {
            return Err(response.diagnostics.clone());
        }
        let key = (kind, name.to_string());
        if let Some(ty) = self.types.lock().ok().and_then(|t| t.get(&key).cloned()) {
            return Ok(ty);
        }
        let schema = &response.schema;
        let (found, what) = match kind {
            SchemaKind::Provider => (Some(&schema.provider), "provider configuration"),
            SchemaKind::Resource => (schema.resource_types.get(name), "resource type"),
            SchemaKind::DataSource => (schema.data_sources.get(name), "data source"),
            SchemaKind::Ephemeral => (
                schema.ephemeral_resources.get(name),
                "ephemeral resource type",
            ),
        };
        let Some(found) = found else {
            return Err(Diagnostic::error(
                format!("Unknown {what}"),
                format!(
                    "The provider {} does not support {what} {name:?}.",
                    self.provider_name()
                ),
            )
            .into());
        };
        let ty = found.implied_type();
        if let Ok(mut types) = self.types.lock() {
            types.insert(key, ty.clone());
        }
        Ok(ty)
    }

    /// The `provider_meta` value to send: only when the provider has a
    /// schema for it, and then null if the module has none.
    fn provider_meta(
        &self,
        method: &str,
        value: Option<Value>,
    ) -> Result<Option<proto::DynamicValue>, Diagnostics> {
        let Some(meta) = self.schema().schema.provider_meta.as_ref() else {
            return Ok(None);
        };
        let ty = meta.implied_type();
        let value = value.unwrap_or_else(|| Value::null(ty.clone()));
        self.encode(method, "provider_meta", &value, &ty).map(Some)
    }

    fn encode(
        &self,
        method: &str,
        what: &str,
        value: &Value,
        ty: &Type,
    ) -> Result<proto::DynamicValue, Diagnostics> {
        // Marks (sensitive, ephemeral) are terrace's business, not the
        // provider's; they are dropped rather than refused.
        let encoded = msgpack::encode(value, ty).or_else(|first| {
            let (unmarked, marks) = value.unmark_deep();
            if marks.is_empty() {
                Err(first)
            } else {
                msgpack::encode(&unmarked, ty)
            }
        });
        match encoded {
            Ok(bytes) => Ok(proto::DynamicValue {
                msgpack: bytes,
                json: Vec::new(),
            }),
            Err(e) => Err(Diagnostic::error(
                "Invalid value for provider",
                format!(
                    "terrace could not encode the {what} for the {method} call to provider {}: \
                     {}. This is a bug in terrace.",
                    self.provider_name(),
                    codec_error(&e)
                ),
            )
            .into()),
        }
    }

    fn decode(
        &self,
        method: &str,
        what: &str,
        value: Option<proto::DynamicValue>,
        ty: &Type,
    ) -> Result<Value, Diagnostic> {
        let decoded = match value {
            Some(value) if !value.msgpack.is_empty() => msgpack::decode(&value.msgpack, ty),
            Some(value) if !value.json.is_empty() => {
                terrace_value::json::from_json(&value.json, ty)
            }
            _ => Ok(Value::null(ty.clone())),
        };
        decoded.map_err(|e| {
            Diagnostic::error(
                "Invalid provider response",
                format!(
                    "The provider {} returned an invalid {what} from {method}: {}. This is a bug \
                     in the provider, which should be reported in the provider's own issue \
                     tracker.",
                    self.provider_name(),
                    codec_error(&e)
                ),
            )
        })
    }

    /// Decodes `value` into `slot` (left as null of `ty` on failure, with
    /// the failure added to `diagnostics`).
    fn decode_into(
        &self,
        method: &str,
        what: &str,
        value: Option<proto::DynamicValue>,
        ty: &Type,
        diagnostics: &mut Diagnostics,
    ) -> Value {
        match self.decode(method, what, value, ty) {
            Ok(value) => value,
            Err(diagnostic) => {
                diagnostics.push(diagnostic);
                Value::null(ty.clone())
            }
        }
    }

    fn function_spec(&self, name: &str) -> Result<FunctionSpec, String> {
        let schema = self.schema();
        if let Some(spec) = schema.schema.functions.get(name) {
            return Ok(spec.clone());
        }
        let functions = self.get_functions();
        if functions.diagnostics.has_errors() {
            return Err(functions.diagnostics.to_string());
        }
        functions.functions.get(name).cloned().ok_or_else(|| {
            format!(
                "the provider {} has no function named {name:?}",
                self.provider_name()
            )
        })
    }
}

fn codec_error(error: &CodecError) -> String {
    let path = AttributePath::from_value_path(&error.path);
    if path.is_empty() {
        error.message.clone()
    } else {
        format!("{path}: {}", error.message)
    }
}

impl Provider for Client {
    fn get_metadata(&self) -> GetMetadataResponse {
        let mut grpc = self.grpc.clone();
        let response = match self.core.call("GetMetadata", async move {
            grpc.get_metadata(proto::get_metadata::Request {}).await
        }) {
            Ok(response) => response,
            Err(diagnostics) => {
                return GetMetadataResponse {
                    diagnostics,
                    ..GetMetadataResponse::default()
                }
            }
        };
        GetMetadataResponse {
            server_capabilities: server_capabilities_from_proto(response.server_capabilities),
            resources: response
                .resources
                .into_iter()
                .map(|m| m.type_name)
                .collect(),
            data_sources: response
                .data_sources
                .into_iter()
                .map(|m| m.type_name)
                .collect(),
            ephemeral_resources: response
                .ephemeral_resources
                .into_iter()
                .map(|m| m.type_name)
                .collect(),
            functions: response.functions.into_iter().map(|m| m.name).collect(),
            diagnostics: diagnostics_from_proto(response.diagnostics),
        }
    }

    fn get_provider_schema(&self) -> GetProviderSchemaResponse {
        self.schema().clone()
    }

    fn validate_provider_config(
        &self,
        request: ValidateProviderConfigRequest,
    ) -> ValidateProviderConfigResponse {
        const METHOD: &str = VALIDATE_PROVIDER_CONFIG;
        let fail = |config: Value, diagnostics: Diagnostics| ValidateProviderConfigResponse {
            prepared_config: config,
            diagnostics,
        };
        let ty = match self.implied_type(SchemaKind::Provider, "") {
            Ok(ty) => ty,
            Err(diagnostics) => return fail(request.config, diagnostics),
        };
        let config = match self.encode(METHOD, "configuration", &request.config, &ty) {
            Ok(config) => config,
            Err(diagnostics) => return fail(request.config, diagnostics),
        };
        let grpc = self.grpc.clone();
        let response = match self.core.call(
            METHOD,
            rpc_validate_provider_config(
                grpc,
                validate_provider_config_msg::Request {
                    config: Some(config),
                },
            ),
        ) {
            Ok(response) => response,
            Err(diagnostics) => return fail(request.config, diagnostics),
        };
        let mut diagnostics = Diagnostics::new();
        let prepared_config =
            prepared_config(self, &response, request.config, &ty, &mut diagnostics);
        diagnostics.extend(diagnostics_from_proto(response.diagnostics));
        ValidateProviderConfigResponse {
            prepared_config,
            diagnostics,
        }
    }

    fn validate_resource_config(
        &self,
        request: ValidateResourceConfigRequest,
    ) -> ValidateResourceConfigResponse {
        const METHOD: &str = VALIDATE_RESOURCE_CONFIG;
        let result = (|| {
            let ty = self.implied_type(SchemaKind::Resource, &request.type_name)?;
            let config = self.encode(METHOD, "configuration", &request.config, &ty)?;
            let grpc = self.grpc.clone();
            let response = self.core.call(
                METHOD,
                rpc_validate_resource_config(
                    grpc,
                    validate_resource_config_msg::Request {
                        type_name: request.type_name.clone(),
                        config: Some(config),
                        client_capabilities: Some(client_capabilities(request.client_capabilities)),
                    },
                ),
            )?;
            Ok(diagnostics_from_proto(response.diagnostics))
        })();
        ValidateResourceConfigResponse {
            diagnostics: result.unwrap_or_else(|diagnostics: Diagnostics| diagnostics),
        }
    }

    fn validate_data_resource_config(
        &self,
        request: ValidateDataResourceConfigRequest,
    ) -> ValidateDataResourceConfigResponse {
        const METHOD: &str = VALIDATE_DATA_RESOURCE_CONFIG;
        let result = (|| {
            let ty = self.implied_type(SchemaKind::DataSource, &request.type_name)?;
            let config = self.encode(METHOD, "configuration", &request.config, &ty)?;
            let grpc = self.grpc.clone();
            let response = self.core.call(
                METHOD,
                rpc_validate_data_resource_config(
                    grpc,
                    validate_data_resource_config_msg::Request {
                        type_name: request.type_name.clone(),
                        config: Some(config),
                    },
                ),
            )?;
            Ok(diagnostics_from_proto(response.diagnostics))
        })();
        ValidateDataResourceConfigResponse {
            diagnostics: result.unwrap_or_else(|diagnostics: Diagnostics| diagnostics),
        }
    }

    fn validate_ephemeral_resource_config(
        &self,
        request: ValidateEphemeralResourceConfigRequest,
    ) -> ValidateEphemeralResourceConfigResponse {
        const METHOD: &str = "ValidateEphemeralResourceConfig";
        let result = (|| {
            let ty = self.implied_type(SchemaKind::Ephemeral, &request.type_name)?;
            let config = self.encode(METHOD, "configuration", &request.config, &ty)?;
            let mut grpc = self.grpc.clone();
            let message = proto::validate_ephemeral_resource_config::Request {
                type_name: request.type_name.clone(),
                config: Some(config),
            };
            let response = self.core.call(METHOD, async move {
                grpc.validate_ephemeral_resource_config(message).await
            })?;
            Ok(diagnostics_from_proto(response.diagnostics))
        })();
        ValidateEphemeralResourceConfigResponse {
            diagnostics: result.unwrap_or_else(|diagnostics: Diagnostics| diagnostics),
        }
    }

    fn upgrade_resource_state(
        &self,
        request: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        const METHOD: &str = "UpgradeResourceState";
        let ty = match self.implied_type(SchemaKind::Resource, &request.type_name) {
            Ok(ty) => ty,
            Err(diagnostics) => {
                return UpgradeResourceStateResponse {
                    upgraded_state: Value::null(Type::Dynamic),
                    diagnostics,
                }
            }
        };
        let mut grpc = self.grpc.clone();
        let message = proto::upgrade_resource_state::Request {
            type_name: request.type_name.clone(),
            version: request.version,
            raw_state: Some(proto::RawState {
                json: request.raw_state.json,
                flatmap: request.raw_state.flatmap.into_iter().collect(),
            }),
        };
        let response =
            match self.core.call(
                METHOD,
                async move { grpc.upgrade_resource_state(message).await },
            ) {
                Ok(response) => response,
                Err(diagnostics) => {
                    return UpgradeResourceStateResponse {
                        upgraded_state: Value::null(ty),
                        diagnostics,
                    }
                }
            };
        let mut diagnostics = diagnostics_from_proto(response.diagnostics);
        let upgraded_state = self.decode_into(
            METHOD,
            "upgraded state",
            response.upgraded_state,
            &ty,
            &mut diagnostics,
        );
        self.check_write_only(&request.type_name, &upgraded_state, &mut diagnostics);
        UpgradeResourceStateResponse {
            upgraded_state,
            diagnostics,
        }
    }

    fn configure_provider(&self, request: ConfigureProviderRequest) -> ConfigureProviderResponse {
        const METHOD: &str = CONFIGURE_PROVIDER;
        let result = (|| {
            let ty = self.implied_type(SchemaKind::Provider, "")?;
            let config = self.encode(METHOD, "configuration", &request.config, &ty)?;
            let grpc = self.grpc.clone();
            let response = self.core.call(
                METHOD,
                rpc_configure_provider(
                    grpc,
                    configure_provider_msg::Request {
                        terraform_version: request.terraform_version.clone(),
                        config: Some(config),
                        client_capabilities: Some(client_capabilities(request.client_capabilities)),
                    },
                ),
            )?;
            Ok(diagnostics_from_proto(response.diagnostics))
        })();
        ConfigureProviderResponse {
            diagnostics: result.unwrap_or_else(|diagnostics: Diagnostics| diagnostics),
        }
    }

    fn read_resource(&self, request: ReadResourceRequest) -> ReadResourceResponse {
        const METHOD: &str = "ReadResource";
        let fail = |state: Value, diagnostics: Diagnostics| ReadResourceResponse {
            new_state: state,
            private: Vec::new(),
            deferred: None,
            diagnostics,
        };
        let ty = match self.implied_type(SchemaKind::Resource, &request.type_name) {
            Ok(ty) => ty,
            Err(diagnostics) => return fail(request.prior_state, diagnostics),
        };
        let prepared = (|| {
            let current_state = self.encode(METHOD, "prior state", &request.prior_state, &ty)?;
            let provider_meta = self.provider_meta(METHOD, request.provider_meta.clone())?;
            Ok(proto::read_resource::Request {
                type_name: request.type_name.clone(),
                current_state: Some(current_state),
                private: request.private.clone(),
                provider_meta,
                client_capabilities: Some(client_capabilities(request.client_capabilities)),
            })
        })();
        let message = match prepared {
            Ok(message) => message,
            Err(diagnostics) => return fail(request.prior_state, diagnostics),
        };
        let mut grpc = self.grpc.clone();
        let response = match self
            .core
            .call(METHOD, async move { grpc.read_resource(message).await })
        {
            Ok(response) => response,
            Err(diagnostics) => return fail(request.prior_state, diagnostics),
        };
        let mut diagnostics = diagnostics_from_proto(response.diagnostics);
        let new_state = self.decode_into(
            METHOD,
            "new state",
            response.new_state,
            &ty,
            &mut diagnostics,
        );
        self.check_write_only(&request.type_name, &new_state, &mut diagnostics);
        ReadResourceResponse {
            new_state,
            private: response.private,
            deferred: deferred_from_proto(response.deferred),
            diagnostics,
        }
    }

    fn plan_resource_change(
        &self,
        request: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        const METHOD: &str = "PlanResourceChange";
        let fail = |diagnostics: Diagnostics, request: PlanResourceChangeRequest| {
            PlanResourceChangeResponse {
                planned_state: request.proposed_new_state,
                requires_replace: Vec::new(),
                planned_private: request.prior_private,
                legacy_type_system: false,
                deferred: None,
                diagnostics,
            }
        };
        let ty = match self.implied_type(SchemaKind::Resource, &request.type_name) {
            Ok(ty) => ty,
            Err(diagnostics) => return fail(diagnostics, request),
        };
        // Providers that do not ask to plan destroys are not asked to.
        if request.proposed_new_state.is_null()
            && !self.schema().schema.server_capabilities.plan_destroy
        {
            return fail(Diagnostics::new(), request);
        }
        let prepared = (|| {
            Ok(proto::plan_resource_change::Request {
                type_name: request.type_name.clone(),
                prior_state: Some(self.encode(METHOD, "prior state", &request.prior_state, &ty)?),
                proposed_new_state: Some(self.encode(
                    METHOD,
                    "proposed new state",
                    &request.proposed_new_state,
                    &ty,
                )?),
                config: Some(self.encode(METHOD, "configuration", &request.config, &ty)?),
                prior_private: request.prior_private.clone(),
                provider_meta: self.provider_meta(METHOD, request.provider_meta.clone())?,
                client_capabilities: Some(client_capabilities(request.client_capabilities)),
            })
        })();
        let message = match prepared {
            Ok(message) => message,
            Err(diagnostics) => return fail(diagnostics, request),
        };
        let mut grpc = self.grpc.clone();
        let response =
            match self.core.call(
                METHOD,
                async move { grpc.plan_resource_change(message).await },
            ) {
                Ok(response) => response,
                Err(diagnostics) => return fail(diagnostics, request),
            };
        let mut diagnostics = diagnostics_from_proto(response.diagnostics);
        let planned_state = self.decode_into(
            METHOD,
            "planned state",
            response.planned_state,
            &ty,
            &mut diagnostics,
        );
        self.check_write_only(&request.type_name, &planned_state, &mut diagnostics);
        PlanResourceChangeResponse {
            planned_state,
            requires_replace: response
                .requires_replace
                .iter()
                .map(attribute_path_from_proto)
                .collect(),
            planned_private: response.planned_private,
            legacy_type_system: response.legacy_type_system,
            deferred: deferred_from_proto(response.deferred),
            diagnostics,
        }
    }

    fn apply_resource_change(
        &self,
        request: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        const METHOD: &str = "ApplyResourceChange";
        let fail = |diagnostics: Diagnostics, ty: Option<&Type>| ApplyResourceChangeResponse {
            new_state: Value::null(ty.cloned().unwrap_or(Type::Dynamic)),
            private: Vec::new(),
            legacy_type_system: false,
            diagnostics,
        };
        let ty = match self.implied_type(SchemaKind::Resource, &request.type_name) {
            Ok(ty) => ty,
            Err(diagnostics) => return fail(diagnostics, None),
        };
        let prepared = (|| {
            Ok(proto::apply_resource_change::Request {
                type_name: request.type_name.clone(),
                prior_state: Some(self.encode(METHOD, "prior state", &request.prior_state, &ty)?),
                planned_state: Some(self.encode(
                    METHOD,
                    "planned state",
                    &request.planned_state,
                    &ty,
                )?),
                config: Some(self.encode(METHOD, "configuration", &request.config, &ty)?),
                planned_private: request.planned_private.clone(),
                provider_meta: self.provider_meta(METHOD, request.provider_meta.clone())?,
            })
        })();
        let message = match prepared {
            Ok(message) => message,
            Err(diagnostics) => return fail(diagnostics, Some(&ty)),
        };
        let mut grpc = self.grpc.clone();
        let response =
            match self.core.call(
                METHOD,
                async move { grpc.apply_resource_change(message).await },
            ) {
                Ok(response) => response,
                Err(diagnostics) => return fail(diagnostics, Some(&ty)),
            };
        let mut diagnostics = diagnostics_from_proto(response.diagnostics);
        let new_state = self.decode_into(
            METHOD,
            "new state",
            response.new_state,
            &ty,
            &mut diagnostics,
        );
        self.check_write_only(&request.type_name, &new_state, &mut diagnostics);
        ApplyResourceChangeResponse {
            new_state,
            private: response.private,
            legacy_type_system: response.legacy_type_system,
            diagnostics,
        }
    }

    fn import_resource_state(
        &self,
        request: ImportResourceStateRequest,
    ) -> ImportResourceStateResponse {
        const METHOD: &str = "ImportResourceState";
        if let Err(diagnostics) = self.implied_type(SchemaKind::Resource, &request.type_name) {
            return ImportResourceStateResponse {
                diagnostics,
                ..ImportResourceStateResponse::default()
            };
        }
        let mut grpc = self.grpc.clone();
        let message = proto::import_resource_state::Request {
            type_name: request.type_name.clone(),
            id: request.id.clone(),
            client_capabilities: Some(client_capabilities(request.client_capabilities)),
        };
        let response =
            match self.core.call(
                METHOD,
                async move { grpc.import_resource_state(message).await },
            ) {
                Ok(response) => response,
                Err(diagnostics) => {
                    return ImportResourceStateResponse {
                        diagnostics,
                        ..ImportResourceStateResponse::default()
                    }
                }
            };
        let mut diagnostics = diagnostics_from_proto(response.diagnostics);
        let mut imported_resources = Vec::with_capacity(response.imported_resources.len());
        for imported in response.imported_resources {
            // An import may return objects of other types than asked for
            // (a resource and its satellites); each decodes with its own.
            let ty = match self.implied_type(SchemaKind::Resource, &imported.type_name) {
                Ok(ty) => ty,
                Err(more) => {
                    diagnostics.extend(more);
                    continue;
                }
            };
            match self.decode(METHOD, "imported state", imported.state, &ty) {
                Ok(state) => imported_resources.push(ImportedResource {
                    type_name: imported.type_name,
                    state,
                    private: imported.private,
                }),
                Err(diagnostic) => diagnostics.push(diagnostic),
            }
        }
        ImportResourceStateResponse {
            imported_resources,
            deferred: deferred_from_proto(response.deferred),
            diagnostics,
        }
    }

    fn move_resource_state(&self, request: MoveResourceStateRequest) -> MoveResourceStateResponse {
        const METHOD: &str = "MoveResourceState";
        let ty = match self.implied_type(SchemaKind::Resource, &request.target_type_name) {
            Ok(ty) => ty,
            Err(diagnostics) => {
                return MoveResourceStateResponse {
                    target_state: Value::null(Type::Dynamic),
                    target_private: Vec::new(),
                    diagnostics,
                }
            }
        };
        let mut grpc = self.grpc.clone();
        let message = proto::move_resource_state::Request {
            source_provider_address: request.source_provider_address.clone(),
            source_type_name: request.source_type_name.clone(),
            source_schema_version: request.source_schema_version,
            source_state: Some(proto::RawState {
                json: request.source_state_json.clone(),
                flatmap: Default::default(),
            }),
            target_type_name: request.target_type_name.clone(),
            source_private: request.source_private.clone(),
        };
        let response =
            match self.core.call(
                METHOD,
                async move { grpc.move_resource_state(message).await },
            ) {
                Ok(response) => response,
                Err(diagnostics) => {
                    return MoveResourceStateResponse {
                        target_state: Value::null(ty),
                        target_private: Vec::new(),
                        diagnostics,
                    }
                }
            };
        let mut diagnostics = diagnostics_from_proto(response.diagnostics);
        let target_state = self.decode_into(
            METHOD,
            "target state",
            response.target_state,
            &ty,
            &mut diagnostics,
        );
        self.check_write_only(&request.target_type_name, &target_state, &mut diagnostics);
        MoveResourceStateResponse {
            target_state,
            target_private: response.target_private,
            diagnostics,
        }
    }

    fn read_data_source(&self, request: ReadDataSourceRequest) -> ReadDataSourceResponse {
        const METHOD: &str = "ReadDataSource";
        let fail = |diagnostics: Diagnostics, ty: Option<&Type>| ReadDataSourceResponse {
            state: Value::null(ty.cloned().unwrap_or(Type::Dynamic)),
            deferred: None,
            diagnostics,
        };
        let ty = match self.implied_type(SchemaKind::DataSource, &request.type_name) {
            Ok(ty) => ty,
            Err(diagnostics) => return fail(diagnostics, None),
        };
        let prepared = (|| {
            Ok(proto::read_data_source::Request {
                type_name: request.type_name.clone(),
                config: Some(self.encode(METHOD, "configuration", &request.config, &ty)?),
                provider_meta: self.provider_meta(METHOD, request.provider_meta.clone())?,
                client_capabilities: Some(client_capabilities(request.client_capabilities)),
            })
        })();
        let message = match prepared {
            Ok(message) => message,
            Err(diagnostics) => return fail(diagnostics, Some(&ty)),
        };
        let mut grpc = self.grpc.clone();
        let response = match self
            .core
            .call(METHOD, async move { grpc.read_data_source(message).await })
        {
            Ok(response) => response,
            Err(diagnostics) => return fail(diagnostics, Some(&ty)),
        };
        let mut diagnostics = diagnostics_from_proto(response.diagnostics);
        let state = self.decode_into(METHOD, "state", response.state, &ty, &mut diagnostics);
        ReadDataSourceResponse {
            state,
            deferred: deferred_from_proto(response.deferred),
            diagnostics,
        }
    }

    fn open_ephemeral_resource(
        &self,
        request: OpenEphemeralResourceRequest,
    ) -> OpenEphemeralResourceResponse {
        const METHOD: &str = "OpenEphemeralResource";
        let fail = |diagnostics: Diagnostics, ty: Option<&Type>| OpenEphemeralResourceResponse {
            result: Value::null(ty.cloned().unwrap_or(Type::Dynamic)),
            private: None,
            renew_at: None,
            deferred: None,
            diagnostics,
        };
        let ty = match self.implied_type(SchemaKind::Ephemeral, &request.type_name) {
            Ok(ty) => ty,
            Err(diagnostics) => return fail(diagnostics, None),
        };
        let config = match self.encode(METHOD, "configuration", &request.config, &ty) {
            Ok(config) => config,
            Err(diagnostics) => return fail(diagnostics, Some(&ty)),
        };
        let mut grpc = self.grpc.clone();
        let message = proto::open_ephemeral_resource::Request {
            type_name: request.type_name.clone(),
            config: Some(config),
            client_capabilities: Some(client_capabilities(request.client_capabilities)),
        };
        let response = match self.core.call(METHOD, async move {
            grpc.open_ephemeral_resource(message).await
        }) {
            Ok(response) => response,
            Err(diagnostics) => return fail(diagnostics, Some(&ty)),
        };
        let mut diagnostics = diagnostics_from_proto(response.diagnostics);
        let result = self.decode_into(METHOD, "result", response.result, &ty, &mut diagnostics);
        OpenEphemeralResourceResponse {
            result,
            private: response.private,
            renew_at: response.renew_at.and_then(time_from_proto),
            deferred: deferred_from_proto(response.deferred),
            diagnostics,
        }
    }

    fn renew_ephemeral_resource(
        &self,
        request: RenewEphemeralResourceRequest,
    ) -> RenewEphemeralResourceResponse {
        let mut grpc = self.grpc.clone();
        let message = proto::renew_ephemeral_resource::Request {
            type_name: request.type_name,
            private: request.private,
        };
        match self.core.call("RenewEphemeralResource", async move {
            grpc.renew_ephemeral_resource(message).await
        }) {
            Ok(response) => RenewEphemeralResourceResponse {
                private: response.private,
                renew_at: response.renew_at.and_then(time_from_proto),
                diagnostics: diagnostics_from_proto(response.diagnostics),
            },
            Err(diagnostics) => RenewEphemeralResourceResponse {
                diagnostics,
                ..RenewEphemeralResourceResponse::default()
            },
        }
    }

    fn close_ephemeral_resource(
        &self,
        request: CloseEphemeralResourceRequest,
    ) -> CloseEphemeralResourceResponse {
        let mut grpc = self.grpc.clone();
        let message = proto::close_ephemeral_resource::Request {
            type_name: request.type_name,
            private: request.private,
        };
        let diagnostics = match self.core.call("CloseEphemeralResource", async move {
            grpc.close_ephemeral_resource(message).await
        }) {
            Ok(response) => diagnostics_from_proto(response.diagnostics),
            Err(diagnostics) => diagnostics,
        };
        CloseEphemeralResourceResponse { diagnostics }
    }

    fn get_functions(&self) -> GetFunctionsResponse {
        let mut grpc = self.grpc.clone();
        let response = match self.core.call("GetFunctions", async move {
            grpc.get_functions(proto::get_functions::Request {}).await
        }) {
            Ok(response) => response,
            Err(diagnostics) => {
                return GetFunctionsResponse {
                    diagnostics,
                    ..GetFunctionsResponse::default()
                }
            }
        };
        let mut diagnostics = diagnostics_from_proto(response.diagnostics);
        let mut functions = BTreeMap::new();
        for (name, function) in response.functions {
            match function_from_proto(function) {
                Ok(function) => {
                    functions.insert(name, function);
                }
                Err(e) => diagnostics.push(Diagnostic::error(
                    "Invalid provider schema",
                    format!(
                        "The provider {} returned an invalid definition for function {name:?}: \
                         {e}. This is a bug in the provider, which should be reported in the \
                         provider's own issue tracker.",
                        self.provider_name()
                    ),
                )),
            }
        }
        GetFunctionsResponse {
            functions,
            diagnostics,
        }
    }

    fn call_function(&self, request: CallFunctionRequest) -> CallFunctionResponse {
        const METHOD: &str = "CallFunction";
        let spec = match self.function_spec(&request.name) {
            Ok(spec) => spec,
            Err(text) => {
                return CallFunctionResponse {
                    result: Err(FunctionError::new(text)),
                }
            }
        };
        if request.arguments.len() < spec.parameters.len() {
            return CallFunctionResponse {
                result: Err(FunctionError::new(format!(
                    "function {} expects {} arguments, got {}",
                    request.name,
                    spec.parameters.len(),
                    request.arguments.len()
                ))),
            };
        }
        let mut arguments = Vec::with_capacity(request.arguments.len());
        for (index, argument) in request.arguments.iter().enumerate() {
            let Some(parameter) = spec
                .parameters
                .get(index)
                .or(spec.variadic_parameter.as_ref())
            else {
                return CallFunctionResponse {
                    result: Err(FunctionError::new(format!(
                        "too many arguments for function {}",
                        request.name
                    ))),
                };
            };
            // The protocol promises a provider that disallows unknowns
            // never sees one, even nested: the call is skipped and the
            // result is unknown.
            if !parameter.allow_unknown_values && !argument.is_wholly_known() {
                return CallFunctionResponse {
                    result: Ok(Value::unknown(spec.return_type.clone())),
                };
            }
            if argument.is_null() && !parameter.allow_null_value {
                return CallFunctionResponse {
                    result: Err(FunctionError {
                        text: format!(
                            "parameter {} is null, which is not allowed for function {}",
                            parameter.name, request.name
                        ),
                        argument: Some(index),
                    }),
                };
            }
            match self.encode(METHOD, "argument", argument, &parameter.ty) {
                Ok(encoded) => arguments.push(encoded),
                Err(diagnostics) => {
                    return CallFunctionResponse {
                        result: Err(FunctionError {
                            text: diagnostics.to_string(),
                            argument: Some(index),
                        }),
                    }
                }
            }
        }
        let mut grpc = self.grpc.clone();
        let message = proto::call_function::Request {
            name: request.name.clone(),
            arguments,
        };
        let response = match self
            .core
            .call(METHOD, async move { grpc.call_function(message).await })
        {
            Ok(response) => response,
            Err(diagnostics) => {
                return CallFunctionResponse {
                    result: Err(FunctionError::new(diagnostics.to_string())),
                }
            }
        };
        if let Some(error) = response.error {
            return CallFunctionResponse {
                result: Err(FunctionError {
                    text: error.text,
                    argument: error
                        .function_argument
                        .and_then(|index| usize::try_from(index).ok()),
                }),
            };
        }
        CallFunctionResponse {
            result: self
                .decode(METHOD, "result", response.result, &spec.return_type)
                .map_err(|diagnostic| FunctionError::new(diagnostic.to_string())),
        }
    }

    fn stop(&self) -> Diagnostics {
        let grpc = self.grpc.clone();
        match self.core.call(
            STOP_PROVIDER,
            rpc_stop_provider(grpc, stop_provider_msg::Request {}),
        ) {
            Ok(response) if response.error.is_empty() => Diagnostics::new(),
            Ok(response) => Diagnostic::error(
                "Failed to stop provider",
                format!(
                    "The provider {} could not stop its operations: {}",
                    self.provider_name(),
                    response.error
                ),
            )
            .into(),
            Err(diagnostics) => diagnostics,
        }
    }

    fn close(&self) -> Diagnostics {
        self.core.shutdown();
        Diagnostics::new()
    }
}

impl Client {
    /// A provider must never return a value for a write-only attribute;
    /// OpenTofu checks this in its client, and so does terrace.
    fn check_write_only(&self, type_name: &str, value: &Value, diagnostics: &mut Diagnostics) {
        let Some(schema) = self.schema().schema.resource_types.get(type_name) else {
            return;
        };
        for path in schema.block.write_only_paths_with_values(value) {
            diagnostics.push(Diagnostic::error(
                "Invalid provider response",
                format!(
                    "Resource type {type_name:?} returned an actual value for the write-only \
                     attribute {:?} while it is meant to be nil. This is an issue in the \
                     provider SDK.",
                    path.to_string()
                ),
            ));
        }
    }
}

// ----- conversions from the wire -----

fn diagnostics_from_proto(diagnostics: Vec<proto::Diagnostic>) -> Diagnostics {
    diagnostics
        .into_iter()
        .map(|d| Diagnostic {
            // INVALID is treated as an error: a provider that sends it
            // surely meant something was wrong.
            severity: if d.severity == proto::diagnostic::Severity::Warning as i32 {
                Severity::Warning
            } else {
                Severity::Error
            },
            summary: d.summary,
            detail: d.detail,
            attribute: d
                .attribute
                .as_ref()
                .map(attribute_path_from_proto)
                .filter(|path| !path.is_empty()),
        })
        .collect::<Vec<_>>()
        .into()
}

fn attribute_path_from_proto(path: &proto::AttributePath) -> AttributePath {
    use proto::attribute_path::step::Selector;
    AttributePath(
        path.steps
            .iter()
            .filter_map(|step| match &step.selector {
                Some(Selector::AttributeName(name)) => Some(PathStep::Attribute(name.clone())),
                Some(Selector::ElementKeyString(key)) => Some(PathStep::Key(key.clone())),
                Some(Selector::ElementKeyInt(index)) => Some(PathStep::Index(*index)),
                None => None,
            })
            .collect(),
    )
}

fn deferred_from_proto(deferred: Option<proto::Deferred>) -> Option<Deferred> {
    use proto::deferred::Reason;
    let deferred = deferred?;
    let reason = match Reason::try_from(deferred.reason) {
        Ok(Reason::ResourceConfigUnknown) => DeferredReason::ResourceConfigUnknown,
        Ok(Reason::ProviderConfigUnknown) => DeferredReason::ProviderConfigUnknown,
        Ok(Reason::AbsentPrereq) => DeferredReason::AbsentPrereq,
        Ok(Reason::Unknown) | Err(_) => DeferredReason::Unknown,
    };
    Some(Deferred { reason })
}

fn client_capabilities(capabilities: ClientCapabilities) -> proto::ClientCapabilities {
    proto::ClientCapabilities {
        deferral_allowed: capabilities.deferral_allowed,
        write_only_attributes_allowed: capabilities.write_only_attributes_allowed,
    }
}

fn server_capabilities_from_proto(
    capabilities: Option<proto::ServerCapabilities>,
) -> ServerCapabilities {
    let capabilities = capabilities.unwrap_or_default();
    ServerCapabilities {
        plan_destroy: capabilities.plan_destroy,
        get_provider_schema_optional: capabilities.get_provider_schema_optional,
        move_resource_state: capabilities.move_resource_state,
    }
}

fn string_kind(kind: i32) -> StringKind {
    if kind == proto::StringKind::Markdown as i32 {
        StringKind::Markdown
    } else {
        StringKind::Plain
    }
}

fn time_from_proto(timestamp: prost_types::Timestamp) -> Option<SystemTime> {
    let seconds = u64::try_from(timestamp.seconds).ok()?;
    let nanos = u32::try_from(timestamp.nanos).ok()?;
    SystemTime::UNIX_EPOCH.checked_add(Duration::new(seconds, nanos))
}

fn type_from_proto(json: &[u8]) -> Result<Type, String> {
    typejson::type_from_json(json)
        .map_err(|e| format!("invalid type {:?}: {e}", String::from_utf8_lossy(json)))
}

fn schema_from_proto(schema: proto::Schema) -> Result<Schema, String> {
    Ok(Schema {
        version: schema.version,
        block: block_from_proto(schema.block.unwrap_or_default())?,
    })
}

fn block_from_proto(block: proto::schema::Block) -> Result<Block, String> {
    let mut attributes = BTreeMap::new();
    for attribute in block.attributes {
        let name = attribute.name.clone();
        let converted =
            attribute_from_proto(attribute).map_err(|e| format!("attribute {name:?}: {e}"))?;
        attributes.insert(name, converted);
    }
    let mut block_types = BTreeMap::new();
    for nested in block.block_types {
        let name = nested.type_name.clone();
        let converted =
            nested_block_from_proto(nested).map_err(|e| format!("block type {name:?}: {e}"))?;
        block_types.insert(name, converted);
    }
    Ok(Block {
        attributes,
        block_types,
        description: block.description,
        description_kind: string_kind(block.description_kind),
        deprecated: block.deprecated,
    })
}

fn nested_block_from_proto(nested: proto::schema::NestedBlock) -> Result<NestedBlock, String> {
    use proto::schema::nested_block::NestingMode as Mode;
    let nesting = match Mode::try_from(nested.nesting) {
        Ok(Mode::Single) => NestingMode::Single,
        Ok(Mode::Group) => NestingMode::Group,
        Ok(Mode::List) => NestingMode::List,
        Ok(Mode::Set) => NestingMode::Set,
        Ok(Mode::Map) => NestingMode::Map,
        Ok(Mode::Invalid) | Err(_) => {
            return Err(format!("invalid nesting mode {}", nested.nesting))
        }
    };
    Ok(NestedBlock {
        nesting,
        block: block_from_proto(nested.block.unwrap_or_default())?,
        min_items: nested.min_items,
        max_items: nested.max_items,
    })
}

/// The flags every attribute has, whatever its type.
fn attribute_with_flags(ty: AttributeType, attribute: &proto::schema::Attribute) -> Attribute {
    Attribute {
        ty,
        description: attribute.description.clone(),
        description_kind: string_kind(attribute.description_kind),
        required: attribute.required,
        optional: attribute.optional,
        computed: attribute.computed,
        sensitive: attribute.sensitive,
        deprecated: attribute.deprecated,
        write_only: attribute.write_only,
    }
}

fn function_parameter_from_proto(
    parameter: proto::function::Parameter,
) -> Result<FunctionParameter, String> {
    Ok(FunctionParameter {
        ty: type_from_proto(&parameter.r#type)
            .map_err(|e| format!("parameter {:?}: {e}", parameter.name))?,
        name: parameter.name,
        allow_null_value: parameter.allow_null_value,
        allow_unknown_values: parameter.allow_unknown_values,
        description: parameter.description,
        description_kind: string_kind(parameter.description_kind),
    })
}

fn function_from_proto(function: proto::Function) -> Result<FunctionSpec, String> {
    let parameters = function
        .parameters
        .into_iter()
        .map(function_parameter_from_proto)
        .collect::<Result<Vec<_>, _>>()?;
    let variadic_parameter = function
        .variadic_parameter
        .map(function_parameter_from_proto)
        .transpose()?;
    let return_type = match &function.r#return {
        Some(ret) => type_from_proto(&ret.r#type).map_err(|e| format!("return type: {e}"))?,
        None => return Err("no return type".into()),
    };
    Ok(FunctionSpec {
        parameters,
        variadic_parameter,
        return_type,
        summary: function.summary,
        description: function.description,
        description_kind: string_kind(function.description_kind),
        deprecation_message: function.deprecation_message,
    })
}
