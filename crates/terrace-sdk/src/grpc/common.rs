// The half of the protocol server that tfplugin5 and tfplugin6 share:
// included (with `include!`) by `v5.rs` and `v6.rs`, where `proto` names
// that version's generated types and the `*_msg` aliases name the messages
// whose names differ. Each including module supplies
// `attribute_to_proto` and the calls of its service whose names or
// messages differ (through `provider_service!`); every call delegates here.

use super::{provider_call, Types};
use crate::serve::CallThreads;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::SystemTime;
use terrace_providers as tp;
use terrace_value::{msgpack, typejson, Type, Value};
use tonic::{Request, Response, Status};

type Reply<T> = Result<Response<T>, Status>;

/// The protocol's service implementation: the calls both protocols name
/// and shape alike are written here, each handing its request to the
/// `do_` method of the same name; the including module gives the others
/// as the macro's input. One macro makes the whole `impl`, since
/// `async_trait` rewrites only the methods it can see.
macro_rules! provider_service {
    (@impl [$($call:ident => $method:ident),*] $($differing:tt)*) => {
        #[tonic::async_trait]
        impl Service for Server {
            async fn get_metadata(
                &self,
                _: Request<proto::get_metadata::Request>,
            ) -> Reply<proto::get_metadata::Response> {
                self.do_get_metadata().await
            }

            async fn get_functions(
                &self,
                _: Request<proto::get_functions::Request>,
            ) -> Reply<proto::get_functions::Response> {
                self.do_get_functions().await
            }

            $(
                async fn $call(
                    &self,
                    request: Request<proto::$call::Request>,
                ) -> Reply<proto::$call::Response> {
                    self.$method(request.into_inner()).await
                }
            )*

            $($differing)*
        }
    };
    ($($differing:tt)*) => {
        provider_service! {
            @impl
            [
                upgrade_resource_state => do_upgrade_resource_state,
                read_resource => do_read_resource,
                plan_resource_change => do_plan_resource_change,
                apply_resource_change => do_apply_resource_change,
                import_resource_state => do_import_resource_state,
                move_resource_state => do_move_resource_state,
                read_data_source => do_read_data_source,
                validate_ephemeral_resource_config => do_validate_ephemeral_resource_config,
                open_ephemeral_resource => do_open_ephemeral_resource,
                renew_ephemeral_resource => do_renew_ephemeral_resource,
                close_ephemeral_resource => do_close_ephemeral_resource,
                call_function => do_call_function
            ]
            $($differing)*
        }
    };
}

#[derive(Clone)]
pub(crate) struct Server {
    provider: Arc<dyn tp::Provider>,
    schema: Arc<tp::ProviderSchema>,
    schema_diagnostics: tp::Diagnostics,
    types: Arc<Types>,
    calls: CallThreads,
}

impl Server {
    pub(crate) fn new(provider: Arc<dyn tp::Provider>, calls: CallThreads) -> Server {
        let response = provider.get_provider_schema();
        Server {
            calls,
            types: Arc::new(Types::new(&response.schema)),
            schema: response.schema,
            schema_diagnostics: response.diagnostics,
            provider,
        }
    }

    fn resource_type(&self, name: &str) -> Result<Type, tp::Diagnostics> {
        self.types
            .resources
            .get(name)
            .cloned()
            .ok_or_else(|| unknown("resource type", name))
    }

    fn data_source_type(&self, name: &str) -> Result<Type, tp::Diagnostics> {
        self.types
            .data_sources
            .get(name)
            .cloned()
            .ok_or_else(|| unknown("data source", name))
    }

    fn ephemeral_type(&self, name: &str) -> Result<Type, tp::Diagnostics> {
        self.types
            .ephemeral
            .get(name)
            .cloned()
            .ok_or_else(|| unknown("ephemeral resource type", name))
    }
}

fn unknown(what: &str, name: &str) -> tp::Diagnostics {
    tp::Diagnostic::error(
        format!("Unknown {what}"),
        format!(
            "This provider has no {what} named {}.",
            terrace_value::gostr::quote(name)
        ),
    )
    .into()
}

// ----- values -----

