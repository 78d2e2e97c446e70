//! Provider source parsing against OpenTofu's test tables and Terraform's
//! messages, hostnames, provider parts, display forms and predicates.

use super::*;

/// A parse result reduced to what the tables compare: the FQN string, or
/// the one diagnostic's summary and detail.
fn parsed(source: &str) -> Result<String, (String, String)> {
    match Provider::parse_source_str(source) {
        Ok(p) => Ok(p.to_string()),
        Err(diags) => {
            assert_eq!(diags.len(), 1, "{source}: {diags:?}");
            Err((diags[0].summary.clone(), diags[0].detail.clone()))
        }
    }
}

#[test]
fn parse_source_accepts() {
    // OpenTofu's TestParseProviderSourceStr successes (with terrace's
    // default host), plus host normalisation checked against Terraform's
    // `terraform providers`.
    let rows: &[(&str, &str)] = &[
        (
            "registry.opentofu.org/hashicorp/aws",
            "registry.terraform.io/hashicorp/aws",
        ),
        (
            "registry.opentofu.org/HashiCorp/AWS",
            "registry.terraform.io/hashicorp/aws",
        ),
        (
            "registry.terraform.io/hashicorp/aws",
            "registry.terraform.io/hashicorp/aws",
        ),
        (
            "REGISTRY.OpenTofu.org/hashicorp/aws",
            "registry.terraform.io/hashicorp/aws",
        ),
        (
            "registry.opentofu.org:443/hashicorp/aws",
            "registry.terraform.io/hashicorp/aws",
        ),
        ("hashicorp/aws", "registry.terraform.io/hashicorp/aws"),
        ("HashiCorp/AWS", "registry.terraform.io/hashicorp/aws"),
        ("aws", "registry.terraform.io/hashicorp/aws"),
        ("AWS", "registry.terraform.io/hashicorp/aws"),
        (
            "example.com/foo-bar/baz-boop",
            "example.com/foo-bar/baz-boop",
        ),
        ("foo-bar/baz-boop", "registry.terraform.io/foo-bar/baz-boop"),
        ("localhost:8080/foo/bar", "localhost:8080/foo/bar"),
        ("localhost:443/foo/bar", "localhost/foo/bar"),
        ("EXAMPLE.com:08080/NS/ＡＢＣ", "example.com:8080/ns/abc"),
        ("example.com:-5/h/a", "example.com:-5/h/a"),
        ("example.com./h/a", "example.com./h/a"),
        (
            "München.Example:0443/Испытание/mu\u{308}nchen",
            "münchen.example/испытание/münchen",
        ),
        ("a\u{301}b.com/h/a", "áb.com/h/a"),
        ("terraform", "registry.terraform.io/hashicorp/terraform"),
        // A bare type skips the prefix checks, as in OpenTofu.
        (
            "terraform-provider-aws",
            "registry.terraform.io/hashicorp/terraform-provider-aws",
        ),
        ("-/aws", "registry.terraform.io/-/aws"),
        ("registry.terraform.io/-/foo", "registry.terraform.io/-/foo"),
        ("registry.opentofu.org/-/foo", "registry.terraform.io/-/foo"),
        (
            "terraform.io/builtin/terraform",
            "terraform.io/builtin/terraform",
        ),
        ("a1/b2", "registry.terraform.io/a1/b2"),
    ];
    for (source, want) in rows {
        assert_eq!(parsed(source), Ok(want.to_string()), "{source}");
    }
}

