//! Planning as the SDK does it for every resource: starting from
//! Terraform's proposed new state, fill in defaults, mark computed values
//! "known after apply" where they will be (new objects, replacements),
//! find the changes that force a replacement, and check the result
//! against the rule Terraform enforces: a value the provider does not
//! compute is planned exactly as configured.

use crate::schema::{BlockSpec, NestedBlockSpec};
use crate::values::{attributes_of, get_attr, same};
use terrace_providers::{AttributePath, NestingMode};
use terrace_value::convert::convert;
use terrace_value::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fill {
    /// A new object: every computed value is unknown unless defaulted.
    Create,
    /// An in-place update: computed values keep their prior values (the
    /// proposed state carries them).
    Update,
}

/// The planned object: `planned` (the proposed new state) with defaults
/// for attributes the configuration leaves null, unknowns for computed
/// attributes of a new object, and nulls for write-only attributes.
pub(crate) fn fill(spec: &BlockSpec, config: &Value, planned: &Value, mode: Fill) -> Value {
    if planned.is_null() || !planned.is_known() {
        return planned.clone();
    }
    let mut attributes = attributes_of(planned, planned.ty());
    for (name, attr) in &spec.attributes {
        let configured = get_attr(config, name);
        let ty = attr.ty.without_optional_attributes();
        if attr.write_only {
            attributes.insert(name.clone(), Value::null(ty));
            continue;
        }
        if !configured.is_null() {
            continue;
        }
        if let Some(default) = &attr.default {
            if let Ok(default) = convert(default, &ty) {
                attributes.insert(name.clone(), default);
                continue;
            }
        }
        if attr.computed && mode == Fill::Create {
            attributes.insert(name.clone(), Value::unknown(ty));
        }
    }
    for (name, nested) in &spec.blocks {
        if let Some(value) = attributes.get(name) {
            let filled = fill_nested(nested, &get_attr(config, name), value, mode);
            attributes.insert(name.clone(), filled);
        }
    }
    Value::object(attributes)
}

fn fill_nested(nested: &NestedBlockSpec, config: &Value, planned: &Value, mode: Fill) -> Value {
    if planned.is_null() || !planned.is_known() {
        return planned.clone();
    }
    let ty = planned.ty();
    match nested.nesting {
        NestingMode::Single | NestingMode::Group => fill(&nested.block, config, planned, mode),
        NestingMode::List | NestingMode::Set => {
            let (Some(element_ty), Some(items)) = (ty.element_type(), planned.as_elements()) else {
                return planned.clone();
            };
            let configured = config.as_elements().unwrap_or(&[]);
            let filled = items
                .iter()
                .enumerate()
                .map(|(index, item)| {
                    // Set elements have no identity to pair them with
                    // their configuration by; the planned element stands
                    // in, its computed attributes null where not set.
                    let config = match nested.nesting {
                        NestingMode::List => configured.get(index).unwrap_or(item),
                        _ => item,
                    };
                    fill(&nested.block, config, item, mode)
                })
                .collect();
            if ty.is_set() {
                Value::set(element_ty.clone(), filled)
            } else {
                Value::list(element_ty.clone(), filled)
            }
        }
        NestingMode::Map => {
            let (Some(element_ty), Some(entries)) = (ty.element_type(), planned.as_attributes())
            else {
                return planned.clone();
            };
            let filled = entries
                .iter()
                .map(|(key, item)| {
                    let config = config
                        .as_attributes()
                        .and_then(|c| c.get(key))
                        .unwrap_or(item);
                    (key.clone(), fill(&nested.block, config, item, mode))
                })
                .collect();
            Value::map(element_ty.clone(), filled)
        }
    }
}

/// Marks every computed attribute that the configuration leaves null as
/// unknown: the values a replacement object will get.
pub(crate) fn unknown_computed(spec: &BlockSpec, config: &Value, planned: &Value) -> Value {
    fill(spec, config, planned, Fill::Create)
}

/// The attributes whose change forces a replacement. Nested blocks are
/// compared whole: a change anywhere inside a force-new block, or a block
/// holding a force-new attribute, replaces the object.
pub(crate) fn replace_paths(
    spec: &BlockSpec,
    prior: &Value,
    planned: &Value,
) -> Vec<AttributePath> {
    let mut paths = Vec::new();
    for (name, attr) in &spec.attributes {
        if attr.force_new && !same(&get_attr(prior, name), &get_attr(planned, name)) {
            paths.push(AttributePath::root().attribute(name));
        }
    }
    for (name, nested) in &spec.blocks {
        if (nested.force_new || nested.block.contains_force_new())
            && !same(&get_attr(prior, name), &get_attr(planned, name))
        {
            paths.push(AttributePath::root().attribute(name));
        }
    }
    paths
}

