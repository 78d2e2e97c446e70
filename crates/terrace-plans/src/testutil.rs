//! Test support: reads what Terraform recorded (`providers schema -json`,
//! `show -json` of a plan or state) back into terrace's models, so the
//! recorded cases under `tests/render` can drive the renderer and the JSON
//! writers and be compared with Terraform's own output.

use crate::jsonval::J;
use crate::model::{
    Action, ActionReason, OutputChange, Plan, PlanMode, ResourceAttr, ResourceInstanceChange,
};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use terrace_addrs::{
    AbsProviderConfig, AbsResourceInstance, ConfigResource, Module, Provider, ResourceMode,
};
use terrace_providers::{
    Attribute, AttributePath, Block, NestedAttributes, NestedBlock, NestingMode, ObjectNesting,
    Schema,
};
use terrace_states::{AttrsJson, DeposedKey, ObjectState, ObjectStatus, OutputState, State};
use terrace_value::{Marks, Number, Type, Value};

pub(crate) type Schemas = HashMap<(String, ResourceMode, String), Arc<Schema>>;

pub(crate) fn read_json(path: &Path) -> J {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    J::parse(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

fn get<'a>(j: &'a J, key: &str) -> &'a J {
    static NULL: J = J::Null;
    j.as_object().and_then(|o| o.get(key)).unwrap_or(&NULL)
}

fn str_of<'a>(j: &'a J, key: &str) -> &'a str {
    get(j, key).as_str().unwrap_or_default()
}

fn flag(j: &J, key: &str) -> bool {
    get(j, key).as_bool().unwrap_or(false)
}

fn type_of(j: &J) -> Type {
    terrace_value::typejson::type_from_json(j.to_compact().as_bytes())
        .unwrap_or_else(|e| panic!("type {}: {e}", j.to_compact()))
}

fn attribute_from_json(j: &J) -> Attribute {
    let mut a = match get(j, "nested_type") {
        J::Null => Attribute::new(type_of(get(j, "type"))),
        nested => {
            let nesting = match str_of(nested, "nesting_mode") {
                "single" => ObjectNesting::Single,
                "list" => ObjectNesting::List,
                "set" => ObjectNesting::Set,
                "map" => ObjectNesting::Map,
                other => panic!("nesting mode {other}"),
            };
            let attributes = get(nested, "attributes")
                .as_object()
                .map(|o| {
                    o.iter()
                        .map(|(k, v)| (k.clone(), attribute_from_json(v)))
                        .collect()
                })
                .unwrap_or_default();
            Attribute::nested(NestedAttributes {
                nesting,
                attributes,
            })
        }
    };
    a.required = flag(j, "required");
    a.optional = flag(j, "optional");
    a.computed = flag(j, "computed");
    a.sensitive = flag(j, "sensitive");
    a.write_only = flag(j, "write_only");
    a
}

pub(crate) fn block_from_json(j: &J) -> Block {
    let attributes = get(j, "attributes")
        .as_object()
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), attribute_from_json(v)))
                .collect()
        })
        .unwrap_or_default();
    let block_types = get(j, "block_types")
        .as_object()
        .map(|o| {
            o.iter()
                .map(|(k, v)| {
                    let nesting = match str_of(v, "nesting_mode") {
                        "single" => NestingMode::Single,
                        "group" => NestingMode::Group,
                        "list" => NestingMode::List,
                        "set" => NestingMode::Set,
                        "map" => NestingMode::Map,
                        other => panic!("nesting mode {other}"),
                    };
                    let nb = NestedBlock {
                        nesting,
                        block: block_from_json(get(v, "block")),
                        min_items: 0,
                        max_items: 0,
                    };
                    (k.clone(), nb)
                })
                .collect()
        })
        .unwrap_or_default();
    Block {
        attributes,
        block_types,
        ..Block::default()
    }
}

/// The trimmed `providers schema -json` the recorder writes.
pub(crate) fn load_schemas(j: &J) -> Schemas {
    let mut out = Schemas::new();
    for (provider, p) in j.as_object().into_iter().flatten() {
        for (key, mode) in [
            ("resource_schemas", ResourceMode::Managed),
            ("data_source_schemas", ResourceMode::Data),
        ] {
            for (name, s) in get(p, key).as_object().into_iter().flatten() {
                let schema = Schema {
                    version: 0,
                    block: block_from_json(get(s, "block")),
                };
                out.insert((provider.clone(), mode, name.clone()), Arc::new(schema));
            }
        }
    }
    out
}

