//! Provider source addresses (fully-qualified names): `hostname/namespace/
//! type`, parsed from a `required_providers` `source` with OpenTofu's rules
//! and error texts, and the service hostnames they start with.
//!
//! The default registry host is `registry.terraform.io`, as in Terraform,
//! so state files and local mirrors written by Terraform line up. OpenTofu's
//! own default, `registry.opentofu.org`, names the same providers (its
//! registry mirrors the same namespaces): every [`Provider`] is normalised
//! on construction so that it never holds `registry.opentofu.org`, which
//! makes `registry.opentofu.org/hashicorp/aws` and `hashicorp/aws` the same
//! key. [`Provider::is_default_registry`] tells whether an address is on
//! that shared default registry; which network registry serves it is the
//! installer's decision.

use std::fmt;
use std::sync::{Arc, LazyLock};
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::gostr;

use idna::uts46::{AsciiDenyList, DnsLength, Hyphens, Uts46};
use unicode_normalization::UnicodeNormalization;

/// The registry that source addresses without a hostname refer to.
pub const DEFAULT_REGISTRY_HOST: &str = "registry.terraform.io";
/// OpenTofu's registry; normalised to [`DEFAULT_REGISTRY_HOST`].
pub const OPENTOFU_REGISTRY_HOST: &str = "registry.opentofu.org";
/// The pseudo-host of built-in providers (`terraform.io/builtin/terraform`).
pub const BUILTIN_PROVIDER_HOST: &str = "terraform.io";
/// OpenTofu's reserved host for its own future built-in providers.
pub const OPENTOFU_BUILTIN_PROVIDER_HOST: &str = "opentofu.org";
/// The namespace of built-in providers.
pub const BUILTIN_NAMESPACE: &str = "builtin";
/// The namespace of pre-0.13 state's legacy provider addresses.
pub const LEGACY_NAMESPACE: &str = "-";
/// The namespace implied for a source or type given without one.
pub const DEFAULT_NAMESPACE: &str = "hashicorp";

static DEFAULT_HOST: LazyLock<Hostname> =
    LazyLock::new(|| Hostname(Arc::from(DEFAULT_REGISTRY_HOST)));
static BUILTIN_HOST: LazyLock<Hostname> =
    LazyLock::new(|| Hostname(Arc::from(BUILTIN_PROVIDER_HOST)));
static HASHICORP: LazyLock<Arc<str>> = LazyLock::new(|| Arc::from(DEFAULT_NAMESPACE));
static BUILTIN: LazyLock<Arc<str>> = LazyLock::new(|| Arc::from(BUILTIN_NAMESPACE));
static LEGACY: LazyLock<Arc<str>> = LazyLock::new(|| Arc::from(LEGACY_NAMESPACE));

const UTS46: Uts46 = Uts46::new();

/// A service hostname in its comparison form (svchost's `Hostname`):
/// lowercase, Punycode for non-ASCII labels, a port only when not 443.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hostname(Arc<str>);

impl Hostname {
    /// svchost's `ForComparison`: validates a user-given hostname (with an
    /// optional port) and normalises it. The error text is svchost's.
    pub fn for_comparison(given: &str) -> Result<Hostname, String> {
        let (host, port) = match given.find(':') {
            Some(i) => given.split_at(i),
            None => (given, ""),
        };
        let port = match normalize_port(port) {
            Ok(port) => port,
            Err(e) => {
                let lower = host.to_lowercase();
                if lower == "https" || lower == "http" {
                    return Err(
                        "need just a hostname and optional port number, not a full URL".into(),
                    );
                }
                return Err(e.into());
            }
        };
        if host.is_empty() {
            return Err("empty string is not a valid hostname".into());
        }
        for label in go_labels(host) {
            if label.is_empty() {
                return Err("hostname contains empty label (two consecutive periods)".into());
            }
            if label.starts_with("xn--") {
                return Err(format!(
                    "hostname label {} specified in punycode format; service hostnames must be given in unicode",
                    gostr::quote(label)
                ));
            }
        }
        match UTS46.to_ascii(
            host.as_bytes(),
            AsciiDenyList::STD3,
            Hyphens::CheckFirstLast,
            DnsLength::Ignore,
        ) {
            Ok(ascii) => Ok(Hostname(Arc::from(format!("{ascii}{port}")))),
            Err(_) => Err(idna_error(host)),
        }
    }

