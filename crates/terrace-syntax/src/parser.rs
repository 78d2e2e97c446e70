//! Recursive-descent parser for HCL native syntax: bodies, expressions and
//! templates.
//!
//! It follows HCL's parser decision for decision (which token starts what,
//! when newlines matter, how it recovers from errors and which errors it
//! then stops reporting) so that diagnostics match what Terraform prints.
//! The one sticky `recovery` flag is HCL's: after the first recovery many
//! follow-on complaints are suppressed.

use crate::ast::{
    BinaryOp, BinaryOperand, Block, Body, Expr, ExprKind, ExprOrigin, ForExpr, NativeBody,
    ObjectItem, ObjectKey, SourceFile, Template, TemplatePart, Traversal, TraversalStep, UnaryOp,
};
use crate::diagnostic::Diagnostic;
use crate::lexer::{self, ScanMode, Token, TokenKind as K};
use crate::pos::Span;
use crate::text::{name_suggestion, SpanMap};
use std::collections::HashMap;
use terrace_value::gostr;

pub(crate) struct Parser<'a> {
    text: &'a str,
    tokens: Vec<Token>,
    next: usize,
    include_newlines: Vec<bool>,
    recovery: bool,
    /// Nesting depth of the recursive descent, bounded so that hostile
    /// input cannot overflow the stack.
    depth: u32,
    told_too_deep: bool,
    pub(crate) diags: Vec<Diagnostic>,
    source: &'a SourceFile,
    map: &'a SpanMap,
}

/// One step of a traversal parsed by [`Parser::parse_traversal`], which
/// (unlike expression traversals) may contain `[*]`.
pub(crate) enum ParsedStep {
    Step(TraversalStep),
    Splat(Span),
}

enum BodyItem {
    Attribute(crate::ast::Attribute),
    Block(Block),
}

/// The flat "template tokens" HCL builds before giving a template its
/// if/for structure. Literal positions stay in text coordinates until the
/// flush-heredoc adjustment is done.
enum TemplateToken {
    Literal {
        text: String,
        start: u32,
        end: u32,
    },
    Interp {
        expr: Expr,
    },
    If {
        condition: Expr,
        span: Span,
    },
    For {
        key_var: Option<String>,
        value_var: String,
        collection: Expr,
        span: Span,
    },
    EndCtrl {
        kind: EndCtrl,
        span: Span,
    },
    End {
        span: Span,
    },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum EndCtrl {
    Else,
    EndIf,
    EndFor,
}

impl EndCtrl {
    fn name(self) -> &'static str {
        match self {
            EndCtrl::Else => "else",
            EndCtrl::EndIf => "endif",
            EndCtrl::EndFor => "endfor",
        }
    }
}

fn binary_op(level: usize, kind: K) -> Option<BinaryOp> {
    use BinaryOp as B;
    match (level, kind) {
        (0, K::Or) => Some(B::Or),
        (1, K::And) => Some(B::And),
        (2, K::EqualOp) => Some(B::Equal),
        (2, K::NotEqual) => Some(B::NotEqual),
        (3, K::GreaterThan) => Some(B::Greater),
        (3, K::GreaterThanEq) => Some(B::GreaterOrEqual),
        (3, K::LessThan) => Some(B::Less),
        (3, K::LessThanEq) => Some(B::LessOrEqual),
        (4, K::Plus) => Some(B::Add),
        (4, K::Minus) => Some(B::Subtract),
        (5, K::Star) => Some(B::Multiply),
        (5, K::Slash) => Some(B::Divide),
        (5, K::Percent) => Some(B::Modulo),
        _ => None,
    }
}
const BINARY_LEVELS: usize = 6;

/// How deeply expressions, blocks and template directives may nest. Real
/// configurations stay far below; the limit only stops hostile input from
/// exhausting the stack.
pub(crate) const MAX_NESTING: u32 = 128;

fn opposite_bracket(kind: K) -> Option<K> {
    Some(match kind {
        K::OBrace => K::CBrace,
        K::OBrack => K::CBrack,
        K::OParen => K::CParen,
        K::OQuote => K::CQuote,
        K::OHeredoc => K::CHeredoc,
        K::CBrace => K::OBrace,
        K::CBrack => K::OBrack,
        K::CParen => K::OParen,
        K::CQuote => K::OQuote,
        K::CHeredoc => K::OHeredoc,
        K::TemplateControl | K::TemplateInterp => K::TemplateSeqEnd,
        K::TemplateSeqEnd => K::TemplateInterp,
        _ => return None,
    })
}

fn between(a: Span, b: Span) -> Span {
    Span {
        start: a.start,
        end: b.end.max(a.start),
    }
}

fn mk(kind: ExprKind, span: Span) -> Expr {
    Expr { kind, span }
}

/// Whether a number token is a valid decimal literal as cty parses them:
/// digits, an optional fraction and an optional exponent.
fn number_is_valid(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i == 0 {
        return false;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let digits = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == digits {
            return false;
        }
    }
    i == b.len()
}

/// A literal index key (`[0]`, `["a"]`, `[true]`, `[null]`) makes a static
/// traversal step rather than a dynamic index expression.
fn is_literal_key(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Number(_) | ExprKind::Bool(_) | ExprKind::Null => true,
        ExprKind::Template(t) => matches!(t.parts.as_slice(), [TemplatePart::Literal { .. }]),
        _ => false,
    }
}

/// Extends a traversal expression by one step, or starts a relative
/// traversal from any other expression.
fn make_relative_traversal(mut expr: Expr, step: TraversalStep, rng: Span) -> Expr {
    match &mut expr.kind {
        ExprKind::ScopeTraversal(t) => {
            t.steps.push(step);
            expr.span = between(expr.span, rng);
            expr
        }
        ExprKind::RelativeTraversal { steps, .. } => {
            steps.push(step);
            expr.span = between(expr.span, rng);
            expr
        }
        _ => {
            let span = between(expr.span, rng);
            mk(
                ExprKind::RelativeTraversal {
                    source: Box::new(expr),
                    steps: vec![step],
                },
                span,
            )
        }
    }
}

