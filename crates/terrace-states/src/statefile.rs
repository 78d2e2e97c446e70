//! The state file, format version 4, read and written as Terraform 1.11
//! and OpenTofu do: `write(read(file)) == file` for every file they write.
//!
//! Reading goes in Go's two phases: first the JSON is decoded into the
//! file's structure (a mismatch is one "Invalid state file format" error
//! naming the field, as `encoding/json` reports the first one), then the
//! structure is checked and turned into a [`State`] (addresses parsed,
//! instance keys, statuses, deposed keys, outputs typed), collecting every
//! problem.
//!
//! Provider instances (`for_each` on a provider block): the writer puts `"provider"` (with the
//! provider instance key) on each instance only for resources where some
//! instance has a provider key, and on the resource otherwise; the reader
//! takes both, warns when an instance has both, and refuses a resource
//! whose instances name different provider configurations.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use base64::Engine as _;
use terrace_addrs::{
    AbsProviderConfig, AbsProviderInstance, AbsResource, AbsResourceInstance, ConfigResource,
    InstanceKey, ModuleInstance, Resource, ResourceMode,
};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::convert::PathStep;
use terrace_value::gostr::quote;
use terrace_value::json as vjson;
use terrace_value::parallel::map_in_parallel;
use terrace_value::typejson;
use terrace_value::Type;

use crate::model::{
    AttrsJson, DeposedKey, EachMode, InstanceState, ObjectState, ObjectStatus, OutputState,
    ResourceState, SensitivePath, State, TERRAFORM_VERSION,
};
use terrace_gocompat::json::{self as gojson, Json, Node};

/// Summary of errors meaning "this is not a state file we can read".
pub const UNSUPPORTED_FORMAT: &str = "Unsupported state file format";
/// Summary of errors meaning "a state file, but malformed".
pub const INVALID_FORMAT: &str = "Invalid state file format";

// ===================================================================
// Reading
// ===================================================================

/// Reads a state file. Errors (and any warnings found with them) are the
/// `Err`; otherwise the state with its warnings.
pub fn read(src: &[u8]) -> Result<(State, Diagnostics), Diagnostics> {
    // Each object's attributes are kept as their text (what the reader
    // takes is their span in `src`), so they are not kept as a tree.
    let root = match gojson::parse_hollow(src, &["attributes"]) {
        Ok(root) => root,
        Err(e) => {
            return Err(vec![
                Diagnostic::error(
                    UNSUPPORTED_FORMAT,
                    format!(
                        "The state file could not be parsed as JSON: syntax error at byte offset {}.",
                        e.offset
                    ),
                ),
                no_version_attribute(),
            ]);
        }
    };
    let version = sniff_version(&root)?;
    match version {
        0 => Err(vec![Diagnostic::error(
            UNSUPPORTED_FORMAT,
            "The state file uses JSON syntax but has a version number of zero. There was never a JSON-based state format zero, so this state file is invalid and cannot be processed.",
        )]),
        4 => read_v4(&root, src),
        // terraform upgrades formats 1 to 3 (Terraform 0.11 and earlier)
        // as it reads them; terrace does not, and says so rather than
        // calling them newer.
        v @ 1..=3 => Err(vec![Diagnostic::error(
            UNSUPPORTED_FORMAT,
            format!(
                "The state file uses format version {v}, written by Terraform 0.11 or earlier. {} reads format version 4 only: upgrade the state with Terraform 0.12 or later (any plan and apply, or `terraform refresh`, writes version 4) and try again.",
                terrace_syntax::PRODUCT
            ),
        )]),
        v => {
            let detail = match sniff_terraform_version(&root) {
                Some(creator) => format!(
                    "The state file uses format version {v}, which is not supported by Terraform {TERRAFORM_VERSION}. This state file was created by Terraform {creator}."
                ),
                None => format!(
                    "The state file uses format version {v}, which is not supported by Terraform {TERRAFORM_VERSION}. This state file may have been created by a newer version of Terraform."
                ),
            };
            Err(vec![Diagnostic::error(UNSUPPORTED_FORMAT, detail)])
        }
    }
}

fn no_version_attribute() -> Diagnostic {
    Diagnostic::error(
        UNSUPPORTED_FORMAT,
        "The state file does not have a \"version\" attribute, which is required to identify the format version.",
    )
}

/// The `version` field as Go decodes it into a `*uint64`.
fn sniff_version(root: &Node) -> Result<u64, Diagnostics> {
    let type_error = |value: String| {
        Diagnostic::error(
            UNSUPPORTED_FORMAT,
            format!(
                "The version in the state file is {value}. A positive whole number is required."
            ),
        )
    };
    let members = match &root.json {
        Json::Object(m) => m,
        Json::Null => return Err(vec![no_version_attribute()]),
        // Go fails before it allocates the field, so "missing" follows.
        other => {
            return Err(vec![
                type_error(other.kind_name().to_string()),
                no_version_attribute(),
            ])
        }
    };
    match last_member(members, "version").map(|n| &n.json) {
        None | Some(Json::Null) => Err(vec![no_version_attribute()]),
        Some(Json::Number(lit)) => lit
            .parse::<u64>()
            .map_err(|_| vec![type_error(format!("number {lit}"))]),
        Some(other) => Err(vec![type_error(other.kind_name().to_string())]),
    }
}

/// `terraform_version`, when it is a valid version (for messages only).
fn sniff_terraform_version(root: &Node) -> Option<String> {
    let Json::Object(members) = &root.json else {
        return None;
    };
    match last_member(members, "terraform_version").map(|n| &n.json) {
        Some(Json::String(s)) if is_valid_version(s) => Some(s.clone()),
        _ => None,
    }
}

/// The member Go's struct decoding would use: the last one whose key
/// matches the field name exactly or case-insensitively.
fn last_member<'n>(members: &'n [(String, Node)], name: &str) -> Option<&'n Node> {
    members
        .iter()
        .rev()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, n)| n)
}

