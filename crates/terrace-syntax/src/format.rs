//! The canonical layout of native-syntax files, as `terraform fmt` writes it.
//!
//! Formatting works on tokens, not on the tree: every token keeps its text
//! and only the spaces before it change (HCL's `hclwrite` does the same, and
//! its rules are what users expect byte for byte). On top of that layout,
//! [`format_configuration`] applies the few rewrites `terraform fmt` makes to
//! a parsed file's arguments and block headers: an argument whose whole value
//! is one interpolation (`"${var.x}"`) loses the template wrapper; a
//! `variable` block's legacy quoted type (`"string"`) or bare collection
//! keyword (`map`) becomes a type constraint; block labels are written
//! quoted and escaped, dropping anything between them.
//!
//! The token stream is the native scanner's, with one adjustment: HCL's
//! scanner ends a quoted literal at every `$` and `%` (and keeps an escaped
//! `$${`/`%%{` as a token of its own), where ours keeps one literal run. The
//! pieces are split here because a block label survives the label rewrite
//! only when it is a single literal token.

use crate::ast::{Body, Expr, File, NativeBody};
use crate::lexer::{scan, ScanMode, Token, TokenKind};
use crate::pos::Span;
use std::borrow::Cow;
use std::ops::Range;
use unicode_segmentation::UnicodeSegmentation;

/// One token as the formatter sees it: its kind, its text and how many
/// spaces precede it. `source_start` is its offset in the input, or `None`
/// for a token a rewrite made.
#[derive(Clone, Debug)]
struct LayoutToken<'a> {
    kind: TokenKind,
    text: Cow<'a, str>,
    spaces_before: usize,
    source_start: Option<usize>,
}

