//! Source positions. Every AST node carries a byte `Span`; line and column are
//! computed on demand through a `SourceMap`-like `LineIndex`, so the parser never
//! pays for them on the hot path.

/// A half-open byte range `[start, end)` into one source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

/// A line and column, both 1-based; the column counts Unicode scalar values
/// (as HCL counts "characters"), and `byte` is the 0-based byte offset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
    pub byte: u32,
}

/// Byte offsets of line starts for one file, to turn spans into `Pos`.
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<u32>,
}

impl LineIndex {
    pub fn new(src: &str) -> LineIndex {
        let mut line_starts = vec![0u32];
        for (i, b) in src.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i as u32 + 1);
            }
        }
        LineIndex { line_starts }
    }

    pub fn pos(&self, src: &str, byte: u32) -> Pos {
        let byte = byte.min(src.len() as u32);
        let line = match self.line_starts.binary_search(&byte) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line] as usize;
        let mut end = byte as usize;
        while end > start && !src.is_char_boundary(end) {
            end -= 1;
        }
        let column = src[start..end].chars().count() as u32 + 1;
        Pos {
            line: line as u32 + 1,
            column,
            byte,
        }
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The text of 1-based line `line`, without its line terminator.
    pub fn line_text<'a>(&self, src: &'a str, line: u32) -> &'a str {
        let i = (line as usize).saturating_sub(1);
        let Some(&start) = self.line_starts.get(i) else {
            return "";
        };
        let end = self
            .line_starts
            .get(i + 1)
            .map(|&e| e as usize)
            .unwrap_or(src.len());
        src[start as usize..end].trim_end_matches(['\n', '\r'])
    }
}
