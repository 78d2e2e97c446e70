//! Mock providers, built into terrace: a [`Provider`] that knows a real
//! provider's schema but never starts it. Plans keep what the
//! configuration sets and leave computed attributes unknown (or, for
//! values wanted during plan, fill them already); applies and data source
//! reads fill computed attributes from the test's `defaults` where given,
//! else with generated values of the attribute's type: 8 random
//! lower-case letters and digits for strings, zero, false, empty collections and
//! objects filled the same way.
//!
//! The same filling serves overrides of single resources (see
//! `factory`), which replace whatever provider the resource has.

use std::collections::BTreeMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use terrace_providers::diagnostics::Diagnostics as ProviderDiagnostics;
use terrace_providers::provider::*;
use terrace_providers::schema::{
    AttributeType, Block, NestingMode, ObjectNesting, ProviderSchema, Schema,
};
use terrace_value::{Number, Type, Value};

/// Values a test gives for one resource or data source type: the
/// `defaults` of a `mock_resource`/`mock_data` block, or an override's
/// `values`.
#[derive(Clone, Debug)]
pub struct MockValues {
    pub values: Value,
    /// Used while planning too, not only when applying.
    pub during_plan: bool,
}

/// An inert provider with a real provider's schema.
pub struct MockProvider {
    schema: Arc<ProviderSchema>,
    resources: BTreeMap<String, MockValues>,
    data: BTreeMap<String, MockValues>,
}

impl MockProvider {
    pub fn new(
        schema: Arc<ProviderSchema>,
        resources: BTreeMap<String, MockValues>,
        data: BTreeMap<String, MockValues>,
    ) -> MockProvider {
        MockProvider {
            schema,
            resources,
            data,
        }
    }

    fn resource_schema(&self, type_name: &str) -> Option<&Schema> {
        self.schema.resource_types.get(type_name)
    }
}

fn unsupported(type_name: &str, what: &str) -> ProviderDiagnostics {
    let mut d = ProviderDiagnostics::new();
    d.push(terrace_providers::diagnostics::Diagnostic::error(
        format!("Unsupported {what}"),
        format!("The mocked provider has no {what} {type_name:?}."),
    ));
    d
}

/// Whether a resource type is being planned (fill only what is wanted
/// during plan, leave the rest unknown) or applied/read (fill everything).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Plan,
    Apply,
}

/// The planned state of a mocked (or overridden) object from the engine's
/// proposed new state: computed attributes the configuration leaves null
/// become unknown, or are filled when `values` are wanted during plan.
pub fn planned_state(block: &Block, proposed: &Value, values: Option<&MockValues>) -> Value {
    if proposed.is_null() {
        return proposed.clone();
    }
    match values {
        Some(v) if v.during_plan => fill_block(block, proposed, Some(&v.values), Phase::Apply),
        _ => fill_block(block, proposed, None, Phase::Plan),
    }
}

/// The new state of an applied object: every unknown filled.
pub fn applied_state(block: &Block, planned: &Value, values: Option<&MockValues>) -> Value {
    if planned.is_null() {
        return planned.clone();
    }
    fill_block(block, planned, values.map(|v| &v.values), Phase::Apply)
}

/// A data source's state: computed attributes filled from `values` or
/// generated, whatever the phase.
pub fn data_state(block: &Block, config: &Value, values: Option<&MockValues>) -> Value {
    fill_block(block, config, values.map(|v| &v.values), Phase::Apply)
}

fn attr_of<'v>(value: &'v Value, name: &str) -> Option<&'v Value> {
    value.as_attributes().and_then(|a| a.get(name))
}

