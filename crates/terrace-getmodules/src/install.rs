//! The module installer: Terraform's walk over the module tree during
//! `init`. Each `module` call, in name order and depth first, is checked
//! against the manifest of earlier installs (kept when its source is
//! unchanged and its version still acceptable, unless upgrading), else
//! installed:
//!
//! - a local path is not copied: its directory (the calling module's
//!   directory joined with the path, symbolic links resolved) is recorded;
//! - a registry module gets the newest version its constraints allow
//!   (pre-releases only when requested exactly), and is fetched from the
//!   location the registry gives into `.terraform/modules/KEY`;
//! - any other source is a go-getter package fetched the same way.
//!
//! Installed modules are loaded (with the static evaluation of their
//! calls' sources) and their own calls installed in turn. The manifest is
//! written at the end even when some calls failed, as Terraform does, but
//! a call that failed leaves no directory behind. Diagnostics are
//! Terraform's.

use crate::address::{display_remote, normalize_package};
use crate::fetch::{subdir_glob, PackageFetcher};
use crate::fsutil::{eval_symlinks, join, remove_all, slash};
use crate::manifest::{Manifest, Record};
use crate::registry::{ModuleRegistry, RegistryPackage, VersionsError};
use crate::PRODUCT;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use terrace_config::decode::valid_identifier;
use terrace_config::input_variables::InputValues;
use terrace_config::loader::{apply_static_context, load_module_dir, MAX_MODULE_DEPTH};
use terrace_config::model::{Module, ModuleCall};
use terrace_config::module_source::{parse_module_source, ModuleSource};
use terrace_config::static_eval::{
    MissingRootVariable, StaticContext, StaticSettings, VariableValues,
};
use terrace_config::version::Version;
use terrace_getproviders::registry::RegistryConfig;
use terrace_syntax::{Diagnostic, Diagnostics, SourceRange};
use terrace_value::gostr::quote;

/// Progress notifications, for `init`'s output.
#[allow(unused_variables)]
pub trait ModuleInstallHooks {
    /// A remote package is about to be fetched for the call `key`.
    fn download(&mut self, key: &str, package: &str, version: Option<&str>) {}
    /// The call `key` now has its module at `dir`.
    fn install(&mut self, key: &str, version: Option<&str>, dir: &str) {}
}

/// Hooks that want nothing.
pub struct NoHooks;
impl ModuleInstallHooks for NoHooks {}

/// Installs modules into one modules directory (`.terraform/modules`).
pub struct ModuleInstaller {
    modules_dir: String,
    registry: ModuleRegistry,
    fetcher: PackageFetcher,
    versions: HashMap<RegistryPackage, Option<Vec<String>>>,
    locations: HashMap<(RegistryPackage, String), String>,
    /// The root module's variable values for static evaluation (module
    /// sources and versions may use them), and what a missing one means.
    root_values: Arc<InputValues>,
    missing_root_variable: MissingRootVariable,
}

/// A module of the tree being walked.
struct Node {
    path: Vec<String>,
    module: Module,
    ctx: Arc<StaticContext>,
    /// Canonical directories from the root down to this module, to stop
    /// at calls that would load a module into itself.
    ancestors: Vec<PathBuf>,
}

struct Walk<'a> {
    manifest: Manifest,
    upgrade: bool,
    hooks: &'a mut dyn ModuleInstallHooks,
    settings: StaticSettings,
    diags: Diagnostics,
}

/// What installing one call produced.
struct Installed {
    dir: String,
    module: Option<Module>,
}

impl ModuleInstaller {
    /// An installer writing into `modules_dir` (a path relative to the
    /// working directory, as Terraform records it) and talking to
    /// registries as `registry` says.
    pub fn new(modules_dir: &Path, registry: RegistryConfig) -> ModuleInstaller {
        let registry = ModuleRegistry::new(registry);
        let fetcher = PackageFetcher::new(registry.http().clone());
        ModuleInstaller {
            modules_dir: join(&[&slash(modules_dir)]),
            registry,
            fetcher,
            versions: HashMap::new(),
            locations: HashMap::new(),
            root_values: Arc::new(InputValues::default()),
            missing_root_variable: MissingRootVariable::Unknown,
        }
    }

