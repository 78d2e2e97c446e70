//! Test-only notation for values and types, so test tables can be written
//! and compared as text. The value syntax is HCL-like and round-trips
//! through `render`:
//!
//! `"s"`, `1.5`, `true`, `[tuple, elems]`, `{obj = attrs}`,
//! `tolist([..])`, `toset([..])`, `tomap({..})`,
//! `emptylist(T)`, `emptyset(T)`, `emptymap(T)`, `null(T)` (`null` alone
//! is `null(any)`), `unknown(T)` optionally followed by refinements in
//! braces (`{!null, prefix="a", >=1, <5, len>=1, len<=3}`), `?` for an
//! unknown of unknown type, `sensitive(v)`, `ephemeral(v)`.
//! Types use HCL constraint syntax: `list(string)`, `object({a=number,
//! b=optional(bool)})`, `tuple([string])`, `any`.

use crate::convert::{list_val, map_val, set_val};
use crate::number::Number;
use crate::types::Type;
use crate::value::{Marks, Refinement, Repr, Value};
use std::collections::{BTreeMap, BTreeSet};

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl<'a> Parser<'a> {
    fn new(s: &'a str) -> Self {
        Parser {
            s: s.as_bytes(),
            pos: 0,
        }
    }

    fn ws(&mut self) {
        while self.pos < self.s.len() && (self.s[self.pos] as char).is_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.pos).copied()
    }

    fn eat(&mut self, tok: &str) -> bool {
        self.ws();
        if self.s[self.pos..].starts_with(tok.as_bytes()) {
            self.pos += tok.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, tok: &str) {
        assert!(
            self.eat(tok),
            "expected {tok:?} at {} in {:?}",
            self.pos,
            String::from_utf8_lossy(self.s)
        );
    }

    fn ident(&mut self) -> String {
        self.ws();
        let start = self.pos;
        while self.pos < self.s.len()
            && (self.s[self.pos].is_ascii_alphanumeric() || self.s[self.pos] == b'_')
        {
            self.pos += 1;
        }
        String::from_utf8_lossy(&self.s[start..self.pos]).into_owned()
    }

    fn string(&mut self) -> String {
        self.expect("\"");
        let mut out = String::new();
        let rest = std::str::from_utf8(&self.s[self.pos..]).unwrap_or_default();
        let mut chars = rest.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos += i + 1;
                    return out;
                }
                '\\' => match chars.next() {
                    Some((_, 'n')) => out.push('\n'),
                    Some((_, 't')) => out.push('\t'),
                    Some((_, c)) => out.push(c),
                    None => break,
                },
                c => out.push(c),
            }
        }
        panic!("unterminated string");
    }

    fn key(&mut self) -> String {
        if self.peek() == Some(b'"') {
            self.string()
        } else {
            self.ident()
        }
    }

    fn ty(&mut self) -> Type {
        let name = self.ident();
        match name.as_str() {
            "string" => Type::String,
            "number" => Type::Number,
            "bool" => Type::Bool,
            "any" => Type::Dynamic,
            "list" | "set" | "map" => {
                self.expect("(");
                let e = self.ty();
                self.expect(")");
                match name.as_str() {
                    "list" => Type::list(e),
                    "set" => Type::set(e),
                    _ => Type::map(e),
                }
            }
            "tuple" => {
                self.expect("([");
                let mut elems = Vec::new();
                while !self.eat("])") {
                    elems.push(self.ty());
                    self.eat(",");
                }
                Type::tuple(elems)
            }
            "object" => {
                self.expect("({");
                let mut attrs = BTreeMap::new();
                let mut optional = BTreeSet::new();
                while !self.eat("})") {
                    let k = self.key();
                    self.expect("=");
                    let t = if self.eat("optional(") {
                        let t = self.ty();
                        self.expect(")");
                        optional.insert(k.clone());
                        t
                    } else {
                        self.ty()
                    };
                    attrs.insert(k, t);
                    self.eat(",");
                }
                Type::object_with_optional(attrs, optional)
            }
            other => panic!("unknown type {other:?}"),
        }
    }

    fn elems(&mut self, close: &str) -> Vec<Value> {
        let mut out = Vec::new();
        while !self.eat(close) {
            out.push(self.value());
            self.eat(",");
        }
        out
    }

    fn attrs(&mut self) -> BTreeMap<String, Value> {
        let mut out = BTreeMap::new();
        while !self.eat("}") {
            let k = self.key();
            self.expect("=");
            out.insert(k, self.value());
            self.eat(",");
        }
        out
    }

    fn typed_arg(&mut self) -> Type {
        self.expect("(");
        let t = self.ty();
        self.expect(")");
        t
    }

    fn refinement(&mut self, ty: &Type) -> Refinement {
        let mut r = Refinement::default();
        if !self.eat("{") {
            return r;
        }
        while !self.eat("}") {
            if self.eat("!null") {
                r.not_null = true;
            } else if self.eat("prefix=") {
                r.string_prefix = Some(self.string());
            } else if self.eat("len>=") {
                r.length_lower = Some(self.ident().parse().expect("length"));
            } else if self.eat("len<=") {
                r.length_upper = Some(self.ident().parse().expect("length"));
            } else {
                let (lower, inclusive) = if self.eat(">=") {
                    (true, true)
                } else if self.eat(">") {
                    (true, false)
                } else if self.eat("<=") {
                    (false, true)
                } else {
                    self.expect("<");
                    (false, false)
                };
                let n = self.number();
                if lower {
                    r.number_lower = Some((n, inclusive));
                } else {
                    r.number_upper = Some((n, inclusive));
                }
            }
            self.eat(",");
        }
        let _ = ty;
        r
    }

    fn number(&mut self) -> Number {
        self.ws();
        let start = self.pos;
        while self.pos < self.s.len()
            && matches!(
                self.s[self.pos],
                b'0'..=b'9' | b'.' | b'-' | b'+' | b'e' | b'E' | b'I' | b'n' | b'f'
            )
        {
            self.pos += 1;
        }
        let text = String::from_utf8_lossy(&self.s[start..self.pos]).into_owned();
        Number::parse(&text).unwrap_or_else(|| panic!("bad number {text:?}"))
    }

    fn value(&mut self) -> Value {
        match self.peek() {
            Some(b'"') => return Value::string(self.string()),
            Some(b'[') => {
                self.expect("[");
                return Value::tuple(self.elems("]"));
            }
            Some(b'{') => {
                self.expect("{");
                return Value::object(self.attrs());
            }
            Some(b'?') => {
                self.expect("?");
                return Value::dynamic();
            }
            Some(c) if c.is_ascii_digit() || c == b'-' || c == b'+' => {
                return Value::number(self.number())
            }
            _ => {}
        }
        let name = self.ident();
        match name.as_str() {
            "true" => Value::bool(true),
            "false" => Value::bool(false),
            "null" => {
                if self.peek() == Some(b'(') {
                    Value::null(self.typed_arg())
                } else {
                    Value::null(Type::Dynamic)
                }
            }
            "unknown" => {
                let t = self.typed_arg();
                let r = self.refinement(&t);
                Value::unknown_refined(t, r)
            }
            "emptylist" => Value::list(self.typed_arg(), Vec::new()),
            "emptyset" => Value::set(self.typed_arg(), Vec::new()),
            "emptymap" => Value::map(self.typed_arg(), BTreeMap::new()),
            "tolist" | "toset" => {
                self.expect("([");
                let elems = self.elems("]");
                self.expect(")");
                let v = if name == "tolist" {
                    list_val(elems)
                } else {
                    set_val(elems)
                };
                v.expect("consistent element types")
            }
            "tomap" => {
                self.expect("({");
                let attrs = self.attrs();
                self.expect(")");
                map_val(attrs).expect("consistent element types")
            }
            "sensitive" | "ephemeral" => {
                self.expect("(");
                let v = self.value();
                self.expect(")");
                v.mark(if name == "sensitive" {
                    Marks::SENSITIVE
                } else {
                    Marks::EPHEMERAL
                })
            }
            other => panic!("unknown value syntax {other:?}"),
        }
    }
}

