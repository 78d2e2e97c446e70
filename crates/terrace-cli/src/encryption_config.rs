//! The `terraform { encryption { ... } }` block and `TF_ENCRYPTION`, read
//! as OpenTofu reads them: key providers and methods declared by type and
//! name, targets (`state`, `plan`, `remote_state_data_sources`) naming a
//! method and its fallbacks. `TF_ENCRYPTION` (HCL, or JSON when it starts
//! with `{`) is laid over the block: a key provider or method of the same
//! type and name gets its arguments replaced one by one, a target's
//! settings replace the block's.
//!
//! Values are evaluated statically (input variables and local values),
//! as OpenTofu does, when the caller has the loaded configuration's
//! static context; otherwise only constant values are accepted.

use std::collections::BTreeMap;
use std::sync::Arc;

use terrace_config::body::{Attribute, Body, BodySchema};
use terrace_config::model::Module;
use terrace_config::static_eval::StaticContext;
use terrace_states::encryption::{
    AwsKmsKeyProvider, Encryption, HashFunction, KeyProvider, Method, Pbkdf2KeyProvider, Target,
};
use terrace_syntax::{Diagnostic, Diagnostics, SourceRange};
use terrace_value::gostr::quote;
use terrace_value::{Type, Value};

const ENV_NAME: &str = "TF_ENCRYPTION";

#[derive(Clone, Debug)]
struct NamedBlock {
    type_name: String,
    name: String,
    attributes: BTreeMap<String, Attribute>,
    /// `aws_kms`'s `endpoints` block.
    endpoints: BTreeMap<String, Attribute>,
    range: SourceRange,
}

#[derive(Clone, Debug, Default)]
struct TargetBlock {
    enforced: Option<Attribute>,
    method: Option<Attribute>,
    fallback: Option<Box<TargetBlock>>,
}

#[derive(Clone, Debug, Default)]
struct Raw {
    key_providers: Vec<NamedBlock>,
    methods: Vec<NamedBlock>,
    state: Option<TargetBlock>,
    plan: Option<TargetBlock>,
    remote_default: Option<TargetBlock>,
    remote_named: Vec<(String, TargetBlock)>,
    range: Option<SourceRange>,
}

fn decode_target(body: &Body, enforceable: bool) -> (TargetBlock, Diagnostics) {
    let mut schema = BodySchema::new().attr("method").block("fallback");
    if enforceable {
        schema = schema.attr("enforced");
    }
    let (content, mut diags) = body.content(&schema);
    let mut target = TargetBlock {
        enforced: content.attribute("enforced").cloned(),
        method: content.attribute("method").cloned(),
        fallback: None,
    };
    if let Some(fallback) = content.blocks.iter().find(|b| b.block_type == "fallback") {
        let (f, more) = decode_target(&fallback.body, false);
        diags.extend(more);
        target.fallback = Some(Box::new(f));
    }
    (target, diags)
}

fn decode_named(block: &terrace_config::body::Block) -> (NamedBlock, Diagnostics) {
    let type_name = block.labels.first().cloned().unwrap_or_default();
    let mut endpoints = BTreeMap::new();
    let (attrs, diags) = if type_name == "aws_kms" {
        let (content, rest, mut diags) = block
            .body
            .partial_content(&BodySchema::new().block("endpoints"));
        for b in &content.blocks {
            let (attrs, more) = b.body.just_attributes();
            diags.extend(more);
            endpoints.extend(attrs.into_iter().map(|a| (a.name.clone(), a)));
        }
        let (attrs, more) = rest.just_attributes();
        diags.extend(more);
        (attrs, diags)
    } else {
        block.body.just_attributes()
    };
    (
        NamedBlock {
            type_name,
            name: block.labels.get(1).cloned().unwrap_or_default(),
            attributes: attrs.into_iter().map(|a| (a.name.clone(), a)).collect(),
            endpoints,
            range: block.def_range.clone(),
        },
        diags,
    )
}

