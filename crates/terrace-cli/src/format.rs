//! Values rendered as `terraform console` prints them: language-like syntax
//! with the conversion function that names each collection's type
//! (`tolist([...])`, `tomap({...})`), typed nulls (`tostring(null)`),
//! heredocs for multi-line strings, and placeholders for unknown, sensitive
//! and ephemeral values. Strings are quoted as Go's `strconv.Quote` does
//! (`terrace_value::gostr`), because that is what Terraform users see.

use terrace_value::gostr;
use terrace_value::{Marks, Type, Value};

pub fn format_value(value: &Value, indent: usize) -> String {
    let mut out = String::new();
    write_value(&mut out, value, indent);
    out
}

fn write_value(out: &mut String, value: &Value, indent: usize) {
    if !value.is_known() {
        out.push_str("(known after apply)");
        return;
    }
    if value.marks().contains(Marks::SENSITIVE) {
        out.push_str("(sensitive value)");
        return;
    }
    if value.marks().contains(Marks::EPHEMERAL) {
        out.push_str("(ephemeral value)");
        return;
    }
    if value.is_null() {
        write_null(out, value.ty());
        return;
    }
    match value.ty() {
        Type::String => {
            let text = value.as_str().unwrap_or_default();
            if !write_multiline_string(out, text, indent) {
                out.push_str(&gostr::quote(text));
            }
        }
        Type::Number => {
            if let Some(n) = value.as_number() {
                out.push_str(&n.to_string());
            }
        }
        Type::Bool => out.push_str(if value.as_bool() == Some(true) {
            "true"
        } else {
            "false"
        }),
        Type::Object(_) => write_mapping(out, value, indent),
        Type::Tuple(_) => write_sequence(out, value, indent),
        Type::List(_) => {
            out.push_str("tolist(");
            write_sequence(out, value, indent);
            out.push(')');
        }
        Type::Set(_) => {
            out.push_str("toset(");
            write_sequence(out, value, indent);
            out.push(')');
        }
        Type::Map(_) => {
            out.push_str("tomap(");
            write_mapping(out, value, indent);
            out.push(')');
        }
        // A known value never has the dynamic type.
        Type::Dynamic => out.push_str("null"),
    }
}

fn write_null(out: &mut String, ty: &Type) {
    match ty {
        Type::Dynamic => out.push_str("null"),
        Type::String => out.push_str("tostring(null)"),
        Type::Number => out.push_str("tonumber(null)"),
        Type::Bool => out.push_str("tobool(null)"),
        Type::List(e) => out.push_str(&format!("tolist(null) /* of {} */", e.friendly_name())),
        Type::Set(e) => out.push_str(&format!("toset(null) /* of {} */", e.friendly_name())),
        Type::Map(e) => out.push_str(&format!("tomap(null) /* of {} */", e.friendly_name())),
        other => out.push_str(&format!("null /* {} */", other.friendly_name())),
    }
}

/// Writes a string of two or more lines as a heredoc whose delimiter does
/// not clash with any line; returns false for single-line strings.
fn write_multiline_string(out: &mut String, text: &str, indent: usize) -> bool {
    let lines: Vec<&str> = text.split('\n').collect();
    if lines.len() < 2 {
        return false;
    }
    let mut delimiter = String::from("EOT");
    while lines
        .iter()
        .any(|line| line.trim_matches(is_go_space) == delimiter)
    {
        delimiter.push('_');
    }
    out.push_str(if indent > 0 { "<<-" } else { "<<" });
    out.push_str(&delimiter);
    for line in &lines {
        out.push('\n');
        push_spaces(out, indent);
        out.push_str(line);
    }
    out.push('\n');
    push_spaces(out, indent);
    out.push_str(&delimiter);
    true
}

/// Go's `strings.TrimSpace` notion of white space (`unicode.IsSpace`).
fn is_go_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{85}' | '\u{A0}'
    ) || (c as u32 > 0xFF && c.is_whitespace())
}

fn write_mapping(out: &mut String, value: &Value, indent: usize) {
    out.push('{');
    let inner = indent + 2;
    let mut count = 0;
    if let Some(attributes) = value.as_attributes() {
        for (key, element) in attributes.iter() {
            count += 1;
            out.push('\n');
            push_spaces(out, inner);
            write_value(out, &Value::string(key), inner);
            out.push_str(" = ");
            write_value(out, element, inner);
        }
    }
    if count > 0 {
        out.push('\n');
        push_spaces(out, indent);
    }
    out.push('}');
}

fn write_sequence(out: &mut String, value: &Value, indent: usize) {
    out.push('[');
    let inner = indent + 2;
    let elements = value.as_elements().unwrap_or_default();
    for element in elements {
        out.push('\n');
        push_spaces(out, inner);
        write_value(out, element, inner);
        out.push(',');
    }
    if !elements.is_empty() {
        out.push('\n');
        push_spaces(out, indent);
    }
    out.push(']');
}

fn push_spaces(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quoted(s: &str) -> String {
        gostr::quote(s)
    }

    #[test]
    fn quotes_like_go() {
        // Expectations from `terraform console` on this machine.
        for (input, expected) in [
            ("🤷🏽\u{200d}♂️", "\"🤷🏽\\u200d♂️\""),
            ("a\u{a0}b", "\"a\\u00a0b\""),
            ("\u{07}x\u{7f}", "\"\\ax\\x7f\""),
            ("tab\there", "\"tab\\there\""),
            ("\u{2028}", "\"\\u2028\""),
            ("\u{e000}", "\"\\ue000\""),
            ("\u{10ffff}", "\"\\U0010ffff\""),
            ("é", "\"é\""),
            ("say \"hi\" \\", "\"say \\\"hi\\\" \\\\\""),
        ] {
            assert_eq!(quoted(input), expected, "input {input:?}");
        }
    }

    #[test]
    fn heredoc_delimiter_avoids_clashes() {
        let mut out = String::new();
        assert!(write_multiline_string(&mut out, "a\n EOT \nb", 0));
        assert_eq!(out, "<<EOT_\na\n EOT \nb\nEOT_");
        let mut out = String::new();
        assert!(!write_multiline_string(&mut out, "one line", 0));
    }
}
