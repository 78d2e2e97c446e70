//! Combining the files of one directory into a module (OpenTofu's
//! `NewModule`): primary files are appended, with duplicate declarations
//! reported; override files (`override.tf`, `*_override.tf` and their
//! `.tofu`/JSON forms) are then merged over them by OpenTofu's rules
//! (`module_merge.go`): arguments replace, blocks of a type replace all
//! blocks of that type, and an override must have a base to override.

use crate::body::Body;
use crate::decode::File;
use crate::expr::PRODUCT;
use crate::model::*;
use std::path::PathBuf;
use terrace_syntax::{Diagnostic, Diagnostics, SourceRange};
use terrace_value::convert::convert;
use terrace_value::gostr::quote;

fn error(
    summary: impl Into<String>,
    detail: impl Into<String>,
    subject: &SourceRange,
) -> Diagnostic {
    Diagnostic::error(summary, detail).with_subject(subject.clone())
}

/// OpenTofu's `NewModule`.
pub fn new_module(
    primary: Vec<File>,
    overrides: Vec<File>,
    source_dir: PathBuf,
) -> (Module, Diagnostics) {
    let mut diags = Vec::new();
    let mut m = Module {
        source_dir,
        ..Module::default()
    };

    // required_providers first, so every resource can be given its
    // provider's fully-qualified name.
    let mut found: Option<RequiredProviders> = None;
    for file in &primary {
        for r in &file.required_providers {
            if let Some(existing) = &found {
                diags.push(error(
                    "Duplicate required providers configuration",
                    format!(
                        "A module may have only one required providers configuration. The required providers were previously configured at {}.",
                        existing.decl_range.clone().unwrap_or_default()
                    ),
                    &r.decl_range.clone().unwrap_or_default(),
                ));
                continue;
            }
            found = Some(r.clone());
        }
    }
    m.required_providers = found.unwrap_or_default();
    for file in &overrides {
        for r in &file.required_providers {
            for (name, rp) in &r.providers {
                m.required_providers
                    .providers
                    .insert(name.clone(), rp.clone());
            }
        }
    }

    for file in primary {
        append_file(&mut m, file, &mut diags);
    }
    for file in overrides {
        merge_file(&mut m, file, &mut diags);
    }
    resolve_resource_providers(&mut m);
    (m, diags)
}

/// Sets each resource's and import's provider FQN from its `provider`
/// argument's local name, or the local name implied by its type.
fn resolve_resource_providers(m: &mut Module) {
    let resolve = |m: &Module, r: &Resource| -> Option<terrace_addrs::Provider> {
        match &r.provider_config_ref {
            Some(p) => m.provider_for_local_name(&p.name),
            None => {
                let implied = terrace_addrs::parse_provider_part(r.implied_provider()).ok()?;
                m.provider_for_local_name(&implied)
            }
        }
    };
    let mut resolved = Vec::new();
    for r in m.all_resources() {
        resolved.push(resolve(m, r));
    }
    let mut it = resolved.into_iter();
    for r in m
        .managed_resources
        .values_mut()
        .chain(m.data_resources.values_mut())
        .chain(m.ephemeral_resources.values_mut())
    {
        r.provider = it.next().flatten();
    }
    let mut import_providers = Vec::new();
    for i in &m.imports {
        let p = match (&i.provider_config_ref, &i.static_to) {
            (Some(p), _) => m.provider_for_local_name(&p.name),
            (None, Some(to)) => terrace_addrs::parse_provider_part(to.resource.implied_provider())
                .ok()
                .and_then(|implied| m.provider_for_local_name(&implied)),
            (None, None) => None,
        };
        import_providers.push(p);
    }
    for (i, p) in m.imports.iter_mut().zip(import_providers) {
        i.provider = p;
    }
}

