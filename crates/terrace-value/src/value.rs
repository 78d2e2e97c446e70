//! cty values: known, unknown (optionally refined) or typed null, with marks.
//!
//! Invariants every constructor keeps (operations rely on them):
//! - strings are NFC-normalized, as cty normalizes on entry;
//! - set elements are distinct (by `equals`) and kept in cty's set order
//!   (`crate::ops::normalize_set_elements`), so iteration and display need no sorting;
//! - collection elements all have exactly the collection's element type;
//! - marks live on the value they were applied to, at any depth, as in cty.

use crate::attrs::Attrs;
use crate::number::Number;
use crate::types::Type;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Marks carried by a value. A small bit set: terrace knows only the marks
/// Terraform uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Marks(u8);

impl Marks {
    pub const NONE: Marks = Marks(0);
    pub const SENSITIVE: Marks = Marks(1);
    pub const EPHEMERAL: Marks = Marks(2);
    /// The result of the console-only `type()` function (Terraform's
    /// `marks.TypeType`): the console prints it as a type and refuses it
    /// anywhere inside a larger value.
    pub const TYPE_VALUE: Marks = Marks(4);

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn contains(self, other: Marks) -> bool {
        self.0 & other.0 == other.0 && other.0 != 0
    }
    pub fn union(self, other: Marks) -> Marks {
        Marks(self.0 | other.0)
    }
    pub fn without(self, other: Marks) -> Marks {
        Marks(self.0 & !other.0)
    }
    pub fn is_sensitive(self) -> bool {
        self.contains(Marks::SENSITIVE)
    }
    pub fn is_ephemeral(self) -> bool {
        self.contains(Marks::EPHEMERAL)
    }
}

/// What is known about an unknown value (cty refinements). Only the parts
/// that make sense for the value's type are ever set.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Refinement {
    /// The eventual value is definitely not null.
    pub not_null: bool,
    /// Strings: a known prefix of the eventual value.
    pub string_prefix: Option<String>,
    /// Numbers: bounds, each with an "inclusive" flag.
    pub number_lower: Option<(Number, bool)>,
    pub number_upper: Option<(Number, bool)>,
    /// Collections: bounds on the eventual length.
    pub length_lower: Option<u64>,
    pub length_upper: Option<u64>,
}

impl Refinement {
    pub fn is_empty(&self) -> bool {
        *self == Refinement::default()
    }
}

#[derive(Clone, Debug)]
pub(crate) enum Repr {
    Null,
    Unknown(Option<Arc<Refinement>>),
    Bool(bool),
    Number(Arc<Number>),
    String(Arc<str>),
    /// Elements of a list, set or tuple.
    Seq(Arc<Vec<Value>>),
    /// Elements of a map or attributes of an object.
    Attrs(Arc<Attrs>),
}

#[derive(Clone, Debug)]
pub struct Value {
    pub(crate) ty: Type,
    pub(crate) repr: Repr,
    pub(crate) marks: Marks,
}

impl Value {
    // ----- constructors -----

    pub fn null(ty: Type) -> Value {
        Value {
            ty,
            repr: Repr::Null,
            marks: Marks::NONE,
        }
    }

    pub fn unknown(ty: Type) -> Value {
        Value {
            ty,
            repr: Repr::Unknown(None),
            marks: Marks::NONE,
        }
    }

    /// cty's `DynamicVal`: an unknown value of unknown type. Never refined.
    pub fn dynamic() -> Value {
        Value::unknown(Type::Dynamic)
    }

    /// An unknown value with refinements. Refinements on `Dynamic` are
    /// dropped, as cty keeps `DynamicVal` a singleton.
    pub fn unknown_refined(ty: Type, refinement: Refinement) -> Value {
        if ty.is_dynamic() || refinement.is_empty() {
            return Value::unknown(ty);
        }
        Value {
            ty,
            repr: Repr::Unknown(Some(Arc::new(refinement))),
            marks: Marks::NONE,
        }
    }

    pub fn bool(b: bool) -> Value {
        Value {
            ty: Type::Bool,
            repr: Repr::Bool(b),
            marks: Marks::NONE,
        }
    }