fn decode(body: &Body, range: Option<SourceRange>) -> (Raw, Diagnostics) {
    let schema = BodySchema::new()
        .labeled_block("key_provider", &["type", "name"])
        .labeled_block("method", &["type", "name"])
        .block("state")
        .block("plan")
        .block("remote_state_data_sources");
    let (content, mut diags) = body.content(&schema);
    let mut raw = Raw {
        range,
        ..Raw::default()
    };
    for block in &content.blocks {
        match block.block_type.as_str() {
            "key_provider" | "method" => {
                let (named, more) = decode_named(block);
                diags.extend(more);
                if block.block_type == "method" {
                    raw.methods.push(named);
                } else {
                    raw.key_providers.push(named);
                }
            }
            "state" | "plan" => {
                let (t, more) = decode_target(&block.body, true);
                diags.extend(more);
                if block.block_type == "state" {
                    raw.state = Some(t);
                } else {
                    raw.plan = Some(t);
                }
            }
            _ => {
                let remote_schema = BodySchema::new()
                    .block("default")
                    .labeled_block("remote_state_data_source", &["name"]);
                let (remote, more) = block.body.content(&remote_schema);
                diags.extend(more);
                for b in &remote.blocks {
                    let (t, more) = decode_target(&b.body, false);
                    diags.extend(more);
                    if b.block_type == "default" {
                        raw.remote_default = Some(t);
                    } else {
                        raw.remote_named
                            .push((b.labels.first().cloned().unwrap_or_default(), t));
                    }
                }
            }
        }
    }
    (raw, diags)
}

fn merge_named(base: &mut Vec<NamedBlock>, over: Vec<NamedBlock>) {
    for o in over {
        match base
            .iter_mut()
            .find(|b| b.type_name == o.type_name && b.name == o.name)
        {
            Some(b) => {
                b.attributes.extend(o.attributes);
                b.endpoints.extend(o.endpoints);
            }
            None => base.push(o),
        }
    }
}

fn merge_target(base: Option<TargetBlock>, over: Option<TargetBlock>) -> Option<TargetBlock> {
    match (base, over) {
        (b, None) => b,
        (None, o) => o,
        (Some(b), Some(o)) => Some(TargetBlock {
            enforced: o.enforced.or(b.enforced),
            method: o.method.or(b.method),
            fallback: merge_target(b.fallback.map(|f| *f), o.fallback.map(|f| *f)).map(Box::new),
        }),
    }
}

fn merge(mut base: Raw, over: Raw) -> Raw {
    merge_named(&mut base.key_providers, over.key_providers);
    merge_named(&mut base.methods, over.methods);
    base.state = merge_target(base.state, over.state);
    base.plan = merge_target(base.plan, over.plan);
    base.remote_default = merge_target(base.remote_default, over.remote_default);
    for (name, t) in over.remote_named {
        match base.remote_named.iter_mut().find(|(n, _)| *n == name) {
            Some((_, b)) => *b = merge_target(Some(b.clone()), Some(t)).unwrap_or_default(),
            None => base.remote_named.push((name, t)),
        }
    }
    base.range = base.range.or(over.range);
    base
}

/// `d` about the encryption block, when there is one (a configuration
/// from `TF_ENCRYPTION` alone has no place in a file).
fn at(d: Diagnostic, range: &SourceRange) -> Diagnostic {
    if range.filename.is_empty() {
        d
    } else {
        d.with_subject(range.clone())
    }
}

/// Whether this configuration asks for encryption at all.
pub fn is_configured(root: &Module) -> bool {
    root.encryption.is_some() || env_config().is_some()
}

fn env_config() -> Option<String> {
    std::env::var(ENV_NAME)
        .ok()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

struct Evaluator<'a> {
    ctx: Option<&'a StaticContext>,
    range: SourceRange,
}

impl Evaluator<'_> {
    fn value(&self, attr: &Attribute, subject: &str) -> Result<Value, Diagnostics> {
        let (value, diags) = match self.ctx {
            Some(ctx) => ctx.evaluate(
                &attr.expr,
                &ctx.identifier(subject.to_string(), self.range.clone()),
            ),
            None => attr.expr.constant_value(),
        };
        if diags.iter().any(Diagnostic::is_error) {
            return Err(diags);
        }
        // Sensitive input variables are the usual place for a passphrase.
        let (value, _) = value.unmark_deep();
        if !value.is_wholly_known() {
            return Err(vec![Diagnostic::error(
                "Invalid encryption configuration",
                format!(
                    "The value of {} must be known when the configuration is loaded.",
                    quote(&attr.name)
                ),
            )
            .with_subject(attr.expr.range())]);
        }
        Ok(value)
    }

    fn string(&self, attr: &Attribute, subject: &str) -> Result<String, Diagnostics> {
        let value = self.value(attr, subject)?;
        terrace_value::convert::convert(&value, &Type::String)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .ok_or_else(|| incorrect_type(attr, "string required"))
    }

    fn number(&self, attr: &Attribute, subject: &str) -> Result<i64, Diagnostics> {
        let value = self.value(attr, subject)?;
        terrace_value::convert::convert(&value, &Type::Number)
            .ok()
            .and_then(|v| v.as_number().and_then(|n| n.to_i64()))
            .ok_or_else(|| incorrect_type(attr, "a whole number is required"))
    }

    fn bool(&self, attr: &Attribute, subject: &str) -> Result<bool, Diagnostics> {
        let value = self.value(attr, subject)?;
        terrace_value::convert::convert(&value, &Type::Bool)
            .ok()
            .and_then(|v| v.as_bool())
            .ok_or_else(|| incorrect_type(attr, "bool required"))
    }
}

