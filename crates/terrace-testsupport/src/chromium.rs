//! Headless Chromium for the tests of the HTML report: a page's DOM after
//! its scripts ran, a screenshot, and Chromium's network log of the run.
//!
//! Every run is cut off from the network (a proxy that refuses, a resolver
//! that finds nothing), has its own profile directory, and turns off the
//! browser's own background requests, so the network log holds what the
//! page asked for and little else.

use crate::{fresh_profile, missing, page_url, probe, run_screenshot};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The browser Debian's `chromium` package installs.
pub const CHROMIUM: &str = "chromium";

/// Whether headless Chromium runs here; reported as missing otherwise.
pub fn require_chromium() -> bool {
    match probe(CHROMIUM, &["--version"]) {
        Ok(_) => true,
        Err(reason) => {
            missing(&format!(
                "{reason}; the HTML report tests need headless Chromium (apt-get install chromium)"
            ));
            false
        }
    }
}

/// What one headless run produced.
pub struct ChromiumRun {
    /// `--dump-dom`: the document after the page's scripts ran.
    pub dom: String,
    /// Chromium's NetLog (JSON) of the run.
    pub net_log: String,
}

fn base_command(profile: &Path) -> Command {
    let mut command = Command::new(CHROMIUM);
    command
        .arg("--headless")
        .arg("--disable-gpu")
        .arg("--no-sandbox")
        .arg("--disable-dev-shm-usage")
        .arg("--disable-background-networking")
        .arg("--disable-component-update")
        .arg("--disable-sync")
        .arg("--disable-default-apps")
        .arg("--no-first-run")
        .arg("--no-default-browser-check")
        .arg("--disable-client-side-phishing-detection")
        .arg("--disable-features=Translate,OptimizationHints,MediaRouter")
        .arg("--proxy-server=127.0.0.1:1")
        .arg("--host-resolver-rules=MAP * ~NOTFOUND")
        .arg(format!("--user-data-dir={}", profile.display()))
        .env("HOME", profile);
    command
}

/// Loads `page` and returns its DOM after the scripts ran, with the
/// network log of the load. `scratch` receives the profile and the log.
pub fn dump_dom(page: &Path, scratch: &Path) -> Result<ChromiumRun, String> {
    dump_dom_at(page, "", scratch)
}

/// [`dump_dom`] of `page#fragment` (no fragment when empty): what the
/// page's script made of the fragment shows in the DOM.
pub fn dump_dom_at(page: &Path, fragment: &str, scratch: &Path) -> Result<ChromiumRun, String> {
    let profile = fresh_profile(scratch, "chromium-profile-dom")?;
    let net_log: PathBuf = scratch.join("chromium-netlog.json");
    let _ = std::fs::remove_file(&net_log);
    let out = base_command(&profile)
        .arg(format!("--log-net-log={}", net_log.display()))
        .arg("--dump-dom")
        .arg(page_url(page, fragment))
        .output()
        .map_err(|e| format!("running {CHROMIUM}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{CHROMIUM} --dump-dom failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let net_log = std::fs::read_to_string(&net_log)
        .map_err(|e| format!("reading the network log {}: {e}", net_log.display()))?;
    Ok(ChromiumRun {
        dom: String::from_utf8_lossy(&out.stdout).into_owned(),
        net_log,
    })
}

/// Saves a screenshot of `page` at `width`×`height` to `png`.
pub fn screenshot(
    page: &Path,
    png: &Path,
    width: u32,
    height: u32,
    scratch: &Path,
) -> Result<(), String> {
    screenshot_at(page, "", png, width, height, scratch)
}

/// [`screenshot`] of `page#fragment` (the page's script may act on the
/// fragment, e.g. open the element it names); no fragment when empty.
pub fn screenshot_at(
    page: &Path,
    fragment: &str,
    png: &Path,
    width: u32,
    height: u32,
    scratch: &Path,
) -> Result<(), String> {
    let profile = fresh_profile(scratch, "chromium-profile-shot")?;
    let mut command = base_command(&profile);
    command
        .arg("--hide-scrollbars")
        .arg(format!("--window-size={width},{height}"))
        .arg(format!("--screenshot={}", png.display()))
        .arg(page_url(page, fragment));
    run_screenshot(CHROMIUM, command, png)
}
