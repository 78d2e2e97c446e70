//! Go's regular expression syntax (RE2, as `regexp.Compile` parses it with
//! `syntax.Perl` flags), checked with Go's rules and error texts and then
//! rewritten into an equivalent pattern for the `regex` crate.
//!
//! The two engines agree on matching semantics (leftmost-first, Perl-like
//! submatches) but not on syntax details: Go's `\d`, `\w`, `\s` and `\b` are
//! ASCII-only, `\pC` excludes unassigned code points, only general
//! categories and script names are accepted by `\p{...}`, `\Q...\E` quotes,
//! flag groups apply to the parse state rather than a lexical scope, and
//! capture names may repeat. So the pattern is parsed here exactly as Go's
//! parser walks it (so the first error found is Go's), and every construct
//! is emitted with explicit flags in a form the `regex` crate reads the same
//! way. All groups are emitted unnamed; names are kept alongside, in order.

use regex::{Regex, RegexBuilder};

/// A parse error with Go's `syntax.ErrorCode` text and offending fragment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub code: &'static str,
    pub expr: String,
}

impl SyntaxError {
    fn new(code: &'static str, expr: &str) -> SyntaxError {
        SyntaxError {
            code,
            expr: expr.to_string(),
        }
    }
}

impl std::fmt::Display for SyntaxError {
    /// As `(*syntax.Error).Error()`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "error parsing regexp: {}: `{}`", self.code, self.expr)
    }
}

const ERR_INVALID_CHAR_RANGE: &str = "invalid character class range";
const ERR_INVALID_ESCAPE: &str = "invalid escape sequence";
const ERR_INVALID_NAMED_CAPTURE: &str = "invalid named capture";
const ERR_INVALID_PERL_OP: &str = "invalid or unsupported Perl syntax";
const ERR_INVALID_REPEAT_OP: &str = "invalid nested repetition operator";
const ERR_INVALID_REPEAT_SIZE: &str = "invalid repeat count";
const ERR_MISSING_BRACKET: &str = "missing closing ]";
const ERR_MISSING_PAREN: &str = "missing closing )";
const ERR_MISSING_REPEAT_ARGUMENT: &str = "missing argument to repetition operator";
const ERR_TRAILING_BACKSLASH: &str = "trailing backslash at end of expression";
const ERR_UNEXPECTED_PAREN: &str = "unexpected )";
const ERR_NESTING_DEPTH: &str = "expression nests too deeply";
const ERR_LARGE: &str = "expression too large";

const MAX_REPEAT: i64 = 1000;
const MAX_HEIGHT: usize = 1000;
const MAX_SIZE: i64 = (128 << 20) / 40;

/// A compiled Go regular expression.
#[derive(Debug)]
pub(crate) struct GoRegex {
    regex: Regex,
    /// Names of the capture groups 1..n in order; empty for unnamed ones.
    names: Vec<String>,
}

impl GoRegex {
    pub(crate) fn compile(pattern: &str) -> Result<GoRegex, SyntaxError> {
        let parsed = Parser::new(pattern).parse()?;
        if height(&parsed.root) > MAX_HEIGHT {
            return Err(SyntaxError::new(ERR_NESTING_DEPTH, pattern));
        }
        if size(&parsed.root) > MAX_SIZE {
            return Err(SyntaxError::new(ERR_LARGE, pattern));
        }
        let mut translated = String::new();
        emit(&parsed.root, &mut translated);
        let regex = RegexBuilder::new(&translated)
            .nest_limit(10_000)
            .size_limit(256 << 20)
            .build()
            .map_err(|_| SyntaxError::new(ERR_LARGE, pattern))?;
        Ok(GoRegex {
            regex,
            names: parsed.names,
        })
    }

    /// Names of the capture groups, as Go's `SubexpNames()[1:]`.
    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    /// Submatch spans of the leftmost match starting at or after `start`,
    /// index 0 being the whole match (Go's `FindStringSubmatchIndex` from a
    /// position, with the text before it still visible to assertions).
    pub(crate) fn captures_at(
        &self,
        text: &str,
        start: usize,
    ) -> Option<Vec<Option<(usize, usize)>>> {
        let caps = self.regex.captures_at(text, start)?;
        Some(
            (0..=self.names.len())
                .map(|i| caps.get(i).map(|m| (m.start(), m.end())))
                .collect(),
        )
    }

    /// All successive non-overlapping matches, with Go's rule that an empty
    /// match directly after a previous match is skipped.
    pub(crate) fn all_captures(&self, text: &str) -> Vec<Vec<Option<(usize, usize)>>> {
        let mut out = Vec::new();
        let mut pos = 0;
        let mut prev_end: Option<usize> = None;
        while pos <= text.len() {
            let Some(caps) = self.captures_at(text, pos) else {
                break;
            };
            let Some(Some((start, end))) = caps.first().copied() else {
                break;
            };
            let mut accept = true;
            if end == pos {
                if Some(start) == prev_end {
                    accept = false;
                }
                pos += next_char_width(text, pos).max(1);
            } else {
                pos = end;
            }
            prev_end = Some(end);
            if accept {
                out.push(caps);
            }
        }
        out
    }

    /// Go's `ReplaceAllString`: `$` references in `replacement` are expanded
    /// as `Regexp.Expand` does.
    pub(crate) fn replace_all(&self, text: &str, replacement: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut last_end = 0;
        let mut search = 0;
        while search <= text.len() {
            let Some(caps) = self.captures_at(text, search) else {
                break;
            };
            let Some(Some((start, end))) = caps.first().copied() else {
                break;
            };
            out.push_str(&text[last_end..start]);
            if end > last_end || start == 0 {
                self.expand(&mut out, replacement, text, &caps);
            }
            last_end = end;
            let width = next_char_width(text, search);
            if search + width > end {
                search += width;
            } else if search + 1 > end {
                search += 1;
            } else {
                search = end;
            }
        }
        out.push_str(&text[last_end.min(text.len())..]);
        out
    }

