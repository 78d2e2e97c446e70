//! The syntax tree shared by the native (`.tf`, `.tofu`, `.tfvars`) and JSON
//! (`.tf.json`, `.tfvars.json`) syntaxes.
//!
//! Expressions are one tree for both syntaxes: the JSON parser turns JSON
//! strings into template expressions and JSON arrays/objects into tuple and
//! object constructors, remembering in `Expr::origin` that they came from JSON,
//! so static analyses that HCL defines differently for JSON (a string read as a
//! traversal, e.g. `provider = "aws.west"`) can still do so.
//!
//! Bodies differ: a JSON object cannot say whether a property is an attribute
//! or a block until a schema is applied, so `Body::Json` keeps the raw
//! properties and the configuration decoder interprets them.

use crate::pos::Span;
use std::sync::Arc;

/// One parsed file's name and text, shared by every span-holding consumer.
#[derive(Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    pub lines: crate::pos::LineIndex,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Arc<SourceFile> {
        let text = text.into();
        let lines = crate::pos::LineIndex::new(&text);
        Arc::new(SourceFile {
            name: name.into(),
            text,
            lines,
        })
    }

    /// Resolves a span to a diagnostic range.
    pub fn range(&self, span: Span) -> crate::diagnostic::SourceRange {
        crate::diagnostic::SourceRange {
            filename: self.name.clone(),
            start: self.lines.pos(&self.text, span.start),
            end: self.lines.pos(&self.text, span.end),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ExprOrigin {
    #[default]
    Native,
    Json,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A number literal, kept as its source text so that the value layer
    /// parses it at 512-bit precision exactly as cty does.
    Number(String),
    Bool(bool),
    Null,
    /// A string or heredoc template. A template that is a single
    /// interpolation with no surrounding text (`"${x}"`) is `TemplateWrap`.
    Template(Template),
    /// `"${expr}"`: evaluates to the value of `expr` unchanged (not
    /// converted to string), as HCL's TemplateWrapExpr does.
    TemplateWrap(Box<Expr>),
    /// A root name followed by attribute/literal-index steps: `var.a.b[0]`.
    ScopeTraversal(Traversal),
    /// Steps applied to the result of another expression: `f(x).a[0]`.
    RelativeTraversal {
        source: Box<Expr>,
        steps: Vec<TraversalStep>,
    },
    /// `name(args)`, `provider::aws::arn_parse(args)` or `core::max(...)`:
    /// `name` holds the whole name with its `::` namespace segments;
    /// `expand_final` is true when the last argument ends with `...`.
    FunctionCall {
        name: String,
        name_span: Span,
        args: Vec<Expr>,
        expand_final: bool,
    },
    Conditional {
        condition: Box<Expr>,
        true_result: Box<Expr>,
        false_result: Box<Expr>,
    },
    /// `first op rhs op rhs ...`: operators of one precedence level,
    /// left-associative, so `a - b + c` means `(a - b) + c`. A chain is kept
    /// flat rather than as nested pairs so that walking, cloning or dropping
    /// a chain of any length needs no recursion per operator. `rest` is never
    /// empty.
    Binary {
        first: Box<Expr>,
        rest: Vec<BinaryOperand>,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Tuple(Vec<Expr>),
    Object(Vec<ObjectItem>),
    For(Box<ForExpr>),
    /// `collection[key]` where `key` is not a literal (literal keys become
    /// traversal steps).
    Index {
        collection: Box<Expr>,
        key: Box<Expr>,
        open_bracket_span: Span,
    },
    /// `source[*].each` or `source.*.each`. `each` is evaluated once per
    /// element with `AnonSymbol` bound to that element.
    Splat {
        source: Box<Expr>,
        each: Box<Expr>,
        full: bool,
    },
    /// The placeholder for the current element inside a splat's `each`.
    AnonSymbol,
    /// `(expr)`: kept so object keys and the "too similar" rules can tell it
    /// apart, and so `(a).b` is not mistaken for a root traversal.
    Parens(Box<Expr>),
    /// A placeholder left where the parser could not make an expression; a
    /// diagnostic was already reported. Evaluates to an unknown dynamic value.
    Invalid,
}

/// One `op rhs` step of a [`ExprKind::Binary`] chain.
#[derive(Clone, Debug, PartialEq)]
pub struct BinaryOperand {
    pub op: BinaryOp,
    pub op_span: Span,
    pub rhs: Expr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Or,
    And,
    Equal,
    NotEqual,
    Greater,
    GreaterOrEqual,
    Less,
    LessOrEqual,
    Add,
    Subtract,
    Multiply,
    Divide,
    Modulo,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Not,
    Negate,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Traversal {
    pub root: String,
    pub root_span: Span,
    pub steps: Vec<TraversalStep>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TraversalStep {
    /// `.name`
    Attr { name: String, span: Span },
    /// `[literal]` or legacy `.0`: the key is a literal expression
    /// (number/string/bool/null, including a template with no
    /// interpolations).
    Index { key: Box<Expr>, span: Span },
}

impl TraversalStep {
    pub fn span(&self) -> Span {
        match self {
            TraversalStep::Attr { span, .. } | TraversalStep::Index { span, .. } => *span,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ObjectItem {
    pub key: ObjectKey,
    pub value: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ObjectKey {
    /// A bare identifier `{ a = 1 }`: the key is the string "a", never a
    /// reference, as HCL's ObjectConsKeyExpr with a naked traversal.
    Bare { name: String, span: Span },
    /// Any other key expression, including `(a)` which is a reference.
    Expr(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ForExpr {
    pub key_var: Option<String>,
    pub value_var: String,
    pub collection: Expr,
    /// Present for object results `{for k, v in x : key => value}`.
    pub key_expr: Option<Expr>,
    pub value_expr: Expr,
    pub condition: Option<Expr>,
    /// `...` after the value: group values with the same key into tuples.
    pub group: bool,
    pub open_span: Span,
    pub close_span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Template {
    pub parts: Vec<TemplatePart>,
    /// True for heredocs (`<<EOT`), which affects nothing at evaluation but
    /// is useful to renderers and formatters.
    pub heredoc: bool,
    pub origin: ExprOrigin,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TemplatePart {
    /// Literal text with escapes already decoded and strip markers applied.
    Literal {
        text: String,
        span: Span,
    },
    Interpolation(Expr),
    /// `%{ if cond }...%{ else }...%{ endif }`
    If {
        condition: Expr,
        then_parts: Vec<TemplatePart>,
        else_parts: Vec<TemplatePart>,
        span: Span,
    },
    /// `%{ for k, v in coll }...%{ endfor }`
    For {
        key_var: Option<String>,
        value_var: String,
        collection: Expr,
        body: Vec<TemplatePart>,
        span: Span,
    },
}

// ----- bodies -----

#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    Native(NativeBody),
    Json(JsonBody),
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct NativeBody {
    /// In source order; duplicates are reported by the parser and only the
    /// first is kept.
    pub attributes: Vec<Attribute>,
    pub blocks: Vec<Block>,
    pub span: Span,
    /// The position of the closing brace (or end of file), for diagnostics
    /// about missing arguments.
    pub end_span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    pub name: String,
    pub name_span: Span,
    pub expr: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub block_type: String,
    pub type_span: Span,
    pub labels: Vec<(String, Span)>,
    pub body: Body,
    pub span: Span,
    pub open_brace_span: Span,
}

/// An object from JSON syntax, properties in source order (JSON allows
/// repeated keys; HCL treats repeats of a block type as repeated blocks).
#[derive(Clone, Debug, PartialEq)]
pub struct JsonBody {
    pub properties: Vec<JsonProperty>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct JsonProperty {
    pub name: String,
    pub name_span: Span,
    pub value: JsonValue,
}

#[derive(Clone, Debug, PartialEq)]
pub struct JsonValue {
    pub kind: JsonValueKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum JsonValueKind {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<JsonValue>),
    Object(Vec<JsonProperty>),
    /// A value the parser could not read; a diagnostic was already
    /// reported. Read as an expression it is `ExprKind::Invalid`.
    Invalid,
}

/// A parsed file: its body plus the source it came from.
#[derive(Clone, Debug)]
pub struct File {
    pub source: Arc<SourceFile>,
    pub body: Body,
}
