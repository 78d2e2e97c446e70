//! References for dependency analysis: every scope traversal an expression
//! mentions (HCL's `Variables()`: for-expression and splat temporaries
//! excluded) interpreted as a Terraform address the way Terraform's
//! reference parser does (`var.x`, `aws_instance.web[0]`, `module.m.out`,
//! `data.t.n`...), with the traversal steps after the address kept for the
//! caller and Terraform's diagnostics for malformed references.

use std::fmt;
use terrace_syntax::ast::{
    Expr, ExprKind, ObjectKey, SourceFile, TemplatePart, Traversal, TraversalStep,
};
use terrace_syntax::PRODUCT;
use terrace_syntax::{Diagnostic, Diagnostics, Span};
use terrace_value::gostr;
use terrace_value::{Number, Value};

/// The kind of resource a resource address names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ResourceMode {
    Managed,
    Data,
    Ephemeral,
}

/// The key of one instance of a resource or module call.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InstanceKey {
    None,
    Int(i64),
    String(String),
}

impl fmt::Display for InstanceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstanceKey::None => Ok(()),
            InstanceKey::Int(i) => write!(f, "[{i}]"),
            InstanceKey::String(s) => write!(f, "[{}]", gostr::quote(s)),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceAddr {
    pub mode: ResourceMode,
    pub type_name: String,
    pub name: String,
}

impl fmt::Display for ResourceAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.mode {
            ResourceMode::Managed => write!(f, "{}.{}", self.type_name, self.name),
            ResourceMode::Data => write!(f, "data.{}.{}", self.type_name, self.name),
            ResourceMode::Ephemeral => write!(f, "ephemeral.{}.{}", self.type_name, self.name),
        }
    }
}

/// What a reference points at.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Subject {
    InputVariable(String),
    LocalValue(String),
    /// `count.<name>` (only `index` is valid; the engine checks).
    CountAttr(String),
    /// `each.<name>` (`key` or `value`).
    ForEachAttr(String),
    /// `path.<name>` (`module`, `root`, `cwd`).
    PathAttr(String),
    /// `terraform.<name>` (`workspace`, `applying`).
    TerraformAttr(String),
    SelfObject,
    /// `module.NAME`: every instance of a module call.
    ModuleCall(String),
    /// `module.NAME[key]`.
    ModuleCallInstance {
        call: String,
        key: InstanceKey,
    },
    /// `module.NAME.OUTPUT` or `module.NAME[key].OUTPUT`.
    ModuleCallInstanceOutput {
        call: String,
        key: InstanceKey,
        name: String,
    },
    /// `TYPE.NAME`: every instance of a resource (or the only one; the
    /// caller decides).
    Resource(ResourceAddr),
    /// `TYPE.NAME[key]` or `TYPE.NAME.attr` (key `None`).
    ResourceInstance {
        resource: ResourceAddr,
        key: InstanceKey,
    },
    /// `provider::NAME::FUNCTION(...)`.
    ProviderFunction {
        provider: String,
        name: String,
    },
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::InputVariable(n) => write!(f, "var.{n}"),
            Subject::LocalValue(n) => write!(f, "local.{n}"),
            Subject::CountAttr(n) => write!(f, "count.{n}"),
            Subject::ForEachAttr(n) => write!(f, "each.{n}"),
            Subject::PathAttr(n) => write!(f, "path.{n}"),
            Subject::TerraformAttr(n) => write!(f, "terraform.{n}"),
            Subject::SelfObject => f.write_str("self"),
            Subject::ModuleCall(n) => write!(f, "module.{n}"),
            Subject::ModuleCallInstance { call, key } => write!(f, "module.{call}{key}"),
            Subject::ModuleCallInstanceOutput { call, key, name } => {
                write!(f, "module.{call}{key}.{name}")
            }
            Subject::Resource(r) => write!(f, "{r}"),
            Subject::ResourceInstance { resource, key } => write!(f, "{resource}{key}"),
            Subject::ProviderFunction { provider, name } => {
                write!(f, "provider::{provider}::{name}")
            }
        }
    }
}

