//! `PluginProvider`: a provider plugin process (or a provider started by
//! hand, through `TF_REATTACH_PROVIDERS`) behind the `Provider` trait.
//!
//! Launching follows go-plugin: spawn with the magic cookie and the offered
//! protocol versions, read the handshake, connect (with AutoMTLS unless
//! `TF_DISABLE_PLUGIN_TLS` is set), then speak tfplugin5 or tfplugin6 as
//! the plugin chose. Closing asks the plugin to exit through go-plugin's
//! controller service, waits two seconds, then kills it.

use crate::error::{PluginError, PluginErrorKind};
use crate::log::{EnvLogSink, LogLevel, LogRecord, LogSink, StderrDecoder};
use crate::mtls::ClientCertificate;
use crate::process::{log_module, PluginProcess, SpawnSettings};
use crate::proto::plugin as go_plugin;
use crate::reattach::ReattachConfig;
use crate::runtime;
use crate::transport;
use crate::{v5, v6};
use std::ffi::OsString;
use std::future::Future;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use terrace_providers::*;
use tokio::runtime::Handle;
use tonic::transport::Channel;
use tonic::Code;

/// How long a plugin gets to exit after being asked to, before it is
/// killed (go-plugin's figure).
const GRACEFUL_EXIT: Duration = Duration::from_secs(2);

/// How to start one provider plugin.
pub struct LaunchConfig {
    /// The provider as users know it, used in every message about it,
    /// e.g. `registry.terraform.io/hashicorp/aws`.
    pub provider: String,
    pub executable: PathBuf,
    pub args: Vec<OsString>,
    /// Added to terrace's own environment, which the plugin inherits.
    pub env: Vec<(OsString, OsString)>,
    /// go-plugin's AutoMTLS; on unless `TF_DISABLE_PLUGIN_TLS` is set.
    pub auto_mtls: bool,
    /// Limit for the plugin to print its handshake (go-plugin: one minute).
    pub start_timeout: Duration,
    /// The TCP port range offered to plugins that listen on TCP.
    pub min_port: u16,
    pub max_port: u16,
    /// Receives the plugin's log output.
    pub log: Arc<dyn LogSink>,
}

impl LaunchConfig {
    pub fn new(provider: impl Into<String>, executable: impl Into<PathBuf>) -> LaunchConfig {
        LaunchConfig {
            provider: provider.into(),
            executable: executable.into(),
            args: Vec::new(),
            env: Vec::new(),
            auto_mtls: std::env::var_os("TF_DISABLE_PLUGIN_TLS").is_none_or(|v| v.is_empty()),
            start_timeout: Duration::from_secs(60),
            min_port: 10000,
            max_port: 25000,
            log: default_log_sink(),
        }
    }
}

/// The process-wide sink configured by `TF_LOG`, `TF_LOG_PROVIDER` and
/// `TF_LOG_PATH`.
pub fn default_log_sink() -> Arc<dyn LogSink> {
    static SINK: OnceLock<Arc<EnvLogSink>> = OnceLock::new();
    SINK.get_or_init(|| Arc::new(EnvLogSink::from_env()))
        .clone()
}

/// What every protocol client shares: the connection, the process, and
/// the way calls are run and their failures reported.
pub(crate) struct Core {
    pub provider: String,
    pub runtime: Handle,
    pub channel: Channel,
    pub process: Option<Arc<PluginProcess>>,
    /// Ask the plugin to exit on close (not for debug-mode reattaches).
    pub shutdown_on_close: bool,
    /// The connection is mutual TLS.
    pub tls: bool,
    pub closed: AtomicBool,
    /// The stdio stream reader, which holds the connection open; it is
    /// ended on close, since a reattached plugin outlives terrace's use.
    pub stdio_task: tokio::task::AbortHandle,
}