/// For `plan -generate-config-out`: a managed resource, marked
/// [`Resource::generated_for_import`] and with an empty body, for each
/// import block of the root module whose target resource the
/// configuration does not declare, so the plan has a resource to import
/// into. Only a single-instance resource of the root module can be
/// generated: an import into a child module's resource, into an instance
/// key or with `for_each` gets terraform's error instead, and nothing is
/// added for it.
pub fn add_resources_for_import_targets(config: &mut crate::loader::Config) -> Diagnostics {
    let mut diags = Diagnostics::new();
    let mut added = Vec::new();
    for i in &config.module.imports {
        let Some(to) = &i.static_to else { continue };
        let key = to.resource.to_string();
        let declared = |module: &Module| module.managed_resources.contains_key(&key);
        let range =
            i.to.as_ref()
                .map(|e| e.range())
                .unwrap_or_else(|| i.decl_range.clone());
        if to.resource.mode != terrace_addrs::ResourceMode::Managed {
            continue;
        }
        if !to.module.is_empty() {
            let path: Vec<String> = to.module.names().iter().map(|n| n.to_string()).collect();
            let in_child = config
                .descendant(&path)
                .is_some_and(|child| declared(&child.module));
            if !in_child {
                diags.push(
                    Diagnostic::error(
                        "Configuration for import target does not exist",
                        format!("Resource {to} not found. Only resources within the root module are eligible for config generation."),
                    )
                    .with_subject(range),
                );
            }
            continue;
        }
        if declared(&config.module) || added.iter().any(|(k, _): &(String, Resource)| *k == key) {
            continue;
        }
        let keyed = match &i.resolved_to {
            Some(target) => target.resource.key != terrace_addrs::InstanceKey::None,
            // Well formed, but with a key only known once evaluated.
            None => true,
        };
        if i.for_each.is_some() && keyed {
            // terraform generates a resource without `for_each`, then
            // finds the block's keyed target does not fit it.
            diags.push(
                Diagnostic::error(
                    "Invalid import 'to' expression",
                    "The target resource does not use for_each.",
                )
                .with_subject(range),
            );
            continue;
        }
        if i.for_each.is_some() || keyed {
            diags.push(
                Diagnostic::error(
                    "Configuration for import target does not exist",
                    "The given import block is not compatible with config generation. The -generate-config-out option cannot be used with import blocks which use for_each, or resources which use for_each or count.",
                )
                .with_subject(range),
            );
            continue;
        }
        let resource = Resource {
            mode: terrace_lang::references::ResourceMode::Managed,
            type_name: to.resource.type_name.to_string(),
            name: to.resource.name.to_string(),
            config: Body::empty(),
            count: None,
            for_each: None,
            enabled: None,
            provider_config_ref: i.provider_config_ref.clone(),
            provider: i.provider.clone(),
            preconditions: Vec::new(),
            postconditions: Vec::new(),
            depends_on: Vec::new(),
            triggers_replacement: Vec::new(),
            managed: Some(ManagedResource::default()),
            container: None,
            decl_range: i.decl_range.clone(),
            type_range: i.decl_range.clone(),
            generated_for_import: true,
        };
        added.push((key, resource));
    }
    config.module.managed_resources.extend(added);
    diags
}

