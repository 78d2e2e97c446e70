use super::*;
use terrace_sdk::terrace_providers::{
    AttributePath, Provider, RawState, UpgradeResourceStateRequest,
};
use terrace_sdk::testing::{attr, string_map, Tester};
use terrace_sdk::SdkProvider;

fn tester() -> Tester<()> {
    match Tester::new(provider(), vec![]) {
        Ok(tester) => tester,
        Err(d) => panic!("{d}"),
    }
}

fn create(t: &Tester<()>, type_name: &str, entries: Vec<(&str, Value)>) -> Value {
    let config = t.config(type_name, entries);
    let null = Value::null(t.resource_type(type_name));
    match t.apply(type_name, &null, &config) {
        Ok(state) => state,
        Err(d) => panic!("{type_name}: {d}"),
    }
}

fn text(value: &Value, name: &str) -> String {
    attr(value, name).as_str().unwrap_or_default().to_string()
}

#[test]
fn internal_validate_passes() {
    provider().internal_validate().unwrap();
}

#[test]
fn schemas_match_hashicorp_random() {
    let schema = SdkProvider::new(provider()).get_provider_schema().schema;
    let cases = [
        ("random_id", 0, "object({b64_std=string,b64_url=string,byte_length=number,dec=string,hex=string,id=string,keepers=map(string),prefix=string})"),
        ("random_integer", 0, "object({id=string,keepers=map(string),max=number,min=number,result=number,seed=string})"),
        ("random_password", 3, "object({bcrypt_hash=string,id=string,keepers=map(string),length=number,lower=bool,min_lower=number,min_numeric=number,min_special=number,min_upper=number,number=bool,numeric=bool,override_special=string,result=string,special=bool,upper=bool})"),
        ("random_pet", 0, "object({id=string,keepers=map(string),length=number,prefix=string,separator=string})"),
        ("random_shuffle", 0, "object({id=string,input=list(string),keepers=map(string),result=list(string),result_count=number,seed=string})"),
        ("random_string", 2, "object({id=string,keepers=map(string),length=number,lower=bool,min_lower=number,min_numeric=number,min_special=number,min_upper=number,number=bool,numeric=bool,override_special=string,result=string,special=bool,upper=bool})"),
        ("random_uuid", 0, "object({id=string,keepers=map(string),result=string})"),
        ("random_bytes", 0, "object({base64=string,hex=string,keepers=map(string),length=number})"),
    ];
    for (name, version, ty) in cases {
        let resource = &schema.resource_types[name];
        assert_eq!(resource.version, version, "{name}");
        assert_eq!(resource.implied_type().type_string(), ty, "{name}");
    }
    let password = &schema.resource_types["random_password"].block.attributes;
    assert!(password["result"].sensitive && password["bcrypt_hash"].sensitive);
    assert!(password["special"].optional && password["special"].computed);
    assert!(password["length"].required);
    assert!(password["number"].deprecated);
    assert!(!schema.resource_types["random_string"].block.attributes["result"].sensitive);
}

#[test]
fn ids_and_bytes() {
    let t = tester();
    let state = create(
        &t,
        "random_id",
        vec![
            ("byte_length", Value::int(8)),
            ("prefix", Value::string("p-")),
        ],
    );
    let id = text(&state, "id");
    assert_eq!(id.len(), 11);
    assert_eq!(text(&state, "b64_url"), format!("p-{id}"));
    assert_eq!(text(&state, "hex").len(), 2 + 16);
    let imported = t.import("random_id", &format!("p-,{id}")).unwrap();
    assert_eq!(text(&imported, "hex"), text(&state, "hex"));
    assert_eq!(text(&imported, "dec"), text(&state, "dec"));
    assert!(t.import("random_id", "!!").is_err());
    let bytes = create(&t, "random_bytes", vec![("length", Value::int(32))]);
    assert_eq!(text(&bytes, "hex").len(), 64);
    let imported = t.import("random_bytes", &text(&bytes, "base64")).unwrap();
    assert_eq!(text(&imported, "hex"), text(&bytes, "hex"));
    assert!(attr(&imported, "length").raw_equals(&Value::int(32)));
}