/// One reference found in an expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    pub subject: Subject,
    /// The source of the part that names the subject (`var.x` of
    /// `var.x.y`).
    pub span: Span,
    /// Steps after the subject (`.y` of `var.x.y`).
    pub remaining: Vec<TraversalStep>,
}

impl Reference {
    /// The subject and remaining steps written back in HCL-like syntax, for
    /// messages (`var.x.y[0]`).
    pub fn display_string(&self) -> String {
        let mut s = self.subject.to_string();
        for step in &self.remaining {
            match step {
                TraversalStep::Attr { name, .. } => {
                    s.push('.');
                    s.push_str(name);
                }
                TraversalStep::Index { key, .. } => {
                    s.push('[');
                    match literal_value(key) {
                        Some(v) if v.as_str().is_some() => {
                            s.push_str(&gostr::quote(v.as_str().unwrap_or_default()))
                        }
                        Some(v) if v.as_number().is_some() => {
                            if let Some(n) = v.as_number() {
                                s.push_str(&n.text('g', 10));
                            }
                        }
                        _ => {}
                    }
                    s.push(']');
                }
            }
        }
        s
    }
}

/// Every reference in `expr`, in source order, with the diagnostics for
/// traversals that are not valid references. A traversal whose parse
/// failed contributes no reference.
pub fn references(expr: &Expr, file: &SourceFile) -> (Vec<Reference>, Diagnostics) {
    let mut refs = Vec::new();
    let mut diags = Diagnostics::new();
    for traversal in traversals(expr) {
        let (reference, more) = parse_ref(traversal, file);
        diags.extend(more);
        if let Some(reference) = reference {
            refs.push(reference);
        }
    }
    for (provider, name, span) in provider_function_calls(expr) {
        refs.push(Reference {
            subject: Subject::ProviderFunction { provider, name },
            span,
            remaining: Vec::new(),
        });
    }
    (refs, diags)
}

/// The scope traversals in `expr` (HCL's `Variables()`): names bound by an
/// enclosing `for` expression are left out, bare object keys are not
/// references.
pub fn traversals(expr: &Expr) -> Vec<&Traversal> {
    let mut walker = Walker {
        locals: Vec::new(),
        out: Vec::new(),
        calls: Vec::new(),
    };
    walker.expr(expr, 0);
    walker.out
}

/// `provider::NAME::FN` calls in `expr`: (provider, function, name span).
/// Malformed namespaced names are left to the evaluator to report.
pub fn provider_function_calls(expr: &Expr) -> Vec<(String, String, Span)> {
    let mut walker = Walker {
        locals: Vec::new(),
        out: Vec::new(),
        calls: Vec::new(),
    };
    walker.expr(expr, 0);
    walker
        .calls
        .into_iter()
        .filter_map(|(name, span)| {
            let parts: Vec<&str> = name.split("::").collect();
            if parts.len() >= 3 && parts[0] == "provider" {
                Some((
                    parts[1].to_string(),
                    parts[parts.len() - 1].to_string(),
                    span,
                ))
            } else {
                None
            }
        })
        .collect()
}

/// Deeper nesting than this is not walked; the evaluator refuses such
/// expressions anyway.
const MAX_WALK_DEPTH: usize = 512;

struct Walker<'e> {
    locals: Vec<&'e str>,
    out: Vec<&'e Traversal>,
    calls: Vec<(&'e str, Span)>,
}

