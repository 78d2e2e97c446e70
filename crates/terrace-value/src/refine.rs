//! Refinements of unknown values (cty's `RefinementBuilder`) and the range
//! queries built on them (cty's `ValueRange`). A refined unknown value is a
//! placeholder for a narrower set of values — "not null", "starts with
//! `ami-`", "between 0 and 10", "at least one element" — which lets
//! comparisons and other operations give known answers early.
//!
//! cty panics when asked for a refinement that contradicts what is already
//! known; since refinements can arrive from providers, the builder here
//! ignores such requests instead.

use crate::number::Number;
use crate::types::Type;
use crate::value::{Marks, Refinement, Repr, Value};
use std::collections::{BTreeMap, HashSet};
use std::sync::OnceLock;

/// cty's `math.MaxInt`, the "no upper bound" length of a collection.
pub const MAX_LENGTH: u64 = i64::MAX as u64;

/// The largest list that `new_value` will spell out as a known list of
/// unknown elements when a refinement fixes its length; longer ones stay
/// refined unknowns so a hostile refinement cannot exhaust memory.
const MAX_MATERIALIZED_LENGTH: u64 = 1 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tristate {
    Unknown,
    True,
    False,
}

/// The refinement being built, or the synthetic one describing a range.
/// The variant follows the value's type as in cty: the type-specific
/// variants exist only for refined values, an unrefined unknown is
/// `Nullable { null: Unknown }`.
#[derive(Clone, Debug)]
pub(crate) enum Raw {
    Nullable {
        null: Tristate,
    },
    String {
        null: Tristate,
        prefix: String,
    },
    Number {
        null: Tristate,
        min: Option<(Value, bool)>,
        max: Option<(Value, bool)>,
    },
    Collection {
        null: Tristate,
        min: u64,
        max: u64,
    },
}

impl Raw {
    fn null(&self) -> Tristate {
        match self {
            Raw::Nullable { null }
            | Raw::String { null, .. }
            | Raw::Number { null, .. }
            | Raw::Collection { null, .. } => *null,
        }
    }

    fn set_null(&mut self, value: Tristate) {
        match self {
            Raw::Nullable { null }
            | Raw::String { null, .. }
            | Raw::Number { null, .. }
            | Raw::Collection { null, .. } => *null = value,
        }
    }

    /// A fresh refinement for a value of type `ty`, as `Value.Refine` starts.
    fn fresh(ty: &Type) -> Option<Raw> {
        let null = Tristate::Unknown;
        match ty {
            Type::String => Some(Raw::String {
                null,
                prefix: String::new(),
            }),
            Type::Number => Some(Raw::Number {
                null,
                min: None,
                max: None,
            }),
            t if t.is_collection() => Some(Raw::Collection {
                null,
                min: 0,
                max: MAX_LENGTH,
            }),
            Type::Bool | Type::Object(_) | Type::Tuple(_) => Some(Raw::Nullable { null }),
            _ => None,
        }
    }

    /// The working form of a refinement already stored on a value.
    fn from_refinement(ty: &Type, r: &Refinement) -> Option<Raw> {
        let null = if r.not_null {
            Tristate::False
        } else {
            Tristate::Unknown
        };
        let mut raw = Raw::fresh(ty)?;
        match &mut raw {
            Raw::Nullable { null: n } => *n = null,
            Raw::String { null: n, prefix } => {
                *n = null;
                *prefix = r.string_prefix.clone().unwrap_or_default();
            }
            Raw::Number { null: n, min, max } => {
                *n = null;
                *min = r
                    .number_lower
                    .as_ref()
                    .map(|(v, inc)| (Value::number(v.clone()), *inc));
                *max = r
                    .number_upper
                    .as_ref()
                    .map(|(v, inc)| (Value::number(v.clone()), *inc));
            }
            Raw::Collection { null: n, min, max } => {
                *n = null;
                *min = r.length_lower.unwrap_or(0);
                *max = r.length_upper.unwrap_or(MAX_LENGTH);
            }
        }
        Some(raw)
    }

