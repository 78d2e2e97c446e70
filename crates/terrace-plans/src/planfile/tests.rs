//! Round trips of saved plans (a plan using every field, and every
//! recorded case) and the checks that refuse a stale plan.

use super::*;
use crate::render::{render_plan, RenderOptions};
use crate::testutil::{load_schemas, lookup, plan_from_json, read_json};
use std::collections::BTreeMap;
use std::sync::Arc;
use terrace_addrs::{AbsProviderConfig, InstanceKey, Module, Provider};
use terrace_states::ObjectState;
use terrace_value::{Number, Refinement};

fn changes_equal(a: &ResourceInstanceChange, b: &ResourceInstanceChange) -> bool {
    a.addr == b.addr
        && a.prev_run_addr == b.prev_run_addr
        && a.deposed == b.deposed
        && a.provider == b.provider
        && a.action == b.action
        && a.action_reason == b.action_reason
        && a.before.raw_equals(&b.before)
        && a.after.raw_equals(&b.after)
        && a.required_replace == b.required_replace
        && a.private == b.private
        && a.importing == b.importing
        && a.generated_config == b.generated_config
        && a.schema_version == b.schema_version
}

fn assert_plans_equal(a: &Plan, b: &Plan) {
    assert_eq!(a.mode, b.mode);
    assert_eq!(a.changes.len(), b.changes.len());
    for (x, y) in a.changes.iter().zip(&b.changes) {
        assert!(
            changes_equal(x, y),
            "change {} differs:\n{x:?}\n{y:?}",
            x.addr
        );
    }
    assert_eq!(a.drift.len(), b.drift.len());
    for (x, y) in a.drift.iter().zip(&b.drift) {
        assert!(changes_equal(x, y), "drift {} differs", x.addr);
    }
    assert_eq!(a.output_changes.len(), b.output_changes.len());
    for (x, y) in a.output_changes.iter().zip(&b.output_changes) {
        assert_eq!(x.name, y.name);
        assert_eq!(x.action, y.action);
        assert_eq!(x.sensitive, y.sensitive);
        assert!(x.before.raw_equals(&y.before), "output {} before", x.name);
        assert!(x.after.raw_equals(&y.after), "output {} after", x.name);
    }
    assert_eq!(a.variable_values.len(), b.variable_values.len());
    for (k, v) in &a.variable_values {
        assert!(
            b.variable_values.get(k).is_some_and(|w| v.raw_equals(w)),
            "variable {k}"
        );
    }
    assert_eq!(a.relevant_attributes, b.relevant_attributes);
    assert!(a.prior_state.deep_eq_ignoring_serial(&b.prior_state));
    assert_eq!(a.prior_state.serial, b.prior_state.serial);
    assert!(a.prev_run_state.deep_eq_ignoring_serial(&b.prev_run_state));
    let strings = |ts: &[Target]| ts.iter().map(|t| t.to_string()).collect::<Vec<_>>();
    assert_eq!(strings(&a.targets), strings(&b.targets));
    assert_eq!(strings(&a.excludes), strings(&b.excludes));
    assert_eq!(a.force_replace, b.force_replace);
    assert_eq!(
        (a.errored, a.applyable, a.complete, &a.timestamp),
        (b.errored, b.applyable, b.complete, &b.timestamp)
    );
}

fn provider() -> AbsProviderInstance {
    let p = Provider::parse_source_str("hashicorp/null").unwrap_or_else(|_| panic!("provider"));
    AbsProviderConfig::new(Module::root(), p, Some(Arc::from("east")))
        .instance(InstanceKey::string("k"))
}

fn addr(s: &str) -> AbsResourceInstance {
    AbsResourceInstance::parse_str(s).unwrap_or_else(|_| panic!("{s}"))
}

