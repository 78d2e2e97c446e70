use super::*;
use crate::testutil::TempDir;

const AWS_TWO_MODULES: &str = include_str!("../../testdata/aws_two_modules.terraform.lock.hcl");
const MIRROR_TWO: &str = include_str!("../../testdata/mirror_two_providers.terraform.lock.hcl");
const MANY_HASHES: &str = include_str!("../../testdata/many_hashes.terraform.lock.hcl");

fn provider(s: &str) -> Provider {
    match Provider::parse_source_str(s) {
        Ok(p) => p,
        Err(d) => panic!("{d:?}"),
    }
}

fn parse_ok(text: &str) -> Locks {
    let (locks, diags) = Locks::parse(text, LOCK_FILE_NAME);
    assert!(diags.is_empty(), "{diags:?}");
    locks
}

/// "summary: detail" lines, as `terraform init` lists lock file problems.
fn problems(text: &str) -> Vec<String> {
    let (_, diags) = Locks::parse(text, LOCK_FILE_NAME);
    diags
        .iter()
        .map(|d| format!("{}: {}", d.summary, d.detail))
        .collect()
}

#[test]
fn files_terraform_wrote_round_trip_byte_for_byte() {
    for text in [AWS_TWO_MODULES, MIRROR_TWO, MANY_HASHES] {
        let locks = parse_ok(text);
        assert_eq!(String::from_utf8_lossy(&locks.to_bytes()), text);
    }
}