pub(crate) fn lookup(
    schemas: &Schemas,
) -> impl Fn(&Provider, ResourceMode, &str) -> Option<Arc<Schema>> + '_ {
    move |p, mode, t| schemas.get(&(p.to_string(), mode, t.to_string())).cloned()
}

/// A value of type `ty` from its JSON with the unknown and sensitive
/// shapes laid over it. Where the type is dynamic, the JSON's shape gives
/// the type (objects and tuples), as it does for Terraform's renderer.
pub(crate) fn value_from_json(j: &J, ty: &Type, unknown: &J, sensitive: &J) -> Value {
    let v = if unknown.as_bool() == Some(true) {
        // The sensitive shape of an unknown tells its kind of type, which
        // Terraform's JSON shows that way; the JSON says nothing more.
        match (ty, sensitive) {
            (Type::Dynamic, J::Object(_)) => Value::unknown(Type::empty_object()),
            (Type::Dynamic, J::Array(_)) => Value::unknown(Type::empty_tuple()),
            _ => Value::unknown(ty.clone()),
        }
    } else {
        build(j, ty, unknown, sensitive)
    };
    if sensitive.as_bool() == Some(true) {
        v.mark(Marks::SENSITIVE)
    } else {
        v
    }
}

fn child<'a>(j: &'a J, key: &str) -> &'a J {
    get(j, key)
}

fn index(j: &J, i: usize) -> &J {
    static NULL: J = J::Null;
    j.as_array().and_then(|a| a.get(i)).unwrap_or(&NULL)
}

fn build(j: &J, ty: &Type, unknown: &J, sensitive: &J) -> Value {
    let has_unknown_keys = unknown.as_object().is_some_and(|o| !o.is_empty());
    if j.is_null() && !(ty.is_dynamic() && has_unknown_keys) {
        return Value::null(ty.clone());
    }
    match ty {
        Type::Dynamic => match j {
            J::Bool(b) => Value::bool(*b),
            J::Number(n) => Value::number(Number::parse(n).unwrap_or_else(|| Number::from_i64(0))),
            J::String(s) => Value::string(&**s),
            J::Array(a) => Value::tuple(
                (0..a.len())
                    .map(|i| {
                        value_from_json(
                            &a[i],
                            &Type::Dynamic,
                            index(unknown, i),
                            index(sensitive, i),
                        )
                    })
                    .collect(),
            ),
            J::Object(_) | J::Null => {
                let mut keys: Vec<String> = j
                    .as_object()
                    .map(|o| o.keys().cloned().collect())
                    .unwrap_or_default();
                for (k, u) in unknown.as_object().into_iter().flatten() {
                    if u.as_bool() == Some(true) && !keys.contains(k) {
                        keys.push(k.clone());
                    }
                }
                Value::object(
                    keys.into_iter()
                        .map(|k| {
                            let v = value_from_json(
                                child(j, &k),
                                &Type::Dynamic,
                                child(unknown, &k),
                                child(sensitive, &k),
                            );
                            (k, v)
                        })
                        .collect(),
                )
            }
        },
        Type::String => Value::string(j.as_str().unwrap_or_default()),
        Type::Bool => Value::bool(j.as_bool().unwrap_or(false)),
        Type::Number => match j {
            J::Number(n) => Value::number(Number::parse(n).unwrap_or_else(|| Number::from_i64(0))),
            _ => Value::null(Type::Number),
        },
        Type::List(e) | Type::Set(e) => {
            let elems: Vec<Value> = j
                .as_array()
                .unwrap_or_default()
                .iter()
                .enumerate()
                .map(|(i, x)| value_from_json(x, e, index(unknown, i), index(sensitive, i)))
                .collect();
            if ty.is_set() {
                Value::set((**e).clone(), elems)
            } else {
                Value::list((**e).clone(), elems)
            }
        }
        Type::Tuple(ts) => Value::tuple(
            ts.iter()
                .enumerate()
                .map(|(i, t)| {
                    value_from_json(index(j, i), t, index(unknown, i), index(sensitive, i))
                })
                .collect(),
        ),
        Type::Map(e) => Value::map(
            (**e).clone(),
            j.as_object()
                .into_iter()
                .flatten()
                .map(|(k, x)| {
                    (
                        k.clone(),
                        value_from_json(x, e, child(unknown, k), child(sensitive, k)),
                    )
                })
                .collect(),
        ),
        Type::Object(ot) => Value::object(
            ot.attributes
                .iter()
                .map(|(k, t)| {
                    (
                        k.clone(),
                        value_from_json(child(j, k), t, child(unknown, k), child(sensitive, k)),
                    )
                })
                .collect(),
        ),
    }
}

