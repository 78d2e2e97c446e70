//! Data-driven tests: expressions and templates printed as compact
//! S-expressions, bodies as outlines, diagnostics as `Summary@line:col`.
//! Expected diagnostics were checked against `terraform validate -json`.

use crate::ast::*;
use crate::diagnostic::Diagnostic;
use crate::{
    parse_expression, parse_json_file, parse_native_file, parse_template, parse_traversal,
};
use std::fmt::Write;

fn sexpr(e: &Expr) -> String {
    let mut s = String::new();
    write_expr(&mut s, e);
    s
}

fn write_step(s: &mut String, step: &TraversalStep) {
    match step {
        TraversalStep::Attr { name, .. } => {
            let _ = write!(s, " .{name}");
        }
        TraversalStep::Index { key, .. } => {
            s.push_str(" [");
            write_expr(s, key);
            s.push(']');
        }
    }
}

fn write_parts(s: &mut String, parts: &[TemplatePart]) {
    for p in parts {
        s.push(' ');
        match p {
            TemplatePart::Literal { text, .. } => {
                let _ = write!(s, "{text:?}");
            }
            TemplatePart::Interpolation(e) => {
                s.push_str("${");
                write_expr(s, e);
                s.push('}');
            }
            TemplatePart::If {
                condition,
                then_parts,
                else_parts,
                ..
            } => {
                s.push_str("(if ");
                write_expr(s, condition);
                s.push_str(" (");
                write_parts(s, then_parts);
                s.push_str(" ) (");
                write_parts(s, else_parts);
                s.push_str(" ))");
            }
            TemplatePart::For {
                key_var,
                value_var,
                collection,
                body,
                ..
            } => {
                let _ = write!(s, "(for {} {value_var} ", key_var.as_deref().unwrap_or("_"));
                write_expr(s, collection);
                s.push_str(" (");
                write_parts(s, body);
                s.push_str(" ))");
            }
        }
    }
}

fn write_expr(s: &mut String, e: &Expr) {
    match &e.kind {
        ExprKind::Number(n) => s.push_str(n),
        ExprKind::Bool(b) => {
            let _ = write!(s, "{b}");
        }
        ExprKind::Null => s.push_str("null"),
        ExprKind::Template(t) => {
            s.push_str(if t.heredoc { "(heredoc" } else { "(tmpl" });
            if t.origin == ExprOrigin::Json {
                s.push_str(" json");
            }
            write_parts(s, &t.parts);
            s.push(')');
        }
        ExprKind::TemplateWrap(inner) => {
            s.push_str("(wrap ");
            write_expr(s, inner);
            s.push(')');
        }
        ExprKind::ScopeTraversal(t) => {
            let _ = write!(s, "(trav {}", t.root);
            for st in &t.steps {
                write_step(s, st);
            }
            s.push(')');
        }
        ExprKind::RelativeTraversal { source, steps } => {
            s.push_str("(rel ");
            write_expr(s, source);
            for st in steps {
                write_step(s, st);
            }
            s.push(')');
        }
        ExprKind::FunctionCall {
            name,
            args,
            expand_final,
            ..
        } => {
            let _ = write!(s, "(call {name}");
            for a in args {
                s.push(' ');
                write_expr(s, a);
            }
            if *expand_final {
                s.push_str(" ...");
            }
            s.push(')');
        }
        ExprKind::Conditional {
            condition,
            true_result,
            false_result,
        } => {
            s.push_str("(? ");
            write_expr(s, condition);
            s.push(' ');
            write_expr(s, true_result);
            s.push(' ');
            write_expr(s, false_result);
            s.push(')');
        }
        ExprKind::Binary { first, rest } => {
            // Printed as the nested pairs the chain stands for.
            for operand in rest.iter().rev() {
                let _ = write!(s, "({} ", binary_op_text(operand.op));
            }
            write_expr(s, first);
            for operand in rest {
                s.push(' ');
                write_expr(s, &operand.rhs);
                s.push(')');
            }
        }
        ExprKind::Unary { op, operand } => {
            s.push_str(if *op == UnaryOp::Not { "(! " } else { "(neg " });
            write_expr(s, operand);
            s.push(')');
        }
        ExprKind::Tuple(items) => {
            s.push('[');
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    s.push(' ');
                }
                write_expr(s, it);
            }
            s.push(']');
        }
        ExprKind::Object(items) => {
            s.push('{');
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    s.push(' ');
                }
                match &it.key {
                    ObjectKey::Bare { name, .. } => s.push_str(name),
                    ObjectKey::Expr(k) => {
                        s.push('<');
                        write_expr(s, k);
                        s.push('>');
                    }
                }
                s.push('=');
                write_expr(s, &it.value);
            }
            s.push('}');
        }
        ExprKind::For(f) => {
            let _ = write!(
                s,
                "(for {} {} ",
                f.key_var.as_deref().unwrap_or("_"),
                f.value_var
            );
            write_expr(s, &f.collection);
            s.push_str(" :");
            if let Some(k) = &f.key_expr {
                s.push(' ');
                write_expr(s, k);
                s.push_str(" =>");
            }
            s.push(' ');
            write_expr(s, &f.value_expr);
            if f.group {
                s.push_str(" ...");
            }
            if let Some(c) = &f.condition {
                s.push_str(" if ");
                write_expr(s, c);
            }
            s.push(')');
        }
        ExprKind::Index {
            collection, key, ..
        } => {
            s.push_str("(index ");
            write_expr(s, collection);
            s.push(' ');
            write_expr(s, key);
            s.push(')');
        }
        ExprKind::Splat { source, each, full } => {
            s.push_str(if *full { "(splat " } else { "(attrsplat " });
            write_expr(s, source);
            s.push(' ');
            write_expr(s, each);
            s.push(')');
        }
        ExprKind::AnonSymbol => s.push('_'),
        ExprKind::Parens(inner) => {
            s.push_str("(paren ");
            write_expr(s, inner);
            s.push(')');
        }
        ExprKind::Invalid => s.push_str("INVALID"),
    }
}

fn diag_str(d: &Diagnostic) -> String {
    match &d.subject {
        Some(r) => format!(
            "{}@{}:{}-{}:{}",
            d.summary, r.start.line, r.start.column, r.end.line, r.end.column
        ),
        None => d.summary.clone(),
    }
}

fn diags_str(diags: &[Diagnostic]) -> String {
    diags.iter().map(diag_str).collect::<Vec<_>>().join("; ")
}

fn expr(src: &str) -> (String, String) {
    let source = SourceFile::new("test.hcl", src);
    let (e, diags) = parse_expression(&source);
    (sexpr(&e), diags_str(&diags))
}

fn template(src: &str) -> (String, String) {
    let source = SourceFile::new("test.tmpl", src);
    let (e, diags) = parse_template(&source);
    (sexpr(&e), diags_str(&diags))
}

