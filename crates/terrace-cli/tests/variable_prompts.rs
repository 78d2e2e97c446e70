//! Questions on a terminal (here a pseudo-terminal made by `script`).
//!
//! Root variables without a value are asked for in name order, with their
//! descriptions, sensitive ones without echo; without a terminal nothing
//! is asked and the missing variable is named.
//!
//! `login` and `logout` beside terraform against a host served on
//! 127.0.0.1 (named by a CLI configuration `host` block): the OAuth
//! authorization code flow with the test as the browser, the token pasted
//! for a host with only the `tfe.v2` API, the credentials file written and
//! emptied, and the refusals; the same transcript, byte for byte, once
//! the random parts of the login URL are set aside.

mod engine_support;

use engine_support::{have_terraform, missing_tool, wait_until, Work};
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use terrace_testsupport::http::{LoopbackServer as HttpServer, Reply};

const CONFIG: &str = r#"
variable "name" {
  type        = string
  description = "Your name"
}

variable "secret" {
  type      = string
  sensitive = true
}

output "o" {
  value = var.name
}
"#;

#[test]
fn missing_variables_are_asked_for_on_a_terminal() {
    let work = Work::new(
        "prompts",
        engine_support::Overrides {
            bundled: false,
            aws: false,
        },
    );
    work.write("main.tf", CONFIG);
    let command = format!("exec {} plan -no-color", env!("CARGO_BIN_EXE_terrace"));
    let child = Command::new("script")
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .current_dir(&work.dir)
        .env("TF_CLI_CONFIG_FILE", work.dir.with_extension("tfrc"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            missing_tool(&format!("`script` (util-linux) makes the terminal: {e}"));
            return;
        }
    };
    let mut stdin = child.stdin.take().expect("stdin");
    let (seen, reader) = engine_support::gather_output(child.stdout.take().expect("stdout"));
    let text = || seen.lock().unwrap().replace('\r', "");
    // Each answer only once its question is on the screen, so that the
    // terminal's settings at that moment decide the echo.
    wait_until("the first question", Duration::from_secs(60), text, |t| {
        t.contains("var.name\n  Your name\n\n  Enter a value: ")
    });
    stdin.write_all(b"alice\n").expect("answering");
    wait_until("the second question", Duration::from_secs(60), text, |t| {
        t.contains("var.secret\n  Enter a value: ")
    });
    wait_for_echo_off(child.id());
    stdin.write_all(b"hunter2\n").expect("answering");
    drop(stdin);
    let status = child.wait().expect("waiting");
    reader.join().expect("reading");
    let text = text();
    assert!(status.success(), "{text}");
    assert!(text.contains("  Enter a value: alice\n"), "{text}");
    assert!(
        !text.contains("hunter2"),
        "a sensitive answer is not echoed:\n{text}"
    );
    assert!(text.contains("+ o = \"alice\""), "{text}");

    let no_terminal = work.terrace(&["plan"]);
    assert_eq!(no_terminal.code, Some(1));
    assert!(no_terminal
        .stderr
        .contains("The root module input variable \"name\" is not set"));
}

// ----- login and logout -----

/// The code the test's browser brings back, and the tokens the host
/// gives or accepts.
const AUTHORIZATION_CODE: &str = "the-code";
const OAUTH_TOKEN: &str = "token-from-oauth";
const PASTED_TOKEN: &str = "token-made-in-the-web-interface";

/// base64url without padding of the SHA-256 of `text`: the PKCE S256
/// challenge.
fn s256(text: &str) -> String {
    let digest = terrace_getproviders::hash::sha256_reader(&mut text.as_bytes()).expect("hashing");
    terrace_getproviders::hash::base64_std(&digest)
        .trim_end_matches('=')
        .replace('+', "-")
        .replace('/', "_")
}

