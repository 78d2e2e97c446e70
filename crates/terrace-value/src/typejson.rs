//! cty's JSON form of types (`Type.MarshalJSON`/`UnmarshalJSON`), used in
//! provider schemas, plan and state files and inside the JSON and msgpack
//! encodings of dynamically-typed values: `"string"`, `["list","number"]`,
//! `["object",{"a":"bool"},["a"]]` (the optional third element names the
//! optional attributes), `["tuple",["string"]]`, `"dynamic"`.
//!
//! Reading accepts what Go's decoder accepts, quirks included (`null` where
//! an attribute map or element list is expected means "empty"), and reports
//! malformed input with cty's messages.

use crate::gostr::quote;
use crate::json::{parse_first, write_json_string, CodecError, Json};
use crate::refine::nfc;
use crate::types::Type;
use std::collections::{BTreeMap, BTreeSet};

/// The JSON text of a type, byte-identical to cty's.
pub fn type_to_json(ty: &Type) -> String {
    let mut out = String::new();
    write_type(ty, &mut out);
    out
}

fn write_type(ty: &Type, out: &mut String) {
    match ty {
        Type::Bool => out.push_str("\"bool\""),
        Type::Number => out.push_str("\"number\""),
        Type::String => out.push_str("\"string\""),
        Type::Dynamic => out.push_str("\"dynamic\""),
        Type::List(e) | Type::Set(e) | Type::Map(e) => {
            out.push_str(match ty {
                Type::List(_) => "[\"list\",",
                Type::Set(_) => "[\"set\",",
                _ => "[\"map\",",
            });
            write_type(e, out);
            out.push(']');
        }
        Type::Object(ot) => {
            out.push_str("[\"object\",{");
            for (i, (name, aty)) in ot.attributes.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(out, name);
                out.push(':');
                write_type(aty, out);
            }
            out.push('}');
            if !ot.optional.is_empty() {
                out.push_str(",[");
                for (i, name) in ot.optional.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_json_string(out, name);
                }
                out.push(']');
            }
            out.push(']');
        }
        Type::Tuple(etys) => {
            out.push_str("[\"tuple\",[");
            for (i, ety) in etys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_type(ety, out);
            }
            out.push_str("]]");
        }
    }
}

/// Reads a type from its JSON text. Text after the type is an error unless
/// it starts with `]` or `}` (Go's decoder does not look further).
pub fn type_from_json(buf: &[u8]) -> Result<Type, CodecError> {
    let (json, mut reader) = parse_first(buf).map_err(CodecError::new)?;
    let ty = type_from_json_value(&json)?;
    if reader.more() {
        let message = match json {
            Json::String(_) => "extraneous data after type description",
            _ => "unexpected extra data in type description",
        };
        return Err(CodecError::new(message));
    }
    Ok(ty)
}

/// A type from already-parsed JSON.
pub(crate) fn type_from_json_value(json: &Json) -> Result<Type, CodecError> {
    parse_type(json).map_err(CodecError::new)
}

fn parse_type(json: &Json) -> Result<Type, String> {
    match json {
        Json::String(name) => match name.as_str() {
            "bool" => Ok(Type::Bool),
            "number" => Ok(Type::Number),
            "string" => Ok(Type::String),
            "dynamic" => Ok(Type::Dynamic),
            _ => Err(format!("invalid primitive type name {}", quote(name))),
        },
        Json::Array(items) => parse_complex(items),
        Json::Object(_) => Err("invalid complex type description".into()),
        _ => Err("invalid type description".into()),
    }
}