/// Where a plan breaks Terraform's rule that attributes the provider does
/// not compute are planned as configured (and write-only ones as null).
pub(crate) fn plan_violations(
    spec: &BlockSpec,
    config: &Value,
    planned: &Value,
    path: &AttributePath,
    found: &mut Vec<AttributePath>,
) {
    if config.is_null() || !config.is_known() || planned.is_null() || !planned.is_known() {
        if !(same(config, planned) || config.is_null() && planned.is_null()) {
            found.push(path.clone());
        }
        return;
    }
    for (name, attr) in &spec.attributes {
        let planned_value = get_attr(planned, name);
        let step = path.clone().attribute(name);
        if attr.write_only {
            if !planned_value.is_null() {
                found.push(step);
            }
            continue;
        }
        if attr.computed {
            continue;
        }
        if !same(&get_attr(config, name), &planned_value) {
            found.push(step);
        }
    }
    for (name, nested) in &spec.blocks {
        let config = get_attr(config, name);
        let planned = get_attr(planned, name);
        let step = path.clone().attribute(name);
        match nested.nesting {
            NestingMode::Single | NestingMode::Group => {
                plan_violations(&nested.block, &config, &planned, &step, found)
            }
            NestingMode::List => match (config.as_elements(), planned.as_elements()) {
                (Some(c), Some(p)) if c.len() == p.len() => {
                    for (index, (c, p)) in c.iter().zip(p).enumerate() {
                        let index = i64::try_from(index).unwrap_or(i64::MAX);
                        plan_violations(&nested.block, c, p, &step.clone().index(index), found);
                    }
                }
                _ => {
                    if !same(&config, &planned) {
                        found.push(step)
                    }
                }
            },
            NestingMode::Map => match (config.as_attributes(), planned.as_attributes()) {
                (Some(c), Some(p)) if c.len() == p.len() => {
                    for (key, c) in c {
                        match p.get(key) {
                            Some(p) => plan_violations(
                                &nested.block,
                                c,
                                p,
                                &step.clone().key(key.clone()),
                                found,
                            ),
                            None => found.push(step.clone()),
                        }
                    }
                }
                _ => {
                    if !same(&config, &planned) {
                        found.push(step)
                    }
                }
            },
            NestingMode::Set => {
                // Only sets of blocks without computed parts can be held
                // to their configuration element by element.
                if !block_has_computed(&nested.block)
                    && !config.ty().has_dynamic_types()
                    && !same(&config, &planned)
                {
                    found.push(step);
                }
            }
        }
    }
}

fn block_has_computed(block: &BlockSpec) -> bool {
    block
        .attributes
        .values()
        .any(|a| a.computed || a.default.is_some())
        || block.blocks.values().any(|n| block_has_computed(&n.block))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Attr;
    use terrace_value::Type;

    fn spec() -> BlockSpec {
        BlockSpec::new()
            .attr("id", Attr::string().computed())
            .attr("name", Attr::string().required().force_new())
            .attr(
                "size",
                Attr::number().optional().computed().default(Value::int(3)),
            )
            .attr("note", Attr::string().optional())
            .attr("result", Attr::string().computed())
            .block(
                "rule",
                NestedBlockSpec::list(
                    BlockSpec::new()
                        .attr("port", Attr::number().required())
                        .attr("arn", Attr::string().computed()),
                ),
            )
    }

    fn object(entries: Vec<(&str, Value)>) -> Value {
        let ty = spec().implied_type();
        let mut attributes = attributes_of(&Value::null(ty.clone()), &ty);
        for (name, value) in entries {
            attributes.insert(name.to_string(), value);
        }
        Value::object(attributes)
    }

    fn rule_type() -> Type {
        Type::object([
            ("arn".to_string(), Type::String),
            ("port".to_string(), Type::Number),
        ])
    }

    fn rule(port: i64, arn: Value) -> Value {
        Value::object(
            [
                ("port".to_string(), Value::int(port)),
                ("arn".to_string(), arn),
            ]
            .into_iter()
            .collect(),
        )
    }

    #[test]
    fn create_plans_defaults_and_unknowns() {
        let config = object(vec![
            ("name", Value::string("a")),
            (
                "rule",
                Value::list(rule_type(), vec![rule(80, Value::null(Type::String))]),
            ),
        ]);
        let planned = fill(&spec(), &config, &config, Fill::Create);
        let attributes = planned.as_attributes().unwrap();
        assert!(!attributes["id"].is_known());
        assert!(!attributes["result"].is_known());
        assert!(attributes["size"].raw_equals(&Value::int(3)));
        assert!(attributes["note"].is_null());
        let rule = &attributes["rule"].as_elements().unwrap()[0];
        assert!(!get_attr(rule, "arn").is_known());
        let mut found = Vec::new();
        plan_violations(
            &spec(),
            &config,
            &planned,
            &AttributePath::root(),
            &mut found,
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn updates_keep_computed_values_and_find_replacements() {
        let prior = object(vec![
            ("id", Value::string("1")),
            ("name", Value::string("a")),
            ("size", Value::int(3)),
            ("result", Value::string("r")),
        ]);
        let proposed = object(vec![
            ("id", Value::string("1")),
            ("name", Value::string("b")),
            ("size", Value::int(3)),
            ("result", Value::string("r")),
        ]);
        let config = object(vec![("name", Value::string("b"))]);
        let planned = fill(&spec(), &config, &proposed, Fill::Update);
        assert!(get_attr(&planned, "result").raw_equals(&Value::string("r")));
        let paths = replace_paths(&spec(), &prior, &planned);
        assert_eq!(paths, vec![AttributePath::root().attribute("name")]);
        let replaced = unknown_computed(&spec(), &config, &planned);
        assert!(!get_attr(&replaced, "result").is_known());
        let unknown_name = object(vec![("name", Value::unknown(Type::String))]);
        assert_eq!(replace_paths(&spec(), &prior, &unknown_name).len(), 1);
    }

    #[test]
    fn violations_point_at_attributes() {
        let config = object(vec![
            ("name", Value::string("a")),
            ("note", Value::string("n")),
        ]);
        let planned = object(vec![
            ("name", Value::string("a")),
            ("note", Value::string("changed")),
            ("id", Value::string("computed is fine")),
        ]);
        let mut found = Vec::new();
        plan_violations(
            &spec(),
            &config,
            &planned,
            &AttributePath::root(),
            &mut found,
        );
        assert_eq!(found, vec![AttributePath::root().attribute("note")]);
    }
}
