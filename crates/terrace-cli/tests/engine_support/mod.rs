//! Shared by the `engine_*` integration tests: scratch working directories
//! with a CLI configuration of `dev_overrides` (the bundled providers built
//! once per test binary, and the AWS provider package from the image), the
//! `terrace` and `terraform` commands run in them, a `moto_server` on
//! loopback, and the rule for missing tools (terrace-testsupport's): a test
//! skips with the reason printed, except in CI (`CI=true`) where a missing
//! tool fails it.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::net::{Ipv4Addr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The bundled provider packages and their source addresses.
pub const BUNDLED: [(&str, &str); 4] = [
    ("terraform-provider-null", "hashicorp/null"),
    ("terraform-provider-random", "hashicorp/random"),
    ("terraform-provider-local", "hashicorp/local"),
    ("terraform-provider-kv", "terrace/kv"),
];

/// The package directory of the real AWS provider in the image; a
/// `dev_overrides` entry naming it works for terraform and terrace alike.
pub const AWS_PACKAGE: &str = terrace_testsupport::AWS_PROVIDER_PACKAGE;

/// Reports a tool this test needs and does not have: a failure in CI, a
/// printed skip elsewhere (the project's one rule, in terrace-testsupport).
/// The caller returns when this returns.
pub fn missing_tool(reason: &str) {
    terrace_testsupport::missing(reason);
}

/// Whether terraform runs here; reports it missing otherwise.
pub fn have_terraform() -> bool {
    terrace_testsupport::require_terraform()
}

/// Whether the AWS provider package and `moto_server` are both here.
pub fn have_aws_and_moto() -> bool {
    terrace_testsupport::require_aws_provider_package() && terrace_testsupport::require_moto()
}

/// The directory holding the bundled provider binaries, built once per
/// test binary (a no-op when cargo finds them current).
pub fn bundled_providers() -> PathBuf {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match BUILT.get_or_init(build_bundled) {
        Ok(dir) => dir.clone(),
        Err(message) => panic!("{message}"),
    }
}

fn build_bundled() -> Result<PathBuf, String> {
    // provider-e2e's build: the same cargo invocation (and environment) as
    // the providers' own end-to-end tests, so the two suites share one
    // build of the providers instead of rebuilding them in turn.
    provider_e2e::build_providers()
}

/// The outcome of one command.
pub struct Run {
    pub code: Option<i32>,
    /// The signal that ended the process, when one did.
    pub signal: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn output(&self) -> String {
        let end = match (self.code, self.signal) {
            (Some(code), _) => format!("exit status {code}"),
            (None, Some(signal)) => format!("killed by signal {signal}"),
            (None, None) => "ended without a status".to_string(),
        };
        format!(
            "{end}\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout, self.stderr
        )
    }

    /// stdout and stderr together, for messages that may go to either.
    pub fn all(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }
}

/// The bound on any one command: far above what any of them takes, only
/// there so that a hang fails instead of stalling CI.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(600);

/// Which providers the CLI configuration overrides.
pub struct Overrides {
    pub bundled: bool,
    pub aws: bool,
}

/// A scratch working directory with its own CLI configuration, removed on
/// drop.
pub struct Work {
    pub dir: PathBuf,
    cli_config: PathBuf,
    /// Whether commands run with `TF_IN_AUTOMATION` set.
    in_automation: bool,
    /// Where every command sends the AWS provider's requests
    /// (`AWS_ENDPOINT_URL`), when [`Work::aws_at`] set it.
    aws_endpoint: Option<String>,
}

impl Work {
    pub fn new(name: &str, overrides: Overrides) -> Work {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "terrace-engine-{name}-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("creating {}: {e}", dir.display()));
        let mut lines = String::new();
        if overrides.bundled {
            let bin = bundled_providers();
            for (_, source) in BUNDLED {
                lines.push_str(&format!(
                    "    {source:?} = {:?}\n",
                    bin.display().to_string()
                ));
            }
        }
        if overrides.aws {
            lines.push_str(&format!("    \"hashicorp/aws\" = {AWS_PACKAGE:?}\n"));
        }
        // Outside the working directory, so that configurations see only
        // their own files.
        let cli_config = dir.with_extension("tfrc");
        let text = if lines.is_empty() {
            String::new()
        } else {
            format!(
                "provider_installation {{\n  dev_overrides {{\n{lines}  }}\n  direct {{}}\n}}\n"
            )
        };
        std::fs::write(&cli_config, text).unwrap_or_else(|e| panic!("writing the CLI config: {e}"));
        Work {
            dir,
            cli_config,
            in_automation: true,
            aws_endpoint: None,
        }
    }