/// The lock file `terraform init` wrote for a root module requiring
/// `hashicorp/aws ~> 5.0` and a child requiring `>= 5.10, != 5.50.0`, with
/// the image's filesystem mirror, rebuilt from the same inputs.
#[test]
fn writes_what_terraform_wrote_for_two_modules() {
    let mut constraints = match VersionConstraints::parse("~> 5.0") {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    match VersionConstraints::parse(">= 5.10, != 5.50.0") {
        Ok(c) => constraints.merge(&c),
        Err(e) => panic!("{e}"),
    }
    let mut locks = Locks::new();
    locks.set_provider(ProviderLock::new(
        provider("hashicorp/aws"),
        Version::new(5, 100, 0),
        constraints,
        vec![Hash::h1("edXOJWE4ORX8Fm+dpVpICzMZJat4AX0VRCAy/xkcOc0=")],
    ));
    assert_eq!(String::from_utf8_lossy(&locks.to_bytes()), AWS_TWO_MODULES);
}

#[test]
fn writes_blocks_in_address_order_with_sorted_unique_hashes() {
    let mut locks = Locks::new();
    locks.set_provider(ProviderLock::new(
        provider("hashicorp/null"),
        Version::new(1, 1, 0),
        match VersionConstraints::parse("< 2, >= 1.0") {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        },
        vec![
            Hash::zh("bbbb"),
            Hash::h1("qLat4+sjXCnceqLAQ9yonijar9Jfnl43+Wc/ctHCGGY="),
            Hash::zh("aaaa"),
            Hash::h1("qLat4+sjXCnceqLAQ9yonijar9Jfnl43+Wc/ctHCGGY="),
        ],
    ));
    locks.set_provider(ProviderLock::new(
        provider("example.com/acme/widget"),
        Version::new(2, 0, 0),
        VersionConstraints::new(),
        vec![Hash::h1("V3Us0DV4KR70MFGENOE0wh3LCGjbIEJ9oUM9yAPMlxY=")],
    ));
    assert_eq!(String::from_utf8_lossy(&locks.to_bytes()), MANY_HASHES);
}

#[test]
fn hashes_written_out_of_order_are_noticed() {
    let block = |hashes: &str| {
        format!("provider \"registry.terraform.io/hashicorp/aws\" {{\n  version = \"5.100.0\"\n  hashes = [{hashes}]\n}}\n")
    };
    let sorted = parse_ok(&block(
        "\"h1:edXOJWE4ORX8Fm+dpVpICzMZJat4AX0VRCAy/xkcOc0=\", \"zh:ffff\"",
    ));
    let unsorted = parse_ok(&block(
        "\"zh:ffff\", \"h1:edXOJWE4ORX8Fm+dpVpICzMZJat4AX0VRCAy/xkcOc0=\"",
    ));
    let repeated = parse_ok(&block("\"zh:ffff\", \"zh:ffff\""));
    assert!(sorted.written_in_order());
    assert!(!unsorted.written_in_order());
    assert!(!repeated.written_in_order());
    assert!(sorted.same_selections(&unsorted));
    assert!(MANY_HASHES.contains("hashes") && parse_ok(MANY_HASHES).written_in_order());
}

#[test]
fn empty_and_hashless_locks() {
    assert_eq!(
        String::from_utf8_lossy(&Locks::new().to_bytes()),
        "# This file is maintained automatically by \"terraform init\".\n# Manual edits may be lost in future updates.\n"
    );
    let mut locks = Locks::new();
    locks.set_provider(ProviderLock::new(
        provider("hashicorp/null"),
        Version::new(1, 0, 0),
        VersionConstraints::new(),
        Vec::new(),
    ));
    let text = String::from_utf8_lossy(&locks.to_bytes()).into_owned();
    assert!(text.ends_with(
        "\nprovider \"registry.terraform.io/hashicorp/null\" {\n  version = \"1.0.0\"\n}\n"
    ));
    assert_eq!(parse_ok(&text), locks);
}

#[test]
fn strings_are_escaped_as_hclwrite_does() {
    assert_eq!(hcl_quote("a\"b\\c\nd\re\tf"), r#""a\"b\\c\nd\re\tf""#);
    assert_eq!(hcl_quote("${x} %{y} $ % $$"), r#""$${x} %%{y} $ % $$""#);
    assert_eq!(
        hcl_quote("\u{1}\u{7f}é\u{10ffff}"),
        r#""\u0001\u007fé\U0010ffff""#
    );
    // What the parser reads back is what was written.
    let mut locks = Locks::new();
    locks.set_provider(ProviderLock::new(
        provider("hashicorp/null"),
        Version::new(1, 0, 0),
        VersionConstraints::new(),
        vec![Hash::parse("x9:${}\"q\\z%{\t").unwrap_or_else(|e| panic!("{e}"))],
    ));
    assert_eq!(parse_ok(&String::from_utf8_lossy(&locks.to_bytes())), locks);
}

#[test]
fn reads_versions_constraints_and_hashes() {
    let locks = parse_ok(AWS_TWO_MODULES);
    let Some(lock) = locks.provider(&provider("hashicorp/aws")) else {
        panic!("no aws lock")
    };
    assert_eq!(lock.version, Version::new(5, 100, 0));
    assert_eq!(lock.constraints.to_string(), "~> 5.0, >= 5.10.0, != 5.50.0");
    assert_eq!(
        lock.hashes(),
        &[Hash::h1("edXOJWE4ORX8Fm+dpVpICzMZJat4AX0VRCAy/xkcOc0=")]
    );
    let many = parse_ok(MANY_HASHES);
    let Some(null) = many.provider(&provider("hashicorp/null")) else {
        panic!()
    };
    assert_eq!(null.preferred_hashes().len(), 3);
}

/// Problems as Terraform 1.11.4 listed them for the same files (its
/// "failed to read dependency lock file" error), in the same order.
#[test]
fn malformed_files_report_terraform_problems() {
    let aws = "registry.terraform.io/hashicorp/aws";
    let cases: Vec<(String, Vec<String>)> = vec![
        (
            format!("provider \"{aws}\" {{\n  version = \"x\"\n  constraints = \">= 1.0\"\n}}\n"),
            vec![
                format!("Invalid provider version number: The selected version number for provider {aws} is invalid: can't use wildcard for major number; an exact version is required."),
                format!("Invalid provider version number: The selected version number for provider {aws} must be written in normalized form: \"0.0.0\"."),
                format!("Invalid provider version constraints: The recorded version constraints for provider {aws} must be written in normalized form: \">= 1.0.0\"."),
            ],
        ),
        (
            format!("provider \"{aws}\" {{\n  version = \"1.0.0\"\n  constraints = \"abc, >= 1.0\"\n}}\n"),
            vec![
                format!("Invalid provider version constraints: The recorded version constraints for provider {aws} are invalid: missing comma after \"\"."),
                format!("Invalid provider version constraints: The recorded version constraints for provider {aws} must be written in normalized form: \"\"."),
            ],
        ),
        (
            format!("provider \"{aws}\" {{\n  version = \"x\"\n}}\nprovider \"{aws}\" {{\n  version = \"y\"\n}}\n"),
            vec![
                format!("Invalid provider version number: The selected version number for provider {aws} is invalid: can't use wildcard for major number; an exact version is required."),
                format!("Invalid provider version number: The selected version number for provider {aws} must be written in normalized form: \"0.0.0\"."),
                format!("Invalid provider version number: The selected version number for provider {aws} is invalid: invalid specification; required format is three positive integers separated by periods."),
                format!("Invalid provider version number: The selected version number for provider {aws} must be written in normalized form: \"0.0.0\"."),
                format!("Duplicate provider lock: This lockfile already declared a lock for provider {aws} at .terraform.lock.hcl:1,1-47."),
            ],
        ),
        (
            format!("provider \"{aws}\" {{\n  hashes = []\n  foo = 1\n  versoin = \"1\"\n  nested {{}}\n}}\nbar = 2\nresource \"x\" \"y\" {{}}\n"),
            vec![
                "Unsupported argument: An argument named \"bar\" is not expected here.".into(),
                "Unsupported block type: Blocks of type \"resource\" are not expected here.".into(),
                "Missing required argument: The argument \"version\" is required, but no definition was found.".into(),
                "Unsupported argument: An argument named \"foo\" is not expected here.".into(),
                "Unsupported argument: An argument named \"versoin\" is not expected here. Did you mean \"version\"?".into(),
                "Unsupported block type: Blocks of type \"nested\" are not expected here.".into(),
                "Invalid provider hash set: The \"hashes\" argument must either be omitted or contain at least one hash value.".into(),
            ],
        ),
        (
            "provider \"hashicorp/aws\" {\n  version = \"1.0.0\"\n}\nprovider \"terraform.io/builtin/terraform\" {\n  version = \"1.0.0\"\n}\nprovider \"not valid!\" {\n  version = \"1.0.0\"\n}\nprovider \"registry.terraform.io/-/aws\" {\n  version = \"1.0.0\"\n}\n".into(),
            vec![
                "Non-normalized provider source address: The provider source address for this provider lock must be written as \"registry.terraform.io/hashicorp/aws\", the fully-qualified and normalized form.".into(),
                "Invalid provider source address: Cannot lock a version for built-in provider terraform.io/builtin/terraform. Built-in providers are bundled inside terrace itself, so you can't select a version for them independently of the terrace release you are currently running.".into(),
                "Invalid provider source address: The provider source address for a provider lock must be a valid, fully-qualified address of the form \"hostname/namespace/type\".".into(),
                "Invalid provider source address: Provider source address registry.terraform.io/-/aws is a special provider that is not eligible for dependency locking.".into(),
            ],
        ),
        (
            format!("provider \"{aws}\" {{\n  version = \"1.0.0\"\n  hashes = \"h1:abc\"\n}}\nprovider \"registry.terraform.io/hashicorp/foo\" {{\n  version = \"1.0.0\"\n  hashes = [\"abc\", 5, var.x, upper(\"h1:x\")]\n}}\nprovider \"registry.terraform.io/hashicorp/bar\" {{\n  version = null\n  constraints = null\n}}\n"),
            vec![
                "Invalid expression: A static list expression is required.".into(),
                "Invalid provider hash string: Cannot interpret \"abc\" as a provider hash: hash string must start with a scheme keyword followed by a colon.".into(),
                "Invalid provider hash string: Cannot interpret \"5\" as a provider hash: hash string must start with a scheme keyword followed by a colon.".into(),
                "Variables not allowed: Variables may not be used here.".into(),
                "Unsuitable value type: Unsuitable value: value must be known".into(),
                "Function calls not allowed: Functions may not be called here.".into(),
                "Unsuitable value type: Unsuitable value: value must be known".into(),
                "Missing required argument: A provider lock block must contain a \"version\" argument.".into(),
                "Unsuitable value type: Unsuitable value: null value is not allowed".into(),
            ],
        ),
        (
            format!("module \"x\" {{\n}}\nprovider \"{aws}\" {{\n  version = \"1.0.0\"\n}}\n"),
            vec![format!(
                "Dependency locks for modules are not yet supported: terrace v{} only supports dependency locks for providers, not for modules. This configuration may be intended for a later version of terrace that also supports dependency locks for modules.",
                env!("CARGO_PKG_VERSION")
            )],
        ),
    ];
    for (text, want) in cases {
        assert_eq!(problems(&text), want, "{text}");
    }
}

#[test]
fn syntax_errors_come_from_the_parser() {
    let got =
        problems("provider \"registry.terraform.io/hashicorp/aws\" {\n  version = \"1.0.0\n}\n");
    assert!(!got.is_empty());
    assert!(
        got.iter()
            .any(|p| p.starts_with("Invalid multi-line string")
                || p.starts_with("Unterminated template string")),
        "{got:?}"
    );
}

#[test]
fn diagnostics_point_into_the_file() {
    let text = "provider \"registry.terraform.io/hashicorp/aws\" {\n  version = \"1.0\"\n}\n";
    let (_, diags) = Locks::parse(text, LOCK_FILE_NAME);
    assert_eq!(diags.len(), 1);
    let Some(subject) = &diags[0].subject else {
        panic!("no subject")
    };
    assert_eq!(subject.to_string(), ".terraform.lock.hcl:2,13-18");
}

#[test]
fn load_and_save() {
    let dir = TempDir::new("lockfile");
    let path = dir.path().join(LOCK_FILE_NAME);
    let (locks, diags) = Locks::load(&path);
    assert!(
        locks.is_empty() && diags.is_empty(),
        "missing file is no locks"
    );
    let locks = parse_ok(MIRROR_TWO);
    assert!(locks.save(&path).is_empty());
    assert_eq!(
        std::fs::read_to_string(&path).ok().as_deref(),
        Some(MIRROR_TWO)
    );
    let (again, diags) = Locks::load(&path);
    assert!(diags.is_empty());
    assert_eq!(again, locks);
    let bad = dir.path().join("nodir").join(LOCK_FILE_NAME);
    let diags = locks.save(&bad);
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].summary, "Failed to update dependency lock file");
    // A directory where the file should be cannot be read.
    let (_, diags) = Locks::load(dir.path());
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].summary, "Failed to read file");
}