impl<'e> Walker<'e> {
    fn expr(&mut self, expr: &'e Expr, depth: usize) {
        if depth > MAX_WALK_DEPTH {
            return;
        }
        let d = depth + 1;
        match &expr.kind {
            ExprKind::Number(_)
            | ExprKind::Bool(_)
            | ExprKind::Null
            | ExprKind::AnonSymbol
            | ExprKind::Invalid => {}
            ExprKind::Template(t) => self.parts(&t.parts, d),
            ExprKind::TemplateWrap(inner) | ExprKind::Parens(inner) => self.expr(inner, d),
            ExprKind::ScopeTraversal(t) => {
                if !self.locals.contains(&t.root.as_str()) {
                    self.out.push(t);
                }
            }
            ExprKind::RelativeTraversal { source, .. } => self.expr(source, d),
            ExprKind::FunctionCall {
                name,
                name_span,
                args,
                ..
            } => {
                self.calls.push((name, *name_span));
                for a in args {
                    self.expr(a, d);
                }
            }
            ExprKind::Conditional {
                condition,
                true_result,
                false_result,
            } => {
                self.expr(condition, d);
                self.expr(true_result, d);
                self.expr(false_result, d);
            }
            ExprKind::Binary { first, rest } => {
                self.expr(first, d);
                for operand in rest {
                    self.expr(&operand.rhs, d);
                }
            }
            ExprKind::Unary { operand, .. } => self.expr(operand, d),
            ExprKind::Tuple(items) => {
                for e in items {
                    self.expr(e, d);
                }
            }
            ExprKind::Object(items) => {
                for item in items {
                    if let ObjectKey::Expr(k) = &item.key {
                        if keyword_key(k).is_none() {
                            self.expr(k, d);
                        }
                    }
                    self.expr(&item.value, d);
                }
            }
            ExprKind::For(f) => {
                self.expr(&f.collection, d);
                let pushed = self.push_locals(f.key_var.as_deref(), &f.value_var);
                if let Some(k) = &f.key_expr {
                    self.expr(k, d);
                }
                self.expr(&f.value_expr, d);
                if let Some(c) = &f.condition {
                    self.expr(c, d);
                }
                self.locals.truncate(self.locals.len() - pushed);
            }
            ExprKind::Index {
                collection, key, ..
            } => {
                self.expr(collection, d);
                self.expr(key, d);
            }
            ExprKind::Splat { source, each, .. } => {
                self.expr(source, d);
                self.expr(each, d);
            }
        }
    }

    fn push_locals(&mut self, key: Option<&'e str>, value: &'e str) -> usize {
        let mut n = 0;
        if let Some(k) = key {
            self.locals.push(k);
            n += 1;
        }
        self.locals.push(value);
        n + 1
    }

    fn parts(&mut self, parts: &'e [TemplatePart], depth: usize) {
        if depth > MAX_WALK_DEPTH {
            return;
        }
        for part in parts {
            match part {
                TemplatePart::Literal { .. } => {}
                TemplatePart::Interpolation(e) => self.expr(e, depth + 1),
                TemplatePart::If {
                    condition,
                    then_parts,
                    else_parts,
                    ..
                } => {
                    self.expr(condition, depth + 1);
                    self.parts(then_parts, depth + 1);
                    self.parts(else_parts, depth + 1);
                }
                TemplatePart::For {
                    key_var,
                    value_var,
                    collection,
                    body,
                    ..
                } => {
                    self.expr(collection, depth + 1);
                    let pushed = self.push_locals(key_var.as_deref(), value_var);
                    self.parts(body, depth + 1);
                    self.locals.truncate(self.locals.len() - pushed);
                }
            }
        }
    }
}

/// An object key written as a bare word that the parser left as an
/// expression (`{ null = 1 }`, `{ a = 1 }`): HCL reads it as a literal
/// name, never a reference. Parenthesised keys are expressions.
pub(crate) fn keyword_key(key: &Expr) -> Option<String> {
    match &key.kind {
        ExprKind::ScopeTraversal(t) if t.steps.is_empty() => Some(t.root.clone()),
        ExprKind::Null => Some("null".into()),
        ExprKind::Bool(true) => Some("true".into()),
        ExprKind::Bool(false) => Some("false".into()),
        _ => None,
    }
}

/// The value of a literal traversal key: a number, string (a template of
/// literal text only), bool or null.
pub(crate) fn literal_value(expr: &Expr) -> Option<Value> {
    match &expr.kind {
        ExprKind::Number(text) => Number::parse(text).map(Value::number),
        ExprKind::Bool(b) => Some(Value::bool(*b)),
        ExprKind::Null => Some(Value::null(terrace_value::Type::Dynamic)),
        ExprKind::Template(t) => {
            let mut s = String::new();
            for part in &t.parts {
                match part {
                    TemplatePart::Literal { text, .. } => s.push_str(text),
                    _ => return None,
                }
            }
            Some(Value::string(s))
        }
        ExprKind::Parens(inner) | ExprKind::TemplateWrap(inner) => literal_value(inner),
        _ => None,
    }
}