impl Core {
    /// Runs one RPC to completion. Transport failures and gRPC errors
    /// become error diagnostics naming the provider and the method.
    pub fn call<T, F>(&self, method: &'static str, future: F) -> Result<T, Diagnostics>
    where
        F: Future<Output = Result<tonic::Response<T>, tonic::Status>> + Send + 'static,
        T: Send + 'static,
    {
        if self.closed.load(Ordering::SeqCst) {
            return Err(Diagnostic::error(
                "Provider closed",
                format!(
                    "terrace tried to call {method} on provider {} after shutting it down. \
                     This is a bug in terrace.",
                    self.provider
                ),
            )
            .into());
        }
        match runtime::run(&self.runtime, future) {
            Some(Ok(response)) => Ok(response.into_inner()),
            Some(Err(status)) => Err(self.status_diagnostic(method, &status).into()),
            None => Err(Diagnostic::error(
                "Plugin error",
                format!(
                    "The call to {method} on provider {} was abandoned because terrace's \
                     plugin runtime stopped.",
                    self.provider
                ),
            )
            .into()),
        }
    }

    fn status_diagnostic(&self, method: &str, status: &tonic::Status) -> Diagnostic {
        let provider = &self.provider;
        // A connection that broke mostly means the plugin died; if so, say
        // so and show what it printed, which is usually a Go panic.
        if matches!(
            status.code(),
            Code::Unavailable | Code::Unknown | Code::Internal | Code::Cancelled
        ) {
            if let Some(detail) = self.crash_detail(method) {
                return Diagnostic::error("Plugin did not respond", detail);
            }
        }
        match status.code() {
            Code::Unavailable => Diagnostic::error(
                "Plugin did not respond",
                format!(
                    "The plugin for provider {provider} encountered an error, and failed to \
                     respond to the {method} call. The plugin logs may contain more details."
                ),
            ),
            Code::Cancelled => Diagnostic::error(
                "Request cancelled",
                format!("The {method} request to provider {provider} was cancelled."),
            ),
            Code::Unimplemented => Diagnostic::error(
                "Unsupported plugin method",
                format!(
                    "The {method} method is not supported by the plugin for provider \
                     {provider}."
                ),
            ),
            _ => Diagnostic::error(
                "Plugin error",
                format!(
                    "The plugin for provider {provider} returned an unexpected error from \
                     {method}: {}",
                    describe_status(status)
                ),
            ),
        }
    }

    /// If the plugin process has ended, a description of its end.
    fn crash_detail(&self, method: &str) -> Option<String> {
        let process = self.process.as_ref()?;
        let waiting = process.clone();
        let status = runtime::run(&self.runtime, async move {
            let status = waiting.wait_exit(Duration::from_secs(1)).await;
            if status.is_some() {
                waiting.finish_output(Duration::from_secs(1)).await;
            }
            status
        })
        .flatten()?;
        let mut detail = format!(
            "The plugin for provider {} exited ({status}) while terrace was waiting for its \
             response to the {method} call.",
            self.provider
        );
        match process.panic_output() {
            Some(panic) => detail.push_str(&format!(
                "\n\nStack trace from the plugin:\n\n{panic}\n\nThe plugin crashed! This is \
                 always indicative of a bug within the plugin; please report it to the \
                 provider's maintainers with the output above."
            )),
            None => {
                let output = process.recent_output();
                if !output.trim().is_empty() {
                    detail.push_str(&format!(
                        "\n\nThe plugin's last output:\n{}",
                        output.trim_end()
                    ));
                }
            }
        }
        Some(detail)
    }

    /// Ends the plugin: asks it to exit, waits, then kills it and anything
    /// it started. Idempotent.
    pub fn shutdown(&self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        let channel = self.channel.clone();
        let process = self.process.clone();
        let ask = self.shutdown_on_close;
        runtime::run(&self.runtime, async move {
            if ask {
                let mut controller =
                    go_plugin::grpc_controller_client::GrpcControllerClient::new(channel);
                // The plugin stops serving as it handles this, so the reply
                // may never come; only the exit below matters.
                let _ =
                    tokio::time::timeout(GRACEFUL_EXIT, controller.shutdown(go_plugin::Empty {}))
                        .await;
            }
            if let Some(process) = process {
                // Whatever has not exited by now is killed, together with
                // anything the plugin left running in its group.
                process.wait_exit(GRACEFUL_EXIT).await;
                process.kill();
                process.wait_exit(Duration::from_secs(5)).await;
                process.finish_output(Duration::from_secs(1)).await;
            }
        });
        self.stdio_task.abort();
    }
}

fn describe_status(status: &tonic::Status) -> String {
    let message = status.message();
    let code = format!("{:?}", status.code());
    if message.is_empty() {
        code
    } else {
        format!("rpc error: code = {code} desc = {message}")
    }
}

enum ProtocolClient {
    V5(v5::Client),
    V6(v6::Client),
}

/// A running provider plugin. Dropping it shuts the plugin down.
pub struct PluginProvider {
    core: Arc<Core>,
    protocol_version: u32,
    client: ProtocolClient,
}

impl PluginProvider {
    /// Starts the plugin and connects to it. Blocks until the plugin is
    /// ready or has failed; on failure no process is left behind.
    pub fn launch(config: LaunchConfig) -> Result<PluginProvider, PluginError> {
        let runtime = runtime::handle()
            .map_err(|e| PluginError::new(PluginErrorKind::Internal, &config.provider, e))?;
        let provider = config.provider.clone();
        let handle = runtime.clone();
        runtime::run(&runtime, launch(config, handle)).unwrap_or_else(|| {
            Err(PluginError::new(
                PluginErrorKind::Internal,
                &provider,
                "the plugin runtime stopped while starting the plugin",
            ))
        })
    }