    /// The hostname of the default provider registry.
    pub fn default_registry() -> Hostname {
        DEFAULT_HOST.clone()
    }

    /// The pseudo-hostname of built-in providers.
    pub fn builtin() -> Hostname {
        BUILTIN_HOST.clone()
    }

    /// The comparison form, as stored.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The form for people: Punycode labels shown as Unicode.
    pub fn for_display(&self) -> String {
        let (host, port) = match self.0.find(':') {
            Some(i) => self.0.split_at(i),
            None => (&*self.0, ""),
        };
        if !host.contains("xn--") {
            return self.0.to_string();
        }
        let (unicode, result) = UTS46.to_unicode(
            host.as_bytes(),
            AsciiDenyList::STD3,
            Hyphens::CheckFirstLast,
        );
        match result {
            Ok(()) => format!("{unicode}{port}"),
            Err(_) => self.0.to_string(),
        }
    }

    fn is(&self, host: &str) -> bool {
        &*self.0 == host
    }
}

impl fmt::Display for Hostname {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.for_display())
    }
}

/// svchost's port rule: digits (Go's `Atoi`, so a sign is accepted) up to
/// 65535, with `:443` dropped as the default.
fn normalize_port(port: &str) -> Result<String, &'static str> {
    if port.is_empty() {
        return Ok(String::new());
    }
    let digits = &port[1..];
    let (negative, unsigned) = match digits.as_bytes().first() {
        Some(b'-') => (true, &digits[1..]),
        Some(b'+') => (false, &digits[1..]),
        _ => (false, digits),
    };
    if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit()) {
        return Err("port portion contains non-digit characters");
    }
    let magnitude: i128 = match unsigned.trim_start_matches('0') {
        "" => 0,
        d if d.len() > 19 => return Err("port portion contains non-digit characters"),
        d => d
            .parse()
            .map_err(|_| "port portion contains non-digit characters")?,
    };
    let num = if negative { -magnitude } else { magnitude };
    if num < i128::from(i64::MIN) || num > i128::from(i64::MAX) {
        return Err("port portion contains non-digit characters");
    }
    if num == 443 {
        return Ok(String::new());
    }
    if num > 65535 {
        return Err("port number is greater than 65535");
    }
    Ok(format!(":{num}"))
}

/// The labels of `host` as Go's IDNA label iterator yields them: split at
/// dots, except that a final dot (even after an empty label) ends the name.
fn go_labels(host: &str) -> Vec<&str> {
    let bytes = host.as_bytes();
    let mut labels = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let end = host[start..].find('.').map_or(bytes.len(), |p| start + p);
        labels.push(&host[start..end]);
        start = end + 1;
        if start + 1 == bytes.len() && bytes[start] == b'.' {
            break;
        }
    }
    labels
}

/// The message Go's IDNA lookup profile gives for `host`: the first
/// disallowed character, else the first label breaking a label rule
/// (hyphens, joiners, a leading combining mark), else the whole name (the
/// bidi rule spans labels). Labels are quoted as mapped (lowercased,
/// NFC), with the offending characters intact.
fn idna_error(host: &str) -> String {
    if let Some(c) = host.chars().find(|&c| c != '.' && is_disallowed(c)) {
        return format!("idna: disallowed rune U+{:04X}", c as u32);
    }
    let mapped: String = host
        .chars()
        .map(|c| {
            let mut buf = [0u8; 4];
            let (m, result) = UTS46.to_unicode(
                c.encode_utf8(&mut buf).as_bytes(),
                AsciiDenyList::EMPTY,
                Hyphens::Allow,
            );
            match result {
                Ok(()) => m.into_owned(),
                Err(_) => c.to_string(),
            }
        })
        .collect::<String>()
        .nfc()
        .collect();
    for label in mapped.split('.') {
        let (_, result) = UTS46.to_unicode(
            label.as_bytes(),
            AsciiDenyList::STD3,
            Hyphens::CheckFirstLast,
        );
        if result.is_err() {
            return format!("idna: invalid label {}", gostr::quote(label));
        }
    }
    format!("idna: invalid label {}", gostr::quote(&mapped))
}

