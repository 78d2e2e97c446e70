//! go-plugin's server side, as Terraform and OpenTofu start providers:
//! check the magic cookie (a person running the binary gets go-plugin's
//! explanation), pick the highest protocol version the host offers in
//! `PLUGIN_PROTOCOL_VERSIONS`, listen on a fresh unix socket, set up
//! AutoMTLS when the host sent `PLUGIN_CLIENT_CERT`, print the handshake
//! line `1|<version>|unix|<path>|grpc|<certificate>`, then serve the
//! provider (tfplugin6 and tfplugin5) next to go-plugin's controller,
//! health, stdio and broker services until the host asks to shut down.

use crate::grpc::{v5, v6};
use crate::mtls::ServerCertificate;
use crate::proto::health::health_server::{Health, HealthServer};
use crate::proto::health::{
    health_check_response::ServingStatus, HealthCheckRequest, HealthCheckResponse,
};
use crate::proto::plugin::grpc_broker_server::{GrpcBroker, GrpcBrokerServer};
use crate::proto::plugin::grpc_controller_server::{GrpcController, GrpcControllerServer};
use crate::proto::plugin::grpc_stdio_server::{GrpcStdio, GrpcStdioServer};
use crate::proto::plugin::{stdio_data, ConnInfo, Empty, StdioData};
use crate::provider::SdkProvider;
use crate::resource::ProviderSpec;
use std::convert::Infallible;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};
use terrace_providers::Provider;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{mpsc, watch};
use tonic::body::Body;
use tonic::codegen::http;
use tonic::codegen::tokio_stream::wrappers::ReceiverStream;
use tonic::codegen::{BoxFuture, Service};
use tonic::{Request, Response, Status, Streaming};

/// The variable and value every Terraform provider checks (go-plugin's
/// handshake configuration for Terraform).
pub const MAGIC_COOKIE_KEY: &str = "TF_PLUGIN_MAGIC_COOKIE";
pub const MAGIC_COOKIE_VALUE: &str =
    "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";

/// go-plugin's own protocol version, the first field of the handshake.
pub const CORE_PROTOCOL_VERSION: u32 = 1;

/// The tfplugin versions served, preferred first.
pub const PROTOCOL_VERSIONS: [u32; 2] = [6, 5];

/// What go-plugin tells a person who runs a plugin binary by hand.
const NOT_A_PROGRAM: &str =
    "This binary is a plugin. These are not meant to be executed directly.\n\
Please execute the program that consumes these plugins, which will\n\
load any plugins automatically\n";

/// Runs a provider declared with the SDK as a plugin process. Call it from
/// `main`: it returns only when the host is done with the provider, or
/// when the process was not started by a host.
pub fn serve<C: Send + Sync + 'static>(spec: ProviderSpec<C>) -> ExitCode {
    let calls = if spec.calls_never_wait {
        CallThreads::Server
    } else {
        CallThreads::Blocking
    };
    serve_provider_with(Arc::new(SdkProvider::new(spec)), calls)
}

/// Runs any `Provider` as a plugin process, each call on a thread that
/// may block.
pub fn serve_provider(provider: Arc<dyn Provider>) -> ExitCode {
    serve_provider_with(provider, CallThreads::Blocking)
}

fn serve_provider_with(provider: Arc<dyn Provider>, calls: CallThreads) -> ExitCode {
    let host = std::os::unix::process::parent_id();
    if std::env::var(MAGIC_COOKIE_KEY).ok().as_deref() != Some(MAGIC_COOKIE_VALUE) {
        eprint!("{NOT_A_PROGRAM}");
        return ExitCode::from(1);
    }
    let options = match ServeOptions::from_env() {
        Ok(options) => ServeOptions { calls, ..options },
        Err(message) => {
            eprintln!("plugin init error: {message}");
            return ExitCode::from(1);
        }
    };
    // An interrupt goes to the whole process group when the user presses
    // Ctrl-C; the host decides how to stop its providers, so the plugin
    // ignores it, as go-plugin does.
    // SAFETY: setting a signal's disposition to "ignore" installs no
    // handler code and is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_IGN);
    }
    let server = match Server::start(provider, options) {
        Ok(server) => server,
        Err(message) => {
            eprintln!("plugin init error: {message}");
            return ExitCode::from(1);
        }
    };
    let mut stdout = std::io::stdout().lock();
    if writeln!(stdout, "{}", server.handshake_line())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return ExitCode::from(1);
    }
    drop(stdout);
    if let Err(message) = redirect_stdout(server.stdio.clone()) {
        eprintln!("plugin stdio: {message}");
    }
    server.end_when_host_is_gone(host);
    server.wait();
    ExitCode::SUCCESS
}

