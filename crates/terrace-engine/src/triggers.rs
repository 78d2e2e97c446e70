//! `lifecycle.replace_triggered_by`: each element names a managed
//! resource, one of its instances or an attribute of one (index keys may
//! use only `count.index` and `each.key`); the instance is replaced when
//! a named instance is planned for an update or a replacement, or, for an
//! attribute, when that attribute's planned value differs from its prior
//! value. A created object triggers nothing (as in Terraform 1.11).

use crate::values::Repetition;
use std::collections::HashMap;
use std::sync::Mutex;
use terrace_addrs::{AbsResource, InstanceKey, ModuleInstance};
use terrace_config::expr::Expression;
use terrace_lang::references::{parse_ref, Subject};
use terrace_plans::model::Action;
use terrace_syntax::ast::{Expr, ExprKind, Template, TemplatePart, Traversal, TraversalStep};
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::convert::PathStep;
use terrace_value::Value;

/// An instance's planned action with its before and after values.
type PlannedChange = (Action, Value, Value);

/// What `replace_triggered_by` can see of planned changes: the current
/// objects of the resources some trigger names, by instance.
#[derive(Default)]
pub(crate) struct TriggerIndex {
    changes: Mutex<HashMap<AbsResource, HashMap<InstanceKey, PlannedChange>>>,
}

impl TriggerIndex {
    pub fn record(
        &self,
        resource: AbsResource,
        key: InstanceKey,
        action: Action,
        before: &Value,
        after: &Value,
    ) {
        if let Ok(mut g) = self.changes.lock() {
            g.entry(resource)
                .or_default()
                .insert(key, (action, before.clone(), after.clone()));
        }
    }

    /// Whether the trigger's target asks for replacement.
    fn fires(&self, t: &Target) -> bool {
        let Ok(g) = self.changes.lock() else {
            return false;
        };
        let Some(instances) = g.get(&t.resource) else {
            return false;
        };
        let triggering = |a: Action| {
            matches!(
                a,
                Action::Update | Action::DeleteThenCreate | Action::CreateThenDelete
            )
        };
        match &t.key {
            None => instances.values().any(|(a, _, _)| triggering(*a)),
            Some(k) => {
                let Some((action, before, after)) = instances.get(k) else {
                    return false;
                };
                if !triggering(*action) {
                    return false;
                }
                if t.path.is_empty() {
                    return true;
                }
                let b = path_value(before, &t.path);
                let a = path_value(after, &t.path);
                match (b, a) {
                    (Some(b), Some(a)) => {
                        let (b, _) = b.unmark_deep();
                        let (a, _) = a.unmark_deep();
                        !b.raw_equals(&a)
                    }
                    (None, None) => false,
                    _ => true,
                }
            }
        }
    }
}

/// One trigger made concrete for one instance.
#[derive(Debug)]
struct Target {
    resource: AbsResource,
    /// `None`: any instance of the resource.
    key: Option<InstanceKey>,
    path: Vec<PathStep>,
}

fn path_value(v: &Value, path: &[PathStep]) -> Option<Value> {
    let mut cur = v.clone();
    for step in path {
        if cur.is_null() || !cur.is_known() {
            return Some(cur);
        }
        cur = match step {
            PathStep::Attr(n) => cur.get_attr(n).ok()?,
            PathStep::Index(k) => cur.index(k).ok()?,
        };
    }
    Some(cur)
}

fn literal(v: &Value, span: terrace_syntax::pos::Span) -> Expr {
    let kind = match v.as_str() {
        Some(s) => ExprKind::Template(Template {
            parts: vec![TemplatePart::Literal {
                text: s.to_string(),
                span,
            }],
            heredoc: false,
            origin: Default::default(),
        }),
        None => ExprKind::Number(v.as_number().map(|n| n.to_string()).unwrap_or_default()),
    };
    Expr { kind, span }
}