#[test]
fn integers_in_range_and_seeded() {
    let t = tester();
    for _ in 0..20 {
        let state = create(
            &t,
            "random_integer",
            vec![("min", Value::int(-3)), ("max", Value::int(3))],
        );
        let n = attr(&state, "result")
            .as_number()
            .and_then(|n| n.to_i64())
            .unwrap();
        assert!((-3..=3).contains(&n));
        assert_eq!(text(&state, "id"), n.to_string());
    }
    let seeded = |seed: &str| {
        text(
            &create(
                &t,
                "random_integer",
                vec![
                    ("min", Value::int(1)),
                    ("max", Value::int(1_000_000)),
                    ("seed", Value::string(seed)),
                ],
            ),
            "id",
        )
    };
    assert_eq!(seeded("s"), seeded("s"));
    let full = create(
        &t,
        "random_integer",
        vec![("min", Value::int(i64::MIN)), ("max", Value::int(i64::MAX))],
    );
    assert!(attr(&full, "result").is_known());
    let bad = t.config(
        "random_integer",
        vec![("min", Value::int(5)), ("max", Value::int(1))],
    );
    let error = t.validate("random_integer", &bad);
    assert_eq!(
        error.errors().next().unwrap().attribute,
        Some(AttributePath::root().attribute("max"))
    );
    let imported = t.import("random_integer", "7,1,10,abc").unwrap();
    assert!(attr(&imported, "result").raw_equals(&Value::int(7)));
    assert_eq!(text(&imported, "seed"), "abc");
    assert!(t.import("random_integer", "1,2").is_err());
}

#[test]
fn strings_and_passwords() {
    let t = tester();
    let state = create(
        &t,
        "random_string",
        vec![("length", Value::int(16)), ("special", Value::bool(false))],
    );
    let result = text(&state, "result");
    assert_eq!(result.len(), 16);
    assert!(
        result.chars().all(|c| c.is_ascii_alphanumeric()),
        "{result}"
    );
    assert_eq!(text(&state, "id"), result);
    assert!(attr(&state, "numeric").raw_equals(&Value::bool(true)));
    assert!(attr(&state, "number").raw_equals(&Value::bool(true)));
    let numbers_off = create(
        &t,
        "random_string",
        vec![("length", Value::int(30)), ("numeric", Value::bool(false))],
    );
    assert!(attr(&numbers_off, "number").raw_equals(&Value::bool(false)));
    assert!(!text(&numbers_off, "result")
        .chars()
        .any(|c| c.is_ascii_digit()));
    let password = create(
        &t,
        "random_password",
        vec![("length", Value::int(20)), ("min_upper", Value::int(5))],
    );
    assert_eq!(text(&password, "id"), "none");
    let result = text(&password, "result");
    assert!(result.chars().filter(char::is_ascii_uppercase).count() >= 5);
    assert!(bcrypt::verify(&result, &text(&password, "bcrypt_hash")).unwrap());
    let imported = t.import("random_password", "secret").unwrap();
    assert_eq!(text(&imported, "result"), "secret");
    assert!(attr(&imported, "length").raw_equals(&Value::int(6)));
}

#[test]
fn string_configuration_errors_name_attributes() {
    let t = tester();
    let cases = vec![
        (vec![("length", Value::int(0))], ".length"),
        (
            vec![("length", Value::int(2)), ("min_upper", Value::int(3))],
            ".length",
        ),
        (
            vec![
                ("length", Value::int(4)),
                ("numeric", Value::bool(false)),
                ("special", Value::bool(false)),
                ("upper", Value::bool(false)),
                ("lower", Value::bool(false)),
            ],
            ".numeric",
        ),
        (
            vec![
                ("length", Value::int(4)),
                ("number", Value::bool(true)),
                ("numeric", Value::bool(false)),
            ],
            ".numeric",
        ),
    ];
    for (entries, want) in cases {
        let config = t.config("random_password", entries);
        let diagnostics = t.validate("random_password", &config);
        let error = diagnostics
            .errors()
            .next()
            .unwrap_or_else(|| panic!("no error for {want}"));
        assert_eq!(
            error.attribute.as_ref().map(ToString::to_string).as_deref(),
            Some(want)
        );
    }
}

