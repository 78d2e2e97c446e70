//! Object constructors, `for` expressions, splats and conditionals: the
//! expression forms that build or choose between structured values.

use super::Evaluator;
use crate::references::keyword_key;
use std::collections::BTreeMap;
use terrace_syntax::ast::{Expr, ExprKind, ForExpr, ObjectItem, ObjectKey, TemplatePart};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::{Diagnostics, Span};
use terrace_value::convert::{convert, unify};
use terrace_value::gostr;
use terrace_value::{Marks, Type, Value};

/// What a `for` expression produces for each element: an expression, or
/// (for a `%{for}` template directive) a sub-template.
pub(crate) enum ForValue<'a> {
    Expr(&'a Expr),
    Template(&'a [TemplatePart], Span),
}

pub(crate) struct ForSpec<'a> {
    pub key_var: Option<&'a str>,
    pub value_var: &'a str,
    pub collection: &'a Expr,
    pub key_expr: Option<&'a Expr>,
    pub value: ForValue<'a>,
    pub condition: Option<&'a Expr>,
    pub group: bool,
    pub span: Span,
}

/// One branch of a conditional, already evaluated: its value, the
/// diagnostics it produced and its source range.
pub(crate) type Branch = (Value, Diagnostics, Span);

impl<'a> Evaluator<'a> {
    // ----- object constructor -----

    pub(crate) fn eval_object(&mut self, items: &'a [ObjectItem]) -> Value {
        let mut values = BTreeMap::new();
        let mut marks = Marks::NONE;
        let mut known = true;
        for item in items {
            let (key, key_failed, key_span) = match &item.key {
                ObjectKey::Bare { name, span } => (Value::string(name), false, *span),
                ObjectKey::Expr(k) => match (&k.kind, keyword_key(k)) {
                    (ExprKind::ScopeTraversal(t), _) if !t.steps.is_empty() => {
                        self.push_error(
                            "Ambiguous attribute key",
                            "If this expression is intended to be a reference, wrap it in parentheses. If it's instead intended as a literal name containing periods, wrap it in quotes to create a string literal.",
                            k.span,
                            None,
                        );
                        (Value::dynamic(), true, k.span)
                    }
                    (_, Some(name)) => (Value::string(name), false, k.span),
                    _ => {
                        let before = self.diags.len();
                        let v = self.eval(k);
                        let failed = has_errors(&self.diags[before..]);
                        (v, failed, k.span)
                    }
                },
            };
            let value = self.eval(&item.value);
            if key_failed {
                known = false;
                continue;
            }
            if key.is_null() {
                self.push_error(
                    "Null value as key",
                    "Can't use a null value as a key.",
                    item.value.span,
                    None,
                );
                known = false;
                continue;
            }
            let (key, key_marks) = key.unmark();
            marks = marks.union(key_marks);
            let key = match convert(&key, &Type::String) {
                Ok(k) => k,
                Err(e) => {
                    self.push_error(
                        "Incorrect key type",
                        format!("Can't use this value as a key: {}.", e.message),
                        key_span,
                        None,
                    );
                    known = false;
                    continue;
                }
            };
            let Some(name) = key.as_str() else {
                known = false;
                continue;
            };
            values.insert(name.to_string(), value);
        }
        if !known {
            return Value::dynamic();
        }
        Value::object(values).mark(marks)
    }

    // ----- for expressions -----

    pub(crate) fn eval_for(&mut self, f: &'a ForExpr, span: Span) -> Value {
        let spec = ForSpec {
            key_var: f.key_var.as_deref(),
            value_var: &f.value_var,
            collection: &f.collection,
            key_expr: f.key_expr.as_ref(),
            value: ForValue::Expr(&f.value_expr),
            condition: f.condition.as_ref(),
            group: f.group,
            span,
        };
        self.eval_for_spec(&spec)
    }

    fn bind(&mut self, spec: &ForSpec<'a>, key: Value, value: Value) -> usize {
        let mut n = 0;
        if let Some(k) = spec.key_var {
            self.push_local(k, key);
            n += 1;
        }
        self.push_local(spec.value_var, value);
        n + 1
    }

    fn eval_for_value(&mut self, value: &ForValue<'a>) -> Value {
        match value {
            ForValue::Expr(e) => self.eval(e),
            ForValue::Template(parts, span) => self.eval_template(parts, *span),
        }
    }