fn error(
    file: &SourceFile,
    summary: &str,
    detail: impl Into<String>,
    span: Span,
) -> Box<Diagnostic> {
    Box::new(Diagnostic::error(summary, detail).with_subject(file.range(span)))
}

/// Interprets one traversal as a Terraform reference (Terraform's
/// `addrs.ParseRef`). Returns no reference when the diagnostics have
/// errors.
pub fn parse_ref(traversal: &Traversal, file: &SourceFile) -> (Option<Reference>, Diagnostics) {
    match parse_ref_inner(traversal, file) {
        Ok(r) => (Some(r), Vec::new()),
        Err(d) => (None, vec![*d]),
    }
}

fn whole_span(traversal: &Traversal) -> Span {
    match traversal.steps.last() {
        Some(last) => traversal.root_span.to(last.span()),
        None => traversal.root_span,
    }
}

fn parse_ref_inner(traversal: &Traversal, file: &SourceFile) -> Result<Reference, Box<Diagnostic>> {
    let root = traversal.root.as_str();
    let steps = &traversal.steps;
    let single = |make: fn(String) -> Subject| parse_single_attr(traversal, file, make);
    match root {
        "count" => single(Subject::CountAttr),
        "each" => single(Subject::ForEachAttr),
        "local" => single(Subject::LocalValue),
        "path" => single(Subject::PathAttr),
        "terraform" => single(Subject::TerraformAttr),
        "var" => single(Subject::InputVariable),
        "self" => Ok(Reference { subject: Subject::SelfObject, span: traversal.root_span, remaining: steps.clone() }),
        "module" => parse_module_ref(traversal, file),
        "data" | "ephemeral" | "resource" => {
            if steps.len() < 2 {
                let detail = match root {
                    "data" => "The \"data\" object must be followed by two attribute names: the data source type and the resource name.",
                    "ephemeral" => "The \"ephemeral\" object must be followed by two attribute names: the ephemeral resource type and the resource name.",
                    _ => "The \"resource\" object must be followed by two attribute names: the resource type and the resource name.",
                };
                return Err(error(file, "Invalid reference", detail, whole_span(traversal)));
            }
            let mode = match root {
                "data" => ResourceMode::Data,
                "ephemeral" => ResourceMode::Ephemeral,
                _ => ResourceMode::Managed,
            };
            let type_name = match &steps[0] {
                TraversalStep::Attr { name, .. } => name.clone(),
                TraversalStep::Index { span, .. } => {
                    let detail = format!("The {root:?} object does not support this operation.");
                    return Err(error(file, "Invalid reference", detail, *span));
                }
            };
            parse_resource_ref(mode, type_name, traversal.root_span, &steps[1..], file)
        }
        "template" | "lazy" | "arg" => Err(error(
            file,
            "Reserved symbol name",
            format!(
                "The symbol name {root:?} is reserved for use in a future {PRODUCT} version. If you are using a provider that already uses this as a resource type name, add the prefix \"resource.\" to force interpretation as a resource type name."
            ),
            traversal.root_span,
        )),
        _ => {
            if steps.is_empty() {
                return Err(error(
                    file,
                    "Invalid reference",
                    "A reference to a resource type must be followed by at least one attribute access, specifying the resource name.",
                    traversal.root_span,
                ));
            }
            parse_resource_ref(ResourceMode::Managed, traversal.root.clone(), traversal.root_span, steps, file)
        }
    }
}

fn parse_single_attr(
    traversal: &Traversal,
    file: &SourceFile,
    make: fn(String) -> Subject,
) -> Result<Reference, Box<Diagnostic>> {
    let root = &traversal.root;
    match traversal.steps.first() {
        None => Err(error(
            file,
            "Invalid reference",
            format!("The {root:?} object cannot be accessed directly. Instead, access one of its attributes."),
            traversal.root_span,
        )),
        Some(TraversalStep::Attr { name, span }) => Ok(Reference {
            subject: make(name.clone()),
            span: traversal.root_span.to(*span),
            remaining: traversal.steps[1..].to_vec(),
        }),
        Some(TraversalStep::Index { span, .. }) => Err(error(
            file,
            "Invalid reference",
            format!("The {root:?} object does not support this operation."),
            *span,
        )),
    }
}

