//! The whole SDK through the real protocol: a small provider served over
//! gRPC in this process (`Server::start`), driven by terrace's own plugin
//! client over tfplugin6 and tfplugin5, covering the behaviours providers
//! are written for: configure, validation with attribute paths, plans
//! with unknown computed values and replacements, partial state after a
//! failed update, objects vanishing outside Terraform, import, timeouts,
//! state upgrades, data sources and functions.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use terrace_plugin::{NullLogSink, PluginAddress, PluginProvider, ReattachConfig};
use terrace_providers::*;
use terrace_sdk::validators::matches_regex;
use terrace_sdk::{
    Attr, BlockSpec, CallThreads, DataSourceSpec, Error, Function, ProviderSpec, ResourceSpec,
    ServeOptions, Server, Timeouts,
};
use terrace_value::{Type, Value};

/// The remote system the provider manages, shared with the test so that
/// it can change things behind the provider's back.
#[derive(Default)]
struct Remote {
    items: BTreeMap<String, (String, BTreeMap<String, String>)>,
    fail_tags: bool,
    create_delay: Duration,
}

type Shared = Arc<Mutex<Remote>>;

struct Client {
    namespace: String,
    remote: Shared,
}

fn lock(remote: &Shared) -> std::sync::MutexGuard<'_, Remote> {
    remote.lock().unwrap_or_else(|e| e.into_inner())
}

fn spec(remote: Shared) -> ProviderSpec<Client> {
    let item_schema = BlockSpec::new()
        .attr("id", Attr::string().computed())
        .attr("key", Attr::string().required().force_new())
        .attr("value", Attr::string().optional())
        .attr("tags", Attr::map(Type::String).optional())
        .attr(
            "revision",
            Attr::int64().optional().computed().default(Value::int(1)),
        );
    let item = ResourceSpec::new(item_schema)
        .version(1)
        .upgrader(0, |mut state| {
            if let Some(old) = state.remove("val") {
                state.insert("value".into(), old);
            }
            Ok(state)
        })
        .timeouts(Timeouts {
            create: Some(Duration::from_secs(60)),
            ..Timeouts::default()
        })
        .create(|ctx, client: &Client, d| {
            let delay = lock(&client.remote).create_delay;
            ctx.sleep(delay)?;
            let key = d.get_string("key").unwrap_or_default();
            let id = format!("{}/{key}", client.namespace);
            lock(&client.remote).items.insert(
                id.clone(),
                (
                    d.get_string("value").unwrap_or_default(),
                    d.get_string_map("tags"),
                ),
            );
            d.set_id(id)
        })
        .read(|_, client: &Client, d| {
            let id = d.id().unwrap_or_default().to_string();
            let found = lock(&client.remote).items.get(&id).cloned();
            match found {
                None => d.remove_from_state(),
                Some((value, tags)) => {
                    let key = id.rsplit('/').next().unwrap_or_default().to_string();
                    d.set_string("key", key)?;
                    d.set_string("value", value)?;
                    if !tags.is_empty() || d.is_set("tags") {
                        d.set_string_map("tags", &tags)?;
                    }
                }
            }
            Ok(())
        })
        .update(|_, client: &Client, d| {
            let id = d.id().unwrap_or_default().to_string();
            d.partial(true);
            if d.has_change("value") {
                let value = d.get_string("value").unwrap_or_default();
                if let Some(entry) = lock(&client.remote).items.get_mut(&id) {
                    entry.0 = value;
                }
                d.set_partial("value");
            }
            if d.has_change("tags") {
                if lock(&client.remote).fail_tags {
                    return Err(Error::attribute(
                        "tags",
                        "Tags could not be set",
                        "The tag service is down.",
                    ));
                }
                let tags = d.get_string_map("tags");
                if let Some(entry) = lock(&client.remote).items.get_mut(&id) {
                    entry.1 = tags;
                }
                d.set_partial("tags");
            }
            d.partial(false);
            Ok(())
        })
        .delete(|_, client: &Client, d| {
            let id = d.id().unwrap_or_default().to_string();
            lock(&client.remote).items.remove(&id);
            Ok(())
        })
        .import_passthrough();
    let lookup = DataSourceSpec::new(
        BlockSpec::new()
            .attr("id", Attr::string().required())
            .attr("value", Attr::string().computed()),
    )
    .read(|_, client: &Client, d| {
        let id = d.id().unwrap_or_default().to_string();
        let found = lock(&client.remote).items.get(&id).cloned();
        match found {
            Some((value, _)) => d.set_string("value", value),
            None => Err(Error::attribute(
                "id",
                "No such item",
                format!("There is no item {id}."),
            )),
        }
    });
    let upper = Function::new(
        FunctionSpec {
            parameters: vec![FunctionParameter {
                name: "text".into(),
                ty: Type::String,
                allow_null_value: false,
                allow_unknown_values: false,
                description: String::new(),
                description_kind: StringKind::Plain,
            }],
            variadic_parameter: None,
            return_type: Type::String,
            summary: "Upper-cases text".into(),
            description: String::new(),
            description_kind: StringKind::Plain,
            deprecation_message: String::new(),
        },
        |arguments| {
            let text = arguments
                .first()
                .and_then(Value::as_str)
                .ok_or_else(|| FunctionError::new("text must be a string"))?;
            Ok(Value::string(text.to_uppercase()))
        },
    );
    // Provider code with a bug: the server must answer this call with an
    // error and go on serving.
    let explode = Function::new(
        FunctionSpec {
            parameters: Vec::new(),
            variadic_parameter: None,
            return_type: Type::String,
            summary: "Panics".into(),
            description: String::new(),
            description_kind: StringKind::Plain,
            deprecation_message: String::new(),
        },
        |_| panic!("a bug in the provider"),
    );
    let namespace_ok = match matches_regex("^[a-z]+$", "must be lower-case letters") {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    };
    ProviderSpec::new(
        BlockSpec::new().attr(
            "namespace",
            Attr::string().required().validate(namespace_ok),
        ),
        move |_, config| {
            Ok(Client {
                namespace: config.get_string("namespace").unwrap_or_default(),
                remote: remote.clone(),
            })
        },
    )
    .resource("testkv_item", item)
    .data_source("testkv_item", lookup)
    .function("upper", upper)
    .function("explode", explode)
}