impl<'a> LayoutToken<'a> {
    fn made(kind: TokenKind, text: impl Into<Cow<'a, str>>) -> LayoutToken<'a> {
        LayoutToken {
            kind,
            text: text.into(),
            spaces_before: 0,
            source_start: None,
        }
    }

    /// Screen columns: one per space before, one per grapheme cluster.
    fn columns(&self) -> usize {
        self.spaces_before + self.text.graphemes(true).count()
    }

    /// Single-line comments (`#`, `//`) end with the newline they consume.
    fn ends_line(&self) -> bool {
        match self.kind {
            TokenKind::Newline => true,
            TokenKind::Comment => self.text.ends_with('\n'),
            _ => false,
        }
    }

    fn bracket_change(&self) -> i64 {
        use TokenKind as K;
        match self.kind {
            K::OBrace | K::OBrack | K::OParen | K::TemplateControl | K::TemplateInterp => 1,
            K::CBrace | K::CBrack | K::CParen | K::TemplateSeqEnd => -1,
            _ => 0,
        }
    }
}

/// Lays out native-syntax source in the canonical style, changing only the
/// spaces between tokens (HCL's `hclwrite.Format`). Any text is accepted;
/// text that does not parse is laid out as well as its tokens allow.
pub fn format_tokens_only(text: &str) -> String {
    let mut tokens = layout_tokens(text);
    lay_out(&mut tokens);
    write_tokens(&tokens)
}

/// `terraform fmt`'s result for a parsed native-syntax file: the rewrites of
/// arguments and block labels, then the canonical layout. `file` must be the
/// error-free parse of `text`; a file with syntax errors is not formatted.
pub fn format_configuration(text: &str, file: &File) -> String {
    let mut tokens = layout_tokens(text);
    if let Body::Native(body) = &file.body {
        let mut edits = Vec::new();
        collect_body_edits(body, &tokens, &mut Vec::new(), &mut edits);
        // Edits never overlap (an argument's value holds no block header),
        // so applying them from the end keeps earlier indices valid.
        edits.sort_by_key(|edit| std::cmp::Reverse(edit.replace.start));
        for edit in edits {
            tokens.splice(edit.replace, edit.with);
        }
    }
    lay_out(&mut tokens);
    write_tokens(&tokens)
}

fn write_tokens(tokens: &[LayoutToken<'_>]) -> String {
    let mut out = String::with_capacity(tokens.iter().map(|t| t.text.len() + 1).sum());
    for token in tokens {
        out.extend(std::iter::repeat_n(' ', token.spaces_before));
        out.push_str(&token.text);
    }
    out
}

/// The scanner's tokens with the spaces before each (a tab counts as one:
/// the layout replaces every such gap anyway) and quoted literals split as
/// HCL's scanner splits them. Ends with the end-of-input token, whose spaces
/// (trailing blanks after the last newline) are kept as they are.
fn layout_tokens(text: &str) -> Vec<LayoutToken<'_>> {
    let scanned = scan(text, ScanMode::Normal);
    let mut tokens = Vec::with_capacity(scanned.len());
    let mut previous_end = 0usize;
    for Token { kind, start, end } in scanned {
        let (start, end) = (start as usize, end as usize);
        let spaces_before = start.saturating_sub(previous_end);
        previous_end = end;
        let token_text = text.get(start..end).unwrap_or("");
        if kind == TokenKind::QuotedLit {
            let mut spaces = spaces_before;
            let mut offset = start;
            for piece in quoted_literal_pieces(token_text) {
                tokens.push(LayoutToken {
                    kind,
                    text: Cow::Borrowed(piece),
                    spaces_before: spaces,
                    source_start: Some(offset),
                });
                spaces = 0;
                offset += piece.len();
            }
            continue;
        }
        tokens.push(LayoutToken {
            kind,
            text: Cow::Borrowed(token_text),
            spaces_before,
            source_start: Some(start),
        });
    }
    tokens
}

/// A quoted literal's text cut where HCL's scanner cuts it: a lone `$` or
/// `%`, an escaped template opener (`$${`, `%%{`, each with an optional
/// `~`), and runs of other characters and backslash escapes.
fn quoted_literal_pieces(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut pieces = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let b = bytes[start];
        let end = if b == b'$' || b == b'%' {
            if bytes.get(start + 1) == Some(&b) && bytes.get(start + 2) == Some(&b'{') {
                if bytes.get(start + 3) == Some(&b'~') {
                    start + 4
                } else {
                    start + 3
                }
            } else {
                start + 1
            }
        } else {
            let mut i = start;
            while i < bytes.len() {
                match bytes[i] {
                    b'$' | b'%' => break,
                    b'\\' => {
                        // The escaped character, whole (it may be multi-byte).
                        let escaped = text[i + 1..].chars().next().map_or(0, char::len_utf8);
                        i += 1 + escaped;
                    }
                    _ => i += 1,
                }
            }
            i.min(bytes.len())
        };
        pieces.push(&text[start..end]);
        start = end;
    }
    pieces
}

// ----- the rewrites `terraform fmt` makes to a parsed file -----

struct Edit<'a> {
    replace: Range<usize>,
    with: Vec<LayoutToken<'a>>,
}

