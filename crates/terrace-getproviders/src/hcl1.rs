//! A reader for HCL 1, the language of Terraform's CLI configuration file
//! (`.terraformrc`, `*.tfrc`). It differs from HCL 2 in ways real files
//! rely on: object keys may be quoted strings (`"hashicorp/null" =
//! "/path"` in `dev_overrides`), an item may have several keys (`credentials
//! "app.terraform.io" { ... }`), and `${...}` in strings is kept as text.
//!
//! The tree keeps only what the CLI configuration needs: items with their
//! keys and `=` (or not), literals, lists and objects, with positions.
//! Errors read like HCL 1's parser errors: `At LINE:COL: message`.

use std::fmt;

/// A 1-based line and column (columns count characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pos {
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    Eof,
    Ident,
    Number,
    Float,
    Bool,
    String,
    Heredoc,
    LBrack,
    RBrack,
    LBrace,
    RBrace,
    Comma,
    Period,
    Assign,
    Add,
    Sub,
    Comment,
    Illegal,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Tok::Eof => "EOF",
            Tok::Ident => "IDENT",
            Tok::Number => "NUMBER",
            Tok::Float => "FLOAT",
            Tok::Bool => "BOOL",
            Tok::String => "STRING",
            Tok::Heredoc => "HEREDOC",
            Tok::LBrack => "LBRACK",
            Tok::RBrack => "RBRACK",
            Tok::LBrace => "LBRACE",
            Tok::RBrace => "RBRACE",
            Tok::Comma => "COMMA",
            Tok::Period => "PERIOD",
            Tok::Assign => "ASSIGN",
            Tok::Add => "ADD",
            Tok::Sub => "SUB",
            Tok::Comment => "COMMENT",
            Tok::Illegal => "ILLEGAL",
        })
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub kind: Tok,
    pub pos: Pos,
    pub text: String,
}

#[derive(Clone, Debug)]
pub(crate) enum Node {
    Literal(Token),
    List { items: Vec<Node>, pos: Pos },
    Object { items: Vec<Item>, pos: Pos },
}

impl Node {
    pub fn pos(&self) -> Pos {
        match self {
            Node::Literal(t) => t.pos,
            Node::List { pos, .. } | Node::Object { pos, .. } => *pos,
        }
    }

    /// The Go type name HCL 1's decoder reports for this node.
    pub fn go_type(&self) -> &'static str {
        match self {
            Node::Literal(_) => "*ast.LiteralType",
            Node::List { .. } => "*ast.ListType",
            Node::Object { .. } => "*ast.ObjectType",
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Key {
    /// The key's value (quoted keys unquoted).
    pub name: String,
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub(crate) struct Item {
    pub keys: Vec<Key>,
    /// Where the `=` was, for `key = value` items.
    pub assign: Option<Pos>,
    pub val: Node,
}

impl Item {
    pub fn pos(&self) -> Pos {
        self.keys
            .first()
            .map(|k| k.pos)
            .unwrap_or_else(|| self.val.pos())
    }
}

/// The literal's value as a string, as HCL 1 decodes one into a string
/// field (`None` for a literal that is not text-like).
pub(crate) fn literal_string(t: &Token) -> Option<String> {
    match t.kind {
        Tok::String => unquote(&t.text).ok(),
        Tok::Heredoc => Some(heredoc_value(&t.text)),
        Tok::Number => Some(match parse_go_int(&t.text) {
            Some(n) => n.to_string(),
            None => t.text.clone(),
        }),
        Tok::Float | Tok::Bool => Some(t.text.clone()),
        _ => None,
    }
}

fn parse_go_int(s: &str) -> Option<i64> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let v = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        i64::from_str_radix(hex, 16).ok()?
    } else if digits.len() > 1 && digits.starts_with('0') {
        i64::from_str_radix(&digits[1..], 8).ok()?
    } else {
        digits.parse().ok()?
    };
    Some(if neg { -v } else { v })
}

fn heredoc_value(text: &str) -> String {
    // `<<ANCHOR\n...\nANCHOR`: the body is everything between the first
    // line and the closing anchor line, with its final newline.
    let Some(first_nl) = text.find('\n') else {
        return String::new();
    };
    let anchor = text[2..first_nl].trim_end_matches('\r');
    let body = &text[first_nl + 1..];
    let body = match body.rfind('\n') {
        Some(i) => &body[..=i],
        None => "",
    };
    if let Some(_anchor) = anchor.strip_prefix('-') {
        let lines: Vec<&str> = body.split_inclusive('\n').collect();
        let indent = lines
            .iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.len() - l.trim_start_matches([' ', '\t']).len())
            .min()
            .unwrap_or(0);
        lines
            .iter()
            .map(|l| {
                if l.len() >= indent {
                    &l[indent..]
                } else {
                    l.trim_start()
                }
            })
            .collect()
    } else {
        body.to_string()
    }
}

