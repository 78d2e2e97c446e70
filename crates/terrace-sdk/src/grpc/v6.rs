//! The tfplugin6 server (protocol 6.8, what Terraform 1.11 prefers): the
//! method names of protocol 6, a `ValidateProviderConfig` without a
//! prepared configuration, and nested attribute types.

use crate::proto::tfplugin6 as proto;
use proto::provider_server::Provider as Service;

use proto::validate_resource_config as validate_resource_config_msg;

/// The service to mount.
pub(crate) fn service(server: Server) -> proto::provider_server::ProviderServer<Server> {
    proto::provider_server::ProviderServer::new(server)
        .max_decoding_message_size(usize::MAX)
        .max_encoding_message_size(usize::MAX)
}

fn attribute_to_proto(name: &str, attribute: &tp::Attribute) -> proto::schema::Attribute {
    let (r#type, nested_type) = match &attribute.ty {
        tp::AttributeType::Type(ty) => (type_json(ty), None),
        tp::AttributeType::Nested(nested) => (Vec::new(), Some(object_to_proto(nested))),
    };
    proto::schema::Attribute {
        name: name.to_string(),
        r#type,
        nested_type,
        description: attribute.description.clone(),
        required: attribute.required,
        optional: attribute.optional,
        computed: attribute.computed,
        sensitive: attribute.sensitive,
        description_kind: string_kind(attribute.description_kind),
        deprecated: attribute.deprecated,
        write_only: attribute.write_only,
    }
}

#[allow(deprecated)]
fn object_to_proto(nested: &tp::NestedAttributes) -> proto::schema::Object {
    use proto::schema::object::NestingMode as Mode;
    proto::schema::Object {
        attributes: nested
            .attributes
            .iter()
            .map(|(name, attribute)| attribute_to_proto(name, attribute))
            .collect(),
        nesting: match nested.nesting {
            tp::ObjectNesting::Single => Mode::Single,
            tp::ObjectNesting::List => Mode::List,
            tp::ObjectNesting::Set => Mode::Set,
            tp::ObjectNesting::Map => Mode::Map,
        } as i32,
        min_items: 0,
        max_items: 0,
    }
}

include!("common.rs");

provider_service! {
    async fn get_provider_schema(
        &self,
        _: Request<proto::get_provider_schema::Request>,
    ) -> Reply<proto::get_provider_schema::Response> {
        self.do_get_provider_schema().await
    }

    async fn validate_provider_config(
        &self,
        request: Request<proto::validate_provider_config::Request>,
    ) -> Reply<proto::validate_provider_config::Response> {
        let (_, diagnostics) = self
            .do_validate_provider_config(request.into_inner().config)
            .await?;
        Ok(Response::new(proto::validate_provider_config::Response {
            diagnostics,
        }))
    }

    async fn validate_resource_config(
        &self,
        request: Request<proto::validate_resource_config::Request>,
    ) -> Reply<proto::validate_resource_config::Response> {
        let diagnostics = self
            .do_validate_resource_config(request.into_inner())
            .await?;
        Ok(Response::new(proto::validate_resource_config::Response {
            diagnostics,
        }))
    }

    async fn validate_data_resource_config(
        &self,
        request: Request<proto::validate_data_resource_config::Request>,
    ) -> Reply<proto::validate_data_resource_config::Response> {
        let request = request.into_inner();
        let diagnostics = self
            .do_validate_data_resource_config(request.type_name, request.config)
            .await?;
        Ok(Response::new(
            proto::validate_data_resource_config::Response { diagnostics },
        ))
    }

    async fn configure_provider(
        &self,
        request: Request<proto::configure_provider::Request>,
    ) -> Reply<proto::configure_provider::Response> {
        let request = request.into_inner();
        let diagnostics = self
            .do_configure_provider(
                request.terraform_version,
                request.config,
                request.client_capabilities,
            )
            .await?;
        Ok(Response::new(proto::configure_provider::Response {
            diagnostics,
        }))
    }

    async fn stop_provider(
        &self,
        _: Request<proto::stop_provider::Request>,
    ) -> Reply<proto::stop_provider::Response> {
        let error = self.do_stop().await?;
        Ok(Response::new(proto::stop_provider::Response { error }))
    }
}
