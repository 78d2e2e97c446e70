//! Reading configuration from disk: the files of one module directory
//! (OpenTofu's `LoadConfigDir`) and the whole module tree from a root
//! directory (`BuildConfig`), following local `source` paths directly and
//! other sources through `.terraform/modules/modules.json`, with static
//! evaluation applied to every module as it is loaded (module sources and
//! versions, provider `for_each`, `const` variables).
//!
//! Problems in the tree (a missing directory, a module that calls itself,
//! an uninstalled module) are diagnostics on the calling `module` block;
//! loading goes on with the rest of the tree.

use crate::body::Body;
use crate::decode::{decode_file, decode_version_constraint_value, File};
use crate::expr::{Expression, PRODUCT};
use crate::files::{manifest_path, ConfigFiles, OsFiles};
use crate::input_variables::InputValues;
use crate::model::*;
use crate::module::new_module;
use crate::module_source::{
    clean_path, parse_module_source, parse_module_source_registry, ModuleSource, ModuleSourceError,
};
use crate::static_eval::{
    path_string, MissingRootVariable, StaticContext, StaticIdentifier, StaticSettings,
    VariableValues,
};
use crate::version::Version;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use terrace_syntax::ast::SourceFile;
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::{Diagnostic, Diagnostics, SourceRange, TERRAFORM_VERSION};
use terrace_value::gostr::quote;
use terrace_value::{Type, Value};

/// Calls nested deeper than this are refused, so a chain of distinct
/// directories that never repeats (generated configurations) still ends.
pub const MAX_MODULE_DEPTH: usize = 64;

/// A node of the module tree: one module and the modules it calls
/// (OpenTofu's `configs.Config`).
#[derive(Clone, Debug)]
pub struct Config {
    /// The call names from the root to this module; empty for the root.
    pub path: Vec<String>,
    pub module: Module,
    /// Keyed by call name, as `Module::module_calls`.
    pub children: BTreeMap<String, Config>,
    /// The header of the `module` block that called this module (not set
    /// for the root).
    pub call_range: Option<SourceRange>,
    pub source_addr: Option<ModuleSource>,
    pub source_addr_raw: Option<String>,
    pub source_addr_range: Option<SourceRange>,
    /// The installed version, for registry modules.
    pub version: Option<Version>,
    /// This module's static evaluation context.
    pub static_context: Arc<StaticContext>,
}

impl Config {
    /// The module at `path` below this one.
    pub fn descendant(&self, path: &[String]) -> Option<&Config> {
        let mut c = self;
        for name in path {
            c = c.children.get(name)?;
        }
        Some(c)
    }

    /// This module and every descendant, parents before children, children
    /// in name order (OpenTofu's `DeepEach`).
    pub fn deep_each<'a>(&'a self, f: &mut dyn FnMut(&'a Config)) {
        f(self);
        for child in self.children.values() {
            child.deep_each(f);
        }
    }

    /// `module.a.module.b`, or the empty string for the root.
    pub fn path_string(&self) -> String {
        module_path_string(&self.path)
    }

    /// Every source file of the tree, for rendering diagnostics.
    pub fn files(&self) -> Vec<Arc<SourceFile>> {
        let mut out = Vec::new();
        self.deep_each(&mut |c| out.extend(c.module.files.iter().cloned()));
        out
    }
}

pub fn module_path_string(path: &[String]) -> String {
    path.iter()
        .map(|p| format!("module.{p}"))
        .collect::<Vec<_>>()
        .join(".")
}

/// How a configuration is loaded.
#[derive(Clone)]
pub struct LoadOptions {
    /// Values for the root module's variables.
    pub input_values: Arc<InputValues>,
    pub missing_root_variable: MissingRootVariable,
    /// `terraform.workspace`.
    pub workspace: String,
    /// Follow `.terraform/modules/modules.json` for modules that are not
    /// local paths.
    pub use_module_manifest: bool,
    /// What local `source` paths are relative to.
    pub local_source_base: LocalSourceBase,
}

/// What a local module `source` path is relative to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalSourceBase {
    /// The directory of the calling module, as Terraform and OpenTofu
    /// resolve it.
    CallingModule,
    /// The root module's directory: how OpenTofu's own test fixtures are
    /// laid out (`config-build`, `config-diagnostics`).
    Root,
}

impl Default for LoadOptions {
    fn default() -> LoadOptions {
        LoadOptions {
            input_values: Arc::new(InputValues::default()),
            missing_root_variable: MissingRootVariable::Unknown,
            workspace: "default".into(),
            use_module_manifest: true,
            local_source_base: LocalSourceBase::CallingModule,
        }
    }
}

// ----- one directory -----

/// An OpenTofu configuration file extension, if `name` has one.
fn file_ext(name: &str) -> Option<&'static str> {
    [
        ".tf.json",
        ".tofu.json",
        ".tftest.hcl",
        ".tftest.json",
        ".tofutest.hcl",
        ".tofutest.json",
        ".tf",
        ".tofu",
    ]
    .into_iter()
    .find(|ext| name.ends_with(ext))
}

fn is_test_ext(ext: &str) -> bool {
    ext.contains("test")
}