/// `rest` starts at the resource name step.
fn parse_resource_ref(
    mode: ResourceMode,
    type_name: String,
    start: Span,
    rest: &[TraversalStep],
    file: &SourceFile,
) -> Result<Reference, Box<Diagnostic>> {
    let (name, name_span) = match rest.first() {
        Some(TraversalStep::Attr { name, span }) => (name.clone(), *span),
        Some(TraversalStep::Index { span, .. }) => {
            let what = match mode {
                ResourceMode::Data => "a data source",
                ResourceMode::Ephemeral => "an ephemeral resource",
                ResourceMode::Managed => "a resource type",
            };
            return Err(error(
                file,
                "Invalid reference",
                format!("A reference to {what} must be followed by at least one attribute access, specifying the resource name."),
                *span,
            ));
        }
        None => {
            return Err(error(
                file,
                "Invalid reference",
                "A reference to a resource type must be followed by at least one attribute access, specifying the resource name.",
                start,
            ))
        }
    };
    let resource = ResourceAddr {
        mode,
        type_name,
        name,
    };
    let mut span = start.to(name_span);
    let mut remain = &rest[1..];
    if remain.is_empty() {
        return Ok(Reference {
            subject: Subject::Resource(resource),
            span,
            remaining: Vec::new(),
        });
    }
    let mut key = InstanceKey::None;
    if let TraversalStep::Index {
        key: key_expr,
        span: idx_span,
    } = &remain[0]
    {
        key = instance_key(key_expr).map_err(|msg| {
            error(
                file,
                "Invalid index key",
                format!("Invalid index for resource instance: {msg}."),
                *idx_span,
            )
        })?;
        span = span.to(*idx_span);
        remain = &remain[1..];
    }
    Ok(Reference {
        subject: Subject::ResourceInstance { resource, key },
        span,
        remaining: remain.to_vec(),
    })
}

fn parse_module_ref(
    traversal: &Traversal,
    file: &SourceFile,
) -> Result<Reference, Box<Diagnostic>> {
    let call_ref = parse_single_attr(traversal, file, Subject::ModuleCall)?;
    let Subject::ModuleCall(call) = call_ref.subject else {
        return Err(error(
            file,
            "Invalid reference",
            "Module instance objects do not support this operation.",
            traversal.root_span,
        ));
    };
    let mut span = call_ref.span;
    let mut remain: &[TraversalStep] = &call_ref.remaining;
    if remain.is_empty() {
        return Ok(Reference {
            subject: Subject::ModuleCall(call),
            span,
            remaining: Vec::new(),
        });
    }
    let mut key = InstanceKey::None;
    if let TraversalStep::Index {
        key: key_expr,
        span: idx_span,
    } = &remain[0]
    {
        key = instance_key(key_expr).map_err(|msg| {
            error(
                file,
                "Invalid index key",
                format!("Invalid index for module instance: {msg}."),
                *idx_span,
            )
        })?;
        span = span.to(*idx_span);
        remain = &remain[1..];
        if remain.is_empty() {
            return Ok(Reference {
                subject: Subject::ModuleCallInstance { call, key },
                span,
                remaining: Vec::new(),
            });
        }
    }
    match &remain[0] {
        TraversalStep::Attr {
            name,
            span: attr_span,
        } => Ok(Reference {
            subject: Subject::ModuleCallInstanceOutput {
                call,
                key,
                name: name.clone(),
            },
            span: span.to(*attr_span),
            remaining: remain[1..].to_vec(),
        }),
        TraversalStep::Index { span: idx_span, .. } => Err(error(
            file,
            "Invalid reference",
            "Module instance objects do not support this operation.",
            *idx_span,
        )),
    }
}