fn parse_complex(items: &[Json]) -> Result<Type, String> {
    let Some(Json::String(kind)) = items.first() else {
        return Err("invalid complex type kind name".into());
    };
    // Go reads the element description with `Decode`, which first wants the
    // comma that separates it from the kind.
    let second = || {
        items
            .get(1)
            .ok_or_else(|| "expected comma after array element".to_string())
    };
    let (ty, used) = match kind.as_str() {
        "list" => (Type::list(parse_type(second()?)?), 2),
        "map" => (Type::map(parse_type(second()?)?), 2),
        "set" => (Type::set(parse_type(second()?)?), 2),
        "object" => {
            let attributes = parse_attribute_types(second()?)?;
            match items.get(2) {
                Some(opt) => {
                    let optional = parse_optional(opt, &attributes)?;
                    (Type::object_with_optional(attributes, optional), 3)
                }
                None => (Type::object_with_optional(attributes, BTreeSet::new()), 2),
            }
        }
        "tuple" => {
            let elems = match second()? {
                Json::Array(xs) => xs.iter().map(parse_type).collect::<Result<Vec<_>, _>>()?,
                Json::Null => Vec::new(),
                other => return Err(cannot_unmarshal(other, "[]cty.Type")),
            };
            (Type::tuple(elems), 2)
        }
        _ => return Err("invalid complex type kind name".into()),
    };
    if items.len() > used {
        return Err("unexpected extra data in type description".into());
    }
    Ok(ty)
}

fn cannot_unmarshal(json: &Json, go_type: &str) -> String {
    format!(
        "json: cannot unmarshal {} into Go value of type {go_type}",
        json.go_kind()
    )
}

fn parse_attribute_types(json: &Json) -> Result<BTreeMap<String, Type>, String> {
    match json {
        Json::Object(members) => {
            let mut attrs = BTreeMap::new();
            for (name, t) in members {
                attrs.insert(nfc(name), parse_type(t)?);
            }
            Ok(attrs)
        }
        Json::Null => Ok(BTreeMap::new()),
        other => Err(cannot_unmarshal(other, "map[string]cty.Type")),
    }
}

