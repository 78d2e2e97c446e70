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
