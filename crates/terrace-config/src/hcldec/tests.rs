use super::*;
use terrace_lang::scope::MapScope;
use terrace_providers::objchange::gostring::value_go_string as go;
use terrace_providers::schema::{NestedAttributes, ObjectNesting};

// ----- builders -----

fn native(src: &str) -> Body {
    let (file, diags) = terrace_syntax::parse_native_file("t.tf", src);
    assert!(diags.is_empty(), "{diags:?}");
    Body::from_file(&file)
}

fn json(src: &str) -> Body {
    let (file, diags) = terrace_syntax::parse_json_file("t.tf.json", src);
    assert!(diags.is_empty(), "{diags:?}");
    Body::from_file(&file)
}

#[derive(Clone, Copy)]
enum F {
    Req,
    Opt,
    Comp,
}

fn a(ty: Type, f: F) -> Attribute {
    let mut attribute = Attribute::new(ty);
    match f {
        F::Req => attribute.required = true,
        F::Opt => attribute.optional = true,
        F::Comp => attribute.computed = true,
    }
    attribute
}

fn nb(nesting: NestingMode, block: Block, min: i64, max: i64) -> NestedBlock {
    NestedBlock {
        nesting,
        block,
        min_items: min,
        max_items: max,
    }
}

fn schema(attrs: Vec<(&str, Attribute)>, blocks: Vec<(&str, NestedBlock)>) -> Block {
    Block {
        attributes: attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        block_types: blocks
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        ..Block::default()
    }
}

fn inner() -> Block {
    schema(vec![("x", a(Type::String, F::Opt))], vec![])
}

fn scope() -> MapScope {
    let var = Value::object(BTreeMap::from([
        (
            "list".to_string(),
            Value::tuple(vec![Value::string("a"), Value::string("b")]),
        ),
        (
            "map".to_string(),
            Value::object(BTreeMap::from([
                ("k1".to_string(), Value::string("v1")),
                ("k2".to_string(), Value::string("v2")),
            ])),
        ),
        (
            "unknown".to_string(),
            Value::unknown(Type::list(Type::String)),
        ),
        (
            "secret".to_string(),
            Value::list(Type::String, vec![Value::string("s")]).mark(Marks::SENSITIVE),
        ),
        ("str".to_string(), Value::string("hello")),
        ("nul".to_string(), Value::null(Type::list(Type::String))),
        (
            "nested".to_string(),
            Value::tuple(vec![
                Value::tuple(vec![Value::int(1), Value::int(2)]),
                Value::tuple(vec![Value::int(3)]),
            ]),
        ),
    ]));
    MapScope::new().with("var", var)
}

fn summaries(diags: &[Diagnostic]) -> Vec<String> {
    diags
        .iter()
        .map(|d| format!("{}: {}", d.summary, d.detail))
        .collect()
}

struct Case {
    name: &'static str,
    body: Body,
    schema: Block,
    value: &'static str,
    diags: Vec<&'static str>,
}

fn case(
    name: &'static str,
    body: Body,
    schema: Block,
    value: &'static str,
    diags: Vec<&'static str>,
) -> Case {
    Case {
        name,
        body,
        schema,
        value,
        diags,
    }
}

fn run(cases: Vec<Case>) {
    let scope = scope();
    for c in cases {
        let (value, diags) = decode_body(&c.body, &c.schema, &scope);
        assert_eq!(summaries(&diags), c.diags, "{}: diagnostics", c.name);
        assert_eq!(go(&value), c.value, "{}: value", c.name);
    }
}

// ----- attributes -----

