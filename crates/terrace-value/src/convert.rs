//! Type conversion with cty's rules (`cty/convert`): safe conversions always
//! succeed for any value of the source type; unsafe ones (string to number
//! or bool, list to set, map to object) may fail for some values. `convert`
//! allows both, as Terraform's type constraints and `tolist`/`tomap`/... do.
//!
//! As in cty, whether a conversion exists is decided from the two types
//! alone (`get_conversion`); the conversion is then run on the value and
//! may still fail, with the path to the failing element. Error texts are
//! cty's (go-cty v1.16.0, as in Terraform 1.11), and `mismatch_message`
//! explains a missing conversion the way Terraform reports it.

use crate::number::Number;
use crate::refine::ValueRange;
use crate::types::Type;
use crate::unify::unify_inner;
use crate::value::{Repr, Value};
use std::collections::{BTreeMap, HashMap};
use std::fmt;

pub use crate::defaults::{apply_defaults, TypeDefaults};
pub use crate::unify::unify;

/// One step of a path into a value, for error messages like cty's
/// `.a[0]: a number is required`.
#[derive(Clone, Debug)]
pub enum PathStep {
    Attr(String),
    /// An index into a list, tuple, set or map (the key as a value).
    Index(Value),
}

#[derive(Clone, Debug)]
pub struct ConversionError {
    /// Where in the value the conversion failed; empty when the types
    /// themselves do not convert.
    pub path: Vec<PathStep>,
    /// cty's message without the path, e.g. `a number is required`.
    pub message: String,
}

impl ConversionError {
    fn at(path: &[PathStep], message: impl Into<String>) -> ConversionError {
        ConversionError {
            path: path.to_vec(),
            message: message.into(),
        }
    }
}

/// A path in HCL-like syntax as Terraform shows it before a conversion
/// error (`tfdiags.FormatCtyPath`): `.a`, `[0]`, `["key"]`.
pub fn format_path(path: &[PathStep]) -> String {
    let mut s = String::new();
    for step in path {
        match step {
            PathStep::Attr(name) => {
                s.push('.');
                s.push_str(name);
            }
            PathStep::Index(key) => {
                s.push('[');
                if key.is_null() {
                    s.push_str("null");
                } else if !key.is_known() {
                    s.push_str("(not yet known)");
                } else if let Some(n) = key.as_number() {
                    s.push_str(&n.text('g', -1));
                } else if let Some(k) = key.as_str() {
                    s.push_str(&crate::gostr::quote(k));
                } else {
                    s.push_str("...");
                }
                s.push(']');
            }
        }
    }
    s
}

impl fmt::Display for ConversionError {
    /// As Terraform renders a cty path error (`tfdiags.FormatError`): the
    /// path, a colon, then the message; just the message at the root.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", format_path(&self.path), self.message)
        }
    }
}

impl std::error::Error for ConversionError {}

/// Converts `value` to `want`, allowing unsafe conversions (cty
/// `convert.Convert`). Marks are preserved; unknowns convert to unknowns of
/// the target type; `want` may contain `Dynamic` and optional attributes.
pub fn convert(value: &Value, want: &Type) -> Result<Value, ConversionError> {
    if conforms(&value.ty, want) || value.ty == want.without_optional_attributes() {
        return Ok(value.clone());
    }
    match get_conversion(&value.ty, want, true) {
        Some(conv) => conv(value, &mut Vec::new()),
        None => Err(ConversionError {
            path: Vec::new(),
            message: mismatch_message(&value.ty, want),
        }),
    }
}

/// Like `convert` but allowing only safe conversions (cty
/// `GetConversion`); None when no safe conversion exists between the types.
pub fn convert_safe(value: &Value, want: &Type) -> Option<Result<Value, ConversionError>> {
    if conforms(&value.ty, want) || value.ty == want.without_optional_attributes() {
        return Some(Ok(value.clone()));
    }
    let conv = get_conversion(&value.ty, want, false)?;
    Some(conv(value, &mut Vec::new()))
}

/// Whether converting a value of type `have` to `want` gives the value
/// back unchanged: the types are equal, or `want` differs only by
/// `dynamic` where `have` has a concrete type, inside objects and tuples
/// with the same attributes (none optional) or the same length. Collection
/// element types must be equal: a collection conversion may unify its
/// elements. This is the common case of a value read from a state or made
/// by an expression meeting a schema type with dynamic attributes, and
/// taking it here saves building a conversion and a copy of the value per
/// instance.
fn conforms(have: &Type, want: &Type) -> bool {
    if have == want {
        return true;
    }
    match (have, want) {
        (_, Type::Dynamic) => true,
        (Type::Object(h), Type::Object(w)) => {
            w.optional.is_empty()
                && h.attributes.len() == w.attributes.len()
                && h.attributes
                    .iter()
                    .zip(&w.attributes)
                    .all(|((hn, ht), (wn, wt))| hn == wn && conforms(ht, wt))
        }
        (Type::Tuple(h), Type::Tuple(w)) => {
            h.len() == w.len() && h.iter().zip(w.iter()).all(|(ht, wt)| conforms(ht, wt))
        }
        _ => false,
    }
}

/// Whether values of type `from` can be converted to `to` (cty's
/// `GetConversion`/`GetConversionUnsafe` returning non-nil). A type does not
/// "convert" to itself unless `to` has dynamic parts: callers check
/// equality first, as cty's do.
pub fn can_convert(from: &Type, to: &Type, allow_unsafe: bool) -> bool {
    get_conversion(from, to, allow_unsafe).is_some()
}

pub(crate) type Conv = Box<dyn Fn(&Value, &mut Vec<PathStep>) -> Result<Value, ConversionError>>;

/// cty's `getConversion`: the type-level conversion, wrapped to handle
/// marks, unknowns and nulls the same way at every level.
pub(crate) fn get_conversion(in_ty: &Type, out: &Type, unsafe_: bool) -> Option<Conv> {
    let conv = get_conversion_known(in_ty, out, unsafe_)?;
    let out = out.clone();
    Some(Box::new(move |v, path| {
        run_conversion(&conv, &out, v, path)
    }))
}

fn run_conversion(
    conv: &Conv,
    out: &Type,
    v: &Value,
    path: &mut Vec<PathStep>,
) -> Result<Value, ConversionError> {
    if v.is_marked() {
        let (v, marks) = v.clone().unmark();
        return Ok(run_conversion(conv, out, &v, path)?.mark(marks));
    }
    if out.is_dynamic() {
        return Ok(v.clone());
    }
    if !v.is_known() || v.is_null() {
        let target = dynamic_replace(&v.ty, &out.without_optional_attributes());
        if !v.is_known() {
            return Ok(prepare_unknown_result(&v.range(), target));
        }
        return Ok(Value::null(target));
    }
    conv(v, path)
}

