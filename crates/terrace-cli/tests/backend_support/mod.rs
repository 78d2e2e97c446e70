//! A state server for the `http` backend, as terraform's own tests use
//! one: `GET` answers the stored state (204 when there is none), `POST`
//! stores it, `DELETE` removes it, `LOCK` takes the lock when it is free
//! (200) and otherwise answers 423 with the holder's lock metadata, and
//! `UNLOCK` releases the lock whose ID it is sent. It can be stopped
//! while a client works with it (a backend going away mid-apply).

#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use terrace_testsupport::http::{LoopbackServer, Reply, Request};

#[derive(Default)]
struct Stored {
    state: Option<Vec<u8>>,
    /// The lock metadata the holder sent.
    lock: Option<Vec<u8>>,
}

pub struct HttpStateServer {
    pub port: u16,
    stored: Arc<Mutex<Stored>>,
    /// State uploads answered so far.
    pub uploads: Arc<AtomicUsize>,
    /// `LOCK` requests refused because the lock was held.
    pub lock_refusals: Arc<AtomicUsize>,
    /// After this many uploads the server answers every further upload
    /// with 500 (a backend that broke during an apply).
    fail_after_uploads: Arc<AtomicUsize>,
    server: LoopbackServer,
}

impl HttpStateServer {
    pub fn start() -> HttpStateServer {
        let stored = Arc::new(Mutex::new(Stored::default()));
        let counters = Arc::new(Counters {
            uploads: Arc::new(AtomicUsize::new(0)),
            fail_after: Arc::new(AtomicUsize::new(usize::MAX)),
            lock_refusals: Arc::new(AtomicUsize::new(0)),
        });
        let server = {
            let (stored, counters) = (stored.clone(), counters.clone());
            LoopbackServer::start(move |request| {
                answer(request, &stored, &counters)
                    .header("Content-Type", "application/json")
                    .header("Connection", "close")
            })
        };
        HttpStateServer {
            port: server.port,
            stored,
            uploads: counters.uploads.clone(),
            lock_refusals: counters.lock_refusals.clone(),
            fail_after_uploads: counters.fail_after.clone(),
            server,
        }
    }

    pub fn address(&self) -> String {
        format!("http://127.0.0.1:{}/state", self.port)
    }

    /// The backend block for this server, with locking.
    pub fn backend_block(&self) -> String {
        format!(
            "  backend \"http\" {{\n    address        = \"{a}\"\n    lock_address   = \"{a}\"\n    unlock_address = \"{a}\"\n  }}\n",
            a = self.address()
        )
    }

    pub fn state(&self) -> Option<serde_json::Value> {
        let stored = self.stored.lock().unwrap_or_else(PoisonError::into_inner);
        stored
            .state
            .as_ref()
            .map(|b| serde_json::from_slice(b).expect("the stored state is JSON"))
    }

    pub fn lock_info(&self) -> Option<serde_json::Value> {
        let stored = self.stored.lock().unwrap_or_else(PoisonError::into_inner);
        stored
            .lock
            .as_ref()
            .map(|b| serde_json::from_slice(b).expect("the lock metadata is JSON"))
    }

    /// Every upload after `n` more fails with 500.
    pub fn fail_after_uploads(&self, n: usize) {
        self.fail_after_uploads
            .store(self.uploads.load(Ordering::SeqCst) + n, Ordering::SeqCst);
    }

    /// The backend goes away: connections are refused from now on.
    pub fn stop(&mut self) {
        self.server.stop();
    }
}

struct Counters {
    uploads: Arc<AtomicUsize>,
    fail_after: Arc<AtomicUsize>,
    lock_refusals: Arc<AtomicUsize>,
}

fn status(status: u16, body: &[u8]) -> Reply {
    Reply {
        body: Arc::new(body.to_vec()),
        ..Reply::empty(status)
    }
}

fn answer(request: &Request, stored: &Mutex<Stored>, counters: &Counters) -> Reply {
    let (uploads, fail_after) = (&counters.uploads, &counters.fail_after);
    let method = request.method.as_str();
    if method == "POST" && uploads.load(Ordering::SeqCst) >= fail_after.load(Ordering::SeqCst) {
        return status(500, b"");
    }
    let mut s = stored.lock().unwrap_or_else(PoisonError::into_inner);
    match method {
        "GET" => match &s.state {
            Some(state) => status(200, state),
            None => status(204, b""),
        },
        "POST" => {
            s.state = Some(request.body.clone());
            uploads.fetch_add(1, Ordering::SeqCst);
            status(200, b"")
        }
        "DELETE" => {
            s.state = None;
            status(200, b"")
        }
        "LOCK" => match &s.lock {
            Some(holder) => {
                counters.lock_refusals.fetch_add(1, Ordering::SeqCst);
                status(423, holder)
            }
            None => {
                s.lock = Some(request.body.clone());
                status(200, b"")
            }
        },
        "UNLOCK" => {
            let id = |b: &[u8]| {
                serde_json::from_slice::<serde_json::Value>(b)
                    .ok()
                    .and_then(|v| v["ID"].as_str().map(str::to_string))
            };
            match &s.lock {
                Some(holder) if id(holder) != id(&request.body) => status(409, holder),
                _ => {
                    s.lock = None;
                    status(200, b"")
                }
            }
        }
        _ => status(405, b""),
    }
}