fn fill_block(block: &Block, value: &Value, defaults: Option<&Value>, phase: Phase) -> Value {
    if value.is_null() || !value.is_known() {
        if !value.is_known() && phase == Phase::Apply {
            return generate_block(block, defaults);
        }
        return value.clone();
    }
    let mut out: BTreeMap<String, Value> = value
        .as_attributes()
        .map(terrace_value::Attrs::to_map)
        .unwrap_or_default();
    for (name, attr) in &block.attributes {
        let current = attr_of(value, name)
            .cloned()
            .unwrap_or_else(|| Value::null(attr.implied_type()));
        let given = defaults.and_then(|d| attr_of(d, name));
        let ty = attr.implied_type();
        let filled = if attr.computed && (current.is_null() || !current.is_known()) {
            match (phase, given) {
                (Phase::Plan, _) if current.is_null() => Value::unknown(ty.clone()),
                (Phase::Plan, _) => current,
                (Phase::Apply, Some(g)) => {
                    terrace_value::convert::convert(g, &ty).unwrap_or_else(|_| generate(&ty))
                }
                (Phase::Apply, None) => match &attr.ty {
                    AttributeType::Nested(n) if n.nesting == ObjectNesting::Single => {
                        let block = nested_as_block(&n.attributes);
                        generate_block(&block, None)
                    }
                    _ => generate(&ty),
                },
            }
        } else {
            match &attr.ty {
                AttributeType::Nested(n) => {
                    let inner = nested_as_block(&n.attributes);
                    fill_collection(
                        &current,
                        given,
                        phase,
                        &inner,
                        matches!(n.nesting, ObjectNesting::Single),
                    )
                }
                AttributeType::Type(_) => current,
            }
        };
        out.insert(name.clone(), filled);
    }
    for (name, nested) in &block.block_types {
        let Some(current) = attr_of(value, name).cloned() else {
            continue;
        };
        let given = defaults.and_then(|d| attr_of(d, name));
        let single = matches!(nested.nesting, NestingMode::Single | NestingMode::Group);
        out.insert(
            name.clone(),
            fill_collection(&current, given, phase, &nested.block, single),
        );
    }
    Value::object(out)
}

/// Fills the objects of a nested block or nested attribute value,
/// whatever collection holds them.
fn fill_collection(
    current: &Value,
    defaults: Option<&Value>,
    phase: Phase,
    block: &Block,
    single: bool,
) -> Value {
    if current.is_null() || !current.is_known() {
        return current.clone();
    }
    if single {
        return fill_block(block, current, defaults, phase);
    }
    let ty = current.ty().clone();
    match &ty {
        Type::List(_) | Type::Set(_) | Type::Tuple(_) => {
            let elems: Vec<Value> = current
                .as_elements()
                .unwrap_or_default()
                .iter()
                .map(|e| fill_block(block, e, None, phase))
                .collect();
            rebuild_sequence(&ty, elems)
        }
        Type::Map(_) | Type::Object(_) => {
            let attrs: BTreeMap<String, Value> = current
                .as_attributes()
                .map(terrace_value::Attrs::to_map)
                .unwrap_or_default()
                .into_iter()
                .map(|(k, e)| (k, fill_block(block, &e, None, phase)))
                .collect();
            match &ty {
                Type::Map(_) => {
                    let elem = attrs
                        .values()
                        .next()
                        .map(|v| v.ty().clone())
                        .unwrap_or(Type::Dynamic);
                    Value::map(elem, attrs)
                }
                _ => Value::object(attrs),
            }
        }
        _ => current.clone(),
    }
}

fn rebuild_sequence(ty: &Type, elems: Vec<Value>) -> Value {
    let elem_ty = elems
        .first()
        .map(|e| e.ty().clone())
        .unwrap_or_else(|| match ty {
            Type::List(t) | Type::Set(t) => (**t).clone(),
            _ => Type::Dynamic,
        });
    match ty {
        Type::List(_) => Value::list(elem_ty, elems),
        Type::Set(_) => Value::set(elem_ty, elems),
        _ => Value::tuple(elems),
    }
}

fn nested_as_block(attributes: &BTreeMap<String, terrace_providers::schema::Attribute>) -> Block {
    Block {
        attributes: attributes.clone(),
        ..Block::default()
    }
}

