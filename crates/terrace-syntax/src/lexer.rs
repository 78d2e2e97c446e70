//! The native-syntax scanner: turns source text into the same token stream
//! HCL's Ragel scanner produces (token kinds, boundaries and the quirks that
//! affect diagnostics), so the parser can follow HCL's recovery rules.
//!
//! Tokens carry byte offsets only; line and column are computed when a
//! diagnostic needs them.

use crate::diagnostic::Diagnostic;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum TokenKind {
    OBrace,
    CBrace,
    OBrack,
    CBrack,
    OParen,
    CParen,
    OQuote,
    CQuote,
    OHeredoc,
    CHeredoc,
    Star,
    Slash,
    Plus,
    Minus,
    Percent,
    Equal,
    EqualOp,
    NotEqual,
    LessThan,
    LessThanEq,
    GreaterThan,
    GreaterThanEq,
    And,
    Or,
    Bang,
    Dot,
    Comma,
    DoubleColon,
    Ellipsis,
    FatArrow,
    Question,
    Colon,
    TemplateInterp,
    TemplateControl,
    TemplateSeqEnd,
    /// Literal text inside a quoted string; may contain backslash escapes.
    QuotedLit,
    /// Literal text inside a heredoc or bare template; no backslash escapes.
    StringLit,
    NumberLit,
    Ident,
    Comment,
    Newline,
    Eof,
    BitwiseAnd,
    BitwiseOr,
    BitwiseNot,
    BitwiseXor,
    Apostrophe,
    Backtick,
    Semicolon,
    Invalid,
    QuotedNewline,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: TokenKind,
    pub start: u32,
    pub end: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScanMode {
    /// A configuration file or a standalone expression.
    Normal,
    /// A bare template (the whole input is template text), as `templatefile`.
    Template,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Main,
    Quoted,
    Heredoc,
    Bare,
}

struct HeredocInProgress {
    marker_start: usize,
    marker_end: usize,
    start_of_line: bool,
}

struct Lexer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    tokens: Vec<Token>,
    /// The scanner's call stack (Ragel's `fcall`/`fret`); the last entry is
    /// the mode being scanned.
    modes: Vec<Mode>,
    /// Brace nesting depth across all modes, and the depths at which a `}`
    /// ends a template sequence rather than closing an object/block.
    braces: i64,
    ret_braces: Vec<i64>,
    heredocs: Vec<HeredocInProgress>,
}

pub(crate) fn scan(text: &str, mode: ScanMode) -> Vec<Token> {
    let bytes = text.as_bytes();
    // HCL skips a UTF-8 byte order mark; offsets stay relative to the file.
    let pos = if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        3
    } else {
        0
    };
    let base = match mode {
        ScanMode::Normal => Mode::Main,
        ScanMode::Template => Mode::Bare,
    };
    let mut lx = Lexer {
        text,
        bytes,
        pos,
        tokens: Vec::with_capacity(text.len() / 3 + 2),
        modes: vec![base],
        braces: 0,
        ret_braces: Vec::new(),
        heredocs: Vec::new(),
    };
    lx.run();
    let end = text.len() as u32;
    lx.tokens.push(Token {
        kind: TokenKind::Eof,
        start: end,
        end,
    });
    lx.tokens
}

fn is_ident_start(c: char) -> bool {
    c == '_' || unicode_ident::is_xid_start(c)
}

fn is_ident_continue(c: char) -> bool {
    c == '-' || unicode_ident::is_xid_continue(c)
}

impl<'a> Lexer<'a> {
    fn emit(&mut self, kind: TokenKind, start: usize, end: usize) {
        self.tokens.push(Token {
            kind,
            start: start as u32,
            end: end as u32,
        });
    }

    fn at(&self, i: usize) -> Option<u8> {
        self.bytes.get(i).copied()
    }

    fn char_at(&self, i: usize) -> Option<char> {
        self.text.get(i..).and_then(|s| s.chars().next())
    }

