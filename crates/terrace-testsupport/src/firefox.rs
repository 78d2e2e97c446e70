//! Headless Firefox for the tests of the HTML report, driven through
//! Marionette, the remote protocol Firefox itself serves: load a page, run
//! a script in it and read what the script returns, click elements and
//! press keys as a person would.
//!
//! Marionette speaks length-prefixed JSON over TCP: every message is
//! `LEN:JSON`, a command `[0, id, name, parameters]`, its response
//! `[1, id, error, result]`. Firefox listens on the port the profile's
//! `marionette.port` names (0: any free port, written to the profile's
//! `MarionetteActivePort` file).
//!
//! Every run has its own profile with the browser's own background
//! requests turned off and every request sent to a proxy this module
//! runs, which answers nothing and records the request line: a page that
//! asks the network for anything is seen there.

use crate::{fresh_profile, missing, page_url, probe, run_screenshot};
use serde_json::{json, Value as Json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The browser Debian's `firefox-esr` package installs.
pub const FIREFOX: &str = "firefox-esr";

/// How long Firefox may take to start and open its Marionette port on a
/// loaded machine.
const START_TIMEOUT: Duration = Duration::from_secs(90);

/// Whether headless Firefox runs here; reported as missing otherwise.
pub fn require_firefox() -> bool {
    match probe(FIREFOX, &["--version"]) {
        Ok(_) => true,
        Err(reason) => {
            missing(&format!(
                "{reason}; the HTML report's Firefox tests need it (apt-get install firefox-esr)"
            ));
            false
        }
    }
}

/// Preferences of every run's profile: Marionette on any free port, no
/// update checks, telemetry, safe browsing, captive-portal or
/// connectivity probes, and every connection through the recording proxy.
fn profile_preferences(proxy_port: u16, dark: bool) -> String {
    let mut prefs = vec![
        ("marionette.port", "0".to_string()),
        ("app.update.disabledForTesting", "true".to_string()),
        ("app.normandy.enabled", "false".to_string()),
        ("browser.shell.checkDefaultBrowser", "false".to_string()),
        ("browser.startup.page", "0".to_string()),
        ("browser.newtabpage.enabled", "false".to_string()),
        ("browser.safebrowsing.malware.enabled", "false".to_string()),
        ("browser.safebrowsing.phishing.enabled", "false".to_string()),
        (
            "browser.safebrowsing.downloads.enabled",
            "false".to_string(),
        ),
        ("browser.safebrowsing.update.enabled", "false".to_string()),
        (
            "datareporting.policy.dataSubmissionEnabled",
            "false".to_string(),
        ),
        ("toolkit.telemetry.enabled", "false".to_string()),
        (
            "network.captive-portal-service.enabled",
            "false".to_string(),
        ),
        ("network.connectivity-service.enabled", "false".to_string()),
        ("extensions.update.enabled", "false".to_string()),
        ("extensions.getAddons.cache.enabled", "false".to_string()),
        // Remote settings poll Mozilla's servers from the start; the
        // server is only taken from here with MOZ_REMOTE_SETTINGS_DEVTOOLS
        // set (see `firefox_command`).
        (
            "services.settings.server",
            "\"data:,#remote-settings-dummy/v1\"".to_string(),
        ),
        ("network.proxy.type", "1".to_string()),
        ("network.proxy.http", "\"127.0.0.1\"".to_string()),
        ("network.proxy.http_port", proxy_port.to_string()),
        ("network.proxy.ssl", "\"127.0.0.1\"".to_string()),
        ("network.proxy.ssl_port", proxy_port.to_string()),
        ("network.proxy.no_proxies_on", "\"\"".to_string()),
        (
            "network.proxy.allow_hijacking_localhost",
            "true".to_string(),
        ),
    ];
    // 0 asks pages for the dark scheme, 1 for the light one, whatever the
    // (absent) desktop says.
    prefs.push((
        "layout.css.prefers-color-scheme.content-override",
        if dark { "0" } else { "1" }.to_string(),
    ));
    prefs
        .iter()
        .map(|(name, value)| format!("user_pref(\"{name}\", {value});\n"))
        .collect()
}

/// Headless Firefox on `profile`, its home there too (nothing written
/// elsewhere), reading its remote-settings server from the profile.
fn firefox_command(profile: &Path) -> Command {
    let mut command = Command::new(FIREFOX);
    command
        .args(["--headless", "--no-remote", "--profile"])
        .arg(profile)
        .env("HOME", profile)
        .env("MOZ_HEADLESS", "1")
        .env("MOZ_REMOTE_SETTINGS_DEVTOOLS", "1")
        .stdin(Stdio::null());
    command
}

/// The proxy every request of the browser goes to: it records the first
/// line of each request (`GET http://host/path HTTP/1.1`,
/// `CONNECT host:443 HTTP/1.1`) and closes the connection.
struct RecordingProxy {
    port: u16,
    seen: Arc<Mutex<Vec<String>>>,
}

impl RecordingProxy {
    fn start() -> Result<RecordingProxy, String> {
        let listener =
            TcpListener::bind("127.0.0.1:0").map_err(|e| format!("starting the proxy: {e}"))?;
        let port = listener
            .local_addr()
            .map_err(|e| format!("the proxy's port: {e}"))?
            .port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = Arc::clone(&seen);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                let mut line = String::new();
                let _ = BufReader::new(&stream).read_line(&mut line);
                if let Ok(mut seen) = record.lock() {
                    seen.push(line.trim_end().to_string());
                }
            }
        });
        Ok(RecordingProxy { port, seen })
    }
}

