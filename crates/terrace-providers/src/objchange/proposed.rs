//! The proposed new state (OpenTofu's `objchange.ProposedNew`): the
//! configuration with the prior state's values kept where the provider
//! computes them and the configuration says nothing. Nested blocks are
//! correlated by index (lists), key (maps) or by matching the
//! configuration-derived parts of elements (sets).

use super::walk::{
    attr, elements, has_index, index, length_int, list_of, map_of, set_of, unrefined_equal,
    value_map, walk, Nested, Walk,
};
use crate::schema::{
    Attribute, AttributeType, Block, NestedAttributes, NestedBlock, NestingMode, ObjectNesting,
};
use std::collections::BTreeMap;
use terrace_value::{Type, Value};

/// OpenTofu's `Block.EmptyValue`: the value an empty configuration block
/// decodes to (attributes null, single blocks null, groups empty objects,
/// collections of blocks empty).
pub fn empty_value(schema: &Block) -> Value {
    let mut values: BTreeMap<String, Value> = schema
        .attributes
        .iter()
        .map(|(name, a)| (name.clone(), Value::null(a.implied_type())))
        .collect();
    for (name, nested) in &schema.block_types {
        // An attribute wins over a block type of the same name, as in the
        // implied type.
        if !values.contains_key(name) {
            values.insert(name.clone(), nested_block_empty_value(nested));
        }
    }
    Value::object(values)
}

pub(crate) fn nested_block_empty_value(nested: &NestedBlock) -> Value {
    let ty = nested.block.implied_type();
    match nested.nesting {
        NestingMode::Single => Value::null(ty),
        NestingMode::Group => empty_value(&nested.block),
        NestingMode::List if ty.has_dynamic_types() => Value::empty_tuple(),
        NestingMode::List => Value::list(ty, Vec::new()),
        NestingMode::Map if ty.has_dynamic_types() => Value::empty_object(),
        NestingMode::Map => Value::map(ty, BTreeMap::new()),
        NestingMode::Set => Value::set(ty, Vec::new()),
    }
}

/// OpenTofu's `ProposedNew`: `config` with the prior values of computed
/// attributes it leaves null. Both values have the schema's implied type;
/// `prior` is wholly known (or null for a create), `config` may contain
/// unknowns.
pub fn proposed_new(schema: &Block, prior: &Value, config: &Value) -> Value {
    if config.is_null() && prior.is_null() {
        return prior.clone();
    }
    if prior.is_null() {
        // A synthetic prior of all nulls gives the top level one non-null
        // object to read from.
        return proposed_new_object(schema, &empty_value(schema), config);
    }
    proposed_new_object(schema, prior, config)
}

/// OpenTofu's `PlannedUnknownObject` (data sources and deferred ephemeral
/// resources): computed attributes the configuration leaves null become
/// unknown.
pub fn planned_unknown_object(schema: &Block, config: &Value) -> Value {
    proposed_new_object(schema, &Value::unknown(schema.implied_type()), config)
}

fn proposed_new_object(schema: &Block, prior: &Value, config: &Value) -> Value {
    if config.is_null() || !config.is_known() {
        return prior.clone();
    }
    if !prior.ty().is_object() || !config.ty().is_object() {
        return config.clone();
    }
    let mut values = proposed_new_attributes(&schema.attributes, prior, config);
    for (name, nested) in &schema.block_types {
        if schema.attributes.contains_key(name) {
            continue;
        }
        let prior_v = attr(prior, name, &Type::Dynamic);
        let config_v = attr(config, name, &Type::Dynamic);
        values.insert(
            name.clone(),
            proposed_new_nested_block(nested, &prior_v, &config_v),
        );
    }
    Value::object(values)
}

fn proposed_new_block_or_object(schema: Nested<'_>, prior: &Value, config: &Value) -> Value {
    match schema {
        Nested::Block(block) => proposed_new(block, prior, config),
        Nested::Object(object) => proposed_new_object_attributes(object, prior, config),
    }
}

fn proposed_new_nested_block(schema: &NestedBlock, prior: &Value, config: &Value) -> Value {
    if !config.is_known() {
        return config.clone();
    }
    let block = Nested::Block(&schema.block);
    match schema.nesting {
        NestingMode::Single if config.is_null() => config.clone(),
        NestingMode::Single | NestingMode::Group => proposed_new(&schema.block, prior, config),
        NestingMode::List => proposed_new_nesting_list(block, prior, config),
        NestingMode::Map => proposed_new_nesting_map(block, prior, config),
        NestingMode::Set => proposed_new_nesting_set(block, prior, config),
    }
}

fn proposed_new_nested_type(schema: &NestedAttributes, prior: &Value, config: &Value) -> Value {
    if !config.is_known() {
        return config.clone();
    }
    let object = Nested::Object(schema);
    match schema.nesting {
        ObjectNesting::Single if config.is_null() => config.clone(),
        ObjectNesting::Single => proposed_new_object_attributes(schema, prior, config),
        ObjectNesting::List => proposed_new_nesting_list(object, prior, config),
        ObjectNesting::Map => proposed_new_nesting_map(object, prior, config),
        ObjectNesting::Set => proposed_new_nesting_set(object, prior, config),
    }
}