    /// HCL's `ForExpr.Value`.
    pub(crate) fn eval_for_spec(&mut self, spec: &ForSpec<'a>) -> Value {
        let span = spec.span;
        let coll_span = spec.collection.span;
        let coll = self.eval(spec.collection);
        if coll.is_null() {
            self.push_error(
                "Iteration over null value",
                "A null value cannot be used as the collection in a 'for' expression.",
                coll_span,
                Some(span),
            );
            return Value::dynamic();
        }
        if coll.ty().is_dynamic() {
            return Value::dynamic();
        }
        let (coll, mut marks) = coll.unmark();
        if !can_iterate(coll.ty()) {
            self.push_error(
                "Iteration over non-iterable value",
                format!(
                    "A value of type {} cannot be used as the collection in a 'for' expression.",
                    coll.ty().friendly_name()
                ),
                coll_span,
                Some(span),
            );
            return Value::dynamic();
        }

        let mut cond_marks = Marks::NONE;
        if let Some(cond) = spec.condition {
            let n = self.bind(spec, Value::dynamic(), Value::dynamic());
            let before = self.diags.len();
            let result = self.eval(cond);
            self.pop_locals(n);
            let cond_failed = has_errors(&self.diags[before..]);
            if result.is_null() {
                self.push_error(
                    "Condition is null",
                    "The value of the 'if' clause must not be null.",
                    cond.span,
                    Some(span),
                );
                return Value::dynamic();
            }
            cond_marks = result.marks();
            if let Err(e) = convert(&result, &Type::Bool) {
                self.push_error(
                    "Invalid 'for' condition",
                    format!("The 'if' clause value is invalid: {}.", e.message),
                    cond.span,
                    Some(span),
                );
                return Value::dynamic();
            }
            if cond_failed {
                return Value::dynamic();
            }
        }

        if !coll.is_known() {
            return Value::dynamic().mark(marks.union(cond_marks));
        }

        let elements = iterate(&coll);
        let mut known = true;
        if let Some(key_expr) = spec.key_expr {
            let mut values: BTreeMap<String, Value> = BTreeMap::new();
            let mut groups: BTreeMap<String, Vec<Value>> = BTreeMap::new();
            for (k, v) in elements {
                let n = self.bind(spec, k, v);
                let outcome = self.for_object_item(
                    spec,
                    key_expr,
                    &mut known,
                    &mut marks,
                    &mut values,
                    &mut groups,
                );
                self.pop_locals(n);
                let _ = outcome;
            }
            if !known {
                return Value::dynamic().mark(marks);
            }
            if spec.group {
                values = groups
                    .into_iter()
                    .map(|(k, vs)| (k, Value::tuple(vs)))
                    .collect();
            }
            Value::object(values).mark(marks)
        } else {
            let mut values = Vec::new();
            for (k, v) in elements {
                let n = self.bind(spec, k, v);
                if let Some(value) = self.for_tuple_item(spec, &mut known, &mut marks) {
                    values.push(value);
                }
                self.pop_locals(n);
            }
            if !known {
                return Value::dynamic().mark(marks);
            }
            Value::tuple(values).mark(marks)
        }
    }

    /// The `if` clause for one element of an object-producing `for`:
    /// `Some(true)` to include it, `Some(false)` to skip it, `None` when the
    /// result cannot be known.
    fn for_include_object(
        &mut self,
        spec: &ForSpec<'a>,
        known: &mut bool,
        marks: &mut Marks,
    ) -> Option<bool> {
        let Some(cond) = spec.condition else {
            return Some(true);
        };
        let raw = self.eval(cond);
        if raw.is_null() {
            if *known {
                self.push_error(
                    "Invalid 'for' condition",
                    "The value of the 'if' clause must not be null.",
                    cond.span,
                    Some(spec.span),
                );
            }
            return None;
        }
        *marks = marks.union(raw.marks());
        let include = match convert(&raw, &Type::Bool) {
            Ok(b) => b,
            Err(e) => {
                if *known {
                    self.push_error(
                        "Invalid 'for' condition",
                        format!("The 'if' clause value is invalid: {}.", e.message),
                        cond.span,
                        Some(spec.span),
                    );
                }
                return None;
            }
        };
        if !include.is_known() {
            return None;
        }
        Some(include.as_bool() == Some(true))
    }

