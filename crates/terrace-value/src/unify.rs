//! Type unification with cty's rules (`convert.Unify`/`UnifyUnsafe`): the
//! single type a list of types can all be converted to, used for
//! collection literals, conditional results and conversions to types with
//! dynamic parts (`tolist(["a", 1])` is a list of string).

use crate::convert::{get_conversion, ConversionError};
use crate::types::Type;
use crate::value::Value;
use std::collections::BTreeMap;

/// The single type all of `types` can be converted to, if any (cty
/// `convert.UnifyUnsafe` when `allow_unsafe`, else `convert.Unify`).
pub fn unify(types: &[Type], allow_unsafe: bool) -> Option<Type> {
    unify_inner(types, allow_unsafe).map(|(t, _)| t)
}

/// How a value of one of the unified types reaches the unified type.
#[derive(Clone, Debug)]
pub(crate) enum UnifyConv {
    /// Already of the unified type.
    Same,
    /// cty's `GetConversion`/`GetConversionUnsafe` to the unified type.
    To(Type, bool),
    /// cty's `unifyAllAsDynamic`: any value becomes `Value::dynamic()`.
    Dynamic,
}

impl UnifyConv {
    pub(crate) fn apply(&self, v: &Value) -> Result<Value, ConversionError> {
        match self {
            UnifyConv::Same => Ok(v.clone()),
            UnifyConv::Dynamic => Ok(Value::dynamic()),
            UnifyConv::To(t, unsafe_) => match get_conversion(&v.ty, t, *unsafe_) {
                Some(conv) => conv(v, &mut Vec::new()),
                None if v.ty == *t => Ok(v.clone()),
                None => Err(ConversionError {
                    path: Vec::new(),
                    message: crate::convert::mismatch_message(&v.ty, t),
                }),
            },
        }
    }
}

type Unified = Option<(Type, Vec<UnifyConv>)>;

fn conversions_to(types: &[Type], target: &Type, unsafe_: bool) -> Option<Vec<UnifyConv>> {
    let mut convs = Vec::with_capacity(types.len());
    for ty in types {
        if ty == target {
            convs.push(UnifyConv::Same);
        } else if get_conversion(ty, target, unsafe_).is_some() {
            convs.push(UnifyConv::To(target.clone(), unsafe_));
        } else {
            return None;
        }
    }
    Some(convs)
}

pub(crate) fn unify_inner(types: &[Type], unsafe_: bool) -> Unified {
    if types.is_empty() {
        return None;
    }
    let n = types.len();
    // Types that are all the same unify to that type whatever its kind
    // (the rules below agree), and a large literal's elements mostly are:
    // said in one pass instead of the pairwise preference sort, which is
    // quadratic in the number of types.
    if types[1..].iter().all(|t| *t == types[0]) && !types[0].is_dynamic() {
        return Some((types[0].clone(), vec![UnifyConv::Same; n]));
    }
    let count = |f: fn(&Type) -> bool| types.iter().filter(|t| f(t)).count();
    let maps = count(Type::is_map);
    let lists = count(Type::is_list);
    let sets = count(Type::is_set);
    let objects = count(Type::is_object);
    let tuples = count(Type::is_tuple);
    let dynamics = count(Type::is_dynamic);

    // Kinds that agree may unify to a type none of the inputs has; this
    // must come first because unsafe conversion could otherwise pick an
    // object type that drops attributes.
    if maps > 0 && maps + dynamics == n {
        return unify_collection_types(Type::map, types, unsafe_, dynamics > 0);
    } else if maps > 0 && maps + objects + dynamics == n {
        if let Some(r) = unify_objects_as_maps(types, unsafe_) {
            return Some(r);
        }
    } else if lists > 0 && lists + dynamics == n {
        return unify_collection_types(Type::list, types, unsafe_, dynamics > 0);
    } else if lists > 0 && lists + tuples + dynamics == n {
        if let Some(r) = unify_tuples_as_list(types, unsafe_) {
            return Some(r);
        }
    } else if sets > 0 && sets + dynamics == n {
        return unify_collection_types(Type::set, types, unsafe_, dynamics > 0);
    } else if objects > 0 && objects + dynamics == n {
        return unify_object_types(types, unsafe_, dynamics > 0);
    } else if tuples > 0 && tuples + dynamics == n {
        return unify_tuple_types(types, unsafe_, dynamics > 0);
    } else if objects > 0 && tuples > 0 {
        return None;
    }

    // Otherwise the first type, in preference order, that every other
    // type converts to. Repeats of a type take no part in the order (two
    // types that can both be the answer are convertible to each other,
    // and those the preference always orders), so the order is made over
    // the distinct types when they are few: a large literal's elements
    // are many values of a few types.
    let mut distinct: Vec<&Type> = Vec::new();
    for t in types {
        if !distinct.contains(&t) {
            distinct.push(t);
            if distinct.len() > DISTINCT_TYPES_SORTED_ALONE {
                break;
            }
        }
    }
    let candidates: Vec<&Type> = if distinct.len() <= DISTINCT_TYPES_SORTED_ALONE {
        let owned: Vec<Type> = distinct.iter().map(|t| (*t).clone()).collect();
        sort_types(&owned)
            .into_iter()
            .map(|i| distinct[i])
            .collect()
    } else {
        sort_types(types).into_iter().map(|i| &types[i]).collect()
    };
    for want in candidates {
        if let Some(convs) = conversions_to(types, want, unsafe_) {
            return Some((want.clone(), convs));
        }
    }
    None
}