/// HCL 1's `strconv.Unquote`: Go escapes outside `${...}`, the text of
/// interpolations kept as written.
pub(crate) fn unquote(s: &str) -> Result<String, ()> {
    let inner = s
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .ok_or(())?;
    let mut out = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '$' if chars.peek() == Some(&'{') => {
                out.push('$');
                let mut braces = 0;
                for d in chars.by_ref() {
                    out.push(d);
                    match d {
                        '{' => braces += 1,
                        '}' => {
                            braces -= 1;
                            if braces == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                if braces != 0 {
                    return Err(());
                }
            }
            '\n' => return Err(()),
            '\\' => {
                let e = chars.next().ok_or(())?;
                let simple = match e {
                    'a' => Some('\u{7}'),
                    'b' => Some('\u{8}'),
                    'f' => Some('\u{c}'),
                    'n' => Some('\n'),
                    'r' => Some('\r'),
                    't' => Some('\t'),
                    'v' => Some('\u{b}'),
                    '\\' => Some('\\'),
                    '"' => Some('"'),
                    _ => None,
                };
                if let Some(ch) = simple {
                    out.push(ch);
                    continue;
                }
                let (radix, n) = match e {
                    'x' => (16, 2),
                    'u' => (16, 4),
                    'U' => (16, 8),
                    '0'..='7' => (8, 2),
                    _ => return Err(()),
                };
                let mut digits = String::new();
                if radix == 8 {
                    digits.push(e);
                }
                for _ in 0..n {
                    digits.push(chars.next().ok_or(())?);
                }
                let v = u32::from_str_radix(&digits, radix).map_err(|_| ())?;
                out.push(char::from_u32(v).ok_or(())?);
            }
            c => out.push(c),
        }
    }
    Ok(out)
}

/// A string token's text for `s`, which [`unquote`] turns back into `s`.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

struct Scanner<'a> {
    src: &'a str,
    /// Byte offset of the next character.
    off: usize,
    line: usize,
    column: usize,
    error: Option<String>,
}

fn is_letter(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || (!c.is_ascii() && c.is_alphabetic())
}