fn provider_of(name: &str) -> Provider {
    Provider::parse_source_str(name).unwrap_or_else(|_| panic!("provider {name}"))
}

fn addr_of(s: &str) -> AbsResourceInstance {
    AbsResourceInstance::parse_str(s).unwrap_or_else(|_| panic!("address {s}"))
}

fn path_of(j: &J) -> AttributePath {
    let mut p = AttributePath::root();
    for (i, step) in j.as_array().unwrap_or_default().iter().enumerate() {
        p = match step {
            J::String(s) if i == 0 => p.attribute(&**s),
            J::String(s) => p.key(&**s),
            J::Number(n) => p.index(n.parse().unwrap_or(0)),
            _ => p,
        };
    }
    p
}

/// `planned_values` resources by address: their `sensitive_values` are the
/// after value's own marks, where the change's `after_sensitive` adds the
/// schema's.
fn planned_sensitive(j: &J) -> HashMap<String, J> {
    let mut out = HashMap::new();
    let mut modules = vec![get(get(j, "planned_values"), "root_module")];
    while let Some(m) = modules.pop() {
        for r in get(m, "resources").as_array().into_iter().flatten() {
            out.insert(
                str_of(r, "address").to_string(),
                get(r, "sensitive_values").clone(),
            );
        }
        modules.extend(get(m, "child_modules").as_array().into_iter().flatten());
    }
    out
}

fn resource_change_from_json(
    rc: &J,
    schemas: &Schemas,
    planned: &HashMap<String, J>,
) -> ResourceInstanceChange {
    let addr = addr_of(str_of(rc, "address"));
    let prev = match str_of(rc, "previous_address") {
        "" => addr.clone(),
        p => addr_of(p),
    };
    let provider = provider_of(str_of(rc, "provider_name"));
    let mode = match str_of(rc, "mode") {
        "data" => ResourceMode::Data,
        _ => ResourceMode::Managed,
    };
    let schema = schemas
        .get(&(provider.to_string(), mode, str_of(rc, "type").to_string()))
        .cloned()
        .unwrap_or_default();
    let ty = schema.implied_type();
    let ch = get(rc, "change");
    let actions: Vec<&str> = get(ch, "actions")
        .as_array()
        .unwrap_or_default()
        .iter()
        .filter_map(J::as_str)
        .collect();
    let action =
        Action::from_json_actions(&actions).unwrap_or_else(|| panic!("actions {actions:?}"));
    let before = value_from_json(
        get(ch, "before"),
        &ty,
        &J::Bool(false),
        get(ch, "before_sensitive"),
    );
    let after_marks = match planned.get(str_of(rc, "address")) {
        Some(m) if str_of(rc, "deposed").is_empty() => m,
        _ => get(ch, "after_sensitive"),
    };
    let after = value_from_json(get(ch, "after"), &ty, get(ch, "after_unknown"), after_marks);
    ResourceInstanceChange {
        addr,
        prev_run_addr: prev,
        deposed: DeposedKey::parse(str_of(rc, "deposed")),
        provider: AbsProviderConfig::new(Module::root(), provider, None)
            .instance(Default::default()),
        action,
        action_reason: ActionReason::from_json_name(str_of(rc, "action_reason"))
            .unwrap_or_default(),
        before,
        after,
        required_replace: get(ch, "replace_paths")
            .as_array()
            .unwrap_or_default()
            .iter()
            .map(path_of)
            .collect(),
        private: Vec::new(),
        importing: get(ch, "importing").as_object().map(|o| {
            o.get("id")
                .and_then(J::as_str)
                .unwrap_or_default()
                .to_string()
        }),
        generated_config: None,
        schema_version: 0,
    }
}

