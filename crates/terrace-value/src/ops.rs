//! Operations on values with cty's rules for unknowns, refinements, nulls
//! and marks (cty `value_ops.go`): equality, logic, comparison, arithmetic,
//! length, indexing and attribute access, element iteration, and the set
//! element order that every set value is kept in.
//!
//! Where cty panics (an operation applied to values of the wrong type, a
//! NaN result) these return a `ValueError` instead; callers such as the
//! HCL operators check types and nulls first, as HCL does.
//!
//! Semantics follow go-cty v1.16.0, the version Terraform 1.11 embeds.

use crate::number::Number;
use crate::refine::{RefinementBuilder, ValueRange};
use crate::types::Type;
use crate::value::{Marks, Refinement, Repr, Value};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;

/// Why an operation could not produce a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueError {
    /// Arithmetic without a numeric result (Go's `big.ErrNaN`), with the
    /// message cty's arithmetic functions give, e.g. `can't compute sum of
    /// opposing infinities`.
    NotANumber(&'static str),
    /// The operation is not defined for the given values (cty panics).
    Invalid(String),
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueError::NotANumber(msg) => f.write_str(msg),
            ValueError::Invalid(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for ValueError {}

fn invalid(msg: impl Into<String>) -> ValueError {
    ValueError::Invalid(msg.into())
}

fn bool_val(b: bool) -> Value {
    Value::bool(b)
}

/// An unknown bool refined as not null, cty's usual "can't tell yet".
fn unknown_bool() -> Value {
    Value::unknown_refined(
        Type::Bool,
        Refinement {
            not_null: true,
            ..Refinement::default()
        },
    )
}

fn is_true(v: &Value) -> bool {
    v.as_bool() == Some(true)
}

/// cty's `typeCheck`: a short-circuit result when any operand is of
/// unknown type (`Value::dynamic()`) or unknown, an error when an operand
/// has a type other than `required`.
fn type_check(required: &Type, ret: &Type, values: &[&Value]) -> Result<Option<Value>, ValueError> {
    let mut has_dynamic = false;
    let mut has_unknown = false;
    for (i, v) in values.iter().enumerate() {
        if v.ty.is_dynamic() {
            has_dynamic = true;
            continue;
        }
        if v.ty != *required {
            return Err(invalid(format!(
                "type mismatch: want {} but value {} is {}",
                required.friendly_name(),
                i,
                v.ty.friendly_name()
            )));
        }
        if !v.is_known() {
            has_unknown = true;
        }
    }
    if has_dynamic {
        return Ok(Some(Value::dynamic()));
    }
    if has_unknown {
        return Ok(Some(Value::unknown(ret.clone())));
    }
    Ok(None)
}

/// cty's `forceShortCircuitType`: operations with a fixed result type turn
/// a `DynamicVal` short-circuit into an unknown of that type.
fn force_type(short: Value, ty: &Type) -> Value {
    if short.ty.is_dynamic() {
        Value::unknown(ty.clone())
    } else {
        short
    }
}

fn known_number(v: &Value) -> Result<&Number, ValueError> {
    v.as_number()
        .ok_or_else(|| invalid("argument must not be null"))
}

fn known_bool(v: &Value) -> Result<bool, ValueError> {
    v.as_bool()
        .ok_or_else(|| invalid("argument must not be null"))
}

/// cty's `rawNumberEqual`: integers compare exactly, other numbers by
/// their shortest decimal text, and -0 equals 0.
fn raw_number_equal(a: &Number, b: &Number) -> bool {
    if a.signum() != b.signum() {
        return false;
    }
    match (a.is_integer(), b.is_integer()) {
        (true, true) => a.cmp(b) == Ordering::Equal,
        (false, false) => {
            let norm = |s: String| if s == "-0" { "0".to_string() } else { s };
            norm(a.text('f', -1)) == norm(b.text('f', -1))
        }
        _ => false,
    }
}

/// cty's `Type.TestConformance` reduced to pass/fail: whether a value of
/// type `given` fits `want`, where `Dynamic` in `want` accepts anything.
pub(crate) fn type_conforms(given: &Type, want: &Type) -> bool {
    if want.is_dynamic() || given == want {
        return true;
    }
    match (given, want) {
        (Type::Object(g), Type::Object(w)) => {
            g.attributes.len() == w.attributes.len()
                && w.attributes
                    .iter()
                    .all(|(k, wt)| g.attributes.get(k).is_some_and(|gt| type_conforms(gt, wt)))
        }
        (Type::Tuple(g), Type::Tuple(w)) => {
            g.len() == w.len() && g.iter().zip(w.iter()).all(|(a, b)| type_conforms(a, b))
        }
        (Type::List(g), Type::List(w))
        | (Type::Map(g), Type::Map(w))
        | (Type::Set(g), Type::Set(w)) => type_conforms(g, w),
        _ => false,
    }
}

type BinOp = fn(&Value, &Value) -> Result<Value, ValueError>;

/// cty's `numericRangeArithmetic`: interval arithmetic over the bounds of
/// two number ranges for a monotone operation; always inclusive bounds.
fn numeric_range_arithmetic(
    op: BinOp,
    a: &ValueRange,
    b: &ValueRange,
    builder: RefinementBuilder,
) -> RefinementBuilder {
    let wrap = |x: &Value, y: &Value| op(x, y).unwrap_or_else(|_| Value::unknown(Type::Number));
    let (a_min, _) = a.number_lower_bound();
    let (a_max, _) = a.number_upper_bound();
    let (b_min, _) = b.number_lower_bound();
    let (b_max, _) = b.number_upper_bound();
    let corners = [
        wrap(&a_min, &b_min),
        wrap(&a_min, &b_max),
        wrap(&a_max, &b_min),
        wrap(&a_max, &b_max),
    ];
    let new_min = most_number_value(Value::less_than, &corners);
    let new_max = most_number_value(Value::greater_than, &corners);
    let mut builder = builder;
    if new_min
        .equals(&Value::number(Number::infinity(true)))
        .as_bool()
        == Some(false)
    {
        builder = builder.number_range_lower_bound(&new_min, true);
    }
    if new_max
        .equals(&Value::number(Number::infinity(false)))
        .as_bool()
        == Some(false)
    {
        builder = builder.number_range_upper_bound(&new_max, true);
    }
    builder
}

fn most_number_value(op: BinOp, values: &[Value]) -> Value {
    let mut r = values[0].clone();
    for v in &values[1..] {
        match op(v, &r) {
            Ok(more) if more.is_known() => {
                if is_true(&more) {
                    r = v.clone();
                }
            }
            _ => return Value::unknown(Type::Number),
        }
    }
    r
}

/// Runs `f` on the values without their own (top-level) marks and puts the
/// union of those marks on the result, as most cty operations do.
fn with_marks2(
    a: &Value,
    b: &Value,
    f: impl FnOnce(&Value, &Value) -> Result<Value, ValueError>,
) -> Result<Value, ValueError> {
    let (a, am) = a.clone().unmark();
    let (b, bm) = b.clone().unmark();
    Ok(f(&a, &b)?.mark(am.union(bm)))
}

fn with_marks1(
    a: &Value,
    f: impl FnOnce(&Value) -> Result<Value, ValueError>,
) -> Result<Value, ValueError> {
    let (a, am) = a.clone().unmark();
    Ok(f(&a)?.mark(am))
}

impl Value {
    /// This value with `marks` added to what `path` leads to, as
    /// [`Value::map_at_path`] finds it: a path into a set marks the set,
    /// since a set's elements carry no marks of their own.
    pub fn mark_at_path(&self, path: &[crate::convert::PathStep], marks: Marks) -> Value {
        self.map_at_path(path, |found| found.clone().mark(marks))
    }

    /// This value with what `path` leads to replaced by `f` of it, every
    /// value around it rebuilt with its own marks. A path that leads
    /// nowhere (a missing attribute, key or index) changes nothing; a null
    /// or unknown value on the way ends the path there, unchanged; a path
    /// into a set gives the set to `f`, since its elements have no address.
    pub fn map_at_path(
        &self,
        path: &[crate::convert::PathStep],
        f: impl FnOnce(&Value) -> Value,
    ) -> Value {
        use crate::convert::PathStep;
        let Some((step, rest)) = path.split_first() else {
            return f(self);
        };
        if self.is_null() || !self.is_known() {
            return self.clone();
        }
        let ty = &self.ty;
        let outer = self.marks();
        if ty.is_set() {
            return f(self);
        }
        match step {
            PathStep::Attr(name) if ty.is_object() => {
                let Some(attrs) = self.as_attributes() else {
                    return self.clone();
                };
                let Some(inner) = attrs.get(name) else {
                    return self.clone();
                };
                let mut attrs = attrs.to_map();
                attrs.insert(name.clone(), inner.map_at_path(rest, f));
                Value::object(attrs).mark(outer)
            }
            PathStep::Index(k) if ty.is_map() => {
                let (Some(k), Some(elems), Some(ety)) =
                    (k.as_str(), self.as_attributes(), ty.element_type())
                else {
                    return self.clone();
                };
                let Some(inner) = elems.get(k) else {
                    return self.clone();
                };
                let mut elems = elems.to_map();
                elems.insert(k.to_string(), inner.map_at_path(rest, f));
                Value::map(ety.clone(), elems).mark(outer)
            }
            PathStep::Index(k) if ty.is_list() || ty.is_tuple() => {
                let Some(elems) = self.as_elements() else {
                    return self.clone();
                };
                let Some(i) = k
                    .as_number()
                    .and_then(|n| n.to_i64())
                    .and_then(|i| usize::try_from(i).ok())
                    .filter(|i| *i < elems.len())
                else {
                    return self.clone();
                };
                let mut elems = elems.to_vec();
                elems[i] = elems[i].map_at_path(rest, f);
                match ty.element_type() {
                    Some(ety) if ty.is_list() => Value::list(ety.clone(), elems).mark(outer),
                    _ => Value::tuple(elems).mark(outer),
                }
            }
            _ => self.clone(),
        }
    }

    /// Whether this value or anything nested in it carries marks.
    pub fn contains_marked(&self) -> bool {
        !self.deep_marks().is_empty()
    }

    /// cty's `HasWhollyKnownType`: no part of the value has a type that is
    /// not yet known.
    pub fn has_wholly_known_type(&self) -> bool {
        match &self.repr {
            Repr::Null => true,
            Repr::Unknown(_) if self.ty.is_dynamic() => false,
            Repr::Unknown(_) => {
                !(self.ty.is_collection() || self.ty.is_structural())
                    || !self.ty.has_dynamic_types()
            }
            Repr::Seq(v) => v.iter().all(Value::has_wholly_known_type),
            Repr::Attrs(m) => m.values().all(Value::has_wholly_known_type),
            _ => true,
        }
    }

    // ----- equality -----

    /// cty's `Equals`: a bool, unknown when the answer depends on unknown
    /// values; nulls of any type equal each other; marks of both operands
    /// (at any depth) go onto the result.
    pub fn equals(&self, other: &Value) -> Value {
        let am = self.deep_marks();
        let bm = other.deep_marks();
        if !am.is_empty() || !bm.is_empty() {
            let (a, _) = self.unmark_deep();
            let (b, _) = other.unmark_deep();
            return a.equals_unmarked(&b).mark(am.union(bm));
        }
        self.equals_unmarked(other)
    }

    /// `equals` negated (cty `NotEqual`).
    pub fn not_equal(&self, other: &Value) -> Value {
        let eq = self.equals(other);
        let (eq, marks) = eq.unmark();
        let r = match eq.as_bool() {
            Some(b) => bool_val(!b),
            None => unknown_bool(),
        };
        r.mark(marks)
    }

    fn equals_unmarked(&self, other: &Value) -> Value {
        if self.is_null() && other.is_definitely_not_null() {
            return bool_val(false);
        }
        if other.is_null() && self.is_definitely_not_null() {
            return bool_val(false);
        }
        if self.is_known() && !other.is_known() {
            if other.range().includes(self).as_bool() == Some(false) {
                return bool_val(false);
            }
        } else if other.is_known()
            && !self.is_known()
            && self.range().includes(other).as_bool() == Some(false)
        {
            return bool_val(false);
        }

        match (self.is_known(), other.is_known()) {
            (false, false) => return unknown_bool(),
            (true, false) => {
                if self.is_null() || other.ty.has_dynamic_types() {
                    return unknown_bool();
                }
                return if self.ty != other.ty {
                    bool_val(false)
                } else {
                    unknown_bool()
                };
            }
            (false, true) => {
                if other.is_null() || self.ty.has_dynamic_types() {
                    return unknown_bool();
                }
                return if other.ty != self.ty {
                    bool_val(false)
                } else {
                    unknown_bool()
                };
            }
            (true, true) => {}
        }

        match (self.is_null(), other.is_null()) {
            (true, true) => return bool_val(true),
            (true, false) | (false, true) => return bool_val(false),
            _ => {}
        }

        if !self.has_wholly_known_type() || !other.has_wholly_known_type() {
            if !type_conforms(&self.ty, &other.ty) && !type_conforms(&other.ty, &self.ty) {
                return bool_val(false);
            }
            return unknown_bool();
        }

        if self.ty != other.ty {
            return bool_val(false);
        }

        match (&self.repr, &other.repr) {
            (Repr::Number(a), Repr::Number(b)) => bool_val(raw_number_equal(a, b)),
            (Repr::Bool(a), Repr::Bool(b)) => bool_val(a == b),
            (Repr::String(a), Repr::String(b)) => bool_val(a == b),
            (Repr::Seq(a), Repr::Seq(b)) if self.ty.is_set() => {
                let mut equal = true;
                for (this, that) in [(a, b), (b, a)] {
                    for e in this.iter() {
                        if !e.is_known() {
                            return unknown_bool();
                        }
                        if !set_has(that, e) {
                            equal = false;
                        }
                    }
                }
                bool_val(equal)
            }
            (Repr::Seq(a), Repr::Seq(b)) => {
                // Tuples of one type always have the same length; lists of
                // different lengths are simply unequal.
                if a.len() != b.len() {
                    return bool_val(false);
                }
                for (x, y) in a.iter().zip(b.iter()) {
                    let eq = x.equals_unmarked(y);
                    if !eq.is_known() {
                        return unknown_bool();
                    }
                    if !is_true(&eq) {
                        return bool_val(false);
                    }
                }
                bool_val(true)
            }
            (Repr::Attrs(a), Repr::Attrs(b)) => {
                if a.len() != b.len() {
                    return bool_val(false);
                }
                for (k, x) in a.iter() {
                    let Some(y) = b.get(k) else {
                        return bool_val(false);
                    };
                    let eq = x.equals_unmarked(y);
                    if !eq.is_known() {
                        return unknown_bool();
                    }
                    if !is_true(&eq) {
                        return bool_val(false);
                    }
                }
                bool_val(true)
            }
            _ => bool_val(false),
        }
    }

    /// cty's `RawEquals`: exact sameness of type, marks, unknown-ness,
    /// refinements and content, without any of `equals`' short-circuits.
    pub fn raw_equals(&self, other: &Value) -> bool {
        if self.ty != other.ty || self.marks != other.marks {
            return false;
        }
        match (&self.repr, &other.repr) {
            (Repr::Unknown(a), Repr::Unknown(b)) => match (a, b) {
                (None, None) => true,
                (Some(a), Some(b)) => a == b,
                _ => false,
            },
            (Repr::Unknown(_), _) | (_, Repr::Unknown(_)) => false,
            (Repr::Null, Repr::Null) => true,
            (Repr::Null, _) | (_, Repr::Null) => false,
            (Repr::Number(a), Repr::Number(b)) => raw_number_equal(a, b),
            (Repr::Bool(a), Repr::Bool(b)) => a == b,
            (Repr::String(a), Repr::String(b)) => a == b,
            // Shared elements are the same elements: comparing a value with
            // a copy of itself (a no-op plan's before and after) is O(1).
            (Repr::Seq(a), Repr::Seq(b)) if std::sync::Arc::ptr_eq(a, b) => true,
            (Repr::Attrs(a), Repr::Attrs(b)) if std::sync::Arc::ptr_eq(a, b) => true,
            (Repr::Seq(a), Repr::Seq(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.raw_equals(y))
            }
            (Repr::Attrs(a), Repr::Attrs(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(k, x)| b.get(k).is_some_and(|y| x.raw_equals(y)))
            }
            _ => false,
        }
    }

    // ----- logic -----

    pub fn not(&self) -> Result<Value, ValueError> {
        if self.is_marked() {
            return with_marks1(self, Value::not);
        }
        if let Some(short) = type_check(&Type::Bool, &Type::Bool, &[self])? {
            return Ok(force_type(short, &Type::Bool).refine_not_null());
        }
        Ok(bool_val(!known_bool(self)?))
    }

    /// Logical AND; a known `false` operand decides the result even when the
    /// other is unknown.
    pub fn and(&self, other: &Value) -> Result<Value, ValueError> {
        if self.is_marked() || other.is_marked() {
            return with_marks2(self, other, Value::and);
        }
        if let Some(short) = type_check(&Type::Bool, &Type::Bool, &[self, other])? {
            if self.as_bool() == Some(false) || other.as_bool() == Some(false) {
                return Ok(bool_val(false));
            }
            return Ok(force_type(short, &Type::Bool).refine_not_null());
        }
        Ok(bool_val(known_bool(self)? && known_bool(other)?))
    }

    /// Logical OR; a known `true` operand decides the result.
    pub fn or(&self, other: &Value) -> Result<Value, ValueError> {
        if self.is_marked() || other.is_marked() {
            return with_marks2(self, other, Value::or);
        }
        if let Some(short) = type_check(&Type::Bool, &Type::Bool, &[self, other])? {
            if self.as_bool() == Some(true) || other.as_bool() == Some(true) {
                return Ok(bool_val(true));
            }
            return Ok(force_type(short, &Type::Bool).refine_not_null());
        }
        Ok(bool_val(known_bool(self)? || known_bool(other)?))
    }

    // ----- comparison -----

    /// `self < other` for numbers; refined unknowns whose ranges do not
    /// overlap give a known answer.
    pub fn less_than(&self, other: &Value) -> Result<Value, ValueError> {
        if self.is_marked() || other.is_marked() {
            return with_marks2(self, other, Value::less_than);
        }
        if let Some(short) = type_check(&Type::Number, &Type::Bool, &[self, other])? {
            let (a, b) = (self.range(), other.range());
            if *a.type_constraint() == Type::Number && *b.type_constraint() == Type::Number {
                let (a_max, _) = a.number_upper_bound();
                let (b_min, _) = b.number_lower_bound();
                if a_max.is_known()
                    && b_min.is_known()
                    && a_max.less_than(&b_min).is_ok_and(|r| is_true(&r))
                {
                    return Ok(bool_val(true));
                }
                let (a_min, _) = a.number_lower_bound();
                let (b_max, _) = b.number_upper_bound();
                if a_min.is_known()
                    && b_max.is_known()
                    && a_min.greater_than(&b_max).is_ok_and(|r| is_true(&r))
                {
                    return Ok(bool_val(false));
                }
            }
            return Ok(force_type(short, &Type::Bool).refine_not_null());
        }
        Ok(bool_val(
            known_number(self)?.cmp(known_number(other)?) == Ordering::Less,
        ))
    }

    /// `self > other` for numbers, with the same range short-circuits.
    pub fn greater_than(&self, other: &Value) -> Result<Value, ValueError> {
        if self.is_marked() || other.is_marked() {
            return with_marks2(self, other, Value::greater_than);
        }
        if let Some(short) = type_check(&Type::Number, &Type::Bool, &[self, other])? {
            let (a, b) = (self.range(), other.range());
            if *a.type_constraint() == Type::Number && *b.type_constraint() == Type::Number {
                let (a_min, _) = a.number_lower_bound();
                let (b_max, _) = b.number_upper_bound();
                if a_min.is_known()
                    && b_max.is_known()
                    && a_min.greater_than(&b_max).is_ok_and(|r| is_true(&r))
                {
                    return Ok(bool_val(true));
                }
                let (a_max, _) = a.number_upper_bound();
                let (b_min, _) = b.number_lower_bound();
                if a_max.is_known()
                    && b_min.is_known()
                    && a_max.less_than(&b_min).is_ok_and(|r| is_true(&r))
                {
                    return Ok(bool_val(false));
                }
            }
            return Ok(force_type(short, &Type::Bool).refine_not_null());
        }
        Ok(bool_val(
            known_number(self)?.cmp(known_number(other)?) == Ordering::Greater,
        ))
    }

    /// `less_than` OR `equals`, as cty defines it.
    pub fn less_than_or_equal_to(&self, other: &Value) -> Result<Value, ValueError> {
        self.less_than(other)?.or(&self.equals(other))
    }

    pub fn greater_than_or_equal_to(&self, other: &Value) -> Result<Value, ValueError> {
        self.greater_than(other)?.or(&self.equals(other))
    }

    // ----- arithmetic -----

    /// Sum of two numbers; unknown operands give an unknown refined by the
    /// operands' ranges.
    pub fn add(&self, other: &Value) -> Result<Value, ValueError> {
        if self.is_marked() || other.is_marked() {
            return with_marks2(self, other, Value::add);
        }
        if let Some(short) = type_check(&Type::Number, &Type::Number, &[self, other])? {
            let b = force_type(short, &Type::Number).refine();
            let b = numeric_range_arithmetic(Value::add, &self.range(), &other.range(), b);
            return Ok(b.new_value().refine_not_null());
        }
        known_number(self)?
            .add(known_number(other)?)
            .map(Value::number)
            .map_err(|_| ValueError::NotANumber("can't compute sum of opposing infinities"))
    }

    pub fn subtract(&self, other: &Value) -> Result<Value, ValueError> {
        if self.is_marked() || other.is_marked() {
            return with_marks2(self, other, Value::subtract);
        }
        if let Some(short) = type_check(&Type::Number, &Type::Number, &[self, other])? {
            let b = force_type(short, &Type::Number).refine();
            let b = numeric_range_arithmetic(Value::subtract, &self.range(), &other.range(), b);
            return Ok(b.new_value().refine_not_null());
        }
        let negated = known_number(other)?.neg();
        known_number(self)?
            .add(&negated)
            .map(Value::number)
            .map_err(|_| ValueError::NotANumber("can't subtract infinity from itself"))
    }

    /// Product of two numbers. cty also short-circuits on its `Zero`
    /// singleton, but compares it by identity, so values built from HCL
    /// literals never match and Terraform prints `0 * unknown` as unknown;
    /// terrace does the same.
    pub fn multiply(&self, other: &Value) -> Result<Value, ValueError> {
        if self.is_marked() || other.is_marked() {
            return with_marks2(self, other, Value::multiply);
        }
        if let Some(short) = type_check(&Type::Number, &Type::Number, &[self, other])? {
            let b = force_type(short, &Type::Number).refine();
            let b = numeric_range_arithmetic(Value::multiply, &self.range(), &other.range(), b);
            return Ok(b.new_value().refine_not_null());
        }
        known_number(self)?
            .mul(known_number(other)?)
            .map(Value::number)
            .map_err(|_| ValueError::NotANumber("can't multiply zero by infinity"))
    }

    /// Quotient; `x / 0` is an infinity, as in cty.
    pub fn divide(&self, other: &Value) -> Result<Value, ValueError> {
        if self.is_marked() || other.is_marked() {
            return with_marks2(self, other, Value::divide);
        }
        if let Some(short) = type_check(&Type::Number, &Type::Number, &[self, other])? {
            return Ok(force_type(short, &Type::Number).refine_not_null());
        }
        known_number(self)?
            .div(known_number(other)?)
            .map(Value::number)
            .map_err(|_| {
                ValueError::NotANumber("can't divide zero by zero or infinity by infinity")
            })
    }

    /// cty's `Modulo`: `x % 0` is `x`; the result takes the sign of `self`.
    /// Infinite operands are an error (cty either panics or hits NaN there).
    pub fn modulo(&self, other: &Value) -> Result<Value, ValueError> {
        if self.is_marked() || other.is_marked() {
            return with_marks2(self, other, Value::modulo);
        }
        if let Some(short) = type_check(&Type::Number, &Type::Number, &[self, other])? {
            return Ok(force_type(short, &Type::Number).refine_not_null());
        }
        let (a, b) = (known_number(self)?, known_number(other)?);
        if b.is_zero() {
            return Ok(self.clone());
        }
        const MSG: &str = "can't use modulo with zero and infinity";
        if a.is_infinite() || b.is_infinite() {
            return Err(ValueError::NotANumber(MSG));
        }
        a.rem(b)
            .map(Value::number)
            .map_err(|_| ValueError::NotANumber(MSG))
    }

    pub fn negate(&self) -> Result<Value, ValueError> {
        if self.is_marked() {
            return with_marks1(self, Value::negate);
        }
        if let Some(short) = type_check(&Type::Number, &Type::Number, &[self])? {
            return Ok(force_type(short, &Type::Number).refine_not_null());
        }
        Ok(Value::number(known_number(self)?.neg()))
    }

    /// Absolute value; an unknown result is refined to be at least zero.
    pub fn absolute(&self) -> Result<Value, ValueError> {
        if self.is_marked() {
            return with_marks1(self, Value::absolute);
        }
        if let Some(short) = type_check(&Type::Number, &Type::Number, &[self])? {
            return Ok(force_type(short, &Type::Number)
                .refine()
                .not_null()
                .number_range_inclusive(&Value::int(0), &Value::unknown(Type::Number))
                .new_value());
        }
        Ok(Value::number(known_number(self)?.abs()))
    }

    // ----- collections -----

    /// cty's `Length` for collections and tuples (objects count their
    /// attributes). An unknown collection gives an unknown number bounded
    /// by its length refinements; a set with unknown elements has an
    /// uncertain length because those may turn out equal to others.
    /// Strings are not collections: their length is a function's business.
    pub fn length(&self) -> Result<Value, ValueError> {
        if self.is_marked() {
            return with_marks1(self, Value::length);
        }
        if let Type::Tuple(t) = &self.ty {
            return Ok(Value::int(t.len() as i64));
        }
        if !self.is_known() {
            if !(self.ty.is_collection() || self.ty.is_dynamic()) {
                return Err(invalid(format!(
                    "can't take the length of an unknown {}",
                    self.ty.friendly_name()
                )));
            }
            let r = self.range();
            return Ok(Value::unknown(Type::Number)
                .refine()
                .not_null()
                .number_range_inclusive(
                    &Value::number(Number::from_u64(r.length_lower_bound())),
                    &Value::number(Number::from_u64(r.length_upper_bound())),
                )
                .new_value());
        }
        if self.is_null() {
            return Err(invalid("value is null"));
        }
        if self.ty.is_set() {
            let n = self.known_length().unwrap_or(0);
            if n == 1 || self.is_wholly_known() {
                return Ok(Value::int(n as i64));
            }
            return Ok(Value::unknown(Type::Number)
                .refine()
                .not_null()
                .number_range_inclusive(&Value::int(1), &Value::int(n as i64))
                .new_value());
        }
        match self.length_int() {
            Some(n) => Ok(Value::int(n as i64)),
            None => Err(invalid("value is not a collection")),
        }
    }

    /// cty's `LengthInt`: the number of elements, counting a set's unknown
    /// elements as distinct; tuples and objects answer from their type.
    /// None for other unknown or null values and non-collections.
    pub fn length_int(&self) -> Option<usize> {
        match &self.ty {
            Type::Tuple(t) => return Some(t.len()),
            Type::Object(o) => return Some(o.attributes.len()),
            _ => {}
        }
        if self.ty.is_collection() {
            self.known_length()
        } else {
            None
        }
    }

    /// cty's `Index` on a list, map or tuple. An unknown collection or key
    /// gives an unknown element; a key that is absent is an error (cty
    /// leaves callers to check `has_index` first).
    pub fn index(&self, key: &Value) -> Result<Value, ValueError> {
        if self.is_marked() || key.is_marked() {
            return with_marks2(self, key, Value::index);
        }
        match &self.ty {
            Type::Dynamic => Ok(Value::dynamic()),
            Type::List(ety) => {
                if key.ty.is_dynamic() {
                    return Ok(Value::unknown((**ety).clone()));
                }
                if key.ty != Type::Number {
                    return Err(invalid("element key for list must be number"));
                }
                if !key.is_known() || !self.is_known() {
                    return Ok(Value::unknown((**ety).clone()));
                }
                let i = list_index(key, "list")?;
                self.seq_element(i)
            }
            Type::Map(ety) => {
                if key.ty.is_dynamic() {
                    return Ok(Value::unknown((**ety).clone()));
                }
                if key.ty != Type::String {
                    return Err(invalid("element key for map must be string"));
                }
                if !key.is_known() || !self.is_known() {
                    return Ok(Value::unknown((**ety).clone()));
                }
                let k = key
                    .as_str()
                    .ok_or_else(|| invalid("map key must not be null"))?;
                let attrs = self
                    .as_attributes()
                    .ok_or_else(|| invalid("value is null"))?;
                attrs.get(k).cloned().ok_or_else(|| {
                    invalid(format!(
                        "map has no element with key {}",
                        crate::gostr::quote(k)
                    ))
                })
            }
            Type::Tuple(etys) => {
                if key.ty.is_dynamic() {
                    return Ok(Value::dynamic());
                }
                if key.ty != Type::Number {
                    return Err(invalid("element key for tuple must be number"));
                }
                if !key.is_known() {
                    return Ok(Value::dynamic());
                }
                let i = list_index(key, "list")?;
                let ety = etys
                    .get(i)
                    .ok_or_else(|| invalid(format!("tuple has no element with index {i}")))?;
                if !self.is_known() {
                    return Ok(Value::unknown(ety.clone()));
                }
                self.seq_element(i)
            }
            _ => Err(invalid("not a list, map, or tuple type")),
        }
    }

    fn seq_element(&self, i: usize) -> Result<Value, ValueError> {
        let elems = self.as_elements().ok_or_else(|| invalid("value is null"))?;
        elems.get(i).cloned().ok_or_else(|| {
            invalid(format!(
                "index {i} is out of range for {} elements",
                elems.len()
            ))
        })
    }

    /// cty's `GetAttr` on an object; `Value::dynamic()` gives itself.
    pub fn get_attr(&self, name: &str) -> Result<Value, ValueError> {
        if self.is_marked() {
            return with_marks1(self, |v| v.get_attr(name));
        }
        let Some(o) = self.ty.object_type() else {
            if self.ty.is_dynamic() {
                return Ok(Value::dynamic());
            }
            return Err(invalid("value is not an object"));
        };
        let name = crate::refine::nfc(name);
        let Some(aty) = o.attributes.get(&name) else {
            return Err(invalid(format!(
                "value has no attribute of that name ({})",
                crate::gostr::quote(&name)
            )));
        };
        if !self.is_known() {
            return Ok(Value::unknown(aty.clone()));
        }
        let attrs = self
            .as_attributes()
            .ok_or_else(|| invalid("value is null"))?;
        attrs
            .get(&name)
            .cloned()
            .ok_or_else(|| invalid("value has no attribute of that name"))
    }

    /// cty's `HasIndex`: whether `index` would find an element; keys of the
    /// wrong type give false, unknowns give an unknown bool.
    pub fn has_index(&self, key: &Value) -> Result<Value, ValueError> {
        if self.is_marked() || key.is_marked() {
            return with_marks2(self, key, Value::has_index);
        }
        match &self.ty {
            Type::Dynamic => Ok(unknown_bool()),
            Type::List(_) | Type::Map(_) | Type::Tuple(_) => {
                if key.ty.is_dynamic() {
                    return Ok(unknown_bool());
                }
                let want = if self.ty.is_map() {
                    Type::String
                } else {
                    Type::Number
                };
                if key.ty != want {
                    return Ok(bool_val(false));
                }
                if !key.is_known() || (!self.is_known() && !self.ty.is_tuple()) {
                    return Ok(unknown_bool());
                }
                if self.ty.is_map() {
                    let k = key
                        .as_str()
                        .ok_or_else(|| invalid("map key must not be null"))?;
                    let attrs = self
                        .as_attributes()
                        .ok_or_else(|| invalid("value is null"))?;
                    return Ok(bool_val(attrs.contains_key(k)));
                }
                let Some(i) = key.as_number().and_then(Number::to_i64).filter(|i| *i >= 0) else {
                    return Ok(bool_val(false));
                };
                let len = match &self.ty {
                    Type::Tuple(t) => t.len(),
                    _ => self
                        .as_elements()
                        .ok_or_else(|| invalid("value is null"))?
                        .len(),
                };
                Ok(bool_val((i as u64) < len as u64))
            }
            _ => Err(invalid("not a list, map, or tuple type")),
        }
    }

    /// cty's `HasElement` on a set (as in go-cty v1.16.0, which Terraform
    /// 1.11 uses: unknown elements in the set never match).
    pub fn has_element(&self, elem: &Value) -> Result<Value, ValueError> {
        if self.is_marked() || elem.is_marked() {
            return with_marks2(self, elem, Value::has_element);
        }
        let Type::Set(ety) = &self.ty else {
            return Err(invalid("not a set type"));
        };
        if !self.is_known() || !elem.is_known() {
            return Ok(unknown_bool());
        }
        let elems = self
            .as_elements()
            .ok_or_else(|| invalid("can't call HasElement on a null value"))?;
        if **ety != elem.ty {
            return Ok(bool_val(false));
        }
        Ok(bool_val(set_has(elems, elem)))
    }

    /// Whether `elements` can be called (cty `CanIterateElements`).
    pub fn can_iterate_elements(&self) -> bool {
        !self.is_marked() && (self.ty.is_collection() || self.ty.is_structural())
    }

    /// The (key, element) pairs of a known, non-null, unmarked collection,
    /// tuple or object (cty `ElementIterator`): lists and tuples are keyed
    /// by index, maps and objects by name in byte order, sets by the element
    /// itself, in set order.
    pub fn elements(&self) -> Result<ElementIterator<'_>, ValueError> {
        if self.is_marked() {
            return Err(invalid("value is marked, so must be unmarked first"));
        }
        if !self.can_iterate_elements() {
            return Err(invalid(
                "attempt to iterate on non-collection, non-tuple type",
            ));
        }
        let inner = match &self.repr {
            Repr::Unknown(_) => return Err(invalid("can't use ElementIterator on unknown value")),
            Repr::Null => return Err(invalid("can't use ElementIterator on null value")),
            Repr::Seq(v) => Inner::Seq(v.iter().enumerate(), self.ty.is_set()),
            Repr::Attrs(m) => Inner::Attrs(m.iter()),
            _ => {
                return Err(invalid(
                    "attempt to iterate on non-collection, non-tuple type",
                ))
            }
        };
        Ok(ElementIterator { inner })
    }
}

fn list_index(key: &Value, what: &str) -> Result<usize, ValueError> {
    key.as_number()
        .and_then(Number::to_i64)
        .filter(|i| *i >= 0)
        .map(|i| i as usize)
        .ok_or_else(|| {
            invalid(format!(
                "element key for {what} must be non-negative integer"
            ))
        })
}

/// Iterator returned by `Value::elements`.
pub struct ElementIterator<'a> {
    inner: Inner<'a>,
}

