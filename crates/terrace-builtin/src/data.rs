//! The `terraform_data` resource type: stores `input` and hands it back as
//! `output` after apply, and is replaced whenever `triggers_replace`
//! changes. Its id is a random UUID-shaped string, generated as
//! hashicorp/go-uuid does (16 random bytes, no version bits), so ids look
//! like the ones Terraform writes.
//!
//! Objects can be imported by id and moved from `null_resource` (whose
//! `triggers` become `triggers_replace`).

use crate::schema::{terraform_data_schema, TERRAFORM_DATA};
use std::collections::BTreeMap;
use terrace_providers::{
    ApplyResourceChangeRequest, ApplyResourceChangeResponse, AttributePath, Diagnostic,
    Diagnostics, ImportResourceStateRequest, ImportResourceStateResponse, ImportedResource,
    MoveResourceStateRequest, MoveResourceStateResponse, PlanResourceChangeRequest,
    PlanResourceChangeResponse, ReadResourceRequest, ReadResourceResponse,
    UpgradeResourceStateRequest, UpgradeResourceStateResponse, ValidateResourceConfigRequest,
    ValidateResourceConfigResponse,
};
use terrace_value::convert::format_path;
use terrace_value::json::CodecError;
use terrace_value::{json, Type, Value};

/// Where a new object's id comes from: random in real use, fixed in tests.
pub type IdSource = fn() -> Result<String, String>;

/// A UUID-formatted string of 16 random bytes, like go-uuid's
/// `GenerateUUID` (which sets no version or variant bits).
pub fn random_id() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| e.to_string())?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    ))
}

pub fn validate(request: &ValidateResourceConfigRequest) -> ValidateResourceConfigResponse {
    let mut diagnostics = Diagnostics::new();
    if let Some(attributes) = request.config.as_attributes() {
        // Terraform reports these without a path (so without a source
        // range); the wording and the shape are kept.
        for name in ["id", "output"] {
            if attributes.get(name).is_some_and(|v| !v.is_null()) {
                diagnostics.push(Diagnostic::error(
                    format!("{name:?} attribute is read-only"),
                    "",
                ));
            }
        }
    }
    ValidateResourceConfigResponse { diagnostics }
}

pub fn upgrade(request: &UpgradeResourceStateRequest) -> UpgradeResourceStateResponse {
    let ty = terraform_data_schema().implied_type();
    match json::from_json(&request.raw_state.json, &ty) {
        Ok(value) => UpgradeResourceStateResponse {
            upgraded_state: value,
            diagnostics: Diagnostics::new(),
        },
        Err(e) => UpgradeResourceStateResponse {
            upgraded_state: Value::null(ty),
            diagnostics: codec_error(e).into(),
        },
    }
}

/// There is nothing outside terrace to refresh from.
pub fn read(request: ReadResourceRequest) -> ReadResourceResponse {
    ReadResourceResponse {
        new_state: request.prior_state,
        private: request.private,
        deferred: None,
        diagnostics: Diagnostics::new(),
    }
}