/// hashicorp/go-version's `NewVersion` grammar: `v1.2.3`, with an optional
/// pre-release (`-beta1`, or `beta1` without the dash) and metadata
/// (`+abc`).
pub fn is_valid_version(s: &str) -> bool {
    let s = s.strip_prefix('v').unwrap_or(s);
    let b = s.as_bytes();
    let mut i = 0;
    // Segments: digits (. digits)*
    let seg = |i: &mut usize| {
        let from = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > from
    };
    if !seg(&mut i) {
        return false;
    }
    while i < b.len() && b[i] == b'.' {
        let save = i;
        i += 1;
        if !seg(&mut i) {
            i = save;
            break;
        }
    }
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'-' || c == b'~';
    // Dot-separated identifier parts starting at `i`; at least one char in
    // the first.
    let parts = |i: &mut usize| loop {
        let from = *i;
        while *i < b.len() && ident(b[*i]) {
            *i += 1;
        }
        if *i == from {
            return false;
        }
        if *i < b.len() && b[*i] == b'.' && b.get(*i + 1).is_some_and(|c| ident(*c)) {
            *i += 1;
            continue;
        }
        return true;
    };
    if i < b.len() && b[i] != b'+' {
        let mut j = i;
        if b[j] == b'-' {
            j += 1;
        }
        let starts_ok = j < b.len()
            && (b[j].is_ascii_digit() && b[i] == b'-'
                || b[j].is_ascii_alphabetic()
                || b[j] == b'-'
                || b[j] == b'~');
        if !starts_ok || !parts(&mut j) {
            return false;
        }
        i = j;
    }
    if i < b.len() {
        if b[i] != b'+' {
            return false;
        }
        i += 1;
        if !parts(&mut i) {
            return false;
        }
    }
    i == b.len()
}

// ----- phase 1: the file's structure, decoded as Go decodes it -----

struct StateV4<'n> {
    terraform_version: String,
    serial: u64,
    lineage: String,
    outputs: BTreeMap<String, OutputV4<'n>>,
    resources: Vec<ResourceV4<'n>>,
    check_results: Option<Vec<CheckV4>>,
}

struct OutputV4<'n> {
    value: Option<&'n Node>,
    ty: Option<&'n Node>,
    sensitive: bool,
}

struct ResourceV4<'n> {
    module: String,
    mode: String,
    type_name: String,
    name: String,
    each: String,
    provider: String,
    instances: Vec<InstanceV4<'n>>,
}

struct InstanceV4<'n> {
    index_key: Option<&'n Node>,
    status: String,
    deposed: String,
    provider: String,
    schema_version: u64,
    attributes: Option<&'n Node>,
    attributes_flat: Option<BTreeMap<String, String>>,
    sensitive_attributes: Option<&'n Node>,
    private: Option<Vec<u8>>,
    dependencies: Vec<String>,
    create_before_destroy: bool,
}

struct CheckV4 {
    object_kind: String,
    config_addr: String,
    status: String,
    objects: Vec<CheckObjectV4>,
}

struct CheckObjectV4 {
    object_addr: String,
    status: String,
    failure_messages: Vec<String>,
}

/// Fields of Go type string, uint64 or bool; `type` is one too except in
/// outputs, where it is raw JSON.
const PRIMITIVE_FIELDS: &[&str] = &[
    "terraform_version",
    "serial",
    "lineage",
    "sensitive",
    "module",
    "mode",
    "name",
    "each",
    "provider",
    "status",
    "deposed",
    "schema_version",
    "create_before_destroy",
    "object_kind",
    "config_addr",
    "object_addr",
];

/// Go's decoder: remembers the first error and carries on with zero
/// values, as `json.Unmarshal` does.
#[derive(Default)]
struct Dec {
    error: Option<String>,
}

impl Dec {
    fn type_error(&mut self, field: &str, value: String) {
        if self.error.is_none() {
            self.error = Some(format!(
                "The state file field {} has invalid value {value}",
                quote(field)
            ));
        }
    }

    fn other_error(&mut self, message: String) {
        if self.error.is_none() {
            self.error = Some(format!(
                "The state file does not conform to the expected JSON data structure: {message}."
            ));
        }
    }