fn query_value(query: &str, name: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        (k == name).then(|| {
            let mut out = Vec::new();
            let bytes = v.as_bytes();
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i] == b'%' && i + 2 < bytes.len() {
                    out.push(u8::from_str_radix(&v[i + 1..i + 3], 16).expect("hex"));
                    i += 3;
                } else {
                    out.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
                    i += 1;
                }
            }
            String::from_utf8(out).expect("UTF-8")
        })
    })
}

/// The host: an OAuth token endpoint that checks the code and the proof
/// key against the challenge the browser was sent with, and a `tfe.v2`
/// API that knows one token.
fn login_host(challenges: std::sync::Arc<Mutex<Vec<String>>>) -> HttpServer {
    HttpServer::start(
        move |request| match (request.method.as_str(), request.path()) {
            ("POST", "/oauth/token") => {
                let form = String::from_utf8_lossy(&request.body).into_owned();
                let verifier = query_value(&form, "code_verifier").unwrap_or_default();
                let known = challenges.lock().unwrap().contains(&s256(&verifier));
                if query_value(&form, "code").as_deref() == Some(AUTHORIZATION_CODE)
                    && query_value(&form, "grant_type").as_deref() == Some("authorization_code")
                    && known
                {
                    Reply::json(
                        serde_json::json!({"access_token": OAUTH_TOKEN, "token_type": "bearer"}),
                    )
                } else {
                    let mut reply = Reply::json(serde_json::json!({"error": "invalid_grant"}));
                    reply.status = 400;
                    reply
                }
            }
            ("GET", "/api/v2/ping") => Reply::with_type("application/vnd.api+json", Vec::new()),
            ("GET", "/api/v2/account/details") => {
                if request.header("authorization") == Some(&format!("Bearer {PASTED_TOKEN}")) {
                    Reply::with_type(
                    "application/vnd.api+json",
                    serde_json::json!({"data": {"id": "user-1", "type": "users", "attributes": {"username": "alice"}}})
                        .to_string()
                        .into_bytes(),
                )
                } else {
                    let mut reply = Reply::with_type(
                        "application/vnd.api+json",
                        br#"{"errors":[{"status":"401","title":"unauthorized"}]}"#.to_vec(),
                    );
                    reply.status = 401;
                    reply
                }
            }
            _ => Reply::not_found(),
        },
    )
}

/// A scratch home with its own CLI configuration directory, a CLI
/// configuration file with `host` blocks, and a `PATH` whose `xdg-open`
/// fails, so no browser is started and the login URL is printed.
struct LoginScene {
    root: std::path::PathBuf,
    host: String,
}

/// Waits until the terminal of the tool `script` (process `pid`) runs has
/// echo turned off: a prompt for a secret is printed just before, so an
/// answer typed on seeing it could still be echoed.
fn wait_for_echo_off(pid: u32) {
    let terminal = wait_until(
        "the tool's terminal",
        Duration::from_secs(60),
        || terminal_of_descendant(pid),
        Option::is_some,
    )
    .unwrap_or_default();
    wait_until(
        "echo turned off",
        Duration::from_secs(60),
        || {
            Command::new("stty")
                .args(["-F", &terminal, "-a"])
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                .unwrap_or_default()
        },
        |settings| settings.split_whitespace().any(|flag| flag == "-echo"),
    );
}

/// The terminal (`/dev/pts/N`) of the first process below `pid` reading
/// from one: the tool `script` runs.
fn terminal_of_descendant(pid: u32) -> Option<String> {
    let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).ok()?;
    for child in children.split_whitespace() {
        let Ok(child) = child.parse::<u32>() else {
            continue;
        };
        if let Ok(link) = std::fs::read_link(format!("/proc/{child}/fd/0")) {
            let link = link.to_string_lossy().into_owned();
            if link.starts_with("/dev/pts/") {
                return Some(link);
            }
        }
        if let Some(found) = terminal_of_descendant(child) {
            return Some(found);
        }
    }
    None
}