/// How to listen; `from_env` reads what the host set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServeOptions {
    /// The tfplugin version to announce.
    pub protocol_version: u32,
    /// Where to make the socket; the system's temporary directory if none.
    pub socket_dir: Option<PathBuf>,
    /// The host's certificate (PEM) for AutoMTLS; plaintext if none.
    pub client_certificate: Option<String>,
    /// Where the provider's code runs.
    pub calls: CallThreads,
}

/// The threads that run the provider's code for each call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CallThreads {
    /// A pool of threads beside the server's, so that a call that waits
    /// (on the network, a file, a retry's sleep) holds up no other call.
    #[default]
    Blocking,
    /// The server's one thread, which also reads and writes the
    /// connection: no hand-off between threads, but a call that waits
    /// holds up every other. Only for providers whose calls never wait
    /// (`ProviderSpec::calls_never_wait`).
    Server,
}

impl ServeOptions {
    pub fn from_env() -> Result<ServeOptions, String> {
        let offered = std::env::var("PLUGIN_PROTOCOL_VERSIONS").unwrap_or_default();
        Ok(ServeOptions {
            protocol_version: negotiate(&offered),
            socket_dir: std::env::var_os("PLUGIN_UNIX_SOCKET_DIR")
                .filter(|dir| !dir.is_empty())
                .map(PathBuf::from),
            client_certificate: std::env::var("PLUGIN_CLIENT_CERT")
                .ok()
                .filter(|pem| !pem.is_empty()),
            calls: CallThreads::default(),
        })
    }
}

/// The highest version both sides speak; with none in common (or none
/// offered: a host from before version negotiation), the lowest served,
/// so that the host reports the mismatch, as go-plugin does.
pub fn negotiate(offered: &str) -> u32 {
    let mut host: Vec<u32> = Vec::new();
    for part in offered.split(',').filter(|p| !p.is_empty()) {
        match part.trim().parse() {
            Ok(version) => host.push(version),
            Err(_) => eprint!("server sent invalid plugin version {part:?}"),
        }
    }
    PROTOCOL_VERSIONS
        .iter()
        .copied()
        .find(|version| host.contains(version))
        .unwrap_or(PROTOCOL_VERSIONS[PROTOCOL_VERSIONS.len() - 1])
}

