//! Several sources consulted in order, each limited to the providers its
//! `include` patterns match and none of its `exclude` patterns match: the
//! shape of a `provider_installation` block. Versions are the union of
//! what every eligible source offers; a package comes from the first
//! eligible source that has it.

use super::{PackageMeta, Platform, Source, SourceError};
use crate::version::{sort_versions, Version};
use terrace_addrs::provider::OPENTOFU_REGISTRY_HOST;
use terrace_addrs::{Hostname, Provider};
use terrace_value::gostr::quote;

/// `HOST/NAMESPACE/TYPE` or `NAMESPACE/TYPE` with `*` wildcards (`None`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderPattern {
    pub hostname: Option<Hostname>,
    pub namespace: Option<String>,
    pub type_name: Option<String>,
}

impl ProviderPattern {
    pub fn matches(&self, p: &Provider) -> bool {
        self.hostname.as_ref().is_none_or(|h| h == p.hostname())
            && self.namespace.as_deref().is_none_or(|n| n == p.namespace())
            && self.type_name.as_deref().is_none_or(|t| t == p.type_name())
    }

    /// The pattern matching exactly one provider.
    pub fn exactly(p: &Provider) -> ProviderPattern {
        ProviderPattern {
            hostname: Some(p.hostname().clone()),
            namespace: Some(p.namespace().to_string()),
            type_name: Some(p.type_name().to_string()),
        }
    }
}

/// OpenTofu's `ParseMultiSourceMatchingPatterns`, with its messages.
pub fn parse_provider_patterns(strs: &[String]) -> Result<Vec<ProviderPattern>, String> {
    let mut out = Vec::new();
    for s in strs {
        let q = quote(s);
        let mut parts: Vec<&str> = s.split('/').collect();
        if parts.len() < 2 || parts.len() > 3 {
            return Err(format!(
                "invalid provider matching pattern {q}: must have either two or three slash-separated segments"
            ));
        }
        let mut hostname = Some(Hostname::default_registry());
        if parts.len() == 3 {
            hostname = if parts[0] == "*" {
                None
            } else {
                let h = Hostname::for_comparison(parts[0]).map_err(|e| {
                    format!("invalid hostname in provider matching pattern {q}: {e}")
                })?;
                Some(if h.as_str() == OPENTOFU_REGISTRY_HOST {
                    Hostname::default_registry()
                } else {
                    h
                })
            };
            parts.remove(0);
        }
        let name_or_wildcard = |p: &str| -> Result<Option<String>, ()> {
            if p == "*" {
                Ok(None)
            } else {
                terrace_addrs::parse_provider_part(p)
                    .map(Some)
                    .map_err(|_| ())
            }
        };
        let type_name = name_or_wildcard(parts[1]).map_err(|()| {
            format!(
                "invalid provider type {} in provider matching pattern {q}: must either be the wildcard * or a provider type name",
                quote(parts[1])
            )
        })?;
        // OpenTofu quotes the type here too, not the namespace.
        let namespace = name_or_wildcard(parts[0]).map_err(|()| {
            format!(
                "invalid registry namespace {} in provider matching pattern {q}: must either be the wildcard * or a literal namespace",
                quote(parts[1])
            )
        })?;
        if hostname.is_none() && (namespace.is_some() || type_name.is_some()) {
            return Err(format!(
                "invalid provider matching pattern {q}: hostname can be a wildcard only if both namespace and provider type are also wildcards"
            ));
        }
        if namespace.is_none() && type_name.is_some() {
            return Err(format!(
                "invalid provider matching pattern {q}: namespace can be a wildcard only if the provider type is also a wildcard"
            ));
        }
        out.push(ProviderPattern {
            hostname,
            namespace,
            type_name,
        });
    }
    Ok(out)
}

/// One source with the providers it may handle.
pub struct MultiSourceSelector {
    pub source: Box<dyn Source>,
    pub include: Vec<ProviderPattern>,
    pub exclude: Vec<ProviderPattern>,
}

impl MultiSourceSelector {
    pub fn new(source: Box<dyn Source>) -> MultiSourceSelector {
        MultiSourceSelector {
            source,
            include: Vec::new(),
            exclude: Vec::new(),
        }
    }

    pub fn can_handle(&self, p: &Provider) -> bool {
        if self.exclude.iter().any(|pat| pat.matches(p)) {
            return false;
        }
        self.include.is_empty() || self.include.iter().any(|pat| pat.matches(p))
    }
}

/// Sources in priority order.
#[derive(Default)]
pub struct MultiSource(pub Vec<MultiSourceSelector>);

impl MultiSource {
    fn sources_for(&self, p: &Provider) -> Vec<String> {
        self.0
            .iter()
            .filter(|s| s.can_handle(p))
            .map(|s| s.source.for_display(p))
            .collect()
    }
}