fn object(ty: &Type, entries: Vec<(&str, Value)>) -> Value {
    let mut attributes: BTreeMap<String, Value> = ty
        .object_type()
        .unwrap()
        .attributes
        .iter()
        .map(|(name, ty)| (name.clone(), Value::null(ty.clone())))
        .collect();
    for (name, value) in entries {
        attributes.insert(name.to_string(), value);
    }
    Value::object(attributes)
}

fn attr(value: &Value, name: &str) -> Value {
    value.as_attributes().unwrap()[name].clone()
}

fn tags(entries: &[(&str, &str)]) -> Value {
    Value::map(
        Type::String,
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), Value::string(v)))
            .collect(),
    )
}

struct Harness {
    remote: Shared,
    client: PluginProvider,
    _server: Server,
    item: Type,
}

impl Harness {
    fn new(protocol_version: u32, calls: CallThreads) -> Harness {
        let remote: Shared = Arc::default();
        let sdk = terrace_sdk::SdkProvider::new(spec(remote.clone()));
        sdk.spec().internal_validate().unwrap();
        let server = Server::start(
            Arc::new(sdk),
            ServeOptions {
                protocol_version,
                socket_dir: None,
                client_certificate: None,
                calls,
            },
        )
        .unwrap();
        assert!(server
            .handshake_line()
            .starts_with(&format!("1|{protocol_version}|unix|")));
        let client = PluginProvider::reattach(
            "registry.terraform.io/terrace/testkv",
            &ReattachConfig {
                protocol_version,
                address: PluginAddress::Unix(server.socket_path().to_path_buf()),
                pid: None,
                test: true,
            },
            Arc::new(NullLogSink),
        )
        .unwrap();
        let schema = client.get_provider_schema();
        assert!(!schema.diagnostics.has_errors(), "{}", schema.diagnostics);
        let item = schema.schema.resource_types["testkv_item"].implied_type();
        Harness {
            remote,
            client,
            _server: server,
            item,
        }
    }

