//! Module and module instance paths: OpenTofu's parse, equality and
//! navigation tables, and their order.

use super::*;

fn mi(s: &str) -> ModuleInstance {
    match ModuleInstance::parse_str(s) {
        Ok(m) => m,
        Err(d) => panic!("{s}: {d:?}"),
    }
}

fn m(s: &str) -> Module {
    match Module::parse_str(s) {
        Ok(m) => m,
        Err(d) => panic!("{s}: {d:?}"),
    }
}

/// The diagnostics of a failed parse as (summary, detail) pairs.
fn errors<T: std::fmt::Debug>(result: Result<T, Diagnostics>) -> Vec<(String, String)> {
    match result {
        Ok(v) => panic!("unexpected success: {v:?}"),
        Err(diags) => diags.into_iter().map(|d| (d.summary, d.detail)).collect(),
    }
}

#[test]
fn module_display_and_parse() {
    // OpenTofu's TestModuleString and TestParseModule.
    let rows: &[(&[&str], &str)] = &[
        (&[], ""),
        (&["alpha"], "module.alpha"),
        (&["alpha", "beta"], "module.alpha.module.beta"),
        (
            &["alpha", "beta", "charlie"],
            "module.alpha.module.beta.module.charlie",
        ),
        (&["a-b_c"], "module.a-b_c"),
    ];
    for (names, want) in rows {
        let module = Module::from_names(names.iter().copied());
        assert_eq!(module.to_string(), *want);
        if !names.is_empty() {
            assert_eq!(m(want), module, "{want}");
        }
    }
}