fn get_conversion_known(in_ty: &Type, out: &Type, unsafe_: bool) -> Option<Conv> {
    match (in_ty, out) {
        (_, Type::Dynamic) => Some(Box::new(|v, _| Ok(v.clone()))),
        (Type::Dynamic, _) if unsafe_ => Some(dynamic_fixup(out.clone())),
        _ if in_ty.is_primitive() && out.is_primitive() => {
            primitive_conversion(in_ty, out, unsafe_)
        }
        (Type::Object(_), Type::Object(_)) => conversion_object_to_object(in_ty, out, unsafe_),
        (Type::Tuple(_), Type::Tuple(_)) => conversion_tuple_to_tuple(in_ty, out, unsafe_),
        (Type::List(in_ety) | Type::Set(in_ety), Type::List(out_ety)) => {
            if in_ety == out_ety {
                return Some(conversion_collection_to_list((**out_ety).clone(), None));
            }
            let conv = get_conversion(in_ety, out_ety, unsafe_)?;
            Some(conversion_collection_to_list(
                (**out_ety).clone(),
                Some(conv),
            ))
        }
        (Type::List(in_ety) | Type::Set(in_ety), Type::Set(out_ety)) => {
            if in_ty.is_list() && !unsafe_ {
                return None;
            }
            if in_ety == out_ety {
                return Some(conversion_collection_to_set((**out_ety).clone(), None));
            }
            let conv = get_conversion(in_ety, out_ety, unsafe_)?;
            Some(conversion_collection_to_set(
                (**out_ety).clone(),
                Some(conv),
            ))
        }
        (Type::Map(in_ety), Type::Map(out_ety)) => {
            let conv = get_conversion(in_ety, out_ety, unsafe_)?;
            Some(conversion_collection_to_map((**out_ety).clone(), conv))
        }
        (Type::Tuple(_), Type::List(out_ety)) => conversion_tuple_to_list(in_ty, out_ety, unsafe_),
        (Type::Tuple(_), Type::Set(out_ety)) => conversion_tuple_to_set(in_ty, out_ety, unsafe_),
        (Type::Object(_), Type::Map(out_ety)) => conversion_object_to_map(in_ty, out_ety, unsafe_),
        (Type::Map(_), Type::Object(_)) => {
            if !unsafe_ {
                return None;
            }
            conversion_map_to_object(in_ty, out, unsafe_)
        }
        _ => None,
    }
}

fn dynamic_fixup(want: Type) -> Conv {
    Box::new(move |v, path| {
        convert(v, &want).map_err(|e| {
            let mut full = path.clone();
            full.extend(e.path);
            ConversionError {
                path: full,
                message: e.message,
            }
        })
    })
}

fn primitive_conversion(in_ty: &Type, out: &Type, unsafe_: bool) -> Option<Conv> {
    match (in_ty, out) {
        (Type::Number, Type::String) => Some(Box::new(|v, path| {
            let n = v
                .as_number()
                .ok_or_else(|| ConversionError::at(path, "a number is required"))?;
            Ok(Value::string(n.text('f', -1)))
        })),
        (Type::Bool, Type::String) => Some(Box::new(|v, path| match v.as_bool() {
            Some(true) => Ok(Value::string("true")),
            Some(false) => Ok(Value::string("false")),
            None => Err(ConversionError::at(path, "a bool is required")),
        })),
        (Type::String, Type::Number) if unsafe_ => Some(Box::new(|v, path| {
            v.as_str()
                .and_then(Number::parse)
                .map(Value::number)
                .ok_or_else(|| ConversionError::at(path, "a number is required"))
        })),
        (Type::String, Type::Bool) if unsafe_ => {
            Some(Box::new(|v, path| {
                let s = v.as_str().unwrap_or_default();
                match s {
                "true" | "1" => Ok(Value::bool(true)),
                "false" | "0" => Ok(Value::bool(false)),
                _ => Err(ConversionError::at(
                    path,
                    match s.to_lowercase().as_str() {
                        "true" => "a bool is required; to convert from string, use lowercase \"true\"",
                        "false" => "a bool is required; to convert from string, use lowercase \"false\"",
                        _ => "a bool is required",
                    },
                )),
            }
            }))
        }
        _ => None,
    }
}

/// cty sets the type of a converted null element to its own type without
/// optional attributes; this keeps the element's marks, which cty drops at
/// that point, because terrace promises marks survive conversion.
fn renull(v: Value) -> Value {
    if v.is_null() {
        let marks = v.marks();
        Value::null(v.ty.without_optional_attributes()).mark(marks)
    } else {
        v
    }
}

fn index_step(i: usize) -> PathStep {
    PathStep::Index(Value::int(i as i64))
}

fn conversion_collection_to_list(ety: Type, conv: Option<Conv>) -> Conv {
    Box::new(move |val, path| {
        let in_ety = val.ty.element_type().cloned().unwrap_or(Type::Dynamic);
        if !val.length().is_ok_and(|l| l.is_known()) {
            return Ok(Value::unknown(Type::list(in_ety)));
        }
        let mut elems = Vec::new();
        for (i, (_, e)) in iterate(val, path)?.into_iter().enumerate() {
            path.push(index_step(i));
            let e = match &conv {
                Some(c) => c(&e, path)?,
                None => e,
            };
            path.pop();
            elems.push(renull(e));
        }
        if elems.is_empty() {
            let ety = if ety.is_dynamic() {
                in_ety
            } else {
                ety.without_optional_attributes()
            };
            return Ok(Value::list(ety, Vec::new()));
        }
        list_val(elems).ok_or_else(|| {
            ConversionError::at(path, "element types must all match for conversion to list")
        })
    })
}

fn conversion_collection_to_set(ety: Type, conv: Option<Conv>) -> Conv {
    Box::new(move |val, path| {
        let in_ety = val.ty.element_type().cloned().unwrap_or(Type::Dynamic);
        let mut elems = Vec::new();
        for (i, (_, e)) in iterate(val, path)?.into_iter().enumerate() {
            path.push(index_step(i));
            let e = match &conv {
                Some(c) => c(&e, path)?,
                None => e,
            };
            path.pop();
            elems.push(renull(e));
        }
        if elems.is_empty() {
            let ety = if ety.is_dynamic() {
                in_ety
            } else {
                ety.without_optional_attributes()
            };
            return Ok(Value::set(ety, Vec::new()));
        }
        set_val(elems).ok_or_else(|| {
            ConversionError::at(path, "element types must all match for conversion to set")
        })
    })
}

fn conversion_collection_to_map(ety: Type, conv: Conv) -> Conv {
    Box::new(move |val, path| {
        let in_ety = val.ty.element_type().cloned().unwrap_or(Type::Dynamic);
        let mut elems = BTreeMap::new();
        for (key, e) in iterate(val, path)? {
            path.push(PathStep::Index(key.clone()));
            let Some(k) = key.as_str().map(str::to_string) else {
                return Err(ConversionError::at(
                    path,
                    format!(
                        "cannot convert key type {} to string for map",
                        key.ty.friendly_name()
                    ),
                ));
            };
            let e = conv(&e, path)?;
            path.pop();
            elems.insert(k, e);
        }
        if elems.is_empty() {
            let ety = if ety.is_dynamic() {
                in_ety
            } else {
                ety.without_optional_attributes()
            };
            return Ok(Value::map(ety, BTreeMap::new()));
        }
        if ety.is_collection() || ety.is_object() {
            elems = unify_collection_elements(elems, path, false)?;
        }
        map_val(elems).ok_or_else(|| {
            ConversionError::at(path, "element types must all match for conversion to map")
        })
    })
}

fn conversion_tuple_to_set(tuple_ty: &Type, set_ety: &Type, unsafe_: bool) -> Option<Conv> {
    let etys = tuple_ty.tuple_elements().unwrap_or(&[]).to_vec();
    if etys.is_empty() {
        let ety = set_ety.without_optional_attributes();
        return Some(Box::new(move |_, _| {
            Ok(Value::set(ety.clone(), Vec::new()))
        }));
    }
    let set_ety = if set_ety.is_dynamic() {
        let unified = unify_inner(&etys, unsafe_)?.0;
        if unified.is_dynamic() && etys.iter().any(|t| !t.is_dynamic()) {
            return None;
        }
        unified
    } else {
        set_ety.clone()
    };
    let convs = element_conversions(&etys, &set_ety, unsafe_)?;
    Some(Box::new(move |val, path| {
        let mut elems = Vec::new();
        for (i, (_, e)) in iterate(val, path)?.into_iter().enumerate() {
            path.push(index_step(i));
            let e = match convs.get(i) {
                Some(Some(c)) => c(&e, path)?,
                _ => e,
            };
            path.pop();
            elems.push(renull(e));
        }
        set_val(elems).ok_or_else(|| {
            ConversionError::at(path, "element types must all match for conversion to set")
        })
    }))
}