impl LoginScene {
    fn new(name: &str, host: &str) -> LoginScene {
        let root =
            std::env::temp_dir().join(format!("terrace-login-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("bin")).unwrap();
        let opener = root.join("bin/xdg-open");
        std::fs::write(&opener, "#!/bin/sh\nexit 3\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
        let scene = LoginScene {
            root,
            host: host.to_string(),
        };
        scene.reset_home();
        scene
    }

    /// An empty home with an empty configuration directory (terraform does
    /// not create it; terrace would).
    fn reset_home(&self) {
        let _ = std::fs::remove_dir_all(self.root.join("home"));
        std::fs::create_dir_all(self.root.join("home/.terraform.d")).unwrap();
    }

    /// `terraform-credentials-keeper` in the configuration directory's
    /// plugins: a credentials helper keeping one token in `helper-store`
    /// (any host) and noting each call in `helper-calls`.
    fn install_helper(&self) {
        let plugins = self.root.join("home/.terraform.d/plugins");
        std::fs::create_dir_all(&plugins).unwrap();
        let program = plugins.join("terraform-credentials-keeper");
        let (calls, store) = (self.root.join("helper-calls"), self.helper_store());
        std::fs::write(
            &program,
            format!(
                "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\ncase \"$3\" in\n  get) cat '{store}' 2>/dev/null || echo '{{}}' ;;\n  store) cat > '{store}' ;;\n  forget) rm -f '{store}' ;;\n  *) echo \"unknown verb $3\" >&2; exit 1 ;;\nesac\n",
                calls.display(),
                store = store.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let _ = std::fs::remove_file(&calls);
        let _ = std::fs::remove_file(&store);
    }

    fn helper_store(&self) -> std::path::PathBuf {
        self.root.join("helper-store")
    }

    fn helper_calls(&self) -> String {
        std::fs::read_to_string(self.root.join("helper-calls")).unwrap_or_default()
    }

    fn credentials_file(&self) -> std::path::PathBuf {
        self.root.join("home/.terraform.d/credentials.tfrc.json")
    }

    /// A CLI configuration naming the host's services (and `extra` text).
    fn configure(&self, services: &str, extra: &str) -> std::path::PathBuf {
        let path = self.root.join("cli.tfrc");
        std::fs::write(
            &path,
            format!(
                "host \"{}\" {{\n  services = {{\n{services}  }}\n}}\n{extra}",
                self.host
            ),
        )
        .unwrap();
        path
    }

    fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("HOME", self.root.join("home").display().to_string()),
            (
                "TF_CLI_CONFIG_FILE",
                self.root.join("cli.tfrc").display().to_string(),
            ),
            ("CHECKPOINT_DISABLE", "1".into()),
            (
                "PATH",
                format!(
                    "{}:{}",
                    self.root.join("bin").display(),
                    std::env::var("PATH").unwrap_or_default()
                ),
            ),
        ]
    }

    fn program(tool: &str) -> &str {
        match tool {
            "terrace" => env!("CARGO_BIN_EXE_terrace"),
            other => other,
        }
    }

    /// Runs without a terminal: (status, stdout, stderr).
    fn run(&self, tool: &str, args: &[&str]) -> (Option<i32>, String, String) {
        let out = Command::new(Self::program(tool))
            .args(args)
            .current_dir(&self.root)
            .envs(self.env())
            .env_remove("NO_COLOR")
            .env_remove("TF_LOG")
            .stdin(Stdio::null())
            .output()
            .expect("running");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// `login` on a terminal: "yes" to the question, then the token when
    /// asked for one, or, for the OAuth flow, the browser's visit to the
    /// callback URL with the code. The transcript, with the login URL's
    /// random parts replaced, and the exit status.
    fn login_on_terminal(
        &self,
        tool: &str,
        token: Option<&str>,
        challenges: &Mutex<Vec<String>>,
    ) -> (String, bool) {
        let command = format!("exec {} login {}", Self::program(tool), self.host);
        let mut child = Command::new("script")
            .args(["-q", "-e", "-c", &command, "/dev/null"])
            .current_dir(&self.root)
            .envs(self.env())
            .env_remove("NO_COLOR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("script");
        let mut stdin = child.stdin.take().expect("stdin");
        let (seen, reader) = engine_support::gather_output(child.stdout.take().expect("stdout"));
        let text = || seen.lock().unwrap().replace('\r', "");
        let prompts = |t: &String| t.matches("Enter a value:").count();
        wait_until("the question", Duration::from_secs(60), text, |t| {
            prompts(t) == 1
        });
        stdin.write_all(b"yes\n").expect("answering");
        let mut url = None;
        match token {
            Some(token) => {
                wait_until("the token prompt", Duration::from_secs(60), text, |t| {
                    prompts(t) == 2
                });
                wait_for_echo_off(child.id());
                stdin
                    .write_all(format!("{token}\n").as_bytes())
                    .expect("answering");
            }
            None => {
                let shown = wait_until("the login URL", Duration::from_secs(60), text, |t| {
                    t.contains("wait for the host to signal")
                });
                let found = shown
                    .lines()
                    .map(str::trim)
                    .find(|l| l.starts_with(&format!("http://{}/oauth/authorization?", self.host)))
                    .expect("the login URL")
                    .to_string();
                let query = found.split_once('?').unwrap().1.to_string();
                challenges
                    .lock()
                    .unwrap()
                    .push(query_value(&query, "code_challenge").expect("a challenge"));
                assert_eq!(
                    query_value(&query, "code_challenge_method").as_deref(),
                    Some("S256")
                );
                let redirect = query_value(&query, "redirect_uri").expect("redirect_uri");
                let state = query_value(&query, "state").expect("state");
                // The browser, sent back by the host with the code.
                let port = redirect
                    .strip_prefix("http://localhost:")
                    .and_then(|r| r.strip_suffix("/login"))
                    .expect("a callback on localhost");
                let mut callback =
                    std::net::TcpStream::connect(("127.0.0.1", port.parse::<u16>().unwrap()))
                        .expect("the callback server");
                write!(
                    callback,
                    "GET /login?code={AUTHORIZATION_CODE}&state={state} HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\n\r\n"
                )
                .unwrap();
                let mut answer = String::new();
                let _ = callback.read_to_string(&mut answer);
                assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
                url = Some(found);
            }
        }
        drop(stdin);
        let status = child.wait().expect("waiting");
        reader.join().expect("reading");
        let mut transcript = text();
        if let Some(url) = url {
            transcript = transcript.replace(&url, "LOGIN-URL");
        }
        (transcript, status.success())
    }
}

impl Drop for LoginScene {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// terraform's words with terrace's name where terraform names itself
/// (Terraform Enterprise is the host's product, not the tool).
fn as_terrace(text: &str) -> String {
    terrace_testsupport::product::as_terrace(text)
}

#[test]
fn login_and_logout_as_terraform_does() {
    if Command::new("script").arg("--version").output().is_err() {
        missing_tool("`script` (util-linux) makes the terminal");
        return;
    }
    let challenges: Arc<Mutex<Vec<String>>> = Arc::default();
    let server = login_host(challenges.clone());
    let host = server.host();
    let scene = LoginScene::new("flows", &host);
    let mut tools = vec!["terrace"];
    if have_terraform() {
        tools.push("terraform");
    }
    let oauth = format!(
        "    \"login.v1\" = {{\n      client = \"terraform-cli\"\n      grant_types = [\"authz_code\"]\n      authz = \"http://{host}/oauth/authorization\"\n      token = \"http://{host}/oauth/token\"\n      ports = [20000, 20100]\n    }}\n"
    );
    let tfe = format!("    \"tfe.v2\" = \"http://{host}/api/v2/\"\n");
    let mut transcripts: Vec<Vec<String>> = Vec::new();
    let mut files: Vec<Vec<Vec<u8>>> = Vec::new();
    for tool in &tools {
        let mut said = Vec::new();
        let mut written = Vec::new();
        let mut say = |text: String| {
            said.push(if *tool == "terraform" {
                as_terrace(&text)
            } else {
                text
            })
        };

        // The OAuth flow: the token the host gave is stored, readable
        // only by the user.
        scene.reset_home();
        scene.configure(&oauth, "");
        let (transcript, ok) = scene.login_on_terminal(tool, None, &challenges);
        assert!(ok, "{tool}: {transcript}");
        say(transcript);
        let stored = std::fs::read(scene.credentials_file()).expect("credentials written");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(scene.credentials_file())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{tool}");
        assert_eq!(
            String::from_utf8_lossy(&stored),
            format!("{{\n  \"credentials\": {{\n    \"{host}\": {{\n      \"token\": \"{OAUTH_TOKEN}\"\n    }}\n  }}\n}}")
        );
        written.push(stored);

        // With TF_CLI_CONFIG_FILE set the configuration directory is not
        // read, so the stored token is not seen and there is nothing to
        // log out of; without it, logout removes the entry and keeps
        // the rest of the file.
        let (code, out, err) = scene.run(tool, &["logout", "-no-color", &host]);
        assert_eq!(code, Some(0), "{tool}: {err}");
        say(out);
        std::fs::write(
            scene.credentials_file(),
            format!("{{\"credentials\":{{\"{host}\":{{\"token\":\"{OAUTH_TOKEN}\"}},\"other.example.com\":{{\"token\":\"t\"}}}},\"kept\":[1,2.5]}}"),
        )
        .unwrap();
        let mut without_override = Command::new(LoginScene::program(tool));
        without_override
            .args(["logout", &host])
            .current_dir(&scene.root)
            .envs(scene.env())
            .env_remove("TF_CLI_CONFIG_FILE")
            .env_remove("NO_COLOR");
        let out = without_override.output().expect("logout");
        assert_eq!(out.status.code(), Some(0), "{tool}");
        say(String::from_utf8_lossy(&out.stdout).into_owned());
        written.push(std::fs::read(scene.credentials_file()).unwrap());
        let out = without_override.output().expect("logout again");
        say(String::from_utf8_lossy(&out.stdout).into_owned());

        // The token pasted for a host with only the tfe.v2 API, checked
        // with the host: a good one is stored, a bad one refused.
        scene.reset_home();
        scene.configure(&tfe, "");
        let (transcript, ok) = scene.login_on_terminal(tool, Some(PASTED_TOKEN), &challenges);
        assert!(ok, "{tool}: {transcript}");
        assert!(
            !transcript.contains(PASTED_TOKEN),
            "{tool}: the token is not echoed"
        );
        say(transcript);
        written.push(std::fs::read(scene.credentials_file()).unwrap());
        scene.reset_home();
        let (transcript, ok) = scene.login_on_terminal(tool, Some("not-the-token"), &challenges);
        assert!(!ok, "{tool}: {transcript}");
        say(transcript);
        assert!(!scene.credentials_file().exists(), "{tool}");

        // A credentials helper keeps the token of a host the credentials
        // file does not name: login hands it over (`store`, the token on
        // stdin), logout has it dropped (`forget`); the file is untouched.
        scene.reset_home();
        scene.install_helper();
        scene.configure(
            &tfe,
            "credentials_helper \"keeper\" {\n  args = [\"--vault\", \"test\"]\n}\n",
        );
        let (transcript, ok) = scene.login_on_terminal(tool, Some(PASTED_TOKEN), &challenges);
        assert!(ok, "{tool}: {transcript}");
        say(transcript);
        assert!(!scene.credentials_file().exists(), "{tool}");
        let kept: serde_json::Value =
            serde_json::from_slice(&std::fs::read(scene.helper_store()).expect("kept"))
                .expect("JSON");
        assert_eq!(kept, serde_json::json!({"token": PASTED_TOKEN}), "{tool}");
        let (code, out, err) = scene.run(tool, &["logout", "-no-color", &host]);
        assert_eq!(code, Some(0), "{tool}: {err}");
        say(out);
        assert!(!scene.helper_store().exists(), "{tool}");
        assert_eq!(
            scene.helper_calls(),
            format!("--vault test store {host}\n--vault test forget {host}\n"),
            "{tool}"
        );
        // A token the file already holds stays there: the helper is only
        // for hosts the file does not name.
        std::fs::write(
            scene.credentials_file(),
            format!("{{\"credentials\":{{\"{host}\":{{\"token\":\"in-file\"}}}}}}"),
        )
        .unwrap();
        let mut with_file = Command::new(LoginScene::program(tool));
        with_file
            .args(["logout", "-no-color", &host])
            .current_dir(&scene.root)
            .envs(scene.env())
            .env_remove("TF_CLI_CONFIG_FILE")
            .env_remove("NO_COLOR");
        std::fs::rename(
            scene.root.join("cli.tfrc"),
            scene.root.join("home/.terraformrc"),
        )
        .unwrap();
        let out = with_file.output().expect("logout");
        assert_eq!(out.status.code(), Some(0), "{tool}");
        say(String::from_utf8_lossy(&out.stdout).into_owned());
        let left = std::fs::read(scene.credentials_file()).unwrap();
        assert!(
            !String::from_utf8_lossy(&left).contains("in-file"),
            "{tool}"
        );
        written.push(left);
        assert_eq!(
            scene.helper_calls(),
            format!("--vault test store {host}\n--vault test forget {host}\n"),
            "{tool}: the helper is not asked"
        );
        // A helper block whose program is not there is passed over.
        scene.reset_home();
        scene.configure(&tfe, "credentials_helper \"absent\" {}\n");
        let (transcript, ok) = scene.login_on_terminal(tool, Some(PASTED_TOKEN), &challenges);
        assert!(ok, "{tool}: {transcript}");
        say(transcript);
        assert!(scene.credentials_file().exists(), "{tool}");
        scene.reset_home();

        // Refusals: no way to get a token, no terminal allowed, and
        // credentials written by hand in the CLI configuration.
        scene.configure("    \"modules.v1\" = \"http://example.com/\"\n", "");
        let (code, out, err) = scene.run(tool, &["login", "-no-color", &host]);
        assert_eq!(code, Some(1), "{tool}");
        say(out + &err);
        let (code, out, err) = scene.run(tool, &["login", "-no-color", "-input=false", &host]);
        assert_eq!(code, Some(1), "{tool}");
        say(out + &err);
        scene.configure(
            &tfe,
            &format!("credentials \"{host}\" {{\n  token = \"by-hand\"\n}}\n"),
        );
        for command in ["login", "logout"] {
            let (code, out, err) = scene.run(tool, &[command, "-no-color", &host]);
            assert_eq!(code, Some(1), "{tool} {command}");
            say(out + &err);
        }
        let (code, out, err) = scene.run(tool, &["logout", "-no-color", "bad host!"]);
        assert_eq!(code, Some(1), "{tool}");
        say(out + &err);
        let (code, out, err) = scene.run(tool, &["login", "-help"]);
        assert_eq!(code, Some(0), "{tool}: {err}");
        say(out);
        let (code, _, err) = scene.run(tool, &["login", "a.example.com", "b.example.com"]);
        assert_eq!(code, Some(1), "{tool}");
        say(err);
        transcripts.push(said);
        files.push(written);
    }
    if let [ours, theirs] = transcripts.as_slice() {
        assert_eq!(ours.len(), theirs.len());
        // Diagnostics wrap where the shorter name lets a word move up a
        // line, so a difference in white space alone is none.
        let fold = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
        for (index, (ours, theirs)) in ours.iter().zip(theirs).enumerate() {
            if ours != theirs {
                assert_eq!(fold(ours), fold(theirs), "step {index}");
                assert_eq!(
                    (ours.starts_with('\n'), ours.ends_with("\n\n")),
                    (theirs.starts_with('\n'), theirs.ends_with("\n\n")),
                    "step {index}: blank lines around it"
                );
            }
        }
        assert_eq!(files[0], files[1], "the credentials files");
    }
}
