//! Test helpers: the shared scratch directory and a loopback HTTPS server.

use std::path::{Path, PathBuf};

pub(crate) use terrace_testsupport::TempDir;

/// One canned reply of [`HttpsServer`].
#[derive(Clone)]
pub(crate) struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub(crate) fn json(v: serde_json::Value) -> Reply {
        Reply {
            status: 200,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: v.to_string().into_bytes(),
        }
    }

    pub(crate) fn bytes(b: &[u8]) -> Reply {
        Reply {
            status: 200,
            headers: vec![("Content-Type".into(), "application/octet-stream".into())],
            body: b.to_vec(),
        }
    }

    /// A module registry's download answer: 204 with `X-Terraform-Get`.
    pub(crate) fn terraform_get(location: &str) -> Reply {
        Reply {
            status: 204,
            headers: vec![("X-Terraform-Get".into(), location.into())],
            body: Vec::new(),
        }
    }
}

type Routes = std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, Reply>>>;

/// An HTTPS server on 127.0.0.1 answering GETs from a route table (keyed
/// by path, query ignored) with a certificate made for the occasion; it
/// records every request line and stops when dropped.
pub(crate) struct HttpsServer {
    pub addr: String,
    pub cert_der: Vec<u8>,
    routes: Routes,
    pub requests: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl HttpsServer {
    pub(crate) fn start() -> HttpsServer {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::{Arc, Mutex};
        let listener = match std::net::TcpListener::bind("127.0.0.1:0") {
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
        let routes: Routes = Arc::default();
        let requests: Arc<Mutex<Vec<String>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let (r, q, s) = (routes.clone(), requests.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming().take(1000) {
                if s.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(tcp) = conn else { continue };
                let (config, routes, requests) = (config.clone(), r.clone(), q.clone());
                std::thread::spawn(move || serve(tcp, config, routes, requests));
            }
        });
        HttpsServer {
            addr,
            cert_der,
            routes,
            requests,
            stop,
            thread: Some(thread),
        }
    }

    pub(crate) fn route(&self, path: &str, reply: Reply) {
        if let Ok(mut r) = self.routes.lock() {
            r.insert(path.to_string(), reply);
        }
    }

    /// Registry settings that trust this server's certificate.
    pub(crate) fn registry_config(&self) -> terrace_getproviders::registry::RegistryConfig {
        terrace_getproviders::registry::RegistryConfig {
            http: terrace_getproviders::registry::HttpConfig {
                root_certificates: Some(vec![self.cert_der.clone()]),
                timeout: Some(std::time::Duration::from_secs(30)),
            },
            ..Default::default()
        }
    }

    pub(crate) fn requests(&self) -> Vec<String> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Drop for HttpsServer {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = std::net::TcpStream::connect(&self.addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(
    tcp: std::net::TcpStream,
    config: std::sync::Arc<rustls::ServerConfig>,
    routes: Routes,
    requests: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
) {
    use std::io::{BufRead, BufReader, Write};
    let _ = tcp.set_read_timeout(Some(std::time::Duration::from_secs(10)));
    let Ok(conn) = rustls::ServerConnection::new(config) else {
        return;
    };
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    let mut reader = BufReader::new(&mut tls);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) if line == "\r\n" || line == "\n" => break,
            Ok(_) => {}
        }
    }
    drop(reader);
    let target = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .to_string();
    if let Ok(mut q) = requests.lock() {
        q.push(target.clone());
    }
    let path = target.split('?').next().unwrap_or("/").to_string();
    let reply = routes
        .lock()
        .ok()
        .and_then(|r| r.get(&path).cloned())
        .unwrap_or(Reply {
            status: 404,
            headers: vec![("Content-Type".into(), "text/plain".into())],
            body: b"not found".to_vec(),
        });
    let reason = match reply.status {
        200 => "OK",
        204 => "No Content",
        404 => "Not Found",
        500 => "Internal Server Error",
        _ => "Status",
    };
    let mut head = format!("HTTP/1.1 {} {reason}\r\n", reply.status);
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
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

/// Runs `git` with a fixed identity, panicking on failure (test set-up).
pub(crate) fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "user.email=t@example.com",
            "-c",
            "user.name=t",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "protocol.file.allow=always",
        ])
        .args(args)
        .current_dir(dir)
        .output();
    match out {
        Ok(o) if o.status.success() => {}
        Ok(o) => panic!(
            "git {args:?}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => panic!("git {args:?}: {e}"),
    }
}

/// Whether the system has a `git` to run.
/// Whether the system `git` runs; reported by the project's rule for
/// missing tools otherwise.
pub(crate) fn have_git() -> bool {
    terrace_testsupport::require_git()
}

/// A bare repository at `base/repo.git` whose `main` has two commits:
/// the first (tagged `v1`) with `main.tf`, `sub/main.tf` (calling
/// `./inner`) and `sub/inner/main.tf`; the second adds `v2.tf`.
pub(crate) fn bare_repo(base: &TempDir) -> PathBuf {
    let work = base.path().join("work");
    if let Err(e) = std::fs::create_dir_all(work.join("sub/inner")) {
        panic!("{e}");
    }
    let files = [
        ("main.tf", "output \"o\" {\n  value = 1\n}\n"),
        (
            "sub/main.tf",
            "module \"inner\" {\n  source = \"./inner\"\n}\n",
        ),
        ("sub/inner/main.tf", "variable \"x\" {\n  default = 1\n}\n"),
    ];
    for (name, text) in files {
        if let Err(e) = std::fs::write(work.join(name), text) {
            panic!("{e}");
        }
    }
    git(&work, &["init", "-q", "."]);
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-qm", "one"]);
    git(&work, &["tag", "v1"]);
    if let Err(e) = std::fs::write(work.join("v2.tf"), "locals {\n  two = 2\n}\n") {
        panic!("{e}");
    }
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-qm", "two"]);
    let bare = base.path().join("repo.git");
    git(base.path(), &["clone", "-q", "--bare", "work", "repo.git"]);
    bare
}
