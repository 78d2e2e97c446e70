//! Go's string quoting (`strconv.Quote`, `fmt`'s `%q`), which cty and HCL
//! use in set hashing (so it decides set order for structured elements) and
//! in error messages such as `attribute "a" is required`.

use unicode_general_category::{get_general_category, GeneralCategory};

/// Go's `strconv.IsPrint`: letters, marks, numbers, punctuation, symbols and
/// the ASCII space.
pub fn is_print(c: char) -> bool {
    if (c as u32) < 0x80 {
        return (' '..='~').contains(&c);
    }
    use GeneralCategory::*;
    !matches!(
        get_general_category(c),
        Control
            | Format
            | Surrogate
            | PrivateUse
            | Unassigned
            | SpaceSeparator
            | LineSeparator
            | ParagraphSeparator
    )
}

/// Go's `strconv.Quote`: a double-quoted string literal with Go escapes,
/// keeping printable non-ASCII characters as they are.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        push_escaped(&mut out, c, '"');
    }
    out.push('"');
    out
}

/// Go's `strconv.QuoteRune` (and `%q` of a rune): a single-quoted character
/// literal, where `'` is escaped and `"` is not.
pub fn quote_rune(c: char) -> String {
    let mut out = String::with_capacity(8);
    out.push('\'');
    push_escaped(&mut out, c, '\'');
    out.push('\'');
    out
}

/// Appends `c` as it appears inside a Go literal delimited by `delimiter`.
fn push_escaped(out: &mut String, c: char, delimiter: char) {
    match c {
        c if c == delimiter || c == '\\' => {
            out.push('\\');
            out.push(c);
        }
        '\u{7}' => out.push_str("\\a"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{b}' => out.push_str("\\v"),
        c if is_print(c) => out.push(c),
        c if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\x{:02x}", c as u32)),
        c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
        c => out.push_str(&format!("\\U{:08x}", c as u32)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_like_go() {
        let cases: &[(&str, &str)] = &[
            ("", r#""""#),
            ("abc", r#""abc""#),
            ("a\"b", r#""a\"b""#),
            ("a\\b", r#""a\\b""#),
            ("tab\there", r#""tab\there""#),
            ("nl\n", r#""nl\n""#),
            ("\u{7}\u{8}\u{c}\r\u{b}", r#""\a\b\f\r\v""#),
            ("\u{1b}", r#""\x1b""#),
            ("\u{7f}", r#""\x7f""#),
            ("héllo", "\"héllo\""),
            ("日本", "\"日本\""),
            ("\u{ad}", r#""\u00ad""#),
            ("\u{a0}", r#""\u00a0""#),
            ("\u{200b}", r#""\u200b""#),
            ("\u{2028}", r#""\u2028""#),
            ("\u{e000}", r#""\ue000""#),
            ("\u{f0000}", r#""\U000f0000""#),
            ("🙂", "\"🙂\""),
            // Categories Go leaves unprintable that a whitespace/control
            // test would miss: other spaces, format characters, unassigned.
            ("\u{3000}\u{2000}", r#""\u3000\u2000""#),
            ("\u{600}\u{e0001}", r#""\u0600\U000e0001""#),
            ("\u{378}", r#""\u0378""#),
            ("'", r#""'""#),
        ];
        for (input, want) in cases {
            assert_eq!(quote(input), *want, "quote({input:?})");
        }
    }

    #[test]
    fn quotes_runes_like_go() {
        let cases: &[(char, &str)] = &[
            ('!', "'!'"),
            ('\'', r"'\''"),
            ('"', "'\"'"),
            ('\\', r"'\\'"),
            ('\n', r"'\n'"),
            ('\u{0}', r"'\x00'"),
            ('é', "'é'"),
            ('\u{feff}', r"'\ufeff'"),
            ('\u{10ffff}', r"'\U0010ffff'"),
        ];
        for (input, want) in cases {
            assert_eq!(quote_rune(*input), *want, "quote_rune({input:?})");
        }
    }
}
