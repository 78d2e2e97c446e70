//! Just enough of HCL's native syntax, read as text, to rewrite the
//! examples: top-level blocks with their byte ranges, and the
//! attributes written directly in a block's body. Strings (with their
//! `${...}` templates), heredocs and comments are skipped so that braces
//! inside them do not count. Deliberately independent of terrace's own
//! parser: the inputs the suite feeds both tools must not depend on the
//! code under test.

/// A block found at the top level of a file.
pub struct Block {
    /// The words before the `{`: type and labels, labels unquoted.
    pub words: Vec<String>,
    /// From the first word to just past the closing `}`.
    pub start: usize,
    pub end: usize,
    /// Just past the opening `{` to the closing `}`.
    pub body_start: usize,
    pub body_end: usize,
}

/// An attribute `name = expression` written directly in a body.
pub struct Attribute {
    pub name: String,
    /// The whole line the attribute starts on up to the end of its
    /// expression's last line, newline included.
    pub line_start: usize,
    pub line_end: usize,
    /// The expression's text, trimmed.
    pub expr: String,
}

/// Skips a quoted string starting at `i` (on the `"`); returns the index
/// just past its closing quote.
fn skip_string(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            b'$' | b'%' if b.get(i + 1) == Some(&b'{') => {
                i = skip_braces(b, i + 1);
            }
            _ => i += 1,
        }
    }
    i
}

/// Skips a heredoc whose `<<` is at `i`; returns the index just past its
/// closing marker line.
fn skip_heredoc(b: &[u8], i: usize) -> usize {
    let mut j = i + 2;
    if b.get(j) == Some(&b'-') {
        j += 1;
    }
    let marker_start = j;
    while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
        j += 1;
    }
    let marker = &b[marker_start..j];
    if marker.is_empty() {
        return i + 2;
    }
    // From the next line on, find a line that is the marker alone.
    while j < b.len() && b[j] != b'\n' {
        j += 1;
    }
    while j < b.len() {
        let line_start = j + 1;
        let mut line_end = line_start;
        while line_end < b.len() && b[line_end] != b'\n' {
            line_end += 1;
        }
        let line = &b[line_start.min(b.len())..line_end];
        let trimmed = trim_ascii(line);
        if trimmed == marker {
            return line_end;
        }
        j = line_end;
    }
    b.len()
}

fn trim_ascii(s: &[u8]) -> &[u8] {
    let start = s
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map(|p| p + 1)
        .unwrap_or(start);
    &s[start..end]
}

/// Skips a comment starting at `i` if there is one; returns where the
/// text after it starts, or `None` when `i` starts no comment.
fn skip_comment(b: &[u8], i: usize) -> Option<usize> {
    let rest = &b[i..];
    if rest.starts_with(b"#") || rest.starts_with(b"//") {
        let mut j = i;
        while j < b.len() && b[j] != b'\n' {
            j += 1;
        }
        return Some(j);
    }
    if rest.starts_with(b"/*") {
        let mut j = i + 2;
        while j + 1 < b.len() && !(b[j] == b'*' && b[j + 1] == b'/') {
            j += 1;
        }
        return Some((j + 2).min(b.len()));
    }
    None
}