    /// The fields of a struct, each the last matching member; `None` for
    /// `null` (the struct keeps its zero value) or a type error.
    fn fields<'n, const N: usize>(
        &mut self,
        node: &'n Node,
        field: &str,
        names: [&str; N],
    ) -> Option<[Option<&'n Node>; N]> {
        match &node.json {
            Json::Object(members) => {
                let mut out = [None; N];
                for (key, value) in members {
                    let i = names
                        .iter()
                        .position(|n| *n == key)
                        .or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(key)));
                    let Some(i) = i else { continue };
                    // Go ignores null for strings, numbers and bools: an
                    // earlier value stays.
                    let primitive = PRIMITIVE_FIELDS.contains(&names[i])
                        || (names[i] == "type" && field != "outputs");
                    if matches!(value.json, Json::Null) && primitive {
                        continue;
                    }
                    out[i] = Some(value);
                }
                Some(out)
            }
            Json::Null => None,
            other => {
                self.type_error(field, other.kind_name().to_string());
                None
            }
        }
    }

    fn string(&mut self, node: Option<&Node>, field: &str) -> String {
        match node.map(|n| &n.json) {
            None | Some(Json::Null) => String::new(),
            Some(Json::String(s)) => s.clone(),
            Some(other) => {
                self.type_error(field, other.kind_name().to_string());
                String::new()
            }
        }
    }

    fn u64(&mut self, node: Option<&Node>, field: &str) -> u64 {
        match node.map(|n| &n.json) {
            None | Some(Json::Null) => 0,
            Some(Json::Number(lit)) => lit.parse::<u64>().unwrap_or_else(|_| {
                self.type_error(field, format!("number {lit}"));
                0
            }),
            Some(other) => {
                self.type_error(field, other.kind_name().to_string());
                0
            }
        }
    }

    fn bool(&mut self, node: Option<&Node>, field: &str) -> bool {
        match node.map(|n| &n.json) {
            None | Some(Json::Null) => false,
            Some(Json::Bool(b)) => *b,
            Some(other) => {
                self.type_error(field, other.kind_name().to_string());
                false
            }
        }
    }

    fn array<'n>(&mut self, node: Option<&'n Node>, field: &str) -> &'n [Node] {
        match node.map(|n| &n.json) {
            Some(Json::Array(items)) => items,
            None | Some(Json::Null) => &[],
            Some(other) => {
                self.type_error(field, other.kind_name().to_string());
                &[]
            }
        }
    }

    fn strings(&mut self, node: Option<&Node>, field: &str) -> Vec<String> {
        let items = self.array(node, field);
        items.iter().map(|n| self.string(Some(n), field)).collect()
    }

    /// A `map[string]T` member: `None` for absent or `null`.
    fn map<'n>(
        &mut self,
        node: Option<&'n Node>,
        field: &str,
    ) -> Option<BTreeMap<String, &'n Node>> {
        match node.map(|n| &n.json) {
            Some(Json::Object(members)) => {
                Some(members.iter().map(|(k, v)| (k.clone(), v)).collect())
            }
            None | Some(Json::Null) => None,
            Some(other) => {
                self.type_error(field, other.kind_name().to_string());
                None
            }
        }
    }

    /// A `[]byte` member: base64 (standard alphabet, padded; line breaks
    /// ignored, as Go's decoder ignores them).
    fn bytes(&mut self, node: Option<&Node>, field: &str) -> Option<Vec<u8>> {
        match node.map(|n| &n.json) {
            None | Some(Json::Null) => None,
            Some(Json::String(s)) => {
                let clean: String = s.chars().filter(|c| *c != '\r' && *c != '\n').collect();
                let engine = base64::engine::GeneralPurpose::new(
                    &base64::alphabet::STANDARD,
                    base64::engine::GeneralPurposeConfig::new()
                        .with_decode_allow_trailing_bits(true),
                );
                match engine.decode(clean.as_bytes()) {
                    Ok(b) => Some(b),
                    Err(e) => {
                        let at = match e {
                            base64::DecodeError::InvalidByte(at, _)
                            | base64::DecodeError::InvalidLastSymbol(at, _) => at,
                            _ => clean.len() - clean.len() % 4,
                        };
                        self.other_error(format!("illegal base64 data at input byte {at}"));
                        None
                    }
                }
            }
            Some(other) => {
                self.type_error(field, other.kind_name().to_string());
                None
            }
        }
    }

    /// An `interface{}` member: any value; numbers must fit a float64.
    fn any<'n>(&mut self, node: Option<&'n Node>, field: &str) -> Option<&'n Node> {
        match node {
            Some(n) if matches!(n.json, Json::Null) => None,
            Some(n) => {
                if let Json::Number(lit) = &n.json {
                    if !lit.parse::<f64>().is_ok_and(f64::is_finite) {
                        self.type_error(field, format!("number {lit}"));
                    }
                }
                Some(n)
            }
            None => None,
        }
    }
}

fn decode_v4(root: &Node) -> Result<StateV4<'_>, String> {
    let mut d = Dec::default();
    let f = d
        .fields(
            root,
            "",
            [
                "terraform_version",
                "serial",
                "lineage",
                "outputs",
                "resources",
                "check_results",
            ],
        )
        .unwrap_or_default();
    let mut state = StateV4 {
        terraform_version: d.string(f[0], "terraform_version"),
        serial: d.u64(f[1], "serial"),
        lineage: d.string(f[2], "lineage"),
        outputs: BTreeMap::new(),
        resources: Vec::new(),
        check_results: None,
    };
    for (name, node) in d.map(f[3], "outputs").unwrap_or_default() {
        let Some(of) = d.fields(node, "outputs", ["value", "type", "sensitive"]) else {
            continue;
        };
        let sensitive = d.bool(of[2], "outputs.sensitive");
        state.outputs.insert(
            name,
            OutputV4 {
                value: of[0],
                ty: of[1],
                sensitive,
            },
        );
    }
    for rnode in d.array(f[4], "resources") {
        let Some(rf) = d.fields(
            rnode,
            "resources",
            [
                "module",
                "mode",
                "type",
                "name",
                "each",
                "provider",
                "instances",
            ],
        ) else {
            continue;
        };
        let mut rs = ResourceV4 {
            module: d.string(rf[0], "resources.module"),
            mode: d.string(rf[1], "resources.mode"),
            type_name: d.string(rf[2], "resources.type"),
            name: d.string(rf[3], "resources.name"),
            each: d.string(rf[4], "resources.each"),
            provider: d.string(rf[5], "resources.provider"),
            instances: Vec::new(),
        };
        for inode in d.array(rf[6], "resources.instances") {
            let Some(i) = d.fields(
                inode,
                "resources.instances",
                [
                    "index_key",
                    "status",
                    "deposed",
                    "provider",
                    "schema_version",
                    "attributes",
                    "attributes_flat",
                    "sensitive_attributes",
                    "private",
                    "dependencies",
                    "create_before_destroy",
                ],
            ) else {
                continue;
            };
            let flat = d.map(i[6], "resources.instances.attributes_flat").map(|m| {
                m.into_iter()
                    .map(|(k, v)| {
                        let v = d.string(Some(v), "resources.instances.attributes_flat");
                        (k, v)
                    })
                    .collect()
            });
            rs.instances.push(InstanceV4 {
                index_key: d.any(i[0], "resources.instances.index_key"),
                status: d.string(i[1], "resources.instances.status"),
                deposed: d.string(i[2], "resources.instances.deposed"),
                provider: d.string(i[3], "resources.instances.provider"),
                schema_version: d.u64(i[4], "resources.instances.schema_version"),
                attributes: i[5],
                attributes_flat: flat,
                sensitive_attributes: i[7],
                private: d.bytes(i[8], "resources.instances.private"),
                dependencies: d.strings(i[9], "resources.instances.dependencies"),
                create_before_destroy: d.bool(i[10], "resources.instances.create_before_destroy"),
            });
        }
        state.resources.push(rs);
    }
    if let Some(cnode) = f[5].filter(|n| !matches!(n.json, Json::Null)) {
        let mut checks = Vec::new();
        for c in d.array(Some(cnode), "check_results") {
            let Some(cf) = d.fields(
                c,
                "check_results",
                ["object_kind", "config_addr", "status", "objects"],
            ) else {
                continue;
            };
            let mut check = CheckV4 {
                object_kind: d.string(cf[0], "check_results.object_kind"),
                config_addr: d.string(cf[1], "check_results.config_addr"),
                status: d.string(cf[2], "check_results.status"),
                objects: Vec::new(),
            };
            for o in d.array(cf[3], "check_results.objects") {
                let Some(of) = d.fields(
                    o,
                    "check_results.objects",
                    ["object_addr", "status", "failure_messages"],
                ) else {
                    continue;
                };
                check.objects.push(CheckObjectV4 {
                    object_addr: d.string(of[0], "check_results.objects.object_addr"),
                    status: d.string(of[1], "check_results.objects.status"),
                    failure_messages: d.strings(of[2], "check_results.objects.failure_messages"),
                });
            }
            checks.push(check);
        }
        state.check_results = Some(checks);
    }
    match d.error {
        Some(e) => Err(e),
        None => Ok(state),
    }
}