/// The indices of the tokens that start inside `span` (HCL's partition of a
/// token sequence by a source range).
fn tokens_within(tokens: &[LayoutToken<'_>], span: Span) -> Range<usize> {
    let (start, end) = (span.start as usize, span.end as usize);
    let starts_at = |t: &LayoutToken<'_>| t.source_start.unwrap_or(usize::MAX);
    let first = tokens.partition_point(|t| starts_at(t) < start);
    let last = tokens.partition_point(|t| starts_at(t) < end);
    first..last.max(first)
}

fn collect_body_edits<'a>(
    body: &NativeBody,
    tokens: &[LayoutToken<'a>],
    in_blocks: &mut Vec<String>,
    edits: &mut Vec<Edit<'a>>,
) {
    for attribute in &body.attributes {
        let range = expression_tokens(&attribute.expr, tokens);
        let value = &tokens[range.clone()];
        let rewritten =
            if in_blocks.len() == 1 && in_blocks[0] == "variable" && attribute.name == "type" {
                legacy_type_constraint(value)
            } else {
                unwrapped_interpolation(value)
            };
        if let Some(with) = rewritten {
            edits.push(Edit {
                replace: range,
                with,
            });
        }
    }
    for block in &body.blocks {
        if let Some((_, last_label_span)) = block.labels.last() {
            let after_type = tokens_within(tokens, block.type_span).end;
            let labels_end = tokens_within(tokens, *last_label_span).end;
            let mut with = Vec::new();
            for (label, span) in &block.labels {
                let label_tokens = &tokens[tokens_within(tokens, *span)];
                if let Some(value) = simple_label_value(label_tokens, label) {
                    with.extend(quoted_label_tokens(value));
                }
            }
            edits.push(Edit {
                replace: after_type..labels_end.max(after_type),
                with,
            });
        }
        in_blocks.push(block.block_type.clone());
        if let Body::Native(inner) = &block.body {
            collect_body_edits(inner, tokens, in_blocks, edits);
        }
        in_blocks.pop();
    }
}

fn expression_tokens(expr: &Expr, tokens: &[LayoutToken<'_>]) -> Range<usize> {
    tokens_within(tokens, expr.span)
}

/// A label's value when hclwrite can read it back: a bare name, or a quoted
/// string that is one literal token (or empty). Labels of other shapes (a
/// `$` or `%` anywhere in a longer label) are dropped by the rewrite, as
/// `terraform fmt` drops them.
fn simple_label_value<'s>(label_tokens: &[LayoutToken<'_>], value: &'s str) -> Option<&'s str> {
    use TokenKind as K;
    let kinds: Vec<TokenKind> = label_tokens.iter().map(|t| t.kind).collect();
    match kinds.as_slice() {
        [K::Ident] | [K::OQuote, K::QuotedLit, K::CQuote] | [K::OQuote, K::CQuote] => Some(value),
        _ => None,
    }
}

/// A label written as a new quoted string: NFC-normalized (labels pass
/// through a string value) and escaped as HCL writes string literals.
fn quoted_label_tokens<'a>(value: &str) -> Vec<LayoutToken<'a>> {
    use unicode_normalization::UnicodeNormalization;
    let normalized: String = value.nfc().collect();
    let escaped = escape_quoted_string(&normalized);
    let mut out = vec![LayoutToken::made(TokenKind::OQuote, "\"")];
    if !escaped.is_empty() {
        out.push(LayoutToken::made(TokenKind::QuotedLit, escaped));
    }
    out.push(LayoutToken::made(TokenKind::CQuote, "\""));
    out
}

/// HCL's escaping of a string into quoted-literal text: the common control
/// characters by name, quotes and backslashes, template openers doubled,
/// anything else Go would not print as `\uXXXX` or `\UXXXXXXXX`.
fn escape_quoted_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '$' | '%' => {
                out.push(c);
                if chars.peek() == Some(&'{') {
                    out.push(c);
                }
            }
            c if terrace_value::gostr::is_print(c) => out.push(c),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out
}