/// One headless Firefox with a Marionette session; killed when dropped.
pub struct Firefox {
    child: Child,
    stream: TcpStream,
    reader: BufReader<TcpStream>,
    last_id: u64,
    proxy: RecordingProxy,
    log: PathBuf,
}

impl Firefox {
    /// Starts Firefox with a fresh profile under `scratch`, asking pages
    /// for the light colour scheme.
    pub fn start(scratch: &Path) -> Result<Firefox, String> {
        Firefox::start_with_scheme(scratch, false)
    }

    /// [`Firefox::start`], asking pages for the dark colour scheme when
    /// `dark`.
    pub fn start_with_scheme(scratch: &Path, dark: bool) -> Result<Firefox, String> {
        let profile = fresh_profile(
            scratch,
            if dark {
                "firefox-profile-dark"
            } else {
                "firefox-profile"
            },
        )?;
        let proxy = RecordingProxy::start()?;
        std::fs::write(
            profile.join("user.js"),
            profile_preferences(proxy.port, dark),
        )
        .map_err(|e| format!("writing the profile's preferences: {e}"))?;
        let log = scratch.join("firefox.log");
        let log_file =
            std::fs::File::create(&log).map_err(|e| format!("creating {}: {e}", log.display()))?;
        let log_err = log_file
            .try_clone()
            .map_err(|e| format!("the log's second handle: {e}"))?;
        let child = firefox_command(&profile)
            .arg("--marionette")
            .stdout(log_file)
            .stderr(log_err)
            .spawn()
            .map_err(|e| format!("running {FIREFOX}: {e}"))?;
        let mut firefox = Firefox::connect(child, &profile, proxy, log)?;
        firefox.command(
            "WebDriver:NewSession",
            json!({"capabilities": {"alwaysMatch": {"pageLoadStrategy": "normal"}}}),
        )?;
        Ok(firefox)
    }