    pub fn number(n: Number) -> Value {
        Value {
            ty: Type::Number,
            repr: Repr::Number(Arc::new(n)),
            marks: Marks::NONE,
        }
    }

    pub fn int(i: i64) -> Value {
        Value::number(Number::from_i64(i))
    }

    /// A string value; the text is NFC-normalized as cty's `StringVal` does.
    pub fn string(s: impl AsRef<str>) -> Value {
        let s = s.as_ref();
        let text: Arc<str> = if unicode_normalization::is_nfc_quick(s.chars())
            == unicode_normalization::IsNormalized::Yes
        {
            Arc::from(s)
        } else {
            use unicode_normalization::UnicodeNormalization;
            Arc::from(s.nfc().collect::<String>())
        };
        Value {
            ty: Type::String,
            repr: Repr::String(text),
            marks: Marks::NONE,
        }
    }

    /// A list of the given element type. The caller guarantees every element
    /// has exactly that type.
    pub fn list(element_type: Type, elements: Vec<Value>) -> Value {
        debug_assert!(
            elements.iter().all(|e| e.ty == element_type),
            "inconsistent list element types"
        );
        Value {
            ty: Type::list(element_type),
            repr: Repr::Seq(Arc::new(elements)),
            marks: Marks::NONE,
        }
    }

    /// A set of the given element type: duplicates are removed and the
    /// elements put in cty's set order.
    pub fn set(element_type: Type, elements: Vec<Value>) -> Value {
        debug_assert!(
            elements.iter().all(|e| e.ty == element_type),
            "inconsistent set element types"
        );
        // cty keeps no marks inside sets: element marks move to the set.
        let (elements, marks) = crate::ops::hoist_set_marks(elements);
        let elements = crate::ops::normalize_set_elements(elements);
        Value {
            ty: Type::set(element_type),
            repr: Repr::Seq(Arc::new(elements)),
            marks,
        }
    }

    pub fn map(element_type: Type, elements: BTreeMap<String, Value>) -> Value {
        debug_assert!(
            elements.values().all(|e| e.ty == element_type),
            "inconsistent map element types"
        );
        Value {
            ty: Type::map(element_type),
            repr: Repr::Attrs(Arc::new(Attrs::from(elements))),
            marks: Marks::NONE,
        }
    }

    /// An object whose type is derived from its attribute values.
    pub fn object(attributes: BTreeMap<String, Value>) -> Value {
        let ty = Type::object_of(attributes.iter().map(|(k, v)| (k.as_str(), &v.ty)));
        Value {
            ty,
            repr: Repr::Attrs(Arc::new(Attrs::from(attributes))),
            marks: Marks::NONE,
        }
    }

    pub fn empty_object() -> Value {
        Value::object(BTreeMap::new())
    }

    /// A tuple whose type is derived from its element values.
    pub fn tuple(elements: Vec<Value>) -> Value {
        let ty = Type::tuple_of(elements.iter().map(|e| &e.ty));
        Value {
            ty,
            repr: Repr::Seq(Arc::new(elements)),
            marks: Marks::NONE,
        }
    }

    pub fn empty_tuple() -> Value {
        Value::tuple(Vec::new())
    }

    // ----- inspection -----

    pub fn ty(&self) -> &Type {
        &self.ty
    }

    pub fn is_null(&self) -> bool {
        matches!(self.repr, Repr::Null)
    }

    pub fn is_known(&self) -> bool {
        !matches!(self.repr, Repr::Unknown(_))
    }

    /// Known, and every nested element and attribute known too.
    pub fn is_wholly_known(&self) -> bool {
        match &self.repr {
            Repr::Unknown(_) => false,
            Repr::Seq(v) => v.iter().all(Value::is_wholly_known),
            Repr::Attrs(m) => m.values().all(Value::is_wholly_known),
            _ => true,
        }
    }

    pub fn refinement(&self) -> Option<&Refinement> {
        match &self.repr {
            Repr::Unknown(Some(r)) => Some(r),
            _ => None,
        }
    }

