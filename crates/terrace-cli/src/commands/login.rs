//! `terrace login [HOST]` and `terrace logout [HOST]`: API tokens for
//! remote hosts, kept where terraform keeps them, in
//! `credentials.tfrc.json` in the CLI configuration directory
//! (`~/.terraform.d`), as `{"credentials": {"HOST": {"token": "..."}}}`.
//!
//! The host says how to get a token through service discovery: `login.v1`
//! describes an OAuth client, and terrace runs the authorization code flow
//! with a PKCE proof key, receiving the code on a temporary HTTP server on
//! 127.0.0.1 (a port in the client's range) while the person logs in with
//! a browser; a host with only a `tfe.v2` API gets the token pasted at a
//! prompt (read without echo) and checked by asking that API whose token it
//! is. Credentials written by hand in a CLI configuration file are not
//! touched. As terraform: when `TF_CLI_CONFIG_FILE` names the
//! configuration, the configuration directory is not read, so the
//! credentials file is written but not consulted.
//!
//! Texts are terraform 1.11's with terrace's name where terraform names
//! itself. A credentials helper (`credentials_helper`, the program
//! `terraform-credentials-NAME` in a plugin directory) keeps the tokens of
//! every host the credentials file does not already name: login gives it
//! the token (`store`), logout asks it to drop it (`forget`).

use crate::args::{parse_go_flags, FlagError};
use crate::diag_output::{colorize, print_cli_config_problems, PRODUCT_COMMAND};
use crate::PRODUCT;
use serde_json::{Map, Value as Json};
use std::collections::BTreeSet;
use std::io::{BufRead, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use terrace_addrs::Hostname;
use terrace_getproviders::cliconfig::{self, CliConfig, CliEnv};
use terrace_getproviders::credentials_helper::CredentialsHelper;
use terrace_getproviders::registry::{resolve_url, Http, RegistrySource};
use terrace_getproviders::source::SourceError;
use terrace_gocompat::url::{query_escape, query_unescape_lenient};
use terrace_syntax::render::{render_diagnostic, RenderStyle, SourceMap, DEFAULT_WIDTH};
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::gostr::quote;

/// The host `login` and `logout` use when none is given.
const DEFAULT_HOST: &str = "app.terraform.io";

const SEPARATOR: &str =
    "\n---------------------------------------------------------------------------------\n";

/// The most a token endpoint or API answer may be.
const MAX_RESPONSE_BYTES: u64 = 1024 * 1024;

fn credentials_file_for_help(env: &CliEnv) -> String {
    match env.config_dir() {
        Some(dir) => dir.join("credentials.tfrc.json").display().to_string(),
        None => "~/.terraform.d/credentials.tfrc.json".to_string(),
    }
}

fn login_usage(env: &CliEnv) -> String {
    format!(
        "Usage: {PRODUCT_COMMAND} [global options] login [hostname]

  Retrieves an authentication token for the given hostname, if it supports
  automatic login, and saves it in a credentials file in your home directory.

  If no hostname is provided, the default hostname is app.terraform.io, to
  log in to HCP Terraform.

  If not overridden by credentials helper settings in the CLI configuration,
  the credentials will be written to the following local file:
      {}",
        credentials_file_for_help(env)
    )
}

fn logout_usage(env: &CliEnv) -> String {
    format!(
        "Usage: {PRODUCT_COMMAND} [global options] logout [hostname]

  Removes locally-stored credentials for specified hostname.

  Note: the API token is only removed from local storage, not destroyed on the
  remote server, so it will remain valid until manually revoked.

  If no hostname is provided, the default hostname is app.terraform.io.

  Credentials are removed from the following local file:
      {}",
        credentials_file_for_help(env)
    )
}

/// The flags both commands take, and the host.
struct Args {
    color: bool,
    input: bool,
    host: String,
}

enum Parsed {
    Run(Args),
    Exit(i32),
}

fn parse_args(argv: &[String], usage: &str, too_many: &str) -> Parsed {
    let mut color =
        std::env::var_os("NO_COLOR").is_none() && !argv.iter().any(|a| a == "-no-color");
    let mut input = true;
    let (flags, positional) = match parse_go_flags(argv, &["no-color", "input"], &[]) {
        Ok(r) => r,
        Err(FlagError::Help) => {
            outln!("{usage}");
            return Parsed::Exit(0);
        }
        Err(e) => {
            ui_error(&format!("Error parsing command-line flags: {e}\n"), color);
            ui_error(usage, color);
            return Parsed::Exit(1);
        }
    };
    for (name, value) in flags {
        match name.as_str() {
            "no-color" => color = color && value != "true",
            "input" => input = value == "true",
            _ => {}
        }
    }
    if positional.len() > 1 {
        ui_error(too_many, color);
        ui_error(usage, color);
        return Parsed::Exit(1);
    }
    Parsed::Run(Args {
        color,
        input,
        host: positional
            .first()
            .cloned()
            .unwrap_or_else(|| DEFAULT_HOST.to_string()),
    })
}

/// A message on standard error as terraform's command UI writes an error:
/// all red when colour is on, and a newline after it.
fn ui_error(text: &str, color: bool) {
    if color {
        eprintln!("\x1b[31m{text}\x1b[0m\x1b[0m");
    } else {
        eprintln!("{text}");
    }
}

/// The host as the command line gives it, checked and in its canonical
/// form; an "Invalid hostname" error otherwise.
fn parse_host(given: &str) -> Result<Hostname, Diagnostics> {
    Hostname::for_comparison(given).map_err(|e| {
        vec![Diagnostic::error(
            "Invalid hostname",
            format!("The given hostname {} is not valid: {e}.", quote(given)),
        )]
    })
}

// ----- where credentials live -----

/// Where a host's credentials are, as terraform decides it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Location {
    /// Written by hand in a CLI configuration file: not ours to change.
    OtherFile,
    /// In the credentials file.
    PrimaryFile,
    /// A credentials helper keeps them.
    Helper,
    /// Nowhere yet.
    NotAvailable,
}