fn decode(what: &str, value: Option<proto::DynamicValue>, ty: &Type) -> Result<Value, tp::Diagnostics> {
    let decoded = match value {
        Some(value) if !value.msgpack.is_empty() => msgpack::decode(&value.msgpack, ty),
        Some(value) if !value.json.is_empty() => terrace_value::json::from_json(&value.json, ty),
        _ => Ok(Value::null(ty.clone())),
    };
    decoded.map_err(|e| {
        let path = tp::AttributePath::from_value_path(&e.path);
        tp::Diagnostic::error(
            "Invalid request",
            format!(
                "The provider could not decode the {what} it was sent: {}{}. This is a bug in \
                 the caller.",
                if path.is_empty() { String::new() } else { format!("{path}: ") },
                e.message
            ),
        )
        .into()
    })
}

fn encode(what: &str, value: &Value, ty: &Type) -> Result<proto::DynamicValue, tp::Diagnostics> {
    let (value, _) = value.unmark_deep();
    msgpack::encode(&value, ty)
        .map(|msgpack| proto::DynamicValue {
            msgpack,
            json: Vec::new(),
        })
        .map_err(|e| {
            let path = tp::AttributePath::from_value_path(&e.path);
            tp::Diagnostic::error(
                "Provider produced an invalid value",
                format!(
                    "The {what} does not fit its schema: {}{}. This is a bug in the provider.",
                    if path.is_empty() { String::new() } else { format!("{path}: ") },
                    e.message
                ),
            )
            .into()
        })
}

/// Encodes into `slot`, or records why not.
fn encode_into(
    what: &str,
    value: &Value,
    ty: &Type,
    diagnostics: &mut tp::Diagnostics,
) -> Option<proto::DynamicValue> {
    match encode(what, value, ty) {
        Ok(encoded) => Some(encoded),
        Err(d) => {
            diagnostics.extend(d);
            None
        }
    }
}

fn diagnostics_to_proto(diagnostics: tp::Diagnostics) -> Vec<proto::Diagnostic> {
    diagnostics
        .into_iter()
        .map(|d| proto::Diagnostic {
            severity: match d.severity {
                tp::Severity::Error => proto::diagnostic::Severity::Error as i32,
                tp::Severity::Warning => proto::diagnostic::Severity::Warning as i32,
            },
            summary: d.summary,
            detail: d.detail,
            attribute: d.attribute.map(|path| attribute_path_to_proto(&path)),
        })
        .collect()
}

fn attribute_path_to_proto(path: &tp::AttributePath) -> proto::AttributePath {
    use proto::attribute_path::step::Selector;
    proto::AttributePath {
        steps: path
            .steps()
            .iter()
            .map(|step| proto::attribute_path::Step {
                selector: Some(match step {
                    tp::PathStep::Attribute(name) => Selector::AttributeName(name.clone()),
                    tp::PathStep::Key(key) => Selector::ElementKeyString(key.clone()),
                    tp::PathStep::Index(index) => Selector::ElementKeyInt(*index),
                }),
            })
            .collect(),
    }
}

fn client_capabilities(capabilities: Option<proto::ClientCapabilities>) -> tp::ClientCapabilities {
    match capabilities {
        Some(c) => tp::ClientCapabilities {
            deferral_allowed: c.deferral_allowed,
            write_only_attributes_allowed: c.write_only_attributes_allowed,
        },
        None => tp::ClientCapabilities {
            deferral_allowed: false,
            write_only_attributes_allowed: false,
        },
    }
}

fn deferred_to_proto(deferred: Option<tp::Deferred>) -> Option<proto::Deferred> {
    use proto::deferred::Reason;
    deferred.map(|d| proto::Deferred {
        reason: match d.reason {
            tp::DeferredReason::Unknown => Reason::Unknown,
            tp::DeferredReason::ResourceConfigUnknown => Reason::ResourceConfigUnknown,
            tp::DeferredReason::ProviderConfigUnknown => Reason::ProviderConfigUnknown,
            tp::DeferredReason::AbsentPrereq => Reason::AbsentPrereq,
        } as i32,
    })
}