/// Up to how many distinct types the preference order is made over them
/// alone rather than over every type given.
const DISTINCT_TYPES_SORTED_ALONE: usize = 64;

fn unify_all_as_dynamic(types: &[Type]) -> Unified {
    Some((Type::Dynamic, vec![UnifyConv::Dynamic; types.len()]))
}

fn unify_collection_types(
    make: fn(Type) -> Type,
    types: &[Type],
    unsafe_: bool,
    has_dynamic: bool,
) -> Unified {
    if has_dynamic {
        return unify_all_as_dynamic(types);
    }
    let etys: Vec<Type> = types
        .iter()
        .filter_map(|t| t.element_type().cloned())
        .collect();
    let (ety, _) = unify_inner(&etys, unsafe_)?;
    let target = make(ety);
    let convs = conversions_to(types, &target, unsafe_)?;
    Some((target, convs))
}

fn unify_objects_as_maps(types: &[Type], unsafe_: bool) -> Unified {
    let objs: Vec<Type> = types.iter().filter(|t| t.is_object()).cloned().collect();
    let (map_ty, _) = unify_object_types_to_map(&objs, unsafe_)?;
    if !map_ty.is_map() {
        return None;
    }
    let mapped: Vec<Type> = types
        .iter()
        .map(|t| {
            if t.is_object() {
                map_ty.clone()
            } else {
                t.clone()
            }
        })
        .collect();
    let (new_ty, mut convs) = unify_inner(&mapped, unsafe_)?;
    if !new_ty.is_map() {
        return None;
    }
    // The objects reach the result through the intermediate map type; a
    // direct conversion to the final type gives the same values.
    for (i, t) in types.iter().enumerate() {
        if t.is_object() && *t != new_ty {
            convs[i] = UnifyConv::To(new_ty.clone(), unsafe_);
        }
    }
    Some((new_ty, convs))
}

fn unify_tuples_as_list(types: &[Type], unsafe_: bool) -> Unified {
    let tuples: Vec<Type> = types.iter().filter(|t| t.is_tuple()).cloned().collect();
    let (list_ty, _) = unify_tuple_types_to_list(&tuples, unsafe_)?;
    if !list_ty.is_list() {
        return None;
    }
    let listed: Vec<Type> = types
        .iter()
        .map(|t| {
            if t.is_tuple() {
                list_ty.clone()
            } else {
                t.clone()
            }
        })
        .collect();
    let (new_ty, mut convs) = unify_inner(&listed, unsafe_)?;
    if !new_ty.is_list() {
        return None;
    }
    for (i, t) in types.iter().enumerate() {
        if t.is_tuple() && *t != new_ty {
            convs[i] = UnifyConv::To(new_ty.clone(), unsafe_);
        }
    }
    Some((new_ty, convs))
}

