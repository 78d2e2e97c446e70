//! Expansion of `count` and `for_each` into instance keys with their
//! repetition data, with OpenTofu's diagnostics for values that cannot
//! expand (unknown, null, sensitive, wrong type).

use crate::diagvals::CausedBy;
use crate::values::{EachKind, Repetition};
use terrace_addrs::InstanceKey;
use terrace_config::expr::Expression;
use terrace_lang::scope::Scope;
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::PRODUCT;
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::convert::convert;
use terrace_value::{Number, Type, Value};

pub(crate) type Expansion = (EachKind, Vec<(InstanceKey, Repetition)>);

fn error(summary: &str, detail: String, e: &Expression) -> Diagnostic {
    Diagnostic::error(summary, detail).with_subject(e.range())
}

/// Expands `count`/`for_each` (at most one is set) evaluated in `scope`.
pub(crate) fn expand(
    scope: &dyn Scope,
    count: Option<&Expression>,
    for_each: Option<&Expression>,
) -> Result<Expansion, Diagnostics> {
    if let Some(e) = count {
        return expand_count(scope, e);
    }
    if let Some(e) = for_each {
        return expand_for_each(scope, e);
    }
    Ok((
        EachKind::Single,
        vec![(InstanceKey::None, Repetition::default())],
    ))
}

/// What `validate` can tell of `count`/`for_each` before any value is
/// known: whether the value's type could ever serve, as terraform's
/// validate checks it (a list for `for_each`, a bool for `count`, even
/// from a variable whose value is not known yet).
pub(crate) fn validate_repetition(
    scope: &dyn Scope,
    count: Option<&Expression>,
    for_each: Option<&Expression>,
) -> Diagnostics {
    let mut diags = Diagnostics::new();
    if let Some(e) = count {
        let (v, d) = e.evaluate(scope);
        let failed = has_errors(&d);
        diags.extend(d);
        let ty = v.ty().clone();
        if !failed && convert(&Value::unknown(ty), &Type::Number).is_err() {
            let mut d = error(
                "Incorrect value type",
                "Invalid expression value: number required.".into(),
                e,
            );
            d.expression_values = crate::diagvals::expression_values(e, scope);
            diags.push(d);
        } else if !failed && v.is_known() {
            // A count known already is checked as planning checks it
            // (null, negative, fractional), as terraform's validate does.
            if let Err(d) = expand_count(scope, e) {
                diags.extend(d.into_iter().filter(Diagnostic::is_error));
            }
        }
    }
    if let Some(e) = for_each {
        let (v, d) = e.evaluate(scope);
        let failed = has_errors(&d);
        diags.extend(d);
        let ty = v.ty().clone();
        // Beyond terraform's validate, a set whose elements can never be
        // strings is refused here too, not only once its value is known.
        let set_element = ty.is_set().then(|| ty.element_type().cloned()).flatten();
        let detail = if failed || ty.is_dynamic() || ty.is_map() || ty.is_object() {
            None
        } else if let Some(element) = set_element {
            (element != Type::String && !element.is_dynamic()).then(|| format!("The given \"for_each\" argument value is unsuitable: \"for_each\" supports sets of strings, but you have provided a set containing type {}.", element.friendly_name()))
        } else if ty.is_set() {
            None
        } else {
            Some(format!("The given \"for_each\" argument value is unsuitable: the \"for_each\" argument must be a map, or set of strings, and you have provided a value of type {}.", ty.friendly_name()))
        };
        if let Some(detail) = detail {
            let mut d = error("Invalid for_each argument", detail, e);
            d.expression_values = crate::diagvals::expression_values(e, scope);
            diags.push(d);
        }
    }
    diags
}

fn expand_count(scope: &dyn Scope, e: &Expression) -> Result<Expansion, Diagnostics> {
    let (v, mut diags) = e.evaluate(scope);
    if has_errors(&diags) {
        return Err(diags);
    }
    let (v, marks) = v.unmark_deep();
    if marks.is_ephemeral() {
        diags.push(error("Invalid count argument", format!("The given \"count\" is derived from an ephemeral value, which means that {PRODUCT} cannot persist it between plan/apply rounds. Use only non-ephemeral values to specify the number of resource instances."), e));
        return Err(diags);
    }
    let v = match convert(&v, &Type::Number) {
        Ok(v) => v,
        Err(err) => {
            diags.push(error(
                "Incorrect value type",
                format!("Invalid expression value: {err}."),
                e,
            ));
            return Err(diags);
        }
    };
    if v.is_null() {
        diags.push(error(
            "Invalid count argument",
            "The given \"count\" argument value is null. An integer is required.".into(),
            e,
        ));
        return Err(diags);
    }
    if !v.is_known() {
        diags.push(error("Invalid count argument", format!("The \"count\" value depends on resource attributes that cannot be determined until apply, so {PRODUCT} cannot predict how many instances will be created.\n\nTo work around this, use the -target argument to first apply only the resources that the count depends on."), e));
        return Err(diags);
    }
    let n = v
        .as_number()
        .cloned()
        .unwrap_or_else(|| Number::from_i64(0));
    let Some(count) = n.to_i64().filter(|_| n.is_integer()) else {
        diags.push(error("Invalid count argument", "The given \"count\" argument value is unsuitable: value must be a whole number, between -9223372036854775808 and 9223372036854775807.".into(), e));
        return Err(diags);
    };
    if count > i64::from(i32::MAX) {
        diags.push(error("Invalid count argument", format!("The given \"count\" argument value is unsuitable: must be less than or equal to {}.", i32::MAX), e));
        return Err(diags);
    }
    if count < 0 {
        diags.push(error("Invalid count argument", "The given \"count\" argument value is unsuitable: must be greater than or equal to zero.".into(), e));
        return Err(diags);
    }
    let insts = (0..count)
        .map(|i| {
            (
                InstanceKey::Int(i),
                Repetition {
                    count_index: Some(Value::int(i)),
                    ..Repetition::default()
                },
            )
        })
        .collect();
    Ok((EachKind::Count, insts))
}