#[test]
fn expressions() {
    let cases: &[(&str, &str)] = &[
        ("1", "1"),
        ("1.5e3", "1.5e3"),
        ("true", "true"),
        ("null", "null"),
        ("a", "(trav a)"),
        ("var.a.b", "(trav var .a .b)"),
        ("a-b", "(trav a-b)"),
        ("a - b", "(- (trav a) (trav b))"),
        ("1 + 2 * 3", "(+ 1 (* 2 3))"),
        ("1 - 2 - 3", "(- (- 1 2) 3)"),
        ("8 / 4 * 2 % 3", "(% (* (/ 8 4) 2) 3)"),
        ("a || b && c == d < e + f * g", "(|| (trav a) (&& (trav b) (== (trav c) (< (trav d) (+ (trav e) (* (trav f) (trav g)))))))"),
        ("a >= b != c <= d", "(!= (>= (trav a) (trav b)) (<= (trav c) (trav d)))"),
        ("-1 + 2", "(+ (neg 1) 2)"),
        ("!a.b && c", "(&& (! (trav a .b)) (trav c))"),
        ("-a[0]", "(neg (trav a [0]))"),
        ("--1", "(neg (neg 1))"),
        ("(1 + 2) * 3", "(* (paren (+ 1 2)) 3)"),
        ("a ? b : c ? d : e", "(? (trav a) (trav b) (? (trav c) (trav d) (trav e)))"),
        ("a ? b ? c : d : e", "(? (trav a) (? (trav b) (trav c) (trav d)) (trav e))"),
        ("a || b ? 1 + 2 : 3", "(? (|| (trav a) (trav b)) (+ 1 2) 3)"),
        ("a[0]", "(trav a [0])"),
        ("a[\"k\"].b", "(trav a [(tmpl \"k\")] .b)"),
        ("a[true][null]", "(trav a [true] [null])"),
        ("a[b]", "(index (trav a) (trav b))"),
        ("a[b].c[0]", "(rel (index (trav a) (trav b)) .c [0])"),
        ("a[-1]", "(index (trav a) (neg 1))"),
        ("a[\"${b}\"]", "(index (trav a) (wrap (trav b)))"),
        ("a[(0)]", "(index (trav a) (paren 0))"),
        ("a[<<EOT\nk\nEOT\n]", "(trav a [(heredoc \"k\\n\")])"),
        ("a.0.b", "(trav a [0] .b)"),
        ("a.0", "(trav a [0])"),
        ("f(x).y[0]", "(rel (call f (trav x)) .y [0])"),
        ("(a).b", "(rel (paren (trav a)) .b)"),
        ("true.a", "(rel true .a)"),
        ("f()", "(call f)"),
        ("f(1, 2,)", "(call f 1 2)"),
        ("f(a...)", "(call f (trav a) ...)"),
        ("f(1,\n  2\n)", "(call f 1 2)"),
        ("provider::aws::arn_parse(x)", "(call provider::aws::arn_parse (trav x))"),
        ("core::max(1, 2)", "(call core::max 1 2)"),
        ("a[*]", "(splat (trav a) _)"),
        ("a[*].b", "(splat (trav a) (rel _ .b))"),
        ("a[*].b[0].c", "(splat (trav a) (rel _ .b [0] .c))"),
        ("a[*].b[c]", "(splat (trav a) (index (rel _ .b) (trav c)))"),
        ("a[*][*].b", "(splat (trav a) (splat _ (rel _ .b)))"),
        ("a.*", "(attrsplat (trav a) _)"),
        ("a.*.b.c", "(attrsplat (trav a) (rel _ .b .c))"),
        ("a.*.b[0]", "(rel (attrsplat (trav a) (rel _ .b)) [0])"),
        ("a.*.b.0.c", "(attrsplat (trav a) (rel _ .b [0] .c))"),
        ("a.*.b[*].c", "(splat (attrsplat (trav a) (rel _ .b)) (rel _ .c))"),
        ("f(x)[*].id", "(splat (call f (trav x)) (rel _ .id))"),
        ("[]", "[]"),
        ("[1, 2, 3,]", "[1 2 3]"),
        ("[\n1,\n2\n]", "[1 2]"),
        ("{}", "{}"),
        ("{a = 1, b = 2}", "{a=1 b=2}"),
        ("{a: 1, \"b\": 2}", "{a=1 <(tmpl \"b\")>=2}"),
        ("{\n  a = 1\n  b = 2\n}", "{a=1 b=2}"),
        ("{(a) = 1}", "{<(paren (trav a))>=1}"),
        ("{true = 1, null = 2}", "{true=1 null=2}"),
        ("{a.b = 1}", "{<(trav a .b)>=1}"),
        ("{(a).b = 1}", "{<(rel (paren (trav a)) .b)>=1}"),
        ("{a = {b = [1]}}", "{a={b=[1]}}"),
        ("[for v in a: v]", "(for _ v (trav a) : (trav v))"),
        ("[for i, v in a: v if i < 2]", "(for i v (trav a) : (trav v) if (< (trav i) 2))"),
        ("{for k, v in a: k => v}", "(for k v (trav a) : (trav k) => (trav v))"),
        ("{for v in a: v.k => v...}", "(for _ v (trav a) : (trav v .k) => (trav v) ...)"),
        ("{\n  for v in a:\n  v => 1\n}", "(for _ v (trav a) : (trav v) => 1)"),
        ("[for x in [1]: [for y in [2]: x + y]]", "(for _ x [1] : (for _ y [2] : (+ (trav x) (trav y))))"),
        ("[(for), foo]", "[(paren (trav for)) (trav foo)]"),
        ("\"\"", "(tmpl \"\")"),
        ("\"abc\"", "(tmpl \"abc\")"),
        ("\"${a}\"", "(wrap (trav a))"),
        ("\"${a}${b}\"", "(tmpl ${(trav a)} ${(trav b)})"),
        ("\"x${a}y\"", "(tmpl \"x\" ${(trav a)} \"y\")"),
        ("\"${\"${true}\"}\"", "(wrap (wrap true))"),
        ("\"\\n\\t\\r\\\"\\\\\"", "(tmpl \"\\n\\t\\r\\\"\\\\\")"),
        ("\"\\u00e9\\U0001F600\"", "(tmpl \"é😀\")"),
        ("\"$${a} %%{b} $ % $$ %%\"", "(tmpl \"${a} %{b} $ % $$ %%\")"),
        ("\"a ${~ b ~} c\"", "(tmpl \"a\" ${(trav b)} \"c\")"),
        ("\"a %{~ if b ~} c %{~ endif ~} d\"", "(tmpl \"a\" (if (trav b) ( \"c\" ) ( )) \"d\")"),
        ("\"${\"hello\" ~}${\" world\"}\"", "(tmpl ${(tmpl \"hello\")} ${(tmpl \" world\")})"),
        ("\"%{if a}x%{else}y%{endif}\"", "(tmpl (if (trav a) ( \"x\" ) ( \"y\" )))"),
        ("\"%{for k, v in m}${k}=${v};%{endfor}\"", "(tmpl (for k v (trav m) ( ${(trav k)} \"=\" ${(trav v)} \";\" )))"),
        ("\"%{ for v in [true] }${v}%{ endfor }\"", "(tmpl (for _ v [true] ( ${(trav v)} )))"),
        ("<<EOT\nhello\nEOT\n", "(heredoc \"hello\\n\")"),
        ("<<EOT\nEOT\n", "(heredoc \"\")"),
        ("<<EOT\n  a\n    b\n  EOT\n", "(heredoc \"  a\\n    b\\n\")"),
        ("<<-EOT\n    a\n      b\n    EOT\n", "(heredoc \"a\\n  b\\n\")"),
        ("<<-EOT\n    a\n\n      b\n    EOT\n", "(heredoc \"a\\n\\n  b\\n\")"),
        ("<<-EOT\n    a\n  \n    b\nEOT\n", "(heredoc \"a\\n  \\nb\\n\")"),
        ("<<-EOT\n  a ${b}\n    c\n  EOT\n", "(heredoc \"a \" ${(trav b)} \"\\n  c\\n\")"),
        ("<<-EOT\n${b}\n    c\nEOT\n", "(heredoc ${(trav b)} \"\\n    c\\n\")"),
        ("<<-EOT\n\t\ta\n\t\tb\nEOT\n", "(heredoc \"a\\nb\\n\")"),
        ("<<EOT\n%{ for x in y ~}\n  ${x}\n%{ endfor ~}\nEOT\n", "(heredoc (for _ x (trav y) ( \"  \" ${(trav x)} \"\\n\" )) \"\")"),
        ("<<EOT\na\n  ${~ x}\nEOT\n", "(heredoc \"a\\n\" ${(trav x)} \"\\n\")"),
        ("<<EOT\n$${a}\\n\nEOT\n", "(heredoc \"${a}\\\\n\\n\")"),
        ("<<EOT\r\nhello\r\nEOT\r\n", "(heredoc \"hello\\r\\n\")"),
        ("<<EOT-1\nx\nEOT-1\n", "(heredoc \"x\\n\")"),
        ("<<EOT\n${<<EOU\ninner\nEOU\n}\nEOT\n", "(heredoc ${(heredoc \"inner\\n\")} \"\\n\")"),
        ("a # comment\n", "(trav a)"),
        ("a /* x */ + /* y */ b", "(+ (trav a) (trav b))"),
        ("  1  \n\n", "1"),
        ("[\n  1, # one\n  2, // two\n]", "[1 2]"),
    ];
    for (src, want) in cases {
        let (got, diags) = expr(src);
        assert_eq!(diags, "", "unexpected diagnostics for {src:?}");
        assert_eq!(got, *want, "for {src:?}");
    }
}