fn append_file(m: &mut Module, file: File, diags: &mut Diagnostics) {
    m.terraform_version_constraints
        .extend(file.terraform_version_constraints);
    for b in file.backends {
        if let Some(existing) = &m.backend {
            diags.push(error(
                "Duplicate backend configuration",
                format!("A module may have only one backend configuration. The backend was previously configured at {}.", existing.decl_range),
                &b.decl_range,
            ));
            continue;
        }
        m.backend = Some(b);
    }
    for c in file.cloud_configs {
        if let Some(existing) = &m.cloud {
            diags.push(error(
                "Duplicate cloud configurations",
                format!("A module may have only one 'cloud' block configuring a cloud backend. A cloud backend was previously configured at {}.", existing.decl_range),
                &c.decl_range,
            ));
            continue;
        }
        m.cloud = Some(c);
    }
    if let (Some(backend), Some(cloud)) = (&m.backend, &m.cloud) {
        diags.push(error(
            "Both a backend and a cloud configuration are present",
            format!("A module may declare either one 'cloud' block configuring a cloud backend OR one 'backend' block configuring a state backend. A cloud backend is configured at {}; a backend is configured at {}. Remove the backend block to configure a cloud backend.", cloud.decl_range, backend.decl_range),
            &backend.decl_range,
        ));
    }
    for p in file.provider_configs {
        let key = p.module_unique_key();
        if let Some(existing) = m.provider_configs.get(&key) {
            let detail = match &existing.alias {
                None => format!("A default (non-aliased) provider configuration for {} was already given at {}. If multiple configurations are required, set the \"alias\" argument for alternative configurations.", quote(&existing.name), existing.decl_range),
                Some(alias) => format!("A provider configuration for {} with alias {} was already given at {}. Each configuration for the same provider must have a distinct alias.", quote(&existing.name), quote(alias), existing.decl_range),
            };
            diags.push(error(
                "Duplicate provider configuration",
                detail,
                &p.decl_range,
            ));
            continue;
        }
        m.provider_configs.insert(key, p);
    }
    for pm in file.provider_metas {
        if let Some(existing) = m.provider_metas.get(&pm.provider) {
            diags.push(error(
                "Duplicate provider_meta block",
                format!("A provider_meta block for provider {} was already declared at {}. Providers may only have one provider_meta block per module.", quote(&existing.provider), existing.decl_range),
                &pm.decl_range,
            ));
        }
        m.provider_metas.insert(pm.provider.clone(), pm);
    }
    for e in file.encryptions {
        if let Some(existing) = &m.encryption {
            diags.push(error(
                "Duplicate encryption configuration",
                format!("A module may have only one encryption configuration. Encryption was previously configured at {}.", existing.decl_range),
                &e.decl_range,
            ));
            continue;
        }
        m.encryption = Some(e);
    }
    for v in file.variables {
        if let Some(existing) = m.variables.get(&v.name) {
            diags.push(error(
                "Duplicate variable declaration",
                format!("A variable named {} was already declared at {}. Variable names must be unique within a module.", quote(&existing.name), existing.decl_range),
                &v.decl_range,
            ));
        }
        m.variables.insert(v.name.clone(), v);
    }
    for l in file.locals {
        if let Some(existing) = m.locals.get(&l.name) {
            diags.push(error(
                "Duplicate local value definition",
                format!("A local value named {} was already defined at {}. Local value names must be unique within a module.", quote(&existing.name), existing.decl_range),
                &l.decl_range,
            ));
        }
        m.locals.insert(l.name.clone(), l);
    }
    for o in file.outputs {
        if let Some(existing) = m.outputs.get(&o.name) {
            diags.push(error(
                "Duplicate output definition",
                format!("An output named {} was already defined at {}. Output names must be unique within a module.", quote(&existing.name), existing.decl_range),
                &o.decl_range,
            ));
        }
        m.outputs.insert(o.name.clone(), o);
    }
    for mc in file.module_calls {
        if let Some(existing) = m.module_calls.get(&mc.name) {
            diags.push(error(
                "Duplicate module call",
                format!("A module call named {} was already defined at {}. Module calls must have unique names within a module.", quote(&existing.name), existing.decl_range),
                &mc.decl_range,
            ));
        }
        m.module_calls.insert(mc.name.clone(), mc);
    }
    for r in file.managed_resources {
        let key = r.address();
        if let Some(existing) = m.managed_resources.get(&key) {
            diags.push(error(
                format!("Duplicate resource {} configuration", quote(&existing.type_name)),
                format!("A {} resource named {} was already declared at {}. Resource names must be unique per type in each module.", existing.type_name, quote(&existing.name), existing.decl_range),
                &r.decl_range,
            ));
            continue;
        }
        m.managed_resources.insert(key, r);
    }
    for r in file.data_resources {
        let key = r.address();
        if let Some(existing) = m.data_resources.get(&key) {
            diags.push(error(
                format!("Duplicate data {} configuration", quote(&existing.type_name)),
                format!("A {} data resource named {} was already declared at {}. Resource names must be unique per type in each module.", existing.type_name, quote(&existing.name), existing.decl_range),
                &r.decl_range,
            ));
            continue;
        }
        m.data_resources.insert(key, r);
    }
    for r in file.ephemeral_resources {
        let key = r.address();
        if let Some(existing) = m.ephemeral_resources.get(&key) {
            diags.push(error(
                format!("Duplicate ephemeral resource {} configuration", quote(&existing.type_name)),
                format!("A {} ephemeral resource named {} was already declared at {}. Resource names must be unique per type in each module.", existing.type_name, quote(&existing.name), existing.decl_range),
                &r.decl_range,
            ));
            continue;
        }
        m.ephemeral_resources.insert(key, r);
    }
    for c in file.checks {
        if let Some(data) = &c.data_resource {
            let key = data.address();
            if let Some(existing) = m.data_resources.get(&key) {
                diags.push(error(
                    format!("Duplicate data {} configuration", quote(&existing.type_name)),
                    format!("A {} data resource named {} was already declared at {}. Resource names must be unique per type in each module, including within check blocks.", existing.type_name, quote(&existing.name), existing.decl_range),
                    &data.decl_range,
                ));
                continue;
            }
            m.data_resources.insert(key, data.clone());
        }
        if let Some(existing) = m.checks.get(&c.name) {
            diags.push(error(
                format!("Duplicate check {} configuration", quote(&existing.name)),
                format!("A check block named {} was already declared at {}. Check blocks must be unique within each module.", quote(&existing.name), existing.decl_range),
                &c.decl_range,
            ));
            continue;
        }
        m.checks.insert(c.name.clone(), c);
    }
    m.moved.extend(file.moved);
    for i in file.imports {
        if let Some(to) = &i.resolved_to {
            if let Some(dup) = m
                .imports
                .iter()
                .find(|mi| mi.resolved_to.as_ref() == Some(to))
            {
                let shown = to.to_string();
                diags.push(error(
                    format!("Duplicate import configuration for {}", quote(&shown)),
                    format!("An import block for the resource {} was already declared at {}. A resource can have only one import block.", quote(&shown), dup.decl_range),
                    &i.decl_range,
                ));
                continue;
            }
        }
        m.imports.push(i);
    }
    m.removed.extend(file.removed);
}

