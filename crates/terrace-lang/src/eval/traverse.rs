//! HCL's `Index` and `GetAttr` (the `hcl` package's ops.go): one step into
//! a value with HCL's rules for nulls, unknowns and marks and its exact
//! error messages. The subject of every diagnostic is the step itself
//! (`.name` or `[key]`); there is no context range.

use super::Evaluator;
use terrace_syntax::Span;
use terrace_value::convert::convert;
use terrace_value::gostr;
use terrace_value::{Type, Value};

const INVALID_INDEX: &str = "Invalid index";
const UNSUPPORTED_ATTR: &str = "Unsupported attribute";

impl<'a> Evaluator<'a> {
    /// `collection[key]`.
    pub(crate) fn index(&mut self, collection: &Value, key: &Value, span: Span) -> Value {
        match index_value(collection, key) {
            Ok(v) => v,
            Err((summary, detail)) => {
                self.push_error(summary, detail, span, None);
                Value::dynamic()
            }
        }
    }

    /// `value.name`.
    pub(crate) fn get_attr(&mut self, value: &Value, name: &str, span: Span) -> Value {
        match get_attr_value(value, name) {
            Ok(v) => v,
            Err((summary, detail)) => {
                self.push_error(summary, detail, span, None);
                Value::dynamic()
            }
        }
    }
}

