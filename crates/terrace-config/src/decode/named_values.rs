//! `variable` (with its validations), `locals` and `output` blocks, and
//! the condition blocks they and resources share.

use super::*;

pub(super) fn decode_variable_block(block: &Block, is_override: bool) -> (Variable, Diagnostics) {
    let name = block.labels.first().cloned().unwrap_or_default();
    let label_range = block.label_ranges.first().cloned().unwrap_or_default();
    let mut v = Variable {
        name: name.clone(),
        description: None,
        default: None,
        ty: Type::Dynamic,
        constraint_type: Type::Dynamic,
        type_defaults: None,
        type_set: !is_override,
        parsing_mode: VariableParsingMode::Literal,
        validations: Vec::new(),
        sensitive: false,
        sensitive_set: false,
        ephemeral: false,
        ephemeral_set: false,
        nullable: true,
        nullable_set: false,
        is_const: false,
        const_set: false,
        deprecated: None,
        description_set: false,
        decl_range: block.def_range.clone(),
    };
    let (content, mut diags) = block.body.content(&VARIABLE_BLOCK_SCHEMA);
    if !valid_identifier(&name) {
        diags.push(error(
            "Invalid variable name",
            BAD_IDENTIFIER_DETAIL,
            &label_range,
        ));
    }
    let reserved = MODULE_BLOCK_SCHEMA
        .attributes
        .iter()
        .map(|a| a.name.as_str())
        .chain(
            MODULE_BLOCK_SCHEMA
                .blocks
                .iter()
                .map(|b| b.block_type.as_str()),
        );
    for r in reserved {
        if r == name {
            diags.push(error(
                "Invalid variable name",
                format!("The variable name {} is reserved due to its special meaning inside module blocks.", quote(r)),
                &label_range,
            ));
        }
    }
    if let Some(attr) = content.attribute("description") {
        let (d, more) = decode_string(&attr.expr);
        diags.extend(more);
        v.description = d;
        v.description_set = true;
    }
    if let Some(attr) = content.attribute("type") {
        let (ty, defaults, mode, more) = decode_variable_type(&attr.expr);
        diags.extend(more);
        v.ty = ty.without_optional_attributes();
        v.constraint_type = ty;
        v.type_defaults = defaults;
        v.parsing_mode = mode;
        v.type_set = true;
    }
    if let Some(attr) = content.attribute("sensitive") {
        let (b, more) = decode_bool(&attr.expr);
        diags.extend(more);
        v.sensitive = b.unwrap_or(false);
        v.sensitive_set = true;
    }
    if let Some(attr) = content.attribute("deprecated") {
        let (text, more) = decode_string(&attr.expr);
        let failed = has_errors(&more);
        diags.extend(more);
        let text = text.unwrap_or_default();
        if !failed && text.trim().is_empty() {
            diags.push(error(
                "Invalid `deprecated` value",
                "The \"deprecated\" argument must not be empty, and should provide instructions on how to migrate away from usage of this deprecated variable.",
                &label_range,
            ));
        }
        v.deprecated = (!text.is_empty()).then_some(text);
    }
    if let Some(attr) = content.attribute("ephemeral") {
        let (b, more) = decode_bool(&attr.expr);
        diags.extend(more);
        v.ephemeral = b.unwrap_or(false);
        v.ephemeral_set = true;
    }
    if let Some(attr) = content.attribute("nullable") {
        let (b, more) = decode_bool(&attr.expr);
        diags.extend(more);
        v.nullable = b.unwrap_or(false);
        v.nullable_set = true;
    }
    if let Some(attr) = content.attribute("const") {
        let (b, more) = decode_bool(&attr.expr);
        diags.extend(more);
        v.is_const = b.unwrap_or(false);
        v.const_set = true;
    }
    if let Some(attr) = content.attribute("default") {
        let (mut value, more) = attr.expr.constant_value();
        diags.extend(more);
        if v.type_set {
            let given = match &v.type_defaults {
                Some(defaults) if !value.is_null() => apply_defaults(&value, defaults),
                _ => value.clone(),
            };
            match convert(&given, &v.constraint_type) {
                Ok(converted) => value = converted,
                Err(e) => {
                    diags.push(error(
                        "Invalid default value for variable",
                        format!("This default value is not compatible with the variable's type constraint: {e}."),
                        &attr.expr.range(),
                    ));
                    value = Value::dynamic();
                }
            }
            diags.extend(lint_variable_default(&attr.expr, &v.constraint_type));
        }
        if !v.nullable && value.is_null() {
            diags.push(error(
                "Invalid default value for variable",
                "A null default value is not valid when nullable=false.",
                &attr.expr.range(),
            ));
        }
        v.default = Some(value);
    }
    for b in &content.blocks {
        let (rule, more) = decode_variable_validation(&name, b, is_override);
        diags.extend(more);
        v.validations.push(rule);
    }
    (v, diags)
}

