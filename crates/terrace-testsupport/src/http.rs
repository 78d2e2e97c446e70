//! A loopback HTTP/1.1 server for tests of what terrace fetches or calls
//! over the network: every request is recorded and answered by the
//! test's handler, on keep-alive connections, in plain text or inside TLS
//! (`https::LoopbackHttps` is the TLS one with a route table). It stops
//! accepting when dropped.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// One request as the server read it.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    /// The path with its query string.
    pub target: String,
    /// Names lower-cased, values trimmed, in the order sent.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The path without its query string.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or(&self.target)
    }
}

/// One answer.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    /// Sent as given, before `Content-Length`.
    pub headers: Vec<(String, String)>,
    /// Shared, so that a handler answering many requests with one large
    /// body does not copy it for each (a copy would also sit in this
    /// process's memory when a test forks a child whose peak it measures).
    pub body: Arc<Vec<u8>>,
}

impl Reply {
    /// 200 with a JSON document.
    pub fn json(value: serde_json::Value) -> Reply {
        Reply::with_type("application/json", value.to_string().into_bytes())
    }

    /// 200 with bytes.
    pub fn bytes(body: &[u8]) -> Reply {
        Reply::with_type("application/octet-stream", body.to_vec())
    }

    /// 200 with bytes shared by every reply made from them.
    pub fn shared(body: Arc<Vec<u8>>) -> Reply {
        Reply {
            body,
            ..Reply::with_type("application/octet-stream", Vec::new())
        }
    }

    /// `status` with no headers and no body.
    pub fn empty(status: u16) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: Arc::default(),
        }
    }

    /// `status` with a plain-text body.
    pub fn text(status: u16, body: &str) -> Reply {
        Reply {
            status,
            ..Reply::with_type("text/plain", body.as_bytes().to_vec())
        }
    }

    /// 404 with a plain-text body.
    pub fn not_found() -> Reply {
        Reply::text(404, "not found")
    }

    /// 200 with `body` of `content_type`.
    pub fn with_type(content_type: &str, body: Vec<u8>) -> Reply {
        Reply {
            status: 200,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: Arc::new(body),
        }
    }

    /// The same reply with one more header.
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// A port on 127.0.0.1 that nothing listened on a moment ago: for a
/// server the test starts itself (moto, PostgreSQL), or for an address
/// that must refuse connections.
pub fn free_loopback_port() -> std::io::Result<u16> {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
}

type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

/// Wraps each accepted connection (in TLS, for the HTTPS server); `None`
/// drops the connection.
pub(crate) type Wrap = dyn Fn(TcpStream) -> Option<Box<dyn Stream>> + Send + Sync;

/// A connection the server can read requests from and write replies to.
pub(crate) trait Stream: Read + Write + Send {
    /// Called once the connection is done with (TLS says goodbye).
    fn finish(&mut self) {}
}

impl Stream for TcpStream {}

