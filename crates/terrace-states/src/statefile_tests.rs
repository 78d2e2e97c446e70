//! Tests of the state file reader and writer; the expected messages are
//! what Terraform 1.11.4 printed for the same files.

use super::*;
use crate::model::OutputState;
use terrace_addrs::AbsResourceInstance;
use terrace_syntax::diagnostic::Severity;
use terrace_value::Value;

const NULL_P: &str = r#""provider":"provider[\"registry.terraform.io/hashicorp/null\"]""#;

fn errors(src: &str) -> Vec<(String, String)> {
    match read(src.as_bytes()) {
        Ok(_) => panic!("no error for {src}"),
        Err(d) => d.into_iter().map(|d| (d.summary, d.detail)).collect(),
    }
}

fn one_error(src: &str) -> String {
    let e = errors(src);
    assert_eq!(e.len(), 1, "{src}: {e:?}");
    format!("{}: {}", e[0].0, e[0].1)
}

fn resource(extra: &str, instances: &str) -> String {
    format!(
        r#"{{"version":4,"resources":[{{"mode":"managed","type":"x","name":"y",{extra}"instances":[{instances}]}}]}}"#
    )
}

#[test]
fn version_problems_read_as_terraform_reports_them() {
    let cases: &[(&str, &str)] = &[
        (
            r#"{"version": 5, "terraform_version": "1.99.0"}"#,
            "Unsupported state file format: The state file uses format version 5, which is not supported by Terraform 1.11.4. This state file was created by Terraform 1.99.0.",
        ),
        (
            r#"{"version": 5, "serial": 1}"#,
            "Unsupported state file format: The state file uses format version 5, which is not supported by Terraform 1.11.4. This state file may have been created by a newer version of Terraform.",
        ),
        (
            r#"{"version": 3, "terraform_version": "0.11.14"}"#,
            "Unsupported state file format: The state file uses format version 3, written by Terraform 0.11 or earlier. terrace reads format version 4 only: upgrade the state with Terraform 0.12 or later (any plan and apply, or `terraform refresh`, writes version 4) and try again.",
        ),
        (
            r#"{"version": 0}"#,
            "Unsupported state file format: The state file uses JSON syntax but has a version number of zero. There was never a JSON-based state format zero, so this state file is invalid and cannot be processed.",
        ),
        (
            r#"{"version": "x"}"#,
            "Unsupported state file format: The version in the state file is string. A positive whole number is required.",
        ),
        (
            r#"{"version": -1}"#,
            "Unsupported state file format: The version in the state file is number -1. A positive whole number is required.",
        ),
        (
            r#"{"serial": 1}"#,
            "Unsupported state file format: The state file does not have a \"version\" attribute, which is required to identify the format version.",
        ),
    ];
    for (src, want) in cases {
        assert_eq!(one_error(src), *want, "{src}");
    }
    let e = errors(r#"{"version": 4, "serial": 1"#);
    assert_eq!(e.len(), 2);
    assert_eq!(
        e[0].1,
        "The state file could not be parsed as JSON: syntax error at byte offset 26."
    );
    assert!(e[1].1.contains("does not have a \"version\" attribute"));
}

#[test]
fn structure_problems_name_the_field() {
    let inst = resource("", r#"{"schema_version":"1"}"#);
    let cases: Vec<(String, &str)> = vec![
        (inst, "Invalid state file format: The state file field \"resources.instances.schema_version\" has invalid value string"),
        (r#"{"version":4,"serial":-1}"#.into(), "Invalid state file format: The state file field \"serial\" has invalid value number -1"),
        (r#"{"version":4,"serial":1.5}"#.into(), "Invalid state file format: The state file field \"serial\" has invalid value number 1.5"),
        (r#"{"version":4,"serial":true}"#.into(), "Invalid state file format: The state file field \"serial\" has invalid value bool"),
        (r#"{"version":4,"serial":[1]}"#.into(), "Invalid state file format: The state file field \"serial\" has invalid value array"),
        (r#"{"version":4,"outputs":{"a":1}}"#.into(), "Invalid state file format: The state file field \"outputs\" has invalid value number"),
        (r#"{"version":4,"resources":{}}"#.into(), "Invalid state file format: The state file field \"resources\" has invalid value object"),
        (r#"{"version":4,"lineage":5}"#.into(), "Invalid state file format: The state file field \"lineage\" has invalid value number"),
        (resource("", r#"{"private":"!!"}"#), "Invalid state file format: The state file does not conform to the expected JSON data structure: illegal base64 data at input byte 0."),
        (resource("", r#"{"index_key":1e400}"#), "Invalid state file format: The state file field \"resources.instances.index_key\" has invalid value number 1e400"),
        (r#"{"version":4,"check_results":[{"objects":[{"failure_messages":[1]}]}]}"#.into(), "Invalid state file format: The state file field \"check_results.objects.failure_messages\" has invalid value number"),
    ];
    for (src, want) in &cases {
        assert_eq!(one_error(src), *want, "{src}");
    }
}

#[test]
fn content_problems_read_as_terraform_reports_them() {
    let p = format!("{NULL_P},");
    let cases: Vec<(String, &str)> = vec![
        (r#"{"version":4,"terraform_version":"abc","resources":[]}"#.into(),
         "Invalid Terraform version string: State file claims to have been written by Terraform version \"abc\", which is not a valid version string."),
        (resource(&p, r#"{"status":"bad"}"#),
         "Invalid resource instance metadata in state: Instance x.y has invalid status \"bad\"."),
        (resource(&p, "{},{}"),
         "Duplicate resource instance in state: Instance x.y appears multiple times in the state file."),
        (resource(&p, r#"{"deposed":"abc"}"#),
         "Invalid resource instance metadata in state: Instance x.y has an object with deposed key \"abc\", which is not correctly formatted."),
        (resource(&p, r#"{"deposed":"abcdefgh"},{"deposed":"abcdefgh"}"#),
         "Duplicate resource instance in state: Instance x.y deposed object \"abcdefgh\" appears multiple times in the state file."),
        (resource(&p, r#"{"index_key":true}"#),
         "Invalid resource instance metadata in state: Resource x.y has an instance with the invalid instance key true."),
        (r#"{"version":4,"resources":[{"mode":"managed","module":"x","type":"x","name":"y","instances":[]}]}"#.into(),
         "Invalid module instance address: A module instance address must begin with \"module.\"."),
        (resource(&p, r#"{"dependencies":["bad"]}"#),
         "Invalid address: Resource specification must include a resource type and name."),
        (resource(&p, r#"{"sensitive_attributes":[[{"type":"foo","value":"a"}]]}"#),
         "Unsupported path step: Unsupported path step type \"foo\""),
        (r#"{"version":4,"outputs":{"a":{"value":"x","type":"number"}}}"#.into(),
         "Invalid output value saved in state: The state file has an invalid value for output \"a\": a number is required."),
        (r#"{"version":4,"outputs":{"a":{"value":"x","type":"nope"}}}"#.into(),
         "Invalid output value type in state: The state file has an invalid type specification for output \"a\": invalid primitive type name \"nope\"."),
        (r#"{"version":4,"outputs":{"a":{"value":1}}}"#.into(),
         "Invalid output value type in state: The state file has an invalid type specification for output \"a\": EOF."),
        (r#"{"version":4,"resources":[{"mode":"ephemeral","type":"x","name":"y","instances":[]}]}"#.into(),
         "Invalid resource mode in state: State contains a resource with mode \"ephemeral\" (\"x\" \"y\") which is not supported."),
        (resource("", "{}"),
         "Provider field missing state: Resource x.y is missing a provider address, both on the resource and the resource instances."),
    ];
    for (src, want) in &cases {
        assert_eq!(one_error(src), *want, "{src}");
    }
}

#[test]
fn go_decoding_quirks() {
    // Case-insensitive field names, the last duplicate wins, null is zero.
    let (state, _) =
        read(br#"{"version":4,"Serial":3,"serial":null,"LINEAGE":"l","lineage":"m"}"#).unwrap();
    assert_eq!(state.serial, 3);
    assert_eq!(state.lineage, "m");
    // Unknown fields are ignored; index keys may be written as floats.
    let src = resource(
        &format!("{NULL_P},\"each\":\"list\",\"future\":[1],"),
        r#"{"index_key":2.0,"identity":{}}"#,
    );
    let (state, _) = read(src.as_bytes()).unwrap();
    let (addr, rs, _) = state.all_instances().next().unwrap();
    assert_eq!(addr.to_string(), "x.y[2]");
    assert_eq!(rs.each_mode, EachMode::List);
}

#[test]
fn legacy_provider_addresses_are_accepted() {
    let src = resource(r#""provider":"provider.null","#, "{}");
    let (state, _) = read(src.as_bytes()).unwrap();
    let rs = state.resources.values().next().unwrap();
    assert_eq!(
        rs.provider.to_string(),
        "provider[\"registry.terraform.io/-/null\"]"
    );
}

fn per_instance(
    instances: &str,
    resource_provider: &str,
) -> Result<(State, Diagnostics), Diagnostics> {
    let src = format!(
        r#"{{"version":4,"resources":[{{"module":"module.m","mode":"managed","type":"aws_instance","name":"e",{resource_provider}"instances":[{instances}]}}]}}"#
    );
    read(src.as_bytes())
}

const AWS: &str = r#"module.m.provider[\"registry.terraform.io/hashicorp/aws\"].by_region"#;

#[test]
fn instance_level_providers_are_read() {
    let insts = format!(
        r#"{{"index_key":"a","provider":"{AWS}[\"us\"]"}},{{"index_key":"b","provider":"{AWS}[\"eu\"]"}}"#
    );
    let (state, warnings) = per_instance(&insts, "").unwrap();
    assert!(warnings.is_empty());
    let rs = state.resources.values().next().unwrap();
    assert_eq!(rs.provider.to_string(), AWS.replace("\\\"", "\""));
    let keys: Vec<String> = rs
        .instances
        .values()
        .map(|i| i.provider_key.to_string())
        .collect();
    assert_eq!(keys, ["[\"us\"]", "[\"eu\"]"]);
    let addr = AbsResourceInstance::parse_str("module.m.aws_instance.e[\"a\"]").unwrap();
    assert_eq!(
        state.provider_instance(&addr).unwrap().to_string(),
        format!("{}[\"us\"]", AWS.replace("\\\"", "\""))
    );
    // And written back at instance level only.
    let text = String::from_utf8(write(&state)).unwrap();
    assert!(
        !text.contains("\"name\": \"e\",\n      \"provider\""),
        "{text}"
    );
    assert_eq!(text.matches("\"provider\": ").count(), 2, "{text}");
}

#[test]
fn both_levels_warn_and_the_instance_wins() {
    let insts = format!(r#"{{"index_key":"a","provider":"{AWS}[\"us\"]"}},{{"index_key":"b"}}"#);
    let (state, warnings) = per_instance(&insts, &format!(r#""provider":"{AWS}","#)).unwrap();
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].severity, Severity::Warning);
    assert_eq!(warnings[0].summary, "Provider field conflict in state");
    assert_eq!(
        warnings[0].detail,
        format!(
            "Resource module.m.aws_instance.e has a provider address {a}, as well as instance [\"a\"] with provider address {a}[\"us\"].",
            a = AWS.replace("\\\"", "\"")
        )
    );
    let rs = state.resources.values().next().unwrap();
    let keys: Vec<String> = rs
        .instances
        .values()
        .map(|i| i.provider_key.to_string())
        .collect();
    assert_eq!(keys, ["[\"us\"]", ""]);
}

#[test]
fn instances_of_different_configurations_are_refused() {
    let other = r#"module.m.provider[\"registry.terraform.io/hashicorp/aws\"].other"#;
    let insts = format!(
        r#"{{"index_key":"a","provider":"{AWS}[\"us\"]"}},{{"index_key":"b","provider":"{other}[\"eu\"]"}}"#
    );
    let e = per_instance(&insts, "").unwrap_err();
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].summary, "Provider instance field conflict in state");
    assert_eq!(
        e[0].detail,
        r#"Resource module.m.aws_instance.e has instances with different provider addresses: "module.m.provider[\"registry.terraform.io/hashicorp/aws\"].by_region" != "module.m.provider[\"registry.terraform.io/hashicorp/aws\"].other"."#
    );
    // A resource-level address propagated into an instance counts too.
    let insts = format!(r#"{{"index_key":"a","provider":"{other}[\"us\"]"}},{{"index_key":"b"}}"#);
    let e = per_instance(&insts, &format!(r#""provider":"{AWS}","#)).unwrap_err();
    assert!(e
        .iter()
        .any(|d| d.summary == "Provider instance field conflict in state"));
}

#[test]
fn writer_uses_resource_level_provider_without_keys() {
    let src = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/handwritten/provider_keys.tfstate"
    ))
    .unwrap();
    let (mut state, _) = read(&src).unwrap();
    // Dropping the keys returns the resource to the old, downgradable form.
    for rs in state.resources.values_mut() {
        for is in rs.instances.values_mut() {
            std::sync::Arc::make_mut(is).provider_key = InstanceKey::None;
        }
    }
    let text = String::from_utf8(write(&state)).unwrap();
    assert!(text.contains(
        "\"name\": \"example\",\n      \"provider\": \"module.example.provider[\\\"registry.terraform.io/hashicorp/aws\\\"].by_region\",\n      \"instances\""
    ), "{text}");
}

#[test]
fn handwritten_fixture_content_is_understood() {
    let src = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/handwritten/misc.tfstate"
    ))
    .unwrap();
    let (state, _) = read(&src).unwrap();
    let addr = AbsResourceInstance::parse_str("null_resource.r[\"a \\\"quoted\\\" key\"]").unwrap();
    let is = state.instance(&addr).unwrap();
    assert_eq!(is.deposed.len(), 2);
    let obj = is.current.as_ref().unwrap();
    assert_eq!(obj.status, ObjectStatus::Tainted);
    assert_eq!(
        obj.private.as_deref(),
        Some(&br#"{"schema_version":"1"}"#[..])
    );
    assert_eq!(obj.dependencies.len(), 2);
    assert!(obj.create_before_destroy);
    let ty = Type::object([
        ("id".to_string(), Type::String),
        ("list".to_string(), Type::list(Type::String)),
        ("map".to_string(), Type::map(Type::String)),
        ("text".to_string(), Type::String),
    ]);
    let v = obj.decode(&ty).unwrap();
    let attrs = v.as_attributes().unwrap();
    assert_eq!(attrs["text"].as_str(), Some("café <&>"));
    let list = attrs["list"].as_elements().unwrap();
    assert!(!list[0].is_sensitive() && list[1].is_sensitive());
    assert!(attrs["map"]
        .as_attributes()
        .unwrap()
        .get("k")
        .unwrap()
        .is_sensitive());
    // Back to an object state: the same paths.
    let again = ObjectState::from_value(&v, 2).unwrap();
    assert_eq!(again.sensitive_paths.len(), 2);
    assert!(again.sensitive_paths[0].raw_equals(&obj.sensitive_paths[0]));
    assert!(again.decode(&ty).unwrap().raw_equals(&v));

    // `[-3]` does not parse (HCL has no negative literals), so built.
    let d = AbsResource::parse_str("data.null_data_source.d")
        .unwrap()
        .instance(InstanceKey::Int(-3));
    let flat = state.object(&d).unwrap();
    let fty = Type::object([
        ("id".to_string(), Type::String),
        ("tags".to_string(), Type::map(Type::String)),
    ]);
    let fv = flat.decode(&fty).unwrap();
    assert_eq!(
        fv.as_attributes()
            .unwrap()
            .get("tags")
            .unwrap()
            .as_attributes()
            .unwrap()
            .get("a")
            .unwrap()
            .as_str(),
        Some("<b>")
    );
    assert!(state.check_results.is_some());
}

#[test]
fn unknown_outputs_are_left_out_with_an_error() {
    let mut state = State::new_with_lineage("l");
    state.outputs.insert(
        "u".into(),
        OutputState {
            value: Value::unknown(Type::String),
            sensitive: false,
        },
    );
    state.outputs.insert(
        "s".into(),
        OutputState {
            value: Value::string("x").mark(terrace_value::Marks::SENSITIVE),
            sensitive: true,
        },
    );
    let (bytes, diags) = write_with_diagnostics(&state);
    assert_eq!(diags.len(), 1);
    assert_eq!(
        diags[0].summary,
        "Failed to serialize output value in state"
    );
    let text = String::from_utf8(bytes).unwrap();
    assert!(!text.contains("\"u\""));
    assert!(text.contains("\"s\": {\n      \"value\": \"x\",\n      \"type\": \"string\",\n      \"sensitive\": true\n    }"));
}

#[test]
fn empty_state_layout() {
    let state = State::new_with_lineage("abc");
    let text = String::from_utf8(write(&state)).unwrap();
    assert_eq!(
        text,
        "{\n  \"version\": 4,\n  \"terraform_version\": \"1.11.4\",\n  \"serial\": 0,\n  \"lineage\": \"abc\",\n  \"outputs\": {},\n  \"resources\": [],\n  \"check_results\": null\n}\n"
    );
}

#[test]
fn versions_validate_as_go_version_does() {
    for ok in [
        "1.11.4",
        "v1.2",
        "1.2.3-beta1",
        "1.2.3beta1",
        "1.2.3+meta.1",
        "0.12.0-alpha.1+x",
        "1",
    ] {
        assert!(is_valid_version(ok), "{ok}");
    }
    for bad in ["abc", "", "1.", "1.2.3-", "1.2.3+", "v", "1.2.3 "] {
        assert!(!is_valid_version(bad), "{bad}");
    }
}

#[test]
fn a_state_written_on_several_threads_is_the_compact_form_indented() {
    // Enough objects per resource for the writer to share them out, with
    // attributes holding the characters the indentation reacts to.
    let objects = |name: &str| {
        (0..1500)
            .map(|i| {
                format!(
                    r#"{{"index_key":{i},"schema_version":0,"attributes":{{"id":"{name}-{i}","v":{{"s":"a,b:[c]{{d}}\"e\\","l":[1,[],{{}}]}}}},"sensitive_attributes":[],"dependencies":["x.{name}"]}}"#
                )
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let src = format!(
        r#"{{"version":4,"serial":3,"lineage":"l","outputs":{{}},"resources":[{{"mode":"managed","type":"x","name":"a",{NULL_P},"instances":[{}]}},{{"module":"module.m","mode":"managed","type":"x","name":"b",{NULL_P},"instances":[{}]}}]}}"#,
        objects("a"),
        objects("b")
    );
    let (state, _) = read(src.as_bytes()).expect("the state");
    let (written, diags) = write_with_diagnostics(&state);
    assert!(diags.is_empty(), "{diags:?}");
    let mut whole = gojson::indent(&write_compact(&state).0);
    whole.push('\n');
    // Written into a buffer of exactly its size.
    assert_eq!(written.capacity(), written.len());
    assert_eq!(String::from_utf8(written).expect("text"), whole);
    assert!(whole.contains(r#""index_key": 1499"#));
}

#[test]
fn one_object_written_alone_is_the_state_holding_only_it() {
    // Objects of every shape the writer distinguishes: no key, int and
    // string keys, tainted, deposed, private, dependencies, attributes
    // flat, a module path, and a provider per instance.
    let src = format!(
        r#"{{"version":4,"serial":9,"lineage":"l","outputs":{{}},"resources":[
          {{"mode":"managed","type":"x","name":"plain",{NULL_P},"instances":[{{"schema_version":1,"attributes":{{"id":"p"}},"sensitive_attributes":[[{{"type":"get_attr","value":"id"}}]],"private":"eyJhIjoxfQ==","dependencies":["x.other"],"create_before_destroy":true}}]}},
          {{"module":"module.m[\"k\"]","mode":"managed","type":"x","name":"counted",{NULL_P},"instances":[{{"index_key":0,"status":"tainted","schema_version":0,"attributes":{{"id":"c0"}},"sensitive_attributes":[]}},{{"index_key":1,"schema_version":0,"attributes_flat":{{"id":"c1"}},"sensitive_attributes":[]}},{{"index_key":1,"deposed":"00000001","schema_version":0,"attributes":{{"id":"old"}},"sensitive_attributes":[]}}]}},
          {{"mode":"data","type":"x","name":"each",{NULL_P},"instances":[{{"index_key":"a\"b","schema_version":0,"attributes":{{"id":"e"}},"sensitive_attributes":[]}}]}},
          {{"module":"module.m","mode":"managed","type":"aws_instance","name":"e","instances":[{{"index_key":"us","provider":"{AWS}[\"us\"]","schema_version":0,"attributes":{{"id":"i"}},"sensitive_attributes":[]}}]}}
        ]}}"#
    );
    let (state, warnings) = read(src.as_bytes()).expect("the state");
    assert!(warnings.is_empty(), "{warnings:?}");
    let mut seen = 0;
    for (resource, rs) in &state.resources {
        for (key, is) in &rs.instances {
            let addr = resource.instance(key.clone());
            let objects = is
                .current
                .iter()
                .map(|o| (None, o))
                .chain(is.deposed.iter().map(|(k, o)| (Some(k), o)));
            for (deposed, object) in objects {
                let mut alone = State::new_with_lineage("j");
                match deposed {
                    None => alone.set_current(
                        &addr,
                        rs.provider.clone(),
                        is.provider_key.clone(),
                        Some(object.clone()),
                    ),
                    Some(k) => alone.set_deposed(
                        &addr,
                        k.clone(),
                        rs.provider.clone(),
                        is.provider_key.clone(),
                        Some(object.clone()),
                    ),
                }
                let (one, diags) =
                    write_compact_one("j", &addr, deposed, &rs.provider, &is.provider_key, object);
                assert!(diags.is_empty(), "{diags:?}");
                assert_eq!(one, write_compact(&alone).0, "{addr}");
                // And it reads back as that state.
                let (back, _) = read(one.as_bytes()).expect("reads back");
                assert_eq!(write_compact(&back).0, one, "{addr}");
                seen += 1;
            }
        }
    }
    assert_eq!(seen, 6);
}
