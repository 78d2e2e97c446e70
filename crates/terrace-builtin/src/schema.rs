//! The schemas of the built-in provider, as `terraform providers schema
//! -json` shows them for `terraform.io/builtin/terraform`: no provider
//! configuration, the `terraform_data` resource type, the
//! `terraform_remote_state` data source and three functions.

use std::collections::BTreeMap;
use terrace_providers::{
    Attribute, Block, FunctionParameter, FunctionSpec, ProviderSchema, Schema, ServerCapabilities,
    StringKind,
};
use terrace_value::Type;

pub const TERRAFORM_DATA: &str = "terraform_data";
pub const TERRAFORM_REMOTE_STATE: &str = "terraform_remote_state";

/// The whole provider schema.
pub fn provider_schema() -> ProviderSchema {
    ProviderSchema {
        provider: Schema::default(),
        provider_meta: None,
        resource_types: [(TERRAFORM_DATA.to_string(), terraform_data_schema())].into(),
        data_sources: [(TERRAFORM_REMOTE_STATE.to_string(), remote_state_schema())].into(),
        ephemeral_resources: BTreeMap::new(),
        functions: function_specs(),
        server_capabilities: server_capabilities(),
    }
}

/// The provider runs in process, so a cached schema is as good as asking;
/// it implements `MoveResourceState` (from `null_resource`).
pub fn server_capabilities() -> ServerCapabilities {
    ServerCapabilities {
        plan_destroy: false,
        get_provider_schema_optional: true,
        move_resource_state: true,
    }
}

pub fn terraform_data_schema() -> Schema {
    let optional = |ty| Attribute {
        optional: true,
        ..Attribute::new(ty)
    };
    let computed = |ty| Attribute {
        computed: true,
        ..Attribute::new(ty)
    };
    Schema {
        version: 0,
        block: Block {
            attributes: [
                ("id".to_string(), computed(Type::String)),
                ("input".to_string(), optional(Type::Dynamic)),
                ("output".to_string(), computed(Type::Dynamic)),
                ("triggers_replace".to_string(), optional(Type::Dynamic)),
            ]
            .into(),
            ..Block::default()
        },
    }
}

/// The descriptions are Terraform's (OpenTofu says "OpenTofu workspace").
pub fn remote_state_schema() -> Schema {
    let described = |ty, text: &str| Attribute {
        description: text.to_string(),
        description_kind: StringKind::Markdown,
        ..Attribute::new(ty)
    };
    Schema {
        version: 0,
        block: Block {
            attributes: [
                (
                    "backend".to_string(),
                    Attribute {
                        required: true,
                        ..described(
                            Type::String,
                            "The remote backend to use, e.g. `remote` or `http`.",
                        )
                    },
                ),
                (
                    "config".to_string(),
                    Attribute {
                        optional: true,
                        ..described(
                            Type::Dynamic,
                            "The configuration of the remote backend. Although this is optional, \
                             most backends require some configuration.\n\nThe object can use any \
                             arguments that would be valid in the equivalent \
                             `terraform { backend \"<TYPE>\" { ... } }` block.",
                        )
                    },
                ),
                (
                    "defaults".to_string(),
                    Attribute {
                        optional: true,
                        ..described(
                            Type::Dynamic,
                            "Default values for outputs, in case the state file is empty or \
                             lacks a required output.",
                        )
                    },
                ),
                (
                    "outputs".to_string(),
                    Attribute {
                        computed: true,
                        ..described(
                            Type::Dynamic,
                            "An object containing every root-level output in the remote state.",
                        )
                    },
                ),
                (
                    "workspace".to_string(),
                    Attribute {
                        optional: true,
                        ..described(
                            Type::String,
                            "The Terraform workspace to use, if the backend supports workspaces.",
                        )
                    },
                ),
            ]
            .into(),
            ..Block::default()
        },
    }
}

/// Signatures as Terraform 1.11 reports them. Unknown and null arguments
/// never reach the functions: the caller makes the result unknown, or
/// reports the null, itself.
pub fn function_specs() -> BTreeMap<String, FunctionSpec> {
    let spec =
        |param: &str, param_ty, return_type, summary: &str, description: &str| FunctionSpec {
            parameters: vec![FunctionParameter {
                name: param.to_string(),
                ty: param_ty,
                allow_null_value: false,
                allow_unknown_values: false,
                description: String::new(),
                description_kind: StringKind::Plain,
            }],
            variadic_parameter: None,
            return_type,
            summary: summary.to_string(),
            description: description.to_string(),
            description_kind: StringKind::Plain,
            deprecation_message: String::new(),
        };
    [
        (
            "decode_tfvars".to_string(),
            spec(
                "src",
                Type::String,
                Type::Dynamic,
                "Parse a string containing syntax like that used in a `.tfvars` file",
                "A rarely-needed function which takes a string containing the content of a \
                 `.tfvars` file and returns an object describing the raw variable values it \
                 defines.",
            ),
        ),
        (
            "encode_expr".to_string(),
            spec(
                "value",
                Type::Dynamic,
                Type::String,
                "Produce a string representation of an arbitrary value using Terraform \
                 expression syntax",
                "A rarely-needed function which takes any value and produces a string \
                 containing Terraform language expression syntax approximating that value.",
            ),
        ),
        (
            "encode_tfvars".to_string(),
            spec(
                "value",
                Type::Dynamic,
                Type::String,
                "Produce a string representation of an object using the same syntax as for \
                 `.tfvars` files",
                "A rarely-needed function which takes an object value and produces a string \
                 containing a description of that object using the same syntax as Terraform \
                 CLI would expect in a `.tfvars`.",
            ),
        ),
    ]
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(attributes: &[(&str, Type)]) -> Type {
        Type::object(
            attributes
                .iter()
                .map(|(name, ty)| (name.to_string(), ty.clone())),
        )
    }

    #[test]
    fn implied_types() {
        assert_eq!(
            terraform_data_schema().implied_type(),
            object(&[
                ("id", Type::String),
                ("input", Type::Dynamic),
                ("output", Type::Dynamic),
                ("triggers_replace", Type::Dynamic),
            ])
        );
        assert_eq!(
            remote_state_schema().implied_type(),
            object(&[
                ("backend", Type::String),
                ("config", Type::Dynamic),
                ("defaults", Type::Dynamic),
                ("outputs", Type::Dynamic),
                ("workspace", Type::String),
            ])
        );
    }

    #[test]
    fn flags_match_terraform() {
        let data = terraform_data_schema();
        let flags = |schema: &Schema, name: &str| {
            let a = &schema.block.attributes[name];
            (a.required, a.optional, a.computed)
        };
        assert_eq!(flags(&data, "id"), (false, false, true));
        assert_eq!(flags(&data, "input"), (false, true, false));
        assert_eq!(flags(&data, "output"), (false, false, true));
        assert_eq!(flags(&data, "triggers_replace"), (false, true, false));
        let remote = remote_state_schema();
        assert_eq!(flags(&remote, "backend"), (true, false, false));
        assert_eq!(flags(&remote, "outputs"), (false, false, true));
        assert_eq!(flags(&remote, "workspace"), (false, true, false));
        let schema = provider_schema();
        assert!(schema.provider.block.attributes.is_empty());
        assert_eq!(
            schema.functions.keys().collect::<Vec<_>>(),
            ["decode_tfvars", "encode_expr", "encode_tfvars"]
        );
    }
}
