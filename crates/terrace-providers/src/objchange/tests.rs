use super::*;
use crate::schema::{Attribute, Block, NestedAttributes, NestedBlock, NestingMode, ObjectNesting};
use std::collections::BTreeMap;
use terrace_value::{Marks, Type, Value};

// ----- value and schema builders -----

fn s(v: &str) -> Value {
    Value::string(v)
}
fn n(v: i64) -> Value {
    Value::int(v)
}
fn null(ty: Type) -> Value {
    Value::null(ty)
}
fn unk(ty: Type) -> Value {
    Value::unknown(ty)
}
fn obj(attrs: Vec<(&str, Value)>) -> Value {
    Value::object(attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}
fn list(ety: Type, items: Vec<Value>) -> Value {
    Value::list(ety, items)
}
fn set(ety: Type, items: Vec<Value>) -> Value {
    Value::set(ety, items)
}
fn map(ety: Type, items: Vec<(&str, Value)>) -> Value {
    Value::map(
        ety,
        items.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    )
}
fn oty(attrs: Vec<(&str, Type)>) -> Type {
    Type::object(attrs.into_iter().map(|(k, t)| (k.to_string(), t)))
}

#[derive(Clone, Copy)]
enum Flags {
    Opt,
    Comp,
    OptComp,
}

fn a(ty: Type, flags: Flags) -> Attribute {
    let mut attribute = Attribute::new(ty);
    match flags {
        Flags::Opt => attribute.optional = true,
        Flags::Comp => attribute.computed = true,
        Flags::OptComp => {
            attribute.optional = true;
            attribute.computed = true;
        }
    }
    attribute
}

fn nested_attr(nesting: ObjectNesting, attrs: Vec<(&str, Attribute)>, flags: Flags) -> Attribute {
    let mut attribute = Attribute::nested(NestedAttributes {
        nesting,
        attributes: attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    });
    let template = a(Type::String, flags);
    attribute.required = template.required;
    attribute.optional = template.optional;
    attribute.computed = template.computed;
    attribute
}

fn block(attrs: Vec<(&str, Attribute)>, blocks: Vec<(&str, NestingMode, Block)>) -> Block {
    Block {
        attributes: attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        block_types: blocks
            .into_iter()
            .map(|(k, nesting, block)| {
                (
                    k.to_string(),
                    NestedBlock {
                        nesting,
                        block,
                        min_items: 0,
                        max_items: 0,
                    },
                )
            })
            .collect(),
        ..Block::default()
    }
}

fn messages(errors: &[ObjectError]) -> Vec<String> {
    errors.iter().map(ToString::to_string).collect()
}

// ----- ProposedNew -----

fn inner_block() -> Block {
    block(
        vec![
            ("opt", a(Type::String, Flags::Opt)),
            ("comp", a(Type::String, Flags::Comp)),
        ],
        vec![],
    )
}

fn inner_ty() -> Type {
    oty(vec![("comp", Type::String), ("opt", Type::String)])
}

fn inner(opt: Value, comp: Value) -> Value {
    obj(vec![("comp", comp), ("opt", opt)])
}

#[test]
fn proposed_new_cases() {
    let top = block(
        vec![
            ("opt", a(Type::String, Flags::Opt)),
            ("comp", a(Type::String, Flags::Comp)),
            ("oc", a(Type::String, Flags::OptComp)),
        ],
        vec![],
    );
    let list_schema = block(vec![], vec![("b", NestingMode::List, inner_block())]);
    let set_schema = block(vec![], vec![("b", NestingMode::Set, inner_block())]);
    let map_schema = block(vec![], vec![("b", NestingMode::Map, inner_block())]);
    let single_schema = block(vec![], vec![("b", NestingMode::Single, inner_block())]);
    let group_schema = block(vec![], vec![("b", NestingMode::Group, inner_block())]);
    let nested_list_schema = block(
        vec![(
            "na",
            nested_attr(
                ObjectNesting::List,
                vec![
                    ("opt", a(Type::String, Flags::Opt)),
                    ("comp", a(Type::String, Flags::Comp)),
                ],
                Flags::Opt,
            ),
        )],
        vec![],
    );
    let nested_oc_schema = block(
        vec![(
            "na",
            nested_attr(
                ObjectNesting::Single,
                vec![
                    ("opt", a(Type::String, Flags::Opt)),
                    ("comp", a(Type::String, Flags::Comp)),
                ],
                Flags::OptComp,
            ),
        )],
        vec![],
    );
    let top3 =
        |opt: Value, comp: Value, oc: Value| obj(vec![("comp", comp), ("oc", oc), ("opt", opt)]);
    let list_of_inner = |items: Vec<Value>| obj(vec![("b", list(inner_ty(), items))]);
    let set_of_inner = |items: Vec<Value>| obj(vec![("b", set(inner_ty(), items))]);
    let na_ty = inner_ty();

    let cases: Vec<(&str, Block, Value, Value, Value)> = vec![
        (
            "both null stays null",
            top.clone(),
            null(top.implied_type()),
            null(top.implied_type()),
            null(top.implied_type()),
        ),
        (
            "create: computed attributes stay null",
            top.clone(),
            null(top.implied_type()),
            top3(s("a"), null(Type::String), null(Type::String)),
            top3(s("a"), null(Type::String), null(Type::String)),
        ),
        (
            "update: computed values kept, config wins where set",
            top.clone(),
            top3(s("old"), s("id"), s("prior-oc")),
            top3(s("new"), null(Type::String), null(Type::String)),
            top3(s("new"), s("id"), s("prior-oc")),
        ),
        (
            "optional+computed set in config",
            top.clone(),
            top3(s("x"), s("id"), s("prior-oc")),
            top3(s("x"), null(Type::String), s("cfg")),
            top3(s("x"), s("id"), s("cfg")),
        ),
        (
            "list blocks matched by index, extra config blocks as given",
            list_schema.clone(),
            list_of_inner(vec![inner(s("a"), s("c0"))]),
            list_of_inner(vec![
                inner(s("a2"), null(Type::String)),
                inner(s("b"), null(Type::String)),
            ]),
            list_of_inner(vec![
                inner(s("a2"), s("c0")),
                inner(s("b"), null(Type::String)),
            ]),
        ),
        (
            "set blocks correlated by their configured attributes",
            set_schema.clone(),
            set_of_inner(vec![inner(s("a"), s("ca")), inner(s("b"), s("cb"))]),
            set_of_inner(vec![
                inner(s("b"), null(Type::String)),
                inner(s("z"), null(Type::String)),
            ]),
            set_of_inner(vec![
                inner(s("b"), s("cb")),
                inner(s("z"), null(Type::String)),
            ]),
        ),
        (
            "map blocks matched by key",
            map_schema.clone(),
            obj(vec![(
                "b",
                map(inner_ty(), vec![("k", inner(s("a"), s("ck")))]),
            )]),
            obj(vec![(
                "b",
                map(
                    inner_ty(),
                    vec![
                        ("k", inner(s("a"), null(Type::String))),
                        ("new", inner(s("n"), null(Type::String))),
                    ],
                ),
            )]),
            obj(vec![(
                "b",
                map(
                    inner_ty(),
                    vec![
                        ("k", inner(s("a"), s("ck"))),
                        ("new", inner(s("n"), null(Type::String))),
                    ],
                ),
            )]),
        ),
        (
            "single block removed from config stays null",
            single_schema.clone(),
            obj(vec![("b", inner(s("a"), s("c")))]),
            obj(vec![("b", null(inner_ty()))]),
            obj(vec![("b", null(inner_ty()))]),
        ),
        (
            "single block keeps computed",
            single_schema.clone(),
            obj(vec![("b", inner(s("a"), s("c")))]),
            obj(vec![("b", inner(s("a"), null(Type::String)))]),
            obj(vec![("b", inner(s("a"), s("c")))]),
        ),
        (
            "group block created from nothing",
            group_schema.clone(),
            null(group_schema.implied_type()),
            obj(vec![("b", inner(null(Type::String), null(Type::String)))]),
            obj(vec![("b", inner(null(Type::String), null(Type::String)))]),
        ),
        (
            "unknown block collection (dynamic block) passes through",
            list_schema.clone(),
            list_of_inner(vec![inner(s("a"), s("c0"))]),
            obj(vec![("b", unk(Type::list(inner_ty())))]),
            obj(vec![("b", unk(Type::list(inner_ty())))]),
        ),
        (
            "nested attributes list keeps computed inner values",
            nested_list_schema.clone(),
            obj(vec![(
                "na",
                list(na_ty.clone(), vec![inner(s("a"), s("c"))]),
            )]),
            obj(vec![(
                "na",
                list(na_ty.clone(), vec![inner(s("b"), null(Type::String))]),
            )]),
            obj(vec![(
                "na",
                list(na_ty.clone(), vec![inner(s("b"), s("c"))]),
            )]),
        ),
        (
            "optional+computed nested attribute removed from config",
            nested_oc_schema.clone(),
            obj(vec![("na", inner(s("configured"), s("c")))]),
            obj(vec![("na", null(na_ty.clone()))]),
            obj(vec![("na", null(na_ty.clone()))]),
        ),
        (
            "optional+computed nested attribute holding only computed values",
            nested_oc_schema.clone(),
            obj(vec![("na", inner(null(Type::String), s("c")))]),
            obj(vec![("na", null(na_ty.clone()))]),
            obj(vec![("na", inner(null(Type::String), s("c")))]),
        ),
    ];
    for (name, schema, prior, config, want) in cases {
        let got = proposed_new(&schema, &prior, &config);
        assert!(
            got.raw_equals(&want),
            "{name}:\n got  {}\n want {}",
            gostring::value_go_string(&got),
            gostring::value_go_string(&want)
        );
    }
}

#[test]
fn proposed_new_correlates_set_elements() {
    let multi = |attrs: Vec<(&str, Attribute)>| {
        block(
            vec![],
            vec![("multi", NestingMode::Set, block(attrs, vec![]))],
        )
    };
    let partial = multi(vec![
        ("opt", a(Type::String, Flags::Opt)),
        ("cmp", a(Type::String, Flags::OptComp)),
    ]);
    let e = |opt: Value, cmp: Value| obj(vec![("cmp", cmp), ("opt", opt)]);
    let ety = oty(vec![("cmp", Type::String), ("opt", Type::String)]);
    let sv = |items: Vec<Value>| obj(vec![("multi", set(ety.clone(), items))]);
    let ns = || null(Type::String);

    let required = multi(vec![
        ("opt", a(Type::String, Flags::OptComp)),
        ("req", {
            let mut r = a(Type::String, Flags::Opt);
            r.optional = false;
            r.required = true;
            r
        }),
    ]);
    let r = |opt: Value, req: &str| obj(vec![("opt", opt), ("req", s(req))]);
    let rty = oty(vec![("opt", Type::String), ("req", Type::String)]);
    let rv = |items: Vec<Value>| obj(vec![("multi", set(rty.clone(), items))]);

    let only_unknown = multi(vec![("optional", a(Type::String, Flags::OptComp))]);
    let uty = oty(vec![("optional", Type::String)]);
    let uv = || {
        obj(vec![(
            "multi",
            set(
                uty.clone(),
                vec![
                    obj(vec![("optional", unk(Type::String))]),
                    obj(vec![("optional", unk(Type::String))]),
                ],
            ),
        )])
    };

    let cases: Vec<(&str, Block, Value, Value, Value)> = vec![
        (
            "only the element whose configured values match keeps its computed value",
            partial,
            sv(vec![e(s("one"), s("OK")), e(s("two"), s("OK"))]),
            sv(vec![e(s("one"), ns()), e(s("replaced"), ns())]),
            sv(vec![e(s("one"), s("OK")), e(s("replaced"), ns())]),
        ),
        (
            "optional+computed values kept when config leaves them null",
            required,
            rv(vec![r(s("one"), "one"), r(s("two"), "two")]),
            rv(vec![r(ns(), "one"), r(ns(), "two")]),
            rv(vec![r(s("one"), "one"), r(s("two"), "two")]),
        ),
        (
            "elements differing only by unknowns stay distinct",
            only_unknown.clone(),
            null(Type::Dynamic),
            uv(),
            uv(),
        ),
    ];
    for (name, schema, prior, config, want) in cases {
        let got = proposed_new(&schema, &prior, &config);
        assert!(
            got.raw_equals(&want),
            "{name}:\n got  {}\n want {}",
            gostring::value_go_string(&got),
            gostring::value_go_string(&want)
        );
    }
}

#[test]
fn planned_unknown_object_fills_computed_with_unknowns() {
    let schema = block(
        vec![
            ("opt", a(Type::String, Flags::Opt)),
            ("comp", a(Type::String, Flags::Comp)),
        ],
        vec![("b", NestingMode::List, inner_block())],
    );
    let config = obj(vec![
        (
            "b",
            list(inner_ty(), vec![inner(s("x"), null(Type::String))]),
        ),
        ("comp", null(Type::String)),
        ("opt", s("o")),
    ]);
    let want = obj(vec![
        (
            "b",
            list(inner_ty(), vec![inner(s("x"), unk(Type::String))]),
        ),
        ("comp", unk(Type::String)),
        ("opt", s("o")),
    ]);
    assert!(planned_unknown_object(&schema, &config).raw_equals(&want));
}

#[test]
fn empty_values() {
    let schema = block(
        vec![("x", a(Type::String, Flags::Opt))],
        vec![
            ("s", NestingMode::Single, inner_block()),
            ("g", NestingMode::Group, inner_block()),
            ("l", NestingMode::List, inner_block()),
            (
                "d",
                NestingMode::List,
                block(vec![("dyn", a(Type::Dynamic, Flags::Opt))], vec![]),
            ),
            ("m", NestingMode::Map, inner_block()),
        ],
    );
    let want = obj(vec![
        ("d", Value::empty_tuple()),
        ("g", inner(null(Type::String), null(Type::String))),
        ("l", list(inner_ty(), vec![])),
        ("m", map(inner_ty(), vec![])),
        ("s", null(inner_ty())),
        ("x", null(Type::String)),
    ]);
    assert!(empty_value(&schema).raw_equals(&want));
}

// ----- AssertPlanValid -----

/// Name, schema, prior, config, planned and the expected errors.
type PlanCase = (&'static str, Block, Value, Value, Value, Vec<&'static str>);

#[test]
fn assert_plan_valid_cases() {
    let mut secret = a(Type::String, Flags::Opt);
    secret.sensitive = true;
    let mut write_only = a(Type::String, Flags::Opt);
    write_only.write_only = true;
    let top = block(
        vec![
            ("opt", a(Type::String, Flags::Opt)),
            ("comp", a(Type::String, Flags::Comp)),
            ("oc", a(Type::String, Flags::OptComp)),
            ("secret", secret),
            ("wo", write_only),
        ],
        vec![("b", NestingMode::List, inner_block())],
    );
    let nested_schema = block(
        vec![(
            "na",
            nested_attr(
                ObjectNesting::List,
                vec![
                    ("opt", a(Type::String, Flags::Opt)),
                    ("comp", a(Type::String, Flags::Comp)),
                ],
                Flags::Opt,
            ),
        )],
        vec![],
    );
    let nested_map_schema = block(
        vec![(
            "na",
            nested_attr(
                ObjectNesting::Map,
                vec![("opt", a(Type::String, Flags::Opt))],
                Flags::Opt,
            ),
        )],
        vec![],
    );
    let obj_top = |opt: Value, comp: Value, oc: Value, secret: Value, b: Vec<Value>| {
        obj(vec![
            ("b", list(inner_ty(), b)),
            ("comp", comp),
            ("oc", oc),
            ("opt", opt),
            ("secret", secret),
            ("wo", null(Type::String)),
        ])
    };
    let ns = || null(Type::String);
    let na = |items: Vec<Value>| obj(vec![("na", list(inner_ty(), items))]);
    let na_map_ty = oty(vec![("opt", Type::String)]);
    let na_map = |items: Vec<(&str, Value)>| obj(vec![("na", map(na_map_ty.clone(), items))]);

    let cases: Vec<PlanCase> = vec![
        (
            "identical plan",
            top.clone(),
            null(top.implied_type()),
            obj_top(s("a"), ns(), ns(), ns(), vec![]),
            obj_top(s("a"), ns(), ns(), ns(), vec![]),
            vec![],
        ),
        (
            "computed attributes may be planned",
            top.clone(),
            null(top.implied_type()),
            obj_top(s("a"), ns(), ns(), ns(), vec![inner(s("x"), ns())]),
            obj_top(
                s("a"),
                unk(Type::String),
                s("default"),
                ns(),
                vec![inner(s("x"), unk(Type::String))],
            ),
            vec![],
        ),
        (
            "non-computed attribute planned without config",
            top.clone(),
            null(top.implied_type()),
            obj_top(ns(), ns(), ns(), ns(), vec![]),
            obj_top(s("x"), ns(), ns(), ns(), vec![]),
            vec![r#".opt: planned value cty.StringVal("x") for a non-computed attribute"#],
        ),
        (
            "planned value differs from config",
            top.clone(),
            null(top.implied_type()),
            obj_top(s("a"), ns(), s("c"), ns(), vec![]),
            obj_top(s("b"), ns(), s("d"), ns(), vec![]),
            vec![
                r#".oc: planned value cty.StringVal("d") does not match config value cty.StringVal("c")"#,
                r#".opt: planned value cty.StringVal("b") does not match config value cty.StringVal("a")"#,
            ],
        ),
        (
            "prior value returned is allowed; anything else is not",
            top.clone(),
            obj_top(s("old"), s("id"), ns(), s("p"), vec![]),
            obj_top(s("new"), ns(), ns(), s("q"), vec![]),
            obj_top(s("old"), s("id"), ns(), s("r"), vec![]),
            vec![".secret: sensitive planned value does not match config value nor prior value"],
        ),
        (
            "differing from both config and prior",
            top.clone(),
            obj_top(s("old"), s("id"), ns(), ns(), vec![]),
            obj_top(s("new"), ns(), ns(), ns(), vec![]),
            obj_top(s("other"), s("id"), ns(), ns(), vec![]),
            vec![r#".opt: planned value cty.StringVal("other") does not match config value cty.StringVal("new") nor prior value cty.StringVal("old")"#],
        ),
        (
            "sensitive non-computed planned without config",
            top.clone(),
            null(top.implied_type()),
            obj_top(ns(), ns(), ns(), ns(), vec![]),
            obj_top(ns(), ns(), ns(), s("x"), vec![]),
            vec![".secret: sensitive planned value for a non-computed attribute"],
        ),
        (
            "block count changed",
            top.clone(),
            null(top.implied_type()),
            obj_top(ns(), ns(), ns(), ns(), vec![inner(s("x"), ns())]),
            obj_top(ns(), ns(), ns(), ns(), vec![inner(s("x"), ns()), inner(s("y"), ns())]),
            vec![".b: block count in plan (2) disagrees with count in config (1)"],
        ),
        (
            "attribute in a block changed",
            top.clone(),
            null(top.implied_type()),
            obj_top(ns(), ns(), ns(), ns(), vec![inner(s("x"), ns())]),
            obj_top(ns(), ns(), ns(), ns(), vec![inner(s("y"), ns())]),
            vec![r#".b[0].opt: planned value cty.StringVal("y") does not match config value cty.StringVal("x")"#],
        ),
        (
            "block element unknown",
            top.clone(),
            null(top.implied_type()),
            obj_top(ns(), ns(), ns(), ns(), vec![inner(s("x"), ns())]),
            obj_top(ns(), ns(), ns(), ns(), vec![unk(inner_ty())]),
            vec![".b[0]: element representing nested block must not be unknown itself; set nested attribute values to unknown instead"],
        ),
        (
            "planned for absence",
            top.clone(),
            null(top.implied_type()),
            obj_top(ns(), ns(), ns(), ns(), vec![]),
            null(top.implied_type()),
            vec!["planned for absence but config wants existence"],
        ),
        (
            "nested attribute count mismatch",
            nested_schema.clone(),
            null(nested_schema.implied_type()),
            na(vec![inner(s("a"), ns())]),
            na(vec![inner(s("a"), ns()), inner(s("b"), ns())]),
            vec![".na: count in plan (cty.NumberIntVal(2)) disagrees with count in config (cty.NumberIntVal(1))"],
        ),
        (
            "nested attribute inner values",
            nested_schema.clone(),
            null(nested_schema.implied_type()),
            na(vec![inner(s("a"), ns())]),
            na(vec![inner(s("b"), s("computed"))]),
            vec![r#".na[0].opt: planned value cty.StringVal("b") does not match config value cty.StringVal("a")"#],
        ),
        (
            "nested map attribute keys",
            nested_map_schema.clone(),
            null(nested_map_schema.implied_type()),
            na_map(vec![("a", obj(vec![("opt", s("1"))]))]),
            na_map(vec![("b", obj(vec![("opt", s("1"))]))]),
            vec![
                r#".na: map key "b" from plan is not present in config"#,
                r#".na: map key "a" from config is not present in plan"#,
            ],
        ),
    ];
    for (name, schema, prior, config, planned, want) in cases {
        let got = messages(&assert_plan_valid(&schema, &prior, &config, &planned));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn write_only_attributes_may_be_planned_null() {
    let mut wo = a(Type::String, Flags::Opt);
    wo.write_only = true;
    let schema = block(vec![("wo", wo)], vec![]);
    let config = obj(vec![("wo", s("secret"))]);
    let planned = obj(vec![("wo", null(Type::String))]);
    assert!(assert_plan_valid(&schema, &null(schema.implied_type()), &config, &planned).is_empty());
}

#[test]
fn unknown_dynamic_block_may_not_be_changed() {
    let schema = block(vec![], vec![("b", NestingMode::List, inner_block())]);
    let config = obj(vec![("b", unk(Type::list(inner_ty())))]);
    let planned = obj(vec![("b", list(inner_ty(), vec![]))]);
    let got = messages(&assert_plan_valid(
        &schema,
        &null(schema.implied_type()),
        &config,
        &planned,
    ));
    assert_eq!(
        got,
        vec![
            r#".b: planned value cty.ListValEmpty(cty.Object(map[string]cty.Type{"comp":cty.String, "opt":cty.String})) for unknown dynamic block"#
        ]
    );
}

#[test]
fn plan_checks_produce_opentofu_diagnostics() {
    let schema = block(vec![("opt", a(Type::String, Flags::Opt))], vec![]);
    let prior = null(schema.implied_type());
    let config = obj(vec![("opt", s("a"))]);
    let planned = obj(vec![("opt", s("b"))]);
    let provider = r#"provider["registry.terraform.io/hashicorp/null"]"#;
    let strict = check_planned_state(
        &schema,
        &prior,
        &config,
        &planned,
        false,
        provider,
        "null_resource.x",
    );
    assert!(strict.log_warning.is_none());
    let diags: Vec<(String, String)> = strict
        .diagnostics
        .iter()
        .map(|d| (d.summary.clone(), d.detail.clone()))
        .collect();
    assert_eq!(
        diags,
        vec![(
            "Provider produced invalid plan".to_string(),
            "Provider \"provider[\\\"registry.terraform.io/hashicorp/null\\\"]\" planned an invalid value for null_resource.x.opt: planned value cty.StringVal(\"b\") does not match config value cty.StringVal(\"a\").\n\nThis is a bug in the provider, which should be reported in the provider's own issue tracker.".to_string()
        )]
    );

    let legacy = check_planned_state(
        &schema,
        &prior,
        &config,
        &planned,
        true,
        "p",
        "null_resource.x",
    );
    assert!(legacy.diagnostics.is_empty());
    assert_eq!(
        legacy.log_warning.as_deref(),
        Some("[WARN] Provider \"p\" produced an invalid plan for null_resource.x, but we are tolerating it because it is using the legacy plugin SDK.\n    The following problems may be the cause of any confusing errors from downstream operations:\n      - .opt: planned value cty.StringVal(\"b\") does not match config value cty.StringVal(\"a\")")
    );

    // Type non-conformance is never tolerated.
    let wrong = obj(vec![("opt", n(1))]);
    let bad = check_planned_state(&schema, &prior, &config, &wrong, true, "p", "x.y");
    assert_eq!(bad.diagnostics.len(), 1);
    assert!(bad.diagnostics.0[0]
        .detail
        .contains("x.y.opt: string required, but received number."));
}

// ----- AssertObjectCompatible -----

#[test]
fn assert_object_compatible_cases() {
    let mut secret = a(Type::String, Flags::Opt);
    secret.sensitive = true;
    let schema = block(
        vec![
            ("s", a(Type::String, Flags::OptComp)),
            ("l", a(Type::list(Type::String), Flags::OptComp)),
            ("st", a(Type::set(Type::String), Flags::OptComp)),
            ("secret", secret),
            ("dyn", a(Type::Dynamic, Flags::OptComp)),
        ],
        vec![
            ("b", NestingMode::List, inner_block()),
            ("bs", NestingMode::Set, inner_block()),
        ],
    );
    let base = |s_: Value, l: Value, st: Value, secret: Value, b: Vec<Value>, bs: Vec<Value>| {
        obj(vec![
            ("b", list(inner_ty(), b)),
            ("bs", set(inner_ty(), bs)),
            ("dyn", null(Type::Dynamic)),
            ("l", l),
            ("s", s_),
            ("secret", secret),
            ("st", st),
        ])
    };
    let ls = |items: Vec<&str>| list(Type::String, items.into_iter().map(s).collect());
    let ss = |items: Vec<&str>| set(Type::String, items.into_iter().map(s).collect());
    let ns = || null(Type::String);
    let cases: Vec<(&str, Value, Value, Vec<&str>)> = vec![
        (
            "identical",
            base(s("a"), ls(vec!["x"]), ss(vec!["y"]), ns(), vec![], vec![]),
            base(s("a"), ls(vec!["x"]), ss(vec!["y"]), ns(), vec![], vec![]),
            vec![],
        ),
        (
            "unknowns resolved",
            base(unk(Type::String), unk(Type::list(Type::String)), ss(vec!["y"]), ns(), vec![inner(s("o"), unk(Type::String))], vec![]),
            base(s("a"), ls(vec!["x", "z"]), ss(vec!["y"]), ns(), vec![inner(s("o"), s("c"))], vec![]),
            vec![],
        ),
        (
            "known value changed",
            base(s("a"), ls(vec!["x"]), ss(vec!["y"]), ns(), vec![], vec![]),
            base(s("b"), ls(vec!["x"]), ss(vec!["y"]), ns(), vec![], vec![]),
            vec![r#".s: was cty.StringVal("a"), but now cty.StringVal("b")"#],
        ),
        (
            "list elements vanish and appear",
            base(s("a"), ls(vec!["x", "y"]), ss(vec![]), ns(), vec![], vec![]),
            base(s("a"), ls(vec!["x"]), ss(vec![]), ns(), vec![], vec![]),
            vec![".l: element 1 has vanished"],
        ),
        (
            "null and absence",
            base(s("a"), ls(vec![]), ss(vec![]), ns(), vec![], vec![]),
            base(ns(), ls(vec![]), ss(vec![]), ns(), vec![], vec![]),
            vec![r#".s: was cty.StringVal("a"), but now null"#],
        ),
        (
            "sensitive values are not shown",
            base(s("a"), ls(vec![]), ss(vec![]), s("p"), vec![], vec![]),
            base(s("a"), ls(vec![]), ss(vec![]), s("q"), vec![], vec![]),
            vec![".secret: inconsistent values for sensitive attribute"],
        ),
        (
            "set element not correlated",
            base(s("a"), ls(vec![]), ss(vec!["x"]), ns(), vec![], vec![]),
            base(s("a"), ls(vec![]), ss(vec!["z"]), ns(), vec![], vec![]),
            vec![r#".st: planned set element cty.StringVal("x") does not correlate with any element in actual"#],
        ),
        (
            "block count changed",
            base(s("a"), ls(vec![]), ss(vec![]), ns(), vec![inner(s("o"), ns())], vec![]),
            base(s("a"), ls(vec![]), ss(vec![]), ns(), vec![], vec![]),
            vec![".b: block count changed from 1 to 0"],
        ),
        (
            "set block grew",
            base(s("a"), ls(vec![]), ss(vec![]), ns(), vec![], vec![inner(s("o"), unk(Type::String))]),
            base(s("a"), ls(vec![]), ss(vec![]), ns(), vec![], vec![inner(s("o"), s("1")), inner(s("o"), s("2"))]),
            vec![".bs: block set length changed from 1 to 2"],
        ),
        (
            "known became unknown",
            base(s("a"), ls(vec![]), ss(vec![]), ns(), vec![], vec![]),
            base(unk(Type::String), ls(vec![]), ss(vec![]), ns(), vec![], vec![]),
            vec![".s: was known, but now unknown"],
        ),
        (
            "refinement violated",
            base(unk(Type::String).refine_not_null(), ls(vec![]), ss(vec![]), ns(), vec![], vec![]),
            base(ns(), ls(vec![]), ss(vec![]), ns(), vec![], vec![]),
            vec![".s: final value cty.NullVal(cty.String) does not conform to planning placeholder cty.UnknownVal(cty.String).RefineNotNull()"],
        ),
    ];
    for (name, planned, actual, want) in cases {
        let got = messages(&assert_object_compatible(&schema, &planned, &actual));
        assert_eq!(got, want, "{name}");
    }

    let planned = base(s("a"), ls(vec![]), ss(vec![]), ns(), vec![], vec![]);
    let got = messages(&assert_object_compatible(
        &schema,
        &planned,
        &null(schema.implied_type()),
    ));
    assert_eq!(got, vec!["root object was present, but now absent"]);
}

#[test]
fn wrong_final_value_type_for_dynamic_values() {
    let schema = block(vec![("d", a(Type::Dynamic, Flags::OptComp))], vec![]);
    let planned = obj(vec![("d", s("x"))]);
    let actual = obj(vec![("d", n(1))]);
    let got = messages(&assert_object_compatible(&schema, &planned, &actual));
    assert_eq!(got, vec![".d: wrong final value type: string required"]);
    let apply = check_apply_result(&schema, &planned, &actual, false, "p", "t.a");
    assert_eq!(
        apply.diagnostics.0[0].detail,
        "When applying changes to t.a, provider \"p\" produced an unexpected new value: .d: wrong final value type: string required.\n\nThis is a bug in the provider, which should be reported in the provider's own issue tracker."
    );
    let tolerated = check_apply_result(&schema, &planned, &actual, true, "p", "t.a");
    assert!(tolerated.diagnostics.is_empty());
    assert!(tolerated
        .log_warning
        .is_some_and(|w| w.contains("produced an unexpected new value for t.a")));
}

// ----- NormalizeObjectFromLegacySDK -----

#[test]
fn normalize_legacy_objects() {
    let schema = block(
        vec![("id", a(Type::String, Flags::Comp))],
        vec![
            ("l", NestingMode::List, inner_block()),
            ("st", NestingMode::Set, inner_block()),
            ("g", NestingMode::Group, inner_block()),
            ("s", NestingMode::Single, inner_block()),
        ],
    );
    let stub = inner(unk(Type::String), unk(Type::String));
    let cases: Vec<(&str, Value, Value)> = vec![
        (
            "null collections become empty, null groups empty objects",
            obj(vec![
                ("g", null(inner_ty())),
                ("id", s("i")),
                ("l", null(Type::list(inner_ty()))),
                ("s", null(inner_ty())),
                ("st", null(Type::set(inner_ty()))),
            ]),
            obj(vec![
                ("g", inner(null(Type::String), null(Type::String))),
                ("id", s("i")),
                ("l", list(inner_ty(), vec![])),
                ("s", null(inner_ty())),
                ("st", set(inner_ty(), vec![])),
            ]),
        ),
        (
            "unknown blocks become stubs",
            obj(vec![
                ("g", unk(inner_ty())),
                ("id", unk(Type::String)),
                ("l", unk(Type::list(inner_ty()))),
                ("s", unk(inner_ty())),
                ("st", unk(Type::set(inner_ty()))),
            ]),
            obj(vec![
                ("g", stub.clone()),
                ("id", unk(Type::String)),
                ("l", list(inner_ty(), vec![stub.clone()])),
                ("s", stub.clone()),
                ("st", set(inner_ty(), vec![stub.clone()])),
            ]),
        ),
    ];
    for (name, input, want) in cases {
        let got = normalize_object_from_legacy_sdk(&input, &schema);
        assert!(
            got.raw_equals(&want),
            "{name}:\n got  {}\n want {}",
            gostring::value_go_string(&got),
            gostring::value_go_string(&want)
        );
    }

    // Marks stay where they were.
    let marked = obj(vec![
        ("g", null(inner_ty())),
        ("id", s("i").mark(Marks::SENSITIVE)),
        ("l", null(Type::list(inner_ty()))),
        ("s", null(inner_ty())),
        ("st", null(Type::set(inner_ty()))),
    ]);
    let got = normalize_object_from_legacy_sdk(&marked, &schema);
    let id = got.get_attr("id").ok();
    assert!(id.is_some_and(|v| v.is_sensitive()));
    let l = got.get_attr("l").ok();
    assert!(l.is_some_and(|v| !v.is_marked() && v.length_int() == Some(0)));
}

#[test]
fn conformance_messages() {
    let given = oty(vec![("a", Type::Number), ("extra", Type::Bool)]);
    let want = oty(vec![("a", Type::String), ("b", Type::Bool)]);
    let got = messages(&test_conformance(&given, &want));
    assert_eq!(
        got,
        vec![
            r#"unsupported attribute "extra""#,
            r#"missing required attribute "b""#,
            ".a: string required, but received number",
        ]
    );
    assert!(test_conformance(&Type::list(Type::String), &Type::Dynamic).is_empty());
    let got = messages(&test_conformance(
        &Type::list(Type::Number),
        &Type::list(Type::String),
    ));
    assert_eq!(
        got,
        vec!["[(not yet known)]: string required, but received number"]
    );
    let err = ObjectError::new(&[], "boom");
    assert_eq!(err.format_prefixed("a.b"), "a.b: boom");
    let _ = BTreeMap::<String, Value>::new();
}