/// Editor backups and hidden files (OpenTofu's `IsIgnoredFile`).
pub fn is_ignored_file(name: &str) -> bool {
    name.starts_with('.') || name.ends_with('~') || (name.starts_with('#') && name.ends_with('#'))
}

/// The configuration files of `dir`: primary and override file names in
/// lexical order, `.tf` files dropped where a `.tofu` file of the same name
/// exists. `Err` when the directory cannot be read.
pub fn config_dir_files(dir: &Path) -> Result<(Vec<String>, Vec<String>), std::io::Error> {
    config_dir_files_in(&OsFiles, dir)
}

fn config_dir_files_in(
    files: &dyn ConfigFiles,
    dir: &Path,
) -> Result<(Vec<String>, Vec<String>), std::io::Error> {
    let mut names = files.list(dir)?;
    names.sort();
    let mut primary = Vec::new();
    let mut overrides = Vec::new();
    for name in names {
        let Some(ext) = file_ext(&name) else { continue };
        if is_ignored_file(&name) || is_test_ext(ext) {
            continue;
        }
        let base = &name[..name.len() - ext.len()];
        if base == "override" || base.ends_with("_override") {
            overrides.push(name);
        } else {
            primary.push(name);
        }
    }
    Ok((
        filter_tofu_alternatives(primary),
        filter_tofu_alternatives(overrides),
    ))
}

fn filter_tofu_alternatives(names: Vec<String>) -> Vec<String> {
    names
        .iter()
        .filter(|n| {
            let alternative = if let Some(stem) = n.strip_suffix(".tf") {
                format!("{stem}.tofu")
            } else if let Some(stem) = n.strip_suffix(".tf.json") {
                format!("{stem}.tofu.json")
            } else {
                return true;
            };
            !names.contains(&alternative)
        })
        .cloned()
        .collect()
}

/// `dir/name` as diagnostics show it: relative paths stay relative, and
/// files of the current directory have no `./` prefix.
fn display_name(dir: &Path, name: &str) -> String {
    let d = path_string(dir);
    if d == "." || d.is_empty() {
        name.to_string()
    } else if d.ends_with('/') {
        format!("{d}{name}")
    } else {
        format!("{d}/{name}")
    }
}

/// Reads and parses one configuration file; `None` when it cannot be read.
pub fn parse_config_file(
    path: &Path,
    display: &str,
) -> (Option<terrace_syntax::ast::File>, Diagnostics) {
    parse_config_file_in(&OsFiles, path, display)
}

fn parse_config_file_in(
    files: &dyn ConfigFiles,
    path: &Path,
    display: &str,
) -> (Option<terrace_syntax::ast::File>, Diagnostics) {
    let bytes = match files.read(path) {
        Ok(b) => b,
        Err(_) => {
            return (
                None,
                vec![Diagnostic::error(
                    "Failed to read file",
                    format!("The file {} could not be read.", quote(display)),
                )],
            )
        }
    };
    let mut diags = Vec::new();
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            diags.push(Diagnostic::error(
                "Invalid character encoding",
                format!(
                    "The file {} is not valid UTF-8. All input files must be UTF-8 encoded.",
                    quote(display)
                ),
            ));
            String::from_utf8_lossy(e.as_bytes()).into_owned()
        }
    };
    let (file, parse_diags) = terrace_syntax::parse_file(display, &text);
    diags.extend(parse_diags);
    (Some(file), diags)
}

