//! Values written back as HCL native syntax, spaced, indented and aligned
//! exactly as HCL's `hclwrite` package does (`TokensForValue` followed by
//! its formatter), for the `provider::terraform::encode_*` functions.

use crate::eval::valid_identifier;
use terrace_value::gostr;
use terrace_value::{Type, Value};
use unicode_segmentation::UnicodeSegmentation;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Ident,
    Number,
    OQuote,
    QuotedLit,
    CQuote,
    OBrack,
    CBrack,
    OBrace,
    CBrace,
    Comma,
    Equal,
    Newline,
}

#[derive(Clone, Debug)]
pub(crate) struct Token {
    kind: Kind,
    text: String,
    spaces_before: usize,
}

impl Token {
    fn new(kind: Kind, text: impl Into<String>) -> Token {
        Token {
            kind,
            text: text.into(),
            spaces_before: 0,
        }
    }

    fn bracket_change(&self) -> i32 {
        match self.kind {
            Kind::OBrace | Kind::OBrack => 1,
            Kind::CBrace | Kind::CBrack => -1,
            _ => 0,
        }
    }

    fn columns(&self) -> usize {
        self.spaces_before + self.text.graphemes(true).count()
    }
}

/// hclwrite's `TokensForValue` before formatting. `None` for values with
/// unknown parts, which have no syntax.
pub(crate) fn tokens_for_value(value: &Value, out: &mut Vec<Token>) -> Option<()> {
    if !value.is_known() {
        return None;
    }
    if value.is_null() {
        out.push(Token::new(Kind::Ident, "null"));
        return Some(());
    }
    match value.ty() {
        Type::Bool => out.push(Token::new(
            Kind::Ident,
            if value.as_bool()? { "true" } else { "false" },
        )),
        Type::Number => out.push(Token::new(Kind::Number, value.as_number()?.text('f', -1))),
        Type::String => push_string(value.as_str()?, out),
        Type::List(_) | Type::Set(_) | Type::Tuple(_) => {
            out.push(Token::new(Kind::OBrack, "["));
            for (i, e) in value.as_elements()?.iter().enumerate() {
                if i > 0 {
                    out.push(Token::new(Kind::Comma, ","));
                }
                tokens_for_value(e, out)?;
            }
            out.push(Token::new(Kind::CBrack, "]"));
        }
        Type::Map(_) | Type::Object(_) => {
            let attrs = value.as_attributes()?;
            out.push(Token::new(Kind::OBrace, "{"));
            if !attrs.is_empty() {
                out.push(Token::new(Kind::Newline, "\n"));
            }
            for (k, v) in attrs {
                if valid_identifier(k) {
                    out.push(Token::new(Kind::Ident, k.as_str()));
                } else {
                    push_string(k, out);
                }
                out.push(Token::new(Kind::Equal, "="));
                tokens_for_value(v, out)?;
                out.push(Token::new(Kind::Newline, "\n"));
            }
            out.push(Token::new(Kind::CBrace, "}"));
        }
        Type::Dynamic => return None,
    }
    Some(())
}

fn push_string(s: &str, out: &mut Vec<Token>) {
    out.push(Token::new(Kind::OQuote, "\""));
    let escaped = escape_quoted(s);
    if !escaped.is_empty() {
        out.push(Token::new(Kind::QuotedLit, escaped));
    }
    out.push(Token::new(Kind::CQuote, "\""));
}

/// hclwrite's `escapeQuotedStringLit`: template introducers are doubled so
/// the text reads back as the same literal string.
fn escape_quoted(s: &str) -> String {
    let mut buf = String::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        match c {
            '\n' => buf.push_str("\\n"),
            '\r' => buf.push_str("\\r"),
            '\t' => buf.push_str("\\t"),
            '"' => buf.push_str("\\\""),
            '\\' => buf.push_str("\\\\"),
            '$' | '%' => {
                buf.push(c);
                if s[i + 1..].starts_with('{') {
                    buf.push(c);
                }
            }
            c if !gostr::is_print(c) => {
                if (c as u32) < 0x10000 {
                    buf.push_str(&format!("\\u{:04x}", c as u32));
                } else {
                    buf.push_str(&format!("\\U{:08x}", c as u32));
                }
            }
            c => buf.push(c),
        }
    }
    buf
}

/// A line split as hclwrite's formatter sees it: the tokens before an `=`
/// that starts a bracket-balanced assignment, and that assignment.
struct Line {
    lead: std::ops::Range<usize>,
    assign: Option<std::ops::Range<usize>>,
}

fn columns(tokens: &[Token], range: &std::ops::Range<usize>) -> usize {
    tokens[range.clone()].iter().map(Token::columns).sum()
}