fn conversion_tuple_to_list(tuple_ty: &Type, list_ety: &Type, unsafe_: bool) -> Option<Conv> {
    let etys = tuple_ty.tuple_elements().unwrap_or(&[]).to_vec();
    if etys.is_empty() {
        let ety = list_ety.without_optional_attributes();
        return Some(Box::new(move |_, _| {
            Ok(Value::list(ety.clone(), Vec::new()))
        }));
    }
    let list_ety = if list_ety.is_dynamic() {
        let unified = unify_inner(&etys, unsafe_)?.0;
        if unified.is_dynamic() && etys.iter().any(|t| !t.is_dynamic()) {
            return None;
        }
        unified
    } else {
        list_ety.clone()
    };
    let convs = element_conversions(&etys, &list_ety, unsafe_)?;
    Some(Box::new(move |val, path| {
        let mut elems = Vec::new();
        let items = iterate(val, path)?;
        let count = items.len();
        for (i, (_, e)) in items.into_iter().enumerate() {
            path.push(index_step(i));
            let e = match convs.get(i) {
                Some(Some(c)) => c(&e, path)?,
                _ => e,
            };
            path.pop();
            elems.push(e);
        }
        // cty unifies under the path of the last element (a quirk kept so
        // error paths match).
        path.push(index_step(count.saturating_sub(1)));
        let elems = unify_list_elements(elems, path, unsafe_)?;
        path.pop();
        list_val(elems).ok_or_else(|| {
            ConversionError::at(path, "element types must all match for conversion to list")
        })
    }))
}

/// Per-element conversions to `target`, None where the type already matches;
/// None overall when some element type cannot convert.
fn element_conversions(etys: &[Type], target: &Type, unsafe_: bool) -> Option<Vec<Option<Conv>>> {
    let mut convs = Vec::with_capacity(etys.len());
    for ety in etys {
        if ety == target {
            convs.push(None);
        } else {
            convs.push(Some(get_conversion(ety, target, unsafe_)?));
        }
    }
    Some(convs)
}

fn conversion_object_to_map(obj_ty: &Type, map_ety: &Type, unsafe_: bool) -> Option<Conv> {
    let atys = obj_ty
        .object_type()
        .map(|o| o.attributes.clone())
        .unwrap_or_default();
    if atys.is_empty() {
        let ety = map_ety.without_optional_attributes();
        return Some(Box::new(move |_, _| {
            Ok(Value::map(ety.clone(), BTreeMap::new()))
        }));
    }
    let map_ety = if map_ety.is_dynamic() {
        let types: Vec<Type> = atys.values().cloned().collect();
        unify_inner(&types, unsafe_)?.0
    } else {
        map_ety.clone()
    };
    let mut convs: HashMap<String, Conv> = HashMap::new();
    for (name, aty) in &atys {
        if *aty != map_ety {
            convs.insert(name.clone(), get_conversion(aty, &map_ety, unsafe_)?);
        }
    }
    Some(Box::new(move |val, path| {
        let mut elems = BTreeMap::new();
        for (name, e) in iterate(val, path)? {
            let key = name.as_str().unwrap_or_default().to_string();
            path.push(PathStep::Index(name.clone()));
            let e = match convs.get(&key) {
                Some(c) => c(&e, path)?,
                None => e,
            };
            path.pop();
            elems.insert(key, e);
        }
        if map_ety.is_collection() || map_ety.is_object() {
            elems = unify_collection_elements(elems, path, unsafe_)?;
        }
        map_val(elems).ok_or_else(|| {
            ConversionError::at(path, "attribute types must all match for conversion to map")
        })
    }))
}

fn conversion_map_to_object(map_ty: &Type, obj_ty: &Type, unsafe_: bool) -> Option<Conv> {
    let obj = obj_ty.object_type()?.clone();
    let map_ety = map_ty.element_type()?.clone();
    // An entry with no conversion marks an optional attribute whose type the
    // map's elements cannot convert to: fine when absent, an error if given.
    let mut convs: HashMap<String, Option<Conv>> = HashMap::new();
    for (name, aty) in &obj.attributes {
        if *aty == map_ety {
            continue;
        }
        match get_conversion(&map_ety, aty, unsafe_) {
            Some(c) => {
                convs.insert(name.clone(), Some(c));
            }
            None if obj.optional.contains(name) && unsafe_ => {
                convs.insert(name.clone(), None);
            }
            None => return None,
        }
    }
    Some(Box::new(move |val, path| {
        let mut elems = BTreeMap::new();
        for (name, e) in iterate(val, path)? {
            let key = name.as_str().unwrap_or_default().to_string();
            let Some(aty) = obj.attributes.get(&key) else {
                continue;
            };
            path.push(PathStep::Index(name.clone()));
            let e = match convs.get(&key) {
                Some(Some(c)) => c(&e, path)?,
                Some(None) => {
                    path.pop();
                    return Err(ConversionError::at(
                        path,
                        format!(
                            "map element type is incompatible with attribute {}: {}",
                            crate::gostr::quote(&key),
                            mismatch_message(&e.ty, aty)
                        ),
                    ));
                }
                None => e,
            };
            path.pop();
            elems.insert(key, renull(e));
        }
        for (name, aty) in &obj.attributes {
            if elems.contains_key(name) {
                continue;
            }
            if obj.optional.contains(name) {
                elems.insert(name.clone(), Value::null(aty.without_optional_attributes()));
            } else {
                return Err(ConversionError::at(
                    path,
                    format!(
                        "map has no element for required attribute {}",
                        crate::gostr::quote(name)
                    ),
                ));
            }
        }
        Ok(Value::object(elems))
    }))
}

fn conversion_object_to_object(in_ty: &Type, out: &Type, unsafe_: bool) -> Option<Conv> {
    let in_atys = in_ty.object_type()?.attributes.clone();
    let out_obj = out.object_type()?.clone();
    let mut convs: BTreeMap<String, Option<Conv>> = BTreeMap::new();
    for (name, out_aty) in &out_obj.attributes {
        match in_atys.get(name) {
            None if out_obj.optional.contains(name) => continue,
            None => return None,
            Some(in_aty) if in_aty == out_aty => {
                convs.insert(name.clone(), None);
            }
            Some(in_aty) => {
                convs.insert(
                    name.clone(),
                    Some(get_conversion(in_aty, out_aty, unsafe_)?),
                );
            }
        }
    }
    Some(Box::new(move |val, path| {
        let mut attrs = BTreeMap::new();
        for (name, e) in iterate(val, path)? {
            let key = name.as_str().unwrap_or_default().to_string();
            let Some(conv) = convs.get(&key) else {
                continue;
            };
            path.push(PathStep::Attr(key.clone()));
            let e = match conv {
                Some(c) => c(&e, path)?,
                None => e,
            };
            path.pop();
            attrs.insert(key, renull(e));
        }
        for name in &out_obj.optional {
            if !attrs.contains_key(name) {
                if let Some(aty) = out_obj.attributes.get(name) {
                    attrs.insert(name.clone(), Value::null(aty.without_optional_attributes()));
                }
            }
        }
        Ok(Value::object(attrs))
    }))
}

fn conversion_tuple_to_tuple(in_ty: &Type, out: &Type, unsafe_: bool) -> Option<Conv> {
    let in_etys = in_ty.tuple_elements()?;
    let out_etys = out.tuple_elements()?;
    if in_etys.len() != out_etys.len() {
        return None;
    }
    let mut convs = Vec::with_capacity(in_etys.len());
    for (i, o) in in_etys.iter().zip(out_etys.iter()) {
        convs.push(if i == o {
            None
        } else {
            Some(get_conversion(i, o, unsafe_)?)
        });
    }
    Some(Box::new(move |val, path| {
        let mut elems = Vec::new();
        for (i, (_, e)) in iterate(val, path)?.into_iter().enumerate() {
            path.push(index_step(i));
            let e = match convs.get(i) {
                Some(Some(c)) => c(&e, path)?,
                _ => e,
            };
            path.pop();
            elems.push(e);
        }
        Ok(Value::tuple(elems))
    }))
}

