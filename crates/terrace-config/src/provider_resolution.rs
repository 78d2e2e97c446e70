//! Which provider configuration each resource uses, resolved statically
//! over the module tree the way OpenTofu's graph builder resolves it
//! (`ProviderConfigTransformer`, `MissingProviderTransformer`,
//! `ProviderTransformer`): provider blocks and required providers of the
//! root, proxies for the entries of each call's `providers` map (replacing
//! a child's empty "proxy" block), an implied empty default configuration
//! in the root for every provider a resource uses, and for a resource its
//! own module's configuration or, for a default configuration, the
//! nearest ancestor's. An aliased configuration that is nowhere to be
//! found is an error.

use crate::body::BodySchema;
use crate::expr::Expression;
use crate::loader::Config;
use crate::model::{ProviderConfigRef, Resource};
use std::collections::BTreeMap;
use std::sync::Arc;
use terrace_addrs::{AbsProviderConfig, Module as ModulePath};
use terrace_syntax::{Diagnostic, Diagnostics};

/// A provider configuration node: declared here, or standing for a
/// configuration of the calling module.
#[derive(Clone, Debug)]
enum Node {
    Concrete {
        proxiable: bool,
    },
    Proxy {
        target: AbsProviderConfig,
        /// The instance key of the `providers` entry, with the module the
        /// entry is written in (the calling module).
        key: Option<(ModulePath, Expression)>,
    },
}

/// The configuration a resource uses, with the instance key expression
/// that selects one of its instances when it has `for_each`.
#[derive(Clone, Debug)]
pub struct ResolvedProvider {
    pub config: AbsProviderConfig,
    /// The key written in the resource's `provider` argument, or in the
    /// `providers` entry of the module call the configuration was passed
    /// through, with the module that entry belongs to.
    pub key_expression: Option<(ModulePath, Expression)>,
}

/// The resolution of every resource of the tree, keyed by the resource's
/// address in its module (`module.a.aws_instance.x`), and the errors for
/// resources whose configuration does not exist.
pub fn resolve_resource_providers(
    root: &Config,
) -> (BTreeMap<String, ResolvedProvider>, Diagnostics) {
    let mut nodes: BTreeMap<AbsProviderConfig, Node> = BTreeMap::new();
    if let Err(d) = add_provider_nodes(root, None, &mut nodes) {
        return (BTreeMap::new(), vec![*d]);
    }
    let mut resources: Vec<(ModulePath, &Resource)> = Vec::new();
    root.deep_each(&mut |c| {
        let path = ModulePath::from_names(c.path.iter().map(String::as_str));
        for r in c.module.all_resources() {
            resources.push((path.clone(), r));
        }
    });
    // An empty default configuration in the root stands in for every
    // provider nobody configured.
    for (_, r) in &resources {
        if let Some(p) = &r.provider {
            nodes
                .entry(AbsProviderConfig::new(ModulePath::root(), p.clone(), None))
                .or_insert(Node::Concrete { proxiable: false });
        }
    }

    let mut out = BTreeMap::new();
    let mut diags = Vec::new();
    for (path, r) in resources {
        let Some(fqn) = &r.provider else { continue };
        let alias = r
            .provider_config_ref
            .as_ref()
            .and_then(|p| p.alias.as_deref())
            .map(Arc::from);
        let wanted = AbsProviderConfig::new(path.clone(), fqn.clone(), alias);
        let name = if path.is_root() {
            r.address()
        } else {
            format!("{path}.{}", r.address())
        };
        let mut found = nodes.get(&wanted).map(|n| (wanted.clone(), n));
        let mut step = wanted.inherited();
        while found.is_none() {
            let Some(addr) = step else { break };
            found = nodes.get(&addr).map(|n| (addr.clone(), n));
            step = addr.inherited();
        }
        let Some((addr, node)) = found else {
            diags.push(Diagnostic::error(
                "Provider configuration not present",
                format!("To work with {name} its original provider configuration at {wanted} is required, but it has been removed. This occurs when a provider configuration is removed while objects created by that provider still exist in the state. Re-add the provider configuration to destroy {name}, after which you can remove the provider configuration again."),
            ));
            continue;
        };
        let mut key = resource_key(&path, r.provider_config_ref.as_ref());
        let mut config = addr;
        if let Node::Proxy { .. } = node {
            let (target, proxy_key) = follow_proxies(&nodes, &config);
            config = target;
            if key.is_none() {
                key = proxy_key;
            }
        }
        out.insert(
            name,
            ResolvedProvider {
                config,
                key_expression: key,
            },
        );
    }
    (out, diags)
}