    /// True for an unknown value refined as not null, or any known value.
    pub fn is_definitely_not_null(&self) -> bool {
        match &self.repr {
            Repr::Null => false,
            Repr::Unknown(r) => r.as_ref().is_some_and(|r| r.not_null),
            _ => true,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.repr {
            Repr::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_number(&self) -> Option<&Number> {
        match &self.repr {
            Repr::Number(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.repr {
            Repr::String(s) => Some(s),
            _ => None,
        }
    }

    /// The elements of a known list, set or tuple, in order.
    pub fn as_elements(&self) -> Option<&[Value]> {
        match &self.repr {
            Repr::Seq(v) => Some(v),
            _ => None,
        }
    }

    /// The elements of a known map or the attributes of a known object.
    pub fn as_attributes(&self) -> Option<&Attrs> {
        match &self.repr {
            Repr::Attrs(m) => Some(m),
            _ => None,
        }
    }

    /// The number of elements (or attributes) of a known collection or
    /// structural value.
    pub fn known_length(&self) -> Option<usize> {
        match &self.repr {
            Repr::Seq(v) => Some(v.len()),
            Repr::Attrs(m) => Some(m.len()),
            _ => None,
        }
    }

    // ----- marks -----

    /// The marks on this value itself (not its elements).
    pub fn marks(&self) -> Marks {
        self.marks
    }

    pub fn is_marked(&self) -> bool {
        !self.marks.is_empty()
    }

    pub fn is_sensitive(&self) -> bool {
        self.marks.is_sensitive()
    }

    pub fn mark(mut self, marks: Marks) -> Value {
        self.marks = self.marks.union(marks);
        self
    }

    pub fn with_marks(self, marks: Marks) -> Value {
        self.mark(marks)
    }

    /// Removes the marks of this value itself, returning them.
    pub fn unmark(mut self) -> (Value, Marks) {
        let marks = self.marks;
        self.marks = Marks::NONE;
        (self, marks)
    }

    /// Removes `marks` from this value only.
    pub fn without_marks(mut self, marks: Marks) -> Value {
        self.marks = self.marks.without(marks);
        self
    }

    /// Marks found anywhere in the value, including nested ones.
    pub fn deep_marks(&self) -> Marks {
        let inner = match &self.repr {
            Repr::Seq(v) => v.iter().fold(Marks::NONE, |m, e| m.union(e.deep_marks())),
            Repr::Attrs(m) => m
                .values()
                .fold(Marks::NONE, |acc, e| acc.union(e.deep_marks())),
            _ => Marks::NONE,
        };
        self.marks.union(inner)
    }

    /// The value with every mark removed at every depth, and the union of
    /// the removed marks (cty's `UnmarkDeep`).
    pub fn unmark_deep(&self) -> (Value, Marks) {
        let marks = self.deep_marks();
        if marks.is_empty() {
            return (self.clone(), marks);
        }
        (self.strip_marks_deep(Marks(u8::MAX)), marks)
    }

    /// Removes the given marks at every depth.
    pub fn strip_marks_deep(&self, marks: Marks) -> Value {
        let repr = match &self.repr {
            Repr::Seq(v) => Repr::Seq(Arc::new(
                v.iter().map(|e| e.strip_marks_deep(marks)).collect(),
            )),
            Repr::Attrs(m) => Repr::Attrs(Arc::new(
                m.iter()
                    .map(|(k, e)| (k.clone(), e.strip_marks_deep(marks)))
                    .collect(),
            )),
            other => other.clone(),
        };
        Value {
            ty: self.ty.clone(),
            repr,
            marks: self.marks.without(marks),
        }
    }

    /// Marks an unknown value as definitely not null (cty
    /// `Refine().NotNull()`); known values are returned unchanged.
    pub fn refine_not_null(self) -> Value {
        // Through the builder so that refinements leaving one possible
        // value (a not-null list of known length) become that value.
        self.refine().not_null().new_value()
    }

    // ----- internal helpers for sibling modules -----

    pub(crate) fn from_parts(ty: Type, repr: Repr, marks: Marks) -> Value {
        Value { ty, repr, marks }
    }
}
