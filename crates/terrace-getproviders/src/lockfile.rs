//! The dependency lock file, `.terraform.lock.hcl`: which version of each
//! provider was selected, the constraints it was selected under, and the
//! checksums its packages must match.
//!
//! Reading follows OpenTofu's `depsfile` rules and diagnostics (canonical
//! addresses, versions and constraints are required, so that diffs of the
//! file only ever show real changes). Writing produces exactly the bytes
//! Terraform writes: the two header comments, one block per provider in
//! address order, `version`/`constraints` aligned, hashes sorted one per
//! line with trailing commas.

use crate::constraints::VersionConstraints;
use crate::hash::Hash;
use crate::hclbody::{self, Schema};
use crate::version::Version;
use crate::PRODUCT;
use std::collections::BTreeMap;
use std::path::Path;
use terrace_addrs::Provider;
use terrace_syntax::ast::{Block, SourceFile};
use terrace_syntax::{Diagnostic, Diagnostics, Span};
use terrace_value::gostr::quote;

/// The lock file's name in the working directory.
pub const LOCK_FILE_NAME: &str = ".terraform.lock.hcl";

/// One provider's lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderLock {
    pub provider: Provider,
    pub version: Version,
    pub constraints: VersionConstraints,
    /// Sorted, without duplicates.
    hashes: Vec<Hash>,
}

impl ProviderLock {
    /// Sorts and de-duplicates `hashes`, as the file lists them.
    pub fn new(
        provider: Provider,
        version: Version,
        constraints: VersionConstraints,
        mut hashes: Vec<Hash>,
    ) -> ProviderLock {
        hashes.sort();
        hashes.dedup();
        ProviderLock {
            provider,
            version,
            constraints,
            hashes,
        }
    }

    pub fn hashes(&self) -> &[Hash] {
        &self.hashes
    }

    /// The hashes terrace can check a package against (`h1:` and `zh:`).
    pub fn preferred_hashes(&self) -> Vec<Hash> {
        self.hashes
            .iter()
            .filter(|h| h.scheme() != crate::hash::HashScheme::Other)
            .cloned()
            .collect()
    }
}

/// Whether a provider can have a lock: built-in and legacy (`-`
/// namespace) providers cannot.
pub fn provider_is_lockable(p: &Provider) -> bool {
    !p.is_builtin() && !p.is_legacy()
}

/// The locks of one working directory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Locks {
    providers: BTreeMap<Provider, ProviderLock>,
    /// Read from a file where some provider's hashes were not sorted (or
    /// repeated): the same selections, but a file terraform rewrites.
    hashes_out_of_order: bool,
}

impl Locks {
    pub fn new() -> Locks {
        Locks::default()
    }

    pub fn provider(&self, p: &Provider) -> Option<&ProviderLock> {
        self.providers.get(p)
    }

    /// In address order (hostname, namespace, type), as the file lists
    /// them.
    pub fn providers(&self) -> impl Iterator<Item = &ProviderLock> {
        self.providers.values()
    }

    pub fn set_provider(&mut self, lock: ProviderLock) {
        self.providers.insert(lock.provider.clone(), lock);
    }

    pub fn remove_provider(&mut self, p: &Provider) {
        self.providers.remove(p);
    }

    /// The same providers at the same versions with the same checksums;
    /// constraints aside, as terraform compares locks: a lock file whose
    /// only difference is in the constraints is neither reported as
    /// changed nor rewritten.
    pub fn same_selections(&self, other: &Locks) -> bool {
        self.providers.len() == other.providers.len()
            && self.providers.iter().all(|(p, lock)| {
                other
                    .providers
                    .get(p)
                    .is_some_and(|o| o.version == lock.version && o.hashes == lock.hashes)
            })
    }

    /// Whether the file these locks were read from lists each provider's
    /// hashes as they are written: sorted, once each.
    pub fn written_in_order(&self) -> bool {
        !self.hashes_out_of_order
    }

    pub fn is_empty(&self) -> bool {
        self.providers.is_empty()
    }

