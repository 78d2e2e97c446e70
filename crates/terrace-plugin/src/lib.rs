//! terrace-plugin: runs Terraform provider plugins and adapts them to the
//! `Provider` trait of terrace-providers. The only crate that knows gRPC.
//!
//! - `process`, `handshake`: go-plugin's launch protocol (magic cookie,
//!   offered protocol versions, port range, the handshake line);
//! - `mtls`: AutoMTLS with a per-plugin client certificate and the
//!   plugin's certificate pinned;
//! - `transport`: the HTTP/2 connection over a unix socket or TCP;
//! - `v5`, `v6`: tfplugin5.8 and tfplugin6.8 clients, values encoded as
//!   schema-driven msgpack;
//! - `client`: `PluginProvider`, launching, reattaching
//!   (`TF_REATTACH_PROVIDERS`, parsed in `reattach`) and shutdown;
//! - `log`: plugin stderr (hclog JSON) into a `LogSink` honouring `TF_LOG`.
//!
//! The protocol definitions in `proto/` are terrace's own, compiled at
//! build time with protox, so no `protoc` is needed.

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod client;
mod error;
mod handshake;
mod log;
mod mtls;
mod process;
mod reattach;
mod runtime;
mod transport;

/// The calls whose names differ between the two protocols, as each
/// protocol's module declares them: for each, a constant holding the
/// call's name on the wire (for messages) and an `rpc_` function, named as
/// protocol 6 names the call, that sends the message of the protocol's own
/// message module through the generated client's method.
macro_rules! renamed_calls {
    ($($rpc:ident, $wire_name:ident = $wire:literal: $method:ident($msg:ident);)*) => {
        $(
            const $wire_name: &str = $wire;

            async fn $rpc(mut grpc: Grpc, request: $msg::Request) -> Reply<$msg::Response> {
                grpc.$method(request).await
            }
        )*
    };
}

mod v5;
mod v6;

/// The protocol's generated code, shared with the SDK.
use terrace_protocol as proto;

pub use client::{default_log_sink, LaunchConfig, PluginProvider};
pub use error::{PluginError, PluginErrorKind};
pub use handshake::{Handshake, PluginAddress, CORE_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS};
pub use log::{format_record, EnvLogSink, LogLevel, LogRecord, LogSink, NullLogSink};
pub use process::{kill_all_plugins, MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE};
pub use reattach::{parse_reattach_providers, ReattachConfig};
