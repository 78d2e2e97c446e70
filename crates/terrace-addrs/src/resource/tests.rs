//! Resource addresses: display, OpenTofu's parse tables for resources,
//! instances and config resources, equality and order.

use super::*;
use crate::Targetable;
use ResourceMode::{Data, Ephemeral, Managed};

fn errors<T: std::fmt::Debug>(result: Result<T, Diagnostics>) -> Vec<(String, String)> {
    match result {
        Ok(v) => panic!("unexpected success: {v:?}"),
        Err(diags) => diags.into_iter().map(|d| (d.summary, d.detail)).collect(),
    }
}

fn mi(s: &str) -> ModuleInstance {
    match ModuleInstance::parse_str(s) {
        Ok(m) => m,
        Err(d) => panic!("{s}: {d:?}"),
    }
}

#[test]
fn display() {
    let foo = mi("module.foo");
    let foobar = mi(r#"module.foo[1].module.bar["k"]"#);
    let rows: Vec<(String, &str)> = vec![
        (Resource::new(Managed, "a", "b").to_string(), "a.b"),
        (Resource::new(Data, "a", "b").to_string(), "data.a.b"),
        (
            Resource::new(Ephemeral, "a", "b").to_string(),
            "ephemeral.a.b",
        ),
        (
            Resource::new(Managed, "a", "b")
                .instance(InstanceKey::Int(0))
                .to_string(),
            "a.b[0]",
        ),
        (
            Resource::new(Data, "a", "b")
                .instance(InstanceKey::string("x"))
                .to_string(),
            r#"data.a.b["x"]"#,
        ),
        (
            Resource::new(Managed, "a", "b")
                .instance(InstanceKey::None)
                .to_string(),
            "a.b",
        ),
        (
            Resource::new(Managed, "a", "b")
                .absolute(foo.clone())
                .to_string(),
            "module.foo.a.b",
        ),
        (
            Resource::new(Ephemeral, "a", "b")
                .instance(InstanceKey::Int(0))
                .absolute(foobar.clone())
                .to_string(),
            r#"module.foo[1].module.bar["k"].ephemeral.a.b[0]"#,
        ),
        (
            ModuleInstance::root()
                .resource_instance(Managed, "aws_s3_bucket", "b", InstanceKey::Int(0))
                .to_string(),
            "aws_s3_bucket.b[0]",
        ),
        (
            Resource::new(Data, "a", "b")
                .in_module(foobar.module())
                .to_string(),
            "module.foo.module.bar.data.a.b",
        ),
        (
            Resource::new(Data, "a", "b")
                .in_module(Module::root())
                .to_string(),
            "data.a.b",
        ),
    ];
    for (got, want) in rows {
        assert_eq!(got, want);
    }
}

#[test]
fn abs_resource_instance_round_trips() {
    let rows = [
        "a.b",
        "a.b[0]",
        r#"a.b["k"]"#,
        "data.a.b",
        "data.a.b[2]",
        "ephemeral.a.b",
        r#"ephemeral.a.b["x y"]"#,
        r#"module.a["k"].aws_s3_bucket.b[0]"#,
        "module.a.module.b[1].data.c.d",
        r#"module.a.aws_instance.web["$${not_interp}"]"#,
        r#"aws_instance.web["line\nbreak\t\"q\""]"#,
        "resource_type-with-dash.name_1",
    ];
    for s in rows {
        let parsed = AbsResourceInstance::parse_str(s);
        assert_eq!(
            parsed.as_ref().map(ToString::to_string).as_deref(),
            Ok(s),
            "{s}"
        );
        let again = parsed
            .as_ref()
            .ok()
            .map(|a| a.to_string().parse::<AbsResourceInstance>());
        assert_eq!(again.map(|r| r.ok()), Some(parsed.ok()), "{s}");
    }
}

#[test]
fn abs_resource_parse() {
    let ok = ["a.b", "data.a.b", "module.x[0].ephemeral.a.b"];
    for s in ok {
        assert_eq!(
            AbsResource::parse_str(s).map(|r| r.to_string()).as_deref(),
            Ok(s)
        );
    }
    let bad: &[(&str, &str)] = &[
        (
            "a.b[0]",
            "A resource address is required. This instance key identifies a specific resource instance, which is not expected here.",
        ),
        (
            "module.a",
            "A resource address is required here. The module path must be followed by a resource specification.",
        ),
        ("a", "Resource specification must include a resource type and name."),
    ];
    for (input, detail) in bad {
        assert_eq!(
            errors(AbsResource::parse_str(input)),
            vec![("Invalid address".to_string(), detail.to_string())],
            "{input}"
        );
    }
    // The instance key step is the subject.
    let Err(diags) = AbsResource::parse_str(r#"a.b["k"]"#) else {
        panic!("a.b[\"k\"] is an instance");
    };
    let subject = diags[0]
        .subject
        .as_ref()
        .map(|r| (r.start.byte, r.end.byte));
    assert_eq!(subject, Some((3, 8)));
}

#[test]
fn abs_resource_instance_parse_errors() {
    let bad: &[(&str, &str)] = &[
        (
            "module.a",
            "A resource instance address is required here. The module path must be followed by a resource instance specification.",
        ),
        ("a", "Resource specification must include a resource type and name."),
        ("data.a", "Resource specification must include a resource type and name."),
        ("a.b.c", "Resource instance key must be given in square brackets."),
        ("a.b[0].c", "Unexpected extra operators after address."),
        ("a[0].b", "A resource name is required."),
        ("data[0].b", "A data source name is required."),
        ("ephemeral[0].b", "An ephemeral resource name is required."),
        ("a.b[1.5]", "Invalid resource instance key: value must be a whole number, between -9223372036854775808 and 9223372036854775807."),
    ];
    for (input, detail) in bad {
        assert_eq!(
            errors(AbsResourceInstance::parse_str(input)),
            vec![("Invalid address".to_string(), detail.to_string())],
            "{input}"
        );
    }
}

#[test]
fn index_after_module_key() {
    // OpenTofu reads a second index as a malformed module step.
    assert_eq!(
        errors(AbsResourceInstance::parse_str("module.a[0][1].b")),
        vec![(
            "Invalid address operator".to_string(),
            "Module address prefix must be followed by dot and then a name.".to_string()
        )]
    );
}

#[test]
fn config_resource_parse() {
    // OpenTofu's TestParseConfigResource.
    let ok: &[(&str, &[&str], ResourceMode, &str, &str)] = &[
        ("a.b", &[], Managed, "a", "b"),
        ("data.a.b", &[], Data, "a", "b"),
        ("ephemeral.a.b", &[], Ephemeral, "a", "b"),
        ("module.a.b.c", &["a"], Managed, "b", "c"),
        ("module.a.data.b.c", &["a"], Data, "b", "c"),
        ("module.a.ephemeral.b.c", &["a"], Ephemeral, "b", "c"),
        ("module.a.module.b.c.d", &["a", "b"], Managed, "c", "d"),
        ("module.a.module.b.data.c.d", &["a", "b"], Data, "c", "d"),
        (
            "module.a.module.b.ephemeral.c.d",
            &["a", "b"],
            Ephemeral,
            "c",
            "d",
        ),
    ];
    for (input, module, mode, type_name, name) in ok {
        let want = Module::from_names(module.iter().copied()).resource(*mode, *type_name, *name);
        assert_eq!(
            ConfigResource::parse_str(input).as_ref(),
            Ok(&want),
            "{input}"
        );
        assert_eq!(want.to_string(), *input);
    }
    const KEYED: (&str, &str) = (
        "Resource instance address with keys is not allowed",
        "Resource address cannot be a resource instance (e.g. \"null_resource.a[0]\"), it must be a resource instead (e.g. \"null_resource.a\").",
    );
    let bad: &[(&str, (&str, &str))] = &[
        (
            "module.a.module.b",
            (
                "Module address is not allowed",
                "Expected reference to either resource or data block. Provided reference appears to be a module.",
            ),
        ),
        ("module", ("Invalid address operator", "Prefix \"module.\" must be followed by a module name.")),
        (
            "module.a.module.b.c",
            ("Invalid address", "Resource specification must include a resource type and name."),
        ),
        ("module.a.module.b.c.d[0]", KEYED),
        ("module.a.module.b.data.c.d[0]", KEYED),
        ("module.a.module.b.ephemeral.c.d[0]", KEYED),
        ("a.b.c.d", ("Invalid address", "Unexpected extra operators after address.")),
        (
            "module.a[0].b.c",
            (
                "Module instance address with keys is not allowed",
                "Module address cannot be a module instance (e.g. \"module.a[0]\"), it must be a module instead (e.g. \"module.a\").",
            ),
        ),
    ];
    for (input, (summary, detail)) in bad {
        assert_eq!(
            errors(ConfigResource::parse_str(input)),
            vec![(summary.to_string(), detail.to_string())],
            "{input}"
        );
    }
}

#[test]
fn equality() {
    // OpenTofu's Resource/ResourceInstance/AbsResourceInstance/ConfigResource
    // Equal_false tables.
    let managed = Resource::new(Managed, "a", "b");
    let data = Resource::new(Data, "a", "b");
    let ephemeral = Resource::new(Ephemeral, "a", "b");
    assert_ne!(data, managed);
    assert_ne!(
        Resource::new(Managed, "a", "b"),
        Resource::new(Managed, "b", "b")
    );
    assert_ne!(
        Resource::new(Managed, "a", "b"),
        Resource::new(Managed, "a", "c")
    );
    assert_ne!(
        Resource::new(Ephemeral, "a", "b"),
        Resource::new(Ephemeral, "a", "c")
    );
    assert_ne!(
        data.instance(InstanceKey::Int(0)),
        data.instance(InstanceKey::string("0"))
    );
    assert_ne!(
        ephemeral.instance(InstanceKey::Int(0)),
        ephemeral.instance(InstanceKey::string("0"))
    );
    assert_ne!(
        data.instance(InstanceKey::Int(0)),
        ephemeral.instance(InstanceKey::Int(0))
    );
    let foo = mi("module.foo");
    let foobar = mi("module.foo[1].module.bar");
    let pairs = [
        (
            managed.instance(InstanceKey::Int(0)).absolute(foo.clone()),
            data.instance(InstanceKey::Int(0)).absolute(foo.clone()),
        ),
        (
            managed.instance(InstanceKey::Int(0)).absolute(foo.clone()),
            managed
                .instance(InstanceKey::Int(0))
                .absolute(foobar.clone()),
        ),
        (
            managed.instance(InstanceKey::Int(0)).absolute(foo.clone()),
            managed
                .instance(InstanceKey::string("0"))
                .absolute(foo.clone()),
        ),
        (
            ephemeral
                .instance(InstanceKey::Int(0))
                .absolute(foo.clone()),
            ephemeral
                .instance(InstanceKey::Int(0))
                .absolute(foobar.clone()),
        ),
    ];
    for (a, b) in pairs {
        assert_ne!(a, b, "{a} = {b}");
    }
    let foo_m = Module::from_names(["foo"]);
    let foobar_m = Module::from_names(["foobar"]);
    assert_ne!(
        managed.in_module(foo_m.clone()),
        data.in_module(foo_m.clone())
    );
    assert_ne!(
        data.in_module(foo_m.clone()),
        ephemeral.in_module(foo_m.clone())
    );
    assert_ne!(
        managed.in_module(foo_m.clone()),
        managed.in_module(foobar_m)
    );
    // A resource and its no-key instance print alike but are different keys.
    let whole = managed.absolute(ModuleInstance::root());
    let instance = whole.instance(InstanceKey::None);
    assert_eq!(whole.to_string(), instance.to_string());
    let mut set = std::collections::HashSet::new();
    set.insert(Targetable::AbsResource(whole));
    assert!(!set.contains(&Targetable::AbsResourceInstance(instance)));
}

#[test]
fn ordering_is_opentofus() {
    // OpenTofu's TestResourceLess and TestResourceSort.
    let m = Resource::new(Managed, "a", "b");
    let d = Resource::new(Data, "a", "b");
    let e = Resource::new(Ephemeral, "a", "b");
    let less = [
        (m.clone(), d.clone(), false),
        (d.clone(), m.clone(), true),
        (m.clone(), m.clone(), false),
        (m.clone(), Resource::new(Managed, "a", "c"), true),
        (m.clone(), Resource::new(Managed, "b", "b"), true),
        (e.clone(), m.clone(), true),
        (m.clone(), e.clone(), false),
        (e.clone(), d.clone(), true),
        (d.clone(), e.clone(), false),
    ];
    for (a, b, want) in less {
        assert_eq!(a < b, want, "{a} < {b}");
    }
    let mut got = vec![
        m.clone(),
        d.clone(),
        e.clone(),
        m.clone(),
        e.clone(),
        d.clone(),
    ];
    got.sort();
    assert_eq!(got, vec![e.clone(), e, d.clone(), d, m.clone(), m]);

    // AbsResourceInstance.Less: module first (shorter first), then resource,
    // then key.
    let mut list: Vec<AbsResourceInstance> = [
        "module.a.b.c",
        "b.c[1]",
        "b.c",
        "data.b.c",
        r#"b.c["a"]"#,
        "a.z",
    ]
    .iter()
    .filter_map(|s| AbsResourceInstance::parse_str(s).ok())
    .collect();
    list.sort();
    let shown: Vec<String> = list.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "data.b.c",
            "a.z",
            "b.c",
            "b.c[1]",
            r#"b.c["a"]"#,
            "module.a.b.c"
        ]
    );
}

#[test]
fn helpers() {
    let rows = [
        ("aws_instance", "aws"),
        ("google_beta_x", "google"),
        ("null", "null"),
        ("a-b_c", "a-b"),
    ];
    for (type_name, want) in rows {
        assert_eq!(
            Resource::new(Managed, type_name, "x").implied_provider(),
            want
        );
    }
    assert_eq!(Managed.block_name(), "resource");
    assert_eq!(Data.block_name(), "data");
    assert_eq!(Ephemeral.block_name(), "ephemeral");
    let Ok(inst) = AbsResourceInstance::parse_str(r#"module.a["k"].data.t.n[3]"#) else {
        panic!("valid address");
    };
    assert_eq!(
        inst.containing_resource().to_string(),
        r#"module.a["k"].data.t.n"#
    );
    assert_eq!(inst.config_resource().to_string(), "module.a.data.t.n");
    assert_eq!(inst.containing_resource().config(), inst.config_resource());
    assert_eq!(
        inst.config_resource()
            .absolute(mi("module.a[0]"))
            .to_string(),
        "module.a[0].data.t.n"
    );
}
