//! Property test: the msgpack reader (the wire format of every value a
//! provider plugin sends) never panics, whatever the bytes: mutations of
//! valid encodings, each decoded against its own type, `dynamic` and other
//! types. `TERRACE_FUZZ_CASES` sets the number of inputs.

use std::collections::BTreeMap;
use terrace_testsupport::fuzz::never_panics;
use terrace_value::{msgpack, Number, Refinement, Type, Value};

fn object_type() -> Type {
    Type::object([
        ("name".to_string(), Type::String),
        ("sizes".to_string(), Type::list(Type::Number)),
        ("tags".to_string(), Type::map(Type::String)),
        ("any".to_string(), Type::Dynamic),
    ])
}

/// Typed values covering every kind the encoding has.
fn samples() -> Vec<(Value, Type)> {
    let n = |text: &str| Value::number(Number::parse(text).expect("a number"));
    let mut tags = BTreeMap::new();
    tags.insert("env".to_string(), Value::string("prod"));
    tags.insert("ünï".to_string(), Value::string("ç\u{1F600}"));
    let mut attrs = BTreeMap::new();
    attrs.insert("name".to_string(), Value::string("web"));
    attrs.insert(
        "sizes".to_string(),
        Value::list(Type::Number, vec![n("1"), n("-2.5"), n("1e40")]),
    );
    attrs.insert("tags".to_string(), Value::map(Type::String, tags));
    attrs.insert(
        "any".to_string(),
        Value::tuple(vec![Value::bool(true), Value::string("x")]),
    );
    let refined = Value::unknown_refined(
        Type::Number,
        Refinement {
            not_null: true,
            number_lower: Some((Number::from_i64(0), true)),
            number_upper: Some((Number::from_i64(10), false)),
            ..Refinement::default()
        },
    );
    let refined_string = Value::unknown_refined(
        Type::String,
        Refinement {
            not_null: true,
            string_prefix: Some("ami-".to_string()),
            ..Refinement::default()
        },
    );
    let refined_list = Value::unknown_refined(
        Type::list(Type::String),
        Refinement {
            length_lower: Some(1),
            length_upper: Some(3),
            ..Refinement::default()
        },
    );
    vec![
        (Value::string("hello"), Type::String),
        (n("42"), Type::Number),
        (n("-9223372036854775808"), Type::Number),
        (n("18446744073709551616"), Type::Number),
        (n("0.1"), Type::Number),
        (Value::bool(false), Type::Bool),
        (Value::null(Type::String), Type::String),
        (Value::unknown(Type::String), Type::String),
        (refined, Type::Number),
        (refined_string, Type::String),
        (refined_list, Type::list(Type::String)),
        (
            Value::set(Type::Number, vec![n("3"), n("1"), n("2")]),
            Type::set(Type::Number),
        ),
        (Value::object(attrs.clone()), object_type()),
        (Value::object(attrs), Type::Dynamic),
        (
            Value::tuple(vec![n("1"), Value::string("two"), Value::null(Type::Bool)]),
            Type::tuple(vec![Type::Number, Type::String, Type::Bool]),
        ),
        (
            Value::list(
                Type::list(Type::String),
                vec![Value::list(Type::String, vec![Value::string("deep")])],
            ),
            Type::list(Type::list(Type::String)),
        ),
    ]
}

#[test]
fn the_msgpack_reader_never_panics() {
    let samples = samples();
    let mut seeds = Vec::new();
    for (value, ty) in &samples {
        let bytes = msgpack::encode(value, ty).expect("the samples encode");
        // A decoded sample is the sample: the seeds are valid input.
        assert!(msgpack::decode(&bytes, ty).is_ok(), "{value:?}");
        seeds.push(bytes);
    }
    let mut types: Vec<Type> = samples.iter().map(|(_, t)| t.clone()).collect();
    types.push(Type::Dynamic);
    types.push(Type::map(Type::Dynamic));
    types.push(Type::set(Type::Dynamic));
    let dictionary: &[&[u8]] = &[
        b"\xc0",
        b"\xc2",
        b"\xc3",
        b"\xc4\x05",
        b"\xc5\xff\xff",
        b"\xc6\xff\xff\xff\xff",
        b"\xd4\x00\x00",
        b"\xd4\x0c\x00",
        b"\xc7\x03\x0c\x81\x01\xc3",
        b"\xc8\xff\xff\x0c",
        b"\xc9\xff\xff\xff\xff\x0c",
        b"\xca\x7f\x80\x00\x00",
        b"\xcb\x7f\xf0\x00\x00\x00\x00\x00\x00",
        b"\xcb\x7f\xf8\x00\x00\x00\x00\x00\x01",
        b"\xcf\xff\xff\xff\xff\xff\xff\xff\xff",
        b"\xd3\x80\x00\x00\x00\x00\x00\x00\x00",
        b"\xd9\x03abc",
        b"\xda\xff\xff",
        b"\xdb\xff\xff\xff\xff",
        b"\xdc\xff\xff",
        b"\xdd\xff\xff\xff\xff",
        b"\xde\xff\xff",
        b"\xdf\xff\xff\xff\xff",
        b"\x92",
        b"\x82",
        b"\x9f",
        b"\x8f",
        b"\xa6string",
        b"\xa8\"number\"",
        b"\xc4\x08\"string\"",
        b"\xc4\x0f[\"list\",\"bool\"]",
        b"\xc4\x18[\"object\",{\"a\":\"bool\"}]",
        b"\xc4\x09\"dynamic\"",
    ];
    let ran = never_panics("msgpack", &seeds, dictionary, 200_000, |input| {
        for ty in &types {
            let _ = msgpack::decode(input, ty);
        }
    });
    let _ = std::io::Write::write_fmt(
        &mut std::io::stderr(),
        format_args!(
            "msgpack reader: {ran} inputs, each against {} types\n",
            types.len()
        ),
    );
}