impl<'a> Parser<'a> {
    pub(crate) fn new(
        text: &'a str,
        mode: ScanMode,
        source: &'a SourceFile,
        map: &'a SpanMap,
    ) -> Parser<'a> {
        let tokens = lexer::scan(text, mode);
        let mut p = Parser {
            text,
            tokens,
            next: 0,
            include_newlines: vec![true],
            recovery: false,
            depth: 0,
            told_too_deep: false,
            diags: Vec::new(),
            source,
            map,
        };
        let lexer_diags = {
            let pp = &p;
            lexer::check_invalid_tokens(&pp.tokens, text, |summary, detail, tok| {
                Diagnostic::error(summary, detail).with_subject(pp.source.range(pp.tok_span(tok)))
            })
        };
        p.diags = lexer_diags;
        p
    }

    // ----- positions and diagnostics -----

    fn span(&self, start: u32, end: u32) -> Span {
        Span {
            start: self.map.map(start),
            end: self.map.map(end),
        }
    }

    fn tok_span(&self, tok: Token) -> Span {
        self.span(tok.start, tok.end)
    }

    fn tok_text(&self, tok: Token) -> &'a str {
        self.text
            .get(tok.start as usize..tok.end as usize)
            .unwrap_or("")
    }

    fn error(
        &mut self,
        summary: &str,
        detail: impl Into<String>,
        subject: Span,
        context: Option<Span>,
    ) {
        let mut d = Diagnostic::error(summary, detail).with_subject(self.source.range(subject));
        if let Some(c) = context {
            d = d.with_context(self.source.range(c));
        }
        self.diags.push(d);
    }

    /// A range as HCL's `Range.String()` prints it inside messages.
    fn range_string(&self, span: Span) -> String {
        self.source.range(span).to_string()
    }

    fn error_count(&self) -> usize {
        self.diags.len()
    }

    // ----- the peeker -----

    fn including_newlines(&self) -> bool {
        self.include_newlines.last().copied().unwrap_or(true)
    }

    fn push_newlines(&mut self, include: bool) {
        self.include_newlines.push(include);
    }

    fn pop_newlines(&mut self) {
        if self.include_newlines.len() > 1 {
            self.include_newlines.pop();
        }
    }

    fn next_token(&self) -> (Token, usize) {
        let include = self.including_newlines();
        let mut i = self.next;
        while i < self.tokens.len() {
            let tok = self.tokens[i];
            match tok.kind {
                K::Comment => {
                    // A line comment carries the newline that ends it.
                    if include && self.text.as_bytes().get(tok.end as usize - 1) == Some(&b'\n') {
                        return (
                            Token {
                                kind: K::Newline,
                                ..tok
                            },
                            i + 1,
                        );
                    }
                    i += 1;
                    continue;
                }
                K::Newline if !include => {
                    i += 1;
                    continue;
                }
                _ => return (tok, i + 1),
            }
        }
        let eof = self.tokens.last().copied().unwrap_or(Token {
            kind: K::Eof,
            start: 0,
            end: 0,
        });
        (eof, self.tokens.len())
    }

    fn peek(&self) -> Token {
        self.next_token().0
    }

    fn read(&mut self) -> Token {
        let (tok, next) = self.next_token();
        self.next = next;
        tok
    }

    fn next_span(&self) -> Span {
        self.tok_span(self.peek())
    }

    fn prev_span(&self) -> Span {
        if self.next == 0 {
            return self.next_span();
        }
        self.tok_span(self.tokens[self.next - 1])
    }

    fn peek_keyword(&self, kw: &str) -> bool {
        let t = self.peek();
        t.kind == K::Ident && self.tok_text(t) == kw
    }

    // ----- recovery -----

    fn set_recovery(&mut self) {
        self.recovery = true;
    }

    /// Enters one nesting level; false (with a diagnostic, once) when the
    /// input nests too deeply. Every call must be paired with `leave`.
    fn enter(&mut self) -> bool {
        self.depth += 1;
        if self.depth <= MAX_NESTING {
            return true;
        }
        self.report_too_deep();
        false
    }

    /// The diagnostic for input nested beyond [`MAX_NESTING`], given once.
    fn report_too_deep(&mut self) {
        if !self.told_too_deep {
            self.told_too_deep = true;
            let sp = self.next_span();
            self.error(
                "Nesting too deep",
                format!("This configuration nests expressions or blocks more than {MAX_NESTING} levels deep, which is not supported."),
                sp,
                None,
            );
        }
        self.set_recovery();
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Skips to just after the token `end` that closes the current nesting
    /// level (counting nested pairs of the same brackets).
    fn recover(&mut self, end: K) -> Token {
        let start = opposite_bracket(end);
        self.recovery = true;
        let mut nest = 0;
        loop {
            let tok = self.read();
            let mut kind = tok.kind;
            if end == K::TemplateSeqEnd && kind == K::TemplateControl {
                kind = K::TemplateInterp;
            }
            if Some(kind) == start {
                nest += 1;
            } else if kind == end {
                if nest < 1 {
                    return tok;
                }
                nest -= 1;
            } else if kind == K::Eof {
                return tok;
            }
        }
    }

    fn recover_over(&mut self, start: K) {
        loop {
            let tok = self.read();
            if tok.kind == start || tok.kind == K::Eof {
                break;
            }
        }
        if let Some(end) = opposite_bracket(start) {
            self.recover(end);
        }
    }

    fn recover_after_body_item(&mut self) {
        self.recovery = true;
        let mut open: Vec<K> = Vec::new();
        loop {
            let tok = self.read();
            match tok.kind {
                K::Newline if open.is_empty() => break,
                K::Eof => break,
                K::OBrace
                | K::OBrack
                | K::OParen
                | K::OQuote
                | K::OHeredoc
                | K::TemplateInterp
                | K::TemplateControl => open.push(tok.kind),
                K::CBrace | K::CBrack | K::CParen | K::CQuote | K::CHeredoc => {
                    let opener = opposite_bracket(tok.kind);
                    while let Some(&last) = open.last() {
                        if Some(last) == opener {
                            break;
                        }
                        open.pop();
                    }
                    open.pop();
                }
                K::TemplateSeqEnd => {
                    while let Some(&last) = open.last() {
                        if last == K::TemplateInterp || last == K::TemplateControl {
                            break;
                        }
                        open.pop();
                    }
                    open.pop();
                }
                _ => {}
            }
        }
    }

    // ----- bodies -----

    pub(crate) fn parse_config(&mut self) -> NativeBody {
        self.parse_body(K::Eof)
    }

    fn parse_body(&mut self, end: K) -> NativeBody {
        let body = if self.enter() {
            self.parse_body_inner(end)
        } else {
            let start_span = self.prev_span();
            let close = self.recover(end);
            let end_span = self.tok_span(close);
            NativeBody {
                span: between(start_span, end_span),
                end_span,
                ..NativeBody::default()
            }
        };
        self.leave();
        body
    }

    fn parse_body_inner(&mut self, end: K) -> NativeBody {
        let start_span = self.prev_span();
        let mut body = NativeBody::default();
        let mut seen: HashMap<String, Span> = HashMap::new();
        let end_span;
        loop {
            let next = self.peek();
            if next.kind == end {
                end_span = self.tok_span(next);
                self.read();
                break;
            }
            match next.kind {
                K::Newline => {
                    self.read();
                }
                K::Ident => match self.parse_body_item() {
                    Some(BodyItem::Block(b)) => body.blocks.push(b),
                    Some(BodyItem::Attribute(a)) => {
                        if let Some(&existing) = seen.get(&a.name) {
                            let detail = format!(
                                "The argument {} was already set at {}. Each argument may be set only once.",
                                gostr::quote(&a.name),
                                self.range_string(existing)
                            );
                            self.error("Attribute redefined", detail, a.name_span, None);
                        } else {
                            seen.insert(a.name.clone(), a.name_span);
                            body.attributes.push(a);
                        }
                    }
                    None => {}
                },
                _ => {
                    let bad = self.read();
                    if !self.recovery {
                        let bad_span = self.tok_span(bad);
                        match bad.kind {
                            K::OQuote => self.error(
                                "Invalid argument name",
                                "Argument names must not be quoted.",
                                bad_span,
                                None,
                            ),
                            K::Eof if end == K::CBrace => self.error(
                                "Unclosed configuration block",
                                "There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
                                start_span,
                                None,
                            ),
                            K::Eof => self.error(
                                "Unclosed configuration body",
                                "Found end of file before the end of this configuration body.",
                                start_span,
                                None,
                            ),
                            _ => self.error(
                                "Argument or block definition required",
                                "An argument or block definition is required here.",
                                bad_span,
                                None,
                            ),
                        }
                    }
                    end_span = self.prev_span();
                    self.recover(end);
                    break;
                }
            }
        }
        body.span = between(start_span, end_span);
        body.end_span = end_span;
        body
    }

    fn parse_body_item(&mut self) -> Option<BodyItem> {
        let ident = self.read();
        if ident.kind != K::Ident {
            self.recover_after_body_item();
            let span = self.tok_span(ident);
            self.error(
                "Argument or block definition required",
                "An argument or block definition is required here.",
                span,
                None,
            );
            return None;
        }
        match self.peek().kind {
            K::Equal => Some(BodyItem::Attribute(
                self.finish_parsing_body_attribute(ident, false),
            )),
            K::OQuote | K::OBrace | K::Ident => {
                Some(BodyItem::Block(self.finish_parsing_body_block(ident)))
            }
            _ => {
                self.recover_after_body_item();
                let span = self.tok_span(ident);
                self.error(
                    "Argument or block definition required",
                    "An argument or block definition is required here. To set an argument, use the equals sign \"=\" to introduce the argument value.",
                    span,
                    None,
                );
                None
            }
        }
    }

    fn parse_single_attr_body(&mut self) -> Option<NativeBody> {
        let ident = self.read();
        if ident.kind != K::Ident {
            self.recover_after_body_item();
            let span = self.tok_span(ident);
            self.error(
                "Argument or block definition required",
                "An argument or block definition is required here.",
                span,
                None,
            );
            return None;
        }
        let next = self.peek();
        match next.kind {
            K::Equal => {
                let attr = self.finish_parsing_body_attribute(ident, true);
                let span = attr.span;
                Some(NativeBody {
                    attributes: vec![attr],
                    blocks: Vec::new(),
                    span,
                    end_span: Span {
                        start: span.end,
                        end: span.end,
                    },
                })
            }
            K::OQuote | K::OBrace | K::Ident => {
                self.recover_after_body_item();
                let detail = format!(
                    "A single-line block definition can contain only a single argument. If you meant to define argument {}, use an equals sign to assign it a value. To define a nested block, place it on a line of its own within its parent block.",
                    gostr::quote(self.tok_text(ident))
                );
                let span = between(self.tok_span(ident), self.tok_span(next));
                self.error("Argument definition required", detail, span, None);
                None
            }
            _ => {
                self.recover_after_body_item();
                let span = self.tok_span(ident);
                self.error(
                    "Argument or block definition required",
                    "An argument or block definition is required here. To set an argument, use the equals sign \"=\" to introduce the argument value.",
                    span,
                    None,
                );
                None
            }
        }
    }

    fn finish_parsing_body_attribute(
        &mut self,
        ident: Token,
        single_line: bool,
    ) -> crate::ast::Attribute {
        self.read(); // the equals sign
        let before = self.error_count();
        let expr = self.parse_expression();
        let failed = self.error_count() > before;
        let ident_span = self.tok_span(ident);
        let end_span;
        if self.recovery && failed {
            end_span = self.prev_span();
            self.recover_after_body_item();
        } else {
            let mut e = self.prev_span();
            if !single_line {
                let end = self.peek();
                if end.kind != K::Newline && end.kind != K::Eof {
                    if !self.recovery {
                        let (summary, detail) = if end.kind == K::Comma {
                            (
                                "Unexpected comma after argument",
                                "Argument definitions must be separated by newlines, not commas. An argument definition must end with a newline.",
                            )
                        } else {
                            (
                                "Missing newline after argument",
                                "An argument definition must end with a newline.",
                            )
                        };
                        let end_sp = self.tok_span(end);
                        self.error(summary, detail, end_sp, Some(between(ident_span, end_sp)));
                    }
                    e = self.prev_span();
                    self.recover_after_body_item();
                } else {
                    e = self.prev_span();
                    self.read();
                }
            }
            end_span = e;
        }
        crate::ast::Attribute {
            name: self.tok_text(ident).to_string(),
            name_span: ident_span,
            expr,
            span: between(ident_span, end_span),
        }
    }

    fn finish_parsing_body_block(&mut self, ident: Token) -> Block {
        let block_type = self.tok_text(ident).to_string();
        let type_span = self.tok_span(ident);
        let mut labels: Vec<(String, Span)> = Vec::new();
        let obrace;
        loop {
            let tok = self.peek();
            match tok.kind {
                K::OBrace => {
                    obrace = self.read();
                    break;
                }
                K::OQuote => {
                    let (label, span) = self.parse_quoted_string_literal();
                    labels.push((label, span));
                }
                K::Ident => {
                    let t = self.read();
                    labels.push((self.tok_text(t).to_string(), self.tok_span(t)));
                }
                _ => {
                    let sp = self.tok_span(tok);
                    let ctx = Some(between(type_span, sp));
                    match tok.kind {
                        K::Equal => self.error(
                            "Invalid block definition",
                            "The equals sign \"=\" indicates an argument definition, and must not be used when defining a block.",
                            sp,
                            ctx,
                        ),
                        K::Newline => self.error(
                            "Invalid block definition",
                            "A block definition must have block content delimited by \"{\" and \"}\", starting on the same line as the block header.",
                            sp,
                            ctx,
                        ),
                        _ => {
                            if !self.recovery {
                                self.error(
                                    "Invalid block definition",
                                    "Either a quoted string block label or an opening brace (\"{\") is expected here.",
                                    sp,
                                    ctx,
                                )
                            }
                        }
                    }
                    self.recover_after_body_item();
                    return Block {
                        block_type,
                        type_span,
                        labels,
                        body: Body::Native(NativeBody {
                            attributes: Vec::new(),
                            blocks: Vec::new(),
                            span: type_span,
                            end_span: type_span,
                        }),
                        span: type_span,
                        open_brace_span: type_span,
                    };
                }
            }
        }
        let obrace_span = self.tok_span(obrace);

        let body = match self.peek().kind {
            K::Newline | K::Eof | K::CBrace => Some(self.parse_body(K::CBrace)),
            _ => {
                // HCL reports problems with the closing brace of a one-line
                // block before those found inside it.
                let mark = self.diags.len();
                let body = self.parse_single_attr_body();
                let body_diags = self.diags.split_off(mark);
                let next = self.peek();
                let next_span = self.tok_span(next);
                match next.kind {
                    K::CBrace => {
                        self.read();
                    }
                    K::Comma => {
                        self.error(
                            "Invalid single-argument block definition",
                            "Single-line block syntax can include only one argument definition. To define multiple arguments, use the multi-line block syntax with one argument definition per line.",
                            next_span,
                            None,
                        );
                        self.recover(K::CBrace);
                    }
                    K::Newline => {
                        self.error(
                            "Invalid single-argument block definition",
                            "An argument definition on the same line as its containing block creates a single-line block definition, which must also be closed on the same line. Place the block's closing brace immediately after the argument definition.",
                            next_span,
                            None,
                        );
                        self.recover(K::CBrace);
                    }
                    _ => {
                        if !self.recovery {
                            if next.kind == K::Eof {
                                self.error(
                                    "Unclosed configuration block",
                                    "There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
                                    obrace_span,
                                    Some(between(type_span, obrace_span)),
                                );
                            } else {
                                self.error(
                                    "Invalid single-argument block definition",
                                    "A single-line block definition must end with a closing brace immediately after its single argument definition.",
                                    next_span,
                                    None,
                                );
                            }
                        }
                        self.recover(K::CBrace);
                    }
                }
                self.diags.extend(body_diags);
                body
            }
        };
        let cbrace_span = self.prev_span();

        let eol = self.peek();
        if eol.kind == K::Newline || eol.kind == K::Eof {
            self.read();
        } else {
            if !self.recovery {
                let sp = self.tok_span(eol);
                self.error(
                    "Missing newline after block definition",
                    "A block definition must end with a newline.",
                    sp,
                    Some(between(type_span, sp)),
                );
            }
            self.recover_after_body_item();
        }

        let body = body.unwrap_or(NativeBody {
            attributes: Vec::new(),
            blocks: Vec::new(),
            span: between(obrace_span, cbrace_span),
            end_span: cbrace_span,
        });
        Block {
            block_type,
            type_span,
            labels,
            body: Body::Native(body),
            span: between(type_span, cbrace_span),
            open_brace_span: obrace_span,
        }
    }

    // ----- expressions -----

    pub(crate) fn parse_expression(&mut self) -> Expr {
        let e = if self.enter() {
            self.parse_ternary_conditional()
        } else {
            mk(ExprKind::Invalid, self.next_span())
        };
        self.leave();
        e
    }

    /// A whole input that must be a single expression (HCL's ParseExpression).
    pub(crate) fn parse_standalone_expression(&mut self) -> Expr {
        self.push_newlines(false);
        let expr = self.parse_expression();
        let next = self.peek();
        if next.kind != K::Eof && !self.recovery {
            let sp = self.tok_span(next);
            self.error(
                "Extra characters after expression",
                "An expression was successfully parsed, but extra characters were found after it.",
                sp,
                None,
            );
        }
        self.pop_newlines();
        expr
    }

    fn parse_ternary_conditional(&mut self) -> Expr {
        let start_span = self.next_span();
        let before = self.error_count();
        let cond = self.parse_binary_ops(0);
        if self.recovery && self.error_count() > before {
            return cond;
        }
        if self.peek().kind != K::Question {
            return cond;
        }
        self.read();
        let before = self.error_count();
        let true_result = self.parse_expression();
        if self.recovery && self.error_count() > before {
            return cond;
        }
        let colon = self.peek();
        if colon.kind != K::Colon {
            let sp = self.tok_span(colon);
            self.error(
                "Missing false expression in conditional",
                "The conditional operator (...?...:...) requires a false expression, delimited by a colon.",
                sp,
                Some(between(start_span, sp)),
            );
            return cond;
        }
        self.read();
        let before = self.error_count();
        let false_result = self.parse_expression();
        if self.recovery && self.error_count() > before {
            return cond;
        }
        let span = between(start_span, false_result.span);
        mk(
            ExprKind::Conditional {
                condition: Box::new(cond),
                true_result: Box::new(true_result),
                false_result: Box::new(false_result),
            },
            span,
        )
    }

    /// Binary operators by precedence climbing: the same trees as HCL's
    /// one-function-per-precedence-level recursion (left-associative within
    /// a level), with one stack frame per operand instead of six. Operators
    /// of one level extend one flat chain, so the length of a chain never
    /// costs stack.
    ///
    /// On an error inside an operand while recovering, HCL abandons the
    /// whole operator chain and keeps what was built at the failing level;
    /// every enclosing level then returns its own left operand.
    fn parse_binary_ops(&mut self, min_level: usize) -> Expr {
        let before = self.error_count();
        let mut lhs = self.parse_expression_with_traversals();
        if self.recovery && self.error_count() > before {
            return lhs;
        }
        // The level of the chain `lhs` is, when this call built it.
        let mut chain_level: Option<usize> = None;
        loop {
            let next = self.peek();
            let Some((op, level)) =
                (min_level..BINARY_LEVELS).find_map(|l| binary_op(l, next.kind).map(|o| (o, l)))
            else {
                break;
            };
            let op_tok = self.read();
            let before = self.error_count();
            let rhs = self.parse_binary_ops(level + 1);
            if self.recovery && self.error_count() > before {
                return lhs;
            }
            let span = between(lhs.span, rhs.span);
            let operand = BinaryOperand {
                op,
                op_span: self.tok_span(op_tok),
                rhs,
            };
            if chain_level == Some(level) {
                if let ExprKind::Binary { rest, .. } = &mut lhs.kind {
                    rest.push(operand);
                    lhs.span = span;
                    continue;
                }
            }
            // Operators of higher levels were all taken by `rhs`, so a new
            // level here is a lower one: the chain so far is its first operand.
            chain_level = Some(level);
            lhs = mk(
                ExprKind::Binary {
                    first: Box::new(lhs),
                    rest: vec![operand],
                },
                span,
            );
        }
        lhs
    }

    fn parse_expression_with_traversals(&mut self) -> Expr {
        let term = self.parse_expression_term();
        self.parse_expression_traversals(term)
    }

    fn legacy_index_step(
        &mut self,
        dot: Token,
        num: Token,
        splat_marker: Option<Token>,
    ) -> TraversalStep {
        let text = self.tok_text(num);
        let num_span = self.tok_span(num);
        let rng = between(self.tok_span(dot), num_span);
        if let Some((first, second)) = text.split_once('.') {
            // `foo.0.1` scans `0.1` as one number.
            let (detail, subject) = match splat_marker {
                None => (
                    format!("When using the legacy index syntax, chaining two indexes together is not permitted. Use the proper index syntax instead, like [{first}][{second}]."),
                    num_span,
                ),
                Some(marker) => (
                    format!("When using the legacy index syntax, chaining two indexes together is not permitted. Use the proper index syntax with a full splat expression [*] instead, like [{first}][{second}]."),
                    self.tok_span(marker),
                ),
            };
            self.error("Invalid legacy index syntax", detail, subject, None);
            return TraversalStep::Index {
                key: Box::new(mk(ExprKind::Invalid, num_span)),
                span: rng,
            };
        }
        let key = self.number_literal(num);
        TraversalStep::Index {
            key: Box::new(key),
            span: rng,
        }
    }

    fn number_literal(&mut self, tok: Token) -> Expr {
        let text = self.tok_text(tok);
        let sp = self.tok_span(tok);
        if number_is_valid(text) {
            mk(ExprKind::Number(text.to_string()), sp)
        } else {
            self.error(
                "Invalid number literal",
                "Failed to recognize the value of this number literal.",
                sp,
                None,
            );
            mk(ExprKind::Invalid, sp)
        }
    }

    fn parse_expression_traversals(&mut self, from: Expr) -> Expr {
        let from_span = from.span;
        let mut ret = from;
        // Index and splat steps wrap what came before, so a long run of them
        // nests as deeply as parentheses would; they count towards the same
        // limit.
        let mut wrapping_steps = 0u32;
        'traversal: loop {
            let wraps_previous = match &ret.kind {
                ExprKind::Index { .. } | ExprKind::Splat { .. } => true,
                ExprKind::RelativeTraversal { steps, .. } => steps.len() == 1,
                _ => false,
            };
            if wraps_previous {
                wrapping_steps += 1;
                if self.depth + wrapping_steps > MAX_NESTING {
                    self.report_too_deep();
                    ret = mk(ExprKind::Invalid, ret.span);
                }
            }
            let next = self.peek();
            match next.kind {
                K::Dot => {
                    let dot = self.read();
                    let attr_tok = self.peek();
                    match attr_tok.kind {
                        K::Ident => {
                            let t = self.read();
                            let rng = between(self.tok_span(dot), self.tok_span(t));
                            let step = TraversalStep::Attr {
                                name: self.tok_text(t).to_string(),
                                span: rng,
                            };
                            ret = make_relative_traversal(ret, step, rng);
                        }
                        K::NumberLit => {
                            let num = self.read();
                            let rng = between(self.tok_span(dot), self.tok_span(num));
                            let step = self.legacy_index_step(dot, num, None);
                            ret = make_relative_traversal(ret, step, rng);
                        }
                        K::Star => {
                            // The attribute-only splat inherited from HIL:
                            // only `.name` and `.0` steps belong to it.
                            let marker = self.read();
                            let mut steps = Vec::new();
                            let first_span = self.next_span();
                            let mut last_span = self.tok_span(marker);
                            while self.peek().kind == K::Dot {
                                let dot2 = self.read();
                                if self.peek().kind == K::NumberLit {
                                    let num = self.read();
                                    steps.push(self.legacy_index_step(dot2, num, Some(attr_tok)));
                                    last_span = self.tok_span(num);
                                    continue;
                                }
                                if self.peek().kind != K::Ident {
                                    if !self.recovery {
                                        let nt = self.peek();
                                        if nt.kind == K::Star {
                                            let sp = self.tok_span(nt);
                                            self.error(
                                                "Nested splat expression not allowed",
                                                "A splat expression (*) cannot be used inside another attribute-only splat expression.",
                                                sp,
                                                None,
                                            );
                                        } else {
                                            let sp = self.tok_span(attr_tok);
                                            self.error(
                                                "Invalid attribute name",
                                                "An attribute name is required after a dot.",
                                                sp,
                                                None,
                                            );
                                        }
                                    }
                                    self.set_recovery();
                                    continue 'traversal;
                                }
                                let a = self.read();
                                steps.push(TraversalStep::Attr {
                                    name: self.tok_text(a).to_string(),
                                    span: between(self.tok_span(dot2), self.tok_span(a)),
                                });
                                last_span = self.tok_span(a);
                            }
                            let item = mk(
                                ExprKind::AnonSymbol,
                                between(self.tok_span(dot), self.tok_span(marker)),
                            );
                            let each = if steps.is_empty() {
                                item
                            } else {
                                mk(
                                    ExprKind::RelativeTraversal {
                                        source: Box::new(item),
                                        steps,
                                    },
                                    between(first_span, last_span),
                                )
                            };
                            ret = mk(
                                ExprKind::Splat {
                                    source: Box::new(ret),
                                    each: Box::new(each),
                                    full: false,
                                },
                                between(from_span, last_span),
                            );
                        }
                        _ => {
                            let sp = self.tok_span(attr_tok);
                            self.error(
                                "Invalid attribute name",
                                "An attribute name is required after a dot.",
                                sp,
                                None,
                            );
                            ret = mk(ExprKind::Invalid, between(from_span, self.tok_span(dot)));
                            self.set_recovery();
                        }
                    }
                }
                K::OBrack => {
                    let open = self.read();
                    let open_span = self.tok_span(open);
                    if self.peek().kind == K::Star {
                        // A full splat takes every following traversal step.
                        self.read();
                        let mut close = self.read();
                        if close.kind != K::CBrack && !self.recovery {
                            close = self.recover(K::CBrack);
                            // HCL's diagnostic points at its `close`
                            // variable, which recovery has just replaced.
                            let sp = self.tok_span(close);
                            self.error(
                                "Missing close bracket on splat index",
                                "The star for a full splat operator must be immediately followed by a closing bracket (\"]\").",
                                sp,
                                None,
                            );
                        }
                        let item = mk(
                            ExprKind::AnonSymbol,
                            between(open_span, self.tok_span(close)),
                        );
                        let each = if self.enter() {
                            self.parse_expression_traversals(item)
                        } else {
                            item
                        };
                        self.leave();
                        let span = between(from_span, each.span);
                        ret = mk(
                            ExprKind::Splat {
                                source: Box::new(ret),
                                each: Box::new(each),
                                full: true,
                            },
                            span,
                        );
                    } else {
                        self.push_newlines(false);
                        let before = self.error_count();
                        let key = self.parse_expression();
                        let close = if self.recovery && self.error_count() > before {
                            self.recover(K::CBrack)
                        } else {
                            let close = self.read();
                            if close.kind != K::CBrack && !self.recovery {
                                // As above, the subject is the token recovery
                                // stops at.
                                let close = self.recover(K::CBrack);
                                let sp = self.tok_span(close);
                                self.error(
                                    "Missing close bracket on index",
                                    "The index operator must end with a closing bracket (\"]\").",
                                    sp,
                                    None,
                                );
                                close
                            } else {
                                close
                            }
                        };
                        self.pop_newlines();
                        let rng = between(open_span, self.tok_span(close));
                        if is_literal_key(&key) {
                            ret = make_relative_traversal(
                                ret,
                                TraversalStep::Index {
                                    key: Box::new(key),
                                    span: rng,
                                },
                                rng,
                            );
                        } else {
                            let span = between(from_span, rng);
                            ret = mk(
                                ExprKind::Index {
                                    collection: Box::new(ret),
                                    key: Box::new(key),
                                    open_bracket_span: open_span,
                                },
                                span,
                            );
                        }
                    }
                }
                _ => break,
            }
        }
        ret
    }

    fn parse_expression_term(&mut self) -> Expr {
        let start = self.peek();
        let start_span = self.tok_span(start);
        match start.kind {
            K::OParen => {
                let oparen = self.read();
                self.push_newlines(false);
                let before = self.error_count();
                let expr = self.parse_expression();
                if self.error_count() > before {
                    self.recover(K::CParen);
                    self.pop_newlines();
                    return expr;
                }
                let close = self.peek();
                if close.kind != K::CParen {
                    let sp = self.tok_span(close);
                    self.error(
                        "Unbalanced parentheses",
                        "Expected a closing parenthesis to terminate the expression.",
                        sp,
                        Some(between(start_span, sp)),
                    );
                    self.set_recovery();
                }
                let cparen = self.read();
                self.pop_newlines();
                let span = between(self.tok_span(oparen), self.tok_span(cparen));
                mk(ExprKind::Parens(Box::new(expr)), span)
            }
            K::NumberLit => {
                let tok = self.read();
                self.number_literal(tok)
            }
            K::Ident => {
                let tok = self.read();
                let next = self.peek().kind;
                if next == K::OParen || next == K::DoubleColon {
                    return self.finish_parsing_function_call(tok);
                }
                let name = self.tok_text(tok);
                match name {
                    "true" => mk(ExprKind::Bool(true), start_span),
                    "false" => mk(ExprKind::Bool(false), start_span),
                    "null" => mk(ExprKind::Null, start_span),
                    _ => mk(
                        ExprKind::ScopeTraversal(Traversal {
                            root: name.to_string(),
                            root_span: start_span,
                            steps: Vec::new(),
                        }),
                        start_span,
                    ),
                }
            }
            K::OQuote | K::OHeredoc => {
                let open = self.read();
                let closer = if open.kind == K::OQuote {
                    K::CQuote
                } else {
                    K::CHeredoc
                };
                let flush = open.kind == K::OHeredoc && self.tok_text(open).starts_with("<<-");
                let (parts, passthru) = self.parse_template_inner(closer, flush);
                let span = between(self.tok_span(open), self.prev_span());
                self.template_expr(parts, passthru, open.kind == K::OHeredoc, span)
            }
            K::Minus | K::Bang => {
                let tok = self.read();
                // Only the term and its traversals: `-1 + 2` is `(-1) + 2`.
                let operand = if self.enter() {
                    self.parse_expression_with_traversals()
                } else {
                    mk(ExprKind::Invalid, self.next_span())
                };
                self.leave();
                let op = if tok.kind == K::Minus {
                    UnaryOp::Negate
                } else {
                    UnaryOp::Not
                };
                let span = between(self.tok_span(tok), operand.span);
                mk(
                    ExprKind::Unary {
                        op,
                        operand: Box::new(operand),
                    },
                    span,
                )
            }
            K::OBrack => self.parse_tuple_cons(),
            K::OBrace => self.parse_object_cons(),
            _ => {
                if !self.recovery {
                    if start.kind == K::Eof {
                        self.error(
                            "Missing expression",
                            "Expected the start of an expression, but found the end of the file.",
                            start_span,
                            None,
                        );
                    } else {
                        self.error(
                            "Invalid expression",
                            "Expected the start of an expression, but found an invalid expression token.",
                            start_span,
                            None,
                        );
                    }
                }
                self.set_recovery();
                mk(ExprKind::Invalid, start_span)
            }
        }
    }

    /// A template that is exactly one interpolation (`"${x}"`) yields the
    /// interpolated value itself, as HCL's TemplateWrapExpr.
    fn template_expr(
        &self,
        mut parts: Vec<TemplatePart>,
        passthru: bool,
        heredoc: bool,
        span: Span,
    ) -> Expr {
        if passthru && parts.len() == 1 {
            if let Some(TemplatePart::Interpolation(inner)) = parts.pop() {
                return mk(ExprKind::TemplateWrap(Box::new(inner)), span);
            }
            return mk(ExprKind::Invalid, span);
        }
        mk(
            ExprKind::Template(Template {
                parts,
                heredoc,
                origin: ExprOrigin::Native,
            }),
            span,
        )
    }

    fn finish_parsing_function_call(&mut self, name: Token) -> Expr {
        let name_tok_span = self.tok_span(name);
        let mut open = self.read();
        let mut full_name = self.tok_text(name).to_string();
        let mut name_end = name.end;
        while open.kind == K::DoubleColon {
            let next_name = self.read();
            if next_name.kind != K::Ident {
                let sp = self.tok_span(next_name);
                self.error(
                    "Missing function name",
                    "Function scope resolution symbol :: must be followed by a function name in this scope.",
                    sp,
                    Some(between(name_tok_span, sp)),
                );
                self.recover_over(K::OParen);
                return mk(ExprKind::Invalid, between(name_tok_span, sp));
            }
            full_name.push_str("::");
            full_name.push_str(self.tok_text(next_name));
            name_end = next_name.end;
            open = self.read();
        }
        let name_span = self.span(name.start, name_end);
        let open_span = self.tok_span(open);
        if open.kind != K::OParen {
            self.error(
                "Missing open parenthesis",
                "Function selector must be followed by an open parenthesis to begin the function call.",
                open_span,
                Some(between(name_tok_span, open_span)),
            );
            self.recover_over(K::OParen);
            return mk(ExprKind::Invalid, between(name_tok_span, open_span));
        }

        let mut args = Vec::new();
        let mut expand_final = false;
        let mut close_span: Option<Span> = None;
        self.push_newlines(false);
        loop {
            let tok = self.peek();
            if tok.kind == K::CParen {
                let c = self.read();
                close_span = Some(self.tok_span(c));
                break;
            }
            let before = self.error_count();
            let arg = self.parse_expression();
            args.push(arg);
            if self.recovery && self.error_count() > before {
                let rec = self.recover(K::CParen);
                if rec.kind == K::CParen {
                    close_span = Some(self.tok_span(rec));
                }
                break;
            }
            let sep = self.read();
            let sep_span = self.tok_span(sep);
            if sep.kind == K::CParen {
                close_span = Some(sep_span);
                break;
            }
            if sep.kind == K::Ellipsis {
                expand_final = true;
                if self.peek().kind != K::CParen {
                    if !self.recovery {
                        self.error(
                            "Missing closing parenthesis",
                            "An expanded function argument (with ...) must be immediately followed by closing parentheses.",
                            sep_span,
                            Some(between(name_tok_span, sep_span)),
                        );
                    }
                    let c = self.recover(K::CParen);
                    close_span = Some(self.tok_span(c));
                } else {
                    let c = self.read();
                    close_span = Some(self.tok_span(c));
                }
                break;
            }
            if sep.kind != K::Comma {
                if sep.kind == K::Eof {
                    self.error(
                        "Unterminated function call",
                        "There is no closing parenthesis for this function call before the end of the file. This may be caused by incorrect parenthesis nesting elsewhere in this file.",
                        between(name_tok_span, open_span),
                        None,
                    );
                } else {
                    self.error(
                        "Missing argument separator",
                        "A comma is required to separate each function argument from the next.",
                        sep_span,
                        Some(between(name_tok_span, sep_span)),
                    );
                }
                let c = self.recover(K::CParen);
                close_span = Some(self.tok_span(c));
                break;
            }
            if self.peek().kind == K::CParen {
                let c = self.read();
                close_span = Some(self.tok_span(c));
                break;
            }
        }
        self.pop_newlines();
        let end = close_span.unwrap_or_else(|| self.prev_span());
        mk(
            ExprKind::FunctionCall {
                name: full_name,
                name_span,
                args,
                expand_final,
            },
            between(name_span, end),
        )
    }

    fn parse_tuple_cons(&mut self) -> Expr {
        let open = self.read();
        let open_span = self.tok_span(open);
        self.push_newlines(false);
        if self.peek_keyword("for") {
            let e = self.finish_parsing_for_expr(open);
            self.pop_newlines();
            return e;
        }
        let mut exprs = Vec::new();
        let close;
        loop {
            if self.peek().kind == K::CBrack {
                close = self.read();
                break;
            }
            let before = self.error_count();
            let e = self.parse_expression();
            exprs.push(e);
            if self.recovery && self.error_count() > before {
                close = self.recover(K::CBrack);
                break;
            }
            let next = self.peek();
            if next.kind == K::CBrack {
                close = self.read();
                break;
            }
            if next.kind != K::Comma {
                if !self.recovery {
                    let sp = self.tok_span(next);
                    if next.kind == K::Eof {
                        self.error(
                            "Unterminated tuple constructor expression",
                            "There is no corresponding closing bracket before the end of the file. This may be caused by incorrect bracket nesting elsewhere in this file.",
                            open_span,
                            None,
                        );
                    } else {
                        self.error(
                            "Missing item separator",
                            "Expected a comma to mark the beginning of the next item.",
                            sp,
                            Some(between(open_span, sp)),
                        );
                    }
                }
                close = self.recover(K::CBrack);
                break;
            }
            self.read();
        }
        self.pop_newlines();
        mk(
            ExprKind::Tuple(exprs),
            between(open_span, self.tok_span(close)),
        )
    }

    fn parse_object_cons(&mut self) -> Expr {
        let open = self.read();
        let open_span = self.tok_span(open);
        // `for` is looked for ignoring newlines, as for expressions are not
        // newline-sensitive while object constructors are.
        self.push_newlines(false);
        let is_for = self.peek_keyword("for");
        self.pop_newlines();
        if is_for {
            return self.finish_parsing_for_expr(open);
        }
        self.push_newlines(true);
        let mut items = Vec::new();
        let close;
        loop {
            let next = self.peek();
            if next.kind == K::Newline {
                self.read();
                continue;
            }
            if next.kind == K::CBrace {
                close = self.read();
                break;
            }
            let force_non_literal = next.kind == K::OParen;
            let before = self.error_count();
            let key = self.parse_expression();
            if self.recovery && self.error_count() > before {
                close = self.recover(K::CBrace);
                break;
            }
            let key = object_key(key, force_non_literal);
            let next = self.peek();
            if next.kind != K::Equal && next.kind != K::Colon {
                if !self.recovery {
                    let sp = self.tok_span(next);
                    let ctx = Some(between(open_span, sp));
                    match next.kind {
                        K::Newline | K::Comma => self.error(
                            "Missing attribute value",
                            "Expected an attribute value, introduced by an equals sign (\"=\").",
                            sp,
                            ctx,
                        ),
                        K::Ident => self.error(
                            "Missing key/value separator",
                            "Expected an equals sign (\"=\") to mark the beginning of the attribute value. If you intended to given an attribute name containing periods or spaces, write the name in quotes to create a string literal.",
                            sp,
                            ctx,
                        ),
                        K::Eof => self.error(
                            "Unterminated object constructor expression",
                            "There is no corresponding closing brace before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
                            open_span,
                            None,
                        ),
                        _ => self.error(
                            "Missing key/value separator",
                            "Expected an equals sign (\"=\") to mark the beginning of the attribute value.",
                            sp,
                            ctx,
                        ),
                    }
                }
                close = self.recover(K::CBrace);
                break;
            }
            self.read();
            let before = self.error_count();
            let value = self.parse_expression();
            if self.recovery && self.error_count() > before {
                close = self.recover(K::CBrace);
                break;
            }
            items.push(ObjectItem { key, value });
            let next = self.peek();
            if next.kind == K::CBrace {
                close = self.read();
                break;
            }
            if next.kind != K::Comma && next.kind != K::Newline {
                if !self.recovery {
                    let sp = self.tok_span(next);
                    if next.kind == K::Eof {
                        self.error(
                            "Unterminated object constructor expression",
                            "There is no corresponding closing brace before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
                            open_span,
                            None,
                        );
                    } else {
                        self.error(
                            "Missing attribute separator",
                            "Expected a newline or comma to mark the beginning of the next attribute.",
                            sp,
                            Some(between(open_span, sp)),
                        );
                    }
                }
                close = self.recover(K::CBrace);
                break;
            }
            self.read();
        }
        self.pop_newlines();
        mk(
            ExprKind::Object(items),
            between(open_span, self.tok_span(close)),
        )
    }

    fn finish_parsing_for_expr(&mut self, open: Token) -> Expr {
        self.push_newlines(false);
        let e = self.finish_parsing_for_expr_inner(open);
        self.pop_newlines();
        e
    }

    fn for_expr_error(&mut self, open: Token, close_kind: K, detail: &str) -> Expr {
        let open_span = self.tok_span(open);
        if !self.recovery {
            let sp = self.next_span();
            self.error(
                "Invalid 'for' expression",
                detail,
                sp,
                Some(between(open_span, sp)),
            );
        }
        let close = self.recover(close_kind);
        mk(ExprKind::Invalid, between(open_span, self.tok_span(close)))
    }

    fn finish_parsing_for_expr_inner(&mut self, open: Token) -> Expr {
        let open_span = self.tok_span(open);
        self.read(); // `for`
        let make_obj = open.kind == K::OBrace;
        let close_kind = if make_obj { K::CBrace } else { K::CBrack };

        if self.peek().kind != K::Ident {
            return self.for_expr_error(
                open,
                close_kind,
                "For expression requires variable name after 'for'.",
            );
        }
        let t = self.read();
        let mut value_var = self.tok_text(t).to_string();
        let mut key_var = None;
        if self.peek().kind == K::Comma {
            self.read();
            if self.peek().kind != K::Ident {
                return self.for_expr_error(
                    open,
                    close_kind,
                    "For expression requires value variable name after comma.",
                );
            }
            let t = self.read();
            key_var = Some(std::mem::replace(
                &mut value_var,
                self.tok_text(t).to_string(),
            ));
        }
        if !self.peek_keyword("in") {
            return self.for_expr_error(
                open,
                close_kind,
                "For expression requires the 'in' keyword after its name declarations.",
            );
        }
        self.read();
        let before = self.error_count();
        let collection = self.parse_expression();
        if self.recovery && self.error_count() > before {
            let close = self.recover(close_kind);
            return mk(ExprKind::Invalid, between(open_span, self.tok_span(close)));
        }
        if self.peek().kind != K::Colon {
            return self.for_expr_error(
                open,
                close_kind,
                "For expression requires a colon after the collection expression.",
            );
        }
        self.read();

        let before = self.error_count();
        let mut value_expr = self.parse_expression();
        let mut key_expr = None;
        if self.peek().kind == K::FatArrow {
            self.read();
            key_expr = Some(value_expr);
            value_expr = self.parse_expression();
        }
        if self.recovery && self.error_count() > before {
            let close = self.recover(close_kind);
            return mk(ExprKind::Invalid, between(open_span, self.tok_span(close)));
        }

        let mut ellipsis = None;
        if self.peek().kind == K::Ellipsis {
            ellipsis = Some(self.read());
        }

        let mut condition = None;
        if self.peek_keyword("if") {
            self.read();
            let before = self.error_count();
            let c = self.parse_expression();
            if self.recovery && self.error_count() > before {
                let close = self.recover(close_kind);
                return mk(ExprKind::Invalid, between(open_span, self.tok_span(close)));
            }
            condition = Some(c);
        }

        let close = if self.peek().kind == close_kind {
            self.read()
        } else {
            if !self.recovery {
                let sp = self.next_span();
                self.error(
                    "Invalid 'for' expression",
                    "Extra characters after the end of the 'for' expression.",
                    sp,
                    Some(between(open_span, sp)),
                );
            }
            self.recover(close_kind)
        };
        let close_span = self.tok_span(close);
        let whole = between(open_span, close_span);

        if !make_obj {
            if let Some(k) = &key_expr {
                self.error(
                    "Invalid 'for' expression",
                    "Key expression is not valid when building a tuple.",
                    k.span,
                    Some(whole),
                );
            }
            if let Some(e) = ellipsis {
                let sp = self.tok_span(e);
                self.error(
                    "Invalid 'for' expression",
                    "Grouping ellipsis (...) cannot be used when building a tuple.",
                    sp,
                    Some(whole),
                );
            }
        } else if key_expr.is_none() {
            self.error(
                "Invalid 'for' expression",
                "Key expression is required when building an object.",
                value_expr.span,
                Some(whole),
            );
        }

        mk(
            ExprKind::For(Box::new(ForExpr {
                key_var,
                value_var,
                collection,
                key_expr,
                value_expr,
                condition,
                group: ellipsis.is_some(),
                open_span,
                close_span,
            })),
            whole,
        )
    }

    /// A quoted string with no template sequences, as block labels are.
    fn parse_quoted_string_literal(&mut self) -> (String, Span) {
        let oquote = self.read();
        let oquote_span = self.tok_span(oquote);
        if oquote.kind != K::OQuote {
            self.error(
                "Invalid string literal",
                "A quoted string is required here.",
                oquote_span,
                None,
            );
            return (String::new(), oquote_span);
        }
        let mut ret = String::new();
        let end_span;
        loop {
            let tok = self.read();
            let sp = self.tok_span(tok);
            match tok.kind {
                K::CQuote => {
                    end_span = sp;
                    break;
                }
                K::QuotedLit => {
                    let s = self.decode_literal(tok, true);
                    ret.push_str(&s);
                }
                K::TemplateControl | K::TemplateInterp => {
                    let which = if tok.kind == K::TemplateControl {
                        "%"
                    } else {
                        "$"
                    };
                    let detail = format!(
                        "Template sequences are not allowed in this string. To include a literal {}, double it (as \"{which}{which}\") to escape it.",
                        gostr::quote(which)
                    );
                    self.error(
                        "Invalid string literal",
                        detail,
                        sp,
                        Some(between(oquote_span, sp)),
                    );
                    ret.push_str(which);
                    ret.push_str("{ ... }");
                    self.recover(K::TemplateSeqEnd);
                }
                K::Eof => {
                    self.error(
                        "Unterminated string literal",
                        "Unable to find the closing quote mark before the end of the file.",
                        sp,
                        Some(between(oquote_span, sp)),
                    );
                    end_span = sp;
                    break;
                }
                _ => {
                    self.error(
                        "Invalid string literal",
                        "This item is not valid in a string literal.",
                        sp,
                        Some(between(oquote_span, sp)),
                    );
                    self.recover(K::CQuote);
                    end_span = sp;
                    break;
                }
            }
        }
        (ret, between(oquote_span, end_span))
    }

    /// Decodes a literal token: escapes in quoted strings (`\n`, `\"`,
    /// `\u00e9`, ...) and the `$${`/`%%{` escapes everywhere. Invalid escapes
    /// are reported and kept as written, as HCL does.
    fn decode_literal(&mut self, tok: Token, quoted: bool) -> String {
        let raw = self.tok_text(tok);
        let bytes = raw.as_bytes();
        let mut out = String::with_capacity(raw.len());
        let mut i = 0;
        let mut lit_start = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if quoted && b == b'\\' {
                out.push_str(&raw[lit_start..i]);
                let esc_start = i;
                let Some(sel) = raw[i + 1..].chars().next() else {
                    let sp = self.span(tok.start + i as u32, tok.end);
                    self.error(
                        "Invalid escape sequence",
                        "Backslash must be followed by an escape sequence selector character.",
                        sp,
                        None,
                    );
                    out.push('\\');
                    i += 1;
                    lit_start = i;
                    continue;
                };
                i += 1 + sel.len_utf8();
                match sel {
                    'n' => out.push('\n'),
                    'r' => out.push('\r'),
                    't' => out.push('\t'),
                    '"' => out.push('"'),
                    '\\' => out.push('\\'),
                    'u' | 'U' => {
                        let want = if sel == 'u' { 4 } else { 8 };
                        let mut n = 0;
                        while n < want && bytes.get(i + n).is_some_and(u8::is_ascii_hexdigit) {
                            n += 1;
                        }
                        let hex = &raw[i..i + n];
                        i += n;
                        let sp = self.span(tok.start + esc_start as u32, tok.start + i as u32);
                        if n != want {
                            let detail = if sel == 'u' {
                                "The \\u escape sequence must be followed by four hexadecimal digits."
                            } else {
                                "The \\U escape sequence must be followed by eight hexadecimal digits."
                            };
                            self.error("Invalid escape sequence", detail, sp, None);
                            out.push_str(&raw[esc_start..i]);
                        } else {
                            let num = u32::from_str_radix(hex, 16).unwrap_or(u32::MAX);
                            match char::from_u32(num) {
                                Some(c) => out.push(c),
                                None => {
                                    self.error(
                                        "Invalid escape sequence",
                                        format!("Cannot encode character U+{num:04x} in UTF-8."),
                                        sp,
                                        None,
                                    );
                                    out.push_str(&raw[esc_start..i]);
                                }
                            }
                        }
                    }
                    other => {
                        let sp = self.span(tok.start + esc_start as u32, tok.start + i as u32);
                        self.error(
                            "Invalid escape sequence",
                            format!(
                                "The symbol {} is not a valid escape sequence selector.",
                                gostr::quote(&other.to_string())
                            ),
                            sp,
                            None,
                        );
                        out.push(other);
                    }
                }
                lit_start = i;
                continue;
            }
            if (b == b'$' || b == b'%')
                && bytes.get(i + 1) == Some(&b)
                && bytes.get(i + 2) == Some(&b'{')
            {
                out.push_str(&raw[lit_start..i]);
                out.push(b as char);
                out.push('{');
                i += 3;
                lit_start = i;
                continue;
            }
            i += 1;
        }
        out.push_str(&raw[lit_start..]);
        out
    }

    // ----- templates -----

    /// A whole input that is a bare template (HCL's ParseTemplate).
    pub(crate) fn parse_standalone_template(&mut self) -> Expr {
        let start_span = self.next_span();
        let (parts, passthru) = self.parse_template_inner(K::Eof, false);
        let span = between(start_span, self.prev_span());
        self.template_expr(parts, passthru, false, span)
    }

    fn parse_template_inner(&mut self, end: K, flush_heredoc: bool) -> (Vec<TemplatePart>, bool) {
        let mut tokens = self.parse_template_parts(end);
        if flush_heredoc {
            flush_heredoc_template_parts(&mut tokens);
        }
        meld_consecutive_literals(&mut tokens);
        let passthru = tokens.len() == 2 && matches!(tokens[0], TemplateToken::Interp { .. });
        let mut tp = TemplateStructure {
            tokens,
            pos: 0,
            parser: self,
            gave_up: false,
        };
        let parts = tp.parse_root();
        (parts, passthru)
    }

    fn parse_template_parts(&mut self, end: K) -> Vec<TemplateToken> {
        let mut parts: Vec<TemplateToken> = Vec::new();
        let start_tok = self.peek();
        let start_span = self.tok_span(start_tok);
        let mut ltrim_next = false;
        let mut next_can_trim_prev = false;
        let end_span;
        loop {
            let next = self.read();
            if next.kind == end {
                end_span = self.tok_span(next);
                break;
            }
            let ltrim = std::mem::take(&mut ltrim_next);
            let can_trim_prev = std::mem::take(&mut next_can_trim_prev);
            let next_span = self.tok_span(next);
            match next.kind {
                K::StringLit | K::QuotedLit => {
                    let mut text = self.decode_literal(next, next.kind == K::QuotedLit);
                    if ltrim {
                        let trimmed = text.trim_start().len();
                        text.drain(..text.len() - trimmed);
                    }
                    parts.push(TemplateToken::Literal {
                        text,
                        start: next.start,
                        end: next.end,
                    });
                    next_can_trim_prev = true;
                }
                K::TemplateInterp => {
                    if can_trim_prev && next.end - next.start == 3 {
                        trim_last_literal(&mut parts);
                    }
                    self.push_newlines(false);
                    let expr = self.parse_expression();
                    let close = self.peek();
                    let close_span = self.tok_span(close);
                    if close.kind != K::TemplateSeqEnd {
                        if !self.recovery {
                            match close.kind {
                                K::Eof => self.error(
                                    "Unclosed template interpolation sequence",
                                    "There is no closing brace for this interpolation sequence before the end of the file. This might be caused by incorrect nesting inside the given expression.",
                                    start_span,
                                    None,
                                ),
                                K::Colon => self.error(
                                    "Extra characters after interpolation expression",
                                    "Template interpolation doesn't expect a colon at this location. Did you intend this to be a literal sequence to be processed as part of another language? If so, you can escape it by starting with \"$${\" instead of just \"${\".",
                                    close_span,
                                    Some(between(start_span, close_span)),
                                ),
                                K::CQuote | K::OQuote if end == K::CQuote => self.error(
                                    "Unclosed template interpolation sequence",
                                    "There is no closing brace for this interpolation sequence before the end of the quoted template. This might be caused by incorrect nesting inside the given expression.",
                                    start_span,
                                    None,
                                ),
                                _ => self.error(
                                    "Extra characters after interpolation expression",
                                    "Expected a closing brace to end the interpolation expression, but found extra characters.\n\nThis can happen when you include interpolation syntax for another language, such as shell scripting, but forget to escape the interpolation start token. If this is an embedded sequence for another language, escape it by starting with \"$${\" instead of just \"${\".",
                                    close_span,
                                    Some(between(start_span, close_span)),
                                ),
                            }
                        }
                        self.recover(K::TemplateSeqEnd);
                    } else {
                        self.read();
                        if self.tok_text(close).starts_with('~') {
                            ltrim_next = true;
                        }
                    }
                    self.pop_newlines();
                    parts.push(TemplateToken::Interp { expr });
                }
                K::TemplateControl => {
                    if can_trim_prev && next.end - next.start == 3 {
                        trim_last_literal(&mut parts);
                    }
                    self.push_newlines(false);
                    let kw = self.peek();
                    let kw_span = self.tok_span(kw);
                    if kw.kind != K::Ident {
                        if !self.recovery {
                            self.error(
                                "Invalid template directive",
                                "A template directive keyword (\"if\", \"for\", etc) is expected at the beginning of a %{ sequence.",
                                kw_span,
                                Some(between(next_span, kw_span)),
                            );
                        }
                        self.recover(K::TemplateSeqEnd);
                        self.pop_newlines();
                        continue;
                    }
                    self.read();
                    let kw_text = self.tok_text(kw);
                    match kw_text {
                        "if" => {
                            let condition = self.parse_expression();
                            let span = between(next_span, self.next_span());
                            parts.push(TemplateToken::If { condition, span });
                        }
                        "else" | "endif" | "endfor" => {
                            let kind = match kw_text {
                                "else" => EndCtrl::Else,
                                "endif" => EndCtrl::EndIf,
                                _ => EndCtrl::EndFor,
                            };
                            let span = between(next_span, self.next_span());
                            parts.push(TemplateToken::EndCtrl { kind, span });
                        }
                        "for" => {
                            if self.peek().kind != K::Ident {
                                if !self.recovery {
                                    let sp = self.next_span();
                                    self.error(
                                        "Invalid 'for' directive",
                                        "For directive requires variable name after 'for'.",
                                        sp,
                                        None,
                                    );
                                }
                                self.recover(K::TemplateSeqEnd);
                                self.pop_newlines();
                                continue;
                            }
                            let t = self.read();
                            let mut value_var = self.tok_text(t).to_string();
                            let mut key_var = None;
                            if self.peek().kind == K::Comma {
                                self.read();
                                if self.peek().kind != K::Ident {
                                    if !self.recovery {
                                        let sp = self.next_span();
                                        self.error(
                                            "Invalid 'for' directive",
                                            "For directive requires value variable name after comma.",
                                            sp,
                                            None,
                                        );
                                    }
                                    self.recover(K::TemplateSeqEnd);
                                    self.pop_newlines();
                                    continue;
                                }
                                let t = self.read();
                                key_var = Some(std::mem::replace(
                                    &mut value_var,
                                    self.tok_text(t).to_string(),
                                ));
                            }
                            if !self.peek_keyword("in") {
                                if !self.recovery {
                                    let sp = self.next_span();
                                    self.error(
                                        "Invalid 'for' directive",
                                        "For directive requires 'in' keyword after names.",
                                        sp,
                                        None,
                                    );
                                }
                                self.recover(K::TemplateSeqEnd);
                                self.pop_newlines();
                                continue;
                            }
                            self.read();
                            let collection = self.parse_expression();
                            let span = between(next_span, self.next_span());
                            parts.push(TemplateToken::For {
                                key_var,
                                value_var,
                                collection,
                                span,
                            });
                        }
                        given => {
                            if !self.recovery {
                                let suggestion = name_suggestion(
                                    given,
                                    &["if", "for", "else", "endif", "endfor"],
                                )
                                .map(|s| format!(" Did you mean {}?", gostr::quote(s)))
                                .unwrap_or_default();
                                self.error(
                                    "Invalid template control keyword",
                                    format!(
                                        "{} is not a valid template control keyword.{suggestion}",
                                        gostr::quote(given)
                                    ),
                                    kw_span,
                                    Some(between(next_span, kw_span)),
                                );
                            }
                            self.recover(K::TemplateSeqEnd);
                            self.pop_newlines();
                            continue;
                        }
                    }
                    let close = self.peek();
                    if close.kind != K::TemplateSeqEnd {
                        if !self.recovery {
                            let sp = self.tok_span(close);
                            self.error(
                                &format!("Extra characters in {kw_text} marker"),
                                "Expected a closing brace to end the sequence, but found extra characters.",
                                sp,
                                Some(between(start_span, sp)),
                            );
                        }
                        self.recover(K::TemplateSeqEnd);
                    } else {
                        self.read();
                        if self.tok_text(close).starts_with('~') {
                            ltrim_next = true;
                        }
                    }
                    self.pop_newlines();
                }
                _ => {
                    if !self.recovery {
                        self.error(
                            "Unterminated template string",
                            "No closing marker was found for the string.",
                            next_span,
                            Some(between(start_span, next_span)),
                        );
                    }
                    let fin = self.recover(end);
                    end_span = self.tok_span(fin);
                    break;
                }
            }
        }
        if parts.is_empty() {
            // `""` is a template with one empty literal.
            parts.push(TemplateToken::Literal {
                text: String::new(),
                start: start_tok.start,
                end: start_tok.start,
            });
        }
        parts.push(TemplateToken::End { span: end_span });
        parts
    }

    // ----- traversals -----

    /// An absolute traversal that must make up the whole input (HCL's
    /// ParseTraversalAbs / ParseTraversalPartial).
    pub(crate) fn parse_traversal(
        &mut self,
        allow_splats: bool,
    ) -> Option<(String, Span, Vec<ParsedStep>)> {
        self.push_newlines(false);
        let r = self.parse_traversal_inner(allow_splats);
        self.pop_newlines();
        r
    }

    fn parse_traversal_inner(
        &mut self,
        allow_splats: bool,
    ) -> Option<(String, Span, Vec<ParsedStep>)> {
        let start_errors = self.error_count();
        let var_tok = self.read();
        let var_span = self.tok_span(var_tok);
        if var_tok.kind != K::Ident {
            self.error(
                "Variable name required",
                "Must begin with a variable name.",
                var_span,
                None,
            );
            return None;
        }
        let root = self.tok_text(var_tok).to_string();
        let mut steps = Vec::new();
        loop {
            let next = self.peek();
            let next_span = self.tok_span(next);
            match next.kind {
                K::Eof => break,
                K::Dot => {
                    let dot = self.read();
                    let name = self.read();
                    let name_span = self.tok_span(name);
                    if name.kind != K::Ident {
                        let detail = if name.kind == K::Star {
                            "Splat expressions (.*) may not be used here."
                        } else {
                            "Dot must be followed by attribute name."
                        };
                        self.error(
                            "Attribute name required",
                            detail,
                            name_span,
                            Some(between(var_span, name_span)),
                        );
                        break;
                    }
                    steps.push(ParsedStep::Step(TraversalStep::Attr {
                        name: self.tok_text(name).to_string(),
                        span: between(self.tok_span(dot), name_span),
                    }));
                }
                K::OBrack => {
                    let open = self.read();
                    let open_span = self.tok_span(open);
                    let key_tok = self.peek();
                    let key = match key_tok.kind {
                        K::NumberLit => {
                            let t = self.read();
                            Some(self.number_literal(t))
                        }
                        K::OQuote => {
                            let (s, sp) = self.parse_quoted_string_literal();
                            Some(string_literal_expr(s, sp))
                        }
                        K::Star if allow_splats => {
                            self.read();
                            None
                        }
                        _ => {
                            let sp = self.tok_span(key_tok);
                            if key_tok.kind == K::Star {
                                self.error(
                                    "Attribute name required",
                                    "Splat expressions ([*]) may not be used here.",
                                    sp,
                                    Some(between(var_span, sp)),
                                );
                            } else {
                                self.error(
                                    "Index value required",
                                    "Index brackets must contain either a literal number or a literal string.",
                                    sp,
                                    Some(between(var_span, sp)),
                                );
                            }
                            break;
                        }
                    };
                    let close = self.read();
                    let close_span = self.tok_span(close);
                    if close.kind != K::CBrack {
                        self.error(
                            "Unclosed index brackets",
                            "Index key must be followed by a closing bracket.",
                            close_span,
                            Some(between(open_span, close_span)),
                        );
                    }
                    let span = between(open_span, close_span);
                    steps.push(match key {
                        Some(key) => ParsedStep::Step(TraversalStep::Index {
                            key: Box::new(key),
                            span,
                        }),
                        None => ParsedStep::Splat(span),
                    });
                    if self.error_count() > start_errors {
                        break;
                    }
                }
                _ => {
                    self.error(
                        "Invalid character",
                        "Expected an attribute access or an index operator.",
                        next_span,
                        Some(between(var_span, next_span)),
                    );
                    break;
                }
            }
        }
        Some((root, var_span, steps))
    }
}

