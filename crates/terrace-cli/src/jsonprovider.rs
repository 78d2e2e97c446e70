//! Provider schemas in the JSON format of `terraform providers schema
//! -json` (format version 1.0), byte for byte: objects with their fields
//! in Terraform's order, map keys sorted, empty and false fields left out
//! where Terraform leaves them out, strings escaped as Go's encoding/json
//! escapes them (`<`, `>`, `&`, U+2028 and U+2029 as `\u` escapes), no
//! white space, and a final newline.
//!
//! Functions use the format of `terraform metadata functions -json`:
//! description, summary and deprecation message only when not empty,
//! `is_nullable` only when true.

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use terrace_gocompat::json::write_string;
use terrace_providers::{
    Attribute, AttributeType, Block, FunctionParameter, FunctionSpec, NestedAttributes,
    NestingMode, ObjectNesting, ProviderSchema, Schema, StringKind,
};
use terrace_value::typejson::type_to_json;

pub const FORMAT_VERSION: &str = "1.0";

/// The whole document for these providers, keyed by provider address.
pub fn render<S: Borrow<ProviderSchema>>(schemas: &BTreeMap<String, S>) -> String {
    let mut out = String::with_capacity(1 << 20);
    out.push_str("{\"format_version\":");
    write_string(&mut out, FORMAT_VERSION);
    if !schemas.is_empty() {
        out.push_str(",\"provider_schemas\":{");
        for (i, (name, schema)) in schemas.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_string(&mut out, name);
            out.push(':');
            write_provider(
                &mut out,
                schema.borrow(),
                name.starts_with("terraform.io/builtin/"),
            );
        }
        out.push('}');
    }
    out.push_str("}\n");
    out
}

/// One provider; a built-in one's empty configuration is no block at all,
/// as terraform writes it (a plugin's empty block is still written).
fn write_provider(out: &mut String, schema: &ProviderSchema, builtin: bool) {
    out.push_str("{\"provider\":");
    let block = &schema.provider.block;
    if builtin && block.attributes.is_empty() && block.block_types.is_empty() {
        write!(out, "{{\"version\":{}}}", schema.provider.version.max(0)).ok();
    } else {
        write_schema(out, &schema.provider);
    }
    let groups = [
        ("resource_schemas", &schema.resource_types),
        ("data_source_schemas", &schema.data_sources),
        ("ephemeral_resource_schemas", &schema.ephemeral_resources),
    ];
    for (key, schemas) in groups {
        if schemas.is_empty() {
            continue;
        }
        write!(out, ",\"{key}\":{{").ok();
        for (i, (name, schema)) in schemas.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_string(out, name);
            out.push(':');
            write_schema(out, schema);
        }
        out.push('}');
    }
    if !schema.functions.is_empty() {
        out.push_str(",\"functions\":{");
        for (i, (name, function)) in schema.functions.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_string(out, name);
            out.push(':');
            write_function(out, function);
        }
        out.push('}');
    }
    out.push('}');
}

fn write_schema(out: &mut String, schema: &Schema) {
    write!(out, "{{\"version\":{},\"block\":", schema.version.max(0)).ok();
    write_block(out, &schema.block);
    out.push('}');
}

fn write_block(out: &mut String, block: &Block) {
    out.push('{');
    let mut first = true;
    if !block.attributes.is_empty() {
        field(out, &mut first, "attributes");
        write_attributes(out, &block.attributes);
    }
    if !block.block_types.is_empty() {
        field(out, &mut first, "block_types");
        out.push('{');
        for (i, (name, nested)) in block.block_types.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_string(out, name);
            out.push_str(":{\"nesting_mode\":");
            write_string(out, nesting_mode(nested.nesting));
            out.push_str(",\"block\":");
            write_block(out, &nested.block);
            // Go's omitempty on unsigned counts; negative ones (which no
            // valid schema has) are left out too.
            if nested.min_items > 0 {
                write!(out, ",\"min_items\":{}", nested.min_items).ok();
            }
            if nested.max_items > 0 {
                write!(out, ",\"max_items\":{}", nested.max_items).ok();
            }
            out.push('}');
        }
        out.push('}');
    }
    if !block.description.is_empty() {
        field(out, &mut first, "description");
        write_string(out, &block.description);
    }
    field(out, &mut first, "description_kind");
    write_string(out, string_kind(block.description_kind));
    if block.deprecated {
        field(out, &mut first, "deprecated");
        out.push_str("true");
    }
    out.push('}');
}

