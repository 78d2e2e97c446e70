//! The tfplugin5 client: protocol 5.8, spoken by providers built with the
//! legacy Go SDK (such as `hashicorp/aws`) and by muxed frameworks. The
//! shared client code is in `common.rs`; what differs from protocol 6 is
//! here: method names, `PrepareProviderConfig` returning a prepared
//! configuration, and attributes without nested types.

use crate::proto::tfplugin5 as proto;
use proto::provider_client::ProviderClient;
use tonic::transport::Channel;

type Grpc = ProviderClient<Channel>;
type Reply<T> = Result<tonic::Response<T>, tonic::Status>;

use proto::configure as configure_provider_msg;
use proto::get_provider_schema as get_provider_schema_msg;
use proto::prepare_provider_config as validate_provider_config_msg;
use proto::stop as stop_provider_msg;
use proto::validate_data_source_config as validate_data_resource_config_msg;
use proto::validate_resource_type_config as validate_resource_config_msg;

renamed_calls! {
    rpc_get_provider_schema, GET_PROVIDER_SCHEMA = "GetSchema":
        get_schema(get_provider_schema_msg);
    rpc_validate_provider_config, VALIDATE_PROVIDER_CONFIG = "PrepareProviderConfig":
        prepare_provider_config(validate_provider_config_msg);
    rpc_validate_resource_config, VALIDATE_RESOURCE_CONFIG = "ValidateResourceTypeConfig":
        validate_resource_type_config(validate_resource_config_msg);
    rpc_validate_data_resource_config, VALIDATE_DATA_RESOURCE_CONFIG = "ValidateDataSourceConfig":
        validate_data_source_config(validate_data_resource_config_msg);
    rpc_configure_provider, CONFIGURE_PROVIDER = "Configure":
        configure(configure_provider_msg);
    rpc_stop_provider, STOP_PROVIDER = "Stop":
        stop(stop_provider_msg);
}

/// Protocol 5 lets the provider return the configuration with defaults
/// filled in; a response without one leaves the configuration as given.
fn prepared_config(
    client: &Client,
    response: &validate_provider_config_msg::Response,
    config: Value,
    ty: &Type,
    diagnostics: &mut Diagnostics,
) -> Value {
    match &response.prepared_config {
        Some(prepared) if !prepared.msgpack.is_empty() || !prepared.json.is_empty() => match client
            .decode(
                VALIDATE_PROVIDER_CONFIG,
                "prepared configuration",
                Some(prepared.clone()),
                ty,
            ) {
            Ok(value) => value,
            Err(diagnostic) => {
                diagnostics.push(diagnostic);
                config
            }
        },
        _ => config,
    }
}

