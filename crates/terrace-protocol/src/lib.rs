//! terrace-protocol: what the two sides of the plugin protocol share, so
//! that the host (terrace-plugin) and the plugin SDK (terrace-sdk) can
//! never drift apart.
//!
//! - [`tfplugin5`], [`tfplugin6`]: Terraform's provider protocols, major
//!   versions 5 and 6, generated from terrace's own definitions in
//!   `proto/` (clients with the `client` feature, servers with `server`).
//! - [`plugin`], [`health`]: go-plugin's controller, stdio and broker
//!   services, and gRPC health checking, which go-plugin uses.
//! - [`mtls`]: the signature algorithms go-plugin's AutoMTLS certificates
//!   need (ring's, plus ECDSA P-521/SHA-512).

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod mtls;

#[allow(dead_code, clippy::all, clippy::pedantic, missing_docs)]
pub mod tfplugin5 {
    tonic::include_proto!("tfplugin5");
}

#[allow(dead_code, clippy::all, clippy::pedantic, missing_docs)]
pub mod tfplugin6 {
    tonic::include_proto!("tfplugin6");
}

#[allow(dead_code, clippy::all, clippy::pedantic, missing_docs)]
pub mod plugin {
    tonic::include_proto!("plugin");
}

#[allow(dead_code, clippy::all, clippy::pedantic, missing_docs)]
pub mod health {
    tonic::include_proto!("grpc.health.v1");
}