/// OpenTofu's `decodeVariableType`.
pub(super) fn decode_variable_type(
    expr: &Expression,
) -> (
    Type,
    Option<terrace_value::convert::TypeDefaults>,
    VariableParsingMode,
    Diagnostics,
) {
    use VariableParsingMode::{Hcl, Literal};
    if expr.is_native_quoted_string() {
        let (value, diags) = expr.constant_value();
        if has_errors(&diags) {
            return (Type::Dynamic, None, Hcl, diags);
        }
        let text = value.as_str().unwrap_or_default().to_string();
        let quoted = |detail: &str| {
            vec![error(
                "Invalid quoted type constraints",
                format!("Terraform 0.11 and earlier required type constraints to be given in quotes, but that form is now deprecated and will be removed in a future version of {PRODUCT}. {detail}"),
                &expr.range(),
            )]
        };
        return match text.as_str() {
            "string" => (Type::Dynamic, None, Literal, quoted("Remove the quotes around \"string\".")),
            "list" => (Type::Dynamic, None, Hcl, quoted("Remove the quotes around \"list\" and write list(string) instead to explicitly indicate that the list elements are strings.")),
            "map" => (Type::Dynamic, None, Hcl, quoted("Remove the quotes around \"map\" and write map(string) instead to explicitly indicate that the map elements are strings.")),
            _ => (Type::Dynamic, None, Hcl, vec![error(
                "Invalid legacy variable type hint",
                "To provide a full type expression, remove the surrounding quotes and give the type expression directly.",
                &expr.range(),
            )]),
        };
    }
    match expr.as_keyword().as_deref() {
        Some("list") => return (Type::list(Type::Dynamic), None, Hcl, Vec::new()),
        Some("map") => return (Type::map(Type::Dynamic), None, Hcl, Vec::new()),
        _ => {}
    }
    // JSON gives a type as a string holding native syntax.
    let native = match expr.json_value() {
        Some(v) => match terrace_syntax::json_string_as_expression(expr.file(), v) {
            Some((e, d)) if !has_errors(&d) => e,
            Some((_, d)) => return (Type::Dynamic, None, Hcl, d),
            None => expr.evaluable().0.clone(),
        },
        None => expr.evaluable().0.clone(),
    };
    let file = expr.file().clone();
    let eval_constant = |e: &Expr| Expression::native(&file, e.clone()).constant_value();
    let (ty, defaults, diags) = type_constraint_with_defaults(&native, &file, &eval_constant);
    if has_errors(&diags) {
        return (Type::Dynamic, None, Hcl, diags);
    }
    let mode = if ty.is_primitive() { Literal } else { Hcl };
    (ty, defaults, mode, diags)
}

/// OpenTofu's `lintVariableDefaultValue`: object attributes in a default
/// that the type constraint discards.
pub(super) fn lint_variable_default(expr: &Expression, ty: &Type) -> Diagnostics {
    let Some(native) = expr.native_expr() else {
        return Vec::new();
    };
    if ty.is_primitive() || ty.is_dynamic() {
        return Vec::new();
    }
    let mut out = Vec::new();
    lint_discarded_attrs(expr, native, ty, &mut Vec::new(), &mut out);
    out
}