/// True for a character the lookup mapping rejects on its own. The joiners
/// are valid characters that only fail in context; a character that fails
/// alone but not after a letter is a combining mark, also valid.
fn is_disallowed(c: char) -> bool {
    if c == '\u{200c}' || c == '\u{200d}' {
        return false;
    }
    let ok = |s: &str| {
        UTS46
            .to_unicode(s.as_bytes(), AsciiDenyList::STD3, Hyphens::Allow)
            .1
            .is_ok()
    };
    !ok(&c.to_string()) && !ok(&format!("a{c}"))
}

/// Why a namespace or type name is invalid (OpenTofu's `ParseProviderPart`
/// errors).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidProviderPart(&'static str);

impl fmt::Display for InvalidProviderPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for InvalidProviderPart {}

/// OpenTofu's `ParseProviderPart`: a namespace or type name treated like a
/// DNS label, so lowercased and NFC-normalised by IDNA's lookup mapping and
/// limited to letters, digits and inner single dashes. Normalising a
/// normalised name gives it back unchanged.
pub fn parse_provider_part(given: &str) -> Result<String, InvalidProviderPart> {
    if given.is_empty() {
        return Err(InvalidProviderPart("must have at least one character"));
    }
    if given.contains('.') {
        return Err(InvalidProviderPart("dots are not allowed"));
    }
    // Also keeps out the Punycode prefix `xn--`.
    if given.contains("--") {
        return Err(InvalidProviderPart(
            "cannot use multiple consecutive dashes",
        ));
    }
    let (result, ok) = UTS46.to_unicode(
        given.as_bytes(),
        AsciiDenyList::STD3,
        Hyphens::CheckFirstLast,
    );
    match ok {
        Ok(()) => Ok(result.into_owned()),
        Err(_) => Err(InvalidProviderPart(
            "must contain only letters, digits, and dashes, and may not use leading or trailing dashes",
        )),
    }
}

/// A provider type's fully-qualified name. Namespace and type are
/// normalised ([`parse_provider_part`]) except in legacy addresses, and the
/// hostname is never `registry.opentofu.org` (see the module docs), so the
/// derived equality is address equality. The derived order is OpenTofu's
/// `LessThan`: hostname, namespace, type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Provider {
    hostname: Hostname,
    namespace: Arc<str>,
    type_name: Arc<str>,
}

impl Provider {
    /// OpenTofu's `NewProvider`, fallible where OpenTofu panics: the
    /// namespace and type must be valid provider parts (so the legacy `-`
    /// namespace is refused; see [`Provider::new_legacy`]).
    pub fn new(
        hostname: Hostname,
        namespace: &str,
        type_name: &str,
    ) -> Result<Provider, InvalidProviderPart> {
        let namespace = parse_provider_part(namespace)?;
        let type_name = parse_provider_part(type_name)?;
        Ok(Provider {
            hostname: normalize_registry_host(hostname),
            namespace: Arc::from(namespace),
            type_name: Arc::from(type_name),
        })
    }

    /// OpenTofu's `NewDefaultProvider`: `registry.terraform.io/hashicorp/TYPE`.
    pub fn new_default(type_name: &str) -> Result<Provider, InvalidProviderPart> {
        Ok(Provider {
            hostname: Hostname::default_registry(),
            namespace: HASHICORP.clone(),
            type_name: Arc::from(parse_provider_part(type_name)?),
        })
    }

    /// OpenTofu's `NewBuiltInProvider`: `terraform.io/builtin/TYPE`.
    pub fn new_builtin(type_name: &str) -> Result<Provider, InvalidProviderPart> {
        Ok(Provider {
            hostname: Hostname::builtin(),
            namespace: BUILTIN.clone(),
            type_name: Arc::from(parse_provider_part(type_name)?),
        })
    }

    /// OpenTofu's `NewLegacyProvider`: `registry.terraform.io/-/TYPE`, with
    /// the type kept verbatim, as pre-0.13 state wrote it.
    pub fn new_legacy(type_name: &str) -> Provider {
        Provider {
            hostname: Hostname::default_registry(),
            namespace: LEGACY.clone(),
            type_name: Arc::from(type_name),
        }
    }