fn parse_optional(
    json: &Json,
    attributes: &BTreeMap<String, Type>,
) -> Result<BTreeSet<String>, String> {
    let names = match json {
        Json::Array(xs) => xs,
        Json::Null => return Ok(BTreeSet::new()),
        other => return Err(cannot_unmarshal(other, "[]string")),
    };
    let mut optional = BTreeSet::new();
    for x in names {
        let name = match x {
            Json::String(s) => nfc(s),
            // Go leaves a string untouched when decoding null into it.
            Json::Null => String::new(),
            other => return Err(cannot_unmarshal(other, "string")),
        };
        if !attributes.contains_key(&name) {
            // cty panics here; a malformed description is an error.
            return Err(format!(
                "optional contains undeclared attribute {}",
                quote(&name)
            ));
        }
        optional.insert(name);
    }
    Ok(optional)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(attrs: &[(&str, Type)]) -> Type {
        Type::object(attrs.iter().map(|(k, t)| (k.to_string(), t.clone())))
    }

    #[test]
    fn encodes_like_cty() {
        let opt = Type::object_with_optional(
            [
                ("b".to_string(), Type::String),
                ("a".to_string(), Type::Number),
            ]
            .into_iter()
            .collect(),
            ["b".to_string()].into_iter().collect(),
        );
        let cases: Vec<(Type, &str)> = vec![
            (Type::String, r#""string""#),
            (Type::Number, r#""number""#),
            (Type::Bool, r#""bool""#),
            (Type::Dynamic, r#""dynamic""#),
            (Type::list(Type::String), r#"["list","string"]"#),
            (
                Type::set(Type::map(Type::Bool)),
                r#"["set",["map","bool"]]"#,
            ),
            (
                obj(&[("b", Type::Bool), ("a", Type::Number)]),
                r#"["object",{"a":"number","b":"bool"}]"#,
            ),
            (Type::empty_object(), r#"["object",{}]"#),
            (opt, r#"["object",{"a":"number","b":"string"},["b"]]"#),
            (
                Type::tuple(vec![Type::String, Type::Dynamic]),
                r#"["tuple",["string","dynamic"]]"#,
            ),
            (Type::empty_tuple(), r#"["tuple",[]]"#),
            (
                obj(&[("<&>", Type::Bool)]),
                r#"["object",{"\u003c\u0026\u003e":"bool"}]"#,
            ),
        ];
        for (ty, want) in cases {
            assert_eq!(type_to_json(&ty), want);
            assert_eq!(type_from_json(want.as_bytes()).unwrap(), ty, "{want}");
        }
    }

    #[test]
    fn decoding_quirks() {
        let cases: Vec<(&str, Type)> = vec![
            (r#" "string" "#, Type::String),
            (r#""bool"]"#, Type::Bool),
            (r#"["object",null]"#, Type::empty_object()),
            (r#"["object",{"a":"bool"},null]"#, obj(&[("a", Type::Bool)])),
            (r#"["tuple",null]"#, Type::empty_tuple()),
            (
                r#"["object",{"a":"bool","a":"string"}]"#,
                obj(&[("a", Type::String)]),
            ),
            (
                r#"["object",{"e\u0301":"bool"}]"#,
                obj(&[("\u{e9}", Type::Bool)]),
            ),
            (r#"["list","string"]}"#, Type::list(Type::String)),
        ];
        for (input, want) in cases {
            assert_eq!(type_from_json(input.as_bytes()).unwrap(), want, "{input}");
        }
    }

    #[test]
    fn malformed_descriptions_are_errors() {
        let cases: &[(&str, &str)] = &[
            ("", "EOF"),
            ("\"strin\"", "invalid primitive type name \"strin\""),
            ("\"string\" \"x\"", "extraneous data after type description"),
            ("{}", "invalid complex type description"),
            ("12", "invalid type description"),
            ("null", "invalid type description"),
            ("[]", "invalid complex type kind name"),
            ("[1]", "invalid complex type kind name"),
            ("[\"array\",\"string\"]", "invalid complex type kind name"),
            ("[\"list\"]", "expected comma after array element"),
            ("[\"list\",null]", "invalid type description"),
            (
                "[\"list\",\"string\",\"x\"]",
                "unexpected extra data in type description",
            ),
            (
                "[\"list\",\"string\"] x",
                "unexpected extra data in type description",
            ),
            (
                "[\"object\",[]]",
                "json: cannot unmarshal array into Go value of type map[string]cty.Type",
            ),
            (
                "[\"object\",{},{}]",
                "json: cannot unmarshal object into Go value of type []string",
            ),
            (
                "[\"object\",{},[1]]",
                "json: cannot unmarshal number into Go value of type string",
            ),
            (
                "[\"object\",{\"a\":\"bool\"},[\"b\"]]",
                "optional contains undeclared attribute \"b\"",
            ),
            (
                "[\"object\",{},[],1]",
                "unexpected extra data in type description",
            ),
            ("[\"object\",{\"a\":null}]", "invalid type description"),
            (
                "[\"tuple\",{}]",
                "json: cannot unmarshal object into Go value of type []cty.Type",
            ),
            (
                "[\"tuple\",[\"list\"]]",
                "invalid primitive type name \"list\"",
            ),
            ("[\"list\",\"string\"", "EOF"),
            ("[\"list\",", "EOF"),
        ];
        for (input, want) in cases {
            let err = type_from_json(input.as_bytes()).unwrap_err();
            assert_eq!(&err.message, want, "{input}");
        }
    }

    #[test]
    fn roundtrip_generated_types() {
        use crate::json::testgen::{gen_type, Options, Rng};
        let opts = Options {
            unknowns: false,
            infinities: false,
            numbers: true,
        };
        let mut rng = Rng::new(11);
        for case in 0..5000 {
            let ty = gen_type(&mut rng, 4, opts);
            let text = type_to_json(&ty);
            let back = type_from_json(text.as_bytes())
                .unwrap_or_else(|e| panic!("case {case}: {text}: {e}"));
            assert_eq!(back, ty, "case {case}: {text}");
            // The text is valid JSON of the same shape for serde_json too.
            let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(
                type_from_json(parsed.to_string().as_bytes()).unwrap(),
                ty,
                "case {case}: reformatted {text}"
            );
        }
    }
}