    /// The root module's variable values, from the same sources as a
    /// plan's, for the static evaluation of module sources; without them
    /// every root variable is unknown.
    pub fn set_root_variables(&mut self, values: Arc<InputValues>, missing: MissingRootVariable) {
        self.root_values = values;
        self.missing_root_variable = missing;
    }

    /// Installs every module the configuration in `root_dir` calls,
    /// directly or through installed modules, and writes the manifest.
    /// Diagnostics include those of loading each module.
    pub fn install_modules(
        &mut self,
        root_dir: &Path,
        upgrade: bool,
        hooks: &mut dyn ModuleInstallHooks,
    ) -> Diagnostics {
        let modules_dir = PathBuf::from(&self.modules_dir);
        let mut manifest = match Manifest::read(&modules_dir) {
            Ok(m) => m,
            Err(e) => {
                return vec![Diagnostic::error(
                    "Failed to read modules manifest file",
                    format!("Error reading manifest for {}: {e}.", self.modules_dir),
                )]
            }
        };
        let root_text = {
            let s = slash(root_dir);
            if s.is_empty() {
                ".".to_string()
            } else {
                s
            }
        };
        manifest.insert(Record {
            key: String::new(),
            source: String::new(),
            version: None,
            dir: root_text.clone(),
        });
        let cwd = std::env::current_dir()
            .ok()
            .and_then(|d| std::fs::canonicalize(d).ok())
            .unwrap_or_default();
        let mut walk = Walk {
            manifest,
            upgrade,
            hooks,
            settings: StaticSettings {
                root_dir: root_text,
                workspace: workspace_name(),
                cwd,
            },
            diags: Vec::new(),
        };
        let (module, load_diags) = load_module_dir(root_dir);
        walk.diags.extend(load_diags);
        if let Some(mut module) = module {
            let ctx = Arc::new(StaticContext::new(
                Vec::new(),
                module.variables.clone(),
                module.locals.clone(),
                root_dir,
                &walk.settings,
                VariableValues::Root {
                    values: self.root_values.clone(),
                    missing: self.missing_root_variable,
                },
            ));
            let static_diags = apply_static_context(&mut module, &ctx, &SourceRange::default());
            walk.diags.extend(static_diags);
            let canonical =
                std::fs::canonicalize(root_dir).unwrap_or_else(|_| root_dir.to_path_buf());
            let root = Node {
                path: Vec::new(),
                module,
                ctx,
                ancestors: vec![canonical],
            };
            self.walk_children(&mut walk, &root);
        }
        if let Err(e) = walk.manifest.write(&modules_dir) {
            walk.diags.push(Diagnostic::error(
                "Failed to update module manifest",
                format!("Unable to write the module manifest file: {e}"),
            ));
        }
        walk.diags
    }

    fn walk_children(&mut self, walk: &mut Walk<'_>, parent: &Node) {
        for (name, call) in &parent.module.module_calls {
            if name.is_empty() || !valid_identifier(name) {
                continue;
            }
            let Some(source) = call.source_addr.clone() else {
                continue;
            };
            let mut path = parent.path.clone();
            path.push(name.clone());
            let Some(installed) = self.install_call(walk, &parent.path, &path, call, &source)
            else {
                continue;
            };
            let Some(mut module) = installed.module else {
                continue;
            };
            let canonical = std::fs::canonicalize(&installed.dir)
                .unwrap_or_else(|_| PathBuf::from(&installed.dir));
            if parent.ancestors.contains(&canonical) || parent.ancestors.len() > MAX_MODULE_DEPTH {
                // Loading the configuration reports the recursion.
                continue;
            }
            let (arguments, _) = call.config.just_attributes();
            let ctx = Arc::new(StaticContext::new(
                path.clone(),
                module.variables.clone(),
                module.locals.clone(),
                Path::new(&installed.dir),
                &walk.settings,
                VariableValues::Call {
                    parent: parent.ctx.clone(),
                    arguments: arguments.into_iter().map(|a| (a.name.clone(), a)).collect(),
                    missing_item_range: call.config.missing_item_range(),
                },
            ));
            let static_diags = apply_static_context(&mut module, &ctx, &call.decl_range);
            walk.diags.extend(static_diags);
            let mut ancestors = parent.ancestors.clone();
            ancestors.push(canonical);
            let node = Node {
                path,
                module,
                ctx,
                ancestors,
            };
            self.walk_children(walk, &node);
        }
    }

