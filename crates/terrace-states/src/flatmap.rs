//! Decoding the legacy "flatmap" attribute form (`attributes_flat`) that
//! states upgraded from format version 3 still carry: a flat map of dotted
//! keys (`tags.%`, `list.#`, `list.0`) read against the schema's type, as
//! Terraform's legacy shim reads it.

use std::collections::{BTreeMap, BTreeSet};

use terrace_value::convert;
use terrace_value::json::CodecError;
use terrace_value::{ObjectType, Type, Value};

/// What the legacy SDK wrote for a value not yet known.
const UNKNOWN: &str = "74D93920-ED26-11E3-AC10-0800200C9A66";

/// The flatmap `m` as a value of the object type `ty`.
pub fn decode(m: &BTreeMap<String, String>, ty: &Type) -> Result<Value, CodecError> {
    match ty.object_type() {
        Some(ot) => object(m, "", ot),
        None => Err(CodecError::new(format!(
            "cannot decode {} from flatmap",
            ty.friendly_name()
        ))),
    }
}

fn value(m: &BTreeMap<String, String>, key: &str, ty: &Type) -> Result<Value, CodecError> {
    if ty.is_primitive() {
        return primitive(m, key, ty);
    }
    let prefix = format!("{key}.");
    if let Some(ot) = ty.object_type() {
        return object(m, &prefix, ot);
    }
    if m.get(key).map(String::as_str) == Some(UNKNOWN) {
        return Ok(Value::unknown(ty.clone()));
    }
    if let Some(etys) = ty.tuple_elements() {
        return tuple(m, &prefix, ty, etys);
    }
    if ty.is_map() {
        return map(m, &prefix, ty);
    }
    if ty.is_list() {
        return list(m, &prefix, ty);
    }
    if ty.is_set() {
        return set(m, &prefix, ty);
    }
    Err(CodecError::new(format!(
        "cannot decode {} from flatmap",
        ty.friendly_name()
    )))
}

fn primitive(m: &BTreeMap<String, String>, key: &str, ty: &Type) -> Result<Value, CodecError> {
    match m.get(key) {
        None => Ok(Value::null(ty.clone())),
        Some(raw) if raw == UNKNOWN => Ok(Value::unknown(ty.clone())),
        Some(raw) => convert::convert(&Value::string(raw), ty).map_err(|e| {
            CodecError::new(format!("invalid value for {key:?} in state: {}", e.message))
        }),
    }
}

fn object(
    m: &BTreeMap<String, String>,
    prefix: &str,
    ot: &ObjectType,
) -> Result<Value, CodecError> {
    let mut vals = BTreeMap::new();
    for (name, aty) in &ot.attributes {
        vals.insert(name.clone(), value(m, &format!("{prefix}{name}"), aty)?);
    }
    Ok(Value::object(vals))
}

/// The `#` count of a sequence: `Ok(None)` when absent (null), the
/// unknown marker as `Err(None)`.
fn count(m: &BTreeMap<String, String>, prefix: &str) -> Result<Option<usize>, Option<CodecError>> {
    match m.get(&format!("{prefix}#")) {
        None => Ok(None),
        Some(s) if s == UNKNOWN => Err(None),
        Some(s) => s.parse::<usize>().map(Some).map_err(|_| {
            Some(CodecError::new(format!(
                "invalid count value for {prefix:?} in state: {s:?} is not a count"
            )))
        }),
    }
}

fn tuple(
    m: &BTreeMap<String, String>,
    prefix: &str,
    ty: &Type,
    etys: &[Type],
) -> Result<Value, CodecError> {
    let n = match count(m, prefix) {
        Ok(None) => return Ok(Value::null(ty.clone())),
        Ok(Some(n)) => n,
        Err(None) => return Ok(Value::unknown(ty.clone())),
        Err(Some(e)) => return Err(e),
    };
    if n != etys.len() {
        return Err(CodecError::new(format!(
            "wrong number of values for {prefix:?} in state: got {n}, but need {}",
            etys.len()
        )));
    }
    let vals = etys
        .iter()
        .enumerate()
        .map(|(i, ety)| value(m, &format!("{prefix}{i}"), ety))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Value::tuple(vals))
}

fn list(m: &BTreeMap<String, String>, prefix: &str, ty: &Type) -> Result<Value, CodecError> {
    let ety = ty.element_type().cloned().unwrap_or(Type::Dynamic);
    let n = match count(m, prefix) {
        Ok(None) => return Ok(Value::null(ty.clone())),
        Ok(Some(n)) => n,
        Err(None) => return Ok(Value::unknown(ty.clone())),
        Err(Some(e)) => return Err(e),
    };
    // A count larger than the entries present is corrupt input; never
    // allocate for it.
    let mut vals = Vec::new();
    for i in 0..n {
        let key = format!("{prefix}{i}");
        if i > m.len() {
            return Err(CodecError::new(format!(
                "invalid count value for {prefix:?} in state: more elements than entries"
            )));
        }
        vals.push(value(m, &key, &ety)?);
    }
    Ok(Value::list(ety, vals))
}

