use super::*;

#[test]
fn identifiers() {
    for ok in ["a", "_a", "a-b", "a1", "é"] {
        assert!(valid_identifier(ok), "{ok}");
    }
    for bad in ["", "1a", "-a", "a b", "a.b"] {
        assert!(!valid_identifier(bad), "{bad}");
    }
}

#[test]
fn module_paths() {
    let parse = |s: &str| {
        let f = terrace_syntax::ast::SourceFile::new("t", s);
        terrace_syntax::parse_traversal_abs(&f).0
    };
    for (s, want) in [
        ("module.a", true),
        ("module.a[0].module.b", true),
        ("module.a.aws_x.y", false),
        ("aws_x.y", false),
        ("module.a[0][1]", false),
    ] {
        let t = parse(s).unwrap_or_else(|| panic!("{s}"));
        assert_eq!(is_module_path(&t), want, "{s}");
    }
}

/// The summaries and details (with the first block's place) of decoding
/// `src` as `main.tf`.
fn decode_problems(src: &str) -> Vec<(String, String)> {
    let (file, diags) = terrace_syntax::parse_native_file("main.tf", src);
    assert!(diags.is_empty(), "{diags:?}");
    let (_, diags) = decode_file(&Body::from_file(&file), "main.tf", false);
    diags.into_iter().map(|d| (d.summary, d.detail)).collect()
}

#[test]
fn blocks_allowed_once() {
    let problems = decode_problems(
        "resource \"a\" \"b\" {\n  lifecycle {}\n  lifecycle {}\n  connection {}\n  connection {}\n}\n\
         ephemeral \"a\" \"b\" {\n  lifecycle {}\n  lifecycle {}\n}\n\
         removed {\n  from = a.c\n  lifecycle {}\n  lifecycle {}\n}\n",
    );
    assert_eq!(
        problems,
        [
            (
                "Duplicate lifecycle block",
                "This resource already has a lifecycle block at main.tf:2,3-12."
            ),
            (
                "Duplicate connection block",
                "This resource already has a connection block at main.tf:4,3-13."
            ),
            (
                "Duplicate lifecycle block",
                "This ephemeral resource already has a lifecycle block at main.tf:8,3-12."
            ),
            (
                "Duplicate lifecycle block",
                "The removed block already has a lifecycle block at main.tf:13,3-12."
            ),
        ]
        .map(|(s, d)| (s.to_string(), d.to_string()))
    );
}

#[test]
fn instance_arguments_of_a_module_call() {
    let problems = decode_problems(
        "module \"m\" {\n  source = \"./m\"\n  count = 1\n  for_each = {}\n  lifecycle {\n    enabled = true\n  }\n}\n",
    );
    assert_eq!(
        problems,
        [(
            "Invalid combination of \"count\", \"enabled\", and \"for_each\"".to_string(),
            "The \"count\", \"enabled\", and \"for_each\" meta-arguments are mutually-exclusive. Only one should be used to be explicit about the number of module instances to be created.".to_string()
        )]
    );
}