    fn expand(
        &self,
        out: &mut String,
        template: &str,
        text: &str,
        caps: &[Option<(usize, usize)>],
    ) {
        let mut rest = template;
        while let Some(i) = rest.find('$') {
            out.push_str(&rest[..i]);
            rest = &rest[i + 1..];
            if let Some(after) = rest.strip_prefix('$') {
                out.push('$');
                rest = after;
                continue;
            }
            let Some((name, num, after)) = extract_reference(rest) else {
                out.push('$');
                continue;
            };
            rest = after;
            let span = match num {
                Some(n) => caps.get(n).copied().flatten(),
                None => self
                    .names
                    .iter()
                    .position(|candidate| *candidate == name)
                    .and_then(|i| caps.get(i + 1).copied().flatten()),
            };
            if let Some((s, e)) = span {
                out.push_str(&text[s..e]);
            }
        }
        out.push_str(rest);
    }
}

fn next_char_width(text: &str, pos: usize) -> usize {
    text[pos..].chars().next().map_or(0, char::len_utf8)
}

/// Go's `extract`: a `name` or `{name}` after a `$`, where a name is letters,
/// digits and underscores. Returns the name, its number if it is a decimal
/// without leading zeros (below 1e8), and the rest of the template.
fn extract_reference(s: &str) -> Option<(String, Option<usize>, &str)> {
    let (braced, body) = match s.strip_prefix('{') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let end = body
        .char_indices()
        .find(|&(_, c)| !(super::is_go_letter(c) || super::is_go_digit(c) || c == '_'))
        .map_or(body.len(), |(i, _)| i);
    if end == 0 {
        return None;
    }
    let name = &body[..end];
    let rest = if braced {
        body[end..].strip_prefix('}')?
    } else {
        &body[end..]
    };
    let mut num: Option<usize> = Some(0);
    for b in name.bytes() {
        num = match num {
            Some(n) if b.is_ascii_digit() && n < 100_000_000 => {
                Some(n * 10 + usize::from(b - b'0'))
            }
            _ => None,
        };
    }
    if name.len() > 1 && name.starts_with('0') {
        num = None;
    }
    Some((name.to_string(), num, rest))
}

// ----- syntax tree -----

/// Go's `syntax.Flags` bits that matter after parsing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Flags {
    fold_case: bool,
    dot_nl: bool,
    one_line: bool,
    non_greedy: bool,
}

impl Flags {
    fn perl() -> Flags {
        Flags {
            fold_case: false,
            dot_nl: false,
            one_line: true,
            non_greedy: false,
        }
    }
}

#[derive(Clone, Debug)]
enum ClassItem {
    Range(u32, u32),
    /// An ASCII group (`\d`, `[:alpha:]`) as ranges, possibly negated.
    Ascii {
        negated: bool,
        ranges: &'static [(u32, u32)],
    },
    /// A Unicode general category or script, already in `regex` syntax.
    Unicode {
        negated: bool,
        class: String,
    },
}

#[derive(Clone, Debug)]
enum Node {
    Literal(char, bool),
    AnyChar(bool),
    BeginText,
    EndText,
    BeginLine,
    EndLine,
    WordBoundary,
    NoWordBoundary,
    Class {
        negated: bool,
        fold: bool,
        items: Vec<ClassItem>,
    },
    Group(Box<Node>),
    Capture(Box<Node>),
    Repeat {
        sub: Box<Node>,
        min: i64,
        max: i64,
        greedy: bool,
        counted: bool,
    },
    Concat(Vec<Node>),
    Alternate(Vec<Node>),
}

struct Parsed {
    root: Node,
    names: Vec<String>,
}

/// One open group on the parse stack.
struct Frame {
    /// Flags in force when the group opened, restored at its `)`.
    flags: Flags,
    capture: bool,
    alternatives: Vec<Vec<Node>>,
    current: Vec<Node>,
}

struct Parser<'a> {
    whole: &'a str,
    flags: Flags,
    frames: Vec<Frame>,
    names: Vec<String>,
}