fn string_literal_expr(s: String, span: Span) -> Expr {
    mk(
        ExprKind::Template(Template {
            parts: vec![TemplatePart::Literal { text: s, span }],
            heredoc: false,
            origin: ExprOrigin::Native,
        }),
        span,
    )
}

/// A naked identifier (or `true`/`false`/`null`) as an object key is the
/// literal string of its name unless the key started with a parenthesis.
fn object_key(key: Expr, force_non_literal: bool) -> ObjectKey {
    if !force_non_literal {
        let name = match &key.kind {
            ExprKind::ScopeTraversal(t) if t.steps.is_empty() => Some(t.root.clone()),
            ExprKind::Bool(true) => Some("true".to_string()),
            ExprKind::Bool(false) => Some("false".to_string()),
            ExprKind::Null => Some("null".to_string()),
            _ => None,
        };
        if let Some(name) = name {
            return ObjectKey::Bare {
                name,
                span: key.span,
            };
        }
    }
    ObjectKey::Expr(key)
}

/// `${~` and `%{~` strip the whitespace at the end of the literal token
/// just before them (only that token: in a heredoc, the current line).
fn trim_last_literal(parts: &mut [TemplateToken]) {
    if let Some(TemplateToken::Literal { text, .. }) = parts.last_mut() {
        let keep = text.trim_end().len();
        text.truncate(keep);
    }
}

