//! Provider schemas: what a provider, its resource types, data sources and
//! ephemeral resources accept, as blocks of attributes and nested blocks
//! (OpenTofu's `configschema`), and the cty type each schema implies for
//! the values exchanged with the provider.
//!
//! The implied type is what every value on the wire is encoded against, so
//! it follows HCL's `hcldec` specs exactly: a list or map of nested blocks
//! whose own type contains `dynamic` cannot be a collection (the elements
//! could differ in type), so it becomes `dynamic` itself; an attribute and a
//! block type of the same name keep the attribute; optional attributes are
//! dropped from implied types.
//!
//! The model derives serde's traits so that the schema cache can store it
//! (types are written as their cty type JSON). Unknown and missing fields
//! are errors, so a stored schema from a different model fails to load
//! instead of loading wrong.

use crate::diagnostics::AttributePath;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use terrace_value::{Type, Value};

/// Everything a provider describes about itself in `GetProviderSchema`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderSchema {
    pub provider: Schema,
    /// The schema of `provider_meta` blocks in modules, when the provider
    /// accepts them.
    pub provider_meta: Option<Schema>,
    pub resource_types: BTreeMap<String, Schema>,
    pub data_sources: BTreeMap<String, Schema>,
    pub ephemeral_resources: BTreeMap<String, Schema>,
    pub functions: BTreeMap<String, FunctionSpec>,
    pub server_capabilities: ServerCapabilities,
}

/// The schema of one configuration body with its version (resource types
/// version their schemas so that old states can be upgraded).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Schema {
    pub version: i64,
    pub block: Block,
}

impl Schema {
    pub fn implied_type(&self) -> Type {
        self.block.implied_type()
    }
}

/// Optional features a provider announces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerCapabilities {
    /// The provider wants `PlanResourceChange` for destroys too.
    pub plan_destroy: bool,
    /// The provider works without `GetProviderSchema` having been called
    /// in this process, so a cached schema may be used.
    pub get_provider_schema_optional: bool,
    /// The provider implements `MoveResourceState`.
    pub move_resource_state: bool,
}

/// How description text is formatted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum StringKind {
    #[default]
    Plain,
    Markdown,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Block {
    pub attributes: BTreeMap<String, Attribute>,
    pub block_types: BTreeMap<String, NestedBlock>,
    pub description: String,
    pub description_kind: StringKind,
    pub deprecated: bool,
}

/// The type of an attribute: a cty type, or (protocol 6 only) nested
/// attributes with their own flags.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttributeType {
    Type(#[serde(with = "type_json")] Type),
    Nested(NestedAttributes),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attribute {
    pub ty: AttributeType,
    pub description: String,
    pub description_kind: StringKind,
    pub required: bool,
    pub optional: bool,
    pub computed: bool,
    pub sensitive: bool,
    pub deprecated: bool,
    /// Given in configuration but never stored in state or plan (managed
    /// resources only).
    pub write_only: bool,
}

impl Attribute {
    /// An attribute of type `ty` with every flag off; set the flags with
    /// struct update syntax or the fields.
    pub fn new(ty: Type) -> Attribute {
        Attribute {
            ty: AttributeType::Type(ty),
            description: String::new(),
            description_kind: StringKind::Plain,
            required: false,
            optional: false,
            computed: false,
            sensitive: false,
            deprecated: false,
            write_only: false,
        }
    }

    pub fn nested(nested: NestedAttributes) -> Attribute {
        Attribute {
            ty: AttributeType::Nested(nested),
            ..Attribute::new(Type::Dynamic)
        }
    }

    /// The type of this attribute's values on the wire, without optional
    /// attribute markers.
    pub fn implied_type(&self) -> Type {
        match &self.ty {
            AttributeType::Type(ty) => ty.without_optional_attributes(),
            AttributeType::Nested(nested) => nested.implied_type(),
        }
    }

    /// The type used to decode this attribute from configuration: like
    /// `implied_type`, but nested attributes that are optional or computed
    /// are optional object attributes.
    pub fn spec_type(&self) -> Type {
        match &self.ty {
            AttributeType::Type(ty) => ty.clone(),
            AttributeType::Nested(nested) => nested.spec_type(),
        }
    }
}

/// How a collection of nested attributes is shaped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ObjectNesting {
    Single,
    List,
    Set,
    Map,
}

/// Nested attributes (protocol 6's `Schema.Object`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NestedAttributes {
    pub nesting: ObjectNesting,
    pub attributes: BTreeMap<String, Attribute>,
}

