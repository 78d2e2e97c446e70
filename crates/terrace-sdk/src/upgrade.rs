//! Upgrading stored states: Terraform hands every state back as the JSON
//! it stored, with the schema version it was written under, before each
//! plan. States of older versions go through the resource's upgraders one
//! version at a time; attributes the schema no longer has are dropped, as
//! Terraform's own SDKs do, so that removing an attribute is not a
//! breaking change.

use crate::error::{Error, Result};
use crate::resource::ResourceSpec;
use crate::schema::BlockSpec;
use serde_json::{Map, Value as Json};
use terrace_providers::{NestingMode, RawState};
use terrace_value::Value;

pub(crate) fn upgrade_state<C>(
    type_name: &str,
    resource: &ResourceSpec<C>,
    schema: &BlockSpec,
    version: i64,
    raw: &RawState,
) -> Result<Value> {
    let ty = schema.implied_type();
    if raw.json.is_empty() {
        if raw.flatmap.is_empty() {
            return Ok(Value::null(ty));
        }
        return Err(Error::new(
            "Unsupported state format",
            format!(
                "The state of this {type_name} was written by a Terraform version before 0.12, \
                 in a format this provider cannot read. Upgrade it with Terraform 0.12 first."
            ),
        ));
    }
    if version > resource.version {
        return Err(Error::new(
            "Unsupported state version",
            format!(
                "The state of this {type_name} was written by a newer version of the provider \
                 (schema version {version}; this one knows up to {}). Use that provider \
                 version or newer.",
                resource.version
            ),
        ));
    }
    // The common case, a current state, is decoded as it is: no JSON
    // round trip that could lose the precision of large numbers.
    if version == resource.version {
        if let Ok(value) = terrace_value::json::from_json(&raw.json, &ty) {
            return Ok(value);
        }
    }
    let invalid = |message: String| {
        Error::new(
            "Invalid resource state",
            format!("The stored state of this {type_name} cannot be read: {message}."),
        )
    };
    let parsed: Json = serde_json::from_slice(&raw.json).map_err(|e| invalid(e.to_string()))?;
    let Json::Object(mut object) = parsed else {
        return Err(invalid("it is not a JSON object".into()));
    };
    for from in version.max(0)..resource.version {
        let Some(upgrader) = resource.upgraders.get(&from) else {
            return Err(invalid(format!(
                "there is no upgrade from schema version {from}"
            )));
        };
        object = upgrader(object)?;
    }
    strip_unknown(schema, &mut object);
    let bytes = serde_json::to_vec(&Json::Object(object)).map_err(|e| invalid(e.to_string()))?;
    terrace_value::json::from_json(&bytes, &ty).map_err(|e| {
        let path = terrace_providers::AttributePath::from_value_path(&e.path);
        invalid(format!("{path}: {}", e.message))
    })
}

/// Removes the attributes `spec` does not declare, at every depth.
fn strip_unknown(spec: &BlockSpec, object: &mut Map<String, Json>) {
    object.retain(|name, _| spec.attributes.contains_key(name) || spec.blocks.contains_key(name));
    for (name, nested) in &spec.blocks {
        let Some(value) = object.get_mut(name) else {
            continue;
        };
        match (nested.nesting, value) {
            (NestingMode::Single | NestingMode::Group, Json::Object(inner)) => {
                strip_unknown(&nested.block, inner)
            }
            (NestingMode::List | NestingMode::Set, Json::Array(items)) => {
                for item in items {
                    if let Json::Object(inner) = item {
                        strip_unknown(&nested.block, inner);
                    }
                }
            }
            (NestingMode::Map, Json::Object(entries)) => {
                for item in entries.values_mut() {
                    if let Json::Object(inner) = item {
                        strip_unknown(&nested.block, inner);
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Attr, NestedBlockSpec};
    use crate::values::get_attr;
    use terrace_value::Type;

    fn resource() -> ResourceSpec<()> {
        ResourceSpec::new(
            BlockSpec::new()
                .attr("id", Attr::string().computed())
                .attr("length", Attr::number().required())
                .block(
                    "rule",
                    NestedBlockSpec::list(BlockSpec::new().attr("port", Attr::number().optional())),
                ),
        )
        .version(2)
        .upgrader(0, |mut state| {
            // Version 1 renamed `size` to `length`.
            if let Some(size) = state.remove("size") {
                state.insert("length".into(), size);
            }
            Ok(state)
        })
        .upgrader(1, |mut state| {
            // Version 2 stores lengths as numbers, not strings.
            if let Some(Json::String(text)) = state.get("length").cloned() {
                let number: i64 = text
                    .parse()
                    .map_err(|_| Error::new("Bad length", text.clone()))?;
                state.insert("length".into(), Json::from(number));
            }
            Ok(state)
        })
    }

    fn raw(json: &str) -> RawState {
        RawState {
            json: json.as_bytes().to_vec(),
            flatmap: Default::default(),
        }
    }

    #[test]
    fn old_states_are_upgraded_step_by_step() {
        let resource = resource();
        let schema = resource.effective_schema();
        let value = upgrade_state(
            "thing",
            &resource,
            &schema,
            0,
            &raw(r#"{"id":"x","size":"12","gone":true,"rule":[{"port":1,"old":2}]}"#),
        )
        .unwrap();
        assert!(get_attr(&value, "length").raw_equals(&Value::int(12)));
        assert!(get_attr(&value, "id").raw_equals(&Value::string("x")));
        let rules = get_attr(&value, "rule");
        assert_eq!(rules.known_length(), Some(1));
        let value = upgrade_state(
            "thing",
            &resource,
            &schema,
            2,
            &raw(r#"{"id":"y","length":3,"extra":1}"#),
        )
        .unwrap();
        assert!(get_attr(&value, "length").raw_equals(&Value::int(3)));
        assert_eq!(value.ty(), &schema.implied_type());
    }

    #[test]
    fn failures_are_diagnostics() {
        let resource = resource();
        let schema = resource.effective_schema();
        let cases = [
            (3, r#"{}"#, "Unsupported state version"),
            (0, r#"{"size":"x"}"#, "Bad length"),
            (2, r#"[1]"#, "Invalid resource state"),
            (2, r#"{"length":"nan"}"#, "Invalid resource state"),
        ];
        for (version, json, want) in cases {
            let error =
                upgrade_state("thing", &resource, &schema, version, &raw(json)).unwrap_err();
            assert_eq!(error.diagnostics().0[0].summary, want, "{json}");
        }
        let empty = upgrade_state("thing", &resource, &schema, 2, &RawState::default()).unwrap();
        assert!(empty.is_null());
        assert_eq!(empty.ty(), &schema.implied_type());
        let _ = Type::String;
    }
}