    fn configure(&self, namespace: &str) -> Diagnostics {
        let ty = Type::object([("namespace".to_string(), Type::String)]);
        let config = object(&ty, vec![("namespace", Value::string(namespace))]);
        let validation = self
            .client
            .validate_provider_config(ValidateProviderConfigRequest {
                config: config.clone(),
            });
        if validation.diagnostics.has_errors() {
            return validation.diagnostics;
        }
        self.client
            .configure_provider(ConfigureProviderRequest {
                terraform_version: "1.11.4".into(),
                config,
                client_capabilities: ClientCapabilities::default(),
            })
            .diagnostics
    }

    fn plan(&self, prior: &Value, config: &Value) -> PlanResourceChangeResponse {
        // Terraform's proposed new state: the configuration, with prior
        // values for computed attributes left unset.
        let proposed = if config.is_null() || prior.is_null() {
            config.clone()
        } else {
            let mut attributes = config.as_attributes().unwrap().to_map();
            for name in ["id", "revision"] {
                if attributes[name].is_null() {
                    attributes.insert(name.to_string(), attr(prior, name));
                }
            }
            Value::object(attributes)
        };
        self.client.plan_resource_change(PlanResourceChangeRequest {
            type_name: "testkv_item".into(),
            prior_state: prior.clone(),
            proposed_new_state: proposed,
            config: config.clone(),
            prior_private: Vec::new(),
            provider_meta: None,
            client_capabilities: ClientCapabilities::default(),
        })
    }

    fn apply(&self, prior: &Value, planned: &Value, config: &Value) -> ApplyResourceChangeResponse {
        self.client
            .apply_resource_change(ApplyResourceChangeRequest {
                type_name: "testkv_item".into(),
                prior_state: prior.clone(),
                planned_state: planned.clone(),
                config: config.clone(),
                planned_private: Vec::new(),
                provider_meta: None,
            })
    }

    /// Plans and applies `config` over `prior`, expecting success.
    fn converge(&self, prior: &Value, config: &Value) -> Value {
        let plan = self.plan(prior, config);
        assert!(!plan.diagnostics.has_errors(), "{}", plan.diagnostics);
        let applied = self.apply(prior, &plan.planned_state, config);
        assert!(!applied.diagnostics.has_errors(), "{}", applied.diagnostics);
        applied.new_state
    }

    fn read(&self, state: &Value) -> ReadResourceResponse {
        self.client.read_resource(ReadResourceRequest {
            type_name: "testkv_item".into(),
            prior_state: state.clone(),
            private: Vec::new(),
            provider_meta: None,
            client_capabilities: ClientCapabilities::default(),
        })
    }

    fn config(&self, key: &str, value: &str, tag_entries: &[(&str, &str)]) -> Value {
        object(
            &self.item,
            vec![
                ("key", Value::string(key)),
                ("value", Value::string(value)),
                ("tags", tags(tag_entries)),
            ],
        )
    }
}

/// Every test runs on both protocol versions, with the provider's code
/// on the blocking pool and on the server's own thread.
fn each_protocol(test: impl Fn(Harness)) {
    for version in [6, 5] {
        for calls in [CallThreads::Blocking, CallThreads::Server] {
            test(Harness::new(version, calls));
        }
    }
}

#[test]
fn bad_configuration_gets_attribute_paths() {
    each_protocol(|h| {
        let diagnostics = h.configure("Not Letters");
        let error = diagnostics.errors().next().expect("an error");
        assert_eq!(error.summary, "Invalid Attribute Value");
        assert_eq!(
            error.attribute,
            Some(AttributePath::root().attribute("namespace"))
        );
        assert!(h.configure("prod").is_empty());
        let config = object(
            &h.item,
            vec![
                ("key", Value::string("a")),
                (
                    "revision",
                    Value::number(terrace_value::Number::parse("1.5").unwrap()),
                ),
                (
                    "timeouts",
                    Value::object(
                        [("create".to_string(), Value::string("soon"))]
                            .into_iter()
                            .collect(),
                    ),
                ),
            ],
        );
        let response = h
            .client
            .validate_resource_config(ValidateResourceConfigRequest {
                type_name: "testkv_item".into(),
                config,
                client_capabilities: ClientCapabilities::default(),
            });
        let paths: Vec<String> = response
            .diagnostics
            .iter()
            .map(|d| {
                d.attribute
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default()
            })
            .collect();
        assert_eq!(paths, vec![".revision", ".timeouts.create"]);
    });
}