    /// Reads the lock file at `path`. A missing file is no locks and no
    /// diagnostics (the first `init`); any other read error is reported.
    pub fn load(path: &Path) -> (Locks, Diagnostics) {
        match std::fs::read(path) {
            Ok(bytes) => {
                let name = path.to_string_lossy();
                match String::from_utf8(bytes) {
                    Ok(text) => Locks::parse(&text, &name),
                    Err(_) => (
                        Locks::new(),
                        vec![Diagnostic::error(
                            "Invalid UTF-8",
                            format!("The file {name} is not valid UTF-8."),
                        )],
                    ),
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Locks::new(), Vec::new()),
            Err(_) => (
                Locks::new(),
                vec![Diagnostic::error(
                    "Failed to read file",
                    format!(
                        "The configuration file {} could not be read.",
                        quote(&path.to_string_lossy())
                    ),
                )],
            ),
        }
    }

    /// Parses lock file text; `filename` is used in diagnostics. The locks
    /// returned with error diagnostics hold whatever was valid.
    pub fn parse(text: &str, filename: &str) -> (Locks, Diagnostics) {
        let (file, mut diags) = terrace_syntax::parse_native_file(filename, text);
        let mut locks = Locks::new();
        let Some(body) = hclbody::native(&file.body) else {
            return (locks, diags);
        };
        let schema = Schema {
            attrs: &[],
            blocks: &[("provider", &["source_addr"]), ("module", &["path"])],
        };
        let (content, more) = hclbody::content(body, &file.source, &schema);
        diags.extend(more);
        let mut seen: BTreeMap<Provider, terrace_syntax::SourceRange> = BTreeMap::new();
        let mut warned_module = false;
        for block in content.blocks {
            match block.block_type.as_str() {
                "provider" => {
                    let (lock, more) = decode_provider_block(block, &file.source);
                    diags.extend(more);
                    let Some((lock, in_order)) = lock else {
                        continue;
                    };
                    locks.hashes_out_of_order |= !in_order;
                    if let Some(previous) = seen.get(&lock.provider) {
                        diags.push(
                            Diagnostic::error(
                                "Duplicate provider lock",
                                format!(
                                    "This lockfile already declared a lock for provider {} at {previous}.",
                                    lock.provider
                                ),
                            )
                            .with_subject(file.source.range(block.type_span)),
                        );
                        continue;
                    }
                    seen.insert(lock.provider.clone(), def_range(block, &file.source));
                    locks.set_provider(lock);
                }
                _ => {
                    if !warned_module {
                        warned_module = true;
                        diags.push(
                            Diagnostic::warning(
                                "Dependency locks for modules are not yet supported",
                                format!(
                                    "{PRODUCT} v{} only supports dependency locks for providers, not for modules. This configuration may be intended for a later version of {PRODUCT} that also supports dependency locks for modules.",
                                    env!("CARGO_PKG_VERSION")
                                ),
                            )
                            .with_subject(file.source.range(block.type_span)),
                        );
                    }
                }
            }
        }
        (locks, diags)
    }

    /// The file's bytes, exactly as Terraform writes them.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = String::from(
            "# This file is maintained automatically by \"terraform init\".\n# Manual edits may be lost in future updates.\n",
        );
        for lock in self.providers.values() {
            out.push('\n');
            out.push_str(&format!(
                "provider {} {{\n",
                hcl_quote(&lock.provider.to_string())
            ));
            let constraints = lock.constraints.to_string();
            if constraints.is_empty() {
                out.push_str(&format!(
                    "  version = {}\n",
                    hcl_quote(&lock.version.to_string())
                ));
            } else {
                out.push_str(&format!(
                    "  version     = {}\n  constraints = {}\n",
                    hcl_quote(&lock.version.to_string()),
                    hcl_quote(&constraints)
                ));
            }
            if !lock.hashes.is_empty() {
                out.push_str("  hashes = [\n");
                for h in &lock.hashes {
                    out.push_str(&format!("    {},\n", hcl_quote(h.as_str())));
                }
                out.push_str("  ]\n");
            }
            out.push_str("}\n");
        }
        out.into_bytes()
    }

    /// Replaces the file at `path` atomically (a temporary file in the same
    /// directory, then a rename), with mode 0644.
    pub fn save(&self, path: &Path) -> Diagnostics {
        match crate::fsutil::atomic_write(path, &self.to_bytes(), 0o644) {
            Ok(()) => Vec::new(),
            Err(e) => vec![Diagnostic::error(
                "Failed to update dependency lock file",
                format!(
                    "Error while writing new dependency lock information to {}: {e}.",
                    path.display()
                ),
            )],
        }
    }
}

/// HCL's `Block.DefRange`: the type and labels.
fn def_range(block: &Block, file: &SourceFile) -> terrace_syntax::SourceRange {
    let end = block
        .labels
        .last()
        .map(|(_, s)| s.end)
        .unwrap_or(block.type_span.end);
    file.range(Span {
        start: block.type_span.start,
        end,
    })
}

