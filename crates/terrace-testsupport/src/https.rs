//! A loopback HTTPS server for tests of what terrace downloads: registries,
//! network mirrors, module archives. It answers GETs from a route table
//! with a certificate made for the occasion (clients trust it through
//! [`LoopbackHttps::cert_der`]), records every request target, can insist
//! on a bearer token as a private registry does, and stops when dropped.
//! The HTTP itself is [`crate::http`]'s.

pub use crate::http::Reply;
use crate::http::{LoopbackServer, Request, Stream};
use std::collections::HashMap;
use std::net::TcpStream;
use std::sync::{Arc, Mutex};

#[derive(Default)]
struct Routes {
    /// Keyed by the request target, or by its path without the query.
    replies: Mutex<HashMap<String, Reply>>,
    /// When set, a request without `Authorization: Bearer TOKEN` is
    /// answered 401 (discovery, `/.well-known/terraform.json`, stays open,
    /// as on real registries).
    required_token: Mutex<Option<String>>,
}

impl Routes {
    fn answer(&self, request: &Request) -> Reply {
        let path = request.path();
        let required = self.required_token.lock().ok().and_then(|t| t.clone());
        let authorized = path == "/.well-known/terraform.json"
            || required.is_none_or(|token| {
                request.header("authorization") == Some(&format!("Bearer {token}"))
            });
        if !authorized {
            return Reply::text(401, "unauthorized");
        }
        self.replies
            .lock()
            .ok()
            .and_then(|replies| {
                replies
                    .get(&request.target)
                    .or_else(|| replies.get(path))
                    .cloned()
            })
            .unwrap_or_else(Reply::not_found)
    }
}

impl Stream for rustls::StreamOwned<rustls::ServerConnection, TcpStream> {
    fn finish(&mut self) {
        self.conn.send_close_notify();
        let _ = std::io::Write::flush(self);
    }
}

/// The server; see the module documentation.
pub struct LoopbackHttps {
    /// `127.0.0.1:PORT`.
    pub addr: String,
    /// The server's certificate, for the client's trusted roots.
    pub cert_der: Vec<u8>,
    routes: Arc<Routes>,
    server: LoopbackServer,
}

impl LoopbackHttps {
    /// Starts serving on a free port. Panics when it cannot: a test
    /// without its server cannot go on.
    pub fn start() -> LoopbackHttps {
        let certified = match rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]) {
            Ok(c) => c,
            Err(e) => panic!("rcgen: {e}"),
        };
        let cert_der = certified.cert.der().to_vec();
        let key =
            rustls::pki_types::PrivateKeyDer::Pkcs8(certified.signing_key.serialize_der().into());
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = match rustls::ServerConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
            .map_err(|e| e.to_string())
            .and_then(|b| {
                b.with_no_client_auth()
                    .with_single_cert(vec![cert_der.clone().into()], key)
                    .map_err(|e| e.to_string())
            }) {
            Ok(c) => Arc::new(c),
            Err(e) => panic!("tls config: {e}"),
        };
        let routes = Arc::new(Routes::default());
        let answering = routes.clone();
        let server = LoopbackServer::start_wrapped(
            // Each reply closes its connection (TLS saying goodbye with
            // close_notify), so a test's requests never share one.
            Arc::new(move |request: &Request| {
                answering.answer(request).header("Connection", "close")
            }),
            Arc::new(move |tcp| {
                let connection = rustls::ServerConnection::new(config.clone()).ok()?;
                Some(Box::new(rustls::StreamOwned::new(connection, tcp)) as Box<dyn Stream>)
            }),
        );
        LoopbackHttps {
            addr: server.host(),
            cert_der,
            routes,
            server,
        }
    }

    /// Answers GETs of `target` (a path, or a path with its query) with
    /// `reply`.
    pub fn route(&self, target: &str, reply: Reply) {
        if let Ok(mut replies) = self.routes.replies.lock() {
            replies.insert(target.to_string(), reply);
        }
    }

    /// Forgets the route of `target`: it is answered 404 again.
    pub fn unroute(&self, target: &str) {
        if let Ok(mut replies) = self.routes.replies.lock() {
            replies.remove(target);
        }
    }

    /// From now on every request but discovery needs `token` (`None`:
    /// none does).
    pub fn require_token(&self, token: Option<&str>) {
        if let Ok(mut required) = self.routes.required_token.lock() {
            *required = token.map(str::to_string);
        }
    }

    /// The request targets received so far, in order.
    pub fn requests(&self) -> Vec<String> {
        self.server
            .requests()
            .into_iter()
            .map(|request| request.target)
            .collect()
    }
}