fn is_digit(c: char) -> bool {
    c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric())
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<char> {
        self.src[self.off..].chars().next()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.off += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.column = 0;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn here(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column.max(1),
        }
    }

    fn err(&mut self, msg: &str) {
        if self.error.is_none() {
            self.error = Some(format!("At {}: {msg}", self.here()));
        }
    }

    fn scan(&mut self) -> Token {
        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
            self.next();
        }
        let start = self.off;
        let pos = Pos {
            line: self.line,
            column: self.column + 1,
        };
        let kind = match self.next() {
            None => Tok::Eof,
            Some(c) if is_letter(c) => {
                while self
                    .peek()
                    .is_some_and(|c| is_letter(c) || is_digit(c) || c == '-' || c == '.')
                {
                    self.next();
                }
                match &self.src[start..self.off] {
                    "true" | "false" => Tok::Bool,
                    _ => Tok::Ident,
                }
            }
            Some(c) if c.is_ascii_digit() => self.number(),
            Some('"') => {
                self.string();
                Tok::String
            }
            Some('#') => {
                self.line_comment();
                Tok::Comment
            }
            Some('/') => match self.peek() {
                Some('/') => {
                    self.line_comment();
                    Tok::Comment
                }
                Some('*') => {
                    self.next();
                    let mut prev = ' ';
                    loop {
                        match self.next() {
                            None => {
                                self.err("comment not terminated");
                                break;
                            }
                            Some('/') if prev == '*' => break,
                            Some(c) => prev = c,
                        }
                    }
                    Tok::Comment
                }
                _ => {
                    self.err("expected '/' for comment");
                    Tok::Comment
                }
            },
            Some('.') => {
                if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.digits();
                    Tok::Float
                } else {
                    Tok::Period
                }
            }
            Some('<') => {
                self.heredoc();
                Tok::Heredoc
            }
            Some('[') => Tok::LBrack,
            Some(']') => Tok::RBrack,
            Some('{') => Tok::LBrace,
            Some('}') => Tok::RBrace,
            Some(',') => Tok::Comma,
            Some('=') => Tok::Assign,
            Some('+') => Tok::Add,
            Some('-') => {
                if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.next();
                    self.number()
                } else {
                    Tok::Sub
                }
            }
            Some(_) => {
                self.err("illegal char");
                Tok::Illegal
            }
        };
        Token {
            kind,
            pos,
            text: self.src[start..self.off].to_string(),
        }
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.next();
        }
    }

    fn number(&mut self) -> Tok {
        if self.src[..self.off].ends_with('0') && matches!(self.peek(), Some('x' | 'X')) {
            self.next();
            let start = self.off;
            while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                self.next();
            }
            if self.off == start {
                self.err("illegal hexadecimal number");
            }
            return Tok::Number;
        }
        self.digits();
        let mut kind = Tok::Number;
        if self.peek() == Some('.') {
            self.next();
            self.digits();
            kind = Tok::Float;
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            self.next();
            if matches!(self.peek(), Some('+' | '-')) {
                self.next();
            }
            self.digits();
            kind = Tok::Float;
        }
        kind
    }

    fn line_comment(&mut self) {
        while self.peek().is_some_and(|c| c != '\n') {
            self.next();
        }
    }

    fn string(&mut self) {
        let mut braces = 0usize;
        loop {
            let c = self.next();
            match c {
                None => {
                    self.err("literal not terminated");
                    return;
                }
                Some('\n') if braces == 0 => {
                    self.err("literal not terminated");
                    return;
                }
                Some('"') if braces == 0 => return,
                Some('$') if braces == 0 && self.peek() == Some('{') => {
                    braces += 1;
                    self.next();
                }
                Some('{') if braces > 0 => braces += 1,
                Some('}') if braces > 0 => braces -= 1,
                Some('\\') => match self.next() {
                    Some('a' | 'b' | 'f' | 'n' | 'r' | 't' | 'v' | '\\' | '"') => {}
                    Some('x') => self.escape_digits(16, 2),
                    Some('u') => self.escape_digits(16, 4),
                    Some('U') => self.escape_digits(16, 8),
                    Some('0'..='7') => self.escape_digits(8, 2),
                    _ => self.err("illegal char escape"),
                },
                Some(_) => {}
            }
        }
    }

    fn escape_digits(&mut self, radix: u32, n: usize) {
        for _ in 0..n {
            match self.peek() {
                Some(c) if c.is_digit(radix) => {
                    self.next();
                }
                _ => {
                    self.err("illegal char escape");
                    return;
                }
            }
        }
    }

    fn heredoc(&mut self) {
        if self.next() != Some('<') {
            self.err("heredoc expected second '<', didn't see it");
            return;
        }
        let anchor_start = self.off;
        if self.peek() == Some('-') {
            self.next();
        }
        while self.peek().is_some_and(|c| is_letter(c) || is_digit(c)) {
            self.next();
        }
        let anchor = self.src[anchor_start..self.off].to_string();
        if self.peek() == Some('\r') {
            self.next();
        }
        match self.next() {
            None => {
                self.err("heredoc not terminated");
                return;
            }
            Some('\n') => {}
            Some(_) => {
                self.err("invalid characters in heredoc anchor");
                return;
            }
        }
        let ident = anchor.trim_start_matches('-');
        if ident.is_empty() {
            self.err("zero-length heredoc anchor");
            return;
        }
        loop {
            let line_start = self.off;
            while self.peek().is_some_and(|c| c != '\n') {
                self.next();
            }
            let line = self.src[line_start..self.off].trim_end_matches('\r');
            if line.trim_start() == ident {
                return;
            }
            if self.next().is_none() {
                self.err("heredoc not terminated");
                return;
            }
        }
    }
}