fn unify_object_types(types: &[Type], unsafe_: bool, has_dynamic: bool) -> Unified {
    if has_dynamic {
        return unify_all_as_dynamic(types);
    }
    let attrs = |t: &Type| {
        t.object_type()
            .map(|o| o.attributes.clone())
            .unwrap_or_default()
    };
    let first = attrs(&types[0]);
    for t in &types[1..] {
        let these = attrs(t);
        if these.len() != first.len() || these.keys().any(|k| !first.contains_key(k)) {
            return unify_object_types_to_map(types, unsafe_);
        }
    }
    let mut ret = BTreeMap::new();
    for name in first.keys() {
        let across: Vec<Type> = types
            .iter()
            .filter_map(|t| t.attribute_type(name).cloned())
            .collect();
        let (aty, _) = unify_inner(&across, unsafe_)?;
        ret.insert(name.clone(), aty);
    }
    let target = Type::object(ret);
    match conversions_to(types, &target, unsafe_) {
        Some(convs) => Some((target, convs)),
        None => unify_object_types_to_map(types, unsafe_),
    }
}

fn unify_object_types_to_map(types: &[Type], unsafe_: bool) -> Unified {
    let atys: Vec<Type> = types
        .iter()
        .filter_map(Type::object_type)
        .flat_map(|o| o.attributes.values().cloned())
        .collect();
    let (ety, _) = unify_inner(&atys, unsafe_)?;
    let target = Type::map(ety);
    let convs = conversions_to(types, &target, unsafe_)?;
    Some((target, convs))
}

fn unify_tuple_types(types: &[Type], unsafe_: bool, has_dynamic: bool) -> Unified {
    if has_dynamic {
        return unify_all_as_dynamic(types);
    }
    let first_len = types[0].tuple_elements().map_or(0, <[Type]>::len);
    if types[1..]
        .iter()
        .any(|t| t.tuple_elements().map_or(0, <[Type]>::len) != first_len)
    {
        return unify_tuple_types_to_list(types, unsafe_);
    }
    let mut ret = Vec::with_capacity(first_len);
    for idx in 0..first_len {
        let across: Vec<Type> = types
            .iter()
            .filter_map(|t| t.tuple_elements().and_then(|e| e.get(idx)).cloned())
            .collect();
        let (ety, _) = unify_inner(&across, unsafe_)?;
        ret.push(ety);
    }
    let target = Type::tuple(ret);
    match conversions_to(types, &target, unsafe_) {
        Some(convs) => Some((target, convs)),
        None => unify_tuple_types_to_list(types, unsafe_),
    }
}

fn unify_tuple_types_to_list(types: &[Type], unsafe_: bool) -> Unified {
    let etys: Vec<Type> = types
        .iter()
        .filter_map(Type::tuple_elements)
        .flat_map(|e| e.iter().cloned())
        .collect();
    let (ety, _) = unify_inner(&etys, unsafe_)?;
    let target = Type::list(ety);
    let convs = conversions_to(types, &target, unsafe_)?;
    Some((target, convs))
}