struct CredentialsStore {
    /// `credentials.tfrc.json` in the CLI configuration directory.
    file: Option<PathBuf>,
    /// Hosts the loaded CLI configuration has credentials for.
    configured: BTreeSet<Hostname>,
    /// Hosts the credentials file itself names.
    in_file: BTreeSet<Hostname>,
    /// The configured helper, when its program is there (terraform
    /// carries on without one that is not).
    helper: Option<CredentialsHelper>,
}

impl CredentialsStore {
    fn new(cli: &CliConfig, env: &CliEnv) -> CredentialsStore {
        let file = env.config_dir().map(|d| d.join("credentials.tfrc.json"));
        let configured = cli
            .credentials
            .keys()
            .filter_map(|h| Hostname::for_comparison(h).ok())
            .collect();
        let in_file = file
            .as_deref()
            .and_then(|f| std::fs::read(f).ok())
            .and_then(|bytes| serde_json::from_slice::<Json>(&bytes).ok())
            .and_then(|doc| doc.get("credentials").and_then(Json::as_object).cloned())
            .map(|hosts| {
                hosts
                    .keys()
                    .filter_map(|h| Hostname::for_comparison(h).ok())
                    .collect()
            })
            .unwrap_or_default();
        CredentialsStore {
            file,
            configured,
            in_file,
            helper: CredentialsHelper::configured(&cli.credentials_helpers, env),
        }
    }

    fn location(&self, host: &Hostname) -> Location {
        if self.configured.contains(host) && !self.in_file.contains(host) {
            Location::OtherFile
        } else if self.configured.contains(host) {
            Location::PrimaryFile
        } else if self.helper.is_some() {
            Location::Helper
        } else {
            Location::NotAvailable
        }
    }

    fn file_display(&self) -> String {
        self.file
            .as_deref()
            .map(|f| f.display().to_string())
            .unwrap_or_default()
    }

    /// Where the token will be kept, said before asking for it (`login`
    /// asks for consent first with the words of `consent`).
    fn storage_note(&self, host: &Hostname, consent: bool) -> String {
        match (self.location(host), &self.helper) {
            (Location::Helper, Some(helper)) if consent => format!(
                "If login is successful, {PRODUCT} will store the token in the configured\n{} credentials helper for use by subsequent commands.\n",
                quote(&helper.name)
            ),
            (Location::Helper, Some(helper)) => format!(
                "{PRODUCT} will store the token in the configured {} credentials helper\nfor use by subsequent commands.\n",
                quote(&helper.name)
            ),
            _ if consent => format!(
                "If login is successful, {PRODUCT} will store the token in plain text in\nthe following file for use by subsequent commands:\n    {}\n",
                self.file_display()
            ),
            _ => format!(
                "{PRODUCT} will store the token in plain text in the following file\nfor use by subsequent commands:\n    {}\n",
                self.file_display()
            ),
        }
    }

    /// Keeps (`Some`) or drops (`None`) the token for `host` where its
    /// location says: the helper, or the credentials file.
    fn save(&self, host: &Hostname, token: Option<&str>) -> Result<(), String> {
        match (self.location(host), &self.helper) {
            (Location::Helper, Some(helper)) => match token {
                Some(token) => helper.store(host, token),
                None => helper.forget(host),
            },
            _ => self.update(host, token),
        }
    }

