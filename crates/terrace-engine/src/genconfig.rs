//! The configuration `plan -generate-config-out` writes for an imported
//! object, from its state and its resource type's schema, by terraform's
//! rules: arguments (required and optional attributes, in name order, the
//! computed-only ones left out) with the state's values, a null optional
//! attribute written as `null`, an empty optional string as `null`, a
//! sensitive one as `null # sensitive`, a string holding a JSON object or
//! array as `jsonencode(...)`; nested blocks from the state's blocks; the
//! `provider` argument when the import names another provider
//! configuration than the type implies. Laid out as `hclwrite` lays it out.

use terrace_lang::funcs::special::hclwrite::value_syntax;
use terrace_providers::schema::{Attribute, AttributeType, Block, NestingMode};
use terrace_value::{Type, Value};

/// The body of the resource block (the arguments and blocks, without the
/// braces), and the provider reference to write first, if any.
pub fn resource_body(block: &Block, state: &Value, provider_ref: Option<&str>) -> String {
    let mut out = String::new();
    if let Some(provider) = provider_ref {
        out.push_str(&format!("  provider = {provider}\n"));
    }
    write_attributes(&mut out, block, state, 2);
    write_blocks(&mut out, block, state, 2);
    out
}

/// `resource "TYPE" "NAME" { ... }`, laid out.
pub fn resource_block(type_name: &str, name: &str, body: &str) -> String {
    let text = format!(
        "resource {} {} {{\n{body}}}",
        quoted(type_name),
        quoted(name)
    );
    terrace_syntax::format::format_tokens_only(&text)
}

fn quoted(text: &str) -> String {
    value_syntax(&Value::string(text)).unwrap_or_else(|| format!("{text:?}"))
}

fn attribute_of<'v>(state: &'v Value, name: &str) -> Option<&'v Value> {
    if state.is_null() {
        return None;
    }
    state.as_attributes().and_then(|a| a.get(name))
}

fn name_syntax(name: &str) -> String {
    if terrace_lang::eval::valid_identifier(name) {
        name.to_string()
    } else {
        quoted(name)
    }
}

fn write_attributes(out: &mut String, block: &Block, state: &Value, indent: usize) {
    for (name, attribute) in &block.attributes {
        if !(attribute.required || attribute.optional) {
            continue;
        }
        let value = attribute_of(state, name)
            .cloned()
            .unwrap_or_else(|| Value::null(attribute.implied_type()));
        let pad = " ".repeat(indent);
        if let AttributeType::Nested(_) = &attribute.ty {
            if attribute.sensitive || value.marks().is_sensitive() {
                out.push_str(&format!("{pad}{} = null # sensitive\n", name_syntax(name)));
            } else {
                out.push_str(&format!(
                    "{pad}{} = {}\n",
                    name_syntax(name),
                    value_text(&value, attribute)
                ));
            }
            continue;
        }
        if attribute.sensitive || value.marks().is_sensitive() {
            out.push_str(&format!("{pad}{} = null # sensitive\n", name_syntax(name)));
            continue;
        }
        out.push_str(&format!(
            "{pad}{} = {}\n",
            name_syntax(name),
            value_text(&value, attribute)
        ));
    }
}

/// An attribute's value as syntax: strings holding JSON objects or arrays
/// as `jsonencode(...)`, an empty optional string as `null`.
fn value_text(value: &Value, attribute: &Attribute) -> String {
    let (plain, _) = value.clone().unmark_deep();
    if let Some(text) = plain.as_str() {
        if text.is_empty() && attribute.optional {
            return "null".into();
        }
        if let Some(decoded) = json_structure(text) {
            if let Some(inner) = value_syntax(&decoded) {
                return format!("jsonencode({inner})");
            }
        }
    }
    value_syntax(&plain).unwrap_or_else(|| "null".into())
}