/// cty's `compareTypes`: negative when `a` is the better unification
/// target (values of `b` can convert to it), positive for `b`, 0 when
/// neither is preferred.
fn compare_types(a: &Type, b: &Type) -> i32 {
    if a.is_dynamic() || b.is_dynamic() {
        return match (a.is_dynamic(), b.is_dynamic()) {
            (false, _) => -1,
            (_, false) => 1,
            _ => 0,
        };
    }
    if a.is_primitive() && b.is_primitive() && (*a == Type::String || *b == Type::String) {
        return match (*a == Type::String, *b == Type::String) {
            (false, _) => 1,
            (_, false) => -1,
            _ => 0,
        };
    }
    match (a, b) {
        (Type::List(x), Type::List(y))
        | (Type::Set(x), Type::Set(y))
        | (Type::Map(x), Type::Map(y)) => return compare_types(x, y),
        _ => {}
    }
    let (a, b, swap) = match (a, b) {
        (Type::Tuple(_), Type::List(_))
        | (Type::Object(_), Type::Map(_))
        | (Type::Set(_), Type::Tuple(_))
        | (Type::Set(_), Type::List(_)) => (b, a, -1),
        _ => (a, b, 1),
    };
    if b.is_set() && (a.is_tuple() || a.is_list()) {
        return -swap;
    }
    if a.is_list() && b.is_tuple() {
        return -swap;
    }
    if a.is_map() && b.is_object() {
        return -swap;
    }
    let pairs: Vec<(&Type, &Type)> = match (a, b) {
        (Type::Object(x), Type::Object(y)) => {
            if x.attributes.len() != y.attributes.len() {
                return 0;
            }
            let mut pairs = Vec::new();
            for (k, at) in &x.attributes {
                let Some(bt) = y.attributes.get(k) else {
                    return 0;
                };
                pairs.push((at, bt));
            }
            pairs
        }
        (Type::Tuple(x), Type::Tuple(y)) => {
            if x.len() != y.len() {
                return 0;
            }
            x.iter().zip(y.iter()).collect()
        }
        _ => return 0,
    };
    let mut a_super = false;
    let mut b_super = false;
    for (x, y) in pairs {
        match compare_types(x, y) {
            c if c < 0 => a_super = true,
            c if c > 0 => b_super = true,
            _ => {}
        }
    }
    match (a_super, b_super) {
        (true, true) | (false, false) => 0,
        (true, false) => -swap,
        (false, true) => swap,
    }
}

