//! Provider configuration addresses: OpenTofu's parse and display tables,
//! the instance forms (`provider["..."].name["key"]`), legacy forms and compact local forms.

use super::*;

fn provider(source: &str) -> Provider {
    match Provider::parse_source_str(source) {
        Ok(p) => p,
        Err(d) => panic!("{source}: {d:?}"),
    }
}

fn details<T: std::fmt::Debug>(result: Result<T, Diagnostics>) -> Vec<String> {
    match result {
        Ok(v) => panic!("unexpected success: {v:?}"),
        Err(diags) => {
            for d in &diags {
                assert_eq!(d.summary, "Invalid provider configuration address", "{d:?}");
            }
            diags.into_iter().map(|d| d.detail).collect()
        }
    }
}

#[test]
fn parse_instances() {
    // OpenTofu's TestParseAbsProviderConfigInstances, with OpenTofu's
    // registry read as the shared default.
    let aws = provider("hashicorp/aws");
    let rows: &[(&str, &[&str], Option<&str>, InstanceKey)] = &[
        (
            r#"provider["registry.opentofu.org/hashicorp/aws"]"#,
            &[],
            None,
            InstanceKey::None,
        ),
        (
            r#"provider["registry.opentofu.org/hashicorp/aws"].foo"#,
            &[],
            Some("foo"),
            InstanceKey::None,
        ),
        (
            r#"module.baz.provider["registry.opentofu.org/hashicorp/aws"]"#,
            &["baz"],
            None,
            InstanceKey::None,
        ),
        (
            r#"module.baz.provider["registry.opentofu.org/hashicorp/aws"].foo"#,
            &["baz"],
            Some("foo"),
            InstanceKey::None,
        ),
        (
            r#"module.baz.provider["registry.opentofu.org/hashicorp/aws"].foo["keystr"]"#,
            &["baz"],
            Some("foo"),
            InstanceKey::string("keystr"),
        ),
        (
            r#"module.x.provider["registry.terraform.io/hashicorp/aws"].by_region["us"]"#,
            &["x"],
            Some("by_region"),
            InstanceKey::string("us"),
        ),
        (
            r#"provider["aws"].a[3]"#,
            &[],
            Some("a"),
            InstanceKey::Int(3),
        ),
        (r#"provider["hashicorp/aws"]"#, &[], None, InstanceKey::None),
    ];
    for (input, module, alias, key) in rows {
        let want = AbsProviderConfig::new(
            Module::from_names(module.iter().copied()),
            aws.clone(),
            alias.map(Arc::from),
        )
        .instance(key.clone());
        assert_eq!(
            AbsProviderInstance::parse_str(input).as_ref(),
            Ok(&want),
            "{input}"
        );
    }
}

#[test]
fn parse_instance_errors() {
    let rows: &[(&str, &str)] = &[
        (
            r#"module.baz["foo"].provider["registry.opentofu.org/hashicorp/aws"]"#,
            "A provider configuration must not appear in a module instance that uses count or for_each.",
        ),
        (
            r#"module.baz[1].provider["registry.opentofu.org/hashicorp/aws"]"#,
            "A provider configuration must not appear in a module instance that uses count or for_each.",
        ),
        (
            r#"module.baz[1].module.bar.provider["registry.opentofu.org/hashicorp/aws"]"#,
            "A provider configuration must not appear in a module instance that uses count or for_each.",
        ),
        ("aws", "Provider address must begin with \"provider.\", followed by a provider type name."),
        ("aws.foo", "Provider address must begin with \"provider.\", followed by a provider type name."),
        ("provider", "Provider address must begin with \"provider.\", followed by a provider type name."),
        ("module.foo", "Provider address must begin with \"provider.\", followed by a provider type name."),
        (r#"provider.aws.foo["bar"].baz"#, "Extraneous operators after provider configuration reference."),
        (r#"provider["aws"]["foo"]"#, "Provider type name must be followed by a configuration alias name."),
        ("provider[0]", "The prefix \"provider.\" must be followed by a provider type name."),
        ("provider.aws", "The prefix \"provider.\" must be followed by a provider type name."),
        (
            r#"provider["aws"].a.b"#,
            "A provider configuration alias can be followed only by an instance key in brackets.",
        ),
        (
            r#"provider["aws"].a[1.5]"#,
            "Invalid provider instance key: value must be a whole number, between -9223372036854775808 and 9223372036854775807.",
        ),
    ];
    for (input, detail) in rows {
        assert_eq!(
            details(AbsProviderInstance::parse_str(input)),
            vec![detail.to_string()],
            "{input}"
        );
    }
    // A bad source string gives the source diagnostic, placed on the index.
    let Err(diags) = AbsProviderInstance::parse_str(r#"provider["a/b/c/d"]"#) else {
        panic!("a/b/c/d is no provider");
    };
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].summary, "Invalid provider source string");
    let subject = diags[0]
        .subject
        .as_ref()
        .map(|r| (r.start.byte, r.end.byte));
    assert_eq!(subject, Some((8, 19)));
}

#[test]
fn config_refuses_keys() {
    let ok = r#"module.a.provider["registry.terraform.io/hashicorp/aws"].west"#;
    assert_eq!(
        AbsProviderConfig::parse_str(ok)
            .map(|c| c.to_string())
            .as_deref(),
        Ok(ok)
    );
    assert_eq!(
        details(AbsProviderConfig::parse_str(
            r#"provider["hashicorp/aws"].west["k"]"#
        )),
        vec!["A provider address must not include an instance key.".to_string()]
    );
    assert_eq!(
        details(AbsProviderConfig::parse_str("aws")),
        vec![
            "Provider address must begin with \"provider.\", followed by a provider type name."
                .to_string()
        ]
    );
}

#[test]
fn display_and_round_trip() {
    // OpenTofu's TestAbsProviderConfigString (with terrace's default
    // registry) and the state forms of provider instances.
    let child = Module::root().child("child_module");
    let foo = || provider("hashicorp/foo");
    let rows: Vec<(AbsProviderInstance, &str)> = vec![
        (
            AbsProviderConfig::new(Module::root(), Provider::new_legacy("foo"), None)
                .instance(InstanceKey::None),
            r#"provider["registry.terraform.io/-/foo"]"#,
        ),
        (
            AbsProviderConfig::new(child.clone(), foo(), None).instance(InstanceKey::None),
            r#"module.child_module.provider["registry.terraform.io/hashicorp/foo"]"#,
        ),
        (
            AbsProviderConfig::new(Module::root(), foo(), Some("bar".into()))
                .instance(InstanceKey::None),
            r#"provider["registry.terraform.io/hashicorp/foo"].bar"#,
        ),
        (
            AbsProviderConfig::new(child.clone(), foo(), Some("bar".into()))
                .instance(InstanceKey::None),
            r#"module.child_module.provider["registry.terraform.io/hashicorp/foo"].bar"#,
        ),
        (
            AbsProviderConfig::new(
                Module::from_names(["example"]),
                provider("aws"),
                Some("by_region".into()),
            )
            .instance(InstanceKey::string("us-west-2")),
            r#"module.example.provider["registry.terraform.io/hashicorp/aws"].by_region["us-west-2"]"#,
        ),
        (
            AbsProviderConfig::new(
                Module::root(),
                provider("example.com/ns/t"),
                Some("a".into()),
            )
            .instance(InstanceKey::Int(0)),
            r#"provider["example.com/ns/t"].a[0]"#,
        ),
        (
            AbsProviderConfig::new(
                Module::root(),
                provider("terraform.io/builtin/terraform"),
                None,
            )
            .instance(InstanceKey::None),
            r#"provider["terraform.io/builtin/terraform"]"#,
        ),
    ];
    for (addr, want) in rows {
        assert_eq!(addr.to_string(), want);
        assert_eq!(
            want.parse::<AbsProviderInstance>().as_ref(),
            Ok(&addr),
            "{want}"
        );
        if addr.key.is_none() {
            assert_eq!(addr.config.to_string(), want);
            assert_eq!(
                want.parse::<AbsProviderConfig>().as_ref(),
                Ok(&addr.config),
                "{want}"
            );
        }
    }
    // OpenTofu's own registry prints as the shared default.
    let tofu =
        r#"module.example.provider["registry.opentofu.org/hashicorp/aws"].by_region["eu-east-1"]"#;
    assert_eq!(
        AbsProviderInstance::parse_str(tofu)
            .map(|a| a.to_string())
            .as_deref(),
        Ok(
            r#"module.example.provider["registry.terraform.io/hashicorp/aws"].by_region["eu-east-1"]"#
        )
    );
}

#[test]
fn legacy_forms() {
    // OpenTofu's TestAbsProviderConfigLegacyString and
    // TestParseLegacyAbsProviderConfigStr.
    let child = Module::root().child("child_module");
    let legacy = || Provider::new_legacy("foo");
    let rows: Vec<(AbsProviderConfig, &str)> = vec![
        (
            AbsProviderConfig::new(Module::root(), legacy(), None),
            "provider.foo",
        ),
        (
            AbsProviderConfig::new(child.clone(), legacy(), None),
            "module.child_module.provider.foo",
        ),
        (
            AbsProviderConfig::new(Module::root(), legacy(), Some("bar".into())),
            "provider.foo.bar",
        ),
        (
            AbsProviderConfig::new(child.clone(), legacy(), Some("bar".into())),
            "module.child_module.provider.foo.bar",
        ),
        (
            AbsProviderConfig::new(
                Module::root(),
                provider("terraform.io/builtin/terraform"),
                None,
            ),
            "provider.terraform",
        ),
    ];
    for (addr, want) in rows {
        assert_eq!(addr.legacy_string().as_deref(), Some(want));
        assert_eq!(
            AbsProviderConfig::parse_legacy_str(want).as_ref(),
            Ok(&addr),
            "{want}"
        );
    }
    assert_eq!(
        AbsProviderConfig::new(Module::root(), provider("hashicorp/aws"), None).legacy_string(),
        None
    );
    let bad: &[(&str, &str)] = &[
        (
            "module.a[0].provider.foo",
            "Provider address cannot contain module indexes",
        ),
        (
            "foo",
            "Provider address must begin with \"provider.\", followed by a provider type name.",
        ),
        (
            "provider.foo.bar.baz",
            "Extraneous operators after provider configuration alias.",
        ),
        (
            r#"provider["foo"]"#,
            "The prefix \"provider.\" must be followed by a provider type name.",
        ),
        (
            "provider.foo[0]",
            "Provider type name must be followed by a configuration alias name.",
        ),
    ];
    for (input, detail) in bad {
        assert_eq!(
            details(AbsProviderConfig::parse_legacy_str(input)),
            vec![detail.to_string()],
            "{input}"
        );
    }
}

#[test]
fn inheritance() {
    let aws = provider("hashicorp/aws");
    let in_child = AbsProviderConfig::new(Module::from_names(["a", "b"]), aws.clone(), None);
    assert_eq!(
        in_child.inherited().map(|c| c.to_string()).as_deref(),
        Some(r#"module.a.provider["registry.terraform.io/hashicorp/aws"]"#)
    );
    let aliased = AbsProviderConfig::new(Module::from_names(["a"]), aws.clone(), Some("x".into()));
    assert_eq!(aliased.inherited(), None);
    assert_eq!(
        AbsProviderConfig::new(Module::root(), aws, None).inherited(),
        None
    );
}

#[test]
fn local_configs() {
    // OpenTofu's TestParseProviderConfigCompact[Str].
    let rows: &[(&str, &str, Option<&str>, &str)] = &[
        ("aws", "aws", None, "provider.aws"),
        ("aws.foo", "aws", Some("foo"), "provider.aws.foo"),
        // As in OpenTofu, steps after the alias are not looked at.
        ("aws.foo.bar", "aws", Some("foo"), "provider.aws.foo"),
    ];
    for (input, name, alias, display) in rows {
        let want = LocalProviderConfig {
            local_name: Arc::from(*name),
            alias: alias.map(Arc::from),
        };
        let got = LocalProviderConfig::parse_compact_str(input);
        assert_eq!(got.as_ref(), Ok(&want), "{input}");
        assert_eq!(want.to_string(), *display);
    }
    assert_eq!(
        details(LocalProviderConfig::parse_compact_str(r#"aws["foo"]"#)),
        vec!["The provider type name must either stand alone or be followed by an alias name separated with a dot.".to_string()]
    );
    assert_eq!(
        details(LocalProviderConfig::parse_compact_str(r#"aws["foo"].bar"#)),
        vec![
            "The provider type name must either stand alone or be followed by an alias name separated with a dot.".to_string(),
            "Extraneous extra operators after provider configuration address.".to_string(),
        ]
    );
    assert_eq!(
        LocalProviderConfig::aliased("aws", "west").compact(),
        "aws.west"
    );
    assert_eq!(LocalProviderConfig::new("aws").compact(), "aws");
    assert_eq!(
        LocalProviderConfig::new("").to_string(),
        "provider.<invalid>"
    );
}

#[test]
fn keyed_maps() {
    use std::collections::{BTreeMap, HashMap};
    let a = AbsProviderInstance::parse_str(r#"provider["hashicorp/aws"].r["us"]"#);
    let b = AbsProviderInstance::parse_str(
        r#"provider["registry.opentofu.org/hashicorp/aws"].r["us"]"#,
    );
    let (Ok(a), Ok(b)) = (a, b) else {
        panic!("valid addresses");
    };
    let mut map = HashMap::new();
    map.insert(a.clone(), 1);
    assert_eq!(map.get(&b), Some(&1));
    let mut ordered = BTreeMap::new();
    for key in ["b", "a"] {
        ordered.insert(a.config.instance(InstanceKey::string(key)), key);
    }
    ordered.insert(a.config.instance(InstanceKey::None), "none");
    let values: Vec<&str> = ordered.values().copied().collect();
    assert_eq!(values, ["none", "a", "b"]);
}