    fn mode(&self) -> Mode {
        self.modes.last().copied().unwrap_or(Mode::Main)
    }

    fn call(&mut self, mode: Mode) {
        self.modes.push(mode);
    }

    fn ret(&mut self) {
        if self.modes.len() > 1 {
            self.modes.pop();
        }
    }

    fn run(&mut self) {
        while self.pos < self.bytes.len() {
            let keep_going = match self.mode() {
                Mode::Main => self.scan_main(),
                Mode::Quoted => self.scan_quoted(),
                Mode::Heredoc => self.scan_heredoc(),
                Mode::Bare => self.scan_bare(),
            };
            if !keep_going {
                break;
            }
        }
    }

    /// `${`/`%{` (optionally followed by the strip marker `~`) opening a
    /// template sequence: the scanner switches to expression mode until the
    /// matching `}`.
    fn begin_template_sequence(&mut self, kind: TokenKind) {
        let start = self.pos;
        let mut end = start + 2;
        if self.at(end) == Some(b'~') {
            end += 1;
        }
        self.emit(kind, start, end);
        self.pos = end;
        self.braces += 1;
        self.ret_braces.push(self.braces);
        if let Some(h) = self.heredocs.last_mut() {
            h.start_of_line = false;
        }
        self.call(Mode::Main);
    }

    fn scan_main(&mut self) -> bool {
        use TokenKind as K;
        let start = self.pos;
        let b = self.bytes[start];
        let next = self.at(start + 1);
        let single = |lx: &mut Self, kind| {
            lx.emit(kind, start, start + 1);
            lx.pos = start + 1;
        };
        let double = |lx: &mut Self, kind| {
            lx.emit(kind, start, start + 2);
            lx.pos = start + 2;
        };
        match b {
            b' ' | b'\t' => {
                let mut i = start + 1;
                while matches!(self.at(i), Some(b' ' | b'\t')) {
                    i += 1;
                }
                self.pos = i;
            }
            b'0'..=b'9' => self.scan_number(),
            b'\n' => single(self, K::Newline),
            b'\r' => {
                if next == Some(b'\n') {
                    double(self, K::Newline)
                } else {
                    single(self, K::Invalid)
                }
            }
            b'#' => self.scan_line_comment(start),
            b'/' => match next {
                Some(b'/') => self.scan_line_comment(start),
                Some(b'*') => {
                    let body = &self.text[start + 2..];
                    match body.find("*/") {
                        Some(i) => {
                            let end = start + 2 + i + 2;
                            self.emit(K::Comment, start, end);
                            self.pos = end;
                        }
                        // Unterminated: HCL's scanner backs off to the
                        // longest complete token, which is the lone slash.
                        None => single(self, K::Slash),
                    }
                }
                _ => single(self, K::Slash),
            },
            b'=' => match next {
                Some(b'=') => double(self, K::EqualOp),
                Some(b'>') => double(self, K::FatArrow),
                _ => single(self, K::Equal),
            },
            b'!' => match next {
                Some(b'=') => double(self, K::NotEqual),
                _ => single(self, K::Bang),
            },
            b'>' => match next {
                Some(b'=') => double(self, K::GreaterThanEq),
                _ => single(self, K::GreaterThan),
            },
            b'<' => match next {
                Some(b'=') => double(self, K::LessThanEq),
                Some(b'<') => {
                    if !self.try_heredoc_start() {
                        single(self, K::LessThan)
                    }
                }
                _ => single(self, K::LessThan),
            },
            b'&' => match next {
                Some(b'&') => double(self, K::And),
                _ => single(self, K::BitwiseAnd),
            },
            b'|' => match next {
                Some(b'|') => double(self, K::Or),
                _ => single(self, K::BitwiseOr),
            },
            b':' => match next {
                Some(b':') => double(self, K::DoubleColon),
                _ => single(self, K::Colon),
            },
            b'.' => {
                if next == Some(b'.') && self.at(start + 2) == Some(b'.') {
                    self.emit(K::Ellipsis, start, start + 3);
                    self.pos = start + 3;
                } else {
                    single(self, K::Dot)
                }
            }
            b'~' => {
                if next == Some(b'}') {
                    double(self, K::TemplateSeqEnd);
                    if self.ret_braces.last() == Some(&self.braces) {
                        self.ret_braces.pop();
                        self.braces -= 1;
                        self.ret();
                    } else {
                        // Still a sequence end, so the parser can report a
                        // `~}` that balances an ordinary brace.
                        self.braces -= 1;
                    }
                } else {
                    single(self, K::BitwiseNot)
                }
            }
            b'{' => {
                single(self, K::OBrace);
                self.braces += 1;
            }
            b'}' => {
                if self.ret_braces.last() == Some(&self.braces) {
                    single(self, K::TemplateSeqEnd);
                    self.ret_braces.pop();
                    self.braces -= 1;
                    self.ret();
                } else {
                    single(self, K::CBrace);
                    self.braces -= 1;
                }
            }
            b'"' => {
                single(self, K::OQuote);
                self.call(Mode::Quoted);
            }
            b'[' => single(self, K::OBrack),
            b']' => single(self, K::CBrack),
            b'(' => single(self, K::OParen),
            b')' => single(self, K::CParen),
            b',' => single(self, K::Comma),
            b'*' => single(self, K::Star),
            b'%' => single(self, K::Percent),
            b'+' => single(self, K::Plus),
            b'-' => single(self, K::Minus),
            b'?' => single(self, K::Question),
            b'^' => single(self, K::BitwiseXor),
            b';' => single(self, K::Semicolon),
            b'`' => single(self, K::Backtick),
            b'\'' => single(self, K::Apostrophe),
            _ => {
                let c = self.char_at(start).unwrap_or('\u{FFFD}');
                if is_ident_start(c) {
                    let end = self.ident_end(start);
                    self.emit(K::Ident, start, end);
                    self.pos = end;
                } else {
                    let end = start + c.len_utf8();
                    self.emit(K::Invalid, start, end);
                    self.pos = end;
                }
            }
        }
        true
    }

