//! A plain HTTP server on 127.0.0.1 for the tests that need a remote
//! service (a provider registry reached through a CLI configuration `host`
//! block, a login service): every request is recorded and answered by the
//! test's handler. It stops when dropped.

#![allow(dead_code)]

use std::io::{BufReader, Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

/// One request as the server read it.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    /// The path with its query string.
    pub target: String,
    /// Header names in lower case.
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

#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
    pub extra_headers: Vec<(String, String)>,
}

impl Reply {
    pub fn json(body: &serde_json::Value) -> Reply {
        Reply::with_type("application/json", body.to_string().into_bytes())
    }

    pub fn bytes(body: &[u8]) -> Reply {
        Reply::with_type("application/octet-stream", body.to_vec())
    }

    pub fn with_type(content_type: &str, body: Vec<u8>) -> Reply {
        Reply {
            status: 200,
            content_type: content_type.to_string(),
            body,
            extra_headers: Vec::new(),
        }
    }

    pub fn not_found() -> Reply {
        Reply {
            status: 404,
            content_type: "text/plain".to_string(),
            body: b"not found".to_vec(),
            extra_headers: Vec::new(),
        }
    }
}

type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

pub struct HttpServer {
    pub port: u16,
    requests: Arc<Mutex<Vec<Request>>>,
    stopped: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl HttpServer {
    pub fn start(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> HttpServer {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("binding the server");
        let port = listener.local_addr().expect("server address").port();
        let requests: Arc<Mutex<Vec<Request>>> = Arc::default();
        let stopped = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let thread = {
            let (requests, stopped) = (requests.clone(), stopped.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stopped.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let (requests, handler) = (requests.clone(), handler.clone());
                    std::thread::spawn(move || serve(stream, &requests, &*handler));
                }
            })
        };
        HttpServer {
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

    pub fn requests(&self) -> Vec<Request> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.stopped.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect((Ipv4Addr::LOCALHOST, self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(stream: TcpStream, requests: &Mutex<Vec<Request>>, handler: &Handler) {
    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(30)));
    let Ok(write_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    let mut writer = write_half;
    // Keep-alive: answer requests on this connection until it closes.
    loop {
        let Some(head) = terrace_testsupport::https::read_request_head(&mut reader) else {
            return;
        };
        let (method, target, headers) = (head.method, head.target, head.headers);
        let length: usize = headers
            .iter()
            .find(|(n, _)| n == "content-length")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0u8; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let request = Request {
            method,
            target,
            headers,
            body,
        };
        let reply = handler(&request);
        // A HEAD answer has the headers of the GET answer and no body.
        let send_body = request.method != "HEAD";
        requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(request);
        let reason = match reply.status {
            200 => "OK",
            204 => "No Content",
            302 => "Found",
            400 => "Bad Request",
            401 => "Unauthorized",
            404 => "Not Found",
            _ => "Status",
        };
        let mut head = format!(
            "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\n",
            reply.status,
            reply.content_type,
            reply.body.len()
        );
        for (name, value) in &reply.extra_headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        if writer.write_all(head.as_bytes()).is_err()
            || (send_body && writer.write_all(&reply.body).is_err())
            || writer.flush().is_err()
        {
            return;
        }
    }
}