/// The expression as one static traversal, each dynamic index key
/// replaced by the literal `key` gives for it (`None` after reporting an
/// error). `what` names the argument for the error about other forms.
pub(crate) fn static_traversal(
    e: &Expr,
    expr: &Expression,
    key: &dyn Fn(&Expr, &mut Diagnostics) -> Option<Value>,
    what: &str,
    diags: &mut Diagnostics,
) -> Option<Traversal> {
    let file = expr.file();
    match &e.kind {
        ExprKind::ScopeTraversal(t) => Some(t.clone()),
        ExprKind::RelativeTraversal { source, steps } => {
            let mut t = static_traversal(source, expr, key, what, diags)?;
            t.steps.extend(steps.iter().cloned());
            Some(t)
        }
        ExprKind::Index {
            collection, key: k, ..
        } => {
            let mut t = static_traversal(collection, expr, key, what, diags)?;
            let value = key(k, diags)?;
            t.steps.push(TraversalStep::Index {
                key: Box::new(literal(&value, k.span)),
                span: k.span,
            });
            Some(t)
        }
        ExprKind::Parens(inner) => static_traversal(inner, expr, key, what, diags),
        _ => {
            diags.push(
                Diagnostic::error(
                    format!("Invalid {what} expression"),
                    format!("Unexpected expression found in {what}."),
                )
                .with_subject(file.range(e.span)),
            );
            None
        }
    }
}

/// `count.index`/`each.key` in a trigger's index keys, from `rep`.
fn trigger_key(
    k: &Expr,
    expr: &Expression,
    rep: &Repetition,
    diags: &mut Diagnostics,
) -> Option<Value> {
    let name = match &k.kind {
        ExprKind::ScopeTraversal(t) => {
            let mut parts = vec![t.root.clone()];
            for s in &t.steps {
                match s {
                    TraversalStep::Attr { name, .. } => parts.push(name.clone()),
                    TraversalStep::Index { .. } => parts.push(String::new()),
                }
            }
            parts.join(".")
        }
        _ => String::new(),
    };
    let range = expr.file().range(k.span);
    match name.as_str() {
        "count.index" => match &rep.count_index {
            Some(i) => Some(i.clone()),
            None => {
                diags.push(Diagnostic::error(
                    "Reference to \"count\" in non-counted context",
                    "The \"count\" object can only be used in \"resource\" blocks when the \"count\" argument is set.",
                ).with_subject(range));
                None
            }
        },
        "each.key" => match &rep.each_key {
            Some(k) => Some(k.clone()),
            None => {
                diags.push(Diagnostic::error(
                    "Reference to \"each\" in context without for_each",
                    "The \"each\" object can be used only in \"resource\" blocks when the \"for_each\" argument is set.",
                ).with_subject(range));
                None
            }
        },
        _ => {
            diags.push(
                Diagnostic::error(
                    "Invalid index expression",
                    "Only constant values, count.index or each.key are allowed in index expressions.",
                )
                .with_subject(range),
            );
            None
        }
    }
}

fn addr_key(k: &terrace_lang::references::InstanceKey) -> InstanceKey {
    match k {
        terrace_lang::references::InstanceKey::None => InstanceKey::None,
        terrace_lang::references::InstanceKey::Int(i) => InstanceKey::Int(*i),
        terrace_lang::references::InstanceKey::String(s) => InstanceKey::string(s),
    }
}

fn step_path(steps: &[TraversalStep], file: &terrace_syntax::ast::SourceFile) -> Vec<PathStep> {
    steps
        .iter()
        .map(|s| match s {
            TraversalStep::Attr { name, .. } => PathStep::Attr(name.clone()),
            TraversalStep::Index { key, .. } => {
                let scope = terrace_lang::scope::MapScope::constant();
                let (v, _) = terrace_lang::eval::evaluate(key, file, &scope);
                PathStep::Index(v)
            }
        })
        .collect()
}