struct Parser<'a> {
    sc: Scanner<'a>,
    tok: Token,
    /// A token pushed back by `unscan`.
    back: bool,
    /// Objects and lists open around the current token.
    depth: usize,
}

/// How deeply objects and lists may nest. CLI configurations nest a few
/// levels; the bound keeps a hostile file from exhausting the stack of
/// this recursive parser (HCL 1 in Go has none, but Go's stacks grow).
const MAX_NESTING: usize = 128;

type PResult<T> = Result<T, String>;

impl<'a> Parser<'a> {
    fn scan(&mut self) -> Token {
        if self.back {
            self.back = false;
            return self.tok.clone();
        }
        loop {
            let t = self.sc.scan();
            if t.kind != Tok::Comment {
                self.tok = t.clone();
                return t;
            }
        }
    }

    fn unscan(&mut self) {
        self.back = true;
    }

    fn object_list(&mut self, in_object: bool) -> PResult<Vec<Item>> {
        let mut items = Vec::new();
        loop {
            if in_object {
                let t = self.scan();
                self.unscan();
                if t.kind == Tok::RBrace {
                    break;
                }
            }
            match self.object_item()? {
                None => break,
                Some(item) => items.push(item),
            }
            if self.scan().kind != Tok::Comma {
                self.unscan();
            }
        }
        Ok(items)
    }

    /// One item, or `None` at the end of the input.
    fn object_item(&mut self) -> PResult<Option<Item>> {
        let mut keys: Vec<Key> = Vec::new();
        let at = |t: &Token, m: String| format!("At {}: {m}", t.pos);
        let opener = loop {
            let t = self.scan();
            match t.kind {
                Tok::Eof if keys.is_empty() => return Ok(None),
                Tok::Eof => {
                    let names: Vec<&str> = keys.iter().map(|k| k.name.as_str()).collect();
                    return Err(at(
                        &t,
                        format!(
                            "key '{}' expected start of object ('{{') or assignment ('=')",
                            names.join(" ")
                        ),
                    ));
                }
                Tok::Assign => {
                    if keys.len() > 1 {
                        return Err(at(&t, "nested object expected: LBRACE got: ASSIGN".into()));
                    }
                    if keys.is_empty() {
                        return Err(at(&t, "no object keys found!".into()));
                    }
                    break t;
                }
                Tok::LBrace => {
                    if keys.is_empty() {
                        return Err(at(&t, "expected: IDENT | STRING got: LBRACE".into()));
                    }
                    break t;
                }
                Tok::Ident => keys.push(Key {
                    name: t.text.clone(),
                    pos: t.pos,
                }),
                Tok::String => keys.push(Key {
                    name: unquote(&t.text).unwrap_or_else(|()| t.text.clone()),
                    pos: t.pos,
                }),
                Tok::Illegal => return Err(at(&t, "illegal character".into())),
                Tok::RBrace if !keys.is_empty() => {
                    let names: Vec<&str> = keys.iter().map(|k| k.name.as_str()).collect();
                    return Err(at(
                        &t,
                        format!(
                            "key '{}' expected start of object ('{{') or assignment ('=')",
                            names.join(" ")
                        ),
                    ));
                }
                other => {
                    return Err(at(
                        &t,
                        format!("expected: IDENT | STRING | ASSIGN | LBRACE got: {other}"),
                    ))
                }
            }
        };
        let (assign, val) = if opener.kind == Tok::Assign {
            (Some(opener.pos), self.value()?)
        } else {
            (None, self.object_type(opener.pos)?)
        };
        Ok(Some(Item { keys, assign, val }))
    }

    fn value(&mut self) -> PResult<Node> {
        let t = self.scan();
        match t.kind {
            Tok::Number | Tok::Float | Tok::Bool | Tok::String | Tok::Heredoc => Ok(Node::Literal(t)),
            Tok::LBrace => self.object_type(t.pos),
            Tok::LBrack => self.list_type(t.pos),
            Tok::Eof => Err(format!("At {}: literal not terminated", t.pos)),
            _ => Err(format!(
                "At {}: Unknown token: {{Type:{} Pos:{{Filename: Offset:0 Line:{} Column:{}}} Text:{} JSON:false}}",
                t.pos, t.kind, t.pos.line, t.pos.column, t.text
            )),
        }
    }