fn resource_key(
    path: &ModulePath,
    r: Option<&ProviderConfigRef>,
) -> Option<(ModulePath, Expression)> {
    let key = r?.key_expression.clone()?;
    Some((path.clone(), key))
}

/// The concrete configuration behind a chain of proxies, and the instance
/// key met on the way (the provider rules allow at most one: keys refer
/// only to configurations with `for_each`, which are never passed on).
fn follow_proxies(
    nodes: &BTreeMap<AbsProviderConfig, Node>,
    start: &AbsProviderConfig,
) -> (AbsProviderConfig, Option<(ModulePath, Expression)>) {
    let mut addr = start.clone();
    let mut found_key = None;
    // Proxies point to strictly shallower modules, so the chain ends; the
    // bound only guards against a malformed map.
    for _ in 0..=nodes.len() {
        let Some(Node::Proxy { target, key }) = nodes.get(&addr) else {
            break;
        };
        if found_key.is_none() {
            found_key = key.clone();
        }
        addr = target.clone();
    }
    (addr, found_key)
}

fn add_provider_nodes(
    cfg: &Config,
    parent_call: Option<&crate::model::ModuleCall>,
    nodes: &mut BTreeMap<AbsProviderConfig, Node>,
) -> Result<(), Box<Diagnostic>> {
    let module = &cfg.module;
    let path = ModulePath::from_names(cfg.path.iter().map(String::as_str));
    if cfg.path.is_empty() {
        for (name, rp) in &module.required_providers.providers {
            if module.provider_configs.contains_key(name) {
                continue;
            }
            let Some(fqn) = &rp.provider else { continue };
            let addr = AbsProviderConfig::new(path.clone(), fqn.clone(), None);
            if nodes.contains_key(&addr) {
                continue;
            }
            nodes.insert(addr, Node::Concrete { proxiable: false });
            // A module validated as a root gets the configurations it
            // expects to be passed, as OpenTofu's validate does.
            for alias in &rp.aliases {
                if let Some(a) = &alias.alias {
                    nodes.insert(
                        AbsProviderConfig::new(
                            path.clone(),
                            fqn.clone(),
                            Some(Arc::from(a.as_str())),
                        ),
                        Node::Concrete { proxiable: false },
                    );
                }
            }
        }
    }
    for pc in module.provider_configs.values() {
        let Some(fqn) = module.provider_for_local_name(&pc.name) else {
            continue;
        };
        let addr = AbsProviderConfig::new(path.clone(), fqn, pc.alias.as_deref().map(Arc::from));
        if nodes.contains_key(&addr) {
            continue;
        }
        let (_, d) = pc.config.content(&BodySchema::new());
        let proxiable = !cfg.path.is_empty() && !terrace_syntax::diagnostic::has_errors(&d);
        nodes.insert(addr, Node::Concrete { proxiable });
    }
    if let Some(call) = parent_call {
        let parent_path = path.parent();
        for pair in &call.providers {
            let Some(fqn) = module.provider_for_local_name(&pair.in_child.name) else {
                continue;
            };
            let full = AbsProviderConfig::new(
                path.clone(),
                fqn.clone(),
                pair.in_child.alias.as_deref().map(Arc::from),
            );
            let key = pair
                .in_parent
                .key_expression
                .clone()
                .map(|k| (parent_path.clone(), k));
            let parent_addr = AbsProviderConfig::new(
                parent_path.clone(),
                fqn,
                pair.in_parent.alias.as_deref().map(Arc::from),
            );
            if !nodes.contains_key(&parent_addr) {
                return Err(Box::new(Diagnostic::error(
                    format!("missing provider {parent_addr}"),
                    "",
                )));
            }
            let proxy = Node::Proxy {
                target: parent_addr,
                key,
            };
            match nodes.get(&full) {
                Some(Node::Concrete { proxiable: true }) => {
                    nodes.insert(full, proxy);
                }
                Some(_) => {}
                None => {
                    nodes.insert(full, proxy);
                }
            }
        }
    }
    for (name, child) in &cfg.children {
        let call = module.module_calls.get(name);
        add_provider_nodes(child, call, nodes)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loader::{load_config, LoadOptions};

    use terrace_testsupport::TempDir;

    fn tree(name: &str, files: &[(&str, &str)]) -> (TempDir, Config) {
        let dir = TempDir::new(&format!("provider-resolution-{name}"));
        for (f, text) in files {
            dir.write(f, text);
        }
        let (config, diags) = load_config(dir.path(), &LoadOptions::default());
        assert!(diags.is_empty(), "{diags:?}");
        (dir, config)
    }

    #[test]
    fn resources_resolve_through_inheritance_and_proxies() {
        let (_dir, config) = tree(
            "proxies",
            &[
                (
                    "main.tf",
                    "provider \"aws\" {\n  alias = \"by_region\"\n  for_each = toset([\"a\"])\n}\nprovider \"aws\" {\n  region = \"x\"\n}\nmodule \"m\" {\n  source = \"./m\"\n  for_each = toset([\"a\"])\n  providers = {\n    aws.inner = aws.by_region[each.key]\n  }\n}\nresource \"aws_s3_bucket\" \"root\" {}\n",
                ),
                (
                    "m/main.tf",
                    "terraform {\n  required_providers {\n    aws = { source = \"hashicorp/aws\", configuration_aliases = [aws.inner] }\n  }\n}\nresource \"aws_vpc\" \"v\" {\n  provider = aws.inner\n}\nresource \"aws_subnet\" \"s\" {}\nresource \"google_thing\" \"g\" {}\n",
                ),
            ],
        );
        let (resolved, diags) = resolve_resource_providers(&config);
        assert!(diags.is_empty(), "{diags:?}");
        let got: Vec<String> = resolved
            .iter()
            .map(|(r, p)| {
                let key = p
                    .key_expression
                    .as_ref()
                    .map(|(m, e)| format!(" key in [{m}] at {}", e.range()))
                    .unwrap_or_default();
                format!("{r} -> {}{key}", p.config)
            })
            .collect();
        assert_eq!(
            got,
            [
                "aws_s3_bucket.root -> provider[\"registry.terraform.io/hashicorp/aws\"]",
                "module.m.aws_subnet.s -> provider[\"registry.terraform.io/hashicorp/aws\"]",
                format!("module.m.aws_vpc.v -> provider[\"registry.terraform.io/hashicorp/aws\"].by_region key in [] at {}/main.tf:12,31-39", _dir.path().display()).as_str(),
                "module.m.google_thing.g -> provider[\"registry.terraform.io/hashicorp/google\"]",
            ]
        );
    }

    #[test]
    fn aliases_are_not_inherited() {
        let (_dir, config) = tree(
            "alias",
            &[
                (
                    "main.tf",
                    "provider \"aws\" {\n  alias = \"west\"\n}\nmodule \"m\" {\n  source = \"./m\"\n}\n",
                ),
                ("m/main.tf", "resource \"aws_vpc\" \"v\" {\n  provider = aws.west\n}\n"),
            ],
        );
        let (_, diags) = resolve_resource_providers(&config);
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].summary, "Provider configuration not present");
        assert!(diags[0]
            .detail
            .starts_with("To work with module.m.aws_vpc.v its original provider configuration at module.m.provider[\"registry.terraform.io/hashicorp/aws\"].west is required"));
    }
}