fn timestamp(time: Option<SystemTime>) -> Option<prost_types::Timestamp> {
    let since = time?.duration_since(SystemTime::UNIX_EPOCH).ok()?;
    Some(prost_types::Timestamp {
        seconds: i64::try_from(since.as_secs()).ok()?,
        nanos: i32::try_from(since.subsec_nanos()).ok()?,
    })
}

fn raw_state(raw: Option<proto::RawState>) -> tp::RawState {
    let raw = raw.unwrap_or_default();
    tp::RawState {
        json: raw.json,
        flatmap: raw.flatmap.into_iter().collect(),
    }
}

// ----- schemas -----

fn string_kind(kind: tp::StringKind) -> i32 {
    match kind {
        tp::StringKind::Plain => proto::StringKind::Plain as i32,
        tp::StringKind::Markdown => proto::StringKind::Markdown as i32,
    }
}

fn type_json(ty: &Type) -> Vec<u8> {
    typejson::type_to_json(ty).into_bytes()
}

fn schema_to_proto(schema: &tp::Schema) -> proto::Schema {
    proto::Schema {
        version: schema.version,
        block: Some(block_to_proto(&schema.block, schema.version)),
    }
}

fn block_to_proto(block: &tp::Block, version: i64) -> proto::schema::Block {
    proto::schema::Block {
        version,
        attributes: block
            .attributes
            .iter()
            .map(|(name, attribute)| attribute_to_proto(name, attribute))
            .collect(),
        block_types: block
            .block_types
            .iter()
            .map(|(name, nested)| {
                use proto::schema::nested_block::NestingMode as Mode;
                proto::schema::NestedBlock {
                    type_name: name.clone(),
                    block: Some(block_to_proto(&nested.block, 0)),
                    nesting: match nested.nesting {
                        tp::NestingMode::Single => Mode::Single,
                        tp::NestingMode::Group => Mode::Group,
                        tp::NestingMode::List => Mode::List,
                        tp::NestingMode::Set => Mode::Set,
                        tp::NestingMode::Map => Mode::Map,
                    } as i32,
                    min_items: nested.min_items,
                    max_items: nested.max_items,
                }
            })
            .collect(),
        description: block.description.clone(),
        description_kind: string_kind(block.description_kind),
        deprecated: block.deprecated,
    }
}

fn function_parameter_to_proto(parameter: &tp::FunctionParameter) -> proto::function::Parameter {
    proto::function::Parameter {
        name: parameter.name.clone(),
        r#type: type_json(&parameter.ty),
        allow_null_value: parameter.allow_null_value,
        allow_unknown_values: parameter.allow_unknown_values,
        description: parameter.description.clone(),
        description_kind: string_kind(parameter.description_kind),
    }
}

fn function_to_proto(function: &tp::FunctionSpec) -> proto::Function {
    proto::Function {
        parameters: function
            .parameters
            .iter()
            .map(function_parameter_to_proto)
            .collect(),
        variadic_parameter: function
            .variadic_parameter
            .as_ref()
            .map(function_parameter_to_proto),
        r#return: Some(proto::function::Return {
            r#type: type_json(&function.return_type),
        }),
        summary: function.summary.clone(),
        description: function.description.clone(),
        description_kind: string_kind(function.description_kind),
        deprecation_message: function.deprecation_message.clone(),
    }
}

fn server_capabilities(capabilities: tp::ServerCapabilities) -> proto::ServerCapabilities {
    proto::ServerCapabilities {
        plan_destroy: capabilities.plan_destroy,
        get_provider_schema_optional: capabilities.get_provider_schema_optional,
        move_resource_state: capabilities.move_resource_state,
    }
}

fn functions_to_proto(functions: &BTreeMap<String, tp::FunctionSpec>) -> std::collections::HashMap<String, proto::Function> {
    functions
        .iter()
        .map(|(name, function)| (name.clone(), function_to_proto(function)))
        .collect()
}

// ----- the calls -----