// ----- phase 2: checking and building the state -----

fn read_v4(root: &Node, src: &[u8]) -> Result<(State, Diagnostics), Diagnostics> {
    let sv4 = decode_v4(root).map_err(|detail| vec![Diagnostic::error(INVALID_FORMAT, detail)])?;
    let mut diags: Diagnostics = Vec::new();

    if !sv4.terraform_version.is_empty() && !is_valid_version(&sv4.terraform_version) {
        diags.push(Diagnostic::error(
            "Invalid Terraform version string",
            format!(
                "State file claims to have been written by Terraform version {}, which is not a valid version string.",
                quote(&sv4.terraform_version)
            ),
        ));
    }

    let mut state = State::new_with_lineage(sv4.lineage.clone());
    state.serial = sv4.serial;
    state.terraform_version = sv4.terraform_version.clone();

    let mut parsed = ParsedAddresses::default();
    for rs in &sv4.resources {
        read_resource(rs, src, &mut state, &mut parsed, &mut diags);
    }

    for (name, os) in &sv4.outputs {
        let ty = match os.ty {
            None => Err("EOF".to_string()),
            Some(n) => typejson::type_from_json(&src[n.start..n.end]).map_err(|e| e.to_string()),
        };
        let ty = match ty {
            Ok(ty) => ty,
            Err(e) => {
                diags.push(Diagnostic::error(
                    "Invalid output value type in state",
                    format!(
                        "The state file has an invalid type specification for output {}: {e}.",
                        quote(name)
                    ),
                ));
                continue;
            }
        };
        let value = match os.value {
            None => Err("EOF".to_string()),
            Some(n) => vjson::from_json(&src[n.start..n.end], &ty).map_err(|e| e.to_string()),
        };
        match value {
            Ok(value) => {
                state.outputs.insert(
                    name.clone(),
                    OutputState {
                        value,
                        sensitive: os.sensitive,
                    },
                );
            }
            Err(e) => diags.push(Diagnostic::error(
                "Invalid output value saved in state",
                format!(
                    "The state file has an invalid value for output {}: {e}.",
                    quote(name)
                ),
            )),
        }
    }

    if let Some(checks) = &sv4.check_results {
        state.check_results = normalize_check_results(checks);
    }

    if has_errors(&diags) {
        Err(diags)
    } else {
        Ok((state, diags))
    }
}

/// The addresses a state repeats (every resource of a module names the
/// module, every instance its provider, instances of one resource the
/// same dependencies), each parsed once per read.
#[derive(Default)]
struct ParsedAddresses {
    modules: HashMap<String, Result<ModuleInstance, Diagnostics>>,
    providers: HashMap<String, Result<AbsProviderConfig, Diagnostics>>,
    provider_instances: HashMap<String, Result<AbsProviderInstance, Diagnostics>>,
    dependencies: HashMap<String, Result<ConfigResource, Diagnostics>>,
}

/// `map[text]`, parsed by `parse` the first time.
fn parsed_once<T: Clone>(
    map: &mut HashMap<String, Result<T, Diagnostics>>,
    text: &str,
    parse: impl FnOnce(&str) -> Result<T, Diagnostics>,
) -> Result<T, Diagnostics> {
    if let Some(known) = map.get(text) {
        return known.clone();
    }
    let result = parse(text);
    map.insert(text.to_string(), result.clone());
    result
}