/// The server; see the module documentation.
pub struct LoopbackServer {
    /// The port on 127.0.0.1.
    pub port: u16,
    requests: Arc<Mutex<Vec<Request>>>,
    stopped: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl LoopbackServer {
    /// Serves plain HTTP on a free port. Panics when it cannot: a test
    /// without its server cannot go on.
    pub fn start(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> LoopbackServer {
        LoopbackServer::start_wrapped(
            Arc::new(handler),
            Arc::new(|tcp| Some(Box::new(tcp) as Box<dyn Stream>)),
        )
    }

    pub(crate) fn start_wrapped(handler: Arc<Handler>, wrap: Arc<Wrap>) -> LoopbackServer {
        let listener = match TcpListener::bind((Ipv4Addr::LOCALHOST, 0)) {
            Ok(listener) => listener,
            Err(e) => panic!("binding a loopback port: {e}"),
        };
        let port = match listener.local_addr() {
            Ok(addr) => addr.port(),
            Err(e) => panic!("the server's address: {e}"),
        };
        let requests: Arc<Mutex<Vec<Request>>> = Arc::default();
        let stopped = Arc::new(AtomicBool::new(false));
        let thread = {
            let (requests, stopped) = (requests.clone(), stopped.clone());
            std::thread::spawn(move || {
                for tcp in listener.incoming() {
                    if stopped.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(tcp) = tcp else { continue };
                    let _ = tcp.set_read_timeout(Some(Duration::from_secs(30)));
                    let (requests, handler, wrap, stopped) = (
                        requests.clone(),
                        handler.clone(),
                        wrap.clone(),
                        stopped.clone(),
                    );
                    std::thread::spawn(move || {
                        if let Some(stream) = wrap(tcp) {
                            serve(stream, &requests, &*handler, &stopped);
                        }
                    });
                }
            })
        };
        LoopbackServer {
            port,
            requests,
            stopped,
            thread: Some(thread),
        }
    }

    /// `127.0.0.1:PORT`, the host part of addresses on this server.
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Stops serving, as a service that goes away: new connections are
    /// refused and open ones answer nothing more.
    pub fn stop(&mut self) {
        self.stopped.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect((Ipv4Addr::LOCALHOST, self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for LoopbackServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Answers requests on one connection until the client closes it, a
/// reply says `Connection: close`, or the server is stopped.
fn serve(
    stream: Box<dyn Stream>,
    requests: &Mutex<Vec<Request>>,
    handler: &Handler,
    stopped: &AtomicBool,
) {
    // One reader for the connection's life: what it has buffered past one
    // request belongs to the next.
    let mut reader = BufReader::new(stream);
    while let Some(request) = read_request(&mut reader) {
        if stopped.load(Ordering::SeqCst) {
            return;
        }
        let reply = handler(&request);
        let close = reply.headers.iter().any(|(name, value)| {
            name.eq_ignore_ascii_case("connection") && value.eq_ignore_ascii_case("close")
        });
        // A HEAD answer has the headers of the GET answer and no body.
        let send_body = request.method != "HEAD";
        requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(request);
        if write_reply(reader.get_mut().as_mut(), &reply, send_body).is_err() || close {
            break;
        }
    }
    reader.into_inner().finish();
}

/// One request: its line, headers and (by `Content-Length`) body; `None`
/// when the connection ends or fails first.
fn read_request(reader: &mut impl BufRead) -> Option<Request> {
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
    let length: usize = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        target,
        headers,
        body,
    })
}

fn write_reply(stream: &mut dyn Stream, reply: &Reply, send_body: bool) -> std::io::Result<()> {
    let reason = match reply.status {
        200 => "OK",
        204 => "No Content",
        302 => "Found",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        423 => "Locked",
        500 => "Internal Server Error",
        _ => "Status",
    };
    let mut head = format!("HTTP/1.1 {} {reason}\r\n", reply.status);
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", reply.body.len()));
    stream.write_all(head.as_bytes())?;
    if send_body {
        stream.write_all(&reply.body)?;
    }
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends `raw` on a new connection, ends the sending side, and reads
    /// what comes back until the server closes the connection.
    fn exchange(port: u16, raw: &str) -> String {
        let mut tcp = TcpStream::connect((Ipv4Addr::LOCALHOST, port)).unwrap();
        tcp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        tcp.write_all(raw.as_bytes()).unwrap();
        tcp.shutdown(std::net::Shutdown::Write).unwrap();
        let mut text = String::new();
        let _ = tcp.read_to_string(&mut text);
        text
    }

    #[test]
    fn answers_every_request_of_a_connection_and_records_it() {
        let server = LoopbackServer::start(|request| match request.path() {
            "/echo" => Reply::with_type("text/plain", request.body.clone()),
            _ => Reply::not_found(),
        });
        let text = exchange(
            server.port,
            "POST /echo?x=1 HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloGET /nothing HTTP/1.1\r\n\r\nHEAD /echo HTTP/1.1\r\n\r\n",
        );
        let replies: Vec<&str> = text.split("HTTP/1.1 ").skip(1).collect();
        assert_eq!(replies.len(), 3, "{text}");
        assert!(replies[0].starts_with("200 OK\r\n"), "{text}");
        assert!(
            replies[0].ends_with("Content-Length: 5\r\n\r\nhello"),
            "{text}"
        );
        assert!(replies[1].starts_with("404 Not Found\r\n"), "{text}");
        // HEAD: the GET answer's headers, no body.
        assert!(replies[2].ends_with("Content-Length: 0\r\n\r\n"), "{text}");
        let requests = server.requests();
        let seen: Vec<(&str, &str, &[u8])> = requests
            .iter()
            .map(|r| (r.method.as_str(), r.target.as_str(), r.body.as_slice()))
            .collect();
        assert_eq!(
            seen,
            [
                ("POST", "/echo?x=1", &b"hello"[..]),
                ("GET", "/nothing", &b""[..]),
                ("HEAD", "/echo", &b""[..]),
            ]
        );
        assert_eq!(requests[0].header("Content-Length"), Some("5"));
    }

    #[test]
    fn a_reply_saying_close_ends_its_connection() {
        let server =
            LoopbackServer::start(|_| Reply::text(200, "once").header("Connection", "close"));
        let text = exchange(
            server.port,
            "GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n",
        );
        assert_eq!(text.matches("HTTP/1.1 200 OK").count(), 1, "{text}");
        assert_eq!(server.requests().len(), 1);
    }

    #[test]
    fn a_stopped_server_refuses_connections() {
        let mut server = LoopbackServer::start(|_| Reply::text(200, "up"));
        assert!(exchange(server.port, "GET / HTTP/1.1\r\n\r\n").contains("up"));
        server.stop();
        let refused = TcpStream::connect((Ipv4Addr::LOCALHOST, server.port))
            .map(|mut tcp| {
                // The port may still accept at the kernel until the
                // listener is gone; nothing answers either way.
                let _ = tcp.write_all(b"GET / HTTP/1.1\r\n\r\n");
                let mut text = String::new();
                let _ = tcp.read_to_string(&mut text);
                text
            })
            .unwrap_or_default();
        assert!(!refused.contains("up"), "{refused}");
    }
}