fn merge_file(m: &mut Module, file: File, diags: &mut Diagnostics) {
    // An override file's constraints replace the module's, as Terraform
    // merges them.
    if !file.terraform_version_constraints.is_empty() {
        m.terraform_version_constraints = file.terraform_version_constraints;
    }
    match file.backends.len() {
        0 => {}
        1 => {
            m.cloud = None;
            m.backend = file.backends.into_iter().next();
        }
        _ => diags.push(error(
            "Duplicate backend configuration",
            format!("Each override file may have only one backend configuration. A backend was previously configured at {}.", file.backends[0].decl_range),
            &file.backends[1].decl_range,
        )),
    }
    match file.cloud_configs.len() {
        0 => {}
        1 => {
            m.backend = None;
            m.cloud = file.cloud_configs.into_iter().next();
        }
        _ => diags.push(error(
            "Duplicate cloud configurations",
            format!("A module may have only one 'cloud' block configuring a cloud backend. A cloud backend was previously configured at {}.", file.cloud_configs[0].decl_range),
            &file.cloud_configs[1].decl_range,
        )),
    }
    for p in file.provider_configs {
        let key = p.module_unique_key();
        match m.provider_configs.get_mut(&key) {
            Some(existing) => {
                if p.version.is_some() {
                    existing.version = p.version.clone();
                }
                existing.config = Body::with_override(existing.config.clone(), p.config.clone());
            }
            // An absent default configuration is an empty one, so it may be
            // overridden; an aliased one must exist, to catch typos.
            None if p.alias.is_none() => {
                m.provider_configs.insert(key, p);
            }
            None => diags.push(error(
                "Missing base provider configuration for override",
                format!("There is no {} provider configuration with the alias {}. An override file can only override an aliased provider configuration that was already defined in a primary configuration file.", p.name, quote(p.alias.as_deref().unwrap_or_default())),
                &p.decl_range,
            )),
        }
    }
    match file.encryptions.len() {
        0 => {}
        1 => {
            if let Some(e) = file.encryptions.into_iter().next() {
                m.encryption = Some(match m.encryption.take() {
                    Some(base) => Encryption {
                        config: Body::with_override(base.config, e.config),
                        decl_range: base.decl_range,
                    },
                    None => e,
                });
            }
        }
        _ => diags.push(error(
            "Duplicate encryption configuration",
            format!("Each override file may have only one encryption configuration. Encryption was previously configured at {}.", file.encryptions[0].decl_range),
            &file.encryptions[1].decl_range,
        )),
    }
    for v in file.variables {
        match m.variables.get_mut(&v.name) {
            None => diags.push(error(
                "Missing base variable declaration to override",
                format!("There is no variable named {}. An override file can only override a variable that was already declared in a primary configuration file.", quote(&v.name)),
                &v.decl_range,
            )),
            Some(existing) => merge_variable(existing, v, diags),
        }
    }
    for l in file.locals {
        match m.locals.get_mut(&l.name) {
            None => diags.push(error(
                "Missing base local value definition to override",
                format!("There is no local value named {}. An override file can only override a local value that was already defined in a primary configuration file.", quote(&l.name)),
                &l.decl_range,
            )),
            Some(existing) => {
                existing.expr = l.expr;
                existing.decl_range = l.decl_range;
            }
        }
    }
    for o in file.outputs {
        match m.outputs.get_mut(&o.name) {
            None => diags.push(error(
                "Missing base output definition to override",
                format!("There is no output named {}. An override file can only override an output that was already defined in a primary configuration file.", quote(&o.name)),
                &o.decl_range,
            )),
            Some(existing) => {
                if o.description.as_deref().is_some_and(|d| !d.is_empty()) {
                    existing.description = o.description.clone();
                }
                if o.expr.is_some() {
                    existing.expr = o.expr.clone();
                }
                if o.sensitive_set {
                    existing.sensitive = o.sensitive;
                    existing.sensitive_set = true;
                }
                if o.deprecated.is_some() {
                    existing.deprecated = o.deprecated.clone();
                }
                if o.ephemeral_set {
                    existing.ephemeral = o.ephemeral;
                    existing.ephemeral_set = true;
                }
                if let Some(first) = o.depends_on.first() {
                    diags.push(unsupported_depends_on_override(first));
                }
            }
        }
    }
    for mc in file.module_calls {
        match m.module_calls.get_mut(&mc.name) {
            None => diags.push(error(
                "Missing module call to override",
                format!("There is no module call named {}. An override file can only override a module call that was defined in a primary configuration file.", quote(&mc.name)),
                &mc.decl_range,
            )),
            Some(existing) => {
                if mc.source_set {
                    existing.source = mc.source.clone();
                    existing.source_set = true;
                }
                if mc.count.is_some() {
                    existing.count = mc.count.clone();
                }
                if mc.for_each.is_some() {
                    existing.for_each = mc.for_each.clone();
                }
                if mc.version_attr.is_some() {
                    existing.version_attr = mc.version_attr.clone();
                }
                existing.config = Body::with_override(existing.config.clone(), mc.config.clone());
                if !mc.providers.is_empty() {
                    existing.providers = mc.providers.clone();
                }
                if let Some(first) = mc.depends_on.first() {
                    diags.push(unsupported_depends_on_override(first));
                }
            }
        }
    }
    let kinds = [
        (file.managed_resources, 0usize),
        (file.data_resources, 1),
        (file.ephemeral_resources, 2),
    ];
    for (resources, kind) in kinds {
        for r in resources {
            let key = r.address();
            let target = match kind {
                0 => m.managed_resources.get_mut(&key),
                1 => m.data_resources.get_mut(&key),
                _ => m.ephemeral_resources.get_mut(&key),
            };
            match target {
                None => {
                    let (summary, what, block) = match kind {
                        0 => ("Missing resource to override", "resource", "resource"),
                        1 => ("Missing data resource to override", "data resource", "data"),
                        _ => (
                            "Missing ephemeral resource to override",
                            "ephemeral resource",
                            "ephemeral",
                        ),
                    };
                    diags.push(error(
                        summary,
                        format!("There is no {} {what} named {}. An override file can only override a {block} block defined in a primary configuration file.", r.type_name, quote(&r.name)),
                        &r.decl_range,
                    ));
                }
                Some(existing) => merge_resource(existing, r, diags),
            }
        }
    }
    for moved in file.moved {
        diags.push(error(
            "Cannot override 'moved' blocks",
            "Records of moved objects can appear only in normal files, not in override files.",
            &moved.decl_range,
        ));
    }
    for i in file.imports {
        diags.push(error(
            "Cannot override 'import' blocks",
            "Import blocks can appear only in normal files, not in override files.",
            &i.decl_range,
        ));
    }
    for r in file.removed {
        diags.push(error(
            "Cannot override 'Removed' blocks",
            "Removed blocks can appear only in normal files, not in override files.",
            &r.decl_range,
        ));
    }
}