#[test]
fn module_parse_errors() {
    const NOT_MODULE: (&str, &str) = (
        "Module address expected",
        "It's not allowed to reference anything other than module here.",
    );
    const NO_NAME: (&str, &str) = (
        "Invalid address operator",
        "Prefix \"module.\" must be followed by a module name.",
    );
    const KEYED: (&str, &str) = (
        "Module instance address with keys is not allowed",
        "Module address cannot be a module instance (e.g. \"module.a[0]\"), it must be a module instead (e.g. \"module.a\").",
    );
    let rows: &[(&str, (&str, &str))] = &[
        ("module.a.module.b.c.d", NOT_MODULE),
        ("a.b.c.d", NOT_MODULE),
        ("module", NO_NAME),
        ("module[0]", NO_NAME),
        ("module.a[0]", KEYED),
        (r#"module.a["k"]"#, KEYED),
        ("module.a.module.b[0]", KEYED),
    ];
    for (input, (summary, detail)) in rows {
        assert_eq!(
            errors(Module::parse_str(input)),
            vec![(summary.to_string(), detail.to_string())],
            "{input}"
        );
    }
}

#[test]
fn module_instance_round_trips() {
    // OpenTofu's TestModuleInstanceEqual_true inputs and more: each parses
    // and prints back unchanged.
    let rows = [
        "module.foo",
        "module.foo.module.bar",
        "module.foo[1].module.bar",
        r#"module.foo["a"].module.bar["b"]"#,
        r#"module.foo["a"].module.bar.module.baz[3]"#,
        "module.foo[9223372036854775807]",
        r#"module.foo[""]"#,
        r#"module.foo["$${x}"]"#,
        r#"module.foo["a\"b\\c\n"]"#,
        r#"module.foo["%%{x}"]"#,
        r#"module.foo["ü"]"#,
    ];
    for s in rows {
        let addr = mi(s);
        assert_eq!(addr.to_string(), s);
        assert_eq!(addr, addr.clone());
    }
    // Keys given as 1.0 or with a redundant escape print canonically.
    assert_eq!(mi("module.foo[1.0]").to_string(), "module.foo[1]");
    assert_eq!(
        mi(r#"module.foo["\u0041"]"#).to_string(),
        r#"module.foo["A"]"#
    );
    assert_eq!(ModuleInstance::root().to_string(), "");
}

#[test]
fn module_instance_inequality() {
    // OpenTofu's TestModuleInstanceEqual_false.
    let rows = [
        ("module.foo", "module.bar"),
        ("module.foo", "module.foo.module.bar"),
        ("module.foo[1]", "module.bar[1]"),
        ("module.foo[1]", r#"module.foo["1"]"#),
        ("module.foo.module.bar", "module.foo[1].module.bar"),
        ("module.foo.module.bar", r#"module.foo["a"].module.bar"#),
    ];
    for (a, b) in rows {
        assert_ne!(mi(a), mi(b), "{a} = {b}");
        assert_ne!(mi(b), mi(a), "{b} = {a}");
    }
}

#[test]
fn module_instance_parse_errors() {
    let whole =
        "value must be a whole number, between -9223372036854775808 and 9223372036854775807";
    let rows: Vec<(&str, (&str, String))> = vec![
        (
            "aws_instance.foo",
            (
                "Invalid module instance address",
                "A module instance address must begin with \"module.\".".into(),
            ),
        ),
        (
            "module.a.b",
            (
                "Invalid module instance address",
                "The module instance address is followed by additional invalid content.".into(),
            ),
        ),
        (
            "module.a[0].foo[1]",
            (
                "Invalid module instance address",
                "The module instance address is followed by additional invalid content.".into(),
            ),
        ),
        (
            "module.a[1.5]",
            (
                "Invalid address operator",
                format!("Invalid module index: {whole}."),
            ),
        ),
        (
            "module.a[9223372036854775808]",
            (
                "Invalid address operator",
                format!("Invalid module index: {whole}."),
            ),
        ),
    ];
    for (input, (summary, detail)) in rows {
        assert_eq!(
            errors(ModuleInstance::parse_str(input)),
            vec![(summary.to_string(), detail)],
            "{input}"
        );
    }
    // As in OpenTofu, a bad prefix is reported and then found not to be
    // a module path either.
    assert_eq!(
        errors(ModuleInstance::parse_str("module")),
        vec![
            (
                "Invalid address operator".to_string(),
                "Prefix \"module.\" must be followed by a module name.".to_string()
            ),
            (
                "Invalid module instance address".to_string(),
                "A module instance address must begin with \"module.\".".to_string()
            ),
        ]
    );
    // Traversals have no negative numbers, so a negative key cannot be
    // written (count never makes one).
    assert_eq!(
        errors(ModuleInstance::parse_str("module.a[-1]"))[0].0,
        "Index value required"
    );
    // A bad key stops the path there: what follows is not a module step.
    let diags = errors(ModuleInstance::parse_str("module.a[1.5].module.b"));
    assert_eq!(diags.len(), 2);
    assert_eq!(
        diags[1].1,
        "The module instance address is followed by additional invalid content."
    );
}

#[test]
fn diagnostics_point_at_the_step() {
    let Err(diags) = ModuleInstance::parse_str("module.a.b") else {
        panic!("module.a.b is not a module instance");
    };
    let subject = diags[0]
        .subject
        .as_ref()
        .map(|r| (r.start.column, r.end.column));
    // ".b" is columns 9-11.
    assert_eq!(subject, Some((9, 11)));
    let Err(diags) = Module::parse_str("module.a[0]") else {
        panic!("module.a[0] is not a module");
    };
    let subject = diags[0]
        .subject
        .as_ref()
        .map(|r| (r.start.byte, r.end.byte));
    assert_eq!(subject, Some((8, 11)));
}

#[test]
fn has_same_module_and_is_for_module() {
    // OpenTofu's TestHasSameModule.
    let same = [
        ("module.foo", "module.bar", false),
        ("module.foo", "module.foo.module.bar", false),
        ("module.foo[1]", "module.bar[1]", false),
        ("module.foo[1]", r#"module.foo["1"]"#, true),
        ("module.foo.module.bar", "module.foo[1].module.bar", true),
        (
            "module.foo.module.bar",
            r#"module.foo["a"].module.bar"#,
            true,
        ),
    ];
    for (a, b, want) in same {
        assert_eq!(mi(a).has_same_module(&mi(b)), want, "{a} ~ {b}");
        assert_eq!(mi(b).has_same_module(&mi(a)), want, "{b} ~ {a}");
    }
    // OpenTofu's TestIsForModule.
    let for_module = [
        ("module.foo", "module.bar", false),
        ("module.foo", "module.foo.module.bar", false),
        ("module.foo[1]", "module.bar", false),
        ("module.foo[1]", "module.foo", true),
        ("module.foo[1].module.bar", "module.foo.module.bar", true),
        (
            r#"module.foo["a"].module.bar"#,
            "module.foo.module.bar",
            true,
        ),
    ];
    for (inst, module, want) in for_module {
        assert_eq!(
            mi(inst).is_for_module(&m(module)),
            want,
            "{inst} for {module}"
        );
        assert_eq!(mi(inst).module() == m(module), want, "{inst}.module()");
    }
}

#[test]
fn is_declared_by_call() {
    // OpenTofu's TestModuleInstance_IsDeclaredByCall.
    let root = ModuleInstance::root();
    let rows = [
        (root.clone(), root.child_call(""), false),
        (mi("module.child"), root.child_call(""), false),
        (root.clone(), root.child_call("child"), false),
        (mi("module.child"), root.child_call("child"), true),
        (mi("module.child[3]"), root.child_call("child"), true),
        (
            mi("module.child"),
            mi("module.kinder").child_call("child"),
            false,
        ),
        (
            mi("module.kinder"),
            mi("module.kinder").child_call("child"),
            false,
        ),
        (
            mi("module.child"),
            mi(r#"module.kinder["a"]"#).child_call("kinder"),
            false,
        ),
        (
            mi(r#"module.kinder["a"].module.child[0]"#),
            mi(r#"module.kinder["a"]"#).child_call("child"),
            true,
        ),
    ];
    for (inst, call, want) in rows {
        assert_eq!(inst.is_declared_by_call(&call), want, "{inst} by {call}");
    }
}

#[test]
fn navigation() {
    let addr = mi(r#"module.a["k"].module.b[0]"#);
    assert_eq!(addr.parent().to_string(), r#"module.a["k"]"#);
    assert_eq!(addr.module().to_string(), "module.a.module.b");
    let ancestors: Vec<String> = addr.ancestors().iter().map(ToString::to_string).collect();
    assert_eq!(
        ancestors,
        ["", r#"module.a["k"]"#, r#"module.a["k"].module.b[0]"#]
    );
    let Some((caller, call)) = addr.call() else {
        panic!("{addr} has a call");
    };
    assert_eq!(
        (caller.to_string(), call.to_string()),
        (r#"module.a["k"]"#.into(), "module.b".into())
    );
    let Some((_, call_instance)) = addr.call_instance() else {
        panic!("{addr} has a call instance");
    };
    assert_eq!(call_instance.to_string(), "module.b[0]");
    assert_eq!(call_instance.module_instance(&caller), addr);
    assert_eq!(call_instance.output("out").to_string(), "module.b[0].out");
    assert_eq!(
        caller.child_call("b").to_string(),
        r#"module.a["k"].module.b"#
    );
    assert_eq!(caller.child_call("b").instance(InstanceKey::Int(0)), addr);
    assert_eq!(ModuleCall::new("c").to_string(), "module.c");
    assert_eq!(
        ModuleCall::new("c").instance(InstanceKey::None).to_string(),
        "module.c"
    );
    assert_eq!(
        ModuleCall::new("c")
            .absolute(ModuleInstance::root())
            .to_string(),
        "module.c"
    );
    assert!(ModuleInstance::root().call().is_none());
    assert_eq!(ModuleInstance::root().parent(), ModuleInstance::root());
    assert!(mi("module.a").is_ancestor(&addr));
    assert!(mi(r#"module.a["k"]"#).is_ancestor(&addr));
    assert!(!mi(r#"module.a["j"]"#).is_ancestor(&addr));
    assert!(!addr.is_ancestor(&addr));
    assert!(ModuleInstance::root().is_ancestor(&addr));

    let module = m("module.a.module.b");
    assert_eq!(module.child("c").to_string(), "module.a.module.b.module.c");
    assert_eq!(module.parent().to_string(), "module.a");
    assert_eq!(Module::root().parent(), Module::root());
    assert_eq!(module.unkeyed_instance().to_string(), "module.a.module.b");
    let ancestors: Vec<String> = module.ancestors().iter().map(ToString::to_string).collect();
    assert_eq!(ancestors, ["", "module.a", "module.a.module.b"]);
    let Some((parent, call)) = module.call() else {
        panic!("{module} has a call");
    };
    assert_eq!(
        (parent.to_string(), call.name.as_ref()),
        ("module.a".into(), "b")
    );
    assert!(Module::root().call().is_none());
}

#[test]
fn ordering_is_opentofus() {
    // ModuleInstance.Less: shorter first, then names, then keys.
    let mut list: Vec<ModuleInstance> = [
        "module.b",
        r#"module.a["x"]"#,
        "module.a.module.z",
        "module.a[1]",
        "module.a",
        "module.a[0].module.a",
        "module.a[10]",
    ]
    .iter()
    .map(|s| mi(s))
    .collect();
    list.push(ModuleInstance::root());
    list.sort();
    let shown: Vec<String> = list.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "",
            "module.a",
            "module.a[1]",
            "module.a[10]",
            r#"module.a["x"]"#,
            "module.b",
            "module.a.module.z",
            "module.a[0].module.a",
        ]
    );
    let mut modules: Vec<Module> = ["module.b", "module.a.module.a", "module.a"]
        .iter()
        .map(|s| m(s))
        .collect();
    modules.sort();
    let shown: Vec<String> = modules.iter().map(ToString::to_string).collect();
    assert_eq!(shown, ["module.a", "module.b", "module.a.module.a"]);
}