    /// Installs (or finds installed) one call's module.
    fn install_call(
        &mut self,
        walk: &mut Walk<'_>,
        parent_path: &[String],
        path: &[String],
        call: &ModuleCall,
        source: &ModuleSource,
    ) -> Option<Installed> {
        let key = path.join(".");
        let inst_path = join(&[&self.modules_dir, &key]);
        // The normalized source, which is what the manifest records.
        let normalized = match source {
            ModuleSource::Remote(r) => match normalize_package(&r.package) {
                Ok((pkg, sub)) => {
                    let subdir = match (sub.is_empty(), r.subdir.is_empty()) {
                        (true, _) => r.subdir.clone(),
                        (false, true) => sub,
                        (false, false) => join(&[&sub, &r.subdir]),
                    };
                    Some((pkg, subdir))
                }
                Err(e) => {
                    let subject = call
                        .source
                        .as_ref()
                        .map(|s| s.range())
                        .unwrap_or_else(|| call.decl_range.clone());
                    walk.diags.push(
                        Diagnostic::error(
                            "Invalid module source address",
                            format!("Failed to parse module source address: {e}."),
                        )
                        .with_subject(subject),
                    );
                    return None;
                }
            },
            _ => None,
        };
        let source_text = match (&normalized, source) {
            (Some((pkg, sub)), _) => display_remote(pkg, sub),
            (None, s) => s.to_string(),
        };

        let mut replace = walk.upgrade;
        if !replace {
            match walk.manifest.get(&key) {
                None => replace = true,
                Some(r) if r.source != source_text => replace = true,
                Some(r) => {
                    if let (Some(v), Some(c)) = (
                        r.version.as_deref().and_then(|v| Version::parse(v).ok()),
                        &call.version,
                    ) {
                        if !c.required.check(&v) {
                            replace = true;
                        }
                    }
                }
            }
        }
        if replace {
            walk.manifest.remove_tree(&key);
        }
        match walk.manifest.get(&key) {
            None => {
                if let Err(e) = remove_all(Path::new(&inst_path)) {
                    walk.diags.push(Diagnostic::error(
                        "Failed to remove local module cache",
                        format!("{PRODUCT} tried to remove {inst_path} in order to reinstall this module, but encountered an error: {e}"),
                    ));
                    return None;
                }
            }
            Some(record) => {
                if Path::new(&record.dir).is_dir() {
                    let dir = record.dir.clone();
                    let (module, diags) = load_module_dir(Path::new(&dir));
                    walk.diags.extend(diags);
                    return Some(Installed { dir, module });
                }
            }
        }

        match source {
            ModuleSource::Local(rel) => self.install_local(walk, parent_path, &key, call, rel),
            ModuleSource::Registry(r) => {
                let pkg = RegistryPackage {
                    host: r.host.clone(),
                    namespace: r.namespace.clone(),
                    name: r.name.clone(),
                    target_system: r.target_system.clone(),
                };
                self.install_registry(walk, &key, &inst_path, call, source, &pkg, &r.subdir)
            }
            ModuleSource::Remote(_) => {
                let (pkg, sub) = normalized.unwrap_or_default();
                self.install_remote(walk, &key, &inst_path, call, &pkg, &sub)
            }
        }
    }