fn unsupported_depends_on_override(first: &StaticTraversal) -> Diagnostic {
    error(
        "Unsupported override",
        "The depends_on argument may not be overridden.",
        &first.range(),
    )
}

fn merge_variable(v: &mut Variable, ov: Variable, diags: &mut Diagnostics) {
    if ov.description_set {
        v.description = ov.description.clone();
        v.description_set = true;
    }
    if ov.sensitive_set {
        v.sensitive = ov.sensitive;
        v.sensitive_set = true;
    }
    if ov.deprecated.is_some() {
        v.deprecated = ov.deprecated.clone();
    }
    if ov.ephemeral_set {
        v.ephemeral = ov.ephemeral;
        v.ephemeral_set = true;
    }
    if ov.default.is_some() {
        v.default = ov.default.clone();
    }
    if ov.type_set {
        v.ty = ov.ty.clone();
        v.constraint_type = ov.constraint_type.clone();
        v.type_defaults = ov.type_defaults.clone();
        v.parsing_mode = ov.parsing_mode;
    }
    if ov.nullable_set {
        v.nullable = ov.nullable;
        v.nullable_set = true;
    }
    if ov.const_set {
        v.is_const = ov.is_const;
        v.const_set = true;
    }
    let Some(default) = v.default.clone() else {
        return;
    };
    // Overriding the type without the default (or the reverse) may have
    // made the default invalid.
    match convert(&default, &v.constraint_type) {
        Err(e) => {
            let detail = match (ov.type_set, ov.default.is_some()) {
                (true, false) => format!("Overriding this variable's type constraint has made its default value invalid: {e}."),
                (false, true) => format!("The overridden default value for this variable is not compatible with the variable's type constraint: {e}."),
                _ => format!("This variable's default value is not compatible with its type constraint: {e}."),
            };
            diags.push(error(
                "Invalid default value for variable",
                detail,
                &ov.decl_range,
            ));
        }
        Ok(converted) => v.default = Some(converted),
    }
    if !v.nullable && v.default.as_ref().is_some_and(|d| d.is_null()) {
        diags.push(error(
            "Invalid default value for variable",
            "A null default value is not valid when nullable=false.",
            &ov.decl_range,
        ));
    }
}

