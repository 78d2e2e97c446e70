//! Finding the examples of the real-world modules and turning one into a
//! configuration that runs against `moto_server`: `.tf` files rewritten
//! (module sources to the modules' absolute paths, `provider "aws"`
//! blocks to moto's settings), other files linked in place. An example
//! that cannot run here gets the reason instead.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use super::hcltext::{self, attributes, blocks, string_literal};

/// The providers a case may use: the AWS provider from the image's
/// mirror, terrace's own null and random providers (offered under
/// hashicorp's addresses), and the built-in `terraform` provider.
pub const AVAILABLE_PROVIDERS: [&str; 4] = ["aws", "random", "null", "terraform"];

/// The region an example gets when it configures no `aws` provider at
/// all (it would take the environment's): the one most examples use.
pub const DEFAULT_REGION: &str = "eu-west-1";

/// One `examples/<name>` directory of a module.
#[derive(Clone)]
pub struct Example {
    pub module: String,
    pub name: String,
    pub dir: PathBuf,
}

impl Example {
    /// `module/example`, the case's name in tables and selections.
    pub fn id(&self) -> String {
        format!("{}/{}", self.module, self.name)
    }
}

/// Every example of every module under `root`, sorted by id. The shared
/// `fixtures` directories are modules used by examples, not examples.
pub fn discover(root: &Path) -> Vec<Example> {
    let mut out = Vec::new();
    let Ok(modules) = std::fs::read_dir(root) else {
        return out;
    };
    for module in modules.flatten() {
        let examples_dir = module.path().join("examples");
        let Ok(examples) = std::fs::read_dir(&examples_dir) else {
            continue;
        };
        for example in examples.flatten() {
            let dir = example.path();
            let name = example.file_name().to_string_lossy().into_owned();
            if !dir.is_dir() || name == "fixtures" || tf_files(&dir).is_empty() {
                continue;
            }
            out.push(Example {
                module: module.file_name().to_string_lossy().into_owned(),
                name,
                dir,
            });
        }
    }
    out.sort_by_key(Example::id);
    out
}

/// The `.tf` files directly in `dir`, sorted.
pub fn tf_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "tf"))
        .collect();
    out.sort();
    out
}

/// The module tags of `SOURCES.txt`: `name vX.Y.Z commit` per line.
pub fn module_versions(root: &Path) -> Vec<(String, Version)> {
    let text = std::fs::read_to_string(root.join("SOURCES.txt")).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let name = words.next()?;
            let version = Version::parse(words.next()?.trim_start_matches('v'))?;
            Some((name.to_string(), version))
        })
        .collect()
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub struct Version(u64, u64, u64);

impl Version {
    fn parse(text: &str) -> Option<Version> {
        let mut parts = text.trim().split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next().map(str::parse).transpose().ok()?.unwrap_or(0);
        let patch = parts.next().map(str::parse).transpose().ok()?.unwrap_or(0);
        Some(Version(major, minor, patch))
    }
}

/// Whether `version` meets a module `version` constraint (comma-separated
/// `op X[.Y[.Z]]` terms, `~>` as the pessimistic operator).
pub fn meets(version: Version, constraint: &str) -> bool {
    constraint.split(',').all(|term| {
        let term = term.trim();
        let ops = ["~>", ">=", "<=", "!=", ">", "<", "="];
        let (op, rest) = ops
            .iter()
            .find_map(|op| term.strip_prefix(op).map(|rest| (*op, rest)))
            .unwrap_or(("=", term));
        let Some(wanted) = Version::parse(rest) else {
            return false;
        };
        let written_parts = rest.trim().split('.').count();
        match op {
            "~>" => {
                let upper = if written_parts >= 3 {
                    Version(wanted.0, wanted.1 + 1, 0)
                } else {
                    Version(wanted.0 + 1, 0, 0)
                };
                version >= wanted && version < upper
            }
            ">=" => version >= wanted,
            "<=" => version <= wanted,
            ">" => version > wanted,
            "<" => version < wanted,
            "!=" => version != wanted,
            _ => version == wanted,
        }
    })
}

/// `path` with `.` and `..` folded away, without touching the disk.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// A module source for the directory `target` under `root`: the
/// module's package (its top directory, absolute) and the path inside it
/// after `//`, so that relative calls between the module's own
/// directories stay inside one package.
fn package_source(root: &Path, target: &Path) -> Result<String, String> {
    let rel = target
        .strip_prefix(root)
        .map_err(|_| format!("{} is outside {}", target.display(), root.display()))?;
    let mut parts = rel.components();
    let module = parts
        .next()
        .ok_or_else(|| format!("{} names no module", target.display()))?;
    let package = root.join(module.as_os_str());
    let sub = parts.as_path();
    Ok(if sub.as_os_str().is_empty() {
        package.display().to_string()
    } else {
        format!("{}//{}", package.display(), sub.display())
    })
}