    /// Sets (`Some`) or removes (`None`) the token for `host` in the
    /// credentials file, keeping everything else in it; written to a
    /// temporary file beside it and renamed over it, readable only by the
    /// user.
    fn update(&self, host: &Hostname, token: Option<&str>) -> Result<(), String> {
        let Some(file) = &self.file else {
            return Err("unable to determine credentials file path".into());
        };
        let shown = file.display();
        let mut doc: Map<String, Json> = match std::fs::read(file) {
            Ok(bytes) if !bytes.is_empty() => {
                serde_json::from_slice(&bytes).map_err(|e| format!("cannot read {shown}: {e}"))?
            }
            Ok(_) => Map::new(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Map::new(),
            Err(e) => return Err(format!("cannot read {shown}: {e}")),
        };
        let hosts = doc
            .entry("credentials")
            .or_insert_with(|| Json::Object(Map::new()));
        let Some(hosts) = hosts.as_object_mut() else {
            return Err(format!(
                "credentials file {shown} has invalid value for \"credentials\" property: must be a JSON object"
            ));
        };
        hosts.retain(|given, _| Hostname::for_comparison(given).ok().as_ref() != Some(host));
        if let Some(token) = token {
            let mut entry = Map::new();
            entry.insert("token".into(), Json::String(token.to_string()));
            hosts.insert(host.for_display(), Json::Object(entry));
        }
        let text = crate::jsondiag::to_go_json(&sorted(Json::Object(doc)));
        let dir = file.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let temporary = dir.join(format!(
            ".{}.{}",
            file.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            std::process::id()
        ));
        let written = (|| -> std::io::Result<()> {
            use std::os::unix::fs::OpenOptionsExt;
            let mut out = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(&temporary)?;
            out.write_all(text.as_bytes())?;
            out.sync_all()?;
            std::fs::rename(&temporary, file)?;
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o600))
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temporary);
            return Err(format!("cannot write {shown}: {e}"));
        }
        Ok(())
    }
}