fn read_resource(
    rs: &ResourceV4<'_>,
    src: &[u8],
    state: &mut State,
    parsed: &mut ParsedAddresses,
    diags: &mut Diagnostics,
) {
    let mode = match rs.mode.as_str() {
        "managed" => ResourceMode::Managed,
        "data" => ResourceMode::Data,
        _ => {
            diags.push(Diagnostic::error(
                "Invalid resource mode in state",
                format!(
                    "State contains a resource with mode {} ({} {}) which is not supported.",
                    quote(&rs.mode),
                    quote(&rs.type_name),
                    quote(&rs.name)
                ),
            ));
            return;
        }
    };
    let resource = Resource::new(mode, rs.type_name.as_str(), rs.name.as_str());
    let module = if rs.module.is_empty() {
        ModuleInstance::root()
    } else {
        match parsed_once(&mut parsed.modules, &rs.module, ModuleInstance::parse_str) {
            Ok(m) => m,
            Err(d) => {
                diags.extend(d);
                return;
            }
        }
    };
    let raddr = AbsResource {
        module,
        resource: resource.clone(),
    };

    let resource_provider = if rs.provider.is_empty() {
        None
    } else {
        match parsed_once(
            &mut parsed.providers,
            &rs.provider,
            AbsProviderConfig::parse_str,
        ) {
            Ok(p) => Some(p),
            Err(d) => match AbsProviderConfig::parse_legacy_str(&rs.provider) {
                // A state from before provider source addresses.
                Ok(p) => Some(p),
                Err(_) => {
                    diags.extend(d);
                    return;
                }
            },
        }
    };

    let mut each_mode = match rs.each.as_str() {
        "list" => Some(EachMode::List),
        "map" => Some(EachMode::Map),
        _ => None,
    };
    let mut instances: BTreeMap<InstanceKey, std::sync::Arc<InstanceState>> = BTreeMap::new();
    // Every instance's provider configuration, in file order, to check
    // that they agree.
    let mut configs: Vec<AbsProviderConfig> = Vec::new();

    for is in &rs.instances {
        let key = match is.index_key.map(|n| &n.json) {
            None => InstanceKey::None,
            Some(Json::Number(lit)) => match lit.parse::<i64>() {
                Ok(i) => InstanceKey::Int(i),
                // Go reads keys as float64 and truncates.
                Err(_) => InstanceKey::Int(lit.parse::<f64>().map(|f| f as i64).unwrap_or(0)),
            },
            Some(Json::String(s)) => InstanceKey::string(s),
            Some(other) => {
                diags.push(Diagnostic::error(
                    "Invalid resource instance metadata in state",
                    format!(
                        "Resource {raddr} has an instance with the invalid instance key {}.",
                        go_sharp_v(other)
                    ),
                ));
                continue;
            }
        };
        let iaddr = raddr.instance(key.clone());
        if each_mode.is_none() && !key.is_none() {
            each_mode = Some(EachMode::for_key(&key));
        }

        if !is.provider.is_empty() && !rs.provider.is_empty() {
            diags.push(Diagnostic::warning(
                "Provider field conflict in state",
                format!(
                    "Resource {raddr} has a provider address {}, as well as instance {key} with provider address {}.",
                    rs.provider, is.provider
                ),
            ));
        }
        let (config, provider_key) = if !is.provider.is_empty() {
            match parsed_once(
                &mut parsed.provider_instances,
                &is.provider,
                AbsProviderInstance::parse_str,
            ) {
                Ok(pi) => (pi.config, pi.key),
                Err(d) => {
                    diags.extend(d);
                    continue;
                }
            }
        } else if let Some(p) = &resource_provider {
            (p.clone(), InstanceKey::None)
        } else {
            diags.push(Diagnostic::error(
                "Provider field missing state",
                format!(
                    "Resource {raddr} is missing a provider address, both on the resource and the resource instances."
                ),
            ));
            continue;
        };
        configs.push(config);

        let attributes = match (is.attributes, &is.attributes_flat) {
            (Some(n), _) => AttrsJson::Json(Arc::from(gojson::compact(&src[n.start..n.end]))),
            (None, Some(flat)) => AttrsJson::Flat(Arc::new(flat.clone())),
            // Hand-written states: an empty object.
            (None, None) => AttrsJson::Json(Arc::from("{}")),
        };

        let sensitive_paths = match is.sensitive_attributes {
            None => Vec::new(),
            Some(n) => match read_paths(n, src) {
                Ok(p) => p,
                Err(d) => {
                    diags.extend(d);
                    continue;
                }
            },
        };

        let status = match is.status.as_str() {
            "" => ObjectStatus::Ready,
            "tainted" => ObjectStatus::Tainted,
            other => {
                diags.push(Diagnostic::error(
                    "Invalid resource instance metadata in state",
                    format!("Instance {iaddr} has invalid status {}.", quote(other)),
                ));
                continue;
            }
        };

        let mut dependencies = Vec::with_capacity(is.dependencies.len());
        for dep in &is.dependencies {
            match parsed_once(&mut parsed.dependencies, dep, |text| {
                AbsResource::parse_str(text).map(|a| a.config())
            }) {
                Ok(a) => dependencies.push(a),
                Err(d) => diags.extend(d),
            }
        }

        let obj = ObjectState {
            schema_version: is.schema_version,
            attributes,
            sensitive_paths,
            private: is.private.clone().filter(|p| !p.is_empty()),
            status,
            dependencies,
            create_before_destroy: is.create_before_destroy,
        };

        let inst = std::sync::Arc::make_mut(instances.entry(key).or_default());
        inst.provider_key = provider_key;
        if is.deposed.is_empty() {
            if inst.current.is_some() {
                diags.push(Diagnostic::error(
                    "Duplicate resource instance in state",
                    format!("Instance {iaddr} appears multiple times in the state file."),
                ));
                continue;
            }
            inst.current = Some(obj);
        } else {
            // Go counts bytes, and so does `len` here.
            if is.deposed.len() != 8 {
                diags.push(Diagnostic::error(
                    "Invalid resource instance metadata in state",
                    format!(
                        "Instance {iaddr} has an object with deposed key {}, which is not correctly formatted.",
                        quote(&is.deposed)
                    ),
                ));
                continue;
            }
            let dk = DeposedKey(Arc::from(is.deposed.as_str()));
            if inst.deposed.contains_key(&dk) {
                diags.push(Diagnostic::error(
                    "Duplicate resource instance in state",
                    format!(
                        "Instance {iaddr} deposed object {} appears multiple times in the state file.",
                        quote(&is.deposed)
                    ),
                ));
                continue;
            }
            inst.deposed.insert(dk, obj);
        }
    }

    if let Some(w) = configs.windows(2).find(|w| w[0] != w[1]) {
        diags.push(Diagnostic::error(
            "Provider instance field conflict in state",
            format!(
                "Resource {raddr} has instances with different provider addresses: {} != {}.",
                quote(&w[0].to_string()),
                quote(&w[1].to_string())
            ),
        ));
        return;
    }
    let Some(provider) = configs.into_iter().next().or(resource_provider) else {
        // No instances and no provider: nothing worth keeping.
        return;
    };
    instances.retain(|_, is| !is.is_empty());
    state.resources.insert(
        raddr,
        ResourceState {
            provider,
            each_mode: each_mode.unwrap_or_default(),
            instances,
        },
    );
}

/// Go's `%#v` of a decoded JSON value that is not a valid instance key.
fn go_sharp_v(json: &Json) -> String {
    match json {
        Json::Bool(b) => b.to_string(),
        Json::Array(_) => "[]interface {}{...}".to_string(),
        Json::Object(_) => "map[string]interface {}{...}".to_string(),
        Json::Null => "<nil>".to_string(),
        Json::Number(n) => n.clone(),
        Json::String(s) => quote(s),
    }
}