    fn for_object_item(
        &mut self,
        spec: &ForSpec<'a>,
        key_expr: &'a Expr,
        known: &mut bool,
        marks: &mut Marks,
        values: &mut BTreeMap<String, Value>,
        groups: &mut BTreeMap<String, Vec<Value>>,
    ) -> Option<()> {
        match self.for_include_object(spec, known, marks) {
            None => {
                *known = false;
                return None;
            }
            Some(false) => return None,
            Some(true) => {}
        }
        let raw = self.eval(key_expr);
        if raw.is_null() {
            if *known {
                self.push_error(
                    "Invalid object key",
                    "Key expression in 'for' expression must not produce a null value.",
                    key_expr.span,
                    Some(spec.span),
                );
            }
            *known = false;
            return None;
        }
        *marks = marks.union(raw.marks());
        if !raw.is_known() {
            *known = false;
            return None;
        }
        let key = match convert(&raw, &Type::String) {
            Ok(k) => k,
            Err(e) => {
                if *known {
                    self.push_error(
                        "Invalid object key",
                        format!(
                            "The key expression produced an invalid result: {}.",
                            e.message
                        ),
                        key_expr.span,
                        Some(spec.span),
                    );
                }
                *known = false;
                return None;
            }
        };
        let key = key.unmark().0.as_str().unwrap_or_default().to_string();
        let value = self.eval_for_value(&spec.value);
        if spec.group {
            groups.entry(key).or_default().push(value);
            return Some(());
        }
        match values.entry(key) {
            std::collections::btree_map::Entry::Occupied(e) => {
                let detail = format!(
                    "Two different items produced the key {} in this 'for' expression. If duplicates are expected, use the ellipsis (...) after the value expression to enable grouping by key.",
                    gostr::quote(e.key())
                );
                self.push_error(
                    "Duplicate object key",
                    detail,
                    key_expr.span,
                    Some(spec.span),
                );
            }
            std::collections::btree_map::Entry::Vacant(e) => {
                e.insert(value);
            }
        }
        Some(())
    }

    fn for_tuple_item(
        &mut self,
        spec: &ForSpec<'a>,
        known: &mut bool,
        marks: &mut Marks,
    ) -> Option<Value> {
        if let Some(cond) = spec.condition {
            let raw = self.eval(cond);
            if raw.is_null() {
                if *known {
                    self.push_error(
                        "Invalid 'for' condition",
                        "The value of the 'if' clause must not be null.",
                        cond.span,
                        Some(spec.span),
                    );
                }
                *known = false;
                return None;
            }
            *marks = marks.union(raw.marks());
            if !raw.is_known() {
                *known = false;
                return None;
            }
            match convert(&raw, &Type::Bool) {
                Ok(b) => {
                    if b.as_bool() != Some(true) {
                        return None;
                    }
                }
                Err(e) => {
                    if *known {
                        self.push_error(
                            "Invalid 'for' condition",
                            format!("The 'if' clause value is invalid: {}.", e.message),
                            cond.span,
                            Some(spec.span),
                        );
                    }
                    *known = false;
                    return None;
                }
            }
        }
        Some(self.eval_for_value(&spec.value))
    }

    // ----- splat -----