    /// A working directory at exactly `dir` (emptied first), whose CLI
    /// configuration, kept beside it, is `cli_config_text`: for tests
    /// whose configurations read the directory's name or install from a
    /// filesystem mirror instead of through `dev_overrides`. Its commands
    /// run as at a shell, without `TF_IN_AUTOMATION`, so that they print
    /// everything they would print for a person.
    pub fn at(dir: PathBuf, cli_config_text: &str) -> Work {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("creating {}: {e}", dir.display()));
        let cli_config = dir.with_extension("tfrc");
        std::fs::write(&cli_config, cli_config_text)
            .unwrap_or_else(|e| panic!("writing the CLI config: {e}"));
        Work {
            dir,
            cli_config,
            in_automation: false,
            aws_endpoint: None,
        }
    }

    /// A working directory whose CLI configuration offers the bundled
    /// providers only through a filesystem mirror (copies of the built
    /// binaries, at version 0.1.0), so that `init` installs them and the
    /// lock file records their checksums, as with a real release.
    pub fn with_mirror(name: &str) -> Work {
        let work = Work::new(
            name,
            Overrides {
                bundled: false,
                aws: false,
            },
        );
        let bin = bundled_providers();
        let mirror = work.dir.with_extension("mirror");
        let _ = std::fs::remove_dir_all(&mirror);
        for (package, source) in BUNDLED {
            let platform = mirror
                .join("registry.terraform.io")
                .join(source)
                .join(env!("CARGO_PKG_VERSION"))
                .join("linux_amd64");
            std::fs::create_dir_all(&platform)
                .unwrap_or_else(|e| panic!("creating {}: {e}", platform.display()));
            std::fs::copy(bin.join(package), platform.join(package))
                .unwrap_or_else(|e| panic!("copying {package}: {e}"));
        }
        std::fs::write(
            &work.cli_config,
            format!(
                "provider_installation {{\n  filesystem_mirror {{\n    path = {:?}\n  }}\n}}\n",
                mirror.display().to_string()
            ),
        )
        .unwrap_or_else(|e| panic!("writing the CLI config: {e}"));
        work
    }

    /// This directory with every command sending the AWS provider's
    /// requests to `moto` through `AWS_ENDPOINT_URL`, so that its provider
    /// blocks need no `endpoints` block (see [`aws_moto_provider_body`]).
    pub fn aws_at(mut self, moto: &Moto) -> Work {
        self.aws_endpoint = Some(moto.endpoint.clone());
        self
    }

    /// The mirror `with_mirror` made.
    pub fn mirror(&self) -> PathBuf {
        self.dir.with_extension("mirror")
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    pub fn write(&self, name: &str, text: &str) {
        let path = self.dir.join(name);
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    }

    fn command(&self, program: &str, args: &[&str]) -> Command {
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(&self.dir)
            .env("TF_CLI_CONFIG_FILE", &self.cli_config)
            .env("CHECKPOINT_DISABLE", "1")
            .env("NO_COLOR", "1")
            // Nothing from the surrounding environment may point the
            // tools or the AWS provider elsewhere.
            .env("AWS_EC2_METADATA_DISABLED", "true")
            .stdin(Stdio::null());
        if self.in_automation {
            command.env("TF_IN_AUTOMATION", "1");
        } else {
            command.env_remove("TF_IN_AUTOMATION");
        }
        for name in [
            "TF_LOG",
            "TF_DATA_DIR",
            "TF_PLUGIN_CACHE_DIR",
            "TF_WORKSPACE",
            "AWS_PROFILE",
            "AWS_CONFIG_FILE",
            "AWS_SHARED_CREDENTIALS_FILE",
            "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_SESSION_TOKEN",
            "AWS_REGION",
            "AWS_DEFAULT_REGION",
            "AWS_ENDPOINT_URL",
        ] {
            command.env_remove(name);
        }
        if let Some(endpoint) = &self.aws_endpoint {
            command.env("AWS_ENDPOINT_URL", endpoint);
        }
        command
    }

    /// Runs a command to its end, bounded by [`COMMAND_TIMEOUT`] so a hung
    /// command fails the test instead of stalling it. The arguments are
    /// passed exactly as given.
    pub fn run(&self, program: &str, args: &[&str]) -> Run {
        self.spawn(program, args).finish(COMMAND_TIMEOUT)
    }

    fn spawn(&self, program: &str, args: &[&str]) -> Running {
        let mut child = self
            .command(program, args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {program}: {e}"));
        let stdout = Arc::new(Mutex::new(String::new()));
        let stderr = Arc::new(Mutex::new(String::new()));
        let readers = vec![
            collect(child.stdout.take(), stdout.clone()),
            collect(child.stderr.take(), stderr.clone()),
        ];
        Running {
            child,
            stdout,
            stderr,
            readers,
        }
    }

    /// `terrace <args> -no-color` with `env` added to the environment.
    pub fn terrace_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        self.run_env(env!("CARGO_BIN_EXE_terrace"), args, env)
    }

    /// `terraform <args> -no-color` with `env` added to the environment.
    pub fn terraform_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        self.run_env("terraform", args, env)
    }

    fn run_env(&self, program: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut all: Vec<&str> = args.to_vec();
        all.push("-no-color");
        let mut command = self.command(program, &all);
        command.envs(env.iter().copied());
        let out = command
            .output()
            .unwrap_or_else(|e| panic!("running {program}: {e}"));
        Run {
            code: out.status.code(),
            signal: std::os::unix::process::ExitStatusExt::signal(&out.status),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// `terrace <args> -no-color`.
    pub fn terrace(&self, args: &[&str]) -> Run {
        let mut all: Vec<&str> = args.to_vec();
        all.push("-no-color");
        self.run(env!("CARGO_BIN_EXE_terrace"), &all)
    }

    /// `terraform <args> -no-color`.
    pub fn terraform(&self, args: &[&str]) -> Run {
        let mut all: Vec<&str> = args.to_vec();
        all.push("-no-color");
        self.run("terraform", &all)
    }

    /// `TOOL <args> -no-color`, `tool` being "terrace" or "terraform": the
    /// differential tests take the same steps with each.
    pub fn with_tool(&self, tool: &str, args: &[&str]) -> Run {
        match tool {
            "terrace" => self.terrace(args),
            _ => self.terraform(args),
        }
    }

    /// [`Work::with_tool`] with `input` on standard input (`console`).
    pub fn with_tool_input(&self, tool: &str, args: &[&str], input: &str) -> Run {
        let program = match tool {
            "terrace" => env!("CARGO_BIN_EXE_terrace"),
            _ => "terraform",
        };
        let mut all: Vec<&str> = args.to_vec();
        all.push("-no-color");
        let mut child = self
            .command(program, &all)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {program}: {e}"));
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write;
            let _ = stdin.write_all(input.as_bytes());
        }
        let out = child
            .wait_with_output()
            .unwrap_or_else(|e| panic!("waiting for {program}: {e}"));
        Run {
            code: out.status.code(),
            signal: None,
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// [`Work::with_tool`], requiring success.
    pub fn with_tool_ok(&self, tool: &str, args: &[&str]) -> Run {
        let done = self.with_tool(tool, args);
        assert_eq!(done.code, Some(0), "{tool} {args:?}: {}", done.output());
        done
    }

    /// Runs terrace and requires the exit status `code`.
    pub fn terrace_ok(&self, args: &[&str], code: i32) -> Run {
        let run = self.terrace(args);
        assert_eq!(
            run.code,
            Some(code),
            "terrace {}:\n{}",
            args.join(" "),
            run.output()
        );
        run
    }

    /// Runs terraform and requires the exit status `code`.
    pub fn terraform_ok(&self, args: &[&str], code: i32) -> Run {
        let run = self.terraform(args);
        assert_eq!(
            run.code,
            Some(code),
            "terraform {}:\n{}",
            args.join(" "),
            run.output()
        );
        run
    }

    /// Starts `terrace <args> -no-color` without waiting for it.
    pub fn spawn_terrace(&self, args: &[&str]) -> Running {
        let mut all: Vec<&str> = args.to_vec();
        all.push("-no-color");
        self.spawn(env!("CARGO_BIN_EXE_terrace"), &all)
    }

    /// Starts `terraform <args> -no-color` without waiting for it.
    pub fn spawn_terraform(&self, args: &[&str]) -> Running {
        let mut all: Vec<&str> = args.to_vec();
        all.push("-no-color");
        self.spawn("terraform", &all)
    }

    /// The state file's bytes (empty when there is none).
    pub fn state_bytes(&self) -> Vec<u8> {
        std::fs::read(self.path("terraform.tfstate")).unwrap_or_default()
    }

    /// The state file as JSON.
    pub fn state(&self) -> serde_json::Value {
        let bytes = self.state_bytes();
        serde_json::from_slice(&bytes).unwrap_or_else(|e| {
            panic!(
                "terraform.tfstate is not JSON ({e}):\n{}",
                String::from_utf8_lossy(&bytes)
            )
        })
    }

    /// Every resource instance address in the state (managed and data),
    /// as `terraform state list` writes them.
    pub fn state_addresses(&self) -> Vec<String> {
        let state = self.state();
        let mut out = Vec::new();
        for resource in state["resources"].as_array().into_iter().flatten() {
            let mut base = String::new();
            if let Some(module) = resource["module"].as_str() {
                base.push_str(module);
                base.push('.');
            }
            if resource["mode"] == "data" {
                base.push_str("data.");
            }
            base.push_str(&format!(
                "{}.{}",
                resource["type"].as_str().unwrap_or_default(),
                resource["name"].as_str().unwrap_or_default()
            ));
            for instance in resource["instances"].as_array().into_iter().flatten() {
                let key = match &instance["index_key"] {
                    serde_json::Value::Null => String::new(),
                    serde_json::Value::String(s) => format!("[{s:?}]"),
                    other => format!("[{other}]"),
                };
                out.push(format!("{base}{key}"));
            }
        }
        out.sort();
        out
    }
}

impl Drop for Work {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
        let _ = std::fs::remove_dir_all(self.dir.with_extension("mirror"));
        let _ = std::fs::remove_file(&self.cli_config);
    }
}

fn collect<R: Read + Send + 'static>(pipe: Option<R>, into: Arc<Mutex<String>>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let Some(pipe) = pipe else { return };
        let mut reader = BufReader::new(pipe);
        let mut line = String::new();
        while matches!(reader.read_line(&mut line), Ok(n) if n > 0) {
            into.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push_str(&line);
            line.clear();
        }
    })
}