/// A running plugin server with its own runtime thread.
pub struct Server {
    socket: PathBuf,
    protocol_version: u32,
    certificate: Option<String>,
    shutdown: watch::Sender<bool>,
    stdio: Stdio,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// Listens and starts serving `provider` in the background.
    pub fn start(provider: Arc<dyn Provider>, options: ServeOptions) -> Result<Server, String> {
        // Calls run on the server's thread need no other; calls that may
        // block go to tokio's blocking pool and the connection gets two
        // workers.
        let mut runtime = match options.calls {
            CallThreads::Server => tokio::runtime::Builder::new_current_thread(),
            CallThreads::Blocking => {
                let mut builder = tokio::runtime::Builder::new_multi_thread();
                builder.worker_threads(2);
                builder
            }
        };
        let runtime = runtime
            .thread_name("terrace-sdk")
            .enable_all()
            .build()
            .map_err(|e| format!("starting the runtime: {e}"))?;
        let dir = options
            .socket_dir
            .clone()
            .unwrap_or_else(std::env::temp_dir);
        let (socket, listener) = runtime.block_on(async { listen(&dir) })?;
        let (tls, certificate) = match &options.client_certificate {
            Some(pem) => {
                let cert = ServerCertificate::generate()?;
                let config = cert.server_config(pem)?;
                (
                    Some(tokio_rustls::TlsAcceptor::from(config)),
                    Some(cert.handshake_text()),
                )
            }
            None => (None, None),
        };
        let (shutdown, mut stopped) = watch::channel(false);
        let stdio = Stdio::default();
        let services = Services::new(provider, options.calls, shutdown.clone(), stdio.clone());
        let socket_for_thread = socket.clone();
        let thread = std::thread::Builder::new()
            .name("terrace-sdk-server".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let (sender, receiver) = mpsc::channel(16);
                    tokio::spawn(accept(listener, tls, sender));
                    let incoming = ReceiverStream::new(receiver);
                    let serving = tonic::transport::Server::builder()
                        .initial_stream_window_size(Some(16 << 20))
                        .initial_connection_window_size(Some(32 << 20))
                        .serve_with_incoming(services, incoming);
                    tokio::select! {
                        result = serving => {
                            if let Err(e) = result {
                                eprintln!("plugin server error: {e}");
                            }
                        }
                        _ = stopped.wait_for(|stop| *stop) => {}
                    }
                });
                // In-flight calls are abandoned: the host asked to stop.
                runtime.shutdown_background();
                let _ = std::fs::remove_file(&socket_for_thread);
            })
            .map_err(|e| format!("starting the server thread: {e}"))?;
        Ok(Server {
            socket,
            protocol_version: options.protocol_version,
            certificate,
            shutdown,
            stdio,
            thread: Some(thread),
        })
    }

    pub fn socket_path(&self) -> &Path {
        &self.socket
    }

    pub fn protocol_version(&self) -> u32 {
        self.protocol_version
    }

    /// The line go-plugin hosts read from the plugin's stdout.
    pub fn handshake_line(&self) -> String {
        format!(
            "{CORE_PROTOCOL_VERSION}|{}|unix|{}|grpc|{}",
            self.protocol_version,
            self.socket.display(),
            self.certificate.as_deref().unwrap_or("")
        )
    }

    /// Stops serving once this process's parent is no longer `host`. Only
    /// the host that started a plugin knows its socket and certificate, so
    /// a plugin whose host was killed (its children are then reparented)
    /// can never be called again: it ends instead of waiting forever. Its
    /// parent is looked at twice a second.
    pub fn end_when_host_is_gone(&self, host: u32) {
        let shutdown = self.shutdown.clone();
        let watching = std::thread::Builder::new()
            .name("terrace-sdk-host".into())
            .spawn(move || loop {
                std::thread::sleep(std::time::Duration::from_millis(500));
                if std::os::unix::process::parent_id() != host || shutdown.is_closed() {
                    let _ = shutdown.send(true);
                    return;
                }
            });
        if let Err(e) = watching {
            eprintln!("plugin: not watching for the host's end: {e}");
        }
    }

    /// Blocks until the host asks the plugin to shut down.
    pub fn wait(mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }

    /// Stops serving now.
    pub fn stop(mut self) {
        let _ = self.shutdown.send(true);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.shutdown.send(true);
    }
}

/// A new socket named like Go's temporary files (`plugin` and digits).
fn listen(dir: &Path) -> Result<(PathBuf, UnixListener), String> {
    let mut last_error = String::new();
    for _ in 0..100 {
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).map_err(|e| format!("no random source: {e}"))?;
        let path = dir.join(format!(
            "plugin{}",
            u64::from_le_bytes(bytes) % 10_000_000_000
        ));
        match UnixListener::bind(&path) {
            Ok(listener) => return Ok((path, listener)),
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
                last_error = e.to_string();
            }
            Err(e) => return Err(format!("listening on {}: {e}", path.display())),
        }
    }
    Err(format!(
        "no free socket name in {}: {last_error}",
        dir.display()
    ))
}