fn incorrect_type(attr: &Attribute, why: &str) -> Diagnostics {
    vec![Diagnostic::error(
        "Incorrect attribute value type",
        format!(
            "Inappropriate value for attribute {}: {why}.",
            quote(&attr.name)
        ),
    )
    .with_subject(attr.expr.range())]
}

/// `root.type.name` from an expression: a reference, or (JSON) a string
/// that holds one.
fn reference(attr: &Attribute, root: &str) -> Option<(String, String)> {
    let traversal = attr.expr.as_traversal().or_else(|| {
        let (v, _) = attr.expr.constant_value();
        let text = v.as_str()?.to_string();
        let source = terrace_syntax::ast::SourceFile::new("<reference>", text);
        terrace_syntax::parse_traversal_abs(&source).0
    })?;
    if traversal.root != root || traversal.steps.len() != 2 {
        return None;
    }
    let names: Vec<String> = traversal
        .steps
        .iter()
        .filter_map(|s| match s {
            terrace_syntax::ast::TraversalStep::Attr { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect();
    match names.as_slice() {
        [t, n] => Some((t.clone(), n.clone())),
        _ => None,
    }
}

fn build_aws_kms(block: &NamedBlock, eval: &Evaluator) -> Result<KeyProvider, Diagnostics> {
    let address = format!("key_provider.{}.{}", block.type_name, block.name);
    let subject = format!("encryption.{address}");
    let allowed = [
        "kms_key_id",
        "key_spec",
        "region",
        "access_key",
        "secret_key",
        "token",
        "insecure",
        "skip_credentials_validation",
        "skip_requesting_account_id",
        "skip_metadata_api_check",
        "encrypted_metadata_alias",
    ];
    for (name, attr) in &block.attributes {
        if !allowed.contains(&name.as_str()) {
            return Err(vec![Diagnostic::error(
                "Unsupported argument",
                format!(
                    "{} does not implement the argument {} of the aws_kms key provider.",
                    crate::PRODUCT,
                    quote(name)
                ),
            )
            .with_subject(attr.name_range.clone())]);
        }
    }
    let text = |name: &str| -> Result<Option<String>, Diagnostics> {
        match block.attributes.get(name) {
            Some(a) => eval.string(a, &subject).map(Some),
            None => Ok(None),
        }
    };
    let env = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| std::env::var(n).ok().filter(|v| !v.is_empty()))
    };
    let region = text("region")?
        .or_else(|| env(&["AWS_REGION", "AWS_DEFAULT_REGION"]))
        .unwrap_or_default();
    let endpoint = match block.endpoints.get("kms") {
        Some(a) => eval.string(a, &subject)?,
        None => env(&["AWS_ENDPOINT_URL_KMS", "AWS_ENDPOINT_URL"])
            .unwrap_or_else(|| format!("https://kms.{region}.amazonaws.com")),
    };
    let insecure = match block.attributes.get("insecure") {
        Some(a) => eval.bool(a, &subject)?,
        None => false,
    };
    Ok(KeyProvider::AwsKms(Box::new(AwsKmsKeyProvider {
        meta_key: text("encrypted_metadata_alias")?
            .filter(|a| !a.is_empty())
            .unwrap_or(address.clone()),
        key_id: text("kms_key_id")?.unwrap_or_default(),
        key_spec: text("key_spec")?.unwrap_or_default(),
        region,
        endpoint,
        access_key: text("access_key")?
            .or_else(|| env(&["AWS_ACCESS_KEY_ID"]))
            .unwrap_or_default(),
        secret_key: text("secret_key")?
            .or_else(|| env(&["AWS_SECRET_ACCESS_KEY"]))
            .unwrap_or_default(),
        token: text("token")?.or_else(|| env(&["AWS_SESSION_TOKEN"])),
        insecure,
    })))
}

fn build_key_provider(block: &NamedBlock, eval: &Evaluator) -> Result<KeyProvider, Diagnostics> {
    let address = format!("key_provider.{}.{}", block.type_name, block.name);
    if block.type_name == "aws_kms" {
        return build_aws_kms(block, eval);
    }
    if block.type_name != "pbkdf2" {
        return Err(vec![Diagnostic::error(
            "Unknown key_provider type",
            format!("Can not find {}", quote(&block.type_name)),
        )
        .with_subject(block.range.clone())]);
    }
    let allowed = [
        "passphrase",
        "key_length",
        "iterations",
        "salt_length",
        "hash_function",
        "encrypted_metadata_alias",
    ];
    for (name, attr) in &block.attributes {
        if name == "chain" {
            return Err(vec![Diagnostic::error(
                "Unsupported argument",
                format!("{PRODUCT} does not implement chaining key providers ({address}.chain); use a passphrase.", PRODUCT = crate::PRODUCT),
            )
            .with_subject(attr.range.clone())]);
        }
        if !allowed.contains(&name.as_str()) {
            return Err(vec![Diagnostic::error(
                "Unsupported argument",
                format!("An argument named {} is not expected here.", quote(name)),
            )
            .with_subject(attr.name_range.clone())]);
        }
    }
    let subject = format!("encryption.{address}");
    let mut meta_key = address.clone();
    if let Some(a) = block.attributes.get("encrypted_metadata_alias") {
        let alias = eval.string(a, &subject)?;
        if !alias.is_empty() {
            meta_key = alias;
        }
    }
    let passphrase = match block.attributes.get("passphrase") {
        Some(a) => eval.string(a, &subject)?,
        None => String::new(),
    };
    let mut p = Pbkdf2KeyProvider::new(meta_key, passphrase.into_bytes());
    let non_negative = |a: &Attribute, n: i64| -> Result<usize, Diagnostics> {
        usize::try_from(n).map_err(|_| incorrect_type(a, "a non-negative number is required"))
    };
    if let Some(a) = block.attributes.get("key_length") {
        p.key_length = non_negative(a, eval.number(a, &subject)?)?;
    }
    if let Some(a) = block.attributes.get("salt_length") {
        p.salt_length = non_negative(a, eval.number(a, &subject)?)?;
    }
    if let Some(a) = block.attributes.get("iterations") {
        let n = eval.number(a, &subject)?;
        p.iterations =
            u32::try_from(n).map_err(|_| incorrect_type(a, "a non-negative number is required"))?;
    }
    if let Some(a) = block.attributes.get("hash_function") {
        let name = eval.string(a, &subject)?;
        p.hash_function = HashFunction::from_name(&name).ok_or_else(|| {
            vec![Diagnostic::error(
                "Unable to build encryption key data",
                format!("{address} failed with error: invalid key provider configuration: invalid hash function name: {name}"),
            )
            .with_subject(a.expr.range())]
        })?;
    }
    Ok(KeyProvider::Pbkdf2(p))
}

fn build_method(raw: &Raw, block: &NamedBlock, eval: &Evaluator) -> Result<Method, Diagnostics> {
    let address = format!("method.{}.{}", block.type_name, block.name);
    match block.type_name.as_str() {
        "unencrypted" => {
            if let Some((name, attr)) = block.attributes.iter().next() {
                return Err(vec![Diagnostic::error(
                    "Unsupported argument",
                    format!("An argument named {} is not expected here.", quote(name)),
                )
                .with_subject(attr.name_range.clone())]);
            }
            Ok(Method::Unencrypted { address })
        }
        "aes_gcm" => {
            for (name, attr) in &block.attributes {
                if name != "keys" && name != "aad" {
                    return Err(vec![Diagnostic::error(
                        "Unsupported argument",
                        format!("An argument named {} is not expected here.", quote(name)),
                    )
                    .with_subject(attr.name_range.clone())]);
                }
            }
            let Some(keys_attr) = block.attributes.get("keys") else {
                return Err(vec![Diagnostic::error(
                    "Missing required argument",
                    "The argument \"keys\" is required, but no definition was found.",
                )
                .with_subject(block.range.clone())]);
            };
            let Some((kp_type, kp_name)) = reference(keys_attr, "key_provider") else {
                return Err(vec![Diagnostic::error(
                    "Invalid Key Provider expression format",
                    "The key_provider symbol must be followed by two more attribute names specifying the type and name of the selected key provider.",
                )
                .with_subject(keys_attr.expr.range())]);
            };
            let Some(kp_block) = raw
                .key_providers
                .iter()
                .find(|k| k.type_name == kp_type && k.name == kp_name)
            else {
                return Err(vec![Diagnostic::error(
                    "Reference to undeclared key provider",
                    format!(
                        "There is no key_provider {} {} block declared in the encryption block.",
                        quote(&kp_type),
                        quote(&kp_name)
                    ),
                )
                .with_subject(keys_attr.expr.range())]);
            };
            let keys = build_key_provider(kp_block, eval)?;
            let aad = match block.attributes.get("aad") {
                Some(a) => eval
                    .string(a, &format!("encryption.{address}"))?
                    .into_bytes(),
                None => Vec::new(),
            };
            Ok(Method::AesGcm { address, keys, aad })
        }
        other => Err(vec![Diagnostic::error(
            "Unknown encryption method type",
            format!("Can not find {}", quote(other)),
        )
        .with_subject(block.range.clone())]),
    }
}

fn build_target(
    raw: &Raw,
    name: &str,
    target: &TargetBlock,
    eval: &Evaluator,
) -> Result<Option<Arc<Target>>, Diagnostics> {
    let mut methods = Vec::new();
    let mut current = Some(target);
    while let Some(t) = current {
        if let Some(attr) = &t.method {
            let Some((m_type, m_name)) = reference(attr, "method") else {
                return Err(vec![Diagnostic::error(
                    "Invalid encryption method identifier",
                    "Expected method of form method.<type>.<name>",
                )
                .with_subject(attr.expr.range())]);
            };
            let Some(block) = raw
                .methods
                .iter()
                .find(|m| m.type_name == m_type && m.name == m_name)
            else {
                return Err(vec![Diagnostic::error(
                    "Reference to undeclared encryption method",
                    format!(
                        "There is no method {} {} block declared in the encryption block.",
                        quote(&m_type),
                        quote(&m_name)
                    ),
                )
                .with_subject(attr.expr.range())]);
            };
            methods.push(build_method(raw, block, eval)?);
        }
        current = t.fallback.as_deref();
    }
    let enforced = match &target.enforced {
        Some(a) => eval.bool(a, &format!("encryption.{name}.enforced"))?,
        None => false,
    };
    if methods.is_empty() {
        // A target without a method: nothing to encrypt with, and
        // `enforced` cannot be honoured.
        return Err(vec![Diagnostic::error(
            "Invalid encryption method identifier",
            "Expected method of form method.<type>.<name>",
        )]
        .into_iter()
        .map(|d| at(d, &eval.range))
        .collect());
    }
    Target::new(name, methods, enforced)
        .map(|t| Some(Arc::new(t)))
        .map_err(|e| vec![at(Diagnostic::error(e.summary, e.detail), &eval.range)])
}

/// The working directory's encryption from its root module's block and
/// `TF_ENCRYPTION`, with the warnings to show (an `unencrypted` method is
/// a security risk).
pub fn load(
    root: &Module,
    ctx: Option<&StaticContext>,
) -> Result<(Encryption, Diagnostics), Diagnostics> {
    let env = env_config();
    if root.encryption.is_none() && env.is_none() {
        return Ok((Encryption::disabled(), Vec::new()));
    }
    let mut diags = Vec::new();
    let mut raw = match &root.encryption {
        Some(e) => {
            let (raw, more) = decode(&e.config, Some(e.decl_range.clone()));
            diags.extend(more);
            raw
        }
        None => Raw::default(),
    };
    if let Some(text) = env {
        let (file, more) = if text.starts_with('{') {
            terrace_syntax::parse_json_file(ENV_NAME, &text)
        } else {
            terrace_syntax::parse_native_file(ENV_NAME, &text)
        };
        let failed = more.iter().any(Diagnostic::is_error);
        diags.extend(more);
        if !failed {
            let (over, more) = decode(&Body::from_file(&file), None);
            diags.extend(more);
            raw = merge(raw, over);
        }
    }
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags);
    }
    let range = raw.range.clone().unwrap_or_default();
    let eval = Evaluator {
        ctx,
        range: range.clone(),
    };
    if raw.methods.iter().any(|m| m.type_name == "unencrypted") {
        diags.push(at(
            Diagnostic::warning(
                "Unencrypted method configured",
                "Method unencrypted is present in configuration. This is a security risk and should only be enabled during migrations.",
            ),
            &range,
        ));
    }
    let mut enc = Encryption::disabled();
    if let Some(t) = &raw.state {
        enc.state = build_target(&raw, "state", t, &eval)?;
    }
    if let Some(t) = &raw.plan {
        enc.plan = build_target(&raw, "plan", t, &eval)?;
    }
    if let Some(t) = &raw.remote_default {
        enc.remote_default = build_target(&raw, "remote.default", t, &eval)?;
    }
    // Choosing a method per data source needs the data source's address
    // where the state is read, which the built-in provider is not given:
    // refused by name rather than read with the wrong key.
    if let Some((name, _)) = raw.remote_named.first() {
        return Err(vec![at(
            Diagnostic::error(
                "Unsupported encryption configuration",
                format!(
                    "{} reads every terraform_remote_state data source with the \"default\" of remote_state_data_sources; a remote_state_data_source block ({}) is not implemented. Move its method to \"default\".",
                    crate::PRODUCT,
                    quote(name)
                ),
            ),
            &range,
        )]);
    }
    Ok((enc, diags))
}

