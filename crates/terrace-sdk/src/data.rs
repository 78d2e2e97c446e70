//! `ResourceData`: what a provider callback reads and writes. It holds the
//! object being worked on (the plan during create and update, the state
//! during read and delete, the configuration of a data source or of the
//! provider), with the prior state and the configuration beside it, and
//! records what the callback decides: new attribute values, that the
//! object is gone, which attributes a failed update did finish.

use crate::error::{Error, Result};
use crate::values::attributes_of;
use std::collections::{BTreeMap, BTreeSet};
use terrace_providers::{Diagnostic, Diagnostics};
use terrace_value::convert::{convert, format_path};
use terrace_value::{Number, Type, Value};

#[derive(Clone, Debug)]
pub struct ResourceData {
    ty: Type,
    values: BTreeMap<String, Value>,
    prior: Option<BTreeMap<String, Value>>,
    config: Option<BTreeMap<String, Value>>,
    partial: Option<BTreeSet<String>>,
    gone: bool,
    private: Vec<u8>,
    warnings: Diagnostics,
}

impl ResourceData {
    /// Data over `current` (an object of type `ty`, or null), with the
    /// prior state and configuration when the operation has them.
    pub fn new(ty: Type, current: &Value, prior: Option<&Value>, config: Option<&Value>) -> Self {
        let keep = |value: &Value| (!value.is_null()).then(|| attributes_of(value, &ty));
        ResourceData {
            values: attributes_of(current, &ty),
            prior: prior.and_then(keep),
            config: config.map(|config| attributes_of(config, &ty)),
            ty,
            partial: None,
            gone: false,
            private: Vec::new(),
            warnings: Diagnostics::new(),
        }
    }

    /// The object type of the whole value.
    pub fn ty(&self) -> &Type {
        &self.ty
    }

    fn attribute_type(&self, name: &str) -> Result<&Type> {
        self.ty.attribute_type(name).ok_or_else(|| {
            Error::new(
                "Provider bug: unknown attribute",
                format!(
                    "The provider used an attribute named {} that its schema does not have.",
                    terrace_value::gostr::quote(name)
                ),
            )
        })
    }

    /// The current value of an attribute: possibly unknown while planning
    /// or creating, null when unset.
    pub fn get(&self, name: &str) -> Value {
        self.values.get(name).cloned().unwrap_or_else(|| {
            Value::null(
                self.ty
                    .attribute_type(name)
                    .cloned()
                    .unwrap_or(Type::Dynamic),
            )
        })
    }

    pub fn get_str(&self, name: &str) -> Option<&str> {
        self.values.get(name).and_then(Value::as_str)
    }

    pub fn get_string(&self, name: &str) -> Option<String> {
        self.get_str(name).map(str::to_string)
    }

    pub fn get_bool(&self, name: &str) -> Option<bool> {
        self.values.get(name).and_then(Value::as_bool)
    }

    pub fn get_number(&self, name: &str) -> Option<&Number> {
        self.values.get(name).and_then(Value::as_number)
    }

    pub fn get_i64(&self, name: &str) -> Option<i64> {
        self.get_number(name).and_then(Number::to_i64)
    }