    fn to_refinement(&self) -> Refinement {
        let mut r = Refinement {
            not_null: self.null() == Tristate::False,
            ..Refinement::default()
        };
        match self {
            Raw::Nullable { .. } => {}
            Raw::String { prefix, .. } => {
                if !prefix.is_empty() {
                    r.string_prefix = Some(prefix.clone());
                }
            }
            Raw::Number { min, max, .. } => {
                r.number_lower = min
                    .as_ref()
                    .and_then(|(v, inc)| v.as_number().map(|n| (n.clone(), *inc)));
                r.number_upper = max
                    .as_ref()
                    .and_then(|(v, inc)| v.as_number().map(|n| (n.clone(), *inc)));
            }
            Raw::Collection { min, max, .. } => {
                r.length_lower = (*min > 0).then_some(*min);
                r.length_upper = (*max != MAX_LENGTH).then_some(*max);
            }
        }
        r
    }
}

fn is_infinite(v: &Value) -> bool {
    v.as_number().is_some_and(Number::is_infinite)
}

fn number_value(n: u64) -> Value {
    Value::number(Number::from_u64(n))
}

fn known_false(r: Result<Value, crate::ops::ValueError>) -> bool {
    matches!(r, Ok(v) if v.as_bool() == Some(false))
}

/// Builds a refined copy of a value (cty's `RefinementBuilder`). Refining a
/// known value changes nothing; refining `Value::dynamic()` is silently
/// ignored, as cty keeps `DynamicVal` unrefinable.
#[derive(Clone, Debug)]
pub struct RefinementBuilder {
    orig: Value,
    marks: Marks,
    wip: Option<Raw>,
}

impl Value {
    /// Starts refining this value (cty `Value.Refine`).
    pub fn refine(&self) -> RefinementBuilder {
        let (orig, marks) = self.clone().unmark();
        let wip = match &orig.repr {
            Repr::Unknown(Some(r)) => Raw::from_refinement(&orig.ty, r),
            Repr::Unknown(None) if orig.ty.is_dynamic() => None,
            Repr::Null if orig.ty.is_dynamic() => Some(Raw::Nullable {
                null: Tristate::True,
            }),
            _ => Raw::fresh(&orig.ty),
        };
        RefinementBuilder { orig, marks, wip }
    }

    /// The value as an unknown with the given known string prefix (cty
    /// `Refine().StringPrefix(prefix)`), trimmed so later characters cannot
    /// change it.
    pub fn refine_string_prefix(&self, prefix: &str) -> Value {
        self.refine().string_prefix(prefix).new_value()
    }

    /// What is known about the range of this value (cty `Value.Range`);
    /// marks are ignored.
    pub fn range(&self) -> ValueRange {
        let ty = self.ty.clone();
        let raw = match &self.repr {
            Repr::Unknown(Some(r)) => Raw::from_refinement(&self.ty, r).unwrap_or(Raw::Nullable {
                null: Tristate::Unknown,
            }),
            Repr::Unknown(None) => Raw::Nullable {
                null: Tristate::Unknown,
            },
            Repr::Null => Raw::Nullable {
                null: Tristate::True,
            },
            Repr::String(s) => Raw::String {
                null: Tristate::False,
                prefix: s.to_string(),
            },
            Repr::Number(_) => {
                let v = self.clone().unmark().0;
                Raw::Number {
                    null: Tristate::False,
                    min: Some((v.clone(), true)),
                    max: Some((v, true)),
                }
            }
            _ if self.ty.is_collection() => match self
                .clone()
                .unmark()
                .0
                .length()
                .ok()
                .and_then(|l| l.as_number().and_then(Number::to_i64))
            {
                Some(l) => Raw::Collection {
                    null: Tristate::False,
                    min: l as u64,
                    max: l as u64,
                },
                None => Raw::Collection {
                    null: Tristate::False,
                    min: 0,
                    max: MAX_LENGTH,
                },
            },
            _ => Raw::Nullable {
                null: Tristate::False,
            },
        };
        ValueRange { ty, raw }
    }
}

impl RefinementBuilder {
    /// Whether refinements apply at all: only unknown values of a known type
    /// carry them (a known value already is its own exact range).
    fn active(&self) -> bool {
        !self.orig.is_known() && self.wip.is_some()
    }

