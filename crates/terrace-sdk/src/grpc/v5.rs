//! The tfplugin5 server (protocol 5.8, for hosts that offer no protocol 6,
//! such as Terraform before 0.15): the method names of protocol 5, a
//! `PrepareProviderConfig` that returns the configuration, and attributes
//! without nested types (nested attributes are sent as their object type).

use crate::proto::tfplugin5 as proto;
use proto::provider_server::Provider as Service;

use proto::validate_resource_type_config as validate_resource_config_msg;

/// The service to mount.
pub(crate) fn service(server: Server) -> proto::provider_server::ProviderServer<Server> {
    proto::provider_server::ProviderServer::new(server)
        .max_decoding_message_size(usize::MAX)
        .max_encoding_message_size(usize::MAX)
}

fn attribute_to_proto(name: &str, attribute: &tp::Attribute) -> proto::schema::Attribute {
    proto::schema::Attribute {
        name: name.to_string(),
        r#type: type_json(&attribute.implied_type()),
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

include!("common.rs");

provider_service! {
    async fn get_schema(
        &self,
        _: Request<proto::get_provider_schema::Request>,
    ) -> Reply<proto::get_provider_schema::Response> {
        self.do_get_provider_schema().await
    }

    async fn prepare_provider_config(
        &self,
        request: Request<proto::prepare_provider_config::Request>,
    ) -> Reply<proto::prepare_provider_config::Response> {
        let (prepared_config, diagnostics) = self
            .do_validate_provider_config(request.into_inner().config)
            .await?;
        Ok(Response::new(proto::prepare_provider_config::Response {
            prepared_config,
            diagnostics,
        }))
    }

    async fn validate_resource_type_config(
        &self,
        request: Request<proto::validate_resource_type_config::Request>,
    ) -> Reply<proto::validate_resource_type_config::Response> {
        let diagnostics = self
            .do_validate_resource_config(request.into_inner())
            .await?;
        Ok(Response::new(
            proto::validate_resource_type_config::Response { diagnostics },
        ))
    }

    async fn validate_data_source_config(
        &self,
        request: Request<proto::validate_data_source_config::Request>,
    ) -> Reply<proto::validate_data_source_config::Response> {
        let request = request.into_inner();
        let diagnostics = self
            .do_validate_data_resource_config(request.type_name, request.config)
            .await?;
        Ok(Response::new(
            proto::validate_data_source_config::Response { diagnostics },
        ))
    }

    async fn configure(
        &self,
        request: Request<proto::configure::Request>,
    ) -> Reply<proto::configure::Response> {
        let request = request.into_inner();
        let diagnostics = self
            .do_configure_provider(
                request.terraform_version,
                request.config,
                request.client_capabilities,
            )
            .await?;
        Ok(Response::new(proto::configure::Response { diagnostics }))
    }

    async fn stop(&self, _: Request<proto::stop::Request>) -> Reply<proto::stop::Response> {
        let error = self.do_stop().await?;
        Ok(Response::new(proto::stop::Response { error }))
    }
}