    fn ident_end(&self, start: usize) -> usize {
        let mut end = start;
        let mut first = true;
        for c in self.text[start..].chars() {
            let ok = if first {
                is_ident_start(c)
            } else {
                is_ident_continue(c)
            };
            if !ok {
                break;
            }
            first = false;
            end += c.len_utf8();
        }
        end
    }

    fn scan_line_comment(&mut self, start: usize) {
        let end = match self.bytes[start..].iter().position(|&b| b == b'\n') {
            Some(i) => start + i + 1,
            None => self.bytes.len(),
        };
        self.emit(TokenKind::Comment, start, end);
        self.pos = end;
    }

    /// `digit (digit | '.' | [eE][+-]?digit)*`, not ending in `.`: HCL takes
    /// the longest such run, so `1.2.3` is one (invalid) number token and
    /// `foo.0.1` reads `0.1` as a number.
    fn scan_number(&mut self) {
        let start = self.pos;
        let mut i = start + 1;
        let mut last_good = i;
        loop {
            match self.at(i) {
                Some(b'0'..=b'9') => {
                    i += 1;
                    last_good = i;
                }
                Some(b'.') => i += 1,
                Some(b'e' | b'E') => {
                    let mut j = i + 1;
                    if matches!(self.at(j), Some(b'+' | b'-')) {
                        j += 1;
                    }
                    if matches!(self.at(j), Some(b'0'..=b'9')) {
                        i = j + 1;
                        last_good = i;
                    } else {
                        break;
                    }
                }
                _ => break,
            }
        }
        self.emit(TokenKind::NumberLit, start, last_good);
        self.pos = last_good;
    }