    /// The value is definitely not null.
    pub fn not_null(mut self) -> Self {
        if self.active() {
            if let Some(wip) = &mut self.wip {
                if wip.null() != Tristate::True {
                    wip.set_null(Tristate::False);
                }
            }
        }
        self
    }

    /// The value is definitely null (so `new_value` gives the typed null).
    pub fn null(mut self) -> Self {
        if self.active() {
            if let Some(wip) = &mut self.wip {
                if wip.null() != Tristate::False {
                    wip.set_null(Tristate::True);
                }
            }
        }
        self
    }

    /// Lower bound for a number; an unknown bound is ignored, as is one
    /// looser than the bound already known.
    pub fn number_range_lower_bound(mut self, min: &Value, inclusive: bool) -> Self {
        if !self.active() || !min.is_known() || min.is_null() || min.ty != Type::Number {
            return self;
        }
        let min = min.clone().unmark().0;
        if let Some(Raw::Number { min: cur, max, .. }) = &mut self.wip {
            if let Some((cur_v, cur_inc)) = cur {
                let ok = if inclusive && !*cur_inc {
                    min.greater_than(cur_v)
                } else {
                    min.greater_than_or_equal_to(cur_v)
                };
                if known_false(ok) {
                    return self;
                }
            }
            if is_infinite(&min) && min.as_number().is_some_and(|n| n.signum() < 0) {
                return self;
            }
            if !bounds_consistent(Some(&(min.clone(), inclusive)), max.as_ref()) {
                return self;
            }
            *cur = Some((min, inclusive));
        }
        self
    }

    /// Upper bound for a number, the mirror of `number_range_lower_bound`.
    pub fn number_range_upper_bound(mut self, max: &Value, inclusive: bool) -> Self {
        if !self.active() || !max.is_known() || max.is_null() || max.ty != Type::Number {
            return self;
        }
        let max = max.clone().unmark().0;
        if let Some(Raw::Number { max: cur, min, .. }) = &mut self.wip {
            if let Some((cur_v, cur_inc)) = cur {
                let ok = if inclusive && !*cur_inc {
                    max.less_than(cur_v)
                } else {
                    max.less_than_or_equal_to(cur_v)
                };
                if known_false(ok) {
                    return self;
                }
            }
            if is_infinite(&max) && max.as_number().is_some_and(|n| n.signum() > 0) {
                return self;
            }
            if !bounds_consistent(min.as_ref(), Some(&(max.clone(), inclusive))) {
                return self;
            }
            *cur = Some((max, inclusive));
        }
        self
    }

    /// Both number bounds, inclusive; either may be an unknown number to
    /// leave that side open.
    pub fn number_range_inclusive(self, min: &Value, max: &Value) -> Self {
        self.number_range_lower_bound(min, true)
            .number_range_upper_bound(max, true)
    }

    pub fn collection_length_lower_bound(mut self, min: u64) -> Self {
        if !self.active() {
            return self;
        }
        if let Some(Raw::Collection { min: cur, max, .. }) = &mut self.wip {
            if *cur > min || *max < min {
                return self;
            }
            *cur = min;
        }
        self
    }

    pub fn collection_length_upper_bound(mut self, max: u64) -> Self {
        if !self.active() {
            return self;
        }
        if let Some(Raw::Collection { max: cur, min, .. }) = &mut self.wip {
            if *cur < max || max < *min {
                return self;
            }
            *cur = max;
        }
        self
    }

    /// An exact length; a not-null collection refined to length 0 becomes
    /// a known empty value, as in cty.
    pub fn collection_length(self, length: u64) -> Self {
        self.collection_length_lower_bound(length)
            .collection_length_upper_bound(length)
    }

    /// A known prefix of a string, trimmed (cty `SafeKnownPrefix`) so that
    /// characters appended later cannot combine with its end.
    pub fn string_prefix(self, prefix: &str) -> Self {
        let safe = safe_known_prefix(prefix);
        self.string_prefix_full(&safe)
    }

    /// A known prefix of a string used exactly as given (after NFC).
    pub fn string_prefix_full(mut self, prefix: &str) -> Self {
        if !self.active() {
            return self;
        }
        let prefix = nfc(prefix);
        if let Some(Raw::String { prefix: cur, .. }) = &mut self.wip {
            let common = cur.len().min(prefix.len());
            if cur.as_bytes()[..common] != prefix.as_bytes()[..common] {
                return self;
            }
            if prefix.len() > cur.len() {
                *cur = prefix;
            }
        }
        self
    }