/// `"${ expr }"` as an argument's whole value becomes `expr` (in parentheses
/// when it spans lines and is not already parenthesized), when the template
/// provably holds that one interpolation and nothing else.
fn unwrapped_interpolation<'a>(value: &[LayoutToken<'a>]) -> Option<Vec<LayoutToken<'a>>> {
    use TokenKind as K;
    if value.len() < 5 {
        return None;
    }
    let n = value.len();
    if value[0].kind != K::OQuote
        || value[1].kind != K::TemplateInterp
        || value[n - 2].kind != K::TemplateSeqEnd
        || value[n - 1].kind != K::CQuote
    {
        return None;
    }
    let inside = &value[2..n - 2];
    let mut quotes = 0i64;
    for token in inside {
        match token.kind {
            K::OQuote => quotes += 1,
            K::CQuote => quotes -= 1,
            // Sequences inside a nested string belong to that string.
            _ if quotes > 0 => {}
            K::TemplateInterp | K::TemplateSeqEnd | K::QuotedLit => return None,
            _ => {}
        }
    }
    let first = inside.iter().position(|t| t.kind != K::Newline)?;
    let last = inside.iter().rposition(|t| t.kind != K::Newline)?;
    let trimmed = &inside[first..=last];
    let multi_line = trimmed.iter().any(|t| t.kind == K::Newline);
    let parenthesized = trimmed[0].kind == K::OParen
        && trimmed.len() > 1
        && trimmed[trimmed.len() - 1].kind == K::CParen;
    let mut out = Vec::with_capacity(trimmed.len() + 2);
    if multi_line && !parenthesized {
        out.push(LayoutToken::made(K::OParen, "("));
        out.extend(trimmed.iter().cloned());
        out.push(LayoutToken::made(K::CParen, ")"));
    } else {
        out.extend(trimmed.iter().cloned());
    }
    Some(out)
}

/// A `variable` block's `type` written the pre-0.12 way: `"string"`,
/// `"list"` and `"map"` (whose elements were strings then), or a bare
/// `list`, `map` or `set` (whose elements are any type).
fn legacy_type_constraint<'a>(value: &[LayoutToken<'a>]) -> Option<Vec<LayoutToken<'a>>> {
    use TokenKind as K;
    let collection = |keyword: LayoutToken<'a>, element: &'static str| {
        vec![
            keyword,
            LayoutToken::made(K::OParen, "("),
            LayoutToken::made(K::Ident, element),
            LayoutToken::made(K::CParen, ")"),
        ]
    };
    match value {
        [keyword] if keyword.kind == K::Ident => match keyword.text.as_ref() {
            "list" | "map" | "set" => Some(collection(keyword.clone(), "any")),
            _ => None,
        },
        [open, literal, close]
            if open.kind == K::OQuote
                && literal.kind == K::QuotedLit
                && close.kind == K::CQuote =>
        {
            match literal.text.as_ref() {
                "string" => Some(vec![LayoutToken::made(K::Ident, "string")]),
                "list" => Some(collection(LayoutToken::made(K::Ident, "list"), "string")),
                "map" => Some(collection(LayoutToken::made(K::Ident, "map"), "string")),
                _ => None,
            }
        }
        _ => None,
    }
}

// ----- the layout -----

/// One line split into up to three cells whose starts are aligned with the
/// same cells of neighbouring lines: everything up to an argument's `=`,
/// the `=` and its value, and a trailing single-line comment.
struct Line {
    lead: Range<usize>,
    assign: Option<Range<usize>>,
    comment: Option<Range<usize>>,
}