/// [`load`] for commands that read only the root module (`init`, the
/// `state` commands): its variables come from `-var` (when the command
/// takes it), variable files and `TF_VAR_` variables, as a plan's do.
pub fn load_in_dir(
    dir: &std::path::Path,
    root: &Module,
    cli_variables: &[terrace_config::input_variables::VariableArgument],
) -> Result<(Encryption, Diagnostics), Diagnostics> {
    if !is_configured(root) {
        return Ok((Encryption::disabled(), Vec::new()));
    }
    let (inputs, mut diags) =
        terrace_config::input_variables::collect_input_values(dir, cli_variables, std::env::vars());
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags);
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| dir.to_path_buf());
    let settings = terrace_config::static_eval::StaticSettings {
        root_dir: ".".to_string(),
        workspace: terrace_states::backend::current_workspace_with(
            &crate::commands::providers::data_dir(dir),
            std::env::var(terrace_states::backend::WORKSPACE_ENV_VAR)
                .ok()
                .as_deref(),
        )
        .unwrap_or_else(|_| terrace_states::backend::DEFAULT_WORKSPACE.to_string()),
        cwd,
    };
    let ctx = StaticContext::new(
        Vec::new(),
        root.variables.clone(),
        root.locals.clone(),
        &root.source_dir,
        &settings,
        terrace_config::static_eval::VariableValues::Root {
            values: Arc::new(inputs),
            missing: terrace_config::static_eval::MissingRootVariable::Error,
        },
    );
    let (enc, more) = load(root, Some(&ctx))?;
    diags.extend(more);
    Ok((enc, diags))
}

/// The encryption of the root module in `dir`, for commands that do not
/// load the whole configuration. A root module that does not load has
/// none (the command's own loading reports why).
pub fn load_of_dir(dir: &std::path::Path) -> Result<(Encryption, Diagnostics), Diagnostics> {
    let (module, diags) = terrace_config::loader::load_module_dir(dir);
    match module {
        Some(module) if !diags.iter().any(Diagnostic::is_error) => load_in_dir(dir, &module, &[]),
        _ if env_config().is_some() => {
            load_in_dir(dir, &terrace_config::model::Module::default(), &[])
        }
        _ => Ok((Encryption::disabled(), Vec::new())),
    }
}

/// [`load_of_dir`] with the command's `-var` values.
pub fn load_of_dir_with(
    dir: &std::path::Path,
    cli_variables: &[terrace_config::input_variables::VariableArgument],
) -> Result<(Encryption, Diagnostics), Diagnostics> {
    let (module, diags) = terrace_config::loader::load_module_dir(dir);
    match module {
        Some(module) if !diags.iter().any(Diagnostic::is_error) => {
            load_in_dir(dir, &module, cli_variables)
        }
        _ => load_of_dir(dir),
    }
}
