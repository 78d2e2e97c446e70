//! `SdkProvider`: a `ProviderSpec` brought to life behind the
//! `terrace_providers::Provider` trait. It validates configurations, plans
//! (defaults, unknown computed values, replacements, the consistency rules
//! Terraform enforces), applies through the resource's callbacks with
//! partial state on failure, reads (removing objects found gone), imports,
//! upgrades states and calls functions. The same value serves over gRPC
//! (`serve`) or can be called in-process.

use crate::data::ResourceData;
use crate::error::Error;
use crate::plan::{fill, plan_violations, replace_paths, unknown_computed, Fill};
use crate::resource::{PlanData, ProviderSpec, ResourceSpec, Timeouts, TIMEOUTS_BLOCK};
use crate::schema::BlockSpec;
use crate::timeouts::{parse_duration, Context, DEFAULT_TIMEOUT};
use crate::validate::validate_block;
use crate::values::{describe_path, get_attr, nonconforming_paths, unknown_as_null};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use terrace_providers::*;
use terrace_value::convert::convert;
use terrace_value::Value;

pub struct SdkProvider<C> {
    spec: ProviderSpec<C>,
    schema: Arc<ProviderSchema>,
    /// Effective schemas (with `timeouts` blocks), by type name.
    resource_schemas: BTreeMap<String, BlockSpec>,
    data_source_schemas: BTreeMap<String, BlockSpec>,
    ephemeral_schemas: BTreeMap<String, BlockSpec>,
    client: RwLock<Option<Arc<C>>>,
    stop: Arc<AtomicBool>,
}