impl<'a> Parser<'a> {
    fn new(whole: &'a str) -> Parser<'a> {
        let top = Frame {
            flags: Flags::perl(),
            capture: false,
            alternatives: Vec::new(),
            current: Vec::new(),
        };
        Parser {
            whole,
            flags: Flags::perl(),
            frames: vec![top],
            names: Vec::new(),
        }
    }

    fn current(&mut self) -> &mut Vec<Node> {
        // The top-level frame is never popped, so there is always one.
        let last = self.frames.len() - 1;
        &mut self.frames[last].current
    }

    fn push(&mut self, node: Node) {
        self.current().push(node);
    }

    fn parse(mut self) -> Result<Parsed, SyntaxError> {
        let mut t: &str = self.whole;
        let mut last_repeat: &str = "";
        while let Some(c) = t.chars().next() {
            let mut repeat: &str = "";
            match c {
                '(' => {
                    if t.len() >= 2 && t.as_bytes()[1] == b'?' {
                        t = self.parse_perl_flags(t)?;
                    } else {
                        self.names.push(String::new());
                        self.open_group(true);
                        t = &t[1..];
                    }
                }
                '|' => {
                    let frame = self.frames.len() - 1;
                    let current = std::mem::take(&mut self.frames[frame].current);
                    self.frames[frame].alternatives.push(current);
                    t = &t[1..];
                }
                ')' => {
                    self.close_group()?;
                    t = &t[1..];
                }
                '^' => {
                    let node = if self.flags.one_line {
                        Node::BeginText
                    } else {
                        Node::BeginLine
                    };
                    self.push(node);
                    t = &t[1..];
                }
                '$' => {
                    let node = if self.flags.one_line {
                        Node::EndText
                    } else {
                        Node::EndLine
                    };
                    self.push(node);
                    t = &t[1..];
                }
                '.' => {
                    let node = Node::AnyChar(self.flags.dot_nl);
                    self.push(node);
                    t = &t[1..];
                }
                '[' => t = self.parse_class(t)?,
                '*' | '+' | '?' => {
                    let before = t;
                    let (min, max) = match c {
                        '*' => (0, -1),
                        '+' => (1, -1),
                        _ => (0, 1),
                    };
                    let after = self.repeat(min, max, false, before, &t[1..], last_repeat)?;
                    repeat = before;
                    t = after;
                }
                '{' => {
                    let before = t;
                    match parse_repeat(t) {
                        None => {
                            self.literal('{');
                            t = &t[1..];
                        }
                        Some((min, max, after)) => {
                            if !(0..=MAX_REPEAT).contains(&min)
                                || max > MAX_REPEAT
                                || (max >= 0 && min > max)
                            {
                                return Err(SyntaxError::new(
                                    ERR_INVALID_REPEAT_SIZE,
                                    &before[..before.len() - after.len()],
                                ));
                            }
                            let after = self.repeat(min, max, true, before, after, last_repeat)?;
                            repeat = before;
                            t = after;
                        }
                    }
                }
                '\\' => t = self.parse_backslash(t)?,
                _ => {
                    self.literal(c);
                    t = &t[c.len_utf8()..];
                }
            }
            last_repeat = repeat;
        }

        if self.frames.len() != 1 {
            return Err(SyntaxError::new(ERR_MISSING_PAREN, self.whole));
        }
        let frame = self
            .frames
            .pop()
            .map(finish_frame)
            .unwrap_or(Node::Concat(Vec::new()));
        Ok(Parsed {
            root: frame,
            names: self.names,
        })
    }

    fn literal(&mut self, c: char) {
        let fold = self.flags.fold_case;
        self.push(Node::Literal(c, fold));
    }

    fn open_group(&mut self, capture: bool) {
        self.frames.push(Frame {
            flags: self.flags,
            capture,
            alternatives: Vec::new(),
            current: Vec::new(),
        });
    }

    fn close_group(&mut self) -> Result<(), SyntaxError> {
        if self.frames.len() < 2 {
            return Err(SyntaxError::new(ERR_UNEXPECTED_PAREN, self.whole));
        }
        let Some(frame) = self.frames.pop() else {
            return Err(SyntaxError::new(ERR_UNEXPECTED_PAREN, self.whole));
        };
        self.flags = frame.flags;
        let capture = frame.capture;
        let body = finish_frame(frame);
        let node = if capture {
            Node::Capture(Box::new(body))
        } else {
            Node::Group(Box::new(body))
        };
        self.push(node);
        Ok(())
    }

    /// Applies a repetition to the last item; `before` starts at the operator
    /// and `after` follows it.
    fn repeat<'t>(
        &mut self,
        min: i64,
        max: i64,
        counted: bool,
        before: &'t str,
        after: &'t str,
        last_repeat: &'t str,
    ) -> Result<&'t str, SyntaxError> {
        let mut after = after;
        let mut greedy = !self.flags.non_greedy;
        if let Some(rest) = after.strip_prefix('?') {
            after = rest;
            greedy = !greedy;
        }
        if !last_repeat.is_empty() {
            return Err(SyntaxError::new(
                ERR_INVALID_REPEAT_OP,
                &last_repeat[..last_repeat.len() - after.len()],
            ));
        }
        let Some(sub) = self.current().pop() else {
            return Err(SyntaxError::new(
                ERR_MISSING_REPEAT_ARGUMENT,
                &before[..before.len() - after.len()],
            ));
        };
        let node = Node::Repeat {
            sub: Box::new(sub),
            min,
            max,
            greedy,
            counted,
        };
        if counted && (min >= 2 || max >= 2) && !repeat_is_valid(&node, MAX_REPEAT) {
            return Err(SyntaxError::new(
                ERR_INVALID_REPEAT_SIZE,
                &before[..before.len() - after.len()],
            ));
        }
        self.push(node);
        Ok(after)
    }

    /// `(?...`: a named capture, or flags with an optional group.
    fn parse_perl_flags<'t>(&mut self, s: &'t str) -> Result<&'t str, SyntaxError> {
        let bytes = s.as_bytes();
        let starts_with_p = s.len() > 4 && bytes[2] == b'P' && bytes[3] == b'<';
        let starts_with_name = s.len() > 3 && bytes[2] == b'<';
        if starts_with_p || starts_with_name {
            let expr_start = if starts_with_p { 4 } else { 3 };
            let Some(end) = s.find('>') else {
                return Err(SyntaxError::new(ERR_INVALID_NAMED_CAPTURE, s));
            };
            let capture = &s[..=end];
            let name = s.get(expr_start..end).unwrap_or("");
            if name.is_empty() || !name.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric()) {
                return Err(SyntaxError::new(ERR_INVALID_NAMED_CAPTURE, capture));
            }
            self.names.push(name.to_string());
            self.open_group(true);
            return Ok(&s[end + 1..]);
        }

        let mut t = &s[2..];
        let mut flags = self.flags;
        let mut negate = false;
        let mut saw_flag = false;
        while let Some(c) = t.chars().next() {
            t = &t[c.len_utf8()..];
            match c {
                'i' => {
                    flags.fold_case = !negate;
                    saw_flag = true;
                }
                'm' => {
                    flags.one_line = negate;
                    saw_flag = true;
                }
                's' => {
                    flags.dot_nl = !negate;
                    saw_flag = true;
                }
                'U' => {
                    flags.non_greedy = !negate;
                    saw_flag = true;
                }
                '-' => {
                    if negate {
                        break;
                    }
                    negate = true;
                    saw_flag = false;
                }
                ':' | ')' => {
                    if negate && !saw_flag {
                        break;
                    }
                    if c == ':' {
                        self.frames.push(Frame {
                            flags: self.flags,
                            capture: false,
                            alternatives: Vec::new(),
                            current: Vec::new(),
                        });
                    }
                    self.flags = flags;
                    return Ok(t);
                }
                _ => break,
            }
        }
        Err(SyntaxError::new(
            ERR_INVALID_PERL_OP,
            &s[..s.len() - t.len()],
        ))
    }

    fn parse_backslash<'t>(&mut self, t: &'t str) -> Result<&'t str, SyntaxError> {
        let bytes = t.as_bytes();
        if bytes.len() >= 2 {
            match bytes[1] {
                b'A' => {
                    self.push(Node::BeginText);
                    return Ok(&t[2..]);
                }
                b'b' => {
                    self.push(Node::WordBoundary);
                    return Ok(&t[2..]);
                }
                b'B' => {
                    self.push(Node::NoWordBoundary);
                    return Ok(&t[2..]);
                }
                b'C' => return Err(SyntaxError::new(ERR_INVALID_ESCAPE, &t[..2])),
                b'Q' => {
                    let body = &t[2..];
                    let (lit, rest) = match body.find("\\E") {
                        Some(i) => (&body[..i], &body[i + 2..]),
                        None => (body, ""),
                    };
                    for c in lit.chars() {
                        self.literal(c);
                    }
                    return Ok(rest);
                }
                b'z' => {
                    self.push(Node::EndText);
                    return Ok(&t[2..]);
                }
                _ => {}
            }
        }
        let fold = self.flags.fold_case;
        if let Some((item, rest)) = parse_unicode_class(t)? {
            self.push(Node::Class {
                negated: false,
                fold,
                items: vec![item],
            });
            return Ok(rest);
        }
        if let Some((item, rest)) = parse_perl_class(t) {
            self.push(Node::Class {
                negated: false,
                fold,
                items: vec![item],
            });
            return Ok(rest);
        }
        let (c, rest) = parse_escape(t)?;
        self.literal(c);
        Ok(rest)
    }

    fn parse_class<'t>(&mut self, s: &'t str) -> Result<&'t str, SyntaxError> {
        let mut t = &s[1..];
        let mut negated = false;
        if let Some(rest) = t.strip_prefix('^') {
            negated = true;
            t = rest;
        }
        let mut items = Vec::new();
        let mut first = true;
        while t.is_empty() || !t.starts_with(']') || first {
            first = false;
            if t.len() > 2 && t.starts_with("[:") {
                if let Some((item, rest)) = parse_named_class(t)? {
                    items.push(item);
                    t = rest;
                    continue;
                }
            }
            if let Some((item, rest)) = parse_unicode_class(t)? {
                items.push(item);
                t = rest;
                continue;
            }
            if let Some((item, rest)) = parse_perl_class(t) {
                items.push(item);
                t = rest;
                continue;
            }
            let range_start = t;
            let (lo, rest) = parse_class_char(t, s)?;
            t = rest;
            let mut hi = lo;
            if t.len() >= 2 && t.starts_with('-') && !t[1..].starts_with(']') {
                let (h, rest) = parse_class_char(&t[1..], s)?;
                t = rest;
                hi = h;
                if hi < lo {
                    return Err(SyntaxError::new(
                        ERR_INVALID_CHAR_RANGE,
                        &range_start[..range_start.len() - t.len()],
                    ));
                }
            }
            items.push(ClassItem::Range(lo as u32, hi as u32));
        }
        let fold = self.flags.fold_case;
        self.push(Node::Class {
            negated,
            fold,
            items,
        });
        Ok(&t[1..])
    }
}