/// An object of `block`'s type with every attribute generated (or taken
/// from `defaults`), and no nested blocks.
fn generate_block(block: &Block, defaults: Option<&Value>) -> Value {
    let mut out = BTreeMap::new();
    for (name, attr) in &block.attributes {
        let ty = attr.implied_type();
        let v = match defaults.and_then(|d| attr_of(d, name)) {
            Some(g) => terrace_value::convert::convert(g, &ty).unwrap_or_else(|_| generate(&ty)),
            None => generate(&ty),
        };
        out.insert(name.clone(), v);
    }
    for (name, nested) in &block.block_types {
        let ty = nested.implied_type();
        let v = match nested.nesting {
            NestingMode::Single => Value::null(ty),
            NestingMode::Group => generate_block(&nested.block, None),
            _ => generate(&ty),
        };
        out.insert(name.clone(), v);
    }
    Value::object(out)
}

/// A generated value of `ty`.
pub fn generate(ty: &Type) -> Value {
    match ty {
        Type::Bool => Value::bool(false),
        Type::Number => Value::number(Number::zero()),
        Type::String => Value::string(random_text()),
        Type::List(e) => Value::list((**e).clone(), Vec::new()),
        Type::Set(e) => Value::set((**e).clone(), Vec::new()),
        Type::Map(e) => Value::map((**e).clone(), BTreeMap::new()),
        Type::Object(o) => Value::object(
            o.attributes
                .iter()
                .map(|(k, t)| (k.clone(), generate(t)))
                .collect(),
        ),
        Type::Tuple(ts) => Value::tuple(ts.iter().map(generate).collect()),
        Type::Dynamic => Value::null(Type::Dynamic),
    }
}

/// Eight random letters and digits.
fn random_text() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    // Lower-case letters and digits, as terraform's mocks generate them:
    // a test may match them with `[a-z0-9]{8}`.
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    let mut bits = hasher.finish();
    let mut out = String::with_capacity(8);
    for _ in 0..8 {
        out.push(ALPHABET[(bits % ALPHABET.len() as u64) as usize] as char);
        bits /= ALPHABET.len() as u64;
    }
    out
}

impl Provider for MockProvider {
    fn get_metadata(&self) -> GetMetadataResponse {
        GetMetadataResponse {
            server_capabilities: self.schema.server_capabilities,
            resources: self.schema.resource_types.keys().cloned().collect(),
            data_sources: self.schema.data_sources.keys().cloned().collect(),
            ephemeral_resources: self.schema.ephemeral_resources.keys().cloned().collect(),
            functions: Vec::new(),
            diagnostics: ProviderDiagnostics::new(),
        }
    }

    fn get_provider_schema(&self) -> GetProviderSchemaResponse {
        GetProviderSchemaResponse {
            schema: self.schema.clone(),
            diagnostics: ProviderDiagnostics::new(),
        }
    }

    fn validate_provider_config(
        &self,
        request: ValidateProviderConfigRequest,
    ) -> ValidateProviderConfigResponse {
        ValidateProviderConfigResponse {
            prepared_config: request.config,
            diagnostics: ProviderDiagnostics::new(),
        }
    }

    fn validate_resource_config(
        &self,
        _request: ValidateResourceConfigRequest,
    ) -> ValidateResourceConfigResponse {
        ValidateResourceConfigResponse::default()
    }

    fn validate_data_resource_config(
        &self,
        _request: ValidateDataResourceConfigRequest,
    ) -> ValidateDataResourceConfigResponse {
        ValidateDataResourceConfigResponse::default()
    }

    fn validate_ephemeral_resource_config(
        &self,
        _request: ValidateEphemeralResourceConfigRequest,
    ) -> ValidateEphemeralResourceConfigResponse {
        ValidateEphemeralResourceConfigResponse::default()
    }

    fn upgrade_resource_state(
        &self,
        request: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        let Some(schema) = self.resource_schema(&request.type_name) else {
            return UpgradeResourceStateResponse {
                upgraded_state: Value::dynamic(),
                diagnostics: unsupported(&request.type_name, "resource type"),
            };
        };
        let ty = schema.implied_type();
        match terrace_value::json::from_json(&request.raw_state.json, &ty) {
            Ok(v) => UpgradeResourceStateResponse {
                upgraded_state: v,
                diagnostics: ProviderDiagnostics::new(),
            },
            Err(e) => {
                let mut d = ProviderDiagnostics::new();
                d.push(terrace_providers::diagnostics::Diagnostic::error(
                    "Invalid stored state",
                    format!("The mocked provider could not read the stored object: {e}."),
                ));
                UpgradeResourceStateResponse {
                    upgraded_state: Value::dynamic(),
                    diagnostics: d,
                }
            }
        }
    }

