//! The tfplugin6 client: protocol 6.8, spoken by providers built with the
//! Terraform Plugin Framework (and terrace's own SDK). The shared client
//! code is in `common.rs`; what differs from protocol 5 is here: method
//! names, `ValidateProviderConfig` without a prepared configuration, and
//! attributes with nested attribute types.

use crate::proto::tfplugin6 as proto;
use proto::provider_client::ProviderClient;
use tonic::transport::Channel;

type Grpc = ProviderClient<Channel>;
type Reply<T> = Result<tonic::Response<T>, tonic::Status>;

use proto::configure_provider as configure_provider_msg;
use proto::get_provider_schema as get_provider_schema_msg;
use proto::stop_provider as stop_provider_msg;
use proto::validate_data_resource_config as validate_data_resource_config_msg;
use proto::validate_provider_config as validate_provider_config_msg;
use proto::validate_resource_config as validate_resource_config_msg;

renamed_calls! {
    rpc_get_provider_schema, GET_PROVIDER_SCHEMA = "GetProviderSchema":
        get_provider_schema(get_provider_schema_msg);
    rpc_validate_provider_config, VALIDATE_PROVIDER_CONFIG = "ValidateProviderConfig":
        validate_provider_config(validate_provider_config_msg);
    rpc_validate_resource_config, VALIDATE_RESOURCE_CONFIG = "ValidateResourceConfig":
        validate_resource_config(validate_resource_config_msg);
    rpc_validate_data_resource_config, VALIDATE_DATA_RESOURCE_CONFIG = "ValidateDataResourceConfig":
        validate_data_resource_config(validate_data_resource_config_msg);
    rpc_configure_provider, CONFIGURE_PROVIDER = "ConfigureProvider":
        configure_provider(configure_provider_msg);
    rpc_stop_provider, STOP_PROVIDER = "StopProvider":
        stop_provider(stop_provider_msg);
}

/// Protocol 6 has no prepared configuration: it is the one given.
fn prepared_config(
    _client: &Client,
    _response: &validate_provider_config_msg::Response,
    config: Value,
    _ty: &Type,
    _diagnostics: &mut Diagnostics,
) -> Value {
    config
}

fn attribute_from_proto(attribute: proto::schema::Attribute) -> Result<Attribute, String> {
    let ty = match &attribute.nested_type {
        Some(nested) => {
            if !attribute.r#type.is_empty() {
                return Err("both a type and nested attributes are set".into());
            }
            AttributeType::Nested(nested_attributes_from_proto(nested)?)
        }
        None => AttributeType::Type(type_from_proto(&attribute.r#type)?),
    };
    Ok(attribute_with_flags(ty, &attribute))
}

fn nested_attributes_from_proto(
    object: &proto::schema::Object,
) -> Result<NestedAttributes, String> {
    use proto::schema::object::NestingMode as Mode;
    let nesting = match Mode::try_from(object.nesting) {
        Ok(Mode::Single) => ObjectNesting::Single,
        Ok(Mode::List) => ObjectNesting::List,
        Ok(Mode::Set) => ObjectNesting::Set,
        Ok(Mode::Map) => ObjectNesting::Map,
        Ok(Mode::Invalid) | Err(_) => {
            return Err(format!(
                "invalid nesting mode {} for nested attributes",
                object.nesting
            ))
        }
    };
    let mut attributes = BTreeMap::new();
    for attribute in &object.attributes {
        let name = attribute.name.clone();
        let converted = attribute_from_proto(attribute.clone())
            .map_err(|e| format!("nested attribute {name:?}: {e}"))?;
        attributes.insert(name, converted);
    }
    Ok(NestedAttributes {
        nesting,
        attributes,
    })
}

include!("common.rs");

#[cfg(test)]
mod tests {
    use super::*;

    fn attribute(name: &str, ty: &str) -> proto::schema::Attribute {
        proto::schema::Attribute {
            name: name.into(),
            r#type: ty.as_bytes().to_vec(),
            optional: true,
            ..Default::default()
        }
    }

    #[test]
    fn nested_attribute_types() {
        let nested = proto::schema::Attribute {
            name: "rules".into(),
            nested_type: Some(proto::schema::Object {
                attributes: vec![
                    attribute("port", "\"number\""),
                    proto::schema::Attribute {
                        name: "inner".into(),
                        optional: true,
                        nested_type: Some(proto::schema::Object {
                            attributes: vec![attribute("x", "\"bool\"")],
                            nesting: proto::schema::object::NestingMode::Single as i32,
                            ..Default::default()
                        }),
                        ..Default::default()
                    },
                ],
                nesting: proto::schema::object::NestingMode::Map as i32,
                ..Default::default()
            }),
            required: true,
            write_only: true,
            ..Default::default()
        };
        let converted = attribute_from_proto(nested).unwrap();
        assert!(converted.required && converted.write_only);
        let AttributeType::Nested(object) = &converted.ty else {
            panic!("expected nested attributes");
        };
        assert_eq!(object.nesting, ObjectNesting::Map);
        assert_eq!(
            typejson::type_to_json(&converted.implied_type()),
            r#"["map",["object",{"inner":["object",{"x":"bool"}],"port":"number"}]]"#
        );
        // Optional nested attributes are optional object attributes when
        // decoding configuration.
        assert_eq!(
            typejson::type_to_json(&converted.spec_type()),
            r#"["map",["object",{"inner":["object",{"x":"bool"},["x"]],"port":"number"},["inner","port"]]]"#
        );
    }

    #[test]
    fn invalid_nested_attributes() {
        let both = proto::schema::Attribute {
            name: "a".into(),
            r#type: b"\"string\"".to_vec(),
            nested_type: Some(proto::schema::Object {
                nesting: proto::schema::object::NestingMode::List as i32,
                ..Default::default()
            }),
            ..Default::default()
        };
        assert_eq!(
            attribute_from_proto(both).unwrap_err(),
            "both a type and nested attributes are set"
        );
        let no_nesting = proto::schema::Attribute {
            name: "a".into(),
            nested_type: Some(proto::schema::Object::default()),
            ..Default::default()
        };
        assert_eq!(
            attribute_from_proto(no_nesting).unwrap_err(),
            "invalid nesting mode 0 for nested attributes"
        );
        let no_type = proto::schema::Attribute {
            name: "a".into(),
            ..Default::default()
        };
        assert!(attribute_from_proto(no_type).is_err());
    }

    #[test]
    fn write_only_in_v6_positions() {
        // Protocol 6 moved write_only to field 11 (10 is nested_type); a
        // value encoded with field 10 set must be read as a nested type.
        use prost::Message;
        let attribute = proto::schema::Attribute {
            name: "w".into(),
            r#type: b"\"string\"".to_vec(),
            write_only: true,
            ..Default::default()
        };
        let bytes = attribute.encode_to_vec();
        // Field 11, varint: tag (11 << 3) | 0 = 88.
        assert!(bytes.windows(2).any(|w| w == [88, 1]));
    }
}