#[test]
fn lifecycle_with_unknowns_replacement_and_consistency() {
    each_protocol(|h| {
        assert!(h.configure("prod").is_empty());
        let null = Value::null(h.item.clone());
        let config = h.config("a", "one", &[("env", "dev")]);
        let plan = h.plan(&null, &config);
        assert!(!plan.diagnostics.has_errors(), "{}", plan.diagnostics);
        assert!(!attr(&plan.planned_state, "id").is_known());
        assert!(attr(&plan.planned_state, "revision").raw_equals(&Value::int(1)));
        let state = h.converge(&null, &config);
        assert_eq!(attr(&state, "id").as_str(), Some("prod/a"));
        // No changes: the plan is the prior state.
        let again = h.plan(&state, &config);
        assert!(again.requires_replace.is_empty());
        assert!(again.planned_state.raw_equals(&state));
        // Changing the force-new key replaces the object.
        let renamed = h.config("b", "one", &[("env", "dev")]);
        let plan = h.plan(&state, &renamed);
        assert_eq!(
            plan.requires_replace,
            vec![AttributePath::root().attribute("key")]
        );
        assert!(!attr(&plan.planned_state, "id").is_known());
        // An in-place update keeps the computed id.
        let changed = h.config("a", "two", &[("env", "dev")]);
        let plan = h.plan(&state, &changed);
        assert!(plan.requires_replace.is_empty());
        assert_eq!(attr(&plan.planned_state, "id").as_str(), Some("prod/a"));
        let state = h.converge(&state, &changed);
        assert_eq!(lock(&h.remote).items["prod/a"].0, "two");
        // Destroy.
        let plan = h.plan(&state, &null);
        assert!(plan.planned_state.is_null());
        let gone = h.apply(&state, &null, &null);
        assert!(gone.new_state.is_null());
        assert!(lock(&h.remote).items.is_empty());
    });
}

#[test]
fn failed_update_keeps_partial_state_for_the_next_apply() {
    each_protocol(|h| {
        assert!(h.configure("prod").is_empty());
        let null = Value::null(h.item.clone());
        let state = h.converge(&null, &h.config("a", "one", &[("env", "dev")]));
        lock(&h.remote).fail_tags = true;
        let changed = h.config("a", "two", &[("env", "prod")]);
        let plan = h.plan(&state, &changed);
        let failed = h.apply(&state, &plan.planned_state, &changed);
        let error = failed.diagnostics.errors().next().expect("an error");
        assert_eq!(error.summary, "Tags could not be set");
        assert_eq!(
            error.attribute,
            Some(AttributePath::root().attribute("tags"))
        );
        // The value change went through and is recorded; the tags are not.
        let partial = failed.new_state;
        assert_eq!(attr(&partial, "value").as_str(), Some("two"));
        assert!(attr(&partial, "tags").raw_equals(&tags(&[("env", "dev")])));
        // The next apply finishes the job.
        lock(&h.remote).fail_tags = false;
        let plan = h.plan(&partial, &changed);
        assert!(!attr(&plan.planned_state, "tags").raw_equals(&attr(&partial, "tags")));
        let done = h.converge(&partial, &changed);
        assert!(attr(&done, "tags").raw_equals(&tags(&[("env", "prod")])));
        assert_eq!(lock(&h.remote).items["prod/a"].1["env"], "prod");
    });
}

#[test]
fn objects_deleted_outside_are_removed_from_state() {
    each_protocol(|h| {
        assert!(h.configure("prod").is_empty());
        let null = Value::null(h.item.clone());
        let state = h.converge(&null, &h.config("a", "one", &[]));
        lock(&h.remote).items.get_mut("prod/a").unwrap().0 = "drifted".into();
        let read = h.read(&state);
        assert_eq!(attr(&read.new_state, "value").as_str(), Some("drifted"));
        lock(&h.remote).items.clear();
        let read = h.read(&state);
        assert!(!read.diagnostics.has_errors());
        assert!(read.new_state.is_null());
    });
}