enum Inner<'a> {
    Seq(std::iter::Enumerate<std::slice::Iter<'a, Value>>, bool),
    Attrs(crate::attrs::Iter<'a>),
}

impl Iterator for ElementIterator<'_> {
    type Item = (Value, Value);

    fn next(&mut self) -> Option<(Value, Value)> {
        match &mut self.inner {
            Inner::Seq(it, is_set) => {
                let (i, v) = it.next()?;
                let key = if *is_set {
                    v.clone()
                } else {
                    Value::int(i as i64)
                };
                Some((key, v.clone()))
            }
            Inner::Attrs(it) => {
                let (k, v) = it.next()?;
                Some((Value::string(k), v.clone()))
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.inner {
            Inner::Seq(it, _) => it.size_hint(),
            Inner::Attrs(it) => it.size_hint(),
        }
    }
}

impl PartialEq for Value {
    /// Exact sameness (`raw_equals`), the comparison tests want.
    fn eq(&self, other: &Value) -> bool {
        self.raw_equals(other)
    }
}

// ----- sets -----

/// Set membership as cty's set rules decide it: an element equal (by
/// `equals`, known true) to `v`. Unknown values are never members.
fn set_has(elems: &[Value], v: &Value) -> bool {
    elems.iter().any(|e| is_true(&e.equals(v).unmark().0))
}

/// cty's `appendSetHashBytes`: the serialization cty hashes set elements
/// by, and orders non-primitive elements by.
pub(crate) fn append_set_hash_bytes(v: &Value, buf: &mut String) {
    match &v.repr {
        Repr::Unknown(_) => buf.push('?'),
        Repr::Null => buf.push('~'),
        Repr::Number(n) => buf.push_str(&n.text('g', 10)),
        Repr::Bool(b) => buf.push(if *b { 'T' } else { 'F' }),
        Repr::String(s) => buf.push_str(&crate::gostr::quote(s)),
        Repr::Attrs(m) if v.ty.is_map() => {
            buf.push('{');
            for (k, e) in m.iter() {
                buf.push_str(&crate::gostr::quote(k));
                buf.push(':');
                append_set_hash_bytes(e, buf);
                buf.push(';');
            }
            buf.push('}');
        }
        Repr::Attrs(m) => {
            buf.push('<');
            for e in m.values() {
                append_set_hash_bytes(e, buf);
                buf.push(';');
            }
            buf.push('>');
        }
        Repr::Seq(elems) => {
            let (open, close) = if v.ty.is_tuple() {
                ('<', '>')
            } else {
                ('[', ']')
            };
            buf.push(open);
            for e in elems.iter() {
                append_set_hash_bytes(e, buf);
                buf.push(';');
            }
            buf.push(close);
        }
    }
}

fn set_hash_bytes(v: &Value) -> String {
    let mut s = String::new();
    append_set_hash_bytes(v, &mut s);
    s
}

/// cty's `Value.Hash()`: the CRC-32 of the text sets are hashed by. What
/// terraform records for a backend configuration, so that a change to it
/// is noticed.
pub fn value_hash(v: &Value) -> u32 {
    crate::crc32::checksum_ieee(set_hash_bytes(v).as_bytes())
}

/// Sort key for cty's `setRules.Less`: known values first, then unknown,
/// then null; strings by bytes, numbers by value, false before true, and
/// anything else by its hash serialization. Ties are left to the order
/// the elements arrive in (see `normalize_set_elements`).
fn set_order(a: &(Value, String), b: &(Value, String)) -> Ordering {
    let rank = |v: &Value| {
        if v.is_null() {
            2
        } else if !v.is_known() {
            1
        } else {
            0
        }
    };
    let (ra, rb) = (rank(&a.0), rank(&b.0));
    if ra != rb || ra != 0 {
        return ra.cmp(&rb);
    }
    match (&a.0.repr, &b.0.repr) {
        (Repr::String(x), Repr::String(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Repr::Number(x), Repr::Number(y)) => x.cmp(y),
        (Repr::Bool(x), Repr::Bool(y)) => x.cmp(y),
        _ => a.1.as_bytes().cmp(b.1.as_bytes()),
    }
}

/// Removes duplicates (elements `equals` reports equal; unknowns are never
/// duplicates) and puts set elements in cty's set order.
pub(crate) fn normalize_set_elements(elements: Vec<Value>) -> Vec<Value> {
    let mut buckets: HashMap<String, Vec<usize>> = HashMap::new();
    let mut kept: Vec<(Value, String)> = Vec::with_capacity(elements.len());
    for e in elements {
        let hash = set_hash_bytes(&e);
        let bucket = buckets.entry(hash.clone()).or_default();
        if bucket
            .iter()
            .any(|&i| is_true(&kept[i].0.equals(&e).unmark().0))
        {
            continue;
        }
        bucket.push(kept.len());
        kept.push((e, hash));
    }
    // cty iterates a set bucket by bucket (buckets by CRC-32 of the hash
    // serialization, in ascending order) and then stable-sorts with its
    // ordering rule, so bucket order decides between elements the rule
    // cannot tell apart, such as 0 and -0.
    kept.sort_by_cached_key(|(_, hash)| crate::crc32::checksum_ieee(hash.as_bytes()));
    kept.sort_by(set_order);
    kept.into_iter().map(|(v, _)| v).collect()
}

/// Unmarks set elements at every depth, returning the union of their marks
/// for the set itself: cty keeps no marks inside sets.
pub(crate) fn hoist_set_marks(elements: Vec<Value>) -> (Vec<Value>, Marks) {
    let mut marks = Marks::NONE;
    let elements = elements
        .into_iter()
        .map(|e| {
            if e.contains_marked() {
                let (e, m) = e.unmark_deep();
                marks = marks.union(m);
                e
            } else {
                e
            }
        })
        .collect();
    (elements, marks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{render, val};

    fn show(r: Result<Value, ValueError>) -> String {
        match r {
            Ok(v) => render(&v),
            Err(e) => format!("error: {e}"),
        }
    }

    /// `==` as HCL evaluates it. Rows marked tf were checked against
    /// Terraform 1.11.4 (`?` is a value of not-yet-known type, as a planned
    /// resource's attributes are in `terraform console`).
    #[test]
    fn equals_table() {
        let cases: &[(&str, &str, &str)] = &[
            // tf
            ("[1]", "tolist([1])", "false"),
            ("[1]", "[1]", "true"),
            ("tolist([1])", "tolist([1])", "true"),
            ("{a = 1}", "{a = 1}", "true"),
            ("{a = 1}", "tomap({a = 1})", "false"),
            ("1", r#""1""#, "false"),
            ("null", "null", "true"),
            ("emptylist(any)", "[]", "false"),
            ("toset([1, 2])", "toset([2, 1])", "true"),
            ("tomap({a = 1})", r#"tomap({a = "1"})"#, "false"),
            ("1.0", "1", "true"),
            ("-0", "0", "true"),
            (r#"[1, "a"]"#, r#"[1, "a"]"#, "true"),
            (r#"tolist(["a", "1"])"#, r#"["a", "1"]"#, "false"),
            (
                r#"unknown(string){!null, prefix="ami-"}"#,
                r#""foo""#,
                "false",
            ),
            (
                r#"unknown(string){!null, prefix="ami-"}"#,
                r#""ami-x""#,
                "unknown(bool){!null}",
            ),
            ("?", "null", "unknown(bool){!null}"),
            (
                r#"toset([unknown(string), "a"])"#,
                r#"toset(["a"])"#,
                "unknown(bool){!null}",
            ),
            ("[?]", r#"["a", "b"]"#, "false"),
            ("{a = ?}", "{b = 1}", "false"),
            ("[sensitive(1)]", "[1]", "sensitive(true)"),
            (r#"sensitive("a")"#, "null", "sensitive(false)"),
            ("{a = sensitive(1)}", "null", "sensitive(false)"),
            // unknowns and refinements
            ("unknown(string)", "null", "unknown(bool){!null}"),
            ("unknown(string){!null}", "null", "false"),
            ("null", "unknown(number){!null}", "false"),
            ("unknown(string)", "1", "false"),
            ("unknown(number)", "unknown(number)", "unknown(bool){!null}"),
            ("unknown(number)", "1", "unknown(bool){!null}"),
            ("unknown(number){>=0}", "-1", "false"),
            ("unknown(number){<5}", "5", "false"),
            ("unknown(number){<=5}", "5", "unknown(bool){!null}"),
            (
                r#"unknown(list(string)){len>=2}"#,
                r#"tolist(["a"])"#,
                "false",
            ),
            (
                r#"unknown(list(string)){len<=1}"#,
                r#"tolist(["a"])"#,
                "unknown(bool){!null}",
            ),
            (
                r#"tolist([unknown(string)])"#,
                r#"tolist(["a"])"#,
                "unknown(bool){!null}",
            ),
            (
                r#"tolist([unknown(string), "a"])"#,
                r#"tolist(["b", "b"])"#,
                "unknown(bool){!null}",
            ),
            (
                r#"tolist(["b", unknown(string)])"#,
                r#"tolist(["a", "x"])"#,
                "false",
            ),
            (r#"tolist(["a"])"#, r#"tolist(["a", "b"])"#, "false"),
            ("[?]", r#"["a"]"#, "unknown(bool){!null}"),
            (r#"{a = ?}"#, r#"{a = "x"}"#, "unknown(bool){!null}"),
            (
                "unknown(list(any))",
                r#"tolist(["a"])"#,
                "unknown(bool){!null}",
            ),
            ("unknown(tuple([string]))", "[1]", "false"),
            ("null", "unknown(string)", "unknown(bool){!null}"),
            ("null(string)", "?", "unknown(bool){!null}"),
            (
                "sensitive(unknown(number))",
                "1",
                "sensitive(unknown(bool){!null})",
            ),
            // known values
            ("null(string)", "null(number)", "true"),
            ("null(string)", r#""""#, "false"),
            ("emptyset(string)", "emptyset(string)", "true"),
            ("{a = null(string)}", "{a = null(string)}", "true"),
            ("{a = null}", r#"{a = "x"}"#, "false"),
            ("tomap({a = 1})", "tomap({b = 1})", "false"),
            ("tomap({a = 1, b = 2})", "tomap({a = 1})", "false"),
            ("tomap({a = 1, b = 2})", "tomap({b = 2, a = 1})", "true"),
            (r#"toset(["a", "b"])"#, r#"toset(["a", "c"])"#, "false"),
            (r#""é""#, "\"e\u{301}\"", "true"),
            ("true", "false", "false"),
            ("0.1", "0.10", "true"),
            ("[[1, 2], {a = true}]", "[[1, 2], {a = true}]", "true"),
            ("[[1, 2], {a = true}]", "[[1, 2], {a = false}]", "false"),
            (
                "sensitive([1])",
                "ephemeral([1])",
                "sensitive(ephemeral(true))",
            ),
        ];
        for (a, b, expect) in cases {
            assert_eq!(render(&val(a).equals(&val(b))), *expect, "{a} == {b}");
        }
        assert_eq!(render(&val("1").not_equal(&val("2"))), "true");
        assert_eq!(
            render(&val("unknown(number)").not_equal(&val("2"))),
            "unknown(bool){!null}"
        );
        assert_eq!(
            render(&val("sensitive(1)").not_equal(&val("1"))),
            "sensitive(false)"
        );
    }

    #[test]
    fn raw_equals_table() {
        let cases: &[(&str, &str, bool)] = &[
            ("unknown(string)", "unknown(string)", true),
            ("unknown(string){!null}", "unknown(string)", false),
            (
                "unknown(number){!null, >=1}",
                "unknown(number){!null, >=1}",
                true,
            ),
            ("sensitive(1)", "1", false),
            ("sensitive(1)", "sensitive(1)", true),
            ("[sensitive(1)]", "[1]", false),
            ("1", "1.0", true),
            ("tolist([1])", "[1]", false),
            ("null(string)", "null(number)", false),
            ("null(string)", "null(string)", true),
            ("toset([1, 2])", "toset([2, 1])", true),
            ("?", "?", true),
            ("?", "null", false),
            ("{a = unknown(string)}", "{a = unknown(string)}", true),
            ("tomap({a = 1})", "tomap({a = 2})", false),
        ];
        for (a, b, expect) in cases {
            assert_eq!(val(a).raw_equals(&val(b)), *expect, "raw_equals({a}, {b})");
            assert_eq!(val(a) == val(b), *expect, "{a} == {b} (PartialEq)");
        }
    }

    #[test]
    fn logic_table() {
        type Op = fn(&Value, &Value) -> Result<Value, ValueError>;
        let and: Op = Value::and;
        let or: Op = Value::or;
        let cases: &[(&str, Op, &str, &str)] = &[
            ("true", and, "false", "false"),
            ("true", and, "true", "true"),
            ("false", or, "true", "true"),
            ("false", or, "false", "false"),
            ("unknown(bool)", and, "false", "false"),
            ("false", and, "?", "false"),
            ("unknown(bool)", or, "true", "true"),
            ("unknown(bool)", and, "true", "unknown(bool){!null}"),
            ("?", and, "true", "unknown(bool){!null}"),
            ("unknown(bool)", or, "false", "unknown(bool){!null}"),
            ("sensitive(true)", or, "false", "sensitive(true)"),
            ("sensitive(unknown(bool))", and, "false", "sensitive(false)"),
            (
                r#""a""#,
                and,
                "true",
                "error: type mismatch: want bool but value 0 is string",
            ),
            (
                "true",
                or,
                "1",
                "error: type mismatch: want bool but value 1 is number",
            ),
            (
                "null(bool)",
                and,
                "true",
                "error: argument must not be null",
            ),
            ("null", and, "true", "unknown(bool){!null}"),
        ];
        for (a, op, b, expect) in cases {
            assert_eq!(show(op(&val(a), &val(b))), *expect, "{a} op {b}");
        }
        let nots: &[(&str, &str)] = &[
            ("true", "false"),
            ("false", "true"),
            ("unknown(bool)", "unknown(bool){!null}"),
            ("?", "unknown(bool){!null}"),
            ("sensitive(true)", "sensitive(false)"),
            ("1", "error: type mismatch: want bool but value 0 is number"),
        ];
        for (a, expect) in nots {
            assert_eq!(show(val(a).not()), *expect, "!{a}");
        }
    }

    #[test]
    fn comparison_table() {
        type Op = fn(&Value, &Value) -> Result<Value, ValueError>;
        let lt: Op = Value::less_than;
        let le: Op = Value::less_than_or_equal_to;
        let gt: Op = Value::greater_than;
        let ge: Op = Value::greater_than_or_equal_to;
        let cases: &[(&str, Op, &str, &str)] = &[
            ("1", lt, "2", "true"),
            ("2", lt, "1", "false"),
            ("1", lt, "1", "false"),
            ("1", le, "1", "true"),
            ("1", ge, "2", "false"),
            ("2", gt, "1", "true"),
            ("-1e400", lt, "1e-400", "true"),
            ("unknown(number){>=5}", gt, "3", "true"),
            ("unknown(number){<=1}", gt, "3", "false"),
            ("unknown(number){>=5}", lt, "3", "false"),
            ("3", lt, "unknown(number){>=5}", "true"),
            ("unknown(number){>=0, <=10}", ge, "11", "false"),
            ("unknown(number){>=0, <=10}", le, "11", "true"),
            (
                "unknown(number){>=0, <=10}",
                le,
                "10",
                "unknown(bool){!null}",
            ),
            ("unknown(number){>=0}", ge, "0", "unknown(bool){!null}"),
            ("unknown(number)", lt, "1", "unknown(bool){!null}"),
            ("?", gt, "1", "unknown(bool){!null}"),
            (
                "unknown(number){>=1, <=2}",
                lt,
                "unknown(number){>=3}",
                "true",
            ),
            (
                "1",
                lt,
                r#""a""#,
                "error: type mismatch: want number but value 1 is string",
            ),
            ("sensitive(1)", lt, "2", "sensitive(true)"),
            (
                "1",
                ge,
                "sensitive(unknown(number))",
                "sensitive(unknown(bool){!null})",
            ),
            ("null(number)", lt, "1", "error: argument must not be null"),
        ];
        for (a, op, b, expect) in cases {
            assert_eq!(show(op(&val(a), &val(b))), *expect, "{a} cmp {b}");
        }
    }

    #[test]
    fn arithmetic_table() {
        type Op = fn(&Value, &Value) -> Result<Value, ValueError>;
        let add: Op = Value::add;
        let sub: Op = Value::subtract;
        let mul: Op = Value::multiply;
        let div: Op = Value::divide;
        let rem: Op = Value::modulo;
        let cases: &[(&str, Op, &str, &str)] = &[
            // tf
            ("1", add, "2", "3"),
            ("0.1", add, "0.2", "0.3"),
            ("7", div, "2", "3.5"),
            ("1", div, "0", "+Inf"),
            ("-1", div, "0", "-Inf"),
            ("5", rem, "0", "5"),
            ("-5", rem, "3", "-2"),
            ("5.5", rem, "2", "1.5"),
            ("-5.5", rem, "2", "-1.5"),
            ("5", rem, "-3", "2"),
            ("2", mul, "0.1", "0.2"),
            (
                "1",
                sub,
                "0.9",
                "0.10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000003",
            ),
            ("sensitive(1)", add, "1", "sensitive(2)"),
            ("unknown(number)", mul, "0", "unknown(number){!null}"),
            // NaN results
            ("0", div, "0", "error: can't divide zero by zero or infinity by infinity"),
            ("+Inf", sub, "+Inf", "error: can't subtract infinity from itself"),
            ("+Inf", add, "-Inf", "error: can't compute sum of opposing infinities"),
            ("0", mul, "+Inf", "error: can't multiply zero by infinity"),
            ("+Inf", rem, "5", "error: can't use modulo with zero and infinity"),
            ("5", rem, "+Inf", "error: can't use modulo with zero and infinity"),
            ("+Inf", rem, "0", "+Inf"),
            // refinements through interval arithmetic
            ("unknown(number)", add, "1", "unknown(number){!null}"),
            ("unknown(number){>=0}", add, "1", "unknown(number){!null, >=1}"),
            ("unknown(number){>=1, <=2}", mul, "unknown(number){>=3, <=4}", "unknown(number){!null, >=3, <=8}"),
            ("unknown(number){>=0, <=10}", sub, "5", "unknown(number){!null, >=-5, <=5}"),
            ("5", sub, "unknown(number){>=0, <=10}", "unknown(number){!null, >=-5, <=5}"),
            ("unknown(number){>=0}", mul, "0", "unknown(number){!null}"),
            ("unknown(number){>=0}", mul, "-1", "unknown(number){!null, <=-0}"),
            ("unknown(number){>=1, <=1}", add, "0", "1"),
            ("unknown(number){>0, <2}", add, "1", "unknown(number){!null, >=1, <=3}"),
            ("?", add, "1", "unknown(number){!null}"),
            ("unknown(number){>=1}", div, "2", "unknown(number){!null}"),
            ("unknown(number){>=1}", rem, "2", "unknown(number){!null}"),
            ("sensitive(unknown(number){>=1})", add, "1", "sensitive(unknown(number){!null, >=2})"),
            ("1", add, r#""2""#, "error: type mismatch: want number but value 1 is string"),
            ("null(number)", add, "1", "error: argument must not be null"),
        ];
        for (a, op, b, expect) in cases {
            assert_eq!(show(op(&val(a), &val(b))), *expect, "{a} op {b}");
        }
        type Unary = fn(&Value) -> Result<Value, ValueError>;
        let unary: &[(&str, Unary, &str)] = &[
            ("5", Value::negate, "-5"),
            ("-2.5", Value::absolute, "2.5"),
            (
                "unknown(number){>=1}",
                Value::negate,
                "unknown(number){!null}",
            ),
            (
                "unknown(number)",
                Value::absolute,
                "unknown(number){!null, >=0}",
            ),
            ("?", Value::absolute, "unknown(number){!null, >=0}"),
            ("sensitive(3)", Value::negate, "sensitive(-3)"),
            (
                r#""a""#,
                Value::negate,
                "error: type mismatch: want number but value 0 is string",
            ),
        ];
        for (a, op, expect) in unary {
            assert_eq!(show(op(&val(a))), *expect, "op {a}");
        }
    }

    #[test]
    fn length_table() {
        let cases: &[(&str, &str)] = &[
            ("tolist([1, 2])", "2"),
            ("[1, 2, 3]", "3"),
            ("tomap({a = 1})", "1"),
            ("{a = 1, b = 2}", "2"),
            ("emptyset(string)", "0"),
            (
                "unknown(list(string))",
                "unknown(number){!null, >=0, <=9223372036854775807}",
            ),
            (
                "unknown(list(string)){len>=1, len<=3}",
                "unknown(number){!null, >=1, <=3}",
            ),
            ("unknown(set(string)){len>=2, len<=2}", "2"),
            (
                r#"toset([unknown(string), "a"])"#,
                "unknown(number){!null, >=1, <=2}",
            ),
            ("toset([unknown(string)])", "1"),
            (
                r#"toset([{a = unknown(string)}, {a = "x"}])"#,
                "unknown(number){!null, >=1, <=2}",
            ),
            ("unknown(tuple([string]))", "1"),
            ("null(tuple([string, number]))", "2"),
            ("?", "unknown(number){!null, >=0, <=9223372036854775807}"),
            ("sensitive(tolist([1]))", "sensitive(1)"),
            (r#""abc""#, "error: value is not a collection"),
            ("null(list(string))", "error: value is null"),
            (
                "unknown(object({}))",
                "error: can't take the length of an unknown object",
            ),
        ];
        for (v, expect) in cases {
            assert_eq!(show(val(v).length()), *expect, "length({v})");
        }
        assert_eq!(
            val(r#"toset([unknown(string), "a"])"#).length_int(),
            Some(2)
        );
        assert_eq!(val("unknown(tuple([string]))").length_int(), Some(1));
        assert_eq!(val("unknown(list(string))").length_int(), None);
    }

    #[test]
    fn index_table() {
        let cases: &[(&str, &str, &str)] = &[
            (r#"tolist(["a", "b"])"#, "1", r#""b""#),
            (r#"[1, "x"]"#, "1", r#""x""#),
            ("tomap({a = 1})", r#""a""#, "1"),
            (
                "tomap({a = 1})",
                r#""b""#,
                r#"error: map has no element with key "b""#,
            ),
            (
                r#"tolist(["a"])"#,
                "1",
                "error: index 1 is out of range for 1 elements",
            ),
            (
                r#"tolist(["a"])"#,
                "-1",
                "error: element key for list must be non-negative integer",
            ),
            (
                r#"tolist(["a"])"#,
                "0.5",
                "error: element key for list must be non-negative integer",
            ),
            (
                r#"tolist(["a"])"#,
                r#""0""#,
                "error: element key for list must be number",
            ),
            (
                "tomap({a = 1})",
                "0",
                "error: element key for map must be string",
            ),
            ("unknown(list(string))", "0", "unknown(string)"),
            (r#"tolist(["a"])"#, "unknown(number)", "unknown(string)"),
            (r#"tolist(["a"])"#, "?", "unknown(string)"),
            ("unknown(map(bool))", r#""k""#, "unknown(bool)"),
            (r#"[1, "x"]"#, "unknown(number)", "?"),
            (r#"[1, "x"]"#, "?", "?"),
            ("unknown(tuple([number, string]))", "1", "unknown(string)"),
            ("[1]", "3", "error: tuple has no element with index 3"),
            ("?", "0", "?"),
            (r#"sensitive(tolist(["a"]))"#, "0", r#"sensitive("a")"#),
            (r#"tolist(["a"])"#, "sensitive(0)", r#"sensitive("a")"#),
            ("tomap({a = sensitive(1)})", r#""a""#, "sensitive(1)"),
            (r#""abc""#, "0", "error: not a list, map, or tuple type"),
            (
                r#"toset(["a"])"#,
                "0",
                "error: not a list, map, or tuple type",
            ),
        ];
        for (coll, key, expect) in cases {
            assert_eq!(show(val(coll).index(&val(key))), *expect, "{coll}[{key}]");
        }
    }

    #[test]
    fn get_attr_table() {
        let cases: &[(&str, &str, &str)] = &[
            ("{a = 1}", "a", "1"),
            (
                "{a = 1}",
                "b",
                r#"error: value has no attribute of that name ("b")"#,
            ),
            ("unknown(object({a=string})){!null}", "a", "unknown(string)"),
            ("?", "a", "?"),
            ("sensitive({a = 1})", "a", "sensitive(1)"),
            ("{a = sensitive(1)}", "a", "sensitive(1)"),
            ("tomap({a = 1})", "a", "error: value is not an object"),
            ("null(object({a=string}))", "a", "error: value is null"),
            ("{\"é\" = 1}", "e\u{301}", "1"),
        ];
        for (obj, name, expect) in cases {
            assert_eq!(show(val(obj).get_attr(name)), *expect, "{obj}.{name}");
        }
    }

    #[test]
    fn has_index_and_has_element_table() {
        let cases: &[(&str, &str, &str)] = &[
            ("tolist([1])", "0", "true"),
            ("tolist([1])", "1", "false"),
            ("tolist([1])", "-1", "false"),
            ("tolist([1])", "0.5", "false"),
            ("tolist([1])", r#""a""#, "false"),
            ("tomap({a = 1})", r#""a""#, "true"),
            ("tomap({a = 1})", r#""b""#, "false"),
            ("tomap({a = 1})", "1", "false"),
            ("[1, 2]", "1", "true"),
            ("[1, 2]", "2", "false"),
            ("unknown(list(string))", "0", "unknown(bool){!null}"),
            ("unknown(tuple([string]))", "0", "true"),
            ("tolist([1])", "unknown(number)", "unknown(bool){!null}"),
            ("tolist([1])", "?", "unknown(bool){!null}"),
            ("?", "0", "unknown(bool){!null}"),
            ("sensitive(tolist([1]))", "0", "sensitive(true)"),
            (r#""x""#, "0", "error: not a list, map, or tuple type"),
        ];
        for (coll, key, expect) in cases {
            assert_eq!(
                show(val(coll).has_index(&val(key))),
                *expect,
                "has_index({coll}, {key})"
            );
        }
        let cases: &[(&str, &str, &str)] = &[
            (r#"toset(["a"])"#, r#""a""#, "true"),
            (r#"toset(["a"])"#, r#""b""#, "false"),
            (r#"toset(["a"])"#, "1", "false"),
            ("unknown(set(string))", r#""a""#, "unknown(bool){!null}"),
            (r#"toset(["a", unknown(string)])"#, r#""b""#, "false"),
            (
                r#"toset(["a", unknown(string)])"#,
                "unknown(string)",
                "unknown(bool){!null}",
            ),
            (r#"toset([{a = 1}])"#, "{a = 1}", "true"),
            (r#"sensitive(toset(["a"]))"#, r#""a""#, "sensitive(true)"),
            (r#"tolist(["a"])"#, r#""a""#, "error: not a set type"),
            (
                "null(set(string))",
                r#""a""#,
                "error: can't call HasElement on a null value",
            ),
        ];
        for (set, elem, expect) in cases {
            assert_eq!(
                show(val(set).has_element(&val(elem))),
                *expect,
                "has_element({set}, {elem})"
            );
        }
    }

    #[test]
    fn element_iteration() {
        let cases: &[(&str, &str)] = &[
            (r#"tolist(["a", "b"])"#, r#"0="a" 1="b""#),
            (r#"[true, 2]"#, "0=true 1=2"),
            ("tomap({b = 1, a = 2})", r#""a"=2 "b"=1"#),
            ("{z = 1, a = null(string)}", r#""a"=null(string) "z"=1"#),
            (r#"toset(["b", "a"])"#, r#""a"="a" "b"="b""#),
            ("emptylist(string)", ""),
        ];
        for (v, expect) in cases {
            let v = val(v);
            let items: Vec<String> = v
                .elements()
                .map(|it| {
                    it.map(|(k, e)| format!("{}={}", render(&k), render(&e)))
                        .collect()
                })
                .unwrap_or_default();
            assert_eq!(items.join(" "), *expect);
        }
        for bad in [
            "sensitive(tolist([1]))",
            "unknown(list(string))",
            "null(list(string))",
            "1",
        ] {
            assert!(val(bad).elements().is_err(), "elements({bad}) must fail");
            assert!(
                !val(bad).can_iterate_elements()
                    || bad.starts_with("unknown")
                    || bad.starts_with("null")
            );
        }
    }

    /// Set order as Terraform prints sets (tf rows) and cty's rules beyond.
    #[test]
    fn set_order_table() {
        let cases: &[(&str, &str)] = &[
            // tf
            (
                r#"[tomap({b = 1}), tomap({a = 2})]"#,
                "toset([tomap({a = 2}), tomap({b = 1})])",
            ),
            (r#"["b", "B", "a", "é"]"#, r#"toset(["B", "a", "b", "é"])"#),
            (
                r#"[{a = "x\ny"}, {a = "x y"}]"#,
                r#"toset([{a = "x y"}, {a = "x\ny"}])"#,
            ),
            (
                "[{a = \"\u{ad}\"}, {a = \"z\"}]",
                r#"toset([{a = "\u00ad"}, {a = "z"}])"#,
            ),
            (
                r#"[{a = "é"}, {a = "z"}]"#,
                r#"toset([{a = "z"}, {a = "é"}])"#,
            ),
            (
                "[{a = true}, {a = false}]",
                "toset([{a = false}, {a = true}])",
            ),
            (
                "[{a = null(number)}, {a = 1}]",
                "toset([{a = 1}, {a = null(number)}])",
            ),
            (
                "[{a = 1.5}, {a = 1.25}, {a = 12345678901}, {a = -1}]",
                "toset([{a = -1}, {a = 12345678901}, {a = 1.25}, {a = 1.5}])",
            ),
            // known, then unknown (in insertion order), then null
            (
                r#"["b", null(string), unknown(string), "a"]"#,
                r#"toset(["a", "b", unknown(string), null(string)])"#,
            ),
            (
                r#"[unknown(string){!null}, unknown(string), "a"]"#,
                r#"toset(["a", unknown(string){!null}, unknown(string)])"#,
            ),
            (
                "[10, 9, -1, 1e20, 9]",
                "toset([-1, 9, 10, 100000000000000000000])",
            ),
            ("[null(number), null(number)]", "toset([null(number)])"),
            (
                "[{a = unknown(string)}, {a = unknown(string)}]",
                "toset([{a = unknown(string)}, {a = unknown(string)}])",
            ),
            (
                "[tolist([2]), tolist([1, 3]), emptylist(number)]",
                "toset([tolist([1, 3]), tolist([2]), emptylist(number)])",
            ),
            ("[0, -0]", "toset([-0, 0])"),
            ("[-0, 0]", "toset([-0, 0])"),
        ];
        for (elems, expect) in cases {
            let elems = val(elems)
                .as_elements()
                .map(<[Value]>::to_vec)
                .unwrap_or_default();
            let ety = elems[0].ty().clone();
            assert_eq!(render(&Value::set(ety, elems)), *expect);
        }
        // Marks on elements move to the set.
        let marked = vec![val(r#"sensitive("a")"#), val(r#""b""#)];
        assert_eq!(
            render(&Value::set(Type::String, marked)),
            r#"sensitive(toset(["a", "b"]))"#
        );
    }

    #[test]
    fn marks_at_a_path() {
        use crate::convert::PathStep as S;
        let v = val(
            r#"{a = {b = ["x", "y"]}, m = tomap({k = "v"}), s = toset(["z"]), n = null(string)}"#,
        );
        let at = |path: Vec<S>| render(&v.mark_at_path(&path, Marks::SENSITIVE));
        let attr = |n: &str| S::Attr(n.to_string());
        assert_eq!(
            at(vec![attr("a"), attr("b"), S::Index(Value::int(1))]),
            r#"{a = {b = ["x", sensitive("y")]}, m = tomap({k = "v"}), n = null(string), s = toset(["z"])}"#
        );
        assert_eq!(
            at(vec![attr("m"), S::Index(Value::string("k"))]),
            r#"{a = {b = ["x", "y"]}, m = tomap({k = sensitive("v")}), n = null(string), s = toset(["z"])}"#
        );
        // Into a set: the set; nowhere, or through a null: unchanged.
        assert_eq!(
            at(vec![attr("s"), S::Index(Value::string("z"))]),
            r#"{a = {b = ["x", "y"]}, m = tomap({k = "v"}), n = null(string), s = sensitive(toset(["z"]))}"#
        );
        assert_eq!(at(vec![attr("nope")]), render(&v));
        assert_eq!(at(vec![attr("n"), attr("deeper")]), render(&v));
    }

    #[test]
    fn replaces_at_a_path_keeping_the_marks_around() {
        use crate::convert::PathStep as S;
        let v = val(r#"sensitive({l = ["a", "b"], t = [1, "two"]})"#);
        let attr = |n: &str| S::Attr(n.to_string());
        let replaced = |path: Vec<S>, new: &str| {
            let new = val(new);
            render(&v.map_at_path(&path, |_| new))
        };
        assert_eq!(
            replaced(vec![attr("l"), S::Index(Value::int(0))], r#""x""#),
            r#"sensitive({l = ["x", "b"], t = [1, "two"]})"#
        );
        assert_eq!(
            replaced(vec![attr("t"), S::Index(Value::int(1))], r#""deux""#),
            r#"sensitive({l = ["a", "b"], t = [1, "deux"]})"#
        );
        // An index past the end leads nowhere.
        assert_eq!(
            replaced(vec![attr("l"), S::Index(Value::int(2))], r#""x""#),
            render(&v)
        );
    }
}