fn iterate(val: &Value, path: &[PathStep]) -> Result<Vec<(Value, Value)>, ConversionError> {
    val.elements()
        .map(Iterator::collect)
        .map_err(|e| ConversionError::at(path, e.to_string()))
}

/// cty's `conversionUnifyCollectionElements`: converts map elements whose
/// types differ (after element conversion into a type with dynamic parts)
/// to one common type.
fn unify_collection_elements(
    elems: BTreeMap<String, Value>,
    path: &mut Vec<PathStep>,
    unsafe_: bool,
) -> Result<BTreeMap<String, Value>, ConversionError> {
    let types: Vec<Type> = elems.values().map(|e| e.ty.clone()).collect();
    let Some((unified, _)) = unify_inner(&types, unsafe_) else {
        return Err(ConversionError::at(
            path,
            "cannot find a common base type for all elements",
        ));
    };
    let mut out = BTreeMap::new();
    for (name, e) in elems {
        if e.ty == unified {
            out.insert(name, e);
            continue;
        }
        let Some(conv) = get_conversion(&e.ty, &unified, unsafe_) else {
            return Err(ConversionError::at(
                path,
                "cannot find a common base type for all elements",
            ));
        };
        path.push(PathStep::Index(Value::string(&name)));
        let v = conv(&e, path)?;
        path.pop();
        out.insert(name, v);
    }
    Ok(out)
}

fn unify_list_elements(
    elems: Vec<Value>,
    path: &mut Vec<PathStep>,
    unsafe_: bool,
) -> Result<Vec<Value>, ConversionError> {
    let types: Vec<Type> = elems.iter().map(|e| e.ty.clone()).collect();
    let Some((unified, _)) = unify_inner(&types, unsafe_) else {
        return Err(ConversionError::at(
            path,
            "cannot find a common base type for all elements",
        ));
    };
    let mut out = Vec::with_capacity(elems.len());
    for (i, e) in elems.into_iter().enumerate() {
        if e.ty == unified {
            out.push(e);
            continue;
        }
        let Some(conv) = get_conversion(&e.ty, &unified, unsafe_) else {
            return Err(ConversionError::at(
                path,
                "cannot find a common base type for all elements",
            ));
        };
        path.push(index_step(i));
        let v = conv(&e, path)?;
        path.pop();
        out.push(v);
    }
    Ok(out)
}

/// cty's `prepareUnknownResult`: the unknown a conversion of an unknown
/// gives, keeping not-null and deriving length refinements.
fn prepare_unknown_result(range: &ValueRange, target: Type) -> Value {
    let source = range.type_constraint().clone();
    let mut ret = Value::unknown(target.clone());
    if range.definitely_not_null() {
        ret = ret.refine_not_null();
    }
    match (&source, &target) {
        (Type::Object(o), Type::Map(_)) => ret
            .refine()
            .collection_length(o.attributes.len() as u64)
            .new_value(),
        (Type::Tuple(t), Type::List(_)) => {
            ret.refine().collection_length(t.len() as u64).new_value()
        }
        (Type::Tuple(t), Type::Set(_)) => match t.len() {
            l @ (0 | 1) => ret.refine().collection_length(l as u64).new_value(),
            l => ret
                .refine()
                .collection_length_lower_bound(1)
                .collection_length_upper_bound(l as u64)
                .new_value(),
        },
        _ if source.is_collection() && target.is_collection() => {
            let mut b = ret.refine();
            if target.is_set() {
                if range.length_lower_bound() > 0 {
                    b = b.collection_length_lower_bound(1);
                }
            } else {
                b = b.collection_length_lower_bound(range.length_lower_bound());
            }
            b.collection_length_upper_bound(range.length_upper_bound())
                .new_value()
        }
        _ => ret,
    }
}

/// cty's `dynamicReplace`: the concrete type an unknown or null converts
/// to, taking from `in_ty` whatever `out` leaves dynamic.
fn dynamic_replace(in_ty: &Type, out: &Type) -> Type {
    if in_ty.is_dynamic() {
        return out.clone();
    }
    let unified_or = |types: &[Type], out_ety: &Type| match unify_inner(types, true) {
        Some((t, _)) => dynamic_replace(&t, out_ety),
        None => out_ety.clone(),
    };
    match out {
        Type::Dynamic => in_ty.clone(),
        Type::Bool | Type::Number | Type::String => out.clone(),
        Type::Map(oe) => match in_ty {
            Type::Map(ie) => Type::map(dynamic_replace(ie, oe)),
            Type::Object(o) => {
                let types: Vec<Type> = o.attributes.values().cloned().collect();
                Type::map(unified_or(&types, oe))
            }
            _ => out.clone(),
        },
        Type::Object(o) => {
            let mut attrs = BTreeMap::new();
            match in_ty {
                Type::Map(ie) => {
                    for (name, aty) in &o.attributes {
                        attrs.insert(name.clone(), dynamic_replace(ie, aty));
                    }
                }
                Type::Object(io) => {
                    for (name, aty) in &o.attributes {
                        let t = match io.attributes.get(name) {
                            Some(it) => dynamic_replace(it, aty),
                            None => aty.clone(),
                        };
                        attrs.insert(name.clone(), t);
                    }
                }
                _ => {}
            }
            Type::object(attrs)
        }
        Type::Set(oe) | Type::List(oe) => {
            let ety = match in_ty {
                Type::Set(ie) | Type::List(ie) => dynamic_replace(ie, oe),
                Type::Tuple(t) => unified_or(t, oe),
                _ => return out.clone(),
            };
            if out.is_set() {
                Type::set(ety)
            } else {
                Type::list(ety)
            }
        }
        Type::Tuple(ot) => match in_ty {
            Type::Tuple(it) if it.len() == ot.len() => Type::tuple(
                it.iter()
                    .zip(ot.iter())
                    .map(|(i, o)| dynamic_replace(i, o))
                    .collect(),
            ),
            _ => out.clone(),
        },
    }
}

// ----- building collections the way cty's ListVal/SetVal/MapVal do -----

/// The element type cty's `ListVal` & co. infer: the first type that is not
/// `Dynamic`; None when two known types disagree (`CanListVal` false).
fn common_element_type<'a>(types: impl Iterator<Item = &'a Type>) -> Option<Type> {
    let mut ety = Type::Dynamic;
    for t in types {
        if ety.is_dynamic() {
            ety = t.clone();
        } else if !t.is_dynamic() && *t != ety {
            return None;
        }
    }
    Some(ety)
}

/// An element of unknown type placed in a collection of a known element
/// type becomes an unknown (or null) of that type, as in cty.
fn retype(v: Value, ety: &Type) -> Value {
    if v.ty == *ety {
        return v;
    }
    let repr = match v.repr {
        Repr::Null => Repr::Null,
        _ => Repr::Unknown(None),
    };
    Value::from_parts(ety.clone(), repr, v.marks)
}

/// A list from non-empty `elems`, or None when their types disagree.
pub(crate) fn list_val(elems: Vec<Value>) -> Option<Value> {
    let ety = common_element_type(elems.iter().map(|e| &e.ty))?;
    let elems = elems.into_iter().map(|e| retype(e, &ety)).collect();
    Some(Value::list(ety, elems))
}

pub(crate) fn set_val(elems: Vec<Value>) -> Option<Value> {
    let ety = common_element_type(elems.iter().map(|e| &e.ty))?;
    let elems = elems.into_iter().map(|e| retype(e, &ety)).collect();
    Some(Value::set(ety, elems))
}