/// `<<-` heredocs: remove the smallest leading-whitespace count (in
/// characters) found on any non-blank line from every line-leading literal.
/// This works on the source literals, so interpolated values never count.
fn flush_heredoc_template_parts(parts: &mut [TemplateToken]) {
    let mut min_spaces = usize::MAX;
    let mut newline = true;
    let mut adjust = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        if newline {
            newline = false;
            let mut spaces = 0;
            match part {
                TemplateToken::Literal { text, .. } => {
                    let trimmed = text.trim_start();
                    if trimmed.is_empty() && text.ends_with('\n') {
                        spaces = usize::MAX;
                    } else {
                        spaces = text[..text.len() - trimmed.len()].chars().count();
                        adjust.push(i);
                    }
                }
                TemplateToken::End { .. } => break,
                _ => {}
            }
            min_spaces = min_spaces.min(spaces);
        }
        if let TemplateToken::Literal { text, .. } = part {
            if text.ends_with('\n') {
                newline = true;
            }
        }
    }
    for i in adjust {
        if let Some(TemplateToken::Literal { text, start, .. }) = parts.get_mut(i) {
            let cut = text
                .char_indices()
                .nth(min_spaces)
                .map(|(b, _)| b)
                .unwrap_or(text.len());
            text.drain(..cut);
            *start += cut as u32;
        }
    }
}

