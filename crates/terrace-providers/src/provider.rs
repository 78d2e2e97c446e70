//! The `Provider` trait: every operation the engine asks of a provider, in
//! the shape of the plugin protocol (tfplugin 5.8 / 6.8) but with decoded
//! values. Whether a provider is a plugin process speaking gRPC, or built
//! into terrace, is invisible behind it.
//!
//! Calls block until the provider answers and may come from many threads
//! at once (the engine runs up to `-parallelism` requests concurrently), so
//! implementations are `Send + Sync`. Failures to reach a provider are
//! reported as error diagnostics in the response, never as panics.

use crate::diagnostics::{AttributePath, Diagnostics};
use crate::schema::{FunctionSpec, ProviderSchema, ServerCapabilities};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::SystemTime;
use terrace_value::Value;

pub trait Provider: Send + Sync {
    /// Capabilities and the names of everything the provider offers,
    /// without building the full schema. Providers that predate it report
    /// an "Unsupported plugin method" error; callers fall back to
    /// `get_provider_schema`.
    fn get_metadata(&self) -> GetMetadataResponse;

    /// The provider's schemas. Implementations fetch them once and share
    /// them; calling this repeatedly is cheap.
    fn get_provider_schema(&self) -> GetProviderSchemaResponse;

    fn validate_provider_config(
        &self,
        request: ValidateProviderConfigRequest,
    ) -> ValidateProviderConfigResponse;

    fn validate_resource_config(
        &self,
        request: ValidateResourceConfigRequest,
    ) -> ValidateResourceConfigResponse;

    fn validate_data_resource_config(
        &self,
        request: ValidateDataResourceConfigRequest,
    ) -> ValidateDataResourceConfigResponse;

    fn validate_ephemeral_resource_config(
        &self,
        request: ValidateEphemeralResourceConfigRequest,
    ) -> ValidateEphemeralResourceConfigResponse;