/// Accepts connections, wrapping them in TLS when AutoMTLS is on. A
/// connection that fails its TLS handshake is dropped; the next is
/// accepted.
async fn accept(
    listener: UnixListener,
    tls: Option<tokio_rustls::TlsAcceptor>,
    sender: mpsc::Sender<Result<Conn, std::io::Error>>,
) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                let _ = sender.send(Err(e)).await;
                return;
            }
        };
        let sender = sender.clone();
        let tls = tls.clone();
        tokio::spawn(async move {
            let conn = match tls {
                Some(acceptor) => match acceptor.accept(stream).await {
                    Ok(stream) => Conn::Tls(Box::new(stream)),
                    Err(_) => return,
                },
                None => Conn::Plain(stream),
            };
            let _ = sender.send(Ok(conn)).await;
        });
    }
}

enum Conn {
    Plain(UnixStream),
    Tls(Box<tokio_rustls::server::TlsStream<UnixStream>>),
}

impl tonic::transport::server::Connected for Conn {
    type ConnectInfo = ();
    fn connect_info(&self) -> Self::ConnectInfo {}
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_flush(cx),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

/// Every service on the one connection, chosen by the request path's
/// service name.
#[derive(Clone)]
struct Services {
    v6: crate::proto::tfplugin6::provider_server::ProviderServer<v6::Server>,
    v5: crate::proto::tfplugin5::provider_server::ProviderServer<v5::Server>,
    controller: GrpcControllerServer<Controller>,
    health: HealthServer<HealthService>,
    stdio: GrpcStdioServer<Stdio>,
    broker: GrpcBrokerServer<Broker>,
}

impl Services {
    fn new(
        provider: Arc<dyn Provider>,
        calls: CallThreads,
        shutdown: watch::Sender<bool>,
        stdio: Stdio,
    ) -> Services {
        Services {
            v6: v6::service(v6::Server::new(provider.clone(), calls)),
            v5: v5::service(v5::Server::new(provider, calls)),
            controller: GrpcControllerServer::new(Controller { shutdown }),
            health: HealthServer::new(HealthService),
            stdio: GrpcStdioServer::new(stdio),
            broker: GrpcBrokerServer::new(Broker),
        }
    }
}

impl Service<http::Request<Body>> for Services {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, _: &mut TaskContext<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let path = request.uri().path();
        let service = path
            .strip_prefix('/')
            .and_then(|p| p.split('/').next())
            .unwrap_or("");
        match service {
            "tfplugin6.Provider" => self.v6.call(request),
            "tfplugin5.Provider" => self.v5.call(request),
            "plugin.GRPCController" => self.controller.call(request),
            "plugin.GRPCStdio" => self.stdio.call(request),
            "plugin.GRPCBroker" => self.broker.call(request),
            "grpc.health.v1.Health" => self.health.call(request),
            _ => {
                let status = Status::unimplemented(format!("unknown service {service}"));
                Box::pin(async move { Ok(status.into_http()) })
            }
        }
    }
}

struct Controller {
    shutdown: watch::Sender<bool>,
}

#[tonic::async_trait]
impl GrpcController for Controller {
    async fn shutdown(&self, _: Request<Empty>) -> Result<Response<Empty>, Status> {
        let shutdown = self.shutdown.clone();
        // After this answer has gone out.
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            let _ = shutdown.send(true);
        });
        Ok(Response::new(Empty {}))
    }
}

/// go-plugin's health service answers for the server as a whole and for
/// the service named "plugin".
struct HealthService;

fn health_status(service: &str) -> Result<HealthCheckResponse, Status> {
    if service.is_empty() || service == "plugin" {
        Ok(HealthCheckResponse {
            status: ServingStatus::Serving as i32,
        })
    } else {
        Err(Status::not_found(format!("unknown service {service}")))
    }
}

#[tonic::async_trait]
impl Health for HealthService {
    async fn check(
        &self,
        request: Request<HealthCheckRequest>,
    ) -> Result<Response<HealthCheckResponse>, Status> {
        health_status(&request.into_inner().service).map(Response::new)
    }

    type WatchStream = ReceiverStream<Result<HealthCheckResponse, Status>>;

    async fn watch(
        &self,
        request: Request<HealthCheckRequest>,
    ) -> Result<Response<Self::WatchStream>, Status> {
        let status = health_status(&request.into_inner().service)?;
        let (sender, receiver) = mpsc::channel(1);
        tokio::spawn(async move {
            if sender.send(Ok(status)).await.is_ok() {
                // The status never changes; the stream stays open until
                // the watcher leaves.
                sender.closed().await;
            }
        });
        Ok(Response::new(ReceiverStream::new(receiver)))
    }
}