impl Server {
    async fn do_get_metadata(&self) -> Reply<proto::get_metadata::Response> {
        let provider = self.provider.clone();
        let metadata = provider_call(self.calls, move || provider.get_metadata()).await?;
        Ok(Response::new(proto::get_metadata::Response {
            server_capabilities: Some(server_capabilities(metadata.server_capabilities)),
            diagnostics: diagnostics_to_proto(metadata.diagnostics),
            data_sources: metadata
                .data_sources
                .into_iter()
                .map(|type_name| proto::get_metadata::DataSourceMetadata { type_name })
                .collect(),
            resources: metadata
                .resources
                .into_iter()
                .map(|type_name| proto::get_metadata::ResourceMetadata { type_name })
                .collect(),
            functions: metadata
                .functions
                .into_iter()
                .map(|name| proto::get_metadata::FunctionMetadata { name })
                .collect(),
            ephemeral_resources: metadata
                .ephemeral_resources
                .into_iter()
                .map(|type_name| proto::get_metadata::EphemeralResourceMetadata { type_name })
                .collect(),
        }))
    }

    async fn do_get_provider_schema(&self) -> Reply<proto::get_provider_schema::Response> {
        let schema = &self.schema;
        let map = |schemas: &BTreeMap<String, tp::Schema>| {
            schemas
                .iter()
                .map(|(name, schema)| (name.clone(), schema_to_proto(schema)))
                .collect()
        };
        Ok(Response::new(proto::get_provider_schema::Response {
            provider: Some(schema_to_proto(&schema.provider)),
            resource_schemas: map(&schema.resource_types),
            data_source_schemas: map(&schema.data_sources),
            diagnostics: diagnostics_to_proto(self.schema_diagnostics.clone()),
            provider_meta: schema.provider_meta.as_ref().map(schema_to_proto),
            server_capabilities: Some(server_capabilities(schema.server_capabilities)),
            functions: functions_to_proto(&schema.functions),
            ephemeral_resource_schemas: map(&schema.ephemeral_resources),
        }))
    }

    /// The prepared configuration (protocol 5 returns it) and diagnostics.
    async fn do_validate_provider_config(
        &self,
        config: Option<proto::DynamicValue>,
    ) -> Result<(Option<proto::DynamicValue>, Vec<proto::Diagnostic>), Status> {
        let ty = self.types.provider.clone();
        let config = match decode("configuration", config, &ty) {
            Ok(config) => config,
            Err(d) => return Ok((None, diagnostics_to_proto(d))),
        };
        let provider = self.provider.clone();
        let response = provider_call(self.calls, move || {
            provider.validate_provider_config(tp::ValidateProviderConfigRequest { config })
        })
        .await?;
        let mut diagnostics = response.diagnostics;
        let prepared = encode_into(
            "prepared configuration",
            &response.prepared_config,
            &ty,
            &mut diagnostics,
        );
        Ok((prepared, diagnostics_to_proto(diagnostics)))
    }

    async fn do_validate_resource_config(
        &self,
        request: validate_resource_config_msg::Request,
    ) -> Result<Vec<proto::Diagnostic>, Status> {
        let capabilities = client_capabilities(request.client_capabilities);
        let result = self
            .resource_type(&request.type_name)
            .and_then(|ty| decode("configuration", request.config, &ty));
        let config = match result {
            Ok(config) => config,
            Err(d) => return Ok(diagnostics_to_proto(d)),
        };
        let provider = self.provider.clone();
        let request = tp::ValidateResourceConfigRequest {
            type_name: request.type_name,
            config,
            client_capabilities: capabilities,
        };
        let response = provider_call(self.calls, move || provider.validate_resource_config(request)).await?;
        Ok(diagnostics_to_proto(response.diagnostics))
    }

    async fn do_validate_data_resource_config(
        &self,
        type_name: String,
        config: Option<proto::DynamicValue>,
    ) -> Result<Vec<proto::Diagnostic>, Status> {
        let config = match self
            .data_source_type(&type_name)
            .and_then(|ty| decode("configuration", config, &ty))
        {
            Ok(config) => config,
            Err(d) => return Ok(diagnostics_to_proto(d)),
        };
        let provider = self.provider.clone();
        let response = provider_call(self.calls, move || {
            provider.validate_data_resource_config(tp::ValidateDataResourceConfigRequest {
                type_name,
                config,
            })
        })
        .await?;
        Ok(diagnostics_to_proto(response.diagnostics))
    }