fn write_attributes(out: &mut String, attributes: &BTreeMap<String, Attribute>) {
    out.push('{');
    for (i, (name, attribute)) in attributes.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(out, name);
        out.push(':');
        write_attribute(out, attribute);
    }
    out.push('}');
}

fn write_attribute(out: &mut String, attribute: &Attribute) {
    out.push('{');
    let mut first = true;
    match &attribute.ty {
        AttributeType::Type(ty) => {
            field(out, &mut first, "type");
            out.push_str(&type_to_json(ty));
        }
        AttributeType::Nested(nested) => {
            field(out, &mut first, "nested_type");
            write_nested_type(out, nested);
        }
    }
    if !attribute.description.is_empty() {
        field(out, &mut first, "description");
        write_string(out, &attribute.description);
    }
    field(out, &mut first, "description_kind");
    write_string(out, string_kind(attribute.description_kind));
    let flags = [
        ("deprecated", attribute.deprecated),
        ("required", attribute.required),
        ("optional", attribute.optional),
        ("computed", attribute.computed),
        ("sensitive", attribute.sensitive),
        ("write_only", attribute.write_only),
    ];
    for (name, set) in flags {
        if set {
            field(out, &mut first, name);
            out.push_str("true");
        }
    }
    out.push('}');
}

fn write_nested_type(out: &mut String, nested: &NestedAttributes) {
    out.push('{');
    if !nested.attributes.is_empty() {
        out.push_str("\"attributes\":");
        write_attributes(out, &nested.attributes);
        out.push(',');
    }
    out.push_str("\"nesting_mode\":");
    write_string(
        out,
        match nested.nesting {
            ObjectNesting::Single => "single",
            ObjectNesting::List => "list",
            ObjectNesting::Set => "set",
            ObjectNesting::Map => "map",
        },
    );
    out.push('}');
}

fn write_function(out: &mut String, function: &FunctionSpec) {
    out.push('{');
    let mut first = true;
    let texts = [
        ("description", &function.description),
        ("summary", &function.summary),
        ("deprecation_message", &function.deprecation_message),
    ];
    for (name, text) in texts {
        if !text.is_empty() {
            field(out, &mut first, name);
            write_string(out, text);
        }
    }
    field(out, &mut first, "return_type");
    out.push_str(&type_to_json(&function.return_type));
    if !function.parameters.is_empty() {
        field(out, &mut first, "parameters");
        out.push('[');
        for (i, parameter) in function.parameters.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_parameter(out, parameter);
        }
        out.push(']');
    }
    if let Some(parameter) = &function.variadic_parameter {
        field(out, &mut first, "variadic_parameter");
        write_parameter(out, parameter);
    }
    out.push('}');
}

fn write_parameter(out: &mut String, parameter: &FunctionParameter) {
    out.push_str("{\"name\":");
    write_string(out, &parameter.name);
    if !parameter.description.is_empty() {
        out.push_str(",\"description\":");
        write_string(out, &parameter.description);
    }
    if parameter.allow_null_value {
        out.push_str(",\"is_nullable\":true");
    }
    out.push_str(",\"type\":");
    out.push_str(&type_to_json(&parameter.ty));
    out.push('}');
}

/// Starts a field: a comma unless it is the object's first, and the key.
fn field(out: &mut String, first: &mut bool, key: &str) {
    if !*first {
        out.push(',');
    }
    *first = false;
    out.push('"');
    out.push_str(key);
    out.push_str("\":");
}

fn nesting_mode(mode: NestingMode) -> &'static str {
    match mode {
        NestingMode::Single => "single",
        NestingMode::Group => "group",
        NestingMode::List => "list",
        NestingMode::Set => "set",
        NestingMode::Map => "map",
    }
}