/// Terraform's `ParseInstanceKey`: a string, or a number that is a whole
/// number in the int64 range.
fn instance_key(key: &Expr) -> Result<InstanceKey, &'static str> {
    const WHOLE: &str =
        "value must be a whole number, between -9223372036854775808 and 9223372036854775807";
    let Some(value) = literal_value(key) else {
        return Err("either a string or an integer is required");
    };
    if let Some(s) = value.as_str() {
        return Ok(InstanceKey::String(s.to_string()));
    }
    if let Some(n) = value.as_number() {
        return match n.to_i64() {
            Some(i) if n.is_integer() => Ok(InstanceKey::Int(i)),
            _ => Err(WHOLE),
        };
    }
    Err("either a string or an integer is required")
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_syntax::diagnostic::has_errors;

    fn refs_of(src: &str) -> (Vec<String>, Vec<(String, String)>) {
        let file = SourceFile::new("refs.tf", src);
        let (expr, diags) = terrace_syntax::parse_expression(&file);
        assert!(!has_errors(&diags), "parse errors in {src:?}: {diags:?}");
        let (refs, diags) = references(&expr, &file);
        let refs = refs.iter().map(Reference::display_string).collect();
        let diags = diags.into_iter().map(|d| (d.summary, d.detail)).collect();
        (refs, diags)
    }

    #[test]
    fn finds_references_everywhere() {
        let rows: &[(&str, &[&str])] = &[
            ("var.a", &["var.a"]),
            ("var.a.b[0]", &["var.a.b[0]"]),
            ("local.x + var.y", &["local.x", "var.y"]),
            ("count.index", &["count.index"]),
            ("each.key", &["each.key"]),
            ("each.value.name", &["each.value.name"]),
            ("path.module", &["path.module"]),
            ("terraform.workspace", &["terraform.workspace"]),
            ("self.id", &["self.id"]),
            ("aws_instance.web", &["aws_instance.web"]),
            ("aws_instance.web.id", &["aws_instance.web.id"]),
            ("aws_instance.web[0].id", &["aws_instance.web[0].id"]),
            (
                "aws_instance.web[\"k\"].id",
                &["aws_instance.web[\"k\"].id"],
            ),
            ("resource.aws_instance.web.id", &["aws_instance.web.id"]),
            ("data.aws_ami.x.id", &["data.aws_ami.x.id"]),
            (
                "ephemeral.random_password.p.result",
                &["ephemeral.random_password.p.result"],
            ),
            ("module.m", &["module.m"]),
            ("module.m.out", &["module.m.out"]),
            ("module.m[1]", &["module.m[1]"]),
            ("module.m[\"a\"].out.x", &["module.m[\"a\"].out.x"]),
            ("[for x in var.l: x.a if local.c]", &["var.l", "local.c"]),
            (
                "{for k, v in var.m: k => v + local.d}",
                &["var.m", "local.d"],
            ),
            (
                "[for x in var.l: [for y in x: y + x + var.z]]",
                &["var.l", "var.z"],
            ),
            ("var.l[*].id", &["var.l"]),
            ("var.l[*].m[local.k]", &["var.l", "local.k"]),
            (
                "\"${var.a}-%{for x in var.b}${x}${local.c}%{endfor}\"",
                &["var.a", "var.b", "local.c"],
            ),
            (
                "\"%{if var.a}${local.b}%{else}${local.c}%{endif}\"",
                &["var.a", "local.b", "local.c"],
            ),
            ("{ a = var.x, (local.k) = 1 }", &["var.x", "local.k"]),
            ("{ a = 1 }", &[]),
            ("upper(var.s)", &["var.s"]),
            (
                "var.c ? local.a : local.b",
                &["var.c", "local.a", "local.b"],
            ),
            ("!var.b && -local.n > 0", &["var.b", "local.n"]),
            ("(var.o).attr", &["var.o"]),
            ("var.m[local.k]", &["var.m", "local.k"]),
            (
                "provider::aws::arn_parse(var.arn)",
                &["var.arn", "provider::aws::arn_parse"],
            ),
            ("1 + 2", &[]),
        ];
        for (src, want) in rows {
            let (got, diags) = refs_of(src);
            assert!(diags.is_empty(), "{src}: {diags:?}");
            assert_eq!(got, *want, "{src}");
        }
    }

    #[test]
    fn subjects() {
        let file = SourceFile::new("r.tf", "aws_instance.web[0].id");
        let (expr, _) = terrace_syntax::parse_expression(&file);
        let (refs, _) = references(&expr, &file);
        let r = &refs[0];
        assert_eq!(
            r.subject,
            Subject::ResourceInstance {
                resource: ResourceAddr {
                    mode: ResourceMode::Managed,
                    type_name: "aws_instance".into(),
                    name: "web".into()
                },
                key: InstanceKey::Int(0)
            }
        );
        assert_eq!((r.span.start, r.span.end), (0, 19));
        assert_eq!(r.remaining.len(), 1);
        assert_eq!(r.subject.to_string(), "aws_instance.web[0]");

        let file = SourceFile::new("r.tf", "module.m.out");
        let (expr, _) = terrace_syntax::parse_expression(&file);
        let (refs, _) = references(&expr, &file);
        assert_eq!(
            refs[0].subject,
            Subject::ModuleCallInstanceOutput {
                call: "m".into(),
                key: InstanceKey::None,
                name: "out".into()
            }
        );
        assert_eq!(refs[0].subject.to_string(), "module.m.out");
    }

    #[test]
    fn malformed_references() {
        let rows: &[(&str, &str, &str)] = &[
            ("var", "Invalid reference", "The \"var\" object cannot be accessed directly. Instead, access one of its attributes."),
            ("path[0]", "Invalid reference", "The \"path\" object does not support this operation."),
            ("each", "Invalid reference", "The \"each\" object cannot be accessed directly. Instead, access one of its attributes."),
            (
                "x",
                "Invalid reference",
                "A reference to a resource type must be followed by at least one attribute access, specifying the resource name.",
            ),
            (
                "x[0]",
                "Invalid reference",
                "A reference to a resource type must be followed by at least one attribute access, specifying the resource name.",
            ),
            (
                "data.a",
                "Invalid reference",
                "The \"data\" object must be followed by two attribute names: the data source type and the resource name.",
            ),
            (
                "data.a[0].b",
                "Invalid reference",
                "A reference to a data source must be followed by at least one attribute access, specifying the resource name.",
            ),
            (
                "ephemeral.a",
                "Invalid reference",
                "The \"ephemeral\" object must be followed by two attribute names: the ephemeral resource type and the resource name.",
            ),
            (
                "resource.a",
                "Invalid reference",
                "The \"resource\" object must be followed by two attribute names: the resource type and the resource name.",
            ),
            (
                "module.foo[1.5]",
                "Invalid index key",
                "Invalid index for module instance: value must be a whole number, between -9223372036854775808 and 9223372036854775807.",
            ),
            ("module.foo[true]", "Invalid index key", "Invalid index for module instance: either a string or an integer is required."),
            ("module.foo[null]", "Invalid index key", "Invalid index for module instance: either a string or an integer is required."),
            (
                "a.b[1e30]",
                "Invalid index key",
                "Invalid index for resource instance: value must be a whole number, between -9223372036854775808 and 9223372036854775807.",
            ),
            ("module.foo[0][1]", "Invalid reference", "Module instance objects do not support this operation."),
            (
                "template.x",
                "Reserved symbol name",
                "The symbol name \"template\" is reserved for use in a future terrace version. If you are using a provider that already uses this as a resource type name, add the prefix \"resource.\" to force interpretation as a resource type name.",
            ),
            (
                "lazy.x",
                "Reserved symbol name",
                "The symbol name \"lazy\" is reserved for use in a future terrace version. If you are using a provider that already uses this as a resource type name, add the prefix \"resource.\" to force interpretation as a resource type name.",
            ),
        ];
        for (src, summary, detail) in rows {
            let (refs, diags) = refs_of(src);
            assert!(refs.is_empty(), "{src}: {refs:?}");
            assert_eq!(
                diags,
                vec![(summary.to_string(), detail.to_string())],
                "{src}"
            );
        }
        // `-1` is an operator expression, so the index is not part of the
        // reference
        let (refs, diags) = refs_of("a.b[-1]");
        assert!(diags.is_empty());
        assert_eq!(refs, vec!["a.b".to_string()]);
    }
}