/// Indentation, then spacing between tokens, then alignment of `=` and of
/// trailing comments, all by changing only the spaces before tokens.
fn lay_out(tokens: &mut [LayoutToken<'_>]) {
    let lines = split_lines(tokens);
    indent(tokens, &lines);
    space(tokens, &lines);
    align(tokens, &lines);
}

fn split_lines(tokens: &[LayoutToken<'_>]) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut line_start = 0;
    let mut end_of_tokens = tokens.len();
    for (i, token) in tokens.iter().enumerate() {
        if token.kind == TokenKind::Eof {
            end_of_tokens = i;
            break;
        }
        if token.ends_line() {
            lines.push(line_start..i + 1);
            line_start = i + 1;
        }
    }
    lines.push(line_start..end_of_tokens.max(line_start));
    lines
        .into_iter()
        .map(|lead| split_cells(tokens, lead))
        .collect()
}

fn split_cells(tokens: &[LayoutToken<'_>], mut lead: Range<usize>) -> Line {
    let mut comment = None;
    if lead.len() > 1 && tokens[lead.end - 1].kind == TokenKind::Comment {
        comment = Some(lead.end - 1..lead.end);
        lead.end -= 1;
    }
    let mut assign = None;
    if let Some(equals) = (lead.start + 1..lead.end).find(|&i| tokens[i].kind == TokenKind::Equal) {
        // Only a value that closes every bracket it opens on this line is a
        // cell to align; an opening `{` or `(` starts a multi-line value.
        let net: i64 = tokens[equals..lead.end]
            .iter()
            .map(LayoutToken::bracket_change)
            .sum();
        if net == 0 {
            assign = Some(equals..lead.end);
            lead.end = equals;
        }
    }
    Line {
        lead,
        assign,
        comment,
    }
}

/// Two spaces per open bracket level, counting brackets per line: a line
/// that opens more than it closes indents the lines after it once, however
/// many it opened, and closing brackets dedent by the levels they close.
fn indent(tokens: &mut [LayoutToken<'_>], lines: &[Line]) {
    let mut levels: Vec<i64> = Vec::with_capacity(10);
    for line in lines {
        if line.lead.is_empty() {
            continue;
        }
        let first = line.lead.start;
        if tokens[first].kind == TokenKind::Newline {
            tokens[first].spaces_before = 0;
            continue;
        }
        let mut net = 0i64;
        for token in &tokens[line.lead.clone()] {
            net += token.bracket_change();
            // A heredoc's text is not code: its braces are not brackets.
            if token.kind == TokenKind::OHeredoc {
                break;
            }
        }
        if let Some(assign) = &line.assign {
            net += tokens[assign.clone()]
                .iter()
                .map(LayoutToken::bracket_change)
                .sum::<i64>();
        }
        if net > 0 {
            tokens[first].spaces_before = 2 * levels.len();
            levels.push(net);
            continue;
        }
        let mut closed = -net;
        while closed > 0 {
            let Some(top) = levels.last_mut() else { break };
            if closed > *top {
                closed -= *top;
                levels.pop();
            } else if closed < *top {
                *top -= closed;
                closed = 0;
            } else {
                levels.pop();
                closed = 0;
            }
        }
        tokens[first].spaces_before = 2 * levels.len();
    }
}

fn space(tokens: &mut [LayoutToken<'_>], lines: &[Line]) {
    for line in lines {
        space_cell(tokens, line.lead.clone(), false);
        if let Some(assign) = &line.assign {
            space_cell(tokens, assign.clone(), true);
        }
    }
}

/// Sets the spaces between the tokens of one cell. An assignment cell's `=`
/// gets one space before it (alignment may widen that later).
fn space_cell(tokens: &mut [LayoutToken<'_>], cell: Range<usize>, is_assign: bool) {
    if is_assign && !cell.is_empty() {
        tokens[cell.start].spaces_before = 1;
    }
    for i in cell.start..cell.end.saturating_sub(1) {
        let before = (i > cell.start).then(|| tokens[i - 1].kind);
        let wanted = space_after(&tokens[i], before, &tokens[i + 1]);
        tokens[i + 1].spaces_before = usize::from(wanted);
    }
}

/// Whether `subject` gets a space after it, given the token before it in
/// its cell (`None` at the cell's start) and the token after.
fn space_after(
    subject: &LayoutToken<'_>,
    before: Option<TokenKind>,
    after: &LayoutToken<'_>,
) -> bool {
    use TokenKind as K;
    let (s, a) = (subject.kind, after.kind);
    if a == K::Newline {
        return false;
    }
    if s == K::Ident && a == K::OParen {
        return false;
    }
    if (s == K::Ident && a == K::DoubleColon) || (s == K::DoubleColon && a == K::Ident) {
        return false;
    }
    if s == K::Dot || a == K::Dot {
        return false;
    }
    if a == K::Comma || a == K::Ellipsis {
        return false;
    }
    if s == K::Comma {
        return true;
    }
    if matches!(s, K::QuotedLit | K::StringLit | K::OQuote | K::OHeredoc)
        || matches!(a, K::QuotedLit | K::StringLit | K::CQuote | K::CHeredoc)
    {
        // Template text is written exactly as it is.
        return false;
    }
    if s == K::Ident && subject.text == "in" && before == Some(K::Ident) {
        // `for x in [a]`: `in` is the keyword, not a name being indexed.
        return true;
    }
    if a == K::OBrack && (s == K::Ident || s == K::NumberLit || subject.bracket_change() < 0) {
        return false;
    }
    if s == K::Bang {
        return false;
    }
    if s == K::Minus {
        // A minus after something that cannot end an operand is a negation.
        return !matches!(
            before,
            None | Some(
                K::OParen
                    | K::OBrace
                    | K::OBrack
                    | K::Equal
                    | K::Colon
                    | K::Comma
                    | K::Question
                    | K::Plus
                    | K::Star
                    | K::Slash
                    | K::Percent
                    | K::Minus
                    | K::EqualOp
                    | K::NotEqual
                    | K::GreaterThan
                    | K::GreaterThanEq
                    | K::LessThan
                    | K::LessThanEq
                    | K::And
                    | K::Or
                    | K::Bang
            )
        );
    }
    if s == K::OBrace || a == K::CBrace {
        return !(s == K::OBrace && a == K::CBrace);
    }
    if matches!(s, K::TemplateInterp | K::TemplateControl) && a == K::OBrace {
        return true;
    }
    if s == K::CBrace && a == K::TemplateSeqEnd {
        return true;
    }
    if s == K::TemplateSeqEnd && matches!(a, K::TemplateInterp | K::TemplateControl) {
        return false;
    }
    if subject.bracket_change() > 0 {
        return false;
    }
    if after.bracket_change() < 0 {
        return false;
    }
    true
}

/// Aligns the `=` of consecutive lines that have one, then the trailing
/// comments of consecutive lines that have one.
fn align(tokens: &mut [LayoutToken<'_>], lines: &[Line]) {
    let columns = |tokens: &[LayoutToken<'_>], range: &Range<usize>| -> usize {
        tokens[range.clone()].iter().map(LayoutToken::columns).sum()
    };
    let mut i = 0;
    while i < lines.len() {
        if lines[i].assign.is_none() {
            i += 1;
            continue;
        }
        let run_end = (i..lines.len())
            .find(|&j| lines[j].assign.is_none())
            .unwrap_or(lines.len());
        let widest = lines[i..run_end]
            .iter()
            .map(|l| columns(tokens, &l.lead))
            .max()
            .unwrap_or(0);
        for line in &lines[i..run_end] {
            let width = columns(tokens, &line.lead);
            if let Some(assign) = &line.assign {
                tokens[assign.start].spaces_before = widest - width + 1;
            }
        }
        i = run_end;
    }
    let mut i = 0;
    let width_before_comment = |tokens: &[LayoutToken<'_>], line: &Line| {
        columns(tokens, &line.lead) + line.assign.as_ref().map_or(0, |a| columns(tokens, a))
    };
    while i < lines.len() {
        if lines[i].comment.is_none() {
            i += 1;
            continue;
        }
        let run_end = (i..lines.len())
            .find(|&j| lines[j].comment.is_none())
            .unwrap_or(lines.len());
        let widest = lines[i..run_end]
            .iter()
            .map(|l| width_before_comment(tokens, l))
            .max()
            .unwrap_or(0);
        for line in &lines[i..run_end] {
            let width = width_before_comment(tokens, line);
            if let Some(comment) = &line.comment {
                tokens[comment.start].spaces_before = widest - width + 1;
            }
        }
        i = run_end;
    }
}

#[cfg(test)]
mod tests;