    /// Connects to a provider that is already running (from
    /// `TF_REATTACH_PROVIDERS`). It is not started, and never killed.
    pub fn reattach(
        provider: &str,
        config: &ReattachConfig,
        log: Arc<dyn LogSink>,
    ) -> Result<PluginProvider, PluginError> {
        let runtime = runtime::handle()
            .map_err(|e| PluginError::new(PluginErrorKind::Internal, provider, e))?;
        let address = config.address.clone();
        let provider_name = provider.to_string();
        let channel = runtime::run(&runtime, async move {
            transport::connect(&address, None, Duration::from_secs(10)).await
        })
        .unwrap_or_else(|| Err("the plugin runtime stopped".to_string()))
        .map_err(|e| PluginError::new(PluginErrorKind::Connect, provider, e))?;
        let stdio_task = runtime.spawn(forward_stdio(
            channel.clone(),
            format!("provider.unmanaged.{provider_name}"),
            log,
        ));
        let core = Arc::new(Core {
            provider: provider_name,
            runtime,
            channel,
            process: None,
            shutdown_on_close: !config.test,
            tls: false,
            closed: AtomicBool::new(false),
            stdio_task: stdio_task.abort_handle(),
        });
        Ok(PluginProvider::new(core, config.protocol_version))
    }

    fn new(core: Arc<Core>, protocol_version: u32) -> PluginProvider {
        let client = if protocol_version == 6 {
            ProtocolClient::V6(v6::Client::new(core.clone()))
        } else {
            ProtocolClient::V5(v5::Client::new(core.clone()))
        };
        PluginProvider {
            core,
            protocol_version,
            client,
        }
    }

    /// The tfplugin major version in use: 5 or 6.
    pub fn protocol_version(&self) -> u32 {
        self.protocol_version
    }

    /// The provider's name as given at launch.
    pub fn provider_name(&self) -> &str {
        &self.core.provider
    }

    /// Whether the connection is mutual TLS (AutoMTLS), rather than
    /// plaintext.
    pub fn uses_tls(&self) -> bool {
        self.core.tls
    }

    /// The plugin's process id, when terrace started it.
    pub fn pid(&self) -> Option<i32> {
        self.core.process.as_ref().and_then(|p| p.pid())
    }