fn expand_for_each(scope: &dyn Scope, e: &Expression) -> Result<Expansion, Diagnostics> {
    let (v, mut diags) = e.evaluate(scope);
    if has_errors(&diags) {
        return Err(diags);
    }
    // Each refusal shows the values of the expression's references, as
    // terraform's do.
    let invalid_for = |detail: String, caused: CausedBy| {
        let mut d = error("Invalid for_each argument", detail, e);
        d.expression_values = crate::diagvals::expression_values_caused_by(e, scope, caused);
        d
    };
    let invalid = |detail: String| invalid_for(detail, CausedBy::default());
    let ty = v.ty().clone();
    let unknown_detail = terrace_config::loader::unknown_for_each_detail(&ty);
    if !(ty.is_map() || ty.is_object() || ty.is_set() || ty.is_dynamic()) {
        diags.push(invalid(format!("The given \"for_each\" argument value is unsuitable: the \"for_each\" argument must be a map, or set of strings, and you have provided a value of type {}.", ty.friendly_name())));
        return Err(diags);
    }
    if !v.is_wholly_known() && (!v.is_known() || !ty.is_map() && !ty.is_object()) {
        let suggestion = "Alternatively, you could use the -target planning option to first apply only the resources that the for_each value depends on, and then apply a second time to fully converge.";
        diags.push(invalid_for(
            format!("{unknown_detail}{suggestion}"),
            CausedBy {
                unknown: true,
                ..CausedBy::default()
            },
        ));
        return Err(diags);
    }
    if v.is_null() {
        diags.push(invalid("The given \"for_each\" argument value is unsuitable: the given \"for_each\" argument value is null. A map, or set of strings is allowed.".into()));
        return Err(diags);
    }
    if v.is_marked() && v.marks().is_sensitive() {
        diags.push(invalid_for(
            "Sensitive values, or values derived from sensitive values, cannot be used as for_each arguments. If used, the sensitive value could be exposed as a resource instance key.".into(),
            CausedBy {
                sensitive: true,
                ..CausedBy::default()
            },
        ));
        return Err(diags);
    }
    if v.is_marked() && v.marks().is_ephemeral() {
        let mut d = error("Invalid for_each argument", format!("The given \"for_each\" value is derived from an ephemeral value, which means that {PRODUCT} cannot persist it between plan/apply rounds. Use only non-ephemeral values to specify a resource's instance keys."), e);
        d.expression_values = crate::diagvals::expression_values_naming_ephemeral(e, scope);
        diags.push(d);
        return Err(diags);
    }
    let mut insts = Vec::new();
    if ty.is_set() {
        let ety = ty.element_type().cloned().unwrap_or(Type::Dynamic);
        if ety != Type::String && !ety.is_dynamic() {
            diags.push(invalid(format!("The given \"for_each\" argument value is unsuitable: \"for_each\" supports sets of strings, but you have provided a set containing type {}.", ety.friendly_name())));
            return Err(diags);
        }
        for el in v.as_elements().unwrap_or_default() {
            if el.is_null() {
                diags.push(invalid("The given \"for_each\" argument value is unsuitable: \"for_each\" sets must not contain null values.".into()));
                return Err(diags);
            }
            let Some(s) = el.as_str() else { continue };
            let key = InstanceKey::string(s);
            insts.push((key.clone(), Repetition::for_key(&key, Some(el.clone()))));
        }
    } else if let Some(attrs) = v.as_attributes() {
        for (k, val) in attrs.iter() {
            let key = InstanceKey::string(k);
            insts.push((key.clone(), Repetition::for_key(&key, Some(val.clone()))));
        }
    }
    Ok((EachKind::ForEach, insts))
}