    fn install_local(
        &mut self,
        walk: &mut Walk<'_>,
        parent_path: &[String],
        key: &str,
        call: &ModuleCall,
        rel: &str,
    ) -> Option<Installed> {
        let (file, line) = call_position(call);
        let parent_key = parent_path.join(".");
        let Some(parent) = walk.manifest.get(&parent_key) else {
            walk.diags.push(Diagnostic::error(
                "Missing module manifest record",
                format!("There is no manifest record for the module {parent_key} calling {key}; this is a bug in {PRODUCT}."),
            ));
            return None;
        };
        if call
            .version
            .as_ref()
            .is_some_and(|v| !v.required.is_empty())
        {
            walk.diags.push(
                Diagnostic::error(
                    "Invalid version constraint",
                    format!("Cannot apply a version constraint to module {} (at {file}:{line}) because it has a relative local path.", quote(&call.name)),
                )
                .with_subject(call.decl_range.clone()),
            );
        }
        let joined = join(&[&parent.dir, rel]);
        let dir = match eval_symlinks(&joined) {
            Ok(d) => d,
            Err(e) => {
                walk.diags.push(Diagnostic::error(
                    "Unreadable module directory",
                    format!("Unable to evaluate directory symlink: {e}"),
                ));
                String::new()
            }
        };
        let module = if dir.is_empty() {
            None
        } else {
            let (module, diags) = load_module_dir(Path::new(&dir));
            walk.diags.extend(diags);
            module
        };
        if module.is_none() {
            walk.diags.push(Diagnostic::error(
                "Unreadable module directory",
                format!(
                    "The directory {dir} could not be read for module {} at {file}:{line}.",
                    quote(&call.name)
                ),
            ));
        }
        walk.manifest.insert(Record {
            key: key.to_string(),
            source: rel.to_string(),
            version: None,
            dir: dir.clone(),
        });
        walk.hooks.install(key, None, &dir);
        Some(Installed { dir, module })
    }