/// One `provider` block's lock, and whether its hashes were written in
/// order (sorted, once each).
fn decode_provider_block(
    block: &Block,
    file: &SourceFile,
) -> (Option<(ProviderLock, bool)>, Diagnostics) {
    let mut diags = Vec::new();
    let (raw_addr, label_span) = match block.labels.first() {
        Some((l, s)) => (l.as_str(), *s),
        None => return (None, diags),
    };
    let label_range = file.range(label_span);
    let addr = match Provider::parse_source_str(raw_addr) {
        Ok(a) => a,
        Err(_) => {
            diags.push(
                Diagnostic::error(
                    "Invalid provider source address",
                    "The provider source address for a provider lock must be a valid, fully-qualified address of the form \"hostname/namespace/type\".",
                )
                .with_subject(label_range),
            );
            return (None, diags);
        }
    };
    if !provider_is_lockable(&addr) {
        let detail = if addr.is_builtin() {
            format!("Cannot lock a version for built-in provider {addr}. Built-in providers are bundled inside {PRODUCT} itself, so you can't select a version for them independently of the {PRODUCT} release you are currently running.")
        } else {
            format!("Provider source address {addr} is a special provider that is not eligible for dependency locking.")
        };
        diags.push(
            Diagnostic::error("Invalid provider source address", detail).with_subject(label_range),
        );
        return (None, diags);
    }
    let canon = addr.to_string();
    if canon != raw_addr {
        diags.push(
            Diagnostic::error(
                "Non-normalized provider source address",
                format!(
                    "The provider source address for this provider lock must be written as {}, the fully-qualified and normalized form.",
                    quote(&canon)
                ),
            )
            .with_subject(label_range),
        );
        return (None, diags);
    }

    let Some(body) = hclbody::native(&block.body) else {
        return (None, diags);
    };
    let schema = Schema {
        attrs: &[("version", true), ("constraints", false), ("hashes", false)],
        blocks: &[],
    };
    let (content, more) = hclbody::content(body, file, &schema);
    diags.extend(more);

    let mut version = Version::default();
    if let Some(attr) = content.attr("version") {
        let range = file.range(attr.expr.span);
        match hclbody::decode_string(&attr.expr, file) {
            Err(more) => diags.extend(more),
            Ok(None) => diags.push(
                Diagnostic::error(
                    "Missing required argument",
                    "A provider lock block must contain a \"version\" argument.",
                )
                .with_subject(range),
            ),
            Ok(Some(raw)) => {
                match Version::parse(&raw) {
                    Ok(v) => version = v,
                    Err(e) => diags.push(
                        Diagnostic::error(
                            "Invalid provider version number",
                            format!(
                                "The selected version number for provider {addr} is invalid: {e}."
                            ),
                        )
                        .with_subject(range.clone()),
                    ),
                }
                let canon = version.to_string();
                if canon != raw {
                    diags.push(
                        Diagnostic::error(
                            "Invalid provider version number",
                            format!(
                                "The selected version number for provider {addr} must be written in normalized form: {}.",
                                quote(&canon)
                            ),
                        )
                        .with_subject(range),
                    );
                }
            }
        }
    }

    let mut constraints = VersionConstraints::new();
    if let Some(attr) = content.attr("constraints") {
        let range = file.range(attr.expr.span);
        match hclbody::decode_string(&attr.expr, file) {
            Err(more) => diags.extend(more),
            Ok(None) => diags.push(
                Diagnostic::error(
                    "Unsuitable value type",
                    "Unsuitable value: null value is not allowed",
                )
                .with_subject(range),
            ),
            Ok(Some(raw)) => {
                match VersionConstraints::parse(&raw) {
                    Ok(c) => constraints = c,
                    Err(e) => diags.push(
                        Diagnostic::error(
                            "Invalid provider version constraints",
                            format!("The recorded version constraints for provider {addr} are invalid: {e}."),
                        )
                        .with_subject(range.clone()),
                    ),
                }
                let canon = constraints.to_string();
                if canon != raw {
                    diags.push(
                        Diagnostic::error(
                            "Invalid provider version constraints",
                            format!(
                                "The recorded version constraints for provider {addr} must be written in normalized form: {}.",
                                quote(&canon)
                            ),
                        )
                        .with_subject(range),
                    );
                }
            }
        }
    }

    let mut hashes = Vec::new();
    if let Some(attr) = content.attr("hashes") {
        let range = file.range(attr.expr.span);
        match hclbody::expr_list(&attr.expr, file) {
            Err(d) => diags.push(*d),
            Ok([]) => diags.push(
                Diagnostic::error(
                    "Invalid provider hash set",
                    "The \"hashes\" argument must either be omitted or contain at least one hash value.",
                )
                .with_subject(range),
            ),
            Ok(items) => {
                for item in items {
                    match hclbody::decode_string(item, file) {
                        Err(more) => diags.extend(more),
                        Ok(None) => diags.push(
                            Diagnostic::error(
                                "Unsuitable value type",
                                "Unsuitable value: null value is not allowed",
                            )
                            .with_subject(file.range(item.span)),
                        ),
                        Ok(Some(raw)) => match Hash::parse(&raw) {
                            Ok(h) => hashes.push(h),
                            Err(e) => diags.push(
                                Diagnostic::error(
                                    "Invalid provider hash string",
                                    format!("Cannot interpret {} as a provider hash: {e}.", quote(&raw)),
                                )
                                .with_subject(range.clone()),
                            ),
                        },
                    }
                }
            }
        }
    }

    let in_order = hashes.windows(2).all(|pair| pair[0] < pair[1]);
    (
        Some((
            ProviderLock::new(addr, version, constraints, hashes),
            in_order,
        )),
        diags,
    )
}

/// A string literal as hclwrite writes it.
fn hcl_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '$' | '%' if chars.peek() == Some(&'{') => {
                out.push(c);
                out.push(c);
            }
            c if !terrace_value::gostr::is_print(c) => {
                let n = c as u32;
                if n < 0x10000 {
                    out.push_str(&format!("\\u{n:04x}"));
                } else {
                    out.push_str(&format!("\\U{n:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests;