    async fn do_upgrade_resource_state(
        &self,
        request: proto::upgrade_resource_state::Request,
    ) -> Reply<proto::upgrade_resource_state::Response> {
        let ty = match self.resource_type(&request.type_name) {
            Ok(ty) => ty,
            Err(d) => {
                return Ok(Response::new(proto::upgrade_resource_state::Response {
                    upgraded_state: None,
                    diagnostics: diagnostics_to_proto(d),
                }))
            }
        };
        let provider = self.provider.clone();
        let call = tp::UpgradeResourceStateRequest {
            type_name: request.type_name,
            version: request.version,
            raw_state: raw_state(request.raw_state),
        };
        let response = provider_call(self.calls, move || provider.upgrade_resource_state(call)).await?;
        let mut diagnostics = response.diagnostics;
        let upgraded_state = if diagnostics.has_errors() {
            None
        } else {
            encode_into("upgraded state", &response.upgraded_state, &ty, &mut diagnostics)
        };
        Ok(Response::new(proto::upgrade_resource_state::Response {
            upgraded_state,
            diagnostics: diagnostics_to_proto(diagnostics),
        }))
    }

    async fn do_configure_provider(
        &self,
        terraform_version: String,
        config: Option<proto::DynamicValue>,
        capabilities: Option<proto::ClientCapabilities>,
    ) -> Result<Vec<proto::Diagnostic>, Status> {
        let config = match decode("configuration", config, &self.types.provider) {
            Ok(config) => config,
            Err(d) => return Ok(diagnostics_to_proto(d)),
        };
        let provider = self.provider.clone();
        let request = tp::ConfigureProviderRequest {
            terraform_version,
            config,
            client_capabilities: client_capabilities(capabilities),
        };
        let response = provider_call(self.calls, move || provider.configure_provider(request)).await?;
        Ok(diagnostics_to_proto(response.diagnostics))
    }

    async fn do_read_resource(
        &self,
        request: proto::read_resource::Request,
    ) -> Reply<proto::read_resource::Response> {
        let failed = |d: tp::Diagnostics, state: Option<proto::DynamicValue>, private: Vec<u8>| {
            Ok(Response::new(proto::read_resource::Response {
                new_state: state,
                diagnostics: diagnostics_to_proto(d),
                private,
                deferred: None,
            }))
        };
        let ty = match self.resource_type(&request.type_name) {
            Ok(ty) => ty,
            Err(d) => return failed(d, request.current_state, request.private),
        };
        let prior_state = match decode("current state", request.current_state.clone(), &ty) {
            Ok(state) => state,
            Err(d) => return failed(d, request.current_state, request.private),
        };
        let provider = self.provider.clone();
        let call = tp::ReadResourceRequest {
            type_name: request.type_name,
            prior_state,
            private: request.private,
            provider_meta: None,
            client_capabilities: client_capabilities(request.client_capabilities),
        };
        let response = provider_call(self.calls, move || provider.read_resource(call)).await?;
        let mut diagnostics = response.diagnostics;
        let new_state = encode_into("new state", &response.new_state, &ty, &mut diagnostics);
        Ok(Response::new(proto::read_resource::Response {
            new_state,
            diagnostics: diagnostics_to_proto(diagnostics),
            private: response.private,
            deferred: deferred_to_proto(response.deferred),
        }))
    }

    async fn do_plan_resource_change(
        &self,
        request: proto::plan_resource_change::Request,
    ) -> Reply<proto::plan_resource_change::Response> {
        let failed = |d: tp::Diagnostics| {
            Ok(Response::new(proto::plan_resource_change::Response {
                diagnostics: diagnostics_to_proto(d),
                ..Default::default()
            }))
        };
        let ty = match self.resource_type(&request.type_name) {
            Ok(ty) => ty,
            Err(d) => return failed(d),
        };
        let decoded = (|| {
            Ok::<_, tp::Diagnostics>((
                decode("prior state", request.prior_state, &ty)?,
                decode("proposed new state", request.proposed_new_state, &ty)?,
                decode("configuration", request.config, &ty)?,
            ))
        })();
        let (prior_state, proposed_new_state, config) = match decoded {
            Ok(values) => values,
            Err(d) => return failed(d),
        };
        let provider = self.provider.clone();
        let call = tp::PlanResourceChangeRequest {
            type_name: request.type_name,
            prior_state,
            proposed_new_state,
            config,
            prior_private: request.prior_private,
            provider_meta: None,
            client_capabilities: client_capabilities(request.client_capabilities),
        };
        let response = provider_call(self.calls, move || provider.plan_resource_change(call)).await?;
        let mut diagnostics = response.diagnostics;
        let planned_state = encode_into("planned state", &response.planned_state, &ty, &mut diagnostics);
        Ok(Response::new(proto::plan_resource_change::Response {
            planned_state,
            requires_replace: response
                .requires_replace
                .iter()
                .map(attribute_path_to_proto)
                .collect(),
            planned_private: response.planned_private,
            diagnostics: diagnostics_to_proto(diagnostics),
            legacy_type_system: response.legacy_type_system,
            deferred: deferred_to_proto(response.deferred),
        }))
    }