    /// How the plugin process ended, if it has.
    pub fn exit_status(&self) -> Option<String> {
        self.core.process.as_ref().and_then(|p| p.exit_status())
    }

    /// The Go panic the plugin printed, if it crashed.
    pub fn panic_output(&self) -> Option<String> {
        self.core.process.as_ref().and_then(|p| p.panic_output())
    }

    /// Gives the plugin's schema from elsewhere (terrace's schema cache),
    /// so that `get_provider_schema` answers with it and the plugin is
    /// never asked. Only for plugins that announce
    /// `get_provider_schema_optional` (checked by the caller, through
    /// `get_metadata`), and only for a schema taken from this very
    /// executable. False, and nothing changes, when the schema was already
    /// fetched or given.
    pub fn use_cached_schema(&self, schema: Arc<ProviderSchema>) -> bool {
        match &self.client {
            ProtocolClient::V5(client) => client.use_cached_schema(schema),
            ProtocolClient::V6(client) => client.use_cached_schema(schema),
        }
    }

    fn provider(&self) -> &dyn Provider {
        match &self.client {
            ProtocolClient::V5(client) => client,
            ProtocolClient::V6(client) => client,
        }
    }
}

impl Drop for PluginProvider {
    fn drop(&mut self) {
        self.core.shutdown();
    }
}

async fn launch(config: LaunchConfig, runtime: Handle) -> Result<PluginProvider, PluginError> {
    let provider = config.provider.clone();
    let certificate = if config.auto_mtls {
        Some(
            ClientCertificate::generate()
                .map_err(|e| PluginError::new(PluginErrorKind::Internal, &provider, e))?,
        )
    } else {
        None
    };
    let start_timeout = config.start_timeout;
    let log = config.log.clone();
    let module = log_module(&config.executable);
    let (process, handshake) = PluginProcess::start(SpawnSettings {
        provider: config.provider,
        executable: config.executable,
        args: config.args,
        env: config.env,
        start_timeout,
        min_port: config.min_port,
        max_port: config.max_port,
        client_certificate_pem: certificate.as_ref().map(|c| c.pem.clone()),
        log: config.log,
    })
    .await?;
    // A plugin that did not take up AutoMTLS listens in plaintext.
    let tls = match (&certificate, &handshake.server_certificate) {
        (Some(certificate), Some(server)) => match certificate.client_config(server) {
            Ok(config) => Some(config),
            Err(message) => return Err(process.fail(PluginErrorKind::Connect, message).await),
        },
        _ => None,
    };
    let uses_tls = tls.is_some();
    let channel = match transport::connect(&handshake.address, tls, start_timeout).await {
        Ok(channel) => channel,
        Err(message) => return Err(process.fail(PluginErrorKind::Connect, message).await),
    };
    let stdio_task = tokio::spawn(forward_stdio(channel.clone(), module, log));
    let core = Arc::new(Core {
        provider,
        runtime,
        channel,
        process: Some(process),
        shutdown_on_close: true,
        tls: uses_tls,
        closed: AtomicBool::new(false),
        stdio_task: stdio_task.abort_handle(),
    });
    Ok(PluginProvider::new(core, handshake.protocol_version))
}

/// Reads go-plugin's stdio stream: whatever the plugin writes to its
/// (redirected) stdout and stderr after the handshake. Reading it also
/// keeps the plugin from blocking on those writes.
async fn forward_stdio(channel: Channel, module: String, sink: Arc<dyn LogSink>) {
    let mut client = go_plugin::grpc_stdio_client::GrpcStdioClient::new(channel);
    let Ok(response) = client.stream_stdio(()).await else {
        // Plugins built with an older go-plugin have no stdio service.
        return;
    };
    let mut stream = response.into_inner();
    let mut decoder = StderrDecoder::new(module.clone());
    let mut stderr_buffer: Vec<u8> = Vec::new();
    while let Ok(Some(data)) = stream.message().await {
        if data.channel == go_plugin::stdio_data::Channel::Stderr as i32 {
            stderr_buffer.extend_from_slice(&data.data);
            while let Some(newline) = stderr_buffer.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = stderr_buffer.drain(..=newline).collect();
                let text = String::from_utf8_lossy(&line[..line.len() - 1]);
                let record = decoder.decode(text.trim_end_matches('\r')).record;
                if sink.enabled(record.level) {
                    sink.log(&record);
                }
            }
        } else if sink.enabled(LogLevel::Warn) {
            sink.log(&LogRecord {
                level: LogLevel::Warn,
                module: module.clone(),
                message: "unexpected data".into(),
                timestamp: None,
                fields: vec![(
                    "stdout".into(),
                    String::from_utf8_lossy(&data.data).trim().to_string(),
                )],
            });
        }
    }
}