pub fn plan(request: &PlanResourceChangeRequest) -> PlanResourceChangeResponse {
    let mut response = PlanResourceChangeResponse {
        planned_state: request.proposed_new_state.clone(),
        requires_replace: Vec::new(),
        planned_private: request.prior_private.clone(),
        legacy_type_system: false,
        deferred: None,
        diagnostics: Diagnostics::new(),
    };
    let proposed = &request.proposed_new_state;
    if proposed.is_null() {
        // Destroying needs no planning.
        return response;
    }
    let Some(attributes) = known_object(proposed) else {
        response
            .diagnostics
            .push(not_an_object("proposed new state", proposed));
        return response;
    };
    let mut planned = attributes.to_map();
    let input = attribute(attributes, "input");
    let triggers = attribute(attributes, "triggers_replace");
    // The output always has the input's type, null when the input is.
    let output_for_input = |input: &Value| {
        if input.is_null() {
            input.clone()
        } else {
            Value::unknown(input.ty().clone())
        }
    };
    let new_id = || Value::unknown(Type::String).refine_not_null();

    let prior = &request.prior_state;
    if prior.is_null() {
        planned.insert("id".into(), new_id());
        planned.insert("output".into(), output_for_input(&input));
        response.planned_state = Value::object(planned);
        return response;
    }
    let Some(prior_attributes) = known_object(prior) else {
        response
            .diagnostics
            .push(not_an_object("prior state", prior));
        return response;
    };
    if !attribute(prior_attributes, "triggers_replace").raw_equals(&triggers) {
        response.requires_replace = vec![AttributePath::root().attribute("triggers_replace")];
        planned.insert("id".into(), new_id());
        planned.insert("output".into(), output_for_input(&input));
    } else if !attribute(prior_attributes, "input").raw_equals(&input) {
        // Unlike on create, a null input makes an unknown output here: the
        // output is only settled by apply.
        planned.insert("output".into(), Value::unknown(input.ty().clone()));
    }
    response.planned_state = Value::object(planned);
    response
}

pub fn apply(
    request: &ApplyResourceChangeRequest,
    new_id: IdSource,
) -> ApplyResourceChangeResponse {
    let mut response = ApplyResourceChangeResponse {
        new_state: request.planned_state.clone(),
        private: request.planned_private.clone(),
        legacy_type_system: false,
        diagnostics: Diagnostics::new(),
    };
    let planned = &request.planned_state;
    if planned.is_null() {
        return response;
    }
    let Some(attributes) = known_object(planned) else {
        response
            .diagnostics
            .push(not_an_object("planned state", planned));
        return response;
    };
    let mut new_state = attributes.to_map();
    if !attribute(attributes, "output").is_known() {
        new_state.insert("output".into(), attribute(attributes, "input"));
    }
    if !attribute(attributes, "id").is_known() {
        let id = match new_id() {
            Ok(id) => id,
            Err(e) => {
                response.diagnostics.push(
                    Diagnostic::error("Error generating id", e)
                        .with_attribute(AttributePath::root().attribute("id")),
                );
                String::new()
            }
        };
        new_state.insert("id".into(), Value::string(id));
    }
    response.new_state = Value::object(new_state);
    response
}

/// Import can only set the id: nothing else about the object can be
/// recovered from it.
pub fn import(request: &ImportResourceStateRequest) -> ImportResourceStateResponse {
    if request.type_name != TERRAFORM_DATA {
        return ImportResourceStateResponse {
            diagnostics: crate::unsupported_resource_type(&request.type_name).into(),
            ..ImportResourceStateResponse::default()
        };
    }
    let state = with_schema_nulls([("id", Value::string(&request.id))].into());
    ImportResourceStateResponse {
        imported_resources: vec![ImportedResource {
            type_name: request.type_name.clone(),
            state,
            private: Vec::new(),
        }],
        deferred: None,
        diagnostics: Diagnostics::new(),
    }
}

/// The attributes of `null_resource` (hashicorp/null) that carry over.
fn null_resource_type() -> Type {
    Type::object([
        ("id".to_string(), Type::String),
        ("triggers".to_string(), Type::map(Type::String)),
    ])
}

pub fn move_state(request: &MoveResourceStateRequest) -> MoveResourceStateResponse {
    let ty = terraform_data_schema().implied_type();
    let failed = |diagnostic: Diagnostic| MoveResourceStateResponse {
        target_state: Value::null(ty.clone()),
        target_private: Vec::new(),
        diagnostics: diagnostic.into(),
    };
    if request.source_type_name != "null_resource" || request.target_type_name != TERRAFORM_DATA {
        return failed(Diagnostic::error(
            format!(
                "unsupported move: {} -> {}; only move from null_resource to terraform_data is supported",
                request.source_type_name, request.target_type_name
            ),
            "",
        ));
    }
    let old = match json::from_json(&request.source_state_json, &null_resource_type()) {
        Ok(old) => old,
        Err(e) => return failed(codec_error(e)),
    };
    let mut attributes = BTreeMap::new();
    if let Some(old) = old.as_attributes() {
        if let Some(triggers) = old.get("triggers").filter(|t| !t.is_null()) {
            // A map of strings becomes an object with the same attributes,
            // which is what `triggers_replace = { ... }` in the new
            // configuration decodes to, so the move plans no replacement.
            let members = triggers
                .as_attributes()
                .map(terrace_value::Attrs::to_map)
                .unwrap_or_default();
            attributes.insert("triggers_replace", Value::object(members));
        }
        if let Some(id) = old.get("id").filter(|id| !id.is_null()) {
            attributes.insert("id", id.clone());
        }
    }
    MoveResourceStateResponse {
        target_state: with_schema_nulls(attributes),
        target_private: request.source_private.clone(),
        diagnostics: Diagnostics::new(),
    }
}