    async fn do_apply_resource_change(
        &self,
        request: proto::apply_resource_change::Request,
    ) -> Reply<proto::apply_resource_change::Response> {
        let failed = |d: tp::Diagnostics| {
            Ok(Response::new(proto::apply_resource_change::Response {
                diagnostics: diagnostics_to_proto(d),
                ..Default::default()
            }))
        };
        let ty = match self.resource_type(&request.type_name) {
            Ok(ty) => ty,
            Err(d) => return failed(d),
        };
        let decoded = (|| {
            Ok::<_, tp::Diagnostics>((
                decode("prior state", request.prior_state, &ty)?,
                decode("planned state", request.planned_state, &ty)?,
                decode("configuration", request.config, &ty)?,
            ))
        })();
        let (prior_state, planned_state, config) = match decoded {
            Ok(values) => values,
            Err(d) => return failed(d),
        };
        let provider = self.provider.clone();
        let call = tp::ApplyResourceChangeRequest {
            type_name: request.type_name,
            prior_state,
            planned_state,
            config,
            planned_private: request.planned_private,
            provider_meta: None,
        };
        let response = provider_call(self.calls, move || provider.apply_resource_change(call)).await?;
        let mut diagnostics = response.diagnostics;
        let new_state = encode_into("new state", &response.new_state, &ty, &mut diagnostics);
        Ok(Response::new(proto::apply_resource_change::Response {
            new_state,
            private: response.private,
            diagnostics: diagnostics_to_proto(diagnostics),
            legacy_type_system: response.legacy_type_system,
        }))
    }

    async fn do_import_resource_state(
        &self,
        request: proto::import_resource_state::Request,
    ) -> Reply<proto::import_resource_state::Response> {
        if let Err(d) = self.resource_type(&request.type_name) {
            return Ok(Response::new(proto::import_resource_state::Response {
                diagnostics: diagnostics_to_proto(d),
                ..Default::default()
            }));
        }
        let provider = self.provider.clone();
        let call = tp::ImportResourceStateRequest {
            type_name: request.type_name,
            id: request.id,
            client_capabilities: client_capabilities(request.client_capabilities),
        };
        let response = provider_call(self.calls, move || provider.import_resource_state(call)).await?;
        let mut diagnostics = response.diagnostics;
        let mut imported = Vec::new();
        for resource in response.imported_resources {
            let state = match self.resource_type(&resource.type_name) {
                Ok(ty) => encode_into("imported state", &resource.state, &ty, &mut diagnostics),
                Err(d) => {
                    diagnostics.extend(d);
                    None
                }
            };
            imported.push(proto::import_resource_state::ImportedResource {
                type_name: resource.type_name,
                state,
                private: resource.private,
            });
        }
        Ok(Response::new(proto::import_resource_state::Response {
            imported_resources: imported,
            diagnostics: diagnostics_to_proto(diagnostics),
            deferred: deferred_to_proto(response.deferred),
        }))
    }

