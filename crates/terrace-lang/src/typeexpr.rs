//! Type constraint expressions (`string`, `list(number)`,
//! `object({a = optional(bool, true)})`, `any`) decoded into a `Type` and
//! the defaults of optional attributes, with HCL `typeexpr`'s diagnostics.
//! Used for variable `type` arguments and provider-defined schemas alike.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use terrace_syntax::ast::{Expr, ExprKind, ObjectKey, SourceFile};
use terrace_syntax::{Diagnostic, Diagnostics, Span};
use terrace_value::convert::{convert, TypeDefaults};
use terrace_value::{Type, Value};

const INVALID_TYPE: &str = "Invalid type specification";

/// Evaluates a default value expression in a context with no variables or
/// functions (HCL evaluates `optional(type, default)` defaults with a nil
/// context).
pub type ConstantEvaluator<'a> = &'a dyn Fn(&Expr) -> (Value, Diagnostics);

/// Decodes a type constraint (`any` allowed, `optional(...)` allowed with
/// defaults), as `typeexpr.TypeConstraintWithDefaults`.
pub fn type_constraint_with_defaults(
    expr: &Expr,
    source: &Arc<SourceFile>,
    eval_constant: ConstantEvaluator<'_>,
) -> (Type, Option<TypeDefaults>, Diagnostics) {
    let decoder = TypeDecoder {
        source,
        constraint: true,
        with_defaults: true,
        eval_constant,
    };
    decoder.get_type(expr)
}

/// Decodes an exact type (no `any`, no `optional`), as `typeexpr.Type`.
pub fn exact_type(expr: &Expr, source: &Arc<SourceFile>) -> (Type, Diagnostics) {
    let no_eval = |_: &Expr| (Value::dynamic(), Vec::new());
    let decoder = TypeDecoder {
        source,
        constraint: false,
        with_defaults: false,
        eval_constant: &no_eval,
    };
    let (ty, _, diags) = decoder.get_type(expr);
    (ty, diags)
}

struct TypeDecoder<'a> {
    source: &'a Arc<SourceFile>,
    constraint: bool,
    with_defaults: bool,
    eval_constant: ConstantEvaluator<'a>,
}

/// A function call viewed as HCL's `hcl.ExprCall` sees it.
struct StaticCall<'e> {
    name: &'e str,
    name_span: Span,
    args: &'e [Expr],
    args_span: Span,
}

fn as_keyword(expr: &Expr) -> Option<&str> {
    match &expr.kind {
        ExprKind::ScopeTraversal(t) if t.steps.is_empty() => Some(&t.root),
        _ => None,
    }
}

fn as_call(expr: &Expr) -> Option<StaticCall<'_>> {
    match &expr.kind {
        ExprKind::FunctionCall {
            name,
            name_span,
            args,
            expand_final: false,
        } => Some(StaticCall {
            name,
            name_span: *name_span,
            args,
            args_span: Span {
                start: name_span.end,
                end: expr.span.end,
            },
        }),
        _ => None,
    }
}