    /// Enters one level of nesting for the object or list at `pos`.
    fn enter(&mut self, pos: Pos) -> PResult<()> {
        if self.depth >= MAX_NESTING {
            return Err(format!(
                "At {pos}: objects and lists nest more than {MAX_NESTING} levels deep"
            ));
        }
        self.depth += 1;
        Ok(())
    }

    fn object_type(&mut self, pos: Pos) -> PResult<Node> {
        self.enter(pos)?;
        let node = self.object_type_inner(pos);
        self.depth -= 1;
        node
    }

    fn object_type_inner(&mut self, pos: Pos) -> PResult<Node> {
        let items = self.object_list(true)?;
        let t = self.scan();
        if t.kind != Tok::RBrace {
            return Err(format!(
                "At {}: object expected closing RBRACE got: {}",
                t.pos, t.kind
            ));
        }
        Ok(Node::Object { items, pos })
    }

    fn list_type(&mut self, pos: Pos) -> PResult<Node> {
        self.enter(pos)?;
        let node = self.list_type_inner(pos);
        self.depth -= 1;
        node
    }

    fn list_type_inner(&mut self, pos: Pos) -> PResult<Node> {
        let mut items = Vec::new();
        let mut need_comma = false;
        loop {
            let t = self.scan();
            if need_comma && !matches!(t.kind, Tok::Comma | Tok::RBrack) {
                return Err(format!(
                    "At {}: error parsing list, expected comma or list end, got: {}",
                    t.pos, t.kind
                ));
            }
            match t.kind {
                Tok::Bool | Tok::Number | Tok::Float | Tok::String | Tok::Heredoc => {
                    items.push(Node::Literal(t));
                    need_comma = true;
                }
                Tok::Comma => need_comma = false,
                Tok::LBrace => {
                    let node = self.object_type(t.pos).map_err(|e| {
                        format!(
                            "At {}: error while trying to parse object within list: {e}",
                            t.pos
                        )
                    })?;
                    items.push(node);
                    need_comma = true;
                }
                Tok::LBrack => {
                    let node = self.list_type(t.pos).map_err(|e| {
                        format!(
                            "At {}: error while trying to parse list within list: {e}",
                            t.pos
                        )
                    })?;
                    items.push(node);
                }
                Tok::RBrack => return Ok(Node::List { items, pos }),
                other => {
                    return Err(format!(
                        "At {}: unexpected token while parsing list: {other}",
                        t.pos
                    ))
                }
            }
        }
    }
}

