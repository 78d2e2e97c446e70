//! hashicorp/null, written with terrace-sdk: resources and data sources
//! that do nothing but follow the lifecycle, with the same schemas and
//! behaviour as the HashiCorp provider, so configurations using it work
//! unchanged (and offline).
//!
//! - `null_resource`: `triggers` (a map of strings whose change replaces
//!   the resource, except changes only adding or removing null values,
//!   which update it in place) and an `id` set to a random number at
//!   creation.
//! - `null_data_source` (deprecated): copies `inputs` to `outputs`, with a
//!   `random` number and `has_computed_default`.

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use terrace_sdk::{
    Attr, BlockSpec, DataSourceSpec, Error, ProviderSpec, ResourceSpec, Type, Value,
};

/// The provider needs no configuration and no client.
pub fn provider() -> ProviderSpec<()> {
    ProviderSpec::new(BlockSpec::new(), |_, _| Ok(()))
        .calls_never_wait()
        .resource("null_resource", null_resource())
        .data_source("null_data_source", null_data_source())
}

/// A non-negative random 63-bit number in decimal, as Go's `rand.Int()`
/// gives on 64-bit platforms.
fn random_id() -> Result<String, Error> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| {
        Error::new(
            "No random source",
            format!("The system gave no random bytes: {e}"),
        )
    })?;
    Ok((u64::from_le_bytes(bytes) >> 1).to_string())
}

fn null_resource() -> ResourceSpec<()> {
    let schema = BlockSpec::new()
        .markdown_description(
            "The `null_resource` resource implements the standard resource lifecycle but takes no \
             further action. On Terraform 1.4 and later, use the `terraform_data` resource type \
             instead.\n\nThe `triggers` argument allows specifying an arbitrary set of values \
             that, when changed, will cause the resource to be replaced.",
        )
        .attr(
            "triggers",
            Attr::map(Type::String).optional().description(
                "A map of arbitrary strings that, when changed, will force the null resource \
                     to be replaced, re-running any associated provisioners.",
            ),
        )
        .attr(
            "id",
            Attr::string()
                .computed()
                .description("This is set to a random value at create time."),
        );
    ResourceSpec::new(schema)
        .create(|_, _, d| d.set_id(random_id()?))
        .read(|_, _, _| Ok(()))
        // Changes to `triggers` that only add or drop null values update
        // the state in place; the others replace (hashicorp's rule).
        .update(|_, _, _| Ok(()))
        .delete(|_, _, _| Ok(()))
        .plan_hook(|plan| {
            plan.require_replace_if_map_values_not_null("triggers");
            Ok(())
        })
        .import_passthrough()
}