    #[allow(clippy::too_many_arguments)]
    fn install_registry(
        &mut self,
        walk: &mut Walk<'_>,
        key: &str,
        inst_path: &str,
        call: &ModuleCall,
        source: &ModuleSource,
        pkg: &RegistryPackage,
        subdir: &str,
    ) -> Option<Installed> {
        let (file, line) = call_position(call);
        let subject = call.decl_range.clone();
        let host = terrace_addrs::Hostname::for_comparison(&pkg.host)
            .map(|h| h.for_display())
            .unwrap_or_else(|_| pkg.host.clone());
        let addr = source.to_string();
        let versions = match self.versions.get(pkg) {
            Some(v) => v.clone(),
            None => match self.registry.versions(pkg) {
                Ok(v) => {
                    self.versions.insert(pkg.clone(), v.clone());
                    v
                }
                Err(VersionsError::NotFound) => {
                    walk.diags.push(
                        Diagnostic::error(
                            "Module not found",
                            format!(
                                "Module {} (from {file}:{line}) cannot be found in the module registry at {host}.",
                                quote(&call.name)
                            ),
                        )
                        .with_subject(subject),
                    );
                    return None;
                }
                Err(VersionsError::Other(e)) => {
                    walk.diags.push(
                        Diagnostic::error(
                            "Error accessing remote module registry",
                            format!(
                                "Failed to retrieve available versions for module {} ({file}:{line}) from {host}: {e}.",
                                quote(&call.name)
                            ),
                        )
                        .with_subject(subject),
                    );
                    return None;
                }
            },
        };
        let Some(versions) = versions else {
            walk.diags.push(
                Diagnostic::error(
                    "Invalid response from remote module registry",
                    format!(
                        "The registry at {host} returned an invalid response when {PRODUCT} requested available versions for module {} ({file}:{line}).",
                        quote(&call.name)
                    ),
                )
                .with_subject(subject),
            );
            return None;
        };
        let constraint_text = call
            .version
            .as_ref()
            .map(|v| v.required.to_string())
            .unwrap_or_default();
        let mut latest: Option<Version> = None;
        let mut latest_match: Option<Version> = None;
        for raw in &versions {
            let v = match Version::parse(raw) {
                Ok(v) => v,
                Err(_) => {
                    walk.diags.push(
                        Diagnostic::warning(
                            "Invalid response from remote module registry",
                            format!(
                                "The registry at {host} returned an invalid version string {} for module {} ({file}:{line}), which {PRODUCT} ignored.",
                                quote(raw),
                                quote(&call.name)
                            ),
                        )
                        .with_subject(subject.clone()),
                    );
                    continue;
                }
            };
            if !v.prerelease().is_empty() && !prerelease_requested_exactly(&constraint_text, &v) {
                continue;
            }
            if latest.as_ref().is_none_or(|l| v.compare(l).is_gt()) {
                latest = Some(v.clone());
            }
            let allowed = call.version.as_ref().is_none_or(|c| c.required.check(&v));
            if allowed && latest_match.as_ref().is_none_or(|l| v.compare(l).is_gt()) {
                latest_match = Some(v);
            }
        }
        let Some(latest) = latest else {
            walk.diags.push(
                Diagnostic::error(
                    "Module has no versions",
                    format!(
                        "Module {} ({file}:{line}) has no versions available on {host}.",
                        quote(&addr)
                    ),
                )
                .with_subject(subject),
            );
            return None;
        };
        let Some(version) = latest_match else {
            walk.diags.push(
                Diagnostic::error(
                    "Unresolvable module version constraint",
                    format!(
                        "There is no available version of module {} ({file}:{line}) which matches the given version constraint. The newest available version is {latest}.",
                        quote(&addr)
                    ),
                )
                .with_subject(subject),
            );
            return None;
        };
        let version_text = version.to_string();
        walk.hooks
            .download(key, &pkg.to_string(), Some(&version_text));
        let location_key = (pkg.clone(), version_text.clone());
        let location = match self.locations.get(&location_key) {
            Some(l) => l.clone(),
            None => match self.registry.location(pkg, &version_text) {
                Ok(l) => {
                    self.locations.insert(location_key, l.clone());
                    l
                }
                Err(e) => {
                    walk.diags.push(
                        Diagnostic::error(
                            "Error accessing remote module registry",
                            format!("Failed to retrieve a download URL for {addr} {version_text} from {host}: {e}"),
                        )
                        .with_subject(subject),
                    );
                    return None;
                }
            },
        };
        let invalid = |why: String| {
            Diagnostic::error(
                "Invalid package location from module registry",
                format!(
                    "Module registry {host} returned invalid source location {} for {addr} {version_text}: {why}.",
                    quote(&location)
                ),
            )
            .with_subject(call.decl_range.clone())
        };
        let (package, package_subdir) = match parse_module_source(&location) {
            Ok(ModuleSource::Remote(r)) => match normalize_package(&r.package) {
                Ok((p, s)) => {
                    let sub = match (s.is_empty(), r.subdir.is_empty()) {
                        (true, _) => r.subdir.clone(),
                        (false, true) => s,
                        (false, false) => join(&[&s, &r.subdir]),
                    };
                    (p, sub)
                }
                Err(e) => {
                    walk.diags.push(invalid(e));
                    return None;
                }
            },
            Ok(_) => {
                walk.diags
                    .push(invalid("must be a direct remote package address".into()));
                return None;
            }
            Err(e) => {
                walk.diags.push(invalid(e.to_string()));
                return None;
            }
        };
        let subdir = match (package_subdir.is_empty(), subdir.is_empty()) {
            (_, true) => package_subdir,
            (true, false) => subdir.to_string(),
            (false, false) => join(&[&package_subdir, subdir]),
        };
        if let Err(e) = self.fetcher.fetch_package(Path::new(inst_path), &package) {
            walk.diags.push(
                Diagnostic::error(
                    "Failed to download module",
                    format!(
                        "Could not download module {} ({file}:{line}) source code from {}: {e}.",
                        quote(&call.name),
                        quote(&location)
                    ),
                )
                .with_subject(subject),
            );
            return None;
        }
        let dir = self.module_dir(walk, inst_path, &package, &subdir)?;
        let (module, diags) = load_module_dir(Path::new(&dir));
        walk.diags.extend(diags);
        if module.is_none() {
            walk.diags.push(Diagnostic::error(
                "Unreadable module directory",
                format!("The directory {dir} could not be read. This is a bug in {PRODUCT} and should be reported."),
            ));
        }
        walk.manifest.insert(Record {
            key: key.to_string(),
            source: addr,
            version: Some(version_text.clone()),
            dir: dir.clone(),
        });
        walk.hooks.install(key, Some(&version_text), &dir);
        Some(Installed { dir, module })
    }