/// The JSON with every object's keys in byte order, as Go writes a map.
fn sorted(value: Json) -> Json {
    match value {
        Json::Object(map) => {
            let mut entries: Vec<(String, Json)> =
                map.into_iter().map(|(k, v)| (k, sorted(v))).collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Json::Object(entries.into_iter().collect())
        }
        Json::Array(items) => Json::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

// ----- logout -----

/// `terrace logout [HOST]`.
pub fn logout(argv: &[String]) -> i32 {
    let env = CliEnv::from_process();
    let args = match parse_args(
        argv,
        &logout_usage(&env),
        "The logout command expects at most one argument: the host to log out of.",
    ) {
        Parsed::Run(args) => args,
        Parsed::Exit(code) => return code,
    };
    let (cli, cli_diags) = cliconfig::load(&env);
    print_cli_config_problems(&cli_diags);
    let host = match parse_host(&args.host) {
        Ok(h) => h,
        Err(d) => return fail(d, args.color),
    };
    let shown = host.for_display();
    let store = CredentialsStore::new(&cli, &env);
    match store.location(&host) {
        Location::OtherFile => fail(
            vec![Diagnostic::error(
                format!("Credentials for {shown} are manually configured"),
                format!("The \"{PRODUCT_COMMAND} logout\" command cannot log out because credentials for this host are manually configured in a CLI configuration file.\n\nTo log out, revoke the existing credentials and remove that block from the CLI configuration."),
            )],
            args.color,
        ),
        Location::NotAvailable => {
            outln!("No credentials for {shown} are stored.\n");
            0
        }
        location @ (Location::Helper | Location::PrimaryFile) => {
            match (location, &store.helper) {
                (Location::Helper, Some(helper)) => outln!(
                    "Removing the stored credentials for {shown} from the configured\n{} credentials helper.\n",
                    quote(&helper.name)
                ),
                _ => outln!(
                    "Removing the stored credentials for {shown} from the following file:\n    {}\n",
                    store.file_display()
                ),
            }
            if let Err(e) = store.save(&host, None) {
                return fail(
                    vec![Diagnostic::error(
                        "Failed to remove API token",
                        format!("Unable to remove stored API token: {e}"),
                    )],
                    args.color,
                );
            }
            outln!(
                "{}\n",
                colorize(
                    &format!("[green][bold]Success![reset] [bold]{PRODUCT} has removed the stored API token for {shown}.[reset]"),
                    args.color
                )
            );
            0
        }
    }
}

fn fail(diags: Diagnostics, color: bool) -> i32 {
    print_messages(&diags, color);
    1
}

/// Diagnostics as terraform's login and logout print them: each through
/// the command's message stream, which colours the whole message (red for
/// errors, yellow for warnings) and ends it with one more newline.
fn print_messages(diags: &[Diagnostic], color: bool) {
    let style = if color {
        RenderStyle::Color
    } else {
        RenderStyle::Plain
    };
    let mut sorted = diags.to_vec();
    crate::diag_output::sort_diags(&mut sorted);
    let mut err = std::io::stderr().lock();
    for diag in &sorted {
        let text = render_diagnostic(diag, &SourceMap::new(), style, DEFAULT_WIDTH);
        let wrapped = match (color, diag.is_error()) {
            (false, _) => format!("{text}\n"),
            (true, true) => format!("\x1b[31m{text}\x1b[0m\x1b[0m\n"),
            (true, false) => format!("\x1b[33m{text}\x1b[0m\x1b[0m\n"),
        };
        let _ = err.write_all(wrapped.as_bytes());
    }
    let _ = err.flush();
}

// ----- login -----

/// How the host lets terrace obtain a token.
enum Method {
    /// `login.v1`: an OAuth client using the authorization code grant.
    OAuth(OAuthClient),
    /// `tfe.v2`: a token made in the host's web interface, pasted here.
    TokensApi(String),
}

/// A `login.v1` description.
struct OAuthClient {
    client_id: String,
    authorization_url: String,
    token_url: String,
    grant_types: Vec<String>,
    min_port: u16,
    max_port: u16,
    scopes: Vec<String>,
}

impl OAuthClient {
    /// Reads a `login.v1` service description; the error says what is
    /// wrong with it.
    fn parse(value: &Json, base: &str) -> Result<OAuthClient, String> {
        let Some(object) = value.as_object() else {
            return Err("service description for login.v1 must be an object".into());
        };
        let text = |key: &str| object.get(key).and_then(Json::as_str).map(str::to_string);
        let client_id =
            text("client").ok_or("service description for login.v1 must have a client ID")?;
        let grant_types: Vec<String> = match object.get("grant_types") {
            Some(Json::Array(items)) => items
                .iter()
                .filter_map(Json::as_str)
                .map(str::to_string)
                .collect(),
            _ => vec!["authz_code".to_string()],
        };
        let url = |key: &str| -> Result<String, String> {
            let given = text(key)
                .ok_or_else(|| format!("service description for login.v1 must have a {key} URL"))?;
            Ok(resolve_url(base, &given))
        };
        let authorization_url = if grant_types.iter().any(|g| g == "authz_code") {
            url("authz")?
        } else {
            String::new()
        };
        let token_url = url("token")?;
        let (min_port, max_port) = match object.get("ports") {
            Some(Json::Array(ports)) => {
                let port = |i: usize| ports.get(i).and_then(Json::as_u64);
                match (ports.len(), port(0), port(1)) {
                    (2, Some(min), Some(max))
                        if (1024..=65535).contains(&min)
                            && (1024..=65535).contains(&max)
                            && min <= max =>
                    {
                        (min as u16, max as u16)
                    }
                    _ => {
                        return Err(
                            "service description for login.v1 must have ports as two unprivileged port numbers, the lowest first"
                                .into(),
                        )
                    }
                }
            }
            _ => (1024, 65535),
        };
        let scopes = match object.get("scopes") {
            Some(Json::Array(items)) => items
                .iter()
                .filter_map(Json::as_str)
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        };
        Ok(OAuthClient {
            client_id,
            authorization_url,
            token_url,
            grant_types,
            min_port,
            max_port,
            scopes,
        })
    }
}

/// `terrace login [HOST]`.
pub fn login(argv: &[String]) -> i32 {
    let env = CliEnv::from_process();
    let args = match parse_args(
        argv,
        &login_usage(&env),
        "The login command expects at most one argument: the host to log in to.",
    ) {
        Parsed::Run(args) => args,
        Parsed::Exit(code) => return code,
    };
    let (cli, cli_diags) = cliconfig::load(&env);
    print_cli_config_problems(&cli_diags);
    let color = args.color;
    if !args.input {
        return fail(
            vec![Diagnostic::error(
                "Login is an interactive command",
                format!("The \"{PRODUCT_COMMAND} login\" command uses interactive prompts to obtain and record credentials, so it can't be run with input disabled.\n\nTo configure credentials in a non-interactive context, write existing credentials directly to a CLI configuration file."),
            )],
            color,
        );
    }
    let host = match parse_host(&args.host) {
        Ok(h) => h,
        Err(d) => return fail(d, color),
    };
    let shown = host.for_display();
    let registry = match crate::workdir::registry_config(&cli, &env) {
        Ok(r) => r,
        Err(d) => return fail(d, color),
    };
    let http = Http::new(&registry.http);
    let discovery = RegistrySource::new(registry);
    let (document, base) = match discovery.discovery_document(&host) {
        Ok(found) => found,
        Err(e) => {
            return fail(
                vec![Diagnostic::error(
                    format!("Service discovery failed for {shown}"),
                    format!("{}.", discovery_error_text(&e)),
                )],
                color,
            )
        }
    };
    let store = CredentialsStore::new(&cli, &env);

    let mut diags: Diagnostics = Vec::new();
    let mut method = None;
    if let Some(description) = document.get("login.v1") {
        match OAuthClient::parse(description, &base) {
            Ok(client) => method = Some(Method::OAuth(client)),
            Err(e) => diags.push(Diagnostic::warning(
                format!("Host does not support {PRODUCT} login"),
                format!(
                    "The given hostname {} cannot support \"{PRODUCT_COMMAND} login\": {e}.",
                    quote(&shown)
                ),
            )),
        }
    }
    if method.is_none() {
        match document.get("tfe.v2").and_then(Json::as_str) {
            Some(url) => method = Some(Method::TokensApi(resolve_url(&base, url))),
            None => diags.push(Diagnostic::error(
                format!("Host does not support {PRODUCT} tokens API"),
                format!(
                    "The given hostname {} does not support creating {PRODUCT} authorization tokens.",
                    quote(&shown)
                ),
            )),
        }
    }
    match store.location(&host) {
        Location::OtherFile => diags.push(Diagnostic::error(
            format!("Credentials for {shown} are manually configured"),
            format!("The \"{PRODUCT_COMMAND} login\" command cannot log in because credentials for this host are already configured in a CLI configuration file.\n\nTo log in, first revoke the existing credentials and remove that block from the CLI configuration."),
        )),
        Location::Helper | Location::PrimaryFile | Location::NotAvailable => {}
    }
    if diags.iter().any(Diagnostic::is_error) {
        return fail(diags, color);
    }
    let Some(method) = method else {
        return fail(diags, color);
    };

    let token = match &method {
        Method::OAuth(client) => {
            if !client.grant_types.iter().any(|g| g == "authz_code") {
                diags.push(Diagnostic::error(
                    format!("Host does not support {PRODUCT} login"),
                    format!(
                        "The given hostname {} does not allow any OAuth grant types that are supported by this version of {PRODUCT}.",
                        quote(&shown)
                    ),
                ));
                return fail(diags, color);
            }
            token_by_code(&http, &host, client, &store, color)
        }
        Method::TokensApi(service) => token_by_paste(&http, &host, service, &store, color),
    };
    let token = match token {
        Ok(token) => token,
        Err(more) => {
            diags.extend(more);
            return fail(diags, color);
        }
    };
    if let Err(e) = store.save(&host, Some(&token)) {
        diags.push(Diagnostic::error(
            "Failed to save API token",
            format!("The given host returned an API token, but {PRODUCT} failed to save it: {e}."),
        ));
        return fail(diags, color);
    }
    if !diags.is_empty() {
        print_messages(&diags, color);
    }
    outln!("{SEPARATOR}");
    match method {
        Method::TokensApi(_) => outln!(
            "{}\n",
            colorize(
                &format!("[green][bold]Success![reset] [bold]Logged in to Terraform Enterprise ({shown})[reset]"),
                color
            )
        ),
        Method::OAuth(_) => outln!(
            "{}\n",
            colorize(
                &format!("[green][bold]Success![reset] [bold]{PRODUCT} has obtained and saved an API token.[reset]\n\nThe new API token will be used for any future {PRODUCT} command that must make\nauthenticated requests to {shown}."),
                color
            )
        ),
    }
    0
}

/// Service discovery's failure as a sentence about the host, first letter
/// capital, as terraform's discovery words its errors.
fn discovery_error_text(error: &SourceError) -> String {
    let text = match error {
        SourceError::HostUnreachable { message, .. } => message.clone(),
        other => other.to_string(),
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().collect::<String>() + chars.as_str(),
        None => text,
    }
}

/// Asks whether to go on, saying where the token will be kept; only
/// `yes` goes on.
fn consent(
    host: &Hostname,
    mechanism: &str,
    browser_note: bool,
    store: &CredentialsStore,
    color: bool,
) -> bool {
    let shown = host.for_display();
    outln!("{PRODUCT} will request an API token for {shown} using {mechanism}.\n");
    if browser_note {
        outln!("This will work only if you are able to use a web browser on this computer to\ncomplete a login process. If not, you must obtain an API token by another\nmeans and configure it in the CLI configuration manually.\n");
    }
    outln!("{}", store.storage_note(host, true));
    let answer = ask(
        "Do you want to proceed?",
        Some("Only 'yes' will be accepted to confirm."),
        false,
        color,
    );
    answer.as_deref().map(str::to_lowercase).as_deref() == Some("yes")
}

/// One question as terraform's input prompts ask it: the question in
/// bold, its description indented, then `Enter a value:`; a secret answer
/// is read with the terminal's echo off. `None` at the end of input.
fn ask(query: &str, description: Option<&str>, secret: bool, color: bool) -> Option<String> {
    let mut text = format!("[reset][bold]{query}[reset]\n");
    if let Some(description) = description {
        text.push_str(&format!("  {description}\n\n"));
    }
    text.push_str("  [bold]Enter a value:[reset] ");
    out!("{}", colorize(&text, color));
    let echo_off = secret.then(crate::prompt::EchoOff::new).flatten();
    let mut line = String::new();
    let read = std::io::stdin().lock().read_line(&mut line);
    drop(echo_off);
    if secret {
        outln!();
    }
    outln!();
    match read {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_string()),
    }
}

fn cancelled() -> Diagnostics {
    vec![Diagnostic::error(
        "Login cancelled",
        "Login process cancelled because it was not confirmed",
    )]
}

/// The token pasted by a person who made it in the host's web interface,
/// checked by asking the host's API whose it is.
fn token_by_paste(
    http: &Http,
    host: &Hostname,
    service: &str,
    store: &CredentialsStore,
    color: bool,
) -> Result<String, Diagnostics> {
    let shown = &host.for_display();
    if !consent(host, "your browser", false, store, color) {
        return Err(cancelled());
    }
    outln!("{SEPARATOR}");
    // The web interface is on the API's host, always over HTTPS.
    let api_host = service
        .split_once("://")
        .map_or(service, |(_, rest)| rest)
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default();
    let api_host = match api_host.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
        _ => api_host,
    };
    let tokens_url = format!("https://{api_host}/app/settings/tokens?source=terraform-login");
    if open_browser(&tokens_url) {
        outln!("{PRODUCT} must now open a web browser to the tokens page for {shown}.\n");
        outln!("If a browser does not open this automatically, open the following URL to proceed:\n    {tokens_url}\n");
    } else {
        outln!("Open the following URL to access the tokens page for {shown}:\n    {tokens_url}\n");
    }
    outln!("{SEPARATOR}");
    outln!("Generate a token using your browser, and copy-paste it into this prompt.\n");
    outln!("{}", store.storage_note(host, false));
    let Some(token) = ask(&format!("Token for {shown}:"), None, true, color) else {
        // Said in one line, as terraform says it.
        return Err(vec![Diagnostic::error("Failed to retrieve token: EOF", "")]);
    };
    let token = token.trim().to_string();
    let url = resolve_url(service, "account/details");
    let bearer = format!("Bearer {token}");
    let response = http
        .get_response(
            &url,
            &[
                ("Authorization", bearer.as_str()),
                ("Accept", "application/vnd.api+json"),
            ],
            MAX_RESPONSE_BYTES,
        )
        .map_err(|e| {
            vec![Diagnostic::error(
                "Failed to retrieve user account details",
                e,
            )]
        })?;
    match response.status {
        200 => {}
        401 => {
            return Err(vec![Diagnostic::error(
                "Token is invalid: unauthorized",
                "",
            )])
        }
        _ => {
            return Err(vec![Diagnostic::error(
                "Failed to retrieve user account details",
                format!("unexpected answer from {url}: {}", response.status_line),
            )])
        }
    }
    let username = serde_json::from_slice::<Json>(&response.body)
        .ok()
        .and_then(|doc| {
            doc.pointer("/data/attributes/username")
                .and_then(Json::as_str)
                .map(str::to_string)
        })
        .ok_or_else(|| {
            vec![Diagnostic::error(
                "Failed to retrieve user account details",
                format!("the answer from {url} names no user"),
            )]
        })?;
    outln!(
        "{}",
        colorize(
            &format!("\nRetrieved token for user [bold]{username}[reset]\n"),
            color
        )
    );
    Ok(token)
}

