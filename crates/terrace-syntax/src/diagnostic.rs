//! The one diagnostic model shared by every layer. Renderers (human with a
//! source excerpt, `-no-color`, `-json`) live with the CLI; this is only data.

use crate::pos::{Pos, Span};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

/// A source range with its file name and resolved start/end positions, as HCL's
/// `hcl.Range` is: line/column are precomputed so a diagnostic can be rendered
/// without re-scanning the file.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct SourceRange {
    pub filename: String,
    pub start: Pos,
    pub end: Pos,
}

impl SourceRange {
    pub fn span(&self) -> Span {
        Span {
            start: self.start.byte,
            end: self.end.byte,
        }
    }
}

/// HCL's `Range.String()`, which messages embed: `file:line,col-endcol`,
/// or `file:line,col-endline,endcol` when the range spans lines.
impl fmt::Display for SourceRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (start, end) = (&self.start, &self.end);
        if start.line == end.line {
            write!(
                f,
                "{}:{},{}-{}",
                self.filename, start.line, start.column, end.column
            )
        } else {
            write!(
                f,
                "{}:{},{}-{},{}",
                self.filename, start.line, start.column, end.line, end.column
            )
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Short, capitalised, no full stop; matches OpenTofu's wording where the
    /// same diagnostic exists there.
    pub summary: String,
    /// Full sentences: what happened, why, what to do.
    pub detail: String,
    /// The range the diagnostic is about ("subject" in HCL).
    pub subject: Option<SourceRange>,
    /// A wider range giving context, e.g. the whole expression ("context").
    pub context: Option<SourceRange>,
    /// For evaluation errors: the expression text and the values of the
    /// references in it, rendered below the excerpt as Terraform does.
    pub expression_values: Vec<(String, String)>,
    /// The resource (or provider) instance the diagnostic concerns, which
    /// Terraform names in a `with ADDR,` line and a JSON `address` field.
    /// Only diagnostics Terraform attributes to an object carry it.
    pub address: Option<String>,
    /// For errors about calling a function (its arguments, its failure):
    /// the call, shown as "while calling NAME(PARAMS)" above the values.
    pub function_call: Option<Box<FunctionCall>>,
    /// A failed condition (a check's assertion, a precondition or
    /// postcondition, a variable's validation): each speaks of its own
    /// object, so it is never folded together with others of the same
    /// summary.
    pub condition_failure: bool,
    /// Made each time an expression is evaluated (a deprecated
    /// attribute's warning): the validation walk's is shown beside the
    /// plan's, as terraform counts both.
    pub per_evaluation: bool,
}

/// A function call a diagnostic is about: the name it was called by and
/// the function's signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionCall {
    /// The name as the call wrote it, namespace included
    /// (`provider::aws::arn_parse`, `core::upper`).
    pub called_as: String,
    /// The function's own name, without the namespace.
    pub name: String,
    /// Each parameter's name and type constraint, the type as JSON.
    pub params: Vec<(String, String)>,
    /// The variadic parameter, if the function has one.
    pub variadic: Option<(String, String)>,
    /// The result type of a call whose arguments have exactly the
    /// parameters' types, as JSON.
    pub return_type: String,
}

impl FunctionCall {
    /// The parameter list as the "while calling" line shows it:
    /// `format, args...`.
    pub fn parameter_list(&self) -> String {
        let mut names: Vec<String> = self.params.iter().map(|(n, _)| n.clone()).collect();
        if let Some((name, _)) = &self.variadic {
            names.push(format!("{name}..."));
        }
        names.join(", ")
    }
}

impl Diagnostic {
    pub fn error(summary: impl Into<String>, detail: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            summary: summary.into(),
            detail: detail.into(),
            subject: None,
            context: None,
            expression_values: Vec::new(),
            address: None,
            function_call: None,
            condition_failure: false,
            per_evaluation: false,
        }
    }

    pub fn warning(summary: impl Into<String>, detail: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(summary, detail)
        }
    }

    pub fn with_subject(mut self, subject: SourceRange) -> Diagnostic {
        self.subject = Some(subject);
        self
    }

    pub fn with_context(mut self, context: SourceRange) -> Diagnostic {
        self.context = Some(context);
        self
    }

    pub fn as_condition_failure(mut self) -> Diagnostic {
        self.condition_failure = true;
        self
    }

    pub fn with_address(mut self, address: impl Into<String>) -> Diagnostic {
        self.address = Some(address.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Diagnostics accumulated by one step; the step keeps going after an error so
/// one run reports every problem.
pub type Diagnostics = Vec<Diagnostic>;

pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(Diagnostic::is_error)
}
