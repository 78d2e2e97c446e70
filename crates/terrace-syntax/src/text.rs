//! Small text helpers shared by the parsers: HCL's "did you mean" distance
//! and the mapping from offsets in a decoded string back to the file it was
//! decoded from. (Go's `%q`, which HCL's messages use, is
//! `terrace_value::gostr::quote`.)

/// Levenshtein distance over characters (Unicode scalar values, unit
/// costs), as HCL's "did you mean" suggestions measure it.
pub fn levenshtein(a: &str, b: &str) -> usize {
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