fn merge_resource(r: &mut Resource, or: Resource, diags: &mut Diagnostics) {
    if or.count.is_some() {
        r.count = or.count.clone();
    }
    if or.for_each.is_some() {
        r.for_each = or.for_each.clone();
    }
    if or.provider_config_ref.is_some() {
        r.provider_config_ref = or.provider_config_ref.clone();
    }
    if let (Some(m), Some(om)) = (r.managed.as_mut(), or.managed.as_ref()) {
        if om.connection.is_some() {
            m.connection = om.connection.clone();
        }
        if om.create_before_destroy_set {
            m.create_before_destroy = om.create_before_destroy;
            m.create_before_destroy_set = true;
        }
        if !om.ignore_changes.is_empty() {
            m.ignore_changes = om.ignore_changes.clone();
        }
        if om.ignore_all_changes {
            m.ignore_all_changes = true;
        }
        if om.prevent_destroy.is_some() {
            m.prevent_destroy = om.prevent_destroy.clone();
        }
        if om.destroy.is_some() {
            m.destroy = om.destroy.clone();
        }
        if !om.provisioners.is_empty() {
            m.provisioners = om.provisioners.clone();
        }
    }
    r.config = Body::with_override(r.config.clone(), or.config.clone());
    if let Some(first) = or.depends_on.first() {
        diags.push(unsupported_depends_on_override(first));
    }
}

/// The product name in messages that tell the user to run a command.
pub(crate) fn init_hint() -> String {
    format!("Run \"{PRODUCT} init\" to install all modules required by this configuration.")
}