/// OAuth's authorization code grant with a PKCE proof key: the person
/// logs in with a browser, the host sends the browser back to a temporary
/// server here with a code, and the code and the proof key buy the token.
fn token_by_code(
    http: &Http,
    host: &Hostname,
    client: &OAuthClient,
    store: &CredentialsStore,
    color: bool,
) -> Result<String, Diagnostics> {
    let shown = &host.for_display();
    if !consent(host, "OAuth", true, store, color) {
        return Err(cancelled());
    }
    let state = random_uuid().map_err(|e| {
        vec![Diagnostic::error(
            "Can't generate login request state",
            format!("Cannot generate random request identifier for login request: {e}."),
        )]
    })?;
    let (proof_key, challenge) = proof_key().map_err(|e| {
        vec![Diagnostic::error(
            "Can't generate login request state",
            format!("Cannot generate random proof key for login request: {e}."),
        )]
    })?;
    let Some((listener, callback_url)) = callback_listener(client.min_port, client.max_port) else {
        return Err(vec![Diagnostic::error(
            "Can't start temporary login server",
            format!(
                "The login process uses OAuth, which requires starting a temporary HTTP server on localhost. However, no TCP port numbers between {} and {} are available to create such a server.",
                client.min_port, client.max_port
            ),
        )]);
    };
    let mut query: Vec<(&str, String)> = vec![
        ("client_id", client.client_id.clone()),
        ("code_challenge", challenge),
        ("code_challenge_method", "S256".into()),
        ("redirect_uri", callback_url.clone()),
        ("response_type", "code".into()),
    ];
    if !client.scopes.is_empty() {
        query.push(("scope", client.scopes.join(" ")));
    }
    query.push(("state", state.clone()));
    let separator = if client.authorization_url.contains('?') {
        '&'
    } else {
        '?'
    };
    let authorization_url = format!(
        "{}{separator}{}",
        client.authorization_url,
        form_encode(&query)
    );
    if open_browser(&authorization_url) {
        outln!("{PRODUCT} must now open a web browser to the login page for {shown}.\n");
        outln!("If a browser does not open this automatically, open the following URL to proceed:\n    {authorization_url}\n");
    } else {
        outln!("Open the following URL to access the login page for {shown}:\n    {authorization_url}\n");
    }
    outln!("{PRODUCT} will now wait for the host to signal that login was successful.\n");
    let code = wait_for_code(&listener, &state);
    let form = form_encode(&[
        ("client_id", client.client_id.clone()),
        ("code", code),
        ("code_verifier", proof_key),
        ("grant_type", "authorization_code".into()),
        ("redirect_uri", callback_url),
    ]);
    let no_token = |message: String| {
        vec![Diagnostic::error(
            "Failed to obtain auth token",
            format!("The remote server did not assign an auth token: {message}."),
        )]
    };
    let response = http
        .post_form(&client.token_url, &form, MAX_RESPONSE_BYTES)
        .map_err(|e| no_token(format!("oauth2: cannot fetch token: {e}")))?;
    if !(200..300).contains(&response.status) {
        return Err(no_token(format!(
            "oauth2: cannot fetch token: {}\nResponse: {}",
            response.status_line,
            String::from_utf8_lossy(&response.body)
        )));
    }
    // A token endpoint answers JSON, or, in older servers, a form.
    let is_form = response.header("content-type").is_some_and(|t| {
        t.starts_with("application/x-www-form-urlencoded") || t.starts_with("text/plain")
    });
    let token = if is_form {
        parse_query(&String::from_utf8_lossy(&response.body))
            .into_iter()
            .find(|(k, _)| k == "access_token")
            .map(|(_, v)| v)
    } else {
        serde_json::from_slice::<Json>(&response.body)
            .ok()
            .and_then(|doc| {
                doc.get("access_token")
                    .and_then(Json::as_str)
                    .map(str::to_string)
            })
    };
    match token.filter(|t| !t.is_empty()) {
        Some(token) => Ok(token),
        None => Err(no_token(
            "oauth2: server response missing access_token".into(),
        )),
    }
}

