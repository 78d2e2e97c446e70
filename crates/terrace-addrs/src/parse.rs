//! The shared machinery for reading addresses out of traversals: a flat
//! view of a traversal's steps (HCL's `hcl.Traversal`, where the root is
//! just the first named step), source ranges for diagnostics, literal index
//! keys as values, and the module-path prefix readers every address parser
//! starts with.

use crate::instance_key::InstanceKey;
use crate::module::{Module, ModuleInstance, ModuleInstanceStep};
use std::sync::Arc;
use terrace_syntax::ast::{Expr, ExprKind, SourceFile, TemplatePart, Traversal, TraversalStep};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::{Diagnostic, Diagnostics, SourceRange, Span};
use terrace_value::{Number, Type, Value};

/// One step of a traversal. The root and attribute steps are both `Name`:
/// OpenTofu's parsers treat `TraverseRoot` and `TraverseAttr` alike
/// wherever a name is expected, and normalise the first remaining step to a
/// root after consuming a module prefix.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Step<'t> {
    Name { name: &'t str, span: Span },
    Index { key: &'t Expr, span: Span },
}

impl<'t> Step<'t> {
    pub(crate) fn span(&self) -> Span {
        match self {
            Step::Name { span, .. } | Step::Index { span, .. } => *span,
        }
    }

    pub(crate) fn name(&self) -> Option<&'t str> {
        match self {
            Step::Name { name, .. } => Some(name),
            Step::Index { .. } => None,
        }
    }
}

/// The steps of `traversal`, root first.
pub(crate) fn steps(traversal: &Traversal) -> Vec<Step<'_>> {
    let mut out = Vec::with_capacity(traversal.steps.len() + 1);
    out.push(Step::Name {
        name: &traversal.root,
        span: traversal.root_span,
    });
    for step in &traversal.steps {
        out.push(match step {
            TraversalStep::Attr { name, span } => Step::Name { name, span: *span },
            TraversalStep::Index { key, span } => Step::Index { key, span: *span },
        });
    }
    out
}

/// The name of the first step (HCL's `RootName`), or `""` when the steps
/// are empty or start with an index (a relative traversal, where HCL would
/// panic).
pub(crate) fn root_name<'t>(steps: &[Step<'t>]) -> &'t str {
    steps.first().and_then(Step::name).unwrap_or("")
}

/// Resolves spans against one file, so parsers can attach subjects.
pub(crate) struct Ranges<'f> {
    pub(crate) file: &'f SourceFile,
}

impl Ranges<'_> {
    pub(crate) fn span(&self, span: Span) -> SourceRange {
        self.file.range(span)
    }

    /// The range covering all `steps` (HCL's `Traversal.SourceRange`); none
    /// for no steps, where HCL gives an empty range.
    pub(crate) fn steps(&self, steps: &[Step<'_>]) -> Option<SourceRange> {
        let first = steps.first()?;
        let last = steps.last()?;
        Some(self.file.range(first.span().to(last.span())))
    }

    pub(crate) fn error(
        &self,
        summary: &str,
        detail: impl Into<String>,
        subject: Option<SourceRange>,
    ) -> Diagnostic {
        let diag = Diagnostic::error(summary, detail);
        match subject {
            Some(range) => diag.with_subject(range),
            None => diag,
        }
    }
}