    /// HCL's `SplatExpr.Value`.
    pub(crate) fn eval_splat(&mut self, expr: &'a Expr, source: &'a Expr, each: &'a Expr) -> Value {
        let before = self.diags.len();
        let source_val = self.eval(source);
        if has_errors(&self.diags[before..]) {
            return Value::dynamic();
        }
        let is_sequence = |t: &Type| t.is_tuple() || t.is_list() || t.is_set();
        let auto_upgrade = !is_sequence(source_val.ty());
        if source_val.is_null() {
            if auto_upgrade {
                return Value::empty_tuple().mark(source_val.marks());
            }
            let marker = self.splat_marker_span(source.span, expr.span);
            self.push_error(
                "Splat of null value",
                "Splat expressions (with the * symbol) cannot be applied to null sequences.",
                source.span,
                Some(source.span.to(marker)),
            );
            return Value::dynamic();
        }
        if source_val.ty().is_dynamic() {
            return Value::dynamic().mark(source_val.marks());
        }
        let mut upgraded_unknown = false;
        let source_val = if auto_upgrade {
            if !source_val.is_known() && source_val.range().could_be_null() {
                upgraded_unknown = true;
            }
            let m = source_val.marks();
            Value::tuple(vec![source_val]).mark(m)
        } else {
            source_val
        };
        let source_ty = source_val.ty().clone();

        if !source_val.is_known() {
            let (ty, diags) = self.splat_result_type(&source_ty, each);
            self.diags.extend(diags);
            let mut ret = Value::unknown(ty.clone());
            if !ty.is_dynamic() {
                ret = ret.refine_not_null();
            }
            if ty.is_list() && source_ty.is_collection() {
                let range = source_val.range();
                ret = ret
                    .refine()
                    .collection_length_lower_bound(range.length_lower_bound())
                    .collection_length_upper_bound(range.length_upper_bound())
                    .new_value();
            }
            return ret.mark(source_val.marks());
        }

        let (source_val, marks) = source_val.unmark();
        let items = source_val.as_elements().unwrap_or_default();
        let mut values = Vec::with_capacity(items.len());
        let mut is_known = true;
        for item in items {
            self.push_anon(item.clone());
            let before = self.diags.len();
            let v = self.eval(each);
            if has_errors(&self.diags[before..]) {
                is_known = false;
            }
            self.pop_anon();
            values.push(v);
        }
        if upgraded_unknown {
            return Value::dynamic().mark(marks);
        }
        if !is_known {
            let (ty, _) = self.splat_result_type(&source_ty, each);
            return Value::unknown(ty).mark(marks);
        }
        if source_ty.is_list() || source_ty.is_set() {
            if values.is_empty() {
                let (ty, diags) = self.splat_result_type(&source_ty, each);
                self.diags.extend(diags);
                let element = ty.element_type().cloned().unwrap_or(Type::Dynamic);
                return Value::list(element, Vec::new()).mark(marks);
            }
            return match homogeneous_list(values) {
                Some(list) => list.mark(marks),
                None => {
                    self.push_error(
                        "Invalid nested splat expressions",
                        "The second level of splat expression produced elements of different types, so it isn't possible to construct a valid list to represent the top-level result.\n\nConsider using a for expression instead, to produce a tuple-typed result which can therefore have non-homogenous element types.",
                        each.span,
                        Some(expr.span),
                    );
                    Value::dynamic()
                }
            };
        }
        Value::tuple(values).mark(marks)
    }

    /// The type a splat would produce, found by evaluating `each` over an
    /// unknown element of each element type.
    fn splat_result_type(&mut self, source_ty: &Type, each: &'a Expr) -> (Type, Diagnostics) {
        let mut diags = Diagnostics::new();
        let mut one = |ev: &mut Evaluator<'a>, ety: &Type| {
            ev.push_anon(Value::unknown(ety.clone()));
            let (v, d) = ev.eval_isolated(each);
            ev.pop_anon();
            diags.extend(d);
            v.ty().clone()
        };
        let ty = match source_ty {
            Type::List(e) | Type::Set(e) => Type::list(one(self, e)),
            Type::Tuple(ts) => Type::tuple(ts.iter().map(|t| one(self, t)).collect()),
            _ => Type::Dynamic,
        };
        (ty, diags)
    }

    // ----- conditionals -----

    pub(crate) fn eval_conditional(
        &mut self,
        span: Span,
        condition: &'a Expr,
        true_result: &'a Expr,
        false_result: &'a Expr,
    ) -> Value {
        let (t, t_diags) = self.eval_isolated(true_result);
        let (f, f_diags) = self.eval_isolated(false_result);
        self.conditional_result(
            span,
            condition,
            (t, t_diags, true_result.span),
            (f, f_diags, false_result.span),
        )
    }

    /// HCL's `ConditionalExpr.Value` once both results are evaluated (HCL
    /// evaluates both before the condition, and keeps only the chosen
    /// result's diagnostics).
    pub(crate) fn conditional_result(
        &mut self,
        span: Span,
        condition: &'a Expr,
        t: Branch,
        f: Branch,
    ) -> Value {
        let (t_val, t_diags, t_span) = t;
        let (f_val, f_diags, f_span) = f;
        let is_dynamic_null = |v: &Value| v.is_null() && v.ty().is_dynamic() && !v.is_marked();
        let result_type = if is_dynamic_null(&t_val) {
            Some(f_val.ty().clone())
        } else if is_dynamic_null(&f_val) {
            Some(t_val.ty().clone())
        } else if t_val.ty().is_dynamic() || f_val.ty().is_dynamic() {
            Some(Type::Dynamic)
        } else {
            unify(&[t_val.ty().clone(), f_val.ty().clone()], true)
        };
        let Some(result_type) = result_type else {
            // HCL reports only this, dropping every other diagnostic.
            self.push_error(
                "Inconsistent conditional result types",
                format!(
                    "The true and false result expressions must have consistent types. {}.",
                    describe_type_mismatch(t_val.ty(), f_val.ty())
                ),
                t_span.to(f_span),
                Some(span),
            );
            return Value::dynamic();
        };

        let cond = self.eval(condition);
        if cond.is_null() {
            self.push_error(
                "Null condition",
                "The condition value is null. Conditions must either be true or false.",
                condition.span,
                Some(span),
            );
            return Value::unknown(result_type);
        }
        let (cond, cond_marks) = cond.unmark();
        let (t_val, t_marks) = t_val.unmark();
        let (f_val, f_marks) = f_val.unmark();
        let marks = cond_marks.union(t_marks).union(f_marks);

        if !cond.is_known() {
            return unknown_conditional(&t_val, &f_val, result_type).mark(marks);
        }
        let cond = match convert(&cond, &Type::Bool) {
            Ok(c) => c,
            Err(_) => {
                self.push_error(
                    "Incorrect condition type",
                    "The condition expression must be of type bool.",
                    condition.span,
                    Some(span),
                );
                return Value::unknown(result_type);
            }
        };
        let (chosen, diags, chosen_span, which) = if cond.as_bool() == Some(true) {
            (t_val, t_diags, t_span, "true")
        } else {
            (f_val, f_diags, f_span, "false")
        };
        self.diags.extend(diags);
        let chosen = if !result_type.is_dynamic() && chosen.ty() != &result_type {
            match convert(&chosen, &result_type) {
                Ok(v) => v,
                Err(e) => {
                    self.push_error(
                        "Inconsistent conditional result types",
                        format!(
                            "The {which} result value has the wrong type: {}.",
                            e.message
                        ),
                        chosen_span,
                        Some(span),
                    );
                    Value::unknown(result_type)
                }
            }
        } else {
            chosen
        };
        chosen.mark(marks)
    }
}

