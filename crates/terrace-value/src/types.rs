//! cty types. Compound types are reference-counted so cloning a `Type` (which
//! every `Value` carries) never copies a tree.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    Bool,
    Number,
    String,
    /// cty's `DynamicPseudoType`: "any type", a placeholder in type
    /// constraints and the type of values whose type is not yet known.
    Dynamic,
    List(Arc<Type>),
    Set(Arc<Type>),
    Map(Arc<Type>),
    Object(Arc<ObjectType>),
    Tuple(Arc<Vec<Type>>),
}

/// Attributes are kept sorted by name, as cty does; `optional` names the
/// attributes that may be omitted when converting to this type (only
/// meaningful in type constraints, as `optional(...)` in HCL).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ObjectType {
    pub attributes: BTreeMap<String, Type>,
    pub optional: BTreeSet<String>,
}

impl Type {
    pub fn list(element: Type) -> Type {
        Type::List(Arc::new(element))
    }
    pub fn set(element: Type) -> Type {
        Type::Set(Arc::new(element))
    }
    pub fn map(element: Type) -> Type {
        Type::Map(Arc::new(element))
    }
    /// Tuple and object types are interned (`intern.rs`): equal types
    /// share one allocation, which is also what lets the interner compare
    /// nested types by address.
    pub fn tuple(elements: Vec<Type>) -> Type {
        Type::Tuple(crate::intern::tuple(elements.iter()))
    }
    /// The tuple type of element types given by reference.
    pub fn tuple_of<'a>(elements: impl Iterator<Item = &'a Type> + Clone) -> Type {
        Type::Tuple(crate::intern::tuple(elements))
    }
    pub fn object(attributes: impl IntoIterator<Item = (String, Type)>) -> Type {
        let attributes: BTreeMap<String, Type> = attributes.into_iter().collect();
        Type::object_with_optional(attributes, BTreeSet::new())
    }
    /// The object type of `attributes` given by reference, for values that
    /// already hold their attribute names: nothing is copied when the type
    /// exists already.
    pub fn object_of<'a>(attributes: impl Iterator<Item = (&'a str, &'a Type)> + Clone) -> Type {
        Type::Object(crate::intern::object(attributes, &BTreeSet::new()))
    }
    pub fn object_with_optional(
        attributes: BTreeMap<String, Type>,
        optional: BTreeSet<String>,
    ) -> Type {
        Type::Object(crate::intern::object(
            attributes.iter().map(|(n, t)| (n.as_str(), t)),
            &optional,
        ))
    }
    pub fn empty_object() -> Type {
        Type::object([])
    }
    pub fn empty_tuple() -> Type {
        Type::tuple(Vec::new())
    }

    pub fn is_primitive(&self) -> bool {
        matches!(self, Type::Bool | Type::Number | Type::String)
    }
    pub fn is_collection(&self) -> bool {
        matches!(self, Type::List(_) | Type::Set(_) | Type::Map(_))
    }
    pub fn is_structural(&self) -> bool {
        matches!(self, Type::Object(_) | Type::Tuple(_))
    }
    pub fn is_list(&self) -> bool {
        matches!(self, Type::List(_))
    }
    pub fn is_set(&self) -> bool {
        matches!(self, Type::Set(_))
    }
    pub fn is_map(&self) -> bool {
        matches!(self, Type::Map(_))
    }
    pub fn is_object(&self) -> bool {
        matches!(self, Type::Object(_))
    }
    pub fn is_tuple(&self) -> bool {
        matches!(self, Type::Tuple(_))
    }
    pub fn is_dynamic(&self) -> bool {
        matches!(self, Type::Dynamic)
    }

    /// The element type of a list, set or map.
    pub fn element_type(&self) -> Option<&Type> {
        match self {
            Type::List(e) | Type::Set(e) | Type::Map(e) => Some(e),
            _ => None,
        }
    }

    pub fn object_type(&self) -> Option<&ObjectType> {
        match self {
            Type::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn tuple_elements(&self) -> Option<&[Type]> {
        match self {
            Type::Tuple(t) => Some(t),
            _ => None,
        }
    }

    pub fn attribute_type(&self, name: &str) -> Option<&Type> {
        self.object_type().and_then(|o| o.attributes.get(name))
    }

    /// True when the type is or contains `Dynamic` (cty's `HasDynamicTypes`).
    pub fn has_dynamic_types(&self) -> bool {
        match self {
            Type::Dynamic => true,
            Type::Bool | Type::Number | Type::String => false,
            Type::List(e) | Type::Set(e) | Type::Map(e) => e.has_dynamic_types(),
            Type::Object(o) => o.attributes.values().any(Type::has_dynamic_types),
            Type::Tuple(t) => t.iter().any(Type::has_dynamic_types),
        }
    }

    /// cty's `Type.Equals` ignores optional-attribute annotations? No: cty
    /// compares them too. This compares the shape only, ignoring `optional`,
    /// for places where a constraint is matched against a concrete type.
    pub fn same_shape(&self, other: &Type) -> bool {
        match (self, other) {
            (Type::List(a), Type::List(b))
            | (Type::Set(a), Type::Set(b))
            | (Type::Map(a), Type::Map(b)) => a.same_shape(b),
            (Type::Object(a), Type::Object(b)) => {
                a.attributes.len() == b.attributes.len()
                    && a.attributes
                        .iter()
                        .zip(b.attributes.iter())
                        .all(|((an, at), (bn, bt))| an == bn && at.same_shape(bt))
            }
            (Type::Tuple(a), Type::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.same_shape(y))
            }
            _ => self == other,
        }
    }

    /// The type without any optional-attribute annotations, as
    /// `Type.WithoutOptionalAttributesDeep` in cty.
    pub fn without_optional_attributes(&self) -> Type {
        match self {
            Type::List(e) => Type::list(e.without_optional_attributes()),
            Type::Set(e) => Type::set(e.without_optional_attributes()),
            Type::Map(e) => Type::map(e.without_optional_attributes()),
            Type::Object(o) => Type::object(
                o.attributes
                    .iter()
                    .map(|(k, v)| (k.clone(), v.without_optional_attributes())),
            ),
            Type::Tuple(t) => {
                Type::tuple(t.iter().map(Type::without_optional_attributes).collect())
            }
            _ => self.clone(),
        }
    }

    /// cty's `FriendlyName`: "string", "list of number", "object", "tuple",
    /// "dynamic"... used in error messages.
    pub fn friendly_name(&self) -> String {
        match self {
            Type::Bool => "bool".into(),
            Type::Number => "number".into(),
            Type::String => "string".into(),
            Type::Dynamic => "dynamic".into(),
            Type::List(e) => format!("list of {}", e.friendly_name()),
            Type::Set(e) => format!("set of {}", e.friendly_name()),
            Type::Map(e) => format!("map of {}", e.friendly_name()),
            Type::Object(_) => "object".into(),
            Type::Tuple(_) => "tuple".into(),
        }
    }

    /// cty's `FriendlyNameForConstraint`: like `friendly_name` but says
    /// "any type" for Dynamic.
    pub fn friendly_name_for_constraint(&self) -> String {
        match self {
            Type::Dynamic => "any type".into(),
            // cty says "any single type" for a collection's element.
            Type::List(e) if e.is_dynamic() => "list of any single type".into(),
            Type::Set(e) if e.is_dynamic() => "set of any single type".into(),
            Type::Map(e) if e.is_dynamic() => "map of any single type".into(),
            Type::List(e) => format!("list of {}", e.friendly_name_for_constraint()),
            Type::Set(e) => format!("set of {}", e.friendly_name_for_constraint()),
            Type::Map(e) => format!("map of {}", e.friendly_name_for_constraint()),
            _ => self.friendly_name(),
        }
    }

    /// The type as HCL type-constraint syntax, as Terraform's `type()`
    /// console function and `typeexpr.TypeString` print it:
    /// `list(string)`, `object({a=number})`, `tuple([string])`, `any`.
    pub fn type_string(&self) -> String {
        match self {
            Type::Bool => "bool".into(),
            Type::Number => "number".into(),
            Type::String => "string".into(),
            Type::Dynamic => "any".into(),
            Type::List(e) => format!("list({})", e.type_string()),
            Type::Set(e) => format!("set({})", e.type_string()),
            Type::Map(e) => format!("map({})", e.type_string()),
            Type::Object(o) => {
                let mut s = String::from("object({");
                for (i, (name, ty)) in o.attributes.iter().enumerate() {
                    if i > 0 {
                        s.push(',');
                    }
                    s.push_str(name);
                    s.push('=');
                    if o.optional.contains(name) {
                        s.push_str(&format!("optional({})", ty.type_string()));
                    } else {
                        s.push_str(&ty.type_string());
                    }
                }
                s.push_str("})");
                s
            }
            Type::Tuple(t) => {
                let parts: Vec<String> = t.iter().map(Type::type_string).collect();
                format!("tuple([{}])", parts.join(","))
            }
        }
    }
}

impl fmt::Debug for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.type_string())
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.type_string())
    }
}

impl fmt::Debug for ObjectType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            &Type::object_with_optional(self.attributes.clone(), self.optional.clone())
                .type_string(),
        )
    }
}