/// Opens `url` in the desktop's browser; whether that worked.
fn open_browser(url: &str) -> bool {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A listener on 127.0.0.1 at a port of the client's range, tried at
/// random, and the callback URL that names it.
fn callback_listener(min: u16, max: u16) -> Option<(TcpListener, String)> {
    let count = u32::from(max - min).max(1);
    for _ in 0..(count + count / 2).max(1) {
        let offset = random_u64().ok()? % u64::from(count);
        let port = min + offset as u16;
        if let Ok(listener) = TcpListener::bind(("127.0.0.1", port)) {
            // No slash at the end: some OAuth servers refuse callback URLs
            // that end with one.
            return Some((listener, format!("http://localhost:{port}/login")));
        }
    }
    None
}

/// Answers requests to the callback server until one carries the
/// expected state and a code; others get 400.
fn wait_for_code(listener: &TcpListener, state: &str) -> String {
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        let Some(target) = read_request_target(&stream) else {
            continue;
        };
        let query = target.split_once('?').map_or("", |(_, q)| q);
        let params = parse_query(query);
        let get = |name: &str| {
            params
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        let code = get("code");
        if get("state") != state || code.is_empty() {
            let _ = stream.write_all(
                b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
            continue;
        }
        let page = callback_page();
        let _ = stream.write_all(
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            )
            .as_bytes(),
        );
        return code;
    }
    String::new()
}

/// The page the browser shows once the code has arrived.
fn callback_page() -> String {
    format!(
        "<html>\n<head>\n<title>{PRODUCT} login</title>\n</head>\n<body>\n<p>{PRODUCT} has received the login code from the host.</p>\n<p>Close this page and return to the terminal where <tt>{PRODUCT_COMMAND} login</tt> is running to see how the login ended.</p>\n</body>\n</html>\n"
    )
}

/// The request line's target of one HTTP request on `stream`, the rest
/// of the request read and ignored.
fn read_request_target(stream: &TcpStream) -> Option<String> {
    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(30)));
    let mut reader = std::io::BufReader::new(stream.try_clone().ok()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).ok()?;
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if line == "\r\n" || line == "\n" => break,
            Ok(_) => {}
        }
    }
    request_line.split_whitespace().nth(1).map(str::to_string)
}