fn meld_consecutive_literals(parts: &mut Vec<TemplateToken>) {
    let mut out: Vec<TemplateToken> = Vec::with_capacity(parts.len());
    for part in parts.drain(..) {
        if let TemplateToken::Literal { text, end, .. } = &part {
            if let Some(TemplateToken::Literal {
                text: prev_text,
                end: prev_end,
                ..
            }) = out.last_mut()
            {
                prev_text.push_str(text);
                *prev_end = *end;
                continue;
            }
        }
        out.push(part);
    }
    *parts = out;
}

/// The second template pass: gives the flat token list its if/for
/// structure.
struct TemplateStructure<'p, 'a> {
    /// Always ends with `End`, which is never consumed.
    tokens: Vec<TemplateToken>,
    pos: usize,
    parser: &'p mut Parser<'a>,
    /// Set when the template nested too deeply and its rest was skipped:
    /// the directives left open then are not reported one by one.
    gave_up: bool,
}

impl TemplateStructure<'_, '_> {
    fn peek_is_end(&self) -> Option<Span> {
        match self.tokens.get(self.pos) {
            Some(TemplateToken::End { span }) => Some(*span),
            None => Some(Span::default()),
            _ => None,
        }
    }

    /// Takes the next token, leaving the final `End` in place.
    fn take(&mut self) -> Option<TemplateToken> {
        match self.tokens.get(self.pos) {
            None | Some(TemplateToken::End { .. }) => None,
            Some(_) => {
                let t = std::mem::replace(
                    &mut self.tokens[self.pos],
                    TemplateToken::End {
                        span: Span::default(),
                    },
                );
                self.pos += 1;
                Some(t)
            }
        }
    }