/// A plan exercising every field: unknowns with refinements, marks deep
/// inside values, a deposed object, an import, targets.
fn rich_plan() -> Plan {
    let mut state = State::new_with_lineage("5f0a1b2c-0000-4000-8000-000000000001");
    state.serial = 7;
    let object = ObjectState::from_value(
        &Value::object(BTreeMap::from([("id".to_string(), Value::string("x"))])),
        1,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let pc = provider().config;
    state.set_current(
        &addr("null_resource.a[0]"),
        pc,
        InstanceKey::string("k"),
        Some(object),
    );
    let mut plan = Plan::empty(PlanMode::Normal, state);
    let refined = Value::unknown_refined(
        Type::String,
        Refinement {
            not_null: true,
            string_prefix: Some("pre".into()),
            ..Refinement::default()
        },
    );
    let after = Value::object(BTreeMap::from([
        ("id".to_string(), refined),
        (
            "tags".to_string(),
            Value::map(
                Type::String,
                BTreeMap::from([
                    ("a".to_string(), Value::string("1").mark(Marks::SENSITIVE)),
                    ("b".to_string(), Value::unknown(Type::String)),
                ]),
            ),
        ),
        (
            "list".to_string(),
            Value::list(
                Type::Number,
                vec![
                    Value::number(Number::from_i64(1)),
                    Value::int(2).mark(Marks::SENSITIVE),
                ],
            ),
        ),
        (
            "set".to_string(),
            Value::set(Type::String, vec![Value::string("s")]).mark(Marks::SENSITIVE),
        ),
        ("dyn".to_string(), Value::dynamic()),
    ]))
    .mark(Marks::SENSITIVE);
    plan.changes.push(ResourceInstanceChange {
        addr: addr("module.m[\"x\"].null_resource.a[0]"),
        prev_run_addr: addr("null_resource.a[0]"),
        deposed: DeposedKey::parse("0a1b2c3d"),
        provider: provider(),
        action: Action::CreateThenDelete,
        action_reason: ActionReason::ReplaceByTriggers,
        before: Value::object(BTreeMap::from([("id".to_string(), Value::string("x"))])),
        after,
        required_replace: vec![AttributePath::root().attribute("tags").key("a").index(3)],
        private: vec![0, 1, 255],
        importing: Some("imp-id".into()),
        generated_config: Some("resource \"x\" \"y\" {}\n".into()),
        schema_version: 3,
    });
    plan.output_changes.push(OutputChange {
        name: "o".into(),
        action: Action::Create,
        before: Value::null(Type::Dynamic),
        after: Value::unknown(Type::list(Type::String)),
        sensitive: true,
    });
    plan.variable_values.insert(
        "v".into(),
        Value::tuple(vec![Value::bool(true), Value::null(Type::String)]),
    );
    plan.relevant_attributes.push(ResourceAttr {
        resource: addr("null_resource.a[0]"),
        attr: AttributePath::root().attribute("id"),
    });
    plan.targets = vec![Target::parse_str("module.m").unwrap_or_else(|_| panic!("target"))];
    plan.force_replace = vec![addr("null_resource.a[0]")];
    plan.errored = false;
    plan.applyable = true;
    plan.timestamp = "2025-01-02T03:04:05Z".into();
    plan
}

fn rich_context() -> PlanContext {
    let mut config_files = BTreeMap::new();
    config_files.insert(
        ".".to_string(),
        BTreeMap::from([(
            "main.tf".to_string(),
            "module \"m\" {\n  source = \"./m\"\n}\n".to_string(),
        )]),
    );
    config_files.insert(
        "m".to_string(),
        BTreeMap::from([("m.tf".to_string(), "# \u{e9}\n".to_string())]),
    );
    PlanContext {
        config_files,
        module_manifest: Some("{\"Modules\":[]}".into()),
        dependency_locks: Some("# locks\n".into()),
        backend: SavedBackend {
            type_name: "local".into(),
            config: BTreeMap::from([("path".to_string(), "state/x.tfstate".to_string())]),
            workspace: "dev".into(),
        },
        state: Some(("lin".into(), 7)),
        apply_time_variables: vec!["token".into()],
    }
}

#[test]
fn rich_plan_round_trips() {
    let plan = rich_plan();
    let bytes = write(&plan, &rich_context()).unwrap_or_else(|e| panic!("{e}"));
    let back = read(&bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_plans_equal(&plan, &back.plan);
    assert_eq!(back.context, rich_context());
    // Writing what was read gives the same bytes.
    let again = write(&back.plan, &back.context).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        String::from_utf8_lossy(&bytes),
        String::from_utf8_lossy(&again)
    );
}

#[test]
fn recorded_plans_round_trip() {
    for dir in crate::render::tests::case_dirs() {
        let schemas = load_schemas(&read_json(&dir.join("schemas.json")));
        let plan = plan_from_json(
            &read_json(&dir.join("plan.json")),
            crate::render::tests::case_mode(&dir),
            &schemas,
        );
        let bytes = write(&plan, &PlanContext::default())
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let back = read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        assert_plans_equal(&plan, &back.plan);
        let opts = RenderOptions::new(false);
        assert_eq!(
            render_plan(&plan, &lookup(&schemas), &opts),
            render_plan(&back.plan, &lookup(&schemas), &opts),
            "{}",
            dir.display()
        );
    }
}

#[test]
fn staleness_checks() {
    let file = |state: Option<(&str, u64)>| PlanFile {
        plan: Plan::empty(PlanMode::Normal, State::new_with_lineage("x")),
        context: PlanContext {
            state: state.map(|(l, s)| (l.to_string(), s)),
            ..PlanContext::default()
        },
        terrace_version: String::new(),
    };
    type Case<'a> = (PlanFile, Option<(&'a str, u64)>, Option<&'a str>);
    let summary = |r: Option<Diagnostic>| r.map(|d| d.summary);
    let cases: [Case; 7] = [
        (file(Some(("L", 3))), Some(("L", 3)), None),
        (
            file(Some(("L", 3))),
            Some(("L", 4)),
            Some("Saved plan is stale"),
        ),
        (
            file(Some(("L", 3))),
            Some(("M", 3)),
            Some("Saved plan does not match the given state"),
        ),
        // A plan made with no state applies while there is still none.
        (file(None), None, None),
        (file(None), Some(("M", 0)), None),
        (file(None), Some(("M", 1)), Some("Saved plan is stale")),
        // The state is gone: it is not the one planned against.
        (
            file(Some(("L", 3))),
            None,
            Some("Saved plan does not match the given state"),
        ),
    ];
    for (i, (pf, current, want)) in cases.into_iter().enumerate() {
        assert_eq!(
            summary(pf.check_state(current)).as_deref(),
            want,
            "case {i}"
        );
    }
}

#[test]
fn rejects_what_is_not_a_plan_file() {
    for bytes in [
        &b"PK\x03\x04zip"[..],
        b"{}",
        b"{\"terrace_plan_format\": 99}",
    ] {
        assert!(read(bytes).is_err(), "{}", String::from_utf8_lossy(bytes));
    }
    let good = write(&rich_plan(), &rich_context()).unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&good).replace("\"reason\":\"D\"", "\"reason\":\"Z\"");
    assert!(read(text.as_bytes()).is_err());
}
