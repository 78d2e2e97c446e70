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

#[tonic::async_trait]
impl Service for Server {
    async fn get_metadata(
        &self,
        _: Request<proto::get_metadata::Request>,
    ) -> Reply<proto::get_metadata::Response> {
        self.do_get_metadata().await
    }

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

    async fn upgrade_resource_state(
        &self,
        request: Request<proto::upgrade_resource_state::Request>,
    ) -> Reply<proto::upgrade_resource_state::Response> {
        self.do_upgrade_resource_state(request.into_inner()).await
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

    async fn read_resource(
        &self,
        request: Request<proto::read_resource::Request>,
    ) -> Reply<proto::read_resource::Response> {
        self.do_read_resource(request.into_inner()).await
    }

    async fn plan_resource_change(
        &self,
        request: Request<proto::plan_resource_change::Request>,
    ) -> Reply<proto::plan_resource_change::Response> {
        self.do_plan_resource_change(request.into_inner()).await
    }

    async fn apply_resource_change(
        &self,
        request: Request<proto::apply_resource_change::Request>,
    ) -> Reply<proto::apply_resource_change::Response> {
        self.do_apply_resource_change(request.into_inner()).await
    }

    async fn import_resource_state(
        &self,
        request: Request<proto::import_resource_state::Request>,
    ) -> Reply<proto::import_resource_state::Response> {
        self.do_import_resource_state(request.into_inner()).await
    }

    async fn move_resource_state(
        &self,
        request: Request<proto::move_resource_state::Request>,
    ) -> Reply<proto::move_resource_state::Response> {
        self.do_move_resource_state(request.into_inner()).await
    }

    async fn read_data_source(
        &self,
        request: Request<proto::read_data_source::Request>,
    ) -> Reply<proto::read_data_source::Response> {
        self.do_read_data_source(request.into_inner()).await
    }

    async fn validate_ephemeral_resource_config(
        &self,
        request: Request<proto::validate_ephemeral_resource_config::Request>,
    ) -> Reply<proto::validate_ephemeral_resource_config::Response> {
        self.do_validate_ephemeral_resource_config(request.into_inner())
            .await
    }

    async fn open_ephemeral_resource(
        &self,
        request: Request<proto::open_ephemeral_resource::Request>,
    ) -> Reply<proto::open_ephemeral_resource::Response> {
        self.do_open_ephemeral_resource(request.into_inner()).await
    }

    async fn renew_ephemeral_resource(
        &self,
        request: Request<proto::renew_ephemeral_resource::Request>,
    ) -> Reply<proto::renew_ephemeral_resource::Response> {
        self.do_renew_ephemeral_resource(request.into_inner()).await
    }

    async fn close_ephemeral_resource(
        &self,
        request: Request<proto::close_ephemeral_resource::Request>,
    ) -> Reply<proto::close_ephemeral_resource::Response> {
        self.do_close_ephemeral_resource(request.into_inner()).await
    }

    async fn get_functions(
        &self,
        _: Request<proto::get_functions::Request>,
    ) -> Reply<proto::get_functions::Response> {
        self.do_get_functions().await
    }

    async fn call_function(
        &self,
        request: Request<proto::call_function::Request>,
    ) -> Reply<proto::call_function::Response> {
        self.do_call_function(request.into_inner()).await
    }

    async fn stop(&self, _: Request<proto::stop::Request>) -> Reply<proto::stop::Response> {
        let error = self.do_stop().await?;
        Ok(Response::new(proto::stop::Response { error }))
    }
}