impl NestedAttributes {
    pub fn implied_type(&self) -> Type {
        let object = Type::object(
            self.attributes
                .iter()
                .map(|(name, attribute)| (name.clone(), attribute.implied_type())),
        );
        self.wrap(object)
    }

    pub fn spec_type(&self) -> Type {
        let optional: BTreeSet<String> = self
            .attributes
            .iter()
            .filter(|(_, attribute)| attribute.optional || attribute.computed)
            .map(|(name, _)| name.clone())
            .collect();
        let object = Type::object_with_optional(
            self.attributes
                .iter()
                .map(|(name, attribute)| (name.clone(), attribute.spec_type()))
                .collect(),
            optional,
        );
        self.wrap(object)
    }

    fn wrap(&self, object: Type) -> Type {
        match self.nesting {
            ObjectNesting::Single => object,
            ObjectNesting::List => Type::list(object),
            ObjectNesting::Set => Type::set(object),
            ObjectNesting::Map => Type::map(object),
        }
    }
}

/// How many times a nested block may appear and how its instances are
/// collected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum NestingMode {
    /// At most one block; absent means null.
    Single,
    /// At most one block; absent means an object of nulls and defaults,
    /// never null.
    Group,
    List,
    Set,
    /// Blocks with one label, collected by label.
    Map,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NestedBlock {
    pub nesting: NestingMode,
    pub block: Block,
    pub min_items: i64,
    pub max_items: i64,
}

impl Block {
    /// The object type of values of this block on the wire.
    pub fn implied_type(&self) -> Type {
        let mut attributes: BTreeMap<String, Type> = self
            .attributes
            .iter()
            .map(|(name, attribute)| (name.clone(), attribute.implied_type()))
            .collect();
        for (name, nested) in &self.block_types {
            // hcldec gives an attribute precedence over a block type of the
            // same name; a provider should never declare both.
            if attributes.contains_key(name) {
                continue;
            }
            attributes.insert(name.clone(), nested.implied_type());
        }
        Type::object(attributes)
    }

    /// Whether any attribute is sensitive, at any depth.
    pub fn contains_sensitive(&self) -> bool {
        self.attributes.values().any(attribute_contains_sensitive)
            || self
                .block_types
                .values()
                .any(|nested| nested.block.contains_sensitive())
    }

    /// Whether any attribute is write-only, at any depth.
    pub fn contains_write_only(&self) -> bool {
        self.attributes.values().any(attribute_contains_write_only)
            || self
                .block_types
                .values()
                .any(|nested| nested.block.contains_write_only())
    }
}

impl Block {
    /// The paths of write-only attributes that are not null in `value` (a
    /// value of this block's implied type). A provider must return null
    /// for every write-only attribute; an unknown value is a violation
    /// too. Elements of sets have no path step, so a violation inside one
    /// is reported at the set.
    pub fn write_only_paths_with_values(&self, value: &Value) -> Vec<AttributePath> {
        let mut found = Vec::new();
        if self.contains_write_only() {
            self.collect_write_only(value, &AttributePath::root(), &mut found);
        }
        found
    }

    fn collect_write_only(
        &self,
        value: &Value,
        path: &AttributePath,
        found: &mut Vec<AttributePath>,
    ) {
        if value.is_null() || !value.is_known() {
            return;
        }
        let Some(attributes) = value.as_attributes() else {
            return;
        };
        for (name, attribute) in &self.attributes {
            if let Some(value) = attributes.get(name) {
                collect_attribute_write_only(
                    attribute,
                    value,
                    &path.clone().attribute(name),
                    found,
                );
            }
        }
        for (name, nested) in &self.block_types {
            if !nested.block.contains_write_only() {
                continue;
            }
            let Some(value) = attributes.get(name) else {
                continue;
            };
            let path = path.clone().attribute(name);
            match nested.nesting {
                NestingMode::Single | NestingMode::Group => {
                    nested.block.collect_write_only(value, &path, found)
                }
                NestingMode::List | NestingMode::Set | NestingMode::Map => {
                    for_each_element(value, &path, |element, path| {
                        nested.block.collect_write_only(element, path, found)
                    })
                }
            }
        }
    }
}