    /// OpenTofu's `ImpliedProviderForUnqualifiedType`: the provider a bare
    /// type name (a `required_providers`-less local name, or a resource
    /// type's prefix) means: `terraform` is the built-in provider, anything
    /// else `hashicorp/TYPE` on the default registry.
    pub fn implied_for_unqualified_type(type_name: &str) -> Result<Provider, InvalidProviderPart> {
        if type_name == "terraform" {
            Provider::new_builtin(type_name)
        } else {
            Provider::new_default(type_name)
        }
    }

    /// OpenTofu's `ParseProviderSourceString`: `TYPE`, `NAMESPACE/TYPE` or
    /// `HOST/NAMESPACE/TYPE` as written in `required_providers`, with the
    /// default host and namespace filled in. Errors are one diagnostic with
    /// OpenTofu's summary and detail and no subject (the caller knows where
    /// the string came from).
    pub fn parse_source_str(source: &str) -> Result<Provider, Diagnostics> {
        parse_source(source).map_err(|(summary, detail)| vec![Diagnostic::error(summary, detail)])
    }

    pub fn hostname(&self) -> &Hostname {
        &self.hostname
    }

    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    pub fn type_name(&self) -> &str {
        &self.type_name
    }

    /// On the default registry (which is also OpenTofu's registry).
    pub fn is_default_registry(&self) -> bool {
        self.hostname.is(DEFAULT_REGISTRY_HOST)
    }

    /// OpenTofu's `IsDefaultProvider`: `hashicorp/*` on the default registry.
    pub fn is_default(&self) -> bool {
        self.is_default_registry() && &*self.namespace == DEFAULT_NAMESPACE
    }

    /// Included in the executable rather than installed (`terraform.io/
    /// builtin/*`, or OpenTofu's reserved `opentofu.org/builtin/*`).
    pub fn is_builtin(&self) -> bool {
        (self.hostname.is(BUILTIN_PROVIDER_HOST)
            || self.hostname.is(OPENTOFU_BUILTIN_PROVIDER_HOST))
            && &*self.namespace == BUILTIN_NAMESPACE
    }

    /// A pre-0.13 address (`registry.terraform.io/-/TYPE`).
    pub fn is_legacy(&self) -> bool {
        self.is_default_registry() && &*self.namespace == LEGACY_NAMESPACE
    }

    /// OpenTofu's `LegacyString`: the bare type of a legacy or built-in
    /// address; none for others (where OpenTofu panics).
    pub fn legacy_string(&self) -> Option<&str> {
        if &*self.namespace == LEGACY_NAMESPACE || &*self.namespace == BUILTIN_NAMESPACE {
            Some(&self.type_name)
        } else {
            None
        }
    }

    /// OpenTofu's `ForDisplay`: the FQN without the default registry host
    /// (`hashicorp/aws`, `example.com/ns/t`).
    pub fn for_display(&self) -> String {
        if self.is_default_registry() {
            format!("{}/{}", self.namespace, self.type_name)
        } else {
            self.to_string()
        }
    }
}

/// The full FQN (OpenTofu's `String`): `registry.terraform.io/hashicorp/aws`.
impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}/{}",
            self.hostname.for_display(),
            self.namespace,
            self.type_name
        )
    }
}

/// [`Provider::parse_source_str`].
impl std::str::FromStr for Provider {
    type Err = Diagnostics;

    fn from_str(s: &str) -> Result<Provider, Diagnostics> {
        Provider::parse_source_str(s)
    }
}

fn normalize_registry_host(hostname: Hostname) -> Hostname {
    if hostname.is(OPENTOFU_REGISTRY_HOST) {
        Hostname::default_registry()
    } else {
        hostname
    }
}

