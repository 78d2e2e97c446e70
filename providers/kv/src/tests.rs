use super::*;
use terrace_sdk::terrace_providers::{AttributePath, CallFunctionRequest, Provider};
use terrace_sdk::testing::{attr, string_map, Tester};

use terrace_testsupport::TempDir;

fn tester(dir: &TempDir, namespace: &str) -> Tester<Store> {
    Tester::new(
        provider(),
        vec![
            ("directory", Value::string(dir.path().display().to_string())),
            ("namespace", Value::string(namespace)),
        ],
    )
    .unwrap_or_else(|d| panic!("{d}"))
}

fn entry_config(t: &Tester<Store>, key: &str, value: &str, tags: &[(&str, &str)]) -> Value {
    t.config(
        "kv_entry",
        vec![
            ("key", Value::string(key)),
            ("value", Value::string(value)),
            ("tags", string_map(tags)),
        ],
    )
}

fn null(t: &Tester<Store>) -> Value {
    Value::null(t.resource_type("kv_entry"))
}

#[test]
fn internal_validate_passes() {
    provider().internal_validate().unwrap();
}

#[test]
fn namespaces_are_separate_stores() {
    let dir = TempDir::new("ns");
    let blue = tester(&dir, "blue");
    let green = tester(&dir, "green");
    let b = blue
        .apply(
            "kv_entry",
            &null(&blue),
            &entry_config(&blue, "k", "from blue", &[]),
        )
        .unwrap();
    let g = green
        .apply(
            "kv_entry",
            &null(&green),
            &entry_config(&green, "k", "from green", &[]),
        )
        .unwrap();
    assert_eq!(attr(&b, "id").as_str(), Some("blue/k"));
    assert_eq!(attr(&g, "id").as_str(), Some("green/k"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("blue/k")).unwrap(),
        "from blue"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("green/k")).unwrap(),
        "from green"
    );
    let read = blue
        .read_data_source("kv_entry", vec![("key", Value::string("k"))])
        .unwrap();
    assert_eq!(attr(&read, "value").as_str(), Some("from blue"));
    // An id from another namespace is refused, not silently read.
    assert!(blue.import("kv_entry", "green/k").is_err());
}

#[test]
fn updates_in_place_and_partial_state() {
    let dir = TempDir::new("partial");
    let t = tester(&dir, "default");
    let state = t
        .apply(
            "kv_entry",
            &null(&t),
            &entry_config(&t, "k", "one", &[("a", "1")]),
        )
        .unwrap();
    let changed = entry_config(&t, "k", "two", &[("a", "2")]);
    let plan = t.plan("kv_entry", &state, &changed);
    assert!(plan.requires_replace.is_empty());
    // Writing the tags fails: a directory is where they are written.
    std::fs::create_dir(dir.path().join("default/k.tags.tmp")).unwrap();
    let applied = t.provider().apply_resource_change(
        terrace_sdk::terrace_providers::ApplyResourceChangeRequest {
            type_name: "kv_entry".into(),
            prior_state: state.clone(),
            planned_state: plan.planned_state,
            config: changed.clone(),
            planned_private: Vec::new(),
            provider_meta: None,
        },
    );
    assert!(applied.diagnostics.has_errors());
    let partial = applied.new_state;
    assert_eq!(attr(&partial, "value").as_str(), Some("two"));
    assert!(attr(&partial, "tags").raw_equals(&string_map(&[("a", "1")])));
    std::fs::remove_dir(dir.path().join("default/k.tags.tmp")).unwrap();
    let plan = t.plan("kv_entry", &partial, &changed);
    assert!(plan.requires_replace.is_empty());
    let done = t.apply("kv_entry", &partial, &changed).unwrap();
    assert!(attr(&done, "tags").raw_equals(&string_map(&[("a", "2")])));
    let renamed = entry_config(&t, "other", "two", &[]);
    let plan = t.plan("kv_entry", &done, &renamed);
    assert_eq!(
        plan.requires_replace,
        vec![AttributePath::root().attribute("key")]
    );
}

#[test]
fn vanished_entries_and_import() {
    let dir = TempDir::new("vanish");
    let t = tester(&dir, "default");
    let state = t
        .apply(
            "kv_entry",
            &null(&t),
            &entry_config(&t, "k", "v", &[("x", "y")]),
        )
        .unwrap();
    std::fs::remove_file(dir.path().join("default/k")).unwrap();
    assert!(t.read("kv_entry", &state).new_state.is_null());
    std::fs::write(dir.path().join("default/k"), "outside").unwrap();
    let imported = t.import("kv_entry", "k").unwrap();
    assert_eq!(attr(&imported, "value").as_str(), Some("outside"));
    assert!(attr(&imported, "tags").raw_equals(&string_map(&[("x", "y")])));
    assert!(t.import("kv_entry", "missing").is_err());
}

#[test]
fn the_lock_holds_operations_until_their_timeout() {
    let dir = TempDir::new("lock");
    let t = tester(&dir, "default");
    std::fs::write(dir.path().join("default/.lock"), "").unwrap();
    let timeouts_ty = t
        .resource_type("kv_entry")
        .attribute_type("timeouts")
        .unwrap()
        .clone();
    let config = t.config(
        "kv_entry",
        vec![
            ("key", Value::string("k")),
            ("value", Value::string("v")),
            (
                "timeouts",
                terrace_sdk::testing::object(
                    &timeouts_ty,
                    vec![("create", Value::string("300ms"))],
                ),
            ),
        ],
    );
    let error = t.apply("kv_entry", &null(&t), &config).unwrap_err();
    let summaries: Vec<&str> = error.iter().map(|d| d.summary.as_str()).collect();
    assert_eq!(
        summaries,
        vec!["Timeout while waiting for create", "Namespace locked"]
    );
    assert!(!dir.path().join("default/k").exists());
    std::fs::remove_file(dir.path().join("default/.lock")).unwrap();
    assert!(t.apply("kv_entry", &null(&t), &config).is_ok());
}

#[test]
fn bad_values_are_attribute_diagnostics() {
    let dir = TempDir::new("bad");
    let error = Tester::new(
        provider(),
        vec![
            ("directory", Value::string(dir.path().display().to_string())),
            ("namespace", Value::string("a/b")),
        ],
    )
    .err()
    .unwrap();
    assert_eq!(
        error.errors().next().unwrap().attribute,
        Some(AttributePath::root().attribute("namespace"))
    );
    let t = tester(&dir, "default");
    let diagnostics = t.validate("kv_entry", &entry_config(&t, "../escape", "v", &[]));
    assert_eq!(
        diagnostics.errors().next().unwrap().attribute,
        Some(AttributePath::root().attribute("key"))
    );
    let called = t.provider().call_function(CallFunctionRequest {
        name: "entry_id".into(),
        arguments: vec![Value::string("ns"), Value::string("k")],
    });
    assert!(called.result.unwrap().raw_equals(&Value::string("ns/k")));
    let bad = t.provider().call_function(CallFunctionRequest {
        name: "entry_id".into(),
        arguments: vec![Value::string("ns"), Value::string("a/b")],
    });
    assert_eq!(bad.result.unwrap_err().argument, Some(1));
}