impl Source for MultiSource {
    fn available_versions(
        &self,
        provider: &Provider,
    ) -> Result<(Vec<Version>, Vec<String>), SourceError> {
        let mut versions: Vec<Version> = Vec::new();
        let mut warnings = Vec::new();
        let mut registry_error = false;
        for sel in self.0.iter().filter(|s| s.can_handle(provider)) {
            match sel.source.available_versions(provider) {
                Ok((vs, ws)) => {
                    for v in vs {
                        if !versions.contains(&v) {
                            versions.push(v);
                        }
                    }
                    warnings.extend(ws);
                }
                Err(SourceError::RegistryProviderNotKnown { .. }) => registry_error = true,
                Err(SourceError::ProviderNotFound { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        if versions.is_empty() {
            return Err(if registry_error {
                SourceError::RegistryProviderNotKnown {
                    provider: provider.clone(),
                }
            } else {
                SourceError::ProviderNotFound {
                    provider: provider.clone(),
                    sources: self.sources_for(provider),
                }
            });
        }
        sort_versions(&mut versions);
        Ok((versions, warnings))
    }

    fn package_meta(
        &self,
        provider: &Provider,
        version: &Version,
        platform: &Platform,
    ) -> Result<PackageMeta, SourceError> {
        if self.0.is_empty() {
            return Err(SourceError::ProviderNotFound {
                provider: provider.clone(),
                sources: Vec::new(),
            });
        }
        for sel in self.0.iter().filter(|s| s.can_handle(provider)) {
            match sel.source.package_meta(provider, version, platform) {
                Ok(m) => return Ok(m),
                Err(e) if e.is_not_exist() => {}
                Err(e) => return Err(e),
            }
        }
        Err(SourceError::platform_not_supported(
            provider, version, platform, None,
        ))
    }

    fn for_display(&self, provider: &Provider) -> String {
        self.sources_for(provider).join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FilesystemMirrorSource;
    use crate::testutil::TempDir;

    fn p(s: &str) -> Provider {
        match Provider::parse_source_str(s) {
            Ok(p) => p,
            Err(d) => panic!("{d:?}"),
        }
    }

    fn pats(list: &[&str]) -> Result<Vec<ProviderPattern>, String> {
        parse_provider_patterns(&list.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn pattern_errors() {
        for (input, want) in [
            (
                "a",
                r#"invalid provider matching pattern "a": must have either two or three slash-separated segments"#,
            ),
            (
                "a/b/c/d",
                r#"invalid provider matching pattern "a/b/c/d": must have either two or three slash-separated segments"#,
            ),
            (
                "bad host!/a/b",
                r#"invalid hostname in provider matching pattern "bad host!/a/b": idna: disallowed rune U+0020"#,
            ),
            (
                "ns/-bad",
                r#"invalid provider type "-bad" in provider matching pattern "ns/-bad": must either be the wildcard * or a provider type name"#,
            ),
            (
                "-bad/t",
                r#"invalid registry namespace "t" in provider matching pattern "-bad/t": must either be the wildcard * or a literal namespace"#,
            ),
            (
                "*/ns/*",
                r#"invalid provider matching pattern "*/ns/*": hostname can be a wildcard only if both namespace and provider type are also wildcards"#,
            ),
            (
                "*/t",
                r#"invalid provider matching pattern "*/t": namespace can be a wildcard only if the provider type is also a wildcard"#,
            ),
        ] {
            assert_eq!(pats(&[input]), Err(want.to_string()), "{input}");
        }
    }

    #[test]
    fn pattern_matching() {
        let Ok(list) = pats(&[
            "hashicorp/*",
            "example.com/acme/widget",
            "registry.opentofu.org/x/*",
            "*/*/*",
        ]) else {
            panic!()
        };
        assert!(list[0].matches(&p("hashicorp/aws")));
        assert!(!list[0].matches(&p("example.com/hashicorp/aws")));
        assert!(list[1].matches(&p("example.com/acme/widget")));
        assert!(!list[1].matches(&p("example.com/acme/other")));
        assert!(list[2].matches(&p("x/y")));
        assert!(list[3].matches(&p("example.com/a/b")));
        assert!(ProviderPattern::exactly(&p("a/b")).matches(&p("registry.terraform.io/a/b")));
    }

    #[test]
    fn include_exclude_and_fallthrough() {
        let m1 = TempDir::new("multi1");
        m1.write_mode(
            "registry.terraform.io/hashicorp/null/1.0.0/linux_amd64/f",
            b"",
            0o755,
        );
        let m2 = TempDir::new("multi2");
        m2.write_mode(
            "registry.terraform.io/hashicorp/null/2.0.0/linux_amd64/f",
            b"",
            0o755,
        );
        m2.write_mode(
            "registry.terraform.io/hashicorp/null/1.0.0/darwin_arm64/f",
            b"",
            0o755,
        );
        let Ok(exclude) = pats(&["hashicorp/aws"]) else {
            panic!()
        };
        let src = MultiSource(vec![
            MultiSourceSelector {
                source: Box::new(FilesystemMirrorSource::new(m1.path())),
                include: Vec::new(),
                exclude,
            },
            MultiSourceSelector::new(Box::new(FilesystemMirrorSource::new(m2.path()))),
        ]);
        let versions = match src.available_versions(&p("hashicorp/null")) {
            Ok((v, _)) => v.iter().map(|v| v.to_string()).collect::<Vec<_>>(),
            Err(e) => panic!("{e}"),
        };
        assert_eq!(versions, ["1.0.0", "2.0.0"]);
        let mac = Platform::new("darwin", "arm64");
        match src.package_meta(&p("hashicorp/null"), &Version::new(1, 0, 0), &mac) {
            Ok(m) => assert!(m
                .location
                .to_string()
                .starts_with(&m2.path().display().to_string())),
            Err(e) => panic!("{e}"),
        }
        assert_eq!(
            src.available_versions(&p("hashicorp/aws")).err(),
            Some(SourceError::ProviderNotFound {
                provider: p("hashicorp/aws"),
                sources: vec![m2.path().display().to_string()]
            })
        );
        assert_eq!(
            src.for_display(&p("hashicorp/aws")),
            m2.path().display().to_string()
        );
        let windows = Platform::new("windows", "amd64");
        assert!(matches!(
            src.package_meta(&p("hashicorp/null"), &Version::new(1, 0, 0), &windows),
            Err(SourceError::PlatformNotSupported(_))
        ));
    }
}