pub(crate) fn map_val(elems: BTreeMap<String, Value>) -> Option<Value> {
    let ety = common_element_type(elems.values().map(|e| &e.ty))?;
    let elems = elems
        .into_iter()
        .map(|(k, e)| (crate::refine::nfc(&k), retype(e, &ety)))
        .collect();
    Some(Value::map(ety, elems))
}

// ----- mismatch messages -----

/// cty's `MismatchMessage` (go-cty v1.16.0): why a value of type `got`
/// does not convert to `want`, as Terraform reports it.
pub fn mismatch_message(got: &Type, want: &Type) -> String {
    match (got, want) {
        (Type::Object(_), Type::Object(_)) => mismatch_message_objects(got, want),
        (Type::Tuple(_), Type::List(e)) if e.is_dynamic() => {
            "all list elements must have the same type".into()
        }
        (Type::Tuple(_), Type::Set(e)) if e.is_dynamic() => {
            "all set elements must have the same type".into()
        }
        (Type::Object(_), Type::Map(e)) if e.is_dynamic() => {
            "all map elements must have the same type".into()
        }
        _ if got.is_structural() && want.is_collection() => {
            mismatch_message_collections_from_structural(got, want)
        }
        _ if got.is_collection() && want.is_collection() => {
            mismatch_message_collections_from_collections(got, want)
        }
        _ => format!("{} required", want.friendly_name_for_constraint()),
    }
}

fn mismatch_message_objects(got: &Type, want: &Type) -> String {
    let (Some(got_o), Some(want_o)) = (got.object_type(), want.object_type()) else {
        return "incorrect object attributes".into();
    };
    let mut missing: Vec<&String> = Vec::new();
    let mut unsafe_mismatch: Option<String> = None;
    let mut safe_mismatch: Option<String> = None;
    // cty walks a Go map here; attribute order is used so the reported
    // attribute is at least deterministic.
    for (name, want_aty) in &want_o.attributes {
        let Some(got_aty) = got_o.attributes.get(name) else {
            if !want_o.optional.contains(name) {
                missing.push(name);
            }
            continue;
        };
        if got_aty == want_aty || unsafe_mismatch.is_some() {
            continue;
        }
        let describe = || {
            format!(
                "attribute {}: {}",
                crate::gostr::quote(name),
                mismatch_message(got_aty, want_aty)
            )
        };
        if get_conversion(got_aty, want_aty, true).is_none() {
            unsafe_mismatch = Some(describe());
        }
        if safe_mismatch.is_none() && get_conversion(got_aty, want_aty, false).is_none() {
            safe_mismatch = Some(describe());
        }
    }
    let q = |s: &String| crate::gostr::quote(s);
    match missing.len() {
        0 => {}
        1 => return format!("attribute {} is required", q(missing[0])),
        2 => {
            return format!(
                "attributes {} and {} are required",
                q(missing[0]),
                q(missing[1])
            )
        }
        n => {
            let head: Vec<String> = missing[..n - 1]
                .iter()
                .map(|s| format!("{}, ", q(s)))
                .collect();
            return format!(
                "attributes {}and {} are required",
                head.concat(),
                q(missing[n - 1])
            );
        }
    }
    unsafe_mismatch
        .or(safe_mismatch)
        .unwrap_or_else(|| "incorrect object attributes".into())
}

fn mismatch_message_collections_from_structural(got: &Type, want: &Type) -> String {
    let required = || format!("{} required", want.friendly_name_for_constraint());
    match want {
        Type::List(_) | Type::Set(_) if !got.is_tuple() => return required(),
        Type::Map(_) if !got.is_object() => return required(),
        _ => {}
    }
    let Some(want_ety) = want.element_type() else {
        return required();
    };
    let convertible = |t: &Type| t == want_ety || get_conversion(t, want_ety, true).is_some();
    match got {
        Type::Tuple(etys) => {
            for (i, t) in etys.iter().enumerate() {
                if !convertible(t) {
                    return format!("element {}: {}", i, mismatch_message(t, want_ety));
                }
            }
            format!(
                "all elements must be {}",
                want_ety.friendly_name_for_constraint()
            )
        }
        Type::Object(o) => {
            for (name, t) in &o.attributes {
                if !convertible(t) {
                    return format!(
                        "element {}: {}",
                        crate::gostr::quote(name),
                        mismatch_message(t, want_ety)
                    );
                }
            }
            format!(
                "all elements must be {}",
                want_ety.friendly_name_for_constraint()
            )
        }
        _ => required(),
    }
}