/// The value of a string that is a JSON object or array.
fn json_structure(text: &str) -> Option<Value> {
    let trimmed = text.trim_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    let jsondecode = terrace_lang::funcs::builtins().get("jsondecode")?;
    let decoded = terrace_lang::funcs::call::call_function(
        jsondecode,
        vec![Value::string(text)],
        &terrace_lang::funcs::CallContext::default(),
    )
    .ok()?;
    matches!(
        decoded.ty(),
        Type::Object(_) | Type::Tuple(_) | Type::Map(_) | Type::List(_)
    )
    .then_some(decoded)
}

fn write_blocks(out: &mut String, block: &Block, state: &Value, indent: usize) {
    let pad = " ".repeat(indent);
    for (name, nested) in &block.block_types {
        let Some(value) = attribute_of(state, name) else {
            continue;
        };
        let sensitive = value.marks().is_sensitive();
        match nested.nesting {
            NestingMode::Single | NestingMode::Group => {
                if value.is_null() {
                    continue;
                }
                if sensitive {
                    out.push_str(&format!("{pad}{name} {{}} # sensitive\n"));
                    continue;
                }
                out.push_str(&format!("{pad}{name} {{\n"));
                write_attributes(out, &nested.block, value, indent + 2);
                write_blocks(out, &nested.block, value, indent + 2);
                out.push_str(&format!("{pad}}}\n"));
            }
            NestingMode::List | NestingMode::Set => {
                if sensitive {
                    out.push_str(&format!("{pad}{name} {{}} # sensitive\n"));
                    continue;
                }
                for element in value.as_elements().unwrap_or_default() {
                    out.push_str(&format!("{pad}{name} {{\n"));
                    write_attributes(out, &nested.block, element, indent + 2);
                    write_blocks(out, &nested.block, element, indent + 2);
                    out.push_str(&format!("{pad}}}\n"));
                }
            }
            NestingMode::Map => {
                if sensitive {
                    out.push_str(&format!("{pad}{name} {{}} # sensitive\n"));
                    continue;
                }
                let Some(entries) = value.as_attributes() else {
                    continue;
                };
                for (key, element) in entries {
                    out.push_str(&format!("{pad}{name} {} {{\n", quoted(key)));
                    write_attributes(out, &nested.block, element, indent + 2);
                    write_blocks(out, &nested.block, element, indent + 2);
                    out.push_str(&format!("{pad}}}\n"));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn attribute(required: bool, optional: bool, computed: bool, ty: Type) -> Attribute {
        Attribute {
            ty: AttributeType::Type(ty),
            description: String::new(),
            description_kind: Default::default(),
            required,
            optional,
            computed,
            sensitive: false,
            deprecated: false,
            write_only: false,
        }
    }

    #[test]
    fn arguments_come_from_the_state_and_computed_ones_are_left_out() {
        let mut attributes = BTreeMap::new();
        attributes.insert("key".into(), attribute(true, false, false, Type::String));
        attributes.insert("value".into(), attribute(true, false, false, Type::String));
        attributes.insert(
            "tags".into(),
            attribute(false, true, false, Type::map(Type::String)),
        );
        attributes.insert("note".into(), attribute(false, true, false, Type::String));
        attributes.insert("id".into(), attribute(false, false, true, Type::String));
        attributes.insert("policy".into(), attribute(false, true, false, Type::String));
        let block = Block {
            attributes,
            block_types: BTreeMap::new(),
            description: String::new(),
            description_kind: Default::default(),
            deprecated: false,
        };
        let state = Value::object(
            [
                ("id", Value::string("ns/k")),
                ("key", Value::string("k")),
                ("note", Value::string("")),
                ("policy", Value::string("{\"a\":[1,2]}")),
                ("tags", Value::null(Type::map(Type::String))),
                ("value", Value::string("line \"1\"\nline ${2}")),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        );
        let body = resource_body(&block, &state, None);
        assert_eq!(
            resource_block("kv_entry", "k", &body),
            // A value over several lines ends a run of aligned equals signs.
            "resource \"kv_entry\" \"k\" {\n  key  = \"k\"\n  note = null\n  policy = jsonencode({\n    a = [1, 2]\n  })\n  tags  = null\n  value = \"line \\\"1\\\"\\nline $${2}\"\n}"
        );
    }
}