    fn install_remote(
        &mut self,
        walk: &mut Walk<'_>,
        key: &str,
        inst_path: &str,
        call: &ModuleCall,
        package: &str,
        subdir: &str,
    ) -> Option<Installed> {
        let (file, line) = call_position(call);
        walk.hooks.download(key, package, None);
        if call
            .version
            .as_ref()
            .is_some_and(|v| !v.required.is_empty())
        {
            walk.diags.push(
                Diagnostic::error(
                    "Invalid version constraint",
                    format!("Cannot apply a version constraint to module {} (at {file}:{line}) because it doesn't come from a module registry.", quote(&call.name)),
                )
                .with_subject(call.decl_range.clone()),
            );
            return None;
        }
        if let Err(e) = self.fetcher.fetch_package(Path::new(inst_path), package) {
            walk.diags.push(
                Diagnostic::error(
                    "Failed to download module",
                    format!(
                        "Could not download module {} ({file}:{line}) source code from {}: {e}",
                        quote(&call.name),
                        quote(package)
                    ),
                )
                .with_subject(call.decl_range.clone()),
            );
            return None;
        }
        let dir = self.module_dir(walk, inst_path, package, subdir)?;
        let (module, diags) = load_module_dir(Path::new(&dir));
        walk.diags.extend(diags);
        if module.is_none() {
            walk.diags.push(Diagnostic::error(
                "Unreadable module directory",
                format!("The directory {dir} could not be read. This is a bug in {PRODUCT} and should be reported."),
            ));
        }
        walk.manifest.insert(Record {
            key: key.to_string(),
            source: display_remote(package, subdir),
            version: None,
            dir: dir.clone(),
        });
        walk.hooks.install(key, None, &dir);
        Some(Installed { dir, module })
    }

    /// The module's directory inside the fetched package; a subdirectory
    /// that is not there undoes the fetch.
    fn module_dir(
        &mut self,
        walk: &mut Walk<'_>,
        inst_path: &str,
        package: &str,
        subdir: &str,
    ) -> Option<String> {
        if subdir.is_empty() {
            return Some(inst_path.to_string());
        }
        match subdir_glob(Path::new(inst_path), subdir) {
            Ok(found) => Some(join(&[&slash(&found)])),
            Err(e) => {
                walk.diags
                    .push(Diagnostic::error("Failed to expand subdir globs", e));
                self.fetcher.forget(package);
                let _ = remove_all(Path::new(inst_path));
                None
            }
        }
    }
}

/// `file:line` of the `module` block, as Terraform's messages cite it.
fn call_position(call: &ModuleCall) -> (String, u32) {
    (call.decl_range.filename.clone(), call.decl_range.start.line)
}

fn workspace_name() -> String {
    std::env::var("TF_WORKSPACE")
        .ok()
        .filter(|w| !w.is_empty())
        .unwrap_or_else(|| "default".to_string())
}

/// Whether the version constraint requests the pre-release `v` exactly,
/// the only way a pre-release module version is selected. Terraform reads
/// the constraint a second time in npm style for this (whitespace-separated
/// selections, no commas) and accepts a pre-release only when one selection
/// is exactly that version and every selection allows it.
pub fn prerelease_requested_exactly(constraint: &str, v: &Version) -> bool {
    if constraint.contains(',') {
        return false;
    }
    let mut selections: Vec<String> = Vec::new();
    let mut pending_op = String::new();
    for token in constraint.split_whitespace() {
        if token.chars().all(|c| "=!<>~^".contains(c)) {
            pending_op.push_str(token);
            continue;
        }
        selections.push(format!("{pending_op}{token}"));
        pending_op.clear();
    }
    if !pending_op.is_empty() || selections.is_empty() {
        return false;
    }
    let mut exact = false;
    for s in &selections {
        let op_len = s.find(|c: char| !"=!<>~^".contains(c)).unwrap_or(s.len());
        let (op, text) = s.split_at(op_len);
        let Ok(wanted) = Version::parse(text.strip_prefix('v').unwrap_or(text)) else {
            return false;
        };
        let same = wanted.compare(v).is_eq() && wanted.prerelease() == v.prerelease();
        match op {
            "" | "=" => {
                if !same {
                    return false;
                }
                exact = true;
            }
            "!=" | "!" if same => return false,
            "!=" | "!" => {}
            ">" if !v.compare(&wanted).is_gt() => return false,
            ">=" if v.compare(&wanted).is_lt() => return false,
            "<" if !v.compare(&wanted).is_lt() => return false,
            "<=" if v.compare(&wanted).is_gt() => return false,
            ">" | ">=" | "<" | "<=" => {}
            _ => return false,
        }
    }
    exact
}

#[cfg(test)]
mod tests;