pub(super) fn lint_discarded_attrs(
    root: &Expression,
    e: &Expr,
    ty: &Type,
    path: &mut Vec<String>,
    out: &mut Diagnostics,
) {
    let file = root.file();
    let key_name = |key: &ObjectKey| -> Option<(String, Span)> {
        match key {
            ObjectKey::Bare { name, span } => Some((name.clone(), *span)),
            ObjectKey::Expr(k) => {
                let (v, d) = Expression::native(file, k.clone()).constant_value();
                if has_errors(&d) || v.is_null() || !v.is_known() {
                    return None;
                }
                let v = convert(&v.unmark_deep().0, &Type::String).ok()?;
                v.as_str().map(|s| (s.to_string(), k.span))
            }
        }
    };
    match ty {
        Type::Object(obj) => {
            let ExprKind::Object(items) = &e.kind else {
                return;
            };
            for item in items {
                let Some((name, span)) = key_name(&item.key) else {
                    continue;
                };
                match obj.attributes.get(&name) {
                    None => {
                        let attrs: Vec<&str> = obj.attributes.keys().map(String::as_str).collect();
                        let suggestion =
                            terrace_lang::eval::suggest_name(&name, attrs.iter().copied())
                                .map(|s| {
                                    format!(" Did you mean to set attribute {} instead?", quote(s))
                                })
                                .unwrap_or_default();
                        let noun = if path.is_empty() {
                            "The object type for this variable".to_string()
                        } else {
                            format!("The object type for {}", path.concat())
                        };
                        out.push(
                            Diagnostic::warning(
                                "Object attribute is ignored",
                                format!("{noun} does not include an attribute named {}, so this definition is unused.{suggestion}", quote(&name)),
                            )
                            .with_subject(file.range(span))
                            .with_context(file.range(e.span)),
                        );
                    }
                    Some(attr_ty) => {
                        path.push(format!(".{name}"));
                        lint_discarded_attrs(root, &item.value, attr_ty, path, out);
                        path.pop();
                    }
                }
            }
        }
        Type::Map(elem) => match &e.kind {
            ExprKind::Object(items) => {
                for item in items {
                    let Some((name, _)) = key_name(&item.key) else {
                        continue;
                    };
                    path.push(format!("[{}]", quote(&name)));
                    lint_discarded_attrs(root, &item.value, elem, path, out);
                    path.pop();
                }
            }
            ExprKind::For(f) if f.key_expr.is_some() => {
                path.push("[(not yet known)]".into());
                lint_discarded_attrs(root, &f.value_expr, elem, path, out);
                path.pop();
            }
            _ => {}
        },
        Type::List(elem) | Type::Set(elem) => match &e.kind {
            ExprKind::Tuple(items) => {
                for (i, item) in items.iter().enumerate() {
                    path.push(format!("[{i}]"));
                    lint_discarded_attrs(root, item, elem, path, out);
                    path.pop();
                }
            }
            ExprKind::For(f) if f.key_expr.is_none() => {
                path.push("[(not yet known)]".into());
                lint_discarded_attrs(root, &f.value_expr, elem, path, out);
                path.pop();
            }
            _ => {}
        },
        Type::Tuple(elems) => {
            if let ExprKind::Tuple(items) = &e.kind {
                if items.len() == elems.len() {
                    for (i, (item, ety)) in items.iter().zip(elems.iter()).enumerate() {
                        path.push(format!("[{i}]"));
                        lint_discarded_attrs(root, item, ety, path, out);
                        path.pop();
                    }
                }
            }
        }
        _ => {}
    }
}

pub(super) fn decode_variable_validation(
    var_name: &str,
    block: &Block,
    is_override: bool,
) -> (CheckRule, Diagnostics) {
    let (rule, mut diags) = decode_check_rule_block(block, is_override);
    if let Some(condition) = &rule.condition {
        let good = refers_to_variable(condition, var_name);
        if !good {
            diags.push(error(
                "Invalid variable validation condition",
                format!("The condition for variable {} must refer to var.{var_name} in order to test incoming values.", quote(var_name)),
                &condition.range(),
            ));
        }
    }
    (rule, diags)
}

pub(super) fn refers_to_variable(expr: &Expression, name: &str) -> bool {
    expr.variables().iter().any(|t| {
        let (r, d) = terrace_lang::references::parse_ref(t, expr.file());
        !has_errors(&d)
            && matches!(r, Some(r) if r.subject == Subject::InputVariable(name.to_string()))
    })
}

/// OpenTofu's `decodeCheckRuleBlock`.
pub(super) fn decode_check_rule_block(
    block: &Block,
    is_override: bool,
) -> (CheckRule, Diagnostics) {
    let mut rule = CheckRule {
        condition: None,
        error_message: None,
        decl_range: block.def_range.clone(),
    };
    if is_override {
        return (
            rule,
            vec![error(
                format!("Can't override {} blocks", block.block_type),
                format!(
                    "Override files cannot override {} blocks.",
                    quote(&block.block_type)
                ),
                &block.def_range,
            )],
        );
    }
    let (content, mut diags) = block.body.content(&CHECK_RULE_SCHEMA);
    if let Some(attr) = content.attribute("condition") {
        if attr.expr.variables().is_empty() {
            diags.push(error(
                format!("Invalid {} expression", block.block_type),
                "The condition expression must refer to at least one object from elsewhere in the configuration, or else its result would not be checking anything.",
                &attr.expr.range(),
            ));
        }
        rule.condition = Some(attr.expr.clone());
    }
    if let Some(attr) = content.attribute("error_message") {
        rule.error_message = Some(attr.expr.clone());
    }
    (rule, diags)
}