/// Parses a whole file into its top-level items.
pub(crate) fn parse(src: &str) -> Result<Vec<Item>, String> {
    let src = src.replace("\r\n", "\n");
    let mut p = Parser {
        sc: Scanner {
            src: &src,
            off: 0,
            line: 1,
            column: 0,
            error: None,
        },
        tok: Token {
            kind: Tok::Eof,
            pos: Pos::default(),
            text: String::new(),
        },
        back: false,
        depth: 0,
    };
    let result = p.object_list(false);
    if let Some(e) = p.sc.error.take() {
        return Err(e);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cli_config_shapes() {
        let src = r#"
# comment
plugin_cache_dir = "$HOME/.terraform.d/plugin-cache" // trailing
disable_checkpoint = true
credentials "app.terraform.io" {
  token = "xxxxxx.atlasv1.zzzzzzzzzzzzz"
}
/* block
comment */
provider_installation {
  dev_overrides {
    "hashicorp/null" = "/home/dev/null"
  }
  filesystem_mirror {
    path    = "/usr/share/terraform/providers"
    include = ["example.com/*/*", ]
  }
  direct {
    exclude = ["example.com/*/*"]
  }
}
heredoc = <<EOT
line one
  line two
EOT
n = 0x10
"#;
        let items = match parse(src) {
            Ok(i) => i,
            Err(e) => panic!("{e}"),
        };
        let names: Vec<Vec<String>> = items
            .iter()
            .map(|i| i.keys.iter().map(|k| k.name.clone()).collect())
            .collect();
        assert_eq!(
            names,
            vec![
                vec!["plugin_cache_dir".to_string()],
                vec!["disable_checkpoint".into()],
                vec!["credentials".into(), "app.terraform.io".into()],
                vec!["provider_installation".into()],
                vec!["heredoc".into()],
                vec!["n".into()],
            ]
        );
        assert_eq!(
            items[3].pos(),
            Pos {
                line: 10,
                column: 1
            }
        );
        let Node::Object { items: methods, .. } = &items[3].val else {
            panic!()
        };
        assert_eq!(
            methods[0].keys[0].pos,
            Pos {
                line: 11,
                column: 3
            }
        );
        let Node::Object { items: ov, .. } = &methods[0].val else {
            panic!()
        };
        assert_eq!(ov[0].keys[0].name, "hashicorp/null");
        let Node::Literal(t) = &items[4].val else {
            panic!()
        };
        assert_eq!(literal_string(t).as_deref(), Some("line one\n  line two\n"));
        let Node::Literal(t) = &items[5].val else {
            panic!()
        };
        assert_eq!(literal_string(t).as_deref(), Some("16"));
        let Node::Literal(t) = &items[0].val else {
            panic!()
        };
        assert_eq!(
            literal_string(t).as_deref(),
            Some("$HOME/.terraform.d/plugin-cache")
        );
    }

    #[test]
    fn parse_errors_read_like_hcl1() {
        for (src, want) in [
            (
                "provider_installation {\n  filesystem_mirror { path = \"/tmp/tfx/mirror\" \n}\n",
                "At 4:1: object expected closing RBRACE got: EOF",
            ),
            ("a = \"x\nb", "At 2:0: literal not terminated"),
            (
                "a b = 1",
                "At 1:5: nested object expected: LBRACE got: ASSIGN",
            ),
            ("= 1", "At 1:1: no object keys found!"),
            ("{", "At 1:1: expected: IDENT | STRING got: LBRACE"),
            (
                "a = [1 2]",
                "At 1:8: error parsing list, expected comma or list end, got: NUMBER",
            ),
            (
                "a",
                "At 1:2: key 'a' expected start of object ('{') or assignment ('=')",
            ),
        ] {
            match parse(src) {
                Ok(items) => panic!("{src:?} parsed: {items:?}"),
                Err(e) => {
                    // Positions of scanner errors differ slightly from
                    // HCL 1's; the messages must match.
                    let msg = |s: &str| s.split_once(": ").map(|(_, m)| m.to_string());
                    assert_eq!(msg(&e), msg(want), "{src:?}: {e}");
                    if !want.contains("literal")
                        && !want.contains("key 'a'")
                        && !want.contains("RBRACE")
                    {
                        assert_eq!(e, want, "{src:?}");
                    }
                }
            }
        }
    }

    /// Nested blocks, objects and lists a thousand and a hundred thousand
    /// deep once overflowed the stack; past the limit they are an error.
    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let forms: [fn(usize) -> String; 3] = [
            |n| format!("a {}\n", "{ b ".repeat(n)),
            |n| format!("a = {}1{}\n", "{b = ".repeat(n), "}".repeat(n)),
            |n| format!("a = {}1{}\n", "[".repeat(n), "]".repeat(n)),
        ];
        for (i, form) in forms.iter().enumerate() {
            for n in [1_000, 100_000] {
                let outcome = std::thread::Builder::new()
                    .stack_size(2 << 20)
                    .spawn({
                        let text = form(n);
                        move || parse(&text).err()
                    })
                    .map(|h| h.join());
                match outcome {
                    Ok(Ok(Some(e))) => assert!(
                        e.contains("nest more than 128 levels deep"),
                        "form {i}, {n}: {e}"
                    ),
                    other => panic!("form {i}, {n}: {other:?}"),
                }
            }
        }
        // At the limit, a well-formed file still parses.
        let text = format!("a = {}1{}\n", "[".repeat(127), "]".repeat(127));
        assert!(parse(&text).is_ok());
        let text = format!("a = {}1{}\n", "{b = ".repeat(128), "}".repeat(128));
        assert!(parse(&text).is_ok());
    }

    #[test]
    fn unquoting() {
        assert_eq!(
            unquote(r#""a\tb\"c\\d\u00e9""#),
            Ok("a\tb\"c\\dé".to_string())
        );
        assert_eq!(unquote(r#""${var.x}\n""#), Ok("${var.x}\n".to_string()));
        assert_eq!(unquote(r#""\q""#), Err(()));
    }
}