fn finish_frame(frame: Frame) -> Node {
    let mut alternatives = frame.alternatives;
    alternatives.push(frame.current);
    let mut branches: Vec<Node> = alternatives.into_iter().map(Node::Concat).collect();
    if branches.len() == 1 {
        branches.pop().unwrap_or(Node::Concat(Vec::new()))
    } else {
        Node::Alternate(branches)
    }
}

/// `{min}`, `{min,}` or `{min,max}` at the start of `s`; `None` when `s` is
/// not of that form (then `{` is a literal). A number too large gives -1.
fn parse_repeat(s: &str) -> Option<(i64, i64, &str)> {
    let s = s.strip_prefix('{')?;
    let (min, s) = parse_int(s)?;
    let (max, s) = if let Some(rest) = s.strip_prefix(',') {
        if rest.starts_with('}') {
            (-1, rest)
        } else {
            let (max, rest) = parse_int(rest)?;
            (max, rest)
        }
    } else {
        if s.is_empty() {
            return None;
        }
        (min, s)
    };
    let rest = s.strip_prefix('}')?;
    // Go reports an over-large max by making min -1.
    let min = if max < -1 { -1 } else { min };
    Some((min, if max < -1 { -1 } else { max }, rest))
}

/// A decimal without leading zeros; values of 1e8 or more become a large
/// negative sentinel so callers can tell "too big" from "absent".
fn parse_int(s: &str) -> Option<(i64, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || (digits >= 2 && s.starts_with('0')) {
        return None;
    }
    let mut n: i64 = 0;
    for b in s[..digits].bytes() {
        if n >= 100_000_000 {
            n = -2;
            break;
        }
        n = n * 10 + i64::from(b - b'0');
    }
    Some((n, &s[digits..]))
}

fn repeat_is_valid(node: &Node, mut n: i64) -> bool {
    match node {
        Node::Repeat {
            sub,
            min,
            max,
            counted,
            ..
        } => {
            if *counted {
                let mut m = *max;
                if m == 0 {
                    return true;
                }
                if m < 0 {
                    m = *min;
                }
                if m > n {
                    return false;
                }
                if m > 0 {
                    n /= m;
                }
            }
            repeat_is_valid(sub, n)
        }
        Node::Group(sub) | Node::Capture(sub) => repeat_is_valid(sub, n),
        Node::Concat(subs) | Node::Alternate(subs) => subs.iter().all(|s| repeat_is_valid(s, n)),
        _ => true,
    }
}