    /// `<<` or `<<-`, an identifier and a newline open a heredoc; anything
    /// else leaves the `<` to be scanned as an operator.
    fn try_heredoc_start(&mut self) -> bool {
        let start = self.pos;
        let mut i = start + 2;
        if self.at(i) == Some(b'-') {
            i += 1;
        }
        let marker_start = i;
        match self.char_at(i) {
            Some(c) if is_ident_start(c) => {}
            _ => return false,
        }
        let marker_end = self.ident_end(i);
        let end = match (self.at(marker_end), self.at(marker_end + 1)) {
            (Some(b'\n'), _) => marker_end + 1,
            (Some(b'\r'), Some(b'\n')) => marker_end + 2,
            _ => return false,
        };
        self.emit(TokenKind::OHeredoc, start, end);
        self.pos = end;
        self.heredocs.push(HeredocInProgress {
            marker_start,
            marker_end,
            start_of_line: true,
        });
        self.call(Mode::Heredoc);
        true
    }

    fn scan_quoted(&mut self) -> bool {
        use TokenKind as K;
        let start = self.pos;
        let b = self.bytes[start];
        match b {
            b'$' | b'%' if self.at(start + 1) == Some(b'{') => {
                let kind = if b == b'$' {
                    K::TemplateInterp
                } else {
                    K::TemplateControl
                };
                self.begin_template_sequence(kind);
            }
            b'"' => {
                self.emit(K::CQuote, start, start + 1);
                self.pos = start + 1;
                self.ret();
            }
            b'\r' | b'\n' => {
                let mut i = start + 1;
                while matches!(self.at(i), Some(b'\r' | b'\n')) {
                    i += 1;
                }
                self.emit(K::QuotedNewline, start, i);
                self.pos = i;
            }
            _ => {
                let end = self.quoted_literal_end(start);
                if end > start {
                    self.emit(K::QuotedLit, start, end);
                    self.pos = end;
                } else {
                    // A backslash before a newline or the end of input, or a
                    // `$`/`%` at the very end: nothing in the string grammar
                    // matches, so HCL's scanner marks the one character as
                    // invalid.
                    let len = self.char_at(start).map(char::len_utf8).unwrap_or(1);
                    self.emit(K::Invalid, start, start + len);
                    self.pos = start + len;
                }
            }
        }
        true
    }

    /// The end of a run of quoted-string literal text starting at `start`.
    fn quoted_literal_end(&self, start: usize) -> usize {
        let mut i = start;
        while let Some(b) = self.at(i) {
            match b {
                b'"' | b'\r' | b'\n' => break,
                b'\\' => match self.char_at(i + 1) {
                    Some(c) if c != '\r' && c != '\n' => i += 1 + c.len_utf8(),
                    _ => break,
                },
                b'$' | b'%' => match self.at(i + 1) {
                    Some(b'{') => break,
                    Some(n) if n == b && self.at(i + 2) == Some(b'{') => i += 3,
                    Some(_) => i += 1,
                    None => break,
                },
                _ => i += 1,
            }
        }
        i
    }

    /// The end of a run of heredoc/bare-template text from `start`: up to a
    /// template sequence, or through the end of the line. Returns the end
    /// and whether the run ends with a newline; `Err` with its offset when
    /// a carriage return not followed by a newline stops the scanner.
    fn unquoted_literal_end(&self, start: usize) -> Result<(usize, bool), usize> {
        let mut i = start;
        while let Some(b) = self.at(i) {
            match b {
                b'\n' => return Ok((i + 1, true)),
                b'\r' => {
                    if self.at(i + 1) == Some(b'\n') {
                        return Ok((i + 2, true));
                    }
                    return Err(i);
                }
                b'$' | b'%' => match self.at(i + 1) {
                    Some(b'{') => break,
                    Some(n) if n == b && self.at(i + 2) == Some(b'{') => i += 3,
                    _ => i += 1,
                },
                _ => i += 1,
            }
        }
        Ok((i, false))
    }