impl<C: Send + Sync + 'static> SdkProvider<C> {
    pub fn new(spec: ProviderSpec<C>) -> SdkProvider<C> {
        let resource_schemas: BTreeMap<String, BlockSpec> = spec
            .resources
            .iter()
            .map(|(name, resource)| (name.clone(), resource.effective_schema()))
            .collect();
        let data_source_schemas: BTreeMap<String, BlockSpec> = spec
            .data_sources
            .iter()
            .map(|(name, data_source)| (name.clone(), data_source.effective_schema()))
            .collect();
        let ephemeral_schemas: BTreeMap<String, BlockSpec> = spec
            .ephemeral_resources
            .iter()
            .map(|(name, ephemeral)| (name.clone(), ephemeral.schema.clone()))
            .collect();
        let schema = ProviderSchema {
            provider: Schema {
                version: 0,
                block: spec.schema.to_block(),
            },
            provider_meta: None,
            resource_types: resource_schemas
                .iter()
                .map(|(name, block)| {
                    let version = spec.resources.get(name).map_or(0, |r| r.version);
                    (
                        name.clone(),
                        Schema {
                            version,
                            block: block.to_block(),
                        },
                    )
                })
                .collect(),
            data_sources: data_source_schemas
                .iter()
                .map(|(name, block)| {
                    (
                        name.clone(),
                        Schema {
                            version: 0,
                            block: block.to_block(),
                        },
                    )
                })
                .collect(),
            ephemeral_resources: ephemeral_schemas
                .iter()
                .map(|(name, block)| {
                    (
                        name.clone(),
                        Schema {
                            version: 0,
                            block: block.to_block(),
                        },
                    )
                })
                .collect(),
            functions: spec
                .functions
                .iter()
                .map(|(name, function)| (name.clone(), function.spec.clone()))
                .collect(),
            server_capabilities: ServerCapabilities {
                plan_destroy: false,
                get_provider_schema_optional: true,
                move_resource_state: false,
            },
        };
        SdkProvider {
            spec,
            schema: Arc::new(schema),
            resource_schemas,
            data_source_schemas,
            ephemeral_schemas,
            client: RwLock::new(None),
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    pub fn spec(&self) -> &ProviderSpec<C> {
        &self.spec
    }

    /// The client made by `configure`, or why there is none.
    fn client(&self) -> Result<Arc<C>, Diagnostics> {
        self.client
            .read()
            .ok()
            .and_then(|client| client.clone())
            .ok_or_else(|| {
                Diagnostic::error(
                    "Provider not configured",
                    "The provider was asked to act before it was configured. This is a bug in \
                     the caller: Terraform configures every provider first.",
                )
                .into()
            })
    }

    fn resource(&self, type_name: &str) -> Result<(&ResourceSpec<C>, &BlockSpec), Diagnostics> {
        match (
            self.spec.resources.get(type_name),
            self.resource_schemas.get(type_name),
        ) {
            (Some(resource), Some(schema)) => Ok((resource, schema)),
            _ => Err(unknown_type("resource type", type_name)),
        }
    }

    fn ephemeral(
        &self,
        type_name: &str,
    ) -> Result<(&crate::resource::EphemeralResourceSpec<C>, &BlockSpec), Diagnostics> {
        match (
            self.spec.ephemeral_resources.get(type_name),
            self.ephemeral_schemas.get(type_name),
        ) {
            (Some(ephemeral), Some(schema)) => Ok((ephemeral, schema)),
            _ => Err(unknown_type("ephemeral resource type", type_name)),
        }
    }

    fn context(&self, operation: &'static str, limit: Duration) -> Context {
        Context::new(operation, limit, self.stop.clone())
    }

    /// The limit of `operation`: the object's `timeouts` block, else the
    /// resource's declared default.
    fn limit(timeouts: Option<&Timeouts>, object: &Value, operation: &str) -> Duration {
        let Some(timeouts) = timeouts else {
            return DEFAULT_TIMEOUT;
        };
        let block = get_attr(object, TIMEOUTS_BLOCK);
        for name in [operation, "default"] {
            if let Some(limit) = get_attr(&block, name)
                .as_str()
                .and_then(|text| parse_duration(text).ok())
            {
                return limit;
            }
        }
        timeouts.limit(operation)
    }

    fn plan(
        &self,
        request: &PlanResourceChangeRequest,
    ) -> Result<(Value, Vec<AttributePath>, Diagnostics), Diagnostics> {
        let (resource, schema) = self.resource(&request.type_name)?;
        if request.proposed_new_state.is_null() {
            return Ok((
                request.proposed_new_state.clone(),
                Vec::new(),
                Diagnostics::new(),
            ));
        }
        let create = request.prior_state.is_null();
        let mut planned = fill(
            schema,
            &request.config,
            &request.proposed_new_state,
            if create { Fill::Create } else { Fill::Update },
        );
        let mut requires_replace = Vec::new();
        if !create {
            requires_replace = replace_paths(schema, &request.prior_state, &planned);
            if !requires_replace.is_empty() {
                planned = unknown_computed(schema, &request.config, &planned);
            }
        }
        let mut diagnostics = Diagnostics::new();
        let (mut planned, mut hooked) = self.run_plan_hooks(
            resource,
            schema,
            request,
            planned,
            requires_replace.clone(),
            &mut diagnostics,
        )?;
        if !create {
            let mut after = replace_paths(schema, &request.prior_state, &planned);
            merge_paths(&mut after, &hooked);
            // A hook's change that forces a replacement makes this a
            // replacement plan: computed values become unknown, and the
            // hooks see the plan as it now is.
            if requires_replace.is_empty() && !after.is_empty() {
                let replacing = unknown_computed(schema, &request.config, &planned);
                (planned, hooked) = self.run_plan_hooks(
                    resource,
                    schema,
                    request,
                    replacing,
                    after.clone(),
                    &mut diagnostics,
                )?;
                after = replace_paths(schema, &request.prior_state, &planned);
                merge_paths(&mut after, &hooked);
            }
            requires_replace = after;
        }
        let mut violations = Vec::new();
        plan_violations(
            schema,
            &request.config,
            &planned,
            &AttributePath::root(),
            &mut violations,
        );
        if !violations.is_empty() {
            return Err(violations
                .into_iter()
                .map(|path| {
                    Diagnostic::error(
                        "Provider produced invalid plan",
                        format!(
                            "The plan for {} sets {}, which is not computed, to something other \
                             than its configured value. This is a bug in the provider.",
                            request.type_name,
                            describe_path(&path)
                        ),
                    )
                    .with_attribute(path)
                })
                .collect::<Vec<_>>()
                .into());
        }
        Ok((planned, requires_replace, diagnostics))
    }

    /// Runs the resource's plan hooks over `planned`; returns the plan and
    /// the replacement paths as the hooks left them.
    fn run_plan_hooks(
        &self,
        resource: &ResourceSpec<C>,
        schema: &BlockSpec,
        request: &PlanResourceChangeRequest,
        planned: Value,
        requires_replace: Vec<AttributePath>,
        diagnostics: &mut Diagnostics,
    ) -> Result<(Value, Vec<AttributePath>), Diagnostics> {
        if resource.plan_hooks.is_empty() {
            return Ok((planned, requires_replace));
        }
        let create = request.prior_state.is_null();
        let mut data = PlanData {
            data: ResourceData::new(
                schema.implied_type(),
                &planned,
                (!create).then_some(&request.prior_state),
                Some(&request.config),
            ),
            requires_replace,
            create,
        };
        for hook in &resource.plan_hooks {
            hook(&mut data).map_err(Error::into_diagnostics)?;
        }
        diagnostics.extend(data.data.take_warnings());
        Ok((data.data.to_value(), data.requires_replace))
    }

    fn apply(&self, request: &ApplyResourceChangeRequest) -> (Value, Vec<u8>, Diagnostics) {
        let mut diagnostics = Diagnostics::new();
        let (resource, schema) = match self.resource(&request.type_name) {
            Ok(found) => found,
            Err(d) => return (request.prior_state.clone(), Vec::new(), d),
        };
        let client = match self.client() {
            Ok(client) => client,
            Err(d) => return (request.prior_state.clone(), Vec::new(), d),
        };
        let ty = schema.implied_type();
        let timeouts = resource.timeouts.as_ref();
        if request.planned_state.is_null() {
            let mut data =
                ResourceData::new(ty, &request.prior_state, Some(&request.prior_state), None);
            data.set_private(request.planned_private.clone());
            let Some(delete) = &resource.delete else {
                return (
                    Value::null(request.prior_state.ty().clone()),
                    Vec::new(),
                    diagnostics,
                );
            };
            let context = self.context(
                "delete",
                Self::limit(timeouts, &request.prior_state, "delete"),
            );
            let result = delete(&context, &client, &mut data);
            diagnostics.extend(data.take_warnings());
            return match result {
                Ok(()) => (
                    Value::null(request.prior_state.ty().clone()),
                    Vec::new(),
                    diagnostics,
                ),
                Err(error) => {
                    diagnostics.extend(error.into_diagnostics());
                    (
                        request.prior_state.clone(),
                        request.planned_private.clone(),
                        diagnostics,
                    )
                }
            };
        }
        let create = request.prior_state.is_null();
        let mut data = ResourceData::new(
            ty,
            &request.planned_state,
            (!create).then_some(&request.prior_state),
            Some(&request.config),
        );
        data.set_private(request.planned_private.clone());
        let operation = if create { "create" } else { "update" };
        let callback = if create {
            &resource.create
        } else {
            &resource.update
        };
        let context = self.context(
            operation,
            Self::limit(timeouts, &request.planned_state, operation),
        );
        let result = match callback {
            Some(callback) => callback(&context, &client, &mut data),
            None => Ok(()),
        };
        diagnostics.extend(data.take_warnings());
        let private = data.private().to_vec();
        match result {
            Ok(()) => {
                let new_state = unknown_as_null(&data.to_value());
                for path in nonconforming_paths(&request.planned_state, &new_state) {
                    diagnostics.push(
                        Diagnostic::error(
                            "Provider produced inconsistent result after apply",
                            format!(
                                "The {operation} of {} changed {}, which was planned with a \
                                 known value. This is a bug in the provider.",
                                request.type_name,
                                describe_path(&path)
                            ),
                        )
                        .with_attribute(path),
                    );
                }
                (new_state, private, diagnostics)
            }
            Err(error) => {
                diagnostics.extend(error.into_diagnostics());
                let new_state = if create {
                    // An object that got an id exists, half made: it is
                    // kept (Terraform taints it) so that it is not leaked.
                    if data.id().is_some() {
                        unknown_as_null(&data.to_value())
                    } else {
                        Value::null(request.planned_state.ty().clone())
                    }
                } else {
                    match data.partial_keys() {
                        Some(keys) => data.prior_with(keys),
                        None => request.prior_state.clone(),
                    }
                };
                (new_state, private, diagnostics)
            }
        }
    }
}

fn merge_paths(into: &mut Vec<AttributePath>, more: &[AttributePath]) {
    for path in more {
        if !into.contains(path) {
            into.push(path.clone());
        }
    }
}

fn unknown_type(what: &str, name: &str) -> Diagnostics {
    Diagnostic::error(
        format!("Unknown {what}"),
        format!(
            "This provider has no {what} named {}.",
            terrace_value::gostr::quote(name)
        ),
    )
    .into()
}

fn run_checks(
    checks: &[crate::resource::ConfigCheck],
    data: &ResourceData,
    diagnostics: &mut Diagnostics,
) {
    for check in checks {
        if let Err(error) = check(data) {
            diagnostics.extend(error.into_diagnostics());
        }
    }
}

/// A data source's or ephemeral resource's configuration against its
/// schema, then its own whole-configuration checks.
fn validate_config(
    schema: &BlockSpec,
    config: &Value,
    checks: &[crate::resource::ConfigCheck],
) -> Diagnostics {
    let mut diagnostics = Diagnostics::new();
    validate_block(schema, config, &AttributePath::root(), &mut diagnostics);
    let data = ResourceData::new(schema.implied_type(), config, None, Some(config));
    run_checks(checks, &data, &mut diagnostics);
    diagnostics
}

impl<C: Send + Sync + 'static> Provider for SdkProvider<C> {
    fn get_metadata(&self) -> GetMetadataResponse {
        GetMetadataResponse {
            server_capabilities: self.schema.server_capabilities,
            resources: self.spec.resources.keys().cloned().collect(),
            data_sources: self.spec.data_sources.keys().cloned().collect(),
            ephemeral_resources: self.spec.ephemeral_resources.keys().cloned().collect(),
            functions: self.spec.functions.keys().cloned().collect(),
            diagnostics: Diagnostics::new(),
        }
    }

    fn get_provider_schema(&self) -> GetProviderSchemaResponse {
        GetProviderSchemaResponse {
            schema: self.schema.clone(),
            diagnostics: Diagnostics::new(),
        }
    }

    fn validate_provider_config(
        &self,
        request: ValidateProviderConfigRequest,
    ) -> ValidateProviderConfigResponse {
        let mut diagnostics = Diagnostics::new();
        validate_block(
            &self.spec.schema,
            &request.config,
            &AttributePath::root(),
            &mut diagnostics,
        );
        let data = ResourceData::new(
            self.spec.schema.implied_type(),
            &request.config,
            None,
            Some(&request.config),
        );
        run_checks(&self.spec.checks, &data, &mut diagnostics);
        ValidateProviderConfigResponse {
            prepared_config: request.config,
            diagnostics,
        }
    }

    fn validate_resource_config(
        &self,
        request: ValidateResourceConfigRequest,
    ) -> ValidateResourceConfigResponse {
        let (resource, schema) = match self.resource(&request.type_name) {
            Ok(found) => found,
            Err(diagnostics) => return ValidateResourceConfigResponse { diagnostics },
        };
        let mut diagnostics = Diagnostics::new();
        validate_block(
            schema,
            &request.config,
            &AttributePath::root(),
            &mut diagnostics,
        );
        let data = ResourceData::new(
            schema.implied_type(),
            &request.config,
            None,
            Some(&request.config),
        );
        run_checks(&resource.checks, &data, &mut diagnostics);
        ValidateResourceConfigResponse { diagnostics }
    }

    fn validate_data_resource_config(
        &self,
        request: ValidateDataResourceConfigRequest,
    ) -> ValidateDataResourceConfigResponse {
        let (Some(data_source), Some(schema)) = (
            self.spec.data_sources.get(&request.type_name),
            self.data_source_schemas.get(&request.type_name),
        ) else {
            return ValidateDataResourceConfigResponse {
                diagnostics: unknown_type("data source", &request.type_name),
            };
        };
        ValidateDataResourceConfigResponse {
            diagnostics: validate_config(schema, &request.config, &data_source.checks),
        }
    }

    fn validate_ephemeral_resource_config(
        &self,
        request: ValidateEphemeralResourceConfigRequest,
    ) -> ValidateEphemeralResourceConfigResponse {
        let Ok((ephemeral, schema)) = self.ephemeral(&request.type_name) else {
            return ValidateEphemeralResourceConfigResponse {
                diagnostics: unknown_type("ephemeral resource type", &request.type_name),
            };
        };
        ValidateEphemeralResourceConfigResponse {
            diagnostics: validate_config(schema, &request.config, &ephemeral.checks),
        }
    }

    fn upgrade_resource_state(
        &self,
        request: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        match self.resource(&request.type_name) {
            Ok((resource, schema)) => match crate::upgrade::upgrade_state(
                &request.type_name,
                resource,
                schema,
                request.version,
                &request.raw_state,
            ) {
                Ok(upgraded_state) => UpgradeResourceStateResponse {
                    upgraded_state,
                    diagnostics: Diagnostics::new(),
                },
                Err(error) => UpgradeResourceStateResponse {
                    upgraded_state: Value::null(schema.implied_type()),
                    diagnostics: error.into_diagnostics(),
                },
            },
            Err(diagnostics) => UpgradeResourceStateResponse {
                upgraded_state: Value::dynamic(),
                diagnostics,
            },
        }
    }

    fn configure_provider(&self, request: ConfigureProviderRequest) -> ConfigureProviderResponse {
        let mut data = ResourceData::new(
            self.spec.schema.implied_type(),
            &request.config,
            None,
            Some(&request.config),
        );
        let context = self.context("configure", DEFAULT_TIMEOUT);
        let result = (self.spec.configure)(&context, &data);
        let mut diagnostics = data.take_warnings();
        match result {
            Ok(client) => {
                if let Ok(mut slot) = self.client.write() {
                    *slot = Some(Arc::new(client));
                }
            }
            Err(error) => diagnostics.extend(error.into_diagnostics()),
        }
        ConfigureProviderResponse { diagnostics }
    }

    fn read_resource(&self, request: ReadResourceRequest) -> ReadResourceResponse {
        let unchanged = |diagnostics: Diagnostics| ReadResourceResponse {
            new_state: request.prior_state.clone(),
            private: request.private.clone(),
            deferred: None,
            diagnostics,
        };
        let (resource, schema) = match self.resource(&request.type_name) {
            Ok(found) => found,
            Err(d) => return unchanged(d),
        };
        let Some(read) = &resource.read else {
            return unchanged(Diagnostics::new());
        };
        if request.prior_state.is_null() {
            return unchanged(Diagnostics::new());
        }
        let client = match self.client() {
            Ok(client) => client,
            Err(d) => return unchanged(d),
        };
        let mut data = ResourceData::new(
            schema.implied_type(),
            &request.prior_state,
            Some(&request.prior_state),
            None,
        );
        data.set_private(request.private.clone());
        let limit = Self::limit(resource.timeouts.as_ref(), &request.prior_state, "read");
        let context = self.context("read", limit);
        let result = read(&context, &client, &mut data);
        let mut diagnostics = data.take_warnings();
        match result {
            Ok(()) if data.is_removed() => ReadResourceResponse {
                new_state: Value::null(request.prior_state.ty().clone()),
                private: Vec::new(),
                deferred: None,
                diagnostics,
            },
            Ok(()) => ReadResourceResponse {
                new_state: unknown_as_null(&data.to_value()),
                private: data.private().to_vec(),
                deferred: None,
                diagnostics,
            },
            Err(error) => {
                diagnostics.extend(error.into_diagnostics());
                unchanged(diagnostics)
            }
        }
    }

    fn plan_resource_change(
        &self,
        request: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        match self.plan(&request) {
            Ok((planned_state, requires_replace, diagnostics)) => PlanResourceChangeResponse {
                planned_state,
                requires_replace,
                planned_private: request.prior_private,
                legacy_type_system: false,
                deferred: None,
                diagnostics,
            },
            Err(diagnostics) => PlanResourceChangeResponse {
                planned_state: request.proposed_new_state,
                requires_replace: Vec::new(),
                planned_private: request.prior_private,
                legacy_type_system: false,
                deferred: None,
                diagnostics,
            },
        }
    }

    fn apply_resource_change(
        &self,
        request: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        let (new_state, private, diagnostics) = self.apply(&request);
        ApplyResourceChangeResponse {
            new_state,
            private,
            legacy_type_system: false,
            diagnostics,
        }
    }

    fn import_resource_state(
        &self,
        request: ImportResourceStateRequest,
    ) -> ImportResourceStateResponse {
        let failed = |diagnostics| ImportResourceStateResponse {
            imported_resources: Vec::new(),
            deferred: None,
            diagnostics,
        };
        let (resource, schema) = match self.resource(&request.type_name) {
            Ok(found) => found,
            Err(d) => return failed(d),
        };
        let Some(importer) = &resource.importer else {
            return failed(
                Diagnostic::error(
                    "Resource Import Not Implemented",
                    format!(
                        "This resource type does not support import: {}.",
                        request.type_name
                    ),
                )
                .into(),
            );
        };
        let client = match self.client() {
            Ok(client) => client,
            Err(d) => return failed(d),
        };
        let ty = schema.implied_type();
        let mut data = ResourceData::new(ty.clone(), &Value::null(ty), None, None);
        if schema.attributes.contains_key("id") {
            if let Err(error) = data.set_id(&request.id) {
                return failed(error.into_diagnostics());
            }
        }
        let context = self.context("import", DEFAULT_TIMEOUT);
        let result = importer(&context, &client, &request.id, &mut data);
        let mut diagnostics = data.take_warnings();
        if let Err(error) = result {
            diagnostics.extend(error.into_diagnostics());
            return failed(diagnostics);
        }
        ImportResourceStateResponse {
            imported_resources: vec![ImportedResource {
                type_name: request.type_name,
                state: unknown_as_null(&data.to_value()),
                private: data.private().to_vec(),
            }],
            deferred: None,
            diagnostics,
        }
    }

    fn move_resource_state(&self, request: MoveResourceStateRequest) -> MoveResourceStateResponse {
        MoveResourceStateResponse {
            target_state: Value::dynamic(),
            target_private: Vec::new(),
            diagnostics: Diagnostic::error(
                "Move Resource State Not Supported",
                format!(
                    "This provider cannot move resource state into {}.",
                    request.target_type_name
                ),
            )
            .into(),
        }
    }

    fn read_data_source(&self, request: ReadDataSourceRequest) -> ReadDataSourceResponse {
        let failed = |diagnostics| ReadDataSourceResponse {
            state: Value::null(request.config.ty().clone()),
            deferred: None,
            diagnostics,
        };
        let (Some(data_source), Some(schema)) = (
            self.spec.data_sources.get(&request.type_name),
            self.data_source_schemas.get(&request.type_name),
        ) else {
            return failed(unknown_type("data source", &request.type_name));
        };
        let client = match self.client() {
            Ok(client) => client,
            Err(d) => return failed(d),
        };
        let ty = schema.implied_type();
        // Computed values start unknown and defaults are applied, as in a
        // resource's plan; what the read leaves unknown becomes null.
        let start = fill(schema, &request.config, &request.config, Fill::Create);
        let mut data = ResourceData::new(ty, &start, None, Some(&request.config));
        let limit = Self::limit(data_source.timeouts.as_ref(), &request.config, "read");
        let context = self.context("read", limit);
        let result = data_source
            .read
            .as_ref()
            .map_or(Ok(()), |read| read(&context, &client, &mut data));
        let mut diagnostics = data.take_warnings();
        if let Err(error) = result {
            diagnostics.extend(error.into_diagnostics());
            return failed(diagnostics);
        }
        let state = unknown_as_null(&data.to_value());
        let mut violations = Vec::new();
        plan_violations(
            schema,
            &request.config,
            &state,
            &AttributePath::root(),
            &mut violations,
        );
        for path in violations {
            diagnostics.push(
                Diagnostic::error(
                    "Provider produced invalid object",
                    format!(
                        "The data source {} changed {}, which is not computed. This is a bug in \
                         the provider.",
                        request.type_name,
                        describe_path(&path)
                    ),
                )
                .with_attribute(path),
            );
        }
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
        let failed = |diagnostics| OpenEphemeralResourceResponse {
            result: Value::null(request.config.ty().clone()),
            private: None,
            renew_at: None,
            deferred: None,
            diagnostics,
        };
        let (ephemeral, schema) = match self.ephemeral(&request.type_name) {
            Ok(found) => found,
            Err(d) => return failed(d),
        };
        let client = match self.client() {
            Ok(client) => client,
            Err(d) => return failed(d),
        };
        // As a data source's read: computed values start unknown, defaults
        // applied; what `open` leaves unknown becomes null.
        let start = fill(schema, &request.config, &request.config, Fill::Create);
        let mut data =
            ResourceData::new(schema.implied_type(), &start, None, Some(&request.config));
        let context = self.context("open", DEFAULT_TIMEOUT);
        let result = ephemeral
            .open
            .as_ref()
            .map_or(Ok(()), |open| open(&context, &client, &mut data));
        let mut diagnostics = data.take_warnings();
        if let Err(error) = result {
            diagnostics.extend(error.into_diagnostics());
            return failed(diagnostics);
        }
        let private = data.private().to_vec();
        OpenEphemeralResourceResponse {
            result: unknown_as_null(&data.to_value()),
            private: (!private.is_empty()).then_some(private),
            renew_at: None,
            deferred: None,
            diagnostics,
        }
    }

    fn renew_ephemeral_resource(
        &self,
        request: RenewEphemeralResourceRequest,
    ) -> RenewEphemeralResourceResponse {
        // Nothing this SDK opens asks to be renewed (`open` sets no renewal
        // time), so a renewal keeps what there is.
        match self.ephemeral(&request.type_name) {
            Ok(_) => RenewEphemeralResourceResponse {
                private: request.private,
                renew_at: None,
                diagnostics: Diagnostics::new(),
            },
            Err(diagnostics) => RenewEphemeralResourceResponse {
                private: None,
                renew_at: None,
                diagnostics,
            },
        }
    }

    fn close_ephemeral_resource(
        &self,
        request: CloseEphemeralResourceRequest,
    ) -> CloseEphemeralResourceResponse {
        let (ephemeral, _) = match self.ephemeral(&request.type_name) {
            Ok(found) => found,
            Err(diagnostics) => return CloseEphemeralResourceResponse { diagnostics },
        };
        let Some(close) = &ephemeral.close else {
            return CloseEphemeralResourceResponse::default();
        };
        let client = match self.client() {
            Ok(client) => client,
            Err(diagnostics) => return CloseEphemeralResourceResponse { diagnostics },
        };
        let context = self.context("close", DEFAULT_TIMEOUT);
        let private = request.private.unwrap_or_default();
        CloseEphemeralResourceResponse {
            diagnostics: match close(&context, &client, &private) {
                Ok(()) => Diagnostics::new(),
                Err(error) => error.into_diagnostics(),
            },
        }
    }

    fn get_functions(&self) -> GetFunctionsResponse {
        GetFunctionsResponse {
            functions: self.schema.functions.clone(),
            diagnostics: Diagnostics::new(),
        }
    }

    fn call_function(&self, request: CallFunctionRequest) -> CallFunctionResponse {
        let Some(function) = self.spec.functions.get(&request.name) else {
            return CallFunctionResponse {
                result: Err(FunctionError::new(format!(
                    "This provider has no function named {}.",
                    terrace_value::gostr::quote(&request.name)
                ))),
            };
        };
        let spec = &function.spec;
        let fixed = spec.parameters.len();
        if request.arguments.len() < fixed
            || (spec.variadic_parameter.is_none() && request.arguments.len() > fixed)
        {
            return CallFunctionResponse {
                result: Err(FunctionError::new(format!(
                    "Function {} takes {}{} argument(s), got {}.",
                    request.name,
                    if spec.variadic_parameter.is_some() {
                        "at least "
                    } else {
                        ""
                    },
                    fixed,
                    request.arguments.len()
                ))),
            };
        }
        for (index, argument) in request.arguments.iter().enumerate() {
            let parameter = spec
                .parameters
                .get(index)
                .or(spec.variadic_parameter.as_ref());
            if let Some(parameter) = parameter {
                if argument.is_null() && !parameter.allow_null_value {
                    return CallFunctionResponse {
                        result: Err(FunctionError {
                            text: format!("Argument {} must not be null.", parameter.name),
                            argument: Some(index),
                        }),
                    };
                }
            }
        }
        let result = (function.call)(&request.arguments).and_then(|value| {
            convert(&value, &spec.return_type).map_err(|e| {
                FunctionError::new(format!(
                    "The function returned a value that does not fit its return type: {}. This \
                     is a bug in the provider.",
                    e.message
                ))
            })
        });
        CallFunctionResponse { result }
    }

    fn stop(&self) -> Diagnostics {
        self.stop.store(true, Ordering::SeqCst);
        Diagnostics::new()
    }

    fn close(&self) -> Diagnostics {
        Diagnostics::new()
    }
}