/// `\p{Name}`, `\pL`, `\P...` with Go's table of names: the general
/// categories and scripts of Unicode 15.0 and `Any`, matched exactly.
fn parse_unicode_class(s: &str) -> Result<Option<(ClassItem, &str)>, SyntaxError> {
    let bytes = s.as_bytes();
    if bytes.len() < 2 || bytes[0] != b'\\' || (bytes[1] != b'p' && bytes[1] != b'P') {
        return Ok(None);
    }
    let mut negated = bytes[1] == b'P';
    let t = &s[2..];
    let (seq, name, rest) = match t.chars().next() {
        Some('{') => {
            let Some(end) = s.find('}') else {
                return Err(SyntaxError::new(ERR_INVALID_CHAR_RANGE, s));
            };
            (&s[..=end], &s[3..end], &s[end + 1..])
        }
        Some(c) => {
            let len = 2 + c.len_utf8();
            (&s[..len], &s[2..len], &s[len..])
        }
        None => (s, "", ""),
    };
    let name = match name.strip_prefix('^') {
        Some(n) => {
            negated = !negated;
            n
        }
        None => name,
    };
    let class = if name == "Any" {
        "\\p{Any}".to_string()
    } else if name == "C" {
        // Go's C is Cc|Cf|Co|Cs, without the unassigned Cn that Unicode's C
        // has; surrogates (Cs) cannot occur in a string.
        "[\\p{gc=Cc}\\p{gc=Cf}\\p{gc=Co}]".to_string()
    } else if name == "Cs" {
        "[\\x{0}&&\\x{1}]".to_string()
    } else if GO_CATEGORIES.contains(&name) {
        format!("\\p{{gc={name}}}")
    } else if GO_SCRIPTS.contains(&name) {
        format!("\\p{{sc={name}}}")
    } else {
        return Err(SyntaxError::new(ERR_INVALID_CHAR_RANGE, seq));
    };
    Ok(Some((ClassItem::Unicode { negated, class }, rest)))
}

const DIGIT: &[(u32, u32)] = &[(0x30, 0x39)];
const SPACE_PERL: &[(u32, u32)] = &[(0x09, 0x0a), (0x0c, 0x0d), (0x20, 0x20)];
const WORD: &[(u32, u32)] = &[(0x30, 0x39), (0x41, 0x5a), (0x5f, 0x5f), (0x61, 0x7a)];

/// `\d \D \s \S \w \W`, ASCII-only as in Go.
fn parse_perl_class(s: &str) -> Option<(ClassItem, &str)> {
    let bytes = s.as_bytes();
    if bytes.len() < 2 || bytes[0] != b'\\' {
        return None;
    }
    let (negated, ranges) = match bytes[1] {
        b'd' => (false, DIGIT),
        b'D' => (true, DIGIT),
        b's' => (false, SPACE_PERL),
        b'S' => (true, SPACE_PERL),
        b'w' => (false, WORD),
        b'W' => (true, WORD),
        _ => return None,
    };
    Some((ClassItem::Ascii { negated, ranges }, &s[2..]))
}

/// `[:alpha:]` and friends inside a class.
fn parse_named_class(s: &str) -> Result<Option<(ClassItem, &str)>, SyntaxError> {
    let Some(i) = s[2..].find(":]") else {
        return Ok(None);
    };
    let end = i + 4;
    let name = &s[..end];
    let (negated, bare) = match name.strip_prefix("[:^") {
        Some(rest) => (true, rest),
        None => (false, &name[2..]),
    };
    let ranges: &'static [(u32, u32)] = match bare {
        "alnum:]" => &[(0x30, 0x39), (0x41, 0x5a), (0x61, 0x7a)],
        "alpha:]" => &[(0x41, 0x5a), (0x61, 0x7a)],
        "ascii:]" => &[(0x00, 0x7f)],
        "blank:]" => &[(0x09, 0x09), (0x20, 0x20)],
        "cntrl:]" => &[(0x00, 0x1f), (0x7f, 0x7f)],
        "digit:]" => DIGIT,
        "graph:]" => &[(0x21, 0x7e)],
        "lower:]" => &[(0x61, 0x7a)],
        "print:]" => &[(0x20, 0x7e)],
        "punct:]" => &[(0x21, 0x2f), (0x3a, 0x40), (0x5b, 0x60), (0x7b, 0x7e)],
        "space:]" => &[(0x09, 0x0d), (0x20, 0x20)],
        "upper:]" => &[(0x41, 0x5a)],
        "word:]" => WORD,
        "xdigit:]" => &[(0x30, 0x39), (0x41, 0x46), (0x61, 0x66)],
        _ => return Err(SyntaxError::new(ERR_INVALID_CHAR_RANGE, name)),
    };
    Ok(Some((ClassItem::Ascii { negated, ranges }, &s[end..])))
}

fn parse_class_char<'t>(s: &'t str, whole_class: &str) -> Result<(char, &'t str), SyntaxError> {
    let Some(c) = s.chars().next() else {
        return Err(SyntaxError::new(ERR_MISSING_BRACKET, whole_class));
    };
    if c == '\\' {
        return parse_escape(s);
    }
    Ok((c, &s[c.len_utf8()..]))
}