/// cty's `sortTypes`: a topological order of the indices by preference,
/// as Kahn's algorithm over `compare_types` edges. Like cty, indices left
/// out by a preference cycle come back as 0.
fn sort_types(types: &[Type]) -> Vec<usize> {
    let l = types.len();
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); l];
    for i in 0..l.saturating_sub(1) {
        for j in i + 1..l {
            let c = compare_types(&types[i], &types[j]);
            if c < 0 {
                edges[i].push(j);
            } else if c > 0 {
                edges[j].push(i);
            }
        }
    }
    let mut in_degree = vec![0usize; l];
    for outs in &edges {
        for &j in outs {
            in_degree[j] += 1;
        }
    }
    let mut order: Vec<usize> = (0..l).filter(|&i| in_degree[i] == 0).collect();
    let mut head = 0;
    while head < order.len() {
        let i = order[head];
        head += 1;
        for &j in &edges[i] {
            in_degree[j] -= 1;
            if in_degree[j] == 0 {
                order.push(j);
            }
        }
    }
    order.resize(l, 0);
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{render, ty, val};

    /// Rows marked tf match the type of a Terraform 1.11.4 conditional
    /// (`true ? a : b`), which unifies its two result types unsafely.
    #[test]
    fn many_equal_types_unify_to_that_type_in_one_pass() {
        let element = ty("object({name=string,n=number})");
        let types = vec![element.clone(); 20_000];
        let (unified, convs) = unify_inner(&types, false).expect("unifies");
        assert_eq!(unified, element);
        assert!(convs.iter().all(|c| matches!(c, UnifyConv::Same)));
        let mut mixed = types;
        mixed.push(ty("object({name=string,n=string})"));
        assert_eq!(
            unify(&mixed, false),
            Some(ty("object({name=string,n=string})"))
        );
    }

    #[test]
    fn unify_table() {
        let cases: &[(&[&str], bool, &str)] = &[
            // tf
            (&["number", "string"], true, "string"),
            (
                &["tuple([number])", "tuple([string])"],
                true,
                "tuple([string])",
            ),
            (
                &["object({a=number})", "object({b=number})"],
                true,
                "map(number)",
            ),
            (&["object({a=number})", "object({b=bool})"], true, "none"),
            (
                &["object({a=number})", "object({a=string})"],
                true,
                "object({a=string})",
            ),
            (
                &["tuple([number])", "tuple([number,number])"],
                true,
                "list(number)",
            ),
            (&["list(number)", "tuple([string])"], true, "list(string)"),
            (&["number", "bool"], true, "none"),
            (&["map(number)", "object({b=string})"], true, "map(string)"),
            (&["set(number)", "list(number)"], true, "list(number)"),
            (&["tuple([])", "list(string)"], true, "list(string)"),
            (&["any", "number"], true, "number"),
            // beyond
            (&["string", "number"], false, "string"),
            (&["string", "bool"], false, "string"),
            (&["string"], false, "string"),
            (&[], true, "none"),
            (&["list(string)", "list(number)"], true, "list(string)"),
            (&["list(number)", "list(bool)"], true, "none"),
            (&["list(string)", "any"], true, "any"),
            (&["set(string)", "set(number)"], true, "set(string)"),
            (&["map(string)", "map(number)", "any"], true, "any"),
            (&["object({a=string})", "any"], true, "any"),
            (&["tuple([string])", "any"], true, "any"),
            (&["any", "any"], true, "any"),
            (&["string", "any"], false, "any"),
            (&["string", "any"], true, "string"),
            (&["object({})", "tuple([])"], true, "none"),
            (&["string", "list(string)"], true, "none"),
            (
                &["object({a=string,b=number})", "object({a=string})"],
                true,
                "map(string)",
            ),
            (
                &["object({a=list(number)})", "object({a=tuple([string])})"],
                true,
                "object({a=list(string)})",
            ),
            (
                &["tuple([string,number])", "tuple([number,string])"],
                true,
                "tuple([string,string])",
            ),
            (&["list(string)", "set(string)"], false, "list(string)"),
            (&["object({a=number})", "map(string)"], false, "map(string)"),
            (&["number", "number", "bool"], true, "none"),
            (&["number", "string", "bool"], true, "string"),
        ];
        for (types, unsafe_, expect) in cases {
            let types: Vec<Type> = types.iter().map(|t| ty(t)).collect();
            let got = unify(&types, *unsafe_).map_or("none".to_string(), |t| t.type_string());
            assert_eq!(got, *expect, "unify({types:?}, unsafe={unsafe_})");
        }
    }

    #[test]
    fn unify_conversions_apply_to_values() {
        let values = [val("1"), val(r#""a""#), val("true")];
        let types: Vec<Type> = values.iter().map(|v| v.ty().clone()).collect();
        let (target, convs) = unify_inner(&types, true).expect("unifies");
        assert_eq!(target, Type::String);
        let converted: Vec<String> = values
            .iter()
            .zip(convs.iter())
            .map(|(v, c)| c.apply(v).map(|v| render(&v)).unwrap_or_default())
            .collect();
        assert_eq!(converted, [r#""1""#, r#""a""#, r#""true""#]);

        let values = [val("tolist([1])"), val("?")];
        let types: Vec<Type> = values.iter().map(|v| v.ty().clone()).collect();
        let (target, convs) = unify_inner(&types, true).expect("unifies");
        assert_eq!(target, Type::Dynamic);
        assert_eq!(render(&convs[0].apply(&values[0]).expect("converts")), "?");
    }

    #[test]
    fn sort_types_prefers_convertible_targets() {
        let cases: Vec<(Vec<Type>, Vec<usize>)> = vec![
            (vec![Type::Number, Type::String], vec![1, 0]),
            (vec![Type::String, Type::Number], vec![0, 1]),
            (vec![Type::Dynamic, Type::Bool], vec![1, 0]),
            (vec![Type::Number, Type::Bool], vec![0, 1]),
            (
                vec![Type::tuple(vec![Type::String]), Type::list(Type::String)],
                vec![1, 0],
            ),
            (
                vec![Type::list(Type::String), Type::set(Type::String)],
                vec![0, 1],
            ),
            (
                vec![
                    Type::object([("a".to_string(), Type::String)]),
                    Type::map(Type::String),
                ],
                vec![1, 0],
            ),
        ];
        for (types, want) in cases {
            assert_eq!(sort_types(&types), want, "sort_types({types:?})");
        }
    }
}