impl Provider for PluginProvider {
    fn get_metadata(&self) -> GetMetadataResponse {
        self.provider().get_metadata()
    }
    fn get_provider_schema(&self) -> GetProviderSchemaResponse {
        self.provider().get_provider_schema()
    }
    fn validate_provider_config(
        &self,
        request: ValidateProviderConfigRequest,
    ) -> ValidateProviderConfigResponse {
        self.provider().validate_provider_config(request)
    }
    fn validate_resource_config(
        &self,
        request: ValidateResourceConfigRequest,
    ) -> ValidateResourceConfigResponse {
        self.provider().validate_resource_config(request)
    }
    fn validate_data_resource_config(
        &self,
        request: ValidateDataResourceConfigRequest,
    ) -> ValidateDataResourceConfigResponse {
        self.provider().validate_data_resource_config(request)
    }
    fn validate_ephemeral_resource_config(
        &self,
        request: ValidateEphemeralResourceConfigRequest,
    ) -> ValidateEphemeralResourceConfigResponse {
        self.provider().validate_ephemeral_resource_config(request)
    }
    fn upgrade_resource_state(
        &self,
        request: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        self.provider().upgrade_resource_state(request)
    }
    fn configure_provider(&self, request: ConfigureProviderRequest) -> ConfigureProviderResponse {
        self.provider().configure_provider(request)
    }
    fn read_resource(&self, request: ReadResourceRequest) -> ReadResourceResponse {
        self.provider().read_resource(request)
    }
    fn plan_resource_change(
        &self,
        request: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        self.provider().plan_resource_change(request)
    }
    fn apply_resource_change(
        &self,
        request: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        self.provider().apply_resource_change(request)
    }
    fn import_resource_state(
        &self,
        request: ImportResourceStateRequest,
    ) -> ImportResourceStateResponse {
        self.provider().import_resource_state(request)
    }
    fn move_resource_state(&self, request: MoveResourceStateRequest) -> MoveResourceStateResponse {
        self.provider().move_resource_state(request)
    }
    fn read_data_source(&self, request: ReadDataSourceRequest) -> ReadDataSourceResponse {
        self.provider().read_data_source(request)
    }
    fn open_ephemeral_resource(
        &self,
        request: OpenEphemeralResourceRequest,
    ) -> OpenEphemeralResourceResponse {
        self.provider().open_ephemeral_resource(request)
    }
    fn renew_ephemeral_resource(
        &self,
        request: RenewEphemeralResourceRequest,
    ) -> RenewEphemeralResourceResponse {
        self.provider().renew_ephemeral_resource(request)
    }
    fn close_ephemeral_resource(
        &self,
        request: CloseEphemeralResourceRequest,
    ) -> CloseEphemeralResourceResponse {
        self.provider().close_ephemeral_resource(request)
    }
    fn get_functions(&self) -> GetFunctionsResponse {
        self.provider().get_functions()
    }
    fn call_function(&self, request: CallFunctionRequest) -> CallFunctionResponse {
        self.provider().call_function(request)
    }
    fn stop(&self) -> Diagnostics {
        self.provider().stop()
    }
    fn close(&self) -> Diagnostics {
        self.core.shutdown();
        Diagnostics::new()
    }
}