#[test]
fn parse_source_refuses() {
    const FORMAT: &str =
        "The \"source\" attribute must be in the format \"[hostname/][namespace/]name\"";
    const PART: &str =
        "must contain only letters, digits, and dashes, and may not use leading or trailing dashes";
    let rows: &[(&str, &str, String)] = &[
        ("example.com/too/many/parts/here", "Invalid provider source string", FORMAT.into()),
        ("/too///many//slashes", "Invalid provider source string", FORMAT.into()),
        ("///", "Invalid provider source string", FORMAT.into()),
        ("/ / /", "Invalid provider source string", FORMAT.into()),
        ("", "Invalid provider source string", FORMAT.into()),
        ("hashicorp/", "Invalid provider source string", FORMAT.into()),
        (
            "badhost!/hashicorp/aws",
            "Invalid provider source hostname",
            r#"Invalid provider source hostname namespace "" in source "badhost!/hashicorp/aws": idna: disallowed rune U+0021""#.into(),
        ),
        (
            "ex_ample.com/h/a",
            "Invalid provider source hostname",
            r#"Invalid provider source hostname namespace "" in source "ex_ample.com/h/a": idna: disallowed rune U+005F""#.into(),
        ),
        (
            "-bad.example.com/h/a",
            "Invalid provider source hostname",
            r##"Invalid provider source hostname namespace "" in source "-bad.example.com/h/a": idna: invalid label "-bad"""##.into(),
        ),
        (
            "a\u{200d}b.com/h/a",
            "Invalid provider source hostname",
            "Invalid provider source hostname namespace \"\" in source \"a\\u200db.com/h/a\": idna: invalid label \"a\\u200db\"\"".into(),
        ),
        (
            "\u{301}b.com/h/a",
            "Invalid provider source hostname",
            "Invalid provider source hostname namespace \"\" in source \"\u{301}b.com/h/a\": idna: invalid label \"\u{301}b\"\"".into(),
        ),
        (
            "a..b/h/a",
            "Invalid provider source hostname",
            r#"Invalid provider source hostname namespace "" in source "a..b/h/a": hostname contains empty label (two consecutive periods)""#.into(),
        ),
        (
            ":8080/h/a",
            "Invalid provider source hostname",
            r#"Invalid provider source hostname namespace "" in source ":8080/h/a": empty string is not a valid hostname""#.into(),
        ),
        (
            "http:foo/h/a",
            "Invalid provider source hostname",
            r#"Invalid provider source hostname namespace "" in source "http:foo/h/a": need just a hostname and optional port number, not a full URL""#.into(),
        ),
        (
            "example.com:abc/h/a",
            "Invalid provider source hostname",
            r#"Invalid provider source hostname namespace "" in source "example.com:abc/h/a": port portion contains non-digit characters""#.into(),
        ),
        (
            "example.com:99999/hashicorp/aws",
            "Invalid provider source hostname",
            r#"Invalid provider source hostname namespace "" in source "example.com:99999/hashicorp/aws": port number is greater than 65535""#.into(),
        ),
        (
            "xn--abc.com/hashicorp/aws",
            "Invalid provider source hostname",
            r##"Invalid provider source hostname namespace "" in source "xn--abc.com/hashicorp/aws": hostname label "xn--abc" specified in punycode format; service hostnames must be given in unicode""##.into(),
        ),
        (
            "example.com/badnamespace!/aws",
            "Invalid provider namespace",
            format!(r#"Invalid provider namespace "" in source "example.com/badnamespace!/aws": {PART}""#),
        ),
        (
            "example.com/bad--namespace/aws",
            "Invalid provider namespace",
            r#"Invalid provider namespace "" in source "example.com/bad--namespace/aws": cannot use multiple consecutive dashes""#.into(),
        ),
        (
            "example.com/-badnamespace/aws",
            "Invalid provider namespace",
            format!(r#"Invalid provider namespace "" in source "example.com/-badnamespace/aws": {PART}""#),
        ),
        (
            "example.com/badnamespace-/aws",
            "Invalid provider namespace",
            format!(r#"Invalid provider namespace "" in source "example.com/badnamespace-/aws": {PART}""#),
        ),
        (
            "example.com/bad.namespace/aws",
            "Invalid provider namespace",
            r#"Invalid provider namespace "" in source "example.com/bad.namespace/aws": dots are not allowed""#.into(),
        ),
        (
            "example.com/hashicorp/badtype!",
            "Invalid provider type",
            format!(r#"Invalid provider type "badtype!" in source "example.com/hashicorp/badtype!": {PART}""#),
        ),
        (
            "example.com/hashicorp/bad--type",
            "Invalid provider type",
            r#"Invalid provider type "bad--type" in source "example.com/hashicorp/bad--type": cannot use multiple consecutive dashes""#.into(),
        ),
        (
            "example.com/hashicorp/-badtype",
            "Invalid provider type",
            format!(r#"Invalid provider type "-badtype" in source "example.com/hashicorp/-badtype": {PART}""#),
        ),
        (
            "example.com/hashicorp/badtype-",
            "Invalid provider type",
            format!(r#"Invalid provider type "badtype-" in source "example.com/hashicorp/badtype-": {PART}""#),
        ),
        (
            "example.com/hashicorp/bad.type",
            "Invalid provider type",
            r#"Invalid provider type "bad.type" in source "example.com/hashicorp/bad.type": dots are not allowed""#.into(),
        ),
        (
            "example.com/hashicorp/bad_type",
            "Invalid provider type",
            format!(r#"Invalid provider type "bad_type" in source "example.com/hashicorp/bad_type": {PART}""#),
        ),
        (
            "example.com/-/aws",
            "Invalid provider namespace",
            "The legacy provider namespace \"-\" can be used only with hostname registry.terraform.io.".into(),
        ),
        (
            "example.com/hashicorp/terraform-provider-bad",
            "Invalid provider type",
            "Provider source \"example.com/hashicorp/terraform-provider-bad\" has a type with the prefix \"terraform-provider-\", which isn't valid. Although that prefix is often used in the names of version control repositories for Terraform providers, provider source strings should not include it.\n\nDid you mean \"example.com/hashicorp/bad\"?".into(),
        ),
        (
            "hashicorp/terraform-provider-aws",
            "Invalid provider type",
            "Provider source \"hashicorp/terraform-provider-aws\" has a type with the prefix \"terraform-provider-\", which isn't valid. Although that prefix is often used in the names of version control repositories for Terraform providers, provider source strings should not include it.\n\nDid you mean \"hashicorp/aws\"?".into(),
        ),
        (
            "example.com/hashicorp/terraform-bad",
            "Invalid provider type",
            "Provider source \"example.com/hashicorp/terraform-bad\" has a type with the prefix \"terraform-\", which isn't allowed because it would be redundant to name a Terraform provider with that prefix. If you are the author of this provider, rename it to not include the prefix.".into(),
        ),
        (
            "hashicorp/terraform-bad",
            "Invalid provider type",
            "Provider source \"registry.terraform.io/hashicorp/terraform-bad\" has a type with the prefix \"terraform-\", which isn't allowed because it would be redundant to name a Terraform provider with that prefix. If you are the author of this provider, rename it to not include the prefix.".into(),
        ),
        (
            "registry.opentofu.org/hashicorp/opentofu-provider-aws",
            "Invalid provider type",
            "Provider source \"hashicorp/opentofu-provider-aws\" has a type with the prefix \"opentofu-provider-\", which isn't valid. Although that prefix is sometimes used in the names of version control repositories for OpenTofu providers, provider source strings should not include it.\n\nDid you mean \"hashicorp/aws\"?".into(),
        ),
        (
            "example.com/ns/opentofu-x",
            "Invalid provider type",
            "Provider source \"example.com/ns/opentofu-x\" has a type with the prefix \"opentofu-\", which isn't allowed because it would be redundant to name an OpenTofu provider with that prefix. If you are the author of this provider, rename it to not include the prefix.".into(),
        ),
    ];
    for (source, summary, detail) in rows {
        assert_eq!(
            parsed(source),
            Err((summary.to_string(), detail.clone())),
            "{source}"
        );
    }
}

#[test]
fn provider_part() {
    // OpenTofu's TestParseProviderPart.
    const PART: &str =
        "must contain only letters, digits, and dashes, and may not use leading or trailing dashes";
    let rows: &[(&str, Result<&str, &str>)] = &[
        ("foo", Ok("foo")),
        ("FOO", Ok("foo")),
        ("Foo", Ok("foo")),
        ("abc-123", Ok("abc-123")),
        ("123", Ok("123")),
        ("Испытание", Ok("испытание")),
        ("münchen", Ok("münchen")),
        ("mu\u{308}nchen", Ok("münchen")),
        ("ＡＢＣ", Ok("abc")),
        ("abc--123", Err("cannot use multiple consecutive dashes")),
        (
            "xn--80akhbyknj4f",
            Err("cannot use multiple consecutive dashes"),
        ),
        ("abc.123", Err("dots are not allowed")),
        ("-abc123", Err(PART)),
        ("abc123-", Err(PART)),
        ("a_b", Err(PART)),
        ("a b", Err(PART)),
        ("a!", Err(PART)),
        ("?", Err(PART)),
        ("-", Err(PART)),
        ("", Err("must have at least one character")),
    ];
    for (given, want) in rows {
        let got = parse_provider_part(given);
        assert_eq!(
            got.as_deref().map_err(ToString::to_string),
            want.map_err(str::to_string),
            "{given:?}"
        );
        // Normalising a normalised part is the identity.
        if let Ok(norm) = got {
            assert_eq!(parse_provider_part(&norm).as_deref(), Ok(norm.as_str()));
        }
    }
}

fn provider(source: &str) -> Provider {
    match Provider::parse_source_str(source) {
        Ok(p) => p,
        Err(d) => panic!("{source}: {d:?}"),
    }
}

#[test]
fn display_forms() {
    // OpenTofu's TestProviderString and TestProviderDisplay.
    let rows: &[(&str, &str, &str)] = &[
        (
            "hashicorp/test",
            "registry.terraform.io/hashicorp/test",
            "hashicorp/test",
        ),
        (
            "hashicorp/test-beta",
            "registry.terraform.io/hashicorp/test-beta",
            "hashicorp/test-beta",
        ),
        (
            "registry.terraform.com/hashicorp/test",
            "registry.terraform.com/hashicorp/test",
            "registry.terraform.com/hashicorp/test",
        ),
        (
            "othercorp/test",
            "registry.terraform.io/othercorp/test",
            "othercorp/test",
        ),
        (
            "registry.opentofu.org/othercorp/test",
            "registry.terraform.io/othercorp/test",
            "othercorp/test",
        ),
        (
            "terraform.io/builtin/terraform",
            "terraform.io/builtin/terraform",
            "terraform.io/builtin/terraform",
        ),
        (
            "bücher.example/ns/t",
            "bücher.example/ns/t",
            "bücher.example/ns/t",
        ),
    ];
    for (source, string, display) in rows {
        let p = provider(source);
        assert_eq!(p.to_string(), *string, "{source}");
        assert_eq!(p.for_display(), *display, "{source}");
        // The printed FQN reads back as the same provider.
        assert_eq!(provider(string), p, "{source}");
    }
    assert_eq!(
        provider("bücher.example/ns/t").hostname().as_str(),
        "xn--bcher-kva.example"
    );
}

#[test]
fn predicates() {
    // OpenTofu's TestProviderIsDefaultProvider, TestProviderIsBuiltIn,
    // TestProviderIsLegacy, TestProviderLegacyString.
    let rows: &[(Provider, bool, bool, bool, Option<&str>)] = &[
        // (provider, is_default, is_builtin, is_legacy, legacy_string)
        (provider("hashicorp/test"), true, false, false, None),
        (
            provider("registry.opentofu.org/hashicorp/test"),
            true,
            false,
            false,
            None,
        ),
        (
            provider("registry.terraform.com/hashicorp/test"),
            false,
            false,
            false,
            None,
        ),
        (provider("othercorp/test"), false, false, false, None),
        (
            provider("terraform.io/builtin/test"),
            false,
            true,
            false,
            Some("test"),
        ),
        (
            provider("terraform.io/builtin/terraform"),
            false,
            true,
            false,
            Some("terraform"),
        ),
        (
            provider("opentofu.org/builtin/terraform"),
            false,
            true,
            false,
            Some("terraform"),
        ),
        (
            provider("terraform.io/boop/test"),
            false,
            false,
            false,
            None,
        ),
        (
            provider("registry.terraform.io/builtin/test"),
            false,
            false,
            false,
            Some("test"),
        ),
        (
            Provider::new_legacy("test"),
            false,
            false,
            true,
            Some("test"),
        ),
        (provider("-/test"), false, false, true, Some("test")),
    ];
    for (p, default, builtin, legacy, legacy_string) in rows {
        assert_eq!(p.is_default(), *default, "{p} is_default");
        assert_eq!(p.is_builtin(), *builtin, "{p} is_builtin");
        assert_eq!(p.is_legacy(), *legacy, "{p} is_legacy");
        assert_eq!(p.legacy_string(), *legacy_string, "{p} legacy_string");
    }
    assert!(provider("registry.opentofu.org/x/y").is_default_registry());
    assert!(!provider("example.com/x/y").is_default_registry());
}

#[test]
fn constructors() {
    let default = Provider::new_default("Test");
    assert_eq!(
        default.map(|p| p.to_string()).as_deref(),
        Ok("registry.terraform.io/hashicorp/test")
    );
    let builtin = Provider::new_builtin("terraform");
    assert_eq!(
        builtin.map(|p| p.to_string()).as_deref(),
        Ok("terraform.io/builtin/terraform")
    );
    let implied: Vec<String> = ["terraform", "aws", "google-beta"]
        .iter()
        .filter_map(|t| Provider::implied_for_unqualified_type(t).ok())
        .map(|p| p.to_string())
        .collect();
    assert_eq!(
        implied,
        [
            "terraform.io/builtin/terraform",
            "registry.terraform.io/hashicorp/aws",
            "registry.terraform.io/hashicorp/google-beta"
        ]
    );
    assert!(Provider::implied_for_unqualified_type("foo-").is_err());
    // The legacy type is kept verbatim, even when not a valid part.
    assert_eq!(
        Provider::new_legacy("Foo_Bar").to_string(),
        "registry.terraform.io/-/Foo_Bar"
    );
    let host = Hostname::for_comparison("registry.opentofu.org");
    let new = host.map(|h| Provider::new(h, "Foo", "bar").map(|p| p.to_string()));
    assert_eq!(new, Ok(Ok("registry.terraform.io/foo/bar".to_string())));
    let refused = Provider::new(Hostname::default_registry(), "-", "bar");
    assert!(refused.is_err());
    let refused = Provider::new(Hostname::default_registry(), "", "bar");
    assert_eq!(
        refused.map_err(|e| e.to_string()),
        Err("must have at least one character".into())
    );
}

#[test]
fn equality_and_order() {
    // OpenTofu's TestProviderEquals, with the shared default registry.
    assert_eq!(
        provider("foo/test"),
        provider("registry.opentofu.org/foo/test")
    );
    assert_ne!(provider("foo/test"), provider("bar/test"));
    assert_ne!(provider("foo/test"), provider("foo/my-test"));
    assert_ne!(provider("foo/test"), provider("example.com/foo/test"));
    // LessThan: hostname, then namespace, then type.
    let mut list = [
        provider("registry.terraform.io/b/a"),
        provider("example.com/z/z"),
        provider("registry.terraform.io/a/b"),
        provider("registry.terraform.io/a/a"),
    ];
    list.sort();
    let shown: Vec<String> = list.iter().map(Provider::for_display).collect();
    assert_eq!(shown, ["example.com/z/z", "a/a", "a/b", "b/a"]);
}

#[test]
fn hostnames() {
    let rows: &[(&str, Result<&str, &str>)] = &[
        ("example.com", Ok("example.com")),
        ("Example.COM", Ok("example.com")),
        ("example.com:443", Ok("example.com")),
        ("example.com:+8080", Ok("example.com:8080")),
        ("bücher.example", Ok("xn--bcher-kva.example")),
        ("ab--cd.example", Ok("ab--cd.example")),
        ("", Err("empty string is not a valid hostname")),
        (
            "example.com:",
            Err("port portion contains non-digit characters"),
        ),
        (
            "example.com:99999999999999999999",
            Err("port portion contains non-digit characters"),
        ),
        (
            "HTTPS:x",
            Err("need just a hostname and optional port number, not a full URL"),
        ),
        (
            ".example.com",
            Err("hostname contains empty label (two consecutive periods)"),
        ),
        ("a b", Err("idna: disallowed rune U+0020")),
    ];
    for (given, want) in rows {
        let got = Hostname::for_comparison(given);
        assert_eq!(
            got.as_ref().map(Hostname::as_str).map_err(String::as_str),
            *want,
            "{given:?}"
        );
    }
    let display = Hostname::for_comparison("bücher.example:8080").map(|h| h.for_display());
    assert_eq!(display.as_deref(), Ok("bücher.example:8080"));
}