fn null_data_source() -> DataSourceSpec<()> {
    let legacy = "This attribute is only present for some legacy compatibility issues and should \
                  not be used. It will be removed in a future version.";
    let schema = BlockSpec::new()
        .deprecated(
            "The null_data_source was historically used to construct intermediate values to \
             re-use elsewhere in configuration, the same can now be achieved using locals or the \
             terraform_data resource type in Terraform 1.4 and later.",
        )
        .markdown_description(
            "The `null_data_source` data source implements the standard data source lifecycle \
             but does not interact with any external APIs.",
        )
        .attr(
            "inputs",
            Attr::map(Type::String).optional().description(
                "A map of arbitrary strings that is copied into the `outputs` attribute, and \
                 accessible directly for interpolation.",
            ),
        )
        .attr(
            "outputs",
            Attr::map(Type::String)
                .computed()
                .description("After the data source is \"read\", a copy of the `inputs` map."),
        )
        .attr(
            "random",
            Attr::string().computed().description(
                "A random value. This is primarily for testing and has little practical use.",
            ),
        )
        .attr(
            "has_computed_default",
            Attr::string()
                .optional()
                .computed()
                .default(Value::string("default"))
                .description(
                    "If set, its literal value will be stored and returned. If not, its value \
                     defaults to `\"default\"`.",
                ),
        )
        .attr(
            "id",
            Attr::string()
                .computed()
                .deprecated(legacy)
                .description(legacy),
        );
    DataSourceSpec::new(schema).read(|_, _, d| {
        let inputs = d.get("inputs");
        d.set("outputs", inputs)?;
        d.set_string("random", random_id()?)?;
        d.set_string("id", "static")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use terrace_sdk::terrace_providers::*;
    use terrace_sdk::SdkProvider;

    fn object(ty: &Type, entries: Vec<(&str, Value)>) -> Value {
        let mut attributes: BTreeMap<String, Value> = ty
            .object_type()
            .map(|o| {
                o.attributes
                    .iter()
                    .map(|(name, ty)| (name.clone(), Value::null(ty.clone())))
                    .collect()
            })
            .unwrap_or_default();
        for (name, value) in entries {
            attributes.insert(name.to_string(), value);
        }
        Value::object(attributes)
    }

    fn configured() -> SdkProvider<()> {
        let provider = SdkProvider::new(provider());
        let response = provider.configure_provider(ConfigureProviderRequest {
            terraform_version: "1.11.4".into(),
            config: Value::empty_object(),
            client_capabilities: ClientCapabilities::default(),
        });
        assert!(response.diagnostics.is_empty());
        provider
    }

    #[test]
    fn internal_validate_passes() {
        provider().internal_validate().unwrap();
    }

    #[test]
    fn schema_matches_hashicorp_null() {
        let schema = SdkProvider::new(provider()).get_provider_schema().schema;
        let resource = &schema.resource_types["null_resource"].block;
        assert_eq!(
            resource.implied_type().type_string(),
            "object({id=string,triggers=map(string)})"
        );
        assert!(resource.attributes["id"].computed && !resource.attributes["id"].optional);
        assert!(resource.attributes["triggers"].optional);
        let data = &schema.data_sources["null_data_source"].block;
        assert!(data.deprecated);
        assert_eq!(
            data.implied_type().type_string(),
            "object({has_computed_default=string,id=string,inputs=map(string),outputs=map(string),random=string})"
        );
        let flags: Vec<(&str, bool, bool)> = data
            .attributes
            .iter()
            .map(|(name, a)| (name.as_str(), a.optional, a.computed))
            .collect();
        assert_eq!(
            flags,
            vec![
                ("has_computed_default", true, true),
                ("id", false, true),
                ("inputs", true, false),
                ("outputs", false, true),
                ("random", false, true),
            ]
        );
    }

    #[test]
    fn triggers_replace_and_ids_are_random_numbers() {
        let provider = configured();
        let ty =
            provider.get_provider_schema().schema.resource_types["null_resource"].implied_type();
        let triggers = |v: &str| {
            Value::map(
                Type::String,
                [("k".to_string(), Value::string(v))].into_iter().collect(),
            )
        };
        let config = object(&ty, vec![("triggers", triggers("1"))]);
        let plan = provider.plan_resource_change(PlanResourceChangeRequest {
            type_name: "null_resource".into(),
            prior_state: Value::null(ty.clone()),
            proposed_new_state: config.clone(),
            config: config.clone(),
            prior_private: Vec::new(),
            provider_meta: None,
            client_capabilities: ClientCapabilities::default(),
        });
        let applied = provider.apply_resource_change(ApplyResourceChangeRequest {
            type_name: "null_resource".into(),
            prior_state: Value::null(ty.clone()),
            planned_state: plan.planned_state,
            config: config.clone(),
            planned_private: Vec::new(),
            provider_meta: None,
        });
        assert!(applied.diagnostics.is_empty(), "{}", applied.diagnostics);
        let state = applied.new_state;
        let id = state.as_attributes().unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(id.parse::<u64>().is_ok(), "{id}");
        let changed = object(&ty, vec![("triggers", triggers("2"))]);
        let mut proposed = changed.as_attributes().unwrap().to_map();
        proposed.insert("id".into(), Value::string(&id));
        let plan = provider.plan_resource_change(PlanResourceChangeRequest {
            type_name: "null_resource".into(),
            prior_state: state.clone(),
            proposed_new_state: Value::object(proposed),
            config: changed,
            prior_private: Vec::new(),
            provider_meta: None,
            client_capabilities: ClientCapabilities::default(),
        });
        assert_eq!(
            plan.requires_replace,
            vec![AttributePath::root().attribute("triggers")]
        );
        assert!(!plan.planned_state.as_attributes().unwrap()["id"].is_known());
    }

    #[test]
    fn triggers_changing_only_null_values_update_in_place() {
        use terrace_sdk::testing::Tester;
        let t = match Tester::new(provider(), vec![]) {
            Ok(t) => t,
            Err(d) => panic!("{d}"),
        };
        let triggers = |entries: &[(&str, Option<&str>)]| {
            Value::map(
                Type::String,
                entries
                    .iter()
                    .map(|(k, v)| {
                        let value = v.map_or(Value::null(Type::String), Value::string);
                        (k.to_string(), value)
                    })
                    .collect(),
            )
        };
        let null_map = Value::null(Type::map(Type::String));
        let cases = [
            // (before, after, replaces)
            (null_map.clone(), triggers(&[]), false),
            (null_map.clone(), triggers(&[("a", None)]), false),
            (
                triggers(&[("a", Some("1"))]),
                triggers(&[("a", Some("1")), ("b", None)]),
                false,
            ),
            (null_map.clone(), triggers(&[("a", Some("1"))]), true),
            (
                triggers(&[("a", Some("1"))]),
                triggers(&[("a", Some("2"))]),
                true,
            ),
            (triggers(&[("a", Some("1"))]), null_map, true),
        ];
        for (index, (before, after, replaces)) in cases.into_iter().enumerate() {
            let null = Value::null(t.resource_type("null_resource"));
            let config = |v: &Value| t.config("null_resource", vec![("triggers", v.clone())]);
            let state = t.apply("null_resource", &null, &config(&before)).unwrap();
            let plan = t.plan("null_resource", &state, &config(&after));
            assert_eq!(!plan.requires_replace.is_empty(), replaces, "case {index}");
            if !replaces {
                let updated = t.apply("null_resource", &state, &config(&after)).unwrap();
                assert!(
                    updated.as_attributes().unwrap()["id"]
                        .raw_equals(&state.as_attributes().unwrap()["id"]),
                    "case {index}"
                );
                assert!(
                    updated.as_attributes().unwrap()["triggers"].raw_equals(&after),
                    "case {index}"
                );
            }
        }
    }

    #[test]
    fn data_source_copies_inputs() {
        let provider = configured();
        let ty =
            provider.get_provider_schema().schema.data_sources["null_data_source"].implied_type();
        let inputs = Value::map(
            Type::String,
            [("a".to_string(), Value::string("b"))]
                .into_iter()
                .collect(),
        );
        let read = provider.read_data_source(ReadDataSourceRequest {
            type_name: "null_data_source".into(),
            config: object(&ty, vec![("inputs", inputs.clone())]),
            provider_meta: None,
            client_capabilities: ClientCapabilities::default(),
        });
        assert!(!read.diagnostics.has_errors(), "{}", read.diagnostics);
        let state = read.state.as_attributes().unwrap().clone();
        assert!(state["outputs"].raw_equals(&inputs));
        for (name, want) in [("has_computed_default", "default"), ("id", "static")] {
            assert_eq!(state[name].as_str(), Some(want), "{name}");
        }
        assert!(state["random"].as_str().unwrap().parse::<u64>().is_ok());
    }
}
