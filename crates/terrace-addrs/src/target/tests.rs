//! `-target` parsing (OpenTofu's TestParseTarget, with source ranges) and
//! the containment table of TestTargetContains.

use super::*;
use crate::resource::{Resource, ResourceMode};

fn target(s: &str) -> Targetable {
    match Target::parse_str(s) {
        Ok(t) => t.subject,
        Err(d) => panic!("{s}: {d:?}"),
    }
}

#[test]
fn parse_target() {
    // OpenTofu's TestParseTarget: the kind of address, its text and the
    // end column of its range (every range starts at 1:1).
    let rows: &[(&str, &str, u32)] = &[
        ("module.foo", "ModuleInstance", 11),
        ("module.foo[2]", "ModuleInstance", 14),
        ("module.foo[2].module.bar", "ModuleInstance", 25),
        ("aws_instance.foo", "AbsResource", 17),
        ("aws_instance.foo[1]", "AbsResourceInstance", 20),
        ("data.aws_instance.foo", "AbsResource", 22),
        ("data.aws_instance.foo[1]", "AbsResourceInstance", 25),
        ("module.foo.aws_instance.bar", "AbsResource", 28),
        ("module.foo.module.bar.aws_instance.baz", "AbsResource", 39),
        (
            r#"module.foo.module.bar.aws_instance.baz["hello"]"#,
            "AbsResourceInstance",
            48,
        ),
        ("module.foo.data.aws_instance.bar", "AbsResource", 33),
        (
            "module.foo.module.bar.data.aws_instance.baz",
            "AbsResource",
            44,
        ),
        (
            "module.foo.module.bar[0].data.aws_instance.baz",
            "AbsResource",
            47,
        ),
        (
            r#"module.foo.module.bar["a"].data.aws_instance.baz["hello"]"#,
            "AbsResourceInstance",
            58,
        ),
        (
            r#"module.foo.module.bar.data.aws_instance.baz["hello"]"#,
            "AbsResourceInstance",
            53,
        ),
        ("ephemeral.aws_instance.baz", "AbsResource", 27),
        ("ephemeral.aws_instance.baz[1]", "AbsResourceInstance", 30),
        ("module.foo.ephemeral.aws_instance.baz", "AbsResource", 38),
        (
            "module.foo.module.bar.ephemeral.aws_instance.baz",
            "AbsResource",
            49,
        ),
        (
            "module.foo.module.bar[0].ephemeral.aws_instance.baz",
            "AbsResource",
            52,
        ),
        (
            r#"module.foo.module.bar["a"].ephemeral.aws_instance.baz["hello"]"#,
            "AbsResourceInstance",
            63,
        ),
        (
            r#"module.foo.module.bar.ephemeral.aws_instance.baz["hello"]"#,
            "AbsResourceInstance",
            58,
        ),
    ];
    for (input, kind, end_column) in rows {
        let parsed = match Target::parse_str(input) {
            Ok(t) => t,
            Err(d) => panic!("{input}: {d:?}"),
        };
        let got_kind = match &parsed.subject {
            Targetable::Module(_) => "Module",
            Targetable::ModuleInstance(_) => "ModuleInstance",
            Targetable::ConfigResource(_) => "ConfigResource",
            Targetable::AbsResource(_) => "AbsResource",
            Targetable::AbsResourceInstance(_) => "AbsResourceInstance",
        };
        assert_eq!(got_kind, *kind, "{input}");
        assert_eq!(parsed.to_string(), *input);
        let r = &parsed.source_range;
        assert_eq!(
            (
                r.start.line,
                r.start.column,
                r.start.byte,
                r.end.line,
                r.end.column,
                r.end.byte
            ),
            (1, 1, 0, 1, *end_column, end_column - 1),
            "{input}"
        );
    }
    let Targetable::AbsResourceInstance(addr) =
        target(r#"module.foo.module.bar["a"].data.aws_instance.baz["hello"]"#)
    else {
        panic!("an instance");
    };
    assert_eq!(
        addr.resource.resource,
        Resource::new(ResourceMode::Data, "aws_instance", "baz")
    );
    assert_eq!(addr.resource.key, InstanceKey::string("hello"));
    assert_eq!(addr.module.steps()[1].key, InstanceKey::string("a"));
}

#[test]
fn parse_target_errors() {
    // OpenTofu's TestParseTarget error rows, plus key errors.
    let rows: &[(&str, &str)] = &[
        ("aws_instance", "Resource specification must include a resource type and name."),
        ("module", "Prefix \"module.\" must be followed by a module name."),
        (r#"module["baz"]"#, "Prefix \"module.\" must be followed by a module name."),
        ("module.baz.bar", "Resource specification must include a resource type and name."),
        ("aws_instance.foo.bar", "Resource instance key must be given in square brackets."),
        ("aws_instance.foo[1].baz", "Unexpected extra operators after address."),
        ("aws_instance.foo[1][2]", "Unexpected extra operators after address."),
        (
            "aws_instance.foo[0.5]",
            "Invalid resource instance key: value must be a whole number, between -9223372036854775808 and 9223372036854775807.",
        ),
    ];
    for (input, detail) in rows {
        let Err(diags) = Target::parse_str(input) else {
            panic!("{input} parsed");
        };
        let details: Vec<&str> = diags.iter().map(|d| d.detail.as_str()).collect();
        assert_eq!(details, vec![*detail], "{input}");
    }
    // Text that is not a traversal at all fails in the traversal parser.
    let Err(diags) = Target::parse_str("module.foo[*]") else {
        panic!("a splat is no target");
    };
    assert!(!diags.is_empty());
    assert!(Target::parse_str("").is_err());
    assert!(Target::parse_str("a.b c").is_err());
}

#[test]
fn target_contains() {
    // OpenTofu's TestTargetContains.
    let config = |module: &[&str]| {
        Targetable::ConfigResource(Module::from_names(module.iter().copied()).resource(
            ResourceMode::Managed,
            "test_resource",
            "foo",
        ))
    };
    let module = |names: &[&str]| Targetable::Module(Module::from_names(names.iter().copied()));
    let rows: Vec<(Targetable, Targetable, bool)> = vec![
        (target("module.foo"), target("module.bar"), false),
        (target("module.foo"), target("module.foo"), true),
        (
            Targetable::ModuleInstance(ModuleInstance::root()),
            target("module.foo"),
            true,
        ),
        (
            target("module.foo"),
            Targetable::ModuleInstance(ModuleInstance::root()),
            false,
        ),
        (
            target("module.foo"),
            target("module.foo.module.bar[0]"),
            true,
        ),
        (
            target("module.foo[2]"),
            target("module.foo[2].module.bar[0]"),
            true,
        ),
        (
            target("module.foo[2]"),
            target("module.foo[1].module.bar[0]"),
            false,
        ),
        (
            target("module.foo"),
            target("module.foo.test_resource.bar"),
            true,
        ),
        (
            target("module.foo"),
            target("module.foo.test_resource.bar[0]"),
            true,
        ),
        (
            target("test_resource.foo"),
            target(r#"test_resource.foo["bar"]"#),
            true,
        ),
        (
            target(r#"test_resource.foo["bar"]"#),
            target(r#"test_resource.foo["bar"]"#),
            true,
        ),
        (
            target(r#"test_resource.foo["bar"]"#),
            target(r#"test_resource.foo["baz"]"#),
            false,
        ),
        (
            target(r#"test_resource.foo["bar"]"#),
            target("test_resource.foo"),
            false,
        ),
        (
            target("test_resource.foo"),
            target("test_resource.foo[2]"),
            true,
        ),
        (
            target("test_resource.foo"),
            target("module.bar.test_resource.foo[2]"),
            false,
        ),
        (
            target("module.bar.test_resource.foo"),
            target("module.bar.test_resource.foo[2]"),
            true,
        ),
        (
            target("module.bar.test_resource.foo"),
            target("module.bar[0].test_resource.foo[2]"),
            false,
        ),
        (
            target("module.bar.test_resource.foo"),
            target("module.bar.test_resource.foo[0]"),
            true,
        ),
        (
            target("module.bax"),
            target("module.bax[0].test_resource.foo[0]"),
            true,
        ),
        (
            config(&["bar"]),
            target("module.bar.test_resource.foo[2]"),
            true,
        ),
        (target("module.bar"), config(&["bar"]), true),
        (
            target("module.bar.test_resource.foo"),
            config(&["bar"]),
            true,
        ),
        (
            config(&[]),
            target("module.bar.test_resource.foo[2]"),
            false,
        ),
        (
            config(&["bar"]),
            target("module.bar[0].test_resource.foo"),
            true,
        ),
        (config(&["bar"]), config(&["bar"]), true),
        (config(&["bar"]), target("module.bar"), false),
        (module(&["bar"]), module(&["bar", "baz"]), true),
        (module(&["bar", "baz"]), module(&["bar"]), false),
        (module(&["bar"]), target("module.bar[0]"), true),
        (target("module.bar"), module(&["bar"]), true),
        (target("module.bar[0]"), module(&["bar"]), false),
        (
            module(&["bar", "baz"]),
            target("module.bar[0].module.baz.test_resource.foo[1]"),
            true,
        ),
        (
            target("module.bar[0].module.baz"),
            module(&["bar", "baz"]),
            false,
        ),
        (module(&["bar"]), config(&["bar"]), true),
        (
            target("test_resource.foo[1]"),
            target("test_resource.foo[1]"),
            true,
        ),
        (target("test_resource.foo[1]"), config(&[]), false),
    ];
    for (addr, other, want) in rows {
        assert_eq!(addr.target_contains(&other), want, "{other} in {addr}");
    }
}

#[test]
fn module_addr() {
    let rows = [
        ("module.a[1].b.c[2]", "module.a[1]"),
        ("b.c", ""),
        (r#"module.a["x"]"#, r#"module.a["x"]"#),
    ];
    for (input, want) in rows {
        assert_eq!(target(input).module_addr().to_string(), want, "{input}");
    }
    let m = Targetable::Module(Module::from_names(["a", "b"]));
    assert_eq!(m.module_addr().to_string(), "module.a.module.b");
}