fn map(m: &BTreeMap<String, String>, prefix: &str, ty: &Type) -> Result<Value, CodecError> {
    let ety = ty.element_type().cloned().unwrap_or(Type::Dynamic);
    match m.get(&format!("{prefix}%")) {
        None => return Ok(Value::null(ty.clone())),
        Some(s) if s == UNKNOWN => return Ok(Value::unknown(ty.clone())),
        Some(_) => {}
    }
    let mut vals = BTreeMap::new();
    for full in m.keys().filter(|k| k.starts_with(prefix)) {
        let key = &full[prefix.len()..];
        if key == "%" {
            continue;
        }
        vals.insert(key.to_string(), value(m, full, &ety)?);
    }
    Ok(Value::map(ety, vals))
}

fn set(m: &BTreeMap<String, String>, prefix: &str, ty: &Type) -> Result<Value, CodecError> {
    let ety = ty.element_type().cloned().unwrap_or(Type::Dynamic);
    let n = match m.get(&format!("{prefix}#")) {
        None => return Ok(Value::null(ty.clone())),
        Some(s) if s == UNKNOWN => return Ok(Value::unknown(ty.clone())),
        Some(s) => s.clone(),
    };
    let mut seen = BTreeSet::new();
    let mut vals = Vec::new();
    for full in m.keys().filter(|k| k.starts_with(prefix)) {
        let sub = &full[prefix.len()..];
        if sub == "#" {
            continue;
        }
        let key = match sub.find('.') {
            Some(dot) => &full[..prefix.len() + dot],
            None => full.as_str(),
        };
        if !seen.insert(key.to_string()) {
            continue;
        }
        vals.push(value(m, key, &ety)?);
    }
    if vals.is_empty() && n == "1" {
        // An empty element leaves no entries behind, only its count.
        let empty = if ety.is_map() {
            Value::map(
                ety.element_type().cloned().unwrap_or(Type::Dynamic),
                BTreeMap::new(),
            )
        } else if ety.is_list() {
            Value::list(ety.element_type().cloned().unwrap_or(Type::Dynamic), vec![])
        } else if ety.is_set() {
            Value::set(ety.element_type().cloned().unwrap_or(Type::Dynamic), vec![])
        } else if let Some(ot) = ety.object_type() {
            Value::object(
                ot.attributes
                    .iter()
                    .map(|(k, t)| (k.clone(), Value::null(t.clone())))
                    .collect(),
            )
        } else {
            Value::null(ety.clone())
        };
        vals.push(empty);
    }
    Ok(Value::set(ety, vals))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fm(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn decodes_nested_structures() {
        let ty = Type::object([
            ("id".to_string(), Type::String),
            ("n".to_string(), Type::Number),
            ("tags".to_string(), Type::map(Type::String)),
            ("l".to_string(), Type::list(Type::String)),
            ("s".to_string(), Type::set(Type::String)),
            ("absent".to_string(), Type::list(Type::String)),
        ]);
        let m = fm(&[
            ("id", "x"),
            ("n", "12"),
            ("tags.%", "1"),
            ("tags.a.b", "v"),
            ("l.#", "2"),
            ("l.0", "p"),
            ("l.1", "q"),
            ("s.#", "2"),
            ("s.123", "y"),
            ("s.456", "z"),
        ]);
        let v = decode(&m, &ty).unwrap();
        let json = terrace_value::json::to_json(&v, &ty).unwrap();
        assert_eq!(
            json,
            r#"{"absent":null,"id":"x","l":["p","q"],"n":12,"s":["y","z"],"tags":{"a.b":"v"}}"#
        );
    }

    #[test]
    fn rejects_bad_counts_and_non_objects() {
        let ty = Type::object([("l".to_string(), Type::list(Type::String))]);
        assert!(decode(&fm(&[("l.#", "x")]), &ty).is_err());
        assert!(decode(&fm(&[("l.#", "99999999999")]), &ty).is_err());
        assert!(decode(&fm(&[]), &Type::String).is_err());
        let unknown = decode(&fm(&[("l.#", UNKNOWN)]), &ty).unwrap();
        let l = unknown.as_attributes().unwrap().get("l").unwrap().clone();
        assert!(!l.is_known());
    }
}