    /// The known strings of a list or set of strings, in order.
    pub fn get_string_list(&self, name: &str) -> Vec<String> {
        self.values
            .get(name)
            .and_then(Value::as_elements)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|item| item.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The known entries of a map of strings.
    pub fn get_string_map(&self, name: &str) -> BTreeMap<String, String> {
        self.values
            .get(name)
            .and_then(Value::as_attributes)
            .map(|entries| {
                entries
                    .iter()
                    .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether the attribute is neither null nor unknown.
    pub fn is_set(&self, name: &str) -> bool {
        self.values
            .get(name)
            .is_some_and(|v| v.is_known() && !v.is_null())
    }

    /// The value as written in configuration (null where the operation has
    /// no configuration: read, delete, import).
    pub fn config(&self, name: &str) -> Value {
        self.config
            .as_ref()
            .and_then(|config| config.get(name).cloned())
            .unwrap_or_else(|| {
                Value::null(
                    self.ty
                        .attribute_type(name)
                        .cloned()
                        .unwrap_or(Type::Dynamic),
                )
            })
    }

    /// The value in the prior state; null when creating.
    pub fn prior(&self, name: &str) -> Value {
        self.prior
            .as_ref()
            .and_then(|prior| prior.get(name).cloned())
            .unwrap_or_else(|| {
                Value::null(
                    self.ty
                        .attribute_type(name)
                        .cloned()
                        .unwrap_or(Type::Dynamic),
                )
            })
    }

    /// Whether there is a prior object (update, read, delete).
    pub fn has_prior(&self) -> bool {
        self.prior.is_some()
    }

    /// Whether the attribute's value differs from the prior state's.
    pub fn has_change(&self, name: &str) -> bool {
        !crate::values::same(&self.prior(name), &self.get(name))
    }

    /// Sets an attribute, converting the value to its type.
    pub fn set(&mut self, name: &str, value: Value) -> Result<()> {
        let ty = self.attribute_type(name)?.clone();
        let converted = convert(&value, &ty).map_err(|e| {
            Error::new(
                "Provider bug: wrong type of value",
                format!(
                    "The provider set attribute {} to a value that does not fit its type {}: {}{}.",
                    terrace_value::gostr::quote(name),
                    ty.type_string(),
                    format_path(&e.path),
                    e.message
                ),
            )
        })?;
        self.values.insert(name.to_string(), converted);
        Ok(())
    }

    pub fn set_string(&mut self, name: &str, value: impl AsRef<str>) -> Result<()> {
        self.set(name, Value::string(value))
    }

    pub fn set_i64(&mut self, name: &str, value: i64) -> Result<()> {
        self.set(name, Value::int(value))
    }

    pub fn set_bool(&mut self, name: &str, value: bool) -> Result<()> {
        self.set(name, Value::bool(value))
    }

    pub fn set_null(&mut self, name: &str) -> Result<()> {
        let ty = self.attribute_type(name)?.clone();
        self.values.insert(name.to_string(), Value::null(ty));
        Ok(())
    }

    pub fn set_string_map(&mut self, name: &str, entries: &BTreeMap<String, String>) -> Result<()> {
        self.set(
            name,
            Value::map(
                Type::String,
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::string(v)))
                    .collect(),
            ),
        )
    }

    pub fn set_string_list(&mut self, name: &str, items: &[String]) -> Result<()> {
        self.set(
            name,
            Value::list(Type::String, items.iter().map(Value::string).collect()),
        )
    }

    /// The `id` attribute.
    pub fn id(&self) -> Option<&str> {
        self.get_str("id")
    }

    pub fn set_id(&mut self, id: impl AsRef<str>) -> Result<()> {
        self.set_string("id", id)
    }

    /// Says that the object no longer exists: a read that finds it gone
    /// removes it from state, so that Terraform plans to create it again.
    pub fn remove_from_state(&mut self) {
        self.gone = true;
    }

    pub fn is_removed(&self) -> bool {
        self.gone
    }

    /// Partial state: from now on, should the update fail, only the
    /// attributes named with `set_partial` keep their new values; the
    /// others keep their prior ones, so that the next apply retries them.
    pub fn partial(&mut self, on: bool) {
        self.partial = on.then(|| self.partial.take().unwrap_or_default());
    }

    /// Records that the change to `name` has been carried out.
    pub fn set_partial(&mut self, name: &str) {
        self.partial
            .get_or_insert_with(BTreeSet::new)
            .insert(name.to_string());
    }

    pub(crate) fn partial_keys(&self) -> Option<&BTreeSet<String>> {
        self.partial.as_ref()
    }

    /// Opaque bytes stored with the object and handed back later.
    pub fn private(&self) -> &[u8] {
        &self.private
    }

    pub fn set_private(&mut self, private: Vec<u8>) {
        self.private = private;
    }

    /// A warning shown to the user whatever the outcome.
    pub fn warn(&mut self, summary: impl Into<String>, detail: impl Into<String>) {
        self.warnings.push(Diagnostic::warning(summary, detail));
    }

    pub(crate) fn take_warnings(&mut self) -> Diagnostics {
        std::mem::take(&mut self.warnings)
    }

    /// The whole object as it stands.
    pub fn to_value(&self) -> Value {
        let mut attributes = self.values.clone();
        // Keep the object's type exact even if an attribute was never set.
        if let Some(object) = self.ty.object_type() {
            for (name, ty) in &object.attributes {
                attributes
                    .entry(name.clone())
                    .or_insert_with(|| Value::null(ty.clone()));
            }
            attributes.retain(|name, _| object.attributes.contains_key(name));
        }
        Value::object(attributes)
    }

    /// The prior object with the attributes named in `keys` taken from the
    /// current values (unknown ones keep their prior values).
    pub(crate) fn prior_with(&self, keys: &BTreeSet<String>) -> Value {
        let mut attributes = self
            .prior
            .clone()
            .unwrap_or_else(|| attributes_of(&Value::null(self.ty.clone()), &self.ty));
        for key in keys {
            if let Some(value) = self.values.get(key) {
                if value.is_wholly_known() {
                    attributes.insert(key.clone(), value.clone());
                }
            }
        }
        Value::object(attributes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty() -> Type {
        Type::object([
            ("id".to_string(), Type::String),
            ("name".to_string(), Type::String),
            ("size".to_string(), Type::Number),
            ("tags".to_string(), Type::map(Type::String)),
        ])
    }

    fn object(id: &str, name: &str, size: i64) -> Value {
        Value::object(
            [
                ("id".to_string(), Value::string(id)),
                ("name".to_string(), Value::string(name)),
                ("size".to_string(), Value::int(size)),
                ("tags".to_string(), Value::null(Type::map(Type::String))),
            ]
            .into_iter()
            .collect(),
        )
    }

    #[test]
    fn reads_and_changes() {
        let prior = object("1", "a", 1);
        let planned = object("1", "b", 1);
        let data = ResourceData::new(ty(), &planned, Some(&prior), Some(&planned));
        assert_eq!(data.id(), Some("1"));
        assert_eq!(data.get_str("name"), Some("b"));
        assert_eq!(data.get_i64("size"), Some(1));
        assert!(data.has_change("name"));
        assert!(!data.has_change("size"));
        assert_eq!(data.prior("name").as_str(), Some("a"));
        assert!(data.get("tags").is_null());
        assert!(!data.is_set("tags"));
    }

    #[test]
    fn set_converts_and_checks() {
        let mut data = ResourceData::new(ty(), &Value::null(ty()), None, None);
        data.set("size", Value::string("12")).unwrap();
        assert_eq!(data.get_i64("size"), Some(12));
        let error = data.set("size", Value::string("x")).unwrap_err();
        assert!(
            error.to_string().contains("a number is required"),
            "{error}"
        );
        assert!(data.set("nope", Value::int(1)).is_err());
        data.set_string_map("tags", &[("k".to_string(), "v".to_string())].into())
            .unwrap();
        assert_eq!(data.get_string_map("tags")["k"], "v");
        assert_eq!(data.to_value().ty(), &ty());
    }

    #[test]
    fn partial_state_keeps_only_finished_changes() {
        let prior = object("1", "a", 1);
        let planned = object("1", "b", 2);
        let mut data = ResourceData::new(ty(), &planned, Some(&prior), Some(&planned));
        data.partial(true);
        data.set_partial("name");
        let keys = data.partial_keys().cloned().unwrap();
        let result = data.prior_with(&keys);
        assert!(result.raw_equals(&object("1", "b", 1)));
        data.partial(false);
        assert!(data.partial_keys().is_none());
    }
}