/// OpenTofu's `CheckRule.validateSelfReferences`.
pub(super) fn validate_self_references(
    rule: &CheckRule,
    check_type: &str,
    addr: &Resource,
) -> Diagnostics {
    let mut diags = Vec::new();
    for expr in [&rule.condition, &rule.error_message].into_iter().flatten() {
        let (expr_plain, _) = expr.evaluable();
        let (refs, _) = references(expr_plain, expr.file());
        for r in refs {
            let resource = match &r.subject {
                Subject::Resource(res) | Subject::ResourceInstance { resource: res, .. } => res,
                _ => continue,
            };
            if resource.mode == addr.mode
                && resource.type_name == addr.type_name
                && resource.name == addr.name
            {
                diags.push(error(
                    format!("Invalid reference in {check_type}"),
                    format!(
                        "Configuration for {} may not refer to itself.",
                        addr.address()
                    ),
                    &expr.range(),
                ));
                break;
            }
        }
    }
    diags
}

pub(super) fn decode_locals_block(block: &Block) -> (Vec<Local>, Diagnostics) {
    let (attrs, mut diags) = block.body.just_attributes();
    let mut locals = Vec::with_capacity(attrs.len());
    for attr in attrs {
        if !valid_identifier(&attr.name) {
            diags.push(error(
                "Invalid local value name",
                BAD_IDENTIFIER_DETAIL,
                &attr.name_range,
            ));
        }
        locals.push(Local {
            name: attr.name.clone(),
            expr: attr.expr.clone(),
            decl_range: attr.range.clone(),
        });
    }
    (locals, diags)
}

pub(super) fn decode_output_block(block: &Block, is_override: bool) -> (Output, Diagnostics) {
    let name = block.labels.first().cloned().unwrap_or_default();
    let mut o = Output {
        name: name.clone(),
        description: None,
        description_set: false,
        expr: None,
        depends_on: Vec::new(),
        sensitive: false,
        sensitive_set: false,
        ephemeral: false,
        ephemeral_set: false,
        deprecated: None,
        preconditions: Vec::new(),
        decl_range: block.def_range.clone(),
    };
    let schema = if is_override {
        OUTPUT_BLOCK_SCHEMA.for_overrides()
    } else {
        OUTPUT_BLOCK_SCHEMA.clone()
    };
    let (content, mut diags) = block.body.content(&schema);
    if !valid_identifier(&name) {
        diags.push(error(
            "Invalid output name",
            BAD_IDENTIFIER_DETAIL,
            &block.label_ranges.first().cloned().unwrap_or_default(),
        ));
    }
    if let Some(attr) = content.attribute("description") {
        let (d, more) = decode_string(&attr.expr);
        diags.extend(more);
        o.description = d;
        o.description_set = true;
    }
    if let Some(attr) = content.attribute("value") {
        o.expr = Some(attr.expr.clone());
    }
    if let Some(attr) = content.attribute("sensitive") {
        let (b, more) = decode_bool(&attr.expr);
        diags.extend(more);
        o.sensitive = b.unwrap_or(false);
        o.sensitive_set = true;
    }
    if let Some(attr) = content.attribute("deprecated") {
        let (text, more) = decode_string(&attr.expr);
        diags.extend(more);
        let text = text.unwrap_or_default();
        if !has_errors(&diags) && text.trim().is_empty() {
            diags.push(error(
                "Invalid `deprecated` attribute",
                "The \"deprecated\" argument must not be empty, and should provide instructions on how to migrate away from usage of this deprecated output value.",
                &attr.expr.range(),
            ));
        }
        o.deprecated = (!text.is_empty()).then_some(text);
    }
    if let Some(attr) = content.attribute("ephemeral") {
        let (b, more) = decode_bool(&attr.expr);
        diags.extend(more);
        o.ephemeral = b.unwrap_or(false);
        o.ephemeral_set = true;
    }
    if let Some(attr) = content.attribute("depends_on") {
        let (deps, more) = decode_depends_on(attr);
        diags.extend(more);
        o.depends_on.extend(deps);
    }
    for b in &content.blocks {
        match b.block_type.as_str() {
            "precondition" => {
                let (rule, more) = decode_check_rule_block(b, is_override);
                diags.extend(more);
                o.preconditions.push(rule);
            }
            _ => diags.push(error(
                "Postconditions are not allowed",
                "Output values can only have preconditions, not postconditions.",
                &b.type_range,
            )),
        }
    }
    (o, diags)
}

/// OpenTofu's `decodeDependsOn`.
pub(super) fn decode_depends_on(attr: &Attribute) -> (Vec<StaticTraversal>, Diagnostics) {
    let mut out = Vec::new();
    let (exprs, mut diags) = match attr.expr.list() {
        Ok(e) => (e, Vec::new()),
        Err(d) => (Vec::new(), d),
    };
    for e in exprs {
        let (e, shim) = e.shim_traversal_in_string(false);
        diags.extend(shim);
        match e.abs_traversal() {
            Ok(t) => out.push(StaticTraversal {
                traversal: t,
                file: e.file().clone(),
            }),
            Err(d) => diags.extend(d),
        }
    }
    (out, diags)
}