fn attribute_from_proto(attribute: proto::schema::Attribute) -> Result<Attribute, String> {
    let ty = type_from_proto(&attribute.r#type)?;
    Ok(attribute_with_flags(AttributeType::Type(ty), &attribute))
}

include!("common.rs");

#[cfg(test)]
mod tests {
    use super::*;
    use proto::attribute_path::step::Selector;

    fn attribute(name: &str, ty: &str) -> proto::schema::Attribute {
        proto::schema::Attribute {
            name: name.into(),
            r#type: ty.as_bytes().to_vec(),
            optional: true,
            ..Default::default()
        }
    }

    #[test]
    fn diagnostics_with_paths() {
        let step = |selector| proto::attribute_path::Step {
            selector: Some(selector),
        };
        let diagnostics = diagnostics_from_proto(vec![
            proto::Diagnostic {
                severity: proto::diagnostic::Severity::Warning as i32,
                summary: "Deprecated".into(),
                detail: "Use something else.".into(),
                attribute: Some(proto::AttributePath {
                    steps: vec![
                        step(Selector::AttributeName("tags".into())),
                        step(Selector::ElementKeyString("Name".into())),
                        step(Selector::ElementKeyInt(2)),
                    ],
                }),
            },
            proto::Diagnostic {
                severity: proto::diagnostic::Severity::Invalid as i32,
                summary: "Odd".into(),
                detail: String::new(),
                attribute: Some(proto::AttributePath { steps: vec![] }),
            },
        ]);
        assert_eq!(diagnostics.len(), 2);
        let first = &diagnostics.0[0];
        assert_eq!(first.severity, Severity::Warning);
        assert_eq!(
            first.attribute.as_ref().map(ToString::to_string).as_deref(),
            Some(".tags[\"Name\"][2]")
        );
        // An empty path is no path; an invalid severity is an error.
        assert_eq!(diagnostics.0[1].attribute, None);
        assert!(diagnostics.has_errors());
    }

    #[test]
    fn deferred_reasons() {
        use proto::deferred::Reason;
        let cases = [
            (None, None),
            (Some(Reason::Unknown as i32), Some(DeferredReason::Unknown)),
            (
                Some(Reason::ResourceConfigUnknown as i32),
                Some(DeferredReason::ResourceConfigUnknown),
            ),
            (
                Some(Reason::ProviderConfigUnknown as i32),
                Some(DeferredReason::ProviderConfigUnknown),
            ),
            (
                Some(Reason::AbsentPrereq as i32),
                Some(DeferredReason::AbsentPrereq),
            ),
            (Some(99), Some(DeferredReason::Unknown)),
        ];
        for (reason, want) in cases {
            let got = deferred_from_proto(reason.map(|reason| proto::Deferred { reason }));
            assert_eq!(got.map(|d| d.reason), want);
        }
    }

    #[test]
    fn schema_conversion() {
        let schema = proto::Schema {
            version: 3,
            block: Some(proto::schema::Block {
                attributes: vec![
                    attribute("name", "\"string\""),
                    proto::schema::Attribute {
                        sensitive: true,
                        write_only: true,
                        description_kind: proto::StringKind::Markdown as i32,
                        ..attribute("secret", "[\"map\",\"string\"]")
                    },
                ],
                block_types: vec![proto::schema::NestedBlock {
                    type_name: "rule".into(),
                    block: Some(proto::schema::Block {
                        attributes: vec![attribute("n", "\"number\"")],
                        ..Default::default()
                    }),
                    nesting: proto::schema::nested_block::NestingMode::Set as i32,
                    min_items: 1,
                    max_items: 0,
                }],
                ..Default::default()
            }),
        };
        let converted = schema_from_proto(schema).unwrap();
        assert_eq!(converted.version, 3);
        let secret = &converted.block.attributes["secret"];
        assert!(secret.sensitive && secret.write_only && secret.optional);
        assert_eq!(secret.description_kind, StringKind::Markdown);
        assert_eq!(secret.ty, AttributeType::Type(Type::map(Type::String)));
        let rule = &converted.block.block_types["rule"];
        assert_eq!(rule.nesting, NestingMode::Set);
        assert_eq!(rule.min_items, 1);
        assert_eq!(
            typejson::type_to_json(&converted.implied_type()),
            r#"["object",{"name":"string","rule":["set",["object",{"n":"number"}]],"secret":["map","string"]}]"#
        );
    }

    #[test]
    fn invalid_schemas_say_where() {
        let bad_type = proto::Schema {
            version: 0,
            block: Some(proto::schema::Block {
                block_types: vec![proto::schema::NestedBlock {
                    type_name: "outer".into(),
                    block: Some(proto::schema::Block {
                        attributes: vec![attribute("x", "\"strnig\"")],
                        ..Default::default()
                    }),
                    nesting: proto::schema::nested_block::NestingMode::List as i32,
                    ..Default::default()
                }],
                ..Default::default()
            }),
        };
        let err = schema_from_proto(bad_type).unwrap_err();
        assert!(
            err.starts_with(
                "block type \"outer\": attribute \"x\": invalid type \"\\\"strnig\\\"\""
            ),
            "{err}"
        );
        let bad_nesting = proto::Schema {
            version: 0,
            block: Some(proto::schema::Block {
                block_types: vec![proto::schema::NestedBlock {
                    type_name: "b".into(),
                    nesting: 0,
                    ..Default::default()
                }],
                ..Default::default()
            }),
        };
        assert_eq!(
            schema_from_proto(bad_nesting).unwrap_err(),
            "block type \"b\": invalid nesting mode 0"
        );
    }

    #[test]
    fn functions() {
        let parameter = |name: &str, ty: &str| proto::function::Parameter {
            name: name.into(),
            r#type: ty.as_bytes().to_vec(),
            allow_null_value: true,
            ..Default::default()
        };
        let function = proto::Function {
            parameters: vec![parameter("arn", "\"string\"")],
            variadic_parameter: Some(parameter("rest", "\"number\"")),
            r#return: Some(proto::function::Return {
                r#type: b"[\"list\",\"string\"]".to_vec(),
            }),
            summary: "Parses".into(),
            ..Default::default()
        };
        let spec = function_from_proto(function).unwrap();
        assert_eq!(spec.parameters[0].ty, Type::String);
        assert!(spec.parameters[0].allow_null_value);
        assert_eq!(spec.variadic_parameter.map(|p| p.ty), Some(Type::Number));
        assert_eq!(spec.return_type, Type::list(Type::String));
        let no_return = proto::Function::default();
        assert_eq!(
            function_from_proto(no_return).unwrap_err(),
            "no return type"
        );
    }

    #[test]
    fn timestamps() {
        let t = time_from_proto(prost_types::Timestamp {
            seconds: 10,
            nanos: 5,
        });
        assert_eq!(t, SystemTime::UNIX_EPOCH.checked_add(Duration::new(10, 5)));
        assert_eq!(
            time_from_proto(prost_types::Timestamp {
                seconds: -1,
                nanos: 0
            }),
            None
        );
    }
}