/// A PostgreSQL server of its own in a scratch directory, on a free
/// loopback port, stopped (and removed) on drop. The server binaries come
/// from the image (`/usr/lib/postgresql/VERSION/bin`); run as root, the
/// server runs as the `postgres` user, since PostgreSQL refuses root.
pub struct Postgres {
    bin: std::path::PathBuf,
    dir: std::path::PathBuf,
    pub port: u16,
    as_postgres: bool,
}

impl Postgres {
    /// The server, or `None` after reporting the binaries missing.
    pub fn start() -> Option<Postgres> {
        let Some(bin) = postgres_bin() else {
            terrace_testsupport::missing(
                "PostgreSQL's server binaries (initdb, pg_ctl under /usr/lib/postgresql/*/bin)",
            );
            return None;
        };
        let port = terrace_testsupport::http::free_loopback_port().expect("a free port");
        static SEQ: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "terrace-pg-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("creating the server directory");
        // SAFETY: geteuid(2) has no preconditions.
        let as_postgres = unsafe { libc::geteuid() } == 0;
        let server = Postgres {
            bin,
            dir,
            port,
            as_postgres,
        };
        if as_postgres {
            let chown = std::process::Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(&server.dir)
                .status()
                .expect("running chown");
            assert!(chown.success(), "chown of the server directory failed");
        }
        let data = server.dir.join("data");
        server.run(
            "initdb",
            &[
                "-D",
                &data.display().to_string(),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        );
        server.start_server();
        Some(server)
    }

    fn start_server(&self) {
        let data = self.dir.join("data");
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.display()
        );
        self.run(
            "pg_ctl",
            &[
                "-D",
                &data.display().to_string(),
                "-o",
                &options,
                "-l",
                &self.dir.join("log").display().to_string(),
                "-w",
                "start",
            ],
        );
    }

    /// `pg_ctl stop -m immediate`: the server goes away at once, as in a
    /// crash (what was committed is recovered on the next start).
    pub fn stop_immediately(&self) {
        let data = self.dir.join("data").display().to_string();
        self.run("pg_ctl", &["-D", &data, "-m", "immediate", "-w", "stop"]);
    }

    /// Starts the server again on the same port and data.
    pub fn restart(&self) {
        self.start_server();
    }

    pub fn conn_str(&self) -> String {
        format!(
            "postgres://postgres@127.0.0.1:{}/postgres?sslmode=disable",
            self.port
        )
    }

    fn command(&self, program: &str, args: &[&str]) -> std::process::Command {
        let path = self.bin.join(program);
        let mut command = if self.as_postgres {
            let mut c = std::process::Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(path);
            c
        } else {
            std::process::Command::new(path)
        };
        command
            .args(args)
            .current_dir(&self.dir)
            .stdin(std::process::Stdio::null());
        command
    }

    fn run(&self, program: &str, args: &[&str]) {
        let out = self
            .command(program, args)
            .output()
            .unwrap_or_else(|e| panic!("running {program}: {e}"));
        assert!(
            out.status.success(),
            "{program} failed:\n{}\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(self.dir.join("log")).unwrap_or_default()
        );
    }

    /// Runs SQL through `psql`; what it prints, unaligned, tuples only.
    pub fn sql(&self, query: &str) -> String {
        let out = self
            .command(
                "psql",
                &[
                    "-h",
                    "127.0.0.1",
                    "-p",
                    &self.port.to_string(),
                    "-U",
                    "postgres",
                    "-d",
                    "postgres",
                    "-At",
                    "-v",
                    "ON_ERROR_STOP=1",
                    "-c",
                    query,
                ],
            )
            .output()
            .unwrap_or_else(|e| panic!("running psql: {e}"));
        assert!(
            out.status.success(),
            "psql failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim_end().to_string()
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let data = self.dir.join("data").display().to_string();
        let _ = self
            .command("pg_ctl", &["-D", &data, "-m", "immediate", "-w", "stop"])
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The newest `/usr/lib/postgresql/VERSION/bin` with `initdb` and
/// `pg_ctl`.
fn postgres_bin() -> Option<std::path::PathBuf> {
    let mut found: Vec<(u32, std::path::PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_string_lossy().parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            (bin.join("initdb").exists() && bin.join("pg_ctl").exists()).then_some((version, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, bin)| bin)
}