    /// The refined value (cty `NewValue`): a known value when the
    /// refinements leave only one possibility.
    pub fn new_value(self) -> Value {
        let RefinementBuilder { orig, marks, wip } = self;
        let Some(wip) = wip.filter(|_| !orig.is_known()) else {
            return orig.mark(marks);
        };
        let ty = orig.ty.clone();
        match wip.null() {
            Tristate::True => return Value::null(ty).mark(marks),
            Tristate::False => {
                if let Some(v) = exact_value(&ty, &wip) {
                    return v.mark(marks);
                }
            }
            Tristate::Unknown => {}
        }
        Value::unknown_refined(ty, wip.to_refinement()).mark(marks)
    }
}

/// The one value a not-null refinement leaves, if there is only one.
fn exact_value(ty: &Type, wip: &Raw) -> Option<Value> {
    match wip {
        Raw::Number {
            min: Some((lo, true)),
            max: Some((hi, true)),
            ..
        } => (lo.equals(hi).as_bool() == Some(true)).then(|| lo.clone()),
        Raw::Collection { min, max, .. } if min == max => {
            let ety = ty.element_type()?.clone();
            match (ty, *min) {
                (Type::List(_), 0) => Some(Value::list(ety, Vec::new())),
                (Type::Set(_), 0) => Some(Value::set(ety, Vec::new())),
                (Type::Map(_), 0) => Some(Value::map(ety, BTreeMap::new())),
                (Type::List(_), n) if n <= MAX_MATERIALIZED_LENGTH => {
                    let elems = vec![Value::unknown(ety.clone()); n as usize];
                    Some(Value::list(ety, elems))
                }
                (Type::Set(_), 1) => Some(Value::set(ety.clone(), vec![Value::unknown(ety)])),
                _ => None,
            }
        }
        _ => None,
    }
}

fn bounds_consistent(min: Option<&(Value, bool)>, max: Option<&(Value, bool)>) -> bool {
    let (Some((lo, lo_inc)), Some((hi, hi_inc))) = (min, max) else {
        return true;
    };
    let ok = if lo_inc != hi_inc {
        lo.less_than(hi)
    } else {
        lo.less_than_or_equal_to(hi)
    };
    !known_false(ok)
}

/// Partial knowledge about a value's range (cty `ValueRange`).
#[derive(Clone, Debug)]
pub struct ValueRange {
    ty: Type,
    raw: Raw,
}

impl ValueRange {
    pub fn type_constraint(&self) -> &Type {
        &self.ty
    }

    pub fn could_be_null(&self) -> bool {
        self.raw.null() != Tristate::False
    }

    pub fn definitely_not_null(&self) -> bool {
        self.raw.null() == Tristate::False
    }

    /// The lower bound of a number and whether it is inclusive: an unknown
    /// number when the type is not yet known, negative infinity when there
    /// is no bound.
    pub fn number_lower_bound(&self) -> (Value, bool) {
        if self.ty != Type::Number {
            return (Value::unknown(Type::Number), false);
        }
        match &self.raw {
            Raw::Number {
                min: Some((v, inc)),
                ..
            } => (v.clone(), *inc),
            _ => (Value::number(Number::infinity(true)), false),
        }
    }

    pub fn number_upper_bound(&self) -> (Value, bool) {
        if self.ty != Type::Number {
            return (Value::unknown(Type::Number), false);
        }
        match &self.raw {
            Raw::Number {
                max: Some((v, inc)),
                ..
            } => (v.clone(), *inc),
            _ => (Value::number(Number::infinity(false)), false),
        }
    }

    /// A prefix the string is known to start with ("" when none).
    pub fn string_prefix(&self) -> &str {
        match &self.raw {
            Raw::String { prefix, .. } => prefix,
            _ => "",
        }
    }

    pub fn length_lower_bound(&self) -> u64 {
        match &self.raw {
            Raw::Collection { min, .. } => *min,
            _ => 0,
        }
    }