/// A single-character escape at the start of `s` (which starts with `\`).
fn parse_escape(s: &str) -> Result<(char, &str), SyntaxError> {
    let mut t = &s[1..];
    let Some(c) = t.chars().next() else {
        return Err(SyntaxError::new(ERR_TRAILING_BACKSLASH, ""));
    };
    t = &t[c.len_utf8()..];
    let invalid = |t: &str| SyntaxError::new(ERR_INVALID_ESCAPE, &s[..s.len() - t.len()]);
    match c {
        '1'..='7' if !t.starts_with(|d: char| ('0'..='7').contains(&d)) => Err(invalid(t)),
        '0'..='7' => {
            let mut r = c as u32 - '0' as u32;
            for _ in 1..3 {
                match t.as_bytes().first() {
                    Some(&d @ b'0'..=b'7') => {
                        r = r * 8 + u32::from(d - b'0');
                        t = &t[1..];
                    }
                    _ => break,
                }
            }
            Ok((char::from_u32(r).unwrap_or('\0'), t))
        }
        'x' => {
            let Some(c) = t.chars().next() else {
                return Err(invalid(t));
            };
            t = &t[c.len_utf8()..];
            if c == '{' {
                let mut digits = 0;
                let mut r: u32 = 0;
                loop {
                    let Some(c) = t.chars().next() else {
                        return Err(invalid(t));
                    };
                    t = &t[c.len_utf8()..];
                    if c == '}' {
                        break;
                    }
                    let Some(v) = c.to_digit(16) else {
                        return Err(invalid(t));
                    };
                    r = r * 16 + v;
                    if r > 0x10ffff {
                        return Err(invalid(t));
                    }
                    digits += 1;
                }
                if digits == 0 {
                    return Err(invalid(t));
                }
                // Go accepts surrogate code points here; they can never
                // match valid text, so they become a never-matching char.
                return Ok((char::from_u32(r).unwrap_or('\u{fffe}'), t));
            }
            let x = c.to_digit(16);
            let y = t.chars().next();
            if let Some(y) = y {
                t = &t[y.len_utf8()..];
            }
            match (x, y.and_then(|y| y.to_digit(16))) {
                (Some(x), Some(y)) => Ok((char::from_u32(x * 16 + y).unwrap_or('\0'), t)),
                _ => Err(invalid(t)),
            }
        }
        'a' => Ok(('\u{7}', t)),
        'f' => Ok(('\u{c}', t)),
        'n' => Ok(('\n', t)),
        'r' => Ok(('\r', t)),
        't' => Ok(('\t', t)),
        'v' => Ok(('\u{b}', t)),
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok((c, t)),
        _ => Err(invalid(t)),
    }
}

// ----- limits -----

fn height(node: &Node) -> usize {
    match node {
        Node::Group(sub) => height(sub),
        Node::Capture(sub) | Node::Repeat { sub, .. } => 1 + height(sub),
        Node::Concat(subs) | Node::Alternate(subs) => {
            let inner = subs.iter().map(height).max().unwrap_or(0);
            if subs.len() > 1 {
                1 + inner
            } else {
                inner.max(1)
            }
        }
        _ => 1,
    }
}

/// Go's estimate of the compiled program size.
fn size(node: &Node) -> i64 {
    let s = match node {
        Node::Literal(..) => 1,
        Node::Group(sub) => size(sub),
        Node::Capture(sub) => 2 + size(sub),
        Node::Repeat {
            sub,
            min,
            max,
            counted,
            ..
        } => {
            let sub = size(sub);
            match (*counted, *min, *max) {
                (false, 0, -1) => 2 + sub,
                (false, _, _) => 1 + sub,
                (true, 0, -1) => 2 + sub,
                (true, min, -1) => 1 + min * sub,
                (true, min, max) => max * sub + (max - min),
            }
        }
        Node::Concat(subs) => subs.iter().map(size).sum(),
        Node::Alternate(subs) => subs.iter().map(size).sum::<i64>() + subs.len() as i64 - 1,
        _ => 1,
    };
    s.max(1)
}

// ----- emitting `regex` crate syntax -----

fn emit(node: &Node, out: &mut String) {
    match node {
        Node::Literal(c, fold) => {
            if *fold {
                out.push_str("(?i:");
            }
            push_char(*c, out);
            if *fold {
                out.push(')');
            }
        }
        Node::AnyChar(dot_nl) => out.push_str(if *dot_nl { "(?s:.)" } else { "(?-s:.)" }),
        Node::BeginText => out.push_str("\\A"),
        Node::EndText => out.push_str("\\z"),
        Node::BeginLine => out.push_str("(?m:^)"),
        Node::EndLine => out.push_str("(?m:$)"),
        Node::WordBoundary => out.push_str("(?-u:\\b)"),
        Node::NoWordBoundary => out.push_str("(?-u:\\B)"),
        Node::Class {
            negated,
            fold,
            items,
        } => {
            out.push_str(if *fold { "(?i:[" } else { "(?-i:[" });
            if *negated {
                out.push('^');
            }
            for item in items {
                emit_class_item(item, out);
            }
            out.push_str("])");
        }
        Node::Group(sub) => {
            out.push_str("(?:");
            emit(sub, out);
            out.push(')');
        }
        Node::Capture(sub) => {
            out.push('(');
            emit(sub, out);
            out.push(')');
        }
        Node::Repeat {
            sub,
            min,
            max,
            greedy,
            ..
        } => {
            out.push_str("(?:");
            emit(sub, out);
            out.push(')');
            match (*min, *max) {
                (0, -1) => out.push('*'),
                (1, -1) => out.push('+'),
                (0, 1) => out.push('?'),
                (min, -1) => out.push_str(&format!("{{{min},}}")),
                (min, max) if min == max => out.push_str(&format!("{{{min}}}")),
                (min, max) => out.push_str(&format!("{{{min},{max}}}")),
            }
            if !*greedy {
                out.push('?');
            }
        }
        Node::Concat(subs) => {
            if subs.is_empty() {
                out.push_str("(?:)");
            }
            for sub in subs {
                emit(sub, out);
            }
        }
        Node::Alternate(subs) => {
            out.push_str("(?:");
            for (i, sub) in subs.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                emit(sub, out);
            }
            out.push(')');
        }
    }
}