/// A terrace process started in the background, its output gathered as
/// it comes.
pub struct Running {
    pub child: Child,
    stdout: Arc<Mutex<String>>,
    stderr: Arc<Mutex<String>>,
    readers: Vec<JoinHandle<()>>,
}

impl Running {
    pub fn stdout(&self) -> String {
        self.stdout
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub fn stderr(&self) -> String {
        self.stderr
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The process ids of its child processes (the provider plugins).
    pub fn children(&self) -> Vec<i32> {
        let pid = self.child.id();
        let mut out = Vec::new();
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            return out;
        };
        for task in tasks.flatten() {
            let text = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            out.extend(
                text.split_whitespace()
                    .filter_map(|p| p.parse::<i32>().ok()),
            );
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Waits for the process to end (bounded) and returns what it did.
    pub fn finish(mut self, timeout: Duration) -> Run {
        let deadline = Instant::now() + timeout;
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(50))
                }
                Ok(None) => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    panic!(
                        "the command did not finish within {timeout:?}\n--- stdout\n{}\n--- stderr\n{}",
                        self.stdout(),
                        self.stderr()
                    );
                }
                Err(e) => panic!("waiting for the command: {e}"),
            }
        };
        for reader in self.readers.drain(..) {
            let _ = reader.join();
        }
        Run {
            code: status.code(),
            signal: std::os::unix::process::ExitStatusExt::signal(&status),
            stdout: self.stdout(),
            stderr: self.stderr(),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Polls `done` every 20 ms until it holds; panics with `what` and the
/// last observation after `timeout`. Timing is never what is tested: the
/// timeout only bounds a wait for a condition that must come.
pub fn wait_until<T: std::fmt::Debug>(
    what: &str,
    timeout: Duration,
    mut probe: impl FnMut() -> T,
    mut done: impl FnMut(&T) -> bool,
) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        let seen = probe();
        if done(&seen) {
            return seen;
        }
        if Instant::now() >= deadline {
            panic!("timed out after {timeout:?} waiting for {what}; last seen: {seen:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What a child writes to `output`, gathered on a thread as it comes (a
/// terminal test watches it for prompts); the thread ends with the output.
pub fn gather_output(
    mut output: impl std::io::Read + Send + 'static,
) -> (
    std::sync::Arc<std::sync::Mutex<String>>,
    std::thread::JoinHandle<()>,
) {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let writer = seen.clone();
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = output.read(&mut buf) {
            if n == 0 {
                break;
            }
            if let Ok(mut s) = writer.lock() {
                s.push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        }
    });
    (seen, reader)
}

/// moto's server on a free loopback port, stopped on drop.
pub struct Moto {
    child: Child,
    pub endpoint: String,
}

impl Moto {
    pub fn start() -> Moto {
        Moto::start_with_env(&[])
    }

    /// A server with moto's settings `env` (e.g.
    /// `MOTO_IAM_LOAD_MANAGED_POLICIES`).
    pub fn start_with_env(env: &[(&str, &str)]) -> Moto {
        let port = terrace_testsupport::http::free_loopback_port()
            .unwrap_or_else(|e| panic!("finding a free port: {e}"));
        Moto::start_on(port, env)
    }

    /// Kills the server (SIGKILL): everything it held is gone, as in a
    /// crash of an in-memory service.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// A new, empty server on the port of this one (after [`Moto::kill`]).
    pub fn restart(&mut self) {
        let port = self
            .endpoint
            .rsplit(':')
            .next()
            .and_then(|p| p.parse::<u16>().ok())
            .unwrap_or_else(|| panic!("no port in {}", self.endpoint));
        self.kill();
        *self = Moto::start_on(port, &[]);
    }

    fn start_on(port: u16, env: &[(&str, &str)]) -> Moto {
        let child = Command::new("moto_server")
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("starting moto_server: {e}"));
        let moto = Moto {
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
        };
        wait_until(
            "moto_server to listen",
            Duration::from_secs(60),
            || TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_ok(),
            |up| *up,
        );
        moto
    }

    /// Runs a Python snippet with `boto3` imported and `client(service,
    /// region)` defined against this server; returns what it prints as
    /// JSON.
    pub fn query(&self, script: &str) -> serde_json::Value {
        let prelude = format!(
            "import boto3, json\n\
             def client(service, region):\n    \
                 return boto3.client(service, region_name=region, endpoint_url={:?}, \
                 aws_access_key_id='test', aws_secret_access_key='test')\n",
            self.endpoint
        );
        let out = Command::new("python3")
            .arg("-c")
            .arg(format!("{prelude}{script}"))
            .env_remove("AWS_PROFILE")
            .env_remove("AWS_CONFIG_FILE")
            .output()
            .unwrap_or_else(|e| panic!("running python3: {e}"));
        assert!(
            out.status.success(),
            "the moto query failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "the moto query printed no JSON ({e}):\n{}",
                String::from_utf8_lossy(&out.stdout)
            )
        })
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The body lines of a provider block for the AWS provider against moto:
/// fake keys and every check that would reach AWS off. Where requests go
/// is said by [`Work::aws_at`] (or by [`aws_moto_endpoints_body`]).
pub fn aws_moto_provider_body() -> String {
    "  access_key                  = \"test\"\n  \
       secret_key                  = \"test\"\n  \
       skip_credentials_validation = true\n  \
       skip_requesting_account_id  = true\n  \
       skip_metadata_api_check     = true\n"
        .to_string()
}

/// [`aws_moto_provider_body`] with an `endpoints` block: an endpoint (the
/// HCL expression `endpoint_expr`) for each of `services`, as a user
/// points the provider at a local service. It costs the AWS provider 3-4
/// CPU seconds to validate each time it is sent (measured with 5.100.0,
/// whatever the number of services): the tests that are not about the
/// provider's configuration use [`Work::aws_at`] instead.
pub fn aws_moto_endpoints_body(endpoint_expr: &str, services: &[&str]) -> String {
    let mut body = aws_moto_provider_body();
    body.push_str("  endpoints {\n");
    for service in services {
        body.push_str(&format!("    {service} = {endpoint_expr}\n"));
    }
    body.push_str("  }\n");
    body
}