#[test]
fn attributes() {
    let s = schema(
        vec![
            ("req", a(Type::String, F::Req)),
            ("num", a(Type::Number, F::Opt)),
            ("list", a(Type::list(Type::String), F::Opt)),
            ("id", a(Type::String, F::Comp)),
        ],
        vec![],
    );
    run(vec![
        case(
            "all given and converted",
            native("req = \"r\"\nnum = \"12\"\nlist = [1, true]\n"),
            s.clone(),
            r#"cty.ObjectVal(map[string]cty.Value{"id":cty.NullVal(cty.String), "list":cty.ListVal([]cty.Value{cty.StringVal("1"), cty.StringVal("true")}), "num":cty.NumberIntVal(12), "req":cty.StringVal("r")})"#,
            vec![],
        ),
        case(
            "missing required, unsupported with suggestion",
            native("nun = 1\n"),
            s.clone(),
            r#"cty.ObjectVal(map[string]cty.Value{"id":cty.NullVal(cty.String), "list":cty.NullVal(cty.List(cty.String)), "num":cty.NullVal(cty.Number), "req":cty.NullVal(cty.String)})"#,
            vec![
                "Missing required argument: The argument \"req\" is required, but no definition was found.",
                "Unsupported argument: An argument named \"nun\" is not expected here. Did you mean \"num\"?",
            ],
        ),
        case(
            "wrong type",
            native("req = \"r\"\nnum = \"abc\"\nlist = {}\n"),
            s.clone(),
            r#"cty.ObjectVal(map[string]cty.Value{"id":cty.NullVal(cty.String), "list":cty.UnknownVal(cty.List(cty.String)), "num":cty.UnknownVal(cty.Number), "req":cty.StringVal("r")})"#,
            vec![
                "Incorrect attribute value type: Inappropriate value for attribute \"list\": list of string required.",
                "Incorrect attribute value type: Inappropriate value for attribute \"num\": a number is required.",
            ],
        ),
        case(
            // Core leaves computed-only arguments to the provider's own
            // validation, as OpenTofu does.
            "computed-only argument given",
            native("req = var.str\nid = \"x\"\n"),
            s.clone(),
            r#"cty.ObjectVal(map[string]cty.Value{"id":cty.StringVal("x"), "list":cty.NullVal(cty.List(cty.String)), "num":cty.NullVal(cty.Number), "req":cty.StringVal("hello")})"#,
            vec![],
        ),
        case(
            "JSON syntax",
            json(r#"{"req": "${var.str}-x", "num": 3, "list": ["a"]}"#),
            s,
            r#"cty.ObjectVal(map[string]cty.Value{"id":cty.NullVal(cty.String), "list":cty.ListVal([]cty.Value{cty.StringVal("a")}), "num":cty.NumberIntVal(3), "req":cty.StringVal("hello-x")})"#,
            vec![],
        ),
    ]);
}

#[test]
fn diagnostics_carry_ranges() {
    let s = schema(vec![("num", a(Type::Number, F::Opt))], vec![]);
    let (_, diags) = decode_body(&native("\nnum = \"abc\"\n"), &s, &scope());
    let subject = diags[0].subject.as_ref().map(ToString::to_string);
    let context = diags[0].context.as_ref().map(ToString::to_string);
    assert_eq!(subject.as_deref(), Some("t.tf:2,7-12"));
    assert_eq!(context.as_deref(), Some("t.tf:2,1-12"));
}

// ----- nested blocks -----

#[test]
fn nested_blocks() {
    let list_s = schema(vec![], vec![("b", nb(NestingMode::List, inner(), 1, 2))]);
    let set_s = schema(vec![], vec![("b", nb(NestingMode::Set, inner(), 0, 0))]);
    let map_s = schema(vec![], vec![("b", nb(NestingMode::Map, inner(), 0, 0))]);
    let single_s = schema(vec![], vec![("b", nb(NestingMode::Single, inner(), 1, 0))]);
    let group_s = schema(
        vec![],
        vec![(
            "g",
            nb(
                NestingMode::Group,
                schema(
                    vec![("x", a(Type::String, F::Opt))],
                    vec![("l", nb(NestingMode::List, inner(), 0, 0))],
                ),
                0,
                0,
            ),
        )],
    );
    let dyn_inner = schema(vec![("d", a(Type::Dynamic, F::Opt))], vec![]);
    let dyn_s = schema(
        vec![],
        vec![
            ("l", nb(NestingMode::List, dyn_inner.clone(), 0, 0)),
            ("m", nb(NestingMode::Map, dyn_inner, 0, 0)),
        ],
    );
    run(vec![
        case(
            "list",
            native("b {\n  x = \"1\"\n}\nb {}\n"),
            list_s.clone(),
            r#"cty.ObjectVal(map[string]cty.Value{"b":cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"x":cty.StringVal("1")}), cty.ObjectVal(map[string]cty.Value{"x":cty.NullVal(cty.String)})})})"#,
            vec![],
        ),
        case(
            "too many",
            native("b {}\nb {}\nb {}\n"),
            list_s.clone(),
            r#"cty.ObjectVal(map[string]cty.Value{"b":cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"x":cty.NullVal(cty.String)}), cty.ObjectVal(map[string]cty.Value{"x":cty.NullVal(cty.String)}), cty.ObjectVal(map[string]cty.Value{"x":cty.NullVal(cty.String)})})})"#,
            vec!["Too many b blocks: No more than 2 \"b\" blocks are allowed"],
        ),
        case(
            "insufficient",
            native(""),
            list_s,
            r#"cty.ObjectVal(map[string]cty.Value{"b":cty.ListValEmpty(cty.Object(map[string]cty.Type{"x":cty.String}))})"#,
            vec!["Insufficient b blocks: At least 1 \"b\" blocks are required."],
        ),
        case(
            "set",
            native("b {\n  x = \"1\"\n}\nb {\n  x = \"1\"\n}\n"),
            set_s,
            r#"cty.ObjectVal(map[string]cty.Value{"b":cty.SetVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"x":cty.StringVal("1")})})})"#,
            vec![],
        ),
        case(
            "map with duplicate key",
            native("b \"k\" {\n  x = \"1\"\n}\nb \"k\" {}\nb \"j\" {}\n"),
            map_s.clone(),
            r#"cty.ObjectVal(map[string]cty.Value{"b":cty.MapVal(map[string]cty.Value{"j":cty.ObjectVal(map[string]cty.Value{"x":cty.NullVal(cty.String)}), "k":cty.ObjectVal(map[string]cty.Value{"x":cty.StringVal("1")})})})"#,
            vec!["Duplicate b block: A block for b \"k\" was already defined. The b labels must be unique."],
        ),
        case(
            "map block without its label",
            native("b {}\n"),
            map_s,
            r#"cty.ObjectVal(map[string]cty.Value{"b":cty.MapValEmpty(cty.Object(map[string]cty.Type{"x":cty.String}))})"#,
            vec!["Missing key for b: All b blocks must have 1 labels (key)."],
        ),
        case(
            "single: duplicate",
            native("b {\n  x = \"1\"\n}\nb {}\n"),
            single_s.clone(),
            r#"cty.ObjectVal(map[string]cty.Value{"b":cty.ObjectVal(map[string]cty.Value{"x":cty.StringVal("1")})})"#,
            vec!["Duplicate b block: Only one block of type \"b\" is allowed. Previous definition was at t.tf:1,1-2."],
        ),
        case(
            "single: required",
            native(""),
            single_s,
            r#"cty.ObjectVal(map[string]cty.Value{"b":cty.NullVal(cty.Object(map[string]cty.Type{"x":cty.String}))})"#,
            vec!["Missing b block: A block of type \"b\" is required here."],
        ),
        case(
            "group absent is an empty object",
            native(""),
            group_s,
            r#"cty.ObjectVal(map[string]cty.Value{"g":cty.ObjectVal(map[string]cty.Value{"l":cty.ListValEmpty(cty.Object(map[string]cty.Type{"x":cty.String})), "x":cty.NullVal(cty.String)})})"#,
            vec![],
        ),
        case(
            "dynamic-typed attributes make tuples and objects",
            native("l {\n  d = 1\n}\nl {\n  d = \"s\"\n}\nm \"a\" {\n  d = true\n}\n"),
            dyn_s.clone(),
            r#"cty.ObjectVal(map[string]cty.Value{"l":cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"d":cty.NumberIntVal(1)}), cty.ObjectVal(map[string]cty.Value{"d":cty.StringVal("s")})}), "m":cty.ObjectVal(map[string]cty.Value{"a":cty.ObjectVal(map[string]cty.Value{"d":cty.True})})})"#,
            vec![],
        ),
        case(
            "empty tuple and object",
            native(""),
            dyn_s,
            r#"cty.ObjectVal(map[string]cty.Value{"l":cty.EmptyTupleVal, "m":cty.EmptyObjectVal})"#,
            vec![],
        ),
        case(
            "unsupported block with suggestion",
            native("bb {}\n"),
            set_s_for_suggestion(),
            r#"cty.ObjectVal(map[string]cty.Value{"b":cty.SetValEmpty(cty.Object(map[string]cty.Type{"x":cty.String}))})"#,
            vec!["Unsupported block type: Blocks of type \"bb\" are not expected here. Did you mean \"b\"?"],
        ),
    ]);
}

fn set_s_for_suggestion() -> Block {
    schema(vec![], vec![("b", nb(NestingMode::Set, inner(), 0, 0))])
}

// ----- dynamic blocks -----

#[test]
fn dynamic_blocks() {
    let list_s = schema(vec![], vec![("b", nb(NestingMode::List, inner(), 0, 0))]);
    let set_s = schema(vec![], vec![("b", nb(NestingMode::Set, inner(), 0, 0))]);
    let single_s = schema(
        vec![],
        vec![(
            "s",
            nb(
                NestingMode::Single,
                schema(
                    vec![("x", a(Type::String, F::Opt))],
                    vec![("l", nb(NestingMode::List, inner(), 0, 0))],
                ),
                0,
                0,
            ),
        )],
    );
    let map_s = schema(vec![], vec![("b", nb(NestingMode::Map, inner(), 0, 0))]);
    let outer_s = schema(
        vec![],
        vec![(
            "o",
            nb(
                NestingMode::List,
                schema(
                    vec![("n", a(Type::String, F::Opt))],
                    vec![("b", nb(NestingMode::List, inner(), 0, 0))],
                ),
                0,
                0,
            ),
        )],
    );
    run(vec![
        case(
            "list for_each, default iterator, mixed with literal blocks",
            native("b {\n  x = \"lit\"\n}\ndynamic \"b\" {\n  for_each = var.list\n  content {\n    x = \"${b.key}:${b.value}\"\n  }\n}\n"),
            list_s.clone(),
            r#"cty.ObjectVal(map[string]cty.Value{"b":cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"x":cty.StringVal("lit")}), cty.ObjectVal(map[string]cty.Value{"x":cty.StringVal("0:a")}), cty.ObjectVal(map[string]cty.Value{"x":cty.StringVal("1:b")})})})"#,
            vec![],
        ),
        case(
            "map blocks with labels and a custom iterator",
            native("dynamic \"b\" {\n  for_each = var.map\n  iterator = it\n  labels = [it.key]\n  content {\n    x = it.value\n  }\n}\n"),
            map_s.clone(),
            r#"cty.ObjectVal(map[string]cty.Value{"b":cty.MapVal(map[string]cty.Value{"k1":cty.ObjectVal(map[string]cty.Value{"x":cty.StringVal("v1")}), "k2":cty.ObjectVal(map[string]cty.Value{"x":cty.StringVal("v2")})})})"#,
            vec![],
        ),
        case(
            "nested dynamic blocks see the outer iterator",
            native("dynamic \"o\" {\n  for_each = var.nested\n  content {\n    n = o.key\n    dynamic \"b\" {\n      for_each = o.value\n      content {\n        x = \"${o.key}.${b.value}\"\n      }\n    }\n  }\n}\n"),
            outer_s,
            r#"cty.ObjectVal(map[string]cty.Value{"o":cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"b":cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"x":cty.StringVal("0.1")}), cty.ObjectVal(map[string]cty.Value{"x":cty.StringVal("0.2")})}), "n":cty.StringVal("0")}), cty.ObjectVal(map[string]cty.Value{"b":cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"x":cty.StringVal("1.3")})}), "n":cty.StringVal("1")})})})"#,
            vec![],
        ),
        case(
            "unknown for_each makes a list unknown",
            native("b {}\ndynamic \"b\" {\n  for_each = var.unknown\n  content {\n    x = b.value\n  }\n}\n"),
            list_s.clone(),
            r#"cty.ObjectVal(map[string]cty.Value{"b":cty.UnknownVal(cty.List(cty.Object(map[string]cty.Type{"x":cty.String})))})"#,
            vec![],
        ),
        case(
            "unknown for_each makes a set unknown",
            native("dynamic \"b\" {\n  for_each = var.unknown\n  content {}\n}\n"),
            set_s,
            r#"cty.ObjectVal(map[string]cty.Value{"b":cty.UnknownVal(cty.Set(cty.Object(map[string]cty.Type{"x":cty.String})))})"#,
            vec![],
        ),
        case(
            "unknown for_each on a single block: unknown leaves",
            native("dynamic \"s\" {\n  for_each = var.unknown\n  content {\n    x = \"lit\"\n    l {}\n  }\n}\n"),
            single_s,
            r#"cty.ObjectVal(map[string]cty.Value{"s":cty.ObjectVal(map[string]cty.Value{"l":cty.UnknownVal(cty.List(cty.Object(map[string]cty.Type{"x":cty.String}))), "x":cty.UnknownVal(cty.String)})})"#,
            vec![],
        ),
        case(
            "sensitive for_each marks the generated blocks",
            native("dynamic \"b\" {\n  for_each = var.secret\n  content {\n    x = \"v\"\n  }\n}\n"),
            list_s.clone(),
            r#"cty.ObjectVal(map[string]cty.Value{"b":cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"x":cty.StringVal("v").Mark(marks.Sensitive)}).Mark(marks.Sensitive)})})"#,
            vec![],
        ),
        case(
            "unknown labels",
            native("dynamic \"b\" {\n  for_each = var.unknown\n  labels = [b.key]\n  content {}\n}\n"),
            map_s.clone(),
            r#"cty.ObjectVal(map[string]cty.Value{"b":cty.MapValEmpty(cty.Object(map[string]cty.Type{"x":cty.String}))})"#,
            vec!["Invalid dynamic block label: This value is not yet known. Dynamic block labels must be immediately-known values."],
        ),
        case(
            "for_each problems",
            native("dynamic \"b\" {\n  for_each = var.str\n  content {}\n}\ndynamic \"b\" {\n  for_each = var.nul\n  content {}\n}\ndynamic \"b\" {\n  for_each = []\n}\ndynamic \"c\" {\n  for_each = []\n  content {}\n}\n"),
            list_s.clone(),
            r#"cty.ObjectVal(map[string]cty.Value{"b":cty.ListValEmpty(cty.Object(map[string]cty.Type{"x":cty.String}))})"#,
            vec![
                "Invalid dynamic for_each value: Cannot use a string value in for_each. An iterable collection is required.",
                "Invalid dynamic for_each value: Cannot use a null value in for_each.",
                "Missing dynamic content block: A dynamic block must have a nested block of type \"content\" to describe the body of each generated block.",
                "Unsupported block type: Blocks of type \"c\" are not expected here.",
            ],
        ),
        case(
            "label count and iterator problems",
            native("dynamic \"b\" {\n  for_each = var.map\n  labels = [\"a\", \"b\"]\n  content {}\n}\ndynamic \"b\" {\n  for_each = var.map\n  labels = [b.key]\n  iterator = x.y\n  content {}\n}\ndynamic \"b\" {\n  for_each = var.map\n  content {}\n}\n"),
            map_s,
            r#"cty.ObjectVal(map[string]cty.Value{"b":cty.MapValEmpty(cty.Object(map[string]cty.Type{"x":cty.String}))})"#,
            vec![
                "Extraneous dynamic block label: Blocks of type \"b\" require 1 label(s).",
                "Invalid dynamic iterator name: Dynamic iterator must be a single variable name.",
                "Missing required argument: The argument \"labels\" is required, but no definition was found.",
            ],
        ),
        case(
            "JSON dynamic block",
            json(r#"{"dynamic": {"b": {"for_each": "${var.list}", "iterator": "i", "content": {"x": "${i.value}"}}}}"#),
            list_s,
            r#"cty.ObjectVal(map[string]cty.Value{"b":cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"x":cty.StringVal("a")}), cty.ObjectVal(map[string]cty.Value{"x":cty.StringVal("b")})})})"#,
            vec![],
        ),
    ]);
}

// ----- nested attributes -----

#[test]
fn nested_attributes() {
    let object = |nesting| Attribute {
        optional: true,
        ..Attribute::nested(NestedAttributes {
            nesting,
            attributes: BTreeMap::from([
                ("req".to_string(), a(Type::String, F::Req)),
                ("opt".to_string(), a(Type::Number, F::Opt)),
                ("comp".to_string(), a(Type::String, F::Comp)),
            ]),
        })
    };
    let s = schema(
        vec![
            ("single", object(ObjectNesting::Single)),
            ("list", object(ObjectNesting::List)),
            ("map", object(ObjectNesting::Map)),
        ],
        vec![],
    );
    run(vec![
        case(
            "optional inner attributes default to null",
            native("single = { req = \"a\" }\nlist = [{ req = \"b\", opt = \"2\" }]\nmap = { k = { req = \"c\" } }\n"),
            s.clone(),
            r#"cty.ObjectVal(map[string]cty.Value{"list":cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"comp":cty.NullVal(cty.String), "opt":cty.NumberIntVal(2), "req":cty.StringVal("b")})}), "map":cty.MapVal(map[string]cty.Value{"k":cty.ObjectVal(map[string]cty.Value{"comp":cty.NullVal(cty.String), "opt":cty.NullVal(cty.Number), "req":cty.StringVal("c")})}), "single":cty.ObjectVal(map[string]cty.Value{"comp":cty.NullVal(cty.String), "opt":cty.NullVal(cty.Number), "req":cty.StringVal("a")})})"#,
            vec![],
        ),
        case(
            "required inner attribute missing",
            native("single = { opt = 1 }\n"),
            s,
            r#"cty.ObjectVal(map[string]cty.Value{"list":cty.NullVal(cty.List(cty.Object(map[string]cty.Type{"comp":cty.String, "opt":cty.Number, "req":cty.String}))), "map":cty.NullVal(cty.Map(cty.Object(map[string]cty.Type{"comp":cty.String, "opt":cty.Number, "req":cty.String}))), "single":cty.UnknownVal(cty.Object(map[string]cty.Type{"comp":cty.String, "opt":cty.Number, "req":cty.String}))})"#,
            vec!["Incorrect attribute value type: Inappropriate value for attribute \"single\": attribute \"req\" is required."],
        ),
    ]);
}

// ----- attributes as blocks -----

#[test]
fn attributes_written_as_blocks() {
    let ety = Type::object([
        ("a".to_string(), Type::String),
        ("n".to_string(), Type::Number),
    ]);
    let s = schema(
        vec![
            ("ingress", a(Type::list(ety.clone()), F::Opt)),
            ("tags", a(Type::set(ety), F::Opt)),
        ],
        vec![],
    );
    run(vec![
        case(
            "blocks and dynamic blocks",
            native("ingress {\n  a = \"x\"\n}\ndynamic \"ingress\" {\n  for_each = var.list\n  content {\n    n = ingress.key\n  }\n}\n"),
            s.clone(),
            r#"cty.ObjectVal(map[string]cty.Value{"ingress":cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"a":cty.StringVal("x"), "n":cty.NullVal(cty.Number)}), cty.ObjectVal(map[string]cty.Value{"a":cty.NullVal(cty.String), "n":cty.NumberIntVal(0)}), cty.ObjectVal(map[string]cty.Value{"a":cty.NullVal(cty.String), "n":cty.NumberIntVal(1)})}), "tags":cty.NullVal(cty.Set(cty.Object(map[string]cty.Type{"a":cty.String, "n":cty.Number})))})"#,
            vec![],
        ),
        case(
            "attribute syntax still works",
            native("tags = [{ a = \"x\", n = 1 }]\n"),
            s.clone(),
            r#"cty.ObjectVal(map[string]cty.Value{"ingress":cty.NullVal(cty.List(cty.Object(map[string]cty.Type{"a":cty.String, "n":cty.Number}))), "tags":cty.SetVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"a":cty.StringVal("x"), "n":cty.NumberIntVal(1)})})})"#,
            vec![],
        ),
        case(
            "wrong type inside a block",
            native("tags {\n  n = \"no\"\n}\n"),
            s,
            r#"cty.ObjectVal(map[string]cty.Value{"ingress":cty.NullVal(cty.List(cty.Object(map[string]cty.Type{"a":cty.String, "n":cty.Number}))), "tags":cty.SetVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"a":cty.NullVal(cty.String), "n":cty.UnknownVal(cty.Number)})})})"#,
            vec!["Incorrect attribute value type: Inappropriate value for attribute \"n\": a number is required."],
        ),
    ]);

    // Schemas with nested attributes never accept blocks for attributes.
    let mut with_nested = schema(
        vec![(
            "ingress",
            a(
                Type::list(Type::object([("a".to_string(), Type::String)])),
                F::Opt,
            ),
        )],
        vec![],
    );
    with_nested.attributes.insert(
        "n".to_string(),
        Attribute {
            optional: true,
            ..Attribute::nested(NestedAttributes {
                nesting: ObjectNesting::Single,
                attributes: BTreeMap::new(),
            })
        },
    );
    let (_, diags) = decode_body(&native("ingress {}\n"), &with_nested, &scope());
    assert_eq!(
        summaries(&diags),
        vec!["Unsupported block type: Blocks of type \"ingress\" are not expected here. Did you mean to define argument \"ingress\"? If so, use the equals sign to assign it a value."]
    );
}

// ----- references -----

#[test]
fn references() {
    let s = schema(
        vec![
            ("x", a(Type::String, F::Opt)),
            (
                "ingress",
                a(
                    Type::list(Type::object([("a".to_string(), Type::String)])),
                    F::Opt,
                ),
            ),
        ],
        vec![(
            "b",
            nb(
                NestingMode::List,
                schema(
                    vec![("x", a(Type::String, F::Opt))],
                    vec![("c", nb(NestingMode::Map, inner(), 0, 0))],
                ),
                0,
                0,
            ),
        )],
    );
    let cases: Vec<(&str, Body, Vec<&str>)> = vec![
        (
            "native",
            native(
                "x = var.a\nb {\n  x = local.b\n  dynamic \"c\" {\n    for_each = b.x\n    iterator = it\n    labels = [it.key, var.l]\n    content {\n      x = \"${it.value}${var.c}${b.y}\"\n    }\n  }\n}\ndynamic \"b\" {\n  for_each = var.bs\n  content {\n    x = b.value\n    c \"k\" {\n      x = b.key\n    }\n  }\n}\ningress {\n  a = data.x.y.z\n}\nunknown = var.not_in_schema\n",
            ),
            vec!["var.a", "local.b", "b.x", "var.l", "var.c", "b.y", "var.bs", "data.x.y.z"],
        ),
        (
            "json",
            json(r#"{"x": "${var.a}", "dynamic": {"b": {"for_each": "${var.bs}", "content": {"x": "${b.value}-${var.z}"}}}}"#),
            vec!["var.a", "var.bs", "var.z"],
        ),
    ];
    for (name, body, want) in cases {
        let got: Vec<String> = body_references(&body, &s)
            .iter()
            .map(|(t, file)| {
                let end = match t.steps.last() {
                    Some(TraversalStep::Attr { span, .. })
                    | Some(TraversalStep::Index { span, .. }) => span.end,
                    None => t.root_span.end,
                };
                file.text
                    .get(t.root_span.start as usize..end as usize)
                    .unwrap_or_default()
                    .to_string()
            })
            .collect();
        assert_eq!(got, want, "{name}");
    }
    let calls = body_provider_function_calls(&native("x = provider::p::f(var.a)\n"), &s);
    let calls: Vec<(String, String)> = calls.into_iter().map(|(p, f, _)| (p, f)).collect();
    assert_eq!(calls, vec![("p".to_string(), "f".to_string())]);
}