    /// The upper bound of a collection's length (`MAX_LENGTH` when none).
    pub fn length_upper_bound(&self) -> u64 {
        match &self.raw {
            Raw::Collection { max, .. } => *max,
            _ => MAX_LENGTH,
        }
    }

    /// Whether `v` is in the range: true, false, or an unknown bool when
    /// there is not enough information (cty `ValueRange.Includes`, which
    /// mostly aims at proving exclusion).
    pub fn includes(&self, v: &Value) -> Value {
        let unknown = Value::unknown(Type::Bool).refine_not_null();
        match self.raw.null() {
            Tristate::True => return Value::bool(v.is_null()),
            Tristate::False if v.is_null() => return Value::bool(false),
            _ => {}
        }
        if v.is_null() {
            return Value::bool(true);
        }
        if !crate::ops::type_conforms(&v.ty, &self.ty) {
            return Value::bool(false);
        }
        if v.ty.is_dynamic() {
            return unknown;
        }
        match &self.raw {
            Raw::String { prefix, .. } => {
                if let Some(got) = v.as_str() {
                    if !got.starts_with(prefix.as_str()) {
                        return Value::bool(false);
                    }
                }
            }
            Raw::Collection { min, max, .. } => {
                if let Ok(len) = v.length() {
                    if known_false(len.greater_than_or_equal_to(&number_value(*min))) {
                        return Value::bool(false);
                    }
                    if known_false(len.less_than_or_equal_to(&number_value(*max))) {
                        return Value::bool(false);
                    }
                }
            }
            Raw::Number { .. } => {
                let (lo, lo_inc) = self.number_lower_bound();
                let (hi, hi_inc) = self.number_upper_bound();
                let min_ok = if lo_inc {
                    v.greater_than_or_equal_to(&lo)
                } else {
                    v.greater_than(&lo)
                };
                let max_ok = if hi_inc {
                    v.less_than_or_equal_to(&hi)
                } else {
                    v.less_than(&hi)
                };
                if known_false(min_ok) || known_false(max_ok) {
                    return Value::bool(false);
                }
            }
            Raw::Nullable { .. } => {}
        }
        unknown
    }
}

/// NFC normalization, as cty applies it to strings and attribute names.
pub(crate) fn nfc(s: &str) -> String {
    use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};
    if is_nfc_quick(s.chars()) == IsNormalized::Yes {
        s.to_string()
    } else {
        s.nfc().collect()
    }
}

// ----- cty's SafeKnownPrefix -----

/// Characters that can be the first half of a canonical composition
/// (Go's "combines forward" normalization property).
fn combines_forward(c: char) -> bool {
    static SET: OnceLock<HashSet<char>> = OnceLock::new();
    SET.get_or_init(|| {
        use unicode_normalization::char::{compose, decompose_canonical};
        let mut set = HashSet::new();
        // Canonical decompositions all lie below U+30000.
        for cp in 0u32..0x30000 {
            let Some(x) = char::from_u32(cp) else {
                continue;
            };
            let mut d = Vec::new();
            decompose_canonical(x, |c| d.push(c));
            if d.len() < 2 {
                continue;
            }
            let Some(&last) = d.last() else { continue };
            let head = nfc(&d[..d.len() - 1].iter().collect::<String>());
            let mut head_chars = head.chars();
            if let (Some(a), None) = (head_chars.next(), head_chars.next()) {
                if compose(a, last) == Some(x) {
                    set.insert(a);
                }
            }
        }
        set
    })
    .contains(&c)
}

fn has_decomposition(c: char) -> bool {
    let mut d = Vec::new();
    unicode_normalization::char::decompose_canonical(c, |x| d.push(x));
    d.len() != 1 || d[0] != c
}

fn lead_ccc(c: char) -> u8 {
    let mut first = None;
    unicode_normalization::char::decompose_canonical(c, |x| {
        if first.is_none() {
            first = Some(x)
        }
    });
    unicode_normalization::char::canonical_combining_class(first.unwrap_or(c))
}

fn nfc_quick_check(c: char) -> unicode_normalization::IsNormalized {
    unicode_normalization::is_nfc_quick(std::iter::once(c))
}