type StepResult = Result<Value, (&'static str, String)>;

fn invalid(detail: impl Into<String>) -> StepResult {
    Err((INVALID_INDEX, detail.into()))
}

/// HCL's `hcl.Index`, without the source range.
pub(crate) fn index_value(collection: &Value, key: &Value) -> StepResult {
    if collection.is_null() {
        return Err((
            "Attempt to index null value",
            "This value is null, so it does not have any indices.".into(),
        ));
    }
    if key.is_null() {
        return invalid("Can't use a null value as an indexing key.");
    }
    let ty = collection.ty();
    if key.ty().is_dynamic() || ty.is_dynamic() {
        return Ok(Value::dynamic().mark(collection.marks()));
    }
    match ty {
        Type::List(_) | Type::Tuple(_) | Type::Map(_) => {
            let want = if ty.is_map() { Type::String } else { Type::Number };
            let key = match convert(key, &want) {
                Ok(k) => k,
                Err(e) => {
                    return invalid(format!("The given key does not identify an element in this collection value: {}.", e.message))
                }
            };
            let (coll, coll_marks) = collection.clone().unmark();
            let (key, key_marks) = key.unmark();
            let marks = coll_marks.union(key_marks);
            match has_index(&coll, &key) {
                None => {
                    return Ok(match ty {
                        Type::Tuple(_) => Value::dynamic().mark(collection.marks()),
                        _ => Value::unknown(ty.element_type().cloned().unwrap_or(Type::Dynamic)).mark(collection.marks()),
                    })
                }
                Some(false) => return Err((INVALID_INDEX, missing_index_detail(&coll, &key))),
                Some(true) => {}
            }
            Ok(element_at(&coll, &key).mark(marks))
        }
        Type::Object(obj) => {
            let was_number = key.ty() == &Type::Number;
            let key = match convert(key, &Type::String) {
                Ok(k) => k,
                Err(e) => {
                    return invalid(format!("The given key does not identify an element in this collection value: {}.", e.message))
                }
            };
            // HCL 2.23 gives up before checking the attribute name when the
            // object itself is unknown.
            if !collection.is_known() || !key.is_known() {
                return Ok(Value::dynamic().mark(collection.marks()));
            }
            let (key, _) = key.unmark();
            let name = key.as_str().unwrap_or_default();
            if !obj.attributes.contains_key(name) {
                let suggestion = if was_number {
                    " An object only supports looking up attributes by name, not by numeric index."
                } else {
                    ""
                };
                return invalid(format!("The given key does not identify an element in this collection value.{suggestion}"));
            }
            Ok(attribute_of(collection, name))
        }
        Type::Set(_) => invalid(
            "Elements of a set are identified only by their value and don't have any separate index or key to select with, so it's only possible to perform operations across all elements of the set.",
        ),
        _ => invalid("This value does not have any indices."),
    }
}

/// cty's `HasIndex` on unmarked operands whose key has the right type:
/// `None` when unknown.
fn has_index(coll: &Value, key: &Value) -> Option<bool> {
    if !key.is_known() {
        return None;
    }
    match coll.ty() {
        Type::Map(_) => {
            let attrs = coll.as_attributes()?;
            Some(attrs.contains_key(key.as_str()?))
        }
        Type::List(_) | Type::Tuple(_) => {
            let index = whole_index(key)?;
            let Some(index) = index else {
                return Some(false);
            };
            match coll.ty() {
                Type::Tuple(t) => Some(index < t.len()),
                _ => Some(index < coll.as_elements()?.len()),
            }
        }
        _ => Some(false),
    }
}

/// `Some(Some(i))` for a whole non-negative index, `Some(None)` for a known
/// number that cannot be one.
fn whole_index(key: &Value) -> Option<Option<usize>> {
    let n = key.as_number()?;
    Some(match n.to_i64() {
        Some(i) if i >= 0 && n.is_integer() => usize::try_from(i).ok(),
        _ => None,
    })
}

fn missing_index_detail(coll: &Value, key: &Value) -> String {
    const PREFIX: &str = "The given key does not identify an element in this collection value";
    if matches!(coll.ty(), Type::List(_) | Type::Tuple(_)) {
        if let Some(n) = key.as_number() {
            if !n.is_integer() {
                return format!("{PREFIX}: indexing a sequence requires a whole number, but the given index has a fractional part.");
            }
            if n.signum() < 0 {
                return format!("{PREFIX}: a negative number is not a valid index for a sequence.");
            }
            let len = match coll.ty() {
                Type::Tuple(t) => Some(t.len()),
                _ => coll.as_elements().map(<[Value]>::len),
            };
            // HCL only explains when `key - len < 1`, which for a missing
            // index means exactly `key == len`; larger keys get the plain
            // message.
            let at_end = n
                .to_i64()
                .zip(len.and_then(|l| i64::try_from(l).ok()))
                .is_some_and(|(k, l)| k <= l);
            if let (Some(len), true) = (len, at_end) {
                return if len == 0 {
                    format!("{PREFIX}: the collection has no elements.")
                } else {
                    format!("{PREFIX}: the given index is greater than or equal to the length of the collection.")
                };
            }
        }
    }
    format!("{PREFIX}.")
}

/// cty's `Index` on an unmarked list, tuple or map whose key is present.
fn element_at(coll: &Value, key: &Value) -> Value {
    let element_type = || match coll.ty() {
        Type::Tuple(t) => whole_index(key)
            .flatten()
            .and_then(|i| t.get(i).cloned())
            .unwrap_or(Type::Dynamic),
        other => other.element_type().cloned().unwrap_or(Type::Dynamic),
    };
    if !coll.is_known() {
        return Value::unknown(element_type());
    }
    match coll.ty() {
        Type::Map(_) => key
            .as_str()
            .and_then(|k| coll.as_attributes().and_then(|m| m.get(k)).cloned())
            .unwrap_or_else(|| Value::unknown(element_type())),
        _ => whole_index(key)
            .flatten()
            .and_then(|i| coll.as_elements().and_then(|e| e.get(i)).cloned())
            .unwrap_or_else(|| Value::unknown(element_type())),
    }
}

/// cty's `GetAttr` on an object known to have the attribute: marks of the
/// object carry over to the result.
fn attribute_of(obj: &Value, name: &str) -> Value {
    let marks = obj.marks();
    if !obj.is_known() {
        let ty = obj
            .ty()
            .attribute_type(name)
            .cloned()
            .unwrap_or(Type::Dynamic);
        return Value::unknown(ty).mark(marks);
    }
    match obj.as_attributes().and_then(|a| a.get(name)) {
        Some(v) => v.clone().mark(marks),
        None => Value::dynamic().mark(marks),
    }
}

/// HCL's `hcl.GetAttr`, without the source range.
pub(crate) fn get_attr_value(value: &Value, name: &str) -> StepResult {
    if value.is_null() {
        return Err((
            "Attempt to get attribute from null value",
            "This value is null, so it does not have any attributes.".into(),
        ));
    }
    let ty = value.ty();
    match ty {
        Type::Object(obj) => {
            if !obj.attributes.contains_key(name) {
                return Err((UNSUPPORTED_ATTR, format!("This object does not have an attribute named {}.", gostr::quote(name))));
            }
            Ok(attribute_of(value, name))
        }
        Type::Map(element) => {
            if !value.is_known() {
                return Ok(Value::unknown((**element).clone()).mark(value.marks()));
            }
            match value.as_attributes().and_then(|m| m.get(name)) {
                Some(v) => Ok(v.clone().mark(value.marks())),
                None => Err((
                    "Missing map element",
                    format!("This map does not have an element with the key {}.", gostr::quote(name)),
                )),
            }
        }
        Type::Dynamic => Ok(Value::dynamic().mark(value.marks())),
        Type::List(element) if element.is_object() => {
            if element.attribute_type(name).is_some() {
                Err((
                    UNSUPPORTED_ATTR,
                    format!(
                        "Can't access attributes on a list of objects. Did you mean to access attribute {} for a specific element of the list, or across all elements of the list?",
                        gostr::quote(name)
                    ),
                ))
            } else {
                Err((
                    UNSUPPORTED_ATTR,
                    "Can't access attributes on a list of objects. Did you mean to access an attribute for a specific element of the list, or across all elements of the list?".into(),
                ))
            }
        }
        Type::Set(element) if element.is_object() => Err((
            UNSUPPORTED_ATTR,
            "Can't access attributes on a set of objects. Did you mean to access an attribute across all elements of the set?".into(),
        )),
        t if t.is_primitive() => Err((
            UNSUPPORTED_ATTR,
            format!("Can't access attributes on a primitive-typed value ({}).", t.friendly_name()),
        )),
        _ => Err((UNSUPPORTED_ATTR, "This value does not have any attributes.".into())),
    }
}