/// `application/x-www-form-urlencoded`, as Go's `url.Values.Encode` writes
/// it for pairs already in key order.
fn form_encode(pairs: &[(&str, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", query_escape(k), query_escape(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// The pairs of a query string, decoded; a broken escape is kept as it is.
fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (query_unescape_lenient(k), query_unescape_lenient(v))
        })
        .collect()
}

fn random_bytes<const N: usize>() -> std::io::Result<[u8; N]> {
    let mut bytes = [0u8; N];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes)
}

fn random_u64() -> std::io::Result<u64> {
    Ok(u64::from_le_bytes(random_bytes::<8>()?))
}

/// 128 random bits in the UUID layout (not a versioned UUID), as
/// terraform's request state is.
fn random_uuid() -> std::io::Result<String> {
    let b = random_bytes::<16>()?;
    let hex = |range: std::ops::Range<usize>| {
        b[range]
            .iter()
            .map(|x| format!("{x:02x}"))
            .collect::<String>()
    };
    Ok(format!(
        "{}-{}-{}-{}-{}",
        hex(0..4),
        hex(4..6),
        hex(6..8),
        hex(8..10),
        hex(10..16)
    ))
}

/// The PKCE proof key (a random UUID-shaped string and a random number)
/// and its S256 challenge: the SHA-256 of the key, base64url without
/// padding.
fn proof_key() -> std::io::Result<(String, String)> {
    let key = format!("{}.{:09}", random_uuid()?, random_u64()? % 999_999_999);
    let digest = terrace_getproviders::hash::sha256_reader(&mut key.as_bytes())?;
    let challenge = terrace_getproviders::hash::base64_std(&digest)
        .trim_end_matches('=')
        .replace('+', "-")
        .replace('/', "_");
    Ok((key, challenge))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_strings_encode_and_decode_as_go_does() {
        assert_eq!(
            form_encode(&[("redirect_uri", "http://localhost:10003/login".into())]),
            "redirect_uri=http%3A%2F%2Flocalhost%3A10003%2Flogin"
        );
        assert_eq!(query_escape("a b~"), "a+b~");
        assert_eq!(
            parse_query("code=a%2Fb+c&state=x&bad=%zz&end=%4"),
            vec![
                ("code".to_string(), "a/b c".to_string()),
                ("state".to_string(), "x".to_string()),
                ("bad".to_string(), "%zz".to_string()),
                ("end".to_string(), "%4".to_string()),
            ]
        );
    }

    #[test]
    fn the_proof_key_challenge_is_its_sha256_in_base64url() {
        let (key, challenge) = proof_key().expect("random bytes");
        assert!(key.len() > 36 && key.contains('.'), "{key}");
        assert_eq!(challenge.len(), 43);
        assert!(!challenge.contains(['+', '/', '=']), "{challenge}");
    }

    #[test]
    fn login_descriptions_are_checked() {
        let base = "https://example.com/.well-known/terraform.json";
        let ok = serde_json::json!({"client": "c", "authz": "/a", "token": "/t", "ports": [10000, 10010]});
        let client = OAuthClient::parse(&ok, base).expect("valid");
        assert_eq!(client.authorization_url, "https://example.com/a");
        assert_eq!((client.min_port, client.max_port), (10000, 10010));
        for bad in [
            serde_json::json!("https://example.com/login"),
            serde_json::json!({"authz": "/a", "token": "/t"}),
            serde_json::json!({"client": "c", "authz": "/a", "token": "/t", "ports": [80, 90]}),
        ] {
            assert!(OAuthClient::parse(&bad, base).is_err(), "{bad}");
        }
    }
}