    async fn do_move_resource_state(
        &self,
        request: proto::move_resource_state::Request,
    ) -> Reply<proto::move_resource_state::Response> {
        let ty = match self.resource_type(&request.target_type_name) {
            Ok(ty) => ty,
            Err(d) => {
                return Ok(Response::new(proto::move_resource_state::Response {
                    diagnostics: diagnostics_to_proto(d),
                    ..Default::default()
                }))
            }
        };
        let provider = self.provider.clone();
        let call = tp::MoveResourceStateRequest {
            source_provider_address: request.source_provider_address,
            source_type_name: request.source_type_name,
            source_schema_version: request.source_schema_version,
            source_state_json: raw_state(request.source_state).json,
            source_private: request.source_private,
            target_type_name: request.target_type_name,
        };
        let response = provider_call(self.calls, move || provider.move_resource_state(call)).await?;
        let mut diagnostics = response.diagnostics;
        let target_state = if diagnostics.has_errors() {
            None
        } else {
            encode_into("target state", &response.target_state, &ty, &mut diagnostics)
        };
        Ok(Response::new(proto::move_resource_state::Response {
            target_state,
            diagnostics: diagnostics_to_proto(diagnostics),
            target_private: response.target_private,
        }))
    }

    async fn do_read_data_source(
        &self,
        request: proto::read_data_source::Request,
    ) -> Reply<proto::read_data_source::Response> {
        let failed = |d: tp::Diagnostics| {
            Ok(Response::new(proto::read_data_source::Response {
                diagnostics: diagnostics_to_proto(d),
                ..Default::default()
            }))
        };
        let ty = match self.data_source_type(&request.type_name) {
            Ok(ty) => ty,
            Err(d) => return failed(d),
        };
        let config = match decode("configuration", request.config, &ty) {
            Ok(config) => config,
            Err(d) => return failed(d),
        };
        let provider = self.provider.clone();
        let call = tp::ReadDataSourceRequest {
            type_name: request.type_name,
            config,
            provider_meta: None,
            client_capabilities: client_capabilities(request.client_capabilities),
        };
        let response = provider_call(self.calls, move || provider.read_data_source(call)).await?;
        let mut diagnostics = response.diagnostics;
        let state = if diagnostics.has_errors() {
            None
        } else {
            encode_into("state", &response.state, &ty, &mut diagnostics)
        };
        Ok(Response::new(proto::read_data_source::Response {
            state,
            diagnostics: diagnostics_to_proto(diagnostics),
            deferred: deferred_to_proto(response.deferred),
        }))
    }

    async fn do_validate_ephemeral_resource_config(
        &self,
        request: proto::validate_ephemeral_resource_config::Request,
    ) -> Reply<proto::validate_ephemeral_resource_config::Response> {
        let config = match self
            .ephemeral_type(&request.type_name)
            .and_then(|ty| decode("configuration", request.config, &ty))
        {
            Ok(config) => config,
            Err(d) => {
                return Ok(Response::new(
                    proto::validate_ephemeral_resource_config::Response {
                        diagnostics: diagnostics_to_proto(d),
                    },
                ))
            }
        };
        let provider = self.provider.clone();
        let call = tp::ValidateEphemeralResourceConfigRequest {
            type_name: request.type_name,
            config,
        };
        let response = provider_call(self.calls, move || provider.validate_ephemeral_resource_config(call)).await?;
        Ok(Response::new(proto::validate_ephemeral_resource_config::Response {
            diagnostics: diagnostics_to_proto(response.diagnostics),
        }))
    }

    async fn do_open_ephemeral_resource(
        &self,
        request: proto::open_ephemeral_resource::Request,
    ) -> Reply<proto::open_ephemeral_resource::Response> {
        let failed = |d: tp::Diagnostics| {
            Ok(Response::new(proto::open_ephemeral_resource::Response {
                diagnostics: diagnostics_to_proto(d),
                ..Default::default()
            }))
        };
        let ty = match self.ephemeral_type(&request.type_name) {
            Ok(ty) => ty,
            Err(d) => return failed(d),
        };
        let config = match decode("configuration", request.config, &ty) {
            Ok(config) => config,
            Err(d) => return failed(d),
        };
        let provider = self.provider.clone();
        let call = tp::OpenEphemeralResourceRequest {
            type_name: request.type_name,
            config,
            client_capabilities: client_capabilities(request.client_capabilities),
        };
        let response = provider_call(self.calls, move || provider.open_ephemeral_resource(call)).await?;
        let mut diagnostics = response.diagnostics;
        let result = if diagnostics.has_errors() {
            None
        } else {
            encode_into("result", &response.result, &ty, &mut diagnostics)
        };
        Ok(Response::new(proto::open_ephemeral_resource::Response {
            diagnostics: diagnostics_to_proto(diagnostics),
            renew_at: timestamp(response.renew_at),
            result,
            private: response.private,
            deferred: deferred_to_proto(response.deferred),
        }))
    }