fn mismatch_message_collections_from_collections(got: &Type, want: &Type) -> String {
    let required = || format!("{} required", want.friendly_name_for_constraint());
    let noun = match want {
        Type::List(_) if !(got.is_list() || got.is_set()) => return required(),
        Type::Set(_) if !(got.is_list() || got.is_set()) => return required(),
        Type::Map(_) if !got.is_map() => return required(),
        Type::List(_) => "list element type",
        Type::Set(_) => "set element type",
        _ => "map element type",
    };
    match (got.element_type(), want.element_type()) {
        (Some(g), Some(w)) => format!("incorrect {}: {}", noun, mismatch_message(g, w)),
        _ => required(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{render, ty, val};

    fn run(value: &str, want: &str) -> String {
        match convert(&val(value), &ty(want)) {
            Ok(v) => render(&v),
            Err(e) => format!("error: {e}"),
        }
    }

    /// Conversions as Terraform performs them for `tolist`/`toset`/`tomap`
    /// (a conversion to a collection of `any`) and for variable type
    /// constraints. Expectations marked "tf" were taken from Terraform
    /// 1.11.4's console output (its error texts, its element order).
    #[test]
    fn convert_table() {
        let cases: &[(&str, &str, &str)] = &[
            // tf: tolist/toset/tomap
            (r#"["a", 1]"#, "list(any)", r#"tolist(["a", "1"])"#),
            (r#"["a", true]"#, "list(any)", r#"tolist(["a", "true"])"#),
            (
                "[1, true]",
                "list(any)",
                "error: all list elements must have the same type",
            ),
            ("[]", "list(any)", "emptylist(any)"),
            ("[null]", "list(any)", "tolist([null(any)])"),
            ("[null, 1]", "list(any)", "tolist([null(number), 1])"),
            (r#"[[1], ["a"]]"#, "list(any)", r#"tolist([["1"], ["a"]])"#),
            (
                "[[1], [true]]",
                "list(any)",
                "error: all list elements must have the same type",
            ),
            (
                r#"[{a = 1}, {a = "x"}]"#,
                "list(any)",
                r#"tolist([{a = "1"}, {a = "x"}])"#,
            ),
            (
                "[{a = 1}, {b = 1}]",
                "list(any)",
                "tolist([tomap({a = 1}), tomap({b = 1})])",
            ),
            (
                "[{a = 1}, {a = 1, b = 2}]",
                "list(any)",
                "tolist([tomap({a = 1}), tomap({a = 1, b = 2})])",
            ),
            (r#"toset(["b", "a"])"#, "list(any)", r#"tolist(["a", "b"])"#),
            (r#"["b", "a", "b"]"#, "set(any)", r#"toset(["a", "b"])"#),
            ("[1, 2, 10, 1.5]", "set(any)", "toset([1, 1.5, 2, 10])"),
            ("[true, false, true]", "set(any)", "toset([false, true])"),
            ("[]", "set(any)", "emptyset(any)"),
            (
                "[[1, 2], [1]]",
                "set(any)",
                "toset([tolist([1, 2]), tolist([1])])",
            ),
            (
                r#"[{a = 1, b = "x"}, {a = 1, b = "w"}]"#,
                "set(any)",
                r#"toset([{a = 1, b = "w"}, {a = 1, b = "x"}])"#,
            ),
            (
                r#"[{a = "b"}, {a = "a\\"}]"#,
                "set(any)",
                r#"toset([{a = "a\\"}, {a = "b"}])"#,
            ),
            (
                "[[], [1]]",
                "set(any)",
                "toset([tolist([1]), emptylist(number)])",
            ),
            (
                r#"["a", null]"#,
                "set(any)",
                r#"toset(["a", null(string)])"#,
            ),
            ("[null, 1]", "set(any)", "toset([1, null(number)])"),
            (r#"[1, "1"]"#, "set(any)", r#"toset(["1"])"#),
            (r#"["b", "a", 1]"#, "set(any)", r#"toset(["1", "a", "b"])"#),
            (
                "[{a = 2}, {a = 1}]",
                "set(any)",
                "toset([{a = 1}, {a = 2}])",
            ),
            ("[[2], [1]]", "set(any)", "toset([[1], [2]])"),
            (
                "[{a = 10}, {a = 9}, {a = 1e20}]",
                "set(any)",
                "toset([{a = 10}, {a = 100000000000000000000}, {a = 9}])",
            ),
            ("[[true], [false]]", "set(any)", "toset([[false], [true]])"),
            (
                r#"{a = 1, b = "x"}"#,
                "map(any)",
                r#"tomap({a = "1", b = "x"})"#,
            ),
            (
                "{a = 1, b = true}",
                "map(any)",
                "error: all map elements must have the same type",
            ),
            (
                r#"{a = [1], b = ["x"]}"#,
                "map(any)",
                r#"tomap({a = ["1"], b = ["x"]})"#,
            ),
            (
                r#"{a = {x = 1}, b = {x = "y"}}"#,
                "map(any)",
                r#"tomap({a = {x = "1"}, b = {x = "y"}})"#,
            ),
            ("{}", "map(any)", "emptymap(any)"),
            (
                "{a = null, b = 1}",
                "map(any)",
                "tomap({a = null(number), b = 1})",
            ),
            (
                "{a = [], b = [1]}",
                "map(any)",
                "tomap({a = emptylist(number), b = tolist([1])})",
            ),
            // tf: primitive conversions
            (r#""1.5""#, "number", "1.5"),
            (r#""0x10""#, "number", "error: a number is required"),
            (r#"" 1""#, "number", "error: a number is required"),
            (r#""1e3""#, "number", "1000"),
            (r#""abc""#, "number", "error: a number is required"),
            ("true", "number", "error: number required"),
            ("1.5", "string", r#""1.5""#),
            ("true", "string", r#""true""#),
            ("[]", "string", "error: string required"),
            (r#""true""#, "bool", "true"),
            (r#""1""#, "bool", "true"),
            (r#""0""#, "bool", "false"),
            (
                r#""True""#,
                "bool",
                r#"error: a bool is required; to convert from string, use lowercase "true""#,
            ),
            (
                r#""FALSE""#,
                "bool",
                r#"error: a bool is required; to convert from string, use lowercase "false""#,
            ),
            (r#""maybe""#, "bool", "error: a bool is required"),
            ("1", "bool", "error: bool required"),
            ("{}", "number", "error: number required"),
            ("-0", "string", r#""-0""#),
            ("0.1", "string", r#""0.1""#),
            (r#""-12.50""#, "number", "-12.5"),
            // tf: variable type constraints
            (
                "[[], 1]",
                "list(string)",
                "error: element 0: string required",
            ),
            (
                r#"["a"]"#,
                "list(number)",
                "error: [0]: a number is required",
            ),
            (r#"["1", 2]"#, "list(number)", "tolist([1, 2])"),
            (r#"["2", 1, "1"]"#, "set(number)", "toset([1, 2])"),
            (
                r#"{a = "1", b = 2}"#,
                "map(number)",
                "tomap({a = 1, b = 2})",
            ),
            (
                r#"{a = "true", b = "0"}"#,
                "map(bool)",
                "tomap({a = true, b = false})",
            ),
            (
                "{a = []}",
                "object({a=string})",
                r#"error: attribute "a": string required"#,
            ),
            (
                "{}",
                "object({a=string,b=number})",
                r#"error: attributes "a" and "b" are required"#,
            ),
            (
                "{}",
                "object({a=string,b=number,c=bool})",
                r#"error: attributes "a", "b", and "c" are required"#,
            ),
            (r#"{a = "x", b = 1}"#, "object({a=string})", r#"{a = "x"}"#),
            ("{}", "object({a=optional(string)})", "{a = null(string)}"),
            (r#"[1, "2"]"#, "tuple([string,number])", r#"["1", 2]"#),
            ("[1]", "tuple([string,number])", "error: tuple required"),
            (r#"["a", "b"]"#, "tuple([string])", "error: tuple required"),
            ("[[]]", "tuple([number])", "error: tuple required"),
            (r#"[1, "a"]"#, "set(any)", r#"toset(["1", "a"])"#),
            (r#"{a = [1, "x"]}"#, "object({a=any})", r#"{a = [1, "x"]}"#),
            (
                r#"[[1], ["a"]]"#,
                "list(list(any))",
                r#"tolist([tolist(["1"]), tolist(["a"])])"#,
            ),
            (r#""x""#, "list(string)", "error: list of string required"),
            (r#"["a"]"#, "map(string)", "error: map of string required"),
            ("{a = 1}", "list(string)", "error: list of string required"),
            ("{}", "set(string)", "error: set of string required"),
            (
                r#"{a = ["x"]}"#,
                "map(list(number))",
                r#"error: ["a"][0]: a number is required"#,
            ),
            (
                r#"[{a = "x"}]"#,
                "list(map(number))",
                r#"error: [0]["a"]: a number is required"#,
            ),
            (
                r#"{a = [1, "b"]}"#,
                "object({a=list(number)})",
                "error: .a[1]: a number is required",
            ),
            (
                r#"{a = {b = "x"}}"#,
                "object({a=object({b=number})})",
                "error: .a.b: a number is required",
            ),
            (
                "{a = {}}",
                "object({a=object({b=number})})",
                r#"error: attribute "a": attribute "b" is required"#,
            ),
            (
                "{a = true}",
                "object({a=number})",
                r#"error: attribute "a": number required"#,
            ),
            (
                "[true]",
                "list(number)",
                "error: element 0: number required",
            ),
            (
                "{a = []}",
                "map(string)",
                r#"error: element "a": string required"#,
            ),
            (
                "[{b = 1}]",
                "list(object({a=string}))",
                r#"error: element 0: attribute "a" is required"#,
            ),
            (r#"[1, "a"]"#, "any", r#"[1, "a"]"#),
            (
                "{a = []}",
                "object({a=map(string)})",
                r#"error: attribute "a": map of string required"#,
            ),
            (
                r#"[{a = 1}, {a = "1"}]"#,
                "set(object({a=number}))",
                "toset([{a = 1}])",
            ),
            // tf: marks survive conversion; sets carry their elements' marks
            (
                r#"[sensitive("a"), 1]"#,
                "list(any)",
                r#"tolist([sensitive("a"), "1"])"#,
            ),
            (
                r#"[sensitive("a"), "b"]"#,
                "set(any)",
                r#"sensitive(toset(["a", "b"]))"#,
            ),
            (
                r#"{a = sensitive(1), b = "x"}"#,
                "map(any)",
                r#"tomap({a = sensitive("1"), b = "x"})"#,
            ),
            (
                "sensitive([1, 2])",
                "list(number)",
                "sensitive(tolist([1, 2]))",
            ),
            (
                r#"[sensitive([1]), ["a"]]"#,
                "list(list(string))",
                r#"tolist([sensitive(tolist(["1"])), tolist(["a"])])"#,
            ),
            (
                r#"{a = sensitive("1")}"#,
                "object({a=number})",
                "{a = sensitive(1)}",
            ),
            (
                "[sensitive(null)]",
                "list(string)",
                "tolist([sensitive(null(string))])",
            ),
            (
                "ephemeral(sensitive(\"1\"))",
                "number",
                "sensitive(ephemeral(1))",
            ),
            // tf: unknowns (values of unknown type from a planned resource)
            ("[?]", "list(any)", "tolist([?])"),
            (
                "{a = ?, b = 1}",
                "map(any)",
                "tomap({a = unknown(number), b = 1})",
            ),
            (
                r#"[?, "a", ?]"#,
                "set(any)",
                r#"toset(["a", unknown(string), unknown(string)])"#,
            ),
            (
                r#"toset([unknown(string), "a"])"#,
                "list(any)",
                "unknown(list(string))",
            ),
            (
                "toset([unknown(string)])",
                "list(any)",
                "tolist([unknown(string)])",
            ),
            (
                r#"[?, "a"]"#,
                "list(any)",
                r#"tolist([unknown(string), "a"])"#,
            ),
            // unknowns keep not-null and gain length refinements
            (
                "unknown(tuple([string,string]))",
                "list(string)",
                "unknown(list(string)){len>=2, len<=2}",
            ),
            (
                "unknown(tuple([string,string])){!null}",
                "list(string)",
                "tolist([unknown(string), unknown(string)])",
            ),
            (
                "unknown(tuple([string])){!null}",
                "set(string)",
                "toset([unknown(string)])",
            ),
            (
                "unknown(tuple([])){!null}",
                "set(string)",
                "emptyset(string)",
            ),
            (
                "unknown(object({})){!null}",
                "map(string)",
                "emptymap(string)",
            ),
            (
                "unknown(object({a=number,b=number}))",
                "map(string)",
                "unknown(map(string)){len>=2, len<=2}",
            ),
            (
                "unknown(tuple([string,string,string])){!null}",
                "set(string)",
                "unknown(set(string)){!null, len>=1, len<=3}",
            ),
            (
                "unknown(list(string)){!null, len>=2}",
                "set(string)",
                "unknown(set(string)){!null, len>=1}",
            ),
            (
                "unknown(set(string)){len<=4}",
                "list(number)",
                "unknown(list(number)){len<=4}",
            ),
            (
                "unknown(list(string)){len>=2, len<=4}",
                "list(number)",
                "unknown(list(number)){len>=2, len<=4}",
            ),
            (
                r#"unknown(string){!null, prefix="a"}"#,
                "number",
                "unknown(number){!null}",
            ),
            (
                "unknown(list(string))",
                "list(any)",
                "unknown(list(string))",
            ),
            (
                "unknown(tuple([string,number]))",
                "list(any)",
                "unknown(list(string)){len>=2, len<=2}",
            ),
            (
                "unknown(object({a=string,b=bool}))",
                "map(any)",
                "unknown(map(string)){len>=2, len<=2}",
            ),
            ("?", "list(string)", "unknown(list(string))"),
            ("?", "any", "?"),
            (
                "unknown(map(string))",
                "object({a=number,b=optional(bool)})",
                "unknown(object({a=number,b=bool}))",
            ),
            // nulls take the target type, filling in dynamic parts
            ("null(string)", "number", "null(number)"),
            ("null", "list(string)", "null(list(string))"),
            ("null(list(string))", "list(any)", "null(list(string))"),
            (
                "null(object({a=string}))",
                "object({a=string,b=optional(number)})",
                "null(object({a=string,b=number}))",
            ),
            (
                "null(tuple([string,number]))",
                "list(any)",
                "null(list(string))",
            ),
            ("null(object({a=number}))", "map(any)", "null(map(number))"),
            (
                "sensitive(null(string))",
                "number",
                "sensitive(null(number))",
            ),
            // maps to objects
            (r#"tomap({a = "1"})"#, "object({a=number})", "{a = 1}"),
            (
                r#"tomap({a = "1", b = "2"})"#,
                "object({a=number})",
                "{a = 1}",
            ),
            (
                r#"tomap({a = "x"})"#,
                "object({a=number})",
                r#"error: ["a"]: a number is required"#,
            ),
            (
                r#"tomap({a = "1"})"#,
                "object({a=number,b=string})",
                r#"error: map has no element for required attribute "b""#,
            ),
            (
                r#"tomap({a = "1"})"#,
                "object({a=number,b=optional(string)})",
                "{a = 1, b = null(string)}",
            ),
            (
                "tomap({a = tolist([1])})",
                "object({a=list(number),b=optional(string)})",
                "{a = tolist([1]), b = null(string)}",
            ),
            (
                "tomap({a = tolist([1]), b = tolist([2])})",
                "object({a=list(number),b=optional(string)})",
                r#"error: map element type is incompatible with attribute "b": string required"#,
            ),
            ("emptymap(string)", "object({})", "{}"),
            // objects with optional attributes
            (
                r#"{a = "x"}"#,
                "object({a=string,b=optional(list(object({c=optional(string)})))})",
                r#"{a = "x", b = null(list(object({c=string})))}"#,
            ),
            (
                r#"{a = "x", b = [{}]}"#,
                "object({a=string,b=optional(list(object({c=optional(string)})))})",
                r#"{a = "x", b = tolist([{c = null(string)}])}"#,
            ),
            (
                "[{}, {a = 1}]",
                "list(object({a=optional(number)}))",
                "tolist([{a = null(number)}, {a = 1}])",
            ),
            (
                "{a = null}",
                "object({a=optional(list(string))})",
                "{a = null(list(string))}",
            ),
            // list and set directions
            ("tolist([1, 1, 2])", "set(number)", "toset([1, 2])"),
            ("tolist([1, 2])", "set(string)", r#"toset(["1", "2"])"#),
            ("toset([2, 1])", "list(string)", r#"tolist(["1", "2"])"#),
            ("emptyset(number)", "list(string)", "emptylist(string)"),
            ("emptylist(number)", "list(any)", "emptylist(number)"),
            (
                r#"tolist([null(string), "a"])"#,
                "list(number)",
                "error: [1]: a number is required",
            ),
            (
                r#"tolist(["1", null(string)])"#,
                "list(number)",
                "tolist([1, null(number)])",
            ),
            ("tolist([1])", "tuple([number])", "error: tuple required"),
            ("[1]", "map(number)", "error: map of number required"),
            (
                "tomap({a = 1})",
                "list(number)",
                "error: list of number required",
            ),
            (
                "tolist([tolist([1])])",
                "list(list(string))",
                r#"tolist([tolist(["1"])])"#,
            ),
            (
                "tomap({a = tolist([1]), b = tolist([2])})",
                "map(set(string))",
                r#"tomap({a = toset(["1"]), b = toset(["2"])})"#,
            ),
            (
                r#"{a = [1], b = ["x"]}"#,
                "map(list(any))",
                r#"tomap({a = tolist(["1"]), b = tolist(["x"])})"#,
            ),
            (
                "[[1], [true]]",
                "list(list(any))",
                "error: [1]: cannot find a common base type for all elements",
            ),
            (
                r#"[[1], [true], ["x"]]"#,
                "list(list(any))",
                r#"tolist([tolist(["1"]), tolist(["true"]), tolist(["x"])])"#,
            ),
            (
                "[{a = 1}, {a = true}]",
                "list(map(any))",
                "error: [1]: cannot find a common base type for all elements",
            ),
            (
                "{a = 1}",
                "object({a=number,b=optional(any)})",
                "{a = 1, b = null(any)}",
            ),
            (
                "[1, [2]]",
                "tuple([string,list(string)])",
                r#"["1", tolist(["2"])]"#,
            ),
        ];
        for (value, want, expect) in cases {
            assert_eq!(run(value, want), *expect, "convert({value}, {want})");
        }
        assert!(cases.len() >= 140);
    }

    #[test]
    fn converted_types() {
        let cases: &[(&str, &str, &str)] = &[
            ("[]", "list(any)", "list(any)"),
            ("[null, 1]", "list(any)", "list(number)"),
            (r#"[[1], ["a"]]"#, "list(any)", "list(tuple([string]))"),
            ("{a = 1, b = 2}", "map(any)", "map(number)"),
            ("[{a = 1}, {b = 1}]", "list(any)", "list(map(number))"),
            ("toset([?])", "list(any)", "list(any)"),
            (
                "{}",
                "object({a=optional(object({b=optional(string)}))})",
                "object({a=object({b=string})})",
            ),
        ];
        for (value, want, expect) in cases {
            let got = convert(&val(value), &ty(want)).map(|v| v.ty().type_string());
            assert_eq!(
                got.ok().as_deref(),
                Some(*expect),
                "type of convert({value}, {want})"
            );
        }
    }

    #[test]
    fn mismatch_messages() {
        let cases: &[(&str, &str, &str)] = &[
            ("bool", "number", "number required"),
            (
                "object({})",
                "object({foo=string})",
                r#"attribute "foo" is required"#,
            ),
            (
                "object({})",
                "object({foo=string,bar=string})",
                r#"attributes "bar" and "foo" are required"#,
            ),
            (
                "object({})",
                "object({foo=string,bar=string,baz=string})",
                r#"attributes "bar", "baz", and "foo" are required"#,
            ),
            (
                "object({})",
                "list(object({foo=string}))",
                "list of object required",
            ),
            (
                "list(string)",
                "list(object({foo=string}))",
                "incorrect list element type: object required",
            ),
            (
                "list(object({}))",
                "list(object({foo=string}))",
                r#"incorrect list element type: attribute "foo" is required"#,
            ),
            (
                "tuple([object({})])",
                "list(object({foo=string}))",
                r#"element 0: attribute "foo" is required"#,
            ),
            (
                "list(object({}))",
                "set(object({foo=string}))",
                r#"incorrect set element type: attribute "foo" is required"#,
            ),
            (
                "tuple([object({})])",
                "set(object({foo=string}))",
                r#"element 0: attribute "foo" is required"#,
            ),
            (
                "map(object({}))",
                "map(object({foo=string}))",
                r#"incorrect map element type: attribute "foo" is required"#,
            ),
            (
                "object({boop=object({})})",
                "map(object({foo=string}))",
                r#"element "boop": attribute "foo" is required"#,
            ),
            (
                "tuple([object({}),tuple([])])",
                "list(any)",
                "all list elements must have the same type",
            ),
            (
                "tuple([object({}),tuple([])])",
                "set(any)",
                "all set elements must have the same type",
            ),
            (
                "object({a=bool,b=tuple([])})",
                "map(any)",
                "all map elements must have the same type",
            ),
            (
                "object({foo=bool,bar=string,baz=object({boop=number})})",
                "object({foo=bool,bar=string,baz=object({boop=number,beep=bool})})",
                r#"attribute "baz": attribute "beep" is required"#,
            ),
            (
                "object({a=optional(string)})",
                "object({a=string,b=optional(number)})",
                "incorrect object attributes",
            ),
            ("tuple([string])", "string", "string required"),
            ("list(string)", "any", "any type required"),
            ("string", "list(any)", "list of any single type required"),
            ("map(string)", "set(string)", "set of string required"),
            ("set(list(string))", "map(string)", "map of string required"),
            (
                "object({a=tuple([]),b=string})",
                "object({a=string,b=number})",
                r#"attribute "a": string required"#,
            ),
            (
                "object({\"x y\"=tuple([])})",
                "object({\"x y\"=string})",
                r#"attribute "x y": string required"#,
            ),
        ];
        for (got, want, expect) in cases {
            assert_eq!(
                mismatch_message(&ty(got), &ty(want)),
                *expect,
                "mismatch_message({got}, {want})"
            );
        }
    }

    #[test]
    fn error_paths_render_like_terraform() {
        let key = |s: &str| PathStep::Index(Value::string(s));
        let idx = |i: i64| PathStep::Index(Value::int(i));
        let cases: Vec<(Vec<PathStep>, &str)> = vec![
            (vec![], "msg"),
            (vec![idx(0)], "[0]: msg"),
            (vec![PathStep::Attr("a".into()), idx(1)], ".a[1]: msg"),
            (
                vec![key("k"), PathStep::Attr("b".into())],
                r#"["k"].b: msg"#,
            ),
            (vec![key("a\"b")], r#"["a\"b"]: msg"#),
            (
                vec![PathStep::Index(Value::unknown(Type::String))],
                "[(not yet known)]: msg",
            ),
            (
                vec![PathStep::Index(Value::null(Type::String))],
                "[null]: msg",
            ),
            (vec![PathStep::Index(Value::bool(true))], "[...]: msg"),
        ];
        for (path, expect) in cases {
            let e = ConversionError {
                path,
                message: "msg".into(),
            };
            assert_eq!(e.to_string(), expect);
        }
    }

    #[test]
    fn safe_conversions_exclude_unsafe_ones() {
        let cases: &[(&str, &str, bool, bool)] = &[
            // from, to, safe, unsafe
            ("number", "string", true, true),
            ("bool", "string", true, true),
            ("string", "number", false, true),
            ("string", "bool", false, true),
            ("bool", "number", false, false),
            ("list(string)", "set(string)", false, true),
            ("set(string)", "list(string)", true, true),
            ("map(string)", "object({a=string})", false, true),
            ("object({a=string})", "map(string)", true, true),
            ("tuple([number])", "list(string)", true, true),
            ("any", "string", false, true),
            ("string", "any", true, true),
            (
                "object({a=string,b=number})",
                "object({a=string})",
                true,
                true,
            ),
            (
                "object({a=string})",
                "object({a=string,b=number})",
                false,
                false,
            ),
            (
                "object({a=string})",
                "object({a=string,b=optional(number)})",
                true,
                true,
            ),
            ("string", "string", false, false),
        ];
        for (from, to, safe, unsafe_) in cases {
            assert_eq!(
                can_convert(&ty(from), &ty(to), false),
                *safe,
                "safe {from} -> {to}"
            );
            assert_eq!(
                can_convert(&ty(from), &ty(to), true),
                *unsafe_,
                "unsafe {from} -> {to}"
            );
        }
        assert!(convert_safe(&val(r#""1""#), &Type::Number).is_none());
        assert_eq!(
            convert_safe(&val("1"), &Type::String)
                .and_then(Result::ok)
                .map(|v| render(&v))
                .as_deref(),
            Some(r#""1""#)
        );
    }

    /// A value whose type differs from the wanted one only where the
    /// wanted one says `dynamic` comes back unchanged, as the full
    /// conversion would give it (unknowns keep their refinements, nulls
    /// and marks stay where they are); anything else takes the full path.
    #[test]
    fn conforming_values_are_returned_as_they_are() {
        let cases: &[(&str, &str, bool)] = &[
            (
                r#"{a = "x", b = [1, "y"], c = {d = null(string)}}"#,
                "object({a=string,b=any,c=object({d=any})})",
                true,
            ),
            (
                r#"{a = unknown(string){prefix="p"}, b = sensitive("s")}"#,
                "object({a=string,b=any})",
                true,
            ),
            (
                r#"[{a = 1}, unknown(number){>=1}]"#,
                "tuple([object({a=any}),number])",
                true,
            ),
            (r#"{a = tolist(["x"])}"#, "object({a=list(any)})", false),
            (
                r#"{a = "x"}"#,
                "object({a=string,b=optional(string)})",
                false,
            ),
            (r#"{a = 1}"#, "object({a=string})", false),
        ];
        for (value, want, fast) in cases {
            let (v, want) = (val(value), ty(want));
            assert_eq!(conforms(v.ty(), &want), *fast, "{value} as {want}");
            let Some(full) = get_conversion(v.ty(), &want, true) else {
                panic!("{value} converts to {want}");
            };
            let full = full(&v, &mut Vec::new()).map(|r| render(&r));
            let quick = convert(&v, &want).map(|r| render(&r));
            assert_eq!(quick.ok(), full.ok(), "{value} as {want}");
        }
    }
}