/// A plan from `show -json` of a saved plan.
pub(crate) fn plan_from_json(j: &J, mode: PlanMode, schemas: &Schemas) -> Plan {
    let state = match get(j, "prior_state") {
        J::Null => State::new_with_lineage("test"),
        s => state_from_json(s, schemas),
    };
    let mut plan = Plan::empty(mode, state);
    let planned = planned_sensitive(j);
    plan.changes = get(j, "resource_changes")
        .as_array()
        .unwrap_or_default()
        .iter()
        .map(|rc| resource_change_from_json(rc, schemas, &planned))
        .collect();
    plan.drift = get(j, "resource_drift")
        .as_array()
        .unwrap_or_default()
        .iter()
        .map(|rc| resource_change_from_json(rc, schemas, &HashMap::new()))
        .collect();
    let planned_outputs = get(get(j, "planned_values"), "outputs");
    for (name, oc) in get(j, "output_changes").as_object().into_iter().flatten() {
        let actions: Vec<&str> = get(oc, "actions")
            .as_array()
            .unwrap_or_default()
            .iter()
            .filter_map(J::as_str)
            .collect();
        plan.output_changes.push(OutputChange {
            name: name.clone(),
            action: Action::from_json_actions(&actions).unwrap_or_default(),
            before: value_from_json(
                get(oc, "before"),
                &Type::Dynamic,
                &J::Bool(false),
                &J::Bool(false),
            ),
            after: {
                let ty = match get(get(planned_outputs, name), "type") {
                    J::Null => Type::Dynamic,
                    t => type_of(t),
                };
                value_from_json(
                    get(oc, "after"),
                    &ty,
                    get(oc, "after_unknown"),
                    &J::Bool(false),
                )
            },
            sensitive: get(oc, "before_sensitive").as_bool() == Some(true),
        });
    }
    for ra in get(j, "relevant_attributes")
        .as_array()
        .into_iter()
        .flatten()
    {
        plan.relevant_attributes.push(ResourceAttr {
            resource: addr_of(str_of(ra, "resource")),
            attr: path_of(get(ra, "attribute")),
        });
    }
    plan.errored = flag(j, "errored");
    plan.applyable = flag(j, "applyable");
    plan.complete = flag(j, "complete");
    plan.timestamp = str_of(j, "timestamp").to_string();
    plan
}

/// A state from `show -json` of a state (or a plan's `prior_state`).
pub(crate) fn state_from_json(j: &J, schemas: &Schemas) -> State {
    let mut state = State::new_with_lineage("test");
    let values = get(j, "values");
    for (name, o) in get(values, "outputs").as_object().into_iter().flatten() {
        let ty = match get(o, "type") {
            J::Null => Type::Dynamic,
            t => type_of(t),
        };
        state.outputs.insert(
            name.clone(),
            OutputState {
                value: value_from_json(get(o, "value"), &ty, &J::Bool(false), &J::Bool(false)),
                sensitive: flag(o, "sensitive"),
            },
        );
    }
    let mut modules = vec![get(values, "root_module")];
    while let Some(m) = modules.pop() {
        for r in get(m, "resources").as_array().into_iter().flatten() {
            let addr = addr_of(str_of(r, "address"));
            let provider = provider_of(str_of(r, "provider_name"));
            let mode = match str_of(r, "mode") {
                "data" => ResourceMode::Data,
                _ => ResourceMode::Managed,
            };
            let schema = schemas
                .get(&(provider.to_string(), mode, str_of(r, "type").to_string()))
                .cloned()
                .unwrap_or_default();
            let value = value_from_json(
                get(r, "values"),
                &schema.implied_type(),
                &J::Bool(false),
                get(r, "sensitive_values"),
            );
            let mut object = ObjectState::from_value(&value, 0)
                .unwrap_or_else(|e| panic!("state object {addr}: {e}"));
            // Stored as Terraform stores it: encoded with the schema's type,
            // so dynamic attributes carry their types.
            let (plain, _) = value.unmark_deep();
            let text = terrace_value::json::to_json(&plain, &schema.implied_type())
                .unwrap_or_else(|e| panic!("state object {addr}: {e}"));
            object.attributes = AttrsJson::Json(Arc::from(text));
            if let J::Number(n) = get(r, "schema_version") {
                object.schema_version = n.parse().unwrap_or(0);
            }
            object.dependencies = get(r, "depends_on")
                .as_array()
                .unwrap_or_default()
                .iter()
                .filter_map(J::as_str)
                .map(|d| ConfigResource::parse_str(d).unwrap_or_else(|_| panic!("depends_on {d}")))
                .collect();
            if flag(r, "tainted") {
                object.status = ObjectStatus::Tainted;
            }
            let config_module = addr.module.module();
            let pc = AbsProviderConfig::new(config_module, provider, None);
            let pc = if pc.module.is_root() {
                pc
            } else {
                AbsProviderConfig::new(Module::root(), pc.provider, None)
            };
            match DeposedKey::parse(str_of(r, "deposed_key")) {
                Some(dk) => state.set_deposed(&addr, dk, pc, Default::default(), Some(object)),
                None => state.set_current(&addr, pc, Default::default(), Some(object)),
            }
        }
        for c in get(m, "child_modules").as_array().into_iter().flatten() {
            modules.push(c);
        }
    }
    state
}