    fn placeholder(span: Span) -> TemplatePart {
        TemplatePart::Interpolation(mk(ExprKind::Invalid, span))
    }

    fn parse_root(&mut self) -> Vec<TemplatePart> {
        let mut parts = Vec::new();
        while self.peek_is_end().is_none() {
            parts.push(self.parse_part());
        }
        parts
    }

    fn parse_part(&mut self) -> TemplatePart {
        let part = if self.parser.enter() {
            self.parse_part_inner()
        } else {
            // Give up on the rest of this template.
            self.pos = self.tokens.len().saturating_sub(1);
            self.gave_up = true;
            Self::placeholder(Span::default())
        };
        self.parser.leave();
        part
    }

    fn parse_part_inner(&mut self) -> TemplatePart {
        if let Some(span) = self.peek_is_end() {
            self.parser.error(
                "Unexpected end of template",
                "The control directives within this template are unbalanced.",
                span,
                None,
            );
            return Self::placeholder(span);
        }
        match self.take() {
            Some(TemplateToken::Literal { text, start, end }) => TemplatePart::Literal {
                text,
                span: self.parser.span(start, end),
            },
            Some(TemplateToken::Interp { expr }) => TemplatePart::Interpolation(expr),
            Some(TemplateToken::If { condition, span }) => self.parse_if(condition, span),
            Some(TemplateToken::For {
                key_var,
                value_var,
                collection,
                span,
            }) => self.parse_for(key_var, value_var, collection, span),
            Some(TemplateToken::EndCtrl { kind, span }) => {
                self.parser.error(
                    &format!("Unexpected {} directive", kind.name()),
                    "The control directives within this template are unbalanced.",
                    span,
                    None,
                );
                Self::placeholder(span)
            }
            Some(TemplateToken::End { span }) => Self::placeholder(span),
            None => Self::placeholder(Span::default()),
        }
    }

