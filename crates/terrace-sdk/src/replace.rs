//! Conditional replacement rules for attributes that are neither plainly
//! force-new nor updatable.
//!
//! `map_values_not_null_changed` is the rule hashicorp/random's `keepers`
//! and hashicorp/null's `triggers` follow (their
//! `RequiresReplaceIfValuesNotNull`): states written by the older Go SDK
//! dropped map keys whose value was null, and stored a map of only nulls
//! as null, so a change that only adds or removes such null values must
//! not replace the object. Those changes are updates in place instead.

use crate::values::same;
use terrace_value::Value;

/// Whether changing the map attribute from `prior` (the state) to
/// `config` (the configuration) replaces the object:
///
/// - no change: no;
/// - from null: only if some configured value is not null (so null → `{}`
///   or `{a = null}` is no replacement; an unknown value counts as not
///   null);
/// - otherwise: yes when a configured key has a value other than its
///   prior one (a key new to the map with a null value does not count), or
///   a prior key is gone from the configuration (removing the whole map
///   removes every key).
pub fn map_values_not_null_changed(prior: &Value, config: &Value) -> bool {
    if same(prior, config) {
        return false;
    }
    let empty = Default::default();
    let configured = config.as_attributes().unwrap_or(&empty);
    let Some(prior_entries) = prior.as_attributes() else {
        return configured.values().any(|value| !value.is_null());
    };
    let value_changed = configured
        .iter()
        .any(|(key, value)| match prior_entries.get(key) {
            None => !value.is_null(),
            Some(old) => !same(old, value),
        });
    value_changed
        || prior_entries
            .keys()
            .any(|key| !configured.contains_key(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_value::Type;

    /// A map of strings from `k=v` pairs, `k=~` for a null value and `k=?`
    /// for an unknown one; `null` and `unknown` for the whole map.
    fn map(text: &str) -> Value {
        let ty = Type::map(Type::String);
        match text {
            "null" => return Value::null(ty),
            "unknown" => return Value::unknown(ty),
            _ => {}
        }
        let entries = text
            .split(',')
            .filter(|pair| !pair.is_empty())
            .map(|pair| {
                let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                let value = match value {
                    "~" => Value::null(Type::String),
                    "?" => Value::unknown(Type::String),
                    v => Value::string(v),
                };
                (key.to_string(), value)
            })
            .collect();
        Value::map(Type::String, entries)
    }

    #[test]
    fn replacement_follows_hashicorp_rule() {
        let cases = [
            // (prior, config, replaces)
            ("null", "null", false),
            ("", "", false),
            ("a=1", "a=1", false),
            // From null: only non-null values count.
            ("null", "", false),
            ("null", "a=~", false),
            ("null", "a=~,b=~", false),
            ("null", "a=1", true),
            ("null", "a=~,b=1", true),
            ("null", "a=?", true),
            ("null", "unknown", false),
            // To null or empty: every prior key is removed.
            ("a=1", "null", true),
            ("a=1", "", true),
            ("", "null", false),
            // Keys added with null values do not count; others do.
            ("a=1", "a=1,b=~", false),
            ("a=1", "a=1,b=2", true),
            ("", "b=~", false),
            ("", "b=x", true),
            // Changed, unknown and removed values.
            ("a=1", "a=2", true),
            ("a=1", "a=?", true),
            ("a=1", "a=~", true),
            ("a=1,b=2", "a=1", true),
            ("a=1", "b=1", true),
            ("a=1", "unknown", true),
        ];
        for (prior, config, replaces) in cases {
            assert_eq!(
                map_values_not_null_changed(&map(prior), &map(config)),
                replaces,
                "{prior} -> {config}"
            );
        }
    }
}