/// What the plugin writes to its stdout after the handshake, for the
/// host's `StreamStdio` reader.
type StdioSender = mpsc::Sender<Result<StdioData, Status>>;

#[derive(Clone, Default)]
struct Stdio {
    subscriber: Arc<Mutex<Option<StdioSender>>>,
}

impl Stdio {
    fn forward(&self, data: Vec<u8>) {
        let sender = self.subscriber.lock().ok().and_then(|s| s.clone());
        if let Some(sender) = sender {
            if sender
                .blocking_send(Ok(StdioData {
                    channel: stdio_data::Channel::Stdout as i32,
                    data,
                }))
                .is_err()
            {
                if let Ok(mut slot) = self.subscriber.lock() {
                    *slot = None;
                }
            }
        }
    }
}

#[tonic::async_trait]
impl GrpcStdio for Stdio {
    type StreamStdioStream = ReceiverStream<Result<StdioData, Status>>;

    async fn stream_stdio(
        &self,
        _: Request<()>,
    ) -> Result<Response<Self::StreamStdioStream>, Status> {
        let (sender, receiver) = mpsc::channel(64);
        if let Ok(mut slot) = self.subscriber.lock() {
            *slot = Some(sender);
        }
        Ok(Response::new(ReceiverStream::new(receiver)))
    }
}

/// The broker stream, kept open while the host keeps its end open;
/// these providers broker no connections.
struct Broker;

#[tonic::async_trait]
impl GrpcBroker for Broker {
    type StartStreamStream = ReceiverStream<Result<ConnInfo, Status>>;

    async fn start_stream(
        &self,
        request: Request<Streaming<ConnInfo>>,
    ) -> Result<Response<Self::StartStreamStream>, Status> {
        let mut incoming = request.into_inner();
        let (sender, receiver) = mpsc::channel(1);
        tokio::spawn(async move {
            while let Ok(Some(_)) = incoming.message().await {}
            drop(sender);
        });
        Ok(Response::new(ReceiverStream::new(receiver)))
    }
}

/// Points file descriptor 1 at a pipe whose contents go to the host's
/// `StreamStdio` stream, so that stray prints by provider code cannot
/// corrupt the protocol and still reach the host's logs.
fn redirect_stdout(stdio: Stdio) -> Result<(), String> {
    use std::io::Read;
    use std::os::fd::FromRawFd;
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return Err(std::io::Error::last_os_error().to_string());
    }
    let [read_end, write_end] = fds;
    // SAFETY: both descriptors were just created by pipe(2) and are open;
    // dup2 replaces descriptor 1 atomically.
    unsafe {
        if libc::dup2(write_end, 1) < 0 {
            let error = std::io::Error::last_os_error().to_string();
            libc::close(read_end);
            libc::close(write_end);
            return Err(error);
        }
        libc::close(write_end);
    }
    // SAFETY: `read_end` is open and owned by nothing else from here on.
    let mut reader = unsafe { std::fs::File::from_raw_fd(read_end) };
    std::thread::Builder::new()
        .name("terrace-sdk-stdio".into())
        .spawn(move || {
            let mut buffer = vec![0u8; 32 * 1024];
            while let Ok(n) = reader.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                stdio.forward(buffer[..n].to_vec());
            }
        })
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_prefers_the_highest_common_version() {
        let cases = [
            ("5,6", 6),
            ("6", 6),
            ("5", 5),
            ("", 5),
            ("4,7", 5),
            ("x,6", 6),
        ];
        for (offered, want) in cases {
            assert_eq!(negotiate(offered), want, "{offered}");
        }
    }

    #[test]
    fn health_answers_for_the_plugin() {
        assert_eq!(
            health_status("plugin").unwrap().status,
            ServingStatus::Serving as i32
        );
        assert!(health_status("").is_ok());
        assert_eq!(
            health_status("other").unwrap_err().code(),
            tonic::Code::NotFound
        );
    }
}