/// What one example needs and how it is rewritten.
pub struct Prepared {
    /// Each `.tf` file of the example (file name, rewritten text).
    pub files: Vec<(String, String)>,
    /// Other entries of the example directory, linked in place.
    pub links: Vec<(String, PathBuf)>,
    /// The regions its providers use, plus us-east-1 (where the global
    /// services are listed).
    pub regions: Vec<String>,
    /// What was changed beyond provider settings and local sources, for the
    /// report.
    pub notes: Vec<String>,
}

/// Rewrites an example for moto (the commands send the AWS provider's
/// requests there, see `Work::aws_at`), or says why it cannot run here.
pub fn prepare(root: &Path, example: &Example) -> Result<Prepared, String> {
    let versions = module_versions(root);
    let mut files = Vec::new();
    let mut links = Vec::new();
    let mut regions = BTreeSet::from(["us-east-1".to_string()]);
    let mut notes = Vec::new();
    let mut missing_registry = BTreeSet::new();
    let mut provider_blocks = 0;
    let mut local_regions = Vec::new();

    for entry in std::fs::read_dir(&example.dir)
        .map_err(|e| format!("reading {}: {e}", example.dir.display()))?
        .flatten()
    {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.extension().is_some_and(|x| x == "tf") && path.is_file() {
            continue;
        }
        if name == "README.md" {
            continue;
        }
        links.push((name, path));
    }
    links.sort();

    for path in tf_files(&example.dir) {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("reading {}: {e}", path.display()))?;
        for block in blocks(&text) {
            if block.words.first().map(String::as_str) == Some("locals") {
                for attr in attributes(&text, block.body_start, block.body_end) {
                    if attr.name == "region" {
                        if let Some(region) = string_literal(&attr.expr) {
                            local_regions.push(region);
                        }
                    }
                }
            }
        }
    }

    for path in tf_files(&example.dir) {
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("reading {}: {e}", path.display()))?;
        // Edits as (start, end, replacement), applied from the back.
        let mut edits: Vec<(usize, usize, String)> = Vec::new();
        for block in blocks(&text) {
            let kind = block.words.first().map(String::as_str);
            let label = block.words.get(1).map(String::as_str);
            match (kind, label) {
                (Some("provider"), Some("aws")) => {
                    provider_blocks += 1;
                    let mut kept = String::new();
                    for attr in attributes(&text, block.body_start, block.body_end) {
                        if attr.name == "alias" || attr.name == "region" {
                            kept.push_str(&format!("  {} = {}\n", attr.name, attr.expr));
                        }
                        if attr.name == "region" {
                            match string_literal(&attr.expr) {
                                Some(region) => {
                                    regions.insert(region);
                                }
                                None => regions.extend(local_regions.iter().cloned()),
                            }
                        }
                    }
                    edits.push((
                        block.start,
                        block.end,
                        format!("provider \"aws\" {{\n{kept}{}}}", moto_provider_body()),
                    ));
                }
                (Some("module"), Some(_)) => {
                    let attrs = attributes(&text, block.body_start, block.body_end);
                    let Some(source_attr) = attrs.iter().find(|a| a.name == "source") else {
                        continue;
                    };
                    let Some(source) = string_literal(&source_attr.expr) else {
                        return Err(format!(
                            "{file_name}: a module source that is not a plain string: {}",
                            source_attr.expr
                        ));
                    };
                    let version_attr = attrs.iter().find(|a| a.name == "version");
                    let new_source = if source.starts_with("./") || source.starts_with("../") {
                        package_source(root, &lexical(&example.dir.join(&source)))?
                    } else if let Some(rest) = source.strip_prefix("terraform-aws-modules/") {
                        let (address, sub) = rest.split_once("//").unwrap_or((rest, ""));
                        let module = address.split('/').next().unwrap_or_default();
                        let constraint = version_attr
                            .and_then(|a| string_literal(&a.expr))
                            .unwrap_or_default();
                        let here = versions.iter().find(|(name, _)| name == module);
                        match here {
                            Some((_, version))
                                if constraint.is_empty() || meets(*version, &constraint) =>
                            {
                                notes.push(format!(
                                    "registry module `{source}` ({}) read from the shared realworld/{module}",
                                    if constraint.is_empty() {
                                        "no version constraint".to_string()
                                    } else {
                                        format!("`{constraint}`")
                                    }
                                ));
                                if let Some(v) = version_attr {
                                    edits.push((v.line_start, v.line_end, String::new()));
                                }
                                package_source(root, &root.join(module).join(sub))?
                            }
                            _ => {
                                missing_registry.insert(if constraint.is_empty() {
                                    format!("`{source}`")
                                } else {
                                    format!("`{source}` {constraint}")
                                });
                                continue;
                            }
                        }
                    } else {
                        missing_registry.insert(format!("`{source}`"));
                        continue;
                    };
                    edits.push((
                        source_attr.line_start,
                        source_attr.line_end,
                        format!("  source = {new_source:?}\n"),
                    ));
                }
                _ => {}
            }
        }
        edits.sort_by_key(|e| std::cmp::Reverse(e.0));
        let mut text = text;
        for (start, end, replacement) in edits {
            text.replace_range(start..end, &replacement);
        }
        files.push((file_name, text));
    }

    if !missing_registry.is_empty() {
        return Err(format!(
            "needs registry modules that are not available offline: {}",
            missing_registry.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    let missing = missing_providers(root, example)?;
    if !missing.is_empty() {
        return Err(format!(
            "needs providers the workspace does not have: {}",
            missing
                .iter()
                .map(|p| format!("hashicorp/{p}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if provider_blocks == 0 {
        notes.push(format!(
            "no `provider \"aws\"` block (it relies on the environment's region): one with region {DEFAULT_REGION} added"
        ));
        regions.insert(DEFAULT_REGION.to_string());
        files.push((
            "moto_provider.tf".to_string(),
            format!(
                "provider \"aws\" {{\n  region = {DEFAULT_REGION:?}\n{}}}\n",
                moto_provider_body()
            ),
        ));
    }
    Ok(Prepared {
        files,
        links,
        regions: regions.into_iter().collect(),
        notes,
    })
}

/// The body of a `provider "aws"` block for moto.
pub fn moto_provider_body() -> String {
    let mut body = crate::engine_support::aws_moto_provider_body();
    body.push_str("  s3_use_path_style           = true\n");
    body
}

/// The providers the example and every module it calls through a local
/// path (transitively) use that are not available here: from
/// `required_providers` and from resource and data source types.
fn missing_providers(root: &Path, example: &Example) -> Result<Vec<String>, String> {
    let mut seen_dirs = BTreeSet::new();
    let mut pending = vec![example.dir.clone()];
    let mut used = BTreeSet::new();
    while let Some(dir) = pending.pop() {
        if !seen_dirs.insert(dir.clone()) {
            continue;
        }
        for path in tf_files(&dir) {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("reading {}: {e}", path.display()))?;
            for block in blocks(&text) {
                let kind = block.words.first().map(String::as_str);
                match kind {
                    Some("resource") | Some("data") => {
                        if let Some(ty) = block.words.get(1) {
                            let provider = ty.split('_').next().unwrap_or(ty);
                            used.insert(provider.to_string());
                        }
                    }
                    Some("module") => {
                        for attr in attributes(&text, block.body_start, block.body_end) {
                            if attr.name != "source" {
                                continue;
                            }
                            let Some(source) = string_literal(&attr.expr) else {
                                continue;
                            };
                            if source.starts_with("./") || source.starts_with("../") {
                                pending.push(lexical(&dir.join(&source)));
                            } else if let Some(rest) = source.strip_prefix("terraform-aws-modules/")
                            {
                                let (address, sub) = rest.split_once("//").unwrap_or((rest, ""));
                                let module = address.split('/').next().unwrap_or_default();
                                pending.push(root.join(module).join(sub));
                            }
                        }
                    }
                    Some("terraform") => {
                        used.extend(required_provider_names(
                            &text[block.body_start..block.body_end],
                        ));
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(used
        .into_iter()
        .filter(|p| !AVAILABLE_PROVIDERS.contains(&p.as_str()))
        .collect())
}

/// The type names (the last part of each `source`) in a `terraform`
/// block's `required_providers`.
fn required_provider_names(terraform_body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let Some(at) = terraform_body.find("required_providers") else {
        return out;
    };
    let rest = &terraform_body[at..];
    let Some(open) = rest.find('{') else {
        return out;
    };
    let inner_blocks = hcltext::attributes(rest, open + 1, rest.len());
    for attr in inner_blocks {
        // `name = { source = "ns/type", version = "..." }`
        let Some(pos) = attr.expr.find("source") else {
            continue;
        };
        let after = &attr.expr[pos..];
        let Some(q1) = after.find('"') else { continue };
        let Some(q2) = after[q1 + 1..].find('"') else {
            continue;
        };
        let source = &after[q1 + 1..q1 + 1 + q2];
        if let Some(ty) = source.rsplit('/').next() {
            out.push(ty.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_constraints() {
        let v = Version(1, 3, 1);
        assert!(meets(v, "~> 1.0"));
        assert!(!meets(v, "~> 2.0"));
        assert!(meets(v, ">= 1.0, < 2.0"));
        assert!(!meets(v, "~> 1.2.0"));
        assert!(meets(Version(5, 60, 0), "~> 5.0"));
        assert!(!meets(Version(5, 60, 0), "~> 6.0"));
    }

    #[test]
    fn sources_become_packages_with_subdirectories() {
        let root = Path::new("/r");
        assert_eq!(
            package_source(root, &lexical(Path::new("/r/kms/examples/complete/../.."))),
            Ok("/r/kms".to_string())
        );
        assert_eq!(
            package_source(root, Path::new("/r/iam/modules/iam-user")),
            Ok("/r/iam//modules/iam-user".to_string())
        );
    }
}