fn proposed_new_nesting_list(schema: Nested<'_>, prior: &Value, config: &Value) -> Value {
    if length_int(config) == 0 {
        return config.clone();
    }
    let mut items = Vec::new();
    for (idx, config_ev) in elements(config) {
        if prior.is_known() && (prior.is_null() || !has_index(prior, &idx)) {
            items.push(config_ev);
            continue;
        }
        let prior_ev = index(prior, &idx);
        items.push(proposed_new_block_or_object(schema, &prior_ev, &config_ev));
    }
    if config.ty().is_tuple() {
        return Value::tuple(items);
    }
    list_of(items).unwrap_or_else(|| config.clone())
}

fn proposed_new_nesting_map(schema: Nested<'_>, prior: &Value, config: &Value) -> Value {
    if config.is_null() || !config.is_known() || length_int(config) == 0 {
        return config.clone();
    }
    let prior_map = if !prior.is_null() && prior.is_known() {
        value_map(prior)
    } else {
        BTreeMap::new()
    };
    let mut items = BTreeMap::new();
    for (name, config_ev) in value_map(config) {
        let new = match prior_map.get(&name) {
            None => config_ev,
            Some(prior_ev) => proposed_new_block_or_object(schema, prior_ev, &config_ev),
        };
        items.insert(name, new);
    }
    if config.ty().is_object() {
        return Value::object(items);
    }
    map_of(items).unwrap_or_else(|| config.clone())
}

fn proposed_new_nesting_set(schema: Nested<'_>, prior: &Value, config: &Value) -> Value {
    let Some(ety) = config
        .ty()
        .element_type()
        .filter(|_| config.ty().is_set())
        .cloned()
    else {
        return config.clone();
    };
    if !config.is_known() || config.is_null() || length_int(config) == 0 {
        return config.clone();
    }
    let prior_values: Vec<Value> = if prior.is_known() && !prior.is_null() {
        prior.as_elements().unwrap_or_default().to_vec()
    } else {
        Vec::new()
    };
    let mut used = vec![false; prior_values.len()];
    let mut items = Vec::new();
    for config_ev in config.as_elements().unwrap_or_default() {
        let mut prior_ev = None;
        for (i, candidate) in prior_values.iter().enumerate() {
            if used[i] {
                continue;
            }
            if valid_prior_from_config(schema, candidate, config_ev) {
                prior_ev = Some(candidate.clone());
                used[i] = true;
                break;
            }
        }
        let prior_ev = prior_ev.unwrap_or_else(|| Value::null(ety.clone()));
        items.push(proposed_new_block_or_object(schema, &prior_ev, config_ev));
    }
    set_of(items).unwrap_or_else(|| config.clone())
}

fn proposed_new_object_attributes(
    schema: &NestedAttributes,
    prior: &Value,
    config: &Value,
) -> Value {
    if config.is_null() {
        return config.clone();
    }
    Value::object(proposed_new_attributes(&schema.attributes, prior, config))
}

fn proposed_new_attributes(
    attributes: &BTreeMap<String, Attribute>,
    prior: &Value,
    config: &Value,
) -> BTreeMap<String, Value> {
    let mut values = BTreeMap::new();
    for (name, attribute) in attributes {
        let implied = attribute.implied_type();
        let prior_v = attr(prior, name, &implied);
        let config_v = attr(config, name, &implied);
        let new = if attribute.computed && config_v.is_null() {
            // Optional+computed attributes are computed only when the
            // configuration leaves them out; but a prior value holding
            // non-computed parts must have come from configuration that
            // has now been removed, so the null from config wins.
            if optional_value_not_computable(attribute, &prior_v) {
                config_v
            } else {
                prior_v
            }
        } else if let AttributeType::Nested(nested) = &attribute.ty {
            proposed_new_nested_type(nested, &prior_v, &config_v)
        } else {
            config_v
        };
        values.insert(name.clone(), new);
    }
    values
}

/// OpenTofu's `optionalValueNotComputable`: whether an optional nested
/// attribute's prior value sets any non-computed nested attribute.
fn optional_value_not_computable(attribute: &Attribute, value: &Value) -> bool {
    if !attribute.optional {
        return false;
    }
    let AttributeType::Nested(nested) = &attribute.ty else {
        return false;
    };
    let mut found = false;
    walk(value, &mut |path, v| {
        if v.is_null() {
            return Walk::Descend;
        }
        match super::walk::object_attribute_by_path(nested, path) {
            None => Walk::Descend,
            Some(a) if !a.computed => {
                found = true;
                Walk::Skip
            }
            Some(_) => Walk::Descend,
        }
    });
    found
}

/// OpenTofu's `validPriorFromConfig`: whether a prior set element could
/// have come from the configuration element, differing only in computed
/// attributes the configuration leaves null.
pub(crate) fn valid_prior_from_config(schema: Nested<'_>, prior: &Value, config: &Value) -> bool {
    if unrefined_equal(config, prior) {
        return true;
    }
    let mut valid = true;
    walk(prior, &mut |path, prior_v| {
        let Some(config_v) = super::walk::apply_path(config, path) else {
            valid = false;
            return Walk::Stop;
        };
        if unrefined_equal(&config_v, prior_v) {
            return Walk::Skip;
        }
        // Sets cannot be correlated any deeper.
        if config_v.ty().is_set() {
            valid = false;
            return Walk::Stop;
        }
        let Some(attribute) = schema.attribute_by_path(path) else {
            return Walk::Descend;
        };
        if matches!(attribute.ty, AttributeType::Nested(_)) {
            return Walk::Descend;
        }
        if !attribute.computed || !config_v.is_null() {
            valid = false;
            return Walk::Stop;
        }
        Walk::Skip
    });
    valid
}