/// Resolves one trigger for an instance in `module` with `rep`; `declared`
/// tells whether the module declares a managed resource (`type.name`).
fn target(
    expr: &Expression,
    module: &ModuleInstance,
    rep: &Repetition,
    declared: &dyn Fn(&str, &str) -> bool,
) -> Result<Target, Diagnostics> {
    let mut diags = Diagnostics::new();
    let (e, _) = expr.evaluable();
    let key = |k: &Expr, d: &mut Diagnostics| trigger_key(k, expr, rep, d);
    let Some(t) = static_traversal(e, expr, &key, "replace_triggered_by", &mut diags) else {
        return Err(diags);
    };
    let (r, d) = parse_ref(&t, expr.file());
    diags.extend(d);
    let Some(r) = r else { return Err(diags) };
    let (res, key) = match &r.subject {
        Subject::Resource(res) => (res, None),
        Subject::ResourceInstance { resource, key } => (resource, Some(addr_key(key))),
        _ => {
            diags.push(
                Diagnostic::error(
                    "Invalid reference in replace_triggered_by expression",
                    "Only resources, count.index, and each.key may be used in replace_triggered_by.",
                )
                .with_subject(expr.range()),
            );
            return Err(diags);
        }
    };
    let managed = res.mode == terrace_lang::references::ResourceMode::Managed;
    if !managed || !declared(&res.type_name, &res.name) {
        let display = if module.is_root() {
            "the root module".to_string()
        } else {
            module.to_string()
        };
        diags.push(
            Diagnostic::error(
                "Reference to undeclared resource",
                format!(
                    "A resource {} has not been declared in {display}",
                    r.subject
                ),
            )
            .with_subject(expr.range()),
        );
        return Err(diags);
    }
    let resource = terrace_addrs::Resource::new(
        terrace_addrs::ResourceMode::Managed,
        res.type_name.as_str(),
        res.name.as_str(),
    )
    .absolute(module.clone());
    Ok(Target {
        resource,
        key,
        path: step_path(&r.remaining, expr.file()),
    })
}

/// Whether any of `exprs` triggers replacement of the instance in `module`
/// with repetition `rep`.
pub(crate) fn replace_triggered(
    index: &TriggerIndex,
    exprs: &[Expression],
    module: &ModuleInstance,
    rep: &Repetition,
    declared: &dyn Fn(&str, &str) -> bool,
) -> Result<bool, Diagnostics> {
    let mut diags = Diagnostics::new();
    for e in exprs {
        match target(e, module, rep, declared) {
            Ok(t) => {
                if index.fires(&t) {
                    return Ok(true);
                }
            }
            Err(d) => diags.extend(d),
        }
    }
    if diags.is_empty() {
        Ok(false)
    } else {
        Err(diags)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_syntax::ast::SourceFile;

    fn expr(text: &str) -> Expression {
        let file = SourceFile::new("t.tf", text);
        let (e, d) = terrace_syntax::parse_expression(&file);
        assert!(d.is_empty(), "{d:?}");
        Expression::native(&file, e)
    }

    fn obj(out: &str) -> Value {
        Value::object([("output".to_string(), Value::string(out))].into())
    }

    #[test]
    fn triggers_fire_on_updates_and_attribute_changes_only() {
        let index = TriggerIndex::default();
        let a = terrace_addrs::Resource::new(terrace_addrs::ResourceMode::Managed, "t", "a")
            .absolute(ModuleInstance::root());
        index.record(
            a.clone(),
            InstanceKey::Int(0),
            Action::Update,
            &obj("x"),
            &obj("x"),
        );
        index.record(
            a.clone(),
            InstanceKey::Int(1),
            Action::Update,
            &obj("x"),
            &obj("y"),
        );
        index.record(a, InstanceKey::Int(2), Action::Create, &obj("x"), &obj("z"));
        let declared = |t: &str, n: &str| t == "t" && n == "a";
        let root = ModuleInstance::root();
        let cases: &[(&str, Option<i64>, Result<bool, &str>)] = &[
            ("t.a", None, Ok(true)),
            ("t.a[0]", None, Ok(true)),
            ("t.a[0].output", None, Ok(false)),
            ("t.a[1].output", None, Ok(true)),
            ("t.a[count.index].output", Some(1), Ok(true)),
            ("t.a[count.index].output", Some(0), Ok(false)),
            ("t.a[2]", None, Ok(false)),
            ("t.a[5]", None, Ok(false)),
            ("t.zz", None, Err("Reference to undeclared resource")),
            (
                "t.a[count.index]",
                None,
                Err("Reference to \"count\" in non-counted context"),
            ),
            ("t.a[var.x]", None, Err("Invalid index expression")),
        ];
        for (text, count, want) in cases {
            let rep = Repetition {
                count_index: count.map(Value::int),
                ..Repetition::default()
            };
            let got = replace_triggered(&index, &[expr(text)], &root, &rep, &declared);
            match (got, want) {
                (Ok(g), Ok(w)) => assert_eq!(g, *w, "{text}"),
                (Err(d), Err(w)) => assert_eq!(d[0].summary, *w, "{text}"),
                (g, w) => panic!("{text}: got {g:?}, want {w:?}"),
            }
        }
    }
}