    fn parse_if(&mut self, condition: Expr, if_span: Span) -> TemplatePart {
        let mut then_parts = Vec::new();
        let mut else_parts = Vec::new();
        let mut in_else = false;
        loop {
            if let Some(end) = self.peek_is_end() {
                let detail = format!(
                    "The if directive at {} is missing its corresponding endif directive.",
                    self.parser.range_string(if_span)
                );
                if !self.gave_up {
                    self.parser
                        .error("Unexpected end of template", detail, end, None);
                }
                return Self::placeholder(end);
            }
            if let Some(TemplateToken::EndCtrl { kind, span }) = self.tokens.get(self.pos) {
                let (kind, span) = (*kind, *span);
                self.pos += 1;
                match kind {
                    EndCtrl::Else if !in_else => {
                        in_else = true;
                        continue;
                    }
                    EndCtrl::Else => {
                        let detail = format!(
                            "Already in the else clause for the if started at {}.",
                            self.parser.range_string(if_span)
                        );
                        self.parser
                            .error("Unexpected else directive", detail, span, None);
                    }
                    EndCtrl::EndIf => {
                        return TemplatePart::If {
                            condition,
                            then_parts,
                            else_parts,
                            span: between(if_span, span),
                        };
                    }
                    EndCtrl::EndFor => {
                        let detail = format!(
                            "Expecting an endif directive for the if started at {}.",
                            self.parser.range_string(if_span)
                        );
                        self.parser
                            .error("Unexpected endfor directive", detail, span, None);
                    }
                }
                return Self::placeholder(span);
            }
            let part = self.parse_part();
            if in_else {
                else_parts.push(part);
            } else {
                then_parts.push(part);
            }
        }
    }