/// Parses the test value notation.
pub(crate) fn val(s: &str) -> Value {
    let mut p = Parser::new(s);
    let v = p.value();
    p.ws();
    assert_eq!(p.pos, s.len(), "trailing input in {s:?}");
    v
}

/// Parses the test type notation.
pub(crate) fn ty(s: &str) -> Type {
    let mut p = Parser::new(s);
    let t = p.ty();
    p.ws();
    assert_eq!(p.pos, s.len(), "trailing input in {s:?}");
    t
}

fn render_key(k: &str) -> String {
    if !k.is_empty()
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !k.starts_with(|c: char| c.is_ascii_digit())
    {
        k.to_string()
    } else {
        crate::gostr::quote(k)
    }
}

fn render_refinement(r: &Refinement) -> String {
    let mut parts = Vec::new();
    if r.not_null {
        parts.push("!null".to_string());
    }
    if let Some(p) = &r.string_prefix {
        parts.push(format!("prefix={}", crate::gostr::quote(p)));
    }
    if let Some((n, inc)) = &r.number_lower {
        parts.push(format!("{}{}", if *inc { ">=" } else { ">" }, n));
    }
    if let Some((n, inc)) = &r.number_upper {
        parts.push(format!("{}{}", if *inc { "<=" } else { "<" }, n));
    }
    if let Some(l) = r.length_lower {
        parts.push(format!("len>={l}"));
    }
    if let Some(l) = r.length_upper {
        parts.push(format!("len<={l}"));
    }
    format!("{{{}}}", parts.join(", "))
}

