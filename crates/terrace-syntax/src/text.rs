//! Small text helpers shared by the parsers and the renderer: Go-compatible
//! string quoting (HCL's messages use Go's `%q`), HCL's "did you mean"
//! distance, and the mapping from offsets in a decoded string back to the
//! file it was decoded from.

/// Quotes `s` the way Go's `strconv.Quote` (and so `%q`) does for the
/// characters that can reach a diagnostic: printable characters are kept,
/// the rest escaped.
pub(crate) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if is_go_printable(c) => out.push(c),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// An approximation of Go's `unicode.IsPrint`: letters, marks, numbers,
/// punctuation, symbols and the ASCII space.
fn is_go_printable(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    !matches!(c as u32,
        0x00AD | 0x061C | 0x180E | 0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x206F
        | 0xD800..=0xDFFF | 0xE000..=0xF8FF | 0xFEFF | 0xFFF9..=0xFFFB | 0xFFFE | 0xFFFF
        | 0xF0000..=0x10FFFF)
}

/// Levenshtein distance over characters, as HCL's suggestions use.
pub(crate) fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The first suggestion within HCL's "experimentally determined" distance.
pub(crate) fn name_suggestion<'a>(given: &str, suggestions: &[&'a str]) -> Option<&'a str> {
    suggestions
        .iter()
        .copied()
        .find(|s| levenshtein(given, s) < 3)
}

/// Maps byte offsets in text that was decoded from a file (a JSON string's
/// content, where escapes change lengths) back to offsets in that file.
#[derive(Clone, Debug, Default)]
pub(crate) struct SpanMap {
    /// `(decoded offset, file offset)` pairs in increasing order; an offset
    /// maps through the last pair at or before it. Empty means identity.
    points: Vec<(u32, u32)>,
}

impl SpanMap {
    pub(crate) fn identity() -> SpanMap {
        SpanMap { points: Vec::new() }
    }

    pub(crate) fn new(points: Vec<(u32, u32)>) -> SpanMap {
        SpanMap { points }
    }

    pub(crate) fn map(&self, offset: u32) -> u32 {
        if self.points.is_empty() {
            return offset;
        }
        let i = self.points.partition_point(|&(d, _)| d <= offset);
        match i.checked_sub(1).and_then(|i| self.points.get(i)) {
            Some(&(d, f)) => f + (offset - d),
            None => offset,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_like_go() {
        assert_eq!(
            go_quote("a\"b\\c\n\u{1}é\u{200b}"),
            "\"a\\\"b\\\\c\\n\\x01é\\u200b\""
        );
    }

    #[test]
    fn distance_and_suggestion() {
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(
            name_suggestion("endfr", &["if", "for", "else", "endif", "endfor"]),
            Some("endif")
        );
        assert_eq!(name_suggestion("zzzzzz", &["if", "for"]), None);
    }

    #[test]
    fn span_map() {
        let m = SpanMap::new(vec![(0, 10), (3, 20)]);
        assert_eq!(m.map(0), 10);
        assert_eq!(m.map(2), 12);
        assert_eq!(m.map(3), 20);
        assert_eq!(m.map(5), 22);
        assert_eq!(SpanMap::identity().map(7), 7);
    }
}