/// The unknown result of a conditional whose condition is unknown, refined
/// with what both possible results have in common.
fn unknown_conditional(t: &Value, f: &Value, result_type: Type) -> Value {
    let t_range = t.range();
    let f_range = f.range();
    if t.is_null() && f.is_null() {
        return Value::null(result_type);
    }
    let both_not_null = t_range.definitely_not_null() && f_range.definitely_not_null();
    if t.ty() == &Type::Number && f.ty() == &Type::Number {
        let mut b = Value::unknown(Type::Number).refine();
        if both_not_null {
            b = b.not_null();
        }
        let (f_lo, f_lo_inc) = f_range.number_lower_bound();
        let (f_hi, f_hi_inc) = f_range.number_upper_bound();
        let (t_lo, t_lo_inc) = t_range.number_lower_bound();
        let (t_hi, t_hi_inc) = t_range.number_upper_bound();
        if let (Some(fl), Some(tl)) = (f_lo.as_number(), t_lo.as_number()) {
            let (lo, inc) = match tl.cmp(fl) {
                std::cmp::Ordering::Less => (&t_lo, t_lo_inc),
                std::cmp::Ordering::Equal => (&f_lo, t_lo_inc || f_lo_inc),
                std::cmp::Ordering::Greater => (&f_lo, f_lo_inc),
            };
            b = b.number_range_lower_bound(lo, inc);
        }
        if let (Some(fh), Some(th)) = (f_hi.as_number(), t_hi.as_number()) {
            let (hi, inc) = match th.cmp(fh) {
                std::cmp::Ordering::Greater => (&t_hi, t_hi_inc),
                std::cmp::Ordering::Equal => (&f_hi, t_hi_inc || f_hi_inc),
                std::cmp::Ordering::Less => (&f_hi, f_hi_inc),
            };
            b = b.number_range_upper_bound(hi, inc);
        }
        return b.new_value();
    }
    if t.ty().is_collection() && f.ty().is_collection() && t.ty() == f.ty() {
        let mut b = Value::unknown(result_type).refine();
        if both_not_null {
            b = b.not_null();
        }
        let lo = t_range
            .length_lower_bound()
            .min(f_range.length_lower_bound());
        let hi = t_range
            .length_upper_bound()
            .max(f_range.length_upper_bound());
        return b
            .collection_length_lower_bound(lo)
            .collection_length_upper_bound(hi)
            .new_value();
    }
    let ret = Value::unknown(result_type);
    if both_not_null {
        ret.refine_not_null()
    } else {
        ret
    }
}