/// Renders a value in the test notation.
pub(crate) fn render(v: &Value) -> String {
    let inner = match &v.repr {
        Repr::Null => format!("null({})", v.ty),
        Repr::Unknown(None) if v.ty.is_dynamic() => "?".to_string(),
        Repr::Unknown(None) => format!("unknown({})", v.ty),
        Repr::Unknown(Some(r)) => format!("unknown({}){}", v.ty, render_refinement(r)),
        Repr::Bool(b) => b.to_string(),
        Repr::Number(n) => n.to_string(),
        Repr::String(s) => crate::gostr::quote(s),
        Repr::Seq(elems) => {
            let parts: Vec<String> = elems.iter().map(render).collect();
            match &v.ty {
                Type::List(e) if elems.is_empty() => format!("emptylist({e})"),
                Type::Set(e) if elems.is_empty() => format!("emptyset({e})"),
                Type::List(_) => format!("tolist([{}])", parts.join(", ")),
                Type::Set(_) => format!("toset([{}])", parts.join(", ")),
                _ => format!("[{}]", parts.join(", ")),
            }
        }
        Repr::Attrs(attrs) => {
            let parts: Vec<String> = attrs
                .iter()
                .map(|(k, e)| format!("{} = {}", render_key(k), render(e)))
                .collect();
            match &v.ty {
                Type::Map(e) if attrs.is_empty() => format!("emptymap({e})"),
                Type::Map(_) => format!("tomap({{{}}})", parts.join(", ")),
                _ => format!("{{{}}}", parts.join(", ")),
            }
        }
    };
    let mut out = inner;
    if v.marks().is_ephemeral() {
        out = format!("ephemeral({out})");
    }
    if v.marks().is_sensitive() {
        out = format!("sensitive({out})");
    }
    out
}

#[test]
fn notation_round_trips() {
    for s in [
        "\"a\\\"b\"",
        "-1.5",
        "[1, \"a\", true, null(any)]",
        "{a = 1, \"b c\" = tolist([\"x\"])}",
        "toset([1, 2])",
        "tomap({k = emptylist(number)})",
        "emptyset(object({a=string}))",
        "unknown(number){!null, >=1, <5}",
        "unknown(string){prefix=\"ami-\"}",
        "unknown(list(string)){len>=1, len<=3}",
        "sensitive(ephemeral(\"x\"))",
        "?",
        "[unknown(bool)]",
    ] {
        assert_eq!(render(&val(s)), s);
    }
    assert_eq!(
        ty("object({a=optional(list(string)),b=tuple([number,any])})").type_string(),
        "object({a=optional(list(string)),b=tuple([number,any])})"
    );
}