/// hclwrite's `format`: indentation by bracket nesting, canonical spaces
/// between tokens, and `=` aligned across consecutive assignment lines.
pub(crate) fn format(tokens: &mut [Token]) {
    let mut lines = Vec::new();
    let mut start = 0;
    for (i, t) in tokens.iter().enumerate() {
        if t.kind == Kind::Newline {
            lines.push(Line {
                lead: start..i + 1,
                assign: None,
            });
            start = i + 1;
        }
    }
    if start < tokens.len() {
        lines.push(Line {
            lead: start..tokens.len(),
            assign: None,
        });
    }
    for line in &mut lines {
        let lead = line.lead.clone();
        if let Some(eq) = lead
            .clone()
            .skip(1)
            .find(|&i| tokens[i].kind == Kind::Equal)
        {
            let net: i32 = tokens[eq..lead.end].iter().map(Token::bracket_change).sum();
            if net == 0 {
                line.assign = Some(eq..lead.end);
                line.lead = lead.start..eq;
            }
        }
    }

    // indentation
    let mut indents: Vec<i32> = Vec::new();
    for line in &lines {
        if line.lead.is_empty() {
            continue;
        }
        let first = line.lead.start;
        if tokens[first].kind == Kind::Newline {
            tokens[first].spaces_before = 0;
            continue;
        }
        let mut net: i32 = tokens[line.lead.clone()]
            .iter()
            .map(Token::bracket_change)
            .sum();
        if let Some(a) = &line.assign {
            net += tokens[a.clone()]
                .iter()
                .map(Token::bracket_change)
                .sum::<i32>();
        }
        if net > 0 {
            tokens[first].spaces_before = 2 * indents.len();
            indents.push(net);
        } else {
            let mut closed = -net;
            while closed > 0 {
                let Some(top) = indents.last_mut() else { break };
                if closed > *top {
                    closed -= *top;
                    indents.pop();
                } else if closed < *top {
                    *top -= closed;
                    closed = 0;
                } else {
                    indents.pop();
                    closed = 0;
                }
            }
            tokens[first].spaces_before = 2 * indents.len();
        }
    }

    // spaces
    for line in &lines {
        space_run(tokens, line.lead.clone(), false);
        if let Some(a) = &line.assign {
            space_run(tokens, a.clone(), true);
        }
    }

    // alignment of `=`
    let mut chain: Vec<usize> = Vec::new();
    let mut max = 0;
    let close = |chain: &mut Vec<usize>, max: &mut usize, tokens: &mut [Token], lines: &[Line]| {
        for &li in chain.iter() {
            let line = &lines[li];
            if let Some(a) = &line.assign {
                tokens[a.start].spaces_before = *max - columns(tokens, &line.lead) + 1;
            }
        }
        chain.clear();
        *max = 0;
    };
    for (li, line) in lines.iter().enumerate() {
        if line.assign.is_none() {
            if !chain.is_empty() {
                close(&mut chain, &mut max, tokens, &lines);
            }
        } else {
            chain.push(li);
            max = max.max(columns(tokens, &line.lead));
        }
    }
    if !chain.is_empty() {
        close(&mut chain, &mut max, tokens, &lines);
    }
}

fn space_run(tokens: &mut [Token], range: std::ops::Range<usize>, is_assign: bool) {
    if is_assign && !range.is_empty() {
        tokens[range.start].spaces_before = 1;
    }
    for i in range.start..range.end.saturating_sub(1) {
        let space = space_after(&tokens[i], &tokens[i + 1]);
        tokens[i + 1].spaces_before = usize::from(space);
    }
}

/// The subset of hclwrite's `spaceAfterToken` that value syntax can reach.
fn space_after(subject: &Token, after: &Token) -> bool {
    use Kind::*;
    match () {
        _ if after.kind == Newline => false,
        _ if after.kind == Comma => false,
        _ if subject.kind == Comma => true,
        _ if matches!(subject.kind, QuotedLit | OQuote)
            || matches!(after.kind, QuotedLit | CQuote) =>
        {
            false
        }
        _ if after.kind == OBrack
            && (matches!(subject.kind, Ident | Number) || subject.bracket_change() < 0) =>
        {
            false
        }
        _ if subject.kind == OBrace || after.kind == CBrace => {
            !(subject.kind == OBrace && after.kind == CBrace)
        }
        _ if subject.bracket_change() > 0 => false,
        _ if after.bracket_change() < 0 => false,
        _ => true,
    }
}

pub(crate) fn to_text(tokens: &[Token]) -> String {
    let mut s = String::new();
    for t in tokens {
        s.extend(std::iter::repeat_n(' ', t.spaces_before));
        s.push_str(&t.text);
    }
    s
}

/// `value` as a formatted HCL expression; `None` if it is not wholly
/// known.
pub(crate) fn expression_text(value: &Value) -> Option<String> {
    let mut tokens = Vec::new();
    tokens_for_value(value, &mut tokens)?;
    format(&mut tokens);
    Some(to_text(&tokens))
}

/// A `.tfvars` body assigning each attribute of `values` (already checked
/// to be valid names).
pub(crate) fn tfvars_text(values: &[(&str, &Value)]) -> Option<String> {
    let mut tokens = Vec::new();
    for (name, value) in values {
        tokens.push(Token::new(Kind::Ident, *name));
        tokens.push(Token::new(Kind::Equal, "="));
        tokens_for_value(value, &mut tokens)?;
        tokens.push(Token::new(Kind::Newline, "\n"));
    }
    format(&mut tokens);
    Some(to_text(&tokens))
}

/// A value as HCL native syntax, as `TokensForValue` writes it, before
/// layout (run the result through the formatter): tokens separated by one
/// space, strings kept whole. `None` for values with unknown parts.
pub fn value_syntax(value: &Value) -> Option<String> {
    let mut tokens = Vec::new();
    tokens_for_value(value, &mut tokens)?;
    let mut out = String::new();
    for token in &tokens {
        match token.kind {
            Kind::Newline => out.push('\n'),
            Kind::OQuote => out.push('"'),
            Kind::QuotedLit => out.push_str(&token.text),
            _ => {
                out.push_str(&token.text);
                out.push(' ');
            }
        }
    }
    Some(out.trim_end().to_string())
}