/// HCL's `describeConditionalTypeMismatch`.
pub(crate) fn describe_type_mismatch(t: &Type, f: &Type) -> String {
    match (t, f) {
        (Type::Object(to), Type::Object(fo)) => {
            for (name, t_attr) in &to.attributes {
                match fo.attributes.get(name) {
                    None => {
                        return format!(
                            "The 'true' value includes object attribute {}, which is absent in the 'false' value",
                            gostr::quote(name)
                        )
                    }
                    Some(f_attr) if f_attr != t_attr => {
                        return format!(
                            "Type mismatch for object attribute {}: {}",
                            gostr::quote(name),
                            describe_type_mismatch(t_attr, f_attr)
                        )
                    }
                    Some(_) => {}
                }
            }
            for name in fo.attributes.keys() {
                if !to.attributes.contains_key(name) {
                    return format!(
                        "The 'false' value includes object attribute {}, which is absent in the 'true' value",
                        gostr::quote(name)
                    );
                }
            }
        }
        (Type::Tuple(te), Type::Tuple(fe)) => {
            if te.len() != fe.len() {
                return format!(
                    "The 'true' tuple has length {}, but the 'false' tuple has length {}",
                    te.len(),
                    fe.len()
                );
            }
            for (i, (a, b)) in te.iter().zip(fe.iter()).enumerate() {
                if a != b {
                    return format!(
                        "Type mismatch for tuple element {i}: {}",
                        describe_type_mismatch(a, b)
                    );
                }
            }
        }
        (Type::List(a), Type::List(b))
        | (Type::Set(a), Type::Set(b))
        | (Type::Map(a), Type::Map(b))
            if (a.is_object() && b.is_object()) || (a.is_tuple() && b.is_tuple()) =>
        {
            let noun = match t {
                Type::List(_) => "list",
                Type::Set(_) => "set",
                _ => "map",
            };
            return format!(
                "Mismatched {noun} element types: {}",
                describe_type_mismatch(a, b)
            );
        }
        _ => {}
    }
    let (tn, fname) = (t.friendly_name(), f.friendly_name());
    if tn == fname {
        return "At least one deeply-nested attribute or element is not compatible across both the 'true' and the 'false' value".into();
    }
    format!("The 'true' value is {tn}, but the 'false' value is {fname}")
}

fn can_iterate(ty: &Type) -> bool {
    matches!(
        ty,
        Type::List(_) | Type::Set(_) | Type::Map(_) | Type::Object(_) | Type::Tuple(_)
    )
}

/// cty's `ElementIterator` over a known collection: (index, element) for
/// sequences, (element, element) for sets, (key, value) for maps and
/// objects.
fn iterate(coll: &Value) -> Vec<(Value, Value)> {
    if let Some(elements) = coll.as_elements() {
        if coll.ty().is_set() {
            return elements.iter().map(|e| (e.clone(), e.clone())).collect();
        }
        return elements
            .iter()
            .enumerate()
            .map(|(i, e)| (Value::int(i as i64), e.clone()))
            .collect();
    }
    if let Some(attrs) = coll.as_attributes() {
        return attrs
            .iter()
            .map(|(k, v)| (Value::string(k), v.clone()))
            .collect();
    }
    Vec::new()
}

/// A list of `values` when they share one type (elements of unknown type
/// take the others' type), as cty's `CanListVal`/`ListVal` allow.
fn homogeneous_list(values: Vec<Value>) -> Option<Value> {
    let mut element: Option<Type> = None;
    for v in &values {
        if v.ty().is_dynamic() {
            continue;
        }
        match &element {
            None => element = Some(v.ty().clone()),
            Some(t) if t != v.ty() => return None,
            Some(_) => {}
        }
    }
    let Some(element) = element else {
        return Some(Value::list(Type::Dynamic, values));
    };
    let values = values
        .into_iter()
        .map(|v| {
            if !v.ty().is_dynamic() {
                return v;
            }
            let (v, m) = v.unmark();
            let typed = if v.is_null() {
                Value::null(element.clone())
            } else {
                Value::unknown(element.clone())
            };
            typed.mark(m)
        })
        .collect();
    Some(Value::list(element, values))
}