type ParseError = (&'static str, String);

const SOURCE_FORMAT: &str =
    "The \"source\" attribute must be in the format \"[hostname/][namespace/]name\"";

/// The parts of a source string with the type normalised (registry-address's
/// `parseSourceStringParts`).
fn source_parts(source: &str) -> Result<Vec<String>, ParseError> {
    let mut parts: Vec<String> = source.split('/').map(str::to_string).collect();
    if parts.len() > 3 || parts.iter().any(String::is_empty) {
        return Err(("Invalid provider source string", SOURCE_FORMAT.into()));
    }
    let last = parts.len() - 1;
    match parse_provider_part(&parts[last]) {
        Ok(name) => parts[last] = name,
        Err(e) => {
            return Err((
                "Invalid provider type",
                format!(
                    "Invalid provider type {} in source {}: {e}\"",
                    gostr::quote(&parts[last]),
                    gostr::quote(source)
                ),
            ))
        }
    }
    Ok(parts)
}

/// registry-address's `ParseProviderSource` followed by OpenTofu's default
/// namespace, with terrace's default host.
fn parse_source(source: &str) -> Result<Provider, ParseError> {
    let parts = source_parts(source)?;
    let type_name = parts[parts.len() - 1].clone();
    if parts.len() == 1 {
        // A bare type skips the prefix checks below, as in OpenTofu.
        return Ok(Provider {
            hostname: Hostname::default_registry(),
            namespace: HASHICORP.clone(),
            type_name: Arc::from(type_name),
        });
    }
    let given_namespace = &parts[parts.len() - 2];
    let namespace = if given_namespace == LEGACY_NAMESPACE {
        LEGACY_NAMESPACE.to_string()
    } else {
        match parse_provider_part(given_namespace) {
            Ok(ns) => ns,
            // OpenTofu quotes the (empty) failed result, not the input.
            Err(e) => {
                return Err((
                    "Invalid provider namespace",
                    format!(
                        "Invalid provider namespace \"\" in source {}: {e}\"",
                        gostr::quote(source)
                    ),
                ))
            }
        }
    };
    let mut hostname = Hostname::default_registry();
    if parts.len() == 3 {
        match Hostname::for_comparison(&parts[0]) {
            Ok(h) => hostname = normalize_registry_host(h),
            Err(e) => {
                return Err((
                    "Invalid provider source hostname",
                    format!(
                        "Invalid provider source hostname namespace \"\" in source {}: {e}\"",
                        gostr::quote(source)
                    ),
                ))
            }
        }
    }
    let ret = Provider {
        hostname,
        namespace: Arc::from(namespace),
        type_name: Arc::from(type_name),
    };
    if &*ret.namespace == LEGACY_NAMESPACE && !ret.is_default_registry() {
        return Err((
            "Invalid provider namespace",
            format!(
                "The legacy provider namespace \"-\" can be used only with hostname {DEFAULT_REGISTRY_HOST}."
            ),
        ));
    }
    check_redundant_prefix(&ret)?;
    Ok(ret)
}

/// Type names starting `terraform-` or `opentofu-` are refused, with a
/// suggestion when the rest after `…-provider-` would be a valid type (a
/// repository or executable name used by mistake).
fn check_redundant_prefix(ret: &Provider) -> Result<(), ParseError> {
    const PREFIXES: [(&str, &str, &str, &str); 2] = [
        (
            "terraform-",
            "terraform-provider-",
            "often used in the names of version control repositories for Terraform providers",
            "a Terraform provider",
        ),
        (
            "opentofu-",
            "opentofu-provider-",
            "sometimes used in the names of version control repositories for OpenTofu providers",
            "an OpenTofu provider",
        ),
    ];
    for (redundant, user_error, repo_note, noun) in PREFIXES {
        if !ret.type_name.starts_with(redundant) {
            continue;
        }
        if let Some(suggested) = ret.type_name.strip_prefix(user_error) {
            if parse_provider_part(suggested).is_ok() {
                let suggestion = Provider {
                    type_name: Arc::from(suggested),
                    ..ret.clone()
                };
                return Err((
                    "Invalid provider type",
                    format!(
                        "Provider source {} has a type with the prefix {}, which isn't valid. Although that prefix is {repo_note}, provider source strings should not include it.\n\nDid you mean {}?",
                        gostr::quote(&ret.for_display()),
                        gostr::quote(user_error),
                        gostr::quote(&suggestion.for_display())
                    ),
                ));
            }
        }
        return Err((
            "Invalid provider type",
            format!(
                "Provider source {} has a type with the prefix {}, which isn't allowed because it would be redundant to name {noun} with that prefix. If you are the author of this provider, rename it to not include the prefix.",
                gostr::quote(&ret.to_string()),
                gostr::quote(redundant)
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