/// An object of the schema's type with `given` attributes and nulls for
/// the rest.
fn with_schema_nulls(mut given: BTreeMap<&str, Value>) -> Value {
    let schema = terraform_data_schema();
    let attributes = schema
        .block
        .attributes
        .iter()
        .map(|(name, attribute)| {
            let value = given
                .remove(name.as_str())
                .unwrap_or_else(|| Value::null(attribute.implied_type()));
            (name.clone(), value)
        })
        .collect();
    Value::object(attributes)
}

fn known_object(value: &Value) -> Option<&terrace_value::Attrs> {
    if !value.is_known() || !value.ty().is_object() {
        return None;
    }
    value.as_attributes()
}

/// A missing attribute reads as a dynamic null, as `GetAttr` would give
/// for an attribute of dynamic type.
fn attribute(attributes: &terrace_value::Attrs, name: &str) -> Value {
    attributes
        .get(name)
        .cloned()
        .unwrap_or_else(|| Value::null(Type::Dynamic))
}

fn not_an_object(what: &str, value: &Value) -> Diagnostic {
    Diagnostic::error(
        "Invalid terraform_data object",
        format!(
            "The {what} for terraform_data must be a known object, not {}.",
            if value.is_known() {
                value.ty().friendly_name()
            } else {
                "an unknown value".to_string()
            }
        ),
    )
}