impl TypeDecoder<'_> {
    fn error(&self, detail: impl Into<String>, subject: Span, context: Option<Span>) -> Diagnostic {
        let mut diag =
            Diagnostic::error(INVALID_TYPE, detail).with_subject(self.source.range(subject));
        if let Some(context) = context {
            diag = diag.with_context(self.source.range(context));
        }
        diag
    }

    fn fail(
        &self,
        detail: impl Into<String>,
        subject: Span,
        context: Option<Span>,
    ) -> (Type, Option<TypeDefaults>, Diagnostics) {
        (
            Type::Dynamic,
            None,
            vec![self.error(detail, subject, context)],
        )
    }

    fn get_type(&self, expr: &Expr) -> (Type, Option<TypeDefaults>, Diagnostics) {
        if let Some(keyword) = as_keyword(expr) {
            return match keyword {
                "bool" => (Type::Bool, None, Vec::new()),
                "string" => (Type::String, None, Vec::new()),
                "number" => (Type::Number, None, Vec::new()),
                "any" if self.constraint => (Type::Dynamic, None, Vec::new()),
                "any" => self.fail(
                    format!("The keyword \"{keyword}\" cannot be used in this type specification: an exact type is required."),
                    expr.span,
                    None,
                ),
                "list" | "map" | "set" => self.fail(
                    format!("The {keyword} type constructor requires one argument specifying the element type."),
                    expr.span,
                    None,
                ),
                "object" => self.fail(
                    "The object type constructor requires one argument specifying the attribute types and values as a map.",
                    expr.span,
                    None,
                ),
                "tuple" => self.fail(
                    "The tuple type constructor requires one argument specifying the element types as a list.",
                    expr.span,
                    None,
                ),
                other => self.fail(format!("The keyword \"{other}\" is not a valid type specification."), expr.span, None),
            };
        }

        let Some(call) = as_call(expr) else {
            return self.fail(
                "A type specification is either a primitive type keyword (bool, number, string) or a complex type constructor call, like list(string).",
                expr.span,
                None,
            );
        };

        match call.name {
            "bool" | "string" | "number" => {
                return self.fail(
                    format!(
                        "Primitive type keyword \"{}\" does not expect arguments.",
                        call.name
                    ),
                    call.args_span,
                    None,
                )
            }
            "any" => {
                return self.fail(
                    format!(
                        "Type constraint keyword \"{}\" does not expect arguments.",
                        call.name
                    ),
                    call.args_span,
                    None,
                )
            }
            _ => {}
        }

        if call.args.len() != 1 {
            let subject = if call.args.len() > 1 {
                call.args[1].span.to(call.args[call.args.len() - 1].span)
            } else {
                call.args_span
            };
            let detail = match call.name {
                "list" | "set" | "map" => {
                    Some(format!("The {} type constructor requires one argument specifying the element type.", call.name))
                }
                "object" => Some(
                    "The object type constructor requires one argument specifying the attribute types and values as a map."
                        .to_string(),
                ),
                "tuple" => Some(
                    "The tuple type constructor requires one argument specifying the element types as a list.".to_string(),
                ),
                _ => None,
            };
            if let Some(detail) = detail {
                return self.fail(detail, subject, Some(call.args_span));
            }
        }

        match call.name {
            "list" | "set" | "map" => {
                let (element, element_defaults, diags) = self.get_type(&call.args[0]);
                let ty = match call.name {
                    "list" => Type::list(element),
                    "set" => Type::set(element),
                    _ => Type::map(element),
                };
                let defaults = element_defaults.map(|child| {
                    let mut d = TypeDefaults::new(ty.clone());
                    d.children.insert(String::new(), child);
                    d
                });
                (ty, defaults, diags)
            }
            "object" => self.object_type(expr, &call),
            "tuple" => {
                let ExprKind::Tuple(elements) = &call.args[0].kind else {
                    return self.fail(
                        "Tuple type constructor requires a list of element types.",
                        call.args[0].span,
                        Some(expr.span),
                    );
                };
                let mut diags = Vec::new();
                let mut types = Vec::with_capacity(elements.len());
                let mut children = BTreeMap::new();
                for (i, element) in elements.iter().enumerate() {
                    let (ty, defaults, element_diags) = self.get_type(element);
                    diags.extend(element_diags);
                    types.push(ty);
                    if let Some(defaults) = defaults {
                        children.insert(i.to_string(), defaults);
                    }
                }
                let ty = Type::tuple(types);
                let defaults = structured_defaults(&ty, BTreeMap::new(), children);
                (ty, defaults, diags)
            }
            "optional" => (
                Type::Dynamic,
                None,
                vec![self.error(
                    format!(
                        "Keyword \"{}\" is valid only as a modifier for object type attributes.",
                        call.name
                    ),
                    call.name_span,
                    None,
                )],
            ),
            other => self.fail(
                format!("Keyword \"{other}\" is not a valid type constructor."),
                expr.span,
                None,
            ),
        }
    }

    fn object_type(
        &self,
        expr: &Expr,
        call: &StaticCall<'_>,
    ) -> (Type, Option<TypeDefaults>, Diagnostics) {
        let ExprKind::Object(items) = &call.args[0].kind else {
            return self.fail(
                "Object type constructor requires a map whose keys are attribute names and whose values are the corresponding attribute types.",
                call.args[0].span,
                Some(expr.span),
            );
        };
        let mut diags = Vec::new();
        let mut attributes = BTreeMap::new();
        let mut optional = BTreeSet::new();
        let mut default_values = BTreeMap::new();
        let mut children = BTreeMap::new();
        for item in items {
            let (name, key_span) = match &item.key {
                ObjectKey::Bare { name, span } => (Some(name.as_str()), *span),
                ObjectKey::Expr(key) => (as_keyword(key), key.span),
            };
            let Some(name) = name else {
                diags.push(self.error(
                    "Object constructor map keys must be attribute names.",
                    key_span,
                    Some(expr.span),
                ));
                continue;
            };
            if attributes.contains_key(name) {
                diags.push(self.error(
                    "Object constructor map keys must be unique.",
                    key_span,
                    Some(expr.span),
                ));
                continue;
            }

            let mut type_expr = &item.value;
            let mut default: Option<(Value, Span)> = None;
            if let Some(modifier) = as_call(&item.value).filter(|c| c.name == "optional") {
                if modifier.args.is_empty() {
                    diags.push(self.error(
                        "Optional attribute modifier requires the attribute type as its argument.",
                        modifier.args_span,
                        Some(item.value.span),
                    ));
                    continue;
                }
                if !self.constraint {
                    diags.push(self.error(
                        "Optional attribute modifier is only for type constraints, not for exact types.",
                        modifier.name_span,
                        Some(item.value.span),
                    ));
                } else if self.with_defaults {
                    match modifier.args.len() {
                        1 => {
                            optional.insert(name.to_string());
                        }
                        2 => {
                            let (value, value_diags) = (self.eval_constant)(&modifier.args[1]);
                            let failed = terrace_syntax::diagnostic::has_errors(&value_diags);
                            diags.extend(value_diags);
                            if !failed {
                                optional.insert(name.to_string());
                                default = Some((value, modifier.args[1].span));
                            }
                        }
                        _ => diags.push(self.error(
                            "Optional attribute modifier expects at most two arguments: the attribute type, and a default value.",
                            modifier.args_span,
                            Some(item.value.span),
                        )),
                    }
                } else if modifier.args.len() == 1 {
                    optional.insert(name.to_string());
                } else {
                    diags.push(self.error(
                        "Optional attribute modifier expects only one argument: the attribute type.",
                        modifier.args_span,
                        Some(item.value.span),
                    ));
                }
                type_expr = &modifier.args[0];
            }

            let (attribute_type, attribute_defaults, attribute_diags) = self.get_type(type_expr);
            diags.extend(attribute_diags);
            if let Some((value, span)) = default {
                match convert(&value, &attribute_type) {
                    Ok(converted) => {
                        default_values.insert(name.to_string(), converted);
                    }
                    Err(err) => diags.push(
                        Diagnostic::error(
                            "Invalid default value for optional attribute",
                            format!("This default value is not compatible with the attribute's type constraint: {err}."),
                        )
                        .with_subject(self.source.range(span)),
                    ),
                }
            }
            if let Some(child) = attribute_defaults {
                children.insert(name.to_string(), child);
            }
            attributes.insert(name.to_string(), attribute_type);
        }
        let ty = Type::object_with_optional(attributes, optional);
        let defaults = structured_defaults(&ty, default_values, children);
        (ty, defaults, diags)
    }
}

fn structured_defaults(
    ty: &Type,
    defaults: BTreeMap<String, Value>,
    children: BTreeMap<String, TypeDefaults>,
) -> Option<TypeDefaults> {
    if defaults.is_empty() && children.is_empty() {
        return None;
    }
    Some(TypeDefaults {
        ty: ty.clone(),
        defaults,
        children,
    })
}