/// Reads, parses and decodes one configuration file on its own (OpenTofu's
/// `LoadConfigFile`). `None` when it cannot be read.
pub fn decode_config_file(path: &Path, is_override: bool) -> (Option<File>, Diagnostics) {
    let display = path_string(path);
    let (parsed, mut diags) = parse_config_file(path, &display);
    let Some(parsed) = parsed else {
        return (None, diags);
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (file, more) = decode_file(&Body::from_file(&parsed), &name, is_override);
    diags.extend(more);
    (Some(file), diags)
}

/// Parses and decodes the files of one module directory into a module
/// (OpenTofu's `LoadConfigDir`), without static evaluation. `None` when the
/// directory cannot be read.
pub fn load_module_dir(dir: &Path) -> (Option<Module>, Diagnostics) {
    load_module_dir_in(&OsFiles, dir)
}

fn load_module_dir_in(files: &dyn ConfigFiles, dir: &Path) -> (Option<Module>, Diagnostics) {
    match config_dir_files_in(files, dir) {
        Ok((primary, overrides)) => {
            let (module, diags) = load_module_files_in(files, dir, &primary, &overrides);
            (Some(module), diags)
        }
        Err(_) => (
            None,
            vec![Diagnostic::error(
                "Failed to read module directory",
                format!(
                    "Module directory {} does not exist or cannot be read.",
                    path_string(dir)
                ),
            )],
        ),
    }
}

/// Builds a module from the named files of `dir` (primary files, then
/// override files), without static evaluation.
pub fn load_module_files(
    dir: &Path,
    primary_names: &[String],
    override_names: &[String],
) -> (Module, Diagnostics) {
    load_module_files_in(&OsFiles, dir, primary_names, override_names)
}

fn load_module_files_in(
    source: &dyn ConfigFiles,
    dir: &Path,
    primary_names: &[String],
    override_names: &[String],
) -> (Module, Diagnostics) {
    let mut diags = Vec::new();
    let mut sources = Vec::new();
    let mut incompatibilities = Vec::new();
    let mut load = |names: &[String], is_override: bool, diags: &mut Diagnostics| -> Vec<File> {
        let mut files = Vec::new();
        for name in names {
            let display = display_name(dir, name);
            let (parsed, d) = parse_config_file_in(source, &dir.join(name), &display);
            diags.extend(d);
            let Some(parsed) = parsed else { continue };
            let body = Body::from_file(&parsed);
            let (file, d) = decode_file(&body, name, is_override);
            diags.extend(d);
            incompatibilities.extend(file.incompatibilities.iter().cloned());
            sources.push(parsed.source.clone());
            files.push(file);
        }
        files
    };
    let primary = load(primary_names, false, &mut diags);
    let overrides = load(override_names, true, &mut diags);
    let (mut module, module_diags) = new_module(primary, overrides, dir.to_path_buf());
    diags.extend(module_diags);
    module.files = sources;
    if !incompatibilities.is_empty() {
        // A module declared incompatible probably uses features this
        // version does not know; only the incompatibility is worth saying.
        diags = incompatibilities;
    }
    (module, diags)
}

// ----- static evaluation of a loaded module -----

/// OpenTofu's `Module.WithStaticCall`: everything in a module that must be
/// known while loading, evaluated in its static context.
pub fn apply_static_context(
    module: &mut Module,
    ctx: &StaticContext,
    call_range: &SourceRange,
) -> Diagnostics {
    let mut diags = Vec::new();
    let names: Vec<String> = module.module_calls.keys().cloned().collect();
    for name in names {
        if let Some(mc) = module.module_calls.get_mut(&name) {
            diags.extend(decode_static_module_call(mc, ctx));
        }
    }
    let keys: Vec<String> = module.provider_configs.keys().cloned().collect();
    for key in keys {
        let at_walk = module.provider_configs[&key]
            .for_each
            .as_ref()
            .is_some_and(|e| refers_to_walk_values(e, &module.locals));
        if let Some(p) = module.provider_configs.get_mut(&key) {
            if at_walk {
                p.for_each_at_walk = true;
                continue;
            }
            diags.extend(decode_static_provider(p, ctx));
        }
    }
    let ident = ctx.identifier("", call_range.clone());
    for v in module.variables.values() {
        if v.is_const {
            let (_, d) = ctx.variable_value_from(&v.name, &v.decl_range, &ident);
            diags.extend(d);
        }
    }
    diags
}

/// OpenTofu's `ModuleCall.decodeStaticFields`: the `version` and `source`
/// of a module call, evaluated statically and parsed.
pub fn decode_static_module_call(mc: &mut ModuleCall, ctx: &StaticContext) -> Diagnostics {
    let mut diags = Vec::new();
    if let Some(attr) = mc.version_attr.clone() {
        let ident = ctx.identifier(format!("module.{}.version", mc.name), attr.range.clone());
        let (value, d) = ctx.evaluate(&attr.expr, &ident);
        let failed = has_errors(&d);
        diags.extend(d);
        if failed {
            return diags;
        }
        if value.is_null() {
            mc.version_attr = None;
        } else {
            let (v, d) = decode_version_constraint_value(&attr, &value);
            diags.extend(d);
            mc.version = v;
        }
    }
    let Some(source) = mc.source.clone() else {
        return diags;
    };
    let ident = ctx.identifier(format!("module.{}.source", mc.name), source.range());
    let (raw, d) = decode_static_string(ctx, &source, &ident);
    diags.extend(d);
    let Some(raw) = raw else {
        return diags;
    };
    mc.source_addr_raw = Some(raw.clone());
    let parsed = if mc.version_attr.is_some() {
        parse_module_source_registry(&raw)
    } else {
        parse_module_source(&raw)
    };
    match parsed {
        Ok(s) => mc.source_addr = Some(s),
        Err(ModuleSourceError::MaybeRelativePath(addr)) => diags.push(
            Diagnostic::error(
                "Invalid module source address",
                format!("{PRODUCT} failed to determine your intended installation method for remote module package {}.\n\nIf you intended this as a path relative to the current module, use \"./{addr}\" instead. The \"./\" prefix indicates that the address is a relative filesystem path.", quote(&addr)),
            )
            .with_subject(source.range()),
        ),
        Err(e) if mc.version_attr.is_some() => diags.push(
            Diagnostic::error(
                "Invalid registry module source address",
                format!("Failed to parse module registry address: {e}.\n\n{PRODUCT} assumed that you intended a module registry source address because you also set the argument \"version\", which applies only to registry modules."),
            )
            .with_subject(source.range()),
        ),
        Err(e) => diags.push(
            Diagnostic::error(
                "Invalid module source address",
                format!("Failed to parse module source address: {e}."),
            )
            .with_subject(source.range()),
        ),
    }
    diags
}

/// A static string (OpenTofu's `StaticEvaluator.DecodeExpression` into a
/// string).
fn decode_static_string(
    ctx: &StaticContext,
    expr: &Expression,
    ident: &StaticIdentifier,
) -> (Option<String>, Diagnostics) {
    let (value, mut diags) = ctx.evaluate_for_use(expr, ident);
    let Some(value) = value else {
        return (None, diags);
    };
    let unsuitable = |detail: String| {
        Diagnostic::error(
            "Unsuitable value type",
            format!("Unsuitable value: {detail}"),
        )
        .with_subject(expr.start_range())
        .with_context(expr.range())
    };
    match terrace_value::convert::convert(&value, &Type::String) {
        Err(e) => {
            diags.push(unsuitable(e.to_string()));
            (None, diags)
        }
        Ok(v) if v.is_null() => {
            diags.push(unsuitable("null value is not allowed".into()));
            (None, diags)
        }
        Ok(v) if !v.is_known() => {
            diags.push(unsuitable("value must be known".into()));
            (None, diags)
        }
        Ok(v) => (v.as_str().map(str::to_string), diags),
    }
}

const UNKNOWN_FOR_EACH_DYNAMIC: &str = "The \"for_each\" value includes keys or set values from resource attributes that cannot be determined until apply, and so {PRODUCT} cannot determine what will identify the instances of this resource.\n\nWhen working with unknown values in for_each, it's better to define the map keys statically in your configuration and place apply-time results only in the map values.\n\n";
const UNKNOWN_FOR_EACH_MAP: &str = "The \"for_each\" map includes keys derived from resource attributes that cannot be determined until apply, and so {PRODUCT} cannot determine the full set of keys that will identify the instances of this resource.\n\nWhen working with unknown values in for_each, it's better to define the map keys statically in your configuration and place apply-time results only in the map values.\n\n";
const UNKNOWN_FOR_EACH_SET: &str = "The \"for_each\" set includes values derived from resource attributes that cannot be determined until apply, and so {PRODUCT} cannot determine the full set of keys that will identify the instances of this resource.\n\nWhen working with unknown values in for_each, it's better to use a map value where the keys are defined statically in your configuration and where only the values contain apply-time results.\n\n";

/// Why a `for_each` value of type `ty` that is not known yet cannot expand,
/// as the plan and the loader's static evaluation both say it: the part
/// about the value, before the advice on what to do.
pub fn unknown_for_each_detail(ty: &Type) -> String {
    let detail = match ty {
        Type::Map(_) | Type::Object(_) => UNKNOWN_FOR_EACH_MAP,
        Type::Set(_) => UNKNOWN_FOR_EACH_SET,
        _ => UNKNOWN_FOR_EACH_DYNAMIC,
    };
    detail.replace("{PRODUCT}", PRODUCT)
}

const TARGET_SUGGESTION: &str = "Alternatively, you could use the -target option to first apply only the resources that for_each depends on, and then apply normally to converge.";

/// OpenTofu's `evalchecks.EvaluateForEachExpression` in a static context:
/// the instances a `for_each` expands to, keyed by instance key, or the
/// diagnostics explaining why the value is unsuitable.
pub fn evaluate_static_for_each(
    ctx: &StaticContext,
    expr: &Expression,
    ident: &StaticIdentifier,
) -> (BTreeMap<String, Value>, Diagnostics) {
    let (value, mut diags, context_ok) = ctx.evaluate_parts(expr, ident);
    if !context_ok {
        return (BTreeMap::new(), diags);
    }
    let range = expr.range();
    let invalid = |detail: String| {
        Diagnostic::error("Invalid for_each argument", detail).with_subject(range.clone())
    };
    let value_checks = |unknown_detail: &str, checked: &Value| -> Diagnostics {
        let mut out = Vec::new();
        if !checked.is_known() || !value.is_known() {
            out.push(invalid(format!(
                "{}{TARGET_SUGGESTION}",
                unknown_detail.replace("{PRODUCT}", PRODUCT)
            )));
        }
        if value.is_null() {
            out.push(invalid("The given \"for_each\" argument value is unsuitable: the given \"for_each\" argument value is null.".into()));
        }
        let marks = value.deep_marks();
        if marks.is_sensitive() {
            out.push(invalid("Sensitive values, or values derived from sensitive values, cannot be used as for_each arguments. If used, the sensitive value could be exposed as a resource instance key.".into()));
        }
        if marks.is_ephemeral() {
            out.push(invalid("Ephemeral values, or values derived from ephemeral values, cannot be used as for_each arguments. If used, the ephemeral value could be exposed as a resource instance key.".into()));
        }
        out
    };
    let ty = value.ty().clone();
    match &ty {
        Type::Dynamic => diags.extend(value_checks(UNKNOWN_FOR_EACH_DYNAMIC, &value)),
        Type::Map(_) | Type::Object(_) => diags.extend(value_checks(UNKNOWN_FOR_EACH_MAP, &value)),
        Type::Set(elem) => {
            let mut type_diags = Vec::new();
            if !matches!(**elem, Type::String | Type::Dynamic) {
                type_diags.push(invalid(format!("The given \"for_each\" argument value is unsuitable: \"for_each\" supports sets of strings, but you have provided a set containing type {}.", elem.friendly_name())));
            }
            let mut set_value_diags = Vec::new();
            let mut checked = value.clone();
            if !value.is_wholly_known() {
                checked = Value::unknown(ty.clone());
            } else if !value.is_null() {
                let (plain, _) = value.unmark_deep();
                if plain
                    .as_elements()
                    .is_some_and(|e| e.iter().any(Value::is_null))
                {
                    set_value_diags.push(invalid("The given \"for_each\" argument value is unsuitable: \"for_each\" sets must not contain null values.".into()));
                }
            }
            diags.extend(value_checks(UNKNOWN_FOR_EACH_SET, &checked));
            diags.extend(set_value_diags);
            diags.extend(type_diags);
        }
        _ => {
            diags.extend(value_checks(UNKNOWN_FOR_EACH_DYNAMIC, &value));
            diags.push(invalid(format!("The given \"for_each\" argument value is unsuitable: the \"for_each\" argument must be a map, or set of strings, and you have provided a value of type {}.", ty.friendly_name())));
        }
    }
    if has_errors(&diags) || value.is_null() || !value.is_known() {
        return (BTreeMap::new(), diags);
    }
    let (plain, _) = value.unmark_deep();
    let mut out = BTreeMap::new();
    if let Some(attrs) = plain.as_attributes() {
        for (k, v) in attrs {
            out.insert(k.clone(), v.clone());
        }
    } else if let Some(elems) = plain.as_elements() {
        for e in elems {
            if let Some(s) = e.as_str() {
                out.insert(s.to_string(), e.clone());
            }
        }
    }
    (out, diags)
}

/// Whether `expr` refers, directly or through local values, to something
/// only a plan walk knows: a resource, a data source or a module's
/// outputs. A provider `for_each` that does is expanded during the walk
/// instead of when the configuration loads.
fn refers_to_walk_values(expr: &Expression, locals: &BTreeMap<String, Local>) -> bool {
    use terrace_lang::references::{references, Subject};
    let mut pending = vec![expr];
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    while let Some(e) = pending.pop() {
        let (evaluable, _) = e.evaluable();
        for r in references(evaluable, e.file()).0 {
            match &r.subject {
                Subject::Resource(_)
                | Subject::ResourceInstance { .. }
                | Subject::ModuleCall(_)
                | Subject::ModuleCallInstance { .. }
                | Subject::ModuleCallInstanceOutput { .. } => return true,
                Subject::LocalValue(name) => {
                    if let Some((key, local)) = locals.get_key_value(name.as_str()) {
                        if seen.insert(key.as_str()) {
                            pending.push(&local.expr);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    false
}

fn decode_static_provider(p: &mut Provider, ctx: &StaticContext) -> Diagnostics {
    let Some(for_each) = p.for_each.clone() else {
        return Vec::new();
    };
    let ident = ctx.identifier(
        format!(
            "provider.{}.{}.for_each",
            p.name,
            p.alias.as_deref().unwrap_or("")
        ),
        for_each.range(),
    );
    if ctx.decides_missing_values_later() {
        let (value, _) = ctx.evaluate(&for_each, &ident);
        if !value.is_wholly_known() {
            return Vec::new();
        }
    }
    let (instances, diags) = evaluate_static_for_each(ctx, &for_each, &ident);
    if has_errors(&diags) {
        return diags;
    }
    p.instances = Some(
        instances
            .into_iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    RepetitionData {
                        each_key: Value::string(k),
                        each_value: v,
                    },
                )
            })
            .collect(),
    );
    diags
}

// ----- the module tree -----

/// One record of `.terraform/modules/modules.json`.
#[derive(Clone, Debug)]
pub struct ManifestRecord {
    pub key: String,
    pub source: String,
    pub version: Option<String>,
    /// Relative to the root module's directory.
    pub dir: String,
}

/// Reads `.terraform/modules/modules.json` under `root`; an absent file is
/// an empty manifest.
pub fn read_module_manifest(root: &Path) -> (HashMap<String, ManifestRecord>, Diagnostics) {
    read_module_manifest_in(&OsFiles, root)
}

fn read_module_manifest_in(
    files: &dyn ConfigFiles,
    root: &Path,
) -> (HashMap<String, ManifestRecord>, Diagnostics) {
    let path = manifest_path(root);
    let Some(text) = files.module_manifest(root) else {
        return (HashMap::new(), Vec::new());
    };
    let bad = |why: String| {
        (
            HashMap::new(),
            vec![Diagnostic::error(
                "Failed to read module manifest",
                format!("The module manifest {} could not be read: {why}. Run \"{PRODUCT} init\" to reinstall the modules.", path_string(&path)),
            )],
        )
    };
    let json: serde_json::Value = match serde_json::from_str(&text) {
        Ok(j) => j,
        Err(e) => return bad(e.to_string()),
    };
    let Some(modules) = json.get("Modules").and_then(|m| m.as_array()) else {
        return bad("it has no \"Modules\" list".into());
    };
    let mut out = HashMap::new();
    for m in modules {
        let field = |name: &str| m.get(name).and_then(|v| v.as_str()).map(str::to_string);
        let Some(key) = field("Key") else { continue };
        out.insert(
            key.clone(),
            ManifestRecord {
                key,
                source: field("Source").unwrap_or_default(),
                version: field("Version").filter(|v| !v.is_empty()),
                dir: field("Dir").unwrap_or_default(),
            },
        );
    }
    (out, Vec::new())
}

/// `base/rel`, cleaned the way Go's `filepath.Join` cleans.
pub fn join_clean(base: &Path, rel: &str) -> PathBuf {
    let joined = format!("{}/{}", path_string(base), rel.replace('\\', "/"));
    PathBuf::from(clean_path(&joined))
}

struct TreeBuilder<'a> {
    files: &'a dyn ConfigFiles,
    root_dir: PathBuf,
    options: &'a LoadOptions,
    settings: StaticSettings,
    manifest: HashMap<String, ManifestRecord>,
    /// Each module directory as loaded (before static evaluation), by the
    /// path its calls name it with (the path is part of the module: its
    /// `source_dir` and the file names of diagnostics): a directory called
    /// many times is read, parsed and decoded once, and its calls share the
    /// syntax trees.
    loaded_directories: RefCell<HashMap<PathBuf, (Option<Module>, Diagnostics)>>,
}

/// Loads the module tree rooted at `root_dir` (OpenTofu's `LoadConfig`).
/// Provider configuration rules are not checked here; they run over the
/// returned tree.
pub fn load_config(root_dir: &Path, options: &LoadOptions) -> (Config, Diagnostics) {
    load_config_from(&OsFiles, root_dir, options)
}

/// [`load_config`] with the files from `files` (a plan's snapshot).
pub fn load_config_from(
    files: &dyn ConfigFiles,
    root_dir: &Path,
    options: &LoadOptions,
) -> (Config, Diagnostics) {
    let cwd = std::env::current_dir()
        .ok()
        .and_then(|d| std::fs::canonicalize(d).ok())
        .unwrap_or_default();
    let settings = StaticSettings {
        root_dir: path_string(root_dir),
        workspace: options.workspace.clone(),
        cwd,
    };
    let (manifest, mut diags) = if options.use_module_manifest {
        read_module_manifest_in(files, root_dir)
    } else {
        (HashMap::new(), Vec::new())
    };
    let builder = TreeBuilder {
        files,
        root_dir: root_dir.to_path_buf(),
        options,
        settings,
        manifest,
        loaded_directories: RefCell::new(HashMap::new()),
    };
    let (module, load_diags) = load_module_dir_in(files, root_dir);
    let module = module.unwrap_or_else(|| Module {
        source_dir: root_dir.to_path_buf(),
        ..Module::default()
    });
    let failed = has_errors(&load_diags);
    diags.extend(load_diags);
    let (config, more) = builder.build_root(module, !failed);
    diags.extend(more);
    // A module loaded without errors but written for another Terraform
    // version is refused; errors in loading are shown alone, as
    // terraform shows them.
    if !has_errors(&diags) {
        diags.extend(check_terraform_versions(&config));
    }
    (config, diags)
}

/// Terraform's `CheckCoreVersionRequirements`: every module whose `.tf`
/// files' `required_version` excludes [`TERRAFORM_VERSION`], the release
/// terrace follows.
pub fn check_terraform_versions(config: &Config) -> Diagnostics {
    let Ok(current) = Version::parse(TERRAFORM_VERSION) else {
        return Vec::new();
    };
    let mut diags = Vec::new();
    let mut pending = vec![config];
    while let Some(c) = pending.pop() {
        for constraint in &c.module.terraform_version_constraints {
            if constraint.required.check(&current) {
                continue;
            }
            let subject = if c.path.is_empty() {
                format!(
                    "This configuration does not support Terraform version {TERRAFORM_VERSION}."
                )
            } else {
                format!(
                    "Module module.{} (from {}) does not support Terraform version {TERRAFORM_VERSION}.",
                    c.path.join(".module."),
                    c.source_addr_raw.as_deref().unwrap_or_default()
                )
            };
            diags.push(
                Diagnostic::error(
                    "Unsupported Terraform Core version",
                    format!("{subject} To proceed, either choose another supported Terraform version or update this version constraint. Version constraints are normally set for good reason, so updating the constraint may lead to other errors or unexpected behavior."),
                )
                .with_subject(constraint.decl_range.clone()),
            );
        }
        pending.extend(c.children.values());
    }
    diags
}

impl TreeBuilder<'_> {
    fn context(
        &self,
        path: Vec<String>,
        module: &Module,
        values: VariableValues,
    ) -> Arc<StaticContext> {
        Arc::new(StaticContext::new(
            path,
            module.variables.clone(),
            module.locals.clone(),
            &module.source_dir,
            &self.settings,
            values,
        ))
    }

    fn build_root(&self, module: Module, build_children: bool) -> (Config, Diagnostics) {
        let values = VariableValues::Root {
            values: self.options.input_values.clone(),
            missing: self.options.missing_root_variable,
        };
        let ctx = self.context(Vec::new(), &module, values);
        self.finish_root(module, ctx, build_children)
    }

    fn finish_root(
        &self,
        mut module: Module,
        ctx: Arc<StaticContext>,
        build_children: bool,
    ) -> (Config, Diagnostics) {
        let mut diags = apply_static_context(&mut module, &ctx, &SourceRange::default());
        let mut config = Config {
            path: Vec::new(),
            module,
            children: BTreeMap::new(),
            call_range: None,
            source_addr: None,
            source_addr_raw: None,
            source_addr_range: None,
            version: None,
            static_context: ctx,
        };
        if build_children {
            let canonical_root = self
                .files
                .canonical(&self.root_dir)
                .unwrap_or_else(|_| self.root_dir.clone());
            let (children, more) = self.build_children(&config, &[canonical_root]);
            config.children = children;
            diags.extend(more);
        }
        (config, diags)
    }

    fn build_children(
        &self,
        parent: &Config,
        ancestors: &[PathBuf],
    ) -> (BTreeMap<String, Config>, Diagnostics) {
        let mut diags = Vec::new();
        let mut out = BTreeMap::new();
        for (name, call) in &parent.module.module_calls {
            let mut path = parent.path.clone();
            path.push(name.clone());
            let (child, more) = self.load_child(parent, call, path, ancestors);
            diags.extend(more);
            if let Some(child) = child {
                out.insert(name.clone(), child);
            }
        }
        (out, diags)
    }

    /// The directory a call's module is in, or the diagnostics saying why
    /// there is none.
    fn resolve_dir(
        &self,
        parent: &Config,
        call: &ModuleCall,
        path: &[String],
    ) -> Result<(PathBuf, Option<Version>), Diagnostics> {
        let source_range = call
            .source
            .as_ref()
            .map(Expression::range)
            .unwrap_or_else(|| call.decl_range.clone());
        let Some(source) = &call.source_addr else {
            // The source is missing or invalid, which was reported already.
            return Err(Vec::new());
        };
        if let ModuleSource::Local(rel) = source {
            let base = match self.options.local_source_base {
                LocalSourceBase::CallingModule => &parent.module.source_dir,
                LocalSourceBase::Root => &self.root_dir,
            };
            return Ok((join_clean(base, rel), None));
        }
        let key = path.join(".");
        let Some(record) = self.manifest.get(&key) else {
            return Err(vec![Diagnostic::error(
                "Module not installed",
                format!(
                    "This module is not yet installed. {}",
                    crate::module::init_hint()
                ),
            )
            .with_subject(call.decl_range.clone())]);
        };
        let mut diags = Vec::new();
        let matches_source =
            record.source == source.to_string() || record.source == source.for_display();
        if !matches_source {
            if let ModuleSource::Registry(_) = source {
                diags.push(
                    Diagnostic::error(
                        "Module source has changed",
                        format!("The source address was changed from {} to {} since this module was installed. {}", quote(&record.source), quote(&source.to_string()), crate::module::init_hint()),
                    )
                    .with_subject(source_range.clone()),
                );
            }
        }
        let installed = record
            .version
            .as_deref()
            .and_then(|v| Version::parse(v).ok());
        if let Some(constraint) = &call.version {
            if !constraint.required.is_empty() {
                match &installed {
                    None => diags.push(
                        Diagnostic::error(
                            "Module version requirements have changed",
                            format!("The version requirements have changed since this module was installed and the installed version is no longer acceptable. {}", crate::module::init_hint()),
                        )
                        .with_subject(source_range.clone()),
                    ),
                    Some(v) if !constraint.required.check(v) => diags.push(
                        Diagnostic::error(
                            "Module version requirements have changed",
                            format!("The version requirements have changed since this module was installed and the installed version ({v}) is no longer acceptable. {}", crate::module::init_hint()),
                        )
                        .with_subject(source_range.clone()),
                    ),
                    Some(_) => {}
                }
            }
        }
        if has_errors(&diags) {
            return Err(diags);
        }
        Ok((join_clean(&self.root_dir, &record.dir), installed))
    }

    /// [`load_module_dir_in`], remembered per directory path.
    fn load_directory(&self, dir: &Path) -> (Option<Module>, Diagnostics) {
        if let Some(loaded) = self.loaded_directories.borrow().get(dir) {
            return loaded.clone();
        }
        let loaded = load_module_dir_in(self.files, dir);
        self.loaded_directories
            .borrow_mut()
            .insert(dir.to_path_buf(), loaded.clone());
        loaded
    }

    fn load_child(
        &self,
        parent: &Config,
        call: &ModuleCall,
        path: Vec<String>,
        ancestors: &[PathBuf],
    ) -> (Option<Config>, Diagnostics) {
        let source_range = call.source.as_ref().map(Expression::range);
        let (dir, version) = match self.resolve_dir(parent, call, &path) {
            Ok(d) => d,
            Err(diags) => return (None, diags),
        };
        let call_subject = source_range
            .clone()
            .unwrap_or_else(|| call.decl_range.clone());
        let Ok(canonical) = self.files.canonical(&dir) else {
            return (
                None,
                vec![Diagnostic::error(
                    "Unreadable module directory",
                    format!(
                        "The directory {} could not be read for module {} at {}:{}.",
                        path_string(&dir),
                        quote(&call.name),
                        call.decl_range.filename,
                        call.decl_range.start.line
                    ),
                )
                .with_subject(call_subject)],
            );
        };
        if ancestors.contains(&canonical) || ancestors.len() > MAX_MODULE_DEPTH {
            let detail = if ancestors.contains(&canonical) {
                format!("The module call {} loads {}, which is already loaded by a module that leads to this call ({}). A module cannot call itself, directly or through other modules.", module_path_string(&path), path_string(&dir), if parent.path.is_empty() { "the root module".to_string() } else { module_path_string(&parent.path) })
            } else {
                format!(
                    "The module call {} is nested more than {MAX_MODULE_DEPTH} modules deep.",
                    module_path_string(&path)
                )
            };
            return (
                None,
                vec![Diagnostic::error("Recursive module call", detail).with_subject(call_subject)],
            );
        }
        let (module, mut diags) = self.load_directory(&dir);
        let Some(mut module) = module else {
            return (
                None,
                vec![Diagnostic::error(
                    "Unreadable module directory",
                    format!(
                        "The directory {} could not be read for module {} at {}:{}.",
                        path_string(&dir),
                        quote(&call.name),
                        call.decl_range.filename,
                        call.decl_range.start.line
                    ),
                )
                .with_subject(call_subject)],
            );
        };
        let (arguments, _) = call.config.just_attributes();
        let values = VariableValues::Call {
            parent: parent.static_context.clone(),
            arguments: arguments.into_iter().map(|a| (a.name.clone(), a)).collect(),
            missing_item_range: call.config.missing_item_range(),
        };
        let ctx = self.context(path.clone(), &module, values);
        diags.extend(apply_static_context(&mut module, &ctx, &call.decl_range));
        let mut config = Config {
            path,
            module,
            children: BTreeMap::new(),
            call_range: Some(call.decl_range.clone()),
            source_addr: call.source_addr.clone(),
            source_addr_raw: call.source_addr_raw.clone(),
            source_addr_range: source_range,
            version,
            static_context: ctx,
        };
        let mut chain = ancestors.to_vec();
        chain.push(canonical);
        let (children, more) = self.build_children(&config, &chain);
        config.children = children;
        diags.extend(more);
        if let Some(backend) = &config.module.backend {
            diags.push(
                Diagnostic::warning(
                    "Backend configuration ignored",
                    format!("Any selected backend applies to the entire configuration, so {PRODUCT} expects provider configurations only in the root module.\n\nThis is a warning rather than an error because it's sometimes convenient to temporarily call a root module as a child module for testing purposes, but this backend configuration block will have no effect."),
                )
                .with_subject(backend.decl_range.clone()),
            );
        }
        if let Some(first) = config.module.imports.first() {
            diags.push(
                Diagnostic::error(
                    "Invalid import configuration",
                    format!("An import block was detected in {}. Import blocks are only allowed in the root module.", quote(&config.path_string())),
                )
                .with_subject(first.decl_range.clone()),
            );
        }
        (Some(config), diags)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use terrace_testsupport::TempDir;

    /// A scratch directory holding the empty files `files`.
    fn scratch(name: &str, files: &[&str]) -> TempDir {
        let dir = TempDir::new(&format!("config-{name}"));
        for f in files {
            dir.write(f, "");
        }
        dir
    }

    #[test]
    fn directory_files_follow_opentofu_rules() {
        let dir = scratch(
            "files",
            &[
                "main.tf",
                "main.tofu",
                "vars.tf.json",
                "vars.tofu.json",
                "only.tf",
                "override.tf",
                "a_override.tf.json",
                "b_override.tf",
                "b_override.tofu",
                "test.tftest.hcl",
                ".hidden.tf",
                "backup.tf~",
                "#emacs.tf#",
                "notes.txt",
                "sub/ignored.tf",
            ],
        );
        let files = config_dir_files(dir.path());
        let Ok((primary, overrides)) = files else {
            panic!("cannot read {}", dir.path().display())
        };
        assert_eq!(primary, ["main.tofu", "only.tf", "vars.tofu.json"]);
        assert_eq!(
            overrides,
            ["a_override.tf.json", "b_override.tofu", "override.tf"]
        );
        assert!(config_dir_files(&dir.join("missing")).is_err());
    }

    #[test]
    fn display_names_and_joins() {
        assert_eq!(display_name(Path::new("."), "main.tf"), "main.tf");
        assert_eq!(
            display_name(Path::new("modules/x"), "main.tf"),
            "modules/x/main.tf"
        );
        assert_eq!(
            join_clean(Path::new("."), "./modules/x"),
            PathBuf::from("modules/x")
        );
        assert_eq!(
            join_clean(Path::new("modules/x"), "../y"),
            PathBuf::from("modules/y")
        );
        assert_eq!(
            join_clean(Path::new("/abs/a"), "../b"),
            PathBuf::from("/abs/b")
        );
        assert_eq!(
            module_path_string(&["a".into(), "b".into()]),
            "module.a.module.b"
        );
    }

    #[test]
    fn unreadable_root_is_a_diagnostic() {
        let (config, diags) = load_config(
            Path::new("/nonexistent/terrace/dir"),
            &LoadOptions::default(),
        );
        assert!(config.children.is_empty());
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].summary, "Failed to read module directory");
    }
}
