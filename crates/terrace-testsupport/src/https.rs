//! A loopback HTTPS server for tests of what terrace downloads: registries,
//! network mirrors, module archives. It answers GETs from a route table
//! with a certificate made for the occasion (clients trust it through
//! [`LoopbackHttps::cert_der`]), records every request target, can insist
//! on a bearer token as a private registry does, and stops when dropped.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One canned reply.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    /// 200 with a JSON document.
    pub fn json(value: serde_json::Value) -> Reply {
        Reply::with_type(200, "application/json", value.to_string().into_bytes())
    }

    /// 200 with bytes.
    pub fn bytes(body: &[u8]) -> Reply {
        Reply::with_type(200, "application/octet-stream", body.to_vec())
    }

    /// `status` with a plain-text body.
    pub fn text(status: u16, body: &str) -> Reply {
        Reply::with_type(status, "text/plain", body.as_bytes().to_vec())
    }

    fn with_type(status: u16, content_type: &str, body: Vec<u8>) -> Reply {
        Reply {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body,
        }
    }
}

#[derive(Default)]
struct Shared {
    /// Keyed by the request target, or by its path without the query.
    routes: Mutex<HashMap<String, Reply>>,
    requests: Mutex<Vec<String>>,
    /// When set, a request without `Authorization: Bearer TOKEN` is
    /// answered 401 (discovery, `/.well-known/terraform.json`, stays open,
    /// as on real registries).
    required_token: Mutex<Option<String>>,
    stop: AtomicBool,
}

/// The server; see the module documentation.
pub struct LoopbackHttps {
    /// `127.0.0.1:PORT`.
    pub addr: String,
    /// The server's certificate, for the client's trusted roots.
    pub cert_der: Vec<u8>,
    shared: Arc<Shared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl LoopbackHttps {
    /// Starts serving on a free port. Panics when it cannot: a test
    /// without its server cannot go on.
    pub fn start() -> LoopbackHttps {
        let listener = match TcpListener::bind("127.0.0.1:0") {
            Ok(l) => l,
            Err(e) => panic!("bind: {e}"),
        };
        let addr = match listener.local_addr() {
            Ok(a) => a.to_string(),
            Err(e) => panic!("{e}"),
        };
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
        let shared = Arc::new(Shared::default());
        let accepting = shared.clone();
        let thread = std::thread::spawn(move || {
            // At most so many connections, and only until stopped.
            for conn in listener.incoming().take(1000) {
                if accepting.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(tcp) = conn else { continue };
                let (config, shared) = (config.clone(), accepting.clone());
                std::thread::spawn(move || serve(tcp, config, &shared));
            }
        });
        LoopbackHttps {
            addr,
            cert_der,
            shared,
            thread: Some(thread),
        }
    }

    /// Answers GETs of `target` (a path, or a path with its query) with
    /// `reply`.
    pub fn route(&self, target: &str, reply: Reply) {
        if let Ok(mut routes) = self.shared.routes.lock() {
            routes.insert(target.to_string(), reply);
        }
    }

    /// Forgets the route of `target`: it is answered 404 again.
    pub fn unroute(&self, target: &str) {
        if let Ok(mut routes) = self.shared.routes.lock() {
            routes.remove(target);
        }
    }

    /// From now on every request but discovery needs `token` (`None`:
    /// none does).
    pub fn require_token(&self, token: Option<&str>) {
        if let Ok(mut required) = self.shared.required_token.lock() {
            *required = token.map(str::to_string);
        }
    }

    /// The request targets received so far, in order.
    pub fn requests(&self) -> Vec<String> {
        self.shared
            .requests
            .lock()
            .map(|r| r.clone())
            .unwrap_or_default()
    }
}

impl Drop for LoopbackHttps {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(&self.addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The request line and headers of one HTTP/1.1 request, as the test
/// servers read them (this one and the CLI tests' plain-HTTP server).
pub struct RequestHead {
    pub method: String,
    pub target: String,
    /// Names lowercased, values trimmed, in the order sent.
    pub headers: Vec<(String, String)>,
}

impl RequestHead {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Reads a request's head from `reader`; `None` when the connection ends
/// (or fails) before the blank line that closes it.
pub fn read_request_head(reader: &mut impl BufRead) -> Option<RequestHead> {
    let mut request_line = String::new();
    match reader.read_line(&mut request_line) {
        Ok(0) | Err(_) => return None,
        Ok(_) => {}
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("/").to_string();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => return None,
            Ok(_) if line == "\r\n" || line == "\n" => break,
            Ok(_) => {
                if let Some((name, value)) = line.split_once(':') {
                    headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
                }
            }
        }
    }
    Some(RequestHead {
        method,
        target,
        headers,
    })
}

fn serve(tcp: TcpStream, config: Arc<rustls::ServerConfig>, shared: &Shared) {
    let _ = tcp.set_read_timeout(Some(Duration::from_secs(10)));
    let Ok(conn) = rustls::ServerConnection::new(config) else {
        return;
    };
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    let mut reader = BufReader::new(&mut tls);
    let Some(head) = read_request_head(&mut reader) else {
        return;
    };
    drop(reader);
    let authorization = head.header("authorization").map(str::to_string);
    let target = head.target;
    if let Ok(mut requests) = shared.requests.lock() {
        requests.push(target.clone());
    }
    let path = target.split('?').next().unwrap_or("/");
    let required = shared.required_token.lock().ok().and_then(|t| t.clone());
    let authorized = path == "/.well-known/terraform.json"
        || required.is_none_or(|t| authorization == Some(format!("Bearer {t}")));
    let reply = if !authorized {
        Reply::text(401, "unauthorized")
    } else {
        shared
            .routes
            .lock()
            .ok()
            .and_then(|routes| routes.get(&target).or_else(|| routes.get(path)).cloned())
            .unwrap_or_else(|| Reply::text(404, "not found"))
    };
    let reason = match reply.status {
        200 => "OK",
        204 => "No Content",
        401 => "Unauthorized",
        404 => "Not Found",
        500 => "Internal Server Error",
        _ => "Status",
    };
    let mut head = format!("HTTP/1.1 {} {reason}\r\n", reply.status);
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        reply.body.len()
    ));
    let _ = tls.write_all(head.as_bytes());
    let _ = tls.write_all(&reply.body);
    let _ = tls.flush();
    tls.conn.send_close_notify();
    let _ = tls.flush();
}