/// `sensitive_attributes`: a list of paths, each a list of
/// `{"type": "get_attr"|"index", "value": ...}` steps.
fn read_paths(node: &Node, src: &[u8]) -> Result<Vec<SensitivePath>, Diagnostics> {
    let unmarshal_error = |what: &str| {
        vec![Diagnostic::error(
            "Error unmarshaling path steps",
            format!("json: cannot unmarshal {what} into Go value of type [][]statefile.pathStep"),
        )]
    };
    let paths = match &node.json {
        Json::Null => return Ok(Vec::new()),
        Json::Array(paths) => paths,
        other => return Err(unmarshal_error(other.kind_name())),
    };
    let mut out = Vec::with_capacity(paths.len());
    let mut diags = Vec::new();
    'paths: for p in paths {
        let steps: &[Node] = match &p.json {
            Json::Null => &[],
            Json::Array(steps) => steps,
            other => return Err(unmarshal_error(other.kind_name())),
        };
        let mut path = Vec::with_capacity(steps.len());
        for s in steps {
            let Json::Object(members) = &s.json else {
                if matches!(s.json, Json::Null) {
                    diags.push(Diagnostic::error(
                        "Unsupported path step",
                        "Unsupported path step type \"\"",
                    ));
                    continue 'paths;
                }
                return Err(unmarshal_error(s.json.kind_name()));
            };
            let ty = match last_member(members, "type").map(|n| &n.json) {
                Some(Json::String(t)) => t.as_str(),
                None | Some(Json::Null) => "",
                Some(other) => return Err(unmarshal_error(other.kind_name())),
            };
            let value = last_member(members, "value");
            match ty {
                "index" => {
                    let raw = value.map(|n| &src[n.start..n.end]).unwrap_or(b"");
                    match vjson::from_json(raw, &Type::Dynamic) {
                        Ok(key) => path.push(PathStep::Index(key)),
                        Err(e) => {
                            diags.push(Diagnostic::error(
                                "Error unmarshaling path step",
                                format!("Failed to unmarshal index step key: {e}"),
                            ));
                            continue 'paths;
                        }
                    }
                }
                "get_attr" => match value.map(|n| &n.json) {
                    Some(Json::String(name)) => path.push(PathStep::Attr(name.clone())),
                    Some(Json::Null) => path.push(PathStep::Attr(String::new())),
                    other => {
                        let what = other.map_or("", Json::kind_name);
                        diags.push(Diagnostic::error(
                            "Error unmarshaling path step",
                            format!(
                                "Failed to unmarshal get attr step name: json: cannot unmarshal {what} into Go value of type string"
                            ),
                        ));
                        continue 'paths;
                    }
                },
                other => {
                    diags.push(Diagnostic::error(
                        "Unsupported path step",
                        format!("Unsupported path step type {}", quote(other)),
                    ));
                    continue 'paths;
                }
            }
        }
        out.push(SensitivePath(path));
    }
    if has_errors(&diags) {
        Err(diags)
    } else {
        Ok(out)
    }
}

/// The check results in the shape the writer writes, unknown kinds
/// dropped and unknown statuses read as "unknown" (as Terraform reads
/// results from newer versions).
fn normalize_check_results(checks: &[CheckV4]) -> Option<crate::checks::CheckResults> {
    use crate::checks::{CheckStatus, CheckableKind, ConfigCheckResult, ObjectCheckResult};
    let configs: Vec<ConfigCheckResult> = checks
        .iter()
        .filter_map(|c| {
            // Kinds a later version may add are dropped, as OpenTofu drops them.
            let kind = CheckableKind::parse_state_name(&c.object_kind)?;
            let objects = (!c.objects.is_empty()).then(|| {
                c.objects
                    .iter()
                    .map(|o| ObjectCheckResult {
                        object_addr: o.object_addr.clone(),
                        status: CheckStatus::parse(&o.status),
                        failure_messages: o.failure_messages.clone(),
                    })
                    .collect()
            });
            Some(ConfigCheckResult {
                kind,
                config_addr: c.config_addr.clone(),
                status: CheckStatus::parse(&c.status),
                objects,
            })
        })
        .collect();
    (!configs.is_empty()).then(|| crate::checks::CheckResults::in_file_order(configs))
}

// ===================================================================
// Writing
// ===================================================================

/// The state file for `state`, as Terraform writes it. Outputs whose value
/// cannot be encoded (unknown values) are left out; see
/// [`write_with_diagnostics`] to hear about them.
pub fn write(state: &State) -> Vec<u8> {
    write_with_diagnostics(state).0
}

/// [`write`], with an error for each output left out.
pub fn write_with_diagnostics(state: &State) -> (Vec<u8>, Diagnostics) {
    let (parts, diags) = write_parts(state);
    // The file is the compact form indented, written into a buffer of
    // exactly its size (a state file is mostly indentation, and a growing
    // buffer would reach nearly twice its size). The objects are most of
    // it: their indented lengths are measured on every core.
    let objects: Vec<&str> = parts
        .iter()
        .flat_map(|part| match part {
            Part::Objects(objects) => objects.as_slice(),
            Part::Text(_) => &[],
        })
        .map(String::as_str)
        .collect();
    let object_lengths = map_in_parallel(&objects, |o| gojson::indented_len(o, OBJECT_DEPTH).0);
    let separator = format!(",\n{}", "  ".repeat(OBJECT_DEPTH));
    // A comma goes between the objects of one resource, not across them.
    let mut size = object_lengths.iter().sum::<usize>();
    let mut depth = 0;
    for part in &parts {
        match part {
            Part::Text(text) => {
                let (length, end) = gojson::indented_len(text, depth);
                size += length;
                depth = end;
            }
            Part::Objects(objects) => size += separator.len() * objects.len().saturating_sub(1),
        }
    }
    let mut out = String::with_capacity(size + 1);
    let mut depth = 0;
    for part in &parts {
        match part {
            Part::Text(text) => depth = gojson::indent_onto(&mut out, text, depth),
            Part::Objects(objects) => {
                for (i, object) in objects.iter().enumerate() {
                    if i > 0 {
                        out.push_str(&separator);
                    }
                    gojson::indent_onto(&mut out, object, OBJECT_DEPTH);
                }
            }
        }
    }
    out.push('\n');
    (out.into_bytes(), diags)
}

/// The same document as [`write`] on one line, without the indentation and
/// the final newline: for embedding a state in a JSON line.
pub fn write_compact(state: &State) -> (String, Diagnostics) {
    let (parts, diags) = write_parts(state);
    let mut o = String::new();
    for part in parts {
        match part {
            Part::Text(text) => o.push_str(&text),
            Part::Objects(objects) => o.push_str(&objects.join(",")),
        }
    }
    (o, diags)
}

/// How deep a resource instance object is in the file: in the document,
/// its `resources` list, a resource, its `instances` list.
const OBJECT_DEPTH: usize = 4;