#[test]
fn keepers_replace_and_unchanged_plans_keep_results() {
    let t = tester();
    let config = t.config("random_pet", vec![("keepers", string_map(&[("k", "1")]))]);
    let state = t
        .apply(
            "random_pet",
            &Value::null(t.resource_type("random_pet")),
            &config,
        )
        .unwrap();
    let pet = text(&state, "id");
    assert_eq!(pet.split('-').count(), 2, "{pet}");
    let same = t.plan("random_pet", &state, &config);
    assert!(same.requires_replace.is_empty());
    assert!(same.planned_state.raw_equals(&state));
    let changed = t.config("random_pet", vec![("keepers", string_map(&[("k", "2")]))]);
    let plan = t.plan("random_pet", &state, &changed);
    assert_eq!(
        plan.requires_replace,
        vec![AttributePath::root().attribute("keepers")]
    );
    assert!(!attr(&plan.planned_state, "id").is_known());
    let prefixed = create(
        &t,
        "random_pet",
        vec![
            ("prefix", Value::string("dev")),
            ("length", Value::int(3)),
            ("separator", Value::string("_")),
        ],
    );
    assert!(text(&prefixed, "id").starts_with("dev_"));
    assert_eq!(text(&prefixed, "id").split('_').count(), 4);
}

#[test]
fn shuffles_and_uuids() {
    let t = tester();
    let input = Value::list(
        Type::String,
        ["a", "b", "c"].iter().map(Value::string).collect(),
    );
    let state = create(
        &t,
        "random_shuffle",
        vec![("input", input.clone()), ("result_count", Value::int(7))],
    );
    let result = attr(&state, "result");
    let items: Vec<&str> = result
        .as_elements()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(items.len(), 7);
    assert!(items.iter().all(|i| ["a", "b", "c"].contains(i)));
    let seeded = |seed: &str| {
        attr(
            &create(
                &t,
                "random_shuffle",
                vec![("input", input.clone()), ("seed", Value::string(seed))],
            ),
            "result",
        )
    };
    assert!(seeded("x").raw_equals(&seeded("x")));
    let empty = create(
        &t,
        "random_shuffle",
        vec![("input", Value::list(Type::String, vec![]))],
    );
    assert_eq!(attr(&empty, "result").known_length(), Some(0));
    let uuid = create(&t, "random_uuid", vec![]);
    let text_uuid = text(&uuid, "result");
    assert_eq!(
        parse_uuid(&text_uuid).map(|b| format_uuid(&b)),
        Some(text_uuid.clone())
    );
    assert_eq!(&text_uuid[14..15], "4");
    let imported = t.import("random_uuid", &text_uuid.to_uppercase()).unwrap();
    assert_eq!(text(&imported, "id"), text_uuid);
    assert!(t.import("random_uuid", "not-a-uuid").is_err());
}

#[test]
fn old_password_states_are_upgraded() {
    let provider = SdkProvider::new(provider());
    let response = provider.upgrade_resource_state(UpgradeResourceStateRequest {
        type_name: "random_password".into(),
        version: 0,
        raw_state: RawState {
            json: br#"{"id":"none","result":"abc","length":3,"special":false}"#.to_vec(),
            flatmap: Default::default(),
        },
    });
    assert!(
        !response.diagnostics.has_errors(),
        "{}",
        response.diagnostics
    );
    let state = response.upgraded_state;
    assert!(attr(&state, "numeric").raw_equals(&Value::bool(true)));
    assert!(attr(&state, "special").raw_equals(&Value::bool(false)));
    assert!(attr(&state, "min_upper").raw_equals(&Value::int(0)));
    assert!(bcrypt::verify("abc", &text(&state, "bcrypt_hash")).unwrap());
}

fn strings(items: &[&str]) -> Value {
    Value::list(Type::String, items.iter().map(Value::string).collect())
}

/// A map of strings from `k=v` pairs (`k=~` for a null value), or `null`.
fn keepers(text: &str) -> Value {
    if text == "null" {
        return Value::null(Type::map(Type::String));
    }
    let entries = text
        .split(',')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = match value {
                "~" => Value::null(Type::String),
                v => Value::string(v),
            };
            (key.to_string(), value)
        })
        .collect();
    Value::map(Type::String, entries)
}