/// Go norm's `BoundaryAfter` (the rune is inert under NFC).
fn boundary_after(c: char) -> bool {
    lead_ccc(c) == 0
        && !has_decomposition(c)
        && nfc_quick_check(c) == unicode_normalization::IsNormalized::Yes
        && !combines_forward(c)
}

/// Go norm's `BoundaryBefore` (a starter that cannot combine backwards).
fn boundary_before(c: char) -> bool {
    lead_ccc(c) == 0 && nfc_quick_check(c) != unicode_normalization::IsNormalized::Maybe
}

/// Go's `norm.NFC.LastBoundary`: the byte offset of the last normalization
/// boundary, or None when there is none.
fn last_boundary(s: &str) -> Option<usize> {
    const MAX_COMBINING_CHARS: usize = 30;
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let &(last_pos, last) = chars.last()?;
    if boundary_after(last) {
        return Some(s.len());
    }
    let mut idx = chars.len() - 1;
    let mut pos = last_pos;
    let mut c = last;
    let mut n = 0;
    while !boundary_before(c) {
        if idx == 0 {
            return None;
        }
        n += 1;
        if n >= MAX_COMBINING_CHARS {
            return Some(s.len());
        }
        idx -= 1;
        (pos, c) = chars[idx];
    }
    Some(pos)
}

/// cty's `ctystrings.SafeKnownPrefix`: the longest prefix of `prefix`
/// (NFC-normalized) that later characters cannot change through
/// normalization or grapheme clustering.
pub fn safe_known_prefix(prefix: &str) -> String {
    use unicode_segmentation::UnicodeSegmentation;
    let prefix = nfc(prefix);
    if let Some(b) = last_boundary(&prefix) {
        if b != prefix.len() {
            return prefix[..b].to_string();
        }
    }
    let (start, last) = match prefix.grapheme_indices(true).next_back() {
        Some((i, g)) => (i, g),
        None => return String::new(),
    };
    let mut chars = last.chars();
    let keep_all = match (chars.next(), chars.next()) {
        (Some(c), None) => matches!(
            c,
            '-' | '_'
                | ':'
                | ';'
                | '/'
                | '\\'
                | ','
                | '.'
                | '('
                | ')'
                | '{'
                | '}'
                | '['
                | ']'
                | '|'
                | '?'
                | '!'
                | '~'
                | ' '
                | '\t'
                | '@'
                | '#'
                | '$'
                | '%'
                | '^'
                | '&'
                | '*'
                | '+'
                | '"'
                | '\''
        ),
        _ => false,
    };
    if keep_all {
        prefix
    } else {
        prefix[..start].to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_known_prefix_cases() {
        // From cty's own table for SafeKnownPrefix.
        let cases: &[(&str, &str)] = &[
            ("", ""),
            ("a", ""),
            ("boo", "bo"),
            ("boop\r", "boop"),
            ("hello 가", "hello "),
            ("hello 🤷🏽\u{200d}♂\u{fe0f}", "hello "),
            ("hello 🤷🏽\u{200d}♂\u{fe0f} ", "hello 🤷🏽\u{200d}♂\u{fe0f} "),
            ("hello 🤷", "hello "),
            ("hello 🤷 ", "hello 🤷 "),
            ("hello 🤷\u{200d}", "hello "),
            ("hello \u{1f1e6}", "hello "),
            ("hello \u{1f1e6}\u{1f1e6}", "hello "),
            ("hello \u{1f1e6}\u{1f1e6} ", "hello \u{1f1e6}\u{1f1e6} "),
            ("ami-", "ami-"),
            ("foo_", "foo_"),
            ("{\"foo\":", "{\"foo\":"),
            ("beep();", "beep();"),
            ("https://", "https://"),
            ("c:\\", "c:\\"),
            ("[\"foo\",", "[\"foo\","),
            ("foo.bar.", "foo.bar."),
            ("beep(", "beep("),
            ("beep()", "beep()"),
            ("{", "{"),
            ("[{}", "[{}"),
            ("[", "["),
            ("[[]", "[[]"),
            ("whatever |", "whatever |"),
            ("a=", "a"),
            ("e\u{301}", ""),
        ];
        for (input, want) in cases {
            assert_eq!(
                safe_known_prefix(input),
                *want,
                "safe_known_prefix({input:?})"
            );
        }
    }
}