    fn connect(
        mut child: Child,
        profile: &Path,
        proxy: RecordingProxy,
        log: PathBuf,
    ) -> Result<Firefox, String> {
        let port_file = profile.join("MarionetteActivePort");
        let started = Instant::now();
        let port = loop {
            if let Ok(text) = std::fs::read_to_string(&port_file) {
                if let Ok(port) = text.trim().parse::<u16>() {
                    break port;
                }
            }
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!(
                    "{FIREFOX} exited ({status}) before serving Marionette: {}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                ));
            }
            if started.elapsed() > START_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{FIREFOX} did not open its Marionette port in {START_TIMEOUT:?}"
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let stream = TcpStream::connect(("127.0.0.1", port))
            .map_err(|e| format!("connecting to Marionette on port {port}: {e}"))?;
        let _ = stream.set_read_timeout(Some(Duration::from_secs(120)));
        let reader = BufReader::new(
            stream
                .try_clone()
                .map_err(|e| format!("the connection's second handle: {e}"))?,
        );
        let mut firefox = Firefox {
            child,
            stream,
            reader,
            last_id: 0,
            proxy,
            log,
        };
        let hello = firefox.read_message()?;
        if hello["marionetteProtocol"] != json!(3) {
            return Err(format!("not the Marionette protocol 3: {hello}"));
        }
        Ok(firefox)
    }

    fn read_message(&mut self) -> Result<Json, String> {
        let mut length = Vec::new();
        self.reader
            .read_until(b':', &mut length)
            .map_err(|e| format!("reading from Marionette: {e}"))?;
        length.pop();
        let length: usize = std::str::from_utf8(&length)
            .ok()
            .and_then(|n| n.trim().parse().ok())
            .ok_or_else(|| format!("a message length that is no number: {length:?}"))?;
        let mut body = vec![0; length];
        self.reader
            .read_exact(&mut body)
            .map_err(|e| format!("reading a message of {length} bytes: {e}"))?;
        serde_json::from_slice(&body).map_err(|e| format!("a message that is no JSON: {e}"))
    }

    /// Sends one command and waits for its response; the result, or the
    /// error Firefox answered with.
    pub fn command(&mut self, name: &str, parameters: Json) -> Result<Json, String> {
        self.last_id += 1;
        let id = self.last_id;
        let body = json!([0, id, name, parameters]).to_string();
        self.stream
            .write_all(format!("{}:{body}", body.len()).as_bytes())
            .map_err(|e| format!("sending {name}: {e}"))?;
        loop {
            let message = self.read_message()?;
            if message[0] != json!(1) || message[1] != json!(id) {
                continue;
            }
            if !message[2].is_null() {
                return Err(format!(
                    "{name}: {} ({})",
                    message[2]["error"], message[2]["message"]
                ));
            }
            return Ok(message[3].clone());
        }
    }

    /// Loads `page` (`#fragment` appended unless empty) and waits for it
    /// to finish loading.
    pub fn open(&mut self, page: &Path, fragment: &str) -> Result<(), String> {
        self.command(
            "WebDriver:Navigate",
            json!({ "url": page_url(page, fragment) }),
        )
        .map(|_| ())
    }

    /// Runs `body` (a function body: `return ...`) in the page; what it
    /// returns, as JSON.
    pub fn run(&mut self, body: &str) -> Result<Json, String> {
        self.command(
            "WebDriver:ExecuteScript",
            json!({ "script": body, "args": [] }),
        )
        .map(|result| result["value"].clone())
    }

    /// The document as it is now (after its scripts ran).
    pub fn dom(&mut self) -> Result<String, String> {
        let dom = self.run("return document.documentElement.outerHTML;")?;
        dom.as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("the document is no text: {dom}"))
    }

    fn find(&mut self, css: &str) -> Result<Json, String> {
        let found = self.command(
            "WebDriver:FindElement",
            json!({ "using": "css selector", "value": css }),
        )?;
        Ok(found["value"].clone())
    }

    /// Clicks the element `css` selects, as a pointer does (the element
    /// must be shown and not covered).
    pub fn click(&mut self, css: &str) -> Result<(), String> {
        let element = self.find(css)?;
        let id = element
            .as_object()
            .and_then(|o| o.values().next())
            .cloned()
            .ok_or_else(|| format!("no element reference for {css}: {element}"))?;
        self.command("WebDriver:ElementClick", json!({ "id": id }))
            .map(|_| ())
    }

    /// Presses and releases each key of `keys` in turn at whatever has the
    /// focus (`"\u{E00C}"` is Escape, as in WebDriver).
    pub fn press(&mut self, keys: &str) -> Result<(), String> {
        let mut actions = Vec::new();
        for key in keys.chars() {
            actions.push(json!({"type": "keyDown", "value": key.to_string()}));
            actions.push(json!({"type": "keyUp", "value": key.to_string()}));
        }
        self.command(
            "WebDriver:PerformActions",
            json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]}),
        )
        .map(|_| ())
    }

    /// The request lines the proxy received so far: the browser's own
    /// background requests are turned off, so these are the page's.
    pub fn requests(&self) -> Vec<String> {
        self.proxy
            .seen
            .lock()
            .map(|seen| seen.clone())
            .unwrap_or_default()
    }

    /// Firefox's own output so far, for a failure's message.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Firefox {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Saves a screenshot of `page` at `width`×`height` to `png`, with
/// Firefox's own `--screenshot` run (a profile of its own under
/// `scratch`).
pub fn screenshot(
    page: &Path,
    png: &Path,
    width: u32,
    height: u32,
    scratch: &Path,
) -> Result<(), String> {
    let profile = fresh_profile(scratch, "firefox-profile-shot")?;
    // The screenshot run loads nothing but the page; the proxy of a port
    // nothing listens on makes sure of it.
    std::fs::write(profile.join("user.js"), profile_preferences(1, false))
        .map_err(|e| format!("writing the profile's preferences: {e}"))?;
    let mut command = firefox_command(&profile);
    command
        .arg("--window-size")
        .arg(format!("{width},{height}"))
        .arg("--screenshot")
        .arg(png)
        .arg(page_url(page, ""));
    run_screenshot(FIREFOX, command, png)
}