#[test]
fn seeded_results_are_hashicorp_randoms() {
    // Expected values from hashicorp/random's own acceptance tests
    // (resource_integer_test.go, resource_shuffle_test.go).
    let t = tester();
    for (seed, want) in [("12345", 3), ("123456", 2)] {
        let state = create(
            &t,
            "random_integer",
            vec![
                ("min", Value::int(1)),
                ("max", Value::int(3)),
                ("seed", Value::string(seed)),
            ],
        );
        assert!(
            attr(&state, "result").raw_equals(&Value::int(want)),
            "{seed}"
        );
    }
    let five = strings(&["a", "b", "c", "d", "e"]);
    let cases: [(&Value, Option<i64>, &[&str]); 4] = [
        (&five, None, &["a", "c", "b", "e", "d"]),
        (&five, Some(3), &["a", "c", "b"]),
        (
            &five,
            Some(12),
            &["a", "c", "b", "e", "d", "a", "e", "d", "c", "b", "a", "b"],
        ),
        (&strings(&["a"]), Some(1), &["a"]),
    ];
    for (input, count, want) in cases {
        let mut entries = vec![("input", input.clone()), ("seed", Value::string("-"))];
        if let Some(count) = count {
            entries.push(("result_count", Value::int(count)));
        }
        let state = create(&t, "random_shuffle", entries);
        assert!(
            attr(&state, "result").raw_equals(&strings(want)),
            "{count:?}: {:?}",
            attr(&state, "result")
        );
    }
    let empty = create(
        &t,
        "random_shuffle",
        vec![
            ("input", strings(&[])),
            ("seed", Value::string("-")),
            ("result_count", Value::int(12)),
        ],
    );
    assert_eq!(attr(&empty, "result").known_length(), Some(0));
}

#[test]
fn keepers_replace_unless_only_null_values_change() {
    // The cases of hashicorp/random's keepers acceptance tests.
    let cases = [
        ("", "", false),
        ("", "a=~", false),
        ("null", "null", false),
        ("null", "a=~", false),
        ("a=~", "a=~", false),
        ("a=~,b=~", "a=~,b=~", false),
        ("a=1", "a=1", false),
        ("a=1,b=2", "a=1,b=2", false),
        ("null", "a=~,b=~", false),
        ("a=1", "a=1,b=~", false),
        ("", "a=1", true),
        ("null", "a=1", true),
        ("a=~", "a=1", true),
        ("a=1", "", true),
        ("a=1", "null", true),
        ("a=1", "a=~", true),
        ("a=1", "a=2", true),
        ("null", "a=~,b=1", true),
    ];
    let t = tester();
    for (before, after, replaces) in cases {
        let input = strings(&["x", "y", "z"]);
        let config = |k: &str| {
            t.config(
                "random_shuffle",
                vec![("input", input.clone()), ("keepers", keepers(k))],
            )
        };
        let null = Value::null(t.resource_type("random_shuffle"));
        let state = t.apply("random_shuffle", &null, &config(before)).unwrap();
        let new_config = config(after);
        let plan = t.plan("random_shuffle", &state, &new_config);
        assert!(plan.diagnostics.is_empty(), "{}", plan.diagnostics);
        let case = format!("{before} -> {after}");
        if replaces {
            assert_eq!(
                plan.requires_replace,
                vec![AttributePath::root().attribute("keepers")],
                "{case}"
            );
            assert!(!attr(&plan.planned_state, "result").is_known(), "{case}");
            continue;
        }
        assert!(plan.requires_replace.is_empty(), "{case}");
        // An update in place: the result stays, the keepers are recorded.
        let updated = t.apply("random_shuffle", &state, &new_config).unwrap();
        assert!(
            attr(&updated, "result").raw_equals(&attr(&state, "result")),
            "{case}"
        );
        assert!(
            attr(&updated, "keepers").raw_equals(&keepers(after)),
            "{case}"
        );
        let again = t.plan("random_shuffle", &updated, &new_config);
        assert!(again.requires_replace.is_empty(), "{case}");
        assert!(again.planned_state.raw_equals(&updated), "{case}");
    }
}
