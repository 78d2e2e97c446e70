//! Long operator chains evaluate whatever their length, as Terraform
//! evaluates them, and deeply nested expressions of every kind end in a
//! diagnostic, never in a stack overflow. Everything runs on threads with
//! the stack size of the engine's workers (2 MiB) or smaller, in debug
//! builds, where frames are largest.

use terrace_lang::eval::evaluate;
use terrace_lang::scope::MapScope;
use terrace_syntax::ast::SourceFile;
use terrace_syntax::parse_expression;
use terrace_value::{Marks, Value};

/// Parses and evaluates `src` on a thread with `stack` bytes of stack;
/// returns the rendered value and the diagnostics' summaries.
fn eval_on_stack(src: String, stack: usize) -> (String, Vec<String>) {
    let handle = std::thread::Builder::new()
        .stack_size(stack)
        .spawn(move || {
            let file = SourceFile::new("x.tf", src.as_str());
            let (expr, mut diags) = parse_expression(&file);
            let scope = MapScope::new()
                .with("n", Value::number(terrace_value::Number::from_i64(1)))
                .with("t", Value::bool(true))
                .with("secret", Value::bool(true).with_marks(Marks::SENSITIVE));
            let (value, eval_diags) = evaluate(&expr, &file, &scope);
            diags.extend(eval_diags);
            let rendered = if !value.is_known() || value.is_marked() {
                format!("unknown or marked: {:?}", value.ty())
            } else if let Some(n) = value.as_number() {
                n.to_string()
            } else if let Some(b) = value.as_bool() {
                b.to_string()
            } else {
                format!("{value:?}")
            };
            (
                rendered,
                diags.iter().map(|d| d.summary.clone()).collect::<Vec<_>>(),
            )
        });
    match handle.map(|h| h.join()) {
        Ok(Ok(outcome)) => outcome,
        other => panic!("evaluation thread failed: {:?}", other.map(|r| r.is_ok())),
    }
}

fn chain(term: &str, op: &str, terms: usize) -> String {
    vec![term; terms].join(op)
}

#[test]
fn long_operator_chains_evaluate_without_a_limit() {
    let terms = 20_000;
    let (sum, diags) = eval_on_stack(chain("1", " + ", terms), 512 << 10);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(sum, "20000");

    let (difference, diags) = eval_on_stack(chain("n", " - ", terms), 512 << 10);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(difference, "-19998");

    // Two precedence levels: a chain of sums whose operands are products.
    let (mixed, diags) = eval_on_stack(chain("2 * 3", " + ", terms), 512 << 10);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(mixed, "120000");

    let (all, diags) = eval_on_stack(chain("t", " && ", terms), 512 << 10);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(all, "true");

    let (compare, diags) = eval_on_stack(
        format!("{} == {terms}", chain("1", " + ", terms)),
        512 << 10,
    );
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(compare, "true");

    // A mark anywhere in the chain reaches the result.
    let (marked, diags) = eval_on_stack(
        format!("{} && secret", chain("t", " && ", terms)),
        512 << 10,
    );
    assert!(diags.is_empty(), "{diags:?}");
    assert!(marked.starts_with("unknown or marked"), "{marked}");
}

/// An error in one operand of a chain is reported once, and every step
/// after it yields an unknown value instead of failing again, as HCL's
/// nested operator expressions behave.
#[test]
fn an_error_inside_a_chain_is_reported_once() {
    let (value, diags) = eval_on_stack(
        format!(
            "{} + \"x\" + {}",
            chain("1", " + ", 500),
            chain("1", " + ", 500)
        ),
        2 << 20,
    );
    assert_eq!(diags, vec!["Invalid operand".to_string()]);
    assert!(value.starts_with("unknown or marked"), "{value}");
}

/// Every kind of real nesting, far past the parser's limit: a "Nesting too
/// deep" diagnostic, no crash, and the tree left behind evaluates.
#[test]
fn deep_nesting_of_every_kind_is_refused_without_a_crash() {
    let depth = 20_000;
    let forms: Vec<(&str, String)> = vec![
        (
            "parentheses",
            format!("{}1{}", "(".repeat(depth), ")".repeat(depth)),
        ),
        (
            "tuples",
            format!("{}1{}", "[".repeat(depth), "]".repeat(depth)),
        ),
        (
            "objects",
            format!("{}1{}", "{a = ".repeat(depth), "}".repeat(depth)),
        ),
        (
            "function calls",
            format!("{}1{}", "abs(".repeat(depth), ")".repeat(depth)),
        ),
        (
            "templates",
            format!("{}1{}", "\"${".repeat(depth), "}\"".repeat(depth)),
        ),
        (
            "template directives",
            format!(
                "\"{}x{}\"",
                "%{if true}".repeat(depth),
                "%{endif}".repeat(depth)
            ),
        ),
        ("conditionals", format!("{}1", "t ? 1 : ".repeat(depth))),
        ("negations", format!("{}1", "-".repeat(depth))),
        ("logical nots", format!("{}true", "!".repeat(depth))),
        (
            "for expressions",
            format!("{}[1]{}", "[for x in ".repeat(depth), " : x]".repeat(depth)),
        ),
        ("indexes", format!("[1]{}", "[n - 1]".repeat(depth))),
        ("full splats", format!("[1]{}", "[*]".repeat(depth))),
        (
            "operators of every level",
            format!(
                "{}1{}",
                "1 || 1 && 1 == 1 < 1 + 1 * -(".repeat(depth / 8),
                ")".repeat(depth / 8)
            ),
        ),
    ];
    for (kind, src) in forms {
        let (_, diags) = eval_on_stack(src, 2 << 20);
        assert!(
            diags.iter().any(|d| d == "Nesting too deep"),
            "{kind}: {diags:?}"
        );
    }
}