/// Calls `visit` with each element of a known collection (or tuple, or
/// object used as a map) and its path.
fn for_each_element(
    value: &Value,
    path: &AttributePath,
    mut visit: impl FnMut(&Value, &AttributePath),
) {
    if value.is_null() || !value.is_known() {
        return;
    }
    if let Some(elements) = value.as_elements() {
        let is_set = value.ty().is_set();
        for (index, element) in elements.iter().enumerate() {
            if is_set {
                visit(element, path);
            } else {
                let index = i64::try_from(index).unwrap_or(i64::MAX);
                visit(element, &path.clone().index(index));
            }
        }
    } else if let Some(entries) = value.as_attributes() {
        for (key, element) in entries {
            visit(element, &path.clone().key(key.clone()));
        }
    }
}

fn collect_attribute_write_only(
    attribute: &Attribute,
    value: &Value,
    path: &AttributePath,
    found: &mut Vec<AttributePath>,
) {
    if attribute.write_only {
        if !value.is_null() {
            found.push(path.clone());
        }
        return;
    }
    let AttributeType::Nested(nested) = &attribute.ty else {
        return;
    };
    if !nested
        .attributes
        .values()
        .any(attribute_contains_write_only)
    {
        return;
    }
    let mut visit_object = |object: &Value, path: &AttributePath| {
        if object.is_null() || !object.is_known() {
            return;
        }
        let Some(attributes) = object.as_attributes() else {
            return;
        };
        for (name, attribute) in &nested.attributes {
            if let Some(value) = attributes.get(name) {
                collect_attribute_write_only(
                    attribute,
                    value,
                    &path.clone().attribute(name),
                    found,
                );
            }
        }
    };
    match nested.nesting {
        ObjectNesting::Single => visit_object(value, path),
        ObjectNesting::List | ObjectNesting::Set | ObjectNesting::Map => {
            for_each_element(value, path, visit_object)
        }
    }
}

fn attribute_contains_sensitive(attribute: &Attribute) -> bool {
    attribute.sensitive
        || match &attribute.ty {
            AttributeType::Type(_) => false,
            AttributeType::Nested(nested) => {
                nested.attributes.values().any(attribute_contains_sensitive)
            }
        }
}

fn attribute_contains_write_only(attribute: &Attribute) -> bool {
    attribute.write_only
        || match &attribute.ty {
            AttributeType::Type(_) => false,
            AttributeType::Nested(nested) => nested
                .attributes
                .values()
                .any(attribute_contains_write_only),
        }
}

impl NestedBlock {
    pub fn implied_type(&self) -> Type {
        let object = self.block.implied_type();
        match self.nesting {
            NestingMode::Single | NestingMode::Group => object,
            // Blocks that may each have a different type (because of a
            // `dynamic` attribute inside) cannot form a list or map: hcldec
            // uses a tuple or object there, whose type is only known once
            // the blocks are, so the schema's type is `dynamic`.
            NestingMode::List if object.has_dynamic_types() => Type::Dynamic,
            NestingMode::List => Type::list(object),
            NestingMode::Set => Type::set(object),
            NestingMode::Map if object.has_dynamic_types() => Type::Dynamic,
            NestingMode::Map => Type::map(object),
        }
    }
}

/// A provider-defined function's signature and documentation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionSpec {
    pub parameters: Vec<FunctionParameter>,
    /// Accepts any number of further arguments of this parameter's type.
    pub variadic_parameter: Option<FunctionParameter>,
    #[serde(with = "type_json")]
    pub return_type: Type,
    pub summary: String,
    pub description: String,
    pub description_kind: StringKind,
    /// Non-empty when the function is deprecated.
    pub deprecation_message: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionParameter {
    pub name: String,
    #[serde(with = "type_json")]
    pub ty: Type,
    /// Null arguments reach the provider; otherwise a null is an error
    /// before the call.
    pub allow_null_value: bool,
    /// Arguments that are not wholly known reach the provider; otherwise
    /// the call is skipped and the result is unknown.
    pub allow_unknown_values: bool,
    pub description: String,
    pub description_kind: StringKind,
}

