use super::*;
use terrace_sdk::terrace_providers::{AttributePath, Provider};
use terrace_sdk::testing::{attr, Tester};
use terrace_sdk::SdkProvider;

use terrace_testsupport::TempDir;

/// A path inside `dir`, as the provider's `filename` takes it.
fn file(dir: &TempDir, name: &str) -> String {
    dir.join(name).display().to_string()
}

fn tester() -> Tester<()> {
    Tester::new(provider(), vec![]).unwrap_or_else(|d| panic!("{d}"))
}

fn text(value: &Value, name: &str) -> String {
    attr(value, name).as_str().unwrap_or_default().to_string()
}

#[test]
fn internal_validate_passes() {
    provider().internal_validate().unwrap();
}

#[test]
fn schemas_match_hashicorp_local() {
    let schema = SdkProvider::new(provider()).get_provider_schema().schema;
    assert_eq!(
        schema.resource_types["local_file"].implied_type().type_string(),
        "object({content=string,content_base64=string,content_base64sha256=string,content_base64sha512=string,content_md5=string,content_sha1=string,content_sha256=string,content_sha512=string,directory_permission=string,file_permission=string,filename=string,id=string,sensitive_content=string,source=string})"
    );
    assert_eq!(
        schema.resource_types["local_sensitive_file"].implied_type().type_string(),
        "object({content=string,content_base64=string,content_base64sha256=string,content_base64sha512=string,content_md5=string,content_sha1=string,content_sha256=string,content_sha512=string,directory_permission=string,file_permission=string,filename=string,id=string,source=string})"
    );
    for name in ["local_file", "local_sensitive_file"] {
        assert_eq!(
            schema.data_sources[name].implied_type().type_string(),
            "object({content=string,content_base64=string,content_base64sha256=string,content_base64sha512=string,content_md5=string,content_sha1=string,content_sha256=string,content_sha512=string,filename=string,id=string})"
        );
    }
    let sensitive = &schema.resource_types["local_sensitive_file"]
        .block
        .attributes;
    assert!(sensitive["content"].sensitive && sensitive["content_base64"].sensitive);
    assert!(schema.data_sources["local_sensitive_file"].block.attributes["content"].sensitive);
    assert!(schema.resource_types["local_file"].block.attributes["sensitive_content"].deprecated);
}

#[test]
fn files_are_written_checked_and_removed() {
    let dir = TempDir::new("write");
    let t = tester();
    let filename = file(&dir, "sub/dir/hello.txt");
    let config = t.config(
        "local_file",
        vec![
            ("filename", Value::string(&filename)),
            ("content", Value::string("hello")),
        ],
    );
    let null = Value::null(t.resource_type("local_file"));
    let state = t.apply("local_file", &null, &config).unwrap();
    assert_eq!(std::fs::read_to_string(&filename).unwrap(), "hello");
    assert_eq!(
        text(&state, "id"),
        "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d"
    );
    assert_eq!(
        text(&state, "content_md5"),
        "5d41402abc4b2a76b9719d911017c592"
    );
    assert_eq!(
        text(&state, "content_base64sha256"),
        "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ="
    );
    assert_eq!(text(&state, "file_permission"), "0777");
    // Unchanged: the read keeps it.
    let read = t.read("local_file", &state);
    assert!(read.new_state.raw_equals(&state));
    // Changed outside: it is gone from state, to be written again.
    std::fs::write(&filename, "edited").unwrap();
    assert!(t.read("local_file", &state).new_state.is_null());
    std::fs::remove_file(&filename).unwrap();
    assert!(t.read("local_file", &state).new_state.is_null());
    // Destroy removes the file.
    let state = t.apply("local_file", &null, &config).unwrap();
    t.apply("local_file", &state, &null).unwrap();
    assert!(!Path::new(&filename).exists());
}

#[test]
fn sources_base64_and_sensitive_files() {
    let dir = TempDir::new("sources");
    let t = tester();
    let source = file(&dir, "source.bin");
    std::fs::write(&source, [0u8, 1, 2, 255]).unwrap();
    let copy = file(&dir, "copy.bin");
    let null = Value::null(t.resource_type("local_file"));
    let config = t.config(
        "local_file",
        vec![
            ("filename", Value::string(&copy)),
            ("source", Value::string(&source)),
        ],
    );
    t.apply("local_file", &null, &config).unwrap();
    assert_eq!(std::fs::read(&copy).unwrap(), vec![0u8, 1, 2, 255]);
    let decoded = file(&dir, "decoded.bin");
    let config = t.config(
        "local_file",
        vec![
            ("filename", Value::string(&decoded)),
            ("content_base64", Value::string("AAEC/w==")),
        ],
    );
    t.apply("local_file", &null, &config).unwrap();
    assert_eq!(std::fs::read(&decoded).unwrap(), vec![0u8, 1, 2, 255]);
    let secret = file(&dir, "secret.txt");
    let null = Value::null(t.resource_type("local_sensitive_file"));
    let config = t.config(
        "local_sensitive_file",
        vec![
            ("filename", Value::string(&secret)),
            ("content", Value::string("s3cret")),
        ],
    );
    let state = t.apply("local_sensitive_file", &null, &config).unwrap();
    assert_eq!(text(&state, "file_permission"), "0700");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&secret).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode & 0o077, 0, "{mode:o}");
    let read = t
        .read_data_source(
            "local_sensitive_file",
            vec![("filename", Value::string(&secret))],
        )
        .unwrap();
    assert_eq!(text(&read, "content"), "s3cret");
    assert_eq!(text(&read, "id"), text(&state, "id"));
    let data = t
        .read_data_source("local_file", vec![("filename", Value::string(&decoded))])
        .unwrap();
    assert_eq!(text(&data, "content_base64"), "AAEC/w==");
}

#[test]
fn bad_configurations_name_the_attribute() {
    let dir = TempDir::new("bad");
    let t = tester();
    let filename = Value::string(file(&dir, "x"));
    let cases = vec![
        (vec![("filename", filename.clone())], ".content"),
        (
            vec![
                ("filename", filename.clone()),
                ("content", Value::string("a")),
                ("source", Value::string("b")),
            ],
            ".source",
        ),
        (
            vec![
                ("filename", filename.clone()),
                ("content", Value::string("a")),
                ("file_permission", Value::string("999")),
            ],
            ".file_permission",
        ),
        (
            vec![
                ("filename", filename.clone()),
                ("content", Value::string("a")),
                ("directory_permission", Value::string("07777")),
            ],
            ".directory_permission",
        ),
    ];
    for (entries, want) in cases {
        let config = t.config("local_file", entries);
        let diagnostics = t.validate("local_file", &config);
        let error = diagnostics
            .errors()
            .next()
            .unwrap_or_else(|| panic!("no error for {want}"));
        assert_eq!(
            error.attribute.as_ref().map(ToString::to_string).as_deref(),
            Some(want)
        );
    }
    let unknown = t.config(
        "local_file",
        vec![
            ("filename", filename.clone()),
            ("content", Value::unknown(terrace_sdk::Type::String)),
        ],
    );
    assert!(t.validate("local_file", &unknown).is_empty());
    let missing = t
        .read_data_source(
            "local_file",
            vec![("filename", Value::string(file(&dir, "none")))],
        )
        .unwrap_err();
    assert_eq!(
        missing.errors().next().unwrap().attribute,
        Some(AttributePath::root().attribute("filename"))
    );
}