    fn configure_provider(&self, _request: ConfigureProviderRequest) -> ConfigureProviderResponse {
        ConfigureProviderResponse::default()
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
        let Some(schema) = self.resource_schema(&request.type_name) else {
            return PlanResourceChangeResponse {
                planned_state: request.proposed_new_state,
                requires_replace: Vec::new(),
                planned_private: Vec::new(),
                legacy_type_system: false,
                deferred: None,
                diagnostics: unsupported(&request.type_name, "resource type"),
            };
        };
        let planned = planned_state(
            &schema.block,
            &request.proposed_new_state,
            self.resources.get(&request.type_name),
        );
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
        let Some(schema) = self.resource_schema(&request.type_name) else {
            return ApplyResourceChangeResponse {
                new_state: request.planned_state,
                private: Vec::new(),
                legacy_type_system: false,
                diagnostics: unsupported(&request.type_name, "resource type"),
            };
        };
        ApplyResourceChangeResponse {
            new_state: applied_state(
                &schema.block,
                &request.planned_state,
                self.resources.get(&request.type_name),
            ),
            private: request.planned_private,
            legacy_type_system: false,
            diagnostics: ProviderDiagnostics::new(),
        }
    }

    fn import_resource_state(
        &self,
        request: ImportResourceStateRequest,
    ) -> ImportResourceStateResponse {
        let Some(schema) = self.resource_schema(&request.type_name) else {
            return ImportResourceStateResponse {
                diagnostics: unsupported(&request.type_name, "resource type"),
                ..Default::default()
            };
        };
        let mut state = generate_block(
            &schema.block,
            self.resources.get(&request.type_name).map(|v| &v.values),
        );
        if let Some(attrs) = state.as_attributes() {
            if attrs.get("id").is_some_and(|v| v.ty() == &Type::String) {
                let mut attrs = attrs.to_map();
                attrs.insert("id".to_string(), Value::string(&request.id));
                state = Value::object(attrs);
            }
        }
        ImportResourceStateResponse {
            imported_resources: vec![ImportedResource {
                type_name: request.type_name,
                state,
                private: Vec::new(),
            }],
            deferred: None,
            diagnostics: ProviderDiagnostics::new(),
        }
    }

    fn move_resource_state(&self, request: MoveResourceStateRequest) -> MoveResourceStateResponse {
        MoveResourceStateResponse {
            target_state: Value::dynamic(),
            target_private: Vec::new(),
            diagnostics: unsupported(&request.target_type_name, "resource move"),
        }
    }

    fn read_data_source(&self, request: ReadDataSourceRequest) -> ReadDataSourceResponse {
        let Some(schema) = self.schema.data_sources.get(&request.type_name) else {
            return ReadDataSourceResponse {
                state: request.config,
                deferred: None,
                diagnostics: unsupported(&request.type_name, "data source"),
            };
        };
        ReadDataSourceResponse {
            state: data_state(
                &schema.block,
                &request.config,
                self.data.get(&request.type_name),
            ),
            deferred: None,
            diagnostics: ProviderDiagnostics::new(),
        }
    }

    fn open_ephemeral_resource(
        &self,
        request: OpenEphemeralResourceRequest,
    ) -> OpenEphemeralResourceResponse {
        let result = match self.schema.ephemeral_resources.get(&request.type_name) {
            Some(schema) => data_state(&schema.block, &request.config, None),
            None => request.config,
        };
        OpenEphemeralResourceResponse {
            result,
            private: None,
            renew_at: None,
            deferred: None,
            diagnostics: ProviderDiagnostics::new(),
        }
    }

    fn renew_ephemeral_resource(
        &self,
        _request: RenewEphemeralResourceRequest,
    ) -> RenewEphemeralResourceResponse {
        RenewEphemeralResourceResponse::default()
    }