#[test]
fn import_then_read_fills_the_state() {
    each_protocol(|h| {
        assert!(h.configure("prod").is_empty());
        lock(&h.remote)
            .items
            .insert("prod/x".into(), ("imported".into(), BTreeMap::new()));
        let imported = h.client.import_resource_state(ImportResourceStateRequest {
            type_name: "testkv_item".into(),
            id: "prod/x".into(),
            client_capabilities: ClientCapabilities::default(),
        });
        assert!(
            !imported.diagnostics.has_errors(),
            "{}",
            imported.diagnostics
        );
        let state = &imported.imported_resources[0].state;
        assert_eq!(attr(state, "id").as_str(), Some("prod/x"));
        let read = h.read(state);
        assert_eq!(attr(&read.new_state, "key").as_str(), Some("x"));
        assert_eq!(attr(&read.new_state, "value").as_str(), Some("imported"));
    });
}

#[test]
fn timeouts_bound_operations() {
    each_protocol(|h| {
        assert!(h.configure("prod").is_empty());
        lock(&h.remote).create_delay = Duration::from_secs(30);
        let null = Value::null(h.item.clone());
        let timeouts_ty = h.item.attribute_type("timeouts").unwrap().clone();
        let config = object(
            &h.item,
            vec![
                ("key", Value::string("slow")),
                (
                    "timeouts",
                    object(&timeouts_ty, vec![("create", Value::string("50ms"))]),
                ),
            ],
        );
        let plan = h.plan(&null, &config);
        let applied = h.apply(&null, &plan.planned_state, &config);
        let error = applied.diagnostics.errors().next().expect("a timeout");
        assert_eq!(error.summary, "Timeout while waiting for create");
        assert!(error.detail.contains("50ms"), "{}", error.detail);
        assert!(applied.new_state.is_null());
        assert!(lock(&h.remote).items.is_empty());
    });
}

#[test]
fn old_states_are_upgraded() {
    each_protocol(|h| {
        let response = h
            .client
            .upgrade_resource_state(UpgradeResourceStateRequest {
                type_name: "testkv_item".into(),
                version: 0,
                raw_state: RawState {
                    json: br#"{"id":"prod/a","key":"a","val":"old","revision":1,"dropped":true}"#
                        .to_vec(),
                    flatmap: BTreeMap::new(),
                },
            });
        assert!(
            !response.diagnostics.has_errors(),
            "{}",
            response.diagnostics
        );
        assert_eq!(
            attr(&response.upgraded_state, "value").as_str(),
            Some("old")
        );
    });
}

#[test]
fn data_sources_and_functions() {
    each_protocol(|h| {
        assert!(h.configure("prod").is_empty());
        lock(&h.remote)
            .items
            .insert("prod/k".into(), ("v".into(), BTreeMap::new()));
        let schema = h.client.get_provider_schema();
        let ty = schema.schema.data_sources["testkv_item"].implied_type();
        let read = |id: &str| {
            h.client.read_data_source(ReadDataSourceRequest {
                type_name: "testkv_item".into(),
                config: object(&ty, vec![("id", Value::string(id))]),
                provider_meta: None,
                client_capabilities: ClientCapabilities::default(),
            })
        };
        let found = read("prod/k");
        assert_eq!(attr(&found.state, "value").as_str(), Some("v"));
        let missing = read("prod/none");
        assert_eq!(
            missing.diagnostics.errors().next().unwrap().attribute,
            Some(AttributePath::root().attribute("id"))
        );
        let called = h.client.call_function(CallFunctionRequest {
            name: "upper".into(),
            arguments: vec![Value::string("abc")],
        });
        assert!(called.result.unwrap().raw_equals(&Value::string("ABC")));
    });
}

#[test]
fn a_panic_in_provider_code_fails_that_call_alone() {
    each_protocol(|h| {
        let call = |name: &str, arguments: Vec<Value>| {
            h.client.call_function(CallFunctionRequest {
                name: name.into(),
                arguments,
            })
        };
        let failed = call("explode", Vec::new()).result.unwrap_err();
        assert!(
            failed.text.contains("a bug in the provider"),
            "{}",
            failed.text
        );
        let called = call("upper", vec![Value::string("still here")]);
        assert!(called
            .result
            .unwrap()
            .raw_equals(&Value::string("STILL HERE")));
    });
}
