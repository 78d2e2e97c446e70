//! The "├── var.x is \"a\"" lines under the source excerpt of the
//! engine's own diagnostics (conditions, `for_each`, `count`): the values of
//! the expression's references in the scope it was evaluated in, described
//! by terrace-lang's `diagvalues`.

use terrace_config::expr::Expression;
use terrace_lang::diagvalues::reference_values;
pub(crate) use terrace_lang::diagvalues::CausedBy;
use terrace_lang::scope::Scope;
use terrace_syntax::diagnostic::has_errors;

/// The references in `expr` with their values in `scope`.
pub(crate) fn expression_values(expr: &Expression, scope: &dyn Scope) -> Vec<(String, String)> {
    expression_values_caused_by(expr, scope, CausedBy::default())
}

/// [`expression_values`] for a diagnostic caused by an ephemeral value:
/// references to ephemeral values are named, as terraform does then,
/// without their values.
pub(crate) fn expression_values_naming_ephemeral(
    expr: &Expression,
    scope: &dyn Scope,
) -> Vec<(String, String)> {
    expression_values_caused_by(
        expr,
        scope,
        CausedBy {
            ephemeral: true,
            ..CausedBy::default()
        },
    )
}

/// [`expression_values`] for a diagnostic caused by unknown, sensitive or
/// ephemeral values: those are described too.
pub(crate) fn expression_values_caused_by(
    expr: &Expression,
    scope: &dyn Scope,
    caused: CausedBy,
) -> Vec<(String, String)> {
    let (syntax, _) = expr.evaluable();
    let file = expr.file();
    reference_values(syntax, file, caused, &mut |prefix| {
        let (value, diags) = terrace_lang::eval::evaluate(prefix, file, scope);
        (!has_errors(&diags)).then_some(value)
    })
}