    fn upgrade_resource_state(
        &self,
        request: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse;

    fn configure_provider(&self, request: ConfigureProviderRequest) -> ConfigureProviderResponse;

    fn read_resource(&self, request: ReadResourceRequest) -> ReadResourceResponse;

    fn plan_resource_change(
        &self,
        request: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse;

    fn apply_resource_change(
        &self,
        request: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse;

    fn import_resource_state(
        &self,
        request: ImportResourceStateRequest,
    ) -> ImportResourceStateResponse;

    fn move_resource_state(&self, request: MoveResourceStateRequest) -> MoveResourceStateResponse;

    fn read_data_source(&self, request: ReadDataSourceRequest) -> ReadDataSourceResponse;

    fn open_ephemeral_resource(
        &self,
        request: OpenEphemeralResourceRequest,
    ) -> OpenEphemeralResourceResponse;

    fn renew_ephemeral_resource(
        &self,
        request: RenewEphemeralResourceRequest,
    ) -> RenewEphemeralResourceResponse;

    fn close_ephemeral_resource(
        &self,
        request: CloseEphemeralResourceRequest,
    ) -> CloseEphemeralResourceResponse;

    fn get_functions(&self) -> GetFunctionsResponse;

    fn call_function(&self, request: CallFunctionRequest) -> CallFunctionResponse;

    /// Asks the provider to cancel its in-flight operations gracefully
    /// (Ctrl-C). May be called while other calls are running.
    fn stop(&self) -> Diagnostics;

    /// Ends this provider instance: a plugin process is shut down. Later
    /// calls fail with diagnostics.
    fn close(&self) -> Diagnostics;
}

/// Features of the caller the provider may rely on; sent with the calls
/// that the protocol defines them for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientCapabilities {
    /// The caller handles `deferred` in responses.
    pub deferral_allowed: bool,
    /// The caller keeps write-only attributes out of plans and state.
    pub write_only_attributes_allowed: bool,
}

impl Default for ClientCapabilities {
    /// What Terraform 1.11 announces: write-only attributes yes, deferral
    /// no (it is experimental there).
    fn default() -> ClientCapabilities {
        ClientCapabilities {
            deferral_allowed: false,
            write_only_attributes_allowed: true,
        }
    }
}

/// Why a provider deferred an operation to a later plan/apply round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeferredReason {
    Unknown,
    ResourceConfigUnknown,
    ProviderConfigUnknown,
    AbsentPrereq,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deferred {
    pub reason: DeferredReason,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct GetMetadataResponse {
    pub server_capabilities: ServerCapabilities,
    pub resources: Vec<String>,
    pub data_sources: Vec<String>,
    pub ephemeral_resources: Vec<String>,
    pub functions: Vec<String>,
    pub diagnostics: Diagnostics,
}

#[derive(Clone, Debug, Default)]
pub struct GetProviderSchemaResponse {
    /// Shared, since every caller of every instance reads the same schema;
    /// empty when `diagnostics` has errors.
    pub schema: Arc<ProviderSchema>,
    pub diagnostics: Diagnostics,
}

#[derive(Clone, Debug)]
pub struct ValidateProviderConfigRequest {
    pub config: Value,
}

#[derive(Clone, Debug)]
pub struct ValidateProviderConfigResponse {
    /// Protocol 5 lets a provider fill in defaults here; with protocol 6
    /// it is the configuration as given.
    pub prepared_config: Value,
    pub diagnostics: Diagnostics,
}

#[derive(Clone, Debug)]
pub struct ValidateResourceConfigRequest {
    pub type_name: String,
    pub config: Value,
    pub client_capabilities: ClientCapabilities,
}

#[derive(Clone, Debug, Default)]
pub struct ValidateResourceConfigResponse {
    pub diagnostics: Diagnostics,
}

#[derive(Clone, Debug)]
pub struct ValidateDataResourceConfigRequest {
    pub type_name: String,
    pub config: Value,
}

#[derive(Clone, Debug, Default)]
pub struct ValidateDataResourceConfigResponse {
    pub diagnostics: Diagnostics,
}

#[derive(Clone, Debug)]
pub struct ValidateEphemeralResourceConfigRequest {
    pub type_name: String,
    pub config: Value,
}

#[derive(Clone, Debug, Default)]
pub struct ValidateEphemeralResourceConfigResponse {
    pub diagnostics: Diagnostics,
}

/// A resource's state as stored, before the provider has upgraded it to
/// its current schema: JSON (from state format 4), or the flat map of
/// states written before Terraform 0.12.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawState {
    pub json: Vec<u8>,
    pub flatmap: BTreeMap<String, String>,
}

#[derive(Clone, Debug)]
pub struct UpgradeResourceStateRequest {
    pub type_name: String,
    /// The schema version the state was written with.
    pub version: i64,
    pub raw_state: RawState,
}

#[derive(Clone, Debug)]
pub struct UpgradeResourceStateResponse {
    pub upgraded_state: Value,
    pub diagnostics: Diagnostics,
}

#[derive(Clone, Debug)]
pub struct ConfigureProviderRequest {
    /// The Terraform version the provider is told it runs under.
    pub terraform_version: String,
    pub config: Value,
    pub client_capabilities: ClientCapabilities,
}

#[derive(Clone, Debug, Default)]
pub struct ConfigureProviderResponse {
    pub diagnostics: Diagnostics,
}

#[derive(Clone, Debug)]
pub struct ReadResourceRequest {
    pub type_name: String,
    pub prior_state: Value,
    /// Opaque bytes the provider stored with the object.
    pub private: Vec<u8>,
    /// The module's `provider_meta` block; `None` sends a null when the
    /// provider has a provider_meta schema.
    pub provider_meta: Option<Value>,
    pub client_capabilities: ClientCapabilities,
}

#[derive(Clone, Debug)]
pub struct ReadResourceResponse {
    pub new_state: Value,
    pub private: Vec<u8>,
    pub deferred: Option<Deferred>,
    pub diagnostics: Diagnostics,
}

#[derive(Clone, Debug)]
pub struct PlanResourceChangeRequest {
    pub type_name: String,
    pub prior_state: Value,
    /// Null when the object is to be destroyed.
    pub proposed_new_state: Value,
    pub config: Value,
    pub prior_private: Vec<u8>,
    pub provider_meta: Option<Value>,
    pub client_capabilities: ClientCapabilities,
}

#[derive(Clone, Debug)]
pub struct PlanResourceChangeResponse {
    pub planned_state: Value,
    /// Attributes whose change forces the object to be replaced.
    pub requires_replace: Vec<AttributePath>,
    pub planned_private: Vec<u8>,
    /// Set only by providers written with the legacy Go SDK; the engine
    /// then tolerates some inconsistencies in their answers.
    pub legacy_type_system: bool,
    pub deferred: Option<Deferred>,
    pub diagnostics: Diagnostics,
}

#[derive(Clone, Debug)]
pub struct ApplyResourceChangeRequest {
    pub type_name: String,
    pub prior_state: Value,
    pub planned_state: Value,
    pub config: Value,
    pub planned_private: Vec<u8>,
    pub provider_meta: Option<Value>,
}

#[derive(Clone, Debug)]
pub struct ApplyResourceChangeResponse {
    pub new_state: Value,
    pub private: Vec<u8>,
    pub legacy_type_system: bool,
    pub diagnostics: Diagnostics,
}

#[derive(Clone, Debug)]
pub struct ImportResourceStateRequest {
    pub type_name: String,
    pub id: String,
    pub client_capabilities: ClientCapabilities,
}

#[derive(Clone, Debug)]
pub struct ImportedResource {
    pub type_name: String,
    pub state: Value,
    pub private: Vec<u8>,
}

#[derive(Clone, Debug, Default)]
pub struct ImportResourceStateResponse {
    pub imported_resources: Vec<ImportedResource>,
    pub deferred: Option<Deferred>,
    pub diagnostics: Diagnostics,
}

#[derive(Clone, Debug)]
pub struct MoveResourceStateRequest {
    /// The provider the object comes from, e.g.
    /// `registry.terraform.io/hashicorp/aws`.
    pub source_provider_address: String,
    pub source_type_name: String,
    pub source_schema_version: i64,
    /// The source object's state as stored (JSON).
    pub source_state_json: Vec<u8>,
    pub source_private: Vec<u8>,
    pub target_type_name: String,
}

#[derive(Clone, Debug)]
pub struct MoveResourceStateResponse {
    pub target_state: Value,
    pub target_private: Vec<u8>,
    pub diagnostics: Diagnostics,
}

#[derive(Clone, Debug)]
pub struct ReadDataSourceRequest {
    pub type_name: String,
    pub config: Value,
    pub provider_meta: Option<Value>,
    pub client_capabilities: ClientCapabilities,
}

#[derive(Clone, Debug)]
pub struct ReadDataSourceResponse {
    pub state: Value,
    pub deferred: Option<Deferred>,
    pub diagnostics: Diagnostics,
}

#[derive(Clone, Debug)]
pub struct OpenEphemeralResourceRequest {
    pub type_name: String,
    pub config: Value,
    pub client_capabilities: ClientCapabilities,
}

#[derive(Clone, Debug)]
pub struct OpenEphemeralResourceResponse {
    pub result: Value,
    pub private: Option<Vec<u8>>,
    /// When the caller should call `renew_ephemeral_resource`, if ever.
    pub renew_at: Option<SystemTime>,
    pub deferred: Option<Deferred>,
    pub diagnostics: Diagnostics,
}

#[derive(Clone, Debug)]
pub struct RenewEphemeralResourceRequest {
    pub type_name: String,
    pub private: Option<Vec<u8>>,
}

#[derive(Clone, Debug, Default)]
pub struct RenewEphemeralResourceResponse {
    pub private: Option<Vec<u8>>,
    pub renew_at: Option<SystemTime>,
    pub diagnostics: Diagnostics,
}

#[derive(Clone, Debug)]
pub struct CloseEphemeralResourceRequest {
    pub type_name: String,
    pub private: Option<Vec<u8>>,
}

#[derive(Clone, Debug, Default)]
pub struct CloseEphemeralResourceResponse {
    pub diagnostics: Diagnostics,
}

#[derive(Clone, Debug, Default)]
pub struct GetFunctionsResponse {
    pub functions: BTreeMap<String, FunctionSpec>,
    pub diagnostics: Diagnostics,
}

#[derive(Clone, Debug)]
pub struct CallFunctionRequest {
    pub name: String,
    pub arguments: Vec<Value>,
}

#[derive(Clone, Debug)]
pub struct CallFunctionResponse {
    pub result: Result<Value, FunctionError>,
}

/// A provider function's failure, optionally blaming one argument (by
/// position, counting variadic arguments).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionError {
    pub text: String,
    pub argument: Option<usize>,
}

impl FunctionError {
    pub fn new(text: impl Into<String>) -> FunctionError {
        FunctionError {
            text: text.into(),
            argument: None,
        }
    }
}

impl fmt::Display for FunctionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::error::Error for FunctionError {}
