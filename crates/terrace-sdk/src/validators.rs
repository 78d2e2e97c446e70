//! Checks on configuration values. A validator sees only known, non-null
//! values (unknown ones are checked when they become known, at apply), and
//! says what is wrong in a sentence; the SDK adds the attribute's path so
//! that Terraform points at the argument.

use terrace_value::{Number, Value};

pub trait Validator: Send + Sync {
    /// `Err` explains, in a sentence about the value, what is wrong.
    fn validate(&self, value: &Value) -> Result<(), String>;
}

/// Any function of a value is a validator.
impl<F> Validator for F
where
    F: Fn(&Value) -> Result<(), String> + Send + Sync,
{
    fn validate(&self, value: &Value) -> Result<(), String> {
        self(value)
    }
}

fn string_of(value: &Value) -> Result<&str, String> {
    value
        .as_str()
        .ok_or_else(|| "a string is required".to_string())
}

fn number_of(value: &Value) -> Result<&Number, String> {
    value
        .as_number()
        .ok_or_else(|| "a number is required".to_string())
}

/// Strings of at least `min` characters (Unicode scalar values).
pub fn string_length_at_least(min: usize) -> impl Validator {
    move |value: &Value| {
        let length = string_of(value)?.chars().count();
        if length < min {
            return Err(format!(
                "string length must be at least {min}, got: {length}"
            ));
        }
        Ok(())
    }
}

/// Strings of `min` to `max` characters.
pub fn string_length_between(min: usize, max: usize) -> impl Validator {
    move |value: &Value| {
        let length = string_of(value)?.chars().count();
        if length < min || length > max {
            return Err(format!(
                "string length must be between {min} and {max}, got: {length}"
            ));
        }
        Ok(())
    }
}

/// One of the given strings.
pub fn one_of(allowed: &[&str]) -> impl Validator {
    let allowed: Vec<String> = allowed.iter().map(|s| s.to_string()).collect();
    move |value: &Value| {
        let text = string_of(value)?;
        if allowed.iter().any(|a| a == text) {
            return Ok(());
        }
        let listed: Vec<String> = allowed
            .iter()
            .map(|a| terrace_value::gostr::quote(a))
            .collect();
        Err(format!(
            "value must be one of: [{}], got: {}",
            listed.join(" "),
            terrace_value::gostr::quote(text)
        ))
    }
}

/// Strings matching a regular expression; `description` says in words
/// what the pattern accepts.
pub fn matches_regex(pattern: &str, description: &str) -> Result<impl Validator, String> {
    let regex = regex::Regex::new(pattern).map_err(|e| e.to_string())?;
    let description = description.to_string();
    Ok(move |value: &Value| {
        let text = string_of(value)?;
        if regex.is_match(text) {
            Ok(())
        } else {
            Err(format!(
                "{description}, got: {}",
                terrace_value::gostr::quote(text)
            ))
        }
    })
}

/// Numbers no smaller than `min`.
pub fn int_at_least(min: i64) -> impl Validator {
    move |value: &Value| {
        let number = number_of(value)?;
        if number.cty_equal(&Number::from_i64(min)) || !below(number, min) {
            return Ok(());
        }
        Err(format!(
            "value must be at least {min}, got: {}",
            number.text('f', -1)
        ))
    }
}

/// Numbers from `min` to `max`, inclusive.
pub fn int_between(min: i64, max: i64) -> impl Validator {
    move |value: &Value| {
        let number = number_of(value)?;
        if below(number, min) || above(number, max) {
            return Err(format!(
                "value must be between {min} and {max}, got: {}",
                number.text('f', -1)
            ));
        }
        Ok(())
    }
}

fn below(number: &Number, bound: i64) -> bool {
    Value::number(number.clone())
        .less_than(&Value::int(bound))
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}

fn above(number: &Number, bound: i64) -> bool {
    Value::number(number.clone())
        .greater_than(&Value::int(bound))
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validators_accept_and_explain() {
        let cases: Vec<(Box<dyn Validator>, Value, Option<&str>)> = vec![
            (
                Box::new(string_length_at_least(1)),
                Value::string("a"),
                None,
            ),
            (
                Box::new(string_length_at_least(1)),
                Value::string(""),
                Some("string length must be at least 1, got: 0"),
            ),
            (
                Box::new(string_length_between(1, 3)),
                Value::string("abcd"),
                Some("string length must be between 1 and 3, got: 4"),
            ),
            (Box::new(one_of(&["a", "b"])), Value::string("b"), None),
            (
                Box::new(one_of(&["a", "b"])),
                Value::string("c"),
                Some("value must be one of: [\"a\" \"b\"], got: \"c\""),
            ),
            (Box::new(int_at_least(1)), Value::int(1), None),
            (
                Box::new(int_at_least(1)),
                Value::int(0),
                Some("value must be at least 1, got: 0"),
            ),
            (Box::new(int_between(0, 10)), Value::int(10), None),
            (
                Box::new(int_between(0, 10)),
                Value::int(11),
                Some("value must be between 0 and 10, got: 11"),
            ),
            (
                Box::new(int_between(0, 10)),
                Value::string("x"),
                Some("a number is required"),
            ),
            (
                Box::new(matches_regex("^[a-z]+$", "must be lower-case letters").unwrap()),
                Value::string("aB"),
                Some("must be lower-case letters, got: \"aB\""),
            ),
        ];
        for (validator, value, want) in cases {
            assert_eq!(
                validator.validate(&value).err().as_deref(),
                want,
                "{value:?}"
            );
        }
        assert!(matches_regex("(", "x").is_err());
    }
}
