//! `import` blocks and `terrace import ADDR ID`: the targets each block
//! names (one per `for_each` element), evaluated in the root module when
//! the target resource is planned; the plan imports the object
//! (ImportResourceState, then ReadResource) and plans against it, and the
//! apply records it in the state.

use crate::expand::expand;
use crate::scope::Env;
use crate::triggers::static_traversal;
use std::collections::HashMap;
use terrace_addrs::{AbsResourceInstance, ConfigResource, ModuleInstance};
use terrace_config::loader::Config;
use terrace_config::model::Import;
use terrace_syntax::ast::Expr;
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::PRODUCT;
use terrace_syntax::{Diagnostic, Diagnostics, SourceRange};
use terrace_value::convert::convert;
use terrace_value::{Type, Value};

/// One import target: the instance and the id, and where it was declared.
#[derive(Clone, Debug)]
pub(crate) struct ImportTarget {
    pub addr: AbsResourceInstance,
    pub id: String,
    pub range: Option<SourceRange>,
}

fn to_range(i: &Import) -> SourceRange {
    i.to.as_ref()
        .map(|e| e.range())
        .unwrap_or_else(|| i.decl_range.clone())
}

/// Terraform's error for blocks whose target resource has no
/// configuration (checked before the walk).
pub(crate) fn validate_blocks(
    config: &Config,
    declared: &dyn Fn(&ConfigResource) -> bool,
) -> Diagnostics {
    let mut diags = Diagnostics::new();
    for i in &config.module.imports {
        let Some(to) = &i.static_to else { continue };
        if to.resource.mode != terrace_addrs::ResourceMode::Managed || declared(to) {
            continue;
        }
        let shown = match &i.resolved_to {
            Some(a) => a.to_string(),
            None => to.to_string(),
        };
        diags.push(
            Diagnostic::error(
                "Configuration for import target does not exist",
                format!("The configuration for the given import target {shown} does not exist. If you wish to automatically generate config for this resource, use the -generate-config-out option within {PRODUCT} plan. Otherwise, make sure the target resource exists within your configuration. For example:\n\n  {PRODUCT} plan -generate-config-out=generated.tf"),
            )
            .with_subject(to_range(i)),
        );
    }
    diags
}

/// Terraform's error for a target instance the configuration does not
/// declare (checked after the walk).
pub(crate) fn undeclared_instance(t: &ImportTarget) -> Diagnostic {
    let mut d = Diagnostic::error(
        "Configuration for import target does not exist",
        format!("The configuration for the given import {} does not exist. All target instances must have an associated configuration to be imported.", t.addr),
    );
    d.subject = t.range.clone();
    d
}

/// The targets of the root module's import blocks naming `resource`.
pub(crate) fn targets_for(
    env: &Env<'_>,
    resource: &ConfigResource,
) -> (HashMap<AbsResourceInstance, ImportTarget>, Diagnostics) {
    let mut out = HashMap::new();
    let mut diags = Diagnostics::new();
    let root: &Config = &env.ctx.config;
    for i in &root.module.imports {
        if i.static_to.as_ref() != Some(resource) {
            continue;
        }
        let base = env.scope(root, ModuleInstance::root(), Default::default());
        let reps = match expand(&base, None, i.for_each.as_ref()) {
            Ok((_, keys)) => keys,
            Err(d) => {
                diags.extend(d);
                continue;
            }
        };
        for (_, rep) in reps {
            let scope = env.scope(root, ModuleInstance::root(), rep);
            let addr = match (&i.resolved_to, &i.to) {
                (Some(a), _) => a.clone(),
                (None, Some(to)) => {
                    let key = |k: &Expr, d: &mut Diagnostics| -> Option<Value> {
                        let (v, kd) = terrace_lang::eval::evaluate(k, to.file(), &scope);
                        let failed = has_errors(&kd);
                        d.extend(kd);
                        let (v, _) = v.unmark_deep();
                        if failed {
                            None
                        } else if !v.is_wholly_known() || v.is_null() {
                            d.push(
                                Diagnostic::error(
                                    "Invalid import address expression",
                                    "The import address index must be known and not null.",
                                )
                                .with_subject(to.file().range(k.span)),
                            );
                            None
                        } else {
                            Some(v)
                        }
                    };
                    let (e, _) = to.evaluable();
                    let Some(t) = static_traversal(e, to, &key, "import 'to'", &mut diags) else {
                        continue;
                    };
                    match AbsResourceInstance::parse(&t, to.file()) {
                        Ok(a) => a,
                        Err(d) => {
                            diags.extend(d);
                            continue;
                        }
                    }
                }
                (None, None) => continue,
            };
            let Some(id_expr) = &i.id else { continue };
            let (v, d) = id_expr.evaluate(&scope);
            let failed = has_errors(&d);
            diags.extend(d);
            if failed {
                continue;
            }
            let (v, _) = v.unmark_deep();
            let bad = |detail: &str| {
                Diagnostic::error("Invalid import id argument", detail.to_string())
                    .with_subject(id_expr.range())
            };
            if v.is_null() {
                diags.push(bad("The import ID cannot be null."));
                continue;
            }
            if !v.is_wholly_known() {
                diags.push(bad(&format!("The import block \"id\" argument depends on resource attributes that cannot be determined until apply, so {PRODUCT} cannot plan to import this resource.")));
                continue;
            }
            let id = match convert(&v, &Type::String) {
                Ok(s) => s.as_str().unwrap_or_default().to_string(),
                Err(e) => {
                    diags.push(bad(&format!("The import ID value is unsuitable: {e}.")));
                    continue;
                }
            };
            if id.is_empty() {
                diags.push(bad("The import ID value evaluates to an empty string, please provide a non-empty value."));
                continue;
            }
            out.insert(
                addr.clone(),
                ImportTarget {
                    addr,
                    id,
                    range: Some(to_range(i)),
                },
            );
        }
    }
    (out, diags)
}