/// A state document, compact, in pieces: the text between the objects,
/// and each resource's objects (without the commas between them).
enum Part {
    Text(String),
    Objects(Vec<String>),
}

fn write_parts(state: &State) -> (Vec<Part>, Diagnostics) {
    let mut parts = Vec::new();
    let mut diags = Vec::new();
    let mut o = String::with_capacity(4096);
    o.push_str("{\"version\":4,\"terraform_version\":");
    gojson::write_string(&mut o, &state.terraform_version);
    o.push_str(&format!(",\"serial\":{},\"lineage\":", state.serial));
    gojson::write_string(&mut o, &state.lineage);

    o.push_str(",\"outputs\":{");
    let mut first = true;
    for (name, os) in &state.outputs {
        let (value, _) = os.value.unmark_deep();
        let json = match vjson::to_json(&value, value.ty()) {
            Ok(j) => j,
            Err(e) => {
                diags.push(Diagnostic::error(
                    "Failed to serialize output value in state",
                    format!(
                        "An error occurred while serializing output value {}: {e}.",
                        quote(name)
                    ),
                ));
                continue;
            }
        };
        if !first {
            o.push(',');
        }
        first = false;
        gojson::write_string(&mut o, name);
        o.push_str(":{\"value\":");
        gojson::compact_into(&mut o, json.as_bytes());
        o.push_str(",\"type\":");
        gojson::compact_into(&mut o, typejson::type_to_json(value.ty()).as_bytes());
        if os.sensitive {
            o.push_str(",\"sensitive\":true");
        }
        o.push('}');
    }
    o.push_str("},\"resources\":[");

    // Terraform's order: module, mode, type and name, each as text.
    let mut resources: Vec<(String, &AbsResource, &ResourceState)> = state
        .resources
        .iter()
        .filter(|(a, _)| a.resource.mode != ResourceMode::Ephemeral)
        .map(|(a, r)| (a.module.to_string(), a, r))
        .collect();
    resources.sort_by(|(m1, a1, _), (m2, a2, _)| {
        m1.cmp(m2)
            .then_with(|| mode_str(a1.resource.mode).cmp(mode_str(a2.resource.mode)))
            .then_with(|| a1.resource.type_name.cmp(&a2.resource.type_name))
            .then_with(|| a1.resource.name.cmp(&a2.resource.name))
    });
    for (i, (module, addr, rs)) in resources.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        write_resource(&mut o, &mut parts, module, addr, rs, &mut diags);
    }
    o.push_str("],\"check_results\":");
    write_check_results(&mut o, state.check_results.as_ref());
    o.push('}');
    parts.push(Part::Text(o));
    (parts, diags)
}

fn mode_str(mode: ResourceMode) -> &'static str {
    match mode {
        ResourceMode::Managed => "managed",
        ResourceMode::Data => "data",
        ResourceMode::Ephemeral => "ephemeral",
    }
}

fn write_resource(
    o: &mut String,
    parts: &mut Vec<Part>,
    module: &str,
    addr: &AbsResource,
    rs: &ResourceState,
    diags: &mut Diagnostics,
) {
    let per_instance = rs.instances.values().any(|is| !is.provider_key.is_none());
    let resource_provider = (!per_instance).then(|| rs.provider.to_string());
    write_resource_head(o, module, &addr.resource, resource_provider.as_deref());
    let objects: Vec<_> = rs
        .instances
        .iter()
        .flat_map(|(key, is)| {
            let provider =
                per_instance.then(|| rs.provider.instance(is.provider_key.clone()).to_string());
            is.current
                .iter()
                .map(|obj| (None, obj))
                .chain(is.deposed.iter().map(|(dk, obj)| (Some(dk), obj)))
                .map(move |(deposed, obj)| (key, deposed, provider.clone(), obj))
        })
        .collect();
    if !objects.is_empty() {
        // A large state is mostly its objects: they are written on every
        // core, each independent of the others.
        let written = map_in_parallel(&objects, |(key, deposed, provider, obj)| {
            let mut text = String::with_capacity(object_text_capacity(obj));
            let mut diags = Diagnostics::new();
            write_object(
                &mut text,
                key,
                *deposed,
                provider.as_deref(),
                obj,
                addr,
                &mut diags,
            );
            (text, diags)
        });
        parts.push(Part::Text(std::mem::take(o)));
        let mut texts = Vec::with_capacity(written.len());
        for (text, d) in written {
            texts.push(text);
            diags.extend(d);
        }
        parts.push(Part::Objects(texts));
    }
    o.push_str("]}");
}

/// A resource's fields before its objects, up to the opening of its
/// `instances` list. `provider` is given when it is the resource's (no
/// instance has a provider key).
fn write_resource_head(o: &mut String, module: &str, resource: &Resource, provider: Option<&str>) {
    o.push('{');
    if !module.is_empty() {
        o.push_str("\"module\":");
        gojson::write_string(o, module);
        o.push(',');
    }
    o.push_str("\"mode\":");
    gojson::write_string(o, mode_str(resource.mode));
    o.push_str(",\"type\":");
    gojson::write_string(o, &resource.type_name);
    o.push_str(",\"name\":");
    gojson::write_string(o, &resource.name);
    if let Some(provider) = provider {
        o.push_str(",\"provider\":");
        gojson::write_string(o, provider);
    }
    o.push_str(",\"instances\":[");
}

/// [`write_compact`] of a state (serial 0, lineage `lineage`, no outputs)
/// holding one object only, written without building that state: the
/// apply journal writes one per object the apply changes, and a `State`
/// for each cost a copy of the object and a sorted map per entry.
pub fn write_compact_one(
    lineage: &str,
    addr: &AbsResourceInstance,
    deposed: Option<&DeposedKey>,
    provider: &AbsProviderConfig,
    provider_key: &InstanceKey,
    obj: &ObjectState,
) -> (String, Diagnostics) {
    // The object, and the document's fields around it.
    let mut o = String::with_capacity(object_text_capacity(obj) + 240);
    o.push_str("{\"version\":4,\"terraform_version\":");
    gojson::write_string(&mut o, TERRAFORM_VERSION);
    o.push_str(",\"serial\":0,\"lineage\":");
    gojson::write_string(&mut o, lineage);
    o.push_str(",\"outputs\":{},\"resources\":[");
    let mut diags = Diagnostics::new();
    // Ephemeral resources are never in a state file.
    if addr.resource.resource.mode != ResourceMode::Ephemeral {
        let module = addr.module.to_string();
        let (resource_provider, instance_provider) = if provider_key.is_none() {
            (Some(provider.to_string()), None)
        } else {
            (
                None,
                Some(provider.instance(provider_key.clone()).to_string()),
            )
        };
        write_resource_head(
            &mut o,
            &module,
            &addr.resource.resource,
            resource_provider.as_deref(),
        );
        write_object(
            &mut o,
            &addr.resource.key,
            deposed,
            instance_provider.as_deref(),
            obj,
            addr,
            &mut diags,
        );
        o.push_str("]}");
    }
    o.push_str("],\"check_results\":null}");
    (o, diags)
}