/// Skips a bracketed region starting on the opening `{`, `[` or `(` at
/// `i`; returns the index just past its closing bracket.
fn skip_braces(b: &[u8], i: usize) -> usize {
    let mut depth = 0usize;
    let mut j = i;
    while j < b.len() {
        if let Some(next) = skip_comment(b, j) {
            j = next;
            continue;
        }
        match b[j] {
            b'"' => {
                j = skip_string(b, j);
                continue;
            }
            b'<' if b.get(j + 1) == Some(&b'<') => {
                j = skip_heredoc(b, j);
                continue;
            }
            b'{' | b'[' | b'(' => depth += 1,
            b'}' | b']' | b')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    b.len()
}

/// The top-level blocks of a file.
pub fn blocks(text: &str) -> Vec<Block> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if let Some(next) = skip_comment(b, i) {
            i = next;
            continue;
        }
        if b[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        // A block header: words (identifiers or quoted labels) up to `{`.
        let start = i;
        let mut words = Vec::new();
        while i < b.len() && b[i] != b'{' && b[i] != b'\n' && b[i] != b'=' {
            if b[i] == b'"' {
                let end = skip_string(b, i);
                words.push(text[i + 1..end.saturating_sub(1)].to_string());
                i = end;
            } else if b[i].is_ascii_whitespace() {
                i += 1;
            } else {
                let word_start = i;
                while i < b.len()
                    && !b[i].is_ascii_whitespace()
                    && b[i] != b'{'
                    && b[i] != b'"'
                    && b[i] != b'='
                {
                    i += 1;
                }
                words.push(text[word_start..i].to_string());
            }
        }
        if i < b.len() && b[i] == b'{' {
            let end = skip_braces(b, i);
            out.push(Block {
                words,
                start,
                end,
                body_start: i + 1,
                body_end: end.saturating_sub(1),
            });
            i = end;
        } else {
            // Not a block (a stray top-level attribute): skip the line.
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        }
    }
    out
}

/// The attributes written directly in the body `text[start..end]`
/// (nested blocks and their contents are skipped).
pub fn attributes(text: &str, start: usize, end: usize) -> Vec<Attribute> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = start;
    while i < end {
        if let Some(next) = skip_comment(b, i) {
            i = next;
            continue;
        }
        if b[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let line_start = text[..i].rfind('\n').map(|p| p + 1).unwrap_or(0);
        let name_start = i;
        while i < end && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'-') {
            i += 1;
        }
        let name = text[name_start..i].to_string();
        let mut j = i;
        while j < end && (b[j] == b' ' || b[j] == b'\t') {
            j += 1;
        }
        if !name.is_empty() && j < end && b[j] == b'=' && b.get(j + 1) != Some(&b'=') {
            // An attribute: its expression runs to the end of the line,
            // or further while brackets, strings or heredocs are open.
            let expr_start = j + 1;
            let mut k = expr_start;
            let mut expr_end = None;
            while k < end && b[k] != b'\n' {
                if let Some(next) = skip_comment(b, k) {
                    expr_end.get_or_insert(k);
                    k = next;
                    continue;
                }
                match b[k] {
                    b'"' => k = skip_string(b, k),
                    b'<' if b.get(k + 1) == Some(&b'<') => k = skip_heredoc(b, k),
                    b'{' | b'[' | b'(' => k = skip_braces(b, k),
                    _ => k += 1,
                }
            }
            let line_end = if k < end { k + 1 } else { end };
            out.push(Attribute {
                name,
                line_start,
                line_end,
                expr: text[expr_start..expr_end.unwrap_or(k).min(end)]
                    .trim()
                    .to_string(),
            });
            i = line_end;
        } else {
            // A nested block (or something else): skip to its end.
            let mut k = i;
            while k < end && b[k] != b'{' && b[k] != b'\n' {
                if b[k] == b'"' {
                    k = skip_string(b, k);
                } else {
                    k += 1;
                }
            }
            i = if k < end && b[k] == b'{' {
                skip_braces(b, k)
            } else {
                k + 1
            };
        }
    }
    out
}

/// The value of a quoted string expression without templates, or `None`.
pub fn string_literal(expr: &str) -> Option<String> {
    let inner = expr.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains('"') || inner.contains("${") || inner.contains('\\') {
        return None;
    }
    Some(inner.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_blocks_and_attributes_past_strings_and_heredocs() {
        let text = r#"
# a { comment
provider "aws" {
  region = "eu-west-1" # }
  alias  = "x"
  assume_role {
    role_arn = "arn:{"
  }
}

locals {
  policy = <<EOT
  { not a brace
EOT
  name = "a-${replace("}", "x", "y")}"
}
"#;
        let found = blocks(text);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].words, vec!["provider", "aws"]);
        let attrs = attributes(text, found[0].body_start, found[0].body_end);
        let names: Vec<&str> = attrs.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, vec!["region", "alias"]);
        assert_eq!(attrs[0].expr, "\"eu-west-1\"");
        let attrs = attributes(text, found[1].body_start, found[1].body_end);
        let names: Vec<&str> = attrs.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, vec!["policy", "name"]);
    }
}