/// Types in serialized schemas: their cty type JSON text, which
/// `terrace_value::typejson` reads back exactly (optional attributes
/// included).
mod type_json {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};
    use terrace_value::{typejson, Type};

    pub fn serialize<S: Serializer>(ty: &Type, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&typejson::type_to_json(ty))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Type, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        typejson::type_from_json(text.as_bytes()).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(ty: Type) -> Attribute {
        Attribute {
            optional: true,
            ..Attribute::new(ty)
        }
    }

    fn block(
        attributes: Vec<(&str, Attribute)>,
        block_types: Vec<(&str, NestingMode, Block)>,
    ) -> Block {
        Block {
            attributes: attributes
                .into_iter()
                .map(|(name, attribute)| (name.to_string(), attribute))
                .collect(),
            block_types: block_types
                .into_iter()
                .map(|(name, nesting, block)| {
                    (
                        name.to_string(),
                        NestedBlock {
                            nesting,
                            block,
                            min_items: 0,
                            max_items: 0,
                        },
                    )
                })
                .collect(),
            ..Block::default()
        }
    }

    fn obj(attributes: Vec<(&str, Type)>) -> Type {
        Type::object(
            attributes
                .into_iter()
                .map(|(name, ty)| (name.to_string(), ty)),
        )
    }

    #[test]
    fn implied_types_follow_hcldec() {
        let inner = block(vec![("x", attr(Type::String))], vec![]);
        let dynamic_inner = block(vec![("d", attr(Type::Dynamic))], vec![]);
        let inner_ty = obj(vec![("x", Type::String)]);
        let cases: Vec<(&str, Block, Type)> = vec![
            ("empty", Block::default(), Type::empty_object()),
            (
                "single and group are objects",
                block(
                    vec![],
                    vec![
                        ("s", NestingMode::Single, inner.clone()),
                        ("g", NestingMode::Group, inner.clone()),
                    ],
                ),
                obj(vec![("s", inner_ty.clone()), ("g", inner_ty.clone())]),
            ),
            (
                "collections",
                block(
                    vec![],
                    vec![
                        ("l", NestingMode::List, inner.clone()),
                        ("t", NestingMode::Set, inner.clone()),
                        ("m", NestingMode::Map, inner.clone()),
                    ],
                ),
                obj(vec![
                    ("l", Type::list(inner_ty.clone())),
                    ("t", Type::set(inner_ty.clone())),
                    ("m", Type::map(inner_ty.clone())),
                ]),
            ),
            (
                "dynamic lists and maps become dynamic, sets do not",
                block(
                    vec![],
                    vec![
                        ("l", NestingMode::List, dynamic_inner.clone()),
                        ("t", NestingMode::Set, dynamic_inner.clone()),
                        ("m", NestingMode::Map, dynamic_inner.clone()),
                        ("s", NestingMode::Single, dynamic_inner.clone()),
                    ],
                ),
                obj(vec![
                    ("l", Type::Dynamic),
                    ("t", Type::set(obj(vec![("d", Type::Dynamic)]))),
                    ("m", Type::Dynamic),
                    ("s", obj(vec![("d", Type::Dynamic)])),
                ]),
            ),
            (
                "dynamic deep inside a list of blocks",
                block(
                    vec![],
                    vec![(
                        "outer",
                        NestingMode::List,
                        block(vec![], vec![("l", NestingMode::List, dynamic_inner)]),
                    )],
                ),
                obj(vec![("outer", Type::Dynamic)]),
            ),
            (
                "attribute wins over a block of the same name",
                block(
                    vec![("a", attr(Type::Number))],
                    vec![("a", NestingMode::List, inner)],
                ),
                obj(vec![("a", Type::Number)]),
            ),
        ];
        for (name, block, want) in cases {
            assert_eq!(block.implied_type(), want, "{name}");
        }
    }

    #[test]
    fn nested_attributes() {
        let nested = NestedAttributes {
            nesting: ObjectNesting::List,
            attributes: [
                (
                    "req".to_string(),
                    Attribute {
                        required: true,
                        ..Attribute::new(Type::String)
                    },
                ),
                ("opt".to_string(), attr(Type::Bool)),
                (
                    "deeper".to_string(),
                    Attribute {
                        computed: true,
                        ..Attribute::nested(NestedAttributes {
                            nesting: ObjectNesting::Map,
                            attributes: [("n".to_string(), attr(Type::Number))].into(),
                        })
                    },
                ),
            ]
            .into(),
        };
        let attribute = Attribute {
            optional: true,
            ..Attribute::nested(nested)
        };
        let deeper = Type::map(obj(vec![("n", Type::Number)]));
        assert_eq!(
            attribute.implied_type(),
            Type::list(obj(vec![
                ("deeper", deeper),
                ("opt", Type::Bool),
                ("req", Type::String)
            ]))
        );
        let spec = attribute.spec_type();
        let element = spec.element_type().and_then(Type::object_type);
        let optional: Vec<&str> = element
            .map(|object| object.optional.iter().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(optional, vec!["deeper", "opt"]);
        let block = block(vec![("nested", attribute)], vec![]);
        assert!(!block.contains_sensitive());
    }

    #[test]
    fn sensitive_and_write_only_at_depth() {
        let secret = Attribute {
            sensitive: true,
            ..attr(Type::String)
        };
        let write_only = Attribute {
            write_only: true,
            ..attr(Type::String)
        };
        let deep = block(
            vec![],
            vec![(
                "b",
                NestingMode::List,
                block(vec![("s", secret), ("w", write_only)], vec![]),
            )],
        );
        assert!(deep.contains_sensitive());
        assert!(deep.contains_write_only());
        let plain = block(vec![("p", attr(Type::String))], vec![]);
        assert!(!plain.contains_sensitive());
        assert!(!plain.contains_write_only());
    }

    #[test]
    fn write_only_values_are_found() {
        let write_only = Attribute {
            write_only: true,
            ..attr(Type::String)
        };
        let schema = block(
            vec![("top", write_only.clone()), ("plain", attr(Type::String))],
            vec![(
                "b",
                NestingMode::List,
                block(vec![("w", write_only)], vec![]),
            )],
        );
        let element = |w: Value| Value::object([("w".to_string(), w)].into_iter().collect());
        let element_type = obj(vec![("w", Type::String)]);
        let value = Value::object(
            [
                ("top".to_string(), Value::null(Type::String)),
                ("plain".to_string(), Value::string("x")),
                (
                    "b".to_string(),
                    Value::list(
                        element_type,
                        vec![
                            element(Value::null(Type::String)),
                            element(Value::string("secret")),
                            element(Value::unknown(Type::String)),
                        ],
                    ),
                ),
            ]
            .into_iter()
            .collect(),
        );
        let paths: Vec<String> = schema
            .write_only_paths_with_values(&value)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(paths, vec![".b[1].w", ".b[2].w"]);
        let clean = Value::null(schema.implied_type());
        assert!(schema.write_only_paths_with_values(&clean).is_empty());
    }
    #[test]
    fn serde_round_trip() {
        let nested = NestedAttributes {
            nesting: ObjectNesting::Set,
            attributes: [(
                "o".to_string(),
                attr(Type::object_with_optional(
                    [("a".to_string(), Type::String)].into_iter().collect(),
                    ["a".to_string()].into_iter().collect(),
                )),
            )]
            .into(),
        };
        let schema = ProviderSchema {
            provider: Schema {
                version: 0,
                block: block(
                    vec![
                        ("n", Attribute::nested(nested)),
                        (
                            "s",
                            Attribute {
                                sensitive: true,
                                description: "secret".into(),
                                description_kind: StringKind::Markdown,
                                ..attr(Type::list(Type::Dynamic))
                            },
                        ),
                    ],
                    vec![("b", NestingMode::Group, Block::default())],
                ),
            },
            provider_meta: None,
            resource_types: [(
                "r".to_string(),
                Schema {
                    version: 3,
                    block: Block::default(),
                },
            )]
            .into(),
            functions: [(
                "f".to_string(),
                FunctionSpec {
                    parameters: vec![FunctionParameter {
                        name: "p".into(),
                        ty: Type::map(Type::Number),
                        allow_null_value: true,
                        allow_unknown_values: false,
                        description: String::new(),
                        description_kind: StringKind::Plain,
                    }],
                    variadic_parameter: None,
                    return_type: Type::Bool,
                    summary: "sum".into(),
                    description: String::new(),
                    description_kind: StringKind::Plain,
                    deprecation_message: String::new(),
                },
            )]
            .into(),
            server_capabilities: ServerCapabilities {
                get_provider_schema_optional: true,
                ..ServerCapabilities::default()
            },
            ..ProviderSchema::default()
        };
        let text = serde_json::to_string(&schema).unwrap();
        let back: ProviderSchema = serde_json::from_str(&text).unwrap();
        assert_eq!(back, schema);
        // Types are stored as their type JSON text.
        assert!(
            text.contains(r#""ty":{"type":"[\"list\",\"dynamic\"]"}"#),
            "{text}"
        );

        let with_unknown_field =
            text.replacen(r#""deprecated":false"#, r#""deprecated":false,"x":1"#, 1);
        assert!(serde_json::from_str::<ProviderSchema>(&with_unknown_field).is_err());
        let bad_type = text.replacen(r#"\"dynamic\""#, r#"\"dynamo\""#, 1);
        assert!(serde_json::from_str::<ProviderSchema>(&bad_type).is_err());
    }
}