fn emit_class_item(item: &ClassItem, out: &mut String) {
    match item {
        ClassItem::Range(lo, hi) => {
            push_code(*lo, out);
            if hi != lo {
                out.push('-');
                push_code(*hi, out);
            }
        }
        ClassItem::Ascii { negated, ranges } => {
            out.push('[');
            if *negated {
                out.push('^');
            }
            for &(lo, hi) in ranges.iter() {
                emit_class_item(&ClassItem::Range(lo, hi), out);
            }
            out.push(']');
        }
        ClassItem::Unicode { negated, class } => {
            out.push('[');
            if *negated {
                out.push('^');
            }
            out.push_str(class);
            out.push(']');
        }
    }
}

fn push_char(c: char, out: &mut String) {
    push_code(c as u32, out);
}

fn push_code(code: u32, out: &mut String) {
    out.push_str(&format!("\\x{{{code:X}}}"));
}

const GO_CATEGORIES: &[&str] = &[
    "Cc", "Cf", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N", "Nd",
    "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm", "So", "Z",
    "Zl", "Zp", "Zs",
];

/// The scripts of Unicode 15.0, by the names Go's `unicode.Scripts` uses.
const GO_SCRIPTS: &[&str] = &[
    "Adlam",
    "Ahom",
    "Anatolian_Hieroglyphs",
    "Arabic",
    "Armenian",
    "Avestan",
    "Balinese",
    "Bamum",
    "Bassa_Vah",
    "Batak",
    "Bengali",
    "Bhaiksuki",
    "Bopomofo",
    "Brahmi",
    "Braille",
    "Buginese",
    "Buhid",
    "Canadian_Aboriginal",
    "Carian",
    "Caucasian_Albanian",
    "Chakma",
    "Cham",
    "Cherokee",
    "Chorasmian",
    "Common",
    "Coptic",
    "Cuneiform",
    "Cypriot",
    "Cypro_Minoan",
    "Cyrillic",
    "Deseret",
    "Devanagari",
    "Dives_Akuru",
    "Dogra",
    "Duployan",
    "Egyptian_Hieroglyphs",
    "Elbasan",
    "Elymaic",
    "Ethiopic",
    "Georgian",
    "Glagolitic",
    "Gothic",
    "Grantha",
    "Greek",
    "Gujarati",
    "Gunjala_Gondi",
    "Gurmukhi",
    "Han",
    "Hangul",
    "Hanifi_Rohingya",
    "Hanunoo",
    "Hatran",
    "Hebrew",
    "Hiragana",
    "Imperial_Aramaic",
    "Inherited",
    "Inscriptional_Pahlavi",
    "Inscriptional_Parthian",
    "Javanese",
    "Kaithi",
    "Kannada",
    "Katakana",
    "Kawi",
    "Kayah_Li",
    "Kharoshthi",
    "Khitan_Small_Script",
    "Khmer",
    "Khojki",
    "Khudawadi",
    "Lao",
    "Latin",
    "Lepcha",
    "Limbu",
    "Linear_A",
    "Linear_B",
    "Lisu",
    "Lycian",
    "Lydian",
    "Mahajani",
    "Makasar",
    "Malayalam",
    "Mandaic",
    "Manichaean",
    "Marchen",
    "Masaram_Gondi",
    "Medefaidrin",
    "Meetei_Mayek",
    "Mende_Kikakui",
    "Meroitic_Cursive",
    "Meroitic_Hieroglyphs",
    "Miao",
    "Modi",
    "Mongolian",
    "Mro",
    "Multani",
    "Myanmar",
    "Nabataean",
    "Nag_Mundari",
    "Nandinagari",
    "New_Tai_Lue",
    "Newa",
    "Nko",
    "Nushu",
    "Nyiakeng_Puachue_Hmong",
    "Ogham",
    "Ol_Chiki",
    "Old_Hungarian",
    "Old_Italic",
    "Old_North_Arabian",
    "Old_Permic",
    "Old_Persian",
    "Old_Sogdian",
    "Old_South_Arabian",
    "Old_Turkic",
    "Old_Uyghur",
    "Oriya",
    "Osage",
    "Osmanya",
    "Pahawh_Hmong",
    "Palmyrene",
    "Pau_Cin_Hau",
    "Phags_Pa",
    "Phoenician",
    "Psalter_Pahlavi",
    "Rejang",
    "Runic",
    "Samaritan",
    "Saurashtra",
    "Sharada",
    "Shavian",
    "Siddham",
    "SignWriting",
    "Sinhala",
    "Sogdian",
    "Sora_Sompeng",
    "Soyombo",
    "Sundanese",
    "Syloti_Nagri",
    "Syriac",
    "Tagalog",
    "Tagbanwa",
    "Tai_Le",
    "Tai_Tham",
    "Tai_Viet",
    "Takri",
    "Tamil",
    "Tangsa",
    "Tangut",
    "Telugu",
    "Thaana",
    "Thai",
    "Tibetan",
    "Tifinagh",
    "Tirhuta",
    "Toto",
    "Ugaritic",
    "Vai",
    "Vithkuqi",
    "Wancho",
    "Warang_Citi",
    "Yezidi",
    "Yi",
    "Zanabazar_Square",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn err(pattern: &str) -> String {
        match GoRegex::compile(pattern) {
            Ok(_) => "ok".into(),
            Err(e) => format!("{}: {}", e.code, e.expr),
        }
    }

    /// Go's error (code and fragment) for each pattern, as Terraform 1.11
    /// reports them.
    #[test]
    fn go_syntax_errors() {
        let cases: &[(&str, &str)] = &[
            ("(", "missing closing ): ("),
            (")", "unexpected ): )"),
            ("a)(", "unexpected ): a)("),
            ("a**", "invalid nested repetition operator: **"),
            ("a+*?", "invalid nested repetition operator: +*?"),
            ("a{2}{3}", "invalid nested repetition operator: {2}{3}"),
            ("*", "missing argument to repetition operator: *"),
            ("a|*?", "missing argument to repetition operator: *?"),
            ("(*)", "missing argument to repetition operator: *"),
            ("a{1001}", "invalid repeat count: {1001}"),
            ("a{2,1}", "invalid repeat count: {2,1}"),
            ("(a{500}){3}", "invalid repeat count: {3}"),
            ("(?x)a", "invalid or unsupported Perl syntax: (?x"),
            ("(?i", "invalid or unsupported Perl syntax: (?i"),
            ("(?-)", "invalid or unsupported Perl syntax: (?-)"),
            ("(?P=a)", "invalid or unsupported Perl syntax: (?P"),
            ("(?P<>a)", "invalid named capture: (?P<>"),
            ("(?P<a", "invalid named capture: (?P<a"),
            ("(?<a-b>x)", "invalid named capture: (?<a-b>"),
            ("[a", "missing closing ]: [a"),
            ("x[]", "missing closing ]: []"),
            ("[z-a]", "invalid character class range: z-a"),
            ("[[:foo:]]", "invalid character class range: [:foo:]"),
            ("\\8", "invalid escape sequence: \\8"),
            ("\\1", "invalid escape sequence: \\1"),
            ("\\C", "invalid escape sequence: \\C"),
            ("\\é", "invalid escape sequence: \\é"),
            ("[\\b]", "invalid escape sequence: \\b"),
            ("a\\", "trailing backslash at end of expression: "),
            ("\\x{110000}", "invalid escape sequence: \\x{110000"),
            ("\\x{}", "invalid escape sequence: \\x{}"),
            ("\\x1", "invalid escape sequence: \\x1"),
            ("\\xZ1", "invalid escape sequence: \\xZ1"),
            ("\\pX", "invalid character class range: \\pX"),
            ("\\p{Foo", "invalid character class range: \\p{Foo"),
            ("\\p{greek}", "invalid character class range: \\p{greek}"),
            ("\\p{LC}", "invalid character class range: \\p{LC}"),
            ("\\p{Cn}", "invalid character class range: \\p{Cn}"),
            ("\\p", "invalid character class range: \\p"),
            ("a{,5}", "ok"),
            ("(?i)(?-i:a)(?U:b+)", "ok"),
            ("(?P<a>x)(?P<a>y)", "ok"),
            ("(?<n>x)", "ok"),
            ("\\Qa.b", "ok"),
            ("[]a]", "ok"),
            ("[^\\x00-\\x{10FFFF}]", "ok"),
            ("(?:)*", "ok"),
            ("\\p{^Greek}\\PL\\pN\\p{Any}\\pC", "ok"),
            ("\\x{D800}", "ok"),
        ];
        for (pattern, want) in cases {
            assert_eq!(err(pattern), *want, "pattern {pattern:?}");
        }
    }

    fn first(pattern: &str, text: &str) -> Option<String> {
        let re = GoRegex::compile(pattern).expect("valid pattern");
        let caps = re.captures_at(text, 0)?;
        caps[0].map(|(s, e)| text[s..e].to_string())
    }

    #[test]
    fn go_matching_semantics() {
        let cases: &[(&str, &str, Option<&str>)] = &[
            ("\\d+", "١٢٣ 123", Some("123")),
            ("\\w+", "héllo", Some("h")),
            ("[[:alpha:]]+", "héllo", Some("h")),
            ("\\bfoo\\b", "a foo b", Some("foo")),
            ("(?i)k", "\u{212a}", Some("\u{212a}")),
            ("(?i)[k]", "\u{212a}", Some("\u{212a}")),
            ("(?i)straße", "STRASSE", None),
            ("\\Qa.b\\E+", "a.bbb", Some("a.bbb")),
            ("(?U)a+", "aaa", Some("a")),
            ("(?U)a+?", "aaa", Some("aaa")),
            ("a(?i)*", "aaa", Some("aaa")),
            ("(?s).+", "a\nb", Some("a\nb")),
            (".+", "a\nb", Some("a")),
            ("(?m)^b$", "a\nb\nc", Some("b")),
            ("^b", "a\nb", None),
            ("\\p{^L}+", "ab12", Some("12")),
            ("\\PL+", "ab12", Some("12")),
            ("\\pN+", "x123", Some("123")),
            ("[^\\x00-\\x{10FFFF}]", "a", None),
            ("(?:)*", "a", Some("")),
            ("\\101\\x41\\x{41}", "AAA", Some("AAA")),
            ("[\\d-]+", "1-2", Some("1-2")),
            ("(?i)[[:upper:]]+", "aB", Some("aB")),
        ];
        for (pattern, text, want) in cases {
            assert_eq!(
                first(pattern, text).as_deref(),
                *want,
                "regex({pattern:?}, {text:?})"
            );
        }
    }

    #[test]
    fn all_matches_and_replace() {
        let re = GoRegex::compile("a*").expect("valid");
        let spans: Vec<_> = re.all_captures("baaac").iter().map(|c| c[0]).collect();
        assert_eq!(spans, vec![Some((0, 0)), Some((1, 4)), Some((5, 5))]);
        assert_eq!(re.replace_all("baaac", "-"), "-b-c-");
        assert_eq!(re.replace_all("aaa", "-"), "-");
        let re = GoRegex::compile("(?P<first>a)(b)").expect("valid");
        assert_eq!(
            re.replace_all("abc", "[$first|$2|${first}x|$$|$3|$1x|$ x$]"),
            "[a|b|ax|$|||$ x$]c"
        );
        let re = GoRegex::compile("").expect("valid");
        assert_eq!(re.replace_all("héé", "-"), "-h-é-é-");
    }
}