/// A decoding error worded as Terraform reports a cty path error.
pub(crate) fn codec_error(e: CodecError) -> Diagnostic {
    let summary = if e.path.is_empty() {
        e.message.clone()
    } else {
        format!("{}: {}", format_path(&e.path), e.message)
    };
    let diagnostic = Diagnostic::error(summary, "");
    if e.path.is_empty() {
        diagnostic
    } else {
        diagnostic.with_attribute(AttributePath::from_value_path(&e.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_providers::{ClientCapabilities, RawState};

    fn obj(attributes: &[(&str, Value)]) -> Value {
        Value::object(
            attributes
                .iter()
                .map(|(name, value)| (name.to_string(), value.clone()))
                .collect(),
        )
    }

    /// A terraform_data object with every attribute given.
    fn data(id: Value, input: Value, output: Value, triggers: Value) -> Value {
        obj(&[
            ("id", id),
            ("input", input),
            ("output", output),
            ("triggers_replace", triggers),
        ])
    }

    fn dynamic_null() -> Value {
        Value::null(Type::Dynamic)
    }

    fn plan_request(prior: Value, proposed: Value) -> PlanResourceChangeRequest {
        PlanResourceChangeRequest {
            type_name: TERRAFORM_DATA.into(),
            prior_state: prior,
            config: proposed.clone(),
            proposed_new_state: proposed,
            prior_private: Vec::new(),
            provider_meta: None,
            client_capabilities: ClientCapabilities::default(),
        }
    }

    fn unknown_id() -> Value {
        Value::unknown(Type::String).refine_not_null()
    }

    fn stored(input: Value, triggers: Value) -> Value {
        data(Value::string("abc"), input.clone(), input, triggers)
    }

    #[test]
    fn plans() {
        let null_string = Value::null(Type::String);
        let t = |s: &str| Value::tuple(vec![Value::string(s)]);
        // (name, prior, proposed, planned, replace)
        let cases: Vec<(&str, Value, Value, Value, bool)> = vec![
            (
                "create",
                Value::null(terraform_data_schema().implied_type()),
                data(
                    null_string.clone(),
                    Value::string("x"),
                    dynamic_null(),
                    dynamic_null(),
                ),
                data(
                    unknown_id(),
                    Value::string("x"),
                    Value::unknown(Type::String),
                    dynamic_null(),
                ),
                false,
            ),
            (
                "create with null input keeps a null output",
                Value::null(terraform_data_schema().implied_type()),
                data(
                    null_string.clone(),
                    dynamic_null(),
                    dynamic_null(),
                    dynamic_null(),
                ),
                data(unknown_id(), dynamic_null(), dynamic_null(), dynamic_null()),
                false,
            ),
            (
                "create with unknown input",
                Value::null(terraform_data_schema().implied_type()),
                data(
                    null_string.clone(),
                    Value::dynamic(),
                    dynamic_null(),
                    dynamic_null(),
                ),
                data(
                    unknown_id(),
                    Value::dynamic(),
                    Value::dynamic(),
                    dynamic_null(),
                ),
                false,
            ),
            (
                "no change",
                stored(Value::string("x"), t("a")),
                stored(Value::string("x"), t("a")),
                stored(Value::string("x"), t("a")),
                false,
            ),
            (
                "input change is an update with an unknown output of the new type",
                stored(Value::string("x"), t("a")),
                data(
                    Value::string("abc"),
                    Value::int(5),
                    Value::string("x"),
                    t("a"),
                ),
                data(
                    Value::string("abc"),
                    Value::int(5),
                    Value::unknown(Type::Number),
                    t("a"),
                ),
                false,
            ),
            (
                "input to null is an update with an unknown output",
                stored(Value::string("x"), t("a")),
                data(
                    Value::string("abc"),
                    dynamic_null(),
                    Value::string("x"),
                    t("a"),
                ),
                data(
                    Value::string("abc"),
                    dynamic_null(),
                    Value::dynamic(),
                    t("a"),
                ),
                false,
            ),
            (
                "trigger change replaces",
                stored(Value::string("x"), t("a")),
                data(
                    Value::string("abc"),
                    Value::string("x"),
                    Value::string("x"),
                    t("b"),
                ),
                data(
                    unknown_id(),
                    Value::string("x"),
                    Value::unknown(Type::String),
                    t("b"),
                ),
                true,
            ),
            (
                "trigger type change (tuple to list) replaces",
                stored(Value::string("x"), t("a")),
                data(
                    Value::string("abc"),
                    Value::string("x"),
                    Value::string("x"),
                    Value::list(Type::String, vec![Value::string("a")]),
                ),
                data(
                    unknown_id(),
                    Value::string("x"),
                    Value::unknown(Type::String),
                    Value::list(Type::String, vec![Value::string("a")]),
                ),
                true,
            ),
            (
                "unknown trigger replaces",
                stored(Value::string("x"), t("a")),
                data(
                    Value::string("abc"),
                    dynamic_null(),
                    Value::string("x"),
                    Value::dynamic(),
                ),
                data(
                    unknown_id(),
                    dynamic_null(),
                    dynamic_null(),
                    Value::dynamic(),
                ),
                true,
            ),
        ];
        for (name, prior, proposed, want, replace) in cases {
            let response = plan(&plan_request(prior, proposed));
            assert!(
                response.diagnostics.is_empty(),
                "{name}: {}",
                response.diagnostics
            );
            assert!(
                response.planned_state.raw_equals(&want),
                "{name}: got {:?}",
                response.planned_state
            );
            let want_replace = if replace {
                vec![AttributePath::root().attribute("triggers_replace")]
            } else {
                vec![]
            };
            assert_eq!(response.requires_replace, want_replace, "{name}");
        }
    }

    #[test]
    fn plan_destroy_and_bad_values() {
        let ty = terraform_data_schema().implied_type();
        let response = plan(&plan_request(
            stored(Value::string("x"), dynamic_null()),
            Value::null(ty.clone()),
        ));
        assert!(response.planned_state.raw_equals(&Value::null(ty)));
        assert!(response.diagnostics.is_empty());

        let response = plan(&plan_request(dynamic_null(), Value::string("nope")));
        assert!(response.diagnostics.has_errors());
        let response = plan(&plan_request(
            Value::int(1),
            stored(Value::string("x"), dynamic_null()),
        ));
        assert!(response.diagnostics.has_errors());
    }

    fn apply_request(planned: Value) -> ApplyResourceChangeRequest {
        ApplyResourceChangeRequest {
            type_name: TERRAFORM_DATA.into(),
            prior_state: dynamic_null(),
            config: planned.clone(),
            planned_state: planned,
            planned_private: Vec::new(),
            provider_meta: None,
        }
    }

    #[test]
    fn apply_fills_output_and_id() {
        let fixed: IdSource = || Ok("fixed-id".to_string());
        let input = obj(&[("a", Value::int(1))]);
        let planned = data(
            unknown_id(),
            input.clone(),
            Value::unknown(input.ty().clone()),
            dynamic_null(),
        );
        let response = apply(&apply_request(planned.clone()), fixed);
        assert!(response.diagnostics.is_empty());
        let want = data(
            Value::string("fixed-id"),
            input.clone(),
            input.clone(),
            dynamic_null(),
        );
        assert!(
            response.new_state.raw_equals(&want),
            "{:?}",
            response.new_state
        );

        // An update keeps the id.
        let planned = data(
            Value::string("old"),
            input.clone(),
            Value::dynamic(),
            dynamic_null(),
        );
        let response = apply(&apply_request(planned), fixed);
        let want = data(Value::string("old"), input.clone(), input, dynamic_null());
        assert!(response.new_state.raw_equals(&want));

        let failing: IdSource = || Err("no entropy".to_string());
        let planned = data(unknown_id(), dynamic_null(), dynamic_null(), dynamic_null());
        let response = apply(&apply_request(planned), failing);
        let diagnostic = response.diagnostics.iter().next().cloned();
        assert_eq!(
            diagnostic.map(|d| (d.summary, d.detail, d.attribute)),
            Some((
                "Error generating id".to_string(),
                "no entropy".to_string(),
                Some(AttributePath::root().attribute("id"))
            ))
        );

        let ty = terraform_data_schema().implied_type();
        let response = apply(&apply_request(Value::null(ty.clone())), fixed);
        assert!(response.new_state.raw_equals(&Value::null(ty)));
    }

    #[test]
    fn random_ids_are_uuid_shaped_and_differ() {
        let a = random_id().unwrap_or_default();
        let b = random_id().unwrap_or_default();
        assert_ne!(a, b);
        let groups: Vec<usize> = a.split('-').map(str::len).collect();
        assert_eq!(groups, [8, 4, 4, 4, 12], "{a}");
        assert!(a
            .chars()
            .all(|c| c == '-' || c.is_ascii_digit() || ('a'..='f').contains(&c)));
    }

    #[test]
    fn validate_rejects_computed_attributes() {
        let request = |config| ValidateResourceConfigRequest {
            type_name: TERRAFORM_DATA.into(),
            config,
            client_capabilities: ClientCapabilities::default(),
        };
        let summaries = |config| -> Vec<String> {
            validate(&request(config))
                .diagnostics
                .iter()
                .map(|d| d.summary.clone())
                .collect()
        };
        assert_eq!(
            summaries(data(
                Value::string("x"),
                dynamic_null(),
                Value::int(1),
                dynamic_null()
            )),
            [
                r#""id" attribute is read-only"#,
                r#""output" attribute is read-only"#
            ]
        );
        assert!(summaries(data(
            Value::null(Type::String),
            Value::int(1),
            dynamic_null(),
            Value::int(2)
        ))
        .is_empty());
        assert!(summaries(Value::null(terraform_data_schema().implied_type())).is_empty());
    }

    fn upgrade_json(text: &str) -> UpgradeResourceStateResponse {
        upgrade(&UpgradeResourceStateRequest {
            type_name: TERRAFORM_DATA.into(),
            version: 0,
            raw_state: RawState {
                json: text.as_bytes().to_vec(),
                flatmap: BTreeMap::new(),
            },
        })
    }

    #[test]
    fn upgrade_decodes_stored_json() {
        let response = upgrade_json(
            r#"{"id":"4f26db02-9ab0-b843-0951-4f8dd71e3815","input":{"value":"x","type":"string"},"output":{"value":"x","type":"string"},"triggers_replace":null}"#,
        );
        assert!(response.diagnostics.is_empty(), "{}", response.diagnostics);
        let want = data(
            Value::string("4f26db02-9ab0-b843-0951-4f8dd71e3815"),
            Value::string("x"),
            Value::string("x"),
            dynamic_null(),
        );
        assert!(response.upgraded_state.raw_equals(&want));

        for bad in [
            "",
            "[1]",
            r#"{"id":"x","input":{"value":"x"}}"#,
            r#"{"id":"x","extra":1}"#,
        ] {
            let response = upgrade_json(bad);
            assert!(response.diagnostics.has_errors(), "{bad}");
        }
    }

    #[test]
    fn import_sets_only_the_id() {
        let response = import(&ImportResourceStateRequest {
            type_name: TERRAFORM_DATA.into(),
            id: "my-id".into(),
            client_capabilities: ClientCapabilities::default(),
        });
        assert!(response.diagnostics.is_empty());
        assert_eq!(response.imported_resources.len(), 1);
        let want = data(
            Value::string("my-id"),
            dynamic_null(),
            dynamic_null(),
            dynamic_null(),
        );
        assert!(response.imported_resources[0].state.raw_equals(&want));

        let response = import(&ImportResourceStateRequest {
            type_name: "terraform_remote_state".into(),
            id: "x".into(),
            client_capabilities: ClientCapabilities::default(),
        });
        assert!(response.diagnostics.has_errors());
        assert!(response.imported_resources.is_empty());
    }

    fn move_request(source_type: &str, json: &str) -> MoveResourceStateRequest {
        MoveResourceStateRequest {
            source_provider_address: "registry.terraform.io/hashicorp/null".into(),
            source_type_name: source_type.into(),
            source_schema_version: 0,
            source_state_json: json.as_bytes().to_vec(),
            source_private: b"private".to_vec(),
            target_type_name: TERRAFORM_DATA.into(),
        }
    }

    #[test]
    fn move_from_null_resource() {
        let response = move_state(&move_request(
            "null_resource",
            r#"{"id":"123","triggers":{"b":"2","a":"1"}}"#,
        ));
        assert!(response.diagnostics.is_empty(), "{}", response.diagnostics);
        let triggers = obj(&[("a", Value::string("1")), ("b", Value::string("2"))]);
        let want = data(
            Value::string("123"),
            dynamic_null(),
            dynamic_null(),
            triggers,
        );
        assert!(
            response.target_state.raw_equals(&want),
            "{:?}",
            response.target_state
        );
        assert_eq!(response.target_private, b"private");

        let response = move_state(&move_request(
            "null_resource",
            r#"{"id":"9","triggers":null}"#,
        ));
        let want = data(
            Value::string("9"),
            dynamic_null(),
            dynamic_null(),
            dynamic_null(),
        );
        assert!(response.target_state.raw_equals(&want));

        let response = move_state(&move_request("random_id", r#"{"id":"9"}"#));
        assert_eq!(
            response.diagnostics.iter().next().map(|d| d.summary.as_str()),
            Some("unsupported move: random_id -> terraform_data; only move from null_resource to terraform_data is supported")
        );

        let response = move_state(&move_request(
            "null_resource",
            r#"{"id":"9","triggers":[1]}"#,
        ));
        assert!(response.diagnostics.has_errors());
    }
}