    fn scan_heredoc(&mut self) -> bool {
        let start = self.pos;
        let b = self.bytes[start];
        if (b == b'$' || b == b'%') && self.at(start + 1) == Some(b'{') {
            let kind = if b == b'$' {
                TokenKind::TemplateInterp
            } else {
                TokenKind::TemplateControl
            };
            self.begin_template_sequence(kind);
            return true;
        }
        let (end, eol) = match self.unquoted_literal_end(start) {
            Ok(r) => r,
            Err(cr) => {
                // HCL's scanner has no rule for a lone carriage return here
                // and gives up, marking the rest of the input as invalid.
                if cr > start {
                    self.emit(TokenKind::StringLit, start, cr);
                }
                self.emit(TokenKind::Invalid, cr, self.bytes.len());
                self.pos = self.bytes.len();
                return false;
            }
        };
        if !eol {
            if let Some(h) = self.heredocs.last_mut() {
                h.start_of_line = false;
            }
            self.emit(TokenKind::StringLit, start, end);
            self.pos = end;
            return true;
        }
        let Some(top) = self.heredocs.last() else {
            self.emit(TokenKind::StringLit, start, end);
            self.pos = end;
            return true;
        };
        if top.start_of_line {
            let marker = &self.text[top.marker_start..top.marker_end];
            if self.text[start..end].trim() == marker {
                let newline_start = if end >= 2 && self.bytes[end - 2] == b'\r' {
                    end - 2
                } else {
                    end - 1
                };
                self.emit(TokenKind::CHeredoc, start, newline_start);
                self.emit(TokenKind::Newline, newline_start, end);
                self.pos = end;
                self.heredocs.pop();
                self.ret();
                return true;
            }
        }
        if let Some(h) = self.heredocs.last_mut() {
            h.start_of_line = true;
        }
        self.emit(TokenKind::StringLit, start, end);
        self.pos = end;
        true
    }

    fn scan_bare(&mut self) -> bool {
        let start = self.pos;
        let b = self.bytes[start];
        if (b == b'$' || b == b'%') && self.at(start + 1) == Some(b'{') {
            let kind = if b == b'$' {
                TokenKind::TemplateInterp
            } else {
                TokenKind::TemplateControl
            };
            self.begin_template_sequence(kind);
            return true;
        }
        match self.unquoted_literal_end(start) {
            Ok((end, _)) => {
                self.emit(TokenKind::StringLit, start, end);
                self.pos = end;
                true
            }
            Err(cr) => {
                if cr > start {
                    self.emit(TokenKind::StringLit, start, cr);
                }
                // As in HCL: when a standalone template's scanner gives up at
                // the top level, everything left is literal text.
                let kind = if self.modes.len() == 1 {
                    TokenKind::StringLit
                } else {
                    TokenKind::Invalid
                };
                self.emit(kind, cr, self.bytes.len());
                self.pos = self.bytes.len();
                false
            }
        }
    }
}