#[test]
fn templates() {
    let cases: &[(&str, &str)] = &[
        ("", "(tmpl \"\")"),
        ("hello", "(tmpl \"hello\")"),
        ("${x}", "(wrap (trav x))"),
        ("a\n${x}\n", "(tmpl \"a\\n\" ${(trav x)} \"\\n\")"),
        ("a \\n $${x}", "(tmpl \"a \\\\n ${x}\")"),
        ("x $", "(tmpl \"x $\")"),
        (
            "%{ for i in l ~}\n${i}\n%{ endfor ~}\n",
            "(tmpl (for _ i (trav l) ( \"\" ${(trav i)} \"\\n\" )) \"\")",
        ),
        ("%{if a}%{endif}", "(tmpl (if (trav a) ( ) ( )))"),
        ("a\rb${c}", "(tmpl \"a\\rb${c}\")"),
        ("\"q\" ${\"s\"}", "(tmpl \"\\\"q\\\" \" ${(tmpl \"s\")})"),
    ];
    for (src, want) in cases {
        let (got, diags) = template(src);
        assert_eq!(diags, "", "unexpected diagnostics for {src:?}");
        assert_eq!(got, *want, "for {src:?}");
    }
}

/// Parses `x = SRC` as a file, as the cases were given to `terraform
/// validate -json`; columns on the first line are shifted back by the four
/// characters of `x = `.
fn attr_expr(src: &str) -> (String, String) {
    let (file, diags) = parse_native_file("main.tf", &format!("x = {src}\n"));
    let tree = match &file.body {
        Body::Native(b) => b
            .attributes
            .first()
            .map(|a| sexpr(&a.expr))
            .unwrap_or_default(),
        Body::Json(_) => String::new(),
    };
    let shifted: Vec<String> = diags
        .iter()
        .map(|d| {
            let Some(r) = &d.subject else {
                return d.summary.clone();
            };
            let col = |line: u32, c: u32| if line == 1 { c - 4 } else { c };
            // terraform's JSON output widens an empty range to one column.
            let end_col = if r.start.byte == r.end.byte {
                r.end.column + 1
            } else {
                r.end.column
            };
            format!(
                "{}@{}:{}-{}:{}",
                d.summary,
                r.start.line,
                col(r.start.line, r.start.column),
                r.end.line,
                col(r.end.line, end_col)
            )
        })
        .collect();
    (tree, shifted.join("; "))
}