fn string_kind(kind: StringKind) -> &'static str {
    match kind {
        StringKind::Plain => "plain",
        StringKind::Markdown => "markdown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_providers::NestedBlock;
    use terrace_value::Type;

    #[test]
    fn empty_document() {
        let none: BTreeMap<String, ProviderSchema> = BTreeMap::new();
        assert_eq!(render(&none), "{\"format_version\":\"1.0\"}\n");
    }

    #[test]
    fn fields_order_and_omission() {
        let nested = NestedAttributes {
            nesting: ObjectNesting::List,
            attributes: [(
                "inner".to_string(),
                Attribute {
                    required: true,
                    ..Attribute::new(Type::Number)
                },
            )]
            .into(),
        };
        let mut block = Block {
            description: "The <block>".into(),
            description_kind: StringKind::Markdown,
            deprecated: true,
            ..Block::default()
        };
        block.attributes.insert(
            "all_flags".into(),
            Attribute {
                description: "d".into(),
                deprecated: true,
                required: true,
                optional: true,
                computed: true,
                sensitive: true,
                write_only: true,
                ..Attribute::new(Type::object_with_optional(
                    [("a".to_string(), Type::String)].into_iter().collect(),
                    ["a".to_string()].into_iter().collect(),
                ))
            },
        );
        block.attributes.insert(
            "nested".into(),
            Attribute {
                optional: true,
                ..Attribute::nested(nested)
            },
        );
        block.block_types.insert(
            "b".into(),
            NestedBlock {
                nesting: NestingMode::List,
                block: Block::default(),
                min_items: 1,
                max_items: 0,
            },
        );
        let schema = ProviderSchema {
            provider: Schema {
                version: 0,
                block: Block::default(),
            },
            resource_types: [("t_r".to_string(), Schema { version: 2, block })].into(),
            functions: [(
                "f".to_string(),
                FunctionSpec {
                    parameters: vec![FunctionParameter {
                        name: "p".into(),
                        ty: Type::list(Type::String),
                        allow_null_value: true,
                        allow_unknown_values: true,
                        description: String::new(),
                        description_kind: StringKind::Plain,
                    }],
                    variadic_parameter: Some(FunctionParameter {
                        name: "rest".into(),
                        ty: Type::Dynamic,
                        allow_null_value: false,
                        allow_unknown_values: false,
                        description: "more".into(),
                        description_kind: StringKind::Plain,
                    }),
                    return_type: Type::Bool,
                    summary: String::new(),
                    description: "does f".into(),
                    description_kind: StringKind::Plain,
                    deprecation_message: String::new(),
                },
            )]
            .into(),
            ..ProviderSchema::default()
        };
        let schemas: BTreeMap<String, ProviderSchema> =
            [("example.com/ns/t".to_string(), schema)].into();
        let want = concat!(
            r#"{"format_version":"1.0","provider_schemas":{"example.com/ns/t":{"#,
            r#""provider":{"version":0,"block":{"description_kind":"plain"}},"#,
            r#""resource_schemas":{"t_r":{"version":2,"block":{"attributes":{"#,
            r#""all_flags":{"type":["object",{"a":"string"},["a"]],"description":"d","#,
            r#""description_kind":"plain","deprecated":true,"required":true,"optional":true,"#,
            r#""computed":true,"sensitive":true,"write_only":true},"#,
            r#""nested":{"nested_type":{"attributes":{"inner":{"type":"number","#,
            r#""description_kind":"plain","required":true}},"nesting_mode":"list"},"#,
            r#""description_kind":"plain","optional":true}},"#,
            r#""block_types":{"b":{"nesting_mode":"list","block":{"description_kind":"plain"},"#,
            r#""min_items":1}},"description":"The \u003cblock\u003e","#,
            r#""description_kind":"markdown","deprecated":true}}},"#,
            r#""functions":{"f":{"description":"does f","return_type":"bool","#,
            r#""parameters":[{"name":"p","is_nullable":true,"type":["list","string"]}],"#,
            r#""variadic_parameter":{"name":"rest","description":"more","type":"dynamic"}}}}}}"#,
            "\n"
        );
        assert_eq!(render(&schemas), want);
    }
}