/// Room for an object's text with its attributes and the fields around
/// them, so that the text is seldom copied as it grows.
fn object_text_capacity(obj: &ObjectState) -> usize {
    let attributes = match &obj.attributes {
        AttrsJson::Json(text) => text.len(),
        AttrsJson::Flat(map) => map.iter().map(|(k, v)| k.len() + v.len() + 6).sum(),
    };
    attributes + obj.dependencies.len() * 48 + 160
}

fn write_object(
    o: &mut String,
    key: &InstanceKey,
    deposed: Option<&DeposedKey>,
    provider: Option<&str>,
    obj: &ObjectState,
    addr: &dyn std::fmt::Display,
    diags: &mut Diagnostics,
) {
    o.push('{');
    match key {
        InstanceKey::None => {}
        InstanceKey::Int(i) => o.push_str(&format!("\"index_key\":{i},")),
        InstanceKey::String(s) => {
            o.push_str("\"index_key\":");
            gojson::write_string(o, s);
            o.push(',');
        }
    }
    if obj.status == ObjectStatus::Tainted {
        o.push_str("\"status\":\"tainted\",");
    }
    if let Some(dk) = deposed {
        o.push_str("\"deposed\":");
        gojson::write_string(o, dk.as_str());
        o.push(',');
    }
    if let Some(p) = provider {
        o.push_str("\"provider\":");
        gojson::write_string(o, p);
        o.push(',');
    }
    o.push_str(&format!("\"schema_version\":{}", obj.schema_version));
    match &obj.attributes {
        AttrsJson::Json(text) => {
            if !text.is_empty() {
                o.push_str(",\"attributes\":");
                gojson::compact_into(o, text.as_bytes());
            }
        }
        AttrsJson::Flat(map) => {
            o.push_str(",\"attributes_flat\":{");
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    o.push(',');
                }
                gojson::write_string(o, k);
                o.push(':');
                gojson::write_string(o, v);
            }
            o.push('}');
        }
    }
    o.push_str(",\"sensitive_attributes\":[");
    let mut first_path = true;
    for path in &obj.sensitive_paths {
        let mut steps = String::new();
        let mut ok = true;
        for (i, step) in path.0.iter().enumerate() {
            if i > 0 {
                steps.push(',');
            }
            match step {
                PathStep::Attr(name) => {
                    steps.push_str("{\"type\":\"get_attr\",\"value\":");
                    gojson::write_string(&mut steps, name);
                    steps.push('}');
                }
                PathStep::Index(k) => match vjson::to_json(k, &Type::Dynamic) {
                    Ok(j) => {
                        steps.push_str("{\"type\":\"index\",\"value\":");
                        gojson::compact_into(&mut steps, j.as_bytes());
                        steps.push('}');
                    }
                    Err(e) => {
                        diags.push(Diagnostic::error(
                            "Error marshaling path step",
                            format!("Failed to marshal index step key in {addr}: {e}"),
                        ));
                        ok = false;
                        break;
                    }
                },
            }
        }
        if ok {
            if !first_path {
                o.push(',');
            }
            first_path = false;
            o.push('[');
            o.push_str(&steps);
            o.push(']');
        }
    }
    o.push(']');
    if let Some(p) = obj.private.as_ref().filter(|p| !p.is_empty()) {
        o.push_str(",\"private\":");
        gojson::write_string(o, &base64::engine::general_purpose::STANDARD.encode(p));
    }
    if !obj.dependencies.is_empty() {
        o.push_str(",\"dependencies\":[");
        for (i, d) in obj.dependencies.iter().enumerate() {
            if i > 0 {
                o.push(',');
            }
            gojson::write_string(o, &d.to_string());
        }
        o.push(']');
    }
    if obj.create_before_destroy {
        o.push_str(",\"create_before_destroy\":true");
    }
    o.push('}');
}

/// `check_results` in the file's structure: `null` when there are none.
fn write_check_results(o: &mut String, checks: Option<&crate::checks::CheckResults>) {
    let configs = match checks {
        Some(c) if !c.is_empty() => c.configs(),
        _ => {
            o.push_str("null");
            return;
        }
    };
    o.push('[');
    for (i, c) in configs.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        o.push_str("{\"object_kind\":");
        gojson::write_string(o, c.kind.state_name());
        o.push_str(",\"config_addr\":");
        gojson::write_string(o, &c.config_addr);
        o.push_str(",\"status\":");
        gojson::write_string(o, c.status.as_str());
        o.push_str(",\"objects\":");
        match &c.objects {
            Some(objs) if !objs.is_empty() => {
                o.push('[');
                for (j, ob) in objs.iter().enumerate() {
                    if j > 0 {
                        o.push(',');
                    }
                    o.push_str("{\"object_addr\":");
                    gojson::write_string(o, &ob.object_addr);
                    o.push_str(",\"status\":");
                    gojson::write_string(o, ob.status.as_str());
                    if !ob.failure_messages.is_empty() {
                        o.push_str(",\"failure_messages\":[");
                        for (k, m) in ob.failure_messages.iter().enumerate() {
                            if k > 0 {
                                o.push(',');
                            }
                            gojson::write_string(o, m);
                        }
                        o.push(']');
                    }
                    o.push('}');
                }
                o.push(']');
            }
            _ => o.push_str("null"),
        }
        o.push('}');
    }
    o.push(']');
}

#[cfg(test)]
#[path = "statefile_tests.rs"]
mod tests;