#[test]
fn expression_errors() {
    // (input, tree, diagnostics): the diagnostics are what `terraform
    // validate -json` reports for `x = INPUT`, except that terraform widens
    // an empty range by one character.
    let cases: &[(&str, &str, &str)] = &[
        ("1 +", "1", "Invalid expression@1:4-2:1"),
        ("1 2", "1", "Missing newline after argument@1:3-1:4"),
        ("a.", "INVALID", "Invalid attribute name@1:3-2:1"),
        (
            "a.[0]",
            "(rel INVALID [0])",
            "Invalid attribute name@1:3-1:4",
        ),
        ("f(1 2)", "(call f 1)", "Missing argument separator@1:5-1:6"),
        ("f(1", "(call f 1)", "Unterminated function call@1:1-1:3"),
        (
            "f(a..., b)",
            "(call f (trav a) ...)",
            "Missing closing parenthesis@1:4-1:7",
        ),
        (
            "provider::(x)",
            "INVALID",
            "Missing function name@1:11-1:12",
        ),
        ("a::b", "INVALID", "Missing open parenthesis@1:5-2:1"),
        ("[1 2]", "[1]", "Missing item separator@1:4-1:5"),
        ("[1,", "[1 INVALID]", "Missing expression@2:1-2:2"),
        (
            "{a = 1 b = 2}",
            "{a=1}",
            "Missing attribute separator@1:8-1:9",
        ),
        ("{a 1}", "{}", "Missing key/value separator@1:4-1:5"),
        ("{a b}", "{}", "Missing key/value separator@1:4-1:5"),
        ("{a,}", "{}", "Missing attribute value@1:3-1:4"),
        ("{a = 1", "{a=1}", "Missing expression@2:1-2:2"),
        ("(1", "(paren 1)", "Unbalanced parentheses@2:1-2:2"),
        (
            "a ? b",
            "(trav a)",
            "Missing false expression in conditional@1:6-2:1",
        ),
        (
            "a[0",
            "(trav a [0])",
            "Missing close bracket on index@2:1-2:2",
        ),
        (
            "a[*",
            "(splat (trav a) _)",
            "Missing close bracket on splat index@2:1-2:2",
        ),
        (
            "a.*.*",
            "(trav a)",
            "Nested splat expression not allowed@1:5-1:6",
        ),
        (
            "a.0.1",
            "(trav a [INVALID])",
            "Invalid legacy index syntax@1:3-1:6",
        ),
        ("1.2.3", "INVALID", "Invalid number literal@1:1-1:6"),
        (
            "[for x in y]",
            "INVALID",
            "Invalid 'for' expression@1:12-1:13",
        ),
        (
            "[for in y: x]",
            "INVALID",
            "Invalid 'for' expression@1:9-1:10",
        ),
        (
            "[for x, in y: x]",
            "INVALID",
            "Invalid 'for' expression@1:12-1:13",
        ),
        (
            "[for x y: x]",
            "INVALID",
            "Invalid 'for' expression@1:8-1:9",
        ),
        (
            "[for x in y: x x]",
            "(for _ x (trav y) : (trav x))",
            "Invalid 'for' expression@1:16-1:17",
        ),
        (
            "[for x in y: k => x]",
            "(for _ x (trav y) : (trav k) => (trav x))",
            "Invalid 'for' expression@1:14-1:15",
        ),
        (
            "[for x in y: x...]",
            "(for _ x (trav y) : (trav x) ...)",
            "Invalid 'for' expression@1:15-1:18",
        ),
        (
            "{for x in y: x}",
            "(for _ x (trav y) : (trav x))",
            "Invalid 'for' expression@1:14-1:15",
        ),
        (
            "\"abc",
            "(tmpl \"abc\")",
            "Invalid multi-line string@1:5-2:1; Unterminated template string@1:5-2:1",
        ),
        (
            "\"${a\"",
            "(wrap (trav a))",
            "Invalid multi-line string@1:6-2:1; Unclosed template interpolation sequence@1:2-1:4",
        ),
        (
            "\"${a b}\"",
            "(wrap (trav a))",
            "Extra characters after interpolation expression@1:6-1:7",
        ),
        (
            "\"${a: b}\"",
            "(wrap (trav a))",
            "Extra characters after interpolation expression@1:5-1:6",
        ),
        ("\"\\q\"", "(tmpl \"q\")", "Invalid escape sequence@1:2-1:4"),
        (
            "\"\\u12\"",
            "(tmpl \"\\\\u12\")",
            "Invalid escape sequence@1:2-1:6",
        ),
        (
            "\"\\ud800\"",
            "(tmpl \"\\\\ud800\")",
            "Invalid escape sequence@1:2-1:8",
        ),
        (
            "\"%{ iff a }x%{ endif }\"",
            "(tmpl \"x\" ${INVALID})",
            "Invalid template control keyword@1:5-1:8; Unexpected endif directive@1:13-1:23",
        ),
        (
            "\"%{ if a }x\"",
            "(tmpl ${INVALID})",
            "Unexpected end of template@1:12-1:13",
        ),
        (
            "\"%{ endif }\"",
            "(tmpl ${INVALID})",
            "Unexpected endif directive@1:2-1:12",
        ),
        (
            "\"%{ if a }%{ else }%{ else }%{ endif }\"",
            "(tmpl ${INVALID} ${INVALID})",
            "Unexpected else directive@1:20-1:29; Unexpected endif directive@1:29-1:39",
        ),
        (
            "\"%{ for x in y }%{ else }%{ endfor }\"",
            "(tmpl ${INVALID} ${INVALID})",
            "Unexpected else directive@1:17-1:26; Unexpected endfor directive@1:26-1:37",
        ),
        (
            "\"%{ 1 }\"",
            "(tmpl \"\")",
            "Invalid template directive@1:5-1:6",
        ),
        (
            "\"%{ if a b }x%{ endif }\"",
            "(tmpl (if (trav a) ( \"x\" ) ( )))",
            "Extra characters in if marker@1:10-1:11",
        ),
        (
            "a & b",
            "(trav a)",
            "Unsupported operator@1:3-1:4; Missing newline after argument@1:3-1:4",
        ),
        ("2 ** 3", "2", "Invalid expression@1:4-1:5"),
        (
            "'a'",
            "INVALID",
            "Invalid character@1:1-1:2; Invalid expression@1:1-1:2",
        ),
        (
            "a;",
            "(trav a)",
            "Invalid character@1:2-1:3; Missing newline after argument@1:2-1:3",
        ),
        (
            "“a”",
            "INVALID",
            "Invalid character@1:1-1:2; Invalid character@1:3-1:4; Invalid expression@1:1-1:2",
        ),
        (
            "`a`",
            "INVALID",
            "Invalid character@1:1-1:2; Invalid expression@1:1-1:2",
        ),
    ];
    let mut failures = Vec::new();
    for (src, want_tree, want_diags) in cases {
        let (got, diags) = attr_expr(src);
        if (got.as_str(), diags.as_str()) != (*want_tree, *want_diags) {
            failures.push(format!(
                "{src:?}\n   got  {got:?} {diags:?}\n   want {want_tree:?} {want_diags:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn standalone_expression_errors() {
    let cases: &[(&str, &str, &str)] = &[
        ("1 +", "1", "Missing expression@1:4-1:4"),
        ("1 +\n", "1", "Missing expression@2:1-2:1"),
        ("", "INVALID", "Missing expression@1:1-1:1"),
        ("1 2", "1", "Extra characters after expression@1:3-1:4"),
        (
            "a & b",
            "(trav a)",
            "Unsupported operator@1:3-1:4; Extra characters after expression@1:3-1:4",
        ),
        ("(1\n+\n2)", "(paren (+ 1 2))", ""),
    ];
    for (src, want_tree, want_diags) in cases {
        let (got, diags) = expr(src);
        assert_eq!(
            (got.as_str(), diags.as_str()),
            (*want_tree, *want_diags),
            "for {src:?}"
        );
    }
}

/// An outline of a body: attributes as `name=expr`, blocks as
/// `type "label" { ... }`.
fn outline(body: &Body) -> String {
    match body {
        Body::Native(b) => {
            let mut items: Vec<(u32, String)> = Vec::new();
            for a in &b.attributes {
                items.push((a.span.start, format!("{}={}", a.name, sexpr(&a.expr))));
            }
            for bl in &b.blocks {
                let mut s = bl.block_type.clone();
                for (l, _) in &bl.labels {
                    let _ = write!(s, " {l:?}");
                }
                let _ = write!(s, " {{{}}}", outline(&bl.body));
                items.push((bl.span.start, s));
            }
            items.sort_by_key(|i| i.0);
            items.into_iter().map(|i| i.1).collect::<Vec<_>>().join(" ")
        }
        Body::Json(j) => format!("json:{}", j.properties.len()),
    }
}

fn native(src: &str) -> (String, String) {
    let (file, diags) = parse_native_file("main.tf", src);
    (outline(&file.body), diags_str(&diags))
}

#[test]
fn bodies() {
    let cases: &[(&str, &str)] = &[
        ("", ""),
        ("a = 1\n", "a=1"),
        ("a = 1", "a=1"),
        ("a = 1 # c\nb = 2 // d\n/* e */ c = 3", "a=1 b=2 c=3"),
        ("# only a comment", ""),
        ("resource \"aws_instance\" \"web\" {\n  ami = \"x\"\n}\n", "resource \"aws_instance\" \"web\" {ami=(tmpl \"x\")}"),
        ("locals {}\n", "locals {}"),
        ("a b c {\n}\n", "a \"b\" \"c\" {}"),
        ("a \"b\" c {}\n", "a \"b\" \"c\" {}"),
        ("x { y = 1 }\n", "x {y=1}"),
        ("x \"\\u00e9\" {}\n", "x \"é\" {}"),
        (
            "terraform {\n  required_providers {\n    aws = {\n      source = \"hashicorp/aws\"\n    }\n  }\n}\n",
            "terraform {required_providers {aws={source=(tmpl \"hashicorp/aws\")}}}",
        ),
        (
            "variable \"v\" {\n  type = list(object({\n    a = string\n  }))\n  default = []\n}\n",
            "variable \"v\" {type=(call list (call object {a=(trav string)})) default=[]}",
        ),
        ("a = <<EOT\nx\nEOT\nb = 2\n", "a=(heredoc \"x\\n\") b=2"),
        ("a = 1\r\nb {\r\n  c = 2\r\n}\r\n", "a=1 b {c=2}"),
        ("\u{FEFF}a = 1\n", "a=1"),
    ];
    for (src, want) in cases {
        let (got, diags) = native(src);
        assert_eq!(diags, "", "unexpected diagnostics for {src:?}");
        assert_eq!(got, *want, "for {src:?}");
    }
}

/// Diagnostics as `terraform validate -json` prints them: an empty range
/// is widened to one column.
fn tf_diags_str(diags: &[Diagnostic]) -> String {
    diags
        .iter()
        .map(|d| match &d.subject {
            Some(r) => {
                let end_col = if r.start.byte == r.end.byte {
                    r.end.column + 1
                } else {
                    r.end.column
                };
                format!(
                    "{}@{}:{}-{}:{}",
                    d.summary, r.start.line, r.start.column, r.end.line, end_col
                )
            }
            None => d.summary.clone(),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[test]
fn body_errors() {
    // (file, outline, diagnostics): the diagnostics are those `terraform
    // validate -json` reports, less the ones from decoding.
    let cases: &[(&str, &str, &str)] = &[
        ("locals {\n  a = 1 /* foo\n}\n", "locals {a=1}", "Invalid expression@2:10-2:11"),
        ("provider \"aws\" {\n  region = \n}\n", "provider \"aws\" {region=INVALID}", "Invalid expression@2:12-3:1"),
        ("locals {\n  a = 1\n  b = 2 c\n  d {\n  }\n}\n", "locals {a=1 b=2 d {}}", "Missing newline after argument@3:9-3:10"),
        ("a = 1,\nb = 2\n", "a=1 b=2", "Unexpected comma after argument@1:6-1:7"),
        ("resource \"a\" \"b\"\n{\n}\n", "resource \"a\" \"b\" {}", "Invalid block definition@1:17-2:1"),
        ("resource \"a\" \"b\" {\n  x = 1\n", "resource \"a\" \"b\" {x=1}", "Unclosed configuration block@1:18-1:19"),
        ("a {\n  b = 1\n}\na {\n  b = 1 +\n}\n", "a {b=1} a {b=1}", "Invalid expression@5:10-6:1"),
        ("a = 1\na = 2\n", "a=1", "Attribute redefined@2:1-2:2"),
        ("a = <<EOT\nfoo\n", "a=(heredoc \"foo\\n\")", "Unterminated template string@3:1-3:2"),
        ("a = <<EOT\nfoo\nEOT", "a=(heredoc \"foo\\nEOT\")", "Unterminated template string@3:4-3:5"),
        ("b = ", "b=INVALID", "Missing expression@1:5-1:6"),
        ("\"a\" = 1\n", "", "Invalid argument name@1:1-1:2"),
        ("a\n", "", "Argument or block definition required@1:1-1:2"),
        ("a = 1\n}\nb = 2\n", "a=1", "Argument or block definition required@2:1-2:2"),
        ("x = 1\n[\n", "x=1", "Argument or block definition required@2:1-2:2"),
        ("a = {\n", "a={}", "Missing expression@2:1-2:2"),
        ("a b = 1\n", "a \"b\" {}", "Invalid block definition@1:5-1:6"),
        ("a \"b\" 1 {}\n", "a \"b\" {}", "Invalid block definition@1:7-1:8"),
        ("a { b = 1, c = 2 }\n", "a {b=1}", "Invalid single-argument block definition@1:10-1:11"),
        ("a { b = 1\n}\n", "a {b=1}", "Invalid single-argument block definition@1:10-2:1"),
        ("a { b c }\n", "a {}", "Argument definition required@1:5-1:8"),
        ("a { b = 1 } c = 2\n", "a {b=1}", "Missing newline after block definition@1:13-1:14"),
        ("a \"${b}\" {}\n", "a \"${ ... }\" {}", "Invalid string literal@1:4-1:6"),
        ("a { b = 1", "a {b=1}", "Unclosed configuration block@1:3-1:4"),
        ("a = \"x\"\nb = \"y\n", "a=(tmpl \"x\") b=(tmpl \"y\")", "Invalid multi-line string@2:7-3:1; Unterminated template string@2:7-3:1"),
        ("locals {\n  a = \"abc\\\n\"\n}\n", "locals {a=(tmpl \"abc\")}", "Invalid character@2:11-2:12; Invalid multi-line string@2:12-3:1; Unterminated template string@2:11-2:12"),
        ("a = 1 ; b = 2\n", "a=1", "Invalid character@1:7-1:8; Missing newline after argument@1:7-1:8"),
        ("a = 1\tb = 2\n", "a=1", "Missing newline after argument@1:7-1:8"),
        ("a = <<EOT\nx\rEOT\n", "a=(heredoc \"x\")", "Invalid character@2:2-3:1; Unterminated template string@2:2-3:1"),
        ("a = \"\\\"", "a=(tmpl \"\\\"\")", "Unterminated template string@1:8-1:9"),
        ("a {\n  b = \"x\"\n  b = \"y\"\n}\n", "a {b=(tmpl \"x\")}", "Attribute redefined@3:3-3:4"),
        ("a = \"%{ if x }\"\n", "a=(tmpl ${INVALID})", "Unexpected end of template@1:15-1:16"),
        ("a = [for x in y: x if]\n", "a=INVALID", "Invalid expression@1:22-1:23"),
        ("a = 1.2.3.4\n", "a=INVALID", "Invalid number literal@1:5-1:12"),
        ("a = foo.0.0.bar\n", "a=(trav foo [INVALID] .bar)", "Invalid legacy index syntax@1:9-1:12"),
        ("a = foo.*.0.0\n", "a=(attrsplat (trav foo) (rel _ [INVALID]))", "Invalid legacy index syntax@1:9-1:10"),
        ("a = f(x, y...)\n", "a=(call f (trav x) (trav y) ...)", ""),
        ("a \"\" {}\n", "a \"\" {}", ""),
        ("a = 1 # comment with ; ' `\n", "a=1", ""),
        ("a = \"“\"\n", "a=(tmpl \"“\")", ""),
        ("a = “x”\n", "a=INVALID", "Invalid character@1:5-1:6; Invalid character@1:7-1:8; Invalid expression@1:5-1:6"),
        ("a = 1 & 2 & 3 & 4 & 5 & 6\n", "a=1", "Unsupported operator@1:7-1:8; Unsupported operator@1:11-1:12; Unsupported operator@1:15-1:16; Unsupported operator@1:19-1:20; Missing newline after argument@1:7-1:8"),
        ("a = `x` + `y` + `z`\n", "a=INVALID", "Invalid character@1:5-1:6; Invalid character@1:11-1:12; Invalid expression@1:5-1:6"),
        ("a = 'x' + 'y' + 'z'\n", "a=INVALID", "Invalid character@1:5-1:6; Invalid character@1:11-1:12; Invalid expression@1:5-1:6"),
        ("a = 1;b = 2;c = 3\n", "a=1", "Invalid character@1:6-1:7; Missing newline after argument@1:6-1:7"),
    ];
    let mut failures = Vec::new();
    for (src, want_tree, want_diags) in cases {
        let (file, diags) = parse_native_file("main.tf", src);
        let (got, diags) = (outline(&file.body), tf_diags_str(&diags));
        if (got.as_str(), diags.as_str()) != (*want_tree, *want_diags) {
            failures.push(format!(
                "{src:?}\n   got  {got:?} {diags:?}\n   want {want_tree:?} {want_diags:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn spans_cover_source_text() {
    let src = "a = f(x, [1, 2])[0].b + (c ? \"s\" : d)\n";
    let (file, diags) = parse_native_file("main.tf", src);
    assert!(diags.is_empty());
    let Body::Native(body) = &file.body else {
        panic!("native body expected")
    };
    let attr = &body.attributes[0];
    let slice = |sp: crate::Span| &src[sp.start as usize..sp.end as usize];
    assert_eq!(slice(attr.span), "a = f(x, [1, 2])[0].b + (c ? \"s\" : d)");
    assert_eq!(slice(attr.name_span), "a");
    let ExprKind::Binary { first: lhs, rest } = &attr.expr.kind else {
        panic!("binary expected")
    };
    let [operand] = rest.as_slice() else {
        panic!("one operator expected")
    };
    assert_eq!(slice(operand.op_span), "+");
    assert_eq!(slice(lhs.span), "f(x, [1, 2])[0].b");
    assert_eq!(slice(operand.rhs.span), "(c ? \"s\" : d)");
    let ExprKind::RelativeTraversal { source, steps } = &lhs.kind else {
        panic!("relative traversal expected")
    };
    assert_eq!(slice(source.span), "f(x, [1, 2])");
    assert_eq!(slice(steps[0].span()), "[0]");
    assert_eq!(slice(steps[1].span()), ".b");
    let ExprKind::FunctionCall {
        name_span, args, ..
    } = &source.kind
    else {
        panic!("call expected")
    };
    assert_eq!(slice(*name_span), "f");
    assert_eq!(slice(args[1].span), "[1, 2]");

    let src = "b \"l\" {\n  x = <<-EOT\n    hi ${y}\n  EOT\n}\n";
    let (file, _) = parse_native_file("main.tf", src);
    let Body::Native(body) = &file.body else {
        panic!("native body expected")
    };
    let block = &body.blocks[0];
    assert_eq!(
        &src[block.span.start as usize..block.span.end as usize],
        &src[..src.len() - 1]
    );
    assert_eq!(
        &src[block.labels[0].1.start as usize..block.labels[0].1.end as usize],
        "\"l\""
    );
    let Body::Native(inner) = &block.body else {
        panic!("native body expected")
    };
    let x = &inner.attributes[0];
    assert_eq!(slice_of(src, x.expr.span), "<<-EOT\n    hi ${y}\n  EOT");
    let ExprKind::Template(t) = &x.expr.kind else {
        panic!("template expected")
    };
    let TemplatePart::Literal { span, text } = &t.parts[0] else {
        panic!("literal expected")
    };
    assert_eq!(text, "hi ");
    assert_eq!(slice_of(src, *span), "hi ");
}

fn slice_of(src: &str, sp: crate::Span) -> &str {
    &src[sp.start as usize..sp.end as usize]
}

#[test]
fn traversals() {
    let cases: &[(&str, bool, &str, &str)] = &[
        ("aws.west", false, "aws .west", ""),
        ("a.b[0][\"k\"]", false, "a .b [0] [(tmpl \"k\")]", ""),
        ("a[*].b", true, "a * .b", ""),
        ("a[*].b", false, "a", "Attribute name required@1:3-1:4"),
        ("a.*", false, "a", "Attribute name required@1:3-1:4"),
        ("a[x]", false, "a", "Index value required@1:3-1:4"),
        ("a[0", false, "a [0]", "Unclosed index brackets@1:4-1:4"),
        ("1", false, "-", "Variable name required@1:1-1:2"),
        ("a b", false, "a", "Invalid character@1:3-1:4"),
        ("a.", false, "a", "Attribute name required@1:3-1:3"),
    ];
    for (src, splat, want, want_diags) in cases {
        let source = SourceFile::new("t", *src);
        let (t, diags) = parse_traversal(&source, *splat);
        let got = match t {
            None => "-".to_string(),
            Some(t) => {
                let mut s = t.root.clone();
                for st in &t.steps {
                    match st {
                        crate::PartialStep::Step(st) => write_step(&mut s, st),
                        crate::PartialStep::Splat { .. } => s.push_str(" *"),
                    }
                }
                s
            }
        };
        assert_eq!(
            (got.as_str(), diags_str(&diags).as_str()),
            (*want, *want_diags),
            "for {src:?}"
        );
    }
}

fn json(src: &str) -> (String, String) {
    let (file, diags) = parse_json_file("main.tf.json", src);
    let Body::Json(body) = &file.body else {
        return ("not json".into(), diags_str(&diags));
    };
    let props = body
        .properties
        .iter()
        .map(|p| {
            let (e, d) = crate::json_value_to_expr(&file.source, &p.value);
            let mut s = format!("{}={}", p.name, sexpr(&e));
            if !d.is_empty() {
                let _ = write!(s, "!{}", diags_str(&d));
            }
            s
        })
        .collect::<Vec<_>>()
        .join(" ");
    (props, diags_str(&diags))
}

#[test]
fn json_files() {
    let cases: &[(&str, &str, &str)] = &[
        ("{}", "", ""),
        ("{\"a\": 1, \"b\": [true, null, -2.5e3], \"c\": {\"d\": \"e\"}}", "a=1 b=[true null -2.5e3] c={<(tmpl json \"d\")>=(tmpl json \"e\")}", ""),
        ("{\"a\": \"${var.x}\"}", "a=(wrap (trav var .x))", ""),
        ("{\"a\": \"x-${var.x}\"}", "a=(tmpl json \"x-\" ${(trav var .x)})", ""),
        ("{\"a\": \"\\\"${b}\\n\"}", "a=(tmpl json \"\\\"\" ${(trav b)} \"\\n\")", ""),
        ("[{\"a\": 1}, {\"b\": 2}]", "a=1 b=2", ""),
        ("{\"a\": 1, \"a\": 2}", "a=1 a=2", ""),
        ("{\n  \"locals\": {\n    \"a\": 1,\n  }\n}\n", "locals=INVALID", "Trailing comma in object@3:11-3:12"),
        ("// c\n{}\n", "", "Invalid start of value@1:1-1:2; Root value must be object@1:1-1:2"),
        ("[{\"locals\": {\"a\": 1}}, 2]", "locals={a=1}".replace("a=1", "<(tmpl json \"a\")>=1").leak(), "Incorrect JSON value type@1:24-1:25"),
        ("\"x\"", "", "Root value must be object@1:1-1:4"),
        ("{\"a\": 1} x", "a=1", "Extraneous data after value@1:10-1:11"),
        ("{\"a\" 1}", "", "Missing property value colon@1:6-1:7; Root value must be object@1:1-1:2"),
        ("{\"a\" = 1}", "", "Missing property value colon@1:6-1:7; Root value must be object@1:1-1:2"),
        ("{\"a\": True}", "a=INVALID", "Invalid JSON keyword@1:7-1:11"),
        ("{\"a\": NaN}", "a=INVALID", "Invalid JSON keyword@1:7-1:10"),
        ("{\"a\": 01}", "a=INVALID", "Invalid JSON number@1:7-1:9"),
        ("{\"a\": \"\\q\"}", "a=INVALID", "Invalid JSON string@1:10-1:11"),
        ("{\"a\": [1 2]}", "a=INVALID", "Missing attribute seperator comma@1:12-1:13"),
        ("{\"a\": [1,]}", "", "Trailing comma in array@1:9-1:10; Mismatched braces@1:11-1:12; Root value must be object@1:1-1:2"),
        ("{\"a\": 1", "", "Unclosed object@1:1-1:2; Root value must be object@1:1-1:2"),
        ("{1: 2}", "", "Invalid object property name@1:2-1:3; Root value must be object@1:1-1:2"),
        ("", "", "Missing value@1:1-1:1; Root value must be object@1:1-1:1"),
        ("{\"a\": \"${1 +}\"}", "a=(wrap 1)!Invalid expression@1:13-1:14", ""),
        ("{\"a\": \"\\u0041${1 +}\"}", "a=(tmpl json \"A\" ${1})!Invalid expression@1:19-1:20", ""),
    ];
    for (src, want, want_diags) in cases {
        let (got, diags) = json(src);
        assert_eq!(
            (got.as_str(), diags.as_str()),
            (*want, *want_diags),
            "for {src:?}"
        );
    }
}

#[test]
fn json_errors_match_terraform() {
    // The parse diagnostics `terraform validate -json` reports (it widens
    // an empty range by one column, and repeats root-level complaints).
    // One difference: for a string cut short by a newline HCL counts the
    // error column past the end of the line; here the range ends on the
    // next line, where the byte after the newline is.
    let cases: &[(&str, &str)] = &[
        ("{\n  \"locals\": {\n    \"a\": 1,\n  }\n}\n", "Trailing comma in object@3:11-3:12"),
        ("// c\n{}\n", "Invalid start of value@1:1-1:2; Root value must be object@1:1-1:2"),
        ("\"x\"", "Root value must be object@1:1-1:4"),
        ("{\"locals\": {}} x", "Extraneous data after value@1:16-1:17"),
        ("{\"a\" 1}", "Missing property value colon@1:6-1:7; Root value must be object@1:1-1:2"),
        ("{\"a\" = 1}", "Missing property value colon@1:6-1:7; Root value must be object@1:1-1:2"),
        ("{\"locals\": {\"a\": True}}", "Invalid JSON keyword@1:18-1:22"),
        ("{\"locals\": {\"a\": NaN}}", "Invalid JSON keyword@1:18-1:21"),
        ("{\"locals\": {\"a\": 01}}", "Invalid JSON number@1:18-1:20"),
        ("{\"locals\": {\"a\": [1 2]}}", "Missing attribute seperator comma@1:23-1:24"),
        ("{\"a\": 1", "Unclosed object@1:1-1:2; Root value must be object@1:1-1:2"),
        ("{1: 2}", "Invalid object property name@1:2-1:3; Root value must be object@1:1-1:2"),
        ("", "Missing value@1:1-1:2; Root value must be object@1:1-1:2"),
        ("{\"locals\": {\"a\": nul}}", "Invalid JSON keyword@1:18-1:21"),
        ("{\"locals\": {\"a\": \"x\ny\"}}", "Invalid JSON string@1:20-2:1; Missing attribute seperator comma@2:5-2:6; Unclosed object@1:1-1:2; Root value must be object@1:1-1:2"),
        ("{\"locals\": {\"a\": [1}}", "Mismatched brackets@1:22-1:23; Unclosed object@1:12-1:13; Unclosed object@1:1-1:2; Root value must be object@1:1-1:2"),
        ("{\"locals\": {\"a\": {\"b\": 1]}}", "Mismatched braces@1:26-1:27"),
        ("{\"locals\": {\"a\": [1: 2]}}", "Invalid array value@1:24-1:25"),
        ("{\"locals\": {\"a\":}}", "Missing JSON value@1:17-1:18"),
        ("{\"locals\": {\"a\": ]}}", "Missing array element value@1:18-1:19; Mismatched braces@1:19-1:20"),
        ("{\"locals\" 1, \"b\": 2}", "Missing property value colon@1:11-1:12; Root value must be object@1:1-1:2"),
        ("{\"locals\": {\"a\": \"\\u12\"}}", "Invalid JSON string@1:24-1:25"),
        ("[1]", "Incorrect JSON value type@1:2-1:3"),
        ("{\"locals\": {\"a\": -}}", "Invalid JSON number@1:18-1:19"),
        ("{\"locals\": {\"a\": 1.}}", "Invalid JSON number@1:18-1:20"),
    ];
    let mut failures = Vec::new();
    for (src, want) in cases {
        let (_, diags) = parse_json_file("main.tf.json", src);
        let got = tf_diags_str(&diags);
        if got != *want {
            failures.push(format!("{src:?}\n   got  {got:?}\n   want {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn json_string_helpers() {
    let (file, _) = parse_json_file(
        "m.tf.json",
        "{\"p\": \"aws.west\", \"t\": \"list(string)\", \"n\": 1}",
    );
    let Body::Json(body) = &file.body else {
        panic!("json body expected")
    };
    let trav = crate::json_string_as_traversal(&file.source, &body.properties[0].value, false);
    let Some((Some(t), diags)) = trav else {
        panic!("traversal expected")
    };
    assert!(diags.is_empty());
    assert_eq!(t.root, "aws");
    let sp = t.root_span;
    assert_eq!(&file.source.text[sp.start as usize..sp.end as usize], "aws");
    let Some((e, diags)) =
        crate::json_string_as_expression(&file.source, &body.properties[1].value)
    else {
        panic!("expression expected")
    };
    assert!(diags.is_empty());
    assert_eq!(sexpr(&e), "(call list (trav string))");
    assert!(crate::json_string_as_expression(&file.source, &body.properties[2].value).is_none());
}

/// A deterministic xorshift generator, so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn random_input_never_panics() {
    const PIECES: &[&str] = &[
        "a",
        "b",
        "var",
        "for",
        "in",
        "if",
        "endif",
        "endfor",
        "else",
        "true",
        "null",
        "1",
        "0.5",
        "1e3",
        "1.2.3",
        "=",
        "==",
        "!=",
        "<",
        "<=",
        ">",
        ">=",
        "+",
        "-",
        "*",
        "/",
        "%",
        "&&",
        "||",
        "!",
        "?",
        ":",
        "::",
        "...",
        "=>",
        ".",
        ",",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "\"",
        "${",
        "%{",
        "~}",
        "~",
        "$${",
        "%%{",
        "\\",
        "\\u",
        "\\n",
        "<<EOT\n",
        "<<-EOT\n",
        "EOT\n",
        "  EOT\n",
        "\n",
        "\r\n",
        "\r",
        " ",
        "\t",
        "#",
        "//",
        "/*",
        "*/",
        "'",
        "`",
        ";",
        "&",
        "|",
        "^",
        "é",
        "\u{201C}",
        "[*]",
        ".*",
        ".0",
        "\u{0}",
        "\u{FEFF}",
        "{\"a\":",
        "[1,",
        "\"\\ud800\"",
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for case in 0..20_000 {
        let mut input: Vec<u8> = Vec::new();
        let len = rng.below(if case % 10 == 0 { 300 } else { 40 });
        if case % 2 == 0 {
            for _ in 0..len {
                input.extend_from_slice(PIECES[rng.below(PIECES.len())].as_bytes());
            }
        } else {
            for _ in 0..len {
                input.push(rng.next() as u8);
            }
        }
        crate::fuzz_one(&input);
    }
}

#[test]
fn large_input_parses_linearly() {
    let mut src = String::new();
    for i in 0..10_000 {
        let _ = writeln!(
            src,
            "resource \"aws_instance\" \"r{i}\" {{\n  ami = \"ami-${{var.x[{i}]}}\"\n  tags = {{ Name = \"n{i}\", n = {i} + 1 }}\n}}"
        );
    }
    let (file, diags) = parse_native_file("big.tf", &src);
    assert!(diags.is_empty());
    let Body::Native(body) = &file.body else {
        panic!("native body expected")
    };
    assert_eq!(body.blocks.len(), 10_000);
}

/// A chain of binary operators is as long as the input makes it, without a
/// limit and without recursion per operator: parsed, cloned, compared and
/// dropped on a small stack. Operators of one precedence level share one
/// flat chain; a lower level takes the chain so far as its first operand.
#[test]
fn long_operator_chains_are_flat() {
    let terms = 100_000;
    let h = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            let src = vec!["1"; terms].join(" + ");
            let file = SourceFile::new("chain.tf", src.as_str());
            let (e, diags) = parse_expression(&file);
            assert!(diags.is_empty(), "{diags:?}");
            let ExprKind::Binary { first, rest } = &e.kind else {
                panic!("binary expected")
            };
            assert_eq!(sexpr(first), "1");
            assert_eq!(rest.len(), terms - 1);
            assert!(rest.iter().all(|o| o.op == BinaryOp::Add));
            assert_eq!(e.span.len(), src.len());
            let copy = e.clone();
            assert!(copy == e);
            drop((copy, e));

            let src = "a || b && c == d < e + f * g + h - i * j / k == l || m";
            let (e, diags) = expr(src);
            assert_eq!(diags, "");
            assert_eq!(
                e,
                "(|| (|| (trav a) (&& (trav b) (== (== (trav c) (< (trav d) (- (+ (+ (trav e) (* (trav f) (trav g))) (trav h)) (/ (* (trav i) (trav j)) (trav k))))) (trav l)))) (trav m))"
            );
        });
    let outcome = h.map(|h| h.join());
    assert!(matches!(outcome, Ok(Ok(()))), "{outcome:?}");
}

/// Template directives nested past the limit: one "Nesting too deep",
/// not also one "Unexpected end of template" per directive left open.
#[test]
fn deep_template_directives_report_the_limit_once() {
    for (open, close) in [("%{if a}", "%{endif}"), ("%{for x in a}", "%{endfor}")] {
        let depth = 200;
        let src = format!("x = \"{}y{}\"\n", open.repeat(depth), close.repeat(depth));
        let h = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                let (_, diags) = parse_native_file("m.tf", &src);
                diags.iter().map(|d| d.summary.clone()).collect::<Vec<_>>()
            });
        match h.map(|h| h.join()) {
            Ok(Ok(summaries)) => assert_eq!(summaries, ["Nesting too deep"], "{open}"),
            other => panic!("{open}: {other:?}"),
        }
    }
}

/// Deep nesting of every recursive construct, at and past the limit, in a
/// thread with a small (2 MiB) stack: no stack overflow, and the limit is
/// reported past it.
#[test]
fn deep_nesting_is_bounded() {
    let n = crate::parser::MAX_NESTING as usize;
    let forms: Vec<Box<dyn Fn(usize) -> String + Send>> = vec![
        Box::new(|d| format!("x = {}1{}\n", "[".repeat(d), "]".repeat(d))),
        Box::new(|d| format!("x = {}1{}\n", "{a = ".repeat(d), "}".repeat(d))),
        Box::new(|d| format!("x = {}1{}\n", "(".repeat(d), ")".repeat(d))),
        Box::new(|d| format!("x = {}1{}\n", "f(".repeat(d), ")".repeat(d))),
        Box::new(|d| format!("x = {}1\n", "-".repeat(d))),
        Box::new(|d| format!("x = {}1\n", "a ? b : ".repeat(d))),
        Box::new(|d| format!("x = {}1{}\n", "\"${".repeat(d), "}\"".repeat(d))),
        Box::new(|d| format!("x = \"{}{}\"\n", "%{if a}".repeat(d), "%{endif}".repeat(d))),
        Box::new(|d| format!("x = a{}\n", "[*]".repeat(d))),
        Box::new(|d| format!("x = a{}\n", "[b]".repeat(d))),
        // Two levels per repetition: the index, then the attribute of it.
        Box::new(|d| format!("x = a{}\n", "[b].c".repeat(d / 2))),
        Box::new(|d| format!("x = {}a\n", "!".repeat(d))),
        Box::new(|d| {
            format!(
                "x = \"{}{}\"\n",
                "%{for a in b}".repeat(d),
                "%{endfor}".repeat(d)
            )
        }),
        Box::new(|d| format!("{}{}\n", "a {\n".repeat(d), "}\n".repeat(d))),
        Box::new(|d| {
            format!(
                "x = [for a in b: {}1{}]\n",
                "[for a in b: ".repeat(d),
                "]".repeat(d)
            )
        }),
    ];
    for (i, form) in forms.into_iter().enumerate() {
        let h = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                let (_, ok) = parse_native_file("m.tf", &form(n - 4));
                let (_, deep) = parse_native_file("m.tf", &form(n * 4));
                // Far past the limit the tree stays as shallow as the limit
                // allows: cloning, comparing and dropping it is safe too.
                let (very_deep_tree, very_deep) = parse_native_file("m.tf", &form(20_000));
                let copy = very_deep_tree.body.clone();
                assert!(copy == very_deep_tree.body);
                drop((copy, very_deep_tree));
                (
                    ok.iter().any(|d| d.summary == "Nesting too deep"),
                    deep.iter().any(|d| d.summary == "Nesting too deep")
                        && very_deep.iter().any(|d| d.summary == "Nesting too deep"),
                )
            });
        let r = h.map(|h| h.join());
        assert!(matches!(r, Ok(Ok((false, true)))), "form {i}: {r:?}");
    }
    let json_form = |d: usize| format!("{{\"a\": {}1{}}}", "[".repeat(d), "]".repeat(d));
    let h = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let (_, ok) = parse_json_file("m.tf.json", &json_form(n - 2));
            let (_, deep) = parse_json_file("m.tf.json", &json_form(n * 4));
            (
                ok.is_empty(),
                deep.iter().any(|d| d.summary == "Nesting too deep"),
            )
        });
    assert!(matches!(h.map(|h| h.join()), Ok(Ok((true, true)))));
}

fn binary_op_text(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Or => "||",
        BinaryOp::And => "&&",
        BinaryOp::Equal => "==",
        BinaryOp::NotEqual => "!=",
        BinaryOp::Greater => ">",
        BinaryOp::GreaterOrEqual => ">=",
        BinaryOp::Less => "<",
        BinaryOp::LessOrEqual => "<=",
        BinaryOp::Add => "+",
        BinaryOp::Subtract => "-",
        BinaryOp::Multiply => "*",
        BinaryOp::Divide => "/",
        BinaryOp::Modulo => "%",
    }
}
