use super::*;
use crate::parse_native_file;

fn formatted(text: &str) -> String {
    let (file, diags) = parse_native_file("test.tf", text);
    assert!(!crate::diagnostic::has_errors(&diags), "{diags:?}");
    format_configuration(text, &file)
}

#[test]
fn aligns_equals_and_comments_of_neighbouring_arguments() {
    assert_eq!(
        formatted("a=1 # one\nlong_name   =  2 # two\n\nb=3\n"),
        "a         = 1 # one\nlong_name = 2 # two\n\nb = 3\n"
    );
}

#[test]
fn splits_quoted_literals_where_hcl_scanner_does() {
    assert_eq!(quoted_literal_pieces("a$b"), ["a", "$", "b"]);
    assert_eq!(
        quoted_literal_pieces("x$${~y}%%{z"),
        ["x", "$${~", "y}", "%%{", "z"]
    );
    assert_eq!(quoted_literal_pieces("\\$\\%é"), ["\\$\\%é"]);
    assert_eq!(quoted_literal_pieces("100%"), ["100", "%"]);
}

#[test]
fn rewrites_labels_values_and_legacy_types() {
    assert_eq!(
        formatted("resource /*x*/ aws_instance \"b\\u0041\" /*z*/ {\n a=\"${var.x}\"\n}\n"),
        "resource \"aws_instance\" \"bA\" /*z*/ {\n  a = var.x\n}\n"
    );
    assert_eq!(
        formatted("variable \"x\" {\n type = \"map\"\n}\nvariable \"y\" {\n type = set\n}\n"),
        "variable \"x\" {\n  type = map(string)\n}\nvariable \"y\" {\n  type = set(any)\n}\n"
    );
    assert_eq!(
        formatted("resource \"a$b\" \"n\" {}\n"),
        "resource \"n\" {}\n"
    );
    assert_eq!(formatted("a = \"${\nb ? 1 : 2\n}\"\n"), "a = b ? 1 : 2\n");
    assert_eq!(formatted("a = \"${b ?\n1 : 2}\"\n"), "a = (b ?\n1 : 2)\n");
}

#[test]
fn keeps_blanks_before_the_end_of_input() {
    assert_eq!(format_tokens_only("a=1\n   "), "a = 1\n   ");
}