    async fn do_renew_ephemeral_resource(
        &self,
        request: proto::renew_ephemeral_resource::Request,
    ) -> Reply<proto::renew_ephemeral_resource::Response> {
        let provider = self.provider.clone();
        let call = tp::RenewEphemeralResourceRequest {
            type_name: request.type_name,
            private: request.private,
        };
        let response = provider_call(self.calls, move || provider.renew_ephemeral_resource(call)).await?;
        Ok(Response::new(proto::renew_ephemeral_resource::Response {
            diagnostics: diagnostics_to_proto(response.diagnostics),
            renew_at: timestamp(response.renew_at),
            private: response.private,
        }))
    }

    async fn do_close_ephemeral_resource(
        &self,
        request: proto::close_ephemeral_resource::Request,
    ) -> Reply<proto::close_ephemeral_resource::Response> {
        let provider = self.provider.clone();
        let call = tp::CloseEphemeralResourceRequest {
            type_name: request.type_name,
            private: request.private,
        };
        let response = provider_call(self.calls, move || provider.close_ephemeral_resource(call)).await?;
        Ok(Response::new(proto::close_ephemeral_resource::Response {
            diagnostics: diagnostics_to_proto(response.diagnostics),
        }))
    }

    async fn do_get_functions(&self) -> Reply<proto::get_functions::Response> {
        let provider = self.provider.clone();
        let response = provider_call(self.calls, move || provider.get_functions()).await?;
        Ok(Response::new(proto::get_functions::Response {
            functions: functions_to_proto(&response.functions),
            diagnostics: diagnostics_to_proto(response.diagnostics),
        }))
    }

    async fn do_call_function(
        &self,
        request: proto::call_function::Request,
    ) -> Reply<proto::call_function::Response> {
        let failed = |text: String, argument: Option<usize>| {
            Ok(Response::new(proto::call_function::Response {
                result: None,
                error: Some(proto::FunctionError {
                    text,
                    function_argument: argument.and_then(|a| i64::try_from(a).ok()),
                }),
            }))
        };
        let Some(spec) = self.schema.functions.get(&request.name) else {
            return failed(
                format!(
                    "This provider has no function named {}.",
                    terrace_value::gostr::quote(&request.name)
                ),
                None,
            );
        };
        let mut arguments = Vec::with_capacity(request.arguments.len());
        for (index, argument) in request.arguments.into_iter().enumerate() {
            let parameter = spec
                .parameters
                .get(index)
                .or(spec.variadic_parameter.as_ref());
            let Some(parameter) = parameter else {
                return failed(
                    format!("Too many arguments for function {}.", request.name),
                    Some(index),
                );
            };
            match decode("argument", Some(argument), &parameter.ty) {
                Ok(value) => arguments.push(value),
                Err(d) => return failed(d.to_string(), Some(index)),
            }
        }
        let return_type = spec.return_type.clone();
        let provider = self.provider.clone();
        let call = tp::CallFunctionRequest {
            name: request.name,
            arguments,
        };
        let response = provider_call(self.calls, move || provider.call_function(call)).await?;
        match response.result {
            Ok(value) => match encode("function result", &value, &return_type) {
                Ok(result) => Ok(Response::new(proto::call_function::Response {
                    result: Some(result),
                    error: None,
                })),
                Err(d) => failed(d.to_string(), None),
            },
            Err(error) => failed(error.text, error.argument),
        }
    }

    async fn do_stop(&self) -> Result<String, Status> {
        let provider = self.provider.clone();
        let diagnostics = provider_call(self.calls, move || provider.stop()).await?;
        Ok(if diagnostics.has_errors() {
            diagnostics.to_string()
        } else {
            String::new()
        })
    }
}