/// Diagnostics for tokens that never belong in HCL source, reported before
/// any parse errors, with HCL's limits on repeating the same complaint.
pub(crate) fn check_invalid_tokens(
    tokens: &[Token],
    text: &str,
    mut mk: impl FnMut(&str, &str, Token) -> Diagnostic,
) -> Vec<Diagnostic> {
    use TokenKind as K;
    let mut diags = Vec::new();
    let mut told_bitwise = 0;
    let mut told_backtick = 0;
    let mut told_apostrophe = 0;
    let mut told_semicolon = 0;
    for &tok in tokens {
        match tok.kind {
            K::BitwiseAnd | K::BitwiseOr | K::BitwiseXor | K::BitwiseNot if told_bitwise < 4 => {
                let suggestion = match tok.kind {
                    K::BitwiseAnd => " Did you mean boolean AND (\"&&\")?",
                    K::BitwiseOr => " Did you mean boolean OR (\"||\")?",
                    K::BitwiseNot => " Did you mean boolean NOT (\"!\")?",
                    _ => "",
                };
                let detail = format!("Bitwise operators are not supported.{suggestion}");
                diags.push(mk("Unsupported operator", &detail, tok));
                told_bitwise += 1;
            }
            K::Backtick => {
                if told_backtick % 2 == 0 {
                    diags.push(mk(
                        "Invalid character",
                        "The \"`\" character is not valid. To create a multi-line string, use the \"heredoc\" syntax, like \"<<EOT\".",
                        tok,
                    ));
                }
                if told_backtick <= 2 {
                    told_backtick += 1;
                }
            }
            K::Apostrophe => {
                if told_apostrophe % 2 == 0 {
                    diags.push(mk(
                        "Invalid character",
                        "Single quotes are not valid. Use double quotes (\") to enclose strings.",
                        tok,
                    ));
                }
                if told_apostrophe <= 2 {
                    told_apostrophe += 1;
                }
            }
            K::Semicolon if told_semicolon < 1 => {
                diags.push(mk(
                    "Invalid character",
                    "The \";\" character is not valid. Use newlines to separate arguments and blocks, and commas to separate items in collection values.",
                    tok,
                ));
                told_semicolon += 1;
            }
            K::QuotedNewline => diags.push(mk(
                "Invalid multi-line string",
                "Quoted strings may not be split over multiple lines. To produce a multi-line string, either use the \\n escape to represent a newline character or use the \"heredoc\" multi-line template syntax.",
                tok,
            )),
            K::Invalid => {
                let chars = text.get(tok.start as usize..tok.end as usize).unwrap_or("");
                if chars == "\u{201C}" || chars == "\u{201D}" {
                    diags.push(mk(
                        "Invalid character",
                        "\"Curly quotes\" are not valid here. These can sometimes be inadvertently introduced when sharing code via documents or discussion forums. It might help to replace the character with a \"straight quote\".",
                        tok,
                    ));
                } else {
                    diags.push(mk("Invalid character", "This character is not used within the language.", tok));
                }
            }
            _ => {}
        }
    }
    diags
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Renders tokens as `Kind"text"` joined by spaces, for compact expectations.
    fn show(text: &str, mode: ScanMode) -> String {
        scan(text, mode)
            .iter()
            .map(|t| format!("{:?}{:?}", t.kind, &text[t.start as usize..t.end as usize]))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn scans_like_hcl() {
        let cases: &[(&str, &str)] = &[
            ("", r##"Eof"""##),
            (
                "a = 1\n",
                r##"Ident"a" Equal"=" NumberLit"1" Newline"\n" Eof"""##,
            ),
            ("a-b_c", r##"Ident"a-b_c" Eof"""##),
            (
                "1.2.3 1. 1e5 1e+5 1e 1.e5",
                r##"NumberLit"1.2.3" NumberLit"1" Dot"." NumberLit"1e5" NumberLit"1e+5" NumberLit"1" Ident"e" NumberLit"1.e5" Eof"""##,
            ),
            ("a.0.1", r##"Ident"a" Dot"." NumberLit"0.1" Eof"""##),
            (
                "== != >= <= && || :: ... => ..",
                r##"EqualOp"==" NotEqual"!=" GreaterThanEq">=" LessThanEq"<=" And"&&" Or"||" DoubleColon"::" Ellipsis"..." FatArrow"=>" Dot"." Dot"." Eof"""##,
            ),
            (
                "# c\nx // d\r\n/* e\n*/y",
                r##"Comment"# c\n" Ident"x" Comment"// d\r\n" Comment"/* e\n*/" Ident"y" Eof"""##,
            ),
            (
                "1 /* open",
                r##"NumberLit"1" Slash"/" Star"*" Ident"open" Eof"""##,
            ),
            (
                "\"a${b}c\"",
                r##"OQuote"\"" QuotedLit"a" TemplateInterp"${" Ident"b" TemplateSeqEnd"}" QuotedLit"c" CQuote"\"" Eof"""##,
            ),
            (
                "\"$${a} %%{b} $ %\"",
                r##"OQuote"\"" QuotedLit"$${a} %%{b} $ %" CQuote"\"" Eof"""##,
            ),
            (
                "\"${~ a ~}\"",
                r##"OQuote"\"" TemplateInterp"${~" Ident"a" TemplateSeqEnd"~}" CQuote"\"" Eof"""##,
            ),
            (
                "\"a\\\"b\"",
                r##"OQuote"\"" QuotedLit"a\\\"b" CQuote"\"" Eof"""##,
            ),
            (
                "\"a\nb\"",
                r##"OQuote"\"" QuotedLit"a" QuotedNewline"\n" QuotedLit"b" CQuote"\"" Eof"""##,
            ),
            (
                "\"a\\\n",
                r##"OQuote"\"" QuotedLit"a" Invalid"\\" QuotedNewline"\n" Eof"""##,
            ),
            ("\"x$", r##"OQuote"\"" QuotedLit"x" Invalid"$" Eof"""##),
            (
                "{ a = { b = 1 } }",
                r##"OBrace"{" Ident"a" Equal"=" OBrace"{" Ident"b" Equal"=" NumberLit"1" CBrace"}" CBrace"}" Eof"""##,
            ),
            (
                "\"${ {a=1} }\"",
                r##"OQuote"\"" TemplateInterp"${" OBrace"{" Ident"a" Equal"=" NumberLit"1" CBrace"}" TemplateSeqEnd"}" CQuote"\"" Eof"""##,
            ),
            (
                "<<EOT\nhello\n  EOT\n",
                r##"OHeredoc"<<EOT\n" StringLit"hello\n" CHeredoc"  EOT" Newline"\n" Eof"""##,
            ),
            (
                "<<-EOT\r\n a${b} EOT\r\nEOT\r\n",
                r##"OHeredoc"<<-EOT\r\n" StringLit" a" TemplateInterp"${" Ident"b" TemplateSeqEnd"}" StringLit" EOT\r\n" CHeredoc"EOT" Newline"\r\n" Eof"""##,
            ),
            (
                "<<EOF \nx",
                r##"LessThan"<" LessThan"<" Ident"EOF" Newline"\n" Ident"x" Eof"""##,
            ),
            (
                "<<EOT\nx\rEOT\n",
                r##"OHeredoc"<<EOT\n" StringLit"x" Invalid"\rEOT\n" Eof"""##,
            ),
            (
                "<<EOT\nx\nEOT",
                r##"OHeredoc"<<EOT\n" StringLit"x\n" StringLit"EOT" Eof"""##,
            ),
            (
                "& | ~ ^ ; ` ' \u{201C} \r",
                r##"BitwiseAnd"&" BitwiseOr"|" BitwiseNot"~" BitwiseXor"^" Semicolon";" Backtick"`" Apostrophe"'" Invalid"“" Invalid"\r" Eof"""##,
            ),
            ("a ~} b", r##"Ident"a" TemplateSeqEnd"~}" Ident"b" Eof"""##),
            ("\u{FEFF}a", r##"Ident"a" Eof"""##),
            ("é_1", r##"Ident"é_1" Eof"""##),
        ];
        for (input, want) in cases {
            assert_eq!(show(input, ScanMode::Normal), *want, "input {input:?}");
        }
    }

    #[test]
    fn scans_bare_templates() {
        let cases: &[(&str, &str)] = &[
            (
                "a\nb${c}\n",
                r##"StringLit"a\n" StringLit"b" TemplateInterp"${" Ident"c" TemplateSeqEnd"}" StringLit"\n" Eof"""##,
            ),
            ("x $", r##"StringLit"x $" Eof"""##),
            ("a\rb${c}", r##"StringLit"a" StringLit"\rb${c}" Eof"""##),
            (
                "%{ if a }b%{ endif }",
                r##"TemplateControl"%{" Ident"if" Ident"a" TemplateSeqEnd"}" StringLit"b" TemplateControl"%{" Ident"endif" TemplateSeqEnd"}" Eof"""##,
            ),
        ];
        for (input, want) in cases {
            assert_eq!(show(input, ScanMode::Template), *want, "input {input:?}");
        }
    }
}