    fn close_ephemeral_resource(
        &self,
        _request: CloseEphemeralResourceRequest,
    ) -> CloseEphemeralResourceResponse {
        CloseEphemeralResourceResponse::default()
    }

    fn get_functions(&self) -> GetFunctionsResponse {
        GetFunctionsResponse::default()
    }

    fn call_function(&self, request: CallFunctionRequest) -> CallFunctionResponse {
        CallFunctionResponse {
            result: Err(FunctionError::new(format!(
                "The mocked provider cannot run its function {:?}.",
                request.name
            ))),
        }
    }

    fn stop(&self) -> ProviderDiagnostics {
        ProviderDiagnostics::new()
    }

    fn close(&self) -> ProviderDiagnostics {
        ProviderDiagnostics::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_providers::schema::Attribute;

    fn block() -> Block {
        let mut attributes = BTreeMap::new();
        let mut id = Attribute::new(Type::String);
        id.computed = true;
        attributes.insert("id".to_string(), id);
        let mut name = Attribute::new(Type::String);
        name.optional = true;
        attributes.insert("name".to_string(), name);
        let mut count = Attribute::new(Type::Number);
        count.computed = true;
        attributes.insert("count".to_string(), count);
        let mut tags = Attribute::new(Type::map(Type::String));
        tags.computed = true;
        attributes.insert("tags".to_string(), tags);
        Block {
            attributes,
            ..Block::default()
        }
    }

    fn proposed() -> Value {
        Value::object(BTreeMap::from([
            ("id".to_string(), Value::null(Type::String)),
            ("name".to_string(), Value::string("n")),
            ("count".to_string(), Value::null(Type::Number)),
            ("tags".to_string(), Value::null(Type::map(Type::String))),
        ]))
    }

    #[test]
    fn generated_strings_are_eight_lower_case_letters_and_digits() {
        for _ in 0..200 {
            let text = random_text();
            assert_eq!(text.len(), 8, "{text}");
            assert!(
                text.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()),
                "{text}"
            );
        }
    }

    #[test]
    fn plans_leave_computed_attributes_unknown_and_applies_generate_them() {
        let b = block();
        let planned = planned_state(&b, &proposed(), None);
        let attrs = planned
            .as_attributes()
            .map(terrace_value::Attrs::to_map)
            .unwrap_or_default();
        assert!(!attrs["id"].is_known());
        assert_eq!(attrs["name"].as_str(), Some("n"));
        let applied = applied_state(&b, &planned, None);
        let attrs = applied
            .as_attributes()
            .map(terrace_value::Attrs::to_map)
            .unwrap_or_default();
        let id = attrs["id"].as_str().unwrap_or_default().to_string();
        assert_eq!(id.len(), 8);
        assert!(id.chars().all(|c| c.is_ascii_alphanumeric()));
        assert_eq!(attrs["count"], Value::number(Number::zero()));
        assert_eq!(
            attrs["tags"],
            Value::map(Type::String, BTreeMap::new()),
            "collections are generated empty"
        );
    }

    #[test]
    fn defaults_replace_generated_values_and_can_apply_during_plan() {
        let b = block();
        let values = MockValues {
            values: Value::object(BTreeMap::from([("id".to_string(), Value::string("fixed"))])),
            during_plan: true,
        };
        let planned = planned_state(&b, &proposed(), Some(&values));
        let attrs = planned
            .as_attributes()
            .map(terrace_value::Attrs::to_map)
            .unwrap_or_default();
        assert_eq!(attrs["id"].as_str(), Some("fixed"));
        assert!(attrs["count"].is_known());
    }

    #[test]
    fn configured_values_are_never_replaced() {
        let b = block();
        let values = MockValues {
            values: Value::object(BTreeMap::from([(
                "name".to_string(),
                Value::string("other"),
            )])),
            during_plan: false,
        };
        let applied = applied_state(&b, &proposed(), Some(&values));
        let attrs = applied
            .as_attributes()
            .map(terrace_value::Attrs::to_map)
            .unwrap_or_default();
        assert_eq!(attrs["name"].as_str(), Some("n"));
    }
}
