//! The gRPC connection to a plugin: HTTP/2 over the unix socket or TCP
//! address from the handshake, inside TLS when the plugin announced a
//! certificate, plaintext otherwise.

use crate::handshake::PluginAddress;
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use rustls::ClientConfig;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpStream, UnixStream};
use tonic::transport::{Channel, Endpoint, Uri};

/// Messages up to this size are accepted and sent; go-plugin allows
/// `math.MaxInt32`, and provider schemas run to tens of megabytes.
pub(crate) const MAX_MESSAGE_SIZE: usize = i32::MAX as usize;

trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// Connects to the plugin; errors are messages for a `PluginError`.
pub(crate) async fn connect(
    address: &PluginAddress,
    tls: Option<Arc<ClientConfig>>,
    timeout: Duration,
) -> Result<Channel, String> {
    // The URI is only used for the `:authority` header; the connector
    // below decides where the bytes go.
    let endpoint = Endpoint::from_static("http://localhost")
        .connect_timeout(timeout)
        // Large windows let multi-megabyte schemas arrive without waiting
        // for flow-control round trips.
        .initial_stream_window_size(Some(16 << 20))
        .initial_connection_window_size(Some(32 << 20))
        .tcp_nodelay(true);
    let described = address.to_string();
    let address = address.clone();
    let connector = tower::service_fn(move |_: Uri| {
        let address = address.clone();
        let tls = tls.clone();
        async move {
            let stream: Box<dyn Io> = match &address {
                PluginAddress::Unix(path) => Box::new(UnixStream::connect(path).await?),
                PluginAddress::Tcp(addr) => {
                    let stream = TcpStream::connect(addr).await?;
                    stream.set_nodelay(true)?;
                    Box::new(stream)
                }
            };
            let stream: Box<dyn Io> = match tls {
                Some(config) => {
                    let name = ServerName::try_from("localhost")
                        .map_err(|e| std::io::Error::other(e.to_string()))?;
                    Box::new(
                        tokio_rustls::TlsConnector::from(config)
                            .connect(name, stream)
                            .await?,
                    )
                }
                None => stream,
            };
            Ok::<_, std::io::Error>(TokioIo::new(stream))
        }
    });
    endpoint
        .connect_with_connector(connector)
        .await
        .map_err(|e| {
            format!(
                "could not connect to the plugin at {described}: {}",
                error_chain(&e)
            )
        })
}

/// An error with its causes, `a: b: c`, since transport errors say little
/// at the top level.
pub(crate) fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}
