//! Values in HCL-like syntax as Terraform prints output values after
//! `apply` (the console's formatter): quoted strings, heredocs for
//! multi-line strings, `tolist(...)`/`toset(...)`/`tomap(...)` around
//! collections, typed nulls, two-space indentation.

use terrace_value::{Type, Value};

pub(crate) fn format_value(v: &Value, indent: usize) -> String {
    if !v.is_known() {
        return "(known after apply)".to_string();
    }
    if v.marks().is_sensitive() {
        return "(sensitive value)".to_string();
    }
    if v.marks().is_ephemeral() {
        return "(ephemeral value)".to_string();
    }
    if v.is_null() {
        return format_null(v.ty());
    }
    match v.ty() {
        Type::String => {
            let s = v.as_str().unwrap_or_default();
            format_multiline(s, indent).unwrap_or_else(|| terrace_value::gostr::quote(s))
        }
        Type::Number => v.as_number().map(|n| n.text('f', -1)).unwrap_or_default(),
        Type::Bool => {
            if v.as_bool().unwrap_or(false) {
                "true".to_string()
            } else {
                "false".to_string()
            }
        }
        Type::Object(_) => format_mapping(v, indent),
        Type::Tuple(_) => format_sequence(v, indent),
        Type::List(_) => format!("tolist({})", format_sequence(v, indent)),
        Type::Set(_) => format!("toset({})", format_sequence(v, indent)),
        Type::Map(_) => format!("tomap({})", format_mapping(v, indent)),
        Type::Dynamic => "null".to_string(),
    }
}

fn format_null(ty: &Type) -> String {
    match ty {
        Type::Dynamic => "null".to_string(),
        Type::String => "tostring(null)".to_string(),
        Type::Number => "tonumber(null)".to_string(),
        Type::Bool => "tobool(null)".to_string(),
        Type::List(e) => format!("tolist(null) /* of {} */", e.friendly_name()),
        Type::Set(e) => format!("toset(null) /* of {} */", e.friendly_name()),
        Type::Map(e) => format!("tomap(null) /* of {} */", e.friendly_name()),
        other => format!("null /* {} */", other.friendly_name()),
    }
}

fn format_multiline(s: &str, indent: usize) -> Option<String> {
    let lines: Vec<&str> = s.split('\n').collect();
    if lines.len() < 2 {
        return None;
    }
    let operator = if indent > 0 { "<<-" } else { "<<" };
    let mut delimiter = "EOT".to_string();
    while lines
        .iter()
        .any(|l| crate::render::go_trim_space(l) == delimiter)
    {
        delimiter.push('_');
    }
    let pad = " ".repeat(indent);
    let mut buf = format!("{operator}{delimiter}");
    for line in lines {
        buf.push('\n');
        buf.push_str(&pad);
        buf.push_str(line);
    }
    buf.push('\n');
    buf.push_str(&pad);
    buf.push_str(&delimiter);
    Some(buf)
}

fn format_mapping(v: &Value, indent: usize) -> String {
    let mut buf = String::from("{");
    let inner = indent + 2;
    let mut count = 0;
    if let Some(attrs) = v.as_attributes() {
        for (k, e) in attrs.iter() {
            count += 1;
            buf.push('\n');
            buf.push_str(&" ".repeat(inner));
            buf.push_str(&format_value(&Value::string(k), inner));
            buf.push_str(" = ");
            buf.push_str(&format_value(e, inner));
        }
    }
    if count > 0 {
        buf.push('\n');
        buf.push_str(&" ".repeat(indent));
    }
    buf.push('}');
    buf
}

fn format_sequence(v: &Value, indent: usize) -> String {
    let mut buf = String::from("[");
    let inner = indent + 2;
    let mut count = 0;
    for e in v.as_elements().unwrap_or_default() {
        count += 1;
        buf.push('\n');
        buf.push_str(&" ".repeat(inner));
        buf.push_str(&format_value(e, inner));
        buf.push(',');
    }
    if count > 0 {
        buf.push('\n');
        buf.push_str(&" ".repeat(indent));
    }
    buf.push(']');
    buf
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use terrace_value::Marks;

    #[test]
    fn formats_like_terraform_outputs() {
        let obj = Value::object(BTreeMap::from([
            (
                "a".to_string(),
                Value::tuple(vec![Value::int(1), Value::string("x\ny")]),
            ),
            (
                "m".to_string(),
                Value::map(
                    Type::String,
                    BTreeMap::from([("k".to_string(), Value::string("v"))]),
                ),
            ),
        ]));
        assert_eq!(
            format_value(&obj, 0),
            "{\n  \"a\" = [\n    1,\n    <<-EOT\n    x\n    y\n    EOT,\n  ]\n  \"m\" = tomap({\n    \"k\" = \"v\"\n  })\n}"
        );
        let cases = [
            (Value::string("EOT\nx"), "<<EOT_\nEOT\nx\nEOT_"),
            (
                Value::null(Type::list(Type::String)),
                "tolist(null) /* of string */",
            ),
            (
                Value::string("s").mark(Marks::SENSITIVE),
                "(sensitive value)",
            ),
            (Value::unknown(Type::String), "(known after apply)"),
            (Value::set(Type::Number, vec![]), "toset([])"),
        ];
        for (v, want) in cases {
            assert_eq!(format_value(&v, 0), want);
        }
    }
}