    fn parse_for(
        &mut self,
        key_var: Option<String>,
        value_var: String,
        collection: Expr,
        for_span: Span,
    ) -> TemplatePart {
        let mut body = Vec::new();
        loop {
            if let Some(end) = self.peek_is_end() {
                let detail = format!(
                    "The for directive at {} is missing its corresponding endfor directive.",
                    self.parser.range_string(for_span)
                );
                if !self.gave_up {
                    self.parser
                        .error("Unexpected end of template", detail, end, None);
                }
                return Self::placeholder(end);
            }
            if let Some(TemplateToken::EndCtrl { kind, span }) = self.tokens.get(self.pos) {
                let (kind, span) = (*kind, *span);
                self.pos += 1;
                match kind {
                    EndCtrl::Else => self.parser.error(
                        "Unexpected else directive",
                        "An else clause is not expected for a for directive.",
                        span,
                        None,
                    ),
                    EndCtrl::EndFor => {
                        return TemplatePart::For {
                            key_var,
                            value_var,
                            collection,
                            body,
                            span: between(for_span, span),
                        };
                    }
                    EndCtrl::EndIf => {
                        let detail = format!(
                            "Expecting an endfor directive corresponding to the for directive at {}.",
                            self.parser.range_string(for_span)
                        );
                        self.parser
                            .error("Unexpected endif directive", detail, span, None);
                    }
                }
                return Self::placeholder(span);
            }
            body.push(self.parse_part());
        }
    }
}