/// The value of a literal index key: a number, a string (a template of
/// literal text only), a bool or null. Anything else is not a literal.
pub(crate) fn literal_value(expr: &Expr) -> Option<Value> {
    match &expr.kind {
        ExprKind::Number(text) => Number::parse(text).map(Value::number),
        ExprKind::Bool(b) => Some(Value::bool(*b)),
        ExprKind::Null => Some(Value::null(Type::Dynamic)),
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

/// The literal key as a string, when it is one.
pub(crate) fn string_key(expr: &Expr) -> Option<String> {
    literal_value(expr).and_then(|v| v.as_str().map(str::to_string))
}

/// Reads `text` as an absolute traversal (HCL's `ParseTraversalAbs`) and
/// hands it to `parse`, for the `parse_str` entry points. The file has no
/// name, as OpenTofu's string parsers use none.
pub(crate) fn parse_str<T>(
    text: &str,
    parse: impl FnOnce(&Traversal, &SourceFile) -> Result<T, Diagnostics>,
) -> Result<T, Diagnostics> {
    let file = SourceFile::new("", text);
    let (traversal, diags) = terrace_syntax::parse_traversal_abs(&file);
    if has_errors(&diags) {
        return Err(diags);
    }
    match traversal {
        Some(t) => parse(&t, &file),
        // The traversal parser reports why it has no root; this is only a
        // guard in case a future parser returns nothing silently.
        None => Err(vec![Diagnostic::error(
            "Invalid address",
            "An address is required here.",
        )]),
    }
}

/// Reads `module.NAME` at the start of `steps` (OpenTofu's
/// `getModuleName`): `Ok(Some(name))` for a module step, `Ok(None)` when
/// the steps do not start with `module`.
fn module_name<'t>(
    steps: &[Step<'t>],
    ranges: &Ranges<'_>,
) -> Result<Option<&'t str>, Box<Diagnostic>> {
    let Some(first) = steps.first() else {
        return Ok(None);
    };
    let keyword = match first {
        Step::Name { name, .. } => *name,
        Step::Index { span, .. } => {
            return Err(Box::new(ranges.error(
                "Invalid address operator",
                "Module address prefix must be followed by dot and then a name.",
                Some(ranges.span(*span)),
            )))
        }
    };
    if keyword != "module" {
        return Ok(None);
    }
    match steps.get(1) {
        None => Err(Box::new(ranges.error(
            "Invalid address operator",
            "Prefix \"module.\" must be followed by a module name.",
            Some(ranges.span(first.span())),
        ))),
        Some(Step::Name { name, .. }) => Ok(Some(name)),
        Some(Step::Index { span, .. }) => Err(Box::new(ranges.error(
            "Invalid address operator",
            "Prefix \"module.\" must be followed by a module name.",
            Some(ranges.span(*span)),
        ))),
    }
}

/// A module path prefix without instance keys (OpenTofu's
/// `parseModulePrefix`) and the steps after it. On error the diagnostics
/// come back with the path read so far, as OpenTofu returns both.
pub(crate) fn module_prefix<'s, 't>(
    steps: &'s [Step<'t>],
    ranges: &Ranges<'_>,
) -> (Module, &'s [Step<'t>], Diagnostics) {
    let mut remain = steps;
    let mut names: Vec<Arc<str>> = Vec::new();
    let mut diags = Diagnostics::new();
    while !remain.is_empty() {
        match module_name(remain, ranges) {
            Ok(Some(name)) => {
                remain = &remain[2..];
                if let Some(Step::Index { span, .. }) = remain.first() {
                    diags.push(ranges.error(
                        "Module instance address with keys is not allowed",
                        "Module address cannot be a module instance (e.g. \"module.a[0]\"), it must be a module instead (e.g. \"module.a\").",
                        Some(ranges.span(*span)),
                    ));
                    return (Module::from_names(names), remain, diags);
                }
                names.push(Arc::from(name));
            }
            Ok(None) => break,
            Err(d) => {
                diags.push(*d);
                break;
            }
        }
    }
    (Module::from_names(names), remain, diags)
}

/// A module instance path prefix (OpenTofu's `parseModuleInstancePrefix`)
/// and the steps after it. A bad instance key is reported and the step is
/// kept without a key, as OpenTofu does.
pub(crate) fn module_instance_prefix<'s, 't>(
    steps: &'s [Step<'t>],
    ranges: &Ranges<'_>,
) -> (ModuleInstance, &'s [Step<'t>], Diagnostics) {
    let mut remain = steps;
    let mut path: Vec<ModuleInstanceStep> = Vec::new();
    let mut diags = Diagnostics::new();
    while !remain.is_empty() {
        let name = match module_name(remain, ranges) {
            Ok(Some(name)) => name,
            Ok(None) => break,
            Err(d) => {
                diags.push(*d);
                break;
            }
        };
        // After a bad instance key OpenTofu keeps that step but reads no
        // further module steps.
        if has_errors(&diags) {
            break;
        }
        remain = &remain[2..];
        let mut key = InstanceKey::None;
        if let Some(Step::Index {
            key: key_expr,
            span,
        }) = remain.first()
        {
            remain = &remain[1..];
            match module_instance_key(key_expr) {
                Ok(k) => key = k,
                Err(detail) => diags.push(ranges.error(
                    "Invalid address operator",
                    detail,
                    Some(ranges.span(*span)),
                )),
            }
        }
        path.push(ModuleInstanceStep {
            name: Arc::from(name),
            key,
        });
    }
    (ModuleInstance::from_steps(path), remain, diags)
}

fn module_instance_key(expr: &Expr) -> Result<InstanceKey, String> {
    let Some(value) = literal_value(expr) else {
        return Err("Invalid module key: must be either a string or an integer.".into());
    };
    if value.is_null() {
        return Err("Invalid module key: must be either a string or an integer.".into());
    }
    match value.ty() {
        Type::String | Type::Number => {
            InstanceKey::from_value(&value).map_err(|e| format!("Invalid module index: {e}."))
        }
        _ => Err("Invalid module key: must be either a string or an integer.".into()),
    }
}
